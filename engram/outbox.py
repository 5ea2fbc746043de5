"""Saves made while the team server cannot be reached, kept until it can.

A save to an unreachable server (engram.remote) is written here, one JSON line per
memory, with an id chosen on this machine, and the command says it was queued. `engram
sync`, and the next call that reaches the server, send the queue in order through the
server's import: a memory whose id is already there with the same text counts as a
duplicate, so a save that did arrive before the connection broke is never stored twice.
The file is private to the user and redacted like a memory (secrets never wait on disk).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .config import home_dir, open_private

OUTBOX_NAME = "outbox.jsonl"
SYNC_BATCH = 200


def outbox_path() -> Path:
    return home_dir() / OUTBOX_NAME


@contextmanager
def _locked() -> Iterator[Path]:
    """One process at a time reads or rewrites the queue (a CLI and an agent may share it)."""
    path = outbox_path()
    with open_private(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield path
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


#: How a queued line says what it is: a memory to import (no `op`), a session's summary
#: for the server's checkpoint (which keeps one per session), or an edit.
OP = "op"
CHECKPOINT = "checkpoint"
EDIT = "edit"  # an update, archive, pin… of a memory on the server, replayed in order


def queue(record: dict[str, Any]) -> None:
    """Append one record (already redacted, with its id) to the queue."""
    with _locked() as path, open_private(path, "a") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def queue_checkpoint(body: dict[str, Any]) -> None:
    """Queue a session's summary (already redacted). A session has one summary on the
    server, so a newer one replaces the one still waiting instead of queuing a second."""
    session = body.get("session_id")
    record = {OP: CHECKPOINT, **body}
    with _locked() as path:
        kept = [r for r in pending() if not (
            session and r.get(OP) == CHECKPOINT and r.get("session_id") == session)]
        _rewrite(path, [*kept, record])


def queue_edit(action: str, memory_id: str, body: dict[str, Any] | None = None) -> None:
    """Queue an edit (its body already redacted) of a memory on the server. Replaying it
    twice is harmless: a status change is the same change, and an update of a version
    that is no longer current is never applied over the newer one (engram.remote)."""
    from .model import to_iso, utcnow

    queue({OP: EDIT, "action": action, "id": memory_id, "body": body or {},
           "queued_at": to_iso(utcnow())})


def _rewrite(path: Path, records: list[dict[str, Any]]) -> None:
    tmp = path.with_name(f".{OUTBOX_NAME}.{os.getpid()}.tmp")
    with open_private(tmp, "w") as handle:
        handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    os.replace(tmp, path)


def pending() -> list[dict[str, Any]]:
    """The queued records, oldest first; a line that cannot be read is skipped."""
    path = outbox_path()
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def send(post: Any, checkpoint: Any, edit: Any) -> tuple[int, int]:
    """Send the queue in order, (sent, left): runs of memories with `post(records)` (the
    import), session summaries with `checkpoint(body)`, edits with `edit(record)`.

    Records leave the file only once the server acknowledged them; a failure part way
    keeps the rest, in order, for the next try.
    """
    with _locked() as path:
        records = pending()
        sent = 0
        try:
            while sent < len(records):
                if records[sent].get(OP) == CHECKPOINT:
                    checkpoint({k: v for k, v in records[sent].items() if k != OP})
                    sent += 1
                    continue
                if records[sent].get(OP) == EDIT:
                    edit(records[sent])
                    sent += 1
                    continue
                batch = []
                for record in records[sent:sent + SYNC_BATCH]:
                    if record.get(OP) in (CHECKPOINT, EDIT):
                        break
                    batch.append(record)
                post(batch)
                sent += len(batch)
        finally:
            left = records[sent:]
            if sent:
                _rewrite(path, left)
        return sent, len(left)
