"""`engram mcp`: serve memory to agents over MCP (stdio by default, or streamable HTTP)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from .common import handle_errors, open_service, stop_on_sigterm

DEFAULT_PORT = 3457


@click.command("mcp")
@click.option("--http", "http", is_flag=True,
              help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP bind address. Anything but loopback requires $ENGRAM_TOKEN.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535),
              help="HTTP port.")
@handle_errors
def mcp(http: bool, host: str, port: int) -> None:
    """Serve Engram over MCP (stdio for agent configs; --http for a shared server).

    \b
    Environment: ENGRAM_DB / ENGRAM_HOME (store), ENGRAM_EMBEDDER, ENGRAM_PROJECT (default
    project for saves; over stdio it defaults to the project of the folder the agent runs
    in, named as the hooks name it), ENGRAM_TOKEN (bearer token for --http; enforced
    whenever set).
    """
    if not http:
        from ..mcp.early import private_stdin, start

        with private_stdin() as source:
            # before anything heavy loads: the client waits on its initialize
            _serve(False, host, port, early=start(source))
        return
    _serve(True, host, port)


def default_project(http: bool) -> str | None:
    """The project saves go to when the agent names none: $ENGRAM_PROJECT, else, over stdio,
    the project of the folder the agent started this server in, found as the hooks find it
    (a `[projects]` mapping, the git root's name), so both file memories under one name.
    A shared HTTP server has no folder of its own to go by."""
    if http and os.environ.get("ENGRAM_PROJECT") is None:
        return None
    from ..hooks.state import default_project as project_here

    return project_here(os.getcwd())


def _serve(http: bool, host: str, port: int, early: Any = None) -> None:
    from ..mcp.auth import TOKEN_ENV, BindRefused, check_bind

    token = os.environ.get(TOKEN_ENV) or None
    # Over stdio an agent may use a team server (ENGRAM_URL); over HTTP this process is one.
    service = open_service(remote_ok=not http)
    if http:
        try:
            check_bind(host, token, has_users=service.users.any())  # before loading the SDK
        except BindRefused as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)
    from ..mcp.server import build_server, run_http, run_stdio
    from ..remote import RemoteEngram

    backlog = None
    if not isinstance(service, RemoteEngram):  # a server's upkeep is the server's business
        backlog = service.lifecycle.serve_long()  # upkeep in a thread, audit after replies
    server = build_server(service, default_project=default_project(http), inline=not http)
    try:
        stop_on_sigterm()
        if http:
            run_http(server, host=host, port=port, token=token, users=service.users)
        else:
            run_stdio(server, early)
    except KeyboardInterrupt:  # Ctrl-C is how a user stops a server: no traceback
        pass
    finally:
        if backlog is not None:
            backlog.close()  # a clean exit loses no recall record
