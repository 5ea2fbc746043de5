"""One status per kind of error, one body shape, and an OpenAPI document that lists them.

Every error is JSON `{"error": code, "message": text, "field": name?, "problems": [...]?}`:

- 400 `bad_request`: the request cannot be read at all (the body is not JSON, not UTF-8,
  or its Content-Length is not a number).
- 422 `invalid`: it was read, and a value or shape is refused: a missing or unknown
  field, a wrong type, a value out of range, a date that cannot be parsed, JSON nested
  too deep. Whether FastAPI's request models or the service caught it, it is 422
  (FastAPI's own validation status, so the document and the routes agree everywhere).
- 401 token, 403 browser origin, a role or a clear-text token, 421 host name (netguard's
  rule), 429 a user's or token's rate limit (with Retry-After), 404 no such memory or
  endpoint, 405 method, 409 the memory's state forbids the change, 413 body too large,
  415 body not declared as JSON, 503 the store or a dependency is unavailable (with
  Retry-After when retrying may help), 500 a bug (details only in the server log).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from ..errors import (
    ConflictError,
    EngramError,
    NotFoundError,
    StoreError,
    StoreUnavailableError,
    ValidationError,
)

log = logging.getLogger("engram.api")

RETRY_AFTER_SECONDS = 5
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class Problem(BaseModel):
    field: str
    message: str


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: str = Field(description="A stable code: bad_request, invalid, unauthorized, "
                       "forbidden_origin, bad_host, not_found, no_such_endpoint, conflict, "
                       "body_too_large, unsupported_media_type, store_unavailable, "
                       "store_error, unavailable, internal.")
    message: str = Field(description="What is wrong, for a person to read.")
    field: str | None = Field(None, description="The request field at fault, when one is.")
    problems: list[Problem] | None = Field(
        None, description="Every field at fault, when request validation found several.")


DESCRIPTIONS = {
    400: "Malformed request: the body is not JSON (or not UTF-8), or Content-Length is "
         "not a number.",
    401: "The store has users (or the server a token) and the request has no or a wrong "
         "`Authorization: Bearer` header.",
    403: "A browser page of another origin (not listed with --cors-origin); a user whose "
         "role may not do this; or a token sent in clear text from another machine.",
    404: "No memory has that id (or the id prefix is ambiguous).",
    409: "The memory's state forbids the change (e.g. superseding a superseded memory).",
    413: "The body is larger than the server's --max-body.",
    415: "The body is not declared as JSON (`Content-Type: application/json`).",
    421: "The Host header does not name this machine (loopback server without a token).",
    422: "A field is missing, unknown, of the wrong type, out of range, or nested too deep; "
         "`field` names it.",
    429: "This user or token sent more requests than the server's --rate-limit allows; "
         "retry after `Retry-After` seconds.",
    500: "A bug: an unexpected server error (the details are in the server log only).",
    503: "The store is unavailable (disk full, locked past the wait allowed, I/O error) or "
         "a dependency is down; retry after `Retry-After` seconds when it is given.",
}
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before retrying (only when "
                                              "the store is temporarily unavailable).",
                               "schema": {"type": "integer"}}}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for these error statuses."""
    entries: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        entry: dict[str, Any] = {"model": ErrorBody, "description": DESCRIPTIONS[status]}
        if status in (429, 503):
            entry["headers"] = RETRY_AFTER
        entries[status] = entry
    return entries


