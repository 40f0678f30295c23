//! Relevance scoring: recency, popularity, graph distance and importance.
//!
//! After fusion, recall re-ranks frames by how relevant they are beyond mere
//! similarity (`final = rrf × relevance`). Four signals are computed for a
//! frame and combined as a weighted sum whose weights depend on a
//! [`ScoringProfile`]:
//!
//! - **temporal** (recency): full strength for [`FULL_STRENGTH_DAYS`] = 7
//!   days, then halving every [`HALF_LIFE_DAYS`] = 30 days:
//!   `0.5^((days − 7) / 30)`. The reference engine uses `0.5^(days / 30)`
//!   after day 7, which jumps from 1.0 to 0.851 at the seventh day (a known
//!   flaw); measuring the decay from day 7 makes the curve continuous, so a
//!   frame that is 37 days old scores exactly 0.5. Timestamps in the future
//!   score 1.0. The frame's time is its event time (`created_at`), else when
//!   it was last recalled. With neither, the age is unknown and the signal is
//!   [`UNKNOWN_AGE_TEMPORAL`] = 0.5, the middle of its range: unknown age is
//!   neither rewarded as fresh nor punished as ancient. (The reference always
//!   has a time, so it has no such rule.)
//! - **popularity**: `1 + 0.1 · log10(1 + access_count)`, so 0 accesses give
//!   1.0, 9 give 1.1, 99 give 1.2: a thousandfold difference in use is worth
//!   only 0.3, and there is no cap.
//! - **contextual**: hops in the knowledge graph from the query's entities to
//!   the frame's: 0/1/2/3 → 1.0/0.7/0.4/0.2, farther or unreachable → 0.
//! - **importance**: [`Importance::weight`] (critical 2.0 … deprecated 0.3).
//!
//! All constants are the reference engine's (`reference-constants.md`)
//! except the continuous temporal curve and the unknown-age value above.
//!
//! # How recall uses them: a bounded multiplier
//!
//! The reference ranks by `fused × score`. But `score` spans a factor of
//! five (0.26 for a deprecated, long-forgotten frame to 1.4 for a fresh,
//! critical one) while RRF's fused values are flat: with `k = 60`, the first
//! and the thirteenth of a list differ by only 22 %. So recency and
//! importance, not the evidence, decided the order, and fetching deeper made
//! the top worse: every extra weak-but-recent candidate could jump over an
//! old strong match (measured on LoCoMo: with 50 memories fetched, S@1 fell
//! from 36 % to 24 % while S@10 rose).
//!
//! Recall therefore uses [`relevance_multiplier`]: each signal is first put
//! on 0–1 ([`normalized_signals`]), the profile's weights average them, and
//! the average moves the evidence by at most ± [`RELEVANCE_SWAY`] (10 %):
//! `multiplier = 1 − sway + 2 · sway · average`. The signals re-order
//! memories whose evidence is within about 20 % of each other (near-ties: a
//! few places apart in one search's list, or passages the reranker scores
//! alike) and never overturn a clear difference in evidence (a memory both
//! searches rank first has twice the fused score of one only one search
//! found; a reranker's confident match scores many times an unconfirmed
//! one). The profiles keep their meaning inside that band: under `recent`
//! the newer of two equal matches wins, under `important` the more important,
//! under `connected` the one nearer the query's entities.

use serde::{Deserialize, Serialize};

use crate::calendar::parse_instant;
use crate::types::{Importance, LogicError};

/// Days a frame keeps full temporal strength.
pub const FULL_STRENGTH_DAYS: f64 = 7.0;

/// After [`FULL_STRENGTH_DAYS`], the temporal signal halves every this many
/// days.
pub const HALF_LIFE_DAYS: f64 = 30.0;

/// The temporal signal of a frame with neither `created_at` nor
/// `last_accessed`: the middle of the signal's 0–1 range.
pub const UNKNOWN_AGE_TEMPORAL: f64 = 0.5;

/// How much each decade of accesses adds to the popularity signal.
pub const POPULARITY_PER_DECADE: f64 = 0.1;

/// The contextual signal by graph distance 0, 1, 2, 3; farther scores 0.
pub const CONTEXTUAL_BY_DISTANCE: [f64; 4] = [1.0, 0.7, 0.4, 0.2];

