"""PostgreSQL's registry of phrase document frequencies (`phrase_df`): the df of each
phrase a search asked for ("fast api" of FastAPI), kept by every write, must always equal
counting the phrase with the index, as searches did before: through inserts, updates and
deletes, from two stores (two connections) writing and searching at once, after a restart,
and on a store upgraded from the schema before it. Rankings are the same with and without.
"""

from __future__ import annotations

import threading

import pytest
from conftest import backends

import engram
from engram.store.base import Filters
from engram.text import query_terms

pytestmark = pytest.mark.skipif("postgres" not in backends(),
                                reason="PostgreSQL is not among the engines under test")

TEXTS = [
    "FastAPI serves the billing API; fast api handlers return KeyError on missing keys",
    "The api is fast: caching made the API fast again",
    "KeyError in the fast_api router when the key error path is taken",
    "fast fast api api: a FastAPI app behind nginx",
    "Redis eviction policy is allkeys-lru; the key store errors are logged",
    "Use httpx.AsyncClient for the async client; AsyncClient retries twice",
    "Nothing about any phrase here, only deploys on Friday",
]
QUERIES = ["FastAPI KeyError", "fast_api key_error", "AsyncClient", "async client FastAPI",
           "key error handler", "allkeys-lru eviction"]


def _phrases(text: str) -> list[str]:
    return [" ".join(a.split()) for g in query_terms(text) for a in g if " " in a]


def _registry(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url) as conn:
        return dict(conn.execute("SELECT phrase, df FROM phrase_df").fetchall())


def _brute_force(url: str, phrases: list[str]) -> dict[str, int]:
    """Each phrase counted with the index, as searches did before the registry; and by
    reading every row's terms, which must agree on these texts."""
    import psycopg

    from engram.store.postgres.sql import tsquery_term

    with psycopg.connect(url) as conn:
        counted = {p: conn.execute(
            "SELECT COUNT(*) FROM memories WHERE terms_tsv @@ to_tsquery('simple', %s)",
            (tsquery_term(p),)).fetchone()[0] for p in phrases}
        rows = [t for (t,) in conn.execute("SELECT terms FROM memories").fetchall()]
    read = {p: sum(f" {' '.join(p.split())} " in f" {t} " for t in rows) for p in phrases}
    assert counted == read
    return counted


def _assert_exact(url: str) -> dict[str, int]:
    registry = _registry(url)
    assert registry == _brute_force(url, list(registry))
    return registry


def _search_all(mem: engram.Engram) -> list[list[tuple[str, float]]]:
    return [[(r.memory.id, round(r.score, 9)) for r in mem.search(q, k=10).results]
            for q in QUERIES]


def test_registered_phrases_stay_exact_through_inserts_updates_and_deletes(clock):
    import pg_support

    url = pg_support.fresh_url()
    with engram.open(url, embedder="none", clock=clock) as mem:
        ids = [mem.save(t, project="shop").memory.id for t in TEXTS]
        assert _registry(url) == {}  # nothing registered until a search asks
        _search_all(mem)
        registry = _assert_exact(url)
        assert {"fast api", "key error", "async client"} <= set(registry)
        assert registry["fast api"] >= 3
        # a new row with the phrases, an edit that removes one, a delete
        mem.save("The FastAPI KeyError again, in the fast api tests", project="shop")
        _assert_exact(url)
        mem.update(ids[0], in_place=True, content="The billing service now runs on Flask")
        _assert_exact(url)
        mem.update(ids[6], content="Only deploys on Friday, through the AsyncClient")
        _assert_exact(url)
        mem.delete(ids[3], hard=True)
        _assert_exact(url)
        with mem.store.transaction():  # several writes in one transaction
            mem.save_many([{"content": f"fast api note {i}: KeyError {i}"} for i in range(5)])
            mem.delete(ids[2], hard=True)
        final = _assert_exact(url)
        assert final["fast api"] == _brute_force(url, ["fast api"])["fast api"]
    with engram.open(url, embedder="none", clock=clock) as mem:  # a restart keeps them
        assert _registry(url) == final
        _search_all(mem)
        assert _assert_exact(url) == final


def test_rankings_are_the_same_with_and_without_the_registry(clock):
    import pg_support

    url = pg_support.fresh_url()
    with engram.open(url, embedder="none", clock=clock) as mem:
        for t in TEXTS * 3:
            mem.save(t + f" ({len(t)})", project="shop")
        store = mem.store
        store.phrase_registry_max = 0
        counted = _search_all(mem)
        assert _registry(url) == {}
        store.phrase_registry_max = 1_000
        assert _search_all(mem) == counted  # registering
        assert _registry(url)
        assert _search_all(mem) == counted  # read from the registry
        groups = query_terms("FastAPI KeyError")
        for mode in ("and", "or"):
            with_registry = store.keyword_search(groups, mode, Filters(), 10)
            store.phrase_registry_max = 0
            assert store.keyword_search(groups, mode, Filters(), 10) == with_registry
            store.phrase_registry_max = 1_000


