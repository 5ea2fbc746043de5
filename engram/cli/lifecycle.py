"""Lifecycle commands: consolidate, unconsolidate, gc, forget, log, stale.

Each is a thin wrapper over one service method; every one takes --json, and the
sweeps take --dry-run, which reports exactly what would change and changes nothing.
"""

from __future__ import annotations

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
    wants_json,
)

dry_run_option = click.option(
    "--dry-run", is_flag=True, help="Report what would change; change nothing."
)


def _print_report(data: dict[str, Any], empty: str) -> None:
    out = console()
    for note in data.get("notes", []):
        out.print(f"[dim]{esc(note)}[/dim]")
    prefix = "would " if data["dry_run"] else ""
    if not data["actions"]:
        out.print(f"[dim]{empty}[/dim]")
    for action in data["actions"]:
        target = f" → {action['target']}" if action.get("target") else ""
        out.print(f"{prefix}{esc(action['action'].replace('_', ' '))}"
                  f" [cyan]{esc(action['id'])}[/cyan]{esc(target)}:"
                  f" {esc(one_line(action['reason']))}", markup=True, highlight=False)
    for memory in data.get("created", []):
        out.print(f"  [dim]{esc(memory['id'])}:[/dim] {esc(one_line(memory['content'])[:200])}",
                  markup=True)
    for kept in data.get("protected", []):
        out.print(f"[yellow]kept[/yellow] [cyan]{esc(kept['id'])}[/cyan]"
                  f" ({esc(kept['protected'])}), would have: {esc(kept['would_have'])}",
                  markup=True)
    if data["dry_run"]:
        out.print("[dim]dry run: nothing was changed[/dim]")


@click.command()
@click.option("--project", help="Only this project.")
@click.option("--similarity", type=float, help="How alike to merge (default 0.8).")
@click.option("--min-age", "min_age", type=float, help="Only memories at least this many days old"
              " (default 14).")
@dry_run_option
@json_option
@handle_errors
def consolidate(project: str | None, similarity: float | None, min_age: float | None,
                dry_run: bool, as_json: bool) -> None:
    """Merge related aging episodes and task summaries into consolidated memories."""
    report = open_service().consolidate(project=project, dry_run=dry_run,
                                        similarity=similarity, min_age_days=min_age)
    data = report.to_dict()
    if wants_json(as_json):
        emit_json(data)
    else:
        _print_report(data, "nothing to consolidate")


@click.command()
@click.argument("memory_id")
@json_option
@handle_errors
def unconsolidate(memory_id: str, as_json: bool) -> None:
    """Undo a consolidation: its sources come back exactly as they were."""
    restored = open_service().unconsolidate(memory_id)
    if wants_json(as_json):
        emit_json({"restored": [m.to_dict() for m in restored]})
    else:
        for memory in restored:
            click.echo(f"{memory.id} {memory.status}")


@click.command()
@click.option("--upkeep", "upkeep_trigger", hidden=True,
              help="Run the whole automatic upkeep (GC and consolidation), recorded.")
@dry_run_option
@json_option
@handle_errors
def gc(upkeep_trigger: str | None, dry_run: bool, as_json: bool) -> None:
    """Archive expired and decayed memories and merge duplicates (protected ones stay)."""
    service = open_service()
    if upkeep_trigger:
        result = service.upkeep(upkeep_trigger)
        if wants_json(as_json):
            emit_json(result)
        else:
            click.echo(f"upkeep: {result}")
        return
    data = service.gc(dry_run=dry_run).to_dict()
    if wants_json(as_json):
        emit_json(data)
    else:
        _print_report(data, "nothing to collect")


@click.command()
@click.argument("memory_ids", nargs=-1)
@click.option("--sweep", is_flag=True, help="Archive every memory whose forgetting risk is high.")
@click.option("--threshold", type=float, help="Risk from which to archive (default 0.75).")
@click.option("--project", help="Sweep only this project.")
@dry_run_option
@json_option
@handle_errors
def forget(memory_ids: tuple[str, ...], sweep: bool, threshold: float | None,
           project: str | None, dry_run: bool, as_json: bool) -> None:
    """Archive memories: the IDs given, or with --sweep the old, unused, unimportant ones."""
    service = open_service()
    if not sweep and not memory_ids:
        raise click.UsageError("give memory ids to forget, or --sweep")
    if sweep and memory_ids:
        raise click.UsageError("give either memory ids or --sweep, not both")
    if memory_ids:
        if dry_run:
            memories = [service.resolve(i) for i in memory_ids]
        else:
            memories = service.archive_many(memory_ids)  # all or none
        if wants_json(as_json):
            emit_json({"dry_run": dry_run, "archived": [m.id for m in memories]})
        else:
            for memory in memories:
                click.echo(f"{'would archive' if dry_run else 'archived'} {memory.id}")
        return
    data = service.forget_sweep(dry_run=dry_run, threshold=threshold, project=project).to_dict()
    if wants_json(as_json):
        emit_json(data)
    else:
        _print_report(data, "nothing is at risk of being forgotten")


