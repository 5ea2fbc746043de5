"""The memory model: one place for what a memory is and which values each field accepts.

Validation lives here, once, so that the CLI, MCP, REST and hooks all reject the same
bad input with the same one-line message, before anything touches the store.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any

from .errors import ValidationError

TYPES: tuple[str, ...] = (
    "project_fact",
    "decision",
    "preference",
    "constraint",
    "verified_command",
    "task_summary",
    "bug_note",
    "failed_attempt",
    "todo",
    "open_question",
    "episode",
    "resource",
)
DEFAULT_TYPE = "project_fact"

# Each type lives in a layer whose lifetime differs (mnemon's insight): episodes fade
# fast, references slowly, facts stay until superseded, rules never fade.
LAYER_OF_TYPE: dict[str, str] = {
    "episode": "episodic",
    "task_summary": "episodic",
    "failed_attempt": "episodic",
    "bug_note": "episodic",
    "resource": "reference",
    "verified_command": "reference",
    "project_fact": "semantic",
    "decision": "semantic",
    "todo": "semantic",
    "open_question": "semantic",
    "constraint": "rule",
    "preference": "rule",
}
HALF_LIFE_DAYS: dict[str, float | None] = {
    "episodic": 30.0,
    "reference": 90.0,
    "semantic": None,
    "rule": None,
}

STATUSES: tuple[str, ...] = ("active", "superseded", "archived", "deleted")

# Who said it decides how much we believe it before anyone confirms it.
PROVENANCE_CONFIDENCE: dict[str, float] = {
    "human": 0.95,
    "agent": 0.8,
    "import": 0.8,
    "checkpoint": 0.75,
    "consolidation": 0.75,
    "hook": 0.6,
}
PROVENANCES: tuple[str, ...] = tuple(PROVENANCE_CONFIDENCE)

MAX_CONTENT_CHARS = 50_000
MAX_TEXT_FIELD_CHARS = 20_000
MAX_LIST_ITEMS = 200
MAX_TAG_CHARS = 64
MAX_PATH_CHARS = 1_024
MAX_PROJECT_CHARS = 200
#: Ids are what Engram makes (10 characters) or an import brings; every lookup checks
#: an id against this before it reaches SQL (a 50,000-character id made SQLite's LIKE
#: fail with "pattern too complex").
MAX_ID_CHARS = 64
#: Engram's own meta is at most 3 levels deep (a consolidation's list of source
#: records); 16 leaves room for a user's structures while staying far below the ~1,000
#: Python frames that json, copy and pydantic each spend one or more of per level: a
#: dict nested 900 deep was stored, and then broke every read that serialised it.
MAX_META_DEPTH = 16
#: Characters of meta as JSON. The largest meta Engram writes is a hook's verified
#: command (the command itself, bounded by the content limit, and a few short keys).
MAX_META_CHARS = 65_536
#: Access counts and list offsets: exact in a double (the dashboard's JavaScript) and
#: in SQLite's 64-bit integers.
MAX_COUNT = 2**53 - 1
#: The key a stored meta is shown under when it cannot be shown as it is.
UNREADABLE_META = "unreadable_meta"
#: Meta keys Engram reads as times (ranking's decay clock, review): always in UTC, as
#: `to_iso` writes them. A naive "2026-01-01" made every search that ranked its memory
#: fail comparing naive and aware datetimes.
META_TIME_KEYS = ("confirmed_at", "rejected_at", "reviewed_at")

#: Control characters (C0, DEL, C1) and Unicode line and paragraph separators: never
#: part of a name, a tag or a path, and they could fake line breaks in context packs.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def utcnow() -> datetime:
    return datetime.now(UTC)


def to_iso(value: datetime | None) -> str | None:
    """One text form for every timestamp, so that SQL string comparison orders them."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def from_iso(value: str | None) -> datetime | None:
    if value is None:
        return None
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is UTC:  # what to_iso writes: every stored timestamp, no conversion
        return parsed
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


