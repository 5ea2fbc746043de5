"""Memory that ages well: consolidation, GC, forgetting, recall audit, staleness, upkeep.

`LifecycleMixin` joins the service (engram.service.Engram), so every adapter reaches
these capabilities through the one service object. The rules live in the modules
next to this one; the mixin only wires them to the service and its extension points.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
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

__all__ = ["Action", "LifecycleMixin", "Report", "Settings", "load_settings"]


class LifecycleMixin:
    """Lifecycle capabilities of the service."""

    # Set by long-lived adapters (MCP server, REST API) so upkeep runs in a thread.
    long_lived: bool = False
    # Set by a process that can run bookkeeping after answering (the hook worker): the
    # recall log's synchronous write then stays out of the agent's wait.
    defer: Callable[[Callable[[], object]], None] | None = None
    # Overrides ENGRAM_UPKEEP / config: "off", "thread", "subprocess", "inline" or "auto".
    upkeep_mode: str | None = None
    _upkeep_thread: threading.Thread | None = None
    _upkeep_process: subprocess.Popen[bytes] | None = None
    upkeep_error: BaseException | None = None

    # --- settings -----------------------------------------------------------------------

    @property
    def lifecycle_settings(self) -> Settings:
        settings = self.__dict__.get("_lifecycle_settings")
        if settings is None:
            settings = self.__dict__["_lifecycle_settings"] = load_settings()
        return settings

    @lifecycle_settings.setter
    def lifecycle_settings(self, value: Settings) -> None:
        self.__dict__["_lifecycle_settings"] = value

    def _settings_with(self, **overrides: Any) -> Settings:
        from dataclasses import replace

        changes = {k: v for k, v in overrides.items() if v is not None}
        for name, value in changes.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValidationError(name, f"must be a number ≥ 0, got {value!r}")
        return replace(self.lifecycle_settings, **changes)

    # --- consolidation ------------------------------------------------------------------

    def consolidate(
        self: Engram, *, project: str | None = None, dry_run: bool = False,
        similarity: float | None = None, min_age_days: float | None = None,
    ) -> Report:
        """Merge related aging episodes of one project and type; see consolidation.py."""
        from ..model import validate_project
        from . import consolidation

        settings = self._settings_with(consolidate_similarity=similarity,
                                       consolidate_min_age_days=min_age_days)
        report = consolidation.plan(self, settings, dry_run=dry_run,
                                    project=validate_project(project))
        consolidation.apply(self, report)
        return report

    def unconsolidate(self: Engram, memory_id: str) -> list[Memory]:
        """Restore a consolidation's sources exactly and remove the consolidated memory."""
        from . import consolidation

        return consolidation.unconsolidate(self, memory_id)

    # --- garbage collection and forgetting ---------------------------------------------

    def gc(self: Engram, *, dry_run: bool = False) -> Report:
        """Archive expired and decayed memories; merge duplicates (see gc.py)."""
        from . import gc

        report = gc.plan(self, self.lifecycle_settings, dry_run=dry_run)
        gc.apply(self, report)
        return report

    def forget_sweep(
        self: Engram, *, dry_run: bool = False, threshold: float | None = None,
        project: str | None = None,
    ) -> Report:
        """Archive memories whose forgetting risk is high (see forgetting.py)."""
        from ..model import validate_project
        from . import forgetting, gc

        if threshold is not None:
            self._settings_with(forget_threshold=threshold)
            if threshold > 1:
                raise ValidationError("threshold", "must be between 0 and 1")
        report = forgetting.plan(self, self.lifecycle_settings, dry_run=dry_run,
                                 threshold=threshold, project=validate_project(project))
        gc.apply(self, report)
        return report

    def forgetting_risk(self: Engram, memory_id: str) -> dict[str, float]:
        from . import forgetting

        return forgetting.risk(self.resolve(memory_id), self.clock()).to_dict()

    # --- staleness ------------------------------------------------------------------------

    def check_stale(
        self: Engram, *, repo: str | Path | None = None, project: str | None = None,
        all_projects: bool = False, dry_run: bool = False,
    ) -> Report:
        """Mark memories naming files that changed or vanished in the repository."""
        from ..model import validate_project
        from . import gc, staleness

        report = staleness.plan(self, repo=repo, project=validate_project(project),
                                dry_run=dry_run, all_projects=all_projects)
        gc.apply(self, report)
        return report

    # --- recall audit -----------------------------------------------------------------

    def _record_recall(self: Engram, caller: str, query: str, response: SearchResponse) -> None:
        from . import audit

        job = lambda: audit.record(self, caller, query, response)  # noqa: E731
        if self.defer is not None:
            self.defer(job)  # e.g. the hook worker: written after its reply went out
        else:
            job()

    def recalls(
        self: Engram, *, since: datetime | None = None, caller: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        """The recall log, newest first."""
        from ..model import validate_datetime
        from . import audit

        return audit.recalls(self, since=validate_datetime("since", since), caller=caller,
                             limit=limit)

    # --- automatic upkeep -------------------------------------------------------------

    def _after_save(self: Engram, results: Sequence[SaveResult]) -> None:
        super()._after_save(results)  # type: ignore[misc]
        from . import upkeep

        mode = upkeep.resolve_mode(self)
        if mode == "off" or not results:
            return
        try:
            trigger = upkeep.due(self)
        except StoreError:
            return  # a busy store must never fail the save that was already written
        if trigger is not None:
            self.schedule_upkeep(trigger, mode=mode)

    def schedule_upkeep(self: Engram, trigger: str = "manual", *, mode: str | None = None
                        ) -> None:
        """Start upkeep off the caller's path (or inline, when mode says so)."""
        from . import upkeep

        mode = mode or upkeep.resolve_mode(self)
        if mode == "inline":  # deterministic scripts and tests; errors kept, not raised
            self._upkeep_in_background(trigger)
        elif mode == "thread":
            if self._upkeep_thread is not None and self._upkeep_thread.is_alive():
                return
            thread = threading.Thread(target=self._upkeep_in_background, args=(trigger,),
                                      name="engram-upkeep", daemon=True)
            self._upkeep_thread = thread
            thread.start()
        elif mode == "subprocess":
            previous = self._upkeep_process
            if previous is not None and previous.poll() is None:
                return
            self._upkeep_process = upkeep.spawn(self, trigger)

    def _upkeep_in_background(self: Engram, trigger: str) -> None:
        try:
            self.upkeep(trigger)
        except Exception as exc:  # a background run must not kill the process; kept for stats
            self.upkeep_error = exc

    def upkeep(self: Engram, trigger: str = "manual") -> dict[str, Any]:
        """Run GC and consolidation now and record the run (what automatic upkeep does)."""
        from . import upkeep

        return upkeep.run(self, trigger)

    def wait_for_upkeep(self, timeout: float | None = None) -> bool:
        """Wait for a background upkeep run of this process; True if none is running."""
        thread = self._upkeep_thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                return False
        process = self._upkeep_process
        if process is not None:
            try:
                process.wait(timeout)
            except Exception:
                return False
        return True

    def upkeep_runs(self: Engram, limit: int = 10) -> list[dict[str, Any]]:
        return self.store.upkeep_runs(limit)

    def close(self: Engram) -> None:
        thread = self._upkeep_thread
        if thread is not None and thread.is_alive():
            thread.join(60)
        super().close()  # type: ignore[misc]

    # --- health -------------------------------------------------------------------------

    def stats(self: Engram) -> dict[str, Any]:
        from . import health

        stats = super().stats()  # type: ignore[misc]
        stats["health"] = health.summary(self)
        return stats
