"""Bugs reported, found and reviewed (`bug_note`).

A turn whose prompt reports a problem (in words, or a pasted error) and that changed code
is a bug: the symptom in the user's words with the cause the assistant found (labelled in
a wrap-up, announced before the change, or the words before the change that lasted); a fix
of the same turn gets the symptom instead of a second memory. Also: the findings of a
review asked for, and the "Errors and fixes" a compaction summary lists that no bug note
tells yet.
"""

from __future__ import annotations

import re

from . import lexicon
from .extractor import EDIT_TOOLS, NAME_RE, Extractor, Turn, is_prompt, named_in
from .failures import pasted_error
from .finding import MAX_FIX_CHARS, Finding
from .reading import (
    BRIEF_REPLY_CHARS,
    LIST_ITEM_RE,
    LIST_MARK,
    QUESTION_WORD_RE,
    first_sentences,
    gist_of,
    insight_passage,
    is_heading,
    list_items,
    normalized,
    open_heading,
    rule_type,
    shorten,
    summary_fixes,
    text_weight,
    unemphasised,
)
from .transcript import Event

MIN_DIAGNOSIS_CHARS = 60


def reported_bugs(x: Extractor, turns: list[Turn]) -> None:
    """A turn whose prompt reports a problem and that changed code: the symptom in the
    user's words with the cause the assistant found; an existing fix of the turn gets
    the symptom instead of a second memory."""
    turns = with_notifications(turns)
    for previous, turn in zip([Turn(None), *turns], turns, strict=False):
        prompt = turn.opener
        if prompt is None or prompt.kind != "prompt" or not (turn.edited or turn.reshaped):
            continue
        if not previous.edited and lexicon.CORRECTION_RE.match(prompt.text):
            continue  # a proposal turned down: nothing was built to be broken
        pasted = pasted_error(prompt.text)  # the log the user pasted says what broke
        said = lexicon.sentences(prompt.prose)
        at = next((n for n, s in enumerate(said) if lexicon.PROBLEM_RE.search(s)
                   and len(s) >= 15 and rule_type(s) is None and not _supposed(s)), None)
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
        # "You're right! Let me fix both issues" said to a proposal ("I think we should run
        # it on all push?"): what was asked for, not a problem found
        agreed = bool(lexicon.SUGGESTION_RE.search(prompt.prose)) and acknowledges(x, turn)
        acknowledged = not symptom and previous.worked and acknowledges(x, turn) and not agreed
        if acknowledged:
            symptom = " ".join(lexicon.sentences(prompt.prose)[:2])
        announced = "" if symptom or acknowledged or agreed else announcement(x, turn)
        told = previous.closing()
        if not symptom and not announced and not acknowledged and told is not None and (
            lexicon.DIAGNOSIS_RE.search(told.text[:300])
        ):  # "Aquí hay un problema: …" ends a turn; the next prompt says what to do
            asked = lexicon.sentences(prompt.prose)[0]
            x.add(Finding(
                "bug_note", f"{first_sentences(told.text, MAX_FIX_CHARS)} — {asked}",
                "announced", at=told.at, files=turn.files(x)[:10],
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
                x.add(Finding(
                    "bug_note", f"{seen} — {cause}", "announced", at=prompt.at,
                    files=turn.files(x)[:10], problem=seen, solution=cause,
                    importance=0.6, anchor=turn.span()[0]))
            continue
        if not symptom:
            labelled(x, turn)
            continue
        symptom = shorten(symptom, 240)
        if pasted and pasted not in symptom:
            symptom = f"{symptom} ({pasted})"
        first, last = turn.span()
        fixes = [f for f in x.findings if f.origin == "fix" and first <= f.anchor <= last
                 and (not pasted or _same_trouble(pasted, f.problem or ""))]
        closing = turn.closing()
        told_in = closing
        told = _labelled_cause(closing)
        for later in turns[turns.index(turn) + 1:]:
            if told or later.opener is None or lexicon.PROBLEM_RE.search(later.opener.text):
                break  # the cause told once the same bug was fixed, turns later
            told_in = later.closing()
            told = _labelled_cause(told_in)
        if fixes and not acknowledged:
            fix = fixes[0]
            if len(told) >= MIN_DIAGNOSIS_CHARS:
                # the wrap-up's own account of the cause and the fix beats the words read
                # between the failing run and the passing one (they may weigh a way not
                # taken)
                done = _labelled_fix(told_in)
                account = f"{told} — {done}" if done else told
                fix.solution = done or fix.solution
                fix.content = f"{symptom} — {shorten(account, MAX_FIX_CHARS)}"
            else:
                fix.content = f"{symptom} — {fix.content}"
            fix.problem = f"{symptom} ({fix.problem})"
            # The turn's bug, however fully told: one memory whether a Stop saw it
            # before the passing run reached the transcript or after.
            fix.origin, fix.anchor = "reported", first
            continue
        cause = told
        if told and (done := _labelled_fix(told_in)):
            cause = f"{told} — {done}"  # the wrap-up's cause, and its fix
        if acknowledged:
            cause = diagnosis(x, turn)
            if lexicon.DID_NOT_WORK_RE.search(prompt.text) or lexicon.ABANDON_RE.search(cause):
                continue  # the last change did not work: a failed attempt, not a bug
        if not cause:
            texts = [e.text for e in turn.events if e.kind == "text"]
            cause, score = insight_passage(texts, MAX_FIX_CHARS)
            # what was found before the first change, when it names more of what the
            # person reported ("… which is the TOO_MANY_PARTS in your log")
            found = diagnosis(x, turn)
            if found and _shared_names(prompt.text, found) > _shared_names(prompt.text, cause):
                cause, score = found, 2
            if score < 2:  # unexplained, and the first try taken back: what the fix
                cause = (lasting_change(x, turns, turns.index(turn))  # rests on
                         or found)
            if not cause:
                continue
        files = turn.files(x)
        x.add(Finding(
            "bug_note", f"{symptom} — {shorten(cause, MAX_FIX_CHARS)}", "reported",
            at=closing.at if closing else prompt.at, files=files[:10], problem=symptom,
            solution=shorten(cause, MAX_FIX_CHARS), importance=0.6, anchor=first,
        ))


# A name a failure and its report can share: an identifier (TOO_MANY_PARTS, NewObject,
# clickhouse_connect, DB::Exception), not a generic error class or a version.
_TROUBLE_NAME_RE = re.compile(r"\b[A-Za-z]\w*(?:_\w+|[a-z][A-Z]\w*|::\w+)")
_ERROR_CLASS_RE = re.compile(r"(Error|Exception|Failure|Warning)$")


def _names(text: str) -> set[str]:
    return {n.lower() for n in _TROUBLE_NAME_RE.findall(text) if not _ERROR_CLASS_RE.search(n)}


def _shared_names(told: str, said: str) -> int:
    return len(_names(told) & _names(said))


def _same_trouble(told: str, error: str) -> bool:
    """Whether a failure met while fixing is the one the person reported (they share a name
    such as TOO_MANY_PARTS), not a test the fix itself broke on the way."""
    return _shared_names(told, error) > 0


# "if", "in case", "whenever" before the problem word: a case to handle, not one seen.
_SUPPOSING_RE = re.compile(
    r"\b(if|in case|whenever|unless|wenn|falls|sobald|si|au cas où|en caso de|caso|если|"
    r"в случае)\b", re.IGNORECASE)


def _supposed(sentence: str) -> bool:
    """Whether the sentence's problem is supposed rather than seen: "we add some behaviour
    if it starts up and it had crashed" asks for a feature, it reports no crash."""
    found = lexicon.PROBLEM_RE.search(sentence)
    if found is None:
        return False
    before = re.split(r"[,;:.!?]", sentence[:found.start()])[-1]
    return bool(_SUPPOSING_RE.search(before[-60:]))


# A wrap-up's label for what it changed, beside the fix labels of lexicon.FIX_LABEL_RE.
_CHANGED_LABEL_RE = re.compile(r"^\W*(what i changed|changes?|the fix)\W*[:：]", re.IGNORECASE)


def _labelled_fix(closing: Event | None) -> str:
    """What a wrap-up labels as the fix ("**Fix:** …", "修正: …", "What I changed: …")."""
    if closing is None:
        return ""
    return next((line.strip("*_ -")[m.end():].strip("*_ ") for line in closing.text.splitlines()
                 if (m := lexicon.FIX_LABEL_RE.match(line.strip("*_ -"))
                     or _CHANGED_LABEL_RE.match(line.strip("*_ -")))), "")


def labelled(x: Extractor, turn: Turn) -> None:
    """A turn asked for as work ("is there a way to rewind the timeline?") whose wrap-up
    labels what was wrong ("**The problem:** the timeline uses `Date.now()`, so …"): the
    assistant found a bug on the way, told with the change that answers it — unless a
    bug note of the turn tells it already (not one for a test that failed on the way and
    was mended: that is another bug)."""
    closing = turn.closing()
    cause = _labelled_cause(closing)
    first, last = turn.span()
    told = normalized(cause)[:60]
    if is_prompt(turn.opener) and text_weight(turn.opener.prose) < BRIEF_REPLY_CHARS and any(
        f.type == "bug_note" and f.origin == "reported" and f.anchor < first
        for f in x.findings
    ):
        return  # "да, делай так": the go-ahead for the fix of a bug reported before
    if closing is None or len(cause) < MIN_DIAGNOSIS_CHARS or any(
        f.type == "bug_note" and (first <= f.anchor <= last and f.origin != "fix"
                                  or told in normalized(f.content)) for f in x.findings
    ):
        return
    fix = _labelled_fix(closing) or next((item for item in list_items(closing.text)
                                          if not lexicon.CAUSE_LABEL_RE.match(item)
                                          and not lexicon.DEAD_END_HEADING_RE.search(item)),
                                         "")
    content = f"{cause} — {fix}" if fix else cause
    x.add(Finding("bug_note", shorten(content, MAX_FIX_CHARS), "labelled", at=closing.at,
                  files=turn.files(x)[:10], problem=shorten(cause, 240),
                  solution=shorten(fix, MAX_FIX_CHARS) if fix else None, importance=0.6,
                  anchor=first))


def lasting_change(x: Extractor, turns: list[Turn], index: int) -> str:
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
            if event.position in x.undone or event.position in x.undoing:
                undone_seen = True
                continue
            if not undone_seen:
                return ""
            texts, _ = x.text_before(event.position, past_bookkeeping=True,
                                     past_reading=True)
            found = gist_of(texts, MAX_FIX_CHARS)
            return found if len(found) >= MIN_DIAGNOSIS_CHARS else ""
    return ""


def announcement(x: Extractor, turn: Turn) -> str:
    """The assistant's words, before its first change of the turn, announcing what it
    found wrong ("Two problems in ra_ajax_book: …"); empty when it announced none."""
    for event in turn.events:
        if event.tool is not None and event.tool.name in EDIT_TOOLS:
            return ""
        if event.kind == "text" and lexicon.DIAGNOSIS_RE.search(event.text[:300]):
            return event.text
    return ""


def with_notifications(turns: list[Turn]) -> list[Turn]:
    """Each prompt's turn with the turns a background task's notification opened after it:
    the work asked for goes on there ("reproducing it in the background" — the task fails —
    the change), so what the prompt reported was answered by all of them."""
    merged: list[Turn] = []
    for turn in turns:
        if merged and turn.opener is not None and turn.opener.kind == "notification" and (
            is_prompt(merged[-1].opener)
        ):
            merged[-1] = Turn(merged[-1].opener,
                              [*merged[-1].events, turn.opener, *turn.events])
        else:
            merged.append(turn)
    return merged


def acknowledges(x: Extractor, turn: Turn) -> bool:
    first = next((e for e in turn.events if e.kind == "text"), None)
    return first is not None and bool(lexicon.ACKNOWLEDGE_RE.match(first.text))


def diagnosis(x: Extractor, turn: Turn) -> str:
    """What the assistant found before it changed anything in a turn that answers a
    reported problem: the cause, however it is worded."""
    edit = next((e.position for e in turn.events if e.tool and e.tool.name in EDIT_TOOLS
                 and e.tool.failed is False), None)
    texts = [e.text for e in turn.events if e.kind == "text" and (
        edit is None or e.position < edit)]
    found = gist_of(texts, MAX_FIX_CHARS)
    return found if len(found) >= MIN_DIAGNOSIS_CHARS else ""


def _labelled_cause(closing: Event | None) -> str:
    """What a wrap-up labels as the cause ("**Why it broke:** …", "Ursache: …")."""
    if closing is None:
        return ""
    return " ".join(m.group("text").strip("*_ ") for line in closing.text.splitlines()
                    if (m := lexicon.CAUSE_LABEL_RE.match(line.strip("*_ -"))))


def review_findings(x: Extractor, turns: list[Turn]) -> None:
    """A review of someone's change asked for ("review #88"): the findings the last
    listing reply gives are the bugs a colleague keeps — not its open questions, its
    offers, or what it says was left undone. A finding laid out as a heading over
    labelled fields ("Gap #1: Admins can bypass" / "- Setting: enforce_admins = false" /
    "- Impact: …") is one finding, not one per field."""
    if not lexicon.REVIEW_RE.search(x.opening):
        return
    final = next((t.closing() for t in reversed(turns) if t.closing() is not None
                  and list_items(t.closing().text)), None)
    if final is None:
        return
    found: list[str] = []
    skipping = False
    head, fields = "", []  # the heading over labelled fields, and those fields

    def close_block() -> None:
        if fields and head:
            found.append(f"{head} — {'; '.join(fields)}")
        fields.clear()

    for raw in final.text.splitlines():
        line = raw.strip()
        item = LIST_ITEM_RE.match(line)
        if not item:
            label = re.match(r"^\W*([^:：]{2,60}?)\W*[:：]", line)
            if line and (is_heading(line) or label):
                close_block()
                heading = label.group(1) if label else line
                skipping = open_heading(heading) or bool(QUESTION_WORD_RE.search(heading))
                head = unemphasised(line).strip(" *#:：")
            continue
        text = unemphasised(item.group(1)).strip()
        if skipping or text.endswith(("?", "？")) or lexicon.OFFER_RE.search(text):
            continue
        if _FIELD_RE.match(text) and head and not is_heading(head):
            fields.append(text)
            continue
        close_block()
        if text_weight(text) >= 40:
            found.append(text)
    close_block()
    for n, text in enumerate(found[:6]):
        x.add(Finding("bug_note", shorten(text, MAX_FIX_CHARS), "review", at=final.at,
                      importance=0.55, anchor=final.position * 64 + n))


# A list item that is one labelled field of the finding above it ("Impact: …",
# "Severity: HIGH", "File: src/x.py"): a short label, then its value.
_FIELD_RE = re.compile(r"^[\w][\w ./-]{0,24}[:：]\s+\S")


def listed_fixes(x: Extractor, turns: list[Turn]) -> None:
    """A wrap-up listing what broke with how each was fixed ("The refactoring broke some
    functionality because:\n1. **Sidechain messages** weren't getting the proper CSS
    class - Fixed by adding a check for the `isSidechain` field …"): a bug note per
    item, unless one already names it."""
    known = [f.content.lower() for f in x.findings if f.type in ("bug_note", "failed_attempt")]
    for turn in turns:
        closing = turn.closing()
        if closing is None or not turn.edited:
            continue
        for intro, items in _lists_of(closing.text):
            if not _CAUSES_INTRO_RE.search(intro):
                continue
            for item in items:
                fixed = _ITEM_FIX_RE.search(item)
                names = NAME_RE.findall(item)
                if fixed is None or text_weight(item) < 40 or named_in(names, known):
                    continue
                known.append(item.lower())
                x.add(Finding("bug_note", shorten(item, MAX_FIX_CHARS), "listed",
                              at=closing.at, files=turn.files(x)[:10],
                              problem=shorten(item[:fixed.start()].strip(" -—–:"), 240),
                              solution=shorten(item[fixed.start():], MAX_FIX_CHARS),
                              importance=0.55, anchor=closing.position))


def _lists_of(text: str) -> list[tuple[str, list[str]]]:
    """(the line that introduces it, its items) for each list in a text."""
    found: list[tuple[str, list[str]]] = []
    intro, items = "", []
    for line in text.splitlines():
        item = re.match(r"^\s*" + LIST_MARK + r"\s+(.+)$", line)
        if item:
            items.append(unemphasised(item.group(1)).strip())
        elif line.strip():
            if items:
                found.append((intro, items))
            intro, items = line.strip(), []
    if items:
        found.append((intro, items))
    return found


# A list's introduction that tells what was wrong: "broke some functionality because:",
# "The failures came from:", "Root causes:", "Drei Ursachen:".
_CAUSES_INTRO_RE = re.compile(
    r"(\bbecause|\bbroke\b|\bcaused?\b|\bcame from\b|\b(issues|problems|bugs|failures) "
    r"(were|was)\b|\bwhat was wrong\b|\broot causes?\b|\bursache|\bweil\b|\bparce que\b|"
    r"\bporque\b|\bпотому что\b|\bпричин|原因|因为)[^\n]{0,80}[:：]\s*$", re.IGNORECASE)
# How an item says it was fixed: "- Fixed by adding …", "→ fixed with …".
_ITEM_FIX_RE = re.compile(
    r"(\s[-—–→]+\s*|[:;,.]\s+)(fixed|resolved|solved|behoben|corrigé|corregido|corrigido|"
    r"исправлено|修复)\b", re.IGNORECASE)


def summarised_fixes(x: Extractor) -> None:
    """The "Errors and fixes" a compaction summary lists, for the fixes the events did
    not show (fixed in an edit, checked by another command): each unless a bug note
    already names the same error — which the summary may complete with how it ended."""
    known = [f for f in x.findings if f.type in ("bug_note", "failed_attempt")]
    for event in x.events:
        if event.kind != "compaction" or not event.text:
            continue
        for error, fix in summary_fixes(event.text):
            names = NAME_RE.findall(f"{error} {fix}")
            same = next((f for f in known if named_in(names, [f.content.lower()])), None)
            if same is not None:
                _complete(same, fix)
                continue
            content = shorten(f"{error}: {fix}", MAX_FIX_CHARS)
            finding = Finding("bug_note", content, "summary", at=event.at, problem=error,
                              solution=fix, importance=0.55, anchor=event.position)
            known.append(finding)
            x.add(finding)


def _complete(finding: Finding, summarised: str) -> None:
    """A fix note whose change the summary names and the note does not ("Fixed by
    updating to /v1/updates in .env" for a note that stopped at the old path): the note
    gets how it ended, under its first text's identity: the memory is told again, not
    doubled."""
    fixed = _FIXED_IN_SUMMARY_RE.search(summarised)
    ending = summarised[fixed.start():] if fixed else summarised
    told = finding.content.lower()
    if finding.origin != "fix" or not any(n.lower() not in told for n in NAME_RE.findall(ending)):
        return
    ending = shorten(ending, MAX_FIX_CHARS // 3)
    finding.complete(f"{shorten(finding.content, MAX_FIX_CHARS - len(ending) - 3)} — {ending}",
                     f"{finding.solution} — {ending}" if finding.solution else ending)


_FIXED_IN_SUMMARY_RE = re.compile(r"\b(fixed|resolved|solved)\b", re.IGNORECASE)
