"""Hybrid search: keyword pool + vector pool, fused, filtered, re-ranked.

Lives apart from the service so that the retrieval pipeline reads top to bottom in one
place; the service only validates arguments and hands over the store and embedder.
"""

from __future__ import annotations

import contextvars
import heapq
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from . import ranking
from .model import Memory, to_iso
from .store.base import Candidate, Filters, Store
from .temporal import parse_temporal
from .text import query_terms
from .text.intent import asked_types, asks_about_questions, asks_when

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from .embedders import Embedder


@dataclass(frozen=True)
class SearchResult:
    memory: Memory
    score: float
    signals: dict[str, Any]

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"score": round(self.score, 6), "memory": self.memory.to_dict()}
        if explain:
            data["signals"] = self.signals
        return data


@dataclass(frozen=True)
class SearchResponse:
    query: str
    results: list[SearchResult]
    mode: str  # "hybrid", "keyword", "vector" or "recent" (no usable terms)
    since: datetime | None = None
    until: datetime | None = None
    temporal_phrase: str | None = None
    elapsed_ms: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: Results left out by the relevance floor (`min_score=0` shows them).
    cut: int = 0

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        return {
            "query": self.query,
            "mode": self.mode,
            "since": to_iso(self.since),
            "until": to_iso(self.until),
            "temporal_phrase": self.temporal_phrase,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "notes": self.notes,
            "cut": self.cut,
            "results": [r.to_dict(explain) for r in self.results],
        }


def _tighter(a: datetime | None, b: datetime | None, pick: Any) -> datetime | None:
    if a is None:
        return b
    if b is None:
        return a
    return pick(a, b)


def search(
    store: Store,
    embedder: Embedder | None,
    query: str,
    filters: Filters,
    *,
    k: int,
    now: datetime,
    files: Sequence[str] = (),
    weights: ranking.Weights = ranking.DEFAULT_WEIGHTS,
    parse_time: bool = True,
    pools: str = "hybrid",
    rerank: bool = True,
    min_score: float | None = None,
) -> SearchResponse:
    """`pools` ("hybrid", "keyword", "vector") and `rerank` exist for ablations.

    `min_score` replaces the relevance floor (`weights.relevance_floor` x the best
    score) with an absolute one: 0 returns every result up to k.
    """
    started = time.perf_counter()
    notes: list[str] = []
    phrase = None
    text = query
    timed = filters
    if parse_time:
        temporal = parse_temporal(query, now)
        if temporal.phrase:
            phrase, text = temporal.phrase, temporal.query
            timed = replace(
                filters,
                since=_tighter(filters.since, temporal.since, max),
                until=_tighter(filters.until, temporal.until, min),
            )
    def embed(words: str) -> Callable[[], Any] | None:
        """The query's embedding, computed when `_rank` asks (after it has started the
        keyword half, if that runs beside), or None: no vector pool."""
        if embedder is None or not words.strip() or pools == "keyword":
            return None
        return lambda: embedder.embed_query(words)

    rest = (k, now, files, weights, pools, rerank)
    widened, period_end = told_after(timed, filters, weights)
    scale = float(getattr(embedder, "cosine_scale", 1.0))
    mode, results = _rank(store, embed(text), text, *rest, widened, period_end, scale=scale)
    if phrase and not any(period_end is None or r.memory.when < period_end for r in results):
        # "never deploy on Friday" reads like a date; a phrase that filters out everything
        # was more likely part of the question than a date range: search all of it. (What
        # was recorded after the period only counts once the period itself holds a match.)
        mode_all, everywhere = _rank(store, embed(query), query, *rest, filters, scale=scale)
        if everywhere:
            mode, results = mode_all, everywhere
            notes.append(f"nothing in the period “{phrase}”; showing matches from any time")
            phrase, timed = None, filters
    if not results and text.strip():
        notes.append("nothing matched")
    results, cut = relevance_floor(results, mode, weights, min_score)
    return SearchResponse(
        query, results, mode, timed.since, timed.until, phrase,
        (time.perf_counter() - started) * 1000, notes, cut,
    )


def told_after(
    timed: Filters, asked: Filters, weights: ranking.Weights
) -> tuple[Filters, datetime | None]:
    """The filter a period parsed from the query searches with, and the period's end.

    An event is often recorded after it happened ("we shipped it yesterday", a message
    sent past midnight about the evening), so a period from the query also admits
    memories dated up to `weights.told_after_days` after it ends; `_rerank` multiplies
    those by `weights.told_after`. An end the caller set (`until=`) is never passed.
    """
    end = timed.until
    if end is None or end == asked.until or weights.told_after_days <= 0:
        return timed, None
    later = end + timedelta(days=weights.told_after_days)
    if asked.until is not None:
        later = min(later, asked.until)
    return replace(timed, until=later), end


