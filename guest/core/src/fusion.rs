//! Reciprocal rank fusion.

use crate::types::ScoredId;

/// The design's RRF constant.
pub const RRF_K: u32 = 60;

/// Fuse ranked id lists: Σ 1/(k + rank), rank from 0.
pub fn rrf_fuse(lists: &[Vec<u64>], k: u32) -> Vec<ScoredId> {
    unimplemented!("{lists:?}{k}")
}
