"""Consolidation: related aging episodes of one project and type become one memory.

Deterministic by default: a recap (`recap.py`) that says what recurred, how often and
when, keeps apart what differed, and lists the other facts once, the fix, the files and
the sources; their dates and ids are also listed in `meta`. An LLM summariser is used
only when one is configured. The sources are archived with `consolidated_into` in their
meta, and `unconsolidate` puts every one of them back exactly as it was.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConflictError, ValidationError
from ..model import MAX_CONTENT_CHARS, MAX_TEXT_FIELD_CHARS, Memory, from_iso, to_iso
from ..text import normalize_for_dedup
from . import gc, policy, similarity
from .recap import recap
from .report import Action, Report
from .settings import Settings

if TYPE_CHECKING:
    from ..service import Engram

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^\s])|\n+")


def eligible(memory: Memory, now: datetime, settings: Settings) -> bool:
    return (
        memory.status == "active"
        and memory.layer in policy.CONSOLIDATED_LAYERS
        and memory.type not in policy.NEVER_CONSOLIDATED_TYPES
        and policy.protection(memory) is None
        and "consolidated_from" not in memory.meta  # no summaries of summaries
        and "consolidated_into" not in memory.meta  # restored by hand: leave it be
        and policy.days_between(policy.vouched_at(memory), now) >= settings.consolidate_min_age_days
    )


def sentences(text: str | None) -> list[str]:
    if not text:
        return []
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def distinct(texts: Sequence[str | None], limit: int) -> str | None:
    """Every sentence once (compared normalised), in the order first said."""
    seen: set[str] = set()
    kept: list[str] = []
    size = 0
    for text in texts:
        for sentence in sentences(text):
            key = normalize_for_dedup(sentence).strip(" .!?;:")
            if not key or key in seen:
                continue
            if size + len(sentence) + 1 > limit:
                return " ".join(kept) or None
            seen.add(key)
            kept.append(sentence)
            size += len(sentence) + 1
    return " ".join(kept) or None


WINDOW = 2000  # memories compared at once, in time order: bounds the similarity matrix


def clusters(memories: list[Memory], vectors: dict[str, np.ndarray], settings: Settings
             ) -> list[list[Memory]]:
    """Complete-link groups in time order: every member alike to every other member."""
    found: list[list[Memory]] = []
    for start in range(0, len(memories), WINDOW):
        window = memories[start : start + WINDOW]
        sims = similarity.matrix(window, vectors)
        close = sims >= settings.consolidate_similarity
        groups: list[list[int]] = []
        group_of: dict[int, int] = {}
        for i in range(len(window)):
            best, best_score = None, -1.0
            for g in {group_of[int(j)] for j in np.nonzero(close[i, :i])[0]}:
                members = groups[g]
                if len(members) >= settings.consolidate_max_group or not close[i, members].all():
                    continue
                mean = float(sims[i, members].mean())
                if mean > best_score:
                    best, best_score = g, mean
            if best is None:
                best = len(groups)
                groups.append([])
            groups[best].append(i)
            group_of[i] = best
        found.extend([window[i] for i in g] for g in groups if len(g) > 1)
    return found


def merged(sources: list[Memory], new_id: str, now: datetime, summary: str | None,
           summariser: str, vectors: dict[str, np.ndarray] | None = None) -> Memory:
    sources = sorted(sources, key=lambda m: (m.when, m.id))
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    for memory in sources:
        tags = tuple(dict.fromkeys((*tags, *memory.tags)))
        files = tuple(dict.fromkeys((*files, *memory.files)))
    if summary:  # a model's summary, with the sources named as the recap names them
        content = f"{summary[:MAX_CONTENT_CHARS - 1000].rstrip()}\nSources: " + ", ".join(
            m.id for m in sources)
    else:
        content = recap(sources, limit=MAX_CONTENT_CHARS - 200, vectors=vectors)
    accessed = [m.last_accessed_at for m in sources if m.last_accessed_at]
    meta: dict[str, Any] = {
        "consolidated_from": [m.id for m in sources],
        "consolidated_at": to_iso(now),
        "period": {"from": to_iso(sources[0].when), "to": to_iso(sources[-1].when)},
        "dates": sorted({f"{m.when:%Y-%m-%d}" for m in sources}),
        "sources": [{"id": m.id, "status": m.status, "updated_at": to_iso(m.updated_at),
                     "when": to_iso(m.when)} for m in sources],
        "summariser": summariser,
    }
    return Memory(
        id=new_id,
        content=content or sources[-1].content,
        type=sources[0].type,
        project=sources[0].project,
        tags=tags[:200],
        files=files[:200],
        problem=distinct([m.problem for m in sources], MAX_TEXT_FIELD_CHARS),
        solution=distinct([m.solution for m in sources], MAX_TEXT_FIELD_CHARS),
        importance=max(m.importance for m in sources),
        confidence=round(sum(m.confidence for m in sources) / len(sources), 4),
        provenance="consolidation",
        created_at=now,
        updated_at=now,
        event_at=sources[-1].when,
        access_count=sum(m.access_count for m in sources),
        last_accessed_at=max(accessed) if accessed else None,
        meta=meta,
        owner=sources[0].owner,
        scope=sources[0].scope,
    )


def plan(service: Engram, settings: Settings, *, dry_run: bool, project: str | None = None,
         automatic: bool = False) -> Report:
    """The merges to make; `automatic` (upkeep) leaves alone what arrived within the grace
    period, which an explicit `engram consolidate` does not."""
    from ..identity import new_id

    now = service.clock()
    report = Report("consolidate", dry_run)
    if dry_run and settings.summariser:
        report.notes.append(f"dry run: shows the deterministic merge; the real run asks"
                            f" {settings.summariser} to write it")
    groups: dict[tuple[str | None, str, str, str | None], list[Memory]] = defaultdict(list)
    undone = set(undone_ids(service)) if automatic else set()
    for memory in gc.active_memories(service, project):
        if eligible(memory, now, settings) and not (
            automatic and (policy.arrived_lately(memory, now, settings.grace_days)
                           or memory.id in undone)
        ):
            # never merged across owners or scopes: a personal memory stays its owner's
            groups[(memory.project, memory.type, memory.scope, memory.owner)].append(memory)
    for _, members in sorted(groups.items(), key=lambda kv: (kv[0][0] or "", kv[0][1],
                                                             kv[0][2], kv[0][3] or "")):
        if len(members) < 2:
            continue
        members.sort(key=lambda m: (m.when, m.id))
        vectors = service.store.vectors_of([m.id for m in members])
        for group in clusters(members, vectors, settings):
            summary, used = None, "deterministic"
            if settings.summariser and not dry_run:
                from .summarise import summarise

                summary = summarise(settings.summariser, [m.content for m in group])
                if summary is None:
                    report.notes.append(f"summariser {settings.summariser} failed or lost"
                                        " a number; merged"
                                        " deterministically")
                else:
                    used = settings.summariser
            new = merged(group, new_id(), now, summary, used, vectors)
            report.created.append(new)
            report.actions.append(Action(
                "consolidate", new.id,
                f"{len(group)} related {new.type} memories"
                f" ({new.meta['dates'][0]} to {new.meta['dates'][-1]})",
                details={"sources": [m.id for m in group]},
            ))
            for source in group:
                report.change(source, source.evolve(
                    status="archived", updated_at=now,
                    meta={**source.meta, "consolidated_into": new.id},
                ))
                report.actions.append(Action("archive", source.id, "consolidated",
                                             target=new.id))
    return report


def _vector_for(service: Engram, memory: Memory) -> np.ndarray | None:
    """The embedder's vector when it is the store's, else the mean of the sources'."""
    if service.embedder is not None:
        vectors = service.embed_texts([service.embedding_text(memory)])
        if vectors is not None:
            return vectors[0]
    stored = service.store.vectors_of(memory.meta["consolidated_from"])
    if not stored or len({v.shape[0] for v in stored.values()}) != 1:
        return None
    mean = np.mean(np.stack(list(stored.values())), axis=0)
    return (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)


