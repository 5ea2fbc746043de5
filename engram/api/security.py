"""What stands between the network and the memories: token, host, origin and body size.

One ASGI middleware, so that each rule is checked once, before any endpoint runs, and
every refusal is the same kind of JSON error as the rest of the API.

- Loopback is the default bind. Anywhere else needs a token (`ENGRAM_TOKEN`); a token set
  on loopback is enforced too (`Authorization: Bearer …` on every `/v1` request).
- On loopback without a token, the Host header must name this machine: a web page cannot
  reach the API by DNS rebinding.
- Writes from a browser page of another origin are refused unless that origin was listed
  with `--cors-origin` (no cross-site request forgery of pins, archives, deletes).
- Request bodies larger than the cap get 413 before they are read into memory.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from ..netguard import LOCAL_HOSTNAMES, bearer_matches, is_loopback
from ..netguard import check_bind as check_bind_rule

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_BODY = 1_048_576  # 1 MiB
PROTECTED_PREFIX = "/v1/"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def check_bind(host: str, token: str | None) -> None:
    check_bind_rule(host, token, "listen")


def _host_name(host_header: str) -> str:
    """`[::1]:3456` → `::1`, `localhost:3456` → `localhost`."""
    host_header = host_header.strip().lower()
    if host_header.startswith("["):
        return host_header[1:].split("]", 1)[0]
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


async def send_error(send: Send, status: int, code: str, message: str,
                     headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()), *headers],
    })
    await send({"type": "http.response.body", "body": body})


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
    ) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.check_host = token is None and is_loopback(bind_host)
        self.allowed_hosts = LOCAL_HOSTNAMES | {bind_host.strip("[]").lower()}
        self.cors_origins = frozenset(o.rstrip("/").lower() for o in cors_origins)
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, code, message = refusal
            extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
            await send_error(send, status, code, message, extra)
            return
        if scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        await self._capped(scope, receive, send, headers)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str, str] | None:
        if self.check_host and _host_name(headers.get("host", "")) not in self.allowed_hosts:
            return 421, "bad_host", (
                "this server answers only to localhost / 127.0.0.1 / [::1] "
                "(set ENGRAM_TOKEN to serve other host names)"
            )
        path: str = scope.get("path", "")
        if not path.startswith(PROTECTED_PREFIX):
            return None
        if self.token is not None and scope["method"] != "OPTIONS":
            header = headers.get("authorization", "")
            scheme, _, given = header.partition(" ")
            if scheme.lower() != "bearer" or not given.strip():
                return 401, "unauthorized", "this server needs `Authorization: Bearer <token>`"
            if not bearer_matches(header, self.token):
                return 401, "unauthorized", "the bearer token is wrong"
        if scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin", "").rstrip("/").lower()
            own = {f"{proto}://{headers.get('host', '').lower()}" for proto in ("http", "https")}
            cross_site = headers.get("sec-fetch-site", "") == "cross-site"
            if origin and origin != "null" and origin not in own | self.cors_origins:
                return 403, "forbidden_origin", (
                    f"writes from {origin} are refused; list it with --cors-origin to allow it"
                )
            if (origin == "null" or cross_site) and origin not in self.cors_origins:
                return 403, "forbidden_origin", "cross-site writes are refused"
        return None

    async def _capped(self, scope: Scope, receive: Receive, send: Send,
                      headers: dict[str, str]) -> None:
        """Read at most `max_body` bytes, then hand the buffered body to the app."""
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
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
        )

