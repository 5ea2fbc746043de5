"""The PostgreSQL store's vector half: pgvector's HNSW walk, and the rows it cannot reach.

The first vector fixes the dimension and creates the HNSW index (cosine). A search walks
the index iteratively until enough rows pass the filters, and scores beside the walk the
rows a walk was found not to reach (each new vector is probed as it is written), so a
filtered search does not miss them. Dedup's nearest neighbours are an exact scan within
a project. `PostgresStore` inherits these methods (store.py holds the connection,
`_rows`/`_execute`, `_errors` and the transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..base import Candidate, Filters
from .schema import REBUILD_KEY, hnsw_index_sql, probe, probe_all
from .sql import MAX_HALFVEC_INDEX_DIM, vector_cast, where_clause

if TYPE_CHECKING:
    import numpy as np


def ef_search(limit: int) -> int:
    """Candidates an HNSW walk keeps for a search asking `limit` rows: ten per row asked,
    at least 500 (recall@10 ≥ 0.98 at 100K), at most pgvector's 1,000."""
    return max(500, min(10 * limit, 1000))


class VectorMethods:
    """Vector search, dedup's nearest neighbours, the vector column's dimension and index,
    and the probe for rows the walk cannot reach."""

    _dim: int | None

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
