"""From a session's events to the memories a good colleague would keep.

Structure first, words second. Each kind of memory comes from a window around an event:

- a fix (`bug_note`): a command fails, something changes (edits, a formatter), the same
  command passes; the error is the telling line of the failing output, the why is the
  assistant's reasoning in between;
- a failed attempt: an edit later reverted, a command that failed before a variant of
  it worked, an approach the user said did not work, one the assistant gave up on;
- a decision: the reason the assistant gave just before a Write/Edit, or in a wrap-up;
  an answer the user picked when asked (AskUserQuestion); the message of a commit that
  went through (a `fix` commit is a bug note);
- a rule (`constraint` / `preference`): a sentence of the user's own — in a prompt, an
  answer, or the feedback on a rejected tool call — that asks for something lasting;
- todos and open questions left at the end: the last todo list's open items, and what
  the final wrap-up names as remaining.
- a finding (`project_fact`): what the assistant found out about the world outside the
  code (a service, a machine, on-chain data, the web) in answer to the person, by looking
  rather than changing anything, and the person did not then dispute.

A session with no edits, no command that worked, no rule, no decision and no finding
yields nothing. Every finding names its files, its session and the time of its event.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..hooks import triage
from . import lexicon, shell
from .changes import change_gist
from .commands import (
    SCRATCH_RE,
    Streak,
    display_command,
    family,
    is_housekeeping,
    is_query,
    is_read_only,
    is_recipe,
    is_watched,
    kept_running,
    run_outcome,
    same_error,
    targets,
    words_of,
    wrong_folder,
)
from .commits import commit_of
from .failures import error_line, pasted_error
from .reading import (
    MAX_REASON_CHARS,
    QUESTION_WORD_RE,
    answers_of,
    design_items,
    done_part,
    first_sentences,
    gist_of,
    insight_passage,
    insight_score,
    is_heading,
    is_list,
    list_items,
    normalized,
    open_heading,
    open_items,
    plan_decisions,
    reasoning,
    rule_type,
    rules_in,
    shorten,
    summary_fixes,
    summary_user_messages,
    text_weight,
)
from .transcript import Event, Session, ToolCall

# A name worth matching on: an identifier, a path, a config key, an error class.
_NAME_RE = re.compile(r"[A-Za-z_][\w.:/-]*[_.:/][\w.:/-]+|[a-z]+[A-Z]\w+|[A-Z][a-z]+[A-Z]\w+")
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
# Origins keyed by their event, not their text: a reported bug reads its cause from the
# wrap-up; a taken-back change nobody explained is explained by a later wrap-up.
EVOLVING = frozenset({"reported", "revert", "open"})
# A subagent's edits stay in its own transcript: its finished run is a change all the same.
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
# The agent's own notes outside the project (plan mode's plan file, its todo lists): writing
# one decides nothing about the code.
_AGENT_NOTES_RE = re.compile(r"[/\\]\.claude[/\\](plans|todos)[/\\]")
BOOKKEEPING_TOOLS = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate", "TaskList"})
# Looking at the file about to change interrupts a plan no more than updating the todo list.
READING_TOOLS = frozenset({"Read", "Grep", "Glob", "LS"})
# Getting ready to write what was just planned: installing what it needs, making its folder.
_SETUP_RE = re.compile(
    r"\s*((pnpm|npm|yarn|bun)\s+(add|install|i)|(pip3?|uv\s+pip)\s+install|"
    r"(uv|poetry|pdm|cargo|bundle|dotnet)\s+add|go\s+get|composer\s+require|mix\s+deps\.get|"
    r"mkdir)\b")
MAX_FIX_CHARS = 600
MAX_DECISIONS = 8
# Where the decisions ranked against each other come from: the best MAX_DECISIONS of the
# whole session are kept, so a turn's choice may later give way to a better one.
RANKED_ORIGINS = frozenset({"pre-edit", "wrap-up"})
MAX_APPROACH_CHARS = 300  # what was tried: the suspicion and the change it led to
MAX_TODOS = 10
MIN_WRAP_UP_CHARS = 80
LONG_TEXT_CHARS = 300  # a text this long after edits is a summary, wherever it stands
MIN_DIAGNOSIS_CHARS = 60
BRIEF_REPLY_CHARS = 40  # "yes please", "go ahead, but keep the old flag"
MAX_FINDING_CHARS = 400
MIN_CORRECTION_CHARS = 30  # "no" alone turns something down without saying what instead


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
            f"{self.type}\n{normalized(self.content)}".encode("utf-8", "surrogatepass")
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
    # Claude's own memory notes the session deleted (file names): what was imported from
    # them goes with them
    removed_notes: list[str] = field(default_factory=list)



def relative_path(path: str, cwd: str | None) -> str:
    if cwd and os.path.isabs(path):
        root = cwd.rstrip("/") + "/"
        if path.startswith(root):
            return path[len(root):]
    return path


# --- the extractor -----------------------------------------------------------------------------


class Extractor:
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

    # fixes, failed routes -----------------------------------------------------------------

    def commands(self) -> None:
        """Fixes and failed routes from each watched command's runs.

        A failure opens a streak for its command family. A later run that passes after a
        change closes it as a fix; one that fails with a *different* error after a change
        means the first problem was fixed and the next one surfaced (a fix, and a new
        streak); the same error again after a change means the change did not help (a
        failed attempt, kept once per streak).
        """
        streaks: dict[str, Streak] = {}
        fixed: dict[str, list[Finding]] = {}  # each family's fixes, to take back if undone
        tried: dict[str, tuple[ToolCall, str]] = {}  # unwatched programs' last failure
        for event in self.events:
            call = event.tool
            if call is None:
                continue
            if call.name in EDIT_TOOLS or call.name in SUBAGENT_TOOLS:
                if call.failed is False:
                    tried.clear()
                    for streak in streaks.values():
                        streak.changed = True
                continue
            if call.name != "Bash" or not call.command:
                continue
            outcome = run_outcome(call)
            command = call.command
            if outcome is None:
                streak = streaks.get(family(command))
                if streak is not None and streak.changed and kept_running(call, streak):
                    del streaks[family(command)]
                    self.closed(streak, call)
                continue
            if not is_watched(command):
                if not is_read_only(command):
                    self.other_route(tried, call, outcome)
                    if outcome:
                        for streak in streaks.values():
                            streak.changed = True
                continue
            key = family(command)
            streak = streaks.get(key)
            if outcome and (streak is not None or key in fixed):
                shown = error_line(call.output)
                known = [streak.error] if streak is not None else []
                known += [f.problem or "" for f in fixed.get(key, [])]
                if any(same_error(shown, error) for error in known):
                    outcome = False  # `| head` hid the exit status, not the error
            if outcome is False:
                error = error_line(call.output)
                if wrong_folder(error):
                    continue  # run from the wrong folder: the command never started
                if self.came_back(fixed.get(key, []), call, error) or streak is None:
                    streaks[key] = Streak(call, error)
                elif streak.changed and same_error(error, streak.error):
                    if streak.retried is None:
                        streak.retried = call
                    streak.changed = False
                elif streak.changed:
                    fixed.setdefault(key, []).append(self.fix(streak.call, streak.error, call))
                    streaks[key] = Streak(call, error)
                elif not same_error(error, streak.error):
                    # Nothing changed, yet it fails otherwise (first from the wrong folder,
                    # then for real): the problem the next change addresses is this one.
                    streaks[key] = Streak(call, error, retried=streak.retried)
                continue
            if streak is None and outcome and self.another_way(streaks, call):
                continue
            for other_key, other in streaks.items():
                if other_key != key and not other.changed and not is_read_only(command):
                    other.changed = True  # a formatter, a migration, an install
            if streak is None:
                continue
            del streaks[key]
            fixed.pop(key, None)
            if streak.changed:
                self.closed(streak, call)
            elif prepared(streak.call.command or "", command):
                self.fix(streak.call, streak.error, call)  # the step before it was the fix
            elif self._variant(streak.call.command or "", command) and (
                triage.command_kind(command) or not is_read_only(command)
            ):
                self.route(streak.call, streak.error, call)

    def another_way(self, streaks: dict[str, Streak], call: ToolCall) -> bool:
        """A check that failed, then another command of the same kind passing with nothing
        changed between, chosen in words that name it ("plain `go test` can't start envtest
        here …, so `make test` is the way to run these"): how checks run here."""
        kind = triage.command_kind(call.command or "")
        for key, streak in list(streaks.items()):
            if streak.changed or kind is None or triage.command_kind(
                streak.call.command or ""
            ) != kind:
                continue
            said = " ".join(self.texts_between(streak.call.position, call.position))
            if family(call.command or "") not in said:
                continue
            del streaks[key]
            self.route(streak.call, streak.error, call)
            return True
        return False

    def other_route(self, tried: dict[str, tuple[ToolCall, str]], call: ToolCall,
                    outcome: bool) -> None:
        """A program run that failed, then ran the same target another way with nothing
        changed between (from another folder, with other options): the first way is a
        failed attempt. Any edit in between makes it something else (`tried` is cleared)."""
        key = family(call.command or "")
        if not key or is_housekeeping(call.command or ""):
            return
        if outcome is False:
            tried[key] = (call, error_line(call.output))
            return
        failed = tried.pop(key, None)
        if failed is None:
            return
        if self._variant(failed[0].command or "", call.command or ""):
            self.route(failed[0], failed[1], call)

    def told_failures(self, turns: list[_Turn]) -> None:
        """What the wrap-up says was tried and did not help ("FixedUpdate at 64 Hz did not
        help: 14 px per step, still more than 8; removed"): the failed attempt in the
        assistant's own words — replacing a taken-back change nobody had explained, or
        added when no failed attempt names the same things."""
        final = next((t.closing() for t in reversed(turns)
                      if t.worked and t.closing() is not None), None)
        self.told_along_the_way(-1 if final is None else final.position)
        if final is None:
            return
        said = list_items(final.text) or lexicon.sentences(final.text)
        for sentence in said:
            if not lexicon.DID_NOT_WORK_RE.search(sentence) or text_weight(sentence) < 30 or (
                sentence.rstrip("*_ ").endswith(("?", "？"))
            ):  # "Is the button not working, or something else?" asks; it tells no attempt
                continue
            sentence = shorten(sentence, MAX_FIX_CHARS)
            attempts = [f for f in self.findings if f.type == "failed_attempt"]
            vague = next((f for f in attempts if f.content.startswith("Tried: a change to ")),
                         None)
            if vague is not None:
                vague.content = f"{sentence} ({vague.content})"
            elif not _named_in(_NAME_RE.findall(sentence), [f.content.lower() for f in attempts]):
                self.add(Finding("failed_attempt", sentence, "wrap-up", at=final.at,
                                 importance=0.5, anchor=final.position))

    def told_along_the_way(self, final: int) -> None:
        """What the assistant says made no difference while it works ("bumping the pool to
        50 made no difference, the lock is elsewhere"): tried, measured, dropped — with no
        failing command to show it, only its words."""
        told = 0
        for event in self.events:
            if event.kind != "text" or event.position == final or told >= 3:
                continue
            said = lexicon.sentences(event.text)
            for number, sentence in enumerate(said):
                if not lexicon.NO_EFFECT_RE.search(sentence) or text_weight(sentence) < 30:
                    continue
                # what was tried is often the sentence before ("I raised the timeout. No
                # change.")
                whole = " ".join(said[max(0, number - 1):number + 1]) if text_weight(
                    sentence) < 50 else sentence
                attempts = [f.content.lower() for f in self.findings
                            if f.type == "failed_attempt"]
                if any(normalized(sentence) in normalized(a) for a in attempts) or _named_in(
                    _NAME_RE.findall(whole), attempts
                ):
                    break
                self.add(Finding("failed_attempt", shorten(whole, 400), "told", at=event.at,
                                 importance=0.5, anchor=event.position))
                told += 1
                break

    def review_findings(self, turns: list[_Turn]) -> None:
        """A review of someone's change asked for ("review #88"): the findings the last
        listing reply gives are the bugs a colleague keeps — not its open questions, its
        offers, or what it says was left undone."""
        if not lexicon.REVIEW_RE.search(self.opening):
            return
        final = next((t.closing() for t in reversed(turns) if t.closing() is not None
                      and list_items(t.closing().text)), None)
        if final is None:
            return
        skipping = False
        found = 0
        for raw in final.text.splitlines():
            line = raw.strip()
            item = re.match(r"^(?:[-*•]|\d+[.)])\s+(.*)$", line)
            if not item:
                label = re.match(r"^\W*([^:：]{2,60}?)\W*[:：]", line)
                if line and (is_heading(line) or label):
                    heading = label.group(1) if label else line
                    skipping = open_heading(heading) or bool(QUESTION_WORD_RE.search(heading))
                continue
            text = re.sub(r"\*\*|__", "", item.group(1)).strip()
            if skipping or text_weight(text) < 40 or text.endswith(("?", "？")) or (
                lexicon.OFFER_RE.search(text)
            ) or found >= 6:
                continue
            self.add(Finding("bug_note", shorten(text, MAX_FIX_CHARS), "review", at=final.at,
                             importance=0.55, anchor=final.position * 64 + found))
            found += 1

    def requested_design(self, turns: list[_Turn]) -> None:
        """A request that names how to build it, with the problem it answers ("POST
        /payments needs idempotency keys. mobile retries double-charged 3 people. store keys
        in postgres."): the person's decision and its why, when the turn built it."""
        for turn in turns:
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt" or not turn.edited:
                continue
            said = lexicon.sentences(prompt.prose)
            directive = next((s for s in said if lexicon.DIRECTIVE_RE.search(s.strip())
                              and text_weight(s) <= 120 and rule_type(s) is None), None)
            if directive is None:
                continue
            why = [s for s in said if s != directive and rule_type(s) is None
                   and not s.endswith(("?", "？")) and text_weight(s) >= 25]
            if not why:
                continue
            content = f"{directive} — {shorten(' '.join(why[:3]), 300)}"
            self.add(Finding("decision", content, "requested", at=prompt.at,
                             files=turn.files(self)[:10], importance=0.6,
                             anchor=prompt.position))

    def numbered_answers(self, turns: list[_Turn]) -> None:
        """Numbered answers to the assistant's numbered questions ("1. qmake or CMake? 2. …"
        answered "1. qmake stays, CMake is another project 2. …"): each answer that is not a
        rule is a choice made, kept with the question it settles."""
        for proposal, turn in zip(turns, turns[1:], strict=False):
            prompt, closing = turn.opener, proposal.closing()
            if prompt is None or prompt.kind != "prompt" or closing is None:
                continue
            questions = numbered_parts(closing.text)
            answers = numbered_parts(prompt.text)
            if sum("?" in q or "？" in q for q in questions) < 2 or len(answers) < 2:
                continue
            for question, answer in zip(questions, answers, strict=False):
                if text_weight(answer) < 12 or rule_type(answer) is not None:
                    continue
                self.add(Finding("decision", f"{shorten(answer, 300)} ({shorten(question, 160)})",
                                 "answer", at=prompt.at, importance=0.6,
                                 anchor=prompt.position))

    def picked_options(self, turns: list[_Turn]) -> None:
        """The person choosing among the numbered options the assistant laid out ("ditch
        number 5 and 6, I'm really interested in private credit (number 2)"): their choice,
        with the options it names spelled out, since "number 5" means nothing later."""
        options: dict[str, str] = {}  # the last options laid out, through one aside since
        age = 0
        for proposal, turn in zip(turns, turns[1:], strict=False):
            prompt, closing = turn.opener, proposal.closing()
            laid_out = {n: title for n, title in _OPTION_RE.findall(closing.text)
                        if not title.rstrip().endswith(("?", "？"))  # questions, not options
                        } if closing is not None else {}
            options, age = (laid_out, 0) if len(laid_out) >= 3 else (options, age + 1)
            if not _is_prompt(prompt) or not options or age > 1:
                continue
            said = [sentence for sentence in lexicon.sentences(prompt.prose)
                    if not sentence.endswith(("?", "？"))]
            named = [n for sentence in said for ref in _OPTION_REF_RE.finditer(sentence)
                     for n in re.findall(r"\d{1,2}", ref.group(0)) if n in options]
            if not named:
                continue
            spelled = "; ".join(f"{n}. {options[n].strip()}" for n in dict.fromkeys(named))
            self.add(Finding("decision", f"{shorten(' '.join(said), 300)} ({spelled})",
                             "picked", at=prompt.at, importance=0.6, anchor=prompt.position))

    def chosen(self, turns: list[_Turn]) -> None:
        """The person settling what the assistant asked or laid out, in their own words
        ("ok, fine, let's do vite", "let's do maxrecordings = 30. And let's turn on
        togglemode"): their choice, with the gist of what it chose from."""
        for proposal, turn in zip(turns, turns[1:], strict=False):
            prompt, closing = turn.opener, proposal.closing()
            if not _is_prompt(prompt) or closing is None or not (
                "?" in closing.text or "？" in closing.text
                or len(_OPTION_RE.findall(closing.text)) >= 2
                or len(re.findall(r"\boption \w+", closing.text, re.IGNORECASE)) >= 2
            ):
                continue
            open_ends = [s for s in lexicon.sentences(closing.text) if s.endswith(("?", "？"))
                         or lexicon.UNCERTAIN_RE.search(s) or lexicon.UNDECIDED_RE.search(s)]
            picks = [sentence for sentence in lexicon.sentences(prompt.prose)
                     if not sentence.endswith(("?", "？")) and (
                         lexicon.CHOICE_RE.search(sentence)
                         # "release on exception only for PspUnavailable" settling "I think the
                         # reservation should be released on an exception, but that depends …"
                         or turn.edited and any(_echoes(sentence, end) for end in open_ends
                                                if not end.endswith(("?", "？"))))]
            if not picks:
                continue
            asked = [s for s in open_ends if any(_echoes(p, s) for p in picks)] or [
                s for s in lexicon.sentences(closing.text) if s.endswith(("?", "？"))]
            offered = shorten(asked[-1], 200) if asked else gist_of([closing.text], 200)
            content = " ".join(picks) + (f" (answering: {offered})" if offered else "")
            self.add(Finding("decision", shorten(content, MAX_REASON_CHARS), "chosen",
                             at=prompt.at, importance=0.6, anchor=prompt.position))

    def verdicts(self, turns: list[_Turn]) -> None:
        """The person weighing what was just built and keeping it, with the reason ("cursor
        paging would be nicer but the v1 api can only do offset, so this stays"): their
        decision, with the change it keeps."""
        for previous, turn in zip(turns, turns[1:], strict=False):
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt" or not previous.edited:
                continue
            for sentence in lexicon.sentences(prompt.prose):
                if sentence.endswith(("?", "？")) or text_weight(sentence) < 40 or rule_type(
                    sentence
                ) is not None or lexicon.PROBLEM_RE.search(sentence):
                    continue
                weighed = lexicon.ALTERNATIVE_RE.search(sentence) or lexicon.EVALUATIVE_RE.search(
                    sentence)
                if not weighed or insight_score(sentence) < 3:
                    continue
                kept = previous.closing_gist() or self.last_change_reason(previous)
                content = shorten(sentence, 300) + (f" — {shorten(kept, 200)}" if kept else "")
                self.add(Finding("decision", content, "verdict", at=prompt.at,
                                 files=previous.files(self)[:10], importance=0.6,
                                 anchor=prompt.position))
                break

    def unavailable(self) -> None:
        """A command the tool itself refused ("ERR unknown command 'XAUTOCLAIM'", "unrecognized
        option") and never made to pass: a road that does not exist here — a failed attempt
        with what the assistant made of it ("XAUTOCLAIM came in 6.2, staging runs 6.0.5")."""
        for index, event in enumerate(self.events):
            call = event.tool
            if call is None or call.name != "Bash" or run_outcome(call) is not False:
                continue
            error = error_line(call.output)
            if not _UNAVAILABLE_RE.search(error) or any(
                f.problem == error for f in self.findings
            ):
                continue
            if any(e.tool is not None and e.tool.name == "Bash" and e.tool.command == call.command
                   and run_outcome(e.tool) is True for e in self.events[index + 1:]):
                continue  # it ran in the end: a hiccup, not a missing road
            after = [e.text for e in self.events[index + 1:index + 5] if e.kind == "text"][:1]
            why = first_sentences(after[0], 240) if after else ""
            command = display_command(call.command or "", self.cwd)
            content = f"`{command}` failed: {error}" + (f" — {why}" if why else "")
            self.add(Finding("failed_attempt", content, "unavailable", at=call.at,
                             problem=error, importance=0.5, anchor=event.position))

    def did_not_help(self, failing: ToolCall, again: ToolCall, error: str) -> None:
        """A change made after a failure that left the same error: the first thing tried."""
        texts = self.texts_between(failing.position, again.position)
        tried, _ = insight_passage(texts, 300)
        tried = tried or gist_of(texts, 300)
        if not tried:
            return
        self.add(Finding(
            "failed_attempt", f"Tried: {tried} — `{family(failing.command or '')}` still "
            f"failed with the same error: {error}", "did-not-help", at=again.at,
            files=self.files_between(failing.position, again.position), problem=error,
            importance=0.5, anchor=failing.position,
        ))

    def _variant(self, failed: str, passed: str) -> bool:
        """`npm install` → `npm install --legacy-peer-deps`: the same target, other options;
        `node assets/build.js` → `cd assets && node build.js`: the same target, elsewhere."""
        before = words_of(failed)
        after = words_of(passed)
        if not before:
            return False
        if before != after and targets(failed, self.cwd) == targets(passed, self.cwd):
            return True  # the same target, reached from another folder
        if before == after:
            return False
        wanted = [w for w in before if not w.startswith("-")]
        return after[: len(before)] == before or [w for w in after if not w.startswith("-")] == (
            wanted
        )

    def closed(self, streak: Streak, passing: ToolCall) -> None:
        """A streak that ended well after a change: the fix, and what was tried first."""
        self.fix(streak.call, streak.error, passing)
        if streak.retried is not None:
            self.did_not_help(streak.call, streak.retried, streak.error)

    def came_back(self, fixes: list[Finding], call: ToolCall, error: str) -> bool:
        """An error a change seemed to fix, back again: that change was not the fix. Its
        bug note becomes the failed attempt it was."""
        undone = next((f for f in fixes if same_error(error, f.problem or "")), None)
        if undone is None:
            return False
        fixes.remove(undone)
        self.findings.remove(undone)
        if undone.solution:
            self.add(Finding(
                "failed_attempt", f"Tried: {undone.solution} — `{family(call.command or '')}` "
                f"failed again with: {error}", "did-not-help", at=call.at,
                files=undone.files, problem=error, importance=0.5, anchor=undone.anchor,
            ))
        return True

    def fix(self, failing: ToolCall, error: str, passing: ToolCall) -> Finding:
        start, end = failing.position, passing.position
        self.fix_windows.append((start, end))
        texts = self.texts_between(start, end)
        why, _ = insight_passage(texts, MAX_FIX_CHARS)
        told = gist_of(texts, MAX_FIX_CHARS)
        if not why or (why[:40] in told and text_weight(told) <= MAX_FIX_CHARS):
            why = told  # all of a short diagnosis: what was wrong as well as why
        files = self.files_between(start, end)
        command = display_command(failing.command or "", self.cwd)
        error = error or "it failed"
        content = f"`{command}` failed: {error}"
        if why:
            content += f" — fixed: {why}"
        if files:
            content += f" ({', '.join(files[:5])})"
        finding = Finding(
            "bug_note", content, "fix", at=passing.at, files=files, problem=error,
            solution=why or None, importance=0.6, anchor=start,
        )
        if not (_on_scratch(failing.command or "", self.cwd)
                and all(SCRATCH_RE.match(f) for f in files)  # a throwaway script's bug
                or _UNFORMATTED_RE.search(error)  # tidying
                or not why and _SAYS_NOTHING_RE.match(error)):  # "BUILD FAILED", no why
            self.add(finding)
        return finding

    def reported_bugs(self, turns: list[_Turn]) -> None:
        """A turn whose prompt reports a problem and that changed code: the symptom in the
        user's words with the cause the assistant found; an existing fix of the turn gets
        the symptom instead of a second memory."""
        for previous, turn in zip([_Turn(None), *turns], turns, strict=False):
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt" or not turn.edited:
                continue
            if not previous.edited and lexicon.CORRECTION_RE.match(prompt.text):
                continue  # a proposal turned down: nothing was built to be broken
            pasted = pasted_error(prompt.text)  # the log the user pasted says what broke
            said = lexicon.sentences(prompt.prose)
            at = next((n for n, s in enumerate(said) if lexicon.PROBLEM_RE.search(s)
                       and len(s) >= 15 and rule_type(s) is None), None)
            symptom = "" if at is None else said[at]
            for more in said[at + 1:at + 3] if at is not None else []:
                # the symptom told on: "… never appears. The worker logs a DoesNotExist."
                if not lexicon.PROBLEM_RE.search(more) or rule_type(more) is not None or (
                        text_weight(symptom) + text_weight(more) > 240):
                    break
                symptom = f"{symptom} {more}"
            symptom = symptom or pasted
            # The assistant agreeing that what the user saw is wrong ("Right, current_user
            # is useless here"): a report, however the user worded it.
            acknowledged = not symptom and previous.worked and self.acknowledges(turn)
            if acknowledged:
                symptom = " ".join(lexicon.sentences(prompt.prose)[:2])
            announced = "" if symptom or acknowledged else self.announced(turn)
            told = previous.closing()
            if not symptom and not announced and not acknowledged and told is not None and (
                lexicon.DIAGNOSIS_RE.search(told.text[:300])
            ):  # "Aquí hay un problema: …" ends a turn; the next prompt says what to do
                asked = lexicon.sentences(prompt.prose)[0]
                self.add(Finding(
                    "bug_note", f"{first_sentences(told.text, MAX_FIX_CHARS)} — {asked}",
                    "announced", at=told.at, files=turn.files(self)[:10],
                    problem=first_sentences(told.text, 240), solution=asked,
                    importance=0.6, anchor=turn.span()[0]))
                continue
            if announced:  # what the user saw, and each problem the assistant found in it
                said = lexicon.sentences(prompt.prose)
                seen = shorten(next((s for s in said if text_weight(s) >= 20), said[0]), 240)
                for problem in (list_items(announced) or [announced])[:3]:
                    cause = shorten(problem, MAX_FIX_CHARS)
                    # said before any change, so told once: keyed by its words (a
                    # "reported" key is the turn's, one memory for the turn's one bug)
                    self.add(Finding(
                        "bug_note", f"{seen} — {cause}", "announced", at=prompt.at,
                        files=turn.files(self)[:10], problem=seen, solution=cause,
                        importance=0.6, anchor=turn.span()[0]))
                continue
            if not symptom:
                continue
            symptom = shorten(symptom, 240)
            if pasted and pasted not in symptom:
                symptom = f"{symptom} ({pasted})"
            first, last = turn.span()
            fixes = [f for f in self.findings if f.origin == "fix" and first <= f.anchor <= last]
            if fixes and not acknowledged:
                fix = fixes[0]
                fix.content = f"{symptom} — {fix.content}"
                fix.problem = f"{symptom} ({fix.problem})"
                # The turn's bug, however fully told: one memory whether a Stop saw it
                # before the passing run reached the transcript or after.
                fix.origin, fix.anchor = "reported", first
                continue
            closing = turn.closing()
            cause = _labelled_cause(closing)
            for later in turns[turns.index(turn) + 1:]:
                if cause or later.opener is None or lexicon.PROBLEM_RE.search(later.opener.text):
                    break  # the cause told once the same bug was fixed, turns later
                cause = _labelled_cause(later.closing())
            if acknowledged:
                cause = self.diagnosis(turn)
                if lexicon.DID_NOT_WORK_RE.search(prompt.text) or lexicon.ABANDON_RE.search(cause):
                    continue  # the last change did not work: a failed attempt, not a bug
            if not cause:
                texts = [e.text for e in turn.events if e.kind == "text"]
                cause, score = insight_passage(texts, MAX_FIX_CHARS)
                if score < 2:  # unexplained, and the first try taken back: what the fix
                    cause = (self.lasting_change(turns, turns.index(turn))  # rests on
                             or self.diagnosis(turn))
                if not cause:
                    continue
            files = turn.files(self)
            self.add(Finding(
                "bug_note", f"{symptom} — {shorten(cause, MAX_FIX_CHARS)}", "reported",
                at=closing.at if closing else prompt.at, files=files[:10], problem=symptom,
                solution=shorten(cause, MAX_FIX_CHARS), importance=0.6, anchor=first,
            ))

    def lasting_change(self, turns: list[_Turn], index: int) -> str:
        """What the assistant found before the change that answered the problem raised in
        turns[index], when every edit of that turn was taken back: the words before the
        first edit that stayed, in the next three turns (past the ones that only undid the
        first try); empty when that turn's own change stayed or none did."""
        undone_seen = False
        for turn in turns[index:index + 4]:
            if turn is not turns[index] and turn.opener and turn.opener.kind == "prompt" and (
                lexicon.PROBLEM_RE.search(turn.opener.text)
            ):
                return ""  # a new problem: the first one was left as it was
            for event in turn.events:
                call = event.tool
                if not call or call.name not in EDIT_TOOLS or call.failed is not False:
                    continue
                if event.position in self.undone or event.position in self.undoing:
                    undone_seen = True
                    continue
                if not undone_seen:
                    return ""
                texts, _ = self.text_before(event.position, past_bookkeeping=True,
                                            past_reading=True)
                found = gist_of(texts, MAX_FIX_CHARS)
                return found if len(found) >= MIN_DIAGNOSIS_CHARS else ""
        return ""

    def announced(self, turn: _Turn) -> str:
        """The assistant's words, before its first change of the turn, announcing what it
        found wrong ("Two problems in ra_ajax_book: …"); empty when it announced none."""
        for event in turn.events:
            if event.tool is not None and event.tool.name in EDIT_TOOLS:
                return ""
            if event.kind == "text" and lexicon.DIAGNOSIS_RE.search(event.text[:300]):
                return event.text
        return ""

    def acknowledges(self, turn: _Turn) -> bool:
        first = next((e for e in turn.events if e.kind == "text"), None)
        return first is not None and bool(lexicon.ACKNOWLEDGE_RE.match(first.text))

    def diagnosis(self, turn: _Turn) -> str:
        """What the assistant found before it changed anything in a turn that answers a
        reported problem: the cause, however it is worded."""
        edit = next((e.position for e in turn.events if e.tool and e.tool.name in EDIT_TOOLS
                     and e.tool.failed is False), None)
        texts = [e.text for e in turn.events if e.kind == "text" and (
            edit is None or e.position < edit)]
        found = gist_of(texts, MAX_FIX_CHARS)
        return found if len(found) >= MIN_DIAGNOSIS_CHARS else ""

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
        written: dict[str, list[int]] = {}  # every change of a file, by file
        for event in self.events:
            call = event.tool
            if call is None or call.failed is not False:
                continue
            path = call.file_path
            if call.name in EDIT_TOOLS and path:
                written.setdefault(path, []).append(call.position)
            if call.name in ("Edit", "MultiEdit") and path:
                pairs = call.input.get("edits") if call.name == "MultiEdit" else [call.input]
                for pair in pairs if isinstance(pairs, list) else []:
                    old = pair.get("old_string") if isinstance(pair, dict) else None
                    new = pair.get("new_string") if isinstance(pair, dict) else None
                    if not isinstance(old, str) or not isinstance(new, str):
                        continue
                    earlier = edits.setdefault(path, [])
                    undone = next((e for e in reversed(earlier) if _takes_back(e, old, new)),
                                  None)
                    if undone is not None:
                        self.revert(path, undone[2], call.position)
                        earlier.remove(undone)
                        break
                    replaced = next((e for e in reversed(earlier) if " ".join(e[1].split())
                                     in " ".join(old.split()) and _drops(e, new)), None)
                    if replaced is not None:
                        self.revert(path, replaced[2], call.position, replaced=True)
                        earlier.remove(replaced)
                    earlier.append((old, new, call.position))
            elif call.name == "Write" and path and isinstance(call.input.get("content"), str):
                # the file written anew without what an earlier edit put in: that try replaced
                earlier = edits.get(path, [])
                replaced = next((e for e in reversed(earlier)
                                 if _drops(e, call.input["content"])), None)
                if replaced is not None:
                    self.revert(path, replaced[2], call.position, replaced=True)
                    edits[path] = []
            elif call.name == "Bash" and call.command:
                words = words_of(call.command)
                if words[:1] == ["rm"]:  # a file made and then deleted (a PoC, a probe)
                    gone = [w for w in words[1:] if not w.startswith("-")]
                    for file_path in list(written):
                        relative = relative_path(file_path, self.cwd)
                        if any(relative == n or file_path.endswith("/" + n) for n in gone):
                            self.undone.update(written.pop(file_path))
                if words[:2] in (["git", "checkout"], ["git", "restore"], ["git", "stash"]) or (
                    words[:3] == ["git", "reset", "--hard"]
                ):
                    named = [w for w in words[2:] if not w.startswith("-") and w != "--"]
                    for file_path, history in list(edits.items()):
                        relative = relative_path(file_path, self.cwd)
                        if history and (words[1] in ("stash", "reset") or any(
                            relative == n or file_path.endswith("/" + n) or n == "." for n in named
                        )):
                            self.revert(file_path, history[0][2], call.position)
                            edits[file_path] = []

    def revert(self, path: str, first: int, undo: int, *, replaced: bool = False) -> None:
        tried_texts, _ = self.text_before(first)
        if not tried_texts:  # one plan, then several edits: the plan is before the first
            start = first
            while start > 0 and self.events[start - 1].tool is not None and (
                self.events[start - 1].tool.name in EDIT_TOOLS | BOOKKEEPING_TOOLS | {"Read"}
            ):
                start -= 1
            tried_texts, _ = self.text_before(start)
        trying = [s for t in tried_texts for s in lexicon.sentences(t)
                  if lexicon.TRYING_RE.search(s)]
        tried = shorten(trying[-1], 300) if trying else (  # "I'll try the cheap thing: …"
            insight_passage(tried_texts, 220)[0] or gist_of(tried_texts, MAX_APPROACH_CHARS))
        why_texts, at = self.text_before(undo)
        errors = [
            error_line(e.tool.output) for e in self.events[first:undo]
            if e.tool and e.tool.name == "Bash" and run_outcome(e.tool) is False
        ]
        between = [e.text for e in self.events[first:undo + 1] if e.kind in ("text", "prompt")]
        gave_up = any(lexicon.ABANDON_RE.search(t) or lexicon.DID_NOT_WORK_RE.search(t)
                      for t in between)
        if not errors and not gave_up:
            return  # an edit undone with nothing failing in between is tidying, not an attempt
        tried_call, undo_call = self.events[first].tool, self.events[undo].tool
        if replaced and not (tried_call and undo_call and _named_by(
            errors, _written(tried_call), _written(undo_call))
        ):  # rewritten after some failure: a try given up only if the error named what it
            return  # added and the rewrite took that out ("Property '$use' does not exist")
        why = (insight_passage(why_texts, 240)[0] or gist_of(why_texts)
               or next((e for e in errors if e), ""))
        said = [e.text for e in self.events[first:undo] if e.kind == "text"]
        verdict = next((t for t in reversed(said) if lexicon.ABANDON_RE.search(t)
                        or lexicon.DID_NOT_WORK_RE.search(t)), "")
        shown = first_sentences(verdict, 240) if verdict else ""
        if shown and shown not in why:  # what the attempt showed
            why = f"{why}; {shown}" if why else shown
        file = relative_path(path, self.cwd)
        approach = tried or f"a change to {file}"
        call = self.events[first].tool
        gist = change_gist(call) if call is not None else ""
        self.revert_windows.append((first, undo))
        self.undone.add(first)
        self.undoing.add(undo)
        undone = "replaced" if replaced else "reverted"
        content = f"Tried: {approach} ({gist}) — {undone}" if gist and gist not in approach else (
            f"Tried: {approach} — {undone}")
        if why:
            content += f": {why}"
        self.attempt(first, approach, Finding("failed_attempt", content, "revert", at=at,
                                              files=[file], problem=why or None,
                                              importance=0.55, anchor=first))

    def not_working(self, turns: list[_Turn]) -> None:
        for previous, turn in zip(turns, turns[1:], strict=False):
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt" or not previous.worked:
                continue
            last = next((e.tool for e in reversed(previous.events) if e.tool is not None), None)
            if last is not None and (last.rejected or last.interrupted):
                continue  # what the person says of the call they stopped ("don't start metro")
            said = [s for s in lexicon.sentences(prompt.prose) if lexicon.DID_NOT_WORK_RE.search(s)]
            if not said and lexicon.CORRECTION_RE.match(prompt.text) and turn.edited:
                said = lexicon.sentences(prompt.prose)[:1]  # "stop, not through fetch: …"
            # What the user saw, and the assistant giving the approach up because of it
            # ("Virtualize isn't the right tool here"), however the user worded it.
            answer = next((e.text for e in turn.events if e.kind == "text"), "")
            given_up = [s for s in lexicon.sentences(answer) if lexicon.ABANDON_RE.search(s)]
            if not said and given_up and turn.edited:
                said = lexicon.sentences(prompt.prose)[:1] + given_up[:1]
            if not said:
                continue
            # else what it said of what it did, not what it asked ("which mode today?")
            last_edit = next((e.position for e in reversed(previous.events) if e.tool
                              and e.tool.name in EDIT_TOOLS and e.tool.failed is False), None)
            if last_edit is not None:  # the change turned down decided nothing
                self.undone.add(last_edit)
            approach = self.last_change_reason(previous) or previous.closing_gist() or gist_of(
                [e.text for e in previous.events if e.kind == "text" and not any(
                    s.rstrip("*").endswith(("?", "？")) for s in lexicon.sentences(e.text))])
            if not approach:
                continue
            # The user's whole reply when it is short: the why sits beside the verdict.
            why = prompt.text if len(prompt.text) <= 400 else " ".join(said)
            if given_up and given_up[0] not in why:
                why = f"{shorten(why, 240)} {given_up[0]}"
            content = f"{approach} — did not work: {shorten(why, 400)}"
            self.attempt(previous.span()[1], approach, Finding(
                "failed_attempt", content, "not-working", at=prompt.at,
                files=previous.files(self), problem=shorten(why, 400), importance=0.55))

    def corrections(self, turns: list[_Turn]) -> None:
        """The user turning down what the assistant proposed, before anything was changed,
        and saying what to do instead ("no, wrong — use jsonb, keep only the diff"): the
        choice made, in the user's words, with what it replaced."""
        for proposal, turn in zip(turns, turns[1:], strict=False):
            prompt, closing = turn.opener, proposal.closing()
            if prompt is None or prompt.kind != "prompt" or closing is None or proposal.edited:
                continue
            if len(prompt.text) < MIN_CORRECTION_CHARS or not turn.worked or not (
                lexicon.CORRECTION_RE.match(prompt.text)
            ):
                continue
            proposed = gist_of([closing.text], 200)
            content = f"{shorten(prompt.text, 400)} — instead of: {proposed}"
            self.add(Finding("decision", content, "correction", at=prompt.at,
                             files=turn.files(self), importance=0.7, anchor=prompt.position))

    def last_change_reason(self, turn: _Turn) -> str:
        """What the assistant said right before the last edit of a turn: the approach."""
        edit = next((e for e in reversed(turn.events) if e.tool is not None
                     and e.tool.name in EDIT_TOOLS and e.tool.failed is False), None)
        if edit is None:
            return ""
        texts, _ = self.text_before(edit.position, past_bookkeeping=True)
        return gist_of(texts, MAX_APPROACH_CHARS)

    def abandoned(self) -> None:
        recent_failure = -10
        found = 0
        for event in self.events:
            if event.tool is not None and (event.tool.failed or (
                event.tool.name == "Bash" and run_outcome(event.tool) is False
            )):  # a failure behind `| tail` exits 0 but failed all the same
                if not _NOT_ALLOWED_RE.search(event.tool.output[:300]):
                    recent_failure = event.position  # (a refusal to run tries nothing)
                continue
            if event.kind != "text" or event.position - recent_failure > 6 or found >= 3:
                continue
            said = lexicon.sentences(event.text)
            for number, sentence in enumerate(said):
                if text_weight(sentence) >= 40 and lexicon.ABANDON_RE.search(sentence):
                    windows = self.fix_windows + self.revert_windows
                    if any(s <= event.position <= e for s, e in windows):
                        break
                    # with what it gives up and why: the sentences that lead to it
                    told = " ".join(said[max(0, number - 2):number + 1])
                    self.add(Finding("failed_attempt", shorten(told, 400), "abandoned",
                                     at=event.at, importance=0.5))
                    found += 1
                    break

    # decisions ------------------------------------------------------------------------------

    def decisions(self, turns: list[_Turn], *, wrap_ups: bool = True) -> None:
        """The reasons given right before edits (or in a proposal the user then approved
        with a turn that edits), and the reasoned choices of wrap-ups."""
        candidates: list[tuple[int, Finding]] = []
        seen: set[int] = set()
        passages: list[tuple[list[str], str | None, int, int]] = []  # texts, at, first, edit
        for event in self.events:
            call = event.tool
            if call is None or call.name not in EDIT_TOOLS or call.failed is not False or (
                _AGENT_NOTES_RE.search(call.file_path or "")
                or SCRATCH_RE.match(call.file_path or "")  # a throwaway script decides nothing
            ):
                continue
            texts, at = self.text_before(event.position, past_bookkeeping=True,
                                         past_reading=True)
            refused = self.refused_just_before(event.position)
            if refused is not None:  # "OK, the factory then": why a change was needed at
                earlier, at = self.text_before(refused, past_bookkeeping=True,  # all is
                                               past_reading=True)  # said before the refusal
                texts = about_change(earlier, call) + texts
            passages.append((texts, at, event.position - len(texts), event.position))
        for proposal, turn in zip(turns, turns[1:], strict=False):
            closing = proposal.closing()
            if closing is not None and not proposal.edited and turn.edited and turn.opener and (
                turn.opener.kind == "prompt"
            ):
                edit = next((e.position for e in turn.events if e.tool and e.tool.name in
                             EDIT_TOOLS and e.tool.failed is False
                             and not SCRATCH_RE.match(e.tool.file_path or "")), None)
                if edit is not None:
                    passages.append(([closing.text], closing.at, closing.position, edit))
        for texts, at, first, edit_at in passages:
            if not texts or first in seen:
                continue
            seen.add(first)
            if edit_at in self.undone or edit_at in self.undoing:
                continue  # a change that was undone decided nothing; undoing it, neither
            # "my mistake: the handler lacks its attribute", "the subagent found a real bug:
            # …": the change fixes a bug — unless the turn's bug is told already
            found = next((t for t in texts if lexicon.BUG_FOUND_RE.search(t)), None)
            owned = next((t for t in texts if lexicon.SELF_ERROR_RE.search(t)), None) or found
            if owned is not None and not (owned is found and any(
                f.type == "bug_note" and f.origin in ("reported", "fix", "announced")
                and self.turn_of(f.anchor) == self.turn_of(edit_at) for f in self.findings
            )):
                self.add(Finding("bug_note", first_sentences(owned, MAX_FIX_CHARS), "own-error",
                                 at=at, importance=0.6, anchor=first))
                continue
            passage, score = insight_passage(texts)
            if score < 2 or len(passage) < 40:
                passage, score = reasoning(texts)
                if score < 1:
                    continue
            in_fix = any(s < edit_at < e for s, e in self.fix_windows)
            if in_fix and not lexicon.ALTERNATIVE_RE.search(passage):
                continue  # the reasoning of a fix belongs to its bug note
            call = self.events[edit_at].tool
            file = relative_path(call.file_path, self.cwd) if call and call.file_path else None
            gist = change_gist(call) if call is not None else ""
            if gist:  # what was changed, which the words before it may not name
                passage = f"{passage} (change: {gist})"
            candidates.append((score, Finding("decision", passage, "pre-edit", at=at,
                                              files=[file] if file else [], importance=0.6,
                                              anchor=first)))
        if not wrap_ups:
            self._keep_best(candidates)
            return
        # Reasoned choices stated in summaries: the wrap-ups, and any long text written
        # after the session changed something (a summary a stop hook sent back to work).
        edited_at = next((e.position for e in self.events if e.tool is not None
                          and e.tool.name in EDIT_TOOLS and e.tool.failed is False), None)
        summaries = [t.closing() for t in turns if t.edited and t.closing() is not None]
        if edited_at is not None:  # not the answer of a prompt's turn that did no work
            answers = {e.position for t in turns if not t.worked and _is_prompt(t.opener)
                       for e in t.events}
            summaries += [e for e in self.events if e.kind == "text" and e.position > edited_at
                          and len(e.text) >= LONG_TEXT_CHARS and is_list(e.text)
                          and e.position not in answers]
        done: set[int] = set(seen)
        final = next((t.closing() for t in reversed(turns)
                      if t.worked and t.closing() is not None), None)
        if final is not None and edited_at is not None:
            summaries.append(final)
        for closing in summaries:
            if closing is None or closing.position in done:
                continue
            done.add(closing.position)
            settled = done_part(closing.text)
            for sentence in lexicon.sentences(settled):
                # neither an offer to do more ("…, or would you prefer …?") nor a table's row
                label = re.match(r"^\W*([^:：]{2,40})[:：]", sentence)
                if len(sentence) < 50 or lexicon.CAUSE_LABEL_RE.match(sentence) or (
                    lexicon.FIX_LABEL_RE.match(sentence)
                ) or (label and open_heading(label.group(1))) or (  # "Not done: …"
                    sentence.endswith(("?", "？"))) or sentence.startswith("|") or (
                    lexicon.DIAGNOSIS_RE.search(sentence[:40])  # "The problem is that …": a
                ) or lexicon.OFFER_RE.search(sentence):  # cause; "if you'd rather …": an offer
                    continue
                score = insight_score(sentence) - len(lexicon.MECHANICS_RE.findall(sentence))
                if score >= 2 and lexicon.ALTERNATIVE_RE.search(sentence) or score >= 3:
                    candidates.append((score, Finding(
                        "decision", shorten(sentence, MAX_REASON_CHARS), "wrap-up",
                        at=closing.at, files=[], importance=0.6, anchor=closing.position)))
            if final is None or closing.position != final.position:
                continue
            for item in design_items(settled):
                candidates.append((1, Finding(
                    "decision", shorten(item, MAX_REASON_CHARS), "wrap-up",
                    at=closing.at, files=[], importance=0.55, anchor=closing.position)))
        self._keep_best(candidates)

    def refused_just_before(self, position: int) -> int | None:
        """The position of an edit the user refused right before this one (only words in
        between), or None."""
        for event in reversed(self.events[:position]):
            if event.kind == "text":
                continue
            call = event.tool
            if call is not None and call.name in EDIT_TOOLS and call.rejected:
                return event.position
            return None
        return None

    def _keep_best(self, candidates: list[tuple[int, Finding]]) -> None:
        best = sorted(candidates, key=lambda c: -c[0])[:MAX_DECISIONS]
        for _, finding in sorted(best, key=lambda c: c[1].anchor):
            self.add(finding)

    def commits(self) -> None:
        """Each confirmed commit with a body, naming the files it added (or, for `git add
        -A`, the files edited since the previous commit)."""
        since = -1
        for event in self.events:
            call = event.tool
            commit = commit_of(call) if call is not None else None
            if commit is None:
                continue
            files = [relative_path(f, self.cwd) for f in commit.files] or self.files_between(
                since, event.position)
            since = event.position
            self.add(Finding("bug_note" if commit.is_fix else "decision", commit.text,
                             "commit", at=event.at, files=files[:30], importance=0.6,
                             anchor=event.position))

    def summarised_fixes(self) -> None:
        """The "Errors and fixes" a compaction summary lists, for the fixes the events did
        not show (fixed in an edit, checked by another command): each unless a bug note
        already names the same error."""
        known = [f.content.lower() for f in self.findings
                 if f.type in ("bug_note", "failed_attempt")]
        for event in self.events:
            if event.kind != "compaction" or not event.text:
                continue
            for error, fix in summary_fixes(event.text):
                if _named_in(_NAME_RE.findall(f"{error} {fix}"), known):
                    continue
                content = shorten(f"{error}: {fix}", MAX_FIX_CHARS)
                known.append(content.lower())
                self.add(Finding("bug_note", content, "summary", at=event.at, problem=error,
                                 solution=fix, importance=0.55, anchor=event.position))

    def plans(self) -> None:
        """An approved plan (plan mode's ExitPlanMode) is the design the user agreed to:
        its "Problem: … Solution: …" pairs are decisions with their why."""
        seen: set[str] = set()
        for call in self.session.tools:
            plan = call.input.get("plan")
            if call.name != "ExitPlanMode" or call.failed is not False or not isinstance(
                plan, str
            ):
                continue
            for problem, solution in plan_decisions(plan):
                content = f"{solution} — because {problem}" if problem else solution
                if normalized(content) in seen:
                    continue
                seen.add(normalized(content))
                self.add(Finding("decision", shorten(content, MAX_REASON_CHARS), "plan",
                                 at=call.at, importance=0.6, anchor=call.position))

    def answers(self) -> None:
        for call in self.session.tools:
            if call.name != "AskUserQuestion" or call.failed is not False:
                continue
            pairs = answers_of(call)
            for question, answer in pairs:
                if not answer.strip():
                    continue
                stated = rules_in(answer, whole=True)
                # a value picked with its reason ("2 秒。电池优先") decides this question; a
                # rule states what holds from now on
                lasting = lexicon.LASTING_RE.search(answer) or lexicon.OBLIGATION_RE.search(
                    answer) or lexicon.PROHIBITION_RE.search(answer)
                if stated and len(answer) >= 20 and lasting:
                    kind, rule = stated[0]
                    self.add(Finding(kind, rule, "answer", at=call.at, importance=0.7))
                    continue
                content = f"{shorten(question, 200)} — the user chose: {shorten(answer, 300)}"
                self.add(Finding("decision", content, "answer", at=call.at, importance=0.65))

    def found_out(self, turns: list[_Turn]) -> None:
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
            if not _is_prompt(prompt) or closing is None or not _observed(turn, self.cwd) or (
                lexicon.EXPLAIN_RE.search(prompt.prose)  # a lesson, not the project's news
            ):
                continue
            following = turns[index + 1] if index + 1 < len(turns) else None
            after = following.opener if following is not None else None
            if lexicon.UNCERTAIN_RE.search(closing.text) or _is_prompt(after) and _disputes(
                after.prose
            ) or following is not None and following.edited:
                continue
            answer = gist_of([closing.text], MAX_FINDING_CHARS)
            if text_weight(answer) < MIN_WRAP_UP_CHARS:
                continue
            self.add(Finding("project_fact", f"{shorten(prompt.prose, 160)} — {answer}",
                             "finding", at=closing.at, importance=0.55,
                             anchor=closing.position))

    # rules ------------------------------------------------------------------------------------

    def rules(self) -> None:
        seen: set[str] = set()
        sources: list[tuple[str, str | None, str]] = [
            (e.text, e.at, "rule") for e in self.events if e.kind == "prompt"
        ]
        said = [normalized(text) for text, _, _ in sources]
        for event in self.events:  # what the user said before a compaction, if not here
            if event.kind == "compaction" and event.text:
                sources += [(quote, event.at, "rule")
                            for quote in summary_user_messages(event.text)
                            if not any(normalized(quote) in prompt for prompt in said)]
        sources += [(c.feedback, c.at, "rejected") for c in self.session.tools if c.feedback]
        for text, at, origin in sources:
            for kind, rule in rules_in(text, whole=origin == "rejected",
                                       opening=text is self.opening):
                if normalized(rule) in seen:
                    continue
                seen.add(normalized(rule))
                self.add(Finding(kind, rule, "rule", at=at, importance=0.7))

    def rejections(self) -> None:
        for call in self.session.tools:
            if not call.rejected or not call.feedback:
                continue
            if rules_in(call.feedback, whole=True):
                continue  # already a rule in the user's words
            if call.feedback.rstrip().endswith(("?", "？")) or _RECORDING_RE.search(
                call.command or ""
            ):  # a question, or "add X first" said to a commit: nothing tried was wrong
                continue
            intent, _ = self.text_before(call.position)
            approach = gist_of(intent) or f"{call.name} {call.file_path or call.command or ''}"
            content = f"{approach} — rejected by the user: {shorten(call.feedback, 240)}"
            self.add(Finding("failed_attempt", content, "rejected", at=call.at,
                             importance=0.55))

    # todos and open questions -------------------------------------------------------------

    def todos(self, turns: list[_Turn]) -> None:
        # (kind, text, at, anchor): a wrap-up's items are keyed by their place in it, so
        # one told more fully later (who will answer it) updates its memory
        items: list[tuple[str, str, str | None, int]] = []
        last_list = None
        for call in self.session.tools:
            if call.name == "TodoWrite" and isinstance(call.input.get("todos"), list):
                last_list = call
        if last_list is not None:
            for todo in last_list.input["todos"]:
                if isinstance(todo, dict) and isinstance(todo.get("content"), str) and (
                    todo.get("status") != "completed"
                ):
                    items.append(("todo", todo["content"], last_list.at, -1))
        items += [("todo", subject, at, -1) for subject, at in open_tasks(self.session.tools)]
        listed = [set(re.findall(r"\w+", text.lower())) for _, text, _, _ in items]
        # A question the user asked that the answer left open: the question and the answer.
        answered: set[int] = set()
        for index, turn in enumerate(turns):
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt" or turn.edited:
                continue
            answer = next((e for e in reversed(turn.events) if e.kind == "text"), None)
            asked = [s for s in lexicon.sentences(prompt.prose)
                     if s.endswith(("?", "？")) or lexicon.WONDER_RE.search(s)]
            if asked and answer is not None and (
                lexicon.UNDECIDED_RE.search(answer.text) or lexicon.UNCERTAIN_RE.search(answer.text)
            ):
                gist = first_sentences(answer.text, 400)
                items.append(("open_question", f"{shorten(' '.join(asked), 200)} — {gist}",
                              answer.at, -1))
                answered.add(index)
        # What the last working turn left open, and what any talk after it added.
        last_work = max((i for i, t in enumerate(turns) if t.worked), default=0)
        for index, turn in enumerate(turns[last_work:], last_work):
            closing = turn.closing()
            # what the assistant asked of the person ("Which approach do you prefer?"), or
            # left to them, is settled by their next message when one follows
            replied = index + 1 < len(turns) and _is_prompt(turns[index + 1].opener)
            # a short reply ("yes please") answers every question the wrap-up ended on,
            # unless it hands them on or leaves them open ("DFU 问老周", "not sure yet")
            reply = turns[index + 1].opener.prose if replied else ""
            briefly = replied and text_weight(reply) < BRIEF_REPLY_CHARS and not (
                lexicon.HANDOFF_RE.search(reply) or lexicon.UNCERTAIN_RE.search(reply)
                or lexicon.UNDECIDED_RE.search(reply))
            if closing is not None:  # an answered question is already one open question
                items += [(kind, text, closing.at, closing.position * 64 + number)
                          for number, (kind, text) in enumerate(open_items(closing.text)[:64])
                          if not (index in answered and kind == "open_question")
                          and not (replied and lexicon.TO_USER_RE.search(text))
                          and not (briefly and text.endswith(("?", "？")))]
        # A question the user hands to someone at the end ("ask Priya", "faudra demander à
        # Claire si …"): open until they answer, with the question it follows when there is one.
        handed: set[str] = set()  # each question handed on once
        for turn in turns[last_work:]:
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt":
                continue
            said = lexicon.sentences(prompt.prose)
            for number, sentence in enumerate(said):
                if not lexicon.HANDOFF_RE.search(sentence) or rule_type(sentence, long_prompt=(
                    len(prompt.text) > 600)) is not None:
                    continue
                asked = [s for s in said[max(0, number - 2):number]
                         if s.endswith(("?", "？")) and s not in handed]
                if not asked and lexicon.DEFER_RE.search(sentence) and not (
                    QUESTION_WORD_RE.search(sentence) or lexicon.UNCERTAIN_RE.search(sentence)
                ):
                    # "slither in CI is overdue, I'll ask Lena after the audit": work put
                    # off, with who it waits on
                    items.append(("todo", sentence, prompt.at, -1))
                    continue
                ours = [i for i, item in enumerate(items) if item[0] == "open_question"]
                if not asked and ours and not lexicon.PROBLEM_RE.search(sentence) and (
                    text_weight(sentence) < 80
                ):  # "good q, ask Priya": the question the wrap-up asked, and who answers it
                    kind, question, at, anchor = items[ours[-1]]
                    items[ours[-1]] = (kind, f"{question} — {sentence}", at, anchor)
                    continue
                if not asked and number and _POINTS_BACK_RE.search(sentence):
                    # "not sure that's still the case, ask Claire": the case is the
                    # sentence before
                    asked = [said[number - 1]]
                items.append(("open_question", " ".join([*asked[-1:], sentence]), prompt.at,
                              -1))
                handed.update(asked[-1:])
        prompts = [t.opener for t in turns if t.opener and t.opener.kind == "prompt"]
        if prompts:  # the user's last words naming work for later, or not done yet
            last = prompts[-1]
            # ... or what they do not know yet ("lo que no sé es si irán en /en/ o en un
            # subdominio, eso está sin decidir")
            items += [("open_question", s, last.at, -1) for s in lexicon.sentences(last.prose)
                      if (lexicon.UNCERTAIN_RE.search(s) or lexicon.UNDECIDED_RE.search(s))
                      and text_weight(s) >= 30 and rule_type(s) is None
                      and not lexicon.HANDOFF_RE.search(s)
                      and not any(s in item[1] for item in items)]  # handed on already
            later = [_put_off(s, lexicon.LATER_WORK_RE) for s in lexicon.sentences(last.prose)
                     if (lexicon.LATER_WORK_RE.search(s) or lexicon.USER_NOT_YET_RE.search(s))
                     and len(s) >= 20 and not s.endswith(("?", "？"))]
            items += [("todo", s, last.at, -1) for s in later if rule_type(s) is None]
        for turn in turns:
            prompt = turn.opener
            if prompt is None or prompt.kind != "prompt":
                continue
            items += [("todo", _put_off(s), prompt.at, -1) for s in lexicon.sentences(prompt.prose)
                      if lexicon.DEFER_RE.search(s) and text_weight(s) >= 15
                      and not any(s in item[1] for item in items)]
        seen: set[str] = set()
        for kind, text, at, anchor in items[:MAX_TODOS]:
            words = set(re.findall(r"\w+", text.lower()))
            if normalized(text) in seen or len(text) < 8 or anchor >= 0 and len(words) >= 3 and (
                any(len(words & item) >= 0.8 * len(words) for item in listed)
            ):  # a todo list's item, restated by the wrap-up ("⚠️ Set up the schedule")
                continue
            seen.add(normalized(text))
            self.add(Finding(kind, shorten(text, 300), "open", at=at, importance=0.55,
                             anchor=anchor))


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[^\W\d_]{4,}", text.lower())}


def _echoes(reply: str, asked: str) -> bool:
    """Whether a reply takes up what an open end said, in two or more of its words."""
    return len(_stems(reply) & _stems(asked)) >= 2 and not lexicon.HANDOFF_RE.search(reply)


def _put_off(sentence: str, marker: re.Pattern[str] = lexicon.DEFER_RE) -> str:
    """The work a sentence puts off; only the clause that does, when the sentence also
    states a rule ("cleanup I'll hang on the housekeeping worker tomorrow, NOT a new cron":
    the rule is kept whole as a constraint, the todo is the first clause)."""
    if rule_type(sentence) is None:
        return sentence
    clauses = [c.strip() for c in re.split(r"[,;:]\s+|\s+[—–]\s+", sentence)]
    return next((c for c in clauses if marker.search(c) and text_weight(c) >= 15
                 and rule_type(c) is None), sentence)


_TASK_ID_RE = re.compile(r"#(\d+)")


def _is_prompt(event: Event | None) -> bool:
    return event is not None and event.kind == "prompt"


# A numbered option as a list item or heading: "**2. Private credit on Solana** — …".
_OPTION_RE = re.compile(r"^\s*(?:#{1,6}\s*)?\**(\d{1,2})[.)]\s+\**([^\n*—:]{3,80})", re.M)
# The person naming options by number: "number 5 and 6", "option 2", "Nr. 4" (not "#3":
# an issue or a pull request as often as an option).
_OPTION_REF_RE = re.compile(
    r"(?:\b(?:numbers?|nos?\.|options?|items?|points?|nr\.|nummer|numéros?|números?|opci[oó]n|"
    r"opção|номер\w*|вариант\w*)\s*)\d{1,2}(?:\s*(?:,|&|and|or|und|oder|et|ou|y|o|e|и|или)\s*"
    r"\d{1,2}\b)*|(?:选项|方案|番号?)\s*\d{1,2}|\d{1,2}\s*(?:番|号)", re.IGNORECASE)


#: Tools that look beyond the project's files.
_LOOKING_TOOLS = frozenset({"WebSearch", "WebFetch"})
# A tool server's tool that reads: `mcp__github__get_issue`, `mcp__sentry__search_events`.
_READING_SERVER_TOOL_RE = re.compile(
    r"^mcp__.*__(get|list|search|find|read|query|fetch|lookup|view|show|describe|analy[sz]e|"
    r"inspect|count|check|status)", re.IGNORECASE)


_ABSOLUTE_RE = re.compile(r"(?:^|[\s='\"])((?:~|/)[^\s'\";|&)]*)")


def _observed(turn: _Turn, cwd: str | None) -> bool:
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


# A sentence about "that", "c'est", "das": what it is about was said just before.
_POINTS_BACK_RE = re.compile(
    r"\b(that|this|it|c'est|ça|cela|das|dies|eso|esto|isso|isto|questo)\b|это|так ли|"
    r"那|这|それ|これ", re.IGNORECASE)


def _labelled_cause(closing: Event | None) -> str:
    """What a wrap-up labels as the cause ("**Why it broke:** …", "Ursache: …")."""
    if closing is None:
        return ""
    return " ".join(m.group("text").strip("*_ ") for line in closing.text.splitlines()
                    if (m := lexicon.CAUSE_LABEL_RE.match(line.strip("*_ -"))))


_NUMBER_RE = re.compile(r"(?:^|(?<=\s))(\d{1,2})[.)]\s+")


def numbered_parts(text: str) -> list[str]:
    """The parts of a reply numbered 1, 2, 3 … in order, inline or one per line."""
    parts: list[str] = []
    last = None
    for match in _NUMBER_RE.finditer(text):
        if int(match.group(1)) != len(parts) + 1:
            continue
        if last is not None:
            parts[-1] = text[last:match.start()].strip()
        parts.append("")
        last = match.end()
    if last is not None:
        parts[-1] = text[last:].strip()
    return [p for p in parts if p]


def prepared(failed: str, passed: str) -> bool:
    """`nix flake check` failing, then `git add flake.nix && nix flake check` passing: the
    same command run after a step that does something (not just another folder)."""
    def work(command: str) -> list[list[str]]:
        return [w for w in shell.segments(command) if w[0] not in shell.FILTERS | shell.REPORTERS]

    before, after = work(failed), work(passed)
    if not before or len(after) <= len(before) or after[-len(before):] != before:
        return False
    steps = after[:-len(before)]
    return any(step[0] not in ("cd", "pushd") and not is_read_only(" ".join(step))
               and not _FORMATTING_RE.search(" ".join(step)) for step in steps)


# A tool refusing what it was asked for, as not existing in this version or setup.
# Recording work already done (a commit, a push): stopping one changes what is recorded,
# not how the work was done.
_RECORDING_RE = re.compile(r"(^|&&|;)\s*git (commit|push|add|tag)\b")
# Claude Code's permission system refused the call: it never ran.
_NOT_ALLOWED_RE = re.compile(
    r"requires approval|haven't granted it yet|was blocked\. For security|"
    r"permission to use \w+ (was|has been) denied", re.IGNORECASE)
_UNAVAILABLE_RE = re.compile(
    r"\bunknown (command|subcommand|option|flag|function|directive)\b|\bunrecognized "
    r"(option|argument|command|arguments)\b|\bno such (command|option|subcommand|function)\b|"
    r"\b(is not|isn't) (a )?(known|supported|valid) (command|option)\b|\bnot supported\b|"
    r"\binvalid choice\b|\bcommand not found\b|\bunknown (argument|attribute)\b",
    re.IGNORECASE)


# A format check's complaint: tidying, not a bug.
_UNFORMATTED_RE = re.compile(
    r"\b(not (properly )?formatted|would (be )?reformat\w*|formatting (issues|check failed)|"
    r"code style issues)\b", re.IGNORECASE)
# An error line that names no problem ("BUILD FAILED in 9s"): with no why, nothing to keep.
_SAYS_NOTHING_RE = re.compile(
    r"^\W*(build failed|failed|failure|fail|error|errors?|it failed|tests? failed)"
    r"( in [\d.]+ ?m?s)?\W*$", re.IGNORECASE)
# Reformatting the code before a format check: tidying, not a problem worth remembering.
_FORMATTING_RE = re.compile(r"\b(format|fmt|prettier|black|isort|gofmt|rustfmt|--fix)\b")


def open_tasks(calls: list[ToolCall]) -> list[tuple[str, str | None]]:
    """(subject, time) of the tasks Claude Code's task list still had open at the end: the
    TaskCreate / TaskUpdate tools that replaced TodoWrite (ids are counters, reported in
    the result: "Task #3 created successfully: …")."""
    tasks: dict[str, dict[str, Any]] = {}
    for call in calls:
        if call.failed is not False:
            continue
        if call.name == "TaskCreate" and isinstance(call.input.get("subject"), str):
            task = call.result.get("task") if isinstance(call.result, dict) else None
            found = _TASK_ID_RE.search(call.output)
            task_id = str(task.get("id")) if isinstance(task, dict) and task.get("id") else (
                found.group(1) if found else str(len(tasks) + 1))
            tasks[task_id] = {"subject": call.input["subject"], "status": "pending",
                              "at": call.at}
        elif call.name == "TaskUpdate":
            task_id = call.input.get("taskId") or call.input.get("task_id")
            task = tasks.get(str(task_id))
            if task is None:
                continue
            if isinstance(call.input.get("status"), str):
                task["status"] = call.input["status"]
            if isinstance(call.input.get("subject"), str):
                task["subject"] = call.input["subject"]
    return [(t["subject"], t["at"]) for t in tasks.values()
            if t["status"] not in ("completed", "deleted")]


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
            e.tool.name in EDIT_TOOLS or (e.tool.name == "Bash" and not is_read_only(
                e.tool.command or "")))
            for e in self.events)

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


