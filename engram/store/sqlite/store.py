"""The embedded default store: one SQLite file with FTS5 keywords and float16 vectors.

WAL + synchronous=FULL: an acknowledged save survives a power cut, and a hook, the MCP
server and the CLI can read and write the same file at once (the busy timeout makes a
writer wait for another instead of failing). Vectors are stored as float16 blobs
(half the disk of float32, cosine error ~1e-3) and searched in memory as float32.

The file and its -wal/-shm are the user's alone (0600), and every SQLite error leaves
this package as an Engram error (connection.py).
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...config import engram_home, private_dir, tighten
from ...errors import StoreError, StoreUnavailableError
from ...model import Memory, to_iso
from ...text.fts import fts_phrases, fts_query
from ..base import Candidate, Filters
from ..ledger import LedgerMethods
from .connection import connect
from .errors import SQLError
from .ledger import Ledger
from .migrations import SCHEMA_VERSION, migrate
from .rows import COLUMNS, half_bytes, row_to_memory, timestamps, when_ts, where_clause

if TYPE_CHECKING:  # numpy loads on the first vector operation, not for keyword-only hooks
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from .vector_index import VectorIndex

BUSY_TIMEOUT_MS = 15_000
#: SQLite's page cache per connection, in KiB (SQLite's default is 2 MB). Filled only as
#: pages are read; at 100K memories the default thrashes, and loading a search's
#: candidates took 1.6 ms instead of 0.5.
CACHE_KIB = 64 * 1024
#: Rows per batch when loading vectors into the in-memory index.
SYNC_BATCH = 20_000
#: Memories written between two merges of the keyword index's segments.
TIDY_AFTER = 256
_TIDIED_KEY = "keyword_index_tidied_seq"
#: FTS5's bm25 constant k1 + 1: the most one phrase's occurrences in a row can add, per
#: unit of the phrase's idf (`_rare_first`).
_BM25_CEILING = 2.2
#: How far a rare phrase's idf must clear the common phrases' bound for `_rare_first` to
#: try (a failed try costs about half the full query).
_TRY_MARGIN = 1.3
#: Vectors from which a hybrid search runs its keyword half on the store's own thread
#: while the calling thread scores the vectors (side_runner): below, handing the work
#: over costs about what the overlap saves.
PARALLEL_MIN_ROWS = 50_000

def _private_store_files(path: Path) -> None:
    """Create a new store file 0600 (SQLite gives its -wal and -shm the file's mode) in
    an owner-only folder; an older Engram's 0644 store and journals are tightened."""
    parent = path.parent
    try:
        if not parent.is_dir() or os.path.abspath(parent) == os.path.abspath(engram_home()):
            private_dir(parent)
    except OSError as exc:
        raise StoreError(f"cannot create the folder {parent}: {exc.strerror}") from exc
    except ValueError as exc:  # a NUL in the path
        raise StoreError(f"cannot use {str(path)!r} as a store: {exc}") from exc
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        if not path.is_dir():  # SQLite will refuse a folder; leave its mode alone
            for suffix in ("", "-wal", "-shm", "-journal"):
                tighten(f"{path}{suffix}")
    except (OSError, ValueError):
        pass  # SQLite reports an unusable path in its own words


def _rollback(db: Any) -> None:
    """Roll back after a failure, unless SQLite already did (a full disk, an I/O error
    or an interrupt can end the transaction itself); never hide the first error."""
    if db.in_transaction:
        with suppress(StoreError):
            db.execute("ROLLBACK")


def _wal_mode(db: Any) -> str:
    """Switch to WAL, as often as needed within the busy timeout: two processes opening a
    new store at once contend for the change of journal mode, and SQLite answers the loser
    "busy" at once, without its busy handler (it could not wait without deadlocking)."""
    give_up = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    if db.deadline is not None:
        give_up = min(give_up, db.deadline)
    pause = 0.005
    while True:
        try:
            return str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except StoreUnavailableError:
            if time.monotonic() + pause > give_up:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)


