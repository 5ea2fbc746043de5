"""The store contract: what every engine must do, run on each one (SQLite, PostgreSQL).

Each test takes `any_mem` (the service over the engine under test) or `store_target`; the
engines come from $ENGRAM_TEST_BACKENDS (default: both, when the PostgreSQL test
dependencies are installed). A last test runs one scenario on both engines side by side
and asserts the same answers.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest
from conftest import backends, run_cli, run_json

import engram
from engram.errors import ConflictError, NotFoundError, StoreError, StoreUnavailableError
from engram.store.base import Filters, RecallEntry
from engram.text import query_terms

FACTS = [
    ("Auth is Clerk, not custom JWT: rotating keys by hand broke prod twice", "decision",
     "shop", ["auth"], ["app/auth.py"]),
    ("Never run migrations on Fridays", "constraint", "shop", ["ops"], []),
    ("pytest -q tests/unit runs the fast suite", "verified_command", "shop", [], ["tests/unit"]),
    ("The thumbnail worker leaks memory when Pillow keeps file handles open", "bug_note",
     "media", ["perf"], ["media/thumbs.py"]),
    ("Prefer small pure functions over classes for the pricing rules", "preference", None,
     [], []),
    ("Redis holds the session cache; its eviction policy is allkeys-lru", "project_fact",
     "shop", ["infra", "cache"], ["deploy/redis.conf"]),
]


def fill(mem: engram.Engram) -> list[str]:
    ids = []
    for content, kind, project, tags, files in FACTS:
        ids.append(mem.save(content, type=kind, project=project, tags=tags,
                            files=files).memory.id)
    return ids


def test_a_memory_round_trips_every_field(any_mem, clock):
    saved = any_mem.save(
        "Ünïcode ✓ — «quotes» and 'apostrophes'; 日本語 too", type="decision", project="shop",
        tags=["a", "b"], files=["src/x.py"], importance=0.9, pinned=True,
        meta={"nested": {"list": [1, 2.5, None, True]}, "emoji": "🧠"},
        event_at=clock.now - timedelta(days=3),
    ).memory
    assert any_mem.store.get(saved.id) == saved
    assert any_mem.store.get_many([saved.id, "nope"]) == {saved.id: saved}
    assert any_mem.store.resolve_prefix(saved.id[:6]) == [saved.id]


def test_updates_version_and_deletes_restore_the_predecessor(any_mem):
    first = any_mem.save("We use React 17", type="project_fact", project="web").memory
    second = any_mem.update(first.id, content="We use React 19")
    assert second.supersedes == first.id
    assert [m.content for m in any_mem.history(second.id)] == ["We use React 17",
                                                                "We use React 19"]
    assert [r.memory.content for r in any_mem.search("react", project="web").results] == [
        "We use React 19"]
    any_mem.delete(second.id, hard=True)
    assert any_mem.get(first.id).status == "active"
    with pytest.raises(NotFoundError):
        any_mem.get(second.id)


def test_listing_filters_and_orders_mean_the_same_on_every_engine(any_mem, clock):
    ids = fill(any_mem)
    store = any_mem.store
    shop = store.list(Filters(project="shop"), limit=50)
    assert {m.project for m in shop} == {"shop", None}
    assert len(store.list(Filters(project="shop", include_global=False))) == 4
    assert [m.id for m in store.list(Filters(types=("bug_note",)))] == [ids[3]]
    assert {m.id for m in store.list(Filters(tags=("cache",)))} == {ids[5]}
    assert {m.id for m in store.list(Filters(files=("redis.conf",)))} == {ids[5]}
    assert {m.id for m in store.list(Filters(files=("/srv/app/media/thumbs.py",)))} == {ids[3]}
    assert store.count(Filters(ids=tuple(ids[:2]))) == 2
    assert [m.id for m in store.list(Filters(), order="oldest")][:2] == ids[:2]
    assert [m.id for m in store.list(Filters(), order="newest")][0] == ids[-1]
    assert store.count(Filters(until=clock.now - timedelta(days=1))) == 0
    assert store.count(Filters(since=clock.now - timedelta(days=1))) == len(ids)
    any_mem.archive(ids[0])
    assert store.count(Filters()) == len(ids) - 1
    assert store.count(Filters(statuses=("archived",))) == 1
    assert store.count(replace(Filters(), statuses=())) == len(ids)


def test_keyword_search_ranks_by_bm25_and_respects_and_or(any_mem):
    ids = fill(any_mem)
    store = any_mem.store
    both = store.keyword_search(query_terms("redis cache"), "and", Filters(), 10)
    assert [c.memory_id for c in both] == [ids[5]]
    either = store.keyword_search(query_terms("redis fridays"), "or", Filters(), 10)
    assert {c.memory_id for c in either} == {ids[1], ids[5]}
    assert store.keyword_search(query_terms("nosuchterm"), "and", Filters(), 10) == []
    twice = any_mem.save("cache cache warm-up runs after deploy").memory
    once = any_mem.save("a cache layer for the search page results").memory
    ranked = [c.memory_id for c in store.keyword_search(query_terms("cache"), "or",
                                                        Filters(), 10)]
    assert ranked.index(twice.id) < ranked.index(once.id)  # term frequency counts
    assert any_mem.search("allkeys-lru eviction", pools="keyword").results[0].memory.id == ids[5]


def test_vectors_nearest_neighbours_and_filters(any_mem):
    ids = fill(any_mem)
    store = any_mem.store
    vectors = store.vectors_of(ids)
    assert set(vectors) == set(ids) and all(v.dtype == np.float32 for v in vectors.values())
    query = vectors[ids[3]]
    hits = store.vector_search(query, Filters(), 3)
    assert hits[0].memory_id == ids[3] and hits[0].score == pytest.approx(1.0, abs=1e-3)
    shop_only = store.vector_search(query, Filters(project="shop", include_global=False), 3)
    assert ids[3] not in [c.memory_id for c in shop_only] and len(shop_only) == 3
    near = store.nearest_in_project(np.stack([query, query]), ["media", "shop"], 0.99, 5)
    assert [c.memory_id for c in near[0]] == [ids[3]] and near[1] == []
    store.clear_vectors()
    assert store.vectors_of(ids) == {}
    assert any_mem.search("thumbnail memory leak").results  # keywords still answer


def test_change_numbers_duplicates_and_touch(any_mem, clock):
    store = any_mem.store
    ids = fill(any_mem)
    seq = store.last_change()
    assert store.changes_since(0) == len(ids)
    store.touch([ids[0]], clock.now)
    assert store.last_change() == seq  # reading is not a change
    assert store.get(ids[0]).access_count == 1
    any_mem.update(ids[1], importance=0.7, in_place=True)
    assert store.changes_since(seq) == 1
    first = any_mem.save("Deploys need a green canary", project="ops").memory
    twin = first.evolve(id="twin000001", created_at=first.created_at + timedelta(seconds=1))
    store.insert(twin, any_mem.index_terms_of(twin), None)
    assert store.duplicate_groups() == [[first.id, "twin000001"]]


def test_the_recall_log_and_upkeep_runs(any_mem, clock):
    store = any_mem.store
    now = clock.now
    for i in range(3):
        store.log_recall(RecallEntry(now - timedelta(days=i), "mcp", f"query {i}", "hybrid",
                                     ["a", "b"], [0.9, 0.5], 1.5), None)
    assert store.count_recalls() == 3
    assert [r["query"] for r in store.recalls(None, "mcp", 10)] == ["query 0", "query 1",
                                                                     "query 2"]
    assert store.recalls(now - timedelta(hours=1), None, 10)[0]["ids"] == ["a", "b"]
    assert store.prune_recalls(now - timedelta(hours=36)) == 1
    run = store.claim_upkeep("manual", now, now - timedelta(minutes=30))
    assert run is not None
    assert store.claim_upkeep("other", now, now - timedelta(minutes=30)) is None  # leased
    store.finish_upkeep(run, now, {"gc": {"counts": {"archived": 0}}})
    assert store.last_upkeep()["report"] == {"gc": {"counts": {"archived": 0}}}
    dropped = store.claim_upkeep("manual", now, now - timedelta(minutes=30))
    store.drop_upkeep(dropped)
    assert [r["trigger"] for r in store.upkeep_runs(10)] == ["manual"]


def test_health_and_lifecycle_run_on_every_engine(any_mem, clock):
    ids = fill(any_mem)
    any_mem.archive(ids[3])
    clock.advance(days=40)
    health = any_mem.stats()["health"]
    assert health["active_by_layer"] == {"semantic": 2, "rule": 2, "procedural": 1} or sum(
        health["active_by_layer"].values()) == 5
    assert health["archived_by"] == {"hand": 1}
    report = any_mem.upkeep("manual")
    assert "gc" in report and "consolidate" in report
    assert any_mem.stats()["total"] == len(ids)


def test_meta_and_store_errors_are_engram_errors(any_mem):
    store = any_mem.store
    store.set_meta("k", "v")
    assert store.get_meta("k") == "v"
    store.set_meta("k", None)
    assert store.get_meta("k") is None
    missing = any_mem.get  # an unknown id is NotFound, not a store error
    with pytest.raises(NotFoundError):
        missing("zzzzzzzzzz")
    with pytest.raises(StoreError):
        ghost = FACTS and any_mem.save("x").memory.evolve(id="neverstored")
        store.update(ghost)


def test_both_engines_give_the_same_answers(tmp_path, clock):
    """One scenario, run on SQLite and PostgreSQL: the same results in the same order."""
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support

    queries = ["what auth do we use", "friday migrations", "memory leak thumbnails",
               "redis eviction", "pricing rules style", "how to run the unit tests",
               "getUserName", "snake_case names"]
    answers = []
    for target in (str(tmp_path / "memory.db"), pg_support.fresh_url()):
        with engram.open(target, embedder="fake", clock=clock) as mem:
            fill(mem)
            mem.save("getUserName calls getUserName again when the cache misses")
            mem.save("Config keys use snake_case names, never camelCase")
            answers.append({q: [(r.memory.content, round(r.score, 3))
                                for r in mem.search(q, k=5).results] for q in queries})
            answers[-1]["keyword"] = [r.memory.content for r in mem.search(
                "cache session redis", pools="keyword").results]
    sqlite, postgres = answers
    assert postgres == sqlite


def _edit(target: str, memory_id: str, text: str, start: threading.Barrier) -> str:
    with engram.open(target, embedder="fake") as mem:
        start.wait()
        try:
            return mem.update(memory_id, content=text).id
        except ConflictError:
            return "conflict"


def test_concurrent_edits_of_one_memory_lose_nothing(store_target):
    """Writers in separate connections race to version one memory: each edit either lands
    on the chain or is told to retry; none silently undoes another or forks the chain."""
    with engram.open(store_target, embedder="fake") as mem:
        first = mem.save("The cache TTL is 60 seconds", project="api").memory
    start = threading.Barrier(4)
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(
            lambda i: _edit(store_target, first.id, f"The cache TTL is {90 + i} seconds", start),
            range(4)))
    landed = [o for o in outcomes if o != "conflict"]
    assert len(landed) >= 1
    with engram.open(store_target, embedder="fake") as mem:
        chain = mem.history(first.id)
        active = [m for m in chain if m.status == "active"]
        assert len(active) == 1 and len(chain) == 1 + len(landed)
        assert {m.id for m in chain[1:]} == set(landed)
        assert all(m.supersedes == prev.id for prev, m in zip(chain, chain[1:], strict=False))


def test_an_unreachable_server_is_one_clear_line_without_the_password(cli_env):
    env = {**cli_env, "ENGRAM_DB": "postgresql://engram:s3cret-pw@127.0.0.1:9/memories"}
    proc = run_cli(env, "search", "anything")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "PostgreSQL" in proc.stderr and "s3cret-pw" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_migrate_copies_a_whole_store_between_engines_and_back(any_cli_env, tmp_path):
    """SQLite file -> the engine under test -> a new SQLite file: every field, version link,
    vector and recall-log entry arrives, verified by the command's own checksums."""
    source = dict(any_cli_env, ENGRAM_DB=str(tmp_path / "source.db"))
    first = run_json(source, "add", "We use React 17", "--project", "web", "--tags", "ui")
    run_json(source, "update", first["id"], "--content", "We use React 19")
    run_json(source, "add", "Never deploy on Fridays", "--type", "constraint", "--pinned")
    archived = run_json(source, "add", "The staging box is called kiwi")
    run_json(source, "archive", archived["id"])
    with engram.open(source["ENGRAM_DB"], embedder="fake") as mem:
        mem.search("react", caller="mcp")  # what agents were handed: the recall log
        _, token = mem.users.add("alice", "admin")  # a team's users travel too
    middle = any_cli_env.get("ENGRAM_DB") or str(tmp_path / "middle.db")
    copied = run_json(source, "migrate", "--to", middle)
    assert copied["memories"] == {"active": 2, "superseded": 1, "archived": 1}
    assert copied["vectors"] == 4 and copied["recalls"] >= 1 and copied["users"] == 1
    with engram.open(middle, embedder="none") as mem:  # the same token opens the copy
        assert mem.users.authenticate(token).name == "alice"
    back = str(tmp_path / "back.db")
    returned = run_json(dict(source, ENGRAM_DB=middle), "migrate", "--to", back)
    assert returned["checksums"] == copied["checksums"]
    history = run_json(dict(source, ENGRAM_DB=back), "history", first["id"])
    assert [v["content"] for v in history] == ["We use React 17", "We use React 19"]
    refused = run_cli(source, "migrate", "--to", back)  # the target must be empty
    assert refused.returncode == 1 and "already holds memories" in refused.stderr


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://engram:s3cret@db.internal:5432/memories",
     "postgresql://engram:***@db.internal:5432/memories"),
    ("postgresql://postgres:@/engram?host=/tmp/sock", "postgresql://postgres:@/engram?host=/tmp/sock"),
    ("postgres://db.internal/memories", "postgres://db.internal/memories"),
])
def test_a_stores_url_is_shown_without_its_password(url, shown):
    from engram.store.postgres import redacted_url

    assert redacted_url(url) == shown


