"""The SQLite connection the store talks through: Engram's errors, and an optional deadline.

Every statement, and every row fetched, goes through `Connection` and `Cursor` below, so
no `sqlite3` exception can reach the service, the lifecycle or an adapter (errors.py says
what each becomes). A connection with a deadline (a hook that must answer in time) waits
for another writer's lock only as long as the deadline leaves, and a statement still
running at the deadline is interrupted; both end in StoreUnavailableError.

Opening a store file goes through here too: the file and its -wal/-shm are the user's
alone (0600), and the switch to WAL is retried while another process opening the same
new file holds it. A failed transaction is rolled back without hiding its first error.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import Any

from ...config import engram_home, private_dir, tighten
from ...errors import StoreError, StoreUnavailableError
from ..deadline import current_deadline
from .errors import CAUGHT, translate

BUSY_TIMEOUT_MS = 15_000


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


def _private_store_files(path: Path) -> None:
    """Create a new store file 0600 (SQLite gives its -wal and -shm the file's mode) in
    an owner-only folder; an older Engram's 0644 store and journals are tightened."""
    parent = path.parent
    try:
        if not parent.is_dir() or os.path.abspath(parent) == os.path.abspath(engram_home()):
            private_dir(parent)
    except OSError as exc:
        raise StoreError(f"cannot create the folder {parent}: {exc.strerror}") from exc
    except ValueError as exc:  # a NUL in the path
        raise StoreError(f"cannot use {str(path)!r} as a store: {exc}") from exc
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        if not path.is_dir():  # SQLite will refuse a folder; leave its mode alone
            for suffix in ("", "-wal", "-shm", "-journal"):
                tighten(f"{path}{suffix}")
    except (OSError, ValueError):
        pass  # SQLite reports an unusable path in its own words


def _rollback(db: Any) -> None:
    """Roll back after a failure, unless SQLite already did (a full disk, an I/O error
    or an interrupt can end the transaction itself); never hide the first error."""
    if db.in_transaction:
        with suppress(StoreError):
            db.execute("ROLLBACK")


def _wal_mode(db: Any) -> str:
    """Switch to WAL, as often as needed within the busy timeout: two processes opening a
    new store at once contend for the change of journal mode, and SQLite answers the loser
    "busy" at once, without its busy handler (it could not wait without deadlocking)."""
    give_up = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    if db.deadline is not None:
        give_up = min(give_up, db.deadline)
    pause = 0.005
    while True:
        try:
            return str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except StoreUnavailableError:
            if time.monotonic() + pause > give_up:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)
