"""Decisions the assistant reasoned, and those recorded: the reasons given right before an
edit (or in a proposal the next turn carried out), the reasoned choices of wrap-ups, the
body of each commit, and the problem/solution pairs of an approved plan.

The reasons before edits and in wrap-ups are ranked against each other and only the best
MAX_DECISIONS kept; a change later undone, a throwaway script and the agent's own notes
decide nothing, and the reasoning of a fix belongs to its bug note.
"""

from __future__ import annotations

import re

from . import lexicon
from .changes import change_gist
from .commands import SCRATCH_RE
from .commits import commit_of
from .extractor import EDIT_TOOLS, Extractor, Turn, is_prompt, relative_path
from .finding import MAX_FIX_CHARS, Finding
from .reading import (
    MAX_REASON_CHARS,
    design_items,
    done_part,
    first_sentences,
    heading_before,
    insight_passage,
    insight_score,
    list_items,
    normalized,
    open_heading,
    plan_decisions,
    reasoning,
    shorten,
    text_weight,
    unemphasised,
    unmarked,
)
from .transcript import ToolCall

MAX_DECISIONS = 8
MAX_REQUEST_CHARS = 80  # a request short enough to name a wrap-up's subject
# A reply to what came before ("yes, please try iterating", "pushed - check CI"): no subject.
_REPLY_RE = re.compile(
    r"^\W*(yes|yeah|yep|ok(ay)?|sure|great|nice|cool|perfect|thanks?|pushed|done|good|"
    r"alright|go ahead|да|ага|ок|хорошо|ja|jep|oui|d'accord|sí|vale|sim|好|はい)\b",
    re.IGNORECASE)
# A request in words, not a pasted path or address, nor a question: "add a Pause/Resume
# feature".
_REQUEST_RE = re.compile(r"^(?![\w.-]*[/~:\\])[^\W\d_]+\S*(\s+\S+){2,}$(?<![?？])")
_STATUS_MARK_RE = re.compile(r"[✅❌🟡🟢🔴📋🔍🚀🎉]|⚠️")
# Four capitalised words in a row, one of them long: a heading shouted ("THE ACTUAL
# IMPLEMENTATION WHY"), not a run of acronyms ("AWS SDK API").
_CAPITAL_RUN_RE = re.compile(r"(?:\b[A-Z]{3,}\b[:,]?\s+){3,}\b[A-Z]{3,}\b")
# A choice stated with a single reason is kept when it says enough to be one.
MIN_CHOICE_WEIGHT = 60
# Where the decisions ranked against each other come from: the best MAX_DECISIONS of the
# whole session are kept, so a turn's choice may later give way to a better one.
RANKED_ORIGINS = frozenset({"pre-edit", "wrap-up"})
# The agent's own notes outside the project (plan mode's plan file, its todo lists): writing
# one decides nothing about the code.
_AGENT_NOTES_RE = re.compile(r"[/\\]\.claude[/\\](plans|todos)[/\\]")