def test_background_upkeep_reaches_the_same_store(store_target, clock):
    """The detached upkeep process is handed the store it runs on (a URL's password by
    environment, never on its command line) and records its run there."""
    from engram.lifecycle import upkeep

    with engram.open(store_target, embedder="fake") as mem:
        fill(mem)
        process = upkeep.spawn(mem, "manual")
        assert process is not None and process.wait(timeout=120) == 0
        assert "postgresql://" not in " ".join(map(str, process.args))
        assert mem.upkeep_runs(5)[0]["trigger"] == "manual"


def test_a_postgresql_store_reconnects_after_losing_its_connection(clock):
    """A server restart or failover drops a long-lived process's connection: the call in
    flight fails as 'unavailable' (an adapter answers 503), the next one reconnects."""
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support
    import psycopg

    url = pg_support.fresh_url()
    with engram.open(url, embedder="fake", clock=clock) as mem:
        saved = mem.save("Deploys go through the release Makefile target").memory
        pid = mem.store._conn.info.backend_pid
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(StoreUnavailableError):
            mem.get(saved.id)
        assert mem.get(saved.id).content == saved.content
        assert mem.search("release makefile").results[0].memory.id == saved.id


def test_keyword_ranking_survives_counts_read_across_a_concurrent_write(clock):
    """PostgreSQL reads the corpus size and a term's document count in separate statements;
    a write committing between them once made the count exceed the total, and every search
    with that term failed with a math domain error (500 under a team's load)."""
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support

    with engram.open(pg_support.fresh_url(), embedder="none", clock=clock) as mem:
        mem.save("The checkout flow retries payment twice", project="shop")
        store = mem.store
        with store.transaction():  # as if three more documents with the term committed
            store._execute("UPDATE term_df SET df = df + 3 WHERE term = 'checkout'")
        assert [r.memory.content for r in mem.search("checkout").results] == [
            "The checkout flow retries payment twice"]


