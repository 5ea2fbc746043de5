"""Every MCP message a client sends is screened here before the SDK sees it.

The SDK's stdio transport drops a line it cannot validate without answering (a request
whose `params` is an array waited forever), and its HTTP transport answers such a body
with pydantic's text and no id. `screen` gives both transports one behaviour:

- A message with an `id` member is a request and is always answered: -32700 if it is
  not JSON, -32600 if it is not a request, -32602 if its params are not an object (or
  nest too deep, or hold a lone surrogate), with its id when the id is a string or an
  integer, null otherwise.
- A message without one is a notification: MCP requests always carry an id, so nobody
  waits for an answer, and none is sent even when it is malformed. A reply sent by the
  client that nobody asked for is dropped too.
- What cannot be read as one JSON object (not JSON, an array, too large) is answered
  with id null, as JSON-RPC 2.0 specifies.

The size and nesting bounds are the REST API's (`netguard`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError as ShapeError

from ..netguard import DEFAULT_MAX_BODY, MAX_JSON_DEPTH, json_nesting

MAX_MESSAGE_BYTES = DEFAULT_MAX_BODY

RequestId = int | str
_JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean"}


@dataclass(frozen=True)
class Screened:
    """What to do with one inbound message: pass it on, answer it, or neither."""

    message: JSONRPCMessage | None = None
    reply: JSONRPCError | None = None


NOTHING = Screened()


def refusal(request_id: RequestId | None, code: int, message: str) -> Screened:
    return Screened(reply=JSONRPCError(jsonrpc="2.0", id=request_id,
                                       error=ErrorData(code=code, message=message)))


def too_large(limit: int = MAX_MESSAGE_BYTES) -> Screened:
    return refusal(None, INVALID_REQUEST, f"Invalid request: the message is larger than "
                                          f"{limit} bytes")


def screen(raw: bytes, *, limit: int = MAX_MESSAGE_BYTES) -> Screened:
    """Validate one raw message exactly as the SDK will, or say how to refuse it."""
    if len(raw) > limit:
        return too_large(limit)
    if not raw.strip():
        return NOTHING  # a blank line between messages
    where = json_nesting(raw)
    if where is not None:
        has_id, request_id = _top_level_id(raw)
        if not has_id:
            return NOTHING
        code = INVALID_PARAMS if where.startswith("params") else INVALID_REQUEST
        return refusal(request_id, code, f"Invalid request: {where} nests deeper than "
                                         f"{MAX_JSON_DEPTH} levels")
    try:
        parsed = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        return refusal(None, PARSE_ERROR, "Parse error: the message is not UTF-8 text")
    except ValueError as exc:
        return refusal(None, PARSE_ERROR, f"Parse error: {exc}")
    if not isinstance(parsed, dict):
        return refusal(None, INVALID_REQUEST, "Invalid request: a message is one JSON object "
                                              "(batches are not supported)")
    if "id" not in parsed:  # a notification: passed on when valid, never answered
        try:
            return Screened(message=jsonrpc_message_adapter.validate_json(raw, by_name=False))
        except ShapeError:
            return NOTHING
    request_id = _request_id(parsed.get("id"))
    try:
        json.dumps(parsed, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return refusal(request_id, INVALID_PARAMS, "Invalid params: a string holds a lone "
                                                   "surrogate escape (\\ud800-\\udfff), "
                                                   "which is not text")
    try:
        message = jsonrpc_message_adapter.validate_json(raw, by_name=False)
    except ShapeError:
        return _malformed(parsed, request_id)
    if isinstance(message, JSONRPCNotification) and "id" in parsed:
        # the SDK would take `"id": null` or `"id": 1.5` for a notification and never answer
        return refusal(None, INVALID_REQUEST, "Invalid request: id must be a string or an "
                                              "integer")
    return Screened(message=message)


def _malformed(message: dict[str, Any], request_id: RequestId | None) -> Screened:
    if "method" not in message and ("result" in message or "error" in message):
        return NOTHING  # a reply nobody asked for: there is nobody to answer
    problems = []
    if message.get("jsonrpc") != "2.0":
        problems.append('jsonrpc must be "2.0"')
    if not isinstance(message.get("method"), str):
        problems.append("method must be a string")
    if "id" in message and request_id is None:
        problems.append("id must be a string or an integer")
    params = message.get("params")
    if not problems and params is not None and not isinstance(params, dict):
        kind = _JSON_KINDS.get(type(params), "a number")
        return refusal(request_id, INVALID_PARAMS, f"Invalid params: params must be an "
                                                   f"object, not {kind}")
    problems = problems or ["the message is not a JSON-RPC 2.0 request"]
    return refusal(request_id, INVALID_REQUEST, "Invalid request: " + "; ".join(problems))


def _request_id(value: Any) -> RequestId | None:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+')


def _top_level_id(raw: bytes) -> tuple[bool, RequestId | None]:
    """Whether a message too deep to parse has an `id` member, and its value, read token
    by token."""
    depth = 0
    key = b""
    after_colon = False
    has_id = False
    for match in _TOKEN.finditer(raw):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
        elif token in (b"]", b"}"):
            depth -= 1
        elif token == b":":
            after_colon = depth == 1
            has_id = has_id or (after_colon and key == b'"id"')
            continue
        elif token == b",":
            key = b""
        elif depth == 1 and after_colon and key == b'"id"':
            try:
                return True, _request_id(json.loads(token))
            except ValueError:
                return True, None
        elif depth == 1:
            key = token
        after_colon = False
    return has_id, None
