//! # ONNX models under tract: read, verify, rewrite, plan
//!
//! The in-process embedder and the cross-encoder reranker are both BERT-style
//! ONNX graphs run by [`tract_onnx`], a pure-Rust inference engine. Loading
//! one takes four steps, all here:
//!
//! 1. **Read and verify** ([`read_model_file`]): the file's bytes, checked
//!    against a known SHA-256 when there is one. A missing or wrong file is a
//!    [`ModelError`] that names the file and says how to get the right one.
//! 2. **Decode** the bytes into the ONNX protobuf ([`decode`]).
//! 3. **Rewrite** the graph ([`dequantize_gathered_rows`]). The int8 files
//!    keep each weight as `q` (int8) and `scale` (f32) and dequantize it in
//!    the graph: `Cast(q) → Mul(scale) → W`. For a matmul weight that is
//!    fine; tract folds it once. For an *embedding table* (30,522 × 384
//!    word pieces) followed by `Gather(W, input_ids)`, tract does not fold it
//!    and every call dequantizes the whole table (~28 ms) to read a handful
//!    of rows. The rewrite turns `Gather(Mul(Cast(q), scale), ids)` into
//!    `Mul(Cast(Gather(q, ids)), Gather(scale, ids))`: gather the int8 rows
//!    first, then dequantize only those (gathering the per-row scale along;
//!    a scalar or per-column scale is used as is). Same numbers, a fraction
//!    of the work: one short sentence goes from ~36 ms to single-digit ms.
//!    Dynamically quantized files (`DynamicQuantizeLinear` +
//!    `MatMulInteger`: the cross-encoder, bge-small) get their matmuls turned
//!    back into f32 ones ([`dequantize_dynamic_matmuls`], in
//!    [`dynamic_quant`]), which tract runs hundreds of times faster.
//! 4. **Plan** ([`OnnxPlan::new`]): parse with tract (keeping the file's own
//!    `batch`/`sequence` shape symbols — declaring our own makes tract fail to
//!    unify them), optimise, and make a runnable plan. A plan is immutable
//!    and shared; each `run` gets its own state, so it is `Send + Sync`.

mod dynamic_quant;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use tract_onnx::pb::{self, AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
use tract_onnx::prelude::*;
use tract_onnx::tract_hir::infer::Factoid;
use tract_onnx::tract_hir::internal::DimLike;

pub use dynamic_quant::dequantize_dynamic_matmuls;

/// ONNX `TensorProto.DataType.FLOAT`.
const ONNX_FLOAT: i64 = 1;
/// ONNX `AttributeProto.AttributeType.INT`.
const ATTRIBUTE_INT: i32 = 2;

/// What can go wrong loading a model or tokenizer file.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file is not there.
    #[error("model file {path} is missing. {hint}")]
    Missing {
        /// Where it was looked for.
        path: PathBuf,
        /// How to get it.
        hint: String,
    },
    /// The file exists but could not be read.
    #[error("could not read model file {path}: {source}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not the one expected (corrupt, truncated or another
    /// version).
    #[error(
        "model file {path} is corrupt or not the expected version: sha256 {actual}, expected {expected}. {hint}"
    )]
    Checksum {
        /// The file.
        path: PathBuf,
        /// The SHA-256 it should have.
        expected: String,
        /// The SHA-256 it has.
        actual: String,
        /// How to get the right one.
        hint: String,
    },
    /// The file is not a usable model or tokenizer of the expected layout.
    #[error("model file {path} is not usable: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, from tract, the tokenizer or the layout checks.
        message: String,
    },
}

