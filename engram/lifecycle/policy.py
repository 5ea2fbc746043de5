"""Which memories lifecycle sweeps may touch, and how strong a memory still is.

One place for the protection rule, so that GC, the forgetting sweep and
consolidation can never disagree about what is safe from them.
"""

from __future__ import annotations

from datetime import datetime

from ..model import HALF_LIFE_DAYS, Memory, from_iso

PROTECTED_TYPES = frozenset({"constraint", "preference"})
PROTECTED_IMPORTANCE = 0.9
# Rules, decisions and preferences say how to work: a summary must never replace them.
NEVER_CONSOLIDATED_TYPES = frozenset({"constraint", "preference", "decision"})
CONSOLIDATED_LAYERS = frozenset({"episodic"})
# How long an unused memory takes to become a candidate for the forgetting sweep.
FORGET_HORIZON_DAYS: dict[str, float] = {
    "episodic": 30.0, "reference": 90.0, "semantic": 365.0, "rule": 3650.0,
}


def protection(memory: Memory) -> str | None:
    """Why no automatic sweep may archive this memory, or None if one may."""
    if memory.pinned:
        return "pinned"
    if memory.type in PROTECTED_TYPES:
        return f"a {memory.type}"
    if memory.importance >= PROTECTED_IMPORTANCE:
        return f"importance {memory.importance:g} ≥ {PROTECTED_IMPORTANCE:g}"
    if memory.meta.get("archived_by"):
        # A lifecycle sweep archived it once and someone brought it back: that is a vote.
        return "restored by hand after an automatic archive"
    return None


def meta_time(memory: Memory, key: str) -> datetime | None:
    value = memory.meta.get(key)
    if not isinstance(value, str):
        return None
    try:
        return from_iso(value)
    except ValueError:
        return None


def vouched_at(memory: Memory) -> datetime:
    """When the memory was last known true: it happened, or someone confirmed it."""
    confirmed = meta_time(memory, "confirmed_at")
    return max(memory.when, confirmed) if confirmed else memory.when


def last_used(memory: Memory) -> datetime:
    """Learned, vouched for or handed to an agent, whichever is latest.

    Counting from when Engram learned it (created_at), not only from when it happened,
    keeps an import of last year's notes from being archived as faded the day it lands.
    """
    moments = [memory.created_at, vouched_at(memory)]
    if memory.last_accessed_at is not None:
        moments.append(memory.last_accessed_at)
    return max(moments)


def arrived_lately(memory: Memory, now: datetime, grace_days: float) -> bool:
    """Stored less than `grace_days` ago, whatever date it speaks of."""
    return days_between(memory.created_at, now) < grace_days


def days_between(start: datetime, end: datetime) -> float:
    return max(0.0, (end - start).total_seconds() / 86400)


def strength(memory: Memory, now: datetime) -> float | None:
    """What is left of a decaying memory (1 = fresh); None for layers that never decay.

    The layer's half-life, stretched for important memories (importance 0.5 = the plain
    half-life, 0.8 = 1.3 times as long) and counted from the last use, so a memory that
    agents keep receiving stays.
    """
    return strength_at(memory.layer, memory.importance, last_used(memory), now)


def strength_at(layer: str, importance: float, used: datetime, now: datetime) -> float | None:
    half_life = HALF_LIFE_DAYS[layer]
    if half_life is None:
        return None
    return 0.5 ** (days_between(used, now) / (half_life * (0.5 + importance)))


def decay_bucket(value: float, floor: float = 0.05) -> str:
    """Buckets for the decay distribution shown by `engram stats`."""
    if value < floor:
        return f"below floor (<{floor:g})"
    if value >= 0.75:
        return "fresh (≥0.75)"
    if value >= 0.5:
        return "fading (0.5–0.75)"
    if value >= 0.25:
        return "weak (0.25–0.5)"
    return "faint (<0.25)"
