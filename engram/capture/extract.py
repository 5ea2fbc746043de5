"""From a session's events to the memories a good colleague would keep.

Structure first, words second. Each kind of memory comes from a window around an event:

- a fix (`bug_note`): a command fails, something changes (edits, a formatter), the same
  command passes; the error is the telling line of the failing output, the why is the
  assistant's reasoning in between;
- a failed attempt: an edit later reverted, a command that failed before a variant of
  it worked, an approach the user said did not work, one the assistant gave up on;
- a decision: the reason the assistant gave just before a Write/Edit, or in a wrap-up;
  an answer the user picked when asked (AskUserQuestion);
- a rule (`constraint` / `preference`): a sentence of the user's own — in a prompt, an
  answer, or the feedback on a rejected tool call — that asks for something lasting;
- todos and open questions left at the end: the last todo list's open items, and what
  the final wrap-up names as remaining.

A session with no edits, no command that worked, no rule and no decision yields
nothing. Every finding names its files, its session and the time of its event.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..hooks import triage
from . import lexicon, shell
from .failures import error_line
from .transcript import Event, Session, ToolCall

EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
EVOLVING = frozenset({"reported"})  # origins keyed by their event, not their text
BOOKKEEPING_TOOLS = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate", "TaskList"})
MAX_RULE_CHARS = 400
MAX_REASON_CHARS = 420
MAX_FIX_CHARS = 600
MIN_REASONING_CHARS = 160
MAX_DECISIONS = 8
MAX_TODOS = 10
MIN_WRAP_UP_CHARS = 80
LONG_TEXT_CHARS = 300  # a text this long after edits is a summary, wherever it stands
LONG_PROMPT_CHARS = 1500  # beyond this a prompt is a pasted spec: only explicit rules count
# Programs whose failure says something about the project (not `ls` finding nothing).
_WATCHED = frozenset({
    "git", "docker", "docker-compose", "podman", "kubectl", "helm", "terraform", "alembic",
    "curl", "wget", "http", "psql", "mysql", "redis-cli", "gh", "pip", "pip3", "brew",
    "apt", "apt-get",
})
_READ_ONLY = frozenset({
    "ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "wc", "which", "tree",
    "file", "stat", "less", "more", "du", "df", "env", "printenv", "whoami", "date", "sleep",
    "type", "diff", "jq", "bat", "fd",
})
_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch", "remote", "rev-parse",
                            "ls-files", "blame", "grep", "fetch", "describe", "config"})
_SUBCOMMAND_PROGRAMS = frozenset({
    "npm", "pnpm", "yarn", "bun", "cargo", "go", "mix", "git", "docker", "uv", "poetry", "pdm",
    "hatch", "dotnet", "swift", "gradle", "gradlew", "mvn", "mvnw", "bundle", "rails", "rake",
    "make", "just", "task", "kubectl", "terraform", "helm", "npx", "deno", "composer", "pip",
    "pip3", "gh", "alembic", "docker-compose", "podman", "flutter", "dart", "sbt", "lein",
})
_PREFIXES = frozenset({"time", "sudo", "nice", "nohup", "command", "exec", "env"})
_INVESTIGATION_RE = re.compile(
    r"^\s*(let me|let's|i'll|i will|i need to|i'm going to|now i'll|first,? i'll|next,? i'll)"
    r"\s+(now\s+)?(check|look|read|see|search|find|examine|view|explore|verify|inspect|open|run|"
    r"investigate|understand|figure|review|test|confirm|start|try running|grep)\b",
    re.IGNORECASE,
)
_QUESTION_HEADING_RE = re.compile(r"question|вопрос|frage|pregunt|pergunt|问题|質問", re.I)
_ANSWER_RE = re.compile(r'"(?P<q>[^"]+)"="(?P<a>[^"]*)"')


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
        return f"{self.origin}:{self.digest}"

    @property
    def digest(self) -> str:
        return hashlib.sha1(
            f"{self.type}\n{_norm(self.content)}".encode("utf-8", "surrogatepass")
        ).hexdigest()[:16]


@dataclass
class Extraction:
    findings: list[Finding]
    summary: Finding | None
    files: list[str]
    started_at: str | None
    empty: bool


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _relative(path: str, cwd: str | None) -> str:
    if cwd and os.path.isabs(path):
        root = cwd.rstrip("/") + "/"
        if path.startswith(root):
            return path[len(root):]
    return path


# --- commands ------------------------------------------------------------------------------


def _words_of(command: str, *, last: bool = False) -> list[str]:
    """A meaningful simple command's words — the first, or the last one that does work —
    past `cd`, env assignments, `time`, `timeout N`, reporters and output filters."""
    found: list[list[str]] = []
    for words in shell.segments(command):
        rest = [w for w in words if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
        while rest and (rest[0] in _PREFIXES or rest[0] == "timeout"):
            rest = rest[2:] if rest[0] == "timeout" and len(rest) > 1 else rest[1:]
        if not rest or rest[0] in ("cd", "source", ".", "export", "set", "pushd"):
            continue
        if found and rest[0] in shell.FILTERS | shell.REPORTERS:
            continue
        if not last:
            return rest
        found.append(rest)
    return found[-1] if found else []


def family(command: str) -> str:
    """What a command is an instance of: `pytest`, `npm run build`, `git push`."""
    words = _words_of(command, last=True)
    if not words:
        return ""
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if re.match(r"^python\d*(\.\d+)?$", program) and args[:1] == ["-m"] and len(args) > 1:
        program, args = args[1], args[2:]
    name = program
    if program in _SUBCOMMAND_PROGRAMS:
        subs = [a for a in args if not a.startswith("-")][:2 if args[:1] in (["run"], ["exec"])
                                                          else 1]
        name = " ".join([program, *subs])
    return name


def _program(command: str) -> str:
    words = _words_of(command)
    return words[0].rsplit("/", 1)[-1] if words else ""


def _watched(command: str) -> bool:
    """A command whose failure and later success is worth remembering."""
    return triage.command_kind(command) is not None or _program(command) in _WATCHED


def _read_only(command: str) -> bool:
    words = _words_of(command)
    if not words:
        return True
    program = words[0].rsplit("/", 1)[-1]
    if program == "git":
        sub = next((w for w in words[1:] if not w.startswith("-")), "")
        return sub in _GIT_READ_ONLY
    return program in _READ_ONLY


def _outcome(call: ToolCall) -> bool | None:
    """True passed, False failed, None unknown (no result, interrupted or rejected)."""
    if call.failed is None or call.interrupted or call.rejected:
        return None
    if call.failed:
        return False
    command = call.command or ""
    # A test run piped through `tail` exits 0: its output still says whether it passed.
    return triage.command_kind(command) is None or triage.bash_succeeded({"stdout": call.output})


def display_command(command: str, cwd: str | None) -> str:
    """The command as typed when it is a one-line recipe; else what it is an instance of
    (a commit with a heredoc message is shown as `git commit`)."""
    normalized = shell.normalize_command(command, cwd)
    if normalized and len(normalized) <= 200:
        return normalized
    return family(command) or _short(command, 120)


# --- text ----------------------------------------------------------------------------------


def _gist(texts: list[str], limit: int = 220) -> str:
    """The first sentences of some assistant text that are not narration, up to `limit`."""
    out = ""
    for text in texts:
        for sentence in lexicon.sentences(text):
            if len(sentence) < 20 or _INVESTIGATION_RE.match(sentence) or (
                lexicon.NARRATION_RE.match(sentence) and len(sentence) < 60
            ):
                continue
            if out and len(out) + len(sentence) > limit:
                return out
            out = f"{out} {sentence}".strip()
    return _short(out, limit)


def rule_type(sentence: str, *, long_prompt: bool = False) -> str | None:
    """'constraint', 'preference' or None for one sentence a person wrote."""
    text = sentence.strip()
    if len(text) < 8 or len(text) > MAX_RULE_CHARS or text.endswith(("?", "？")):
        return None
    lasting = bool(lexicon.LASTING_RE.search(text))
    if lexicon.NOT_A_RULE_RE.search(text) and not lasting:
        return None
    preference = bool(lexicon.PREFERENCE_RE.search(text))
    obligation = bool(lexicon.OBLIGATION_RE.search(text) or lexicon.PROHIBITION_RE.search(text))
    emphasis = bool(lexicon.EMPHASIS_RE.search(text))
    if preference and (lasting or not long_prompt):
        return "preference"
    if lasting and (obligation or preference or lexicon.RULE_SUBJECT_RE.search(text)
                    or len(text) <= 200):
        return "constraint"
    if obligation and (not long_prompt or emphasis):
        return "constraint"
    if emphasis and not long_prompt:
        return "constraint"  # "Important: X, the SDKs rely on it"; "two rules of this repo: …"
    return None


def rules_in(text: str, *, whole: bool = False) -> list[tuple[str, str]]:
    """(constraint|preference, rule) in a person's text, each rule in their words with
    the sentences of the same paragraph that continue or explain it.

    `whole`: the text is one statement (feedback on a rejected tool call): when any of
    its sentences is a rule, all of it is kept as one.
    """
    long_prompt = len(text) > LONG_PROMPT_CHARS
    found: list[tuple[str, str]] = []
    for paragraph in re.split(r"\n\s*\n", re.sub(r"```.*?(```|\Z)", "\n\n", text,
                                                  flags=re.DOTALL)):
        parts = lexicon.sentences(paragraph)
        kinds = [rule_type(p, long_prompt=long_prompt) for p in parts]
        if whole and any(kinds):
            kind = "preference" if "preference" in kinds and "constraint" not in kinds else (
                "constraint")
            found.append((kind, _short(" ".join(parts), MAX_RULE_CHARS)))
            continue
        index = 0
        while index < len(parts):
            kind = kinds[index]
            if kind is None:
                index += 1
                continue
            chunk = [parts[index]]
            index += 1
            while index < len(parts) and len(" ".join(chunk)) < MAX_RULE_CHARS and (
                kinds[index] is not None
                or (_insight(parts[index]) > 0 and not parts[index].endswith(("?", "？")))
            ):
                chunk.append(parts[index])
                index += 1
            found.append((kind, _short(" ".join(chunk), MAX_RULE_CHARS)))
    return found


def reasoning(texts: list[str], limit: int = MAX_REASON_CHARS) -> tuple[str, int]:
    """A whole reasoned paragraph before an edit, when the explaining is spread over it
    ("The answer should be a 409. A delta re-applied can double-count. So …"): every
    sentence but narration, kept when there are several, they are long enough to be an
    argument, and at least one of them gives a reason."""
    kept = [s for t in texts for s in lexicon.sentences(t)
            if len(s) >= 20 and not s.endswith(("?", "？")) and not _narration(s)
            and not lexicon.MECHANICS_RE.search(s)]
    text = " ".join(dict.fromkeys(kept))
    if len(kept) < 2 or len(text) < MIN_REASONING_CHARS:
        return "", 0
    return _short(text, limit), max(_insight(s) for s in kept)


def _insight(sentence: str) -> int:
    """How much a sentence explains (a reason, a purpose, an alternative, a limit)."""
    return (2 * bool(lexicon.ALTERNATIVE_RE.search(sentence))
            + bool(lexicon.PURPOSE_RE.search(sentence))
            + bool(lexicon.CAUSE_RE.search(sentence))
            + bool(lexicon.LIMITATION_RE.search(sentence))
            + bool(lexicon.EVALUATIVE_RE.search(sentence)))


def _narration(sentence: str) -> bool:
    return bool(_INVESTIGATION_RE.match(sentence) or lexicon.NARRATION_RE.match(sentence)) and (
        _insight(sentence) == 0
    )


def insight_passage(texts: list[str], limit: int = MAX_REASON_CHARS) -> tuple[str, int]:
    """The explaining part of some assistant text, and how much it explains.

    Keeps sentences that give a reason, a purpose, an alternative or a limit, each with
    the sentence that follows it when that one says what is done about it ("SQLite can't
    alter a column's nullability. I need to rewrite the migration as a table copy.").
    Narration ("Let me check the tests") and talk of the code's momentary state
    ("the import is unused") do not count.
    """
    chosen: list[str] = []
    score = 0
    follow = False
    for text in texts:
        for sentence in lexicon.sentences(text):
            if len(sentence) < 12 or sentence.endswith(("?", "？")):
                follow = False
                continue
            value = _insight(sentence) - len(lexicon.MECHANICS_RE.findall(sentence))
            if lexicon.NARRATION_RE.match(sentence) and not (
                lexicon.ALTERNATIVE_RE.search(sentence) or lexicon.CAUSE_RE.search(sentence)
            ):
                value = 0  # "Let me make it safer:" announces, it does not explain
            if value > 0 and len(sentence) >= 25:
                chosen.append(sentence)
                score += value
                follow = True
            elif follow and not _INVESTIGATION_RE.match(sentence) and len(sentence) >= 20:
                chosen.append(sentence)
                follow = False
            else:
                follow = False
    passage = " ".join(dict.fromkeys(chosen))
    return (_short(passage, limit), score) if passage else ("", 0)


# --- the extractor -------------------------------------------------------------------------


@dataclass
class _Streak:
    """A command family failing: since when, with what, and whether anything changed."""

    call: ToolCall
    error: str
    changed: bool = False
    retried: ToolCall | None = None  # the first failure with the same error after a change


def _same_error(a: str, b: str) -> bool:
    """The same problem, whatever line numbers, ids and timings say."""
    def key(text: str) -> str:
        return re.sub(r"[\d_:/.\\-]+|0x[0-9a-f]+", " ", text.lower()).split("—")[0].strip()

    return key(a) == key(b)


class _Extractor:
    def __init__(self, session: Session, cwd: str | None) -> None:
        self.session = session
        self.events = session.events
        self.cwd = cwd or session.cwd
        self.findings: list[Finding] = []
        self.fix_windows: list[tuple[int, int]] = []
        self.revert_windows: list[tuple[int, int]] = []

    def add(self, finding: Finding) -> None:
        if finding.content.strip():
            self.findings.append(finding)

    def files_between(self, start: int, end: int) -> list[str]:
        files: list[str] = []
        for event in self.events[start + 1:end]:
            call = event.tool
            if call and call.name in EDIT_TOOLS and call.failed is False and call.file_path:
                path = _relative(call.file_path, self.cwd)
                if path not in files:
                    files.append(path)
        return files

    def texts_between(self, start: int, end: int) -> list[str]:
        return [e.text for e in self.events[start + 1:end] if e.kind == "text"]

    def text_before(self, position: int, *, past_bookkeeping: bool = False
                    ) -> tuple[list[str], str | None]:
        """The assistant's words right before an event (back to the previous tool or prompt;
        with `past_bookkeeping`, through todo-list updates, which interrupt no thought)."""
        texts: list[str] = []
        at = None
        for event in reversed(self.events[:position]):
            if event.kind == "text":
                texts.insert(0, event.text)
                at = event.at
            elif past_bookkeeping and event.tool is not None and (
                event.tool.name in BOOKKEEPING_TOOLS
            ):
                continue
            else:
                break
        return texts, at

    # fixes, failed routes -----------------------------------------------------------------

    def commands(self) -> None:
        """Fixes and failed routes from each watched command's runs.

        A failure opens a streak for its command family. A later run that passes after a
        change closes it as a fix; one that fails with a *different* error after a change
        means the first problem was fixed and the next one surfaced (a fix, and a new
        streak); the same error again after a change means the change did not help (a
        failed attempt, kept once per streak).
        """
        streaks: dict[str, _Streak] = {}
        for event in self.events:
            call = event.tool
            if call is None:
                continue
            if call.name in EDIT_TOOLS:
                if call.failed is False:
                    for streak in streaks.values():
                        streak.changed = True
                continue
            if call.name != "Bash" or not call.command:
                continue
            outcome = _outcome(call)
            command = call.command
            if outcome is None:
                continue
            if not _watched(command):
                if outcome and not _read_only(command):
                    for streak in streaks.values():
                        streak.changed = True
                continue
            key = family(command)
            streak = streaks.get(key)
            if outcome is False:
                error = error_line(call.output)
                if streak is None:
                    streaks[key] = _Streak(call, error)
                elif streak.changed and _same_error(error, streak.error):
                    if streak.retried is None:
                        streak.retried = call
                    streak.changed = False
                elif streak.changed:
                    self.fix(streak.call, streak.error, call)
                    streaks[key] = _Streak(call, error)
                continue
            for other_key, other in streaks.items():
                if other_key != key and not other.changed and not _read_only(command):
                    other.changed = True  # a formatter, a migration, an install
            if streak is None:
                continue
            del streaks[key]
            if streak.changed:
                self.fix(streak.call, streak.error, call)
                if streak.retried is not None:
                    self.did_not_help(streak.call, streak.retried, streak.error)
            elif triage.command_kind(command) and self._variant(streak.call.command or "",
                                                                 command):
                self.route(streak.call, streak.error, call)

    def did_not_help(self, failing: ToolCall, again: ToolCall, error: str) -> None:
        """A change made after a failure that left the same error: the first thing tried."""
        texts = self.texts_between(failing.position, again.position)
        tried, _ = insight_passage(texts, 300)
        tried = tried or _gist(texts, 300)
        if not tried:
            return
        self.add(Finding(
            "failed_attempt", f"Tried: {tried} — `{family(failing.command or '')}` still "
            f"failed with the same error: {error}", "did-not-help", at=again.at,
            files=self.files_between(failing.position, again.position), problem=error,
            importance=0.5, anchor=failing.position,
        ))

    def _variant(self, failed: str, passed: str) -> bool:
        """`npm install` → `npm install --legacy-peer-deps`: the same target, other options."""
        before = _words_of(failed)
        after = _words_of(passed)
        if not before or before == after:
            return False
        targets = [w for w in before if not w.startswith("-")]
        return after[: len(before)] == before or [w for w in after if not w.startswith("-")] == (
            targets
        )

    def fix(self, failing: ToolCall, error: str, passing: ToolCall) -> None:
        start, end = failing.position, passing.position
        self.fix_windows.append((start, end))
        texts = self.texts_between(start, end)
        why, _ = insight_passage(texts, MAX_FIX_CHARS)
        why = why or _gist(texts, MAX_FIX_CHARS)
        files = self.files_between(start, end)
        command = display_command(failing.command or "", self.cwd)
        error = error or "it failed"
        content = f"`{command}` failed: {error}"
        if why:
            content += f" — fixed: {why}"
        if files:
            content += f" ({', '.join(files[:5])})"
        self.add(Finding(
            "bug_note", content, "fix", at=passing.at, files=files, problem=error,
            solution=why or None, importance=0.6, anchor=start,
        ))

    def reported_bugs(self, turns: list[_Turn]) -> None:
        """A turn whose prompt reports a problem and that changed code: the symptom in the
        user's words with the cause the assistant found; an existing fix of the turn gets
        the symptom instead of a second memory."""
        for turn in turns:
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt" or not turn.edited:
                continue
            symptom = next((s for s in lexicon.sentences(prompt.text)
                            if lexicon.PROBLEM_RE.search(s) and len(s) >= 15
                            and rule_type(s) is None), "")
            if not symptom:
                continue
            symptom = _short(symptom, 240)
            first, last = turn.span()
            fixes = [f for f in self.findings if f.origin == "fix" and first <= f.anchor <= last]
            if fixes:
                fix = fixes[0]
                fix.content = f"{symptom} — {fix.content}"
                fix.problem = f"{symptom} ({fix.problem})"
                # The turn's bug, however fully told: one memory whether a Stop saw it
                # before the passing run reached the transcript or after.
                fix.origin, fix.anchor = "reported", first
                continue
            closing = turn.closing()
            cause = ""
            if closing is not None:
                labelled = [m.group("text") for line in closing.text.splitlines()
                            if (m := lexicon.CAUSE_LABEL_RE.match(line.strip("*_ -")))]
                cause = " ".join(labelled)
            if not cause:
                texts = [e.text for e in turn.events if e.kind == "text"]
                cause, score = insight_passage(texts, MAX_FIX_CHARS)
                if score < 2:
                    continue
            files = turn.files(self)
            self.add(Finding(
                "bug_note", f"{symptom} — {_short(cause, MAX_FIX_CHARS)}", "reported",
                at=closing.at if closing else prompt.at, files=files[:10], problem=symptom,
                solution=_short(cause, MAX_FIX_CHARS), importance=0.6, anchor=first,
            ))

    def route(self, failing: ToolCall, error: str, passing: ToolCall) -> None:
        before = display_command(failing.command or "", self.cwd)
        after = display_command(passing.command or "", self.cwd)
        texts = self.texts_between(failing.position, passing.position)
        why, _ = insight_passage(texts)
        content = f"`{before}` failed ({error or 'error'}); `{after}` worked instead"
        if why:
            content += f": {why}"
        self.add(Finding("failed_attempt", content, "route", at=passing.at, problem=error,
                         solution=after, importance=0.55))

    # reverts, "didn't work", giving up --------------------------------------------------------

    def reverts(self) -> None:
        edits: dict[str, list[tuple[str, str, int]]] = {}
        for event in self.events:
            call = event.tool
            if call is None or call.failed is not False:
                continue
            path = call.file_path
            if call.name == "Edit" and path:
                old = call.input.get("old_string")
                new = call.input.get("new_string")
                if not isinstance(old, str) or not isinstance(new, str):
                    continue
                earlier = edits.setdefault(path, [])
                undone = next((e for e in reversed(earlier) if e[0] == new and e[1] == old
                               and old != new), None)
                if undone is not None:
                    self.revert(path, undone[2], call.position)
                    earlier.remove(undone)
                else:
                    earlier.append((old, new, call.position))
            elif call.name == "Bash" and call.command:
                words = _words_of(call.command)
                if words[:2] in (["git", "checkout"], ["git", "restore"], ["git", "stash"]) or (
                    words[:3] == ["git", "reset", "--hard"]
                ):
                    named = [w for w in words[2:] if not w.startswith("-") and w != "--"]
                    for file_path, history in list(edits.items()):
                        relative = _relative(file_path, self.cwd)
                        if history and (words[1] in ("stash", "reset") or any(
                            relative == n or file_path.endswith("/" + n) or n == "." for n in named
                        )):
                            self.revert(file_path, history[0][2], call.position)
                            edits[file_path] = []

    def revert(self, path: str, first: int, undo: int) -> None:
        tried_texts, _ = self.text_before(first)
        tried = insight_passage(tried_texts, 220)[0] or _gist(tried_texts)
        why_texts, at = self.text_before(undo)
        errors = [
            error_line(e.tool.output) for e in self.events[first:undo]
            if e.tool and e.tool.name == "Bash" and _outcome(e.tool) is False
        ]
        between = [e.text for e in self.events[first:undo + 1] if e.kind in ("text", "prompt")]
        gave_up = any(lexicon.ABANDON_RE.search(t) or lexicon.DID_NOT_WORK_RE.search(t)
                      for t in between)
        if not errors and not gave_up:
            return  # an edit undone with nothing failing in between is tidying, not an attempt
        why = (insight_passage(why_texts, 240)[0] or _gist(why_texts)
               or next((e for e in errors if e), ""))
        file = _relative(path, self.cwd)
        approach = tried or f"a change to {file}"
        self.revert_windows.append((first, undo))
        content = f"Tried: {approach} — reverted"
        if why:
            content += f": {why}"
        self.add(Finding("failed_attempt", content, "revert", at=at, files=[file],
                         problem=why or None, importance=0.55))

    def not_working(self, turns: list[_Turn]) -> None:
        for previous, turn in zip(turns, turns[1:], strict=False):
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt" or not previous.worked:
                continue
            said = [s for s in lexicon.sentences(prompt.text) if lexicon.DID_NOT_WORK_RE.search(s)]
            if not said:
                continue
            approach = self.last_change_reason(previous) or previous.closing_gist() or _gist(
                [e.text for e in previous.events if e.kind == "text"]
            )
            if not approach:
                continue
            # The user's whole reply when it is short: the why sits beside the verdict.
            why = prompt.text if len(prompt.text) <= 400 else " ".join(said)
            content = f"{approach} — did not work: {_short(why, 400)}"
            self.add(Finding("failed_attempt", content, "not-working", at=prompt.at,
                             files=previous.files(self), problem=_short(why, 400),
                             importance=0.55))

    def last_change_reason(self, turn: _Turn) -> str:
        """What the assistant said right before the last edit of a turn: the approach."""
        edit = next((e for e in reversed(turn.events) if e.tool is not None
                     and e.tool.name in EDIT_TOOLS and e.tool.failed is False), None)
        if edit is None:
            return ""
        texts, _ = self.text_before(edit.position, past_bookkeeping=True)
        return _gist(texts, 260)

    def abandoned(self) -> None:
        recent_failure = -10
        found = 0
        for event in self.events:
            if event.tool is not None and event.tool.failed:
                recent_failure = event.position
                continue
            if event.kind != "text" or event.position - recent_failure > 6 or found >= 3:
                continue
            for sentence in lexicon.sentences(event.text):
                if len(sentence) >= 40 and lexicon.ABANDON_RE.search(sentence):
                    windows = self.fix_windows + self.revert_windows
                    if any(s <= event.position <= e for s, e in windows):
                        break
                    self.add(Finding("failed_attempt", _short(sentence, 300), "abandoned",
                                     at=event.at, importance=0.5))
                    found += 1
                    break

    # decisions ------------------------------------------------------------------------------

    def decisions(self, turns: list[_Turn]) -> None:
        """The reasons given right before edits (or in a proposal the user then approved
        with a turn that edits), and the reasoned choices of wrap-ups."""
        candidates: list[tuple[int, Finding]] = []
        seen: set[int] = set()
        passages: list[tuple[list[str], str | None, int, int]] = []  # texts, at, first, edit
        for event in self.events:
            call = event.tool
            if call is None or call.name not in EDIT_TOOLS or call.failed is not False:
                continue
            texts, at = self.text_before(event.position, past_bookkeeping=True)
            passages.append((texts, at, event.position - len(texts), event.position))
        for proposal, turn in zip(turns, turns[1:], strict=False):
            closing = proposal.closing()
            if closing is not None and not proposal.edited and turn.edited and turn.opener and (
                turn.opener.kind == "prompt"
            ):
                edit = next(e.position for e in turn.events if e.tool and e.tool.name in
                            EDIT_TOOLS and e.tool.failed is False)
                passages.append(([closing.text], closing.at, closing.position, edit))
        for texts, at, first, edit_at in passages:
            if not texts or first in seen:
                continue
            seen.add(first)
            passage, score = insight_passage(texts)
            if score < 2 or len(passage) < 40:
                passage, score = reasoning(texts)
                if score < 1:
                    continue
            in_fix = any(s < edit_at < e for s, e in self.fix_windows)
            if in_fix and not lexicon.ALTERNATIVE_RE.search(passage):
                continue  # the reasoning of a fix belongs to its bug note
            call = self.events[edit_at].tool
            file = _relative(call.file_path, self.cwd) if call and call.file_path else None
            candidates.append((score, Finding("decision", passage, "pre-edit", at=at,
                                              files=[file] if file else [], importance=0.6,
                                              anchor=first)))
        # Reasoned choices stated in summaries: the wrap-ups, and any long text written
        # after the session changed something (a summary a stop hook sent back to work).
        edited_at = next((e.position for e in self.events if e.tool is not None
                          and e.tool.name in EDIT_TOOLS and e.tool.failed is False), None)
        summaries = [t.closing() for t in turns if t.edited and t.closing() is not None]
        if edited_at is not None:
            summaries += [e for e in self.events if e.kind == "text" and e.position > edited_at
                          and len(e.text) >= LONG_TEXT_CHARS and _is_list(e.text)]
        done: set[int] = set(seen)
        final = next((t.closing() for t in reversed(turns)
                      if t.worked and t.closing() is not None), None)
        if final is not None:
            summaries.append(final)
        for closing in summaries:
            if closing is None or closing.position in done:
                continue
            done.add(closing.position)
            for sentence in lexicon.sentences(closing.text):
                if len(sentence) < 50 or lexicon.CAUSE_LABEL_RE.match(sentence) or (
                    lexicon.FIX_LABEL_RE.match(sentence)
                ):
                    continue
                score = _insight(sentence) - len(lexicon.MECHANICS_RE.findall(sentence))
                if score >= 2 and lexicon.ALTERNATIVE_RE.search(sentence) or score >= 3:
                    candidates.append((score, Finding(
                        "decision", _short(sentence, MAX_REASON_CHARS), "wrap-up",
                        at=closing.at, files=[], importance=0.6, anchor=closing.position)))
            if final is None or closing.position != final.position:
                continue
            for item in _design_items(closing.text):
                candidates.append((1, Finding(
                    "decision", _short(item, MAX_REASON_CHARS), "wrap-up",
                    at=closing.at, files=[], importance=0.55, anchor=closing.position)))
        best = sorted(candidates, key=lambda c: -c[0])[:MAX_DECISIONS]
        for _, finding in sorted(best, key=lambda c: c[1].anchor):
            self.add(finding)

    def answers(self) -> None:
        for call in self.session.tools:
            if call.name != "AskUserQuestion" or call.failed is not False:
                continue
            pairs = _answers(call)
            for question, answer in pairs:
                if not answer.strip():
                    continue
                stated = rules_in(answer, whole=True)
                if stated and len(answer) >= 20:
                    kind, rule = stated[0]
                    self.add(Finding(kind, rule, "answer", at=call.at, importance=0.7))
                    continue
                content = f"{_short(question, 200)} — the user chose: {_short(answer, 300)}"
                self.add(Finding("decision", content, "answer", at=call.at, importance=0.65))

    # rules ------------------------------------------------------------------------------------

    def rules(self) -> None:
        seen: set[str] = set()
        sources: list[tuple[str, str | None, str]] = [
            (e.text, e.at, "rule") for e in self.events if e.kind == "prompt"
        ]
        sources += [(c.feedback, c.at, "rejected") for c in self.session.tools if c.feedback]
        for text, at, origin in sources:
            for kind, rule in rules_in(text, whole=origin == "rejected"):
                if _norm(rule) in seen:
                    continue
                seen.add(_norm(rule))
                self.add(Finding(kind, rule, "rule", at=at, importance=0.7))

    def rejections(self) -> None:
        for call in self.session.tools:
            if not call.rejected or not call.feedback:
                continue
            if rules_in(call.feedback, whole=True):
                continue  # already a rule in the user's words
            intent, _ = self.text_before(call.position)
            approach = _gist(intent) or f"{call.name} {call.file_path or call.command or ''}"
            content = f"{approach} — rejected by the user: {_short(call.feedback, 240)}"
            self.add(Finding("failed_attempt", content, "rejected", at=call.at,
                             importance=0.55))

    # todos and open questions -------------------------------------------------------------

    def todos(self, turns: list[_Turn]) -> None:
        items: list[tuple[str, str, str | None]] = []
        last_list = None
        for call in self.session.tools:
            if call.name == "TodoWrite" and isinstance(call.input.get("todos"), list):
                last_list = call
        if last_list is not None:
            for todo in last_list.input["todos"]:
                if isinstance(todo, dict) and isinstance(todo.get("content"), str) and (
                    todo.get("status") != "completed"
                ):
                    items.append(("todo", todo["content"], last_list.at))
        # What the last working turn left open, and what any talk after it added.
        last_work = max((i for i, t in enumerate(turns) if t.worked), default=0)
        for turn in turns[last_work:]:
            closing = turn.closing()
            if closing is not None:
                items += [(kind, text, closing.at) for kind, text in _open_items(closing.text)]
        prompts = [t.opener for t in turns if t.opener and t.opener.kind == "prompt"]
        if prompts:  # the user's last words naming work for later
            last = prompts[-1]
            items += [("todo", s, last.at) for s in lexicon.sentences(last.text)
                      if lexicon.LATER_WORK_RE.search(s) and len(s) >= 20
                      and not s.endswith(("?", "？")) and rule_type(s) is None]
        for turn in turns:
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt":
                continue
            items += [("todo", s, prompt.at) for s in lexicon.sentences(prompt.text)
                      if lexicon.DEFER_RE.search(s) and len(s) >= 15]
            answer = next((e for e in reversed(turn.events) if e.kind == "text"), None)
            asked = [s for s in lexicon.sentences(prompt.text) if s.endswith(("?", "？"))]
            if asked and answer is not None and not turn.edited and (
                lexicon.UNDECIDED_RE.search(answer.text)
            ):
                gist = _first_sentences(answer.text, 400)
                items.append(("open_question", f"{_short(' '.join(asked), 200)} — {gist}",
                              answer.at))
        seen: set[str] = set()
        for kind, text, at in items[:MAX_TODOS]:
            if _norm(text) in seen or len(text) < 8:
                continue
            seen.add(_norm(text))
            self.add(Finding(kind, _short(text, 300), "open", at=at, importance=0.55))


_VERIFICATION_RE = re.compile(
    r"\b(tests?|passing|passed|passes|green|clean|commit(ted)?|pushed|lint|coverage|credo|"
    r"dialyzer|clippy|ruff|eslint|files? changed|closed|bead|pr|ci)\b", re.IGNORECASE)
_DESIGN_RE = re.compile(
    r"\b(uses?|via|through|instead|only|default|per|so that|to (avoid|keep|reduce|make)|"
    r"rather|never|always|stays?|keeps?|carr(y|ies)|falls? back|stored?|cached?|streams?)\b",
    re.IGNORECASE)


_IDENTIFIER_RE = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[A-Z][a-z]+[A-Z]\w*")  # snake, Camel


def _design_items(text: str) -> list[str]:
    """List items of a wrap-up that state how something was built ("Traces go to stdout in
    dev, via …"), not what was checked ("12 tests pass")."""
    found = []
    for raw in text.splitlines():
        item = re.match(r"^\s*(?:[-*•]|\d+[.)])\s+(.*)$", raw)
        if not item:
            continue
        line = item.group(1).strip().strip("*_ ")
        if not 40 <= len(line) <= 300 or _VERIFICATION_RE.search(line):
            continue
        if _DESIGN_RE.search(line) and ("`" in line or _IDENTIFIER_RE.search(line)):
            found.append(line)
    return found


_WIDE_RE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _weight(text: str) -> int:
    """Length as Latin text would have it: a Chinese, Japanese or Korean character says
    about as much as three Latin ones."""
    return len(text) + 2 * len(_WIDE_RE.findall(text))


def _is_list(text: str) -> bool:
    """A text laid out as a summary: three or more list items."""
    return len(re.findall(r"^\s*(?:[-*•]|\d+[.)])\s+\S", text, re.MULTILINE)) >= 3


def _answers(call: ToolCall) -> list[tuple[str, str]]:
    result = call.result if isinstance(call.result, dict) else {}
    answers = result.get("answers")
    if isinstance(answers, dict) and answers:
        return [
            (str(q), ", ".join(map(str, a)) if isinstance(a, list) else str(a))
            for q, a in answers.items()
        ]
    return [(m.group("q"), m.group("a")) for m in _ANSWER_RE.finditer(call.output or "")]


def _first_sentences(text: str, limit: int = 300) -> str:
    parts = lexicon.sentences(text)
    out = ""
    for part in parts:
        if len(out) + len(part) > limit:
            break
        out = f"{out} {part}".strip()
    return out or _short(text, limit)


def _open_items(text: str) -> list[tuple[str, str]]:
    """(todo|open_question, item) named as remaining by a wrap-up."""
    found: list[tuple[str, str]] = []
    in_section = False
    question_section = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        bullet = re.match(r"^(?:[-*•]|\d+[.)]|\[ \])\s+(.*)$", line)
        heading = (not bullet and (
            line.startswith("#") or line.endswith(":") or re.match(r"^\*\*[^*]+\*\*:?$", line)
        ))
        inline = re.match(r"^(?:\*\*)?([^:*]{3,40})(?:\*\*)?\s*:\s*(?:\*\*)?\s*(\S.{10,})$", line)
        if not bullet and inline and lexicon.OPEN_HEADING_RE.search(inline.group(1)):
            kind = "open_question" if inline.group(2).rstrip().endswith(("?", "？")) else "todo"
            found.append((kind, _first_sentences(inline.group(2))))
            in_section = True
            question_section = False
            continue
        if heading:
            in_section = bool(lexicon.OPEN_HEADING_RE.search(line)) and len(line) < 80
            question_section = in_section and bool(_QUESTION_HEADING_RE.search(line))
            continue
        item = (bullet.group(1) if bullet else line).strip().strip("*_ ")
        if in_section and bullet:
            kind = "open_question" if question_section or item.endswith(("?", "？")) else "todo"
            found.append((kind, item))
            continue
        uncertain: list[str] = []  # one open question per paragraph, however many sentences
        for sentence in lexicon.sentences(item):
            if lexicon.UNCERTAIN_RE.search(sentence) and not sentence.endswith(("?", "？")) and (
                len(sentence) >= 12 and not lexicon.OFFER_RE.search(sentence)
            ):
                uncertain.append(sentence)
                continue
            if sentence.endswith(("?", "？")):
                if not lexicon.OFFER_RE.search(sentence) and len(sentence) >= 20:
                    found.append(("open_question", sentence))
            elif len(sentence) < 25 or lexicon.OFFER_RE.search(sentence):
                continue
            elif lexicon.STILL_OPEN_RE.search(sentence):
                found.append(("todo", sentence))
        if uncertain:
            found.append(("open_question", " ".join(uncertain)))
    return found


@dataclass
class _Turn:
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
            e.tool.name in EDIT_TOOLS or (e.tool.name == "Bash" and not _read_only(
                e.tool.command or "")))
            for e in self.events)

    def closing(self) -> Event | None:
        """The turn's last words when they are a real wrap-up (not a reply to a background
        task's notification, not cut off by an interruption, not a one-line status)."""
        if self.opener is not None and self.opener.kind == "notification":
            return None
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
        if _weight(text) < MIN_WRAP_UP_CHARS:
            return None
        last = trailing[-1]
        return last if len(trailing) == 1 else Event("text", last.position, last.at, text)

    def span(self) -> tuple[int, int]:
        start = self.opener.position if self.opener else 0
        end = self.events[-1].position if self.events else start
        return start, end

    def closing_gist(self) -> str:
        closing = self.closing()
        return _gist([closing.text]) if closing else ""

    def files(self, extractor: _Extractor) -> list[str]:
        if not self.events:
            return []
        return extractor.files_between(self.events[0].position - 1, self.events[-1].position + 1)


