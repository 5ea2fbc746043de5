"""The Store protocol's bookkeeping methods, answered by each engine's ledger.

Both engines keep their bookkeeping SQL (change numbers, the recall log, upkeep runs, the
lifecycle's counts) in a `Ledger` of their own dialect (sqlite/ledger.py,
postgres/ledger.py); this base class gives the store those protocol methods once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .base import CensusRow, RecallEntry


class LedgerMethods:
    _ledger: Any

    def last_change(self) -> int:
        return self._ledger.last_change()

    def changes_since(self, seq: int) -> int:
        return self._ledger.changes_since(seq)

    def duplicate_groups(self) -> list[list[str]]:
        return self._ledger.duplicate_groups()

    def decay_census(
        self, now: datetime, half_life_days: Mapping[str, float],
        thresholds: Sequence[float], protected_types: Sequence[str],
        protected_importance: float,
    ) -> list[CensusRow]:
        return self._ledger.decay_census(now, half_life_days, thresholds, protected_types,
                                         protected_importance)

    def archive_reasons(self) -> dict[str | None, int]:
        return self._ledger.archive_reasons()

    def log_recall(self, entry: RecallEntry, prune_before: datetime | None) -> None:
        self._ledger.log_recall(entry, prune_before)

    def prune_recalls(self, before: datetime) -> int:
        return self._ledger.prune_recalls(before)

    def recalls(self, since: datetime | None, caller: str | None, limit: int
                ) -> list[dict[str, Any]]:
        return self._ledger.recalls(since, caller, limit)

    def count_recalls(self) -> int:
        return self._ledger.count_recalls()

    def last_upkeep(self, finished: bool = True) -> dict[str, Any] | None:
        return self._ledger.last_upkeep(finished)

    def claim_upkeep(self, trigger: str, now: datetime, lease_before: datetime) -> int | None:
        return self._ledger.claim_upkeep(trigger, now, lease_before)

    def finish_upkeep(self, run_id: int, now: datetime, report: dict[str, Any]) -> None:
        self._ledger.finish_upkeep(run_id, now, report)

    def drop_upkeep(self, run_id: int) -> None:
        self._ledger.drop_upkeep(run_id)

    def upkeep_runs(self, limit: int) -> list[dict[str, Any]]:
        return self._ledger.upkeep_runs(limit)

    def add_user(self, name: str, role: str, token_hash: str, created_at: datetime) -> bool:
        return self._ledger.add_user(name, role, token_hash, created_at)

    def users(self) -> list[dict[str, Any]]:
        return self._ledger.users()

    def remove_user(self, name: str) -> bool:
        return self._ledger.remove_user(name)

    def set_user_token(self, name: str, token_hash: str) -> bool:
        return self._ledger.set_user_token(name, token_hash)

    def user_by_token(self, token_hash: str) -> tuple[str, str] | None:
        return self._ledger.user_by_token(token_hash)

    def has_users(self) -> bool:
        return self._ledger.has_users()

    def user_records(self) -> list[tuple[str, str, str, datetime]]:
        return self._ledger.user_records()
