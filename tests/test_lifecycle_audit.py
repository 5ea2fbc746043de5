"""The recall audit log: every hook, MCP and API recall, redacted, pruned by age."""

from __future__ import annotations

import pytest
from api_support import start_server
from conftest import run_cli, run_json
from lifecycle_support import open_service


@pytest.fixture
def lc(store_target, clock):
    """On every engine under test (SQLite, PostgreSQL)."""
    service = open_service(store_target, clock)
    yield service
    service.close()


def seed(lc):
    return [
        lc.save("The checkout uses Stripe webhooks", type="decision", project="shop").memory,
        lc.save("Stripe keys live in the vault", type="project_fact", project="shop").memory,
        lc.save("Deploys go out with make deploy", type="verified_command").memory,
    ]


def test_each_callers_recall_is_logged_with_ids_scores_and_time(lc, clock):
    seed(lc)
    lc.search("stripe webhooks")  # no caller: a person at the CLI, not logged
    for caller in ("hook", "mcp", "api"):
        lc.search("stripe webhooks", caller=caller, project="shop")
        clock.advance(minutes=1)
    entries = lc.recalls()
    assert [e["caller"] for e in entries] == ["api", "mcp", "hook"]  # newest first
    response = lc.search("stripe webhooks", project="shop")
    for entry in entries:
        assert entry["query"] == "stripe webhooks"
        assert entry["ids"] == [r.memory.id for r in response.results]
        assert entry["scores"] == pytest.approx([r.score for r in response.results], abs=1e-5)
    assert entries[-1]["at"] == "2026-03-18T15:00:00.000000+00:00"
    assert [e["caller"] for e in lc.recalls(caller="mcp")] == ["mcp"]
    assert len(lc.recalls(since=clock.now.replace(minute=1))) == 2


def test_logging_does_not_change_rankings_or_access_statistics(lc):
    seed(lc)
    plain = [(r.memory.id, r.score) for r in lc.search("stripe", project="shop").results]
    for _ in range(5):
        lc.search("stripe", project="shop", caller="hook")
    again = [(r.memory.id, r.score) for r in lc.search("stripe", project="shop").results]
    assert again == plain
    assert all(m.access_count == 0 for m in lc.list(limit=10))


def test_queries_are_redacted_and_old_entries_pruned(lc, clock):
    seed(lc)
    secret = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    lc.search(f"why does stripe reject {secret}", caller="api")
    entry = lc.recalls()[0]
    assert secret not in entry["query"] and "stripe" in entry["query"]
    clock.advance(days=89)
    lc.search("vault", caller="hook")
    assert len(lc.recalls()) == 2
    clock.advance(days=2)  # the first entry is now 91 days old
    lc.search("deploy", caller="mcp")
    assert [e["caller"] for e in lc.recalls()] == ["mcp", "hook"]


def test_audit_can_be_turned_off(store_path, clock, monkeypatch):
    monkeypatch.setenv("ENGRAM_AUDIT", "off")
    service = open_service(store_path, clock)
    try:
        seed(service)
        service.search("stripe", caller="hook")
        assert service.recalls() == []
    finally:
        service.close()


def test_api_recalls_show_in_engram_log(tmp_path, cli_env):
    home = tmp_path / "home"
    server = start_server(home, ENGRAM_EMBEDDER="none")
    try:
        with server.client() as api:
            assert api.post("/v1/memories", json={"content": "Payments use Stripe webhooks",
                                                  "project": "shop"}).status_code == 201
            found = api.get("/v1/search", params={"q": "stripe webhooks"}).json()
    finally:
        server.stop()
    cli_env["ENGRAM_EMBEDDER"] = "none"
    entries = run_json(cli_env, "log")
    assert [(e["caller"], e["query"]) for e in entries] == [("api", "stripe webhooks")]
    assert entries[0]["ids"] == [r["memory"]["id"] for r in found["results"]]
    text = run_cli(cli_env, "log", "--since", "2000-01-01", check=True).stdout
    assert "api" in text and "stripe webhooks" in text


def test_a_servers_recall_audit_is_written_after_the_reply_and_drained_on_exit(lc):
    """MCP and REST servers answer first and audit after, a batch a second: no audit
    write sits before a reply, and closing the server (a clean exit) writes every recall
    still queued."""
    from engram.store.sqlite import ann_index

    seed(lc)
    assert ann_index.build_mode() == "never"  # a CLI never builds the vector lists
    backlog = lc.lifecycle.serve_long()
    assert ann_index.build_mode() == "background"  # a server builds them on a thread
    backlog.delay = 60.0  # a batch that would wait a minute: nothing written meanwhile
    try:
        for _ in range(3):
            assert lc.search("stripe", caller="mcp").results  # answers before any audit
        assert lc.recalls() == []
    finally:
        backlog.close()
    assert [r["caller"] for r in lc.recalls()] == ["mcp"] * 3
    assert lc.lifecycle.long_lived


def test_after_reply_jobs_run_in_batches_inside_one_batch_context():
    """What arrives within `delay` of a batch's first job is one batch: the server's
    audit rows share one transaction (one commit, one fsync) instead of one each."""
    import threading
    from contextlib import contextmanager

    from engram.lifecycle.backlog import Backlog

    events: list[object] = []
    done = threading.Event()

    @contextmanager
    def batch():
        events.append("begin")
        yield
        events.append("commit")
        done.set()

    backlog = Backlog(batch=batch, delay=0.5)
    for i in range(5):
        backlog.submit(lambda i=i: events.append(i))
    assert done.wait(10)
    assert events == ["begin", 0, 1, 2, 3, 4, "commit"]
    backlog.submit(lambda: events.append(5))
    backlog.close()  # drained at once, not after the delay
    assert events[-3:] == ["begin", 5, "commit"]


def test_a_failing_after_reply_job_is_logged_and_the_rest_still_run():
    from engram.lifecycle.backlog import Backlog

    logged: list[str] = []
    ran: list[int] = []
    backlog = Backlog(log=logged.append)

    def broken() -> None:
        raise OSError("disk full")

    backlog.submit(lambda: ran.append(1))
    backlog.submit(broken)
    backlog.submit(lambda: ran.append(2))
    backlog.close()
    assert ran == [1, 2]
    assert logged == ["after-reply job failed: OSError: disk full"]
    backlog.submit(lambda: ran.append(3))  # after close: run at once, in the caller
    assert ran == [1, 2, 3]
