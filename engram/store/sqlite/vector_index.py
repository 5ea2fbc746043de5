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
        self._positions: dict[int, int] = {}
        self._by_id: dict[str, int] = {}
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
        # Memory ids beside the rowids: a search answers without an SQL id lookup.
        memory_ids = np.full(capacity, None, dtype=object)
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
        new = len({r for r in rowids if r not in self._positions})
        if self._size + new > len(self.rowids):
            self._alloc(max(1024, self._size * 2, self._size + new))
        positions = np.empty(len(rowids), dtype=np.int64)
        for i, rowid in enumerate(rowids):
            position = self._positions.get(rowid)
            if position is None:
                position = self._positions[rowid] = self._size
                self._size += 1
            positions[i] = position
        ann = self.ann
        if ann is not None:  # rows appended from `ann.built` on are scanned anyway
            ann.fresh.extend(positions[positions < ann.built].tolist())
        self.vectors[positions] = vectors
        self.rowids[positions] = rowids
        self.memory_ids[positions] = memory_ids
        self._by_id.update(zip(memory_ids, positions.tolist(), strict=True))
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
        position = self._positions.pop(rowid, None)
        if position is not None:
            self.status[position] = -1
            self.rowids[position] = -1
            self._by_id.pop(self.memory_ids[position], None)
            self.memory_ids[position] = None

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
            self.memory_ids[tail] = None
            self.status[tail] = -1
            self._size = size
            rowids = self.rowids[:size]
            kept = np.flatnonzero(rowids >= 0)
            self._positions = dict(zip(rowids[kept].tolist(), kept.tolist(), strict=True))
            self._by_id = dict(zip(self.memory_ids[kept].tolist(), kept.tolist(), strict=True))
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
        if ann is not None:
            ann.fresh.extend(
                p for r in rowids
                if (p := self._positions.get(r)) is not None and p < ann.built
            )

    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Copies of the vectors the index holds for these memories."""
        found = {}
        for memory_id in memory_ids:
            position = self._by_id.get(memory_id)
            if position is not None:
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
                    self.memory_ids[rows[top]].tolist(), column_scores[top].tolist(),
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
            self.rowids[top].tolist(), self.memory_ids[top].tolist(), scores.tolist(),
            strict=True,
        )
        return [hit for hit in hits if hit[0] >= 0 and hit[1] is not None]
