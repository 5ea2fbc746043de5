"""Slash commands that steer Engram from inside the agent: `/engram`, `/engram-search`, …

Claude Code reads Markdown commands from `~/.claude/commands/` (user scope) or
`<project>/.claude/commands/` (project scope): YAML front matter (`description`,
`argument-hint`, `allowed-tools`), then the prompt. A `` !`command` `` line runs before the
prompt reaches the model and its output takes the line's place, so each command runs the
`engram` CLI — the same service as every other adapter — and asks the model to show the
result briefly; a failure arrives as the CLI's one `error:` line. Codex reads the same
Markdown from `~/.codex/prompts/` (user scope only; it has no `!` lines, so there the
prompt asks the agent to run the command).

Setup writes them like every other file it touches (a diff first, a backup, recorded),
and `--uninstall` removes them or restores what was there byte for byte.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from .files import FileChange, read_bytes


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    hint: str
    runs: tuple[str, ...]  # `engram` arguments; "$ARGUMENTS" is what the user typed
    ask: str  # what the model does with the output
    may_run: tuple[str, ...] = ()  # subcommands the model may run itself after asking


COMMANDS: tuple[Command, ...] = (
    Command("engram", "Load this project's memory: rules, decisions, commands that work",
            "[task]", ('context "$ARGUMENTS"',),
            "This is Engram's context pack for the project. Keep it as background for the"
            " task (current code beats old memory) and answer with one line: how many"
            " memories were loaded and the most important rule among them."),
    Command("engram-search", "Search Engram's memory", "<query>",
            ('search "$ARGUMENTS" -k 8',),
            "Show these results to the user as a short list (id, type, one line each)."
            " Do not act on them."),
    Command("engram-save", "Save something to Engram's memory (type inferred)", "<text>",
            ('add --type auto "$ARGUMENTS"',),
            "Tell the user in one line what was saved: its id and type, or that it merged"
            " into an existing memory."),
    Command("engram-forget", "Archive a memory (asks first)", "<id or query>",
            ('search "$ARGUMENTS" -k 5',),
            "These are the memories that match. If the argument is an id or exactly one"
            " result clearly matches, ask the user to confirm archiving it; only after a yes,"
            " run `{engram} forget ID` and report the result in one line. If several match,"
            " list them and ask which one. Never archive without a yes.",
            ("forget",)),
    Command("engram-stats", "Engram's memory statistics", "", ("stats",),
            "Summarise these statistics for the user in three lines at most."),
    Command("engram-clean", "Tidy Engram's memory: GC and consolidation (asks first)", "",
            ("gc --dry-run", "consolidate --dry-run"),
            "This is what garbage collection and consolidation would change (a dry run)."
            " Summarise it in a few lines and ask the user whether to apply it; only after a"
            " yes, run `{engram} gc` and `{engram} consolidate` and report what changed.",
            ("gc", "consolidate")),
    Command("engram-health", "Check Engram's setup: store, embedder, hooks, MCP", "",
            ("doctor",),
            "Report the result to the user: one line if everything is fine, otherwise each"
            " problem with its fix."),
)


def claude_text(command: Command, engram: str) -> str:
    exe = shlex.quote(engram)
    allowed = ", ".join(dict.fromkeys(
        f"Bash({engram} {run.split()[0]}:*)" for run in (*command.runs, *command.may_run)))
    head = ["---", f"description: {command.description}"]
    if command.hint:
        head.append(f"argument-hint: {command.hint}")
    head += [f"allowed-tools: {allowed}", "---", ""]
    body = [f"!`{exe} {run}`" for run in command.runs]
    return "\n".join([*head, *body, "", command.ask.format(engram=exe), ""])


def codex_text(command: Command, engram: str) -> str:
    exe = shlex.quote(engram)
    runs = " and ".join(f"`{exe} {run}`" for run in command.runs)
    head = ["---", f"description: {command.description}"]
    if command.hint:
        head.append(f"argument-hint: {command.hint}")
    head += ["---", ""]
    return "\n".join([*head, f"Run {runs} in the shell.", "",
                      command.ask.format(engram=exe), ""])


def changes(folder: Path, engram: str, *, uninstall: bool, codex: bool = False
            ) -> list[FileChange]:
    """One file per command in `folder`; on uninstall each is removed (or restored by the
    caller when it existed before setup)."""
    found = []
    for command in COMMANDS:
        path = folder / f"{command.name}.md"
        before = read_bytes(path)
        text = (codex_text(command, engram) if codex else claude_text(command, engram)).encode()
        if uninstall and before != text:
            continue  # not there, or not ours as written (someone's own, or edited since)
        found.append(FileChange(path, before, None if uninstall else text,
                                f"/{command.name} command"))
    return found
