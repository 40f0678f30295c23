//! The cross-encoder reranker's plumbing: pair encoding, batching and output
//! shape, on a small cross-encoder these tests build; and the soft-fail when
//! none is configured.
//!
//! No genuine cross-encoder weights can be had here, so the test model is
//! all-MiniLM-L6-v2 (a 6-layer BERT with token-type embeddings, the same
//! architecture as ms-marco-MiniLM-L-6-v2) with a classification head added:
//! the `[CLS]` vector times a fixed 384 × 1 matrix plus a bias, giving logits
//! `[batch, 1]` — the ms-marco layout. Its scores mean nothing; what is
//! asserted is everything around them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hive_mind_models::reranker::RerankerConfig;
use hive_mind_models::reranker::{self, CrossEncoder, RerankError, Reranker, Unconfigured};
use prost::Message;
use tract_onnx::pb::{
    self, GraphProto, NodeProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
    tensor_shape_proto::{Dimension, dimension},
    type_proto,
};
use tract_onnx::prelude::Framework;

fn minilm_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/all-MiniLM-L6-v2")
}

fn node(op: &str, inputs: &[&str], output: &str, axis: Option<i64>) -> NodeProto {
    NodeProto {
        name: format!("head_{output}"),
        op_type: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        attribute: axis
            .map(|axis| pb::AttributeProto {
                name: "axis".into(),
                r#type: 2,
                i: axis,
                ..Default::default()
            })
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

fn float_tensor(name: &str, dims: &[i64], values: Vec<f32>) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: pb::tensor_proto::DataType::Float as i32,
        float_data: values,
        ..Default::default()
    }
}

fn float_output(name: &str, dims: &[Option<i64>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Some(n) => dimension::Value::DimValue(*n),
                None => dimension::Value::DimParam("batch".into()),
            }),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: pb::tensor_proto::DataType::Float as i32,
                shape: Some(TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Build the test cross-encoder into `dir` (model.onnx + tokenizer.json).
/// `width` is the head's output width: 1 for the ms-marco layout.
fn build_cross_encoder(dir: &Path, width: i64) -> PathBuf {
    let mut model = tract_onnx::onnx()
        .proto_model_for_path(minilm_dir().join("model_int8.onnx"))
        .unwrap();
    let graph: &mut GraphProto = model.graph.as_mut().unwrap();
    let weights: Vec<f32> = (0..384 * width)
        .map(|i| ((i as f32) * 0.37).sin() * 0.2)
        .collect();
    graph.initializer.extend([
        TensorProto {
            name: "head_cls_index".into(),
            data_type: pb::tensor_proto::DataType::Int64 as i32,
            int64_data: vec![0],
            ..Default::default()
        },
        float_tensor("head_w", &[384, width], weights),
        float_tensor("head_b", &[width], vec![0.1; width as usize]),
    ]);
    graph.node.extend([
        node(
            "Gather",
            &["last_hidden_state", "head_cls_index"],
            "cls",
            Some(1),
        ),
        node("MatMul", &["cls", "head_w"], "projected", None),
        node("Add", &["projected", "head_b"], "logits", None),
    ]);
    graph.output = vec![float_output("logits", &[None, Some(width)])];
    let path = dir.join("model.onnx");
    std::fs::write(&path, model.encode_to_vec()).unwrap();
    std::fs::copy(
        minilm_dir().join("tokenizer.json"),
        dir.join("tokenizer.json"),
    )
    .unwrap();
    path
}

/// The test cross-encoder, built and loaded once (batches of 4, so batching
/// across groups is exercised).
fn encoder() -> &'static CrossEncoder {
    static ENCODER: OnceLock<(tempfile::TempDir, CrossEncoder)> = OnceLock::new();
    &ENCODER
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let model = build_cross_encoder(dir.path(), 1);
            let encoder = CrossEncoder::load(&model, None, 64, 4).unwrap();
            (dir, encoder)
        })
        .1
}

fn strings(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.to_string()).collect()
}

