"""Human output: short tables for lists, a card for one memory, colour only on a TTY.

Memory text is data, never markup: every value that comes from a memory reaches rich
as a `Text` (or through `esc` inside our own markup), so `[/usr/local/bin]` prints as
written instead of raising MarkupError, and `[red]` is not swallowed.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import click

from ..exchange import one_line
from ..model import Memory
from .common import console, esc

#: Control characters but tab and newline: a memory (a captured command's coloured
#: output, or a hostile one) must not clear the screen or retitle the terminal.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(text: str) -> str:
    """Multi-line memory text for a terminal, its control characters shown as escapes."""
    return _CONTROLS.sub(lambda m: repr(m.group())[1:-1], text.replace("\r\n", "\n"))


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
    if not memories:
        console().print("[dim]no memories[/dim]")
        return
    if not sys.stdout.isatty():
        # piped (a script, an agent's shell): one tab-separated line per memory, as gh
        # does — id, [score,] type, project, date, content — nothing wrapped or boxed
        for i, memory in enumerate(memories):
            cells = [memory.id, *([f"{scores[i]:.3f}"] if scores is not None else []),
                     memory.type, memory.project or "", f"{memory.when:%Y-%m-%d}",
                     one_line(memory.content)]
            click.echo("\t".join(c.replace("\t", " ") for c in cells))
        return
    from rich.table import Table
    from rich.text import Text

    out = console()
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
        text = one_line(memory.content)
        if len(text) > 160:
            text = text[:157] + "…"
        row = [memory.id]
        if scores is not None:
            row.append(f"{scores[i]:.3f}")
        row += [memory.type, one_line(memory.project or "—"), _age(memory), text]
        if flagged:
            row.append(_flags(memory))
        table.add_row(*(Text(cell) for cell in row))
    out.print(table)


def memory_card(memory: Memory) -> None:
    out = console()
    out.print(
        f"[bold cyan]{esc(memory.id)}[/bold cyan]  [magenta]{esc(memory.type)}[/magenta]"
        f" ({esc(memory.layer)})  [green]{esc(memory.project or 'global')}[/green]"
        f"  {esc(memory.status)}"
        + ("  [yellow]pinned[/yellow]" if memory.pinned else "")
    )
    out.print(_visible(memory.content), markup=False)
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
            out.print(f"  [dim]{name}:[/dim] {esc(_visible(str(value)))}", markup=True,
                      highlight=False)
