"""What `engram setup` writes for Gemini CLI: the MCP server in its settings.json, the
instructions in GEMINI.md, and the two hooks whose payloads and answers match Claude
Code's — SessionStart, and BeforeAgent (the prompt, answered with
`hookSpecificOutput.additionalContext`) run as Engram's UserPromptSubmit. Capture hooks
are not registered: they read Claude Code's transcript format, which Gemini CLI does not
write.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from .files import SetupError, json_change
from .targets import SERVER_NAME, Context, Plan, is_ours, markdown_change, remove_hooks, set_server

# (Gemini CLI's event, the Engram hook that answers it, timeout in seconds)
HOOKS: tuple[tuple[str, str, int], ...] = (
    ("SessionStart", "SessionStart", 15),
    ("BeforeAgent", "UserPromptSubmit", 10),
)


#: Gemini CLI gives up on a server that has not answered within its timeout; Engram's
#: first start on a busy machine (before its handshake cache exists) can take seconds.
SERVER_TIMEOUT_MS = 60_000


def settings_path(ctx: Context) -> Path:
    base = ctx.project_dir if ctx.scope == "project" else ctx.home
    return base / ".gemini" / "settings.json"


def instructions_path(ctx: Context) -> Path:
    if ctx.scope == "project":
        return ctx.project_dir / "GEMINI.md"
    return ctx.home / ".gemini" / "GEMINI.md"


def detected(ctx: Context) -> bool:
    return bool(shutil.which("gemini")) or (ctx.home / ".gemini").is_dir()


def add_hooks(settings: dict[str, Any], prefix: str) -> None:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError("Gemini CLI settings: `hooks` is not an object")
    for event, handler, seconds in HOOKS:
        wanted = {"hooks": [{"type": "command", "name": SERVER_NAME,
                             "command": f"{prefix} hook {handler}", "timeout": seconds * 1000}]}
        groups = hooks.get(event)
        if not isinstance(groups, list):
            hooks[event] = [wanted]
            continue
        theirs = [g for g in groups if not (isinstance(g, dict) and any(
            is_ours(h) for h in g.get("hooks") or []))]
        if theirs + [wanted] != groups:
            hooks[event] = [*theirs, wanted]


def plan_gemini(ctx: Context, run: Any) -> Plan:
    plan = Plan("gemini")

    def edit(data: dict[str, Any]) -> None:
        set_server(data, "mcpServers", ctx.server(timeout=SERVER_TIMEOUT_MS), ctx.uninstall)
        if ctx.uninstall:
            remove_hooks(data)
        else:
            add_hooks(data, ctx.hook_prefix)

    plan.changes.append(json_change(settings_path(ctx), "Gemini CLI MCP server and hooks", edit))
    plan.changes.append(markdown_change(instructions_path(ctx), ctx))
    if not ctx.uninstall:
        plan.notes.append("Gemini CLI starts MCP servers only in folders you trust: answer "
                          "its trust prompt for your projects (or /permissions)")
    return plan
