"""The store's health for `engram stats`: layers, decay, staleness, upkeep, the recall log."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..model import HALF_LIFE_DAYS, LAYER_OF_TYPE
from . import policy, upkeep

if TYPE_CHECKING:
    from ..service import Engram

def _layer_counts(service: Engram, now: datetime, floor: float) -> dict[str, Any]:
    """Layers, decay buckets and flags of active memories, counted by the store."""
    half_lives = {kind: days for kind, layer in LAYER_OF_TYPE.items()
                  if (days := HALF_LIFE_DAYS[layer]) is not None}
    thresholds = [x for x in (0.75, 0.5, 0.25) if x > floor] + ([floor] if floor > 0 else [])
    labels = [policy.decay_bucket(x, floor) for x in thresholds]
    labels.append(policy.decay_bucket(0.0, floor))
    rows = service.store.decay_census(now, half_lives, thresholds,
                                      sorted(policy.PROTECTED_TYPES),
                                      policy.PROTECTED_IMPORTANCE)
    layers: Counter[str] = Counter()
    decay: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    for row in rows:
        layers[LAYER_OF_TYPE.get(row.type, "semantic")] += row.count
        if row.bucket is not None:
            decay[labels[row.bucket]] += row.count
        flags.update(expired_but_active=row.expired, stale=row.stale,
                     consolidated=row.merged, protected=row.protected)
    return {"active_by_layer": dict(layers), "decay": dict(decay),
            **{k: flags[k] for k in ("expired_but_active", "stale", "consolidated",
                                     "protected")}}


def summary(service: Engram) -> dict[str, Any]:
    """Cheap enough for every `stats` call: a few aggregate queries."""
    settings = service.lifecycle.settings
    counts = _layer_counts(service, service.clock(), settings.decay_floor)
    store = service.store
    archived_by: Counter[str] = Counter()
    for reason, count in store.archive_reasons().items():
        archived_by[reason or "hand"] += count
    last = store.last_upkeep()
    upkeep_info: dict[str, Any] = {
        "mode": upkeep.resolve_mode(service),
        "every_saves": settings.upkeep_every,
        "interval_hours": settings.upkeep_interval_hours,
        "last_run": None,
        "writes_since_last_run": store.changes_since(last["seq"] if last else 0),
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
        "archived_by": dict(archived_by),
        "upkeep": upkeep_info,
        "recalls_logged": store.count_recalls(),
    }
