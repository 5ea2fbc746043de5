"""The engine for teams and scale: PostgreSQL with pgvector (store.py), its keyword search
(keywords.py) and vector search (vectors.py), its schema, SQL building and ledger tables.
Needs the `engram-recall[postgres]` extra."""

from .store import PostgresStore, redacted_url

__all__ = ["PostgresStore", "redacted_url"]
