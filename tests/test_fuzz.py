"""Fuzz: nothing a user types, imports or runs can break the store, the process or a secret.

Bugs the fuzz found are pinned down here by focused tests.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from api_support import start_server
from conftest import run_cli, run_json

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


def test_serve_answers_a_kept_alive_connection_without_waiting(tmp_path: Path) -> None:
    """`engram serve` bound a socket without naming TCP, so asyncio left Nagle on: every
    request after the first on a connection waited ~40 ms for the client's delayed ACK."""
    server = start_server(tmp_path / "home")
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            timings = []
            for _ in range(21):
                started = time.monotonic()
                assert http.get("/health").status_code == 200
                timings.append(time.monotonic() - started)
    finally:
        server.stop()
    assert sorted(timings)[10] < 0.02, timings  # the median: 0.4 ms, 44 ms with the stall


def test_forget_archives_every_id_given_or_none(cli_env: dict[str, str], tmp_path: Path) -> None:
    """`forget A B` archived A, then refused B with exit 1: a refusal must change nothing."""
    db = str(tmp_path / "memory.db")
    keep = run_json(cli_env, "--db", db, "add", "The first memory stays active")["id"]
    old = run_json(cli_env, "--db", db, "add", "Builds use the old toolchain")["id"]
    run_cli(cli_env, "--db", db, "update", old, "--content", "Builds use the new toolchain",
            check=True)
    for bad in ("nosuchid00", "a b", old):  # unknown, not an id, superseded
        proc = run_cli(cli_env, "--db", db, "forget", keep, bad)
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
        assert run_json(cli_env, "--db", db, "get", keep)["status"] == "active"
    assert run_cli(cli_env, "--db", db, "forget", keep).returncode == 0
    assert run_json(cli_env, "--db", db, "get", keep)["status"] == "archived"
