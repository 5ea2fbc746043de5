"""The keyword index's ranking (`SQLiteStore._exact_ranked`) equals FTS5's bm25 ranking:
same rows, same order, the same scores bit for bit, through inserts, updates, deletes and
a second connection writing; and it steps aside where it cannot reproduce FTS5."""

from __future__ import annotations

import random

import pytest

from engram.model import Memory
from engram.store.base import Filters
from engram.store.sqlite import SQLiteStore
from engram.text import query_terms

WORDS = ["alpha", "beta", "gamma", "delta", "test", "user", "deploy", "e2e", "e", "2",
         "cache", "redis", "grafana", "sync", "account", "get", "by", "id", "kafka"]


VOCABULARY = WORDS + [f"w{n}" for n in range(300)]
WEIGHTS = [1 / (rank + 2) for rank in range(len(VOCABULARY))]
PHRASES = ["get user by id", "sync account", "e 2 e", "e e e", "test e2e test e 2 e"]


def _terms(rng: random.Random) -> str:
    """Zipf-like words (common ones in most rows, rare ones in few), phrases, repeats."""
    words = rng.choices(VOCABULARY, WEIGHTS, k=rng.randint(1, 30))
    for _ in range(rng.randint(0, 3)):
        words.insert(rng.randint(0, len(words)), rng.choice(PHRASES))
    return " ".join(words)


def _memory(i: int, status: str = "active") -> Memory:
    return Memory(id=f"m{i:05d}", content=f"memory {i}", status=status)


def _reference(store: SQLiteStore, groups, mode, filters, limit):
    """FTS5's own ranking (the store without its keyword index)."""
    index, store._keyword_index = store._keyword_index, None
    try:
        return store.keyword_search(groups, mode, filters, limit)
    finally:
        store._keyword_index = index


def _exact(store: SQLiteStore, groups, mode, filters, limit):
    with store._lock:
        found = store._exact_ranked(store._db, groups, mode, filters, limit)
    assert found is not None, (groups, mode)
    return [(memory_id, -score) for memory_id, score in found]


QUERIES = [
    [("test",), ("user",)], [("grafana",)], [("known",), ("issu",), ("grafana",)],
    [("e2e",), ("test",)], [("syncaccount", "sync account"), ("get",)],
    [("get user by id", "getuserbyid")], [("e 2 e",)], [("test",), ("test", "e2e")],
    [("alpha",), ("beta",), ("gamma",)], [("redis",), ("cache",), ("kafka",)],
    [("2",), ("e",)], [("deploy",), ("delta",)], [("e e",)], [("e e",), ("w3",)],
    [("w7",), ("w150",)], [("w7", "w8"), ("w150", "w151 w152")], [("user by",), ("test",)],
    [("w250",)], [("sync",), ("sync account",), ("w1",)],
]


@pytest.fixture
def store(tmp_path):
    store = SQLiteStore(tmp_path / "m.db")
    rng = random.Random(5)
    with store.transaction():
        for i in range(1500):
            store.insert(_memory(i, "archived" if i % 7 == 0 else "active"), _terms(rng), None)
    store.exact_rank_min_matches = 0
    store.build_keyword_index()
    yield store
    store.close()


def _check(store: SQLiteStore) -> None:
    for groups in QUERIES:
        for mode in ("and", "or"):
            for filters, limit in ((Filters(), 50), (Filters(statuses=("archived",)), 20),
                                   (Filters(statuses=("active", "archived")), 2000)):
                got = _exact(store, groups, mode, filters, limit)
                want = [(c.memory_id, c.score) for c in
                        _reference(store, groups, mode, filters, limit)]
                assert got == want, (groups, mode, filters)


def test_scores_equal_fts5_bm25(store):
    _check(store)
    assert store._exact_ranked(store._db, [("test",)], "and", Filters(project="p"), 5) is None


