"""Query-level matching: finding the time phrase in a query and turning it into bounds.

A period with its preposition ("since March", "between X and Y", "before last week") or a
rolling window ("in the past 3 days") is found, the leftmost and longest wins, and it is cut
from the query so the keyword search does not demand its words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import cache

from .grammar import _BARE_KINDS, _BARE_WITH_YEAR, _FLAGS, _PERIOD_ALTERNATIVES
from .intervals import Interval, TimeFilter, _add_months, _count, _shift, _unit_name, _utc
from .periods import _resolve
from .vocabulary import _NUM, _UNIT, _UNIT_RU, _UNIT_WORD_EN

Bounds = tuple[datetime | None, datetime | None]

_START = r"(?<![\w./\\-])"
_END = r"(?:['’]s)?(?![\w/\\-]|\.\w)"
#: Preposition -> how it turns the period [start, end) into bounds. Longer spellings first.
_PREPOSITIONS: dict[str, str] = {
    "between": "range", "между": "range",
    "from": "from", "с": "from-since", "со": "from-since", "от": "from-since",
    "начиная с": "since", "начиная со": "since", "since": "since", "starting": "since",
    "as of": "since",
    "after": "after", "после": "after",
    "before": "before", "prior to": "before", "до": "before",
    "until": "until", "till": "until", "through": "until", "up to": "until",
    "in": "during", "during": "during", "at": "during", "on": "during", "for": "during",
    "в": "during", "во": "during", "на": "during", "за": "during",
    "earlier": "qualifier", "later": "qualifier",
    # a part of one day: "the night of 10.01.2024"
    "the night of": "during", "the morning of": "during", "the evening of": "during",
    "the afternoon of": "during", "the day of": "during", "night of": "during",
}  # fmt: skip
_PREP = "|".join(
    p.replace(" ", r"\s+") for p in sorted(_PREPOSITIONS, key=len, reverse=True)
)
_CONJUNCTION_RE = re.compile(r"\s+(?:and|to|until|till|through|thru|и|по|до|-|–)\s+", _FLAGS)
#: "now" only ends a range ("from March to now"); alone it is not a period.
_NOW_RE = re.compile(r"(?:now|the\s+present|сейчас)(?![\w/\\-])", _FLAGS)
_ROLL_PREP = r"(?:(?:in|within|over|during|for)\s+)"
_LAST = r"(?:last|past|previous)"
#: A part of the period that follows ("early March", "the end of last year"): cut from the
#: query with it; the filter is the whole period (module notes).
_PART = r"(?:early|mid|late|(?:beginning|start|middle|end)\s+of(?:\s+the)?)"


@cache
def _phrase_re() -> re.Pattern[str]:
    """[preposition] period. Compiled on first use: the period grammar is large."""
    period = "|".join(_PERIOD_ALTERNATIVES)
    return re.compile(
        rf"{_START}(?:(?P<prep>{_PREP})\s+)?(?:(?:the\s+)?(?P<part>{_PART})[\s-]+)?"
        rf"(?:{period}){_END}", _FLAGS)


@cache
def _rolling_res() -> tuple[re.Pattern[str], ...]:
    """Windows ending now: "in the last 3 days", "past week", "за последние 2 недели"."""
    sources = (
        rf"{_ROLL_PREP}?(?:the\s+)?{_LAST}\s+(?P<n>{_NUM})\s*(?P<unit>{_UNIT})",
        rf"{_ROLL_PREP}?the\s+{_LAST}\s+(?P<unit>{_UNIT_WORD_EN})",
        rf"{_ROLL_PREP}?past\s+(?P<unit>{_UNIT_WORD_EN})",
        rf"(?:за|в\s+течение|в)\s+(?:последн|прошедш)\w*\s+(?:(?P<n>{_NUM})\s+)?"
        rf"(?P<unit>{_UNIT_RU})",
    )
    return tuple(re.compile(_START + src + _END, _FLAGS) for src in sources)


def _is_bare_ok(m: re.Match[str]) -> bool:
    kind = m.lastgroup or ""
    if kind == "season":  # "last spring", "summer 2025"; "spring" alone is too often a word
        return bool(m["season_which"] or m["season_year"])
    if (m["part"] or "").lower().endswith(("of", "the")):  # "the end of March"
        return True
    return kind in _BARE_KINDS or (kind in _BARE_WITH_YEAR and m[kind + "_year"] is not None)


def _range_end(query: str, m: re.Match[str], now: datetime) -> tuple[Interval, int] | None:
    """The "and Y" of "between X and Y": (Y's interval, end offset) if present."""
    conj = _CONJUNCTION_RE.match(query, m.end())
    if conj is None:
        return None
    now_word = _NOW_RE.match(query, conj.end())
    if now_word is not None:
        return (now, now + timedelta(microseconds=1)), now_word.end()
    second = _phrase_re().match(query, conj.end())
    if second is None or second["prep"] is not None:
        return None
    interval = _resolve(second, now)
    return (interval, second.end()) if interval is not None else None


def _phrase_candidate(
    query: str, m: re.Match[str], now: datetime
) -> tuple[Bounds, int] | None:
    """(bounds, end offset) of a "[preposition] period" match, None if it is not a filter."""
    prep = m["prep"]
    role = _PREPOSITIONS.get(" ".join(prep.lower().split())) if prep else None
    if role in (None, "qualifier") and not _is_bare_ok(m):
        return None
    period = _resolve(m, now)
    if period is None:
        return None
    start, end = period
    if role in ("range", "from", "from-since"):
        second = _range_end(query, m, now)
        if second is not None:
            (start2, end2), stop = second
            if start > start2:  # "between March and May" in March: last year's March
                start, end = _earlier_occurrence(m, (start, end), start2)
            return (min(start, start2), max(end, end2)), stop
        if role == "range":
            return None
    bounds: Bounds = {
        "since": (start, None),
        "from-since": (start, None),
        "after": (end, None),
        "before": (None, start),
        "until": (None, end),
    }.get(role or "", (start, end))
    return bounds, m.end()


def _earlier_occurrence(m: re.Match[str], period: Interval, limit: datetime) -> Interval:
    """The previous occurrence of a year-less month/day or a weekday, if that precedes limit.

    Otherwise the range is simply reversed and the caller's min/max puts it in order.
    """
    kind = m.lastgroup or ""
    start, end = period
    if kind in _BARE_WITH_YEAR and m[kind + "_year"] is None:
        earlier = (_add_months(start, -12), _add_months(end, -12))
    elif kind in ("wd", "wdq", "rwdq"):
        earlier = (start - timedelta(days=7), end - timedelta(days=7))
    else:
        return period
    return earlier if earlier[0] <= limit else period


def _rolling_candidate(m: re.Match[str], now: datetime) -> tuple[Bounds, int] | None:
    count = _count(m.groupdict().get("n"))
    unit = _unit_name(m["unit"])
    if count is None or unit is None:
        return None
    return (_shift(now, unit, count[0]), None), m.end()


def _candidates(query: str, now: datetime) -> Iterator[tuple[int, int, Bounds]]:
    """(start, end, bounds) of every plausible phrase, leftmost first per pattern."""
    for m in _phrase_re().finditer(query):
        found = _phrase_candidate(query, m, now)
        if found is not None and _ordered(found[0]):
            yield m.start(), found[1], found[0]
            break
    for pattern in _rolling_res():
        for m in pattern.finditer(query):
            found = _rolling_candidate(m, now)
            if found is not None and _ordered(found[0]):
                yield m.start(), found[1], found[0]
                break


def _ordered(bounds: Bounds) -> bool:
    since, until = bounds
    return since is None or until is None or since < until


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)
    return text.strip(" ,;:-–")


def _empty(query: str) -> TimeFilter:
    return TimeFilter(None, None, None, query)


def parse_temporal(query: str, now: datetime | None = None) -> TimeFilter:
    """Find the first time phrase in a query; never raises (a bad phrase is just not one)."""
    if not isinstance(query, str):
        return _empty("")
    now = _utc(now)
    best: tuple[int, int, Bounds] | None = None
    for start, end, bounds in _candidates(query, now):
        if best is None or (start, -end) < (best[0], -best[1]):
            best = (start, end, bounds)
    if best is None:
        return _empty(query)
    start, end, (since, until) = best
    rest = query[:start] + " " + query[end:]
    return TimeFilter(since, until, query[start:end], _tidy(rest))
