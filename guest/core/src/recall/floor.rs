//! The relevance floor: when memory holds nothing about the query, recall
//! returns nothing.
//!
//! # Why the fused score cannot be the floor
//!
//! Reciprocal rank fusion looks only at ranks. Vector search always returns
//! its `k` nearest frames, however far they are, so the top hit of a query
//! memory knows nothing about scores `1/60` exactly like the top hit of a
//! query it knows everything about; relevance scoring then multiplies by
//! recency, popularity and importance, none of which says anything about the
//! query either. A threshold on `final = fused × relevance` would therefore
//! cut by rank and age, not by relevance. The only signals that measure how
//! well a frame matches *this* query in absolute terms are the lanes' own:
//!
//! - a **full-text (BM25) hit** means the frame contains at least one of the
//!   query's words after stop-words were dropped: a lexical match. Its BM25
//!   value is not comparable across stores (it depends on corpus size and
//!   term statistics), so only its existence is used;
//! - the **cosine similarity** of a vector hit (`1 − d²/2` of unit vectors)
//!   is on a fixed scale for a given embedding model, so a threshold on it
//!   is meaningful.
//!
//! Cross-encoder scores are not used: the reranker interface promises them
//! comparable within one call only.
//!
//! # The rule
//!
//! A hit of a query-matched lane ([`Lane::is_query_matched`]: semantic,
//! raw-detail) passes when it has a BM25 hit (if [`RelevanceFloor::lexical_match`])
//! or a vector hit with cosine ≥ [`RelevanceFloor::min_cosine`]. Lanes that
//! do not search by the query are judged by what anchors them instead:
//!
//! - the **catch-up** fetch and every **date-filtered** lane (the date-window
//!   lane, the events lane of a windowed query) are relevant by construction:
//!   the query asked for "what matters" or for "that period";
//! - the **standing** lanes (importance, profile, facts, unwindowed events)
//!   are fetched whatever the query says. Under the default
//!   [`StandingLanes::WhenAnchored`] they are shown only when something
//!   above anchored the recall (a query-matched hit passed, or a catch-up or
//!   date-filtered lane found a frame). Otherwise a question memory knows
//!   nothing about would still receive the five important frames, sixty facts
//!   and forty events: exactly the top-N noise the floor exists to stop, and
//!   an agent is better served by an empty block, which tells it that it
//!   remembers nothing about the topic. [`StandingLanes::Always`] restores
//!   the reference engine's behaviour of showing them on every query.
//!
//! # The threshold, calibrated per embedder
//!
//! The threshold belongs to the embedding model. Under
//! `all-MiniLM-L6-v2` unrelated sentences score near zero (roughly −0.1 to
//! 0.15), texts on the same topic upward of about 0.3, paraphrases 0.6 and
//! more; under `bge-small-en-v1.5`, whose similarity range is compressed,
//! unrelated sentences score 0.3 to 0.5 and a paraphrase 0.65. One constant
//! cannot serve both: 0.25 lets every bge hit through, and bge's 0.5 would
//! drop MiniLM's true matches.
//!
//! So the engine measures the model it has ([`calibrated_min_cosine`]):
//! it embeds [`CALIBRATION_SENTENCES`], sixteen sentences about mutually
//! unrelated things, each as a query and as a document, and takes the 99th
//! percentile of the cosines between a query and the *other* sentences:
//! how similar two unrelated texts look under this model, at the high end.
//! A hit must beat that. Measured: MiniLM 0.24 (the 0.25 this engine used
//! for it before, which leans towards keeping a weak true match, since a
//! dropped memory costs more than one line of noise), bge-small 0.50. The
//! engine does this once per embedder and records it in the personal mind;
//! [`DEFAULT_MIN_COSINE`] is the fallback when the calibration cannot run.
//! A lexical hit passes regardless, so an exact name or rare word that the
//! embedder scores low is still found. A mock embedder's cosines mean
//! nothing (the engine sets `min_cosine` above 1, so that only lexical hits
//! count). Known limit: one shared non-stop word is enough lexical
//! evidence, so a frame that shares only an incidental word with the query
//! passes.

use serde::{Deserialize, Serialize};

use super::Lane;

/// The default [`RelevanceFloor::min_cosine`], for `all-MiniLM-L6-v2`,
/// used when the embedder cannot be calibrated (see the module
/// documentation for the reasoning).
pub const DEFAULT_MIN_COSINE: f64 = 0.25;

