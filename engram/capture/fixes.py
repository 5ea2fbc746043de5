"""Fixes and failed routes from the commands a session ran.

A watched command (a test, a build, a check) that fails and, after a change, passes is a
fix (`bug_note`): its error is the telling line of the failing output, its why the
assistant's words in between. The same error after a change means the change did not
help; an error a fix seemed to end that comes back means it was no fix; a failing command
that a variant of it (other options, another folder, another runner) made pass is a
failed route; a command the tool itself does not know is a road that does not exist here.
Tidying (a format check) and throwaway scripts are no fix.
"""

from __future__ import annotations

import re

from ..hooks import triage
from . import lexicon, shell
from .commands import (
    SCRATCH_RE,
    Streak,
    asks_for_info,
    display_command,
    family,
    is_housekeeping,
    is_read_only,
    is_watched,
    kept_running,
    names_new_failure,
    program_of,
    run_outcome,
    same_error,
    targets,
    vouched_before,
    words_of,
    wrong_folder,
)
from .extractor import EDIT_TOOLS, Extractor
from .failures import error_line, is_diagnostic
from .finding import MAX_FIX_CHARS, Finding
from .reading import first_sentences, gist_of, insight_passage, is_narration, text_weight
from .transcript import ToolCall

# A subagent's edits stay in its own transcript: its finished run is a change all the same.
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})


def commands(x: Extractor) -> None:
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
    for event in x.events:
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
                closed(x, streak, call)
            continue
        if not is_watched(command):
            if not is_read_only(command):
                other_route(x, tried, call, outcome)
                if outcome:
                    for streak in streaks.values():
                        streak.changed = True
            continue
        key = family(command)
        if outcome:
            # `go test -race ./... && go vet ./...` passing passed each of its parts: an
            # earlier part's failure, with changes made since, is fixed too
            for part in vouched_before(command):
                other_key = family(part)
                other = streaks.get(other_key)
                if other_key != key and other is not None and other.changed:
                    del streaks[other_key]
                    fixed.pop(other_key, None)
                    closed(x, other, call)
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
            if came_back(x, fixed.get(key, []), call, error) or streak is None:
                streaks[key] = Streak(call, error)
            elif streak.changed and same_error(error, streak.error) and not names_new_failure(
                streak.call.output, call.output
            ):
                if streak.retried is None:
                    streak.retried = call
                streak.changed = False
            elif streak.changed:
                fixed.setdefault(key, []).append(fix(x, streak.call, streak.error, call))
                streaks[key] = Streak(call, error)
            elif not same_error(error, streak.error):
                # Nothing changed, yet it fails otherwise (first from the wrong folder,
                # then for real): the problem the next change addresses is this one.
                streaks[key] = Streak(call, error, retried=streak.retried)
            continue
        if streak is None and outcome and another_way(x, streaks, call):
            continue
        for other_key, other in streaks.items():
            if other_key != key and not other.changed and not is_read_only(command):
                other.changed = True  # a formatter, a migration, an install
        if streak is None:
            continue
        del streaks[key]
        fixed.pop(key, None)
        if streak.changed:
            closed(x, streak, call)
        elif prepared(streak.call.command or "", command):
            fix(x, streak.call, streak.error, call)  # the step before it was the fix
        elif _variant(x, streak.call.command or "", command) and (
            triage.command_kind(command) or not is_read_only(command)
        ):
            route(x, streak.call, streak.error, call)


def another_way(x: Extractor, streaks: dict[str, Streak], call: ToolCall) -> bool:
    """A check that failed, then another command of the same kind passing with nothing
    changed between, chosen in words that name it ("plain `go test` can't start envtest
    here …, so `make test` is the way to run these"): how checks run here."""
    kind = triage.command_kind(call.command or "")
    for key, streak in list(streaks.items()):
        if streak.changed or kind is None or triage.command_kind(
            streak.call.command or ""
        ) != kind:
            continue
        said = " ".join(x.texts_between(streak.call.position, call.position))
        if family(call.command or "") not in said:
            continue
        del streaks[key]
        route(x, streak.call, streak.error, call)
        return True
    return False


