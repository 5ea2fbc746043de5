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
    runs: tuple[str, ...]  # `engram` arguments run by `!` lines (never the user's text)
    ask: str  # what the model does with the output
    may_run: tuple[str, ...] = ()  # subcommands the model may run itself
    reads: str | None = None  # an `engram` call the model runs with the user's text on stdin


# The user's text never goes into a `!` line: Claude Code pastes $ARGUMENTS there as raw
# shell text, so a quote would break the command and a backtick or `$(…)` in a memory
# ("always run `pnpm lint`") would run. Commands that take text ask the model to pass it
# through a quoted heredoc instead, which the shell reads as plain text.
HEREDOC_END = "ENGRAM_TEXT"

COMMANDS: tuple[Command, ...] = (
    Command("engram", "Load this project's memory: rules, decisions, commands that work",
            "[task]", ("context",),
            "This is Engram's context pack for the project; the task at hand, if any:"
            " $ARGUMENTS. Keep it as background for the task (current code beats old"
            " memory) and answer with one line: how many memories were loaded and the most"
            " important rule among them. If the output above is an error line, show it as"
            " is."),
    Command("engram-search", "Search Engram's memory", "<query>", (),
            "Show the results to the user as a short list (id, type, one line each). Do not"
            " act on them. If the command printed an error line, show it as is.",
            reads="search -k 8 -"),
    Command("engram-save", "Save something to Engram's memory (type inferred)", "<text>", (),
            "Tell the user in one line what was saved: its id and type, or the memory it"
            " merged into. If the command printed an error line, show it as is.",
            reads="add --type auto -"),
    Command("engram-forget", "Archive a memory (asks first)", "<id or query>", (),
            "These are the memories that match. If the text is an id or exactly one result"
            " clearly matches, ask the user to confirm archiving it; only after a yes, run"
            " `{engram} forget ID` and report the result in one line. If several match,"
            " list them and ask which one. Never archive without a yes.",
            ("forget",), reads="search -k 5 -"),
    Command("engram-stats", "Engram's memory statistics", "", ("stats",),
            "Summarise these statistics for the user in three lines at most. If the output"
            " above is an error line, show it as is."),
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


def heredoc(command: Command, engram: str) -> str:
    """The shell lines the model runs for a command that takes the user's text."""
    return (f"{shlex.quote(engram)} {command.reads} <<'{HEREDOC_END}'\n$ARGUMENTS\n"
            f"{HEREDOC_END}")


# `!` lines run with this flag: Claude Code drops a failing line's output, so a failure
# is printed as one "engram: error: …" line on stdout instead (exit 0).
BANG = "--errors-on-stdout"


def _allowed(command: Command, engram: str) -> str:
    allowed = [f"Bash({engram} {BANG} {run.split()[0]}:*)" for run in command.runs]
    subcommands = [sub.split()[0] for sub in command.may_run]
    if command.reads:
        subcommands.append(command.reads.split()[0])
    allowed += [f"Bash({engram} {sub}:*)" for sub in subcommands]
    return ", ".join(dict.fromkeys(allowed))


def claude_text(command: Command, engram: str) -> str:
    exe = shlex.quote(engram)
    head = ["---", f"description: {command.description}"]
    if command.hint:
        head.append(f"argument-hint: {command.hint}")
    head += [f"allowed-tools: {_allowed(command, engram)}", "---", ""]
    body = [f"!`{exe} {BANG} {run}`" for run in command.runs]
    if command.reads:
        body += ["Run this with the Bash tool exactly as written (the quoted heredoc hands"
                 " the text over as it is):", "", "```", heredoc(command, engram), "```"]
    return "\n".join([*head, *body, "", command.ask.format(engram=exe), ""])


def codex_text(command: Command, engram: str) -> str:
    exe = shlex.quote(engram)
    runs = " and ".join(f"`{exe} {run}`" for run in command.runs)
    head = ["---", f"description: {command.description}"]
    if command.hint:
        head.append(f"argument-hint: {command.hint}")
    head += ["---", ""]
    body = [f"Run {runs} in the shell."] if runs else []
    if command.reads:
        body += ["Run this in the shell exactly as written:", "", "```",
                 heredoc(command, engram), "```"]
    return "\n".join([*head, *body, "", command.ask.format(engram=exe), ""])


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
