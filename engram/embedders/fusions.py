"""Rewrites of the converted MiniLM graph into fewer nodes (see :mod:`.convert`).

Why: after the int8 rewrite the weight MatMuls are only ~40% of a run's time;
the rest is per-node overhead and small passes over ``(batch, tokens, 384)``
tensors (313 nodes for a 6-layer model). Three rewrites, 313 -> 85 nodes,
~20% less CPU per text (``python -m engram.embedders.bench --fusions``):
bias folding (:func:`fold_matmul_bias`, bit-exact), GELU (:func:`fuse_gelu`)
and attention (:func:`fuse_attention`) as onnxruntime contrib operators.

The last two compute the same function up to float rounding, but the next
``DynamicQuantizeMatMul`` quantises its input with one scale per run, so a
last-bit change can move many uint8 steps: vectors land at cosine 0.992-1.0
(mean 0.9997) from the unfused graph's, exactly as close to the fp32 model
(mean 0.9933, min 0.979 for both). A vector space of its own, hence
``bundled.MODEL_NAME``.

Measured and left out: ``SkipLayerNormalization`` (residual Add +
LayerNormalization) moved vectors as much and was *slower*: onnxruntime 1.31's
CPU kernel took ~2.0 ms per text for the 12 of them against ~0.4 ms for what
it replaces. That fusion is why the online ``ORT_ENABLE_EXTENDED`` level was
slower for this graph. onnxruntime's offline ``onnxruntime.transformers``
optimiser needs ``sympy``, which Engram does not depend on. Each function here
matches one pattern strictly and leaves anything it does not recognise as it
was; the caller checks that each pattern was found everywhere it should be.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

MS = "com.microsoft"


class Graph:
    """Nodes in topological order, constant tensors, and who produces/reads what.

    Fusions mark matched nodes for removal and put the fused node at the place
    of the last node of its pattern, which keeps the order topological (its
    inputs are produced before the pattern, its outputs read after it).
    """

    def __init__(self, nodes: list[Any], constants: dict[str, np.ndarray], outputs: set[str]):
        self.nodes = list(nodes)
        self.constants = constants
        self.outputs = outputs
        self._index()

    def _index(self) -> None:
        self.producer = {out: node for node in self.nodes for out in node.output}
        self.readers: dict[str, list[Any]] = defaultdict(list)
        for node in self.nodes:
            for name in node.input:
                self.readers[name].append(node)

    def const(self, name: str) -> np.ndarray | None:
        return self.constants.get(name)

    def made_by(self, name: str, op: str) -> Any | None:
        """The node producing ``name`` if it is an ``op``."""
        node = self.producer.get(name)
        return node if node is not None and node.op_type == op else None

    def only_reader(self, name: str, op: str) -> Any | None:
        """The single node reading ``name``, if it is an ``op`` and ``name`` is not an output."""
        readers = self.readers.get(name, [])
        if len(readers) != 1 or name in self.outputs or readers[0].op_type != op:
            return None
        return readers[0]

    def removable(self, old: list[Any], keep: set[str]) -> bool:
        """Whether ``old`` can go: its outputs (but ``keep``) are read only by ``old``
        itself, or by ``Shape`` nodes (shape arithmetic pruned with it)."""
        ids = {id(n) for n in old}
        for node in old:
            for out in node.output:
                if out in keep:
                    continue
                if out in self.outputs or any(
                    id(r) not in ids and r.op_type != "Shape" for r in self.readers.get(out, [])
                ):
                    return False
        return True

    def replace(self, old: list[Any], new: Any) -> bool:
        """Put ``new`` where the last of ``old`` was and drop all of ``old``.

        Refused (``False``, graph unchanged) if anything outside ``old`` reads
        one of its intermediate results, except ``Shape`` nodes (shape
        arithmetic that feeds only the replaced nodes and is pruned after).
        """
        if not self.removable(old, keep=set(new.output)):
            return False
        ids = {id(n) for n in old}
        last = max(i for i, n in enumerate(self.nodes) if id(n) in ids)
        self.nodes[last] = new
        self.nodes = [n for n in self.nodes if id(n) not in ids or n is new]
        self._index()
        return True


def _scalar(g: Graph, name: str) -> float | None:
    value = g.const(name)
    if value is None or value.size != 1:
        return None
    return float(value.reshape(()))


def _attr(node: Any, name: str, default: Any = None) -> Any:
    from onnx import helper

    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def fold_matmul_bias(g: Graph) -> int:
    """``Add(DynamicQuantizeMatMul(x, ...), b)`` → the matmul's own ``bias`` input.

    The kernel adds the bias while writing its output: one pass over the
    activations and one node fewer per weight matrix (36 in MiniLM-L6).
    """
    from onnx import helper

    count = 0
    for node in list(g.nodes):
        if node.op_type != "DynamicQuantizeMatMul" or len(node.input) != 4:
            continue
        add = g.only_reader(node.output[0], "Add")
        if add is None:
            continue
        other = add.input[1] if add.input[0] == node.output[0] else add.input[0]
        bias = g.const(other)
        n_out = g.const(node.input[1]).shape[-1]  # type: ignore[union-attr]
        if bias is None or bias.dtype != np.float32 or bias.shape != (n_out,):
            continue
        fused = helper.make_node(
            "DynamicQuantizeMatMul", [*node.input, other], list(add.output),
            name=f"{node.name}_bias", domain=MS,
        )
        count += g.replace([node, add], fused)
    return count


def fuse_gelu(g: Graph) -> int:
    """``x * 0.5 * (1 + erf(x / √2))`` (5 nodes) → ``com.microsoft.Gelu(x)``.

    The exact (erf) GELU, not the tanh approximation: one pass instead of five
    (~6% less CPU per text). The kernel multiplies by 1/√2 where the graph
    divides by √2, a last-bit difference for some inputs (see module doc).
    """
    from onnx import helper

    count = 0
    for erf in list(g.nodes):
        if erf.op_type != "Erf":
            continue
        div = g.made_by(erf.input[0], "Div")
        add = g.only_reader(erf.output[0], "Add")
        if div is None or add is None or g.only_reader(div.output[0], "Erf") is not erf:
            continue
        x = div.input[0]
        if not np.isclose(_scalar(g, div.input[1]) or 0.0, np.sqrt(2.0), rtol=1e-6):
            continue
        one = add.input[1] if add.input[0] == erf.output[0] else add.input[0]
        half_mul = g.only_reader(add.output[0], "Mul")
        if _scalar(g, one) != 1.0 or half_mul is None:
            continue
        half = half_mul.input[0] if half_mul.input[1] == add.output[0] else half_mul.input[1]
        x_mul = g.only_reader(half_mul.output[0], "Mul")
        if _scalar(g, half) != 0.5 or x_mul is None:
            continue
        if sorted(x_mul.input) != sorted([x, half_mul.output[0]]):
            continue
        fused = helper.make_node("Gelu", [x], list(x_mul.output), name=f"{erf.name}_gelu",
                                 domain=MS)
        count += g.replace([div, erf, add, half_mul, x_mul], fused)
    return count


def fuse_attention(g: Graph, mask_input: str) -> int:
    """Each layer's scaled-dot-product attention (~25 nodes) → ``com.microsoft.MultiHeadAttention``.

    Matched from the projections ``q, k, v`` (``(batch, tokens, hidden)``) to
    the re-merged heads: split heads, ``(q·c)(kᵀ·c)`` with ``c² = 1/√head``,
    plus the padding mask, softmax (with a NaN guard for fully masked rows),
    times ``v``, merge heads. The padding mask is the model's
    ``attention_mask`` input, passed as MHA's ``key_padding_mask`` (int32,
    1 = token, 0 = padding), so batches with padding stay correct. The mask's
    own sub-graph and the shape arithmetic become dead and are pruned.
    ~12% less CPU per text, but it scales ``q·kᵀ`` once by ``c²`` and has its
    own softmax, so results differ in the last bits (see module doc).
    """
    from onnx import TensorProto, helper

    mask32 = f"{mask_input}__int32"
    count = 0
    for softmax in list(g.nodes):
        if softmax.op_type != "Softmax" or _attr(softmax, "axis", -1) != -1:
            continue
        match = _match_attention(g, softmax)
        if match is None or mask_input not in _ancestors(g, match["mask"].input[0]):
            continue
        q, k, v = (match[name][0] for name in ("q_heads", "k_heads", "v_heads"))
        head_size, scale, out, matched = (match[name] for name in ("head", "scale", "out", "all"))
        hidden = _projection_width(g, q)
        if hidden is None or hidden % head_size:
            continue
        fused = helper.make_node(
            "MultiHeadAttention", [q, k, v, "", mask32], [out],
            name=f"{softmax.name}_mha", domain=MS,
            num_heads=hidden // head_size, scale=scale,
        )
        count += g.replace(matched, fused)
    if count:
        cast = helper.make_node("Cast", [mask_input], [mask32], name=f"{mask32}_cast",
                                to=TensorProto.INT32)
        g.nodes.insert(0, cast)
        g._index()
    return count


def _ancestors(g: Graph, name: str) -> set[str]:
    """Every tensor ``name`` is computed from (graph inputs included)."""
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        node = g.producer.get(current)
        if node is not None:
            todo.extend(node.input)
    return seen


def _through_bias(g: Graph, name: str) -> Any | None:
    """The node producing ``name``, looking through a bias ``Add(·, constant)``."""
    node = g.producer.get(name)
    if node is not None and node.op_type == "Add":
        variable = [i for i in node.input if g.const(i) is None]
        if len(variable) == 1:
            return g.producer.get(variable[0])
    return node


def _projection_width(g: Graph, name: str) -> int | None:
    """Output width of the int8 projection producing ``name``."""
    node = _through_bias(g, name)
    node = node if node is not None and node.op_type == "DynamicQuantizeMatMul" else None
    weight = g.const(node.input[1]) if node is not None else None
    return None if weight is None else int(weight.shape[-1])


def _split_heads(g: Graph, name: str) -> tuple[str, int, list[Any]] | None:
    """``Transpose(Reshape(x, [B, S, -1, head]), [0, 2, 1, 3])`` → ``(x, head, nodes)``."""
    tr = g.made_by(name, "Transpose")
    if tr is None or list(_attr(tr, "perm", [])) != [0, 2, 1, 3]:
        return None
    rs = g.made_by(tr.input[0], "Reshape")
    if rs is None or g.only_reader(rs.output[0], "Transpose") is not tr:
        return None
    shape = g.made_by(rs.input[1], "Concat")
    head = g.const(shape.input[-1]) if shape is not None and len(shape.input) == 4 else None
    minus_one = g.const(shape.input[2]) if shape is not None else None
    if head is None or head.size != 1 or minus_one is None or int(minus_one.reshape(())) != -1:
        return None
    return rs.input[0], int(head.reshape(())), [rs, tr]


def _match_attention(g: Graph, softmax: Any) -> dict[str, Any] | None:
    """Walk the torch SDPA export around ``softmax``; ``None`` unless every piece fits.

    Returns its pieces by name, ``"all"`` the matched nodes, ``"out"`` the
    merged heads' name, ``"scale"`` the product of the two scalings.
    """
    add = g.made_by(softmax.input[0], "Add")
    if add is None:
        return None
    scores = g.made_by(add.input[0], "MatMul")
    mask = g.made_by(add.input[1], "Where")
    if scores is None or mask is None:
        return None
    q_mul = g.made_by(scores.input[0], "Mul")
    k_mul = g.made_by(scores.input[1], "Mul")
    if q_mul is None or k_mul is None:
        return None
    c_q, c_k = _scalar(g, q_mul.input[1]), _scalar(g, k_mul.input[1])
    if c_q is None or c_k is None:
        return None
    q_heads = _split_heads(g, q_mul.input[0])
    # kᵀ per head: Reshape(Transpose(Reshape(k_heads, [B*H, S, d]), [0, 2, 1]), [B, H, d, S])
    k_back = g.made_by(k_mul.input[0], "Reshape")
    k_tr = g.made_by(k_back.input[0], "Transpose") if k_back is not None else None
    if k_tr is None or list(_attr(k_tr, "perm", [])) != [0, 2, 1]:
        return None
    k_flat = g.made_by(k_tr.input[0], "Reshape")
    k_heads = _split_heads(g, k_flat.input[0]) if k_flat is not None else None
    # softmax → Where(IsNaN(p), 0, p) → MatMul(·, v_heads) → merge heads
    isnan = next((n for n in g.readers[softmax.output[0]] if n.op_type == "IsNaN"), None)
    guard = g.only_reader(isnan.output[0], "Where") if isnan is not None else None
    if guard is None or len(g.readers[softmax.output[0]]) != 2:
        return None
    if guard.input[2] != softmax.output[0]:
        return None
    if _scalar(g, guard.input[1]) != 0.0:
        return None
    context = g.only_reader(guard.output[0], "MatMul")
    v_heads = _split_heads(g, context.input[1]) if context is not None else None
    merge_tr = g.only_reader(context.output[0], "Transpose") if context is not None else None
    if merge_tr is None or list(_attr(merge_tr, "perm", [])) != [0, 2, 1, 3]:
        return None
    merge = g.only_reader(merge_tr.output[0], "Reshape")
    if q_heads is None or k_heads is None or v_heads is None or merge is None:
        return None
    if not q_heads[1] == k_heads[1] == v_heads[1]:
        return None
    # The mask must be Where(cond, 0, -big) on a condition derived from the padding mask.
    if _scalar(g, mask.input[1]) != 0.0 or (_scalar(g, mask.input[2]) or 0.0) > -1e4:
        return None
    matched = [
        *q_heads[2], *k_heads[2], *v_heads[2], q_mul, k_flat, k_tr, k_back, k_mul, scores, add,
        softmax, isnan, guard, context, merge_tr, merge,
    ]
    return {
        "q_heads": q_heads, "k_heads": k_heads, "v_heads": v_heads, "head": q_heads[1],
        "scale": c_q * c_k, "out": merge.output[0], "all": matched, "mask": mask,
    }


def check_defined(g: Graph, inputs: set[str]) -> str | None:
    """The first node input that nothing defines before it (``None`` if the order is sound)."""
    defined = set(inputs) | set(g.constants) | {""}
    for node in g.nodes:
        for name in node.input:
            if name not in defined:
                return f"{node.op_type} {node.name!r} reads undefined {name!r}"
        defined.update(node.output)
    missing = g.outputs - defined
    return f"graph output {sorted(missing)[0]!r} is not produced" if missing else None


def prune(g: Graph) -> None:
    """Drop nodes whose outputs nothing reads (sub-graphs made dead by a fusion)."""
    while True:
        used = g.outputs | {name for node in g.nodes for name in node.input}
        kept = [n for n in g.nodes if any(out in used for out in n.output)]
        if len(kept) == len(g.nodes):
            return
        g.nodes = kept
        g._index()

