"""The Engram service: every rule about memories, once, for every adapter.

The CLI, MCP server, REST API, hooks and dashboard parse input, call one method here
and render the result. Redaction, dedup, versioning, ranking and validation never
live in an adapter. The rules live in the modules beside this one (records, saving,
versions, importing, review) and in `engram.lifecycle`; `Engram` composes them and is
the one object adapters hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import exchange, prompt_recall, ranking, retrieval
from ..errors import ConflictError, NotFoundError, ValidationError
from ..lifecycle import Lifecycle, Report
from ..model import (
    Memory,
    merge_unique,
    require_unicode,
    to_iso,
    utcnow,
    validate_count,
    validate_datetime,
    validate_files,
    validate_id,
    validate_project,
    validate_provenance,
    validate_status,
    validate_tags,
    validate_types,
)
from ..redaction import redact
from ..store.base import Filters, Store
from . import importing, records, saving, versions
from .results import ImportResult, SaveResult
from .review import ConflictPair, Review, ReviewPage
from .users import Users, current_viewer, visible

if TYPE_CHECKING:
    import numpy as np

    from ..embedders import Embedder

CONFIRM_STEP = 0.1
EMBED_BATCH = 64


class Engram:
    """Long-term memory over one store. Thread-safe as far as the store is."""

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
        #: Consolidation, GC, forgetting, the recall log and upkeep (engram.lifecycle).
        self.lifecycle = Lifecycle(self)
        #: The owner's review of captured memories and possible conflicts (review.py).
        self.review = Review(self)
        #: Users of a shared server and their tokens (users.py).
        self.users = Users(self)

    # --- opening and closing -----------------------------------------------------------

    def close(self) -> None:
        self.lifecycle.close()
        self.store.close()

    def __enter__(self) -> Engram:
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

    def stored_as(self, text: str, project: str | None) -> Memory | None:
        """The active memory that already says `text` (as saving would dedupe it), if any."""
        from ..redaction import redact
        from ..text import normalize_for_dedup

        found = self.store.find_by_norm(normalize_for_dedup(redact(text).text),
                                        validate_project(project))
        return found if found is not None and found.status == "active" else None

    def resolve(self, memory_id: str) -> Memory:
        """Find a memory by id or by an unambiguous id prefix (git-style).

        Every method that takes an id comes through here: the id is checked before SQL.
        """
        memory_id = validate_id(memory_id)
        memory = self.store.get(memory_id)
        if memory is not None and visible(memory):
            return memory
        if len(memory_id) >= 4:
            matches = self.store.resolve_prefix(memory_id)
            if current_viewer() is not None:  # another user's personal memories stay unseen
                shown = self.store.get_many(matches)
                matches = [m for m in matches if m in shown and visible(shown[m])]
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
            viewer=current_viewer(),
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
        min_score: float | None = None,
        **filter_args: Any,
    ) -> retrieval.SearchResponse:
        """Hybrid search. `caller` ("hook", "mcp", "api", …) marks recalls for the audit log.

        Results far below the best are cut (retrieval.relevance_floor); `min_score` is an
        absolute floor instead, 0 to see every result up to k.
        """
        if not isinstance(query, str):
            raise ValidationError("query", "must be text")
        if len(query) > 10_000:
            raise ValidationError("query", "is longer than 10000 characters")
        require_unicode("query", query)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
            raise ValidationError("k", f"must be a whole number from 1 to 1000, got {k!r}")
        if pools not in ("hybrid", "keyword", "vector"):
            raise ValidationError("pools", "use one of: hybrid, keyword, vector")
        if min_score is not None and (
            isinstance(min_score, bool) or not isinstance(min_score, int | float)
            or not 0 <= min_score < float("inf")
        ):
            raise ValidationError("min_score", f"must be a number of 0 or more, got {min_score!r}")
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
            min_score=None if min_score is None else float(min_score),
        )
        if self.vector_note:
            response.notes.append(self.vector_note)
        if caller is not None:
            self.lifecycle.record_recall(caller, query, response)
        return response

    def recall_for_prompt(
        self, prompt: str, project: str | None = None,
        exclude: set[str] | frozenset[str] = frozenset(),
    ) -> list[prompt_recall.Recalled]:
        """The few memories a prompt clearly earns (prompt_recall.py), best first."""
        return prompt_recall.select(self, prompt, project, exclude)

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
        return versions.history(self, memory_id)

    def stats(self) -> dict[str, Any]:
        stats = self.store.stats()
        stats["embedder"] = self.store.get_meta("embedder")
        stats["embedder_loaded"] = self._embedder.name if self._embedder is not None else None
        stats["vectors_enabled"] = self.vectors_enabled
        if self.vector_note:
            stats["note"] = self.vector_note
        stats["health"] = self.lifecycle.health()
        return stats

    # --- writing ----------------------------------------------------------------------

    index_terms_of = staticmethod(records.index_terms_of)
    embedding_text = staticmethod(records.embedding_text)

    def save(self, content: str, **fields: Any) -> SaveResult:
        """Remember one thing: redacted, deduplicated, linked to what it supersedes."""
        return self.save_many([{"content": content, **fields}])[0]

    def save_many(self, records: Sequence[dict[str, Any]]) -> list[SaveResult]:
        """Several saves sharing one embedding batch and one transaction."""
        results = saving.save_batch(self, list(records))
        self.lifecycle.after_save(results)
        return results

    def update(self, memory_id: str, *, in_place: bool = False, **changes: Any) -> Memory:
        """Change a memory. New content makes a new version unless `in_place` (typo fixes).

        Returns the memory as it now stands: the new version, or the same id edited.
        """
        return versions.update(self, memory_id, in_place=in_place, changes=changes)

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
        memory = self.resolve(memory_id)
        if memory.status == "active":
            return memory
        if memory.status not in ("archived", "deleted"):
            raise ConflictError(f"memory {memory.id} is {memory.status}; cannot make it active")
        return versions.bring_back(self, memory)

    def delete(self, memory_id: str, *, hard: bool = False) -> Memory:
        """Soft delete hides a memory (restorable); hard delete removes it for good.

        Deleting the newest version either way makes the version it replaced current
        again; hard-deleting a middle version joins its neighbours, so a chain never breaks
        or loops.
        """
        if hard:
            return versions.hard_delete(self, memory_id)
        memory = self.resolve(memory_id)
        if memory.status == "deleted":
            return memory
        if memory.status not in ("active", "archived"):
            raise ConflictError(f"memory {memory.id} is {memory.status}; cannot make it deleted")
        return versions.set_newest_aside(self, memory, "deleted")

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
        from .. import context

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
                    project=validate_project(project), include_global=False,
                    types=("task_summary",), viewer=current_viewer(),
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
        from ..guidance import INSTRUCTIONS

        return INSTRUCTIONS

    # --- exchange ---------------------------------------------------------------------

    def export(self, fmt: str = "json", **filter_args: Any) -> str:
        if "status" not in filter_args:
            filter_args["status"] = ("active", "superseded", "archived", "deleted")
        memories = list(self.store.list(self.filters(**filter_args), limit=10**9, order="oldest"))
        return exchange.render(memories, fmt)

    def import_records(self, records: Iterable[tuple[int, Any]],
                       progress: Callable[[int], None] | None = None) -> ImportResult:
        """Import (line number, record) pairs; bad records are reported, good ones kept.

        Records keep their ids, timestamps, statuses and version links, so an export
        imported into an empty store is the same store. `progress(done)` follows it.
        """
        return importing.import_records(self, records, progress)

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
        importing.build_vector_lists(self, done)
        return done

    # --- lifecycle (engram.lifecycle) ---------------------------------------------------

    def consolidate(self, *, project: str | None = None, dry_run: bool = False,
                    similarity: float | None = None, min_age_days: float | None = None
                    ) -> Report:
        """Merge related aging episodes of one project and type (consolidation.py)."""
        return self.lifecycle.consolidate(project=project, dry_run=dry_run,
                                          similarity=similarity, min_age_days=min_age_days)

    def unconsolidate(self, memory_id: str) -> list[Memory]:
        """Restore a consolidation's sources exactly and remove the consolidated memory."""
        return self.lifecycle.unconsolidate(memory_id)

    def gc(self, *, dry_run: bool = False) -> Report:
        """Archive expired and decayed memories; merge duplicates (gc.py)."""
        return self.lifecycle.gc(dry_run=dry_run)

    def forget_sweep(self, *, dry_run: bool = False, threshold: float | None = None,
                     project: str | None = None) -> Report:
        """Archive memories whose forgetting risk is high (forgetting.py)."""
        return self.lifecycle.forget_sweep(dry_run=dry_run, threshold=threshold,
                                           project=project)

    def forgetting_risk(self, memory_id: str) -> dict[str, float]:
        return self.lifecycle.forgetting_risk(memory_id)

    def check_stale(self, *, repo: str | Path | None = None, project: str | None = None,
                    all_projects: bool = False, dry_run: bool = False) -> Report:
        """Mark memories naming files that changed or vanished in the repository."""
        return self.lifecycle.check_stale(repo=repo, project=project,
                                          all_projects=all_projects, dry_run=dry_run)

    def recalls(self, *, since: datetime | None = None, caller: str | None = None,
                limit: int = 100) -> list[dict[str, Any]]:
        """The recall log, newest first."""
        return self.lifecycle.recalls(since=since, caller=caller, limit=limit)

    def upkeep(self, trigger: str = "manual") -> dict[str, Any]:
        """Run GC and consolidation now and record the run (what automatic upkeep does)."""
        return self.lifecycle.upkeep(trigger)

    def upkeep_runs(self, limit: int = 10) -> list[dict[str, Any]]:
        return self.lifecycle.upkeep_runs(limit)

    def wait_for_upkeep(self, timeout: float | None = None) -> bool:
        """Wait for a background upkeep run of this process; True if none is running."""
        return self.lifecycle.wait_for_upkeep(timeout)

    # --- review (review.py) -----------------------------------------------------------

    def review_queue(self, limit: int = 50, offset: int = 0, *,
                     project: str | None = None) -> ReviewPage:
        """Memories hooks and checkpoints captured that the owner has not reviewed yet."""
        return self.review.review_queue(limit, offset, project=project)

    def mark_reviewed(self, memory_id: str, outcome: str = "reviewed") -> Memory:
        return self.review.mark_reviewed(memory_id, outcome)

    def approve(self, memory_id: str) -> Memory:
        """The owner vouches for a captured memory: more confidence, off the queue."""
        return self.review.approve(memory_id)

    def dismiss(self, memory_id: str) -> Memory:
        """The owner rejects a captured memory: archived (restorable), off the queue."""
        return self.review.dismiss(memory_id)

    def possible_conflicts(self, limit: int = 20, *, project: str | None = None,
                           scan: int = 100) -> list[ConflictPair]:
        """Pairs of active memories of one project and type whose meaning nearly matches."""
        return self.review.possible_conflicts(limit, project=project, scan=scan)

    def supersede(self, old_id: str, new_id: str) -> Memory:
        """Link two existing memories as versions: `new` replaces `old`."""
        return self.review.supersede(old_id, new_id)

    def keep_both(self, first_id: str, second_id: str) -> tuple[Memory, Memory]:
        """Two similar memories are both right: stop flagging the pair."""
        return self.review.keep_both(first_id, second_id)

    def overview(self, *, weeks: int = 26, top: int = 10) -> dict[str, Any]:
        """Numbers for the dashboard's overview: growth, recall and decay at a glance."""
        return self.review.overview(weeks=weeks, top=top)
