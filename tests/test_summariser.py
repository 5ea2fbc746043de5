"""The opt-in LLM summariser (engram/capture/summariser.py) and "ask the agent itself"
(engram/hooks/ask_agent.py), run as Claude Code runs them: the real `engram hook <Event>`
in a subprocess, and fake `claude` / `codex` executables first on PATH that record what
they were given (argv, stdin, ENGRAM_HOOKS, folder) and answer as told: canned JSON,
garbage, a hang, or exit 1."""

from __future__ import annotations

import fcntl
import http.server
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import run_cli
from test_capture import SESSION, Session

import engram
from engram.capture import summariser
from engram.hooks.runner import DEADLINES

SECRET = "ghp_R7kQ2mX9vL4pW8nT3zY6bC1dF5gH0jK2sA4e"
HEURISTIC_DECISION = ("Stripe's new API refunds a payment intent, not a charge, because "
                      "charges are deprecated; every order already stores its intent id.")
CANNED = {"memories": [
    {"type": "project_fact", "content": "Every order row keeps its Stripe payment intent id "
     "in orders.intent_id.", "files": ["shop/models.py"]},
    {"type": "constraint", "content": f"Never commit the CI token {SECRET}; read it from the "
     "environment.", "why": "It grants push access to the repository."},
    {"type": "todo", "content": "Move the webhook handler from charge ids to payment intents."},
    {"type": "todo", "content": "Move the webhook handler from charge ids to payment intents."},
    {"type": "decision", "content": HEURISTIC_DECISION},  # the heuristics have it already
]}
EXPECTED = {
    ("project_fact", "Every order row keeps its Stripe payment intent id in orders.intent_id."),
    ("constraint", "Never commit the CI token [REDACTED:github_token]; read it from the "
     "environment. Why: It grants push access to the repository."),
    ("todo", "Move the webhook handler from charge ids to payment intents."),
}

FAKE = '''#!{python}
import json, os, pathlib, sys, time
if sys.argv[1:2] not in (["-p"], ["exec"]):
    sys.exit(1)  # `claude mcp get …` from engram doctor: not a summarising call
stdin = sys.stdin.read()
with open(os.environ["FAKE_RECORD"], "a") as handle:
    handle.write(json.dumps({{"argv": sys.argv, "hooks": os.environ.get("ENGRAM_HOOKS"),
                             "stdin": stdin, "cwd": os.getcwd(), "pid": os.getpid(),
                             "parent": os.getppid(),
                             "session_env": [k for k in ("CLAUDECODE", "CLAUDE_CODE_SESSION_ID")
                                             if k in os.environ]}}) + "\\n")
mode = os.environ.get("FAKE_MODE", "valid")
answer = pathlib.Path(os.environ["FAKE_ANSWER"]).read_text()
if mode == "hang":
    time.sleep(600)
if mode == "slow":
    time.sleep(2)
if mode == "exit1":
    print('API Error: 401 {{"error": "invalid x-api-key"}}', file=sys.stderr)
    sys.exit(1)
if mode == "logged_out":  # what Claude Code 2.1 prints without a login
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": True,
                      "result": "Not logged in · Please run /login"}}))
    sys.exit(1)
if mode == "garbage":
    print("I'm sorry, I cannot summarise that. {{not json at all")
    sys.exit(0)
if mode == "old" and "--tools" in sys.argv:
    print("error: unknown option '--tools'", file=sys.stderr)
    sys.exit(1)
if os.path.basename(sys.argv[0]) == "claude":
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                      "result": "Here they are:\\n```json\\n" + answer + "\\n```"}}))
else:
    out = sys.argv[sys.argv.index("--output-last-message") + 1]
    pathlib.Path(out).write_text(answer)
    print("done")
'''


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def env(cli_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("claude", "codex"):
        script = bin_dir / name
        script.write_text(FAKE.format(python=sys.executable))
        script.chmod(0o755)
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(CANNED))
    env = dict(cli_env)
    env["ENGRAM_HOOK_WORKER"] = "off"
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["FAKE_RECORD"] = str(tmp_path / "calls.jsonl")
    env["FAKE_ANSWER"] = str(answer)
    return env


def home(env: dict[str, str]) -> Path:
    return Path(env["ENGRAM_HOME"])


def configure(env: dict[str, str], text: str) -> None:
    home(env).mkdir(parents=True, exist_ok=True)
    (home(env) / "config.toml").write_text(text)


