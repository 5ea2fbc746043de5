"""Claude Code hooks: `engram hook <event>` reads the payload on stdin and answers.

Importing this package is nearly free on purpose: `engram.cli.main` dispatches hook
calls here before click, rich, numpy or the store are imported (see runner.py for the
fast path and worker.py for the warm process the hooks talk to).
"""

from __future__ import annotations

EVENTS = (
    "SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop",
    "SubagentStop", "PreCompact", "SessionEnd",
)


def main(argv: list[str]) -> int:
    """`engram hook EVENT` without click: always exits 0 (hooks fail open)."""
    from .runner import run

    return run(argv)
