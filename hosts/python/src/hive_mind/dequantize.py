"""Undoing dynamic quantization: ``MatMulInteger`` back to a float ``MatMul``.

The port of the Rust host's load-time rewrite
(``host/models/src/onnx/dynamic_quant.rs``), so that both hosts run the
same arithmetic on the same weights. onnxruntime's *dynamic* int8
quantization (the form of bge-small-en-v1.5 and of the shipped
cross-encoder) stores each matmul weight as int8 and quantizes the
activations at run time::

    (x_q, x_scale, x_zp) = DynamicQuantizeLinear(x)
    y_i32 = MatMulInteger(x_q, W_q, x_zp, W_zp)
    y     = Mul(Cast<f32>(y_i32), Mul(x_scale, W_scale))

The Rust host cannot run that fast under tract, so it rewrites each triple
into ``y = MatMul(x, W)`` with ``W = (W_q - W_zp) * W_scale`` computed once
at load: the stored weights, f32 activations. Left as shipped, onnxruntime
would round the activations to 8 bits in every layer, and after twelve
layers its bge vectors agree with the Rust host's only to a cosine of about
0.996, below the 0.999 the two hosts promise each other (a mind written by
one is searched by the other). So this host applies the same rewrite before
it hands the model to onnxruntime.

Only the exact pattern above is rewritten, with constant weights, scales and
zero points that are per-tensor or per-output-column; anything else is left
alone, and the nodes and initializers the rewrite leaves unused are pruned.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper


@dataclass
class _Rewrite:
    activation: str
    weight: onnx.TensorProto
    output: str
    replaced: tuple[int, int, int]


def dequantize_dynamic_matmuls(model: onnx.ModelProto) -> int:
    """Rewrite every dynamically quantized matmul of ``model``'s graph into a
    float ``MatMul`` (see the module docs), in place; how many were
    rewritten."""
    graph = model.graph
    rewrites = _find_rewrites(graph)
    if not rewrites:
        return 0
    replaced = {node: which for which, rewrite in enumerate(rewrites) for node in rewrite.replaced}
    emitted: set[int] = set()
    nodes: list[onnx.NodeProto] = []
    for index, node in enumerate(graph.node):
        which = replaced.get(index)
        if which is None:
            nodes.append(node)
            continue
        # The new MatMul goes where the MatMulInteger was (its inputs are all
        # defined by then: the activation precedes its quantization).
        if which not in emitted:
            emitted.add(which)
            rewrite = rewrites[which]
            nodes.append(
                onnx.helper.make_node(
                    "MatMul",
                    [rewrite.activation, rewrite.weight.name],
                    [rewrite.output],
                    name=f"{rewrite.output}__f32_matmul",
                )
            )
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(rewrite.weight for rewrite in rewrites)
    _prune_unused(graph)
    return len(rewrites)


def _find_rewrites(graph: onnx.GraphProto) -> list[_Rewrite]:
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    producer = {output: index for index, node in enumerate(graph.node) for output in node.output}
    consumers: dict[str, list[int]] = defaultdict(list)
    for index, node in enumerate(graph.node):
        for name in node.input:
            consumers[name].append(index)
    graph_outputs = {output.name for output in graph.output}

    def only_consumer(value: str) -> int | None:
        users = consumers.get(value, [])
        return users[0] if len(users) == 1 and value not in graph_outputs else None

    rewrites = []
    for index, node in enumerate(graph.node):
        if node.op_type != "MatMulInteger" or len(node.input) != 4 or len(node.output) != 1:
            continue
        quantize_index = producer.get(node.input[0])
        if quantize_index is None:
            continue
        quantize = graph.node[quantize_index]
        if (
            quantize.op_type != "DynamicQuantizeLinear"
            or len(quantize.output) != 3
            or quantize.output[0] != node.input[0]
            or quantize.output[2] != node.input[2]
        ):
            continue
        weight_q = initializers.get(node.input[1])
        weight_zp = initializers.get(node.input[3])
        cast_index = only_consumer(node.output[0])
        if weight_q is None or weight_zp is None or cast_index is None:
            continue
        cast = graph.node[cast_index]
        to_float = any(a.name == "to" and a.i == onnx.TensorProto.FLOAT for a in cast.attribute)
        if cast.op_type != "Cast" or not to_float or not cast.output:
            continue
        mul_index = only_consumer(cast.output[0])
        if mul_index is None:
            continue
        mul = graph.node[mul_index]
        if mul.op_type != "Mul" or len(mul.input) != 2 or len(mul.output) != 1:
            continue
        scales = next((name for name in mul.input if name != cast.output[0]), None)
        scales_index = producer.get(scales) if scales is not None else None
        if scales_index is None:
            continue
        scales_mul = graph.node[scales_index]
        if (
            scales_mul.op_type != "Mul"
            or len(scales_mul.input) != 2
            or quantize.output[1] not in scales_mul.input
        ):
            continue
        # Mul(x_scale, W_scale), either way round.
        weight_scale_name = next((name for name in scales_mul.input if name != quantize.output[1]), None)
        weight_scale = initializers.get(weight_scale_name) if weight_scale_name else None
        if weight_scale is None:
            continue
        weight = _dequantize(weight_q, weight_zp, weight_scale)
        if weight is None:
            continue
        rewrites.append(_Rewrite(quantize.input[0], weight, mul.output[0], (index, cast_index, mul_index)))
    return rewrites


def _dequantize(q: onnx.TensorProto, zp: onnx.TensorProto, scale: onnx.TensorProto) -> onnx.TensorProto | None:
    """``(q - zp) * scale`` as an f32 initializer named after ``q``, for a 2-D
    int8/uint8 ``q`` with a per-tensor or per-column (last axis) scale and
    zero point."""
    if len(q.dims) != 2 or q.data_type not in (onnx.TensorProto.INT8, onnx.TensorProto.UINT8):
        return None
    if scale.data_type != onnx.TensorProto.FLOAT:
        return None
    values = numpy_helper.to_array(q).astype(np.float32)
    zero_points = numpy_helper.to_array(zp).astype(np.float32).reshape(-1)
    scales = numpy_helper.to_array(scale).astype(np.float32).reshape(-1)
    columns = q.dims[1]
    if zero_points.size not in (1, columns) or scales.size not in (1, columns):
        return None
    real = ((values - zero_points) * scales).astype(np.float32)
    return numpy_helper.from_array(real, name=f"{q.name}__dequantized")


def _prune_unused(graph: onnx.GraphProto) -> None:
    """Drop nodes none of whose outputs is used (repeatedly), and
    initializers and value infos nothing reads any more."""
    outputs = {output.name for output in graph.output}
    while True:
        used = {name for node in graph.node for name in node.input}
        keep = [node for node in graph.node if any(o in used or o in outputs for o in node.output)]
        if len(keep) == len(graph.node):
            break
        del graph.node[:]
        graph.node.extend(keep)
    used = {name for node in graph.node for name in node.input} | outputs
    kept = [tensor for tensor in graph.initializer if tensor.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    infos = [info for info in graph.value_info if info.name in used]
    del graph.value_info[:]
    graph.value_info.extend(infos)


def dequantized_model_bytes(model_bytes: bytes) -> bytes:
    """The model with its dynamically quantized matmuls rewritten, as bytes
    for onnxruntime; the bytes as given when there is nothing to rewrite."""
    if b"MatMulInteger" not in model_bytes:
        return model_bytes
    model = onnx.load_from_string(model_bytes)
    if dequantize_dynamic_matmuls(model) == 0:
        return model_bytes
    return model.SerializeToString()