def relevance_floor(
    results: list[SearchResult], mode: str, weights: ranking.Weights, min_score: float | None
) -> tuple[list[SearchResult], int]:
    """The results worth showing, and how many were cut.

    A search returns what is relevant, not always k results: once the best result is
    clearly about the query, one scoring a small share of it is noise an agent would
    spend context on. The cut is relative (`weights.relevance_floor` of the best score),
    so it needs no calibration across queries; `min_score` sets an absolute floor
    instead, and 0 keeps everything (the diversity penalty can take a near-duplicate's
    score below 0). Newest-first listings ("recent", no query terms) have no scores to
    cut by.
    """
    if not results or mode == "recent" or (min_score is not None and min_score <= 0):
        return results, 0
    bar = weights.relevance_floor * results[0].score if min_score is None else min_score
    kept = [r for r in results if r.score >= bar]
    return kept, len(results) - len(kept)


def _rank(
    store: Store,
    embed: Callable[[], Any] | None,
    text: str,
    k: int,
    now: datetime,
    files: Sequence[str],
    weights: ranking.Weights,
    pools: str,
    rerank: bool,
    filters: Filters,
    period_end: datetime | None = None,
    *,
    scale: float = 1.0,
) -> tuple[str, list[SearchResult]]:
    pool = max(50, 5 * k)
    # Diversity chooses the top k from the best `depth`, and the vector pool holds 5x that
    # many: its cosines are computed for every memory anyway (LoCoMo R@10 +0.002). A
    # keyword pool as deep added 0.001 more and costs a longer FTS5 sort.
    depth = ranking.diversity_depth(k, weights) if rerank and embed is not None else k
    vector_pool = max(pool, 5 * depth)
    groups = query_terms(text)
    wanted = bool(groups) and pools != "vector"
    future = None
    if wanted and embed is not None and (runner := _side_runner(store)) is not None:
        # A large store: the keyword half on the store's thread while this one embeds
        # the query and scores the vectors (all mostly outside the GIL). Same calls,
        # same results.
        with suppress(RuntimeError):  # the executor shut down (interpreter exit): inline
            future = runner.submit(contextvars.copy_context().run, _keyword_pool,
                                   store, groups, filters, pool, weights)
    if future is None:
        keyword, coverage = (_keyword_pool(store, groups, filters, pool, weights)
                             if wanted else ([], None))
    try:
        vector = store.vector_search(embed(), filters, vector_pool) if embed is not None else []
    except BaseException:
        if future is not None:  # wait for the keyword half; its own error is not the one told
            with suppress(BaseException):
                future.result()
        raise
    if future is not None:
        keyword, coverage = future.result()
    if scale != 1.0:  # an embedder whose cosines of one model come out scaled (its docs)
        vector = [Candidate(c.memory_id, c.score * scale) for c in vector]

    if not keyword and not vector:
        if text.strip() and groups:
            return "recent", []
        memories = store.list(filters, limit=k)
        return "recent", [
            SearchResult(m, 0.0, {"reason": "no query terms: newest first"}) for m in memories
        ]

    mode = "hybrid" if keyword and vector else ("keyword" if keyword else "vector")
    fused = ranking.fuse(keyword, vector, weights, (pool, vector_pool), coverage)
    ranked = _rerank(store, fused, depth, now, files, weights, rerank, filters,
                     asked_types(text), period_end, asks_about_questions(text),
                     asks_when(text))
    if depth > k:
        ranked = _diversify(store, ranked, k, weights)
    # Signals only for what is returned: rounding ~100 candidates' signals cost ~10% of a search.
    return mode, [
        SearchResult(memory, score, _signals(item, factors))
        for score, _id, memory, item, factors in ranked
    ]


def _side_runner(store: Store) -> Executor | None:
    """The store's thread for the keyword half, if it has one worth using now."""
    side = getattr(store, "side_runner", None)
    return side() if side is not None else None


def _keyword_pool(
    store: Store, groups: list[tuple[str, ...]], filters: Filters, pool: int,
    weights: ranking.Weights,
) -> tuple[list[Candidate], dict[str, float] | None]:
    """The keyword candidates (AND, then OR if AND finds too few) with their term
    evidence, and each one's query coverage (None for a one-group query)."""
    with _one_reading(store):
        keyword = store.keyword_search(groups, "and", filters, pool)
        if len(keyword) < pool and len(groups) > 1:
            seen = {c.memory_id for c in keyword}
            extra = store.keyword_search(groups, "or", filters, pool)
            keyword += [c for c in extra if c.memory_id not in seen]
            keyword.sort(key=lambda c: -c.score)
        coverage = None
        if keyword and len(groups) > 1:
            # One indexed query for the pool's terms: ~0.5 ms for 50 candidates at 10K.
            terms = store.terms_of([c.memory_id for c in keyword])
            matches = ranking.match_query(groups, terms)
            keyword = ranking.term_evidence(keyword, groups, terms, weights, matches)
            coverage = _coverage(store, groups, matches)
    return keyword, coverage


def _one_reading(store: Store) -> AbstractContextManager[Any]:
    """The store's scope for reading the corpus statistics (documents, each term's
    frequency) once for the whole keyword pool, if it has one: the AND search, the OR
    search and the coverage weights all ask for the same terms' counts."""
    scope = getattr(store, "one_reading", None)
    return scope() if scope is not None else nullcontext()


