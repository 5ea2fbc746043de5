"""What a consolidated memory says: a colleague's summary of the episodes it replaces.

Running the sources together ("timed out after 20 minutes on the smoke step Staging deploy
pipeline timed out after 9 minutes …") teaches an agent less than any one of them and
inflates the repeated words' keyword score. The recap instead says once what recurred,
how often and when, then keeps apart what differed between the episodes:

    Staging deploy pipeline timed out 5 times, 2026-05-04 to 05-08.
    - step: smoke, upload, test, build, migrate
    - 9–20 minutes (20, 9, 15, 12, 18)
    - Retried builds reuse the cache.
    Fixed: raising the runner's timeout to 30 minutes fixed it.
    Files: .github/workflows/deploy.yml
    Sources: 01J…, 01J…

What recurred is the run of words every episode's first sentence shares (aligned word by
word); what differed are the gaps between those words, labelled by the word that follows
them. Episodes with no shared wording are summed up by the one most like the others.
Every other sentence appears once (compared normalised); numbers, versions and negations
are never merged, since sentences that differ in them are different sentences.
Deterministic: the same sources give the same text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

import numpy as np

from ..model import Memory
from ..text import normalize_for_dedup

# Sentences, and clauses after a semicolon: each is a fact of its own here.
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+(?=\S)|\n+")
_NUMBER = re.compile(r"^[~≈<>]?(\d+(?:[.,]\d+)?)(%|ms|s|m|h|x|×)?[,;:.]?$")
# Words a headline should not end on ("timed out after" → "timed out").
_TRAILING = frozenset({
    "after", "at", "on", "in", "the", "a", "an", "with", "for", "to", "of", "by", "from",
    "was", "were", "is", "are", "and", "or", "but", "when", "while", "during", "again",
    "nach", "bei", "mit", "für", "der", "die", "das", "après", "avec", "le", "la", "les",
    "de", "du", "des", "tras", "con", "el", "los", "após", "com", "o", "os", "после", "на",
    "в", "с",
})
# A sentence that says what fixed it.
_FIX_RE = re.compile(
    r"\b(fix(ed|es)?|resolved|solved|workaround|the cause|root cause|caused by|turned out)\b|"
    r"исправ|решено|причина|behoben|gelöst|ursache|corrigé|résolu|la cause|arreglad|"
    r"resuelto|la causa|corrigid|resolvid|a causa|修复|解决|原因|修正|解決",
    re.IGNORECASE)
MIN_HEAD_WORDS = 2
MAX_HEAD_CHARS = 140
MAX_VALUES_SHOWN = 8


def sentences(text: str | None) -> list[str]:
    if not text:
        return []
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _key(sentence: str) -> str:
    return normalize_for_dedup(sentence).strip(" .!?;:。！？")


def span(dates: Sequence[str]) -> str:
    """`2026-05-04 to 05-08`, `2026-05-04 to 2027-01-02`, or one date."""
    first, last = dates[0], dates[-1]
    if first == last:
        return first
    return f"{first} to {last[5:] if first[:4] == last[:4] else last}"


def _bare(token: str) -> str:
    return token.lower().strip(",;:.!?()\"'")


def _shared(token_lists: list[list[str]]) -> list[int]:
    """Positions of the first list's words that every other list has too, in order."""
    first = [_bare(t) for t in token_lists[0]]
    kept = set(range(len(first)))
    for other in token_lists[1:]:
        matcher = SequenceMatcher(None, first, [_bare(t) for t in other], autojunk=False)
        here: set[int] = set()
        for block in matcher.get_matching_blocks():
            here.update(range(block.a, block.a + block.size))
        kept &= here
    return sorted(kept)


def _gaps(token_lists: list[list[str]], anchors: list[int]) -> list[tuple[str, list[str]]]:
    """For each gap between shared words: (its label, each source's words in it)."""
    first = [_bare(t) for t in token_lists[0]]
    # where each anchor sits in every list, found by aligning each list with the first
    positions: list[dict[int, int]] = []
    for tokens in token_lists:
        matcher = SequenceMatcher(None, first, [_bare(t) for t in tokens], autojunk=False)
        where: dict[int, int] = {}
        for block in matcher.get_matching_blocks():
            for k in range(block.size):
                where[block.a + k] = block.b + k
        positions.append(where)
    bounds = [-1, *anchors, len(first)]
    found: list[tuple[str, list[str]]] = []
    for left, right in zip(bounds, bounds[1:], strict=False):
        values = []
        for where, tokens in zip(positions, token_lists, strict=True):
            start = where[left] + 1 if left >= 0 else 0
            end = where[right] if right < len(first) else len(tokens)
            values.append(" ".join(tokens[start:end]).strip(" ,;:."))
        if len({v.lower() for v in values}) < 2:
            continue  # the same words (or none) in every source
        if all(values):
            found.append((_label(token_lists[0], left, right), values))
            continue
        # words only some sources have: each shown with the shared words around it
        before = token_lists[0][left] if left >= 0 else ""
        after = token_lists[0][right] if right < len(first) else ""
        found.append(("", [f"{before} {v} {after}".strip(" ,;:.") for v in values if v]))
    return found


def _label(tokens: list[str], left: int, right: int) -> str:
    """What a gap's values are: the shared word after it ("20 minutes", "the smoke step"),
    or, when that is a small word, the one before it ("row 7 of", "node 20.11 for") —
    marked with a colon so the line reads "row: 0, 7, 14"."""
    after = tokens[right].strip(",;:.()") if right < len(tokens) else ""
    if after and _bare(after) not in _TRAILING:
        return after
    before = tokens[left].strip(",;:.()") if left >= 0 else ""
    return f"{before}:" if before and _bare(before) not in _TRAILING else ""


