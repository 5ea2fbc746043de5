"""`engram demo`: remember, recall, supersede and filter on a throwaway store.

It shows in ten seconds what Engram does, on the real default embedder, without
touching the user's own memory.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import click

from .common import console, emit_json, esc, handle_errors, json_option, wants_json
from .render import memory_table

DEMO_MEMORIES: list[dict[str, Any]] = [
    {"content": "Auth is Clerk, not custom JWT", "type": "decision", "project": "shopfront"},
    {
        "content": "Never push to main without running the test suite first",
        "type": "constraint",
        "project": "shopfront",
    },
    {
        "content": "Run the tests with: pnpm test --filter web",
        "type": "verified_command",
        "project": "shopfront",
    },
    {
        "content": "Unit tests for push notifications live in apps/mobile/push.test.ts",
        "type": "project_fact",
        "project": "shopfront",
        "files": ["apps/mobile/push.test.ts"],
    },
    {"content": "Prefer small pull requests with one concern each", "type": "preference"},
    {
        "content": "We use React 17 in the storefront",
        "type": "project_fact",
        "project": "shopfront",
    },
    {
        "content": "Tried upgrading Prisma to 6; migrations failed with P3009, rolled back",
        "type": "failed_attempt",
        "project": "shopfront",
    },
    {
        "content": "Billing service is written in Go and deployed on Fly.io",
        "type": "project_fact",
        "project": "billing",
    },
]


@click.command()
@click.option("--keep", is_flag=True, help="Keep the demo store instead of deleting it.")
@json_option
@handle_errors
def demo(keep: bool, as_json: bool) -> None:
    """Save a handful of memories into a temporary store and search them."""
    import engram

    folder = Path(tempfile.mkdtemp(prefix="engram-demo-"))
    path = folder / "demo.db"
    report: dict[str, Any] = {"store": str(path), "steps": []}
    out = None if wants_json(as_json) else console()

    def step(title: str, results: list[Any] | None = None, **data: Any) -> None:
        report["steps"].append({"title": title, **data})
        if out is not None:
            out.rule(f"[bold]{title}")
            if results is not None:
                memory_table([r.memory for r in results], [r.score for r in results])

    with engram.open(path) as memory:
        saved = memory.save_many([{**m, "provenance": "human"} for m in DEMO_MEMORIES])
        step(f"remembered {len(saved)} memories", ids=[s.memory.id for s in saved])
        if out is not None:
            memory_table([s.memory for s in saved])

        query = "what auth system do we use"
        hits = memory.search(query, k=3).results
        step(f"search: {query!r}", hits, query=query, top=[r.memory.content for r in hits])

        query = "can I push without running tests"
        hits = memory.search(query, k=3).results
        step(f"search: {query!r}", hits, query=query, top=[r.memory.content for r in hits])

        react17 = next(s.memory for s in saved if "React 17" in s.memory.content)
        newer = memory.save(
            "We use React 19 in the storefront",
            type="project_fact",
            project="shopfront",
            supersedes=react17.id,
            provenance="human",
        )
        hits = memory.search("which React version", k=2, project="shopfront").results
        step(
            "supersede: React 17 → React 19; search shows only the newest",
            hits,
            superseded=react17.id,
            new=newer.memory.id,
            history=[m.content for m in memory.history(newer.memory.id)],
            top=[r.memory.content for r in hits],
        )

        hits = memory.search(
            "how do we deploy", k=3, project="billing", types=["project_fact"]
        ).results
        step(
            "filtered search: project=billing, type=project_fact",
            hits,
            top=[r.memory.content for r in hits],
        )

        redacted = memory.save(
            "Staging DB is postgres://app:hunter2secret@db.internal/shop",
            type="project_fact",
            project="shopfront",
        )
        step(
            "secrets are redacted before storing",
            content=redacted.memory.content,
            redacted=list(redacted.redacted),
        )
        if out is not None:
            out.print(redacted.memory.content, markup=False)
        report["stats"] = {k: memory.stats()[k] for k in ("total", "by_status", "embedder")}

    if not keep:
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        folder.rmdir()
    report["kept"] = keep
    if out is None:
        emit_json(report)
        return
    out.rule()
    where = path if keep else f"{path} (deleted; use --keep to keep it)"
    out.print(f"demo store: {esc(where)}")
    from ..config import default_db_path

    out.print(f"your own store: {esc(default_db_path())}  (ENGRAM_HOME moves it, --db names one)")
