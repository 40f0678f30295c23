//! WIT records ⇄ the store's native records.
//!
//! The generated WIT types and [`crate::store::types`] describe the same
//! things; these functions copy one into the other field by field. Enums map
//! one to one (the store's CHECK constraints are generated from the same
//! vocabulary the WIT names), so nothing here can fail except a workspace id
//! that is not a valid file name, which the store rejects with a typed error.

use hive_mind_core::{Importance, Source};

use super::bindings::exports::hive::mind::logic::ScoringProfile;
use super::bindings::hive::mind::store as wit;
use super::wit_memory::{RecallScope, RelevanceFloor};
use super::wit_types;
use crate::store::{self, StoreError};

/// A WIT mind as the store's, validating a workspace id.
pub fn mind_in(mind: &wit_types::Mind) -> Result<store::Mind, StoreError> {
    match mind {
        wit_types::Mind::Personal => Ok(store::Mind::Personal),
        wit_types::Mind::Workspace(id) => store::Mind::workspace(id),
    }
}

/// The store's mind as WIT's.
pub fn mind_out(mind: &store::Mind) -> wit_types::Mind {
    match mind {
        store::Mind::Personal => wit_types::Mind::Personal,
        store::Mind::Workspace(id) => wit_types::Mind::Workspace(id.clone()),
    }
}

/// A WIT frame reference as the store's.
pub fn ref_in(frame_ref: &wit_types::FrameRef) -> Result<store::FrameRef, StoreError> {
    Ok(store::FrameRef {
        mind: mind_in(&frame_ref.mind)?,
        id: frame_ref.id,
    })
}

/// The store's frame reference as WIT's.
pub fn ref_out(frame_ref: &store::FrameRef) -> wit_types::FrameRef {
    wit_types::FrameRef {
        mind: mind_out(&frame_ref.mind),
        id: frame_ref.id,
    }
}

/// A WIT importance as the shared enum.
pub fn importance_in(importance: wit_types::Importance) -> Importance {
    match importance {
        wit_types::Importance::Critical => Importance::Critical,
        wit_types::Importance::Important => Importance::Important,
        wit_types::Importance::Normal => Importance::Normal,
        wit_types::Importance::Temporary => Importance::Temporary,
        wit_types::Importance::Deprecated => Importance::Deprecated,
    }
}

/// The shared importance enum as WIT's.
pub fn importance_out(importance: Importance) -> wit_types::Importance {
    match importance {
        Importance::Critical => wit_types::Importance::Critical,
        Importance::Important => wit_types::Importance::Important,
        Importance::Normal => wit_types::Importance::Normal,
        Importance::Temporary => wit_types::Importance::Temporary,
        Importance::Deprecated => wit_types::Importance::Deprecated,
    }
}

/// A WIT source as the shared enum.
pub fn source_in(source: wit_types::Source) -> Source {
    match source {
        wit_types::Source::UserStated => Source::UserStated,
        wit_types::Source::ToolVerified => Source::ToolVerified,
        wit_types::Source::AgentInferred => Source::AgentInferred,
        wit_types::Source::Import => Source::Import,
        wit_types::Source::System => Source::System,
    }
}

/// The shared source enum as WIT's.
pub fn source_out(source: Source) -> wit_types::Source {
    match source {
        Source::UserStated => wit_types::Source::UserStated,
        Source::ToolVerified => wit_types::Source::ToolVerified,
        Source::AgentInferred => wit_types::Source::AgentInferred,
        Source::Import => wit_types::Source::Import,
        Source::System => wit_types::Source::System,
    }
}

/// The store's frame as WIT's.
pub fn frame_out(frame: &store::Frame) -> wit_types::Frame {
    wit_types::Frame {
        ref_: ref_out(&frame.frame_ref),
        frame_type: match frame.frame_type {
            store::FrameType::IFrame => wit_types::FrameType::IFrame,
            store::FrameType::PFrame => wit_types::FrameType::PFrame,
            store::FrameType::BFrame => wit_types::FrameType::BFrame,
        },
        gop_id: frame.gop_id.clone(),
        t: frame.t,
        base_frame_id: frame.base_frame_id,
        content: frame.content.clone(),
        importance: importance_out(frame.importance),
        source: source_out(frame.source),
        access_count: frame.access_count,
        created_at: frame.created_at.clone(),
        inserted_at: frame.inserted_at.clone(),
        last_accessed: frame.last_accessed.clone(),
        content_hash: frame.content_hash.clone(),
        metadata: frame.metadata.clone(),
    }
}

/// The store's write outcome as WIT's.
pub fn saved_out(saved: &store::SavedFrame) -> wit::SavedFrame {
    wit::SavedFrame {
        frame: frame_out(&saved.frame),
        duplicate: saved.duplicate,
    }
}

/// WIT chunk vectors as the store's.
pub fn chunks_in(chunks: &[wit::ChunkVector]) -> Vec<store::ChunkVector> {
    chunks
        .iter()
        .map(|chunk| store::ChunkVector {
            char_start: chunk.char_start,
            char_end: chunk.char_end,
            embedding: chunk.embedding.clone(),
        })
        .collect()
}

/// A WIT new frame as the store's.
pub fn new_frame_in(frame: &wit::NewFrame) -> Result<store::NewFrame, StoreError> {
    Ok(store::NewFrame {
        mind: mind_in(&frame.mind)?,
        gop_id: frame.gop_id.clone(),
        content: frame.content.clone(),
        importance: importance_in(frame.importance),
        source: source_in(frame.source),
        created_at: frame.created_at.clone(),
        metadata: frame.metadata.clone(),
        embedding: frame.embedding.clone(),
        chunks: chunks_in(&frame.chunks),
    })
}

