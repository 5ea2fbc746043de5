"""The lifecycle commands as a user runs them: consolidate, unconsolidate, gc, forget."""

from __future__ import annotations

from conftest import run_cli, run_json
from lifecycle_support import db_fingerprint, open_service


def test_sweeps_on_the_command_line(tmp_path, cli_env, clock):
    cli_env["ENGRAM_EMBEDDER"] = "none"  # sweeps read stored vectors: no model needed
    db = tmp_path / "home" / "memory.db"
    service = open_service(db, clock)
    sources = []
    for text in (
        "Fixed the login redirect loop in the auth middleware by clearing the stale session"
        " cookie",
        "Fixed the login redirect loop in the auth middleware again by clearing the session"
        " cookie on logout",
    ):
        sources.append(service.save(text, type="task_summary", project="shop").memory)
        clock.advance(hours=1)
    old = service.save("Looked at the logging setup once", type="episode").memory
    pinned = service.save("Staging is wiped nightly", type="episode", pinned=True).memory
    service.close()
    # the memories were written in March 2026 (the test clock); the CLI runs on real time
    fingerprint = db_fingerprint(db)
    dry = run_json(cli_env, "consolidate", "--dry-run")
    assert dry["dry_run"] and dry["counts"] == {"consolidate": 1, "archive": 2}
    assert db_fingerprint(db) == fingerprint
    done = run_json(cli_env, "consolidate", "--project", "shop")
    [created] = done["created"]
    assert created["meta"]["consolidated_from"] == [m.id for m in sources]
    restored = run_json(cli_env, "unconsolidate", created["id"])
    assert sorted(m["id"] for m in restored["restored"]) == sorted(m.id for m in sources)
    assert db_fingerprint(db) != fingerprint  # seq moved; the memories themselves are back
    text = run_cli(cli_env, "forget", "--sweep", "--dry-run", check=True).stdout
    assert f"would archive {old.id}" in text and "dry run: nothing was changed" in text
    assert f"kept {pinned.id} (pinned)" in text
    swept = run_json(cli_env, "gc")
    assert {a["id"] for a in swept["actions"]} == {old.id, *(m.id for m in sources)}
    assert [p["id"] for p in swept["protected"]] == [pinned.id]
    usage = run_cli(cli_env, "forget")
    assert usage.returncode == 2 and "--sweep" in usage.stderr
