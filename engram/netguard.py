"""What a server accepts from the network: one rule for the REST API and MCP over HTTP.

Who may call (a bearer token, a Host header naming this machine, a browser Origin that
is the server's own or listed) and how much they may send (body size, JSON nesting).
Both servers call `AccessRule.check` and `json_nesting`; each renders a refusal in its
own protocol's error format. Memories are private: a server reachable from other
machines must demand a token.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .service.users import User

TOKEN_ENV = "ENGRAM_TOKEN"
# Host names a browser page on this machine uses; anything else may be DNS rebinding.
LOCAL_HOSTNAMES = frozenset({"localhost", "127.0.0.1", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_MAX_BODY = 1_048_576  # 1 MiB: a request body or an MCP message
# Deeper than any body Engram defines (an import record's meta sits 3 levels down) and far
# below where a recursive parser or serializer runs out of stack.
MAX_JSON_DEPTH = 64


class BindRefused(PermissionError):
    """Serving on this host would expose memory to other machines without a token."""


def is_loopback(host: str) -> bool:
    """True for names and addresses that only this machine can reach."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a hostname that might resolve anywhere: treat as exposed


def check_bind(host: str, token: str | None, what: str = "serve", *,
               has_users: bool = False) -> None:
    """Refuse a non-loopback bind without a token or users, before anything listens."""
    if not is_loopback(host) and not token and not has_users:
        raise BindRefused(
            f"refusing to {what} on {host} without a token: anyone who can reach this machine "
            f"could read and change your memories. Add users (`engram users add NAME`) or set "
            f"{TOKEN_ENV} to a long random secret (clients send `Authorization: Bearer "
            "<token>`), or bind to 127.0.0.1."
        )


def bearer_matches(header: str | None, token: str | bytes) -> bool:
    """Constant-time check of an `Authorization: Bearer …` header."""
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return False
    expected = token.encode() if isinstance(token, str) else token
    return hmac.compare_digest(given.strip().encode(), expected)


def host_name(host_header: str) -> str:
    """`[::1]:3456` → `::1`, `localhost:3456` → `localhost`."""
    host_header = host_header.strip().lower()
    if host_header.startswith("["):
        return host_header[1:].split("]", 1)[0]
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


def _origin(value: str) -> str:
    return value.strip().rstrip("/").lower()


#: Who holds ENGRAM_TOKEN: an admin who, as the server's owner, sees every memory.
TOKEN_HOLDER = User("token", "admin")


def viewer_of(caller: User | None) -> str | None:
    """The user the service acts for on this request: a user sees team memories and their
    own; the holder of ENGRAM_TOKEN (or anyone on a single-user server), all of them."""
    return caller.name if caller is not None and caller is not TOKEN_HOLDER else None
DEFAULT_RATE_PER_MINUTE = 600


