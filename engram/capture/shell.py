"""Shell commands as they can be run again (stdlib only: it runs inside hook processes).

A verified command is worth keeping only in a form that runs: `shlex.join(shlex.split(…))`
quotes operators (`pytest -q && ruff check .` became `pytest -q '&&' ruff check .`). This
module reads a command the way a POSIX shell tokenises it — quotes, escapes, `$(…)`,
backticks, subshells, heredocs — and keeps the original text of every part, so that a
normalised command is always a subsequence of what the agent typed, never a rewrite.

Normalising removes what only changes how output is shown (`2>&1`, `| tail -20`,
`| grep …`, `; echo $?`, `|| true`), so the variants of one command collapse into one
recipe, and collapses whitespace outside quotes. Commands the lexer cannot read with
certainty (unbalanced quotes, a heredoc, several lines) are left as typed or refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Pipeline stages that only filter or page the output of the stage before them.
FILTERS = frozenset({
    "tail", "head", "grep", "egrep", "fgrep", "rg", "less", "more", "cat", "sort", "uniq",
    "wc", "cut", "column", "tee", "nl", "fold", "tr", "awk", "sed", "jq", "ag",
})
# Trailing commands that only report ("; echo $?", "&& echo done", "|| true").
REPORTERS = frozenset({"echo", "printf", "true", ":", "exit"})  # `; exit ${PIPESTATUS[0]}`
_PIPES = ("|&", "|")
# Redirections that only merge or discard streams: presentation, not part of the recipe.
_PRESENTATION_REDIRECT = re.compile(r"^(?:[12]?>&[12]|[12]?>\s*/dev/null|&>\s*/dev/null)$")


class ShellSyntaxError(ValueError):
    """The command is not something this lexer can read with certainty."""


@dataclass
class Stage:
    """One simple command of a pipeline: its words (quotes removed) and its source span."""

    start: int
    end: int
    words: list[str] = field(default_factory=list)
    redirects: list[tuple[int, int]] = field(default_factory=list)  # source spans

    @property
    def program(self) -> str:
        """The command word, past env assignments (`FOO=1 pytest` → `pytest`)."""
        for word in self.words:
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
                return word.rsplit("/", 1)[-1]
        return ""


@dataclass
class Pipeline:
    stages: list[Stage]
    pipes: list[str]  # the operator between stage i and i+1 ("|" or "|&")
    control: str  # the operator after this pipeline ("&&", "||", ";", "&", "\n" or "")


@dataclass
class Parsed:
    text: str
    pipelines: list[Pipeline]
    heredoc: bool = False


def parse(command: str) -> Parsed:
    """Split a command into pipelines and stages, keeping source spans. Raises
    ShellSyntaxError for unbalanced quotes or brackets."""
    lexer = _Lexer(command)
    return Parsed(command, lexer.run(), lexer.heredoc)


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.heredoc = False
        self.pending: list[tuple[str, bool]] = []

    def run(self) -> list[Pipeline]:
        pipelines: list[Pipeline] = []
        stages: list[Stage] = []
        pipes: list[str] = []
        stage = Stage(self.i, self.i)
        text = self.text
        while self.i < len(text):
            ch = text[self.i]
            if ch in " \t":
                self.i += 1
                continue
            operator = self._operator()
            if operator is not None:
                if operator in _PIPES:
                    stages.append(stage)
                    pipes.append(operator)
                else:
                    stages.append(stage)
                    pipelines.append(Pipeline(stages, pipes, operator))
                    stages, pipes = [], []
                self.i += len(operator)
                if operator == "\n" and self.pending:
                    self._skip_heredoc_bodies()
                stage = Stage(self.i, self.i)
                continue
            if ch == "#" and (self.i == 0 or text[self.i - 1] in " \t\n;&|("):
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
                continue
            redirect = self._redirect()
            if redirect is not None:
                if not stage.words and not stage.redirects:
                    stage.start = redirect[0]
                stage.redirects.append(redirect)
                stage.end = redirect[1]
                continue
            start = self.i
            if not stage.words and not stage.redirects:
                stage.start = start
            stage.words.append(self._word())
            stage.end = self.i
        if self.pending:
            raise ShellSyntaxError("a heredoc without a body")
        if stage.words or stage.redirects:
            stages.append(stage)
        if stages:
            pipelines.append(Pipeline(stages, pipes, ""))
        return pipelines

    def _operator(self) -> str | None:
        text, i = self.text, self.i
        for op in ("&&", "||", "|&", ";;", "|", ";", "\n"):
            if text.startswith(op, i):
                return op
        if text[i] == "&" and not text.startswith("&>", i) and (
            i == 0 or text[i - 1] not in "<>"
        ):
            return "&"
        return None

    def _redirect(self) -> tuple[int, int] | None:
        """A redirection at the cursor (`2>&1`, `> out.log`, `<<EOF`); its source span."""
        match = re.compile(r"(?:\d+|&)?(?:>>|>&|>\||<<<|<<-?|<&|<>|>|<)").match(
            self.text, self.i
        )
        if match is None:
            return None
        start = self.i
        op = match.group(0)
        self.i = match.end()
        while self.i < len(self.text) and self.text[self.i] in " \t":
            self.i += 1
        if self.i >= len(self.text) or self.text[self.i] in "\n;|&":
            raise ShellSyntaxError("a redirection without a target")
        target = self._word()
        if op.lstrip("0123456789&") in ("<<", "<<-"):
            self.heredoc = True
            self.pending.append((target, op.endswith("-")))
        return start, self.i

    def _skip_heredoc_bodies(self) -> None:
        """After a newline: skip the bodies of the heredocs opened on the line before."""
        text = self.text
        for delimiter, strip_tabs in self.pending:
            while True:
                if self.i >= len(text):
                    raise ShellSyntaxError("a heredoc whose delimiter never comes")
                end = text.find("\n", self.i)
                line = text[self.i:] if end < 0 else text[self.i:end]
                self.i = len(text) if end < 0 else end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
        self.pending = []

    def _word(self) -> str:
        """Read one word; returns it with quotes removed (for classification only)."""
        text = self.text
        out: list[str] = []
        while self.i < len(text):
            ch = text[self.i]
            if ch in " \t\n;&|<>":
                if ch in "<>" and text.startswith(("<(", ">("), self.i):
                    out.append(self._balanced("(", ")", self.i + 1, raw_prefix=ch))
                    continue
                break
            if ch == "\\":
                if self.i + 1 < len(text):
                    out.append(text[self.i + 1])
                self.i += 2
            elif ch == "'":
                end = text.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("an unterminated single quote")
                out.append(text[self.i + 1:end])
                self.i = end + 1
            elif ch == '"':
                out.append(self._double_quoted())
            elif ch == "`":
                end = self.i + 1
                while end < len(text) and text[end] != "`":
                    end += 2 if text[end] == "\\" else 1
                if end >= len(text):
                    raise ShellSyntaxError("an unterminated backquote")
                out.append(text[self.i:end + 1])
                self.i = end + 1
            elif ch == "$" and text.startswith("$(", self.i):
                out.append(self._balanced("(", ")", self.i + 1, raw_prefix="$"))
            elif ch == "$" and text.startswith("${", self.i):
                out.append(self._balanced("{", "}", self.i + 1, raw_prefix="$"))
            elif ch == "(" and not out:
                out.append(self._balanced("(", ")", self.i))
            else:
                out.append(ch)
                self.i += 1
        return "".join(out)

    def _double_quoted(self) -> str:
        text = self.text
        out: list[str] = []
        self.i += 1
        while self.i < len(text):
            ch = text[self.i]
            if ch == '"':
                self.i += 1
                return "".join(out)
            if ch == "\\" and self.i + 1 < len(text):
                out.append(text[self.i + 1])
                self.i += 2
            elif text.startswith("$(", self.i):
                out.append(self._balanced("(", ")", self.i + 1, raw_prefix="$"))
            elif ch == "`":
                end = text.find("`", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("an unterminated backquote")
                out.append(text[self.i:end + 1])
                self.i = end + 1
            else:
                out.append(ch)
                self.i += 1
        raise ShellSyntaxError("an unterminated double quote")

    def _balanced(self, opening: str, closing: str, at: int, raw_prefix: str = "") -> str:
        """Skip a bracketed region starting at `at` (quotes inside respected); return it raw."""
        text = self.text
        start = self.i
        depth = 0
        pos = at
        while pos < len(text):
            ch = text[pos]
            if ch == "\\":
                pos += 2
                continue
            if ch == "'":
                end = text.find("'", pos + 1)
                if end < 0:
                    raise ShellSyntaxError("an unterminated single quote")
                pos = end + 1
                continue
            if ch == '"':
                saved = self.i
                self.i = pos
                self._double_quoted()
                pos, self.i = self.i, saved
                continue
            if ch == opening:
                depth += 1
            elif ch == closing:
                depth -= 1
                if depth == 0:
                    self.i = pos + 1
                    return text[start:self.i]
            pos += 1
        raise ShellSyntaxError(f"an unbalanced {opening!r}")


def _squeeze(text: str) -> str:
    """Collapse runs of blanks outside quotes (and strip); quoted text stays as typed."""
    out: list[str] = []
    i = 0
    quote: str | None = None
    while i < len(text):
        ch = text[i]
        if quote:
            out.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < len(text):
                out.append(text[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            out.append(ch)
        elif ch == "\\" and i + 1 < len(text):
            out.append(text[i:i + 2])
            i += 2
            continue
        elif ch in " \t":
            if out and out[-1] != " ":
                out.append(" ")
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


def _is_reporter(pipeline: Pipeline) -> bool:
    """`echo $?`, `echo "exit: $?"`, `true`, `printf done`: reports, not work."""
    return len(pipeline.stages) == 1 and pipeline.stages[0].program in REPORTERS


def _stage_text(source: str, stage: Stage, drop_redirects: bool) -> str:
    """A stage's source text, without its presentation-only redirections."""
    pieces: list[str] = []
    cursor = stage.start
    for start, end in stage.redirects:
        raw = source[start:end]
        if drop_redirects and _PRESENTATION_REDIRECT.match(_squeeze(raw).replace(" ", "")):
            pieces.append(source[cursor:start])
            cursor = end
    pieces.append(source[cursor:stage.end])
    return "".join(pieces)