def decisions(x: Extractor, turns: list[Turn], *, wrap_ups: bool = True) -> None:
    """The reasons given right before edits (or in a proposal the user then approved
    with a turn that edits), and the reasoned choices of wrap-ups."""
    candidates: list[tuple[int, Finding]] = []
    seen: set[int] = set()
    passages: list[tuple[list[str], str | None, int, int]] = []  # texts, at, first, edit
    for event in x.events:
        call = event.tool
        if call is None or call.name not in EDIT_TOOLS or call.failed is not False or (
            _AGENT_NOTES_RE.search(call.file_path or "")
            or SCRATCH_RE.match(call.file_path or "")  # a throwaway script decides nothing
        ):
            continue
        texts, at = x.text_before(event.position, past_bookkeeping=True,
                                  past_reading=True)
        refused = refused_just_before(x, event.position)
        if refused is not None:  # "OK, the factory then": why a change was needed at
            earlier, at = x.text_before(refused, past_bookkeeping=True,  # all is
                                        past_reading=True)  # said before the refusal
            texts = about_change(earlier, call) + texts
        passages.append((texts, at, event.position - len(texts), event.position))
    for proposal, turn in zip(turns, turns[1:], strict=False):
        closing = proposal.closing()
        if closing is not None and not proposal.edited and turn.edited and turn.opener and (
            turn.opener.kind == "prompt"
        ) and not lexicon.CLARIFY_RE.search(closing.text):  # (what it asked, nothing proposed)
            edit = next((e.position for e in turn.events if e.tool and e.tool.name in
                         EDIT_TOOLS and e.tool.failed is False
                         and not SCRATCH_RE.match(e.tool.file_path or "")), None)
            if edit is not None:
                passages.append(([closing.text], closing.at, closing.position, edit))
    carried: tuple[list[str], str | None, int] | None = None
    for texts, at, first, edit_at in passages:
        if not texts and carried is not None:
            # the words before an edit that undid one lead the edits right after it too
            # ("Removing the lock and doing the check and the insert in one statement")
            texts, at, first = carried
        carried = None
        if not texts or first in seen:
            continue
        if edit_at in x.undone or edit_at in x.undoing:
            # a change that was undone decided nothing; undoing it, neither
            carried = (texts, at, first) if edit_at in x.undoing else None
            continue
        seen.add(first)
        # "my mistake: the handler lacks its attribute", "the subagent found a real bug:
        # …", "Found the bug: …": the change fixes a bug — unless the turn's bug is told
        # already, whose cause a diagnosis then is
        diagnosed = next((t for t in texts if lexicon.DIAGNOSIS_RE.search(
            (lexicon.sentences(t) or [""])[0])), None)
        found = next((t for t in texts if lexicon.BUG_FOUND_RE.search(t)), None) or diagnosed
        owned = next((t for t in texts if lexicon.SELF_ERROR_RE.search(t)), None) or found
        told = any(f.type == "bug_note" and f.origin in ("reported", "fix", "announced")
                   and x.turn_of(f.anchor) == x.turn_of(edit_at) for f in x.findings)
        if owned is not None and not (owned is found and told):
            x.add(Finding("bug_note", first_sentences(owned, MAX_FIX_CHARS), "own-error",
                          at=at, importance=0.6, anchor=first))
            continue
        if diagnosed is not None and told:
            continue
        texts = [kept for t in texts if (kept := _choices_told(t))]
        passage, score = insight_passage(texts)
        if score < 2 or len(passage) < 40:
            passage, score = reasoning(texts)
            if score < 1:
                passage = _reasoned_choice(texts)
                score = 1 if passage else 0
            if score < 1:
                continue
        in_fix = any(s < edit_at < e for s, e in x.fix_windows)
        if in_fix and not lexicon.ALTERNATIVE_RE.search(passage):
            continue  # the reasoning of a fix belongs to its bug note
        opening = (lexicon.sentences(passage) or [""])[0]
        if lexicon.TRYING_RE.search(opening) or _TRIAL_RE.match(opening):
            continue  # "Let me try without the --print flag": an experiment, not a choice
        options = list(_OPTION_RE.finditer(passage))
        if len(options) >= 3 and text_weight(passage[:options[0].start()]) < 60:
            continue  # "Format: A) TOML … B) JSON … C) a Swift DSL": options offered, none
            # chosen, no reason given (what leads to them may hold one: "the most
            # cross-platform way is a package.json with a dev server. Options: …")
        if len(_STATUS_MARK_RE.findall(passage)) >= 2 or any(
                re.search(r"[A-Z]{6,}", run.group()) for run in _CAPITAL_RUN_RE.finditer(passage)):
            continue  # "✅ Pre-commit checks complete ✅ 6 files staged", "THE SOLUTION:
            # THRESHOLD BOOTSTRAP": a status report or a pitch, not the reason for a change
        call = x.events[edit_at].tool
        file = relative_path(call.file_path, x.cwd) if call and call.file_path else None
        gist = change_gist(call) if call is not None else ""
        if gist:  # what was changed, which the words before it may not name
            passage = f"{passage} (change: {gist})"
        candidates.append((score, Finding("decision", passage, "pre-edit", at=at,
                                          files=[file] if file else [], importance=0.6,
                                          anchor=first)))
    if not wrap_ups:
        _keep_best(x, candidates)
        return
    # Reasoned choices the final wrap-up states: the design the session ended on. (The
    # reasoned sentences of every earlier wrap-up were kept too, once: on sessions nobody
    # tuned the rules on they found no item the rest missed, and stored noise.)
    edited = any(e.tool is not None and e.tool.name in EDIT_TOOLS and e.tool.failed is False
                 for e in x.events)
    last, final = next(((t, closing) for t in reversed(turns)
                        if t.worked and (closing := t.closing()) is not None), (None, None))
    if last is not None and final is not None and edited and final.position not in seen:
        settled = done_part(final.text)
        # a short request names what the choices are about ("add a Pause/Resume feature");
        # a problem reported is the bug note's, which tells the same wrap-up; a reply
        # names nothing
        asked = last.opener.prose.strip() if is_prompt(last.opener) else ""
        about = asked if _REQUEST_RE.match(asked) and text_weight(
            asked) <= MAX_REQUEST_CHARS and not (
            lexicon.PROBLEM_RE.search(asked) or _REPLY_RE.match(asked)) else ""
        plain = unemphasised(settled)  # where each kept line's heading is looked up
        for sentence in lexicon.sentences(settled):
            # neither an offer to do more ("…, or would you prefer …?"), nor what only
            # introduces the lines below it ("Instead of hunting for files, use:"), nor a
            # table's row
            label = _LABEL_RE.match(sentence)
            if len(sentence) < 50 or lexicon.CAUSE_LABEL_RE.match(sentence) or (
                _FIXED_ITEM_RE.match(unmarked(sentence))  # a fix told: its bug note's
            ) or (
                lexicon.FIX_LABEL_RE.match(sentence)
            ) or (label and open_heading(label.group(1))) or (  # "Not done: …"
                sentence.endswith(("?", "？", ":", "："))) or sentence.startswith("|") or (
                lexicon.DIAGNOSIS_RE.search(sentence[:40])  # "The problem is that …": a
            ) or lexicon.OFFER_RE.search(sentence):  # cause; "if you'd rather …": an offer
                continue
            said = unmarked(sentence)
            heading = heading_before(plain, said)
            if _reported(heading, label) or _BUG_ITEM_RE.match(said):
                continue  # (a bug told as an item is the item's bug note)
            score = insight_score(sentence) - len(lexicon.MECHANICS_RE.findall(sentence))
            if score >= 2 and lexicon.ALTERNATIVE_RE.search(sentence) or score >= 3:
                candidates.append((score, Finding(
                    "decision", shorten(_about(about, _with_heading(said, heading)),
                                        MAX_REASON_CHARS),
                    "wrap-up", at=final.at, files=[], importance=0.6,
                    anchor=final.position)))
        for item in list_items(settled):  # "Second bug: …": one more bug found, told
            if _BUG_ITEM_RE.match(item):
                x.add(Finding("bug_note", shorten(item, MAX_FIX_CHARS), "wrap-up",
                              at=final.at, importance=0.55, anchor=final.position))
        bugs = [normalized(f.content) for f in x.findings if f.type == "bug_note"]
        for item in design_items(settled):
            cause = lexicon.CAUSE_LABEL_RE.match(item)
            fixed = _FIXED_ITEM_RE.match(item)
            fix = lexicon.FIX_LABEL_RE.match(item)  # "Solução: …", told by a bug note
            told = normalized(cause.group("text") if cause else item[fixed.end():] if fixed
                              else item[fix.end():] if fix else "").strip(" :*")[:60]
            if told and any(told in bug for bug in bugs) or cause:
                continue  # "Fix: …": what a bug note of the session tells; "Cause: …" is
                # never a design choice
            if _BUG_ITEM_RE.match(item):
                continue  # (a bug note already, above)
            if fixed:  # "Fixed `.gitignore` (it had …)": a fix told
                x.add(Finding("bug_note", shorten(item, MAX_FIX_CHARS), "wrap-up",
                              at=final.at, importance=0.55, anchor=final.position))
                continue
            said = unmarked(item)
            heading = heading_before(plain, said)
            if _reported(heading, _LABEL_RE.match(said)):
                continue
            candidates.append((1, Finding(
                "decision", shorten(_about(about, _with_heading(said, heading)),
                                    MAX_REASON_CHARS),
                "wrap-up", at=final.at, files=[], importance=0.55, anchor=final.position)))
    _keep_best(x, candidates)


