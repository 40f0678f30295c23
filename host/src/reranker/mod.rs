//! # The reranker: a cross-encoder that scores query/passage pairs
//!
//! Recall first finds candidates cheaply (keyword and vector search, fused
//! by RRF). A *cross-encoder* then reads the query and each candidate
//! **together** — `[CLS] query [SEP] passage [SEP]`, with `token_type_ids` 0
//! for the query and 1 for the passage — and outputs one relevance logit per
//! pair. It is far more precise than comparing two independent vectors, and
//! far too slow to run over a whole store, hence its place at the end.
//!
//! - [`Reranker`] — the native trait; the WIT import `hive:mind/reranker` is
//!   a thin adapter over it ([`RerankError`] has the WIT's two cases).
//! - [`CrossEncoder`] — any BERT-style cross-encoder ONNX in the
//!   ms-marco-MiniLM-L-6-v2 layout: int64 inputs `input_ids`,
//!   `attention_mask`, `token_type_ids` (`[batch, sequence]`), first output
//!   the logits `[batch, 1]` (or `[batch]`). Loaded from a configured path
//!   with its `tokenizer.json`; pairs are truncated longest-first to 512
//!   tokens, sorted by length and run in padded groups of 16.
//! - [`Unconfigured`] — what [`from_config`] gives when no model is
//!   configured: every call answers `Unavailable`, and recall keeps its
//!   fused order (the design's soft-fail).
//!
//! No cross-encoder ships with hive-mind (no genuine weights could be
//! obtained from the registries this project builds from); the plumbing is
//! tested on a small model built by the tests.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokenizers::{EncodeInput, Encoding, Tokenizer};

use crate::embedder::cap_chars;
use crate::embedder::config::RerankerConfig;
use crate::embedder::in_process::load_tokenizer;
use crate::embedder::onnx::{self, ModelError, OnnxPlan, TokenBatch};

/// Why reranking failed. Mirrors the WIT `reranker.error` variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RerankError {
    /// No reranker is configured: recall keeps the fused order.
    #[error("no reranker available: {0}")]
    Unavailable(String),
    /// The model failed on this input.
    #[error("reranking failed: {0}")]
    Failed(String),
}

/// Scores how well each passage answers a query.
pub trait Reranker: Send + Sync {
    /// One score per passage, in order; higher is more relevant. Scores are
    /// comparable within one call only.
    fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>, RerankError>;
}

impl<R: Reranker + ?Sized> Reranker for Arc<R> {
    fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>, RerankError> {
        (**self).score(query, passages)
    }
}

/// The reranker when none is configured: always `Unavailable`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unconfigured;

/// The message `Unconfigured` answers with.
pub const UNCONFIGURED: &str = "no cross-encoder is configured (set [reranker] model in \
    $HIVE_MIND_HOME/config.toml or HIVE_MIND_RERANKER_MODEL); recall keeps the fused order";

impl Reranker for Unconfigured {
    fn score(&self, _query: &str, _passages: &[String]) -> Result<Vec<f32>, RerankError> {
        Err(RerankError::Unavailable(UNCONFIGURED.to_string()))
    }
}

/// The default token window of a cross-encoder (ms-marco models: 512).
pub const DEFAULT_MAX_TOKENS: usize = 512;
/// Pairs per model run.
pub const DEFAULT_BATCH_SIZE: usize = 16;
/// Characters kept per token of the window before tokenizing.
const CHARS_PER_TOKEN_CAP: usize = 16;
const HINT: &str = "Set [reranker] model (and tokenizer, default: tokenizer.json next to the \
    model) in $HIVE_MIND_HOME/config.toml, or HIVE_MIND_RERANKER_MODEL, to a BERT-style \
    cross-encoder ONNX such as ms-marco-MiniLM-L-6-v2.";

/// A BERT-style cross-encoder run in this process by tract.
#[derive(Debug)]
pub struct CrossEncoder {
    name: String,
    tokenizer: Tokenizer,
    plan: OnnxPlan,
    max_tokens: usize,
    batch_size: usize,
}

/// One query/passage pair as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedPair {
    /// Word-piece ids: `[CLS] query [SEP] passage [SEP]`.
    pub ids: Vec<u32>,
    /// 0 for `[CLS]`, the query and the first `[SEP]`; 1 for the passage and
    /// the final `[SEP]`.
    pub type_ids: Vec<u32>,
}

