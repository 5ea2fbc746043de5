"""Automatic upkeep: after N saves or once a day, in the background, recorded; and stats."""

from __future__ import annotations

import os
import threading
from dataclasses import replace

import pytest
from conftest import run_json
from lifecycle_support import open_service

import engram
from engram.lifecycle import upkeep


@pytest.fixture
def lc(store_path, clock):
    service = open_service(store_path, clock)
    service.lifecycle.settings = replace(service.lifecycle.settings, upkeep_every=5)
    yield service
    service.close()


def finished_runs(service):
    return [r for r in service.upkeep_runs() if r["finished_at"] and r["trigger"] != "baseline"]


def test_upkeep_runs_in_a_background_thread_after_n_saves(lc, clock, monkeypatch):
    lc.lifecycle.upkeep_mode = "thread"
    release = threading.Event()
    started = threading.Event()
    real_run = upkeep.run

    def slow_run(service, trigger="manual"):
        started.set()
        assert release.wait(30), "the test never released the upkeep run"
        return real_run(service, trigger)

    monkeypatch.setattr(upkeep, "run", slow_run)
    expired = lc.save("Deploy freeze for half an hour", type="todo",
                      expires_at=clock.now.replace(minute=30)).memory
    clock.advance(hours=1)
    for i in range(4):  # four writes since the baseline: not due yet
        lc.save(f"Note number {i} about the release", type="episode")
    assert not started.is_set() and lc.lifecycle.upkeep_thread is None
    lc.save("The fifth write since the baseline", type="episode")  # due now
    # save() has returned while upkeep is still blocked: it did not run in the save
    assert started.wait(10)
    assert lc.lifecycle.upkeep_thread is not None and lc.lifecycle.upkeep_thread.is_alive()
    assert lc.lifecycle.upkeep_thread is not threading.current_thread()
    assert finished_runs(lc) == []
    assert lc.resolve(expired.id).status == "active"
    release.set()
    assert lc.wait_for_upkeep(30)
    [run] = finished_runs(lc)
    assert run["trigger"] == "saves" and run["report"]["thread"] == "engram-upkeep"
    assert run["report"]["gc"]["ids"] == [expired.id]
    assert lc.resolve(expired.id).status == "archived"
    # the counter restarts after a run
    lc.save("One more note after upkeep", type="episode")
    assert lc.wait_for_upkeep(10) and len(finished_runs(lc)) == 1


def test_short_lived_processes_hand_upkeep_to_a_detached_process(lc, clock):
    lc.lifecycle.upkeep_mode = "subprocess"
    expired = lc.save("Deploy freeze until Friday", type="todo",
                      expires_at=clock.now.replace(day=20)).memory
    for i in range(5):
        lc.save(f"Release note number {i}", type="episode")
    process = lc.lifecycle.upkeep_process
    assert process is not None
    assert lc.wait_for_upkeep(90) and process.returncode == 0
    [run] = finished_runs(lc)
    assert run["trigger"] == "saves" and run["report"]["pid"] != os.getpid()
    assert lc.resolve(expired.id).status == "archived"


def test_daily_upkeep_and_inline_mode(lc, clock):
    lc.lifecycle.upkeep_mode = "inline"
    lc.save("First note", type="episode")  # starts the counters
    clock.advance(hours=23)
    lc.save("Second note", type="episode")
    assert finished_runs(lc) == []
    clock.advance(hours=2)
    lc.save("Third note", type="episode")
    [run] = finished_runs(lc)
    assert run["trigger"] == "daily"
    health = lc.stats()["health"]
    assert health["upkeep"]["last_run"]["trigger"] == "daily"
    assert health["upkeep"]["last_run"]["at"].startswith("2026-03-19T16:00")
    assert health["upkeep"]["writes_since_last_run"] == 0


def test_single_saves_do_not_pile_up_keyword_index_segments(store_path, clock, monkeypatch):
    """Each save is one transaction, so one FTS5 segment; the store merges them itself
    every TIDY_AFTER writes, and no search result changes."""
    from engram.store.sqlite import keywords as sqlite_keywords

    monkeypatch.setattr(sqlite_keywords, "TIDY_AFTER", 40)

    def saved(name: str, tidy: bool) -> tuple[int, list[str]]:
        with engram.open(store_path.with_name(name), embedder="fake", clock=clock) as mem:
            if not tidy:
                monkeypatch.setattr(mem.store, "_tidy_keyword_index_if_due", lambda: None)
            for i in range(1 + 3 * 40):  # counting starts at the first; the last merges
                mem.save(f"Deploy note {i}: staging uses blue-green releases on port {8000 + i}")
            segments = mem.store._db.execute(
                "SELECT count(DISTINCT segid) FROM memories_fts_idx").fetchone()[0]
            found = [r.memory.content for r in mem.search("blue-green staging",
                                                          pools="keyword").results]
            return segments, found

    tidied, piled = saved("tidy.db", True), saved("piled.db", False)
    assert tidied[1] == piled[1]
    assert tidied[0] < piled[0]