def other_route(x: Extractor, tried: dict[str, tuple[ToolCall, str]], call: ToolCall,
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
    if _variant(x, failed[0].command or "", call.command or ""):
        route(x, failed[0], failed[1], call)


def unavailable(x: Extractor) -> None:
    """A command the tool itself refused ("ERR unknown command 'XAUTOCLAIM'", "unrecognized
    option") and never made to pass: a road that does not exist here — a failed attempt
    with what the assistant made of it ("XAUTOCLAIM came in 6.2, staging runs 6.0.5")."""
    for index, event in enumerate(x.events):
        call = event.tool
        if call is None or call.name != "Bash" or run_outcome(call) is not False:
            continue
        error = error_line(call.output)
        if not _UNAVAILABLE_RE.search(error) or any(
            f.problem == error for f in x.findings
        ):
            continue
        if any(e.tool is not None and e.tool.name == "Bash" and e.tool.command == call.command
               and run_outcome(e.tool) is True for e in x.events[index + 1:]):
            continue  # it ran in the end: a hiccup, not a missing road
        if asks_for_info(words_of(call.command or "")):
            continue  # `clickhouse-benchmark --help`: looking whether a tool is there
        after = [e.text for e in x.events[index + 1:index + 5] if e.kind == "text"][:1]
        why = first_sentences(after[0], 240) if after else ""
        command = display_command(call.command or "")
        way = _way_it_runs(x, index, call) if _NOT_ON_PATH_RE.search(error) else None
        if way is not None:  # `pytest: command not found`, then `(source .venv/… && pytest)`
            x.add(Finding("project_fact", f"`{command}` is not on the PATH here: it runs as "
                          f"`{display_command(way.command or '')}`", "unavailable",
                          at=way.at, problem=error, importance=0.55, anchor=event.position))
            continue
        content = f"`{command}` failed: {error}" + (f" — {why}" if why else "")
        x.add(Finding("failed_attempt", content, "unavailable", at=call.at,
                      problem=error, importance=0.5, anchor=event.position))


def ignored_paths(x: Extractor) -> None:
    """`git add` refusing a path a .gitignore covers ("The following paths are ignored by
    one of your .gitignore files: priv/static/assets"), then `git add -f` adding it: the
    path that must be forced in, and how — a failed attempt nobody need repeat."""
    for index, event in enumerate(x.events):
        call = event.tool
        if call is None or call.name != "Bash" or run_outcome(call) is not False or not (
            _GIT_ADD_RE.search(call.command or "")
        ):
            continue
        listed = _IGNORED_RE.search(call.output or "")
        if listed is None:
            continue
        paths = [p.strip() for p in listed.group(1).splitlines() if p.strip()][:5]
        forced, way = next(((e.tool, way) for e in x.events[index + 1:] if e.tool is not None
                            and e.tool.name == "Bash"
                            and (way := _FORCED_ADD_RE.search(e.tool.command or ""))
                            and run_outcome(e.tool) is not False), (None, None))
        if forced is None or way is None or not paths or any(
            f.type == "failed_attempt" and ".gitignore" in f"{f.content} {f.problem or ''}"
            for f in x.findings
        ):
            continue  # (the same add forced right after is told as a route already)
        shown = ", ".join(f"`{p}`" for p in paths)
        add = " ".join(way.group(0).split())
        x.add(Finding(
            "failed_attempt", f"`git add` refuses {shown}: a .gitignore pattern covers it — "
            f"`{add}` adds it", "ignored", at=forced.at,
            problem=f"ignored by .gitignore: {', '.join(paths)}", solution=add,
            importance=0.5, anchor=event.position))


def _way_it_runs(x: Extractor, index: int, missing: ToolCall) -> ToolCall | None:
    """The later command that ran the program a shell could not find, and passed."""
    program = program_of(missing.command or "")
    for event in x.events[index + 1:]:
        call = event.tool
        if call is not None and call.name == "Bash" and call.command != missing.command and (
            run_outcome(call) is True
        ) and any(words[0].rsplit("/", 1)[-1] == program
                  for words in shell.segments(call.command or "")):
            return call
    return None


_NOT_ON_PATH_RE = re.compile(r"\bcommand not found\b|\bnot found in PATH\b|"
                             r"\bis not recognized as an internal or external command\b",
                             re.IGNORECASE)


def did_not_help(x: Extractor, failing: ToolCall, again: ToolCall, error: str) -> None:
    """A change made after a failure that left the same error: the first thing tried."""
    texts = x.texts_between(failing.position, again.position)
    tried, _ = insight_passage(texts, 300)
    tried = tried or gist_of(texts, 300)
    if not tried:
        return
    x.add(Finding(
        "failed_attempt", f"Tried: {tried} — `{family(failing.command or '')}` still "
        f"failed with the same error: {error}", "did-not-help", at=again.at,
        files=x.files_between(failing.position, again.position), problem=error,
        importance=0.5, anchor=failing.position,
    ))


def _variant(x: Extractor, failed: str, passed: str) -> bool:
    """`npm install` → `npm install --legacy-peer-deps`: the same target, other options;
    `node assets/build.js` → `cd assets && node build.js`: the same target, elsewhere."""
    before = words_of(failed)
    after = words_of(passed)
    if not before:
        return False
    if before != after and targets(failed, x.cwd) == targets(passed, x.cwd):
        return True  # the same target, reached from another folder
    if before == after:
        return False
    wanted = [w for w in before if not w.startswith("-")]
    return after[: len(before)] == before or [w for w in after if not w.startswith("-")] == (
        wanted
    )


def closed(x: Extractor, streak: Streak, passing: ToolCall) -> None:
    """A streak that ended well after a change: the fix, and what was tried first."""
    fix(x, streak.call, streak.error, passing)
    if streak.retried is not None:
        did_not_help(x, streak.call, streak.retried, streak.error)


def came_back(x: Extractor, fixes: list[Finding], call: ToolCall, error: str) -> bool:
    """An error a change seemed to fix, back again: that change was not the fix. Its
    bug note becomes the failed attempt it was."""
    undone = next((f for f in fixes if same_error(error, f.problem or "")), None)
    if undone is None:
        return False
    fixes.remove(undone)
    x.findings.remove(undone)
    if undone.solution:
        x.add(Finding(
            "failed_attempt", f"Tried: {undone.solution} — `{family(call.command or '')}` "
            f"failed again with: {error}", "did-not-help", at=call.at,
            files=undone.files, problem=error, importance=0.5, anchor=undone.anchor,
        ))
    return True


def fix(x: Extractor, failing: ToolCall, error: str, passing: ToolCall) -> Finding:
    start, end = failing.position, passing.position
    x.fix_windows.append((start, end))
    texts = x.texts_between(start, end)
    why, _ = insight_passage(texts, MAX_FIX_CHARS)
    told = gist_of(texts, MAX_FIX_CHARS)
    if not why or (why[:40] in told and text_weight(told) <= MAX_FIX_CHARS):
        why = told  # all of a short diagnosis: what was wrong as well as why
    if why and all(is_narration(s) for s in lexicon.sentences(why)):
        why = ""  # "Let me clean up the test files:" announces a fix, it explains nothing
    files = x.files_between(start, end)
    if not why and passing.failed is False:  # fixed without a word on the way: the
        why = _told_after(x, end, files)  # wrap-up may say how
    command = display_command(failing.command or "")
    error = error or "it failed"
    if _DENIED_RE.search(error):  # no bug: what this account may not do here, and the way
        # that worked instead ("No access: `git push -u origin x` was refused (…403)")
        content = (f"No access: `{command}` was refused ({error}); "
                   f"`{display_command(passing.command or '')}` worked instead")
        finding = Finding("project_fact", f"{content}: {why}" if why else content, "access",
                          at=passing.at, problem=error, solution=why or None,
                          importance=0.55, anchor=start)
        x.add(finding)
        return finding
    content = f"`{command}` failed: {error}"
    if why:
        content += f" — fixed: {why}"
    steps = _steps_between(x, failing, passing)
    if files or steps:
        content += f" ({', '.join([*files[:5], *(f'ran `{s}`' for s in steps)])})"
    finding = Finding(
        "bug_note", content, "fix", at=passing.at, files=files, problem=error,
        solution=why or None, importance=0.6, anchor=start,
    )
    if not (on_scratch(failing.command or "", x.cwd)
            and all(SCRATCH_RE.match(f) for f in files)  # a throwaway script's bug
            or _UNFORMATTED_RE.search(error)  # tidying
            or not why and (_SAYS_NOTHING_RE.match(error)  # "BUILD FAILED", no why
                            or is_diagnostic(error))):  # the edit-build loop
        x.add(finding)
    return finding


# A wrap-up's account of a fix: "Fixed all 17 type errors in converter.py by: …"
_FIXED_BY_RE = re.compile(
    r"\b(fix(ed|es)?|resolved?|solved?|caus(ed|e)|because|by (adding|using|moving|making)|"
    r"the (problem|issue|bug) was)\b", re.IGNORECASE)


def _told_after(x: Extractor, passed_at: int, files: list[str]) -> str:
    """How a fix made in silence was done, as the wrap-up that follows the passing run
    tells it: its first paragraph (with the list under it) that names one of the files
    the fix changed and says it fixed something."""
    names = {f.rsplit("/", 1)[-1] for f in files}
    if not names:
        return ""
    for event in x.events[passed_at + 1:]:
        if event.kind == "prompt":
            return ""
        if event.kind != "text":
            continue
        for block in re.split(r"\n\s*\n", event.text):
            if any(n in block for n in names) and _FIXED_BY_RE.search(block):
                lines = [ln for raw in block.splitlines()
                         if (ln := re.sub(r"^[^\w`\"'(]+", "", raw).strip())]
                return first_sentences("; ".join(lines).replace(":;", ":"), MAX_FIX_CHARS)
    return ""


def _steps_between(x: Extractor, failing: ToolCall, passing: ToolCall) -> list[str]:
    """The commands that did something between a failure and its passing run (`just
    install`, `mkdir -p data`): with the edits, how it was fixed."""
    steps: list[str] = []
    for event in x.events[failing.position + 1:passing.position]:
        call = event.tool
        if call is None or call.name != "Bash" or not call.command or call.failed is not False:
            continue
        if is_read_only(call.command) or family(call.command) == family(failing.command or ""):
            continue
        shown = display_command(call.command)
        if shown not in steps and len(shown) <= 120:
            steps.append(shown)
    return steps[:3]


def route(x: Extractor, failing: ToolCall, error: str, passing: ToolCall) -> None:
    before = display_command(failing.command or "")
    after = display_command(passing.command or "")
    texts = x.texts_between(failing.position, passing.position)
    why, _ = insight_passage(texts)
    content = f"`{before}` failed ({error or 'error'}); `{after}` worked instead"
    if why:
        content += f": {why}"
    x.add(Finding("failed_attempt", content, "route", at=passing.at, problem=error,
                  solution=after, importance=0.55))


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


# A remote refusing this account: "Permission to org/repo.git denied to jess", "The
# requested URL returned error: 403", "Could not read from remote repository".
_DENIED_RE = re.compile(
    r"\bpermission to \S+ denied\b|\bdenied to \S+|\breturned error: 403\b|\b403 forbidden\b|"
    r"\bnot authori[sz]ed\b|\baccess denied\b|\bauthentication failed\b|"
    r"\bcould not read from remote repository\b|\bpermission denied \(publickey",
    re.IGNORECASE)
# `git add` of what a .gitignore covers, the paths it lists, and the add that forces it.
_GIT_ADD_RE = re.compile(r"\bgit add\b")
_IGNORED_RE = re.compile(r"ignored by one of your \.gitignore files:\s*\n(.+?)(?:\n\s*hint:|\Z)",
                         re.DOTALL)
_FORCED_ADD_RE = re.compile(r"\bgit add\b[^;&|\n]*?\s(-f|--force)\b[^;&|\n]*")
# A tool refusing what it was asked for, as not existing in this version or setup.
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


def on_scratch(command: str, cwd: str | None) -> bool:
    """A run of a throwaway file (`zig run /tmp/t.zig`): no recipe of the project's."""
    files = [t for t in targets(command, cwd) if "/" in t]
    return bool(files) and all(SCRATCH_RE.match(f) for f in files)