# What a report's section tells, not what the work chose: "Key Benefits:", "Highlights:",
# "Most notable findings:", "Status:", "Contrasts drawn:", "Key Features Tested:", "Still
# failing:".
_REPORT_HEADING_RE = re.compile(
    r"^\W*((key |main )?benefits?\b|highlights?$|(most )?notable findings$|(key )?findings$|"
    r"report$|(\w+ )*status$|contrasts?( drawn)?$|(key )?features tested$|"
    r"still (failing|broken)\b)",
    re.IGNORECASE)


# A line's own label: "Status: …", "Key Benefits: …".
_LABEL_RE = re.compile(r"^\W*([^:：]{2,40})[:：]")


def _reported(heading: str, label: re.Match[str] | None) -> bool:
    """Whether a wrap-up's sentence or item sits under (`heading`), or is labelled as, a
    report's section (_REPORT_HEADING_RE)."""
    return any(_REPORT_HEADING_RE.match(text.strip()) for text in (
        heading, label.group(1) if label else "") if text)


# An option offered by its letter or number: "A) TOML", "(b) JSON", "Option 2:".
_OPTION_RE = re.compile(r"(?:^|\s|\()(?:[A-D]\)|\([a-d]\)|[Oo]ption [1-4A-D][:.)])\s")


