"""SQLite's exceptions as Engram's, decided once at the store's boundary.

Nothing above engram/store/ sees a `sqlite3` exception (the store's connection, in
connection.py, translates every one): a condition that passes (a full disk, a lock held
past the wait allowed, an I/O error, a deadline) is a StoreUnavailableError that
adapters answer as "try later" (REST 503, an MCP tool error, one CLI line, a hook that
fails open); a damaged file or a statement SQLite refused is a StoreError.
"""

from __future__ import annotations

import os
import sqlite3

from ...errors import EngramError, StoreError, StoreUnavailableError, ValidationError

# SQLite's primary result codes (https://sqlite.org/rescode.html) that name a
# condition of the moment rather than of the file or the code.
_BUSY, _LOCKED, _NOMEM, _READONLY, _INTERRUPT, _IOERR = 5, 6, 7, 8, 9, 10
_CORRUPT, _CANTOPEN, _FULL, _PROTOCOL, _NOTADB = 11, 14, 13, 15, 26
#: Below this much free space an I/O error is called a full disk: SQLite reports one as
#: SQLITE_IOERR when it cannot grow the -shm file, which every reader needs too.
NEARLY_FULL_BYTES = 1 << 20


#: What a statement can raise: SQLite's errors, its Warning (3.11: two statements in one
#: call), and a parameter it cannot bind (an int past 64 bits, a lone surrogate).
CAUGHT = (sqlite3.Error, sqlite3.Warning, OverflowError, UnicodeEncodeError)


class SQLError(StoreError):
    """SQLite refused a statement itself (SQLITE_ERROR and kin): a bug, a schema this
    code does not expect, or a full-text query FTS5 cannot parse."""


def translate(exc: Exception, path: str, wait_s: float | None) -> EngramError:
    """The Engram error for `exc` (one of CAUGHT) on the store at `path`; `wait_s` is how
    long a locked store is waited for (None: as long as the caller's deadline allowed)."""
    if isinstance(exc, OverflowError | UnicodeEncodeError):
        return ValidationError("value", f"cannot be stored: {exc}")
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    detail = str(exc) or type(exc).__name__
    if primary == _FULL or (primary == _IOERR and _disk_is_full(path)):
        return StoreUnavailableError(
            f"the disk holding the store {path} is full: free some space, then try again"
        )
    if primary in (_BUSY, _LOCKED):
        waited = "longer than this call's deadline" if wait_s is None else f"over {wait_s:g} s"
        return StoreUnavailableError(
            f"the store {path} is busy: another process has held its write lock {waited} "
            "(a reindex, an import or upkeep?); try again"
        )
    if primary == _IOERR:
        return StoreUnavailableError(
            f"disk I/O error on the store {path} ({detail}): check the disk, then try again"
        )
    if primary == _INTERRUPT:
        return StoreUnavailableError(f"the store {path} did not answer in the time allowed")
    if primary == _READONLY:
        return StoreUnavailableError(
            f"the store {path} cannot be written ({detail}): check the permissions of the "
            "file and its folder, and that the disk is not mounted read-only"
        )
    if primary in (_NOMEM, _PROTOCOL):
        return StoreUnavailableError(f"the store {path} is unavailable ({detail}); try again")
    if primary in (_CORRUPT, _NOTADB):
        return StoreError(
            f"the store {path} is damaged or is not an Engram store ({detail}); "
            "move it aside and restore a backup or an export"
        )
    if primary == _CANTOPEN:
        return StoreError(
            f"cannot open the store {path} ({detail}): check that its folder exists and "
            "is writable"
        )
    return SQLError(f"the store {path} refused a statement: {detail}")


def _disk_is_full(path: str) -> bool:
    try:
        info = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return False
    return info.f_bavail * info.f_frsize < NEARLY_FULL_BYTES
