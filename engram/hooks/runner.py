"""`engram hook <event>`: read Claude Code's payload, answer, and never get in the way.

Every failure is swallowed (exit 0, nothing injected, one line in logs/hooks.log) and a
deadline bounds the whole run: memory is a nice-to-have, the agent's turn is not.
Only the stdlib and the cheap hook modules load here; the store, the model and
click stay out of this path unless the worker is down.
"""

from __future__ import annotations

import json
import os
import signal
import sys

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
    "Stop": 20.0,
    "SubagentStop": 20.0,
    "PreCompact": 20.0,
    "SessionEnd": 20.0,
}
EVENTS = tuple(DEADLINES)
# Per event: how long to wait for the warm worker before giving up on it.
WORKER_WAIT = {"UserPromptSubmit": 2.0, "SessionStart": 5.0}
MAX_STDIN_BYTES = 10_000_000


class HookTimeout(BaseException):
    """Raised by the alarm: a BaseException so no `except Exception` on the way eats it."""


def _alarm(signum: int, frame: Any) -> None:
    raise HookTimeout("deadline reached")


def _deadline(event: str) -> float:
    try:
        return float(os.environ["ENGRAM_HOOK_DEADLINE"])
    except (KeyError, ValueError):
        return DEADLINES.get(event, 8.0)


def run(argv: list[str]) -> int:
    """Entry point for `engram hook EVENT`; always returns 0."""
    event = argv[0] if argv else ""
    payload: dict[str, Any] = {}
    armed = False
    try:
        if hasattr(signal, "setitimer"):
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, _deadline(event))
            armed = True
        raw = sys.stdin.read(MAX_STDIN_BYTES)
        payload = _parse(raw)
        if not event:
            event = str(payload.get("hook_event_name") or "")
        output = dispatch(event, payload)
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
    return 0


def _parse(raw: str) -> dict[str, Any]:
    if not raw.strip():
        raise ValueError("empty hook payload on stdin")
    payload = json.loads(raw)
    if not isinstance(payload, dict):
        raise ValueError("hook payload is not a JSON object")
    return payload


def dispatch(event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Triage cheaply, then answer through the worker, else in this process."""
    if event not in DEADLINES:
        raise ValueError(f"unknown hook event {event!r}; known: {', '.join(EVENTS)}")
    if not _worth_handling(event, payload):
        return None
    from ..config import load_config
    from . import client
    from .state import project_for

    config = load_config()
    cwd = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR")
    request = {"event": event, "payload": payload, "project": project_for(cwd, config)}
    if client.worker_enabled(config):
        # None means no worker listens; a worker that accepted but is slow or died midway
        # raises (logged, nothing injected) instead of doing the same work twice here.
        response = client.call(request, WORKER_WAIT.get(event, _deadline(event) * 0.8),
                               client.socket_path(config))
        if response is not None:
            return response.get("output")
        client.spawn_worker(config)
    from .handlers import handle_in_process

    return handle_in_process(request)


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
    return True
