"""An in-memory vector index with the metadata needed to filter before scoring.

Brute-force float32 cosine with numpy: 0.4 ms at 10K and ~8 ms at 100K on 2 cores
(DEPENDENCIES.md), exact, with no extension to load, so the store stays one plain
SQLite file. Rows carry status/project/type/time codes so that common filters become
numpy masks instead of SQL round trips. The owner keeps it in sync incrementally.
"""

from __future__ import annotations

import ctypes
import glob
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from .ann_index import GATHER_COST, AnnLists, dots, permute_rows

STATUS_CODES = {"active": 0, "superseded": 1, "archived": 2, "deleted": 3}
#: Below this many rows, a busy machine scores the index on one BLAS thread: when every
#: core is taken, waiting for OpenBLAS's helper thread costs whole scheduler ticks (10K
#: rows on 2 busy cores: 1-3 ms on one thread, 4-12 ms on two). On an idle machine the
#: helper halves the scan (10K rows: 0.45 vs 0.85 ms), so it stays on there.
SINGLE_THREAD_ROWS = 50_000


@cache
def _blas_threads() -> tuple[Callable[[int], int], int] | None:
    """(set the BLAS thread count, the process's default count) if numpy's BLAS is OpenBLAS.

    OpenBLAS's `openblas_set_num_threads_local` returns the previous count; despite its
    name it changes the count for the whole process (measured), so `_scores` always
    restores the default captured here. None (scoring uses the BLAS default) otherwise.
    """
    folder = os.path.dirname(os.path.dirname(np.__file__))
    for path in sorted(glob.glob(os.path.join(folder, "numpy.libs", "*openblas*"))):
        try:
            setter = ctypes.CDLL(path).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        setter.argtypes = [ctypes.c_int]
        setter.restype = ctypes.c_int
        default = setter(0)  # 0 changes nothing and reports the current count
        return setter, max(1, default)
    return None


_busy_checked = [0.0, False]  # (monotonic time of the last check, its answer)


def _cores_busy() -> bool:
    """More runnable threads than cores over the last minute.

    A one-minute average moves slowly, so it is read from /proc at most once a second:
    the read cost ~60 µs of a 10K search when caches were cold.
    """
    now = time.monotonic()
    if now - _busy_checked[0] >= 1.0:
        try:
            busy = os.getloadavg()[0] >= (os.cpu_count() or 1)
        except OSError:
            busy = True
        _busy_checked[:] = [now, busy]
    return bool(_busy_checked[1])


def _scores(
    vectors: np.ndarray, query: np.ndarray, *, one_thread: bool | None = None
) -> np.ndarray:
    """`vectors @ query`, single-threaded for small indexes on a busy machine.

    ``one_thread`` overrides that rule. Restores the default count afterwards, so
    concurrent callers cannot leave the process single-threaded.
    """
    if vectors.dtype == np.float16:
        return dots(vectors, query)  # NumKong: one thread
    if one_thread is None:
        one_thread = len(vectors) < SINGLE_THREAD_ROWS and _cores_busy()
    return _one_thread(np.matmul, vectors, query) if one_thread else vectors @ query


def _one_thread(call: Callable[..., Any], *args: Any) -> Any:
    """`call(*args)` on one BLAS thread: the lists' products are a few hundred rows each,
    where a second thread's hand-off costs more than it saves (and, on a busy machine,
    whole scheduler ticks). Restores the default count afterwards."""
    blas = _blas_threads()
    if blas is None:
        return call(*args)
    setter, default = blas
    setter(1)
    try:
        return call(*args)
    finally:
        setter(default)


