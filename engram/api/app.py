"""The FastAPI application: routes, the dashboard, local API docs, and one error format.

Every error is JSON: `{"error": code, "message": text, "field": name?}` with a 4xx
status for anything the client can fix. Nothing a client sends produces a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.security import HTTPBearer
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from .. import __version__
from ..dashboard import STATIC_DIR as STATIC
from ..errors import ConflictError, EngramError, NotFoundError, StoreError, ValidationError
from .security import DEFAULT_MAX_BODY, Guard

log = logging.getLogger("engram.api")

_bearer = HTTPBearer(auto_error=False, description="ENGRAM_TOKEN, when the server has one.")


def error(status: int, code: str, message: str, field: str | None = None,
          **extra: Any) -> JSONResponse:
    body: dict[str, Any] = {"error": code, "message": message}
    if field is not None:
        body["field"] = field
    body.update(extra)
    return JSONResponse(body, status_code=status)


def _location(loc: Iterable[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ValidationError)
    def _invalid(request: Request, exc: ValidationError) -> JSONResponse:
        return error(400, "invalid", str(exc), exc.field)

    @app.exception_handler(NotFoundError)
    def _missing(request: Request, exc: NotFoundError) -> JSONResponse:
        return error(404, "not_found", str(exc))

    @app.exception_handler(ConflictError)
    def _conflict(request: Request, exc: ConflictError) -> JSONResponse:
        return error(409, "conflict", str(exc))

    @app.exception_handler(StoreError)
    def _store(request: Request, exc: StoreError) -> JSONResponse:
        return error(503, "store_unavailable", str(exc))

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
                problems.append({"field": "body",
                                 "message": f"is not valid JSON ({reason})" if reason
                                 else "is not valid JSON"})
            else:
                problems.append({"field": _location(e.get("loc", ())),
                                 "message": str(e.get("msg", "invalid"))})
        first = problems[0] if problems else {"field": "body", "message": "invalid request"}
        message = f"{first['field']}: {first['message']}"
        return error(422, "invalid", message, first["field"], problems=problems)

    @app.exception_handler(HTTPException)
    def _http(request: Request, exc: HTTPException) -> JSONResponse:
        codes = {404: "no_such_endpoint", 405: "method_not_allowed", 400: "bad_request"}
        detail = exc.detail if isinstance(exc.detail, str) else "bad request"
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no endpoint at {request.url.path}; see /docs"
        return JSONResponse({"error": codes.get(exc.status_code, "error"), "message": detail},
                            status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(OverflowError)
    def _overflow(request: Request, exc: OverflowError) -> JSONResponse:
        # e.g. year 1 at +01:00, which has no UTC equivalent; raised while validating
        return error(400, "invalid", "a date or number in the request is out of range")

    @app.exception_handler(UnicodeError)
    def _unicode(request: Request, exc: UnicodeError) -> JSONResponse:
        return error(400, "invalid", "the request holds text that is not valid Unicode")

    @app.exception_handler(Exception)
    def _bug(request: Request, exc: Exception) -> JSONResponse:  # pragma: no cover - a bug
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error(500, "internal", "unexpected server error (see the server log)")


def create_app(
    engram: Any,
    *,
    token: str | None = None,
    bind_host: str = "127.0.0.1",
    cors_origins: Iterable[str] = (),
    max_body: int = DEFAULT_MAX_BODY,
) -> FastAPI:
    """The API over one open service. `engram serve` calls this; so can tests and embedders."""
    from fastapi import Depends

    from . import review_routes, routes

    app = FastAPI(
        title="Engram",
        version=__version__,
        description="Long-term memory for AI coding agents. Memory is background context, "
        "not instructions: when a memory conflicts with the code, current code wins.",
        docs_url=None,
        redoc_url=None,
    )
    app.state.engram = engram
    secured = [Depends(_bearer)]
    app.include_router(routes.router, dependencies=secured)
    app.include_router(review_routes.router, dependencies=secured)
    _install_error_handlers(app)

    @app.get("/health", tags=["health"])
    def health() -> dict[str, Any]:
        """Liveness: no token needed, tells nothing about the memories."""
        return {"status": "ok", "version": __version__}

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json", title="Engram API",
            swagger_js_url="/static/vendor/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url="/static/vendor/swagger-ui/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
        )

    @app.get("/", include_in_schema=False)
    def dashboard() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    origins = [o for o in cors_origins if o]
    if origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_credentials=False,
                           allow_methods=["*"], allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(Guard, token=token, bind_host=bind_host, cors_origins=origins,
                       max_body=max_body)
    return app
