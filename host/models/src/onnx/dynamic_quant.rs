//! # Undoing dynamic quantization: `MatMulInteger` back to a float `MatMul`
//!
//! onnxruntime's *dynamic* int8 quantization (the form of the shipped
//! cross-encoder and of bge-small) stores each matmul weight as int8 and, at
//! run time, quantizes the activations too:
//!
//! ```text
//! (x_q, x_scale, x_zp) = DynamicQuantizeLinear(x)
//! y_i32 = MatMulInteger(x_q, W_q, x_zp, W_zp)
//! y     = Mul(Cast<f32>(y_i32), Mul(x_scale, W_scale))
//! ```
//!
//! onnxruntime has int8 kernels for this. tract runs `MatMulInteger` through
//! a generic integer path with the shapes only known at run time, and the
//! activation quantization is a full pass over every activation per layer:
//! measured on this project's 2-core machine, the 12-layer cross-encoder
//! took over four seconds per short query/passage pair, against about 10 ms
//! for onnxruntime. And int8 buys nothing here: the machine's AVX2 cores have
//! no VNNI, so an int8 dot product is not faster than an f32 one.
//!
//! So [`dequantize_dynamic_matmuls`] rewrites each such triple into
//! `y = MatMul(x, W)` with `W = (W_q − W_zp) · W_scale` computed once at
//! load, an f32 initializer tract folds and packs like any other weight. The
//! stored weights are the same numbers; only the activations are no longer
//! rounded to 8 bits, so the result is, if anything, closer to the original
//! f32 model than onnxruntime's. The weights take four times the memory
//! (the 33 MB cross-encoder's matmuls become ~130 MB of f32), the price of
//! running them at f32 speed.
//!
//! Only the exact pattern above is rewritten, with constant weights, scales
//! and zero points whose shapes are per-tensor or per-output-column; anything
//! else is left alone, and the nodes it leaves unused are pruned.

use std::collections::{HashMap, HashSet};

use tract_onnx::pb::{GraphProto, NodeProto, TensorProto, tensor_proto::DataType};

/// One `MatMulInteger` to replace, with everything it needs.
struct Rewrite {
    /// The float activation: `DynamicQuantizeLinear`'s input.
    activation: String,
    /// The dequantized weight's new initializer.
    weight: TensorProto,
    /// The final `Mul`'s output: what the new `MatMul` produces.
    output: String,
    /// Nodes replaced: the `MatMulInteger`, its `Cast` and the scaling `Mul`.
    replaced: [usize; 3],
}

/// Rewrite every dynamically quantized matmul of `graph` into a float
/// `MatMul` (see the module docs). Returns how many were rewritten.
pub fn dequantize_dynamic_matmuls(graph: &mut GraphProto) -> usize {
    let rewrites = find_rewrites(graph);
    if rewrites.is_empty() {
        return 0;
    }
    let count = rewrites.len();
    let replaced: HashMap<usize, usize> = rewrites
        .iter()
        .enumerate()
        .flat_map(|(which, rewrite)| rewrite.replaced.iter().map(move |&node| (node, which)))
        .collect();
    let mut emitted: HashSet<usize> = HashSet::new();
    let mut nodes = Vec::with_capacity(graph.node.len());
    for (index, node) in std::mem::take(&mut graph.node).into_iter().enumerate() {
        let Some(&which) = replaced.get(&index) else {
            nodes.push(node);
            continue;
        };
        // The new MatMul goes where the MatMulInteger was (its inputs are
        // all defined by then: the activation precedes its quantization).
        if emitted.insert(which) {
            let rewrite = &rewrites[which];
            nodes.push(NodeProto {
                name: format!("{}__f32_matmul", rewrite.output),
                op_type: "MatMul".to_string(),
                input: vec![rewrite.activation.clone(), rewrite.weight.name.clone()],
                output: vec![rewrite.output.clone()],
                ..NodeProto::default()
            });
        }
    }
    graph.node = nodes;
    graph
        .initializer
        .extend(rewrites.into_iter().map(|rewrite| rewrite.weight));
    prune_unused(graph);
    count
}

