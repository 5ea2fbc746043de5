"""Consolidation: related aging episodes merge into one memory and can be undone exactly."""

from __future__ import annotations

import os

import pytest
from lifecycle_support import db_fingerprint, open_service

import engram
from engram.errors import NotFoundError, ValidationError

LOGIN = [
    "Fixed the login redirect loop in the auth middleware by clearing the stale session cookie",
    "Fixed the login redirect loop in the auth middleware again by clearing the session cookie"
    " on logout. Deployed on Friday.",
    "Fixed the login redirect loop in the auth middleware by clearing the session cookie on"
    " logout",
]


@pytest.fixture
def lc(store_target, clock):
    """On every engine under test (SQLite, PostgreSQL)."""
    service = open_service(store_target, clock)
    yield service
    service.close()


def everything(service) -> list[dict]:
    return sorted((m.to_dict() for m in service.store.iter_all()), key=lambda d: d["id"])


def seed_login_summaries(lc, clock, project="shop"):
    saved = []
    for i, text in enumerate(LOGIN):
        saved.append(lc.save(
            text, type="task_summary", project=project, tags=[f"t{i}", "auth"],
            files=[f"src/file{i}.ts", "src/auth.ts"], problem=f"Problem {i}. Users loop.",
            solution="Clear the cookie.", meta={"session_id": f"s{i}"},
        ).memory)
        clock.advance(days=2)
    return saved


def test_related_aging_summaries_merge_and_unconsolidate_restores_them_exactly(lc, clock):
    sources = seed_login_summaries(lc, clock)
    unrelated = lc.save("Upgraded the payment webhook handler to the new Stripe API",
                        type="task_summary", project="shop").memory
    lc.get(sources[0].id)  # access statistics travel too
    clock.advance(days=20)
    before = everything(lc)
    report = lc.consolidate()
    assert len(report.created) == 1
    merged = report.created[0]
    assert merged.provenance == "consolidation" and merged.type == "task_summary"
    assert merged.project == "shop"
    assert merged.meta["consolidated_from"] == [m.id for m in sources]
    assert merged.meta["dates"] == ["2026-03-18", "2026-03-20", "2026-03-22"]
    # a recap: what recurred once, with its count and span; what differed kept apart;
    # every other sentence once; the sources by id
    headline, *rest = merged.content.splitlines()
    assert headline == ("Fixed the login redirect loop in the auth middleware by clearing the"
                        " session cookie 3 times, 2026-03-18 to 03-22.")
    assert merged.content.count("login redirect loop") == 1
    assert "stale" in merged.content and "on logout" in merged.content
    assert "- Deployed on Friday." in rest
    assert rest[-1] == "Sources: " + ", ".join(m.id for m in sources)
    assert merged.problem == "Problem 0. Users loop. Problem 1. Problem 2."
    assert merged.solution == "Clear the cookie."
    assert set(merged.files) == {"src/file0.ts", "src/file1.ts", "src/file2.ts", "src/auth.ts"}
    assert set(merged.tags) == {"t0", "t1", "t2", "auth"}
    assert merged.access_count == 1
    assert merged.event_at == sources[-1].created_at  # decays from the newest source
    for source in sources:
        archived = lc.resolve(source.id)
        assert archived.status == "archived"
        assert archived.meta["consolidated_into"] == merged.id
    assert lc.resolve(unrelated.id).status == "active"
    # search finds the consolidation, not the archived sources
    ids = [r.memory.id for r in lc.search("login redirect loop", project="shop").results]
    assert merged.id in ids and not set(ids) & {m.id for m in sources}
    # undo, by the consolidated id or by any source's id
    restored = lc.unconsolidate(sources[1].id)
    assert sorted(m.id for m in restored) == sorted(m.id for m in sources)
    assert everything(lc) == before
    with pytest.raises(NotFoundError):
        lc.resolve(merged.id)
    # the undo sticks: automatic upkeep, past the grace period, does not merge them again
    clock.advance(days=40)
    assert lc.upkeep("manual")["consolidate"]["created"] == []
    assert not any("consolidated_into" in lc.resolve(m.id).meta for m in sources)
    assert len(lc.consolidate(dry_run=True).created) == 1  # an explicit consolidate still may


def test_unconsolidate_refuses_a_plain_memory(lc):
    plain = lc.save("Just a note", type="episode").memory
    with pytest.raises(ValidationError):
        lc.unconsolidate(plain.id)


def test_only_aging_episodic_memories_of_one_project_and_type_merge(lc, clock):
    seed_login_summaries(lc, clock, project="shop")
    seed_login_summaries(lc, clock, project="blog")
    # (texts kept apart from the summaries: a near-identical save would merge at once)
    lone_episode = lc.save("Login redirect loop seen again in staging", type="episode",
                           project="shop").memory
    rules = [lc.save(f"Login redirect loop: session cookie rule {word}", type=kind,
                     project="shop").memory
             for word, kind in zip(["alpha", "beta", "gamma"],
                                   ["decision", "constraint", "preference"], strict=True)]
    pinned = lc.save("Login redirect loop fixed by clearing the cookie, pinned summary",
                     type="task_summary", project="shop", pinned=True).memory
    important = lc.save("Login redirect loop fixed by clearing the cookie, key summary",
                        type="task_summary", project="shop", importance=0.9).memory
    # seeding took 12 days: under 13 days old, nothing is aging yet
    assert lc.consolidate(min_age_days=13).actions == []
    clock.advance(days=20)
    report = lc.consolidate()
    groups = [set(a.details["sources"]) for a in report.actions if a.action == "consolidate"]
    assert len(groups) == 2  # one per project; nothing crosses projects
    projects = {m.project for m in report.created}
    assert projects == {"shop", "blog"}
    untouched = [lone_episode, *rules, pinned, important]
    assert all(lc.resolve(m.id).status == "active" for m in untouched)
    # a consolidated memory is never consolidated again, and a second run finds nothing
    assert lc.consolidate().actions == []
    # --project limits the sweep
    assert lc.consolidate(project="nothing-here").actions == []


