"""Commits a session made: the message an agent writes for a commit is its own account of
what changed and why, so a commit that went through is one memory.

Claude Code writes commit messages with a heredoc inside a command substitution
(`git commit -m "$(cat <<'EOF' … EOF)"`); people and other agents use one or more `-m`
strings. Only a commit git confirmed (`[branch 1a2b3c4] subject` in its output) counts:
one a pre-commit hook refused, or that had nothing to commit, changed nothing. A message
with no body is a title, not an account, and is left to the session's other findings;
trailers (`Co-Authored-By:`, "Generated with Claude Code") are boilerplate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .commands import run_outcome
from .transcript import ToolCall

MAX_MESSAGE_CHARS = 1_500
MIN_BODY_CHARS = 40

_GIT_COMMIT_RE = re.compile(r"(?:^|[;&|(]\s*|\s)git(?:\s+-C\s+\S+)?\s+commit\b")
_HEREDOC_RE = re.compile(
    r"<<-?\s*(['\"]?)(?P<tag>[A-Za-z_][A-Za-z0-9_]*)\1[^\n]*\n(?P<body>.*?)\n\s*(?P=tag)\s*(?:\n|\)|$)",
    re.DOTALL,
)
_MESSAGE_FLAG_RE = re.compile(
    r"""(?:\s-[a-zA-Z]*m|\s--message=?)\s*(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"'$;&|]+))""",
    re.DOTALL,
)
_CONFIRMED_RE = re.compile(r"^\[[^\]\n]+ [0-9a-f]{7,40}\] ", re.MULTILINE)
_TRAILER_RE = re.compile(
    r"^\s*(co-authored-by|signed-off-by|reviewed-by|generated with|🤖)", re.IGNORECASE
)
_FIX_SUBJECT_RE = re.compile(r"^\s*(fix(\(.*?\))?!?:|fix(es|ed)?\s|hotfix\b|bugfix\b)", re.I)


@dataclass(frozen=True)
class Commit:
    subject: str
    body: str
    files: tuple[str, ...]

    @property
    def is_fix(self) -> bool:
        return bool(_FIX_SUBJECT_RE.match(self.subject))

    @property
    def fixes(self) -> list[str]:
        """The fixes a commit that is not one lists in its body ("- Fixed sync_raw_logs.py
        phone number pattern" with what its sub-items say), each on one line."""
        if self.is_fix:
            return []
        found: list[str] = []
        for line in self.body.splitlines():
            item = re.match(r"^[-*•]\s+(.+)$", line)  # a top-level item
            if item:
                found.append(item.group(1).strip())
            elif found and re.match(r"^\s+[-*•]\s+\S", line):  # its sub-items
                found[-1] += "; " + line.strip().lstrip("-*• ")
            elif line.strip():
                found.append("")  # prose ends an item
        return [item for item in found if _FIX_SUBJECT_RE.match(item)]

    @property
    def text(self) -> str:
        text = f"{self.subject}\n\n{self.body}" if self.body else self.subject
        return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS - 1] + "…"


def is_commit(command: str) -> bool:
    """Whether a command line runs `git commit` (also `git -C dir commit`, after `&&`)."""
    return bool(_GIT_COMMIT_RE.search(command))


def message_of(command: str) -> str | None:
    """The message a `git commit` command line gives, or None when it gives none inline
    (an editor, `-F file`, `--no-edit`)."""
    found = _GIT_COMMIT_RE.search(command)
    if not found:
        return None
    rest = _own_segment(command[found.end():])
    heredoc = _HEREDOC_RE.search(rest)
    if heredoc and re.search(r"-[a-zA-Z]*m\s*\"?\$\(\s*cat|-F\s*-", rest[:heredoc.start()]):
        return heredoc.group("body").strip()
    parts = []
    for flag in _MESSAGE_FLAG_RE.finditer(rest):
        if flag.group("dq") is not None:
            value = flag.group("dq")
            if "$(" in value or "`" in value:
                return None  # built by the shell: not what was committed, literally
            parts.append(re.sub(r"\\([\"\\$`])", r"\1", value))
        else:
            parts.append(flag.group("sq") if flag.group("sq") is not None else flag.group("bare"))
    message = "\n\n".join(p.strip() for p in parts if p and p.strip())
    return message or None


def _own_segment(rest: str) -> str:
    """The commit command's own words: up to the first `&&`, `||`, `;`, `|` or newline
    outside quotes and command substitutions (so `&& python -m pytest` is not a message).
    Inside `$( … )` only parentheses count: a heredoc's text may hold any quote."""
    quote = ""
    depth = 0
    i = 0
    while i < len(rest):
        char = rest[i]
        if depth:
            depth += (char == "(") - (char == ")")
        elif quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            i += 1
        elif rest.startswith("$(", i):
            depth, i = 1, i + 1
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char in ";|&\n":
            return rest[:i]
        i += 1
    return rest


def _added_paths(command: str) -> list[str]:
    """Paths named by a `git add` in the same command line (not `-A`, `.`, or flags)."""
    paths: list[str] = []
    for found in re.finditer(r"git\s+add\s+([^;&|\n]+)", command):
        for word in found.group(1).split():
            if word.startswith("-") or word in (".", "*") or word.endswith("/"):
                continue
            if word not in paths:
                paths.append(word.strip("'\""))
    return paths


def commit_of(call: ToolCall) -> Commit | None:
    """The commit a Bash call made, if git confirmed one and its message has a body."""
    command = call.command
    if call.name != "Bash" or not command or "commit" not in command:
        return None
    if run_outcome(call) is not True or not _CONFIRMED_RE.search(call.output or ""):
        return None
    message = message_of(command)
    if not message:
        return None
    lines = [line.rstrip() for line in message.splitlines()]
    kept = [line for line in lines if not _TRAILER_RE.match(line)]
    subject = next((line.strip() for line in kept if line.strip()), "")
    body = "\n".join(kept[kept.index(next(x for x in kept if x.strip())) + 1:]).strip()
    if not subject or len(body) < MIN_BODY_CHARS:
        return None
    return Commit(subject, body, tuple(_added_paths(command)))