/// Read a model file, checking its SHA-256 when `expected_sha256` is given.
///
/// `hint` tells the user how to get the file; it ends up in the error.
pub fn read_model_file(
    path: &Path,
    expected_sha256: Option<&str>,
    hint: &str,
) -> Result<Vec<u8>, ModelError> {
    let bytes = std::fs::read(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ModelError::Missing {
                path: path.to_path_buf(),
                hint: hint.to_string(),
            }
        } else {
            ModelError::Unreadable {
                path: path.to_path_buf(),
                source,
            }
        }
    })?;
    if let Some(expected) = expected_sha256 {
        let actual = hex::encode(Sha256::digest(&bytes));
        if !actual.eq_ignore_ascii_case(expected) {
            return Err(ModelError::Checksum {
                path: path.to_path_buf(),
                expected: expected.to_string(),
                actual,
                hint: hint.to_string(),
            });
        }
    }
    Ok(bytes)
}

/// Decode ONNX protobuf bytes read from `path`.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<ModelProto, ModelError> {
    tract_onnx::onnx()
        .proto_model_for_read(&mut &bytes[..])
        .map_err(|error| ModelError::Invalid {
            path: path.to_path_buf(),
            message: format!("not an ONNX model: {error:#}"),
        })
}

/// A weight dequantized in the graph: `Mul(Cast(q), scale)`.
struct Dequantized {
    /// The node index of the `Mul`.
    mul: usize,
    /// The node index of the `Cast`.
    cast: usize,
    /// The int8/uint8 initializer.
    quantized: String,
    /// The f32 scale initializer.
    scale: String,
    /// Gather the scale's rows alongside (a per-row scale); else broadcast
    /// the scale as it is.
    per_row_scale: bool,
}

/// Rewrite every `Gather(axis 0)` of an in-graph dequantized weight so that
/// only the gathered rows are dequantized (see the module docs). Returns how
/// many weights were rewritten; a graph without the pattern is unchanged.
pub fn dequantize_gathered_rows(graph: &mut GraphProto) -> usize {
    let initializers: HashMap<&str, &TensorProto> = graph
        .initializer
        .iter()
        .map(|tensor| (tensor.name.as_str(), tensor))
        .collect();
    let mut consumers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, node) in graph.node.iter().enumerate() {
        for input in &node.input {
            consumers.entry(input.as_str()).or_default().push(index);
        }
    }
    let graph_outputs: HashSet<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
    let producer: HashMap<&str, usize> = graph
        .node
        .iter()
        .enumerate()
        .flat_map(|(index, node)| node.output.iter().map(move |o| (o.as_str(), index)))
        .collect();

    // Find each `W = Mul(Cast(q), scale)` consumed only by axis-0 Gathers.
    let mut rewrites: HashMap<String, Dequantized> = HashMap::new();
    for (mul_index, mul) in graph.node.iter().enumerate() {
        if mul.op_type != "Mul" || mul.input.len() != 2 || mul.output.len() != 1 {
            continue;
        }
        let weight = mul.output[0].as_str();
        let users = consumers.get(weight).map(Vec::as_slice).unwrap_or(&[]);
        if users.is_empty()
            || graph_outputs.contains(weight)
            || !users
                .iter()
                .all(|&user| is_axis0_gather_of(&graph.node[user], weight))
        {
            continue;
        }
        let Some(found) = (0..2).find_map(|side| {
            let cast_index = *producer.get(mul.input[side].as_str())?;
            let cast = &graph.node[cast_index];
            let quantized = initializers.get(cast.input.first()?.as_str())?;
            let scale = initializers.get(mul.input[1 - side].as_str())?;
            let cast_used_once = consumers
                .get(cast.output.first()?.as_str())
                .is_some_and(|users| users.len() == 1);
            let is_int8 = [
                pb::tensor_proto::DataType::Int8,
                pb::tensor_proto::DataType::Uint8,
            ]
            .iter()
            .any(|dt| quantized.data_type == *dt as i32);
            let ok = cast.op_type == "Cast"
                && cast_used_once
                && int_attribute(cast, "to") == Some(ONNX_FLOAT)
                && is_int8
                && scale.data_type == pb::tensor_proto::DataType::Float as i32;
            let per_row_scale = scale_mode(&quantized.dims, &scale.dims)?;
            ok.then(|| Dequantized {
                mul: mul_index,
                cast: cast_index,
                quantized: quantized.name.clone(),
                scale: scale.name.clone(),
                per_row_scale,
            })
        }) else {
            continue;
        };
        rewrites.insert(weight.to_string(), found);
    }
    if rewrites.is_empty() {
        return 0;
    }

    let removed: HashSet<usize> = rewrites.values().flat_map(|d| [d.mul, d.cast]).collect();
    let mut removed_names: HashSet<String> = HashSet::new();
    let mut nodes = Vec::with_capacity(graph.node.len() + rewrites.len() * 2);
    for (index, node) in std::mem::take(&mut graph.node).into_iter().enumerate() {
        if removed.contains(&index) {
            removed_names.extend(node.output.iter().cloned());
            continue;
        }
        let rewrite = (node.op_type == "Gather")
            .then(|| node.input.first().and_then(|w| rewrites.get(w)))
            .flatten();
        let (Some(rewrite), [_, ids], [output]) =
            (rewrite, node.input.as_slice(), node.output.as_slice())
        else {
            nodes.push(node);
            continue;
        };
        let stem = format!("{output}__gathered");
        let rows_q = format!("{stem}_q");
        let rows_f = format!("{stem}_f");
        nodes.push(simple_node(
            &format!("{stem}_gather_q"),
            "Gather",
            &[&rewrite.quantized, ids],
            &rows_q,
            Some(("axis", 0)),
        ));
        nodes.push(simple_node(
            &format!("{stem}_cast"),
            "Cast",
            &[&rows_q],
            &rows_f,
            Some(("to", ONNX_FLOAT)),
        ));
        let scale = if rewrite.per_row_scale {
            let rows_scale = format!("{stem}_scale");
            nodes.push(simple_node(
                &format!("{stem}_gather_scale"),
                "Gather",
                &[&rewrite.scale, ids],
                &rows_scale,
                Some(("axis", 0)),
            ));
            rows_scale
        } else {
            rewrite.scale.clone()
        };
        nodes.push(simple_node(
            &format!("{stem}_mul"),
            "Mul",
            &[&rows_f, &scale],
            output,
            None,
        ));
    }
    graph.node = nodes;
    // Shape hints for values that no longer exist would only confuse tract.
    graph
        .value_info
        .retain(|info| !removed_names.contains(&info.name));
    rewrites.len()
}

