"""Who may talk to the MCP server over HTTP, and what they may send.

The rule is the REST API's (`engram.netguard.AccessRule`): on a loopback bind without a
token the Host header must name this machine (no DNS rebinding); a browser page may call
only from the server's own origin, and this server serves no pages, so every other
Origin gets 403; a token, once set, is enforced on loopback too. A server reachable from
other machines refuses to start without a token.

Every POSTed message is read (at most `MAX_MESSAGE_BYTES`) and screened as stdio lines
are (`wire.screen`), so both transports refuse a malformed message the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mcp.types import INVALID_REQUEST, ErrorData, JSONRPCError, JSONRPCRequest

from ..errors import EngramError
from ..netguard import (
    TOKEN_ENV,
    AccessRule,
    BindRefused,
    Refusal,
    insecure_token,
    is_loopback,
    viewer_of,
)
from ..netguard import check_bind as _check_bind
from ..service.users import User, acting_as
from .wire import MAX_MESSAGE_BYTES, screen, too_large

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class GuardMiddleware:
    """ASGI middleware in front of the MCP app: the access rule, then the message screen."""

    def __init__(self, app: ASGIApp, token: str | None, *, bind_host: str = "127.0.0.1",
                 max_message: int = MAX_MESSAGE_BYTES, users: Any = None,
                 read_only_tools: frozenset[str] = frozenset(),
                 allow_insecure: bool = False, limiter: Any = None) -> None:
        self.app = app
        self.rule = AccessRule(token=token or None, bind_host=bind_host, users=users,
                               limiter=limiter)
        self.max_message = max_message
        #: What a reader may call; every other tool changes memory.
        self.read_only_tools = read_only_tools
        self.allow_insecure = allow_insecure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal, caller = insecure_token(scope, headers, self.allow_insecure), None
        if refusal is None:
            try:
                refusal, caller = self.rule.identify(scope.get("method", "GET"), headers)
            except EngramError as exc:  # the store cannot say who holds this token
                refusal = Refusal(503, "store_unavailable", str(exc))
        if refusal is not None:
            await _reply(send, refusal.status, _error(None, INVALID_REQUEST, refusal.message),
                         refusal.headers)
            return
        # A session's server task starts inside its first request, so it keeps this user too.
        with acting_as(viewer_of(caller)):
            await self._pass(scope, receive, send, caller)

    async def _pass(self, scope: Scope, receive: Receive, send: Send,
                    caller: User | None) -> None:
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        try:
            body = await _read(receive, self.max_message)
        except _ClientGone:
            return
        if body is None:
            reply = too_large(self.max_message).reply
            assert reply is not None
            await _reply(send, 413, reply)
            return
        verdict = screen(body, limit=self.max_message)
        if verdict.reply is not None:
            await _reply(send, 400, verdict.reply)
            return
        denied = self._denied(caller, verdict.message)
        if denied is not None:
            await _reply(send, 403, denied)
            return
        if verdict.message is None:  # a malformed notification or stray reply: unanswered
            await send({"type": "http.response.start", "status": 202,
                        "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        delivered = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


    def _denied(self, caller: User | None, message: Any) -> JSONRPCError | None:
        """A reader calling a tool that changes memory gets a JSON-RPC error."""
        request = getattr(message, "root", message)
        if caller is None or caller.may("write") or not isinstance(request, JSONRPCRequest):
            return None
        if request.method != "tools/call":
            return None
        name = (request.params or {}).get("name")
        if name in self.read_only_tools:
            return None
        return _error(request.id, INVALID_REQUEST,
                      f"{caller.name} is a reader; {name!r} changes memory")


class _ClientGone(Exception):
    """The client disconnected before sending its whole message."""


async def _read(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None once it grows past `limit`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _error(request_id: int | str | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


async def _reply(send: Send, status: int, error: JSONRPCError,
                 extra: tuple[tuple[str, str], ...] = ()) -> None:
    """An HTTP error whose body is a JSON-RPC error, as the MCP transport's own are."""
    body = error.model_dump_json(by_alias=True, exclude_unset=True).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode()),
               *((k.encode(), v.encode()) for k, v in extra)]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def check_bind(host: str, token: str | None, *, has_users: bool = False) -> None:
    _check_bind(host, token, "serve MCP", has_users=has_users)


__all__ = ["TOKEN_ENV", "BindRefused", "GuardMiddleware", "check_bind", "is_loopback"]
