"""`engram memory-files sync|compress`: Claude Code's memory files in step with Engram."""

from __future__ import annotations

from pathlib import Path

import click

from .common import emit_json, handle_errors, json_option, open_service, wants_json

_project_dir = click.option(
    "--project-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="The project folder whose memory files to use (default: the current folder).")
_project = click.option("--project", help="Engram project (default: the folder's, as the"
                        " hooks name it).")
_dry_run = click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
_force = click.option("--force", is_flag=True,
                      help="Go ahead even if the file changed since engram last wrote it.")


@click.group("memory-files")
def memory_files() -> None:
    """Keep Claude Code's per-project memory files (MEMORY.md, memory/*.md) in step."""


def _where(project_dir: Path | None, project: str | None) -> tuple[Path, str | None]:
    from ..hooks.state import project_for
    from ..memory_files import memory_folder

    root = (project_dir or Path.cwd()).absolute()
    return memory_folder(root), project or project_for(str(root))


def _report(outcome: object, as_json: bool, verb: str) -> None:
    data = outcome.to_dict()  # type: ignore[attr-defined]
    if wants_json(as_json):
        emit_json(data)
        return
    for path in data["changed"]:
        click.echo(f"{verb} {path}")
    for note in data["notes"]:
        click.echo(note)
    if not data["changed"]:
        click.echo("nothing to change")


@memory_files.command("sync")
@_project_dir
@_project
@_dry_run
@_force
@json_option
@handle_errors
def sync(project_dir: Path | None, project: str | None, dry_run: bool, force: bool,
         as_json: bool) -> None:
    """Write the project's pinned memories, constraints and top decisions into MEMORY.md
    (a generated block between markers; your own text around it is never touched)."""
    from .. import memory_files as files

    folder, name = _where(project_dir, project)
    outcome = files.sync(open_service(), project=name, folder=folder, dry_run=dry_run,
                         force=force)
    _report(outcome, as_json, "would write" if dry_run else "wrote")


@memory_files.command("compress")
@_project_dir
@_project
@click.option("--restore", is_flag=True, help="Put back every file compressed to a stub.")
@_dry_run
@_force
@json_option
@handle_errors
def compress(project_dir: Path | None, project: str | None, restore: bool, dry_run: bool,
             force: bool, as_json: bool) -> None:
    """Replace topic files Engram holds entirely with one-line stubs (after a backup)."""
    from .. import memory_files as files

    folder, name = _where(project_dir, project)
    if restore:
        outcome = files.restore(folder=folder, dry_run=dry_run, force=force)
        _report(outcome, as_json, "would restore" if dry_run else "restored")
        return
    outcome = files.compress(open_service(), project=name, folder=folder, dry_run=dry_run,
                             force=force)
    _report(outcome, as_json, "would compress" if dry_run else "compressed")

