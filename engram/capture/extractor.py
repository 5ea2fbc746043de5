"""The state every extraction rule shares, and the session cut into turns.

An `Extractor` holds one session's events, the findings so far and what earlier rules
learned about the session (fix and revert windows, undone edits, failed attempts by turn);
its methods are the shared ways to read the events around a position (the files changed,
the words said) and to add a finding. The rules themselves live in the modules named for
what they find (fixes, reverts, attempts, bugs, choices, decisions, facts, rules,
open_work): plain functions taking the extractor first, called in order by
`extract.extract`.

A `Turn` is a prompt and what followed it; its `closing` is the wrap-up that many rules
read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .commands import is_read_only
from .finding import MAX_APPROACH_CHARS, Finding
from .reading import gist_of, normalized, text_weight
from .transcript import Event, Session

# A name worth matching on: an identifier, a path, a config key, an error class.
NAME_RE = re.compile(r"[A-Za-z_][\w.:/-]*[_.:/][\w.:/-]+|[a-z]+[A-Z]\w+|[A-Z][a-z]+[A-Z]\w+")
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
BOOKKEEPING_TOOLS = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate", "TaskList"})
# Looking at the file about to change interrupts a plan no more than updating the todo list.
READING_TOOLS = frozenset({"Read", "Grep", "Glob", "LS"})
# Getting ready to write what was just planned: installing what it needs, making its folder.
_SETUP_RE = re.compile(
    r"\s*((pnpm|npm|yarn|bun)\s+(add|install|i)|(pip3?|uv\s+pip)\s+install|"
    r"(uv|poetry|pdm|cargo|bundle|dotnet)\s+add|go\s+get|composer\s+require|mix\s+deps\.get|"
    r"mkdir)\b")
MIN_WRAP_UP_CHARS = 80


def relative_path(path: str, cwd: str | None) -> str:
    if cwd and os.path.isabs(path):
        root = cwd.rstrip("/") + "/"
        if path.startswith(root):
            return path[len(root):]
    return path


class Extractor:
    """One session being read: its events, the findings so far, and what the rules found out
    about the session that later rules rely on (fix and revert windows, the edits undone and
    the edits that undid them, the failed attempts by turn)."""

    def __init__(self, session: Session, cwd: str | None) -> None:
        self.session = session
        self.events = session.events
        self.cwd = cwd or session.cwd
        self.findings: list[Finding] = []
        self.fix_windows: list[tuple[int, int]] = []
        self.revert_windows: list[tuple[int, int]] = []
        self.undone: set[int] = set()  # edits a later edit or checkout took back
        self.undoing: set[int] = set()  # the edits that took them back
        # failed attempts by the turn that tried them and what was tried
        self.attempts: dict[tuple[int, str], Finding] = {}
        # the session's first prompt: the task asked for
        self.opening: str = next((e.text for e in self.events if e.kind == "prompt"), "")

    def add(self, finding: Finding) -> None:
        if finding.content.strip():
            self.findings.append(finding)

    def turn_of(self, position: int) -> int:
        """Which turn (counted by the prompts before it) an event belongs to."""
        return sum(1 for e in self.events[:position + 1] if e.kind in ("prompt", "notification"))

    def attempt(self, tried_at: int, approach: str, finding: Finding) -> None:
        """One failed attempt per approach a turn tried, however many edits it undid and
        whoever said it failed: the fullest telling, naming every file it touched."""
        turn, told = self.turn_of(tried_at), normalized(approach)
        known = next((f for (t, a), f in self.attempts.items()
                      if t == turn and (a.startswith(told) or told.startswith(a))), None)
        if known is None:
            self.attempts[(turn, told)] = finding
            self.add(finding)
            return
        known.files = list(dict.fromkeys([*known.files, *finding.files]))
        if len(finding.content) > len(known.content):
            known.content, known.problem = finding.content, finding.problem or known.problem

    def files_between(self, start: int, end: int) -> list[str]:
        files: list[str] = []
        for event in self.events[start + 1:end]:
            call = event.tool
            if call and call.name in EDIT_TOOLS and call.failed is False and call.file_path:
                path = relative_path(call.file_path, self.cwd)
                if path not in files:
                    files.append(path)
        return files

    def texts_between(self, start: int, end: int) -> list[str]:
        return [e.text for e in self.events[start + 1:end] if e.kind == "text"]

    def text_before(self, position: int, *, past_bookkeeping: bool = False,
                    past_reading: bool = False) -> tuple[list[str], str | None]:
        """The assistant's words right before an event (back to the previous tool or prompt;
        with `past_bookkeeping`, through todo-list updates, which interrupt no thought; with
        `past_reading`, through reading the files it then changes: "I'll switch to a
        paginator" — Read — Edit)."""
        texts: list[str] = []
        at = None
        for event in reversed(self.events[:position]):
            if event.kind == "text":
                texts.insert(0, event.text)
                at = event.at
            elif past_bookkeeping and event.tool is not None and (
                event.tool.name in BOOKKEEPING_TOOLS or _SETUP_RE.match(event.tool.command or "")
                or past_reading and (event.tool.name in READING_TOOLS or (
                    event.tool.name == "Bash" and is_read_only(event.tool.command or "")))
            ):
                continue
            else:
                break
        return texts, at

    def last_change_reason(self, turn: Turn) -> str:
        """What the assistant said right before the last edit of a turn: the approach."""
        edit = next((e for e in reversed(turn.events) if e.tool is not None
                     and e.tool.name in EDIT_TOOLS and e.tool.failed is False), None)
        if edit is None:
            return ""
        texts, _ = self.text_before(edit.position, past_bookkeeping=True)
        return gist_of(texts, MAX_APPROACH_CHARS)


