"""`engram setup --summarizer …`: turn the opt-in LLM summariser on or off in Engram's own
config.toml (`[hooks] summarizer`), keeping every other key and comment of the file.

It is opt-in because it spends the quota of the account the agent CLI is logged into
(engram/capture/summariser.py runs it, in the background, after sessions).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..config import config_path, home_dir, open_private
from .files import FileChange, SetupError, read_bytes

CHOICES = ("claude", "codex", "endpoint", "off")
_ENDPOINT_RE = re.compile(r"(ollama|openai):\S+")
WHAT = "Engram summariser"


def parse(value: str) -> tuple[str | None, str | None]:
    """(summarizer, summarizer_model) for a --summarizer value; (None, None) is off."""
    value = value.strip()
    if value == "off":
        return None, None
    if value in CHOICES:
        return value, None
    if _ENDPOINT_RE.fullmatch(value):
        return "endpoint", value
    raise SetupError(f"unknown summarizer {value!r}; choose claude, codex, endpoint "
                     "(or ollama:<model> / openai:<model>), or off")


def change(value: str, path: Path | None = None) -> FileChange:
    """The config.toml edit for `value` (computed, not written)."""
    import tomllib

    import tomlkit

    summarizer, model = parse(value)
    path = path or config_path()
    before = read_bytes(path)
    text = (before or b"").decode("utf-8", "replace")
    try:
        tomllib.loads(text)
        doc = tomlkit.parse(text)
    except Exception as exc:  # noqa: BLE001 - tomllib and tomlkit raise many kinds
        raise SetupError(f"{path} is not valid TOML ({exc}); fix it, then re-run") from None
    hooks = doc.get("hooks")
    if hooks is not None and not hasattr(hooks, "get"):
        raise SetupError(f"{path}: `hooks` is not a table")
    if summarizer is None:
        if hooks is None or "summarizer" not in hooks:
            return FileChange(path, before, before, WHAT)
        del hooks["summarizer"]
        if not hooks:
            del doc["hooks"]
    else:
        if hooks is None:
            hooks = tomlkit.table()
            doc.add("hooks", hooks)
        if hooks.get("summarizer") != summarizer:
            hooks["summarizer"] = summarizer
        if model is not None and hooks.get("summarizer_model") != model:
            hooks["summarizer_model"] = model
    after = tomlkit.dumps(doc).encode()
    if after == (before or b""):
        return FileChange(path, before, before, WHAT)
    return FileChange(path, before, after, WHAT)


def write(edit: FileChange) -> None:
    """Replace config.toml atomically, private to the user like the rest of $ENGRAM_HOME."""
    if not edit.changed or edit.after is None:
        return
    if edit.path.parent == config_path().parent:
        home_dir()  # $ENGRAM_HOME, created or tightened to owner-only
    else:
        edit.path.parent.mkdir(parents=True, exist_ok=True)
    tmp = edit.path.with_name(f".{edit.path.name}.{os.getpid()}.tmp")
    with open_private(tmp, "wb") as handle:
        handle.write(edit.after)
    os.replace(tmp, edit.path)


def note(value: str) -> str:
    """One line for the user: what the setting does, and what it costs."""
    summarizer, model = parse(value)
    if summarizer is None:
        return "summarizer off: sessions keep the heuristic memories only"
    if summarizer == "endpoint":
        which = model or 'its model from summarizer_model = "ollama:<model>"'
        return f"summarizer endpoint ({which}): runs in the background after sessions"
    return (f"summarizer {summarizer}: runs `{summarizer}` in the background after sessions; "
            "it spends that account's quota")