def test_one_run_at_a_time_across_processes(lc, clock):
    now = clock.now
    run_id = lc.store.claim_upkeep("other-process", now, now - upkeep.LEASE)
    assert lc.upkeep("manual") == {"skipped": "another upkeep run is in progress"}
    lc.store.finish_upkeep(run_id, now, {})
    assert lc.upkeep("manual")["trigger"] == "manual"


def test_upkeep_mode_resolution(store_path, clock, monkeypatch):
    monkeypatch.delenv("ENGRAM_UPKEEP", raising=False)
    with engram.open(store_path, embedder="none", clock=clock) as simulated:
        assert upkeep.resolve_mode(simulated) == "off"  # an injected clock: deterministic
    with engram.open(store_path, embedder="none") as real:
        assert upkeep.resolve_mode(real) == "subprocess"
        real.lifecycle.long_lived = True
        assert upkeep.resolve_mode(real) == "thread"
    monkeypatch.setenv("ENGRAM_UPKEEP", "off")
    with engram.open(store_path, embedder="none") as real:
        assert upkeep.resolve_mode(real) == "off"
        for i in range(60):
            real.save(f"Saved note {i}", type="episode")
        assert real.lifecycle.upkeep_process is None and real.lifecycle.upkeep_thread is None
        assert real.upkeep_runs() == []


def test_stats_show_the_stores_health(lc, clock):
    lc.save("Paired on the checkout", type="episode")
    lc.save("Stripe API reference", type="resource")
    lc.save("Never push to main", type="constraint")
    lc.save("Tidy the README", type="todo", expires_at=clock.now.replace(day=19))
    stale = lc.save("Login lives in src/auth.ts", type="project_fact").memory
    lc.update(stale.id, in_place=True, meta={"stale": "src/auth.ts changed since"})
    clock.advance(days=45)
    lc.search("checkout", caller="hook")
    health = lc.stats()["health"]
    assert health["active_by_layer"] == {"episodic": 1, "reference": 1, "rule": 1,
                                         "semantic": 2}
    # 45 days: an episode is at 0.35 (half-life 30), a reference at 0.71 (90)
    assert health["decay"] == {"weak (0.25–0.5)": 1, "fading (0.5–0.75)": 1}
    assert (health["expired_but_active"], health["stale"], health["protected"]) == (1, 1, 1)
    assert health["recalls_logged"] == 1
    assert health["upkeep"]["mode"] == "off" and health["upkeep"]["last_run"] is None


def test_stats_and_log_on_the_command_line(cli_env):
    cli_env["ENGRAM_EMBEDDER"] = "none"
    run_json(cli_env, "add", "Paired on the checkout flow", "--type", "episode")
    data = run_json(cli_env, "stats")
    from engram.store.sqlite.migrations import SCHEMA_VERSION

    assert data["schema_version"] == SCHEMA_VERSION
    assert data["health"]["active_by_layer"] == {"episodic": 1}
    assert data["health"]["upkeep"]["mode"] == "subprocess"
    assert run_json(cli_env, "log") == []


