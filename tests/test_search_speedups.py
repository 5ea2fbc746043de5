"""The warm-search speed-ups must not change what a search returns or how it fails.

Covers vector scoring outside the store lock, the FTS5-sorted keyword plan
(SQLiteStore._best_matches), BLAS thread handling and batched index loading
(engram.store.sqlite.vector_index), the row parsing fast paths, loading candidates only as
far as they can reach the top k (retrieval._rerank) and the batched dedup scan
(SQLiteStore.nearest_in_project).
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from search_support import keyword_pool_threads

import engram
from engram import retrieval
from engram.embedders import EmbedderError
from engram.embedders.fake import FakeEmbedder
from engram.store.base import Filters
from engram.store.sqlite import SQLiteStore, vector_index

TOPICS = [
    "Postgres connection pool exhausted under load; raised max_connections to 200",
    "Use pnpm, not npm, in this monorepo: the lockfile is pnpm-lock.yaml",
    "Redis cache keys expire after 15 minutes; the session store relies on it",
    "Deploy to staging with make deploy-staging; production needs an approval",
    "The flaky checkout test was a race in src/cart/session.ts, fixed with a lock",
    "Sentry alerts for ETIMEDOUT come from the billing webhook retry loop",
    "We decided to keep SQLite for local dev and Postgres in production",
    "React Query cache invalidation happens in useInvoiceList after a mutation",
]
QUERIES = [
    "postgres connection pool",
    "which package manager do we use",
    "redis session cache expiry",
    "how do I deploy to staging",
    "flaky checkout test session.ts",
    "ETIMEDOUT billing webhook",
    "database for local development",
    "cache invalidation invoice list",
    "what did we decide last week about the database",
    "never deploy on Friday",
    "",
]


def _fill(mem: engram.service.Engram, copies: int = 3) -> None:
    records = []
    for i in range(copies):
        for j, text in enumerate(TOPICS):
            records.append({
                "content": f"{text} (note {i}-{j})",
                "project": "shop" if j % 2 else None,
                "tags": ["infra"] if j % 3 == 0 else [],
                "files": ["src/cart/session.ts"] if "session" in text else [],
            })
    mem.save_many(records)


def _snapshot(response: retrieval.SearchResponse) -> list[tuple]:
    return [(r.memory.id, r.score, r.signals) for r in response.results] + [
        (response.mode, response.since, response.until, response.temporal_phrase,
         tuple(response.notes))
    ]


class BrokenEmbedder(FakeEmbedder):
    """Embeds documents, fails on queries: the error must reach the caller unchanged."""

    def embed_query(self, text: str) -> np.ndarray:
        raise EmbedderError("query embedding failed on purpose")


def test_an_embedder_error_surfaces_unchanged(tmp_path: Path, clock):
    mem = engram.open(tmp_path / "memory.db", embedder=BrokenEmbedder(), clock=clock)
    try:
        mem.save("Use pnpm, not npm, in this monorepo")
        with pytest.raises(EmbedderError, match="failed on purpose"):
            mem.search("pnpm monorepo")
        assert mem.search("pnpm monorepo", pools="keyword").results  # keyword still fine
    finally:
        mem.close()


@pytest.mark.parametrize("beside", [False, True])
def test_concurrent_searches_from_threads_match_serial_ones(mem, beside):
    """`beside`: every search's keyword half on the store's one side thread, at once."""
    _fill(mem)
    expected = {q: _snapshot(mem.search(q)) for q in QUERIES}
    if beside:
        mem.store.parallel_min_rows = 0
    failures: list[BaseException] = []
    got: dict[tuple[int, str], list[tuple]] = {}

    def worker(n: int) -> None:
        try:
            for q in QUERIES[n % 3 :] + QUERIES[: n % 3]:
                got[(n, q)] = _snapshot(mem.search(q))
        except BaseException as exc:  # surfaced below
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures
    assert len(got) == 6 * len(QUERIES)
    for (_, q), snap in got.items():
        assert snap == expected[q]


@pytest.mark.parametrize("k", [1, 3, 10])
def test_loading_candidates_as_needed_ranks_like_loading_them_all(mem, clock, monkeypatch, k):
    """The re-ranking factors (decay, importance, confidence, pins, project, files, type)
    vary a lot here; stopping early must never change the top k or their scores."""
    records = []
    for i in range(120):
        topic = TOPICS[i % len(TOPICS)]
        records.append({
            "content": f"{topic} ({i})",
            "type": ["constraint", "project_fact", "episode", "verified_command"][i % 4],
            "project": ["shop", None, "infra"][i % 3],
            "files": ["src/cart/session.ts"] if i % 5 == 0 else [],
            "importance": (i % 10) / 10, "confidence": 0.5 + (i % 5) / 10,
            "pinned": i % 17 == 0,
            "created_at": datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=3 * i),
        })
    mem.save_many(records)
    cases = [dict(), dict(project="shop"), dict(files=["src/cart/session.ts"]),
             dict(rerank=False), dict(pools="keyword"), dict(pools="vector")]
    fast = {(q, i): _snapshot(mem.search(q, k=k, **case))
            for q in QUERIES for i, case in enumerate(cases)}
    monkeypatch.setattr(retrieval, "_LOAD_STEP", 10_000)  # the first batch loads them all
    for q in QUERIES:
        for i, case in enumerate(cases):
            assert fast[(q, i)] == _snapshot(mem.search(q, k=k, **case)), (q, case)


# --- keyword plan ---------------------------------------------------------------------


def _full_scan(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "_best_matches", lambda *args: None)


def test_fts_sorted_plan_equals_the_filtered_scan(mem, monkeypatch):
    mem.save_many([{"content": f"deploy staging runbook step {i} " + "deploy " * (i % 5)}
                   for i in range(60)])
    store = mem.store
    groups = [("deploy",), ("staging",), ("runbook",)]
    filters = mem.filters()
    fast = {mode: store.keyword_search(groups, mode, filters, 10) for mode in ("and", "or")}
    _full_scan(store, monkeypatch)
    slow = {mode: store.keyword_search(groups, mode, filters, 10) for mode in ("and", "or")}
    assert fast == slow
    assert len(fast["or"]) == 10


def test_fts_sorted_plan_falls_back_when_the_best_matches_are_filtered_out(mem, monkeypatch):
    saved = mem.save_many([{"content": f"kafka consumer lag alert {i} " + "kafka " * (i % 7)}
                           for i in range(40)])
    store = mem.store
    groups = [("kafka",)]
    ranked = store.keyword_search(groups, "and", mem.filters(), 40)
    for candidate in ranked[:30]:  # archive the 30 best matches: the plan must look further
        mem.archive(candidate.memory_id)
    filters = mem.filters()
    calls: list[object] = []
    real = store._best_matches

    def spy(*args):
        result = real(*args)
        calls.append(result)
        return result

    monkeypatch.setattr(store, "_best_matches", spy)
    fast = store.keyword_search(groups, "and", filters, 5)
    assert calls == [None]  # too few of the best 10 are active: filtered scan
    _full_scan(store, monkeypatch)
    assert fast == store.keyword_search(groups, "and", filters, 5)
    assert len(fast) == 5
    assert {c.memory_id for c in fast} <= {r.memory.id for r in saved}
    archived = mem.filters(status="archived")
    assert len(store.keyword_search(groups, "and", archived, 50)) == 30


def test_a_large_import_leaves_a_compact_keyword_index(tmp_path: Path, clock, monkeypatch):
    """Each import transaction adds an FTS5 segment that every keyword lookup visits; the
    import ends by merging them, and no search result changes."""
    from engram.exchange import parse
    from engram.service import importing

    monkeypatch.setattr(importing, "IMPORT_BATCH", 256)  # six transactions, not two

    text = "".join(
        json.dumps({"content": f"{TOPICS[i % len(TOPICS)]} (import {i})",
                    "project": ["shop", None][i % 2]}) + "\n"
        for i in range(1400)
    )

    def imported(name: str, tidy: bool) -> tuple[int, dict[str, list[str]]]:
        mem = engram.open(tmp_path / name, embedder="fake", clock=clock)
        try:
            if not tidy:
                monkeypatch.setattr(mem.store, "_tidy_keyword_index_if_due", lambda: None)
            assert mem.import_records(parse(text)).imported == 1400
            segments = mem.store._db.execute(
                "SELECT count(DISTINCT segid) FROM memories_fts_idx").fetchone()[0]
            found = {q: [r.memory.content for r in mem.search(q, pools="keyword").results]
                     for q in QUERIES}
            return segments, found
        finally:
            mem.close()

    compact, piled = imported("tidy.db", True), imported("piled.db", False)
    assert compact[1] == piled[1]
    assert compact[0] < piled[0]


def test_filtered_keyword_searches_keep_their_filters(mem):
    _fill(mem)
    hits = mem.search("cache", pools="keyword", project="shop", include_global=False).results
    assert hits and all(r.memory.project == "shop" for r in hits)
    tagged = mem.search("postgres", pools="keyword", tags=["infra"]).results
    assert tagged and all("infra" in r.memory.tags for r in tagged)


# --- vector scoring and row parsing -----------------------------------------------------


def test_small_index_scoring_is_the_same_product_and_restores_blas_threads():
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((500, 32)).astype(np.float32)
    query = rng.standard_normal(32).astype(np.float32)
    blas = vector_index._blas_threads()
    for one_thread in (None, True, False):  # the busy rule; the dedup scan's; forced off
        np.testing.assert_allclose(
            vector_index._scores(vectors, query, one_thread=one_thread), vectors @ query,
            rtol=1e-5)
    if blas is not None:
        setter, default = blas
        threads = [threading.Thread(target=vector_index._scores, args=(vectors, query),
                                    kwargs={"one_thread": True}) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert setter(0) == default  # no caller left the process single-threaded


def test_rows_round_trip_through_the_parsing_fast_paths(mem, clock):
    event = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    plain = mem.save("a memory with nothing optional").memory
    full = mem.save("a memory with everything", tags=["a", "b"], files=["src/x.py"],
                    meta={"k": [1, 2]}, event_at=event).memory
    got = mem.store.get_many([plain.id, full.id])
    assert got[plain.id] == plain and got[full.id] == full
    assert got[full.id].event_at == event and got[full.id].event_at.tzinfo is UTC
    assert got[plain.id].meta == {} and got[plain.id].meta is not got[full.id].meta
    assert Filters() == Filters(statuses=Filters().statuses)


def test_searches_stay_correct_while_another_thread_saves(mem):
    _fill(mem, copies=1)
    mem.search("warm the vector index")
    stop = threading.Event()
    failures: list[BaseException] = []

    def saver() -> None:
        try:
            for i in range(120):
                mem.save(f"kafka partition rebalance note {i} for consumer group {i % 7}")
        except BaseException as exc:
            failures.append(exc)
        finally:
            stop.set()

    def searcher() -> None:
        try:
            while not stop.is_set():
                for r in mem.search("kafka partition rebalance").results:
                    assert r.memory.status == "active"
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=saver), *(threading.Thread(target=searcher)
                                                 for _ in range(2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures
    assert len(mem.search("kafka partition rebalance", k=50).results) == 50


def test_batched_index_load_matches_row_by_row_upserts(mem):
    from engram.model import from_iso
    from engram.store.sqlite.vector_index import IndexRow, VectorIndex

    _fill(mem, copies=2)
    mem.archive(mem.search("redis session cache").results[0].memory.id)
    loaded = SQLiteStore(mem.store.path)
    try:
        index = loaded._sync_index()
        assert index is not None
        rows = loaded._db.execute(
            "SELECT m.rowid, m.id, v.vec, m.status, m.project, m.type,"
            " COALESCE(m.event_at, m.created_at) FROM memories m"
            " JOIN vectors v ON v.rowid = m.rowid"
        ).fetchall()
        reference = VectorIndex(index.dim)
        for rowid, memory_id, blob, status, project, kind, when in rows:
            vector = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
            reference.upsert(IndexRow(rowid, memory_id, vector, status, project, kind,
                                      from_iso(when).timestamp()))
        n = len(rows)
        assert len(index) == n and index._size == reference._size == n
        mine = np.argsort(index.rowids[:n])  # rows arrive in another order (by seq)
        theirs = np.argsort(reference.rowids[:n])
        for name in ("vectors", "rowids", "memory_ids", "status", "when"):
            np.testing.assert_array_equal(getattr(index, name)[:n][mine],
                                          getattr(reference, name)[:n][theirs])
        for table, codes in (("_projects", "project"), ("_types", "kind")):
            names = [{c: k for k, c in getattr(ix, table).items()} for ix in (index, reference)]
            assert [names[0].get(c) for c in getattr(index, codes)[:n][mine]] == [
                names[1].get(c) for c in getattr(reference, codes)[:n][theirs]]
        ids = [r[1] for r in rows]
        mine_by_id, theirs_by_id = index.vectors_of(ids), reference.vectors_of(ids)
        assert set(mine_by_id) == set(ids)
        for memory_id in ids:
            np.testing.assert_array_equal(mine_by_id[memory_id], theirs_by_id[memory_id])
        query = mem.embedder.embed_query("redis session cache")
        active = (("active",), None, True, (), None, None)
        assert index.search(query, index.mask(*active), 5) == reference.search(
            query, reference.mask(*active), 5)
    finally:
        loaded.close()


def test_changes_by_another_connection_reach_a_loaded_index(mem, store_path):
    _fill(mem, copies=1)
    assert mem.search("kafka consumer lag", pools="vector").results  # index loaded
    other = engram.open(store_path, embedder="fake")
    try:
        added = other.save("kafka consumer lag alert fired for the billing topic").memory
        top = other.search("redis session cache", pools="vector").results[0].memory.id
        other.archive(top)
    finally:
        other.close()
    ids = [r.memory.id for r in mem.search("kafka consumer lag alert", pools="vector").results]
    assert added.id in ids
    ids = [r.memory.id for r in mem.search("redis session cache", pools="vector", k=50).results]
    assert top not in ids


def test_no_status_filter_keeps_every_keyword_match(mem):
    from dataclasses import replace

    saved = mem.save_many([{"content": f"kafka consumer lag alert {i}"} for i in range(5)])
    mem.archive(saved[0].memory.id)
    any_status = replace(mem.filters(), statuses=())
    assert len(mem.store.keyword_search([("kafka",)], "and", any_status, 10)) == 5


# --- dedup scan -------------------------------------------------------------------------


def _stored_vectors(mem: engram.service.Engram) -> dict[str, tuple[np.ndarray, str | None, str]]:
    rows = mem.store._db.execute(
        "SELECT m.id, v.vec, m.project, m.status FROM memories m JOIN vectors v"
        " ON v.rowid = m.rowid"
    ).fetchall()
    return {r[0]: (np.frombuffer(r[1], np.float16).astype(np.float32), r[2], r[3]) for r in rows}


@pytest.mark.parametrize(("min_score", "limit"), [(0.0, 4), (0.3, 8), (0.95, 8)])
def test_the_batched_dedup_scan_finds_what_a_full_comparison_finds(mem, min_score, limit):
    """Active memories of exactly the query's project, at least min_score, best first."""
    saved = mem.save_many([
        {"content": f"{TOPICS[i % len(TOPICS)]} variant {i} of {i * 7 % 13}",
         "project": [None, "shop", "infra"][i % 3]}
        for i in range(90)
    ])
    for result in saved[::9]:
        mem.archive(result.memory.id)
    stored = _stored_vectors(mem)
    rng = np.random.default_rng(5)
    targets = [r.memory for r in saved[::4]]
    queries = np.stack([stored[m.id][0] for m in targets])
    queries = queries + rng.normal(0, 0.02, queries.shape).astype(np.float32)
    projects = [m.project for m in targets]
    projects[1], projects[2] = "elsewhere", None
    got = mem.store.nearest_in_project(queries, projects, min_score, limit)
    for query, project, hits in zip(queries, projects, got, strict=True):
        expected = sorted(
            ((float(vector @ query), memory_id) for memory_id, (vector, p, status)
             in stored.items() if p == project and status == "active"),
            reverse=True,
        )
        expected = [(memory_id, score) for score, memory_id in expected if score >= min_score]
        assert [c.memory_id for c in hits] == [memory_id for memory_id, _ in expected[:limit]]
        assert [c.score for c in hits] == pytest.approx([s for _, s in expected[:limit]],
                                                         abs=1e-5)
    assert any(got) and not got[1]  # an unknown project has no neighbours


