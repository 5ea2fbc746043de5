"""Capture one session: extract, then keep the store in step with what was extracted.

Claude Code calls Stop after every turn, PreCompact before a compaction and SessionEnd at
the end, each time with the whole transcript so far. Every call re-reads the session and
saves only what earlier calls did not (findings have stable keys, remembered in the
session's state file); the task summary is one memory updated in place; todos and open
questions are what is left open *at the end*, so one that a later turn closed is
archived, not left to mislead the next session.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..errors import EngramError
from ..model import to_iso
from . import transcript
from .extract import MAX_DECISIONS, RANKED_ORIGINS, Extraction, Finding, extract

OPEN_TYPES = ("todo", "open_question")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
MAX_KEYS = 2000


@dataclass
class CaptureResult:
    saved: list[Any] = field(default_factory=list)  # Memory objects newly stored
    archived: list[str] = field(default_factory=list)
    summary: Any = None
    empty: bool = False


def _when(stamp: str | None) -> datetime | None:
    if not stamp:
        return None
    try:
        parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _valid(text: str) -> str:
    """Text a transcript decoded into lone surrogates (a `\\ud800` escape) would be refused
    by the service: they become U+FFFD, so the memory is kept, not lost."""
    return _SURROGATE_RE.sub("\ufffd", text)


def record(finding: Finding, project: str | None, session_id: str | None) -> dict[str, Any]:
    """The service record for a finding: provenance hook, the event's time, its session."""
    meta: dict[str, Any] = {"capture": finding.origin, "capture_key": finding.key}
    if session_id:
        meta["session_id"] = _valid(session_id)
    data: dict[str, Any] = {
        "content": _valid(finding.content), "type": finding.type, "project": project,
        "provenance": "hook", "files": [_valid(f) for f in finding.files[:50]],
        "importance": finding.importance, "meta": meta, "tags": ["captured"],
    }
    if finding.problem:
        data["problem"] = _valid(finding.problem)
    if finding.solution:
        data["solution"] = _valid(finding.solution)
    when = _when(finding.at)
    if when is not None:
        data["event_at"] = when
    return data


def _as_captured(service: Any, memory_id: str, key: str,
                 written: dict[str, list[str]]) -> Any:
    """The memory capture wrote under `key`, if no one has archived, deleted or edited it
    since (then theirs stands, and capture leaves it alone); else None."""
    stamp = written.get(key, ["", ""])[1]
    try:
        current = service.get(memory_id, track=False)
    except EngramError:
        return None
    if current.status != "active" or (to_iso(current.updated_at) or "") != stamp:
        return None
    return current


def _retell(service: Any, memory_id: str, finding: Finding, written: dict[str, list[str]],
            project: str | None, session_id: str | None) -> None:
    """Update a captured memory in place with a fuller account of its event, unless
    someone has archived, deleted or edited it since capture wrote it: theirs stands."""
    if _as_captured(service, memory_id, finding.key, written) is None:
        return
    data = record(finding, project, session_id)
    updated = service.update(memory_id, in_place=True, content=data["content"],
                             problem=data.get("problem"), solution=data.get("solution"),
                             files=data["files"])
    written[finding.key] = [finding.digest, to_iso(updated.updated_at) or ""]


def _retire_displaced(service: Any, extraction: Extraction, captured: dict[str, str],
                      written: dict[str, list[str]], result: CaptureResult) -> None:
    """Archive the decisions an earlier call kept that the session has since replaced:
    those ranked below its best (`MAX_DECISIONS` a session), and an earlier wrap-up's once
    the last wrap-up states choices of its own (the design the session ended on; a turn's
    wrap-up restates, or revises, the one before). Otherwise a long session keeps the union
    of every turn's best few. One someone has archived, deleted or edited since stands."""
    ranked = [f for f in extraction.findings
              if f.type == "decision" and f.origin in RANKED_ORIGINS]
    crowded = len(ranked) >= MAX_DECISIONS
    restated = any(f.origin == "wrap-up" for f in ranked)
    now = {f.key for f in extraction.findings}
    for key in list(captured):
        origin = key.split(":", 1)[0]
        if key not in now and origin in RANKED_ORIGINS and (
                crowded or (restated and origin == "wrap-up")):
            _archive_as_captured(service, key, captured, written, result, kind="decision")


def _archive_as_captured(service: Any, key: str, captured: dict[str, str],
                         written: dict[str, list[str]], result: CaptureResult,
                         kind: str | None = None) -> None:
    """Archive the memory capture wrote under `key` (of `kind`, when given) and forget the
    key; a memory someone has archived, deleted or edited since is theirs: only the key
    goes."""
    current = _as_captured(service, captured[key], key, written)
    if current is not None:
        if kind is not None and current.type != kind:
            return
        try:
            service.archive(current.id)
        except EngramError:
            return
        result.archived.append(current.id)
    captured.pop(key, None)
    written.pop(key, None)


def _withdraw_findings(service: Any, extraction: Extraction, captured: dict[str, str],
                       written: dict[str, list[str]], result: CaptureResult) -> None:
    """Archive what an earlier call kept as found out (`Extractor.found_out`) that the
    session has since taken back: the person disputed it, or the next turn acted on it as
    a diagnosis. A Stop sees an answer before the reply to it. One someone has archived,
    deleted or edited since stands."""
    now = {f.key for f in extraction.findings}
    for key in list(captured):
        if key.startswith("finding:") and key not in now:
            _archive_as_captured(service, key, captured, written, result)