@dataclass(frozen=True)
class Memory:
    """A memory as stored. Frozen: changes go through the service, which versions them."""

    id: str
    content: str
    type: str = DEFAULT_TYPE
    project: str | None = None
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    problem: str | None = None
    solution: str | None = None
    importance: float = 0.5
    confidence: float = 0.8
    provenance: str = "agent"
    pinned: bool = False
    status: str = "active"
    supersedes: str | None = None
    superseded_by: str | None = None
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    event_at: datetime | None = None
    expires_at: datetime | None = None
    access_count: int = 0
    last_accessed_at: datetime | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    #: Who saved it on a shared server (None in a single-user store), and who may see it:
    #: `team` (every user of the server) or `personal` (its owner only).
    owner: str | None = None
    scope: str = "team"

    @property
    def layer(self) -> str:
        # .get: a row written by hand or by another version may carry an unknown type
        return LAYER_OF_TYPE.get(self.type, "semantic")

    @property
    def when(self) -> datetime:
        """When the remembered thing happened: the event time if known, else when saved."""
        return self.event_at or self.created_at

    def evolve(self, **changes: Any) -> Memory:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, the one every adapter and export uses.

        Field by field rather than `dataclasses.asdict`, whose deep copy recursed through
        `meta` (a nested meta raised RecursionError in every export); meta passes
        `readable_meta`, so whatever a Memory holds, the result serialises.
        """
        data = {name: getattr(self, name) for name in _MEMORY_FIELDS}
        data["tags"] = list(self.tags)
        data["files"] = list(self.files)
        data["meta"] = dict(readable_meta(self.meta))
        data["layer"] = self.layer
        for key in ("created_at", "updated_at", "event_at", "expires_at", "last_accessed_at"):
            data[key] = to_iso(getattr(self, key))
        return data


_MEMORY_FIELDS = tuple(f.name for f in fields(Memory))
_TIME_FIELDS = ("created_at", "updated_at", "event_at", "expires_at", "last_accessed_at")


def memory_from_dict(data: dict[str, Any]) -> Memory:
    """A Memory from its JSON form (`Memory.to_dict`): what a team server or the warm
    worker sends back."""
    values: dict[str, Any] = {k: data[k] for k in _MEMORY_FIELDS if k in data}
    for name in _TIME_FIELDS:
        if name in values:
            values[name] = from_iso(values[name])
    for name in ("tags", "files"):
        values[name] = tuple(values.get(name) or ())
    values["meta"] = dict(values.get("meta") or {})
    return Memory(**values)


def stored_memory(values: Sequence[Any]) -> Memory:
    """A Memory from a store's row, its values converted and in field order.

    Skips the frozen dataclass's `__init__` (one `object.__setattr__` per field): that was
    8 of the 19 µs a loaded row cost, and a search loads about 36 rows.

    Rows are read defensively: one written by an older version or by hand must not make
    a read, a search or an export fail. Tags and files become text without lone
    surrogates, and meta passes `readable_meta`; both cost nothing for the usual empty
    meta and ASCII tags.
    """
    memory = object.__new__(Memory)
    state = memory.__dict__
    state.update(zip(_MEMORY_FIELDS, values, strict=True))
    meta = state["meta"]
    if meta or type(meta) is not dict:
        state["meta"] = readable_meta(meta)
    for name in ("tags", "files"):
        items = state[name]
        if items and not all(type(item) is str and item.isascii() for item in items):
            state[name] = tuple(_readable_text(str(item)) for item in items)
    return memory


def stored_meta(text: str | None) -> Any:
    """A stored meta column decoded for `stored_memory`, whatever it holds: JSON that
    json cannot read (nested past its recursion limit, malformed, an integer of more
    than 4,300 digits) becomes an UNREADABLE_META note instead of an exception."""
    if not text or text == "{}":
        return {}
    try:
        return json.loads(text)
    except RecursionError:
        return {UNREADABLE_META: "meta nested too deeply to read, hidden so that this"
                " memory stays readable"}
    except ValueError:
        return {UNREADABLE_META: "meta is not readable JSON, hidden so that this memory"
                " stays readable"}


def stored_strings(text: str | None) -> tuple[Any, ...]:
    """A stored tags or files column decoded for `stored_memory`; unreadable is empty."""
    if not text or text == "[]":
        return ()
    try:
        value = json.loads(text)
    except (RecursionError, ValueError):
        return ()
    return tuple(value) if isinstance(value, list) else ()


class _TooDeep(Exception):
    pass


def _plain(value: Any, depth: int) -> bool:
    """True if a decoded JSON value shows as it is: text without lone surrogates, finite
    numbers. Raises _TooDeep past MAX_META_DEPTH levels of objects and arrays."""
    kind = type(value)
    if kind is str:
        return value.isascii() or _SURROGATE_RE.search(value) is None
    if kind is dict or kind is list:
        if depth > MAX_META_DEPTH:
            raise _TooDeep
        if kind is dict:
            for key in value:
                if type(key) is not str or not _plain(key, depth):
                    return False
            value = value.values()
        return all(_plain(item, depth + 1) for item in value)
    if kind is float:
        return math.isfinite(value)
    return value is None or kind is bool or kind is int


def _readable_text(text: str) -> str:
    return _SURROGATE_RE.sub("\ufffd", text)


def _readable(value: Any) -> Any:
    """A copy of a value `_plain` refused (depth already checked): lone surrogates become
    U+FFFD, non-finite numbers null, anything else that is not JSON its text."""
    if isinstance(value, str):
        return _readable_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {_readable_text(str(k)): _readable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_readable(item) for item in value]
    if value is None or isinstance(value, bool | int):
        return value
    return _readable_text(str(value))


def readable_meta(meta: Any) -> dict[str, Any]:
    """A stored meta as it can be shown and serialised; usually the same object.

    Meta too deep to serialise (older versions accepted any depth) is replaced by a
    note that says so, under UNREADABLE_META; the row itself is not rewritten here.
    """
    if not isinstance(meta, dict):
        return {UNREADABLE_META: f"meta is a JSON {type(meta).__name__}, not an object"}
    try:
        if _plain(meta, 1):
            return _aware_times(meta)
    except _TooDeep:
        return {
            UNREADABLE_META: f"meta nested deeper than {MAX_META_DEPTH} levels, hidden"
            " so that this memory stays readable"
        }
    return _aware_times(_readable(meta))


def _aware_times(meta: dict[str, Any]) -> dict[str, Any]:
    """META_TIME_KEYS written without a zone (by hand, or before validation checked
    them) read as UTC."""
    for key in META_TIME_KEYS:
        value = meta.get(key)
        if type(value) is str:
            try:
                parsed = datetime.fromisoformat(value)
            except ValueError:
                continue  # readers ignore a time they cannot parse
            if parsed.tzinfo is None:
                meta = {**meta, key: to_iso(parsed.replace(tzinfo=UTC))}
    return meta


# --- validation -------------------------------------------------------------------------


def _shown(value: Any, limit: int = 40) -> str:
    """A value quoted in an error message: repr (escapes surrogates and controls), short."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def require_unicode(name: str, value: str) -> None:
    """Refuse a lone surrogate: it cannot be stored as UTF-8. It reaches Engram from a
    JSON escape ("\\ud800") or from bytes that were not UTF-8 (Python's surrogateescape
    on argv, stdin and file names)."""
    if value.isascii():
        return
    match = _SURROGATE_RE.search(value)
    if match is not None:
        raise ValidationError(
            name,
            f"is not valid Unicode text: lone surrogate U+{ord(match.group()):04X} at"
            f" character {match.start() + 1} (was the input UTF-8?)",
        )


