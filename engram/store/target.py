"""What a store target names: a SQLite file, or a PostgreSQL database by URL."""

from __future__ import annotations

import re

_URL_RE = re.compile(r"^postgres(ql)?://", re.IGNORECASE)


def is_url(target: object) -> bool:
    """True for `postgresql://…` / `postgres://…` (PostgreSQL), False for a file path."""
    return isinstance(target, str) and bool(_URL_RE.match(target))
