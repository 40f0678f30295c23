//! `memory.save-memory`: one explicit memory, chunked, embedded and stored.
//!
//! 1. Refuse an empty content (nothing to remember, nothing to embed).
//! 2. Plan the chunks with [`hive_mind_core::frame_chunks`] — the plan the
//!    store's `reindex` uses too.
//! 3. Embed the content and every chunk in one batch through the `embedder`
//!    import (one model call, not one per chunk).
//! 4. Hand the frame with its vectors to the `store` import, which writes the
//!    frame, its full-text row, its vector and its chunks in one transaction
//!    and deduplicates by content hash (a duplicate comes back flagged).

use crate::exports::hive::mind::memory::{Error, MemoryInput, SavedMemory};
use crate::hive::mind::types::{Importance, Source};
use crate::hive::mind::{embedder, store};

/// Describe an embedder failure for the caller.
pub fn embedder_error(error: embedder::Error) -> Error {
    Error::Embedder(match error {
        embedder::Error::Unavailable(why) => format!("no embedder is available: {why}"),
        embedder::Error::Failed(why) => why,
    })
}

/// Describe a store failure for the caller.
pub fn store_error(error: store::Error) -> Error {
    Error::Store(match error {
        store::Error::NotFound(what) => format!("not found: {what}"),
        store::Error::InvalidInput(why) => format!("invalid input: {why}"),
        store::Error::DimensionMismatch(m) => format!(
            "the mind's vectors have {} dimensions but the embedder makes {}; run `hive-mind reindex`",
            m.expected, m.actual
        ),
        store::Error::NewerSchema(version) => format!(
            "the database has schema version {version}, newer than this hive-mind knows; upgrade hive-mind"
        ),
        store::Error::Corrupt(why) => format!("corrupt database: {why}"),
        store::Error::NoEmbedder => "the mind has no vector index and no embedder".to_string(),
        store::Error::AwarenessFull(live) => format!("awareness is full ({live} live items)"),
        store::Error::Referenced(count) => {
            format!("the frame is the base of {count} other frames; deprecate it instead")
        }
        store::Error::Internal(why) => why,
    })
}

/// Save one memory.
pub fn save_memory(input: MemoryInput) -> Result<SavedMemory, Error> {
    if input.content.trim().is_empty() {
        return Err(Error::InvalidArgument(
            "content is empty: there is nothing to remember".to_string(),
        ));
    }
    let chunks = hive_mind_core::frame_chunks(&input.content);
    let mut texts = Vec::with_capacity(1 + chunks.len());
    texts.push(input.content.clone());
    texts.extend(chunks.iter().map(|chunk| chunk.text.clone()));
    let vectors = embedder::embed(&texts).map_err(embedder_error)?;
    if vectors.len() != texts.len() {
        return Err(Error::Embedder(format!(
            "asked for {} vectors, got {}",
            texts.len(),
            vectors.len()
        )));
    }
    let mut vectors = vectors.into_iter();
    let embedding = vectors.next().unwrap_or_default();
    let chunks = chunks
        .iter()
        .zip(vectors)
        .map(|(chunk, embedding)| store::ChunkVector {
            char_start: chunk.char_start,
            char_end: chunk.char_end,
            embedding,
        })
        .collect();
    let frame = store::NewFrame {
        mind: input.mind,
        gop_id: None,
        content: input.content,
        importance: input.importance.unwrap_or(Importance::Normal),
        source: input.source.unwrap_or(Source::UserStated),
        created_at: input.created_at,
        metadata: None,
        embedding,
        chunks,
    };
    let saved = store::save_frame(&frame).map_err(store_error)?;
    Ok(SavedMemory {
        frame: saved.frame,
        duplicate: saved.duplicate,
    })
}
