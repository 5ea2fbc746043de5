"""`engram setup` / `doctor` / `prompt` against a temporary HOME full of other tools' config."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import run_cli
from npm_support import npm_tools

from engram.hooks.launcher import LAUNCHER, fallback_of

ENGRAM = str(Path(sys.executable).with_name("engram"))

SETTINGS = """{
    "permissions": {
        "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
        "deny": ["Read(./.env)"]
    },
    "env": {"FOO": "bar"},
    "model": "opus",
    "hooks": {
        "PostToolUse": [
            {"matcher": "Write|Edit",
             "hooks": [{"type": "command", "command": "prettier --write", "timeout": 30}]}
        ],
        "Notification": [
            {"hooks": [{"type": "command", "command": "notify-send 'Claude needs you'"}]}
        ]
    }
}
"""
CLAUDE_JSON = (
    '{"numStartups": 42, "theme": "dark", "mcpServers": {"github": {"type": "stdio", '
    '"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {}}}, '
    '"projects": {"/home/dev/shop": {"allowedTools": []}}}'
)
CODEX_TOML = """# Codex settings, hand-written
model = "o4-mini"  # the fast one
approval_policy = "on-request"

[mcp_servers.docs]
# documentation server
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.deep]
model = "o3"
"""
CLAUDE_MD = "# My rules\n\n- Answer in English.\n- Prefer small commits.\n"
CURSOR_MCP = '{\n  "mcpServers": {\n    "linear": {"url": "https://mcp.linear.app/sse"}\n  }\n}\n'


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "userhome"
    files = {
        ".claude/settings.json": SETTINGS,
        ".claude.json": CLAUDE_JSON,
        ".codex/config.toml": CODEX_TOML,
        ".claude/CLAUDE.md": CLAUDE_MD,
        ".cursor/mcp.json": CURSOR_MCP,
    }
    for name, text in files.items():
        path = home / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return home


@pytest.fixture
def env(cli_env: dict[str, str], home: Path) -> dict[str, str]:
    env = dict(cli_env)
    env["HOME"] = str(home)
    env["PATH"] = f"{Path(sys.executable).parent}:/usr/bin:/bin"  # no `claude` binary
    env["ENGRAM_HOOK_WORKER"] = "off"
    return env


@pytest.fixture
def store_env(env: dict[str, str], backend: str, store_target: str) -> dict[str, str]:
    """`env` with its store on each engine under test, for what reads or writes it (hooks,
    doctor's store check, the slash commands); the config-file merging is the same on
    both and runs once."""
    return env if backend == "sqlite" else {**env, "ENGRAM_DB": store_target}


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def setup(env: dict[str, str], *args: str) -> dict:
    proc = run_cli(env, "setup", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_setup_merges_into_existing_config_and_keeps_everything(env, home):
    result = setup(env)
    assert set(result["agents"]) == {"claude", "codex", "cursor"}

    settings = json.loads((home / ".claude/settings.json").read_text())
    assert settings["permissions"]["allow"] == ["Bash(npm run lint)", "Read(~/.zshrc)"]
    assert settings["env"] == {"FOO": "bar"} and settings["model"] == "opus"
    assert settings["hooks"]["Notification"][0]["hooks"][0]["command"].startswith("notify-send")
    post = settings["hooks"]["PostToolUse"]
    assert post[0]["hooks"][0]["command"] == "prettier --write"
    ours = post[1]
    assert ours["matcher"] == "Bash|Write|Edit|MultiEdit"
    [entry] = ours["hooks"]
    assert entry["timeout"] == 15 and fallback_of(entry["command"]) == f"{ENGRAM} hook PostToolUse"
    [failure] = settings["hooks"]["PostToolUseFailure"]
    assert failure["matcher"] == "Bash"
    assert fallback_of(failure["hooks"][0]["command"]) == f"{ENGRAM} hook PostToolUseFailure"
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"):
        [group] = settings["hooks"][event]
        [entry] = group["hooks"]
        # The user's hooks go through the shell launcher, in front of the Python hook.
        launcher, python_hook = shlex.split(entry["command"])[1], fallback_of(entry["command"])
        assert launcher == str(LAUNCHER) and python_hook == f"{ENGRAM} hook {event}"
        assert entry["timeout"] > 0 and os.path.isabs(python_hook.split()[0])
    assert (home / ".claude/settings.json").read_text().startswith('{\n    "permissions"')

    claude = json.loads((home / ".claude.json").read_text())
    assert claude["numStartups"] == 42 and claude["projects"]
    assert claude["mcpServers"]["github"]["command"] == "npx"
    assert claude["mcpServers"]["engram"] == {"type": "stdio", "command": ENGRAM,
                                              "args": ["mcp"], "env": {}}

    codex_text = (home / ".codex/config.toml").read_text()
    assert "# Codex settings, hand-written" in codex_text and "# the fast one" in codex_text
    codex = tomllib.loads(codex_text)
    assert codex["model"] == "o4-mini" and codex["profiles"]["deep"]["model"] == "o3"
    assert codex["mcp_servers"]["docs"]["args"] == ["-y", "docs-mcp"]
    assert codex["mcp_servers"]["engram"] == {"command": ENGRAM, "args": ["mcp"]}

    cursor = json.loads((home / ".cursor/mcp.json").read_text())
    assert cursor["mcpServers"]["linear"] and cursor["mcpServers"]["engram"]["command"] == ENGRAM

    claude_md = (home / ".claude/CLAUDE.md").read_text()
    assert claude_md.startswith(CLAUDE_MD)
    assert "<!-- engram:begin -->" in claude_md and "<!-- engram:end -->" in claude_md
    assert "Current code beats old memory" in claude_md
    assert "Current code beats old memory" in (home / ".codex/AGENTS.md").read_text()


def test_every_changed_file_is_backed_up_first(env, home):
    originals = snapshot(home)
    result = setup(env)
    backups = [Path(p) for p in result["backups"]]
    assert len(backups) == 5  # the five files that existed; AGENTS.md is new
    assert sorted(b.read_bytes() for b in backups) == sorted(originals.values())


def test_second_run_changes_nothing(env, home):
    setup(env)
    after_first = snapshot(home)
    second = setup(env)
    assert not any(f["changed"] for f in second["files"]) and second["backups"] == []
    assert snapshot(home) == after_first
    human = run_cli(env, "setup")
    assert "nothing to do" in human.stdout


def test_dry_run_prints_a_diff_and_writes_nothing(env, home, tmp_path):
    before = snapshot(home)
    proc = run_cli(env, "setup", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert f"+++ {home}/.claude/settings.json" in proc.stdout
    added = [line for line in proc.stdout.splitlines() if line.startswith("+")]
    assert any(f'{ENGRAM} hook UserPromptSubmit"' in line for line in added)
    assert "+[mcp_servers.engram]" in proc.stdout
    assert snapshot(home) == before
    assert not (Path(env["ENGRAM_HOME"]) / "backups").exists()


def test_uninstall_restores_every_file_byte_for_byte(env, home):
    before = snapshot(home)
    setup(env)
    setup(env)
    setup(env, "--uninstall")
    assert snapshot(home) == before
    assert not any(f["changed"] for f in setup(env, "--uninstall")["files"])


def test_uninstall_after_user_edits_removes_only_our_entries(env, home):
    setup(env)
    path = home / ".claude/settings.json"
    settings = json.loads(path.read_text())
    settings["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "say done"}]})
    settings["statusLine"] = {"type": "command", "command": "starship"}
    path.write_text(json.dumps(settings, indent=4) + "\n")
    setup(env, "--uninstall")
    left = json.loads(path.read_text())
    assert "engram hook" not in path.read_text()
    assert left["statusLine"]["command"] == "starship"
    assert left["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "say done"}]}]
    assert left["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "prettier --write"
    assert set(left["hooks"]) == {"PostToolUse", "Notification", "Stop"}
    assert left["permissions"] == json.loads(SETTINGS)["permissions"]


def test_project_scope_writes_the_project_files(env, home, tmp_path):
    project = tmp_path / "shop"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Shop\n")
    setup(env, "--scope", "project", "--project-dir", str(project), "--agent", "claude")
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert settings["hooks"]["SessionStart"][0]["hooks"][0]["command"].endswith(
        "hook SessionStart")
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["engram"]["args"] == [
        "mcp"]
    assert (project / "CLAUDE.md").read_text().startswith("# Shop\n\n<!-- engram:begin -->")
    assert (home / ".claude/settings.json").read_text() == SETTINGS  # user scope untouched
    setup(env, "--scope", "project", "--project-dir", str(project), "--agent", "claude",
          "--uninstall")
    assert sorted(p.name for p in project.rglob("*") if p.is_file()) == ["CLAUDE.md"]
    assert (project / "CLAUDE.md").read_text() == "# Shop\n"


def test_a_project_setup_runs_engram_from_path_so_a_teammates_other_virtualenv_works(
        env, home, tmp_path):
    project = tmp_path / "shop"
    project.mkdir()
    result = setup(env, "--scope", "project", "--project-dir", str(project), "--agent", "claude")
    assert any("pipx install engram-recall" in note for note in result["notes"])
    shared = [project / ".claude/settings.json", project / ".mcp.json",
              *sorted((project / ".claude/commands").iterdir())]
    for path in shared:  # the files a team commits name no one's virtualenv
        assert str(Path(ENGRAM).parent) not in path.read_text(), path
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["engram"][
        "command"] == "engram"
    # the person who ran setup has approved the project's server; that file is theirs only
    local = json.loads((project / ".claude/settings.local.json").read_text())
    assert local["enabledMcpjsonServers"] == ["engram"]

    # a teammate: engram installed elsewhere, found on their PATH
    elsewhere = tmp_path / "teammate-venv" / "bin"
    elsewhere.mkdir(parents=True)
    (elsewhere / "engram").symlink_to(ENGRAM)
    teammate = {**env, "PATH": f"{elsewhere}:/usr/bin:/bin", "HOME": str(tmp_path / "mate")}
    settings = json.loads((project / ".claude/settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    payload = {"session_id": "t", "transcript_path": str(tmp_path / "t.jsonl"),
               "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    proc = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), env=teammate,
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    setup(env, "--scope", "project", "--project-dir", str(project), "--agent", "claude",
          "--uninstall")
    assert not (project / ".claude/settings.local.json").exists()


def test_doctor_names_a_command_whose_virtualenv_was_moved_and_a_fix_that_works(env, home,
                                                                                tmp_path):
    setup(env, "--agent", "claude", "--agent", "cursor")
    moved = tmp_path / "old-venv" / "bin" / "engram"  # the script is there, its python is not
    moved.parent.mkdir(parents=True)
    moved.write_text("#!/gone/venv/bin/python3\nimport sys\n")
    moved.chmod(0o755)
    for name in (".claude/settings.json", ".cursor/mcp.json"):
        path = home / name
        path.write_text(path.read_text().replace(ENGRAM, str(moved)))
    report = json.loads(run_cli(env, "doctor", "--json").stdout)
    checks = {c["name"]: c for c in report["checks"]}
    for name in ("claude hooks", "mcp cursor (user)"):
        assert checks[name]["status"] == "fail", checks[name]
        assert "/gone/venv/bin/python3 is gone" in checks[name]["detail"]
        assert "pipx install engram-recall" in checks[name]["fix"]


def test_claude_cli_registers_the_mcp_server_when_present(env, home, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "claude-calls.txt"
    registry = tmp_path / "claude-registry.txt"
    fake = bin_dir / "claude"
    fake.write_text(  # a stand-in for `claude mcp …` that remembers what was added, and
        # answers `get` in the real CLI's format ("  Command: …" then "  Args: …")
        "#!/bin/sh\n"
        f'echo "$@" >> {calls}\n'
        'case "$2" in\n'
        f'  get) [ -f {registry} ] && cat {registry} && exit 0;'
        ' echo "No MCP server found" >&2; exit 1;;\n'
        f'  add) shift 6; printf "  Command: %s\\n  Args: mcp\\n" "$1" > {registry};;\n'
        f'  remove) rm -f {registry};;\n'
        "esac\n"
    )
    fake.chmod(0o755)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    setup(env, "--agent", "claude")
    setup(env, "--agent", "claude")  # registered with the same command: no second add
    setup(env, "--agent", "claude", "--uninstall")
    assert calls.read_text().splitlines() == [
        "mcp get engram", f"mcp add --scope user engram -- {ENGRAM} mcp",
        "mcp get engram",
        "mcp get engram", "mcp remove --scope user engram",
    ]
    assert not registry.exists()
    assert (home / ".claude.json").read_text() == CLAUDE_JSON  # the CLI owns that file


def test_registered_hook_commands_run_like_claude_code_runs_them(store_env, home, tmp_path):
    env = store_env
    setup(env, "--agent", "claude")
    settings = json.loads((home / ".claude/settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    payload = {"session_id": "s", "transcript_path": str(tmp_path / "t.jsonl"),
               "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "startup"}
    proc = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""


def test_doctor_reports_what_is_in_place_and_how_to_fix_the_rest(store_env, home):
    env = store_env
    proc = run_cli(env, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    assert proc.returncode == 1
    assert checks["store"]["status"] == "ok"
    assert checks["claude hooks"]["status"] == "fail"
    assert "engram setup" in checks["claude hooks"]["fix"]

    setup(env)
    proc = run_cli(env, "doctor", "--json")
    report = json.loads(proc.stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["claude hooks"]["status"] == "ok", checks["claude hooks"]
    assert checks["hook answers"]["status"] == "ok", checks["hook answers"]
    assert checks["mcp claude (user)"]["status"] == "ok"
    assert checks["mcp codex"]["status"] == "ok"
    human = run_cli(env, "doctor")
    assert "claude hooks" in human.stdout


def test_prompt_prints_the_instructions(env):
    proc = run_cli(env, "prompt")
    assert proc.returncode == 0
    assert "memory_save" in proc.stdout and "Current code beats old memory" in proc.stdout
    assert "Current code beats" in json.loads(run_cli(env, "prompt", "--json").stdout)[
        "instructions"]


def test_a_broken_config_stops_its_agent_only_and_is_left_as_it_was(env, home):
    (home / ".claude/settings.json").write_text("{ not json")
    before = snapshot(home)
    proc = run_cli(env, "setup")
    assert proc.returncode == 1 and "not valid JSON" in proc.stderr
    assert "not set up: claude" in proc.stderr and "Traceback" not in proc.stderr
    after = snapshot(home)
    claude_files = [name for name in before if "claude" in name]
    assert all(after[name] == before[name] for name in claude_files)  # the agent untouched
    codex = tomllib.loads((home / ".codex/config.toml").read_text())
    assert "engram" in codex["mcp_servers"]  # and the others set up all the same
    assert "engram" in json.loads((home / ".cursor/mcp.json").read_text())["mcpServers"]


SPLIT_CODEX = """model = "o4-mini"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[profiles.fast]
model = "gpt-5-mini"

[mcp_servers.linear]
command = "npx"
args = ["-y", "linear-mcp"]
"""


@pytest.mark.parametrize("config", [
    pytest.param(SPLIT_CODEX, id="servers-split-by-another-table"),
    pytest.param('mcp_servers = { github = { command = "npx", args = ["gh-mcp"] } }\n',
                 id="inline-table"),
    pytest.param('mcp_servers.github.command = "npx"\nmcp_servers.github.args = ["gh-mcp"]\n',
                 id="dotted-keys"),
    pytest.param(SPLIT_CODEX.replace("\n", "\r\n"), id="crlf"),
])
def test_codex_configs_of_every_valid_shape_are_merged_and_restored(env, home, config):
    path = home / ".codex/config.toml"
    path.write_bytes(config.encode())
    setup(env, "--agent", "codex")
    raw = path.read_bytes()
    merged = tomllib.loads(raw.decode())
    assert merged["mcp_servers"]["engram"]["args"] == ["mcp"]
    assert merged["mcp_servers"]["github"]["command"] == "npx"  # theirs kept
    if "\r\n" in config:
        assert raw.count(b"\n") == raw.count(b"\r\n")  # still a CRLF file
    assert setup(env, "--agent", "codex")["files"][0]["changed"] is False  # a no-op rerun
    setup(env, "--agent", "codex", "--uninstall")
    assert path.read_bytes() == config.encode()


def test_a_crlf_json_settings_file_stays_crlf(env, home):
    path = home / ".claude/settings.json"
    path.write_bytes(b'{\r\n  "model": "opus"\r\n}\r\n')
    setup(env, "--agent", "claude")
    raw = path.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n") and b"hooks" in raw


def test_json_with_comments_is_left_to_its_owner_and_the_other_agents_are_set_up(env, home):
    path = home / ".cursor/mcp.json"
    path.write_text('{\n  // the team\'s servers\n  "mcpServers": {}\n}\n')
    before = path.read_bytes()
    proc = run_cli(env, "setup", "--agent", "cursor", "--agent", "codex")
    assert proc.returncode == 1 and "has comments" in proc.stderr
    assert path.read_bytes() == before
    assert "engram" in tomllib.loads((home / ".codex/config.toml").read_text())["mcp_servers"]


COMMAND_NAMES = ("engram", "engram-search", "engram-save", "engram-forget", "engram-stats",
                 "engram-clean", "engram-health")


def _front_matter(text: str) -> dict[str, str]:
    """Claude Code's command format: `---`, `key: value` lines, `---`, then the prompt."""
    lines = text.splitlines()
    assert lines[0] == "---", text
    end = lines.index("---", 1)
    fields = dict(line.split(": ", 1) for line in lines[1:end])
    assert set(fields) <= {"description", "argument-hint", "allowed-tools"}, fields
    return fields


def test_setup_installs_slash_commands_that_run_the_cli_and_uninstall_removes_them(
        store_env, home, tmp_path):
    env = dict(store_env)
    mine = home / ".claude" / "commands" / "engram-stats.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("My own stats command\n")  # a file of the user's own, same name
    proc = run_cli(env, "setup", "--agent", "claude", "--agent", "codex")
    assert proc.returncode == 0, proc.stderr
    folder = home / ".claude" / "commands"
    for name in COMMAND_NAMES:
        text = (folder / f"{name}.md").read_text()
        fields = _front_matter(text)
        assert fields["description"]
        assert fields["allowed-tools"].startswith(f"Bash({ENGRAM} ")
        runs = [line[2:-1] for line in text.splitlines() if line.startswith("!`")]
        assert all(r.startswith(ENGRAM + " ") for r in runs)
        assert all("$ARGUMENTS" not in r for r in runs)  # never the user's text in a `!` line
        assert runs or "<<'ENGRAM_TEXT'" in text
        codex = (home / ".codex" / "prompts" / f"{name}.md").read_text()
        assert "Run " in codex and "!`" not in codex  # Codex has no `!` lines

    # What Claude Code runs for each command, through a real shell and the real CLI:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)

    def run_command(name: str, arguments: str = "") -> str:
        """The `!` lines as Claude Code runs them, then the heredoc block as the model is
        asked to run it, with the user's text where $ARGUMENTS stands."""
        text = (folder / f"{name}.md").read_text()
        shells = [line[2:-1] for line in text.splitlines() if line.startswith("!`")]
        if "```" in text:
            shells.append(text.split("```\n", 1)[1].split("\n```", 1)[0]
                          .replace("$ARGUMENTS", arguments))
        out = []
        for shell in shells:
            proc = subprocess.run(["bash", "-c", shell], env=env, cwd=project,
                                  capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, (name, proc.stderr)
            assert "Traceback" not in proc.stderr
            out.append(proc.stdout)
        return "".join(out)

    saved = run_command("engram-save", "Never run migrations on Fridays")
    assert "constraint" in saved  # the type was inferred
    hostile = 'Always run `touch pwned` before "$(touch pwned2)" pushes'
    assert "saved" in run_command("engram-save", hostile)
    assert not (project / "pwned").exists() and not (project / "pwned2").exists()
    assert hostile in run_command("engram-search", "touch pwned")  # stored as typed
    assert "migrations on Fridays" in run_command("engram-search", "friday migrations")
    assert "migrations on Fridays" in run_command("engram", "plan the release")
    assert run_command("engram-stats").strip()
    assert run_command("engram-clean").strip()
    assert run_command("engram-forget", "friday migrations").strip()
    # a `!` line whose command fails still says why, in one line (Claude Code drops the
    # output of a line that exits non-zero)
    broken = tmp_path / "not-a-store.db"
    broken.write_bytes(b"this is not a database" * 100)
    store = env.get("ENGRAM_DB")
    env["ENGRAM_DB"] = str(broken)
    said = run_command("engram-stats")
    assert said.startswith("engram: error: ") and said.count("\n") == 1
    if store is None:
        del env["ENGRAM_DB"]
    else:
        env["ENGRAM_DB"] = store

    proc = run_cli(env, "setup", "--agent", "claude", "--agent", "codex", "--uninstall")
    assert proc.returncode == 0, proc.stderr
    assert mine.read_text() == "My own stats command\n"  # put back byte for byte
    assert sorted(p.name for p in folder.iterdir()) == ["engram-stats.md"]
    assert not list((home / ".codex" / "prompts").iterdir())


def test_the_committed_claude_code_plugin_is_what_the_setup_rules_generate():
    """`plugin/` and `.claude-plugin/marketplace.json` are generated from the same hooks and
    commands as `engram setup` (regenerate: `python -m engram.setup.plugin`)."""
    from engram.setup import plugin

    root = Path(__file__).resolve().parents[1]
    for path, text in plugin.expected(root).items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale"
    hooks = json.loads((root / "plugin" / "hooks" / "hooks.json").read_text())["hooks"]
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"] == "engram hook UserPromptSubmit"
    on_disk = {p.relative_to(root / "plugin").as_posix()
               for p in (root / "plugin").rglob("*") if p.is_file()}
    assert on_disk == set(plugin.plugin_files())  # nothing left over from an older layout


GEMINI_SETTINGS = ('{\n  "theme": "GitHub",\n  "mcpServers": {\n    "docs": {"command": "npx", '
                   '"args": ["-y", "docs-mcp"]}\n  },\n  "hooks": {\n    "BeforeTool": [{"matcher":'
                   ' "run_shell_command", "hooks": [{"type": "command", "command": "audit.sh"}]}]'
                   '\n  }\n}\n')
OPENCODE_JSON = ('{\n  "$schema": "https://opencode.ai/config.json",\n  "model": '
                 '"anthropic/claude-sonnet-4-5",\n  "mcp": {\n    "github": {"type": "remote", '
                 '"url": "https://api.githubcopilot.com/mcp/"}\n  }\n}\n')


def test_gemini_cli_and_opencode_are_merged_into_and_restored_byte_for_byte(env, home):
    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text(GEMINI_SETTINGS)
    (home / ".config/opencode").mkdir(parents=True)
    (home / ".config/opencode/opencode.json").write_text(OPENCODE_JSON)
    env.pop("XDG_CONFIG_HOME", None)
    before = snapshot(home)
    result = setup(env)  # both detected by their config folders
    assert {"gemini", "opencode"} <= set(result["agents"])
    gemini = json.loads((home / ".gemini/settings.json").read_text())
    assert gemini["theme"] == "GitHub" and gemini["mcpServers"]["docs"]["args"] == [
        "-y", "docs-mcp"]
    assert gemini["mcpServers"]["engram"] == {"command": ENGRAM, "args": ["mcp"],
                                              "timeout": 60_000}
    assert gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == "audit.sh"
    [prompt_hook] = gemini["hooks"]["BeforeAgent"][0]["hooks"]
    assert prompt_hook["command"].endswith("hook UserPromptSubmit")
    assert prompt_hook["timeout"] == 10_000  # Gemini CLI counts milliseconds
    assert "Current code beats old memory" in (home / ".gemini/GEMINI.md").read_text()
    opencode = json.loads((home / ".config/opencode/opencode.json").read_text())
    assert opencode["model"] == "anthropic/claude-sonnet-4-5"
    assert opencode["mcp"]["github"]["type"] == "remote"
    assert opencode["mcp"]["engram"] == {"type": "local", "command": [ENGRAM, "mcp"],
                                         "enabled": True}
    assert "Current code beats old memory" in (
        home / ".config/opencode/AGENTS.md").read_text()
    assert not any(f["changed"] for f in setup(env)["files"])  # a second run: nothing
    setup(env, "--uninstall")
    assert snapshot(home) == before


def test_codex_and_opencode_share_a_projects_agents_md_written_once(env, home, tmp_path):
    project = tmp_path / "shop"
    project.mkdir()
    result = setup(env, "--scope", "project", "--project-dir", str(project),
                   "--agent", "codex", "--agent", "opencode")
    written = [f["path"] for f in result["files"] if f["changed"]]
    assert written.count(str(project / "AGENTS.md")) == 1
    assert json.loads((project / "opencode.json").read_text())["mcp"]["engram"]["enabled"]
    setup(env, "--scope", "project", "--project-dir", str(project), "--agent", "codex",
          "--agent", "opencode", "--uninstall")
    assert not (project / "AGENTS.md").exists() and not (project / "opencode.json").exists()


def test_gemini_clis_prompt_hook_gets_engrams_recall_in_its_own_answer_format(store_env, home,
                                                                                tmp_path):
    env = store_env
    (home / ".gemini").mkdir()
    setup(env, "--agent", "gemini")
    project = tmp_path / "shop"
    project.mkdir()
    saved = run_cli(env, "add", "Deploys go through the blue-green script, never kubectl "
                    "apply by hand", "--type", "constraint", "--project", "shop")
    assert saved.returncode == 0, saved.stderr
    settings = json.loads((home / ".gemini/settings.json").read_text())
    command = settings["hooks"]["BeforeAgent"][0]["hooks"][0]["command"]
    payload = {"session_id": "g1", "transcript_path": str(tmp_path / "g1.json"),
               "cwd": str(project), "hook_event_name": "BeforeAgent",
               "timestamp": "2026-11-25T08:00:00Z",
               "prompt": "how do we deploy the blue-green release to production?"}
    proc = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert "blue-green script" in answer["hookSpecificOutput"]["additionalContext"]


@pytest.fixture(scope="session")
def agent_clis(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Codex, Gemini CLI and OpenCode, the real ones, from npm (pinned)."""
    return npm_tools(tmp_path_factory, "@openai/codex@0.169.0", "@google/gemini-cli@0.61.0",
                     "opencode-ai@1.18.33")


def test_the_real_gemini_cli_and_opencode_see_engram_connected(env, home, tmp_path,
                                                                 agent_clis):
    project = tmp_path / "shop"
    project.mkdir()
    env.pop("XDG_CONFIG_HOME", None)
    env["PATH"] = f"{agent_clis}:{env['PATH']}"
    result = setup(env, "--agent", "gemini", "--agent", "opencode")
    assert not result["errors"]
    # Gemini CLI starts servers only in folders the user trusted (its own prompt does this)
    trusted = {str(project): "TRUST_FOLDER"}
    (home / ".gemini/trustedFolders.json").write_text(json.dumps(trusted))
    gemini = subprocess.run([str(agent_clis / "gemini"), "mcp", "list"], env=env, cwd=project,
                            capture_output=True, text=True, timeout=120)
    said = gemini.stdout + gemini.stderr  # Gemini CLI prints its list on stderr
    assert f"✓ engram: {ENGRAM} mcp (stdio) - Connected" in said, said
    opencode = subprocess.run([str(agent_clis / "opencode"), "mcp", "list"], env=env,
                              cwd=project, capture_output=True, text=True, timeout=120)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", opencode.stdout)  # its colours, even when piped
    assert re.search(r"✓ engram\s+connected", plain), plain


def test_every_agent_setup_knows_is_a_choice_of_the_cli():
    from engram.cli.agents import setup as setup_command
    from engram.setup import AGENTS

    [option] = [p for p in setup_command.params if p.name == "agents"]
    assert tuple(option.type.choices) == AGENTS


def test_the_real_codex_reads_the_merged_config_and_doctor_reports_its_status(
        env, home, tmp_path, agent_clis):
    """The config that once crashed setup (a server table after another table), merged,
    then read by the real Codex: both servers there, Engram's enabled; doctor asks Codex."""
    (home / ".codex/config.toml").write_text(
        CODEX_TOML + '\n[mcp_servers.search]\ncommand = "npx"\nargs = ["-y", "search-mcp"]\n')
    env["PATH"] = f"{agent_clis}:{env['PATH']}"
    assert not setup(env, "--agent", "codex")["errors"]
    listed = subprocess.run([str(agent_clis / "codex"), "mcp", "list"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:] if line.strip()}
    assert {"docs", "search", "engram"} <= set(rows)
    assert ENGRAM in rows["engram"] and "enabled" in rows["engram"]
    report = json.loads(run_cli(env, "doctor", "--json").stdout)
    status = {c["name"]: c for c in report["checks"]}["mcp codex status"]
    assert status["status"] == "ok" and ENGRAM in status["detail"]