def test_equal_through_writes_and_another_connection(store, tmp_path):
    rng = random.Random(9)
    _check(store)
    for i in range(0, 1500, 11):  # updates: new terms for old rows
        memory = store.get(f"m{i:05d}")
        store.update(memory, _terms(rng))
    for i in range(3, 1500, 13):
        store.delete(f"m{i:05d}")
    with store.transaction():
        for i in range(1500, 1700):
            store.insert(_memory(i), _terms(rng), None)
    _check(store)
    other = SQLiteStore(tmp_path / "m.db")  # another process's writes
    try:
        with other.transaction():
            for i in range(1700, 1800):
                other.insert(_memory(i), "test user test grafana e2e " + _terms(rng), None)
        for i in range(1, 1500, 17):
            if (memory := other.get(f"m{i:05d}")) is not None:
                other.update(memory, "grafana grafana test " + _terms(rng))
        other.delete("m00002")
    finally:
        other.close()
    _check(store)


def test_steps_aside_where_it_cannot_reproduce_fts5(store):
    with store.transaction():
        store.insert(_memory(9000), "test user café grafana", None)
    # A match whose text is not ASCII: FTS5 ranks.
    with store._lock:
        assert store._exact_ranked(store._db, [("grafana",)], "and", Filters(), 10) is None
        assert store._exact_ranked(store._db, [("café",)], "and", Filters(), 10) is None
    got = store.keyword_search([("grafana",)], "and", Filters(), 10)
    assert got == _reference(store, [("grafana",)], "and", Filters(), 10)


def test_real_query_terms(store):
    for text in ("tests for user", "known issues with Grafana", "getUserById", "e2e tests",
                 "sync account by id"):
        groups = query_terms(text)
        for mode in ("and", "or"):
            got = store.keyword_search(groups, mode, Filters(), 50)
            assert got == _reference(store, groups, mode, Filters(), 50)


def test_built_as_the_process_builds_vector_lists(tmp_path, monkeypatch):
    """A short-lived process never builds the keyword index (FTS5 ranks); `inline` builds
    it at the first keyword search, a long-running process on a thread; a bulk import's
    `build_vector_lists` builds it with the lists. Small stores never get one."""
    from engram.store.sqlite import ann_index

    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    path = tmp_path / "k.db"
    seed = SQLiteStore(path)
    rng = random.Random(2)
    with seed.transaction():
        for i in range(120):
            seed.insert(_memory(i), _terms(rng), None)
    seed.close()
    groups = [("test",)]
    for mode, built in (("never", False), ("inline", True), ("background", True)):
        monkeypatch.setattr(ann_index, "_build_mode", [mode])
        store = SQLiteStore(path)
        try:
            store.keyword_search(groups, "and", Filters(), 10)
            if store._keyword_thread is not None:
                store._keyword_thread.join(10)
            assert (store._keyword_index is not None) is built, mode
        finally:
            store.close()
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "500")  # now a small store
    monkeypatch.setattr(ann_index, "_build_mode", ["inline"])
    store = SQLiteStore(path)
    try:
        store.keyword_search(groups, "and", Filters(), 10)
        assert store._keyword_index is None
    finally:
        store.close()


def test_a_restarted_store_ranks_the_same(store, tmp_path):
    """A new process reads the file's rows afresh: the same ranking as the first."""
    again = SQLiteStore(tmp_path / "m.db")
    try:
        again.exact_rank_min_matches = 0
        again.build_keyword_index()
        for groups in QUERIES:
            assert _exact(again, groups, "or", Filters(), 100) == _exact(
                store, groups, "or", Filters(), 100)
    finally:
        again.close()


def test_a_bulk_import_leaves_it_to_the_process_that_searches(mem, monkeypatch):
    """`build_vector_lists` (a bulk import, `engram reindex`) saves lists a later process
    loads; the keyword index lives in memory, so a CLI import does not read it. Built
    explicitly, searches answer as FTS5 ranks them."""
    from engram.store.sqlite import ann_index

    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    monkeypatch.setattr(ann_index, "_build_mode", ["never"])
    rng = random.Random(4)
    mem.save_many([{"content": _terms(rng) + f" note {i}"} for i in range(120)])
    store = mem.store
    assert store.build_vector_lists()
    assert store._keyword_index is None
    store.build_keyword_index()
    store.exact_rank_min_matches = 0
    for groups in QUERIES:
        for mode in ("and", "or"):
            assert store.keyword_search(groups, mode, Filters(), 20) == _reference(
                store, groups, mode, Filters(), 20)


