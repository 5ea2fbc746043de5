"""What a person wrote in a message, apart from what they pasted into it.

A prompt often carries a log, a stack trace, a HAR file or a page of documentation under a
line of the person's own. Rules, reported problems, verdicts and work left for later are
read from the person's sentences only: a line of a pasted HAR file ("You'll get a
confirmation prompt and cannot delete the last model") is nobody's report of a bug.
"""

from __future__ import annotations

import re

_FENCED_RE = re.compile(r"```.*?(```|\Z)", re.DOTALL)
# A line of a log pasted without fences: indented output (not an indented list item), a
# report banner, a timestamp, a stack frame. Nobody states a rule or reports a bug in one.
_PASTED_LINE_RE = re.compile(
    r"^(\s{2,}|\t)(?![-*•]|\d+[.)]\s)\S|^\s*(=[A-Z]|\[\d|\d{4}-\d\d-\d\d[ T]\d|\d\d:\d\d:\d\d|"
    r"at [\w.$]+\(|File \")")


def prose(text: str) -> str:
    """`text` with fenced blocks and pasted lines left out (a paragraph break in place of
    a fenced block, so what surrounds it stays apart)."""
    unfenced = _FENCED_RE.sub("\n\n", text)
    return "\n".join(line for line in unfenced.splitlines() if not _PASTED_LINE_RE.match(line))
