"""The review dashboard: static files served by `engram serve` at `/`.

Plain HTML + Alpine.js, Pico.css and uPlot vendored from npm (see static/vendor/README.md):
no build step, no network. All data comes from the `/v1` API.
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
