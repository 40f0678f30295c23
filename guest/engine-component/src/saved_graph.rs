//! The graph of an explicitly saved memory (`save-memory`,
//! `save-memories`): the entities and relations its text names, linked to
//! it, as cognify links a kept snippet's and import an item's.
//!
//! The text is read sentence by sentence (as harvest reads a conversation,
//! so co-occurrence means "named in one statement") with core's extractors
//! ([`extract_entities`], [`extract_relations`]: precision first, noise
//! names dropped by [`accept_entity_name`]), at most [`SAVED_ENTITIES_MAX`]
//! entities a memory. Nothing is read from a duplicate (it was linked when
//! first saved), a raw turn (import links its own, from the user's words
//! only), a memory the store quarantined, or a text the injection
//! scanner judges hostile (a derived graph must not carry what the store
//! quarantines). A memory its owner releases from quarantine is linked
//! then ([`link_frames`]), whatever the scanner says: its owner vouched
//! for it. Each mind's memories are
//! linked in one store transaction (`link_graphs`).

use hive_mind_core::cognify::{
    ExtractedEntity, ExtractedRelation, accept_entity_name, extract_entities, extract_relations,
};
use hive_mind_core::recall::embedding_text;
use hive_mind_core::write_back::split_sentences;
use hive_mind_core::{RAW_TURN_TAG, ScanContext, detect};
use hive_mind_store::graph::FrameGraph;

use crate::exports::hive::mind::memory::{Error, SavedMemory};
use crate::hive::mind::types::{Frame, Mind};
use crate::store;

/// The most entities one saved memory links: a long text names many
/// things, and the graph is for the ones a memory is about.
pub const SAVED_ENTITIES_MAX: usize = 40;

/// Link explicitly saved memories to the entities and relations their text
/// names, as cognify and import link theirs: read sentence by sentence (so
/// co-occurrence means "named in one statement"), at most
/// [`SAVED_ENTITIES_MAX`] entities a memory, nothing from a duplicate (it
/// was linked when first saved), a raw turn (import links its own), a
/// quarantined memory, or a text the injection scanner judges hostile.
pub fn link_saved(saved: &[SavedMemory]) -> Result<(), Error> {
    link_frames(
        saved
            .iter()
            .filter(|memory| !memory.duplicate)
            .map(|memory| &memory.frame),
    )
}

/// Link stored frames to the entities and relations their text names, as
/// [`link_saved`] reads them: a memory released from quarantine gets the
/// graph its write held back. Nothing is read from a quarantined frame, a
/// raw turn or a text the injection scanner judges hostile, unless its
/// owner released it (read it and vouched for it).
pub fn link_frames<'a>(frames: impl IntoIterator<Item = &'a Frame>) -> Result<(), Error> {
    // One transaction per mind for all its memories' graphs.
    let mut by_mind: Vec<(Mind, Vec<FrameGraph>)> = Vec::new();
    for frame in frames
        .into_iter()
        .filter(|frame| !store::quarantined(frame))
    {
        let content = &frame.content;
        if hive_mind_core::strip_hm_prefix(content)
            .trim_start()
            .starts_with(RAW_TURN_TAG)
        {
            continue;
        }
        let body = embedding_text(content);
        if !frame.released && !detect(&body, ScanContext::ToolOutput).safe {
            continue;
        }
        let mut entities: Vec<ExtractedEntity> = Vec::new();
        let mut relations: Vec<ExtractedRelation> = Vec::new();
        for sentence in split_sentences(&body) {
            let found = extract_entities(&sentence);
            let said = extract_relations(&sentence, &found);
            for entity in found {
                if entities.len() < SAVED_ENTITIES_MAX
                    && accept_entity_name(&entity.name)
                    && !entities.iter().any(|seen| {
                        seen.name == entity.name && seen.entity_type == entity.entity_type
                    })
                {
                    entities.push(entity);
                }
            }
            for relation in said {
                if !relations.contains(&relation) {
                    relations.push(relation);
                }
            }
        }
        if entities.is_empty() {
            continue;
        }
        let index = |name: &str, kind: hive_mind_core::EntityType| {
            entities
                .iter()
                .position(|e| e.name == name && e.entity_type == kind)
        };
        let graph = FrameGraph {
            frame: frame.ref_.id,
            entities: entities
                .iter()
                .map(|e| (e.surface.clone(), e.entity_type.as_str().to_string()))
                .collect(),
            relations: relations
                .iter()
                .filter_map(|r| {
                    Some((
                        index(&r.subject.name, r.subject.entity_type)?,
                        r.relation.as_str().to_string(),
                        index(&r.object.name, r.object.entity_type)?,
                        r.strength.clamp(0.0, 1.0),
                    ))
                })
                .collect(),
        };
        let mind = &frame.ref_.mind;
        match by_mind.iter_mut().find(|(seen, _)| one_mind(seen, mind)) {
            Some((_, graphs)) => graphs.push(graph),
            None => by_mind.push((mind.clone(), vec![graph])),
        }
    }
    for (mind, graphs) in by_mind {
        store::link_graphs(&mind, &graphs)
            .map_err(|error| Error::Storage(store::storage_error(&error)))?;
    }
    Ok(())
}

/// Whether two minds are the same.
fn one_mind(a: &Mind, b: &Mind) -> bool {
    match (a, b) {
        (Mind::Personal, Mind::Personal) => true,
        (Mind::Workspace(a), Mind::Workspace(b)) => a == b,
        _ => false,
    }
}