fn find_rewrites(graph: &GraphProto) -> Vec<Rewrite> {
    let initializers: HashMap<&str, &TensorProto> = graph
        .initializer
        .iter()
        .map(|tensor| (tensor.name.as_str(), tensor))
        .collect();
    let producer: HashMap<&str, usize> = graph
        .node
        .iter()
        .enumerate()
        .flat_map(|(index, node)| node.output.iter().map(move |o| (o.as_str(), index)))
        .collect();
    let mut consumers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, node) in graph.node.iter().enumerate() {
        for input in &node.input {
            consumers.entry(input.as_str()).or_default().push(index);
        }
    }
    let graph_outputs: HashSet<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
    let only_consumer = |value: &str| -> Option<usize> {
        match consumers.get(value).map(Vec::as_slice) {
            Some([one]) if !graph_outputs.contains(value) => Some(*one),
            _ => None,
        }
    };

    let mut rewrites = Vec::new();
    for (index, node) in graph.node.iter().enumerate() {
        if node.op_type != "MatMulInteger" || node.input.len() != 4 || node.output.len() != 1 {
            continue;
        }
        let found = (|| {
            let quantize = &graph.node[*producer.get(node.input[0].as_str())?];
            if quantize.op_type != "DynamicQuantizeLinear"
                || quantize.output.len() != 3
                || quantize.output[0] != node.input[0]
                || quantize.output[2] != node.input[2]
            {
                return None;
            }
            let weight_q = initializers.get(node.input[1].as_str())?;
            let weight_zp = initializers.get(node.input[3].as_str())?;
            let cast_index = only_consumer(&node.output[0])?;
            let cast = &graph.node[cast_index];
            let to_float = cast
                .attribute
                .iter()
                .any(|a| a.name == "to" && a.i == DataType::Float as i64);
            if cast.op_type != "Cast" || !to_float {
                return None;
            }
            let mul_index = only_consumer(cast.output.first()?)?;
            let mul = &graph.node[mul_index];
            if mul.op_type != "Mul" || mul.input.len() != 2 || mul.output.len() != 1 {
                return None;
            }
            let scales = mul.input.iter().find(|input| **input != cast.output[0])?;
            let scales_mul = &graph.node[*producer.get(scales.as_str())?];
            if scales_mul.op_type != "Mul" || scales_mul.input.len() != 2 {
                return None;
            }
            // Mul(x_scale, W_scale), either way round.
            let weight_scale = scales_mul
                .input
                .iter()
                .find(|input| **input != quantize.output[1])
                .filter(|_| scales_mul.input.contains(&quantize.output[1]))?;
            let weight_scale = initializers.get(weight_scale.as_str())?;
            let weight = dequantize(weight_q, weight_zp, weight_scale)?;
            Some(Rewrite {
                activation: quantize.input.first()?.clone(),
                weight,
                output: mul.output[0].clone(),
                replaced: [index, cast_index, mul_index],
            })
        })();
        rewrites.extend(found);
    }
    rewrites
}

