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
- todos and open questions left at the end: the last todo list's open items, issues filed
  in a tracker and not closed, a run the person stopped last, and what the final wrap-up
  names as remaining.
- a finding (`project_fact`): what the assistant found out about the world outside the
  code (a service, a machine, on-chain data, the web) in answer to the person, by looking
  rather than changing anything, and the person did not then dispute.
- what commits must pass (`project_fact`): the checks of a hook that refused a commit.

A session with no edits, no command that worked, no rule, no decision and no finding
yields nothing. Every finding names its files, its session and the time of its event.

Where each rule lives, called in a fixed order by `extract`: fixes.py (commands that failed
and then passed, failed routes), reverts.py (edits taken back), attempts.py (failed
attempts told in words), bugs.py (reported bugs, reviews), choices.py (the person's
choices), decisions.py (reasons before edits and in wrap-ups, commits, plans), facts.py
(findings), gates.py (what a commit must pass), rules.py (rules, rejected tool calls),
open_work.py (todos, open questions, filed issues).
extractor.py holds the state and reading helpers they share, finding.py what they produce.
"""

from __future__ import annotations

import os

from ..hooks import triage
from . import (
    attempts,
    bugs,
    choices,
    decisions,
    facts,
    fixes,
    gates,
    lexicon,
    open_work,
    reverts,
    rules,
    shell,
)
from .commands import SCRATCH_RE, is_recipe, run_outcome
from .decisions import MAX_DECISIONS, RANKED_ORIGINS
from .extractor import EDIT_TOOLS, Extractor, Turn, relative_path, turns_of
from .finding import Extraction, Finding
from .fixes import on_scratch
from .reading import normalized, rule_type, shorten
from .transcript import Session, ToolCall

# The names other modules and the tests import from here.
__all__ = [
    "EDIT_TOOLS",
    "MAX_DECISIONS",
    "RANKED_ORIGINS",
    "Extraction",
    "Extractor",
    "Finding",
    "extract",
    "relative_path",
    "rule_type",
    "turns_of",
]


def _task(turns: list[Turn]) -> tuple[str, list[str]]:
    prompts = [t.opener.text for t in turns if t.opener and t.opener.kind == "prompt"]
    real = [p for p in prompts if not triage.is_trivial_prompt(p)]
    return (real[0] if real else ""), real[1:]


def _summary(extractor: Extractor, turns: list[Turn], files: list[str]) -> Finding | None:
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
    # The last work interrupted before its wrap-up: an earlier one ("Implementation
    # Complete!", then "the app hangs") is no outcome.
    stopped = next((t for t in reversed(turns) if t.worked), None)
    outcome = shorten(closing.text, 1500) if closing is not None else None
    if stopped is not None and stopped.interrupted and stopped.opener is not None and (
        closing is None or closing.position < stopped.span()[0]
    ):
        outcome = ("not finished: interrupted while working on: "
                   + shorten(stopped.opener.text, 200))
    if outcome is not None:
        lines.append(f"Outcome: {shorten(outcome, 500)}")
    return Finding(
        "task_summary", "\n".join(lines), "summary", at=closing.at if closing else None,
        files=files[:50], problem=shorten(task, 1000), solution=outcome, importance=0.3,
    )


def extract(session: Session, cwd: str | None = None) -> Extraction:
    """Everything worth keeping from one session (see the module docstring)."""
    extractor = Extractor(session, cwd)
    turns = turns_of(session)
    fixes.commands(extractor)
    reverts.reverts(extractor)
    bugs.reported_bugs(extractor, turns)
    attempts.not_working(extractor, turns)
    choices.corrections(extractor, turns)
    attempts.abandoned(extractor)
    fixes.unavailable(extractor)
    fixes.ignored_paths(extractor)
    attempts.told_failures(extractor, turns)
    choices.requested_design(extractor, turns)
    choices.weighed(extractor, turns)
    bugs.review_findings(extractor, turns)
    bugs.listed_fixes(extractor, turns)
    choices.verdicts(extractor, turns)
    choices.numbered_answers(extractor, turns)
    choices.picked_options(extractor, turns)
    choices.chosen(extractor, turns)
    choices.named_options(extractor, turns)
    decisions.decisions(extractor, turns)
    decisions.commits(extractor)
    gates.commit_gate(extractor)
    choices.answers(extractor)
    bugs.summarised_fixes(extractor)
    decisions.plans(extractor)
    facts.found_out(extractor, turns)
    rules.rules(extractor)
    rules.rejections(extractor)
    files = extractor.files_between(-1, len(session.events))
    for sub in session.subagents:
        files += [f for f in _delegated(sub, extractor) if f not in files]
    worked_command = any(
        c.name == "Bash" and c.command and is_recipe(c.command, extractor.cwd)
        and run_outcome(c) is True and not on_scratch(c.command, extractor.cwd)
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
    open_work.todos(extractor, turns)
    findings = _unique(extractor.findings)
    started = next((e.at for e in session.events if e.at), None)
    settled = [c for c in session.tools if c.name == "Bash" and c.input.get("run_in_background")
               and run_outcome(c) is True]
    # a subagent's own transcript (SubagentStop's, or one read on its own): PostToolUse may
    # never have seen its runs
    runs = [c for c in session.tools if c.name == "Bash" and not c.input.get(
        "run_in_background") and run_outcome(c) is True] if session.delegated else []
    return Extraction(findings, _summary(extractor, turns, files), files, started, False,
                      settled=settled, removed_notes=removed, delegated_runs=runs)


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


def _rehearsal(turns: list[Turn]) -> bool:
    """Whether the user opened the session as a trial run of the agent itself ("I want to
    have some test conversation with you"): whatever it edits is a prop, nothing to keep."""
    opener = next((t.opener.text for t in turns if t.opener and t.opener.kind == "prompt"
                   and not triage.is_trivial_prompt(t.opener.text)), "")
    return bool(lexicon.REHEARSAL_RE.search(opener[:300]))


def _delegated(sub: Session, parent: Extractor) -> list[str]:
    """What a subagent's own work shows (fixes, failed routes, reverted edits, reasons
    given before its edits) joins the parent's findings; its prompts were the main agent's
    words, so no rule is read from them. Returns the files it changed."""
    extractor = Extractor(sub, parent.cwd)
    fixes.commands(extractor)
    reverts.reverts(extractor)
    # its report is the parent's input
    decisions.decisions(extractor, turns_of(sub), wrap_ups=False)
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
