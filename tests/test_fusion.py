"""Fusion that respects evidence strength, the relevance floor, and what `--explain` calls things.

The keyword pool used to be min-max rescaled, so its best match scored 1.0 even when all
it shared with the query was "service" or "use", and at equal weights it outranked the
memory that answers the question (issue 20). These tests pin the rules that replaced it:
keyword evidence is the IDF-weighted share of the query a memory holds, identical on
every engine; a clearly closer meaning wins over a generic shared word; results far
below the best are cut unless asked for; and explain names never read like a memory's
own fields.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from conftest import Clock, run_json

import engram
from engram import ranking, retrieval
from engram.store.base import Candidate

NOW = datetime(2026, 3, 18, 15, 0, tzinfo=UTC)

# The three queries, each against memories that share a generic word with it
# ("service", "use") and one that answers it without sharing any word.
GENERIC_WORD_MEMORIES = {
    "service": "Prefer service classes over fat route handlers",
    "payments": "The payments service retries failed webhooks three times",
    "newsletter": "Newsletter emails to subscribers are sent with Buttondown",
    "leak": "Image resizer leaked memory: Pillow handles were never closed after resizing",
    "search": "Product search is powered by Meilisearch, reindexed on every save",
    "utc": "Use UTC timestamps everywhere in the API",
    "flags": "We use LaunchDarkly feature flags for risky rollouts",
    "ruff": "Use ruff for linting, not flake8",
    "pnpm": "Use pnpm, never npm or yarn, in this monorepo",
    "tailwind": "Styling uses Tailwind; do not add CSS modules",
}
GENERIC_WORD_CASES = [
    ("which service delivers the mailing list", "newsletter"),
    ("the thumbnail service eats more and more RAM over time", "leak"),
    ("what do we use for full-text lookup of the catalog", "search"),
]


@pytest.fixture(scope="module")
def generic(tmp_path_factory, bundled):
    """The real bundled model: the rule is about what it finds closest in meaning."""
    mem = engram.open(tmp_path_factory.mktemp("fusion") / "memory.db", embedder=bundled,
                      clock=Clock(NOW))
    ids = {key: mem.save(text, project="shop", event_at=NOW - timedelta(days=10)).memory.id
           for key, text in GENERIC_WORD_MEMORIES.items()}
    yield mem, ids
    mem.close()


@pytest.mark.parametrize(("query", "expected"), GENERIC_WORD_CASES)
def test_closest_meaning_is_not_displaced_by_a_shared_generic_word(generic, query, expected):
    mem, ids = generic
    results = mem.search(query, k=5).results
    names = {v: k for k, v in ids.items()}
    assert results[0].memory.id == ids[expected], [names[r.memory.id] for r in results]
    # Every memory that matched only a generic word holds a small share of the query.
    for r in results:
        coverage = r.signals["query_coverage"]
        if coverage is not None:
            assert coverage < 0.35, (names[r.memory.id], coverage)


# --- keyword evidence: absolute, not a place in the pool ------------------------------


def test_idf_and_coverage_weigh_rare_words_more():
    assert ranking.idf(100, 0) > ranking.idf(100, 5) > ranking.idf(100, 90) > 0
    weights = ranking.group_idf([("servic", "service"), ("newslett",)], 100,
                                {"servic": 10, "service": 12, "newslett": 1})
    assert weights == [pytest.approx(ranking.idf(100, 12)), pytest.approx(ranking.idf(100, 1))]
    generic = ranking.query_coverage({0}, weights)
    rare = ranking.query_coverage({1}, weights)
    assert generic < 0.4 < rare and generic + rare == pytest.approx(1.0)
    assert ranking.query_coverage(set(), weights) == 0.0


def test_a_lone_generic_match_is_weak_keyword_evidence_whatever_its_pool_rank():
    """Min-max gave the pool's best 1.0; now its evidence is its share of the query."""
    alone = ranking.fuse([Candidate("generic", 3.3)], [], coverage={"generic": 0.15})
    assert alone["generic"].keyword == pytest.approx(0.15)
    full = ranking.fuse([Candidate("all", 2.0), Candidate("generic", 3.3)], [],
                        coverage={"all": 1.0, "generic": 0.15})
    assert full["all"].keyword > 0.75 > 0.15 >= full["generic"].keyword
    assert full["all"].relevance > full["generic"].relevance


