//! Among the memories recalled about one subject, the newest first.
//!
//! A write judges each new memory against its neighbours
//! ([`crate::change`]) and closes the ones it surely replaces; whatever was
//! decided then, recall looks again at what it is about to return: for two
//! recalled memories of one mind whose statements are related states
//! ([`judge_statements`] on their stored vectors: the learned judge where
//! one ships for the embedder, else the cosine and the words),
//!
//! - **replaces**: the older one is left out (a memory written before the
//!   write-time judgement existed, or one the neighbour search missed);
//! - **possible conflict**: both stay, the newer one is moved up to just
//!   above the older (it takes the older's score, so the list stays best
//!   first) and the older is marked [`RankedMemory::earlier`], which the
//!   block shows, so a model reads the current statement first and knows
//!   the other is older — unless the newer one is background (a standing
//!   lane's, fetched whatever the query) and the older one was found by
//!   the query: a "possibly related" is not enough to put it before an
//!   answer.
//!
//! Memories are compared by event time (`created_at`), then id.

use std::collections::HashMap;

use super::MindKey;
use super::rank::RankedMemory;
use crate::calendar::parse_instant;
use crate::change::{ChangeThresholds, Verdict, judge_statements};

/// What [`order_changes`] did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ChangeOrdering {
    /// The memories, the newer of each related pair first.
    pub memories: Vec<RankedMemory>,
    /// How many older memories were left out as replaced.
    pub replaced: usize,
    /// How many were marked earlier.
    pub earlier: usize,
}

/// The instant a memory's statement was made, for ordering.
fn event_key(memory: &RankedMemory) -> (i64, u64) {
    let at = memory
        .frame
        .created_at
        .as_deref()
        .and_then(|text| parse_instant(text).ok())
        .map_or(i64::MIN, |instant| instant.timestamp_millis());
    (at, memory.frame_id)
}

