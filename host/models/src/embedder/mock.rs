//! # The mock embedder: deterministic vectors with no meaning
//!
//! A vector made from a hash of the text's bytes: the same text always gets
//! the same unit vector, different texts get unrelated ones. It has **no
//! semantics** — recall over mock vectors ranks at random — so it is never
//! chosen by the auto-probe, only by name (`HIVE_MIND_EMBEDDER=mock`, for
//! tests and demos without a model), and `hive-mind embed --status` says so
//! loudly.

use sha2::{Digest, Sha256};

use super::{EmbedError, Embedded, Embedder, EmbedderInfo, l2_normalize};

/// The provider name in fingerprints.
pub const PROVIDER: &str = hive_mind_embedding::MOCK_PROVIDER;
/// The model name in fingerprints.
pub const MODEL: &str = "sha256-hash";
/// The default dimension (the in-process model's, so a store can be opened
/// with either).
pub const DEFAULT_DIMENSIONS: u32 = 384;

/// Deterministic hash vectors with no semantics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockEmbedder {
    dimensions: u32,
}

impl MockEmbedder {
    /// A mock of the given dimension (at least 1).
    pub fn new(dimensions: u32) -> MockEmbedder {
        MockEmbedder {
            dimensions: dimensions.max(1),
        }
    }
}

impl Default for MockEmbedder {
    fn default() -> Self {
        MockEmbedder::new(DEFAULT_DIMENSIONS)
    }
}

/// The mock's vector for `text`: unit length, `dimensions` long.
pub fn hash_vector(text: &str, dimensions: u32) -> Vec<f32> {
    let seed = Sha256::digest(text.as_bytes());
    let mut state = u64::from_le_bytes([
        seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], seed[6], seed[7],
    ]) | 1;
    let mut vector: Vec<f32> = (0..dimensions)
        .map(|_| {
            // xorshift64*: cheap, deterministic, well spread.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let bits = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
            (bits as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect();
    l2_normalize(&mut vector);
    vector
}

impl Embedder for MockEmbedder {
    fn info(&self) -> EmbedderInfo {
        EmbedderInfo {
            provider: PROVIDER.to_string(),
            model: MODEL.to_string(),
            dimensions: self.dimensions,
        }
    }

    /// The window of the default model (all-MiniLM-L6-v2), so an engine on
    /// the mock plans the chunks a real install plans.
    fn token_window(&self) -> u32 {
        256
    }

    fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError> {
        Ok(Embedded::complete(
            texts
                .iter()
                .map(|text| hash_vector(text, self.dimensions))
                .collect(),
            Vec::new(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_unit_vectors() {
        let a = hash_vector("hello", 384);
        assert_eq!(a, hash_vector("hello", 384));
        assert_ne!(a, hash_vector("hello!", 384));
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
        assert_eq!(hash_vector("", 7).len(), 7);
    }
}
