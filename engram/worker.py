"""The warm worker: one background process per store that keeps the service open and the
embedding model loaded, so Claude Code hooks answer in a local round trip.

Hooks start it on demand (engram/hooks/client.py `spawn_worker`) and fall back to
in-process keyword search while it warms up. It listens on a Unix socket under
$ENGRAM_HOME (owner-only), serves newline-terminated JSON requests, runs one request at
a time through the same handlers a hook would run itself, and exits after an idle
period or when its store disappears. With a team server set, it serves that server
instead, over one kept connection rather than a new one (and TLS handshake) per hook.
`engram search` and `engram context` ask it too (engram/cli/warm.py), so a search
from a terminal skips the model load as well. `python -m engram.worker` runs it in the
foreground.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import socketserver
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .store.target import is_url

DEFAULT_IDLE_SECONDS = 900.0
MAX_REQUEST_BYTES = 12_000_000
WATCH_INTERVAL = 2.0


def log(message: str) -> None:
    """One line on stderr (logs/worker.log when a hook started us), redacted like
    memories: an error can quote a payload."""
    from .hooks.state import LOG_LINE_CHARS, REDACT_CHARS
    from .redaction import redact

    line = " ".join(redact(message[:REDACT_CHARS]).text.split())[:LOG_LINE_CHARS]
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}", file=sys.stderr, flush=True)


def idle_seconds(config: dict[str, Any]) -> float:
    raw = os.environ.get("ENGRAM_WORKER_IDLE")
    hooks = config.get("hooks") if isinstance(config.get("hooks"), dict) else {}
    value = raw if raw is not None else hooks.get("worker_idle", DEFAULT_IDLE_SECONDS)
    try:
        return max(1.0, float(value))
    except (TypeError, ValueError):
        return DEFAULT_IDLE_SECONDS


class _Handler(socketserver.StreamRequestHandler):
    server: WorkerServer

    def handle(self) -> None:
        self.server.touch()
        after: list[Any] = []
        try:
            line = self.rfile.readline(MAX_REQUEST_BYTES)
            if line.startswith(b"POST /hook/"):
                self._answer_launcher(line, after)
                return
            request = json.loads(line)
            response = self.server.answer(request, after)
        except Exception as exc:  # noqa: BLE001 - one bad request never kills the worker
            response = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            log(f"error: {response['error']}")
        with contextlib.suppress(OSError):  # the hook gave up waiting; the work is done
            self.wfile.write(json.dumps(response, ensure_ascii=False, default=str).encode())
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
        self.server.finish_later(after)
        self.server.touch()


    def _answer_launcher(self, request_line: bytes, after: list[Any]) -> None:
        """One hook from engram/hooks/launch.sh: the payload as an HTTP/1.1 body (curl can
        speak to a Unix socket; no shell tool speaks our line protocol), Claude Code's
        output as the body back. Any failure answers 500 with no body: the launcher then
        prints nothing and the agent's turn goes on, as the Python hook would."""
        from .hooks.runner import _parse, build_request

        status, body = "500 Internal Server Error", b""
        try:
            length = 0
            while True:
                header = self.rfile.readline(65536)
                if header in (b"\r\n", b"\n", b""):
                    break
                name, _, value = header.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if not 0 <= length <= MAX_REQUEST_BYTES:
                raise ValueError("hook payload too large")
            event = request_line.split()[1].decode("ascii")[len("/hook/"):]
            payload = _parse(self.rfile.read(length).decode("utf-8", "surrogateescape"))
            request = build_request(event, payload)
            output = None
            if request is not None:
                output = self.server.answer({"op": "hook", **request}, after).get("output")
            status = "200 OK"
            body = json.dumps(output, ensure_ascii=False).encode() if output else b""
        except Exception as exc:  # noqa: BLE001 - one bad request never kills the worker
            log(f"launcher hook error: {type(exc).__name__}: {exc}")
        with contextlib.suppress(OSError):
            self.wfile.write(f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n"
                             "Connection: close\r\n\r\n".encode() + body)
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
        self.server.finish_later(after)
        self.server.touch()


class WorkerServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: Path, service: Any, idle: float) -> None:
        self.path = path
        self.service = service
        self.idle = idle
        self.served = 0
        self.started = time.time()
        self.last_activity = time.monotonic()
        self._work = threading.Lock()  # one request at a time through the service
        if path.exists() or path.is_symlink():
            path.unlink()
        old = os.umask(0o177)
        try:
            super().__init__(str(path), _Handler)
        finally:
            os.umask(old)

    def touch(self) -> None:
        self.last_activity = time.monotonic()

    def stop_now(self) -> None:
        """Leave serve_forever at once instead of at its next poll (up to `poll_interval`
        later): set the flag shutdown() sets, then wake select() with a connection to our
        own socket (socketserver's own suggestion); the loop checks the flag first and
        exits without accepting it."""
        if not hasattr(self, "_BaseServer__shutdown_request"):
            threading.Thread(target=self.shutdown, daemon=True).start()
            return
        self._BaseServer__shutdown_request = True
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as waker:
            waker.settimeout(1.0)
            waker.connect(str(self.path))

    def finish_later(self, jobs: list[Any]) -> None:
        """Bookkeeping after the reply went out (access stats), still one at a time."""
        if not jobs:
            return
        with self._work:
            for job in jobs:
                try:
                    job()
                except Exception as exc:  # noqa: BLE001
                    log(f"after-reply job failed: {type(exc).__name__}: {exc}")

    def answer(self, request: dict[str, Any], after: list[Any]) -> dict[str, Any]:
        op = request.get("op", "hook")
        if op == "ping":
            return {"ok": True, "pid": os.getpid(), "served": self.served,
                    "db": self.service.path, "uptime": round(time.time() - self.started, 1),
                    "embedder": None if _is_remote(self.service)
                    else getattr(self.service.embedder, "name", None)}
        if op == "stop":
            after.append(self.stop_now)  # once the reply is out: then the loop ends at once
            return {"ok": True, "stopping": True}
        if op in ("search", "context"):  # `engram search` / `engram context` (cli/warm.py)
            from .cli import warm

            with self._work:
                self.service.lifecycle.defer = after.append
                try:
                    data = warm.answer(self.service, request)
                finally:
                    self.service.lifecycle.defer = None
                self.served += 1
            return {"ok": True, **data}
        if op != "hook":
            raise ValueError(f"unknown op {op!r}")
        from .hooks.handlers import handle

        with self._work:
            self.service.lifecycle.defer = after.append
            try:
                output = handle(self.service, request, after)
            finally:
                self.service.lifecycle.defer = None
            self.served += 1
        return {"ok": True, "output": output}

    def watch(self) -> None:
        """Leave when idle, or when the store this worker serves is gone."""
        while True:
            time.sleep(WATCH_INTERVAL)
            idle = time.monotonic() - self.last_activity > self.idle
            gone = (not _is_remote(self.service) and not is_url(self.service.target)
                    and not os.path.exists(self.service.path))
            if idle or gone or not self.path.exists():
                self.shutdown()
                return


def _is_remote(service: Any) -> bool:
    from .remote import RemoteEngram

    return isinstance(service, RemoteEngram)


def _warm(service: Any) -> None:
    """Pay the model load and first query now, not on the first prompt; on a team server,
    the connection's (and TLS handshake's) cost, which its later hooks then share."""
    if _is_remote(service):
        from .errors import EngramError

        with contextlib.suppress(EngramError):  # down now: the first hook finds out
            service.search("warm up", k=1)
        return
    embedder = service.embedder
    if embedder is not None:
        embedder.embed_query("warm up the model")
    service.search("warm up", k=1)


def main(argv: list[str] | None = None) -> int:
    from .config import engram_home, home_dir, load_config, open_private
    from .errors import EngramError
    from .hooks import client

    config = load_config()
    path = client.socket_path(config)
    if path.parent.parent == engram_home():
        home_dir(path.parent.name)
    lock = open_private(f"{path}.lock", "a")  # held for the process lifetime
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another worker serves this store already
    from .remote import open_configured

    try:
        service = open_configured()  # the team server when one is set: one connection
    except EngramError as exc:  # a damaged store, a full disk: hooks answer in-process
        log(f"engram worker {os.getpid()} cannot serve: {exc}")
        lock.close()
        return 1
    service.lifecycle.long_lived = True  # upkeep runs in a thread here, not a new process
    from .store import serving

    serving()  # a large store's approximate lists: built on a thread
    _warm(service)
    server = WorkerServer(path, service, idle_seconds(config))
    signal.signal(signal.SIGTERM, lambda *_: server.stop_now())
    threading.Thread(target=server.watch, daemon=True).start()
    log(f"engram worker {os.getpid()} serving {service.path} on {path}")
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        server.server_close()
        try:
            if path.exists():
                path.unlink()
        except OSError:
            pass
        service.close()
        lock.close()
    return 0


def ping(timeout: float = 1.0) -> dict[str, Any] | None:
    """The running worker's status, or None (used by `engram doctor`)."""
    from .hooks import client

    try:
        return client.call({"op": "ping"}, timeout)
    except (OSError, client.WorkerError, ValueError):
        return None


def stop(timeout: float = 2.0) -> bool:
    from .hooks import client

    try:
        return client.call({"op": "stop"}, timeout) is not None
    except (OSError, client.WorkerError, ValueError):
        return False


if __name__ == "__main__":
    from .cli import skip_the_last_collection

    skip_the_last_collection()
    sys.exit(main())