/// Sentences about mutually unrelated things: everyday life, work, nature,
/// science, art. How similar they look to each other under a model is how
/// similar unrelated texts look under it ([`calibrated_min_cosine`]).
pub const CALIBRATION_SENTENCES: [&str; 16] = [
    "The train to the airport leaves every twenty minutes.",
    "She planted tomatoes and basil in the back garden.",
    "Our quarterly revenue grew by eight percent.",
    "The cat sleeps on the warm windowsill all afternoon.",
    "He fixed the leaking kitchen tap with a new washer.",
    "The museum's new exhibit covers ancient Egyptian pottery.",
    "Remember to renew the passport before the summer trip.",
    "The compiler reports an unused variable warning.",
    "Heavy rain is expected along the coast tonight.",
    "The violin concerto was written in three movements.",
    "We need more folding chairs for the school fundraiser.",
    "The marathon route passes the old stone bridge.",
    "Add two cups of flour and a pinch of salt.",
    "The dentist appointment moved to Thursday morning.",
    "Satellites measure the thickness of polar ice.",
    "The library extended its opening hours on weekends.",
];

/// The share of unrelated query–document cosines the floor sits above.
pub const CALIBRATION_PERCENTILE: f64 = 0.99;

/// The floor for a model, from its vectors of [`CALIBRATION_SENTENCES`]
/// embedded as queries (`queries`) and as documents (`documents`), in that
/// order: the [`CALIBRATION_PERCENTILE`] of the cosines between each query
/// and every *other* document (see the module documentation). `None` when
/// the vectors do not fit (other counts, empty or mismatched dimensions, a
/// zero vector, a cosine that is not a number).
pub fn calibrated_min_cosine(queries: &[Vec<f32>], documents: &[Vec<f32>]) -> Option<f64> {
    let n = CALIBRATION_SENTENCES.len();
    if queries.len() != n || documents.len() != n {
        return None;
    }
    let dim = queries.first()?.len();
    if dim == 0 || queries.iter().chain(documents).any(|v| v.len() != dim) {
        return None;
    }
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let mut cosines = Vec::with_capacity(n * (n - 1));
    for (i, query) in queries.iter().enumerate() {
        for (j, document) in documents.iter().enumerate() {
            if i == j {
                continue;
            }
            let dot: f64 = query
                .iter()
                .zip(document)
                .map(|(a, b)| f64::from(*a) * f64::from(*b))
                .sum();
            let cosine = dot / (norm(query) * norm(document));
            if !cosine.is_finite() {
                return None;
            }
            cosines.push(cosine);
        }
    }
    cosines.sort_by(f64::total_cmp);
    // The nearest-rank percentile.
    let rank = (CALIBRATION_PERCENTILE * cosines.len() as f64).ceil() as usize;
    cosines.get(rank.saturating_sub(1)).copied()
}

/// When the standing lanes (importance, profile, facts, unwindowed events)
/// are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StandingLanes {
    /// Only when something query-driven was found (the default).
    #[default]
    WhenAnchored,
    /// On every query (the reference engine's behaviour).
    Always,
}

/// What a frame must show to be recalled; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RelevanceFloor {
    /// The least cosine similarity at which a vector hit counts as a match.
    pub min_cosine: f64,
    /// Whether a full-text (BM25) hit counts as a match on its own.
    pub lexical_match: bool,
    /// When the standing lanes are shown.
    pub standing_lanes: StandingLanes,
}

impl Default for RelevanceFloor {
    fn default() -> Self {
        RelevanceFloor {
            min_cosine: DEFAULT_MIN_COSINE,
            lexical_match: true,
            standing_lanes: StandingLanes::WhenAnchored,
        }
    }
}

impl RelevanceFloor {
    /// No floor: every hit counts and the standing lanes always show (the
    /// reference engine's behaviour).
    pub const OFF: RelevanceFloor = RelevanceFloor {
        min_cosine: f64::NEG_INFINITY,
        lexical_match: true,
        standing_lanes: StandingLanes::Always,
    };

    /// Whether a query-matched hit with this evidence passes: a BM25 hit
    /// (when lexical matches count), or a best cosine of at least
    /// [`min_cosine`](Self::min_cosine). A NaN cosine never passes.
    pub fn admits(&self, lexical_hit: bool, best_cosine: Option<f64>) -> bool {
        (self.lexical_match && lexical_hit)
            || best_cosine.is_some_and(|cosine| cosine >= self.min_cosine)
    }

    /// Whether a lane is shown at all given whether the recall is anchored
    /// (see the module documentation). Query-matched and anchoring lanes are
    /// judged hit by hit instead, so this is true for them.
    pub(crate) fn shows_standing(&self, anchored: bool) -> bool {
        anchored || self.standing_lanes == StandingLanes::Always
    }
}

/// How the floor treats one lane of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaneRole {
    /// Searched by the query: each hit needs evidence.
    QueryMatched,
    /// Relevant by construction (catch-up, date-filtered); anchors the recall.
    Anchoring,
    /// Fetched whatever the query: shown only when the recall is anchored.
    Standing,
}

