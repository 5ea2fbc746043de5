"""Stemming; PyStemmer is imported on first use, so importing engram.text stays cheap."""

from __future__ import annotations

import re
import threading
from typing import Any

_stemmer_cache = threading.local()
_DIGIT_RE = re.compile(r"\d")


def _stemmer(lang: str) -> Any:
    """Cached per thread: PyStemmer objects keep an internal cache and are not thread-safe."""
    stemmers: dict[str, Any] | None = getattr(_stemmer_cache, "stemmers", None)
    if stemmers is None:
        stemmers = _stemmer_cache.stemmers = {}
    stemmer = stemmers.get(lang)
    if stemmer is None:
        import Stemmer  # lazy: keeps `import engram.text` cheap

        stemmer = stemmers[lang] = Stemmer.Stemmer(lang)
    return stemmer


def _stem(word: str, lang: str | None) -> str:
    if lang is None or _DIGIT_RE.search(word):
        return word
    return _stemmer(lang).stemWord(word)
