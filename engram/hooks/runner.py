"""`engram hook <event>`: read Claude Code's payload, answer, and never get in the way.

Every failure is swallowed (exit 0, nothing injected, one line in logs/hooks.log) and a
deadline bounds the whole run: memory is a nice-to-have, the agent's turn is not.
Three things enforce it. SIGALRM ends the Python code at the deadline; a store opened
in-process stops waiting for a writer's lock, and is interrupted, a little before it
(SQLite's own waits ignore signals: a reindex holding the lock kept a 3 s hook
for over 15 s); and a backstop thread ends the process just after it if something still
blocks inside C (a disk that does not answer).
Only the stdlib and the cheap hook modules load here; the store, the model and
click stay out of this path unless the worker is down.
"""

from __future__ import annotations

import _thread  # not threading: one thread needs no module costing 0.7 ms to import
import json
import os
import re  # json imports it already: free here
import signal
import sys
import time

from . import triage
from .state import log_line

TYPE_CHECKING = False  # not `from typing import …`: typing costs ms on every hook call
if TYPE_CHECKING:
    from typing import Any

# Internal deadlines (seconds); `engram setup` registers somewhat longer timeouts with
# Claude Code, so the hook always ends itself first and cleanly.
DEADLINES = {
    "SessionStart": 8.0,
    "UserPromptSubmit": 3.0,
    "PostToolUse": 8.0,
    "PostToolUseFailure": 5.0,
    "Stop": 20.0,
    "SubagentStop": 20.0,
    "PreCompact": 20.0,
    "SessionEnd": 20.0,
}
EVENTS = tuple(DEADLINES)
# Per event: how long to wait for the warm worker before giving up on it.
WORKER_WAIT = {"UserPromptSubmit": 2.0, "SessionStart": 5.0}
MAX_STDIN_BYTES = 10_000_000
# The store gives up this long before the deadline (at most this share of it), so the
# hook still has time to log why and answer.
STORE_RESERVE_SECONDS = 1.0
STORE_RESERVE_SHARE = 0.2
# How long past the deadline the backstop waits before ending a process stuck in C.
BACKSTOP_GRACE_SECONDS = 0.5
# A payload that may hold a lone surrogate: a JSON escape (JSON.stringify writes one for a
# string cut between the halves of a pair, as long tool outputs are) or bytes that were
# not UTF-8 (stdin decodes them with surrogateescape).
_MAYBE_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class HookTimeout(BaseException):
    """Raised by the alarm: a BaseException so no `except Exception` on the way eats it."""


def _alarm(signum: int, frame: Any) -> None:
    raise HookTimeout("deadline reached")


def _deadline(event: str) -> float:
    try:
        seconds = float(os.environ["ENGRAM_HOOK_DEADLINE"])
    except (KeyError, ValueError):
        seconds = 0.0
    if 0 < seconds < 3600:  # 0 would disarm the alarm; inf and nan cannot arm it
        return seconds
    return DEADLINES.get(event, 8.0)


def run(argv: list[str]) -> int:
    """Entry point for `engram hook EVENT`; always returns 0."""
    if os.environ.get("ENGRAM_HOOKS", "").strip().lower() in ("off", "0", "false", "no"):
        return 0  # an agent CLI run as Engram's summariser: its session is not captured
    event = argv[0] if argv else ""
    payload: dict[str, Any] = {}
    armed = False
    seconds = _deadline(event)
    ends = time.monotonic() + seconds
    done = _start_backstop(event, ends + BACKSTOP_GRACE_SECONDS)
    try:
        if hasattr(signal, "setitimer"):
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)
            armed = True
        raw = sys.stdin.read(MAX_STDIN_BYTES)
        payload = _parse(raw)
        if not event:
            event = str(payload.get("hook_event_name") or "")
        output = dispatch(event, payload, ends - min(STORE_RESERVE_SECONDS,
                                                      STORE_RESERVE_SHARE * seconds))
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            armed = False
        if output:
            sys.stdout.write(json.dumps(output, ensure_ascii=False))
            sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - fail open, whatever happened
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
        session = payload.get("session_id") if isinstance(payload, dict) else None
        log_line(f"{event or '?'} session={session or '-'} {type(exc).__name__}: {exc}")
    finally:
        done.release()  # the backstop stands down (after the log line: a disk may hang)
    return 0


