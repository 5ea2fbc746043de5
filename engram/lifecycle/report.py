"""What a sweep did (or, in a dry run, would do): one shape for every lifecycle command."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..model import Memory


@dataclass(frozen=True)
class Action:
    """One change to one memory. `target` is the memory it was merged or folded into."""

    action: str  # archive, merge_duplicate, consolidate, mark_stale, clear_stale, restore
    id: str
    reason: str
    target: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "id": self.id, "reason": self.reason}
        if self.target is not None:
            data["target"] = self.target
        if self.details:
            data["details"] = self.details
        return data


@dataclass
class Report:
    """The plan of a sweep; applying it writes exactly `writes`, nothing else."""

    kind: str
    dry_run: bool
    actions: list[Action] = field(default_factory=list)
    protected: list[dict[str, Any]] = field(default_factory=list)
    created: list[Memory] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # memories to write as they stand here (new ones are in `created`)
    writes: dict[str, Memory] = field(default_factory=dict)

    # the memories as read when planning, to detect changes made meanwhile
    basis: dict[str, Memory] = field(default_factory=dict)

    def change(self, before: Memory, after: Memory) -> None:
        self.basis.setdefault(before.id, before)
        self.writes[before.id] = after

    def current(self, store: Any, memory_id: str) -> Memory | None:
        """The planned write, if the stored memory is still what the plan read.

        Access statistics (which a concurrent recall may bump) are taken from the store;
        any other change makes the write stale, and None is returned.
        """
        planned = self.writes[memory_id]
        before = self.basis[memory_id]
        stored = store.get(memory_id)
        if stored is None:
            return None
        if stored.evolve(access_count=0, last_accessed_at=None) != before.evolve(
            access_count=0, last_accessed_at=None
        ):
            return None
        return planned.evolve(access_count=stored.access_count,
                              last_accessed_at=stored.last_accessed_at)

    def protect(self, memory: Memory, reason: str, would: str) -> None:
        self.protected.append({"id": memory.id, "protected": reason, "would_have": would})

    def counts(self) -> dict[str, int]:
        return dict(Counter(a.action for a in self.actions))

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "dry_run": self.dry_run,
            "counts": self.counts(),
            "actions": [a.to_dict() for a in self.actions],
            "created": [m.to_dict() for m in self.created],
            "protected": self.protected,
            "notes": self.notes,
        }

    def summary(self) -> dict[str, Any]:
        """Small enough for the upkeep record and `engram stats`."""
        return {"counts": self.counts(), "ids": sorted({a.id for a in self.actions}),
                "created": [m.id for m in self.created]}
