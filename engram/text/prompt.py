"""A prompt's own words: what Claude Code and editors wrap around what the person typed.

The VS Code and JetBrains extensions put the open file and the selected lines in front
of every prompt (`<ide_opened_file>…</ide_opened_file>`, `<ide_selection>…`), both in the
transcript and in the UserPromptSubmit payload; Claude Code adds `<system-reminder>`
blocks. None of it is the person speaking: read as a request, a selection holding "never
call flush() here" becomes a rule, and as a search query "The user opened the file … This
may or may not be related to the current task" drowns the prompt's few real words.
"""

from __future__ import annotations

import re

_ADDED_RE = re.compile(
    r"<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics)>.*?</\1>", re.DOTALL)


def persons_words(text: str) -> str:
    """`text` without the context blocks wrapped around it, stripped."""
    return _ADDED_RE.sub("", text).strip()
