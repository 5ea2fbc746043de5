"""The forgetting sweep: archive what is old, unused and unimportant.

Risk grows with time since a memory was last used (relative to its layer's horizon),
shrinks with how often agents used it (heat) and with its importance — in the spirit of
linksee-memory's forgettingRisk. A sweep only ever archives; protected memories are
reported, never touched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..model import Memory
from . import gc, policy
from .report import Action, Report
from .settings import Settings

if TYPE_CHECKING:
    from ..service import Engram

HEAT_SCALE = 5.0  # uses at which heat reaches 63%
HEAT_WEIGHT = 0.7  # a well-used memory's risk drops to 30%
IMPORTANCE_WEIGHT = 0.6  # importance 0.5 leaves risk unchanged; 0 raises it by 30%


@dataclass(frozen=True)
class Risk:
    score: float
    idle_days: float
    heat: float
    importance: float

    def to_dict(self) -> dict[str, float]:
        return {"risk": round(self.score, 4), "idle_days": round(self.idle_days, 1),
                "heat": round(self.heat, 4), "importance": self.importance}


def risk(memory: Memory, now: datetime) -> Risk:
    idle = policy.days_between(policy.last_used(memory), now)
    horizon = policy.FORGET_HORIZON_DAYS[memory.layer]
    staleness = 1 - 0.5 ** (idle / horizon)
    heat = 1 - math.exp(-memory.access_count / HEAT_SCALE)
    weight = 1 + IMPORTANCE_WEIGHT * (0.5 - memory.importance)
    score = min(1.0, max(0.0, staleness * (1 - HEAT_WEIGHT * heat) * weight))
    return Risk(score, idle, heat, memory.importance)


def plan(
    service: Engram, settings: Settings, *, dry_run: bool, threshold: float | None = None,
    project: str | None = None,
) -> Report:
    now = service.clock()
    limit = settings.forget_threshold if threshold is None else threshold
    report = Report("forget", dry_run)
    for memory in gc.active_memories(service, project):
        found = risk(memory, now)
        if found.score < limit:
            continue
        why = f"forgetting risk {found.score:.2f} ≥ {limit:g} (idle {found.idle_days:.0f} days)"
        reason = policy.protection(memory)
        if reason:
            report.protect(memory, reason, f"archive: {why}")
            continue
        report.change(memory, gc.archived(memory, now, "forget", why))
        report.actions.append(Action("archive", memory.id, why, details=found.to_dict()))
    return report
