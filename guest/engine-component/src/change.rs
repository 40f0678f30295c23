//! Replacing by meaning: the I/O around [`hive_mind_core::change`].
//!
//! **At write** ([`settle`]), on every write path — `save`, cognify, the
//! import of conversations and harvest — once a frame is stored: its
//! nearest neighbours in its mind (the in-memory vector index, searched
//! with the frame's own vector) that reach the *related* threshold are
//! judged against it ([`judge_statements`], on the two texts and stored
//! vectors). A sure replacement puts the two on
//! one timeline (`join_timeline`: the earlier statement closed at the later
//! one's event time, as a correction closes it, so history and `as-of` keep
//! it and forgetting the newer reopens it); a possible conflict links them
//! (`link_frames`), and recall shows the newer first — unless the host has
//! a language model: then it is asked about each possible conflict
//! ([`ask`]; its answer closes the older or leaves both unlinked, and the
//! call is recorded in `ai_interactions`). A memory the write-time screen
//! quarantined neither replaces nor is replaced. A judgement that
//! cannot be made (no embedder meaning, a store error) leaves both
//! statements as written: the write itself has already succeeded.
//!
//! **At recall** ([`order_recalled`]): the first few memories the query
//! found by meaning are each searched for a newer statement on their
//! subject that the query missed ([`with_successors`]: the question's
//! words may not reach "We finally moved to Porto" when they reach "I live
//! in Lisbon"), put just above the one it continues when the judge reads a
//! change, just below it otherwise; then the recalled
//! memories' stored vectors are compared pairwise ([`order_changes`]), so
//! whatever was decided at write, of two related statements the newer
//! comes first.
//!
//! Both need vectors that carry meaning and the embedder's calibrated floor
//! (`calibration`), which places the thresholds
//! ([`ChangeThresholds::for_floor`]); without them nothing is judged. The
//! learned judge is the one compiled in for the active embedder's model
//! and dimension ([`change_judge`]); under any other embedder the rules
//! judge alone.

use std::collections::{BTreeMap, HashMap};

use hive_mind_core::change::{
    ChangeThresholds, StatementKind, Verdict, ask, judge_statements, statement_kind,
};
use hive_mind_core::heads::change_judge;
use hive_mind_core::recall::{
    ChangeOrdering, MindKey, Placement, RankedMemory, SUCCESSOR_NEIGHBOURS, continues,
    insert_successors, order_changes, order_successor_candidates, successor_memory,
    successor_sources,
};

use crate::calibration;
use crate::exports::hive::mind::memory::{RecallNote, RecallNoteKind};
use hive_mind_store::audit::AiInteraction;

use crate::hive::mind::types::{Frame, FrameRef, Mind};
use crate::hive::mind::{embedder, llm};
use crate::store;

/// How many nearest neighbours of a new frame are judged.
pub const NEIGHBOURS: u32 = 8;

/// The thresholds of the active embedder, with its learned change judge
/// when one ships for it ([`hive_mind_core::heads::change_judge`]), or
/// `None` when its vectors carry no meaning or its floor cannot be
/// measured.
pub fn thresholds() -> Option<ChangeThresholds> {
    let info = embedder::info().ok()?;
    if !info.meaningful {
        return None;
    }
    let head = usize::try_from(info.dimensions)
        .ok()
        .and_then(|dimensions| change_judge(&info.model, dimensions));
    calibration::min_cosine(&info)
        .ok()
        .map(|floor| ChangeThresholds::for_floor(floor).with_head(head))
}

/// A frame just written: what [`settle`] judges.
pub struct Written<'a> {
    /// Its id in its mind.
    pub id: u64,
    /// Its vector (the frame's own, not a chunk's).
    pub vector: &'a [f32],
    /// Its content as stored.
    pub content: &'a str,
}