/// Whether `node` is `Gather(weight, indices)` on axis 0.
fn is_axis0_gather_of(node: &NodeProto, weight: &str) -> bool {
    node.op_type == "Gather"
        && node.input.len() == 2
        && node.input[0] == weight
        && node.input[1] != weight
        && int_attribute(node, "axis").unwrap_or(0) == 0
}

/// How a scale of shape `scale` applies to gathered rows of a weight of shape
/// `weight`: `Some(true)` per row (gather it too), `Some(false)` broadcast as
/// it is, `None` neither (leave the pattern alone).
fn scale_mode(weight: &[i64], scale: &[i64]) -> Option<bool> {
    let numel: i64 = scale.iter().product();
    if numel == 1 {
        return Some(false);
    }
    if scale.len() < weight.len() {
        // Right-aligned against the trailing dimensions, which gathering on
        // axis 0 keeps.
        let trailing = &weight[weight.len() - scale.len()..];
        let fits = scale.iter().zip(trailing).all(|(s, w)| *s == 1 || s == w);
        return fits.then_some(false);
    }
    if scale.len() != weight.len() {
        return None;
    }
    let rest_fits = scale[1..]
        .iter()
        .zip(&weight[1..])
        .all(|(s, w)| *s == 1 || s == w);
    match (scale.first(), weight.first()) {
        (Some(1), _) if rest_fits => Some(false),
        (Some(s), Some(w)) if s == w && rest_fits => Some(true),
        _ => None,
    }
}

fn int_attribute(node: &NodeProto, name: &str) -> Option<i64> {
    node.attribute
        .iter()
        .find(|attribute| attribute.name == name)
        .map(|attribute| attribute.i)
}