def _coverage(
    store: Store, groups: list[tuple[str, ...]], matches: ranking.Matches
) -> dict[str, float]:
    """Each keyword candidate's IDF-weighted share of the query (ranking.query_coverage).

    The document frequencies come from the whole store, the same counts on every
    engine, so the share means the same thing whatever else the pool holds.
    """
    alternatives = list(dict.fromkeys(alt for group in groups for alt in group if alt.strip()))
    documents, frequency = store.document_frequency(alternatives)
    weights_of_groups = ranking.group_idf(groups, max(documents, 1), frequency)
    return {
        memory_id: ranking.query_coverage(matched, weights_of_groups)
        for memory_id, (matched, _pairs) in matches.items()
    }


_Ranked = tuple[float, str, Memory, ranking.Fused, dict[str, float]]
#: Candidates loaded per round trip after the first k: small enough to stop near the
#: bound, large enough that the extra queries cost less than the rows they save.
_LOAD_STEP = 8


def _rerank(
    store: Store, fused: dict[str, ranking.Fused], k: int, now: datetime,
    files: Sequence[str], weights: ranking.Weights, rerank: bool, filters: Filters,
    asked: frozenset[str] = frozenset(), period_end: datetime | None = None,
    questions_wanted: bool = False, when_asked: bool = False,
) -> list[_Ranked]:
    """The top k after re-ranking, loading candidates best relevance first, only as needed.

    Exact, not a heuristic: the re-ranking factors are bounded (ranking.factor_ceiling), so
    once a candidate's relevance times the largest possible product is below the k-th
    best score found so far, neither it nor anything after it can reach the top k.
    Loading every fused candidate was a third of a warm search at 10K memories; a fixed
    bound against the k-th relevance still loaded 42 (median) of them, this loads 26.
    """
    high = (
        ranking.factor_ceiling(weights, project=filters.project is not None, files=bool(files),
                               asked=bool(asked))
        if rerank else 1.0
    )
    order = sorted(fused.items(), key=lambda pair: (-pair[1].relevance, pair[0]))
    ranked: list[_Ranked] = []
    best: list[float] = []  # min-heap of the k best scores so far
    start = 0
    while start < len(order):
        # The margin covers float rounding between factor_ceiling's product and combine's.
        if len(best) == k and order[start][1].relevance * high * (1 + 1e-9) < best[0]:
            break
        batch = order[start : start + (k + _LOAD_STEP if start == 0 else _LOAD_STEP)]
        start += len(batch)
        memories = store.get_many([memory_id for memory_id, _item in batch])
        for memory_id, item in batch:
            memory = memories.get(memory_id)
            if memory is None:  # deleted by another process meanwhile
                continue
            factors = ranking.rerank_factors(memory, now, filters.project, files, weights,
                                             asked, questions_wanted, when_asked)
            score = item.relevance * (ranking.combine(factors) if rerank else 1.0)
            if period_end is not None and memory.when >= period_end:
                # Recorded after the period asked about: it may tell of it (told_after).
                factors["told_after"] = weights.told_after
                score *= weights.told_after
            ranked.append((score, memory_id, memory, item, factors))
            if len(best) < k:
                heapq.heappush(best, score)
            elif score > best[0]:
                heapq.heapreplace(best, score)
    ranked.sort(key=lambda r: (-r[0], r[1]))
    return ranked[:k]


def _diversify(
    store: Store, ranked: list[_Ranked], k: int, weights: ranking.Weights
) -> list[_Ranked]:
    """The k of `ranked` that ranking.diversify keeps, with their penalised scores."""
    import numpy as np

    if len(ranked) <= 1:
        return ranked[:k]
    stored = store.vectors_of([memory_id for _s, memory_id, *_rest in ranked])
    if not stored:
        return ranked[:k]
    vectors = np.zeros((len(ranked), len(next(iter(stored.values())))), dtype=np.float32)
    for row, (_s, memory_id, *_rest) in enumerate(ranked):
        vector = stored.get(memory_id)
        if vector is not None:  # else a zero row: never redundant
            vectors[row] = vector
    chosen = ranking.diversify([r[0] for r in ranked], vectors, k, weights)
    return [
        (score, ranked[i][1], ranked[i][2], ranked[i][3], {**ranked[i][4], "redundancy": overlap})
        for i, score, overlap in chosen
    ]


#: What `--explain` calls each signal: no name a memory's own field has ("confidence",
#: "importance", "type", "project", "files", "pinned"), so a factor of 0.95 is never
#: read as the memory's confidence.
FACTOR_SUFFIX = "_factor"


def _signals(item: ranking.Fused, factors: dict[str, float]) -> dict[str, Any]:
    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 4)

    return {
        "relevance": round(item.relevance, 4),
        "keyword_evidence": round(item.keyword, 4),
        "query_coverage": rounded(item.coverage),
        "bm25": rounded(item.bm25),
        "keyword_rank": item.keyword_rank,
        "vector_evidence": round(item.vector, 4),
        "cosine": rounded(item.cosine),
        "vector_rank": item.vector_rank,
        **{
            (name if name == "redundancy" else name + FACTOR_SUFFIX): round(value, 4)
            for name, value in factors.items()
        },
    }
