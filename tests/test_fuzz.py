"""Fuzz: nothing a user types, imports or runs can break the store, the process or a secret.

Bugs the fuzz found are pinned down here by focused tests.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
from api_support import engram_command, start_server
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


def test_a_lone_surrogate_in_a_hook_payload_costs_nothing(cli_env: dict[str, str],
                                                         tmp_path: Path) -> None:
    """JSON.stringify writes a lone surrogate for a string cut between the halves of a
    pair: a prompt holding one lost its recall, a tool error holding one lost its record."""
    home = Path(cli_env["ENGRAM_HOME"])
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    run_cli(cli_env, "add", "Stripe refunds must use payment_intent", "--project", "shop",
            check=True)
    prompt = {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
              "prompt": "how do the stripe refunds work \ud83d now"}
    proc = run_cli(cli_env, "hook", "UserPromptSubmit", input=json.dumps(prompt))
    assert "payment_intent" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    failure = {"session_id": "s2", "cwd": str(project), "tool_name": "Bash",
               "hook_event_name": "PostToolUseFailure", "tool_input": {"command": "pytest"}}
    escaped = json.dumps({**failure, "tool_use_id": "t1", "error": "cut \ud83d"}).encode()
    raw = json.dumps({**failure, "tool_use_id": "t2", "error": "bytes \udcff"},
                     ensure_ascii=False).encode("utf-8", "surrogateescape")  # not UTF-8
    for stdin in (escaped, raw):
        proc = subprocess.run([*engram_command(), "hook", "PostToolUseFailure"], env=cli_env,
                              input=stdin, capture_output=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout == b"", proc
    failures = json.loads((home / "sessions" / "s2.json").read_text())["failures"]
    assert failures["t1"]["error"] == "cut \ufffd" and failures["t2"]["error"] == "bytes \ufffd"
    assert not (home / "logs" / "hooks.log").exists()
