"""Version chains: edits make new versions, and a chain never breaks or loops.

A memory's text is never edited away: new content supersedes the old version, which
stays readable in `history`. Writes are serialised but reads are not, so an edit checks
inside its transaction that the memory is still as it read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ConflictError, NotFoundError, ValidationError
from ..identity import new_id
from ..model import Memory
from ..text import normalize_for_dedup
from .records import UPDATABLE_FIELDS, embedding_text, index_terms_of, prepare
from .users import visible

if TYPE_CHECKING:
    from .engram import Engram


def update(service: Engram, memory_id: str, *, in_place: bool, changes: dict[str, Any]) -> Memory:
    """Change a memory. New content makes a new version unless `in_place` (typo fixes).

    Returns the memory as it now stands: the new version, or the same id edited.
    """
    allowed = UPDATABLE_FIELDS
    unknown = sorted(set(changes) - allowed)
    if unknown:
        raise ValidationError(
            unknown[0], f"cannot be updated; updatable: {', '.join(sorted(allowed))}"
        )
    old = service.resolve(memory_id)
    data = old.to_dict()
    data.pop("layer")
    data.update({key: value for key, value in changes.items() if value is not None})
    if "project" in changes and changes["project"] == "":
        data["project"] = None
    now = service.clock()
    candidate, kinds = prepare(data, now=old.created_at)
    candidate = candidate.evolve(owner=old.owner)  # an edit never changes who saved it
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
        vectors = service.embed_texts([embedding_text(new)])
        with service.store.transaction():
            unchanged_since(service, old)
            vector = None if vectors is None else vectors[0]
            service.store.insert(new, index_terms_of(new), vector)
            service.store.update(
                old.evolve(status="superseded", superseded_by=new.id, updated_at=now)
            )
        return new
    edited = candidate.evolve(updated_at=now)
    vectors = service.embed_texts([embedding_text(edited)]) if content_changed else None
    vector = None if vectors is None else vectors[0]
    with service.store.transaction():
        unchanged_since(service, old)
        service.store.update(edited, index_terms_of(edited), vector)
    return edited


def unchanged_since(service: Engram, read: Memory) -> None:
    """Inside a write transaction: the memory is still as this edit read it.

    Another process may have edited it between the read and the write (writes are
    serialised, reads are not); applying this edit anyway would silently undo that
    one, or fork the version chain.
    """
    current = service.store.get(read.id)
    if current is None:
        raise NotFoundError(f"no memory with id {read.id!r}")
    if (current.status, current.updated_at, current.content) != (
        read.status, read.updated_at, read.content
    ):
        newest = f" (the newest is {current.superseded_by})" if current.superseded_by else ""
        raise ConflictError(f"memory {read.id} changed while this edit was being made"
                            f"{newest}; read it again and retry")


def history(service: Engram, memory_id: str) -> list[Memory]:
    """The whole version chain, oldest first, whichever version is asked for."""
    memory = service.resolve(memory_id)
    chain = [memory]
    seen = {memory.id}
    current = memory
    while current.supersedes and current.supersedes not in seen:
        previous = service.store.get(current.supersedes)
        if previous is None:
            break
        chain.insert(0, previous)
        seen.add(previous.id)
        current = previous
    current = memory
    while current.superseded_by and current.superseded_by not in seen:
        following = service.store.get(current.superseded_by)
        if following is None:
            break
        chain.append(following)
        seen.add(following.id)
        current = following
    return [m for m in chain if visible(m)]  # a version made personal by its owner stays theirs


def hard_delete(service: Engram, memory_id: str) -> Memory:
    """Remove a memory for good, keeping its version chain whole (see Engram.delete)."""
    memory = service.resolve(memory_id)
    now = service.clock()
    with service.store.transaction():
        previous = service.store.get(memory.supersedes) if memory.supersedes else None
        following = service.store.get(memory.superseded_by) if memory.superseded_by else None
        if previous is not None and following is not None:
            service.store.update(previous.evolve(superseded_by=following.id, updated_at=now))
            service.store.update(following.evolve(supersedes=previous.id, updated_at=now))
        elif previous is not None and previous.superseded_by == memory.id:
            service.store.update(
                previous.evolve(status="active", superseded_by=None, updated_at=now)
            )
        elif following is not None:
            service.store.update(following.evolve(supersedes=None, updated_at=now))
        service.store.delete(memory.id)
    return memory


def set_newest_aside(service: Engram, memory: Memory, status: str) -> Memory:
    """Delete (soft) or archive the newest version of a chain: the version it replaced is
    current again, as after a hard delete, so removing a wrong edit never removes the
    fact. Its link stays, so restoring this version makes it the newest again."""
    now = service.clock()
    with service.store.transaction():
        changed = memory.evolve(status=status, updated_at=now)
        service.store.update(changed)
        previous = service.store.get(memory.supersedes) if memory.supersedes else None
        if (memory.status == "active" and previous is not None
                and previous.status == "superseded" and previous.superseded_by == memory.id):
            service.store.update(previous.evolve(status="active", updated_at=now))
    return changed


def bring_back(service: Engram, memory: Memory) -> Memory:
    """Restore a version set aside: if the version it replaced became current meanwhile
    (and nothing newer replaced that), it is superseded again."""
    now = service.clock()
    with service.store.transaction():
        changed = memory.evolve(status="active", updated_at=now)
        service.store.update(changed)
        previous = service.store.get(memory.supersedes) if memory.supersedes else None
        if (previous is not None and previous.status == "active"
                and previous.superseded_by == memory.id):
            service.store.update(previous.evolve(status="superseded", updated_at=now))
    return changed
