"""Answer an MCP client's opening request before the SDK has loaded.

An agent starts `engram mcp` and waits for the answer to its first message (`initialize`,
or `server/discover` in the 2026-07-28 protocol). Importing the MCP SDK alone takes most of
a second (its pydantic models), so the handshake used to cost 1-1.5 s. The answer never
changes for one Engram and SDK version and one protocol version, so it is sent the moment
the request arrives, and the SDK loads while the client reads it:

- `initialize` in a protocol version the SDK speaks (or any other, answered with the
  latest, as the SDK does): from `initialize_result`, built here from constants, even in
  the first session ever. `tests/test_mcp.py` compares it with the SDK's own answer for
  every version, and at run time the SDK's answer (still computed: its session needs the
  request) is compared with the one sent; a difference is logged and the SDK's answer is
  kept for the next session, which sends that instead.
- Anything else the SDK answered before (`server/discover`): the answer the last session
  stored (`cache/mcp-initialize.json` under ENGRAM_HOME).

The SDK's own answer to a request answered here is dropped, being the one already sent.
Nothing heavy is imported here (the standard library, engram.config, engram.guidance):
this runs before the reply.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ..config import engram_home, private_dir, write_private
from ..guidance import INSTRUCTIONS

CACHE_NAME = "mcp-initialize.json"
# Above any message the transport accepts (netguard.DEFAULT_MAX_BODY, not imported: it
# costs a tenth of a second before the reply), so a longer first line is refused there
# exactly as any other.
FIRST_LINE_BYTES = 4 * 1_048_576
_CHUNK = 65_536

# The server's identity and what it offers, as `server.build_server` declares them to the
# SDK; `initialize_result` answers with them (tests/test_mcp.py checks the SDK agrees).
SERVER_NAME = "engram"
SERVER_TITLE = "Engram"
SERVER_DESCRIPTION = "Long-term memory for coding agents"
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
#: The SDK's HANDSHAKE_PROTOCOL_VERSIONS (mcp 2.3); the last is what an unknown one gets.
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: The SDK's MODERN_PROTOCOL_VERSIONS: `server/discover` instead of a handshake.
MODERN_VERSIONS = ("2026-07-28",)
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"


def _server_info() -> dict[str, Any]:
    from .. import __version__

    return {"description": SERVER_DESCRIPTION, "name": SERVER_NAME, "title": SERVER_TITLE,
            "version": __version__}


def initialize_result(requested: Any) -> dict[str, Any]:
    """The SDK's answer to `initialize` asking for protocol version `requested`."""
    return {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
        "serverInfo": _server_info(),
    }


def discover_result() -> dict[str, Any]:
    """The SDK's answer to `server/discover` in a version of MODERN_VERSIONS (there every
    capability is announced as able to change)."""
    return {
        "cacheScope": "private",
        "capabilities": {"prompts": {"listChanged": True},
                         "resources": {"listChanged": True, "subscribe": True},
                         "tools": {"listChanged": True}},
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "supportedVersions": list(MODERN_VERSIONS),
        "ttlMs": 0,
        "_meta": {SERVER_INFO_KEY: _server_info()},
    }


def static_result(method: str, version: str) -> dict[str, Any] | None:
    """What the SDK answers to this opening request, when it is one answered here."""
    if method == "initialize":
        return initialize_result(version)
    if method == "server/discover" and version in MODERN_VERSIONS:
        return discover_result()
    return None


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__

    try:
        sdk = version("mcp")
    except PackageNotFoundError:  # pragma: no cover - engram requires it
        sdk = "?"
    return f"engram {__version__}; mcp {sdk}"


@dataclass
class Early:
    """The first line the client sent, and what was done about it."""

    source: BinaryIO
    first: bytes | None = None
    rest: bytes = b""  # what was read after the first line: the transport's to read next
    request_id: Any = None  # the id of the first line, when it opened the session
    answered_id: Any = None  # the same, once answered here
    sent: dict[str, Any] | None = None  # the result answered here
    protocol: str | None = None  # its method and protocol version (the cache key)
    cache: Path | None = None
    key: str = ""
    _stored: dict[str, Any] = field(default_factory=dict)

    @property
    def answered(self) -> bool:
        return self.answered_id is not None

    def check(self, reply: dict[str, Any]) -> None:
        """The SDK's answer to the request answered here: when it differs, say so and keep
        it, so the next session answers as the SDK does."""
        result = reply.get("result")
        if result == self.sent:
            return
        import logging

        logging.getLogger("engram.mcp").warning(
            "the early answer to %s differed from the SDK's; the next session sends the "
            "SDK's", self.protocol)
        self.remember(reply)

    def remember(self, reply: dict[str, Any]) -> None:
        """Keep the SDK's answer to this initialize for the next session."""
        result = reply.get("result")
        if self.cache is None or self.protocol is None or not isinstance(result, dict):
            return
        stored = self._stored if self._stored.get("versions") == self.key else {
            "versions": self.key, "results": {}}
        stored["results"][self.protocol] = result
        try:
            private_dir(self.cache.parent)
            write_private(self.cache, json.dumps(stored))
        except OSError:
            pass  # a read-only home only costs the next session its head start


