"""Embedders: text → unit vectors for Engram's semantic search.

Pick one with :func:`get_embedder`. The default, ``"bundled"``, runs
all-MiniLM-L6-v2 (int8 ONNX) on this machine with nothing downloaded at run
time; ``"none"`` turns semantic search off (keyword-only); ``"fake"`` is a
deterministic hashing embedder for tests; ``"ollama:<model>"`` and
``"openai:<model>"`` call an embedding service.

Importing this package is cheap on purpose (no numpy, onnxruntime or
tokenizers): the backends are imported by :func:`get_embedder` only when one
is chosen, and the bundled model loads on its first ``embed`` call.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from engram.embedders.base import Embedder, EmbedderError

if TYPE_CHECKING:
    from engram.embedders.views import LabelledSentences

__all__ = ["Embedder", "EmbedderError", "get_embedder", "VALID_SPECS", "ENV_VAR"]

#: Environment variable read when ``get_embedder`` gets no spec.
ENV_VAR = "ENGRAM_EMBEDDER"
#: The spec used when neither the caller nor the environment gives one.
DEFAULT_SPEC = "bundled"
#: Human-readable list of accepted specs, used in error messages.
VALID_SPECS = ("bundled (default), multilingual, use-multilingual, e5-multilingual, none, "
               "fake, ollama:<model>, openai:<model>")

_bundled: LabelledSentences | None = None
_bundled_lock = threading.Lock()
#: One instance per packaged multilingual model and process, like ``_bundled``.
_multilingual: dict[str, Embedder] = {}
_MULTILINGUAL_SPECS = ("multilingual", "use-multilingual", "e5-multilingual")


def _multilingual_embedder(kind: str) -> Embedder:
    """A packaged multilingual model, reading labelled memories sentence by sentence (views)."""
    from engram.embedders import multilingual
    from engram.embedders.views import LabelledSentences

    model: Embedder
    if kind == "multilingual":
        from engram.embedders.bundled import BundledEmbedder

        model = multilingual.EnglishAndMultilingual(
            BundledEmbedder(), multilingual.UniversalSentenceEncoder(spec=kind))
    elif kind == "use-multilingual":
        model = multilingual.UniversalSentenceEncoder()
    else:
        model = multilingual.MultilingualE5Small()
    return LabelledSentences(model)


def get_embedder(spec: str | None = None) -> Embedder | None:
    """Return the embedder named by ``spec``, or ``None`` for keyword-only search.

    ``spec`` comes from the caller, else ``$ENGRAM_EMBEDDER``, else
    ``"bundled"``. Forms:

    - ``bundled``: local all-MiniLM-L6-v2 int8 (384 dims), reading a labelled
      memory sentence by sentence (:mod:`engram.embedders.views`). One shared
      instance per process, because the model costs ~25 MB and ~0.3 s to load.
    - ``multilingual``: MiniLM beside Universal Sentence Encoder multilingual (16
      languages): a query in one language finds memories written in another, and an
      English query ranks English memories as MiniLM does (extra ``multilingual``).
    - ``use-multilingual`` / ``e5-multilingual``: one packaged multilingual model
      alone (16 / ~100 languages; extras ``multilingual`` / ``e5``). See
      :mod:`engram.embedders.multilingual` for how they compare.
    - ``none``: returns ``None``; callers fall back to keyword search.
    - ``fake``: deterministic hashing embedder (``fake-hash-v1``), for tests.
    - ``ollama:<model>``: Ollama's ``/api/embed`` at ``$OLLAMA_HOST`` /
      ``$OLLAMA_BASE_URL`` (default ``http://127.0.0.1:11434``).
    - ``openai:<model>``: an OpenAI-compatible ``/embeddings`` at
      ``$ENGRAM_OPENAI_BASE_URL`` / ``$OPENAI_BASE_URL`` (default
      ``https://api.openai.com/v1``), key from ``$ENGRAM_OPENAI_API_KEY`` /
      ``$OPENAI_API_KEY``.

    Construction never does I/O: a wrong URL, a missing key or a missing model
    surfaces as :class:`EmbedderError` on the first ``embed``.

    Raises:
        ValueError: ``spec`` is not one of the forms above.
    """
    global _bundled

    from_env = False
    if spec is None:
        spec = os.environ.get(ENV_VAR, "").strip()
        from_env = bool(spec)
        spec = spec or DEFAULT_SPEC
    raw = spec
    spec = spec.strip()
    kind, sep, arg = spec.partition(":")
    kind = kind.strip().lower()
    arg = arg.strip()

    if not sep:
        if kind == "bundled":
            with _bundled_lock:
                if _bundled is None:
                    from engram.embedders.bundled import BundledEmbedder
                    from engram.embedders.views import LabelledSentences

                    _bundled = LabelledSentences(BundledEmbedder())
                return _bundled
        if kind in _MULTILINGUAL_SPECS:
            with _bundled_lock:
                if kind not in _multilingual:
                    _multilingual[kind] = _multilingual_embedder(kind)
                return _multilingual[kind]
        if kind == "none":
            return None
        if kind == "fake":
            from engram.embedders.fake import FakeEmbedder

            return FakeEmbedder()
    elif kind in ("ollama", "openai"):
        if not arg:
            example = "nomic-embed-text" if kind == "ollama" else "text-embedding-3-small"
            raise ValueError(
                f"embedder spec {raw!r} names no model; write it as {kind}:<model>, "
                f"e.g. {kind}:{example}; valid forms: {VALID_SPECS}"
            )
        from engram.embedders import remote

        if kind == "ollama":
            return remote.OllamaEmbedder(arg)
        return remote.OpenAIEmbedder(arg)

    source = f" (from ${ENV_VAR})" if from_env else ""
    raise ValueError(f"unknown embedder spec {raw!r}{source}; valid forms: {VALID_SPECS}")
