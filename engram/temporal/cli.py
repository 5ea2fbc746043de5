"""CLI date values: ``--since 3d``, ``--since "last week"``, ``--since 2024-03-05``.

Ages are exact, as in git and docker ("3 days ago" is now - 72 h); any other phrase means
the start of its period ("last week" is that Monday 00:00).
"""

from __future__ import annotations

import re
from datetime import datetime

from .intervals import _shift, _utc
from .parser import parse_temporal

#: Ages for CLI flags, exact like `docker --since 3h` or git's "3 days ago".
_AGE_RE = re.compile(r"(\d{1,6}|an?)\s*([a-z]+)(?:\s+ago)?", re.IGNORECASE)
_AGE_UNITS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "second"),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), "minute"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "hour"),
    **dict.fromkeys(("d", "day", "days"), "day"),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), "week"),
    **dict.fromkeys(("mo", "mos", "month", "months"), "month"),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), "year"),
}
_DATE_HELP = (
    "unrecognised date {value!r}: use an ISO 8601 date or datetime (2024-03-05, "
    "2024-03-05T14:30, 2024-03-05T14:30:00+02:00; times without an offset are UTC), "
    "'now', 'today', 'yesterday', an age such as 30m, 6h, 3d, 2w, 1mo, 1y or '3 days ago', "
    "or a phrase such as 'last week', 'in March 2024', 'since Monday'"
)


def parse_date(value: str, now: datetime | None = None) -> datetime:
    """Parse a --since/--until/--created-at/--event-at value into an aware UTC datetime.

    Ages are exact: "3d", "3 days", "3 days ago", "an hour ago" mean now minus that much, as in
    git and `docker --since`. Other phrases resolve to the start of their period: "last week"
    is that Monday 00:00, "yesterday" its midnight, "before X" gives X's start.
    """
    text = " ".join(value.split()) if isinstance(value, str) else ""
    if not text:
        raise ValueError(_DATE_HELP.format(value=value))
    now = _utc(now)
    if text.lower() == "now":
        return now
    if text[:1].isdigit():
        try:
            return _utc(datetime.fromisoformat(text))
        except (ValueError, OverflowError):
            pass
    age = _AGE_RE.fullmatch(text)
    if age and age.group(2).lower() in _AGE_UNITS:
        n = 1 if age.group(1).isalpha() else int(age.group(1))
        try:
            return _shift(now, _AGE_UNITS[age.group(2).lower()], n)
        except (ValueError, OverflowError):
            pass
    found = parse_temporal(text, now)
    if found.phrase is not None and not found.query:
        moment = found.since if found.since is not None else found.until
        if moment is not None:
            return moment
    raise ValueError(_DATE_HELP.format(value=value))
