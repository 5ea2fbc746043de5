"""Stop / PreCompact / SessionEnd: capture the session from its transcript.

The hook is the adapter; the rules live in engram.capture. What this module adds is the
session's bookkeeping (which findings earlier calls already saved, failures the
PostToolUseFailure hook saw) kept in the hooks' per-session state file, the optional
rewrite of the task summary by a command the user configured, and the start of the
opt-in LLM summariser (engram/capture/summariser.py), which runs detached, never here.
"""

from __future__ import annotations

import os
from typing import Any

from .state import load_session, log_line, save_session

SUMMARIZER_TIMEOUT = 12.0
MAX_FAILURES = 200


def summarise(text: str) -> str:
    """Optionally rewrite the task summary with a command the user configured.

    `[hooks] summarizer = "llm -m gpt-4o-mini 'Summarise this coding session'"` in
    config.toml: the command gets the (redacted) summary on stdin and its stdout replaces
    it. No summariser, a failure or a timeout keeps the summary. A named summariser
    (claude, codex, endpoint) is not a command: it adds memories in the background instead.
    """
    from ..config import load_config

    hooks = load_config().get("hooks")
    command = hooks.get("summarizer") if isinstance(hooks, dict) else None
    if not isinstance(command, str) or not command.strip():
        return text
    from ..capture.summariser import is_backend

    if is_backend(command):
        return text
    import subprocess

    from ..redaction import redact

    try:
        proc = subprocess.run(command, shell=True, input=redact(text).text, capture_output=True,
                              text=True, timeout=SUMMARIZER_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return text
    result = proc.stdout.strip()
    return result[:4000] if proc.returncode == 0 and result else text


def record_failure(payload: dict[str, Any]) -> None:
    """PostToolUseFailure: remember the failure with the session (no store needed)."""
    session_id = payload.get("session_id")
    tool_use_id = payload.get("tool_use_id")
    if not isinstance(session_id, str) or not isinstance(tool_use_id, str):
        return
    error = payload.get("error")
    state = load_session(session_id)
    failures = state.setdefault("failures", {})
    failures[tool_use_id[:200]] = {
        "tool": str(payload.get("tool_name") or "")[:100],
        "error": error[:4000] if isinstance(error, str) else "",
        "interrupt": bool(payload.get("is_interrupt")),
    }
    if len(failures) > MAX_FAILURES:
        state["failures"] = dict(list(failures.items())[-MAX_FAILURES:])
    save_session(session_id, state)


def checkpoint(service: Any, payload: dict[str, Any], project: str | None,
               event: str | None = None) -> Any:
    """Capture the session so far; returns the CaptureResult (None without a transcript).

    Then, if the user turned an LLM summariser on and it is due, start it in the
    background (engram/capture/summariser.py says when it is due)."""
    from ..capture.session import capture

    path = payload.get("transcript_path")
    if not isinstance(path, str) or not os.path.isfile(os.path.expanduser(path)):
        return None
    session_id = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    state = load_session(session_id)
    result = capture(
        service, path, project=project, session_id=session_id, cwd=cwd, state=state,
        failures=state.get("failures") if isinstance(state.get("failures"), dict) else None,
        rewrite=summarise, last_message=payload.get("last_assistant_message"),
    )
    if result is not None and not result.empty:
        _start_summariser(payload, project, state, event)
    save_session(session_id, state)
    return result


def _start_summariser(payload: dict[str, Any], project: str | None, state: dict[str, Any],
                      event: str | None) -> None:
    from ..capture.summariser import schedule

    try:
        schedule(payload, project, state, event)
    except Exception as exc:  # noqa: BLE001 - the heuristic capture above stands
        log_line(f"summariser session={payload.get('session_id') or '-'} not started: "
                 f"{type(exc).__name__}: {exc}")
