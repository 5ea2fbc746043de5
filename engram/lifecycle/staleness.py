"""Code beats memory, made concrete: memories naming files that changed or vanished.

A memory names files in its `files` field or in its text. Each is checked against the
project's git repository: gone from the working tree (and once tracked) means "no
longer exists"; touched by a commit after the memory was written (or last confirmed)
means "changed since". The mark goes into `meta["stale"]`, which context packs and
search results show, and is cleared when it no longer holds.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ..errors import ValidationError
from ..model import Memory
from . import gc, policy
from .report import Action, Report

if TYPE_CHECKING:
    from ..service import Engram

_EXTENSIONS = (
    "py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|kts|rb|php|c|h|cc|cpp|hpp|cs|swift|scala|sh|"
    "bash|zsh|sql|md|rst|txt|toml|yaml|yml|json|ini|cfg|env|lock|html|css|scss|vue|svelte|"
    "proto|tf|gradle|xml|dockerfile|mk"
)
_PATH_IN_TEXT = re.compile(
    r"(?<![\w/.:@~-])((?:[\w.-]+/)+[\w.-]*\w|[\w.-]*\w\.(?:" + _EXTENSIONS + r"))"
    r"(?::\d+)?(?![\w/])"
)
GIT_TIMEOUT_S = 60


def paths_in_text(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in _PATH_IN_TEXT.finditer(text)))


def _git(root: Path, *args: str) -> str:
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True,
            timeout=GIT_TIMEOUT_S, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValidationError("repo", f"cannot run git in {root}: {exc}") from None
    if proc.returncode != 0:
        raise ValidationError("repo", f"git failed in {root}: {proc.stderr.strip()[:200]}")
    return proc.stdout


def git_root(path: str | Path | None) -> Path:
    start = Path(path or ".").expanduser().resolve()
    if not start.exists():
        raise ValidationError("repo", f"{start} does not exist")
    return Path(_git(start, "rev-parse", "--show-toplevel").strip())


@dataclass
class Repository:
    """What git says about a working tree, read once per check."""

    root: Path
    tracked: set[str] = field(default_factory=set)
    by_name: dict[str, list[str]] = field(default_factory=dict)
    changed_at: dict[str, float] = field(default_factory=dict)  # path -> last commit time
    _ever: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def read(cls, root: Path, since: float | None) -> Repository:
        repo = cls(root)
        repo.tracked = set(_git(root, "ls-files", "-z").split("\0")) - {""}
        for path in repo.tracked:
            repo.by_name.setdefault(PurePosixPath(path).name, []).append(path)
        args = ["log", "--no-renames", "--format=%x1e%ct", "--name-only"]
        if since is not None:
            args.append(f"--since={int(since)}")
        try:
            log = _git(root, *args)
        except ValidationError:
            log = ""  # a repository without commits
        for entry in log.split("\x1e"):
            lines = [line for line in entry.splitlines() if line.strip()]
            if not lines:
                continue
            when = float(lines[0])
            for path in lines[1:]:
                repo.changed_at[path] = max(repo.changed_at.get(path, 0.0), when)
        return repo

    def ever_tracked(self, path: str) -> bool:
        if path not in self._ever:
            try:
                self._ever[path] = bool(_git(self.root, "log", "-1", "--format=%ct", "--", path)
                                        .strip())
            except ValidationError:
                self._ever[path] = False
        return self._ever[path]

    def resolve(self, named: str) -> str | None:
        """A repository-relative path for what a memory names, or None if not ours."""
        named = named.strip().strip("`'\"").rstrip(".,;:")
        named = re.sub(r":\d+$", "", named)
        if not named:
            return None
        candidate = Path(named).expanduser()
        if candidate.is_absolute():
            try:
                return candidate.resolve().relative_to(self.root).as_posix()
            except ValueError:
                return None
        posix = PurePosixPath(named.removeprefix("./")).as_posix()
        if "/" not in posix:
            matches = [posix] if posix in self.tracked else self.by_name.get(posix, [])
            if len(matches) == 1:
                return matches[0]
            return posix if self.ever_tracked(posix) else None
        return posix


def _written_at(memory: Memory) -> float:
    """Changes after this moment are news to the memory: saved, or confirmed since."""
    confirmed = policy.meta_time(memory, "confirmed_at")
    return max(memory.created_at, confirmed or memory.created_at).timestamp()


def mark_for(memory: Memory, repo: Repository) -> str | None:
    named = list(memory.files) + paths_in_text(
        "\n".join(t for t in (memory.content, memory.problem, memory.solution) if t)
    )
    marks: list[str] = []
    seen: set[str] = set()
    for item in named:
        path = repo.resolve(item)
        if path is None or path in seen:
            continue
        seen.add(path)
        if not (repo.root / path).exists():
            if path in repo.tracked or repo.ever_tracked(path):
                marks.append(f"{path} no longer exists")
        elif repo.changed_at.get(path, 0.0) > _written_at(memory):
            marks.append(f"{path} changed since")
    return "; ".join(marks) or None


def plan(service: Engram, *, repo: str | Path | None, project: str | None, dry_run: bool,
         all_projects: bool = False) -> Report:
    root = git_root(repo)
    report = Report("stale", dry_run)
    memories = [m for m in gc.active_memories(service)
                if all_projects or m.project == project]
    if not memories:
        return report
    oldest = min(_written_at(m) for m in memories)
    repository = Repository.read(root, oldest)
    report.notes.append(f"checked {len(memories)} memories against {root}")
    for memory in memories:  # protected memories too: a mark only warns, never archives
        mark = mark_for(memory, repository)
        current = memory.meta.get("stale")
        if mark == current:
            if mark:
                report.actions.append(Action("still_stale", memory.id, mark))
            continue
        meta = {k: v for k, v in memory.meta.items() if k != "stale"}
        if mark:
            meta["stale"] = mark
            report.actions.append(Action("mark_stale", memory.id, mark))
        else:
            report.actions.append(Action("clear_stale", memory.id, f"was: {current}"))
        report.change(memory, memory.evolve(meta=meta))
    return report
