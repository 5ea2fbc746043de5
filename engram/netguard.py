"""Who may reach a server: one rule for the REST API and the MCP HTTP transport.

Memories are private; a server reachable from other machines must demand a token.
"""

from __future__ import annotations

import hmac
import ipaddress

TOKEN_ENV = "ENGRAM_TOKEN"
# Host names a browser page on this machine uses; anything else may be DNS rebinding.
LOCAL_HOSTNAMES = frozenset({"localhost", "127.0.0.1", "::1"})


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


def check_bind(host: str, token: str | None, what: str = "serve") -> None:
    """Refuse a non-loopback bind without a token, before anything listens."""
    if not is_loopback(host) and not token:
        raise BindRefused(
            f"refusing to {what} on {host} without a token: anyone who can reach this machine "
            f"could read and change your memories. Set {TOKEN_ENV} to a long random secret "
            "(clients send `Authorization: Bearer <token>`), or bind to 127.0.0.1."
        )


def bearer_matches(header: str | None, token: str | bytes) -> bool:
    """Constant-time check of an `Authorization: Bearer …` header."""
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return False
    expected = token.encode() if isinstance(token, str) else token
    return hmac.compare_digest(given.strip().encode(), expected)
