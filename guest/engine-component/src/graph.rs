//! `memory.save-entity`, `memory.create-relation`, `memory.search-entities`:
//! the knowledge graph as an agent edits it explicitly.
//!
//! The checks and spellings are [`hive_mind_core::cognify`]'s
//! ([`explicit_entity_name`], [`graph_label`], [`explicit_strength`]), so an
//! explicitly saved entity or relation is written exactly as cognify would
//! write one it extracted; this module resolves names to entities and calls
//! the store.

use hive_mind_core::bounds;
use hive_mind_core::cognify::{explicit_entity_name, explicit_strength, graph_label};

use crate::exports::hive::mind::memory::{Error, KnownEntity, KnownRelation};
use crate::hive::mind::types::Mind;
use crate::save::store_error;
use crate::store;

/// The most entities one search returns.
const MAX_SEARCH_LIMIT: u32 = 200;

fn invalid(error: hive_mind_core::LogicError) -> Error {
    match error {
        hive_mind_core::LogicError::InvalidArgument(why) => Error::InvalidArgument(why),
    }
}

fn known(entity: store::Entity) -> KnownEntity {
    KnownEntity {
        id: entity.id,
        name: entity.name,
        entity_type: entity.entity_type,
        seen_count: entity.seen_count,
    }
}

/// Save (or strengthen) an entity.
pub fn save_entity(mind: Mind, name: String, entity_type: String) -> Result<KnownEntity, Error> {
    bounds::NAME
        .check(&name)
        .and_then(|()| bounds::NAME.named("entity type").check(&entity_type))
        .map_err(Error::InvalidArgument)?;
    let name = explicit_entity_name(&name).map_err(invalid)?;
    let entity_type = graph_label(&entity_type, "entity type").map_err(invalid)?;
    let entity = store::upsert_entity(&mind, &name, &entity_type, &[]).map_err(store_error)?;
    Ok(known(entity))
}

/// The one active entity a name denotes in a mind.
fn entity_named(mind: &Mind, name: &str) -> Result<store::Entity, Error> {
    let mut found = store::find_entities(mind, name.trim()).map_err(store_error)?;
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Error::InvalidArgument(format!(
            "no entity named {:?}; save it first (save-entity)",
            name.trim()
        ))),
        _ => Err(Error::InvalidArgument(format!(
            "{:?} names {} entities of different types ({}); relate them through a more specific name",
            name.trim(),
            found.len(),
            found
                .iter()
                .map(|entity| entity.entity_type.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Create (or strengthen) a relation between two named entities.
pub fn create_relation(
    mind: Mind,
    subject: String,
    relation: String,
    object: String,
    strength: Option<f64>,
) -> Result<KnownRelation, Error> {
    [
        ("subject", &subject),
        ("relation", &relation),
        ("object", &object),
    ]
    .into_iter()
    .try_for_each(|(argument, text)| bounds::NAME.named(argument).check(text))
    .map_err(Error::InvalidArgument)?;
    let relation = graph_label(&relation, "relation").map_err(invalid)?;
    let strength = explicit_strength(strength).map_err(invalid)?;
    let subject = entity_named(&mind, &subject)?;
    let object = entity_named(&mind, &object)?;
    if subject.id == object.id {
        return Err(Error::InvalidArgument(format!(
            "an entity cannot be related to itself ({:?})",
            subject.name
        )));
    }
    let edge =
        store::relate(&mind, subject.id, &relation, object.id, strength).map_err(store_error)?;
    Ok(KnownRelation {
        id: edge.id,
        subject: subject.name,
        relation: edge.relation,
        object: object.name,
        strength: edge.strength,
        seen_count: edge.seen_count,
    })
}

/// Browse entities by a part of their name.
pub fn search_entities(mind: Mind, text: String, limit: u32) -> Result<Vec<KnownEntity>, Error> {
    bounds::SEARCH
        .check(&text)
        .map_err(Error::InvalidArgument)?;
    let limit = limit.clamp(1, MAX_SEARCH_LIMIT);
    let found = store::search_entities(&mind, text.trim(), limit).map_err(store_error)?;
    Ok(found.into_iter().map(known).collect())
}
