"""`engram bench capture|locomo|realtalk|redaction|retrieval|scale|teams`: the harnesses in
the checkout's benchmarks/.

The harness is not part of the installed package (it needs the LoCoMo data and writes
benchmarks/RESULTS.md), so this command finds the `benchmarks` folder next to the
`engram` package (an editable install or a checkout), else on the import path (run
from the repository root), and says how to get it otherwise.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import click

SUBCOMMANDS: dict[str, tuple[str]] = {
    "ann": ("benchmarks.ann",),
    "capture": ("benchmarks.capture",),
    "hook-launcher": ("benchmarks.hook_launcher",),
    "locomo": ("benchmarks.locomo",),
    "realtalk": ("benchmarks.realtalk",),
    "redaction": ("benchmarks.redaction",),
    "retrieval": ("benchmarks.retrieval",),
    "scale": ("benchmarks.scale",),
    "teams": ("benchmarks.teams",),
}


def load_benchmark(module: str) -> Any:
    root = Path(__file__).resolve().parents[2]
    if (root / "benchmarks" / "__init__.py").is_file() and str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name not in ("benchmarks", module):
            raise
        raise click.ClickException(
            "the benchmarks ship with Engram's source, not the installed package: run "
            "`engram bench` from a checkout (pip install -e .) or `python -m "
            f"{module}` from the repository root"
        ) from None


class BenchGroup(click.Group):
    """Subcommands import their harness only when run (`engram --help` stays fast)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in SUBCOMMANDS:
            return None
        return load_benchmark(SUBCOMMANDS[name][0]).command


@click.group(cls=BenchGroup)
def bench() -> None:
    """Benchmarks: retrieval quality (LoCoMo) and speed at scale; results in RESULTS.md."""