def test_index_timestamps_equal_the_row_by_row_parse():
    """The cold load parses times with numpy; the time filter must see the same floats."""
    from engram.model import from_iso, to_iso
    from engram.store.sqlite.rows import timestamps

    rng = np.random.default_rng(3)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    near = [epoch + timedelta(microseconds=int(x)) for x in rng.integers(-2**52, 2**52, 2000)]
    far = [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)]
    for texts in (
        [to_iso(d) for d in near],
        [to_iso(d) for d in near + far],  # beyond 2**53 µs a float64 rounds: row by row
        [to_iso(near[0]), "2026-03-04T05:06:07+02:00", "2026-03-04T05:06:07"],
        [],
    ):
        expected = [from_iso(text).timestamp() for text in texts]
        assert timestamps(texts).tolist() == expected


def test_index_rows_put_again_keep_their_positions():
    from engram.store.sqlite.vector_index import VectorIndex

    index = VectorIndex(4)
    vectors = np.eye(4, dtype=np.float32)
    index.put_many([7, 8, 9], ["a", "b", "c"], vectors[:3], ["active"] * 3,
                   ["p", None, "q"], ["fact", "fact", "decision"], [1.0, 2.0, 3.0])
    # A known row among new ones: replaced in place, the new one appended.
    index.put_many([8, 10], ["b", "d"], vectors[[3, 0]], ["archived", "active"],
                   ["q", "p"], ["decision", "fact"], [5.0, 6.0])
    assert index._size == len(index) == 4
    assert index.rowids[:4].tolist() == [7, 8, 9, 10]
    np.testing.assert_array_equal(index.vectors_of(["b"])["b"], vectors[3])
    assert index.status[1] == vector_index.STATUS_CODES["archived"]
    assert index.project[1] == index.project[2] == index.project_code("q")
    assert index.project[0] == index.project[3] == index.project_code("p")
    assert index.when[:4].tolist() == [1.0, 5.0, 3.0, 6.0]


