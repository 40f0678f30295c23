//! Content dedup: exact, near-duplicate, possible contradiction.

use serde::{Deserialize, Serialize};

use crate::types::Importance;

/// An existing text and its similarity to the candidate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SimilarContent {
    /// Index into `existing`.
    pub index: u32,
    /// Trigram similarity.
    pub similarity: f64,
}

/// The verdict for a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DedupVerdict {
    /// Same normalised text as `existing[i]`.
    Exact(u32),
    /// Similarity ≥ 0.75.
    NearDuplicate(SimilarContent),
    /// Important, 0.4 ≤ similarity < 0.75.
    PossibleContradiction(SimilarContent),
    /// Nothing like it.
    New,
}

/// Trigram similarity of two normalised texts.
pub fn trigram_similarity(a: &str, b: &str) -> f64 {
    unimplemented!("{a}{b}")
}

/// Judge `candidate` against `existing`.
pub fn dedup_check(candidate: &str, importance: Importance, existing: &[String]) -> DedupVerdict {
    unimplemented!("{candidate}{importance:?}{existing:?}")
}