# --- batched writes ---------------------------------------------------------------------


def test_a_batch_dedups_against_the_store_and_itself_the_same_on_every_engine(any_mem):
    """A save batch reads the store once and writes its rows together (PostgreSQL sends
    them in one pipeline): exact repeats, near-duplicates, an imported id that is taken
    and a repeat of a row written earlier in the same batch all resolve as one at a time."""
    kept = any_mem.save("The cache TTL is 60 seconds", project="api", tags=["cache"]).memory
    results = any_mem.save_many([
        {"content": "the cache TTL is 60 seconds.", "project": "api", "tags": ["ttl"]},
        {"content": "Deploys go through the release target", "project": "api"},
        {"content": "deploys go through the release target!", "project": "api"},
        {"content": "Deploys go through the release target", "project": "web"},
        {"content": "seconds is 60 TTL cache the", "project": "api"},  # same fake vector
    ])
    assert [r.duplicate for r in results] == [True, False, True, False, True]
    assert results[0].memory.id == results[4].memory.id == kept.id
    assert results[2].memory.id == results[1].memory.id != results[3].memory.id
    assert set(any_mem.get(kept.id).tags) == {"cache", "ttl"}
    assert any_mem.count(status=("active",)) == 3

    lines = [{"id": kept.id, "content": "The cache TTL is 60 seconds", "project": "api"},
             {"id": "0" * 26, "content": "Imported twice under one id", "project": "api"},
             {"id": "0" * 26, "content": "Imported twice under one id", "project": "api"},
             {"id": "0" * 26, "content": "Another text under that id", "project": "api"}]
    imported = any_mem.import_records(enumerate(lines, 1))
    assert (imported.imported, imported.duplicates, imported.errors) == (2, 2, [])
    assert imported.ids[0] == kept.id and imported.ids[1] == imported.ids[2] == "0" * 26
    assert imported.ids[3] not in (kept.id, "0" * 26)
    assert any_mem.get(imported.ids[3]).content == "Another text under that id"


