"""An approximate (IVF, numpy) layer over the exact vector index, for large stores.

Exact numpy search grows with the store (~8 ms at 100K, ~250 ms at 1M memories on this
machine), so from `ann_min_rows()` rows an inverted-file index narrows the scan: the
vectors are clustered by spherical k-means (centroids trained on a fixed-seed sample),
a query scores the centroids, and only the rows of the nearest lists are scored --
exactly, in float32, under the same metadata mask.

One copy of the vectors: once the lists are built, the index's own matrix is permuted
in place into list order (`VectorIndex.adopt`), so list i is the contiguous run of
positions `starts[i]:starts[i + 1]` and a probed list is one slice of the matrix, no
gather and no second copy. Rows appended later sit after the lists and are scanned.

* every hit is scored exactly, never estimated: an approximate answer can only miss a
  row, never return a deleted, filtered-out or wrong-scored one;
* probing every list is the exact scan (the tests rely on it);
* rows written after the lists were built ("fresh": appended, or rewritten in place)
  are scanned exactly beside them, and the lists are rebuilt once those pass a fraction
  of the store;
* a filter keeping a share s of the rows probes 1/s times as many lists; when scoring
  only the filter's own rows costs less (a selective filter), those are scored exactly.

Building is off the search path: a long-running process (worker, MCP, REST:
`build_in_background()`) builds on a thread and scans exactly until the lists are ready;
`engram reindex` and bulk imports build eagerly (`SQLiteStore.build_vector_lists`); any
other process (a CLI command, a hook) only loads the saved lists, never builds them.

Why IVF and not a graph: the first attempt (usearch HNSW, f16, M=16) measured recall@10
0.76-0.84 at 100K synthetic memories (clusters of ~50 jittered near-ties per record) and
plateaued at ~0.87 however wide the beam: the graph did not connect the clusters. M=32
in f32 reached 0.999, but built 100K rows in 423 s on this machine (the lists: ~12 s), and
usearch imported before onnxruntime crashes the process. The lists reach the same
recall, need no dependency and are deterministic for a seed (RESULTS.md, "ann").

Float16 rows when NumKong is installed (`engram-recall[scale]`): the store keeps float16
already, so a large index holds its rows as they are stored, half the float32 matrix
(732 MB instead of 1,465 MB at 1M), and scores them with NumKong's float16 kernels
(float32 sums; the query rounded to float16, scores within ~1e-4 of float32). Numpy alone
cannot: it converts float16 at ~1 ns an element with no SIMD (63K probed rows: 59 ms to
convert against 8.7 ms to score in float32), so without NumKong the rows stay float32.

The lists are saved beside the database (`<db>.ann` + `<db>.ann.json`) as rowids with
the store's change number; a file that does not match, or does not load, is rebuilt.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ...config import tighten

#: Rows from which searches go through the lists, unless ENGRAM_ANN_MIN_ROWS says otherwise
#: (0: never). Measured index-only on 2,000 clusters of jittered unit rows, 384 dims, load
#: 1.3-1.7 (RESULTS.md, "ann"): exact / lists p50 8.0 / 1.1 ms at 25K, 8.1 / 2.1 ms at
#: 50K, 16.2 / 4.0 ms at 100K, recall@10 1.0, a build 2-5 s. Below 50K the exact scan
#: (a few ms) needs no lists file and no build; from 50K the lists save 6 ms and more.
DEFAULT_MIN_ROWS = 50_000
#: Lists per sqrt(rows): 1,265 lists at 100K rows, 4,000 at 1M. On 40K distinct embedded
#: records, 4 per sqrt reached recall@10 0.98 at 20% probed where 2 per sqrt reached 0.97.
LISTS_PER_SQRT_ROWS = 4
#: Share of the lists probed for an unfiltered query up to REFERENCE_ROWS rows. Measured
#: recall@10 against exact: 100K synthetic (jittered clusters) 0.968 at 5%, 0.998 at 10%;
#: 40K distinct embedded records 0.954 at 10%, 0.981 at 20% (RESULTS.md, "ann").
PROBE_FRACTION = 0.20
#: Beyond this many rows the probed share shrinks as sqrt(REFERENCE_ROWS / rows): the
#: lists grow as sqrt(rows), so the probed lists stay as many (253) as at 100K, and each
#: holds more rows (1M: 6.3% of the rows, ~63K scored).
REFERENCE_ROWS = 100_000
#: A filter probing more than this share of the lists takes the exact scan.
MAX_PROBED = 0.5
#: Scoring a gathered row (the filter's own rows) costs this many contiguous ones
#: (RESULTS.md, "ann": 23.6K rows gathered 15.7 ms, scored 3.3 ms).
GATHER_COST = 3.0
#: Rebuild when rows written since the build exceed this share of the lists' rows.
REBUILD_FRACTION = 0.10
#: k-means: sample rows per list, iterations, seed (deterministic builds).
SAMPLE_PER_LIST = 16
MIN_SAMPLE = 20_000
ITERATIONS = 12
SEED = 0
FORMAT = 2

#: How a store without usable lists gets them: "never" (a short-lived process: it scans
#: exactly and loads the lists a server saved), "background" (a long-running process:
#: a thread builds them, exact scans meanwhile), "inline" (the search builds them).
BUILD_MODES = ("never", "background", "inline")
_build_mode = ["never"]


def build_mode() -> str:
    return _build_mode[0]


def set_build_mode(mode: str) -> str:
    """Set how this process builds missing lists; returns the previous mode."""
    if mode not in BUILD_MODES:
        raise ValueError(f"build mode {mode!r}: one of {BUILD_MODES}")
    previous, _build_mode[0] = _build_mode[0], mode
    return previous


def build_in_background() -> None:
    """Called by long-running processes (worker, MCP, REST) before they open a store."""
    set_build_mode("background")


def ann_min_rows() -> int:
    """Rows from which the lists are used: `ENGRAM_ANN_MIN_ROWS` (0: never)."""
    raw = os.environ.get("ENGRAM_ANN_MIN_ROWS", "")
    try:
        value = int(raw) if raw else DEFAULT_MIN_ROWS
    except ValueError:
        value = DEFAULT_MIN_ROWS
    return value if value > 0 else 2**62


@cache
def _numkong() -> Any:
    """NumKong's module, or None (not installed)."""
    try:
        import numkong
    except ImportError:
        return None
    return numkong


