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
//!   answer;
//! - **one subject** ([`crate::change::one_subject`]): the judge calls it
//!   neither, but reads the pair near its *possible* cut and the guards of
//!   a change hold. The query found both, so it has already chosen their
//!   subject: the newer is moved up to just above the older, and nothing is
//!   marked ("Nadia's manager is Oliver Grant." / "Since the reorg Nadia
//!   reports to Grace Liu." for "Who does Nadia answer to?"). Only between
//!   two memories the recall shows, so a weak pairing never pushes a
//!   memory out; that the query found by meaning (each at a cosine to it at
//!   or above the floor, not listed for a date or a keyword alone); and
//!   that are each other's closest of those: among several flights or
//!   trips the query found, no chain of weak pairings sinks the best
//!   answer under every newer one. And only where the reranker read both,
//!   never a newer memory it reads as no answer above an older one it
//!   reads as the answer: a memory that does not answer the query never
//!   ranks above one that does.
//!
//! The first two are judged only for pairs at or above the write's
//! *related* cosine: under it the write never weighed the pair, and the
//! judge's alarms there fall on pairs about different things ("Flying to
//! Madrid on 3 June" / "Passport office rescheduled me to 26 June"), so
//! such a pair can only be read as one subject.
//!
//! Memories are compared by event time (`created_at`), then id.

use std::collections::HashMap;

use super::MindKey;
use super::floor::{ANSWER_RERANK_PROBABILITY, answer_min_cosine};
use super::rank::RankedMemory;
use crate::calendar::parse_instant;
use crate::change::{
    ChangeThresholds, StatementKind, Verdict, judge_statements, one_subject, statement_kind,
};

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

/// Whether the query found `memory` itself, by meaning: not a standing
/// lane's background, and its best cosine to the query at or above the
/// embedder's floor (a memory listed only for its date or a keyword says
/// nothing of the query's subject).
fn found_by_meaning(memory: &RankedMemory, floor: f64) -> bool {
    !memory.background && memory.evidence.cosine.is_some_and(|cosine| cosine >= floor)
}

/// Whether the reranker read both memories and lets `newer` go above
/// `older`: not when it reads the older as answering the query
/// ([`ANSWER_RERANK_PROBABILITY`]) and the newer as not ("Freightly's
/// Christmas party is on 19 December", p 1.00, stays above "We moved
/// on-call alerting to Opsgenie in January", p 0.00). Without its reading
/// of both nothing tells an answer from a neighbour on another subject
/// ("The deploy key lives in the vault" is close enough to "We use Postgres
/// for the ledger" under MiniLM to pass every other test), so a weak
/// pairing is not made.
fn reranker_allows(older: &RankedMemory, newer: &RankedMemory) -> bool {
    match (
        older.evidence.rerank_probability,
        newer.evidence.rerank_probability,
    ) {
        (Some(p), Some(q)) => !(p >= ANSWER_RERANK_PROBABILITY && q < ANSWER_RERANK_PROBABILITY),
        _ => false,
    }
}

/// For each of the first `shown` memories the query found by meaning
/// ([`found_by_meaning`]), the index of the closest other such memory of
/// its mind, by their stored vectors.
fn nearest_found(
    memories: &[RankedMemory],
    vectors: &HashMap<(MindKey, u64), Vec<f32>>,
    floor: f64,
    shown: usize,
) -> Vec<Option<usize>> {
    let found: Vec<(usize, &RankedMemory, &Vec<f32>)> = memories
        .iter()
        .enumerate()
        .take(shown)
        .filter(|(_, memory)| found_by_meaning(memory, floor))
        .filter_map(|(index, memory)| {
            let vector = vectors.get(&(memory.mind.clone(), memory.frame_id))?;
            Some((index, memory, vector))
        })
        .collect();
    let mut nearest = vec![None; memories.len()];
    for &(index, memory, vector) in &found {
        let closest = found
            .iter()
            .filter(|(other, them, _)| *other != index && them.mind == memory.mind)
            .map(|&(other, _, theirs)| (other, crate::vectors::cosine(vector, theirs)))
            .filter(|(_, cosine)| cosine.is_finite())
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(other, _)| other);
        if let Some(slot) = nearest.get_mut(index) {
            *slot = closest;
        }
    }
    nearest
}