def test_a_failing_upkeep_never_fails_a_save_and_waits_for_the_next_trigger(
    lc, clock, monkeypatch
):
    from engram.lifecycle import gc

    lc.lifecycle.upkeep_mode = "inline"
    calls = []

    def broken(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(gc, "plan", broken)
    lc.save("First note", type="episode")
    for i in range(5):
        lc.save(f"Note {i} that makes upkeep due", type="episode")
    assert calls == [1] and "disk on fire" in str(lc.lifecycle.upkeep_error)
    assert lc.count() == 6
    lc.save("Another note", type="episode")  # not retried after every save
    assert calls == [1]
    last = lc.stats()["health"]["upkeep"]["last_run"]
    assert last["error"] == "RuntimeError: disk on fire"


def test_the_decay_distribution_agrees_with_the_gc_rule(lc, clock):
    import random
    from collections import Counter
    from datetime import timedelta

    from engram.lifecycle import policy

    rng = random.Random(7)
    kinds = ["episode", "bug_note", "resource", "verified_command", "decision", "constraint"]
    for i in range(120):
        memory = lc.save(f"Memory number {i} " + " ".join(rng.choices("abcdefgh", k=5)),
                         type=rng.choice(kinds), importance=round(rng.random() * 0.85, 2),
                         created_at=clock.now - timedelta(days=rng.uniform(0, 400))).memory
        if i % 3 == 0:
            lc.store.touch([memory.id], clock.now - timedelta(days=rng.uniform(0, 100)))
        if i % 7 == 0:
            clock.advance(minutes=1)
            lc.confirm(memory.id)
    now = clock.now
    expected = Counter(
        policy.decay_bucket(left, 0.05) for m in lc.list(limit=1000)
        if (left := policy.strength(m, now)) is not None
    )
    assert lc.stats()["health"]["decay"] == dict(expected)
    assert sum(expected.values()) > 50 and len(expected) == 5


STEPS = [("20", "smoke"), ("9", "upload"), ("15", "test"), ("12", "build")]


def test_upkeep_merges_fading_related_episodes_before_forgetting_and_spares_new_arrivals(
        lc, clock, cli_env, store_path):
    """Old, never-recalled episodes about one recurring problem become one memory instead
    of being archived one by one; one that stands alone fades; what was imported today
    stays, however old the date it speaks of; the user can see all of it and undo it."""
    from datetime import timedelta

    recurring = [lc.save(f"Staging deploy pipeline timed out after {minutes} minutes on the"
                         f" {step} step", type="episode", project="shop").memory
                 for minutes, step in STEPS]
    alone = lc.save("Looked into font loading on the about page", type="episode",
                    project="shop").memory
    clock.advance(days=240)  # nobody recalled any of them since
    imported = lc.save("Staging deploy pipeline timed out after 7 minutes on the lint step",
                       type="episode", project="shop",
                       event_at=clock.now - timedelta(days=200)).memory  # arrived today
    report = lc.upkeep("manual")
    [merged_id] = report["consolidate"]["created"]
    merged = lc.resolve(merged_id)
    assert set(merged.meta["consolidated_from"]) == {m.id for m in recurring}
    assert merged.status == "active" and "4 times" in merged.content.splitlines()[0]
    [steps] = [line for line in merged.content.splitlines() if line.startswith("- step: ")]
    assert set(steps.removeprefix("- step: ").split(", ")) == {s for _, s in STEPS}
    assert all(lc.resolve(m.id).meta.get("consolidated_into") == merged_id for m in recurring)
    for question in ("pipeline timed out on the smoke step", "which step took 12 minutes"):
        found = [r.memory.id for r in lc.search(question, project="shop").results]
        assert found[:1] == [merged_id], question  # what the originals answered, it answers
    assert report["gc"]["ids"] == [alone.id]  # faded, and nothing to merge it with
    assert lc.resolve(alone.id).status == "archived"
    assert lc.resolve(imported.id).status == "active"  # within the grace period

    cli_env["ENGRAM_DB"] = str(store_path)
    [run] = [r for r in run_json(cli_env, "log", "--upkeep") if r["trigger"] == "manual"]
    assert run["archived"] == [alone.id] and run["merged_into"] == [merged_id]
    assert run["merged"] == len(recurring)
    assert f"engram restore {alone.id}" in run["undo"]
    assert f"engram unconsolidate {merged_id}" in run["undo"]


def test_the_next_command_at_a_terminal_says_what_upkeep_archived(lc, clock, cli_env,
                                                                 store_path):
    import pty
    import subprocess
    import sys
    from pathlib import Path

    gone = lc.save("Deploy freeze for half an hour", type="todo",
                   expires_at=clock.now.replace(minute=30)).memory
    clock.advance(hours=1)
    lc.upkeep("manual")
    cli_env["ENGRAM_DB"] = str(store_path)
    exe = Path(sys.executable).with_name("engram")

    def stderr_at_a_terminal(*args: str) -> str:
        leader, follower = pty.openpty()
        try:
            proc = subprocess.run([str(exe), *args], env=cli_env, stdout=subprocess.PIPE,
                                  stderr=follower, timeout=60, check=False)
            assert proc.returncode == 0
            os.close(follower)
            follower = -1
            chunks = []
            while True:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the terminal closed: everything was read
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks).decode()
        finally:
            os.close(leader)
            if follower >= 0:
                os.close(follower)

    said = stderr_at_a_terminal("stats")
    assert "automatic upkeep archived 1 unused memory" in said
    assert "engram log --upkeep" in said
    assert "archived" not in stderr_at_a_terminal("stats")  # said once
    piped = subprocess.run([str(exe), "stats"], env=cli_env, capture_output=True, text=True,
                           timeout=60, check=False)
    assert "upkeep" not in piped.stderr  # scripts are not told
    assert lc.resolve(gone.id).status == "archived"
