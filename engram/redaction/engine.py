"""The engine: run the rules, merge overlapping matches, replace them with placeholders."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

from .lazy_regex import _Re
from .rules import _RULES


@dataclass(frozen=True)
class Redaction:
    """Result of `redact`.

    ``kinds`` lets callers log or surface *that* something was removed (and
    what sort of thing) without ever holding the secret itself.
    """

    text: str
    kinds: tuple[str, ...]


# Anything already redacted must stay inert, otherwise a second pass would
# "find" ``[REDACTED:password]`` as the value of ``password=`` and nest it.
_PLACEHOLDER_TOKEN = _Re(r"\[REDACTED:[a-z0-9_]{1,40}\]")


_Span = tuple[int, int, int, str]  # start, end, priority, kind


def _lowercase(text: str) -> str:
    """Lower-case without moving any offset.

    U+0130 is the only code point whose lower case is two characters; mapping
    it to "I" first keeps match positions valid for the original text.
    """
    lower = text.lower()
    if len(lower) != len(text):
        lower = text.replace("\u0130", "I").lower()
    return lower


def _subtract(
    start: int, end: int, guards: list[tuple[int, int]], guard_starts: list[int]
) -> Iterator[tuple[int, int]]:
    """Yield the parts of [start, end) not covered by an existing placeholder.

    Dropping the whole candidate instead would let ``"abc [REDACTED:x] hunter2"``
    keep ``hunter2``; leaving placeholders intact is what makes `redact`
    idempotent.
    """
    i = max(bisect_left(guard_starts, start) - 1, 0)
    pos = start
    while i < len(guards) and guards[i][0] < end:
        g_start, g_end = guards[i]
        if g_end > pos:
            if g_start > pos:
                yield pos, g_start
            pos = max(pos, g_end)
        i += 1
    if pos < end:
        yield pos, end


def _overlaps(guards: list[tuple[int, int]], guard_starts: list[int], start: int, end: int) -> bool:
    i = bisect_left(guard_starts, end) - 1  # last guard starting before ``end``
    return i >= 0 and guards[i][1] > start


def _find(text: str, first_only: bool = False) -> list[_Span]:
    guards = [m.span() for m in _PLACEHOLDER_TOKEN.finditer(text)] if "[REDACTED:" in text else []
    guard_starts = [g[0] for g in guards]
    lower: str | None = None
    spans: list[_Span] = []
    for priority, rule in enumerate(_RULES):
        if rule.lower:
            if lower is None:
                lower = _lowercase(text)
            subject = lower
        else:
            subject = text
        if rule.trigger and rule.trigger not in subject:
            continue
        check, group = rule.check, rule.group
        for m in rule.pattern.finditer(subject):
            if guards:
                # Cheap skip for the common re-redaction case: the value is
                # already a placeholder (``password=[REDACTED:password]``).
                v_start, v_end = m.span(m.lastgroup or group)
                i = bisect_left(guard_starts, v_start + 1) - 1
                if i >= 0 and guards[i][0] <= v_start and v_end <= guards[i][1]:
                    continue
            if check is None:
                kind = rule.kind
                start, end = m.span(group)
            else:
                verdict = check(m, text)
                if verdict is None:
                    continue
                if isinstance(verdict, str):
                    kind = verdict
                    start, end = m.span(group)
                else:
                    kind, start, end = verdict
            if start >= end:
                continue
            if guards and m.start() < start and _overlaps(guards, guard_starts, m.start(), start):
                # The context that made this a secret is itself a placeholder
                # (``[REDACTED:github_token]=x`` has a "token" key): ignore it.
                continue
            if not guards:
                spans.append((start, end, priority, kind))
            else:
                for s, e in _subtract(start, end, guards, guard_starts):
                    # Leftovers between placeholders: keep only real content so
                    # separators like ", " do not become placeholders.
                    piece = text[s:e]
                    if len(piece.strip()) > 2 and any(c.isalnum() for c in piece):
                        s += len(piece) - len(piece.lstrip())
                        e -= len(piece) - len(piece.rstrip())
                        spans.append((s, e, priority, kind))
            if first_only and spans:
                return spans
    return spans


def _merge(spans: list[_Span]) -> list[_Span]:
    """Overlapping matches become one placeholder named by the highest-priority
    rule, so ``token=ghp_…`` says ``github_token`` and nothing is half-covered."""
    spans.sort()
    merged: list[_Span] = []
    for span in spans:
        if merged and span[0] < merged[-1][1]:
            m_start, m_end, m_prio, m_kind = merged[-1]
            if span[2] < m_prio:
                m_prio, m_kind = span[2], span[3]
            merged[-1] = (m_start, max(m_end, span[1]), m_prio, m_kind)
        else:
            merged.append(span)
    return merged


def _apply(text: str, merged: list[_Span], marks: list[int]) -> tuple[str, list[int]]:
    """Replace ``merged``; return the new text and where every placeholder made
    by this call now starts (``marks`` are those made by earlier passes)."""
    parts: list[str] = []
    moved: list[int] = []
    pos = shift = i = 0
    for start, end, _, kind in merged:
        while i < len(marks) and marks[i] < start:
            moved.append(marks[i] + shift)
            i += 1
        placeholder = f"[REDACTED:{kind}]"
        parts.append(text[pos:start])
        parts.append(placeholder)
        moved.append(start + shift)
        shift += len(placeholder) - (end - start)
        pos = end
    moved.extend(mark + shift for mark in marks[i:])
    parts.append(text[pos:])
    return "".join(parts), moved


# A redaction can expose context that was not there before: the ``]`` closing
# a placeholder is a word boundary, so ``ghp_…--password x`` only shows its
# ``--password`` flag once the token is gone, and a rejected match can hide an
# overlapping one (``--password Basic Basic dXNl…``) until the first is
# redacted. Re-running until nothing changes makes `redact` idempotent by
# construction; each pass removes at least one character of non-placeholder
# text, and in practice the second pass finds nothing. The cap only bounds
# deliberately chained input.
_MAX_PASSES = 8


def redact(text: str) -> Redaction:
    """Replace every detected secret in ``text`` with ``[REDACTED:<kind>]``.

    Text with nothing to redact comes back as the very same string object, so
    callers can cheaply tell whether anything changed.
    """
    spans = _find(text)
    if not spans:
        return Redaction(text, ())
    result, marks = _apply(text, _merge(spans), [])
    for _ in range(_MAX_PASSES - 1):
        spans = _find(result)
        if not spans:
            break
        result, marks = _apply(result, _merge(spans), marks)
    kinds = dict.fromkeys(result[m + 10 : result.index("]", m)] for m in marks)
    return Redaction(result, tuple(kinds))


def contains_secret(text: str) -> bool:
    """Whether `redact` would change anything, without building the result."""
    return bool(_find(text, first_only=True))