def turns_of(session: Session) -> list[_Turn]:
    """The session cut at each prompt; a background task's notification that arrives while
    the work is still going (the turn's last event is a tool call, nothing said after it)
    is part of that work, so the words that end it are the turn's wrap-up."""
    turns: list[_Turn] = [_Turn(None)]
    for event in session.events:
        busy = bool(turns[-1].events) and turns[-1].events[-1].kind == "tool"
        if event.kind == "prompt" or (event.kind == "notification" and not busy):
            turns.append(_Turn(event))
        else:
            turns[-1].events.append(event)
    return [t for t in turns if t.opener is not None or t.events]


def _task(turns: list[_Turn]) -> tuple[str, list[str]]:
    prompts = [t.opener.text for t in turns if t.opener and t.opener.kind == "prompt"]
    real = [p for p in prompts if not triage.is_trivial_prompt(p)]
    return (real[0] if real else ""), real[1:]


def _summary(extractor: Extractor, turns: list[_Turn], files: list[str]) -> Finding | None:
    task, later = _task(turns)
    if not task:
        return None
    closing = next((t.closing() for t in reversed(turns)
                    if t.closing() is not None and (t.worked or t is turns[-1])), None)
    lines = [f"Task: {shorten(task, 240)}"]
    if later:
        lines.append("Later requests: " + "; ".join(shorten(p, 120) for p in later[:3]))
    if files:
        more = f" (+{len(files) - 12} more)" if len(files) > 12 else ""
        lines.append("Files changed: " + ", ".join(files[:12]) + more)
    if closing is not None:
        lines.append(f"Outcome: {shorten(closing.text, 500)}")
    return Finding(
        "task_summary", "\n".join(lines), "summary", at=closing.at if closing else None,
        files=files[:50], problem=shorten(task, 1000),
        solution=shorten(closing.text, 1500) if closing else None, importance=0.3,
    )


