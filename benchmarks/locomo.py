"""Retrieval quality on LoCoMo: each dialog turn one memory, each question one query.

Each conversation gets its own fresh store; turns are saved through the public
`save_many` with the service's dedup (LoCoMo repeats some turns nearly verbatim: a turn
merged into an earlier memory is scored as that memory). Relevance is the question's
evidence turns, as released (raw) and with the independent audit's corrections
(audited). Five systems run over the same queries: a plain BM25 baseline computed here
(SQLite FTS5 porter, OR of the terms), then Engram keyword-only, vector-only, hybrid
without re-ranking, and the default search. The harness is `conversations.py`, shared
with REALTALK; this module reads LoCoMo's format.

    python -m benchmarks.locomo [--data PATH] [--conversations N] [--json]
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from . import conversations as harness
from .conversations import (  # noqa: F401  (the names tests and callers import from here)
    SYSTEMS,
    Conversation,
    K,
    LabelStats,
    PlainBM25,
    Question,
    Run,
    Turn,
    normalise_evidence,
)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "datasets" / "locomo"
ENV_VAR = "ENGRAM_LOCOMO"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
HEADLINE = (1, 2, 3, 4)
LABELS = ("raw", "audited")
DATASET = harness.Dataset("locomo", "LoCoMo", CATEGORIES, HEADLINE, LABELS, "audited")


# --- data ------------------------------------------------------------------------------


def data_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """--data, else $ENGRAM_LOCOMO, else ../shared/datasets/locomo next to the repo."""
    chosen = Path(path or os.environ.get(ENV_VAR) or DEFAULT_DATA).expanduser()
    if chosen.is_file():
        chosen = chosen.parent
    if not (chosen / "locomo10.json").exists():
        raise click.ClickException(
            f"no locomo10.json in {chosen}; pass --data PATH or set ${ENV_VAR}"
        )
    return chosen


def parse_session_date(value: str) -> datetime:
    """"1:56 pm on 8 May, 2023" -> an aware UTC datetime (the data has no time zone)."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load(path: Path) -> tuple[list[Conversation], LabelStats]:
    samples = json.loads((path / "locomo10.json").read_text(encoding="utf-8"))
    audit_path = path / "locomo_audit_errors.json"
    audit: dict[tuple[int, int], dict[str, Any]] = {}
    if audit_path.exists():
        for item in json.loads(audit_path.read_text(encoding="utf-8")):
            sample, question = item["question_id"].removeprefix("locomo_").split("_qa")
            audit[(int(sample), int(question))] = item
    stats = LabelStats(LABELS)
    conversations = []
    for s_index, sample in enumerate(samples):
        conv = sample["conversation"]
        turns: list[Turn] = []
        sessions = sorted(
            (int(k.split("_")[1]), k) for k, v in conv.items()
            if k.startswith("session_") and isinstance(v, list)
        )
        for number, key in sessions:
            when = parse_session_date(conv[f"session_{number}_date_time"])
            for turn in conv[key]:
                turns.append(Turn(turn["dia_id"], turn["speaker"], turn["text"],
                                  turn.get("blip_caption"), when))
        known = {t.dia_id for t in turns}
        questions = []
        for q_index, qa in enumerate(sample["qa"]):
            where = f"{sample['sample_id']} q{q_index}"
            raw = normalise_evidence(qa.get("evidence") or [], known, where, stats)
            audited = raw
            fix = audit.get((s_index, q_index))
            if fix is not None and fix.get("question") == qa["question"]:
                corrected = normalise_evidence(
                    fix.get("correct_evidence") or [], known, where + " (audit)", stats
                )
                if corrected and set(corrected) != set(raw):
                    audited = corrected
                    stats.audit_corrections += 1
            evidence = {"raw": raw, "audited": audited}
            for label in LABELS:
                if not evidence[label]:
                    stats.without_evidence[label] += 1
            questions.append(Question(q_index, qa["question"], int(qa["category"]), evidence))
        conversations.append(Conversation(sample["sample_id"], turns, questions))
    return conversations, stats


def evaluate(conversations: Sequence[Conversation], **kwargs: Any) -> Run:
    return harness.evaluate(DATASET, conversations, **kwargs)


@click.command("locomo")
@harness.options(DATASET, f"Folder with locomo10.json (default ${ENV_VAR}, else {DEFAULT_DATA}).",
                 ENV_VAR)
def command(data: str | None, **kwargs: Any) -> None:
    """Retrieval quality on LoCoMo: Recall@1/5/10, MRR, nDCG@10 with ablations."""
    harness.main(DATASET, load(data_dir(data)), **kwargs)


if __name__ == "__main__":
    command()
