"""What the service's writes return to adapters (each has the JSON form adapters send)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import Memory


@dataclass(frozen=True)
class Conflict:
    """An active memory of the same project and type that reads close to a new one."""

    memory: Memory
    similarity: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "content": self.memory.content,
            "similarity": round(self.similarity, 4),
        }


@dataclass(frozen=True)
class SaveResult:
    memory: Memory
    duplicate: bool = False
    conflicts: tuple[Conflict, ...] = ()
    redacted: tuple[str, ...] = ()
    #: Not saved yet: the team server was unreachable, the memory waits in the outbox.
    queued: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = {
            "id": self.memory.id,
            "duplicate": self.duplicate,
            "conflicts": [c.to_dict() for c in self.conflicts],
            "redacted": list(self.redacted),
            "memory": self.memory.to_dict(),
        }
        if self.queued:
            data["queued"] = True
        return data


@dataclass
class ImportResult:
    imported: int = 0
    duplicates: int = 0
    ids: list[str | None] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "duplicates": self.duplicates,
            "ids": self.ids,
            "errors": self.errors,
        }


def deleted_answer(memory: Any, hard: bool) -> dict[str, Any]:
    """What every adapter answers to a delete (CLI --json, REST, MCP): one shape."""
    return {"id": memory.id, "deleted": True, "hard": hard, "memory": memory.to_dict()}
