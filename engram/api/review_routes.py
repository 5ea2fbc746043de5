"""The owner's endpoints behind the dashboard: review queue, conflicts, overview."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from .errors import responses
from .routes import CHANGE, MISSING, Id, Limit, Offset, Project, Service
from .schemas import KeepBothIn, SupersedeIn

router = APIRouter(prefix="/v1", tags=["review"], responses=responses(401, 500, 503))
Outcome = Literal["approved", "edited", "rejected", "reviewed"]


@router.get("/review")
def review_queue(
    engram: Service, project: Project = None, limit: Limit = 50, offset: Offset = 0
) -> dict[str, Any]:
    """Memories hooks and checkpoints captured that nobody has reviewed yet, newest first."""
    return engram.review_queue(limit, offset, project=project or None).to_dict()


@router.post("/review/{memory_id}/approve", responses=MISSING)
def approve(memory_id: Id, engram: Service) -> dict[str, Any]:
    """Keep it: more confidence, off the queue."""
    return engram.approve(memory_id).to_dict()


@router.post("/review/{memory_id}/reject", responses=CHANGE)
def reject(memory_id: Id, engram: Service) -> dict[str, Any]:
    """Drop it: archived (restorable), off the queue."""
    return engram.dismiss(memory_id).to_dict()


@router.post("/review/{memory_id}/reviewed", responses=MISSING)
def mark_reviewed(memory_id: Id, engram: Service, outcome: Outcome = "reviewed") -> dict[str, Any]:
    """Off the queue with no other change (e.g. after an edit made a new version)."""
    return engram.mark_reviewed(memory_id, outcome).to_dict()


@router.get("/conflicts")
def conflicts(
    engram: Service,
    project: Project = None,
    limit: Annotated[int, Query(ge=0, le=200)] = 20,
    scan: Annotated[
        int, Query(ge=1, le=2000, description="How many of the newest memories to check.")
    ] = 100,
) -> dict[str, Any]:
    """Pairs of active memories of one project and type that say nearly the same thing."""
    pairs = engram.possible_conflicts(limit, project=project or None, scan=scan)
    return {"items": [p.to_dict() for p in pairs]}


@router.post("/conflicts/supersede", responses=CHANGE)
def supersede(body: SupersedeIn, engram: Service) -> dict[str, Any]:
    """`new_id` replaces `old_id`: the old one becomes a past version of the new."""
    return engram.supersede(body.old_id, body.new_id).to_dict()


@router.post("/conflicts/keep-both", responses=MISSING)
def keep_both(body: KeepBothIn, engram: Service) -> dict[str, Any]:
    """Both are right: the pair is not flagged again."""
    first, second = engram.keep_both(body.first_id, body.second_id)
    return {"items": [first.to_dict(), second.to_dict()]}


@router.get("/overview")
def overview(
    engram: Service,
    weeks: Annotated[int, Query(ge=1, le=520)] = 26,
    top: Annotated[int, Query(ge=0, le=100)] = 10,
) -> dict[str, Any]:
    """Growth by type and project per week, the most recalled, the most faded."""
    return engram.overview(weeks=weeks, top=top)


__all__ = ["router", "Id", "Limit", "Offset"]
