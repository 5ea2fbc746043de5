"""An approximate (IVF, numpy) layer over the exact vector index, for large stores.

Exact numpy search grows with the store (~8 ms at 100K, ~250 ms at 1M memories on this
machine), so from `ann_min_rows()` rows an inverted-file index narrows the scan: the
vectors are clustered by spherical k-means (centroids trained on a fixed-seed sample),
a query scores the centroids, and only the rows of the nearest lists are scored --
exactly, in float32, under the same metadata mask. The lists keep their rows' vectors in
list order (`packed`), so a probed list is one contiguous product; that copy costs as
much memory as the index's own matrix (150 MB at 100K, 1.5 GB at 1M). So:

* every hit is scored exactly, never estimated: an approximate answer can only miss a
  row, never return a deleted, filtered-out or wrong-scored one;
* probing every list is the exact scan (the tests rely on it);
* rows written after the lists were built ("fresh": appended, or rewritten in place)
  are scanned exactly beside them, and the lists are rebuilt once those pass a fraction
  of the store;
* a selective filter probes proportionally more lists, and falls back to the exact scan
  when that would cover most of the store anyway.

Why IVF and not a graph: the first attempt (usearch HNSW, f16, M=16) measured recall@10
0.76-0.84 at 100K synthetic memories (clusters of ~50 jittered near-ties per record) and
plateaued at ~0.87 however wide the beam: the graph did not connect the clusters. M=32
in f32 reached 0.999, but built 100K rows in 423 s on this machine (the lists: ~12 s), and
usearch imported before onnxruntime crashes the process. The lists reach the same
recall, need no dependency and are deterministic for a seed (RESULTS.md, "ann").

The lists are saved beside the database (`<db>.ann` + `<db>.ann.json`) as rowids with
the store's change number; a file that does not match, or does not load, is rebuilt.
"""

from __future__ import annotations

import io
import json
import math
import os
from pathlib import Path

import numpy as np

from ...config import tighten

#: Rows from which searches go through the lists, unless ENGRAM_ANN_MIN_ROWS says otherwise.
#: 0: off. Recall and speed meet the target at 100K, but the packed copy doubles the
#: vectors' memory (against the 1.5 GB budget at 1M) and the first search of a big store
#: builds the lists (~12 s at 100K): on by default once the index's own matrix is kept in
#: list order instead (RESULTS.md, "ann").
DEFAULT_MIN_ROWS = 0
#: Lists per sqrt(rows): 1,265 lists at 100K rows, 4,000 at 1M. On 40K distinct embedded
#: records, 4 per sqrt reached recall@10 0.98 at 20% probed where 2 per sqrt reached 0.97.
LISTS_PER_SQRT_ROWS = 4
#: Share of the lists probed for an unfiltered query. Measured recall@10 against exact:
#: 100K synthetic (jittered clusters) 0.968 at 5%, 0.998 at 10%; 40K distinct embedded
#: records 0.954 at 10%, 0.981 at 20% (RESULTS.md, "ann").
PROBE_FRACTION = 0.20
#: A filter keeping this share of rows probes 1/share times as many lists; once that is
#: more than this share of all lists, the exact scan is cheaper.
MAX_PROBED = 0.5
#: Rebuild when rows written since the build exceed this share of the lists' rows.
REBUILD_FRACTION = 0.10
#: k-means: sample rows per list, iterations, seed (deterministic builds).
SAMPLE_PER_LIST = 16
MIN_SAMPLE = 20_000
ITERATIONS = 12
SEED = 0
FORMAT = 2


def ann_min_rows() -> int:
    """Rows from which the lists are used: `ENGRAM_ANN_MIN_ROWS` (0: never)."""
    raw = os.environ.get("ENGRAM_ANN_MIN_ROWS", "")
    try:
        value = int(raw) if raw else DEFAULT_MIN_ROWS
    except ValueError:
        value = DEFAULT_MIN_ROWS
    return value if value > 0 else 2**62


def _nearest(vectors: np.ndarray, centroids: np.ndarray, chunk: int = 8192) -> np.ndarray:
    """The best-scoring centroid of each row, in chunks (1M x 2,000 scores is 8 GB)."""
    out = np.empty(len(vectors), dtype=np.int32)
    for start in range(0, len(vectors), chunk):
        out[start : start + chunk] = np.argmax(vectors[start : start + chunk] @ centroids.T, 1)
    return out


