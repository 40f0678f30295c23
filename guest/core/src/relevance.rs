//! Relevance scoring: recency, popularity, graph distance and importance.

use serde::{Deserialize, Serialize};

use crate::types::{Importance, LogicError};

/// How the four signals are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoringProfile {
    /// 0.4 / 0.2 / 0.2 / 0.2
    #[default]
    Balanced,
    /// 0.6 / 0.1 / 0.2 / 0.1
    Recent,
    /// 0.1 / 0.1 / 0.2 / 0.6
    Important,
    /// 0.1 / 0.1 / 0.6 / 0.2
    Connected,
}

/// What scoring knows about one frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RelevanceInput {
    /// Event time (ISO-8601).
    pub created_at: Option<String>,
    /// Last recalled (ISO-8601).
    pub last_accessed: Option<String>,
    /// The time to score against (ISO-8601).
    pub now: String,
    /// Times recalled.
    pub access_count: u32,
    /// Hops from the query's entities; `None` when unreachable.
    pub graph_distance: Option<u32>,
    /// The frame's importance.
    pub importance: Importance,
}

/// Each signal and the weighted sum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Relevance {
    /// Recency.
    pub temporal: f64,
    /// Access popularity.
    pub popularity: f64,
    /// Graph closeness.
    pub contextual: f64,
    /// Importance weight.
    pub importance: f64,
    /// Weighted sum.
    pub score: f64,
}

/// Score a frame's relevance under a profile.
pub fn compute_relevance(
    input: &RelevanceInput,
    profile: ScoringProfile,
) -> Result<Relevance, LogicError> {
    unimplemented!("{input:?}{profile:?}")
}