# --- the keyword half beside the vector half ----------------------------------------------



def test_keyword_half_beside_the_vector_half_ranks_as_one_after_the_other(mem, monkeypatch):
    _fill(mem, copies=6)
    store = mem.store
    cases = [dict(), dict(project="shop"), dict(tags=["infra"]), dict(k=3),
             dict(pools="keyword"), dict(pools="vector"), dict(rerank=False)]
    store.parallel_min_rows = 10**12
    serial = {(q, i): _snapshot(mem.search(q, **case))
              for q in QUERIES for i, case in enumerate(cases)}
    names = keyword_pool_threads(monkeypatch)
    store.parallel_min_rows = 0
    for i, case in enumerate(cases):
        names.clear()
        for q in QUERIES:
            assert _snapshot(mem.search(q, **case)) == serial[(q, i)], (q, case)
        # With a query vector, the keyword half ran on the store's thread; keyword-only
        # searches ran it on the caller's (and vector-only ones have none).
        caller = threading.current_thread().name
        if case.get("pools") == "vector":
            assert names == []
        else:
            assert len(names) >= sum(1 for q in QUERIES if retrieval.query_terms(q))
            expected = caller if case.get("pools") == "keyword" else "engram-keyword_0"
            assert set(names) == {expected}, case
    assert store._reader is not None  # the side thread's FTS5 queries had their connection


