"""A deterministic hashing embedder for tests and model-free runs.

Why: tests of the store and of hybrid retrieval need vectors that behave
like embeddings (texts sharing words are close, unrelated ones are not)
without loading a model, and they need the same vectors on every machine
and every run. Python's ``hash()`` is salted per process, so features are
hashed with BLAKE2b instead.

Features: each lower-cased word (weight 1) and the character trigrams of each
word with boundary marks (each 1/sqrt(#trigrams), so every word's trigrams
weigh as much as the word itself, however long it is). Each feature adds
±weight to one of ``dim``
buckets (the sign is hashed too, so unrelated texts average to cosine ~0
instead of sharing a positive bias). Trigrams make "deploy"/"deployment" or
"test"/"tests" partly similar, as a real model would.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from engram.embedders.base import check_texts, normalise_rows

if TYPE_CHECKING:
    import numpy as np

FAKE_NAME = "fake-hash-v1"
FAKE_DIM = 128

_WORD = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=65536)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    """Bucket index and sign of a feature (cached: tests embed the same words a lot)."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, (1.0 if (value >> 63) & 1 else -1.0)


class FakeEmbedder:
    """Hashed bag of words + character trigrams; deterministic across runs and machines."""

    name: str = FAKE_NAME

    def __init__(self, dim: int = FAKE_DIM) -> None:
        if dim < 8:
            raise ValueError("dim must be >= 8")
        self.dim = dim
        if dim != FAKE_DIM:
            # A different size is a different vector space: keep names honest.
            self.name = f"{FAKE_NAME}-{dim}"

    def _vector(self, text: str, row: np.ndarray) -> None:
        words = _WORD.findall(text.lower())
        if not words:
            # Empty or punctuation-only text still gets a unit vector, as the
            # Embedder contract promises; it is one fixed direction.
            b, s = _bucket("\x00empty", self.dim)
            row[b] = s
            return
        for w in words:
            b, s = _bucket("w:" + w, self.dim)
            row[b] += s
            marked = f"<{w}>"
            grams = [marked[i : i + 3] for i in range(len(marked) - 2)]
            share = 1.0 / math.sqrt(len(grams))
            for g in grams:
                b, s = _bucket("t:" + g, self.dim)
                row[b] += s * share

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` → ``(n, dim)`` float32 unit rows."""
        import numpy as np

        items = check_texts(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float64)
        for i, text in enumerate(items):
            self._vector(text, out[i])
        rows = normalise_rows(out)
        # A text whose features cancel out exactly would be a zero row; give
        # it the empty-text direction so every row stays unit length.
        zero = np.linalg.norm(rows, axis=1) < 0.5
        if zero.any():
            b, s = _bucket("\x00empty", self.dim)
            rows[zero] = 0.0
            rows[zero, b] = s
        return rows

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query → ``(dim,)`` float32 unit vector."""
        if not isinstance(text, str):
            raise TypeError(f"embed_query() takes a str, got {type(text).__name__}")
        return self.embed([text])[0]

    def __repr__(self) -> str:
        return f"FakeEmbedder(name={self.name!r}, dim={self.dim})"
