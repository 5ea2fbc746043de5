"""`engram doctor`: is everything in place, and does it answer? Each check says how to fix it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .files import load_json, read_bytes
from .targets import (
    HOOK_EVENTS,
    SERVER_NAME,
    Context,
    claude_mcp_path,
    claude_settings_path,
    codex_config_path,
    cursor_mcp_path,
    engram_command,
    hooks_in,
)


@dataclass
class Check:
    name: str
    status: str  # "ok", "warn", "fail"
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


def _store(db: str | None) -> Check:
    import engram

    try:
        with engram.open(db, embedder="none") as service:
            stats = service.stats()
        count = (stats.get("by_status") or {}).get("active", 0)
        if stats.get("vector_index_outdated"):
            return Check("store", "warn",
                         f"{service.path} opens ({count} active memories), but its vector index"
                         " was built with older HNSW parameters (fewer true neighbours found):"
                         f" {stats['vector_index_outdated']}",
                         "run `engram reindex` (rebuilds the index; stores up to 100,000"
                         " vectors are rebuilt when first opened after the upgrade)")
        return Check("store", "ok", f"{service.path} opens ({count} active memories)")
    except Exception as exc:  # noqa: BLE001 - any failure is the finding
        return Check("store", "fail", f"cannot open the store: {exc}",
                     "check $ENGRAM_HOME / $ENGRAM_DB point to a writable folder")


def _embedder() -> Check:
    from ..config import embedder_spec
    from ..embedders import get_embedder

    try:
        embedder = get_embedder(embedder_spec())
        if embedder is None:
            return Check("embedder", "warn", "embedder is 'none': keyword search only",
                         "set ENGRAM_EMBEDDER=bundled (or `embedder = \"bundled\"` in config.toml)")
        vector = embedder.embed_query("engram doctor")
        return Check("embedder", "ok", f"{embedder.name} loads ({len(vector)} dimensions)")
    except Exception as exc:  # noqa: BLE001
        return Check("embedder", "fail", f"the embedder does not load: {exc}",
                     "reinstall engram (`pip install --force-reinstall engram`) or set "
                     "ENGRAM_EMBEDDER=none")


def unrunnable(command: str) -> str | None:
    """Why a registered command would not start ('' words, a missing file, a script whose
    interpreter is gone after its virtualenv moved), or None when it would."""
    from ..hooks.launcher import fallback_of

    inner = fallback_of(command)
    if inner != command:  # the shell launcher: it and the Python hook behind it must exist
        launcher = shlex.split(command)[1]
        return (f"{launcher} is missing" if not os.path.isfile(launcher)
                else unrunnable(inner))
    try:
        first = shlex.split(command)[0] if command.strip() else ""
    except ValueError:
        return "it cannot be read as a command"
    if not first:
        return "it is empty"
    found = first if os.sep in first else shutil.which(first)
    if found is None:
        return f"`{first}` is not on PATH"
    if not (os.path.isfile(found) and os.access(found, os.X_OK)):
        return f"{found} is missing or not executable"
    try:
        with open(found, "rb") as script:
            head = script.readline(512)
    except OSError as exc:
        return f"{found} cannot be read: {exc.strerror}"
    if head.startswith(b"#!"):
        interpreter = head[2:].decode("utf-8", "replace").split()
        if interpreter and not os.access(interpreter[0], os.X_OK):
            return (f"its interpreter {interpreter[0]} is gone (was the virtualenv moved or "
                    f"deleted?)")
    return None


REINSTALL = ("reinstall engram where it will stay (`pipx install engram-recall` or "
             "`uv tool install engram-recall`), then run `engram setup` from it")


def _hooks(ctx: Context) -> list[Check]:
    checks = []
    registered: dict[str, str] = {}
    where = []
    for scope in ("user", "project"):
        path = claude_settings_path(Context(scope, ctx.project_dir, ctx.home, ctx.command, ""))
        try:
            found = hooks_in(load_json(path, read_bytes(path)))
        except Exception:  # noqa: BLE001
            found = {}
        if found:
            where.append(str(path))
        registered.update(found)
    missing = [event for event, _, _ in HOOK_EVENTS if event not in registered]
    if not registered:
        checks.append(Check("claude hooks", "fail", "no Engram hooks in Claude Code settings",
                            "run `engram setup` (or `engram setup --scope project`)"))
        return checks
    broken = sorted({(c, why) for c in registered.values() if (why := unrunnable(c))})
    if broken:
        command, why = broken[0]
        checks.append(Check("claude hooks", "fail", f"hook command `{command}` will not run: "
                            f"{why}", REINSTALL))
    elif missing:
        checks.append(Check("claude hooks", "warn", f"missing hooks: {', '.join(missing)}",
                            "re-run `engram setup`"))
    else:
        checks.append(Check("claude hooks", "ok", f"{len(registered)} hooks in {', '.join(where)}"))
    checks.append(_hook_answers(next(iter(registered.values())).rsplit(" hook ", 1)[0], ctx))
    return checks


def _hook_answers(prefix: str, ctx: Context) -> Check:
    """Run SessionStart exactly as Claude Code would, with a throwaway session id."""
    payload = {
        "session_id": "engram-doctor", "hook_event_name": "SessionStart", "source": "startup",
        "cwd": str(ctx.project_dir),
        "transcript_path": os.path.join(tempfile.gettempdir(), "engram-doctor.jsonl"),
    }
    try:
        proc = subprocess.run(
            [*shlex.split(prefix), "hook", "SessionStart"], input=json.dumps(payload),
            capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("hook answers", "fail", f"`{prefix} hook SessionStart` did not run: {exc}",
                     "re-run `engram setup`")
    if proc.returncode != 0:
        return Check("hook answers", "fail", f"exit code {proc.returncode}: {proc.stderr[-300:]}",
                     "see $ENGRAM_HOME/logs/hooks.log")
    if proc.stdout.strip():
        try:
            output = json.loads(proc.stdout)
            assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        except (ValueError, KeyError, TypeError, AssertionError):
            return Check("hook answers", "fail", "SessionStart printed something that is not "
                         "Claude Code's hook JSON", "see $ENGRAM_HOME/logs/hooks.log")
        return Check("hook answers", "ok", "SessionStart injects a context pack")
    return Check("hook answers", "ok", "SessionStart answers (nothing to inject yet)")


def _mcp(ctx: Context) -> list[Check]:
    checks = []
    registered: list[tuple[str, str]] = []
    for label, path, key in (
        ("claude (user)", ctx.home / ".claude.json", "mcpServers"),
        ("claude (project)", claude_mcp_path(Context("project", ctx.project_dir, ctx.home, "", "")),
         "mcpServers"),
        ("cursor (user)", cursor_mcp_path(Context("user", ctx.project_dir, ctx.home, "", "")),
         "mcpServers"),
        ("cursor (project)", cursor_mcp_path(Context("project", ctx.project_dir, ctx.home, "", "")),
         "mcpServers"),
    ):
        try:
            server = load_json(path, read_bytes(path)).get(key, {}).get(SERVER_NAME)
        except Exception:  # noqa: BLE001
            server = None
        if isinstance(server, dict) and isinstance(server.get("command"), str):
            registered.append((label, server["command"]))
    codex = codex_config_path(ctx)
    try:
        import tomllib

        server = tomllib.loads((read_bytes(codex) or b"").decode()).get("mcp_servers", {}).get(
            SERVER_NAME)
        if isinstance(server, dict) and isinstance(server.get("command"), str):
            registered.append(("codex", server["command"]))
    except Exception:  # noqa: BLE001
        pass
    claude_status = _claude_status(ctx)
    if not registered and claude_status is None:
        checks.append(Check("mcp", "warn", "no Engram MCP server registered with Claude Code, "
                            "Codex or Cursor", "run `engram setup`"))
    for label, command in registered:
        why = unrunnable(command)
        checks.append(Check(f"mcp {label}", "fail" if why else "ok",
                            f"{command} mcp" + (f": {why}" if why else ""),
                            REINSTALL if why else None))
    if claude_status is not None:
        checks.append(claude_status)
    codex_status = _codex_status(ctx)
    if codex_status is not None:
        checks.append(codex_status)
    try:
        proc = subprocess.run([ctx.command, "mcp", "--help"], capture_output=True, text=True,
                              timeout=30)
        ok = proc.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    checks.append(Check("mcp command", "ok" if ok else "fail",
                        f"`{ctx.command} mcp` " + ("exists" if ok else "does not run"),
                        None if ok else "reinstall engram with its MCP support"))
    return checks


#: `claude mcp get engram`'s status line, as Claude Code 2.1 prints it
_STATUS_RE = re.compile(r"^\s*Status:\s*(?P<status>.+?)\s*$", re.MULTILINE)


def _mcp_get(cli: str, ctx: Context) -> str | Check | None:
    """What `<cli> mcp get engram` prints in the project; a warning when it does not
    answer; None when the CLI is absent or has no such server (the files tell the rest)."""
    found = shutil.which(cli)
    if not found:
        return None
    try:
        got = subprocess.run([found, "mcp", "get", SERVER_NAME], capture_output=True,
                             text=True, timeout=60, cwd=ctx.project_dir)
    except (OSError, subprocess.TimeoutExpired):
        return Check(f"mcp {cli} status", "warn", f"`{cli} mcp get engram` did not answer")
    return got.stdout if got.returncode == 0 else None


def _claude_status(ctx: Context) -> Check | None:
    """What Claude Code itself says of Engram's server here (it starts it to answer):
    connected, failing, or a project's server still waiting for this user's approval."""
    said = _mcp_get("claude", ctx)
    if not isinstance(said, str):
        return said
    found = _STATUS_RE.search(said)
    status = found.group("status") if found else "(no status line)"
    if "connected" in status.lower() and "fail" not in status.lower():
        return Check("mcp claude status", "ok", f"Claude Code: {status}")
    if "pending" in status.lower():
        return Check("mcp claude status", "warn", f"Claude Code: {status}",
                     "approve Engram's server when `claude` asks in this project, or run "
                     "`engram setup --scope project` here (it approves it for you)")
    return Check("mcp claude status", "fail", f"Claude Code: {status}",
                 "`engram doctor` above says which command is broken; " + REINSTALL)


def _codex_status(ctx: Context) -> Check | None:
    """What Codex itself reads from its config (`codex mcp get engram`): the server is
    there, enabled, and its command would start."""
    said = _mcp_get("codex", ctx)
    if not isinstance(said, str):
        return said
    fields = dict(re.findall(r"^\s*(enabled|command|args):\s*(.*?)\s*$", said, re.M))
    command = fields.get("command", "")
    if fields.get("enabled") == "false":
        return Check("mcp codex status", "warn", "Codex has Engram's server turned off",
                     "set `enabled = true` under [mcp_servers.engram] in ~/.codex/config.toml")
    why = unrunnable(command) if command else "Codex shows no command for it"
    if why:
        return Check("mcp codex status", "fail", f"Codex: {command} {fields.get('args', '')}: "
                     f"{why}", REINSTALL)
    return Check("mcp codex status", "ok", f"Codex: enabled, {command} {fields.get('args', '')}")


def _worker() -> Check:
    from .. import worker

    status = worker.ping()
    if status:
        return Check("worker", "ok", f"warm worker pid {status['pid']} ({status['served']} "
                     f"hook calls served)")
    return Check("worker", "ok", "no warm worker running (hooks start one on demand)")


def _summariser() -> Check:
    """Which LLM summariser is on (opt-in), and whether its CLI can be found."""
    from ..capture.summariser import describe

    status, detail, fix = describe()
    return Check("summarizer", status, detail, fix)


MAX_CLOCK_SKEW_S = 60


def _server() -> list[Check]:
    """The team server this machine's clients use, if one is set: reachable, the token
    accepted, and the two clocks close enough for times to mean the same thing."""
    from email.utils import parsedate_to_datetime

    import httpx

    from ..config import team_server
    from ..model import utcnow

    url, token = team_server()
    if not url:
        return []
    fix_url = "check the address, or `engram setup --url off` to use the local store"
    try:
        health = httpx.get(f"{url.rstrip('/')}/health", timeout=10)
    except httpx.TransportError as exc:
        return [Check("server", "fail", f"{url} does not answer: {exc}", fix_url)]
    if health.status_code != 200:
        return [Check("server", "fail", f"{url}/health answered {health.status_code}", fix_url)]
    version = health.json().get("version", "?")
    checks = [Check("server", "ok", f"{url} answers (engram {version})")]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = httpx.get(f"{url.rstrip('/')}/v1/stats", headers=headers, timeout=10)
    if answer.status_code == 200:
        checks.append(Check("server token", "ok", "the server accepts this machine's token"
                            if token else "the server needs no token"))
    else:
        checks.append(Check("server token", "fail", f"the server answered {answer.status_code}"
                            f": {answer.text[:200]}", "ask an admin for a token (`engram users "
                            "add` / `rotate`), then `engram setup --url URL --token TOKEN`"))
    stamp = health.headers.get("date")
    if stamp:
        skew = abs((utcnow() - parsedate_to_datetime(stamp)).total_seconds())
        checks.append(Check("server clock", "ok" if skew <= MAX_CLOCK_SKEW_S else "warn",
                            f"this machine's clock is {skew:.0f} s from the server's",
                            None if skew <= MAX_CLOCK_SKEW_S else
                            "sync the clocks (NTP): memories' times and decay use them"))
    return checks


def run_checks(db: str | None = None, project_dir: Path | None = None,
               home: Path | None = None) -> list[Check]:
    try:
        command = engram_command()
    except Exception as exc:  # noqa: BLE001
        return [Check("engram command", "fail", str(exc), "reinstall engram")]
    ctx = Context("user", (project_dir or Path.cwd()).absolute(), home or Path.home(), command, "")
    checks = [Check("engram command", "ok", command), _store(db), _embedder()]
    checks += _hooks(ctx)
    checks += _mcp(ctx)
    checks.append(_worker())
    checks.append(_summariser())
    checks += _server()
    return checks
