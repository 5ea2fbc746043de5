"""Importing records from an export or a shared file: bad records are reported with
their line, good ones kept, whatever the bad ones hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from .. import exchange
from ..errors import ValidationError
from ..model import Memory
from .records import embedding_text, prepare
from .results import ImportResult, SaveResult
from .saving import BatchReads, Neighbours, save_one

if TYPE_CHECKING:
    import numpy as np

    from .engram import Engram

#: Records per import transaction: embedded, deduplicated with one scan of the rows of
#: the batch's projects, then written. A bigger batch shares that scan among more records.
IMPORT_BATCH = 1024
#: Records handled between two progress reports when someone watches (embedding is most of
#: an import's time, so a terminal sees the bar move every second or two).
PROGRESS_BATCH = 128


def _json_kind(value: Any) -> str:
    kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")


def import_records(service: Engram, records: Iterable[tuple[int, Any]],
                   progress: Callable[[int], None] | None = None) -> ImportResult:
    """Import (line number, record) pairs; bad records are reported, good ones kept.

    Records keep their ids, timestamps, statuses and version links, so an export
    imported into an empty store is the same store. `progress(done)` is told how many
    records were handled so far, after each batch.

    The next batch is embedded on a second thread while this one is written: the model
    and the database (on PostgreSQL, its HNSW upkeep) each keep a core busy, instead of
    taking turns.
    """
    result = ImportResult()
    size = IMPORT_BATCH if progress is None else PROGRESS_BATCH
    batch: list[tuple[int, Memory, tuple[str, ...]]] = []
    queued: list[_Batch] = []  # at most one: embedding while the one before is written

    def fail(line: int, error: str) -> None:
        result.errors.append({"line": line, "error": error})
        result.ids.append(None)

    def write(job: _Batch) -> None:
        for saved in _import_batch(service, job):
            result.ids.append(saved.memory.id)
            if saved.duplicate:
                result.duplicates += 1
            else:
                result.imported += 1
        if progress is not None:
            progress(len(result.ids))

    def flush(drain: bool = False) -> None:
        if batch:
            queued.append(_Batch(service, pool, [(m, kinds) for _, m, kinds in batch]))
            batch.clear()
        while len(queued) > (0 if drain else 1):
            write(queued.pop(0))

    now = service.clock()
    with ThreadPoolExecutor(1, thread_name_prefix="engram-embed") as pool:
        try:
            for line, record in records:
                error = None
                if isinstance(record, exchange.BadRecord):
                    error = record.error
                elif not isinstance(record, dict):
                    error = f"a record must be a JSON object, not {_json_kind(record)}"
                else:
                    try:
                        memory, kinds = prepare(dict(record), now=now)
                    except ValidationError as exc:
                        error = str(exc)
                    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
                        # whatever one record holds, the others still import
                        error = f"cannot read this record ({type(exc).__name__}: {exc})"[:300]
                if error is not None:
                    flush(drain=True)  # keeps `ids` in input order
                    fail(line, error)
                    continue
                batch.append((line, memory, kinds))
                if len(batch) >= size:
                    flush()
            flush(drain=True)
        finally:
            for job in queued:
                job.cancel()
    build_vector_lists(service, result.imported)
    return result


def build_vector_lists(service: Engram, written: int) -> None:
    """A bulk write (an import, a reindex) builds a large SQLite store's approximate
    lists now, in the process that wrote, rather than leaving the build to a search."""
    build = getattr(service.store, "build_vector_lists", None)
    if build is not None and written and service.embedder is not None:
        build(written)


class _Batch:
    """Records of one import transaction, their vectors under way on the embedding thread.

    A record whose id the store already holds is that memory (an export imported again,
    superseded versions included): nothing new, whatever its text says now, so it is not
    embedded. Which ids are held is asked again when the batch is written, after the
    batch before it.
    """

    def __init__(self, service: Engram, pool: ThreadPoolExecutor,
                 prepared: list[tuple[Memory, tuple[str, ...]]]) -> None:
        self.prepared = prepared
        self.pool = pool
        self.embedder = service.embedder
        present = service.store.get_many([m.id for m, _ in prepared])
        #: Positions in `prepared` of the records being embedded.
        self.ahead = [i for i, (m, _) in enumerate(prepared) if m.id not in present]
        self.future: Future[Any] | None = None
        if self.embedder is not None and self.ahead:
            texts = [embedding_text(prepared[i][0]) for i in self.ahead]
            self.future = pool.submit(self.embedder.embed, texts)

    def cancel(self) -> None:
        if self.future is not None:
            self.future.cancel()

    def vectors(self, service: Engram, fresh: list[int]) -> np.ndarray | None:
        """The vectors of the records at positions `fresh`, in order (None when vectors
        are off)."""
        import numpy as np

        if self.embedder is None or not fresh:
            return None
        done = dict(zip(self.ahead, self.future.result(), strict=True)) if self.future else {}
        missing = [i for i in fresh if i not in done]
        if missing:  # held when the batch was read ahead, deleted since
            texts = [embedding_text(self.prepared[i][0]) for i in missing]
            done.update(zip(missing, self.pool.submit(self.embedder.embed, texts).result(),
                            strict=True))
        if service.store.get_meta("embedder") is None:
            service.store.set_meta("embedder", service._model_id())
        return np.stack([done[i] for i in fresh])


def _import_batch(service: Engram, job: _Batch) -> list[SaveResult]:
    """Imported version links are kept as written, not re-validated as a new save."""
    prepared = job.prepared
    results = []
    with service.store.transaction():
        present = service.store.get_many([m.id for m, _ in prepared])
        positions = [i for i, (m, _) in enumerate(prepared) if m.id not in present]
        fresh = [prepared[i] for i in positions]
        vectors = job.vectors(service, positions)
        neighbours = Neighbours(service.store, [m for m, _ in fresh], vectors)
        reads = BatchReads(service.store, [m for m, _ in fresh], neighbours)
        for i, (memory, kinds) in enumerate(fresh):
            vector = None if vectors is None else vectors[i]
            links = (memory.supersedes, memory.superseded_by)
            plain = memory.evolve(supersedes=None)
            saved = save_one(service, plain, kinds, vector, dedup=True, hits=neighbours.of(i),
                             reads=reads)
            neighbours.saved(i, saved)
            if not saved.duplicate and links != (None, None):
                fixed = saved.memory.evolve(supersedes=links[0], superseded_by=links[1])
                service.store.update(fixed)
                reads.wrote(fixed)
                saved = SaveResult(fixed, False, saved.conflicts, saved.redacted)
            results.append(saved)
    service.lifecycle.after_save(results)
    saved_in_order = iter(results)  # one result per fresh record, in input order
    return [SaveResult(present[m.id], duplicate=True) if m.id in present
            else next(saved_in_order) for m, _ in prepared]