@click.command()
@click.option("--since", help="Only recalls from this date on (ISO or 'yesterday', '7d').")
@click.option("--caller", help="Only recalls by hook, mcp, api, ….")
@click.option("-n", "--limit", default=100, show_default=True, type=int)
@click.option("--upkeep", "upkeep", is_flag=True,
              help="What automatic upkeep archived and merged, with the commands that undo it.")
@json_option
@handle_errors
def log(since: str | None, caller: str | None, limit: int, upkeep: bool,
        as_json: bool) -> None:
    """The recall audit log: what hooks, MCP and the API handed to agents."""
    if upkeep:
        _upkeep_log(limit, as_json)
        return
    entries = open_service().recalls(since=parse_when("since", since), caller=caller,
                                     limit=limit)
    if wants_json(as_json):
        emit_json(entries)
        return
    out = console()
    if not entries:
        out.print("[dim]no recalls logged[/dim]")
    for entry in entries:
        ids = ", ".join(entry["ids"][:8]) + (" …" if len(entry["ids"]) > 8 else "")
        out.print(f"{esc(entry['at'][:19])} [magenta]{esc(entry['caller'])}[/magenta]"
                  f" “{esc(one_line(entry['query'])[:80])}” → {esc(ids or 'nothing')}",
                  markup=True,
                  highlight=False)


def _upkeep_log(limit: int, as_json: bool) -> None:
    from ..lifecycle.notice import sentence, what_it_did

    runs = [what_it_did(r) for r in open_service().upkeep_runs(limit)]
    if wants_json(as_json):
        emit_json(runs)
        return
    out = console()
    if not runs:
        out.print("[dim]upkeep has not run on this store[/dim]")
    for run in runs:
        when = esc((run["finished_at"] or "running")[:19])
        did = run["error"] and f"failed: {run['error']}" or sentence(run) or "changed nothing"
        out.print(f"{when} [magenta]{esc(run['trigger'] or '')}[/magenta] {esc(did)}",
                  markup=True, highlight=False)
        for command in run["undo"][:20]:
            out.print(f"  {esc(command)}", highlight=False)
        if len(run["undo"]) > 20:
            out.print(f"  … and {len(run['undo']) - 20} more (--json lists them all)",
                      highlight=False)


@click.command()
@click.option("--project", help="Project to check (default: the repository's project, as the"
              " hooks name it).")
@click.option("--all-projects", is_flag=True, help="Check every project's memories.")
@click.option("--repo", type=click.Path(file_okay=False),
              help="The git repository (default: the current directory's).")
@dry_run_option
@json_option
@handle_errors
def stale(project: str | None, all_projects: bool, repo: str | None, dry_run: bool,
          as_json: bool) -> None:
    """Mark memories naming files that were deleted or changed since they were written."""
    from ..hooks.state import project_for
    from ..lifecycle.staleness import git_root

    root = git_root(repo)
    # the project the hooks would name for this repository ([projects] in config wins)
    project = project or project_for(str(root)) or root.name
    data = open_service().check_stale(
        repo=root, project=project, all_projects=all_projects, dry_run=dry_run,
    ).to_dict()
    if wants_json(as_json):
        emit_json(data)
    else:
        _print_report(data, "no memory names a file that changed")


def render_health(health: dict[str, Any]) -> None:
    """The `health` part of `engram stats` for humans (for the stats command to call)."""
    out = console()
    for key in ("active_by_layer", "decay", "archived_by"):
        if health.get(key):
            parts = ", ".join(f"{k}: {v}" for k, v in health[key].items())
            out.print(f"  [dim]{key.replace('_', ' ')}:[/dim] {esc(parts)}", markup=True)
    flags = [f"{health[k]} {k.replace('_', ' ')}" for k in
             ("expired_but_active", "stale", "consolidated", "protected") if health.get(k)]
    if flags:
        out.print(f"  [dim]lifecycle:[/dim] {', '.join(flags)}", markup=True)
    upkeep = health.get("upkeep") or {}
    last = upkeep.get("last_run")
    when = f"{last['at'][:19]} ({last['trigger']})" if last else "never"
    out.print(f"[bold]upkeep[/bold] last ran {when}; mode {upkeep.get('mode')};"
              f" {upkeep.get('writes_since_last_run', 0)} writes since"
              f" (runs every {upkeep.get('every_saves')} saves or"
              f" {upkeep.get('interval_hours'):g} h)", markup=True)
    out.print(f"[bold]recall log[/bold] {health.get('recalls_logged', 0)} entries", markup=True)
