"""What `engram setup` writes for OpenCode: the MCP server in the `mcp` section of
opencode.json, and the instructions in AGENTS.md (the file OpenCode reads, as Codex does).
OpenCode's own hooks are JavaScript plugins, not commands, so it gets the MCP tools and
the instructions that tell the agent when to use them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from .files import json_change
from .targets import Context, Plan, markdown_change, set_server


def _config_dir(ctx: Context) -> Path:
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else ctx.home / ".config") / "opencode"


def config_path(ctx: Context) -> Path:
    """opencode.json, or the opencode.jsonc the user already keeps instead."""
    folder = ctx.project_dir if ctx.scope == "project" else _config_dir(ctx)
    plain, commented = folder / "opencode.json", folder / "opencode.jsonc"
    return commented if commented.exists() and not plain.exists() else plain


def instructions_path(ctx: Context) -> Path:
    if ctx.scope == "project":
        return ctx.project_dir / "AGENTS.md"
    return _config_dir(ctx) / "AGENTS.md"


def detected(ctx: Context) -> bool:
    return bool(shutil.which("opencode")) or _config_dir(ctx).is_dir()


def plan_opencode(ctx: Context, run: Any) -> Plan:
    plan = Plan("opencode")
    server = {"type": "local", "command": [ctx.runs, "mcp"], "enabled": True}

    def edit(data: dict[str, Any]) -> None:
        if not ctx.uninstall and not data:
            data["$schema"] = "https://opencode.ai/config.json"
        set_server(data, "mcp", server, ctx.uninstall)
        if ctx.uninstall and list(data) == ["$schema"]:
            data.clear()  # only what we wrote was left

    plan.changes.append(json_change(config_path(ctx), "OpenCode MCP server", edit))
    plan.changes.append(markdown_change(instructions_path(ctx), ctx))
    return plan
