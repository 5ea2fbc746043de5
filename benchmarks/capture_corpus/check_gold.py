"""Check the capture corpus's gold files against the schema in README.md and their transcripts.

Run from the repository root: `.venv/bin/python benchmarks/capture_corpus/check_gold.py`
(optionally with gold files or directories as arguments; `--strict` makes a missing transcript
an error). It exits 1 when any gold file is wrong, so a label that no memory could ever satisfy
(a match group absent from its own session) is caught before it distorts recall.

Transcripts copied from public repositories live outside git (see real/.gitignore): a gold file's
transcript is looked up next to it, then in $ENGRAM_CAPTURE_CORPUS/<half>/, then in
../shared/datasets/capture_corpus/<half>/ beside the repository.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TYPES = {
    "decision", "constraint", "preference", "failed_attempt", "bug_note", "todo",
    "open_question", "verified_command", "project_fact",
}
ITEM_KEYS = {"id", "type", "types", "match", "command", "required", "note"}
TOP_KEYS = {"source", "licence", "language", "empty", "items", "secrets", "forbidden", "covers"}
# Presentation-only tails, as README.md defines them for verified commands.
_TAIL = re.compile(
    r"(\s*2>&1|\s*\|\s*(tail|head)(\s+-\S+)*(\s+\d+)?|\s*\|\s*grep\b.*"
    r"|\s*\|\s*less|\s*;\s*echo \$\?)\s*$"
)


def strip_tails(command: str) -> str:
    """Remove presentation tails (2>&1, | tail -N, | head, | grep ..., | less, ; echo $?)."""
    previous = None
    command = command.strip()
    while previous != command:
        previous = command
        command = _TAIL.sub("", command).strip()
    return command


def normalise(command: str) -> str:
    return " ".join(command.split())


def transcript_for(gold: Path) -> Path | None:
    """The transcript of a gold file: beside it, or in the shared corpus directory."""
    name = gold.name[: -len(".gold.json")]
    half = gold.parent.name
    roots = [gold.parent]
    if os.environ.get("ENGRAM_CAPTURE_CORPUS"):
        roots.append(Path(os.environ["ENGRAM_CAPTURE_CORPUS"]) / half)
    roots.append(HERE.parents[2] / "shared" / "datasets" / "capture_corpus" / half)
    for root in roots:
        for suffix in (".jsonl", ".jsonl.gz"):
            candidate = root / (name + suffix)
            if candidate.exists():
                return candidate
    return None


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def read_transcript(path: Path) -> tuple[str, set[str], list[str]]:
    """All text of a transcript (lower-cased), its Bash commands (normalised), and parse errors."""
    opener = gzip.open if path.suffix == ".gz" else open
    texts: list[str] = []
    commands: set[str] = set()
    errors: list[str] = []
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(f"{path.name}:{number}: not JSON ({exc.msg})")
                continue
            texts.extend(_strings(entry))
            content = (entry.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    command = (block.get("input") or {}).get("command")
                    if block.get("name") == "Bash" and isinstance(command, str):
                        stripped = strip_tails(command)
                        commands.add(normalise(stripped))
                        commands.add(normalise(stripped.replace(" 2>&1", "")))
    return "\n".join(texts).lower(), commands, errors


def _check_groups(groups: object, where: str, text: str | None, problems: list[str]) -> None:
    if not isinstance(groups, list) or not groups:
        problems.append(f"{where}: match must be a non-empty list of groups")
        return
    for group in groups:
        if not isinstance(group, list) or not group or not all(
            isinstance(term, str) and term.strip() for term in group
        ):
            problems.append(f"{where}: group {group!r} must be a non-empty list of strings")
            continue
        if text is not None and not any(term.lower() in text for term in group):
            problems.append(f"{where}: no term of group {group!r} occurs in the transcript")


def check(gold_path: Path, strict: bool) -> tuple[list[str], list[str], dict[str, int]]:
    """Problems (errors), warnings and per-type required counts for one gold file."""
    problems: list[str] = []
    warnings: list[str] = []
    counts: dict[str, int] = {}
    try:
        gold = json.loads(gold_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [f"{gold_path}: cannot read ({exc})"], warnings, counts
    if not isinstance(gold, dict):
        return [f"{gold_path}: top level must be an object"], warnings, counts
    for key in ("source", "licence", "items"):
        if key not in gold:
            problems.append(f"{gold_path.name}: missing {key!r}")
    for key in set(gold) - TOP_KEYS:
        warnings.append(f"{gold_path.name}: unknown key {key!r}")

    transcript = transcript_for(gold_path)
    text: str | None = None
    commands: set[str] = set()
    if transcript is None:
        (problems if strict else warnings).append(
            f"{gold_path.name}: transcript not found (terms and commands not checked)")
    else:
        text, commands, parse_errors = read_transcript(transcript)
        problems.extend(parse_errors)

    items = gold.get("items", [])
    if not isinstance(items, list):
        problems.append(f"{gold_path.name}: items must be a list")
        items = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        where = f"{gold_path.name}:{item.get('id', index) if isinstance(item, dict) else index}"
        if not isinstance(item, dict):
            problems.append(f"{where}: item must be an object")
            continue
        if item.get("id") in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(item.get("id"))
        for key in set(item) - ITEM_KEYS:
            warnings.append(f"{where}: unknown key {key!r}")
        kind = item.get("type")
        if kind not in TYPES:
            problems.append(f"{where}: type {kind!r} is not one of {sorted(TYPES)}")
        types = item.get("types", [kind])
        if not isinstance(types, list) or not set(types) <= TYPES or kind not in types:
            problems.append(f"{where}: types {types!r} must list valid types including {kind!r}")
        if "required" in item and not isinstance(item["required"], bool):
            problems.append(f"{where}: required must be true or false")
        if kind == "verified_command":
            command = item.get("command")
            if not isinstance(command, str) or not command.strip():
                problems.append(f"{where}: a verified_command needs a non-empty command")
            elif strip_tails(command) != command.strip():
                problems.append(f"{where}: command keeps a presentation tail: {command!r}")
            elif text is not None and normalise(command) not in commands:
                problems.append(f"{where}: command was never run in the session: {command!r}")
        else:
            _check_groups(item.get("match"), where, text, problems)
        if item.get("required", True):
            counts[kind] = counts.get(kind, 0) + 1

    if gold.get("empty") and any(
        isinstance(i, dict) and i.get("required", True) for i in items
    ):
        problems.append(f"{gold_path.name}: an empty session cannot have required items")
    if not gold.get("empty") and not items:
        warnings.append(f"{gold_path.name}: not empty but has no items")
    for secret in gold.get("secrets", []):
        if not isinstance(secret, str) or not secret:
            problems.append(f"{gold_path.name}: secret {secret!r} must be a non-empty string")
        elif text is not None and secret.lower() not in text:
            problems.append(f"{gold_path.name}: secret {secret[:12]!r}... not in the transcript")
    forbidden = gold.get("forbidden", [])
    if forbidden:
        # A list of groups, as in match; a stored memory that satisfies any group is noise.
        _check_groups(forbidden, f"{gold_path.name}:forbidden", None, problems)
        for group in forbidden if text is not None and isinstance(forbidden, list) else []:
            if isinstance(group, list) and not any(
                isinstance(t, str) and t.lower() in text for t in group
            ):
                warnings.append(f"{gold_path.name}: forbidden {group!r} is not in the session")
    return problems, warnings, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="gold files or directories")
    parser.add_argument("--strict", action="store_true", help="a missing transcript is an error")
    args = parser.parse_args(argv)
    paths = args.paths or [HERE / "real", HERE / "written", HERE / "heldout", HERE / "blind"]
    golds = sorted(
        g for p in paths for g in (p.glob("*.gold.json") if p.is_dir() else [p])
    )
    total: dict[str, int] = {}
    failed = 0
    for gold in golds:
        problems, warnings, counts = check(gold, args.strict)
        for message in warnings:
            print(f"warning: {message}")
        for message in problems:
            print(f"error: {message}")
        failed += bool(problems)
        for kind, number in counts.items():
            total[kind] = total.get(kind, 0) + number
    summary = ", ".join(f"{k} {v}" for k, v in sorted(total.items()))
    print(f"{len(golds)} gold files, {failed} with errors; required items: {summary or 'none'}")
    return 1 if failed or not golds else 0


if __name__ == "__main__":
    sys.exit(main())
