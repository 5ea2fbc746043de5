"""PostgreSQL schema, versioned in the `meta` table like SQLite's user_version.

Each migration moves a database from version N-1 to N inside one transaction; append new
ones, never edit a released one. Keywords are Engram's own analysed terms (the same
stemming and language handling as SQLite's), indexed with the `simple` configuration so
PostgreSQL adds no analysis of its own; vectors live in a pgvector `halfvec` column (float16,
as SQLite keeps them: half the disk, and rows small enough to stay out of TOAST) whose HNSW
index is created once the first vector tells the dimension.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SCHEMA_VERSION = 3

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

MIGRATIONS: list[Callable[[Any], None]] = [
    lambda cur: cur.execute(_V1),
    lambda cur: cur.execute(_V2),  # users of a shared server
    lambda cur: cur.execute(_V3),  # owners and scopes
]

#: Serialises schema creation and upgrades between processes opening one database at once.
_MIGRATION_LOCK = 0x656E6772  # "engr"


def migrate(conn: Any) -> int | None:
    """Bring the database to SCHEMA_VERSION; the version it had, when it had to move."""
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        cur.execute("SELECT to_regclass('meta') IS NOT NULL")
        version = 0
        if cur.fetchone()[0]:
            cur.execute("SELECT value FROM meta WHERE key = 'schema_version'")
            row = cur.fetchone()
            version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            from ...errors import StoreError

            raise StoreError(f"this database was written by a newer Engram (schema v{version});"
                             " upgrade engram")
        if version == SCHEMA_VERSION:
            return None
        for step in MIGRATIONS[version:]:
            step(cur)
        cur.execute(
            "INSERT INTO meta(key, value) VALUES ('schema_version', %s)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))
    return version
