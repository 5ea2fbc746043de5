"""What each hook event does with the service. The same code runs inside the warm worker
and, when no worker is up, inside the hook process itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ask_agent, capture, recall, summary
from .state import load_session, prune_sessions, save_session

CONTEXT_BUDGET = 1500
# Events whose in-process fallback must be fast: keyword search only, no model load.
FAST_EVENTS = ("SessionStart", "UserPromptSubmit")
# Events answered from the session's state file alone: no store is opened for them.
STORELESS_EVENTS = ("PostToolUseFailure",)


def inject(event: str, text: str) -> dict[str, Any]:
    """Claude Code's shape for context added to the conversation."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def handle(
    service: Any, request: dict[str, Any], after: list[Callable[[], Any]] | None = None
) -> dict[str, Any] | None:
    """Answer one hook request. Bookkeeping that the answer does not depend on (access
    statistics) goes to `after` when given: the worker runs it once the hook has its reply.
    """
    later = after.append if after is not None else (lambda job: job())
    event = request.get("event")
    payload = request.get("payload") or {}
    project = request.get("project")
    if event == "SessionStart":
        return session_start(service, payload, project, later)
    if event == "UserPromptSubmit":
        return user_prompt(service, payload, project, later)
    if event == "PostToolUse":
        post_tool_use(service, payload, project)
        return None
    if event == "PostToolUseFailure":
        summary.record_failure(payload)
        return None
    if event in ("Stop", "PreCompact", "SessionEnd"):
        # The reply (asking the agent to save, when configured) is computed now; the
        # capture and the summariser's start go after it.
        reply = ask_agent.reply(payload) if event == "Stop" else None
        later(lambda: summary.checkpoint(service, payload, project, event))
        return reply
    return None


def handle_in_process(request: dict[str, Any]) -> dict[str, Any] | None:
    """Answer in this process, then do the bookkeeping the answer does not depend on.

    The answer is computed first and kept: a bookkeeping write (access statistics, the
    recall audit, a capture) that meets a store another process holds locked is logged
    and dropped, instead of taking the injected context down with it.
    """
    from ..remote import open_configured
    from .state import log_line

    if request.get("event") in STORELESS_EVENTS:
        return handle(None, request)
    fast = request.get("event") in FAST_EVENTS
    service = open_configured(embedder="none" if fast else None)
    after: list[Callable[[], Any]] = []
    service.lifecycle.defer = after.append
    try:
        output = handle(service, request, after)
        for job in after:
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - bookkeeping never costs the answer
                log_line(f"{request.get('event')} after-reply job skipped: "
                         f"{type(exc).__name__}: {exc}")
        return output
    finally:
        service.close()


def session_start(service: Any, payload: dict[str, Any], project: str | None,
                  later: Callable[[Callable[[], Any]], Any]) -> Any:
    session_id = payload.get("session_id")
    state = load_session(session_id)
    if payload.get("source") != "resume":
        # A new, cleared or compacted conversation no longer holds what was injected.
        state["injected"] = []
    pack = service.context(project=project, budget=CONTEXT_BUDGET)
    state["project"] = project
    state["injected"] = list(dict.fromkeys([*state.get("injected", []), *pack.memory_ids]))
    save_session(session_id, state)
    if payload.get("source") in (None, "startup"):
        prune_sessions()
    if not pack.memory_ids:
        return None
    later(lambda: service.mark_used(pack.memory_ids))
    return inject("SessionStart", pack.text)


def user_prompt(service: Any, payload: dict[str, Any], project: str | None,
                later: Callable[[Callable[[], Any]], Any]) -> Any:
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        return None
    session_id = payload.get("session_id")
    state = load_session(session_id)
    seen = set(state.get("injected", []))
    chosen = service.recall_for_prompt(prompt[:10_000], project, exclude=seen)
    if not chosen:
        return None
    text, ids = recall.render(chosen)
    state["injected"] = [*state.get("injected", []), *ids]
    save_session(session_id, state)
    later(lambda: service.mark_used(ids))
    return inject("UserPromptSubmit", text)


def post_tool_use(service: Any, payload: dict[str, Any], project: str | None) -> None:
    tool = payload.get("tool_name")
    if tool == "Bash":
        capture.verified_command(service, payload, project)
    elif tool in ("Write", "Edit", "MultiEdit"):
        capture.memory_file(service, payload, project)
