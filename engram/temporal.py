"""Time expressions in recall queries ("what did we decide last week?") and CLI date flags.

A recognised phrase becomes a UTC interval ``[since, until)`` and is cut out of the query, so
the keyword search does not demand that memories contain the words "last week".

Decisions on ambiguous phrases (all relative to ``now``, UTC, weeks start on Monday):

* Calendar words are calendar periods: "last week" is the previous Monday-to-Monday week,
  "last month" the previous calendar month. With an article or a number they are rolling
  windows ending now: "the last week", "in the past week", "past 3 days", "last 24h" give
  ``since = now - N units`` and no ``until`` (rolling windows are open-ended so clock skew or
  a just-written memory is never cut off).
* "N units ago" is the calendar unit containing ``now - N units``: "3 days ago" is that day,
  "a week ago" that Monday-week, "2 months ago" that month. "a few"/"several"/"несколько"
  count as 3; with "ago" they widen to the units 2..5 back.
* "on Monday" / "in March" / "March 5" without a year mean the most recent one that has
  started (today / this month count). "last Monday" is the most recent Monday before today,
  "next Monday" the first after today, "this Monday" the Monday of the current week.
* Month names need a preposition (in, on, since, during, before, after, from, until, в, с,
  до, после, за...) or a year, so "march through the list" and "we may need" never trigger;
  weekday names and ISO dates need a preposition too ("on 2024-03-05"; a bare date is more
  often a file name or version than a filter), except after "last/this/next".
* "since X" starts at X's start; "after X" at X's end; "before X" ends at X's start; "until X"
  ends at X's end; "between X and Y" / "from X to Y" spans both (swapped if reversed); a bare
  "from X" means during X ("notes from yesterday").
* Seasons are the northern meteorological ones: spring March-May, summer June-August,
  autumn/fall September-November, winter December-February ("winter 2025" begins in
  December 2025). Alone they need a preposition, "last/this/next" or a year ("in the
  summer", "last spring", "summer 2025"; not "fall back", "Spring Boot"); Russian seasons
  ("весной", "прошлым летом") stand alone. "in the spring" / "this spring" is the most recent
  that has started; "last spring" the most recent that has ended; "next spring" the first
  that has not started.
* "early/mid/late X" and "the beginning/middle/end of X" filter by the whole of X: the words
  leave the query (they are no keywords) but the period is not cut to a third. A note is
  often dated days after what it reports; cut to thirds, LoCoMo's "in the beginning of
  January 2023" lost its answer from rank 1 to 3 (the coding set did not change).
  "early/mid/late" need what X needs; "the end of March" stands alone.
* "recently"/"lately" are not recognised: a hard cut-off would hide older but relevant
  memories; ranking should prefer recent ones instead (engram.text drops these words).
* Only the first phrase (leftmost, then longest) is used.
* ``parse_date`` (CLI flags) treats ages exactly ("3d", "3 days ago" = now - 72 h, as git
  does) and any other phrase as the start of its period ("last week" = that Monday 00:00).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

__all__ = ["TimeFilter", "parse_date", "parse_temporal"]


@dataclass(frozen=True)
class TimeFilter:
    """A recognised time phrase as a UTC interval plus the query without it."""

    since: datetime | None  # inclusive, timezone-aware UTC
    until: datetime | None  # exclusive, timezone-aware UTC
    phrase: str | None  # the phrase as written in the query
    query: str  # the query with the phrase removed, whitespace tidied


Interval = tuple[datetime, datetime]

# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------

_MONTHS_EN = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
#: Russian month stems; the regex below accepts the nominative, genitive and locative forms.
_MONTHS_RU = (
    "январ", "феврал", "март", "апрел", "ма", "июн", "июл", "август", "сентябр", "октябр",
    "ноябр", "декабр",
)  # fmt: skip
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_RU = ("понедельн", "вторн", "сред", "четверг", "пятниц", "суббот", "воскресень")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2,
    "один": 1, "одна": 1, "одну": 1, "одного": 1, "два": 2, "две": 2, "пару": 2, "пара": 2,
    "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8, "девять": 9,
    "десять": 10,
}  # fmt: skip
_FUZZY_NUMBERS = frozenset({"few", "several", "несколько"})

_MONTH_EN = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december)"
)
#: Abbreviations only count next to a day or year: "in dec" is as likely to mean decimal.
_MONTH_EN_ABBR = rf"(?:{_MONTH_EN}|(?:jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?)"
_MONTH_RU = (
    r"(?:январ[ьяе]|феврал[ьяе]|март[ае]?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|август[ае]?"
    r"|сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе])"
)
_SEASONS = {
    "spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12,
    "весн": 3, "лет": 6, "осен": 9, "зим": 12,
}  # first month of each; fmt: skip
#: "Spring Boot", "fall back", "summer intern" are not seasons when they stand alone.
_SEASON_EN = (
    r"(?:spring|summer|autumn|fall|winter)"
    r"(?!\s+(?:boot|framework|security|cloud|data|batch|mvc|webflux|integration|back|through))"
)
_SEASON_RU = r"(?:весн[аеуы]|весной|лето|летом|лета|осень|осенью|осени|зим[аеуы]|зимой)"
_WEEKDAY_EN = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_WEEKDAY_RU = (
    r"(?:понедельник[аи]?|вторник[аи]?|сред[аыу]|четверг[аи]?|пятниц[аыу]|суббот[аыу]"
    r"|воскресень[еяю])"
)
_YEAR = r"(?:19[7-9]\d|20\d\d)"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?(?!\d)"
_RU_YEAR_WORD = r"(?:\s*(?:года|году|год|г\.|г\b))?"
_NUM = (
    r"(?:\d{1,4}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|(?:a\s+)?couple(?:\s+of)?|(?:a\s+)?few|several"
    r"|один|одна|одну|одного|два|две|пару|пара|три|четыре|пять|шесть|семь|восемь|девять"
    r"|десять|несколько)"
)
_UNIT_WORD_EN = (
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|mos?|years?"
    r"|yrs?)"
)
#: Single-letter units ("24h", "7d") only directly after a number.
_UNIT_EN = rf"(?:{_UNIT_WORD_EN}|[hdwy])"
_UNIT_RU = r"(?:секунд\w*|минут\w*|час\w*|дн\w*|день|сутки|суток|недел\w*|месяц\w*|год\w*|лет)"
_UNIT = rf"(?:{_UNIT_EN}|{_UNIT_RU})"
#: A year is not a year when a unit follows: "timeout in 2000 ms", "за 2000 рублей".
_NOT_A_QUANTITY = (
    r"(?!\s*%)(?!\s*(?:ms|s|sec|secs|seconds?|minutes?|mins?|hours?|h|kb|mb|gb|bytes?|px|lines?"
    r"|rows?|items?|records?|requests?|tokens?|times|steps|users?|words?|chars?)\b)"
    r"(?!\s*(?:руб|мс|сек|строк|байт|пользовател|запрос|раз)\w*)"
)


# --------------------------------------------------------------------------------------------
# Period grammar: one alternation, each alternative an outer named group (dispatch key).
# --------------------------------------------------------------------------------------------


def _year_part(name: str, *, required: bool, russian: bool = False) -> str:
    core = (
        rf"\s+(?P<{name}_year>{_YEAR}){_RU_YEAR_WORD}"
        if russian
        else rf",?\s+(?P<{name}_year>{_YEAR})"
    )
    return core if required else rf"(?:{core})?"


def _dated_alternatives(*, year_required: bool) -> tuple[str, ...]:
    """Month/day forms; standing alone (no preposition) they need a year to count."""
    req = year_required
    return (
        rf"(?P<md>(?P<md_mon>{_MONTH_EN_ABBR})\s+(?P<md_day>{_DAY})"
        rf"{_year_part('md', required=req)})",
        rf"(?P<dm>(?:the\s+)?(?P<dm_day>{_DAY})(?:\s+of)?\s+(?P<dm_mon>{_MONTH_EN_ABBR})"
        rf"{_year_part('dm', required=req)})",
        rf"(?P<rdm>(?P<rdm_day>{_DAY})\s+(?P<rdm_mon>{_MONTH_RU})"
        rf"{_year_part('rdm', required=req, russian=True)})",
        rf"(?P<mya>(?P<mya_mon>{_MONTH_EN_ABBR}){_year_part('mya', required=True)})",
        rf"(?P<my>(?P<my_mon>{_MONTH_EN}){_year_part('my', required=req)})",
        rf"(?P<rmy>(?P<rmy_mon>{_MONTH_RU}){_year_part('rmy', required=req, russian=True)})",
    )


_RELATIVE_ALTERNATIVES = (
    r"(?P<reldayp>(?P<reldayp_day>this|today|yesterday|сегодня|вчера)\s+"
    r"(?P<reldayp_part>morning|afternoon|evening|night|утром|днём|днем|вечером|ночью))",
    r"(?P<reldayp2>(?P<reldayp2_part>tonight|last\s+night))",
    r"(?P<relday>(?P<relday_w>today|yesterday|tomorrow|(?:the\s+)?day\s+before\s+yesterday"
    r"|сегодня|вчера|завтра|позавчера|сегодняшн\w+\s+дня|вчерашн\w+\s+дня))",
    r"(?P<relunit>(?P<relunit_which>this|last|next|previous|current)\s+"
    r"(?P<relunit_unit>week|month|year|weekend))",
    r"(?P<rrelunit>(?P<rrelunit_which>эт\w*|текущ\w*|прошл\w*|предыдущ\w*|следующ\w*)\s+"
    r"(?P<rrelunit_unit>недел\w*|месяц\w*|год\w*|выходн\w*))",
    rf"(?P<wdq>(?P<wdq_which>last|past|previous|this|next)\s+(?P<wdq_day>{_WEEKDAY_EN}))",
    rf"(?P<rwdq>(?P<rwdq_which>прошл\w*|эт\w*|следующ\w*)\s+(?P<rwdq_day>{_WEEKDAY_RU}))",
    rf"(?P<ago>(?:(?P<ago_n>{_NUM})\s*)?(?P<ago_unit>{_UNIT})\s+(?:ago|назад))",
    rf"(?P<season>(?:(?P<season_which>last|this|next|previous|past)\s+|the\s+)?"
    rf"(?P<season_name>{_SEASON_EN})(?:\s+(?:of\s+)?(?P<season_year>{_YEAR}))?)",
    rf"(?P<rseason>(?:(?P<rseason_which>прошл\w*|эт\w*|следующ\w*)\s+)?"
    rf"(?P<rseason_name>{_SEASON_RU})(?:\s+(?P<rseason_year>{_YEAR}){_RU_YEAR_WORD})?)",
)
_PERIOD_ALTERNATIVES = (
    r"(?P<datetime>\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?"
    r"(?:z|[+-]\d{2}:?\d{2})?)",
    r"(?P<date>(?P<date_y>\d{4})[-/.](?P<date_m>\d{1,2})[-/.](?P<date_d>\d{1,2})(?![\d.:-]))",
    r"(?P<dmy>(?P<dmy_d>\d{1,2})\.(?P<dmy_m>\d{1,2})\.(?P<dmy_y>\d{4}))",
    r"(?P<ym>(?P<ym_y>\d{4})-(?P<ym_m>\d{2})(?![\d-]))",
    *_dated_alternatives(year_required=False),
    rf"(?P<year>(?P<year_y>{_YEAR}){_RU_YEAR_WORD}){_NOT_A_QUANTITY}",
    *_RELATIVE_ALTERNATIVES,
    rf"(?P<wd>(?P<wd_day>{_WEEKDAY_EN}|{_WEEKDAY_RU}))",
)
_FLAGS = re.IGNORECASE
#: Periods that may stand without a preposition: unambiguous as time expressions.
_BARE_KINDS = frozenset(
    {"mya", "reldayp", "reldayp2", "relday", "relunit", "rrelunit", "wdq", "rwdq", "ago",
     "rseason"}
)
#: Month/day kinds that may stand alone only when they carry a year ("March 2024").
_BARE_WITH_YEAR = frozenset({"md", "dm", "rdm", "my", "rmy"})

# --------------------------------------------------------------------------------------------
# Date arithmetic
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Period resolution (text of one period -> interval)
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Query-level matching
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# CLI values
# --------------------------------------------------------------------------------------------

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