def session() -> Session:
    return (
        Session()
        .prompt("The refund tests fail since the Stripe upgrade; fix them. The CI token is "
                f"{SECRET} if you need it.")
        .bash("pytest -q tests/test_refund.py",
              "E  stripe.error.InvalidRequestError: Received unknown parameter: charge\n"
              "1 failed", failed=True)
        .say(HEURISTIC_DECISION)
        .edit("shop/payments.py")
        .bash("pytest -q tests/test_refund.py", "2 passed in 0.31s")
        .say("Fixed: refunds now pass payment_intent. Both refund tests pass again. The webhook "
             "handler still uses charge ids and should move to intents too.")
    )


def payload(event: str, path: Path, project_dir: Path, **extra: object) -> dict:
    return {"session_id": SESSION, "transcript_path": str(path), "cwd": str(project_dir),
            "hook_event_name": event, "permission_mode": "default", **extra}


def run_hook(env: dict[str, str], event: str, data: dict) -> tuple[str, float]:
    started = time.monotonic()
    proc = run_cli(env, "hook", event, input=json.dumps(data))
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    assert elapsed < DEADLINES[event], f"the hook took {elapsed:.1f} s"
    return proc.stdout, elapsed


def calls(env: dict[str, str]) -> list[dict]:
    path = Path(env["FAKE_RECORD"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def hooks_log(env: dict[str, str]) -> list[str]:
    path = home(env) / "logs" / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


def marker(env: dict[str, str]) -> dict:
    path = home(env) / "sessions" / f"{SESSION}.summariser.json"
    return json.loads(path.read_text()) if path.exists() else {}


def wait_for(check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting")


def wait_until_done(env: dict[str, str], runs: int = 1) -> None:
    """The detached run has recorded its attempt and let go of the session's lock."""
    wait_for(lambda: marker(env).get("runs", 0) >= runs and (
        "saved" in marker(env) or any("summariser" in line for line in hooks_log(env))))
    lock = home(env) / "summariser" / f"{SESSION}.lock"
    with open(lock, "a") as handle:
        wait_for(lambda: _try_lock(handle))


def _try_lock(handle) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    fcntl.flock(handle, fcntl.LOCK_UN)
    return True


def stored(env: dict[str, str]) -> list:
    with engram.open(home(env) / "memory.db", embedder="fake") as mem:
        return mem.list(limit=200)


def summarised(env: dict[str, str]) -> set[tuple[str, str]]:
    return {(m.type, m.content) for m in stored(env) if m.meta.get("capture") == "summariser"}


# --- the summariser through the real hooks ---------------------------------------------------


def test_claude_answers_become_memories_once_redacted_and_without_duplicates(
        env, project_dir, tmp_path):
    configure(env, '[hooks]\nsummarizer = "claude"\n')
    env.update(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=SESSION)  # as Claude Code runs hooks
    path = session().write(tmp_path / "session.jsonl")
    run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
    wait_until_done(env)
    [call] = calls(env)
    assert call["hooks"] == "off"  # the child's own hooks stay out of Engram
    assert call["session_env"] == []  # a session of its own, not a child of the user's
    assert SECRET not in call["stdin"] and "[REDACTED:github_token]" in call["stdin"]
    assert "Received unknown parameter: charge" in call["stdin"]  # the windows
    assert "2 passed in 0.31s" not in call["stdin"]  # never tool output
    assert HEURISTIC_DECISION in call["stdin"].split("Session notes")[0]  # already recorded
    argv = call["argv"]
    assert argv[1] == "-p" and argv[argv.index("--output-format") + 1] == "json"
    assert argv[argv.index("--model") + 1] == "haiku"
    assert argv[argv.index("--tools") + 1] == ""
    assert json.loads(argv[argv.index("--settings") + 1]) == {"disableAllHooks": True}
    assert "--strict-mcp-config" in argv and "--no-session-persistence" in argv
    assert Path(call["cwd"]) == home(env) / "summariser"  # never the project folder
    assert summarised(env) == EXPECTED
    everything = stored(env)
    assert all(SECRET not in m.content for m in everything)
    mine = [m for m in everything if m.meta.get("capture") == "summariser"]
    assert all(m.provenance == "hook" and m.meta["session_id"] == SESSION for m in mine)
    assert all(m.project == "shop" for m in mine)
    assert any(m.meta.get("capture") != "summariser" for m in everything)  # heuristics too
    # Nothing new in the session: no second call, nothing stored twice.
    run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
    run_hook(env, "PreCompact", payload("PreCompact", path, project_dir, trigger="auto"))
    time.sleep(1.0)
    assert len(calls(env)) == 1
    assert summarised(env) == EXPECTED


def test_with_a_warm_worker_the_summariser_still_runs_outside_it(env, project_dir, tmp_path):
    configure(env, '[hooks]\nsummarizer = "claude"\n')
    env.pop("ENGRAM_HOOK_WORKER")
    env["ENGRAM_WORKER_IDLE"] = "60"
    worker = subprocess.Popen([sys.executable, "-m", "engram.worker"], env=env,
                              stderr=subprocess.DEVNULL)
    ping = [sys.executable, "-c",
            "import json; from engram import worker; print(json.dumps(worker.ping()))"]
    try:
        status = wait_for(lambda: json.loads(subprocess.run(
            ping, env=env, capture_output=True, text=True).stdout or "null"))
        path = session().write(tmp_path / "session.jsonl")
        run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
        wait_until_done(env)
        served = json.loads(subprocess.run(ping, env=env, capture_output=True,
                                           text=True).stdout)["served"]
    finally:
        subprocess.run([sys.executable, "-c", "from engram import worker; worker.stop()"],
                       env=env, timeout=30)
        worker.wait(timeout=30)
    assert served == 1  # the worker answered the hook…
    [call] = calls(env)
    assert call["parent"] != status["pid"]  # …and the model call ran in a process of its own
    assert summarised(env) == EXPECTED


def test_runs_of_one_session_take_turns_and_store_nothing_twice(env, project_dir, tmp_path):
    configure(env, '[hooks]\nsummarizer = "claude"\n')
    env["FAKE_MODE"] = "slow"
    built = session()
    path = built.write(tmp_path / "session.jsonl")
    run_hook(env, "PreCompact", payload("PreCompact", path, project_dir, trigger="auto"))
    wait_for(lambda: calls(env))  # the first run has read the session and asked
    built.prompt("Also keep the refund amounts in cents, never floats.").edit("shop/money.py")
    built.write(path)
    run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))  # while one runs
    wait_until_done(env, runs=2)
    first, second = calls(env)
    assert "cents" not in first["stdin"] and "cents" in second["stdin"]
    assert "Every order row keeps" in second["stdin"].split("Session notes")[0]  # known now
    assert summarised(env) == EXPECTED


def test_codex_exec_is_run_read_only_and_its_last_message_read(env, project_dir, tmp_path):
    configure(env, '[hooks]\nsummarizer = "codex"\n')
    path = session().write(tmp_path / "session.jsonl")
    run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
    wait_until_done(env)
    [call] = calls(env)
    argv = call["argv"]
    assert argv[1] == "exec" and argv[-1] == "-"  # the prompt on stdin, not in `ps`
    assert argv[argv.index("--sandbox") + 1] == "read-only"
    assert "--ephemeral" in argv and "features.hooks=false" in argv
    assert call["hooks"] == "off" and SECRET not in call["stdin"]
    assert summarised(env) == EXPECTED


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_an_endpoint_gets_the_redacted_windows_over_http(env, project_dir, tmp_path, kind):
    seen: list[dict] = []

    class Model(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "body": body,
                         "auth": self.headers.get("Authorization")})
            text = json.dumps(CANNED)
            answer = ({"response": text} if kind == "ollama"
                      else {"choices": [{"message": {"content": text}}]})
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env.update(OLLAMA_HOST=url, ENGRAM_OPENAI_BASE_URL=f"{url}/v1",
               ENGRAM_OPENAI_API_KEY="local-test-key")
    try:
        run_cli(env, "setup", "--agent", "cursor", "--summarizer", f"{kind}:tiny-model",
                check=True)
        path = session().write(tmp_path / "session.jsonl")
        run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
        wait_until_done(env)
    finally:
        server.shutdown()
    [request] = seen
    assert request["path"] == ("/api/generate" if kind == "ollama" else "/v1/chat/completions")
    assert request["body"]["model"] == "tiny-model"
    assert SECRET not in json.dumps(request["body"])
    if kind == "openai":
        assert request["auth"] == "Bearer local-test-key"
    assert summarised(env) == EXPECTED
    assert calls(env) == []  # no CLI was run


