//! Frame cleanup: which stored memories are dead weight.
//!
//! A mind accumulates frames that say nothing or say again what another
//! frame already says — saves that differ only in case or spacing (the
//! content hash dedups byte-equal bodies only), near-identical restatements,
//! bodies that are nothing but prefixes. They crowd recall's lanes and the
//! token budget. [`plan_cleanup`] finds them; the engine retires what it
//! finds by marking it `deprecated` (kept for history, ranked down, never
//! deleted: the store is a log, and a wrong retirement can be undone by
//! raising the importance again).
//!
//! # Rules, in order
//!
//! 1. **Left alone**: frames already `deprecated`; raw conversation turns
//!    (`[mind-rawturn …]`): those are the verbatim record an import made; a
//!    "thanks!" turn is part of the conversation it belongs to; and frames
//!    that are not live ([`CleanupFrame::live`] false): a version a
//!    correction or a newer statement replaced, a memory its owner (or a
//!    merge) archived, a memory quarantined for its owner's review (a
//!    hostile near-copy saved as critical must not be the one a group
//!    keeps). Those are history or held apart, already out of recall: neither
//!    dead weight to retire nor a survivor to keep in a current memory's
//!    place. A corrected memory usually reads almost like the version it
//!    replaced; were the old version a candidate, it (older, as important)
//!    would be kept and the correction retired as its near duplicate.
//! 2. **Empty**: a body (storage prefixes removed) with fewer than
//!    [`MIN_BODY_CHARS`] letters or digits.
//! 3. **Duplicate**: the same normalised body (lower-cased, white space
//!    collapsed, as [`crate::dedup`] normalises) as another frame.
//! 4. **Near duplicate**: trigram similarity ≥
//!    [`NEAR_DUPLICATE_THRESHOLD`] (0.75, the reference engine's harvest
//!    dedup) to another frame. This test is pairwise, so it runs only on a
//!    mind of at most [`MAX_NEAR_DUPLICATE_FRAMES`] candidate frames;
//!    beyond that the report says it was skipped.
//!
//! Within a group of duplicates the frame **kept** is the most important
//! one, then the oldest (the order given), so a cleanup never lowers what a
//! mind knows: the survivor is at least as important as every frame it
//! replaces.

use serde::{Deserialize, Serialize};

use crate::dedup::{NEAR_DUPLICATE_THRESHOLD, normalise, set_similarity, trigrams};
use crate::recall::{RAW_TURN_PREFIX, display_text};
use crate::types::Importance;

/// The fewest letters or digits a body needs to be a memory.
pub const MIN_BODY_CHARS: usize = 3;

/// The most candidate frames the pairwise near-duplicate test runs on.
pub const MAX_NEAR_DUPLICATE_FRAMES: usize = 5_000;

/// A stored frame, as cleanup sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct CleanupFrame {
    /// The frame id.
    pub id: u64,
    /// The stored content, prefixes included.
    pub content: String,
    /// Its importance.
    pub importance: Importance,
    /// Whether it is live: current (no newer version replaced it), active
    /// (not archived) and not quarantined (held for its owner's review).
    /// Only live frames are retired or kept.
    pub live: bool,
}

/// Why a frame is retired.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "reason")]
pub enum CleanupReason {
    /// Nothing to remember.
    Empty,
    /// The same normalised body as `kept`.
    Duplicate {
        /// The frame kept in its place.
        kept: u64,
    },
    /// Trigram similarity ≥ 0.75 to `kept`.
    NearDuplicate {
        /// The frame kept in its place.
        kept: u64,
        /// The similarity.
        similarity: f64,
    },
}

impl CleanupReason {
    /// `empty`, `duplicate` or `near-duplicate`.
    pub fn as_str(self) -> &'static str {
        match self {
            CleanupReason::Empty => "empty",
            CleanupReason::Duplicate { .. } => "duplicate",
            CleanupReason::NearDuplicate { .. } => "near-duplicate",
        }
    }

    /// The frame kept in this one's place, for duplicates.
    pub fn kept(self) -> Option<u64> {
        match self {
            CleanupReason::Empty => None,
            CleanupReason::Duplicate { kept } | CleanupReason::NearDuplicate { kept, .. } => {
                Some(kept)
            }
        }
    }
}

/// One frame to retire.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct CleanupVerdict {
    /// The frame.
    pub id: u64,
    /// Why.
    #[serde(flatten)]
    pub reason: CleanupReason,
}

/// What [`plan_cleanup`] found.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct CleanupPlan {
    /// The frames to retire, in the order given.
    pub retire: Vec<CleanupVerdict>,
    /// What the plan did not do, and why.
    pub notes: Vec<String>,
}

