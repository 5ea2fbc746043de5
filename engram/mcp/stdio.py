"""MCP over stdio: our own line transport feeding the SDK's server, every line screened.

The SDK's stdio transport reads each line and writes each reply through a worker thread
(`anyio.to_thread`: two thread hops per call, three with the flush) and validates each
message again after `wire.screen` did. Here:

- A pipe or socket on stdin (what every agent gives a server) is read by the event loop
  itself (`loop.connect_read_pipe`): no thread hop. Anything else (a terminal, a file)
  is read by one reader thread that hands chunks to the loop.
- Each line (at most `MAX_MESSAGE_BYTES`; a longer one is skipped and refused) is
  screened once (`wire.screen`, the SDK's own message model) and the parsed message goes
  to the SDK's server as is; a bad one is answered with a JSON-RPC error, so every
  request the client sends gets a reply. The SDK's reader drops such a line unanswered.
- A reply is written by the loop when it is small (a pipe takes it at once unless the
  client stopped reading), by a worker thread when it is large, never on a descriptor
  made non-blocking (stdout may share its file description with stderr).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import threading
from collections import deque
from contextlib import ExitStack, suppress
from typing import Any, BinaryIO

import anyio
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

from .early import Early, private_stdin, private_stdout
from .wire import MAX_MESSAGE_BYTES, screen, too_large

_CHUNK = 65_536
_INLINE_WRITE = 16_384  # replies up to this size are written by the loop itself
_QUEUED_LINES = 64  # reading pauses while this many lines wait for the server
_TOO_LONG = b"\0a line over the limit\0"  # a sentinel, compared by identity


class LineReader(asyncio.Protocol):
    """Bytes from the client, cut into lines; a line over `limit` becomes `_TOO_LONG` and
    the rest of it is skipped as it arrives, never held."""

    def __init__(self, limit: int = MAX_MESSAGE_BYTES, initial: bytes = b"") -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already searched for a newline
        self._skipping = False
        self._lines: deque[bytes] = deque()
        self._eof = False
        self._waiter: asyncio.Future[None] | None = None
        self._transport: Any = None
        self._paused = False
        self._feed(initial)

    # --- the loop's side (asyncio.Protocol) -------------------------------------------

    def connection_made(self, transport: Any) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._feed(data)
        if self._transport is not None and not self._paused \
                and len(self._lines) >= _QUEUED_LINES:
            self._transport.pause_reading()
            self._paused = True
        self._wake()

    def eof_received(self) -> bool:
        self._end()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    # --- the server's side ------------------------------------------------------------

    async def readline(self) -> bytes | None:
        """The next line (without its newline), `_TOO_LONG`, or None at the end."""
        while not self._lines:
            if self._eof:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        line = self._lines.popleft()
        if self._paused and len(self._lines) < _QUEUED_LINES // 2:
            self._paused = False
            self._transport.resume_reading()
        return line

    def _feed(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        while True:
            end = buffer.find(b"\n", self._scanned)
            if end < 0:
                if len(buffer) > self._limit:  # no newline within the limit: refuse, skip
                    if not self._skipping:
                        self._lines.append(_TOO_LONG)
                        self._skipping = True
                    buffer.clear()
                self._scanned = len(buffer)
                return
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            self._scanned = 0
            if self._skipping:  # the tail of a line already refused
                self._skipping = False
                continue
            self._lines.append(_TOO_LONG if len(line) > self._limit else line.rstrip(b"\r"))

    def _end(self) -> None:
        if self._buffer and not self._skipping:  # a last line without its newline
            line = bytes(self._buffer)
            self._lines.append(_TOO_LONG if len(line) > self._limit else line.rstrip(b"\r"))
        self._buffer.clear()
        self._eof = True
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


def _is_stream(source: BinaryIO) -> bool:
    """A pipe or a socket, which the loop can read without a thread."""
    try:
        mode = os.fstat(source.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _connect(source: BinaryIO, reader: LineReader) -> None:
    """Feed `reader` from `source`: by the loop for a pipe or socket, else by one thread."""
    loop = asyncio.get_running_loop()
    if _is_stream(source):
        with suppress(OSError, ValueError):
            await loop.connect_read_pipe(lambda: reader, source)
            return

    def pump() -> None:
        try:
            fd = source.fileno()
            read = lambda: os.read(fd, _CHUNK)  # noqa: E731
        except (OSError, ValueError, AttributeError):  # no descriptor (tests, wrappers)
            read = lambda: source.read1(_CHUNK)  # type: ignore[attr-defined]  # noqa: E731
        try:
            while chunk := read():
                loop.call_soon_threadsafe(reader.data_received, chunk)
        except (OSError, ValueError):
            pass
        with suppress(RuntimeError):  # the loop is gone: nobody is reading any more
            loop.call_soon_threadsafe(reader.eof_received)

    threading.Thread(target=pump, name="engram-stdin", daemon=True).start()


class Replies:
    """What goes to stdout. The SDK's answer to the opening request is dropped when
    `early` already sent one (a warning is logged if the two differ, and the SDK's answer
    is kept for the next session), and kept for the next session when none was sent."""

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
                        early.check(reply)
                        return  # the client has this answer already
                    if "result" in reply:
                        early.remember(reply)
        data = text.encode("utf-8") + b"\n"
        if len(data) <= _INLINE_WRITE:
            self._out.write(data)
            self._out.flush()
        else:
            await anyio.to_thread.run_sync(self._write_all, data)

    def _write_all(self, data: bytes) -> None:
        self._out.write(data)
        self._out.flush()


async def serve_stdio(lowlevel: Any, early: Early | None = None) -> None:
    """Serve one MCP connection over this process's stdin and stdout until EOF; `early`
    holds the first line when `engram mcp` read it (and maybe answered it) itself."""
    with ExitStack() as stack:
        source = early.source if early is not None else stack.enter_context(private_stdin())
        out = stack.enter_context(private_stdout())
        initial = b""
        if early is not None and early.first is not None:
            initial = early.first + early.rest
        reader = LineReader(initial=initial)
        replies = Replies(out, early)
        await _connect(source, reader)

        read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
        write_stream, write_reader = create_context_streams[SessionMessage](0)

        async def read_lines() -> None:
            async with read_writer:
                while (line := await reader.readline()) is not None:
                    verdict = too_large() if line is _TOO_LONG else screen(line)
                    if verdict.message is not None:
                        await read_writer.send(SessionMessage(verdict.message))
                    elif verdict.reply is not None:
                        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                            await write_stream.send(SessionMessage(verdict.reply))

        async def write_replies() -> None:
            async with write_reader:
                async for message in write_reader:
                    await replies.write(message.message.model_dump_json(
                        by_alias=True, exclude_unset=True))

        async with anyio.create_task_group() as writing:
            writing.start_soon(write_replies)
            async with anyio.create_task_group() as reading:
                reading.start_soon(read_lines)
                await lowlevel.run(read_stream, write_stream,
                                   lowlevel.create_initialization_options())
                reading.cancel_scope.cancel()  # the server is done: stop reading
            await write_stream.aclose()  # every reply written, the writer ends