/// Order `memories` (best first) so that of two related statements the
/// newer comes first (see the module docs). `vectors` holds the stored
/// vector of each memory that has one, by `(mind, frame id)`; a memory
/// without one is left where it is.
pub fn order_changes(
    memories: Vec<RankedMemory>,
    vectors: &HashMap<(MindKey, u64), Vec<f32>>,
    thresholds: ChangeThresholds,
) -> ChangeOrdering {
    let mut memories = memories;
    let mut replaced = 0;
    let mut earlier = 0;
    // Left out: the older of a pair where the newer surely replaces it.
    let mut gone = vec![false; memories.len()];
    // (older index, newer index) of possible conflicts.
    let mut conflicts: Vec<(usize, usize)> = Vec::new();
    for i in 0..memories.len() {
        for j in (i + 1)..memories.len() {
            let (Some(a), Some(b)) = (memories.get(i), memories.get(j)) else {
                continue;
            };
            if a.mind != b.mind {
                continue;
            }
            let (Some(va), Some(vb)) = (
                vectors.get(&(a.mind.clone(), a.frame_id)),
                vectors.get(&(b.mind.clone(), b.frame_id)),
            ) else {
                continue;
            };
            let similarity = crate::vectors::cosine(va, vb);
            if similarity < thresholds.related {
                continue;
            }
            let (older, newer) = if event_key(a) <= event_key(b) {
                (i, j)
            } else {
                (j, i)
            };
            let (Some(old), Some(new)) = (memories.get(older), memories.get(newer)) else {
                continue;
            };
            let (vold, vnew) = if older == i { (va, vb) } else { (vb, va) };
            match judge_statements(
                (&old.frame.content, vold),
                (&new.frame.content, vnew),
                thresholds,
            ) {
                Verdict::Replaces => {
                    if let Some(flag) = gone.get_mut(older) {
                        *flag = true;
                    }
                }
                // A possible conflict moves the newer statement up, but
                // never a background memory above one the query found: it
                // was fetched whatever the question, and the judge's
                // "possibly related" is too weak to put it before an
                // answer ("Maya was promoted on 1 May", an important
                // memory, above "Maya's performance review is on 8 April"
                // for "When is my performance review?").
                Verdict::PossibleConflict if new.background && !old.background => {}
                Verdict::PossibleConflict => conflicts.push((older, newer)),
                Verdict::Unrelated => {}
            }
        }
    }
    for (index, memory) in memories.iter_mut().enumerate() {
        let is_earlier = conflicts
            .iter()
            .any(|&(older, newer)| older == index && !gone.get(newer).copied().unwrap_or(true));
        if is_earlier && !gone.get(index).copied().unwrap_or(true) {
            memory.earlier = true;
            earlier += 1;
        }
    }
    // Move each newer statement up to just above its highest-ranked older
    // one, carrying that one's score.
    let mut order: Vec<usize> = (0..memories.len()).collect();
    for &(older, newer) in &conflicts {
        let (Some(at_older), Some(at_newer)) = (
            order.iter().position(|&index| index == older),
            order.iter().position(|&index| index == newer),
        ) else {
            continue;
        };
        if at_newer > at_older {
            order.remove(at_newer);
            order.insert(at_older, newer);
        }
    }
    let scores: Vec<f64> = memories.iter().map(|memory| memory.score).collect();
    let mut slots: Vec<Option<RankedMemory>> = memories.drain(..).map(Some).collect();
    let mut out: Vec<RankedMemory> = Vec::with_capacity(slots.len());
    for index in order {
        if gone.get(index).copied().unwrap_or(false) {
            replaced += 1;
            continue;
        }
        if let Some(mut memory) = slots.get_mut(index).and_then(Option::take) {
            // A newer statement moved up takes the score of the older one
            // it now stands above, so the list stays best first.
            for &(older, newer) in &conflicts {
                if newer == index
                    && let Some(&score) = scores.get(older)
                {
                    memory.score = memory.score.max(score);
                }
            }
            out.push(memory);
        }
    }
    ChangeOrdering {
        memories: out,
        replaced,
        earlier,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::Lane;
    use crate::recall::rank::{Evidence, FrameInfo};
    use crate::relevance::Relevance;
    use crate::types::Importance;

    fn memory(id: u64, content: &str, at: &str, score: f64) -> RankedMemory {
        RankedMemory {
            mind: MindKey::Personal,
            frame_id: id,
            lane: Lane::Semantic,
            also_in: Vec::new(),
            evidence: Evidence::default(),
            chunk: None,
            fused: score,
            strength: score,
            relevance: Relevance {
                temporal: 0.0,
                popularity: 0.0,
                contextual: 0.0,
                importance: 0.0,
                score: 0.0,
            },
            multiplier: 1.0,
            score,
            why: String::new(),
            frame: FrameInfo {
                content: content.to_string(),
                created_at: Some(at.to_string()),
                last_accessed: None,
                importance: Importance::Normal,
                access_count: 0,
                graph_distance: None,
                screened: true,
                stands_for: Vec::new(),
            },
            earlier: false,
            background: false,
        }
    }

    fn vectors(pairs: &[(u64, [f32; 2])]) -> HashMap<(MindKey, u64), Vec<f32>> {
        pairs
            .iter()
            .map(|(id, v)| ((MindKey::Personal, *id), v.to_vec()))
            .collect()
    }

    #[test]
    fn the_newer_of_two_related_states_comes_first_and_the_older_is_marked() {
        let memories = vec![
            memory(1, "We keep invoices in MySQL.", "2025-01-01T00:00:00Z", 0.9),
            memory(2, "Unrelated note about tea.", "2025-06-01T00:00:00Z", 0.5),
            memory(
                3,
                "Invoices live in the ledger database.",
                "2026-01-01T00:00:00Z",
                0.3,
            ),
        ];
        // 1 and 3 are close (cosine 0.8: one subject, and the newer names
        // no new value); 2 points elsewhere.
        let vectors = vectors(&[(1, [1.0, 0.0]), (2, [0.0, 1.0]), (3, [0.8, 0.6])]);
        let out = order_changes(memories, &vectors, ChangeThresholds::for_floor(0.24));
        let ids: Vec<u64> = out.memories.iter().map(|m| m.frame_id).collect();
        assert_eq!(ids, [3, 1, 2]);
        assert!(
            out.memories
                .iter()
                .find(|m| m.frame_id == 1)
                .is_some_and(|m| m.earlier)
        );
        assert!(!out.memories.iter().any(|m| m.frame_id == 3 && m.earlier));
        assert_eq!(out.earlier, 1);
        let scores: Vec<f64> = out.memories.iter().map(|m| m.score).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    }

    #[test]
    fn a_background_memory_is_never_moved_above_what_the_query_found() {
        // The same pair as above, but the newer statement stands in the
        // importance lane (fetched whatever the query) and the older one
        // answered it: the order stays, nothing is marked earlier.
        let mut newer = memory(
            3,
            "Invoices live in the ledger database.",
            "2026-01-01T00:00:00Z",
            0.3,
        );
        newer.lane = Lane::Importance;
        newer.background = true;
        let memories = vec![
            memory(1, "We keep invoices in MySQL.", "2025-01-01T00:00:00Z", 0.9),
            newer,
        ];
        let vectors = vectors(&[(1, [1.0, 0.0]), (3, [0.8, 0.6])]);
        let out = order_changes(memories, &vectors, ChangeThresholds::for_floor(0.24));
        let ids: Vec<u64> = out.memories.iter().map(|m| m.frame_id).collect();
        assert_eq!(ids, [1, 3]);
        assert_eq!(out.earlier, 0);
        assert!(!out.memories.iter().any(|m| m.earlier));
    }

    #[test]
    fn a_sure_replacement_leaves_the_older_out() {
        let memories = vec![
            memory(1, "I live in Lisbon.", "2025-01-01T00:00:00Z", 0.9),
            memory(
                2,
                "We moved to Porto last weekend.",
                "2026-01-01T00:00:00Z",
                0.4,
            ),
        ];
        let vectors = vectors(&[(1, [1.0, 0.0]), (2, [0.8, 0.6])]);
        let out = order_changes(memories, &vectors, ChangeThresholds::for_floor(0.24));
        let ids: Vec<u64> = out.memories.iter().map(|m| m.frame_id).collect();
        assert_eq!(ids, [2]);
        assert_eq!(out.replaced, 1);
    }

    #[test]
    fn events_and_distant_memories_keep_their_order() {
        let memories = vec![
            memory(
                1,
                "Flew to Rome for the conference.",
                "2025-01-01T00:00:00Z",
                0.9,
            ),
            memory(
                2,
                "Flew to Oslo for the summit.",
                "2026-01-01T00:00:00Z",
                0.4,
            ),
            memory(3, "We keep invoices in MySQL.", "2024-01-01T00:00:00Z", 0.3),
        ];
        let vectors = vectors(&[(1, [1.0, 0.0]), (2, [1.0, 0.05]), (3, [0.0, 1.0])]);
        let out = order_changes(memories, &vectors, ChangeThresholds::for_floor(0.24));
        let ids: Vec<u64> = out.memories.iter().map(|m| m.frame_id).collect();
        assert_eq!(ids, [1, 2, 3]);
        assert_eq!((out.replaced, out.earlier), (0, 0));
    }
}
