"""Capture probes: single messages, many phrasings, many languages, labelled blind.

The capture corpus (`benchmarks/capture.py`) scores whole sessions, where a rule or a
todo is one item among dozens. These probes isolate the readings that depend most on
wording: a developer's message that states a lasting rule (or looks like one and does
not), an agent's final wrap-up that leaves work or a question open (or leaves nothing),
and what the agent says just before an edit (a reasoned choice, or narration). Each probe
is set in the smallest session that gives it its place: the message as the person's
request, followed by an edit and a reply; the wrap-up as the last reply of a session that
edited a file and ran its tests; the words before an edit between a request and the edit.
The probes were written by people who read none of the extractor
(`capture_probes/README.md`).

    python -m benchmarks.capture_probes [--details]
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import click

PROBES = Path(__file__).parent / "capture_probes"
CWD = "/home/dev/app"
RULE_TYPES = ("constraint", "preference")
OPEN_TYPES = ("todo", "open_question")


class _Session:
    """A Claude Code transcript, entry by entry (the shape `tests/test_capture.py` writes)."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.ids = itertools.count(1)
        self.parent: str | None = None

    def _entry(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        uuid = f"00000000-0000-4000-8000-{next(self.ids):012d}"
        minute = len(self.entries)
        self.entries.append({
            "parentUuid": self.parent, "isSidechain": False, "userType": "external",
            "cwd": CWD, "sessionId": "probe", "version": "2.1.39", "type": kind, "uuid": uuid,
            "timestamp": f"2026-03-18T10:{minute:02d}:00.000Z", "message": message, **extra})
        self.parent = uuid

    def prompt(self, text: str) -> _Session:
        self._entry("user", {"role": "user", "content": text})
        return self

    def say(self, text: str) -> _Session:
        self._entry("assistant", {"role": "assistant", "type": "message",
                                  "content": [{"type": "text", "text": text}]})
        return self

    def tool(self, name: str, tool_input: dict[str, Any], result: Any, content: str,
             *, error: bool = False) -> _Session:
        tool_id = f"toolu_{next(self.ids):08d}"
        self._entry("assistant", {"role": "assistant", "type": "message", "content": [
            {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]})
        self._entry("user", {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": content,
             **({"is_error": True} if error else {})}]}, toolUseResult=result)
        return self

    def edit(self, path: str) -> _Session:
        full = f"{CWD}/{path}"
        return self.tool("Edit", {"file_path": full, "old_string": "a", "new_string": "b"},
                         {"filePath": full, "oldString": "a", "newString": "b"},
                         f"The file {full} has been updated successfully.")

    def tests_pass(self) -> _Session:
        return self.tool("Bash", {"command": "npm test"},
                         {"stdout": "Tests: 14 passed, 14 total", "stderr": "",
                          "interrupted": False}, "Tests: 14 passed, 14 total")

    def tests_fail(self) -> _Session:
        text = "Exit code 1\nTests: 3 failed, 11 passed, 14 total"
        return self.tool("Bash", {"command": "npm test"}, f"Error: {text}", text, error=True)

    def findings(self) -> list[Any]:
        from engram.capture import transcript
        from engram.capture.extract import extract

        return extract(transcript.parse_entries(self.entries), CWD).findings


def _text(finding: Any) -> str:
    return " ".join(filter(None, [finding.content, finding.problem, finding.solution])).lower()


def _holds(groups: list[list[str]], finding: Any) -> bool:
    text = _text(finding)
    return all(any(alt.lower() in text for alt in group) for group in groups)


def _load(name: str, folder: Path = PROBES) -> list[dict[str, Any]]:
    path = folder / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def score_rules(probes: list[dict[str, Any]], details: bool) -> dict[str, dict[str, int]]:
    """Per language and place (the session's first request, or a later one): rules found
    (of any rule type / of the labelled type), and false alarms."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for probe, place in itertools.product(probes, ("first", "later")):
        session = _Session()
        if place == "later":  # after a first request and its work
            (session.prompt("Add a loading spinner to the orders page.").say("Adding it.")
             .edit("src/orders.tsx").say("The spinner shows while orders load."))
        (session.prompt(probe["text"]).say("On it.").edit("src/app.ts")
         .say("Done: src/app.ts is updated."))
        rules = [f for f in session.findings() if f.type in RULE_TYPES]
        row = table[f"{probe['lang']}, {place}"]
        if probe["label"] == "none":
            row["none"] += 1
            row["false alarm"] += bool(rules)
            verdict = "FALSE" if rules else "ok"
        else:
            row["rules"] += 1
            hit = [f for f in rules if _holds(probe.get("match") or [], f)]
            row["found"] += bool(hit)
            row["typed"] += any(f.type == probe["label"] for f in hit)
            verdict = "ok" if hit else "MISSED"
        if details and verdict != "ok":
            shown = "; ".join(f"{f.type}: {f.content[:90]}" for f in rules) or "-"
            print(f"{verdict:6} {probe['id']:8} {place:5} {probe['label']:10} "
                  f"{probe['text'][:110]!r}"
                  f"\n         stored: {shown}")
    return table


def score_wrapups(probes: list[dict[str, Any]], details: bool) -> dict[str, dict[str, int]]:
    """Per language: open items found, and open-work memories no label accounts for."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for probe in probes:
        session = (_Session().prompt("Please finish the feature and run the tests.")
                   .edit("src/app.ts").tests_pass().say(probe["text"]))
        stored = [f for f in session.findings() if f.type in OPEN_TYPES]
        row = table[probe["lang"]]
        labelled = ([("todo", item) for item in probe.get("todos") or []]
                    + [("open_question", item) for item in probe.get("open_questions") or []])
        row["wrap-ups"] += 1
        row["items"] += len(labelled)
        used: set[int] = set()
        for kind, item in labelled:
            hit = [i for i, f in enumerate(stored) if _holds(item.get("match") or [], f)]
            used.update(hit)
            row["found"] += bool(hit)
            if details and not hit:
                print(f"MISSED {probe['id']:8} {kind:13} {item.get('note', '')[:100]}")
        extra = [f for i, f in enumerate(stored) if i not in used]
        row["stored"] += len(stored)
        row["unlabelled"] += len(extra)
        if details:
            for f in extra:
                print(f"EXTRA  {probe['id']:8} {f.type:13} {f.content[:100]}")
    return table


