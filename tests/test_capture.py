"""Capture: from a Claude Code session to typed memories (engram.capture).

Sessions here are built entry by entry in Claude Code's transcript format (one entry per
content block, tool results in user entries with `toolUseResult` beside them); the
benchmark corpus under benchmarks/capture_corpus holds whole sessions.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import engram
from engram.capture import extractor, transcript
from engram.capture.extract import extract, rule_type
from engram.capture.failures import error_line
from engram.capture.reading import rules_in
from engram.capture.session import apply, capture
from engram.capture.shell import normalize_command

CWD = "/home/dev/shop"
SESSION = "0f6c1d2e-3a4b-4c5d-8e9f-a0b1c2d3e4f5"


# --- commands as typed -------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "stored"), [
    ("mix compile 2>&1 | tail -3", "mix compile"),
    ("pytest -q && ruff check .", "pytest -q && ruff check ."),
    ("pytest -q   tests/  2>&1 | tail -20", "pytest -q tests/"),
    ("pytest -q || true", "pytest -q"),
    ("pytest -q; echo $?", "pytest -q"),
    ('pytest -q; echo "exit: $?"', "pytest -q"),
    ("npm test 2>&1 | grep -v warn | head -50", "npm test"),
    ("cargo test -- --nocapture |& less", "cargo test -- --nocapture"),
    ("(cd web && npm run build) 2>&1 | tail", "(cd web && npm run build)"),
    ("FOO=1 BAR='a  b' pytest -k 'not slow' -q", "FOO=1 BAR='a  b' pytest -k 'not slow' -q"),
    ('grep -rn "a|b" src | head -5', 'grep -rn "a|b" src'),
    ("go test ./... 2>/dev/null", "go test ./..."),
    ("make test > build.log 2>&1", "make test > build.log"),
    ("cd /home/dev/shop && pytest -q", "cd /home/dev/shop && pytest -q"),  # runs anywhere
    ("cd frontend && npm test", "cd frontend && npm test"),
    ('echo "$(git rev-parse HEAD)" && make', 'echo "$(git rev-parse HEAD)" && make'),
    ("python -c 'import sys; print(sys.argv)' a\\ b",
     "python -c 'import sys; print(sys.argv)' a\\ b"),
    ("ruff check . || ruff check --fix .", "ruff check . || ruff check --fix ."),
])
def test_commands_are_stored_as_typed_without_presentation_tails(typed, stored):
    assert normalize_command(typed) == stored
    check = subprocess.run(["bash", "-n", "-c", stored], capture_output=True)
    assert check.returncode == 0, check.stderr  # what is stored still parses as shell


@pytest.mark.parametrize("typed", [
    "python - <<'EOF'\nprint(1)\nEOF",  # a script, not a one-line recipe
    "cat > x.py <<EOF\nprint(1)\nEOF\npython x.py",
    "pytest 'unterminated",
    'echo "unterminated',
    "npm run dev &",  # never ran to completion
    "just dev 2>&1 & sleep 5 && curl -sf localhost:4982/health",  # nor did this
    'cd /x && just dev 2>&1 &; sleep 5; curl -sf localhost:4982 || echo "down"',  # bash -n fails
    "echo $(unbalanced",
    "",
])
def test_commands_that_cannot_be_read_with_certainty_are_refused(typed):
    assert normalize_command(typed) is None


def test_the_variants_of_one_command_collapse_into_one_recipe():
    variants = ["pytest -q 2>&1 | tail -3", "pytest -q 2>&1 | tail -40", "pytest  -q",
                "pytest -q | head -20", "pytest -q; echo $?"]
    assert {normalize_command(v) for v in variants} == {"pytest -q"}


# --- the error worth quoting -------------------------------------------------------------


@pytest.mark.parametrize(("output", "line"), [
    ("F.....\n___ test_refund ___\n    def test_refund():\n>       refund(order)\n"
     "E       KeyError: 'charge'\n\nshop/payments.py:12: KeyError\n=== 1 failed, 5 passed ===",
     "KeyError: 'charge'"),
    ("src/app.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter"
     " of type 'number'.\nFound 1 error.", "src/app.ts(12,5): error TS2345: Argument of type"),
    ("   Compiling logq v0.4.2\nerror[E0499]: cannot borrow `self.chars` as mutable more than"
     " once at a time\n  --> src/lexer.rs:40:9", "error[E0499]: cannot borrow"),
    ("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
     "    main()\nValueError: bad port '80a'", "ValueError: bad port '80a'"),
    ("Exit code 1\n** (CompileError) lib/app.ex:3: undefined function foo/0",
     "** (CompileError) lib/app.ex:3"),
    ("  Determining projects to restore...\n  All projects are up-to-date for restore.\n"
     "/src/Tests/AdjustmentTests.cs(35,59): error CS0246: The type or namespace name 'Conflict'"
     " could not be found [/src/Tests/Tests.csproj]\n\nBuild FAILED.",
     "/src/Tests/AdjustmentTests.cs(35,59): error CS0246: The type or namespace name"),
    ("  Failed Inventory.Tests.AdjustmentTests.Concurrent [84 ms]\n  Error Message:\n"
     "   Expected status 409 but got 500.\n  Stack Trace:\n     at AdjustmentTests.cs:line 40",
     "Expected status 409 but got 500."),
    ("> Task :test\n\nOrderServiceTest > rejectsEmptyCart() FAILED\n"
     "    org.opentest4j.AssertionFailedError: expected: <400> but was: <200>\n",
     "org.opentest4j.AssertionFailedError: expected: <400>"),
    ("PLAY RECAP ***\ninstance : ok=10 changed=2 unreachable=0 failed=0 skipped=0\n\n"
     "CRITICAL Idempotence test failed because of the following tasks:\n* => nginx : Deploy",
     "Idempotence test failed because of the following tasks"),
    ("[ RUN ] Resize.Avx2\n==48213==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6"
     "\nREAD of size 32", "AddressSanitizer: heap-buffer-overflow"),
    ("x Build failed in 3.84s\nerror during build:\nCannot import $env/static/private into "
     "client-side code", "error during build: Cannot import $env/static/private"),
    ("Running ExUnit with seed: 4, max_cases: 32\n.......\n\n  1) test sync is idempotent "
     "(App.SyncTest)\n     test/sync_test.exs:142\n     Assertion with == failed\n     left:  4\n"
     "...\n16:58:16.024 [warning] Failed to parse /nonexistent/path.jsonl: :file_not_found\n"
     "13 tests, 1 failure", "test sync is idempotent"),
    ("Checking 3 source files ...\n\n  Software Design\n┃ \n┃ [D] ↘ Nested modules could be "
     "aliased at the top of the invoking module.\n┃       lib/app.ex:135:5",
     "Nested modules could be aliased"),
    ("/src/app.js\n  12:5  error  'x' is defined but never used  no-unused-vars\n\n"
     "✖ 1 problem (1 error, 0 warnings)", "'x' is defined but never used"),
    ("[info] compiling 3 Scala sources\n[error] /home/k/api/src/main/scala/Order.scala:14:50: "
     "could not find Lazy implicit value of type Encoder[Order]\n[error] (api / Compile / "
     "compileIncremental) Compilation failed", "Order.scala:14:50: could not find Lazy implicit"),
    ("08:54:33  Completed with 1 error, 0 partial successes, and 0 warnings:\n08:54:33\n"
     "08:54:33    Database Error in model fct_orders (models/marts/fct_orders.sql)\n"
     "  syntax error at or near \"merge\"\n  LINE 4:     merge into",
     'Database Error in model fct_orders (models/marts/fct_orders.sql) syntax error at or near'),
    ("shop.OrderJsonSuite:\n==> X shop.OrderJsonSuite.order matches the golden file  0.041s "
     "munit.ComparisonFailException: OrderJsonSuite.scala:18",
     "shop.OrderJsonSuite.order matches the golden file"),
    # npx's notice of what it installs first is not the error
    ("npm warn exec The following package was not found and will be installed: prettier@3.8.1"
     "\nChecking formatting...\n[warn] src/stores/ui-store.ts\n[warn] Code style issues found "
     "in 3 files. Run Prettier with --write to fix.", "Code style issues found in 3 files"),
    ("npm warn exec The following package was not found and will be installed: tsx@4.21.0\n"
     "sh: tsx: command not found", "sh: tsx: command not found"),
    # a line that ends on its keyword; a summary that counts no failure is no error
    ("Starting dev server + client...\n> vite\n\nsh: vite: command not found\n",
     "sh: vite: command not found"),
    ("==> Linting deploy/chart\n1 chart(s) linted, 0 chart(s) failed\nstdin - Deployment api "
     "is invalid: problem validating schema: /resources/limits/memory: oneOf failed, none "
     "matched", "stdin - Deployment api is invalid"),
    # a traceback's message that goes on, indented, on the next line
    ("Traceback (most recent call last):\n  File \"/app/ingest/writer.py\", line 41, in write\n"
     "clickhouse_connect.driver.exceptions.DatabaseError: HTTPDriver returned response code "
     "500)\n Code: 252. DB::Exception: Too many parts (3001). (TOO_MANY_PARTS)\n",
     "clickhouse_connect.driver.exceptions.DatabaseError: HTTPDriver returned response code "
     "500) Code: 252. DB::Exception: Too many parts"),
    ("clicked it and the console says\n\nUnhandled Promise Rejection: updater.check not "
     "allowed. Permissions associated with this command: updater:default",
     "Unhandled Promise Rejection: updater.check not allowed"),
    # pyright: the diagnostic, not the file heading it
    ("/home/dev/shop/app/convert.py\n  /home/dev/shop/app/convert.py:184:17 - error: Type of "
     "\"text_value\" is unknown (reportUnknownVariableType)\n1 error, 0 warnings",
     "convert.py:184:17 - error: Type of \"text_value\" is unknown"),
    # R's testthat: the failed expectation, not the runner's banner
    ("\u2139 Testing qualeau\n\u2714 | F W  S  OK | Context\n\u2716 | 1        1 | mod_commune\n"
     "Failure (test-mod_commune.R:6:5): the module filters the chosen town\nnrow(out) "
     "(`actual`) not equal to 12 (`expected`).\n", "Failure (test-mod_commune.R:6:5): the "
     "module filters the chosen town nrow(out)"),
])
def test_the_stored_error_is_the_telling_line_not_the_first(output, line):
    assert error_line(output).startswith(line)


# --- sessions ------------------------------------------------------------------------------


class Session:
    """A Claude Code transcript written entry by entry, as Claude Code writes it."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.clock = itertools.count()
        self.ids = itertools.count(1)
        self.parent: str | None = None

    def _entry(self, kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        uuid = f"00000000-0000-4000-8000-{next(self.ids):012d}"
        minute = next(self.clock)
        entry = {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                 "cwd": CWD, "sessionId": SESSION, "version": "2.1.39", "gitBranch": "main",
                 "type": kind, "uuid": uuid,
                 "timestamp": f"2026-03-18T{10 + minute // 60:02d}:{minute % 60:02d}:00.000Z",
                 "message": message, **extra}
        self.parent = uuid
        self.entries.append(entry)
        return entry

    def prompt(self, text: str) -> Session:
        self._entry("user", {"role": "user", "content": text})
        return self

    def say(self, text: str) -> Session:
        self._entry("assistant", {"role": "assistant", "type": "message",
                                  "content": [{"type": "text", "text": text}]})
        return self

    def tool(self, name: str, tool_input: dict[str, Any], result: Any = "ok", *,
             error: bool = False, content: str | None = None) -> Session:
        tool_id = f"toolu_{next(self.ids):08d}"
        self._entry("assistant", {"role": "assistant", "type": "message", "content": [
            {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]})
        text = content if content is not None else (
            result if isinstance(result, str) else json.dumps(result))
        self._entry("user", {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": text,
             **({"is_error": True} if error else {})}]}, toolUseResult=result)
        return self

    def bash(self, command: str, stdout: str = "", *, failed: bool = False) -> Session:
        if failed:
            text = f"Exit code 1\n{stdout}"
            return self.tool("Bash", {"command": command}, f"Error: {text}", error=True,
                             content=text)
        return self.tool("Bash", {"command": command},
                         {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
                         content=stdout)

    def background(self, command: str, task: str, output: str) -> Session:
        """A Bash call run in the background: answered at once, its output in a file."""
        return self.tool("Bash", {"command": command, "run_in_background": True},
                         {"stdout": "", "stderr": "", "interrupted": False, "isImage": False,
                          "backgroundTaskId": task},
                         content=f"Command running in background with ID: {task}. Output is "
                                 f"being written to: {output}")

    def notified(self, task: str, output: str, summary: str, code: int) -> Session:
        """The <task-notification> Claude Code sends when a background task ends."""
        status = "completed" if code == 0 else "failed"
        return self.prompt(f"<task-notification>\n<task-id>{task}</task-id>\n<output-file>"
                           f"{output}</output-file>\n<status>{status}</status>\n<summary>"
                           f"Background command \"{summary}\" {status} (exit code {code})"
                           "</summary>\n</task-notification>")

    def edit(self, path: str, old: str = "a", new: str = "b") -> Session:
        return self.tool("Edit", {"file_path": f"{CWD}/{path}", "old_string": old,
                                  "new_string": new},
                         {"filePath": f"{CWD}/{path}", "oldString": old, "newString": new},
                         content=f"The file {CWD}/{path} has been updated successfully.")

    def worked(self, request: str, path: str, command: str, output: str,
               wrap_up: str) -> Session:
        """A turn of work done and passing: the request, an edit, a run, the wrap-up."""
        return self.prompt(request).edit(path).bash(command, output).say(wrap_up)

    def raw(self, entry: dict[str, Any]) -> Session:
        self.entries.append(entry)
        return self

    def write(self, path: Path) -> Path:
        path.write_text("\n".join(json.dumps(e) for e in self.entries) + "\n")
        return path

    def extract(self):
        return extract(transcript.parse_entries(self.entries), CWD)


def found(extraction, kind: str) -> list[str]:
    return [f.content for f in extraction.findings if f.type == kind]


def test_a_failure_edits_and_the_same_command_passing_is_a_fix():
    session = (
        Session()
        .prompt("The refund tests fail since the Stripe upgrade, can you fix them?")
        .bash("pytest -q tests/test_refund.py 2>&1 | tail -5",
              "F.\nE       stripe.error.InvalidRequestError: Received unknown parameter: charge\n"
              "1 failed, 1 passed in 0.3s")
        .say("Stripe's new API refunds a payment intent, not a charge, because charges are "
             "deprecated since 2024-06; every order already stores its intent id.")
        .edit("shop/payments.py")
        .bash("pytest -q tests/test_refund.py 2>&1 | tail -5", "..\n2 passed in 0.3s")
        .say("Fixed: refunds now pass payment_intent. Both refund tests pass again.")
    )
    [bug] = found(session.extract(), "bug_note")
    assert "Received unknown parameter: charge" in bug  # the error, not the dots line
    assert "payment intent" in bug and "deprecated" in bug  # the why of the fix
    assert "refund tests fail" in bug  # the symptom as the user reported it
    [note] = [f for f in session.extract().findings if f.type == "bug_note"]
    assert note.files == ["shop/payments.py"]
    assert note.at == "2026-03-18T10:06:00.000Z"  # when it passed


def test_the_same_test_failing_on_a_new_error_after_a_change_is_the_next_problem():
    """Jest names the failing test, not its error: the same title over "got 201" and then
    over a PrismaClientKnownRequestError is two problems, each with its fix, not a change
    that did not help."""
    title = "  ● two bookings at once -> only one gets in\n\n"
    session = (
        Session().prompt("add POST /booking; one patient per slot")
        .edit("src/routes/booking.ts")
        .bash("npm test", title + "    Expected: 409\n    Received: 201\n\nTests: 1 failed",
              failed=True)
        .say("Both got 201: a findFirst then create in a transaction still lets two in. "
             "A unique constraint on (dokterId, slot) makes the database refuse the second.")
        .edit("prisma/schema.prisma")
        .bash("npm test", title + "    Received: 500\n  PrismaClientKnownRequestError: Unique "
              "constraint failed on the fields: (`dokterId`,`slot`)\n  code: 'P2002'\n\n"
              "Tests: 1 failed", failed=True)
        .say("The database refuses the second booking now, but P2002 is not caught, so "
             "Express answers 500. Catching P2002 and answering 409.")
        .edit("src/routes/booking.ts")
        .bash("npm test", "Tests: 2 passed, 2 total")
    )
    extraction = session.extract()
    fixes = found(extraction, "bug_note")
    assert any("unique constraint" in f and "findFirst" in f for f in fixes), fixes
    assert any("P2002" in f and "409" in f for f in fixes), fixes
    assert not any("still failed" in f for f in found(extraction, "failed_attempt"))


def test_a_streak_names_the_error_the_change_fixed_and_takes_back_a_fix_that_was_not():
    """Run from the wrong folder first, then the real error; a subagent's edits fix it; the
    next error seems fixed by a logger change until it comes back; a server that crashed at
    start and now runs until Claude Code stops waiting was fixed by the last change."""
    not_found = ("Error [ERR_MODULE_NOT_FOUND]: Cannot find module 'src/config.js' imported "
                 "from src/index.ts")
    constructor = "TypeError: Class constructors cannot be invoked without 'new'"
    session = (
        Session().prompt("move the service to native TypeScript")
        .bash("cd service && npm start", "(eval):cd:1: no such file or directory: service",
              failed=True)
        .bash("npm start", not_found, failed=True)
        .say("Local imports must use .ts extensions when node strips types.")
        .tool("Task", {"description": "Fix imports", "prompt": "use .ts extensions"},
              "Updated 6 imports.")
        .bash("npm start", constructor, failed=True)
        .say("The logger is exported as a factory but used as an instance.")
        .edit("src/logger.ts")
        .bash("npm start", "TypeError: createLogger is not a function", failed=True)
        .edit("src/index.ts")
        .bash("npm start 2>&1 | head -20", constructor)  # `head` exits 0: still failing
        .say("The constructor error comes from sqlite3.verbose() being called with new, "
             "because the ESM default export is the module object.")
        .edit("src/database.ts")
        .tool("Bash", {"command": "npm start"}, "Error: Command timed out after 2m 0.0s",
              error=True)
    )
    extraction = session.extract()
    bugs = found(extraction, "bug_note")
    assert any("ERR_MODULE_NOT_FOUND" in b and ".ts extensions" in b for b in bugs), bugs
    assert not any("no such file or directory: service" in b for b in bugs), bugs
    assert any("Class constructors" in b and "sqlite3.verbose()" in b for b in bugs), bugs
    assert not any("Class constructors" in b and "factory" in b for b in bugs), bugs
    attempts = found(extraction, "failed_attempt")
    assert any("factory" in a and "Class constructors" in a for a in attempts), attempts


def _subagent_work() -> Session:
    """A subagent's conversation: the main agent's brief (with a rule-like sentence that is
    not the person's), a failing test, the reason, an edit, the test passing."""
    return (
        Session().prompt("Fix the refund tests. Never touch the migrations.")
        .bash("pytest -q tests/test_refund.py",
              "E       KeyError: 'payment_intent'\n1 failed in 0.2s", failed=True)
        .say("The webhook payload nests the intent under data.object, because Stripe "
             "changed the event shape in 2024-06.")
        .edit("shop/webhooks.py")
        .bash("pytest -q tests/test_refund.py", "2 passed in 0.2s")
    )


def test_a_subagents_inline_side_chain_is_read_as_its_own_work(tmp_path):
    side = _subagent_work()
    for entry in side.entries:
        entry["isSidechain"] = True
    main = Session().prompt("the refund tests fail, please fix them")
    main.tool("Task", {"description": "Fix refunds", "prompt": "Fix the refund tests."},
              "Fixed: the webhook reads data.object.payment_intent.")
    path = main.write(tmp_path / "main.jsonl")
    with path.open("a") as handle:  # the side chain, inline, as Claude Code before 2.1 wrote it
        handle.writelines(json.dumps(e) + "\n" for e in side.entries)
    extraction = extract(transcript.read(str(path)), CWD)
    [bug] = found(extraction, "bug_note")
    assert "KeyError: 'payment_intent'" in bug and "data.object" in bug
    assert not found(extraction, "constraint")  # the brief was the agent's, not the person's
    assert "shop/webhooks.py" in extraction.files


def test_a_subagents_own_transcript_file_is_read_beside_the_sessions(tmp_path):
    main = Session().prompt("the refund tests fail, please fix them")
    main.tool("Agent", {"description": "Fix refunds", "prompt": "Fix the refund tests."},
              "Fixed: the webhook reads data.object.payment_intent.")
    path = main.write(tmp_path / f"{SESSION}.jsonl")
    folder = tmp_path / SESSION / "subagents"
    folder.mkdir(parents=True)
    side = _subagent_work()
    for entry in side.entries:
        entry["isSidechain"] = True  # Claude Code 2.1+: one file per subagent
    side.write(folder / "agent-a1b2c3.jsonl")
    extraction = extract(transcript.read(str(path)), CWD)
    [bug] = found(extraction, "bug_note")
    assert "KeyError: 'payment_intent'" in bug
    assert not found(extraction, "constraint")


def test_a_subagents_transcript_file_read_on_its_own_is_that_agents_session(tmp_path):
    side = _subagent_work()
    for entry in side.entries:
        entry.update(isSidechain=True, agentId="a1b2c3")
    path = side.write(tmp_path / "agent-a1b2c3.jsonl")
    session = transcript.read(str(path))
    assert session.delegated and any(e.kind == "prompt" for e in session.events)
    extraction = extract(session, CWD)
    [bug] = found(extraction, "bug_note")
    assert "KeyError: 'payment_intent'" in bug
    assert not found(extraction, "constraint")  # the brief relays the parent agent's words
    assert extraction.summary is not None


def test_an_approved_plans_problem_and_solution_is_a_decision_with_its_why():
    plan = ("# Plan: session sharing\n\n### SessionStart hook\n\n**Problem**: the session id "
            "is not exposed to commands as an env var.\n\n**Solution**: a SessionStart hook "
            "writes it to `CLAUDE_ENV_FILE`.\n\n```python\nproblem: str = 'x'\n```\n"
            "### Output\n\n**Solution**: print the URL.\n\n## Design decisions\n\n"
            "- Gists are unlisted by default, because transcripts may hold private paths\n"
            "- Add a README\n")
    approved = (Session().prompt("plan the plugin")
                .tool("ExitPlanMode", {"plan": plan}, "User has approved your plan.")
                .edit("hook.py"))
    [decision] = [d for d in found(approved.extract(), "decision") if "CLAUDE_ENV_FILE" in d]
    assert "not exposed to commands" in decision  # its why
    decisions = found(approved.extract(), "decision")
    assert not any("print the URL" in d or "README" in d for d in decisions)
    assert any("unlisted by default" in d and "private paths" in d for d in decisions)
    refused = (Session().prompt("plan the plugin")
               .tool("ExitPlanMode", {"plan": plan}, "User chose to stay in plan mode",
                     error=True)
               .edit("hook.py"))
    assert not any("CLAUDE_ENV_FILE" in d for d in found(refused.extract(), "decision"))


COMPACTION = """This session is being continued from a previous conversation that ran out \
of context. The summary below covers the earlier portion of the conversation.

Summary:
1. Primary Request and Intent:
   Make the refund flow pass its tests.

4. Errors and fixes:
   - **LiveView test: sandbox isolation (Project not found)**: the LiveView process can't \
see the test's sandbox checkout. Fixed by using `Sandbox.mode(Repo, {:shared, self()})`.
   - **Credo: nested modules**: Added an alias in application.ex.
   - **Dialyzer pattern_match (UNRESOLVED)**: tried an @spec; it still fails.
   - **KeyError: 'payment_intent' in shop/webhooks.py**: fixed by reading `data.object`.

5. Problem Solving:
   Solved the sandbox issue.
"""


def test_a_compaction_summarys_errors_and_fixes_are_bug_notes_once():
    session = (
        Session().prompt("fix the refund tests")
        .bash("pytest -q", "E       KeyError: 'payment_intent'\n1 failed", failed=True)
        .say("The payload nests the intent under data.object, because Stripe changed it.")
        .edit("shop/webhooks.py")
        .bash("pytest -q", "3 passed")
        .raw({"type": "user", "isCompactSummary": True, "sessionId": SESSION, "cwd": CWD,
              "timestamp": "2026-03-18T11:00:00.000Z",
              "message": {"role": "user", "content": COMPACTION}})
        .prompt("now the LiveView tests")
    )
    bugs = found(session.extract(), "bug_note")
    assert any("sandbox" in b and "Sandbox.mode" in b for b in bugs), bugs
    assert not any("Credo" in b or "Dialyzer" in b for b in bugs), bugs  # a nit; still open
    assert sum("payment_intent" in b for b in bugs) == 1, bugs  # the events told it already


def test_a_summary_completes_a_fix_note_with_how_it_ended_under_the_same_identity():
    summary = ("This session is being continued from a previous conversation that ran out "
               "of context.\n\nSummary:\n1. **Primary Request and Intent:**\n   Connect "
               "the CLI to the server.\n\n4. **Errors and Fixes:**\n   - **WebSocket 502 "
               "Error**:\n     - Initial path was /session/stream/, server returned 502\n"
               "     - Fixed by updating to /v1/updates in .env\n   - **Decryption Errors**: "
               "Partially fixed by handling nested structures in message-handler.ts\n\n"
               "5. **Problem Solving:**\n   Connected.\n")
    before = (
        Session().prompt("connect the CLI to the session server")
        .bash("npm run build && npx tsx test-connection.ts", "TransportError: websocket error",
              failed=True)
        .say("I see the issue - it's still trying to use the old path `/session/stream/`. "
             "The .env file still has the old path.")
        .edit(".env")
        .bash("npm run build && npx tsx test-connection.ts", "Connected")
    )
    [early] = [f for f in before.extract().findings if f.origin == "fix"]
    after = before.raw({"type": "user", "isCompactSummary": True, "sessionId": SESSION,
                        "cwd": CWD, "timestamp": "2026-03-18T11:00:00.000Z",
                        "message": {"role": "user", "content": summary}})
    bugs = [f for f in after.extract().findings if f.type == "bug_note"]
    [late] = [f for f in bugs if f.origin == "fix"]
    assert "/v1/updates" in late.content and "/session/stream/" in late.content
    assert late.key == early.key and late.digest != early.digest  # told again, not doubled
    assert len(bugs) == 1  # the partly fixed decryption is still open: no bug note


def test_a_wrap_up_listing_what_broke_with_each_fix_gives_a_bug_note_per_item():
    wrap_up = ("All browser tests pass now. The refactoring broke some functionality "
               "because:\n\n1. **Sidechain messages** weren't getting the proper CSS class - "
               "Fixed by adding a check for the `isSidechain` field and appending the "
               "\"sidechain\" CSS class\n2. **System messages** were trying to access a "
               "`message` field instead of `content` - Fixed by changing the attribute "
               "access\n\nThe fixes were minimal.")
    session = (
        Session().prompt("finish phase 2 of the module split")
        .edit("claude_code_log/html_generator.py")
        .say(wrap_up)
    )
    bugs = found(session.extract(), "bug_note")
    assert any(b.startswith("Sidechain messages weren't getting the proper CSS class - Fixed "
                            "by adding a check for the `isSidechain`") for b in bugs), bugs
    assert any("`message` field instead of `content`" in b for b in bugs), bugs
    # A list of what was done, not of what broke: no bug notes from it.
    done = (Session().prompt("add the export button")
            .edit("src/export.ts")
            .say("Here is what I changed:\n\n1. **Export button** added to the toolbar - "
                 "fixed width so it lines up\n2. **CSV writer** streams rows"))
    assert not any("Export button" in b for b in found(done.extract(), "bug_note"))


def test_a_failing_command_replaced_by_a_variant_is_a_failed_attempt():
    session = (
        Session().prompt("install the deps for the dashboard")
        .bash("npm install", "npm ERR! ERESOLVE unable to resolve dependency tree", failed=True)
        .bash("npm install --legacy-peer-deps", "added 1200 packages")
        .edit("package.json")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "`npm install` failed" in attempt and "npm install --legacy-peer-deps" in attempt
    assert "ERESOLVE" in attempt


def test_a_failing_git_command_that_worked_with_other_options_is_a_failed_attempt():
    session = (
        Session().prompt("commit the new stylesheet")
        .edit("priv/static/assets/app.css")
        .bash("git add priv/static/assets/app.css",
              "The following paths are ignored by one of your .gitignore files:\n"
              "priv/static/assets\nhint: Use -f if you really want to add them.", failed=True)
        .bash("git add -f priv/static/assets/app.css")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "ignored by one of your .gitignore files" in attempt
    assert "git add -f priv/static/assets/app.css" in attempt


def test_a_lint_nit_taken_back_without_a_word_is_no_failed_attempt():
    session = (
        Session().prompt("wire the socket client into the start command")
        .edit("src/socket/client.ts", "class SocketClient extends EventEmitter {",
              "// eslint-disable-next-line unicorn/prefer-event-target\n"
              "class SocketClient extends EventEmitter {")
        .bash("npm run lint", "src/socket/client.ts\n  1:1  error  Unused eslint-disable "
              "directive (no problems were reported from 'unicorn/prefer-event-target')",
              failed=True)
        .edit("src/socket/client.ts", "// eslint-disable-next-line unicorn/prefer-event-target\n"
              "class SocketClient extends EventEmitter {",
              "class SocketClient extends EventEmitter {")
        .bash("npm run lint", "")
    )
    assert found(session.extract(), "failed_attempt") == []


def test_an_edit_reverted_after_a_failure_is_a_failed_attempt():
    session = (
        Session().prompt("make the importer faster")
        .say("Caching the parsed rows in a module-level dict should avoid re-reading the CSV.")
        .edit("app/importer.py", "rows = parse(path)", "rows = CACHE.setdefault(path, parse(path))")
        .bash("pytest -q", "FAILED tests/test_importer.py::test_reload - AssertionError: stale"
              "\n1 failed, 8 passed", failed=True)
        .say("That approach won't work: the cache keeps stale rows when the file changes.")
        .edit("app/importer.py", "rows = CACHE.setdefault(path, parse(path))", "rows = parse(path)")
    )
    attempts = found(session.extract(), "failed_attempt")
    assert any("Caching the parsed rows" in a and "stale" in a for a in attempts), attempts


def test_an_edit_reverted_with_the_route_given_up_in_chinese_is_a_failed_attempt():
    session = (
        Session().prompt("文章列表要支持离线")
        .say("最省事的办法是让 URLCache 兜底：请求设成 .returnCacheDataElseLoad。")
        .edit("App/APIClient.swift", "accept", "accept\ncachePolicy = .returnCacheDataElseLoad")
        .say("接口返回 Cache-Control: no-store，URLCache 根本不会存。所以这条路放弃，撤回改动。")
        .edit("App/APIClient.swift", "accept\ncachePolicy = .returnCacheDataElseLoad", "accept")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "returnCacheDataElseLoad" in attempt and "no-store" in attempt


def test_a_background_run_gets_its_verdict_from_the_tasks_notification():
    """Claude Code answers a background Bash at once; the exit code arrives later in a
    <task-notification>, the output in a file the agent reads."""
    output = "/tmp/claude-1000/-home-dev-shop/tasks/b3dd3e9.output"
    session = (
        Session().prompt("add the subscribe form")
        .edit("src/routes/subscribe/+page.svelte")
        .background("pnpm build", "b3dd3e9", output)
        .notified("b3dd3e9", output, "build", 1)
        .tool("Read", {"file_path": output}, {"type": "text"},
              content="     1→x Build failed in 3.84s\n     2→error during build:\n     3→"
                      "Cannot import $env/static/private into client-side code")
        .say("The page imports $lib/subscribe, which pulls the mailer and its private token "
             "into the browser bundle, so the server part moves to src/lib/server/.")
        .edit("src/lib/server/subscribe.ts")
        .bash("pnpm build 2>&1 | tail -3", "✓ built in 6.41s")
    )
    [bug] = found(session.extract(), "bug_note")
    assert "`pnpm build` failed" in bug and "Cannot import $env/static/private" in bug
    assert "src/lib/server" in bug
    launch = next(t for t in transcript.parse_entries(session.entries).tools
                  if t.input.get("run_in_background"))
    assert launch.failed is True


def test_a_reported_failure_reproduced_in_the_background_is_one_bug_told_by_the_wrap_up():
    """The work goes on after the task's notification; the wrap-up's own account of the
    cause and the fix tells the bug, not the words between the runs (which weigh a way
    that was not taken)."""
    output = "/tmp/claude-1000/-home-ko-batch/tasks/b8265e3.output"
    run = "docker run --rm --memory=4g -v $PWD:/app -w /app kpi:dev python -m jobs.kpi"
    session = (
        Session().prompt("the nightly kpi batch has been failing since yesterday, OOMKilled")
        .say("It loads every row into pandas before grouping. Reproducing it in the "
             "background:")
        .background(run, "b8265e3", output)
        .say("While it runs, a look at DuckDB's memory settings.")
        .notified("b8265e3", output, "repro", 137)
        .say("Reproduced (exit 137). Two ways: A. aggregate in DuckDB's SQL; B. rewrite it "
             "with Polars' lazy API, which streams but adds a dependency and rewrites it all.")
        .edit("jobs/kpi.py", "con.sql(q).df().groupby", "con.sql(AGGREGATE).df()")
        .bash(run, "done in 6:51, max RSS 1.7 GB")
        .say("Summary:\n\n- **Cause**: every row (81M) went through `.df()` into pandas "
             "before the groupby, past the 4GB limit.\n- **Fix**: the aggregation runs in "
             "DuckDB's SQL; `.df()` only takes the aggregated rows.")
    )
    [bug] = found(session.extract(), "bug_note")
    assert bug.startswith("the nightly kpi batch has been failing"), bug
    assert "81M" in bug and "aggregation runs in DuckDB" in bug and "Polars" not in bug
    launch = next(t for t in transcript.parse_entries(session.entries).tools
                  if t.input.get("run_in_background"))
    assert launch.failed is True and launch.output == "Exit code 137"


def test_a_wrap_up_labelling_what_was_wrong_is_a_bug_even_after_continue():
    """The person asked for a feature; the assistant found what was wrong on the way and
    labelled it in its wrap-up. A "continue" between (a usage limit, a compaction) picks up
    the same work: its wrap-up is the work's."""
    session = (
        Session().prompt("Is there a way to rewind the timeline?")
        .edit("app/client/src/lib/get-now.ts")
        .prompt("continue")
        .say("Everything looks good.\n\n**The problem:** The timeline uses `Date.now()` as its "
             "reference point, so historical events fall outside the visible range.\n\n"
             "**What I changed:** a `getNow()` utility that returns `timeOverride ?? "
             "Date.now()`, and a Rewind button.")
    )
    [bug] = found(session.extract(), "bug_note")
    assert "historical events fall outside" in bug and "getNow()" in bug
    turns = extractor.turns_of(transcript.parse_entries(session.entries))
    assert [t.opener.text for t in turns] == ["Is there a way to rewind the timeline?"]


def test_a_background_server_whose_output_shows_a_crash_is_not_verified():
    """A dev server's task may report exit 0 (its runner swallowed the error) or nothing
    (its watcher waits on): the output the agent read is the verdict."""
    def server(task: str, notified: str | None, shown: str) -> Session:
        output = f"/private/tmp/claude-501/-Users-j-obs/tasks/{task}.output"
        s = (Session().prompt("run it on another port so I can compare")
             .edit("app/client/src/sidebar.tsx")
             .tool("Bash", {"command": "PORT=4982 just dev", "run_in_background": True},
                   {"stdout": "", "stderr": "", "backgroundTaskId": task},
                   content=f"Command running in background with ID: {task}. Output is being "
                           f"written to: {output}"))
        if notified:
            s.prompt(f"<task-notification>\n<task-id>{task}</task-id>\n<status>completed"
                     f"</status>\n<summary>Background command \"dev\" {notified}</summary>\n"
                     "</task-notification>")
        return s.tool("Read", {"file_path": output}, {"type": "text"}, content=shown)

    def launch(session: Session) -> transcript.ToolCall:
        return next(t for t in transcript.parse_entries(session.entries).tools
                    if t.name == "Bash")

    crashed = server("b18", "completed (exit code 0)",
                     "1\t> vite\n2\t\n3\tsh: vite: command not found\n")
    assert launch(crashed).failed is True
    assert not found(crashed.extract(), "verified_command")
    watching = server("b19", None, "1\t[consumer] dev mode\n2\tTypeError: Cannot open "
                      "database because the directory does not exist\n3\t    at new Database")
    assert launch(watching).failed is True
    fine = server("b20", "completed (exit code 0)", "1\tServer: http://localhost:4982\n")
    assert launch(fine).failed is False
    running = server("b21", None, "     1\u2192VITE v5.4 ready in 312 ms\n")
    assert launch(running).failed is None


def test_a_server_that_crashed_then_runs_in_the_background_after_a_step_is_a_fix():
    """`just dev` failing (no deps), `just install`, `just dev` again in the background whose
    output, shown with `cat`, first crashes (no data folder), then, after `mkdir`, runs:
    two fixes, each with the step that fixed it."""
    def dev(task: str, shown: str, session: Session) -> Session:
        output = f"/private/tmp/claude-501/-Users-j-obs/tasks/{task}.output"
        return (session.tool("Bash", {"command": "PORT=4982 just dev",
                                      "run_in_background": True},
                             {"stdout": "", "stderr": "", "backgroundTaskId": task},
                             content=f"Command running in background with ID: {task}. Output "
                                     f"is being written to: {output}")
                .bash(f"sleep 1 && cat {output}", shown))

    session = (
        Session().prompt("run it on another port so I can compare")
        .edit("app/client/src/sidebar.tsx")
        .bash("PORT=4982 just dev", "> tsx watch src/index.ts\nsh: tsx: command not found",
              failed=True)
        .say("Needs deps installed first.")
        .bash("just install", "added 99 packages in 1s")
    )
    dev("b1", "> tsx watch src/index.ts\nTypeError: Cannot open database because the "
        "directory does not exist\n    at new Database", session)
    session.say("The server needs the `data/` directory.").bash("mkdir -p data")
    dev("b2", "Server: http://localhost:4982\nVITE v5.4 ready in 312 ms", session)
    session.say("It's up on port 4982.")
    bugs = found(session.extract(), "bug_note")
    assert any("tsx: command not found" in b and "ran `just install`" in b for b in bugs)
    assert any("Cannot open database" in b and "ran `mkdir -p data`" in b for b in bugs)


def test_a_fix_made_without_a_word_takes_its_how_from_the_wrap_up():
    session = (
        Session().prompt("fix the type errors please")
        .bash("uv run pyright", "/home/dev/shop/app/convert.py\n  /home/dev/shop/app/convert."
              "py:184:17 - error: Type of \"text_value\" is unknown\n1 error", failed=True)
        .edit("app/convert.py")
        .bash("uv run pyright", "/home/dev/shop/app/convert.py\n  /home/dev/shop/app/convert."
              "py:190:3 - error: Argument type is unknown\n1 error", failed=True)
        .edit("app/convert.py")
        .bash("uv run pyright", "0 errors, 0 warnings, 0 informations")
        .say("## CI\n- Runs on every push\n\n## Type issues fixed\nFixed the 17 errors in "
             "`app/convert.py` by:\n- Using `cast()` for values read from json.loads\n- "
             "Annotating `project_dirs: List[Path]`")
    )
    first, last = found(session.extract(), "bug_note")
    assert "190:3" in last and "cast()" in last and "CI" not in last
    # the first change fixed one error and the next surfaced: the wrap-up told the last fix
    assert "184:17" in first and "cast()" not in first
    assert not found(session.extract(), "failed_attempt")


def test_an_option_laid_out_by_name_and_taken_up_in_a_reply_is_a_decision_with_its_why():
    plan = ("You have two options:\n\n**Option A** — Copy the db so you can mess with it "
            "freely:\n```bash\ncp ~/.obs/data/observe.db ./data/observe.db\n```\n\n"
            "**Option B** — Point dev at the Docker db directly:\n```bash\nexport "
            "OBS_DB_PATH=~/.obs/data/observe.db\n```\n\nI'd recommend **Option A** (copy it) "
            "so you don't conflict with the running container — SQLite doesn't love two "
            "writers. Want me to set it up?")

    def reply(text: str) -> list[str]:
        session = (Session().prompt("run the app from the code here")
                   .edit("app/sidebar.tsx").say(plan).prompt(text)
                   .bash("mkdir -p data && cp ~/.obs/data/observe.db data/observe.db"))
        return found(session.extract(), "decision")

    [taken] = reply("great! copy the db, good idea. Do that for me")
    assert "cp ~/.obs/data/observe.db" in taken and "two writers" in taken
    [named] = reply("let's go with option B please")
    assert named.startswith("Point dev at the Docker db") and "two writers" not in named
    assert not any("observe.db" in d for d in reply("no, neither: we'll seed a fresh db"))


def test_agreeing_to_a_proposal_is_no_bug_report():
    session = (
        Session().prompt("add a GitHub Action to run the tests")
        .edit(".github/workflows/ci.yml")
        .say("Added `.github/workflows/ci.yml`: pytest and ruff on Python 3.12 and 3.13, on "
             "pushes to main.")
        .prompt("Wait, does it only run on main? I think we should run it on all push? Also, "
                "would you mind fixing the type issues?")
        .say("You're right! Let me fix both issues - update the workflow to run on all pushes "
             "and fix those type issues.")
        .edit(".github/workflows/ci.yml")
        .edit("app/convert.py")
    )
    assert not found(session.extract(), "bug_note")


def test_what_a_change_makes_possible_next_time_is_no_todo():
    session = (
        Session().prompt("make `just dev` self-bootstrapping")
        .edit("justfile")
        .say("Done. Now `just dev` installs what is missing and creates `data/`.\n\nSo next "
             "time (or next conversation), I can just run `just dev` and it works first try.")
    )
    assert not found(session.extract(), "todo")


def test_a_test_change_taken_out_as_planned_is_no_failed_attempt():
    session = (
        Session().prompt("first, add 'jess was here' to the header so we can test it, then run "
                         "it on another port")
        .say("Let me make the change and start the dev server on alternate ports.")
        .edit("app/sidebar.tsx", "Observe", "Observe — jess was here")
        .bash("PORT=4982 just dev", "sh: tsx: command not found", failed=True)
        .say("Needs deps installed first.")
        .bash("just install", "added 99 packages")
        .bash("PORT=4982 just dev", "Server: http://localhost:4982")
        .prompt("great, it works. make just dev self-bootstrapping")
        .edit("justfile")
        .say("Now let me revert the \"jess was here\" test change.")
        .edit("app/sidebar.tsx", "Observe — jess was here", "Observe")
    )
    assert not found(session.extract(), "failed_attempt")


def test_finding_what_was_looked_for_is_no_diagnosis():
    session = (
        Session().prompt("first, let's verify that we can test it. Can you add 'jess was here' "
                         "to the header?")
        .bash("grep -rn 'Observe' app/client/src", "app/client/src/sidebar.tsx:12: Observe")
        .say("Found it. Let me make the change and start the dev server on another port.")
        .edit("app/client/src/sidebar.tsx")
    )
    assert not found(session.extract(), "bug_note")


def test_a_background_run_still_running_has_no_verdict():
    session = (
        Session().prompt("run the suite")
        .tool("Bash", {"command": "pytest -q", "run_in_background": True},
              content="Command running in background with ID: bd0afab.")
        .tool("TaskOutput", {"task_id": "bd0afab", "block": True},
              {"retrieval_status": "timeout",
               "task": {"task_id": "bd0afab", "status": "running", "output": "..F"}},
              content="<retrieval_status>timeout</retrieval_status>\n<status>running</status>")
    )
    [launch] = [t for t in transcript.parse_entries(session.entries).tools if t.name == "Bash"]
    assert launch.failed is None
    session.tool("TaskOutput", {"task_id": "bd0afab", "block": True},
                 {"retrieval_status": "success",
                  "task": {"task_id": "bd0afab", "status": "completed", "exit_code": 0,
                           "output": "...\n3 passed"}},
                 content="<status>completed</status>\n<exit_code>0</exit_code>")
    [launch] = [t for t in transcript.parse_entries(session.entries).tools if t.name == "Bash"]
    assert launch.failed is False and "3 passed" in launch.output


@pytest.mark.parametrize(("command", "kind"), [
    ("cd roles/nginx && molecule test", "test"),
    ("ansible-lint roles/nginx", "lint"),
    ("xcodebuild test -scheme App -quiet", "test"),
    ("dune build", "build"),
    ("nix flake check", "lint"),
    ("./scripts/lint", "lint"),
    ("deno task dev", "run"),
    ("deno info main.ts", None),
    ("sed -n 1,5p test", None),
    ("cat test", None),
    ("git diff --check", None),
    # run inside an environment: the command inside decides
    ("nix develop -c cargo test", "test"),
    ("nix-shell --run 'make check'", "lint"),
    # in a subshell: the commands inside decide
    ("(source .venv/bin/activate && pytest)", "test"),
    ("(cd web && npm run build) && echo done", "build"),
    ("(cd web && ls)", None),
    # a program run on the project's tests is a test run, whatever its name
    ("pg_prove -d shop_dev tests/audit_test.sql", "test"),
    ("godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test -gexit", "test"),
    ("Unity -batchmode -projectPath . -runTests -testPlatform EditMode", "test"),
    ("cat tests/audit_test.sql", None),
    ("git add tests/", None),
    ("vim tests/test_api.py", None),
    ('bd close spotter-4te --reason "code complete and tests passing"', None),
    ("php bin/phpunit --filter InvoiceTest", "test"),
    ("cd infra && pulumi preview --stack prod --diff", "run"),
    ("php bin/console cache:clear", None),
    ("rebar3 eunit", "test"),
    ("rebar3 xref", "lint"),
    ("bin/kaocha --focus orders.api-test", "test"),
    ("clojure -M:migrate migrate", "run"),
    ('goose -dir migrations postgres "$DATABASE_URL" up', "run"),
    ("goose -dir migrations status", None),
    ("busted spec", "test"),
    ("west build -b nrf52840dk_nrf52840 -p -- -DEXTRA_CONF_FILE=prj_release.conf", "build"),
    ("proverb", None),
])
def test_toolchains_nobody_listed_are_still_recognised_as_recipes(command, kind):
    from engram.hooks.triage import command_kind

    assert command_kind(command) == kind


def test_a_short_verdict_in_a_wrap_up_keeps_the_paragraph_that_names_its_subject():
    session = (
        Session().prompt("vectorize resize_bilinear_row")
        .edit("src/resize_avx2.cpp")
        .bash("ctest --test-dir build", "100% tests passed, 0 tests failed out of 1")
        .prompt("great. and what happens on the windows build?")
        .say("Two options: give dispatch.cpp an _MSC_VER branch using __cpuid, or leave Windows"
             " on the scalar path. Which one depends on whether the .NET wrapper's users care"
             " about speed, so I haven't picked.\n\nFor Graviton: the same structure works "
             "with a NEON kernel. Not started.")
    )
    extraction = session.extract()
    [question] = found(extraction, "open_question")
    assert "Windows" in question and "__cpuid" in question
    assert any("Graviton" in t and "NEON" in t for t in found(extraction, "todo"))


def test_an_edit_undone_with_nothing_failing_is_tidying_not_an_attempt():
    session = (
        Session().prompt("tidy the imports in app/importer.py")
        .edit("app/importer.py", "import os", "import os, sys")
        .edit("app/importer.py", "import os, sys", "import os")
    )
    assert found(session.extract(), "failed_attempt") == []


@pytest.mark.parametrize(("sentence", "kind"), [
    ("never run the migrations on a Friday", "constraint"),
    ("From now on, use pnpm, not npm.", "constraint"),
    ("I prefer small commits with one change each", "preference"),
    ("no ORMs in this repo", "constraint"),
    ("Никогда не коммить напрямую в main", "constraint"),
    ("Ich bevorzuge kurze Funktionen", "preference"),
    ("Am liebsten kleine Commits mit einer Änderung", "preference"),
    # a budget, a team's schedule, a reminder: rules without a modal verb
    ("15 minutes stale is fine for this report, finance looks at it once a day", "constraint"),
    ("до 200 мс нормально для этого эндпоинта", "constraint"),
    ("we ship on Tuesdays only, the release workflow runs on a schedule", "constraint"),
    ("reminder: every error response from this API is ProblemDetails", "constraint"),
    ("ok 2 is fine", None),
    ("I ran it on Tuesdays twice", None),
    ("Preferimos nombres de variables en inglés", "preference"),
    ("テストはなるべくテーブル駆動で書いてください", "preference"),
    ("Bitte keine neuen Abhängigkeiten", "constraint"),
    ("Ne touche jamais aux migrations déjà déployées", "constraint"),
    ("Siempre usa UTC en las fechas", "constraint"),
    ("Nunca use callbacks do ActiveRecord para regras de cobrança", "constraint"),
    ("以后所有接口都必须返回统一的错误码", "constraint"),
    ("テストは必ず日本時間で書いてください", "constraint"),
    ("constraints: the build farm is on GCC 9, so C++17 is the ceiling", "constraint"),
    ("and the header is included by customers, so no intrinsics in it", "constraint"),
    ("И в новом коде только Svelte 5: никаких `export let` и writable-сторов", "constraint"),
    ("Подписка только с подтверждением — юристы настаивают из-за GDPR", "constraint"),
    ("测试继续用 XCTest，别上 swift-testing", "constraint"),
    ("最低支持 iOS 16，所以 SwiftData 都用不了", "constraint"),
    ("add a unique constraint on the email column", None),
    ("pip install -r requirements.txt fails on the CI image", None),
    ("I never call Deno.env anywhere", None),
    ("can you fix the login bug?", None),
    ("the tests fail since yesterday", None),
    ("don't worry about the docs", None),
    ("Я не знаю, почему это падает", None),
    ("Pin nixpkgs to nixos-24.05, unstable broke openssl last year", "constraint"),
    ("u nas nie używamy autoloadów do stanu gry", "constraint"),
    ("zapisu ekwipunku do pliku jeszcze nie podpięłam, to jutro", None),
    ("Non usare mai print per il logging, da noi si usa structlog", "constraint"),
    ("unstable 채널은 쓰지 마세요", "constraint"),
    ("Preferisco commit piccoli, uno per modifica", "preference"),
    ("Wolę krótkie funkcje i małe pliki", "preference"),
    # rules without the usual modal: a condition, a state to keep, a non-negotiable, a policy
    ("revert the O2, not without a benchmark that shows it matters", "constraint"),
    ("wir nutzen SQLAlchemy direkt, ohne Flask-SQLAlchemy, und das soll auch so bleiben",
     "constraint"),
    ("パーサは今の Menhir のままで。", "constraint"),
    ("Una cosa innegociable: todas las actions fijadas por SHA, nada de @v4", "constraint"),
    ("テストは既存のと同じく ppx_expect で書いてほしいです", "preference"),
    ("add a retry policy to the HTTP client", None),
    ("the parser stays as it is for now?", None),
    ("also: everything in prod gets protect: true. someone deleted the apex record last year",
     "constraint"),
    ("and nothing may be recreated, if the MX records blink we lose mail", "constraint"),
    ("this may not work on Windows", None),
    ("Und wir hängen wegen dem dbt-Cloud-Vertrag auf dbt 1.8 fest, also nichts aus 1.9",
     "constraint"),
    ("why ignoreChanges on content? no. the whole point is that code is the source of truth now",
     "constraint"),
    ("no, è sbagliato: qui usiamo Flyway, Liquibase l'abbiamo tolto l'anno scorso", "constraint"),
    ("查询用 HoneySQL 写，别拼 SQL 字符串，跟别的 handler 一样。", "constraint"),
    ("参数校验用 malli，我们不用 spec。", "constraint"),
    ("orders 表 3000 万行，建索引要 CONCURRENTLY，不然锁表。", "constraint"),
    ("l'hébergeur de la cliente est bloqué en PHP 7.4 (mutualisé), donc pas de syntaxe PHP 8.",
     "constraint"),
    ("我们要快点，不然来不及了", None),
    ("区别很大，你别的都不用改", None),
    ("good q, ask Priya, she owns the alerting rules", None),
    ("profiler shows GC spikes every time the minigun fires, it's Instantiate/Destroy", None),
    ("every time you touch the schema, bump DB_VERSION", "constraint"),
    ("新しく書くテストは munit にしてね、ScalaTest は段々なくしていく方針なので。", "constraint"),
    ("いずれ外すべきか気になってる", None),
    ("I wonder whether we should drop generic-extras at some point", None),
    ("lance pas le jeu depuis ici, ça m'ouvre une fenêtre plein écran en plein call", "constraint"),
    ("Żadnych cronów na maszynach, wszystko periodic w Nomadzie.", "constraint"),
    ("na proda nic ręcznie, wszystko idzie przez pipeline po merge'u do main", "constraint"),
    ("cleanup I'll hang on the housekeeping worker tomorrow, NOT a new cron", "constraint"),
    ("this is not a bug in the parser at all", None),
    ("release 里不用 UART，日志只走 RTT。", "constraint"),
    ("no, cron nuevo no. ya tenemos cmd/mantenimiento que corre cada noche, mételo ahí.",
     "constraint"),
    ("Redis não. Usa o Postgres que já temos.", "constraint"),
    ("creo que no.", None),
    ("the answer is no.", None),
    # Spanish "no" before a verb negates a report; "aquí" alone is only "here"
    ("no anduvo, estoy en PyCharm con keybinds de VSCODE", None),
    ("parece que se ve mejor, pero no resolvió lo de las oraciones", None),
    ("Incluye aquí el código generado para poder responder a tu pregunta", None),
    ("acá todo va por la API interna", "constraint"),
    ("si, prod es elasticache 6.0 también y no lo vamos a subir este trimestre", "constraint"),
    ("Transcription failures: I don't expect the audio source to change while recording.", None),
    # asking first, scoped "don't touch", conditionals, every new one of a kind
    ("and ask before adding any new dependency to package.json, even dev ones", "constraint"),
    ("не тащи новые зависимости без спроса", "constraint"),
    ("本番のDBには触らないでください", "constraint"),
    ("动 third_party/ 目录之前先问我", "constraint"),
    ("スキーマを変えたら `npm run gen:types` で型を再生成してね", "constraint"),
    ("on a encore deux clients en PHP 7.4 donc pas d'enums ni de readonly", "constraint"),
    ("commits auf Englisch", "constraint"),
    ("btw all new endpoints need the `@audited` decorator, compliance checks it", "constraint"),
    ("não sobe .env pro repositório de jeito nenhum, as chaves ficam no Secrets Manager",
     "constraint"),
    ("j'ai horreur des fonctions de 200 lignes, découpe un peu", "preference"),
    ("マジックナンバーは嫌いなので定数にしてほしい", "preference"),
    # what explains an effect, a past habit, praise, a symptom, a quoted error, a what-if
    ("the sync job always retries 3 times and then gives up, that's why the queue drains so "
     "fast when redis is down", None),
    ("marco always used tabs back when he owned this module, that's why the diff is noisy",
     None),
    ("Серёга всегда ставил табы в этих файлах", None),
    ("wow never would have found that off-by-one myself, nice", None),
    ("krass, da wär ich nie drauf gekommen", None),
    ("ça plante à chaque fois que je sauvegarde un devis avec une remise à 0", None),
    ("падает с `ValueError: timestamp must be timezone-aware` при импорте, глянь", None),
    ("如果以后换成 PostgreSQL，这些 JSON 查询都得重写", None),
    ("Korrigier bitte nur den Tippfehler in der Fehlermeldung, sonst nix anfassen.", None),
    ("the nix build fails on darwin", None),
    ("great, all new tests pass. now add the docs", None),
    ("there are no matches for that query", None),
    ("the request goes into the queue and never comes back", None),
    ("would you mind fixing the type issues? They don't look that bad.", None),
    # one way only, a thing not to be, a habit with its moment, what to do when a case comes
    ("Also where did these .js files come from? We are using typescript only.", "constraint"),
    ("auth command should not exist", "constraint"),
    ("Lets also make sure run the linter with autofixing after you are done with a bunch of "
     "commands", "constraint"),
    ("if you think the server has an issue - simply note it and move on for now.", "constraint"),
    ("does this file even need to exist?", None),
    # said in passing: only without X, where all of a kind goes, a value kept, as usual
    ("посмотри плз. только без питоновских UDF, они у нас уже два раза клали кластер.",
     "constraint"),
    ("и все настройки спарка в conf/nightly.yaml, не в коде", "constraint"),
    ("All Spark settings go in conf/nightly.yaml, not in the code.", "constraint"),
    ("все тесты в CI упали, не в первый раз", None),
    ("all tests in CI pass, not locally", None),
    ("et on reste à 30s, la CI est facturée à la minute", "constraint"),
    ("pas l'UI, ça ouvre une fenêtre et ça bloque tout", "constraint"),
    ("pas la peine, laisse", None),
    ("--reporter=line et la trace, comme d'hab", "constraint"),
    ("Гра має працювати на Raspberry Pi 3 з LÖVE 11.4, не 12.", "constraint"),
    ("ні! кіоск у музеї не чіпаємо, там зараз діти", "constraint"),
    ("das muss raus", None),
    ("muss ich lena fragen (ux)", None),
    ("Unhandled Promise Rejection: updater.check not allowed. Permissions associated with "
     "this command: updater:default", None),
    ("제가 Tauri 2는 처음이라 어떻게 돌아가는 건지도 같이 설명해 주시면 좋겠어요.", None),
    ("아 맞다, 팀장님이 키 파일은 무조건 1Password에만 두라고 하셨어요.", "constraint"),
    ("로컬 디스크에도 남기지 말라고요", "constraint"),
    ("민수님이 내일 오신다고 했어요", None),
    ("if you think that's enough, go ahead", None),
    # what someone did or knows, in the past or the first person: no prohibition
    ("Marcos me preguntó y no supe qué decirle", None),
    ("lo corrí dos veces y no encuentro el log", None),
    ("y no toques el CI, lo mantiene otro equipo", "constraint"),
    # id: a prohibition with its why, a lasting format, a taste; a reminder, a one-off
    ("pakai prisma yang udah ada aja ya, jangan nambah ORM lain, tim udah sepakat satu ORM",
     "constraint"),
    ("mulai sekarang semua response error harus formatnya { error: { code, message } }",
     "constraint"),
    ("kalau bisa tes pakai supertest aja, aku lebih suka daripada manggil handler langsung",
     "preference"),
    ("jangan lupa push ya", None),
    ("kali ini jangan jalankan semua tes", None),
    # tr, hi (Hinglish): a negative imperative, "not wanted", "don't touch"; what happened
    ("btw embassy versiyonlarını bump etme, Cargo.lock commitli", "constraint"),
    ("sensörsüz reboot loop istemiyoruz, sensör yoksa da radyo çalışmalı", "constraint"),
    ("sahadaki node'lar arada donuyo, son log hep sensor task'tan önce", None),
    ("prod compose mat chhedo, woh infra team ka hai", "constraint"),
    ("live tracking pe status updates kabhi aate hain kabhi nahi", None),
    # staying where it is; a window the work is held to (not "only after 2 tries")
    ("на постгрес не переезжаем, бот живёт на VPS с 512 МБ, sqlite нормально", "constraint"),
    ("we're not moving to Postgres, the bot lives on a 512 MB VPS", "constraint"),
    ("I tried to move it, but we are not moving fast", None),
    ("перезапуск только после 23:00, когда клуб закрыт.", "constraint"),
    ("deploys only before noon, nobody watches the pager after lunch", "constraint"),
    ("it only worked after 2 tries", None),
    # the language a team writes in (not what someone once wrote)
    ("но ревью у нас на английском, в репо есть внешние контрибьюторы.", "constraint"),
    ("commit messages are in English, the repo has outside contributors", "constraint"),
    ("я написал ревью на английском", None),
    ("I wrote the review in English yesterday", None),
])
def test_rules_are_recognised_in_the_users_words_in_several_languages(sentence, kind):
    assert rule_type(sentence) == kind


def test_each_item_under_a_line_that_announces_rules_is_a_rule_and_the_line_is_none():
    from engram.capture.reading import rules_in

    prompt = ("The new service needs alerts before it goes live. So you don't walk into it, "
              "our rules here in the repo:\n- every alert rule needs a promtool test\n"
              "- severity only `page` or `ticket`, Alertmanager routes nothing else\n"
              "- runbook_url is mandatory\nThen look at lagerbestand.yaml.")
    rules = [rule for _, rule in rules_in(prompt)]
    assert any(r.startswith("severity only") for r in rules), rules
    assert any(r.startswith("runbook_url") for r in rules), rules
    assert not any("our rules here" in r for r in rules), rules


def test_a_rule_typed_with_a_curly_apostrophe_reads_as_any_other():
    session = (
        Session().prompt("Build a Pomodoro timer web app.\n\nDon\u2019t use any external "
                         "frameworks \u2014 keep it pure HTML, CSS, and JS.")
        .tool("Write", {"file_path": f"{CWD}/index.html", "content": "<html></html>"},
              {"type": "create"}, content="File created successfully")
    )
    [rule] = found(session.extract(), "constraint")
    assert rule.startswith("Don't use any external frameworks")


def test_a_message_typed_while_the_assistant_works_is_read_for_rules():
    """Claude Code keeps a message typed mid-turn as a queue entry: removed from the queue
    when handed to the assistant (its only record), dequeued when sent as a prompt later,
    popped back into the input box when not sent at all."""
    def queued(operation: str, text: str | None = None) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "queue-operation", "operation": operation,
                                 "timestamp": "2026-03-18T10:30:00.000Z", "sessionId": SESSION}
        if text is not None:
            entry["content"] = text
        return entry

    session = (
        Session().prompt("add a Makefile target for the checks")
        .raw(queued("enqueue", "also: imports always at the top of the module, no lazy "
                               "imports"))
        .edit("Makefile")
        .raw(queued("remove"))
        .raw(queued("enqueue", "and never run the integration suite from here"))
        .raw(queued("popAll"))
        .say("Added `make check` running ruff and ty.")
    )
    [rule] = found(session.extract(), "constraint")
    assert rule.startswith("also: imports always at the top")
    sent = (Session().prompt("add a Makefile target for the checks")
            .raw(queued("enqueue", "always run ruff format before committing"))
            .edit("Makefile").raw(queued("dequeue"))
            .prompt("always run ruff format before committing").edit("Makefile"))
    assert len(found(sent.extract(), "constraint")) == 1
    kinds = [e.kind for e in transcript.parse_entries(sent.entries).events]
    assert "aside" not in kinds


def test_rules_from_prompts_answers_and_rejections_become_separate_memories():
    session = (
        Session()
        .prompt("Add retries to the webhook sender.\n\nNever retry a 4xx: the merchant "
                "rejected it on purpose.")
        .tool("AskUserQuestion", {"questions": [{"question": "Where should retries live?",
                                                 "header": "Retries", "multiSelect": False,
                                                 "options": [{"label": "Client"},
                                                             {"label": "Queue"}]}]},
              {"questions": [], "answers": {"Where should retries live?": "Queue"}},
              content='User has answered your questions: "Where should retries live?"="Queue".')
        .tool("Bash", {"command": "pip install tenacity"},
              "User rejected tool use", error=True,
              content="The user doesn't want to proceed with this tool use. The tool use was "
                      "rejected (eg. if it was a file edit, the new_string was NOT written to "
                      "the file). To tell you how to proceed, the user said:\nwe don't add "
                      "dependencies for retries, write the loop by hand")
        .edit("app/sender.py")
    )
    extraction = session.extract()
    rules = found(extraction, "constraint")
    assert any(r.startswith("Never retry a 4xx") and "on purpose" in r for r in rules)
    assert any("we don't add dependencies for retries" in r for r in rules)
    assert any("Where should retries live?" in d and "Queue" in d
               for d in found(extraction, "decision"))
    assert not any("Add retries to the webhook sender" in r for r in rules)  # a request


def test_the_reason_before_an_edit_is_a_decision_and_narration_is_not():
    session = (
        Session().prompt("add rate limiting per tenant")
        .say("Let me look at the middleware first.")
        .tool("Read", {"file_path": f"{CWD}/app/middleware.py"}, "...")
        .say("A token bucket per tenant, refilled on access instead of a ticker per tenant, "
             "because a ticker would keep thousands of idle goroutines alive.")
        .edit("app/limiter.py")
        .say("Now update the import.")
        .edit("app/main.py")
    )
    decisions = found(session.extract(), "decision")
    assert len(decisions) == 1 and "refilled on access instead of a ticker" in decisions[0]


@pytest.mark.parametrize("said, chosen, why", [
    ("I considered `setInterval` for the polling loop but went with a recursive `setTimeout` "
     "— with `setInterval` a slow request can overlap the next tick.", "setTimeout", "overlap"),
    ("SQLite is simpler than Postgres here: the CLI is single-user and a server would "
     "complicate installs.", "SQLite", "single-user"),
    ("Рассматривал WebSocket, но выбрал Server-Sent Events: поток тут односторонний.",
     "Server-Sent Events", "односторонний"),
    ("Les logs passent en JSON structuré, pas en texte libre, parce que Loki doit filtrer "
     "par `request_id`.", "JSON", "Loki"),
    ("金额字段用 `DECIMAL(18,2)` 而不用 `DOUBLE`，否则对账时会出现几分钱的误差。",
     "DECIMAL", "误差"),
    ("インデックスは `CREATE INDEX CONCURRENTLY` で作成します。"
     "そうしないと作成中ずっと本番の書き込みがロックされるので。", "CONCURRENTLY", "ロック"),
    ("Voy a paginar por cursor y no con `OFFSET`, ya que con millones de filas el `OFFSET` "
     "se vuelve carísimo.", "cursor", "millones"),
])
def test_a_choice_worded_in_any_language_before_an_edit_is_a_decision(said, chosen, why):
    session = (Session().prompt("please implement it").say(said).edit("src/feature.ts")
               .bash("npm test", "ok"))
    assert any(chosen in d and why in d for d in found(session.extract(), "decision"))


@pytest.mark.parametrize("said", [
    "The function `parse_date` returns `None` instead of raising when the format doesn't "
    "match, which is why the caller gets a TypeError.",
    "The Helm chart uses a `ConfigMap` rather than a `Secret` for the DB host — that's "
    "existing behaviour; I'm only bumping the image tag.",
    "Le projet utilise déjà `axios` plutôt que `fetch` ; je me contente d'ajouter "
    "l'intercepteur existant au nouveau client.",
    "このプロジェクトは `Jest` ではなく `Vitest` を使っています（既存の構成です）。",
    "The compiler says `Config` lacks `Clone`, so I'm adding the derive instead of cloning "
    "by hand.",
])
def test_the_code_as_it_is_or_what_a_tool_says_of_it_is_no_decision(said):
    session = (Session().prompt("please implement it").say(said).edit("src/feature.ts")
               .bash("npm test", "ok"))
    assert found(session.extract(), "decision") == []


def test_one_thing_done_for_one_reason_is_a_decision_but_a_step_of_the_work_is_not():
    def decisions(said: str) -> list[str]:
        session = (Session().prompt("please implement it").say(said).edit("src/isr.c")
                   .bash("make test", "ok"))
        return found(session.extract(), "decision")

    assert any("only set a flag" in d and "reentrant" in d for d in decisions(
        "In the ISR I'll only set a flag and do the UART parsing in the main loop, since the "
        "parser isn't reentrant and would block the other interrupts."))
    assert any("partitionne" in d and "RGPD" in d for d in decisions(
        "Je partitionne la table `events` par mois, car les purges RGPD suppriment des mois "
        "entiers et un `DROP PARTITION` est instantané."))
    for step in ("Ich aktualisiere den Test, weil er nach der Umbenennung fehlschlägt.",
                 "Сначала я прочитаю конфиг, потому что сообщение ссылается на "
                 "`max_connections` из него.",
                 "Je mets à jour l'import dans `main.py`, parce que le module a été renommé "
                 "dans le commit précédent.",
                 "Since the function is now async, I'll await it in the caller as well."):
        assert decisions(step) == [], step


def test_a_diagnosis_told_before_the_edit_that_fixes_it_is_a_bug_note_not_a_decision():
    session = (
        Session().prompt("the March backfill fetched April's file, why?")
        .say("Found the bug: the file name is built from `datetime.now()`, so every run — "
             "scheduled, retried or backfilled — fetches today's file instead of the one "
             "for its logical date.")
        .edit("dags/partner_feed.py", "datetime.now()", "context['logical_date']")
        .bash("pytest -q tests/test_partner_feed.py", "3 passed")
    )
    extraction = session.extract()
    assert any("datetime.now()" in b for b in found(extraction, "bug_note"))
    assert not any("datetime.now()" in d for d in found(extraction, "decision"))


def test_a_push_the_remote_refuses_then_another_way_that_works_is_a_fact_not_a_bug():
    session = (
        Session().prompt("push the branch and open a PR")
        .bash("git push -u origin timeline-rewind 2>&1",
              "remote: Permission to simple10/agents-observe.git denied to jess.\nfatal: "
              "unable to access 'https://github.com/simple10/agents-observe/': The "
              "requested URL returned error: 403", failed=True)
        .say("You don't have push access to the upstream repo. I'll fork it and push there.")
        .bash("gh repo fork simple10/agents-observe --clone=false 2>&1",
              "https://github.com/jess/agents-observe")
        .bash("git remote add fork https://github.com/jess/agents-observe.git && "
              "git push -u fork timeline-rewind 2>&1", "* [new branch] timeline-rewind")
    )
    extraction = session.extract()
    assert any("No access" in f and "403" in f and "git push -u fork timeline-rewind" in f
               for f in found(extraction, "project_fact"))
    assert not any("git push" in b for b in found(extraction, "bug_note"))


def _attempts(session: Session) -> list[str]:
    return found(session.extract(), "failed_attempt")


def test_an_approach_given_up_right_after_its_test_failed_is_a_failed_attempt():
    for said, tried in [
        ("So it isn't the cache: with `CACHE_BACKEND=dummy` the test still times out after "
         "30s. Putting the cache back and looking at the pool.", "CACHE_BACKEND"),
        ("`time.sleep(0.5)` перед ассертом не помог, `test_notify` падает так же — событие в "
         "очередь не приходит. Убираю.", "time.sleep"),
        ("Aumentar o pool do `database.yml` para 30 não adiantou nada — continua dando "
         "`ActiveRecord::ConnectionTimeoutError`.", "database.yml"),
    ]:
        session = (Session().prompt("fix the flaky checkout test").edit("app/cache.py")
                   .bash("pytest -q", "FAILED tests/test_checkout.py::test_total", failed=True)
                   .say(said).edit("app/pool.py").bash("pytest -q", "12 passed"))
        assert any(tried in a for a in _attempts(session)), said


def test_a_wrap_up_telling_a_road_it_left_is_a_failed_attempt():
    for wrap_up, tried in [
        ("**Changes**\n- `app/models/order.rb`: optimistic lock with `lock_version`.\n\n"
         "**Dead ends**\n- `with_lock` (pessimistic): deadlocked under the import job.",
         "with_lock"),
        ("Ресайз картинок теперь на `jimp`. Хотел взять `sharp`, но на нашем Alpine-образе "
         "его бинарники не собираются.", "sharp"),
        ("全文検索は N-gram テーブルで実装しました。最初は PGroonga を使おうとしましたが、"
         "Cloud SQL に拡張を入れられないため見送りました。", "PGroonga"),
    ]:
        session = (Session().prompt("make it work").edit("app/x.rb").bash("rspec", "0 failures")
                   .say(wrap_up))
        assert any(tried in a for a in _attempts(session)), wrap_up


def test_the_persons_reply_that_the_change_broke_or_did_not_fix_it_is_a_failed_attempt():
    def attempts(reply: str) -> list[str]:
        session = (Session().prompt("the login page 500s, fix it")
                   .say("I'll add the CSRF token to the header, so the form posts pass.")
                   .edit("app/csrf.py").say("Done: the token is in the header now.")
                   .prompt(reply).edit("app/csrf.py").bash("pytest -q", "3 passed"))
        return _attempts(session)

    assert attempts("revierte eso por favor, la anotación nueva rompió el login")
    assert attempts("nope, same crash on Android 11 — the `largeHeap` thing doesn't fix it")
    assert attempts("If the token change doesn't help on staging, we'll try the pool next. "
                    "Deploying now.") == []
    assert attempts("Подожди откатывать — 500 на стейдже из-за упавшего Redis, а не из-за "
                    "твоей правки.") == []


def test_a_path_git_add_refuses_for_a_gitignore_then_forced_in_is_a_failed_attempt():
    session = (
        Session().prompt("commit the new stylesheet").edit("assets/app.css")
        .bash("git add assets/app.css priv/static/assets/spotter.css",
              "The following paths are ignored by one of your .gitignore files:\n"
              "priv/static/assets\nhint: Use -f if you really want to add them.", failed=True)
        .bash("git add assets/app.css", "")
        .bash("git add -f priv/static/assets/spotter.css && git commit -m 'style'", "[main 1a2b3c]")
    )
    [attempt] = [a for a in _attempts(session) if "gitignore" in a]
    assert "`priv/static/assets`" in attempt
    assert "`git add -f priv/static/assets/spotter.css` adds it" in attempt
    quiet = (Session().prompt("commit it").edit("notes.txt")
             .bash("git add notes.txt", "The following paths are "
             "ignored by one of your .gitignore files:\nnotes.txt\nhint: Use -f", failed=True))
    assert _attempts(quiet) == []  # never forced in: nothing learnt about the way


def test_already_said_of_a_reason_still_chooses():
    session = (
        Session().prompt("send the PDFs in the background")
        .say("`symfony/doctrine-messenger` is already installed, so the Doctrine transport "
             "comes for free: the queue is a table in the same Postgres, no new service.")
        .edit("config/packages/messenger.yaml")
        .bash("bin/phpunit", "OK")
    )
    assert any("Doctrine transport" in d for d in found(session.extract(), "decision"))


def test_open_todos_and_questions_left_at_the_end():
    session = (
        Session().prompt("add the export endpoint")
        .tool("TodoWrite", {"todos": [
            {"content": "Add the export endpoint", "status": "completed", "activeForm": "x"},
            {"content": "Document the export format", "status": "pending", "activeForm": "y"}]},
            {"oldTodos": [], "newTodos": []})
        .edit("app/export.py")
        .say("Done: the export endpoint streams JSONL.\n\n**Still open:**\n- Large exports "
             "are not paginated yet\n- Should exports include archived memories?\n\nWould "
             "you like me to add pagination now?")
    )
    extraction = session.extract()
    todos = found(extraction, "todo")
    assert "Document the export format" in todos
    assert any("not paginated" in t for t in todos)
    assert any("archived memories" in q for q in found(extraction, "open_question"))
    assert not any("Would you like me" in t for t in [*todos, *found(extraction,
                                                                     "open_question")])


def test_what_a_wrap_up_leaves_open_names_its_subject_and_a_choice_waiting_on_the_user():
    session = (
        Session().prompt("fix the detached instance error on the orders route")
        .edit("app/api/orders.py")
        .say("Fixed: the items load with selectinload inside the session.\n\n"
             "The same pattern is in app/api/customers.py, route /<id>/addresses. That will "
             "break the same way once someone calls it; I left it alone.\n\n"
             "Division truncates towards zero (-7 / 2 = -3); if you'd rather have floor "
             "division like Python, tell me.")
    )
    extraction = session.extract()
    assert any("customers.py" in t and "break the same way" in t
               for t in found(extraction, "todo"))
    assert any("floor division" in q for q in found(extraction, "open_question"))


def test_an_approach_the_assistant_gives_up_after_the_users_report_is_a_failed_attempt():
    session = (
        Session().prompt("la page /interventions met 8 secondes à s'afficher")
        .say("Le plus simple : `<Virtualize>`, qui ne rend que les lignes visibles.")
        .edit("Pages/Interventions.razor", "@foreach", "<Virtualize ItemSize=\"48\">")
        .say("Compile.")
        .prompt("Affichage rapide oui, mais quand je scrolle ça saute dans tous les sens.")
        .say("`Virtualize` suppose une hauteur fixe, or les lignes varient. Avec une hauteur "
             "variable, `Virtualize` n'est pas le bon outil ; je passe à `QuickGrid`.")
        .edit("Pages/Interventions.razor", "<Virtualize ItemSize=\"48\">", "<QuickGrid>")
    )
    attempts = found(session.extract(), "failed_attempt")
    assert any("Virtualize" in a and "ça saute" in a and "pas le bon outil" in a
               for a in attempts), attempts


def test_a_labelled_open_question_keeps_its_explanation():
    session = (
        Session().prompt("make fct_orders incremental")
        .edit("models/marts/fct_orders.sql")
        .say("Fertig, alles grün.\n\nOffen: Löscht der Shop Bestellungen hart? Mit "
             "`delete+insert` fällt eine gelöschte Bestellung nie aus `fct_orders` raus.")
    )
    [question] = found(session.extract(), "open_question")
    assert question.startswith("Löscht der Shop") and "delete+insert" in question


def test_the_users_last_words_about_work_not_done_yet_are_a_todo():
    session = (
        Session().prompt("the monthly report is way too slow, fix it")
        .edit("app/reports.py")
        .say("Done: the report folds the rows instead of building a list.")
        .prompt("nice. I haven't put the posted_at index on prod yet, so it's still the query.")
        .say("Then that index is the next step.")
    )
    assert any("posted_at index on prod" in t for t in found(session.extract(), "todo"))


_REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
             "(eg. if it was a file edit, the new_string was NOT written to the file). STOP "
             "what you are doing and wait for the user to tell you how to proceed.")


def test_a_problem_supposed_in_a_request_is_no_reported_bug():
    def session(prompt: str) -> Session:
        return (Session().prompt(prompt)
                .say("The recorder now keeps a sentinel file while it records, because a "
                     "crash mid-dictation otherwise loses the whole recording.")
                .edit("Sources/AppDelegate.swift"))

    supposed = session("We add some behavior if it starts up and it had crashed: offer the "
                       "last recording again.")
    assert not found(supposed.extract(), "bug_note")
    seen = session("It crashed in the middle of a long dictation and the recording was lost.")
    assert found(seen.extract(), "bug_note")


def test_a_behaviour_the_person_expected_and_did_not_get_is_a_reported_bug():
    def session(prompt: str) -> Session:
        return (Session().prompt(prompt)
                .say("The app just silently opens System Settings, with no explanation. "
                     "Adding a proper alert with an Open Settings button.")
                .edit("Sources/AppDelegate.swift"))

    expected = session("It says it's waiting for accessibility. It should pop up a box when "
                       "that is happening and help me open the system settings")
    bugs = found(expected.extract(), "bug_note")
    assert len(bugs) == 1 and bugs[0].startswith("It should pop up a box"), bugs
    asked = session("Add a box that helps me open the system settings for accessibility.")
    assert not found(asked.extract(), "bug_note")


def test_a_problem_that_keeps_coming_back_or_that_people_complain_of_is_reported():
    for prompt in ("в боте записи опять перебор: на йогу записалось 14 человек при лимите 12, "
                   "тренер ругается. это уже третий раз за месяц.",
                   "the yoga class got 14 bookings for 12 places again, third time this "
                   "month"):
        session = (Session().prompt(prompt)
                   .say("A check-then-insert race: the count and the insert are apart, "
                        "so two taps on the last place both see it free.")
                   .edit("bot/booking.py", "await count()", "INSERT ... SELECT ... WHERE"))
        bugs = found(session.extract(), "bug_note")
        assert len(bugs) == 1 and "14" in bugs[0], (prompt, bugs)


def test_the_reason_before_an_edit_that_takes_a_try_back_leads_the_edit_after_it():
    session = (
        Session().prompt("the bookings overrun the limit")
        .edit("bot/booking.py", "await insert()", "async with lock: await insert()")
        .say("The lock keeps it in order now.")
        .prompt("a lock in memory won't do, the admin writes from another process")
        .say("Right, the lock lives in one process. Removing it and doing the check and the "
             "insert in one SQL statement instead of a lock, because SQLite runs one "
             "statement atomically.")
        .edit("bot/booking.py", "async with lock: await insert()", "await insert()")
        .edit("bot/booking.py", "await insert()", "await insert_if_room()")
    )
    decisions = found(session.extract(), "decision")
    assert any("one SQL statement" in d for d in decisions), decisions


def test_a_commit_a_hook_refused_tells_what_commits_must_pass():
    framework = ("ruff.....................................................Failed\n- hook id: "
                 "ruff\n- exit code: 1\nsrc/app.py:3:1: F401 unused import\n"
                 "mypy.....................................................Passed\n")
    session = (
        Session().prompt("add the refund endpoint")
        .edit("src/app.py")
        .bash('git commit -am "refunds"', "[INFO] Initializing environment for pre-commit\n"
              + framework, failed=True)
        .bash('git commit --no-verify -am "refunds"', "Pre-commit validation failed:\\n\\n"
              "[FORMAT] Code is not formatted.", failed=True)
        .edit("src/app.py")
        .bash('git commit -am "refunds"', "[main 1a2b3c4] refunds\n 1 file changed")
    )
    [gate] = found(session.extract(), "project_fact")
    assert gate.startswith("Commits go through a pre-commit hook (ruff, mypy, format)")
    assert "`--no-verify` does not skip it" in gate
    plain = (Session().prompt("commit it").edit("src/app.py")
             .bash('git commit -am "x"', "On branch main\nnothing to commit", failed=True))
    assert not found(plain.extract(), "project_fact")  # git's own refusal, no hook


def test_an_issue_the_session_filed_and_did_not_close_is_open_work():
    session = (
        Session().prompt("render the subagent rows")
        .edit("lib/spotter_web/live/session_live.ex")
        .bash('bd create --title="load_session_messages drops agent_id" --type=bug '
              '--description="## Problem\nSessionLive maps messages without agent_id, so '
              'subagents are only found by text pattern."',
              "✓ Created issue: spotter-fum.5\n  Title: load_session_messages drops agent_id")
        .bash('gh issue create --title "Flaky checkout test" --body "fails one run in ten"',
              "https://github.com/acme/shop/issues/41")
        .bash('bd create --title="Tidy the renderer" --type=task',
              "✓ Created issue: spotter-fum.6")
        .bash("bd close spotter-fum.6 --reason=done", "✓ Closed spotter-fum.6")
        .bash('gh issue create --title "Never filed"', failed=True)
        .say("Done; the agent_id gap is filed as spotter-fum.5.")
    )
    todos = found(session.extract(), "todo")
    assert any(t.startswith("Open issue spotter-fum.5: load_session_messages drops agent_id "
                            "— SessionLive maps messages") for t in todos), todos
    assert any(t.startswith("Open issue #41: Flaky checkout test") for t in todos), todos
    assert not any("Tidy the renderer" in t or "Never filed" in t for t in todos), todos


def test_a_run_the_person_stopped_as_the_sessions_last_act_is_left_to_do():
    def session(*, then_said: bool, stopped: str = "Bash") -> Session:
        s = (Session().prompt("send the traces to Honeycomb instead of the console")
             .edit("shared/tracing.js", "ConsoleSpanExporter", "OTLPTraceExporter")
             .say("Services are running! Now let's generate some load:"))
        if stopped == "Bash":
            s.tool("Bash", {"command": "cd load-generator && node index.js --rps 10",
                            "description": "Run load test (10 RPS)"}, _REJECTED, error=True)
        else:
            s.tool("Edit", {"file_path": f"{CWD}/README.md", "old_string": "a",
                            "new_string": "b"}, _REJECTED, error=True)
        s.prompt("[Request interrupted by user for tool use]")
        if then_said:
            s.prompt("skip the load test, it's fine").say("OK.")
        return s

    todos = found(session(then_said=False).extract(), "todo")
    assert any(t.startswith("Not done: Run load test (10 RPS)") and "node index.js" in t
               and "Honeycomb" in t for t in todos), todos
    # the person went on (their words are what counts), or turned a change down
    assert not any("Not done" in t for t in found(session(then_said=True).extract(), "todo"))
    assert not any("Not done" in t for t in found(
        session(then_said=False, stopped="Edit").extract(), "todo"))


def test_a_request_the_session_was_cut_off_in_is_left_to_do():
    def session(last: str, *, answered: bool = False, said: bool = False) -> Session:
        s = (Session().prompt("sync the chat logs into the repo")
             .edit("scripts/sync_raw_logs.py").bash("python scripts/sync_raw_logs.py", "ok")
             .say("Synced 12 logs.").prompt(last))
        if said:
            s.say("Pushing the logs first.")
        s.tool("Bash", {"command": "python scripts/sync_raw_logs.py"}, "ok")
        if not answered:
            s.entries.pop()  # its result never came: the session ended there
        return s

    asked = "do a final push of logs. and update your repo description, then go public"
    assert f"Not done when the session ended: {asked}" in found(
        session(asked).extract(), "todo")
    # the run came back (a Stop or a compaction mid-turn), the agent was answering, a
    # question or a short reply: nothing shows the request was left
    for cut in (session(asked, answered=True), session(asked, said=True),
                session("why does the sync script skip the journals?"), session("yes please")):
        assert not any("session ended" in t for t in found(cut.extract(), "todo"))


@pytest.mark.parametrize("last, left", [
    ("tamam oldu, reset reason'ı da uplink'e koymak lazım ama sonra",
     "reset reason'ı da uplink'e koymak lazım ama sonra"),
    ("perfect, load test Diwali sale ke baad karenge, abhi infra freeze hai.",
     "load test Diwali sale ke baad karenge, abhi infra freeze hai."),
])
def test_work_the_person_puts_off_in_turkish_or_hinglish_is_left_to_do(last, left):
    session = (Session().prompt("the i2c read never returns, fix it")
               .edit("src/sensor.rs").bash("cargo test", "test result: ok. 4 passed")
               .say("Fixed: the read now times out after 50 ms.").prompt(last).say("OK."))
    assert any(left in t for t in found(session.extract(), "todo"))


def test_a_pasted_failure_fixed_through_the_shell_is_a_bug_with_its_cause():
    log = ("This is annoying, maybe we should use the https repo address?\n\n"  # Vercel's
           "01:12:38.240\n Cloning into '/vercel/path0/public/tokenizer'...\n"  # log, as
           "01:12:38.300\n Host key verification failed.\n"  # pasted
           "01:12:38.301\n fatal: Could not read from remote repository.\n"
           "01:12:38.330\n Error: Command \"git submodule update --init --recursive && yarn "
           "run build\" exited with 1\n")

    def session(command: str) -> Session:
        return (Session().prompt("add the tokenizer as a submodule under public/")
                .edit("vercel.json").say("Added the submodule and a build command.")
                .prompt(log)
                .say("Vercel has no SSH keys, so it can't clone the git@github.com: URL. "
                     "Switching the submodule to HTTPS:")
                .bash(command, "Cloning into 'public/tokenizer'...")
                .say("Done: the submodule now uses https://github.com/…"))

    fixed = session("git submodule add https://github.com/daaain/tokenizer.git public/tokenizer")
    assert any("Host key verification failed" in b and "SSH keys" in b
               for b in found(fixed.extract(), "bug_note"))
    copied = session("cp -r ../tokenizer public/tokenizer")  # a copy changes no source
    assert not any("Host key" in b for b in found(copied.extract(), "bug_note"))


def test_an_attempt_taken_back_at_the_users_word_keeps_what_it_showed():
    session = (
        Session().prompt("the monthly report runs out of memory")
        .say("First try: strict fields on Entry and -O2.")
        .edit("ledger.cabal", "-O1", "-O2")
        .bash("cabal run ledger-bench", "3,121 MiB total memory in use")
        .say("No real change — strictness on the record isn't where the heap goes.")
        .prompt("revert the O2")
        .edit("ledger.cabal", "-O2", "-O1")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "-O2" in attempt and "isn't where the heap goes" in attempt


def test_a_mistake_the_assistant_owns_before_fixing_it_is_a_bug_note():
    session = (
        Session().prompt("move the PDF generation to a queue")
        .edit("src/Message/GeneratePdf.php")
        .say("The worker found a mistake of mine: `No handler for message`. The handler "
             "exists, but I forgot the `#[AsMessageHandler]` attribute, so Messenger never "
             "registered it.")
        .edit("src/MessageHandler/GeneratePdfHandler.php", "final class", "#[AsMessageHandler]"
              "\nfinal class")
    )
    extraction = session.extract()
    assert any("AsMessageHandler" in b for b in found(extraction, "bug_note"))
    assert not any("AsMessageHandler" in d for d in found(extraction, "decision"))


@pytest.mark.parametrize("owned", [
    "I assumed deps were already installed because it's a working project on your machine, "
    "but of course your regular install runs via Docker, which has its own deps.",
    "I should have checked whether node_modules existed before starting the dev server.",
    "J'aurais dû vérifier que node_modules existait avant de lancer le serveur.",
])
def test_a_step_the_assistant_owns_skipping_is_a_bug_note(owned):
    session = (
        Session().prompt("why didn't you run just install first?")
        .edit("app/server/src/index.ts")
        .say(owned)
        .edit("CLAUDE.md", "# Agents Observe", "# Agents Observe\n\nRun `just install` first.")
    )
    extraction = session.extract()
    assert any(owned[:40] in b for b in found(extraction, "bug_note")), found(
        extraction, "bug_note")
    assert not any(owned[:40] in d for d in found(extraction, "decision"))


def test_an_approach_given_up_after_a_failure_behind_tail_is_a_failed_attempt_with_its_why():
    session = (
        Session().prompt("make the api module compile faster")
        .edit("api/Order.scala", "import auto._", "implicit val enc = deriveEncoder[Order]")
        .bash("sbt 'api/testOnly *OrderJsonSuite' 2>&1 | tail -3",
              "==> X OrderJsonSuite.order matches the golden file 0.04s")
        .say("The golden test fails: keys are orderId, expected order_id. Plain deriveEncoder "
             "ignores the snake_case configuration, which would break every client. So that "
             "route won't work; switching to deriveConfiguredCodec.")
        .edit("api/Order.scala", "deriveEncoder[Order]", "deriveConfiguredCodec[Order]")
    )
    attempts = found(session.extract(), "failed_attempt")
    assert any("deriveEncoder ignores the snake_case" in a and "won't work" in a
               for a in attempts), attempts


@pytest.mark.parametrize("run", ["zig run /tmp/ct/main.zig", "cd /tmp/ct && zig run main.zig",
                                 "zig test /tmp/ct/main.zig"])
def test_a_throwaway_program_in_tmp_is_no_projects_work(run):
    session = (
        Session().prompt("how does comptime work in zig? show me with a tiny program")
        .tool("Write", {"file_path": "/tmp/ct/main.zig", "content": "const std = ..."},
              {"type": "create", "filePath": "/tmp/ct/main.zig"},
              content="File created successfully at: /tmp/ct/main.zig")
        .bash(run, "fib(10) = 55")
        .say("comptime evaluates fib(10) while compiling, so the binary only holds 55.")
    )
    extraction = session.extract()
    assert extraction.empty and extraction.findings == []


def test_a_session_the_user_opens_as_a_test_of_the_agent_leaves_nothing():
    session = (
        Session().prompt("Hello I want to have some test conversation with you, create some "
                         "file for me")
        .edit("test-file.txt")
        .say("Done! I've created test-file.txt.")
        .prompt("Ok in the future some new content was added, look at it")
        .say("It now has a list of three items.")
    )
    extraction = session.extract()
    assert extraction.empty and extraction.findings == [] and extraction.summary is None


def test_rules_quoted_by_the_summary_of_a_continued_session_are_kept_once():
    summary = ("This session is being continued from a previous conversation that ran out of "
               "context. The summary below covers the earlier portion of the conversation.\n\n"
               "1. Primary Request and Intent:\n   Make the revenue report fast.\n\n"
               "6. All user messages:\n"
               '   - "the revenue report takes 40s, can you make it fast? no redis please, ops '
               'won\'t run another stateful service"\n'
               "   - (Plan mode approval - implicit)\n"
               '   - "ok mat view sounds good, go"\n\n'
               "7. Pending Tasks:\n   - Add the refresh command.\n")
    compact = {"parentUuid": None, "isSidechain": False, "type": "user", "cwd": CWD,
               "sessionId": SESSION, "isCompactSummary": True, "isVisibleInTranscriptOnly": True,
               "timestamp": "2026-03-18T09:00:00.000Z",
               "message": {"role": "user", "content": summary}}
    session = (
        Session().raw(compact)
        .prompt("go on. no redis please, ops won't run another stateful service")
        .edit("reports/management/commands/refresh_revenue_mv.py")
        .say("Added the refresh command.")
    )
    rules = found(session.extract(), "constraint")
    assert len([r for r in rules if "no redis" in r]) == 1  # told again here: once

    session = Session().raw(compact).prompt("go on").edit("reports/refresh.py").say("Done.")
    rules = found(session.extract(), "constraint")
    assert any("no redis please" in r for r in rules)  # said only before the compaction
    assert not any("Plan mode" in r for r in rules)


def test_tasks_left_open_in_claude_codes_task_list_are_todos():
    """Claude Code 2.1 keeps its task list with TaskCreate / TaskUpdate, not TodoWrite."""
    def create(n: int, subject: str) -> dict:
        return {"task": {"id": str(n), "subject": subject}}

    session = Session().prompt("add CSV export to the orders page")
    for n, subject in enumerate(["Add the export endpoint", "Stream rows in batches",
                                 "Document the export in the README"], 1):
        session.tool("TaskCreate", {"subject": subject, "description": subject + ".",
                                    "activeForm": subject}, create(n, subject),
                     content=f"Task #{n} created successfully: {subject}")
    session.tool("TaskUpdate", {"taskId": "1", "status": "completed"}, {"success": True},
                 content="Updated task #1 status")
    session.tool("TaskUpdate", {"taskId": "2", "status": "in_progress"}, {"success": True},
                 content="Updated task #2 status")
    session.edit("app/export.py").say("The endpoint is in; batching is half done.")
    todos = found(session.extract(), "todo")
    assert "Stream rows in batches" in todos and "Document the export in the README" in todos
    assert "Add the export endpoint" not in todos


def test_work_the_person_takes_on_or_leaves_for_now_is_a_todo():
    session = (
        Session().prompt("make the report fast")
        .edit("reports/views.py")
        .say("Done: the report reads the materialized view. Nothing alerts yet if the "
             "refresh fails.")
        .prompt("great. add the refresh to the deploy script and I'll handle the alert "
                "with ops. leave ReportCache for now")
        .edit("deploy/deploy.sh")
        .say("Added the refresh to deploy.sh.")
    )
    todos = found(session.extract(), "todo")
    assert any("handle the alert" in t for t in todos), todos
    assert any("ReportCache" in t for t in todos), todos


def test_a_next_step_and_a_question_on_one_line_are_a_todo_and_an_open_question():
    from engram.capture.reading import open_items

    items = open_items("Pushed.\n\nNext: open the PR so Atlantis plans and applies it. Open "
                       "question for whoever reviews: is 7 days of history enough?")
    assert items == [("todo", "open the PR so Atlantis plans and applies it."),
                     ("open_question", "is 7 days of history enough?")]


def test_what_follows_an_open_question_in_its_paragraph_elaborates_it():
    from engram.capture.reading import open_items

    wrap_up = ("Done.\n\nOne thing for you to decide: may a cancelled slot be booked again at "
               "once, or only after 15 minutes? Cancelling isn't implemented yet.")
    assert open_items(wrap_up) == [
        ("open_question", "One thing for you to decide: may a cancelled slot be booked again "
                          "at once, or only after 15 minutes?")]
    assert [kind for kind, _ in open_items("Done.\n\nCancelling isn't implemented yet.")] == [
        "todo"]  # alone, the same sentence is work left


def test_asking_what_the_person_means_is_no_open_question_of_the_project():
    from engram.capture.reading import open_items

    assert open_items("Regarding your `/export` command - I'm not sure what you'd like me to "
                      "export. Could you clarify what information you'd like exported?") == []
    assert open_items("Done.\n\nShould clicking play open the video inline (lightbox) or "
                      "open YouTube in a new tab?") == [
        ("open_question", "Should clicking play open the video inline (lightbox) or open "
                          "YouTube in a new tab?")]


def test_a_heading_that_asks_heads_its_answer_and_items_lose_their_bold_labels():
    from engram.capture.reading import open_items

    report = ("### **6. Which API has the missing comment?**\n\nThe missing comment "
              "described:\n- **File:** `api/projects/route.ts`\n- **Lines:** +32 to +59\n\n"
              "### Still open\n- **Owner:** ask Dana whether GraphQL threads are paginated")
    assert open_items(report) == [
        ("todo", "Owner: ask Dana whether GraphQL threads are paginated")]


def test_what_was_done_to_a_file_and_a_key_that_marks_pending_are_no_work_left():
    from engram.capture.reading import open_items

    wrap_up = ("Summary:\n\n6. **`README.md`** — Updated the table to link the research note "
               "that explains the follow-up finding.\n\n**Keyboard shortcuts:**\n"
               "- `r` — mark reviewed\n- `p` — mark pending\n\n"
               "- `api.py` — still needs a follow-up for the retry budget")
    assert open_items(wrap_up) == [
        ("todo", "`api.py` — still needs a follow-up for the retry budget")]


def test_noise_never_becomes_a_request_or_the_wrap_up():
    compact = {"parentUuid": None, "isSidechain": False, "type": "user", "cwd": CWD,
               "sessionId": SESSION, "isCompactSummary": True, "isVisibleInTranscriptOnly": True,
               "timestamp": "2026-03-18T09:00:00.000Z",
               "message": {"role": "user", "content": "This session is being continued from a "
                           "previous conversation that ran out of context. Never use tabs."}}
    session = (
        Session().raw(compact)
        .prompt("rename the settings module to config")
        .edit("app/config.py")
        .say("Renamed `settings` to `config` everywhere and updated the imports; the old "
             "module name is gone and every test that used it now imports the new one.")
        .prompt("<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
                "<summary>Background command \"tests\" completed (exit code 0)</summary>\n"
                "</task-notification>")
        .say("The background test run finished as well; nothing else to do here, all of it "
             "was already covered by the earlier run.")
        .prompt("[Request interrupted by user]")
    )
    extraction = session.extract()
    assert extraction.summary is not None
    assert extraction.summary.content.startswith("Task: rename the settings module")
    assert "Renamed `settings` to `config`" in extraction.summary.content
    assert "background test run" not in extraction.summary.content
    everything = " ".join(f.content for f in extraction.findings)
    assert "tabs" not in everything and "task-notification" not in everything


def test_work_that_goes_on_after_a_background_tasks_news_has_the_real_wrap_up():
    session = (
        Session().prompt("add a newsletter form on /subscribe")
        .edit("src/routes/subscribe/+page.svelte")
        .prompt("<task-notification>\n<task-id>b1</task-id>\n<status>failed</status>\n"
                "<summary>Background command \"build\" failed (exit code 1)</summary>\n"
                "</task-notification>")
        .say("The build failed: the page imports a module that pulls the mailer's token.")
        .edit("src/lib/email.ts")
        .bash("pnpm build", "✓ built in 6.41s")
        .say("Done, the build is green.\n\nWhat is missing: there is no rate limit on the "
             "form yet, so a bot can subscribe thousands of addresses. Worth adding a limit "
             "per IP in hooks.server.ts.")
    )
    extraction = session.extract()
    assert "What is missing" in extraction.summary.content
    assert any("rate limit" in t for t in found(extraction, "todo"))


def test_stop_and_another_way_after_a_change_is_a_failed_attempt():
    session = (
        Session().prompt("add a newsletter form on /subscribe")
        .say("The form posts JSON to /api/subscribe with fetch, and the button stays disabled "
             "until the address looks valid.")
        .edit("src/routes/subscribe/+page.svelte")
        .say("The page posts to /api/subscribe through fetch.")
        .prompt("Stop, not through fetch. The form must work without JavaScript: readers open "
                "it in mail clients. Use form actions like the other forms.")
        .edit("src/routes/subscribe/+page.server.ts")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "fetch" in attempt and "did not work: Stop, not through fetch" in attempt


@pytest.mark.parametrize("session", [
    Session().prompt("hi").say("Hello! How can I help?").prompt("thanks").say("You're welcome!"),
    Session().prompt("how does the auth middleware work?")
    .tool("Read", {"file_path": f"{CWD}/app/auth.py"}, "...")
    .say("It checks the session cookie, then loads the user; see `require_user` in app/auth.py."),
    Session().prompt("refactor the billing module").say("Let me look at it first.")
    .prompt("[Request interrupted by user]"),
])
def test_an_empty_session_stores_nothing(session, tmp_path):
    extraction = session.extract()
    assert extraction.empty and extraction.findings == [] and extraction.summary is None
    with engram.open(tmp_path / "m.db", embedder="fake") as service:
        result = apply(service, extraction, project="shop", session_id=SESSION, state={})
        assert result.saved == [] and service.count() == 0


def test_capturing_a_session_again_adds_nothing_and_archives_what_was_closed(
        tmp_path, store_target):
    """Over each engine: capture's dedup and its archiving of closed todos are store writes."""
    session = (
        Session().prompt("add the export endpoint. Never export deleted memories.")
        .tool("TodoWrite", {"todos": [
            {"content": "Write the export docs", "status": "pending", "activeForm": "x"}]},
            {"oldTodos": [], "newTodos": []})
        .edit("app/export.py")
        .say("The endpoint is in place and streams JSONL; the docs are the one thing left.")
    )
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    with engram.open(store_target, embedder="fake") as service:
        first = capture(service, str(path), project="shop", cwd=CWD, state=state)
        assert {m.type for m in first.saved} == {"constraint", "todo"}
        assert first.summary is not None
        again = capture(service, str(path), project="shop", cwd=CWD, state=state)
        assert again.saved == [] and service.count() == 3  # rule, todo, one summary
        session.tool("TodoWrite", {"todos": [
            {"content": "Write the export docs", "status": "completed", "activeForm": "x"}]},
            {"oldTodos": [], "newTodos": []}).say("Docs written; nothing is left open now.")
        later = capture(service, str(session.write(path)), project="shop", cwd=CWD, state=state)
        assert len(later.archived) == 1
        assert service.count(types=["todo"]) == 0 and service.count() == 2
        [summary] = service.list(types=["task_summary"])
        assert summary.meta["session_id"] == SESSION and summary.files == ("app/export.py",)
        [rule] = service.list(types=["constraint"])
        assert rule.meta["session_id"] == SESSION and rule.provenance == "hook"
        assert rule.event_at is not None


def test_the_capture_benchmark_smoke_run_on_the_written_sessions():
    """A small run of `engram bench capture` in the suite: the replay works end to end and
    the guarantees that must hold on any session hold on these."""
    from benchmarks.capture import Totals, load_cases, run_case

    cases, _ = load_cases(("written",))
    assert len(cases) >= 3
    totals = Totals()
    for case in cases[:4]:
        totals.add(run_case(case, "fake"))
    assert totals.stored > 0
    assert totals.broken == 0 and totals.secrets == 0 and totals.duplicates == 0
    assert totals.empty_memories == 0
    assert totals.precision >= 0.6


def test_text_a_transcript_decodes_into_lone_surrogates_is_kept_not_refused(tmp_path):
    session = (
        Session().prompt("Never log the raw card number \ud83d here.")
        .edit("app/\udc80pay.py").say("Masked the card number in the payment log line, since "
                                     "the raw value must not reach the logs \ud800 at all.")
    )
    path = session.write(tmp_path / "t.jsonl")  # json.dumps escapes them as \ud83d
    with engram.open(tmp_path / "m.db", embedder="fake") as service:
        result = capture(service, str(path), project="shop", cwd=CWD, state={})
        [rule] = [m for m in result.saved if m.type == "constraint"]
        assert "raw card number \ufffd" in rule.content
        assert result.summary.files == ("app/\ufffdpay.py",)


def test_summariser_windows_never_cut_a_word_in_half():
    from engram.capture.windows import MAX_WINDOW_CHARS, windows

    token = "sk_live_" + "A1b2C3d4" * 6
    filler = "word " * ((MAX_WINDOW_CHARS - 20) // 5)
    session = Session().prompt(filler + token + " and more words after it").edit("app/x.py")
    [window] = [w for w in windows(transcript.parse_entries(session.entries), CWD)
                if w["kind"] == "user"]
    assert len(window["text"]) <= MAX_WINDOW_CHARS + 2
    assert "sk_live" not in window["text"]  # dropped whole, not cut to a prefix


def test_a_context_pack_puts_facts_before_a_session_summary_on_the_same_words(tmp_path):
    with engram.open(tmp_path / "m.db", embedder="fake") as service:
        summary = service.checkpoint(
            "Task: refunds through Stripe, the refund endpoint, refund tests\nOutcome: OK.",
            project="shop", session_id="s-1", provenance="hook").memory.id
        fact = service.save("Refunds through Stripe take a payment_intent, not a charge",
                            type="bug_note", project="shop").memory.id
        pack = service.context(project="shop", task="refunds through Stripe")
        relevant = pack.sections["Relevant to this task"]
        assert relevant.index(fact) < relevant.index(summary)


def test_a_bug_told_more_fully_at_a_later_stop_is_one_memory_updated_not_two(tmp_path):
    session = (
        Session().prompt("The nightly export crashes with a timeout on big merchants")
        .say("The export builds the whole CSV in memory because it calls fetchall(), so big "
             "merchants time out; streaming rows from a server-side cursor instead avoids that.")
        .edit("app/export.py")
    )
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    with engram.open(tmp_path / "m.db", embedder="fake") as service:
        capture(service, str(path), project="shop", cwd=CWD, state=state)
        [first] = service.list(types=["bug_note"])
        session.say("Done.\n\nCause: fetchall() held every row of a 400k-row export in memory."
                    "\nFix: rows now stream from a server-side cursor in batches of 1000.")
        capture(service, str(session.write(path)), project="shop", cwd=CWD, state=state)
        [bug] = service.list(types=["bug_note"])
        assert bug.id == first.id and "400k-row export" in bug.content
        service.update(bug.id, in_place=True, content="Export timeouts: stream the rows.")
        session.say("Also: the cursor closes with the response.")
        capture(service, str(session.write(path)), project="shop", cwd=CWD, state=state)
        [kept] = service.list(types=["bug_note"])
        assert kept.content == "Export timeouts: stream the rows."  # an edit by hand stands


def test_stop_reads_the_closing_words_claude_code_hands_it_before_the_transcript(tmp_path):
    session = Session().prompt("add the export endpoint").edit("app/export.py")
    path = session.write(tmp_path / "t.jsonl")
    closing = ("The export endpoint streams JSONL now.\n\nStill open:\n- Large exports are "
               "not paginated yet")
    with engram.open(tmp_path / "m.db", embedder="fake") as service:
        result = capture(service, str(path), project="shop", cwd=CWD, state={},
                         last_message=closing)
        assert "streams JSONL" in result.summary.content
        assert [m.content for m in result.saved if m.type == "todo"] == [
            "Large exports are not paginated yet"]


def test_a_reported_bug_seen_before_its_fix_passed_becomes_the_fix_not_a_second_note(tmp_path):
    session = (
        Session().prompt("The refund check fails since the Stripe upgrade, please fix it")
        .bash("python3 check.py", "KeyError: charge", failed=True)
        .say("The check fails because the charge argument was removed; passing the "
             "payment_intent instead of the charge, since every order stores one.")
        .edit("shop/refund.py")
    )
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    with engram.open(tmp_path / "m.db", embedder="fake") as service:
        capture(service, str(path), project="shop", cwd=CWD, state=state)
        [early] = service.list(types=["bug_note"])
        session.bash("python3 check.py", "ok").say("Fixed: refunds pass the payment intent.")
        capture(service, str(session.write(path)), project="shop", cwd=CWD, state=state)
        [bug] = service.list(types=["bug_note"])
        assert bug.id == early.id
        assert "KeyError: charge" in bug.content and "payment_intent" in bug.content


@pytest.mark.parametrize("correction", [
    "nein, wrong — wir haben keine hstore extension und wollen auch keine. use jsonb",
    "no, not a new table: keep the audit rows in the events table we already have",
])
def test_a_proposal_the_user_corrects_before_any_edit_is_a_decision_in_their_words(correction):
    session = (
        Session().prompt("we need an audit log of who changed orders")
        .say("Plan: an audit.log table, with the old and new rows stored as hstore so changed "
             "fields can be compared with the - operator.")
        .prompt(correction)
        .say("Okay, switching to that.")
        .edit("deploy/audit.sql")
        .say("Done.")
    )
    decisions = found(session.extract(), "decision")
    assert any(d.startswith(correction[:40]) and "instead of: Plan: an audit.log" in d
               for d in decisions)


def test_a_go_ahead_or_a_correction_of_finished_work_is_not_a_corrected_proposal():
    session = (
        Session().prompt("we need an audit log of who changed orders")
        .say("Plan: an audit.log table, with the old and new rows stored as hstore so changed "
             "fields can be compared with the - operator.")
        .prompt("no worries, go ahead with that plan as written")
        .edit("deploy/audit.sql")
        .say("Done.")
    )
    assert not any("instead of:" in d for d in found(session.extract(), "decision"))


def test_a_change_the_user_says_did_not_work_and_that_was_undone_is_one_failed_attempt():
    session = (
        Session().prompt("picking up an item adds it to the inventory twice, sometimes")
        .say("I suspect body_entered fires twice when the player enters with two collision "
             "shapes. I'll add a _taken flag so the second signal does nothing.")
        .edit("scripts/pickup.gd", "var item", "var item\nvar _taken := false")
        .edit("scripts/pickup.gd", "if player:", "if _taken or not player:")
        .say("Tests pass. The flag blocks a second add() from one pickup.")
        .prompt("still duplicates. and the hud shows the icon in two slots")
        .say("My fix missed: the Inventory node exists twice, in player.tscn and in "
             "level_01.tscn. Reverting the _taken flag.")
        .edit("scripts/pickup.gd", "if _taken or not player:", "if player:")
        .edit("scripts/pickup.gd", "var item\nvar _taken := false", "var item")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "_taken" in attempt and "body_entered" in attempt


def test_a_problem_the_assistant_agrees_with_is_a_bug_note_with_its_diagnosis():
    session = (
        Session().prompt("write a generic audit trigger for orders")
        .say("Plan: one audit.log table and a trigger function that records the user.")
        .edit("deploy/audit.sql")
        .say("Deployed to dev, the pgTAP suite is green with 6 tests.")
        .prompt("looked at staging: the user is 'shop_app' everywhere. the app connects "
                "through pgbouncer with one database role")
        .say("Right, current_user is useless here: every request shares the shop_app role. "
             "The app has to set the user per transaction with SET LOCAL app.user_id.")
        .edit("deploy/audit.sql", "current_user", "current_setting('app.user_id', true)")
        .bash("pg_prove -d shop_dev tests/audit_test.sql", "All tests successful.")
    )
    [bug] = found(session.extract(), "bug_note")
    assert "shop_app" in bug and "current_user is useless" in bug


def test_a_change_that_was_undone_decided_nothing():
    session = (
        Session().prompt("credo complains about the nested module in the registry")
        .say("This might be a false positive due to the rescue wrapping, because the compiler "
             "tracks aliases differently there. Using the full module path inline instead.")
        .edit("lib/registry.ex", "Pane.present?", "App.Services.Pane.present?")
        .bash("mix credo --strict lib/registry.ex", "found 1 code readability issue", failed=True)
        .say("That made it worse; going back and suppressing the check for this one line.")
        .edit("lib/registry.ex", "App.Services.Pane.present?", "Pane.present?")
    )
    extraction = session.extract()
    assert not any("full module path" in d for d in found(extraction, "decision"))
    assert any("full module path" in a for a in found(extraction, "failed_attempt"))


def test_the_state_of_the_checkout_is_not_a_todo():
    session = (
        Session().prompt("add the session-end hook")
        .edit("lib/hooks.ex")
        .bash("mix test", "13 tests, 0 failures")
        .say("Committed as 4e1d0a7. The only remaining unstaged change is `.mcp.json`, which "
             "is unrelated to this work and stays out of the commit.")
    )
    assert found(session.extract(), "todo") == []


@pytest.mark.parametrize("reply", [
    "no, per-process cache means people see different numbers when they refresh. take it out",
    "sí, son 3 servidores y cada uno tiene su propio storage, así que el lock no serviría. "
    "sacalo",
    "C'est plus fluide, mais le premier affichage met toujours 3 secondes. Pas terrible.",
])
def test_a_change_the_user_turns_down_is_a_failed_attempt_with_their_why(reply):
    session = (
        Session().prompt("the report page is slow, make repeated views fast")
        .say("Caching the rendered page in LocMemCache for 15 minutes avoids recomputing the "
             "totals on every view.")
        .edit("reports/views.py")
        .say("Cached the page for 15 minutes.")
        .prompt(reply)
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert attempt.startswith("Caching the rendered page in LocMemCache")
    assert reply[:40] in attempt  # the user's words, the why beside the verdict


@pytest.mark.parametrize("closing", [
    "Done. One thing I couldn't check from the repo: CloudFront may cut uploads before nginx.",
    "Listo, el cron corre de lunes a viernes. Los feriados no se consideran; no sé si eso le "
    "importa a finanzas.",
    "レポートとして返品を売上から引くべきか、別に出すべきかは私には判断できません。",
])
def test_what_a_wrap_up_could_not_settle_is_an_open_question(closing):
    session = Session().prompt("add the upload limit").edit("app/upload.py").say(closing)
    questions = found(session.extract(), "open_question")
    assert len(questions) == 1 and questions[0] in closing


@pytest.mark.parametrize(("command", "recipe"), [
    ("pytest -q", True),
    ("node --version", False),
    ("python3 --version", False),
    ("python3 /home/dev/.claude/plugins/cache/share/publish.py 0ccf1a04", False),
    ("python3 /tmp/scratch.py", False),
    (f"python3 {CWD}/scripts/seed.py", True),
    ("python3 scripts/seed.py", True),
    # what the project declares is installed by a recipe; adding a package is done once
    ("npm install", True), ("pnpm install", True), ("pip install -e .", True),
    ("npm install --save-dev prettier", False), ("cd app && npm i -D prettier", False),
    ("npx expo install expo-notifications expo-device", False), ("pip install requests", False),
    # the files of this change named one by one: done once
    ("npx prettier --write src/a.ts src/b.ts src/c.tsx", False), ("pytest tests/test_a.py", True),
    # a script's usage, and a condition checked, run nothing
    ("python3 extract-feedback.py --help", False), ("node scripts/readiness.mjs --help", False),
    ('test -d "$HOME/.ssh"', False), ("cd app && test -f manage.py", False),
    ("python3 scripts/build.py --release", True),
    # a project made from a template, what a test runner knows listed: done once
    ("printf 'N\\n' | npx create-next-app@latest web --typescript --eslint", False),
    ("npm create vite@latest web -- --template react", False), ("cargo new cli", False),
    ("go mod init example.com/cli", False), ("go mod tidy", True),
    ("uv run pytest --collect-only -q", False), ("uv run pytest --markers", False),
    ("npx hardhat test", True),
])
def test_only_the_projects_own_commands_are_recipes(command, recipe):
    from engram.capture.commands import is_recipe

    assert is_recipe(command, CWD) is recipe


def test_placeholders_timeouts_and_the_word_todo_are_not_knowledge():
    session = (
        Session().prompt("(no content)").prompt("start the dev server and build the TODO app")
        .edit("app/page.tsx")
        .bash("npm run dev", "Command timed out after 2m 0.0s\n> ready on :3000", failed=True)
        .say("The TODO app is in place: a list, an input and a done toggle, served by the dev "
             "server on port 3000.")
    )
    extraction = session.extract()
    kinds = {f.type for f in extraction.findings}
    assert "bug_note" not in kinds and "todo" not in kinds and "constraint" not in kinds
    assert extraction.summary.content.startswith("Task: start the dev server")


HEREDOC_COMMIT = (
    "git add app/retry.py tests/test_retry.py && git commit -m \"$(cat <<'EOF'\n"
    "feat: retry webhooks with a stable idempotency key\n\n"
    "Every attempt carries Relay-Idempotency-Key so merchants can drop duplicates;\n"
    "the read timeout is capped at 5s because slow endpoints held workers for minutes.\n\n"
    "🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\n"
    "Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\""
)


@pytest.mark.parametrize("command, message", [
    (HEREDOC_COMMIT, "feat: retry webhooks with a stable idempotency key\n\nEvery attempt"),
    ('git commit -q -m "fix: keep \\"quoted\\" ids" -m "Ids with quotes were split in two'
     ' by the old parser, so lookups missed."', 'fix: keep "quoted" ids\n\nIds with quotes'),
    ("git -C api commit -am 'Use UTC everywhere' -m 'Local time broke the nightly job"
     " twice a year at the DST switch.'", "Use UTC everywhere\n\nLocal time broke"),
    ('git commit -m "$(date) snapshot"', None),  # built by the shell: not literal
    ("git commit", None),  # an editor: nothing inline
    ("git commit -F notes.txt", None),
])
def test_a_commit_message_is_read_as_it_was_committed(command, message):
    from engram.capture.commits import message_of

    got = message_of(command)
    assert (got is None) if message is None else got.startswith(message)


def test_a_confirmed_commit_is_a_decision_with_its_why_and_files():
    session = (
        Session().prompt("make webhook retries safe for merchants")
        .edit("app/retry.py")
        .bash("pytest -q", "3 passed in 0.2s")
        .bash(HEREDOC_COMMIT, "[main 1a2b3c4] feat: retry webhooks with a stable idempotency"
              " key\n 2 files changed, 40 insertions(+)")
    )
    [decision] = [f for f in session.extract().findings if f.origin == "commit"]
    assert decision.type == "decision"
    assert "stable idempotency key" in decision.content and "held workers" in decision.content
    assert "Co-Authored-By" not in decision.content and "Generated with" not in decision.content
    assert decision.files == ["app/retry.py", "tests/test_retry.py"]


def test_a_final_wrap_ups_item_that_tells_a_fix_is_a_bug_note_not_a_decision():
    session = (
        Session().prompt("examine the pending changes and commit them")
        .edit(".gitignore", "main.py.oldscratch/", "main.py.old\nscratch/")
        .bash("git commit -am 'tidy'", "[master 1a2b3c4] tidy")
        .say("Committed.\n\n- Fixed `.gitignore` (it had `main.py.oldscratch` instead of "
             "separate entries for `main.py.old` and `scratch/`)\n- Kept the README as it is, "
             "since it already documents the tar support and its limits")
    )
    extraction = session.extract()
    assert any("main.py.oldscratch" in b for b in found(extraction, "bug_note"))
    assert not any("main.py.oldscratch" in d for d in found(extraction, "decision"))


def test_a_wrap_ups_line_that_only_introduces_what_follows_is_no_decision():
    session = (
        Session().prompt("the CLI still runs the old code after my edit")
        .edit("pyproject.toml", "setuptools", "hatchling")
        .say("Rebuilt.\n\nInstead of manually hunting for cached files, use:\n\n"
             "```\nuv tool install --reinstall .\n```\n\nThe build backend is hatchling "
             "instead of setuptools now, because uv's own tool installs expect it.")
    )
    decisions = found(session.extract(), "decision")
    assert not any(d.endswith("use:") for d in decisions)
    assert any("hatchling instead of setuptools" in d for d in decisions)


def test_a_wrap_ups_report_sections_are_not_decisions():
    session = (
        Session().prompt("move the recorder to an AudioWorklet")
        .edit("js/lib/recorder.js", "createScriptProcessor", "audioWorklet.addModule")
        .say("Done.\n\n## Key Benefits:\n- **Better Performance**: Audio processing runs on "
             "the audio rendering thread instead of main thread\n\n**Still failing:** "
             "Safari rejects the module, because it is served as text/plain instead of "
             "JavaScript.\n\n## Summary\n- The worklet lives in its own file instead of a "
             "Blob URL, because CSP forbids blob: scripts on this site")
    )
    decisions = found(session.extract(), "decision")
    assert any("The worklet lives in its own file" in d for d in decisions), decisions
    assert not any("rendering thread" in d or "Safari" in d for d in decisions), decisions


def test_a_wrap_ups_decision_says_what_its_heading_names():
    session = (
        Session().prompt("add a GitHub Action for tests; wait, does it only run on main?")
        .edit(".github/workflows/ci.yml")
        .say("Done!\n\n## \u2705 GitHub Action Updates\n- **Trigger**: Now runs on all pushes "
             "(not just main branch)\n\n## Summary\n- Pyright runs as its own step instead "
             "of inside the test job, so a type error is named as such")
    )
    decisions = found(session.extract(), "decision")
    assert "GitHub Action Updates: Trigger: Now runs on all pushes (not just main branch)" in (
        decisions)
    assert any(d.startswith("Pyright runs as its own step") for d in decisions)  # no heading
    assert not any("**" in d for d in decisions)


def test_a_wrap_ups_replacement_is_a_decision_told_with_the_short_request_it_answers():
    session = (
        Session().prompt("add a Pause/Resume feature")
        .edit("script.js", "startBtn.onclick = start", "toggleBtn.onclick = toggle")
        .say("Done!\n\n## Changes Made:\n\n**UI Updates:**\n- **Single toggle button** - "
             "Replaced separate Start/Pause buttons with one toggle button\n- The countdown "
             "greys out while paused")
    )
    decisions = found(session.extract(), "decision")
    assert decisions == ["add a Pause/Resume feature — UI Updates: Single toggle button - "
                         "Replaced separate Start/Pause buttons with one toggle button"], decisions
    pasted = (
        Session().prompt("https://shop.example.com/checkout")
        .edit("script.js", "startBtn.onclick = start", "toggleBtn.onclick = toggle")
        .say("Done!\n\n- Replaced separate Start/Pause buttons with one toggle button on "
             "the checkout page")
    )
    assert [d[:8] for d in found(pasted.extract(), "decision")] == ["Replaced"]


def test_a_fix_listed_in_a_commit_that_is_not_one_is_a_bug_note_of_its_own():
    message = ("Generate one chronological transcript & fix timestamp redaction\n\n"
               "- Modified convert_to_markdown.py to write one CHAT_LOG.md\n"
               "  * sorted oldest first\n"
               "- Fixed sync_raw_logs.py phone number pattern\n"
               "  * Was incorrectly redacting ISO timestamps\n"
               "  * Updated regex to exclude timestamp patterns\n\n"
               "Co-Authored-By: Claude <noreply@anthropic.com>")
    command = f"git commit -m \"$(cat <<'EOF'\n{message}\nEOF\n)\""
    session = (
        Session().prompt("merge the transcripts into one file")
        .edit("scripts/convert_to_markdown.py")
        .bash(command, "[main 1a2b3c4] Generate one chronological transcript\n 2 files changed")
    )
    commits = [f for f in session.extract().findings if f.origin == "commit"]
    assert [f.type for f in commits] == ["decision", "bug_note"]
    assert commits[1].content == ("Fixed sync_raw_logs.py phone number pattern; Was incorrectly "
                                  "redacting ISO timestamps; Updated regex to exclude timestamp "
                                  "patterns")


def test_a_refused_or_title_only_commit_is_not_a_memory():
    refused = (
        Session().prompt("commit the retry work").edit("app/retry.py")
        .bash(HEREDOC_COMMIT, "Pre-commit validation failed:\n[RUFF] 2 errors", failed=True)
    )
    assert not [f for f in refused.extract().findings if f.origin == "commit"]
    title_only = (
        Session().prompt("commit it").edit("app/retry.py")
        .bash('git commit -am "Fix typo"', "[main 9f8e7d6] Fix typo\n 1 file changed")
    )
    assert not [f for f in title_only.extract().findings if f.origin == "commit"]


def test_a_fix_commit_is_a_bug_note_naming_the_files_edited_since_the_last_commit():
    session = (
        Session().prompt("the export drops the last row").edit("app/export.py")
        .bash('git add -A && git commit -m "fix: export kept an off-by-one slice" -m "range()'
              ' stopped one short of the row count, so every CSV lost its last row."',
              "[main 0badc0d] fix: export kept an off-by-one slice\n 1 file changed")
    )
    [note] = [f for f in session.extract().findings if f.origin == "commit"]
    assert note.type == "bug_note" and "lost its last row" in note.content
    assert note.files == ["app/export.py"]


def test_a_commit_message_ends_where_the_commit_command_ends():
    from engram.capture.commits import message_of

    assert message_of('git commit -m "Pin numpy (see #12)" && python -m pytest -q') == (
        "Pin numpy (see #12)")
    chained = HEREDOC_COMMIT.replace("EOF\n)\"", "EOF\n)\" && git push -m nothing")
    assert "nothing" not in (message_of(chained) or "")


def test_the_same_script_run_from_its_own_folder_after_failing_is_a_failed_attempt():
    session = (
        Session().prompt("rebuild the front-end bundle")
        .bash("node assets/build.js 2>&1", '✘ [ERROR] Could not resolve "js/app.js"', failed=True)
        .bash(f"cd {CWD}/assets && node build.js 2>&1", "built in 120ms")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "node assets/build.js" in attempt and "Could not resolve" in attempt
    assert "node build.js" in attempt  # what worked instead


def test_a_wrong_path_to_rm_or_an_edit_between_runs_is_not_a_failed_attempt():
    moved = (
        Session().prompt("clean up the old chart server")
        .bash("rm serve-charts.js", "rm: serve-charts.js: No such file or directory", failed=True)
        .bash(f"rm {CWD}/web/serve-charts.js")
        .edit("web/index.ts")
    )
    assert not found(moved.extract(), "failed_attempt")
    fixed = (
        Session().prompt("run the report script")
        .bash("python3 scripts/report.py", "NameError: name 'totals' is not defined", failed=True)
        .edit("scripts/report.py")
        .bash(f"cd {CWD}/scripts && python3 report.py", "wrote report.csv")
    )
    assert not found(fixed.extract(), "failed_attempt")


def test_a_plan_stated_before_reading_the_file_it_changes_is_the_edits_reason():
    session = (
        Session().prompt("la liste saute quand je scrolle")
        .say("Virtualize suppose une hauteur fixe, or les commentaires longs font deux lignes. "
             "Je passe à QuickGrid avec un Paginator de 25 lignes plutôt que Virtualize, parce "
             "que la hauteur des lignes n'a alors plus d'importance.")
        .tool("Read", {"file_path": f"{CWD}/Pages/Interventions.razor"}, "...")
        .bash("grep -n Virtualize Pages/Interventions.razor", "12: <Virtualize")
        .edit("Pages/Interventions.razor")
    )
    [decision] = found(session.extract(), "decision")
    assert "QuickGrid" in decision and "hauteur" in decision


def test_the_harm_a_choice_guards_against_is_its_reason():
    session = (
        Session().prompt("Нужна подписка с подтверждением по ссылке")
        .say("Таблица `subscriptions` с уникальным email и `token_hash`. В письмо уходит "
             "случайный токен, а в базе лежит только его SHA-256: если дамп базы куда-то "
             "утечёт, по нему нельзя подтвердить чужие адреса.")
        .edit("migrations/0014_subscriptions.sql")
    )
    [decision] = found(session.extract(), "decision")
    assert "SHA-256" in decision and "утечёт" in decision


@pytest.mark.parametrize("item", [
    "`/interventions` utilise `QuickGrid` + `Paginator` (25 lignes) ; plus de `Virtualize`.",
    "`stg_orders` nimmt nur noch die jüngste CDC-Version je Bestellung, statt aller Zeilen.",
    "`/subscribe` использует form action вместо `fetch`, без JS работает обычный POST.",
    "缓存改为 `FeedCache`，把文章数组写成 Caches 目录下的 JSON 文件，而不是用 `URLCache`。",
])
def test_a_wrap_ups_design_items_are_read_in_the_users_language(item):
    from engram.capture.reading import design_items

    assert design_items(f"Готово / fertig / c'est en place:\n\n- {item}\n- 18 tests verts") == [
        item.strip()]


def test_a_reported_bug_whose_first_try_was_taken_back_keeps_the_cause_the_fix_rests_on():
    session = (
        Session()
        .prompt("/reports/monthly is falling over for the big accounts, the pod gets "
                "OOM-killed at 3GB")
        .say("Baseline: 3.1 GB, 39 s. First try: -O2.")
        .edit("ledger.cabal", "-O1", "-O2")
        .say("No real change.")
        .prompt("revert the O2, not without a benchmark")
        .edit("ledger.cabal", "-O2", "-O1")
        .say("Reverted.")
        .prompt("go on")
        .say("The heap is thunks: lazy foldl builds a chain of 2M deferred calls. Both go "
             "with foldl' over Data.Map.Strict.")
        .edit("src/Report.hs", "foldl step", "foldl' step")
        .say("14 MB now.")
    )
    [bug] = found(session.extract(), "bug_note")
    assert "OOM-killed" in bug and "thunks" in bug and "Baseline" not in bug


def test_a_failing_command_that_passes_after_a_step_chained_before_it_is_a_fix():
    session = (
        Session().prompt("shell.nix를 flake로 바꾸고 싶어요")
        .tool("Write", {"file_path": f"{CWD}/flake.nix", "content": "{ }"}, "ok")
        .bash("nix flake check 2>&1 | tail -4",
              "error: path '/nix/store/q8x0-source/flake.nix' does not exist", failed=True)
        .say("flake는 git에 추가된 파일만 봅니다. `flake.nix`가 아직 untracked라서 그렇습니다.")
        .bash("git add flake.nix && nix flake check 2>&1 | tail -4", "checking flake output")
        .bash("cd sub && nix flake check 2>&1 | tail -4", "checking flake output")
    )
    [bug] = found(session.extract(), "bug_note")
    assert "does not exist" in bug and "untracked" in bug


@pytest.mark.parametrize("reply, expected", [
    ("good q, ask Priya, she owns the alerting rules. thx", "ask Priya"),
    ("et faudra demander à Claire si la cliente veut une liste d'attente quand c'est complet",
     "demander à Claire"),
    ("lo que no sé es cuánto guardamos: ¿borramos particiones de más de 24 meses? eso lo tiene "
     "que decir legal, no yo", "24 meses"),
    ("另外数据组的日报脚本可能也是按 offset 拉的，我得问问小王", "问问小王"),
])
def test_a_question_handed_to_someone_at_the_end_is_open_and_no_rule(reply, expected):
    session = (
        Session().worked(
            "make the workers survive the relay being down",
            "src/courier_worker.erl", "rebar3 eunit", "All 12 tests passed.",
            "Done: the worker reconnects with backoff.\n\nOne thing I can't decide from here: "
            "should a worker sitting in backoff raise an alert?")
        .prompt(reply)
        .say("Noted.")
    )
    extraction = session.extract()
    questions = found(extraction, "open_question")
    assert any(expected in q for q in questions) and len(questions) <= 2
    assert not found(extraction, "constraint") and not found(extraction, "preference")


@pytest.mark.parametrize("reply", [
    "offset 先留两个版本，下个迭代再删。",
    "vale. la copia de las 900M la lanzo yo el domingo de madrugada, que hay menos tráfico.",
    "на кластере запущу руками сегодня вечером.",
    "스테이징 배포는 목요일에 내가 할게.",
    "la migrazione sul cluster la lancio io stasera.",
])
def test_work_the_person_names_for_a_later_time_is_a_todo(reply):
    session = (
        Session().worked("add keyset pagination", "src/orders/api.clj", "bin/kaocha",
                         "87 tests, 312 assertions, 0 failures.", "Done, all green.")
        .prompt(reply)
        .say("OK.")
    )
    assert found(session.extract(), "todo") == [reply.removeprefix("vale. ")]


def test_problems_the_assistant_announces_in_what_the_user_saw_are_bug_notes():
    session = (
        Session()
        .prompt("Salut ! Samedi on a eu 14 inscrits pour un atelier de 12 places. Tu peux "
                "regarder ?")
        .tool("Read", {"file_path": f"{CWD}/includes/ajax-booking.php"}, "...")
        .say("Deux problèmes dans `ra_ajax_book` :\n\n1. **Course** : on compte, puis on "
             "insère ; deux clics simultanés passent tous les deux.\n2. **Pas de nonce** : "
             "`check_ajax_referer` manque, et l'action est aussi en `nopriv`.")
        .edit("includes/ajax-booking.php")
        .say("Corrigé.")
    )
    bugs = found(session.extract(), "bug_note")
    assert len(bugs) == 2 and all("14 inscrits" in b for b in bugs)
    assert "simultanés" in bugs[0] and "nopriv" in bugs[1]


def test_an_explanation_without_a_problem_found_is_no_bug_note():
    session = (
        Session().prompt("add an export button to the orders page")
        .say("The page renders rows from `useOrders`; I'll add the button to the toolbar.")
        .edit("src/pages/Orders.tsx")
        .say("Added.")
    )
    assert found(session.extract(), "bug_note") == []


def test_a_wrap_up_leaving_something_alone_because_nobody_asked_names_what():
    from engram.capture.reading import open_items

    wrap_up = ("C'est bon, 23 tests verts.\n\nAttention : `ra_send_confirmation` part toujours "
               "*avant* `wp_insert_post`. Si l'insertion échoue, la personne reçoit une "
               "confirmation sans inscription. Je ne l'ai pas déplacé, ce n'était pas la demande.")
    [(kind, item)] = open_items(wrap_up)
    assert kind == "todo" and "wp_insert_post" in item and "pas déplacé" in item


def test_a_change_taken_back_with_the_lines_around_it_or_by_a_multi_edit_is_a_revert():
    cached = "rows = CACHE.setdefault(path, parse(path))"
    for undo in (
        ("Edit", {"file_path": f"{CWD}/app/importer.py",
                  "old_string": f"    # cached\n    {cached}\n",
                  "new_string": "rows = parse(path)"}),
        ("Edit", {"file_path": f"{CWD}/app/importer.py", "old_string": f"{cached}  ",
                  "new_string": "rows = parse(path)\n"}),
        ("MultiEdit", {"file_path": f"{CWD}/app/importer.py", "edits": [
            {"old_string": "import functools\n", "new_string": ""},
            {"old_string": cached, "new_string": "rows = parse(path)"}]}),
    ):
        session = (
            Session().prompt("make the importer faster")
            .say("Caching the parsed rows in a module-level dict should avoid re-reading.")
            .edit("app/importer.py", "rows = parse(path)", cached)
            .bash("pytest -q", "FAILED tests/test_importer.py::test_reload - AssertionError: "
                  "stale\n1 failed, 8 passed", failed=True)
            .say("That approach won't work: the cache keeps stale rows when the file changes.")
            .tool(*undo, content="The file has been updated successfully.")
        )
        attempts = found(session.extract(), "failed_attempt")
        assert any("Caching the parsed rows" in a for a in attempts), (undo[0], attempts)


@pytest.mark.parametrize("command, read_only", [
    ('for r in actions/checkout@v4 astral-sh/setup-uv@v5; do repo=${r%@*}; '
     'echo "$r $(gh api repos/$repo/commits/x --jq .sha)"; done', True),
    ("for f in *.py; do rm $f; done", False),
    ("gh api repos/acme/shop/pulls --jq '.[].title'", True),
    ("gh api -X POST repos/acme/shop/issues -f title=x", False),
    ("git ls-remote https://github.com/actions/checkout v4.2.2", True),
    ("glab api projects/42/pipelines | jq '.[0].source'", True),
    ("gh pr view 12", True),
    ("glab ci list", True),
    ("gh pr create --fill", False),
    ("glab mr merge 12", False),
])
def test_looking_things_up_in_a_loop_or_through_an_api_read_is_read_only(command, read_only):
    from engram.capture.commands import is_read_only

    assert is_read_only(command) is read_only


def test_after_a_refused_edit_the_next_change_keeps_the_reason_said_before_the_refusal():
    session = (
        Session().prompt("la liste saute et j'ai eu une page d'erreur en tapant vite")
        .say("Deux problèmes distincts. Le scroll : `Virtualize` suppose une hauteur fixe, "
             "donc les lignes longues font sauter la barre ; je passe à un `Paginator`. "
             "L'exception : en Blazor Server, un `DbContext` injecté en Scoped vit aussi "
             "longtemps que le circuit, donc deux frappes rapides partagent le même contexte. "
             "Je rends la durée de vie du contexte plus courte, parce que sinon ça recommence.")
        .tool("Edit", {"file_path": f"{CWD}/Program.cs", "old_string": "AddDbContext<AppDbContext>",
                       "new_string": "AddDbContext<AppDbContext>(ServiceLifetime.Transient)"},
              "The user doesn't want to proceed with this tool use. The tool use was rejected "
              "(eg. if it was a file edit, the new_string was NOT written to the file). To tell "
              "you how to proceed, the user said:\nnon, pas de Transient", error=True)
        .say("D'accord, `IDbContextFactory` comme dans Facturation.")
        .edit("Program.cs", "AddDbContext<AppDbContext>", "AddDbContextFactory<AppDbContext>")
    )
    decisions = found(session.extract(), "decision")
    assert any("circuit" in d and "IDbContextFactory" in d and "Virtualize" not in d
               for d in decisions), decisions


def test_a_wrap_ups_checks_are_not_design_items_in_any_language():
    from engram.capture.reading import design_items

    wrap_up = ("- `ra_seats` utilise un `UPDATE` atomique au lieu d'un verrou\n"
               "- PHPCS propre, rien de PHP 8, `ra_book` utilise seulement `check_ajax_referer`\n"
               "- `go vet` sauber, nur `sync` aus der Standardbibliothek\n")
    assert design_items(wrap_up) == ["`ra_seats` utilise un `UPDATE` atomique au lieu d'un verrou"]


def test_an_approved_plans_reasoned_steps_and_argued_choices_are_decisions():
    from engram.capture.reading import plan_decisions

    plan = ("# Particionar `eventos` por mes\n\n"
            "1. Migración goose `00042_eventos_particionada.sql` con `PARTITION BY RANGE`.\n"
            "2. `shell.nix`는 삭제하지 않고 `flake-compat`으로 위임 (아직 nix-shell 쓰는 사람용)\n"
            "3. Copia por lotes por rangos de `id`.\n\n"
            "Sin DEFAULT: con una partición por defecto, añadir un mes obliga a escanear la "
            "DEFAULT entera con bloqueo. Mejor fallar en el INSERT que eso.\n")
    decided = [d for _, d in plan_decisions(plan)]
    assert len(decided) == 2
    assert "flake-compat" in decided[0] and decided[1].startswith("Sin DEFAULT")


def test_a_question_back_or_a_bare_menu_before_the_work_is_no_decision():
    def session(proposal: str) -> Session:
        return (Session().prompt("update your applauncher shortcut to run as admin")
                .say(proposal).prompt("'/Applications/Claude Code.app', and TOML please")
                .edit("scripts/launch.sh").bash("bash -n scripts/launch.sh")
                .say("Done."))

    asked = ("I'm not sure which app launcher you're referring to. Could you help me "
             "understand:\n\n1. **Which app launcher?** (e.g., Alfred, Raycast, a custom "
             "script?)\n2. **Where is the shortcut located?**\n\nIf you're referring to a "
             "**Claude Code** shortcut specifically, the `--dangerously-skip-permissions` flag "
             "bypasses permission prompts—which can be useful for automation but removes "
             "safety checks. I'd want to make sure this is intentional for your use case.")
    menu = ("### 8. Configuration Format\n- **A) TOML** (like AeroSpace) — simple, familiar\n"
            "- **B) JSON** — universal, easy parsing\n- **C) Swift-based DSL** — type-safe, "
            "but steeper learning curve\n- **D) GUI-only** — no config file, all in System "
            "Preferences\n\n---\n\nAnswer that (or just say \"your call\" and I'll pick), "
            "then say **\"Create the plan\"**.")
    for proposal in (menu, asked):
        assert not found(session(proposal).extract(), "decision"), proposal
    # options led by the reason for them are the choice's why
    argued = ("The most cross-platform approach would be to add a minimal `package.json` with "
              "a dev server, so nobody needs Python. Here are a few options:\n\n**Option 1: "
              "Vite** (modern, fast, great DX)\n**Option 2: `serve`** (dead simple)\n"
              "**Option 3: `http-server`** (classic)")
    assert any("cross-platform" in d for d in found(session(argued).extract(), "decision"))


def test_a_rule_in_a_short_message_keeps_what_the_person_says_after_it():
    from engram.capture.reading import rules_in

    said = ("não roda o consume assim, sem limite ele não termina nunca e fica preso aí. usa "
            "--limit=1 ou --time-limit quando for testar na mão")
    [(kind, rule)] = rules_in(said)
    assert kind == "constraint" and "--limit=1" in rule and "sem limite" in rule


def test_wondering_aloud_answered_with_a_choice_to_make_first_is_an_open_question():
    session = (
        Session().worked(
            "circe の auto 導出が遅い、なんとかして",
            "api/src/main/scala/shop/api/model/Order.scala", "sbt api/test",
            "[info] Passed: Total 412, Failed 0, Errors 0, Passed 412",
            "完了です。")
        .prompt("generic-extras ってもうメンテされてないんだっけ？いずれ外すべきか気になってる")
        .say("generic-extras は実質メンテナンスされていません。外すなら forProduct か別"
             "ライブラリですが、どちらにするかは決めてから別タスクにするのがいいと思います。")
    )
    extraction = session.extract()
    [question] = found(extraction, "open_question")
    assert "generic-extras" in question and not found(extraction, "constraint")


@pytest.mark.parametrize("wrap_up, kind, words", [
    ("Fatto, `./mvnw verify` verde.\n\nLa nota di credito collegata non c'è: aspetta il modulo "
     "di Paolo.", "todo", "Paolo"),
])
def test_work_waiting_on_someone_elses_part_is_left_open(wrap_up, kind, words):
    from engram.capture.reading import open_items

    assert any(k == kind and words in item for k, item in open_items(wrap_up))


def test_a_users_question_answered_as_a_team_question_stays_open():
    session = (
        Session().worked(
            "Die Detail-Route wirft DetachedInstanceError, fix das bitte",
            "app/api/bestellungen.py", "pytest -q tests/api", "12 passed in 0.8s",
            "Behoben.")
        .prompt("Sollten wir lazy='raise_on_sql' überall setzen?")
        .say("Das würde diese Fehlerklasse früh zeigen, aber 14 Relationships verlassen sich "
             "bewusst auf Lazy Loading. Ob euch das den Aufwand wert ist, ist eine Teamfrage – "
             "ich habe nichts davon geändert.")
    )
    [question] = found(session.extract(), "open_question")
    assert "raise_on_sql" in question


def test_a_log_pasted_without_fences_states_no_rule():
    from engram.capture.reading import rules_in

    prompt = ("the whole node died last night, logs below.\n\n=CRASH REPORT==== 9-Jun-2026 ===\n"
              "  crasher:\n    exception error: no match of right hand side value {error,x}\n"
              "\nfyi prod is OTP 25, so no OTP 26 stuff\n  - never bump deps here\n")
    rules = [rule for _, rule in rules_in(prompt)]
    assert not any("right hand side" in r for r in rules)
    assert any("OTP 25" in r for r in rules) and any("bump deps" in r for r in rules)


def test_a_format_step_before_a_format_check_is_no_bug_and_the_error_is_what_would_change():
    from engram.capture.failures import error_line

    assert error_line("All checks passed!\nWould reformat: tests/test_sender.py\n1 file would be"
                      " reformatted") == "Would reformat: tests/test_sender.py"
    session = (
        Session().prompt("add retries to the sender")
        .edit("app/sender.py")
        .bash("ruff check app && ruff format --check app",
              "All checks passed!\nWould reformat: app/sender.py", failed=True)
        .bash("ruff format app/sender.py && ruff check app && ruff format --check app",
              "1 file reformatted\nAll checks passed!")
    )
    assert found(session.extract(), "bug_note") == []


@pytest.mark.parametrize("answer, kind", [
    ("2 秒。App 那边连得慢一点无所谓，电池优先", "decision"),
    ("1 s, and from now on every advertising change goes through Lin first", "constraint"),
])
def test_a_value_picked_with_its_reason_decides_and_a_lasting_answer_is_a_rule(answer, kind):
    question = "广播间隔用多少？"
    session = (
        Session().prompt("板子空闲 1.8 mA，目标 30 µA 以内")
        .tool("AskUserQuestion", {"questions": [{"question": question, "header": "广播间隔",
                                                 "multiSelect": False,
                                                 "options": [{"label": "500 ms"},
                                                             {"label": "1 s"}]}]},
              {"questions": [], "answers": {question: answer}},
              content=f'User has answered your questions: "{question}"="{answer}".')
        .edit("src/main.c")
    )
    extraction = session.extract()
    assert any(answer in f.content for f in extraction.findings if f.type == kind)


@pytest.mark.parametrize("answer", ["메뉴에서 수동", "수동"])
def test_an_answer_picked_from_askuserquestion_keeps_what_the_option_said(answer):
    question = "업데이트 확인은 언제 할까요?"
    session = (
        Session().prompt("Tauri 앱에 자동 업데이트를 넣어 주세요")
        .tool("AskUserQuestion", {"questions": [{"question": question, "header": "확인 시점",
                                                 "multiSelect": False, "options": [
                                                     {"label": "시작할 때 자동",
                                                      "description": "앱을 켤 때마다 확인"},
                                                     {"label": "메뉴에서 수동",
                                                      "description": "'업데이트 확인' 메뉴를 "
                                                                     "눌렀을 때만"}]}]},
              {"questions": [], "answers": {question: answer}},
              content=f'User has answered your questions: "{question}"="{answer}".')
        .edit("src-tauri/src/lib.rs")
    )
    [decision] = found(session.extract(), "decision")
    assert "'업데이트 확인' 메뉴를 눌렀을 때만" in decision and "앱을 켤 때마다" not in decision



@pytest.mark.parametrize(("question", "answer", "kept"), [
    ("Do you have SSH access set up to Slate already?", "Yes, with keys", False),
    ("What is the IP address of your Zima server?", "zima.example.net", False),
    ("Should I install tmux via Homebrew so we can share the terminal?", "Yes, install it",
     False),
    ("Should ingest_partner_feeds keep catchup=True?", "off, we backfill by hand", True),
    ("Which rig do these beads belong to? (should I use 'spotter'?)", "No rig", True),
    ("Have you decided which Qt version to target?", "6.5, the LTS our contract covers", True),
    ("Is your priority speed or memory on the Pi?", "memory, it has 1 GB", True),
    # where a thing of theirs is, what it is, how to reach it
    ("Which repository do you want to sync? (please provide the path)", "~/Documents/M-Claude",
     False),
    ('Is "legion" the computer I\'m currently running on?', "yes, our current machine", False),
    ("If legion is a separate device, how should I access it?", "over SSH as admin", False),
])
def test_an_answer_about_the_persons_own_setup_decides_nothing(question, answer, kept):
    session = (
        Session().prompt("get the home lab reachable from the laptop")
        .tool("AskUserQuestion", {"questions": [{"question": question, "header": "Setup",
                                                 "multiSelect": False, "options": []}]},
              {"questions": [], "answers": {question: answer}},
              content=f'User has answered your questions: "{question}"="{answer}".')
        .edit("ops/inventory.yml")
    )
    assert any(answer in d for d in found(session.extract(), "decision")) is kept

def test_two_ways_weighed_before_the_fix_are_a_decision_not_only_the_fixs_why():
    session = (
        Session().prompt("le e2e devis est rouge en CI, en local ça passe")
        .bash("LANG=en_US.UTF-8 npx playwright test devis", "Error: locator.click: Test "
              "timeout of 30000ms exceeded.\n  waiting for getByRole('button', { name: "
              "'Continuer' })", failed=True)
        .say("Reproduit. Deux façons de corriger : passer aux `data-testid`, ou fixer la "
             "locale du navigateur de test. Je fixe `locale: 'fr-FR'` dans la config : les "
             "tests restent écrits sur les libellés visibles.")
        .edit("playwright.config.ts")
        .bash("LANG=en_US.UTF-8 npx playwright test devis", "1 passed (4.1s)")
    )
    extraction = session.extract()
    assert any("fr-FR" in d and "data-testid" in d for d in found(extraction, "decision"))
    assert found(extraction, "bug_note")


def test_a_pasted_error_keeps_its_own_cause_not_a_test_the_fix_broke_on_the_way():
    log = ("ingest is falling over since this morning. prod log:\n\nTraceback (most recent call "
           "last):\n  File \"/app/ingest/writer.py\", line 41, in write\nclickhouse_connect."
           "driver.exceptions.DatabaseError: HTTPDriver returned response code 500)\n Code: 252. "
           "DB::Exception: Too many parts (3001). (TOO_MANY_PARTS)")
    session = (
        Session().prompt(log)
        .say("The writer inserts one row per `INSERT`; ClickHouse makes a part per insert and at "
             "~900 inserts/s merges can't keep up, which is the `TOO_MANY_PARTS` in your log.")
        .bash("clickhouse-benchmark --help", "bash: clickhouse-benchmark: command not found",
              failed=True)
        .say("I'll buffer rows and flush every 5000 rows or after 1 second instead of 900 "
             "inserts a second.")
        .edit("ingest/writer.py")
        .bash("pytest tests/integration -q", "FAILED tests/integration/test_writer.py::"
              "test_event_visible_after_write - AssertionError: assert 0 == 1", failed=True)
        .say("Expected fallout: the test counts before the buffer flushes.")
        .edit("tests/integration/test_writer.py")
        .bash("pytest tests/integration -q", "25 passed in 15.07s")
    )
    extraction = session.extract()
    reported = [f.content for f in extraction.findings if f.origin == "reported"]
    assert len(reported) == 1 and "one row per" in reported[0]
    assert "TOO_MANY_PARTS" in reported[0] or "Too many parts" in reported[0]
    assert not found(extraction, "failed_attempt")  # looking whether a tool is there


def test_an_approach_given_up_names_the_change_it_gives_up():
    session = (
        Session().prompt("карточка висит 30 секунд, когда pricing тормозит")
        .edit("internal/inventory/server.go", "context.Background()", "ctx")
        .tool("Edit", {"file_path": f"{CWD}/proto/inventory/v1/inventory.proto",
                       "old_string": "  int64 price = 3;",
                       "new_string": "  int64 price_cents = 3;"},
              {"filePath": f"{CWD}/proto/inventory/v1/inventory.proto"},
              content="The file has been updated successfully.")
        .bash("buf breaking --against '.git#branch=main'", "inventory.proto:8:3:Field \"3\" "
              "with name \"price_cents\" changed option \"json_name\"", failed=True)
        .say("buf breaking против переименования: для мобильных клиентов это другое имя поля "
             "в сгенерированном коде и другой ключ в JSON. Переименование откатываю — `price` "
             "остаётся как есть.")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "price_cents" in attempt and "context.Background" not in attempt


def test_a_change_the_person_says_must_go_is_a_failed_attempt_with_their_reason():
    session = (
        Session().prompt("die Artikelliste crasht nach dispose, kannst du das fixen?")
        .say("Ich probiere zuerst, die Liste am Leben zu halten, dann gibt es kein dispose "
             "mehr mitten im Request:")
        .edit("lib/product_list_provider.dart", "build() => _fetch();",
              "build() {\n  ref.keepAlive();\n  return _fetch();\n}")
        .prompt("keepAlive auf der artikelliste hatten wir schon mal: nach logout + login mit "
                "anderem mandanten stehen dann die artikel vom alten mandanten drin. das muss "
                "raus")
        .edit("lib/product_list_provider.dart", "build() {\n  ref.keepAlive();\n  return "
              "_fetch();\n}", "build() => _fetch();")
        .say("Erledigt:\n- Crash nach schnellem Zurück: der Request hängt an einem "
             "`CancelToken`, das in `ref.onDispose` abgebrochen wird, kein `keepAlive`.")
    )
    extraction = session.extract()
    [attempt] = found(extraction, "failed_attempt")
    assert "keepAlive" in attempt and "mandanten" in attempt
    assert any(d.startswith("Crash nach schnellem Zurück") for d in found(extraction, "decision"))


def test_a_no_that_answers_the_assistants_question_is_no_failed_attempt():
    session = (
        Session().prompt("le test devis est rouge en CI")
        .edit("tests/devis.spec.ts")
        .say("Le test tape `01/03/2026` en dur, et depuis le 1er mars elle est dans le passé. "
             "Tu avais lancé le test en local récemment ?")
        .prompt("non depuis la semaine dernière. ah. ok")
        .say("Alors je calcule la date d'effet au 1er du mois prochain.")
        .edit("tests/devis.spec.ts")
    )
    assert not found(session.extract(), "failed_attempt")


def test_a_command_the_tool_does_not_know_is_a_road_that_does_not_exist():
    session = (
        Session().prompt("pending messages of dead pods are never processed")
        .bash("redis-cli -u $REDIS XAUTOCLAIM pedidos:eventos facturacion probe 60000 0-0",
              "(error) ERR unknown command 'XAUTOCLAIM', with args beginning with: 'pedidos'",
              failed=True)
        .bash("redis-cli -u $REDIS INFO server | grep redis_version", "redis_version:6.0.5")
        .say("Staging corre Redis 6.0.5 y `XAUTOCLAIM` llegó en 6.2. Lo hago con XPENDING.")
        .edit("src/reclaim.ts")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "unknown command 'XAUTOCLAIM'" in attempt and "6.2" in attempt


def test_a_background_build_that_ended_well_is_verified_once_its_task_says_so(tmp_path, mem):
    output = "/tmp/claude-1000/-home-dev-shop/tasks/b0eb87c.output"
    command = "west build -b nrf52840dk_nrf52840 -p -- -DEXTRA_CONF_FILE=prj_release.conf"
    session = (
        Session().prompt("the board idles at 1.8 mA, get it under 30 µA")
        .edit("prj_release.conf")
        .background(command, "b0eb87c", output)
        .notified("b0eb87c", output, "release build", 0)
        .say("The release build passes.")
    )
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    capture(mem, str(path), project="fw", cwd=CWD, state=state)
    capture(mem, str(path), project="fw", cwd=CWD, state=state)  # the next Stop: once
    [recipe] = mem.list(types=["verified_command"])
    assert recipe.meta["command"] == command and recipe.project == "fw"
    assert recipe.access_count == 0  # saved once, not counted as run twice


def test_a_subagents_own_transcript_verifies_its_passing_runs_once(tmp_path, mem):
    """A subagent's transcript read on its own: PostToolUse may have seen its runs or not;
    what passed is verified, and a run the hook counted already is not counted again."""
    side = _subagent_work()
    for entry in side.entries:
        entry.update(isSidechain=True, agentId="a1b2c3")
    path = side.write(tmp_path / "agent-a1b2c3.jsonl")
    state: dict[str, Any] = {}
    capture(mem, str(path), project="shop", cwd=CWD, state=state)
    capture(mem, str(path), project="shop", cwd=CWD, state=state)
    [recipe] = mem.list(types=["verified_command"])
    assert recipe.meta["command"] == "pytest -q tests/test_refund.py"
    assert recipe.access_count == 0
    # a session of the person's own: its runs are PostToolUse's to verify, not capture's
    mine = _subagent_work().write(tmp_path / "main.jsonl")
    capture(mem, str(mine), project="web", cwd=CWD, state={})
    assert not mem.list(types=["verified_command"], project="web")


def test_a_wrap_up_after_a_background_tasks_notification_still_leaves_its_items_open():
    output = "/tmp/claude-1000/-home-lin-fw/tasks/b64.output"
    session = (
        Session().prompt("get the idle current under 30 µA")
        .edit("prj_release.conf")
        .tool("Bash", {"command": "west build -b nrf52840dk_nrf52840 -p", "run_in_background":
                       True}, {"stdout": "", "stderr": "", "backgroundTaskId": "b64"},
              content=f"Command running in background with ID: b64. Output is being written "
                      f"to: {output}")
        .prompt("<task-notification>\n<task-id>b64</task-id>\n<output-file>"
                f"{output}</output-file>\n<status>completed</status>\n<summary>Background "
                "command \"build\" completed (exit code 0)</summary>\n</task-notification>")
        .bash(f"tail -3 {output}", "Memory region Used Size")
        .say("release 构建通过。改动：\n- UART 全关，日志走 RTT。\n- 广播间隔 2 s。\n\n"
             "还有一点不确定：release 里要不要保留 BLE 上的 SMP/DFU？它会多一个 GATT 服务。")
    )
    [question] = found(session.extract(), "open_question")
    assert "SMP/DFU" in question


def test_an_open_item_told_more_fully_later_stays_open(tmp_path, store_path):
    """The fuller wording merges into the memory of the first (the bundled model finds
    them near-duplicates); that memory is the item still open, not one to archive."""
    session = (
        Session().prompt("板子空闲 1.8 mA，目标 30 µA 以内")
        .edit("prj_release.conf")
        .bash("west twister -T tests/sensor_fmt -p native_posix", "1 of 1 test passed")
        .say("release 构建通过，单元测试通过。\n\n还有一点不确定：release 里要不要保留 BLE 上的 "
             "SMP/DFU？它会多一个 GATT 服务，但不影响空闲电流。")
    )
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    with engram.open(store_path, embedder="bundled") as mem:
        capture(mem, str(path), project="fw", cwd=CWD, state=state)
        session.prompt("DFU 问老周").say("好。")
        capture(mem, str(session.write(path)), project="fw", cwd=CWD, state=state)
        [question] = mem.list(types=["open_question"])
        assert "SMP/DFU" in question.content and "问老周" in question.content


def test_a_change_taken_back_silently_is_explained_by_the_wrap_up_once(tmp_path, mem):
    session = (
        Session().prompt("les balles traversent les murs fins à 25 fps")
        .bash("cargo test --test tunnelling", "assertion `left == right` failed: bullet "
              "crossed the wall\ntest result: FAILED. 0 passed; 1 failed", failed=True)
        .edit("src/combat/mod.rs", "Update, (move_projectiles", "FixedUpdate, (move_projectiles")
        .bash("cargo test --test tunnelling", "assertion `left == right` failed: bullet "
              "crossed the wall\ntest result: FAILED. 0 passed; 1 failed", failed=True)
        .edit("src/combat/mod.rs", "FixedUpdate, (move_projectiles", "Update, (move_projectiles")
    )
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    capture(mem, str(path), project="jeu", cwd=CWD, state=state)
    session.say("Je passe au test balayé, contre chaque mur.").edit("src/combat/projectile.rs")
    session.bash("cargo test --test tunnelling", "test result: ok. 1 passed; 0 failed")
    session.say("Fait :\n\n- `move_projectiles` teste le segment parcouru contre les murs.\n"
                "- Le passage en `FixedUpdate` à 64 Hz n'aidait pas : 900/64 ≈ 14 px par pas, "
                "toujours plus que 8 px ; je l'ai retiré.\n- Tout est vert.")
    capture(mem, str(session.write(path)), project="jeu", cwd=CWD, state=state)
    [attempt] = mem.list(types=["failed_attempt"])
    assert "FixedUpdate" in attempt.content and "14 px" in attempt.content


def test_a_bug_left_until_after_the_demo_is_open_work():
    session = (
        Session().worked(
            "fix the tunnelling bullets",
            "src/combat/projectile.rs", "cargo test", "test result: ok. 38 passed; 0 failed",
            "Done. The subagent noticed `hit_enemies` ignores `Team`: enemies hit each other.")
        .prompt("le friendly fire des ennemis, on verra après la démo, laisse.")
        .say("Je ne touche pas à `hit_enemies`.")
    )
    assert any("friendly fire" in t for t in found(session.extract(), "todo"))


def test_a_request_that_names_how_to_build_it_is_the_persons_decision_with_its_why():
    session = (
        Session().prompt("POST /payments needs Idempotency-Key support. mobile retries on "
                         "timeouts and we double-charged 3 people last week. store keys in "
                         "postgres.")
        .edit("src/main/kotlin/payments/IdempotencyRepo.kt")
        .say("Done.")
    )
    decisions = found(session.extract(), "decision")
    assert any(d.startswith("store keys in postgres") and "double-charged" in d
               for d in decisions), decisions
    plain = Session().prompt("add an export button to the orders page").edit("src/Orders.tsx")
    assert found(plain.extract(), "decision") == []


@pytest.mark.parametrize("reply, kind", [
    ("ok, I'll make a ticket for the timezone thing in the daily view", "todo"),
    ("the retry question, let's bring it up at the standup tomorrow", "open_question"),
    ("вопрос с ретраями обсудим на планёрке", "open_question"),
])
def test_a_ticket_the_person_opens_and_a_question_parked_for_a_meeting_stay_open(reply, kind):
    session = (
        Session().worked("the daily view double counts around midnight", "sql/daily_view.sql",
                         "clickhouse-client --queries-file tests/daily.sql && make test", "ok",
                         "Fixed the merge order; all green.")
        .prompt(reply)
        .say("OK.")
    )
    assert any(reply in item for item in found(session.extract(), kind))


def test_each_announced_problem_stays_its_own_memory_across_stops(tmp_path, store_path):
    session = (
        Session()
        .prompt("Salut ! Samedi on a eu 14 inscrits pour un atelier de 12 places. Tu peux "
                "regarder ?")
        .say("Deux problèmes dans `ra_ajax_book` :\n\n1. **Course** : on compte, puis on "
             "insère ; deux clics simultanés passent tous les deux.\n2. **Pas de nonce** : "
             "`check_ajax_referer` manque, et l'action est aussi en `nopriv`.")
        .edit("includes/ajax-booking.php")
        .say("Corrigé.")
    )
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    with engram.open(store_path, embedder="fake") as mem:  # the real clock
        capture(mem, str(path), project="ateliers", cwd=CWD, state=state)
        first = {m.id: m.updated_at for m in mem.list(types=["bug_note"])}
        for _ in range(2):  # PreCompact and SessionEnd read the same transcript again
            time.sleep(0.01)
            capture(mem, str(path), project="ateliers", cwd=CWD, state=state)
        notes = mem.list(types=["bug_note"])
        bugs = sorted(m.content for m in notes)
        assert len(bugs) == 2 and "simultanés" in bugs[0] and "nopriv" in bugs[1]
        assert {m.id: m.updated_at for m in notes} == first  # nothing rewritten in turn


@pytest.mark.parametrize("wrap_up, kind, words", [
    ("Everything passes now. You may want to add an index on `orders.created_at` before the "
     "table grows.", "todo", "orders.created_at"),
    ("Note: the e2e suite wasn't run, it needs the staging credentials.", "todo", "e2e"),
    ("Before this goes to prod, the migration should be tested against a copy of the "
     "production data.", "todo", "migration"),
    ("There's a deprecation warning from pydantic that we'll have to deal with at some point.",
     "todo", "pydantic"),
    ("I couldn't reproduce the Safari issue locally, so that one is still open.",
     "open_question", "Safari"),
    ("The fix is in. Someone should also bump the SDK in the mobile app.", "todo", "SDK"),
    ("Pronto. Ficou faltando ajustar o alerta no Sentry.", "todo", "Sentry"),
    ("No tengo claro si el webhook de pagos sigue usando la clave antigua.", "open_question",
     "webhook"),
    ("已完成。还需要更新部署文档。", "todo", "部署文档"),
    ("Fatto. Resta da aggiornare la documentazione.", "todo", "documentazione"),
    ("Gotowe. Zostało jeszcze zaktualizować dokumentację.", "todo", "dokumentację"),
    ("Klaar. De documentatie moet nog bijgewerkt worden.", "todo", "documentatie"),
    ("Tamamlandı. Dokümantasyonu güncellemek kaldı.", "todo", "Dokümantasyonu"),
])
def test_a_wrap_up_names_work_left_in_everyday_words_in_many_languages(wrap_up, kind, words):
    from engram.capture.reading import open_items

    assert any(k == kind and words in item for k, item in open_items(wrap_up))


@pytest.mark.parametrize("wrap_up", [
    "All 42 tests pass and the endpoint now returns 404 for unknown ids.",
    "Let me know if you want me to also update the changelog.",
    "Added a regression test that fails without the fix.",
    # a check that the answer landed asks nothing about the project
    "The tokens expire after 15 minutes; the refresh runs a minute before. Does that clear "
    "things up?",
    "La caché vive en Redis con un TTL de 5 minutos. ¿Está claro?",
    "Der Cache lebt 5 Minuten in Redis. Ist das so verständlich?",
])
def test_a_wrap_up_that_leaves_nothing_open_names_no_work(wrap_up):
    from engram.capture.reading import open_items

    assert open_items(wrap_up) == []


def test_what_the_assistant_says_made_no_difference_is_a_failed_attempt():
    session = (
        Session().prompt("the export endpoint times out for big accounts, p99 is 30s")
        .say("I'll raise the DB pool size from 10 to 50 in `settings.py` in case it's contention.")
        .edit("app/settings.py")
        .bash("python scripts/load_export.py --accounts big", "p99=29.8s")
        .say("Raising the pool size made no difference, p99 is still 29.8s. Let me profile.")
        .bash("python -m cProfile -s cumtime scripts/load_export.py", "serialize_rows 28.1s")
        .say("The time is in `serialize_rows`. I'll stream rows with a generator instead.")
        .edit("app/export.py")
        .bash("python scripts/load_export.py --accounts big", "p99=2.1s")
        .say("p99 is down to 2.1s.")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "pool size" in attempt and "no difference" in attempt


def test_a_reverted_change_and_a_decision_name_what_the_edit_changed():
    session = (
        Session().prompt("inline edits give 403 since the csrf PR")
        .bash("go test ./internal/web/...", "--- FAIL: TestUpdateStockRow\nFAIL", failed=True)
        .say("Reproduced. Trying Lax first:")
        .edit("internal/web/routes.go", "csrf.SameSite(csrf.SameSiteStrictMode),",
              "csrf.SameSite(csrf.SameSiteLaxMode),")
        .bash("go test ./internal/web/...", "--- FAIL: TestUpdateStockRow\nFAIL", failed=True)
        .say("Same 403, so the cookie isn't the problem. Putting Strict back.")
        .edit("internal/web/routes.go", "csrf.SameSite(csrf.SameSiteLaxMode),",
              "csrf.SameSite(csrf.SameSiteStrictMode),")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "SameSiteLaxMode" in attempt


def test_change_gist_reads_the_first_changed_line_of_an_edit():
    from engram.capture.changes import change_gist
    from engram.capture.transcript import ToolCall

    def edit(old: str, new: str) -> ToolCall:
        return ToolCall("t", "Edit", {"file_path": "/a.py", "old_string": old,
                                      "new_string": new}, None, 0)

    assert change_gist(edit("x = 1\ny = 2", "x = 1\ny = 3")) == "`y = 2` → `y = 3`"
    assert change_gist(edit("a\n", "a\nb = 1\n")) == "added `b = 1`"
    assert change_gist(edit("a\nb\n", "a\n")) == "removed `b`"
    assert change_gist(edit("a  b", "a b")) == ""
    assert change_gist(ToolCall("t", "Write", {"file_path": "/a", "content": "x"}, None, 0)) == ""


def test_a_numbered_line_keeps_a_version_number_that_starts_it():
    from engram.capture import lexicon

    assert lexicon.sentences("3. 6.5, c'est la LTS") == ["6.5, c'est la LTS"]


def test_the_users_verdict_keeping_a_change_with_its_reason_is_a_decision():
    session = (
        Session().prompt("orders list crashes when scrolling")
        .say("The keys are page numbers; I'll switch the PagingSource keys to offsets.")
        .edit("data/OrdersPagingSource.kt")
        .bash("./gradlew test", "BUILD SUCCESSFUL")
        .say("The keys are offsets now (offset + orders.size); the paging test is green.")
        .prompt("top. cursor paging wär schöner aber die v1 api kann nur offset, also passt "
                "das so.")
        .say("Gut.")
    )
    [decision] = [d for d in found(session.extract(), "decision") if "v1 api" in d]
    assert "PagingSource" in decision


@pytest.mark.parametrize("last_words, words", [
    ("die suche hat glaub ich den gleichen bug, mach ich nächste woche", "gleichen bug"),
    ("the search page probably has the same bug, I'll look at it tomorrow", "same bug"),
    ("la recherche a sans doute le même bug, je regarde ça demain", "même bug"),
    ("супер. в понеділок сама оновлю кіоск.", "оновлю кіоск"),
    ("someone should pin the CI's Playwright image to the package version", "pin the CI"),
    ("et quelqu'un devrait épingler la version de l'image playwright dans la CI", "épingler"),
])
def test_work_the_user_names_for_a_later_day_is_a_todo(last_words, words):
    session = (
        Session().worked(
            "fix the duplicate rows in the orders list",
            "app/orders.py", "pytest -q", "5 passed",
            "Fixed.")
        .prompt(last_words)
        .say("Noted.")
    )
    assert any(words in todo for todo in found(session.extract(), "todo"))


def test_suspects_announced_and_a_try_told_and_taken_back_in_ukrainian():
    session = (
        Session().prompt("гра гальмує з третього рівня: 12-15 fps, а треба стабільні 30")
        .say("Дві підозри одразу видно в `Terrain:draw`:\n1. `love.graphics.newQuad` на "
             "кожну клітинку **щокадру**: сміття, і на Pi 3 збирач сміття дає ривки.\n2. "
             "Кожна клітинка — окремий `love.graphics.draw`.")
        .edit("src/terrain.lua")
        .say("Ще спробував вимкнути vsync (`t.window.vsync = 0`), — з'явився розрив кадру, а "
             "fps майже не змінився (15,1), тож повернув `vsync = 1`.")
        .edit("conf.lua", "t.window.vsync = 0", "t.window.vsync = 1")
        .bash("busted spec/", "12 successes / 0 failures")
    )
    extraction = session.extract()
    assert any("newQuad" in b for b in found(extraction, "bug_note"))
    assert any("vsync" in a for a in found(extraction, "failed_attempt"))


def test_a_question_the_user_will_ask_someone_in_ukrainian_is_open():
    session = (
        Session().worked(
            "гра гальмує з третього рівня, треба стабільні 30 fps",
            "src/terrain.lua", "busted", "12 successes / 0 failures",
            "30 fps стабільно.")
        .prompt("і ще не знаю, чи Пі 3 потягне звук копання поверх цього — Остап робив звук, "
                "спитаю його, скільки там каналів")
        .say("Добре.")
    )
    assert any("Остап" in q for q in found(session.extract(), "open_question"))


def test_not_knowing_said_aloud_is_no_rule_and_a_request_that_stopped_working_is_a_problem():
    from engram.capture import lexicon
    from engram.capture.reading import rule_type

    assert rule_type("keine ahnung ob das backend die sortierung stabil hält") is None
    assert lexicon.PROBLEM_RE.search("inline edit stopped saving, gives 403 in the network tab")


def test_numbered_answers_to_numbered_questions_are_decisions_with_their_question():
    session = (
        Session().prompt("plan the move from Qt 5.15 to Qt 6, change nothing yet")
        .bash("grep -rc QRegExp core", "core/validation.cpp:4")
        .say("Most of it is in core/. Questions before I propose an order:\n"
             "1. qmake or CMake? Qt 6 pushes CMake, but qmake6 works.\n"
             "2. Do we accept Core5Compat to go faster?\n3. Which version do we target?")
        .prompt("1. qmake stays, CMake is another project for next year. 2. no Core5Compat, "
                "never. 3. 6.5, it's the LTS and our support contract covers it")
        .edit("core/validation.cpp")
    )
    decisions = found(session.extract(), "decision")
    assert any("6.5, it's the LTS" in d and "Which version" in d for d in decisions)
    assert any("qmake stays" in d and "qmake or CMake" in d for d in decisions)
    assert not any("Core5Compat" in d for d in decisions)  # a rule, not a choice
    # numbered questions of where and what things are: their answers decide nothing
    errand = (
        Session().prompt("sync the chat logs repo")
        .say("Before I start:\n1. Which repository? (please provide the path)\n"
             "2. Is \"legion\" the computer I'm currently running on?")
        .prompt("1. /Users/m/Documents/M-Claude 2. yes, our current machine")
        .edit("scripts/sync.py")
    )
    assert not found(errand.extract(), "decision")


def test_a_question_handed_to_someone_about_that_keeps_what_that_is():
    session = (
        Session().prompt("plan the Qt 6 migration, change nothing yet")
        .say("Qt 6 no longer supports Windows 7. Do any customers still run it?")
        .prompt("hmm. Ferrand Transports was still on Windows 7 last year. not sure that's "
                "still the case, we need to ask Claire from support.")
        .edit("core/validation.cpp")
        .say("Noted, I'll keep the QML step for after Claire answers.")
    )
    questions = found(session.extract(), "open_question")
    assert any("Ferrand" in q and "Claire" in q for q in questions)


@pytest.mark.parametrize("reply, words", [
    ("great. mañana reviso los logs en Datadog desde el deploy de #412, Sofía de security "
     "tiene que saberlo.", "Sofía"),
    ("thanks. Priya from security needs to know about the leak before Friday's release.",
     "Priya"),
    ("ok. Дина из аналитики должна об этом знать, у них дашборд на этой таблице.", "Дина"),
])
def test_someone_the_person_says_must_be_told_is_work_left_not_a_rule(reply, words):
    session = (
        Session().worked("one tenant saw another tenant's product names, fix it",
                         "src/loaders.ts", "npx jest", "Tests: 14 passed, 14 total",
                         "Fixed: loaders are created per request.")
        .prompt(reply)
        .say("OK.")
    )
    extraction = session.extract()
    assert any(words in t for t in found(extraction, "todo"))
    assert not found(extraction, "constraint")


def test_a_question_handed_to_someone_keeps_what_it_hinges_on():
    session = (
        Session().worked(
            "que el deploy no se pise: dos a la vez dejaron un rsync a medias",
            "deploy/release.sh", "bats test/", "4 tests, 0 failures",
            "Listo: `flock -n` por ambiente.")
        .prompt("va. una duda: Jenkins corre el job como usuario jenkins o deploy? si es "
                "jenkins no va a poder escribir en /var/lock/almacen.lock. le pregunto a Memo")
        .say("Tiene sentido.")
    )
    questions = found(session.extract(), "open_question")
    assert any("Jenkins corre" in q and "/var/lock" in q and "Memo" in q for q in questions)


def test_a_doubt_handed_to_someone_keeps_what_the_doubt_is_about_and_is_no_rule():
    session = (
        Session().prompt("посмотри PR #57 от Димы, только замечания")
        .edit("review-57.md")
        .say("Review is in review-57.md.")
        .prompt("спасибо. про края окна я сама не знаю, как правильно — укорачивать выход "
                "или сужать окно. спрошу у Саши из метрологии, как у них принято.")
        .say("Хорошо.")
    )
    extraction = session.extract()
    questions = found(extraction, "open_question")
    assert any("края окна" in q and "Саши" in q for q in questions), questions
    assert not any("края" in c for c in found(extraction, "constraint"))


@pytest.mark.parametrize("wrap_up, words", [
    ("Listo. Para la DLQ falta decidir quién se entera cuando entra algo.", "DLQ"),
    ("Done. Who gets paged for the dead-letter queue still needs to be decided.", "paged"),
])
def test_a_decision_still_to_be_taken_is_an_open_question(wrap_up, words):
    from engram.capture.reading import open_items

    assert any(k == "open_question" and words in item for k, item in open_items(wrap_up))


def test_a_question_handed_to_a_colleague_in_polish_is_open():
    from engram.capture import lexicon

    assert lexicon.HANDOFF_RE.search("co do retry zapytam Kasię z księgowości")


def test_the_need_that_opens_a_session_is_its_task_not_a_rule():
    session = (
        Session().prompt("Buenas. Hay que montar la sección de recetas: una colección nueva y un "
                         "feed RSS. Nada de islas de React, componentes .astro y JS vanilla.")
        .edit("src/content/config.ts")
        .say("Colección creada.")
    )
    rules = found(session.extract(), "constraint") + found(session.extract(), "preference")
    assert not any("Hay que montar" in r for r in rules)
    assert any("islas de React" in r for r in rules)


def test_a_reported_bug_takes_the_cause_a_later_wrap_up_labels():
    session = (
        Session().prompt("the export button stopped working after the csrf change, gives 403")
        .say("I'll try relaxing the cookie first.")
        .edit("app/routes.go", "SameSiteStrictMode", "SameSiteLaxMode")
        .say("Still 403 in my test. Let me keep digging.")
        .prompt("ok go on")
        .edit("templates/layout.html", "<body>", "<body hx-headers='{\"X-CSRF-Token\": \"t\"}'>")
        .bash("go test ./...", "ok  app 0.1s")
        .say("Fixed, all packages pass.\n\n**Why it broke:** the button sits outside any form, "
             "so the token was never sent; every htmx request now carries it in hx-headers.")
    )
    [bug] = [b for b in found(session.extract(), "bug_note") if "403" in b]
    assert "outside any form" in bug


def test_a_problem_the_assistant_announces_at_a_turns_end_and_the_fix_asked_next_is_a_bug():
    session = (
        Session().worked(
            "build the recipes feed",
            "src/pages/rss.xml.ts", "pnpm build", "Complete!",
            "Aquí hay un problema: las lentejas salen con fecha 3 de diciembre, pero el .md dice "
            "12/03/2024. z.coerce.date() lee ese formato como mes/día (americano).")
        .prompt("convierte los md a ISO. si dejamos el formato raro alguien lo vuelve a meter "
                "mal, y Marta escribe las nuevas a mano")
        .edit("src/content/config.ts", "fecha: z.coerce.date(),", "fecha: z.date(),")
        .say("Listo, fechas en ISO.")
    )
    extraction = session.extract()
    assert any("mes/día" in b and "ISO" in b for b in found(extraction, "bug_note"))
    assert any("ISO" in d and "formato raro" in d for d in found(extraction, "decision"))


def test_a_question_asked_with_no_changes_wanted_leaves_nothing_to_keep():
    session = (
        Session().prompt("quick one, no changes: what exactly does ops/cron/rotate.pl do?")
        .bash("perl -c ops/cron/rotate.pl", "ops/cron/rotate.pl syntax OK")
        .say("It runs nightly and gzips logs older than a day; only gw-YYYYMMDD.log files "
             "match the regex, so old archives are never deleted by this script at all.")
        .prompt("ok that's all I needed, thanks")
        .say("You're welcome.")
    )
    assert session.extract().findings == []


def test_the_users_last_words_keep_work_after_a_milestone_and_what_they_do_not_know():
    session = (
        Session().worked(
            "build the recipes section",
            "src/pages/recetas.astro", "pnpm build", "Complete!",
            "Listo: la sección de recetas está hecha y el build pasa.")
        .prompt("genial. las recetas en inglés las traduce Marta después del lanzamiento. lo "
                "que no sé es si en inglés irán en /en/recetas o en un subdominio, eso está "
                "sin decidir")
        .say("Apuntado.")
    )
    extraction = session.extract()
    assert any("Marta" in t for t in found(extraction, "todo"))
    assert any("subdominio" in q for q in found(extraction, "open_question"))


def test_what_the_editor_adds_to_a_prompt_is_not_the_persons_words():
    session = (
        Session().prompt("<ide_opened_file>The user opened the file /home/dev/shop/app.py in "
                         "the IDE. This may or may not be related to the current task."
                         "</ide_opened_file>")
        .prompt("<ide_selection>The user selected the lines 3 to 4 from app.py:\nnever call "
                "flush() here\n</ide_selection>")
        .say("Noted.")
    )
    extraction = session.extract()
    assert extraction.findings == []
    assert not any(e.kind == "prompt" for e in transcript.parse_entries(session.entries).events)


def test_a_wrap_ups_steps_to_try_and_its_closing_offer_are_not_decisions():
    session = (
        Session().prompt("migrate the recorder to AudioWorklet")
        .edit("js/lib/recorder.js")
        .say("Done.\n\n### Files Updated:\n1. **recorder.js** - Now uses AudioWorklet instead "
             "of ScriptProcessor\n\n## Test It Now!\n1. Click \"Record\" - should capture audio "
             "via AudioWorklet\n2. Open the drone synth - should generate noise via "
             "AudioWorklet\n\nMigrating the drone to a worklet too would be a separate, larger "
             "task instead of part of this change. Would you like me to tackle that next, or "
             "would you prefer to test the current changes first?")
    )
    decisions = found(session.extract(), "decision")
    assert any("instead of ScriptProcessor" in d for d in decisions)
    assert not any("Click" in d or "drone synth" in d or "Would you like" in d
                   for d in decisions)


def test_writing_plan_modes_plan_file_decides_nothing_about_the_code():
    session = (
        Session().prompt("report corrupted archives in the manifest")
        .say("This is a different task than the tar support, so instead of editing the old "
             "plan I'll overwrite the plan file with a new proposal because it is stale.")
        .tool("Write", {"file_path": "/home/dev/.claude/plans/cozy-otter.md", "content": "x"},
              {"type": "create"})
    )
    assert found(session.extract(), "decision") == []


def test_rules_in_a_page_the_person_pastes_are_the_pages_not_the_teams():
    page = "\n\n".join(
        f"Section {n}. It is strongly recommended never to mutate a tool environment "
        "manually, e.g. with a pip operation. By default, tools are always installed "
        "into the uv tools directory, and uvx uses them." for n in range(12))
    session = (
        Session().prompt(f"We need a cleaner way to reinstall. Does this doc page help?\n\n{page}")
        .say("Yes: `uv tool install --reinstall` rebuilds it.")
        .prompt("From now on always reinstall with uv tool install --reinstall, never by hand.")
        .say("Noted.")
    )
    rules = found(session.extract(), "constraint") + found(session.extract(), "preference")
    assert any("From now on" in r for r in rules)
    assert not any("mutate" in r or "uvx" in r for r in rules)


def test_what_the_assistant_asks_the_person_mid_session_is_settled_by_their_reply():
    session = (
        Session().worked(
            "make sudo passwordless on this mac",
            "etc/pam.d/sudo_local", "sudo -n true", "",
            "The PAM file is ready. Two ways to finish: Touch ID for sudo, or NOPASSWD "
            "(simpler but less secure). Which approach do you prefer?")
        .prompt("touch id, be cautious and verify at each step")
        .say("Then run `sudo -k && sudo true` yourself and touch the sensor: Touch ID now "
             "approves sudo. Continue with the FileVault settings?")
    )
    questions = found(session.extract(), "open_question")
    assert not any("Which approach" in q for q in questions)
    assert not any("Continue with" in q for q in questions)


def test_a_todo_lists_item_restated_by_the_wrap_up_is_one_todo_and_nothing_left_is_none():
    session = (
        Session().prompt("audit the security settings")
        .tool("TodoWrite", {"todos": [
            {"content": "Set up automated 3x daily log analysis schedule (Security logs)",
             "status": "pending", "activeForm": "Setting up"},
            {"content": "Audit firewall rules", "status": "completed", "activeForm": "x"}]},
            {"oldTodos": [], "newTodos": []})
        .bash("netsh advfirewall show allprofiles", "State ON")
        .edit("docs/audit.md")
        .say("Audit written.\n\nRemaining:\n- ⚠️ Set up automated 3x daily log analysis "
             "schedule\n\nAlready synced — no pending changes.")
    )
    todos = found(session.extract(), "todo")
    assert sum("log analysis schedule" in t for t in todos) == 1
    assert not any("no pending changes" in t for t in todos)


def test_never_mind_takes_something_back_and_is_no_rule():
    session = (
        Session().prompt("add a share button to the tokenizer page")
        .edit("public/tokenizer.js")
        .say("Added.")
        .prompt("Never mind! I found it was already there in the menu.")
        .say("OK.")
    )
    extraction = session.extract()
    assert not any("Never mind" in r for r in
                   found(extraction, "constraint") + found(extraction, "preference"))


def test_calls_the_permission_system_refused_tried_nothing():
    session = (
        Session().prompt("can claude -p use the Task tool with haiku? summarize")
        .bash("claude --help | head -100", "Usage: claude [options] [command] [prompt]")
        .tool("Bash", {"command": "claude -p 'list your tools'"},
              "This command requires approval", error=True,
              content="This command requires approval")
        .say("Let me try a different approach - check the documentation or config files.")
        .tool("Read", {"file_path": "/home/dev/.claude/CLAUDE.md"},
              "Claude requested permissions to read from /home/dev/.claude/CLAUDE.md, but "
              "you haven't granted it yet.", error=True,
              content="Claude requested permissions to read from /home/dev/.claude/CLAUDE.md, "
                      "but you haven't granted it yet.")
        .say("## Summary\n\n- Yes, `claude -p` can use the Task tool via the default toolset "
             "instead of a flag\n- Tools can be controlled via `--allowedTools` and "
             "`--disallowedTools` flags only")
    )
    extraction = session.extract()
    assert found(extraction, "failed_attempt") == []
    assert found(extraction, "decision") == []  # a summary of findings built nothing


def test_a_checklists_few_words_about_rules_are_no_rule():
    session = (
        Session().prompt("Analyze the router logs.\n\nRequired analysis:\n- Firewall rule "
                         "violations\n- QoS rule effectiveness\n- Inefficient firewall rules\n\n"
                         "Important: never restart the router while I'm on a call.")
        .bash("ssh router logread | tail -200", "kernel: ok")
        .say("Nothing alarming in the last 200 lines.")
    )
    rules = found(session.extract(), "constraint")
    assert any("never restart the router" in r for r in rules)
    assert not any("QoS" in r or "Firewall rule violations" in r for r in rules)


def test_the_questions_and_offers_a_last_reply_lists_for_the_person_are_not_open():
    session = (
        Session().prompt("push the router changes to M-Claude")
        .bash("git status", "On branch main\nNo commits yet")
        .edit("notes/router.md")
        .say("The changes were made on the router itself.\n\n**What would you like to "
             "do?**\n\n1. **Create documentation of the router changes?**\n2. **Export the "
             "router configuration?**\n\nCould you provide more details about:\n- What is "
             "M-Claude exactly?\n- What content should be pushed there?\n\nThe app shows "
             "your remaining quota in the menu bar.")
    )
    extraction = session.extract()
    left = found(extraction, "open_question") + found(extraction, "todo")
    assert left == []


def test_choosing_to_talk_about_questions_is_not_a_rejection_with_feedback():
    clarify = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
               "(eg. if it was a file edit, the new_string was NOT written to the file). To "
               "tell you how to proceed, the user said:\nThe user wants to clarify these "
               "questions.\n    This means they may have additional information, context or "
               "questions for you.\n    Take their response into account and then reformulate "
               "the questions if appropriate.")
    session = (
        Session().prompt("build a tiling window manager for macOS")
        .tool("AskUserQuestion", {"questions": [{"question": "Which API?", "options": []}]},
              clarify, error=True, content=clarify)
        .prompt("add the important research context to the plan and we'll start fresh")
        .say("Added.")
    )
    extraction = session.extract()
    assert found(extraction, "failed_attempt") == []
    assert found(extraction, "constraint") == []


def test_a_comparison_tables_rows_are_not_the_reason_for_a_change():
    session = (
        Session().prompt("pick the window API")
        .say("| **A) AXUIElement** | No SIP disable, works with most apps instead of few | "
             "Slower |\n| **B) Private APIs** | Faster because they skip the server | May "
             "break |")
        .edit("Sources/Window/Tracker.swift")
        .say("Done.")
    )
    assert not any(d.startswith("|") or "AXUIElement" in d
                   for d in found(session.extract(), "decision"))


def test_a_decision_the_whole_session_ranks_below_its_best_gives_way(tmp_path):
    """Each Stop keeps the session's best few decisions: one an earlier turn kept that later
    ones crowd out is archived, unless someone edited it; with room left, it stays."""
    from engram.capture.extract import MAX_DECISIONS, Extraction, Finding

    def decision(text: str) -> Finding:
        return Finding("decision", text, "pre-edit", importance=0.6)

    early = decision("Cache the rates in memory instead of Redis, because one worker runs it.")
    kept = decision("Paginate by cursor instead of offset, because rows are inserted live.")
    later = [decision(f"Decision number {n} instead of another way, because of reason {n}.")
             for n in range(MAX_DECISIONS)]

    def run(service, state, findings):
        extraction = Extraction(findings, None, [], None, False)
        return apply(service, extraction, project="shop", session_id=SESSION, state=state)

    with engram.open(tmp_path / "m.db", embedder="fake") as service:
        state: dict[str, Any] = {}
        first = run(service, state, [early, kept])
        early_id, kept_id = (m.id for m in first.saved)
        service.update(kept_id, in_place=True, content=kept.content + " (checked by Ana)")
        assert run(service, state, later[:3]).archived == []  # room left: none crowded out
        result = run(service, state, later)
        assert result.archived == [early_id]
        assert service.get(early_id).status == "archived"
        assert service.get(kept_id).status == "active"  # edited since: theirs stands


def test_an_earlier_wrap_ups_choices_give_way_to_the_last_wrap_ups_own(tmp_path):
    """A turn's wrap-up restates or revises the one before: once the last wrap-up states
    choices of its own, an earlier one's are archived (a long session would otherwise keep
    every turn's last word); a last wrap-up that states none leaves them, and a pre-edit
    reason is not a wrap-up's."""
    from engram.capture.extract import Extraction, Finding

    def wrap_up(text: str) -> Finding:
        return Finding("decision", text, "wrap-up", importance=0.6)

    first = wrap_up("Rates are cached in memory instead of Redis, since one worker runs it.")
    reason = Finding("decision", "Cursor pagination instead of offsets, as rows arrive live.",
                     "pre-edit", importance=0.6)
    last = wrap_up("The cache now lives in Postgres instead of memory, so all pods agree.")

    def run(service, state, findings):
        extraction = Extraction(findings, None, [], None, False)
        return apply(service, extraction, project="shop", session_id=SESSION, state=state)

    with engram.open(tmp_path / "m.db", embedder="fake") as service:
        state: dict[str, Any] = {}
        first_id, reason_id = (m.id for m in run(service, state, [first, reason]).saved)
        assert run(service, state, [reason]).archived == []  # the last word states no choice
        assert run(service, state, [reason, last]).archived == [first_id]
        assert service.get(first_id).status == "archived"
        assert service.get(reason_id).status == "active"
        assert [m.content for m in service.list(types=["decision"])].count(last.content) == 1


def test_a_refusal_in_the_ide_with_words_is_the_persons_feedback_not_a_failure():
    """The VS Code extension records "stop, do this instead" as the tool's error text."""
    session = (
        Session().prompt("commit the tokenizer files")
        .tool("Bash", {"command": "git add -A && git commit -m 'Add tokenizer'"},
              "Error: please add transformers.js too first", error=True,
              content="please add transformers.js too first")
        .bash("cp ../site/public/transformers.js . && git add transformers.js", "")
        .bash("git commit -m 'Add tokenizer'", "[main 030d80d] Add tokenizer")
        .tool("Bash", {"command": "npm install"}, "Error: use pnpm, we never use npm here",
              error=True, content="use pnpm, we never use npm here")
        .bash("pnpm install", "Done in 797ms")
        .say("Installed with pnpm.")
    )
    calls = transcript.parse_entries(session.entries).tools
    assert calls[0].rejected and calls[0].feedback == "please add transformers.js too first"
    extraction = session.extract()
    assert not any("transformers.js" in f.content for f in extraction.findings)
    assert any("pnpm" in r for r in found(extraction, "constraint"))
    too_big = ("File content (85812 tokens) exceeds maximum allowed tokens (25000). Please use "
               "offset and limit parameters to read specific portions of the file, or use the "
               "GrepTool to search for specific content.")
    read = Session().prompt("tidy the parser").tool(
        "Read", {"file_path": f"{CWD}/lib/parser.ex"}, f"Error: {too_big}", error=True,
        content=too_big)
    [call] = transcript.parse_entries(read.entries).tools
    assert not call.rejected and call.feedback is None  # Claude Code's words, not the person's
    glob = "Glob patterns are not allowed in write operations. Please specify an exact file path."
    write = Session().prompt("add the layout files").tool(
        "Write", {"file_path": f"{CWD}/Sources/*.swift", "content": "x"}, f"Error: {glob}",
        error=True, content=glob)
    [call] = transcript.parse_entries(write.entries).tools
    assert not call.rejected and call.feedback is None


def test_a_log_pasted_into_a_prompt_is_not_the_persons_report():
    item = ("You'll get a warning and cannot delete the last model</li> <li>Errors: a failed "
            "load shows an error</li>")
    har = "\n".join(f'          "value": "line {n}: {item}"' for n in range(5))
    session = (
        Session().worked(
            "move the tokenizer into public/tokenizer",
            "next.config.js", "npm run build", "Compiled successfully",
            "Moved.")
        .prompt("Are you sure the HTML is the issue? That's the only thing that loaded, I "
                "could see the page.\n\nThis is the full HAR:\n\n{\n  \"log\": {\n"
                f"{har}\n  }}\n}}")
        .say("You're right, the HTML loaded but the CSS and JS requests failed.")
        .edit("next.config.js", "a", "c")
        .say("Added a rewrite for the assets.")
    )
    [report] = found(session.extract(), "bug_note")
    assert "Are you sure the HTML is the issue" in report and "cannot delete" not in report


def test_how_a_thing_works_for_you_is_not_work_left_for_you():
    session = (
        Session().prompt("make the extractor installable with uv tool")
        .edit("pyproject.toml")
        .bash("uv tool install --reinstall .", "Installed 1 executable: coderabbit-extract")
        .say("Installed.\n\n- **Force reinstall**: `uv tool upgrade --reinstall "
             "coderabbit-extract` - when you need to force a complete rebuild\n- Resuming "
             "requires the agent still "
             "to be running; once it has returned, you have to spawn a fresh one.\n\nYou'll "
             "need to add `~/.local/bin` to your PATH on the CI runner.")
    )
    todos = found(session.extract(), "todo")
    assert any("PATH" in t for t in todos)
    assert not any("Force reinstall" in t or "spawn a fresh" in t for t in todos)


def test_what_a_turn_found_out_by_looking_and_the_person_accepted_is_a_project_fact():
    session = (
        Session().prompt("what's the program that runs at login and records when I hold Fn?")
        .bash("ls ~/Library/LaunchAgents/", "com.voicemode.whisper.plist")
        .say("It's VoiceMode: a LaunchAgent starts whisper-server at login from "
             "~/Library/LaunchAgents/com.voicemode.whisper.plist and keeps it alive.")
        .prompt("I don't think that's it. It's something else, I hold down Fn and it records")
        .bash("launchctl list | grep -i wispr", "4242\t0\thomebrew.mxcl.open-wispr")
        .say("**Open Wispr**, installed via Homebrew and started by its LaunchAgent "
             "homebrew.mxcl.open-wispr; the app is /opt/homebrew/opt/open-wispr/OpenWispr.app. "
             "What's the issue with it?")
        .prompt("It's working now, thanks")
        .say("Glad it works.")
    )
    facts = found(session.extract(), "project_fact")
    assert len(facts) == 1, facts  # the answer the person disputed is none
    assert "Open Wispr" in facts[0] and "Homebrew" in facts[0] and "hold down Fn" in facts[0]
    assert "What's the issue" not in facts[0]


def test_what_a_machine_answered_over_ssh_is_a_project_fact_and_a_change_there_is_not():
    looked = (
        Session().prompt("is docker on the router?")
        .bash('ssh -o ConnectTimeout=10 root@192.168.8.1 "docker ps -a && which docker"',
              "CONTAINER ID   IMAGE   COMMAND\n/usr/bin/docker")
        .say("Docker is installed on your router at `/usr/bin/docker`, but there are no "
             "containers, running or stopped.")
    )
    facts = found(looked.extract(), "project_fact")
    assert len(facts) == 1 and "/usr/bin/docker" in facts[0], facts
    changed = (
        Session().prompt("is docker on the router?")
        .bash('ssh root@192.168.8.1 "opkg install dockerd"', "Installing dockerd")
        .say("Docker was not there: it is installed on your router now, at /usr/bin/docker, "
             "and its service starts at boot.")
    )
    assert found(changed.extract(), "project_fact") == []


def test_a_finding_that_points_to_what_it_shows_keeps_what_it_shows():
    session = (
        Session().prompt("where does claude code keep the conversation of this dir?")
        .bash("ls -la ~/.claude/projects/-home-ana-shop", "75bbee08-a253.jsonl")
        .say("The conversation for this directory is stored at:\n\n```\n"
             "~/.claude/projects/-home-ana-shop/75bbee08-a253.jsonl\n```\n\nOr, in full:\n"
             "```\n/home/ana/.claude/projects/-home-ana-shop/75bbee08-a253.jsonl\n```")
    )
    facts = found(session.extract(), "project_fact")
    assert len(facts) == 1 and facts[0].endswith(
        "stored at: ~/.claude/projects/-home-ana-shop/75bbee08-a253.jsonl"), facts


def test_an_answer_from_the_projects_own_checks_or_acted_on_next_is_no_project_fact():
    diagnosed = (
        Session().prompt("why is the nightly job three hours instead of forty minutes?")
        .bash("curl -s http://spark-history:18080/api/v1/applications/app-1/stages",
              '[{"stageId": 7, "numTasks": 200}]')
        .say("One task of the join stage holds a third of all rows: 38% of events have "
             "user_id NULL, and a left join hashes every NULL key into one partition.")
        .prompt("ok, salt the null keys then")
        .edit("jobs/nightly_sessions.py")
        .say("Done: NULL keys get a random salt before the join, so they spread over all "
             "partitions; the stage is even again in the local run.")
    )
    assert found(diagnosed.extract(), "project_fact") == []
    checked = (
        Session().prompt("do the tests still pass on main?")
        .bash("pytest -q", "212 passed in 9.1s")
        .say("Yes: all 212 tests pass on main, in about nine seconds, nothing skipped or "
             "flaky in this run.")
    )
    assert found(checked.extract(), "project_fact") == []
    pushed = (
        Session().prompt("push the branch")
        .bash("git push -u origin staging-rds", "branch 'staging-rds' set up to track")
        .say("Pushed `staging-rds`: the RDS instance class is db.t3.large there, with "
             "Performance Insights on and apply_immediately still false.")
    )
    assert found(pushed.extract(), "project_fact") == []


def test_an_explanation_asked_out_of_curiosity_leaves_nothing_in_any_wording():
    for opening in ("quick question, not asking you to change anything: why does the "
                    "app flip to OutOfSync all day?",
                    "vraagje, ik wil niks veranderen: waarom springt de app op OutOfSync?",
                    "pergunta rápida, não é pra mexer em nada: por que o app fica OutOfSync?",
                    "tylko wyjaśnij, niczego nie zmieniaj: czemu aplikacja jest OutOfSync?"):
        session = (
            Session().prompt(opening)
            .bash("argocd app diff orders-api", "replicas: 3 -> 7")
            .say("It's `replicas`: Git says 3, the HorizontalPodAutoscaler set 7, Argo CD sees "
                 "7 ≠ 3, and selfHeal puts it back to 3, until the autoscaler scales again.")
            .prompt("ok clear, thanks, was just curious")
            .say("You're welcome.")
        )
        assert session.extract().findings == [], opening


def test_choosing_among_the_numbered_options_laid_out_is_a_decision_that_names_them():
    session = (
        Session().prompt("is there a gap in the Solana RWA space?")
        .bash("curl -s -X POST $API/search/projects -d '{\"query\": \"RWA\"}'", '{"results": []}')
        .say("Where the gaps are:\n\n**1. Unified RWA token standard** — no standard yet\n"
             "**2. Private credit on Solana** — nearly absent\n"
             "**3. Secondary market / liquidity layer**\n**4. RWA oracle / pricing**\n"
             "**5. Niche verticals**\n**6. Compliance/KYC tooling**")
        .prompt("quick: isn't number 4 already covered by pyth?")
        .say("Pyth prices liquid assets only; illiquid ones need NAV-based pricing.")
        .prompt("ok, ditch number 5 and 6. I'm most interested in private credit (number 2). "
                "dig into 1-4, buildable in a month by 3 people")
        .say("Will do.")
    )
    decisions = [d for d in found(session.extract(), "decision") if "ditch" in d]
    assert len(decisions) == 1, decisions
    assert "5. Niche verticals" in decisions[0] and "6. Compliance/KYC tooling" in decisions[0]
    assert "2. Private credit on Solana" in decisions[0]
    assert not any("isn't number 4" in d for d in found(session.extract(), "decision"))


def test_a_reply_as_short_as_yes_please_settles_the_question_the_wrap_up_ended_on():
    session = (
        Session().prompt("add a LICENSE file, MIT")
        .edit("LICENSE")
        .say("Done. The transcript of this session is in ~/.claude/projects/. Want me to "
             "copy it into the repository and commit it? Something like `session.jsonl`?")
        .prompt("yes please")
    )
    assert not any("session.jsonl" in q for q in found(session.extract(), "open_question"))


def test_switching_one_call_for_another_with_its_reason_is_a_decision():
    session = (
        Session().prompt("is it truly random? I need to be able to reason about it")
        .say("`Math.random()` is a seeded PRNG. For nobody-can-argue-it's-unfair territory, "
             "I'll swap to `crypto.getRandomValues()`, which reads the OS cryptographic RNG.")
        .edit("index.html", "Math.random()", "crypto.getRandomValues(buf)")
    )
    assert any("getRandomValues" in d and "unfair" in d
               for d in found(session.extract(), "decision"))


def test_queries_ask_and_change_nothing():
    from engram.capture.commands import is_query

    for asking in ("launchctl list | grep wispr", "ps aux | grep -i whisper",
                   "curl -s https://api.example.com/v1/status",
                   "curl -s -X POST $BASE/search/archives -d '{\"query\": \"rwa\"}'",
                   "RPC=$URL; for V in a b; do curl -s $RPC -d '{\"jsonrpc\": \"2.0\"}'; done",
                   "node /tmp/count_demo.mjs 2>&1", "python3 -c 'print(1)'",
                   "kubectl get pods -n prod", "argocd app diff orders-api"):
        assert is_query(asking), asking
    for changing in ("git push", "kubectl apply -f deploy.yaml", "curl -X POST $API/deploy",
                     "node scripts/migrate.js", "pytest -q", "ls src", "bd create 'x'",
                     "brew install jq"):
        assert not is_query(changing), changing


def test_a_finding_the_person_disputes_after_the_stop_that_kept_it_is_withdrawn(tmp_path, mem):
    session = (
        Session().prompt("what's the program that runs at login and records when I hold Fn?")
        .bash("ls ~/Library/LaunchAgents/", "com.voicemode.whisper.plist")
        .say("It's VoiceMode: a LaunchAgent starts whisper-server at login from "
             "~/Library/LaunchAgents/com.voicemode.whisper.plist and keeps it alive.")
    )
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    capture(mem, str(path), project="mac", cwd=CWD, state=state)  # the Stop after the answer
    [kept] = mem.list(types=["project_fact"])
    assert "VoiceMode" in kept.content
    session.prompt("I don't think that's it, it's something else").say("Let me look again.")
    result = capture(mem, str(session.write(path)), project="mac", cwd=CWD, state=state)
    assert kept.id in result.archived and mem.list(types=["project_fact"]) == []


def test_a_wrap_ups_question_in_a_list_is_not_how_something_was_built():
    from engram.capture.reading import design_items

    wrap_up = ("Restarted the server. Can you tell me more?\n"
               "- Is the `voicemode` button not working in Claude, or is transcription failing?\n"
               "- `whisper-server` now runs via its LaunchAgent instead of a shell loop")
    assert design_items(wrap_up) == [
        "`whisper-server` now runs via its LaunchAgent instead of a shell loop"]


def test_a_wrap_ups_diagnosis_is_the_bugs_cause_not_a_decision():
    session = (
        Session().prompt("the tokenizer page at /tokenizer/ loads without its css")
        .edit("public/tokenizer/index.html", 'href="tokenizer.css"', 'href="./tokenizer.css"')
        .bash("pnpm build", "Compiled successfully")
        .say("The problem is that when you open `/tokenizer` without the slash, the browser "
             "resolves relative paths from the site root instead of the folder.\n\n"
             "Every asset path in `index.html` now uses an explicit `./` prefix instead of a "
             "bare relative name, so it resolves under `/tokenizer/` wherever it is served.")
    )
    decisions = found(session.extract(), "decision")
    assert not any(d.startswith("The problem is") for d in decisions), decisions


def test_what_a_wrap_up_proposes_or_offers_after_the_work_decides_nothing():
    session = (
        Session().prompt("ship FW-005, the wallet-readiness demo")
        .edit("scripts/zerion-readiness.mjs")
        .bash("pnpm build", "Compiled successfully")
        .say("Both commits landed. The readiness script wraps the Zerion CLI instead of "
             "calling its REST API, so no API key lives in our code.\n\n"
             "**If you agree**, the follow-up I'd run as a single docs pass:\n\n"
             "1. Update `SUBMISSION.md` so Expense Proof is named as planned rather than "
             "shipped, to avoid the claims-to-avoid trap.\n"
             "2. Mark FW-007 done in `issues.md`.\n\n"
             "If you'd rather keep the brief in its own `docs/partners.md` instead of inline, "
             "say the word and I'll move it.\n\n"
             "Want me to (a) run items 1+2, or (b) do something different? I haven't touched "
             "anything yet — call it.")
    )
    extraction = session.extract()
    decisions = found(extraction, "decision")
    assert any("Zerion CLI instead of" in d for d in decisions), decisions
    assert not any("SUBMISSION.md" in d or "say the word" in d for d in decisions), decisions
    assert not any("haven't touched" in t for t in found(extraction, "todo"))


def test_the_reasoned_choices_of_the_final_wrap_up_are_decisions_not_every_earlier_ones():
    earlier = ("The exporter buffers rows in memory instead of streaming them, because the "
               "first version only has to handle a few hundred orders.\n\n- done")
    final = ("The export now streams rows with a server-side cursor instead of buffering "
             "them, because March alone had 400k payments.\n\n- done")
    session = (
        Session().prompt("add a CSV export of payments")
        .edit("export.py").say(earlier)
        .prompt("it runs out of memory on March, fix it")
        .edit("export.py").say(final)
    )
    decisions = found(session.extract(), "decision")
    assert any("server-side cursor instead of buffering" in d for d in decisions), decisions
    assert not any("buffers rows in memory" in d for d in decisions), decisions


def test_work_asked_for_in_the_last_request_and_carried_out_is_no_todo():
    asked = ("now we have a cache so we should change the TUI to launch the session page "
             "rather than regenerate it")
    done = (Session().prompt(asked).edit("claude_code_log/tui.py")
            .say("The TUI now opens the cached session page.\n\n- no regeneration"))
    assert found(done.extract(), "todo") == []
    later = (Session().prompt("add the cache for session pages").edit("cache.py")
             .say("Session pages are cached.\n\n- keyed by file and mtime")
             .prompt("nice. we should change the TUI to launch the cached page"))
    assert any("change the TUI" in t for t in found(later.extract(), "todo"))


def test_a_lesson_asked_for_or_a_tool_servers_write_is_no_project_fact():
    lesson = (
        Session().prompt("read https://spacy.io/api/doc and explain its content to me")
        .tool("WebFetch", {"url": "https://spacy.io/api/doc", "prompt": "summarise"},
              "Doc is a container for accessing linguistic annotations …")
        .say("`Doc` is a sequence of `Token` objects; `Span` is a slice of it. Each token "
             "carries its lemma, its part of speech and its morphology in `token.morph`.")
    )
    assert found(lesson.extract(), "project_fact") == []
    onboarded = (
        Session().prompt("initialise a Serena project so you keep memories")
        .tool("mcp__serena__onboarding", {}, "Onboarding complete")
        .tool("mcp__serena__write_memory", {"name": "overview", "content": "…"}, "written")
        .say("Serena project initialised and onboarding complete: six persistent memories "
             "were written about the project's layout, commands and conventions.")
    )
    assert found(onboarded.extract(), "project_fact") == []


def test_a_format_check_or_a_failure_that_names_nothing_with_no_why_is_no_bug_note():
    session = (
        Session().prompt("add the orders paging source")
        .edit("feature/orders/OrdersPagingSource.kt")
        .bash("./gradlew detekt", "BUILD FAILED in 9s", failed=True)
        .edit("feature/orders/OrdersPagingSource.kt", "a", "c")
        .bash("./gradlew detekt", "BUILD SUCCESSFUL in 7s")
        .bash("git commit -m 'paging'", "Pre-commit validation failed: [FORMAT] Code is not "
              "formatted.", failed=True)
        .bash("mix format", "")
        .bash("git commit -m 'paging'", "[main 1a2b3c4] paging")
    )
    assert found(session.extract(), "bug_note") == []


def test_a_compiler_or_linter_error_fixed_without_a_word_of_why_is_no_bug_note():
    def fixed(error: str, said: str) -> list:
        session = (
            Session().prompt("wire the socket client into the start command")
            .edit("src/commands/start.ts")
            .bash("npm run lint", f"src/commands/start.ts\n  3:8  error  {error}",
                  failed=True)
            .say(said)
            .edit("src/commands/start.ts", "a", "c")
            .bash("npm run lint", "")
        )
        return found(session.extract(), "bug_note")

    # The edit-build loop: tsc codes, ESLint rules (the plugin's or its own), told nothing.
    for error in ("'axios' is defined but never used  @typescript-eslint/no-unused-vars",
                  "'module' is not defined  no-undef",
                  "Unused eslint-disable directive (no problems were reported from "
                  "'unicorn/prefer-event-target')",
                  "src/a.ts(12,5): error TS2304: Cannot find name 'logger'."):
        assert fixed(error, "Let me clean up the test files and fix the main linting "
                            "issues:") == [], error
    # The same diagnostic with its cause explained, or an error that is no diagnostic,
    # stays a bug note.
    assert fixed("'module' is not defined  no-undef", "The playground project is plain "
                 "CommonJS, so ESLint must ignore it rather than lint it as ESM.")
    assert fixed("Error: Timeout of 5000ms exceeded in the spawn test",
                 "Let me clean up the test files:")


def test_two_ways_weighed_in_a_request_and_the_one_leaned_to_is_a_decision():
    prompt = ("I want to persist the timer state in the browser tab, but I'm not sure if I "
              "should use local storage or index DB. But what I think is going to happen is "
              "that the timer list is very small. So writing the same value over and over "
              "again is probably fine. And local storage might be good enough.")
    built = Session().prompt(prompt).edit("storage.ts").say("Profiles persist in localStorage.")
    decisions = found(built.extract(), "decision")
    assert len(decisions) == 1
    assert decisions[0].startswith("local storage rather than index DB")
    assert "timer list is very small" in decisions[0]
    # Weighed but not leaned to, or nothing built: no decision of theirs yet.
    undecided = Session().prompt("should we use Redis or Postgres for the queue? both seem "
                                 "heavy for twenty jobs a day").edit("queue.py")
    assert found(undecided.extract(), "decision") == []
    asked = Session().prompt(prompt).say("localStorage fits: a small list rewritten whole.")
    assert found(asked.extract(), "decision") == []


def test_the_person_settling_what_was_asked_in_their_own_words_is_a_decision():
    session = (
        Session().prompt("I don't want it to only work for me: a cross-platform dev server?")
        .say("A minimal `package.json` with a dev server works anywhere Node does. Option 1: "
             "Vite (fast, modern). Option 2: `serve` (dead simple). Or shall I just go with "
             "Vite?")
        .prompt("ok, fine, let's do vite")
        .edit("package.json")
        .say("Vite is set up: `npm install`, then `npm run dev`.")
        .prompt("let's make it cross-browser too")
        .edit("js/recorder.js")
        .say("Done. Should I also add a `preview` script for the production build?")
        .prompt("yes, let's do it")
        .edit("package.json")
    )
    decisions = [d for d in found(session.extract(), "decision") if "let's" in d]
    assert decisions == ["ok, fine, let's do vite (answering: Or shall I just go with Vite?)"]


def test_a_symptom_told_in_the_persons_language_and_found_it_are_the_bug_and_its_cause():
    session = (
        Session().prompt("A exportação de relatórios falha de vez em quando: o ficheiro nunca "
                         "aparece. No worker aparece um DoesNotExist. Vê o que se passa.")
        .bash("docker compose logs celery | tail -20", "ERROR Relatorio.DoesNotExist")
        .say("Encontrado. Com `ATOMIC_REQUESTS = True` a tarefa é enviada dentro da transação. "
             "O worker pode apanhar a tarefa antes do COMMIT e o registo ainda não existe. "
             "Depende de quem ganha a corrida, por isso é intermitente.")
        .edit("relatorios/views.py", "gerar.delay(pk)",
              "transaction.on_commit(lambda: gerar.delay(pk))")
        .bash("pytest -q", "12 passed in 1.1s")
    )
    extraction = session.extract()
    [bug] = found(extraction, "bug_note")
    assert "DoesNotExist" in bug and "antes do COMMIT" in bug, bug
    assert found(extraction, "constraint") == []  # "nunca aparece", "No worker" forbid nothing


def test_what_never_happens_and_a_pasted_log_line_are_no_rules():
    for said in ("o ficheiro nunca aparece", "the callback never fires on Android",
                 'ERROR  [Error: No "projectId" found. You have to pass it in yourself.]',
                 "en el Pixel no pide permiso y no llega nada",
                 "and we still don't clean up the old Jobs when a schedule is deleted",
                 "(node:73245) ExperimentalWarning: `--experimental-loader` may be removed in "
                 "the future; instead use `register()`:",
                 "This test succeeds when it should not - we never get the response from claude.",
                 "Explain to me how to run the project, don't actually run",
                 # a symptom, and a terminal's framed output, are no rules either
                 "the progress bar don't show the progress of the donations",
                 "the filter buttons at the top don't work.",
                 "│ │ ;; connection timed out; no servers could be reached │ │"):
        assert rule_type(said) is None, said
    assert rule_type("note everything touching the partner sftp goes through the sftp pool, "
                     "they block our IP above 3 connections") == "constraint"
    for said in ("please don't show the password in the logs", "don't work on main directly",
                 "we don't run migrations on Fridays"):
        assert rule_type(said) == "constraint", said


def test_work_interrupted_after_an_earlier_wrap_up_is_the_summarys_outcome():
    session = (
        Session().prompt("persist the timer profiles in the browser")
        .edit("storage.ts")
        .say("## Implementation Complete!\n\nProfiles are saved in localStorage and switch "
             "from the Storage drawer.")
        .prompt("when I create a timer the app hangs, fix it")
        .edit("index.tsx")
        .prompt("[Request interrupted by user]")
    )
    outcome = session.extract().summary.content.splitlines()[-1]
    assert outcome.startswith("Outcome: not finished: interrupted while working on: when I "
                              "create a timer"), outcome
    finished = (Session().prompt("persist the timer profiles in the browser")
                .edit("storage.ts")
                .say("Profiles are saved in localStorage and switch from the Storage drawer.\n\n"
                     "- the example buttons create a fresh profile\n- deleting the last "
                     "profile is refused"))
    assert finished.extract().summary.content.splitlines()[-1].startswith(
        "Outcome: Profiles are saved in localStorage")


def test_a_session_ending_on_a_hypothesis_nobody_acted_on_leaves_a_todo():
    hypothesis = ("Based on the app's encryption code, here is my hypothesis:\n\n## Hypothesis: "
                  "Encryption mismatch\n\nThe decryption errors stem from the app using "
                  "`tweetnacl.secretbox` with a nonce prepended, while the CLI only "
                  "base64-decodes.")
    session = (
        Session().worked(
            "relay the app's messages to the CLI over the socket",
            "src/socket/client.ts", "npm run build", "",
            "The CLI now joins the session room and relays every message it receives.\n\n"
            "- reconnects with backoff\n- logs each update")
        .prompt("messages from the app still fail to decrypt, look into it")
        .tool("Read", {"file_path": f"{CWD}/src/sync/encryption.ts"}, "export function …")
        .say(hypothesis)
        .tool("TodoWrite", {"todos": [{"content": "Investigate the mismatch",
                                       "status": "completed"}]}, "ok")
    )
    [todo] = found(session.extract(), "todo")
    assert todo.startswith("Unsolved at the end: Hypothesis: Encryption mismatch"), todo
    assert "secretbox" in todo
    acted_on = session.edit("src/auth/crypto.ts").say("Switched the CLI to secretbox.")
    assert found(acted_on.extract(), "todo") == []


def test_work_the_person_puts_off_in_passing_is_a_todo_and_a_question_keeps_its_context():
    session = (
        Session().worked(
            "review #88 please, just findings",
            "test/Poc.t.sol", "forge test", "Suite result: ok. 3 passed",
            "Review text is in /tmp/review-88.md.")
        .prompt("thx. one thing I'm not sure about: do we even want to support fee-on-transfer "
                "tokens here? leave it open, I'll bring it up friday. and slither in CI is "
                "overdue, I'll ask Lena after the audit. debounce later, the README I'll do "
                "myself")
    )
    extraction = session.extract()
    questions, todos = found(extraction, "open_question"), found(extraction, "todo")
    assert [q for q in questions if "fee-on-transfer" in q] == [
        "one thing I'm not sure about: do we even want to support fee-on-transfer tokens "
        "here? leave it open, I'll bring it up friday."], questions
    assert any("slither" in t and "Lena" in t for t in todos), todos
    assert not any("slither" in q for q in questions), questions
    assert any(t.startswith("debounce later") for t in todos), todos
    assert Session().prompt("great, see you later").extract().findings == []


def test_a_try_the_error_names_and_the_rewrite_takes_out_is_a_failed_attempt():
    use = ("db.$use(async (params, next) => {\n  if (params.model === 'Cliente') "
           "params.args.where = { ...params.args.where, excluidoEm: null }\n"
           "  return next(params)\n})")
    session = (
        Session().prompt("soft delete for Cliente please")
        .say("For the central filter I'll use a Prisma middleware:")
        .edit("src/server/db.ts", "export const db = new PrismaClient();",
              f"export const db = new PrismaClient();\n\n{use}")
        .bash("pnpm tsc --noEmit 2>&1 | tail -3",
              "src/server/db.ts(7,4): error TS2339: Property '$use' does not exist on type "
              "'PrismaClient'.")
        .say("`$use` was removed in Prisma 6; the current way is a client extension. Swapping:")
        .tool("Write", {"file_path": f"{CWD}/src/server/db.ts",
                        "content": "export const db = new PrismaClient().$extends({})\n"}, "ok")
        .bash("pnpm tsc --noEmit", "")
    )
    [attempt] = found(session.extract(), "failed_attempt")
    assert "middleware" in attempt and "removed in Prisma 6" in attempt, attempt
    first = "const entrega = addDays(hoy(), pedido.envio.dias);\nconst texto = formatear(entrega);"
    tweak = (  # the rewrite keeps what the error named: a line touched up, nothing given up
        Session().prompt("show the delivery date")
        .edit("ResumenPedido.tsx", "const a = 1;", first)
        .bash("pnpm tsc --noEmit 2>&1 | tail -3", "error TS18048: 'pedido.envio' is possibly "
              "'undefined'.")
        .edit("ResumenPedido.tsx", first, "const dias = pedido.envio?.dias;\n"
              "const texto = dias ? formatear(addDays(hoy(), dias)) : null;")
        .bash("pnpm tsc --noEmit", "")
    )
    assert found(tweak.extract(), "failed_attempt") == []


def test_a_change_the_person_turns_down_decided_nothing():
    session = (
        Session().prompt("the export sometimes fails with DoesNotExist in the worker")
        .say("The quickest way to remove the race, which is why it is intermittent: delay "
             "the task a little so the transaction commits first.")
        .edit("views.py", "gerar.delay(pk)", "gerar.apply_async((pk,), countdown=2)")
        .prompt("countdown no. that's a bet: with a slow DB it fails again, doesn't work")
        .say("You're right. I'm reverting it and using transaction.on_commit instead.")
        .edit("views.py", "gerar.apply_async((pk,), countdown=2)",
              "transaction.on_commit(lambda: gerar.delay(pk))")
    )
    extraction = session.extract()
    assert not any("delay the task" in d for d in found(extraction, "decision"))
    assert any("delay the task" in a for a in found(extraction, "failed_attempt"))


def test_a_check_that_fails_run_another_way_named_in_words_is_how_checks_run_here():
    session = (
        Session().prompt("the operator burns a core in staging, find out why")
        .bash("go test ./internal/controller/... 2>&1 | tail -6",
              "FAIL github.com/acme/op/internal/controller 0.41s")
        .say("Plain `go test` can't start envtest here: there's no etcd. The Makefile's test "
             "target downloads the binaries with setup-envtest, so `make test` is the way.")
        .bash("make test 2>&1 | tail -5", "ok  github.com/acme/op/internal/controller 9.8s")
    )
    [route] = found(session.extract(), "failed_attempt")
    assert route.startswith("`go test ./internal/controller/...` failed")
    assert "setup-envtest" in route


def test_a_try_announced_then_put_back_in_part_is_what_the_failed_attempt_names():
    session = (
        Session().prompt("the controller reconciles the same object in a hot loop, fix it")
        .say("Every pass writes status. Before touching the watch setup I'll try the cheap "
             "thing: an explicit RequeueAfter so it isn't retried immediately.")
        .edit("controller.go", "return ctrl.Result{}, nil\n}",
              "return ctrl.Result{RequeueAfter: 5 * time.Minute}, nil\n}")
        .bash("make test 2>&1 | tail -3", "--- FAIL: TestReconcileCount (0.11s)\n"
              "expected <= 1, got 41")
        .say("Still 41 reconciles, so the requeue isn't what drives it: the status write is a "
             "watch event. RequeueAfter was the wrong lever; reverting it.")
        .edit("controller.go", "return ctrl.Result{RequeueAfter: 5 * time.Minute}, nil",
              "return ctrl.Result{}, nil")
    )
    extraction = session.extract()
    [attempt] = found(extraction, "failed_attempt")
    assert attempt.startswith("Tried: Before touching the watch setup I'll try the cheap thing")
    assert found(extraction, "decision") == []  # neither the try nor taking it back decided


def test_a_review_keeps_its_findings_and_a_file_made_then_deleted_decides_nothing():
    session = (
        Session().prompt("can you review #88 (advisor vesting, from Jonas)? just findings")
        .say("To prove the overflow rather than claim it, because a claim is cheap, a quick "
             "fuzz test instead of reading the math by hand:")
        .tool("Write", {"file_path": f"{CWD}/test/Poc.t.sol", "content": "contract Poc {}"},
              "ok")
        .bash("forge test --match-contract Poc", "Suite result: ok. 1 passed")
        .bash("rm test/Poc.t.sol && git status --short", "")
        .say("Review text:\n\n**Blocking**\n1. `release()` transfers before `released` is "
             "updated; re-entrancy with hook tokens. Effects first.\n2. `start + duration` "
             "overflows in `uint64`, so nobody can ever release.\n\n**Question for Jonas**\n"
             "- where are allocations set? only via stdstore in the tests\n\n"
             "Not done: I didn't run slither (not installed here), so nothing about it.")
    )
    extraction = session.extract()
    bugs = found(extraction, "bug_note")
    assert [b[:12] for b in bugs] == ["`release()` ", "`start + dur"], bugs
    assert found(extraction, "decision") == []
    plain = (Session().prompt("review the docs for typos").edit("docs/a.md")
             .say("Fixed:\n- teh → the in the intro paragraph of the guide\n"
                  "- recieve → receive in the API reference section"))
    assert found(plain.extract(), "bug_note") == []


def test_a_review_finding_laid_out_as_labelled_fields_is_one_finding():
    session = (
        Session().prompt("review the protection of our main branch: how did a direct "
                         "push get past it? just findings")
        .bash("gh api repos/acme/app/branches/main/protection",
              '{"enforce_admins": {"enabled": false}, "required_pull_request_reviews": '
              '{"required_approving_review_count": 0}}')
        .say("FINDINGS:\n\nGap #1: Admins Can Bypass All Protections\n"
             "- Setting: `enforce_admins` = false\n"
             "- Impact: the repository owner can push straight to main, past the checks\n"
             "- Severity: CRITICAL\n\n"
             "Gap #2: No Approvals Required\n"
             "- Setting: `required_approving_review_count` = 0\n"
             "- Impact: even a pull request needs nobody to review it\n")
    )
    extraction = session.extract()
    bugs = found(extraction, "bug_note")
    assert len(bugs) == 2, bugs
    assert bugs[0].startswith("Gap #1: Admins Can Bypass All Protections — Setting:")
    assert "push straight to main" in bugs[0] and "Severity: CRITICAL" in bugs[0]
    assert "required_approving_review_count" in bugs[1]
    # what the forge answered is the world outside the code: the session is not empty
    assert not extraction.empty
    assert len(found(extraction, "project_fact")) == 1


def test_a_bug_found_on_the_way_and_fixed_is_a_bug_note():
    session = (
        Session().prompt("write tests for the porcelain parser")
        .edit("tests/parse_spec.lua")
        .say("The tests found a real bug: `author-time` is kept as a string. LuaJIT's os.date "
             "coerces it silently, but that is luck. Fixing it in one line.")
        .edit("lua/parse.lua", "info.time = value", "info.time = tonumber(value)")
        .bash("make test", "7 passed")
    )
    [bug] = found(session.extract(), "bug_note")
    assert "author-time" in bug and "string" in bug


def test_what_the_person_says_of_a_call_they_stopped_is_no_verdict_on_the_change_before():
    session = (
        Session().prompt("push notifications when the order ships")
        .edit("src/notificaciones.ts")
        .say("Lo registro al arrancar la app y pruebo en el emulador:")
        .tool("Bash", {"command": "npx expo start --android"},
              "The user doesn't want to proceed with this tool use.", error=True)
        .prompt("no arranques metro desde aquí, se queda colgado y ya lo tengo abierto en otra "
                "terminal")
        .say("Entendido.")
    )
    extraction = session.extract()
    assert found(extraction, "failed_attempt") == []
    assert any("metro" in c for c in found(extraction, "constraint") + found(
        extraction, "preference"))


def test_what_was_imported_from_a_memory_note_goes_when_the_session_deletes_the_note(
        tmp_path, mem):
    from engram.hooks.capture import memory_file

    note = f"{tmp_path}/.claude/projects/shop/memory/feedback_dev_setup.md"
    content = ("- Before running the dev server locally, always run `just install` first\n"
               "- Run `mkdir -p data/` at the project root: the SQLite database lives there\n")
    session = (
        Session().prompt("why didn't you run just install first?")
        .tool("Write", {"file_path": note, "content": content}, "ok")
        .say("Noted in my memory.")
        .prompt("please clear the memories you added, CLAUDE.md is the place")
        .edit("CLAUDE.md")
    )
    imported = memory_file(mem, {"tool_input": {"file_path": note, "content": content}},
                           "shop")
    assert len(imported) == 2
    path = session.write(tmp_path / "t.jsonl")
    state: dict[str, Any] = {}
    capture(mem, str(path), project="shop", cwd=CWD, state=state)
    assert len(mem.list(tags=["claude-memory"])) == 2  # still there: the note still is
    session.bash(f"rm {note} {tmp_path}/.claude/projects/shop/memory/MEMORY.md", "")
    result = capture(mem, str(session.write(path)), project="shop", cwd=CWD, state=state)
    assert mem.list(tags=["claude-memory"]) == []
    assert {m.memory.id for m in imported} <= set(result.archived)


def test_a_sentence_that_puts_work_off_and_states_a_rule_is_both():
    session = (
        Session().worked(
            "add idempotency keys to POST /payments",
            "src/main/kotlin/payments/Routes.kt", "./gradlew test", "BUILD SUCCESSFUL in 31s",
            "Done: keys are reserved with INSERT … ON CONFLICT DO NOTHING.")
        .prompt("good. cleanup I'll hang on the housekeeping worker tomorrow, NOT a new cron. "
                "on ne déploie jamais le vendredi, donc la migration attendra lundi.")
    )
    extraction = session.extract()
    todos = found(extraction, "todo")
    assert "cleanup I'll hang on the housekeeping worker tomorrow" in todos, todos
    assert "donc la migration attendra lundi." in todos, todos
    rules = found(extraction, "constraint")
    assert any("NOT a new cron" in r for r in rules) and any("jamais le vendredi" in r
                                                              for r in rules), rules


@pytest.mark.parametrize("said", [
    "Wenn das Limit greift, bitte 429 mit Retry-After-Header zurückgeben – darauf verlassen "
    "sich die Kunden-SDKs beim Backoff.",
    "не, кластер только через VPN, а он у меня сейчас выключен.",
    "dig into 1-4, buildable in a month by 3 people",
    "it has to run on the Pi 3, that's the kiosk hardware",
])
def test_what_others_rely_on_the_only_way_in_and_a_budget_to_fit_are_constraints(said):
    assert rule_type(said) == "constraint"
    assert rule_type("React se queja de hydration mismatch (solo por la noche)") is None


def test_a_reply_that_settles_what_the_wrap_up_left_undecided_is_a_decision():
    session = (
        Session().prompt("idempotency keys for POST /payments")
        .edit("routes/PaymentRoutes.kt")
        .say("Done. Not done: if the PSP call throws after the reservation, the key stays "
             "reserved. I think the reservation should be released on an exception, but that "
             "depends on whether the PSP might have charged anyway. What retry window does "
             "the mobile client use?")
        .prompt("release on exception only for PspUnavailable, anything else keep it and let "
                "ops look. the mobile window is 24h")
        .edit("routes/PaymentRoutes.kt", "service.create(body)",
              "try { service.create(body) } catch (e: PspUnavailable) { idem.release(key) }")
    )
    decisions = found(session.extract(), "decision")
    assert decisions == [
        "release on exception only for PspUnavailable, anything else keep it and let ops look. "
        "(answering: I think the reservation should be released on an exception, but that "
        "depends on whether the PSP might have charged anyway.)"], decisions


def test_a_check_whose_output_a_search_filtered_verifies_nothing_unless_it_shows_a_pass(
        tmp_path, mem):
    from engram.hooks.capture import verified_command

    def run(command: str, stdout: str):
        return verified_command(mem, {"tool_input": {"command": command}, "cwd": CWD,
                                      "tool_response": {"stdout": stdout}}, "shop")

    assert run("go test ./internal/web/... -run TestRow -v 2>&1 | grep -i token",
               "helpers_test.go:48: hx-headers on body: {&#34;X-CSRF-Token&#34;}") is None
    assert run("dotnet test 2>&1 | grep -E '^(Passed|Failed)!'",
               "Passed!  - Failed:     0, Passed:    64") is not None
    assert run("mix dialyzer --format short 2>&1 | grep -E '^lib/'", "") is not None  # clean
    assert run("go test ./internal/web/... -run TestRow", "ok  example/web 0.017s") is not None
    commands = sorted(m.meta["command"] for m in mem.list(types=["verified_command"]))
    assert commands == ["dotnet test", "go test ./internal/web/... -run TestRow",
                        "mix dialyzer --format short"]


@pytest.mark.parametrize("said", ["lo de la alerta le pregunto a Vale", "je demande à Paul pour "
                                  "le quota", "das mit dem Timeout frage ich Jonas"])
def test_a_question_the_person_takes_to_someone_themselves_is_handed_on(said):
    from engram.capture import lexicon

    assert lexicon.HANDOFF_RE.search(said)


def test_a_question_that_is_to_change_nothing_leaves_nothing_in_any_wording():
    asked = (
        Session().prompt("ちょっと質問です。修論を latexmk でビルドすると毎回 lualatex が"
                         "4回くらい走って3分かかります。なんで4回も走るのか知りたいだけなので、"
                         "ファイルは何も変えないでください")
        .tool("Read", {"file_path": f"{CWD}/latexmkrc"}, "$pdf_mode = 4;")
        .say("1回目の lualatex は目次と相互参照を書き出し、2回目以降で読み込むためです。")
    )
    assert asked.extract().findings == []
    assert rule_type("毎回 lualatex が4回走ります", asking=True) is None
    assert rule_type("毎回 lualatex が4回走ります") == "constraint"  # as a rule elsewhere


def test_an_inline_script_is_a_command_of_its_own():
    from engram.capture.commands import family

    assert family("Rscript -e 'devtools::test()'") != family(
        "head -3 x.csv && Rscript -e 'str(read.csv(\"x.csv\"))'")
    assert family("Rscript -e 'devtools::test()'") == family("Rscript -e  'devtools::test()'")
    assert family("python -m pytest -q") == family("python -m pytest -x")


def test_a_long_command_is_shown_as_its_family_with_the_switches_before_its_message():
    from engram.capture.commands import display_command

    commit = "cd ~/repo && git commit --no-gpg-sign -m \"$(cat <<'EOF'\nSync logs\n\n- a\nEOF\n)\""
    assert display_command(commit) == "git commit --no-gpg-sign"
    assert display_command("git commit -m \"$(cat <<'EOF'\nx\nEOF\n)\"") == "git commit"
    assert display_command("pytest -q tests/unit") == "pytest -q tests/unit"  # as typed


def test_a_program_the_shell_could_not_find_then_run_another_way_is_a_project_fact():
    session = (
        Session().prompt("do all the tests pass?")
        .bash("pytest", "/bin/bash: line 1: pytest: command not found", failed=True)
        .say("Need to activate the virtual environment.")
        .bash("(source .venv/bin/activate && pytest)", "40 passed in 1.2s")
        .edit("README.md")
    )
    extraction = session.extract()
    assert found(extraction, "project_fact") == [
        "`pytest` is not on the PATH here: it runs as `(source .venv/bin/activate && pytest)`"]
    assert found(extraction, "failed_attempt") == []
    never = (Session().prompt("build the docs")
             .bash("mkdocs build", "/bin/bash: mkdocs: command not found", failed=True)
             .edit("docs/index.md"))
    assert found(never.extract(), "project_fact") == []
    assert len(found(never.extract(), "failed_attempt")) == 1


def test_a_throwaway_run_in_a_scratch_folder_is_no_recipe():
    from engram.capture.commands import is_recipe

    assert not is_recipe("cd /tmp/zigtry && zig run main.zig", CWD)
    assert is_recipe("cd web && npm run build", CWD)


def test_what_claude_code_writes_in_the_assistants_place_is_not_the_assistants_words():
    session = Session().prompt("quick, what is NAV?").say(
        "**Net Asset Value**: the per-token price from the underlying assets' valuation.")
    session._entry("assistant", {"role": "assistant", "type": "message", "model": "<synthetic>",
                                 "content": [{"type": "text", "text": "No response requested."}]})
    parsed = transcript.parse_entries(session.entries)
    texts = [e.text for e in parsed.events if e.kind == "text"]
    assert texts == ["**Net Asset Value**: the per-token price from the underlying assets' "
                     "valuation."]


def test_two_verified_commands_that_differ_are_two_recipes_however_alike(tmp_path):
    from engram.hooks.capture import verified_command

    mem = engram.open(tmp_path / "m.db", embedder="bundled")  # their texts embed ~0.97 alike

    def run(command: str):
        return verified_command(mem, {"tool_input": {"command": command}, "cwd": CWD,
                                      "tool_response": {"stdout": "0 errors\nComplete!"}}, "web")

    for command in ("pnpm astro check", "pnpm astro check && pnpm build",
                    "pnpm astro check 2>&1 | tail -4"):
        run(command)
    recipes = sorted(m.meta["command"] for m in mem.list(types=["verified_command"]))
    mem.close()
    assert recipes == ["pnpm astro check", "pnpm astro check && pnpm build"]


@pytest.mark.parametrize("said", ["and shorter commit messages please, one line is enough",
                                  "keep the PR description short", "kürzere Commit-Messages bitte"])
def test_asking_for_less_of_something_is_a_preference(said):
    assert rule_type(said) == "preference"


@pytest.mark.parametrize("said, kind", [
    ("i hate .sh tests.", "preference"),
    ("I hate how you placed all the tests into a separate directory.", "preference"),
    ("ich hasse diese Shell-Skripte für Tests", "preference"),
    ("Also lets stop using relative imports like here", "constraint"),
    ("arrête d'utiliser des imports relatifs", "constraint"),
    ("I stopped the server before the migration", None),  # what was done, not a rule
    ("the worker should stop after the last job", None),
])
def test_a_dislike_or_a_habit_to_drop_is_a_rule(said, kind):
    assert rule_type(said) == kind


def test_a_version_still_supported_is_a_rule_and_a_feature_told_is_not():
    assert rule_type("we still support Python 3.9, keep the typing imports") == "constraint"
    assert rule_type("we support node 18 only") == "constraint"
    assert rule_type("New feature: we support .zip, but I've seen an archive that contains "
                     "embedded tar.gz.") is None


def test_remember_flags_a_rule_only_when_it_flags_what_follows():
    assert rule_type("remember to bump the version before tagging") == "constraint"
    assert rule_type("remember: staging runs on its own account") == "constraint"
    assert rule_type("remember lower bounds and upper bounds") is None  # the app is to


def test_a_wrap_ups_question_about_what_is_not_working_tells_no_attempt():
    session = (
        Session().prompt("the voice button does nothing")
        .edit("voicemode/server.py")
        .bash("pytest -q", "3 passed")
        .say("Restarted the whisper server.\n- Is the voicemode button not working in Claude, "
             "transcription failing, or something else?\n- The server logs are in ~/.voicemode")
    )
    assert found(session.extract(), "failed_attempt") == []


def test_it_is_not_working_after_a_restart_is_no_failed_attempt():
    """The person's "it's not working" after the assistant only restarted a service speaks
    of the app, not of a change that was tried; after a change, it is that change's verdict."""
    def session(*, changed: bool) -> Session:
        s = Session().prompt("restart openwhisper")
        if changed:
            s.edit("config.json", '"model": "base.en"', '"model": "small.en"')
        s.bash("pkill -f whisper-server; nohup whisper-server --port 8178 >/dev/null 2>&1 &",
               "").say("Killing and restarting with the same arguments. Whisper server "
                       "restarted successfully.")
        return s.prompt("IT's not working").say("Let me look at the logs.")

    assert found(session(changed=False).extract(), "failed_attempt") == []
    assert any("did not work: IT's not working" in a
               for a in found(session(changed=True).extract(), "failed_attempt"))


@pytest.mark.parametrize("said", [
    "the /health endpoint always returns 200 even when the db is down. that's the bug",
    "it always crashes on startup since the last pull",
    "get_user никогда не возвращает None, она кидает KeyError",
    "Die Methode `berechneSteuer()` gibt nie einen negativen Wert zurück",
    "Depuis la mise à jour le worker plante toujours au bout de 5 minutes",
    "El webhook de Stripe siempre llega dos veces, por eso se duplican los pagos.",
    "A fila do RabbitMQ nunca esvazia, os consumers ficam parados.",
    "每次启动都卡在 Loading config... 然后就没反应了",
    "このAPI、エラーでも常に200返してくるんですよ",
    "wow that's so much cleaner. never would've thought of a defaultdict there",
    "¡Qué crack! Nunca había visto resolver eso con un solo JOIN.",
    "don't run the full test suite this time, it takes 20 min",
    "на этот раз docker-compose.yml не трогай, я его сам поправлю",
    "hoy no toques la rama de carlos, está a medio rebase",
    "今日は本番デプロイしないでください、障害対応中なので",
    "no need to write tests for this spike, we're throwing it away tomorrow",
])
def test_what_a_thing_always_does_and_a_request_for_this_once_are_no_rules(said):
    assert [kind for kind, _ in rules_in(said)] == [], said


@pytest.mark.parametrize(("said", "kind"), [
    ("If you change anything under proto/ you have to run `make gen` in the same commit",
     "constraint"),
    ("Si tocas api/openapi.yaml, regenera el cliente con `npm run gen:api`.", "constraint"),
    ("This package has to keep working on Python 3.8, big customers are stuck on it",
     "constraint"),
    ("wir sind an node 16 gebunden bis das hosting umgestellt ist", "constraint"),
    ("Gel du code le 15 décembre : après ça, uniquement des correctifs.", "constraint"),
    ("we can't ship anything with GPL deps, legal will kill us", "constraint"),
    ("AGPL и GPL либы не тащим, у нас закрытый продукт", "constraint"),
    ("pls dont use moment anywhere, were migrating to date-fns", "constraint"),
    ("auf Prod läuft niemals ein --full-refresh auf fct_orders", "constraint"),
    ("Small thing: I find pytest parametrize way more readable than loops", "preference"),
    ("я люблю когда в тестах pytest.mark.parametrize, а не цикл", "preference"),
    ("Ich fänds schön, wenn die Tests nach Given/When/Then aufgebaut sind.", "preference"),
    ("respuestas cortas porfa, sin tanto rollo", "preference"),
    ("我比较喜欢提前 return 的写法，不喜欢 if 套 if", "preference"),
])
def test_conditions_platforms_freezes_licences_and_tastes_are_rules(said, kind):
    assert rule_type(said) == kind, said


def test_a_short_verdict_keeps_the_sentence_it_judges():
    """"No floats for money, that's an iron rule" names its subject one sentence earlier."""
    [(kind, rule)] = rules_in("все деньги храним в копейках, int64. никаких float для сумм, "
                              "это железное правило")
    assert kind == "constraint" and "копейках" in rule and "float" in rule
    [(_, rule)] = rules_in("画面の文言は全部 config/locales/ja.yml に入れてください。"
                           "ハードコード禁止です")
    assert "locales" in rule
    [(_, rule)] = rules_in("Fix the refund tests. Never touch the migrations.")
    assert rule == "Never touch the migrations."  # a whole order is no verdict


@pytest.mark.parametrize(("wrap_up", "kind", "words"), [
    ("Added rate limiting.\n\n### Before deploying\n- `REDIS_URL` is not set in production "
     "yet. You'll need to add it to the prod secrets.", "todo", "REDIS_URL"),
    ("## Upgrade\n\n### Erledigt\n- Spring Boot 3.1\n\n### Nicht erledigt\n- Der Test "
     "`ReportExportIT` schlägt fehl und ist noch rot.", "todo", "ReportExportIT"),
    ("## まとめ\n\n**対応済み**\n- 全文検索\n\n**残作業**\n- 本番環境でインデックスを作成する"
     "必要があります：`rails searchkick:reindex`", "todo", "searchkick"),
    ("### Spring Boot 3.2\n\n- 升级完成\n\n**遗留问题：**\n- `OrderServiceTest` 里有 2 个"
     "用例还是失败的，我还没处理。", "todo", "OrderServiceTest"),
    ("## 完了\n- 決済\n\n**確認したいこと**\n- 返金は管理画面から行いますか、Stripe で手動ですか",
     "open_question", "返金"),
    ("## 2FA\n\n**実装済み**\n- TOTP\n\n**検討事項**\n- SMS 認証にも対応しますか？コストと SIM "
     "スワップのリスクがあります。", "open_question", "SMS"),
    ("## Export\n\n- Done\n\n**Zu klären**\n- Sollen stornierte Bestellungen mit in den "
     "Export?", "open_question", "stornierte"),
])
def test_what_a_wrap_up_leaves_under_its_own_heading_is_open_work(wrap_up, kind, words):
    from engram.capture.reading import open_items

    assert any(k == kind and words in text for k, text in open_items(wrap_up)), open_items(wrap_up)


def test_a_todo_comment_removed_is_code_not_work_left_and_tests_left_red_are_no_attempt():
    from engram.capture.reading import open_items

    done = ("Done.\n\n**What I did**\n- Removed the old `# TODO: remove after v2 migration` "
            "comments\n- Updated imports\n\nNothing left open on my side.")
    assert open_items(done) == []
    extraction = (Session().prompt("upgrade rails").edit("Gemfile")
                  .say("## Rails 7\n\n### 完了\n- Rails を更新\n\n### 未完了\n- "
                       "`spec/system/checkout_spec.rb` の 2 件がまだ失敗しています。").extract())
    assert any("checkout_spec" in t for t in found(extraction, "todo"))
    assert not found(extraction, "failed_attempt")


@pytest.mark.parametrize(("said", "kind"), [
    ("from today on, always run the linter before committing", "constraint"),
    ("desde hoy siempre usamos pnpm", "constraint"),
    ("I love it, thanks!", None),
    ("I love it when the tests read like a spec", "preference"),
])
def test_from_today_on_is_lasting_and_loving_the_result_is_praise(said, kind):
    assert rule_type(said) == kind


def test_each_listed_rule_is_its_own_and_keeps_no_bold_marks():
    from engram.capture.reading import rules_in

    spec = ("Constraints for the payments service:\n"
            "- **Webhooks:** state transitions must never rely on the browser coming back to "
            "a success URL\n"
            "- **Idempotency:** every webhook must be processed exactly once\n"
            "- images siempre con <Image> de astro:assets, nunca <img> a pelo")
    assert [rule for _, rule in rules_in(spec)] == [
        "Webhooks: state transitions must never rely on the browser coming back to a "
        "success URL",
        "Idempotency: every webhook must be processed exactly once",
        "images siempre con <Image> de astro:assets, nunca <img> a pelo"]


@pytest.mark.parametrize("request_", [
    "Ok let's get started. Move deduplication from per-page to the whole set.",
    "Then put in DECISIONS.md that completeness is not expressible in this protocol.",
    "i want to review all the bug fixes that have landed in main this month",
])
def test_a_request_whose_words_only_contain_a_problem_word_reports_no_bug(request_):
    session = (
        Session().prompt(request_)
        .say("Changing the loader so the whole upload is read before anything is merged.")
        .edit("campaign/loader.py")
        .bash("pytest -q", "38 passed in 0.9s")
        .say("Done: the loader now reads the whole upload first; 38 tests pass.")
    )
    assert found(session.extract(), "bug_note") == []


def test_a_question_or_a_tables_rows_before_an_edit_are_no_reason_for_it():
    session = (
        Session().prompt("make the launcher open Claude in tmux")
        .say("Which launcher do you use, by the way?\n\n| Launcher | Keeps the session |\n"
             "|---|---|\n| tmux rather than Terminal | yes |\n\nI'll keep the session in tmux "
             "instead of a bare Terminal window, because a crashed window loses the whole "
             "conversation.")
        .edit("bin/launch-claude.sh")
        .say("Done.")
    )
    [decision] = found(session.extract(), "decision")
    assert decision.startswith("I'll keep the session in tmux"), decision


@pytest.mark.parametrize(("said", "no_effect"), [
    ("The Hard Truth: a blockchain doesn't solve a compromised bootloader.", False),
    ("The hostname doesn't resolve correctly from inside the VPN.", False),
    ("Raising the pool to 50 didn't change anything, p99 is still 29.8s.", True),
    ("I set the header on the proxy too, but it doesn't solve the problem.", True),
])
def test_what_was_tried_changing_nothing_is_told_in_the_past_or_of_it(said, no_effect):
    from engram.capture import lexicon

    assert bool(lexicon.NO_EFFECT_RE.search(said)) is no_effect


@pytest.mark.parametrize("report", [
    "✅ Pre-commit checks complete 📋 Files ready for commit: ✅ 6 new archives, so the hook "
    "config is changed instead of skipping it.",
    "THE SOLUTION: THRESHOLD BOOTSTRAP WITH ZERO KNOWLEDGE, because no single device is "
    "trusted instead of one root of trust.",
])
def test_a_status_report_or_a_shouted_pitch_before_an_edit_is_no_reason(report):
    session = (
        Session().prompt("commit the new archives")
        .say(report)
        .edit(".gitleaks.toml")
        .say("Done.")
    )
    assert found(session.extract(), "decision") == []


def test_acronyms_before_an_edit_still_give_its_reason():
    session = (
        Session().prompt("speed up the upload")
        .say("I'll call the AWS SDK API through one shared client instead of one per request, "
             "because each client opens its own HTTP connection pool.")
        .edit("app/upload.py")
        .say("Done.")
    )
    assert any("shared client" in d for d in found(session.extract(), "decision"))


def _search_fixed_session() -> Session:
    """A search that missed what was there, mended with a test failing on the way (another
    bug), told in a wrap-up with labelled cause and fix; a run in production turned down
    with a rule; the person naming when they will run it."""
    told = ("To tell you how to proceed, the user said:\nnão!! reindex em prod só de "
            "madrugada. o cluster é compartilhado com os logs e fica lento pra todo mundo")
    return (
        Session().prompt('a busca não acha "acucar" sem cedilha, só "açúcar". resolve isso')
        .edit("busca/mapping_produtos.json")
        .bash("pytest tests/busca -q",
              "E   resource_already_exists_exception: index [produtos_v1] already exists",
              failed=True)
        .edit("tests/busca/test_reindex.py")
        .bash("pytest tests/busca -q", "10 passed in 22.41s")
        .tool("Bash", {"command": "python -m busca.reindex --host es-prod"},
              f"{_REJECTED}\n{told}", error=True,
              content=_REJECTED.split(" STOP")[0] + " " + told)
        .say("Resumo:\n\n- **Causa:** `pt_padrao` não tinha `asciifolding`; \"acucar\" e "
             "\"açúcar\" viravam tokens diferentes.\n- **Solução:** analyzer `pt_folded` com "
             "`asciifolding` em `nome` e `marca`, e `busca/reindex.py` troca o alias.\n\n"
             "**Antes de rodar em produção:** pausar o consumer `atualiza-estoque` durante o "
             "reindex, senão as atualizações de estoque se perdem no índice novo.")
        .prompt("blz, rodo às 2h com o consumer de estoque pausado.")
        .say("Certo.")
    )


def test_a_search_that_misses_what_is_there_is_a_bug_told_with_the_wrap_ups_cause_and_fix():
    extraction = _search_fixed_session().extract()
    bugs = found(extraction, "bug_note")
    told = [b for b in bugs if "asciifolding" in b]
    assert len(told) == 1 and "acucar" in told[0] and "pt_folded" in told[0], bugs
    assert not any("Solução" in d for d in found(extraction, "decision"))


def test_a_production_run_turned_down_for_the_night_is_a_rule_and_what_must_come_first_a_todo():
    extraction = _search_fixed_session().extract()
    assert any("madrugada" in c for c in found(extraction, "constraint"))
    assert not found(extraction, "failed_attempt")
    todos = found(extraction, "todo")
    assert any("atualiza-estoque" in t for t in todos), todos
    assert any("rodo às 2h" in t for t in todos), todos


@pytest.mark.parametrize("said, rule", [
    ("deploys only at night, the cluster is shared with the logs", True),
    ("React se queja de hydration mismatch (solo por la noche)", False),
])
def test_work_held_to_the_night_is_a_rule_unless_it_tells_when_a_problem_shows(said, rule):
    assert (rule_type(said) == "constraint") is rule


def test_a_cause_the_wrap_up_labels_is_told_beside_a_test_mended_on_the_way():
    session = (
        Session().prompt("make product search accent-insensitive")
        .edit("busca/mapping_produtos.json")
        .bash("pytest tests/busca -q",
              "E   resource_already_exists_exception: index [produtos_v1] already exists",
              failed=True)
        .edit("tests/busca/test_reindex.py")
        .bash("pytest tests/busca -q", "10 passed in 22.41s")
        .say("Done.\n\n- **Cause:** the `pt_padrao` analyzer had no `asciifolding`, so accented "
             "and plain spellings were different tokens.\n- **Fix:** a `pt_folded` analyzer.")
    )
    bugs = found(session.extract(), "bug_note")
    assert any("asciifolding" in b and "pt_folded" in b for b in bugs), bugs
    assert any("resource_already_exists" in b for b in bugs), bugs


@pytest.mark.parametrize("said, rule", [
    ("用户注销以后再用同一个手机号注册，接口直接 500", None),
    ("以后都用 pnpm，不要 npm", "constraint"),
])
def test_yihou_after_a_verb_is_after_that_not_from_now_on(said, rule):
    assert rule_type(said) == rule


def test_an_option_named_in_reply_is_the_choice_with_the_reason_that_follows():
    session = (
        Session().prompt("注销后再注册同一个手机号直接 500，修一下")
        .edit("migrations/20260309103000_unique.sql")
        .bash("make test-integration", "--- FAIL: TestNoTwoActiveUsersWithSamePhone",
              failed=True)
        .say("这个方案不行。两个能用的办法：\n1. **`gorm.io/plugin/soft_delete`**：`deleted_at` "
             "改成 BIGINT。\n2. **生成列**：`active_phone` 上建唯一索引。\n\n你倾向哪个？")
        .bash("rm migrations/20260309103000_unique.sql")
        .prompt("生成列。插件那个要改 deleted_at 类型，"
                "运营后台一堆报表 SQL 写死了 deleted_at IS NULL")
        .edit("migrations/20260309111500_active_phone.sql")
        .bash("make test-integration", "ok  yuedu-server/internal/handler")
        .say("全部通过。")
    )
    decisions = found(session.extract(), "decision")
    assert any("报表" in d and "active_phone" in d for d in decisions), decisions


@pytest.mark.parametrize("report", [
    "los empleados de una tienda no ven los pedidos en la app, solo el dueño",
    "members can't see their orders in the app, only the owner does",
    "la lista sale vacía para el vendedor",
])
def test_people_who_do_not_see_what_they_should_report_a_problem(report):
    from engram.capture import lexicon

    assert lexicon.PROBLEM_RE.search(report)
    assert not lexicon.PROBLEM_RE.search("I don't see the point of a second cache")


def test_a_wrap_ups_cause_is_no_decision_and_a_second_bug_is_a_bug_note():
    session = (
        Session().prompt("add a policy so members read orders")
        .edit("supabase/migrations/20260722_pedidos.sql")
        .bash("supabase test db", "ok 4 - members read orders")
        .say("Resumen:\n\n- **Causa:** `pedidos` solo tenía policy para el dueño; `miembros` "
             "nunca se sumó a ninguna policy de lectura.\n- **Segundo bug:** `miembros_select` se "
             "consultaba a sí misma → `42P17 infinite recursion` al leer `miembros`.\n"
             "- **Solución:** `private.es_miembro(tid)` SECURITY DEFINER usada por las dos "
             "policies, en vez de una subconsulta a `miembros`.")
    )
    extraction = session.extract()
    assert not any("Causa" in d or "42P17" in d for d in found(extraction, "decision"))
    assert any("42P17" in b for b in found(extraction, "bug_note"))


def test_a_chain_that_passes_fixes_the_failure_of_each_of_its_parts():
    session = (
        Session().prompt("extend AckWait while the PDF renders")
        .edit("internal/mailer/consumer.go")
        .bash("go test ./internal/mailer/ -run TestSlowRender -v",
              'consumer_slow_test.go:26: unexpected error log: err="nats: message was already '
              'acknowledged"\n--- FAIL: TestSlowRender (3.01s)\nFAIL', failed=True)
        .say("My ticker outlives the Ack: it needs its own context, cancelled before Ack.")
        .edit("internal/mailer/consumer.go")
        .bash("go test -race ./internal/... && go vet ./...",
              "ok  \tinvoice-mailer/internal/mailer\t6.902s")
        .say("Green, also under -race.")
    )
    bugs = found(session.extract(), "bug_note")
    assert any("already acknowledged" in b for b in bugs), bugs


def test_a_go_ahead_turns_wrap_up_does_not_tell_the_reported_bug_twice():
    session = (
        Session().prompt("customers get duplicate invoice emails, sometimes three. look into it")
        .bash("kubectl logs deploy/invoice-mailer | grep 'render done' | tail -3", "took=92.2s")
        .say("The cause: `ack_wait` is 30 s while a PDF renders for up to 92 s, so JetStream "
             "delivers the message again to another pod. Options: 1. raise ack_wait. "
             "2. `InProgress()` while rendering. Shall I do 2?")
        .prompt("yes, do it that way")
        .edit("internal/mailer/consumer.go")
        .bash("go test ./...", "ok  \tinvoice-mailer/internal/mailer\t6.9s")
        .say("Done:\n\n- **Cause of the duplicates:** AckWait 30 s against renders of up to 90 s, "
             "so JetStream redelivered the message to a second pod.\n- **Rejected:** ack_wait "
             "600, a crashed pod would delay the email by 10 minutes.\n- **Done:** "
             "`m.InProgress()` every 10 s while rendering.")
    )
    bugs = found(session.extract(), "bug_note")
    assert len([b for b in bugs if "AckWait" in b or "ack_wait" in b]) == 1, bugs
    assert not any("ack_wait 600" in b for b in bugs), bugs


def test_a_reply_taking_up_one_options_words_chooses_it_after_a_revert():
    session = (
        Session().prompt("un tenant vio productos de otro tenant, arreglalo")
        .edit("src/loaders.ts")
        .bash("npx jest", "Tests: 1 failed, 13 passed", failed=True)
        .say("El reset no alcanza con requests concurrentes. Revierto esto.\n\nDos opciones:\n"
             "1. **Loaders por request**, creados en `context`.\n2. **Loader global** con el "
             "tenant en la key: nunca se invalida.\n\nVoy con la 1, salvo que quieras otra cosa.")
        .bash("git checkout -- src/loaders.ts")
        .prompt("sí, per request. el cache global nunca fue la idea, stale prices would be a "
                "second incident")
        .edit("src/context.ts")
        .bash("npx jest", "Tests: 14 passed, 14 total")
        .say("Todo verde.")
    )
    extraction = session.extract()
    assert any("stale prices" in d and "Loaders por request" in d
               for d in found(extraction, "decision")), found(extraction, "decision")
    assert not any("nunca fue" in c for c in found(extraction, "constraint"))


@pytest.mark.parametrize("said", [
    "no, las migraciones las aplica el CI cuando se mergea a main",
    "no - the pipeline deploys that on merge, last time a manual push broke the history",
])
def test_a_command_turned_down_because_something_else_runs_it_is_a_rule_about_it(said):
    told = f"To tell you how to proceed, the user said:\n{said}"
    session = (
        Session().prompt("members can't see orders, fix the policy")
        .edit("supabase/migrations/20260722_pedidos.sql")
        .bash("supabase test db", "ok 4 - members read orders")
        .tool("Bash", {"command": "supabase db push"}, f"{_REJECTED}\n{told}", error=True,
              content=_REJECTED.split(" STOP")[0] + " " + told)
        .say("Understood.")
    )
    extraction = session.extract()
    assert any("supabase db push" in c and said[5:25] in c
               for c in found(extraction, "constraint"))
    assert not found(extraction, "failed_attempt")


@pytest.mark.parametrize("command, vouched", [
    ("go test -race ./internal/... && go vet ./...", ["go test -race ./internal/..."]),
    ("a; b && c", ["b"]),  # `a` may have failed: `;` does not stop the chain
    ('bash -c "make && bats test/" && echo ok', ['bash -c "make && bats test/"']),
    ("pytest -q | tail -3", []),
])
def test_a_passing_chain_vouches_for_what_is_chained_by_and(command, vouched):
    from engram.capture.commands import vouched_before

    assert vouched_before(command) == vouched
