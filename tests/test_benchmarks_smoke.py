"""The benchmark harnesses still run end to end (tiny sizes), so they cannot rot.

Speed is never asserted here: numbers belong in benchmarks/RESULTS.md. What is checked
is what a reader of the results relies on: labels are normalised as documented,
metrics are computed correctly, dedup-merged turns are scored as their surviving
memory, and both commands run from the `engram` CLI and write their section.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

sys.path.insert(0, str(ROOT))

from benchmarks import locomo  # noqa: E402
from benchmarks.metrics import Scores, ndcg_at, recall_at, reciprocal_rank  # noqa: E402

EMBEDDER = "fake" if importlib.util.find_spec("engram.embedders.fake") else "none"
DATA = locomo.DEFAULT_DATA
needs_data = pytest.mark.skipif(
    not (DATA / "locomo10.json").exists(), reason="LoCoMo data not present"
)


def test_metrics_on_a_known_ranking():
    ranked = ["a", "b", "c", "d"]
    assert recall_at(ranked, ("c", "x"), 1) == 0.0
    assert recall_at(ranked, ("c", "x"), 5) == 0.5
    assert reciprocal_rank(ranked, {"c", "x"}) == pytest.approx(1 / 3)
    assert ndcg_at(ranked, {"a"}) == 1.0
    assert 0 < ndcg_at(ranked, {"b", "x"}) < 1
    # two evidence turns merged into one memory: both count as found
    scores = Scores()
    scores.add(ranked, ("a", "a"))
    assert scores.mean("R@1") == 1.0 and scores.mean("MRR") == 1.0


def test_malformed_evidence_ids_are_normalised_or_dropped_and_counted():
    stats = locomo.LabelStats()
    known = {"D11:26", "D30:5", "D8:6", "D9:17", "D1:3"}
    got = locomo.normalise_evidence(
        ["D:11:26", "D30:05", "D8:6; D9:17", "D", "D99:1", "D1:3"], known, "q", stats
    )
    assert got == ("D11:26", "D30:5", "D8:6", "D9:17", "D1:3")
    assert len(stats.dropped) == 2  # "D" and the turn that does not exist
    assert stats.evidence_ids == 6


@needs_data
def test_engram_bench_locomo_cli_writes_its_section(cli_env, tmp_path):
    results = tmp_path / "RESULTS.md"
    proc = run_cli(
        cli_env, "bench", "locomo", "--conversations", "1", "--max-turns", "50",
        "--embedder", EMBEDDER, "--systems", "bm25,keyword,default", "--results", str(results),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["turns"] == 50 and data["questions"] > 0
    assert data["labels"]["audit_corrections_applied"] > 0 and data["labels"]["dropped"]
    audited = data["results"]["audited"]
    assert set(audited) == {"bm25", "keyword", "default"}
    for system in audited.values():
        assert 0.0 <= system["overall"]["R@1"] <= system["overall"]["R@10"] <= 1.0
    # Questions whose evidence lies among 50 turns: keywords alone find much of it.
    assert audited["keyword"]["overall"]["R@10"] > 0.3
    text = results.read_text()
    assert "<!-- locomo:start -->" in text and "Command: `engram bench locomo" in text


def test_engram_bench_scale_cli_runs_a_tiny_store(cli_env, tmp_path):
    results = tmp_path / "RESULTS.md"
    proc = run_cli(
        cli_env, "bench", "scale", "--sizes", "200", "--sample", "100", "--runs", "1",
        "--queries", "10", "--settle", "0", "--embedder", EMBEDDER, "--results", str(results),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert row["memories"] == 200 and row["import_errors"] == 0
    assert row["ingest_per_s"] > 0 and row["bytes_per_memory"] > 0
    assert row["index_load_s"] >= 0
    assert isinstance(row["mcp_p50_ms"], float), row["mcp_p50_ms"]  # a real `engram mcp`
    assert row["mcp_handshake_ms"] > 0 and row["inproc_audited_p50_ms"] > 0
    assert row["mcp_first_handshake_ms"] > 0
    assert row["mcp_rss_mb"] > 0 and row["rest_rss_mb"] > 0  # the servers' footprints
    # `engram search` through the worker the hook started: answered, same results
    assert isinstance(row["cold_cli_worker_ms"], float), row["cold_cli_worker_ms"]
    assert row["cold_cli_spawn_ms"] > 0 and row["worker_up_s"] >= 0
    assert "<!-- scale:start -->" in results.read_text() and "index load s" in results.read_text()
    assert "cold CLI ÷ warm" in results.read_text()
    assert "`engram mcp` RSS MB" in results.read_text()


def test_engram_bench_scale_measures_postgresql_too(cli_env, tmp_path):
    import pg_support

    if not pg_support.available():
        pytest.skip("PostgreSQL tests need the test extra")
    server = pg_support.fresh_url()  # any database of the server: the bench makes its own
    results = tmp_path / "RESULTS.md"
    proc = run_cli(
        cli_env, "bench", "scale", "--sizes", "200", "--sample", "100", "--runs", "1",
        "--queries", "10", "--settle", "0", "--embedder", EMBEDDER, "--results", str(results),
        "--db", server, "--json",
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert row["memories"] == 200 and row["import_errors"] == 0
    assert 0.0 <= row["hnsw_recall_at_10"] <= 1.0 and row["server_rss_mb"] > 0
    assert "<!-- scale-postgres:start -->" in results.read_text()


def test_synthetic_memories_are_deterministic():
    from benchmarks.synthetic import Generator

    first = list(Generator(3, 10).memories(50))
    assert first == list(Generator(3, 10).memories(50))
    assert len({m["type"] for m in first}) >= 6
    assert Path(locomo.__file__).parent.name == "benchmarks"