def train(vectors: np.ndarray, lists: int, seed: int = SEED) -> np.ndarray:
    """Unit centroids by spherical k-means on a fixed-seed sample of `vectors`."""
    rng = np.random.default_rng(seed)
    size = min(len(vectors), max(MIN_SAMPLE, SAMPLE_PER_LIST * lists))
    sample = vectors[np.sort(rng.choice(len(vectors), size, replace=False))]
    centroids = sample[rng.choice(size, lists, replace=False)].copy()
    for _ in range(ITERATIONS):
        assign = _nearest(sample, centroids)
        order = np.argsort(assign, kind="stable")
        starts = np.searchsorted(assign[order], np.arange(lists))
        empty = np.bincount(assign, minlength=lists) == 0
        # Per-list sums in one pass over the sorted sample (np.add.at: ~10x slower); an
        # empty list shares its start with the next list, so only non-empty ones reduce.
        sums = np.empty_like(centroids)
        sums[~empty] = np.add.reduceat(sample[order], starts[~empty], axis=0)
        # An empty list restarts at a random sample row rather than staying dead.
        sums[empty] = sample[rng.choice(size, int(empty.sum()), replace=False)]
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = sums / np.maximum(norms, 1e-12)
    return centroids.astype(np.float32)


class AnnLists:
    """Inverted lists over index positions, plus the positions written since the build.

    `members[starts[i]:starts[i + 1]]` are the positions of list i; positions from
    `built` on were appended after the build and are always scanned.
    """

    def __init__(self, centroids: np.ndarray, members: np.ndarray, starts: np.ndarray,
                 seq: int, built: int) -> None:
        self.centroids = centroids
        self.members = members
        self.starts = starts
        self.seq = seq
        self.built = built
        #: Positions below `built` whose vector the lists may file wrongly (rewritten
        #: in place, or missing from a loaded file). Only ever appended to: searches read
        #: it outside the store's lock while a save appends.
        self.fresh: list[int] = []
        #: The members' vectors in list order (`pack`), so a probed list is one contiguous
        #: slice: gathering the same rows out of the index's matrix cost 3x the scoring.
        self.packed: np.ndarray | None = None

    @property
    def lists(self) -> int:
        return len(self.centroids)

    @staticmethod
    def lists_for(rows: int) -> int:
        return max(1, min(rows, round(LISTS_PER_SQRT_ROWS * math.sqrt(rows))))

    @classmethod
    def build(cls, positions: np.ndarray, vectors: np.ndarray, seq: int, built: int,
              lists: int | None = None) -> AnnLists:
        """Lists over `positions` (whose rows are `vectors`); `built`: the index's size."""
        centroids = train(vectors, lists or cls.lists_for(len(vectors)))
        return cls._filed(centroids, positions, _nearest(vectors, centroids), seq, built)

    @classmethod
    def _filed(cls, centroids: np.ndarray, positions: np.ndarray, assign: np.ndarray,
               seq: int, built: int) -> AnnLists:
        order = np.argsort(assign, kind="stable")
        starts = np.searchsorted(assign[order], np.arange(len(centroids) + 1))
        return cls(centroids, positions[order].astype(np.int64), starts.astype(np.int64),
                   seq, built)

    def pack(self, matrix: np.ndarray) -> AnnLists:
        """Copy the members' rows of the index's `matrix` in list order; returns self."""
        self.packed = matrix[self.members]
        return self

    def changed(self, size: int) -> int:
        return size - self.built + len(self.fresh)

    def stale(self, size: int) -> bool:
        return self.changed(size) > REBUILD_FRACTION * max(len(self.members), 1)

    # --- files --------------------------------------------------------------------------

    def save(self, path: Path, rowids: np.ndarray) -> None:
        """Write atomically, keyed by rowid (positions are this process's own)."""
        buffer = io.BytesIO()
        np.savez(buffer, centroids=self.centroids, rowids=rowids[self.members],
                 starts=self.starts)
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        tmp.write_bytes(buffer.getvalue())
        tighten(tmp)  # the centroids are averages of the store's vectors: keep them private
        os.replace(tmp, path)
        meta = {"format": FORMAT, "dim": int(self.centroids.shape[1]), "seq": self.seq,
                "rows": len(self.members)}
        meta_tmp = path.with_name(path.name + f".json.tmp{os.getpid()}")
        meta_tmp.write_text(json.dumps(meta))
        os.replace(meta_tmp, path.with_name(path.name + ".json"))

    @classmethod
    def load(cls, path: Path, dim: int, seq: int, rowids: np.ndarray) -> AnnLists | None:
        """The saved lists mapped onto this index (`rowids` by position), or None.

        Lists older than the store are kept: the caller marks rows changed since their
        change number as fresh, and rebuilds once they are too many. Rows the file does
        not hold are marked fresh here.
        """
        try:
            meta = json.loads(path.with_name(path.name + ".json").read_text())
            if meta.get("format") != FORMAT or meta.get("dim") != dim:
                return None
            if not 0 <= int(meta["seq"]) <= seq:
                return None  # a restored or replaced database: the lists are not its own
            with np.load(io.BytesIO(path.read_bytes()), allow_pickle=False) as saved:
                centroids = saved["centroids"].astype(np.float32)
                keys = saved["rowids"].astype(np.int64)
                starts = saved["starts"].astype(np.int64)
            lists = len(centroids)
            if (centroids.shape != (lists, dim) or len(keys) != int(meta["rows"])
                    or len(starts) != lists + 1 or starts[0] != 0 or starts[-1] != len(keys)
                    or np.any(np.diff(starts) < 0)):
                return None
        except Exception:  # noqa: BLE001 -- any unreadable file (zip, npy, json) is rebuilt
            return None
        size = len(rowids)
        live = np.flatnonzero(rowids >= 0)
        top = int(rowids.max(initial=-1)) + 1
        position_of = np.full(top, -1, dtype=np.int64)
        position_of[rowids[live]] = live
        known = (keys >= 0) & (keys < top)
        members = np.full(len(keys), -1, dtype=np.int64)
        members[known] = position_of[keys[known]]
        assign = np.repeat(np.arange(lists), np.diff(starts))
        kept = members >= 0  # rows deleted since the save are left out
        loaded = cls._filed(centroids, members[kept], assign[kept], int(meta["seq"]), size)
        covered = np.zeros(size, dtype=bool)
        covered[loaded.members] = True
        loaded.fresh.extend(np.flatnonzero(~covered & (rowids >= 0)).tolist())
        return loaded

    # --- search -------------------------------------------------------------------------

    def probes(self, selectivity: float) -> int:
        """Lists probed for a filter keeping `selectivity` of the rows."""
        wanted = math.ceil(PROBE_FRACTION * self.lists / max(selectivity, 1e-9))
        return min(self.lists, max(1, wanted))

    def search(self, query: np.ndarray, mask: np.ndarray, limit: int, matrix: np.ndarray,
               probes: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """(positions, exact scores) of the best `limit` masked rows of the nearest lists
        and the fresh rows, best first; None: scan exactly instead.

        Lists are scored from `packed`; rows written since (fresh, appended) from
        `matrix`, the index's own vectors, so a rewritten row never keeps its old score.
        """
        packed = self.packed
        if packed is None:
            return None
        n = len(mask)
        if probes is None:
            probes = self.probes(int(np.count_nonzero(mask)) / max(n, 1))
            if probes > MAX_PROBED * self.lists:
                return None
        probes = min(probes, self.lists)
        if probes >= self.lists:
            nearest = np.arange(self.lists)
        else:
            nearest = np.sort(np.argpartition(-(self.centroids @ query), probes - 1)[:probes])
        starts, ends = self.starts[nearest], self.starts[nearest + 1]
        # One product per run of adjacent lists: contiguous rows, no gather.
        breaks = np.flatnonzero(starts[1:] != ends[:-1]) + 1
        runs = zip(starts[np.r_[0, breaks]].tolist(), ends[np.r_[breaks - 1, -1]].tolist(),
                   strict=True)
        spans = [(a, b) for a, b in runs if b > a]
        positions = np.concatenate([self.members[a:b] for a, b in spans] or [np.empty(0, int)])
        scores = np.concatenate([packed[a:b] @ query for a, b in spans]
                                or [np.empty(0, np.float32)])
        fresh = np.asarray(self.fresh[:], dtype=np.int64)
        keep = positions < n
        if len(fresh):
            keep &= ~np.isin(positions, fresh)  # their packed copy may be old
        keep[keep] = mask[positions[keep]]
        positions, scores = positions[keep], scores[keep]
        extra = np.concatenate([fresh, np.arange(min(self.built, n), n, dtype=np.int64)])
        extra = np.unique(extra[extra < n])
        extra = extra[mask[extra]]
        if len(extra):
            positions = np.concatenate([positions, extra])
            scores = np.concatenate([scores, matrix[extra] @ query])
        take = min(limit, len(scores))
        if not take:
            return positions[:0], scores[:0]
        best = np.argpartition(scores, len(scores) - take)[len(scores) - take :]
        best = best[np.argsort(-scores[best], kind="stable")]
        return positions[best], scores[best]
