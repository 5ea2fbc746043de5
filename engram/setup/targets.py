"""What `engram setup` writes for each agent: Claude Code, Codex, Cursor.

Each target turns (scope, project dir, engram command) into file changes, computed on
parsed copies so that every key we did not write survives. Our entries are recognised
by what they run (`… engram hook …`, an `engram` MCP server, the marker block), which
is how re-runs stay no-ops and uninstall removes only ours.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import commands
from .files import (
    FileChange,
    SetupError,
    add_block,
    json_change,
    read_bytes,
    remove_block,
    same_line_endings,
)

SERVER_NAME = "engram"
#: What a project's shared files run: `engram` from PATH, the same for every teammate
#: whatever their virtualenv (the user's own files keep this environment's absolute path).
PORTABLE_COMMAND = "engram"
# (event, matcher, timeout in seconds). Timeouts exceed the hooks' internal deadlines
# (engram/hooks/runner.py) so a hook always ends itself first.
HOOK_EVENTS: tuple[tuple[str, str | None, int], ...] = (
    ("SessionStart", None, 15),
    ("UserPromptSubmit", None, 10),
    ("PostToolUse", "Bash|Write|Edit|MultiEdit", 15),
    # Failures as they happen: a command that failed is never verified, and capture reads
    # the error even before the transcript has it. SubagentStop is not registered: a
    # subagent's work reaches the parent's transcript as a tool result, captured there.
    ("PostToolUseFailure", "Bash", 10),
    ("Stop", None, 30),
    ("PreCompact", None, 30),
    ("SessionEnd", None, 30),
)
_OURS_RE = re.compile(r"engram['\"]?\s+hook\b")


@dataclass
class Context:
    scope: str  # "user" or "project"
    project_dir: Path
    home: Path
    command: str  # absolute path of this environment's `engram` script
    instructions: str
    uninstall: bool = False

    @property
    def runs(self) -> str:
        """The command written into this scope's files: a project's are committed and
        shared, so they run `engram` from PATH; the user's own run this environment's."""
        return PORTABLE_COMMAND if self.scope == "project" else self.command

    @property
    def hook_prefix(self) -> str:
        return shlex.quote(self.runs)

    def hook_command(self, event: str) -> str:
        """The user's own hooks go through the shell launcher, which reaches a warm worker
        without starting Python; a project's shared files keep the plain portable command
        (the launcher's path and socket are this machine's)."""
        if self.scope == "project" or os.name != "posix":
            return f"{self.hook_prefix} hook {event}"
        from ..hooks.launcher import hook_command

        return hook_command(self.runs, event)

    def server(self, **extra: Any) -> dict[str, Any]:
        return {**extra, "command": self.runs, "args": ["mcp"]}


@dataclass
class Plan:
    agent: str
    changes: list[FileChange] = field(default_factory=list)
    commands: list[list[str]] = field(default_factory=list)  # CLI calls (claude mcp …)
    notes: list[str] = field(default_factory=list)
    cwd: Path | None = None  # where CLI calls run (`claude mcp add -s project` uses it)
    error: str | None = None  # this agent could not be set up; the others still are


def engram_command() -> str:
    """This environment's own `engram` script, by absolute path (never a pyenv shim)."""
    explicit = os.environ.get("ENGRAM_COMMAND")
    if explicit:
        return explicit
    candidate = Path(sys.executable).parent / "engram"  # not resolved: keep the venv
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate.absolute())
    argv0 = Path(sys.argv[0])
    if argv0.name == "engram" and argv0.is_file():
        return str(argv0.absolute())
    found = shutil.which("engram")
    if found and "shims" not in Path(found).parts:
        return str(Path(found).absolute())
    raise SetupError("cannot find this environment's `engram` script; reinstall engram")


