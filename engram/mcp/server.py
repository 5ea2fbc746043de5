"""The MCP server: tools, resources and prompts over one Engram service, on stdio or HTTP.

Composition root for `engram mcp`: the service is opened once per process by the caller
and shared by every request (its store serialises access with a lock).
"""

from __future__ import annotations

import functools
import json
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import ValidationError as ArgumentsError

from .. import __version__
from ..errors import EngramError
from ..exchange import AUTHORITY_RULE
from ..service import Engram
from .auth import GuardMiddleware, check_bind
from .early import SERVER_DESCRIPTION, SERVER_NAME, SERVER_TITLE, Early
from .errors import UNEXPECTED, ProtocolErrors, describe_shape_errors, log, protocol_error
from .render import lines
from .stdio import serve_stdio
from .tools import register_tools
from .wire import MAX_MESSAGE_BYTES

RECENT_LIMIT = 20
PROJECT_LIMIT = 200
HTTP_PATH = "/mcp"


class EngramMCPServer(MCPServer):
    """MCPServer that answers every request with an error a client can act on.

    - An unknown tool or prompt, a missing or unknown prompt argument: -32602.
    - A tool's arguments that fail its schema: a tool error naming each field
      (`field: what is wrong`), like the service's own refusals.
    - Anything else that fails outside a tool: see `errors.ProtocolErrors`.
    - stdio: malformed lines are answered too (see `stdio`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The SDK's OpenTelemetry span per message does nothing without an exporter, which
        # Engram never installs, yet costs every call its context extraction: left out.
        self.middleware[:] = [m for m in self.middleware
                              if type(m).__name__ != "OpenTelemetryMiddleware"]
        self.middleware.append(ProtocolErrors())

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None) -> Any:
        if self._tool_manager.get_tool(name) is None:  # not list_tools: a model per tool
            names = [tool.name for tool in self._tool_manager.list_tools()]
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name!r}; the tools are "
                                           f"{', '.join(names)}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ArgumentsError):
                raise
            raise ToolError(f"Error executing tool {name}: invalid arguments: "
                            f"{describe_shape_errors(cause)}") from cause

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None,
                         context: Context | None = None) -> Any:
        prompts = {prompt.name: prompt for prompt in await self.list_prompts()}
        if name not in prompts:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name!r}; the prompts are "
                                           f"{', '.join(prompts)}")
        declared = prompts[name].arguments or []
        given = arguments or {}
        for argument in declared:
            if argument.required and argument.name not in given:
                raise MCPError(INVALID_PARAMS, f"{argument.name}: is required",
                               {"field": argument.name})
        for extra in set(given) - {argument.name for argument in declared}:
            raise MCPError(INVALID_PARAMS, f"{extra}: is not an argument of prompt {name}",
                           {"field": extra})
        try:
            return await super().get_prompt(name, arguments, context)
        except MCPError:
            raise
        except Exception:  # the SDK wraps a crash of the prompt function in ValueError
            log.exception("prompt %s failed", name)
            raise MCPError(INTERNAL_ERROR, UNEXPECTED) from None

    #: The client's first line, read (and maybe answered) before the SDK loaded.
    early: Early | None = None

    async def run_stdio_async(self) -> None:
        await serve_stdio(self._lowlevel_server, self.early)


def build_server(service: Engram, *, default_project: str | None = None,
                 inline: bool = False) -> MCPServer:
    """An MCP server whose every tool, resource and prompt calls `service`.

    `inline`: tools run on the event loop instead of a worker thread (one thread hop less
    per call). For stdio, where one client sends its calls and the store serialises them
    anyway; a shared HTTP server keeps the thread, so one slow call never holds the others.
    """
    server: MCPServer = EngramMCPServer(
        SERVER_NAME,
        title=SERVER_TITLE,
        description=SERVER_DESCRIPTION,
        instructions=service.instructions(),
        version=__version__,
        log_level="WARNING",
    )
    register_tools(server, service, default_project, inline=inline)
    _register_resources(server, service)
    _register_prompts(server, service, default_project)
    return server


def _register_resources(server: MCPServer, service: Engram) -> None:
    def read(func: Any) -> Any:
        try:
            return func()
        except EngramError as exc:
            raise protocol_error(exc) from None

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
    def engram_errors(func: Any) -> Any:
        """Engram's errors in a prompt become protocol errors (-32602 for a bad argument)."""

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except EngramError as exc:
                raise protocol_error(exc) from None

        return wrapper

    @server.prompt(name="recall", title="Recall a topic",
                   description="What long-term memory holds about a topic, as context.")
    @engram_errors
    def recall(topic: str) -> str:
        response = service.search(topic, k=10, caller="mcp")
        found = lines([r.memory for r in response.results],
                      f"Memory holds nothing about {topic!r}.")
        return (f"Here is what long-term memory (Engram) holds about {topic!r}.\n"
                f"{AUTHORITY_RULE}\n\n{found}")

    @server.prompt(name="context-load", title="Load context for a task",
                   description="A context pack of relevant memories for the task at hand.")
    @engram_errors
    def context_load(task: str) -> str:
        pack = service.context(project=default_project, task=task)
        service.mark_used(pack.memory_ids)
        return f"{pack.text}\n\nThe task: {task}"


def run_stdio(server: MCPServer, early: Early | None = None) -> None:
    if isinstance(server, EngramMCPServer):
        server.early = early
    server.run("stdio")


def http_app(server: MCPServer, *, host: str, token: str | None, users: Any = None,
             allow_insecure: bool = False, limiter: Any = None) -> Any:
    """The streamable HTTP ASGI app behind Engram's guard (`auth.GuardMiddleware`), which
    applies the REST API's Host/Origin/token rule (and the store's users, when it has
    some: readers may call only read-only tools) and screens every message; the SDK's own
    DNS-rebinding check is off so that one rule decides."""
    app = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=host, max_request_body_size=MAX_MESSAGE_BYTES,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    read_only = frozenset(t.name for t in server._tool_manager.list_tools()
                          if t.annotations is not None and t.annotations.read_only_hint)
    return GuardMiddleware(app, token, bind_host=host, users=users, read_only_tools=read_only,
                           allow_insecure=allow_insecure, limiter=limiter)


def run_http(server: MCPServer, *, host: str, port: int, token: str | None,
             users: Any = None) -> None:
    """Serve streamable HTTP until interrupted. Raises BindRefused before listening."""
    import uvicorn

    check_bind(host, token, has_users=users is not None and users.any())
    app = http_app(server, host=host, token=token, users=users)
    shown = f"[{host}]" if ":" in host else host
    print(f"engram MCP server on http://{shown}:{port}{HTTP_PATH}"
          + (" (bearer token required)" if token else ""), file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