fn simple_node(
    name: &str,
    op_type: &str,
    inputs: &[&str],
    output: &str,
    attribute: Option<(&str, i64)>,
) -> NodeProto {
    NodeProto {
        name: name.to_string(),
        op_type: op_type.to_string(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.to_string()],
        attribute: attribute
            .map(|(name, value)| AttributeProto {
                name: name.to_string(),
                r#type: ATTRIBUTE_INT,
                i: value,
                ..AttributeProto::default()
            })
            .into_iter()
            .collect(),
        ..NodeProto::default()
    }
}

/// The most threads one batch of model runs uses.
pub const MAX_RUN_THREADS: usize = 8;

/// How many workers [`run_on_cores`] uses: the cores (at most
/// [`MAX_RUN_THREADS`]).
pub fn run_cores() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_RUN_THREADS)
}

/// Run `run` on every group, the groups spread over [`run_cores`] workers,
/// each worker taking every `workers`-th group (groups come longest first,
/// so the work interleaves evenly), and return each group's members paired
/// with their results. A model run is single-threaded and matmul-bound: a
/// second core doubles a batch's throughput where a bigger batch adds a few
/// per cent (measured, `hive-mind-lab bench embed`). `panicked` is the error a
/// worker that panicked gives.
pub fn run_on_cores<T, E, F>(groups: &[&[usize]], run: F, panicked: E) -> Result<Vec<(usize, T)>, E>
where
    T: Send,
    E: Send + Clone,
    F: Fn(&[usize]) -> Result<Vec<T>, E> + Sync,
{
    let workers = run_cores().min(groups.len()).max(1);
    let work = |worker: usize| -> Result<Vec<(usize, T)>, E> {
        let mut done = Vec::new();
        for group in groups.iter().skip(worker).step_by(workers) {
            done.extend(group.iter().copied().zip(run(group)?));
        }
        Ok(done)
    };
    let results: Vec<Result<Vec<(usize, T)>, E>> = if workers > 1 {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|worker| {
                    let work = &work;
                    scope.spawn(move || work(worker))
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().unwrap_or_else(|_| Err(panicked.clone())))
                .collect()
        })
    } else {
        vec![work(0)]
    };
    let mut all = Vec::new();
    for result in results {
        all.extend(result?);
    }
    Ok(all)
}

/// The BERT inputs a plan knows how to feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BertInput {
    /// `input_ids`: word-piece ids.
    InputIds,
    /// `attention_mask`: 1 for tokens, 0 for padding.
    AttentionMask,
    /// `token_type_ids`: 0 for the first segment, 1 for the second.
    TokenTypeIds,
}

impl BertInput {
    fn from_name(name: &str) -> Option<BertInput> {
        match name {
            "input_ids" => Some(BertInput::InputIds),
            "attention_mask" => Some(BertInput::AttentionMask),
            "token_type_ids" => Some(BertInput::TokenTypeIds),
            _ => None,
        }
    }
}

/// A padded batch of token sequences, row-major `[batch, sequence]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenBatch {
    /// Rows in the batch.
    pub batch: usize,
    /// Tokens per row (the longest row; shorter rows are padded).
    pub sequence: usize,
    /// Word-piece ids, 0 (`[PAD]`) in padding.
    pub input_ids: Vec<i64>,
    /// 1 for real tokens, 0 for padding.
    pub attention_mask: Vec<i64>,
    /// Segment ids: 0 for the first text, 1 for the second of a pair.
    pub token_type_ids: Vec<i64>,
}

impl TokenBatch {
    /// Pad encodings to the longest one ("batch-longest" padding).
    pub fn pad(encodings: &[&tokenizers::Encoding]) -> TokenBatch {
        let batch = encodings.len();
        let sequence = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
        let mut out = TokenBatch {
            batch,
            sequence,
            input_ids: vec![0; batch * sequence],
            attention_mask: vec![0; batch * sequence],
            token_type_ids: vec![0; batch * sequence],
        };
        for (row, encoding) in encodings.iter().enumerate() {
            let start = row * sequence;
            let fields = [
                (&mut out.input_ids, encoding.get_ids()),
                (&mut out.attention_mask, encoding.get_attention_mask()),
                (&mut out.token_type_ids, encoding.get_type_ids()),
            ];
            for (target, source) in fields {
                for (slot, value) in target[start..].iter_mut().zip(source) {
                    *slot = i64::from(*value);
                }
            }
        }
        out
    }
}