def test_the_side_thread_only_above_the_threshold_and_never_inside_a_transaction(
        mem, monkeypatch):
    _fill(mem)
    store = mem.store
    mem.search("postgres connection pool")  # loads the vector index
    rows = len(store._index)
    store.parallel_min_rows = rows + 1
    assert store.side_runner() is None
    store.parallel_min_rows = rows
    assert store.side_runner() is not None
    names = keyword_pool_threads(monkeypatch)
    expected = _snapshot(mem.search("postgres connection pool"))
    assert names[-1].startswith("engram-keyword")
    with store.transaction():
        # The caller holds the store's lock: a keyword half on another thread would wait
        # for it forever. It runs on the caller's thread, with the same answer.
        assert store.holds_lock()
        assert store.side_runner() is None
        assert _snapshot(mem.search("postgres connection pool")) == expected
        assert names[-1] == threading.current_thread().name
    assert not store.holds_lock()
    assert len(names) == 2


def test_an_in_memory_store_never_uses_the_side_thread(clock):
    mem = engram.open(":memory:", embedder="fake", clock=clock)
    try:
        _fill(mem)
        mem.store.parallel_min_rows = 0
        mem.search("postgres connection pool")
        assert mem.store.side_runner() is None
    finally:
        mem.close()


def test_an_embedder_error_surfaces_unchanged_beside_the_keyword_half(tmp_path: Path, clock,
                                                                      monkeypatch):
    mem = engram.open(tmp_path / "memory.db", embedder=BrokenEmbedder(), clock=clock)
    try:
        mem.save("Use pnpm, not npm, in this monorepo")
        mem.store.vectors_of([])  # loads the vector index
        mem.store.parallel_min_rows = 0
        names = keyword_pool_threads(monkeypatch)
        with pytest.raises(EmbedderError, match="failed on purpose"):
            mem.search("pnpm monorepo")
        assert names == ["engram-keyword_0"]  # started first, and waited for
        assert mem.search("pnpm monorepo", pools="keyword").results
    finally:
        mem.close()