/// Find the frames to retire among `frames`, given oldest first (see the
/// module docs for the rules).
pub fn plan_cleanup(frames: &[CleanupFrame]) -> CleanupPlan {
    let mut plan = CleanupPlan::default();
    // The candidates: (position, frame, normalised body).
    let mut candidates: Vec<(usize, &CleanupFrame, String)> = Vec::new();
    // The verdict on each frame, by position.
    let mut verdicts: Vec<Option<CleanupReason>> = vec![None; frames.len()];
    let mut retire = |position: usize, reason: CleanupReason| {
        if let Some(verdict) = verdicts.get_mut(position) {
            *verdict = Some(reason);
        }
    };
    for (position, frame) in frames.iter().enumerate() {
        if !frame.live
            || frame.importance == Importance::Deprecated
            || frame.content.trim_start().starts_with(RAW_TURN_PREFIX)
        {
            continue;
        }
        let body = display_text(&frame.content, None);
        if body.chars().filter(|c| c.is_alphanumeric()).count() < MIN_BODY_CHARS {
            retire(position, CleanupReason::Empty);
            continue;
        }
        candidates.push((position, frame, normalise(&body)));
    }

    // Keeper order: most important first, then oldest.
    let rank = |frame: &CleanupFrame| {
        Importance::ALL
            .iter()
            .position(|importance| *importance == frame.importance)
            .unwrap_or(usize::MAX)
    };
    candidates.sort_by_key(|(position, frame, _)| (rank(frame), *position));

    // Exact duplicates of the normalised body: (position, id, body) of each
    // keeper, and the id of the frame that keeps each body.
    let mut keepers: Vec<(usize, u64, &str)> = Vec::new();
    let mut by_body: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    for (position, frame, body) in &candidates {
        match by_body.get(body.as_str()) {
            Some(&kept) => retire(*position, CleanupReason::Duplicate { kept }),
            None => {
                by_body.insert(body, frame.id);
                keepers.push((*position, frame.id, body));
            }
        }
    }

    // Near duplicates among the survivors.
    if keepers.len() > MAX_NEAR_DUPLICATE_FRAMES {
        plan.notes.push(format!(
            "the near-duplicate test was skipped: {} frames is more than the {} it compares pairwise",
            keepers.len(),
            MAX_NEAR_DUPLICATE_FRAMES
        ));
    } else {
        // (position, id, trigrams) of each keeper.
        let sets: Vec<_> = keepers
            .iter()
            .map(|&(position, id, body)| (position, id, trigrams(body)))
            .collect();
        // The keepers no earlier keeper nearly duplicates: (order, id, trigrams).
        let mut kept: Vec<(usize, u64, &std::collections::HashSet<[char; 3]>)> = Vec::new();
        for (order, (position, id, set)) in sets.iter().enumerate() {
            // Similarity ≥ t needs the smaller set to be ≥ t × the larger.
            let best = kept
                .iter()
                .filter(|(_, _, other)| {
                    let (a, b) = (set.len() as f64, other.len() as f64);
                    a.min(b) >= NEAR_DUPLICATE_THRESHOLD * a.max(b)
                })
                .map(|&(k, kept_id, other)| (k, kept_id, set_similarity(set, other)))
                .filter(|(_, _, similarity)| *similarity >= NEAR_DUPLICATE_THRESHOLD)
                .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)));
            match best {
                Some((_, kept_id, similarity)) => retire(
                    *position,
                    CleanupReason::NearDuplicate {
                        kept: kept_id,
                        similarity: (similarity * 100.0).round() / 100.0,
                    },
                ),
                None => kept.push((order, *id, set)),
            }
        }
    }

    plan.retire = verdicts
        .into_iter()
        .zip(frames)
        .filter_map(|(reason, frame)| {
            reason.map(|reason| CleanupVerdict {
                id: frame.id,
                reason,
            })
        })
        .collect();
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(id: u64, content: &str, importance: Importance) -> CleanupFrame {
        CleanupFrame {
            id,
            content: content.to_string(),
            importance,
            live: true,
        }
    }

    /// A version a correction (or a newer statement) replaced.
    fn replaced(id: u64, content: &str, importance: Importance) -> CleanupFrame {
        CleanupFrame {
            live: false,
            ..frame(id, content, importance)
        }
    }

    #[test]
    fn distinct_memories_are_kept() {
        let frames = [
            frame(1, "We chose Postgres for the ledger.", Importance::Normal),
            frame(2, "Ana prefers short answers.", Importance::Normal),
            frame(
                3,
                "[mind-fact] The API rate limit is 600 requests a minute.",
                Importance::Normal,
            ),
        ];
        assert_eq!(plan_cleanup(&frames), CleanupPlan::default());
    }

    #[test]
    fn duplicates_keep_the_most_important_then_the_oldest() {
        let frames = [
            frame(1, "We chose Postgres for the ledger.", Importance::Normal),
            frame(
                2,
                "we chose  POSTGRES for the ledger.",
                Importance::Important,
            ),
            frame(3, "We chose Postgres for the ledger.  ", Importance::Normal),
        ];
        let plan = plan_cleanup(&frames);
        assert_eq!(
            plan.retire,
            [
                CleanupVerdict {
                    id: 1,
                    reason: CleanupReason::Duplicate { kept: 2 }
                },
                CleanupVerdict {
                    id: 3,
                    reason: CleanupReason::Duplicate { kept: 2 }
                },
            ]
        );
    }

    #[test]
    fn near_duplicates_are_found_and_different_memories_are_not() {
        let frames = [
            frame(
                1,
                "The deploy pipeline moved to GitHub Actions in March.",
                Importance::Normal,
            ),
            frame(
                2,
                "The deploy pipeline moved to GitHub Actions in March!",
                Importance::Normal,
            ),
            frame(
                3,
                "The deploy pipeline moved to Buildkite in June.",
                Importance::Normal,
            ),
        ];
        let plan = plan_cleanup(&frames);
        assert_eq!(plan.retire.len(), 1, "{plan:?}");
        assert_eq!(plan.retire[0].id, 2);
        match plan.retire[0].reason {
            CleanupReason::NearDuplicate { kept, similarity } => {
                assert_eq!(kept, 1);
                assert!(similarity >= NEAR_DUPLICATE_THRESHOLD);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn empty_bodies_are_retired_but_raw_turns_and_deprecated_frames_are_left_alone() {
        let frames = [
            frame(1, "[mind-fact] ", Importance::Normal),
            frame(2, "ok", Importance::Normal),
            frame(
                3,
                "[mind-rawturn conv:a turn:1 speaker:Ana] ok",
                Importance::Normal,
            ),
            frame(
                4,
                "[mind-rawturn conv:a turn:2 speaker:Ana] ok",
                Importance::Normal,
            ),
            frame(5, "x", Importance::Deprecated),
        ];
        let plan = plan_cleanup(&frames);
        let retired: Vec<(u64, &str)> = plan
            .retire
            .iter()
            .map(|v| (v.id, v.reason.as_str()))
            .collect();
        assert_eq!(retired, [(1, "empty"), (2, "empty")]);
    }

    #[test]
    fn a_current_version_is_never_retired_in_favour_of_a_replaced_one() {
        // Each current version (10, 20, 30) was written after the version it
        // corrected (1, 2, 3), which is older and more important: were the
        // replaced versions candidates, each would be kept over its
        // correction.
        let frames = [
            replaced(
                1,
                "The team stand-up is at 9:30 on Mondays.",
                Importance::Critical,
            ),
            replaced(
                2,
                "[mind-fact] Ana's phone number is 555 0101.",
                Importance::Important,
            ),
            replaced(3, "Karim lives in Rotterdam.", Importance::Important),
            replaced(4, "ok", Importance::Normal),
            frame(
                10,
                "The team stand-up is at 9:45 on Mondays.",
                Importance::Normal,
            ),
            frame(
                20,
                "[mind-fact] ana's phone number is  555 0101.",
                Importance::Normal,
            ),
            frame(30, "Karim lives in Rotterdam.", Importance::Normal),
        ];
        assert_eq!(plan_cleanup(&frames), CleanupPlan::default());

        // Among live frames the rules hold as before: a live duplicate of
        // the current version is retired in its favour.
        let mut with_copy = frames.to_vec();
        with_copy.push(frame(31, "karim lives in rotterdam.", Importance::Normal));
        let plan = plan_cleanup(&with_copy);
        assert_eq!(
            plan.retire,
            [CleanupVerdict {
                id: 31,
                reason: CleanupReason::Duplicate { kept: 30 }
            }]
        );
    }

    #[test]
    fn the_pairwise_test_is_skipped_with_a_note_past_its_cap() {
        let frames: Vec<CleanupFrame> = (0..=MAX_NEAR_DUPLICATE_FRAMES as u64)
            .map(|i| {
                frame(
                    i,
                    &format!("memory number {i} about topic {}", i * 7919),
                    Importance::Normal,
                )
            })
            .collect();
        let plan = plan_cleanup(&frames);
        assert!(plan.retire.is_empty());
        assert_eq!(plan.notes.len(), 1, "{:?}", plan.notes);
    }
}
