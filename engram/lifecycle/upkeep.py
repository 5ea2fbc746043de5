"""Automatic upkeep: GC and consolidation after every N saves or once a day.

It also re-embeds a store whose vectors came from a model the current embedder replaced
(an Engram upgrade), as soon as a save finds it due.

Never on the critical path: a save only checks whether upkeep is due (two indexed
reads) and hands the work to a background thread (long-lived processes) or a detached
`engram gc --upkeep` process (short-lived ones: the CLI, hooks). A row in `upkeep_runs`
is both the record of a run and a lease, so concurrent processes never run it twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ..model import from_iso, utcnow
from . import audit, consolidation, gc

if TYPE_CHECKING:
    from ..service import Engram

LEASE = timedelta(minutes=30)


def resolve_mode(service: Engram) -> str:
    """explicit (service.lifecycle.upkeep_mode) > ENGRAM_UPKEEP / config > auto.

    auto: off when the service runs on an injected clock (a simulation or a test: work
    in the background would make it nondeterministic, and another process would not
    share its clock), a thread in long-lived processes, else a detached process.
    """
    mode = service.lifecycle.upkeep_mode or service.lifecycle.settings.upkeep_mode
    if mode != "auto":
        return mode
    if service.clock is not utcnow:
        return "off"
    if service.lifecycle.long_lived or service.store.ephemeral:
        return "thread"
    return "subprocess"


def due(service: Engram) -> str | None:
    """The trigger ("saves" or "daily") if upkeep should run now, else None."""
    if service.reembed_due:
        return "reembed"
    settings = service.lifecycle.settings
    store = service.store
    now = service.clock()
    last = store.last_upkeep()
    if last is None:
        # The first save this store sees starts the counters.
        run_id = store.claim_upkeep("baseline", now, now - LEASE)
        if run_id is not None:
            store.finish_upkeep(run_id, now, {"baseline": True})
        return None
    if settings.upkeep_every and store.changes_since(last["seq"]) >= settings.upkeep_every:
        return "saves"
    finished = from_iso(last["finished_at"])
    if finished is not None and now - finished >= timedelta(hours=settings.upkeep_interval_hours):
        return "daily"
    return None


def run(service: Engram, trigger: str = "manual") -> dict[str, Any]:
    """GC, consolidation, recall-log pruning, keyword-index merging; in upkeep_runs."""
    store = service.store
    settings = service.lifecycle.settings
    now = service.clock()
    run_id = store.claim_upkeep(trigger, now, now - LEASE)
    if run_id is None:
        return {"skipped": "another upkeep run is in progress"}
    try:
        # An upgraded embedder first: until then every search is keyword-only.
        reembedded = service.reindex() if service.reembed_due else None
        # Merge before sweeping: fading related episodes become one memory first, and
        # only what stays alone and unused is archived.
        merged = consolidation.plan(service, settings, dry_run=False, automatic=True)
        consolidation.apply(service, merged)
        collected = gc.plan(service, settings, dry_run=False, automatic=True)
        gc.apply(service, collected)
        pruned = audit.prune(service)
        report = {
            "trigger": trigger, "pid": os.getpid(), "thread": threading.current_thread().name,
            "gc": collected.summary(), "consolidate": merged.summary(),
            "recalls_pruned": pruned,
        }
        from ..memory_files import after_upkeep

        synced = after_upkeep(service)  # opt-in: Claude's MEMORY.md blocks refreshed
        if synced is not None:
            report["memory_files"] = synced
        if reembedded is not None:
            report["reembedded"] = reembedded
    except Exception as exc:
        # Recorded as a finished run, so a failing upkeep waits for the next trigger
        # instead of being retried (and failing) after every single save.
        store.finish_upkeep(run_id, service.clock(),
                           {"trigger": trigger, "error": f"{type(exc).__name__}: {exc}"})
        raise
    except BaseException:
        store.drop_upkeep(run_id)
        raise
    store.finish_upkeep(run_id, service.clock(), report)
    return report


def spawn(service: Engram, trigger: str) -> subprocess.Popen[bytes] | None:
    """A detached `engram gc --upkeep` on the same store; outlives a short-lived parent."""
    # GC and consolidation read stored vectors only: no model load, unless the job is
    # re-embedding the store for an upgraded model.
    # The store goes by environment, not argv: a URL's password stays out of `ps`.
    env = {**os.environ, "ENGRAM_UPKEEP": "off", "ENGRAM_DB": service.target or service.path}
    if not service.reembed_due:
        env["ENGRAM_EMBEDDER"] = "none"
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "engram", "gc", "--upkeep", trigger],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=env, start_new_session=True, close_fds=True,
        )
    except OSError:
        return None