def normalize_command(command: str) -> str | None:
    """The command as it can be run again, or None when it cannot be read with certainty.

    Keeps every operator and quote as typed, a leading `cd` too (it makes the recipe run
    from anywhere); drops presentation tails (filtering pipes, stream-merging
    redirections, trailing `echo $?` / `|| true`) and extra blanks outside quotes.
    """
    if not isinstance(command, str) or not command.strip():
        return None
    text = command.strip()
    try:
        parsed = parse(text)
    except ShellSyntaxError:
        return None
    if parsed.heredoc or "\n" in text:
        return None  # a script, not a one-line recipe; never rewritten
    pipelines = [p for p in parsed.pipelines if p.stages]
    if not pipelines or any(p.control in ("&", ";;") for p in pipelines):
        return None  # a background job is not a recipe that ran to completion
    if any(not stage.words for p in pipelines for stage in p.stages):
        return None  # an empty command between operators (`just dev &; sleep 5`): bash
        # rejects it, so it cannot have run as written
    # Trailing reporters and `|| true`: the recipe is what ran before them.
    while len(pipelines) > 1 and _is_reporter(pipelines[-1]):
        pipelines.pop()
    parts: list[str] = []
    for index, pipeline in enumerate(pipelines):
        stages = list(pipeline.stages)
        while len(stages) > 1 and stages[-1].program in FILTERS:
            stages.pop()
        chunk = ""
        for position, stage in enumerate(stages):
            piece = _squeeze(_stage_text(parsed.text, stage, drop_redirects=True))
            if position:
                chunk += f" {pipeline.pipes[position - 1]} "
            chunk += piece
        parts.append(chunk)
        if index < len(pipelines) - 1:
            control = pipeline.control
            parts.append("; " if control in (";", "\n") else f" {control} ")
    return "".join(parts).strip() or None


_SEARCHES = frozenset({"grep", "egrep", "fgrep", "rg", "ag"})


def searched(command: str) -> bool:
    """Whether a stage's output is searched by a later one (`go test -v | grep token`):
    what is left says nothing of whether the first stage passed."""
    try:
        parsed = parse(command)
    except ShellSyntaxError:
        return False
    return any(stage.program in _SEARCHES for pipeline in parsed.pipelines
               for stage in pipeline.stages[1:])


def segments(command: str) -> list[list[str]]:
    """The words of each simple command (for classification), those of a subshell
    (`(source .venv/bin/activate && pytest)`) included; [] when unreadable."""
    try:
        parsed = parse(command)
    except ShellSyntaxError:
        return []
    found: list[list[str]] = []
    for pipeline in parsed.pipelines:
        for stage in pipeline.stages:
            words = stage.words
            if len(words) == 1 and words[0].startswith("(") and words[0].endswith(")"):
                found += segments(words[0][1:-1])
            elif words:
                found.append(words)
    return found
