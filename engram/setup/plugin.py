"""Engram as a Claude Code plugin: the hooks, MCP server and slash commands that `engram
setup --agent claude` writes, in the plugin layout, so a team can install Engram from a
marketplace instead of editing settings files.

This repository is the marketplace: `.claude-plugin/marketplace.json` lists the plugin in
`plugin/`. A plugin cannot install Python packages, so it runs `engram` from PATH (put
there by `pipx install` or `uv tool install`); that also makes it the same for every
teammate, whatever their virtualenv. The committed files are generated from the rules
below (a test keeps them equal): `python -m engram.setup.plugin [REPOSITORY_ROOT]`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from .commands import COMMANDS, claude_text
from .targets import SERVER_NAME, add_hooks

PLUGIN_NAME = "engram"
PLUGIN_FOLDER = "plugin"
COMMAND = "engram"  # from PATH: the plugin's files are the same on every machine
DESCRIPTION = ("Long-term memory for coding agents: decisions, rules, fixes and commands "
               "that work, recalled in every session")


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def command_file(name: str) -> str:
    """A plugin's commands are namespaced by Claude Code (`/engram:search`), so the
    `engram-` prefix the user-level files need is dropped; `/engram` becomes `context`."""
    return "context" if name == "engram" else name.removeprefix("engram-")


def plugin_files(version: str = __version__) -> dict[str, str]:
    """The plugin's files by path inside the plugin folder."""
    settings: dict[str, Any] = {}
    add_hooks(settings, COMMAND)
    files = {
        ".claude-plugin/plugin.json": _json({
            "name": PLUGIN_NAME, "version": version, "description": DESCRIPTION,
            "license": "Apache-2.0", "keywords": ["memory", "mcp", "hooks"],
        }),
        ".mcp.json": _json({"mcpServers": {SERVER_NAME: {"command": COMMAND, "args": ["mcp"]}}}),
        "hooks/hooks.json": _json({"description": "Engram: recall at the start of a session "
                                                  "and of each prompt, capture as work happens",
                                   "hooks": settings["hooks"]}),
    }
    for command in COMMANDS:
        files[f"commands/{command_file(command.name)}.md"] = claude_text(command, COMMAND)
    return files


def marketplace(version: str = __version__) -> str:
    return _json({
        "name": PLUGIN_NAME,
        "owner": {"name": "Engram"},
        "plugins": [{"name": PLUGIN_NAME, "source": f"./{PLUGIN_FOLDER}",
                     "description": DESCRIPTION, "version": version}],
    })


def expected(root: Path) -> dict[Path, str]:
    """Every file of the marketplace under a repository root, with its content."""
    files = {root / ".claude-plugin" / "marketplace.json": marketplace()}
    files.update({root / PLUGIN_FOLDER / name: text for name, text in plugin_files().items()})
    return files


def write(root: Path) -> list[Path]:
    written = []
    for path, text in expected(root).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


if __name__ == "__main__":  # maintainers: regenerate the committed plugin
    for changed in write(Path(sys.argv[1] if len(sys.argv) > 1 else ".")):
        print(changed)