def test_keyword_only_store_consolidates_by_shared_words(tmp_path, clock):
    with engram.open(tmp_path / "kw.db", embedder="none", clock=clock) as service:
        service.lifecycle.upkeep_mode = "off"
        sources = seed_login_summaries(service, clock)
        clock.advance(days=30)
        dry = service.consolidate(dry_run=True, similarity=0.5)
        assert dry.created and set(dry.actions[0].details["sources"]) == {m.id for m in sources}
        fingerprint = db_fingerprint(tmp_path / "kw.db")
        report = service.consolidate(similarity=0.5)
        assert report.created[0].meta["consolidated_from"] == [m.id for m in sources]
        assert db_fingerprint(tmp_path / "kw.db") != fingerprint
        assert service.search("login redirect").results[0].memory.id == report.created[0].id


def test_bundled_model_groups_paraphrased_summaries_at_the_default_threshold(
    tmp_path, clock, bundled
):
    texts = [
        "Fixed the login redirect loop: the session cookie was not cleared on logout.",
        "Login kept redirecting forever; cleared the stale session cookie on logout to fix it.",
        "Debugged the redirect loop after login, caused by an old session cookie.",
        "Upgraded the Stripe webhook handler to the 2024 API version.",
        "Moved the payment webhooks to Stripe API 2024-06 and fixed the signature check.",
        "Wrote unit tests for the cart total calculation.",
        "Fixed flaky cart tests by freezing time in the total calculation tests.",
    ]
    with engram.open(tmp_path / "b.db", embedder=bundled, clock=clock) as service:
        service.lifecycle.upkeep_mode = "off"
        ids = [service.save(t, type="task_summary", project="shop").memory.id for t in texts]
        clock.advance(days=30)
        report = service.consolidate()
        assert [set(a.details["sources"]) for a in report.actions
                if a.action == "consolidate"] == [set(ids[:3])]
        hit = service.search("why did login loop?", project="shop").results[0].memory
        assert hit.id == report.created[0].id
        service.unconsolidate(hit.id)
        assert service.count(project="shop") == len(texts)


def test_a_configured_llm_summariser_writes_the_merge_and_failures_fall_back(
    lc, clock, monkeypatch
):
    import json
    import threading
    from dataclasses import replace
    from http.server import BaseHTTPRequestHandler, HTTPServer

    prompts: list[str] = []

    class Ollama(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompts.append(body["prompt"])
            answer = json.dumps({"response": "Login looped on a stale session cookie; fixed"
                                 " by clearing it on logout."}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Ollama)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{server.server_port}")
        lc.lifecycle.settings = replace(lc.lifecycle.settings, summariser="ollama:tiny")
        sources = seed_login_summaries(lc, clock)
        clock.advance(days=20)
        dry = lc.consolidate(dry_run=True)
        assert prompts == [] and dry.created[0].meta["summariser"] == "deterministic"
        report = lc.consolidate()
    finally:
        server.shutdown()
        server.server_close()
    [merged] = report.created
    assert merged.content.startswith("Login looped on a stale session cookie")
    assert merged.meta["summariser"] == "ollama:tiny"
    assert all(text in prompts[0] for text in LOGIN)
    lc.unconsolidate(merged.id)
    # the summariser is gone: the deterministic merge takes over, with a note
    report = lc.consolidate()
    assert report.created[0].meta["summariser"] == "deterministic"
    assert report.notes and "failed" in report.notes[0]
    assert report.created[0].meta["consolidated_from"] == [m.id for m in sources]


FAKE_CLAUDE = """#!{python}
import json, os, sys
sys.stdin.read()
mode = os.environ.get("FAKE_MODE", "good")
if mode == "exit1":
    sys.exit(1)
answer = {{
    "good": "The staging deploy timed out on 2026-03-18, 03-20 and 03-22 (20, 9 and 15"
            " minutes); a longer runner timeout fixed it.",
    "lossy": "The staging deploy timed out a few times; a longer runner timeout fixed it.",
}}[mode]
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                  "result": answer}}))
"""

DEPLOYS = ["Staging deploy timed out after 20 minutes", "Staging deploy timed out after 9 minutes",
           "Staging deploy timed out after 15 minutes"]


@pytest.mark.parametrize(("mode", "written_by"), [
    ("good", "claude"), ("lossy", "deterministic"), ("exit1", "deterministic")])
def test_a_configured_agent_cli_writes_the_summary_unless_it_loses_a_number(
        lc, clock, tmp_path, monkeypatch, mode, written_by):
    import sys
    from dataclasses import replace

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text(FAKE_CLAUDE.format(python=sys.executable))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_MODE", mode)
    lc.lifecycle.settings = replace(lc.lifecycle.settings, summariser="claude")
    for text in DEPLOYS:
        lc.save(text, type="episode", project="shop")
        clock.advance(days=2)
    clock.advance(days=20)
    [merged] = lc.consolidate().created
    assert merged.meta["summariser"] == written_by
    if written_by == "claude":
        assert merged.content.startswith("The staging deploy timed out on 2026-03-18")
    else:
        assert merged.content.startswith("Staging deploy timed out 3 times")
    assert "20" in merged.content and "9" in merged.content and "15" in merged.content
    assert merged.content.splitlines()[-1].startswith("Sources: ")
