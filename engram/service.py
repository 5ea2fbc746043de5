"""The Engram service: every rule about memories, once, for every adapter.

The CLI, MCP server, REST API, hooks and dashboard parse input, call one method here
and render the result. Redaction, dedup, versioning, ranking and validation never
live in an adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from datetime import datetime
from typing import TYPE_CHECKING, Any

from . import exchange, prompt_recall, ranking, retrieval
from .errors import ConflictError, NotFoundError, ValidationError
from .identity import CONFLICT_SIMILARITY, DUPLICATE_SIMILARITY, distinguishing, new_id
from .model import (
    PROVENANCE_CONFIDENCE,
    Memory,
    merge_unique,
    require_unicode,
    to_iso,
    utcnow,
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
    validate_types,
    validate_unit,
)
from .redaction import redact, redact_tree
from .store.base import Candidate, Filters, Store
from .text import index_terms, normalize_for_dedup

if TYPE_CHECKING:
    import numpy as np

    from .embedders import Embedder

CONFIRM_STEP = 0.1
EMBED_BATCH = 64
#: Records per import transaction: embedded, then deduplicated with one scan of the
#: rows of the batch's projects, then written. The scan reads those rows from memory,
#: and a batch of many projects reads most of the index (100K memories in 120
#: projects: 256 records read 82% of it), so bigger batches share it among more
#: records: 0.35 ms a record at 256, 0.13 at 1024 (100K memories).
IMPORT_BATCH = 1024
MEMORY_FIELDS = frozenset(f.name for f in dataclass_fields(Memory))
# What an update may change; id, status, links and timestamps belong to the service.
UPDATABLE_FIELDS = frozenset(
    {"content", "type", "project", "tags", "files", "problem", "solution", "importance",
     "confidence", "pinned", "event_at", "expires_at", "meta"}
)
@dataclass(frozen=True)
class Conflict:
    memory: Memory
    similarity: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "content": self.memory.content,
            "similarity": round(self.similarity, 4),
        }


@dataclass(frozen=True)
class SaveResult:
    memory: Memory
    duplicate: bool = False
    conflicts: tuple[Conflict, ...] = ()
    redacted: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "duplicate": self.duplicate,
            "conflicts": [c.to_dict() for c in self.conflicts],
            "redacted": list(self.redacted),
            "memory": self.memory.to_dict(),
        }


@dataclass
class ImportResult:
    imported: int = 0
    duplicates: int = 0
    ids: list[str | None] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "duplicates": self.duplicates,
            "ids": self.ids,
            "errors": self.errors,
        }


def _json_kind(value: Any) -> str:
    kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")


class _Neighbours:
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


class EngramCore:
    """Long-term memory over one store: the core rules. Thread-safe as far as the store is."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
        weights: ranking.Weights = ranking.DEFAULT_WEIGHTS,
    ) -> None:
        self.store = store
        #: What engram.open() was given (a file, or a URL with its password): for child
        #: processes on the same store; never shown (`path` is the printable form).
        self.target: str | None = None
        self.clock = clock
        self.weights = weights
        self._embedder = embedder
        self.vector_note: str | None = None
        self.reembed_due = False
        self._check_embedder()

    # --- lifecycle --------------------------------------------------------------------

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> EngramCore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> str:
        return self.store.path

    def _check_embedder(self) -> None:
        """Vectors from two models never mix: a mismatch turns vectors off until reindex."""
        recorded = self.store.get_meta("embedder")
        self.vectors_enabled = self._embedder is not None
        if self._embedder is None or recorded is None:
            return
        # Compare names only: reading a remote embedder's `dim` costs a network round trip.
        recorded_name = recorded.rsplit(":", 1)[0]
        if recorded_name != self._embedder.name:
            self.vectors_enabled = False
            # A model this embedder replaced (an Engram upgrade): automatic upkeep
            # re-embeds the store, so the user need not know the command.
            self.reembed_due = recorded_name in getattr(self._embedder, "previous_names", ())
            self.vector_note = (
                f"this store's vectors were made by {recorded}, not {self._embedder.name}: "
                "searching by keywords only; run `engram reindex` to re-embed"
                + (" (automatic upkeep will do it after the next save)"
                   if self.reembed_due else "")
            )

    def _model_id(self) -> str:
        assert self._embedder is not None
        return f"{self._embedder.name}:{self._embedder.dim}"

    @property
    def embedder(self) -> Embedder | None:
        return self._embedder if self.vectors_enabled else None

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray | None:
        """Vectors of `texts` with this store's embedder (None when vectors are off)."""
        embedder = self.embedder
        if embedder is None or not texts:
            return None
        vectors = embedder.embed(list(texts))
        if self.store.get_meta("embedder") is None:
            self.store.set_meta("embedder", self._model_id())
        return vectors

    # --- reading ----------------------------------------------------------------------

    def resolve(self, memory_id: str) -> Memory:
        """Find a memory by id or by an unambiguous id prefix (git-style).

        Every method that takes an id comes through here: the id is checked before SQL.
        """
        memory_id = validate_id(memory_id)
        memory = self.store.get(memory_id)
        if memory is not None:
            return memory
        if len(memory_id) >= 4:
            matches = self.store.resolve_prefix(memory_id)
            if len(matches) == 1:
                found = self.store.get(matches[0])
                if found is not None:
                    return found
            if len(matches) > 1:
                raise NotFoundError(memory_id, f"id prefix {memory_id!r} is ambiguous")
        raise NotFoundError(memory_id)

    def get(self, memory_id: str, *, track: bool = True) -> Memory:
        """Opening a memory on purpose counts as a use (searching does not)."""
        memory = self.resolve(memory_id)
        if track:
            now = self.clock()
            self.store.touch([memory.id], now)
            memory = memory.evolve(access_count=memory.access_count + 1, last_accessed_at=now)
        return memory

    def mark_used(self, memory_ids: Sequence[str]) -> None:
        """Record that memories were handed to an agent (hooks, context packs)."""
        if memory_ids:
            self.store.touch(list(memory_ids), self.clock())

    def filters(
        self,
        *,
        project: Any = None,
        types: Any = None,
        tags: Any = None,
        files: Any = None,
        since: Any = None,
        until: Any = None,
        status: Any = None,
        include_superseded: bool = False,
        include_archived: bool = False,
        include_global: bool = True,
        provenance: Any = None,
        pinned: bool | None = None,
    ) -> Filters:
        """Validated filters, shared by search, list and every adapter."""
        if status is not None:
            values = [status] if isinstance(status, str) else list(status)
            statuses = tuple(validate_status(s) for s in values)
        else:
            statuses = ("active",)
            if include_superseded:
                statuses += ("superseded",)
            if include_archived:
                statuses += ("archived",)
        provenances: tuple[str, ...] = ()
        if provenance is not None:
            values = [provenance] if isinstance(provenance, str) else list(provenance)
            provenances = tuple(validate_provenance(p) for p in values)
        return Filters(
            project=validate_project(project),
            include_global=include_global,
            types=validate_types(types),
            tags=validate_tags(tags),
            files=validate_files(files),
            since=validate_datetime("since", since),
            until=validate_datetime("until", until),
            statuses=statuses,
            provenances=provenances,
            pinned=pinned,
        )

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        files: Any = None,
        filters: Filters | None = None,
        pools: str = "hybrid",
        rerank: bool = True,
        caller: str | None = None,
        **filter_args: Any,
    ) -> retrieval.SearchResponse:
        """Hybrid search. `caller` ("hook", "mcp", "api", …) marks recalls for the audit log."""
        if not isinstance(query, str):
            raise ValidationError("query", "must be text")
        if len(query) > 10_000:
            raise ValidationError("query", "is longer than 10000 characters")
        require_unicode("query", query)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
            raise ValidationError("k", f"must be a whole number from 1 to 1000, got {k!r}")
        if pools not in ("hybrid", "keyword", "vector"):
            raise ValidationError("pools", "use one of: hybrid, keyword, vector")
        if filters is None:
            filters = self.filters(**filter_args)
        boost_files = validate_files(files)
        response = retrieval.search(
            self.store,
            self.embedder,
            redact(query).text,
            filters,
            k=k,
            now=self.clock(),
            files=boost_files or filters.files,
            weights=self.weights,
            pools=pools,
            rerank=rerank,
        )
        if self.vector_note:
            response.notes.append(self.vector_note)
        if caller is not None:
            self._record_recall(caller, query, response)
        return response

    def recall_for_prompt(
        self, prompt: str, project: str | None = None,
        exclude: set[str] | frozenset[str] = frozenset(),
    ) -> list[prompt_recall.Recalled]:
        """The few memories a prompt clearly earns (prompt_recall.py), best first."""
        return prompt_recall.select(self, prompt, project, exclude)

    def _record_recall(self, caller: str, query: str, response: retrieval.SearchResponse) -> None:
        """Extension point: the lifecycle layer logs recalls here (never affects ranking)."""

    def _after_save(self, results: Sequence[SaveResult]) -> None:
        """Extension point: the lifecycle layer schedules upkeep here, off the critical path."""

    def list(
        self, *, limit: int = 50, offset: int = 0, order: str = "newest", **filter_args: Any
    ) -> list[Memory]:
        if order not in ("newest", "oldest", "updated", "importance", "accessed"):
            raise ValidationError(
                "order", "use one of: newest, oldest, updated, importance, accessed"
            )
        for name, value in (("limit", limit), ("offset", offset)):
            validate_count(name, value)
        return self.store.list(self.filters(**filter_args), min(limit, 10_000), offset, order)

    def count(self, **filter_args: Any) -> int:
        return self.store.count(self.filters(**filter_args))

    def history(self, memory_id: str) -> list[Memory]:
        """The whole version chain, oldest first, whichever version is asked for."""
        memory = self.resolve(memory_id)
        chain = [memory]
        seen = {memory.id}
        current = memory
        while current.supersedes and current.supersedes not in seen:
            previous = self.store.get(current.supersedes)
            if previous is None:
                break
            chain.insert(0, previous)
            seen.add(previous.id)
            current = previous
        current = memory
        while current.superseded_by and current.superseded_by not in seen:
            following = self.store.get(current.superseded_by)
            if following is None:
                break
            chain.append(following)
            seen.add(following.id)
            current = following
        return chain

    def stats(self) -> dict[str, Any]:
        stats = self.store.stats()
        stats["embedder"] = self.store.get_meta("embedder")
        stats["embedder_loaded"] = self._embedder.name if self._embedder is not None else None
        stats["vectors_enabled"] = self.vectors_enabled
        if self.vector_note:
            stats["note"] = self.vector_note
        return stats

    # --- writing ----------------------------------------------------------------------

    def _prepare(self, data: dict[str, Any], *, now: datetime) -> tuple[Memory, tuple[str, ...]]:
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
        memory = Memory(
            id=memory_id or new_id(),
            content=content.text,
            type=validate_type(data.get("type")),
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
        )
        return memory, tuple(dict.fromkeys(kinds))

    @staticmethod
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

    @staticmethod
    def embedding_text(memory: Memory) -> str:
        """The text a memory's vector is made from."""
        parts = [memory.content]
        if memory.problem:
            parts.append(f"Problem: {memory.problem}")
        if memory.solution:
            parts.append(f"Solution: {memory.solution}")
        return "\n".join(parts)

    def save(self, content: str, **fields: Any) -> SaveResult:
        """Remember one thing: redacted, deduplicated, linked to what it supersedes."""
        return self._save_batch([{"content": content, **fields}])[0]

    def save_many(self, records: Sequence[dict[str, Any]]) -> list[SaveResult]:
        """Several saves sharing one embedding batch and one transaction."""
        return self._save_batch(list(records))

    def _save_batch(self, records: list[dict[str, Any]], *, dedup: bool = True) -> list[SaveResult]:
        now = self.clock()
        prepared = [self._prepare(dict(r), now=now) for r in records]
        for memory, _ in prepared:
            if memory.supersedes is not None:
                self._check_supersedable(memory.supersedes)
        vectors = self.embed_texts([self.embedding_text(m) for m, _ in prepared])
        results: list[SaveResult] = []
        with self.store.transaction():
            neighbours = _Neighbours(self.store, [m for m, _ in prepared], vectors)
            for i, (memory, kinds) in enumerate(prepared):
                vector = None if vectors is None else vectors[i]
                result = self._save_one(memory, kinds, vector, dedup=dedup, hits=neighbours.of(i))
                neighbours.saved(i, result)
                results.append(result)
        self._after_save(results)
        return results

    def _check_supersedable(self, target_id: str) -> Memory:
        target = self.resolve(target_id)
        if target.status == "superseded":
            raise ConflictError(
                f"memory {target.id} is already superseded by {target.superseded_by}; "
                "supersede the newest version instead"
            )
        return target

    def _save_one(
        self,
        memory: Memory,
        kinds: tuple[str, ...],
        vector: np.ndarray | None,
        *,
        dedup: bool,
        hits: list[Candidate] | None = None,
    ) -> SaveResult:
        clash = self.store.get(memory.id)
        if clash is not None:  # an imported id that is taken: same text is a duplicate
            if (
                dedup
                and memory.status == "active"
                and normalize_for_dedup(clash.content) == normalize_for_dedup(memory.content)
            ):
                return self._merge_duplicate(clash, memory, kinds)
            memory = memory.evolve(id=new_id())
        target = None
        if memory.supersedes is not None:
            target = self._check_supersedable(memory.supersedes)
            memory = memory.evolve(supersedes=target.id)
        conflicts: list[Conflict] = []
        if dedup and memory.status == "active":
            existing = self.store.find_by_norm(normalize_for_dedup(memory.content), memory.project)
            if existing is not None and (target is None or existing.id != target.id):
                return self._merge_duplicate(existing, memory, kinds)
            if vector is not None:
                if hits is None:
                    hits = self.store.nearest_in_project(
                        vector[None, :], [memory.project], CONFLICT_SIMILARITY, 8
                    )[0]
                others = self.store.get_many([hit.memory_id for hit in hits])
                for hit in hits:
                    other = others.get(hit.memory_id)
                    if other is None or other.status != "active" or other.project != memory.project:
                        continue
                    if target is not None and other.id == target.id:
                        continue
                    distinct = distinguishing(other.content, memory.content)
                    if hit.score >= DUPLICATE_SIMILARITY and not distinct:
                        return self._merge_duplicate(other, memory, kinds)
                    if other.type == memory.type:
                        conflicts.append(Conflict(other, hit.score))
        self.store.insert(memory, self.index_terms_of(memory), vector)
        if target is not None:
            self.store.update(
                target.evolve(status="superseded", superseded_by=memory.id, updated_at=self.clock())
            )
        return SaveResult(memory, False, tuple(conflicts[:3]), kinds)

    def _merge_duplicate(self, existing: Memory, new: Memory, kinds: tuple[str, ...]) -> SaveResult:
        tags = merge_unique(existing.tags, new.tags)
        files = merge_unique(existing.files, new.files)
        if tags != existing.tags or files != existing.files:
            existing = existing.evolve(tags=tags, files=files, updated_at=self.clock())
            self.store.update(existing, self.index_terms_of(existing))
        return SaveResult(existing, True, (), kinds)

    def update(
        self,
        memory_id: str,
        *,
        in_place: bool = False,
        **changes: Any,
    ) -> Memory:
        """Change a memory. New content makes a new version unless `in_place` (typo fixes).

        Returns the memory as it now stands: the new version, or the same id edited.
        """
        allowed = UPDATABLE_FIELDS
        unknown = sorted(set(changes) - allowed)
        if unknown:
            raise ValidationError(
                unknown[0], f"cannot be updated; updatable: {', '.join(sorted(allowed))}"
            )
        old = self.resolve(memory_id)
        data = old.to_dict()
        data.pop("layer")
        data.update({key: value for key, value in changes.items() if value is not None})
        if "project" in changes and changes["project"] == "":
            data["project"] = None
        now = self.clock()
        candidate, kinds = self._prepare(data, now=old.created_at)
        content_changed = normalize_for_dedup(candidate.content) != normalize_for_dedup(
            old.content
        ) or (candidate.problem, candidate.solution) != (old.problem, old.solution)
        if content_changed and not in_place:
            if old.status != "active":
                raise ConflictError(
                    f"memory {old.id} is {old.status}; only an active memory gets new versions"
                    + (f" (the newest is {old.superseded_by})" if old.superseded_by else "")
                )
            new = candidate.evolve(
                id=new_id(),
                supersedes=old.id,
                superseded_by=None,
                status="active",
                created_at=now,
                updated_at=now,
                access_count=0,
                last_accessed_at=None,
            )
            vectors = self.embed_texts([self.embedding_text(new)])
            with self.store.transaction():
                self._unchanged_since(old)
                vector = None if vectors is None else vectors[0]
                self.store.insert(new, self.index_terms_of(new), vector)
                self.store.update(
                    old.evolve(status="superseded", superseded_by=new.id, updated_at=now)
                )
            return new
        edited = candidate.evolve(updated_at=now)
        vectors = self.embed_texts([self.embedding_text(edited)]) if content_changed else None
        vector = None if vectors is None else vectors[0]
        with self.store.transaction():
            self._unchanged_since(old)
            self.store.update(edited, self.index_terms_of(edited), vector)
        return edited

    def _unchanged_since(self, read: Memory) -> None:
        """Inside a write transaction: the memory is still as this edit read it.

        Another process may have edited it between the read and the write (writes are
        serialised, reads are not); applying this edit anyway would silently undo that
        one, or fork the version chain.
        """
        current = self.store.get(read.id)
        if current is None:
            raise NotFoundError(f"no memory with id {read.id!r}")
        if (current.status, current.updated_at, current.content) != (
            read.status, read.updated_at, read.content
        ):
            newest = f" (the newest is {current.superseded_by})" if current.superseded_by else ""
            raise ConflictError(f"memory {read.id} changed while this edit was being made"
                                f"{newest}; read it again and retry")

    def _set_status(self, memory_id: str, status: str, allowed_from: tuple[str, ...]) -> Memory:
        memory = self.resolve(memory_id)
        if memory.status == status:
            return memory
        if memory.status not in allowed_from:
            raise ConflictError(f"memory {memory.id} is {memory.status}; cannot make it {status}")
        changed = memory.evolve(status=status, updated_at=self.clock())
        self.store.update(changed)
        return changed

    def archive(self, memory_id: str) -> Memory:
        return self._set_status(memory_id, "archived", ("active", "deleted"))

    def archive_many(self, memory_ids: Sequence[str]) -> list[Memory]:
        """Archive every memory named, or none: an id that is invalid, unknown or cannot be
        archived leaves the others as they were (one transaction)."""
        with self.store.transaction():
            return [self.archive(memory_id) for memory_id in memory_ids]

    def restore(self, memory_id: str) -> Memory:
        return self._set_status(memory_id, "active", ("archived", "deleted"))

    def delete(self, memory_id: str, *, hard: bool = False) -> Memory:
        """Soft delete hides a memory (restorable); hard delete removes it for good.

        Hard-deleting the newest version re-activates its predecessor; deleting a middle
        version joins its neighbours, so a chain never breaks or loops.
        """
        if not hard:
            return self._set_status(memory_id, "deleted", ("active", "archived"))
        memory = self.resolve(memory_id)
        now = self.clock()
        with self.store.transaction():
            previous = self.store.get(memory.supersedes) if memory.supersedes else None
            following = self.store.get(memory.superseded_by) if memory.superseded_by else None
            if previous is not None and following is not None:
                self.store.update(previous.evolve(superseded_by=following.id, updated_at=now))
                self.store.update(following.evolve(supersedes=previous.id, updated_at=now))
            elif previous is not None and previous.superseded_by == memory.id:
                self.store.update(
                    previous.evolve(status="active", superseded_by=None, updated_at=now)
                )
            elif following is not None:
                self.store.update(following.evolve(supersedes=None, updated_at=now))
            self.store.delete(memory.id)
        return memory

    def pin(self, memory_id: str, pinned: bool = True) -> Memory:
        memory = self.resolve(memory_id)
        changed = memory.evolve(pinned=pinned, updated_at=self.clock())
        self.store.update(changed)
        return changed

    def unpin(self, memory_id: str) -> Memory:
        return self.pin(memory_id, False)

    def _nudge(self, memory_id: str, step: float) -> Memory:
        memory = self.resolve(memory_id)
        now = self.clock()
        meta = dict(memory.meta)
        meta["confirmed_at" if step > 0 else "rejected_at"] = to_iso(now)
        changed = memory.evolve(
            confidence=round(min(1.0, max(0.0, memory.confidence + step)), 4),
            meta=meta,
            updated_at=now,
        )
        self.store.update(changed)
        return changed

    def confirm(self, memory_id: str) -> Memory:
        """Someone vouched for it: more confidence, and its decay clock restarts."""
        return self._nudge(memory_id, CONFIRM_STEP)

    def reject(self, memory_id: str) -> Memory:
        return self._nudge(memory_id, -2 * CONFIRM_STEP)

    # --- agent-facing helpers -------------------------------------------------------

    def context(
        self,
        *,
        project: str | None = None,
        task: str | None = None,
        files: Any = None,
        budget: int = 1500,
        exclude: Iterable[str] = (),
    ) -> Any:
        """A context pack for a project/task within a token budget (see context.py)."""
        from . import context

        if isinstance(budget, bool) or not isinstance(budget, int) or not 50 <= budget <= 50_000:
            raise ValidationError(
                "budget", f"must be a whole number of tokens from 50 to 50000, got {budget!r}"
            )
        if task is not None and not isinstance(task, str):
            raise ValidationError("task", "must be text")
        return context.build(
            self,
            project=validate_project(project),
            task=task,
            files=list(validate_files(files)),
            budget=budget,
            exclude=set(exclude),
        )

    def checkpoint(
        self,
        summary: str,
        *,
        project: str | None = None,
        problem: str | None = None,
        solution: str | None = None,
        files: Any = None,
        concepts: Any = None,
        session_id: str | None = None,
        provenance: str = "checkpoint",
    ) -> SaveResult:
        """Save a task summary. One per session: a second checkpoint of the same session
        replaces the first in place instead of piling up."""
        meta = {"session_id": session_id} if session_id else {}
        fields = {
            "type": "task_summary",
            "project": project,
            "problem": problem,
            "solution": solution,
            "files": files,
            "tags": concepts,
            "provenance": provenance,
            "meta": meta,
        }
        if session_id:
            for existing in self.store.list(
                Filters(
                    project=validate_project(project), include_global=False, types=("task_summary",)
                ),
                limit=500,
            ):
                if existing.meta.get("session_id") == session_id:
                    updated = self.update(
                        existing.id,
                        in_place=True,
                        content=summary,
                        problem=problem,
                        solution=solution,
                        files=merge_unique(existing.files, validate_files(files)),
                        tags=merge_unique(existing.tags, validate_tags(concepts)),
                    )
                    return SaveResult(updated, duplicate=True)
        return self.save(summary, **fields)

    @staticmethod
    def instructions() -> str:
        """What any agent should be told about using this memory (`engram prompt`)."""
        from .context import INSTRUCTIONS

        return INSTRUCTIONS

    # --- exchange ---------------------------------------------------------------------

    def export(self, fmt: str = "json", **filter_args: Any) -> str:
        if "status" not in filter_args:
            filter_args["status"] = ("active", "superseded", "archived", "deleted")
        memories = list(self.store.list(self.filters(**filter_args), limit=10**9, order="oldest"))
        return exchange.render(memories, fmt)

    def import_records(self, records: Iterable[tuple[int, Any]]) -> ImportResult:
        """Import (line number, record) pairs; bad records are reported, good ones kept.

        Records keep their ids, timestamps, statuses and version links, so an export
        imported into an empty store is the same store.
        """
        result = ImportResult()
        batch: list[tuple[int, Memory, tuple[str, ...]]] = []

        def fail(line: int, error: str) -> None:
            result.errors.append({"line": line, "error": error})
            result.ids.append(None)

        def flush() -> None:
            if not batch:
                return
            for saved in self._import_batch([(m, kinds) for _, m, kinds in batch]):
                result.ids.append(saved.memory.id)
                if saved.duplicate:
                    result.duplicates += 1
                else:
                    result.imported += 1
            batch.clear()

        now = self.clock()
        for line, record in records:
            error = None
            if isinstance(record, exchange.BadRecord):
                error = record.error
            elif not isinstance(record, dict):
                error = f"a record must be a JSON object, not {_json_kind(record)}"
            else:
                try:
                    memory, kinds = self._prepare(dict(record), now=now)
                except ValidationError as exc:
                    error = str(exc)
                except (ValueError, TypeError, OverflowError, RecursionError) as exc:
                    # whatever one record holds, the others still import
                    error = f"cannot read this record ({type(exc).__name__}: {exc})"[:300]
            if error is not None:
                flush()  # keeps `ids` in input order
                fail(line, error)
                continue
            batch.append((line, memory, kinds))
            if len(batch) >= IMPORT_BATCH:
                flush()
        flush()
        return result

    def _import_batch(self, prepared: list[tuple[Memory, tuple[str, ...]]]) -> list[SaveResult]:
        """Imported version links are kept as written, not re-validated as a new save."""
        vectors = self.embed_texts([self.embedding_text(m) for m, _ in prepared])
        results = []
        with self.store.transaction():
            neighbours = _Neighbours(self.store, [m for m, _ in prepared], vectors)
            for i, (memory, kinds) in enumerate(prepared):
                vector = None if vectors is None else vectors[i]
                links = (memory.supersedes, memory.superseded_by)
                plain = memory.evolve(supersedes=None)
                saved = self._save_one(plain, kinds, vector, dedup=True, hits=neighbours.of(i))
                neighbours.saved(i, saved)
                if not saved.duplicate and links != (None, None):
                    fixed = saved.memory.evolve(supersedes=links[0], superseded_by=links[1])
                    self.store.update(fixed)
                    saved = SaveResult(fixed, False, saved.conflicts, saved.redacted)
                results.append(saved)
        self._after_save(results)
        return results

    def reindex(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Re-embed every memory with the current embedder and rebuild keyword terms."""
        memories = list(self.store.iter_all())
        self.store.clear_vectors()
        if self._embedder is not None:
            self.store.set_meta("embedder", self._model_id())
        else:
            self.store.set_meta("embedder", None)
        self.vectors_enabled = self._embedder is not None
        self.vector_note = None
        self.reembed_due = False
        done = 0
        for start in range(0, len(memories), EMBED_BATCH):
            chunk = memories[start : start + EMBED_BATCH]
            vectors = self.embed_texts([self.embedding_text(m) for m in chunk])
            with self.store.transaction():
                for i, memory in enumerate(chunk):
                    self.store.update(
                        memory, self.index_terms_of(memory), None if vectors is None else vectors[i]
                    )
            done += len(chunk)
            if progress:
                progress(done, len(memories))
        return done


# Capabilities of other layers join the service as mixins, each in its own module, so
# every adapter reaches them through the one service object.
from .lifecycle import LifecycleMixin  # noqa: E402
from .review import ReviewMixin  # noqa: E402


class Engram(LifecycleMixin, ReviewMixin, EngramCore):
    """The service every adapter calls: core rules plus lifecycle and review."""
