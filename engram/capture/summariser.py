"""An opt-in LLM pass over a session, through the agent CLI the user already has.

The heuristics (extract.py) need no model and always run first. When the user turns a
summariser on (`engram setup --summarizer claude|codex|endpoint`, or `[hooks] summarizer`
in config.toml), a background process also hands the session's windows — the prompts,
the reasons before edits, one error line per failure, answers, wrap-ups; never the raw
transcript, and redacted before anything leaves the process — to a small model, and
keeps the typed memories it returns that the heuristics did not already hold:

- `claude`: Claude Code's headless mode (`claude -p --model haiku --output-format json`,
  the prompt on stdin, no tools, no hooks, no MCP servers, no saved session);
- `codex`: `codex exec` in its read-only sandbox, ephemeral, hooks disabled, the last
  message written to a file;
- `endpoint`: an Ollama or OpenAI-compatible server (`ollama:<model>`/`openai:<model>`,
  the same variables as consolidation's summariser: OLLAMA_HOST, ENGRAM_OPENAI_BASE_URL,
  ENGRAM_OPENAI_API_KEY).

It is off by default because it spends the user's quota. It never runs inside a hook's
time budget: the Stop/PreCompact/SessionEnd hook (in the warm worker after its reply,
or in the hook process) only decides whether it is due and starts
`python -m engram.capture.summariser` detached (its own session, no pipes, its own
timeout). The model call never runs inside the warm worker itself: the worker serves one
request at a time, and a minute-long call there would leave the next prompt without
recall.

When it runs (what is "due"):
- at SessionEnd and PreCompact, when the session has windows newer than the last run;
- at Stop only when much has happened since: the transcript grew by STOP_MIN_NEW_BYTES
  since the last start (checked in the hook with one stat) and the windows newer than
  the last run hold STOP_MIN_NEW_CHARS (checked here). A long session that is never
  closed is still summarised; a chat of short turns costs one run, at its end;
- never for a session the heuristics found empty, and never twice for the same windows:
  the last window summarised is remembered per session (state `<session>.summariser`),
  whether the run succeeded or not.

An agent CLI run as a summariser is itself a session with hooks. The child gets
ENGRAM_HOOKS=off, which makes `engram hook …` return at once (runner.py), and the CLI
flags that keep it from loading hooks and MCP servers where it has them; it runs in a
folder of Engram's own, never in the project.

Whatever goes wrong — no CLI, exit 1, a hang, garbage, an answer outside the schema —
ends in one line in logs/hooks.log; the heuristic memories are all there already.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .llm import HOOKS_OFF_ENV, MAX_ANSWER_CHARS, Settings, SummariserError, child_env, complete

__all__ = ["SummariserError", "Settings", "settings", "schedule", "summarise_session",
           "validate", "first_json", "near_duplicate", "describe", "is_backend"]

BACKENDS = ("claude", "codex", "endpoint")
MEMORY_TYPES = ("decision", "constraint", "preference", "failed_attempt", "bug_note", "todo",
                "open_question", "project_fact")
DEFAULT_MODELS = {"claude": "haiku"}
DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 900.0
#: The answer's bounds: anything outside them is not the schema, and the whole answer goes.
MAX_MEMORIES = 20
MIN_CONTENT_CHARS = 8
MAX_CONTENT_CHARS = 800
MAX_WHY_CHARS = 600
MAX_FILES = 20
MAX_FILE_CHARS = 300
#: What is already known and shown to the model so it does not say it again.
MAX_KNOWN_ITEMS = 60
MAX_KNOWN_CHARS = 5_000
#: Stop policy (see the module docstring).
STOP_MIN_NEW_BYTES = 200_000
STOP_MIN_NEW_CHARS = 3_000
#: Near-duplicates: share of the shorter text's words found in the other one.
NEAR_DUPLICATE = 0.8
LOCK_WAIT_SECONDS = 30.0  # beyond the other run's own time
STATE_SUFFIX = ".summariser"
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_WORD_RE = re.compile(r"\w+")

SYSTEM_PROMPT = (
    "You keep a software project's long-term memory. From notes on one coding session you"
    " pick what a good colleague would still want to know next week, and you answer with"
    " JSON only."
)
INSTRUCTIONS = """\
Answer with one JSON object and nothing else:
{"memories": [{"type": "<type>", "content": "<the memory>", "why": "<optional reason>", \
"files": ["<optional relative paths>"]}]}

