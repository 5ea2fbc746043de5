"""Failed attempts told in words: the user saying the last change did not work, the
assistant giving an approach up right after a failure, the wrap-up naming what was tried
and did not help, and what the assistant says made no difference while it works.

Each is kept once per approach a turn tried (`Extractor.attempt`), and not again when a
failed attempt already names the same things.
"""

from __future__ import annotations

import re

from . import lexicon
from .changes import change_gist
from .commands import run_outcome
from .extractor import EDIT_TOOLS, NAME_RE, Extractor, Turn, named_in
from .finding import MAX_FIX_CHARS, Finding
from .reading import (
    BULLET_RE,
    LABELLED_LINE_RE,
    gist_of,
    is_heading,
    list_items,
    normalized,
    open_items,
    shorten,
    text_weight,
)


def not_working(x: Extractor, turns: list[Turn]) -> None:
    for previous, turn in zip(turns, turns[1:], strict=False):
        prompt = turn.opener
        if prompt is None or prompt.kind != "prompt" or not previous.worked or not (
            previous.edited  # "IT's not working" after a restart: the app, not a try
        ):
            continue
        last = next((e.tool for e in reversed(previous.events) if e.tool is not None), None)
        if last is not None and (last.rejected or last.interrupted):
            continue  # what the person says of the call they stopped ("don't start metro")
        said = [s for s in lexicon.sentences(prompt.prose) if lexicon.DID_NOT_WORK_RE.search(s)
                and not lexicon.NOT_YET_FAILED_RE.search(s)]
        asked = next((e.text for e in reversed(previous.events) if e.kind == "text"), "")
        if not said and lexicon.CORRECTION_RE.match(prompt.text) and turn.edited and not (
            lexicon.NOT_YET_FAILED_RE.search(prompt.text)
            # "non depuis la semaine dernière" answering "Tu avais lancé le test en local ?"
            or asked.rstrip(" *_").endswith(("?", "？"))
        ):
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
            x.undone.add(last_edit)
        approach = x.last_change_reason(previous) or previous.closing_gist() or gist_of(
            [e.text for e in previous.events if e.kind == "text" and not any(
                s.rstrip("*").endswith(("?", "？")) for s in lexicon.sentences(e.text))])
        if not approach:
            continue
        # The user's whole reply when it is short: the why sits beside the verdict.
        why = prompt.text if len(prompt.text) <= 400 else " ".join(said)
        if given_up and given_up[0] not in why:
            why = f"{shorten(why, 240)} {given_up[0]}"
        content = f"{approach} — did not work: {shorten(why, 400)}"
        x.attempt(previous.span()[1], approach, Finding(
            "failed_attempt", content, "not-working", at=prompt.at,
            files=previous.files(x), problem=shorten(why, 400), importance=0.55))


def abandoned(x: Extractor) -> None:
    recent_failure = -10
    found = 0
    for event in x.events:
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
            if text_weight(sentence) >= 40 and (lexicon.ABANDON_RE.search(sentence)
                                                 or lexicon.NO_EFFECT_RE.search(sentence)):
                if any(s <= event.position <= e for s, e in x.revert_windows):
                    break  # the revert tells it already
                # with what it gives up and why: the sentences that lead to it
                told = shorten(" ".join(said[max(0, number - 2):number + 1]), 400)
                # and what the change given up was, which the words may not name
                edit = next((e.tool for e in reversed(x.events[:event.position])
                             if e.tool is not None and e.tool.name in EDIT_TOOLS
                             and e.tool.failed is False), None)
                gist = change_gist(edit) if edit is not None else ""
                if gist and gist not in told:
                    told = f"{told} (change: {gist})"
                x.add(Finding("failed_attempt", told, "abandoned", at=event.at,
                              importance=0.5))
                found += 1
                break


def told_failures(x: Extractor, turns: list[Turn]) -> None:
    """What the wrap-up says was tried and did not help ("FixedUpdate at 64 Hz did not
    help: 14 px per step, still more than 8; removed"): the failed attempt in the
    assistant's own words — replacing a taken-back change nobody had explained, or
    added when no failed attempt names the same things."""
    final = next((t.closing() for t in reversed(turns)
                  if t.worked and t.closing() is not None), None)
    told_along_the_way(x, -1 if final is None else final.position)
    if final is None:
        return
    ends = dead_ends(final.text)
    said = ends + [s for s in list_items(final.text) or lexicon.sentences(final.text)
                   if not any(s in end or end in s for end in ends)]
    # what the wrap-up leaves open is work to do ("2 tests still fail"), not an attempt
    left = [item for _, text in open_items(final.text) if (item := normalized(text))]
    for sentence in said:
        if any(normalized(sentence) in item or item in normalized(sentence) for item in left):
            continue
        if sentence not in ends and (not (lexicon.DID_NOT_WORK_RE.search(sentence)
                                          or lexicon.DROPPED_RE.search(sentence))
                                     or lexicon.NOT_YET_FAILED_RE.search(sentence)) or (
            text_weight(sentence) < 30 or sentence.rstrip("*_ ").endswith(("?", "？"))
        ):  # "Is the button not working, or something else?" asks; it tells no attempt
            continue
        sentence = shorten(sentence, MAX_FIX_CHARS)
        attempts = [f for f in x.findings if f.type == "failed_attempt"]
        vague = next((f for f in attempts if f.content.startswith("Tried: a change to ")),
                     None)
        if vague is not None:
            vague.content = f"{sentence} ({vague.content})"
        elif not named_in(NAME_RE.findall(sentence), [f.content.lower() for f in attempts]):
            x.add(Finding("failed_attempt", sentence, "wrap-up", at=final.at,
                          importance=0.5, anchor=final.position))


def dead_ends(text: str) -> list[str]:
    """What a wrap-up lists under a heading for the roads left ("### Tried", "**Sackgassen**",
    "踩过的坑"), or after such a label on its line ("Descartado: `dockertest` — …")."""
    found: list[str] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        bullet = BULLET_RE.match(line)
        label = LABELLED_LINE_RE.match(line)
        if not bullet and label and lexicon.DEAD_END_HEADING_RE.search(label.group(1)):
            found.append(label.group(2).strip())
            inside = False
            continue
        if not bullet and is_heading(line):
            inside = bool(lexicon.DEAD_END_HEADING_RE.search(line.strip("#*_: ：")))
            continue
        if inside and bullet:
            found.append(bullet.group(1).strip().strip("*_ "))
        elif inside:
            inside = False
    return found


def told_along_the_way(x: Extractor, final: int) -> None:
    """What the assistant says made no difference while it works ("bumping the pool to
    50 made no difference, the lock is elsewhere"): tried, measured, dropped — with no
    failing command to show it, only its words."""
    told = 0
    for event in x.events:
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
            attempts = [f.content.lower() for f in x.findings
                        if f.type == "failed_attempt"]
            if any(normalized(sentence) in normalized(a) for a in attempts) or named_in(
                NAME_RE.findall(whole), attempts
            ):
                break
            x.add(Finding("failed_attempt", shorten(whole, 400), "told", at=event.at,
                          importance=0.5, anchor=event.position))
            told += 1
            break


# Claude Code's permission system refused the call: it never ran.
_NOT_ALLOWED_RE = re.compile(
    r"requires approval|haven't granted it yet|was blocked\. For security|"
    r"permission to use \w+ (was|has been) denied", re.IGNORECASE)