#[test]
fn pairs_are_encoded_with_token_types() {
    let pairs = encoder()
        .encode_pairs("where is the key", &strings(&["The key is in the vault."]))
        .unwrap();
    let pair = &pairs[0];
    let (cls, sep) = (101, 102);
    assert_eq!(pair.ids[0], cls);
    assert_eq!(*pair.ids.last().unwrap(), sep);
    let first_sep = pair.ids.iter().position(|&id| id == sep).unwrap();
    assert_eq!(first_sep, 5, "[CLS] where is the key [SEP]");
    assert!(pair.type_ids[..=first_sep].iter().all(|&t| t == 0));
    assert!(pair.type_ids[first_sep + 1..].iter().all(|&t| t == 1));
    assert_eq!(pair.ids.len(), pair.type_ids.len());
}

#[test]
fn long_pairs_are_truncated_to_the_window() {
    let long = "the passage goes on and on ".repeat(100);
    let pairs = encoder()
        .encode_pairs("short query", std::slice::from_ref(&long))
        .unwrap();
    assert_eq!(pairs[0].ids.len(), 64);
    // Longest-first truncation keeps the short query whole.
    assert_eq!(pairs[0].ids.iter().filter(|&&id| id == 102).count(), 2);
    assert_eq!(pairs[0].type_ids.iter().filter(|&&t| t == 0).count(), 4);
    let scores = encoder().score("short query", &[long]).unwrap();
    assert!(scores[0].is_finite());
}

#[test]
fn one_score_per_passage_in_order_whatever_the_batching() {
    let passages: Vec<String> = (0..11)
        .map(|i| format!("passage number {i} {}", "words ".repeat(i * 3)))
        .collect();
    let query = "which passage is relevant";
    let batched = encoder().score(query, &passages).unwrap();
    assert_eq!(batched.len(), passages.len());
    for (passage, score) in passages.iter().zip(&batched) {
        let alone = encoder()
            .score(query, std::slice::from_ref(passage))
            .unwrap();
        assert_eq!(alone.len(), 1);
        assert!(
            (alone[0] - score).abs() < 1e-3,
            "{passage:?}: {} alone vs {score} batched",
            alone[0]
        );
    }
    // Not all equal: the scores depend on the passage.
    assert!(batched.iter().any(|s| (s - batched[0]).abs() > 1e-4));
}

#[test]
fn query_and_passage_roles_matter() {
    let a = encoder()
        .score("the cat sat", &strings(&["on the mat"]))
        .unwrap();
    let b = encoder()
        .score("on the mat", &strings(&["the cat sat"]))
        .unwrap();
    assert!(
        (a[0] - b[0]).abs() > 1e-5,
        "token types must reach the model"
    );
}

#[test]
fn edge_inputs_do_not_panic() {
    assert!(encoder().score("q", &[]).unwrap().is_empty());
    let scores = encoder()
        .score("", &strings(&["", "\0", "🚀 emoji", "東京"]))
        .unwrap();
    assert_eq!(scores.len(), 4);
    assert!(scores.iter().all(|s| s.is_finite()));
}

#[test]
fn no_reranker_configured_is_unavailable() {
    let error = Unconfigured.score("q", &strings(&["p"])).unwrap_err();
    assert!(matches!(error, RerankError::Unavailable(_)));
    // Nothing installed in the (empty) search folders: unavailable, saying
    // how to install it, on first use.
    let configured = reranker::from_config(&RerankerConfig::default()).unwrap();
    let error = configured.score("q", &strings(&["p"])).unwrap_err();
    assert!(
        matches!(&error, RerankError::Unavailable(m) if m.contains("cargo xtask models")),
        "{error}"
    );
    // A configured file that is not there is an error when the engine opens.
    let missing = RerankerConfig {
        model: Some(PathBuf::from("/nonexistent/model.onnx")),
        ..RerankerConfig::default()
    };
    assert!(reranker::from_config(&missing).is_err());
    // One that is there but not a model fails the rerank, not the engine.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("model.onnx"), b"not a model").unwrap();
    let broken = RerankerConfig {
        model: Some(dir.path().join("model.onnx")),
        ..RerankerConfig::default()
    };
    let error = reranker::from_config(&broken)
        .unwrap()
        .score("q", &strings(&["p"]))
        .unwrap_err();
    assert!(
        matches!(&error, RerankError::Failed(m) if m.contains("could not be loaded")),
        "{error}"
    );
}

