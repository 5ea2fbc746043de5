"""A memory that restates a better result yields its place to one that adds something.

ranking.diversify (maximal marginal relevance over the best 1.5 k) as a pure function,
then through a real store's search, and the store's `vectors_of` it reads from.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram import ranking, retrieval
from engram.store.base import Filters


@pytest.fixture
def mem(any_mem):
    """This module's service tests run on every engine under test (SQLite, PostgreSQL)."""
    return any_mem


NEAR = [0.995, 0.0998]  # cosine 0.995 to [1, 0]


def _unit(rows: list[list[float]]) -> np.ndarray:
    vectors = np.array(rows, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_distinct_result_passes_a_restatement_of_the_best():
    vectors = _unit([[1, 0], NEAR, [0, 1]])
    cosine = float(vectors[1] @ vectors[0])
    chosen = ranking.diversify([1.0, 0.80, 0.78], vectors, k=3)
    assert [i for i, _s, _r in chosen] == [0, 2, 1]
    assert chosen[1][1] == pytest.approx(0.78)  # nothing above it says the same
    assert chosen[2][1] == pytest.approx(0.80 - 0.1 * 1.0 * cosine)
    assert chosen[2][2] == pytest.approx(cosine)


def test_a_clearly_better_near_duplicate_keeps_its_place():
    vectors = _unit([[1, 0], NEAR, [0, 1]])
    chosen = ranking.diversify([1.0, 0.95, 0.6], vectors, k=3)
    assert [i for i, _s, _r in chosen] == [0, 1, 2]


def test_a_memory_without_a_vector_is_never_redundant():
    vectors = np.array([[1, 0], [0, 0], [1, 0]], dtype=np.float32)
    chosen = ranking.diversify([1.0, 0.9, 0.95], vectors, k=3)
    assert [(i, r) for i, _s, r in chosen] == [(0, 0.0), (1, 0.0), (2, 1.0)]


def test_without_diversity_search_looks_no_deeper_than_k():
    assert ranking.diversity_depth(10) == 15
    assert ranking.diversity_depth(1) == 1
    assert ranking.diversity_depth(10, ranking.Weights(diversity=0.0)) == 10


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0.01, 1.0), min_size=1, max_size=15),
    st.integers(1, 12),
    st.integers(0, 2**32 - 1),
)
def test_choices_follow_the_rule_and_scores_fall(raw_scores, k, seed):
    scores = sorted(raw_scores, reverse=True)
    vectors = np.random.default_rng(seed).normal(size=(len(scores), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chosen = ranking.diversify(scores, vectors, k)
    picks = [i for i, _s, _r in chosen]
    assert picks[0] == 0 and len(picks) == min(k, len(scores)) == len(set(picks))
    penalty = ranking.DEFAULT_WEIGHTS.diversity * scores[0]
    for step, (i, score, redundancy) in enumerate(chosen):
        above = picks[:step]
        expected = max((float(vectors[i] @ vectors[j]) for j in above), default=0.0)
        assert redundancy == pytest.approx(max(expected, 0.0), abs=1e-5)
        assert score == pytest.approx(scores[i] - penalty * redundancy, abs=1e-5)
        if step:
            assert score <= chosen[step - 1][1] + 1e-9
            # No result left out scored better under the same rule at this step.
            for j in set(range(len(scores))) - set(picks[: step + 1]):
                rival = max(max(float(vectors[j] @ vectors[a]) for a in above), 0.0)
                assert scores[j] - penalty * rival <= score + 1e-5


# --- through the store ----------------------------------------------------------------

RESTATED = [
    "Staging deploys: run make deploy-staging from the repo root",
    "To deploy staging, run make deploy-staging in the repo root",
    "Run make deploy-staging from the repo root to deploy to staging",
]
DISTINCT = "The staging deploy run needs the VPN up"
QUERY = "run staging deploy"


def test_search_lets_a_memory_that_adds_something_pass_a_third_restatement(mem):
    ids = [mem.save(text).memory.id for text in [*RESTATED, DISTINCT]]
    plain = retrieval.search(
        mem.store, mem.embedder, QUERY, Filters(statuses=("active",)), k=4,
        now=datetime.now(UTC), weights=ranking.Weights(diversity=0.0),
    )
    assert [r.memory.id for r in plain.results] == ids  # three restatements first

    results = mem.search(QUERY, k=4).results
    assert [r.memory.id for r in results] == [ids[0], ids[1], ids[3], ids[2]]
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    assert results[0].signals["redundancy"] == 0.0
    assert results[3].signals["redundancy"] > 0.8 > results[2].signals["redundancy"]


def test_keyword_only_and_unreranked_searches_are_not_diversified(mem):
    for text in [*RESTATED, DISTINCT]:
        mem.save(text)
    for options in ({"pools": "keyword"}, {"rerank": False}):
        results = mem.search(QUERY, k=4, **options).results
        assert all("redundancy" not in r.signals for r in results)


def test_vectors_of_returns_the_stored_vectors(mem):
    ids = [mem.save(text).memory.id for text in RESTATED]
    stored = mem.store.vectors_of([ids[2], "no-such-id", ids[0]])
    assert set(stored) == {ids[0], ids[2]}
    expected = mem.embedder.embed([RESTATED[0], RESTATED[2]])
    assert stored[ids[0]].dtype == np.float32
    np.testing.assert_allclose(stored[ids[0]], expected[0], atol=2e-3)  # float16 on disk
    np.testing.assert_allclose(stored[ids[2]], expected[1], atol=2e-3)
    assert mem.store.vectors_of([]) == {}
    mem.delete(ids[0], hard=True)
    assert set(mem.store.vectors_of(ids)) == {ids[1], ids[2]}