def _opening(message: dict[str, Any]) -> str | None:
    """The cache key of a client's opening request, or None for any other message:
    `initialize` (the protocol today's agents speak) or `server/discover` (2026-07-28)."""
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    method = message.get("method")
    if method == "initialize":
        version = params.get("protocolVersion")
    elif method == "server/discover":
        meta = params.get("_meta")
        version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(
            meta, dict) else None
    else:
        return None
    return f"{method} {version}" if isinstance(version, str) else None


def _first_line(source: BinaryIO) -> tuple[bytes, bytes]:
    """The first line from `source` (at most FIRST_LINE_BYTES), and the bytes read after
    it, read straight from its descriptor so nothing stays in a buffer the transport does
    not see."""
    try:
        fd = source.fileno()
    except (OSError, ValueError, AttributeError):
        return source.readline(FIRST_LINE_BYTES), b""
    data = bytearray()
    while True:
        end = data.find(b"\n", max(0, len(data) - _CHUNK))
        if end >= 0:
            return bytes(data[: end + 1]), bytes(data[end + 1 :])
        if len(data) >= FIRST_LINE_BYTES:
            return bytes(data[:FIRST_LINE_BYTES]), bytes(data[FIRST_LINE_BYTES:])
        try:
            chunk = os.read(fd, _CHUNK)
        except InterruptedError:  # pragma: no cover - retried by Python since 3.5
            continue
        if not chunk:
            return bytes(data), b""
        data += chunk


def start(source: BinaryIO, home: Path | None = None) -> Early:
    """Read the client's first line; answer it at once when it is an `initialize`, or a
    request whose answer the last session stored for these versions."""
    early = Early(source)
    line, early.rest = _first_line(source)
    if not line:
        return early
    early.first = line
    if len(line) >= FIRST_LINE_BYTES:
        return early  # the transport refuses it (and drains the rest)
    try:
        message = json.loads(line)
    except ValueError:
        return early
    if not isinstance(message, dict) or "id" not in message:
        return early
    protocol = _opening(message)
    if protocol is None:
        return early
    early.request_id = message["id"]
    early.protocol = protocol
    early.cache = (home or engram_home()) / "cache" / CACHE_NAME
    early.key = _versions()
    with suppress(OSError, ValueError):
        stored = json.loads(early.cache.read_text(encoding="utf-8"))
        if isinstance(stored, dict) and stored.get("versions") == early.key:
            early._stored = stored
    result = early._stored.get("results", {}).get(protocol)
    if not isinstance(result, dict):
        result = static_result(*protocol.split(" ", 1))
    if isinstance(result, dict):
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        out = sys.stdout.buffer
        out.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        out.flush()
        early.answered_id = message["id"]
        early.sent = result
    return early


@contextmanager
def private_stdin() -> Iterator[BinaryIO]:
    """The client's messages on a private descriptor; fd 0 reads /dev/null meanwhile, so a
    child process cannot consume them (what the SDK does when it owns stdin)."""
    with _private(0, "rb", sys.stdin.buffer) as wire:
        yield wire


@contextmanager
def private_stdout() -> Iterator[BinaryIO]:
    """The replies on a private descriptor; fd 1 points at stderr meanwhile, so stray
    output of a handler or a child never corrupts them (what the SDK does with stdout)."""
    sys.stdout.flush()
    with _private(1, "wb", sys.stdout.buffer) as wire:
        yield wire


@contextmanager
def _private(fd: int, mode: str, fallback: BinaryIO) -> Iterator[BinaryIO]:
    """A private duplicate of `fd` for the wire, `fd` itself pointed elsewhere (stdin at
    /dev/null, stdout at stderr) until the block ends."""
    if sys.platform == "win32":  # pragma: no cover - no fd juggling there
        yield fallback
        return
    import fcntl

    try:
        private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield fallback
        return
    diverted = False
    with suppress(OSError):
        if fd == 0:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
        else:
            os.dup2(2, fd)
        diverted = True
    try:
        # closefd=False: a worker thread may still block on it after the transport exits
        yield os.fdopen(private, mode, closefd=False)
    finally:
        if diverted:
            with suppress(OSError):
                os.dup2(private, fd)