/// Judge each frame just written to `mind` against its nearest
/// neighbours, and close or link what it replaces (see the module docs).
/// Only a frame that states something replaceable is looked at (no
/// question, no assistant's turn, no long text: [`statement_kind`]), so
/// an import of many conversation turns searches for few. Best effort: a
/// failure leaves the frames as written.
pub fn settle(mind: &Mind, written: &[Written<'_>]) {
    let judged: Vec<&Written<'_>> = written
        .iter()
        .filter(|frame| statement_kind(frame.content) != StatementKind::Unjudged)
        .collect();
    if judged.is_empty() {
        return;
    }
    let Some(thresholds) = thresholds() else {
        return;
    };
    for frame in judged {
        // The write succeeded; a judgement that fails only leaves both.
        let _ = settle_one(mind, frame.id, frame.vector, thresholds);
    }
}

fn settle_one(
    mind: &Mind,
    id: u64,
    vector: &[f32],
    thresholds: ChangeThresholds,
) -> Result<(), store::StoreError> {
    let filter = store::SearchFilter {
        minds: vec![mind.clone()],
        since: None,
        until: None,
        content_prefix: None,
        min_importance: None,
    };
    let hits = store::search_vector(vector, &filter, NEIGHBOURS + 1)?;
    // A frame's best cosine over its chunks.
    let mut near: BTreeMap<u64, f64> = BTreeMap::new();
    for hit in hits {
        let other = hit.ref_.id;
        if other != id && hit.score >= thresholds.related {
            let best = near.entry(other).or_insert(hit.score);
            *best = best.max(hit.score);
        }
    }
    if near.is_empty() {
        return Ok(());
    }
    let mut refs: Vec<FrameRef> = near
        .keys()
        .map(|&other| FrameRef {
            mind: mind.clone(),
            id: other,
        })
        .collect();
    refs.push(FrameRef {
        mind: mind.clone(),
        id,
    });
    let frames = store::get_frames(&refs)?;
    let ids: Vec<u64> = near.keys().copied().collect();
    let vectors: HashMap<u64, Vec<f32>> = store::frame_vectors(mind, &ids)?.into_iter().collect();
    let Some(new) = frames.iter().find(|frame| frame.ref_.id == id) else {
        return Ok(());
    };
    if new.valid_to.is_some() || store::quarantined(new) {
        return Ok(());
    }
    let mut unsure = Vec::new();
    for old in frames.iter().filter(|frame| frame.ref_.id != id) {
        if old.valid_to.is_some() || store::quarantined(old) {
            continue;
        }
        let (Some(&cosine), Some(old_vector)) = (near.get(&old.ref_.id), vectors.get(&old.ref_.id))
        else {
            continue;
        };
        let old_side = (old.content.as_str(), old_vector.as_slice());
        let new_side = (new.content.as_str(), vector);
        let ((older, older_side), (newer, newer_side)) =
            if (old.created_at, old.ref_.id) <= (new.created_at, id) {
                ((old, old_side), (new, new_side))
            } else {
                ((new, new_side), (old, old_side))
            };
        match judge_statements(older_side, newer_side, thresholds) {
            Verdict::Replaces => {
                store::join_timeline(mind, older.ref_.id, newer.ref_.id)?;
            }
            Verdict::PossibleConflict => unsure.push(Unsure {
                older,
                newer,
                link: store::FrameLink {
                    id: old.ref_.id,
                    similarity: cosine.clamp(-1.0, 1.0),
                },
            }),
            Verdict::Unrelated => {}
        }
    }
    let answers = ask_model(mind, &unsure);
    let mut conflicts = Vec::new();
    for (pair, answer) in unsure.into_iter().zip(answers) {
        match answer {
            Some(Verdict::Replaces) => {
                store::join_timeline(mind, pair.older.ref_.id, pair.newer.ref_.id)?;
            }
            Some(_) => {}
            None => conflicts.push(pair.link),
        }
    }
    if !conflicts.is_empty() {
        store::link_frames(
            &FrameRef {
                mind: mind.clone(),
                id,
            },
            &conflicts,
        )?;
    }
    Ok(())
}

/// A pair the judge read as possibly one fact changing.
struct Unsure<'a> {
    /// The older memory.
    older: &'a Frame,
    /// The newer memory.
    newer: &'a Frame,
    /// The link that keeps them together when nothing decides.
    link: store::FrameLink,
}