# Recording work already done (a commit, a push): stopping one changes what is recorded,
# not how the work was done.
RECORDING_RE = re.compile(r"(^|&&|;)\s*git (commit|push|add|tag)\b")
# A command that rewrites the project's files as an edit would (Turn.reshaped).
_RESHAPING_RE = re.compile(r"(^|&&|;|\|)\s*(git (submodule (add|deinit|set-url)|mv|rm|apply|"
                           r"revert|cherry-pick)\b|sed -i|perl -[a-z]*i|patch\b)")


@dataclass
class Turn:
    opener: Event | None
    events: list[Event] = field(default_factory=list)

    @property
    def interrupted(self) -> bool:
        return any(e.kind == "interrupt" for e in self.events)

    @property
    def edited(self) -> bool:
        return any(e.tool and e.tool.name in EDIT_TOOLS and e.tool.failed is False
                   for e in self.events)

    @property
    def worked(self) -> bool:
        return any(e.tool and e.tool.failed is False and (
            e.tool.name in EDIT_TOOLS or (e.tool.name == "Bash" and not is_read_only(
                e.tool.command or "")))
            for e in self.events)

    @property
    def reshaped(self) -> bool:
        """The turn changed the project's files through the shell, as an edit would: `git
        submodule add …`, `git mv`, `git rm`, `git apply`, `sed -i`, `perl -pi` (not a copy,
        a kill or an install, which change no source)."""
        return any(e.tool and e.tool.name == "Bash" and e.tool.failed is False
                   and _RESHAPING_RE.search(e.tool.command or "") for e in self.events)

    def closing(self) -> Event | None:
        """The turn's last words when they are a real wrap-up (not a reply to a background
        task's notification, not cut off by an interruption, not a one-line status)."""
        if self.opener is not None and self.opener.kind == "notification" and not self.worked:
            return None  # a reply to a background task's news; unless the work went on
        if self.interrupted:
            return None
        trailing: list[Event] = []
        for event in reversed(self.events):
            if event.kind == "text":
                trailing.insert(0, event)
            elif event.kind == "tool" and (
                event.tool is None or event.tool.name not in BOOKKEEPING_TOOLS
            ):
                break
        if not trailing:
            return None
        # Several blocks after the last tool are one wrap-up ("Done." then the summary).
        text = "\n\n".join(e.text for e in trailing)
        if text_weight(text) < MIN_WRAP_UP_CHARS:
            return None
        last = trailing[-1]
        return last if len(trailing) == 1 else Event("text", last.position, last.at, text)

    def span(self) -> tuple[int, int]:
        start = self.opener.position if self.opener else 0
        end = self.events[-1].position if self.events else start
        return start, end

    def closing_gist(self) -> str:
        closing = self.closing()
        return gist_of([closing.text]) if closing else ""

    def files(self, extractor: Extractor) -> list[str]:
        if not self.events:
            return []
        return extractor.files_between(self.events[0].position - 1, self.events[-1].position + 1)


# A prompt that only asks to go on with the work under way.
_GO_ON_RE = re.compile(
    r"^\s*(continue|go on|keep going|carry on|proceed|resume|continua|continúa|continue[sz]|"
    r"weiter(machen)?|mach weiter|продолжа(й|йте)|дальше|继续|続けて|つづけて)\s*[.!。！]*\s*$",
    re.IGNORECASE)


def turns_of(session: Session) -> list[Turn]:
    """The session cut at each prompt; a background task's notification that arrives while
    the work is still going (the turn's last event is a tool call, nothing said after it)
    is part of that work, so the words that end it are the turn's wrap-up."""
    turns: list[Turn] = [Turn(None)]
    for event in session.events:
        busy = bool(turns[-1].events) and turns[-1].events[-1].kind == "tool"
        if event.kind == "prompt" and _GO_ON_RE.match(event.text) and turns[-1].events:
            turns[-1].events.append(event)  # "continue": the same work, picked up again
        elif event.kind == "prompt" or (event.kind == "notification" and not busy):
            turns.append(Turn(event))
        else:
            turns[-1].events.append(event)
    return [t for t in turns if t.opener is not None or t.events]


def is_prompt(event: Event | None) -> bool:
    return event is not None and event.kind == "prompt"


def named_in(names: list[str], told: list[str]) -> bool:
    """Whether one of the texts already told names this error: two of its names (or its
    only one)."""
    need = min(2, len(names))
    return bool(names) and any(sum(n.lower() in text for n in names) >= need for text in told)