def test_a_server_builds_it_after_loading_its_vectors(store_path, monkeypatch):
    """A long-running process starts the build only once its vector index is loaded:
    the build holds the GIL, and a worker's warm-up (the vectors' load) would wait."""
    import engram
    from engram.store.sqlite import ann_index

    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    rng = random.Random(6)
    with engram.open(store_path, embedder="fake") as mem:
        mem.save_many([{"content": _terms(rng) + f" note {i}"} for i in range(80)])
    monkeypatch.setattr(ann_index, "_build_mode", ["background"])
    with engram.open(store_path, embedder="fake") as mem:
        store = mem.store
        store.keyword_search([("test",)], "and", Filters(), 10)
        assert store._keyword_thread is None  # the vectors are not loaded yet
        mem.search("test user")  # loads them
        mem.search("test user")
        assert store._keyword_thread is not None
        store._keyword_thread.join(10)
        assert store._keyword_index is not None


def test_a_yielding_build_waits_for_searches_and_ranks_the_same(store, monkeypatch):
    """A server's build reads a few rows at a time, each step once no search came in for
    a moment, and gives the same index: the same rankings, writes since included."""
    import time

    from engram.store.sqlite import exact_rank

    monkeypatch.setattr(exact_rank, "BUILD_BATCH", 97)
    full = store._keyword_index
    store._searched = time.monotonic() + 0.3  # as if searches kept coming for 0.3 s
    started = time.monotonic()
    store.build_keyword_index(yielding=True)
    assert time.monotonic() - started >= 0.3
    assert store._keyword_index is not full
    with store.transaction():
        store.insert(_memory(5000), "test user grafana grafana e2e", None)
    _check(store)


def test_a_new_row_where_the_newest_was_deleted_is_read(store, tmp_path):
    """Deleting the newest memory, then saving another (in this process or another): the
    new row takes the deleted one's rowid, and must not take its change number too, or
    the index, which reads rows changed since it last looked, never reads it."""
    _check(store)
    newest = store._db.execute("SELECT id FROM memories ORDER BY seq DESC LIMIT 1").fetchone()[0]
    store.delete(newest)
    with store.transaction():
        store.insert(_memory(7000), "grafana grafana test user grafana e2e e2e w7 w7 w7", None)
    _check(store)
    other = SQLiteStore(tmp_path / "m.db")  # the same by another process
    try:
        other.delete(_memory(7000).id)
        with other.transaction():
            other.insert(_memory(7001), "test test grafana w150 w150 user", None)
    finally:
        other.close()
    _check(store)


def _reopened(path, monkeypatch) -> tuple[SQLiteStore, list[str]]:
    """The store opened again as a server opens it (the index built or loaded `inline`
    at its first keyword search); which of the two happened."""
    from engram.store.sqlite import ann_index

    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    monkeypatch.setattr(ann_index, "_build_mode", ["inline"])
    store = SQLiteStore(path)
    store.exact_rank_min_matches = 0
    happened: list[str] = []
    build = store.build_keyword_index

    def building(*args, **kwargs):
        happened.append("built")
        return build(*args, **kwargs)

    store.build_keyword_index = building  # type: ignore[method-assign]
    store.keyword_search([("test",)], "and", Filters(), 10)
    if store._keyword_index is not None and not happened:
        happened.append("loaded")
    return store, happened


