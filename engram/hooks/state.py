"""Small state the hooks keep on disk: which project a folder is, what a session has seen,
and the one-line failure log. Stdlib only: this runs in every hook process.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from ..config import engram_home, home_dir, load_config, open_private

TYPE_CHECKING = False  # not `from typing import …`: typing costs ms on every hook call
if TYPE_CHECKING:
    from typing import Any

LOG_MAX_BYTES = 1_000_000
LOG_LINE_CHARS = 2000
#: How much of a message is redacted before the line is cut to LOG_LINE_CHARS: redacting
#: only what is kept could cut a secret in two and miss it.
REDACT_CHARS = 20_000
SESSION_MAX_AGE_DAYS = 30


def log_line(message: str, *, name: str = "hooks.log", redact: bool = True) -> None:
    """Append one line to $ENGRAM_HOME/logs/<name> (0600, redacted like memories).

    Never raises: it is the last resort. `redact=False` is for messages made entirely by
    Engram, such as the deadline backstop's, which must not import anything.
    """
    try:
        folder = home_dir("logs")
        path = folder / name
        try:
            if path.stat().st_size > LOG_MAX_BYTES:
                os.replace(path, path.with_suffix(path.suffix + ".1"))
        except FileNotFoundError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = " ".join(f"{stamp} {message[:REDACT_CHARS]}".split())
        if redact:
            from ..redaction import redact as redact_text  # ~12 ms: only when a line is logged

            line = redact_text(line).text
        with open_private(path, "a") as handle:
            handle.write(line[:LOG_LINE_CHARS] + "\n")
    except Exception:  # noqa: BLE001 - logging must never turn a hook into a failure
        pass


# --- project -----------------------------------------------------------------------------


def project_for(cwd: Any, config: dict[str, Any] | None = None) -> str | None:
    """The project a working directory belongs to.

    An explicit mapping in config.toml wins (`[projects]` "path" = "name", the longest
    matching path); otherwise the name of the enclosing git root; otherwise the folder's
    own name, except for the home folder and the filesystem root (no project: global).
    """
    if not isinstance(cwd, str) or not cwd:
        return None
    path = os.path.abspath(os.path.expanduser(cwd))
    mapping = (config if config is not None else load_config()).get("projects")
    if isinstance(mapping, dict):
        best: tuple[int, str] | None = None
        for prefix, name in mapping.items():
            if not isinstance(name, str) or not name.strip():
                continue
            root = os.path.abspath(os.path.expanduser(str(prefix))).rstrip("/") or "/"
            if (path == root or path.startswith(root.rstrip("/") + "/")) and (
                best is None or len(root) > best[0]
            ):
                best = (len(root), name.strip())
        if best is not None:
            return best[1]
    current = path
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return os.path.basename(current) or None
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if path in ("/", os.path.expanduser("~")):
        return None
    return os.path.basename(path) or None


def default_project(cwd: str | None) -> str | None:
    """The project a save goes to when the caller names none: $ENGRAM_PROJECT (empty means
    global), else the project of the folder it runs in, found as the hooks find it — so the
    CLI, an MCP server over stdio and the hooks file memories under one name."""
    explicit = os.environ.get("ENGRAM_PROJECT")
    if explicit is not None:
        return explicit.strip() or None
    return project_for(cwd)


# --- per-session state -------------------------------------------------------------------


def _session_file(session_id: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:128] or "_"
    return engram_home() / "sessions" / f"{safe}.json"


def load_session(session_id: Any) -> dict[str, Any]:
    if not isinstance(session_id, str) or not session_id:
        return {}
    try:
        data = json.loads(_session_file(session_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_session(session_id: Any, data: dict[str, Any]) -> None:
    """Atomic replace, so a hook killed mid-write leaves the old state, not half a file."""
    if not isinstance(session_id, str) or not session_id:
        return
    path = _session_file(session_id)
    home_dir("sessions")
    data = {**data, "updated_at": time.time()}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open_private(tmp, "w") as handle:
        handle.write(json.dumps(data, ensure_ascii=False))
    os.replace(tmp, path)


def prune_sessions(max_age_days: float = SESSION_MAX_AGE_DAYS) -> int:
    """Forget session state nobody has touched for a month (run at SessionStart)."""
    folder = engram_home() / "sessions"
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed
