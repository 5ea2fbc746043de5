"""The command Claude Code runs for a hook: `sh launch.sh …` in front of `engram hook EVENT`.

The shell launcher (launch.sh, next to this module) reaches a running warm worker with
curl and starts no interpreter; without one it runs the Python hook it was given.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from .client import socket_path

LAUNCHER = Path(__file__).with_name("launch.sh")
# The variables that choose the store (and so the worker's socket): the launcher only
# trusts the socket it was given while they still hold what they held at setup.
STORE_VARIABLES = ("ENGRAM_HOME", "ENGRAM_DB", "ENGRAM_EMBEDDER")


def hook_command(engram: str, event: str) -> str:
    """The shell command for `event`: the launcher, this store's socket, then the
    Python hook `engram hook EVENT` it falls back to."""
    store_env = "|".join(os.environ.get(name, "") for name in STORE_VARIABLES)
    parts = ["sh", str(LAUNCHER), str(socket_path()), store_env, engram, "hook", event]
    return " ".join(shlex.quote(part) for part in parts)


def fallback_of(command: str) -> str:
    """The Python hook inside a launcher command (for `engram doctor`), else `command`."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if len(words) > 4 and words[0] == "sh" and words[1].endswith("launch.sh"):
        return shlex.join(words[4:])
    return command
