"""The few exceptions every adapter turns into one clear line for the user."""

from __future__ import annotations


class EngramError(Exception):
    """Base class: anything Engram raises on purpose carries a message fit for a user."""


class ValidationError(EngramError, ValueError):
    """A field has a value Engram cannot accept; nothing was written.

    Carries the field name so that adapters (CLI, MCP, REST) can point at it.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


class NotFoundError(EngramError, LookupError):
    """No memory has that id (or the id prefix is ambiguous)."""

    def __init__(self, memory_id: str, message: str | None = None) -> None:
        self.memory_id = memory_id
        super().__init__(message or f"no memory with id {memory_id!r}")


class ConflictError(EngramError):
    """The request contradicts the store's state (e.g. superseding a superseded memory)."""


class StoreError(EngramError):
    """The store cannot be opened or upgraded (bad path, newer schema, corrupt file)."""


class StoreUnavailableError(StoreError):
    """The store is there but cannot serve this request now: the disk is full, the file
    is locked by a long writer past the wait allowed, or an I/O error. Retrying later
    may work; adapters answer it as "unavailable" (REST 503), not as a bug."""


class Queued(EngramError):
    """An edit the team server could not be reached for: it waits in the outbox and is
    sent by `engram sync` or the next call that reaches the server. Not a failure."""

    def __init__(self, action: str, memory_id: str, server: str) -> None:
        self.action = action
        self.memory_id = memory_id
        super().__init__(f"the server at {server} cannot be reached: the {action} of "
                         f"{memory_id} is queued (`engram sync` sends it)")
