"""Regexes compiled on first use, so that importing the rules costs next to nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator

_PATTERN_METHODS = ("findall", "finditer", "fullmatch", "match", "search", "split", "sub")


class _Re:
    """A regex compiled on first use.

    ``sre`` compiles in pure Python, and compiling every rule up front would make
    ``import engram.redaction`` (pulled in by every hook and CLI call) slow. The
    first call compiles and shadows these methods with the compiled pattern's own
    bound methods, so later calls cost exactly what calling ``re.Pattern`` costs.
    """

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags

    def _compile(self) -> re.Pattern[str]:
        compiled = re.compile(self._source, self._flags)
        for name in _PATTERN_METHODS:
            setattr(self, name, getattr(compiled, name))
        return compiled

    def findall(self, string: str) -> list[str]:
        return self._compile().findall(string)

    def finditer(self, string: str, *args: int) -> Iterator[re.Match[str]]:
        return self._compile().finditer(string, *args)

    def fullmatch(self, string: str, *args: int) -> re.Match[str] | None:
        return self._compile().fullmatch(string, *args)

    def match(self, string: str, *args: int) -> re.Match[str] | None:
        return self._compile().match(string, *args)

    def search(self, string: str, *args: int) -> re.Match[str] | None:
        return self._compile().search(string, *args)

    def split(self, string: str) -> list[str]:
        return self._compile().split(string)

    def sub(self, repl: str, string: str) -> str:
        return self._compile().sub(repl, string)
