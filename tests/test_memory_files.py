"""`engram memory-files sync|compress`: Claude Code's memory files in step, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, run_json

from engram.memory_files import BEGIN, END, memory_folder

USER_TEXT = ("# Notes for this repo\n\n- I review PRs in the morning.\n"
             "- See [testing](testing.md) for how the suite runs.\n")
TESTING_MD = ("---\nname: testing\ntype: project\n---\n\n"
              "- The integration suite needs a running Redis on port 6380.\n"
              "- Snapshot tests are updated with `pytest --snapshot-update`.\n")


@pytest.fixture
def shop(tmp_path: Path, cli_env: dict[str, str]) -> tuple[Path, Path, dict[str, str]]:
    """A git project, and Claude Code's memory folder for it under the test's HOME."""
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    folder = memory_folder(project, Path(cli_env["HOME"]))
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(USER_TEXT)
    (folder / "testing.md").write_text(TESTING_MD)
    return project, folder, cli_env


def cli(env: dict[str, str], project: Path, *args: str):
    return run_cli(env, "memory-files", *args, "--project-dir", str(project))


def test_memory_folder_is_where_claude_code_keeps_a_projects_memory(tmp_path):
    assert memory_folder(Path("/home/dev/my.shop"), Path("/home/dev")) == Path(
        "/home/dev/.claude/projects/-home-dev-my-shop/memory")


def test_sync_writes_a_delimited_block_and_leaves_the_users_text_alone(shop):
    project, folder, env = shop
    rule = run_json(env, "add", "Never run migrations on Fridays", "--type", "constraint",
                    "--project", "shop")["memory"]
    run_json(env, "add", "Auth is Clerk, not custom JWT", "--type", "decision",
             "--project", "shop")
    run_json(env, "add", "Payments go through Stripe", "--project", "billing")
    dry = cli(env, project, "sync", "--dry-run")
    assert dry.returncode == 0 and "would write" in dry.stdout
    assert (folder / "MEMORY.md").read_text() == USER_TEXT  # a dry run writes nothing
    assert cli(env, project, "sync").returncode == 0
    text = (folder / "MEMORY.md").read_text()
    # first (Claude Code reads only MEMORY.md's first 200 lines); the user's text after it,
    # byte for byte
    assert text.startswith(BEGIN) and text.endswith("\n" + USER_TEXT)
    block = text[text.index(BEGIN):text.index(END)]
    assert "Current code beats old memory" in block  # headed by the authority rule
    assert f"Never run migrations on Fridays (`{rule['id']}`)" in block
    assert "Clerk" in block and "Stripe" not in block  # this project's only
    again = cli(env, project, "sync")
    assert again.returncode == 0 and (folder / "MEMORY.md").read_text() == text

    # someone edits the file: the next sync refuses, with one clear line, unless forced
    edited = text.replace("in the morning", "after lunch")
    (folder / "MEMORY.md").write_text(edited)
    refused = cli(env, project, "sync")
    assert refused.returncode == 1 and refused.stderr.startswith("error: ")
    assert "changed since engram last wrote it" in refused.stderr
    assert (folder / "MEMORY.md").read_text() == edited
    assert cli(env, project, "sync", "--force").returncode == 0
    assert "after lunch" in (folder / "MEMORY.md").read_text()


def test_compress_stubs_files_engram_holds_and_restore_puts_them_back(shop):
    project, folder, env = shop
    original = (folder / "testing.md").read_bytes()
    kept = cli(env, project, "compress")  # nothing of it is in Engram yet
    assert kept.returncode == 0 and (folder / "testing.md").read_bytes() == original
    # what the PostToolUse hook does when Claude writes the file
    payload = {"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": str(project),
               "tool_name": "Write", "tool_input": {"file_path": str(folder / "testing.md"),
                                                    "content": TESTING_MD},
               "tool_response": {"type": "create"}}
    hooked = run_cli(env, "hook", "PostToolUse", input=json.dumps(payload))
    assert hooked.returncode == 0
    done = run_json(env, "memory-files", "compress", "--project-dir", str(project))
    assert done["changed"] == [str(folder / "testing.md")]
    stub = (folder / "testing.md").read_text()
    assert stub.startswith("<!-- engram:stub ") and len(stub.splitlines()) == 2
    ids = stub.splitlines()[0].split()[2:-1]
    for memory_id in ids:  # every id it names is a memory that says the entry
        assert "Redis" in run_cli(env, "get", memory_id, check=True).stdout or (
            "snapshot" in run_cli(env, "get", memory_id, check=True).stdout.lower())
    assert (folder / "MEMORY.md").read_text() == USER_TEXT  # the index is sync's, not this
    restored = cli(env, project, "compress", "--restore")
    assert restored.returncode == 0
    assert (folder / "testing.md").read_bytes() == original  # byte for byte


def test_upkeep_refreshes_synced_files_only_when_the_user_turned_it_on(shop):
    project, folder, env = shop
    assert cli(env, project, "sync").returncode == 0
    run_json(env, "add", "Never deploy on Fridays", "--type", "constraint", "--project", "shop")
    assert run_cli(env, "gc", "--upkeep", "manual").returncode == 0
    assert "Never deploy on Fridays" not in (folder / "MEMORY.md").read_text()  # off by default
    (Path(env["ENGRAM_HOME"]) / "config.toml").write_text(
        "[memory_files]\nsync_after_upkeep = true\n")
    assert run_cli(env, "gc", "--upkeep", "manual").returncode == 0
    assert "Never deploy on Fridays" in (folder / "MEMORY.md").read_text()
    assert (folder / "MEMORY.md").read_text().endswith("\n" + USER_TEXT)
