"""The detector type and the value checks built from the shared heuristics."""

from __future__ import annotations

import re
from collections.abc import Callable

from .lazy_regex import _Re
from .values import _fake, _has_classes, _is_placeholder

# A check sees the match and the original text. Rules flagged ``lower`` match
# against a lower-cased copy with identical offsets, so spans carry over. It
# returns the kind to report (optionally with a corrected span) or None to veto.
Verdict = str | tuple[str, int, int] | None
Check = Callable[[re.Match[str], str], Verdict]


class _Rule:
    """One detector: where to look, which group to blank, and whether it counts.

    ``group`` holds the secret, so a rule can blank just a value and keep its
    key; checks that find the value themselves return its span instead.
    ``trigger`` is a literal that must occur for the pattern to be worth
    running at all. A plain slotted class: creating a dataclass is slow enough to
    show in the import time of every hook.
    """

    __slots__ = ("check", "group", "kind", "lower", "pattern", "trigger")

    def __init__(
        self,
        kind: str,
        pattern: str,
        group: int | str = 0,
        check: Check | None = None,
        *,
        flags: int = 0,
        lower: bool = False,
        trigger: str = "",
    ) -> None:
        self.kind = kind
        self.pattern = _Re(pattern, flags)
        self.group = group
        self.check = check
        self.lower = lower
        self.trigger = trigger


def _after(width: int, left: str = r"A-Za-z0-9_") -> str:
    """Boundary look-behind placed *after* a literal prefix ``width`` chars long.

    A look-behind at the very start of a pattern stops ``sre`` from jumping
    between occurrences of the prefix with its fast literal search; checking the
    character before the prefix from after it keeps the fast path and still means
    "not in the middle of a word".
    """
    return rf"(?<![{left}].{{{width}}})"


_W = r"A-Za-z0-9_\-"  # word characters of dashed identifiers


def _original(m: re.Match[str], text: str, group: int | str = "v") -> str:
    start, end = m.span(group)
    return text[start:end]


def _fixed(kind: str, value_ok: Callable[[str], bool], group: int | str = "v") -> Check:
    def check(m: re.Match[str], text: str) -> Verdict:
        return kind if value_ok(_original(m, text, group)) else None

    return check


def _random(kind: str, classes: int = 3) -> Check:
    """For prefixes that also start ordinary words or identifiers (``sk-learn-…``,
    ``hf_hub_…``): the tail must mix character classes like generated keys do."""
    return _fixed(kind, lambda v: _has_classes(v, classes) and not _is_placeholder(v), 0)


def _with_digit(kind: str) -> Check:
    """Slack tokens embed numeric team/user ids; ``xoxb-your-token-here`` does not. Ids
    followed by a mask (``xoxp-5723…-5723…-####…``) are what is left once the secret part
    was masked: nothing to hide."""
    def check(m: re.Match[str], text: str) -> Verdict:
        v = m.group(0)
        if not any(c.isdigit() for c in v) or _is_placeholder(v):
            return None
        if v.endswith("-") and text[m.end():m.end() + 4] in ("####", "****", "xxxx", "XXXX"):
            return None
        return kind

    return check


def _not_placeholder(kind: str, group: int | str = "v") -> Check:
    """Doc examples spell webhook ids as ``T00000000/B00000000/XXXXXXXX``."""
    return _fixed(
        kind,
        lambda v: not _is_placeholder(v) and not _fake(v) and not set(v) <= set("xX0_/TB"),
        group,
    )
