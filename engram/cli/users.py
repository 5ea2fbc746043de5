"""`engram users`: the users of a shared store and their tokens.

They act on the store named by --db / ENGRAM_DB (a file or a PostgreSQL URL), which is
the store `engram serve` serves: a user added here can call that server at once.
"""

from __future__ import annotations

import click

from .common import console, emit_json, esc, handle_errors, json_option, open_service, wants_json


@click.group()
def users() -> None:
    """Users of a shared server (`engram serve`): add, list, remove, rotate."""


def _token_notice(name: str, token: str) -> None:
    out = console()
    out.print(f"token for [bold]{esc(name)}[/bold] (shown once, keep it secret):", markup=True)
    click.echo(token)


@users.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(["reader", "writer", "admin"]), default="writer",
              show_default=True, help="reader: read; writer: also save and edit; admin: all.")
@json_option
@handle_errors
def add(name: str, role: str, as_json: bool) -> None:
    """Create a user and print their token once."""
    service = open_service(embedder="none")
    user, token = service.users.add(name, role)
    if wants_json(as_json):
        emit_json({"name": user.name, "role": user.role, "token": token})
    else:
        _token_notice(user.name, token)


@users.command("list")
@json_option
@handle_errors
def list_(as_json: bool) -> None:
    """The users of this store (never their tokens)."""
    service = open_service(embedder="none")
    found = service.users.list()
    if wants_json(as_json):
        emit_json(found)
        return
    if not found:
        click.echo("no users: this store is single-user")
    for user in found:
        click.echo(f"{user['name']}\t{user['role']}\t{user['created_at']}")


@users.command("remove")
@click.argument("name")
@json_option
@handle_errors
def remove(name: str, as_json: bool) -> None:
    """Remove a user; their token stops working at once."""
    service = open_service(embedder="none")
    service.users.remove(name)
    if wants_json(as_json):
        emit_json({"removed": name})
    else:
        click.echo(f"removed {name}")


@users.command("rotate")
@click.argument("name")
@json_option
@handle_errors
def rotate(name: str, as_json: bool) -> None:
    """Give a user a new token; the old one stops working at once."""
    service = open_service(embedder="none")
    token = service.users.rotate(name)
    if wants_json(as_json):
        emit_json({"name": name, "token": token})
    else:
        _token_notice(name, token)
