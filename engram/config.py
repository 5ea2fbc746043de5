"""Where Engram keeps its data and which settings the user chose.

Paths resolve from the environment at call time (not import time) so that tests and
hooks can move them per process: ENGRAM_HOME moves the folder, ENGRAM_DB names a file.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # the typing module costs hook start-up time; annotations are lazy
if TYPE_CHECKING:
    from typing import Any


def engram_home() -> Path:
    home = os.environ.get("ENGRAM_HOME")
    return Path(home).expanduser() if home else Path.home() / ".engram"


def default_db_path() -> Path:
    explicit = os.environ.get("ENGRAM_DB")
    return Path(explicit).expanduser() if explicit else engram_home() / "memory.db"


def config_path() -> Path:
    return engram_home() / "config.toml"


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
