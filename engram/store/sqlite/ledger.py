"""The SQLite store's bookkeeping beside the memories: change numbers, the recall log,
upkeep runs, and the aggregate counts the lifecycle reports.

Kept apart from the memories (store.py) and their indexes (keywords.py, vectors.py); the
`SQLiteStore` holds one `Ledger` and answers the Store protocol's bookkeeping methods
through it. Every rule (half-lives, what is protected, bucket bounds) arrives as an
argument from the lifecycle: this module only counts, in SQL.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...model import from_iso, to_iso
from ..base import CensusRow, RecallEntry

if TYPE_CHECKING:
    from .store import SQLiteStore

# A meta SQLite's JSON functions refuse (NaN, nested past their depth: written by hand or by
# an older version) reads as empty here instead of failing every count.
_READABLE_META = (
    "SELECT *, CASE WHEN json_valid(meta) THEN meta ELSE '{}' END AS m FROM memories"
)


class Ledger:
    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        store = self._store
        with store._lock:
            return store._db.execute(sql, params).fetchall()

    # --- change numbers ---------------------------------------------------------------------

    def last_change(self) -> int:
        return self._read("SELECT COALESCE(MAX(seq), 0) FROM memories")[0][0]

    def changes_since(self, seq: int) -> int:
        return self._read("SELECT COUNT(*) FROM memories WHERE seq > ?", (seq,))[0][0]

    def duplicate_groups(self) -> list[list[str]]:
        rows = self._read(
            "SELECT json_group_array(id) FROM (SELECT id, norm, project FROM memories"
            " WHERE status = 'active' ORDER BY created_at, rowid)"
            " GROUP BY norm, project HAVING COUNT(*) > 1"
        )
        return [json.loads(r[0]) for r in rows]

    # --- counts for `engram stats` ------------------------------------------------------------

    def decay_census(
        self, now: datetime, half_life_days: Mapping[str, float],
        thresholds: Sequence[float], protected_types: Sequence[str],
        protected_importance: float,
    ) -> list[CensusRow]:
        """strength = 0.5 ** (idle / H) with H = half-life × (0.5 + importance), so
        strength ≥ x exactly when idle ≤ log2(1/x) × H: buckets need no per-row Python."""
        half_life = " ".join(
            f"WHEN ? THEN {float(days)!r}" for days in half_life_days.values()
        )
        cases = " ".join(f"WHEN idle <= {math.log2(1 / x)!r} * h THEN {i}"
                         for i, x in enumerate(thresholds))
        kinds = ", ".join("?" * len(protected_types)) or "NULL"
        sql = f"""
            WITH active AS (
                SELECT type, expires_at,
                    CASE type {half_life} ELSE NULL END * (0.5 + importance) AS h,
                    julianday(?) - julianday(MAX(COALESCE(event_at, created_at),
                        COALESCE(last_accessed_at, ''),
                        COALESCE(json_extract(m, '$.confirmed_at'), ''))) AS idle,
                    json_extract(m, '$.stale') IS NOT NULL AS stale,
                    json_extract(m, '$.consolidated_from') IS NOT NULL AS merged,
                    (pinned OR type IN ({kinds}) OR importance >= ?
                     OR json_extract(m, '$.archived_by') IS NOT NULL) AS protected
                FROM ({_READABLE_META} WHERE status = 'active')
            )
            SELECT type,
                CASE WHEN h IS NULL THEN NULL {cases} ELSE {len(thresholds)} END,
                COUNT(*), SUM(expires_at IS NOT NULL AND expires_at <= ?), SUM(stale),
                SUM(merged), SUM(protected)
            FROM active GROUP BY 1, 2
        """
        params = [*half_life_days, to_iso(now), *protected_types, protected_importance,
                  to_iso(now)]
        return [CensusRow(*row) for row in self._read(sql, params)]

    def archive_reasons(self) -> dict[str | None, int]:
        """Archived memories by who archived them (`meta.archived_by`; None when unsaid,
        "consolidation" for those merged into another)."""
        rows = self._read(
            "SELECT COALESCE(json_extract(m, '$.archived_by'),"
            " CASE WHEN json_extract(m, '$.consolidated_into') IS NOT NULL"
            " THEN 'consolidation' END), COUNT(*)"
            f" FROM ({_READABLE_META} WHERE status = 'archived') GROUP BY 1"
        )
        return dict(rows)

    # --- the recall log -----------------------------------------------------------------------

    def log_recall(self, entry: RecallEntry, prune_before: datetime | None) -> None:
        store = self._store
        with store._lock, store.transaction():
            store._db.execute(
                "INSERT INTO recalls (at, caller, query, mode, ids, scores, elapsed_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (to_iso(entry.at), entry.caller, entry.query, entry.mode,
                 json.dumps(list(entry.ids)),
                 json.dumps([round(float(s), 6) for s in entry.scores]), entry.elapsed_ms),
            )
            if prune_before is not None:
                store._db.execute("DELETE FROM recalls WHERE at < ?", (to_iso(prune_before),))

    def prune_recalls(self, before: datetime) -> int:
        store = self._store
        with store._lock, store.transaction():
            return store._db.execute(
                "DELETE FROM recalls WHERE at < ?", (to_iso(before),)
            ).rowcount

    def recalls(self, since: datetime | None, caller: str | None, limit: int
                ) -> list[dict[str, Any]]:
        clauses, params = [], []
        if since is not None:
            clauses.append("at >= ?")
            params.append(to_iso(since))
        if caller is not None:
            clauses.append("caller = ?")
            params.append(caller)
        where = " AND ".join(clauses) or "1"
        rows = self._read(
            "SELECT id, at, caller, query, mode, ids, scores, elapsed_ms FROM recalls"
            f" WHERE {where} ORDER BY at DESC, id DESC LIMIT ?",
            (*params, limit),
        )
        return [
            {"id": r[0], "at": r[1], "caller": r[2], "query": r[3], "mode": r[4],
             "ids": json.loads(r[5]), "scores": json.loads(r[6]), "elapsed_ms": r[7]}
            for r in rows
        ]

    def count_recalls(self) -> int:
        return self._read("SELECT COUNT(*) FROM recalls")[0][0]

    # --- upkeep runs --------------------------------------------------------------------------

    def last_upkeep(self, finished: bool = True) -> dict[str, Any] | None:
        condition = "finished_at IS NOT NULL" if finished else "1"
        rows = self._read(
            "SELECT id, trigger, started_at, finished_at, seq, report FROM upkeep_runs"
            f" WHERE {condition} ORDER BY id DESC LIMIT 1"
        )
        if not rows:
            return None
        row = rows[0]
        return {"id": row[0], "trigger": row[1], "started_at": row[2], "finished_at": row[3],
                "seq": row[4], "report": json.loads(row[5])}

    def claim_upkeep(self, trigger: str, now: datetime, lease_before: datetime) -> int | None:
        store = self._store
        with store._lock, store.transaction():
            busy = store._db.execute(
                "SELECT 1 FROM upkeep_runs WHERE finished_at IS NULL AND started_at >= ?",
                (to_iso(lease_before),),
            ).fetchone()
            if busy:
                return None
            return store._db.execute(
                "INSERT INTO upkeep_runs (trigger, started_at) VALUES (?, ?)",
                (trigger, to_iso(now)),
            ).lastrowid

    def finish_upkeep(self, run_id: int, now: datetime, report: dict[str, Any]) -> None:
        store = self._store
        with store._lock, store.transaction():
            seq = store._db.execute("SELECT COALESCE(MAX(seq), 0) FROM memories").fetchone()[0]
            store._db.execute(
                "UPDATE upkeep_runs SET finished_at = ?, seq = ?, report = ? WHERE id = ?",
                (to_iso(now), seq, json.dumps(report, ensure_ascii=False, default=str), run_id),
            )

    def drop_upkeep(self, run_id: int) -> None:
        store = self._store
        with store._lock, store.transaction():
            store._db.execute("DELETE FROM upkeep_runs WHERE id = ?", (run_id,))

    # --- users of a shared server --------------------------------------------------------------

    def add_user(self, name: str, role: str, token_hash: str, created_at: datetime) -> bool:
        store = self._store
        with store._lock, store.transaction():
            return store._db.execute(
                "INSERT INTO users (name, role, token_hash, created_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(name) DO NOTHING", (name, role, token_hash, to_iso(created_at))
            ).rowcount == 1

    def users(self) -> list[dict[str, Any]]:
        rows = self._read("SELECT name, role, created_at FROM users ORDER BY name")
        return [{"name": r[0], "role": r[1], "created_at": r[2]} for r in rows]

    def remove_user(self, name: str) -> bool:
        store = self._store
        with store._lock, store.transaction():
            return store._db.execute("DELETE FROM users WHERE name = ?", (name,)).rowcount == 1

    def set_user_token(self, name: str, token_hash: str) -> bool:
        store = self._store
        with store._lock, store.transaction():
            return store._db.execute("UPDATE users SET token_hash = ? WHERE name = ?",
                                     (token_hash, name)).rowcount == 1

    def user_by_token(self, token_hash: str) -> tuple[str, str] | None:
        rows = self._read("SELECT name, role FROM users WHERE token_hash = ?", (token_hash,))
        return (rows[0][0], rows[0][1]) if rows else None

    def has_users(self) -> bool:
        return bool(self._read("SELECT EXISTS (SELECT 1 FROM users)")[0][0])

    def user_records(self) -> list[tuple[str, str, str, datetime]]:
        rows = self._read("SELECT name, role, token_hash, created_at FROM users ORDER BY name")
        return [(r[0], r[1], r[2], from_iso(r[3])) for r in rows]

    def upkeep_runs(self, limit: int) -> list[dict[str, Any]]:
        rows = self._read(
            "SELECT id, trigger, started_at, finished_at, report FROM upkeep_runs"
            " ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [{"id": r[0], "trigger": r[1], "started_at": r[2], "finished_at": r[3],
                 "report": json.loads(r[4])} for r in rows]
