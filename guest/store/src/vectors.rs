//! Where vectors come from when the store itself must ask for them.
//!
//! The store never embeds on a save: the caller (the engine's pipelines)
//! hands it the frame's vector and its chunks' vectors. `reindex` (re-embed
//! every frame for a new model) does need an embedder: it takes a
//! [`VectorSource`], which the engine implements over the `embedder` import
//! and tests implement with [`FakeHashVectorSource`].
//!
//! [`FakeHashVectorSource`] is a deterministic stand-in with **no semantic
//! value** beyond shared words: each word is hashed to a pseudo-random unit
//! vector and a text is the normalised sum of its words' vectors, so texts
//! that share words are close. The store's tests use it, and it records
//! `mock` as its provider so a mind it wrote can never pass for one a real
//! embedder wrote.

use sha2::{Digest, Sha256};

use super::types::EmbedderFingerprint;

/// The error an embedder returns when it embeds nothing.
pub type EmbedError = Box<dyn std::error::Error + Send + Sync>;

/// One text's outcome: its vector, or why the embedder failed on it (the
/// WIT `embed`'s `result<list<f32>, string>`).
pub type EmbedOutcome = Result<Vec<f32>, String>;

/// Something that turns texts into vectors: the active embedder.
pub trait VectorSource {
    /// Which embedder this is.
    fn fingerprint(&self) -> EmbedderFingerprint;
    /// The token window it reads, special tokens included (0: unknown):
    /// what `reindex` re-plans chunks for.
    fn max_tokens(&self) -> u32;
    /// One outcome per text, in order: a vector of `fingerprint().dim`
    /// values, or why that text failed. An error when nothing was embedded.
    fn embed(&self, texts: &[String]) -> Result<Vec<EmbedOutcome>, EmbedError>;
}

/// A deterministic fake embedder (hash of each word → unit vector, summed and
/// normalised). For tests and `HIVE_MIND_EMBEDDER=mock` only.
#[derive(Debug, Clone)]
pub struct FakeHashVectorSource {
    /// The dimension of its vectors.
    pub dim: u32,
    /// The model name it reports (so tests can simulate a model change).
    pub model: String,
    /// The token window it reports (so tests can simulate a window change).
    pub max_tokens: u32,
}

impl FakeHashVectorSource {
    /// The provider name it reports: `mock`.
    pub const PROVIDER: &'static str = "mock";

    /// The window it reports unless told otherwise: the default model's
    /// (all-MiniLM-L6-v2), so tests plan the chunks a real install plans.
    pub const MAX_TOKENS: u32 = 256;

    /// A fake source of `dim` dimensions, model `hash-words-v1`, reading
    /// [`Self::MAX_TOKENS`].
    pub fn new(dim: u32) -> Self {
        FakeHashVectorSource {
            dim,
            model: "hash-words-v1".to_string(),
            max_tokens: Self::MAX_TOKENS,
        }
    }

    /// The vector of one text.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let dim = usize::try_from(self.dim).unwrap_or(0);
        let mut sum = vec![0f32; dim];
        let words = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase);
        let mut any = false;
        for word in words {
            any = true;
            add_word(&mut sum, &word);
        }
        if !any {
            add_word(&mut sum, text);
        }
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            sum.iter_mut().for_each(|v| *v /= norm);
        }
        sum
    }
}

/// Add a word's pseudo-random vector (components in [-1, 1], from SHA-256 of
/// the word and a counter) to `sum`.
fn add_word(sum: &mut [f32], word: &str) {
    let mut block = 0u32;
    let mut index = 0;
    while index < sum.len() {
        let digest = Sha256::new()
            .chain_update(word.as_bytes())
            .chain_update(block.to_le_bytes())
            .finalize();
        for pair in digest.chunks_exact(2) {
            let (Some(slot), &[low, high]) = (sum.get_mut(index), pair) else {
                break;
            };
            *slot += f32::from(u16::from_le_bytes([low, high])) / 32767.5 - 1.0;
            index += 1;
        }
        block += 1;
    }
}

impl VectorSource for FakeHashVectorSource {
    fn fingerprint(&self) -> EmbedderFingerprint {
        EmbedderFingerprint {
            provider: Self::PROVIDER.to_string(),
            model: self.model.clone(),
            dim: self.dim,
        }
    }

    fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<EmbedOutcome>, EmbedError> {
        Ok(texts.iter().map(|text| Ok(self.vector(text))).collect())
    }
}

/// A frame with its vectors (and its chunks' vectors, planned for
/// `source`'s window) from `source`; without any when `source` failed on
/// one of its texts.
pub fn embed_frame(
    source: &dyn VectorSource,
    mut frame: super::NewFrame,
) -> super::StoreResult<super::NewFrame> {
    let plan = super::plan_chunks(
        &frame.content,
        hive_mind_core::ChunkPlan::for_window(source.max_tokens()),
    );
    let mut texts = vec![frame.content.clone()];
    texts.extend(plan.iter().map(|chunk| chunk.text.clone()));
    let vectors = source
        .embed(&texts)
        .map_err(|error| super::StoreError::Embedder(error.to_string()))?
        .into_iter()
        .collect::<Result<Vec<_>, _>>();
    let Ok(vectors) = vectors else {
        frame.embedding = None;
        frame.chunks = Vec::new();
        return Ok(frame);
    };
    let mut vectors = vectors.into_iter();
    frame.embedding = Some(vectors.next().unwrap_or_default());
    frame.chunks = plan
        .iter()
        .map(|chunk| super::ChunkVector {
            char_start: chunk.char_start,
            char_end: chunk.char_end,
            embedding: vectors.next().unwrap_or_default(),
        })
        .collect();
    Ok(frame)
}
