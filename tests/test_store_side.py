"""A hybrid search's keyword half on the store's own thread (and, on PostgreSQL, its own
connection) while the calling thread embeds the query and walks the vectors.

The same answers with the side thread on and off, never inside the caller's transaction,
and on PostgreSQL a second connection that ends with the store and is opened again once
lost. Run on every engine under test (the `backend` parametrisation).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import nullcontext

import pytest
from search_support import keyword_pool_threads
from test_search_speedups import QUERIES, _fill, _snapshot

import engram
from engram import retrieval
from engram.errors import StoreError, StoreUnavailableError

CASES = [dict(), dict(project="shop"), dict(tags=["infra"]), dict(k=3),
         dict(pools="keyword"), dict(rerank=False)]
ALWAYS, NEVER = 0, 10**12



def _backends(url: str) -> Callable[[], set[int]]:
    """The ids of the server processes connected to `url`'s database, besides the
    counting connection itself (pg_stat_activity)."""
    import psycopg

    def count() -> set[int]:
        with psycopg.connect(url, autocommit=True) as conn:
            return {r[0] for r in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid()")}

    return count


def _until(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Whether `check` holds within `seconds` (a backend ends shortly after its client)."""
    end = time.monotonic() + seconds
    while not check():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def _postgres_only(backend: str) -> None:
    if backend != "postgres":
        pytest.skip("a second PostgreSQL connection: SQLite's reader is tested in"
                    " test_search_speedups")


def test_hybrid_results_are_the_same_with_the_side_thread_on_and_off(any_mem, monkeypatch):
    _fill(any_mem, copies=6)
    store = any_mem.store
    store.parallel_min_rows = NEVER
    serial = {(q, i): _snapshot(any_mem.search(q, **case))
              for q in QUERIES for i, case in enumerate(CASES)}
    names = keyword_pool_threads(monkeypatch)
    assert any_mem.search(QUERIES[0]).results and names == [threading.current_thread().name]
    store.parallel_min_rows = ALWAYS
    for i, case in enumerate(CASES):
        names.clear()
        for q in QUERIES:
            assert _snapshot(any_mem.search(q, **case)) == serial[(q, i)], (q, case)
        expected = (threading.current_thread().name if case.get("pools") == "keyword"
                    else "engram-keyword_0")
        assert set(names) == {expected}, case
    # And back off: the same again, on the caller's thread.
    store.parallel_min_rows = NEVER
    names.clear()
    assert _snapshot(any_mem.search(QUERIES[0])) == serial[(QUERIES[0], 0)]
    assert names == [threading.current_thread().name]


def test_the_side_thread_from_the_threshold_on(any_mem, backend):
    _postgres_only(backend)
    _fill(any_mem)
    store = any_mem.store
    store.parallel_min_rows = 1
    assert store.side_runner() is None  # no keyword search yet: the store's size unknown
    any_mem.search("postgres connection pool")
    assert store.known_docs == any_mem.count()
    store.parallel_min_rows = store.known_docs + 1
    assert store.side_runner() is None
    store.parallel_min_rows = store.known_docs
    assert store.side_runner() is not None


def test_a_search_inside_a_transaction_sees_its_own_uncommitted_write(any_mem, monkeypatch):
    """The side connection (or SQLite's reader) cannot see the caller's uncommitted rows:
    inside a transaction the keyword half stays on the caller's thread."""
    _fill(any_mem)
    store = any_mem.store
    store.parallel_min_rows = ALWAYS
    any_mem.search("quokka zanzibar deployment")  # the side thread and its connection up
    names = keyword_pool_threads(monkeypatch)
    query = "quokka zanzibar deployment"

    class Rollback(Exception):
        pass

    with pytest.raises(Rollback), store.transaction():
        saved = any_mem.save("The quokka zanzibar deployment runs on Tuesdays")
        assert store.holds_lock() and store.side_runner() is None
        store.parallel_min_rows = NEVER
        inline = _snapshot(any_mem.search(query))
        store.parallel_min_rows = ALWAYS
        names.clear()
        inside = any_mem.search(query)
        assert names == [threading.current_thread().name]
        assert _snapshot(inside) == inline
        assert inside.results[0].memory.id == saved.memory.id
        assert inside.mode == "hybrid"
        raise Rollback
    any_mem.search(query)  # (SQLite reloads its vector index after a rollback)
    names.clear()
    after = any_mem.search(query)
    assert names == ["engram-keyword_0"]
    assert saved.memory.id not in {r.memory.id for r in after.results}