def _refuse_controls(name: str, value: str, what: str) -> None:
    match = _CONTROL_RE.search(value)
    if match is not None:
        raise ValidationError(
            name, f"{what} must not contain control characters or line breaks"
            f" (U+{ord(match.group()):04X} at character {match.start() + 1})",
        )


def _text(
    name: str, value: Any, *, limit: int, required: bool = False, free: bool = True
) -> str | None:
    """Free text (`free`) drops NUL characters, which no reader can show; a name refuses
    every control character and line break instead."""
    if value is None:
        if required:
            raise ValidationError(name, "is required")
        return None
    if not isinstance(value, str):
        raise ValidationError(name, f"must be text, got {type(value).__name__}")
    require_unicode(name, value)
    if free:
        value = value.replace("\x00", "")
    else:
        _refuse_controls(name, value, "it")
    value = value.strip()
    if not value:
        if required:
            raise ValidationError(name, "must not be empty")
        return None
    if len(value) > limit:
        raise ValidationError(name, f"is {len(value)} characters; the limit is {limit}")
    return value


def validate_content(value: Any) -> str:
    text = _text("content", value, limit=MAX_CONTENT_CHARS, required=True)
    assert text is not None
    return text


def validate_optional_text(name: str, value: Any) -> str | None:
    return _text(name, value, limit=MAX_TEXT_FIELD_CHARS)


def validate_id(value: Any, name: str = "id") -> str:
    """A memory id (or an id prefix): checked before any lookup reaches SQL."""
    if not isinstance(value, str):
        raise ValidationError(name, f"must be a memory id (text), got {type(value).__name__}")
    value = value.strip()
    if not value:
        raise ValidationError(name, "must be a memory id")
    if len(value) > MAX_ID_CHARS:
        raise ValidationError(
            name, f"is {len(value)} characters; a memory id has at most {MAX_ID_CHARS}"
        )
    if not all(c.isalnum() or c in "-_" for c in value):
        raise ValidationError(
            name, f"{_shown(value)} is not a memory id: 1-{MAX_ID_CHARS} letters, digits,"
            " '-' or '_'",
        )
    return value


