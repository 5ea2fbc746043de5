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

from .cli import parse_date
from .intervals import TimeFilter
from .parser import parse_temporal

__all__ = ["TimeFilter", "parse_date", "parse_temporal"]
