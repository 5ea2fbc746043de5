"""The PostgreSQL store's bookkeeping: change numbers, the recall log, upkeep runs and the
aggregate counts the lifecycle reports — the same answers as sqlite/ledger.py, in
PostgreSQL's dialect. Every rule arrives as an argument; this module only counts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..base import CensusRow, RecallEntry

if TYPE_CHECKING:
    from .store import PostgresStore


def _iso(value: datetime | None) -> str | None:
    from ...model import to_iso

    return to_iso(value)


class Ledger:
    def __init__(self, store: PostgresStore) -> None:
        self._store = store

    # --- change numbers ---------------------------------------------------------------------

    def last_change(self) -> int:
        return self._store._rows("SELECT COALESCE(MAX(seq), 0) FROM memories")[0][0]

    def changes_since(self, seq: int) -> int:
        return self._store._rows("SELECT COUNT(*) FROM memories WHERE seq > %s", (seq,))[0][0]

    def duplicate_groups(self) -> list[list[str]]:
        rows = self._store._rows(
            "SELECT array_agg(id ORDER BY created_at, rowid) FROM memories"
            " WHERE status = 'active' GROUP BY norm, project HAVING COUNT(*) > 1")
        return [list(r[0]) for r in rows]

    # --- counts for `engram stats` ------------------------------------------------------------

    def decay_census(
        self, now: datetime, half_life_days: Mapping[str, float],
        thresholds: Sequence[float], protected_types: Sequence[str],
        protected_importance: float,
    ) -> list[CensusRow]:
        cases = " ".join(f"WHEN idle <= {math.log2(1 / x)!r} * h THEN {i}"
                         for i, x in enumerate(thresholds))
        sql = f"""
            WITH active AS (
                SELECT type, expires_at,
                    (%s::jsonb ->> type)::double precision * (0.5 + importance) AS h,
                    EXTRACT(EPOCH FROM (%s::timestamptz - GREATEST(
                        COALESCE(event_at, created_at), last_accessed_at,
                        engram_ts(meta ->> 'confirmed_at')))) / 86400.0 AS idle,
                    meta ? 'stale' AS stale,
                    meta ? 'consolidated_from' AS merged,
                    (pinned OR type = ANY(%s) OR importance >= %s
                     OR meta ? 'archived_by') AS protected
                FROM memories WHERE status = 'active'
            )
            SELECT type,
                CASE WHEN h IS NULL THEN NULL {cases} ELSE {len(thresholds)} END,
                COUNT(*), COUNT(*) FILTER (WHERE expires_at IS NOT NULL AND expires_at <= %s),
                COUNT(*) FILTER (WHERE stale), COUNT(*) FILTER (WHERE merged),
                COUNT(*) FILTER (WHERE protected)
            FROM active GROUP BY 1, 2
        """
        import json

        rows = self._store._rows(sql, (json.dumps(dict(half_life_days)), now,
                                       list(protected_types), protected_importance, now))
        return [CensusRow(*row) for row in rows]

    def archive_reasons(self) -> dict[str | None, int]:
        rows = self._store._rows(
            "SELECT COALESCE(meta ->> 'archived_by', CASE WHEN meta ? 'consolidated_into'"
            " THEN 'consolidation' END), COUNT(*) FROM memories WHERE status = 'archived'"
            " GROUP BY 1")
        return dict(rows)

    # --- the recall log -----------------------------------------------------------------------

    def log_recall(self, entry: RecallEntry, prune_before: datetime | None) -> None:
        from psycopg.types.json import Jsonb

        store = self._store
        with store.transaction():
            store._execute(
                "INSERT INTO recalls (at, caller, query, mode, ids, scores, elapsed_ms)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (entry.at, entry.caller, entry.query, entry.mode, Jsonb(list(entry.ids)),
                 Jsonb([round(float(s), 6) for s in entry.scores]), entry.elapsed_ms))
            if prune_before is not None:
                store._execute("DELETE FROM recalls WHERE at < %s", (prune_before,))

    def prune_recalls(self, before: datetime) -> int:
        with self._store.transaction():
            return self._store._execute("DELETE FROM recalls WHERE at < %s", (before,)).rowcount

    def recalls(self, since: datetime | None, caller: str | None, limit: int
                ) -> list[dict[str, Any]]:
        clauses, params = [], []
        if since is not None:
            clauses.append("at >= %s")
            params.append(since)
        if caller is not None:
            clauses.append("caller = %s")
            params.append(caller)
        where = " AND ".join(clauses) or "TRUE"
        rows = self._store._rows(
            "SELECT id, at, caller, query, mode, ids, scores, elapsed_ms FROM recalls"
            f" WHERE {where} ORDER BY at DESC, id DESC LIMIT %s", (*params, limit))
        return [{"id": r[0], "at": _iso(r[1]), "caller": r[2], "query": r[3], "mode": r[4],
                 "ids": r[5], "scores": r[6], "elapsed_ms": r[7]} for r in rows]

    def count_recalls(self) -> int:
        return self._store._rows("SELECT COUNT(*) FROM recalls")[0][0]

    # --- upkeep runs --------------------------------------------------------------------------

    def last_upkeep(self, finished: bool = True) -> dict[str, Any] | None:
        condition = "finished_at IS NOT NULL" if finished else "TRUE"
        rows = self._store._rows(
            "SELECT id, trigger, started_at, finished_at, seq, report FROM upkeep_runs"
            f" WHERE {condition} ORDER BY id DESC LIMIT 1")
        if not rows:
            return None
        r = rows[0]
        return {"id": r[0], "trigger": r[1], "started_at": _iso(r[2]),
                "finished_at": _iso(r[3]), "seq": r[4], "report": r[5]}

    def claim_upkeep(self, trigger: str, now: datetime, lease_before: datetime) -> int | None:
        store = self._store
        with store.transaction():
            busy = store._rows("SELECT 1 FROM upkeep_runs WHERE finished_at IS NULL"
                               " AND started_at >= %s", (lease_before,))
            if busy:
                return None
            return store._rows("INSERT INTO upkeep_runs (trigger, started_at) VALUES (%s, %s)"
                               " RETURNING id", (trigger, now))[0][0]

    def finish_upkeep(self, run_id: int, now: datetime, report: dict[str, Any]) -> None:
        import json

        from psycopg.types.json import Jsonb

        store = self._store
        with store.transaction():
            store._execute(
                "UPDATE upkeep_runs SET finished_at = %s, report = %s,"
                " seq = (SELECT COALESCE(MAX(seq), 0) FROM memories) WHERE id = %s",
                (now, Jsonb(json.loads(json.dumps(report, ensure_ascii=False, default=str))),
                 run_id))

    def drop_upkeep(self, run_id: int) -> None:
        with self._store.transaction():
            self._store._execute("DELETE FROM upkeep_runs WHERE id = %s", (run_id,))

    # --- users of a shared server --------------------------------------------------------------

    def add_user(self, name: str, role: str, token_hash: str, created_at: datetime) -> bool:
        with self._store.transaction():
            return self._store._execute(
                "INSERT INTO users (name, role, token_hash, created_at) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (name) DO NOTHING", (name, role, token_hash, created_at)
            ).rowcount == 1

    def users(self) -> list[dict[str, Any]]:
        rows = self._store._rows("SELECT name, role, created_at FROM users ORDER BY name")
        return [{"name": r[0], "role": r[1], "created_at": _iso(r[2])} for r in rows]

    def remove_user(self, name: str) -> bool:
        with self._store.transaction():
            return self._store._execute("DELETE FROM users WHERE name = %s",
                                        (name,)).rowcount == 1

    def set_user_token(self, name: str, token_hash: str) -> bool:
        with self._store.transaction():
            return self._store._execute("UPDATE users SET token_hash = %s WHERE name = %s",
                                        (token_hash, name)).rowcount == 1

    def user_by_token(self, token_hash: str) -> tuple[str, str] | None:
        rows = self._store._rows("SELECT name, role FROM users WHERE token_hash = %s",
                                 (token_hash,))
        return (rows[0][0], rows[0][1]) if rows else None

    def has_users(self) -> bool:
        return bool(self._store._rows("SELECT EXISTS (SELECT 1 FROM users)")[0][0])

    def user_records(self) -> list[tuple[str, str, str, datetime]]:
        rows = self._store._rows(
            "SELECT name, role, token_hash, created_at FROM users ORDER BY name")
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def upkeep_runs(self, limit: int) -> list[dict[str, Any]]:
        rows = self._store._rows(
            "SELECT id, trigger, started_at, finished_at, report FROM upkeep_runs"
            " ORDER BY id DESC LIMIT %s", (limit,))
        return [{"id": r[0], "trigger": r[1], "started_at": _iso(r[2]),
                 "finished_at": _iso(r[3]), "report": r[4]} for r in rows]
