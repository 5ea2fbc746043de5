"""Commands over single memories and searches: thin wrappers over the service."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from ..exchange import one_line
from .common import (
    console,
    emit_json,
    esc,
    handle_errors,
    json_option,
    open_service,
    parse_when,
    read_stdin,
    split_list,
    store_named,
    wants_json,
)
from .render import memory_card, memory_table

TYPE_HELP = "Memory type (decision, constraint, preference, project_fact, …)."
ADD_TYPE_HELP = TYPE_HELP.rstrip(".") + "; 'auto' infers it from the text."


def complete_type(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of --type: the memory types (and `auto` where a save infers it).
    Completion only: a wrong type is still refused by the service, with one line."""
    from ..model import TYPES

    offered = [*TYPES, "auto"] if param.name == "type_" and ctx.info_name == "add" else TYPES
    return [t for t in offered if t.startswith(incomplete)]


def _content(text: str) -> str:
    return read_stdin("content") if text == "-" else text


@click.command()
@click.argument("text")
@click.option("--type", "type_", help=ADD_TYPE_HELP, shell_complete=complete_type)
@click.option("--project", help="Project name (default: this folder's project, as the hooks "
              "and MCP name it; $ENGRAM_PROJECT overrides).")
@click.option("--global", "global_", is_flag=True, help="A global memory, for every project.")
@click.option("--tags", help="Comma-separated tags.")
@click.option("--files", help="Comma-separated file paths the memory is about.")
@click.option("--problem", help="The problem (for checkpoints and bug notes).")
@click.option("--solution", help="The solution that worked.")
@click.option("--importance", type=float, help="0 to 1 (default 0.5).")
@click.option("--confidence", type=float, help="0 to 1 (default by provenance).")
@click.option("--pinned", is_flag=True, help="Always include in context packs.")
@click.option("--created-at", help="When it was learned (ISO 8601; default now).")
@click.option("--event-at", help="When it happened, if different (ISO 8601 or 'yesterday').")
@click.option("--expires-at", help="When it stops being true (ISO 8601).")
@click.option("--supersedes", help="Id of the memory this one replaces.")
@click.option("--scope", type=click.Choice(["personal", "team"]),
              help="Who may see it on a shared server (default: personal for a preference, "
              "team for the rest).")
@click.option(
    "--provenance",
    default="human",
    show_default=True,
    help="Who said it: human, agent, hook, checkpoint, import.",
)
@json_option
@handle_errors
def add(
    text: str,
    type_: str | None,
    project: str | None,
    global_: bool,
    tags: str | None,
    files: str | None,
    problem: str | None,
    solution: str | None,
    importance: float | None,
    confidence: float | None,
    pinned: bool,
    created_at: str | None,
    event_at: str | None,
    expires_at: str | None,
    supersedes: str | None,
    scope: str | None,
    provenance: str,
    as_json: bool,
) -> None:
    """Remember TEXT ('-' reads standard input), in this folder's project unless told."""
    if global_ and project:
        raise click.UsageError("--global and --project name two different places")
    if global_:
        project = None
    elif project is None:
        from ..hooks.state import default_project

        project = default_project(os.getcwd())
    service = open_service(remote_ok=True)
    result = service.save(
        _content(text),
        type=type_,
        project=project or None,
        tags=split_list(tags),
        files=split_list(files),
        problem=problem,
        solution=solution,
        importance=importance,
        confidence=confidence,
        pinned=pinned,
        created_at=parse_when("created_at", created_at),
        event_at=parse_when("event_at", event_at),
        expires_at=parse_when("expires_at", expires_at),
        supersedes=supersedes,
        scope=scope,
        provenance=provenance,
    )
    if wants_json(as_json):
        emit_json(result.to_dict())
        return
    out = console()
    if result.queued:
        out.print(f"queued [cyan]{result.memory.id}[/cyan]: the server cannot be reached; "
                  "`engram sync` (or the next command that reaches it) sends it")
    elif result.duplicate:
        said = one_line(result.memory.content)
        out.print(f"already remembered as [cyan]{result.memory.id}[/cyan]: "
                  f"“{esc(said[:117] + '…' if len(said) > 120 else said)}”")
        click.echo("tags and files merged into it; its wording stays (`engram update "
                   f"{result.memory.id} --content …` replaces it)")
    else:
        where = (f"project [bold]{esc(result.memory.project)}[/bold]" if result.memory.project
                 else "global")
        out.print(
            f"saved [cyan]{result.memory.id}[/cyan] ({result.memory.type}, {where})"
            + (f", superseding {result.memory.supersedes}" if result.memory.supersedes else "")
        )
    if result.redacted:
        out.print(f"[yellow]redacted:[/yellow] {esc(', '.join(result.redacted))}")
    for conflict in result.conflicts:
        out.print(
            f"[yellow]possible conflict[/yellow] with [cyan]{conflict.memory.id}[/cyan]"
            f" ({conflict.similarity:.2f}): {esc(one_line(conflict.memory.content)[:100])}",
            markup=True,
        )
        out.print(f"  to replace it: engram add … --supersedes {conflict.memory.id}")


