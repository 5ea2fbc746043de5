"""The approximate index of large SQLite stores answers like the exact scan.

A small store is forced into graph mode with ENGRAM_ANN_MIN_ROWS; every search is
compared with the same store searched exactly (a second connection with the graph off).
"""

from __future__ import annotations

import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

import engram
from engram.store.base import Filters
from engram.store.sqlite import SQLiteStore

# find_spec, not importorskip: importing usearch here, before the embedder tests import
# onnxruntime, is what crashed CI (see ann_index.usearch_index).
pytestmark = pytest.mark.skipif(find_spec("usearch") is None, reason="usearch not installed")


def test_the_ann_module_then_the_embedder_in_a_fresh_process_does_not_crash():
    code = (
        "from engram.store.sqlite import ann_index\n"
        "assert ann_index.usearch_available()\n"
        "import onnxruntime\n"
        "from engram.embedders.bundled import BundledEmbedder\n"
        "print(len(BundledEmbedder().embed_query('postgres pool')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["384"]

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


def _graph(path: Path, mem: engram.service.Engram) -> tuple[list[list[tuple]], SQLiteStore]:
    store = SQLiteStore(path)
    results = _results(store, mem)
    assert store._index is not None and store._index.ann is not None
    return results, store


def test_graph_search_equals_exact_through_writes_deletes_and_supersede(
    mem, store_path, monkeypatch
):
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    _fill(mem)
    found, store = _graph(store_path, mem)
    try:
        assert found == _exact(store_path, mem, monkeypatch)
        assert Path(f"{store_path}.ann").exists()
        # Writes by both connections: the open graph takes them as fresh rows.
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
        assert store._index.ann.fresh  # scanned exactly beside the saved graph
    finally:
        store.close()
    # A new process loads the older saved graph and marks the changed rows fresh.
    reopened, store = _graph(store_path, mem)
    try:
        assert store._index.ann.fresh
        assert reopened == after
    finally:
        store.close()


@pytest.mark.parametrize("damage", ["garbage", "future", "truncated"])
def test_a_corrupt_or_foreign_graph_file_is_rebuilt(mem, store_path, monkeypatch, damage):
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    _fill(mem, 120)
    found, store = _graph(store_path, mem)
    store.close()
    graph, meta = Path(f"{store_path}.ann"), Path(f"{store_path}.ann.json")
    if damage == "garbage":
        graph.write_bytes(b"not a graph" * 100)
    elif damage == "future":  # a database restored from a backup older than the graph
        meta.write_text(meta.read_text().replace('"seq": ', '"seq": 10'))
    else:
        graph.write_bytes(graph.read_bytes()[:1000])
    again, store = _graph(store_path, mem)
    try:
        assert again == found == _exact(store_path, mem, monkeypatch)
        assert not store._index.ann.fresh  # rebuilt, not patched
    finally:
        store.close()
    assert '"seq": 10' not in meta.read_text()


def test_a_filter_too_selective_for_the_graph_falls_back_to_exact(mem, store_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "50")
    _fill(mem, 120)
    only = mem.save("a lone runbook note", project="rare").memory
    store = SQLiteStore(store_path)
    try:
        hits = store.vector_search(mem.embedder.embed_query("postgres"),
                                   Filters(project="rare", include_global=False), 10)
        assert [h.memory_id for h in hits] == [only.id]
        assert store._index.ann is not None
    finally:
        store.close()


def test_the_graph_is_off_unless_asked_for(monkeypatch):
    from engram.store.sqlite.ann_index import ann_min_rows

    monkeypatch.delenv("ENGRAM_ANN_MIN_ROWS", raising=False)
    assert ann_min_rows() > 10**12  # recall below target: exact search by default
    monkeypatch.setenv("ENGRAM_ANN_MIN_ROWS", "200000")
    assert ann_min_rows() == 200_000
