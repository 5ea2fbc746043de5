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
