"""The store protocol: the few operations the service needs from a backend.

Kept small on purpose (in the spirit of httpx's transports) so that SQLite, the
embedded default, and PostgreSQL can both implement it and share one test suite.
The service owns every rule (redaction, dedup, versioning, ranking); a store only
persists rows, finds keyword and vector candidates, and filters.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from ..model import Memory

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Filters:
    """Which memories a search or listing may return.

    `project` matches that project and global memories (project = null) unless
    `include_global` is false; `statuses` defaults to active only.
    """

    project: str | None = None
    include_global: bool = True
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    statuses: tuple[str, ...] = ("active",)
    provenances: tuple[str, ...] = ()
    pinned: bool | None = None
    ids: tuple[str, ...] | None = None
    #: A user of a shared server: only team memories and their own personal ones.
    viewer: str | None = None


@dataclass(frozen=True)
class Candidate:
    memory_id: str
    score: float


@dataclass(frozen=True)
class RecallEntry:
    """One search handed to an agent, for the recall log (the query already redacted)."""

    at: datetime
    caller: str
    query: str
    mode: str | None
    ids: Sequence[str]
    scores: Sequence[float]
    elapsed_ms: float | None


@dataclass(frozen=True)
class CensusRow:
    """Active memories of one type in one decay bucket, with flag counts.

    `bucket` is the index of the first threshold whose strength they still reach,
    len(thresholds) for weaker ones, None for types that do not decay.
    """

    type: str
    bucket: int | None
    count: int
    expired: int
    stale: int
    merged: int
    protected: int


class Store(Protocol):
    """What every backend does; index upkeep (segment merges, vacuuming) is each
    backend's own business and never asked for from above."""

    path: str  # the target it was opened on: a file path or a URL (password left out)
    ephemeral: bool  # an in-memory store that disappears with the process

    def close(self) -> None: ...
    def transaction(self) -> AbstractContextManager[None]: ...

    # metadata of the store itself (schema version, embedder that made the vectors)
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str | None) -> None: ...

    # rows
    def insert(self, memory: Memory, terms: str, vector: np.ndarray | None) -> None: ...
    def update(
        self, memory: Memory, terms: str | None = None, vector: np.ndarray | None = None
    ) -> None: ...
    def delete(self, memory_id: str) -> None: ...
    def get(self, memory_id: str) -> Memory | None: ...
    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]: ...
    def resolve_prefix(self, prefix: str, limit: int = 2) -> list[str]: ...
    def find_by_norm(self, norm: str, project: str | None) -> Memory | None: ...
    def find_by_norms(
        self, keys: Sequence[tuple[str, str | None]]
    ) -> dict[tuple[str, str | None], Memory]:
        """find_by_norm of each (norm, project) at once (a save batch's dedup keys);
        keys with no active memory are left out."""
        ...
    def list(
        self, filters: Filters, limit: int = 50, offset: int = 0, order: str = "newest"
    ) -> list[Memory]: ...
    def count(self, filters: Filters) -> int: ...
    def touch(self, memory_ids: Sequence[str], when: datetime) -> None: ...
    def iter_all(self, batch: int = 500) -> Iterator[Memory]: ...

    # retrieval
    def keyword_search(
        self, groups: list[tuple[str, ...]], mode: str, filters: Filters, limit: int
    ) -> list[Candidate]: ...
    def vector_search(
        self, query: np.ndarray, filters: Filters, limit: int
    ) -> list[Candidate]: ...
    def nearest_in_project(
        self, queries: np.ndarray, projects: Sequence[str | None], min_score: float, limit: int
    ) -> list[list[Candidate]]: ...
    def terms_of(self, memory_ids: Sequence[str]) -> dict[str, str]: ...
    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, np.ndarray]: ...
    def document_frequency(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]: ...
    def clear_vectors(self) -> None: ...

    # change numbers: every write of a memory takes the next one
    def last_change(self) -> int: ...
    def changes_since(self, seq: int) -> int: ...
    def duplicate_groups(self) -> list[list[str]]:
        """Ids of active memories sharing a dedup key and project, oldest first."""
        ...

    # counts for `stats`; the rules (half-lives, thresholds, protection) are arguments
    def decay_census(
        self, now: datetime, half_life_days: Mapping[str, float],
        thresholds: Sequence[float], protected_types: Sequence[str],
        protected_importance: float,
    ) -> list[CensusRow]: ...
    def archive_reasons(self) -> dict[str | None, int]: ...

    # the recall log
    def log_recall(self, entry: RecallEntry, prune_before: datetime | None) -> None: ...
    def prune_recalls(self, before: datetime) -> int: ...
    def recalls(
        self, since: datetime | None, caller: str | None, limit: int
    ) -> list[dict[str, Any]]: ...
    def count_recalls(self) -> int: ...

    # upkeep runs: at most one unfinished run per lease
    def last_upkeep(self, finished: bool = True) -> dict[str, Any] | None: ...
    def claim_upkeep(self, trigger: str, now: datetime, lease_before: datetime
                     ) -> int | None: ...
    def finish_upkeep(self, run_id: int, now: datetime, report: dict[str, Any]) -> None: ...
    def drop_upkeep(self, run_id: int) -> None: ...
    def upkeep_runs(self, limit: int) -> list[dict[str, Any]]: ...

    # Users of a shared server (tokens arrive hashed; the store never sees one).
    def add_user(self, name: str, role: str, token_hash: str, created_at: datetime) -> bool:
        """False when the name is taken."""
    def users(self) -> list[dict[str, Any]]: ...
    def remove_user(self, name: str) -> bool: ...
    def set_user_token(self, name: str, token_hash: str) -> bool: ...
    def user_by_token(self, token_hash: str) -> tuple[str, str] | None:
        """(name, role) of the user holding this token."""
    def user_records(self) -> list[tuple[str, str, str, datetime]]:
        """(name, role, token hash, created) of every user: for `engram migrate` only."""
    def has_users(self) -> bool: ...

    def stats(self) -> dict[str, Any]: ...
