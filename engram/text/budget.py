"""Token estimates for context budgets."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Rough LLM token count for context budgets: UTF-8 bytes / 4.

    Bytes rather than characters because Cyrillic (2 bytes) and CJK (3 bytes) text costs
    about that much more per character in BPE vocabularies than ASCII does.
    """
    if not text:
        return 0
    return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4
