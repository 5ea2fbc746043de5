"""Saving: the dedup and supersede rules every new memory passes.

A new memory that repeats an active one of its project (same normalised text, or a
vector this close without a distinguishing detail) merges into it; one that reads close
to a memory of the same type is saved and reported as a possible conflict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ConflictError
from ..identity import CONFLICT_SIMILARITY, DUPLICATE_SIMILARITY, distinguishing, new_id
from ..model import Memory, merge_unique
from ..store.base import Candidate, Store
from ..text import normalize_for_dedup
from .records import embedding_text, index_terms_of, prepare
from .results import Conflict, SaveResult
from .users import same_audience

if TYPE_CHECKING:
    import numpy as np

    from .engram import Engram


class Neighbours:
    """Similar memories for each item of a save batch, found with one matrix product.

    Covers the store as it was before the batch and the batch's own earlier items, so
    two near-identical memories in one import are deduplicated too.
    """

    def __init__(self, store: Store, memories: list[Memory], vectors: np.ndarray | None) -> None:
        self.memories = memories
        self.vectors = vectors
        self.stored: list[list[Candidate]] = [[] for _ in memories]
        #: Items saved so far (not duplicates), by project: (index, id).
        self.inserted: dict[str | None, list[tuple[int, str]]] = {}
        if vectors is not None and len(memories) > 0:
            self.stored = store.nearest_in_project(
                vectors, [m.project for m in memories], CONFLICT_SIMILARITY, 8
            )

    def of(self, i: int) -> list[Candidate] | None:
        if self.vectors is None:
            return None
        hits = list(self.stored[i])
        for j, memory_id in self.inserted.get(self.memories[i].project, ()):
            score = float(self.vectors[j] @ self.vectors[i])
            if score >= CONFLICT_SIMILARITY:
                hits.append(Candidate(memory_id, score))
        return sorted(hits, key=lambda c: -c.score)

    def saved(self, i: int, result: SaveResult) -> None:
        if not result.duplicate:
            self.inserted.setdefault(self.memories[i].project, []).append((i, result.memory.id))


class BatchReads:
    """The reads `save_one` makes for each record, made once for the whole batch inside
    its transaction: the records' ids (an imported id may be taken), their dedup keys,
    and the memories their vector neighbours name. Three statements for a batch instead
    of three per record, and none in between the inserts, which a store may then send
    together (PostgreSQL pipelines them).

    Answers stay those the store would give at that point of the batch: a memory the
    batch itself wrote is answered as written, and a dedup key the batch wrote to goes to
    the store again (which then sees the batch's rows). The write lock is held from the
    first read, so no other writer changes the rest meanwhile.
    """

    def __init__(self, store: Store, memories: list[Memory], neighbours: Neighbours) -> None:
        self.store = store
        ids = {m.id for m in memories}
        hit_ids = {c.memory_id for hits in neighbours.stored for c in hits}
        self.rows = store.get_many(sorted(ids | hit_ids))
        self.known = ids | hit_ids
        self.keys = {(normalize_for_dedup(m.content), m.project)
                     for m in memories if m.status == "active"}
        self.norms = store.find_by_norms(sorted(self.keys, key=lambda k: (k[0], k[1] or "")))
        self.written: dict[str, Memory] = {}
        self.stale_keys: set[tuple[str, str | None]] = set()

    def wrote(self, memory: Memory) -> None:
        self.written[memory.id] = memory
        self.stale_keys.add((normalize_for_dedup(memory.content), memory.project))

    def get(self, memory_id: str) -> Memory | None:
        return self.get_many([memory_id]).get(memory_id)

    def get_many(self, memory_ids: list[str]) -> dict[str, Memory]:
        found = {i: self.written[i] for i in memory_ids if i in self.written}
        rest = [i for i in memory_ids if i not in found]
        unknown = [i for i in rest if i not in self.known]
        found.update({i: self.rows[i] for i in rest if i in self.known and i in self.rows})
        if unknown:
            found.update(self.store.get_many(unknown))
        return found

    def find_by_norm(self, norm: str, project: str | None) -> Memory | None:
        key = (norm, project)
        if key in self.stale_keys or key not in self.keys:
            return self.store.find_by_norm(norm, project)
        return self.norms.get(key)


class StoreReads:
    """`save_one`'s reads straight from the store (a save outside a batch)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.get = store.get
        self.get_many = store.get_many
        self.find_by_norm = store.find_by_norm

    def wrote(self, memory: Memory) -> None:
        pass


def save_batch(
    service: Engram, records: list[dict[str, Any]], *, dedup: bool = True
) -> list[SaveResult]:
    """Save records in one transaction; each new one is checked against the store and
    against the batch's earlier records."""
    now = service.clock()
    prepared = [prepare(dict(r), now=now) for r in records]
    for memory, _ in prepared:
        if memory.supersedes is not None:
            check_supersedable(service, memory.supersedes)
    vectors = service.embed_texts([embedding_text(m) for m, _ in prepared])
    results: list[SaveResult] = []
    with service.store.transaction():
        neighbours = Neighbours(service.store, [m for m, _ in prepared], vectors)
        reads = BatchReads(service.store, [m for m, _ in prepared], neighbours)
        for i, (memory, kinds) in enumerate(prepared):
            vector = None if vectors is None else vectors[i]
            result = save_one(service, memory, kinds, vector, dedup=dedup,
                              hits=neighbours.of(i), reads=reads)
            neighbours.saved(i, result)
            results.append(result)
    return results


def check_supersedable(service: Engram, target_id: str) -> Memory:
    target = service.resolve(target_id)
    if target.status == "superseded":
        raise ConflictError(
            f"memory {target.id} is already superseded by {target.superseded_by}; "
            "supersede the newest version instead"
        )
    return target


def save_one(
    service: Engram,
    memory: Memory,
    kinds: tuple[str, ...],
    vector: np.ndarray | None,
    *,
    dedup: bool,
    hits: list[Candidate] | None = None,
    reads: BatchReads | StoreReads | None = None,
) -> SaveResult:
    reads = reads or StoreReads(service.store)
    clash = reads.get(memory.id)
    if clash is not None:  # an imported id that is taken: same text is a duplicate
        if (
            dedup
            and memory.status == "active"
            and same_audience(clash, memory)
            and normalize_for_dedup(clash.content) == normalize_for_dedup(memory.content)
        ):
            return merge_duplicate(service, clash, memory, kinds, reads)
        memory = memory.evolve(id=new_id())
    target = None
    if memory.supersedes is not None:
        target = check_supersedable(service, memory.supersedes)
        memory = memory.evolve(supersedes=target.id)
    conflicts: list[Conflict] = []
    if dedup and memory.status == "active":
        existing = reads.find_by_norm(normalize_for_dedup(memory.content), memory.project)
        if existing is not None and (target is None or existing.id != target.id) and (
            same_audience(existing, memory)  # never folded into another user's memory
        ):
            return merge_duplicate(service, existing, memory, kinds, reads)
        if vector is not None:
            if hits is None:
                hits = service.store.nearest_in_project(
                    vector[None, :], [memory.project], CONFLICT_SIMILARITY, 8
                )[0]
            others = reads.get_many([hit.memory_id for hit in hits])
            for hit in hits:
                other = others.get(hit.memory_id)
                if other is None or other.status != "active" or other.project != memory.project:
                    continue
                if not same_audience(other, memory):
                    continue
                if target is not None and other.id == target.id:
                    continue
                distinct = distinguishing(other.content, memory.content) or (
                    _other_recipe(other, memory))
                if hit.score >= DUPLICATE_SIMILARITY and not distinct:
                    return merge_duplicate(service, other, memory, kinds, reads)
                if other.type == memory.type:
                    conflicts.append(Conflict(other, hit.score))
    service.store.insert(memory, index_terms_of(memory), vector)
    reads.wrote(memory)
    if target is not None:
        target = target.evolve(
            status="superseded", superseded_by=memory.id, updated_at=service.clock())
        service.store.update(target)
        reads.wrote(target)
    return SaveResult(memory, False, tuple(conflicts[:3]), kinds)


def merge_duplicate(
    service: Engram, existing: Memory, new: Memory, kinds: tuple[str, ...],
    reads: BatchReads | StoreReads | None = None,
) -> SaveResult:
    """A repeat adds its tags and files to the memory it repeats, nothing else."""
    tags = merge_unique(existing.tags, new.tags)
    files = merge_unique(existing.files, new.files)
    if tags != existing.tags or files != existing.files:
        existing = existing.evolve(tags=tags, files=files, updated_at=service.clock())
        service.store.update(existing, index_terms_of(existing))
        if reads is not None:
            reads.wrote(existing)
    return SaveResult(existing, True, (), kinds)


def _other_recipe(a: Memory, b: Memory) -> bool:
    """Two verified commands that differ are two recipes, however alike their text
    (`pnpm astro check` and `pnpm astro check && pnpm build`): the variants of one command
    already share its normalised text, and merge as exact duplicates."""
    return a.type == b.type == "verified_command" and (
        a.meta.get("command") != b.meta.get("command"))