def test_coverage_is_the_same_on_every_engine(any_mem):
    """The share comes from document frequencies over the whole store, counted alike."""
    for i in range(9):
        any_mem.save(f"The {i}th service restarts nightly")
    target = any_mem.save("Newsletter goes out on Fridays").memory.id
    generic = any_mem.save("Prefer service classes").memory.id
    found = {r.memory.id: r.signals for r in
             any_mem.search("service newsletter", k=20, pools="keyword", min_score=0).results}
    service, newsletter = ranking.idf(11, 10), ranking.idf(11, 1)
    assert found[generic]["query_coverage"] == pytest.approx(
        service / (service + newsletter), abs=1e-4)
    assert found[target]["query_coverage"] == pytest.approx(
        newsletter / (service + newsletter), abs=1e-4)
    assert next(iter(found)) == target  # the rare word outweighs the common one


# --- the relevance floor ----------------------------------------------------------------


def _result(score: float) -> retrieval.SearchResult:
    return retrieval.SearchResult(engram.Memory(id="x", content="x"), score, {})


def test_floor_cuts_results_far_below_the_best():
    results = [_result(s) for s in (0.9, 0.5, 0.19, 0.05)]
    weights = ranking.Weights(relevance_floor=0.2)
    kept, cut = retrieval.relevance_floor(results, "hybrid", weights, None)
    assert [r.score for r in kept] == [0.9, 0.5, 0.19] and cut == 1  # 0.19 >= 0.18
    every, none_cut = retrieval.relevance_floor(results, "hybrid", weights, 0.0)
    assert len(every) == 4 and none_cut == 0
    absolute, _ = retrieval.relevance_floor(results, "hybrid", weights, 0.5)
    assert [r.score for r in absolute] == [0.9, 0.5]
    newest, _ = retrieval.relevance_floor([_result(0.0)] * 3, "recent", weights, None)
    assert len(newest) == 3  # a listing without query terms has no scores to cut by


def test_search_cuts_the_tail_and_min_score_shows_it(any_mem):
    target = any_mem.save("ECONNREFUSED on port 5432 means Postgres is not up yet").memory.id
    for i in range(8):
        any_mem.save(f"Sprint {i} retro notes: more pairing, fewer meetings")
    default = any_mem.search("ECONNREFUSED 5432", k=10)
    assert default.results[0].memory.id == target
    every = any_mem.search("ECONNREFUSED 5432", k=10, min_score=0)
    assert len(every.results) > len(default.results)
    assert default.cut == len(every.results) - len(default.results)
    assert default.to_dict()["cut"] == default.cut
    with pytest.raises(engram.ValidationError, match="min_score"):
        any_mem.search("x", min_score=-1)


def test_cli_all_and_min_score(cli_env):
    run_json(cli_env, "add", "ECONNREFUSED on port 5432 means Postgres is not up yet")
    for i in range(6):
        run_json(cli_env, "add", f"Sprint {i} retro notes: more pairing, fewer meetings")
    default = run_json(cli_env, "search", "ECONNREFUSED 5432")
    every = run_json(cli_env, "search", "ECONNREFUSED 5432", "--all")
    assert default["cut"] > 0 and len(every["results"]) == len(default["results"]) + default["cut"]
    high = run_json(cli_env, "search", "ECONNREFUSED 5432", "--min-score", "100")
    assert high["results"] == []


# --- explain ----------------------------------------------------------------------------


def test_explain_names_are_not_memory_fields(mem):
    mem.save("Deploys go through GitHub Actions", type="constraint", tags=["ci"])
    result = mem.search("how do deploys run", k=1).results[0]
    fields = set(result.memory.to_dict())
    assert result.signals and not fields & set(result.signals)
    factors = [name for name in result.signals if name.endswith("_factor")]
    assert {"decay_factor", "confidence_factor", "type_factor"} <= set(factors)
    assert math.prod(result.signals[n] for n in factors) * result.signals["relevance"] \
        == pytest.approx(result.score, rel=1e-3)