def _values_line(label: str, values: list[str]) -> str:
    distinct = list(dict.fromkeys(v for v in values if v))
    numbers = [_NUMBER.match(v) for v in distinct]
    if label.endswith(":"):  # named by the word before: a list, not a range
        return f"{label} {', '.join(distinct[:MAX_VALUES_SHOWN])}" + (
            f" and {len(distinct) - MAX_VALUES_SHOWN} more" if len(distinct) > MAX_VALUES_SHOWN
            else "")
    if distinct and all(numbers):
        parsed = [float(m.group(1).replace(",", ".")) for m in numbers if m]
        unit = next((m.group(2) for m in numbers if m and m.group(2)), "") or ""
        low, high = min(parsed), max(parsed)
        shown = ", ".join(distinct[:MAX_VALUES_SHOWN])
        lead = f"{distinct[0]}" if low == high else f"{_plain(low)}–{_plain(high)}{unit}"
        return f"{lead} {label}".strip() + (f" ({shown})" if len(distinct) > 1 else "")
    listed = ", ".join(distinct[:MAX_VALUES_SHOWN])
    more = len(distinct) - MAX_VALUES_SHOWN
    if more > 0:
        listed += f" and {more} more"
    return f"{label}: {listed}" if label else listed


def _plain(number: float) -> str:
    return str(int(number)) if number == int(number) else f"{number:g}"


def _central(sources: list[Memory], vectors: dict[str, np.ndarray] | None) -> Memory:
    """The episode most like the others: by their vectors, else by the words they share."""
    if vectors and all(m.id in vectors for m in sources) and len(
        {vectors[m.id].shape for m in sources}
    ) == 1:
        stack = np.stack([vectors[m.id] for m in sources])
        norms = np.linalg.norm(stack, axis=1, keepdims=True)
        unit = stack / np.maximum(norms, 1e-12)
        scores = list((unit @ unit.T).sum(axis=1))
    else:
        words = [{w for w in _key(m.content).split() if len(w) > 3} for m in sources]
        scores = [sum(len(a & b) / max(len(a | b), 1) for b in words) for a in words]
    return sources[max(range(len(sources)), key=lambda i: (scores[i], i))]


def _headline(words: list[str]) -> str:
    while words and words[-1].lower().strip(",;:") in _TRAILING:
        words = words[:-1]
    return " ".join(words).strip(" ,;:.")


def recap(sources: list[Memory], *, limit: int,
          vectors: dict[str, np.ndarray] | None = None) -> str:
    """The consolidated memory's text (at most `limit` characters)."""
    sources = sorted(sources, key=lambda m: (m.when, m.id))
    dates = sorted({f"{m.when:%Y-%m-%d}" for m in sources})
    when = span(dates)
    openings = [(sentences(m.content) or [m.content.strip()])[0] for m in sources]
    tokens = [o.split() for o in openings]
    anchors = _shared(tokens)
    # the longest run of shared words is what recurred
    best: list[int] = []
    run: list[int] = []
    for index in anchors:
        run = [*run, index] if run and index == run[-1] + 1 else [index]
        if len(run) > len(best):
            best = run
    gaps = _gaps(tokens, anchors)
    # What recurred: the shared words the sentences open with, when they say enough;
    # else every shared word, with "…" where the sources differ.
    opening_run = best if best and best[0] == 0 else []
    slots = any(label or len(values) == len(sources) for label, values in gaps)
    if not slots:  # only words some sources add: the shared words are the sentence
        head = _headline([tokens[0][i] for i in anchors])
    elif len([i for i in opening_run if _bare(tokens[0][i]) not in _TRAILING]) >= 3:
        head = _headline([tokens[0][i] for i in opening_run])
    else:
        words: list[str] = []
        for position, index in enumerate(anchors):
            if position and index != anchors[position - 1] + 1 or not position and index:
                words.append("…")
            words.append(tokens[0][index])
        head = _headline(words)
    lines: list[str] = []
    seen: set[str] = set()
    if len([w for w in head.split() if w.lower() not in _TRAILING]) >= MIN_HEAD_WORDS:
        lines.append(f"{head} {len(sources)} times, {when}.")
        for label, values in gaps:
            if label:
                lines.append(f"- {_values_line(label, values)}")
            else:
                lines.append("- in some: " + "; ".join(dict.fromkeys(values)))
        seen.update(_key(o) for o in openings)
        rest = [s for m in sources for s in sentences(m.content)[1:]]
    else:
        central = _central(sources, vectors)
        opening = openings[sources.index(central)]
        if len(opening) > MAX_HEAD_CHARS:
            opening = opening[:MAX_HEAD_CHARS].rsplit(" ", 1)[0] + "…"
        lines.append(f"{opening.rstrip('.')} ({len(sources)} related notes, {when}).")
        seen.add(_key(opening))
        rest = [s for m in sources for s in sentences(m.content)]
    fixes: list[str] = []
    facts: list[str] = []
    for sentence in rest:
        key = _key(sentence)
        if not key or key in seen:
            continue
        seen.add(key)
        (fixes if _FIX_RE.search(sentence) else facts).append(sentence)
    lines += [f"- {fact}" for fact in facts]
    if fixes:
        lines.append("Fixed: " + " ".join(fixes))
    files = list(dict.fromkeys(f for m in sources for f in m.files))
    if files:
        lines.append("Files: " + ", ".join(files[:20]))
    lines.append("Sources: " + ", ".join(m.id for m in sources))
    return _bounded(lines, limit)


def _bounded(lines: list[str], limit: int) -> str:
    """Whole lines while they fit; the sources line always last (it is how to undo)."""
    tail = lines[-1]
    kept: list[str] = []
    size = len(tail) + 1
    for line in lines[:-1]:
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join([*kept, tail])[:limit]