def test_a_store_with_a_deadline_never_uses_the_side_thread(tmp_path: Path, clock):
    import time

    from engram.store.deadline import bounded

    path = tmp_path / "memory.db"
    with engram.open(path, embedder="fake", clock=clock) as mem:
        _fill(mem)
    with bounded(time.monotonic() + 60):
        mem = engram.open(path, embedder="fake", clock=clock)
    try:
        mem.store.parallel_min_rows = 0
        assert mem.search("postgres connection pool").results
        assert mem.store.side_runner() is None and mem.store._reader is None
    finally:
        mem.close()


# --- OR searches: the rows with rarer words first ---------------------------------------------


def _or_store(mem: engram.service.Engram) -> None:
    """600 memories: "deploy" in 40% of them, "kubernetes" in 80, "helm" in 30, of
    varied lengths and repeats, so bm25's length and frequency terms both vary."""
    filler = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    records = []
    for i in range(600):
        words = [f"w{i}x{j}" for j in range(i % 7)] + filler[: i % 10]
        if i % 5 < 2:
            words += ["deploy"] * (1 + i % 3)
        if i % 15 in (0, 3, 7, 11) and i < 300:
            words += ["kubernetes"] * (1 + i % 2)
        if i % 20 == 0:
            words += ["helm"]
        records.append({"content": f"note {i}: " + " ".join(words),
                        "project": "shop" if i % 3 else "infra"})
    mem.save_many(records)


