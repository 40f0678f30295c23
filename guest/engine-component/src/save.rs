//! `memory.save-memory` and `memory.save-memories`: explicit memories,
//! chunked, embedded and stored.
//!
//! 1. Refuse an empty content (nothing to remember, nothing to embed).
//! 2. Plan the chunks with the mind's chunk plan
//!    ([`hive_mind_core::ChunkPlan::chunks`]: sized for the token window of
//!    the embedder the mind's chunks are planned for; the store checks the
//!    same plan and `reindex` re-plans with it) and the frame's own vector
//!    text with [`embedding_text`] (the body without storage prefixes).
//! 3. Embed the texts in batches through the `embedder` import (one model
//!    call per [`EMBED_BATCH`] texts, not one per chunk). A frame whose text
//!    or one of whose chunks the embedder failed on is written without
//!    vectors: found by full text only, reported by `check`, embedded by
//!    `reindex`.
//! 4. Hand the frames with their vectors to the store ([`crate::store`]), which writes
//!    each frame, its full-text row, its vector and its chunks in one
//!    transaction (`save-memories`: one transaction per mind) and
//!    deduplicates by content hash (a duplicate comes back flagged).
//! 5. Link each new memory to the entities and relations its text names
//!    ([`crate::saved_graph::link_saved`], as cognify and import link theirs).

use hive_mind_core::bounds;
use hive_mind_core::recall::embedding_text;

use crate::boundary;
use crate::exports::hive::mind::memory::{Error, MemoryInput, SavedMemory};
use crate::hive::mind::embedder;
use crate::hive::mind::types::{Importance, MemoryKind, Mind, Source};
use crate::store;

/// Texts per `embedder.embed` call: large enough to amortise the model's
/// per-call cost, small enough that one failure costs little.
pub const EMBED_BATCH: usize = 64;

/// Describe an embedder failure for the caller.
pub fn embedder_error(error: embedder::Error) -> Error {
    Error::Embedder(match error {
        embedder::Error::Unavailable(why) => format!("no embedder is available: {why}"),
        embedder::Error::Failed(why) => why,
    })
}

/// A store failure for the caller: its typed case.
pub fn store_error(error: store::StoreError) -> Error {
    Error::Storage(store::storage_error(&error))
}

/// A frame to write, before its vectors are known.
pub struct Draft {
    /// The mind to write to.
    pub mind: Mind,
    /// The session, if the caller names one.
    pub gop_id: Option<String>,
    /// The full content, prefixes included.
    pub content: String,
    /// How much it matters.
    pub importance: Importance,
    /// Where it came from.
    pub source: Source,
    /// Event time.
    pub created_at: Option<String>,
    /// A JSON object.
    pub metadata: Option<String>,
    /// Searched with the frame but not part of it (a raw turn's reply
    /// context, [`hive_mind_core::reply_context`]); empty for none.
    pub context: String,
}