/// A WIT search filter as the store's.
pub fn filter_in(filter: &wit::SearchFilter) -> Result<store::SearchFilter, StoreError> {
    Ok(store::SearchFilter {
        minds: filter.minds.iter().map(mind_in).collect::<Result<_, _>>()?,
        since: filter.since.clone(),
        until: filter.until.clone(),
        content_prefix: filter.content_prefix.clone(),
        min_importance: filter.min_importance.map(importance_in),
    })
}

/// The store's search hit as WIT's.
pub fn hit_out(hit: &store::Hit) -> wit::Hit {
    wit::Hit {
        ref_: ref_out(&hit.frame_ref),
        score: hit.score,
        chunk: hit.chunk,
    }
}

/// The store's entity as WIT's.
pub fn entity_out(entity: &store::graph::Entity) -> wit::Entity {
    wit::Entity {
        id: entity.id,
        name: entity.name.clone(),
        entity_type: entity.entity_type.clone(),
        seen_count: entity.seen_count,
    }
}

/// The store's relation as WIT's.
pub fn relation_out(relation: &store::graph::Relation) -> wit::Relation {
    wit::Relation {
        id: relation.id,
        subject: relation.subject,
        relation: relation.relation.clone(),
        object: relation.object,
        strength: relation.strength,
        seen_count: relation.seen_count,
    }
}

/// The store's identity as WIT's.
pub fn identity_out(identity: &store::identity::Identity) -> wit::Identity {
    wit::Identity {
        name: identity.name.clone(),
        role: identity.role.clone(),
        personality: identity.personality.clone(),
        capabilities: identity.capabilities.clone(),
        system_prompt: identity.system_prompt.clone(),
        updated_at: identity.updated_at.clone(),
    }
}

/// A WIT identity as the store's (`updated-at` is the store's to set).
pub fn identity_in(identity: &wit::Identity) -> store::identity::Identity {
    store::identity::Identity {
        name: identity.name.clone(),
        role: identity.role.clone(),
        personality: identity.personality.clone(),
        capabilities: identity.capabilities.clone(),
        system_prompt: identity.system_prompt.clone(),
        updated_at: String::new(),
    }
}

/// The store's awareness item as WIT's.
pub fn awareness_out(item: &store::awareness::AwarenessItem) -> wit::AwarenessItem {
    wit::AwarenessItem {
        id: item.id,
        category: item.category.clone(),
        content: item.content.clone(),
        priority: item.priority,
        metadata: item.metadata.clone(),
        created_at: item.created_at.clone(),
        expires_at: item.expires_at.clone(),
    }
}

/// The store's session as WIT's.
pub fn session_out(session: &store::sessions::Session) -> wit::Session {
    wit::Session {
        gop_id: session.gop_id.clone(),
        project: session.project.clone(),
        active: session.status == "active",
        started_at: session.started_at.clone(),
    }
}

/// A store error as the WIT `store.error` variant.
pub fn error_out(error: StoreError) -> wit::Error {
    match error {
        StoreError::MindNotFound(_) | StoreError::NotFound(_) => {
            wit::Error::NotFound(error.to_string())
        }
        StoreError::InvalidInput(message) => wit::Error::InvalidInput(message),
        StoreError::DimensionMismatch { expected, actual } => {
            wit::Error::DimensionMismatch(wit::DimensionMismatch { expected, actual })
        }
        StoreError::NoEmbedder => wit::Error::NoEmbedder,
        StoreError::AwarenessFull(live) => {
            wit::Error::AwarenessFull(u32::try_from(live).unwrap_or(u32::MAX))
        }
        StoreError::Referenced { dependents, .. } => wit::Error::Referenced(dependents),
        StoreError::NewerSchema { found, .. } => wit::Error::NewerSchema(found),
        StoreError::Corrupt { .. } => wit::Error::Corrupt(error.to_string()),
        StoreError::Embedder(_) | StoreError::Io { .. } | StoreError::Sqlite(_) => {
            wit::Error::Internal(error.to_string())
        }
    }
}

/// A scoring profile by name (`balanced`, `recent`, `important`,
/// `connected`); the error names the allowed values.
pub fn profile_in(name: &str) -> Result<ScoringProfile, String> {
    match name {
        "balanced" => Ok(ScoringProfile::Balanced),
        "recent" => Ok(ScoringProfile::Recent),
        "important" => Ok(ScoringProfile::Important),
        "connected" => Ok(ScoringProfile::Connected),
        other => Err(format!(
            "unknown profile {other:?}: expected balanced, recent, important or connected"
        )),
    }
}

/// A recall scope by name (`personal`, `current`, `all`); the error names
/// the allowed values.
pub fn scope_in(name: &str) -> Result<RecallScope, String> {
    match name {
        "personal" => Ok(RecallScope::Personal),
        "current" => Ok(RecallScope::Current),
        "all" => Ok(RecallScope::All),
        other => Err(format!(
            "unknown scope {other:?}: expected personal, current or all"
        )),
    }
}

/// The relevance floor turned off: every hit counts and the standing lanes
/// always show (`--no-floor`).
pub const NO_FLOOR: RelevanceFloor = RelevanceFloor {
    min_cosine: f64::NEG_INFINITY,
    lexical_match: true,
    standing_lanes_always: true,
};
