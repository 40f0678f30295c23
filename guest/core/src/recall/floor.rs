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
//! # The default threshold
//!
//! [`DEFAULT_MIN_COSINE`] = 0.25 is chosen for the shipped embedder,
//! sentence-transformers `all-MiniLM-L6-v2`, from that family's usual
//! similarity ranges, not from any benchmark: unrelated sentences score near
//! zero (roughly −0.1 to 0.15), texts on the same topic upward of about 0.3,
//! paraphrases 0.6 and more. 0.25 sits above the unrelated band with margin
//! and leans towards keeping a weak true match, because a dropped memory
//! costs more than one line of noise once something relevant *was* found.
//! A lexical hit passes regardless, so an exact name or rare word that the
//! embedder scores low is still found.
//!
//! The threshold belongs to the embedding model: models with a compressed
//! similarity range (the e5 and bge families score unrelated texts around
//! 0.7) need their own value, and a mock embedder's cosines mean nothing (set
//! `min_cosine` above 1, so that only lexical hits count). Known limit: one
//! shared non-stop word is enough lexical evidence, so a frame that shares
//! only an incidental word with the query passes.

use serde::{Deserialize, Serialize};

use super::Lane;

/// The default [`RelevanceFloor::min_cosine`], for `all-MiniLM-L6-v2`
/// (see the module documentation for the reasoning).
pub const DEFAULT_MIN_COSINE: f64 = 0.25;

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
