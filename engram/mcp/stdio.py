"""MCP over stdio: the SDK's transport, reading only lines that `wire.screen` passed.

The SDK's own stdin reader drops a line it cannot validate and never answers it. Here
each line is read (at most `MAX_MESSAGE_BYTES`), screened, and either handed to the
SDK's transport unchanged or answered with a JSON-RPC error on the transport's own
write stream, so every request the client sends gets a reply.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError

from .wire import MAX_MESSAGE_BYTES, screen, too_large

_DRAIN_CHUNK = 65_536
_TOO_LONG = b"\0a line over the limit\0"  # a sentinel, compared by identity


class ScreenedLines:
    """The stdin lines the SDK's transport iterates over; bad messages never reach it."""

    def __init__(self, source: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._source = source
        self._limit = limit
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


@contextmanager
def _private_stdin() -> Iterator[BinaryIO]:
    """The client's messages on a private descriptor; fd 0 reads /dev/null meanwhile, so a
    child process cannot consume them (what the SDK does when it owns stdin)."""
    if sys.platform == "win32":  # pragma: no cover - no fd juggling there
        yield sys.stdin.buffer
        return
    import fcntl

    try:
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield sys.stdin.buffer
        return
    diverted = False
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        diverted = True
    except OSError:
        pass
    try:
        # closefd=False: a worker thread may still block on it after the transport exits
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        if diverted:
            with suppress(OSError):
                os.dup2(private, 0)


async def serve_stdio(lowlevel: Any) -> None:
    """Serve one MCP connection over this process's stdin and stdout until EOF."""
    with _private_stdin() as source:
        lines = ScreenedLines(source)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.bind(write_stream)
            await lowlevel.run(read_stream, write_stream,
                               lowlevel.create_initialization_options())
