"""PostgreSQL + pgvector: the store for teams and for stores that outgrow a laptop.

Same contract as the SQLite store (base.py), so the service cannot tell them apart:

- Writes are serialised per database by a transaction-level advisory lock, as SQLite's
  BEGIN IMMEDIATE serialises them per file: many processes and servers share one
  database, and change numbers (`seq`) stay gap-free and ordered.
- Keywords: the service's analysed terms are stored and indexed with the `simple`
  configuration (no second analysis), matched with a tsquery, and ranked in Python by the
  BM25 formula FTS5 uses (k1 = 1.2, b = 0.75, its idf floor), with corpus statistics kept
  in the `corpus` row on every write, so both engines rank alike.
- Vectors: a pgvector column with an HNSW index (cosine) created when the first vector
  gives the dimension; filtered searches scan the index iteratively until enough rows
  pass the filters.
- Every psycopg error leaves this module as an Engram error; the password of a URL never
  appears in `path`, errors or stats.
"""

from __future__ import annotations

import json
import math
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import StoreError, StoreUnavailableError
from ..model import Memory, stored_memory, stored_meta, stored_strings
from ..text import normalize_for_dedup
from .base import Candidate, Filters
from .ledger import LedgerMethods
from .postgres_ledger import Ledger
from .postgres_schema import SCHEMA_VERSION, migrate

if TYPE_CHECKING:
    import numpy as np

_COLUMNS = (
    "id, content, type, project, tags, files, problem, solution, importance, confidence,"
    " provenance, pinned, status, supersedes, superseded_by, created_at, updated_at,"
    " event_at, expires_at, access_count, last_accessed_at, meta"
)
_M_COLUMNS = ", ".join("m." + c.strip() for c in _COLUMNS.split(","))
_WRITE_LOCK = 0x656E6777  # "engw": one writer at a time per database
K1, B = 1.2, 0.75
#: Keyword matches ranked per search: FTS5 ranks every match; past this many the ones
#: PostgreSQL's own ts_rank puts first are ranked (common words in a huge store).
MAX_RANKED = 20_000
MAX_VECTOR_INDEX_DIM = 2_000
MAX_HALFVEC_INDEX_DIM = 4_000


