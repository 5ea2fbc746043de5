"""Request bodies of the REST API: shapes only; every rule about values lives in the service.

The models describe the JSON for the OpenAPI document and reject what the service
could never accept (unknown fields, wrong JSON types, text that is not valid Unicode,
NaN in `meta`) with a 422 that names the field. Limits, vocabularies and dates are the
service's business: it answers a bad value with a ValidationError the API turns into 422
too (one status for every refused value, see `errors`).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ..model import PROVENANCES, TYPES

MemoryType = Literal[TYPES]  # type: ignore[valid-type]
Provenance = Literal[PROVENANCES]  # type: ignore[valid-type]
Text = str
TextList = list[str]


def _check_unicode(value: Any, path: str) -> None:
    """Lone surrogates (legal in JSON escapes) cannot be stored as UTF-8: refuse them."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("is not valid Unicode text (lone surrogate)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_unicode(key, path)
            _check_unicode(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for item in value:
            _check_unicode(item, path)


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _plain_json(cls, value: Any, info: ValidationInfo) -> Any:
        _check_unicode(value, info.field_name or "value")
        if info.field_name == "meta" and value is not None:
            try:
                json.dumps(value, allow_nan=False)
            except ValueError:
                raise ValueError("must be plain JSON (no NaN or Infinity)") from None
        return value


class MemoryFields(Body):
    """Structured fields shared by create and update."""

    type: MemoryType | None = Field(None, description="One of the 12 memory types.")
    project: Text | None = Field(None, description="Project name; omit for a global memory.")
    tags: TextList | None = None
    files: TextList | None = Field(None, description="Paths this memory is about.")
    problem: Text | None = None
    solution: Text | None = None
    importance: float | None = Field(None, description="0..1")
    confidence: float | None = Field(None, description="0..1")
    pinned: bool | None = None
    event_at: Text | None = Field(None, description="When it happened (ISO 8601).")
    expires_at: Text | None = Field(None, description="ISO 8601.")
    meta: dict[str, Any] | None = None
    scope: Literal["personal", "team"] | None = Field(
        None, description="Who may see it on a shared server: the team, or its owner only "
        "(default: personal for a preference, team for everything else).")


class MemoryCreate(MemoryFields):
    content: Text = Field(..., description="The memory itself (secrets are redacted).")
    provenance: Provenance | None = Field(None, description="Who said it (default: agent).")
    created_at: Text | None = Field(None, description="ISO 8601; default: now.")
    supersedes: Text | None = Field(None, description="Id of the memory this one replaces.")

    def fields(self) -> dict[str, Any]:
        data = self.model_dump(exclude_none=True)
        data.pop("content")
        return data


#: Memories one batch may carry: a session's captures are a few dozen at most.
MAX_BATCH = 200


class MemoryBatch(Body):
    memories: list[MemoryCreate] = Field(..., min_length=1, max_length=MAX_BATCH,
                                         description=f"At most {MAX_BATCH} memories.")


class MemoryPatch(MemoryFields):
    content: Text | None = None
    in_place: bool | None = Field(
        None, description="Edit this version instead of making a new one (typo fixes)."
    )

    def changes(self) -> dict[str, Any]:
        data = self.model_dump(exclude_none=True)
        data.pop("in_place", None)
        return data


class CheckpointIn(Body):
    summary: Text
    project: Text | None = None
    problem: Text | None = None
    solution: Text | None = None
    files: TextList | None = None
    concepts: TextList | None = None
    session_id: Text | None = Field(
        None, description="One checkpoint per session: the same id updates it in place."
    )


class UsedIn(Body):
    ids: list[Text] = Field(..., max_length=500, description="Memories handed to an agent.")


class ImportIn(Body):
    """Either `text` (an export: a JSON array or JSON lines) or `records` (objects)."""

    text: Text | None = None
    records: list[Any] | None = None


class SupersedeIn(Body):
    old_id: Text
    new_id: Text


class KeepBothIn(Body):
    first_id: Text
    second_id: Text