def turns_of(session: Session) -> list[_Turn]:
    turns: list[_Turn] = [_Turn(None)]
    for event in session.events:
        if event.kind in ("prompt", "notification"):
            turns.append(_Turn(event))
        else:
            turns[-1].events.append(event)
    return [t for t in turns if t.opener is not None or t.events]


def _task(turns: list[_Turn]) -> tuple[str, list[str]]:
    prompts = [t.opener.text for t in turns if t.opener and t.opener.kind == "prompt"]
    real = [p for p in prompts if not triage.is_trivial_prompt(p)]
    return (real[0] if real else ""), real[1:]


def _summary(extractor: _Extractor, turns: list[_Turn], files: list[str]) -> Finding | None:
    task, later = _task(turns)
    if not task:
        return None
    closing = next((t.closing() for t in reversed(turns)
                    if t.closing() is not None and (t.worked or t is turns[-1])), None)
    lines = [f"Task: {_short(task, 240)}"]
    if later:
        lines.append("Later requests: " + "; ".join(_short(p, 120) for p in later[:3]))
    if files:
        more = f" (+{len(files) - 12} more)" if len(files) > 12 else ""
        lines.append("Files changed: " + ", ".join(files[:12]) + more)
    if closing is not None:
        lines.append(f"Outcome: {_short(closing.text, 500)}")
    return Finding(
        "task_summary", "\n".join(lines), "summary", at=closing.at if closing else None,
        files=files[:50], problem=_short(task, 1000),
        solution=_short(closing.text, 1500) if closing else None, importance=0.3,
    )


