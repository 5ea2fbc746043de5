"""Which language, hence which stemmer and stop list, applies to each script of a text."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from functools import cache

from .stopwords import _LANG_WORDS

#: Language detection only looks at this many characters: enough for a verdict, bounded cost.
_DETECT_CHARS = 2000

_LANG_RANK = {lang: rank for rank, lang in enumerate(_LANG_WORDS)}

#: Letters that are strong evidence for one Latin-script language.
_HINT_CHARS: dict[str, str] = {
    "ß": "german", "ñ": "spanish", "ã": "portuguese", "õ": "portuguese", "ł": "polish",
    "ą": "polish", "ę": "polish", "ś": "polish", "ź": "polish", "ż": "polish", "ř": "czech",
    "ě": "czech", "ů": "czech", "ő": "hungarian", "ű": "hungarian", "ș": "romanian",
    "ț": "romanian", "ă": "romanian", "ğ": "turkish", "ı": "turkish", "đ": "serbian",
}  # fmt: skip


@cache
def _detection_weights() -> dict[str, tuple[tuple[str, float], ...]]:
    """Word -> languages it votes for; shared words vote weakly ("de" is in seven lists)."""
    langs_by_word: dict[str, list[str]] = {}
    for lang, (stop, keep) in _LANG_WORDS.items():
        for word in {*stop.split(), *keep.split()}:
            langs_by_word.setdefault(word, []).append(lang)
    return {
        word: tuple((lang, 1.0 / len(langs)) for lang in langs)
        for word, langs in langs_by_word.items()
    }


_SCRIPT_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x024F, "latin"),
    (0x0370, 0x03FF, "greek"),
    (0x0400, 0x052F, "cyrillic"),
    (0x0530, 0x058F, "armenian"),
    (0x0590, 0x05FF, "hebrew"),
    (0x0600, 0x06FF, "arabic"),
    (0x0750, 0x077F, "arabic"),
    (0x08A0, 0x08FF, "arabic"),
    (0x0900, 0x097F, "devanagari"),
    (0x0B80, 0x0BFF, "tamil"),
    (0x1100, 0x11FF, "hangul"),
    (0x1C80, 0x1C8F, "cyrillic"),
    (0x1E00, 0x1EFF, "latin"),
    (0x1F00, 0x1FFF, "greek"),
    (0x2C60, 0x2C7F, "latin"),
    (0x2DE0, 0x2DFF, "cyrillic"),
    (0x3040, 0x30FF, "cjk"),
    (0x3130, 0x318F, "hangul"),
    (0x31F0, 0x31FF, "cjk"),
    (0x3400, 0x4DBF, "cjk"),
    (0x4E00, 0x9FFF, "cjk"),
    (0xA640, 0xA69F, "cyrillic"),
    (0xA720, 0xA7FF, "latin"),
    (0xAC00, 0xD7AF, "hangul"),
    (0xF900, 0xFAFF, "cjk"),
    (0xFB1D, 0xFB4F, "hebrew"),
    (0xFB50, 0xFDFF, "arabic"),
    (0xFE70, 0xFEFF, "arabic"),
    (0xFF66, 0xFF9F, "cjk"),
    (0x20000, 0x2FA1F, "cjk"),
)
_SCRIPT_STARTS = [start for start, _end, _name in _SCRIPT_RANGES]

#: Scripts whose language needs no vote: one stemmer per script.
_FIXED_SCRIPT_LANG = {"greek": "greek", "armenian": "armenian", "tamil": "tamil"}
_SERBIAN_CYRILLIC = frozenset("ђјљњћџ")
_PERSIAN_LETTERS = frozenset("پچژگکی")
_YIDDISH_LETTERS = frozenset("װױײ")
_NEPALI_MARKERS = ("छ", "छन्", "हुन्छ", "हुँदैन")
_HINDI_MARKERS = ("है", "हैं", "और", "नहीं")


def _script(ch: str) -> str | None:
    """Script of one letter, by code-point range (unicodedata has no script property)."""
    code = ord(ch)
    if code < 0x250:  # fast path: ASCII and Latin-1/Extended letters
        return "latin"
    i = bisect_right(_SCRIPT_STARTS, code) - 1
    if i >= 0:
        start, end, name = _SCRIPT_RANGES[i]
        if start <= code <= end:
            return name
    return None


def _word_script(word: str) -> str | None:
    for ch in word:
        if ch.isalpha():
            return _script(ch)
    return None


_LETTERS_RE = re.compile(r"[^\W\d_]+")


def _detect_latin(words: list[str], sample: str) -> str:
    """Vote with stop-word hits; English wins ties and weak evidence (code is English).

    The primary score is the number of distinct function words a language recognises, so
    three shared Romance words ("la", "de", "está") still beat one exclusive word; the
    weighted score (shared words vote weakly) only breaks ties between related languages.
    Two hits are required: one foreign-looking word ("die", "de-dupe") is no evidence.
    """
    weights = _detection_weights()
    hits: dict[str, int] = {}
    weighted: dict[str, float] = {}
    for word in set(words):
        for lang, weight in weights.get(word, ()):
            hits[lang] = hits.get(lang, 0) + 1
            weighted[lang] = weighted.get(lang, 0.0) + weight
    if not sample.isascii():
        for ch, lang in _HINT_CHARS.items():
            if ch in sample:
                hits[lang] = hits.get(lang, 0) + 1
                weighted[lang] = weighted.get(lang, 0.0) + 0.5
    if not hits:
        return "english"
    best = max(hits, key=lambda lang: (hits[lang], weighted[lang], -_LANG_RANK[lang]))
    if hits[best] < 2 or hits.get("english", 0) >= hits[best]:
        return "english"
    return best


def _script_language(script: str, words: list[str], sample: str) -> str | None:
    if script in _FIXED_SCRIPT_LANG:
        return _FIXED_SCRIPT_LANG[script]
    if script == "latin":
        return _detect_latin(words, sample)
    text = "".join(words)
    if script == "cyrillic":
        # No Ukrainian/Belarusian/Bulgarian stemmer exists; russian is the closest available.
        return "serbian" if _SERBIAN_CYRILLIC.intersection(text) else "russian"
    if script == "arabic":
        return "persian" if _PERSIAN_LETTERS.intersection(text) else "arabic"
    if script == "hebrew":
        # The only Hebrew-script stemmer is Yiddish; it would mangle Hebrew, so stem nothing.
        return "yiddish" if _YIDDISH_LETTERS.intersection(text) else None
    if script == "devanagari":
        # Marks split _LETTERS_RE words ("है" -> "ह"), so look at whitespace tokens instead.
        tokens = set(sample.replace("।", " ").split())
        is_nepali = not tokens.isdisjoint(_NEPALI_MARKERS)
        is_hindi = not tokens.isdisjoint(_HINDI_MARKERS)
        return "nepali" if is_nepali and not is_hindi else "hindi"
    return None


def _languages(text: str) -> tuple[str, dict[str, str]]:
    """(dominant language, stemmer language per script present) for an already-NFKC text."""
    sample = text[:_DETECT_CHARS].lower()
    words_by_script: dict[str, list[str]] = {}
    letters: dict[str, int] = {}
    words = _LETTERS_RE.findall(sample)
    if sample.isascii():  # the common case: skip per-word script lookups
        words_by_script["latin"] = words
        letters["latin"] = 1
    else:
        for word in words:
            script = _script(word[0])
            if script is None:
                continue
            words_by_script.setdefault(script, []).append(word)
            letters[script] = letters.get(script, 0) + len(word)
    langs: dict[str, str] = {}
    for script, words in words_by_script.items():
        lang = _script_language(script, words, sample)
        if lang is not None:
            langs[script] = lang
    langs.setdefault("latin", "english")
    ranked = sorted(letters, key=letters.__getitem__, reverse=True)
    dominant = next((langs[s] for s in ranked if s in langs), "english")
    return dominant, langs


def detect_language(text: str) -> str:
    """PyStemmer algorithm name for the text's dominant script (Latin: stop-word vote).

    Scripts without a stemmer (CJK, Hangul, Hebrew, Thai...) fall back to "english", the
    language of code, identifiers and error strings that surround them.
    """
    if not isinstance(text, str) or not text:
        return "english"
    return _languages(unicodedata.normalize("NFKC", text[:_DETECT_CHARS]))[0]


def is_english(text: str) -> bool:
    """Whether ``text`` reads as English: mostly Latin letters whose stop words vote English.

    Unlike :func:`detect_language`, a text in a script without a stemmer (CJK, Thai...)
    is not English here: callers ask in order to know whether an English-only model can
    read the text at all.
    """
    if not isinstance(text, str) or not text:
        return True
    sample = unicodedata.normalize("NFKC", text[:_DETECT_CHARS])
    if not sample.isascii():
        letters = "".join(_LETTERS_RE.findall(sample))
        latin = sum(1 for ch in letters if _script(ch) == "latin")
        if 3 * latin < 2 * len(letters):  # a third in another script: a mixed text
            return False
    return _languages(sample)[0] == "english"
