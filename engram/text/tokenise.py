"""Tokenisation: chunks of word characters, split into segments, pieces and atoms."""

from __future__ import annotations

import re
from functools import cache

#: Longer terms are truncated identically on both sides; keeps blobs from bloating the index.
_MAX_TERM_LEN = 64
#: A piece splitting into more atoms than this is a hash or blob, not an identifier.
_MAX_ATOMS = 12

#: Combining marks of common scripts: they are part of a word (Devanagari vowel signs, Arabic
#: harakat) though neither Python's \w nor unicode61 count them as word characters.
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
    "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed"
    "\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963\u0981-\u0983\u09bc-\u09d7"
    "\u0a01-\u0a03\u0a3c-\u0a51\u0a81-\u0a83\u0abc-\u0acd\u0b01-\u0b03\u0b3c-\u0b57\u0b82"
    "\u0bbe-\u0bcd\u0bd7\u0c00-\u0c04\u0c3e-\u0c56\u0c81-\u0c83\u0cbc-\u0cd6\u0d00-\u0d03"
    "\u0d3b-\u0d57\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd"
    "\u1ab0-\u1aff\u1dc0-\u1dff\u200c\u200d\u20d0-\u20ff\u3099\u309a\ufe20-\ufe2f"
)
_JOINERS = "./\\:@#~-"
_APOSTROPHES = "'\u2019\u02bc"
#: A chunk: word runs glued by identifier/path punctuation ("src/a.ts", "utf-8", "a::b") and
#: apostrophes (contractions are resolved per chunk). One character class, because a
#: ``word+(joiner+word+)*`` pattern over these Unicode classes is slow to compile;
#: leading and trailing joiners are stripped afterwards instead.
_CHUNK_RE = re.compile(rf"[\w{_MARKS}{re.escape(_JOINERS + _APOSTROPHES)}]+")
_JOINER_CHARS = _JOINERS + _APOSTROPHES
#: Paths split into segments; so does ":<digits>" ("session.ts:42", "localhost:3000").
_SEGMENT_SPLIT_RE = re.compile(r"[/\\]+|:+(?=\d)")
_PIECE_SPLIT_RE = re.compile(r"[.:@#~\-]+")
_NUMERIC_JOIN_RE = re.compile(r"\d[.:\-]+\d")
#: Hex literals and hash-like runs stay whole: splitting "a1b2c3" at digits is noise.
_HEXISH_RE = re.compile(
    r"0[xX][0-9a-fA-F]+|(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{4,}"
)
_CJK_RUN = (
    "[\u3040-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0002fa1f]+"
)


@cache
def _cjk_run_re() -> re.Pattern[str]:
    """Compiled on first non-ASCII text: this class alone is slow to compile."""
    return re.compile(_CJK_RUN)


#: Anything unicode61 would treat as a separator (marks, "_", punctuation, symbols).
_NON_TERM_RE = re.compile(r"[\W_]+")
_APOSTROPHE_RE = re.compile(f"[{_APOSTROPHES}]")
_NEGATION_RE = re.compile(
    r"^(do|does|did|is|are|was|were|ca|wo|sha|should|would|could|must|have|has|had|need|ai)"
    rf"n[{_APOSTROPHES}]?t$"
)
_NEGATION_AUX = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
#: English clitics carry no meaning of their own: "user's" -> "user", "we're" -> "we".
_CLITIC_RE = re.compile(rf"(?<=[^\W\d_])[{_APOSTROPHES}](?:s|re|ve|ll|d|m)\b", re.IGNORECASE)


def _expand_negation(word: str) -> list[str] | None:
    """ "don't"/"dont" -> ["do", "not"]: negation must survive as the searchable word "not"."""
    lower = word.lower()
    if lower == "cannot":
        return ["can", "not"]
    match = _NEGATION_RE.match(lower)
    if match is None:
        return None
    aux = match.group(1)
    return [_NEGATION_AUX.get(aux, aux), "not"]