def test_a_cli_that_rejects_a_flag_is_retried_with_the_bare_minimum(env, project_dir, tmp_path):
    configure(env, '[hooks]\nsummarizer = "claude"\n')
    env["FAKE_MODE"] = "old"
    path = session().write(tmp_path / "session.jsonl")
    run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
    wait_until_done(env)
    first, second = calls(env)
    assert "--tools" in first["argv"] and "--tools" not in second["argv"]
    assert second["hooks"] == "off"
    assert summarised(env) == EXPECTED


@pytest.mark.parametrize(("mode", "logged"), [
    ("garbage", "no JSON object in the answer"),
    ("exit1", "exited with 1: API Error: 401"),
    ("logged_out", "exited with 1: Not logged in · Please run /login"),
    ("hang", "did not answer within 2 s"),
])
def test_a_bad_answer_keeps_the_heuristics_and_logs_one_line(
        env, project_dir, tmp_path, mode, logged):
    configure(env, '[hooks]\nsummarizer = "claude"\nsummarizer_timeout = 2\n')
    env["FAKE_MODE"] = mode
    path = session().write(tmp_path / "session.jsonl")
    run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
    if mode == "hang":  # the hook is back before the summariser could even time out
        assert not any("summariser" in line for line in hooks_log(env))
    wait_until_done(env)
    [line] = [line for line in hooks_log(env) if "summariser" in line]
    assert logged in line and "heuristic memories kept" in line
    assert SECRET not in line
    assert summarised(env) == set()
    kinds = {m.type for m in stored(env)}
    assert {"bug_note", "decision", "task_summary"} <= kinds  # the heuristics' memories
    [call] = calls(env)
    if mode == "hang":  # the timeout ended the CLI, not only the wait for it
        with pytest.raises(ProcessLookupError):
            for _ in range(50):
                os.kill(call["pid"], 0)
                time.sleep(0.1)
    # The same windows are not sent again after a failure.
    run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
    time.sleep(1.0)
    assert len(calls(env)) == 1


