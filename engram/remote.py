"""The service on a team's server, reached over its REST API.

With `ENGRAM_URL` (and `ENGRAM_TOKEN`, a user's token) set, the memory commands of the CLI
act on that server with the same arguments and output as on a local store: this class
answers the service methods they call, from the same REST API the dashboard uses, and
turns the server's JSON back into the service's own objects and errors. What the server
refuses arrives as the same Engram error a local store would raise.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Sequence
from types import SimpleNamespace
from typing import Any

from .errors import (
    ConflictError,
    EngramError,
    NotFoundError,
    Queued,
    StoreUnavailableError,
    ValidationError,
)
from .model import Memory, from_iso, memory_from_dict
from .retrieval import SearchResponse, SearchResult
from .service.results import Conflict, ImportResult, SaveResult


class Unreachable(StoreUnavailableError):
    """The team server did not answer (or answered 503): a save waits in the outbox."""


URL_ENV = "ENGRAM_URL"
TOKEN_ENV = "ENGRAM_TOKEN"
TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 5.0  # a server that is down should not hold a command for long
BATCH = 200  # memories per request: the server's MAX_BATCH


class RemoteEngram:
    """The memory commands' service, on a server (see the module docstring)."""

    def __init__(self, url: str, token: str | None = None, *, timeout: float = TIMEOUT_S,
                 transport: Any = None) -> None:
        import httpx

        self.url = url.rstrip("/")
        self._replayed = False
        self.sync_notes: list[str] = []  # what the last sync could not apply as queued
        #: What adapters set on a local service's lifecycle (the hook's deferred jobs, a
        #: long-lived process); a server runs its own lifecycle, so nothing reads these.
        self.lifecycle = SimpleNamespace(defer=None, long_lived=False, upkeep_mode=None)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(base_url=self.url, headers=headers, transport=transport,
                                  timeout=httpx.Timeout(timeout, connect=CONNECT_TIMEOUT_S))

    @property
    def path(self) -> str:
        return self.url

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RemoteEngram:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise EngramError(f"`{name}` runs where the store is, not through {URL_ENV}: unset "
                          f"{URL_ENV} (or pass --db) on the server's machine")

    # --- the wire -------------------------------------------------------------------------

    def _call(self, method: str, path: str, *, replay: bool = True, **kwargs: Any) -> Any:
        import httpx

        if replay and not self._replayed:
            self._replayed = True  # once per process: what waited in the outbox goes first
            from . import outbox

            if outbox.pending():
                with contextlib.suppress(EngramError):
                    self.sync()
                    for note in self.sync_notes:  # stdout may be a protocol's: stderr
                        print(f"engram: {note}", file=sys.stderr)
        from .store.deadline import current_deadline

        deadline = current_deadline()  # a hook's: the request ends by then too
        if deadline is not None:
            import time

            kwargs.setdefault("timeout", max(0.05, deadline - time.monotonic()))
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            self._replayed = False  # a long-lived client replays when the server is back
            raise Unreachable(f"cannot reach the Engram server at {self.url}: {exc}") from None
        if response.status_code == 503:
            raise Unreachable(str(_error(response)))
        if response.status_code < 400:
            if response.headers.get("content-type", "").startswith("application/json"):
                return response.json()
            return response.text
        raise _error(response)

    # --- reading --------------------------------------------------------------------------

    def get(self, memory_id: str, *, track: bool = True) -> Memory:
        return memory_from_dict(self._call("GET", f"/v1/memories/{_id(memory_id)}",
                                           params={"track": str(track).lower()}))

    def history(self, memory_id: str) -> list[Memory]:
        data = self._call("GET", f"/v1/memories/{_id(memory_id)}/history")
        return [memory_from_dict(m) for m in data["items"]]

    def list(self, *, limit: int = 50, offset: int = 0, order: str = "newest",
             include_global: bool = True, **filter_args: Any) -> list[Memory]:
        """`include_global=False` (the project's own memories only) is applied to the page
        the server returns, which also holds global ones: a page may come back shorter."""
        params = {"limit": limit, "offset": offset, "order": order, **_filters(filter_args)}
        found = [memory_from_dict(m) for m in self._call("GET", "/v1/memories",
                                                         params=params)["items"]]
        project = filter_args.get("project")
        if not include_global and project:
            found = [m for m in found if m.project == project]
        return found

    def count(self, **filter_args: Any) -> int:
        params = {"limit": 0, **_filters(filter_args)}
        return int(self._call("GET", "/v1/memories", params=params)["total"])

    def search(self, query: str, *, k: int = 10, files: Any = None, caller: str | None = None,
               min_score: float | None = None, **filter_args: Any) -> SearchResponse:
        """`caller` is for a local recall log; the server logs the user who asked."""
        params = {"q": query, "k": k, "explain": "true", **_filters(filter_args)}
        if files:
            params["files"] = list(files)
        if min_score is not None:
            params["min_score"] = min_score
        data = self._call("GET", "/v1/search", params=params)
        results = [SearchResult(memory_from_dict(r["memory"]), float(r["score"]),
                                r.get("signals") or {}) for r in data["results"]]
        return SearchResponse(data["query"], results, data["mode"], from_iso(data["since"]),
                              from_iso(data["until"]), data.get("temporal_phrase"),
                              float(data.get("elapsed_ms") or 0), list(data.get("notes") or []),
                              int(data.get("cut") or 0))

    def stats(self) -> dict[str, Any]:
        return self._call("GET", "/v1/stats")

    def resolve(self, memory_id: str) -> Memory:
        return self.get(memory_id, track=False)

    @staticmethod
    def clock() -> Any:
        from .model import utcnow

        return utcnow()

    def instructions(self) -> str:
        return self._call("GET", "/v1/instructions")["text"]

    def context(self, *, project: str | None = None, task: str | None = None,
                files: Any = None, budget: int = 1500, exclude: Iterable[str] = ()) -> Any:
        """A context pack built by the server (the memories it holds for this user)."""
        from .context import ContextPack

        params: dict[str, Any] = {"budget": budget}
        if project:
            params["project"] = project
        if task:
            params["task"] = task
        if files:
            params["files"] = list(files)
        data = self._call("GET", "/v1/context", params=params)
        return ContextPack(data["text"], list(data.get("memory_ids") or []),
                           int(data.get("tokens") or 0), dict(data.get("sections") or {}))

    def recall_for_prompt(self, prompt: str, project: str | None = None,
                          exclude: Any = frozenset()) -> list[Any]:
        """What the server's prompt recall chooses (the UserPromptSubmit hook's question)."""
        from .prompt_recall import Recalled

        params: dict[str, Any] = {"prompt": prompt}
        if project:
            params["project"] = project
        if exclude:
            params["exclude"] = sorted(exclude)
        data = self._call("GET", "/v1/recall", params=params)
        return [Recalled(memory_from_dict(r["memory"]), float(r["score"]), r["why"])
                for r in data["items"]]

    def mark_used(self, memory_ids: Sequence[str]) -> None:
        """Report memories handed to the agent; best effort (a use not counted is no loss
        worth failing a hook for)."""
        ids = list(dict.fromkeys(memory_ids))[:500]
        if ids:
            with contextlib.suppress(EngramError):
                self._call("POST", "/v1/used", json={"ids": ids})

    def export(self, fmt: str = "json", **filter_args: Any) -> str:
        params = {"format": fmt}
        if filter_args.get("project"):
            params["project"] = filter_args["project"]
        return self._call("GET", "/v1/export", params=params)

    # --- writing --------------------------------------------------------------------------

    def save(self, content: str, **fields_: Any) -> SaveResult:
        """Saved on the server; or, when it cannot be reached, queued in the outbox
        (redacted, with an id chosen here) and reported as `queued`."""
        body = {"content": content, **_json_fields(fields_)}
        try:
            return _save_result(self._call("POST", "/v1/memories", json=body))
        except Unreachable:
            return self._queue(body)

    def _queue(self, body: dict[str, Any]) -> SaveResult:
        from . import outbox
        from .identity import new_id
        from .model import to_iso, utcnow
        from .redaction import redact_tree

        record, kinds = redact_tree(dict(body))  # secrets never wait on disk
        record["id"] = new_id()
        record.setdefault("created_at", to_iso(utcnow()))
        outbox.queue(record)
        memory = memory_from_dict(record)
        return SaveResult(memory, False, (), tuple(dict.fromkeys(kinds)), queued=True)

    def sync(self) -> tuple[int, int]:
        """Send the outbox to the server: (sent, still queued)."""
        from . import outbox

        def post(records: list[dict[str, Any]]) -> None:
            self._call("POST", "/v1/import", json={"records": records}, replay=False)

        def checkpoint(body: dict[str, Any]) -> None:
            self._call("POST", "/v1/checkpoint", json=body, replay=False)

        self.sync_notes = []
        return outbox.send(post, checkpoint, self._replay_edit)

    # --- edits made while the server could not be reached ----------------------------------

    def _edit(self, action: str, memory_id: str, method: str, path: str,
              body: dict[str, Any] | None = None, params: dict[str, str] | None = None
              ) -> Any:
        try:
            return self._call(method, path, json=body, params=params)
        except Unreachable:
            from . import outbox
            from .redaction import redact_tree

            queued, _ = redact_tree(dict(body or {}))
            outbox.queue_edit(action, memory_id, {"body": queued, "params": params or {}})
            raise Queued(action, memory_id, self.url) from None

    def _replay_edit(self, record: dict[str, Any]) -> None:
        """Apply one queued edit. An edit of a memory that changed meanwhile is never
        applied over that change: a queued update becomes a new memory beside the newer
        version (the usual conflict, for review); one already applied (its reply was
        lost) is not applied twice."""
        action, memory_id = str(record.get("action")), str(record.get("id"))
        queued = record.get("body") if isinstance(record.get("body"), dict) else {}
        body, params = queued.get("body") or None, queued.get("params") or None
        method, path = _EDIT_ROUTES.get(action, ("POST", "/v1/memories/{id}/" + action))
        try:
            self._call(method, path.format(id=_id(memory_id)), json=body, params=params,
                       replay=False)
        except (ConflictError, NotFoundError) as exc:
            if action != "update" or not isinstance(body, dict) or not body.get("content"):
                self.sync_notes.append(f"{action} of {memory_id} not applied: {exc}")
                return
            self.sync_notes.append(self._beside_newer(memory_id, body, exc))

    def _beside_newer(self, memory_id: str, body: dict[str, Any], exc: Exception) -> str:
        try:
            chain = [memory_from_dict(m) for m in self._call(
                "GET", f"/v1/memories/{_id(memory_id)}/history", replay=False)["items"]]
        except NotFoundError:
            chain = []
        newest = next((m for m in chain if m.status == "active"), None)
        if newest is not None and newest.content == body["content"]:
            return f"update of {memory_id} was already applied (as {newest.id})"
        base = chain[0] if chain else None
        fields_ = {"type": base.type, "project": base.project, "tags": list(base.tags),
                   "files": list(base.files)} if base is not None else {}
        saved = _save_result(self._call("POST", "/v1/memories", json={
            **{k: v for k, v in fields_.items() if v}, **body}, replay=False))
        where = f"beside the newer version {newest.id}" if newest else "(the memory is gone)"
        return (f"your offline update of {memory_id} met a change made meanwhile ({exc}): "
                f"saved as {saved.memory.id} {where}; `engram review` shows conflicts")

    def save_many(self, records: Sequence[dict[str, Any]]) -> list[SaveResult]:
        """All in one request (a hook's captures); when the server cannot be reached, each
        waits in the outbox."""
        bodies = [{"content": r["content"], **_json_fields(
            {k: v for k, v in r.items() if k != "content"})} for r in records]
        results: list[SaveResult] = []
        for start in range(0, len(bodies), BATCH):
            chunk = bodies[start:start + BATCH]
            try:
                data = self._call("POST", "/v1/memories/batch", json={"memories": chunk})
            except Unreachable:
                results += [self._queue(body) for body in bodies[start:]]
                break
            results += [_save_result(item) for item in data["results"]]
        return results

    def update(self, memory_id: str, *, in_place: bool = False, **changes: Any) -> Memory:
        body = _json_fields(changes)
        return memory_from_dict(self._edit(
            "update", memory_id, "PATCH", f"/v1/memories/{_id(memory_id)}", body,
            {"in_place": str(in_place).lower()}))

    def checkpoint(self, summary: str, **fields_: Any) -> SaveResult:
        """The session's summary on the server; or, when it cannot be reached, queued in
        the outbox (redacted; a newer summary of the session replaces a waiting one)."""
        fields_.pop("provenance", None)  # the server's checkpoints are checkpoints
        body = {"summary": summary, **_json_fields(fields_)}
        try:
            return _save_result(self._call("POST", "/v1/checkpoint", json=body))
        except Unreachable:
            from . import outbox
            from .identity import new_id
            from .redaction import redact_tree

            queued, kinds = redact_tree(dict(body))
            outbox.queue_checkpoint(queued)
            memory = memory_from_dict({"id": new_id(), "content": queued["summary"],
                                       "type": "task_summary",
                                       "project": queued.get("project")})
            return SaveResult(memory, False, (), tuple(dict.fromkeys(kinds)), queued=True)

    def _action(self, memory_id: str, name: str) -> Memory:
        return memory_from_dict(self._edit(name, memory_id, "POST",
                                           f"/v1/memories/{_id(memory_id)}/{name}"))

    def archive(self, memory_id: str) -> Memory:
        return self._action(memory_id, "archive")

    def restore(self, memory_id: str) -> Memory:
        return self._action(memory_id, "restore")

    def pin(self, memory_id: str, pinned: bool = True) -> Memory:
        return self._action(memory_id, "pin" if pinned else "unpin")

    def unpin(self, memory_id: str) -> Memory:
        return self._action(memory_id, "unpin")

    def confirm(self, memory_id: str) -> Memory:
        return self._action(memory_id, "confirm")

    def reject(self, memory_id: str) -> Memory:
        return self._action(memory_id, "reject")

    def delete(self, memory_id: str, *, hard: bool = False) -> Memory:
        data = self._edit("delete", memory_id, "DELETE", f"/v1/memories/{_id(memory_id)}",
                          params={"hard": str(hard).lower()})
        return memory_from_dict(data["memory"])

    def import_records(self, records: Iterable[tuple[int, Any]],
                       progress: Callable[[int], None] | None = None) -> ImportResult:
        """Records go as they were read; bad ones (already reported by the parser) are
        reported again with their line."""
        from .exchange import BadRecord

        result = ImportResult()
        good: list[tuple[int, Any]] = []
        for line, record in records:
            if isinstance(record, BadRecord):
                result.errors.append({"line": line, "error": record.error})
            else:
                good.append((line, record))
        for start in range(0, len(good), 500):
            chunk = good[start:start + 500]
            data = self._call("POST", "/v1/import", json={"records": [r for _, r in chunk]})
            result.imported += data["imported"]
            result.duplicates += data["duplicates"]
            result.ids += data["ids"]
            result.errors += [{**e, "line": chunk[e["line"] - 1][0]} for e in data["errors"]]
            if progress is not None:
                progress(start + len(chunk))
        return result