def test_an_import_embedding_ahead_keeps_ids_in_order_across_batches(any_mem, monkeypatch):
    """The next batch is embedded while one is written: a record whose id an earlier
    batch wrote is still that memory, and bad lines keep their place in `ids`."""
    from engram.service import importing

    monkeypatch.setattr(importing, "IMPORT_BATCH", 2)
    lines = [{"id": f"{i:026d}", "content": f"Fact number {i} about the build"}
             for i in range(5)]
    lines.insert(3, {"id": f"{1:026d}", "content": "A record repeating an earlier id"})
    lines.insert(5, "not an object")
    result = any_mem.import_records(enumerate(lines, 1))
    assert result.ids == [f"{0:026d}", f"{1:026d}", f"{2:026d}", f"{1:026d}",
                          f"{3:026d}", None, f"{4:026d}"]
    assert (result.imported, result.duplicates, len(result.errors)) == (5, 1, 1)
    assert any_mem.get(f"{1:026d}").content == "Fact number 1 about the build"


def test_concurrent_batches_of_the_same_texts_keep_one_memory_each(store_target):
    """Two processes import the same memories at once: the write lock is taken before a
    batch reads the store, so each text is saved once and the other batch merges."""
    texts = [f"Service {i} retries failed webhooks three times" for i in range(40)]
    start = threading.Barrier(2, timeout=60)  # an open that fails breaks it, not hangs

    def save() -> list[str]:
        with engram.open(store_target, embedder="fake") as mem:
            start.wait()
            return [r.memory.id for r in mem.save_many(
                [{"content": t, "project": "hooks"} for t in texts])]

    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: save(), range(2))
    assert first == second
    with engram.open(store_target, embedder="fake") as mem:
        assert mem.count(project="hooks") == 40