def _forget_removed_notes(service: Any, extraction: Extraction, project: str | None,
                          result: CaptureResult) -> None:
    """What was imported from a memory note of Claude's (engram/hooks/capture.py:
    memory_file) is archived once the session deletes that note ("clear the memories you
    added"): the person took it back."""
    for name in extraction.removed_notes:
        for memory in service.list(project=project, tags=["claude-memory"], limit=500):
            if memory.meta.get("source") == name:
                service.archive(memory.id)
                result.archived.append(memory.id)


def apply(
    service: Any,
    extraction: Extraction,
    *,
    project: str | None,
    session_id: str | None,
    state: dict[str, Any],
    rewrite: Callable[[str], str] | None = None,
) -> CaptureResult:
    """Save what is new, archive open items that are no longer open, update the summary.

    `state` is the session's own bookkeeping ({"captured": {key: id}, "written": …}),
    changed in place;
    `rewrite` may reword the task summary (a configured summariser).
    """
    result = CaptureResult(empty=extraction.empty)
    _forget_removed_notes(service, extraction, project, result)
    captured: dict[str, str] = state.setdefault("captured", {})
    # key -> [digest of the finding saved, updated_at of the memory as capture left it]
    written: dict[str, list[str]] = state.setdefault("written", {})
    if extraction.empty:  # what an earlier call found may be all it had, now taken back
        _withdraw_findings(service, extraction, captured, written, result)
        return result
    open_now = {f.key for f in extraction.findings if f.type in OPEN_TYPES}
    fresh = [f for f in extraction.findings if f.key not in captured]
    if fresh:
        saved = service.save_many([record(f, project, session_id) for f in fresh])
        for finding, outcome in zip(fresh, saved, strict=True):
            captured[finding.key] = outcome.memory.id
            written[finding.key] = [finding.digest, to_iso(outcome.memory.updated_at) or ""]
            if not outcome.duplicate:
                result.saved.append(outcome.memory)
    for finding in extraction.findings:  # the same event, told more fully now
        key = finding.key
        if key not in captured or written.get(key, [finding.digest])[0] == finding.digest:
            continue
        _retell(service, captured[key], finding, written, project, session_id)
    # an item told more fully now may have merged into the memory of its earlier wording:
    # that memory is still open
    still_open = {captured[key] for key in open_now if key in captured}
    for key, memory_id in list(captured.items()):
        if key.startswith("open:") and key not in open_now and memory_id not in still_open:
            try:
                service.archive(memory_id)
                result.archived.append(memory_id)
            except Exception:  # noqa: BLE001 - gone or already archived: nothing to undo
                pass
            captured.pop(key, None)
    _withdraw_findings(service, extraction, captured, written, result)
    _retire_displaced(service, extraction, captured, written, result)
    if len(captured) > MAX_KEYS:
        state["captured"] = dict(list(captured.items())[-MAX_KEYS:])
        state["written"] = {k: v for k, v in written.items() if k in state["captured"]}
    summary = extraction.summary
    if summary is not None:
        text = rewrite(summary.content) if rewrite is not None else summary.content
        result.summary = service.checkpoint(
            _valid(text), project=project, problem=_valid(summary.problem or "") or None,
            solution=_valid(summary.solution or "") or None,
            files=[_valid(f) for f in summary.files], session_id=session_id,
            provenance="hook",
        ).memory
    return result


def capture(
    service: Any,
    path: str,
    *,
    project: str | None,
    session_id: str | None = None,
    cwd: str | None = None,
    state: dict[str, Any] | None = None,
    failures: dict[str, dict[str, Any]] | None = None,
    rewrite: Callable[[str], str] | None = None,
    last_message: Any = None,
) -> CaptureResult:
    """Read a transcript file and capture it (see `apply`).

    `failures` are tool failures the PostToolUseFailure hook saw as they happened
    ({tool_use_id: {"error": …}}): they fill in results a transcript has not flushed yet.
    `last_message` is the Stop payload's `last_assistant_message`: the turn's closing
    words, which Claude Code hands the hook before the transcript may hold them.
    """
    session = transcript.read(os.path.expanduser(path))
    transcript.close_with(session, last_message)
    if failures:
        for call in session.tools:
            seen = failures.get(call.id)
            if seen and call.failed is None:
                call.failed = True
                call.interrupted = bool(seen.get("interrupt"))
                call.output = str(seen.get("error") or "")
    extraction = extract(session, cwd)
    state = state if state is not None else {}
    session_id = session_id or session.session_id
    result = apply(service, extraction, project=project, session_id=session_id, state=state,
                   rewrite=rewrite)
    _verify_settled(service, extraction, project=project, session_id=session_id, cwd=cwd,
                    state=state)
    return result


def _verify_settled(service: Any, extraction: Extraction, *, project: str | None,
                    session_id: str | None, cwd: str | None, state: dict[str, Any]) -> None:
    """Background commands whose task ended well, and the runs of subagents that passed, go
    through the PostToolUse rule for a verified command (engram/hooks/capture.py), once each,
    now that their verdict is known."""
    from ..hooks.capture import verified_command

    done: list[str] = state.setdefault("settled", [])
    delegated = {call.id for call in extraction.delegated_runs}
    for call in [*extraction.settled, *extraction.delegated_runs]:
        if call.id in done or len(done) >= MAX_KEYS:
            continue
        done.append(call.id)
        tool_input = {k: v for k, v in call.input.items() if k != "run_in_background"}
        verified_command(service, {"tool_input": tool_input, "cwd": cwd,
                                   "tool_response": {"stdout": call.output},
                                   "session_id": session_id}, project,
                         count_use=call.id not in delegated)
