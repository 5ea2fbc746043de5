"""Which memories a prompt earns: few, clearly relevant, never the same one twice.

The service's rule for prompt recall (`Engram.recall_for_prompt`); the hooks only render
what it chose.

A search always returns *something*; injecting the top k regardless would put noise in
front of the agent on every turn. A memory is injected only when the evidence says it
is about the prompt, from two independent signals:

- cosine (absolute, from the vector pool). Measured with the bundled all-MiniLM-L6-v2
  on 12 hand-written (memory, prompt that needs it) pairs: relevant pairs score
  0.39-0.79 (median 0.56); the 132 mismatched pairs score at most 0.25 (p95 0.17,
  median 0.02; ranking.Weights.vector_floor = 0.15 for the same reason). So 0.45
  alone is convincing, and 0.30 is supporting evidence that needs keyword agreement.
- keyword evidence: which of the prompt's content terms (stemmed, stop words removed,
  as the index sees them) occur in the memory. BM25 is only comparable within one
  query; these are comparable across queries. Two measures: coverage, the IDF-weighted
  share of the prompt's terms found in the memory, and distinctive hits, matched terms
  that occur in few memories (df <= max(2, 2% of the store): "stripe", "alembic", not
  "check" or "use"). Prompts are wordy and memories short, so coverage alone is low
  even for a good match; two distinctive hits with coverage >= 0.2 are convincing, as
  is coverage >= 0.6 over at least two terms one of which is distinctive ("why does the
  build fail on CI" matches hundreds of memories on "build" and "ci": none is specific),
  or the one rare word of a one-word query.
  These carry the decision alone in the keyword-only fallback (no vectors yet).

Then a relative cut keeps only memories close to the best one (a strong first hit
makes weak seconds noise), at most MAX_MEMORIES and MAX_TOKENS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .ranking import SUMMARY_TYPES

COSINE_STRONG = 0.45
COSINE_SUPPORT = 0.30
COVERAGE_SUPPORT = 0.20
COVERAGE_STRONG = 0.60
RARE_TERM_SHARE = 0.02  # a term in ≤2% of memories (or ≤2 of them) is distinctive
RARE_TERM_MIN_DF = 2
DISTINCTIVE_HITS = 2
RELATIVE_CUT = 0.6
MAX_MEMORIES = 3
MAX_TOKENS = 600
CANDIDATES = 8


@dataclass(frozen=True)
class Recalled:
    memory: Any
    score: float
    why: str


def _term_weights(service: Any, groups: list[tuple[str, ...]]) -> tuple[list[float], list[bool]]:
    """(idf per group, is it distinctive enough to count as evidence on its own)."""
    firsts = [g[0] for g in groups]
    total, df = service.store.document_frequency(firsts)  # kept by the store between writes
    total = max(int(total), 1)
    idf = [math.log(1 + total / (1 + df.get(t, 0))) for t in firsts]
    limit = max(RARE_TERM_MIN_DF, RARE_TERM_SHARE * total)
    return idf, [df.get(t, 0) <= limit for t in firsts]


def _matched(group: tuple[str, ...], terms: set[str]) -> bool:
    return any(all(part in terms for part in alt.split()) for alt in group)


def select(
    service: Any, prompt: str, project: str | None, exclude: set[str] | frozenset[str] = frozenset()
) -> list[Recalled]:
    from .text import query_terms
    from .text.prompt import persons_words

    prompt = persons_words(prompt)
    groups = list({g[0]: g for g in query_terms(prompt)}.values())  # "refund", "refunds"
    if not groups:
        return []
    # Every candidate, unfloored: the evidence rules below decide, and a fact holding two
    # distinctive words can score far below a session summary that repeats the prompt.
    response = service.search(prompt, k=CANDIDATES, project=project, caller="hook", min_score=0)
    if not response.results:
        return []
    weights: list[tuple[list[float], list[bool]]] = []  # computed once, only if needed

    def keyword_evidence(memory: Any) -> tuple[float, int, int]:
        """(coverage, matched terms, distinctive matched terms) of the prompt in a memory."""
        if not weights:
            weights.append(_term_weights(service, groups))
            # The indexed terms, one query.
            for memory_id, text in service.store.terms_of(
                [r.memory.id for r in response.results]
            ).items():
                stored_terms[memory_id] = set(text.split())
        idf, distinctive = weights[0]
        # Gone from the index since the search (another process): no keyword evidence.
        terms = stored_terms.get(memory.id, set())
        hits = [i for i, g in enumerate(groups) if _matched(g, terms)]
        coverage = sum(idf[i] for i in hits) / (sum(idf) or 1.0)
        return coverage, len(hits), sum(1 for i in hits if distinctive[i])

    stored_terms: dict[str, set[str]] = {}
    accepted: list[Recalled] = []
    for result in response.results:  # best first
        facts = [r for r in accepted if r.memory.type not in SUMMARY_TYPES]
        if facts and (len(facts) >= MAX_MEMORIES
                      or result.score < RELATIVE_CUT * facts[0].score):
            break  # the rest would fall to the cuts below anyway
        memory = result.memory
        if memory.id in exclude:
            continue
        cosine = result.signals.get("cosine")
        if cosine is not None and cosine >= COSINE_STRONG:
            accepted.append(Recalled(memory, result.score, f"cosine {cosine:.2f}"))
            continue
        coverage, hits, rare_hits = keyword_evidence(memory)
        if cosine is not None and cosine >= COSINE_SUPPORT and coverage >= COVERAGE_SUPPORT:
            why = f"cosine {cosine:.2f} + keywords {coverage:.2f}"
        elif (
            (rare_hits >= DISTINCTIVE_HITS and coverage >= COVERAGE_SUPPORT)
            or (coverage >= COVERAGE_STRONG and hits >= 2 and rare_hits >= 1)
            or (len(groups) == 1 and rare_hits == 1)
        ):
            why = f"keywords {coverage:.2f} ({rare_hits} distinctive)"
        else:
            continue
        accepted.append(Recalled(memory, result.score, why))
    if not accepted:
        return []
    # A session's summary shares words with most prompts about its project: it is handed
    # over only when no extracted fact answers the prompt, and never ahead of one.
    facts = [r for r in accepted if r.memory.type not in SUMMARY_TYPES]
    if facts:
        accepted = facts
    best = max(r.score for r in accepted)
    accepted = [r for r in accepted if r.score >= RELATIVE_CUT * best]
    return accepted[:MAX_MEMORIES]