/// `(q − zp) · scale` as an f32 initializer named after `q`, for a 2-D `q`
/// with a per-tensor or per-column (last axis) scale and zero point.
fn dequantize(q: &TensorProto, zp: &TensorProto, scale: &TensorProto) -> Option<TensorProto> {
    let [rows, columns] = q.dims.as_slice() else {
        return None;
    };
    let (rows, columns) = (
        usize::try_from(*rows).ok()?,
        usize::try_from(*columns).ok()?,
    );
    let values = integers(q)?;
    if values.len() != rows.checked_mul(columns)? {
        return None;
    }
    let zero_points = integers(zp)?;
    let scales = floats(scale)?;
    // One zero point and one scale per column, a per-tensor one repeated.
    let per_column = |list: Vec<f32>| match list.len() {
        1 => Some(vec![list.first().copied()?; columns]),
        len if len == columns => Some(list),
        _ => None,
    };
    let (zero_points, scales) = (per_column(zero_points)?, per_column(scales)?);
    if columns == 0 {
        return None;
    }
    // Row by row, column values zipped: no division or lookup per weight
    // (the embedder's and the reranker's weights are read this way at
    // every load).
    let mut dequantized = Vec::with_capacity(values.len() * 4);
    for row in values.chunks_exact(columns) {
        for ((value, zero_point), scale) in row.iter().zip(&zero_points).zip(&scales) {
            dequantized.extend_from_slice(&((value - zero_point) * scale).to_le_bytes());
        }
    }
    Some(TensorProto {
        name: format!("{}__dequantized", q.name),
        dims: q.dims.clone(),
        data_type: DataType::Float as i32,
        raw_data: dequantized,
        ..TensorProto::default()
    })
}

/// An int8/uint8 tensor's values as f32.
fn integers(tensor: &TensorProto) -> Option<Vec<f32>> {
    let signed = tensor.data_type == DataType::Int8 as i32;
    if !signed && tensor.data_type != DataType::Uint8 as i32 {
        return None;
    }
    let as_f32 = |byte: u8| {
        if signed {
            f32::from(i8::from_le_bytes([byte]))
        } else {
            f32::from(byte)
        }
    };
    if !tensor.raw_data.is_empty() {
        return Some(tensor.raw_data.iter().copied().map(as_f32).collect());
    }
    // Small integer types may also be stored one per int32.
    tensor
        .int32_data
        .iter()
        .map(|&value| {
            if signed {
                i8::try_from(value).ok().map(f32::from)
            } else {
                u8::try_from(value).ok().map(f32::from)
            }
        })
        .collect()
}