Types:
- decision: a choice that was made; give its reason in "why"
- constraint: a rule that must hold (keep the user's own words)
- preference: how the user likes things done (keep the user's own words)
- failed_attempt: an approach that did not work, and why
- bug_note: a bug, its cause and its fix
- todo: work left open at the end of the session
- open_question: a question left unresolved
- project_fact: a lasting fact about the project (layout, tools, conventions)

Rules: at most 12 memories; each "content" is one or two self-contained sentences (under
300 characters) that make sense without the session; write in the language of the notes;
skip routine steps, progress reports and anything in "Already recorded"; never include
secrets; say nothing about this summary itself. If nothing is worth keeping, answer
{"memories": []}.
"""


@dataclass
class Proposed:
    type: str
    content: str
    why: str | None = None
    files: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The memory's content: the statement, then its reason."""
        if not self.why or _norm(self.why) in _norm(self.content):
            return self.content
        end = "" if self.content.rstrip()[-1:] in ".!?。！？" else "."
        return f"{self.content.rstrip()}{end} Why: {self.why}"


# --- configuration ------------------------------------------------------------------------


def is_backend(value: Any) -> bool:
    """True for a named summariser; anything else in `summarizer` is a legacy shell command
    that rewrites the task summary (engram/hooks/summary.py)."""
    if not isinstance(value, str):
        return False
    value = value.strip()
    return value in BACKENDS or bool(re.fullmatch(r"(ollama|openai):\S+", value))


def settings(config: dict[str, Any] | None = None) -> Settings | None:
    """The summariser the config turns on, or None (off, or a legacy command)."""
    if config is None:
        from ..config import load_config

        config = load_config()
    hooks = config.get("hooks") if isinstance(config.get("hooks"), dict) else {}
    value = hooks.get("summarizer")
    if not is_backend(value):
        return None
    value = value.strip()
    model = hooks.get("summarizer_model")
    model = model.strip() if isinstance(model, str) and model.strip() else None
    if value not in BACKENDS:  # "ollama:<model>" / "openai:<model>" name an endpoint
        value, model = "endpoint", value
    elif value == "endpoint" and model is None:
        lifecycle = config.get("lifecycle") if isinstance(config.get("lifecycle"), dict) else {}
        model = (os.environ.get("ENGRAM_SUMMARISER") or lifecycle.get("summariser")
                 or None)
    try:
        timeout = float(hooks.get("summarizer_timeout", DEFAULT_TIMEOUT))
    except (TypeError, ValueError):
        timeout = DEFAULT_TIMEOUT
    if not 0 < timeout <= MAX_TIMEOUT:
        timeout = DEFAULT_TIMEOUT
    return Settings(value, model or DEFAULT_MODELS.get(value), timeout)


def describe(config: dict[str, Any] | None = None) -> tuple[str, str, str | None]:
    """(status, detail, fix) for `engram doctor`: which summariser is on, and can it run."""
    if config is None:
        from ..config import load_config

        config = load_config()
    hooks = config.get("hooks") if isinstance(config.get("hooks"), dict) else {}
    ask = " Stop asks the agent to save what it learned (ask_agent_to_save)." if hooks.get(
        "ask_agent_to_save") is True else ""
    chosen = settings(config)
    legacy = hooks.get("summarizer")
    if chosen is None:
        if isinstance(legacy, str) and legacy.strip():
            return "ok", f"task summaries are rewritten by `{legacy.strip()}`.{ask}", None
        return ("ok", "off (heuristics only; `engram setup --summarizer claude|codex|endpoint` "
                f"turns one on, and spends that account's quota).{ask}", None)
    if chosen.backend == "endpoint":
        kind, _, model = (chosen.model or "").partition(":")
        if kind not in ("ollama", "openai") or not model:
            return ("warn", "endpoint summariser without a model: sessions keep heuristic "
                    "memories only", 'set `summarizer_model = "ollama:<model>"` (or '
                    '"openai:<model>") under [hooks] in config.toml')
        return "ok", f"endpoint {chosen.model}, after sessions, in the background.{ask}", None
    found = shutil.which(chosen.backend)
    if found is None:
        return ("warn", f"{chosen.backend} (model {chosen.model or 'its default'}) is on, but "
                f"`{chosen.backend}` is not on PATH: sessions keep heuristic memories only",
                f"install the {chosen.backend} CLI, or `engram setup --summarizer off`")
    return ("ok", f"{chosen.backend} (model {chosen.model or 'its default'}) at {found}, after "
            f"sessions, in the background; it spends that account's quota.{ask}", None)


def hooks_disabled() -> bool:
    """ENGRAM_HOOKS=off: this process is a summariser's agent (or the user said so)."""
    return os.environ.get(HOOKS_OFF_ENV, "").strip().lower() in ("off", "0", "false", "no")


# --- the prompt and the answer ------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(_WORD_RE.findall(text.lower()))


def build_prompt(windows: Sequence[dict[str, Any]], known: Sequence[str]) -> str:
    """The text sent to the model, redacted as a whole (after each part was)."""
    from ..redaction import redact

    lines = [INSTRUCTIONS, "Already recorded:"]
    budget = MAX_KNOWN_CHARS
    shown = 0
    for item in known:
        item = " ".join(redact(item).text.split())[:300]
        if not item or budget - len(item) < 0 or shown >= MAX_KNOWN_ITEMS:
            break
        lines.append(f"- {item}")
        budget -= len(item)
        shown += 1
    if not shown:
        lines.append("- (nothing yet)")
    lines += ["", "Session notes, oldest first:"]
    for window in windows:
        files = f" ({', '.join(window['files'][:5])})" if window.get("files") else ""
        text = redact(str(window.get("text") or "")).text
        lines.append(f"[{window.get('kind')}{files}] {text}")
    return redact("\n".join(lines)).text


def first_json(text: str) -> Any:
    """The first JSON object in a model's answer (prose or a ``` fence around it is fine);
    one holding "memories" wins over an earlier stray one. A bare list is taken too."""
    text = text[:MAX_ANSWER_CHARS]
    decoder = json.JSONDecoder()
    stripped = re.sub(r"^\s*```(?:json)?\s*", "", text)
    if stripped.startswith("["):
        try:
            value, _ = decoder.raw_decode(stripped)
            if isinstance(value, list):
                return value
        except ValueError:
            pass
    first = None
    start = text.find("{")
    attempts = 0
    while start != -1 and attempts < 500:
        attempts += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            if "memories" in value:
                return value
            if first is None:
                first = value
        start = text.find("{", end)
    if first is None:
        raise SummariserError("no JSON object in the answer")
    return first


def _clean_text(name: str, value: Any, low: int, high: int) -> str:
    if not isinstance(value, str):
        raise SummariserError(f"{name} is not text")
    value = unicodedata.normalize("NFC", value).strip()
    if not low <= len(value) <= high:
        raise SummariserError(f"{name} has {len(value)} characters (allowed {low}-{high})")
    if _CONTROL_RE.search(value):
        raise SummariserError(f"{name} holds control characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise SummariserError(f"{name} is not valid Unicode") from None
    return value


def validate(data: Any) -> list[Proposed]:
    """The answer as memories, or SummariserError: the schema is all or nothing."""
    items = data.get("memories") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise SummariserError('the answer has no "memories" list')
    if len(items) > MAX_MEMORIES:
        raise SummariserError(f"{len(items)} memories (at most {MAX_MEMORIES})")
    out = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise SummariserError(f"memory {number} is not an object")
        kind = item.get("type")
        if not isinstance(kind, str) or kind.strip().lower() not in MEMORY_TYPES:
            raise SummariserError(f"memory {number} has type {str(kind)[:40]!r}")
        content = _clean_text(f"memory {number} content", item.get("content"),
                              MIN_CONTENT_CHARS, MAX_CONTENT_CHARS)
        why = item.get("why")
        if why is not None and why != "":
            why = _clean_text(f"memory {number} why", why, 1, MAX_WHY_CHARS)
        files = item.get("files")
        if files is None:
            files = []
        if not isinstance(files, list) or len(files) > MAX_FILES:
            raise SummariserError(f"memory {number} files is not a list of at most {MAX_FILES}")
        paths = [_clean_text(f"memory {number} file", path, 1, MAX_FILE_CHARS) for path in files]
        if any("\n" in path or "\t" in path for path in paths):
            raise SummariserError(f"memory {number} names a file with a line break")
        out.append(Proposed(kind.strip().lower(), content, why or None,
                            list(dict.fromkeys(paths))))
    return out


def _words(text: str) -> set[str]:
    return {w for w in _WORD_RE.findall(text.lower()) if len(w) > 2 or not w.isascii()}


def near_duplicate(text: str, others: Sequence[str]) -> bool:
    """Most of the shorter text's words are in the other: the same item said twice."""
    mine = _words(text)
    if not mine:
        return True
    for other in others:
        theirs = _words(other)
        if not theirs:
            continue
        shared = len(mine & theirs) / min(len(mine), len(theirs))
        if shared >= NEAR_DUPLICATE and min(len(mine), len(theirs)) >= 3:
            return True
        if _norm(text) == _norm(other):
            return True
    return False


# --- asking -------------------------------------------------------------------------------


def ask(prompt: str, chosen: Settings, cwd: str) -> list[Proposed]:
    """One model call, validated; SummariserError on anything unusable."""
    return validate(first_json(complete(prompt, SYSTEM_PROMPT, chosen, cwd)))


# --- scheduling (in the hook) --------------------------------------------------------------


def schedule(payload: dict[str, Any], project: str | None, state: dict[str, Any],
             event: str | None, config: dict[str, Any] | None = None) -> bool:
    """Start the background run if one is due (see the module docstring); True if started.

    Cheap: a config read and one stat. `state` is the hook's session state (changed in
    place: the transcript size at the last start)."""
    if hooks_disabled() or settings(config) is None:
        return False
    path = payload.get("transcript_path")
    session_id = payload.get("session_id")
    if not isinstance(path, str) or not isinstance(session_id, str) or not session_id:
        return False
    try:
        size = os.stat(os.path.expanduser(path)).st_size
    except OSError:
        return False
    started = state.get("summariser") if isinstance(state.get("summariser"), dict) else {}
    before = started.get("bytes") if isinstance(started.get("bytes"), int) else 0
    grown = size - before if size >= before else size
    if grown < (STOP_MIN_NEW_BYTES if event == "Stop" else 1):
        return False
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else ""
    spawn(path, session_id, project, cwd, event or "Stop")
    state["summariser"] = {"bytes": size, "started": time.time()}
    return True


def spawn(path: str, session_id: str, project: str | None, cwd: str, event: str) -> None:
    """`python -m engram.capture.summariser …`, detached: no pipes to the hook, which
    Claude Code waits on, and its own session, so the hook's end does not end it."""
    from ..config import home_dir

    argv = [sys.executable, "-m", "engram.capture.summariser", "--transcript", path,
            "--session", session_id, "--event", event, "--project", project or "",
            "--cwd", cwd]
    subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
                     env=child_env(), cwd=str(home_dir("summariser")))


# --- the background run -------------------------------------------------------------------


class _Expired(BaseException):
    pass


def _lock(session_id: str, wait: float) -> Any:
    """One run per session at a time; a second one waits, then finds nothing new."""
    from ..config import home_dir, open_private

    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:128] or "_"
    handle = open_private(home_dir("summariser") / f"{safe}.lock", "a")
    try:
        import fcntl
    except ImportError:  # Windows: runs of one session may overlap; dedup still holds
        return handle
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except OSError:
            if time.monotonic() > deadline:
                handle.close()
                return None
            time.sleep(0.25)


def _new_windows(windows: list[dict[str, Any]], last_at: Any) -> list[dict[str, Any]]:
    if not isinstance(last_at, str) or not last_at:
        return windows
    return [w for w in windows if (w.get("at") or "") > last_at]


def summarise_session(path: str, session_id: str, *, project: str | None, cwd: str | None,
                      event: str, service: Any = None,
                      config: dict[str, Any] | None = None) -> list[Any]:
    """Summarise one session if due; returns the memories newly stored.

    Raises SummariserError when the backend gave nothing usable (after recording the
    attempt, so the same windows are not sent again)."""
    from ..hooks.state import load_session, save_session
    from . import transcript
    from .extract import extract
    from .windows import windows

    chosen = settings(config)
    if chosen is None:
        return []
    session = transcript.read(os.path.expanduser(path))
    failures = load_session(session_id).get("failures")
    if isinstance(failures, dict):  # what PostToolUseFailure saw before the transcript did
        for call in session.tools:
            seen = failures.get(call.id)
            if isinstance(seen, dict) and call.failed is None:
                call.failed, call.output = True, str(seen.get("error") or "")
    cwd = cwd or session.cwd
    extraction = extract(session, cwd)
    if extraction.empty:
        return []
    marker_id = session_id + STATE_SUFFIX
    marker = load_session(marker_id)
    every = windows(session, cwd)
    new = _new_windows(every, marker.get("last_at"))
    fresh_chars = sum(len(w["text"]) for w in new)
    if not new or (event == "Stop" and fresh_chars < STOP_MIN_NEW_CHARS):
        return []
    earlier = [c for c in marker.get("contents", []) if isinstance(c, str)]
    known = [f.content for f in extraction.findings] + earlier
    prompt = build_prompt(every, known)
    marker.update(last_at=max((w.get("at") or "" for w in every), default="") or None,
                  runs=int(marker.get("runs", 0)) + 1, last_run=time.time(),
                  backend=chosen.backend)
    try:
        proposed = ask(prompt, chosen, str(_work_dir()))
    except SummariserError as exc:
        marker["last_error"] = str(exc)[:300]
        save_session(marker_id, marker)
        raise
    saved = _save(proposed, known, session_id, project, service, chosen, every)
    marker["last_error"] = None
    marker["contents"] = (earlier + [m.content for m in saved])[-MAX_KNOWN_ITEMS:]
    marker["saved"] = int(marker.get("saved", 0)) + len(saved)
    save_session(marker_id, marker)
    return saved


def _work_dir() -> Any:
    from ..config import home_dir

    return home_dir("summariser")


def _save(proposed: list[Proposed], known: list[str], session_id: str, project: str | None,
          service: Any, chosen: Settings, every: list[dict[str, Any]]) -> list[Any]:
    """Redact again, drop what is already known (or said twice), store with provenance."""
    from ..redaction import redact

    keep: list[Proposed] = []
    seen = list(known)
    for item in proposed:
        item = Proposed(item.type, redact(item.content).text,
                        redact(item.why).text if item.why else None,
                        [redact(f).text for f in item.files])
        text = item.text()
        if near_duplicate(text, seen) or near_duplicate(item.content, seen):
            continue
        seen.append(text)
        keep.append(item)
    if not keep:
        return []
    at = max((w.get("at") or "" for w in every), default="") or None
    records = []
    for item in keep:
        record: dict[str, Any] = {
            "content": item.text(), "type": item.type, "project": project or None,
            "provenance": "hook", "files": item.files,
            "importance": 0.6 if item.type in ("constraint", "preference", "decision") else 0.5,
            "tags": ["captured", "summariser"],
            "meta": {"capture": "summariser", "session_id": session_id,
                     "summariser": chosen.backend},
        }
        if at:
            record["event_at"] = at
        records.append(record)
    own = service is None
    if own:
        import engram

        service = engram.open()
    try:
        results = service.save_many(records)
    finally:
        if own:
            service.close()
    return [r.memory for r in results if not r.duplicate]


def main(argv: list[str] | None = None) -> int:
    """The detached run: always exits 0; a failure is one line in logs/hooks.log."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m engram.capture.summariser")
    parser.add_argument("--transcript", required=True)
    parser.add_argument("--session", required=True)
    parser.add_argument("--event", default="manual")
    parser.add_argument("--project", default="")
    parser.add_argument("--cwd", default="")
    args = parser.parse_args(argv)
    from ..hooks.state import log_line

    os.environ[HOOKS_OFF_ENV] = "off"  # whatever this process starts is not a session to keep
    with contextlib.suppress(OSError):
        os.nice(5)
    chosen = settings()
    if chosen is None:
        return 0
    # A run already under way for this session may take two tries; then this one's own
    # two tries, and the save.
    wait = chosen.timeout * 2 + LOCK_WAIT_SECONDS
    budget = wait + chosen.timeout * 2 + 120

    def expire(signum: int, frame: Any) -> None:
        raise _Expired(f"the run took more than {budget:g} s")

    timed = hasattr(signal, "setitimer")  # not on Windows: the CLI's own timeout remains
    if timed:
        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, budget)
    lock = None
    try:
        lock = _lock(args.session, wait)
        if lock is None:
            return 0
        summarise_session(args.transcript, args.session, project=args.project or None,
                          cwd=args.cwd or None, event=args.event)
    except BaseException as exc:  # noqa: BLE001 - one log line, the heuristics stand
        log_line(f"summariser session={args.session} {chosen.backend}: "
                 f"{type(exc).__name__}: {exc} (heuristic memories kept)")
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if lock is not None:
            lock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
