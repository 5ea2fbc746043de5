"""The store's health for `engram stats`: layers, decay, staleness, upkeep, the recall log."""

from __future__ import annotations

import math
from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..model import HALF_LIFE_DAYS, LAYER_OF_TYPE, to_iso
from . import policy, storage, upkeep

if TYPE_CHECKING:
    from ..service import Engram

# A meta SQLite's JSON functions refuse (NaN, nested past their depth: written by hand or by
# an older version) reads as empty here instead of failing every `stats`.
_READABLE_META = (
    "SELECT *, CASE WHEN json_valid(meta) THEN meta ELSE '{}' END AS m FROM memories"
)


def _layer_counts(service: Engram, now: datetime, floor: float) -> dict[str, Any]:
    """Layers, decay buckets and flags of active memories, counted inside SQLite.

    strength = 0.5 ** (idle / H) with H = half-life × (0.5 + importance) (policy.strength),
    so strength ≥ x exactly when idle ≤ log2(1/x) × H: the buckets need no per-row Python.
    """
    half_life = " ".join(
        f"WHEN '{kind}' THEN {HALF_LIFE_DAYS[layer]}"
        for kind, layer in LAYER_OF_TYPE.items() if HALF_LIFE_DAYS[layer] is not None
    )
    bounds = [(x, policy.decay_bucket(x, floor)) for x in (0.75, 0.5, 0.25) if x > floor]
    if floor > 0:
        bounds.append((floor, policy.decay_bucket(floor, floor)))
    cases = " ".join(f"WHEN idle <= {math.log2(1 / x)!r} * h THEN '{label}'"
                     for x, label in bounds)
    protected_types = ", ".join(f"'{t}'" for t in sorted(policy.PROTECTED_TYPES))
    sql = f"""
        WITH active AS (
            SELECT type, expires_at,
                CASE type {half_life} ELSE NULL END * (0.5 + importance) AS h,
                julianday(?) - julianday(MAX(COALESCE(event_at, created_at),
                    COALESCE(last_accessed_at, ''),
                    COALESCE(json_extract(m, '$.confirmed_at'), ''))) AS idle,
                json_extract(m, '$.stale') IS NOT NULL AS stale,
                json_extract(m, '$.consolidated_from') IS NOT NULL AS merged,
                (pinned OR type IN ({protected_types}) OR importance >= ?
                 OR json_extract(m, '$.archived_by') IS NOT NULL) AS protected
            FROM ({_READABLE_META} WHERE status = 'active')
        )
        SELECT type,
            CASE WHEN h IS NULL THEN NULL {cases} ELSE '{policy.decay_bucket(0.0, floor)}' END,
            COUNT(*), SUM(expires_at IS NOT NULL AND expires_at <= ?), SUM(stale),
            SUM(merged), SUM(protected)
        FROM active GROUP BY 1, 2
    """
    store = service.store
    with store._lock:
        rows = store._db.execute(
            sql, (to_iso(now), policy.PROTECTED_IMPORTANCE, to_iso(now))
        ).fetchall()
    layers: Counter[str] = Counter()
    decay: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    for kind, bucket, count, expired, stale, merged, protected in rows:
        layers[LAYER_OF_TYPE.get(kind, "semantic")] += count
        if bucket is not None:
            decay[bucket] += count
        flags.update(expired_but_active=expired, stale=stale, consolidated=merged,
                     protected=protected)
    return {"active_by_layer": dict(layers), "decay": dict(decay),
            **{k: flags[k] for k in ("expired_but_active", "stale", "consolidated",
                                     "protected")}}


def summary(service: Engram) -> dict[str, Any]:
    """Cheap enough for every `stats` call: a few aggregate queries."""
    settings = service.lifecycle_settings
    counts = _layer_counts(service, service.clock(), settings.decay_floor)
    store = service.store
    with store._lock:
        archived_by = dict(store._db.execute(
            "SELECT COALESCE(json_extract(m, '$.archived_by'),"
            " CASE WHEN json_extract(m, '$.consolidated_into') IS NOT NULL"
            " THEN 'consolidation' ELSE 'hand' END), COUNT(*)"
            f" FROM ({_READABLE_META} WHERE status = 'archived') GROUP BY 1"
        ).fetchall())
    last = storage.last_run(store)
    upkeep_info: dict[str, Any] = {
        "mode": upkeep.resolve_mode(service),
        "every_saves": settings.upkeep_every,
        "interval_hours": settings.upkeep_interval_hours,
        "last_run": None,
        "writes_since_last_run": storage.written_since(store, last["seq"] if last else 0),
    }
    if last is not None and last["trigger"] != "baseline":
        upkeep_info["last_run"] = {
            "at": last["finished_at"], "trigger": last["trigger"],
            "gc": last["report"].get("gc", {}).get("counts", {}),
            "consolidate": last["report"].get("consolidate", {}).get("counts", {}),
        }
        if last["report"].get("error"):
            upkeep_info["last_run"]["error"] = last["report"]["error"]
    elif last is not None:
        upkeep_info["counting_since"] = last["finished_at"]
    return {
        **counts,
        "archived_by": archived_by,
        "upkeep": upkeep_info,
        "recalls_logged": storage.count_recalls(store),
    }