const SECONDS_PER_DAY: f64 = 86_400.0;

/// The most the relevance signals move a memory's evidence, either way: the
/// multiplier lies in `[1 − sway, 1 + sway]`. 10 % lets them decide between
/// memories whose evidence is within about a fifth of each other (ratio
/// 1.1 / 0.9) — a near-tie — and no further (see the module docs).
pub const RELEVANCE_SWAY: f64 = 0.1;

/// The popularity signal's excess over 1 that counts as full popularity:
/// 0.3, a thousand recalls (`0.1 · log10(1001)`).
const FULL_POPULARITY_EXCESS: f64 = 0.3;

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

/// The weight of each signal under a profile; each profile's weights sum
/// to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignalWeights {
    /// Weight of recency.
    pub temporal: f64,
    /// Weight of access popularity.
    pub popularity: f64,
    /// Weight of graph closeness.
    pub contextual: f64,
    /// Weight of the importance signal.
    pub importance: f64,
}

impl ScoringProfile {
    /// Every profile, the default first.
    pub const ALL: [ScoringProfile; 4] = [
        ScoringProfile::Balanced,
        ScoringProfile::Recent,
        ScoringProfile::Important,
        ScoringProfile::Connected,
    ];

    /// The profile's signal weights (temporal / popularity / contextual /
    /// importance).
    pub const fn weights(self) -> SignalWeights {
        let [temporal, popularity, contextual, importance] = match self {
            ScoringProfile::Balanced => [0.4, 0.2, 0.2, 0.2],
            ScoringProfile::Recent => [0.6, 0.1, 0.2, 0.1],
            ScoringProfile::Important => [0.1, 0.1, 0.2, 0.6],
            ScoringProfile::Connected => [0.1, 0.1, 0.6, 0.2],
        };
        SignalWeights {
            temporal,
            popularity,
            contextual,
            importance,
        }
    }
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
///
/// Fails with [`LogicError::InvalidArgument`] naming the field (`now`,
/// `created-at` or `last-accessed`) when a timestamp is malformed; a present
/// `last_accessed` is checked even when `created_at` decides the age.
pub fn compute_relevance(
    input: &RelevanceInput,
    profile: ScoringProfile,
) -> Result<Relevance, LogicError> {
    let now = parse_field("now", &input.now)?;
    let created_at = input
        .created_at
        .as_deref()
        .map(|t| parse_field("created-at", t))
        .transpose()?;
    let last_accessed = input
        .last_accessed
        .as_deref()
        .map(|t| parse_field("last-accessed", t))
        .transpose()?;

    let temporal = match created_at.or(last_accessed) {
        Some(time) => {
            let age_days = (now - time).num_milliseconds() as f64 / 1000.0 / SECONDS_PER_DAY;
            temporal_signal(age_days)
        }
        None => UNKNOWN_AGE_TEMPORAL,
    };
    let popularity = popularity_signal(input.access_count);
    let contextual = contextual_signal(input.graph_distance);
    let importance = input.importance.weight();

    let w = profile.weights();
    let score = temporal * w.temporal
        + popularity * w.popularity
        + contextual * w.contextual
        + importance * w.importance;
    Ok(Relevance {
        temporal,
        popularity,
        contextual,
        importance,
        score,
    })
}

/// The four signals of `relevance`, each put on 0–1 so that the profile's
/// weights compare like with like: temporal and contextual as they are;
/// popularity's excess over 1 against a thousand recalls (capped at 1);
/// importance linearly from deprecated (0) to critical (1), so normal is
/// 0.41.
pub fn normalized_signals(relevance: &Relevance) -> SignalWeights {
    let lowest = Importance::Deprecated.weight();
    let highest = Importance::Critical.weight();
    SignalWeights {
        temporal: relevance.temporal.clamp(0.0, 1.0),
        popularity: ((relevance.popularity - 1.0) / FULL_POPULARITY_EXCESS).clamp(0.0, 1.0),
        contextual: relevance.contextual.clamp(0.0, 1.0),
        importance: ((relevance.importance - lowest) / (highest - lowest)).clamp(0.0, 1.0),
    }
}

/// The factor recall multiplies a memory's evidence by: the profile's
/// weighted average of the [`normalized_signals`], mapped onto
/// `[1 − RELEVANCE_SWAY, 1 + RELEVANCE_SWAY]` (see the module docs). A
/// signal that is not a number counts as 0.
pub fn relevance_multiplier(relevance: &Relevance, profile: ScoringProfile) -> f64 {
    let signals = normalized_signals(relevance);
    let weights = profile.weights();
    let average = [
        (signals.temporal, weights.temporal),
        (signals.popularity, weights.popularity),
        (signals.contextual, weights.contextual),
        (signals.importance, weights.importance),
    ]
    .iter()
    .map(|(signal, weight)| {
        if signal.is_nan() {
            0.0
        } else {
            signal * weight
        }
    })
    .sum::<f64>()
    .clamp(0.0, 1.0);
    1.0 - RELEVANCE_SWAY + 2.0 * RELEVANCE_SWAY * average
}

/// The recency signal for a frame `age_days` old: 1.0 up to
/// [`FULL_STRENGTH_DAYS`] (and for negative ages, i.e. future timestamps),
/// then `0.5^((age_days − 7) / 30)`.
pub fn temporal_signal(age_days: f64) -> f64 {
    if age_days <= FULL_STRENGTH_DAYS {
        1.0
    } else {
        0.5_f64.powf((age_days - FULL_STRENGTH_DAYS) / HALF_LIFE_DAYS)
    }
}

/// The popularity signal: `1 + 0.1 · log10(1 + access_count)`.
pub fn popularity_signal(access_count: u32) -> f64 {
    1.0 + POPULARITY_PER_DECADE * (1.0 + f64::from(access_count)).log10()
}

/// The contextual signal for a graph distance ([`CONTEXTUAL_BY_DISTANCE`];
/// 0 beyond 3 hops or when unreachable).
pub fn contextual_signal(graph_distance: Option<u32>) -> f64 {
    graph_distance
        .and_then(|d| usize::try_from(d).ok())
        .and_then(|d| CONTEXTUAL_BY_DISTANCE.get(d).copied())
        .unwrap_or(0.0)
}

/// Parse one timestamp field, naming the field in the error.
fn parse_field(field: &str, text: &str) -> Result<chrono::DateTime<chrono::Utc>, LogicError> {
    parse_instant(text).map_err(|LogicError::InvalidArgument(why)| {
        LogicError::InvalidArgument(format!("{field}: {why}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-05-08T12:00:00Z";

    fn input(created_at: Option<&str>) -> RelevanceInput {
        RelevanceInput {
            created_at: created_at.map(str::to_owned),
            last_accessed: None,
            now: NOW.to_owned(),
            access_count: 0,
            graph_distance: None,
            importance: Importance::Normal,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn temporal_is_full_for_a_week_then_halves_every_30_days() {
        assert_eq!(temporal_signal(0.0), 1.0);
        assert_eq!(temporal_signal(7.0), 1.0);
        assert_eq!(temporal_signal(37.0), 0.5);
        assert_eq!(temporal_signal(67.0), 0.25);
        assert_eq!(temporal_signal(-3.0), 1.0);
        // Continuous at day 7 (the reference steps to 0.851 here).
        assert!(temporal_signal(7.0 + 1e-9) > 0.999_999);
        assert!(close(temporal_signal(22.0), 0.5_f64.sqrt()));
    }

    #[test]
    fn temporal_reads_the_timestamps() {
        let at = |created: &str| compute_relevance(&input(Some(created)), ScoringProfile::Balanced);
        assert_eq!(at("2026-04-01T12:00:00Z").unwrap().temporal, 0.5); // 37 days
        assert_eq!(at("2026-05-01T12:00:00Z").unwrap().temporal, 1.0); // 7 days
        assert_eq!(at("2026-06-01").unwrap().temporal, 1.0); // the future
        // 67 days before, as a date in another zone's notation.
        assert_eq!(at("2026-03-02T14:00:00+02:00").unwrap().temporal, 0.25);
    }

    #[test]
    fn created_at_wins_over_last_accessed_and_unknown_age_is_neutral() {
        let mut frame = input(Some("2026-04-01T12:00:00Z"));
        frame.last_accessed = Some("2026-05-08T11:00:00Z".to_owned());
        assert_eq!(
            compute_relevance(&frame, ScoringProfile::Balanced)
                .unwrap()
                .temporal,
            0.5
        );

        frame.created_at = None;
        assert_eq!(
            compute_relevance(&frame, ScoringProfile::Balanced)
                .unwrap()
                .temporal,
            1.0
        );

        frame.last_accessed = None;
        let unknown = compute_relevance(&frame, ScoringProfile::Balanced).unwrap();
        assert_eq!(unknown.temporal, UNKNOWN_AGE_TEMPORAL);
    }

    #[test]
    fn popularity_grows_by_a_tenth_per_decade() {
        assert_eq!(popularity_signal(0), 1.0);
        assert!(close(popularity_signal(9), 1.1));
        assert!(close(popularity_signal(99), 1.2));
        assert!(close(popularity_signal(999), 1.3));
        assert!(popularity_signal(u32::MAX) < 2.0);
    }

    #[test]
    fn contextual_by_distance() {
        let got: Vec<f64> = [
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(u32::MAX),
            None,
        ]
        .into_iter()
        .map(contextual_signal)
        .collect();
        assert_eq!(got, [1.0, 0.7, 0.4, 0.2, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn weights_match_the_design_and_sum_to_one() {
        let w = ScoringProfile::Recent.weights();
        assert_eq!(
            (w.temporal, w.popularity, w.contextual, w.importance),
            (0.6, 0.1, 0.2, 0.1)
        );
        for profile in ScoringProfile::ALL {
            let w = profile.weights();
            assert!(close(
                w.temporal + w.popularity + w.contextual + w.importance,
                1.0
            ));
        }
        assert_eq!(ScoringProfile::default(), ScoringProfile::Balanced);
    }

    #[test]
    fn score_is_the_weighted_sum() {
        let frame = RelevanceInput {
            created_at: Some("2026-04-01T12:00:00Z".to_owned()), // 37 days: 0.5
            last_accessed: None,
            now: NOW.to_owned(),
            access_count: 9,                   // 1.1
            graph_distance: Some(1),           // 0.7
            importance: Importance::Important, // 1.5
        };
        let balanced = compute_relevance(&frame, ScoringProfile::Balanced).unwrap();
        assert_eq!(balanced.temporal, 0.5);
        assert!(close(balanced.popularity, 1.1));
        assert_eq!(balanced.contextual, 0.7);
        assert_eq!(balanced.importance, 1.5);
        // 0.4·0.5 + 0.2·1.1 + 0.2·0.7 + 0.2·1.5
        assert!(close(balanced.score, 0.86));
        // 0.1·0.5 + 0.1·1.1 + 0.2·0.7 + 0.6·1.5
        let important = compute_relevance(&frame, ScoringProfile::Important).unwrap();
        assert!(close(important.score, 1.2));
        // 0.1·0.5 + 0.1·1.1 + 0.6·0.7 + 0.2·1.5
        let connected = compute_relevance(&frame, ScoringProfile::Connected).unwrap();
        assert!(close(connected.score, 0.88));
        // 0.6·0.5 + 0.1·1.1 + 0.2·0.7 + 0.1·1.5
        let recent = compute_relevance(&frame, ScoringProfile::Recent).unwrap();
        assert!(close(recent.score, 0.7));
    }

    #[test]
    fn malformed_timestamps_name_their_field() {
        let mut frame = input(Some("2026-04-01"));
        frame.now = "tomorrow".to_owned();
        let err = compute_relevance(&frame, ScoringProfile::Balanced).unwrap_err();
        assert!(
            matches!(&err, LogicError::InvalidArgument(m) if m.starts_with("now: ")),
            "{err}"
        );

        let frame = input(Some("2026-02-30"));
        let err = compute_relevance(&frame, ScoringProfile::Balanced).unwrap_err();
        assert!(matches!(&err, LogicError::InvalidArgument(m) if m.starts_with("created-at: ")));

        // Checked even though created_at decides the age.
        let mut frame = input(Some("2026-04-01"));
        frame.last_accessed = Some("last week".to_owned());
        let err = compute_relevance(&frame, ScoringProfile::Balanced).unwrap_err();
        assert!(matches!(&err, LogicError::InvalidArgument(m) if m.starts_with("last-accessed: ")));
    }
}