def extract(session: Session, cwd: str | None = None) -> Extraction:
    """Everything worth keeping from one session (see the module docstring)."""
    extractor = Extractor(session, cwd)
    turns = turns_of(session)
    extractor.commands()
    extractor.reverts()
    extractor.reported_bugs(turns)
    extractor.not_working(turns)
    extractor.corrections(turns)
    extractor.abandoned()
    extractor.unavailable()
    extractor.told_failures(turns)
    extractor.requested_design(turns)
    extractor.review_findings(turns)
    extractor.verdicts(turns)
    extractor.numbered_answers(turns)
    extractor.picked_options(turns)
    extractor.chosen(turns)
    extractor.decisions(turns)
    extractor.commits()
    extractor.answers()
    extractor.summarised_fixes()
    extractor.plans()
    extractor.found_out(turns)
    extractor.rules()
    extractor.rejections()
    files = extractor.files_between(-1, len(session.events))
    for sub in session.subagents:
        files += [f for f in _delegated(sub, extractor) if f not in files]
    worked_command = any(
        c.name == "Bash" and c.command and is_recipe(c.command, extractor.cwd)
        and run_outcome(c) is True and not _on_scratch(c.command, extractor.cwd)
        for c in session.tools
    )
    # Scratch files (a throwaway program in /tmp) are no project's work, nor their reasons.
    work = [f for f in files if not SCRATCH_RE.match(f)]
    knowledge = any(f.type in ("constraint", "preference", "project_fact") or (
        f.type == "decision" and not (f.files and all(SCRATCH_RE.match(x) for x in f.files))
    ) for f in extractor.findings)
    # "quick one, no changes: what does rotate.pl do?": an explanation asked for; its
    # checks and its prose are the answer of the day, not what the project keeps
    asked_only = not work and bool(lexicon.NO_CHANGES_RE.search(extractor.opening)) and not any(
        f.type in ("constraint", "preference") for f in extractor.findings)
    empty = not (work or worked_command or knowledge) or _rehearsal(turns) or asked_only
    removed = _removed_notes(session.tools)
    if empty:
        return Extraction([], None, [], None, True, removed_notes=removed)
    extractor.todos(turns)
    findings = _unique(extractor.findings)
    started = next((e.at for e in session.events if e.at), None)
    settled = [c for c in session.tools if c.name == "Bash" and c.input.get("run_in_background")
               and run_outcome(c) is True]
    return Extraction(findings, _summary(extractor, turns, files), files, started, False,
                      settled, removed)


