"""The `engram` command. Subcommands load lazily so `engram hook …` starts fast.

Nothing heavy is imported here: the console script imports this module on every hook
call, so click, rich and the store load only for the commands that need them.
Exit codes are part of the contract: 0 ok; 1 not found, invalid input or any other
failure (one line on stderr, never a traceback; ENGRAM_DEBUG=1 shows it); 2 usage.
"""

from __future__ import annotations

import sys

# name -> "module:attribute"; modules import only when their command runs.
COMMANDS: dict[str, str] = {
    "add": "engram.cli.memory:add",
    "search": "engram.cli.memory:search",
    "get": "engram.cli.memory:get",
    "history": "engram.cli.memory:history",
    "list": "engram.cli.memory:list_",
    "update": "engram.cli.memory:update",
    "archive": "engram.cli.memory:archive",
    "restore": "engram.cli.memory:restore",
    "delete": "engram.cli.memory:delete",
    "pin": "engram.cli.memory:pin",
    "unpin": "engram.cli.memory:unpin",
    "confirm": "engram.cli.memory:confirm",
    "reject": "engram.cli.memory:reject",
    "stats": "engram.cli.memory:stats",
    "context": "engram.cli.context_cmd:context",
    "memory-files": "engram.cli.memory_files:memory_files",
    "config": "engram.cli.config_cmd:config",
    "import": "engram.cli.exchange:import_",
    "export": "engram.cli.exchange:export",
    "reindex": "engram.cli.exchange:reindex",
    "migrate": "engram.cli.exchange:migrate",
    "sync": "engram.cli.exchange:sync",
    "demo": "engram.cli.demo:demo",
    # agents (MCP server, Claude Code hooks, setup)
    "mcp": "engram.cli.mcp_cmd:mcp",
    "hook": "engram.cli.agents:hook",
    "setup": "engram.cli.agents:setup",
    "doctor": "engram.cli.agents:doctor",
    "prompt": "engram.cli.agents:prompt",
    # REST API and dashboard, and the users of a shared server
    "serve": "engram.cli.serve:serve",
    "users": "engram.cli.users:users",
    # benchmarks
    "bench": "engram.cli.bench:bench",
    # lifecycle
    "consolidate": "engram.cli.lifecycle:consolidate",
    "unconsolidate": "engram.cli.lifecycle:unconsolidate",
    "gc": "engram.cli.lifecycle:gc",
    "forget": "engram.cli.lifecycle:forget",
    "log": "engram.cli.lifecycle:log",
    "stale": "engram.cli.lifecycle:stale",
}


def skip_the_last_collection() -> None:
    """At exit, a process's last act was a full garbage collection of everything it ever
    imported: 40 ms for a CLI command, 0.3-0.4 s for a server that loaded the MCP SDK and
    FastAPI, all of it memory the OS takes back anyway. Frozen objects are left out of it.
    Every atexit handler still runs (logging's flush included); files and connections are
    closed by the code that opened them, never left to a finaliser at exit."""
    import atexit
    import gc

    atexit.register(gc.freeze)


def main(argv: list[str] | None = None) -> object:
    if argv is None:  # the `engram` process itself, not a call from inside another program
        skip_the_last_collection()
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 1 and args[0] == "hook" and not {"-h", "--help"} & set(args[1:]):
        # Hooks run on every prompt: skip click, rich and the store (engram/hooks/runner.py).
        from ..hooks import main as hook_main

        sys.exit(hook_main(args[1:]))

    from .app import cli

    try:
        return cli.main(args=argv, prog_name="engram", standalone_mode=True)
    except Exception as exc:  # the last resort: commands report what they expect themselves
        import os

        if os.environ.get("ENGRAM_DEBUG"):
            raise
        message = " ".join(str(exc).split())[:500] or "no details"
        sys.stderr.write(
            f"error: {type(exc).__name__}: {message} (ENGRAM_DEBUG=1 shows where)\n"
        )
        sys.exit(1)


def __getattr__(name: str) -> object:
    if name == "cli":
        from .app import cli

        return cli
    raise AttributeError(name)
