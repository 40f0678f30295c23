//! # Timing figures shared by the evaluation and the benchmarks
//!
//! Both `hive-mind-lab eval` and `hive-mind-lab bench recall` time recalls
//! through the real engine and report them the same way, so the arithmetic
//! lives here once:
//!
//! - latency summaries ([`percentile`], [`mean`]) and shares of a total
//!   ([`shares`]);
//! - **the split** ([`split_parts`], [`split_rows`]): a recall's wall time
//!   divided between the engine's own work in the component and the host's
//!   imports (SQLite, the embedder, the reranker), from the host's import
//!   timings ([`ImportTimings`], summed with [`add_timings`]), with the words
//!   a report prints for each part ([`split_label`], [`SPLIT_NOTE`]).

use std::time::Duration;

use hive_mind_runtime::engine::ImportTimings;
use serde::Serialize;

/// The `p`-th percentile (0–100) of `values` by the nearest-rank method;
/// 0.0 for no values.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p.clamp(0.0, 100.0) / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The arithmetic mean; 0.0 for no values.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Each part's share of the parts' total (0.0 each when the total is 0).
pub fn shares(parts: &[f64]) -> Vec<f64> {
    let total: f64 = parts.iter().sum();
    parts
        .iter()
        .map(|part| if total > 0.0 { part / total } else { 0.0 })
        .collect()
}

/// One part of recall's time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageShare {
    /// A guest stage (`embed-query`, `search`, …), or in the split one of
    /// [`split_parts`]'s parts (`engine`, `sqlite`, `embed`, `rerank`).
    pub stage: String,
    /// Mean milliseconds per recall.
    pub mean_ms: f64,
    /// For a stage: its share of the guest stages' total. For a part of the
    /// split: its share of the recall latency (the parts add up to 1).
    pub share: f64,
}

/// The recall time `wall` (as the caller measured it) split by the host's
/// import timings `imports` over the same recalls: `engine` — the
/// component's own work (the KNN scan over its in-memory vector index,
/// fusion, the floor, scoring, formatting) and the calls across the
/// boundary, i.e. whatever is not an import —, then `sqlite` (every
/// statement of every stage), `embed` (the query's embedding) and `rerank`
/// (the cross-encoder).
pub fn split_parts(wall: Duration, imports: &ImportTimings) -> [(&'static str, Duration); 4] {
    let hosted = imports.sql + imports.embed + imports.rerank;
    [
        ("engine", wall.saturating_sub(hosted)),
        ("sqlite", imports.sql),
        ("embed", imports.embed),
        ("rerank", imports.rerank),
    ]
}

/// The words a report prints for a part of [`split_parts`].
pub fn split_label(part: &str) -> &str {
    match part {
        "engine" => "engine (in the component)",
        "sqlite" => "sqlite (host)",
        "embed" => "embed (host)",
        "rerank" => "rerank (host)",
        other => other,
    }
}

/// What a report says under the split, so nobody reads it as a stage split.
pub const SPLIT_NOTE: &str = "(the host times its imports only: the guest's `search` stage is the KNN scan over \
     the in-memory vector index, inside the component, plus the host's SQL for full text and listings; \
     SQL runs in graph, touch and context too)";

/// Add `more` to `total`.
pub fn add_timings(total: &mut ImportTimings, more: &ImportTimings) {
    total.sql += more.sql;
    total.embed += more.embed;
    total.rerank += more.rerank;
    total.llm += more.llm;
}

/// The split's rows: mean milliseconds per recall and share of `wall`.
pub fn split_rows(wall: Duration, imports: &ImportTimings, recalls: usize) -> Vec<StageShare> {
    let total = wall.as_secs_f64();
    split_parts(wall, imports)
        .into_iter()
        .map(|(part, duration)| StageShare {
            stage: part.to_string(),
            mean_ms: duration.as_secs_f64() * 1000.0 / recalls.max(1) as f64,
            share: if total > 0.0 {
                duration.as_secs_f64() / total
            } else {
                0.0
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let values: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentile(&values, 50.0), 50.0);
        assert_eq!(percentile(&values, 95.0), 95.0);
        assert_eq!(percentile(&values, 100.0), 100.0);
        assert_eq!(percentile(&values, 0.0), 1.0);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 50.0), 2.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }

    #[test]
    fn means_and_shares() {
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
        assert_eq!(mean(&[]), 0.0);
        assert_eq!(shares(&[1.0, 3.0]), [0.25, 0.75]);
        assert_eq!(shares(&[0.0, 0.0]), [0.0, 0.0]);
    }
}
