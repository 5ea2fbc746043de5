"""Work a long-lived server does after its reply instead of before it, in batches.

A search answered over MCP or REST also writes a recall-audit row, and that write (a
transaction and an fsync) used to sit between the search and its reply. The hook worker
already runs such jobs after its reply; a server has no "after" of its own, so it hands
them to this backlog: one daemon thread runs them in order, in batches. A batch is what
arrived within `delay` (1 s) of its first job, run inside one `batch()` context (the
store's transaction: one commit and one fsync per second, not one per search), so it
never competes with the searches it follows for more than one short write a second.

What it promises:
- a clean exit (the client closing stdio, Ctrl-C, SIGTERM: `close()`) writes every job
  queued, at once;
- a crash (SIGKILL, power loss) loses the jobs still queued: at most those of the last
  `delay` seconds, plus a batch being written (its transaction rolls back whole);
- a job that fails is logged and never reaches the caller, whose reply has already gone;
  the rest of its batch still runs.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

Job = Callable[[], None]
_STOP = object()
DRAIN_SECONDS = 10.0
FLUSH_SECONDS = 1.0


class Backlog:
    def __init__(self, log: Callable[[str], None] | None = None,
                 batch: Callable[[], AbstractContextManager[object]] | None = None,
                 delay: float = FLUSH_SECONDS) -> None:
        self._jobs: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._log = log
        self._batch = batch
        self.delay = delay
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
        stop = False
        while not stop:
            first = self._jobs.get()
            jobs: list[Job] = []
            stop = first is _STOP
            if not stop:
                jobs.append(first)  # type: ignore[arg-type]
                deadline = time.monotonic() + self.delay
                while (left := deadline - time.monotonic()) > 0:
                    try:
                        job = self._jobs.get(timeout=left)
                    except queue.Empty:
                        break
                    if job is _STOP:
                        stop = True
                        break
                    jobs.append(job)  # type: ignore[arg-type]
            if stop:  # a job submitted while closing may sit behind the stop
                while True:
                    try:
                        job = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if job is not _STOP:
                        jobs.append(job)  # type: ignore[arg-type]
            self._run_batch(jobs)

    def _run_batch(self, jobs: list[Job]) -> None:
        if not jobs:
            return
        ran = 0
        try:
            with (self._batch() if self._batch is not None else nullcontext()):
                for job in jobs:
                    ran += 1
                    self._run(job)
        except Exception as exc:  # noqa: BLE001 - e.g. the commit failed: say so, go on
            if ran == 0:  # the batch could not begin (a busy store): one job at a time
                for job in jobs:
                    self._run(job)
            elif self._log is not None:
                self._log(f"after-reply batch of {len(jobs)} failed: "
                          f"{type(exc).__name__}: {exc}")

    def _run(self, job: Job) -> None:
        try:
            job()
        except Exception as exc:  # noqa: BLE001 - the reply is gone; say it, keep serving
            if self._log is not None:
                self._log(f"after-reply job failed: {type(exc).__name__}: {exc}")
