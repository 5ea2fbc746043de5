"""PostgreSQL schema, versioned in the `meta` table like SQLite's user_version.

Each migration moves a database from version N-1 to N inside one transaction; append new
ones, never edit a released one. Keywords are Engram's own analysed terms (the same
stemming and language handling as SQLite's), indexed with the `simple` configuration so
PostgreSQL adds no analysis of its own; vectors live in a pgvector `halfvec` column (float16,
as SQLite keeps them: half the disk, and rows small enough to stay out of TOAST) whose HNSW
index is created once the first vector tells the dimension.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .sql import MAX_HALFVEC_INDEX_DIM, vector_cast

SCHEMA_VERSION = 6

# HNSW graph quality. pgvector's default ef_construction (64) builds a graph whose walk
# misses near-tied neighbours: on the scale benchmark's 100K memories (clusters of close
# vectors) it found 57% of the exact top ten at ef_search 100 and 85% even at 1,000; with
# 200 it finds 87% at 100, 98% at 400 and all of them at 1,000. Inserts cost more graph
# work per row; recall is what a search is for.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
#: Memories with a vector up to which an index built with older parameters is rebuilt
#: when the store is first opened after the upgrade (the migration holds the schema lock
#: meanwhile: 100K took 141 s on 2 busy cores). A bigger store keeps its index until
#: `engram reindex`, which `engram doctor` asks for.
REBUILD_ON_OPEN = 100_000

_V1 = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE OR REPLACE FUNCTION engram_ts(value TEXT) RETURNS TIMESTAMPTZ
    LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN RETURN value::TIMESTAMPTZ; EXCEPTION WHEN others THEN RETURN NULL; END $$;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE memories (
    rowid BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    content TEXT NOT NULL,
    type TEXT NOT NULL,
    project TEXT,
    tags JSONB NOT NULL DEFAULT '[]',
    files JSONB NOT NULL DEFAULT '[]',
    problem TEXT,
    solution TEXT,
    importance DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    confidence DOUBLE PRECISION NOT NULL DEFAULT 0.8,
    provenance TEXT NOT NULL,
    pinned BOOLEAN NOT NULL DEFAULT FALSE,
    status TEXT NOT NULL DEFAULT 'active',
    supersedes TEXT,
    superseded_by TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    event_at TIMESTAMPTZ,
    expires_at TIMESTAMPTZ,
    access_count BIGINT NOT NULL DEFAULT 0,
    last_accessed_at TIMESTAMPTZ,
    meta JSONB NOT NULL DEFAULT '{}',
    norm TEXT NOT NULL,
    seq BIGINT NOT NULL,
    terms TEXT NOT NULL DEFAULT '',
    terms_tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED,
    terms_len INTEGER NOT NULL DEFAULT 0,
    term_counts JSONB NOT NULL DEFAULT '{}',
    embedding HALFVEC
);
CREATE INDEX memories_status ON memories(status);
CREATE INDEX memories_project ON memories(project);
CREATE INDEX memories_project_key ON memories((COALESCE(project, '')), status);
CREATE INDEX memories_norm ON memories(norm, project);
CREATE INDEX memories_seq ON memories(seq);
CREATE INDEX memories_created ON memories(created_at);
CREATE INDEX memories_terms ON memories USING GIN (terms_tsv);
CREATE TABLE corpus (id INTEGER PRIMARY KEY CHECK (id = 1), docs BIGINT NOT NULL,
                     terms BIGINT NOT NULL);
INSERT INTO corpus VALUES (1, 0, 0);
CREATE TABLE term_df (term TEXT PRIMARY KEY, df BIGINT NOT NULL);
CREATE TABLE recalls (
    id BIGSERIAL PRIMARY KEY,
    at TIMESTAMPTZ NOT NULL,
    caller TEXT NOT NULL,
    query TEXT NOT NULL,
    mode TEXT,
    ids JSONB NOT NULL,
    scores JSONB NOT NULL,
    elapsed_ms DOUBLE PRECISION
);
CREATE INDEX recalls_at ON recalls(at);
CREATE TABLE upkeep_runs (
    id BIGSERIAL PRIMARY KEY,
    trigger TEXT NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    seq BIGINT NOT NULL DEFAULT 0,
    report JSONB NOT NULL DEFAULT '{}'
)
"""