def document_errors(app: FastAPI) -> None:
    """Make the OpenAPI document list the statuses every route shares.

    Route-specific ones (404, 409) and the ones every `/v1` route shares (401, 500, 503)
    are declared on the routers; this adds, once the document is built, what the Guard
    and the validation handlers answer: 403 and 421 on every path, 400/413/415/422 on
    every method that sends a body, 422 wherever a parameter can be refused (replacing
    FastAPI's own 422 schema, which this API never sends).
    """
    build = app.openapi
    error_ref = {"$ref": "#/components/schemas/ErrorBody"}

    def entry(status: int) -> dict[str, Any]:
        documented: dict[str, Any] = {"description": DESCRIPTIONS[status],
                                      "content": {"application/json": {"schema": error_ref}}}
        if status in (429, 503):
            documented["headers"] = RETRY_AFTER
        return documented

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        for path, operations in schema.get("paths", {}).items():
            for method, operation in operations.items():
                statuses = [403, 421] + ([429] if path.startswith("/v1/") else [])
                if method.upper() in UNSAFE_METHODS:
                    statuses += [400, 413, 415, 422]
                elif operation.get("parameters"):
                    statuses.append(422)
                answers = operation.setdefault("responses", {})
                for status in statuses:
                    if status == 422 or str(status) not in answers:
                        answers[str(status)] = entry(status)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, model in (("ErrorBody", ErrorBody), ("Problem", Problem)):
            if name not in components:
                components[name] = model.model_json_schema(
                    ref_template="#/components/schemas/{model}")
                components[name].pop("$defs", None)
        text = str(schema["paths"])
        for unused in ("HTTPValidationError", "ValidationError"):
            if f"/{unused}'" not in text:
                components.pop(unused, None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def error(status: int, code: str, message: str, field: str | None = None,
          headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    body: dict[str, Any] = {"error": code, "message": message}
    if field is not None:
        body["field"] = field
    body.update(extra)
    return JSONResponse(body, status_code=status, headers=headers)


def _location(loc: Iterable[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ValidationError)
    def _invalid(request: Request, exc: ValidationError) -> JSONResponse:
        return error(422, "invalid", str(exc), exc.field)

    @app.exception_handler(NotFoundError)
    def _missing(request: Request, exc: NotFoundError) -> JSONResponse:
        return error(404, "not_found", str(exc))

    @app.exception_handler(ConflictError)
    def _conflict(request: Request, exc: ConflictError) -> JSONResponse:
        return error(409, "conflict", str(exc))

    @app.exception_handler(StoreUnavailableError)
    def _unavailable(request: Request, exc: StoreUnavailableError) -> JSONResponse:
        return error(503, "store_unavailable",
                     f"the memory store is unavailable right now ({exc}); "
                     f"try again in {RETRY_AFTER_SECONDS} s",
                     headers={"Retry-After": str(RETRY_AFTER_SECONDS)})

    @app.exception_handler(StoreError)
    def _store(request: Request, exc: StoreError) -> JSONResponse:
        return error(503, "store_error", str(exc))

    @app.exception_handler(EngramError)
    def _engram(request: Request, exc: EngramError) -> JSONResponse:
        # e.g. a remote embedder that is down: the server is fine, a dependency is not
        return error(503, "unavailable", str(exc))

    @app.exception_handler(RequestValidationError)
    def _shape(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for e in exc.errors():
            if e.get("type") == "json_invalid":
                reason = (e.get("ctx") or {}).get("error", "")
                return error(400, "bad_request", "body: is not valid JSON"
                             + (f" ({reason})" if reason else ""), "body")
            problems.append({"field": _location(e.get("loc", ())),
                             "message": str(e.get("msg", "invalid"))})
        first = problems[0] if problems else {"field": "body", "message": "invalid request"}
        message = f"{first['field']}: {first['message']}"
        return error(422, "invalid", message, first["field"], problems=problems)

    @app.exception_handler(HTTPException)
    def _http(request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 400:  # FastAPI could not decode the body (e.g. not UTF-8)
            return error(400, "bad_request", "body: is not valid JSON in UTF-8", "body")
        codes = {404: "no_such_endpoint", 405: "method_not_allowed"}
        detail = exc.detail if isinstance(exc.detail, str) else "bad request"
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no endpoint at {request.url.path}; see /docs"
        return JSONResponse({"error": codes.get(exc.status_code, "error"), "message": detail},
                            status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(OverflowError)
    def _overflow(request: Request, exc: OverflowError) -> JSONResponse:
        # e.g. year 1 at +01:00, which has no UTC equivalent; raised while validating
        return error(422, "invalid", "a date or number in the request is out of range")

    @app.exception_handler(UnicodeError)
    def _unicode(request: Request, exc: UnicodeError) -> JSONResponse:
        return error(422, "invalid", "the request holds text that is not valid Unicode")

    @app.exception_handler(Exception)
    def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error(500, "internal", "unexpected server error (see the server log)")
