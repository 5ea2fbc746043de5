"""How a failure reaches an MCP client: a tool error the model reads, or a JSON-RPC error.

The convention (MCP 2025-11-25, "Error Handling" under Tools, from SEP-1303):

- Tools: every refusal of the arguments (a missing or unknown argument, a wrong type, a
  value the service refuses) and every failure of the work itself (no such memory, the
  store unavailable) is a tool result with `isError: true` whose text names the field:
  the model reads it and can correct its call, which it cannot do with a protocol error.
- Protocol errors (JSON-RPC `error`) are for what is wrong with the request itself: not
  JSON (-32700), not a request (-32600), an unknown method (-32601), params that are not
  an object or miss a member, an unknown tool or prompt, a bad prompt or resource
  argument (-32602), a bug (-32603, details only in the server log) and a store that is
  unavailable while reading a resource or prompt (-32010, an implementation-defined
  server error, with `data.retryable`).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import ValidationError as ShapeError

from ..errors import ConflictError, EngramError, NotFoundError, StoreUnavailableError
from ..errors import ValidationError as FieldError

log = logging.getLogger("engram.mcp")

STORE_UNAVAILABLE = -32010  # JSON-RPC's implementation-defined server-error range
UNEXPECTED = "unexpected server error (see the server log)"


def describe(exc: EngramError) -> str:
    """The text a client reads for one of Engram's errors."""
    if isinstance(exc, StoreUnavailableError):
        return (f"the memory store is unavailable right now ({exc}); "
                "try again in a few seconds")
    return str(exc)


def protocol_error(exc: EngramError) -> MCPError:
    """The JSON-RPC error for one of Engram's errors raised outside a tool."""
    if isinstance(exc, FieldError):
        return MCPError(INVALID_PARAMS, str(exc), {"field": exc.field})
    if isinstance(exc, NotFoundError | ConflictError):
        return MCPError(INVALID_PARAMS, str(exc))
    return MCPError(STORE_UNAVAILABLE, describe(exc),
                    {"retryable": isinstance(exc, StoreUnavailableError)})


def describe_shape_errors(error: ShapeError, *, show_input: bool = True) -> str:
    """One short clause per field, without pydantic's model names and links."""
    clauses = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            clauses.append(f"{field}: is required")
        elif item["type"] == "extra_forbidden":
            clauses.append(f"{field}: is not an argument of this tool")
        elif show_input:
            clauses.append(f"{field}: {item['msg']} (got {item.get('input')!r})")
        else:
            clauses.append(f"{field}: {item['msg']}")
    return "; ".join(dict.fromkeys(clauses))


class ProtocolErrors:
    """Server middleware: every request that fails gets a JSON-RPC error fit for a client.

    The SDK answers params that fail its request models with a bare "Invalid request
    parameters" and any other exception with code 0 and the exception's own text; this
    names the fields (never their values) and turns a bug into -32603 with nothing from
    the exception, which the server log keeps with its traceback.
    """

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        if ctx.request_id is None:  # a notification: nothing is answered
            return await call_next(ctx)
        try:
            return await call_next(ctx)
        except MCPError:
            raise
        except ShapeError as exc:
            raise MCPError(INVALID_PARAMS, "Invalid params: "
                           + describe_shape_errors(exc, show_input=False)) from None
        except EngramError as exc:
            raise protocol_error(exc) from None
        except Exception:
            log.exception("%s failed", ctx.method)
            raise MCPError(INTERNAL_ERROR, UNEXPECTED) from None
