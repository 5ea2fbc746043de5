"""The click application behind `engram`: a group whose subcommands import on use."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from .. import __version__
from . import COMMANDS


@contextmanager
def _one_line_errors() -> Iterator[None]:
    """click repeats what was typed in its usage errors ("Got unexpected extra arguments
    (…)", "No such option: …"): flattened to one line without control characters, so a
    newline or a terminal escape in an argument can neither split the error nor drive the
    terminal."""
    try:
        yield
    except click.ClickException as exc:
        from ..exchange import one_line

        exc.message = one_line(exc.message)
        raise


class LazyGroup(click.Group):
    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        with _one_line_errors():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with _one_line_errors():  # the subcommands parse their arguments in here
            return super().invoke(ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in {*COMMANDS, *self.commands} if self.get_command(ctx, name))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands:
            return self.commands[name]
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attribute = target.split(":")
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # a real missing dependency must not hide silently
                raise
            return None
        return getattr(loaded, attribute, None)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", "db", type=click.Path(dir_okay=False), envvar="ENGRAM_DB",
              help="Store file (default: $ENGRAM_HOME/memory.db, ~/.engram/memory.db), or"
                   " a postgresql://user:password@host:port/db URL.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")
@click.option("--errors-on-stdout", "errors_on_stdout", is_flag=True, hidden=True,
              help="Print a failure as one 'engram: error: …' line on stdout and exit 0"
                   " (for the slash commands' ! lines, whose failures Claude Code drops).")
@click.version_option(version=__version__, prog_name="engram")
@click.pass_context
def cli(ctx: click.Context, db: str | None, as_json: bool, errors_on_stdout: bool) -> None:
    """Long-term memory for AI coding agents."""
    ctx.ensure_object(dict)
    ctx.obj["db"] = db
    ctx.obj["json"] = as_json
    ctx.obj["errors_on_stdout"] = errors_on_stdout
