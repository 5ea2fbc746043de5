"""Human output: short tables for lists, a card for one memory, colour only on a TTY."""

from __future__ import annotations

from typing import Any

from ..model import Memory
from .common import console


def _age(memory: Memory) -> str:
    return memory.when.strftime("%Y-%m-%d")


def _flags(memory: Memory) -> str:
    flags = []
    if memory.pinned:
        flags.append("pinned")
    if memory.status != "active":
        flags.append(memory.status)
    return " ".join(flags)


def memory_table(
    memories: list[Memory], scores: list[float] | None = None, title: str = ""
) -> None:
    from rich.table import Table

    out = console()
    if not memories:
        out.print("[dim]no memories[/dim]")
        return
    table = Table(title=title or None, show_lines=False, expand=False)
    table.add_column("id", style="cyan", no_wrap=True)
    if scores is not None:
        table.add_column("score", justify="right")
    table.add_column("type", style="magenta", no_wrap=True, max_width=12)
    table.add_column("project", style="green", no_wrap=True, max_width=12)
    table.add_column("date", no_wrap=True)
    table.add_column("content", overflow="fold")
    flagged = any(_flags(m) for m in memories)
    if flagged:
        table.add_column("", style="yellow")
    for i, memory in enumerate(memories):
        text = " ".join(memory.content.split())
        if len(text) > 160:
            text = text[:157] + "…"
        row = [memory.id]
        if scores is not None:
            row.append(f"{scores[i]:.3f}")
        row += [memory.type, memory.project or "—", _age(memory), text]
        if flagged:
            row.append(_flags(memory))
        table.add_row(*row)
    out.print(table)


def memory_card(memory: Memory) -> None:
    out = console()
    out.print(
        f"[bold cyan]{memory.id}[/bold cyan]  [magenta]{memory.type}[/magenta]"
        f" ({memory.layer})  [green]{memory.project or 'global'}[/green]  {memory.status}"
        + ("  [yellow]pinned[/yellow]" if memory.pinned else "")
    )
    out.print(memory.content, markup=False)
    rows: list[tuple[str, Any]] = [
        ("problem", memory.problem),
        ("solution", memory.solution),
        ("tags", ", ".join(memory.tags)),
        ("files", ", ".join(memory.files)),
        ("importance", memory.importance),
        ("confidence", memory.confidence),
        ("provenance", memory.provenance),
        ("created", memory.created_at.isoformat()),
        ("event", memory.event_at and memory.event_at.isoformat()),
        ("expires", memory.expires_at and memory.expires_at.isoformat()),
        ("supersedes", memory.supersedes),
        ("superseded by", memory.superseded_by),
        ("accessed", f"{memory.access_count}×"),
    ]
    for name, value in rows:
        if value not in (None, ""):
            out.print(f"  [dim]{name}:[/dim] {value}", markup=True, highlight=False)
