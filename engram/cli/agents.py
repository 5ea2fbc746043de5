"""Commands that connect Engram to coding agents: hook, setup, doctor, prompt."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import console, emit_json, esc, handle_errors, json_option, wants_json


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("event", required=False, default="")
def hook(event: str) -> None:
    """Answer a Claude Code hook EVENT (payload on stdin). Always exits 0.

    \b
    Events: SessionStart, UserPromptSubmit, PostToolUse, Stop, PreCompact, SessionEnd.
    Failures go to $ENGRAM_HOME/logs/hooks.log, never to the agent.
    """
    import os

    from ..hooks import main as hook_main

    root = click.get_current_context().find_root()
    if root.obj and root.obj.get("db"):  # `engram --db X hook …`: the hooks read $ENGRAM_DB
        os.environ["ENGRAM_DB"] = str(root.obj["db"])
    sys.exit(hook_main([event] if event else []))


@click.command()
@click.option("--scope", type=click.Choice(["user", "project"]), default="user",
              show_default=True, help="user: each agent's settings in your home folder; "
                                      "project: this repo's files.")
@click.option("--agent", "agents", multiple=True,
              type=click.Choice(["claude", "codex", "cursor", "gemini", "opencode"]),
              help="Configure only these agents (default: the ones detected).")
@click.option("--project-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Project folder for --scope project (default: the current folder).")
@click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")
@click.option("--uninstall", is_flag=True, help="Remove exactly what setup added.")
@click.option("--summarizer", metavar="claude|codex|endpoint|off",
              help="Opt-in LLM summariser of sessions, run in the background after them: "
                   "claude or codex (the CLI you are logged into) or endpoint (or "
                   "ollama:<model> / openai:<model>). Spends that account's quota.")
@click.option("--url", metavar="URL|off",
              help="A team server (`engram serve`) every client on this machine uses; "
                   "off: back to the local store.")
@click.option("--token", metavar="TOKEN", help="Your token on that server (engram users add).")
@json_option
@handle_errors
def setup(scope: str, agents: tuple[str, ...], project_dir: Path | None, dry_run: bool,
          uninstall: bool, summarizer: str | None, url: str | None, token: str | None,
          as_json: bool) -> None:
    """Register Engram with Claude Code (MCP + hooks), Codex, Cursor, Gemini CLI (MCP +
    recall hooks) and OpenCode.

    Merges into existing config files without dropping anything, backs every file up
    under $ENGRAM_HOME/backups before changing it, and does nothing on a second run.
    """
    from ..setup import SetupError, execute, plan
    from ..setup import summarizer as summariser_setup

    if summarizer is not None and uninstall and summarizer.strip() != "off":
        raise click.UsageError("--uninstall turns a summarizer off, not on: use "
                               "--summarizer off")
    edit = summariser_setup.change(summarizer) if summarizer is not None else None
    if token is not None and url is None:
        raise click.UsageError("--token goes with --url (the server it is for)")
    server_edit = None
    if url is not None:
        from ..setup import server as server_setup

        server_edit = server_setup.change(url, token)
    plans = plan(scope=scope, agents=list(agents) or None, project_dir=project_dir,
                 uninstall=uninstall)
    result = execute(plans, dry_run=dry_run, uninstall=uninstall)
    if edit is not None and not dry_run:
        summariser_setup.write(edit)
    if server_edit is not None and not dry_run:
        summariser_setup.write(server_edit)  # config.toml, private, replaced atomically
        where = "the local store" if url.strip() == "off" else url
        click.echo(f"{'engram':7} {'updated' if server_edit.changed else 'unchanged':12} "
                   f"{server_edit.path}  (clients use {where})", err=wants_json(as_json))
    if wants_json(as_json):
        data = result.to_dict()
        if edit is not None:
            data["summarizer"] = {"value": summarizer, "path": str(edit.path),
                                  "changed": edit.changed, "note": summariser_setup.note(
                                      summarizer)}
        emit_json(data)
        if any(p.error for p in plans):
            raise SystemExit(1)
        return
    if edit is not None:
        if dry_run and edit.changed:
            click.echo(edit.diff(), nl=False)
        state = ("would change" if dry_run else "updated") if edit.changed else "unchanged"
        click.echo(f"{'engram':7} {state:12} {edit.path}  ({summariser_setup.note(summarizer)})")
    if not plans:
        click.echo("no coding agent detected (looked for claude, codex, cursor); "
                   "choose one with --agent claude|codex|cursor")
        return
    for change in result.changes if dry_run else []:
        click.echo(change.diff(), nl=False)
    verb = "would change" if dry_run else ("restored" if uninstall else "updated")
    for p in plans:
        for change in p.changes:
            state = verb if change.changed else "unchanged"
            click.echo(f"{p.agent:7} {state:12} {change.path}  ({change.what})")
        for argv in p.commands:
            click.echo(f"{p.agent:7} {'would run' if dry_run else 'ran':12} {' '.join(argv)}")
        for note in p.notes:
            click.echo(f"{p.agent:7} note: {note}")
        if p.error:
            click.echo(f"{p.agent:7} {'failed':12} {p.error}", err=True)
    quiet = edit is None or not edit.changed
    failed = [p.agent for p in plans if p.error]
    if not result.changes and not any(p.commands for p in plans) and quiet and not failed:
        click.echo("nothing to do: already " + ("removed" if uninstall else "set up"))
    elif not dry_run and result.backups:
        click.echo(f"backups: {Path(result.backups[0]).parent}")
    if failed:
        raise SetupError(f"not set up: {', '.join(failed)} (see above)")


@click.command()
@click.option("--project-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Project whose settings to check (default: the current folder).")
@json_option
def doctor(project_dir: Path | None, as_json: bool) -> None:
    """Check the store, the embedder, the hooks and MCP registrations; print fixes."""
    from ..setup.doctor import run_checks

    root = click.get_current_context().find_root()
    db = root.obj.get("db") if root.obj else None
    checks = run_checks(db, project_dir)
    failed = any(c.status == "fail" for c in checks)
    if wants_json(as_json):
        emit_json({"ok": not failed, "checks": [c.to_dict() for c in checks]})
    else:
        out = console()
        marks = {"ok": "[green]✓[/green]", "warn": "[yellow]![/yellow]", "fail": "[red]✗[/red]"}
        for check in checks:
            out.print(f"{marks[check.status]} {esc(check.name)}: {esc(check.detail)}")
            if check.fix:
                out.print(f"    fix: {esc(check.fix)}")
    sys.exit(1 if failed else 0)


@click.command()
@json_option
def prompt(as_json: bool) -> None:
    """Print the instructions to give any other agent about using Engram."""
    from ..service import Engram

    text = Engram.instructions()
    if wants_json(as_json):
        emit_json({"instructions": text})
    else:
        click.echo(text, nl=not text.endswith("\n"))
