"""Period resolution: the text of one matched period becomes an interval.

Names become numbers, and "March", "last Monday", "this spring", "3 days ago" become the
interval they mean relative to ``now`` (the rules are in the package notes); a date that does
not exist resolves to nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from .intervals import (
    Interval,
    _add_months,
    _count,
    _day,
    _midnight,
    _month,
    _shift,
    _unit_name,
    _unit_window,
    _utc,
    _week_start,
    _year,
)
from .vocabulary import _MONTHS_EN, _MONTHS_RU, _SEASONS, _WEEKDAYS_EN, _WEEKDAYS_RU


def _month_number(word: str) -> int:
    w = word.lower().rstrip(".")
    if w in _MONTHS_EN:
        return _MONTHS_EN[w]
    # Russian: longest stem first so "март" never resolves as "ма" (May).
    for stem in sorted(_MONTHS_RU, key=len, reverse=True):
        if w.startswith(stem):
            return _MONTHS_RU.index(stem) + 1
    raise ValueError(word)


def _weekday_number(word: str) -> int:
    w = word.lower()
    for names in (_WEEKDAYS_EN, _WEEKDAYS_RU):
        for i, name in enumerate(names):
            if w.startswith(name):
                return i
    raise ValueError(word)


def _recent_month(month: int, year: str | None, now: datetime) -> Interval:
    """A month, in the given year or else the most recent one that has started."""
    if year:
        return _month(int(year), month)
    y = now.year if month <= now.month else now.year - 1
    return _month(y, month)


def _recent_day(month: int, day: str, year: str | None, now: datetime) -> Interval:
    d = int(re.sub(r"\D", "", day))
    if year:
        return _day(datetime(int(year), month, d, tzinfo=UTC))
    candidate = datetime(now.year, month, d, tzinfo=UTC)
    if candidate > now:
        candidate = datetime(now.year - 1, month, d, tzinfo=UTC)
    return _day(candidate)


def _season(name: str, which: str | None, year: str | None, now: datetime) -> Interval:
    """A season (see the module notes for which one each phrase means)."""
    first = next(m for stem, m in _SEASONS.items() if name.lower().startswith(stem))
    if year:
        start = datetime(int(year), first, 1, tzinfo=UTC)
        return start, _add_months(start, 3)
    start = datetime(now.year, first, 1, tzinfo=UTC)
    while start > now:  # the most recent one that has started
        start = _add_months(start, -12)
    w = (which or "").lower()
    if w.startswith(("last", "previous", "past", "прошл")) and _add_months(start, 3) > now:
        start = _add_months(start, -12)  # still going on: the one before it
    elif w.startswith(("next", "следующ")):
        start = _add_months(start, 12)
    return start, _add_months(start, 3)


def _weekday_day(weekday: int, which: str | None, now: datetime) -> Interval:
    today = _midnight(now)
    back = (today.weekday() - weekday) % 7  # 0 when today is that weekday
    w = (which or "").lower()
    if w.startswith(("last", "past", "previous", "прошл")):
        back = back or 7
    elif w.startswith(("next", "следующ")):
        return _day(today + timedelta(days=(weekday - today.weekday()) % 7 or 7))
    elif w.startswith(("this", "эт")):
        return _day(_week_start(now) + timedelta(days=weekday))
    return _day(today - timedelta(days=back))


def _relative_unit(which: str, unit: str, now: datetime) -> Interval:
    w = which.lower()
    u = unit.lower()
    offset = 0
    if w.startswith(("last", "previous", "прошл", "предыдущ")):
        offset = -1
    elif w.startswith(("next", "следующ")):
        offset = 1
    if u.startswith(("weekend", "выходн")):
        start = _week_start(now) + timedelta(days=5 + 7 * offset)
        return start, start + timedelta(days=2)
    canonical = _unit_name(u) or "week"
    return _unit_window(_shift(now, canonical, -offset), canonical)


_DAY_PARTS = {
    "morning": (0, 12), "утром": (0, 12), "afternoon": (12, 18), "днём": (12, 18),
    "днем": (12, 18), "evening": (18, 24), "вечером": (18, 24), "night": (18, 30),
    "ночью": (18, 30),
}  # fmt: skip


def _day_part(day_word: str, part: str, now: datetime) -> Interval:
    day = _midnight(now)
    if day_word.lower() in ("yesterday", "вчера") or part.lower().startswith("last"):
        day -= timedelta(days=1)
    key = part.lower().split()[-1]
    first, last = _DAY_PARTS.get(key, (18, 24) if key == "tonight" else (18, 30))
    return day + timedelta(hours=first), day + timedelta(hours=last)


def _relative_day(word: str, now: datetime) -> Interval:
    w = " ".join(word.lower().split())
    today = _midnight(now)
    if w.endswith("before yesterday") or w == "позавчера":
        offset = -2
    elif w in ("yesterday", "вчера") or w.startswith("вчерашн"):
        offset = -1
    elif w in ("tomorrow", "завтра"):
        offset = 1
    else:
        offset = 0
    return _day(today + timedelta(days=offset))


def _ago(n_word: str | None, unit_word: str, now: datetime) -> Interval | None:
    count = _count(n_word)
    unit = _unit_name(unit_word)
    if count is None or unit is None:
        return None
    n, fuzzy = count
    if fuzzy:  # "a few days ago": anything 2..5 units back
        return _unit_window(_shift(now, unit, 5), unit)[0], _unit_window(
            _shift(now, unit, 2), unit
        )[1]
    return _unit_window(_shift(now, unit, n), unit)


def _precise(text: str) -> Interval:
    instant = _utc(datetime.fromisoformat(text.upper().replace(" ", "T")))
    step = timedelta(seconds=1) if text.count(":") >= 2 else timedelta(minutes=1)
    return instant, instant + step


_Resolver = Callable[[re.Match[str], datetime], "Interval | None"]
_RESOLVERS: dict[str, _Resolver] = {
    "datetime": lambda m, now: _precise(m["datetime"]),
    "date": lambda m, now: _day(
        datetime(int(m["date_y"]), int(m["date_m"]), int(m["date_d"]), tzinfo=UTC)
    ),
    "dmy": lambda m, now: _day(
        datetime(int(m["dmy_y"]), int(m["dmy_m"]), int(m["dmy_d"]), tzinfo=UTC)
    ),
    "ym": lambda m, now: _month(int(m["ym_y"]), int(m["ym_m"])),
    "md": lambda m, now: _recent_day(_month_number(m["md_mon"]), m["md_day"], m["md_year"], now),
    "dm": lambda m, now: _recent_day(_month_number(m["dm_mon"]), m["dm_day"], m["dm_year"], now),
    "rdm": lambda m, now: _recent_day(
        _month_number(m["rdm_mon"]), m["rdm_day"], m["rdm_year"], now
    ),
    "my": lambda m, now: _recent_month(_month_number(m["my_mon"]), m["my_year"], now),
    "mya": lambda m, now: _recent_month(_month_number(m["mya_mon"]), m["mya_year"], now),
    "rmy": lambda m, now: _recent_month(_month_number(m["rmy_mon"]), m["rmy_year"], now),
    "year": lambda m, now: _year(int(m["year_y"])),
    "reldayp": lambda m, now: _day_part(m["reldayp_day"], m["reldayp_part"], now),
    "reldayp2": lambda m, now: _day_part("", m["reldayp2_part"], now),
    "relday": lambda m, now: _relative_day(m["relday_w"], now),
    "relunit": lambda m, now: _relative_unit(m["relunit_which"], m["relunit_unit"], now),
    "rrelunit": lambda m, now: _relative_unit(m["rrelunit_which"], m["rrelunit_unit"], now),
    "wdq": lambda m, now: _weekday_day(_weekday_number(m["wdq_day"]), m["wdq_which"], now),
    "rwdq": lambda m, now: _weekday_day(_weekday_number(m["rwdq_day"]), m["rwdq_which"], now),
    "wd": lambda m, now: _weekday_day(_weekday_number(m["wd_day"]), None, now),
    "ago": lambda m, now: _ago(m["ago_n"], m["ago_unit"], now),
    "season": lambda m, now: _season(m["season_name"], m["season_which"], m["season_year"], now),
    "rseason": lambda m, now: _season(
        m["rseason_name"], m["rseason_which"], m["rseason_year"], now
    ),
}


def _resolve(m: re.Match[str], now: datetime) -> Interval | None:
    """Interval of the period matched by ``_phrase_re``; None for dates that do not exist."""
    kind = m.lastgroup
    if kind is None or kind not in _RESOLVERS:
        return None
    try:
        return _RESOLVERS[kind](m, now)
    except (ValueError, OverflowError):
        return None
