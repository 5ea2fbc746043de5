"""Users of a shared server: who may read, who may write, who manages users.

A store without users is a single-user store, as it always was: the server needs no token
on loopback (or ENGRAM_TOKEN, when set). Once it has a user, every request to a server
on that store must carry one of its users' tokens. A token is 32 random bytes, shown once
when it is made; the store keeps only its SHA-256 (a random token needs no slow hash: there
is nothing to guess), so a stolen database does not give anyone access.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError, NotFoundError, ValidationError

if TYPE_CHECKING:
    from .engram import Engram

ROLES = ("reader", "writer", "admin")
SCOPES = ("personal", "team")
#: The user a server is acting for in this request (None: the store's own owner, local).
_viewer: ContextVar[str | None] = ContextVar("engram_viewer", default=None)
TOKEN_PREFIX = "engram_"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


@dataclass(frozen=True)
class User:
    name: str
    role: str

    def may(self, action: str) -> bool:
        """`read`, `write` or `admin`: what this user's role allows."""
        return ROLES.index(self.role) >= ("read", "write", "admin").index(action)


@contextmanager
def acting_as(name: str | None) -> Iterator[None]:
    """Everything the service does in this block, it does for user `name`: they see team
    memories and their own personal ones, and what they save is theirs."""
    token = _viewer.set(name)
    try:
        yield
    finally:
        _viewer.reset(token)


def current_viewer() -> str | None:
    return _viewer.get()


def visible(memory: Any, viewer: str | None = None) -> bool:
    """Whether the user acting now (or `viewer`) may see a memory."""
    viewer = viewer if viewer is not None else _viewer.get()
    return viewer is None or memory.scope == "team" or memory.owner == viewer


def same_audience(a: Any, b: Any) -> bool:
    """Two memories one reader set sees alike: both the team's, or one owner's personal."""
    return a.scope == b.scope and (a.scope == "team" or a.owner == b.owner)


def default_scope(memory_type: str) -> str:
    """The scope of a memory saved without one: `[scopes]` in config.toml (the type's own
    key, then `default`) when set, else a preference is its owner's and everything else
    the team's."""
    chosen = configured_scopes()
    scope = chosen.get(memory_type) or chosen.get("default")
    if scope in SCOPES:
        return scope
    return "personal" if memory_type == "preference" else "team"


_read_scopes: dict[Any, dict[str, str]] = {}


def configured_scopes() -> dict[str, str]:
    """`[scopes]` of config.toml, read again only when the file changed (a server sees an
    edit without a restart)."""
    from ..config import config_path, load_config

    path = config_path()
    try:
        stamp = (str(path), path.stat().st_mtime_ns)
    except OSError:
        return {}
    if stamp not in _read_scopes:
        table = load_config().get("scopes")
        _read_scopes.clear()
        _read_scopes[stamp] = {k: v for k, v in (table or {}).items()
                               if isinstance(k, str) and v in SCOPES} if isinstance(
            table, dict) else {}
    return _read_scopes[stamp]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def validate_name(name: Any) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValidationError(
            "name", "must be 1-64 letters, digits or . _ @ - (starting with a letter or digit)")
    return name


def validate_role(role: Any) -> str:
    if role not in ROLES:
        raise ValidationError("role", f"use one of: {', '.join(ROLES)}")
    return role


class Users:
    """The users part of one service."""

    def __init__(self, service: Engram) -> None:
        self.service = service

    def add(self, name: str, role: str = "writer") -> tuple[User, str]:
        """A new user and their token (the only time the token is seen)."""
        user = User(validate_name(name), validate_role(role))
        token = new_token()
        if not self.service.store.add_user(user.name, user.role, hash_token(token),
                                           self.service.clock()):
            raise ConflictError(f"a user named {user.name!r} already exists")
        return user, token

    def list(self) -> list[dict[str, Any]]:
        return self.service.store.users()

    def remove(self, name: str) -> None:
        if not self.service.store.remove_user(validate_name(name)):
            raise NotFoundError(name, f"no user named {name!r}")

    def rotate(self, name: str) -> str:
        """A new token for a user; the old one stops working at once."""
        token = new_token()
        if not self.service.store.set_user_token(validate_name(name), hash_token(token)):
            raise NotFoundError(name, f"no user named {name!r}")
        return token

    def any(self) -> bool:
        return self.service.store.has_users()

    def authenticate(self, token: str) -> User | None:
        """The user holding this token, or None."""
        if not token or len(token) > 200:
            return None
        found = self.service.store.user_by_token(hash_token(token))
        return User(*found) if found else None
