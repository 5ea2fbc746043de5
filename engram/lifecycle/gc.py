"""Garbage collection: expired memories, decayed ones, and duplicates that slipped in.

Everything GC does is an archive (restorable with `engram restore`), never a delete,
and protected memories (policy.protection) are only ever reported, never touched.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING

from ..model import Memory, merge_unique, to_iso
from . import policy, similarity
from .report import Action, Report
from .settings import Settings

if TYPE_CHECKING:
    from ..service import Engram


def archived(memory: Memory, now: datetime, by: str, reason: str, **extra: object) -> Memory:
    """The archived form of a memory, saying which sweep archived it and why."""
    meta = {**memory.meta, "archived_by": by, "archived_reason": reason,
            "archived_at": to_iso(now), **extra}
    return memory.evolve(status="archived", meta=meta, updated_at=now)


def active_memories(service: Engram, project: str | None = None) -> list[Memory]:
    return [m for m in service.store.iter_all()
            if m.status == "active" and (project is None or m.project == project)]


def plan(service: Engram, settings: Settings, *, dry_run: bool, automatic: bool = False
         ) -> Report:
    """What to archive; `automatic` (upkeep) spares what arrived within the grace period
    (an expiry the user set still applies)."""
    now = service.clock()
    report = Report("gc", dry_run)
    remaining: list[Memory] = []
    for memory in active_memories(service):
        why = None
        if memory.expires_at is not None and memory.expires_at <= now:
            why = f"expired {memory.expires_at:%Y-%m-%d}"
        elif automatic and policy.arrived_lately(memory, now, settings.grace_days):
            continue  # neither decayed nor a duplicate to archive yet
        else:
            left = policy.strength(memory, now)
            if left is not None and left < settings.decay_floor:
                why = (f"decayed: strength {left:.3f} below the floor {settings.decay_floor:g}"
                       f" (last used {policy.last_used(memory):%Y-%m-%d})")
        if why is None:
            remaining.append(memory)
            continue
        reason = policy.protection(memory)
        if reason:
            report.protect(memory, reason, f"archive: {why}")
            remaining.append(memory)
            continue
        report.change(memory, archived(memory, now, "gc", why))
        report.actions.append(Action("archive", memory.id, why))
    _plan_duplicates(service, settings, remaining, report, now)
    return report


def _keeper_order(memory: Memory) -> tuple:
    """Protected first (never archived), then the most used, most important, oldest."""
    return (policy.protection(memory) is None, -memory.access_count, -memory.importance,
            memory.created_at, memory.id)


def _plan_duplicates(
    service: Engram, settings: Settings, memories: list[Memory], report: Report, now: datetime
) -> None:
    from ..identity import distinguishing

    by_id = {m.id: m for m in memories}
    parent = {m.id: m.id for m in memories}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    for group in service.store.duplicate_groups():
        present = [i for i in group if i in by_id]
        for other in present[1:]:
            union(present[0], other)
    by_project: dict[str | None, list[Memory]] = defaultdict(list)
    for memory in memories:
        by_project[memory.project].append(memory)
    for group in by_project.values():
        if len(group) < 2:
            continue
        vectors = service.store.vectors_of([m.id for m in group])
        if not vectors:
            continue  # without vectors only identical texts count as duplicates
        only_vec = [m for m in group if m.id in vectors]
        for i, j, _ in similarity.similar_pairs(only_vec, vectors, settings.duplicate_similarity):
            a, b = only_vec[i], only_vec[j]
            if not distinguishing(a.content, b.content):
                union(a.id, b.id)
    clusters: dict[str, list[Memory]] = defaultdict(list)
    for memory in memories:
        clusters[find(memory.id)].append(memory)
    for cluster in clusters.values():
        if len(cluster) < 2:
            continue
        cluster.sort(key=_keeper_order)
        keeper = cluster[0]
        tags, files = keeper.tags, keeper.files
        merged: list[str] = []
        for dupe in cluster[1:]:
            reason = policy.protection(dupe)
            if reason:
                report.protect(dupe, reason, f"merge into {keeper.id} as a duplicate")
                continue
            tags, files = merge_unique(tags, dupe.tags), merge_unique(files, dupe.files)
            why = f"duplicate of {keeper.id}"
            report.change(dupe, archived(dupe, now, "gc", why, duplicate_of=keeper.id))
            report.actions.append(Action("merge_duplicate", dupe.id, why, target=keeper.id))
            merged.append(dupe.id)
        if merged and (tags, files) != (keeper.tags, keeper.files):
            report.change(keeper, keeper.evolve(tags=tags, files=files, updated_at=now))
            report.actions.append(Action(
                "keep_duplicate", keeper.id, f"kept; took tags and files of {', '.join(merged)}",
                details={"tags": list(tags), "files": list(files)},
            ))


def apply(service: Engram, report: Report) -> None:
    """Write the plan in one transaction: all of it or, on error, none of it.

    A memory changed by someone else since the plan is skipped (noted), never
    overwritten with the snapshot the plan was made from.
    """
    if report.dry_run:
        return
    with service.store.transaction():
        for memory_id, planned in report.writes.items():
            memory = report.current(service.store, memory_id)
            if memory is None:
                report.notes.append(f"skipped {memory_id}: it changed meanwhile")
                continue
            before = report.basis[memory_id]
            terms_changed = (before.tags, before.files) != (planned.tags, planned.files)
            service.store.update(memory, service.index_terms_of(memory) if terms_changed else None)