def _removed_notes(calls: list[ToolCall]) -> list[str]:
    """The file names of Claude's memory notes an `rm` that ran well deleted."""
    removed: list[str] = []
    for call in calls:
        if call.name != "Bash" or not call.command or call.failed is not False:
            continue
        for segment in shell.segments(call.command):
            if segment[:1] == ["rm"]:
                removed += [os.path.basename(w) for w in segment[1:]
                            if not w.startswith("-") and triage.is_memory_file(w)]
    return list(dict.fromkeys(removed))


_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")


def about_change(texts: list[str], call: ToolCall) -> list[str]:
    """The sentences of an explanation that speak of what this change writes (its
    identifiers: "DbContext" for an edit adding AddDbContextFactory), when some do; all of
    it otherwise. A reply that answers two problems explains each change in its own part."""
    written = " ".join(str(call.input.get(key) or "") for key in ("new_string", "content"))
    names = {w.lower() for w in _WORD_RE.findall(written)}
    said = [s for text in texts for s in lexicon.sentences(text)]
    if not names or len(said) < 2:
        return texts
    kept = [s for s in said if any(
        name in names or any(name in n for n in names) for name in (
            w.lower() for w in _WORD_RE.findall(s)))]
    return [" ".join(kept)] if kept else texts


def _takes_back(earlier: tuple[str, str, int], old: str, new: str) -> bool:
    """Whether an edit (old → new) undoes an earlier one: it puts back what that one
    replaced, taking out what it wrote (whole, or with the lines around it)."""
    before, after, _ = earlier
    before, after, old, new = (" ".join(t.split()) for t in (before, after, old, new))
    if old == new:
        return False
    if new == before and (old == after or (len(after) >= 8 and after in old)):
        return True
    # a part of it put back: what it wrote in that place goes, what was there returns
    return len(old) >= 8 and old in after and old not in before and new in before


