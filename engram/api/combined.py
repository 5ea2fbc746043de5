"""One server process for a team: the REST API and dashboard, and MCP over HTTP at /mcp.

`engram serve` runs this: agents that speak MCP over HTTP and people on the dashboard
reach the same store through the same users and tokens. Requests to /mcp go to the MCP
app behind its own guard (the same access rule, JSON-RPC errors); everything else to the
API. The MCP app's lifespan (its session manager) is the process's lifespan.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from ..netguard import DEFAULT_RATE_PER_MINUTE, RateLimiter
from .app import create_app
from .security import DEFAULT_MAX_BODY, Receive, Scope, Send


class PathDispatch:
    """ASGI: requests under `prefix` to `inner`, the rest to `outer`."""

    def __init__(self, outer: Any, inner: Any, prefix: str) -> None:
        self.outer, self.inner, self.prefix = outer, inner, prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.inner(scope, receive, send)  # the API needs no startup of its own
            return
        path = str(scope.get("path", ""))
        if path == self.prefix or path.startswith(self.prefix + "/"):
            await self.inner(scope, receive, send)
        else:
            await self.outer(scope, receive, send)


def create_server_app(
    engram: Any,
    *,
    token: str | None = None,
    bind_host: str = "127.0.0.1",
    cors_origins: Iterable[str] = (),
    max_body: int = DEFAULT_MAX_BODY,
    allow_insecure: bool = False,
    rate_per_minute: int = DEFAULT_RATE_PER_MINUTE,
) -> Any:
    """The REST API and MCP over one service; `rate_per_minute` requests per minute per
    user or token, across both (0: no limit)."""
    from ..mcp.server import HTTP_PATH, build_server, http_app

    limiter = RateLimiter(rate_per_minute) if rate_per_minute > 0 else None
    api = create_app(engram, token=token, bind_host=bind_host, cors_origins=cors_origins,
                     max_body=max_body, allow_insecure=allow_insecure, limiter=limiter)
    server = build_server(engram, default_project=os.environ.get("ENGRAM_PROJECT") or None)
    mcp = http_app(server, host=bind_host, token=token, users=engram.users,
                   allow_insecure=allow_insecure, limiter=limiter)
    return PathDispatch(api, mcp, HTTP_PATH)