_V2 = """
CREATE TABLE users (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL
)
"""

_V3 = """
ALTER TABLE memories ADD COLUMN owner TEXT;
ALTER TABLE memories ADD COLUMN scope TEXT NOT NULL DEFAULT 'team';
UPDATE memories SET scope = 'personal' WHERE type = 'preference'
"""



_V5 = """
CREATE TABLE IF NOT EXISTS vectors_unreached (rowid BIGINT PRIMARY KEY,
                                              embedding HALFVEC NOT NULL)
"""

#: The walks that check a new vector can be found by its own value: a short one for every
#: new row (pgvector's default ef_search, ~0.4 ms at 100K), and a wider one for the rows it
#: missed (~1.2 ms each); a row neither finds is searched exactly (probe_sql).
PROBE_EF_SEARCH = (40, 200)
#: How many of a probe walk's nearest rows may hold the probed row (its exact twins first).
FOUND_AMONG = 10


def _found(query: str, rowid: str, cast: str) -> str:
    """SQL true when an HNSW walk from `query` (a vector column) finds row `rowid` among
    its nearest: the row itself, since a twin at distance 0 can be found where the row
    cannot (a row with more twins than the walk returns is flagged, and scanned exactly)."""
    distance = f"h.embedding::{cast} <=> {query}::{cast}"
    return (f"EXISTS (SELECT 1 FROM (SELECT h.rowid FROM memories h ORDER BY {distance}"
            f" LIMIT {FOUND_AMONG}) f WHERE f.rowid = {rowid})")


def probe_sql(dim: int) -> tuple[str, str]:
    """Two statements keeping `vectors_unreached`: the first records the rows of the
    given ids (its parameter) whose own vector an HNSW walk does not find, returning
    their rowids; the second (given those rowids) forgets the ones a wider walk finds.

    HNSW adds a new vector's edges to its neighbours only where it is among their best
    neighbours; a vector whose neighbours all hold closer ones already (a dense cluster
    it sits beside) gets no edge pointing to it, and no walk reaches it. Searches scan
    those rows exactly beside the walk, from a copy of their vectors (a compact table
    read in one pass; the rows' filters are then checked nearest first). Nothing is done
    while the index is missing (a bulk load builds it afterwards)."""
    cast = vector_cast(dim)
    flag = ("INSERT INTO vectors_unreached SELECT n.rowid, n.embedding FROM memories n"
            " WHERE to_regclass('memories_embedding') IS NOT NULL AND n.id = ANY(%s)"
            f" AND n.embedding IS NOT NULL AND NOT {_found('n.embedding', 'n.rowid', cast)}"
            " ON CONFLICT (rowid) DO UPDATE SET embedding = excluded.embedding"
            " RETURNING rowid")
    confirm = (f"DELETE FROM vectors_unreached u WHERE u.rowid = ANY(%s)"
               f" AND {_found('u.embedding', 'u.rowid', cast)}")
    return flag, confirm


def probe(cur: Any, dim: int, memory_ids: list[str]) -> None:
    """Run probe_sql's two walks for these rows, in the cursor's transaction."""
    if not memory_ids or dim > MAX_HALFVEC_INDEX_DIM:
        return
    flag, confirm = probe_sql(dim)
    short, wide = PROBE_EF_SEARCH
    cur.execute("SET LOCAL hnsw.iterative_scan = off")
    cur.execute(f"SET LOCAL hnsw.ef_search = {short}")
    missed = [r[0] for r in cur.execute(flag, (memory_ids,)).fetchall()]
    if missed:
        cur.execute(f"SET LOCAL hnsw.ef_search = {wide}")
        cur.execute(confirm, (missed,))


