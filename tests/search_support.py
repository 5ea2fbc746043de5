"""What the search tests share: which thread each keyword pool of a search runs on."""

from __future__ import annotations

import threading

import pytest

from engram import retrieval


def keyword_pool_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of the thread each keyword pool is computed on, in order (filled as
    searches run)."""
    names: list[str] = []
    original = retrieval._keyword_pool

    def recorded(*args, **kwargs):
        names.append(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(retrieval, "_keyword_pool", recorded)
    return names
