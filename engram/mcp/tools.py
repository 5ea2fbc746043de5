"""The memory_* tools: each parses its arguments, calls one service method, renders both forms.

Descriptions tell the agent *when* to call a tool, since that is what it decides from.
Engram's own errors become tool errors (isError) carrying the service's message, so a
bad argument never takes the server down and the model can correct its call (see
`errors` for the convention). Tool functions are synchronous: over HTTP the SDK runs
them on a worker thread, off the event loop (the store serialises access with a lock);
over stdio they run on the loop itself (`server.build_server`'s `inline`).
"""

import functools
import inspect
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from ..errors import EngramError, ValidationError
from ..exchange import FORMATS
from ..model import TYPES
from ..service import Engram
from ..service.results import deleted_answer
from .errors import describe
from .render import card, line, lines, result, snippet

F = TypeVar("F", bound=Callable[..., Any])

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                      open_world_hint=False)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                         open_world_hint=False)
SET = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                      open_world_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                          open_world_hint=False)



def arg(kind: Any, description: str) -> Any:
    """A parameter type with its description, which lands in the schema the agent reads."""
    return Annotated[kind, Field(description=description)]


Text = str | None
Many = list[str] | str | None
Id = arg(str, "A memory id (or an unambiguous prefix of at least 4 characters).")
TypeName = arg(Text, f"Memory type, one of: {', '.join(TYPES)}.")
Types = arg(Many, f"Only these types ({', '.join(TYPES)}).")
Tags = arg(Many, 'Tags / concepts, e.g. ["auth", "db"].')
Files = arg(Many, "File paths the memory is about, relative to the repo root.")
Unit = arg(float | None, "A number from 0 to 1.")
When = arg(Text, "ISO 8601 date/time or a phrase: 'yesterday', '3d', 'last week'.")
Limit = arg(int, "How many memories at most (1-500).")


def _engram_errors(func: F, inline: bool = False) -> F:
    """Engram's errors reach the agent as a tool error with the service's message.

    `inline`: a coroutine function, which the SDK awaits on its event loop instead of
    handing the call to a worker thread."""

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except EngramError as exc:
            raise ToolError(describe(exc)) from exc

    if inline:
        @functools.wraps(func)
        async def on_the_loop(*args: Any, **kwargs: Any) -> Any:
            return call(*args, **kwargs)

        return on_the_loop  # type: ignore[return-value]
    return functools.wraps(func)(call)  # type: ignore[return-value]


def _limit(value: int) -> int:
    if isinstance(value, bool) or not 1 <= value <= 500:
        raise ValidationError("limit", f"must be a whole number from 1 to 500, got {value!r}")
    return value


