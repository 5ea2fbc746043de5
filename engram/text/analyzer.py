"""Per-text analysis: the language choices of one text and the stems of its words."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from .language import _languages, _word_script
from .stemming import _stem
from .stopwords import STOP_WORDS
from .tokenise import _CHUNK_RE, _JOINER_CHARS, _clean, _prepare, _split_chunk


class _Analyzer:
    """Per-text language choices: which stemmer and stop list apply to which script."""

    def __init__(self, text: str) -> None:
        text = unicodedata.normalize("NFKC", text)
        self.dominant, self.langs = _languages(text)
        self.latin = self.langs["latin"]
        self.stop_latin = STOP_WORDS.get(self.latin, frozenset()) | STOP_WORDS["english"]
        self.english = self.latin == "english"
        self.text = _prepare(text)
        self._stems: dict[str, list[str] | None] = {}

    def chunks(self) -> Iterator[str]:
        for raw in _CHUNK_RE.findall(self.text):
            yield from self.split(raw)

    def split(self, raw: str) -> list[str]:
        """The chunks of one run of word characters (contractions resolved)."""
        chunk = raw.strip(_JOINER_CHARS)
        return _split_chunk(chunk, self.english) if chunk else []

    def word_lang(self, word: str) -> tuple[str | None, str | None]:
        """(script, stemmer language) for a plain word."""
        script = _word_script(word)
        return script, (self.langs.get(script) if script else None)

    def is_stop(self, word: str, script: str | None, lang: str | None) -> bool:
        if script == "latin":
            return word in self.stop_latin
        return lang is not None and word in STOP_WORDS.get(lang, ())

    def word_stems(self, word: str) -> list[str] | None:
        """Stems of a plain word (None for a stop word); see the package doc for why two."""
        if word in self._stems:
            return self._stems[word]
        script, lang = self.word_lang(word)
        stems: list[str] | None = None
        if not self.is_stop(word, script, lang):
            raw = [_stem(word, lang)]
            if script == "latin" and lang != "english":
                raw.append(_stem(word, "english"))
            stems = list(dict.fromkeys(c for c in map(_clean, raw) if c)) or None
        self._stems[word] = stems
        return stems

    def code_stem(self, atom: str) -> str:
        """Identifier atoms are code, i.e. English, whatever the prose around them is."""
        script, lang = self.word_lang(atom)
        return _stem(atom, "english" if script == "latin" else lang)
