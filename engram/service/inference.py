"""`type: "auto"`: what kind of memory a sentence is, read the way capture reads sessions.

A person saving from inside the agent (`/engram-save …`) or an agent that does not know
the twelve types gets a typed memory: a rule stated in any of capture's languages is a
constraint or a preference; a choice with its reason is a decision; a question is an open
question; work left for later is a todo; a problem with what fixed it is a bug note;
anything else is a project fact. The same lexicons as capture, so both agree.
"""

from __future__ import annotations

import re

AUTO = "auto"
_TODO_RE = re.compile(
    r"^\s*(todo|fixme|next|later)\b|\b(still need to|needs? to be|have to|should (add|fix|"
    r"write|move|remove)|remember to|don't forget to)\b|нужно будет|надо будет|"
    r"\bnoch (zu tun|offen)\b|il faudra|hay que|falta|待办|还需要|あとで", re.IGNORECASE)
_DECIDED_RE = re.compile(
    r"\b(decided|we('ll| will)? (use|go with)|chose|went with|switched to|settled on|"
    r"opted for|picked)\b|решили|entschieden|décidé|decidimos|decidido|决定|決め",
    re.IGNORECASE)


_FIXED_RE = re.compile(
    r"\b(fix(ed)?|caused by|root cause|solved|resolved|workaround|the bug)\b|исправ|behoben|"
    r"corrig|arregl|修复|修正", re.IGNORECASE)


def infer_type(text: str) -> str:
    # capture's lexicons compile hundreds of patterns (~0.1 s): imported here, on the first
    # `type: "auto"`, not by every process that opens the service
    from ..capture import lexicon
    from ..capture.reading import insight_score, rule_type

    first = text.strip().splitlines()[0] if text.strip() else ""
    if _DECIDED_RE.search(text):
        return "decision"  # "we decided to use X instead of Y" states a choice, not a rule
    ruled = rule_type(first) or rule_type(text[:400])
    if ruled:
        return ruled
    if text.rstrip().endswith(("?", "？")):
        return "open_question"
    if _TODO_RE.search(text):
        return "todo"
    if _FIXED_RE.search(text) and (lexicon.PROBLEM_RE.search(text) or re.search(
        r"\b(caused by|root cause|bug|error|exception|loop|leak)\b", text, re.IGNORECASE)
    ):
        return "bug_note"
    if lexicon.ALTERNATIVE_RE.search(text) and insight_score(text) >= 2:
        return "decision"
    return "project_fact"
