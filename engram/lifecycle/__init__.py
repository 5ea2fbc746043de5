"""Memory that ages well: consolidation, GC, forgetting, recall audit, staleness, upkeep.

`Lifecycle` is the part of the service (engram.service.Engram) that holds how this
process runs upkeep and the settings the rules read; the rules themselves live in the
modules next to this one and take the service, so every adapter reaches them through
the one service object.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StoreError, ValidationError
from .report import Action, Report
from .settings import Settings, load_settings

if TYPE_CHECKING:
    import subprocess

    from ..model import Memory
    from ..retrieval import SearchResponse
    from ..service import Engram, SaveResult
    from .backlog import Backlog

__all__ = ["Action", "Lifecycle", "Report", "Settings", "load_settings"]


class Lifecycle:
    """The lifecycle part of one service: its settings, upkeep state and entry points."""

    def __init__(self, service: Engram) -> None:
        self.service = service
        #: Set by long-lived adapters (MCP server, REST API) so upkeep runs in a thread.
        self.long_lived = False
        #: Set by a process that can run bookkeeping after answering (the hook worker):
        #: the recall log's synchronous write then stays out of the agent's wait.
        self.defer: Callable[[Callable[[], object]], None] | None = None
        #: Overrides ENGRAM_UPKEEP / config: "off", "thread", "subprocess", "inline", "auto".
        self.upkeep_mode: str | None = None
        #: The last background run's failure, kept for stats instead of killing the process.
        self.upkeep_error: BaseException | None = None
        self.upkeep_thread: threading.Thread | None = None
        self.upkeep_process: subprocess.Popen[bytes] | None = None
        self._settings: Settings | None = None

    # --- settings -----------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """Read from the environment and config file when first needed."""
        if self._settings is None:
            self._settings = load_settings()
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._settings = value

    def settings_with(self, **overrides: Any) -> Settings:
        """These settings with a caller's overrides (None keeps the setting), validated."""
        changes = {k: v for k, v in overrides.items() if v is not None}
        for name, value in changes.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValidationError(name, f"must be a number ≥ 0, got {value!r}")
        return replace(self.settings, **changes)

    # --- consolidation, garbage collection, forgetting, staleness ----------------------

    def consolidate(
        self, *, project: str | None = None, dry_run: bool = False,
        similarity: float | None = None, min_age_days: float | None = None,
    ) -> Report:
        from ..model import validate_project
        from . import consolidation

        settings = self.settings_with(consolidate_similarity=similarity,
                                      consolidate_min_age_days=min_age_days)
        report = consolidation.plan(self.service, settings, dry_run=dry_run,
                                    project=validate_project(project))
        consolidation.apply(self.service, report)
        return report

    def unconsolidate(self, memory_id: str) -> list[Memory]:
        from . import consolidation

        return consolidation.unconsolidate(self.service, memory_id)

    def gc(self, *, dry_run: bool = False) -> Report:
        from . import gc

        report = gc.plan(self.service, self.settings, dry_run=dry_run)
        gc.apply(self.service, report)
        return report

    def forget_sweep(
        self, *, dry_run: bool = False, threshold: float | None = None,
        project: str | None = None,
    ) -> Report:
        from ..model import validate_project
        from . import forgetting, gc

        if threshold is not None:
            self.settings_with(forget_threshold=threshold)
            if threshold > 1:
                raise ValidationError("threshold", "must be between 0 and 1")
        report = forgetting.plan(self.service, self.settings, dry_run=dry_run,
                                 threshold=threshold, project=validate_project(project))
        gc.apply(self.service, report)
        return report

    def forgetting_risk(self, memory_id: str) -> dict[str, float]:
        from . import forgetting

        return forgetting.risk(self.service.resolve(memory_id), self.service.clock()).to_dict()

    def check_stale(
        self, *, repo: str | Path | None = None, project: str | None = None,
        all_projects: bool = False, dry_run: bool = False,
    ) -> Report:
        from ..model import validate_project
        from . import gc, staleness

        report = staleness.plan(self.service, repo=repo, project=validate_project(project),
                                dry_run=dry_run, all_projects=all_projects)
        gc.apply(self.service, report)
        return report

    # --- recall audit -----------------------------------------------------------------

    def record_recall(self, caller: str, query: str, response: SearchResponse) -> None:
        """Log what a search handed to an agent (never affects ranking)."""
        from ..service.users import current_viewer
        from . import audit

        viewer = current_viewer()  # on a shared server, which user asked: "api:alice"
        if viewer is not None:
            caller = f"{caller}:{viewer}"
        job = lambda: audit.record(self.service, caller, query, response)  # noqa: E731
        if self.defer is not None:
            self.defer(job)  # e.g. the hook worker: written after its reply went out
        else:
            job()

    def serve_long(self) -> Backlog:
        """Set up a long-lived server (MCP, REST): upkeep in a thread of this process, and
        the recall audit written after the replies, a batch a second, by a backlog the
        caller closes on exit (see `backlog` for what a crash may lose)."""
        import logging

        from ..store import serving
        from .backlog import Backlog

        serving()  # a large store's approximate lists: built on a thread
        self.long_lived = True
        backlog = Backlog(log=logging.getLogger("engram.lifecycle").warning,
                          batch=self.service.store.transaction)
        self.defer = backlog.submit
        return backlog

    def recalls(
        self, *, since: datetime | None = None, caller: str | None = None, limit: int = 100,
    ) -> list[dict[str, Any]]:
        from ..model import validate_datetime
        from . import audit

        return audit.recalls(self.service, since=validate_datetime("since", since),
                             caller=caller, limit=limit)

    # --- automatic upkeep -------------------------------------------------------------

    def after_save(self, results: Sequence[SaveResult]) -> None:
        """Schedule upkeep when it is due, off the saving caller's path."""
        from . import upkeep

        mode = upkeep.resolve_mode(self.service)
        if mode == "off" or not results:
            return
        try:
            trigger = upkeep.due(self.service)
        except StoreError:
            return  # a busy store must never fail the save that was already written
        if trigger is not None:
            self.schedule_upkeep(trigger, mode=mode)

    def schedule_upkeep(self, trigger: str = "manual", *, mode: str | None = None) -> None:
        """Start upkeep off the caller's path (or inline, when mode says so)."""
        from . import upkeep

        mode = mode or upkeep.resolve_mode(self.service)
        if mode == "inline":  # deterministic scripts and tests; errors kept, not raised
            self._upkeep_in_background(trigger)
        elif mode == "thread":
            if self.upkeep_thread is not None and self.upkeep_thread.is_alive():
                return
            thread = threading.Thread(target=self._upkeep_in_background, args=(trigger,),
                                      name="engram-upkeep", daemon=True)
            self.upkeep_thread = thread
            thread.start()
        elif mode == "subprocess":
            previous = self.upkeep_process
            if previous is not None and previous.poll() is None:
                return
            self.upkeep_process = upkeep.spawn(self.service, trigger)

    def _upkeep_in_background(self, trigger: str) -> None:
        try:
            self.upkeep(trigger)
        except Exception as exc:  # a background run must not kill the process; kept for stats
            self.upkeep_error = exc

    def upkeep(self, trigger: str = "manual") -> dict[str, Any]:
        from . import upkeep

        return upkeep.run(self.service, trigger)

    def wait_for_upkeep(self, timeout: float | None = None) -> bool:
        """Wait for a background upkeep run of this process; True if none is running."""
        thread = self.upkeep_thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                return False
        process = self.upkeep_process
        if process is not None:
            try:
                process.wait(timeout)
            except Exception:
                return False
        return True

    def upkeep_runs(self, limit: int = 10) -> list[dict[str, Any]]:
        return self.service.store.upkeep_runs(limit)

    def close(self) -> None:
        """Let a running upkeep thread finish its transaction before the store closes."""
        thread = self.upkeep_thread
        if thread is not None and thread.is_alive():
            thread.join(60)

    def health(self) -> dict[str, Any]:
        from . import health

        return health.summary(self.service)
