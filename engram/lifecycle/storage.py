"""The lifecycle's few direct reads and writes, kept apart from the store module.

Vectors are read as stored (float16 → float32) so that sweeps work without loading an
embedder; the recall log and upkeep runs live in their own tables (schema v3).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from ..model import to_iso

if TYPE_CHECKING:
    from ..store.sqlite import SQLiteStore


def vectors_of(store: SQLiteStore, memory_ids: Sequence[str]) -> dict[str, np.ndarray]:
    """Stored vectors of these memories (those without one are left out)."""
    found: dict[str, np.ndarray] = {}
    ids = list(dict.fromkeys(memory_ids))
    with store._lock:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = store._db.execute(
                "SELECT m.id, v.vec FROM memories m JOIN vectors v ON v.rowid = m.rowid"
                f" WHERE m.id IN ({','.join('?' * len(chunk))})",
                chunk,
            ).fetchall()
            for memory_id, blob in rows:
                found[memory_id] = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
    return found


def norm_duplicate_groups(store: SQLiteStore) -> list[list[str]]:
    """Active memories with the same normalised text in the same project (oldest first)."""
    with store._lock:
        rows = store._db.execute(
            "SELECT json_group_array(id) FROM (SELECT id, norm, project FROM memories"
            " WHERE status = 'active' ORDER BY created_at, rowid)"
            " GROUP BY norm, project HAVING COUNT(*) > 1"
        ).fetchall()
    return [json.loads(r[0]) for r in rows]


def max_seq(store: SQLiteStore) -> int:
    with store._lock:
        return store._db.execute("SELECT COALESCE(MAX(seq), 0) FROM memories").fetchone()[0]


def written_since(store: SQLiteStore, seq: int) -> int:
    """How many memories were written (saved or changed) after change number `seq`."""
    with store._lock:
        return store._db.execute(
            "SELECT COUNT(*) FROM memories WHERE seq > ?", (seq,)
        ).fetchone()[0]


# --- recall audit log ---------------------------------------------------------------------

def add_recall(
    store: SQLiteStore, *, at: datetime, caller: str, query: str, mode: str | None,
    ids: Sequence[str], scores: Sequence[float], elapsed_ms: float | None,
    prune_before: datetime | None,
) -> None:
    with store._lock, store.transaction():
        store._db.execute(
            "INSERT INTO recalls (at, caller, query, mode, ids, scores, elapsed_ms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (to_iso(at), caller, query, mode, json.dumps(list(ids)),
             json.dumps([round(float(s), 6) for s in scores]), elapsed_ms),
        )
        if prune_before is not None:
            store._db.execute("DELETE FROM recalls WHERE at < ?", (to_iso(prune_before),))


def prune_recalls(store: SQLiteStore, before: datetime) -> int:
    with store._lock, store.transaction():
        return store._db.execute(
            "DELETE FROM recalls WHERE at < ?", (to_iso(before),)
        ).rowcount


def list_recalls(
    store: SQLiteStore, *, since: datetime | None, caller: str | None, limit: int
) -> list[dict[str, Any]]:
    clauses, params = [], []
    if since is not None:
        clauses.append("at >= ?")
        params.append(to_iso(since))
    if caller is not None:
        clauses.append("caller = ?")
        params.append(caller)
    where = " AND ".join(clauses) or "1"
    with store._lock:
        rows = store._db.execute(
            "SELECT id, at, caller, query, mode, ids, scores, elapsed_ms FROM recalls"
            f" WHERE {where} ORDER BY at DESC, id DESC LIMIT ?",
            (*params, limit),
        ).fetchall()
    return [
        {"id": r[0], "at": r[1], "caller": r[2], "query": r[3], "mode": r[4],
         "ids": json.loads(r[5]), "scores": json.loads(r[6]), "elapsed_ms": r[7]}
        for r in rows
    ]


def count_recalls(store: SQLiteStore) -> int:
    with store._lock:
        return store._db.execute("SELECT COUNT(*) FROM recalls").fetchone()[0]


# --- upkeep runs ----------------------------------------------------------------------------

def last_run(store: SQLiteStore, *, finished: bool = True) -> dict[str, Any] | None:
    condition = "finished_at IS NOT NULL" if finished else "1"
    with store._lock:
        row = store._db.execute(
            "SELECT id, trigger, started_at, finished_at, seq, report FROM upkeep_runs"
            f" WHERE {condition} ORDER BY id DESC LIMIT 1"
        ).fetchone()
    if row is None:
        return None
    return {"id": row[0], "trigger": row[1], "started_at": row[2], "finished_at": row[3],
            "seq": row[4], "report": json.loads(row[5])}


def claim_run(
    store: SQLiteStore, trigger: str, now: datetime, lease_before: datetime
) -> int | None:
    """Start a run unless another one started after `lease_before` and has not finished."""
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


def finish_run(store: SQLiteStore, run_id: int, now: datetime, report: dict[str, Any]) -> None:
    with store._lock, store.transaction():
        seq = store._db.execute("SELECT COALESCE(MAX(seq), 0) FROM memories").fetchone()[0]
        store._db.execute(
            "UPDATE upkeep_runs SET finished_at = ?, seq = ?, report = ? WHERE id = ?",
            (to_iso(now), seq, json.dumps(report, ensure_ascii=False, default=str), run_id),
        )


def drop_run(store: SQLiteStore, run_id: int) -> None:
    with store._lock, store.transaction():
        store._db.execute("DELETE FROM upkeep_runs WHERE id = ?", (run_id,))


def runs(store: SQLiteStore, limit: int = 10) -> Iterable[dict[str, Any]]:
    with store._lock:
        rows = store._db.execute(
            "SELECT id, trigger, started_at, finished_at, report FROM upkeep_runs"
            " ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
    return [{"id": r[0], "trigger": r[1], "started_at": r[2], "finished_at": r[3],
             "report": json.loads(r[4])} for r in rows]