def probe_all(cur: Any, dim: int, batch: int = 5_000) -> None:
    """After the vector index was built: which rows its walks cannot reach (a build
    leaves some too), found again from scratch (~0.4 ms a row at 100K)."""
    cur.execute("DELETE FROM vectors_unreached")
    last = 0
    while True:
        rows = cur.execute("SELECT rowid, id FROM memories WHERE rowid > %s AND embedding IS"
                           " NOT NULL ORDER BY rowid LIMIT %s", (last, batch)).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        probe(cur, dim, [r[1] for r in rows])


#: Set in `meta` while the rows written before `vectors_unreached` existed wait for their
#: probe (probe_all), done by the next open without a deadline.
PROBE_KEY = "vectors_probe"


def _v5(cur: Any) -> None:
    cur.execute(_V5)
    cur.execute("SELECT to_regclass('memories_embedding') IS NOT NULL")
    if cur.fetchone()[0]:
        cur.execute("INSERT INTO meta(key, value) VALUES (%s, 'due') ON CONFLICT(key)"
                    " DO UPDATE SET value = excluded.value", (PROBE_KEY,))


def _probe_existing(cur: Any) -> None:
    """Probe the rows written before this schema (see _v5), in an opening process without
    a deadline, up to REBUILD_ON_OPEN vectors (~40 s at 100K); a bigger store's are probed
    as `engram reindex` writes them again."""
    cur.execute("SELECT current_setting('statement_timeout')")
    if cur.fetchone()[0] not in ("0", "0ms"):
        return
    cur.execute("SELECT (SELECT value FROM meta WHERE key = 'vector_dim'),"
                " (SELECT COUNT(embedding) FROM memories)")
    dim, vectors = cur.fetchone()
    if dim is not None and vectors <= REBUILD_ON_OPEN:
        probe_all(cur, int(dim))
    cur.execute("DELETE FROM meta WHERE key = %s", (PROBE_KEY,))


def hnsw_index_sql(dim: int) -> str:
    """The statement creating the vector index (cosine) for vectors of `dim`."""
    return (f"CREATE INDEX IF NOT EXISTS memories_embedding ON memories"
            f" USING hnsw ((embedding::{vector_cast(dim)}) halfvec_cosine_ops)"
            f" WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})")


def build_settings(cur: Any) -> None:
    """Settings for building the whole index at once, in this transaction: memory
    enough for the graph of 100K 384-dimension vectors (a smaller setting builds it
    slowly, writing the graph as it goes)."""
    cur.execute("SET LOCAL maintenance_work_mem = '512MB'")


def outdated_hnsw(cur: Any) -> str | None:
    """The definition of the vector index when it was built with a smaller graph than
    HNSW_M / HNSW_EF_CONSTRUCTION (pgvector's defaults, 16 and 64, when it names none)."""
    cur.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()"
                " AND tablename = 'memories' AND indexname = 'memories_embedding'")
    row = cur.fetchone()
    if row is None:
        return None
    definition = row[0]
    m = re.search(r"\bm\s*=\s*'?(\d+)", definition)
    ef = re.search(r"\bef_construction\s*=\s*'?(\d+)", definition)
    built = (int(m.group(1)) if m else 16, int(ef.group(1)) if ef else 64)
    if built[0] < HNSW_M or built[1] < HNSW_EF_CONSTRUCTION:
        return definition
    return None


#: Set in `meta` while the vector index waits for its rebuild: "due" (the next open
#: without a deadline does it) or "reindex" (too big to rebuild on open).
REBUILD_KEY = "vector_index_rebuild"


def _v4(cur: Any) -> None:
    """Mark a vector index built with the old graph parameters (ef_construction 64:
    recall@10 0.85 at 100K where 200 finds them all) for its rebuild (see _rebuild)."""
    if outdated_hnsw(cur) is not None:
        cur.execute("INSERT INTO meta(key, value) VALUES (%s, 'due') ON CONFLICT(key)"
                    " DO UPDATE SET value = excluded.value", (REBUILD_KEY,))


