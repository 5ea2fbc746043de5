"""engram.temporal with a fixed clock: Wednesday 2026-03-18 15:00 UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.temporal import TimeFilter, parse_date, parse_temporal

NOW = datetime(2026, 3, 18, 15, 0, tzinfo=UTC)
assert NOW.weekday() == 2  # Wednesday


def d(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def bounds(found: TimeFilter) -> tuple[datetime | None, datetime | None]:
    return found.since, found.until


# (query, since, until, phrase, query without the phrase)
CASES: list[tuple[str, datetime | None, datetime | None, str, str]] = [
    # days and parts of days
    ("today", d(2026, 3, 18), d(2026, 3, 19), "today", ""),
    ("what did we decide yesterday about auth?", d(2026, 3, 17), d(2026, 3, 18), "yesterday",
     "what did we decide about auth?"),
    ("yesterday's deploy notes", d(2026, 3, 17), d(2026, 3, 18), "yesterday's", "deploy notes"),
    ("the day before yesterday", d(2026, 3, 16), d(2026, 3, 17), "the day before yesterday", ""),
    ("tomorrow's release", d(2026, 3, 19), d(2026, 3, 20), "tomorrow's", "release"),
    ("this morning", d(2026, 3, 18), d(2026, 3, 18, 12), "this morning", ""),
    ("bug found this afternoon", d(2026, 3, 18, 12), d(2026, 3, 18, 18), "this afternoon",
     "bug found"),
    ("tonight", d(2026, 3, 18, 18), d(2026, 3, 19), "tonight", ""),
    ("last night outage", d(2026, 3, 17, 18), d(2026, 3, 18, 6), "last night", "outage"),
    ("yesterday evening", d(2026, 3, 17, 18), d(2026, 3, 18), "yesterday evening", ""),
    # calendar weeks / months / years (weeks start on Monday)
    ("this week", d(2026, 3, 16), d(2026, 3, 23), "this week", ""),
    ("decisions from last week", d(2026, 3, 9), d(2026, 3, 16), "from last week", "decisions"),
    ("last week", d(2026, 3, 9), d(2026, 3, 16), "last week", ""),
    ("earlier this week", d(2026, 3, 16), d(2026, 3, 23), "earlier this week", ""),
    ("next week", d(2026, 3, 23), d(2026, 3, 30), "next week", ""),
    ("last weekend", d(2026, 3, 14), d(2026, 3, 16), "last weekend", ""),
    ("this month", d(2026, 3, 1), d(2026, 4, 1), "this month", ""),
    ("last month", d(2026, 2, 1), d(2026, 3, 1), "last month", ""),
    ("this year", d(2026, 1, 1), d(2027, 1, 1), "this year", ""),
    ("last year", d(2025, 1, 1), d(2026, 1, 1), "last year", ""),
    ("in 2024", d(2024, 1, 1), d(2025, 1, 1), "in 2024", ""),
    # seasons (northern, meteorological) and parts of a period; NOW is in March, i.e. spring
    ("incidents last summer", d(2025, 6, 1), d(2025, 9, 1), "last summer", "incidents"),
    ("bugs we hit last spring", d(2025, 3, 1), d(2025, 6, 1), "last spring", "bugs we hit"),
    ("what changed this spring", d(2026, 3, 1), d(2026, 6, 1), "this spring", "what changed"),
    ("in the winter", d(2025, 12, 1), d(2026, 3, 1), "in the winter", ""),
    ("outage in fall 2024", d(2024, 9, 1), d(2024, 12, 1), "in fall 2024", "outage"),
    ("что ломалось прошлым летом", d(2025, 6, 1), d(2025, 9, 1), "прошлым летом",
     "что ломалось"),
    # parts of a period leave the query but filter by the whole period (module notes)
    ("the orders pipeline in early March", d(2026, 3, 1), d(2026, 4, 1), "in early March",
     "the orders pipeline"),
    ("deploys in mid-February", d(2026, 2, 1), d(2026, 3, 1), "in mid-February", "deploys"),
    ("the warehouse migration at the end of last year", d(2025, 1, 1), d(2026, 1, 1),
     "at the end of last year", "the warehouse migration"),
    ("the end of January", d(2026, 1, 1), d(2026, 2, 1), "the end of January", ""),
    ("since late 2025", d(2025, 1, 1), None, "since late 2025", ""),
    # rolling windows end now (open-ended)
    ("in the last 3 days", NOW - timedelta(days=3), None, "in the last 3 days", ""),
    ("errors in the last 24 hours", NOW - timedelta(hours=24), None, "in the last 24 hours",
     "errors"),
    ("past 2 weeks", NOW - timedelta(weeks=2), None, "past 2 weeks", ""),
    ("over the past week", NOW - timedelta(weeks=1), None, "over the past week", ""),
    ("in the last week", NOW - timedelta(weeks=1), None, "in the last week", ""),
    ("last 24h", NOW - timedelta(hours=24), None, "last 24h", ""),
    ("in the past few days", NOW - timedelta(days=3), None, "in the past few days", ""),
    ("in the last 2 months", d(2026, 1, 18, 15), None, "in the last 2 months", ""),
    # "ago" = the calendar unit containing now - N units
    ("3 days ago", d(2026, 3, 15), d(2026, 3, 16), "3 days ago", ""),
    ("a week ago", d(2026, 3, 9), d(2026, 3, 16), "a week ago", ""),
    ("2 months ago", d(2026, 1, 1), d(2026, 2, 1), "2 months ago", ""),
    ("an hour ago", d(2026, 3, 18, 14), d(2026, 3, 18, 15), "an hour ago", ""),
    ("a couple of days ago", d(2026, 3, 16), d(2026, 3, 17), "a couple of days ago", ""),
    ("a few days ago", d(2026, 3, 13), d(2026, 3, 17), "a few days ago", ""),
    # months
    ("in March", d(2026, 3, 1), d(2026, 4, 1), "in March", ""),
    ("what broke in march 2024?", d(2024, 3, 1), d(2024, 4, 1), "in march 2024", "what broke?"),
    ("in May", d(2025, 5, 1), d(2025, 6, 1), "in May", ""),
    ("during December", d(2025, 12, 1), d(2026, 1, 1), "during December", ""),
    ("March 2024 incident", d(2024, 3, 1), d(2024, 4, 1), "March 2024", "incident"),
    ("Dec 2025 outage", d(2025, 12, 1), d(2026, 1, 1), "Dec 2025", "outage"),
    ("on March 5", d(2026, 3, 5), d(2026, 3, 6), "on March 5", ""),
    ("on the 5th of March", d(2026, 3, 5), d(2026, 3, 6), "on the 5th of March", ""),
    ("on March 20", d(2025, 3, 20), d(2025, 3, 21), "on March 20", ""),
    ("March 5, 2024 deploy", d(2024, 3, 5), d(2024, 3, 6), "March 5, 2024", "deploy"),
    # weekdays: most recent (today counts for "on", not for "last")
    ("on Monday", d(2026, 3, 16), d(2026, 3, 17), "on Monday", ""),
    ("on Wednesday", d(2026, 3, 18), d(2026, 3, 19), "on Wednesday", ""),
    ("last Friday", d(2026, 3, 13), d(2026, 3, 14), "last Friday", ""),
    ("last Wednesday", d(2026, 3, 11), d(2026, 3, 12), "last Wednesday", ""),
    ("this Friday", d(2026, 3, 20), d(2026, 3, 21), "this Friday", ""),
    ("next Monday", d(2026, 3, 23), d(2026, 3, 24), "next Monday", ""),
    # since / before / after / until / between
    ("since Monday", d(2026, 3, 16), None, "since Monday", ""),
    ("since March", d(2026, 3, 1), None, "since March", ""),
    ("what changed since 2024-03-01", d(2024, 3, 1), None, "since 2024-03-01", "what changed"),
    ("since last week", d(2026, 3, 9), None, "since last week", ""),
    ("since 2024-03-05T10:00Z", d(2024, 3, 5, 10), None, "since 2024-03-05T10:00Z", ""),
    ("before 2024-03-01", None, d(2024, 3, 1), "before 2024-03-01", ""),
    ("after 2024-03-01", d(2024, 3, 2), None, "after 2024-03-01", ""),
    ("after March", d(2026, 4, 1), None, "after March", ""),
    ("until Friday", None, d(2026, 3, 14), "until Friday", ""),
    ("on 2024-03-05", d(2024, 3, 5), d(2024, 3, 6), "on 2024-03-05", ""),
    ("in 2024-03", d(2024, 3, 1), d(2024, 4, 1), "in 2024-03", ""),
    ("between 2024-03-01 and 2024-03-05", d(2024, 3, 1), d(2024, 3, 6),
     "between 2024-03-01 and 2024-03-05", ""),
    ("between 2024-03-05 and 2024-03-01", d(2024, 3, 1), d(2024, 3, 6),
     "between 2024-03-05 and 2024-03-01", ""),
    ("from November to February", d(2025, 11, 1), d(2026, 3, 1), "from November to February",
     ""),
    ("between March and May", d(2025, 3, 1), d(2025, 6, 1), "between March and May", ""),
    ("between Monday and Friday", d(2026, 3, 9), d(2026, 3, 14), "between Monday and Friday",
     ""),
    ("from 2024-01-01 to now", d(2024, 1, 1), NOW + timedelta(microseconds=1),
     "from 2024-01-01 to now", ""),
    # Russian
    ("вчера", d(2026, 3, 17), d(2026, 3, 18), "вчера", ""),
    ("что решили сегодня?", d(2026, 3, 18), d(2026, 3, 19), "сегодня", "что решили?"),
    ("позавчера", d(2026, 3, 16), d(2026, 3, 17), "позавчера", ""),
    ("что сделали на прошлой неделе", d(2026, 3, 9), d(2026, 3, 16), "на прошлой неделе",
     "что сделали"),
    ("на этой неделе", d(2026, 3, 16), d(2026, 3, 23), "на этой неделе", ""),
    ("в прошлом месяце", d(2026, 2, 1), d(2026, 3, 1), "в прошлом месяце", ""),
    ("в этом году", d(2026, 1, 1), d(2027, 1, 1), "в этом году", ""),
    ("за последние 3 дня", NOW - timedelta(days=3), None, "за последние 3 дня", ""),
    ("за последнюю неделю", NOW - timedelta(weeks=1), None, "за последнюю неделю", ""),
    ("в марте", d(2026, 3, 1), d(2026, 4, 1), "в марте", ""),
    ("в мае 2024 года", d(2024, 5, 1), d(2024, 6, 1), "в мае 2024 года", ""),
    ("в 2024 году", d(2024, 1, 1), d(2025, 1, 1), "в 2024 году", ""),
    ("с марта", d(2026, 3, 1), None, "с марта", ""),
    ("с понедельника", d(2026, 3, 16), None, "с понедельника", ""),
    ("до пятницы", None, d(2026, 3, 13), "до пятницы", ""),
    ("в понедельник", d(2026, 3, 16), d(2026, 3, 17), "в понедельник", ""),
    ("в прошлую пятницу", d(2026, 3, 13), d(2026, 3, 14), "в прошлую пятницу", ""),
    ("3 дня назад", d(2026, 3, 15), d(2026, 3, 16), "3 дня назад", ""),
    ("неделю назад", d(2026, 3, 9), d(2026, 3, 16), "неделю назад", ""),
    ("5 марта 2024", d(2024, 3, 5), d(2024, 3, 6), "5 марта 2024", ""),
    ("с 05.03.2024 по 10.03.2024", d(2024, 3, 5), d(2024, 3, 11), "с 05.03.2024 по 10.03.2024",
     ""),
    ("сегодня утром", d(2026, 3, 18), d(2026, 3, 18, 12), "сегодня утром", ""),
]  # fmt: skip


@pytest.mark.parametrize(("query", "since", "until", "phrase", "rest"), CASES)
def test_phrase_bounds(
    query: str, since: datetime | None, until: datetime | None, phrase: str, rest: str
) -> None:
    assert parse_temporal(query, NOW) == TimeFilter(since, until, phrase, rest)


@pytest.mark.parametrize(
    "query",
    [
        "march through the list of open tickets",
        "we may need to migrate",
        "it may fail under load",
        "May the force be with you",
        "in dec and hex",
        "timeout in 2000 ms",
        "cpu in 2000 % range",
        "за 2000 рублей",
        "src/today.ts is the entry point",
        "today_view.tsx",
        "login handler",
        "on Mondays we deploy",
        "the 2024-03-05 migration",
        "version 2024",
        "last 3 commits",
        "Feb 30",
        "on Feb 30",
        "between Monday",
        "recently changed auth config",
        "migrate the service to Spring Boot",
        "in Spring Boot 3 the config moved",
        "tests fall back to sqlite",
        "the summer intern wrote this",
        "late may be better than never",
        "from now on use pnpm",
        "",
        "   ",
    ],
)
def test_false_positives_are_ignored(query: str) -> None:
    assert parse_temporal(query, NOW) == TimeFilter(None, None, None, query)


def test_month_wrap_in_january() -> None:
    jan = d(2026, 1, 10, 9)
    assert bounds(parse_temporal("last month", jan)) == (d(2025, 12, 1), d(2026, 1, 1))
    assert bounds(parse_temporal("in December", jan)) == (d(2025, 12, 1), d(2026, 1, 1))
    assert bounds(parse_temporal("2 months ago", jan)) == (d(2025, 11, 1), d(2025, 12, 1))
    assert bounds(parse_temporal("last year", jan)) == (d(2025, 1, 1), d(2026, 1, 1))
    new_year = d(2026, 1, 1, 12)  # a Thursday
    assert bounds(parse_temporal("last week", new_year)) == (d(2025, 12, 22), d(2025, 12, 29))
    assert bounds(parse_temporal("this week", new_year)) == (d(2025, 12, 29), d(2026, 1, 5))


def test_month_arithmetic_clamps_the_day() -> None:
    end_of_march = d(2026, 3, 31, 12)
    assert parse_temporal("in the last month", end_of_march).since == d(2026, 2, 28, 12)
    assert parse_temporal("past 1 month", d(2024, 3, 31)).since == d(2024, 2, 29)


def test_timefilter_accessors() -> None:
    found = parse_temporal("notes from yesterday", NOW)
    assert found.phrase == "from yesterday"
    assert found.query == "notes"
    assert found.since is not None and found.since.tzinfo == UTC


def test_now_handling() -> None:
    naive = datetime(2026, 3, 18, 15, 0)
    assert parse_temporal("today", naive).since == d(2026, 3, 18)
    moscow = NOW.astimezone(timezone(timedelta(hours=3)))
    assert parse_temporal("today", moscow).since == d(2026, 3, 18)
    late = datetime(2026, 3, 19, 1, 0, tzinfo=timezone(timedelta(hours=3)))  # 22:00 UTC on 18th
    assert parse_temporal("today", late).since == d(2026, 3, 18)
    found = parse_temporal("today")
    assert found.since is not None and found.until is not None
    assert found.since <= datetime.now(UTC) < found.until + timedelta(seconds=1)


def test_non_string_query_never_raises() -> None:
    assert parse_temporal(None, NOW) == TimeFilter(None, None, None, "")  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(
    query=st.text(max_size=80)
    | st.lists(
        st.sampled_from(
            ["in", "on", "since", "before", "after", "between", "and", "from", "to", "last",
             "this", "next", "the", "past", "ago", "3", "a", "few", "days", "week", "month",
             "march", "may", "monday", "2024", "2024-02-30", "2024-13-01", "9999-12-31",
             "1970-01-01", "31", "feb", "в", "с", "до", "марте", "назад", "дня", "yesterday",
             "today", "now", "за", "последние", "Dec", "5th", "of", "'s", ",", "."]
        ),
        max_size=8,
    ).map(" ".join),
    now=st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2098, 12, 31)),
)
def test_parse_temporal_never_raises(query: str, now: datetime) -> None:
    found = parse_temporal(query, now)
    if found.since is not None and found.until is not None:
        assert found.since < found.until
    for bound in (found.since, found.until):
        assert bound is None or bound.utcoffset() == timedelta(0)
    if found.phrase is None:
        assert found.query == query
    else:
        assert found.phrase in query


# --- parse_date -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-03-05", d(2024, 3, 5)),
        ("2024-03-05T14:30", d(2024, 3, 5, 14, 30)),
        ("2024-03-05 14:30:00", d(2024, 3, 5, 14, 30)),
        ("2024-03-05T14:30:00+02:00", d(2024, 3, 5, 12, 30)),
        ("2024-03-05T14:30:00Z", d(2024, 3, 5, 14, 30)),
        ("now", NOW),
        ("today", d(2026, 3, 18)),
        ("Yesterday", d(2026, 3, 17)),
        ("3d", NOW - timedelta(days=3)),
        ("2w", NOW - timedelta(weeks=2)),
        ("6h", NOW - timedelta(hours=6)),
        ("30m", NOW - timedelta(minutes=30)),
        ("1mo", d(2026, 2, 18, 15)),
        ("1y", d(2025, 3, 18, 15)),
        ("last week", d(2026, 3, 9)),
        ("3 days ago", NOW - timedelta(days=3)),
        ("3 days", NOW - timedelta(days=3)),
        ("an hour ago", NOW - timedelta(hours=1)),
        ("a week ago", NOW - timedelta(weeks=1)),
        ("3 дня назад", d(2026, 3, 15)),
        ("in March 2024", d(2024, 3, 1)),
        ("since Monday", d(2026, 3, 16)),
        ("вчера", d(2026, 3, 17)),
        ("before 2024-03-01", d(2024, 3, 1)),
    ],
)
def test_parse_date(value: str, expected: datetime) -> None:
    assert parse_date(value, NOW) == expected


@pytest.mark.parametrize(
    "value",
    ["", "  ", "soon", "2024-13-45", "3 parsecs", "3 dollars", "march", "deploy yesterday", "12"],
)
def test_parse_date_rejects_with_a_helpful_message(value: str) -> None:
    with pytest.raises(ValueError, match="ISO 8601") as info:
        parse_date(value, NOW)
    assert "3d" in str(info.value) and "yesterday" in str(info.value)


@settings(max_examples=150, deadline=None)
@given(value=st.text(max_size=40))
def test_parse_date_only_raises_value_error(value: str) -> None:
    try:
        result = parse_date(value, NOW)
    except ValueError:
        return
    assert result.utcoffset() == timedelta(0)


def test_a_part_of_one_day_names_that_day() -> None:
    found = parse_temporal("what happened on the night of 10.01.2024", now=NOW)
    assert (found.since, found.until) == (datetime(2024, 1, 10, tzinfo=UTC),
                                         datetime(2024, 1, 11, tzinfo=UTC))
    assert "10.01.2024" not in found.query
