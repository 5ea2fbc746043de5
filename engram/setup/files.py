"""Editing other programs' config files without breaking them.

Every edit is computed first (old bytes → new bytes), so `--dry-run` is a diff and a
second run that would change nothing writes nothing. Before a file is changed for the
first time its original bytes are copied under $ENGRAM_HOME/backups, and what was
written is recorded (setup-state.json): `--uninstall` then restores the original bytes
exactly when nobody touched the file since, and otherwise removes only our entries.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import engram_home, home_dir, write_private
from ..errors import EngramError

BEGIN_MARKER = "<!-- engram:begin -->"
END_MARKER = "<!-- engram:end -->"
_BLOCK_RE = re.compile(
    r"(\n?)" + re.escape(BEGIN_MARKER) + r".*?" + re.escape(END_MARKER) + r"\n?", re.DOTALL
)


class SetupError(EngramError):
    """A config file we must not touch (unparseable, not a file…)."""


@dataclass
class FileChange:
    path: Path
    before: bytes | None  # None: the file does not exist
    after: bytes | None  # None: delete the file
    what: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        label = str(self.path)
        lines = difflib.unified_diff(
            old, new, fromfile=label if self.before is not None else "/dev/null",
            tofile=label if self.after is not None else "/dev/null",
        )
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise SetupError(f"{path} is a folder, not a file") from None


# --- JSON ------------------------------------------------------------------------------------


def same_line_endings(text: str, like: str) -> str:
    """`text` with the line endings of `like`: a CRLF file stays CRLF."""
    if "\r\n" not in like:
        return text
    return re.sub(r"(?<!\r)\n", "\r\n", text)


_JSONC_RE = re.compile(r'"(?:[^"\\]|\\.)*"|(?P<comment>//[^\n]*|/\*.*?\*/)', re.DOTALL)


def _has_comments(raw: str) -> bool:
    return any(m.group("comment") for m in _JSONC_RE.finditer(raw))


def load_json(path: Path, raw: bytes | None) -> dict[str, Any]:
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError as exc:
        if _has_comments(raw.decode("utf-8", "replace")):
            # Rewriting would drop the user's comments: leave the file to them.
            raise SetupError(
                f"{path} has comments, which Engram will not rewrite away; remove them"
                " (or add Engram's entry by hand), then re-run") from None
        raise SetupError(f"{path} is not valid JSON ({exc}); fix or move it, then re-run") from None
    if not isinstance(data, dict):
        raise SetupError(f"{path} does not hold a JSON object; fix or move it, then re-run")
    return data


def dump_json(data: dict[str, Any], like: bytes | None) -> bytes:
    """Serialise in the file's own style: its indentation, its final newline, key order."""
    indent: int | str = 2
    newline = True
    if like:
        text = like.decode("utf-8", "replace")
        match = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
        if match:
            indent = "\t" if match.group(1).startswith("\t") else len(match.group(1))
        newline = text.endswith("\n")
    out = json.dumps(data, indent=indent, ensure_ascii=False) + ("\n" if newline else "")
    return same_line_endings(out, like.decode("utf-8", "replace") if like else "").encode()


def json_change(path: Path, what: str, edit: Any) -> FileChange:
    """`edit(data)` mutates a parsed copy; unchanged data means unchanged bytes."""
    before = read_bytes(path)
    data = load_json(path, before)
    original = json.loads(json.dumps(data))
    edit(data)
    if data == original:
        return FileChange(path, before, before, what)
    if not data and before is not None and not original:
        return FileChange(path, before, before, what)
    return FileChange(path, before, dump_json(data, before), what)


# --- Markdown instruction blocks ---------------------------------------------------------------


def block(text: str) -> str:
    return f"{BEGIN_MARKER}\n{text.strip()}\n{END_MARKER}\n"


def add_block(current: str, text: str) -> str:
    wanted = block(text)
    if BEGIN_MARKER in current:
        return _BLOCK_RE.sub(lambda m: m.group(1) + wanted, current, count=1)
    if not current:
        return wanted
    separator = "\n" if current.endswith("\n") else "\n\n"
    return current + separator + wanted


def remove_block(current: str) -> str:
    def drop(match: re.Match[str]) -> str:
        return ""

    result = _BLOCK_RE.sub(drop, current)
    return result


# --- applying, backups, uninstall state ------------------------------------------------------


def _state_path() -> Path:
    return engram_home() / "setup-state.json"


def load_state() -> dict[str, Any]:
    try:
        data = json.loads(_state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"files": {}}
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return {"files": {}}
    return data


def save_state(state: dict[str, Any]) -> None:
    path = _state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _backup(path: Path, data: bytes, stamp: str) -> Path:
    """A copy only the user may read (0600 in 0700 folders): config files hold tokens."""
    safe = str(path.absolute()).strip("/").replace("/", "__")
    target = home_dir("backups", stamp) / safe
    write_private(target, data)
    return target


def _write(path: Path, data: bytes | None) -> None:
    if data is None:
        if path.exists():
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.engram-tmp")
    tmp.write_bytes(data)
    with contextlib.suppress(FileNotFoundError):
        os.chmod(tmp, path.stat().st_mode & 0o7777)
    os.replace(tmp, path)


def apply(changes: list[FileChange], state: dict[str, Any], *, installing: bool) -> list[str]:
    """Write the changed files; returns the backup paths made."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backups: list[str] = []
    for change in changes:
        if not change.changed:
            continue
        key = str(change.path.absolute())
        entry = state["files"].get(key)
        if change.before is not None:
            backups.append(str(_backup(change.path, change.before, stamp)))
        if installing:
            if entry is None:
                entry = {"existed": change.before is not None,
                         "original": backups[-1] if change.before is not None else None}
            entry["written"] = sha256(change.after)
            state["files"][key] = entry
        else:
            state["files"].pop(key, None)
        _write(change.path, change.after)
    save_state(state)
    return backups


def restore_or(change: FileChange, state: dict[str, Any]) -> FileChange:
    """For uninstall: the original bytes when the file is exactly as we left it."""
    entry = state["files"].get(str(change.path.absolute()))
    if not entry or entry.get("written") != sha256(change.before) or change.before is None:
        return change
    if not entry.get("existed"):
        return FileChange(change.path, change.before, None, change.what)
    try:
        original = Path(entry["original"]).read_bytes()
    except (OSError, TypeError, KeyError):
        return change
    return FileChange(change.path, change.before, original, change.what)
