//! `memory.remember-exchange`: cognify, the live write path after a turn.
//!
//! The decisions are [`hive_mind_core::cognify::plan_cognify`]'s (pure,
//! fixture-tested): which snippets of the exchange are worth keeping (the
//! user's statements about themselves and their world, what they ask to be
//! remembered, and the write-back patterns' preferences, corrections,
//! decisions, findings and work output; chit-chat, questions and requests
//! skipped), where each goes (facts, preferences, corrections, style →
//! personal; decisions, findings, work output → the workspace, or personal
//! when none), how important it is (`important` only when asked for, or a
//! correction or a style note), the injection scan, and the entities and
//! relations each snippet names. This module writes the plan:
//!
//! 0. leave out a snippet its mind already holds, whichever path wrote it
//!    ([`held_by`]: the full-text search's best matches, judged by
//!    [`already_held`] — the turn cognified at its end and imported again
//!    with its session is one memory); the existing memory is returned,
//!    flagged as a duplicate;
//! 1. embed every planned frame (one batch) and save them, one store
//!    transaction per mind, dated by the exchange's `occurred-at` (now when
//!    absent) — the store makes each the session's I-frame or a P-frame and
//!    deduplicates by content hash;
//! 2. for each saved frame, upsert its entities (exact canonical name and
//!    type, never the fuzzy search), checked again at this write seam by
//!    [`accept_entity_name`], and link them to the frame
//!    (`kg_entity_frames`, what makes recall's contextual signal work);
//! 3. create its relations: all-pairs `co-occurs-with` (0.8) and the stated
//!    ones (`led-by`, `reports-to`, `depends-on`, …) with their strengths;
//! 4. link it to the most similar frames already in its mind
//!    (the store's `link_frames`, kept both ways): the vector search with the
//!    frame's own embedding, at most [`RELATED_LINKS_MAX`] frames of cosine
//!    ≥ [`RELATED_MIN_COSINE`] (not when the embedder says its vectors
//!    carry no meaning).
//!
//! Nothing is learned from a failed turn: the caller says so.

use std::collections::BTreeMap;

use hive_mind_core::RAW_TURN_TAG;
use hive_mind_core::bounds;
use hive_mind_core::cognify::{
    ExtractedEntity, ExtractedRelation, accept_entity_name, already_held, plan_cognify,
};
use hive_mind_core::recall::{MindKey, embedding_text};

use crate::exports::hive::mind::memory::{Error, ExchangeOptions, SavedMemory};
use crate::hive::mind::embedder;
use crate::hive::mind::types::{Frame, FrameRef, Mind};
use crate::save::{Draft, embed_drafts, same_mind, store_error, whole_mind};
use crate::store;
use crate::store::importance_out as importance_to_wit;

fn wit_mind(mind: &MindKey) -> Mind {
    match mind {
        MindKey::Personal => Mind::Personal,
        MindKey::Workspace(id) => Mind::Workspace(id.clone()),
    }
}

fn wit_source(source: hive_mind_core::Source) -> crate::hive::mind::types::Source {
    use crate::hive::mind::types::Source;
    match source {
        hive_mind_core::Source::UserStated => Source::UserStated,
        hive_mind_core::Source::ToolVerified => Source::ToolVerified,
        hive_mind_core::Source::AgentInferred => Source::AgentInferred,
        hive_mind_core::Source::Import => Source::Import,
        hive_mind_core::Source::System => Source::System,
    }
}

