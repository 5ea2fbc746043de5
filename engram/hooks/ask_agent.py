"""Optional: at the first Stop of a session that changed files and saved nothing, ask the
agent itself to save what it learned (`[hooks] ask_agent_to_save = true`).

The agent knows best what mattered, and it has the `memory_save` MCP tool. Claude Code
lets a Stop hook answer `{"decision": "block", "reason": …}`: the agent then goes on with
the reason as its next instruction. That is asked once per session (session state), never
on a Stop that a stop hook already continued (`stop_hook_active`, filtered in runner.py),
and never after the agent called `memory_save` on its own.

This is the hook's reply, so it is computed synchronously and cheaply: each Stop reads
only the transcript bytes added since the previous Stop, and parses only the lines that
name an edit tool or `memory_save`, or answer an edit still waiting for its result.
"""

from __future__ import annotations

import json
import os

from .state import load_session, log_line, save_session

TYPE_CHECKING = False  # not `from typing import …`: typing costs ms on every hook call
if TYPE_CHECKING:
    from typing import Any

EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
SAVE_SUFFIX = "memory_save"  # mcp__engram__memory_save, or the tool under another server name
REASON = ("Before you stop: save what this session taught that a later session should know "
          "(decisions and why, rules the user stated, fixes, approaches that failed, what is "
          "left to do) with the memory_save tool, one fact per call; if nothing qualifies, "
          "just stop.")
CHUNK_BYTES = 1 << 20
MAX_PENDING = 200
_EDIT_MARKS = tuple(f'"{name}"'.encode() for name in EDIT_TOOLS)


def enabled(config: dict[str, Any]) -> bool:
    hooks = config.get("hooks")
    return isinstance(hooks, dict) and hooks.get("ask_agent_to_save") is True


def reply(payload: dict[str, Any], config: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """Claude Code's block decision when the agent should be asked, else None. Never
    raises: the session's capture comes after it and must not be skipped."""
    try:
        return _reply(payload, config)
    except Exception as exc:  # noqa: BLE001 - asking is optional; capture is not
        log_line(f"Stop session={payload.get('session_id') or '-'} ask_agent_to_save: "
                 f"{type(exc).__name__}: {exc}")
        return None


def _reply(payload: dict[str, Any], config: dict[str, Any] | None) -> dict[str, Any] | None:
    if config is None:
        from ..config import load_config

        config = load_config()
    if not enabled(config) or payload.get("stop_hook_active"):
        return None
    session_id = payload.get("session_id")
    path = payload.get("transcript_path")
    if not isinstance(session_id, str) or not session_id or not isinstance(path, str):
        return None
    state = load_session(session_id)
    progress = state.get("ask_agent") if isinstance(state.get("ask_agent"), dict) else {}
    if progress.get("done"):
        return None
    progress = scan(os.path.expanduser(path), progress)
    ask = progress["edited"] and not progress["saved"]
    if ask or progress["saved"]:
        progress = {"done": True, "asked": ask}
    state["ask_agent"] = progress
    save_session(session_id, state)
    return {"decision": "block", "reason": REASON} if ask else None


def scan(path: str, progress: dict[str, Any]) -> dict[str, Any]:
    """Read the transcript from where the last Stop stopped; note successful edits, edits
    still waiting for their result, and calls to memory_save."""
    offset = progress.get("offset") if isinstance(progress.get("offset"), int) else 0
    pending = [p for p in progress.get("pending", []) if isinstance(p, str)]
    edited = progress.get("edited") is True
    saved = progress.get("saved") is True
    readable = os.path.isfile(path)  # /dev/zero, a FIFO: never read (or blocked on)
    try:
        if not readable:
            raise FileNotFoundError(path)
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if offset > size:
                offset = 0  # a rewritten file: read it again
            handle.seek(offset)
            rest = b""
            while not saved:
                chunk = handle.read(CHUNK_BYTES)
                if not chunk:
                    break
                lines = (rest + chunk).split(b"\n")
                rest = lines.pop()  # a line still being written: read again next time
                for line in lines:
                    edited, saved = _line(line, pending, edited, saved)
                offset = handle.tell() - len(rest)
    except OSError:
        pass
    return {"offset": offset, "pending": pending[-MAX_PENDING:], "edited": edited,
            "saved": saved}


def _line(line: bytes, pending: list[str], edited: bool, saved: bool) -> tuple[bool, bool]:
    calls = b'"tool_use"' in line and (SAVE_SUFFIX.encode() in line
                                       or any(mark in line for mark in _EDIT_MARKS))
    results = bool(pending) and b'"tool_result"' in line and any(
        p.encode() in line for p in pending)
    if not calls and not results:
        return edited, saved
    try:
        entry = json.loads(line)
        blocks = entry["message"]["content"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return edited, saved
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            name = block.get("name")
            if isinstance(name, str) and name.endswith(SAVE_SUFFIX):
                saved = True
            elif name in EDIT_TOOLS and isinstance(block.get("id"), str):
                pending.append(block["id"])
        elif block.get("type") == "tool_result" and block.get("tool_use_id") in pending:
            pending.remove(block["tool_use_id"])
            if not block.get("is_error"):
                edited = True
    return edited, saved
