"""`engram setup`: register Engram with the coding agents found on this machine.

`plan()` computes every change (nothing written), `execute()` applies a plan. Both the
CLI and `engram doctor` use them; the per-agent rules live in targets.py and the
careful file handling (diffs, backups, exact uninstall) in files.py.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import gemini, opencode, targets
from .files import FileChange, SetupError, apply, load_state, restore_or
from .targets import Context, Plan, engram_command

__all__ = ["SetupError", "SetupResult", "plan", "execute", "engram_command", "Context"]
PLANNERS = {**targets.PLANNERS, "gemini": gemini.plan_gemini, "opencode": opencode.plan_opencode}
AGENTS = tuple(PLANNERS)


def detect(ctx: Context) -> list[str]:
    """The agents installed on this machine (their command, or their config folder)."""
    found = targets.detect(ctx)
    found += [name for name, module in (("gemini", gemini), ("opencode", opencode))
              if module.detected(ctx)]
    return found


@dataclass
class SetupResult:
    plans: list[Plan]
    dry_run: bool
    uninstall: bool
    backups: list[str] = field(default_factory=list)
    ran: list[dict[str, Any]] = field(default_factory=list)

    @property
    def changes(self) -> list[FileChange]:
        return [c for p in self.plans for c in p.changes if c.changed]

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "uninstall": self.uninstall,
            "agents": [p.agent for p in self.plans],
            "files": [
                {"path": str(c.path), "agent": p.agent, "what": c.what, "changed": c.changed,
                 **({"diff": c.diff()} if c.changed and self.dry_run else {})}
                for p in self.plans for c in p.changes
            ],
            "commands": [{"argv": cmd, "agent": p.agent} for p in self.plans for cmd in p.commands],
            "ran": self.ran,
            "backups": self.backups,
            "notes": [n for p in self.plans for n in p.notes],
            "errors": [{"agent": p.agent, "error": p.error} for p in self.plans if p.error],
        }


def _run(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired):
        return None


def plan(
    *,
    scope: str = "user",
    agents: list[str] | None = None,
    project_dir: Path | None = None,
    uninstall: bool = False,
    home: Path | None = None,
    command: str | None = None,
) -> list[Plan]:
    from ..guidance import INSTRUCTIONS

    if scope not in ("user", "project"):
        raise SetupError(f"unknown scope {scope!r}; use user or project")
    ctx = Context(
        scope=scope,
        project_dir=(project_dir or Path.cwd()).absolute(),
        home=home or Path.home(),
        command=command or engram_command(),
        instructions=INSTRUCTIONS,
        uninstall=uninstall,
    )
    chosen = agents or detect(ctx)
    unknown = [a for a in chosen if a not in PLANNERS]
    if unknown:
        raise SetupError(f"unknown agent {unknown[0]!r}; choose from {', '.join(AGENTS)}")
    plans = []
    state = load_state() if uninstall else None
    for name in dict.fromkeys(chosen):
        try:  # one agent's unreadable config never stops the others
            planned = PLANNERS[name](ctx, _run)
            if state is not None:
                planned.changes = [restore_or(c, state) for c in planned.changes]
        except SetupError as exc:
            planned = Plan(name, error=str(exc))
        plans.append(planned)
    return _once_per_file(plans)


def _once_per_file(plans: list[Plan]) -> list[Plan]:
    """Codex and OpenCode both read a project's AGENTS.md: the same edit of one file is
    made (and backed up, and recorded) once."""
    seen: set[tuple[Path, bytes | None]] = set()
    for planned in plans:
        kept = []
        for change in planned.changes:
            key = (change.path, change.after)
            if key in seen and change.changed:
                continue
            seen.add(key)
            kept.append(change)
        planned.changes = kept
    return plans


def execute(plans: list[Plan], *, dry_run: bool, uninstall: bool) -> SetupResult:
    result = SetupResult(plans, dry_run, uninstall)
    if dry_run:
        return result
    state = load_state()
    result.backups = apply(result.changes, state, installing=not uninstall)
    for p in plans:
        for argv in p.commands:
            proc = _run(argv, p.cwd)
            ok = proc is not None and proc.returncode == 0
            result.ran.append({"argv": argv, "ok": ok,
                               "output": (proc.stdout + proc.stderr).strip() if proc else ""})
            if not ok and p.error is None:
                p.error = f"`{' '.join(argv)}` failed: " + (
                    (proc.stderr or proc.stdout).strip() if proc else "not run")
    return result
