"""`engram context`: the context pack the hooks and MCP give an agent, at the terminal.

What `/engram` runs inside Claude Code. The project defaults to the one the hooks name
for the current folder (a mapping in config.toml, else the git root's name), so the pack
a person asks for is the pack their agent gets.
"""

from __future__ import annotations

import os

import click

from .common import emit_json, handle_errors, json_option, open_service, split_list, wants_json


@click.command()
@click.argument("task", required=False)
@click.option("--project", help="Project (default: the current folder's, as the hooks name it).")
@click.option("--files", help="Comma-separated files you are about to work on.")
@click.option("--budget", default=1500, show_default=True, type=int,
              help="Token budget (50-50000).")
@json_option
@handle_errors
def context(task: str | None, project: str | None, files: str | None, budget: int,
            as_json: bool) -> None:
    """Print the context pack for TASK ('-' reads it from standard input): rules,
    decisions, commands that work, known bugs."""
    from ..hooks.state import project_for

    if task == "-":
        from .common import read_stdin

        task = read_stdin("task")
    service = open_service(remote_ok=True)
    pack = service.context(project=project or project_for(os.getcwd()), task=task or None,
                           files=split_list(files), budget=budget)
    if wants_json(as_json):
        emit_json(pack.to_dict())
        return
    click.echo(pack.text.rstrip() or "(no memories for this project yet)")