impl CrossEncoder {
    /// Load a cross-encoder: `model` (ONNX), `tokenizer` (`tokenizer.json`;
    /// `None`: next to the model), truncating pairs to `max_tokens` and
    /// running `batch_size` pairs at a time.
    pub fn load(
        model: &Path,
        tokenizer: Option<&Path>,
        max_tokens: usize,
        batch_size: usize,
    ) -> Result<CrossEncoder, ModelError> {
        let tokenizer_path =
            tokenizer.map_or_else(|| model.with_file_name("tokenizer.json"), Path::to_path_buf);
        let tokenizer = load_tokenizer(&tokenizer_path, None, max_tokens.max(4), HINT)?;
        let bytes = onnx::read_model_file(model, None, HINT)?;
        let mut proto = onnx::decode(model, &bytes)?;
        drop(bytes);
        if let Some(graph) = &mut proto.graph {
            onnx::dequantize_gathered_rows(graph);
        }
        let plan = OnnxPlan::new(model, &proto)?;
        let shape = plan.output_shape();
        if !matches!(shape, [_, Some(1)] | [_]) {
            return Err(ModelError::Invalid {
                path: model.to_path_buf(),
                message: format!(
                    "a cross-encoder's first output must be logits of shape [batch, 1]; \
                     this model's is {shape:?}"
                ),
            });
        }
        let name = model
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(CrossEncoder {
            name,
            tokenizer,
            plan,
            max_tokens: max_tokens.max(4),
            batch_size: batch_size.max(1),
        })
    }

    /// The model's name (its file stem).
    pub fn name(&self) -> &str {
        &self.name
    }

    fn encode(&self, query: &str, passages: &[String]) -> Result<Vec<Encoding>, RerankError> {
        let max_chars = self.max_tokens.saturating_mul(CHARS_PER_TOKEN_CAP);
        let (query, _) = cap_chars(query, max_chars);
        let inputs: Vec<EncodeInput> = passages
            .iter()
            .map(|passage| (query, cap_chars(passage, max_chars).0).into())
            .collect();
        self.tokenizer
            .encode_batch(inputs, true)
            .map_err(|e| RerankError::Failed(format!("tokenizing failed: {e}")))
    }

    /// Tokenize pairs exactly as `score` does.
    pub fn encode_pairs(
        &self,
        query: &str,
        passages: &[String],
    ) -> Result<Vec<EncodedPair>, RerankError> {
        Ok(self
            .encode(query, passages)?
            .iter()
            .map(|e| EncodedPair {
                ids: e.get_ids().to_vec(),
                type_ids: e.get_type_ids().to_vec(),
            })
            .collect())
    }
}

impl Reranker for CrossEncoder {
    fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>, RerankError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self.encode(query, passages)?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&index| std::cmp::Reverse(encodings[index].len()));
        let mut scores = vec![0.0f32; encodings.len()];
        for group in order.chunks(self.batch_size) {
            let members: Vec<&Encoding> = group.iter().map(|&index| &encodings[index]).collect();
            let batch = TokenBatch::pad(&members);
            let (values, shape) = self
                .plan
                .run(&batch)
                .map_err(|e| RerankError::Failed(format!("the model failed: {e}")))?;
            let expected = matches!(shape.as_slice(), [b, 1] | [b] if *b == group.len());
            if !expected || values.len() != group.len() {
                return Err(RerankError::Failed(format!(
                    "the model returned shape {shape:?} for {} pairs, expected [{}, 1]",
                    group.len(),
                    group.len()
                )));
            }
            for (&index, value) in group.iter().zip(values) {
                scores[index] = value;
            }
        }
        Ok(scores)
    }
}

/// The reranker the configuration asks for: a [`CrossEncoder`] when
/// `[reranker] model` is set, else [`Unconfigured`]. A configured model
/// that cannot be loaded is an error, not a silent fallback.
pub fn from_config(config: &RerankerConfig) -> Result<Arc<dyn Reranker>, ModelError> {
    match &config.model {
        None => Ok(Arc::new(Unconfigured)),
        Some(model) => {
            let tokenizer: Option<PathBuf> = config.tokenizer.clone();
            Ok(Arc::new(CrossEncoder::load(
                model,
                tokenizer.as_deref(),
                config.max_tokens,
                config.batch_size,
            )?))
        }
    }
}
