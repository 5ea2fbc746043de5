"""A hook ends within its deadline whatever the store is doing: write-locked by a long
writer, damaged, missing, or stuck inside SQLite. The real `engram hook` command runs in
a subprocess with no warm worker (the in-process path, as after the worker's idle exit);
it must exit 0, print nothing or Claude Code's JSON, and leave at most one log line."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write_lock_held

import engram
from engram.hooks.runner import BACKSTOP_GRACE_SECONDS, DEADLINES

ENGRAM = str(Path(sys.executable).with_name("engram"))
FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
# Python start-up and imports happen before the hook's clock starts; a loaded test
# machine adds more. Claude Code's own timeouts (engram/setup/targets.py) are ≥ 10 s.
MARGIN = 1.0


@pytest.fixture
def env(cli_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    env = dict(cli_env)
    env["ENGRAM_HOOK_WORKER"] = "off"
    env["ENGRAM_EMBEDDER"] = "none"
    env["ENGRAM_UPKEEP"] = "off"
    env.pop("ENGRAM_HOOK_DEADLINE", None)
    return env


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    return root


def payload(event: str, project_dir: Path, tmp_path: Path) -> dict:
    name = {"UserPromptSubmit": "user_prompt_submit.json", "SessionStart": "session_start.json",
            "Stop": "stop.json"}[event]
    data = json.loads((FIXTURES / name).read_text())
    data["cwd"] = str(project_dir)
    if event == "Stop":
        transcript = tmp_path / "transcript.jsonl"
        transcript.write_text((FIXTURES / "transcript.jsonl").read_text()
                              .replace("/home/dev/shop", str(project_dir)))
        data["transcript_path"] = str(transcript)
    return data


def store_path(env: dict[str, str]) -> Path:
    return Path(env["ENGRAM_HOME"]) / "memory.db"


def log_lines(env: dict[str, str]) -> list[str]:
    path = Path(env["ENGRAM_HOME"]) / "logs" / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


def run_hook(env: dict[str, str], event: str, data: dict) -> tuple[float, str]:
    """Run the hook as Claude Code does; assert its contract; return (seconds, stdout)."""
    started = time.monotonic()
    proc = subprocess.run([ENGRAM, "hook", event], input=json.dumps(data), env=env,
                          capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - started
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    if proc.stdout:
        output = json.loads(proc.stdout)
        assert output["hookSpecificOutput"]["hookEventName"] == event
    return elapsed, proc.stdout


def seed(env: dict[str, str]) -> None:
    with engram.open(store_path(env), embedder="none") as mem:
        mem.save("Stripe refunds must use payment_intent, the charge argument was removed",
                 type="constraint", project="shop")
        mem.save("Deploys go through the release Makefile target only", type="decision",
                 project="shop", pinned=True)


@pytest.fixture
def write_locked(env):
    """Another process holds the write lock, as a reindex or a big import does."""
    seed(env)
    with write_lock_held(store_path(env)) as holder:
        yield holder


# UserPromptSubmit keeps its real 3 s deadline; the longer ones (8 s, 20 s) are shortened
# through ENGRAM_HOOK_DEADLINE so the test takes seconds: the same code bounds them.
@pytest.mark.parametrize(("event", "deadline"), [
    ("UserPromptSubmit", None), ("SessionStart", "2"), ("Stop", "2"),
])
def test_a_write_locked_store_cannot_hold_a_hook_past_its_deadline(
        env, project_dir, tmp_path, write_locked, event, deadline):
    if deadline is not None:
        env["ENGRAM_HOOK_DEADLINE"] = deadline
    limit = float(deadline) if deadline else DEADLINES[event]
    elapsed, stdout = run_hook(env, event, payload(event, project_dir, tmp_path))
    assert elapsed < limit + MARGIN, f"{event} took {elapsed:.2f} s (deadline {limit} s)"
    if event != "Stop":  # reads still work under a writer: the context is injected, only
        assert "payment_intent" in stdout  # the bookkeeping after it is dropped
    [line] = log_lines(env)
    assert event in line and "StoreUnavailableError" in line and "busy" in line
    assert write_locked.poll() is None  # the long writer was not disturbed
    write_locked.kill()
    write_locked.wait()
    with engram.open(store_path(env), embedder="none") as mem:
        assert mem.store.integrity_check() == "ok"


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart", "Stop"])
def test_a_damaged_store_is_one_log_line(env, project_dir, tmp_path, event):
    path = store_path(env)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database, whatever wrote it " * 300)
    elapsed, out = run_hook(env, event, payload(event, project_dir, tmp_path))
    assert out == "" and elapsed < DEADLINES[event]
    [line] = log_lines(env)
    assert event in line and "damaged or is not an Engram store" in line
    assert path.read_bytes().startswith(b"not a database")  # left for the user to rescue


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart", "Stop"])
def test_a_missing_store_is_created_private_and_quietly(env, project_dir, tmp_path, event):
    """Decision: hooks create a missing store (the first prompt or capture after
    `engram setup` must work), owner-only, with nothing to log."""
    home = Path(env["ENGRAM_HOME"])
    assert not home.exists()
    elapsed, out = run_hook(env, event, payload(event, project_dir, tmp_path))
    assert out == "" and elapsed < DEADLINES[event]
    assert log_lines(env) == []
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE(store_path(env).stat().st_mode) == 0o600


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart", "Stop"])
def test_a_store_that_cannot_be_created_is_one_log_line(env, project_dir, tmp_path, event):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store's folder should be")
    env["ENGRAM_DB"] = str(blocker / "memory.db")
    elapsed, out = run_hook(env, event, payload(event, project_dir, tmp_path))
    assert out == "" and elapsed < DEADLINES[event]
    [line] = log_lines(env)
    assert event in line and "StoreError" in line


def test_the_backstop_ends_a_process_stuck_inside_c(env):
    """SIGALRM cannot run its handler while SQLite runs a statement (here one that never
    ends and has no deadline of its own); the backstop thread still ends the process."""
    code = (
        "import sqlite3, time\n"
        "from engram.hooks import runner\n"
        "runner._start_backstop('Stop', time.monotonic() + 0.5)\n"
        "sqlite3.connect(':memory:').execute('WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL'\n"
        "    ' SELECT x + 1 FROM n) SELECT COUNT(*) FROM n').fetchone()\n"
        "print('not reached')\n"
    )
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=30)
    elapsed = time.monotonic() - started
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert elapsed < 0.5 + MARGIN
    [line] = log_lines(env)
    assert "Stop HookTimeout" in line and "exited" in line
    assert f"{BACKSTOP_GRACE_SECONDS:g} s after the deadline" in line


def test_a_hook_that_returned_leaves_the_backstop_quiet(env, project_dir, tmp_path):
    env["ENGRAM_HOOK_DEADLINE"] = "0.2"  # the backstop would fire at 0.7 s
    seed(env)
    code = ("import json, sys, time\nfrom engram.hooks import runner\n"
            "runner.run(['SessionStart'])\ntime.sleep(1.5)\nprint('still here')\n")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          input=json.dumps(payload("SessionStart", project_dir, tmp_path)),
                          timeout=30)
    assert proc.returncode == 0 and proc.stdout.endswith("still here\n")
    assert not any("still blocked" in line for line in log_lines(env))


def test_nonsense_deadlines_fall_back_to_the_events_own(env, project_dir, tmp_path):
    seed(env)
    for value in ("0", "-1", "inf", "nan", "soon"):
        env["ENGRAM_HOOK_DEADLINE"] = value
        elapsed, out = run_hook(env, "SessionStart",
                                payload("SessionStart", project_dir, tmp_path))
        assert "release Makefile target" in json.loads(out)["hookSpecificOutput"][
            "additionalContext"]
    assert log_lines(env) == []
    assert os.path.exists(store_path(env))


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart", "Stop"])
def test_an_unreachable_postgresql_server_is_one_log_line_without_the_password(
        env, project_dir, tmp_path, event):
    """A team store that is down (a laptop offline, a server restarting): the agent goes
    on, within the hook's deadline, and the log names the cause but never the password."""
    env["ENGRAM_DB"] = "postgresql://engram:s3cret-pw@127.0.0.1:9/memories"
    elapsed, out = run_hook(env, event, payload(event, project_dir, tmp_path))
    assert out == "" and elapsed < DEADLINES[event]
    [line] = log_lines(env)
    assert event in line and "PostgreSQL unavailable" in line and "s3cret-pw" not in line
