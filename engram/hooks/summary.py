"""Stop / PreCompact / SessionEnd: one task summary per session, from the transcript.

The transcript (JSON Lines of user/assistant entries, `message.content` a string or a
list of text/tool_use/tool_result blocks) is read, distilled by heuristics, and
forgotten: only the summary is saved, through service.checkpoint(session_id=…), which
updates the same memory in place on every later call of the same session.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from . import triage

MAX_TRANSCRIPT_BYTES = 30_000_000
SUMMARIZER_TIMEOUT = 12.0
EDIT_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
_DECISION_RE = re.compile(
    r"\b(I decided|we decided|decided to|decision:|I'll use|we'll use|let's use|going with|"
    r"I chose|we chose|switched to|instead of|rather than|opted for)\b",
    re.IGNORECASE,
)
_TODO_RE = re.compile(
    r"^\s*(?:[-*]\s*)?(?:\*\*)?(TODO|FIXME|Follow[- ]up|Next steps?|Still to do|Remaining)"
    r"(?:\*\*)?\s*[:\-—]\s*(.+)$",
    re.IGNORECASE | re.MULTILINE,
)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_SYSTEMISH_RE = re.compile(r"^\s*<(command-|local-command|system-reminder|user-prompt-submit)")


@dataclass
class Digest:
    prompts: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    commands_ok: list[str] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    todos: list[str] = field(default_factory=list)
    last_text: str = ""
    tool_calls: int = 0

    @property
    def empty(self) -> bool:
        return not (self.prompts and (self.tool_calls or self.last_text))


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        b.get("text", "") for b in _blocks(content) if isinstance(b.get("text"), str)
    )


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read(path: str, cwd: str | None = None) -> Digest:
    uses: list[dict[str, Any]] = []
    results: dict[str, tuple[bool, str]] = {}
    digest = Digest()
    texts: list[str] = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        data = handle.read(MAX_TRANSCRIPT_BYTES)
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("isSidechain") or entry.get("isMeta"):
            continue
        message = entry.get("message")
        if entry.get("type") not in ("user", "assistant") or not isinstance(message, dict):
            continue
        for block in _blocks(message.get("content")):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                if entry["type"] == "user":
                    if block["text"].strip() and not _SYSTEMISH_RE.match(block["text"]):
                        digest.prompts.append(block["text"].strip())
                else:
                    texts.append(block["text"])
            elif kind == "tool_use" and isinstance(block.get("input"), dict):
                uses.append(block)
            elif kind == "tool_result" and isinstance(block.get("tool_use_id"), str):
                results[block["tool_use_id"]] = (bool(block.get("is_error")), _result_text(block))
    digest.tool_calls = len(uses)
    digest.last_text = texts[-1].strip() if texts else ""
    _tools(digest, uses, results, cwd)
    _prose(digest, texts)
    return digest


def _tools(digest: Digest, uses: list[dict[str, Any]], results: dict[str, tuple[bool, str]],
           cwd: str | None) -> None:
    status: dict[str, bool] = {}
    first_error: dict[str, str] = {}
    last_todos: list[str] | None = None
    for use in uses:
        name, data = use.get("name"), use["input"]
        error, output = results.get(str(use.get("id")), (False, ""))
        if name in EDIT_TOOLS and not error:
            path = data.get("file_path") or data.get("notebook_path")
            if isinstance(path, str) and path:
                if cwd and path.startswith(cwd.rstrip("/") + "/"):
                    path = os.path.relpath(path, cwd)
                if path not in digest.files:
                    digest.files.append(path)
        elif name == "Bash" and isinstance(data.get("command"), str):
            command = data["command"]
            if triage.command_kind(command) is None:
                continue
            ok = not error and triage.bash_succeeded({"stdout": output})
            key = triage.normalize_command(command)
            status[key] = ok
            if not ok and key not in first_error:
                lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
                useful = [ln for ln in lines if not ln.lower().startswith("exit code")]
                first_error[key] = _short((useful or lines or [""])[0], 160)
        elif name == "TodoWrite" and isinstance(data.get("todos"), list):
            last_todos = [
                t["content"] for t in data["todos"]
                if isinstance(t, dict) and isinstance(t.get("content"), str)
                and t.get("status") != "completed"
            ]
    for command, ok in status.items():
        if ok:
            digest.commands_ok.append(command)
        if command in first_error:
            note = first_error[command] + ("; passed later" if ok else "")
            digest.failures.append((command, note))
    digest.todos.extend(last_todos or [])


def _prose(digest: Digest, texts: list[str]) -> None:
    for text in texts:
        for sentence in _SENTENCE_RE.split(text):
            sentence = sentence.strip(" -*#>")
            if 20 <= len(sentence) <= 300 and _DECISION_RE.search(sentence):
                short = _short(sentence, 200)
                if short not in digest.decisions:
                    digest.decisions.append(short)
        for match in _TODO_RE.finditer(text):
            item = _short(match.group(2), 160)
            if item not in digest.todos:
                digest.todos.append(item)
    digest.decisions = digest.decisions[-5:]
    digest.todos = digest.todos[:8]


def render(digest: Digest) -> str:
    prompts = [p for p in digest.prompts if not triage.is_trivial_prompt(p)] or digest.prompts
    lines = [f"Task: {_short(prompts[0], 240)}"]
    if len(prompts) > 1:
        lines.append("Later requests: " + "; ".join(_short(p, 120) for p in prompts[1:4]))
    if digest.files:
        more = f" (+{len(digest.files) - 15} more)" if len(digest.files) > 15 else ""
        lines.append("Files changed: " + ", ".join(digest.files[:15]) + more)
    if digest.commands_ok:
        lines.append("Commands that worked: " + ", ".join(f"`{c}`" for c in digest.commands_ok[:8]))
    if digest.decisions:
        lines.append("Decisions: " + " | ".join(digest.decisions))
    if digest.failures:
        lines.append("Failed attempts: " + " | ".join(
            f"`{c}` failed" + (f" ({e})" if e else "") for c, e in digest.failures[:5]))
    if digest.todos:
        lines.append("Open todos: " + "; ".join(digest.todos))
    if digest.last_text:
        lines.append(f"Outcome: {_short(digest.last_text, 400)}")
    return "\n".join(lines)


def summarise(text: str) -> str:
    """Optionally rewrite the heuristic digest with a summariser the user configured.

    `[hooks] summarizer = "llm -m gpt-4o-mini 'Summarise this coding session'"` in
    config.toml: the command gets the digest (never the transcript) on stdin and its
    stdout replaces it. No summariser, a failure or a timeout keeps the digest.
    """
    from ..config import load_config

    hooks = load_config().get("hooks")
    command = hooks.get("summarizer") if isinstance(hooks, dict) else None
    if not isinstance(command, str) or not command.strip():
        return text
    import subprocess

    try:
        proc = subprocess.run(command, shell=True, input=text, capture_output=True, text=True,
                              timeout=SUMMARIZER_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return text
    result = proc.stdout.strip()
    return result[:4000] if proc.returncode == 0 and result else text


def checkpoint(service: Any, payload: dict[str, Any], project: str | None) -> Any:
    path = payload.get("transcript_path")
    session_id = payload.get("session_id")
    if not isinstance(path, str) or not os.path.isfile(path):
        return None
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    digest = read(os.path.expanduser(path), cwd)
    if digest.empty:
        return None
    prompts = [p for p in digest.prompts if not triage.is_trivial_prompt(p)] or digest.prompts
    return service.checkpoint(
        summarise(render(digest)), project=project, problem=_short(prompts[0], 1000),
        solution=_short(digest.last_text, 1500) or None, files=digest.files[:50],
        session_id=str(session_id) if session_id else None,
    )
