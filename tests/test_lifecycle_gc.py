"""GC and the forgetting sweep: expiry, decay floors, duplicates, protection, dry runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lifecycle_support import db_fingerprint, file_hash, open_service

from engram.lifecycle import forgetting, policy


@pytest.fixture
def lc(store_target, clock):
    """On every engine under test (SQLite, PostgreSQL)."""
    service = open_service(store_target, clock)
    yield service
    service.close()


def protected_trio(lc, **fields):
    """A pinned memory, a constraint and an importance-0.95 memory, all sweep bait."""
    return [
        lc.save("The staging database is wiped every night", type="episode", pinned=True,
                **fields).memory,
        lc.save("Never push directly to main", type="constraint", **fields).memory,
        lc.save("The release checklist lives in the wiki", type="episode", importance=0.95,
                **fields).memory,
    ]


def statuses(lc, memories):
    return {m.id: lc.resolve(m.id).status for m in memories}


def test_expired_memories_are_archived_others_stay(lc, clock):
    soon = lc.save("Deploy freeze this week", type="todo", project="shop",
                   expires_at=clock.now.replace(day=20)).memory
    later = lc.save("Review the Q3 roadmap", type="todo", project="shop",
                    expires_at=clock.now.replace(month=9)).memory
    clock.advance(days=3)
    report = lc.gc()
    assert [(a.action, a.id) for a in report.actions] == [("archive", soon.id)]
    gone = lc.resolve(soon.id)
    assert gone.status == "archived"
    assert gone.meta["archived_by"] == "gc" and "expired" in gone.meta["archived_reason"]
    assert lc.resolve(later.id).status == "active"
    assert lc.search("deploy freeze").results == [] or all(
        r.memory.id != soon.id for r in lc.search("deploy freeze").results)
    lc.restore(soon.id)  # a user's restore is respected by later sweeps
    assert lc.gc().actions == []
    assert lc.resolve(soon.id).status == "active"


def test_decay_threshold_depends_on_layer_importance_and_use(lc, clock):
    episode = lc.save("Paired with Sam on the checkout flow", type="episode").memory
    important = lc.save("Incident: checkout was down for an hour", type="episode",
                        importance=0.8).memory
    used = lc.save("Tried caching the cart in redis", type="failed_attempt").memory
    reference = lc.save("Stripe API docs: stripe.com/docs/api", type="resource").memory
    fact = lc.save("The shop runs on Django", type="project_fact").memory
    # importance 0.5: half-life 30 days; the 0.05 floor is reached after ~129.7 days.
    clock.advance(days=125)
    lc.mark_used([used.id])
    assert lc.gc(dry_run=True).actions == []
    clock.advance(days=6)  # 131 days
    report = lc.gc()
    assert {a.id for a in report.actions} == {episode.id}
    assert "strength" in report.actions[0].reason
    # importance 0.8 stretches the half-life to 39 days: floor after ~168.6 days
    clock.advance(days=36)  # 167 days
    assert lc.gc().actions == []
    clock.advance(days=2)
    assert {a.id for a in lc.gc().actions} == {important.id}
    # the used one counts from its last use (day 125): floor at day ~255
    clock.advance(days=80)  # 249
    assert lc.gc().actions == []
    clock.advance(days=10)
    assert {a.id for a in lc.gc().actions} == {used.id}
    # references decay three times slower; facts never do
    clock.advance(days=400)
    assert {a.id for a in lc.gc().actions} == {reference.id}
    assert lc.resolve(fact.id).status == "active"


def test_protected_memories_survive_every_sweep(lc, clock):
    expires = clock.now.replace(day=25)
    trio = protected_trio(lc, project="shop", expires_at=expires)
    # duplicates of each protected memory, less used
    for memory in trio:
        lc.store.insert(memory.evolve(id=memory.id + "x", pinned=False, importance=0.5),
                        lc.index_terms_of(memory), None)
    clock.advance(days=3000)
    gc_report = lc.gc()
    forget_report = lc.forget_sweep(threshold=0.0)
    consolidate_report = lc.consolidate(similarity=0.0)
    assert statuses(lc, trio) == {m.id: "active" for m in trio}
    protected_ids = {p["id"] for p in gc_report.protected}
    assert {m.id for m in trio} <= protected_ids
    assert {m.id for m in trio} <= {p["id"] for p in forget_report.protected}
    assert not any(a.id in {m.id for m in trio} for a in consolidate_report.actions)


def state(lc, store_target: str) -> str:
    """What a sweep could change: every memory in every status, the recall log, the change
    number; for a SQLite file also its bytes and every table."""
    memories = sorted((m.to_dict() for m in lc.store.iter_all()), key=lambda d: d["id"])
    seen = json.dumps([memories, lc.store.count_recalls(), lc.store.last_change()],
                      sort_keys=True, default=str)
    if store_target.startswith("postgresql://"):
        return seen
    return seen + file_hash(Path(store_target)) + db_fingerprint(Path(store_target))


def test_dry_runs_change_nothing_and_say_what_the_real_run_does(lc, clock, store_target):
    lc.save("Deploy freeze this week", type="todo", expires_at=clock.now.replace(day=20))
    lc.save("Paired with Sam on the checkout flow", type="episode")
    lc.save("Fixed the flaky cart test by freezing time in the cart total test",
            type="task_summary")
    lc.save("Fixed the flaky cart test again by freezing the clock in the cart total test",
            type="task_summary")
    lc.save("Looked into the search latency", type="episode", tags=["perf"])
    protected_trio(lc)
    clock.advance(days=100)
    lc.search("checkout", caller="hook")
    sweeps = [lc.consolidate, lc.forget_sweep, lc.gc]
    for sweep in sweeps:
        before = state(lc, store_target)
        dry = sweep(dry_run=True)
        assert dry.actions, f"{dry.kind} had nothing to do"
        assert state(lc, store_target) == before, dry.kind
        real = sweep()
        if dry.kind == "consolidate":  # the new memory's id is drawn per run
            assert [(a.action, a.details) for a in dry.actions if a.action == "consolidate"] == [
                (a.action, a.details) for a in real.actions if a.action == "consolidate"]
            assert [m.content for m in dry.created] == [m.content for m in real.created]
        else:
            assert [a.to_dict() for a in dry.actions] == [a.to_dict() for a in real.actions]
        assert state(lc, store_target) != before, dry.kind


def test_duplicates_merge_into_the_most_used_keeping_tags_and_files(lc):
    first = lc.save("Run the test suite with make test before pushing any change to main",
                    type="verified_command", project="shop", tags=["ci"],
                    files=["Makefile"]).memory
    # the save path would merge these itself; an import or another process slips them in
    twin = first.evolve(id="twin000001", content=first.content + " today", tags=("testing",),
                        files=("tox.ini",), access_count=5)
    other_project = first.evolve(id="elsewhere1", project="blog", tags=("blog",))
    versioned = first.evolve(id="version002", content=first.content.replace("main", "main 2"))
    for memory in (twin, other_project, versioned):
        vector = lc.embedder.embed([memory.content])[0]
        lc.store.insert(memory, lc.index_terms_of(memory), vector)
    report = lc.gc()
    merged = [a for a in report.actions if a.action == "merge_duplicate"]
    assert [(a.id, a.target) for a in merged] == [(first.id, twin.id)]
    keeper = lc.resolve(twin.id)
    assert keeper.status == "active" and keeper.access_count == 5
    assert set(keeper.tags) == {"testing", "ci"} and set(keeper.files) == {"tox.ini", "Makefile"}
    assert lc.resolve(first.id).meta["duplicate_of"] == twin.id
    assert lc.resolve(other_project.id).status == "active"  # another project
    assert lc.resolve(versioned.id).status == "active"  # a number differs: not a duplicate
    # the keeper is found by the files it took over
    assert twin.id in [r.memory.id for r in lc.search("Makefile", project="shop").results]


def test_forgetting_risk_grows_with_idle_time_and_falls_with_use_and_importance(lc, clock):
    plain = lc.save("Looked at the logging setup", type="episode").memory
    hot = lc.save("Checked the nightly backup job", type="episode").memory
    weighty = lc.save("Chose Postgres for the orders service", type="decision",
                      importance=0.7).memory
    for _ in range(10):
        lc.get(hot.id)
    now = clock.now
    risks = {m.id: forgetting.risk(lc.resolve(m.id), now).score for m in (plain, hot, weighty)}
    assert all(r < 0.05 for r in risks.values())
    clock.advance(days=90)
    later = {m.id: forgetting.risk(lc.resolve(m.id), clock.now).score
             for m in (plain, hot, weighty)}
    assert later[plain.id] > 0.75 > later[hot.id]
    assert later[weighty.id] < 0.2  # a decision fades on a yearly horizon
    report = lc.forget_sweep()
    assert [a.id for a in report.actions] == [plain.id]
    assert report.actions[0].details["idle_days"] == 90.0
    archived = lc.resolve(plain.id)
    assert archived.status == "archived" and archived.meta["archived_by"] == "forget"
    assert lc.store.get(plain.id) is not None  # archived, never deleted


def test_policy_protection_reasons(lc):
    pinned, constraint, important = protected_trio(lc)
    assert policy.protection(pinned) == "pinned"
    assert policy.protection(constraint) == "a constraint"
    assert "importance" in policy.protection(important)
    plain = lc.save("Something ordinary", type="episode").memory
    assert policy.protection(plain) is None


def test_a_memory_edited_between_plan_and_apply_is_left_alone(lc, clock):
    from engram.lifecycle import gc

    edited = lc.save("Paired with Sam on checkout", type="episode").memory
    used = lc.save("Paired with Kim on search", type="episode").memory
    clock.advance(days=200)
    report = gc.plan(lc, lc.lifecycle.settings, dry_run=False)
    assert set(report.writes) == {edited.id, used.id}
    lc.update(edited.id, in_place=True, tags=["still-relevant"])  # someone else, meanwhile
    lc.mark_used([used.id])  # a recall meanwhile only bumps access statistics
    gc.apply(lc, report)
    assert lc.resolve(edited.id).status == "active"
    assert lc.resolve(edited.id).tags == ("still-relevant",)
    assert report.notes == [f"skipped {edited.id}: it changed meanwhile"]
    after = lc.resolve(used.id)
    assert after.status == "archived" and after.access_count == 1
