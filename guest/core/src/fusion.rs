//! Fusion: merging ranked lists into one.
//!
//! Two fusions live here: [`hybrid_fuse`], which merges one search's
//! keyword (BM25) and vector hits by their normalised scores, and
//! [`rrf_fuse`], reciprocal rank fusion of ranked id lists, which merges
//! listings and is the logic export `rrf-fuse`.
//!
//! # Hybrid fusion: normalised scores, not ranks
//!
//! The reference engine fused keyword and vector hits by RRF. RRF keeps only
//! the ranks, and that throws away what the two searches know about how
//! *well* something matched: a turn that holds the query's two rare words
//! (a BM25 score far above the rest) counts the same as one holding a
//! common word, and a frame both searches rank lukewarm (10th and 12th)
//! beats the best keyword match that the vector search missed (2/70 >
//! 1/60). [`hybrid_fuse`] is a convex combination of the two normalised
//! scores instead (Bruch, Gai & Ingber, "An Analysis of Fusion Functions
//! for Hybrid Retrieval", 2023, found it better than RRF on every data set
//! they tried): BM25 divided by the search's best BM25, the cosine min–max
//! normalised over the vector hits, a hit a search did not return counting
//! 0 for it, the two weighted equally ([`KEYWORD_WEIGHT`] = ½, trusting
//! neither search more; a weight tuned to one benchmark would not carry
//! over to another). The result is put on RRF's scale ([`HYBRID_SCALE`]),
//! so a searched lane's scores stay comparable with the listing lanes'.
//! Measured on LoCoMo (`hive-mind-lab eval locomo`, reranker off): session R@1
//! and turn R@10 rose by about two points each over RRF.
//!
//! # Reciprocal rank fusion
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

    let fused: Vec<Fused> = ranks
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

    ranked(fused)
}

/// The keyword search's share of a hybrid score ([`hybrid_fuse`]); the
/// vector search has the rest.
pub const KEYWORD_WEIGHT: f64 = 0.5;

/// The least spread of cosines that [`hybrid_fuse`] stretches to the
/// whole 0–1 range. Min–max normalisation makes the best vector hit 1 and
/// the least 0 however close they are; when a search's cosines differ by a
/// few hundredths (a mock embedder, or a query every hit matches about
/// equally) that would blow noise up to the whole vector weight. A tenth
/// of cosine is about what separates a paraphrase from a related text.
pub const MIN_COSINE_SPREAD: f64 = 0.1;

/// The hybrid score of a frame that is the best hit of both searches:
/// `2 / RRF_K`, the most RRF gives over two lists, so that hybrid scores and
/// the listing lanes' RRF scores (`1 / (RRF_K + rank)`) share one scale.
pub const HYBRID_SCALE: f64 = 2.0 / RRF_K as f64;