class RateLimiter:
    """Requests per minute per caller, as a token bucket: a burst of up to a fifth of a
    minute's allowance, then the steady rate. One limiter may serve several guards (the
    REST API and MCP of one server), so a user's allowance is theirs across both."""

    def __init__(self, per_minute: int = DEFAULT_RATE_PER_MINUTE) -> None:
        self.rate = per_minute / 60.0
        self.burst = max(1.0, per_minute / 5)
        self._buckets: dict[str, tuple[float, float]] = {}  # name -> (tokens, at)

    def wait_needed(self, name: str) -> float:
        """0 when this request may go now (and is counted), else seconds to wait."""
        now = time.monotonic()
        tokens, at = self._buckets.get(name, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            self._buckets[name] = (tokens, now)
            return (1 - tokens) / self.rate
        self._buckets[name] = (tokens - 1, now)
        return 0.0
USERS_RECHECK_S = 1.0  # how long "this store has users" is trusted before asking again


def insecure_token(scope: Mapping[str, Any], headers: Mapping[str, str],
                   allow_insecure: bool) -> Refusal | None:
    """A token sent in clear text from another machine has been exposed on the way:
    refused (TLS belongs to a reverse proxy on this machine) unless told otherwise."""
    if allow_insecure or "authorization" not in headers:
        return None
    client = scope.get("client")  # None: a Unix socket or an in-process call, not the network
    if not client or scope.get("scheme") in ("https", "wss") or is_loopback(str(client[0])):
        return None
    return Refusal(403, "insecure", "tokens are refused over plain HTTP from other machines: "
                   "serve behind a TLS reverse proxy, or start the server with "
                   "--allow-insecure on a network you trust")


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused before it reaches an endpoint; adapters render it."""

    status: int
    code: str
    message: str
    headers: tuple[tuple[str, str], ...] = ()


class AccessRule:
    """Who may reach a server, checked in this order on every request:

    1. Host (loopback without a token): the Host header must name this machine, so a web
       page cannot reach the server by DNS rebinding → 421.
    2. Origin: a request from a browser page must come from the server's own origin
       (scheme://Host) or one listed with `--cors-origin` (MCP over HTTP lists none: it
       serves no pages); an unsafe request marked `Sec-Fetch-Site: cross-site` without an
       Origin is refused too → 403. Non-browser clients send no Origin and pass.
    3. Token (loopback included), when ENGRAM_TOKEN is set or the store has users:
       `Authorization: Bearer <token>` naming one of them → else 401.
    """

    def __init__(self, *, token: str | None = None, bind_host: str = "127.0.0.1",
                 cors_origins: Iterable[str] = (), users: Any = None,
                 limiter: RateLimiter | None = None) -> None:
        self.token = token.encode() if token else None
        self.check_host = token is None and is_loopback(bind_host)
        self.allowed_hosts = LOCAL_HOSTNAMES | {bind_host.strip().strip("[]").lower()}
        self.cors_origins = frozenset(_origin(o) for o in cors_origins if o)
        #: The service's users (`engram.service.users.Users`): `any()`, `authenticate()`.
        self.users = users
        self.limiter = limiter
        self._has_users: tuple[float, bool] = (0.0, False)

    def check(self, method: str, headers: Mapping[str, str], *,
              needs_token: bool = True) -> Refusal | None:
        """None if the request may proceed. `headers` has lower-case names."""
        return self.identify(method, headers, needs_token=needs_token)[0]

    def identify(self, method: str, headers: Mapping[str, str], *,
                 needs_token: bool = True) -> tuple[Refusal | None, User | None]:
        """(refusal, caller): who is calling, or why they may not."""
        host = headers.get("host", "")
        if self.check_host and host_name(host) not in self.allowed_hosts:
            return Refusal(421, "bad_host", (
                "this server answers only to localhost / 127.0.0.1 / [::1] "
                f"(set {TOKEN_ENV} to serve other host names)")), None
        refusal = self._origin_refusal(method, headers)
        if refusal is not None or not needs_token or method == "OPTIONS":
            return refusal, None
        has_users = self.has_users()
        if self.token is None and not has_users:
            return None, None  # a single-user server on loopback
        header = headers.get("authorization")
        caller = None
        if self.token is not None and bearer_matches(header, self.token):
            caller = TOKEN_HOLDER
        scheme, _, given = (header or "").partition(" ")
        if caller is None and has_users and scheme.lower() == "bearer" and given.strip():
            caller = self.users.authenticate(given.strip())
        if caller is not None:
            wait = self.limiter.wait_needed(caller.name) if self.limiter else 0.0
            if wait > 0:
                return Refusal(429, "rate_limited", f"{caller.name} sends too many requests; "
                               f"retry in {wait:.1f} s",
                               (("retry-after", str(max(1, round(wait)))),)), caller
            return None, caller
        wrong = "the bearer token is wrong" if header else (
            "this server needs `Authorization: Bearer <token>`")
        whose = "a user's token (`engram users add`)" if has_users else f"the server's {TOKEN_ENV}"
        return Refusal(401, "unauthorized", f"{wrong}: send {whose}",
                       (("www-authenticate", 'Bearer realm="engram"'),)), None

    def has_users(self) -> bool:
        """Whether the store has users. `engram users` adds them from another process, so
        "no users" is asked again on every request (one indexed lookup); "has users" is
        trusted for a second."""
        if self.users is None:
            return False
        checked, answer = self._has_users
        now = time.monotonic()
        if not answer or now - checked > USERS_RECHECK_S:
            answer = bool(self.users.any())
            self._has_users = (now, answer)
        return answer

    def origin_allowed(self, origin: str | None, host_header: str) -> bool:
        """No Origin (not a browser page), the server's own origin, or a listed one."""
        if origin is None or not origin.strip():
            return True
        given = _origin(origin)
        own = {f"{scheme}://{host_header.strip().lower()}" for scheme in ("http", "https")}
        return given in self.cors_origins or (given != "null" and given in own)

    def _origin_refusal(self, method: str, headers: Mapping[str, str]) -> Refusal | None:
        origin = headers.get("origin")
        if not self.origin_allowed(origin, headers.get("host", "")):
            return Refusal(403, "forbidden_origin", (
                f"requests from browser pages of {origin.strip()!r} are refused; only the "
                "server's own pages and origins listed with --cors-origin may call it"))
        cross_site = headers.get("sec-fetch-site", "").lower() == "cross-site"
        if cross_site and not origin and method.upper() not in SAFE_METHODS:
            return Refusal(403, "forbidden_origin", "cross-site writes are refused")
        return None


# --- JSON nesting ---------------------------------------------------------------------------

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:,]')
_PATH_PARTS = 4


