"""Storage backends behind one small protocol (see base.py)."""

from .base import Candidate, Filters, Store

__all__ = ["Candidate", "Filters", "Store", "serving"]


def serving() -> None:
    """This process stays up to answer many searches (the worker, `engram mcp`, `engram
    serve`): a large SQLite store's approximate lists are built on a thread while searches
    stay exact, where a short-lived process only loads lists already saved. PostgreSQL
    keeps its index in the server, so there is nothing to do for it."""
    from .sqlite.ann_index import build_in_background

    build_in_background()
