"""The embedded default engine: one SQLite file (store.py), its keyword search
(keywords.py, with the exact ranking of large match sets in exact_rank.py and its keyword
index in keyword_index.py) and vector search (vectors.py), its schema (migrations.py), its
connection and errors, the ledger tables, and the in-memory vector index with its
approximate lists."""

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
