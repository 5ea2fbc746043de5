"""Engram: long-term memory for AI coding agents.

`engram.open()` is the composition root every adapter uses. Heavy modules (numpy,
the store, the embedder) load on first use, so `import engram` stays cheap for hooks.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import …`: hooks import this package on every prompt

__version__ = "0.1.0"

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from .embedders import Embedder
    from .service import Engram

__all__ = [
    "open",
    "Engram",
    "Memory",
    "EngramError",
    "ValidationError",
    "NotFoundError",
    "StoreError",
    "StoreUnavailableError",
    "__version__",
]


def open(  # noqa: A001 - the public name is engram.open(), like sqlite3.connect
    path: str | Path | None = None,
    *,
    embedder: Embedder | str | None = None,
    clock: Any = None,
    deadline: float | None = None,
) -> Engram:
    """Open (creating if needed) a store and return the service over it.

    `path` is a SQLite file or a `postgresql://user:password@host:port/db` URL (the
    `postgres` extra); it defaults to $ENGRAM_DB, else $ENGRAM_HOME/memory.db, else
    ~/.engram/memory.db.
    `embedder` is an Embedder, a spec such as "bundled", "none", "ollama:nomic-embed-text"
    (default: $ENGRAM_EMBEDDER, else the config file, else "bundled").
    `deadline` (a time.monotonic() value) bounds every store operation of this service:
    a wait for another writer's lock or a statement still running then ends in
    StoreUnavailableError (default: none, or the one `engram.store.deadline.bounded`
    sets around this call). The store and its folder are created private to the user.
    """
    from .config import default_db_path, embedder_spec
    from .embedders import get_embedder
    from .service import Engram
    from .store.sqlite import SQLiteStore
    from .store.target import is_url

    if embedder is None or isinstance(embedder, str):
        spec = embedder or embedder_spec()
        try:
            resolved: Embedder | None = get_embedder(spec)
        except ValueError as exc:
            from .errors import ValidationError

            raise ValidationError("embedder", str(exc)) from None
    else:
        resolved = embedder
    target = path if path is not None else default_db_path()
    if is_url(target):
        from .store.postgres import PostgresStore

        store: Any = PostgresStore(str(target), deadline=deadline)
    else:
        store = SQLiteStore(target, deadline=deadline)
    kwargs: dict[str, Any] = {}
    if clock is not None:
        kwargs["clock"] = clock
    service = Engram(store, resolved, **kwargs)
    service.target = str(target)
    return service


def __getattr__(name: str) -> Any:
    if name == "Engram":
        from .service import Engram

        return Engram
    if name == "Memory":
        from .model import Memory

        return Memory
    if name in ("EngramError", "ValidationError", "NotFoundError", "StoreError",
                "StoreUnavailableError"):
        from . import errors

        return getattr(errors, name)
    raise AttributeError(name)
