"""The SQLite connection the store talks through: Engram's errors, and an optional deadline.

Every statement, and every row fetched, goes through `Connection` and `Cursor` below, so
no `sqlite3` exception can reach the service, the lifecycle or an adapter (errors.py says
what each becomes). A connection with a deadline (a hook that must answer in time) waits
for another writer's lock only as long as the deadline leaves, and a statement still
running at the deadline is interrupted; both end in StoreUnavailableError.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

from ...errors import StoreError
from ..deadline import current_deadline
from .errors import CAUGHT, translate


class Cursor(sqlite3.Cursor):
    """A cursor whose calls raise Engram's errors instead of sqlite3's."""

    connection: Connection

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        self.connection.before_statement()
        try:
            return super().execute(sql, parameters)
        except CAUGHT as exc:
            raise self.connection.translate(exc) from exc

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> Cursor:
        self.connection.before_statement()
        try:
            return super().executemany(sql, seq_of_parameters)
        except CAUGHT as exc:
            raise self.connection.translate(exc) from exc

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from exc

    def fetchmany(self, size: int = 1) -> list[Any]:
        try:
            return super().fetchmany(size)
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from exc

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from exc

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from exc


class Connection(sqlite3.Connection):
    """sqlite3.Connection with translated errors and the deadline; see the module doc.

    Attributes are set by `connect` right after the connection opens.
    """

    store_path: str
    busy_timeout_ms: int
    deadline: float | None
    _applied_ms: int
    _watchdog: threading.Timer | None

    def cursor(self, factory: Any = Cursor) -> Any:  # type: ignore[override]
        try:
            return super().cursor(factory)
        except sqlite3.Error as exc:
            raise self.translate(exc) from exc

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:  # type: ignore[override]
        return self.cursor().execute(sql, parameters)

    def executemany(  # type: ignore[override]
        self, sql: str, seq_of_parameters: Iterable[Any], /
    ) -> Cursor:
        return self.cursor().executemany(sql, seq_of_parameters)

    def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        try:
            super().close()
        except sqlite3.Error as exc:
            raise self.translate(exc) from exc

    def translate(self, exc: Exception) -> Exception:
        wait_s = None if self.deadline is not None else self.busy_timeout_ms / 1000
        return translate(exc, self.store_path, wait_s)

    def before_statement(self) -> None:
        """Under a deadline, wait for a lock only as long as the deadline leaves.

        SQLite reads the busy timeout at each wait, so lowering it before every statement
        bounds the next one; it never drops below 1 ms (a ROLLBACK must still run).
        """
        if self.deadline is None:
            return
        left = max(1, min(self.busy_timeout_ms, int((self.deadline - time.monotonic()) * 1000)))
        if left != self._applied_ms:
            self._set_busy_timeout(left)

    def _set_busy_timeout(self, ms: int) -> None:
        try:
            sqlite3.Connection.execute(self, f"PRAGMA busy_timeout = {int(ms)}")
        except sqlite3.Error as exc:
            raise self.translate(exc) from exc
        self._applied_ms = ms

    def _interrupt_at_deadline(self) -> None:
        """The watchdog: stop a statement still running when the deadline comes (SQLite
        rolls its transaction back). A wait for a lock is bounded by the busy timeout."""
        with suppress(sqlite3.Error):  # closed meanwhile
            self.interrupt()


def connect(path: str, busy_timeout_ms: int, deadline: float | None = None) -> Connection:
    """Open `path` in autocommit mode (the store issues BEGIN/COMMIT itself).

    `deadline` defaults to the one set by `bounded` around this call, if any.
    """
    if deadline is None:
        deadline = current_deadline()
    try:
        db = sqlite3.connect(
            path,
            timeout=busy_timeout_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
            factory=Connection,
        )
    except sqlite3.Error as exc:
        raise translate(exc, path, busy_timeout_ms / 1000) from exc
    except ValueError as exc:  # a NUL in the path
        raise StoreError(f"cannot open the store {path!r}: {exc}") from exc
    assert isinstance(db, Connection)
    db.store_path = path
    db.busy_timeout_ms = busy_timeout_ms
    db.deadline = deadline
    db._applied_ms = busy_timeout_ms
    db._watchdog = None
    if deadline is not None:
        db.before_statement()
        watchdog = threading.Timer(max(0.0, deadline - time.monotonic()),
                                   db._interrupt_at_deadline)
        watchdog.daemon = True
        watchdog.start()
        db._watchdog = watchdog
    return db
