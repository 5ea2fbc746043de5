"""The `/v1` endpoints: parse the request, call one service method, return its JSON form.

Endpoints are plain `def`: the service is synchronous and FastAPI runs them in its
threadpool; the store serialises access itself.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import PlainTextResponse, Response

from ..errors import ValidationError
from ..model import PROVENANCES, STATUSES, TYPES
from ..service.results import deleted_answer
from .errors import responses
from .schemas import CheckpointIn, ImportIn, MemoryBatch, MemoryCreate, MemoryPatch, UsedIn

router = APIRouter(prefix="/v1", responses=responses(401, 500, 503))
# Statuses particular to a route; the ones every route shares are listed by
# errors.document_errors.
MISSING = responses(404)
CHANGE = responses(404, 409)

MAX_OFFSET = 1_000_000_000
Id = Annotated[str, Path(min_length=1, max_length=64, description="A memory id or unique prefix.")]
Many = Annotated[
    list[str] | None,
    Query(description="Repeat the parameter or separate values with commas."),
]
When = Annotated[
    str | None,
    Query(max_length=200, description="ISO 8601 or a phrase: 2026-03-01, yesterday, 3d."),
]
Project = Annotated[str | None, Query(max_length=200)]
Limit = Annotated[int, Query(ge=0, le=500)]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]
ExportFormat = Literal["json", "jsonl", "markdown", "claude-md"]
ListOrder = Literal["newest", "oldest", "updated", "importance", "accessed"]
MEDIA_TYPES = {"json": "application/json", "jsonl": "application/x-ndjson",
               "markdown": "text/markdown", "claude-md": "text/markdown"}


def service(request: Request) -> Any:
    return request.app.state.engram


Service = Annotated[Any, Depends(service)]


def many(values: list[str] | None) -> list[str] | None:
    """`?type=a&type=b` and `?type=a,b` mean the same."""
    if not values:
        return None
    items = [v.strip() for value in values for v in value.split(",") if v.strip()]
    return items or None


def when(name: str, value: str | None) -> datetime | None:
    if value is None or not value.strip():
        return None
    from ..temporal import parse_date

    try:
        return parse_date(value)
    except ValueError as exc:
        raise ValidationError(name, str(exc)) from None
    except OverflowError:
        raise ValidationError(name, f"{value!r} is out of range") from None


def _check_vocabulary(name: str, values: list[str] | None, allowed: tuple[str, ...]) -> None:
    for value in values or ():
        if value not in allowed:
            raise ValidationError(
                name, f"{value!r} is not allowed; use one of: {', '.join(allowed)}"
            )


def filter_args(
    project: str | None, types: list[str] | None, tags: list[str] | None,
    since: str | None, until: str | None, status: list[str] | None = None,
    provenance: list[str] | None = None, pinned: bool | None = None,
) -> dict[str, Any]:
    """Query parameters → the service's filter keywords (the service validates values)."""
    statuses = many(status)
    _check_vocabulary("status", statuses, STATUSES)
    provenances = many(provenance)
    _check_vocabulary("provenance", provenances, PROVENANCES)
    return {
        "project": project or None, "types": many(types), "tags": many(tags),
        "since": when("since", since), "until": when("until", until), "status": statuses,
        "provenance": provenances, "pinned": pinned,
    }


# --- memories ---------------------------------------------------------------------------

@router.post("/memories", status_code=201, tags=["memories"], responses=CHANGE)
def create_memory(body: MemoryCreate, engram: Service) -> dict[str, Any]:
    """Save a memory. Duplicates merge (`duplicate: true`); similar ones come back as
    `conflicts`; secrets are redacted (`redacted` names their kinds)."""
    return engram.save(body.content, **body.fields()).to_dict()


@router.post("/memories/batch", tags=["memories"], responses=CHANGE)
def create_memories(body: MemoryBatch, engram: Service) -> dict[str, Any]:
    """Save several memories in one request and one transaction (a session's captures):
    each result as `POST /memories` gives it, in order."""
    records = [{"content": m.content, **m.fields()} for m in body.memories]
    return {"results": [result.to_dict() for result in engram.save_many(records)]}


