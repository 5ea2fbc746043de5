"""What every command shares: opening the service, --json, errors, and printing."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from ..errors import (
    ConflictError,
    EngramError,
    NotFoundError,
    Queued,
    StoreError,
    ValidationError,
)
from .warm import parse_when, split_list

__all__ = ["parse_when", "split_list"]  # defined with the worker's requests, used here too

F = TypeVar("F", bound=Callable[..., Any])


def json_option(func: F) -> F:
    """`--json` works after the subcommand too, as users and scripts type it."""
    return click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON.")(func)


def wants_json(as_json: bool) -> bool:
    ctx = click.get_current_context()
    root = ctx.find_root()
    return as_json or bool(root.obj and root.obj.get("json"))


def store_named() -> str | None:
    """The store --db / ENGRAM_DB names, if any (else the team server or the home store)."""
    ctx = click.get_current_context().find_root()
    return ctx.obj.get("db") if ctx.obj else None


def open_service(embedder: str | None = None, *, remote_ok: bool = False) -> Any:
    """The service the command acts on: the store named by --db / ENGRAM_DB, or, for the
    memory commands (`remote_ok`), the team server named by ENGRAM_URL when no --db is
    given (engram.remote)."""

    import engram

    ctx = click.get_current_context().find_root()
    db = store_named()
    if remote_ok and db is None:
        from ..config import team_server

        url, token = team_server()
    else:
        url = token = None
    if url:
        from ..remote import RemoteEngram

        remote = RemoteEngram(url, token)
        ctx.call_on_close(remote.close)
        return remote
    service = engram.open(db, embedder=embedder)
    ctx.call_on_close(service.close)
    if sys.stderr.isatty():  # a person at a terminal: say what upkeep did meanwhile
        from ..lifecycle.notice import news

        try:
            said = news(service)
        except EngramError:
            said = None  # a busy or read-only store never stops the command itself
        if said:
            click.echo(said, err=True)
    return service


def handle_errors(func: F) -> F:
    """Turn Engram's errors into one line on stderr and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except Queued as exc:  # the server is down: the edit waits, nothing failed
            if wants_json(bool(kwargs.get("as_json"))):
                emit_json({"queued": True, "action": exc.action, "id": exc.memory_id})
            else:
                click.echo(f"queued: {exc}", err=True)
            return None
        except (ValidationError, NotFoundError, ConflictError, StoreError, EngramError) as exc:
            root = click.get_current_context().find_root()
            if root.obj and root.obj.get("errors_on_stdout"):
                click.echo(f"engram: error: {exc}")  # a slash command's ! line shows it
                sys.exit(0)
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def console(stderr: bool = False) -> Any:
    """No emoji codes either: a memory saying ":warning:" prints as written."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False, emoji=False, stderr=stderr)


@contextmanager
def progress_bar(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A bar on standard error (the output stays clean for pipes) that `advance(done)`
    moves; callers show it only when standard error is a terminal."""
    from rich.progress import Progress

    with Progress(console=console(stderr=True), transient=False) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done: bar.update(task, completed=done)


def esc(value: object) -> str:
    """A value (memory text, a path, a project name) placed inside our own rich markup:
    escaped, so that brackets in it print as written."""
    from rich.markup import escape

    return escape(str(value))


def read_stdin(name: str) -> str:
    """Standard input as UTF-8 text, or a ValidationError naming the bad byte."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a test harness's text stream
        return sys.stdin.read()
    data = stream.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(
            name, f"standard input is not valid UTF-8 (byte 0x{data[exc.start]:02x} at"
            f" offset {exc.start})"
        ) from None


def stop_on_sigterm() -> None:
    """SIGTERM ends a server as Ctrl-C does (KeyboardInterrupt), so its `finally` runs and
    the recall-audit rows still queued are written. (uvicorn handles SIGTERM itself, then
    raises it again once shut down: it arrives here as KeyboardInterrupt, not as a kill.)"""
    import signal

    signal.signal(signal.SIGTERM, signal.default_int_handler)