def _rebuild(cur: Any) -> None:
    """Rebuild the marked vector index with the current parameters, in the opening
    process, unless that process has a deadline (a hook's open must not become a build:
    the next command, server or `engram reindex` does it) or the store holds more than
    REBUILD_ON_OPEN vectors (then only `engram reindex` does; doctor asks for it)."""
    cur.execute("SELECT current_setting('statement_timeout')")
    if cur.fetchone()[0] not in ("0", "0ms"):
        return
    if outdated_hnsw(cur) is None:
        cur.execute("DELETE FROM meta WHERE key = %s", (REBUILD_KEY,))
        return
    cur.execute("SELECT (SELECT value FROM meta WHERE key = 'vector_dim'),"
                " (SELECT COUNT(embedding) FROM memories)")
    dim, vectors = cur.fetchone()
    if dim is None or vectors > REBUILD_ON_OPEN:
        cur.execute("UPDATE meta SET value = 'reindex' WHERE key = %s", (REBUILD_KEY,))
        return
    build_settings(cur)
    cur.execute("DROP INDEX memories_embedding")
    cur.execute(hnsw_index_sql(int(dim)))
    probe_all(cur, int(dim))
    cur.execute("DELETE FROM meta WHERE key IN (%s, %s)", (REBUILD_KEY, PROBE_KEY))


#: The document frequency of the phrases searches asked for (a phrase alternative of an
#: identifier, "fast api" of FastAPI), which counting with the index costs a heap recheck
#: of every row holding all its words. `query` is the phrase's tsquery, a chain of one
#: lexeme per word; `pair` its first two lexemes, which a matching row holds at adjacent
#: positions (the write path finds registered phrases by the rows' adjacent pairs,
#: keywords.py). `id` orders them for eviction. Empty on upgrade: a phrase is counted once,
#: when first asked.
_V6 = """
CREATE TABLE IF NOT EXISTS phrase_df (id BIGSERIAL NOT NULL, phrase TEXT PRIMARY KEY,
                                      pair TEXT NOT NULL, query TSQUERY NOT NULL,
                                      df BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS phrase_df_pair ON phrase_df (pair);
CREATE INDEX IF NOT EXISTS phrase_df_id ON phrase_df (id)
"""


MIGRATIONS: list[Callable[[Any], None]] = [
    lambda cur: cur.execute(_V1),
    lambda cur: cur.execute(_V2),  # users of a shared server
    lambda cur: cur.execute(_V3),  # owners and scopes
    _v4,  # an index with the old graph parameters marked for its rebuild
    _v5,  # rows the HNSW walk cannot reach, searched exactly
    lambda cur: cur.execute(_V6),  # the df of phrases searches asked for, kept by writes
]

#: Serialises schema creation and upgrades between processes opening one database at once.
_MIGRATION_LOCK = 0x656E6772  # "engr"


def migrate(conn: Any) -> int | None:
    """Bring the database to SCHEMA_VERSION (and rebuild a vector index marked for it,
    see _rebuild, or probe the rows written before v5, see _probe_existing); the version
    it had, when it had to move."""
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        cur.execute("SELECT to_regclass('meta') IS NOT NULL")
        version, found = 0, {}
        if cur.fetchone()[0]:
            cur.execute("SELECT key, value FROM meta WHERE key IN ('schema_version', %s, %s)",
                        (REBUILD_KEY, PROBE_KEY))
            found = dict(cur.fetchall())
            version = int(found.get("schema_version", 0))
        if version > SCHEMA_VERSION:
            from ...errors import StoreError

            raise StoreError(f"this database was written by a newer Engram (schema v{version});"
                             " upgrade engram")
        if version < SCHEMA_VERSION:
            for step in MIGRATIONS[version:]:
                step(cur)
            cur.execute(
                "INSERT INTO meta(key, value) VALUES ('schema_version', %s)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(SCHEMA_VERSION),))
            cur.execute("SELECT key, value FROM meta WHERE key IN (%s, %s)",
                        (REBUILD_KEY, PROBE_KEY))
            found = dict(cur.fetchall())
        if found.get(REBUILD_KEY) == "due":
            _rebuild(cur)
        elif found.get(PROBE_KEY) == "due":
            _probe_existing(cur)
    return version if version < SCHEMA_VERSION else None
