"""Work a long-lived server does after its reply instead of before it.

A search answered over MCP or REST also writes a recall-audit row, and that write (a
transaction and an fsync) used to sit between the search and its reply. The hook worker
already runs such jobs after its reply; a server has no "after" of its own, so it hands
them to this backlog: one daemon thread runs them in order as they arrive.

What it promises: a clean exit (Ctrl-C, SIGTERM, the client closing stdio) drains every
queued job before the process ends; a crash loses only the jobs still queued, which is
what arrived in the moment before it (the thread starts each job as soon as it is free).
A job that fails is logged and never reaches the caller, whose reply has already gone.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

Job = Callable[[], None]
_STOP = object()
DRAIN_SECONDS = 10.0


class Backlog:
    def __init__(self, log: Callable[[str], None] | None = None) -> None:
        self._jobs: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._log = log
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._closed = False

    def submit(self, job: Job) -> None:
        """Queue a job; run it now, in the caller's thread, once the backlog is closed."""
        if self._closed:
            self._run(job)
            return
        self._ensure_thread()
        self._jobs.put(job)

    def close(self, timeout: float = DRAIN_SECONDS) -> None:
        """Run what is queued and stop the thread (idempotent)."""
        if self._closed:
            return
        self._closed = True
        thread = self._thread
        if thread is None:
            return
        self._jobs.put(_STOP)
        thread.join(timeout)

    def _ensure_thread(self) -> None:
        if self._thread is not None:
            return
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="engram-backlog",
                                                daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            self._run(job)  # type: ignore[arg-type]

    def _run(self, job: Job) -> None:
        try:
            job()
        except Exception as exc:  # noqa: BLE001 - the reply is gone; say it, keep serving
            if self._log is not None:
                self._log(f"after-reply job failed: {type(exc).__name__}: {exc}")
