"""Who may talk to the MCP server over HTTP: a bearer token and a same-machine Origin.

A browser page on any site can send requests to 127.0.0.1 (DNS rebinding, or plain
fetch); the Origin check stops that. A server reachable from other machines must not be
open to them: it refuses to start without a token, and a token, once set, is enforced on
loopback too.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from ..netguard import LOCAL_HOSTNAMES, TOKEN_ENV, BindRefused, bearer_matches, is_loopback
from ..netguard import check_bind as _check_bind

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def origin_allowed(origin: str | None) -> bool:
    """No Origin (a non-browser client) or a page served from this machine."""
    if origin is None or origin == "":
        return True
    try:
        parts = urlsplit(origin)
        hostname = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and hostname in LOCAL_HOSTNAMES


class GuardMiddleware:
    """ASGI middleware in front of the MCP app: Origin first, then the bearer token."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token or None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not origin_allowed(headers.get("origin")):
            await _reply(send, 403, "forbidden",
                         f"requests from origin {headers.get('origin')!r} are refused; "
                         "only pages on localhost may call this server")
            return
        if self.token is not None and not bearer_matches(headers.get("authorization"), self.token):
            await _reply(send, 401, "unauthorized",
                         f"missing or wrong bearer token (the server's {TOKEN_ENV})",
                         extra=[(b"www-authenticate", b'Bearer realm="engram"')])
            return
        await self.app(scope, receive, send)


async def _reply(send: Send, status: int, error: str, message: str,
                 extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": error, "message": message}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def check_bind(host: str, token: str | None) -> None:
    _check_bind(host, token, "serve MCP")


__all__ = ["TOKEN_ENV", "BindRefused", "check_bind", "is_loopback", "origin_allowed"]