def _start_backstop(event: str, at: float) -> Any:
    """End the process at `at` (exit 0, one log line) unless the returned lock is
    released first. SIGALRM cannot help when the main thread is stuck inside C, but
    SQLite and file I/O release the GIL, so this thread still runs then."""
    done = _thread.allocate_lock()
    done.acquire()
    name = event if event in DEADLINES else "?"

    def watch() -> None:
        if done.acquire(timeout=max(0.0, at - time.monotonic())):
            return
        # No payload text, so nothing to redact (and no import on a stuck process).
        log_line(f"{name} HookTimeout: still blocked {BACKSTOP_GRACE_SECONDS:g} s after "
                 "the deadline (a disk or store that does not answer?); exited", redact=False)
        os._exit(0)

    _thread.start_new_thread(watch, ())
    return done


def _parse(raw: str) -> dict[str, Any]:
    if not raw.strip():
        raise ValueError("empty hook payload on stdin")
    payload = json.loads(raw)
    if not isinstance(payload, dict):
        raise ValueError("hook payload is not a JSON object")
    if _MAYBE_SURROGATE.search(raw):
        _replace_surrogates(payload)
    return payload


def _replace_surrogates(payload: dict[str, Any]) -> None:
    """Lone surrogates become U+FFFD, in keys and values, as capture does for transcripts:
    text that cannot be UTF-8 would otherwise cost the whole hook (a prompt's recall, a
    failure's record). Iterative: the payload may be nested as deep as json follows."""
    def clean(value: Any) -> Any:
        return _SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value

    stack: list[Any] = [payload]
    while stack:
        node = stack.pop()
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, value in items:
            if isinstance(value, dict | list):
                stack.append(value)
            else:
                node[key] = clean(value)
            if isinstance(key, str) and _SURROGATE.search(key):
                del node[key]
                node[clean(key)] = value if isinstance(value, dict | list) else clean(value)


def dispatch(
    event: str, payload: dict[str, Any], store_deadline: float | None = None
) -> dict[str, Any] | None:
    """Triage cheaply, then answer through the worker, else in this process.

    `store_deadline` (time.monotonic()) bounds the store opened in this process.
    """
    if not wanted(event, payload):
        return None
    from ..config import load_config
    from . import client

    config = load_config()  # read once: the request's project and the worker's socket
    request = request_for(event, payload, config)
    # On a team server too: the worker keeps one connection open for every hook.
    if client.worker_enabled(config):
        # None means no worker listens; a worker that accepted but is slow or died midway
        # raises (logged, nothing injected) instead of doing the same work twice here.
        response = client.call(request, WORKER_WAIT.get(event, _deadline(event) * 0.8),
                               client.socket_path(config))
        if response is not None:
            return response.get("output")
        client.spawn_worker(config)
    from ..store.deadline import bounded
    from .handlers import handle_in_process

    if store_deadline is None:
        return handle_in_process(request)
    with bounded(store_deadline):
        return handle_in_process(request)


def build_request(event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """What the handlers get for this payload, or None when there is nothing to do.

    Shared by this process and the worker's launcher path (engram/hooks/launch.sh), so
    both triage and attribute a prompt the same way.
    """
    if not wanted(event, payload):
        return None
    from ..config import load_config

    return request_for(event, payload, load_config())


def wanted(event: str, payload: dict[str, Any]) -> bool:
    """Cheap triage before anything is read: whether this call has work for the store."""
    if event not in DEADLINES:
        raise ValueError(f"unknown hook event {event!r}; known: {', '.join(EVENTS)}")
    if not _worth_handling(event, payload):
        return False
    if event == "PostToolUseFailure":
        from .summary import record_failure

        record_failure(payload)  # the session's state file only: no store, no worker
        return False
    return True


def request_for(event: str, payload: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    from .state import project_for

    cwd = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR")
    return {"event": event, "payload": payload, "project": project_for(cwd, config)}


def _worth_handling(event: str, payload: dict[str, Any]) -> bool:
    if event in ("Stop", "SubagentStop") and payload.get("stop_hook_active"):
        return False  # Claude Code is already continuing because of a stop hook
    if event == "SubagentStop":
        return False  # a subagent's turn is part of the parent's session summary
    if event == "UserPromptSubmit":
        return not triage.is_trivial_prompt(payload.get("prompt"))
    if event == "PostToolUse":
        tool = payload.get("tool_name")
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, dict):
            return False
        if tool == "Bash":
            return (
                not tool_input.get("run_in_background")  # finished? succeeded? unknown yet
                and triage.command_kind(tool_input.get("command", "")) is not None
                and triage.bash_succeeded(payload.get("tool_response"))
            )
        if tool in ("Write", "Edit", "MultiEdit"):
            return triage.is_memory_file(tool_input.get("file_path"))
        return False
    if event in ("Stop", "PreCompact", "SessionEnd"):
        return isinstance(payload.get("transcript_path"), str)
    if event == "PostToolUseFailure":
        return payload.get("tool_name") == "Bash"  # what capture reads failures from
    return True