def half_rows(rows: int) -> bool:
    """Whether an index loaded with `rows` rows keeps them in float16 (NumKong's kernels):
    from `ENGRAM_VECTORS_F16` rows (default DEFAULT_MIN_ROWS; 0: never). Smaller stores keep
    float32, numpy's BLAS being as fast there and their memory small."""
    raw = os.environ.get("ENGRAM_VECTORS_F16", "")
    try:
        least = int(raw) if raw else DEFAULT_MIN_ROWS
    except ValueError:
        least = DEFAULT_MIN_ROWS
    return 0 < least <= rows and _numkong() is not None


def dots(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """`rows @ query` in float32 (query: a vector, or one column per query), whatever the
    rows' dtype: float16 rows go through NumKong, never through numpy's float16."""
    if rows.dtype != np.float16:
        return rows @ query
    wide = query.ndim == 2
    if not len(rows):
        return np.empty((0, query.shape[1]) if wide else 0, dtype=np.float32)
    kernels = _numkong()
    if kernels is None:  # cannot happen: float16 rows are kept only with NumKong
        return rows.astype(np.float32) @ query
    packed = kernels.dots_pack(np.ascontiguousarray(query.T if wide else query[None, :],
                                                    dtype=np.float16))
    out = np.asarray(kernels.dots_packed(rows, packed))
    return out if wide else out[:, 0]


def scorer(query: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """`dots(rows, query)` for many blocks of rows (query: a vector), the query converted
    and packed for NumKong once instead of once per block: the same kernel on the same
    packed query, so the same scores. A search probing 238 lists paid ~14 us a block in
    conversions and calls (~3 ms at 1M)."""
    kernels = _numkong()
    if kernels is None or query.ndim != 1:
        return lambda rows: dots(rows, query)
    packed = kernels.dots_pack(np.ascontiguousarray(query[None, :], dtype=np.float16))

    def score(rows: np.ndarray) -> np.ndarray:
        if rows.dtype != np.float16 or not len(rows):
            return dots(rows, query)
        return np.asarray(kernels.dots_packed(rows, packed))[:, 0]

    return score


def _nearest(matrix: np.ndarray, centroids: np.ndarray, positions: np.ndarray | None = None,
             chunk: int = 8192) -> np.ndarray:
    """The best-scoring centroid of each row (of `matrix[positions]`), in chunks: 1M x
    4,000 scores is 16 GB, and gathering the rows a chunk at a time copies no matrix."""
    count = len(matrix) if positions is None else len(positions)
    out = np.empty(count, dtype=np.int32)
    for start in range(0, count, chunk):
        rows = (matrix[start : start + chunk] if positions is None
                else matrix[positions[start : start + chunk]])
        # Float16 rows widened a chunk at a time (~7 ms per chunk): numpy's BLAS uses
        # every core for the thousands of centroids, NumKong's kernel one.
        out[start : start + chunk] = np.argmax(rows.astype(np.float32, copy=False)
                                               @ centroids.T, 1)
    return out


def train(vectors: np.ndarray, lists: int, seed: int = SEED,
          positions: np.ndarray | None = None) -> np.ndarray:
    """Unit centroids by spherical k-means on a fixed-seed sample of `vectors` (of its
    rows `positions`, if given)."""
    rng = np.random.default_rng(seed)
    count = len(vectors) if positions is None else len(positions)
    size = min(count, max(MIN_SAMPLE, SAMPLE_PER_LIST * lists))
    chosen = np.sort(rng.choice(count, size, replace=False))
    sample = vectors[chosen if positions is None else positions[chosen]].astype(np.float32)
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

    Built, `members[starts[i]:starts[i + 1]]` are the positions of list i. Once the
    index adopts them (`VectorIndex.adopt`, which moves those rows into list order),
    `members` is None and list i is the positions `starts[i]:starts[i + 1]` themselves;
    positions from `built` (the lists' rows) on were appended later and always scanned.
    """

    def __init__(self, centroids: np.ndarray, members: np.ndarray | None, starts: np.ndarray,
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

    @property
    def lists(self) -> int:
        return len(self.centroids)

    @property
    def rows(self) -> int:
        return int(self.starts[-1])

    @staticmethod
    def lists_for(rows: int) -> int:
        return max(1, min(rows, round(LISTS_PER_SQRT_ROWS * math.sqrt(rows))))

    @classmethod
    def build(cls, positions: np.ndarray, matrix: np.ndarray, seq: int, built: int,
              lists: int | None = None) -> AnnLists:
        """Lists over the rows `positions` of `matrix`; `built`: the index's size.

        Reads `matrix` a sample and then a chunk at a time (no copy of it), so it may run
        on a thread while the index appends rows past `built`.
        """
        centroids = train(matrix, lists or cls.lists_for(len(positions)), positions=positions)
        return cls._filed(centroids, positions, _nearest(matrix, centroids, positions), seq,
                          built)

    @classmethod
    def _filed(cls, centroids: np.ndarray, positions: np.ndarray, assign: np.ndarray,
               seq: int, built: int) -> AnnLists:
        order = np.argsort(assign, kind="stable")
        starts = np.searchsorted(assign[order], np.arange(len(centroids) + 1))
        return cls(centroids, positions[order].astype(np.int64), starts.astype(np.int64),
                   seq, built)

    def changed(self, size: int) -> int:
        return size - self.built + len(self.fresh)

    def stale(self, size: int) -> bool:
        return self.changed(size) > REBUILD_FRACTION * max(self.rows, 1)

    # --- files --------------------------------------------------------------------------

    def save(self, path: Path, rowids: np.ndarray) -> None:
        """Write atomically, keyed by rowid (positions are this process's own).

        `rowids`: the rowid of each list row in list order (-1: removed since)."""
        buffer = io.BytesIO()
        np.savez(buffer, centroids=self.centroids, rowids=rowids, starts=self.starts)
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        tmp.write_bytes(buffer.getvalue())
        tighten(tmp)  # the centroids are averages of the store's vectors: keep them private
        os.replace(tmp, path)
        meta = {"format": FORMAT, "dim": int(self.centroids.shape[1]), "seq": self.seq,
                "rows": len(rowids)}
        meta_tmp = path.with_name(path.name + f".json.tmp{os.getpid()}")
        meta_tmp.write_text(json.dumps(meta))
        os.replace(meta_tmp, path.with_name(path.name + ".json"))

    @classmethod
    def load(cls, path: Path, dim: int, seq: int, rowids: np.ndarray) -> AnnLists | None:
        """The saved lists mapped onto this index (`rowids` by position), or None.

        Lists older than the store are kept: the caller marks rows changed since their
        change number as fresh, and rebuilds once they are too many. Rows the file does
        not hold are appended after the lists by `adopt` (scanned exactly).
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
        return cls._filed(centroids, members[kept], assign[kept], int(meta["seq"]), size)

    # --- search -------------------------------------------------------------------------

    def probes(self, selectivity: float) -> int:
        """Lists probed for a filter keeping `selectivity` of the rows."""
        share = PROBE_FRACTION * math.sqrt(min(1.0, REFERENCE_ROWS / max(self.rows, 1)))
        wanted = math.ceil(share * self.lists / max(selectivity, 1e-9))
        return min(self.lists, max(1, wanted))

    def search(self, query: np.ndarray, mask: np.ndarray, limit: int, matrix: np.ndarray,
               probes: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """(positions, exact scores) of the best `limit` masked rows of the nearest lists
        and the fresh rows, best first; None: scan exactly instead (fewer rows to score,
        or lists not adopted by `matrix`'s index yet).

        Every score is a product with `matrix`, the index's own rows in list order.
        """
        if self.members is not None:
            return None
        n = len(mask)
        built = min(self.built, n)
        if probes is None:
            allowed = int(np.count_nonzero(mask))
            probes = self.probes(allowed / max(n, 1))
            scanned = probes / self.lists * built + (n - built)
            if probes > MAX_PROBED * self.lists or GATHER_COST * allowed <= scanned:
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
        spans = [(a, min(b, built)) for a, b in runs if min(b, built) > a]
        score = scorer(query)
        parts = []
        if spans:
            lows, highs = np.array(spans, dtype=np.int64).T
            sizes = highs - lows
            # Every span's positions at once: np.arange(a, b) for each, concatenated.
            positions = np.arange(int(sizes.sum())) + np.repeat(lows - (np.cumsum(sizes)
                                                                        - sizes), sizes)
            parts.append((positions, np.concatenate([score(matrix[a:b]) for a, b in spans])))
        if built < n:  # appended since the build: one contiguous product
            parts.append((np.arange(built, n), score(matrix[built:n])))
        fresh = np.unique(np.asarray(self.fresh[:], dtype=np.int64))
        fresh = fresh[fresh < built]
        if len(fresh):  # rewritten in place: scored wherever the lists filed them
            probed = np.zeros(self.lists, dtype=bool)
            probed[nearest] = True
            fresh = fresh[~probed[np.searchsorted(self.starts, fresh, side="right") - 1]]
            if len(fresh):
                parts.append((fresh, score(matrix[fresh])))
        if not parts:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        positions = np.concatenate([p for p, _ in parts])
        scores = np.concatenate([s for _, s in parts])
        keep = mask[positions]
        positions, scores = positions[keep], scores[keep]
        take = min(limit, len(scores))
        if not take:
            return positions[:0], scores[:0]
        best = np.argpartition(scores, len(scores) - take)[len(scores) - take :]
        best = best[np.argsort(-scores[best], kind="stable")]
        return positions[best], scores[best]


def permute_rows(matrix: np.ndarray, source: np.ndarray, chunk: int = 4096) -> None:
    """`matrix[:] = matrix[source]` in place, for a permutation `source`, holding at most
    a few chunks of rows beside it (a copy of a 1M x 384 float32 matrix is 1.5 GB).

    The permutation's cycles are laid end to end; along a cycle c0 -> c1 -> ..., row c_k
    takes row c_(k+1), read before it is written (chunks go forward), and a cycle's last
    row takes its first row's old value, kept aside until then.
    """
    n = len(source)
    src = source.tolist()
    seen = bytearray(n)
    order: list[int] = []
    heads: list[int] = []  # index in `order` where each cycle of length > 1 starts
    for start in range(n):
        if seen[start] or src[start] == start:
            continue
        heads.append(len(order))
        j = start
        while not seen[j]:
            seen[j] = 1
            order.append(j)
            j = src[j]
    if not order:
        return
    seq = np.asarray(order, dtype=np.int64)
    first = np.asarray(heads, dtype=np.int64)
    last = np.r_[first[1:], len(seq)] - 1  # index in `seq` of each cycle's last row
    is_last = np.zeros(len(seq), dtype=bool)
    is_last[last] = True
    head_of_last = np.empty(len(seq), dtype=np.int64)
    head_of_last[last] = first
    kept: dict[int, np.ndarray] = {}
    for a in range(0, len(seq), chunk):
        b = min(a + chunk, len(seq))
        starting = first[(first >= a) & (first < b)]
        kept.update(zip(starting.tolist(), matrix[seq[starting]], strict=True))
        inner = np.flatnonzero(~is_last[a:b]) + a
        matrix[seq[inner]] = matrix[seq[inner + 1]]
        ending = np.flatnonzero(is_last[a:b]) + a
        if len(ending):
            matrix[seq[ending]] = np.stack([kept.pop(h) for h in head_of_last[ending].tolist()])
