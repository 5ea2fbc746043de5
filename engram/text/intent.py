"""Which kinds of memory a query asks for, from the words it asks with.

"What did we decide last week?" asks for decisions, "which todos …" for todos, "what broke
last month" for bugs and incidents. Once a time phrase or a filter has narrowed the
candidates, the rest of such a query ("what did we decide") shares no word and little
meaning with any memory; its one clear signal is the kind of memory it wants, which the
ranking then prefers (ranking.rerank_factors). A word only counts when it names the kind,
not when it merely could ("happened", "must" and "never" are left out: they are as
common in questions about facts).
"""

from __future__ import annotations

import re
from functools import cache

#: Memory type -> words (regex alternatives, lower case) that ask for it.
_ASKING_WORDS: dict[str, tuple[str, ...]] = {
    "decision": (r"decid\w*", r"decision\w*", r"agreed", r"chose", r"chosen",
                 r"решил\w*", r"решени\w*", r"entschied\w*", r"entscheidung\w*",
                 r"decidi\w*", r"decisi[oó]n\w*"),
    "todo": (r"todos?", r"to-dos?", r"backlog"),
    "bug_note": (r"bugs?", r"broke", r"broken", r"crash\w*", r"regressions?", r"баг\w*",
                 r"сломал\w*", r"fehler\w*", r"errores"),
    "episode": (r"incidents?", r"outages?", r"broke", r"инцидент\w*", r"сбо[йи]\w*",
                r"ausf[aä]ll\w*", r"incidentes?", r"ca[ií]das?"),
    "failed_attempt": (r"tried", r"attempts?", r"didn'?t\s+work", r"did\s+not\s+work",
                       r"пробовал\w*", r"попытк\w*", r"versucht", r"probamos", r"intent\w*"),
    "open_question": (r"open\s+questions?", r"unanswered", r"unresolved",
                      r"открыт\w*\s+вопрос\w*", r"offene\w*\s+fragen?", r"preguntas?\s+abiertas?"),
    "preference": (r"prefer\w*",),
    "constraint": (r"rules?", r"constraints?", r"forbidden", r"правил\w*", r"regeln?",
                   r"reglas?"),
    "verified_command": (r"commands?", r"команд\w*", r"befehl\w*", r"comandos?"),
}  # fmt: skip


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple(
        (kind, re.compile(r"(?<!\w)(?:" + "|".join(words) + r")(?!\w)", re.IGNORECASE))
        for kind, words in _ASKING_WORDS.items()
    )


def asked_types(query: str) -> frozenset[str]:
    """The memory types ``query`` names by asking for them (empty when it names none)."""
    if not isinstance(query, str) or not query:
        return frozenset()
    return frozenset(kind for kind, pattern in _patterns() if pattern.search(query))


#: A query about what someone asked ("which questions did she ask", "what did he wonder").
_ASKS_ABOUT_QUESTIONS = re.compile(
    r"(?<!\w)(?:ask\w*|questions?|wonder\w*|спрашива\w*|спросил\w*|вопрос\w*|frag\w*"
    r"|pregunt\w*)(?!\w)",
    re.IGNORECASE,
)


def asks_about_questions(query: str) -> bool:
    """Whether ``query`` is about questions someone asked: then a memory that only asks
    something is an answer too (ranking.only_asks)."""
    return isinstance(query, str) and _ASKS_ABOUT_QUESTIONS.search(query) is not None


#: A query asking when something happened, or for how long ("When did she …", "what day",
#: "how long ago", "in what month").
_ASKS_WHEN = re.compile(
    r"(?<!\w)(?:when|since\s+when|how\s+long(?:\s+ago)?|(?:what|which)\s+(?:day|date|time|"
    r"month|year|week(?:end)?)|когда|wann|cu[aá]ndo|quand|quando)(?!\w)",
    re.IGNORECASE,
)
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
#: "may" only as a month when it is one: "in May", "May 5", not "may I".
_MONTH = (r"(?:january|february|march|april|june|july|august|september|october|november"
          r"|december|(?:in|on|since|of|until)\s+may|may\s+\d)")
#: Words that place a statement in time: "today", "last night", "two years ago", "on
#: Friday", "in March", "since 2019", a date.
_STATES_TIME = re.compile(
    r"(?<!\w)(?:today|tonight|yesterday|tomorrow|ago|earlier|recently|weekend"
    r"|(?:this|last|next|every)\s+(?:morning|afternoon|evening|night|week|month|year|time"
    rf"|{_WEEKDAY})|{_WEEKDAY}s?|{_MONTH}|(?:19|20)\d\d|\d{{1,2}}[./-]\d{{1,2}}(?:[./-]\d{{2,4}})?"
    r"|in\s+(?:a|an|\d+|a\s+few|a\s+couple\s+of)\s+(?:days?|weeks?|months?|years?|hours?)"
    r"|(?:days?|weeks?|months?|years?)\s+(?:ago|later|before|after))(?!\w)",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """Whether ``query`` asks when (or since when, for how long) something happened."""
    return isinstance(query, str) and _ASKS_WHEN.search(query) is not None


def states_time(text: str) -> bool:
    """Whether ``text`` says when something happened ("today", "last week", "in 2019")."""
    return isinstance(text, str) and _STATES_TIME.search(text) is not None
