"""The MCP server: tools, resources and prompts over one Engram service, on stdio or HTTP.

Composition root for `engram mcp`: the service is opened once per process by the caller
and shared by every request (its store serialises access with a lock).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import ValidationError as ArgumentsError

from .. import __version__
from ..errors import EngramError
from ..exchange import AUTHORITY_RULE
from ..service import Engram
from .auth import GuardMiddleware, check_bind, is_loopback
from .render import lines
from .tools import register_tools

RECENT_LIMIT = 20
PROJECT_LIMIT = 200
HTTP_PATH = "/mcp"


class EngramMCPServer(MCPServer):
    """MCPServer whose argument errors read like the service's: `field: what is wrong`."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ArgumentsError):
                raise
            raise ToolError(f"Error executing tool {name}: invalid arguments: "
                            f"{describe_argument_errors(cause)}") from cause


def describe_argument_errors(error: ArgumentsError) -> str:
    """One short clause per field, without pydantic's model names and links."""
    clauses = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            clauses.append(f"{field}: is required")
        elif item["type"] == "extra_forbidden":
            clauses.append(f"{field}: is not an argument of this tool")
        else:
            clauses.append(f"{field}: {item['msg']} (got {item.get('input')!r})")
    return "; ".join(dict.fromkeys(clauses))


def build_server(service: Engram, *, default_project: str | None = None) -> MCPServer:
    """An MCP server whose every tool, resource and prompt calls `service`."""
    server: MCPServer = EngramMCPServer(
        "engram",
        title="Engram",
        description="Long-term memory for coding agents",
        instructions=service.instructions(),
        version=__version__,
        log_level="WARNING",
    )
    register_tools(server, service, default_project)
    _register_resources(server, service)
    _register_prompts(server, service, default_project)
    return server


def _register_resources(server: MCPServer, service: Engram) -> None:
    def read(func: Any) -> Any:
        try:
            return func()
        except EngramError as exc:
            raise ResourceError(str(exc)) from exc

    @server.resource("memory://stats", name="stats", title="Memory statistics",
                     description="Counts by type, project and status; the embedder in use.",
                     mime_type="application/json")
    def stats() -> str:
        return json.dumps(read(service.stats), ensure_ascii=False, indent=2, default=str)

    @server.resource("memory://recent", name="recent", title="Recent memories",
                     description=f"The {RECENT_LIMIT} newest active memories, all projects.",
                     mime_type="text/plain")
    def recent() -> str:
        memories = read(lambda: service.list(limit=RECENT_LIMIT, order="newest"))
        return f"{AUTHORITY_RULE}\n\n{lines(memories)}\n"

    @server.resource("memory://project/{name}", name="project", title="A project's memories",
                     description="The active memories of one project, newest first.",
                     mime_type="text/plain")
    def project(name: str) -> str:
        memories = read(lambda: service.list(project=name, include_global=False,
                                             limit=PROJECT_LIMIT, order="newest"))
        empty = f"No memories for project {name!r}."
        return f"# Project {name}\n{AUTHORITY_RULE}\n\n{lines(memories, empty)}\n"


def _register_prompts(server: MCPServer, service: Engram, default_project: str | None) -> None:
    @server.prompt(name="recall", title="Recall a topic",
                   description="What long-term memory holds about a topic, as context.")
    def recall(topic: str) -> str:
        response = service.search(topic, k=10, caller="mcp")
        found = lines([r.memory for r in response.results],
                      f"Memory holds nothing about {topic!r}.")
        return (f"Here is what long-term memory (Engram) holds about {topic!r}.\n"
                f"{AUTHORITY_RULE}\n\n{found}")

    @server.prompt(name="context-load", title="Load context for a task",
                   description="A context pack of relevant memories for the task at hand.")
    def context_load(task: str) -> str:
        pack = service.context(project=default_project, task=task)
        service.mark_used(pack.memory_ids)
        return f"{pack.text}\n\nThe task: {task}"


def run_stdio(server: MCPServer) -> None:
    server.run("stdio")


def _transport_security(host: str) -> TransportSecuritySettings:
    """On loopback the SDK also checks Host (DNS rebinding); elsewhere GuardMiddleware checks
    Origin and the token, since remote clients send arbitrary Host names."""
    if not is_loopback(host):
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = ["127.0.0.1", "localhost", "[::1]"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*names, *(f"{n}:*" for n in names)],
        allowed_origins=[f"{scheme}://{n}{port}" for scheme in ("http", "https") for n in names
                         for port in ("", ":*")],
    )


def http_app(server: MCPServer, *, host: str, token: str | None) -> Any:
    """The streamable HTTP ASGI app behind the Origin and token guard."""
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host,
                                     transport_security=_transport_security(host))
    return GuardMiddleware(app, token)


def run_http(server: MCPServer, *, host: str, port: int, token: str | None) -> None:
    """Serve streamable HTTP until interrupted. Raises BindRefused before listening."""
    import uvicorn

    check_bind(host, token)
    app = http_app(server, host=host, token=token)
    shown = f"[{host}]" if ":" in host else host
    print(f"engram MCP server on http://{shown}:{port}{HTTP_PATH}"
          + (" (bearer token required)" if token else ""), file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
