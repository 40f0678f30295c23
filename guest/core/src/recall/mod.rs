//! Recall: from a query to the block of memories a model reads.
//!
//! Recall runs at the start of every turn. It is not one keyword search but
//! several *lanes*, each a different reason for a memory to be worth showing
//! (design §4): the query's words and meaning (hybrid BM25 + vector search),
//! importance, a calendar period the query names, the user's profile, facts
//! and events, and verbatim excerpts of past conversations. This module holds
//! the pure part of that pipeline; the engine component does the I/O (store
//! searches, embedding, reranking) in between. The steps:
//!
//! 1. **Plan** ([`plan_recall`]): read the query once — is it a catch-up
//!    request ([`detect_catch_up`](crate::detect_catch_up))? does it name a
//!    period ([`parse_date_window`](crate::parse_date_window))? — and decide
//!    which [`Lane`]s run, with what store filters and fetch sizes
//!    ([`LaneSpec`]).
//! 2. **Gather** (the engine): run each lane against each mind and turn every
//!    hit into a [`Candidate`] carrying its lane, its rank and lane score
//!    ([`LaneHit`]) and what scoring needs to know about the frame
//!    ([`FrameInfo`]).
//! 3. **Rank** ([`rank_candidates`]): fuse each lane's keyword and vector
//!    lists per mind by reciprocal rank fusion
//!    ([`rrf_fuse`](crate::rrf_fuse)), drop what fails the
//!    [`RelevanceFloor`], let the optional reranker reorder the top of the
//!    query-matched lanes, score `final = fused × relevance`
//!    ([`compute_relevance`](crate::compute_relevance)), cap each lane and
//!    keep each frame once.
//! 4. **Assemble** ([`assemble_recall`]): render the ranked memories as text —
//!    workspace mind before personal, one section per kind of memory, every
//!    memory with its date, temporal guidance on top — and scan the whole
//!    block for prompt injection. One unsafe hit withholds everything.
//!
//! Frames are identified by `(mind, id)`: ids are per-mind autoincrements and
//! collide between minds (design §8), so nothing here ever keys on the id
//! alone.

mod changes;
mod context;
mod floor;
mod format;
mod passage;
mod person;
mod plan;
mod rank;

pub use changes::{
    ChangeOrdering, Placement, SUCCESSOR_NEIGHBOURS, SUCCESSOR_SOURCES, continues,
    insert_successors, order_changes, order_successor_candidates, successor_memory,
    successor_sources,
};
pub use context::{AwarenessContext, IdentityContext, SystemContext, build_system_context};
pub use floor::{
    ANSWER_COSINE_SHARE, ANSWER_KEYWORD_SHARE, CALIBRATION_SENTENCES, DEFAULT_MIN_COSINE,
    QUERY_STOP_WORDS, RelevanceFloor, StandingLanes, answer_min_cosine, answers,
    calibrated_min_cosine, is_query_word, keyword_coverage, query_words,
};
pub use format::{RAW_EXCERPT_MAX_CHARS, RecallOutput, TEMPORAL_GUIDANCE, assemble_recall};
pub use passage::{display_text, embedding_text, passage_text};
pub use person::{
    OWNER_LEAST, OWNER_SHARE, READING_SURE_PROBABILITY, asks_in_first_person, in_owners_person,
    owner_name, with_owners_reading,
};
pub use plan::{
    CATCH_UP_MIN_IMPORTANCE, DATE_WINDOW_FETCH_MULTIPLIER, DEFAULT_RECALL_LIMIT, EVENT_PREFIX,
    EVENTS_LANE_LIMIT, FACT_PREFIX, FACTS_LANE_LIMIT, Fetch, IMPORTANCE_LANE_LIMIT,
    IMPORTANCE_LANE_MIN, LaneSpec, PROFILE_LANE_LIMIT, PROFILE_PREFIX, RAW_DETAIL_LANE_LIMIT,
    RAW_TURN_PREFIX, RERANK_PAIR_TOKENS, RERANK_POOL, RERANK_TOKEN_BUDGET, RecallPlan,
    SEARCH_FETCH_MULTIPLIER, plan_recall,
};
pub use rank::{
    Candidate, Evidence, FrameInfo, LaneHit, NAMED_SPEAKER_BOOST, NearMiss, RankOptions,
    RankedMemory, Ranking, rank_candidates, rank_recall,
};

