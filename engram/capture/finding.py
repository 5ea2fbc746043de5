"""What extraction produces: a `Finding` (one memory, with the identity that keeps it single
across repeated captures of a session) and an `Extraction` (a session's findings, summary and
files), and the length limits the rule modules share."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .reading import normalized
from .transcript import ToolCall

# Origins keyed by their event, not their text: a reported bug reads its cause from the
# wrap-up; a taken-back change nobody explained is explained by a later wrap-up.
EVOLVING = frozenset({"reported", "revert", "open"})
MAX_FIX_CHARS = 600
MAX_APPROACH_CHARS = 300  # what was tried: the suspicion and the change it led to


@dataclass
class Finding:
    """One memory to keep, with the identity that keeps it single across hook calls."""

    type: str
    content: str
    origin: str
    at: str | None = None
    files: list[str] = field(default_factory=list)
    problem: str | None = None
    solution: str | None = None
    importance: float = 0.5
    anchor: int = -1  # position of the event it came from (not part of its identity)
    # The text it was first told in, when a later part of the session completed it (a
    # compaction summary telling how a fix ended): its identity stays that first text's.
    told_first: str | None = None

    @property
    def key(self) -> str:
        """Stable across repeated captures of one session (Stop, PreCompact, SessionEnd).

        Most findings are their text. A finding whose text grows with the session (a
        reported bug reads its cause from the turn's wrap-up, which a Stop may see before
        the transcript has it all) is the event it came from, so a later, fuller capture
        updates it instead of adding a second one.
        """
        if self.origin in EVOLVING and self.anchor >= 0:
            return f"{self.origin}:{self.type}@{self.anchor}"
        return f"{self.origin}:{self._digest(self.told_first or self.content)}"

    @property
    def digest(self) -> str:
        """Of what it says now: a change tells capture to update the memory."""
        return self._digest(self.content)

    def complete(self, content: str, solution: str | None) -> None:
        """Tell it more fully, keeping its identity (`key`)."""
        self.told_first = self.told_first or self.content
        self.content, self.solution = content, solution

    def _digest(self, content: str) -> str:
        return hashlib.sha1(
            f"{self.type}\n{normalized(content)}".encode("utf-8", "surrogatepass")
        ).hexdigest()[:16]


@dataclass
class Extraction:
    findings: list[Finding]
    summary: Finding | None
    files: list[str]
    started_at: str | None
    empty: bool
    # commands run in the background whose task ended well: verified once the transcript
    # says so, since PostToolUse saw them only start
    settled: list[ToolCall] = field(default_factory=list)
    # the commands that passed in a subagent's own transcript: Claude Code may have handed
    # them to PostToolUse as well, so they are verified without counting a second use
    delegated_runs: list[ToolCall] = field(default_factory=list)
    # Claude's own memory notes the session deleted (file names): what was imported from
    # them goes with them
    removed_notes: list[str] = field(default_factory=list)
