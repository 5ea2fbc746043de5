"""`engram migrate --to TARGET`: copy a whole store to another engine, and prove it.

Every memory is copied as it stands (all statuses, ids, version links, timestamps, access
statistics, meta), with its vector as stored, so nothing is re-embedded or deduplicated;
the recall log follows. The copy goes through the Store protocol only, so it works from
any engine to any other (SQLite file ⇄ PostgreSQL URL). It refuses a target that already
holds memories, and ends by comparing counts and checksums of both sides.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import StoreError, ValidationError
from .model import from_iso
from .store.base import Filters, RecallEntry

if TYPE_CHECKING:
    from .service import Engram

BATCH = 500
_ALL = Filters(statuses=())
#: Store metadata that describes the memories and must travel with them (which model
#: made the vectors). Engine bookkeeping (index marks, dimensions) stays behind.
_CARRIED_META = ("embedder",)


@dataclass
class MigrationReport:
    source: str
    target: str
    memories: dict[str, int] = field(default_factory=dict)  # by status
    vectors: int = 0
    recalls: int = 0
    users: int = 0
    checksums: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "memories": self.memories,
                "vectors": self.vectors, "recalls": self.recalls, "users": self.users,
                "checksums": self.checksums}


def _fingerprint(service: Engram) -> tuple[Counter[str], int, str, str]:
    """(memories by status, vectors, checksum of every memory's fields, of the vectors)."""
    import numpy as np

    rows, vectors = hashlib.sha256(), hashlib.sha256()
    statuses: Counter[str] = Counter()
    count = 0
    memories = sorted(service.store.iter_all(BATCH), key=lambda m: m.id)
    for start in range(0, len(memories), BATCH):
        chunk = memories[start:start + BATCH]
        stored = service.store.vectors_of([m.id for m in chunk])
        for memory in chunk:
            statuses[memory.status] += 1
            rows.update(json.dumps(memory.to_dict(), sort_keys=True, default=str).encode())
            vector = stored.get(memory.id)
            if vector is not None:
                count += 1
                # float16: SQLite keeps vectors at half precision, so that is what must match
                vectors.update(memory.id.encode() + np.asarray(vector, np.float16).tobytes())
    return statuses, count, rows.hexdigest()[:16], vectors.hexdigest()[:16]


def migrate(source: Engram, target: Engram) -> MigrationReport:
    """Copy everything in `source` into the empty `target`, then verify the copy."""
    if target.store.count(_ALL):
        raise ValidationError("to", f"{target.path} already holds memories; migrate into an"
                                    " empty store")
    if source.path == target.path:
        raise ValidationError("to", "the target is the store itself")
    for key in _CARRIED_META:
        value = source.store.get_meta(key)
        if value is not None:
            target.store.set_meta(key, value)
    batch = []
    for memory in source.store.iter_all(BATCH):
        batch.append(memory)
        if len(batch) >= BATCH:
            _copy(source, target, batch)
            batch = []
    _copy(source, target, batch)
    entries = list(reversed(source.store.recalls(None, None, 10_000_000)))
    with target.store.transaction():
        for entry in entries:
            target.store.log_recall(RecallEntry(
                from_iso(entry["at"]) or source.clock(), entry["caller"], entry["query"],
                entry["mode"], entry["ids"], entry["scores"], entry["elapsed_ms"]), None)
    users = source.store.user_records()  # tokens travel as their hashes: they keep working
    for name, role, token_hash, created in users:
        target.store.add_user(name, role, token_hash, created)
    report = MigrationReport(source.path, target.path, recalls=target.store.count_recalls(),
                             users=len(target.store.users()))
    before, after = _fingerprint(source), _fingerprint(target)
    if before != after or report.recalls != len(entries) or report.users != len(users):
        raise StoreError(f"the copy in {target.path} does not match its source"
                         f" ({before} != {after}); the source is unchanged")
    report.memories = dict(after[0])
    report.vectors = after[1]
    report.checksums = {"memories": after[2], "vectors": after[3]}
    return report


def _copy(source: Engram, target: Engram, memories: list[Any]) -> None:
    if not memories:
        return
    vectors = source.store.vectors_of([m.id for m in memories])
    with target.store.transaction():
        for memory in memories:
            target.store.insert(memory, target.index_terms_of(memory), vectors.get(memory.id))
