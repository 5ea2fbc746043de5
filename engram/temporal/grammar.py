"""The period grammar: one alternation, each alternative an outer named group (dispatch key).

Each alternative is one way to write a period (a date, a month with or without a year,
"last week", "3 days ago", a weekday, a season); its group name tells the resolver which
interval it means. Some kinds may stand without a preposition, some only with a year.
"""

from __future__ import annotations

import re

from .vocabulary import (
    _DAY,
    _MONTH_EN,
    _MONTH_EN_ABBR,
    _MONTH_RU,
    _NOT_A_QUANTITY,
    _NUM,
    _RU_YEAR_WORD,
    _SEASON_EN,
    _SEASON_RU,
    _UNIT,
    _WEEKDAY_EN,
    _WEEKDAY_RU,
    _YEAR,
)


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
