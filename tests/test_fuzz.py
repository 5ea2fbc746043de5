"""Fuzz: nothing a user types, imports or runs can break the store, the process or a secret.

Bugs the fuzz found are pinned down here by focused tests.
"""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli

# --- found by the fuzz ---------------------------------------------------------------------------


def test_usage_errors_stay_one_line_whatever_was_typed(cli_env: dict[str, str],
                                                        tmp_path: Path) -> None:
    """click repeated a typed newline or terminal escape in its usage errors."""
    for args in (["list", "extra\narg", "\x1b[2J"], ["list", "--li\nmit"],
                 ["add", "x", "y\n\nz"], ["bench", "nope\nnope"]):
        proc = run_cli(cli_env, "--db", str(tmp_path / "memory.db"), *args)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.split("\n")
        assert len(lines) == 5 and lines[-1] == "", proc.stderr  # Usage, Try, blank, Error
        assert lines[3].startswith("Error: ") and "\x1b" not in proc.stderr, proc.stderr
