//! `memory.correct-memory` and `memory.memory-history`: a new version of a
//! memory that closes the old one, and the versions of a memory.
//!
//! The new version keeps what the old one was (its lane marking, such as
//! `[mind-fact]`, its metadata, importance, source and session) and takes
//! the corrected text, embedded like any save; the store writes it and
//! closes the old version in one transaction
//! ([`hive_mind_store::MindStore::correct_frame`]), the new version naming
//! the old one's entities; then the entities its own words name are linked,
//! as a save links them. A new version the store quarantines closes
//! nothing and links nothing: the old one stays current until the owner
//! releases the correction (the store closes it then).

use hive_mind_core::bounds;

use crate::boundary;
use crate::exports::hive::mind::memory::{CorrectedMemory, Correction, Error};
use crate::hive::mind::types::{Frame, FrameRef};
use crate::save::{Draft, embed_drafts, store_error};
use crate::store;

/// The leading markings of a stored content (`[mind-fact] `, a raw turn's
/// tag, a provenance block): what a correction keeps.
pub fn marking(content: &str) -> &str {
    let mut rest = content;
    while let Some(inside) = rest.strip_prefix('[') {
        let Some((_, after)) = inside.split_once(']') else {
            break;
        };
        rest = after.trim_start();
    }
    content
        .get(..content.len() - rest.len())
        .unwrap_or_default()
}

/// Correct one memory (see the module docs).
pub fn correct_memory(correction: Correction) -> Result<CorrectedMemory, Error> {
    let text = correction.content.trim();
    if text.is_empty() {
        return Err(Error::InvalidArgument(
            "content is empty: a correction needs the corrected text".to_string(),
        ));
    }
    bounds::MEMORY_CONTENT
        .check(text)
        .map_err(Error::InvalidArgument)?;
    let old = store::get_frames(std::slice::from_ref(&correction.frame))
        .map_err(store_error)?
        .pop()
        .ok_or_else(|| {
            store_error(store::StoreError::NotFound(format!(
                "frame {}",
                correction.frame.id
            )))
        })?;
    let prefix = marking(&old.content);
    let content = if prefix.is_empty() {
        text.to_string()
    } else {
        format!("{} {text}", prefix.trim_end())
    };
    let created_at = correction
        .created_at
        .map(boundary::iso)
        .transpose()
        .map_err(Error::InvalidArgument)?;
    let draft = Draft {
        mind: correction.frame.mind.clone(),
        gop_id: Some(old.gop_id.clone()),
        content,
        importance: old.importance,
        source: old.source,
        created_at,
        metadata: Some(store::stored_metadata(&correction.frame).map_err(store_error)?),
        context: String::new(),
    };
    let new = embed_drafts(vec![draft])?
        .pop()
        .ok_or_else(|| Error::InvalidArgument("nothing to save".to_string()))?;
    let corrected = store::correct_frame(&correction.frame, new).map_err(store_error)?;
    // And the entities its own words name, as a save links them.
    crate::saved_graph::link_saved(&[crate::exports::hive::mind::memory::SavedMemory {
        frame: corrected.0.clone(),
        duplicate: false,
    }])?;
    Ok(CorrectedMemory {
        memory: corrected.0,
        replaced: corrected.1,
    })
}

/// The versions of a memory, oldest first.
pub fn memory_history(frame: FrameRef) -> Result<Vec<Frame>, Error> {
    store::history(&frame).map_err(store_error)
}