impl LaneRole {
    /// The role of `lane`, which is `date_filtered` in the plan or not.
    pub(crate) fn of(lane: Lane, date_filtered: bool) -> LaneRole {
        if date_filtered || lane == Lane::CatchUp {
            LaneRole::Anchoring
        } else if lane.is_query_matched() {
            LaneRole::QueryMatched
        } else {
            LaneRole::Standing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unit vectors at the given angles (radians) in the plane.
    fn at(angles: &[f64]) -> Vec<Vec<f32>> {
        angles
            .iter()
            .map(|a| vec![a.cos() as f32, a.sin() as f32])
            .collect()
    }

    #[test]
    fn the_floor_sits_at_the_high_end_of_unrelated_cosines() {
        let n = CALIBRATION_SENTENCES.len();
        // Spread over a half circle: cosines between distinct vectors run
        // from cos(π) = −1 up to cos(π/15), the neighbours'.
        let angles: Vec<f64> = (0..n)
            .map(|i| std::f64::consts::PI * i as f64 / (n - 1) as f64)
            .collect();
        let vectors = at(&angles);
        let floor = calibrated_min_cosine(&vectors, &vectors).unwrap();
        let neighbours = (std::f64::consts::PI / (n - 1) as f64).cos();
        // 240 cross cosines, 30 of them between neighbours: the 99th
        // percentile is a neighbour's.
        assert!((floor - neighbours).abs() < 1e-6, "{floor} vs {neighbours}");
        // A model that finds everything alike (a compressed range) gets a
        // high floor; one that finds nothing alike, a low one.
        let alike = at(&(0..n)
            .map(|i| 0.1 * i as f64 / n as f64)
            .collect::<Vec<_>>());
        assert!(calibrated_min_cosine(&alike, &alike).unwrap() > 0.99);
    }

    #[test]
    fn vectors_that_do_not_fit_give_no_floor() {
        let n = CALIBRATION_SENTENCES.len();
        let good = at(&vec![0.0; n]);
        assert_eq!(calibrated_min_cosine(&good[1..], &good), None);
        assert_eq!(calibrated_min_cosine(&good, &good[1..]), None);
        let mut ragged = good.clone();
        ragged[3] = vec![1.0, 0.0, 0.0];
        assert_eq!(calibrated_min_cosine(&ragged, &good), None);
        let mut zero = good.clone();
        zero[5] = vec![0.0, 0.0];
        assert_eq!(calibrated_min_cosine(&zero, &good), None);
        assert_eq!(calibrated_min_cosine(&[], &[]), None);
    }

    #[test]
    fn lexical_or_semantic_evidence_passes() {
        let floor = RelevanceFloor::default();
        assert!(floor.admits(true, None));
        assert!(floor.admits(true, Some(0.01)));
        assert!(floor.admits(false, Some(0.25)));
        assert!(floor.admits(false, Some(0.9)));
        assert!(!floor.admits(false, Some(0.2499)));
        assert!(!floor.admits(false, None));
        assert!(!floor.admits(false, Some(f64::NAN)));
    }

    #[test]
    fn lexical_evidence_can_be_switched_off() {
        let floor = RelevanceFloor {
            lexical_match: false,
            ..RelevanceFloor::default()
        };
        assert!(!floor.admits(true, Some(0.1)));
        assert!(floor.admits(true, Some(0.3)));
    }

    #[test]
    fn off_admits_every_hit_and_every_standing_lane() {
        assert!(RelevanceFloor::OFF.admits(false, Some(-1.0)));
        assert!(RelevanceFloor::OFF.admits(true, None));
        assert!(RelevanceFloor::OFF.shows_standing(false));
        assert!(!RelevanceFloor::default().shows_standing(false));
        assert!(RelevanceFloor::default().shows_standing(true));
    }

    #[test]
    fn lane_roles() {
        assert_eq!(LaneRole::of(Lane::Semantic, false), LaneRole::QueryMatched);
        assert_eq!(LaneRole::of(Lane::RawDetail, false), LaneRole::QueryMatched);
        assert_eq!(LaneRole::of(Lane::DateWindow, true), LaneRole::Anchoring);
        assert_eq!(LaneRole::of(Lane::CatchUp, false), LaneRole::Anchoring);
        assert_eq!(LaneRole::of(Lane::Events, true), LaneRole::Anchoring);
        assert_eq!(LaneRole::of(Lane::Events, false), LaneRole::Standing);
        assert_eq!(LaneRole::of(Lane::Facts, false), LaneRole::Standing);
        assert_eq!(LaneRole::of(Lane::Importance, false), LaneRole::Standing);
        assert_eq!(LaneRole::of(Lane::Profile, false), LaneRole::Standing);
    }
}
