"""How alike two memories are: stored vectors when both have one, shared words otherwise.

Sweeps read the vectors as stored, so they need no embedder; a keyword-only store still
gets consolidation through hashed word vectors (duplicates there are exact text matches).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

from ..model import Memory
from ..text import normalize_for_dedup

WORD_DIMS = 1024
_WORD = re.compile(r"\w+")


def word_vectors(memories: Sequence[Memory]) -> np.ndarray:
    """Hashed bag-of-words vectors (unit rows): a model-free stand-in for embeddings."""
    rows = np.zeros((len(memories), WORD_DIMS), dtype=np.float32)
    for i, memory in enumerate(memories):
        for word in _WORD.findall(normalize_for_dedup(memory.content)):
            rows[i, zlib.crc32(word.encode()) % WORD_DIMS] += 1.0
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norms, 1e-12)


def matrix(memories: Sequence[Memory], vectors: dict[str, np.ndarray]) -> np.ndarray:
    """Pairwise similarity (n × n): cosine of stored vectors where both have one, else
    cosine of shared words."""
    n = len(memories)
    with_vec = [i for i, m in enumerate(memories) if m.id in vectors]
    if len({vectors[memories[i].id].shape[0] for i in with_vec}) > 1:
        with_vec = []  # vectors of two models never compare
    if len(with_vec) < n:
        words = word_vectors(memories)
        sims = words @ words.T
    else:
        sims = np.zeros((n, n), dtype=np.float32)
    if with_vec:
        block = np.stack([vectors[memories[i].id] for i in with_vec])
        block = block / np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-12)
        sims[np.ix_(with_vec, with_vec)] = block @ block.T
    np.fill_diagonal(sims, 1.0)
    return sims


def similar_pairs(
    memories: Sequence[Memory], vectors: dict[str, np.ndarray], threshold: float, chunk: int = 1024
) -> list[tuple[int, int, float]]:
    """Index pairs (i < j) at least `threshold` alike, in bounded memory for large groups."""
    if len(memories) <= chunk:
        sims = matrix(memories, vectors)
        ii, jj = np.nonzero(np.triu(sims, k=1) >= threshold)
        return [(int(i), int(j), float(sims[i, j])) for i, j in zip(ii, jj, strict=True)]
    pairs: list[tuple[int, int, float]] = []
    with_vec = [i for i, m in enumerate(memories) if m.id in vectors]
    if with_vec:
        block = np.stack([vectors[memories[i].id] for i in with_vec])
        block = block / np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-12)
        for start in range(0, len(with_vec), chunk):
            part = block[start : start + chunk] @ block.T
            for a, b in zip(*np.nonzero(part >= threshold), strict=True):
                i, j = with_vec[start + int(a)], with_vec[int(b)]
                if i < j:
                    pairs.append((i, j, float(part[a, b])))
    return pairs