@router.get("/memories", tags=["memories"])
def list_memories(
    engram: Service,
    project: Project = None,
    type: Many = None,  # noqa: A002 - the public parameter name
    status: Many = None,
    tag: Many = None,
    provenance: Many = None,
    pinned: bool | None = None,
    since: When = None,
    until: When = None,
    order: ListOrder = "newest",
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Browse memories, newest first by default; `total` counts every match."""
    args = filter_args(project, type, tag, since, until, status, provenance, pinned)
    items = engram.list(limit=limit, offset=offset, order=order, **args)
    return {"total": engram.count(**args), "limit": limit, "offset": offset,
            "items": [m.to_dict() for m in items]}


@router.get("/memories/{memory_id}", tags=["memories"], responses=MISSING)
def get_memory(memory_id: Id, engram: Service, track: bool = True) -> dict[str, Any]:
    """One memory. Opening it counts as a use unless `track=false`."""
    return engram.get(memory_id, track=track).to_dict()


@router.patch("/memories/{memory_id}", tags=["memories"], responses=CHANGE)
def update_memory(
    memory_id: Id, body: MemoryPatch, engram: Service, in_place: bool | None = None
) -> dict[str, Any]:
    """Change a memory. New content makes a new version (returned) that supersedes this
    one, unless `in_place=true` (query or body) for typo fixes."""
    changes = body.changes()
    if not changes:
        raise ValidationError("body", "names no field to change")
    edit_in_place = bool(in_place if in_place is not None else body.in_place)
    return engram.update(memory_id, in_place=edit_in_place, **changes).to_dict()


@router.delete("/memories/{memory_id}", tags=["memories"], responses=CHANGE)
def delete_memory(memory_id: Id, engram: Service, hard: bool = False) -> dict[str, Any]:
    """Delete a memory: marked deleted (restorable with /restore), as `engram delete` does;
    `hard=true` removes it for good. (To set one aside instead, POST /archive.)"""
    return deleted_answer(engram.delete(memory_id, hard=hard), hard)


def _action(name: str, doc: str) -> None:
    def endpoint(memory_id: Id, engram: Service) -> dict[str, Any]:
        return getattr(engram, name)(memory_id).to_dict()

    endpoint.__name__ = f"{name}_memory"
    endpoint.__doc__ = doc
    router.post(f"/memories/{{memory_id}}/{name}", tags=["memories"], responses=CHANGE)(endpoint)


_action("archive", "Archive a memory: hidden from search, restorable.")
_action("restore", "Bring an archived or deleted memory back.")
_action("pin", "Pin a memory: always preferred in context packs and ranking.")
_action("unpin", "Unpin a memory.")
_action("confirm", "Vouch for a memory: more confidence, its decay clock restarts.")
_action("reject", "Doubt a memory: less confidence.")


@router.get("/memories/{memory_id}/history", tags=["memories"], responses=MISSING)
def memory_history(memory_id: Id, engram: Service) -> dict[str, Any]:
    """The whole version chain, oldest first, from any version's id."""
    return {"items": [m.to_dict() for m in engram.history(memory_id)]}


# --- retrieval and agents ---------------------------------------------------------------

@router.get("/search", tags=["retrieval"])
def search(
    engram: Service,
    q: Annotated[str, Query(max_length=10_000, description="What to look for.")],
    k: Annotated[int, Query(ge=1, le=1000)] = 10,
    project: Project = None,
    type: Many = None,  # noqa: A002
    tag: Many = None,
    files: Many = None,
    since: When = None,
    until: When = None,
    status: Many = None,
    provenance: Many = None,
    pinned: bool | None = None,
    explain: bool = False,
    min_score: Annotated[float | None, Query(ge=0, description=(
        "Keep results scoring at least this; 0 shows every result. Omitted: results far"
        " below the best are left out (`cut` says how many)."))] = None,
    all: bool = False,  # noqa: A002
) -> dict[str, Any]:
    """Hybrid search (keywords + meaning), re-ranked. Temporal phrases in `q` filter by date.

    Results far below the best are left out unless `all` or `min_score` says otherwise.
    """
    args = filter_args(project, type, tag, since, until, status, provenance, pinned)
    response = engram.search(q, k=k, files=many(files), caller="api",
                             min_score=0.0 if all else min_score, **args)
    return response.to_dict(explain)


@router.get("/recall", tags=["retrieval"])
def recall(
    engram: Service,
    prompt: Annotated[str, Query(max_length=10_000, description="The user's prompt.")],
    project: Project = None,
    exclude: Many = None,
) -> dict[str, Any]:
    """The few memories a prompt clearly earns (what the UserPromptSubmit hook injects),
    leaving out `exclude` (ids the agent was already given)."""
    chosen = engram.recall_for_prompt(prompt, project or None,
                                      exclude=set(many(exclude) or ()))
    return {"items": [{"memory": r.memory.to_dict(), "score": round(r.score, 6), "why": r.why}
                      for r in chosen]}


@router.post("/used", tags=["retrieval"])
def used(body: UsedIn, engram: Service) -> dict[str, Any]:
    """Count a use of memories a client handed to its agent (a context pack, a recall):
    what a remote hook or MCP server reports. Ids the caller may not see are skipped."""
    from ..errors import NotFoundError

    seen = []
    for memory_id in dict.fromkeys(body.ids):
        try:
            seen.append(engram.resolve(memory_id).id)
        except (NotFoundError, ValidationError):
            continue
    engram.mark_used(seen)
    return {"counted": len(seen)}


@router.get("/context", tags=["retrieval"])
def context(
    engram: Service,
    project: Project = None,
    task: Annotated[str | None, Query(max_length=10_000)] = None,
    files: Many = None,
    budget: Annotated[int, Query(ge=50, le=50_000)] = 1500,
) -> dict[str, Any]:
    """A context pack for an agent starting work: the right memories within a token budget."""
    pack = engram.context(project=project or None, task=task, files=many(files), budget=budget)
    return pack.to_dict()


@router.post("/checkpoint", status_code=201, tags=["retrieval"])
def checkpoint(body: CheckpointIn, engram: Service) -> dict[str, Any]:
    """Save a task summary; the same `session_id` updates that session's checkpoint."""
    data = body.model_dump()
    return engram.checkpoint(data.pop("summary"), **data).to_dict()


@router.get("/instructions", tags=["retrieval"])
def instructions(engram: Service) -> dict[str, str]:
    """What an agent should be told about using this memory (same as `engram prompt`)."""
    return {"text": engram.instructions()}


# --- exchange and health ----------------------------------------------------------------

@router.post("/import", tags=["exchange"])
def import_memories(body: ImportIn, engram: Service) -> dict[str, Any]:
    """Import an export (`text`: JSON array or JSON lines) or a list of `records`.
    Good records are kept; bad ones are listed in `errors` with their line."""
    from ..exchange import parse

    if (body.text is None) == (body.records is None):
        raise ValidationError("body", "give exactly one of `text` or `records`")
    pairs = parse(body.text) if body.text is not None else enumerate(body.records or [], 1)
    return engram.import_records(pairs).to_dict()


EXPORTED = {200: {"description": "The export, in the media type of its format.", "content": {
    "application/json": {"schema": {"type": "array", "items": {"type": "object"}}},
    "application/x-ndjson": {"schema": {"type": "string"}},
    "text/markdown": {"schema": {"type": "string"}},
}}}


@router.get("/export", tags=["exchange"], response_class=PlainTextResponse, responses=EXPORTED)
def export(
    engram: Service, format: ExportFormat = "json", project: Project = None  # noqa: A002
) -> Response:
    """Everything (or one project's memories) as json, jsonl, markdown or claude-md."""
    text = engram.export(format, project=project or None)
    return PlainTextResponse(text, media_type=MEDIA_TYPES[format])


@router.get("/stats", tags=["exchange"])
def stats(engram: Service) -> dict[str, Any]:
    """Counts by status, type, project and provenance; store size; embedder."""
    return engram.stats()


@router.get("/vocabulary", tags=["exchange"])
def vocabulary(engram: Service) -> dict[str, Any]:
    """The values filters accept, and the projects this store knows (for pickers)."""
    from ..model import LAYER_OF_TYPE

    projects = [p for p in engram.stats().get("by_project", {}) if p != "(global)"]
    return {"types": list(TYPES), "layers": LAYER_OF_TYPE, "statuses": list(STATUSES),
            "provenances": list(PROVENANCES), "projects": sorted(projects)}
