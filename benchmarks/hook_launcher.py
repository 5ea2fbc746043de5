"""The prompt hook's cost end to end, against a bare interpreter start.

`python -m benchmarks.hook_launcher --memories 10000`: a throwaway HOME and store of N
memories, `engram setup --agent claude` (which writes the shell launcher into the hook),
a warm worker; then, alternating, the UserPromptSubmit command exactly as Claude Code
runs it, a bare `python -c pass` of the same environment, and `engram hook
UserPromptSubmit` (the Python path to the same worker). Medians, and each ÷ python.
Every launcher answer must hold the memory the prompt asks about.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

TOPICS = ("billing", "search", "auth", "deploy", "cache")
SETTINGS = ("retries", "timeouts", "pool size", "batching")


@click.command()
@click.option("--memories", default=10_000, show_default=True)
@click.option("--runs", default=25, show_default=True)
def command(memories: int, runs: int) -> None:
    """The prompt hook through the shell launcher against a bare `python -c pass`."""
    engram = str(Path(sys.executable).with_name("engram"))
    root = Path(tempfile.mkdtemp(prefix="engram-launcher-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(HOME=str(root / "home"), ENGRAM_HOME=str(root / "engram"),
               PATH=f"{Path(engram).parent}:/usr/bin:/bin")
    (root / "home").mkdir()
    project = root / "shop"
    (project / ".git").mkdir(parents=True)
    records = [{"content": f"Note {i}: the {TOPICS[i % 5]} service uses setting {i} for "
                           f"{SETTINGS[i % 4]}", "project": "shop"} for i in range(memories)]
    records.append({"content": "Stripe refunds must use payment_intent; the charge argument "
                               "is gone", "type": "constraint", "project": "shop"})
    source = root / "memories.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    subprocess.run([engram, "import", str(source)], env=env, check=True, capture_output=True)
    subprocess.run([engram, "setup", "--agent", "claude"], env=env, cwd=project, check=True,
                   capture_output=True)
    hooks = json.loads((root / "home/.claude/settings.json").read_text())["hooks"]
    launcher = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]

    def payload(session: str) -> str:
        return json.dumps({"session_id": session, "cwd": str(project),
                           "transcript_path": str(root / "t.jsonl"),
                           "hook_event_name": "UserPromptSubmit",
                           "prompt": "how do stripe refunds work with the charge argument?"})

    def timed(argv: list[str], stdin: str = "") -> tuple[float, str]:
        started = time.perf_counter()
        done = subprocess.run(argv, input=stdin, env=env, cwd=project, capture_output=True,
                              text=True)
        return time.perf_counter() - started, done.stdout

    for warm in range(3):  # the first call starts the worker; then it is warm
        timed(["/bin/sh", "-c", launcher], payload(f"warm{warm}"))
        time.sleep(2)
    shell, bare, python_hook = [], [], []
    for i in range(runs):
        took, said = timed(["/bin/sh", "-c", launcher], payload(f"s{i}"))
        if "payment_intent" not in said:
            raise click.ClickException(f"the launcher injected something else: {said[:200]}")
        shell.append(took)
        bare.append(timed([sys.executable, "-c", "pass"])[0])
        python_hook.append(timed([engram, "hook", "UserPromptSubmit"], payload(f"p{i}"))[0])
    ms = [statistics.median(xs) * 1000 for xs in (shell, bare, python_hook)]
    click.echo("| memories | launcher hook ms | `python -c pass` ms | launcher ÷ python | "
               "`engram hook` ms | `engram hook` ÷ python | load average |")
    click.echo("|---|---|---|---|---|---|---|")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    click.echo(f"| {memories + 1:,} | {ms[0]:.1f} | {ms[1]:.1f} | {ms[0] / ms[1]:.2f} | "
               f"{ms[2]:.1f} | {ms[2] / ms[1]:.2f} | {load} |")


if __name__ == "__main__":
    command()