_QUOTED_RE = re.compile(r"'([^'\s]{2,60})'|`([^`\s]{2,60})`|\"([^\"\s]{2,60})\"")


def _written(call: ToolCall) -> str:
    return str(call.input.get("new_string") or call.input.get("content") or "")


def _named_by(errors: list[str], added: str, rewritten: str) -> bool:
    """Whether an error line quotes a name a change added that its rewrite took out
    ("Property '$use' does not exist"): the failure was that change's own."""
    names = {next(g for g in m.groups() if g) for e in errors for m in _QUOTED_RE.finditer(e)}
    return any(name in added and name not in rewritten for name in names)


def _drops(earlier: tuple[str, str, int], text: str) -> bool:
    """Whether `text` (what replaces an earlier edit's result) leaves out most of the lines
    that edit added: the approach itself taken out, not a line of it touched up."""
    before, after, _ = earlier
    kept = {line.strip() for line in before.splitlines()}
    added = [line.strip() for line in after.splitlines()
             if line.strip() and line.strip() not in kept]
    if len(added) < 2 or sum(map(len, added)) < 60:
        return False
    now = {line.strip() for line in text.splitlines()}
    return sum(line in now for line in added) < len(added) / 2


def _on_scratch(command: str, cwd: str | None) -> bool:
    """A run of a throwaway file (`zig run /tmp/t.zig`): no recipe of the project's."""
    files = [t for t in targets(command, cwd) if "/" in t]
    return bool(files) and all(SCRATCH_RE.match(f) for f in files)


