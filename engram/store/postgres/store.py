"""PostgreSQL + pgvector: the store for teams and for stores that outgrow a laptop.

Same contract as the SQLite store (base.py), so the service cannot tell them apart:

- Writes are serialised per database by a transaction-level advisory lock, as SQLite's
  BEGIN IMMEDIATE serialises them per file: many processes and servers share one
  database, and change numbers (`seq`) stay gap-free and ordered.
- Keywords: the service's analysed terms are stored and indexed with the `simple`
  configuration (no second analysis), matched with a tsquery, and ranked in SQL by the
  BM25 formula FTS5 uses (k1 = 1.2, b = 0.75, its idf floor) from per-document term
  counts and corpus statistics kept on every write, so both engines rank alike.
- Vectors: a pgvector column with an HNSW index (cosine) created when the first vector
  gives the dimension; filtered searches scan the index iteratively until enough rows
  pass the filters. The planner's statistics are refreshed as the store grows.
- Every psycopg error leaves this module as an Engram error; the password of a URL never
  appears in `path`, errors or stats.

This module holds the connection, its lock and transactions (the advisory write lock,
buffered inserts, the planner's statistics), meta, the memories' rows and listing, and
health. The keyword half (keywords.py), the vector half (vectors.py) and the bookkeeping
(ledger.py) are methods `PostgresStore` inherits.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...errors import StoreError
from ...model import Memory
from ...text import normalize_for_dedup
from ..base import Filters
from ..ledger import LedgerMethods
from ..side import SideThread
from .keywords import KeywordMethods
from .ledger import Ledger
from .schema import SCHEMA_VERSION, migrate, outdated_hnsw
from .sql import WRITE_LOCK, redacted_url, row_to_memory, translate_error, where_clause
from .vectors import VectorMethods

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

_COLUMNS = (
    "id, content, type, project, tags, files, problem, solution, importance, confidence,"
    " provenance, pinned, status, supersedes, superseded_by, created_at, updated_at,"
    " event_at, expires_at, access_count, last_accessed_at, meta, owner, scope"
)
_M_COLUMNS = ", ".join("m." + c.strip() for c in _COLUMNS.split(","))
#: One new row; `seq` is the next change number, read in the same statement (the write
#: lock is held, so no other writer takes it).
_INSERT = (f"INSERT INTO memories ({_COLUMNS}, norm, seq, terms, terms_len, term_counts,"
           f" embedding) VALUES ({', '.join(['%s'] * 25)},"
           " (SELECT COALESCE(MAX(seq), 0) + 1 FROM memories), %s, %s, %s, %s)")
#: Memories written before the planner's statistics are refreshed (or a tenth of the store).
ANALYZE_AFTER = 500
_ANALYZED_KEY = "analyzed_seq"
#: Memories from which a hybrid search runs its keyword half on the store's own thread and
#: connection while the calling thread embeds the query and walks the vectors
#: (side_runner): on smaller stores the hand-over costs what the overlap saves
#: (benchmarks/RESULTS.md, scale-postgres).
PARALLEL_MIN_ROWS = 2_000


class PostgresStore(KeywordMethods, VectorMethods, LedgerMethods):
    """Implements the Store protocol on a PostgreSQL database with pgvector."""

    ephemeral = False

    def __init__(self, url: str, *, deadline: float | None = None) -> None:
        try:
            import psycopg
        except ImportError:
            raise StoreError("PostgreSQL needs its extra: pip install 'engram-recall[postgres]'"
                             ) from None
        from ..deadline import current_deadline

        self._url = url
        self.path = redacted_url(url)
        self._deadline = deadline if deadline is not None else current_deadline()
        self._lock = threading.RLock()
        self._depth = 0
        self._dim: int | None = None
        #: Rows `insert` was given in the open transaction, written together (one
        #: pipelined executemany) before the next statement or the commit.
        self._unwritten: list[tuple] = []
        self._reset_statistics()
        self._closed = False
        self._side = SideThread()  # side_runner's thread
        #: That thread's own connection (opened on its first statement), so the caller's
        #: vector half never waits behind the keyword half for `_conn`.
        self._side_conn: Any = None
        self._side_lock = threading.Lock()
        self.parallel_min_rows = PARALLEL_MIN_ROWS
        #: Memories in the store as the last keyword search read them (corpus.docs): what
        #: side_runner compares with its threshold without a round trip of its own.
        self.known_docs = 0
        self._readings = threading.local()
        self._connect(vectors=False)  # the vector type exists once the schema does
        try:
            self.upgraded_from = migrate(self._conn)
            self._register_vectors()
        except psycopg.Error as exc:
            self._conn.close()
            raise translate_error(exc, url) from None
        self._ledger = Ledger(self)

    def _connect(self, *, vectors: bool = True) -> None:
        self._conn = self._open(vectors=vectors)

    def _open(self, *, vectors: bool = True) -> Any:
        """A new autocommit connection with the store's deadline (if any) applied."""
        import psycopg

        conn = None
        try:
            conn = psycopg.connect(self._url, autocommit=True,
                                   connect_timeout=self._connect_timeout())
            self._apply_deadline(conn)
            if vectors:
                self._register_vectors(conn)
            return conn
        except psycopg.Error as exc:
            if conn is not None:
                conn.close()
            raise translate_error(exc, self._url) from None

    def _usable(self) -> None:
        """A long-lived server outlives its connection (a database restart, a failover, an
        idle timeout): between transactions, a lost connection is opened again."""
        if self._depth == 0 and (self._conn.closed or self._conn.broken):
            with contextlib.suppress(Exception):
                self._conn.close()
            self._connect()

    # --- plumbing ---------------------------------------------------------------------

    def _connect_timeout(self) -> int:
        import time

        if self._deadline is None:
            return 10
        return max(1, math.ceil(self._deadline - time.monotonic()))

    def _apply_deadline(self, conn: Any) -> None:
        import time

        if self._deadline is None:
            return
        left = max(1, int((self._deadline - time.monotonic()) * 1000))
        conn.execute(f"SET statement_timeout = {left}")
        conn.execute(f"SET lock_timeout = {left}")

    def _register_vectors(self, conn: Any = None) -> None:
        try:
            from pgvector.psycopg import register_vector
        except ImportError:
            raise StoreError("PostgreSQL needs its extra: pip install 'engram-recall[postgres]'"
                             ) from None
        register_vector(self._conn if conn is None else conn)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        import psycopg

        try:
            yield
        except psycopg.Error as exc:
            raise translate_error(exc, self._url) from None

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """The connection this thread's statement runs on, held for it, errors translated:
        the side thread's own there (side_runner), else the store's, with the rows
        `insert` buffered written first."""
        if self._side.is_current():
            with self._side_lock, self._errors():
                yield self._side_connection()
            return
        with self._lock:
            self._usable()
            with self._errors():
                self._flush_inserts()
                yield self._conn

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        with self._connection() as conn:
            return conn.execute(sql, params)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._connection() as conn:
            return conn.execute(sql, params).fetchall()

    def _flush_inserts(self) -> None:
        """Write the rows `insert` buffered: every statement after them (a read included)
        sees them, as if each had been written when `insert` was called. One executemany
        in pipeline mode: a batch of a thousand costs a few round trips, not a thousand."""
        if not self._unwritten:
            return
        rows, self._unwritten = self._unwritten, []
        with self._conn.cursor() as cur:
            cur.executemany(_INSERT, rows)
        self._probe([row[0] for row in rows if row[-1] is not None])

    def close(self) -> None:
        self._closed = True
        self._side.stop()
        with self._lock:
            self._conn.close()
        with self._side_lock:
            if self._side_conn is not None and self._side.owned():
                self._side_conn.close()  # (a forked child's copy is only dropped)
            self._side_conn = None

    # --- the keyword half beside the vector half ----------------------------------------

    def holds_lock(self) -> bool:
        """Whether the calling thread holds the store's lock (e.g. inside `transaction`)."""
        return self._lock._is_owned()  # type: ignore[attr-defined]

    def side_runner(self) -> ThreadPoolExecutor | None:
        """The store's one worker thread, for a search to run its keyword half (on a
        connection of its own) while the caller embeds the query and walks the vectors on
        `_conn`; or None where that does not pay or could not work.

        Each half is mostly its own backend's work on the server, so with a free core they
        overlap. None below `parallel_min_rows` memories (as the last keyword search
        counted them; handing work to a thread costs more than the overlap saves on a
        tiny store), after `close`, for a store with a deadline (a hook answering
        in-process: one connection, as before), and inside a transaction on the calling
        thread: the side connection would not see the transaction's own writes. Its
        statements see what is committed, as the caller's do outside a transaction.
        """
        if (self.known_docs < self.parallel_min_rows or self._closed
                or self._deadline is not None or self.holds_lock()):
            return None
        with self._lock:
            return self._side.runner(forked=self._drop_side_connection)

    def _drop_side_connection(self) -> None:
        """A forked child must not use (nor close) its parent's session: the connection
        is dropped, and psycopg does not end it from a child."""
        with self._side_lock:
            self._side_conn = None

    def _side_connection(self) -> Any:
        """The side thread's connection (the caller holds `_side_lock`): opened on first
        use, and again once lost (a restart, an idle timeout), as `_usable` does for
        `_conn`."""
        conn = self._side_conn
        if conn is not None and not (conn.closed or conn.broken):
            return conn
        if self._closed:
            raise StoreError(f"the store at {self.path} is closed")
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
        self._side_conn = None
        # No vector type registered: nothing on this connection reads vectors.
        self._side_conn = self._open(vectors=False)
        return self._side_conn

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One writer at a time per database (an advisory lock held to COMMIT)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._usable()
            with self._errors():
                tx = self._conn.transaction()
                tx.__enter__()
                try:
                    self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                except BaseException as exc:
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                    raise
            self._depth = 1
            self._reset_statistics()
            try:
                yield
                with self._errors():
                    self._flush_inserts()
                self._write_statistics()
            except BaseException as exc:
                self._depth = 0
                self._unwritten = []
                self._reset_statistics()
                with self._errors():
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                raise
            self._depth = 0
            with self._errors():
                tx.__exit__(None, None, None)
            self._analyze_if_due()

    def _analyze_if_due(self) -> None:
        """Refresh the planner's statistics once a tenth of the store (at least
        ANALYZE_AFTER memories) was written since the last time, by any process.

        Without them, after a bulk import the planner believes the table is tiny and
        sorts every vector instead of walking the HNSW index. Autovacuum would get there,
        minutes later; a search right after an import should not wait for it.
        """
        with contextlib.suppress(StoreError):
            seq, docs, mark = self._rows(
                "SELECT COALESCE(MAX(seq), 0), (SELECT docs FROM corpus),"
                " (SELECT value FROM meta WHERE key = %s) FROM memories", (_ANALYZED_KEY,))[0]
            if mark is not None and mark.isdigit() and (
                seq - int(mark) < max(ANALYZE_AFTER, docs // 10)
            ):
                return
            if mark is not None:
                self._execute("ANALYZE memories")
            self._execute("INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT(key)"
                          " DO UPDATE SET value = excluded.value", (_ANALYZED_KEY, str(seq)))

    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = %s", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str | None) -> None:
        with self.transaction():
            if value is None:
                self._execute("DELETE FROM meta WHERE key = %s", (key,))
            else:
                self._execute(
                    "INSERT INTO meta(key, value) VALUES (%s, %s)"
                    " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    # --- rows -------------------------------------------------------------------------

    def _values(self, memory: Memory) -> tuple:
        from psycopg.types.json import Jsonb

        return (
            memory.id, memory.content, memory.type, memory.project,
            Jsonb(list(memory.tags)), Jsonb(list(memory.files)), memory.problem,
            memory.solution, memory.importance, memory.confidence, memory.provenance,
            bool(memory.pinned), memory.status, memory.supersedes, memory.superseded_by,
            memory.created_at, memory.updated_at, memory.event_at, memory.expires_at,
            memory.access_count, memory.last_accessed_at, Jsonb(memory.meta),
            memory.owner, memory.scope, normalize_for_dedup(memory.content),
        )

    def insert(self, memory: Memory, terms: str, vector: np.ndarray | None) -> None:
        """Buffered until the next statement or the commit (see _flush_inserts): an
        import's thousand inserts leave in one pipeline, not a round trip each."""
        from psycopg.types.json import Jsonb

        counts = Counter(terms.split())
        with self.transaction():
            embedding = None if vector is None else self._vector(vector)
            self._unwritten.append((*self._values(memory), terms, sum(counts.values()),
                                  Jsonb(counts), embedding))
            self._count_terms(None, counts, None, terms)

    def update(
        self, memory: Memory, terms: str | None = None, vector: np.ndarray | None = None
    ) -> None:
        from psycopg.types.json import Jsonb

        names = [c.strip() for c in _COLUMNS.split(",")[1:]] + ["norm"]
        assignments = ", ".join(f"{c} = %s" for c in names)
        counts = Counter(terms.split()) if terms is not None else None
        with self.transaction():
            values = self._values(memory)
            extra, params = "", []
            if counts is not None:
                extra += ", terms = %s, terms_len = %s, term_counts = %s"
                params += [terms, sum(counts.values()), Jsonb(counts)]
            if vector is not None:
                extra += ", embedding = %s"
                params.append(self._vector(vector))
            old = self._rows("SELECT term_counts, terms FROM memories WHERE id = %s"
                             " FOR UPDATE", (memory.id,))
            if not old:
                raise StoreError(f"no memory with id {memory.id!r} to update")
            self._execute(
                f"UPDATE memories SET {assignments},"
                f" seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM memories){extra} WHERE id = %s",
                (*values[1:], *params, memory.id),
            )
            if counts is not None:
                self._count_terms(Counter(old[0][0]), counts, old[0][1], terms)
            if vector is not None:
                self._execute("DELETE FROM vectors_unreached WHERE rowid = (SELECT rowid FROM"
                              " memories WHERE id = %s)", (memory.id,))
                with self._lock, self._errors():
                    self._probe([memory.id])

    def delete(self, memory_id: str) -> None:
        with self.transaction():
            gone = self._rows("DELETE FROM memories WHERE id = %s RETURNING term_counts, rowid,"
                              " terms", (memory_id,))
            if gone:
                self._count_terms(Counter(gone[0][0]), None, gone[0][2], None)
                self._execute("DELETE FROM vectors_unreached WHERE rowid = %s", (gone[0][1],))

    def get(self, memory_id: str) -> Memory | None:
        rows = self._rows(f"SELECT {_COLUMNS} FROM memories WHERE id = %s", (memory_id,))
        return row_to_memory(rows[0]) if rows else None

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}
        rows = self._rows(f"SELECT {_COLUMNS} FROM memories WHERE id = ANY(%s)", (ids,))
        return {row[0]: row_to_memory(row) for row in rows}

    def resolve_prefix(self, prefix: str, limit: int = 2) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._rows("SELECT id FROM memories WHERE id LIKE %s ESCAPE '\\' LIMIT %s",
                          (escaped + "%", limit))
        return [r[0] for r in rows]

    def find_by_norm(self, norm: str, project: str | None) -> Memory | None:
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM memories WHERE norm = %s AND project IS NOT DISTINCT"
            " FROM %s AND status = 'active' ORDER BY created_at, rowid LIMIT 1", (norm, project))
        return row_to_memory(rows[0]) if rows else None

    def find_by_norms(
        self, keys: Sequence[tuple[str, str | None]]
    ) -> dict[tuple[str, str | None], Memory]:
        """One statement for a batch's dedup keys (find_by_norm's order per key)."""
        keys = list(dict.fromkeys(keys))
        if not keys:
            return {}
        rows = self._rows(
            f"SELECT DISTINCT ON (q.i) q.i, {_M_COLUMNS} FROM unnest(%s::text[], %s::text[])"
            " WITH ORDINALITY AS q(n, p, i) JOIN memories m ON m.norm = q.n"
            " AND m.project IS NOT DISTINCT FROM q.p AND m.status = 'active'"
            " ORDER BY q.i, m.created_at, m.rowid",
            ([n for n, _ in keys], [p for _, p in keys]))
        return {keys[row[0] - 1]: row_to_memory(row[1:]) for row in rows}

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
        rows = self._rows(
            f"SELECT {_M_COLUMNS} FROM memories m WHERE {where} ORDER BY {orders[order]}"
            " LIMIT %s OFFSET %s", (*params, limit, offset))
        return [row_to_memory(r) for r in rows]

    def count(self, filters: Filters) -> int:
        where, params = where_clause(filters)
        return self._rows(f"SELECT COUNT(*) FROM memories m WHERE {where}", params)[0][0]

    def touch(self, memory_ids: Sequence[str], when: datetime) -> None:
        """Access statistics only; deliberately leaves `seq` and `updated_at` alone."""
        with self.transaction():
            self._execute(
                "UPDATE memories SET access_count = access_count + 1, last_accessed_at = %s"
                " WHERE id = ANY(%s)", (when, list(memory_ids)))

    def iter_all(self, batch: int = 500) -> Iterator[Memory]:
        last = 0
        while True:
            rows = self._rows(
                f"SELECT rowid, {_COLUMNS} FROM memories WHERE rowid > %s ORDER BY rowid"
                " LIMIT %s", (last, batch))
            if not rows:
                return
            last = rows[-1][0]
            for row in rows:
                yield row_to_memory(row[1:])

    # --- health -----------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        def grouped(column: str) -> dict[str, int]:
            rows = self._rows(f"SELECT COALESCE({column}, '(global)'), COUNT(*) FROM memories"
                              " GROUP BY 1 ORDER BY 2 DESC")
            return {k: v for k, v in rows}

        total, vectors, pinned = self._rows(
            "SELECT COUNT(*), COUNT(embedding), COUNT(*) FILTER (WHERE pinned) FROM memories")[0]
        active = Counter(dict(self._rows(
            "SELECT type, COUNT(*) FROM memories WHERE status = 'active' GROUP BY type")))
        size = self._rows("SELECT pg_total_relation_size('memories')")[0][0]
        with self._lock:
            self._usable()
            with self._errors(), self._conn.cursor() as cur:
                outdated = outdated_hnsw(cur)
        notes = {"vector_index_outdated": outdated} if outdated else {}
        unreached = self._rows("SELECT COUNT(*) FROM vectors_unreached")[0][0]
        if unreached:  # searched exactly beside the HNSW walk (probe_sql)
            notes["vectors_unreached"] = unreached
        return {**notes,
            "path": self.path, "schema_version": SCHEMA_VERSION, "total": total,
            "vectors": vectors, "by_status": grouped("status"), "by_type": grouped("type"),
            "active_by_type": dict(active), "by_project": grouped("project"),
            "by_provenance": grouped("provenance"), "pinned": pinned, "size_bytes": size,
        }
