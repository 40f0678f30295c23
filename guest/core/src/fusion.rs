//! Reciprocal rank fusion.
//!
//! Recall runs several searches (BM25 keyword search, vector search, …) that
//! each return a ranked list of frame ids, with scores that are not
//! comparable between searches. Reciprocal rank fusion (Cormack, Clarke &
//! Büttcher, 2009) ignores those scores and uses only the ranks: an id earns
//! `1 / (k + rank)` from every list it appears in, with `rank` counted from 0,
//! and the fused order is by the sum. An id that two searches agree on beats
//! one that only a single search ranks slightly higher.
//!
//! `k` damps the advantage of the very top ranks; the design uses
//! [`RRF_K`] = 60 (the value of the original paper and of the reference
//! engine), so the first hit of a list adds 1/60.
//!
//! Details this implementation fixes:
//! - An id listed twice in one list counts once, at its first (best)
//!   position. Ranks are positions in the list as given, so the repeated entry
//!   still occupies its position for the ids after it.
//! - Ties are broken by the best rank the id reached in any list, then by the
//!   smaller id, so the output is a total order.
//! - Each id's terms are summed in a fixed order (smallest term first), so the
//!   score is bit-for-bit independent of the order of the input lists.
//! - `k = 0` would give a rank-0 hit an infinite score; it is treated as 1.

use std::collections::{HashMap, HashSet};

use crate::types::ScoredId;

/// The design's RRF constant.
pub const RRF_K: u32 = 60;

/// The smallest `k` used: `k = 0` is raised to this so that `1 / (k + 0)`
/// stays finite.
pub const MIN_RRF_K: u32 = 1;

/// Fuse ranked id lists: each id scores Σ 1/(k + rank) over the lists it
/// appears in (rank from 0, first occurrence per list only), sorted by score
/// descending, then best rank ascending, then id ascending.
pub fn rrf_fuse(lists: &[Vec<u64>], k: u32) -> Vec<ScoredId> {
    let k = f64::from(k.max(MIN_RRF_K));

    // Every id's rank in each list it appears in.
    let mut ranks: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut seen_in_list: HashSet<u64> = HashSet::new();
    for list in lists {
        seen_in_list.clear();
        for (rank, &id) in list.iter().enumerate() {
            if seen_in_list.insert(id) {
                ranks.entry(id).or_default().push(rank);
            }
        }
    }

    let mut fused: Vec<Fused> = ranks
        .into_iter()
        .map(|(id, mut id_ranks)| {
            // Worst rank first: the smallest terms are added first, which is
            // both the more accurate order and independent of list order.
            id_ranks.sort_unstable_by(|a, b| b.cmp(a));
            let score = id_ranks.iter().map(|&rank| 1.0 / (k + rank as f64)).sum();
            let best_rank = id_ranks.last().copied().unwrap_or(usize::MAX);
            Fused {
                id,
                score,
                best_rank,
            }
        })
        .collect();

    fused.sort_unstable_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.best_rank.cmp(&b.best_rank))
            .then(a.id.cmp(&b.id))
    });
    fused
        .into_iter()
        .map(|f| ScoredId {
            id: f.id,
            score: f.score,
        })
        .collect()
}

/// One id's fused score and its tie-breaker.
struct Fused {
    id: u64,
    score: f64,
    best_rank: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(fused: &[ScoredId]) -> Vec<u64> {
        fused.iter().map(|s| s.id).collect()
    }

    #[test]
    fn agreement_beats_a_single_top_rank() {
        // 1: ranks 0 and 1; 3: ranks 2 and 0; 2: rank 1 only.
        let fused = rrf_fuse(&[vec![1, 2, 3], vec![3, 1]], RRF_K);
        assert_eq!(ids(&fused), [1, 3, 2]);
        assert_eq!(fused[0].score, 1.0 / 61.0 + 1.0 / 60.0);
        assert_eq!(fused[1].score, 1.0 / 62.0 + 1.0 / 60.0);
        assert_eq!(fused[2].score, 1.0 / 61.0);
        assert!((fused[0].score - 0.033_060).abs() < 1e-6);
    }

    #[test]
    fn first_hit_adds_one_over_k() {
        let fused = rrf_fuse(&[vec![42]], 60);
        assert_eq!(
            fused,
            [ScoredId {
                id: 42,
                score: 1.0 / 60.0
            }]
        );
        let fused = rrf_fuse(&[vec![42]], 10);
        assert_eq!(fused[0].score, 0.1);
    }

    #[test]
    fn ties_go_to_the_best_rank_then_the_smaller_id() {
        // With k = 1: id 1 scores 1/2 + 1/2 = 1 at best rank 1; ids 2 and 3
        // score 1/1 = 1 at rank 0. Exact in binary, so a true three-way tie.
        let fused = rrf_fuse(&[vec![2, 1], vec![3, 1]], 1);
        assert_eq!(ids(&fused), [2, 3, 1]);
        assert!(fused.iter().all(|s| s.score == 1.0));

        // Same score, same best rank: the smaller id first.
        let fused = rrf_fuse(&[vec![9, 4], vec![4, 9]], RRF_K);
        assert_eq!(ids(&fused), [4, 9]);
    }

    #[test]
    fn a_repeated_id_counts_once_per_list_at_its_best_rank() {
        let fused = rrf_fuse(&[vec![4, 4, 5]], RRF_K);
        assert_eq!(ids(&fused), [4, 5]);
        assert_eq!(fused[0].score, 1.0 / 60.0);
        // 5 keeps its position (rank 2) in the list as given.
        assert_eq!(fused[1].score, 1.0 / 62.0);
    }

    #[test]
    fn empty_input_gives_nothing() {
        assert!(rrf_fuse(&[], RRF_K).is_empty());
        assert!(rrf_fuse(&[vec![], vec![]], RRF_K).is_empty());
    }

    #[test]
    fn zero_k_is_raised_to_one() {
        let fused = rrf_fuse(&[vec![7, 8]], 0);
        assert_eq!(fused[0].score, 1.0);
        assert_eq!(fused[1].score, 0.5);
        assert!(fused.iter().all(|s| s.score.is_finite()));
    }

    #[test]
    fn list_order_does_not_change_the_scores() {
        let a = [vec![1, 2, 3, 4], vec![4, 3, 9], vec![2, 9, 1]];
        let b = [a[2].clone(), a[0].clone(), a[1].clone()];
        assert_eq!(rrf_fuse(&a, RRF_K), rrf_fuse(&b, RRF_K));
    }
}