def _rehearsal(turns: list[_Turn]) -> bool:
    """Whether the user opened the session as a trial run of the agent itself ("I want to
    have some test conversation with you"): whatever it edits is a prop, nothing to keep."""
    opener = next((t.opener.text for t in turns if t.opener and t.opener.kind == "prompt"
                   and not triage.is_trivial_prompt(t.opener.text)), "")
    return bool(lexicon.REHEARSAL_RE.search(opener[:300]))


def _named_in(names: list[str], told: list[str]) -> bool:
    """Whether one of the texts already told names this error: two of its names (or its
    only one)."""
    need = min(2, len(names))
    return bool(names) and any(sum(n.lower() in text for n in names) >= need for text in told)


def _delegated(sub: Session, parent: Extractor) -> list[str]:
    """What a subagent's own work shows (fixes, failed routes, reverted edits, reasons
    given before its edits) joins the parent's findings; its prompts were the main agent's
    words, so no rule is read from them. Returns the files it changed."""
    extractor = Extractor(sub, parent.cwd)
    extractor.commands()
    extractor.reverts()
    extractor.decisions(turns_of(sub), wrap_ups=False)  # its report is the parent's input
    parent.findings.extend(extractor.findings)
    return extractor.files_between(-1, len(sub.events))


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: set[str] = set()
    out = []
    for finding in findings:
        key = normalized(finding.content)
        if key in seen:
            continue
        seen.add(key)
        out.append(finding)
    return out