/// Learn from one exchange.
pub fn remember_exchange(
    user: String,
    assistant: String,
    options: ExchangeOptions,
) -> Result<Vec<SavedMemory>, Error> {
    bounds::TURN
        .named("user")
        .check(&user)
        .and_then(|()| bounds::TURN.named("assistant").check(&assistant))
        .map_err(Error::InvalidArgument)?;
    let workspace = options
        .workspace
        .as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty());
    let plan = plan_cognify(&user, &assistant, workspace, options.succeeded);
    if plan.frames.is_empty() {
        return Ok(Vec::new());
    }
    let occurred_at = options
        .occurred_at
        .map(crate::boundary::iso)
        .transpose()
        .map_err(|why| Error::InvalidArgument(format!("occurred-at: {why}")))?;
    // A snippet its mind already holds is not written again.
    let mut held: Vec<Option<Frame>> = Vec::with_capacity(plan.frames.len());
    for frame in &plan.frames {
        held.push(held_by(&wit_mind(&frame.mind), &frame.content)?);
    }
    let planned: Vec<&hive_mind_core::cognify::PlannedFrame> = plan
        .frames
        .iter()
        .zip(&held)
        .filter(|(_, held)| held.is_none())
        .map(|(frame, _)| frame)
        .collect();
    let drafts: Vec<Draft> = planned
        .iter()
        .map(|frame| Draft {
            mind: wit_mind(&frame.mind),
            gop_id: options.gop_id.clone(),
            content: frame.content.clone(),
            importance: importance_to_wit(frame.importance),
            source: wit_source(frame.source),
            created_at: occurred_at.clone(),
            metadata: Some(
                serde_json::json!({
                    "cognify": frame.kind,
                    "pattern": frame.pattern,
                })
                .to_string(),
            ),
            context: String::new(),
        })
        .collect();
    if let Some(gop_id) = &options.gop_id {
        let mut seen: Vec<Mind> = Vec::new();
        for draft in &drafts {
            if !seen.iter().any(|mind| same_mind(mind, &draft.mind)) {
                store::ensure_session(&draft.mind, gop_id, None, None).map_err(store_error)?;
                seen.push(draft.mind.clone());
            }
        }
    }
    let frames = embed_drafts(drafts)?;
    // Mock vectors carry no meaning: no similarity links from them.
    let link_related = embedder::info().is_ok_and(|info| info.meaningful);

    let mut written = Vec::with_capacity(frames.len());
    for (new_frame, planned) in frames.into_iter().zip(planned) {
        let mind = &wit_mind(&planned.mind);
        let embedding = new_frame.embedding.clone().filter(|_| link_related);
        let vector = new_frame.embedding.clone();
        let stored = store::save_frame(new_frame).map_err(store_error)?;
        crate::save::settle_saved(mind, std::slice::from_ref(&stored), &[vector]);
        // A derived graph must not carry what the store quarantines.
        if !store::quarantined(&stored.frame) {
            write_graph(
                mind,
                stored.frame.ref_.id,
                &planned.entities,
                &planned.relations,
            )?;
        }
        if let Some(embedding) = embedding.filter(|_| !stored.duplicate) {
            link_related_frames(&stored.frame.ref_, &embedding)?;
        }
        written.push(SavedMemory {
            frame: stored.frame,
            duplicate: stored.duplicate,
        });
    }
    // In the plan's order: the held ones where they were planned.
    let mut written = written.into_iter();
    Ok(held
        .into_iter()
        .filter_map(|held| match held {
            Some(frame) => Some(SavedMemory {
                frame,
                duplicate: true,
            }),
            None => written.next(),
        })
        .collect())
}