/// The host's language model's answer on each unsure pair ([`ask`]): `None`
/// where there is no model, it failed, or its answer is not one of the two
/// verdicts. Each call it answered is recorded in `ai_interactions`.
fn ask_model(mind: &Mind, unsure: &[Unsure<'_>]) -> Vec<Option<Verdict>> {
    if unsure.is_empty() {
        return Vec::new();
    }
    let requests: Vec<llm::CompletionRequest> = unsure
        .iter()
        .map(|pair| {
            let (older_day, newer_day) = (day(pair.older), day(pair.newer));
            let (system, prompt) = ask::pair_prompt(
                ask::PairSide {
                    day: &older_day,
                    text: &pair.older.content,
                },
                ask::PairSide {
                    day: &newer_day,
                    text: &pair.newer.content,
                },
            );
            llm::CompletionRequest {
                tier: llm::ModelTier::Fast,
                system,
                prompt,
                max_tokens: ask::PAIR_ANSWER_MAX_TOKENS,
                json: true,
            }
        })
        .collect();
    let results = llm::complete_many(&requests);
    let mut calls = Vec::new();
    let answers: Vec<Option<Verdict>> = unsure
        .iter()
        .zip(results)
        .map(|(pair, result)| {
            let completion = result.ok()?;
            let verdict = ask::read_pair_answer(&completion.text);
            calls.push(AiInteraction {
                provider: completion.provider,
                model: completion.model,
                purpose: "change-judge".to_string(),
                input_tokens: u64::from(completion.usage.input_tokens),
                output_tokens: u64::from(completion.usage.output_tokens),
                detail: serde_json::json!({
                    "older": pair.older.ref_.id,
                    "newer": pair.newer.ref_.id,
                    "verdict": match verdict {
                        Some(Verdict::Replaces) => "replaces",
                        Some(_) => "both_stand",
                        None => "unreadable",
                    },
                })
                .to_string(),
            });
            verdict
        })
        .collect();
    if !calls.is_empty() {
        // The verdicts stand even if their record cannot be written.
        let _ = store::write(mind, |store| {
            for call in &calls {
                store.append_ai_interaction(call)?;
            }
            Ok(())
        });
    }
    answers
        .into_iter()
        .chain(std::iter::repeat(None))
        .take(unsure.len())
        .collect()
}

/// A memory's day, `YYYY-MM-DD` (empty when its time is out of range).
fn day(frame: &Frame) -> String {
    crate::boundary::iso(frame.created_at)
        .map(|iso| iso.chars().take(10).collect())
        .unwrap_or_default()
}

/// Order recalled memories so that of two related statements the newer
/// comes first ([`order_changes`]; `shown` is how many the recall
/// returns); a note says what was done. Without thresholds or vectors the
/// memories are returned as they are.
///
/// `successors` says whether to look for newer statements the query
/// missed ([`with_successors`]; not for a recall "as of" a past time); a
/// memory brought in has its frame added to `frames`. `question_cosine`
/// reads how near the question comes to a memory's vector, as the floor
/// reads a hit's (a newer statement it reaches goes above the one it
/// continues: [`continues`]).
pub fn order_recalled(
    memories: Vec<RankedMemory>,
    minds: &[Mind],
    shown: usize,
    successors: bool,
    question_cosine: &dyn Fn(&[f32]) -> Option<f64>,
    frames: &mut BTreeMap<(MindKey, u64), Frame>,
    notes: &mut Vec<RecallNote>,
) -> Vec<RankedMemory> {
    let Some(thresholds) = thresholds() else {
        return memories;
    };
    let mut vectors: HashMap<(MindKey, u64), Vec<f32>> = HashMap::new();
    for mind in minds {
        let key = crate::boundary::mind_key(mind);
        let ids: Vec<u64> = memories
            .iter()
            .filter(|memory| memory.mind == key)
            .map(|memory| memory.frame_id)
            .collect();
        if ids.is_empty() {
            continue;
        }
        let Ok(found) = store::frame_vectors(mind, &ids) else {
            continue;
        };
        for (id, vector) in found {
            vectors.insert((key.clone(), id), vector);
        }
    }
    let memories = if successors {
        let (memories, added) = with_successors(
            memories,
            minds,
            &mut vectors,
            frames,
            thresholds,
            shown,
            question_cosine,
        );
        if added > 0 {
            notes.push(RecallNote {
                kind: RecallNoteKind::Changes,
                text: format!(
                    "{added} newer statement(s) the query did not find brought in, each beside the recalled memory on its subject (before it when read as a change, or when the question comes near it too)"
                ),
            });
        }
        memories
    } else {
        memories
    };
    let ChangeOrdering {
        memories,
        replaced,
        earlier,
    } = order_changes(memories, &vectors, thresholds, shown);
    if replaced > 0 {
        notes.push(RecallNote {
            kind: RecallNoteKind::Changes,
            text: format!(
                "{replaced} older statement(s) left out: a newer recalled memory replaces each"
            ),
        });
    }
    if earlier > 0 {
        notes.push(RecallNote {
            kind: RecallNoteKind::Changes,
            text: format!(
                "{earlier} memory(ies) marked earlier: a newer statement on the same subject is shown first"
            ),
        });
    }
    memories
}

/// Whether the memory of `mind` nearest to the vector of frame `id`
/// (itself aside) is `older`: a later statement is brought in only for
/// the memory it is closest to, so in a mind of many statements alike
/// ("Maya's team keeps invoices in PostgreSQL." / "Maya's team adopted
/// Renovate.") one is not taken for the next state of another. A
/// quarantined memory is passed over: a hostile near-copy of the later
/// statement must not hide what it follows.
fn nearest_is(mind: &Mind, vector: &[f32], id: u64, older: u64) -> bool {
    let filter = store::SearchFilter {
        minds: vec![mind.clone()],
        ..store::SearchFilter::default()
    };
    let Ok(hits) = store::search_vector(vector, &filter, NEAREST_PROBE) else {
        return false;
    };
    let others: Vec<u64> = hits
        .iter()
        .map(|hit| hit.ref_.id)
        .filter(|&hit| hit != id)
        .collect();
    match others.first() {
        Some(&first) if first == older => return true,
        None => return false,
        Some(_) => {}
    }
    let refs: Vec<FrameRef> = others
        .iter()
        .map(|&id| FrameRef {
            mind: mind.clone(),
            id,
        })
        .collect();
    let Ok(found) = store::get_frames(&refs) else {
        return false;
    };
    others
        .iter()
        .find(|&&hit| {
            !found
                .iter()
                .any(|frame| frame.ref_.id == hit && store::quarantined(frame))
        })
        .is_some_and(|&hit| hit == older)
}

/// How many nearest memories [`nearest_is`] reads, to pass over the
/// quarantined.
const NEAREST_PROBE: u32 = 4;

/// For each of the first memories the query found by meaning
/// ([`successor_sources`]), its later statement on the same subject
/// ([`continues`]) among its [`SUCCESSOR_NEIGHBOURS`] nearest memories
/// written since, when the recall does not already hold it: the newest the
/// judge reads as a change, put just above it, else the newest placed just
/// below it (a change is not passed over for a later remark: "Aga was
/// promoted to head of the team" before "Aga had her flu shot")
/// ([`insert_successors`]; [`order_changes`] then marks the older earlier,
/// or leaves it out when the newer surely replaces it). Returns the
/// memories and how many were brought in; a search that fails brings in
/// nothing.
fn with_successors(
    memories: Vec<RankedMemory>,
    minds: &[Mind],
    vectors: &mut HashMap<(MindKey, u64), Vec<f32>>,
    frames: &mut BTreeMap<(MindKey, u64), Frame>,
    thresholds: ChangeThresholds,
    shown: usize,
    question_cosine: &dyn Fn(&[f32]) -> Option<f64>,
) -> (Vec<RankedMemory>, usize) {
    let mut successors: Vec<(usize, RankedMemory, Placement)> = Vec::new();
    // A statement placed below goes in only while the recall shows fewer
    // than `shown` ([`insert_successors`]): with no room, none is searched for.
    let room_below = memories.len() < shown;
    for index in successor_sources(&memories, thresholds.floor, shown) {
        let Some(older) = memories.get(index) else {
            continue;
        };
        let key = (older.mind.clone(), older.frame_id);
        let (Some(older_vector), Some(mind)) = (
            vectors.get(&key).cloned(),
            minds
                .iter()
                .find(|mind| crate::boundary::mind_key(mind) == older.mind),
        ) else {
            continue;
        };
        let filter = store::SearchFilter {
            minds: vec![mind.clone()],
            since: older.frame.created_at.clone(),
            ..store::SearchFilter::default()
        };
        let Ok(hits) = store::search_vector(&older_vector, &filter, SUCCESSOR_NEIGHBOURS) else {
            continue;
        };
        let listed = |id: u64| {
            memories
                .iter()
                .any(|memory| memory.mind == older.mind && memory.frame_id == id)
        };
        let ids: Vec<u64> = hits
            .iter()
            .map(|hit| hit.ref_.id)
            .filter(|&id| !listed(id))
            .collect();
        if ids.is_empty() {
            continue;
        }
        let refs: Vec<FrameRef> = ids
            .iter()
            .map(|&id| FrameRef {
                mind: mind.clone(),
                id,
            })
            .collect();
        let (Ok(found), Ok(found_vectors)) =
            (store::get_frames(&refs), store::frame_vectors(mind, &ids))
        else {
            continue;
        };
        let older_ref = store::reference(mind, older.frame_id);
        // In the order `order_successor_candidates` gives, so the costlier
        // search of `nearest_is` runs only until one candidate holds.
        let mut candidates: Vec<(&Frame, &Vec<f32>, RankedMemory, Placement)> = found
            .iter()
            .filter(|frame| store::stands(frame))
            .filter_map(|frame| {
                let (_, vector) = found_vectors.iter().find(|(id, _)| *id == frame.ref_.id)?;
                let newer = successor_memory(
                    older,
                    &older_ref,
                    frame.ref_.id,
                    store::frame_info(frame, None),
                );
                let placement = continues(
                    older,
                    &older_vector,
                    &newer,
                    vector,
                    question_cosine(vector),
                    thresholds,
                )
                .filter(|placement| room_below || *placement == Placement::Above)?;
                Some((frame, vector, newer, placement))
            })
            .collect();
        order_successor_candidates(&mut candidates, |(frame, _, _, placement)| {
            (*placement, frame.created_at, frame.ref_.id)
        });
        let newest = candidates
            .into_iter()
            .find(|(frame, vector, _, _)| nearest_is(mind, vector, frame.ref_.id, older.frame_id));
        if let Some((frame, vector, newer, placement)) = newest {
            vectors.insert((older.mind.clone(), frame.ref_.id), vector.clone());
            frames.insert((older.mind.clone(), frame.ref_.id), frame.clone());
            successors.push((index, newer, placement));
        }
    }
    insert_successors(memories, successors, shown)
}
