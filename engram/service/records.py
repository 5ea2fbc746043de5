"""One memory record as the service accepts it: validated, redacted, and the texts it is
indexed and embedded by.

Every write path (save, update, import, checkpoint) passes through `prepare`, so a field
is bounded and a secret removed once, before anything is written or embedded.
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields
from datetime import datetime
from typing import Any

from ..errors import ValidationError
from ..identity import new_id
from ..model import (
    PROVENANCE_CONFIDENCE,
    Memory,
    validate_bool,
    validate_content,
    validate_count,
    validate_datetime,
    validate_files,
    validate_id,
    validate_meta,
    validate_optional_text,
    validate_project,
    validate_provenance,
    validate_status,
    validate_tags,
    validate_type,
    validate_unit,
)
from ..redaction import redact, redact_tree
from ..text import index_terms
from .inference import AUTO, infer_type
from .users import SCOPES, current_viewer, default_scope

MEMORY_FIELDS = frozenset(f.name for f in dataclass_fields(Memory))
# What an update may change; id, status, links and timestamps belong to the service.
UPDATABLE_FIELDS = frozenset(
    {"content", "type", "project", "tags", "files", "problem", "solution", "importance",
     "confidence", "pinned", "event_at", "expires_at", "meta", "scope"}
)


def prepare(data: dict[str, Any], *, now: datetime) -> tuple[Memory, tuple[str, ...]]:
    """Validate and redact one record; raises before anything is written."""
    known = MEMORY_FIELDS | {"layer"}  # "layer" is derived: exports carry it
    unknown = sorted(repr(k)[:40] if not isinstance(k, str) else k[:40]
                     for k in set(data) - known)
    if unknown:
        raise ValidationError(
            unknown[0],
            f"is not a memory field; fields are: {', '.join(sorted(known - {'layer'}))}",
        )
    content = redact(validate_content(data.get("content")))
    kinds = list(content.kinds)
    problem = validate_optional_text("problem", data.get("problem"))
    solution = validate_optional_text("solution", data.get("solution"))
    if problem:
        red = redact(problem)
        problem, kinds = red.text, kinds + list(red.kinds)
    if solution:
        red = redact(solution)
        solution, kinds = red.text, kinds + list(red.kinds)
    provenance = validate_provenance(data.get("provenance"))
    confidence = data.get("confidence")
    importance = data.get("importance")
    meta, found = redact_tree(validate_meta(data.get("meta")))
    kinds += found
    # Names are free text too: a token pasted as a project, a tag or a file is redacted.
    names = {"project": validate_project(data.get("project")),
             "tags": validate_tags(data.get("tags")),
             "files": validate_files(data.get("files"))}
    names, found = redact_tree(names)
    kinds += found
    created = validate_datetime("created_at", data.get("created_at")) or now
    expires = validate_datetime("expires_at", data.get("expires_at"))
    if expires is not None and expires <= created:
        raise ValidationError("expires_at", "must be later than created_at")
    memory_id = data.get("id")
    if memory_id is not None:
        memory_id = validate_id(memory_id)
    links = {
        name: None if data.get(name) is None else validate_id(data[name], name)
        for name in ("supersedes", "superseded_by")
    }
    access = validate_count("access_count", data.get("access_count", 0))
    memory_type = validate_type(
        infer_type(content.text) if data.get("type") == AUTO else data.get("type"))
    memory = Memory(
        id=memory_id or new_id(),
        content=content.text,
        type=memory_type,
        project=names["project"],
        tags=names["tags"],
        files=names["files"],
        problem=problem,
        solution=solution,
        importance=0.5 if importance is None else validate_unit("importance", importance),
        confidence=(
            PROVENANCE_CONFIDENCE[provenance]
            if confidence is None
            else validate_unit("confidence", confidence)
        ),
        provenance=provenance,
        pinned=validate_bool("pinned", data.get("pinned", False)),
        status=validate_status(data.get("status", "active")),
        supersedes=links["supersedes"],
        superseded_by=links["superseded_by"],
        created_at=created,
        updated_at=validate_datetime("updated_at", data.get("updated_at")) or created,
        event_at=validate_datetime("event_at", data.get("event_at")),
        expires_at=expires,
        access_count=access,
        last_accessed_at=validate_datetime("last_accessed_at", data.get("last_accessed_at")),
        meta=meta,
        owner=_owner(data.get("owner")),
        scope=_scope(data.get("scope"), memory_type),
    )
    return memory, tuple(dict.fromkeys(kinds))


def index_terms_of(memory: Memory) -> str:
    """The analysed keyword terms a store indexes for a memory."""
    parts = [
        memory.content,
        memory.problem or "",
        memory.solution or "",
        " ".join(memory.tags),
        " ".join(memory.files),
    ]
    return index_terms("\n".join(p for p in parts if p))


def embedding_text(memory: Memory) -> str:
    """The text a memory's vector is made from."""
    parts = [memory.content]
    if memory.problem:
        parts.append(f"Problem: {memory.problem}")
    if memory.solution:
        parts.append(f"Solution: {memory.solution}")
    return "\n".join(parts)


def _owner(value: Any) -> str | None:
    """A user of a server owns what they save, whatever a record says; locally (an import
    of an export) the record's owner is kept."""
    viewer = current_viewer()
    if viewer is not None:
        return viewer
    if value is None:
        return None
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        raise ValidationError("owner", "must be a user name (at most 64 characters)")
    return value


def _scope(value: Any, memory_type: Any) -> str:
    if value is None:
        return default_scope(validate_type(memory_type))
    if value not in SCOPES:
        raise ValidationError("scope", f"use one of: {', '.join(SCOPES)}")
    return value
