"""The owner's review of what Engram gathered on its own (used by the dashboard and API).

Hooks and checkpoints save memories nobody read. The owner reviews them here: approve
(more confidence), edit, or reject (archived). Review state lives in the memory's
`meta` (`reviewed_at`, `review`), so the schema does not change and every store works.
Possible conflicts (two active memories of one project and type saying nearly the same
thing) are found again on demand, so that the owner can supersede one or keep both.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError, ValidationError
from ..identity import CONFLICT_SIMILARITY
from ..model import Memory, merge_unique, to_iso, validate_project
from .users import current_viewer, visible

if TYPE_CHECKING:
    from .engram import Engram

# What hooks capture without a person or an agent choosing to save it.
CAPTURED_PROVENANCES: tuple[str, ...] = ("hook", "checkpoint")
REVIEW_OUTCOMES: tuple[str, ...] = ("approved", "edited", "rejected", "reviewed")
_SCAN_BATCH = 500


@dataclass(frozen=True)
class ReviewPage:
    items: list[Memory]
    total: int
    limit: int
    offset: int

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "limit": self.limit, "offset": self.offset,
                "items": [m.to_dict() for m in self.items]}


@dataclass(frozen=True)
class ConflictPair:
    """Two active memories of one project and type that read nearly alike.

    `older` and `newer` by creation time: "supersede" means the newer replaces the older.
    """

    older: Memory
    newer: Memory
    similarity: float

    def to_dict(self) -> dict[str, Any]:
        return {"similarity": round(self.similarity, 4), "older": self.older.to_dict(),
                "newer": self.newer.to_dict()}


def is_reviewed(memory: Memory) -> bool:
    return isinstance(memory.meta.get("reviewed_at"), str)


def _page_args(limit: Any, offset: Any, *, most: int = 500) -> tuple[int, int]:
    for name, value in (("limit", limit), ("offset", offset)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValidationError(name, f"must be a whole number ≥ 0, got {value!r}")
    return min(limit, most), offset


class Review:
    """The review part of one service: what the owner does with captured memories."""

    def __init__(self, service: Engram) -> None:
        self.service = service

    # --- the review queue -------------------------------------------------------------

    def _captured(self, project: str | None) -> Iterator[Memory]:
        """Active captured memories, newest first, read in batches."""
        from ..store.base import Filters

        filters = Filters(project=project, include_global=False, viewer=current_viewer(),
                          provenances=CAPTURED_PROVENANCES)
        offset = 0
        while True:
            batch = self.service.store.list(filters, _SCAN_BATCH, offset, "newest")
            yield from batch
            if len(batch) < _SCAN_BATCH:
                return
            offset += _SCAN_BATCH

    def review_queue(
        self, limit: int = 50, offset: int = 0, *, project: str | None = None
    ) -> ReviewPage:
        """Memories hooks and checkpoints captured that the owner has not reviewed yet."""
        limit, offset = _page_args(limit, offset)
        project = validate_project(project)
        items: list[Memory] = []
        total = 0
        for memory in self._captured(project):
            if is_reviewed(memory):
                continue
            if offset <= total < offset + limit:
                items.append(memory)
            total += 1
        return ReviewPage(items, total, limit, offset)

    def mark_reviewed(self, memory_id: str, outcome: str = "reviewed") -> Memory:
        """Take a memory off the review queue, noting what the owner decided."""
        if outcome not in REVIEW_OUTCOMES:
            raise ValidationError("outcome", f"use one of: {', '.join(REVIEW_OUTCOMES)}")
        memory = self.service.resolve(memory_id)
        now = self.service.clock()
        meta = {**memory.meta, "reviewed_at": to_iso(now), "review": outcome}
        changed = memory.evolve(meta=meta, updated_at=now)
        self.service.store.update(changed)
        return changed

    def approve(self, memory_id: str) -> Memory:
        """The owner vouches for a captured memory: more confidence, off the queue."""
        memory = self.service.confirm(memory_id)
        return self.mark_reviewed(memory.id, "approved")

    def dismiss(self, memory_id: str) -> Memory:
        """The owner rejects a captured memory: archived (restorable), off the queue."""
        memory = self.service.archive(memory_id)
        return self.mark_reviewed(memory.id, "rejected")

    # --- possible conflicts -----------------------------------------------------------

    def possible_conflicts(
        self, limit: int = 20, *, project: str | None = None, scan: int = 100
    ) -> list[ConflictPair]:
        """Pairs of active memories of one project and type whose meaning nearly matches.

        Scans the `scan` newest active memories (re-embedding them: the store protocol has
        no way to read a stored vector) and asks the vector index for each one's neighbours,
        so the cost grows with `scan` × store size (≈ 20 ms per scanned memory at 10,000
        memories). Pairs the owner chose to keep (`meta.distinct_from`) are not shown again.
        """
        from ..store.base import Filters

        limit, _ = _page_args(limit, 0, most=200)
        scan, _ = _page_args(scan, 0, most=2000)
        project = validate_project(project)
        embedder = self.service.embedder
        if embedder is None or limit == 0:
            return []
        recent = self.service.store.list(
            Filters(project=project, include_global=project is None, viewer=current_viewer()),
            scan, 0, "newest"
        )
        if not recent:
            return []
        vectors = embedder.embed([self.service.embedding_text(m) for m in recent])
        pairs: dict[frozenset[str], ConflictPair] = {}
        for memory, vector in zip(recent, vectors, strict=True):
            hits = self.service.store.vector_search(
                vector,
                Filters(project=memory.project, include_global=False, types=(memory.type,),
                        viewer=current_viewer()),
                6,
            )
            others = self.service.store.get_many(
                [h.memory_id for h in hits if h.memory_id != memory.id])
            for hit in hits:
                other = others.get(hit.memory_id)
                if other is None or hit.score < CONFLICT_SIMILARITY:
                    continue
                if other.project != memory.project or other.type != memory.type:
                    continue
                key = frozenset((memory.id, other.id))
                if key in pairs or _kept_apart(memory, other):
                    continue
                older, newer = sorted((memory, other), key=lambda m: (m.created_at, m.id))
                pairs[key] = ConflictPair(older, newer, min(1.0, float(hit.score)))
        ranked = sorted(pairs.values(), key=lambda p: -p.similarity)
        return ranked[:limit]

    def supersede(self, old_id: str, new_id: str) -> Memory:
        """Link two existing memories as versions: `new` replaces `old` (a conflict resolved)."""
        old, new = self.service.resolve(old_id), self.service.resolve(new_id)
        if old.id == new.id:
            raise ValidationError("new_id", "a memory cannot supersede itself")
        for memory in (old, new):
            if memory.status != "active":
                raise ConflictError(f"memory {memory.id} is {memory.status}; both must be active")
        if new.supersedes is not None:
            raise ConflictError(
                f"memory {new.id} already supersedes {new.supersedes}; supersede its newest "
                "version instead"
            )
        now = self.service.clock()
        with self.service.store.transaction():
            self.service.store.update(old.evolve(status="superseded", superseded_by=new.id,
                                         updated_at=now))
            linked = new.evolve(supersedes=old.id, updated_at=now)
            self.service.store.update(linked)
        return linked

    def keep_both(self, first_id: str, second_id: str) -> tuple[Memory, Memory]:
        """The owner says two similar memories are both right: stop flagging the pair."""
        first, second = self.service.resolve(first_id), self.service.resolve(second_id)
        if first.id == second.id:
            raise ValidationError("second_id", "choose two different memories")
        now = self.service.clock()
        changed = []
        with self.service.store.transaction():
            for memory, other in ((first, second), (second, first)):
                kept = tuple(memory.meta.get("distinct_from") or ())
                meta = {**memory.meta, "distinct_from": list(merge_unique(kept, (other.id,)))}
                updated = memory.evolve(meta=meta, updated_at=now)
                self.service.store.update(updated)
                changed.append(updated)
        return changed[0], changed[1]

    # --- overview ---------------------------------------------------------------------

    def overview(self, *, weeks: int = 26, top: int = 10) -> dict[str, Any]:
        """Numbers for the dashboard's overview: growth, recall and decay at a glance."""
        from ..ranking import decay

        weeks, _ = _page_args(weeks, 0, most=520)
        top, _ = _page_args(top, 0, most=100)
        now = self.service.clock()
        this_week = (now - timedelta(days=now.weekday())).replace(
            hour=0, minute=0, second=0, microsecond=0)
        starts = [this_week - timedelta(weeks=n) for n in range(weeks - 1, -1, -1)]
        first = starts[0] if starts else this_week
        by_type: dict[str, Counter[int]] = defaultdict(Counter)
        by_project: dict[str, Counter[int]] = defaultdict(Counter)
        project_totals: Counter[str] = Counter()
        fading: list[tuple[float, Memory]] = []
        for memory in self.service.store.iter_all():
            if memory.status == "deleted" or not visible(memory):
                continue
            project = memory.project or "(global)"
            project_totals[project] += 1
            if memory.created_at >= first:
                week = (memory.created_at - first).days // 7
                by_type[memory.type][week] += 1
                by_project[project][week] += 1
            if memory.status == "active" and memory.layer in ("episodic", "reference"):
                fading.append((decay(memory, now), memory))
        shown_projects = [p for p, _ in project_totals.most_common(8)]
        fading.sort(key=lambda pair: (pair[0], pair[1].created_at))

        def series(counts: dict[str, Counter[int]], names: list[str]) -> dict[str, list[int]]:
            return {name: [counts[name][i] for i in range(weeks)] for name in names}

        recalled = self.service.store.list(self.service.filters(), top, 0, "accessed")
        return {
            "now": to_iso(now),
            "weeks": [to_iso(s) for s in starts],
            "by_type": series(by_type, sorted(by_type)),
            "by_project": series(by_project, shown_projects),
            "project_totals": dict(project_totals.most_common()),
            "most_recalled": [m.to_dict() for m in recalled if m.access_count > 0],
            "decaying": [
                {"decay": round(value, 4),
                 "age_days": round((now - m.when).total_seconds() / 86400, 1),
                 "memory": m.to_dict()}
                for value, m in fading[:top]
            ],
            "review_pending": self.review_queue(0, 0).total,
            "stats": self.service.store.stats(),
        }


def _kept_apart(first: Memory, second: Memory) -> bool:
    return second.id in (first.meta.get("distinct_from") or ()) or first.id in (
        second.meta.get("distinct_from") or ()
    )