def test_a_short_stop_does_not_summarise_and_a_long_session_does(env, project_dir, tmp_path):
    configure(env, '[hooks]\nsummarizer = "claude"\n')
    built = session()
    path = built.write(tmp_path / "session.jsonl")
    run_hook(env, "Stop", payload("Stop", path, project_dir))
    state = json.loads((home(env) / "sessions" / f"{SESSION}.json").read_text())
    assert "summariser" not in state  # not started: too little since the last run
    # Many more turns: a long read, and enough new words worth a summary.
    for turn in range(6):
        built.prompt(f"Next, part {turn}: the export must keep the column order the finance team "
                     "uses, and never round amounts before summing them. " * 6)
        built.tool("Read", {"file_path": f"/home/dev/shop/big_{turn}.py"}, "x = 1\n" * 6000)
        built.say(f"The exporter for part {turn} now streams rows instead of building a list, "
                  "because the monthly files reach two million rows and ran out of memory. " * 2)
        built.edit(f"shop/export_{turn}.py")
    built.write(path)
    assert path.stat().st_size >= summariser.STOP_MIN_NEW_BYTES
    run_hook(env, "Stop", payload("Stop", path, project_dir))
    wait_until_done(env)
    assert len(calls(env)) == 1 and summarised(env) == EXPECTED


def test_off_by_default_and_empty_sessions_are_never_sent(env, project_dir, tmp_path):
    path = session().write(tmp_path / "session.jsonl")
    run_hook(env, "SessionEnd", payload("SessionEnd", path, project_dir))
    configure(env, '[hooks]\nsummarizer = "claude"\n')
    empty = Session().prompt("hi").say("Hello! How can I help you today?")
    other = empty.write(tmp_path / "empty.jsonl")
    run_hook(env, "SessionEnd", payload("SessionEnd", other, project_dir))
    time.sleep(1.5)
    assert calls(env) == [] and marker(env) == {}


def test_engram_hooks_off_makes_every_hook_a_silent_no_op(env, project_dir, tmp_path):
    configure(env, '[hooks]\nsummarizer = "claude"\nask_agent_to_save = true\n')
    env["ENGRAM_HOOKS"] = "off"
    path = session().write(tmp_path / "session.jsonl")
    for event in ("Stop", "SessionEnd", "UserPromptSubmit"):
        proc = run_cli(env, "hook", event, input=json.dumps(
            payload(event, path, project_dir, prompt="how do refunds work?")))
        assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert sorted(p.name for p in home(env).iterdir()) == ["config.toml"]  # no store, no log
    assert calls(env) == []


