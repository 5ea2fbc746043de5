"""`engram search` and `engram context` through the warm worker (engram/worker.py).

A new `engram` process would import the service, open the store and load the embedding
model before its first answer (~1 s); the worker the hooks keep up has all of that
already. The command sends its own arguments as one request on the worker's socket (the
hooks' socket: one worker per store serves both) and prints the answer as it would have
printed its own; with no worker, a stale socket or any error, it does the work
in-process as before, and when none is up it starts one for the next command.

Both sides live here, so the rule is written once: `search_kwargs` turns the command's
arguments into the service's, `answer` (in the worker) calls the service and serialises
its result the way `--json` prints it, and the command in-process uses the same
`search_kwargs`. This module imports neither click nor the service: the command's path to
a worker that answers stays light.
"""

from __future__ import annotations

import os
import sys
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from ..errors import ValidationError

#: How long a command waits to reach a worker, then for its answer. The connect is local
#: (a listening worker accepts at once); the answer may wait behind a hook's request.
CONNECT_TIMEOUT_S = 0.2
ANSWER_TIMEOUT_S = 15.0


def split_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def parse_when(name: str, value: str | None) -> datetime | None:
    """Dates on the command line: ISO 8601 or phrases like "yesterday", "3d"."""
    if value is None:
        return None
    from ..temporal import parse_date

    try:
        return parse_date(value)
    except ValueError as exc:
        raise ValidationError(name, str(exc)) from None


# --- the command's arguments, as the service takes them --------------------------------------


def search_request(
    query: str, *, k: int, project: str | None, types: list[str], tags: list[str],
    files: str | None, since: str | None, until: str | None, include_superseded: bool,
    include_archived: bool, explain: bool, show_all: bool, min_score: float | None,
) -> dict[str, Any]:
    """`engram search`'s arguments as typed (dates unparsed: the side that searches reads
    them, against its own clock)."""
    return {"op": "search", "query": query, "k": k, "project": project, "types": types,
            "tags": tags, "files": files, "since": since, "until": until,
            "include_superseded": include_superseded, "include_archived": include_archived,
            "explain": explain, "show_all": show_all, "min_score": min_score}


def search_kwargs(request: dict[str, Any]) -> dict[str, Any]:
    """What `service.search` gets for a search request, in this process or the worker."""
    return {
        "query": request["query"],
        "k": request["k"],
        "project": request.get("project"),
        "types": list(request.get("types") or ()) or None,
        "tags": list(request.get("tags") or ()) or None,
        "files": split_list(request.get("files")),
        "since": parse_when("since", request.get("since")),
        "until": parse_when("until", request.get("until")),
        "include_superseded": bool(request.get("include_superseded")),
        "include_archived": bool(request.get("include_archived")),
        "min_score": 0.0 if request.get("show_all") else request.get("min_score"),
    }


def context_request(task: str | None, *, project: str | None, files: str | None,
                    budget: int) -> dict[str, Any]:
    return {"op": "context", "task": task, "project": project, "files": files,
            "budget": budget}


def context_kwargs(request: dict[str, Any]) -> dict[str, Any]:
    return {"project": request.get("project"), "task": request.get("task") or None,
            "files": split_list(request.get("files")), "budget": request["budget"]}


# --- in the worker ----------------------------------------------------------------------------


def answer(service: Any, request: dict[str, Any]) -> dict[str, Any]:
    """The worker's answer to a command's request: the service's result as the command's
    `--json` prints it (`response`), and what its human output needs besides."""
    op = request.get("op")
    if op == "search":
        response = service.search(**search_kwargs(request))
        data: dict[str, Any] = {
            "response": response.to_dict(bool(request.get("explain"))),
            # unrounded, for the table's three decimals to be the in-process ones
            "scores": [r.score for r in response.results],
        }
    elif op == "context":
        data = {"response": service.context(**context_kwargs(request)).to_dict()}
    else:
        raise ValueError(f"unknown op {op!r}")
    if request.get("news"):  # a person at a terminal: what upkeep did meanwhile
        from ..worker import _is_remote

        if not _is_remote(service):
            from ..lifecycle.notice import news

            data["news"] = news(service)
    return data


# --- in the command ---------------------------------------------------------------------------


def ask(request: dict[str, Any], db: str | None) -> tuple[dict[str, Any] | None, bool]:
    """(the worker's answer or None, whether no worker was listening). On None the command
    works in-process; when none was listening, it then starts one for the next command
    (`spawn`). `db` is the store the command names (--db / ENGRAM_DB), if any."""
    from ..config import load_config
    from ..hooks import client

    try:
        config = load_config()
        if not client.worker_enabled(config):
            return None, False
        path = client.socket_path(config, db)
        request = {**request, "news": sys.stderr.isatty()}
        response = client.call(request, ANSWER_TIMEOUT_S, path,
                               connect_timeout=CONNECT_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 - a worker that fails is one we do without
        _note(f"the warm worker failed ({type(exc).__name__}: {exc}); answering here")
        return None, False
    if response is None:
        return None, True
    if not isinstance(response.get("response"), dict):
        _note("the warm worker answered something else; answering here")
        return None, False
    return response, False


def spawn(db: str | None) -> None:
    """Start a worker in the background (no wait) for the next command."""
    import contextlib

    from ..hooks import client

    with contextlib.suppress(Exception):  # the next command simply tries again
        client.spawn_worker(None, db)


def _note(message: str) -> None:
    if os.environ.get("ENGRAM_DEBUG"):
        print(f"engram: {message}", file=sys.stderr)


def search_view(data: dict[str, Any]) -> Any:
    """The worker's search answer as the objects the command renders (a SearchResponse's
    attributes and Memory objects), without importing the retrieval pipeline; None when
    it is not the answer this version sends (the command then searches in-process)."""
    from ..model import from_iso, memory_from_dict

    try:
        body = data["response"]
        scores = data.get("scores") or [r["score"] for r in body["results"]]
        results = [
            SimpleNamespace(memory=memory_from_dict(r["memory"]), score=float(score),
                            signals=r.get("signals") or {})
            for r, score in zip(body["results"], scores, strict=True)
        ]
        return SimpleNamespace(
            query=body["query"], mode=body["mode"], results=results,
            since=from_iso(body.get("since")), until=from_iso(body.get("until")),
            temporal_phrase=body.get("temporal_phrase"), notes=list(body.get("notes") or []),
            cut=int(body.get("cut") or 0),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
