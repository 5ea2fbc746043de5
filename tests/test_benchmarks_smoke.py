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
    # the hook as Claude Code runs it (the launcher), same context as the Python hook's
    assert isinstance(row["launcher_hook_ms"], float), row["launcher_hook_ms"]
    assert row["hook_python_ms"] > 0 and row["ingest_repeats"] >= 0
    assert "<!-- scale:start -->" in results.read_text() and "index load s" in results.read_text()
    assert "cold CLI ÷ warm" in results.read_text()
    assert "`engram mcp` RSS MB" in results.read_text()
    assert "hook through the launcher ms" in results.read_text()


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


def test_the_postgresql_side_thread_ab_runs_and_finds_the_same_answers(tmp_path):
    import subprocess

    import pg_support

    if not pg_support.available():
        pytest.skip("PostgreSQL tests need the test extra")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.pgside", "--db", pg_support.fresh_url(), "--build",
         "--size", "300", "--queries", "12", "--passes", "1", "--embedder", EMBEDDER],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["answers_different"] == 0 and result["queries"] == 12
    before, beside = result["variants"]["before"], result["variants"]["side"]
    assert beside["keyword_round_trips"] < before["keyword_round_trips"]
    assert beside["hybrid_50_ms"] > 0


def test_synthetic_memories_are_deterministic():
    from benchmarks.synthetic import Generator

    first = list(Generator(3, 10).memories(50))
    assert first == list(Generator(3, 10).memories(50))
    assert len({m["type"] for m in first}) >= 6
    assert Path(locomo.__file__).parent.name == "benchmarks"


def test_realtalk_evidence_ranges_and_typos_become_turn_ids():
    from benchmarks import realtalk

    got = realtalk.split_evidence(["D12:3-D12:5", "D 2:18", "D5:3.", "D1:11; D3:18", "D4:2-4"])
    assert got == ["D12:3", "D12:4", "D12:5", "D2:18", "D5:3.", "D1:11", "D3:18",
                   "D4:2", "D4:3", "D4:4"]
    assert realtalk.parse_time("29.12.2023, 22:42:04").isoformat() == "2023-12-29T22:42:04+00:00"


def _tiny_realtalk(folder: Path) -> None:
    turns = [
        ("Ana", "hey!! how r u", "01.01.2024, 10:00:00"),
        ("Bo", "good, just got back from skiing in Colorado", "01.01.2024, 10:01:00"),
        ("Ana", "omg jealous 😍", "01.01.2024, 10:02:00"),
        ("Bo", "here's the view", "01.01.2024, 10:03:00"),
        ("Ana", "my cat Miso knocked over my coffee lol", "02.01.2024, 09:00:00"),
    ]
    chat = {"name": {"speaker_1": "Ana", "speaker_2": "Bo"},
            "session_1_date_time": "01.01.2024, 10:00:00",
            "session_2_date_time": "02.01.2024, 09:00:00",
            "session_1": [], "session_2": [],
            "qa": [{"question": "Where did Bo go skiing?", "answer": "Colorado",
                    "evidence": ["D1:2"], "category": 1},
                   {"question": "What is the name of Ana's cat?", "answer": "Miso",
                    "evidence": ["D2:1", "D9:9"], "category": 1},
                   {"question": "When did Bo go skiing?", "answer": "1 Jan 2024",
                    "evidence": ["D1:2-D1:4"], "category": 2}]}
    for i, (speaker, text, when) in enumerate(turns):
        session = 1 if i < 4 else 2
        turn = {"clean_text": text, "speaker": speaker, "date_time": when,
                "dia_id": f"D{session}:{i + 1 if session == 1 else 1}", "img_file": []}
        if i == 3:
            turn["blip_caption"] = "a snowy mountain with a ski lift"
        chat[f"session_{session}"].append(turn)
    (folder / "Chat_1_Ana_Bo.json").write_text(json.dumps(chat))