@click.command()
@click.argument("query")
@click.option("-k", "-n", "--limit", "k", default=10, show_default=True, type=int,
              help="How many results.")
@click.option("--project", help="Only this project (and global memories).")
@click.option("--type", "types", multiple=True, help="Only these types (repeatable).",
              shell_complete=complete_type)
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option("--files", help="Comma-separated files the agent is touching (boosts matches).")
@click.option("--since", help="Only memories from this date on (ISO or 'last week').")
@click.option("--until", help="Only memories before this date.")
@click.option("--include-superseded", is_flag=True, help="Also old versions.")
@click.option("--include-archived", is_flag=True, help="Also archived memories.")
@click.option("--explain", is_flag=True, help="Show each signal's contribution.")
@click.option("--all", "show_all", is_flag=True,
              help="Also results far below the best (cut by default).")
@click.option("--min-score", type=click.FloatRange(min=0), default=None,
              help="Keep results scoring at least this (instead of the cut relative to the best).")
@click.option("--no-worker", is_flag=True,
              help="Search in this process, not through the warm worker.")
@json_option
@handle_errors
def search(
    query: str,
    k: int,
    project: str | None,
    types: tuple[str, ...],
    tags: tuple[str, ...],
    files: str | None,
    since: str | None,
    until: str | None,
    include_superseded: bool,
    include_archived: bool,
    explain: bool,
    show_all: bool,
    min_score: float | None,
    no_worker: bool,
    as_json: bool,
) -> None:
    """Find memories relevant to QUERY (keywords and meaning, newest versions only).

    Results far below the best one are left out; --all shows them. When the warm worker
    of this store is up (the hooks start it), it answers: no model load here.
    """
    if show_all and min_score is not None:
        raise click.UsageError("use --all or --min-score, not both")
    from . import warm

    request = warm.search_request(
        read_stdin("query") if query == "-" else query, k=k, project=project,
        types=list(types), tags=list(tags), files=files, since=since, until=until,
        include_superseded=include_superseded, include_archived=include_archived,
        explain=explain, show_all=show_all, min_score=min_score,
    )
    data, missing = (None, False) if no_worker else warm.ask(request, store_named())
    response = None if data is None else warm.search_view(data)
    if response is None:  # no worker, or not an answer this version knows
        data = None
        response = open_service(remote_ok=True).search(**warm.search_kwargs(request))
    elif data and data.get("news"):
        click.echo(data["news"], err=True)
    try:
        if wants_json(as_json):
            # the worker's answer is this JSON already: printed as it came
            emit_json(response.to_dict(explain) if data is None else data["response"])
        else:
            show_search(response, explain)
    finally:
        if missing:  # none was up: one starts now, for the next search
            warm.spawn(store_named())


