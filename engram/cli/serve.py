"""`engram serve`: the REST API and the review dashboard over the same service."""

from __future__ import annotations

import os
import socket
import sys

import click

from .common import handle_errors, json_option, open_service, stop_on_sigterm, wants_json


def _bind(host: str, port: int) -> socket.socket:
    """Bind ourselves so that `--port 0` can report the port the system chose.

    The protocol is named: asyncio sets TCP_NODELAY only on sockets whose `proto` is
    IPPROTO_TCP, and without it every request on a kept-alive connection waited ~40 ms
    for Nagle's algorithm and the client's delayed ACK (44 ms -> 0.4 ms per request).
    """
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback needs ENGRAM_TOKEN.")
@click.option("--port", default=3456, show_default=True, type=click.IntRange(0, 65535),
              help="Port (0: any free port, printed at start).")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="ORIGIN",
              help="Allow browser pages of ORIGIN (e.g. http://localhost:5173). Repeatable.")
@click.option("--max-body", default=1_048_576, show_default=True,
              type=click.IntRange(1024, 1024**3), help="Largest request body, in bytes.")
@click.option("--allow-insecure", is_flag=True,
              help="Accept tokens over plain HTTP from other machines (else refused: put a TLS "
              "reverse proxy in front).")
@click.option("--rate-limit", default=600, show_default=True, type=click.IntRange(0, 10**7),
              help="Requests per minute per user or token, REST and MCP together (0: none); "
              "beyond it, 429 with Retry-After.")
@click.option("--log-level", default="warning", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
@json_option
@handle_errors
def serve(host: str, port: int, cors_origins: tuple[str, ...], max_body: int,
          allow_insecure: bool, rate_limit: int, log_level: str, as_json: bool) -> None:
    """Serve the REST API (/v1, docs at /docs), MCP over HTTP (/mcp) and the dashboard (/).

    Listens on 127.0.0.1 by default. Once the store has users (`engram users add`), every
    /v1 request needs `Authorization: Bearer <token>` of one of them (readers read, writers
    also write, admins also delete for good); ENGRAM_TOKEN, when set, is an admin's token.
    Without users or a token, the server refuses to listen anywhere but loopback.
    """
    import uvicorn

    from ..api import check_bind
    from ..api.combined import create_server_app

    token = os.environ.get("ENGRAM_TOKEN", "").strip() or None
    engram = open_service()
    has_users = engram.users.any()
    try:
        check_bind(host, token, has_users=has_users)
    except PermissionError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    backlog = engram.lifecycle.serve_long()  # upkeep in a thread, the audit after replies
    app = create_server_app(engram, token=token, bind_host=host, cors_origins=cors_origins,
                            max_body=max_body, allow_insecure=allow_insecure,
                            rate_per_minute=rate_limit)
    sock = _bind(host, port)
    actual = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if ":" in host.strip("[]") else host
    url = f"http://{shown}:{actual}"
    if wants_json(as_json):
        import json

        click.echo(json.dumps({"url": url, "host": host, "port": actual, "db": engram.path,
                               "token_required": token is not None or has_users,
                               "users": has_users}))
    else:
        click.echo(f"Engram on {url}  (dashboard {url}/, API {url}/v1, MCP {url}/mcp,"
                   f" docs {url}/docs)")
        needed = "users' tokens" if has_users else "required" if token else "none (loopback)"
        click.echo(f"store: {engram.path}; token: {needed}")
    sys.stdout.flush()
    config = uvicorn.Config(app, log_level=log_level, server_header=False,
                            proxy_headers=False, timeout_graceful_shutdown=3)
    stop_on_sigterm()
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, after uvicorn's graceful shutdown
        pass
    finally:
        backlog.close()  # a clean exit loses no recall record
