"""The `engram` command as users and scripts run it: a real subprocess per call."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli, run_json


def test_add_then_search_from_another_process(any_cli_env):
    saved = run_json(
        any_cli_env,
        "add",
        "Auth is Clerk, not custom JWT",
        "--type",
        "decision",
        "--project",
        "shopfront",
        "--tags",
        "auth,security",
        "--files",
        "src/auth.ts",
        "--importance",
        "0.8",
        "--pinned",
    )
    memory = saved["memory"]
    assert (memory["type"], memory["project"], memory["pinned"]) == ("decision", "shopfront", True)
    assert memory["tags"] == ["auth", "security"] and memory["files"] == ["src/auth.ts"]
    assert memory["provenance"] == "human"
    found = run_json(any_cli_env, "search", "Clerk auth")
    assert found["results"][0]["memory"]["id"] == saved["id"]
    if "ENGRAM_DB" not in any_cli_env:  # SQLite: the default store is in ENGRAM_HOME
        assert Path(any_cli_env["ENGRAM_HOME"], "memory.db").exists()


def test_global_json_flag_and_db_flag(any_cli_env, tmp_path):
    db = tmp_path / "named.db"
    proc = run_cli(any_cli_env, "--db", str(db), "--json", "add", "Use tabs in Makefiles")
    assert proc.returncode == 0 and json.loads(proc.stdout)["duplicate"] is False
    assert db.exists()
    listed = run_json(any_cli_env, "--db", str(db), "list")
    assert [m["content"] for m in listed] == ["Use tabs in Makefiles"]
    assert run_json(any_cli_env, "list") == []  # the default store is another file


def test_search_flags(any_cli_env):
    run_json(
        any_cli_env,
        "add",
        "Billing deploys with flyctl deploy",
        "--project",
        "billing",
        "--type",
        "verified_command",
        "--event-at",
        "2026-01-10T12:00:00Z",
    )
    run_json(
        any_cli_env,
        "add",
        "Shop deploys with vercel --prod",
        "--project",
        "shop",
        "--type",
        "verified_command",
        "--event-at",
        "2026-03-01T12:00:00Z",
    )
    run_json(any_cli_env, "add", "Deploys need a green CI run", "--type", "constraint")
    both = run_json(any_cli_env, "search", "deploys", "-k", "5")
    assert len(both["results"]) == 3
    shop = run_json(any_cli_env, "search", "deploys", "--project", "shop")
    assert {r["memory"]["project"] for r in shop["results"]} == {"shop", None}
    typed = run_json(any_cli_env, "search", "deploys", "--type", "constraint", "--type", "decision")
    assert [r["memory"]["type"] for r in typed["results"]] == ["constraint"]
    dated = run_json(
        any_cli_env,
        "search",
        "deploys",
        "--since",
        "2026-02-01",
        "--until",
        "2026-03-02",
        "--project",
        "shop",
    )
    assert [r["memory"]["project"] for r in dated["results"]] == ["shop"]
    top1 = run_json(any_cli_env, "search", "deploys", "-k", "1", "--explain")
    assert len(top1["results"]) == 1 and "decay_factor" in top1["results"][0]["signals"]
    human = run_cli(any_cli_env, "search", "deploys", "--explain", check=True)
    assert "relevance=" in human.stdout


def test_get_history_update_in_place_and_versions(any_cli_env):
    first = run_json(any_cli_env, "add", "We use React 17", "--project", "shop")["id"]
    proc = run_cli(any_cli_env, "update", first, "--content", "We use React 19", check=True)
    second = proc.stdout.strip()
    assert second and second != first
    chain = run_json(any_cli_env, "history", second)
    assert [m["content"] for m in chain] == ["We use React 17", "We use React 19"]
    fixed = run_json(any_cli_env, "update", second, "--content", "We use React 19.1", "--in-place")
    assert fixed["id"] == second
    retyped = run_json(any_cli_env, "update", second, "--type", "decision", "--tags", "frontend")
    assert (retyped["id"], retyped["type"], retyped["tags"]) == (second, "decision", ["frontend"])
    got = run_json(any_cli_env, "get", second[:6])
    assert got["content"] == "We use React 19.1"
    third = run_json(any_cli_env, "add", "We use React 20", "--project", "shop",
                     "--supersedes", second)
    assert third["memory"]["supersedes"] == second
    assert run_json(any_cli_env, "get", second)["status"] == "superseded"


def test_lifecycle_commands(any_cli_env):
    memory_id = run_json(any_cli_env, "add", "Logs go to Loki")["id"]
    assert run_json(any_cli_env, "archive", memory_id)["status"] == "archived"
    assert run_json(any_cli_env, "search", "Loki")["results"] == []
    assert run_json(any_cli_env, "restore", memory_id)["status"] == "active"
    assert run_json(any_cli_env, "pin", memory_id)["pinned"] is True
    assert run_json(any_cli_env, "unpin", memory_id)["pinned"] is False
    before = run_json(any_cli_env, "get", memory_id)["confidence"]
    assert run_json(any_cli_env, "confirm", memory_id)["confidence"] > before
    assert run_json(any_cli_env, "reject", memory_id)["confidence"] < before + 0.1
    deleted = run_json(any_cli_env, "delete", memory_id)
    assert {k: deleted[k] for k in ("id", "deleted", "hard")} == {
        "id": memory_id, "deleted": True, "hard": False}
    assert deleted["memory"]["status"] == "deleted"  # the shape REST and MCP answer too
    assert run_json(any_cli_env, "list", "--status", "deleted")[0]["id"] == memory_id
    assert run_json(any_cli_env, "delete", memory_id, "--hard")["hard"] is True
    missing = run_cli(any_cli_env, "get", memory_id)
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1


def test_list_filters(any_cli_env):
    run_json(any_cli_env, "add", "A", "--project", "p1", "--type", "todo", "--tags", "x")
    run_json(any_cli_env, "add", "B", "--project", "p2", "--type", "todo")
    run_json(any_cli_env, "add", "C", "--project", "p1", "--type", "decision", "--pinned")
    assert len(run_json(any_cli_env, "list", "--project", "p1")) == 2
    assert len(run_json(any_cli_env, "list", "--type", "todo")) == 2
    assert [m["content"] for m in run_json(any_cli_env, "list", "--tag", "x")] == ["A"]
    assert [m["content"] for m in run_json(any_cli_env, "list", "--pinned")] == ["C"]
    assert len(run_json(any_cli_env, "list", "--limit", "1", "--order", "oldest")) == 1
    stats = run_json(any_cli_env, "stats")
    assert stats["total"] == 3 and stats["by_type"]["todo"] == 2


def test_import_and_export(any_cli_env, tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(
        "\n".join(
            [
                json.dumps(
                    {
                        "content": "Use Vitest for unit tests",
                        "type": "decision",
                        "created_at": "2025-02-03T04:05:06Z",
                        "event_at": "2025-02-01T00:00:00Z",
                    }
                ),
                "this is not json",
                json.dumps({"content": "use vitest for unit tests."}),
                json.dumps(
                    {"content": "Migrations live in db/migrations", "files": ["db/migrations"]}
                ),
            ]
        )
    )
    proc = run_cli(any_cli_env, "import", str(source), "--json")
    assert proc.returncode == 1  # line 2 was refused; the rest imported
    result = json.loads(proc.stdout)
    assert (result["imported"], result["duplicates"]) == (2, 1)
    assert result["ids"][0] == result["ids"][2] and result["ids"][1] is None
    assert "line 2" in proc.stderr
    exported = tmp_path / "out.jsonl"
    run_cli(any_cli_env, "export", "--format", "jsonl", "-o", str(exported), check=True)
    records = [json.loads(line) for line in exported.read_text().splitlines()]
    assert records[0]["created_at"] == "2025-02-03T04:05:06.000000+00:00"
    other = dict(any_cli_env, ENGRAM_HOME=str(tmp_path / "second"))
    if "ENGRAM_DB" in any_cli_env:  # another, empty database on the same engine
        import pg_support

        other["ENGRAM_DB"] = pg_support.fresh_url()
    assert run_json(other, "import", str(exported))["imported"] == 2
    again = run_cli(other, "export", "--format", "jsonl", check=True).stdout.splitlines()
    assert [json.loads(line) for line in again] == records
    for fmt, marker in (
        ("markdown", "# Engram memories"),
        ("claude-md", "engram:memories"),
        ("json", '"content"'),
    ):
        assert marker in run_cli(any_cli_env, "export", "--format", fmt, check=True).stdout
    from_stdin = run_cli(
        any_cli_env, "import", "-", "--json", input=json.dumps([{"content": "Stdin works"}])
    )
    assert json.loads(from_stdin.stdout)["imported"] == 1


def test_reindex(any_cli_env):
    run_json(any_cli_env, "add", "Search uses Meilisearch")
    result = run_json(any_cli_env, "reindex")
    assert result["reindexed"] == 1 and result["embedder"].startswith("fake")


def test_exit_codes_and_one_line_errors(any_cli_env):
    bad_type = run_cli(any_cli_env, "add", "x", "--type", "fact")
    assert bad_type.returncode == 1
    assert "type" in bad_type.stderr and "decision" in bad_type.stderr
    assert bad_type.stderr.strip().count("\n") == 0
    bad_value = run_cli(any_cli_env, "add", "x", "--importance", "7")
    assert bad_value.returncode == 1 and "importance" in bad_value.stderr
    bad_date = run_cli(any_cli_env, "search", "x", "--since", "the day after never")
    assert bad_date.returncode == 1 and "since" in bad_date.stderr
    assert run_cli(any_cli_env, "get", "nothere99").returncode == 1
    assert run_cli(any_cli_env, "frobnicate").returncode == 2
    assert run_cli(any_cli_env, "add").returncode == 2
    assert run_cli(any_cli_env, "search", "x", "-k", "many").returncode == 2
    assert run_json(any_cli_env, "list") == []  # nothing was written by the failures


def test_queries_with_fts_syntax_are_plain_words(any_cli_env):
    run_json(any_cli_env, "add", 'Error "ECONNREFUSED 127.0.0.1:5432" means Postgres is down')
    for query in [
        '"unbalanced',
        "NEAR(a b)",
        "a* -b",
        "col:val",
        "(",
        "AND OR NOT",
        "^x",
        "'",
        "ECONNREFUSED 127.0.0.1:5432",
    ]:
        proc = run_cli(any_cli_env, "search", query, "--json")
        assert proc.returncode == 0, (query, proc.stderr)
    hits = run_json(any_cli_env, "search", "ECONNREFUSED 127.0.0.1:5432")["results"]
    assert "ECONNREFUSED" in hits[0]["memory"]["content"]


def test_human_output_is_readable(any_cli_env):
    run_cli(any_cli_env, "add", "Auth is Clerk", "--type", "decision", check=True)
    out = run_cli(any_cli_env, "search", "auth", check=True).stdout
    assert "Auth is Clerk" in out and "decision" in out
    assert "store" in run_cli(any_cli_env, "stats", check=True).stdout


def test_demo_runs_on_a_temporary_store_with_the_bundled_model(any_cli_env):
    env = dict(any_cli_env)
    env.pop("ENGRAM_EMBEDDER")
    report = run_json(env, "demo")
    titles = [step["title"] for step in report["steps"]]
    assert any("supersede" in t for t in titles) and any("filtered" in t for t in titles)
    auth = next(s for s in report["steps"] if s.get("query") == "what auth system do we use")
    assert auth["top"][0] == "Auth is Clerk, not custom JWT"
    push = next(s for s in report["steps"] if s.get("query", "").startswith("can I push"))
    assert push["top"][0].startswith("Never push to main")
    supersede = next(s for s in report["steps"] if "supersede" in s["title"])
    assert supersede["top"][0] == "We use React 19 in the storefront"
    assert report["stats"]["embedder"].startswith("minilm")
    assert not Path(report["store"]).exists()
    human = run_cli(env, "demo", check=True).stdout
    assert "demo store" in human and "your own store" in human


def test_an_export_file_is_private_to_its_owner(any_cli_env, tmp_path):
    run_cli(any_cli_env, "add", "Deploys need a green CI run", check=True)
    target = tmp_path / "backup.json"
    run_cli(any_cli_env, "export", "-o", str(target), check=True)
    assert (target.stat().st_mode & 0o777) == 0o600
    assert "green CI run" in target.read_text()


def test_an_import_with_a_refused_record_exits_1_and_keeps_the_good_ones(any_cli_env,
                                                                        tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"content": ""}\n\xff\xfe not json\n')
    proc = run_cli(any_cli_env, "import", str(bad))
    assert proc.returncode == 1 and "line 1:" in proc.stderr and "line 2:" in proc.stderr
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(b'{"content": "Deploys need a green CI run"}\n\xff\n')
    proc = run_cli(any_cli_env, "import", str(mixed))
    assert proc.returncode == 1 and "line 2:" in proc.stderr  # a script can tell
    assert "imported 1" in proc.stdout  # and the good record is in


def test_the_stores_own_export_imports_again_as_nothing_new(any_cli_env, tmp_path):
    first = run_json(any_cli_env, "add", "Auth is custom JWT", "--project", "shop")["id"]
    run_cli(any_cli_env, "update", first, "--content", "Auth is Clerk", check=True)
    exported = run_cli(any_cli_env, "export", "--format", "jsonl", check=True).stdout
    again = run_json(any_cli_env, "import", "-", input=exported)
    assert (again["imported"], again["duplicates"], again["errors"]) == (0, 2, [])
    assert run_json(any_cli_env, "stats")["total"] == 2  # superseded version included
    for fmt in ("markdown", "claude-md"):
        text = run_cli(any_cli_env, "export", "--format", fmt, check=True).stdout
        refused = run_cli(any_cli_env, "import", "-", input=text)
        assert refused.returncode == 1 and refused.stderr.count("\n") == 1
        assert "Markdown export" in refused.stderr


def test_every_listing_takes_n_and_limit_as_well_as_k(any_cli_env):
    for i in range(4):
        run_json(any_cli_env, "add", f"Service number {i} restarts nightly", "--project", "ops")
    assert len(run_json(any_cli_env, "search", "service restarts", "-k", "2")["results"]) == 2
    assert len(run_json(any_cli_env, "search", "service restarts", "-n", "3")["results"]) == 3
    assert len(run_json(any_cli_env, "search", "service restarts", "--limit", "1")
               ["results"]) == 1
    assert len(run_json(any_cli_env, "list", "-n", "2")) == 2
    assert len(run_json(any_cli_env, "list", "--limit", "3")) == 3
    assert run_cli(any_cli_env, "log", "-n", "5").returncode == 0


def test_piped_listings_are_tab_separated_lines_and_types_can_be_inferred(cli_env):
    """As gh does: a human table at a terminal, one tab-separated line per memory in a pipe
    (what scripts and the agents' slash commands read); `--type auto` reads the text."""
    rule = run_json(cli_env, "add", "Never run migrations on Fridays", "--type", "auto",
                    "--project", "shop")["memory"]
    choice = run_json(cli_env, "add", "We went with Clerk instead of custom JWT because key"
                      " rotation broke prod", "--type", "auto", "--project", "shop")["memory"]
    assert (rule["type"], choice["type"]) == ("constraint", "decision")
    saved = run_cli(cli_env, "add", "Should exports include archived memories?",
                    "--type", "auto", check=True).stdout
    assert "(open_question, global)" in saved
    listed = run_cli(cli_env, "list", "--project", "shop", check=True).stdout
    lines = listed.splitlines()
    assert len(lines) == 3 and not any(c in listed for c in "┃│┏")  # shop + global
    rows = {line.split("\t")[0]: line.split("\t") for line in lines}
    assert rows[rule["id"]][1:4] == ["constraint", "shop", rule["created_at"][:10]]
    assert rows[rule["id"]][4] == "Never run migrations on Fridays"
    found = run_cli(cli_env, "search", "friday migrations", "-k", "1", check=True).stdout
    [row] = [line.split("\t") for line in found.splitlines()]
    assert row[0] == rule["id"] and float(row[1]) > 0  # id, score, type, project, date, text


def test_config_get_set_unset_list_keeps_the_users_file(cli_env):
    home = Path(cli_env["ENGRAM_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('# my settings\nembedder = "bundled"  # the default\n')
    assert run_cli(cli_env, "config", "set", "lifecycle.grace_days", "14").returncode == 0
    assert run_cli(cli_env, "config", "set", "hooks.ask_agent_to_save", "yes").returncode == 0
    assert run_cli(cli_env, "config", "get", "lifecycle.grace_days").stdout.strip() == "14.0"
    text = (home / "config.toml").read_text()
    assert text.startswith('# my settings\nembedder = "bundled"  # the default\n')
    assert (home / "config.toml").stat().st_mode & 0o777 == 0o600
    assert run_json(cli_env, "config", "list") == {
        "embedder": "bundled", "hooks.ask_agent_to_save": True, "lifecycle.grace_days": 14.0}
    every = run_json(cli_env, "config", "list", "--all")
    assert "lifecycle.consolidate_similarity" in every and "server.url" in every
    for args, word in ((("set", "lifecycle.grace_days", "soon"), "is a number"),
                       (("set", "lifecycle.grace_day", "3"), "not a setting"),
                       (("set", "hooks.worker", "maybe"), "true or false")):
        refused = run_cli(cli_env, "config", *args)
        assert refused.returncode == 1 and word in refused.stderr
        assert refused.stderr.count("\n") == 1
    assert run_cli(cli_env, "config", "unset", "lifecycle.grace_days").returncode == 0
    assert run_cli(cli_env, "config", "get", "lifecycle.grace_days").returncode == 1
    assert "# the default" in (home / "config.toml").read_text()  # comments survive


def test_shell_completion_offers_commands_and_memory_types(cli_env):
    def complete(words: str) -> list[str]:
        env = {**cli_env, "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - (
            0 if words.endswith(" ") else 1)), "_ENGRAM_COMPLETE": "bash_complete"}
        out = run_cli(env).stdout
        return [line.split(",", 1)[1] for line in out.splitlines() if "," in line]

    assert {"search", "serve", "setup"} <= set(complete("engram se"))
    assert complete("engram add x --type de") == ["decision"]
    assert "auto" in complete("engram add x --type a")
    assert "auto" not in complete("engram search x --type a")
    assert "bug_note" in complete("engram list --type ")


def test_an_import_shows_its_progress_on_a_terminal_and_nothing_extra_in_a_pipe(cli_env,
                                                                                 tmp_path):
    import os
    import pty
    import subprocess
    import sys

    lines = [json.dumps({"content": f"fact {i} about the billing service", "type": "project_fact"})
             for i in range(300)]
    source = tmp_path / "facts.jsonl"
    source.write_text("\n".join(lines) + "\n")
    engram = str(Path(sys.executable).with_name("engram"))
    main, terminal = pty.openpty()  # standard error is a terminal, standard output a pipe
    proc = subprocess.run([engram, "import", str(source)], stdout=subprocess.PIPE,
                          stderr=terminal, env={**cli_env, "COLUMNS": "100"}, timeout=300)
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal's other end closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    assert proc.returncode == 0
    assert proc.stdout.decode().strip() == "imported 300, duplicates 0, errors 0"
    assert b"importing" in shown and b"100%" in shown
    piped = run_cli(cli_env, "import", str(source))  # again, nothing on a terminal
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout.strip() == "imported 0, duplicates 300, errors 0"


def test_the_default_scope_of_each_type_is_a_setting(cli_env):
    def scope_of(*args: str) -> str:
        return run_json(cli_env, "add", *args)["memory"]["scope"]

    assert scope_of("Tabs, not spaces", "--type", "preference") == "personal"
    assert scope_of("Auth is Clerk", "--type", "decision") == "team"
    assert run_cli(cli_env, "config", "set", "scopes.decision", "personal").returncode == 0
    assert scope_of("Billing runs on Stripe", "--type", "decision") == "personal"
    assert scope_of("Deploy with make ship", "--type", "verified_command") == "team"
    assert scope_of("Payments stay team-wide", "--type", "decision", "--scope", "team") == "team"
    refused = run_cli(cli_env, "config", "set", "scopes.decision", "everyone")
    assert refused.returncode != 0 and "team or personal" in refused.stderr
    refused = run_cli(cli_env, "config", "set", "scopes.decisions", "team")
    assert refused.returncode != 0 and "scopes.<type>" in refused.stderr


def test_add_files_a_memory_under_the_folders_project_as_the_hooks_do(cli_env, tmp_path):
    repo = tmp_path / "billing-api"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    here = run_json(cli_env, "add", "Invoices are rounded per line, not per total",
                    cwd=repo / "src")
    assert here["memory"]["project"] == "billing-api"
    everywhere = run_json(cli_env, "add", "I prefer short commit subjects", "--global",
                          cwd=repo)
    assert everywhere["memory"]["project"] is None
    named = run_json(cli_env, "add", "Staging deploys need a tag", "--project", "infra",
                     cwd=repo)
    assert named["memory"]["project"] == "infra"
    both = run_cli(cli_env, "add", "x", "--global", "--project", "infra", cwd=repo)
    assert both.returncode == 2 and "--global" in both.stderr
    forced = run_json({**cli_env, "ENGRAM_PROJECT": ""}, "add", "A global rule", cwd=repo)
    assert forced["memory"]["project"] is None
    listed = run_json(cli_env, "list", "--project", "billing-api")
    assert [m["id"] for m in listed if m["project"] == "billing-api"] == [here["id"]]