def test_the_legacy_summarizer_command_still_rewrites_the_task_summary(
        env, project_dir, tmp_path):
    configure(env, '[hooks]\nsummarizer = "tr a-z A-Z"\n')
    path = session().write(tmp_path / "session.jsonl")
    run_hook(env, "Stop", payload("Stop", path, project_dir))
    [summary] = [m for m in stored(env) if m.type == "task_summary"]
    assert summary.content.startswith("TASK: THE REFUND TESTS FAIL")
    assert calls(env) == []


# --- the answer's schema ----------------------------------------------------------------------


@pytest.mark.parametrize("answer", [
    '{"memories": [{"type": "decision", "content": "Use intents."}]} and some prose',
    'Sure!\n```json\n{"memories": [{"type": "decision", "content": "Use intents."}]}\n```',
    '{"note": "first"} {"memories": [{"type": "decision", "content": "Use intents."}]}',
    '[{"type": "decision", "content": "Use intents."}]',
])
def test_the_first_json_object_is_found_in_prose_and_fences(answer):
    [memory] = summariser.validate(summariser.first_json(answer))
    assert (memory.type, memory.content) == ("decision", "Use intents.")


@pytest.mark.parametrize("data", [
    {"memories": "none"},
    {"result": []},
    {"memories": [{"type": "fact", "content": "The API uses intents."}]},
    {"memories": [{"type": "decision", "content": ""}]},
    {"memories": [{"type": "decision", "content": "   short  "}]},
    {"memories": [{"type": "decision", "content": "x" * 801}]},
    {"memories": [{"type": "decision", "content": 42}]},
    {"memories": [{"type": "decision", "content": "Use payment intents.", "files": "a.py"}]},
    {"memories": [{"type": "decision", "content": "Use payment intents.", "files": [3]}]},
    {"memories": [{"type": "decision", "content": "Use payment intents.", "why": ["x"]}]},
    {"memories": [{"type": "todo", "content": "Bad\x07bell character here."}]},
    {"memories": [{"type": "todo", "content": f"Item number {i} to do."} for i in range(21)]},
    {"memories": ["Use payment intents."]},
])
def test_an_answer_outside_the_schema_is_refused_whole(data):
    with pytest.raises(summariser.SummariserError):
        summariser.validate(data)


def test_garbage_has_no_json_object():
    with pytest.raises(summariser.SummariserError):
        summariser.first_json("I cannot help with that {not json")


def test_near_duplicates_are_recognised_but_different_facts_are_not():
    known = [HEURISTIC_DECISION]
    assert summariser.near_duplicate(
        "Stripe's new API refunds a payment intent, not a charge, because charges are "
        "deprecated; every order stores its intent id.", known)
    assert not summariser.near_duplicate("The webhook handler still uses charge ids.", known)


# --- ask the agent itself -----------------------------------------------------------------------


def block_of(stdout: str) -> dict | None:
    return json.loads(stdout) if stdout.strip() else None


@pytest.fixture
def asking(env: dict[str, str]) -> dict[str, str]:
    configure(env, "[hooks]\nask_agent_to_save = true\n")
    return env


def test_the_first_stop_after_edits_asks_the_agent_once(asking, project_dir, tmp_path):
    built = Session().prompt("make the refund use payment intents")
    path = built.write(tmp_path / "s.jsonl")
    assert block_of(run_hook(asking, "Stop", payload("Stop", path, project_dir))[0]) is None
    built.say("Switching the refund call to payment_intent.").edit("shop/payments.py")
    built.write(path)
    answer = block_of(run_hook(asking, "Stop", payload("Stop", path, project_dir))[0])
    assert answer["decision"] == "block" and "memory_save" in answer["reason"]
    assert len(answer["reason"]) < 400
    # Claude Code continues; its next Stop carries stop_hook_active, later ones do not.
    built.say("Saved.").edit("shop/other.py")
    built.write(path)
    again = payload("Stop", path, project_dir, stop_hook_active=True)
    assert block_of(run_hook(asking, "Stop", again)[0]) is None
    assert block_of(run_hook(asking, "Stop", payload("Stop", path, project_dir))[0]) is None