/// Fuse one search's keyword hits `text` (`(id, bm25)`, best first, the
/// BM25 score higher-is-better) and vector hits `vector` (`(id, cosine)`,
/// best first) by their normalised scores (see the module docs):
///
/// `score = HYBRID_SCALE × (w · bm25 / best_bm25 + (1 − w) · (1 − (max − cos) / spread))`
///
/// with `w` = [`KEYWORD_WEIGHT`] and `spread` the vector hits' `max − min`,
/// at least [`MIN_COSINE_SPREAD`]; a search that did not return an id adds
/// 0 for it. An id listed twice in one list counts at its first (best)
/// occurrence. A search whose scores are all equal (one hit, or no spread)
/// gives each of its hits 1; a score that is not a number counts as 0.
/// Sorted by score descending, then by the best position in either list,
/// then by id, so the order is total.
pub fn hybrid_fuse(text: &[(u64, f64)], vector: &[(u64, f64)]) -> Vec<ScoredId> {
    fn finite(score: f64) -> f64 {
        if score.is_finite() { score } else { 0.0 }
    }
    /// Each id at its first (best) position, with its score.
    fn first_occurrences(list: &[(u64, f64)]) -> Vec<(usize, u64, f64)> {
        let mut seen = HashSet::new();
        list.iter()
            .enumerate()
            .filter(|(_, (id, _))| seen.insert(*id))
            .map(|(rank, &(id, score))| (rank, id, finite(score)))
            .collect()
    }
    let text = first_occurrences(text);
    let vector = first_occurrences(vector);
    let best_text = text
        .iter()
        .map(|&(_, _, score)| score)
        .fold(f64::NEG_INFINITY, f64::max);
    let (low, high) = vector.iter().fold(
        (f64::INFINITY, f64::NEG_INFINITY),
        |(low, high), &(_, _, c)| (low.min(c), high.max(c)),
    );
    // Per id: normalised keyword score, normalised vector score, best rank.
    let mut parts: HashMap<u64, (f64, f64, usize)> = HashMap::new();
    for &(rank, id, score) in &text {
        let normalised = if best_text > 0.0 {
            (score / best_text).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let slot = parts.entry(id).or_insert((0.0, 0.0, rank));
        slot.0 = normalised;
        slot.2 = slot.2.min(rank);
    }
    // The best hit 1, the list's least 0 — unless the list's cosines lie
    // closer together than MIN_COSINE_SPREAD, which then spans 0 to 1.
    let spread = (high - low).max(MIN_COSINE_SPREAD);
    for &(rank, id, cosine) in &vector {
        let normalised = (1.0 - (high - cosine) / spread).clamp(0.0, 1.0);
        let slot = parts.entry(id).or_insert((0.0, 0.0, rank));
        slot.1 = normalised;
        slot.2 = slot.2.min(rank);
    }
    let fused: Vec<Fused> = parts
        .into_iter()
        .map(|(id, (keyword, semantic, best_rank))| Fused {
            id,
            score: HYBRID_SCALE * (KEYWORD_WEIGHT * keyword + (1.0 - KEYWORD_WEIGHT) * semantic),
            best_rank,
        })
        .collect();
    ranked(fused)
}

/// Sorted by score descending, then best rank ascending, then id
/// ascending: a total order.
fn ranked(mut fused: Vec<Fused>) -> Vec<ScoredId> {
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
    fn hybrid_scores_weigh_how_well_each_search_matched() {
        // 1: the best keyword match, not found by vectors; 2: the best
        // vector match, a weak keyword match; 3: lukewarm in both.
        let text = [(1, 10.0), (3, 4.0), (2, 2.0)];
        let vector = [(2, 0.80), (3, 0.55), (4, 0.40)];
        let fused = hybrid_fuse(&text, &vector);
        let score = |id: u64| fused.iter().find(|s| s.id == id).map(|s| s.score);
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-12);
        assert!(close(score(1), HYBRID_SCALE * 0.5));
        assert!(close(score(2), HYBRID_SCALE * (0.5 * 0.2 + 0.5)));
        assert!(close(
            score(3),
            HYBRID_SCALE * (0.5 * 0.4 + 0.5 * (0.15 / 0.40))
        ));
        // The worst vector hit normalises to 0, as if not found.
        assert!(close(score(4), 0.0));
        assert_eq!(ids(&fused), [2, 1, 3, 4]);
        // RRF would put the lukewarm 3 (found by both) above the best
        // keyword match 1.
        let rrf = rrf_fuse(&[vec![1, 3, 2], vec![2, 3, 4]], RRF_K);
        assert_eq!(ids(&rrf), [2, 3, 1, 4]);
    }

    #[test]
    fn hybrid_fusion_tops_out_at_the_rrf_scale() {
        let fused = hybrid_fuse(&[(7, 3.0)], &[(7, 0.9)]);
        assert_eq!(
            fused,
            [ScoredId {
                id: 7,
                score: HYBRID_SCALE
            }]
        );
        assert_eq!(HYBRID_SCALE, 2.0 / 60.0);
        // One search alone gives at most half.
        let keyword_only = hybrid_fuse(&[(7, 3.0)], &[]);
        assert_eq!(keyword_only[0].score, HYBRID_SCALE / 2.0);
        let vector_only = hybrid_fuse(&[], &[(7, 0.3), (8, 0.1)]);
        assert_eq!(ids(&vector_only), [7, 8]);
        assert_eq!(vector_only[0].score, HYBRID_SCALE / 2.0);
        assert_eq!(vector_only[1].score, 0.0);
    }

    #[test]
    fn cosines_that_barely_differ_stay_close() {
        // A mock embedder: every cosine within a hundredth.
        let fused = hybrid_fuse(&[], &[(1, -0.050), (2, -0.055), (3, -0.060)]);
        let scores: Vec<f64> = fused.iter().map(|s| s.score / HYBRID_SCALE).collect();
        assert_eq!(ids(&fused), [1, 2, 3]);
        assert!((scores[0] - 0.5).abs() < 1e-12);
        assert!((scores[2] - 0.5 * 0.9).abs() < 1e-9, "{scores:?}");
    }

    #[test]
    fn hybrid_fusion_survives_odd_scores() {
        assert!(hybrid_fuse(&[], &[]).is_empty());
        // Repeats count at their first occurrence; NaN counts as 0; equal
        // scores give 1; the order stays total (best position, then id).
        let fused = hybrid_fuse(&[(5, f64::NAN), (6, 2.0), (5, 9.0)], &[(9, 0.5), (8, 0.5)]);
        assert!(fused.iter().all(|s| s.score.is_finite()));
        assert_eq!(ids(&fused), [9, 6, 8, 5]);
        let zero = hybrid_fuse(&[(1, 0.0), (2, 0.0)], &[]);
        assert_eq!(ids(&zero), [1, 2]);
        assert_eq!(zero[0].score, zero[1].score);
    }

    #[test]
    fn list_order_does_not_change_the_scores() {
        let a = [vec![1, 2, 3, 4], vec![4, 3, 9], vec![2, 9, 1]];
        let b = [a[2].clone(), a[0].clone(), a[1].clone()];
        assert_eq!(rrf_fuse(&a, RRF_K), rrf_fuse(&b, RRF_K));
    }
}
