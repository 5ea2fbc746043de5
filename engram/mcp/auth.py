"""Who may talk to the MCP server over HTTP: a bearer token and a same-machine Origin.

A browser page on any site can send requests to 127.0.0.1 (DNS rebinding, or plain
fetch); the Origin check stops that. A server reachable from other machines must not be
open to them: it refuses to start without a token, and a token, once set, is enforced on
loopback too.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

TOKEN_ENV = "ENGRAM_TOKEN"
LOCAL_HOSTNAMES = frozenset({"localhost", "127.0.0.1", "::1"})

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BindRefused(Exception):
    """Serving on this host would expose memory to other machines without a token."""


def is_loopback(host: str) -> bool:
    """True for names and addresses that only this machine can reach."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without a token, before anything listens."""
    if not is_loopback(host) and not token:
        raise BindRefused(
            f"refusing to serve MCP on {host}, which other machines can reach, without a token: "
            f"set {TOKEN_ENV} (clients send it as 'Authorization: Bearer <token>'), "
            "or bind to 127.0.0.1"
        )


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


def token_matches(header: str | None, token: str) -> bool:
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(value.strip().encode(), token.encode())


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
        if self.token is not None and not token_matches(headers.get("authorization"), self.token):
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
