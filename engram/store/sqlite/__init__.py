"""The embedded default engine: one SQLite file (store.py), its keyword search
(keywords.py) and vector search (vectors.py), its schema (migrations.py), its connection
and errors, the ledger tables, and the in-memory vector index with its approximate lists."""

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
