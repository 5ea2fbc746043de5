"""Approximate vs exact vector search on one large synthetic SQLite store.

Builds the store the way `benchmarks.scale` does (real model vectors for a pool of
records, jittered copies for the rest; `--full`: every record embedded), then runs the
same queries under the same filters through `SQLiteStore.vector_search`: exact (lists
off), then with the IVF lists (`ENGRAM_ANN_MIN_ROWS=1`) at each probed share of the
lists in `--probes`. Reports recall@10 against exact, warm p50/p95 of each, the lists'
build and reload time, and peak RSS of this process (the exact index is closed before
the lists are built, but the peak includes the fill).

    python -m benchmarks.ann --size 100000 [--probes 0.05,0.1,0.2] [--json] [--write]
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from .metrics import percentile
from .report import stamp, write_section
from .scale import _bulk_fill, _replicate
from .synthetic import Generator


def _filters() -> dict[str, Any]:
    from engram.store.base import Filters

    return {
        "none": Filters(),
        "project": None,  # filled with the biggest project of the store
        "type decision": Filters(types=("decision",)),
        "all statuses": Filters(statuses=("active", "superseded", "archived")),
    }


def _run(store: Any, queries: list[Any], filters: dict[str, Any]) -> tuple[dict, list[float]]:
    hits, times = {}, []
    for name, f in filters.items():
        for i, q in enumerate(queries):
            t0 = time.perf_counter()
            found = store.vector_search(q, f, 10)
            times.append((time.perf_counter() - t0) * 1000)
            hits[(name, i)] = [c.memory_id for c in found]
    return hits, times


def _p50s(times: list[float], filters: dict[str, Any]) -> str:
    """p50 per filter, in the filters' order (queries ran filter by filter)."""
    per = len(times) // max(len(filters), 1)
    return " / ".join(f"{statistics.median(times[i * per:(i + 1) * per]):.2f}"
                      for i in range(len(filters)))


def measure(size: int, unique: int, queries: int, seed: int, probes: list[float],
            full: bool = False) -> dict[str, Any]:
    import engram
    from engram.store.base import Filters
    from engram.store.sqlite import SQLiteStore, ann_index

    gen = Generator.for_store(seed, size)
    distinct = min(size, unique)
    tmp = Path(tempfile.mkdtemp(prefix="engram-ann-"))
    path = tmp / "memory.db"
    result: dict[str, Any] = {"size": size, "distinct_records": distinct}
    try:
        mem = engram.open(str(path), embedder="bundled")
        mem.lifecycle.upkeep_mode = "off"
        t0 = time.perf_counter()
        _bulk_fill(mem, list(gen.memories(distinct)), mem.embedder, full)
        if distinct < size:
            _replicate(mem, size - distinct, seed)
        result["fill_s"] = round(time.perf_counter() - t0, 1)
        vectors = mem.embed_texts(gen.queries(queries))
        project = mem.store.stats().get("by_project") or {}
        filters = _filters()
        top_project = max(project, key=project.get) if project else None
        filters["project"] = Filters(project=top_project)
        mem.close()

        os.environ["ENGRAM_ANN_MIN_ROWS"] = "0"
        exact = SQLiteStore(str(path))
        _run(exact, vectors[:3], filters)  # load the index
        truth, exact_ms = _run(exact, vectors, filters)
        exact.close()

        result["exact_p50_ms"] = round(statistics.median(exact_ms), 2)
        result["exact_p95_ms"] = round(percentile(exact_ms, 95), 2)
        result["exact_p50_ms per filter (" + ", ".join(filters) + ")"] = _p50s(exact_ms, filters)

        os.environ["ENGRAM_ANN_MIN_ROWS"] = "1"
        ann_index.set_build_mode("inline")  # the first search builds, as a bulk import does
        for label in ("build", "reload"):
            lists = SQLiteStore(str(path))
            t0 = time.perf_counter()
            lists.vector_search(vectors[0], filters["none"], 10)
            result[f"first_search_with_{label}_s"] = round(time.perf_counter() - t0, 1)
            if label == "build":
                lists.close()
        assert lists._index is not None and lists._index.ann is not None
        result["lists"] = lists._index.ann.lists
        default = ann_index.PROBE_FRACTION
        try:
            for share in probes:
                ann_index.PROBE_FRACTION = share
                _run(lists, vectors[:3], filters)
                found, ann_ms = _run(lists, vectors, filters)
                for name in filters:
                    keys = [k for k in truth if k[0] == name]
                    got = sum(len(set(found[k]) & set(truth[k])) for k in keys)
                    want = sum(len(truth[k]) for k in keys)
                    result[f"probe {share}: recall@10 {name}"] = round(got / max(want, 1), 4)
                result[f"probe {share}: ann_p50_ms"] = round(statistics.median(ann_ms), 2)
                result[f"probe {share}: ann_p95_ms"] = round(percentile(ann_ms, 95), 2)
                result[f"probe {share}: ann_p50_ms per filter"] = _p50s(ann_ms, filters)
        finally:
            ann_index.PROBE_FRACTION = default
        lists.close()
        result["lists_file_mb"] = round(Path(f"{path}.ann").stat().st_size / 2**20, 1)
        result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        result["loadavg"] = os.getloadavg()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return result


@click.command()
@click.option("--size", default=100_000, show_default=True)
@click.option("--unique", default=200_000, show_default=True,
              help="distinct records; beyond, rows are copied with fresh vector noise")
@click.option("--queries", default=50, show_default=True)
@click.option("--seed", default=7, show_default=True)
@click.option("--probes", default="0.05,0.1,0.2", show_default=True,
              help="shares of the lists probed, comma-separated")
@click.option("--full", is_flag=True, help="embed every record (no jittered copies); slow")
@click.option("--json", "as_json", is_flag=True)
@click.option("--write", is_flag=True, help="record the table in benchmarks/RESULTS.md")
def command(size: int, unique: int, queries: int, seed: int, probes: str, full: bool,
            as_json: bool, write: bool) -> None:
    """Recall and latency of the approximate index against exact search."""
    shares = [float(p) for p in probes.split(",") if p.strip()]
    result = measure(size, unique, queries, seed, shares, full)
    if as_json:
        click.echo(json.dumps(result))
        return
    lines = ["| measure | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in result.items()]
    body = "\n".join(["## Approximate vector index (SQLite)", "", stamp(), *lines])
    click.echo(body)
    if write:
        write_section("ann", body)


if __name__ == "__main__":
    command()