def detect(ctx: Context) -> list[str]:
    found = []
    home = ctx.home
    if shutil.which("claude") or (home / ".claude").is_dir() or (home / ".claude.json").exists():
        found.append("claude")
    if shutil.which("codex") or (ctx.home / ".codex").is_dir():
        found.append("codex")
    if (shutil.which("cursor") or (ctx.home / ".cursor").is_dir()
            or (ctx.scope == "project" and (ctx.project_dir / ".cursor").is_dir())):
        found.append("cursor")
    return found


# --- Claude Code -----------------------------------------------------------------------------


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and bool(_OURS_RE.search(str(hook.get("command", ""))))


def add_hooks(settings: dict[str, Any], prefix: str | Callable[[str], str]) -> None:
    """Register our hooks; `prefix` is the engram command, or a function giving each
    event's whole command."""
    command_for = prefix if callable(prefix) else (lambda event: f"{prefix} hook {event}")
    hooks = settings.get("hooks")
    if hooks is None:
        hooks = settings["hooks"] = {}
    if not isinstance(hooks, dict):
        raise SetupError("Claude Code settings: `hooks` is not an object")
    for event, matcher, timeout in HOOK_EVENTS:
        wanted: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        wanted["hooks"] = [{"type": "command", "command": command_for(event),
                            "timeout": timeout}]
        groups = hooks.get(event)
        if not isinstance(groups, list):
            hooks[event] = [wanted]
            continue
        ours = [g for g in groups if isinstance(g, dict)
                and any(is_ours(h) for h in g.get("hooks") or [])]
        if ours == [wanted]:
            continue
        rebuilt: list[Any] = []
        placed = False
        for group in groups:
            if group in ours:
                rest = [h for h in group.get("hooks") or [] if not is_ours(h)]
                if rest:
                    rebuilt.append({**group, "hooks": rest})
                if not placed:
                    rebuilt.append(wanted)
                    placed = True
            else:
                rebuilt.append(group)
        if not placed:
            rebuilt.append(wanted)
        hooks[event] = rebuilt


def remove_hooks(settings: dict[str, Any]) -> None:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        touched = False
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(inner, list) and any(is_ours(h) for h in inner):
                touched = True
                rest = [h for h in inner if not is_ours(h)]
                if rest:
                    kept.append({**group, "hooks": rest})
            else:
                kept.append(group)
        if touched:
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if not hooks:
        del settings["hooks"]


def hooks_in(settings: dict[str, Any]) -> dict[str, str]:
    """Our registered hook commands by event (for `engram doctor`)."""
    found = {}
    hooks = settings.get("hooks")
    if isinstance(hooks, dict):
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                for hook in (group.get("hooks") or []) if isinstance(group, dict) else []:
                    if is_ours(hook):
                        found[event] = str(hook.get("command"))
    return found


def claude_settings_path(ctx: Context) -> Path:
    if ctx.scope == "project":
        return ctx.project_dir / ".claude" / "settings.json"
    return ctx.home / ".claude" / "settings.json"


def claude_mcp_path(ctx: Context) -> Path:
    return ctx.project_dir / ".mcp.json" if ctx.scope == "project" else ctx.home / ".claude.json"


def claude_md_path(ctx: Context) -> Path:
    if ctx.scope == "project":
        return ctx.project_dir / "CLAUDE.md"
    return ctx.home / ".claude" / "CLAUDE.md"


def set_server(data: dict[str, Any], key: str, server: dict[str, Any], uninstall: bool) -> None:
    servers = data.get(key)
    if uninstall:
        if isinstance(servers, dict) and SERVER_NAME in servers:
            del servers[SERVER_NAME]
            if not servers:
                del data[key]
        return
    if servers is None:
        servers = data[key] = {}
    if not isinstance(servers, dict):
        raise SetupError(f"`{key}` is not an object")
    current = servers.get(SERVER_NAME)
    if isinstance(current, dict) and {k: current.get(k) for k in server} == server:
        return  # same command: leave any extra keys the user added alone
    servers[SERVER_NAME] = server


