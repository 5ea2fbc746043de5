"""Date arithmetic on UTC intervals ``[since, until)``, and the filter a query yields.

Days, Monday-weeks, calendar months and years as intervals; shifting a moment by N units;
counting words ("three", "a few", "несколько") as numbers.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .vocabulary import _FUZZY_NUMBERS, _NUMBERS


@dataclass(frozen=True)
class TimeFilter:
    """A recognised time phrase as a UTC interval plus the query without it."""

    since: datetime | None  # inclusive, timezone-aware UTC
    until: datetime | None  # exclusive, timezone-aware UTC
    phrase: str | None  # the phrase as written in the query
    query: str  # the query with the phrase removed, whitespace tidied


Interval = tuple[datetime, datetime]


def _utc(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if now.tzinfo is None:
        return now.replace(tzinfo=UTC)
    return now.astimezone(UTC)


def _midnight(dt: datetime) -> datetime:
    return dt.replace(hour=0, minute=0, second=0, microsecond=0)


def _day(dt: datetime) -> Interval:
    start = _midnight(dt)
    return start, start + timedelta(days=1)


def _add_months(dt: datetime, months: int) -> datetime:
    years, month0 = divmod(dt.month - 1 + months, 12)
    year = dt.year + years
    month = month0 + 1
    return dt.replace(year=year, month=month, day=min(dt.day, calendar.monthrange(year, month)[1]))


def _month(year: int, month: int) -> Interval:
    start = datetime(year, month, 1, tzinfo=UTC)
    return start, _add_months(start, 1)


def _year(year: int) -> Interval:
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)


def _week_start(dt: datetime) -> datetime:
    return _midnight(dt) - timedelta(days=dt.weekday())


def _unit_name(word: str) -> str | None:
    """English or Russian unit word -> canonical unit."""
    w = word.lower()
    for prefixes, unit in (
        (("sec", "секунд"), "second"),
        (("min", "минут"), "minute"),
        (("h", "час"), "hour"),
        (("d", "дн", "день", "сут"), "day"),
        (("w", "недел"), "week"),
        (("mo", "месяц"), "month"),
        (("y", "год", "лет"), "year"),
    ):
        if w.startswith(prefixes):
            return unit
    return None


def _shift(dt: datetime, unit: str, n: int) -> datetime:
    """dt moved n units back (calendar-aware for months and years)."""
    if unit == "month":
        return _add_months(dt, -n)
    if unit == "year":
        return _add_months(dt, -12 * n)
    return dt - timedelta(**{unit + "s": n})


def _unit_window(dt: datetime, unit: str) -> Interval:
    """The calendar unit (hour, day, Monday-week, month...) containing dt."""
    if unit == "second":
        start = dt.replace(microsecond=0)
        return start, start + timedelta(seconds=1)
    if unit == "minute":
        start = dt.replace(second=0, microsecond=0)
        return start, start + timedelta(minutes=1)
    if unit == "hour":
        start = dt.replace(minute=0, second=0, microsecond=0)
        return start, start + timedelta(hours=1)
    if unit == "day":
        return _day(dt)
    if unit == "week":
        start = _week_start(dt)
        return start, start + timedelta(days=7)
    if unit == "month":
        return _month(dt.year, dt.month)
    return _year(dt.year)


def _count(word: str | None) -> tuple[int, bool] | None:
    """(n, fuzzy) for a number word; None when it is not a count."""
    if word is None:
        return 1, False
    w = " ".join(word.lower().split())
    if w.isdigit():
        return int(w), False
    last = w.split()[-1] if w.split()[-1] != "of" else w.split()[-2]
    if last in _FUZZY_NUMBERS:
        return 3, True
    n = _NUMBERS.get(last)
    return (n, False) if n is not None else None
