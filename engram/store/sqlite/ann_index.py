"""An approximate (HNSW, usearch) layer over the exact vector index, for large stores.

Exact numpy search grows with the store (~8 ms at 100K, ~150 ms at 1M memories), so
from `ann_min_rows()` rows (opt-in) a graph index proposes candidates that are then rescored
exactly and filtered with the same metadata mask. Candidates are never trusted as-is:

* the graph is keyed by SQLite rowid and every hit is rescored from the exact vectors,
  so a stale graph can only lower recall, never return a deleted or wrong-scored row;
* rows written after the graph was built ("fresh") are scanned exactly beside it, and
  the graph is rebuilt once they pass a fraction of it;
* a filter that keeps few rows, or a graph answer with too few survivors, falls back
  to the exact scan.

The graph is saved beside the database (`<db>.ann` + `<db>.ann.json`) with the store's
change number and row count; a file that does not match, or does not load, is rebuilt.
`usearch` is an optional extra (`engram-recall[scale]`): without it every search stays exact.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np

from ...config import tighten

#: Off unless asked for: at 100K synthetic memories the graph's recall@10 against exact
#: was 0.76-0.84 (RESULTS.md, "ann"), short of the 0.98 a default must reach.
DEFAULT_MIN_ROWS = 0
#: Candidates asked of the graph per wanted result, before the filter's selectivity.
OVERSAMPLE = 16
#: A filter keeping less than this share of rows is searched exactly: the graph would
#: need to return most of the store to find `limit` survivors.
MIN_SELECTIVITY = 0.05
#: Rebuild when rows written since the build exceed this share of the graph.
REBUILD_FRACTION = 0.10
#: HNSW beam width at search (efSearch) for the default oversampled ask.
EXPANSION_SEARCH = 256
FORMAT = 1


def ann_min_rows() -> int:
    """Rows from which the graph is used: `ENGRAM_ANN_MIN_ROWS` (unset or 0: never)."""
    raw = os.environ.get("ENGRAM_ANN_MIN_ROWS", "")
    try:
        value = int(raw) if raw else DEFAULT_MIN_ROWS
    except ValueError:
        value = DEFAULT_MIN_ROWS
    return value if value > 0 else 2**62


def usearch_index() -> Any:
    """The `usearch.index` module, always imported after onnxruntime.

    usearch 2.26 (its numkong SIMD kernels) imported *before* onnxruntime 1.32 makes the
    later onnxruntime import segfault the process (`python -c "import usearch.index;
    import onnxruntime"` exits 139; the other order is fine). The bundled embedder needs
    onnxruntime, possibly later in the same process, so onnxruntime is imported first
    here, and nothing in Engram imports usearch except through this function (never at
    module level, never at test collection).
    """
    with suppress(ImportError):  # another embedder: nothing to protect
        import onnxruntime  # noqa: F401
    import usearch.index

    return usearch.index


def usearch_available() -> bool:
    try:
        usearch_index()
    except ImportError:
        return False
    return True


class AnnGraph:
    """An HNSW graph over rowids, plus the positions written since it was built."""

    def __init__(self, graph: object, seq: int, rows: int) -> None:
        self.graph = graph
        self.seq = seq
        self.rows = rows
        #: Positions whose vector the graph may not hold. A list, only ever appended to:
        #: searches read it outside the store's lock while a save appends.
        self.fresh: list[int] = []

    @staticmethod
    def _new(dim: int) -> object:
        Index = usearch_index().Index  # noqa: N806

        # f16 halves the graph's memory; hits are rescored from the exact float32 vectors.
        return Index(ndim=dim, metric="cos", dtype="f16", connectivity=16,
                     expansion_add=128, expansion_search=96)

    @classmethod
    def build(cls, rowids: np.ndarray, vectors: np.ndarray, seq: int) -> AnnGraph:
        graph = cls._new(vectors.shape[1])
        graph.add(rowids.astype(np.uint64), vectors, log=False)
        return cls(graph, seq, len(rowids))

    @classmethod
    def load(cls, path: Path, dim: int, seq: int) -> AnnGraph | None:
        """The saved graph if it is intact and not from the store's future, else None.

        A graph older than the store is kept: the caller marks rows changed since its
        change number as fresh, and rebuilds once they are too many.
        """
        meta_path = path.with_name(path.name + ".json")
        try:
            meta = json.loads(meta_path.read_text())
            if meta.get("format") != FORMAT or meta.get("dim") != dim:
                return None
            if not 0 <= int(meta["seq"]) <= seq:
                return None  # a restored or replaced database: the graph is not its own
            graph = cls._new(dim)
            graph.load(str(path))
            if len(graph) != int(meta["rows"]) or graph.ndim != dim:
                return None
        except (OSError, ValueError, RuntimeError, TypeError, KeyError, AttributeError):
            return None  # missing or corrupt: the caller rebuilds
        return cls(graph, int(meta["seq"]), int(meta["rows"]))

    def save(self, path: Path, dim: int) -> None:
        """Write atomically: a reader sees the old pair or the new one, never half."""
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        self.graph.save(str(tmp))
        tighten(tmp)  # the graph holds the store's vectors: as private as the database
        os.replace(tmp, path)
        meta = {"format": FORMAT, "dim": dim, "seq": self.seq, "rows": self.rows}
        meta_tmp = path.with_name(path.name + f".json.tmp{os.getpid()}")
        meta_tmp.write_text(json.dumps(meta))
        os.replace(meta_tmp, path.with_name(path.name + ".json"))

    def stale(self) -> bool:
        return len(self.fresh) > REBUILD_FRACTION * max(self.rows, 1)

    def search(
        self,
        query: np.ndarray,
        mask: np.ndarray,
        limit: int,
        position_of: Callable[[int], int | None],
        vectors: np.ndarray,
    ) -> list[int] | None:
        """Positions of the best `limit` masked rows, or None: search exactly instead."""
        n = len(mask)
        allowed = int(np.count_nonzero(mask))
        selectivity = allowed / max(n, 1)
        if selectivity < MIN_SELECTIVITY:
            return None
        want = min(allowed, limit)
        k = min(n, math.ceil(limit * OVERSAMPLE / selectivity))
        # The beam must be wider than the candidates wanted, or the graph walk stops early.
        self.graph.expansion_search = max(EXPANSION_SEARCH, 2 * k)
        found = self.graph.search(query, k, log=False)
        keys = np.asarray(found.keys).tolist()
        positions = [p for key in keys if (p := position_of(int(key))) is not None]
        candidates = np.unique(np.array(positions + self.fresh[:], dtype=np.int64))
        candidates = candidates[candidates < n]
        candidates = candidates[mask[candidates]]
        if len(candidates) < want:
            return None  # the graph missed too much under this filter
        scores = vectors[candidates] @ query
        order = np.argsort(-scores, kind="stable")[:limit]
        return candidates[order].tolist()