def test_a_restarted_store_loads_the_saved_index_and_reads_what_changed(store, tmp_path,
                                                                       monkeypatch):
    """The index is saved beside the store once built; the next process loads it instead
    of reading every row, then reads the rows changed since (by any process): the same
    rankings as FTS5's."""
    path = tmp_path / "m.db"
    assert (tmp_path / "m.db.keywords").exists()
    rng = random.Random(11)
    store.close()
    other = SQLiteStore(path)  # writes while no server runs
    try:
        with other.transaction():
            for i in range(2000, 2100):
                other.insert(_memory(i), "test user grafana grafana e2e " + _terms(rng), None)
        for i in range(0, 1500, 19):
            other.update(other.get(f"m{i:05d}"), "grafana test test " + _terms(rng))
        other.delete("m00004")
    finally:
        other.close()
    again, happened = _reopened(path, monkeypatch)
    try:
        assert happened == ["loaded"]
        _check(again)
        with again.transaction():  # and its own writes from there
            again.insert(_memory(3000), "grafana user user test e 2 e", None)
        _check(again)
    finally:
        again.close()


def test_a_saved_index_is_not_used_for_another_database_at_its_path(tmp_path, monkeypatch):
    """A backup copied back over the store (rows at the same change numbers, other terms
    since), another store at the same path, or an unreadable file: the index is read
    afresh, and ranks as FTS5 does."""
    import shutil
    import sqlite3

    path = tmp_path / "m.db"
    rng = random.Random(12)
    first = SQLiteStore(path)
    with first.transaction():
        for i in range(1500):
            first.insert(_memory(i), _terms(rng), None)
    with sqlite3.connect(tmp_path / "backup.db") as backup:
        first._db.backup(backup)
    with first.transaction():
        for i in range(1500, 1800):
            first.insert(_memory(i), "grafana grafana grafana test " + _terms(rng), None)
    first.build_keyword_index()  # saved at the 1,800th change
    first.close()
    for name in ("m.db", "m.db-wal", "m.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    shutil.copy(tmp_path / "backup.db", path)  # the backup restored, then other writes
    restored = SQLiteStore(path)
    with restored.transaction():
        for i in range(5000, 5300):
            restored.insert(_memory(i), "user user test e2e " + _terms(rng), None)
    restored.close()
    again, happened = _reopened(path, monkeypatch)
    try:
        assert happened == ["built"]
        _check(again)
    finally:
        again.close()
    (tmp_path / "m.db.keywords").write_bytes(b"not an index")
    again, happened = _reopened(path, monkeypatch)
    try:
        assert happened == ["built"]
        _check(again)
    finally:
        again.close()


def test_a_server_loads_it_on_its_thread_reads_what_changed_and_saves_it_again(
        store, tmp_path, monkeypatch):
    """A long-running process's thread loads the saved index, reads the rows changed
    since on a connection of its own, and saves it again when they were many; the next
    start then has nothing to read."""
    from engram.store.sqlite import ann_index, exact_rank

    path = tmp_path / "m.db"
    token = store.get_meta(exact_rank.KEYWORD_FILE_KEY)
    store.close()
    rng = random.Random(13)
    other = SQLiteStore(path)
    try:
        with other.transaction():
            for i in range(2000, 2120):
                other.insert(_memory(i), "grafana test user e2e " + _terms(rng), None)
    finally:
        other.close()
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    monkeypatch.setattr(ann_index, "_build_mode", ["background"])
    monkeypatch.setattr(exact_rank, "RESAVE_ROWS", 100)
    for expected_read in (120, 0):
        server = SQLiteStore(path)
        server.exact_rank_min_matches = 0
        server.build_keyword_index = None  # type: ignore[assignment]  # must not build
        try:
            server.keyword_search([("test",)], "and", Filters(), 10)
            server._keyword_thread.join(10)
            index = server._keyword_index
            assert index is not None
            (top,) = server._db.execute("SELECT MAX(seq) FROM memories").fetchone()
            assert index.seq == top
            if expected_read:  # saved again, under a new token
                assert server.get_meta(exact_rank.KEYWORD_FILE_KEY) != token
            _check(server)
        finally:
            server.close()
