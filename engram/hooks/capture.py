"""PostToolUse: what a tool call teaches, saved without asking the agent.

Two things are worth keeping: a build/test/lint/run command that just worked (a
`verified_command`, so the next session runs the right thing first time) and Claude's
own memory notes (memory/*.md, MEMORY.md), imported one memory per note, bullet or section.
"""

from __future__ import annotations

import os
import re
from typing import Any

from . import triage

KIND_LABELS = {
    "test": "Run the tests",
    "lint": "Check the code (lint/types/format)",
    "build": "Build/install",
    "run": "Run",
}
MAX_FILE_ITEMS = 50
MIN_ITEM_CHARS = 12
MAX_ITEM_CHARS = 4_000
MAX_MEMORY_FILE_BYTES = 200_000


def verified_command(service: Any, payload: dict[str, Any], project: str | None, *,
                     count_use: bool = True) -> Any:
    """Save a successful command once; None when it does not qualify. Each run that passes
    counts one use of the recipe (`count_use=False`: a run this hook may have counted)."""
    # capture's command lexicons (~0.1 s to compile) load for a Bash call, not for every
    # hook process (SessionStart and UserPromptSubmit answer within a tight deadline)
    from ..capture.commands import is_recipe, verdict_hidden
    from ..capture.shell import normalize_command
    from ..redaction import contains_secret

    tool_input = payload.get("tool_input") or {}
    command = tool_input.get("command")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    if not isinstance(command, str) or not is_recipe(command, cwd):
        return None
    kind = triage.command_kind(command)
    if tool_input.get("run_in_background"):
        return None
    if kind is None or not triage.bash_succeeded(payload.get("tool_response")):
        return None
    response = payload.get("tool_response")
    if verdict_hidden(command, response.get("stdout") if isinstance(response, dict) else response):
        return None  # `go test -v | grep token`: what grep kept does not say it passed
    if contains_secret(command):
        return None  # a command with a token in it is not a recipe to keep
    normalized = normalize_command(command)
    if normalized is None:
        return None  # a script or something unreadable: not stored in a form that may not run
    meta: dict[str, Any] = {"command": normalized, "kind": kind}
    description = tool_input.get("description")
    if isinstance(description, str) and description.strip() and not contains_secret(description):
        meta["description"] = description.strip()[:200]
    if payload.get("session_id"):
        meta["session_id"] = str(payload["session_id"])
    result = service.save(
        f"{KIND_LABELS[kind]}: `{normalized}`",
        type="verified_command", project=project, provenance="hook", tags=[kind], meta=meta,
    )
    if result.duplicate and count_use:
        service.mark_used([result.memory.id])  # one recipe; each run that passes counts
    return result


# --- memory Markdown files -----------------------------------------------------------------

_FRONTMATTER_RE = re.compile(r"\A---\s*\n(.*?)\n---\s*(\n|\Z)", re.DOTALL)
_BULLET_RE = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING_RE = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_FRONTMATTER_TYPES = {
    "user": "preference", "feedback": "preference", "project": "project_fact",
    "reference": "resource",
}


def guess_type(text: str, declared: str | None = None) -> str:
    """The note's front-matter type when Claude declared one, else the service's reading
    of its words (the same rule as `type: auto`)."""
    if declared in _FRONTMATTER_TYPES:
        return _FRONTMATTER_TYPES[declared]
    from ..service.inference import infer_type

    return infer_type(text)


def _clip(item: str) -> str:
    """One item stays one memory: an overlong one is cut (not refused with the whole file)."""
    return item if len(item) <= MAX_ITEM_CHARS else item[: MAX_ITEM_CHARS - 1] + "…"


