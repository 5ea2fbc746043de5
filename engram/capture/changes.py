"""What an edit changed, in one short line a colleague can read.

A memory of a change ("tried SameSite Lax, reverted"; "the token goes in hx-headers") is
only useful if it names what was changed; the words before an edit often do not (they
say "trying Lax first"), while the edit's own lines always do.
"""

from __future__ import annotations

import difflib

from .transcript import ToolCall

MAX_LINE_CHARS = 90


def _line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS - 1] + "…"


def _pairs(call: ToolCall) -> list[tuple[str, str]]:
    if call.name == "MultiEdit":
        edits = call.input.get("edits")
        pairs = edits if isinstance(edits, list) else []
    elif call.name == "Edit":
        pairs = [call.input]
    else:
        return []
    return [(p["old_string"], p["new_string"]) for p in pairs if isinstance(p, dict)
            and isinstance(p.get("old_string"), str) and isinstance(p.get("new_string"), str)]


def change_gist(call: ToolCall) -> str:
    """The first changed line of an Edit or MultiEdit as "`old` → `new`", "added `x`" or
    "removed `x`"; empty for other tools or an edit that changes only blank space."""
    for old, new in _pairs(call):
        before = [" ".join(line.split()) for line in old.splitlines() if line.strip()]
        after = [" ".join(line.split()) for line in new.splitlines() if line.strip()]
        removed: list[str] = []
        added: list[str] = []
        matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                removed += before[i1:i2]
                added += after[j1:j2]
        if removed and added:
            return f"`{_line(removed[0])}` → `{_line(added[0])}`"
        if added:
            return f"added `{_line(added[0])}`"
        if removed:
            return f"removed `{_line(removed[0])}`"
    return ""