def test_no_ask_when_the_agent_saved_or_changed_nothing(asking, project_dir, tmp_path):
    saved = (Session().prompt("make the refund use payment intents").edit("shop/payments.py")
             .tool("mcp__engram__memory_save", {"content": "Refunds use payment intents."},
                   [{"type": "text", "text": "saved"}]))
    path = saved.write(tmp_path / "saved.jsonl")
    assert block_of(run_hook(asking, "Stop", payload("Stop", path, project_dir))[0]) is None
    readonly = (Session().prompt("where are refunds handled?")
                .tool("Read", {"file_path": "/home/dev/shop/shop/payments.py"}, "def refund()")
                .tool("Edit", {"file_path": "/home/dev/shop/x.py", "old_string": "a",
                               "new_string": "b"}, "Error: old_string not found", error=True)
                .say("Refunds are handled in shop/payments.py."))
    other = payload("Stop", readonly.write(tmp_path / "ro.jsonl"), project_dir,
                    session_id="1f6c1d2e-3a4b-4c5d-8e9f-a0b1c2d3e4f5")
    assert block_of(run_hook(asking, "Stop", other)[0]) is None


def test_no_ask_on_a_stop_a_stop_hook_continued(asking, project_dir, tmp_path):
    path = Session().prompt("fix it").edit("shop/payments.py").write(tmp_path / "s.jsonl")
    data = payload("Stop", path, project_dir, stop_hook_active=True)
    assert block_of(run_hook(asking, "Stop", data)[0]) is None


def test_no_ask_unless_configured(env, project_dir, tmp_path):
    path = Session().prompt("fix it").edit("shop/payments.py").write(tmp_path / "s.jsonl")
    assert block_of(run_hook(env, "Stop", payload("Stop", path, project_dir))[0]) is None


# --- setup and doctor ---------------------------------------------------------------------------


def test_setup_turns_the_summariser_on_and_off_and_doctor_reports_it(env, tmp_path):
    configure(env, "# my settings\n[hooks]\nworker_idle = 60\n")
    proc = run_cli(env, "setup", "--agent", "cursor", "--summarizer", "claude")
    assert proc.returncode == 0, proc.stderr
    assert "quota" in proc.stdout
    text = (home(env) / "config.toml").read_text()
    assert "# my settings" in text and "worker_idle = 60" in text
    assert 'summarizer = "claude"' in text
    doctor = json.loads(run_cli(env, "doctor", "--json").stdout)
    [check] = [c for c in doctor["checks"] if c["name"] == "summarizer"]
    assert check["status"] == "ok" and "claude" in check["detail"]
    assert str(tmp_path / "bin" / "claude") in check["detail"]  # the CLI it will run
    env["PATH"] = "/nonexistent"
    doctor = json.loads(run_cli(env, "doctor", "--json").stdout)
    [check] = [c for c in doctor["checks"] if c["name"] == "summarizer"]
    assert check["status"] == "warn" and "not on PATH" in check["detail"]
    env["PATH"] = os.environ["PATH"]
    assert run_cli(env, "setup", "--agent", "cursor", "--summarizer", "off").returncode == 0
    text = (home(env) / "config.toml").read_text()
    assert "summarizer" not in text and "worker_idle = 60" in text
    doctor = json.loads(run_cli(env, "doctor", "--json").stdout)
    [check] = [c for c in doctor["checks"] if c["name"] == "summarizer"]
    assert check["detail"].startswith("off")


def test_setup_names_an_endpoint_model_and_refuses_unknown_values(env):
    proc = run_cli(env, "setup", "--agent", "cursor", "--summarizer", "ollama:qwen2.5:3b")
    assert proc.returncode == 0, proc.stderr
    text = (home(env) / "config.toml").read_text()
    assert 'summarizer = "endpoint"' in text and 'summarizer_model = "ollama:qwen2.5:3b"' in text
    bad = run_cli(env, "setup", "--agent", "cursor", "--summarizer", "gpt")
    assert bad.returncode != 0 and "unknown summarizer 'gpt'" in bad.stderr
    assert "Traceback" not in bad.stderr
    dry = run_cli(env, "setup", "--agent", "cursor", "--summarizer", "codex", "--dry-run")
    assert '+summarizer = "codex"' in dry.stdout
    assert 'summarizer = "endpoint"' in (home(env) / "config.toml").read_text()
    on = run_cli(env, "setup", "--agent", "cursor", "--uninstall", "--summarizer", "claude")
    assert on.returncode == 2 and "--summarizer off" in on.stderr
    off = run_cli(env, "setup", "--agent", "cursor", "--uninstall", "--summarizer", "off")
    assert off.returncode == 0, off.stderr
    assert 'summarizer = "endpoint"' not in (home(env) / "config.toml").read_text()