def split_markdown(text: str, *, index: bool = False) -> tuple[list[str], str | None]:
    """(items, declared type): one item per bullet (with its heading), one per prose section.

    A topic file of Claude Code's auto memory (front matter with a `name` or `description`
    and a `type`) is one note by design: the fact or rule, its **Why:** and its **How to
    apply:** stay one memory, named by the note, unless it is long (then one memory per
    section). `index`: the file is MEMORY.md, whose lines linking a topic file (`- [Title](
    topic.md) — hook`) point to a note imported on its own."""
    declared = None
    fields: dict[str, str] = {}
    match = _FRONTMATTER_RE.match(text)
    if match:
        for line in match.group(1).splitlines():
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip().strip("'\"")
        declared = fields.get("type", "").lower() or None
        text = text[match.end():]
    title = fields.get("name") or fields.get("description")
    if declared and title:
        return _topic_note(title, text), declared
    items: list[str] = []
    heading: str | None = None
    prose: list[str] = []
    bullet: list[str] | None = None

    def flush_bullet() -> None:
        nonlocal bullet
        if bullet:
            body = " ".join(" ".join(bullet).split())
            items.append(f"{heading}: {body}" if heading and len(body) < 200 else body)
        bullet = None

    def flush_prose() -> None:
        if prose:
            body = " ".join(" ".join(prose).split())
            items.append(f"{heading}: {body}" if heading else body)
            prose.clear()

    for raw in text.splitlines():
        if index and _POINTER_RE.match(raw):
            flush_bullet()
            continue
        line = _LINK_RE.sub(r"\1", raw.rstrip())
        if not line.strip():
            flush_bullet()
            continue
        head = _HEADING_RE.match(line)
        if head:
            flush_bullet()
            flush_prose()
            heading = head.group(1).strip() or None
            continue
        item = _BULLET_RE.match(line)
        if item and len(item.group(1)) < 2:
            flush_bullet()
            bullet = [item.group(2)]
        elif bullet is not None:
            bullet.append(line.strip())
        else:
            prose.append(line.strip())
    flush_bullet()
    flush_prose()
    cleaned = [_clip(i.strip()) for i in items if len(i.strip()) >= MIN_ITEM_CHARS]
    return list(dict.fromkeys(cleaned))[:MAX_FILE_ITEMS], declared


#: A topic note longer than this is kept one memory per section.
MAX_TOPIC_NOTE_CHARS = 2_000
# MEMORY.md's line pointing to a topic file beside it: "- [Title](topic.md) — hook".
_POINTER_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+.*\]\((?!https?:|/)[^)\s]+\.md\)")


def _topic_note(title: str, body: str) -> list[str]:
    """An auto-memory topic file as one item, its lines kept (a heading as "Heading:"), or
    when long one item per section, each named by the note and the section."""
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    for raw in body.splitlines():
        line = _LINK_RE.sub(r"\1", raw.rstrip())
        head = _HEADING_RE.match(line)
        if head:
            sections.append((head.group(1).strip() or None, []))
        elif line.strip():
            sections[-1][1].append(line)
    sections = [(None if heading and heading.lower() == title.lower() else heading, lines)
                for heading, lines in sections if lines]
    whole = "\n".join(line for heading, lines in sections
                      for line in ([f"{heading}:"] if heading else []) + lines)
    if len(whole) <= MAX_TOPIC_NOTE_CHARS:
        parts = [f"{title}: {whole}" if whole else title]
    else:
        parts = [(f"{title} — {heading}: " if heading else f"{title}: ") + "\n".join(lines)
                 for heading, lines in sections]
    cleaned = [_clip(p.strip()) for p in parts if len(p.strip()) >= MIN_ITEM_CHARS]
    return list(dict.fromkeys(cleaned))[:MAX_FILE_ITEMS]


def memory_file(service: Any, payload: dict[str, Any], project: str | None) -> list[Any]:
    """Import the memory file as it now is on disk (after the Write/Edit)."""
    tool_input = payload.get("tool_input") or {}
    path = tool_input.get("file_path")
    if not triage.is_memory_file(path):
        return []
    if not os.path.isabs(path) and isinstance(payload.get("cwd"), str):
        path = os.path.join(payload["cwd"], path)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(MAX_MEMORY_FILE_BYTES)
    except OSError:
        text = tool_input.get("content") if isinstance(tool_input.get("content"), str) else ""
    items, declared = split_markdown(
        text or "", index=os.path.basename(path).upper() == "MEMORY.MD")
    if not items:
        return []
    meta: dict[str, Any] = {"source": os.path.basename(path)}
    if isinstance(payload.get("session_id"), str) and payload["session_id"].strip():
        meta["session_id"] = payload["session_id"].strip()[:200]  # where it was written
    records = [
        {"content": item, "type": guess_type(item, declared), "project": project,
         "provenance": "hook", "tags": ["claude-memory"], "meta": dict(meta)}
        for item in items
    ]
    return service.save_many(records)
