"""The approximate (IVF) index of large SQLite stores: properties that hold every run.

Nothing here depends on an approximate search happening to find a row: the store-level
tests probe every list (where the lists are exactly the scan) or check what holds for
any probe count (every hit scored exactly, masked, fresh rows scanned); recall is
checked on a fixed-seed array against a bound with margin.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import engram
from engram.store.base import Filters
from engram.store.sqlite import SQLiteStore, ann_index
from engram.store.sqlite.ann_index import AnnLists

WORDS = ["postgres", "pool", "redis", "cache", "deploy", "staging", "checkout", "flaky",
         "billing", "webhook", "sqlite", "react", "query", "invoice", "kafka", "lag",
         "sentry", "alert", "lockfile", "pnpm", "docker", "image"]
QUERIES = ["postgres pool exhausted", "redis cache expiry", "flaky checkout test",
           "kafka consumer lag alert", "pnpm lockfile docker image"]
FILTERS = [
    Filters(),
    Filters(project="shop"),
    Filters(project="shop", include_global=False),
    Filters(types=("decision",)),
    Filters(statuses=("active", "superseded", "archived")),
]


@pytest.fixture(autouse=True)
def inline_builds(monkeypatch):
    """The search that finds no lists builds them, as `engram reindex` does."""
    monkeypatch.setattr(ann_index, "_build_mode", ["inline"])


def test_the_ann_module_then_the_embedder_in_a_fresh_process_does_not_crash():
    """usearch imported before onnxruntime segfaulted (the first attempt); this module
    must stay safe to import, and to use, before the embedder loads."""
    code = (
        "import numpy as np\n"
        "from engram.store.sqlite import ann_index\n"
        "v = np.eye(8, dtype=np.float32)\n"
        "ann_index.AnnLists.build(np.arange(8), v, 0, 8, lists=2)\n"
        "if ann_index._numkong() is not None:\n"
        "    ann_index.dots(v.astype(np.float16), v[0])\n"
        "from engram.embedders.bundled import BundledEmbedder\n"
        "print(len(BundledEmbedder().embed_query('postgres pool')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["384"]


def _fill(mem: engram.service.Engram, n: int = 240) -> None:
    records = []
    for i in range(n):
        words = [WORDS[(i * k + k) % len(WORDS)] for k in (1, 3, 7, 11)]
        records.append({
            "content": f"note {i}: {' '.join(words)} number {i * 7919 % 1000}",
            "project": "shop" if i % 3 else None,
            "type": "decision" if i % 5 == 0 else "project_fact",
        })
    mem.save_many(records)


def _results(store: SQLiteStore, mem: engram.service.Engram) -> list[list[tuple]]:
    """Per query and filter: the top 10 as (score, id), ties put in id order.

    Equal scores may come in either order (the float sums differ in the last bit), and
    a tie at the 10th place may keep either row: those ids are left out.
    """
    found = []
    for q in QUERIES:
        for f in FILTERS:
            hits = store.vector_search(mem.embedder.embed_query(q), f, 10)
            ranked = sorted((-round(c.score, 5), c.memory_id) for c in hits)
            last = ranked[-1][0] if len(ranked) == 10 else None
            found.append([(s, i if s != last else "") for s, i in ranked])
    return found


def _exact(path: Path, mem: engram.service.Engram, monkeypatch) -> list[list[tuple]]:
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "0")
    store = SQLiteStore(path)
    try:
        index = store._sync_index()
        assert index is not None and index.ann is None
        return _results(store, mem)
    finally:
        store.close()
        monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")


def _lists(path: Path, mem: engram.service.Engram) -> tuple[list[list[tuple]], SQLiteStore]:
    store = SQLiteStore(path)
    results = _results(store, mem)
    assert store._index is not None and store._index.ann is not None
    return results, store


@pytest.fixture
def every_list(monkeypatch):
    """Probe all lists, whatever the filter: the lists' answer is then the exact one."""
    monkeypatch.setattr(ann_index, "PROBE_FRACTION", 1.0)
    monkeypatch.setattr(ann_index, "MAX_PROBED", 1.0)
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")


def test_below_the_threshold_the_search_is_exact(mem, store_path, monkeypatch):
    _fill(mem, 120)
    for value in ("0", "", "121", "not a number"):
        monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", value)
        store = SQLiteStore(store_path)
        try:
            assert store._sync_index().ann is None
        finally:
            store.close()
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "120")
    assert ann_index.ann_min_rows() == 120
    monkeypatch.delenv("ENGRAM_ANN_MIN_ROWS")
    assert ann_index.ann_min_rows() == (ann_index.DEFAULT_MIN_ROWS or 2**62)
    assert not Path(f"{store_path}.ann").exists()