def _with_heading(said: str, heading: str) -> str:
    """A wrap-up's sentence or item said whole (`said`: without its Markdown marks), with
    the heading it sits under (reading.heading_before) when that names what it is about
    ("GitHub Action: Trigger: now runs on all pushes")."""
    return f"{heading}: {said}" if heading and heading.lower() not in said.lower() else said


def _about(request: str, said: str) -> str:
    """A wrap-up's choice with the short request it answered, when the choice does not
    already say it ("add a Pause/Resume feature — Single toggle button: replaced …")."""
    if not request or normalized(request) in normalized(said):
        return said
    return f"{request.rstrip('.!')} — {said}"


def _reasoned_choice(texts: list[str]) -> str:
    """The last sentence before an edit that does one thing for one stated reason ("In the
    ISR I'll only set a flag, since the parser isn't reentrant", "Je partitionne `events`
    par mois, car les purges RGPD suppriment des mois entiers"), when nothing in it tells a
    step of the work instead: a problem, a look into something, an experiment, a repair."""
    said = [s for t in texts for s in lexicon.sentences(t)]
    for at in range(len(said) - 1, -1, -1):
        sentence = said[at]
        if not (lexicon.CAUSE_RE.search(sentence) or lexicon.PURPOSE_RE.search(sentence)
                or lexicon.LIMITATION_RE.search(sentence)):
            continue
        if text_weight(sentence) < MIN_CHOICE_WEIGHT or sentence.endswith(("?", "？")) or (
            not lexicon.AGENCY_RE.search(sentence)) or (
            lexicon.NARRATION_RE.match(sentence) or lexicon.MECHANICS_RE.search(sentence)
            or lexicon.STEP_RE.search(sentence) or lexicon.PROBLEM_RE.search(sentence)
            or lexicon.TRYING_RE.search(sentence)
        ):
            return ""
        if at and lexicon.BACK_REFERENCE_RE.search(sentence):
            sentence = f"{said[at - 1]} {sentence}"
        return shorten(sentence, MAX_REASON_CHARS)
    return ""


def _choices_told(text: str) -> str:
    """The text without its sentences that describe the code as it is or relay what a tool
    says of it: "`parse_date` returns None instead of raising" explains, it chooses nothing;
    nor does a question, or a table's row."""
    return " ".join(s for s in lexicon.sentences(text) if not (
        _as_it_is(s) or s.startswith("|") or s.endswith(("?", "？"))))


