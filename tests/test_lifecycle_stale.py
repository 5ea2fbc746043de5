"""Code beats memory: memories naming files that changed or vanished in a real git repo."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import run_cli, run_json
from lifecycle_support import open_service

from engram.lifecycle.staleness import paths_in_text


def git(repo: Path, *args: str, when: datetime | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    if when is not None:
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S+00:00")
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def commit(repo: Path, when: datetime, message: str, **files: str | None) -> None:
    for name, text in files.items():
        path = repo / name.replace("__", "/").replace("_dot_", ".")
        if text is None:
            git(repo, "rm", "-q", str(path.relative_to(repo)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            git(repo, "add", str(path.relative_to(repo)))
    git(repo, "commit", "-q", "-m", message, when=when)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit(root, datetime(2026, 3, 1, tzinfo=UTC), "start",
           src__auth_dot_ts="login()", src__cart_dot_ts="cart()", README_dot_md="# shop",
           src__legacy_dot_py="old = 1")
    return root


@pytest.fixture
def lc(store_target, clock):
    """On every engine under test (SQLite, PostgreSQL)."""
    service = open_service(store_target, clock)
    yield service
    service.close()


def test_deleted_changed_and_unchanged_files(lc, clock, repo):
    # the clock says 2026-03-18; the repository's first commit is 2026-03-01
    changed = lc.save("Login retries are handled in the auth module", type="project_fact",
                      project="shop", files=["src/auth.ts"]).memory
    deleted = lc.save("The legacy importer in src/legacy.py still needs Python 2 fixes",
                      type="todo", project="shop").memory
    unchanged = lc.save("The cart total is computed client side", type="project_fact",
                        project="shop", files=["cart.ts", "README.md"]).memory
    elsewhere = lc.save("Docs are in README.md", type="project_fact", project="blog").memory
    pinned = lc.save("Auth tokens expire hourly, see src/auth.ts:42", type="constraint",
                     project="shop", pinned=True).memory
    commit(repo, datetime(2026, 3, 20, tzinfo=UTC), "rework auth",
           src__auth_dot_ts="login(retry)", src__legacy_dot_py=None)
    report = lc.check_stale(repo=repo, project="shop")
    marks = {a.id: a.reason for a in report.actions}
    assert marks == {
        changed.id: "src/auth.ts changed since",
        deleted.id: "src/legacy.py no longer exists",
        pinned.id: "src/auth.ts changed since",  # a mark only warns: protected ones too
    }
    assert lc.resolve(changed.id).meta["stale"] == "src/auth.ts changed since"
    for memory in (unchanged, elsewhere):
        assert "stale" not in lc.resolve(memory.id).meta
    # search results and context packs carry the mark
    hit = lc.search("login retries", project="shop").results[0]
    assert hit.memory.id == changed.id
    assert hit.to_dict()["memory"]["meta"]["stale"] == "src/auth.ts changed since"
    pack = lc.context(project="shop", task="login retries")
    assert "src/auth.ts changed since; verify before relying on it" in pack.text
    # a second check changes nothing; confirming after the change clears the mark
    clock.advance(days=5)
    again = lc.check_stale(repo=repo, project="shop")
    assert {a.action for a in again.actions} == {"still_stale"} and not again.writes
    lc.confirm(changed.id)
    cleared = lc.check_stale(repo=repo, project="shop")
    assert [(a.action, a.id) for a in cleared.actions if a.action != "still_stale"] == [
        ("clear_stale", changed.id)]
    assert "stale" not in lc.resolve(changed.id).meta


def test_the_mark_follows_the_file_and_dry_run_writes_nothing(lc, clock, repo):
    memory = lc.save("Old import code lives in src/legacy.py", type="project_fact",
                     project="shop").memory
    commit(repo, datetime(2026, 3, 19, tzinfo=UTC), "drop legacy", src__legacy_dot_py=None)
    dry = lc.check_stale(repo=repo, project="shop", dry_run=True)
    assert [a.action for a in dry.actions] == ["mark_stale"]
    assert "stale" not in lc.resolve(memory.id).meta
    lc.check_stale(repo=repo, project="shop")
    assert lc.resolve(memory.id).meta["stale"] == "src/legacy.py no longer exists"
    (repo / "src" / "legacy.py").write_text("old = 1")  # back, but it was touched since
    assert lc.check_stale(repo=repo, project="shop").actions[0].reason == (
        "src/legacy.py changed since")
    clock.advance(days=2)
    lc.confirm(memory.id)  # someone checked it against the code
    assert lc.check_stale(repo=repo, project="shop").actions[0].action == "clear_stale"
    assert "stale" not in lc.resolve(memory.id).meta


def test_paths_named_in_text():
    text = ("Edit src/auth/session.ts:42 and README.md, not https://example.com/a/b.js;"
            " see also e.g. v1.2.3 and ./scripts/deploy.sh.")
    assert paths_in_text(text) == ["src/auth/session.ts", "README.md", "./scripts/deploy.sh"]


def test_stale_on_the_command_line(tmp_path, cli_env, repo, clock):
    cli_env["ENGRAM_EMBEDDER"] = "none"
    db = tmp_path / "home" / "memory.db"
    service = open_service(db, clock)
    memory = service.save("Login lives in src/auth.ts", project="shop").memory
    service.close()
    commit(repo, datetime(2026, 3, 25, tzinfo=UTC), "auth", src__auth_dot_ts="login(v2)")
    proc = run_cli(cli_env, "stale", "--repo", str(repo / "src"), "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert f"would mark stale {memory.id}: src/auth.ts changed since" in proc.stdout
    data = run_json(cli_env, "stale", "--repo", str(repo))  # project = the folder's name
    assert [(a["action"], a["id"]) for a in data["actions"]] == [("mark_stale", memory.id)]
    found = run_json(cli_env, "search", "login")
    assert found["results"][0]["memory"]["meta"]["stale"] == "src/auth.ts changed since"
    bad = run_cli(cli_env, "stale", "--repo", str(tmp_path / "nowhere"))
    assert bad.returncode == 1 and bad.stderr.startswith("error:")
