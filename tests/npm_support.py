"""Real agent CLIs from npm, pinned, installed once per test session into a private folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def npm_tools(tmp_path_factory: pytest.TempPathFactory, *packages: str) -> Path:
    """The `node_modules/.bin` folder holding `packages` (skips the test without npm)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the real agent CLIs come from npm")
    where = tmp_path_factory.mktemp("npm-tools")
    proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(where),
                           *packages], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return where / "node_modules" / ".bin"