def plan_claude(ctx: Context, run: Any) -> Plan:
    plan = Plan("claude", cwd=ctx.project_dir)
    settings = claude_settings_path(ctx)
    edit = remove_hooks if ctx.uninstall else (lambda data: add_hooks(data, ctx.hook_command))
    plan.changes.append(json_change(settings, "Claude Code hooks", edit))
    server = ctx.server(type="stdio", env={})
    claude = shutil.which("claude")
    if claude:
        scope = "project" if ctx.scope == "project" else "user"
        got = run([claude, "mcp", "get", SERVER_NAME], ctx.project_dir)
        registered = got is not None and got.returncode == 0
        matches = registered and f"Command: {ctx.runs}\n" in (got.stdout or "")
        if ctx.uninstall:
            if registered:
                plan.commands.append([claude, "mcp", "remove", "--scope", scope, SERVER_NAME])
        elif not matches:
            if registered:
                plan.commands.append([claude, "mcp", "remove", "--scope", scope, SERVER_NAME])
            plan.commands.append([claude, "mcp", "add", "--scope", scope, SERVER_NAME, "--",
                                  ctx.runs, "mcp"])
    else:
        plan.changes.append(json_change(
            claude_mcp_path(ctx), "Claude Code MCP server",
            lambda data: set_server(data, "mcpServers", server, ctx.uninstall)))
    plan.changes.append(markdown_change(claude_md_path(ctx), ctx))
    if ctx.scope == "project":
        plan.changes.append(json_change(
            ctx.project_dir / ".claude" / "settings.local.json", "approval of the project's "
            "MCP server (yours only)", lambda data: _approve(data, ctx.uninstall)))
        if not ctx.uninstall:
            plan.notes += teammate_notes(ctx)
    base = ctx.home if ctx.scope == "user" else ctx.project_dir
    plan.changes += commands.changes(base / ".claude" / "commands", ctx.runs,
                                     uninstall=ctx.uninstall)
    return plan


def _approve(data: dict[str, Any], uninstall: bool) -> None:
    """Claude Code starts a project's `.mcp.json` server only once each user approved it;
    the approval lives in the user's own, uncommitted `.claude/settings.local.json`."""
    approved = data.get("enabledMcpjsonServers")
    if approved is not None and not isinstance(approved, list):
        raise SetupError("`enabledMcpjsonServers` in .claude/settings.local.json is not a list")
    approved = list(approved or [])
    if uninstall:
        if SERVER_NAME in approved:
            approved.remove(SERVER_NAME)
            if approved:
                data["enabledMcpjsonServers"] = approved
            else:
                del data["enabledMcpjsonServers"]
    elif SERVER_NAME not in approved:
        data["enabledMcpjsonServers"] = [*approved, SERVER_NAME]


def teammate_notes(ctx: Context) -> list[str]:
    """What a project-scope setup leaves to each person who shares the project."""
    notes = ["the project's files run `engram` from PATH: each teammate installs it once "
             "(`pipx install engram-recall` or `uv tool install engram-recall`) and runs "
             "`engram setup --scope project` in their checkout, which approves the project's "
             "MCP server for them (or approves it when Claude Code asks)"]
    found = shutil.which(PORTABLE_COMMAND)
    if found is None:
        notes.insert(0, f"`{PORTABLE_COMMAND}` is not on your PATH, so the project's hooks and "
                     f"MCP server will not start for you: install it with pipx or uv tool, or "
                     f"add {Path(ctx.command).parent} to PATH")
    return notes


# --- Codex ------------------------------------------------------------------------------------


def codex_config_path(ctx: Context) -> Path:
    return ctx.home / ".codex" / "config.toml"


def agents_md_path(ctx: Context) -> Path:
    if ctx.scope == "project":
        return ctx.project_dir / "AGENTS.md"
    return ctx.home / ".codex" / "AGENTS.md"


