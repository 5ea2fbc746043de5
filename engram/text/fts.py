"""FTS5 MATCH construction: every term quoted, so user text is never FTS5 syntax."""

from __future__ import annotations

import re

_SURROGATES_RE = re.compile("[\ud800-\udfff\x00]")


def _fts_string(term: str) -> str | None:
    """Quote a term as an FTS5 string; None when unicode61 would find no token in it.

    An empty phrase inside an AND makes FTS5 match nothing, so such terms are dropped.
    """
    term = _SURROGATES_RE.sub("", term)
    if not any(ch.isalnum() for ch in term):
        return None
    return '"' + term.replace('"', '""') + '"'


def fts_phrases(groups: list[tuple[str, ...]]) -> list[list[tuple[str, str]]]:
    """Each group's alternatives as (term, quoted FTS5 string), those `fts_query` joins:
    the phrases of its expression, in order (FTS5's bm25 sums over exactly these)."""
    out: list[list[tuple[str, str]]] = []
    for group in groups or ():
        alts: dict[str, str] = {}
        for term in group or ():
            quoted = _fts_string(term)
            if quoted and quoted not in alts:
                alts[quoted] = term
        if alts:
            out.append([(term, quoted) for quoted, term in alts.items()])
    return out


def fts_query(groups: list[tuple[str, ...]], mode: str = "and") -> str | None:
    """Safe FTS5 MATCH expression: every term quoted, so user text is never FTS5 syntax."""
    joiner = {"and": " AND ", "or": " OR "}.get(mode.lower() if isinstance(mode, str) else "")
    if joiner is None:
        raise ValueError(f"fts_query mode must be 'and' or 'or', not {mode!r}")
    parts: list[str] = []
    for group in fts_phrases(groups):
        alts = [quoted for _term, quoted in group]
        parts.append(alts[0] if len(alts) == 1 else "(" + " OR ".join(alts) + ")")
    return joiner.join(parts) if parts else None
