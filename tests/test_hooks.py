"""Claude Code hooks, run as Claude Code runs them: the real `engram hook <Event>` console
script in a subprocess, a payload on stdin shaped like Claude Code's, JSON on stdout."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli, stop_worker

import engram
from engram.hooks import capture, triage
from engram.hooks.state import project_for

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
SESSION = "4f1c2a9e-8b7d-4c3e-9a51-2d6f0e7b3c10"
TEST_EMBEDDER = "fake" if importlib.util.find_spec("engram.embedders.fake") else "none"


@pytest.fixture
def env(any_cli_env: dict[str, str]) -> dict[str, str]:
    """On every engine under test: ENGRAM_DB names a PostgreSQL database for `postgres`."""
    env = dict(any_cli_env)
    env["ENGRAM_HOOK_WORKER"] = "off"  # in-process path; the worker has its own test
    env["ENGRAM_EMBEDDER"] = TEST_EMBEDDER
    env["ENGRAM_HOOK_DEADLINE"] = "60"  # a loaded test machine is not what deadlines are for
    return env


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "shop").mkdir()
    return root


def payload(name: str, project_dir: Path, **changes: object) -> dict:
    data = json.loads((FIXTURES / name).read_text())
    data["cwd"] = str(project_dir)
    data.update(changes)
    return data


def hook(env: dict[str, str], event: str, data: dict | str) -> dict | None:
    """Run the hook; assert Claude Code's contract (exit 0, empty or JSON stdout)."""
    text = data if isinstance(data, str) else json.dumps(data)
    proc = run_cli(env, "hook", event, input=text)
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return None
    output = json.loads(proc.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == event
    assert isinstance(output["hookSpecificOutput"]["additionalContext"], str)
    return output


def context_of(output: dict | None) -> str:
    assert output is not None, "expected injected context"
    return output["hookSpecificOutput"]["additionalContext"]


def store_of(env: dict[str, str]) -> str:
    return env.get("ENGRAM_DB") or str(Path(env["ENGRAM_HOME"]) / "memory.db")


def open_store(env: dict[str, str]):
    return engram.open(store_of(env), embedder=TEST_EMBEDDER)


def hooks_log(env: dict[str, str]) -> list[str]:
    path = Path(env["ENGRAM_HOME"]) / "logs" / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def seeded(env: dict[str, str]) -> dict[str, str]:
    with open_store(env) as mem:
        ids = {
            "refund": mem.save(
                "Stripe refunds must use payment_intent, the charge argument was removed",
                type="constraint", project="shop").memory.id,
            "pinned": mem.save("Deploys go through the release Makefile target only",
                               type="decision", project="shop", pinned=True).memory.id,
            "css": mem.save("Tailwind classes are sorted by the prettier plugin",
                            type="preference", project="shop").memory.id,
            "other": mem.save("The ML project trains on four GPUs", type="project_fact",
                              project="ml").memory.id,
        }
    return ids


# --- SessionStart / UserPromptSubmit ------------------------------------------------------


def test_session_start_injects_the_project_context_pack(env, project_dir, seeded):
    output = hook(env, "SessionStart", payload("session_start.json", project_dir))
    text = context_of(output)
    assert "Current code beats old memory" in text
    assert "release Makefile target" in text  # pinned
    assert "payment_intent" in text  # constraint
    assert "four GPUs" not in text  # another project


def test_session_start_with_an_empty_store_injects_nothing(env, project_dir):
    assert hook(env, "SessionStart", payload("session_start.json", project_dir)) is None


def test_prompt_recalls_a_relevant_memory_once_per_session(env, project_dir, seeded):
    data = payload("user_prompt_submit.json", project_dir)
    text = context_of(hook(env, "UserPromptSubmit", data))
    assert seeded["refund"] in text
    assert "Current code beats old memory" in text
    assert seeded["css"] not in text and seeded["other"] not in text
    # Same session, same prompt: already injected, so nothing new.
    assert hook(env, "UserPromptSubmit", data) is None
    # Another session gets it again.
    other = dict(data, session_id="another-session")
    assert seeded["refund"] in context_of(hook(env, "UserPromptSubmit", other))


def test_a_session_summary_never_crowds_out_the_fact_that_answers_the_prompt(env, project_dir):
    with open_store(env) as mem:
        fact = mem.save("Stripe refunds must use payment_intent, the charge argument was removed",
                        type="constraint", project="shop", provenance="hook").memory.id
        summary = mem.checkpoint(
            "Task: check how we call Stripe refunds, the refund endpoint returns 500 again\n"
            "Files changed: shop/payments.py\nOutcome: OK.", project="shop",
            session_id="s-1", provenance="hook").memory.id
    text = context_of(hook(env, "UserPromptSubmit", payload("user_prompt_submit.json",
                                                            project_dir)))
    assert fact in text and summary not in text
    with open_store(env) as mem:  # without the fact, the summary is what there is
        mem.delete(fact, hard=True)
    other = payload("user_prompt_submit.json", project_dir, session_id="another-session")
    assert summary in context_of(hook(env, "UserPromptSubmit", other))


def test_prompt_skips_memories_the_session_start_pack_already_gave(env, project_dir, seeded):
    hook(env, "SessionStart", payload("session_start.json", project_dir))
    assert hook(env, "UserPromptSubmit", payload("user_prompt_submit.json", project_dir)) is None


@pytest.mark.parametrize("prompt", ["ok", "continue"])
def test_trivial_prompts_inject_nothing(env, project_dir, seeded, prompt):
    data = payload("user_prompt_submit.json", project_dir, prompt=prompt)
    assert hook(env, "UserPromptSubmit", data) is None


def test_what_the_editor_wraps_around_a_prompt_is_not_searched(env, project_dir, seeded):
    """The IDE extensions prepend the open file and the selection to the prompt the hook
    receives: recall follows the person's words, not the selected lines."""
    wrapped = ("<ide_opened_file>The user opened the file shop/payments.py in the IDE. This may "
               "or may not be related to the current task.</ide_opened_file>\n<ide_selection>"
               "The user selected the lines 3 to 4 from shop/payments.py:\nstripe.Refund.create"
               "(payment_intent=intent_id)  # refunds must use payment_intent\n</ide_selection>\n")
    data = payload("user_prompt_submit.json", project_dir,
                   prompt=wrapped + "Write a haiku about autumn leaves falling in the park")
    assert hook(env, "UserPromptSubmit", data) is None
    asked = payload("user_prompt_submit.json", project_dir, session_id="another-session")
    asked["prompt"] = wrapped + asked["prompt"]
    assert seeded["refund"] in context_of(hook(env, "UserPromptSubmit", asked))


def test_unrelated_prompt_injects_nothing(env, project_dir, seeded):
    data = payload("user_prompt_submit.json", project_dir,
                   prompt="Write a haiku about autumn leaves falling in the park")
    assert hook(env, "UserPromptSubmit", data) is None


# --- PostToolUse --------------------------------------------------------------------------


def verified_commands(env: dict[str, str]) -> list:
    with open_store(env) as mem:
        return mem.list(types=["verified_command"], limit=100)


def test_successful_test_command_is_saved_once(env, project_dir):
    data = payload("post_tool_use_bash.json", project_dir)
    assert hook(env, "PostToolUse", data) is None
    assert hook(env, "PostToolUse", data) is None
    spaced = json.loads(json.dumps(data))
    spaced["tool_input"]["command"] = "pytest  -q   tests/test_checkout.py"
    hook(env, "PostToolUse", spaced)
    saved = verified_commands(env)
    assert len(saved) == 1
    assert "`pytest -q tests/test_checkout.py`" in saved[0].content
    assert saved[0].project == "shop" and saved[0].provenance == "hook"
    assert saved[0].access_count == 2  # each later run that passed counts as a use


def test_a_verified_command_is_stored_as_it_can_be_run_again(env, project_dir):
    data = payload("post_tool_use_bash.json", project_dir)
    for typed in ("pytest -q && ruff check . 2>&1 | tail -3", "pytest -q && ruff check .",
                  "pytest -q && ruff check . | head -40; echo $?"):
        data["tool_input"]["command"] = typed
        hook(env, "PostToolUse", data)
    [saved] = verified_commands(env)
    assert saved.meta["command"] == "pytest -q && ruff check ."
    check = subprocess.run(["bash", "-n", "-c", saved.meta["command"]], capture_output=True)
    assert check.returncode == 0


def test_a_recipe_run_after_cd_keeps_its_cd_when_the_shell_stays_there(env, project_dir):
    """Claude Code keeps a Bash `cd` for the calls after it and reports that folder as the
    hook's cwd: the recipe keeps its `cd` as typed, so it runs from anywhere (and a project
    that lives under /tmp, as this test's does, still has recipes)."""
    client = project_dir / "app" / "client"
    client.mkdir(parents=True)
    data = payload("post_tool_use_bash.json", project_dir, cwd=str(client))
    data["tool_input"]["command"] = f"cd {client} && npx vitest run"
    hook(env, "PostToolUse", data)
    [saved] = verified_commands(env)
    assert saved.meta["command"] == f"cd {client} && npx vitest run"  # not `npx vitest run`
    assert saved.project == "shop"


@pytest.mark.parametrize("command", [
    "rm -rf /tmp/x",
    "git push --force origin main",
    "pytest -q && git push --force",
    "API_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a npm test",
    "pytest --api-key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
])
def test_destructive_or_secret_commands_are_not_saved(env, project_dir, command):
    data = payload("post_tool_use_bash.json", project_dir)
    data["tool_input"]["command"] = command
    hook(env, "PostToolUse", data)
    assert verified_commands(env) == []


@pytest.mark.parametrize("response", [
    {"stdout": "", "stderr": "", "interrupted": True, "isImage": False},
    {"stdout": "FAILED tests/test_checkout.py::test_refund\n1 failed, 11 passed", "stderr": "",
     "interrupted": False, "isImage": False},
])
def test_failed_or_interrupted_commands_are_not_saved(env, project_dir, response):
    data = payload("post_tool_use_bash.json", project_dir, tool_response=response)
    hook(env, "PostToolUse", data)
    assert verified_commands(env) == []


def test_writing_a_claude_memory_file_imports_it(env, project_dir, tmp_path):
    data = payload("post_tool_use_write_memory.json", project_dir)
    memory_file = tmp_path / "claude" / "memory" / "payments.md"
    memory_file.parent.mkdir(parents=True)
    memory_file.write_text(data["tool_input"]["content"])
    data["tool_input"]["file_path"] = str(memory_file)
    hook(env, "PostToolUse", data)
    hook(env, "PostToolUse", data)  # importing again adds nothing
    with open_store(env) as mem:
        saved = mem.list(provenance="hook", limit=50)
    contents = sorted(m.content for m in saved)
    # an auto-memory topic note (front matter with a name and a type) is one memory
    assert len(saved) == 1, contents
    assert contents[0].startswith("payments: - Refunds go through")  # (its heading: its name)
    assert "payment_intent" in contents[0] and "Testing:\nCheckout tests run offline" in (
        contents[0])
    assert all(m.project == "shop" and "claude-memory" in m.tags for m in saved)
    # the session it was written in, as for every captured memory
    assert all(m.meta.get("session_id") == data["session_id"] for m in saved), saved
    assert not any("name: payments" in c for c in contents)  # frontmatter is not a memory


# --- Stop / PreCompact / SessionEnd -------------------------------------------------------


@pytest.fixture
def transcript(tmp_path: Path, project_dir: Path) -> Path:
    text = (FIXTURES / "transcript.jsonl").read_text().replace("/home/dev/shop", str(project_dir))
    path = tmp_path / "transcript.jsonl"
    path.write_text(text)
    return path


def summaries(env: dict[str, str]) -> list:
    with open_store(env) as mem:
        return mem.list(types=["task_summary"], limit=50)


def test_stop_captures_the_session_once_across_stop_precompact_and_session_end(
        env, project_dir, transcript):
    data = payload("stop.json", project_dir, transcript_path=str(transcript))
    assert hook(env, "Stop", data) is None
    with open_store(env) as mem:
        first = sorted((m.type, m.content) for m in mem.list(limit=100))
    assert hook(env, "Stop", data) is None
    hook(env, "PreCompact", payload("pre_compact.json", project_dir,
                                    transcript_path=str(transcript)))
    hook(env, "SessionEnd", payload("session_end.json", project_dir,
                                    transcript_path=str(transcript)))
    with open_store(env) as mem:
        stored = mem.list(limit=100)
    assert sorted((m.type, m.content) for m in stored) == first  # nothing twice
    [summary] = [m for m in stored if m.type == "task_summary"]
    assert summary.meta["session_id"] == SESSION and summary.project == "shop"
    assert summary.files == ("shop/payments.py", "tests/test_refund_intent.py")
    assert "Let me look at the failing tests" not in summary.content  # not the transcript
    [bug] = [m for m in stored if m.type == "bug_note"]
    assert "Received unknown parameter: charge" in bug.content  # the error line
    assert "payment_intent instead of charge" in bug.content  # the fix's why
    assert bug.meta["session_id"] == SESSION and bug.event_at is not None
    assert "shop/payments.py" in bug.files
    todos = [m.content for m in stored if m.type == "todo"]
    assert any("webhook handler" in t for t in todos)


def test_stop_hook_active_does_nothing(env, project_dir, transcript):
    data = payload("stop.json", project_dir, transcript_path=str(transcript),
                   stop_hook_active=True)
    assert hook(env, "Stop", data) is None
    assert summaries(env) == []


# --- failing open -------------------------------------------------------------------------


@pytest.mark.parametrize(("event", "stdin"), [
    ("UserPromptSubmit", "{not json"),
    ("SessionStart", ""),
    ("UserPromptSubmit", "[1, 2, 3]"),
    ("NoSuchEvent", '{"session_id": "x", "cwd": "/tmp"}'),
])
def test_broken_input_exits_zero_and_logs_one_line(env, event, stdin):
    proc = run_cli(env, "hook", event, input=stdin)
    assert proc.returncode == 0 and proc.stdout == ""
    assert len(hooks_log(env)) == 1


def test_unusable_store_fails_open(env, project_dir, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store folder should be")
    env["ENGRAM_DB"] = str(blocker / "sub" / "memory.db")
    proc = run_cli(env, "hook", "SessionStart",
                   input=json.dumps(payload("session_start.json", project_dir)))
    assert proc.returncode == 0 and proc.stdout == ""
    log = hooks_log(env)
    assert len(log) == 1 and "SessionStart" in log[0]


def test_missing_engram_home_is_created(env, project_dir):
    assert not Path(env["ENGRAM_HOME"]).exists()
    hook(env, "UserPromptSubmit", payload("user_prompt_submit.json", project_dir))
    if "ENGRAM_DB" not in env:  # SQLite: the default store is created in ENGRAM_HOME
        assert (Path(env["ENGRAM_HOME"]) / "memory.db").exists()
    assert hooks_log(env) == []


def test_deadline_ends_the_hook_quietly(env, project_dir, seeded):
    env["ENGRAM_HOOK_DEADLINE"] = "0.001"
    proc = run_cli(env, "hook", "SessionStart",
                   input=json.dumps(payload("session_start.json", project_dir)))
    assert proc.returncode == 0 and proc.stdout == ""
    assert "HookTimeout" in hooks_log(env)[0]


# --- the warm worker ----------------------------------------------------------------------


def _wait_for_worker(env: dict[str, str], proc: subprocess.Popen, timeout: float = 60) -> dict:
    code = "import json; from engram import worker; print(json.dumps(worker.ping()))"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=30).stdout.strip()
        if out and out != "null":
            return json.loads(out)
        time.sleep(0.2)
    raise AssertionError("worker did not come up")


@pytest.mark.parametrize("embedder", [TEST_EMBEDDER, "bundled"])
def test_worker_answers_hooks(env, project_dir, seeded, embedder):
    env["ENGRAM_EMBEDDER"] = embedder
    env["ENGRAM_WORKER_IDLE"] = "60"
    env.pop("ENGRAM_HOOK_WORKER")
    if embedder == "bundled":
        with engram.open(store_of(env), embedder="bundled") as mem:
            mem.reindex()
    worker = subprocess.Popen([sys.executable, "-m", "engram.worker"], env=env,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for_worker(env, worker)["served"] == 0
        prompt = ("How should the code ask Stripe to refund a payment?" if embedder == "bundled"
                  else None)
        data = payload("user_prompt_submit.json", project_dir)
        if prompt:
            data["prompt"] = prompt
        assert seeded["refund"] in context_of(hook(env, "UserPromptSubmit", data))
        assert hook(env, "UserPromptSubmit", data) is None  # session state holds in the worker
        assert _wait_for_worker(env, worker)["served"] == 2
        # With a warm worker the hook process itself loads none of the heavy modules.
        data["session_id"] = "fresh-session"
        probe = subprocess.run(
            [sys.executable, "-c",
             "import sys\nfrom engram.hooks import main\nmain(['UserPromptSubmit'])"
             "\nheavy = ('numpy', 'click', 'rich', 'onnxruntime', 'engram.service', 'sqlite3')"
             "\nprint(sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)"],
            input=json.dumps(data), env=env, capture_output=True, text=True, timeout=60)
        assert seeded["refund"] in context_of(json.loads(probe.stdout))
        assert probe.stderr.strip() == "[]"
    finally:
        stop_worker(env, worker)
    assert worker.returncode == 0
    # The recall log is written after each reply, yet nothing is lost.
    with engram.open(store_of(env), embedder="none") as mem:
        logged = [r for r in mem.recalls() if r["caller"] == "hook"]
    assert len(logged) == 3 and all(seeded["refund"] in r["ids"] for r in logged)


def test_a_hook_starts_the_worker_on_demand_and_answers_meanwhile(env, project_dir, seeded):
    env.pop("ENGRAM_HOOK_WORKER")
    env["ENGRAM_WORKER_IDLE"] = "30"
    ping = [sys.executable, "-c",
            "import json; from engram import worker; print(json.dumps(worker.ping()))"]
    try:
        # No worker yet: the hook answers in-process and starts one in the background.
        assert "payment_intent" in context_of(
            hook(env, "SessionStart", payload("session_start.json", project_dir)))
        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline:
            out = subprocess.run(ping, env=env, capture_output=True, text=True).stdout.strip()
            status = json.loads(out) if out else None
            if status:
                break
            time.sleep(0.3)
        assert status and status["pid"] > 0
        log = (Path(env["ENGRAM_HOME"]) / "logs" / "worker.log").read_text()
        assert f"engram worker {status['pid']} serving" in log
    finally:
        subprocess.run([sys.executable, "-c", "from engram import worker; worker.stop()"],
                       env=env, timeout=30)


# --- the rules underneath -----------------------------------------------------------------


@pytest.mark.parametrize(("command", "kind"), [
    ("pytest -q", "test"),
    ("python -m pytest tests/test_api.py -x", "test"),
    ("cd web && npm test", "test"),
    ("npm run build", "build"),
    ("cargo clippy -- -D warnings", "lint"),
    ("ruff check . && mypy engram", "lint"),
    ("go test ./...", "test"),
    ("make", "build"),
    ("uv run python scripts/seed.py", "run"),
    ("ls -la", None),
    ("git status", None),
    ("grep -rn TODO .", None),
    ("rm -rf build && make", None),
    ("git push --force-with-lease", None),
    ("cat <<EOF > x.sh\nmake\nEOF", None),
    ("pnpm vitest run src/composables", "test"),
    ("mix dialyzer --format short", "lint"),
    ("env -u AWS_ACCESS_KEY_ID AWS_PROFILE=staging terraform -chdir=infra plan", "run"),
    ("terraform apply -auto-approve", None),
    ('grep -rn "pytest|make" .', None),  # a quoted pipe is not a second command
    # the checks a container runs through a shell
    ('docker run --rm -v "$PWD":/src -w /src centos:7 bash -c "yum -q -y install bats '
     '>/dev/null && bats test/release.bats"', "test"),
    ('docker compose exec api sh -c "ruff check ."', "lint"),
    ('docker run --rm alpine sh -c "echo hi"', None),
    ("docker run -it ubuntu bash", None),
    # platforms' own CLIs
    ("clasp push", "run"),
    ("drush cr", "run"),
    ("cargo sqlx prepare --check", "lint"),
    ("systemctl --user start restic-backup.service", "run"),
    ("systemctl status restic-backup.service", None),
])
def test_command_kind(command, kind):
    assert triage.command_kind(command) == kind


@pytest.mark.parametrize("prompt", ["ok", "thanks!", "continue", "yes please", "go ahead", "k",
                                    "Ok, go ahead.", "", None])
def test_trivial_prompts(prompt):
    assert triage.is_trivial_prompt(prompt)


@pytest.mark.parametrize("prompt", ["fix the failing refund test", "ok, now add rate limiting",
                                    "why is CI red?"])
def test_prompts_with_a_topic_are_not_trivial(prompt):
    assert not triage.is_trivial_prompt(prompt)


@pytest.mark.parametrize("command", [
    "rm -rf /tmp/x", "rm -r build", "git push --force origin main", "git push -f",
    "git reset --hard HEAD~1", "git clean -fdx", "make build && rm -rf dist",
    "terraform destroy -auto-approve", "psql -c 'DROP TABLE users' && pytest",
    "kubectl delete pod api-0", "docker system prune -af", "sudo make install",
    "npm publish", "pytest --no-verify",
])
def test_destructive_commands_are_never_verifiable(command):
    assert triage.is_destructive(command)
    assert triage.command_kind(command) is None


@pytest.mark.parametrize(("response", "ok"), [
    ({"stdout": "12 passed", "stderr": "", "interrupted": False, "isImage": False}, True),
    ({"stdout": "", "stderr": "", "interrupted": False, "isImage": False}, True),
    ({"stdout": "", "stderr": "", "interrupted": True, "isImage": False}, False),
    ({"stdout": "ok", "exit_code": 2}, False),
    ({"stdout": "error[E0308]: mismatched types", "stderr": ""}, False),
    ({"stdout": "", "stderr": "npm ERR! missing script: test"}, False),
    # a coloured logger's error line behind `| head` (exit 0)
    ({"stdout": "\x1b[32minfo\x1b[39m: Starting...\n\x1b[31merror\x1b[39m: Failed to start "
                "service: Class constructors cannot be invoked without 'new'"}, False),
    ("Error: Exit code 1", False),
    (None, False),
    # a test report read back with `; head report.xml` after a runner that exits 0
    ({"stdout": '<test-run id="2" result="Failed(Child)" total="19" passed="18" failed="1">'},
     False),
    ({"stdout": '<testsuite name="api" tests="4" failures="0" errors="0">'}, True),
    # sbt and munit behind `| tail` (exit 0)
    ({"stdout": "[error] /src/Order.scala:14:50: could not find Lazy implicit value\n"
                "[error] (api / Compile / compileIncremental) Compilation failed"}, False),
    ({"stdout": "shop.OrderJsonSuite:\n==> X shop.OrderJsonSuite.golden 0.04s "
                "munit.ComparisonFailException"}, False),
    ({"stdout": "[info] Passed: Total 412, Failed 0, Errors 0, Passed 412\n[success] Total "
                "time: 20 s"}, True),
    # rebar3 behind `| tail`: common test and dialyzer
    ({"stdout": "%%% courier_worker_SUITE ==> boot_not_blocked: FAILED\nFailed 1 tests. "
                "Passed 2 tests.\n===> Failures occurred running tests: 1"}, False),
    ({"stdout": "Line 41 Column 2: The pattern can never match\n===> Warnings occurred "
                "running dialyzer: 1"}, False),
    ({"stdout": "%%% courier_worker_SUITE: ...\nAll 3 tests passed."}, True),
    # tsc and dotnet behind `| tail` (exit 0)
    ({"stdout": "src/server/db.ts(7,4): error TS2339: Property '$use' does not exist on type "
                "'PrismaClient'."}, False),
    ({"stdout": "Api/Orders.cs(12,9): error CS0103: The name 'x' does not exist"}, False),
    ({"stdout": "Found 0 errors. Watching for file changes."}, True),
    # a program the shell could not find, behind a task runner that exits 0
    ({"stdout": "> app-client@1.0.0 dev\n> vite\n\nsh: vite: command not found"}, False),
    ({"stdout": "zsh: command not found: tsx"}, False),
    ({"stdout": "bash: line 1: foo: command not found"}, False),
])
def test_bash_success_from_claude_codes_tool_response(response, ok):
    assert triage.bash_succeeded(response) is ok


def test_split_markdown_gives_one_item_per_bullet_and_section():
    items, declared = capture.split_markdown(
        "---\ntype: feedback\n---\n# Style\n- Prefer small functions over\n  long ones\n"
        "- ok\n\n## Notes\nSome prose about the build.\nIt continues here.\n"
    )
    assert declared == "feedback"
    assert items == ["Style: Prefer small functions over long ones",
                     "Notes: Some prose about the build. It continues here."]
    assert capture.guess_type(items[0], declared) == "preference"


def test_an_auto_memory_topic_note_is_one_memory_and_the_index_points_to_it():
    note = ("---\nname: Integration tests hit a real database\ndescription: no mocks\n"
            "type: feedback\n---\n\nIntegration tests must hit a real database, not mocks.\n"
            "\n**Why:** mocked tests passed while the prod migration failed.\n"
            "**How to apply:** every test under [tests/db](tests/db/README.md).\n")
    items, declared = capture.split_markdown(note)
    assert declared == "feedback"
    assert items == ["Integration tests hit a real database: Integration tests must hit a "
                     "real database, not mocks.\n**Why:** mocked tests passed while the prod "
                     "migration failed.\n**How to apply:** every test under tests/db."]
    # a long note: one memory per section, each named by the note
    long_note = note + "".join(f"\n## Case {n}\n" + "- a detail of the case\n" * 30
                               for n in range(3))
    items, _ = capture.split_markdown(long_note)
    assert len(items) == 4 and items[1].startswith("Integration tests hit a real database — "
                                                   "Case 0: - a detail")
    # MEMORY.md: a line linking a topic note is that note's pointer, not a memory of its own
    index = ("# Memory index\n- [Real database](feedback_db.md) — no mocks in DB tests\n"
             "- Deploys go through `make release` only\n")
    assert capture.split_markdown(index, index=True)[0] == [
        "Memory index: Deploys go through `make release` only"]
    assert len(capture.split_markdown(index)[0]) == 2  # another Markdown file: every line


def test_project_is_the_git_root_name_unless_configured(tmp_path: Path, project_dir: Path):
    nested = project_dir / "shop" / "deep"
    nested.mkdir()
    assert project_for(str(nested), {}) == "shop"
    config = {"projects": {str(project_dir): "webshop", str(nested): "deep-one"}}
    assert project_for(str(project_dir / "shop"), config) == "webshop"
    assert project_for(str(nested), config) == "deep-one"
    assert project_for("/", {}) is None


def test_a_configured_summariser_rewrites_the_digest(env, project_dir, transcript):
    home = Path(env["ENGRAM_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[hooks]\nsummarizer = "tr a-z A-Z"\n')
    hook(env, "Stop", payload("stop.json", project_dir, transcript_path=str(transcript)))
    [memory] = summaries(env)
    assert memory.content.startswith("TASK: THE CHECKOUT TESTS FAIL")


def test_hook_help_goes_through_the_cli(env):
    proc = run_cli(env, "hook", "--help")
    assert proc.returncode == 0 and "UserPromptSubmit" in proc.stdout


def test_a_failed_command_is_recorded_with_its_session_and_opens_no_store(env, project_dir):
    data = payload("post_tool_use_bash.json", project_dir, hook_event_name="PostToolUseFailure",
                   tool_use_id="toolu_01FAIL", is_interrupt=False,
                   error="Exit code 1\nE   KeyError: 'charge'\n1 failed")
    data.pop("tool_response", None)
    assert hook(env, "PostToolUseFailure", data) is None
    state = json.loads((Path(env["ENGRAM_HOME"]) / "sessions" / f"{SESSION}.json").read_text())
    assert state["failures"]["toolu_01FAIL"]["error"].startswith("Exit code 1")
    assert not (Path(env["ENGRAM_HOME"]) / "memory.db").exists()
    assert verified_commands(env) == []  # a failure is never a verified command
    assert hooks_log(env) == []


def test_an_overlong_bullet_in_a_memory_file_costs_only_itself(env, project_dir, tmp_path):
    memory_file = tmp_path / "claude" / "memory" / "notes.md"
    memory_file.parent.mkdir(parents=True)
    memory_file.write_text("- Deploys go through the release Makefile target only\n"
                           f"- {'very long note ' * 4000}\n")
    data = payload("post_tool_use_write_memory.json", project_dir)
    data["tool_input"]["file_path"] = str(memory_file)
    hook(env, "PostToolUse", data)
    with open_store(env) as mem:
        saved = mem.list(provenance="hook", limit=10)
    assert len(saved) == 2 and any("release Makefile" in m.content for m in saved)
    assert hooks_log(env) == []


def test_the_shell_launcher_answers_like_the_python_hook(env, project_dir, seeded, monkeypatch):
    """With a warm worker up, `sh launch.sh` (no interpreter) injects exactly what
    `engram hook` injects; with the worker gone it falls back to the Python hook."""
    from engram.hooks.launcher import STORE_VARIABLES, hook_command

    env.pop("ENGRAM_HOOK_WORKER")
    env.pop("ENGRAM_HOOK_DEADLINE")
    env["ENGRAM_WORKER_IDLE"] = "60"
    for name in STORE_VARIABLES:  # what `engram setup` would see in this environment
        monkeypatch.delenv(name, raising=False)
        if name in env:
            monkeypatch.setenv(name, env[name])
    python_hook = hook_command(str(Path(sys.executable).parent / "engram"), "UserPromptSubmit")
    # A fallback to Python would fail loudly here: only the worker can answer.
    worker_only = hook_command("/nonexistent/engram", "UserPromptSubmit")
    data = payload("user_prompt_submit.json", project_dir)

    def launch(session: str, command: str = worker_only) -> str:
        text = json.dumps({**data, "session_id": session})
        proc = subprocess.run(["sh", "-c", command], input=text, env=env,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stderr == ""
        return proc.stdout

    worker = subprocess.Popen([sys.executable, "-m", "engram.worker"], env=env,
                              stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_worker(env, worker)
        by_shell = launch("shell-session")
        by_python = run_cli(env, "hook", "UserPromptSubmit",
                            input=json.dumps({**data, "session_id": "python-session"})).stdout
        assert seeded["refund"] in context_of(json.loads(by_shell))
        assert json.loads(by_shell) == json.loads(by_python)
        assert _wait_for_worker(env, worker)["served"] == 2  # both went through the worker
        assert launch("shell-session") == ""  # already injected in this session
    finally:
        stop_worker(env, worker)
    env["ENGRAM_HOOK_WORKER"] = "off"  # the fallback must not leave a worker behind
    assert seeded["refund"] in context_of(json.loads(launch("after-worker", python_hook)))