def _split_chunk(chunk: str, english: bool) -> list[str]:
    """Resolve contractions and elisions; the result contains no apostrophes."""
    if english and chunk[-1] in "tT" and (expanded := _expand_negation(chunk)) is not None:
        return expanded
    if _APOSTROPHE_RE.search(chunk) is None:
        return [chunk]
    out: list[str] = []
    for piece in _APOSTROPHE_RE.split(_CLITIC_RE.sub("", chunk)):
        part = piece.strip(_JOINER_CHARS)
        if not part:
            continue
        if english and (expanded := _expand_negation(part)) is not None:
            out.extend(expanded)
        else:
            out.append(part)
    return out


def _prepare(text: str) -> str:
    """Give Han/kana runs their own chunks (they are bigrammed, not split on spaces)."""
    if text.isascii():
        return text
    return _cjk_run_re().sub(r" \g<0> ", text)


def _char_kind(ch: str) -> str:
    if ch.isdigit() or ch.isnumeric():
        return "d"
    if ch.isupper():
        return "u"
    if ch.isalpha():
        return "l"
    return "m"


def _split_case(part: str) -> list[str]:
    """camelCase, acronym and letter/digit boundaries: "HTTPServer2" -> HTTP, Server, 2."""
    if part.isalpha() and (part.islower() or part.isupper() or part.istitle()):
        return [part]
    if part.isdigit() or _HEXISH_RE.fullmatch(part):
        return [part]
    kinds: list[str] = []
    for ch in part:
        kind = _char_kind(ch)
        kinds.append(kinds[-1] if kind == "m" and kinds else kind)
    atoms: list[str] = []
    start = 0
    for i in range(1, len(part)):
        prev, cur = kinds[i - 1], kinds[i]
        boundary = (
            (prev == "d") != (cur == "d")
            or (prev == "l" and cur == "u")
            or (
                prev == "u"
                and cur == "u"
                and i + 1 < len(part)
                and kinds[i + 1] == "l"
                and part[i + 1 :] != "s"  # "URLs", "IDs" are plurals, not URL + Ls
            )
        )
        if boundary:
            atoms.append(part[start:i])
            start = i
    atoms.append(part[start:])
    return atoms if len(atoms) <= _MAX_ATOMS else [part]


def _atoms(piece: str) -> list[str]:
    atoms: list[str] = []
    for part in piece.split("_"):
        if part:
            atoms.extend(_split_case(part))
    return atoms if len(atoms) <= _MAX_ATOMS else [piece.replace("_", "")]


def _clean(term: str) -> str:
    return _NON_TERM_RE.sub("", term)[:_MAX_TERM_LEN]


def _lower(word: str) -> str:
    return word.lower().replace("ё", "е")


class _Chunk:
    """One chunk split into segments -> pieces -> lowercased atoms."""

    __slots__ = ("text", "segments", "atoms")

    def __init__(self, text: str) -> None:
        self.text = text
        self.segments: list[tuple[str, list[list[str]]]] = []
        for seg in _SEGMENT_SPLIT_RE.split(text):
            pieces = [[_lower(a) for a in _atoms(p)] for p in _PIECE_SPLIT_RE.split(seg)]
            pieces = [p for p in pieces if p]
            if pieces:
                self.segments.append((seg, pieces))
        self.atoms = [a for _seg, pieces in self.segments for p in pieces for a in p]

    def wholes(self) -> list[str]:
        """Concatenated forms so an identifier/file name is found whole, in any convention."""
        out: list[str] = []
        for seg, pieces in self.segments:
            seg_atoms = [a for p in pieces for a in p]
            if len(seg_atoms) > 1 and not _NUMERIC_JOIN_RE.search(seg):
                out.append("".join(seg_atoms))
            if len(pieces) > 1:
                out.extend("".join(p) for p in pieces if len(p) > 1)
        cleaned = (_clean(w) for w in out)
        return list(dict.fromkeys(w for w in cleaned if w))


def _bigrams(run: str) -> list[str]:
    if len(run) < 3:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _is_plain_word(chunk: str) -> bool:
    """Fast path for ordinary prose words: no identifier splitting can apply."""
    if not chunk.isalpha():
        return False
    if not (chunk.islower() or chunk.istitle() or chunk.isupper()):
        return False
    return chunk.isascii() or _cjk_run_re().search(chunk) is None


def _is_cjk(chunk: str) -> bool:
    return not chunk.isascii() and _cjk_run_re().fullmatch(chunk) is not None