def test_probing_every_list_equals_exact_through_writes_deletes_and_supersede(
    mem, store_path, monkeypatch, every_list
):
    _fill(mem)
    found, store = _lists(store_path, mem)
    try:
        assert found == _exact(store_path, mem, monkeypatch)
        assert Path(f"{store_path}.ann").exists()
        # Writes by both connections: the open lists take them as fresh rows.
        top = [c.memory_id for c in store.vector_search(
            mem.embedder.embed_query(QUERIES[0]), Filters(), 3)]
        store.delete(top[0])  # a hard delete by this connection
        mem.archive(top[1])
        new = mem.save("postgres pool exhausted again, raised max connections").memory
        mem.supersede(top[2], new.id)
        after = _results(store, mem)
        assert after == _exact(store_path, mem, monkeypatch)
        ids = {i for _s, i in after[0]}
        assert top[0] not in ids and new.id in ids
        assert store._index.ann.changed(store._index.size)  # scanned beside the lists
    finally:
        store.close()
    # A new process loads the older saved lists and marks the changed rows fresh.
    reopened, store = _lists(store_path, mem)
    try:
        assert store._index.ann.fresh
        assert reopened == after
    finally:
        store.close()


def test_every_hit_is_scored_exactly_masked_and_fresh_rows_are_always_scanned(
    mem, store_path, monkeypatch
):
    """With the default (partial) probing: whatever the lists miss, what they return is
    right -- exact cosines, only rows the filter keeps -- and new rows are never missed."""
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    _fill(mem)
    store = SQLiteStore(store_path)
    try:
        for q in QUERIES:
            query = mem.embedder.embed_query(q)
            for f in FILTERS:
                hits = store.vector_search(query, f, 10)
                index = store._index
                vectors = index.vectors_of([h.memory_id for h in hits])
                for h in hits:
                    row = vectors[h.memory_id].astype(index.dtype)[None, :]
                    assert h.score == pytest.approx(float(ann_index.dots(row, query)[0]),
                                                    abs=1e-6)  # the index's own kernel
                    assert h.score == pytest.approx(float(vectors[h.memory_id] @ query),
                                                    abs=1e-3)
                    memory = mem.get(h.memory_id)
                    assert memory.status in f.statuses
                    assert not f.types or memory.type in f.types
                    if f.project and not f.include_global:
                        assert memory.project == f.project
                assert [h.score for h in hits] == sorted((h.score for h in hits),
                                                         reverse=True)
        assert store._index.ann is not None
        text = "kafka consumer lag alert on the billing webhook"
        new = mem.save(text).memory
        hits = store.vector_search(mem.embedder.embed_query(text), Filters(), 1)
        assert [h.memory_id for h in hits] == [new.id]
    finally:
        store.close()


@pytest.mark.parametrize("damage", ["garbage", "future", "truncated", "wrong rows"])
def test_a_corrupt_or_foreign_lists_file_is_rebuilt(
    mem, store_path, monkeypatch, every_list, damage
):
    _fill(mem, 120)
    found, store = _lists(store_path, mem)
    store.close()
    lists, meta = Path(f"{store_path}.ann"), Path(f"{store_path}.ann.json")
    if damage == "garbage":
        lists.write_bytes(b"not a list" * 100)
    elif damage == "future":  # a database restored from a backup older than the lists
        meta.write_text(meta.read_text().replace('"seq": ', '"seq": 10'))
    elif damage == "truncated":
        lists.write_bytes(lists.read_bytes()[:1000])
    else:
        meta.write_text(meta.read_text().replace('"rows": ', '"rows": 1'))
    again, store = _lists(store_path, mem)
    try:
        assert again == found == _exact(store_path, mem, monkeypatch)
        assert not store._index.ann.changed(store._index.size)  # rebuilt, not patched
    finally:
        store.close()
    assert '"seq": 10' not in meta.read_text()


def test_a_filter_too_selective_for_the_lists_falls_back_to_exact(
    mem, store_path, monkeypatch
):
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    _fill(mem, 120)
    only = mem.save("a lone runbook note", project="rare").memory
    store = SQLiteStore(store_path)
    try:
        hits = store.vector_search(mem.embedder.embed_query("postgres"),
                                   Filters(project="rare", include_global=False), 10)
        assert [h.memory_id for h in hits] == [only.id]
        index = store._index
        assert index.ann is not None
        mask = index.mask(("active",), "rare", False, (), None, None)
        query = np.zeros(index.dim, np.float32)
        assert index.ann.search(query, mask, 10, index.vectors) is None
    finally:
        store.close()


