"""Capture end to end with the real Claude Code CLI (from npm) and its real hooks.

`engram setup` registers the hooks in a throwaway HOME; `claude -p` then runs a real turn
against a local fake of the Anthropic Messages API (127.0.0.1, server-sent events) whose
scripted "model" runs a failing check, explains the fix, writes it and runs the check
again. Claude Code runs the tools, writes its transcript and calls every hook with its own
payloads (PostToolUseFailure, PostToolUse, Stop with last_assistant_message, SessionEnd):
what Engram keeps from that session is asserted here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from npm_support import npm_tools

import engram

CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.197"
ENGRAM = str(Path(sys.executable).with_name("engram"))


@pytest.fixture(scope="session")
def claude(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(npm_tools(tmp_path_factory, CLAUDE_CODE) / "claude")


def steps(project: Path) -> list[list[dict[str, Any]]]:
    """What the fake model answers, one list of blocks per tool result received so far."""
    return [
        [{"type": "tool_use", "id": "toolu_check1", "name": "Bash",
          "input": {"command": "python3 check.py 2>&1 | tail -3; exit ${PIPESTATUS[0]}",
                    "description": "Run the refund check"}}],
        [{"type": "text", "text": "The check fails because the charge argument was removed "
                                  "from the refund API; I'll pass payment_intent instead of "
                                  "charge, since every order stores its payment intent id."},
         {"type": "tool_use", "id": "toolu_write", "name": "Write",
          "input": {"file_path": str(project / "refund.py"),
                    "content": 'REFUND_ARGUMENT = "payment_intent"\n'}}],
        [{"type": "tool_use", "id": "toolu_check2", "name": "Bash",
          "input": {"command": "python3 check.py", "description": "Run the refund check"}}],
        [{"type": "text", "text": "Fixed: refunds pass payment_intent and `python3 check.py` "
                                  "passes. Still open: the webhook handler for payment_intent "
                                  "events is not updated yet."}],
    ]


def _events(blocks: list[dict[str, Any]], stop: str) -> bytes:
    out: list[str] = []

    def event(name: str, data: dict[str, Any]) -> None:
        out.append(f"event: {name}\ndata: {json.dumps(data)}\n\n")

    event("message_start", {"type": "message_start", "message": {
        "id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        event("content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": start})
        event("content_block_delta", {"type": "content_block_delta", "index": index,
                                      "delta": delta})
        event("content_block_stop", {"type": "content_block_stop", "index": index})
    event("message_delta", {"type": "message_delta", "usage": {"output_tokens": 5},
                            "delta": {"stop_reason": stop, "stop_sequence": None}})
    event("message_stop", {"type": "message_stop"})
    return "".join(out).encode()


@pytest.fixture
def fake_api(tmp_path: Path) -> Iterator[tuple[str, Path, list[dict[str, Any]]]]:
    project = tmp_path / "shop"
    project.mkdir()
    script = steps(project)
    received: list[dict[str, Any]] = []  # every request body the fake model was sent

    class Messages(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0)))
                              or b"{}")
            received.append(body)
            results = sum(1 for message in body.get("messages", [])
                          if isinstance(message.get("content"), list)
                          for block in message["content"]
                          if isinstance(block, dict) and block.get("type") == "tool_result")
            if body.get("tools"):  # the conversation; side requests get a plain answer
                blocks = script[min(results, len(script) - 1)]
            else:
                blocks = [{"type": "text", "text": "ok"}]
            stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
            if body.get("stream"):
                data, kind = _events(blocks, stop), "text/event-stream"
            else:
                data = json.dumps({"id": "msg_fake", "type": "message", "role": "assistant",
                                   "model": "claude-sonnet-4-5", "content": blocks,
                                   "stop_reason": stop,
                                   "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()
                kind = "application/json"
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Messages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", project, received
    finally:
        server.shutdown()
        server.server_close()


def environment(claude: str, url: str, home: Path, engram_home: Path) -> dict[str, str]:
    """A throwaway HOME in which Claude Code talks to the fake model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "ANTHROPIC_",
                                                                       "CLAUDE"))}
    env.update(HOME=str(home), ENGRAM_HOME=str(engram_home), ENGRAM_HOOK_WORKER="off",
               ENGRAM_EMBEDDER="fake", PATH=f"{Path(claude).parent}:{env.get('PATH', '')}",
               ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-fake-for-tests",
               DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    return env


def set_up(claude: str, url: str, project: Path, home: Path, engram_home: Path
           ) -> dict[str, str]:
    """`environment()` with `engram setup --agent claude` done. Returns the environment to
    run both in."""
    env = environment(claude, url, home, engram_home)
    setup = subprocess.run([ENGRAM, "setup", "--agent", "claude"], env=env, cwd=project,
                           capture_output=True, text=True, timeout=120)
    assert setup.returncode == 0, setup.stderr
    return env


def test_a_real_claude_code_session_becomes_typed_memories(claude, fake_api, tmp_path):
    url, project, _ = fake_api
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "check.py").write_text(
        'import os, sys\nsys.exit(0 if os.path.exists("refund.py") else "KeyError: charge")\n')
    home, engram_home = tmp_path / "home", tmp_path / "engram"
    env = set_up(claude, url, project, home, engram_home)
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert {"PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"} <= set(settings["hooks"])

    run = subprocess.run([claude, "-p", "The refund check fails, please fix check.py",
                          "--allowedTools", "Bash,Write,Edit"], env=env, cwd=project,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Still open" in run.stdout  # the scripted turn really ran to its end

    log = engram_home / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""  # every hook succeeded
    [state_file] = (engram_home / "sessions").glob("*.json")
    assert "toolu_check1" in json.loads(state_file.read_text())["failures"]  # seen as it failed
    with engram.open(engram_home / "memory.db", embedder="fake") as mem:
        stored = mem.list(limit=50)
    by_type: dict[str, list[Any]] = {}
    for memory in stored:
        by_type.setdefault(memory.type, []).append(memory)
    [bug] = by_type["bug_note"]
    assert "KeyError: charge" in bug.content and "payment_intent" in bug.content
    assert bug.files == ("refund.py",) and bug.meta["session_id"] == state_file.stem
    [command] = by_type["verified_command"]
    assert command.meta["command"] == "python3 check.py"  # the passing run, as typed
    assert any("webhook handler" in t.content for t in by_type["todo"])
    assert len(by_type["task_summary"]) == 1
    assert all(m.project == "shop" and m.provenance == "hook" for m in stored)
    assert len({m.content for m in stored}) == len(stored)  # nothing twice


def test_claude_code_runs_the_installed_slash_commands(claude, fake_api, tmp_path):
    """Commands typed into the real Claude Code: it finds the files setup installed, runs a
    `!` line (allowed by the file's own allowed-tools) and hands the model Engram's answer;
    a command that takes text passes it to the model inside a quoted heredoc."""
    url, project, received = fake_api
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    home, engram_home = tmp_path / "home", tmp_path / "engram"
    env = set_up(claude, url, project, home, engram_home)
    saved = subprocess.run([ENGRAM, "add", "Never run migrations on Fridays", "--type", "auto",
                            "--project", "shop", "--json"], env=env, cwd=project,
                           capture_output=True, text=True, timeout=60)
    assert saved.returncode == 0, saved.stderr
    memory = json.loads(saved.stdout)["memory"]
    assert memory["type"] == "constraint"
    run = subprocess.run([claude, "-p", "/engram-stats"], env=env, cwd=project,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    sent = json.dumps([body.get("messages") for body in received if body.get("tools")])
    # the `!` line ran `engram stats` (its "by type:" line is printed nowhere else in the
    # session) and its output reached the model with the command's instructions
    assert "by type: constraint: 1" in sent and "three lines at most" in sent
    received.clear()
    run = subprocess.run([claude, "-p", '/engram-search friday "migrations"'], env=env,
                         cwd=project, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    sent = json.dumps([body.get("messages") for body in received if body.get("tools")])
    # a command that takes text hands it to the model inside a quoted heredoc, as typed
    assert "<<'ENGRAM_TEXT'\\nfriday \\\"migrations\\\"\\nENGRAM_TEXT" in sent


def test_the_plugin_from_this_repository_remembers_a_real_session(claude, fake_api, tmp_path):
    """Engram installed as a plugin, from this repository as the marketplace, with `engram`
    found on PATH as after `pipx install`: Claude Code connects its MCP server, runs its
    hooks, and the session is remembered as with `engram setup`."""
    url, project, _ = fake_api
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "check.py").write_text(
        'import os, sys\nsys.exit(0 if os.path.exists("refund.py") else "KeyError: charge")\n')
    home, engram_home = tmp_path / "home", tmp_path / "engram"
    env = environment(claude, url, home, engram_home)
    env["PATH"] = f"{Path(ENGRAM).parent}:{env['PATH']}"
    repository = Path(__file__).resolve().parents[1]
    for argv in (["plugin", "marketplace", "add", str(repository)],
                 ["plugin", "install", "engram@engram"]):
        done = subprocess.run([claude, *argv], env=env, cwd=project, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    listed = subprocess.run([claude, "mcp", "list"], env=env, cwd=project, capture_output=True,
                            text=True, timeout=120)
    assert "plugin:engram:engram: engram mcp - ✔ Connected" in listed.stdout, listed.stdout

    run = subprocess.run([claude, "-p", "The refund check fails, please fix check.py",
                          "--allowedTools", "Bash,Write,Edit"], env=env, cwd=project,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    log = engram_home / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""  # every hook succeeded
    with engram.open(engram_home / "memory.db", embedder="fake") as mem:
        stored = mem.list(limit=50)
    types = {m.type for m in stored}
    assert {"bug_note", "verified_command", "task_summary"} <= types
    assert not (home / ".claude" / "settings.json").exists() or "engram hook" not in (
        home / ".claude" / "settings.json").read_text()  # the plugin, not setup, did it


def test_a_project_setup_is_connected_for_its_author_and_pending_for_a_teammate(claude,
                                                                                tmp_path):
    """What the real Claude Code says of a project-scope setup, and what doctor reports."""
    project = tmp_path / "shop"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = environment(claude, "http://127.0.0.1:9", tmp_path / "home", tmp_path / "engram")
    env["PATH"] = f"{Path(ENGRAM).parent}:{env['PATH']}"  # engram on PATH, as after pipx
    done = subprocess.run([ENGRAM, "setup", "--scope", "project", "--agent", "claude"], env=env,
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = subprocess.run([claude, "mcp", "get", "engram"], env=env, cwd=project,
                         capture_output=True, text=True, timeout=120)
    assert "Status: ✔ Connected" in got.stdout, got.stdout
    assert "Command: engram\n" in got.stdout  # the portable command, not a venv path

    # a teammate's checkout: the committed files, not the author's local approval
    (project / ".claude" / "settings.local.json").unlink()
    mate = environment(claude, "http://127.0.0.1:9", tmp_path / "mate", tmp_path / "mate-engram")
    mate["PATH"] = env["PATH"]
    got = subprocess.run([claude, "mcp", "get", "engram"], env=mate, cwd=project,
                         capture_output=True, text=True, timeout=120)
    assert "Pending approval" in got.stdout, got.stdout
    doctor = subprocess.run([ENGRAM, "doctor", "--json"], env=mate, cwd=project,
                            capture_output=True, text=True, timeout=300)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    status = checks["mcp claude status"]
    assert status["status"] == "warn" and "Pending approval" in status["detail"]
    assert "engram setup --scope project" in status["fix"]
