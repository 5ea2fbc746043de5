"""`engram config get|set|unset|list`: Engram's config.toml without opening an editor."""

from __future__ import annotations

import json

import click

from .common import emit_json, handle_errors, json_option, wants_json


@click.group("config")
def config() -> None:
    """Read and change $ENGRAM_HOME/config.toml (other keys and comments are kept)."""


def _shown(value: object) -> str:
    return json.dumps(value) if isinstance(value, bool | int | float) else str(value)


@config.command("get")
@click.argument("key")
@json_option
@handle_errors
def get(key: str, as_json: bool) -> None:
    """Print KEY's value (exit 1 when it is not set)."""
    from ..config_keys import get as read

    value = read(key)
    if wants_json(as_json):
        emit_json({"key": key, "value": value})
    elif value is not None:
        click.echo(_shown(value))
    if value is None:
        raise SystemExit(1)


@config.command("set")
@click.argument("key")
@click.argument("value")
@json_option
@handle_errors
def set_(key: str, value: str, as_json: bool) -> None:
    """Set KEY to VALUE (read as the key's kind: a number, true/false, text)."""
    from ..config_keys import set_value

    stored = set_value(key, value)
    if wants_json(as_json):
        emit_json({"key": key, "value": stored})
    else:
        click.echo(f"{key} = {_shown(stored)}")


@config.command("unset")
@click.argument("key")
@handle_errors
def unset(key: str) -> None:
    """Remove KEY from the file (its default applies again)."""
    from ..config_keys import unset as remove

    click.echo(f"{key} {'removed' if remove(key) else 'was not set'}")


@config.command("list")
@click.option("--all", "everything", is_flag=True, help="Also the keys not set, with what they do.")
@json_option
@handle_errors
def list_(everything: bool, as_json: bool) -> None:
    """The keys set in config.toml (with --all, every key Engram reads)."""
    from ..config_keys import current, known

    values = current()
    if everything:
        rows = {key: values.get(key) for key in sorted({*known(), *values})}
    else:
        rows = dict(sorted(values.items()))
    if wants_json(as_json):
        emit_json(rows)
        return
    for key, value in rows.items():
        if key == "server.token" and value is not None:
            value = "(set)"  # a secret is not printed; `config get server.token` shows it
        click.echo(f"{key}\t{'' if value is None else _shown(value)}")
