//! # hive-mind-embedding: what every embedder speaks
//!
//! The engine asks its host for vectors through the WIT import
//! `hive:mind/embedder`. On the host side that import is answered by an
//! [`Embedder`]: a provider that turns a batch of texts into one
//! L2-normalised vector per text. The providers live in two crates — the
//! in-process model and the mock in `hive-mind-models`, the HTTP providers
//! (Ollama, Voyage, OpenAI-compatible) in `hive-mind-outbound` — and this
//! leaf crate is the vocabulary they share, written once:
//!
//! - [`Embedder`] — the trait: its fingerprint ([`EmbedderInfo`]), its token
//!   window and `embed`, for documents or queries ([`InputKind`]).
//! - [`EmbedError`] — the WIT's two error cases, `unavailable` and `failed`.
//! - [`Embedded`] — a batch's outcome: one vector or one reason per text
//!   ([`TextVector`]), and which texts were cut short.
//! - [`l2_normalize`] and [`cap_chars`] — the vector and text helpers every
//!   provider applies.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The provider name of the mock embedder (`hive-mind-models`'s `mock`),
/// whose vectors carry no meaning.
pub const MOCK_PROVIDER: &str = "mock";

/// The identity of an embedder: what the store locks its vectors to.
///
/// Mirrors the WIT record `embedder-info`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EmbedderInfo {
    /// The provider: `in-process`, `ollama`, `voyage`, `openai-compatible` or
    /// `mock`.
    pub provider: String,
    /// The model name, as the provider knows it.
    pub model: String,
    /// The vector dimension.
    pub dimensions: u32,
}

impl EmbedderInfo {
    /// Whether this is the mock provider, whose vectors carry no meaning.
    pub fn is_mock(&self) -> bool {
        self.provider == MOCK_PROVIDER
    }
}

impl fmt::Display for EmbedderInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{} ({}-d)",
            self.provider, self.model, self.dimensions
        )
    }
}

/// Why embedding failed. Mirrors the WIT `embedder.error` variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbedError {
    /// No provider is configured or reachable; the message says which were
    /// tried and why each failed, or how to fix the configuration.
    #[error("no embedder available: {0}")]
    Unavailable(String),
    /// The provider failed on this input; the message says why.
    #[error("embedding failed: {0}")]
    Failed(String),
}

/// One text's outcome: its L2-normalised vector, or why the provider failed
/// on it (the WIT `embed`'s `result<list<f32>, string>`).
pub type TextVector = Result<Vec<f32>, String>;

/// A batch of vectors, with the texts that failed and the ones cut short.
///
/// HTTP providers retry a failed batch one text at a time; a text that still
/// fails has no vector: its entry is the reason, so the rest of the batch
/// keeps its real vectors and the caller (the engine) stores nothing for it
/// and can embed it later. A batch where every text failed is an error
/// instead ([`EmbedError::Failed`]), never a batch of failures.
#[derive(Debug, Clone, PartialEq)]
pub struct Embedded {
    /// One entry per input text, in order: its vector or why it failed.
    pub vectors: Vec<TextVector>,
    /// The inputs that were cut to the model's length limit.
    pub truncated: Vec<usize>,
}

impl Embedded {
    /// A batch where every text got its vector.
    pub fn complete(vectors: Vec<Vec<f32>>, truncated: Vec<usize>) -> Embedded {
        Embedded {
            vectors: vectors.into_iter().map(Ok).collect(),
            truncated,
        }
    }

    /// The inputs that failed: their index and why.
    pub fn failures(&self) -> impl Iterator<Item = (usize, &str)> {
        self.vectors
            .iter()
            .enumerate()
            .filter_map(|(index, vector)| vector.as_ref().err().map(|why| (index, why.as_str())))
    }

    /// Log each failed input as a warning.
    pub fn warn_failures(&self) {
        for (index, reason) in self.failures() {
            tracing::warn!(
                index,
                reason,
                "text could not be embedded; it has no vector"
            );
        }
    }