MAX_WINDOW_CHARS = 1_500
MAX_WINDOWS_CHARS = 16_000


def windows(session: Session, cwd: str | None = None) -> list[dict[str, Any]]:
    """The parts of a session a summariser may read, in order: the user's prompts, the
    assistant's words before each change, each failed command with its telling error and
    the command that passed after it, answers to questions, rejections, the wrap-ups.

    Never the raw transcript: no tool output beyond one error line, no file contents, and
    a bounded total (the newest windows are kept when it runs over). Callers redact.
    """
    extractor = _Extractor(session, cwd)
    out: list[dict[str, Any]] = []

    def add(kind: str, at: str | None, text: str, files: list[str] | None = None) -> None:
        text = " ".join(text.split())
        if len(text) > MAX_WINDOW_CHARS:
            # Cut between words, never inside one: half a token could slip past redaction.
            text = text[:MAX_WINDOW_CHARS].rsplit(" ", 1)[0] + " …"
        if text:
            out.append({"kind": kind, "at": at, "text": text, "files": files or []})

    for event in session.events:
        call = event.tool
        if event.kind == "prompt":
            add("user", event.at, event.text)
        elif call is not None and call.name in EDIT_TOOLS and call.failed is False:
            texts, at = extractor.text_before(event.position)
            if texts:
                file = _relative(call.file_path, extractor.cwd) if call.file_path else ""
                add("before-edit", at, " ".join(texts), [file] if file else [])
        elif call is not None and call.name == "Bash" and call.command:
            outcome = _outcome(call)
            command = display_command(call.command, extractor.cwd)
            if outcome is False:
                add("command-failed", call.at, f"`{command}`: {error_line(call.output)}")
            elif outcome and triage.command_kind(call.command) is not None:
                add("command-passed", call.at, f"`{command}`")
        elif call is not None and call.name == "AskUserQuestion":
            for question, answer in _answers(call):
                add("answer", call.at, f"{question} → {answer}")
        elif call is not None and call.rejected and call.feedback:
            add("rejected", call.at, call.feedback)
    for turn in turns_of(session):
        closing = turn.closing()
        if closing is not None:
            add("wrap-up", closing.at, closing.text)
    out.sort(key=lambda w: w["at"] or "")
    total = 0
    kept: list[dict[str, Any]] = []
    for window in reversed(out):
        total += len(window["text"])
        if total > MAX_WINDOWS_CHARS:
            break
        kept.append(window)
    return kept[::-1]


def extract(session: Session, cwd: str | None = None) -> Extraction:
    """Everything worth keeping from one session (see the module docstring)."""
    extractor = _Extractor(session, cwd)
    turns = turns_of(session)
    extractor.commands()
    extractor.reported_bugs(turns)
    extractor.reverts()
    extractor.not_working(turns)
    extractor.abandoned()
    extractor.decisions(turns)
    extractor.answers()
    extractor.rules()
    extractor.rejections()
    files = extractor.files_between(-1, len(session.events))
    worked_command = any(
        c.name == "Bash" and c.command and triage.command_kind(c.command) is not None
        and _outcome(c) is True for c in session.tools
    )
    knowledge = any(f.type in ("constraint", "preference", "decision") for f in extractor.findings)
    empty = not (files or worked_command or knowledge)
    if empty:
        return Extraction([], None, [], None, True)
    extractor.todos(turns)
    findings = _unique(extractor.findings)
    started = next((e.at for e in session.events if e.at), None)
    return Extraction(findings, _summary(extractor, turns, files), files, started, False)


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: set[str] = set()
    out = []
    for finding in findings:
        key = _norm(finding.content)
        if key in seen:
            continue
        seen.add(key)
        out.append(finding)
    return out