def test_two_stores_writing_and_searching_at_once_keep_the_counts_exact(clock):
    """Two connections, as two processes: each saves, edits, deletes and searches (which
    registers phrases) while the other does; every count ends exact."""
    import pg_support

    url = pg_support.fresh_url()
    with engram.open(url, embedder="none", clock=clock) as mem:
        mem.save(TEXTS[0])
        mem.search(QUERIES[0])  # some registered before, the others while both write
    assert set(_registry(url)) == {"fast api", "key error"}
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            with engram.open(url, embedder="none", clock=clock) as mine:
                start.wait()
                for i in range(12):
                    saved = mine.save(f"{TEXTS[(i + n) % len(TEXTS)]} [{n}-{i}]").memory
                    mine.search(QUERIES[(i * (n + 1)) % len(QUERIES)])
                    if i % 3 == 1:
                        mine.update(saved.id, content=f"{TEXTS[(i + 2) % len(TEXTS)]} <{n}-{i}>")
                    if i % 4 == 2:
                        mine.delete(saved.id, hard=True)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    _assert_exact(url)
    with engram.open(url, embedder="none", clock=clock) as mem:
        _search_all(mem)
    assert len(_assert_exact(url)) >= 4


def test_a_phrase_asked_while_another_writer_holds_the_lock_is_counted_not_registered(clock):
    import pg_support

    url = pg_support.fresh_url()
    with engram.open(url, embedder="none", clock=clock) as writer, \
            engram.open(url, embedder="none", clock=clock) as reader:
        for t in TEXTS:
            writer.save(t)
        expected = _brute_force(url, ["fast api", "key error"])
        with writer.store.transaction():  # holds the write lock
            writer.save("Another FastAPI KeyError, not committed yet")
            docs, df = reader.store.document_frequency(["fast api", "key error", "fast"])
            assert {p: df[p] for p in expected} == expected
            assert _registry(url) == {}
        docs, df = reader.store.document_frequency(["fast api", "key error"])
        assert df == _brute_force(url, ["fast api", "key error"]) == _assert_exact(url)


def test_a_search_inside_a_write_transaction_counts_its_own_rows(clock):
    """Inside a transaction the registry lacks the transaction's own rows until it
    commits: a phrase is counted there, as before, and the registry is left alone."""
    import pg_support

    url = pg_support.fresh_url()
    with engram.open(url, embedder="none", clock=clock) as mem:
        mem.save(TEXTS[0])
        mem.store.document_frequency(["fast api"])  # registered: 1
        with mem.store.transaction():
            mem.save("one more fast api row")
            assert mem.store.document_frequency(["fast api"])[1] == {"fast api": 2}
            assert _registry(url) == {"fast api": 1}
        assert _assert_exact(url) == {"fast api": 2}


def test_a_full_registry_forgets_its_oldest_phrases(clock):
    import pg_support

    url = pg_support.fresh_url()
    with engram.open(url, embedder="none", clock=clock) as mem:
        for t in TEXTS:
            mem.save(t)
        mem.store.phrase_registry_max = 2
        for phrase in ("fast api", "key error", "async client"):
            mem.store.document_frequency([phrase])
        assert set(_assert_exact(url)) == {"key error", "async client"}
        mem.save("fast api and async client")
        assert mem.store.document_frequency(["fast api"])[1] == \
            _brute_force(url, ["fast api"])
        assert set(_assert_exact(url)) == {"async client", "fast api"}


def test_a_store_from_before_the_registry_is_upgraded(clock):
    import pg_support
    import psycopg

    from engram.store.postgres import PostgresStore
    from engram.store.postgres.schema import SCHEMA_VERSION

    url = pg_support.fresh_url()
    with engram.open(url, embedder="none", clock=clock) as mem:
        for t in TEXTS:
            mem.save(t)
        before = _search_all(mem)
    with psycopg.connect(url, autocommit=True) as conn:  # as Engram left a v5 store
        conn.execute("DROP TABLE phrase_df")
        conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    store = PostgresStore(url)
    assert store.upgraded_from == 5 and store.get_meta("schema_version") == str(SCHEMA_VERSION)
    store.close()
    with engram.open(url, embedder="none", clock=clock) as mem:
        assert mem.store.upgraded_from is None
        assert _search_all(mem) == before
        assert _assert_exact(url)


def test_longer_phrases_are_kept_and_a_word_the_parser_splits_is_only_counted(clock):
    import pg_support
    import psycopg

    url = pg_support.fresh_url()
    with engram.open(url, embedder="none", clock=clock) as mem:
        mem.save("getUserById returns None for a deleted user; get user by id again")
        mem.save("user by id lookups are cached")
        _, df = mem.store.document_frequency(["user by id", "get user\tby  id",
                                              "o'brien case"])
        # "get user\tby  id" is kept as asked, found by the writes as "get user ..."
        assert set(_registry(url)) == {"user by id", "get user\tby  id"}  # not "o'brien"
        with psycopg.connect(url) as conn:
            assert df["o'brien case"] == conn.execute(
                "SELECT COUNT(*) FROM memories WHERE terms_tsv @@ to_tsquery('simple',"
                " $$'o''brien' <-> 'case'$$)").fetchone()[0]
        mem.save("Another getUserById caller, and user by id by id")
        assert _assert_exact(url) == {"user by id": 2, "get user\tby  id": 2}
        first = mem.list(order="oldest")[0]
        mem.update(first.id, in_place=True, content="nothing to see")
        assert _assert_exact(url) == {"user by id": 1, "get user\tby  id": 1}
