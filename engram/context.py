"""Context packs: what an agent should know about a project, within a token budget.

One builder serves the SessionStart hook, the MCP `memory_context` tool and the REST
`/v1/context` endpoint. Sections go in order of what an agent must not miss (pinned,
rules, what is relevant to the task), and every pack opens with the authority rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .exchange import AUTHORITY_RULE, one_line
from .ranking import facts_first
from .text import estimate_tokens

if TYPE_CHECKING:
    from .model import Memory
    from .service import Engram

DEFAULT_BUDGET = 1500
MAX_LINE_CHARS = 400



@dataclass
class ContextPack:
    text: str
    memory_ids: list[str] = field(default_factory=list)
    tokens: int = 0
    sections: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "memory_ids": self.memory_ids,
            "tokens": self.tokens,
            "sections": self.sections,
        }


def _line(memory: Memory) -> str:
    """One memory, one line: its text cannot break out into a heading or a rule of its
    own (`one_line`), and it ends with what Engram, not the memory, says about it."""
    text = one_line(memory.content)
    if memory.solution and memory.solution not in text:
        text += f" — solution: {one_line(memory.solution)}"
    if len(text) > MAX_LINE_CHARS:
        text = text[: MAX_LINE_CHARS - 1] + "…"
    scope = " [global]" if memory.project is None else ""
    stale = memory.meta.get("stale")  # meta can be set by anyone who saves: one line too
    note = (
        f" (⚠ {one_line(stale)[:200]}; verify before relying on it)"
        if isinstance(stale, str) else ""
    )
    return f"- {text}{scope}{note} ({memory.type} {memory.id}, {memory.when:%Y-%m-%d})"


def build(
    service: Engram,
    *,
    project: str | None,
    task: str | None = None,
    files: list[str] | None = None,
    budget: int = DEFAULT_BUDGET,
    exclude: set[str] | None = None,
) -> ContextPack:
    """Fill sections in priority order until the budget is spent."""
    files = files or []
    header = f"# Memory for {project or 'all projects'} (Engram)\n{AUTHORITY_RULE}\n"
    pack = ContextPack(text=header, tokens=estimate_tokens(header))
    seen: set[str] = set(exclude or ())

    def section(title: str, memories: list[Memory]) -> None:
        lines: list[str] = []
        heading = f"\n## {title}\n"
        cost = estimate_tokens(heading)
        for memory in memories:
            if memory.id in seen:
                continue
            line = _line(memory)
            tokens = estimate_tokens(line) + 1
            if pack.tokens + cost + tokens > budget:
                break
            lines.append(line)
            seen.add(memory.id)
            pack.memory_ids.append(memory.id)
            cost += tokens
        if lines:
            pack.text += heading + "\n".join(lines) + "\n"
            pack.tokens += cost
            pack.sections[title] = [m for m in pack.memory_ids[-len(lines) :]]

    scope = {"project": project}
    section("Pinned", service.list(pinned=True, limit=20, order="importance", **scope))
    section(
        "Constraints", service.list(types=["constraint"], limit=20, order="importance", **scope)
    )
    if task or files:
        relevant = service.search(task or " ".join(files), k=8, files=files, **scope).results
        section("Relevant to this task",
                facts_first([r.memory for r in relevant if r.score > 0], lambda m: m))
    section(
        "Preferences", service.list(types=["preference"], limit=15, order="importance", **scope)
    )
    section("Recent decisions", service.list(types=["decision"], limit=8, **scope))
    section("Verified commands", service.list(types=["verified_command"], limit=8, **scope))
    section("Open questions", service.list(types=["open_question"], limit=6, **scope))
    section("Todos", service.list(types=["todo"], limit=6, **scope))
    section(
        "Known bugs and failed attempts",
        service.list(types=["bug_note", "failed_attempt"], limit=6, **scope),
    )
    section(
        "Project facts", service.list(types=["project_fact"], limit=10, order="importance", **scope)
    )
    return pack