/// Embed drafts (the frame's text and every chunk, in batches) into the
/// store's frames to write ([`store::NewFrame`], the one frame-to-be type).
pub fn embed_drafts(drafts: Vec<Draft>) -> Result<Vec<store::NewFrame>, Error> {
    let plans = drafts
        .iter()
        .map(|draft| {
            let plan = store::chunk_plan(&draft.mind).map_err(store_error)?;
            Ok(plan.chunks(&draft.content))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut texts = Vec::new();
    for (draft, chunks) in drafts.iter().zip(&plans) {
        texts.push(embedding_text(&draft.content));
        texts.extend(chunks.iter().map(|chunk| chunk.text.clone()));
    }
    let mut vectors: Vec<Result<Vec<f32>, String>> = Vec::with_capacity(texts.len());
    for batch in texts.chunks(EMBED_BATCH) {
        let embedded =
            embedder::embed(batch, embedder::InputKind::Document).map_err(embedder_error)?;
        if embedded.len() != batch.len() {
            return Err(Error::Embedder(format!(
                "asked for {} vectors, got {}",
                batch.len(),
                embedded.len()
            )));
        }
        vectors.extend(embedded);
    }
    let mut vectors = vectors.into_iter();
    let mut frames = Vec::with_capacity(drafts.len());
    for (draft, chunks) in drafts.into_iter().zip(plans) {
        let embedding = vectors.next().and_then(Result::ok);
        let chunk_vectors = chunks
            .iter()
            .zip(vectors.by_ref())
            .map(|(chunk, embedding)| {
                embedding.ok().map(|embedding| store::ChunkVector {
                    char_start: chunk.char_start,
                    char_end: chunk.char_end,
                    embedding,
                })
            })
            .collect::<Option<Vec<_>>>();
        // All of a frame's vectors or none: a frame the embedder failed on
        // is stored for full text only, until `reindex` embeds it.
        let (embedding, chunks) = match (embedding, chunk_vectors) {
            (Some(embedding), Some(chunks)) => (Some(embedding), chunks),
            _ => (None, Vec::new()),
        };
        frames.push(store::NewFrame {
            mind: store::mind_in(&draft.mind).map_err(store_error)?,
            gop_id: draft.gop_id,
            content: draft.content,
            importance: store::importance_in(draft.importance),
            source: store::source_in(draft.source),
            created_at: draft.created_at,
            metadata: draft.metadata,
            context: draft.context,
            embedding,
            chunks,
        });
    }
    Ok(frames)
}

fn draft(input: MemoryInput) -> Result<Draft, Error> {
    if input.content.trim().is_empty() {
        return Err(Error::InvalidArgument(
            "content is empty: there is nothing to remember".to_string(),
        ));
    }
    bounds::MEMORY_CONTENT
        .check(&input.content)
        .map_err(Error::InvalidArgument)?;
    let created_at = input
        .created_at
        .map(boundary::iso)
        .transpose()
        .map_err(Error::InvalidArgument)?;
    // A kind is written as the lanes find it: its marking in the content,
    // and a raw turn's origin in the metadata, as an import records it.
    let (content, metadata) = match &input.kind {
        None => (input.content, None),
        Some(kind) => {
            let metadata = match kind {
                MemoryKind::RawTurn(origin) => Some(
                    serde_json::json!({
                        "conv": origin.conversation,
                        "turn": origin.turn,
                        "speaker": origin.speaker.trim(),
                    })
                    .to_string(),
                ),
                MemoryKind::Profile(name) => {
                    Some(serde_json::json!({ "profile": name.trim() }).to_string())
                }
                MemoryKind::Fact | MemoryKind::Event => None,
            };
            let content = boundary::marked_content(kind, &input.content, created_at.as_deref());
            (content, metadata)
        }
    };
    Ok(Draft {
        mind: input.mind,
        gop_id: None,
        content,
        importance: input.importance.unwrap_or(Importance::Normal),
        source: input.source.unwrap_or(Source::UserStated),
        created_at,
        metadata,
        context: String::new(),
    })
}

/// Whether two minds are the same.
pub fn same_mind(a: &Mind, b: &Mind) -> bool {
    match (a, b) {
        (Mind::Personal, Mind::Personal) => true,
        (Mind::Workspace(a), Mind::Workspace(b)) => a == b,
        _ => false,
    }
}

fn saved(saved: store::SavedFrame) -> SavedMemory {
    SavedMemory {
        frame: saved.frame,
        duplicate: saved.duplicate,
    }
}

/// Save one memory.
pub fn save_memory(input: MemoryInput) -> Result<SavedMemory, Error> {
    let frame = embed_drafts(vec![draft(input)?])?
        .pop()
        .ok_or_else(|| Error::Embedder("no frame was embedded".to_string()))?;
    let (mind, vector) = (store::mind_out(&frame.mind), frame.embedding.clone());
    let stored = store::save_frame(frame).map_err(store_error)?;
    settle_saved(&mind, std::slice::from_ref(&stored), &[vector]);
    let memory = saved(stored);
    crate::saved_graph::link_saved(std::slice::from_ref(&memory))?;
    Ok(memory)
}

/// Save many memories: one store transaction per mind, results in input
/// order. An empty or oversized content anywhere, or a batch over its
/// bound ([`bounds::MEMORY_BATCH`]), refuses the whole call before anything
/// is embedded or written.
pub fn save_memories(inputs: Vec<MemoryInput>) -> Result<Vec<SavedMemory>, Error> {
    let total = inputs.iter().map(|input| input.content.len()).sum();
    bounds::MEMORY_BATCH
        .check_size(total)
        .map_err(Error::InvalidArgument)?;
    let drafts = inputs
        .into_iter()
        .enumerate()
        .map(|(index, input)| {
            draft(input).map_err(|error| match error {
                Error::InvalidArgument(why) => {
                    Error::InvalidArgument(format!("memory {index}: {why}"))
                }
                other => other,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let frames = embed_drafts(drafts)?;
    // Group by mind, keeping each frame's input position.
    let mut groups: Vec<(Mind, Vec<(usize, store::NewFrame)>)> = Vec::new();
    for (index, frame) in frames.into_iter().enumerate() {
        let mind = store::mind_out(&frame.mind);
        match groups.iter_mut().find(|(group, _)| same_mind(group, &mind)) {
            Some((_, members)) => members.push((index, frame)),
            None => groups.push((mind, vec![(index, frame)])),
        }
    }
    let mut results: Vec<Option<SavedMemory>> = Vec::new();
    results.resize_with(groups.iter().map(|(_, m)| m.len()).sum(), || None);
    for (mind, members) in groups {
        let (positions, frames): (Vec<usize>, Vec<store::NewFrame>) = members.into_iter().unzip();
        let vectors: Vec<Option<Vec<f32>>> =
            frames.iter().map(|frame| frame.embedding.clone()).collect();
        let stored = store::save_frames(&mind, frames).map_err(store_error)?;
        settle_saved(&mind, &stored, &vectors);
        for (position, frame) in positions.into_iter().zip(stored) {
            if let Some(slot) = results.get_mut(position) {
                *slot = Some(saved(frame));
            }
        }
    }
    let saved = results
        .into_iter()
        .map(|result| {
            result.ok_or_else(|| {
                Error::Storage(crate::hive::mind::types::StorageError::Sql(
                    "a memory was not saved".to_string(),
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    crate::saved_graph::link_saved(&saved)?;
    Ok(saved)
}

/// Judge what `stored` (written to `mind`, with `vectors` in the same
/// order) replaces ([`crate::change::settle`]); duplicates and frames
/// without a vector are not judged.
pub fn settle_saved(mind: &Mind, stored: &[store::SavedFrame], vectors: &[Option<Vec<f32>>]) {
    let written: Vec<crate::change::Written<'_>> = stored
        .iter()
        .zip(vectors)
        .filter(|(saved, _)| !saved.duplicate)
        .filter_map(|(saved, vector)| {
            Some(crate::change::Written {
                id: saved.frame.ref_.id,
                vector: vector.as_deref()?,
                content: &saved.frame.content,
            })
        })
        .collect();
    crate::change::settle(mind, &written);
}

/// A search filter that admits every frame of one mind.
pub fn whole_mind(mind: &Mind) -> store::SearchFilter {
    store::SearchFilter {
        minds: vec![mind.clone()],
        since: None,
        until: None,
        content_prefix: None,
        min_importance: None,
    }
}