def test_engram_bench_realtalk_cli_writes_its_section(cli_env, tmp_path):
    data = tmp_path / "realtalk"
    data.mkdir()
    _tiny_realtalk(data)
    results = tmp_path / "RESULTS.md"
    proc = run_cli(
        cli_env, "bench", "realtalk", "--data", str(data), "--embedder", EMBEDDER,
        "--systems", "bm25,keyword,default", "--results", str(results), "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["turns"] == 5 and out["questions"] == 3
    assert out["labels"]["dropped"] == ["Chat_1_Ana_Bo q1 D9:9 (no such turn)"]
    raw = out["results"]["raw"]
    assert set(raw) == {"bm25", "keyword", "default"}
    assert raw["keyword"]["cat1"]["R@10"] == 1.0 and raw["default"]["overall"]["n"] == 3
    text = results.read_text()
    assert "<!-- realtalk:start -->" in text and "Command: `engram bench realtalk" in text
    assert "temporal (n=1)" in text


def test_the_capture_probes_are_well_formed_and_scored():
    """Each label's words are the message's own (so a faithful memory can hold them), and
    the scorer counts every probe once per place."""
    from benchmarks import capture_probes

    rules = capture_probes._load("user_rules.jsonl")
    wrapups = capture_probes._load("wrapups.jsonl")
    assert len(rules) >= 200 and len(wrapups) >= 60
    for probe in rules:
        assert probe["label"] in ("constraint", "preference", "none"), probe["id"]
        for group in probe["match"]:
            assert group[0].lower() in probe["text"].lower(), probe["id"]
    for probe in wrapups:
        for item in [*probe["todos"], *probe["open_questions"]]:
            assert any(g[0].lower() in probe["text"].lower() for g in item["match"]), probe["id"]
    some = [p for p in rules if p["lang"] == "de"][:12]
    table = capture_probes.score_rules(some, details=False)
    first = table["de, first"]
    assert first["rules"] + first["none"] == len(some) == sum(table["de, later"][k]
                                                              for k in ("rules", "none"))
    assert first["found"] <= first["rules"] and first["false alarm"] <= first["none"]


def test_the_attempt_and_pre_edit_probes_are_scored_once_each_in_their_place():
    """Every probe of the third set lands in one row of its language, in the place its
    label names, and a told attempt is counted found only when a memory holds its words."""
    from benchmarks import capture_probes

    folder = capture_probes.PROBES / "third"
    attempts = capture_probes._load("attempts.jsonl", folder)
    assert {p["place"] for p in attempts} == {"after_failure", "wrap_up", "user_reply"}
    some = [p for p in attempts if p["lang"] == "en"]
    table = capture_probes.score_attempts(some, details=False)
    row = table["en"]
    assert row["attempts"] + row["none"] == len(some)
    assert row["found"] <= row["stored"] <= row["attempts"]
    assert row["false alarm"] <= row["none"]
    decisions = capture_probes.score_pre_edit(
        [p for p in capture_probes._load("pre_edit.jsonl") if p["lang"] == "fr"], False)
    assert decisions["fr"]["decisions"] + decisions["fr"]["none"] == 25


def test_the_unlabelled_pool_replays_mirrored_sessions_but_not_the_corpus(tmp_path):
    """`benchmarks.capture_pool` finds transcripts committed in git mirrors, leaves out the
    corpus's own sessions (matched by session id), and counts what capture stores."""
    import subprocess

    from click.testing import CliRunner

    from benchmarks import capture_pool

    corpus = capture_pool.CORPUS / "written" / "django-reports-compact-en.jsonl"
    text = corpus.read_text()
    session_id = next(entry["sessionId"] for entry in map(json.loads, text.splitlines())
                      if entry.get("sessionId"))
    work = tmp_path / "work"
    (work / "sessions").mkdir(parents=True)
    (work / "sessions" / "ours.jsonl").write_text(text)
    (work / "sessions" / "theirs.jsonl").write_text(text.replace(session_id, "other-session"))
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "."], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "sessions"], check=True)
    mirror = tmp_path / "mirrors" / "acme+demo" / "repo"
    subprocess.run(["git", "clone", "-q", "--mirror", str(work), str(mirror)], check=True)
    out = tmp_path / "pool.txt"
    result = CliRunner().invoke(capture_pool.main,
                                ["--mirrors", str(tmp_path / "mirrors"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("1 sessions, ")
    assert "| verified_command/hook |" in result.output
    assert "theirs.jsonl" in out.read_text() and "ours.jsonl" not in out.read_text()
