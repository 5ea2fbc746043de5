"""What stands between the network and the memories: who may call, and how much they send.

One ASGI middleware, so that each rule is checked once, before any endpoint runs, and
every refusal is the same kind of JSON error as the rest of the API.

- Who: `engram.netguard.AccessRule`, the rule MCP over HTTP uses too (Host names this
  machine on a loopback bind without a token, a browser Origin is the server's own or
  listed with `--cors-origin`, the bearer token when one is set). `/health`, the
  dashboard and the docs need no token.
- How much: a body larger than the cap gets 413 before it is read into memory; a body
  that is not declared as JSON gets 415; a JSON body nested deeper than
  `MAX_JSON_DEPTH` gets 422 naming where, before a parser turns it into Python objects.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from ..errors import EngramError
from ..netguard import (
    DEFAULT_MAX_BODY,
    MAX_JSON_DEPTH,
    SAFE_METHODS,
    AccessRule,
    Refusal,
    insecure_token,
    json_nesting,
    viewer_of,
)
from ..netguard import check_bind as check_bind_rule
from ..netguard import is_loopback as is_loopback
from ..service.users import acting_as

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PROTECTED_PREFIX = "/v1/"


def needed_action(method: str, path: str, query: bytes = b"") -> str:
    """What a request does, for the caller's role: `read`, `write` or `admin`. Readers
    read; writers save, edit, import and review; removing a memory for good is an admin's."""
    if method in SAFE_METHODS or path == "/v1/used":  # a reader's uses count too
        return "read"
    if method == "DELETE" and b"hard=true" in query.lower():
        return "admin"
    return "write"


def check_bind(host: str, token: str | None, *, has_users: bool = False) -> None:
    check_bind_rule(host, token, "listen", has_users=has_users)


def is_json_type(content_type: str) -> bool:
    """`application/json`, with parameters, or any `+json` type."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/")
                                           and media.endswith("+json"))


async def send_error(send: Send, status: int, code: str, message: str,
                     headers: Iterable[tuple[bytes, bytes]] = (),
                     field: str | None = None) -> None:
    body: dict[str, Any] = {"error": code, "message": message}
    if field is not None:
        body["field"] = field
    encoded = json.dumps(body).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"),
                    (b"content-length", str(len(encoded)).encode()), *headers],
    })
    await send({"type": "http.response.body", "body": encoded})


class Guard:
    """The API's front door (see the module docstring for the rules)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None = None,
        bind_host: str = "127.0.0.1",
        cors_origins: Iterable[str] = (),
        max_body: int = DEFAULT_MAX_BODY,
        users: Any = None,
        allow_insecure: bool = False,
        limiter: Any = None,
    ) -> None:
        self.app = app
        self.rule = AccessRule(token=token, bind_host=bind_host, cors_origins=cors_origins,
                               users=users, limiter=limiter)
        self.max_body = max_body
        self.allow_insecure = allow_insecure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        path = str(scope.get("path", ""))
        needs_token = path.startswith(PROTECTED_PREFIX)
        refusal = insecure_token(scope, headers, self.allow_insecure)
        caller = None
        if refusal is None:
            try:
                refusal, caller = self.rule.identify(scope["method"], headers,
                                                     needs_token=needs_token)
            except EngramError as exc:  # the store cannot say who holds this token
                refusal = Refusal(503, "store_unavailable", str(exc), (("retry-after", "5"),))
        if refusal is None and caller is not None:
            action = needed_action(scope["method"], path, scope.get("query_string", b""))
            if not caller.may(action):
                refusal = Refusal(403, "forbidden", f"{caller.name} is a {caller.role}; "
                                  f"this needs a role that may {action}")
        if refusal is not None:
            extra = [(k.encode(), v.encode()) for k, v in refusal.headers]
            await send_error(send, refusal.status, refusal.code, refusal.message, extra)
            return
        scope.setdefault("state", {})["caller"] = caller
        with acting_as(viewer_of(caller)):
            await self._pass(scope, receive, send, headers)

    async def _pass(self, scope: Scope, receive: Receive, send: Send,
                    headers: dict[str, str]) -> None:
        if scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        await self._bounded(scope, receive, send, headers)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send,
                       headers: dict[str, str]) -> None:
        """Read at most `max_body` bytes, check the body's type and nesting, then hand the
        buffered body to the app."""
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                await send_error(send, 400, "bad_request", "Content-Length must be a number")
                return
            if int(declared) > self.max_body:
                await self._too_large(send)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await self._too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body.strip():
            if not is_json_type(headers.get("content-type", "")):
                await send_error(send, 415, "unsupported_media_type",
                                 "send the body as JSON with `Content-Type: application/json`",
                                 field="body")
                return
            where = json_nesting(body)
            if where is not None:
                await send_error(send, 422, "invalid",
                                 f"{where}: nests deeper than {MAX_JSON_DEPTH} levels of "
                                 "arrays and objects", field=where.split("[")[0].split(".")[0])
                return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        await send_error(
            send, 413, "body_too_large",
            f"the request body is larger than {self.max_body} bytes (engram serve --max-body)",
            field="body",
        )
