"""The one worker thread a store lends a hybrid search for its keyword half (both engines'
`side_runner`): started on first use, started again in a forked child (the parent's thread
does not exist there), and stopped by the store's `close`."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor


class SideThread:
    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0  # the process that started it
        self._ident: int | None = None  # the thread's id, once it runs

    def runner(self, forked: Callable[[], None] | None = None) -> ThreadPoolExecutor:
        """The thread (the caller holds its store's lock); `forked` runs before a new one
        starts in another process than the last, to drop what the parent's thread held."""
        from concurrent.futures import ThreadPoolExecutor

        if self._pool is None or self._pid != os.getpid():  # none yet, or forked
            if self._pool is not None and forked is not None:
                forked()
            self._ident = None  # until the new thread starts
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="engram-keyword",
                                            initializer=self._mark)
            self._pid = os.getpid()
        return self._pool

    def _mark(self) -> None:
        self._ident = threading.get_ident()

    def is_current(self) -> bool:
        """Whether the calling thread is this one."""
        return self._ident is not None and threading.get_ident() == self._ident

    def owned(self) -> bool:
        """Whether this process started it (a forked child's copy is only dropped)."""
        return self._pid == os.getpid()

    def stop(self) -> None:
        """Wait for its work and end it (outside the store's lock: that work may be
        waiting for the lock)."""
        pool, self._pool = self._pool, None
        if pool is not None and self.owned():
            pool.shutdown(wait=True)
