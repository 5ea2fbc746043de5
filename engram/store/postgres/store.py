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
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...errors import StoreError
from ...model import Memory
from ...text import normalize_for_dedup
from ..base import Candidate, Filters
from ..ledger import LedgerMethods
from .ledger import Ledger
from .schema import (
    REBUILD_KEY,
    SCHEMA_VERSION,
    hnsw_index_sql,
    migrate,
    outdated_hnsw,
    probe,
    probe_all,
)
from .sql import (
    MAX_HALFVEC_INDEX_DIM,
    phrase_pattern,
    redacted_url,
    row_to_memory,
    translate_error,
    tsquery_term,
    vector_cast,
    where_clause,
)

if TYPE_CHECKING:
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
_WRITE_LOCK = 0x656E6777  # "engw": one writer at a time per database
K1, B = 1.2, 0.75
#: Memories written before the planner's statistics are refreshed (or a tenth of the store).
ANALYZE_AFTER = 500
_ANALYZED_KEY = "analyzed_seq"
#: Memories holding a word (or a hundredth of the store) from which an OR search ranks
#: the rows with its rarer words first (keyword_search).
COMMON_DF = 500


def ef_search(limit: int) -> int:
    """Candidates an HNSW walk keeps for a search asking `limit` rows: ten per row asked,
    at least 500 (recall@10 ≥ 0.98 at 100K), at most pgvector's 1,000."""
    return max(500, min(10 * limit, 1000))


