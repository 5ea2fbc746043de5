"""The embedded default engine: one SQLite file (store.py), its schema (migrations.py),
its connection and errors, the ledger tables, and the in-memory vector index."""

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