def _as_it_is(sentence: str) -> bool:
    """Whether the sentence describes rather than chooses: it says how things are before
    the alternative it names ("The project uses yarn rather than npm", "already uses axios
    rather than fetch"), or says it is the way things have been. An alternative first keeps
    it ("simpler than three files — they already diverged"), and so does a description
    naming none: "the migration uses ADD without a default, which fails on SQLite" is the
    why of the rewrite that follows."""
    if lexicon.SETTLED_RE.search(sentence):
        return True
    chosen = lexicon.ALTERNATIVE_RE.search(sentence)
    described = lexicon.AS_IT_IS_RE.search(sentence)
    already = lexicon.ALREADY_RE.search(sentence)
    return bool(described and chosen and described.start() < chosen.start()) or bool(
        already and chosen and already.start() < chosen.start())


def refused_just_before(x: Extractor, position: int) -> int | None:
    """The position of an edit the user refused right before this one (only words in
    between), or None."""
    for event in reversed(x.events[:position]):
        if event.kind == "text":
            continue
        call = event.tool
        if call is not None and call.name in EDIT_TOOLS and call.rejected:
            return event.position
        return None
    return None


def _keep_best(x: Extractor, candidates: list[tuple[int, Finding]]) -> None:
    best = sorted(candidates, key=lambda c: -c[0])[:MAX_DECISIONS]
    for _, finding in sorted(best, key=lambda c: c[1].anchor):
        x.add(finding)


def commits(x: Extractor) -> None:
    """Each confirmed commit with a body, naming the files it added (or, for `git add
    -A`, the files edited since the previous commit)."""
    since = -1
    for event in x.events:
        call = event.tool
        commit = commit_of(call) if call is not None else None
        if commit is None:
            continue
        files = [relative_path(f, x.cwd) for f in commit.files] or x.files_between(
            since, event.position)
        since = event.position
        x.add(Finding("bug_note" if commit.is_fix else "decision", commit.text,
                      "commit", at=event.at, files=files[:30], importance=0.6,
                      anchor=event.position))
        for fixed in commit.fixes:  # a fix made along the way is a bug note of its own
            x.add(Finding("bug_note", shorten(fixed, MAX_FIX_CHARS), "commit", at=event.at,
                          files=files[:30], importance=0.55, anchor=event.position))


def plans(x: Extractor) -> None:
    """An approved plan (plan mode's ExitPlanMode) is the design the user agreed to:
    its "Problem: … Solution: …" pairs are decisions with their why."""
    seen: set[str] = set()
    for call in x.session.tools:
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
            x.add(Finding("decision", shorten(content, MAX_REASON_CHARS), "plan",
                          at=call.at, importance=0.6, anchor=call.position))


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


# A change made to see what happens: "Let me check if the server uses wss instead".
_TRIAL_RE = re.compile(r"^\W*(let me|let's|i'll) (check|see|test) (if|whether)\b", re.IGNORECASE)
# A wrap-up's item that tells a fix: "Fixed `.gitignore` (…)", "Behoben: …", "修复了 …".
_FIXED_ITEM_RE = re.compile(r"^\W*(fixed|fixes|fix|behoben|corrigé|arreglado|corregido|"
                            r"corrigido|исправлен\w*|修复|修正)\b", re.IGNORECASE)
# A wrap-up's item labelled as one more bug found ("**Second bug:** …", "Segundo bug: …"):
# a bug note, not a design choice.
_BUG_ITEM_RE = re.compile(
    r"^\W*((second|another|other|2nd|third) (bug|problem|issue)|(segundo|otro|outro) (bug|"
    r"problema)|(zweite[rs]?|weitere[rs]?) (bug|fehler|problem)|(deuxième|autre) (bug|"
    r"problème)|втор(ой|ая) (баг|проблема|ошибка)|ещё (один )?(баг|проблема)|(第二个|另一个)"
    r"(bug|问题)|二つ目の(バグ|問題))\W*[:：]", re.IGNORECASE)
