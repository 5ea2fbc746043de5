"""Telling the user what automatic upkeep archived, and how to take it back.

Upkeep runs in the background after saves; when it archives or merges memories nobody is
watching. Each run's record (`upkeep_runs`) keeps the ids it touched, so `engram log
--upkeep` can list what every run did with the commands that undo it, and the next
interactive command says so once (the last run announced is kept per store in
$ENGRAM_HOME/state/upkeep-seen.json).
"""

from __future__ import annotations

import json
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from ..config import home_dir, write_private

if TYPE_CHECKING:
    from ..service import Engram

SEEN_FILE = "upkeep-seen.json"
RUNS_LOOKED_AT = 50


def what_it_did(run: dict[str, Any]) -> dict[str, Any]:
    """A run's archives and merges, and the commands that undo each."""
    report = run.get("report") or {}
    gc = report.get("gc") or {}
    merged = report.get("consolidate") or {}
    created = list(merged.get("created") or [])
    folded = int((merged.get("counts") or {}).get("archive", 0))
    archived = [i for i in (gc.get("ids") or []) if isinstance(i, str)]
    return {
        "id": run.get("id"), "trigger": run.get("trigger"),
        "finished_at": run.get("finished_at"), "error": report.get("error"),
        "archived": archived, "merged": folded, "merged_into": created,
        "undo": [f"engram restore {i}" for i in archived]
        + [f"engram unconsolidate {i}" for i in created],
    }


def sentence(done: dict[str, Any]) -> str | None:
    """'archived 118 unused memories and merged 69 into 29' (None when it did nothing)."""
    parts = []
    if done["archived"]:
        count = len(done["archived"])
        parts.append(f"archived {count} unused memor{'y' if count == 1 else 'ies'}")
    if done["merged_into"]:
        parts.append(f"merged {done['merged']} related episodes into {len(done['merged_into'])}")
    return " and ".join(parts) or None


def _seen_path() -> Any:
    return home_dir("state") / SEEN_FILE


def _seen() -> dict[str, int]:
    try:
        data = json.loads(_seen_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, int)} if (
        isinstance(data, dict)) else {}


def news(service: Engram) -> str | None:
    """One line about the upkeep runs not announced yet that changed anything, or None;
    marks them announced."""
    runs = [r for r in service.upkeep_runs(RUNS_LOOKED_AT) if r.get("finished_at")]
    if not runs:
        return None
    seen = _seen()
    key = str(service.path)
    last = seen.get(key)
    newest = max(int(r["id"]) for r in runs)
    if last is None or newest > last:
        seen[key] = newest
        with suppress(OSError):  # a read-only home: said again next time, no harm
            write_private(_seen_path(), json.dumps(seen))
    if last is None:
        last = 0  # the first look at this store tells what earlier runs did
    done = [what_it_did(r) for r in runs if int(r["id"]) > last]
    total = {"archived": [i for d in done for i in d["archived"]],
             "merged": sum(d["merged"] for d in done),
             "merged_into": [i for d in done for i in d["merged_into"]]}
    said = sentence(total)  # every run since the last notice, told as one
    if not said:
        return None
    return (f"engram: automatic upkeep {said} — `engram log --upkeep` shows which, and how"
            " to restore them")
