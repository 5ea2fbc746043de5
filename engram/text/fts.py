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


def fts_query(groups: list[tuple[str, ...]], mode: str = "and") -> str | None:
    """Safe FTS5 MATCH expression: every term quoted, so user text is never FTS5 syntax."""
    joiner = {"and": " AND ", "or": " OR "}.get(mode.lower() if isinstance(mode, str) else "")
    if joiner is None:
        raise ValueError(f"fts_query mode must be 'and' or 'or', not {mode!r}")
    parts: list[str] = []
    for group in groups or ():
        alts = list(dict.fromkeys(filter(None, map(_fts_string, group or ()))))
        if len(alts) == 1:
            parts.append(alts[0])
        elif alts:
            parts.append("(" + " OR ".join(alts) + ")")
    return joiner.join(parts) if parts else None
