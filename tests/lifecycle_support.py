"""Shared helpers for the lifecycle tests: an embedder whose similarities we can predict.

Bag-of-words vectors: two texts are as alike as the words they share, so a test can
write "related" (≥0.8) and "duplicate" (≥0.95) memories on purpose, independently of
any real model.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import engram


class WordEmbedder:
    name = "test-words-v1"
    dim = 2048

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
            vector[int.from_bytes(digest, "little") % self.dim] += 1.0
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


def open_service(path: Path, clock) -> engram.Engram:
    service = engram.open(path, embedder=WordEmbedder(), clock=clock)
    service.lifecycle.upkeep_mode = "off"
    return service


def db_fingerprint(path: Path) -> str:
    """A hash of the store's content: WAL folded into the file first, then every table."""
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        digest = hashlib.sha256()
        for (table,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%'"
            " ORDER BY name"
        ):
            for row in db.execute(f"SELECT * FROM \"{table}\" ORDER BY 1"):
                digest.update(repr(row).encode())
        return digest.hexdigest()
    finally:
        db.close()


def file_hash(path: Path) -> str:
    """The store file's bytes after folding the WAL in (the service must be idle)."""
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()