def test_close_ends_the_side_connection(store_target, backend, clock):
    _postgres_only(backend)
    backends = _backends(store_target)
    mem = engram.open(store_target, embedder="fake", clock=clock)
    try:
        _fill(mem)
        mem.store.parallel_min_rows = ALWAYS
        mem.search("postgres connection pool")
        side = mem.store._side_conn.info.backend_pid
        main = mem.store._conn.info.backend_pid
        assert side != main and {side, main} <= backends()
    finally:
        mem.close()
    assert _until(lambda: not backends()), backends()
    assert mem.store.side_runner() is None  # closed: no thread, no connection


def test_a_lost_side_connection_is_opened_again(any_mem, backend, store_target):
    _postgres_only(backend)
    import psycopg

    _fill(any_mem)
    store = any_mem.store
    store.parallel_min_rows = ALWAYS
    query = "redis session cache expiry"
    expected = _snapshot(any_mem.search(query))
    lost = store._side_conn.info.backend_pid
    with psycopg.connect(store_target, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (lost,))
    assert _until(lambda: lost not in _backends(store_target)())
    try:  # the statement that finds it lost fails as an Engram error, as on `_conn`
        first = _snapshot(any_mem.search(query))
    except StoreUnavailableError as exc:
        assert "PostgreSQL unavailable" in str(exc)
    else:
        assert first == expected
    assert _snapshot(any_mem.search(query)) == expected
    assert store._side_conn.info.backend_pid != lost
    assert store._side_conn.info.backend_pid in _backends(store_target)()


def test_a_side_connection_that_cannot_open_fails_as_an_engram_error(
        any_mem, backend, monkeypatch):
    _postgres_only(backend)
    _fill(any_mem)
    store = any_mem.store
    store.parallel_min_rows = ALWAYS
    any_mem.search("postgres connection pool")
    store._side_conn.close()
    # The connection is opened again with a wrong password.
    secret = "s3cret-Pa55word"
    url = store._url
    wrong = url.replace("postgresql://postgres:@", f"postgresql://nobody:{secret}@")
    assert wrong != url
    monkeypatch.setattr(store, "_url", wrong)
    with pytest.raises(StoreError) as caught:
        any_mem.search("postgres connection pool")
    assert secret not in str(caught.value)
    monkeypatch.setattr(store, "_url", url)
    assert any_mem.search("postgres connection pool").results


def test_a_store_with_a_deadline_keeps_one_connection(store_target, backend, clock,
                                                      monkeypatch):
    from engram.store.deadline import bounded

    with engram.open(store_target, embedder="fake", clock=clock) as mem:
        _fill(mem)
    with bounded(time.monotonic() + 60):
        mem = engram.open(store_target, embedder="fake", clock=clock)
    try:
        mem.store.parallel_min_rows = ALWAYS
        names = keyword_pool_threads(monkeypatch)
        assert mem.search("postgres connection pool").results
        assert mem.store.side_runner() is None
        assert names == [threading.current_thread().name]
    finally:
        mem.close()


def test_document_frequencies_in_one_statement_are_the_counts(any_mem, backend):
    """Words from the kept counts, phrases counted by the index: each equal to the
    number of memories holding it."""
    _postgres_only(backend)
    _fill(any_mem)
    store = any_mem.store
    terms = ["postgr", "connect pool", "session ts", "cach", "nowhere", "src cart", "pool x"]
    total, df = store.document_frequency(terms)
    assert total == any_mem.count() == 24
    holding = {t: sum(1 for (text,) in store._rows("SELECT terms FROM memories")
                      if f" {t} " in f" {text} ") for t in terms}
    assert df == holding
    assert df["nowhere"] == df["pool x"] == 0
    assert df["connect pool"] == 3 and df["postgr"] == 6


def test_a_keyword_pool_reads_the_statistics_once(any_mem, backend, monkeypatch):
    """The AND search, the OR search and the coverage weights of one keyword pool ask for
    the same counts: one statement for them all, and the same candidates and scores."""
    _postgres_only(backend)
    _fill(any_mem, copies=6)
    store = any_mem.store
    weights = any_mem.weights
    filters = any_mem.filters()
    groups = retrieval.query_terms("flaky checkout session.ts deploy quokka")
    sent: list[str] = []
    original = store._rows

    def counted(sql, params=()):
        sent.append(sql)
        return original(sql, params)

    monkeypatch.setattr(store, "_rows", counted)

    def statistics_read() -> int:
        return sum(1 for sql in sent if sql.startswith("SELECT c.docs, c.terms"))

    pool = retrieval._keyword_pool(store, groups, filters, 50, weights)
    assert statistics_read() == 1
    assert len(pool[0]) < 50 and pool[1]  # AND found too few: OR searched, coverage weighed
    sent.clear()
    monkeypatch.setattr(retrieval, "_one_reading", lambda store: nullcontext())
    assert retrieval._keyword_pool(store, groups, filters, 50, weights) == pool
    assert statistics_read() == 3
