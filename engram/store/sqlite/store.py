"""The embedded default store: one SQLite file with FTS5 keywords and float16 vectors.

WAL + synchronous=FULL: an acknowledged save survives a power cut, and a hook, the MCP
server and the CLI can read and write the same file at once (the busy timeout makes a
writer wait for another instead of failing). Vectors are stored as float16 blobs
(half the disk of float32, cosine error ~1e-3) and searched in memory as float32.

The file and its -wal/-shm are the user's alone (0600), and every SQLite error leaves
this package as an Engram error (connection.py).

This module holds the connection, its lock and transactions, the side thread a hybrid
search may use, meta, the memories' rows and listing, and health. The keyword half
(keywords.py), the vector half (vectors.py) and the bookkeeping (ledger.py) are methods
`SQLiteStore` inherits.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import StoreError
from ...model import Memory, to_iso
from ..base import Filters
from ..ledger import LedgerMethods
from ..side import SideThread
from .connection import BUSY_TIMEOUT_MS, _private_store_files, _rollback, _wal_mode, connect
from .keywords import KeywordMethods
from .ledger import Ledger
from .migrations import SCHEMA_VERSION, migrate
from .rows import (
    COLUMNS,
    DELETED_SEQ_KEY,
    HIGH_SEQ_SQL,
    half_bytes,
    row_to_memory,
    when_ts,
    where_clause,
)
from .vectors import VectorMethods

if TYPE_CHECKING:  # numpy loads on the first vector operation, not for keyword-only hooks
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from .keyword_index import KeywordIndex
    from .vector_index import VectorIndex

#: SQLite's page cache per connection, in KiB (SQLite's default is 2 MB). Filled only as
#: pages are read; at 100K memories the default thrashes, and loading a search's
#: candidates took 1.6 ms instead of 0.5.
CACHE_KIB = 64 * 1024
#: Vectors from which a hybrid search runs its keyword half on the store's own thread
#: while the calling thread scores the vectors (side_runner): below, handing the work
#: over costs about what the overlap saves.
PARALLEL_MIN_ROWS = 50_000
#: Matches from which a search with a keyword index ranks them itself (`_exact_ranked`):
#: below, FTS5's own ranking costs a few ms at most.
EXACT_RANK_MIN_MATCHES = 2_000


class SQLiteStore(KeywordMethods, VectorMethods, LedgerMethods):
    """Implements the Store protocol on one SQLite file."""

    def __init__(self, path: str | Path, *, deadline: float | None = None) -> None:
        """Open (creating if needed) the store at `path`.

        `deadline` (a time.monotonic() value; default: the one `connection.bounded`
        set, if any) bounds every wait for a lock and every statement of this store.
        """
        self.path = str(path)
        self.ephemeral = self.path in ("", ":memory:")
        if not self.ephemeral:
            _private_store_files(Path(self.path).expanduser())
        self._db = connect(self.path, BUSY_TIMEOUT_MS, deadline)
        try:
            mode = _wal_mode(self._db)
            if self.path != ":memory:" and mode.lower() != "wal":
                raise StoreError(f"cannot switch {self.path} to WAL mode (got {mode})")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            self.upgraded_from = migrate(self._db)
        except BaseException:
            self._db.close()
            raise
        self._lock = threading.RLock()
        self._depth = 0
        self._wrote = False  # the open transaction changed memories
        self._ledger = Ledger(self)
        self._index: VectorIndex | None = None
        self._index_seq = 0
        self._data_version = -1
        self._ann_thread: threading.Thread | None = None  # building the lists, if any
        self._side = SideThread()  # side_runner's thread
        # The side thread's own read connection for FTS5 queries, so that the caller's
        # vector half never waits behind one for the store's connection.
        self._reader: Any = None
        self._reader_lock = threading.Lock()
        self.parallel_min_rows = PARALLEL_MIN_ROWS
        # Document frequencies counted since the store's change number `_df_seq`
        self._df: dict[str, int] = {}
        self._df_seq = -1
        self._df_total = 0
        # The keyword index `_exact_ranked` ranks large match sets with (keyword_index.py),
        # FTS5's statistics it read and the phrase counts taken under them.
        self._keyword_index: KeywordIndex | None = None
        self._keyword_lock = threading.Lock()
        self._keyword_key: tuple[bytes, bytes] | None = None
        self._keyword_hits: dict[str, int] = {}
        self._keyword_same: dict[str, bool] = {}
        self._keyword_thread: threading.Thread | None = None  # building it, if any
        self._searched = 0.0  # time.monotonic() of the last search
        self.exact_rank_min_matches = EXACT_RANK_MIN_MATCHES

    # --- plumbing ---------------------------------------------------------------------

    def close(self) -> None:
        self._side.stop()
        with self._lock:
            self._db.close()
            with self._reader_lock:
                if self._reader is not None:
                    self._reader.close()
                    self._reader = None

    def holds_lock(self) -> bool:
        """Whether the calling thread holds the store's lock (e.g. inside `transaction`):
        work handed to another thread that needs the lock would then wait forever."""
        return self._lock._is_owned()  # type: ignore[attr-defined]

    def side_runner(self) -> ThreadPoolExecutor | None:
        """The store's one worker thread, for a search to run its keyword half beside its
        vector half, or None where that does not pay or could not work.

        Both halves spend their time outside the GIL (SQLite's FTS5 query, the vector
        kernels), so on a large store they overlap. None below `parallel_min_rows`
        vectors (a one-off thread per search lost at 30K: its start cost more than the
        overlap), for an in-memory store, and when the calling thread holds the store's
        lock: the worker would wait for it while the caller waits for the worker. Nor
        for a store with a deadline (a hook answering in-process): one connection, as
        before. The thread's FTS5 queries go through a read connection of its own
        (`_keyword_db`): they see what is committed, as the caller does outside a
        transaction.
        """
        index = self._index
        if (index is None or len(index) < self.parallel_min_rows or self.ephemeral
                or self._db.deadline is not None or self.holds_lock()):
            return None
        with self._lock:
            return self._side.runner()

    @contextmanager
    def _keyword_db(self) -> Iterator[Any]:
        """The connection an FTS5 query runs on, locked for it: the side thread's own
        read connection there, else the store's."""
        if not self._side.is_current():
            with self._lock:
                yield self._db
            return
        with self._reader_lock:
            if self._reader is None:
                import contextvars

                # An empty context: no deadline but the store's (it has none, side_runner).
                reader = contextvars.Context().run(connect, self.path, BUSY_TIMEOUT_MS)
                reader.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
                reader.execute("PRAGMA query_only = 1")
                self._reader = reader
            yield self._reader

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE takes the write lock up front: no upgrade deadlocks later."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            self._wrote = False
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException:
                self._depth = 0
                self._index = None  # our in-memory view may hold rolled-back rows
                _rollback(self._db)
                raise
            self._depth = 0
            if self._wrote:
                self._tidy_keyword_index_if_due()

    def _next_seq(self) -> int:
        """The next change number: above every row's, and above a deleted row's (`delete`
        keeps the highest it removed), so a number is never given twice. Processes holding
        an index read the rows changed since the number they last saw; a row saved after
        the newest was deleted took that row's rowid and, before, its number too, and was
        never read (its stale terms ranked it)."""
        self._wrote = True
        return self._db.execute(HIGH_SEQ_SQL).fetchone()[0] + 1

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str | None) -> None:
        with self._lock, self.transaction():
            if value is None:
                self._db.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                self._db.execute(
                    "INSERT INTO meta(key, value) VALUES (?, ?)"
                    " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    # --- rows -------------------------------------------------------------------------

    def _values(self, memory: Memory) -> tuple:
        from ...text import normalize_for_dedup

        return (
            memory.id,
            memory.content,
            memory.type,
            memory.project,
            json.dumps(list(memory.tags), ensure_ascii=False),
            json.dumps(list(memory.files), ensure_ascii=False),
            memory.problem,
            memory.solution,
            memory.importance,
            memory.confidence,
            memory.provenance,
            int(memory.pinned),
            memory.status,
            memory.supersedes,
            memory.superseded_by,
            to_iso(memory.created_at),
            to_iso(memory.updated_at),
            to_iso(memory.event_at),
            to_iso(memory.expires_at),
            memory.access_count,
            to_iso(memory.last_accessed_at),
            json.dumps(memory.meta, ensure_ascii=False),
            memory.owner,
            memory.scope,
            normalize_for_dedup(memory.content),
        )

    def insert(self, memory: Memory, terms: str, vector: np.ndarray | None) -> None:
        with self._lock, self.transaction():
            cursor = self._db.execute(
                f"INSERT INTO memories ({COLUMNS}, norm, seq) VALUES ({','.join('?' * 25)}, ?)",
                (*self._values(memory), self._next_seq()),
            )
            rowid = cursor.lastrowid
            self._db.execute("INSERT INTO memories_fts(rowid, terms) VALUES (?, ?)", (rowid, terms))
            if vector is not None:
                self._db.execute(
                    "INSERT INTO vectors(rowid, vec) VALUES (?, ?)",
                    (rowid, half_bytes(vector)),
                )
                self._index_upsert(rowid, vector, memory)

    def update(
        self, memory: Memory, terms: str | None = None, vector: np.ndarray | None = None
    ) -> None:
        assignments = ", ".join(f"{c.strip()} = ?" for c in COLUMNS.split(",")[1:])
        with self._lock, self.transaction():
            values = self._values(memory)
            row = self._db.execute(
                f"UPDATE memories SET {assignments}, norm = ?, seq = ? WHERE id = ?"
                " RETURNING rowid",
                (*values[1:], self._next_seq(), memory.id),
            ).fetchone()
            if row is None:
                raise StoreError(f"no memory with id {memory.id!r} to update")
            rowid = row[0]
            if terms is not None:
                self._db.execute(
                    "UPDATE memories_fts SET terms = ? WHERE rowid = ?", (terms, rowid)
                )
            if vector is not None:
                self._db.execute(
                    "INSERT INTO vectors(rowid, vec) VALUES (?, ?)"
                    " ON CONFLICT(rowid) DO UPDATE SET vec = excluded.vec",
                    (rowid, half_bytes(vector)),
                )
                self._index_upsert(rowid, vector, memory)
            elif self._index is not None:
                self._index.set_fields(
                    rowid, memory.status, memory.project, memory.type, when_ts(memory)
                )

    def delete(self, memory_id: str) -> None:
        with self._lock, self.transaction():
            row = self._db.execute(
                "DELETE FROM memories WHERE id = ? RETURNING rowid, seq", (memory_id,)
            ).fetchone()
            if row is None:
                return
            self._db.execute(  # its change number is never given again (`_next_seq`)
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET"
                " value = MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
                (DELETED_SEQ_KEY, row[1]))
            self._db.execute("DELETE FROM memories_fts WHERE rowid = ?", (row[0],))
            self._db.execute("DELETE FROM vectors WHERE rowid = ?", (row[0],))
            if self._index is not None:
                self._index.remove(row[0])

    def get(self, memory_id: str) -> Memory | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {COLUMNS} FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
        return row_to_memory(row) if row else None

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        found: dict[str, Memory] = {}
        ids = list(dict.fromkeys(memory_ids))
        with self._lock:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                rows = self._db.execute(
                    f"SELECT {COLUMNS} FROM memories WHERE id IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
                for row in rows:
                    found[row[0]] = row_to_memory(row)
        return found

    def resolve_prefix(self, prefix: str, limit: int = 2) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM memories WHERE id LIKE ? ESCAPE '\\' LIMIT ?",
                (escaped + "%", limit),
            ).fetchall()
        return [r[0] for r in rows]

    def find_by_norm(self, norm: str, project: str | None) -> Memory | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {COLUMNS} FROM memories WHERE norm = ? AND project IS ?"
                " AND status = 'active' ORDER BY created_at LIMIT 1",
                (norm, project),
            ).fetchone()
        return row_to_memory(row) if row else None

    def find_by_norms(
        self, keys: Sequence[tuple[str, str | None]]
    ) -> dict[tuple[str, str | None], Memory]:
        found = {}
        for norm, project in dict.fromkeys(keys):
            memory = self.find_by_norm(norm, project)
            if memory is not None:
                found[(norm, project)] = memory
        return found

    def list(
        self, filters: Filters, limit: int = 50, offset: int = 0, order: str = "newest"
    ) -> list[Memory]:
        where, params = where_clause(filters)
        orders = {
            "newest": "m.created_at DESC, m.rowid DESC",
            "oldest": "m.created_at ASC, m.rowid ASC",
            "updated": "m.updated_at DESC, m.rowid DESC",
            "importance": "m.importance DESC, m.created_at DESC",
            "accessed": "m.access_count DESC, m.created_at DESC",
        }
        with self._lock:
            rows = self._db.execute(
                f"SELECT {', '.join('m.' + c.strip() for c in COLUMNS.split(','))}"
                f" FROM memories m WHERE {where} ORDER BY {orders[order]} LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
        return [row_to_memory(r) for r in rows]

    def count(self, filters: Filters) -> int:
        where, params = where_clause(filters)
        with self._lock:
            return self._db.execute(
                f"SELECT COUNT(*) FROM memories m WHERE {where}", params
            ).fetchone()[0]

    def touch(self, memory_ids: Sequence[str], when: datetime) -> None:
        """Access statistics only; deliberately leaves `seq` and `updated_at` alone."""
        with self._lock, self.transaction():
            self._db.executemany(
                "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?"
                " WHERE id = ?",
                [(to_iso(when), i) for i in memory_ids],
            )

    def iter_all(self, batch: int = 500) -> Iterator[Memory]:
        last = 0
        while True:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT rowid, {COLUMNS} FROM memories WHERE rowid > ?"
                    " ORDER BY rowid LIMIT ?",
                    (last, batch),
                ).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            for row in rows:
                yield row_to_memory(row[1:])

    # --- keyword retrieval ------------------------------------------------------------

    # --- health -----------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        with self._lock:

            def grouped(column: str) -> dict[str, int]:
                rows = self._db.execute(
                    f"SELECT COALESCE({column}, '(global)'), COUNT(*) FROM memories"
                    f" GROUP BY 1 ORDER BY 2 DESC"
                ).fetchall()
                return {k: v for k, v in rows}

            total = self._db.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
            vectors = self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
            active_by_type = dict(
                self._db.execute(
                    "SELECT type, COUNT(*) FROM memories WHERE status = 'active' GROUP BY type"
                ).fetchall()
            )
            page_size = self._db.execute("PRAGMA page_size").fetchone()[0]
            pages = self._db.execute("PRAGMA page_count").fetchone()[0]
            return {
                "path": self.path,
                "schema_version": SCHEMA_VERSION,
                "total": total,
                "vectors": vectors,
                "by_status": grouped("status"),
                "by_type": grouped("type"),
                "active_by_type": active_by_type,
                "by_project": grouped("project"),
                "by_provenance": grouped("provenance"),
                "pinned": self._db.execute(
                    "SELECT COUNT(*) FROM memories WHERE pinned = 1"
                ).fetchone()[0],
                "size_bytes": page_size * pages,
            }

    def integrity_check(self) -> str:
        with self._lock:
            return self._db.execute("PRAGMA integrity_check").fetchone()[0]