#: How a queued edit is replayed (the others are `POST /v1/memories/{id}/<action>`).
_EDIT_ROUTES = {"update": ("PATCH", "/v1/memories/{id}"),
                "delete": ("DELETE", "/v1/memories/{id}")}


def _id(memory_id: str) -> str:
    from urllib.parse import quote

    if not isinstance(memory_id, str) or not memory_id:
        raise ValidationError("id", "must be a memory id")
    return quote(memory_id, safe="")


def _json_fields(values: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of a save or update as the API's JSON (times as ISO text). The
    vocabularies are checked here too, so a wrong type reads as it does locally."""
    from datetime import datetime

    from .model import to_iso, validate_provenance, validate_type

    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            continue
        if key == "type":
            value = validate_type(value)
        elif key == "provenance":
            value = validate_provenance(value)
        if isinstance(value, datetime):
            value = to_iso(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out


_FILTER_PARAMS = {"project": "project", "types": "type", "tags": "tag", "since": "since",
                  "until": "until", "status": "status", "provenance": "provenance",
                  "pinned": "pinned"}


def _filters(args: dict[str, Any]) -> dict[str, Any]:
    from datetime import datetime

    from .model import to_iso

    args = dict(args)
    wider = [s for s, flag in (("superseded", args.pop("include_superseded", False)),
                               ("archived", args.pop("include_archived", False))) if flag]
    if wider and not args.get("status"):
        args["status"] = ["active", *wider]
    params: dict[str, Any] = {}
    for key, value in args.items():
        if value is None or value == () or value == []:
            continue
        name = _FILTER_PARAMS.get(key)
        if name is None:
            raise EngramError(f"the filter {key!r} is not available on a remote server")
        if isinstance(value, datetime):
            value = to_iso(value)
        elif isinstance(value, bool):
            value = str(value).lower()
        elif isinstance(value, Sequence) and not isinstance(value, str):
            value = list(value)
        params[name] = value
    return params


def _save_result(data: dict[str, Any]) -> SaveResult:
    conflicts = tuple(Conflict(Memory(id=c["id"], content=c["content"]), c["similarity"])
                      for c in data.get("conflicts") or ())
    return SaveResult(memory_from_dict(data["memory"]), bool(data["duplicate"]), conflicts,
                      tuple(data.get("redacted") or ()))


def _error(response: Any) -> EngramError:
    """The server's JSON error as the error a local store raises."""
    try:
        body = response.json()
        message, field = str(body.get("message") or body), body.get("field")
    except ValueError:
        message, field = response.text[:300] or response.reason_phrase, None
    status = response.status_code
    if status == 404:
        return NotFoundError("", message)
    if status == 409:
        return ConflictError(message)
    if status in (400, 413, 415, 422):
        name = str(field or "request")
        prefix = f"{name}: "
        return ValidationError(name, message[len(prefix):] if message.startswith(prefix)
                               else message)
    if status in (429, 503):
        return StoreUnavailableError(message)
    if status == 401:
        return EngramError(f"the server refused the token ({TOKEN_ENV}): {message}")
    return EngramError(f"the server answered {status}: {message}")


def open_configured(embedder: str | None = None) -> Any:
    """The service this machine's clients use: the team server when one is set (and no
    ENGRAM_DB names a local store), else the local store."""
    from .config import team_server

    url, token = team_server()
    if url:
        return RemoteEngram(url, token)
    import engram

    return engram.open(embedder=embedder)