def test_a_postgresql_batch_is_a_few_statements_not_a_few_per_memory(clock):
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support

    with engram.open(pg_support.fresh_url(), embedder="fake", clock=clock) as mem:
        mem.save("warm the store: its vector index exists")
        store = mem.store
        statements: list[str] = []

        def counted(method):
            def run(sql, params=()):
                statements.append(sql)
                return method(sql, params)
            return run

        for name in ("_rows", "_execute"):
            setattr(store, name, counted(getattr(store, name)))
        results = mem.save_many([{"content": f"Rule {i}: never deploy service {i} on Friday",
                                  "project": f"p{i % 3}"} for i in range(200)])
        assert not any(r.duplicate for r in results)
        assert len(statements) < 20, statements
        assert mem.count() == 201


# --- the vector index's build parameters -----------------------------------------------


def _old_index(url: str) -> None:
    """The index as Engram built it before its graph parameters were raised."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        dim = conn.execute("SELECT value FROM meta WHERE key = 'vector_dim'").fetchone()[0]
        conn.execute("DROP INDEX memories_embedding")
        conn.execute(f"CREATE INDEX memories_embedding ON memories USING hnsw"
                     f" ((embedding::halfvec({dim})) halfvec_cosine_ops)")
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")


def _index_definition(url: str) -> str:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname ="
                            " 'memories_embedding'").fetchone()[0]


def test_an_index_built_with_the_old_parameters_is_rebuilt_on_first_open(clock):
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support

    url = pg_support.fresh_url()
    with engram.open(url, embedder="fake", clock=clock) as mem:
        fill(mem)
    _old_index(url)
    assert "ef_construction" not in _index_definition(url)
    import time

    from engram.store.postgres import PostgresStore

    # a hook's open (it has a deadline) upgrades the schema but builds nothing
    hook = PostgresStore(url, deadline=time.monotonic() + 30)
    assert hook.upgraded_from == 3 and hook.get_meta("vector_index_rebuild") == "due"
    hook.close()
    assert "ef_construction" not in _index_definition(url)
    with engram.open(url, embedder="fake", clock=clock) as mem:
        assert mem.store.upgraded_from is None and not mem.store.get_meta("vector_index_rebuild")
        assert "vector_index_outdated" not in mem.stats()
        assert mem.search("redis eviction").results[0].memory.content.startswith("Redis")
    assert "m='16', ef_construction='200'" in _index_definition(url)


def test_a_big_store_keeps_its_old_index_until_reindex_and_doctor_says_so(clock, monkeypatch):
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support

    from engram.setup import doctor
    from engram.store.postgres import schema

    url = pg_support.fresh_url()
    with engram.open(url, embedder="fake", clock=clock) as mem:
        fill(mem)
    _old_index(url)
    monkeypatch.setattr(schema, "REBUILD_ON_OPEN", 3)  # "big": more vectors than that
    with engram.open(url, embedder="fake", clock=clock) as mem:
        assert mem.store.upgraded_from == 3
        assert mem.store.get_meta("vector_index_rebuild") == "reindex"  # not tried again
        assert "ef_construction" not in mem.stats()["vector_index_outdated"]
    check = doctor._store(url)
    assert check.status == "warn" and "engram reindex" in check.fix
    with engram.open(url, embedder="fake", clock=clock) as mem:
        assert mem.reindex() == len(FACTS)
        assert "vector_index_outdated" not in mem.stats()
        assert mem.store.get_meta("vector_index_rebuild") is None
    assert "ef_construction='200'" in _index_definition(url)
    assert doctor._store(url).status == "ok"


def test_vectors_no_hnsw_walk_reaches_are_still_found(clock, monkeypatch):
    """HNSW links a new vector from its neighbours only where it is among their best: beside
    dense clusters whose rows all hold closer neighbours, it gets no edge pointing to it
    and no walk finds it (at 100K on the scale benchmark, 40% of the memories imported
    after the bulk, even at ef_search 500). The store probes each new vector and searches
    the unreached exactly. Small here, so every walk is as short as the probes' first one."""
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support

    from engram.service.records import prepare
    from engram.store.postgres import schema
    from engram.store.postgres import vectors as pg_vectors

    monkeypatch.setattr(pg_vectors, "ef_search", lambda limit: 40)
    monkeypatch.setattr(schema, "PROBE_EF_SEARCH", (40, 40))
    rng = np.random.default_rng(3)

    def unit(v: np.ndarray) -> np.ndarray:
        return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)

    # 100 centres ~0.23 apart, each with 48 rows ~0.1 from it (the benchmark's jittered
    # copies of real vectors), then loners ~0.22 from a centre and farther from the rest
    centres = unit(unit(rng.normal(size=(1, 384))) + rng.normal(0, 0.03, (100, 384)))
    clusters = np.vstack([centres, unit(np.repeat(centres, 48, axis=0)
                                        + rng.normal(0, 0.025, (4800, 384)))])
    loners = unit(centres[:60] + rng.normal(0, 0.045, (60, 384)))
    url = pg_support.fresh_url()
    with engram.open(url, embedder="fake", clock=clock) as mem:
        store = mem.store
        ids = []
        # a bulk load: the index (made by the first vector) dropped, built once over the
        # clusters; then the loners saved
        for start, vectors in ((0, clusters[:1]), (1, clusters[1:]), (len(clusters), loners)):
            with store.transaction():
                for i, vector in enumerate(vectors):
                    memory, _ = prepare({"content": f"row {start + i}"}, now=clock.now)
                    store.insert(memory, mem.index_terms_of(memory), vector)
                    ids.append(memory.id)
            if start == 0:
                store._execute("DROP INDEX memories_embedding")
            elif start == 1:
                store._execute(schema.hnsw_index_sql(384))

        def unreached() -> set[str]:
            return {r[0] for r in store._rows(
                "SELECT m.id FROM vectors_unreached u JOIN memories m USING (rowid)")}

        loner_ids = ids[len(clusters):]
        assert unreached() and unreached() <= set(loner_ids)  # the bulk was not probed
        for memory_id, vector in zip(loner_ids, loners, strict=True):
            assert store.vector_search(vector, Filters(), 1)[0].memory_id == memory_id
        flagged = unreached()
        assert store.stats()["vectors_unreached"] == len(flagged)
        store.probe_vectors()  # as after a build: every row, the bulk's unreached too
        assert unreached() > flagged
        # filtered, updated, deleted: the side table follows its rows
        first, moved = sorted(flagged)[:2]
        vector = loners[loner_ids.index(first)]
        hits = store.vector_search(vector, Filters(ids=(first, ids[0])), 2)
        assert [c.memory_id for c in hits] == [first, ids[0]]
        store.delete(first)
        assert first not in [c.memory_id for c in store.vector_search(vector, Filters(), 5)]
        assert store._rows("SELECT COUNT(*) FROM vectors_unreached u LEFT JOIN memories m"
                           " USING (rowid) WHERE m.id IS NULL")[0][0] == 0
        reached = next(i for i, m in enumerate(loner_ids) if m not in unreached())
        store.update(store.get(moved), vector=loners[reached])  # probed again
        assert moved in [c.memory_id for c in store.vector_search(loners[reached], Filters(), 2)]
        assert all(same for (same,) in store._rows(  # a flagged row's copy is its vector
            "SELECT u.embedding = m.embedding FROM vectors_unreached u JOIN memories m"
            " USING (rowid) WHERE m.id = %s", (moved,)))
        store.clear_vectors()
        assert not unreached() and "vectors_unreached" not in store.stats()


