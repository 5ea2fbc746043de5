"""Talking to the warm worker over a Unix socket (stdlib only: this runs in every hook).

The worker (engram/worker.py) keeps the store open and the embedding model loaded, so a
hook pays one local round trip instead of imports, a model load and a store open. One
worker serves one store with one embedder and one Engram version: all three are in the
socket's name, so a hook never talks to a worker that would answer for something else.
"""

from __future__ import annotations

import json
import os
import sys
import time
import zlib

try:  # the C module: socket.py drags in selectors and enum wrappers (ms per hook call)
    import _socket as socket
except ImportError:  # pragma: no cover - non-CPython
    import socket  # type: ignore[no-redef]
from pathlib import Path

from ..config import (
    default_db_path,
    engram_home,
    home_dir,
    load_config,
    team_server,
    tighten,
)

TYPE_CHECKING = False  # not `from typing import …`: typing costs ms on every hook call
if TYPE_CHECKING:
    from typing import Any

PROTOCOL = 1
MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux, 104 on macOS
SPAWN_BACKOFF_SECONDS = 20.0
MAX_RESPONSE_BYTES = 8_000_000


class WorkerError(RuntimeError):
    """The worker answered, but with an error (already logged on its side)."""


def worker_enabled(config: dict[str, Any] | None = None) -> bool:
    if not hasattr(socket, "AF_UNIX") or not hasattr(os, "posix_spawn"):
        return False  # Windows: hooks answer in-process
    value = os.environ.get("ENGRAM_HOOK_WORKER", "").strip().lower()
    if value:
        return value not in ("0", "off", "false", "no")
    hooks = (config if config is not None else load_config()).get("hooks")
    return not (isinstance(hooks, dict) and hooks.get("worker") is False)


def embedder_spec(config: dict[str, Any] | None = None) -> str:
    spec = os.environ.get("ENGRAM_EMBEDDER", "").strip()
    if not spec:
        configured = (config if config is not None else load_config()).get("embedder")
        spec = configured if isinstance(configured, str) else ""
    return spec or "bundled"


def store_target(db: str | None) -> str:
    """A store named on a command line (`engram --db PATH`) as ENGRAM_DB would name it to
    a worker: a PostgreSQL URL as written, a file as an absolute path."""
    from ..store.target import is_url

    if is_url(db):
        return db
    return os.path.abspath(os.path.expanduser(db))


def worker_key(config: dict[str, Any] | None = None, db: str | None = None) -> str:
    """`db`: the store a command names (`--db`), which wins over a team server as
    ENGRAM_DB does; None: the store this machine's clients use."""
    from .. import __version__

    url, token = (None, None) if db else team_server(config)
    if url:  # one worker per server and token: a rotated token starts a new one
        db = f"{url}\0{token or ''}"
    elif db:
        db = store_target(db)
    else:
        target = default_db_path()
        db = target if isinstance(target, str) else os.path.abspath(target)
    raw = f"{db}\0{embedder_spec(config)}\0{__version__}\0{PROTOCOL}".encode()
    # Two CRCs, not hashlib: loading OpenSSL costs more than this whole function.
    return f"{zlib.crc32(raw):08x}{zlib.crc32(raw[::-1]):08x}"


def socket_path(config: dict[str, Any] | None = None, db: str | None = None) -> Path:
    """$ENGRAM_HOME/run/worker-<key>.sock, or a private temp path when that is too long."""
    key = worker_key(config, db)
    path = engram_home() / "run" / f"worker-{key}.sock"
    if len(str(path)) > MAX_SOCKET_PATH:
        import tempfile

        path = Path(tempfile.gettempdir()) / f"engram-{os.getuid()}-{key}.sock"
    return path


def call(request: dict[str, Any], timeout: float, path: Path | None = None,
         connect_timeout: float | None = None) -> Any:
    """Send one request; None when no worker is listening (the caller falls back).

    `connect_timeout` (default: `timeout`) bounds the connect alone; `timeout` then bounds
    each wait for the answer.
    """
    path = path or socket_path()
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(max(0.05, timeout if connect_timeout is None else connect_timeout))
    try:
        try:
            sock.connect(str(path))
        except OSError:
            return None  # stale socket file: the worker is gone
        if connect_timeout is not None:
            sock.settimeout(max(0.05, timeout))
        sock.sendall(json.dumps({"v": PROTOCOL, **request}).encode() + b"\n")
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        size = 0
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise WorkerError("response too large")
    finally:
        sock.close()
    if not chunks:
        return None  # the worker closed without answering (shutting down)
    response = json.loads(b"".join(chunks))
    if not isinstance(response, dict) or not response.get("ok"):
        raise WorkerError(str(response.get("error") if isinstance(response, dict) else response))
    return response


def spawn_worker(config: dict[str, Any] | None = None, db: str | None = None) -> bool:
    """Start a worker in the background unless one was started moments ago; `db` as in
    `worker_key` (the worker then serves that store).

    The worker itself refuses to run twice (a lock), so a race costs one short-lived
    process, never two servers. posix_spawn is used instead of subprocess: importing
    subprocess alone costs more than the rest of a hook's fast path.
    """
    marker = home_dir("run") / f"spawn-{worker_key(config, db)}"
    try:
        try:
            if time.time() - marker.stat().st_mtime < SPAWN_BACKOFF_SECONDS:
                return False
        except FileNotFoundError:
            pass
        marker.touch(mode=0o600)
        logs = home_dir("logs")
        tighten(logs / "worker.log")  # an older Engram made it 0644
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, str(logs / "worker.log"),
             os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        os.posix_spawn(
            sys.executable, [sys.executable, "-m", "engram.worker"],
            {**os.environ, "ENGRAM_DB": store_target(db)} if db else dict(os.environ),
            file_actions=actions, setsid=True,
        )
        return True
    except OSError:
        return False