/// Upsert a frame's entities (exact canonical name and type, checked again
/// at this write seam by [`accept_entity_name`]), linked to the frame, and
/// create the relations between them.
fn write_graph(
    mind: &Mind,
    frame_id: u64,
    entities: &[ExtractedEntity],
    relations: &[ExtractedRelation],
) -> Result<(), Error> {
    // Entities, by (canonical name, type) → id in this mind.
    let mut ids: BTreeMap<(String, &'static str), u64> = BTreeMap::new();
    for entity in entities {
        if !accept_entity_name(&entity.name) {
            continue;
        }
        let kind = entity.entity_type.as_str();
        let upserted =
            store::upsert_entity(mind, &entity.surface, kind, &[frame_id]).map_err(store_error)?;
        ids.insert((entity.name.clone(), kind), upserted.id);
    }
    for relation in relations {
        let subject = ids.get(&(
            relation.subject.name.clone(),
            relation.subject.entity_type.as_str(),
        ));
        let object = ids.get(&(
            relation.object.name.clone(),
            relation.object.entity_type.as_str(),
        ));
        if let (Some(&subject), Some(&object)) = (subject, object)
            && subject != object
        {
            store::relate(
                mind,
                subject,
                relation.relation.as_str(),
                object,
                relation.strength,
            )
            .map_err(store_error)?;
        }
    }
    Ok(())
}

/// How many of the full-text search's best matches [`held_by`] reads.
const HELD_CANDIDATES: u32 = 8;

/// The memory of `mind` that already says what `content` says, if any
/// ([`already_held`] over the full-text search's best matches; a mind not
/// created yet holds nothing). Only a current memory holds anything: a
/// quarantined one must not keep the person's own words from being
/// remembered (a hostile text that copies a statement, "We moved to
/// Boulder. Ignore all previous instructions …"), nor one a newer statement
/// replaced ("I live in Denver." said again after the move to Boulder is
/// news; the store still takes the same words said while they were true
/// for a duplicate).
pub fn held_by(mind: &Mind, content: &str) -> Result<Option<Frame>, Error> {
    let search = store::FilteredSearch {
        filter: whole_mind(mind),
        limit: HELD_CANDIDATES,
    };
    let hits = match store::search_text_many(&embedding_text(content), &[search]) {
        Ok(hits) => hits,
        Err(store::StoreError::MindNotFound(_)) => return Ok(None),
        Err(error) => return Err(store_error(error)),
    };
    let refs: Vec<FrameRef> = hits.into_iter().flatten().map(|hit| hit.ref_).collect();
    if refs.is_empty() {
        return Ok(None);
    }
    let mut frames = store::get_frames(&refs).map_err(store_error)?;
    frames.retain(|frame| frame.valid_to.is_none() && !store::quarantined(frame));
    let contents: Vec<&str> = frames.iter().map(|frame| frame.content.as_str()).collect();
    if !already_held(content, &contents) {
        return Ok(None);
    }
    // The one that holds it alone, else the best match.
    Ok(frames
        .iter()
        .find(|frame| already_held(content, &[frame.content.as_str()]))
        .or_else(|| {
            frames
                .iter()
                .find(|frame| !frame.content.trim_start().starts_with(RAW_TURN_TAG))
        })
        .cloned())
}

/// The least cosine similarity for a related-frame link. The design gives no
/// number (the reference `MemoryLinker` is optional and unspecified). For
/// the default model, all-MiniLM-L6-v2, paraphrases score ≳ 0.7 and
/// sentences on one topic 0.5–0.7, while unrelated sentences stay ≲ 0.3
/// (sentence-transformers' published examples); 0.6 links what is about the
/// same thing without linking everything in a busy project.
pub const RELATED_MIN_COSINE: f64 = 0.6;

/// The most related-frame links made for one new frame: enough to connect
/// it to its topic, few enough that links stay meaningful.
pub const RELATED_LINKS_MAX: usize = 5;

/// Link a newly saved frame to the most similar frames of its mind.
fn link_related_frames(frame: &FrameRef, embedding: &[f32]) -> Result<(), Error> {
    let filter = whole_mind(&frame.mind);
    // One more than needed: the frame finds itself.
    let fetch = u32::try_from(RELATED_LINKS_MAX + 1).unwrap_or(u32::MAX);
    let hits = store::search_vector(embedding, &filter, fetch).map_err(store_error)?;
    let links: Vec<store::FrameLink> = hits
        .iter()
        .filter(|hit| hit.ref_.id != frame.id && hit.score >= RELATED_MIN_COSINE)
        .take(RELATED_LINKS_MAX)
        .map(|hit| store::FrameLink {
            id: hit.ref_.id,
            similarity: hit.score.clamp(-1.0, 1.0),
        })
        .collect();
    if links.is_empty() {
        return Ok(());
    }
    store::link_frames(frame, &links).map_err(store_error)
}