def apply(service: Engram, report: Report) -> None:
    """Create the consolidated memories and archive their sources, all or nothing.

    A group whose sources changed since the plan (another process edited one) is left
    alone: folding a stale snapshot would undo that edit.
    """
    if report.dry_run or not report.created:
        return
    vectors = {m.id: _vector_for(service, m) for m in report.created}
    with service.store.transaction():
        for memory in report.created:
            sources = memory.meta["consolidated_from"]
            fresh = [report.current(service.store, i) for i in sources]
            if any(m is None for m in fresh):
                report.notes.append(f"skipped {memory.id}: a source changed meanwhile")
                continue
            service.store.insert(memory, service.index_terms_of(memory), vectors[memory.id])
            for source in fresh:
                service.store.update(source)  # type: ignore[arg-type]


UNDONE_KEY = "unconsolidated"  # store metadata: ids a user took back out of a merge
MAX_UNDONE = 10_000


def undone_ids(service: Engram) -> list[str]:
    """Memories a user restored with `unconsolidate`: upkeep leaves them unmerged."""
    raw = service.store.get_meta(UNDONE_KEY)
    try:
        ids = json.loads(raw) if raw else []
    except ValueError:
        return []
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def unconsolidate(service: Engram, memory_id: str) -> list[Memory]:
    """Put the sources back exactly as they were and remove the consolidated memory.

    Accepts the consolidated memory's id or the id of any of its sources.
    """
    memory = service.resolve(memory_id)
    if "consolidated_from" not in memory.meta and isinstance(
        memory.meta.get("consolidated_into"), str
    ):
        memory = service.resolve(memory.meta["consolidated_into"])
    sources = memory.meta.get("consolidated_from")
    records = memory.meta.get("sources")
    if not isinstance(sources, list) or not isinstance(records, list):
        raise ValidationError("id", f"memory {memory.id} is not a consolidated memory")
    if memory.superseded_by:
        raise ConflictError(
            f"memory {memory.id} has a newer version ({memory.superseded_by}); "
            "the consolidation was edited since, so it cannot be undone automatically"
        )
    restored: list[Memory] = []
    with service.store.transaction():
        for record in records:
            source = service.store.get(record.get("id", ""))
            if source is None or source.meta.get("consolidated_into") != memory.id:
                continue
            meta = {k: v for k, v in source.meta.items() if k != "consolidated_into"}
            before = source.evolve(
                status=record.get("status", "active"), meta=meta,
                updated_at=from_iso(record.get("updated_at")) or source.updated_at,
            )
            service.store.update(before)
            restored.append(before)
        service.store.delete(memory.id)
        # an undo sticks: automatic upkeep does not merge these again (an explicit
        # `engram consolidate` still may)
        kept = list(dict.fromkeys([*undone_ids(service), *(m.id for m in restored)]))
        service.store.set_meta(UNDONE_KEY, json.dumps(kept[-MAX_UNDONE:]))
    return restored