@pytest.mark.parametrize("filters", [Filters(statuses=("active",)),
                                     Filters(statuses=("active",), project="shop"),
                                     Filters()])
@pytest.mark.parametrize("limit", [5, 20])
def test_an_or_search_stopped_early_equals_the_full_one(mem, monkeypatch, filters, limit):
    _or_store(mem)
    store = mem.store
    taken = []
    original = store._rare_first

    def spied(*args):
        found = original(*args)
        taken.append(found is not None)
        return found

    cases = {q: retrieval.query_terms(q) for q in
             ["deploy kubernetes", "deploy kubernetes helm", "kubernetes deploy alpha",
              "helm deploy", "deploy gamma", "deploy nothingatall"]}
    monkeypatch.setattr(store, "_rare_first", spied)
    early = {q: store.keyword_search(g, "or", filters, limit) for q, g in cases.items()}
    monkeypatch.setattr(store, "_rare_first", lambda *args: None)
    for q, groups in cases.items():
        full = store.keyword_search(groups, "or", filters, limit)
        assert [(c.memory_id, c.score) for c in early[q]] == \
            [(c.memory_id, c.score) for c in full], q  # the same rows, scores bit for bit
        assert len(full) == limit
    assert not store._db.in_transaction  # its read snapshot ended
    assert any(taken)  # the early stop was taken here...
    assert not all(taken)  # ...and refused where one phrase holds every match


def test_the_rows_with_rarer_words_are_scored_on_the_whole_query(mem):
    """The NOT expression keeps only rows with a rarer phrase and leaves their bm25 as
    the whole OR expression's: phrases right of a NOT add nothing."""
    _or_store(mem)
    db = mem.store._db
    whole = '"deploy" OR "kubernetes" OR "helm"'
    scores = dict(db.execute("SELECT rowid, bm25(memories_fts) FROM memories_fts"
                             " WHERE memories_fts MATCH ?", (whole,)).fetchall())
    rarer = db.execute("SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE"
                       " memories_fts MATCH ?",
                       (f'({whole}) NOT (("deploy") NOT ("kubernetes" OR "helm"))',)).fetchall()
    with_rare = {r for (r,) in db.execute("SELECT rowid FROM memories_fts WHERE"
                                          " memories_fts MATCH '\"kubernetes\" OR \"helm\"'")}
    assert {r for r, _s in rarer} == with_rare
    assert all(scores[r] == s for r, s in rarer)
    assert any(scores[r] < min(scores[x] for x in scores if x not in with_rare)
               for r in with_rare)  # the rare rows rank first, as the early stop needs


