"""`redact` over JSON-like data: every string inside a memory's meta."""

from __future__ import annotations

from typing import Any

from .engine import contains_secret, redact


def redact_tree(value: Any) -> tuple[Any, tuple[str, ...]]:
    """`redact` applied to every string inside JSON-like data (a memory's meta): the
    same value back when nothing was found, and the kinds of what was replaced."""
    kinds: dict[str, None] = {}
    strings: list[str] = []

    def gather(item: Any) -> None:
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                gather(key)
                gather(inner)
        elif isinstance(item, list | tuple):
            for inner in item:
                gather(inner)

    gather(value)
    # One scan of all the strings (one per line) answers the usual case, nothing to find,
    # at the cost of one call instead of one per string.
    if not strings or not contains_secret("\n".join(strings)):
        return value, ()

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            red = redact(item)
            kinds.update(dict.fromkeys(red.kinds))
            return red.text
        if isinstance(item, dict):
            return {walk(k) if isinstance(k, str) else k: walk(v) for k, v in item.items()}
        if isinstance(item, list | tuple):
            return type(item)(walk(v) for v in item)
        return item

    result = walk(value)
    return (result, tuple(kinds)) if kinds else (value, ())
