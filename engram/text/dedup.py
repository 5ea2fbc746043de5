"""The key under which two memories count as the same statement."""

from __future__ import annotations

import unicodedata

_UNIFY = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "`": "'", "\u00b4": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-",
})  # fmt: skip
_EDGE_PUNCT = " \t\n'\".,;:!?\u2026-*\u2022\u00b7"


def normalize_for_dedup(text: str) -> str:
    """Key under which two memories count as the same statement.

    Only presentation is folded (case, whitespace, quote style, edge punctuation); every word
    stays, so "Auth is not Clerk" never collapses into "Auth is Clerk".
    """
    if not isinstance(text, str):
        return ""
    folded = unicodedata.normalize("NFKC", text).translate(_UNIFY).casefold()
    return " ".join(folded.split()).strip(_EDGE_PUNCT)