def redacted_url(url: str) -> str:
    """The URL without its password, for messages and `stats`."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


#: SQLSTATE classes of a condition that passes: connection lost or refused, out of disk or
#: connections, a statement cancelled (a deadline) or the server shutting down, a lock not
#: granted in time, a serialisation failure worth retrying.
_PASSING = ("08", "53", "57", "40", "55P03")


def _translate(exc: Exception, url: str) -> StoreError:
    import psycopg

    message = str(exc).replace(url, redacted_url(url)).strip().splitlines()[0:1]
    text = message[0] if message else type(exc).__name__
    state = getattr(exc, "sqlstate", None)
    passing = state.startswith(_PASSING) if state else isinstance(exc, psycopg.OperationalError)
    if passing:
        return StoreUnavailableError(f"PostgreSQL unavailable: {text}")
    return StoreError(f"PostgreSQL error: {text}")


def _row_to_memory(row: Sequence[Any]) -> Memory:
    return stored_memory((
        *row[:4],
        stored_strings(json.dumps(row[4])),
        stored_strings(json.dumps(row[5])),
        *row[6:11],
        bool(row[11]),
        *row[12:21],
        stored_meta(json.dumps(row[21])),
    ))


def _where(filters: Filters, alias: str = "m") -> tuple[str, list[Any]]:
    """Filters as SQL; every value a bound parameter (the same meaning as SQLite's)."""
    a = alias
    clauses: list[str] = []
    params: list[Any] = []
    if filters.statuses:
        clauses.append(f"{a}.status = ANY(%s)")
        params.append(list(filters.statuses))
    if filters.project is not None:
        clauses.append(f"({a}.project = %s OR {a}.project IS NULL)" if filters.include_global
                       else f"{a}.project = %s")
        params.append(filters.project)
    if filters.types:
        clauses.append(f"{a}.type = ANY(%s)")
        params.append(list(filters.types))
    if filters.provenances:
        clauses.append(f"{a}.provenance = ANY(%s)")
        params.append(list(filters.provenances))
    if filters.pinned is not None:
        clauses.append(f"{a}.pinned = %s")
        params.append(bool(filters.pinned))
    for tag in filters.tags:
        clauses.append(f"{a}.tags ? %s")
        params.append(tag)
    if filters.files:
        ors = []
        for path in filters.files:
            ors.append("v = %s OR v LIKE %s ESCAPE '\\' OR %s LIKE '%%/' || v")
            like = "%/" + path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.extend([path, like, path])
        clauses.append(f"EXISTS (SELECT 1 FROM jsonb_array_elements_text({a}.files) v"
                       f" WHERE {' OR '.join(ors)})")
    if filters.since is not None:
        clauses.append(f"COALESCE({a}.event_at, {a}.created_at) >= %s")
        params.append(filters.since)
    if filters.until is not None:
        clauses.append(f"COALESCE({a}.event_at, {a}.created_at) < %s")
        params.append(filters.until)
    if filters.ids is not None:
        clauses.append(f"{a}.id = ANY(%s)")
        params.append(list(filters.ids))
    return (" AND ".join(clauses) or "TRUE"), params


def _cast(dim: int) -> str:
    """How vectors of this dimension are indexed: pgvector's HNSW takes `vector` up to
    2,000 dimensions and `halfvec` up to 4,000 (OpenAI's 3,072-dimension models); beyond
    that searches are exact scans of `vector`."""
    if MAX_VECTOR_INDEX_DIM < dim <= MAX_HALFVEC_INDEX_DIM:
        return f"halfvec({dim})"
    return f"vector({dim})"


def _tsquery_term(alternative: str) -> str | None:
    words = [w for w in alternative.split() if w]
    if not words:
        return None
    quoted = ["'" + w.replace("\\", "\\\\").replace("'", "''") + "'" for w in words]
    return " <-> ".join(quoted) if len(quoted) > 1 else quoted[0]


def _occurrences(tokens: list[str], phrase: list[str]) -> int:
    if len(phrase) == 1:
        return tokens.count(phrase[0])
    n = len(phrase)
    return sum(1 for i in range(len(tokens) - n + 1) if tokens[i:i + n] == phrase)


class PostgresStore(LedgerMethods):
    """Implements the Store protocol on a PostgreSQL database with pgvector."""

    ephemeral = False

    def __init__(self, url: str, *, deadline: float | None = None) -> None:
        try:
            import psycopg
        except ImportError:
            raise StoreError("PostgreSQL needs its extra: pip install 'engram[postgres]'"
                             ) from None
        from .connection import current_deadline

        self._url = url
        self.path = redacted_url(url)
        self._deadline = deadline if deadline is not None else current_deadline()
        try:
            self._conn = psycopg.connect(url, autocommit=True,
                                         connect_timeout=self._connect_timeout())
        except psycopg.Error as exc:
            raise _translate(exc, url) from None
        self._lock = threading.RLock()
        self._depth = 0
        self._dim: int | None = None
        try:
            self._apply_deadline()
            self.upgraded_from = migrate(self._conn)
            self._register_vectors()
        except psycopg.Error as exc:
            self._conn.close()
            raise _translate(exc, url) from None
        self._ledger = Ledger(self)

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
            raise StoreError("PostgreSQL needs its extra: pip install 'engram[postgres]'"
                             ) from None
        register_vector(self._conn)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        import psycopg

        try:
            yield
        except psycopg.Error as exc:
            raise _translate(exc, self._url) from None

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        with self._lock, self._errors():
            return self._conn.execute(sql, params)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock, self._errors():
            return self._conn.execute(sql, params).fetchall()

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
            with self._errors():
                tx = self._conn.transaction()
                tx.__enter__()
                try:
                    self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_WRITE_LOCK,))
                except BaseException as exc:
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                    raise
            self._depth = 1
            try:
                yield
            except BaseException as exc:
                self._depth = 0
                with self._errors():
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                raise
            self._depth = 0
            with self._errors():
                tx.__exit__(None, None, None)

    def _next_seq(self) -> int:
        return self._rows("SELECT COALESCE(MAX(seq), 0) + 1 FROM memories")[0][0]

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
            normalize_for_dedup(memory.content),
        )

    def _vector(self, vector: np.ndarray) -> Any:
        import numpy as np

        dim = int(vector.shape[0])
        if self._dim is None:
            stored = self.get_meta("vector_dim")
            self._dim = int(stored) if stored else None
        if self._dim is None:
            # The first vector fixes the dimension and its HNSW index (cosine).
            cast = _cast(dim)
            if dim <= MAX_HALFVEC_INDEX_DIM:
                ops = "halfvec_cosine_ops" if cast.startswith("halfvec") else "vector_cosine_ops"
                self._execute(f"CREATE INDEX IF NOT EXISTS memories_embedding ON memories"
                              f" USING hnsw ((embedding::{cast}) {ops})")
            self._execute("INSERT INTO meta(key, value) VALUES ('vector_dim', %s)"
                          " ON CONFLICT(key) DO NOTHING", (str(dim),))
            self._dim = int(self.get_meta("vector_dim") or dim)
        return np.asarray(vector, dtype=np.float32)

    def _count_terms(self, old: int, new: int, docs: int) -> None:
        self._execute("UPDATE corpus SET docs = docs + %s, terms = terms + %s WHERE id = 1",
                      (docs, new - old))

    def insert(self, memory: Memory, terms: str, vector: np.ndarray | None) -> None:
        with self.transaction():
            length = len(terms.split())
            self._execute(
                f"INSERT INTO memories ({_COLUMNS}, norm, seq, terms, terms_len, embedding)"
                f" VALUES ({', '.join(['%s'] * 23)}, %s, %s, %s, %s)",
                (*self._values(memory), self._next_seq(), terms, length,
                 None if vector is None else self._vector(vector)),
            )
            self._count_terms(0, length, 1)

    def update(
        self, memory: Memory, terms: str | None = None, vector: np.ndarray | None = None
    ) -> None:
        names = [c.strip() for c in _COLUMNS.split(",")[1:]] + ["norm"]
        assignments = ", ".join(f"{c} = %s" for c in names)
        with self.transaction():
            values = self._values(memory)
            extra, params = "", []
            if terms is not None:
                extra += ", terms = %s, terms_len = %s"
                params += [terms, len(terms.split())]
            if vector is not None:
                extra += ", embedding = %s"
                params.append(self._vector(vector))
            old = self._rows("SELECT terms_len FROM memories WHERE id = %s FOR UPDATE",
                             (memory.id,))
            if not old:
                raise StoreError(f"no memory with id {memory.id!r} to update")
            self._execute(
                f"UPDATE memories SET {assignments}, seq = %s{extra} WHERE id = %s",
                (*values[1:], self._next_seq(), *params, memory.id),
            )
            if terms is not None:
                self._count_terms(old[0][0], len(terms.split()), 0)

    def delete(self, memory_id: str) -> None:
        with self.transaction():
            gone = self._rows("DELETE FROM memories WHERE id = %s RETURNING terms_len",
                              (memory_id,))
            if gone:
                self._count_terms(gone[0][0], 0, -1)

    def get(self, memory_id: str) -> Memory | None:
        rows = self._rows(f"SELECT {_COLUMNS} FROM memories WHERE id = %s", (memory_id,))
        return _row_to_memory(rows[0]) if rows else None

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}
        rows = self._rows(f"SELECT {_COLUMNS} FROM memories WHERE id = ANY(%s)", (ids,))
        return {row[0]: _row_to_memory(row) for row in rows}

    def resolve_prefix(self, prefix: str, limit: int = 2) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._rows("SELECT id FROM memories WHERE id LIKE %s ESCAPE '\\' LIMIT %s",
                          (escaped + "%", limit))
        return [r[0] for r in rows]

    def find_by_norm(self, norm: str, project: str | None) -> Memory | None:
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM memories WHERE norm = %s AND project IS NOT DISTINCT"
            " FROM %s AND status = 'active' ORDER BY created_at, rowid LIMIT 1", (norm, project))
        return _row_to_memory(rows[0]) if rows else None

    def list(
        self, filters: Filters, limit: int = 50, offset: int = 0, order: str = "newest"
    ) -> list[Memory]:
        where, params = _where(filters)
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
        return [_row_to_memory(r) for r in rows]

    def count(self, filters: Filters) -> int:
        where, params = _where(filters)
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
                yield _row_to_memory(row[1:])

    # --- keyword retrieval ------------------------------------------------------------

    def keyword_search(
        self, groups: list[tuple[str, ...]], mode: str, filters: Filters, limit: int
    ) -> list[Candidate]:
        joiner = {"and": " & ", "or": " | "}.get(mode.lower() if isinstance(mode, str) else "")
        if joiner is None:
            raise ValueError(f"keyword_search mode must be 'and' or 'or', not {mode!r}")
        phrases: list[list[str]] = []
        parts = []
        for group in groups or ():
            alts = [a for a in dict.fromkeys(group or ()) if _tsquery_term(a)]
            if not alts:
                continue
            phrases += [a.split() for a in alts]
            terms = [_tsquery_term(a) for a in alts]
            parts.append(terms[0] if len(terms) == 1 else "(" + " | ".join(terms) + ")")
        if not parts:
            return []
        query = joiner.join(parts)
        where, params = _where(filters)
        rows = self._rows(
            "SELECT m.id, m.terms, m.rowid FROM memories m"
            f" WHERE m.terms_tsv @@ to_tsquery('simple', %s) AND {where}"
            " ORDER BY ts_rank(m.terms_tsv, to_tsquery('simple', %s)) DESC, m.rowid"
            " LIMIT %s", (query, *params, query, MAX_RANKED))
        if not rows:
            return []
        docs, total_terms = self._rows("SELECT docs, terms FROM corpus WHERE id = 1")[0]
        docs = max(int(docs), 1)
        average = max(total_terms / docs, 1e-9)
        idf = {}
        for phrase in phrases:
            key = " ".join(phrase)
            if key not in idf:
                df = self._phrase_frequency(phrase)
                value = math.log((docs - df + 0.5) / (df + 0.5))
                idf[key] = value if value > 0 else 1e-6  # FTS5's floor for common terms
        scored = []
        for memory_id, terms, rowid in rows:
            tokens = terms.split()
            norm = K1 * (1 - B + B * len(tokens) / average)
            score = 0.0
            for phrase in phrases:
                tf = _occurrences(tokens, phrase)
                if tf:
                    score += idf[" ".join(phrase)] * tf * (K1 + 1) / (tf + norm)
            scored.append((score, rowid, memory_id))
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [Candidate(memory_id, score) for score, _rowid, memory_id in scored[:limit]]

    def _phrase_frequency(self, phrase: list[str]) -> int:
        term = _tsquery_term(" ".join(phrase))
        return self._rows("SELECT COUNT(*) FROM memories WHERE terms_tsv @@"
                          " to_tsquery('simple', %s)", (term,))[0][0]

    def terms_of(self, memory_ids: Sequence[str]) -> dict[str, str]:
        ids = list(memory_ids)
        if not ids:
            return {}
        return dict(self._rows("SELECT id, terms FROM memories WHERE id = ANY(%s)", (ids,)))

    def document_frequency(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        total = self._rows("SELECT docs FROM corpus WHERE id = 1")[0][0]
        return int(total), {t: self._phrase_frequency([t]) for t in dict.fromkeys(terms)}

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

    def _nearest(self, query: np.ndarray, where: str, params: list[Any], limit: int
                 ) -> list[tuple[str, float]]:
        import numpy as np

        dim = self._dimension()
        if dim is None or dim != query.shape[0] or limit <= 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        cast = _cast(dim)  # the indexed expression, so the planner uses the HNSW index
        distance = f"(m.embedding::{cast} <=> %s::vector::{cast})"
        with self._lock, self._errors(), self._conn.transaction():
            self._conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
            self._conn.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(limit, 1000))}")
            rows = self._conn.execute(
                f"SELECT m.id, 1 - {distance} FROM memories m"
                f" WHERE m.embedding IS NOT NULL AND {where}"
                f" ORDER BY {distance} LIMIT %s", (q, *params, q, limit)).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def vector_search(self, query: np.ndarray, filters: Filters, limit: int) -> list[Candidate]:
        where, params = _where(filters)
        return [Candidate(i, s) for i, s in self._nearest(query, where, params, limit)]

    def nearest_in_project(
        self, queries: np.ndarray, projects: Sequence[str | None], min_score: float, limit: int
    ) -> list[list[Candidate]]:
        found = []
        for query, project in zip(queries, projects, strict=False):
            hits = self._nearest(query, "m.status = 'active' AND m.project IS NOT DISTINCT"
                                 " FROM %s", [project], limit)
            found.append([Candidate(i, s) for i, s in hits if s >= min_score])
        return found + [[] for _ in range(len(projects) - len(found))]

    def clear_vectors(self) -> None:
        with self.transaction():
            self._execute("UPDATE memories SET embedding = NULL")
            self._execute("DROP INDEX IF EXISTS memories_embedding")
            self._execute("DELETE FROM meta WHERE key = 'vector_dim'")
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
        return {
            "path": self.path, "schema_version": SCHEMA_VERSION, "total": total,
            "vectors": vectors, "by_status": grouped("status"), "by_type": grouped("type"),
            "active_by_type": dict(active), "by_project": grouped("project"),
            "by_provenance": grouped("provenance"), "pinned": pinned, "size_bytes": size,
        }