/// A runnable ONNX model with BERT-style inputs.
#[derive(Debug)]
pub struct OnnxPlan {
    plan: Arc<TypedSimplePlan>,
    inputs: Vec<BertInput>,
    output_shape: Vec<Option<usize>>,
}

impl OnnxPlan {
    /// Parse, optimise and plan `proto` (already rewritten), read from `path`.
    ///
    /// Every model input must be one of `input_ids`, `attention_mask`,
    /// `token_type_ids`; the first output is the one returned by
    /// [`OnnxPlan::run`].
    pub fn new(path: &Path, proto: &ModelProto) -> Result<OnnxPlan, ModelError> {
        let invalid = |message: String| ModelError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let graph = proto
            .graph
            .as_ref()
            .ok_or_else(|| invalid("the file holds no graph".into()))?;
        let initializers: HashSet<&str> =
            graph.initializer.iter().map(|t| t.name.as_str()).collect();
        let input_names: Vec<&str> = graph
            .input
            .iter()
            .map(|i| i.name.as_str())
            .filter(|name| !initializers.contains(name))
            .collect();
        let inputs = input_names
            .iter()
            .map(|name| {
                BertInput::from_name(name).ok_or_else(|| {
                    invalid(format!(
                        "unexpected input `{name}`: a BERT-style model takes input_ids, \
                         attention_mask and token_type_ids (int64, [batch, sequence])"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if !inputs.contains(&BertInput::InputIds) {
            return Err(invalid("the model has no `input_ids` input".into()));
        }
        let mut model = tract_onnx::onnx()
            .model_for_proto_model(proto)
            .map_err(|e| invalid(format!("{e:#}")))?;
        // Keep the file's own shape symbols; only fill in what it leaves open.
        let batch = model.symbols.sym("batch");
        let sequence = model.symbols.sym("sequence");
        for index in 0..inputs.len() {
            let fact = model
                .input_fact(index)
                .map_err(|e| invalid(format!("{e:#}")))?;
            let known =
                fact.datum_type.concretize().is_some() && fact.shape.rank().concretize().is_some();
            if !known {
                let fact = InferenceFact::dt_shape(
                    i64::datum_type(),
                    tvec![batch.to_dim(), sequence.to_dim()],
                );
                model
                    .set_input_fact(index, fact)
                    .map_err(|e| invalid(format!("{e:#}")))?;
            }
        }
        let mut typed = model
            .into_optimized()
            .map_err(|e| invalid(format!("tract could not optimise the model: {e:#}")))?;
        // Declutter can fold an `And` with an all-true operand and leave the
        // node after it declaring the pre-fold broadcast shape (in
        // all-MiniLM-L6-v2: the attention mask's `Where`, [b, 1, s, s]
        // declared, [b, 1, 1, s] computed; the `Add` after it broadcasts
        // either way). Recomputing the facts from the ops keeps tract's
        // debug-build self-checks true to what runs.
        typed
            .refresh_output_facts()
            .map_err(|e| invalid(format!("{e:#}")))?;
        let outlet = typed
            .output_outlets()
            .map_err(|e| invalid(format!("{e:#}")))?
            .first()
            .copied()
            .ok_or_else(|| invalid("the model has no outputs".into()))?;
        let output = typed
            .outlet_fact(outlet)
            .map_err(|e| invalid(format!("{e:#}")))?;
        let output_shape = output.shape.iter().map(|dim| dim.to_usize().ok()).collect();
        let plan = typed
            .into_runnable()
            .map_err(|e| invalid(format!("{e:#}")))?;
        Ok(OnnxPlan {
            plan,
            inputs,
            output_shape,
        })
    }

    /// The first output's shape as the model declares it; `None` for a
    /// symbolic dimension (batch, sequence).
    pub fn output_shape(&self) -> &[Option<usize>] {
        &self.output_shape
    }

    /// Run one padded batch; returns the first output's values and shape.
    pub fn run(&self, batch: &TokenBatch) -> Result<(Vec<f32>, Vec<usize>), String> {
        let shape = [batch.batch, batch.sequence];
        let inputs = self
            .inputs
            .iter()
            .map(|input| {
                let data = match input {
                    BertInput::InputIds => &batch.input_ids,
                    BertInput::AttentionMask => &batch.attention_mask,
                    BertInput::TokenTypeIds => &batch.token_type_ids,
                };
                Tensor::from_shape(&shape, data).map(TValue::from)
            })
            .collect::<TractResult<TVec<TValue>>>()
            .map_err(|e| format!("{e:#}"))?;
        let outputs = self.plan.run(inputs).map_err(|e| format!("{e:#}"))?;
        let first = outputs
            .first()
            .ok_or_else(|| "the model returned no output".to_string())?;
        let view = first
            .to_plain_array_view::<f32>()
            .map_err(|e| format!("{e:#}"))?;
        Ok((view.iter().copied().collect(), view.shape().to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_modes() {
        assert_eq!(scale_mode(&[30522, 384], &[30522, 1]), Some(true));
        assert_eq!(scale_mode(&[30522, 384], &[1, 384]), Some(false));
        assert_eq!(scale_mode(&[30522, 384], &[384]), Some(false));
        assert_eq!(scale_mode(&[30522, 384], &[]), Some(false));
        assert_eq!(scale_mode(&[30522, 384], &[1]), Some(false));
        assert_eq!(scale_mode(&[30522, 384], &[7, 384]), None);
        assert_eq!(scale_mode(&[30522, 384], &[30522]), None);
    }

    fn tensor(name: &str, data_type: pb::tensor_proto::DataType, dims: &[i64]) -> TensorProto {
        TensorProto {
            name: name.into(),
            data_type: data_type as i32,
            dims: dims.to_vec(),
            ..TensorProto::default()
        }
    }

    #[test]
    fn rewrites_the_embedding_pattern_only() {
        use pb::tensor_proto::DataType;
        let mut graph = GraphProto {
            initializer: vec![
                tensor("emb_q", DataType::Int8, &[100, 8]),
                tensor("emb_scale", DataType::Float, &[100, 1]),
                tensor("mm_q", DataType::Int8, &[8, 8]),
                tensor("mm_scale", DataType::Float, &[1, 8]),
            ],
            node: vec![
                simple_node("c1", "Cast", &["emb_q"], "emb_f", Some(("to", 1))),
                simple_node("m1", "Mul", &["emb_f", "emb_scale"], "emb", None),
                simple_node("c2", "Cast", &["mm_q"], "mm_f", Some(("to", 1))),
                simple_node("m2", "Mul", &["mm_f", "mm_scale"], "mm", None),
                simple_node("g", "Gather", &["emb", "ids"], "rows", Some(("axis", 0))),
                simple_node("mat", "MatMul", &["rows", "mm"], "out", None),
            ],
            ..GraphProto::default()
        };
        assert_eq!(dequantize_gathered_rows(&mut graph), 1);
        let ops: Vec<&str> = graph.node.iter().map(|n| n.op_type.as_str()).collect();
        assert_eq!(
            ops,
            ["Cast", "Mul", "Gather", "Cast", "Gather", "Mul", "MatMul"]
        );
        let gather_q = &graph.node[2];
        assert_eq!(gather_q.input, ["emb_q", "ids"]);
        let gather_scale = &graph.node[4];
        assert_eq!(gather_scale.input, ["emb_scale", "ids"]);
        assert_eq!(graph.node[5].output, ["rows"]);
        // Idempotent: nothing left to rewrite.
        assert_eq!(dequantize_gathered_rows(&mut graph), 0);
    }
}
