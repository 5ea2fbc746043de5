"""Findings about the world outside the code (`project_fact`).

What a turn found out by looking beyond the project's files (a service, the machine, the
web, a tool server) and without changing anything, in answer to the person, who did not
then dispute it: the question and the answer's lead. What the code can tell later is left
to the code.
"""

from __future__ import annotations

import re

from . import lexicon
from .commands import SCRATCH_RE, is_query, is_read_only
from .extractor import EDIT_TOOLS, MIN_WRAP_UP_CHARS, Extractor, Turn, is_prompt
from .finding import Finding
from .reading import gist_of, shorten, text_weight

MAX_FINDING_CHARS = 400


def found_out(x: Extractor, turns: list[Turn]) -> None:
    """What a turn found out by looking, and the person then took as settled: the
    question and the answer's lead ("which program runs at login and records on Fn?" —
    "Open Wispr, installed via Homebrew …"). Only what the code cannot tell later
    (authority stays with the code): the turn looked beyond the project's files and
    changed nothing (_observed). An answer the next prompt disputes, an unsure one, or
    a diagnosis the next turn acts on (its fix keeps it), or a lesson asked for
    ("explain how X works") is no finding; the answer's questions back to the person
    are left out."""
    for index, turn in enumerate(turns):
        prompt, closing = turn.opener, turn.closing()
        if not is_prompt(prompt) or closing is None or not _observed(turn, x.cwd) or (
            lexicon.EXPLAIN_RE.search(prompt.prose)  # a lesson, not the project's news
        ):
            continue
        following = turns[index + 1] if index + 1 < len(turns) else None
        after = following.opener if following is not None else None
        if lexicon.UNCERTAIN_RE.search(closing.text) or is_prompt(after) and _disputes(
            after.prose
        ) or following is not None and following.edited:
            continue
        answer = _with_shown(gist_of([closing.text], MAX_FINDING_CHARS), closing.text)
        if text_weight(answer) < MIN_WRAP_UP_CHARS:
            continue
        x.add(Finding("project_fact", f"{shorten(prompt.prose, 160)} — {answer}",
                      "finding", at=closing.at, importance=0.55,
                      anchor=closing.position))


_FENCE_RE = re.compile(r"```[^\n]*\n(.*?)\n\s*```", re.DOTALL)
MAX_SHOWN_CHARS = 300


def _with_shown(answer: str, text: str) -> str:
    """An answer that introduces what it shows ("The conversation is stored at:") with
    that: the short block it points to (a path, a command's line), which is the answer."""
    if not answer.rstrip().endswith((":", "：")):
        return answer
    shown = _FENCE_RE.search(text)
    if shown is None or len(shown.group(1).strip()) > MAX_SHOWN_CHARS:
        return answer
    return f"{answer.rstrip()} {' '.join(shown.group(1).split())}"


#: Tools that look beyond the project's files.
_LOOKING_TOOLS = frozenset({"WebSearch", "WebFetch"})


# A tool server's tool that reads: `mcp__github__get_issue`, `mcp__sentry__search_events`.
_READING_SERVER_TOOL_RE = re.compile(
    r"^mcp__.*__(get|list|search|find|read|query|fetch|lookup|view|show|describe|analy[sz]e|"
    r"inspect|count|check|status)", re.IGNORECASE)


_ABSOLUTE_RE = re.compile(r"(?:^|[\s='\"])((?:~|/)[^\s'\";|&)]*)")


def _observed(turn: Turn, cwd: str | None) -> bool:
    """The turn looked at something the project's files do not hold and changed nothing
    but scratch files: asked the machine, a service or the network (`is_query`), read the
    machine's own files (`~/Library/LaunchAgents`, `/opt/homebrew`), searched the web,
    asked a tool server. Running the project's checks tells about the code, not this."""
    def outside(command: str) -> bool:
        return any(not (cwd and path.startswith(cwd)) and not SCRATCH_RE.match(path)
                   and path not in ("/", "/dev/null") for path in _ABSOLUTE_RE.findall(command))

    looked = False
    for event in turn.events:
        call = event.tool
        if call is None or call.failed is not False:
            continue
        if call.name in EDIT_TOOLS and not SCRATCH_RE.match(call.file_path or ""):
            return False
        if call.name in _LOOKING_TOOLS or _READING_SERVER_TOOL_RE.search(call.name):
            looked = True
        elif call.name.startswith("mcp__"):
            return False  # a tool server's tool that writes (an issue, a memory, a page)
        elif call.name == "Bash":
            command = call.command or ""
            if is_query(command) or is_read_only(command) and outside(command):
                looked = True
            elif not is_read_only(command):
                return False
    return looked


def _disputes(reply: str) -> bool:
    """The person's next words doubt what they were told ("I don't think that's it",
    "really only that?")."""
    first = (lexicon.sentences(reply) or [""])[0]
    return bool(lexicon.CORRECTION_RE.match(reply) or lexicon.DOUBT_RE.search(first)
                or lexicon.DID_NOT_WORK_RE.search(first))