def json_nesting(body: bytes, limit: int = MAX_JSON_DEPTH) -> str | None:
    """None if `body` nests arrays and objects at most `limit` deep; otherwise the path
    where it goes deeper (`records[0].meta...`, or `body`), for the refusal to name.

    Runs on the raw bytes before any parser builds Python objects (a recursive parser
    or serializer fails on deep input): strings are cut out by one regex, brackets
    counted in numpy, ~20 ms for 1 MiB. Only a refused body is walked token by token.
    """
    import numpy as np

    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKET)
    if len(brackets) <= 2 * limit:
        return None
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1).astype(np.int32)
    if int(np.cumsum(steps).max()) <= limit:
        return None
    return _deep_path(body, limit)


def _deep_path(body: bytes, limit: int) -> str:
    """The first member path that goes deeper than `limit`, shortened."""
    stack: list[list[object]] = []  # [bracket, key or index]
    last_string = b""
    for match in _TOKEN.finditer(body):
        token = match.group()
        if token[:1] == b'"':
            last_string = token
        elif token in (b"[", b"{"):
            stack.append([token, 0 if token == b"[" else None])
            if len(stack) > limit:
                break
        elif token in (b"]", b"}"):
            if stack:
                stack.pop()
        elif token == b":" and stack:
            stack[-1][1] = _key(last_string)
        elif token == b"," and stack and stack[-1][0] == b"[":
            stack[-1][1] = int(stack[-1][1]) + 1  # type: ignore[call-overload]
    parts = []
    for bracket, where in stack[:_PATH_PARTS]:
        if where is None:  # an object whose first member name was not read yet
            break
        parts.append(f"[{where}]" if bracket == b"[" else f".{where}")
    path = "".join(parts).lstrip(".")
    if not path or path.startswith("["):
        path = "body" + path
    return path + ("..." if len(stack) > _PATH_PARTS else "")


def _key(token: bytes) -> str:
    try:
        key = json.loads(token)
    except ValueError:
        key = token.decode("utf-8", "replace").strip('"')
    return key if isinstance(key, str) and len(key) <= 64 else "?"
