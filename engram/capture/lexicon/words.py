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


_SPAN_RE = re.compile(r"`[^`\n]+`")
_HIDDEN_RE = re.compile(r"\x00(\d+)\x00")


def sentences(text: str) -> list[str]:
    """Sentences and lines of a text (code blocks removed), stripped of list markers. An
    inline code span is never cut (`ALTER TABLE ... SET DEFAULT`, `os.path.join`)."""
    text = re.sub(r"```.*?(```|\Z)", "\n", text, flags=re.DOTALL)
    spans: list[str] = []

    def hide(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    text = _SPAN_RE.sub(hide, text.replace("\x00", ""))
    out = []
    for piece in SENTENCE_SPLIT_RE.split(text):
        piece = _HIDDEN_RE.sub(lambda m: spans[int(m.group(1))], piece or "")
        # a list marker is followed by a space: "6.5, c'est la LTS" keeps its version,
        # "--reporter=line" its flag
        piece = re.sub(r"^\s*(?:[-*•>]|\d+[.)]|#+)(?=\s|$)\s*", "", piece).strip()
        piece = piece.strip("*_ ").strip()
        if piece:
            out.append(piece)
    return out


# "以后" opening a time to come ("以后都用 pnpm", "这个以后再说"), not closing a clause of
# its own ("注销以后再用同一个手机号": after deregistering)
ZH_LATER = r"(?:(?<![\u4e00-\u9fff])|(?<=我们)|(?<=咱们)|(?<=你)|(?<=这个)|(?<=那个)|(?<=这些))以后"
