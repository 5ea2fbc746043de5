"""The SQLite store's vector half: the in-memory index over the stored vectors, and its
approximate lists.

Vectors live in the file as float16 blobs; searches score an in-memory float32 copy
(vector_index.py), loaded once and then brought up to date with only the rows changed
since, by any process (SQLite's data_version says when to look). A large index gets
approximate lists (ann_index.py): loaded when the saved ones are intact, else built on a
thread, inline or not at all; until then searches are exact. Filters the index cannot
apply itself are checked in SQL on the few rows it returns. `SQLiteStore` inherits these
methods (store.py holds the connection and its lock).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base import Candidate, Filters
from .rows import timestamps, when_ts, where_clause

if TYPE_CHECKING:  # numpy loads on the first vector operation, not for keyword-only hooks
    import numpy as np

    from ...model import Memory
    from .vector_index import VectorIndex

#: Rows per batch when loading vectors into the in-memory index.
SYNC_BATCH = 20_000


class VectorMethods:
    """Vector search, nearest neighbours for dedup, and keeping the index and its lists
    in step with the file."""

    path: str
    _db: Any
    _lock: threading.RLock
    _index: VectorIndex | None
    _index_seq: int
    _data_version: int
    _ann_thread: threading.Thread | None
    _searched: float

    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of some memories (float32), to tell near-duplicates apart."""
        ids = list(dict.fromkeys(memory_ids))
        with self._lock:
            index = self._sync_index()
            if index is None or not ids:
                return {}
            # The index keeps no id -> position map (a dict of every id): the ids' rowids
            # come from the table's unique index, a lookup each.
            rowid_of: dict[str, int] = {}
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                rowid_of.update(self._db.execute(
                    f"SELECT id, rowid FROM memories WHERE id IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall())
            known = [i for i in ids if i in rowid_of]
            return index.vectors_of(known, [rowid_of[i] for i in known])

    def _index_upsert(self, rowid: int, vector: np.ndarray, memory: Memory) -> None:
        import numpy as np

        from .vector_index import IndexRow

        if self._index is None:
            return
        if self._index.dim != vector.shape[0]:
            self._index = None
            return
        self._index.upsert(
            IndexRow(
                rowid,
                memory.id,
                vector.astype(np.float32),
                memory.status,
                memory.project,
                memory.type,
                when_ts(memory),
            )
        )

    def _sync_index(self) -> VectorIndex | None:
        """Load vectors once, then apply only rows changed since (by any process).

        Rows are read in batches and converted with one numpy call per batch: row by row,
        a cold load took ~1.4 s at 100K memories and ~15 s at 1M.
        """
        import numpy as np

        from .vector_index import VectorIndex

        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if self._index is not None and version == self._data_version:
            return self._index
        self._data_version = version
        index = self._index
        cold = index is None
        # A cold load reads every row: scanning the table beats walking the seq index
        # (100K: 0.42 vs 0.53 s); an update reads the few rows changed since.
        seq = "m.seq" if index is not None else "+m.seq"
        cursor = self._db.execute(
            "SELECT m.rowid, v.vec, m.status, m.project, m.type,"
            " COALESCE(m.event_at, m.created_at), m.seq, m.id"
            f" FROM memories m JOIN vectors v ON v.rowid = m.rowid WHERE {seq} > ?",
            (self._index_seq if index is not None else -1,),
        )
        while rows := cursor.fetchmany(SYNC_BATCH):
            if index is None:
                top = self._db.execute("SELECT MAX(rowid) FROM vectors").fetchone()[0] or 0
                # Room to grow: untouched rows cost no memory (zero pages), where growing
                # a full 1M-row matrix copies it (1.5 GB more, the old peak at 1M).
                from .ann_index import half_rows

                index = self._index = VectorIndex(len(rows[0][1]) // 2,
                                                  capacity=top + top // 8,
                                                  half=half_rows(top))
            usable = [r for r in rows if len(r[1]) == 2 * index.dim]
            if not usable:
                continue
            vectors = np.frombuffer(b"".join(r[1] for r in usable), dtype=np.float16)
            index.put_many(
                [r[0] for r in usable],
                [r[7] for r in usable],
                vectors.reshape(len(usable), index.dim).astype(index.dtype),
                [r[2] for r in usable],
                [r[3] for r in usable],
                [r[4] for r in usable],
                timestamps([r[5] for r in usable]),
            )
            self._index_seq = max(self._index_seq, max(r[6] for r in usable))
        cursor.close()
        if cold and index is not None:
            # The scan filled SQLite's page cache (up to CACHE_KIB) with vector pages the
            # index now holds itself: drop them, and give the scan's garbage (the last
            # batch's rows too) back.
            from ...trim import release_memory

            rows = usable = vectors = None  # noqa: F841
            self._db.execute("PRAGMA shrink_memory")
            release_memory()
        if index is not None:
            self._sync_ann(index)
        return index

    def _sync_ann(self, index: VectorIndex, mode: str | None = None) -> None:
        """Give a large index its lists: the saved ones if intact, else a build -- on a
        thread, inline or not at all, as `mode` (default: the process's) says.

        Small stores stay on the exact scan. Until lists are adopted, searches are exact.
        """
        from .ann_index import AnnLists, ann_min_rows, build_mode

        if len(index) < ann_min_rows():
            return  # lists once adopted stay: they hold every row, fresh ones scanned
        if index.ann is not None and not index.ann.stale(index.size):
            return
        path = self._ann_path()
        if index.ann is None and path is not None:
            lists = AnnLists.load(path, index.dim, self._index_seq, index.position_rowids())
            if lists is not None:
                index.adopt(lists)
                index.mark_fresh([r for (r,) in self._db.execute(
                    "SELECT rowid FROM memories WHERE seq > ?", (lists.seq,)
                )])
                if not lists.stale(index.size):
                    return
        mode = mode or build_mode()
        if mode == "inline":
            self._build_ann(index)
        elif mode == "background" and not (self._ann_thread and self._ann_thread.is_alive()):
            self._ann_thread = threading.Thread(
                target=self._build_ann_quietly, args=(index,), name="engram-ann-build",
                daemon=True)
            self._ann_thread.start()

    def _ann_path(self) -> Path | None:
        return None if self.path == ":memory:" else Path(f"{self.path}.ann")

    def _build_ann_quietly(self, index: VectorIndex) -> None:
        """`_build_ann` on a thread: a failure (the store closed meanwhile, a full disk)
        leaves the searches exact, and a later search tries again."""
        import logging

        try:
            self._build_ann(index)
        except Exception as exc:  # noqa: BLE001 -- never kill the server for an index
            logging.getLogger("engram.store").warning("approximate lists not built: %s", exc)

    def _build_ann(self, index: VectorIndex) -> None:
        """Build lists over the index's rows, then adopt and save them.

        The k-means and the filing (seconds at 100K, minutes at 1M) read the matrix
        without the store's lock, so on a thread searches and writes go on (exactly);
        rows written meanwhile are marked fresh when the lists are adopted, under the lock.
        """
        from .ann_index import AnnLists

        with self._lock:
            positions = index.live_positions()
            seq, size, generation = self._index_seq, index.size, index.generation
        lists = AnnLists.build(positions, index.vectors, seq, size)
        with self._lock:
            if self._index is not index or index.generation != generation:
                return  # cleared, re-embedded or reordered meanwhile: the positions are void
            index.adopt(lists)
            index.mark_fresh([r for (r,) in self._db.execute(
                "SELECT rowid FROM memories WHERE seq > ?", (seq,)
            )])
            rowids = index.position_rowids()[: lists.built].copy()
        path = self._ann_path()
        if path is not None:
            with suppress(OSError):  # a read-only folder: the lists live in memory only
                lists.save(path, rowids)

    def build_vector_lists(self, written: int | None = None) -> bool:
        """Build (or load) the approximate lists now if the store is large enough and has
        none usable: `engram reindex` and bulk imports call this. `written`: rows the
        caller just wrote; fewer than the lists' rebuild share of the store (a small
        import) leave the build to a long-running process. True: lists in use."""
        from .ann_index import REBUILD_FRACTION

        with self._lock:
            index = self._sync_index()
            if index is None:
                return False
            if written is None or written >= REBUILD_FRACTION * len(index):
                self._sync_ann(index, "inline")
            return index.ann is not None

    def vector_search(self, query: np.ndarray, filters: Filters, limit: int) -> list[Candidate]:
        import numpy as np

        self._searched = time.monotonic()  # a keyword index build waits (exact_rank.py)

        with self._lock:
            index = self._sync_index()
            if index is None or index.dim != query.shape[0]:
                return []
            mask = index.mask(
                filters.statuses,
                filters.project,
                filters.include_global,
                filters.types,
                filters.since.timestamp() if filters.since else None,
                filters.until.timestamp() if filters.until else None,
            )
            needs_sql = bool(
                filters.tags
                or filters.files
                or filters.provenances
                or filters.pinned is not None
                or filters.ids is not None
                or filters.viewer is not None
            )
            index.lock.acquire_read()  # the mask's positions stay the rows' until it ends
        # Scored outside the lock (numpy releases the GIL): a keyword search on another
        # thread, e.g. the same hybrid search's keyword pool, runs meanwhile.
        try:
            hits = index.search(query.astype(np.float32), mask,
                                limit * 4 if needs_sql else limit)
        finally:
            index.lock.release_read()
        if not needs_sql:  # the mask applied every filter: no SQL round trip
            return [Candidate(memory_id, score) for _rowid, memory_id, score in hits]
        if not hits:
            return []
        rowids = [h[0] for h in hits]
        # The unary + keeps SQLite on the rowid lookup instead of scanning the
        # status index (28 ms → 0.1 ms at 100K memories).
        where, params = where_clause(filters, status_index=False)
        with self._lock:
            kept = {r for (r,) in self._db.execute(
                f"SELECT m.rowid FROM memories m WHERE m.rowid IN"
                f" ({','.join('?' * len(rowids))}) AND {where}",
                (*rowids, *params),
            )}
        return [Candidate(memory_id, s) for r, memory_id, s in hits if r in kept][:limit]

    def nearest_in_project(
        self, queries: np.ndarray, projects: Sequence[str | None], min_score: float, limit: int
    ) -> list[list[Candidate]]:
        """For each query, active memories of exactly its project scoring ≥ min_score."""
        with self._lock:
            index = self._sync_index()
            if index is None or index.dim != queries.shape[1] or not len(queries):
                return [[] for _ in projects]
            found = index.nearest_in_projects(queries, projects, min_score, limit)
        return [[Candidate(memory_id, score) for memory_id, score in hits] for hits in found]

    def clear_vectors(self) -> None:
        with self._lock, self.transaction():
            self._db.execute("DELETE FROM vectors")
            self._index = None
            self._index_seq = 0
