"""Text an agent reads back from a tool: short, one memory a line, ids first so it can act."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent

from ..model import Memory

SNIPPET_CHARS = 300


def result(text: str, data: dict[str, Any]) -> CallToolResult:
    """Both forms: readable text for the model, structured content for programs."""
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def line(memory: Memory, score: float | None = None) -> str:
    """`[id] type · project · date · flags — content`."""
    parts = [memory.type, memory.project or "global", memory.when.strftime("%Y-%m-%d")]
    if score is not None:
        parts.append(f"score {score:.3f}")
    if memory.pinned:
        parts.append("pinned")
    if memory.status != "active":
        parts.append(memory.status)
    text = snippet(memory.content)
    if memory.solution and memory.solution not in memory.content:
        text += f" — solution: {snippet(memory.solution, 160)}"
    return f"[{memory.id}] {' · '.join(parts)} — {text}"


def lines(memories: list[Memory], empty: str = "No memories.") -> str:
    if not memories:
        return empty
    return "\n".join(line(m) for m in memories)


def card(memory: Memory) -> str:
    """One memory in full, as `engram get` shows it."""
    head = (f"[{memory.id}] {memory.type} ({memory.layer}) · {memory.project or 'global'} · "
            f"{memory.status}" + (" · pinned" if memory.pinned else ""))
    rows: list[tuple[str, Any]] = [
        ("problem", memory.problem), ("solution", memory.solution),
        ("tags", ", ".join(memory.tags)), ("files", ", ".join(memory.files)),
        ("importance", memory.importance), ("confidence", memory.confidence),
        ("provenance", memory.provenance), ("created", memory.created_at.isoformat()),
        ("event", memory.event_at and memory.event_at.isoformat()),
        ("expires", memory.expires_at and memory.expires_at.isoformat()),
        ("supersedes", memory.supersedes), ("superseded by", memory.superseded_by),
    ]
    body = [head, memory.content]
    body += [f"  {name}: {value}" for name, value in rows if value not in (None, "")]
    return "\n".join(body)