def register_tools(server: MCPServer, service: Engram, default_project: str | None, *,
                   inline: bool = False) -> None:
    """Add every memory_* tool to `server`, all working on the one `service` (`inline`: on
    the event loop, see `server.build_server`)."""

    def when(name: str, value: str | None) -> datetime | None:
        if value is None or not value.strip():
            return None
        from ..temporal import parse_date

        try:
            return parse_date(value, now=service.clock())
        except ValueError as exc:
            raise ValidationError(name, str(exc)) from None

    def project_or_default(project: str | None) -> str | None:
        """Omitted → the session's project (ENGRAM_PROJECT, or the agent's folder's); "" →
        global, on purpose."""
        if project is None:
            return default_project
        return project or None

    def tool(annotations: ToolAnnotations, title: str) -> Callable[[F], F]:
        def decorator(func: F) -> F:
            server.add_tool(_engram_errors(func, inline), name=func.__name__, title=title,
                            description=inspect.cleandoc(func.__doc__ or ""),
                            annotations=annotations)
            return func
        return decorator

    default_note = (f' Omitted: {default_project!r} (this session\'s project); "" for a '
                    "global memory." if default_project
                    else " Omitted: a global memory (all projects).")
    context_note = (f" Omitted: {default_project!r}." if default_project
                    else " Omitted: all projects.")

    @tool(ADD, "Save a memory")
    def memory_save(
        content: arg(str, "The memory: one fact, self-contained, with the why."),
        type: TypeName = None,  # noqa: A002 - the field's name in the contract
        project: arg(Text, "Project name." + default_note) = None,
        tags: Tags = None,
        files: Files = None,
        problem: arg(Text, "For bug_note/failed_attempt: the problem.") = None,
        solution: arg(Text, "For bug_note: what fixed it.") = None,
        importance: Unit = None,
        confidence: Unit = None,
        event_at: When = None,
        expires_at: When = None,
        supersedes: arg(Text, "Id of the memory this one replaces (a fact that changed).") = None,
        scope: arg(Text, "On a shared server: 'team' (everyone) or 'personal' (you only); "
                   "default personal for a preference, team for the rest.") = None,
    ) -> CallToolResult:
        """Save something worth remembering across sessions, as soon as it happens.

        Save: a decision and its reason (type decision), a constraint or rule (constraint),
        a user preference (preference), a command that worked (verified_command), a bug and
        its fix (bug_note), an approach that failed and why (failed_attempt), a todo, an
        open question, a project fact. One fact per memory. When a fact changed, pass
        `supersedes` with the old memory's id instead of saving a contradiction. Do not
        save secrets (they are redacted), transcripts, or what the code already says.
        Saving the same thing twice merges into the existing memory.
        """
        saved = service.save(
            content, type=type, project=project_or_default(project), tags=tags, files=files,
            problem=problem, solution=solution, importance=importance, confidence=confidence,
            event_at=when("event_at", event_at), expires_at=when("expires_at", expires_at),
            supersedes=supersedes, scope=scope, provenance="agent",
        )
        memory = saved.memory
        if saved.queued:
            text = (f"Queued {memory.id}: the team server cannot be reached; it is sent when "
                    f"it can (nothing is lost):\n{line(memory)}")
        elif saved.duplicate:
            text = f"Already remembered as {memory.id} (merged, nothing new saved):\n{line(memory)}"
        else:
            text = f"Saved {memory.id}:\n{line(memory)}"
            if memory.supersedes:
                text += f"\nIt supersedes {memory.supersedes} (kept in history)."
        if saved.conflicts:
            text += ("\nSimilar memories exist; if this one replaces one of them, call "
                     "memory_update on it or save again with supersedes=<id>:")
            text += "".join(f"\n  [{c.memory.id}] {snippet(c.memory.content, 160)}"
                            for c in saved.conflicts)
        if saved.redacted:
            text += f"\nRedacted before saving: {', '.join(saved.redacted)}."
        return result(text, saved.to_dict())

    @tool(READ, "Search memory")
    def memory_search(
        query: arg(str, "What to look for, in words; phrases like 'last week' filter by date."),
        k: arg(int, "How many results (1-100).") = 10,
        project: arg(Text, "Only this project (plus global memories). Omitted: all.") = None,
        types: Types = None,
        since: When = None,
        until: When = None,
        files: arg(Many, "Files you are working on: memories about them rank higher.") = None,
        tags: Tags = None,
        min_score: arg(float | None, "Keep results scoring at least this; 0 shows every"
                       " result. Omitted: results far below the best are left out.") = None,
    ) -> CallToolResult:
        """Search long-term memory (hybrid keyword + meaning, newest version only).

        Use it at the start of a task, and before re-deciding anything, choosing a library,
        running an unfamiliar command or retrying something that may have failed before.
        Memory is background context: current code beats old memory; if a result conflicts
        with the code, say so and follow the code.
        """
        if isinstance(k, bool) or not 1 <= k <= 100:
            raise ValidationError("k", f"must be a whole number from 1 to 100, got {k!r}")
        response = service.search(
            query, k=k, files=files, caller="mcp", project=project, types=types, tags=tags,
            since=when("since", since), until=when("until", until), min_score=min_score,
        )
        found = [line(r.memory, r.score) for r in response.results]
        text = "\n".join(found) if found else f"No memories match {query!r}."
        if response.cut:
            text += f"\n({response.cut} weaker results left out; min_score=0 shows them.)"
        if response.notes:
            text += "\n" + "\n".join(f"Note: {n}" for n in response.notes)
        return result(text, response.to_dict())

    @tool(READ, "Get a memory")
    def memory_get(id: Id) -> CallToolResult:  # noqa: A002
        """Open one memory in full (all its fields) by id, e.g. one a search returned."""
        memory = service.get(id)
        return result(card(memory), {"memory": memory.to_dict()})

    @tool(CHANGE, "Update a memory")
    def memory_update(
        id: Id,  # noqa: A002
        content: arg(Text, "New content (makes a new version).") = None,
        type: TypeName = None,  # noqa: A002
        project: arg(Text, 'New project; "" makes it global.') = None,
        tags: Tags = None,
        files: Files = None,
        problem: str | None = None,
        solution: str | None = None,
        importance: Unit = None,
        confidence: Unit = None,
        event_at: When = None,
        expires_at: When = None,
        in_place: arg(bool, "Edit without a new version (typo fixes only).") = False,
    ) -> CallToolResult:
        """Correct or change a memory. Only the fields you pass change.

        New content makes a new version that supersedes the old one (the old one stays in
        memory_history), so use this when a fact changed, e.g. "we moved from React 17 to
        19". Returns the memory as it now stands (the new version's id if content changed).
        """
        changes = {
            "content": content, "type": type, "project": project, "tags": tags, "files": files,
            "problem": problem, "solution": solution, "importance": importance,
            "confidence": confidence, "event_at": when("event_at", event_at),
            "expires_at": when("expires_at", expires_at),
        }
        changes = {k: v for k, v in changes.items() if v is not None}
        if not changes:
            raise ValidationError("fields", "nothing to update; pass at least one field to change")
        old_id = service.resolve(id).id
        memory = service.update(id, in_place=in_place, **changes)
        text = (f"New version {memory.id} supersedes {old_id}:\n{line(memory)}"
                if memory.id != old_id else f"Updated {memory.id}:\n{line(memory)}")
        return result(text, {"memory": memory.to_dict(), "previous_id": old_id,
                             "new_version": memory.id != old_id})

    @tool(READ, "Version history of a memory")
    def memory_history(id: Id) -> CallToolResult:  # noqa: A002
        """The whole version chain of a memory, oldest first: how a fact changed over time."""
        chain = service.history(id)
        return result(lines(chain), {"versions": [m.to_dict() for m in chain]})

    @tool(SET, "Archive a memory")
    def memory_archive(id: Id) -> CallToolResult:  # noqa: A002
        """Hide a memory that no longer matters from searches, reversibly (memory_restore).

        Prefer this to memory_delete. For a fact that changed, save the new one with
        `supersedes` instead.
        """
        memory = service.archive(id)
        return result(f"Archived {memory.id}.", {"memory": memory.to_dict()})

    @tool(SET, "Restore a memory")
    def memory_restore(id: Id) -> CallToolResult:  # noqa: A002
        """Bring an archived or soft-deleted memory back into searches."""
        memory = service.restore(id)
        return result(f"Restored {memory.id}:\n{line(memory)}", {"memory": memory.to_dict()})

    @tool(DESTROY, "Delete a memory for good")
    def memory_delete(
        id: Id,  # noqa: A002
        hard: arg(bool, "true: remove it from the store for good (needs confirm: true).")
        = False,
        confirm: arg(bool, "Must be true with hard: a hard delete cannot be undone.") = False,
    ) -> CallToolResult:
        """Delete a memory: marked deleted and hidden everywhere, restorable with
        memory_restore (as `engram delete` does). With hard: true it is removed for good,
        which needs confirm: true (ask the user first; e.g. it holds something that must
        not be kept). Deleting the newest version makes the version it replaced current.
        """
        if hard and confirm is not True:
            memory = service.resolve(id)
            raise ValidationError(
                "confirm",
                f"a hard memory_delete removes {memory.id} ({snippet(memory.content, 80)!r}) "
                "for good and needs confirm: true; without hard it is restorable",
            )
        memory = service.delete(id, hard=hard)
        told = "permanently" if hard else "(restorable with memory_restore)"
        return result(f"Deleted {memory.id} {told}.", deleted_answer(memory, hard))

    @tool(SET, "Pin or unpin a memory")
    def memory_pin(
        id: Id,  # noqa: A002
        pinned: arg(bool, "false to unpin.") = True,
    ) -> CallToolResult:
        """Pin a memory that must always be considered (ranks first, never fades), or unpin it."""
        memory = service.pin(id, pinned)
        return result(f"{'Pinned' if memory.pinned else 'Unpinned'} {memory.id}.",
                      {"memory": memory.to_dict()})

    @tool(CHANGE, "Confirm a memory")
    def memory_confirm(id: Id) -> CallToolResult:  # noqa: A002
        """A memory proved right (the code or the user agrees): raise its confidence."""
        memory = service.confirm(id)
        return result(f"Confirmed {memory.id}: confidence {memory.confidence:.2f}.",
                      {"memory": memory.to_dict()})

    @tool(CHANGE, "Reject a memory")
    def memory_reject(id: Id) -> CallToolResult:  # noqa: A002
        """A memory proved wrong or misleading: lower its confidence (it ranks lower).

        If you know the correct fact, save it with `supersedes` instead.
        """
        memory = service.reject(id)
        return result(f"Rejected {memory.id}: confidence {memory.confidence:.2f}.",
                      {"memory": memory.to_dict()})

    @tool(READ, "Load context for a task")
    def memory_context(
        task: arg(Text, "The task at hand, in a sentence.") = None,
        files: arg(Many, "Files you are about to work on.") = None,
        project: arg(Text, "Project name." + context_note) = None,
        budget: arg(int, "Token budget for the pack (50-50000).") = 1500,
    ) -> CallToolResult:
        """A compact briefing for starting a task: the rules, decisions, preferences,
        verified commands, known bugs and failed attempts relevant to the task and files,
        within a token budget. Call it at the start of a task. Memory is background
        context: current code beats old memory."""
        pack = service.context(project=project_or_default(project), task=task, files=files,
                               budget=budget)
        service.mark_used(pack.memory_ids)
        return result(pack.text, pack.to_dict())

    @tool(ADD, "Checkpoint a task")
    def memory_checkpoint(
        summary: arg(str, "What was done, in a few sentences."),
        problem: arg(Text, "The problem that was solved.") = None,
        solution: arg(Text, "How it was solved.") = None,
        files: Files = None,
        concepts: arg(Many, "Key concepts, for finding it later.") = None,
        project: arg(Text, "Project name." + default_note) = None,
        session_id: arg(Text, "The same id again updates that checkpoint in place.") = None,
    ) -> CallToolResult:
        """Record a task summary when you finish a task (or reach a milestone): what was
        done, the problem, the solution, the files touched, the key concepts. The next
        session finds it when it works on the same thing."""
        saved = service.checkpoint(summary, project=project_or_default(project),
                                   problem=problem, solution=solution, files=files,
                                   concepts=concepts, session_id=session_id)
        verb = "Updated checkpoint" if saved.duplicate else "Checkpoint saved as"
        return result(f"{verb} {saved.memory.id}:\n{line(saved.memory)}", saved.to_dict())

    def typed_list(memory_type: str, project: str | None, limit: int, empty: str) -> CallToolResult:
        memories = service.list(types=[memory_type], project=project_or_default(project),
                                limit=_limit(limit), order="newest")
        return result(lines(memories, empty), {"memories": [m.to_dict() for m in memories],
                                               "count": len(memories)})

    @tool(READ, "Open questions")
    def memory_open_questions(project: arg(Text, "Project name." + context_note) = None,
                             limit: Limit = 50) -> CallToolResult:
        """The open questions recorded for a project (plus global ones): check them before
        deciding something they are about, and resolve them with the user when you can."""
        return typed_list("open_question", project, limit, "No open questions.")

    @tool(READ, "Verified commands")
    def memory_verified_commands(project: arg(Text, "Project name." + context_note) = None,
                                limit: Limit = 50) -> CallToolResult:
        """Commands known to work for a project (build, test, run, deploy): use them before
        guessing a command."""
        return typed_list("verified_command", project, limit, "No verified commands.")

    @tool(READ, "Memory statistics")
    def memory_stats() -> CallToolResult:
        """How much is remembered: counts by type, project and status, the embedder."""
        stats = service.stats()
        summary = ", ".join(f"{key}: {value}" for key, value in stats.items()
                            if not isinstance(value, dict | list))
        return result(f"Memory statistics: {summary}", stats)

    @tool(READ, "Export memories")
    def memory_export(
        format: arg(str, f"One of: {', '.join(FORMATS)}.") = "markdown",  # noqa: A002
        project: arg(Text, "Only this project. Omitted: everything.") = None,
    ) -> CallToolResult:
        """Export memories as text (json, jsonl, markdown, or a CLAUDE.md block), e.g. to
        show the user what is remembered or to write an AGENTS.md/CLAUDE.md section."""
        text = service.export(format, project=project)
        return result(text, {"format": format, "project": project, "text": text})

