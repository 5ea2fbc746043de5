"""The memory model: one place for what a memory is and which values each field accepts.

Validation lives here, once, so that the CLI, MCP, REST and hooks all reject the same
bad input with the same one-line message, before anything touches the store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
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

    @property
    def layer(self) -> str:
        return LAYER_OF_TYPE[self.type]

    @property
    def when(self) -> datetime:
        """When the remembered thing happened: the event time if known, else when saved."""
        return self.event_at or self.created_at

    def evolve(self, **changes: Any) -> Memory:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, the one every adapter and export uses."""
        data = asdict(self)
        data["tags"] = list(self.tags)
        data["files"] = list(self.files)
        data["layer"] = self.layer
        for key in ("created_at", "updated_at", "event_at", "expires_at", "last_accessed_at"):
            data[key] = to_iso(getattr(self, key))
        return data


_MEMORY_FIELDS = tuple(f.name for f in fields(Memory))


def stored_memory(values: Sequence[Any]) -> Memory:
    """A Memory from a store's row, its values converted and in field order.

    Skips the frozen dataclass's `__init__` (one `object.__setattr__` per field): that was
    8 of the 19 µs a loaded row cost, and a search loads about 36 rows. The values were
    validated when the memory was saved.
    """
    memory = object.__new__(Memory)
    memory.__dict__.update(zip(_MEMORY_FIELDS, values, strict=True))
    return memory


# --- validation -------------------------------------------------------------------------


def _text(name: str, value: Any, *, limit: int, required: bool = False) -> str | None:
    if value is None:
        if required:
            raise ValidationError(name, "is required")
        return None
    if not isinstance(value, str):
        raise ValidationError(name, f"must be text, got {type(value).__name__}")
    value = value.replace("\x00", "").strip()
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


def validate_type(value: Any) -> str:
    if value is None:
        return DEFAULT_TYPE
    if not isinstance(value, str) or value.strip().lower().replace("-", "_") not in TYPES:
        raise ValidationError(
            "type", f"{value!r} is not a memory type; use one of: {', '.join(TYPES)}"
        )
    return value.strip().lower().replace("-", "_")


def validate_types(values: Any) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        values = [v for v in values.split(",") if v.strip()]
    return tuple(dict.fromkeys(validate_type(v) for v in values))


def validate_status(value: Any) -> str:
    if value not in STATUSES:
        raise ValidationError(
            "status", f"{value!r} is not a status; use one of: {', '.join(STATUSES)}"
        )
    return value


def validate_provenance(value: Any) -> str:
    if value is None:
        return "agent"
    if value not in PROVENANCES:
        raise ValidationError(
            "provenance", f"{value!r} is not a provenance; use one of: {', '.join(PROVENANCES)}"
        )
    return value


def validate_project(value: Any) -> str | None:
    project = _text("project", value, limit=MAX_PROJECT_CHARS)
    if project is not None and any(ord(c) < 32 for c in project):
        raise ValidationError("project", "must not contain control characters")
    return project


def validate_unit(name: str, value: Any) -> float:
    """Importance and confidence: a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValidationError(name, f"must be a number between 0 and 1, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ValidationError(name, f"must be a number between 0 and 1, got {value!r}") from None
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise ValidationError(name, f"must be a number between 0 and 1, got {value!r}")
    return number


def validate_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
        return value.lower() in ("true", "yes", "1")
    raise ValidationError(name, f"must be true or false, got {value!r}")


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
            raise ValidationError(name, f"must be a list of text, got an item {item!r}")
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
        if any(ord(c) < 32 for c in tag):
            raise ValidationError("tags", "a tag must not contain control characters")
        tags.append(tag)
    return tuple(dict.fromkeys(tags))


def validate_files(values: Any) -> tuple[str, ...]:
    files = []
    for path in _items("files", values):
        if len(path) > MAX_PATH_CHARS:
            raise ValidationError("files", f"a path is longer than {MAX_PATH_CHARS} characters")
        if any(ord(c) < 32 for c in path):
            raise ValidationError("files", "a path must not contain control characters")
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
                name, f"{value!r} is not an ISO 8601 date or datetime (e.g. 2026-03-18T15:00:00Z)"
            ) from None
    else:
        raise ValidationError(name, f"must be an ISO 8601 datetime, got {value!r}")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise ValidationError(name, f"{value!r} is outside the range of dates in UTC") from None


def validate_meta(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ValidationError("meta", "must be an object with text keys")
    return dict(value)


def merge_unique(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *second)))
