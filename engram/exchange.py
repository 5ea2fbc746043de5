"""Export and import formats: JSON and JSONL round-trip every field; Markdown is for people.

The claude-md format is a block an agent can read at start-up; like everything Engram
writes for an agent, it carries the rule that current code beats old memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .guidance import AUTHORITY_RULE as AUTHORITY_RULE  # where others import it from
from .model import MAX_META_DEPTH, TYPES, Memory

FORMATS = ("json", "jsonl", "markdown", "claude-md")

TYPE_HEADINGS = {
    "constraint": "Constraints",
    "preference": "Preferences",
    "decision": "Decisions",
    "project_fact": "Project facts",
    "verified_command": "Verified commands",
    "bug_note": "Bugs",
    "failed_attempt": "Failed attempts",
    "todo": "Todos",
    "open_question": "Open questions",
    "task_summary": "Task summaries",
    "episode": "Episodes",
    "resource": "Resources",
}


#: C0 and C1 controls (terminal escapes among them) and the bidirectional embedding,
#: override and isolate controls, which reorder what a reader sees.
_HIDDEN_RE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def one_line(text: str) -> str:
    """Memory text as one line of a pack or an export.

    Every line break Unicode knows is collapsed, so no memory can start a line of its own
    (a heading, a section, a second authority rule), and control characters that would
    drive a terminal or reorder the text are dropped.
    """
    return " ".join(_HIDDEN_RE.sub(" ", text).split())


def _no_comment(text: str) -> str:
    """Markdown exports: memory text cannot open or close an HTML comment (hiding what
    follows, or ending the claude-md block early)."""
    return text.replace("<!--", "&lt;!--").replace("-->", "--&gt;")


@dataclass(frozen=True)
class BadRecord:
    """A line that could not be parsed; import reports it and goes on."""

    error: str


def render(memories: list[Memory], fmt: str) -> str:
    if fmt not in FORMATS:
        from .errors import ValidationError

        raise ValidationError(
            "format", f"{fmt!r} is not a format; use one of: {', '.join(FORMATS)}"
        )
    if fmt == "json":
        return json.dumps([m.to_dict() for m in memories], ensure_ascii=False, indent=2) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(m.to_dict(), ensure_ascii=False) + "\n" for m in memories)
    active = [m for m in memories if m.status == "active"]
    if fmt == "markdown":
        return _markdown(active)
    return _claude_md(active)


def _by_type(memories: list[Memory]) -> Iterator[tuple[str, list[Memory]]]:
    """Rules first, then the other types; a type this version does not know (a row an
    older one wrote) comes last instead of being left out."""
    order = ["constraint", "preference", *[t for t in TYPES if t not in ("constraint",
                                                                          "preference")]]
    order += sorted({m.type for m in memories} - set(order))
    for kind in order:
        group = [m for m in memories if m.type == kind]
        if group:
            yield kind, group


def _heading(kind: str) -> str:
    return TYPE_HEADINGS.get(kind) or one_line(kind.replace("_", " ").capitalize())


def _line(memory: Memory) -> str:
    text = one_line(memory.content)
    extras = []
    if memory.files:
        extras.append("files: " + ", ".join(memory.files))
    if memory.tags:
        extras.append("tags: " + ", ".join(memory.tags))
    suffix = f" ({'; '.join(extras)})" if extras else ""
    pin = "📌 " if memory.pinned else ""
    return f"- {pin}{_no_comment(one_line(text + suffix))} <!-- {memory.id} -->"


def _markdown(memories: list[Memory]) -> str:
    out = ["# Engram memories", ""]
    projects = sorted({m.project or "" for m in memories})
    for project in projects:
        out.append(f"## {_no_comment(one_line(project)) or 'Global'}")
        out.append("")
        for kind, group in _by_type([m for m in memories if (m.project or "") == project]):
            out.append(f"### {_no_comment(_heading(kind))}")
            out.extend(_line(m) for m in group)
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _claude_md(memories: list[Memory]) -> str:
    out = [
        "<!-- engram:memories:begin -->",
        "## Project memory (from Engram)",
        "",
        AUTHORITY_RULE,
        "",
    ]
    for kind, group in _by_type(memories):
        out.append(f"### {_no_comment(_heading(kind))}")
        for memory in group:
            scope = f"[{memory.project}] " if memory.project else ""
            out.append(f"- {_no_comment(one_line(scope + memory.content))}")
        out.append("")
    out.append("<!-- engram:memories:end -->")
    return "\n".join(out) + "\n"


def parse(data: str | bytes) -> Iterator[tuple[int, object]]:
    """Yield (line, record or BadRecord) from JSON lines or a JSON array.

    One bad record never costs the others: a record that is not UTF-8, not JSON, nested
    deeper than the parser follows (json raises RecursionError) or holding a number it
    refuses is reported at the line where it starts, and the rest still come. Bytes are
    split into lines before decoding, so an encoding error stays on its own line.
    """
    if isinstance(data, bytes):
        data = data.removeprefix(b"\xef\xbb\xbf")
        if data.lstrip()[:1] == b"[":
            # Invalid bytes become lone surrogates, which the record's validation
            # refuses by field; the array around them still parses.
            yield from _array(data.decode("utf-8", "surrogateescape"))
            return
        yield from _lines(data.split(b"\n"))
        return
    data = data.removeprefix("\ufeff")
    if data.lstrip().startswith("["):
        yield from _array(data)
        return
    yield from _lines(data.split("\n"))


def _lines(lines: list[bytes] | list[str]) -> Iterator[tuple[int, object]]:
    """JSON lines: split on "\\n" only (JSON text may hold a raw U+2028)."""
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield number, BadRecord(
                    f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
                )
                continue
        else:
            line = raw
        if not line.strip():
            continue
        yield number, _loads(line)


def _loads(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        return BadRecord(f"not valid JSON ({exc.msg} at column {exc.colno})")
    except RecursionError:
        return BadRecord(_TOO_DEEP)
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        return BadRecord(f"not readable JSON ({exc})"[:200])


_TOO_DEEP = f"nested too deeply to read (meta may be at most {MAX_META_DEPTH} levels deep)"
_SPACE = re.compile(r"[ \t\n\r]*")
#: One token of the skim that finds where an unreadable record ends: a string, a
#: bracket or a comma (anything else is part of a number or a literal).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]', re.DOTALL)


def _array(text: str) -> Iterator[tuple[int, object]]:
    """A JSON array read record by record, each reported at the line where it starts."""
    decoder = json.JSONDecoder()
    position, line = 0, 1

    def line_at(index: int) -> int:
        nonlocal position, line
        line += text.count("\n", position, index)
        position = index
        return line

    i = _SPACE.match(text, text.index("[") + 1).end()
    if text.startswith("]", i):
        return
    while True:
        start_line = line_at(i)
        try:
            record, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            yield exc.lineno, BadRecord(
                f"the file is not valid JSON from here on ({exc.msg}); records before"
                " this line were read"
            )
            return
        except (RecursionError, ValueError) as exc:
            skipped = _skip(text, i)
            if skipped is None:
                yield start_line, BadRecord("a record that never ends; the file is cut short")
                return
            reason = _TOO_DEEP if isinstance(exc, RecursionError) else str(exc)[:200]
            record, end = BadRecord(reason), skipped
        yield start_line, record
        i = _SPACE.match(text, end).end()
        if text.startswith(",", i):
            i = _SPACE.match(text, i + 1).end()
            continue
        if text.startswith("]", i) and not text[i + 1 :].strip():
            return
        yield line_at(i), BadRecord(
            "expected ',' or ']' after a record; the rest of the file was not read"
        )
        return


def _skip(text: str, start: int) -> int | None:
    """Where the JSON value at `start` ends, found without recursion; None if never."""
    if text[start] not in "[{":
        match = re.compile(r"[^,\]\s]*").match(text, start)
        return match.end() if match else None
    depth = 0
    for token in _TOKEN.finditer(text, start):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
        elif mark in ("]", "}"):
            depth -= 1
            if depth == 0:
                return token.end()
    return None