def show_search(response: Any, explain: bool) -> None:
    """A search's results for a person (a table) or a pipe (one line each)."""
    # piped, stdout carries only the result lines; what is said about them goes to stderr
    def out() -> Any:  # rich loads only when there is something to say
        return console(stderr=not sys.stdout.isatty())

    for note in response.notes:
        out().print(f"[yellow]note:[/yellow] {esc(note)}")
    if response.temporal_phrase:
        out().print(
            f"[dim]time filter from “{esc(response.temporal_phrase)}”: "
            f"{response.since and response.since.date()} → "
            f"{response.until and response.until.date()}[/dim]"
        )
    memory_table([r.memory for r in response.results], [r.score for r in response.results])
    if response.cut:
        weaker = "result" if response.cut == 1 else "results"
        out().print(f"[dim]{response.cut} weaker {weaker} left out (--all shows them)[/dim]")
    if explain:  # asked for: on stdout, after the results
        shown = console()
        for r in response.results:
            parts = ", ".join(f"{k}={v}" for k, v in r.signals.items() if v is not None)
            shown.print(f"[cyan]{r.memory.id}[/cyan] {esc(parts)}", markup=True)


@click.command()
@click.argument("memory_id")
@json_option
@handle_errors
def get(memory_id: str, as_json: bool) -> None:
    """Show one memory (an unambiguous id prefix works too)."""
    memory = open_service(remote_ok=True).get(memory_id)
    if wants_json(as_json):
        emit_json(memory.to_dict())
    else:
        memory_card(memory)


@click.command()
@click.argument("memory_id")
@json_option
@handle_errors
def history(memory_id: str, as_json: bool) -> None:
    """Show a memory's version chain, oldest first."""
    chain = open_service(remote_ok=True).history(memory_id)
    if wants_json(as_json):
        emit_json([m.to_dict() for m in chain])
    else:
        memory_table(chain, title="versions, oldest first")


@click.command("list")
@click.option("--project")
@click.option("--type", "types", multiple=True, shell_complete=complete_type)
@click.option(
    "--status",
    "statuses",
    multiple=True,
    help="active (default), superseded, archived, deleted (repeatable).",
)
@click.option("--tag", "tags", multiple=True)
@click.option("--provenance")
@click.option("--pinned/--not-pinned", default=None)
@click.option("--since")
@click.option("--until")
@click.option("-n", "--limit", default=50, show_default=True, type=int)
@click.option("--offset", default=0, type=int)
@click.option(
    "--order",
    default="newest",
    show_default=True,
    type=click.Choice(["newest", "oldest", "updated", "importance", "accessed"]),
)
@json_option
@handle_errors
def list_(
    project: str | None,
    types: tuple[str, ...],
    statuses: tuple[str, ...],
    tags: tuple[str, ...],
    provenance: str | None,
    pinned: bool | None,
    since: str | None,
    until: str | None,
    limit: int,
    offset: int,
    order: str,
    as_json: bool,
) -> None:
    """List memories, newest first."""
    memories = open_service(remote_ok=True).list(
        project=project,
        types=list(types) or None,
        status=list(statuses) or None,
        tags=list(tags) or None,
        provenance=provenance,
        pinned=pinned,
        since=parse_when("since", since),
        until=parse_when("until", until),
        limit=limit,
        offset=offset,
        order=order,
    )
    if wants_json(as_json):
        emit_json([m.to_dict() for m in memories])
    else:
        memory_table(memories)