def score_pre_edit(probes: list[dict[str, Any]], details: bool) -> dict[str, dict[str, int]]:
    """Per language: decisions found in what the agent says just before an edit, and
    decisions stored from narration."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for probe in probes:
        session = (_Session().prompt("Please implement the change we discussed.")
                   .say(probe["text"]).edit("src/feature.ts").tests_pass()
                   .say("Done: the change is in and the tests pass."))
        stored = [f for f in session.findings() if f.type == "decision"]
        _tally(table[probe["lang"]], "decisions", probe, stored, details)
    return table


def score_attempts(probes: list[dict[str, Any]], details: bool) -> dict[str, dict[str, int]]:
    """Per language: failed attempts found where they are told (right after a failed test
    run, in the final wrap-up, in the person's reply to a change), and failed attempts
    stored from texts that tell none."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for probe in probes:
        session = _Session().prompt("Please fix the checkout total on the cart page.")
        if probe["place"] == "after_failure":
            session.edit("src/cart.ts").tests_fail().say(probe["text"]).edit("src/cart.ts")
            session.tests_pass()
        elif probe["place"] == "wrap_up":
            session.edit("src/cart.ts").tests_pass().say(probe["text"])
        else:
            session.say("I'll compute the total in one place in `src/cart.ts`, so the cart "
                        "and the invoice can't disagree.")
            session.edit("src/cart.ts").say("Done: the total is computed in one place now.")
            session.prompt(probe["text"])
            session.edit("src/cart.ts").tests_pass().say("Updated.")
        stored = [f for f in session.findings() if f.type == "failed_attempt"]
        _tally(table[probe["lang"]], "attempts", probe, stored, details)
    return table


def _tally(row: dict[str, int], told: str, probe: dict[str, Any], stored: list[Any],
           details: bool) -> None:
    """Count one probe that tells an item (`told` names the kind) or tells none."""
    if probe["label"] == "none":
        row["none"] += 1
        row["false alarm"] += bool(stored)
        verdict = "FALSE" if stored else "ok"
    else:
        row[told] += 1
        hit = any(_holds(probe.get("match") or [], f) for f in stored)
        row["found"] += hit
        row["stored"] += bool(stored)
        verdict = "ok" if hit else "MISSED"
    if details and verdict != "ok":
        shown = "; ".join(f.content[:90] for f in stored) or "-"
        print(f"{verdict:6} {probe['id']:8} {probe.get('place', ''):13} "
              f"{probe['text'][:110]!r}\n         stored: {shown}")


def _print(title: str, table: dict[str, dict[str, int]], columns: list[tuple[str, str]]) -> None:
    print(f"\n### {title}\n")
    print("| language | " + " | ".join(label for label, _ in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    total: dict[str, int] = defaultdict(int)
    for lang in sorted(table):
        for key, value in table[lang].items():
            total[key] += value
    for lang, row in [*sorted(table.items()), ("**all**", total)]:
        print(f"| {lang} | " + " | ".join(_cell(row, spec) for _, spec in columns) + " |")


def _cell(row: dict[str, int], spec: str) -> str:
    top, _, bottom = spec.partition("/")
    if not bottom:
        return str(row.get(top, 0))
    return f"{row.get(top, 0)}/{row.get(bottom, 0)}"


@click.command()
@click.option("--set", "which", type=click.Choice(["first", "second", "third"]),
              default="first", show_default=True,
              help="first and third: sets rules were read on; second: sets by other writers, "
                   "kept unread (score them without --details). README.md in each says which.")
@click.option("--details", is_flag=True, help="List every miss and false alarm.")
def main(which: str, details: bool) -> None:
    """Score the capture probes (rules in messages, open work in wrap-ups, decisions before
    edits, failed attempts told)."""
    folder = PROBES if which == "first" else PROBES / which
    if not any(folder.glob("*.jsonl")):
        sys.exit(f"no probes in {folder}")
    if (folder / "user_rules.jsonl").exists():
        rules = score_rules(_load("user_rules.jsonl", folder), details)
        _print("Rules stated in a message", rules, [
            ("rules found", "found/rules"), ("with the labelled type", "typed/rules"),
            ("false alarms (no rule stated)", "false alarm/none")])
    if (folder / "wrapups.jsonl").exists():
        wrapups = score_wrapups(_load("wrapups.jsonl", folder), details)
        _print("Open work in a final wrap-up", wrapups, [
            ("wrap-ups", "wrap-ups"), ("open items found", "found/items"),
            ("stored todos / questions", "stored"), ("of them unlabelled", "unlabelled")])
    if (folder / "pre_edit.jsonl").exists():
        decisions = score_pre_edit(_load("pre_edit.jsonl", folder), details)
        _print("A decision said just before an edit", decisions, [
            ("decisions found", "found/decisions"),
            ("decisions stored from narration", "false alarm/none")])
    if (folder / "attempts.jsonl").exists():
        attempts = score_attempts(_load("attempts.jsonl", folder), details)
        _print("A failed attempt told", attempts, [
            ("attempts found", "found/attempts"), ("any attempt stored", "stored/attempts"),
            ("attempts stored where none is told", "false alarm/none")])


if __name__ == "__main__":
    main()