def _clustered(records: int, copies: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors in clusters of near-ties, like the scale benchmark's jittered copies."""
    rng = np.random.default_rng(seed)
    dim = 64
    base = rng.normal(size=(records, dim)).astype(np.float32)
    rows = np.repeat(base, copies, axis=0)
    rows += rng.normal(0, 0.6 / np.sqrt(dim), rows.shape).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    queries = base[rng.choice(records, 40, replace=False)]
    queries += rng.normal(0, 1.0 / np.sqrt(dim), queries.shape).astype(np.float32)
    return rows, queries / np.linalg.norm(queries, axis=1, keepdims=True)


def _adopted(rows: np.ndarray, lists: AnnLists) -> np.ndarray:
    """`rows` in the lists' order, as `VectorIndex.adopt` leaves the index's matrix."""
    ordered = rows[lists.members]
    lists.members = None
    return ordered


def test_all_lists_hold_every_row_once_and_probing_them_all_is_the_full_mask():
    rows, _ = _clustered(50, 20, seed=3)
    original = rows
    lists = AnnLists.build(np.arange(len(rows)), rows, 0, len(rows))
    members = lists.members
    assert sorted(members.tolist()) == list(range(len(rows)))
    rows = _adopted(rows, lists)
    mask = np.arange(len(rows)) % 3 != 0
    found, scores = lists.search(rows[0], mask, len(rows), rows, probes=lists.lists)
    assert sorted(found.tolist()) == np.flatnonzero(mask).tolist()
    assert np.allclose(scores, rows[found] @ rows[0], atol=1e-6)
    assert list(scores) == sorted(scores, reverse=True)
    # A row rewritten since the build is scored from the index's rows, not the old copy.
    moved = rows.copy()
    moved[1] = -rows[0]
    lists.fresh.append(1)
    found, scores = lists.search(rows[0], mask, len(rows), moved, probes=lists.lists)
    assert found[-1] == 1 and scores[-1] == pytest.approx(-1.0, abs=1e-5)
    assert len(found) == int(mask.sum())
    # The build is deterministic: same seed, same lists.
    again = AnnLists.build(np.arange(len(rows)), original, 0, len(rows))
    assert np.array_equal(again.members, members)
    assert np.array_equal(again.starts, lists.starts)


def test_recall_at_10_on_a_fixed_seed_clustered_store_is_above_its_bound():
    rows, queries = _clustered(400, 25, seed=11)  # 10,000 rows, 200 lists
    lists = AnnLists.build(np.arange(len(rows)), rows, 0, len(rows))
    rows = _adopted(rows, lists)
    mask = np.ones(len(rows), dtype=bool)
    got = want = 0
    for query in queries:
        truth = set(np.argsort(-(rows @ query))[:10].tolist())
        found = lists.search(query, mask, 10, rows)
        assert found is not None
        got += len(truth & set(found[0].tolist()))
        want += 10
    assert got / want >= 0.95


def _lists_state(store: SQLiteStore) -> tuple:
    """What a build decides: centroids, list boundaries, and the rowids in list order."""
    index = store._index
    lists = index.ann
    return (lists.centroids.tobytes(), lists.starts.tolist(),
            index.position_rowids()[: lists.built].tolist())


def test_the_index_holds_one_matrix_permuted_in_place(mem, store_path, monkeypatch):
    """No packed copy: after the lists are adopted, the vectors are the same array as
    before, in list order, and the lists hold only small per-list arrays."""
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    monkeypatch.setattr(ann_index, "_build_mode", ["never"])
    _fill(mem)
    store = SQLiteStore(store_path)
    try:
        store.vector_search(mem.embedder.embed_query(QUERIES[0]), Filters(), 10)
        index = store._index
        assert index.ann is None  # a short-lived process never builds
        matrix = index.vectors
        before = {r: matrix[p].copy() for r, p in index._positions.items()}
        assert store.build_vector_lists()
        lists = index.ann
        assert index.vectors is matrix and lists.members is None
        assert not hasattr(lists, "packed")
        held = [v for v in vars(lists).values() if isinstance(v, np.ndarray)]
        assert sum(a.nbytes for a in held) < matrix[: index.size].nbytes
        assert all(len(a) <= lists.lists + 1 for a in held)
        # Every row moved with its vector and its metadata.
        for rowid, position in index._positions.items():
            assert np.array_equal(index.vectors[position], before[rowid])
            assert index.rowids[position] == rowid
            (memory_id,) = store._db.execute(
                "SELECT id FROM memories WHERE rowid = ?", (rowid,)).fetchone()
            assert index.memory_ids[position].decode() == memory_id
            assert set(index.vectors_of([memory_id], [rowid])) == {memory_id}
        # List i is the contiguous run of positions starts[i]:starts[i + 1].
        for i in range(lists.lists):
            a, b = lists.starts[i], lists.starts[i + 1]
            if b > a:
                nearest = np.argmax(index.vectors[a:b] @ lists.centroids.T, axis=1)
                assert (nearest == i).all()
    finally:
        store.close()


def test_a_background_build_equals_an_inline_build_and_searches_are_exact_meanwhile(
    mem, store_path, monkeypatch
):
    import threading

    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    monkeypatch.setattr(ann_index, "PROBE_FRACTION", 1.0)
    monkeypatch.setattr(ann_index, "MAX_PROBED", 1.0)
    _fill(mem)
    truth = _exact(store_path, mem, monkeypatch)
    inline, store = _lists(store_path, mem)
    want = _lists_state(store)
    store.close()
    Path(f"{store_path}.ann").unlink()

    monkeypatch.setattr(ann_index, "_build_mode", ["background"])
    release, started = threading.Event(), threading.Event()
    build = AnnLists.build.__func__

    def held_build(cls, *args, **kwargs):
        started.set()
        assert release.wait(60)
        return build(cls, *args, **kwargs)

    monkeypatch.setattr(AnnLists, "build", classmethod(held_build))
    store = SQLiteStore(store_path)
    try:
        while_building = _results(store, mem)
        assert started.wait(60)
        assert store._index.ann is None  # still building: the searches above were exact
        assert while_building == truth == inline
        extra = mem.save("kafka consumer lag alert during the build").memory
        release.set()
        store._ann_thread.join(60)
        assert store._index.ann is not None
        assert _lists_state(store)[:2] == want[:2]
        assert _lists_state(store)[2] == want[2]
        assert Path(f"{store_path}.ann").exists()
        # The row written during the build is appended after the lists, and found.
        hits = store.vector_search(mem.embedder.embed_query(extra.content), Filters(), 1)
        assert [h.memory_id for h in hits] == [extra.id]
        after = _results(store, mem)
    finally:
        store.close()
    assert after == _exact(store_path, mem, monkeypatch)


def test_stale_lists_are_rebuilt(mem, store_path, monkeypatch, every_list):
    _fill(mem)
    _found, store = _lists(store_path, mem)
    try:
        first = store._index.ann
        mem.save_many([{"content": f"fresh note {i} about redis cache and {WORDS[i % 22]}"}
                       for i in range(40)])
        after = _results(store, mem)
        assert store._index.ann is not first  # 40 > 10% of 240 rows: rebuilt
        assert not store._index.ann.changed(store._index.size)
    finally:
        store.close()
    assert after == _exact(store_path, mem, monkeypatch)


def test_a_short_lived_process_loads_saved_lists_but_never_builds(mem, store_path,
                                                                  monkeypatch):
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    monkeypatch.setattr(ann_index, "_build_mode", ["never"])
    _fill(mem)
    store = SQLiteStore(store_path)
    try:
        store.vector_search(mem.embedder.embed_query(QUERIES[0]), Filters(), 10)
        assert store._index.ann is None and store._ann_thread is None
        assert not Path(f"{store_path}.ann").exists()
        assert store.build_vector_lists()  # what `engram reindex` / a bulk import call
        want = _lists_state(store)
    finally:
        store.close()
    store = SQLiteStore(store_path)
    try:
        store.vector_search(mem.embedder.embed_query(QUERIES[0]), Filters(), 10)
        assert store._index.ann is not None and _lists_state(store) == want
    finally:
        store.close()


def test_a_bulk_import_builds_the_lists_and_a_small_one_does_not(mem, store_path,
                                                                 monkeypatch):
    import json

    from engram.exchange import parse

    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    monkeypatch.setattr(ann_index, "_build_mode", ["never"])
    lines = [json.dumps({"content": f"imported note {i}: {WORDS[i % 22]} {WORDS[i % 7]}"})
             for i in range(105)]
    mem.import_records(parse("\n".join(lines[:100])))
    assert Path(f"{store_path}.ann").exists()
    Path(f"{store_path}.ann").unlink()
    mem.import_records(parse("\n".join(lines[100:])))  # 5 of 105: a small import
    assert not Path(f"{store_path}.ann").exists()


def test_filtered_searches_use_the_lists_unless_scoring_the_filters_rows_is_cheaper():
    rows, queries = _clustered(400, 25, seed=5)  # 10,000 rows, 400 lists
    lists = AnnLists.build(np.arange(len(rows)), rows, 0, len(rows))
    rows = _adopted(rows, lists)
    everything = np.ones(len(rows), dtype=bool)
    broad = np.arange(len(rows)) % 5 != 0  # keeps 80%
    narrow = np.arange(len(rows)) % 50 == 0  # keeps 2%
    for query in queries[:5]:
        assert lists.search(query, everything, 10, rows) is not None
        found = lists.search(query, broad, 10, rows)
        assert found is not None and broad[found[0]].all()
        assert np.allclose(found[1], rows[found[0]] @ query, atol=1e-6)
        assert lists.search(query, narrow, 10, rows) is None  # exact over its 200 rows
    assert lists.probes(0.8) > lists.probes(1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rows_are_permuted_in_place(seed):
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(1000, 4)).astype(np.float32)
    source = rng.permutation(1000)
    source[:100] = np.sort(source[:100])  # some fixed points and short cycles too
    if seed == 2:
        source = np.arange(1000)
        source[[3, 4]] = [4, 3]
    want = matrix[source]
    ann_index.permute_rows(matrix, source, chunk=7)
    assert np.array_equal(matrix, want)


@pytest.mark.skipif(ann_index._numkong() is None, reason="NumKong not installed")
def test_float16_rows_with_numkong_halve_the_matrix_and_probing_every_list_is_exact(
    mem, store_path, monkeypatch, every_list
):
    _fill(mem)
    monkeypatch.setenv("ENGRAM_VECTORS_F16", "0")
    store = SQLiteStore(store_path)
    try:
        wide = store._sync_index()
        assert wide.dtype == np.float32
        wide_bytes = wide.vectors[: wide.size].nbytes
    finally:
        store.close()
    monkeypatch.setenv("ENGRAM_VECTORS_F16", "1")
    found, store = _lists(store_path, mem)
    try:
        index = store._index
        assert index.vectors.dtype == np.float16
        assert index.vectors[: index.size].nbytes * 2 == wide_bytes
        assert found == _exact(store_path, mem, monkeypatch)  # float16 there too
        rows = index.vectors[:5]
        query = mem.embedder.embed_query(QUERIES[0])
        assert np.allclose(ann_index.dots(rows, query),
                           rows.astype(np.float32) @ query, atol=1e-3)
        batch = np.stack([query, -query], axis=1)
        assert ann_index.dots(rows, batch).shape == (5, 2)
    finally:
        store.close()


@pytest.mark.parametrize("half", [False, True])
def test_probed_lists_score_their_rows_as_dots_does_block_by_block(half, monkeypatch):
    """The query is packed once for all probed lists: the scores are bit for bit those of
    `dots` called on each block, and the positions exactly the probed lists' rows."""
    if half and ann_index._numkong() is None:
        pytest.skip("NumKong not installed")
    rows, _ = _clustered(50, 20, seed=5)
    lists = AnnLists.build(np.arange(len(rows)), rows, 0, len(rows))
    rows = _adopted(rows, lists)
    if half:
        rows = rows.astype(np.float16)
    query = rows[7].astype(np.float32)
    every = np.ones(len(rows), dtype=bool)
    for probes in (1, 3, lists.lists // 2):
        found, scores = lists.search(query, every, len(rows), rows, probes=probes)
        nearest = np.sort(np.argpartition(-(lists.centroids @ query), probes - 1)[:probes])
        expected = np.concatenate([np.arange(lists.starts[i], lists.starts[i + 1])
                                   for i in nearest])
        assert sorted(found.tolist()) == sorted(expected.tolist())
        with monkeypatch.context() as patch:
            patch.setattr(ann_index, "scorer", lambda q: lambda block: ann_index.dots(block, q))
            again, by_block = lists.search(query, every, len(rows), rows, probes=probes)
        assert again.tolist() == found.tolist() and by_block.tolist() == scores.tolist()
    assert ann_index.scorer(query)(rows[:0]).shape == (0,)