class ReadWriteLock:
    """Many searches at once, or one reordering of the rows (`VectorIndex.adopt`)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writing = False

    def acquire_read(self) -> None:
        with self._cond:
            while self._writing:
                self._cond.wait()
            self._readers += 1

    def release_read(self) -> None:
        with self._cond:
            self._readers -= 1
            if not self._readers:
                self._cond.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self._cond:
            while self._writing or self._readers:
                self._cond.wait()
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()


#: Rowids up to this many times the rows held (and at least DIRECT_ROWIDS) are looked up in
#: an array indexed by rowid; a rare larger one (an imported store's) in a small dict.
DIRECT_SPAN = 8
DIRECT_ROWIDS = 1 << 20


class RowidPositions:
    """rowid -> position without a Python object per row.

    A dict holds a table slot and two int objects per entry; an int32 array indexed by
    rowid holds 4 bytes per rowid up to the largest. SQLite gives a new
    row the largest rowid + 1, so rowids stay about as many as the rows ever written; one
    far beyond (`DIRECT_SPAN` times the rows) goes to an overflow dict instead of
    stretching the array.
    """

    def __init__(self) -> None:
        self._direct = np.full(1024, -1, dtype=np.int32)
        self._overflow: dict[int, int] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def _room(self, top: int) -> bool:
        """Make the array cover rowids below `top` if that is within bounds (the
        overflow's rowids it then covers move into it: a rowid lives in one place)."""
        if top <= len(self._direct):
            return True
        if top > max(DIRECT_ROWIDS, DIRECT_SPAN * (self._count + 1)):
            return False
        grown = np.full(max(top, 2 * len(self._direct)), -1, dtype=np.int32)
        grown[: len(self._direct)] = self._direct
        self._direct = grown
        for rowid in [r for r in self._overflow if r < len(grown)]:
            grown[rowid] = self._overflow.pop(rowid)
        return True

    def get(self, rowid: int) -> int | None:
        if 0 <= rowid < len(self._direct):
            position = int(self._direct[rowid])
            return position if position >= 0 else None
        return self._overflow.get(rowid)

    def lookup(self, rowids: np.ndarray) -> np.ndarray:
        """Positions of `rowids` (int64), -1 where absent."""
        out = np.full(len(rowids), -1, dtype=np.int64)
        inside = (rowids >= 0) & (rowids < len(self._direct))
        out[inside] = self._direct[rowids[inside]]
        if self._overflow:
            for i in np.flatnonzero(~inside).tolist():
                out[i] = self._overflow.get(int(rowids[i]), -1)
        return out

    def put(self, rowid: int, position: int) -> None:
        if rowid >= 0 and self._room(rowid + 1):
            if self._direct[rowid] < 0:
                self._count += 1
            self._direct[rowid] = position
            return
        if rowid not in self._overflow:
            self._count += 1
        self._overflow[rowid] = position

    def pop(self, rowid: int) -> int | None:
        if 0 <= rowid < len(self._direct):
            position = int(self._direct[rowid])
            if position < 0:
                return None
            self._direct[rowid] = -1
            self._count -= 1
            return position
        position = self._overflow.pop(rowid, None)
        if position is not None:
            self._count -= 1
        return position

    def reset(self, rowids: np.ndarray, positions: np.ndarray) -> None:
        """Exactly these (rowid, position) pairs, replacing all others."""
        self._direct[:] = -1
        self._overflow = {}
        self._count = len(rowids)
        if not len(rowids):
            return
        top = int(rowids.max()) + 1
        if not self._room(top):
            self._room(max(DIRECT_ROWIDS, DIRECT_SPAN * (self._count + 1)))
        inside = (rowids >= 0) & (rowids < len(self._direct))
        self._direct[rowids[inside]] = positions[inside]
        self._overflow = dict(zip(rowids[~inside].tolist(), positions[~inside].tolist(),
                                  strict=True))

    def items(self) -> Iterator[tuple[int, int]]:
        present = np.flatnonzero(self._direct >= 0)
        yield from zip(present.tolist(), self._direct[present].tolist(), strict=True)
        yield from list(self._overflow.items())


def _encoded(memory_ids: Sequence[str | None]) -> list[bytes]:
    return [b"" if i is None else i.encode("utf-8", "surrogatepass") for i in memory_ids]


def decoded(raw: Sequence[bytes]) -> list[str]:
    """Memory ids as `VectorIndex.memory_ids` holds them (UTF-8 bytes), as text."""
    return [r.decode("utf-8", "surrogatepass") for r in raw]


@dataclass
class IndexRow:
    rowid: int
    memory_id: str
    vector: np.ndarray
    status: str
    project: str | None
    type: str
    when: float


class VectorIndex:
    """Rows live in growable arrays; a removed row is only masked, then compacted lazily."""

    def __init__(self, dim: int, capacity: int = 1024, half: bool = False) -> None:
        self.dim = dim
        #: float16 rows (a large store with NumKong: `ann_index.half_rows`), else float32.
        self.dtype = np.dtype(np.float16 if half else np.float32)
        self._positions = RowidPositions()
        self._projects: dict[str, int] = {}
        self._types: dict[str, int] = {}
        self._size = 0
        #: Set by `adopt` on large stores: narrows the scan to the nearest lists.
        self.ann: AnnLists | None = None
        #: Searches read the rows outside the owner's lock; `adopt` moves them.
        self.lock = ReadWriteLock()
        #: Times the rows were reordered: a build's positions are void after another.
        self.generation = 0
        self._alloc(max(1024, capacity))

    def _alloc(self, capacity: int) -> None:
        old = self._size
        vectors = np.zeros((capacity, self.dim), dtype=self.dtype)
        rowids = np.full(capacity, -1, dtype=np.int64)
        # Memory ids beside the rowids: a search answers without an SQL id lookup. Bytes
        # of a fixed width (widened when a longer id arrives), not a str object per row
        # (an object costs several times the id's own bytes).
        width = self.memory_ids.dtype.itemsize if old else 16
        memory_ids = np.zeros(capacity, dtype=f"S{width}")
        status = np.full(capacity, -1, dtype=np.int8)
        project = np.full(capacity, -1, dtype=np.int32)
        kind = np.full(capacity, -1, dtype=np.int16)
        when = np.zeros(capacity, dtype=np.float64)
        if old:
            vectors[:old] = self.vectors[:old]
            rowids[:old] = self.rowids[:old]
            memory_ids[:old] = self.memory_ids[:old]
            status[:old] = self.status[:old]
            project[:old] = self.project[:old]
            kind[:old] = self.kind[:old]
            when[:old] = self.when[:old]
        self.vectors, self.rowids, self.memory_ids = vectors, rowids, memory_ids
        self.status = status
        self.project, self.kind, self.when = project, kind, when

    def __len__(self) -> int:
        return len(self._positions)

    def _fit_ids(self, raw: list[bytes]) -> None:
        """Widen the id column if one of `raw` is longer than it holds."""
        longest = max(map(len, raw), default=0)
        width = self.memory_ids.dtype.itemsize
        if longest > width:
            self.memory_ids = self.memory_ids.astype(f"S{max(longest, 2 * width)}")

    def _code(self, table: dict[str, int], value: str) -> int:
        code = table.get(value)
        if code is None:
            code = table[value] = len(table)
        return code

    def project_code(self, project: str | None) -> int:
        """The code the rows of `project` carry: -1 for no project, -2 (no row) if unseen."""
        return -1 if project is None else self._projects.get(project, -2)

    def _store_project(self, project: str | None) -> int:
        return -1 if project is None else self._code(self._projects, project)

    def upsert(self, row: IndexRow) -> None:
        self.put_many([row.rowid], [row.memory_id], row.vector[None, :], [row.status],
                      [row.project], [row.type], [row.when])

    def put_many(
        self,
        rowids: list[int],
        memory_ids: list[str],
        vectors: np.ndarray,
        statuses: list[str],
        projects: list[str | None],
        kinds: list[str],
        whens: Sequence[float] | np.ndarray,
    ) -> None:
        """Add or replace rows; one numpy assignment per field (1M rows one by one: ~15 s).

        Codes are looked up once per distinct value, not once per row.
        """
        keys = np.asarray(rowids, dtype=np.int64)
        positions = self._positions.lookup(keys)
        new = np.flatnonzero(positions < 0)
        if len(new):
            # A rowid twice among the new ones takes one position (the last row wins).
            first = {}
            for i in new.tolist():
                first.setdefault(rowids[i], i)
            fresh = len(first)
            if self._size + fresh > len(self.rowids):
                self._alloc(max(1024, self._size * 2, self._size + fresh))
            for offset, (rowid, _i) in enumerate(first.items()):
                self._positions.put(rowid, self._size + offset)
            positions[new] = self._positions.lookup(keys[new])
            self._size += fresh
        raw = _encoded(memory_ids)
        self._fit_ids(raw)
        ann = self.ann
        if ann is not None:  # rows appended from `ann.built` on are scanned anyway
            ann.fresh.extend(positions[positions < ann.built].tolist())
        self.vectors[positions] = vectors
        self.rowids[positions] = rowids
        self.memory_ids[positions] = raw
        status_of = {s: STATUS_CODES.get(s, -1) for s in set(statuses)}
        project_of = {p: self._store_project(p) for p in set(projects)}
        kind_of = {k: self._code(self._types, k) for k in set(kinds)}
        self.status[positions] = [status_of[s] for s in statuses]
        self.project[positions] = [project_of[p] for p in projects]
        self.kind[positions] = [kind_of[k] for k in kinds]
        self.when[positions] = whens

    def set_fields(
        self, rowid: int, status: str, project: str | None, kind: str, when: float
    ) -> None:
        position = self._positions.get(rowid)
        if position is None:
            return
        self.status[position] = STATUS_CODES.get(status, -1)
        self.project[position] = self._store_project(project)
        self.kind[position] = self._code(self._types, kind)
        self.when[position] = when

    def remove(self, rowid: int) -> None:
        position = self._positions.pop(rowid)
        if position is not None:
            self.status[position] = -1
            self.rowids[position] = -1
            self.memory_ids[position] = b""

    @property
    def size(self) -> int:
        """Positions used so far, removed rows included."""
        return self._size

    def live_positions(self) -> np.ndarray:
        """Positions of every row held, whatever its status: the lists' input."""
        return np.flatnonzero(self.rowids[: self._size] >= 0)

    def adopt(self, lists: AnnLists) -> None:
        """Move the rows into `lists`' order, in place, and search through them.

        The lists' members come first, list by list; rows the lists do not hold (appended
        or missing from a loaded file) follow, and are scanned exactly; removed rows are
        dropped. One matrix throughout: the vectors are permuted in place (a copy of a
        1M-row matrix is 1.5 GB), the small per-row arrays copied. The owner holds its
        lock (no writes); searches wait on `self.lock` (1.8 s for 1M float32 rows).
        """
        assert lists.members is not None, "lists adopted twice"
        with self.lock.writing():
            n = self._size
            members = lists.members[lists.members < n]
            if len(members) != len(lists.members):  # cannot happen: positions only grow
                raise ValueError("lists hold positions the index does not")
            held = np.zeros(n, dtype=bool)
            held[members] = True
            live = self.rowids[:n] >= 0
            rest = np.flatnonzero(~held & live)
            dropped = np.flatnonzero(~held & ~live)
            source = np.concatenate([members, rest, dropped])
            permute_rows(self.vectors[:n], source)
            for name in ("rowids", "memory_ids", "status", "project", "kind", "when"):
                column = getattr(self, name)
                column[:n] = column[:n][source]
            size = len(members) + len(rest)
            tail = slice(size, n)
            self.vectors[tail] = 0
            self.rowids[tail] = -1
            self.memory_ids[tail] = b""
            self.status[tail] = -1
            self._size = size
            rowids = self.rowids[:size]
            kept = np.flatnonzero(rowids >= 0)
            self._positions.reset(rowids[kept], kept)
            lists.members = None
            lists.built = len(members)
            lists.fresh.clear()
            self.ann = lists
            self.generation += 1

    def position_rowids(self) -> np.ndarray:
        """The rowid at each position (-1: removed)."""
        return self.rowids[: self._size]

    def mark_fresh(self, rowids: Sequence[int]) -> None:
        """Rows the lists may file under an old vector, or not hold: scanned exactly."""
        ann = self.ann
        if ann is not None and len(rowids):
            positions = self._positions.lookup(np.asarray(rowids, dtype=np.int64))
            ann.fresh.extend(positions[(positions >= 0) & (positions < ann.built)].tolist())

    def vectors_of(self, memory_ids: Sequence[str],
                   rowids: Sequence[int] | None = None) -> dict[str, np.ndarray]:
        """Copies of the vectors the index holds for these memories.

        With `rowids` (each id's rowid, from the store's own table) a lookup per id;
        without, one pass over every row's id (no id -> position map is kept: a dict of
        every id was a large share of a big store's memory).
        """
        n = self._size
        if rowids is not None:
            positions = self._positions.lookup(np.asarray(rowids, dtype=np.int64))
        else:
            wanted = np.asarray(_encoded(memory_ids), dtype=self.memory_ids.dtype) \
                if memory_ids else np.empty(0, dtype=self.memory_ids.dtype)
            hit = np.flatnonzero(np.isin(self.memory_ids[:n], wanted) & (self.rowids[:n] >= 0))
            where = dict(zip(decoded(self.memory_ids[hit].tolist()), hit.tolist(), strict=True))
            positions = np.array([where.get(i, -1) for i in memory_ids], dtype=np.int64)
        found = {}
        for memory_id, position in zip(memory_ids, positions.tolist(), strict=True):
            if 0 <= position < n and self.memory_ids[position] == memory_id.encode(
                    "utf-8", "surrogatepass"):
                found[memory_id] = self.vectors[position].astype(np.float32)
        return found

    def nearest_in_projects(
        self, queries: np.ndarray, projects: Sequence[str | None], min_score: float, limit: int
    ) -> list[list[tuple[str, float]]]:
        """For each query, (memory id, cosine) of active rows of exactly its project
        scoring ≥ min_score, best first, at most `limit`.

        One matrix product per project of the batch, over that project's rows: dedup at
        save time costs what the project's size costs (it was ~1 ms a memory at 100K
        memories, all scanned, whatever the project).

        Below SINGLE_THREAD_ROWS a product runs on one BLAS thread, busy machine or not:
        these products are a few columns wide, and OpenBLAS's helper thread spins for a
        while after each one. During an import at 100K that spinning cost 0.8-1.4 ms of
        CPU a memory (10.2-10.3 ms instead of 8.8-9.5): a core the agent beside Engram
        could use.
        """
        n = self._size
        active = self.status[:n] == STATUS_CODES["active"]
        codes = [self.project_code(p) for p in projects]
        hits: list[list[tuple[str, float]]] = [[] for _ in projects]
        for code in dict.fromkeys(codes):
            columns = [c for c, other in enumerate(codes) if other == code]
            rows = np.flatnonzero(active & (self.project[:n] == code))
            if not len(rows):
                continue  # includes a project the index has never seen
            batch = queries[columns].astype(np.float32).T
            # A project's own rows only: the scan grows with the project, not the store.
            # Most of the store in one project: one product, no copy of its rows.
            whole = 2 * len(rows) > n
            candidates = self.vectors[:n] if whole else self.vectors[rows]
            scores = _scores(candidates, batch, one_thread=len(candidates) < SINGLE_THREAD_ROWS)
            if whole:
                scores = scores[rows]
            for j, column in enumerate(columns):
                column_scores = scores[:, j]
                top = np.flatnonzero(column_scores >= min_score)
                top = top[np.argsort(-column_scores[top], kind="stable")][:limit]
                hits[column] = list(zip(
                    decoded(self.memory_ids[rows[top]].tolist()), column_scores[top].tolist(),
                    strict=True,
                ))
        return hits

    def mask(
        self,
        statuses: tuple[str, ...],
        project: str | None,
        include_global: bool,
        types: tuple[str, ...],
        since: float | None,
        until: float | None,
    ) -> np.ndarray:
        n = self._size
        codes = [STATUS_CODES[s] for s in statuses]
        # One status (the default, active) is a plain comparison: np.isin costs ~10x more.
        mask = self.status[:n] == codes[0] if len(codes) == 1 else np.isin(self.status[:n], codes)
        if project is not None:
            in_project = self.project[:n] == self.project_code(project)
            if include_global:
                in_project |= self.project[:n] == -1
            mask &= in_project
        if types:
            codes = [self._types[t] for t in types if t in self._types]
            mask &= np.isin(self.kind[:n], codes)
        if since is not None:
            mask &= self.when[:n] >= since
        if until is not None:
            mask &= self.when[:n] < until
        return mask

    def search(
        self, query: np.ndarray, mask: np.ndarray, limit: int
    ) -> list[tuple[int, str, float]]:
        """Top `limit` (rowid, memory id, cosine) among masked rows; vectors are unit length.

        Only reads the first len(mask) rows, so the owner may run it outside its lock
        while rows are appended; a row removed meanwhile is left out (or, removed while
        this runs, comes back with its old status, as if the search had finished first).
        """
        n = len(mask)
        allowed = int(np.count_nonzero(mask))
        if allowed == 0 or limit <= 0:
            return []
        ann = self.ann
        found = None if ann is None else _one_thread(ann.search, query, mask, limit, self.vectors)
        take = min(limit, allowed)
        if found is not None:  # the nearest lists' masked rows, scored exactly
            top, scores = found
        elif GATHER_COST * allowed < n:  # a selective filter: score its own rows only
            rows = np.flatnonzero(mask)
            scores = _scores(self.vectors[rows], query)
            best = np.argpartition(scores, allowed - take)[allowed - take :]
            best = best[np.argsort(-scores[best], kind="stable")]
            top, scores = rows[best], scores[best]
        else:
            scores = _scores(self.vectors[:n], query)
            if allowed < n:
                scores[~mask] = -np.inf
            top = np.argpartition(scores, n - take)[n - take :]
            top = top[np.argsort(-scores[top], kind="stable")]
            scores = scores[top]
        # Whole-array .tolist(): indexing numpy per hit cost ~2.5 µs a hit.
        hits = zip(
            self.rowids[top].tolist(), decoded(self.memory_ids[top].tolist()), scores.tolist(),
            strict=True,
        )
        return [hit for hit in hits if hit[0] >= 0 and hit[1]]
