"""Engram's REST API (`engram serve`): the service over HTTP, versioned under `/v1`.

`create_app(service, token=…, bind_host=…, cors_origins=…, max_body=…)` builds the
FastAPI application; `engram.cli.serve` runs it with uvicorn.
"""

from __future__ import annotations

from .app import create_app
from .security import DEFAULT_MAX_BODY, check_bind, is_loopback

__all__ = ["create_app", "check_bind", "is_loopback", "DEFAULT_MAX_BODY"]
