"""Restore the real and held-out transcripts beside their gold files from local git mirrors.

The transcripts are public data that the workplace keeps out of this repository, so a
fresh checkout has only the gold labels. Each gold file names its source as a GitHub URL
at a commit; given a folder of bare mirrors laid out as `OWNER+NAME/repo` (what the
`fetch` tool produces) this copies every named file out of git, byte for byte, so the
bench scores exactly the sessions that were labelled.

    python benchmarks/capture_corpus/restore.py --mirrors /work/.mirror
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = re.compile(r"https://github\.com/([^/]+)/([^/]+)/blob/([0-9a-f]{40})/(.+)$")


def restore(gold: Path, mirrors: Path) -> str:
    """Copy the transcript `gold` names next to it; say what happened in a few words."""
    source = json.loads(gold.read_text(encoding="utf-8")).get("source", "")
    found = SOURCE.match(source)
    if not found:
        return "no source URL"
    owner, name, commit, path = found.groups()
    target = gold.with_name(gold.name.removesuffix(".gold.json") + ".jsonl")
    if target.exists() or target.with_suffix(".jsonl.gz").exists():
        return "present"
    repo = mirrors / f"{owner}+{name}" / "repo"
    if not repo.is_dir():
        return f"no mirror of {owner}/{name}"
    shown = subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"{commit}:{path}"],
        capture_output=True, check=False,
    )
    if shown.returncode != 0:
        return f"not in mirror: {shown.stderr.decode(errors='replace').strip()[:120]}"
    data = shown.stdout
    # A fixture author's leading `// …` comment lines are not Claude Code's; the gold
    # files' `covers` say when they were left out.
    while data.startswith(b"//"):
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    target.write_bytes(data)
    return f"restored ({len(data):,} bytes)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args(argv)
    missing = 0
    for half in ("real", "heldout"):
        for gold in sorted((HERE / half).glob("*.gold.json")):
            outcome = restore(gold, args.mirrors)
            missing += not outcome.startswith(("present", "restored"))
            print(f"{half}/{gold.name.removesuffix('.gold.json')}: {outcome}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