#[test]
fn a_configured_model_loads_through_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let model = build_cross_encoder(dir.path(), 1);
    let config = RerankerConfig {
        model: Some(model),
        ..RerankerConfig::default()
    };
    let reranker = reranker::from_config(&config).unwrap();
    assert_eq!(reranker.score("q", &strings(&["a", "b"])).unwrap().len(), 2);
}

#[test]
fn bad_models_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    // Missing.
    let error = CrossEncoder::load(&dir.path().join("absent.onnx"), None, 512, 16)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("tokenizer.json") && error.contains("missing"),
        "{error}"
    );
    // Wrong output shape: an embedding model is not a cross-encoder.
    let error = CrossEncoder::load(
        &minilm_dir().join("model_int8.onnx"),
        Some(&minilm_dir().join("tokenizer.json")),
        512,
        16,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("[batch, 1]"), "{error}");
    // Two logits per pair is not the ms-marco layout either.
    let model = build_cross_encoder(dir.path(), 2);
    let error = CrossEncoder::load(&model, None, 512, 16)
        .unwrap_err()
        .to_string();
    assert!(error.contains("[batch, 1]"), "{error}");
    // Not ONNX at all.
    std::fs::write(dir.path().join("model.onnx"), b"not a model").unwrap();
    let error = CrossEncoder::load(&dir.path().join("model.onnx"), None, 512, 16)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("model.onnx") && error.contains("not usable"),
        "{error}"
    );
}

/// The shipped cross-encoder's folder; installed by `cargo xtask models`
/// (which `cargo xtask test` runs first).
fn shipped_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    assert!(
        reranker::shipped_model(std::slice::from_ref(&dir)).is_some(),
        "the shipped cross-encoder is not installed in {}: run `cargo xtask models`",
        dir.display()
    );
    dir
}

#[test]
fn the_shipped_cross_encoder_scores_as_onnxruntime_does() {
    let config = RerankerConfig {
        search_dirs: vec![shipped_dir()],
        ..RerankerConfig::default()
    };
    let loaded = reranker::load(&config).unwrap();
    assert_eq!(loaded.name.as_deref(), Some(reranker::DEFAULT_MODEL));
    assert!(loaded.missing.is_none());
    let passages = strings(&[
        "We decided to use Postgres for the ledger because it supports serializable transactions.",
        "Lunch on Friday was pizza at the corner place.",
        "The deploy key lives in the vault, not in the repository.",
        "Postgres was considered for the analytics warehouse but rejected.",
    ]);
    let scores = loaded
        .reranker
        .score("Which database did we choose for the ledger?", &passages)
        .unwrap();
    // onnxruntime's logits for the same pairs (hosts/python's CrossEncoder,
    // which runs the int8 matmuls with quantized activations; tract runs
    // them in f32 after `dequantize_dynamic_matmuls`): the two agree to
    // well within the gaps between the passages.
    let onnxruntime = [5.1358, -10.9782, -10.9769, -9.3846];
    for (tract, reference) in scores.iter().zip(onnxruntime) {
        assert!(
            (tract - reference).abs() < 0.5,
            "tract {scores:?} vs onnxruntime {onnxruntime:?}"
        );
    }
}

#[test]
fn reranking_can_be_turned_off_and_a_missing_model_says_how_to_get_it() {
    let off = RerankerConfig {
        enabled: false,
        search_dirs: vec![shipped_dir()],
        ..RerankerConfig::default()
    };
    let loaded = reranker::load(&off).unwrap();
    assert!(loaded.name.is_none());
    assert!(loaded.missing.unwrap().contains("turned off"));
    let empty = tempfile::tempdir().unwrap();
    let absent = RerankerConfig {
        search_dirs: vec![empty.path().to_path_buf()],
        ..RerankerConfig::default()
    };
    let loaded = reranker::load(&absent).unwrap();
    assert!(loaded.name.is_none());
    let why = loaded.missing.unwrap();
    assert!(why.contains("cargo xtask models"), "{why}");
    assert!(matches!(
        loaded.reranker.score("q", &strings(&["p"])),
        Err(RerankError::Unavailable(_))
    ));
}
