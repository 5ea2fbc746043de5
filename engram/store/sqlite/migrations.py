"""SQLite schema, versioned with PRAGMA user_version.

Each migration moves a store from version N-1 to N inside one transaction, so a store
written by any earlier Engram opens and upgrades in place, and a failed upgrade leaves
the file as it was. Append new migrations; never edit a released one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import suppress

from ...errors import StoreError


def _run(db: sqlite3.Connection, script: str) -> None:
    """Run statements one by one: executescript() would COMMIT our open transaction."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _v1(db: sqlite3.Connection) -> None:
    """The first release: memories, their keywords, and store metadata."""
    _run(
        db,
        """
        CREATE TABLE memories (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            content TEXT NOT NULL,
            type TEXT NOT NULL,
            project TEXT,
            tags TEXT NOT NULL DEFAULT '[]',
            files TEXT NOT NULL DEFAULT '[]',
            problem TEXT,
            solution TEXT,
            importance REAL NOT NULL DEFAULT 0.5,
            confidence REAL NOT NULL DEFAULT 0.8,
            provenance TEXT NOT NULL DEFAULT 'agent',
            pinned INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'active',
            supersedes TEXT,
            superseded_by TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            event_at TEXT,
            expires_at TEXT,
            norm TEXT NOT NULL
        );
        CREATE INDEX memories_status_project ON memories(status, project);
        CREATE INDEX memories_norm ON memories(norm);
        CREATE INDEX memories_created ON memories(created_at);
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            terms, tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        """
    )


def _v2(db: sqlite3.Connection) -> None:
    """Vectors, access statistics, free-form metadata, and a change sequence.

    `seq` grows with every write so that a process holding vectors in memory can pick
    up other processes' changes incrementally instead of reloading everything.
    """
    _run(
        db,
        """
        ALTER TABLE memories ADD COLUMN access_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE memories ADD COLUMN last_accessed_at TEXT;
        ALTER TABLE memories ADD COLUMN meta TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE memories ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
        UPDATE memories SET seq = rowid;
        CREATE INDEX memories_seq ON memories(seq);
        CREATE INDEX memories_supersedes ON memories(supersedes);
        CREATE TABLE vectors (rowid INTEGER PRIMARY KEY, vec BLOB NOT NULL);
        """
    )


def _v3(db: sqlite3.Connection) -> None:
    """The lifecycle: a recall audit log and a record of automatic upkeep runs.

    `recalls` answers "what did my agents get told, and when" (query redacted, never
    read by ranking); `upkeep_runs` says when consolidation and GC last ran, and
    doubles as a lease so that two processes never run upkeep at once.
    """
    _run(
        db,
        """
        CREATE TABLE recalls (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            caller TEXT NOT NULL,
            query TEXT NOT NULL,
            mode TEXT,
            ids TEXT NOT NULL DEFAULT '[]',
            scores TEXT NOT NULL DEFAULT '[]',
            elapsed_ms REAL
        );
        CREATE INDEX recalls_at ON recalls(at);
        CREATE TABLE upkeep_runs (
            id INTEGER PRIMARY KEY,
            trigger TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            seq INTEGER NOT NULL DEFAULT 0,
            report TEXT NOT NULL DEFAULT '{}'
        );
        """
    )


def _v4(db: sqlite3.Connection) -> None:
    """Users of a shared server: a name, a role, and the SHA-256 of their token (the token
    itself is shown once, when it is made, and never stored)."""
    _run(
        db,
        """
        CREATE TABLE users (
            name TEXT PRIMARY KEY,
            role TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );
        """
    )


def _v5(db: sqlite3.Connection) -> None:
    """Owners and scopes: who saved a memory on a shared server, and whether it is the
    team's or theirs alone. Preferences saved before are personal, as new ones are."""
    _run(
        db,
        """
        ALTER TABLE memories ADD COLUMN owner TEXT;
        ALTER TABLE memories ADD COLUMN scope TEXT NOT NULL DEFAULT 'team';
        UPDATE memories SET scope = 'personal' WHERE type = 'preference';
        """
    )


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2, _v3, _v4, _v5]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the schema to `target`; returns the version found before upgrading."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise StoreError(
            f"this store has schema version {found}, newer than this Engram understands "
            f"({SCHEMA_VERSION}); upgrade Engram"
        )
    for version in range(found + 1, target + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have upgraded while we waited for the lock.
            if db.execute("PRAGMA user_version").fetchone()[0] >= version:
                db.execute("COMMIT")
                continue
            MIGRATIONS[version - 1](db)
            db.execute(f"PRAGMA user_version = {version}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # a full disk or an interrupt may have ended it already
                with suppress(StoreError):
                    db.execute("ROLLBACK")
            raise
    return found