def test_an_or_search_ranking_rare_words_first_finds_the_same_top_k(clock, monkeypatch):
    """PostgreSQL ranks an OR's rows with rarer words first and skips the rows with only
    common ones once they cannot reach the top k: the same answer as scoring them all."""
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support

    from engram.store.postgres import keywords as pg_keywords

    url = pg_support.fresh_url()
    with engram.open(url, embedder="fake", clock=clock) as mem:
        mem.save_many([{"content": f"Deploy step {i} of the release"
                        + (" then the ledger" * (1 + i % 3) if i % 8 == 0 else "")}
                       for i in range(80)])
        groups = query_terms("deploy ledger")
        store = mem.store
        expected = {k: store.keyword_search(groups, "or", Filters(), k) for k in (5, 30)}
        assert len(expected[5]) == 5 and len(expected[30]) == 30
        monkeypatch.setattr(pg_keywords, "COMMON_DF", 20)  # "deploy" is in all 80: common
        calls = []
        rows = store._rows
        monkeypatch.setattr(store, "_rows", lambda sql, params=(): (
            calls.append(sql) if "ORDER BY score" in sql else None) or rows(sql, params))
        assert store.keyword_search(groups, "or", Filters(), 5) == expected[5]
        assert len(calls) == 1  # the ten rows with "ledger" were enough
        assert store.keyword_search(groups, "or", Filters(), 30) == expected[30]
        assert len(calls) == 3  # not enough: every row scored


def test_rows_written_before_the_unreached_table_are_probed_on_first_open(clock):
    if "postgres" not in backends():
        pytest.skip("PostgreSQL is not among the engines under test")
    import pg_support
    import psycopg

    from engram.store.postgres import PostgresStore

    url = pg_support.fresh_url()
    with engram.open(url, embedder="fake", clock=clock) as mem:
        fill(mem)
    with psycopg.connect(url, autocommit=True) as conn:  # as Engram left a v4 store
        conn.execute("DROP TABLE vectors_unreached")
        conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    probed = []
    import engram.store.postgres.schema as schema

    real = schema.probe_all
    try:
        schema.probe_all = lambda cur, dim, batch=5_000: probed.append(dim) or real(cur, dim)
        hook = PostgresStore(url, deadline=__import__("time").monotonic() + 30)
        assert hook.upgraded_from == 4 and hook.get_meta("vectors_probe") == "due"
        hook.close()
        assert probed == []  # a hook's open probes nothing
        with engram.open(url, embedder="fake", clock=clock) as mem:
            assert mem.store.upgraded_from is None
            assert mem.store.get_meta("vectors_probe") is None
            assert mem.search("migrations Friday").results
    finally:
        schema.probe_all = real
    assert probed == [mem.store._dimension()]