class PostgresStore(LedgerMethods):
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
        self._connect(vectors=False)  # the vector type exists once the schema does
        try:
            self.upgraded_from = migrate(self._conn)
            self._register_vectors()
        except psycopg.Error as exc:
            self._conn.close()
            raise translate_error(exc, url) from None
        self._ledger = Ledger(self)

    def _connect(self, *, vectors: bool = True) -> None:
        import psycopg

        try:
            self._conn = psycopg.connect(self._url, autocommit=True,
                                         connect_timeout=self._connect_timeout())
            self._apply_deadline()
            if vectors:
                self._register_vectors()
        except psycopg.Error as exc:
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

    def _apply_deadline(self) -> None:
        import time

        if self._deadline is None:
            return
        left = max(1, int((self._deadline - time.monotonic()) * 1000))
        self._conn.execute(f"SET statement_timeout = {left}")
        self._conn.execute(f"SET lock_timeout = {left}")

    def _register_vectors(self) -> None:
        try:
            from pgvector.psycopg import register_vector
        except ImportError:
            raise StoreError("PostgreSQL needs its extra: pip install 'engram-recall[postgres]'"
                             ) from None
        register_vector(self._conn)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        import psycopg

        try:
            yield
        except psycopg.Error as exc:
            raise translate_error(exc, self._url) from None

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        with self._lock:
            self._usable()
            with self._errors():
                self._flush_inserts()
                return self._conn.execute(sql, params)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            self._usable()
            with self._errors():
                self._flush_inserts()
                return self._conn.execute(sql, params).fetchall()

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

    def _probe(self, memory_ids: list[str]) -> None:
        """Note which of these rows' vectors the HNSW walk cannot reach (probe_sql): a
        short walk per row, a wider one per row it missed."""
        dim = self._dimension() if memory_ids else None
        if dim is not None:
            with self._conn.transaction(), self._conn.cursor() as cur:
                probe(cur, dim, memory_ids)

    def probe_vectors(self) -> None:
        """Find again every row the vector index's walks cannot reach (after a build)."""
        dim = self._dimension()
        if dim is not None:
            with self.transaction(), self._errors(), self._conn.cursor() as cur:
                probe_all(cur, dim)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

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
                    self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_WRITE_LOCK,))
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

    def _vector(self, vector: np.ndarray) -> Any:
        import numpy as np

        dim = int(vector.shape[0])
        if self._dimension() is None:
            # The first vector fixes the dimension and its HNSW index (cosine).
            if dim <= MAX_HALFVEC_INDEX_DIM:
                self._execute(hnsw_index_sql(dim))
            self._execute("INSERT INTO meta(key, value) VALUES ('vector_dim', %s)"
                          " ON CONFLICT(key) DO NOTHING", (str(dim),))
            self._dim = int(self.get_meta("vector_dim") or dim)
        from pgvector import HalfVector

        return HalfVector(np.asarray(vector, dtype=np.float16))

    def _count_terms(self, old: Counter[str] | None, new: Counter[str] | None) -> None:
        """Corpus statistics BM25 needs (documents, total terms, each term's document
        frequency), gathered over the transaction and written once before it commits."""
        before, after = old or Counter(), new or Counter()
        self._pending_docs += (new is not None) - (old is not None)
        self._pending_terms += sum(after.values()) - sum(before.values())
        self._pending_df.update({term: -1 for term in set(before) - set(after)})
        self._pending_df.update({term: 1 for term in set(after) - set(before)})

    def _write_statistics(self) -> None:
        if self._pending_docs or self._pending_terms:
            self._execute("UPDATE corpus SET docs = docs + %s, terms = terms + %s WHERE id = 1",
                          (self._pending_docs, self._pending_terms))
        changed = sorted((t, n) for t, n in self._pending_df.items() if n)
        if changed:
            self._execute(
                "INSERT INTO term_df SELECT * FROM unnest(%s::text[], %s::bigint[])"
                " ON CONFLICT (term) DO UPDATE SET df = term_df.df + excluded.df",
                ([t for t, _ in changed], [n for _, n in changed]))
        self._reset_statistics()

    def _reset_statistics(self) -> None:
        self._pending_docs = self._pending_terms = 0
        self._pending_df: Counter[str] = Counter()

    def insert(self, memory: Memory, terms: str, vector: np.ndarray | None) -> None:
        """Buffered until the next statement or the commit (see _flush_inserts): an
        import's thousand inserts leave in one pipeline, not a round trip each."""
        from psycopg.types.json import Jsonb

        counts = Counter(terms.split())
        with self.transaction():
            embedding = None if vector is None else self._vector(vector)
            self._unwritten.append((*self._values(memory), terms, sum(counts.values()),
                                  Jsonb(counts), embedding))
            self._count_terms(None, counts)

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
            old = self._rows("SELECT term_counts FROM memories WHERE id = %s FOR UPDATE",
                             (memory.id,))
            if not old:
                raise StoreError(f"no memory with id {memory.id!r} to update")
            self._execute(
                f"UPDATE memories SET {assignments},"
                f" seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM memories){extra} WHERE id = %s",
                (*values[1:], *params, memory.id),
            )
            if counts is not None:
                self._count_terms(Counter(old[0][0]), counts)
            if vector is not None:
                self._execute("DELETE FROM vectors_unreached WHERE rowid = (SELECT rowid FROM"
                              " memories WHERE id = %s)", (memory.id,))
                with self._lock, self._errors():
                    self._probe([memory.id])

    def delete(self, memory_id: str) -> None:
        with self.transaction():
            gone = self._rows("DELETE FROM memories WHERE id = %s RETURNING term_counts, rowid",
                              (memory_id,))
            if gone:
                self._count_terms(Counter(gone[0][0]), None)
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

    # --- keyword retrieval ------------------------------------------------------------

    def keyword_search(
        self, groups: list[tuple[str, ...]], mode: str, filters: Filters, limit: int
    ) -> list[Candidate]:
        """Matches of the tsquery, ranked in SQL by FTS5's BM25 from the stored term counts
        (a phrase alternative, rarer, is counted by reading the candidates' terms)."""
        joiner = {"and": " & ", "or": " | "}.get(mode.lower() if isinstance(mode, str) else "")
        if joiner is None:
            raise ValueError(f"keyword_search mode must be 'and' or 'or', not {mode!r}")
        phrases: list[str] = []
        parts = []
        for group in groups or ():
            alts = [a for a in dict.fromkeys(group or ()) if tsquery_term(a)]
            if not alts:
                continue
            phrases += [" ".join(a.split()) for a in alts]
            terms = [tsquery_term(a) for a in alts]
            parts.append(terms[0] if len(terms) == 1 else "(" + " | ".join(terms) + ")")
        if not parts:
            return []
        query = joiner.join(parts)
        phrases = list(dict.fromkeys(phrases))
        docs, average, df = self._statistics(phrases)
        idf = {}
        for phrase in phrases:
            # The counts come from statements a concurrent write may fall between: a
            # term can be counted in one more document than the corpus total just read.
            n = min(df[phrase], docs)
            value = math.log((docs - n + 0.5) / (n + 0.5))
            idf[phrase] = value if value > 0 else 1e-6  # FTS5's floor for common terms
        norm = f"{K1!r} * (1 - {B!r} + {B!r} * m.terms_len / %s)"
        terms_sql = " + ".join(
            f"%s * tf{i} * {K1 + 1!r} / NULLIF(tf{i} + {norm}, 0)" for i in range(len(phrases)))
        # A word's count is stored; a phrase ("snake case", from identifiers) is counted in
        # the candidate's terms, each occurrence between spaces, overlaps included.
        tfs = ", ".join(
            f"regexp_count(' ' || m.terms || ' ', %s)::float8 AS tf{i}" if " " in phrase
            else f"COALESCE((m.term_counts ->> %s)::float8, 0) AS tf{i}"
            for i, phrase in enumerate(phrases))
        tf_params = [phrase_pattern(p) if " " in p else p for p in phrases]
        where, params = where_clause(filters)
        score_params: list[Any] = []
        for phrase in phrases:
            score_params += [idf[phrase], average]

        def ranked(tsquery: str) -> list[tuple]:
            return self._rows(
                f"SELECT id, COALESCE({terms_sql}, 0) AS score FROM (SELECT m.id, m.rowid,"
                f" m.terms_len, {tfs} FROM memories m WHERE m.terms_tsv @@"
                f" to_tsquery('simple', %s) AND {where}) m ORDER BY score DESC, rowid LIMIT %s",
                (*score_params, *tf_params, tsquery, *params, limit))

        # Either of the query's words: scoring every memory with a common one ("deploy" in
        # 20K of 100K) took 200-400 ms. The rows with a rarer word are ranked first; a row
        # with only common words scores at most their idf x (k1 + 1) each, so once the
        # k-th score found beats that, no such row can enter the top k (exact, as WAND).
        common = {p for p in phrases if df[p] > max(COMMON_DF, docs // 100)} \
            if joiner == " | " else set()
        if common and len(common) < len(phrases):
            bound = sum(idf[p] * (K1 + 1) for p in common)
            rows = ranked(" | ".join(
                t for t in (tsquery_term(p) for p in phrases if p not in common) if t))
            if len(rows) == limit and rows[-1][1] is not None and float(rows[-1][1]) > bound:
                return [Candidate(r[0], float(r[1])) for r in rows]
        return [Candidate(r[0], float(r[1])) for r in ranked(query)]

    def _statistics(self, phrases: list[str]) -> tuple[int, float, dict[str, int]]:
        """(documents, average terms per document, df of each term or phrase)."""
        docs, total_terms = self._rows("SELECT docs, terms FROM corpus WHERE id = 1")[0]
        words = [p for p in phrases if " " not in p]
        df = dict(self._rows("SELECT term, df FROM term_df WHERE term = ANY(%s)", (words,))) \
            if words else {}
        for phrase in phrases:
            if " " in phrase:
                df[phrase] = self._rows(
                    "SELECT COUNT(*) FROM memories WHERE terms_tsv @@ to_tsquery('simple', %s)",
                    (tsquery_term(phrase),))[0][0]
        docs = max(int(docs), 1)
        return docs, max(total_terms / docs, 1e-9), {p: int(df.get(p, 0)) for p in phrases}

    def terms_of(self, memory_ids: Sequence[str]) -> dict[str, str]:
        ids = list(memory_ids)
        if not ids:
            return {}
        return dict(self._rows("SELECT id, terms FROM memories WHERE id = ANY(%s)", (ids,)))

    def document_frequency(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        docs, _average, df = self._statistics(list(dict.fromkeys(terms)))
        return docs, df

    # --- vectors ----------------------------------------------------------------------

    def _dimension(self) -> int | None:
        if self._dim is None:
            stored = self.get_meta("vector_dim")
            self._dim = int(stored) if stored else None
        return self._dim

    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, np.ndarray]:
        import numpy as np

        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}
        rows = self._rows("SELECT id, embedding FROM memories WHERE id = ANY(%s)"
                          " AND embedding IS NOT NULL", (ids,))
        return {r[0]: np.asarray(getattr(r[1], "to_numpy", lambda v=r[1]: v)(),
                                 dtype=np.float32) for r in rows}

    def _nearest(self, query: np.ndarray, where: str, params: list[Any], limit: int,
                 broad: bool = False) -> list[tuple[str, float]]:
        import numpy as np

        dim = self._dimension()
        if dim is None or dim != query.shape[0] or limit <= 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        cast = vector_cast(dim)  # the indexed expression, so the planner uses the HNSW index
        distance = f"(m.embedding::{cast} <=> %s::{cast})"
        # The rows no walk reaches (probe_sql), beside the walk: every copy of their vectors
        # scored, then their rows checked against the filters nearest first (a fence, so
        # the planner cannot join all of `memories` to them: 90 ms instead of 6 at 100K).
        exact = f"(m.embedding <=> %s::{cast})"
        with self._lock:
            self._usable()
            with self._errors():
                self._flush_inserts()
            rows = self._walk(
                f"SELECT m.id, {distance} AS d, m.rowid FROM memories m"
                f" WHERE m.embedding IS NOT NULL AND {where} ORDER BY {distance} LIMIT %s",
                f"SELECT m.id, u.d, m.rowid FROM (SELECT rowid, {exact} AS d FROM"
                " vectors_unreached m ORDER BY d) u CROSS JOIN LATERAL (SELECT m.id, m.rowid"
                " FROM memories m WHERE m.rowid = u.rowid AND m.embedding IS NOT NULL"
                f" AND {where} OFFSET 0) m ORDER BY u.d LIMIT %s",
                [q, *params, q, limit, q, *params, limit], limit, broad)
        return [(r[0], 1 - float(r[1])) for r in rows]

    def _walk(self, walk: str, unreached: str, params: list[Any], limit: int,
              broad: bool = False) -> list[tuple]:
        """The HNSW walk's nearest rows and the nearest of the rows it cannot reach, in one
        statement: the best `limit` of both, each row once."""
        with self._errors(), self._conn.transaction():
            self._conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
            self._conn.execute(f"SET LOCAL hnsw.ef_search = {ef_search(limit)}")
            if broad:
                # pgvector costs a walk by its ef_search: at 10K memories a walk of 1,000
                # looked dearer than scoring every active row (37-43 ms against ~8). With
                # no filter narrower than status and viewer, every other plan sorts.
                self._conn.execute("SET LOCAL enable_sort = off")
            rows = self._conn.execute(
                f"SELECT id, d FROM (({walk}) UNION ({unreached})) x ORDER BY d, rowid"
                " LIMIT %s", [*params, 2 * limit]).fetchall()
        seen: set[str] = set()
        return [r for r in rows if not (r[0] in seen or seen.add(r[0]))][:limit]

    def vector_search(self, query: np.ndarray, filters: Filters, limit: int) -> list[Candidate]:
        where, params = where_clause(filters)
        broad = replace(filters, statuses=(), viewer=None) == Filters(statuses=())
        return [Candidate(i, s) for i, s in self._nearest(query, where, params, limit, broad)]

    def nearest_in_project(
        self, queries: np.ndarray, projects: Sequence[str | None], min_score: float, limit: int
    ) -> list[list[Candidate]]:
        """For each query, active memories of exactly its project scoring ≥ min_score: one
        statement for the whole batch (an import's dedup asks for hundreds at once).

        Exact within the project, not the HNSW walk: a walk filtered to one project of
        many visits most of the graph before it finds ten of them, and dedup should not
        miss a twin. The batch is joined to the rows of its projects, so each row is read
        once per batch, not once per query of its project (2.5 times faster at 10K than a
        lateral scan per query), and only pairs reaching min_score are ranked.
        """
        import numpy as np
        from pgvector import HalfVector

        found: list[list[Candidate]] = [[] for _ in projects]
        dim = self._dimension()
        if dim is None or not len(queries) or dim != queries.shape[1] or limit <= 0:
            return found
        distance = "(m.embedding <=> q.v)"  # not the indexed expression: an exact scan
        vectors = [HalfVector(np.asarray(q, dtype=np.float16)) for q in queries]
        rows = self._rows(
            "SELECT i, id, score FROM (SELECT q.i, m.id, 1 - " + distance + " AS score,"
            f" row_number() OVER (PARTITION BY q.i ORDER BY {distance}, m.rowid) AS r"
            " FROM unnest(%s::halfvec[], %s::text[]) WITH ORDINALITY AS q(v, p, i)"
            " JOIN memories m ON COALESCE(m.project, '') = COALESCE(q.p, '')"  # '': none
            " WHERE m.embedding IS NOT NULL AND m.status = 'active'"
            f" AND 1 - {distance} >= %s) h WHERE r <= %s",
            (vectors, list(projects)[:len(vectors)], min_score, limit))
        for i, memory_id, score in rows:
            if score >= min_score:
                found[i - 1].append(Candidate(memory_id, float(score)))
        for hits in found:
            hits.sort(key=lambda c: -c.score)
        return found

    def clear_vectors(self) -> None:
        with self.transaction():
            self._execute("UPDATE memories SET embedding = NULL")
            self._execute("DELETE FROM vectors_unreached")
            self._execute("DROP INDEX IF EXISTS memories_embedding")
            self._execute("DELETE FROM meta WHERE key IN ('vector_dim', %s)", (REBUILD_KEY,))
            self._dim = None

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