def test_rowid_positions_against_a_dict():
    """The index's rowid -> position map (an array indexed by rowid, a dict for rowids far
    beyond the rows) answers as a dict would through puts, pops, growth and resets."""
    from engram.store.sqlite.vector_index import DIRECT_ROWIDS, RowidPositions

    rng = np.random.default_rng(3)
    mine, reference = RowidPositions(), {}
    far = [DIRECT_ROWIDS * 50 + i for i in range(5)] + [2**40, 2**62]
    for step in range(3000):
        rowid = int(far[step % len(far)] if step % 97 == 0 else rng.integers(0, 5000))
        if rng.random() < 0.3:
            assert mine.pop(rowid) == reference.pop(rowid, None)
        else:
            mine.put(rowid, step)
            reference[rowid] = step
        if step % 500 == 0:  # the far rowids were in the overflow: growing keeps them
            mine.put(int(rng.integers(5000, DIRECT_ROWIDS + 100_000)), -step - 1 + 2**30)
            reference.update((r, p) for r, p in mine.items() if r not in reference)
    assert len(mine) == len(reference)
    assert dict(mine.items()) == reference
    keys = np.array([*reference, 7, 10**12, -1], dtype=np.int64)
    expected = [reference.get(int(k), -1) for k in keys]
    assert mine.lookup(keys).tolist() == expected
    assert [mine.get(int(k)) for k in keys] == [None if e < 0 else e for e in expected]
    pairs = np.array(sorted(reference.items()), dtype=np.int64)
    mine.reset(pairs[:, 0], pairs[::-1, 1].copy())
    assert dict(mine.items()) == dict(zip(pairs[:, 0].tolist(), pairs[::-1, 1].tolist(),
                                          strict=True))
    assert len(mine) == len(pairs)


def test_index_ids_of_any_length_and_script():
    """Memory ids are held as UTF-8 bytes of one width, widened for a longer id: ids of any
    length and script come back as given, from a search and from vectors_of."""
    from engram.store.sqlite.vector_index import VectorIndex

    index = VectorIndex(4)
    vectors = np.eye(4, dtype=np.float32)
    ids = ["a", "é-ü-\u4e2d", "x" * 40, "last"]
    index.put_many([1, 2, 3, 4], ids, vectors, ["active"] * 4, [None] * 4, ["fact"] * 4,
                   [1.0] * 4)
    assert index.memory_ids.dtype.itemsize >= 40
    for i, memory_id in enumerate(ids):
        hits = index.search(vectors[i], index.mask(("active",), None, True, (), None, None), 1)
        assert hits[0][:2] == (i + 1, memory_id)
    assert set(index.vectors_of(ids)) == set(ids)
    assert set(index.vectors_of(ids, [1, 2, 3, 4])) == set(ids)
    assert index.vectors_of(["a"], [2]) == {}  # a rowid holding another memory
    index.remove(3)
    assert set(index.vectors_of(ids)) == {"a", ids[1], "last"}
    assert len(index) == 3


def test_rowid_positions_overflow_moves_into_the_array_as_it_grows():
    from engram.store.sqlite.vector_index import DIRECT_ROWIDS, DIRECT_SPAN, RowidPositions

    positions = RowidPositions()
    far = DIRECT_ROWIDS + 10
    positions.put(far, 1)  # beyond the array's bound for one row: the overflow
    assert positions._overflow == {far: 1}
    for rowid in range(DIRECT_ROWIDS // DIRECT_SPAN + 2):
        positions.put(rowid, rowid + 2)
    positions.put(far + 1, 5)  # now within bounds: the array grows past `far`
    assert not positions._overflow and positions.get(far) == 1 and positions.get(far + 1) == 5
    assert positions.pop(far) == 1 and positions.get(far) is None
    assert len(positions) == DIRECT_ROWIDS // DIRECT_SPAN + 3
