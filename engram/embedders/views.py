"""A labelled memory embedded sentence by sentence, so its label is not diluted.

MiniLM mean-pools its tokens. In "Nate: <five sentences>" the name is one token of
eighty, so a question about Nate barely sees it, and each fact is blurred by the others.
Read with its label ("Nate: <sentence>"), every sentence keeps its subject. A labelled
memory's vector is therefore the mean of the whole text and of each labelled sentence,
weighted by length (in words) so that "Bye Nate!" counts for less than the fact beside
it. The whole text weighs as much as an average sentence.

On LoCoMo (audited, categories 1-4; see benchmarks/RESULTS.md) this lifts vector-only
R@10 from 0.489 to 0.647 and the default search from 0.680 / 0.515 (R@10 / MRR) to
0.715 / 0.562. Unlabelled or one-sentence memories, most coding notes among them (1.3%
of the synthetic ones have a label and several sentences), keep exactly the vector the
model gives them. Queries are embedded as they are.

Only the bundled model is wrapped. It was trained on short texts; a remote model with
a long context reads a long text whole, and would pay for every extra sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engram.embedders.base import Embedder, check_texts

if TYPE_CHECKING:
    import numpy as np

#: A label that opens a memory: one to three words, then a colon and a space
#: ("Nate: ", "Decision: ", "Release notes: "). Not "https://" nor "12:30".
LEAD = re.compile(r"(?:[^\W\d][^\s:.!?]*[ \t]){0,2}[^\W\d][^\s:.!?]*:[ \t]+")
MAX_LEAD = 32
MAX_SENTENCES = 32
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")
#: Part of the wrapped embedder's name: the recipe is part of the vector space.
SUFFIX = "+lead-sentences"


def _label(text: str) -> str | None:
    lead = LEAD.match(text)
    return lead.group(0) if lead is not None and lead.end() <= MAX_LEAD else None


def views(text: str) -> tuple[list[str], list[float]] | None:
    """The texts that make up ``text``'s vector and their weights, or None for the text alone."""
    label = _label(text)
    if label is None:
        return None
    sentences = [s for s in (p.strip() for p in SENTENCE_BREAK.split(text[len(label):])) if s]
    if len(sentences) < 2:
        return None
    # The model reads 256 tokens of the whole text; a long document's first sentences
    # stand for it, so a save costs at most MAX_SENTENCES + 1 runs.
    sentences = sentences[:MAX_SENTENCES]
    weights = [float(len(s.split())) for s in sentences]
    parts = [s if _label(s) else label + s for s in sentences]  # "Outcome: …" keeps its own
    return [text, *parts], [sum(weights) / len(weights), *weights]


class LabelledSentences:
    """An embedder whose memory vectors read each sentence with the memory's label."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name + SUFFIX
        # Stores made by the plain model (or the ones it replaced) re-embed themselves.
        self.previous_names = (*getattr(inner, "previous_names", ()), inner.name)

    @property
    def dim(self) -> int:
        return self.inner.dim

    def __getattr__(self, attribute: str) -> Any:
        if attribute == "inner":  # not set yet (copy, unpickling): no endless recursion
            raise AttributeError(attribute)
        return getattr(self.inner, attribute)  # `loaded`, `threads`, … of the model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        from engram.embedders.base import normalise_rows

        items = check_texts(texts)
        plans = [views(text) for text in items]
        if not any(plans):
            return self.inner.embed(items)
        flat: list[str] = []
        owners: list[int] = []
        weights: list[float] = []
        for i, (text, plan) in enumerate(zip(items, plans, strict=True)):
            parts, part_weights = plan if plan is not None else ([text], [1.0])
            flat += parts
            owners += [i] * len(parts)
            weights += part_weights
        vectors = self.inner.embed(flat) * np.asarray(weights, dtype=np.float32)[:, None]
        summed = np.zeros((len(items), vectors.shape[1]), dtype=np.float32)
        np.add.at(summed, np.asarray(owners), vectors)
        return normalise_rows(summed)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def __repr__(self) -> str:
        return f"LabelledSentences({self.inner!r})"
