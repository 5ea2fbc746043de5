"""MCP over stdio: the SDK's transport, reading only lines that `wire.screen` passed.

The SDK's own stdin reader drops a line it cannot validate and never answers it. Here
each line is read (at most `MAX_MESSAGE_BYTES`), screened, and either handed to the
SDK's transport unchanged or answered with a JSON-RPC error on the transport's own
write stream, so every request the client sends gets a reply.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import ExitStack, suppress
from typing import Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError

from .early import Early, private_stdin, private_stdout
from .wire import MAX_MESSAGE_BYTES, screen, too_large

_DRAIN_CHUNK = 65_536
_TOO_LONG = b"\0a line over the limit\0"  # a sentinel, compared by identity


class ScreenedLines:
    """The stdin lines the SDK's transport iterates over; bad messages never reach it."""

    def __init__(self, source: BinaryIO, limit: int = MAX_MESSAGE_BYTES,
                 first: bytes | None = None) -> None:
        self._source = source
        self._limit = limit
        self._first = first  # a line already read from `source`, served before the rest
        self._write: Any = None
        self._bound = anyio.Event()

    def bind(self, write_stream: Any) -> None:
        """Where refusals go: the transport's write stream, once it exists."""
        self._write = write_stream
        self._bound.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._read_line()
            if line is None:
                raise StopAsyncIteration
            oversized = line is _TOO_LONG
            verdict = too_large(self._limit) if oversized else screen(line, limit=self._limit)
            if verdict.message is not None:
                return line.decode("utf-8")
            if verdict.reply is not None:
                await self._answer(verdict.reply)

    async def _read_line(self) -> bytes | None:
        if self._first is not None:
            line, self._first = self._first, None
        else:
            line = await anyio.to_thread.run_sync(self._source.readline, self._limit + 1,
                                                  abandon_on_cancel=True)
        if not line:
            return None
        if len(line) > self._limit and not line.endswith(b"\n"):
            while True:  # skip the rest of the oversized line, a chunk at a time
                rest = await anyio.to_thread.run_sync(self._source.readline, _DRAIN_CHUNK,
                                                      abandon_on_cancel=True)
                if not rest or rest.endswith(b"\n"):
                    return _TOO_LONG
        return line.rstrip(b"\r\n")

    async def _answer(self, reply: JSONRPCError) -> None:
        await self._bound.wait()
        # ClosedResourceError: the server is shutting down, nobody is listening any more
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._write.send(SessionMessage(reply))


class Replies:
    """What the transport writes to stdout. The SDK's answer to the first initialize is
    kept for the next session when none was cached, and dropped when the cached one was
    already sent (`early`)."""

    def __init__(self, out: BinaryIO, early: Early | None) -> None:
        self._out = out
        self._early = early if early is not None and early.request_id is not None else None

    async def write(self, text: str) -> None:
        early = self._early
        if early is not None:
            with suppress(ValueError):
                reply = json.loads(text)
                if isinstance(reply, dict) and reply.get("id") == early.request_id:
                    self._early = None
                    if early.answered:
                        return  # the client has this answer already
                    if "result" in reply:
                        early.remember(reply)
        await anyio.to_thread.run_sync(self._out.write, text.encode("utf-8"))

    async def flush(self) -> None:
        await anyio.to_thread.run_sync(self._out.flush)


async def serve_stdio(lowlevel: Any, early: Early | None = None) -> None:
    """Serve one MCP connection over this process's stdin and stdout until EOF; `early`
    holds the first line when `engram mcp` read it (and maybe answered it) itself."""
    with ExitStack() as stack:
        source = early.source if early is not None else stack.enter_context(private_stdin())
        out = stack.enter_context(private_stdout())
        lines = ScreenedLines(source, first=early.first if early is not None else None)
        async with stdio_server(stdin=lines, stdout=Replies(out, early)) as (  # type: ignore[arg-type]
            read_stream, write_stream
        ):
            lines.bind(write_stream)
            await lowlevel.run(read_stream, write_stream,
                               lowlevel.create_initialization_options())