/// An f32 tensor's values.
fn floats(tensor: &TensorProto) -> Option<Vec<f32>> {
    if tensor.data_type != DataType::Float as i32 {
        return None;
    }
    if !tensor.raw_data.is_empty() {
        let chunks = tensor.raw_data.chunks_exact(4);
        if !chunks.remainder().is_empty() {
            return None;
        }
        return Some(
            chunks
                .map(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
                .collect(),
        );
    }
    Some(tensor.float_data.clone())
}

/// Drop nodes none of whose outputs is used (repeatedly), and initializers
/// nothing reads any more.
fn prune_unused(graph: &mut GraphProto) {
    let outputs: HashSet<String> = graph.output.iter().map(|o| o.name.clone()).collect();
    loop {
        let used: HashSet<&str> = graph
            .node
            .iter()
            .flat_map(|node| node.input.iter().map(String::as_str))
            .collect();
        let before = graph.node.len();
        let keep: Vec<bool> = graph
            .node
            .iter()
            .map(|node| {
                node.output
                    .iter()
                    .any(|o| used.contains(o.as_str()) || outputs.contains(o))
            })
            .collect();
        let mut flags = keep.into_iter();
        graph.node.retain(|_| flags.next().unwrap_or(true));
        if graph.node.len() == before {
            break;
        }
    }
    let used: HashSet<String> = graph
        .node
        .iter()
        .flat_map(|node| node.input.iter().cloned())
        .chain(outputs)
        .collect();
    graph
        .initializer
        .retain(|tensor| used.contains(&tensor.name));
    graph.value_info.retain(|info| used.contains(&info.name));
}

#[cfg(test)]
mod tests {
    use super::*;
    use tract_onnx::pb::{AttributeProto, ValueInfoProto};

    fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
        NodeProto {
            name: format!("{op}:{}", outputs.join(",")),
            op_type: op.to_string(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outputs.iter().map(|s| s.to_string()).collect(),
            ..NodeProto::default()
        }
    }

    fn tensor(name: &str, dims: &[i64], data_type: DataType, raw: Vec<u8>) -> TensorProto {
        TensorProto {
            name: name.to_string(),
            dims: dims.to_vec(),
            data_type: data_type as i32,
            raw_data: raw,
            ..TensorProto::default()
        }
    }

    fn quantized_graph() -> GraphProto {
        let mut cast = node("Cast", &["y_i32"], &["y_f"]);
        cast.attribute.push(AttributeProto {
            name: "to".into(),
            i: DataType::Float as i64,
            ..AttributeProto::default()
        });
        GraphProto {
            node: vec![
                node("DynamicQuantizeLinear", &["x"], &["x_q", "x_s", "x_zp"]),
                node("MatMulInteger", &["x_q", "w_q", "x_zp", "w_zp"], &["y_i32"]),
                cast,
                node("Mul", &["x_s", "w_s"], &["s"]),
                node("Mul", &["y_f", "s"], &["y"]),
            ],
            initializer: vec![
                // [[1, -2], [3, 4]] int8, zero point 1, scale 0.5.
                tensor("w_q", &[2, 2], DataType::Int8, vec![1, 254, 3, 4]),
                tensor("w_zp", &[], DataType::Int8, vec![1]),
                tensor("w_s", &[], DataType::Float, 0.5f32.to_le_bytes().to_vec()),
            ],
            output: vec![ValueInfoProto {
                name: "y".into(),
                ..ValueInfoProto::default()
            }],
            ..GraphProto::default()
        }
    }

    #[test]
    fn the_pattern_becomes_one_float_matmul_with_dequantized_weights() {
        let mut graph = quantized_graph();
        assert_eq!(dequantize_dynamic_matmuls(&mut graph), 1);
        let ops: Vec<&str> = graph.node.iter().map(|n| n.op_type.as_str()).collect();
        assert_eq!(ops, ["MatMul"]);
        assert_eq!(graph.node[0].input[0], "x");
        assert_eq!(graph.node[0].output, ["y"]);
        let weight = &graph.initializer[0];
        assert_eq!(
            graph.initializer.len(),
            1,
            "the int8 initializers are pruned"
        );
        assert_eq!(weight.name, graph.node[0].input[1]);
        assert_eq!(floats(weight), Some(vec![0.0, -1.5, 1.0, 1.5]));
    }

    #[test]
    fn a_scale_and_zero_point_per_column_are_read_per_column() {
        let mut graph = quantized_graph();
        // Zero points [1, 0] and scales [0.5, 2] for the two columns.
        graph.initializer[1] = tensor("w_zp", &[2], DataType::Int8, vec![1, 0]);
        let scales = [0.5f32, 2.0].iter().flat_map(|s| s.to_le_bytes()).collect();
        graph.initializer[2] = tensor("w_s", &[2], DataType::Float, scales);
        assert_eq!(dequantize_dynamic_matmuls(&mut graph), 1);
        assert_eq!(
            floats(&graph.initializer[0]),
            Some(vec![0.0, -4.0, 1.0, 8.0])
        );
    }

    #[test]
    fn anything_else_is_left_alone() {
        // The weight is not a constant: nothing to fold.
        let mut graph = quantized_graph();
        graph.initializer.retain(|t| t.name != "w_q");
        assert_eq!(dequantize_dynamic_matmuls(&mut graph), 0);
        assert_eq!(graph.node.len(), 5);
        // The integer product is used elsewhere too.
        let mut graph = quantized_graph();
        graph.node.push(node("Identity", &["y_i32"], &["other"]));
        assert_eq!(dequantize_dynamic_matmuls(&mut graph), 0);
        // A per-row scale is not a per-column one.
        let mut graph = quantized_graph();
        graph.initializer[2] = tensor("w_s", &[3], DataType::Float, vec![0; 12]);
        assert_eq!(dequantize_dynamic_matmuls(&mut graph), 0);
    }
}