use serde::{Deserialize, Serialize};

/// The mind a frame lives in, mirroring the WIT `types.mind` variant.
///
/// The derived order puts workspace minds (by id) before the personal mind:
/// that is the order recall renders them in (design §4, step 9: the active
/// mind first).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MindKey {
    /// A workspace mind, by workspace id.
    Workspace(String),
    /// The user's personal mind.
    Personal,
}

impl MindKey {
    /// A heading for the mind's part of the recall block.
    pub fn label(&self) -> String {
        match self {
            MindKey::Workspace(id) => format!("Workspace memory ({id})"),
            MindKey::Personal => "Personal memory".to_string(),
        }
    }
}

/// Why a memory was fetched: one lane of the recall pipeline.
///
/// The declaration order is the lanes' precedence: when one frame is found by
/// two lanes with exactly the same score, the earlier lane keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lane {
    /// Hybrid search: BM25 keyword search and vector search over the query,
    /// fused by RRF.
    Semantic,
    /// The hybrid search restricted to the calendar period the query names.
    DateWindow,
    /// A catch-up query's importance-based fetch (replaces semantic search).
    CatchUp,
    /// The few most recent critical and important frames, on every query.
    Importance,
    /// Verbatim `[mind-rawturn …]` conversation turns matching the query.
    RawDetail,
    /// `[mind-profile …]` frames: who the user (and others) are.
    Profile,
    /// `[mind-fact]` frames, oldest first.
    Facts,
    /// `[mind-event]` frames, shown in chronological order.
    Events,
}

impl Lane {
    /// Every lane, in precedence order.
    pub const ALL: [Lane; 8] = [
        Lane::Semantic,
        Lane::DateWindow,
        Lane::CatchUp,
        Lane::Importance,
        Lane::RawDetail,
        Lane::Profile,
        Lane::Facts,
        Lane::Events,
    ];

    /// The lane's name as reported in `recalled.lane` (`semantic`,
    /// `date-window`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Semantic => "semantic",
            Lane::DateWindow => "date-window",
            Lane::CatchUp => "catch-up",
            Lane::Importance => "importance",
            Lane::RawDetail => "raw-detail",
            Lane::Profile => "profile",
            Lane::Facts => "facts",
            Lane::Events => "events",
        }
    }

    /// Whether the lane searches with the query's words and meaning, so that
    /// its hits must show evidence of a match to pass the
    /// [`RelevanceFloor`].
    pub fn is_query_matched(self) -> bool {
        matches!(self, Lane::Semantic | Lane::RawDetail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_minds_sort_before_personal() {
        let mut minds = vec![
            MindKey::Personal,
            MindKey::Workspace("zeta".into()),
            MindKey::Workspace("alpha".into()),
        ];
        minds.sort();
        assert_eq!(
            minds,
            [
                MindKey::Workspace("alpha".into()),
                MindKey::Workspace("zeta".into()),
                MindKey::Personal
            ]
        );
    }

    #[test]
    fn mind_and_lane_serialise_like_the_wit_values() {
        assert_eq!(
            serde_json::to_string(&MindKey::Personal).unwrap(),
            "\"personal\""
        );
        assert_eq!(
            serde_json::to_string(&MindKey::Workspace("w1".into())).unwrap(),
            "{\"workspace\":\"w1\"}"
        );
        for lane in Lane::ALL {
            assert_eq!(
                serde_json::to_string(&lane).unwrap(),
                format!("\"{}\"", lane.as_str())
            );
        }
    }

    #[test]
    fn lane_precedence_is_declaration_order() {
        let mut sorted = Lane::ALL;
        sorted.sort();
        assert_eq!(sorted, Lane::ALL);
        assert!(Lane::Semantic.is_query_matched());
        assert!(Lane::RawDetail.is_query_matched());
        assert!(!Lane::Facts.is_query_matched());
        assert!(!Lane::DateWindow.is_query_matched());
    }
}