/// Order `memories` (best first) so that of two related statements the
/// newer comes first (see the module docs). `vectors` holds the stored
/// vector of each memory that has one, by `(mind, frame id)`; a memory
/// without one is left where it is. `shown` is how many the recall
/// returns: two states of one subject ([`one_subject`]) are reordered only
/// when both are among them, so a weak pairing never pushes a memory out.
pub fn order_changes(
    memories: Vec<RankedMemory>,
    vectors: &HashMap<(MindKey, u64), Vec<f32>>,
    thresholds: ChangeThresholds,
    shown: usize,
) -> ChangeOrdering {
    let mut memories = memories;
    let mut replaced = 0;
    let mut earlier = 0;
    // Left out: the older of a pair where the newer surely replaces it.
    let mut gone = vec![false; memories.len()];
    // (older index, newer index) of possible conflicts.
    let mut conflicts: Vec<(usize, usize)> = Vec::new();
    // (older index, newer index) of two states of one subject the query
    // found: the newer moves up, nothing is marked.
    let mut newer_first: Vec<(usize, usize)> = Vec::new();
    let nearest = nearest_found(&memories, vectors, thresholds.floor, shown);
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
            // The query has already chosen one subject, so a pair is
            // weighed from the floor, not only from the write's *related*
            // cut (see below).
            let similarity = crate::vectors::cosine(va, vb);
            if similarity < thresholds.floor {
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
            let (vold, vnew): (&[f32], &[f32]) = if older == i { (va, vb) } else { (vb, va) };
            let (old_statement, new_statement) = (
                (old.frame.content.as_str(), vold),
                (new.frame.content.as_str(), vnew),
            );
            // Two states of one subject the query found, both shown: the
            // newer moves up, unmarked. Under *related* this is all a pair
            // can get, whatever the judge says: the write never weighed it,
            // and there the judge's alarms fall on pairs about different
            // things.
            let weak_pair = || {
                nearest.get(i).copied().flatten() == Some(j)
                    && nearest.get(j).copied().flatten() == Some(i)
                    && reranker_allows(old, new)
                    && one_subject(old_statement, new_statement, thresholds)
            };
            let verdict = if similarity < thresholds.related {
                Verdict::Unrelated
            } else {
                judge_statements(old_statement, new_statement, thresholds)
            };
            match verdict {
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
                Verdict::Unrelated if weak_pair() => newer_first.push((older, newer)),
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
    let moves: Vec<(usize, usize)> = conflicts.iter().chain(&newer_first).copied().collect();
    let mut order: Vec<usize> = (0..memories.len()).collect();
    for &(older, newer) in &moves {
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
            for &(older, newer) in &moves {
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

/// How many of the memories a recall shows, from the top, it looks for a
/// newer statement of ([`continues`]): each costs one vector search of its
/// mind, and the answer is among the first few or not found at all.
pub const SUCCESSOR_SOURCES: usize = 3;

/// How many of an older memory's nearest neighbours are weighed as its
/// newer statement ([`continues`]).
pub const SUCCESSOR_NEIGHBOURS: u32 = 8;

/// The memories, among the first `shown`, whose newer statements recall
/// looks for: the first [`SUCCESSOR_SOURCES`] the query found by meaning
/// (at or above the `floor`) that answer it: the reranker, where it read
/// them, reads them as an answer, or they reach the cosine that answers by
/// meaning alone ([`answer_min_cosine`]: "Work laptop: ThinkPad X1
/// Carbon." for "What machine do I work on?", cosine 0.64, p 0.04). The
/// query found the subject through them; a newer state of that subject
/// (the query's words may miss it: "Which city am I based in these days?"
/// finds "I live in Lisbon." at cosine 0.54 and "We finally moved to Porto
/// last weekend" at 0.37, under the floor) is the answer now.
pub fn successor_sources(memories: &[RankedMemory], floor: f64, shown: usize) -> Vec<usize> {
    memories
        .iter()
        .enumerate()
        .take(shown)
        .filter(|(_, memory)| found_by_meaning(memory, floor))
        .filter(|(_, memory)| {
            memory
                .evidence
                .rerank_probability
                .is_none_or(|p| p >= ANSWER_RERANK_PROBABILITY)
                || memory
                    .evidence
                    .cosine
                    .is_some_and(|cosine| cosine >= answer_min_cosine(floor))
        })
        .map(|(index, _)| index)
        .take(SUCCESSOR_SOURCES)
        .collect()
}

/// Whether `newer`, a memory the query did not find, is a later statement
/// of the same subject as `older`, one it found, and where it goes: written
/// after it and at or above the *related* cosine (where the write weighs
/// pairs). Judged a change of it ([`judge_statements`]: a sure or a
/// possible one), it goes [`Placement::Above`]; otherwise
/// [`Placement::Below`]: the caller brings in only the memory whose
/// nearest is `older` (the engine's `nearest_is`), and that later
/// statement is worth showing even where the judge reads no change ("I
/// left Acme and joined Globex as a staff engineer." for "Where do I
/// work?", which finds "I work at Acme Corp"), but not above an answer the
/// query found. Weaker evidence brings in the wrong memory: measured on the
/// lab's live-loop personas, where many statements open alike ("Maya's
/// team keeps invoices in PostgreSQL." / "Maya's team adopted Renovate."),
/// reading pairs down to the floor, or as [`one_subject`], put an unrelated
/// statement first for 30 of 60 questions; read as one subject from the
/// floor up within the mutual-nearest rule, it still took the first place
/// from two answers (44 → 42 of 60). Under *related* but as near as a hit
/// that answers by meaning alone is to its question
/// ([`answer_min_cosine`]), a later statement still goes
/// [`Placement::Below`] (the judge is not asked: it weighs pairs from
/// *related* up), so it is shown after the answer and never above it.
/// Neither may be a conversation's turn ([`crate::RawTurnTag`]): a chat
/// says many things in one voice, and the rules that judge turns read a
/// later remark on the same topic as a change (measured on LoCoMo: three
/// questions got a later turn first).
///
/// Under *related*, where the judge does not read the pair, the question
/// is the second reading: a later statement it reaches too
/// ([`asked_for_too`]: `question_cosine`, its best cosine to the question,
/// at or above the floor) that states a state where the older states no
/// event goes [`Placement::Above`]. "What machine do I work on?" finds
/// "Work laptop: ThinkPad X1 Carbon." and reaches "IT swapped my laptop for
/// a MacBook Pro M4." at 0.60 (bge): the older memory's nearest later
/// statement, and near the question, is the answer now. From *related* up
/// the judge has read the pair, and its "no change" stands: measured on the
/// lab's timelines, letting the question overrule it there put "Our puppy
/// is called Juniper." above "Our cat is called Pepper." (the judge's guards
/// tell two pets, two relatives, an addition apart; the question's floor
/// does not).
pub fn continues(
    older: &RankedMemory,
    older_vector: &[f32],
    newer: &RankedMemory,
    newer_vector: &[f32],
    question_cosine: Option<f64>,
    thresholds: ChangeThresholds,
) -> Option<Placement> {
    if older.mind != newer.mind
        || event_key(newer) <= event_key(older)
        || crate::RawTurnTag::parse(&older.frame.content).is_some()
        || crate::RawTurnTag::parse(&newer.frame.content).is_some()
    {
        return None;
    }
    let old_statement = (older.frame.content.as_str(), older_vector);
    let new_statement = (newer.frame.content.as_str(), newer_vector);
    let cosine = crate::vectors::cosine(older_vector, newer_vector);
    if !cosine.is_finite() {
        return None;
    }
    if cosine < thresholds.related {
        // Too far apart for the judge, yet as near as a hit that answers by
        // meaning alone is to its question (and, the caller checks, the
        // older is the newer's nearest): one subject, said again later
        // ("Work laptop: ThinkPad X1 Carbon." / "IT swapped my laptop for a
        // MacBook Pro M4.", 0.66). Shown below what the query found, unless
        // the question reaches it too.
        return (cosine >= answer_min_cosine(thresholds.floor)).then(|| {
            if asked_for_too(older, newer, question_cosine, thresholds.floor) {
                Placement::Above
            } else {
                Placement::Below
            }
        });
    }
    if judge_statements(old_statement, new_statement, thresholds) == Verdict::Unrelated {
        Some(Placement::Below)
    } else {
        Some(Placement::Above)
    }
}

/// Whether the question itself reaches `newer`, a later statement of the
/// subject of `older` too far from it for the judge, so that it goes above
/// `older` ([`continues`]): its best cosine to the question
/// (`question_cosine`, on the asked reading's scale) at or above the
/// `floor`, and a state replacing a state — not an event, which never
/// replaces anything ("Aga had her flu shot" after "Aga was promoted to
/// head of the team"), nor after one. The floor alone is weak evidence in a
/// mind of hundreds of memories (a few unrelated ones pass it for any
/// question); with the older one's nearest-neighbour reading it is two.
pub fn asked_for_too(
    older: &RankedMemory,
    newer: &RankedMemory,
    question_cosine: Option<f64>,
    floor: f64,
) -> bool {
    question_cosine.is_some_and(|cosine| cosine >= floor)
        && statement_kind(&newer.frame.content) == StatementKind::State
        && statement_kind(&older.frame.content) != StatementKind::Event
}

/// Where a newer statement brought in by [`continues`] goes, beside the
/// memory it continues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Just above it: the judge reads a change, so the newer is the answer
    /// now ([`order_changes`] then marks the older earlier).
    Above,
    /// Just below it: the same subject, later, but no change the judge
    /// reads; shown so the reader sees both, never above what the query
    /// found.
    Below,
}

/// The order in which the later statements of one found memory are tried
/// as its successor (the first that passes the engine's nearest-memory
/// check is taken): those judged a change ([`Placement::Above`]) before
/// those merely placed below, each newest first (`key`: its placement,
/// event time and id). A change is not passed over for a later remark on
/// the subject: "Aga was promoted to head of the team" before "Aga had her
/// flu shot".
pub fn order_successor_candidates<T, Time: Ord>(
    candidates: &mut [T],
    key: impl Fn(&T) -> (Placement, Time, u64),
) {
    candidates.sort_by_key(|candidate| {
        let (placement, time, id) = key(candidate);
        (placement == Placement::Below, std::cmp::Reverse((time, id)))
    });
}

/// `newer`, found as the later statement of `older` ([`continues`]), as
/// a recalled memory: in `older`'s lane and at its score, its reason
/// naming the memory it continues (`older_ref`).
pub fn successor_memory(
    older: &RankedMemory,
    older_ref: &str,
    frame_id: u64,
    frame: super::rank::FrameInfo,
) -> RankedMemory {
    RankedMemory {
        frame_id,
        frame,
        also_in: Vec::new(),
        evidence: super::rank::Evidence::default(),
        chunk: None,
        why: format!(
            "{}: a newer statement on the subject of {older_ref}, which the query found",
            older.lane.as_str()
        ),
        earlier: false,
        ..older.clone()
    }
}

/// Put each `(older index, newer memory, placement)` of `successors`
/// just above or just below the memory it continues; returns how many were
/// put in. A memory already listed is not added twice. One placed below
/// (no change the judge reads) is put in only while the recall still shows
/// fewer than `shown`: like a weak pairing in [`order_changes`], it never
/// pushes a memory out (measured on `bench recall`, it had cost one query
/// its answer of 200). Marking the older one earlier is [`order_changes`]'s:
/// it judges the pair as [`continues`] did.
pub fn insert_successors(
    memories: Vec<RankedMemory>,
    successors: Vec<(usize, RankedMemory, Placement)>,
    shown: usize,
) -> (Vec<RankedMemory>, usize) {
    let mut out: Vec<RankedMemory> = Vec::with_capacity(memories.len() + successors.len());
    let mut added = 0;
    let above = successors
        .iter()
        .filter(|(_, _, placement)| *placement == Placement::Above)
        .count();
    let mut room = shown.saturating_sub(memories.len() + above);
    let mut listed: Vec<(MindKey, u64)> = memories
        .iter()
        .map(|memory| (memory.mind.clone(), memory.frame_id))
        .collect();
    let mut put = |out: &mut Vec<RankedMemory>, index: usize, placement: Placement| {
        for (_, newer, _) in successors
            .iter()
            .filter(|(older, _, at)| *older == index && *at == placement)
        {
            let key = (newer.mind.clone(), newer.frame_id);
            if listed.contains(&key) {
                continue;
            }
            if placement == Placement::Below {
                if room == 0 {
                    continue;
                }
                room -= 1;
            }
            listed.push(key);
            out.push(newer.clone());
            added += 1;
        }
    };
    for (index, memory) in memories.into_iter().enumerate() {
        put(&mut out, index, Placement::Above);
        out.push(memory);
        put(&mut out, index, Placement::Below);
    }
    (out, added)
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

    /// The frame ids of an ordering, in order.
    fn ids(out: &ChangeOrdering) -> Vec<u64> {
        out.memories.iter().map(|m| m.frame_id).collect()
    }

    /// Stored vectors by `(mind, frame id)`, as [`order_changes`] reads them.
    type Vectors = HashMap<(MindKey, u64), Vec<f32>>;

    fn vectors(pairs: &[(u64, [f32; 2])]) -> Vectors {
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
        let out = order_changes(
            memories,
            &vectors,
            ChangeThresholds::for_floor(0.24),
            usize::MAX,
        );
        assert_eq!(ids(&out), [3, 1, 2]);
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
        let out = order_changes(
            memories,
            &vectors,
            ChangeThresholds::for_floor(0.24),
            usize::MAX,
        );
        assert_eq!(ids(&out), [1, 3]);
        assert_eq!(out.earlier, 0);
        assert!(!out.memories.iter().any(|m| m.earlier));
    }

    #[test]
    fn a_later_statement_of_a_found_memory_continues_it_above_when_a_change_below_when_not() {
        let thresholds = ChangeThresholds::for_floor(0.24);
        let lisbon = memory(1, "I live in Lisbon.", "2025-01-01T00:00:00Z", 0.9);
        let porto = memory(
            2,
            "We moved to Porto last weekend.",
            "2026-01-01T00:00:00Z",
            0.0,
        );
        let (old, new) = ([1.0, 0.0], [0.8, 0.6]);
        assert_eq!(
            continues(&lisbon, &old, &porto, &new, None, thresholds),
            Some(Placement::Above)
        );
        // Written before it: not its later statement.
        let before = memory(
            2,
            "We moved to Porto last weekend.",
            "2024-01-01T00:00:00Z",
            0.0,
        );
        assert_eq!(
            continues(&lisbon, &old, &before, &new, None, thresholds),
            None
        );
        // Said beside it, not instead of it: shown, but after it.
        let beside = memory(
            2,
            "We also have a flat in Porto now.",
            "2026-01-01T00:00:00Z",
            0.0,
        );
        assert_eq!(
            continues(&lisbon, &old, &beside, &new, None, thresholds),
            Some(Placement::Below)
        );
        // About something else (cosine under the floor).
        assert_eq!(
            continues(&lisbon, &old, &porto, &[0.0, 1.0], None, thresholds),
            None
        );
        // A conversation's turn: a later remark in a chat, not a change.
        let turn = memory(
            2,
            "[mind-rawturn conv:c1 turn:3 speaker:user] We moved to Porto last weekend.",
            "2026-01-01T00:00:00Z",
            0.0,
        );
        assert!(crate::RawTurnTag::parse(&turn.frame.content).is_some());
        assert_eq!(
            continues(&lisbon, &old, &turn, &new, None, thresholds),
            None
        );
    }

    /// The laptop the query found, and the later statement of its swap.
    fn laptop_and_swap() -> (RankedMemory, RankedMemory) {
        let laptop = memory(
            1,
            "Work laptop: ThinkPad X1 Carbon.",
            "2025-01-01T00:00:00Z",
            0.9,
        );
        let swap = memory(
            2,
            "IT swapped my laptop for a MacBook Pro M4.",
            "2026-01-01T00:00:00Z",
            0.0,
        );
        (laptop, swap)
    }

    /// A unit vector at `cosine` to `[1, 0]`.
    fn at(cosine: f64) -> [f32; 2] {
        [cosine as f32, (1.0 - cosine * cosine).sqrt() as f32]
    }

    #[test]
    fn a_later_statement_as_near_as_an_answer_but_under_related_goes_below() {
        let thresholds = ChangeThresholds::for_floor(0.5);
        let answer = answer_min_cosine(thresholds.floor);
        assert!(answer < thresholds.related);
        let (laptop, swap) = laptop_and_swap();
        let between = (answer + thresholds.related) / 2.0;
        assert_eq!(
            continues(&laptop, &[1.0, 0.0], &swap, &at(between), None, thresholds),
            Some(Placement::Below)
        );
        assert_eq!(
            continues(
                &laptop,
                &[1.0, 0.0],
                &swap,
                &at(answer - 0.02),
                None,
                thresholds
            ),
            None
        );
    }

    #[test]
    fn a_later_state_the_question_reaches_too_goes_above_but_never_an_event() {
        let thresholds = ChangeThresholds::for_floor(0.5);
        let answer = answer_min_cosine(thresholds.floor);
        let near = at((answer + thresholds.related) / 2.0);
        let (laptop, swap) = laptop_and_swap();
        let floor = thresholds.floor;
        let place = |newer: &RankedMemory, question: Option<f64>| {
            continues(&laptop, &[1.0, 0.0], newer, &near, question, thresholds)
        };
        // The question reaches the later statement: it is the answer now.
        assert_eq!(place(&swap, Some(floor + 0.05)), Some(Placement::Above));
        assert_eq!(place(&swap, Some(floor)), Some(Placement::Above));
        // Not reached, or not read: after what the query found.
        assert_eq!(place(&swap, Some(floor - 0.01)), Some(Placement::Below));
        assert_eq!(place(&swap, None), Some(Placement::Below));
        // An event replaces nothing, whatever the question reaches.
        let shot = memory(
            3,
            "Aga had her flu shot and a COVID booster at the clinic.",
            "2026-01-01T00:00:00Z",
            0.0,
        );
        assert_eq!(statement_kind(&shot.frame.content), StatementKind::Event);
        assert_eq!(place(&shot, Some(floor + 0.05)), Some(Placement::Below));
        // Nor does a state follow an event as its next value.
        let trip = memory(
            4,
            "Flew to Rome for the design conference on 3 May.",
            "2025-01-01T00:00:00Z",
            0.9,
        );
        assert_eq!(statement_kind(&trip.frame.content), StatementKind::Event);
        assert!(!asked_for_too(&trip, &swap, Some(floor + 0.05), floor));
        assert!(asked_for_too(&laptop, &swap, Some(floor + 0.05), floor));
    }

    #[test]
    fn a_change_is_tried_before_a_later_remark_and_each_newest_first() {
        let mut candidates = vec![
            (Placement::Below, 30, 7),
            (Placement::Above, 10, 3),
            (Placement::Above, 20, 4),
            (Placement::Below, 40, 8),
        ];
        order_successor_candidates(&mut candidates, |&(placement, at, id)| (placement, at, id));
        let ids: Vec<u64> = candidates.iter().map(|&(_, _, id)| id).collect();
        assert_eq!(ids, [4, 3, 8, 7]);
    }

    #[test]
    fn a_memory_that_answers_by_meaning_is_a_source_whatever_the_reranker_read() {
        let floor = 0.5;
        let mut laptop = memory(
            1,
            "Work laptop: ThinkPad X1 Carbon.",
            "2025-01-01T00:00:00Z",
            0.9,
        );
        laptop.evidence.cosine = Some(answer_min_cosine(floor) + 0.01);
        laptop.evidence.rerank_probability = Some(0.04);
        let mut train = memory(2, "I take the 7:40 train.", "2025-01-01T00:00:00Z", 0.8);
        train.evidence.cosine = Some(answer_min_cosine(floor) - 0.01);
        train.evidence.rerank_probability = Some(0.04);
        assert_eq!(successor_sources(&[laptop, train], floor, usize::MAX), [0]);
    }

    #[test]
    fn a_successor_goes_just_above_the_memory_it_continues_or_just_below() {
        let mut lisbon = memory(1, "I live in Lisbon.", "2025-01-01T00:00:00Z", 0.6);
        lisbon.evidence.cosine = Some(0.7);
        lisbon.evidence.rerank_probability = Some(0.9);
        let mut noise = memory(3, "Tea notes.", "2025-06-01T00:00:00Z", 0.9);
        noise.evidence.cosine = Some(0.1);
        let memories = vec![noise, lisbon];
        // Only the found answer is a source: the noise is under the floor.
        assert_eq!(successor_sources(&memories, 0.24, usize::MAX), [1]);
        assert!(successor_sources(&memories, 0.24, 1).is_empty());
        let Some(older) = memories.get(1) else {
            panic!("two memories")
        };
        let porto = successor_memory(
            older,
            "personal:1",
            2,
            memory(2, "We moved to Porto.", "2026-01-01T00:00:00Z", 0.0).frame,
        );
        assert_eq!(porto.score, older.score);
        assert!(porto.why.contains("personal:1"), "{}", porto.why);
        let (above, added) = insert_successors(
            memories.clone(),
            vec![
                (1, porto.clone(), Placement::Above),
                (1, porto.clone(), Placement::Above),
            ],
            2,
        );
        assert_eq!(added, 1);
        let order: Vec<u64> = above.iter().map(|m| m.frame_id).collect();
        assert_eq!(order, [3, 2, 1]);
        let below = vec![(1, porto, Placement::Below)];
        let (out, added) = insert_successors(memories.clone(), below.clone(), 3);
        assert_eq!(added, 1);
        let order: Vec<u64> = out.iter().map(|m| m.frame_id).collect();
        assert_eq!(order, [3, 1, 2]);
        // Placed below, it never pushes a shown memory out.
        let (out, added) = insert_successors(memories, below, 2);
        assert_eq!(added, 0);
        let order: Vec<u64> = out.iter().map(|m| m.frame_id).collect();
        assert_eq!(order, [3, 1]);
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
        let out = order_changes(
            memories,
            &vectors,
            ChangeThresholds::for_floor(0.24),
            usize::MAX,
        );
        assert_eq!(ids(&out), [2]);
        assert_eq!(out.replaced, 1);
    }

    /// A judge that reads only the cosine, `p = σ(20·cos + bias)`, cut at
    /// *possible* 0.9: with `bias` −10 a cosine of 0.57 gives p 0.80, under
    /// *possible* but within [`crate::change::ONE_SUBJECT_MARGIN`] of it.
    fn judged(bias: f64) -> ChangeThresholds {
        let cuts = crate::heads::HeadThresholds {
            sure: 0.99,
            likely: 0.97,
            possible: 0.9,
        };
        ChangeThresholds::for_floor(0.24)
            .with_head(Some(crate::heads::cosine_only_head(2, 20.0, bias, cuts)))
    }

    fn car_memories() -> (Vec<RankedMemory>, Vectors) {
        let memories = vec![
            memory(
                1,
                "I drive a 2015 Honda Civic.",
                "2025-01-01T00:00:00Z",
                0.9,
            ),
            memory(2, "Unrelated note about tea.", "2025-06-01T00:00:00Z", 0.5),
            // No word of change: the pair is left to the judge's reading.
            memory(
                3,
                "Picked up the car today: a Kia EV6.",
                "2026-01-01T00:00:00Z",
                0.3,
            ),
        ];
        // Each found by the query's vector, over the floor, and read by
        // the reranker as an answer.
        let memories = memories
            .into_iter()
            .map(|mut memory| {
                memory.evidence.cosine = Some(0.6);
                memory.evidence.rerank_probability = Some(0.5);
                memory
            })
            .collect();
        let vectors = vectors(&[(1, [1.0, 0.0]), (2, [-1.0, 0.0]), (3, [0.57, 0.8216])]);
        (memories, vectors)
    }

    #[test]
    fn two_states_of_one_subject_the_query_found_are_read_newest_first_unmarked() {
        let (memories, vectors) = car_memories();
        let out = order_changes(memories, &vectors, judged(-10.0), 3);
        assert_eq!(ids(&out), [3, 1, 2]);
        // Weaker than a possible conflict: nothing is marked or left out.
        assert_eq!((out.replaced, out.earlier), (0, 0));
        assert!(!out.memories.iter().any(|m| m.earlier));
        let scores: Vec<f64> = out.memories.iter().map(|m| m.score).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    }

    #[test]
    fn a_weak_pairing_never_brings_in_a_memory_past_the_limit() {
        // The newer statement ranks third and the recall shows two: it is
        // not moved in, so nothing shown is pushed out.
        let (memories, vectors) = car_memories();
        let out = order_changes(memories, &vectors, judged(-10.0), 2);
        assert_eq!(ids(&out), [1, 2, 3]);
    }

    #[test]
    fn a_weak_pairing_needs_the_rerankers_reading_and_never_puts_a_non_answer_first() {
        let read = |older: f64, newer: f64| {
            let (mut memories, vectors) = car_memories();
            if let Some(memory) = memories.get_mut(0) {
                memory.evidence.rerank_probability = Some(older);
            }
            if let Some(memory) = memories.get_mut(2) {
                memory.evidence.rerank_probability = Some(newer);
            }
            let out = order_changes(memories, &vectors, judged(-10.0), 3);
            ids(&out)
        };
        // The older answers (p 0.9), the newer does not (p 0.01): kept.
        assert_eq!(read(0.9, 0.01), [1, 2, 3]);
        // Both answer, or neither: the newer first.
        assert_eq!(read(0.9, 0.2), [3, 1, 2]);
        assert_eq!(read(0.01, 0.0), [3, 1, 2]);
        // Without the reranker's reading: no weak pairing.
        let (mut memories, vectors) = car_memories();
        for memory in &mut memories {
            memory.evidence.rerank_probability = None;
        }
        let out = order_changes(memories, &vectors, judged(-10.0), 3);
        assert_eq!(ids(&out), [1, 2, 3]);
    }

    #[test]
    fn a_weak_pairing_is_between_two_closest_memories_only() {
        // A fourth memory, older, is closer to the Civic (cosine 0.59) than
        // the Kia is (0.57): the Civic pairs with it, so the Kia does not
        // move above the Civic.
        let (mut memories, mut vectors) = car_memories();
        let mut mazda = memory(4, "I drive a Mazda 3.", "2024-01-01T00:00:00Z", 0.2);
        mazda.evidence.cosine = Some(0.6);
        memories.push(mazda);
        vectors.insert((MindKey::Personal, 4), vec![0.59, -0.807]);
        let out = order_changes(memories, &vectors, judged(-10.0), 4);
        assert_eq!(ids(&out), [1, 2, 3, 4]);
    }

    #[test]
    fn a_weak_pairing_takes_only_memories_the_query_found_by_meaning() {
        // The newer one is background (a standing lane's) ...
        let (mut memories, vectors) = car_memories();
        if let Some(newer) = memories.get_mut(2) {
            newer.lane = Lane::Importance;
            newer.background = true;
        }
        let out = order_changes(memories, &vectors, judged(-10.0), 3);
        assert_eq!(ids(&out), [1, 2, 3]);
        // ... or listed for its date, its cosine to the query under the
        // floor, or found by its words alone.
        for cosine in [Some(0.2), None] {
            let (mut memories, vectors) = car_memories();
            if let Some(newer) = memories.get_mut(2) {
                newer.lane = Lane::DateWindow;
                newer.evidence.cosine = cosine;
            }
            let out = order_changes(memories, &vectors, judged(-10.0), 3);
            assert_eq!(ids(&out), [1, 2, 3], "{cosine:?}");
        }
    }

    #[test]
    fn a_replacement_the_write_never_weighed_is_only_read_newest_first() {
        // Cosine 0.45, under *related* (0.506 at this floor), where the
        // judge is sure (p = σ(9)): the write would not have weighed the
        // pair, so recall neither hides nor marks the older, it orders.
        let (memories, _) = car_memories();
        let near = vectors(&[(1, [1.0, 0.0]), (2, [-1.0, 0.0]), (3, [0.45, 0.893])]);
        let out = order_changes(memories, &near, judged(0.0), 3);
        assert_eq!(ids(&out), [3, 1, 2]);
        assert_eq!((out.replaced, out.earlier), (0, 0));
        // At cosine 0.8 (over *related*) the same judge leaves the older
        // out; the newer keeps its own place.
        let (memories, _) = car_memories();
        let close = vectors(&[(1, [1.0, 0.0]), (2, [-1.0, 0.0]), (3, [0.8, 0.6])]);
        let out = order_changes(memories, &close, judged(0.0), 3);
        assert_eq!(ids(&out), [2, 3]);
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
        let out = order_changes(
            memories,
            &vectors,
            ChangeThresholds::for_floor(0.24),
            usize::MAX,
        );
        assert_eq!(ids(&out), [1, 2, 3]);
        assert_eq!((out.replaced, out.earlier), (0, 0));
    }
}