def _df_of(quoted: str, terms: dict[str, str], df: dict[str, int]) -> int:
    """The cached document frequency of a quoted phrase (the largest of its terms')."""
    return max((df.get(t, 0) for t, q in terms.items() if q == quoted), default=0)


def _idf(hits: int, rows: int) -> float:
    """FTS5's bm25 idf of a phrase in `hits` of `rows` rows (floored as FTS5 does)."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0 else 1e-6


def _varint(data: bytes) -> int:
    """The first SQLite varint of `data` (FTS5's totals record starts with its row count)."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            break
    return value


class SQLiteStore(LedgerMethods):
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
        self._side: ThreadPoolExecutor | None = None  # side_runner's thread, once started
        self._side_pid = 0
        self._side_ident: int | None = None  # that thread's id
        # The side thread's own read connection for FTS5 queries, so that the caller's
        # vector half never waits behind one for the store's connection.
        self._reader: Any = None
        self._reader_lock = threading.Lock()
        self.parallel_min_rows = PARALLEL_MIN_ROWS
        # Document frequencies counted since the store's change number `_df_seq`
        self._df: dict[str, int] = {}
        self._df_seq = -1
        self._df_total = 0

    # --- plumbing ---------------------------------------------------------------------

    def close(self) -> None:
        side, self._side = self._side, None
        if side is not None:
            side.shutdown(wait=True)  # outside the lock: its work may be waiting for it
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
        from concurrent.futures import ThreadPoolExecutor

        with self._lock:
            if self._side is None or self._side_pid != os.getpid():  # none yet, or forked
                self._side = ThreadPoolExecutor(1, thread_name_prefix="engram-keyword",
                                                initializer=self._mark_side_thread)
                self._side_pid = os.getpid()
            return self._side

    def _mark_side_thread(self) -> None:
        self._side_ident = threading.get_ident()

    @contextmanager
    def _keyword_db(self) -> Iterator[Any]:
        """The connection an FTS5 query runs on, locked for it: the side thread's own
        read connection there, else the store's."""
        if self._side_ident is None or threading.get_ident() != self._side_ident:
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
        self._wrote = True
        return self._db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM memories").fetchone()[0]

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
                "DELETE FROM memories WHERE id = ? RETURNING rowid", (memory_id,)
            ).fetchone()
            if row is None:
                return
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

    def keyword_search(
        self, groups: list[tuple[str, ...]], mode: str, filters: Filters, limit: int
    ) -> list[Candidate]:
        match = fts_query(groups, mode)
        if match is None:
            return []
        with self._keyword_db() as db:
            try:
                rows = None
                if mode == "or" and not (db is self._db and self._depth):
                    rows = self._rare_first(db, groups, filters, limit)
                if rows is None:
                    rows = self._ranked(db, match, filters, limit)
            except SQLError:
                # fts_query quotes every term, so this should not happen; a search never
                # fails because of what the user typed (a busy or full store still says so).
                return []
        return [Candidate(r[0], -float(r[1])) for r in rows]

    def _ranked(self, db: Any, match: str, filters: Filters, limit: int
                ) -> list[tuple[str, float]]:
        """The `limit` best rows of an FTS5 match under `filters`, in bm25 order."""
        if filters.statuses and filters == Filters(statuses=filters.statuses):
            rows = self._best_matches(match, filters.statuses, limit, db)
            if rows is not None:
                return rows
        where, params = where_clause(filters)
        return db.execute(
            "SELECT m.id, bm25(memories_fts) FROM memories_fts"
            " JOIN memories m ON m.rowid = memories_fts.rowid"
            f" WHERE memories_fts MATCH ? AND {where}"
            " ORDER BY bm25(memories_fts), m.rowid LIMIT ?",
            (match, *params, limit),
        ).fetchall()

    def _rare_first(
        self, db: Any, groups: list[tuple[str, ...]], filters: Filters, limit: int
    ) -> list[tuple[str, float]] | None:
        """The `limit` best matches of an OR search, found among the rows holding one of
        its rarer phrases only; None when that is not shown to be the whole answer.

        Ranking every row with a common word was most of an OR search's time (a word in
        7% of 1M memories: ~100 ms). FTS5's bm25 sums over the expression's phrases
        idf x tf (k1 + 1) / (tf + k1 (1 - b + b len / average len)): each phrase adds
        less than idf x (k1 + 1). A row holding only common phrases therefore scores
        below B = the sum of that over the common phrases, and once the `limit`-th best
        row holding a rarer phrase scores above B, no other row can enter (exact, as
        WAND; the PostgreSQL store stops the same way). Those rows are ranked by FTS5
        with the whole expression: `whole NOT ((commons) NOT (rarer))` keeps only them,
        and phrases right of a NOT add nothing to bm25 (FTS5 clears their positions), so
        their scores are the whole query's, bit for bit. B needs the same statistics
        bm25 uses: the row count of FTS5's own totals and exact counts of the common
        phrases; the split is chosen from the cached document frequencies.
        """
        by_group = fts_phrases(groups)
        phrases = [pair for group in by_group for pair in group]
        distinct = dict(phrases)  # term -> quoted, first occurrence
        if len(set(distinct.values())) < 2:
            return None
        total, approx = self.document_frequency(list(distinct))
        live = sorted((q for q in set(distinct.values()) if _df_of(q, distinct, approx)),
                      key=lambda q: (_df_of(q, distinct, approx), q))
        if len(live) < 2 or total <= 0:
            return None
        all_rows = sum(_df_of(q, distinct, approx) for q in live)
        common: set[str] = set()
        for j in range(1, len(live)):
            rare = set(live[:j])
            # A group's alternatives mostly share their rows ("syncaccount", "sync account").
            rare_rows = sum(max((_df_of(q, distinct, approx) for _t, q in group
                                 if q in rare), default=0) for group in by_group)
            if rare_rows < 2 * limit:
                continue
            if 2 * rare_rows > all_rows:  # ranking the rarer rows costs about as much
                return None
            rest = set(live[j:])  # a phrase in no row adds nothing
            bound = _BM25_CEILING * sum(
                _idf(_df_of(q, distinct, approx), total) for _t, q in phrases if q in rest)
            # A row holding the weakest rare phrase once, at about the average length,
            # scores about its idf: worth trying when that clears the bound by a margin.
            if _idf(_df_of(live[j - 1], distinct, approx), total) > _TRY_MARGIN * bound:
                common = rest
                break
        if not common:
            return None
        rarer = [q for q in dict.fromkeys(distinct.values()) if q not in common]
        match = (f"({fts_query(groups, 'or')}) NOT (({' OR '.join(sorted(common))})"
                 f" NOT ({' OR '.join(rarer)}))")
        # One read transaction: the bound and the ranking see the same rows.
        db.execute("BEGIN")
        try:
            # The bound, from the statistics bm25 reads: FTS5's row count, exact counts.
            block = db.execute("SELECT block FROM memories_fts_data WHERE id = 1").fetchone()
            if block is None:
                return None
            rows_total = _varint(block[0])
            exact = {q: db.execute("SELECT COUNT(*) FROM memories_fts"
                                   " WHERE memories_fts MATCH ?", (q,)).fetchone()[0]
                     for q in common}
            bound = _BM25_CEILING * sum(_idf(exact[q], rows_total) for _t, q in phrases
                                        if q in common)
            found = self._ranked(db, match, filters, limit)
        finally:
            _rollback(db)  # read only: ends the snapshot
        # The margin covers rounding between bm25's sum and the bound's.
        if found is None or len(found) < limit or -found[limit - 1][1] <= bound * (1 + 1e-9):
            return None
        return found[:limit]

    def _best_matches(
        self, match: str, statuses: tuple[str, ...], limit: int, db: Any = None
    ) -> list[tuple[str, float]] | None:
        """The `limit` best matches with one of `statuses`, or None if that needs a full scan.

        Ranking and sorting inside the FTS5 query joins only the best few to `memories`
        to check their status: with common query words at 100K memories that is 20-30%
        less work than joining and sorting every match. `bm25()`, not the `rank` column:
        the same scores, but `ORDER BY rank` makes FTS5 sort every match itself where
        SQLite keeps only the best `LIMIT` (25% less time at 10K and 100K). Equal scores
        go to the older row, here and in the full scan alike. Exact: when too few of the
        best few have an allowed status, the caller falls back to filtering every match.
        """
        fetch = 2 * limit
        rows = (db or self._db).execute(
            "SELECT m.id, f.r, m.status FROM (SELECT rowid, bm25(memories_fts) AS r"
            " FROM memories_fts WHERE memories_fts MATCH ? ORDER BY r, rowid LIMIT ?) f"
            " JOIN memories m ON m.rowid = f.rowid ORDER BY f.r, f.rowid",
            (match, fetch),
        ).fetchall()
        kept = [(r[0], r[1]) for r in rows if r[2] in statuses]
        if len(kept) >= limit or len(rows) < fetch:
            return kept[:limit]
        return None

    def terms_of(self, memory_ids: Sequence[str]) -> dict[str, str]:
        """The indexed terms of some memories, for explaining keyword matches."""
        ids = list(memory_ids)
        if not ids:
            return {}
        with self._lock:
            rows = self._db.execute(
                "SELECT m.id, f.terms FROM memories m JOIN memories_fts f ON f.rowid = m.rowid"
                f" WHERE m.id IN ({','.join('?' * len(ids))})",
                ids,
            ).fetchall()
        return dict(rows)

    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of some memories (float32), to tell near-duplicates apart."""
        with self._lock:
            index = self._sync_index()
            return index.vectors_of(memory_ids) if index is not None else {}

    def _tidy_keyword_index_if_due(self) -> None:
        """Merge the keyword index's small segments once TIDY_AFTER memories were written
        since the last merge (by any process: the mark is kept in the store).

        Every write transaction adds an FTS5 segment and each query looks a term up in
        every segment; FTS5's own automerge lets them pile up after many small writes or a
        big import. Bounded work (500 pages) and best effort: a busy store skips it and a
        later write tries again.
        """
        with suppress(StoreUnavailableError, SQLError):
            seq = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM memories").fetchone()[0]
            mark = self.get_meta(_TIDIED_KEY)
            if mark is not None and mark.isdigit() and seq - int(mark) < TIDY_AFTER:
                return
            if mark is None:  # a new store: start counting now
                self.set_meta(_TIDIED_KEY, str(seq))
                return
            self._db.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('merge', 500)")
            self.set_meta(_TIDIED_KEY, str(seq))

    def document_frequency(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of documents, df per term), for IDF-weighted coverage.

        Counting a term's documents walks its whole posting list: for a common term that is
        most of a keyword search's time in a large store. So counts are kept until the store
        has changed by more than 1% of its documents since they were taken (any change, in
        a store under 100): IDF weights barely move in between, and a small store stays exact.
        """
        with self._lock:
            seq = self.last_change()
            if self._df_seq < 0 or not 0 <= seq - self._df_seq <= self._df_total // 100:
                self._df_total = self._db.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0]
                self._df, self._df_seq = {}, seq
            elif len(self._df) > 100_000:
                self._df = {}
            for term in dict.fromkeys(terms):
                if term in self._df:
                    continue
                quoted = '"' + term.replace('"', '""') + '"'
                try:
                    self._df[term] = self._db.execute(
                        "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?", (quoted,)
                    ).fetchone()[0]
                except SQLError:
                    self._df[term] = 0
            return self._df_total, {term: self._df[term] for term in terms}

    # --- vectors ----------------------------------------------------------------------

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
