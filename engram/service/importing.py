"""Importing records from an export or a shared file: bad records are reported with
their line, good ones kept, whatever the bad ones hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .. import exchange
from ..errors import ValidationError
from ..model import Memory
from .records import embedding_text, prepare
from .results import ImportResult, SaveResult
from .saving import Neighbours, save_one

if TYPE_CHECKING:
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
    """
    result = ImportResult()
    size = IMPORT_BATCH if progress is None else PROGRESS_BATCH
    batch: list[tuple[int, Memory, tuple[str, ...]]] = []

    def fail(line: int, error: str) -> None:
        result.errors.append({"line": line, "error": error})
        result.ids.append(None)

    def flush() -> None:
        if not batch:
            return
        for saved in _import_batch(service, [(m, kinds) for _, m, kinds in batch]):
            result.ids.append(saved.memory.id)
            if saved.duplicate:
                result.duplicates += 1
            else:
                result.imported += 1
        batch.clear()
        if progress is not None:
            progress(len(result.ids))

    now = service.clock()
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
            flush()  # keeps `ids` in input order
            fail(line, error)
            continue
        batch.append((line, memory, kinds))
        if len(batch) >= size:
            flush()
    flush()
    return result


def _import_batch(
    service: Engram, prepared: list[tuple[Memory, tuple[str, ...]]]
) -> list[SaveResult]:
    """Imported version links are kept as written, not re-validated as a new save."""
    # A record whose id the store already holds is that memory (an export imported
    # again, superseded versions included): nothing new, whatever its text says now.
    present = service.store.get_many([m.id for m, _ in prepared])
    vectors = service.embed_texts([embedding_text(m) for m, _ in prepared
                                   if m.id not in present]) if len(present) < len(
        prepared) else None
    results = []
    with service.store.transaction():
        fresh = [(m, k) for m, k in prepared if m.id not in present]
        neighbours = Neighbours(service.store, [m for m, _ in fresh], vectors)
        for i, (memory, kinds) in enumerate(fresh):
            vector = None if vectors is None else vectors[i]
            links = (memory.supersedes, memory.superseded_by)
            plain = memory.evolve(supersedes=None)
            saved = save_one(service, plain, kinds, vector, dedup=True, hits=neighbours.of(i))
            neighbours.saved(i, saved)
            if not saved.duplicate and links != (None, None):
                fixed = saved.memory.evolve(supersedes=links[0], superseded_by=links[1])
                service.store.update(fixed)
                saved = SaveResult(fixed, False, saved.conflicts, saved.redacted)
            results.append(saved)
    service.lifecycle.after_save(results)
    saved_in_order = iter(results)  # one result per fresh record, in input order
    return [SaveResult(present[m.id], duplicate=True) if m.id in present
            else next(saved_in_order) for m, _ in prepared]
