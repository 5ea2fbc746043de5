"""`engram context`: the context pack the hooks and MCP give an agent, at the terminal.

What `/engram` runs inside Claude Code. The project defaults to the one the hooks name
for the current folder (a mapping in config.toml, else the git root's name), so the pack
a person asks for is the pack their agent gets.
"""

from __future__ import annotations

import os

import click

from .common import (
    emit_json,
    handle_errors,
    json_option,
    open_service,
    store_named,
    wants_json,
)


@click.command()
@click.argument("task", required=False)
@click.option("--project", help="Project (default: the current folder's, as the hooks name it).")
@click.option("--files", help="Comma-separated files you are about to work on.")
@click.option("--budget", default=1500, show_default=True, type=int,
              help="Token budget (50-50000).")
@click.option("--no-worker", is_flag=True,
              help="Build the pack in this process, not through the warm worker.")
@json_option
@handle_errors
def context(task: str | None, project: str | None, files: str | None, budget: int,
            no_worker: bool, as_json: bool) -> None:
    """Print the context pack for TASK ('-' reads it from standard input): rules,
    decisions, commands that work, known bugs."""
    from ..hooks.state import project_for
    from . import warm

    if task == "-":
        from .common import read_stdin

        task = read_stdin("task")
    request = warm.context_request(task, project=project or project_for(os.getcwd()),
                                   files=files, budget=budget)
    data, missing = (None, False) if no_worker else warm.ask(request, store_named())
    if data is not None:
        if data.get("news"):
            click.echo(data["news"], err=True)
        pack = data["response"]
    else:
        pack = open_service(remote_ok=True).context(**warm.context_kwargs(request)).to_dict()
    try:
        if wants_json(as_json):
            emit_json(pack)
            return
        click.echo(str(pack.get("text") or "").rstrip() or "(no memories for this project yet)")
    finally:
        if missing:  # none was up: one starts now, for the next command
            warm.spawn(store_named())
