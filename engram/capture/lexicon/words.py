"""What every list is built from, and how capture cuts text into sentences.

A list is its alternatives joined into one regex: one pattern per language and phrasing, so a
missing phrasing is a line to add. Sentences are what the lists are matched against: code
blocks are left out and list markers stripped, so a rule or a reason is read as written.
"""

from __future__ import annotations

import re


def _words(*alternatives: str) -> str:
    return "|".join(alternatives)


SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+")


def sentences(text: str) -> list[str]:
    """Sentences and lines of a text (code blocks removed), stripped of list markers."""
    text = re.sub(r"```.*?(```|\Z)", "\n", text, flags=re.DOTALL)
    out = []
    for piece in SENTENCE_SPLIT_RE.split(text):
        # a list marker is followed by a space: "6.5, c'est la LTS" keeps its version
        piece = re.sub(r"^\s*(?:[-*•>]|\d+[.)](?=\s|$)|#+)\s*", "", piece or "").strip()
        piece = piece.strip("*_ ").strip()
        if piece:
            out.append(piece)
    return out
