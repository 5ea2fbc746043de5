"""Ranking metrics over binary relevance, and the small statistics the tables print."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

KS = (1, 5, 10)


def recall_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Fraction of evidence items whose memory is in the top k.

    `evidence` holds one memory id per evidence turn (two turns merged by dedup map to
    the same memory), so each turn counts once, as in the LoCoMo reference figures.
    """
    if not evidence:
        return 0.0
    top = set(ranked[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def reciprocal_rank(ranked: Sequence[str], relevant: set[str]) -> float:
    for i, memory_id in enumerate(ranked):
        if memory_id in relevant:
            return 1.0 / (i + 1)
    return 0.0


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, m in enumerate(ranked[:k]) if m in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


@dataclass
class Scores:
    """Running means of every metric for one (system, label set, category) cell."""

    n: int = 0
    sums: dict[str, float] = field(default_factory=dict)

    def add(self, ranked: Sequence[str], evidence: Sequence[str]) -> None:
        relevant = set(evidence)
        values = {f"R@{k}": recall_at(ranked, evidence, k) for k in KS}
        values["MRR"] = reciprocal_rank(ranked, relevant)
        values["nDCG@10"] = ndcg_at(ranked, relevant, 10)
        self.n += 1
        for name, value in values.items():
            self.sums[name] = self.sums.get(name, 0.0) + value

    def mean(self, name: str) -> float:
        return self.sums.get(name, 0.0) / self.n if self.n else 0.0

    def as_dict(self) -> dict[str, float]:
        return {name: round(self.mean(name), 4) for name in METRICS} | {"n": self.n}


METRICS = ("R@1", "R@5", "R@10", "MRR", "nDCG@10")


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); no numpy needed."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def load_average() -> float | None:
    """The 1-minute load average, printed beside every timing (None where the OS has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None
