"""Where Engram keeps its data and which settings the user chose.

Paths resolve from the environment at call time (not import time) so that tests and
hooks can move them per process: ENGRAM_HOME moves the folder, ENGRAM_DB names a file.

Everything Engram writes is private to the user, because memories, logs and session
state quote their work: folders are created 0700 and files 0600 (a stricter umask still
applies), and ones an older Engram left readable by others are tightened when met.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

TYPE_CHECKING = False  # the typing module costs hook start-up time; annotations are lazy
if TYPE_CHECKING:
    from typing import Any


def engram_home() -> Path:
    home = os.environ.get("ENGRAM_HOME")
    return Path(home).expanduser() if home else Path.home() / ".engram"


def default_db_path() -> Path | str:
    """$ENGRAM_DB (a file, or a `postgresql://` URL kept as text), else the home store."""
    explicit = os.environ.get("ENGRAM_DB")
    if explicit and explicit.lower().startswith(("postgresql://", "postgres://")):
        return explicit
    return Path(explicit).expanduser() if explicit else engram_home() / "memory.db"


def private_dir(path: Path) -> Path:
    """Create `path` and any missing parents owner-only (0700); tighten it if it exists.

    Only for folders Engram owns ($ENGRAM_HOME, its subfolders, a store's new folder):
    an existing folder of the user's (say, the one a chosen --db file sits in) is left
    alone by not calling this on it.
    """
    try:
        os.mkdir(path, 0o700)  # the umask applies: a stricter one stays stricter
    except FileExistsError:
        tighten(path)
    except FileNotFoundError:
        if path.parent == path:
            raise
        private_dir(path.parent)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:  # another process made it meanwhile
            tighten(path)
    return path


def home_dir(*parts: str) -> Path:
    """$ENGRAM_HOME, or a folder inside it, created or tightened to owner-only."""
    path = private_dir(engram_home())
    for part in parts:
        path = private_dir(path / part)
    return path


def tighten(path: str | Path) -> None:
    """Take group and other access off a file or folder of ours (best effort).

    Regular files and folders owned by this user only: never a device such as
    /dev/stdout that an export may be pointed at, never someone else's file.
    """
    try:
        info = os.stat(path)
        if _ours_and_loose(info, dirs=True):
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o077)
    except OSError:
        pass


def _ours_and_loose(info: os.stat_result, *, dirs: bool) -> bool:
    """Group or others may read it, it is ours, and it is a file (or folder). Windows has
    no such bits (nor os.geteuid): there, nothing is ever tightened."""
    if not info.st_mode & 0o077 or not hasattr(os, "geteuid"):
        return False
    kind_ok = stat.S_ISREG(info.st_mode) or (dirs and stat.S_ISDIR(info.st_mode))
    return kind_ok and info.st_uid == os.geteuid()


def open_private(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Any:
    """`open(path, mode)` for a file only its owner may read: created 0600, and an
    existing regular file of ours loses group/other access before anything is written.

    `mode` is "w", "a", "x" or their binary forms; text modes use `encoding`.
    """
    flags = {"w": os.O_TRUNC, "a": os.O_APPEND, "x": os.O_EXCL}[mode[0]]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        info = os.fstat(fd)
        if _ours_and_loose(info, dirs=False):
            os.fchmod(fd, stat.S_IMODE(info.st_mode) & ~0o077)
        if "b" in mode:
            return os.fdopen(fd, mode)
        return os.fdopen(fd, mode, encoding=encoding)
    except BaseException:
        os.close(fd)
        raise


def write_private(path: str | Path, data: str | bytes, encoding: str = "utf-8") -> None:
    """Write a whole file only its owner may read (exports, backups, session state)."""
    binary = isinstance(data, bytes)
    with open_private(path, "wb" if binary else "w", None if binary else encoding) as handle:
        handle.write(data)


def config_path() -> Path:
    return engram_home() / "config.toml"


def embedder_spec() -> str | None:
    """The embedder the user chose: $ENGRAM_EMBEDDER, else config.toml's `embedder`.

    None means the default. Every entry point reads the choice here, so `engram doctor`
    checks the model that searches will load.
    """
    return os.environ.get("ENGRAM_EMBEDDER") or load_config().get("embedder")


def load_config() -> dict[str, Any]:
    """Read ~/.engram/config.toml; a missing or unreadable file means defaults."""
    path = config_path()
    if not path.is_file():
        return {}
    import tomllib  # ~18 ms: only when there is a config to read

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def team_server(config: dict[str, Any] | None = None) -> tuple[str | None, str | None]:
    """(url, token) of the team server this machine's clients use: ENGRAM_URL and
    ENGRAM_TOKEN, else config.toml's `[server]` (`engram setup --url`); (None, None) when
    there is none, or when ENGRAM_DB names a local store, which always wins."""
    if os.environ.get("ENGRAM_DB"):
        return None, None
    server = (load_config() if config is None else config).get("server")
    server = server if isinstance(server, dict) else {}
    url = os.environ.get("ENGRAM_URL", "").strip() or server.get("url")
    token = os.environ.get("ENGRAM_TOKEN", "").strip() or server.get("token")
    if not isinstance(url, str) or not url:
        return None, None
    return url, token if isinstance(token, str) and token else None