@click.command()
@click.argument("memory_id")
@click.option("--content", help="New text: creates a new version unless --in-place.")
@click.option("--type", "type_", help=TYPE_HELP, shell_complete=complete_type)
@click.option("--project", help="Move to this project ('' for global).")
@click.option("--tags", help="Replace tags (comma-separated).")
@click.option("--files", help="Replace files (comma-separated).")
@click.option("--problem")
@click.option("--solution")
@click.option("--importance", type=float)
@click.option("--confidence", type=float)
@click.option("--event-at")
@click.option("--expires-at")
@click.option("--in-place", is_flag=True, help="Fix a typo without making a new version.")
@json_option
@handle_errors
def update(
    memory_id: str,
    content: str | None,
    type_: str | None,
    project: str | None,
    tags: str | None,
    files: str | None,
    problem: str | None,
    solution: str | None,
    importance: float | None,
    confidence: float | None,
    event_at: str | None,
    expires_at: str | None,
    in_place: bool,
    as_json: bool,
) -> None:
    """Change a memory; prints the id of the version that now stands."""
    changes = {
        "content": None if content is None else _content(content),
        "type": type_,
        "project": project,
        "tags": split_list(tags),
        "files": split_list(files),
        "problem": problem,
        "solution": solution,
        "importance": importance,
        "confidence": confidence,
        "event_at": parse_when("event_at", event_at),
        "expires_at": parse_when("expires_at", expires_at),
    }
    memory = open_service(remote_ok=True).update(
        memory_id, in_place=in_place, **{k: v for k, v in changes.items() if v is not None}
    )
    if wants_json(as_json):
        emit_json(memory.to_dict())
    else:
        click.echo(memory.id)


def _simple(name: str, method: str, doc: str, **call: object) -> click.Command:
    @click.command(name, help=doc)
    @click.argument("memory_id")
    @json_option
    @handle_errors
    def command(memory_id: str, as_json: bool) -> None:
        memory = getattr(open_service(remote_ok=True), method)(memory_id, **call)
        if wants_json(as_json):
            emit_json(memory.to_dict())
        else:
            click.echo(
                f"{memory.id} {memory.status}"
                f"{' pinned' if memory.pinned else ''} confidence={memory.confidence:g}"
            )

    return command


archive = _simple("archive", "archive", "Hide a memory from search (restorable).")
restore = _simple("restore", "restore", "Bring back an archived or deleted memory.")
pin = _simple("pin", "pin", "Always include a memory in context packs.")
unpin = _simple("unpin", "unpin", "Stop pinning a memory.")
confirm = _simple("confirm", "confirm", "Vouch for a memory: confidence up.")
reject = _simple("reject", "reject", "Doubt a memory: confidence down.")


@click.command()
@click.argument("memory_id")
@click.option("--hard", is_flag=True, help="Remove it for good (otherwise restorable).")
@json_option
@handle_errors
def delete(memory_id: str, hard: bool, as_json: bool) -> None:
    """Delete a memory: soft by default, --hard removes it from the store."""
    memory = open_service(remote_ok=True).delete(memory_id, hard=hard)
    if wants_json(as_json):
        from ..service.results import deleted_answer

        emit_json(deleted_answer(memory, hard))
    else:
        click.echo(f"{memory.id} {'deleted for good' if hard else 'deleted (restorable)'}")


@click.command()
@json_option
@handle_errors
def stats(as_json: bool) -> None:
    """Counts by type, status and project; where the store is."""
    data = open_service(remote_ok=True).stats()
    if wants_json(as_json):
        emit_json(data)
        return
    out = console()
    out.print(
        f"[bold]store[/bold] {esc(data['path'])}  ({data['size_bytes'] / 1024:.0f} KiB,"
        f" schema v{data['schema_version']})"
    )
    out.print(
        f"[bold]embedder[/bold] {esc(data.get('embedder') or 'none yet')}"
        + ("" if data["vectors_enabled"] else "  [yellow](keyword-only)[/yellow]")
    )
    out.print(
        f"[bold]memories[/bold] {data['total']} ({data['vectors']} with vectors,"
        f" {data['pinned']} pinned)"
    )
    for key in ("by_status", "by_type", "by_project", "by_provenance"):
        if data[key]:
            parts = ", ".join(f"{k}: {v}" for k, v in data[key].items())
            out.print(f"  [dim]{key.replace('_', ' ')}:[/dim] {esc(one_line(parts))}")
    if data.get("health"):
        from .lifecycle import render_health

        render_health(data["health"])
    if data.get("note"):
        out.print(f"[yellow]note:[/yellow] {esc(data['note'])}")
