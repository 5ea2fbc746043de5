"""Failed attempts read from the edits themselves: a change a later edit, a rewrite of the
file, a `git checkout`/`restore`/`stash`/`reset --hard` or an `rm` took back.

An edit undone with a failure (or the assistant giving it up) in between is an approach
tried and dropped, told with what it tried and why it went; one undone with nothing
failing is tidying. The edits found undone are marked on the extractor, so later rules
know they decided nothing.
"""

from __future__ import annotations

import re

from . import lexicon
from .changes import change_gist
from .commands import run_outcome, words_of
from .extractor import BOOKKEEPING_TOOLS, EDIT_TOOLS, Extractor, relative_path
from .failures import error_line, is_diagnostic
from .finding import MAX_APPROACH_CHARS, Finding
from .reading import first_sentences, gist_of, insight_passage, shorten
from .transcript import ToolCall


def reverts(x: Extractor) -> None:
    edits: dict[str, list[tuple[str, str, int]]] = {}
    written: dict[str, list[int]] = {}  # every change of a file, by file
    for event in x.events:
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
                    revert(x, path, undone[2], call.position)
                    earlier.remove(undone)
                    break
                replaced = next((e for e in reversed(earlier) if " ".join(e[1].split())
                                 in " ".join(old.split()) and _drops(e, new)), None)
                if replaced is not None:
                    revert(x, path, replaced[2], call.position, replaced=True)
                    earlier.remove(replaced)
                earlier.append((old, new, call.position))
        elif call.name == "Write" and path and isinstance(call.input.get("content"), str):
            # the file written anew without what an earlier edit put in: that try replaced
            earlier = edits.get(path, [])
            replaced = next((e for e in reversed(earlier)
                             if _drops(e, call.input["content"])), None)
            if replaced is not None:
                revert(x, path, replaced[2], call.position, replaced=True)
                edits[path] = []
        elif call.name == "Bash" and call.command:
            words = words_of(call.command)
            if words[:1] == ["rm"]:  # a file made and then deleted (a PoC, a probe)
                gone = [w for w in words[1:] if not w.startswith("-")]
                for file_path in list(written):
                    relative = relative_path(file_path, x.cwd)
                    if any(relative == n or file_path.endswith("/" + n) for n in gone):
                        x.undone.update(written.pop(file_path))
            if words[:2] in (["git", "checkout"], ["git", "restore"], ["git", "stash"]) or (
                words[:3] == ["git", "reset", "--hard"]
            ):
                named = [w for w in words[2:] if not w.startswith("-") and w != "--"]
                for file_path, history in list(edits.items()):
                    relative = relative_path(file_path, x.cwd)
                    if history and (words[1] in ("stash", "reset") or any(
                        relative == n or file_path.endswith("/" + n) or n == "." for n in named
                    )):
                        revert(x, file_path, history[0][2], call.position)
                        edits[file_path] = []


def revert(x: Extractor, path: str, first: int, undo: int, *, replaced: bool = False) -> None:
    tried_texts, _ = x.text_before(first)
    if not tried_texts:  # one plan, then several edits: the plan is before the first
        start = first
        while start > 0 and x.events[start - 1].tool is not None and (
            x.events[start - 1].tool.name in EDIT_TOOLS | BOOKKEEPING_TOOLS | {"Read"}
        ):
            start -= 1
        tried_texts, _ = x.text_before(start)
    trying = [s for t in tried_texts for s in lexicon.sentences(t)
              if lexicon.TRYING_RE.search(s)]
    tried = shorten(trying[-1], 300) if trying else (  # "I'll try the cheap thing: …"
        insight_passage(tried_texts, 220)[0] or gist_of(tried_texts, MAX_APPROACH_CHARS))
    why_texts, at = x.text_before(undo)
    errors = [
        error_line(e.tool.output) for e in x.events[first:undo]
        if e.tool and e.tool.name == "Bash" and run_outcome(e.tool) is False
    ]
    between = [e.text for e in x.events[first:undo + 1] if e.kind in ("text", "prompt")]
    gave_up = any(lexicon.ABANDON_RE.search(t) or lexicon.DID_NOT_WORK_RE.search(t)
                  for t in between)
    if not errors and not gave_up:
        return  # an edit undone with nothing failing in between is tidying, not an attempt
    if any(lexicon.PROBE_UNDONE_RE.search(t) for t in why_texts):
        return  # "now let me revert the test change": a probe taken out, as planned
    tried_call, undo_call = x.events[first].tool, x.events[undo].tool
    if replaced and not (tried_call and undo_call and _named_by(
        errors, _written(tried_call), _written(undo_call))
    ):  # rewritten after some failure: a try given up only if the error named what it
        return  # added and the rewrite took that out ("Property '$use' does not exist")
    told = insight_passage(why_texts, 240)[0] or gist_of(why_texts)
    # the person asking for it to go, with their reason ("keepAlive hatten wir schon mal: …
    # das muss raus")
    asked = ""
    for event in x.events[first:undo + 1]:
        parts = lexicon.sentences(event.prose) if event.kind == "prompt" else []
        at_verdict = next((n for n, s in enumerate(parts) if lexicon.DID_NOT_WORK_RE.search(s)),
                          None)
        if at_verdict is not None:
            asked = shorten(" ".join(parts[max(0, at_verdict - 2):at_verdict + 1]), 300)
            break
    why = told or asked or next((e for e in errors if e), "")
    said = [e.text for e in x.events[first:undo] if e.kind == "text"]
    verdict = next((t for t in reversed(said) if lexicon.ABANDON_RE.search(t)
                    or lexicon.DID_NOT_WORK_RE.search(t)), "")
    quiet = not (tried or told or verdict) and is_diagnostic(why)  # a lint nit taken back
    shown = first_sentences(verdict, 240) if verdict else ""
    if shown and shown not in why:  # what the attempt showed
        why = f"{why}; {shown}" if why else shown
    file = relative_path(path, x.cwd)
    approach = tried or f"a change to {file}"
    call = x.events[first].tool
    gist = change_gist(call) if call is not None else ""
    x.revert_windows.append((first, undo))
    x.undone.add(first)
    x.undoing.add(undo)
    if quiet:  # the edit-build loop (as fixes.py reads it): taken back, nothing learnt
        return
    undone = "replaced" if replaced else "reverted"
    content = f"Tried: {approach} ({gist}) — {undone}" if gist and gist not in approach else (
        f"Tried: {approach} — {undone}")
    if why:
        content += f": {why}"
    x.attempt(first, approach, Finding("failed_attempt", content, "revert", at=at,
                                       files=[file], problem=why or None,
                                       importance=0.55, anchor=first))


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
