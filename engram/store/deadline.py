"""A deadline for every store opened in one context (a hook that must answer in time).

Both engines read it when a store opens: SQLite waits for another writer's lock only as
long as the deadline leaves, PostgreSQL sets its connect and statement timeouts from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: The deadline (time.monotonic()) given to every store opened in this context; see
#: `bounded`. Threads started later do not inherit it.
_deadline: ContextVar[float | None] = ContextVar("engram_store_deadline", default=None)


@contextmanager
def bounded(until: float) -> Iterator[None]:
    """Stores opened inside this block give up by `until` (a time.monotonic() value).

    For callers that must end on time whatever the store is doing, such as a hook
    answering in-process: without it a write waits up to the busy timeout (15 s) for a
    long writer, and a signal cannot interrupt SQLite while it waits.
    """
    token = _deadline.set(until)
    try:
        yield
    finally:
        _deadline.reset(token)


def current_deadline() -> float | None:
    return _deadline.get()