    /// Every vector, in order; [`EmbedError::Failed`] naming the first input
    /// that failed, if one did.
    pub fn into_complete(self) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.vectors
            .into_iter()
            .enumerate()
            .map(|(index, vector)| {
                vector.map_err(|why| EmbedError::Failed(format!("text {index}: {why}")))
            })
            .collect()
    }
}

/// What a batch of texts is: a search query or a stored document. Mirrors
/// the WIT enum `embedder.input-kind`.
///
/// Asymmetric models (bge, e5, …) were trained with an instruction prefix on
/// queries and none on passages; the in-process embedder prepends whatever
/// its model folder's `config_sentence_transformers.json` says for the kind.
/// Providers that know nothing of kinds (the HTTP ones, the mock) ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum InputKind {
    /// A search query (recall's question).
    Query,
    /// A text to store and search (a memory, a chunk, a turn). The default:
    /// every write and reindex path embeds documents.
    #[default]
    Document,
}

/// A text embedding provider.
///
/// Implementations are loaded once per process and shared (`Send + Sync`);
/// `embed` may be called from several threads.
pub trait Embedder: Send + Sync {
    /// The fingerprint of the vectors this embedder makes.
    fn info(&self) -> EmbedderInfo;

    /// The token window the model reads, special tokens included (the WIT
    /// `embedder-info.max-tokens`); 0 when unknown, the default, right for
    /// the HTTP providers, whose servers do not say. The engine plans
    /// chunks to fit it.
    fn token_window(&self) -> u32 {
        0
    }

    /// Embed a batch of documents, reporting failed and truncated inputs.
    fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError>;

    /// [`Embedder::embed_marked`] for texts of a given kind. The default
    /// ignores the kind (right for every provider whose model has no query
    /// instruction); the in-process embedder applies its model's prompt.
    fn embed_marked_as(&self, texts: &[String], kind: InputKind) -> Result<Embedded, EmbedError> {
        let _ = kind;
        self.embed_marked(texts)
    }

    /// Embed a batch: one L2-normalised vector per text, in order. An input
    /// the provider failed on fails the whole call ([`Embedded::into_complete`]);
    /// use [`Embedder::embed_marked`] to keep the others.
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_marked(texts)?.into_complete()
    }
}

/// An embedder behind a smart pointer is the embedder: every method forwards.
macro_rules! forward_embedder {
    ($pointer:ident) => {
        impl<E: Embedder + ?Sized> Embedder for $pointer<E> {
            fn info(&self) -> EmbedderInfo {
                (**self).info()
            }
            fn token_window(&self) -> u32 {
                (**self).token_window()
            }
            fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError> {
                (**self).embed_marked(texts)
            }
            fn embed_marked_as(
                &self,
                texts: &[String],
                kind: InputKind,
            ) -> Result<Embedded, EmbedError> {
                (**self).embed_marked_as(texts, kind)
            }
            fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
                (**self).embed(texts)
            }
        }
    };
}

forward_embedder!(Box);
forward_embedder!(Arc);

/// Scale `vector` to unit length in place. A zero vector is left as is.
pub fn l2_normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > f32::EPSILON {
        for x in vector.iter_mut() {
            *x /= norm;
        }
    }
}

/// Cut `text` to at most `max_chars` characters, on a character boundary.
/// Returns the text and whether it was cut.
pub fn cap_chars(text: &str, max_chars: usize) -> (&str, bool) {
    match text.char_indices().nth(max_chars) {
        Some((byte, _)) => (&text[..byte], true),
        None => (text, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_chars_respects_char_boundaries() {
        assert_eq!(cap_chars("héllo", 2), ("hé", true));
        assert_eq!(cap_chars("héllo", 5), ("héllo", false));
        assert_eq!(cap_chars("🚀🚀🚀", 1), ("🚀", true));
        assert_eq!(cap_chars("", 0), ("", false));
    }

    #[test]
    fn normalize() {
        let mut v = vec![3.0, 4.0];
        l2_normalize(&mut v);
        assert_eq!(v, vec![0.6, 0.8]);
        let mut zero = vec![0.0; 3];
        l2_normalize(&mut zero);
        assert_eq!(zero, vec![0.0; 3]);
    }
}
