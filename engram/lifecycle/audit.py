"""The recall audit log: what hooks, the MCP server and the API handed to agents.

Written after the ranking is done and never read by it, so logging cannot change what
a search returns. Queries are stored redacted; entries older than the retention
(90 days by default) are pruned as new ones arrive. A failure to log never fails a recall.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..errors import StoreError, ValidationError
from ..redaction import redact
from ..store.base import RecallEntry

if TYPE_CHECKING:
    from ..retrieval import SearchResponse
    from ..service import Engram

MAX_CALLER_CHARS = 32
MAX_QUERY_CHARS = 2000


def record(service: Engram, caller: str, query: str, response: SearchResponse) -> bool:
    settings = service.lifecycle.settings
    if not settings.audit:
        return False
    now = service.clock()
    retention = settings.audit_retention_days
    try:
        service.store.log_recall(
            RecallEntry(
                at=now, caller=str(caller)[:MAX_CALLER_CHARS] or "unknown",
                query=redact(query[:MAX_QUERY_CHARS]).text, mode=response.mode,
                ids=[r.memory.id for r in response.results],
                scores=[r.score for r in response.results],
                elapsed_ms=round(response.elapsed_ms, 3),
            ),
            prune_before=now - timedelta(days=retention) if retention > 0 else None,
        )
    except StoreError:
        return False
    return True


def recalls(service: Engram, *, since: datetime | None = None, caller: str | None = None,
            limit: int = 100) -> list[dict[str, Any]]:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100_000:
        raise ValidationError("limit", f"must be a whole number from 1 to 100000, got {limit!r}")
    return service.store.recalls(since, caller, limit)


def prune(service: Engram) -> int:
    retention = service.lifecycle.settings.audit_retention_days
    if retention <= 0:
        return 0
    return service.store.prune_recalls(service.clock() - timedelta(days=retention))
