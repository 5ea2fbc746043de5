"""What capture stores from real sessions nobody labelled: a read-through for noise.

The labelled corpus scores recall and precision against gold items; it cannot show the
junk that only turns up in sessions unlike it. This replays every Claude Code transcript
found in local git mirrors (`fetch`ed repositories that commit their sessions), except
those of the corpus, through the same hooks as `benchmarks.capture`, and prints each
session's memories by origin, with a count per origin. Read it for memories no colleague
would keep; the transcripts' licences vary, so they are read in place, never committed.

    python -m benchmarks.capture_pool --mirrors /work/.mirror [--out pool.txt]
"""

from __future__ import annotations

import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import click

from .capture import CORPUS, Case, json_entries, run_case

MIN_BYTES, MAX_BYTES = 15_000, 6_000_000


def _head(text: str) -> list[dict]:
    """The entries of a transcript's first 200 lines, parsed once."""
    return json_entries(text.splitlines()[:200])


def _session_ids(entries: list[dict]) -> set[str]:
    return {e["sessionId"] for e in entries if isinstance(e.get("sessionId"), str)}


def _is_transcript(entries: list[dict]) -> bool:
    return sum(e.get("type") in ("user", "assistant") and isinstance(e.get("message"), dict)
               for e in entries) >= 5


def pool(mirrors: Path, into: Path) -> list[Path]:
    """The mirrors' transcripts that are not the corpus's, written into `into`."""
    known: set[str] = set()
    for path in CORPUS.glob("*/*.jsonl"):
        known |= _session_ids(_head(path.read_text(errors="replace")))
    found = []
    for repo in sorted(mirrors.glob("*/repo")):
        listing = subprocess.run(["git", f"--git-dir={repo}", "ls-tree", "-r", "-l", "HEAD"],
                                 capture_output=True, text=True).stdout.splitlines()
        for row in listing:
            meta, _, name = row.partition("\t")
            fields = meta.split()  # mode, type, object, size
            size = fields[3] if len(fields) > 3 else ""
            if not name.endswith(".jsonl") or not size.isdigit() or not (
                    MIN_BYTES < int(size) < MAX_BYTES):
                continue
            blob = subprocess.run(["git", f"--git-dir={repo}", "show", f"HEAD:{name}"],
                                  capture_output=True).stdout
            head = _head(blob.decode(errors="replace"))
            if not _is_transcript(head) or _session_ids(head) & known:
                continue
            target = into / f"{repo.parent.name}__{name.replace('/', '_')}"[-150:]
            target.write_bytes(blob)
            found.append(target)
    return found


@click.command()
@click.option("--mirrors", type=click.Path(exists=True, file_okay=False, path_type=Path),
              required=True, help="Folder of git mirrors (owner+name/repo).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every session's memories here (default: only the counts).")
def main(mirrors: Path, out: Path | None) -> None:
    """Replay the mirrors' unlabelled transcripts; count what is stored, by origin."""
    origins: Counter[str] = Counter()
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="engram-pool-") as tmp:
        sessions = pool(mirrors, Path(tmp))
        for path in sessions:
            case = Case(name=path.name, half="real", gold={"items": []}, transcript=path)
            stored = [m for m in run_case(case, "bundled").stored if m.type != "task_summary"]
            lines.append(f"== {path.name} ({len(stored)})")
            for memory in stored:
                origin = f"{memory.type}/{memory.meta.get('capture', memory.provenance)}"
                origins[origin] += 1
                lines.append(f"  {origin}: {memory.content[:300]}")
    if out is not None:
        out.write_text("\n".join(lines) + "\n")
    click.echo(f"{len(sessions)} sessions, {sum(origins.values())} memories (task summaries "
               "apart)\n\n| origin | memories |\n|---|---|")
    for origin, count in origins.most_common():
        click.echo(f"| {origin} | {count} |")


if __name__ == "__main__":
    main()
