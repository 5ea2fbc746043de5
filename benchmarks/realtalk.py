"""Retrieval quality on REALTALK: real messaging-app chats over 21 days, LoCoMo's protocol.

REALTALK (Lee et al. 2025, the sequel of LoCoMo by the same authors) holds ten chats
between people who texted each other for three weeks: short turns, slang, typos, emoji,
photos with generated captions. Each turn is one memory ("Speaker: text", plus "[shares
a photo of …]"), saved with its own timestamp; each memory-probing question is one
query; relevance is its evidence turns. The harness is `conversations.py`, shared with
LoCoMo. Categories: 1 facts (often over several turns), 2 dates ("when did …"), 3
inference.

The data has no licence in its repository, so it is not committed here. Restore the ten
JSON files from a bare mirror of github.com/danny911kr/REALTALK into the gitignored
`benchmarks/realtalk_data/` with

    python -m benchmarks.realtalk --restore /work/.mirror/danny911kr+REALTALK/repo

then `python -m benchmarks.realtalk [--half even|odd] [--json]` (or `engram bench realtalk`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from . import conversations as harness
from .conversations import Conversation, LabelStats, Question, Run, Turn, normalise_evidence

REPO = Path(__file__).resolve().parent.parent
LOCAL_DATA = Path(__file__).resolve().parent / "realtalk_data"
SHARED_DATA = REPO.parent / "shared" / "datasets" / "realtalk"
ENV_VAR = "ENGRAM_REALTALK"
CATEGORIES = {1: "fact", 2: "temporal", 3: "inference"}
LABELS = ("raw",)
DATASET = harness.Dataset("realtalk", "REALTALK", CATEGORIES, (1, 2, 3), LABELS, "raw")
_CHAT = re.compile(r"Chat_(\d+)_.+\.json$")
_RANGE = re.compile(r"D(\d+):(\d+)\s*-\s*(?:D(\d+):)?(\d+)")


# --- data ------------------------------------------------------------------------------


def chat_files(folder: Path) -> list[Path]:
    """The chats in `folder`, in their number's order (Chat_1 … Chat_10)."""
    found = [(int(m.group(1)), p) for p in folder.glob("Chat_*.json")
             if (m := _CHAT.match(p.name))]
    return [p for _, p in sorted(found)]


def data_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """--data, else $ENGRAM_REALTALK, else benchmarks/realtalk_data, else ../shared/datasets."""
    if path or os.environ.get(ENV_VAR):
        candidates = [Path(path or os.environ[ENV_VAR]).expanduser()]
    else:
        candidates = [LOCAL_DATA, SHARED_DATA]
    for chosen in candidates:
        if chosen.is_file():
            chosen = chosen.parent
        if chat_files(chosen):
            return chosen
    raise click.ClickException(
        f"no Chat_N_*.json in {' or '.join(map(str, candidates))}; pass --data PATH, set "
        f"${ENV_VAR}, or restore them: python -m benchmarks.realtalk --restore MIRROR"
    )


def restore(mirror: Path, target: Path = LOCAL_DATA) -> list[Path]:
    """Copy data/Chat_*.json out of a bare git mirror of the REALTALK repository."""
    git = ["git", "--git-dir", str(mirror)]
    listing = subprocess.run([*git, "ls-tree", "--name-only", "HEAD", "data/"],
                             capture_output=True, text=True, check=True).stdout.split()
    names = [n for n in listing if _CHAT.match(Path(n).name)]
    if not names:
        raise click.ClickException(f"no data/Chat_*.json at HEAD of {mirror}")
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        data = subprocess.run([*git, "show", f"HEAD:{name}"], capture_output=True,
                              check=True).stdout
        out = target / Path(name).name
        out.write_bytes(data)
        written.append(out)
    return written


def parse_time(value: str) -> datetime:
    """"29.12.2023, 22:42:04" -> an aware UTC datetime (the data has no time zone)."""
    return datetime.strptime(value.strip(), "%d.%m.%Y, %H:%M:%S").replace(tzinfo=UTC)


def split_evidence(items: Sequence[Any]) -> list[str]:
    """REALTALK's hand-typed ids: "D 2:18" -> "D2:18"; a range "D12:3-D12:5" -> each turn."""
    out: list[str] = []
    for item in items:
        text = re.sub(r"\s+(?=\d)|(?<=D)\s+", "", str(item))
        for part in re.split(r"[;,]", text):
            found = _RANGE.fullmatch(part.strip().rstrip("."))
            if found and (found.group(3) in (None, found.group(1))):
                session, first, last = found.group(1), int(found.group(2)), int(found.group(4))
                out += [f"D{session}:{n}" for n in range(first, last + 1)] if first <= last \
                    else [part]
            elif part.strip():
                out.append(part.strip())
    return out


def load(path: Path) -> tuple[list[Conversation], LabelStats]:
    stats = LabelStats(LABELS)
    conversations = []
    for file in chat_files(path):
        chat = json.loads(file.read_text(encoding="utf-8"))
        sessions = sorted(
            (int(k.split("_")[1]), k) for k, v in chat.items()
            if k.startswith("session_") and isinstance(v, list)
        )
        turns: list[Turn] = []
        for _, key in sessions:
            for turn in chat[key]:
                text = (turn.get("clean_text") or "").strip()
                turns.append(Turn(turn["dia_id"], turn["speaker"], text,
                                  turn.get("blip_caption"), parse_time(turn["date_time"])))
        known = {t.dia_id for t in turns}
        sample_id = file.stem
        questions = []
        for q_index, qa in enumerate(chat.get("qa", [])):
            where = f"{sample_id} q{q_index}"
            raw = normalise_evidence(split_evidence(qa.get("evidence") or []), known, where,
                                     stats)
            if not raw:
                stats.without_evidence["raw"] += 1
            questions.append(Question(q_index, qa["question"], int(qa["category"]),
                                      {"raw": raw}))
        conversations.append(Conversation(sample_id, turns, questions))
    return conversations, stats


def evaluate(conversations: Sequence[Conversation], **kwargs: Any) -> Run:
    return harness.evaluate(DATASET, conversations, **kwargs)


@click.command("realtalk")
@harness.options(
    DATASET,
    f"Folder with REALTALK's Chat_N_*.json (default ${ENV_VAR}, else {LOCAL_DATA}, else "
    f"{SHARED_DATA}).",
    ENV_VAR,
)
@click.option("--restore", "mirror", type=click.Path(file_okay=False), default=None,
              help="Extract the chats from this bare git mirror of danny911kr/REALTALK into "
                   "--data (default benchmarks/realtalk_data, gitignored), then stop.")
def command(data: str | None, mirror: str | None, **kwargs: Any) -> None:
    """Retrieval quality on REALTALK (real 21-day chats): Recall@1/5/10, MRR, nDCG@10."""
    if mirror is not None:
        written = restore(Path(mirror), Path(data) if data else LOCAL_DATA)
        click.echo(f"{len(written)} chats restored to {written[0].parent}")
        return
    harness.main(DATASET, load(data_dir(data)), **kwargs)


if __name__ == "__main__":
    command()