def toml_change(path: Path, ctx: Context) -> FileChange:
    """Our `[mcp_servers.engram]` table in Codex's config, whatever shape the file gives
    `mcp_servers`: one table, tables split by others (`[profiles.x]` between two servers),
    dotted keys or an inline table. Line endings stay the file's own."""
    import tomllib

    import tomlkit

    before = read_bytes(path)
    text = (before or b"").decode("utf-8")
    try:
        tomllib.loads(text)
        doc = tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, Exception) as exc:  # noqa: BLE001 - tomlkit has many
        raise SetupError(f"{path} is not valid TOML ({exc}); fix it, then re-run") from None
    servers = doc.get("mcp_servers")
    if servers is not None and not hasattr(servers, "get"):
        raise SetupError(f"{path}: `mcp_servers` is not a table")
    if ctx.uninstall:
        if servers is None or SERVER_NAME not in servers:
            return FileChange(path, before, before, "Codex MCP server")
        del servers[SERVER_NAME]
        if not servers:
            del doc["mcp_servers"]
    else:
        wanted = {"command": ctx.command, "args": ["mcp"]}  # the user's own file: this env
        current = servers.get(SERVER_NAME) if servers is not None else None
        if current is not None and {k: current.get(k) for k in wanted} == wanted:
            return FileChange(path, before, before, "Codex MCP server")
        inline = isinstance(servers, tomlkit.items.InlineTable)
        table = tomlkit.inline_table() if inline else tomlkit.table()
        table.update(wanted)
        for key, value in (current or {}).items():
            if key not in wanted:
                table[key] = value
        if not inline:
            table.add(tomlkit.nl())
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            doc.add("mcp_servers", servers)
        if current is not None:
            del servers[SERVER_NAME]
        servers[SERVER_NAME] = table  # item assignment: works on split tables too
    after_text = tomlkit.dumps(doc)
    if after_text.endswith("\n\n") and not text.endswith("\n\n"):
        after_text = after_text.rstrip("\n") + "\n"  # our table's spacer, when it ended up last
    after = same_line_endings(after_text, text).encode()
    return FileChange(path, before, after if after or before is not None else None,
                      "Codex MCP server")


def plan_codex(ctx: Context, run: Any) -> Plan:
    plan = Plan("codex")
    plan.changes.append(toml_change(codex_config_path(ctx), ctx))
    plan.changes.append(markdown_change(agents_md_path(ctx), ctx))
    if ctx.scope == "user":  # Codex reads custom prompts from the user's folder only
        plan.changes += commands.changes(ctx.home / ".codex" / "prompts", ctx.command,
                                         uninstall=ctx.uninstall, codex=True)
    return plan


# --- Cursor -----------------------------------------------------------------------------------


def cursor_mcp_path(ctx: Context) -> Path:
    base = ctx.project_dir if ctx.scope == "project" else ctx.home
    return base / ".cursor" / "mcp.json"


def plan_cursor(ctx: Context, run: Any) -> Plan:
    plan = Plan("cursor")
    plan.changes.append(json_change(
        cursor_mcp_path(ctx), "Cursor MCP server",
        lambda data: set_server(data, "mcpServers", ctx.server(), ctx.uninstall)))
    return plan


# --- instruction blocks -----------------------------------------------------------------------


def markdown_change(path: Path, ctx: Context) -> FileChange:
    before = read_bytes(path)
    text = (before or b"").decode("utf-8")
    if ctx.uninstall:
        after_text = remove_block(text)
    else:
        after_text = add_block(text, "## Memory (Engram)\n\n" + ctx.instructions)
    after = after_text.encode()
    if before is None and not after_text:
        return FileChange(path, None, None, "instructions")
    return FileChange(path, before, after, "instructions")


PLANNERS = {"claude": plan_claude, "codex": plan_codex, "cursor": plan_cursor}