def validate_count(name: str, value: Any) -> int:
    """A whole number from 0 to MAX_COUNT (offsets, access counts)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise ValidationError(
            name, f"must be a whole number from 0 to {MAX_COUNT}, got {_shown(value)}"
        )
    return value


def validate_type(value: Any) -> str:
    if value is None:
        return DEFAULT_TYPE
    if not isinstance(value, str) or value.strip().lower().replace("-", "_") not in TYPES:
        raise ValidationError(
            "type", f"{_shown(value)} is not a memory type; use one of: {', '.join(TYPES)}"
        )
    return value.strip().lower().replace("-", "_")


def validate_types(values: Any) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        values = [v for v in values.split(",") if v.strip()]
    if not isinstance(values, list | tuple | set | frozenset):
        raise ValidationError("type", f"must be a list of types, got {type(values).__name__}")
    return tuple(dict.fromkeys(validate_type(v) for v in values))


def validate_status(value: Any) -> str:
    if not isinstance(value, str) or value not in STATUSES:
        raise ValidationError(
            "status", f"{_shown(value)} is not a status; use one of: {', '.join(STATUSES)}"
        )
    return value


def validate_provenance(value: Any) -> str:
    if value is None:
        return "agent"
    if not isinstance(value, str) or value not in PROVENANCES:
        raise ValidationError(
            "provenance",
            f"{_shown(value)} is not a provenance; use one of: {', '.join(PROVENANCES)}",
        )
    return value


def validate_project(value: Any) -> str | None:
    return _text("project", value, limit=MAX_PROJECT_CHARS, free=False)


def validate_unit(name: str, value: Any) -> float:
    """Importance and confidence: a number in [0, 1]."""
    problem = f"must be a number between 0 and 1, got {_shown(value)}"
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValidationError(name, problem)
    try:
        number = float(value)
    except (ValueError, OverflowError):  # OverflowError: an int beyond any float
        raise ValidationError(name, problem) from None
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise ValidationError(name, problem)
    return number


def validate_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
        return value.lower() in ("true", "yes", "1")
    raise ValidationError(name, f"must be true or false, got {_shown(value)}")


def _items(name: str, values: Any) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = values.split(",")
    if not isinstance(values, list | tuple | set | frozenset):
        raise ValidationError(name, f"must be a list of text, got {type(values).__name__}")
    items = []
    for item in values:
        if not isinstance(item, str):
            raise ValidationError(name, f"must be a list of text, got an item {_shown(item)}")
        require_unicode(name, item)
        item = item.strip()
        if item:
            items.append(item)
    if len(items) > MAX_LIST_ITEMS:
        raise ValidationError(name, f"has {len(items)} items; the limit is {MAX_LIST_ITEMS}")
    return items


def validate_tags(values: Any) -> tuple[str, ...]:
    tags = []
    for tag in _items("tags", values):
        tag = tag.lower().lstrip("#")
        if len(tag) > MAX_TAG_CHARS:
            raise ValidationError(
                "tags", f"tag {tag[:20]!r}… is longer than {MAX_TAG_CHARS} characters"
            )
        _refuse_controls("tags", tag, "a tag")
        tags.append(tag)
    return tuple(dict.fromkeys(tags))


def validate_files(values: Any) -> tuple[str, ...]:
    files = []
    for path in _items("files", values):
        if len(path) > MAX_PATH_CHARS:
            raise ValidationError("files", f"a path is longer than {MAX_PATH_CHARS} characters")
        _refuse_controls("files", path, "a path")
        files.append(path.removeprefix("./"))
    return tuple(dict.fromkeys(files))


def validate_datetime(name: str, value: Any) -> datetime | None:
    """Accept datetimes and ISO 8601 text; naive values are taken as UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValidationError(
                name,
                f"{_shown(value)} is not an ISO 8601 date or datetime (e.g. 2026-03-18T15:00:00Z)",
            ) from None
    else:
        raise ValidationError(name, f"must be an ISO 8601 datetime, got {_shown(value)}")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise ValidationError(
            name, f"{_shown(value)} is outside the range of dates in UTC"
        ) from None


def _check_depth(value: Any, depth: int) -> None:
    if isinstance(value, dict | list | tuple):
        if depth > MAX_META_DEPTH:
            raise ValidationError(
                "meta", f"is nested deeper than {MAX_META_DEPTH} levels (the limit)"
            )
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise ValidationError("meta", f"keys must be text, got {_shown(key)}")
                _check_depth(item, depth + 1)
        else:
            for item in value:
                _check_depth(item, depth + 1)


def validate_meta(value: Any) -> dict[str, Any]:
    """Plain JSON, at most MAX_META_DEPTH levels and MAX_META_CHARS characters.

    Returns a copy made from its JSON text: tuples become lists and nothing is shared
    with the caller's object.
    """
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError("meta", "must be an object with text keys")
    if not value:
        return {}
    _check_depth(value, 1)  # first: serialising a deep value is what must not happen
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValidationError("meta", f"must be plain JSON ({exc})") from None
    if len(text) > MAX_META_CHARS:
        raise ValidationError(
            "meta", f"is {len(text)} characters as JSON; the limit is {MAX_META_CHARS}"
        )
    require_unicode("meta", text)
    loaded: dict[str, Any] = json.loads(text)
    for key in META_TIME_KEYS:
        if key in loaded:
            when = validate_datetime(f"meta.{key}", loaded[key])
            loaded[key] = to_iso(when)
    return loaded


def merge_unique(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *second)))
