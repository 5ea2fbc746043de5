"""What makes a memory itself: its id, and when two texts are the same memory.

Shared by the service (saves, dedup, conflicts) and the lifecycle (gc, consolidation),
so neither imports the other for it.
"""

from __future__ import annotations

import secrets

from .text import normalize_for_dedup

#: Cosine above which a new text is the same memory as a stored one (unless a number or a
#: negation tells them apart).
DUPLICATE_SIMILARITY = 0.95
#: Cosine above which two memories of one project may contradict each other.
CONFLICT_SIMILARITY = 0.80

_ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lowercase
_DISTINGUISHING = {
    "not",
    "no",
    "never",
    "without",
    "dont",
    "don't",
    "cannot",
    "isnt",
    "nie",
    "не",
    "нет",
}


def new_id() -> str:
    """10 base32 characters (50 bits): short enough to type, unique in practice.

    One 7-byte draw, not one per character: ten draws (a system call each) took ~23 µs
    of every save, one takes ~5.
    """
    bits = int.from_bytes(secrets.token_bytes(7), "big") >> 6
    return "".join(_ID_ALPHABET[(bits >> shift) & 31] for shift in range(45, -5, -5))


def distinguishing(a: str, b: str) -> bool:
    """True if two near-identical texts differ in a number or a negation.

    "we use React 17" and "we use React 19" embed ~0.97 alike, yet one supersedes the
    other: they must never be merged as duplicates.
    """
    ta, tb = set(normalize_for_dedup(a).split()), set(normalize_for_dedup(b).split())
    for token in ta ^ tb:
        token = token.strip(".,;:!?()[]{}\"'")
        if any(ch.isdigit() for ch in token) or token in _DISTINGUISHING:
            return True
    return False
