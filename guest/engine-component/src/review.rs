//! `review`: what the owner of a mind does to its memories by hand — the
//! metadata of a memory (archive and restore, pin, tags), merge, a
//! memory's trace, the knowledge graph read, sessions, the logs, the
//! memories recall's injection scan trips on, and a workspace deleted.
//!
//! The store does the work in one transaction each and logs it
//! ([`hive_mind_store::review`]); this module validates the arguments,
//! embeds a merged memory like any save, and converts to the WIT's records.

use hive_mind_core::bounds;
use hive_mind_core::cognify::graph_label;
use hive_mind_core::{ScanContext as CoreScanContext, scan_for_injection};
use hive_mind_store::decisions::PairVerdict as StoreVerdict;
use hive_mind_store::review::{LogKind as StoreLogKind, ReviewChange};
use hive_mind_store::{self as native, MemoryStatus as StoreStatus};

use crate::boundary;
use crate::correct::marking;
use crate::exports::hive::mind::memory::Error as MemoryError;
use crate::exports::hive::mind::review::{
    EntityHop, EntityInfo, EntityRule, EntityView, Error, FlaggedMemory, LogEntry, LogKind,
    MemoryTrace, MergeRequest, Merged, MetadataChange, PairDecision, PairVerdict, RelatedMemory,
    RelationInfo, SessionInfo, SessionView, WorkspaceDeletion,
};
use crate::hive::mind::types::{Frame, FrameRef, MemoryStatus, Mind, Source};
use crate::save::{Draft, embed_drafts};
use crate::store::{self, StoreError};

type Result<T> = std::result::Result<T, Error>;

/// The most rows a listing returns.
const MAX_LIST: u32 = 1000;

/// The deepest neighbourhood [`neighbours`] walks.
const MAX_DEPTH: u32 = 4;

/// The most memories an entity view lists.
const ENTITY_MEMORIES: usize = 100;

/// Frames read per step of the flagged-memory scan.
const SCAN_BATCH: u32 = 500;

fn storage(error: StoreError) -> Error {
    match error {
        StoreError::Embedder(why) => Error::Embedder(why),
        other => Error::Storage(store::storage_error(&other)),
    }
}

fn from_memory(error: MemoryError) -> Error {
    match error {
        MemoryError::InvalidArgument(why) => Error::InvalidArgument(why),
        MemoryError::Storage(error) => Error::Storage(error),
        MemoryError::Embedder(why) | MemoryError::Llm(why) => Error::Embedder(why),
    }
}

fn limit_of(limit: u32) -> Result<u32> {
    if (1..=MAX_LIST).contains(&limit) {
        Ok(limit)
    } else {
        Err(Error::InvalidArgument(format!(
            "limit must be 1 to {MAX_LIST}, not {limit}"
        )))
    }
}

fn status_in(status: MemoryStatus) -> StoreStatus {
    match status {
        MemoryStatus::Active => StoreStatus::Active,
        MemoryStatus::Archived => StoreStatus::Archived,
    }
}

fn refs(mind: &Mind, ids: &[u64]) -> Vec<FrameRef> {
    ids.iter()
        .map(|&id| FrameRef {
            mind: mind.clone(),
            id,
        })
        .collect()
}

fn session_out(
    store: &native::MindStore,
    session: &native::sessions::Session,
) -> std::result::Result<SessionInfo, StoreError> {
    Ok(SessionInfo {
        gop_id: session.gop_id.clone(),
        project: session.project.clone(),
        closed: session.status == "closed",
        started_at: boundary::millis(&session.started_at),
        ended_at: session.ended_at.as_deref().map(boundary::millis),
        summary: session.summary.clone(),
        memories: store.session_frames(&session.gop_id)?,
        title: session.title.clone(),
        first_event: session.first_event.as_deref().map(boundary::millis),
        last_event: session.last_event.as_deref().map(boundary::millis),
    })
}

fn entity_out(entity: &native::graph::Entity) -> EntityInfo {
    EntityInfo {
        id: entity.id,
        name: entity.name.clone(),
        entity_type: entity.entity_type.clone(),
        seen_count: entity.seen_count,
        properties: entity.properties.clone(),
        valid_from: boundary::millis(&entity.valid_from),
        retired_at: entity.valid_to.as_deref().map(boundary::millis),
    }
}

fn relation_out(relation: &native::graph::Relation) -> RelationInfo {
    RelationInfo {
        id: relation.id,
        subject: relation.subject,
        relation: relation.relation.clone(),
        object: relation.object,
        strength: relation.strength,
        seen_count: relation.seen_count,
    }
}

fn log_out(mind: &Mind, entry: &native::review::LogEntry) -> LogEntry {
    LogEntry {
        id: entry.id,
        at: boundary::millis(&entry.at),
        action: entry.action.clone(),
        memory: entry.frame.map(|id| FrameRef {
            mind: mind.clone(),
            id,
        }),
        detail: entry.detail.clone(),
    }
}

/// Change a memory's review metadata.
pub fn set_metadata(memory: FrameRef, change: MetadataChange) -> Result<Frame> {
    let change = ReviewChange {
        status: change.status.map(status_in),
        pinned: change.pinned,
        add_tags: change.add_tags,
        remove_tags: change.remove_tags,
    };
    store::read(&memory.mind, |store| {
        Ok(store::frame_out(&store.review_frame(memory.id, &change)?))
    })
    .map_err(storage)
}

/// Merge memories into one (see `review.merge`).
pub fn merge(request: MergeRequest) -> Result<Merged> {
    if let Some(content) = &request.content {
        bounds::MEMORY_CONTENT
            .check(content)
            .map_err(Error::InvalidArgument)?;
    }
    let Some(first) = request.memories.first() else {
        return Err(Error::InvalidArgument(
            "a merge needs at least two different memories".to_string(),
        ));
    };
    let mind = first.mind.clone();
    let key = store::mind_in(&mind).map_err(storage)?;
    let mut same_mind = true;
    for memory in &request.memories {
        same_mind &= store::mind_in(&memory.mind).map_err(storage)? == key;
    }
    if !same_mind {
        return Err(Error::InvalidArgument(
            "the memories of a merge must all be of one mind".to_string(),
        ));
    }
    if request.memories.len() > native::review::MAX_MERGE {
        return Err(Error::InvalidArgument(format!(
            "a merge folds at most {} memories ({} asked)",
            native::review::MAX_MERGE,
            request.memories.len()
        )));
    }
    let mut originals = store::get_frames(&request.memories).map_err(storage)?;
    if let Some(missing) = request
        .memories
        .iter()
        .find(|memory| !originals.iter().any(|frame| frame.ref_.id == memory.id))
    {
        return Err(storage(StoreError::NotFound(format!(
            "frame {key}:{}",
            missing.id
        ))));
    }
    originals.sort_by_key(|frame| (frame.created_at, frame.ref_.id));
    let content = match request.content {
        Some(text) if !text.trim().is_empty() => text.trim().to_string(),
        Some(_) => {
            return Err(Error::InvalidArgument(
                "content is empty: give the merged text, or none to join the originals".to_string(),
            ));
        }
        None => originals
            .iter()
            .map(|frame| {
                frame
                    .content
                    .get(marking(&frame.content).len()..)
                    .unwrap_or_default()
                    .trim()
                    .to_string()
            })
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    let importance = originals
        .iter()
        .map(|frame| store::importance_in(frame.importance))
        .min()
        .map(store::importance_out)
        .ok_or_else(|| Error::InvalidArgument("nothing to merge".to_string()))?;
    let created_at = originals
        .iter()
        .map(|frame| frame.created_at)
        .max()
        .map(boundary::iso)
        .transpose()
        .map_err(Error::InvalidArgument)?;
    let draft = Draft {
        mind: mind.clone(),
        gop_id: None,
        content,
        importance,
        source: Source::UserStated,
        created_at,
        metadata: None,
        context: String::new(),
    };
    let new = embed_drafts(vec![draft])
        .map_err(from_memory)?
        .pop()
        .ok_or_else(|| Error::InvalidArgument("nothing to merge".to_string()))?;
    let ids: Vec<u64> = request.memories.iter().map(|memory| memory.id).collect();
    let merged = store::read(&mind, |store| store.merge_frames(&ids, new)).map_err(storage)?;
    Ok(Merged {
        memory: store::frame_out(&merged.saved.frame),
        originals: merged.originals.iter().map(store::frame_out).collect(),
    })
}

/// The newest sessions of a mind.
pub fn list_sessions(mind: Mind, limit: u32) -> Result<Vec<SessionInfo>> {
    let limit = limit_of(limit)?;
    store::read(&mind, |store| {
        store
            .sessions(limit)?
            .iter()
            .map(|session| session_out(store, session))
            .collect()
    })
    .map_err(storage)
}

/// One session and its memories, in the order they were written.
pub fn get_session(mind: Mind, gop_id: String, limit: u32) -> Result<SessionView> {
    let limit = limit_of(limit)?;
    store::read(&mind, |store| {
        let memories = store.session_memories(&gop_id, limit)?;
        let session = store
            .session(&gop_id)?
            .ok_or_else(|| StoreError::NotFound(format!("session {gop_id}")))?;
        Ok(SessionView {
            session: session_out(store, &session)?,
            memories: memories.iter().map(store::frame_out).collect(),
        })
    })
    .map_err(storage)
}

/// Close a session.
pub fn close_session(mind: Mind, gop_id: String, summary: Option<String>) -> Result<SessionInfo> {
    if let Some(summary) = &summary {
        bounds::MEMORY_CONTENT
            .named("summary")
            .check(summary)
            .map_err(Error::InvalidArgument)?;
    }
    store::read(&mind, |store| {
        let closed = store.close_session_reviewed(&gop_id, summary.as_deref())?;
        session_out(store, &closed)
    })
    .map_err(storage)
}

/// An entity with its relations.
pub fn get_entity(mind: Mind, id: u64) -> Result<EntityView> {
    store::read(&mind, |store| {
        let entity = store
            .entity(id)?
            .ok_or_else(|| StoreError::NotFound(format!("entity {id}")))?;
        let relations = store.relations(id)?;
        let mut related = Vec::new();
        for relation in &relations {
            let other = if relation.subject == id {
                relation.object
            } else {
                relation.subject
            };
            if other != id
                && !related
                    .iter()
                    .any(|e: &native::graph::Entity| e.id == other)
            {
                related.extend(store.entity(other)?);
            }
        }
        let mut memories = store.entity_frames(id)?;
        memories.reverse();
        memories.truncate(ENTITY_MEMORIES);
        Ok(EntityView {
            entity: entity_out(&entity),
            outgoing: relations
                .iter()
                .filter(|relation| relation.subject == id)
                .map(relation_out)
                .collect(),
            incoming: relations
                .iter()
                .filter(|relation| relation.object == id && relation.subject != id)
                .map(relation_out)
                .collect(),
            related: related.iter().map(entity_out).collect(),
            memories: refs(&mind, &memories),
        })
    })
    .map_err(storage)
}

/// Entities by name and type.
pub fn list_entities(
    mind: Mind,
    text: String,
    entity_type: Option<String>,
    limit: u32,
) -> Result<Vec<EntityInfo>> {
    bounds::SEARCH
        .check(&text)
        .map_err(Error::InvalidArgument)?;
    let limit = limit_of(limit)?;
    let entity_type = entity_type
        .map(|kind| graph_label(&kind, "entity type"))
        .transpose()
        .map_err(|error| Error::InvalidArgument(error.to_string()))?;
    store::read(&mind, |store| {
        Ok(store
            .browse_entities(&text, entity_type.as_deref(), limit)?
            .iter()
            .map(entity_out)
            .collect())
    })
    .map_err(storage)
}

/// Entities a cleanup rule finds (and with `apply`, retires).
pub fn clean_entities(mind: Mind, rule: EntityRule, apply: bool) -> Result<Vec<EntityInfo>> {
    let rule = match rule {
        EntityRule::Orphans => native::graph::EntityRule::Orphans,
        EntityRule::Noise => native::graph::EntityRule::Noise,
    };
    store::read(&mind, |store| {
        Ok(store
            .clean_entities(rule, apply)?
            .iter()
            .map(entity_out)
            .collect())
    })
    .map_err(storage)
}

/// The neighbourhood of an entity.
pub fn neighbours(
    mind: Mind,
    id: u64,
    depth: u32,
    entity_type: Option<String>,
    limit: u32,
) -> Result<Vec<EntityHop>> {
    let limit = limit_of(limit)?;
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(Error::InvalidArgument(format!(
            "depth must be 1 to {MAX_DEPTH}, not {depth}"
        )));
    }
    let entity_type = entity_type
        .map(|kind| graph_label(&kind, "entity type"))
        .transpose()
        .map_err(|error| Error::InvalidArgument(error.to_string()))?;
    store::read(&mind, |store| {
        if store.entity(id)?.is_none() {
            return Err(StoreError::NotFound(format!("entity {id}")));
        }
        let mut hops = Vec::new();
        for (other, hop) in store.entity_distances(&[id], depth)? {
            if other == id {
                continue;
            }
            let Some(entity) = store.entity(other)? else {
                continue;
            };
            if entity_type
                .as_deref()
                .is_some_and(|kind| kind != entity.entity_type)
            {
                continue;
            }
            hops.push(EntityHop {
                entity: entity_out(&entity),
                depth: hop,
            });
            if hops.len() >= limit as usize {
                break;
            }
        }
        Ok(hops)
    })
    .map_err(storage)
}

/// The newest rows of a log.
pub fn read_log(
    mind: Mind,
    log: LogKind,
    limit: u32,
    before: Option<u64>,
) -> Result<Vec<LogEntry>> {
    let limit = limit_of(limit)?;
    let log = match log {
        LogKind::Reviews => StoreLogKind::Reviews,
        LogKind::Erasures => StoreLogKind::Erasures,
        LogKind::Installs => StoreLogKind::Installs,
        LogKind::AiInteractions => StoreLogKind::AiInteractions,
    };
    store::read(&mind, |store| {
        Ok(store
            .read_log(log, limit, before)?
            .iter()
            .map(|entry| log_out(&mind, entry))
            .collect())
    })
    .map_err(storage)
}

/// The trace of a memory.
pub fn trace(memory: FrameRef) -> Result<MemoryTrace> {
    let mind = memory.mind.clone();
    store::read(&mind, |store| {
        let trace = store.trace(memory.id)?;
        let session = match &trace.session {
            Some(session) => Some(session_out(store, session)?),
            None => None,
        };
        Ok(MemoryTrace {
            memory: store::frame_out(&trace.frame),
            session,
            base: trace.frame.base_frame_id.map(|id| FrameRef {
                mind: mind.clone(),
                id,
            }),
            replaced: refs(&mind, &trace.replaced),
            merged_from: refs(&mind, &trace.merged_from),
            branches: refs(&mind, &trace.branches),
            entities: trace.entities.iter().map(entity_out).collect(),
            related: trace
                .related
                .iter()
                .map(|&(id, similarity)| RelatedMemory {
                    memory: FrameRef {
                        mind: mind.clone(),
                        id,
                    },
                    similarity,
                })
                .collect(),
            reviews: trace
                .reviews
                .iter()
                .map(|entry| log_out(&mind, entry))
                .collect(),
        })
    })
    .map_err(storage)
}

/// The memories held back as likely injections, not released: quarantined
/// by the detector, or (written before it) flagged by the block scan.
pub fn list_flagged(mind: Mind, limit: u32) -> Result<Vec<FlaggedMemory>> {
    let limit = limit_of(limit)?;
    store::read(&mind, |store| {
        let mut flagged = Vec::new();
        let mut after = 0;
        loop {
            // Unreleased, and quarantined or never screened.
            let frames = store.held_back_after(after, SCAN_BATCH)?;
            let Some(last) = frames.last() else {
                break;
            };
            after = last.frame_ref.id;
            for frame in frames {
                let (score, patterns) = match &frame.screening {
                    // Quarantined when written: the stored verdict.
                    Some(screening) => (screening.score, screening.reasons.clone()),
                    // Written before the detector: recall's block scan.
                    None => {
                        let report =
                            scan_for_injection(&frame.content, CoreScanContext::ToolOutput);
                        if report.safe {
                            continue;
                        }
                        (report.score, report.matched)
                    }
                };
                flagged.push(FlaggedMemory {
                    memory: store::frame_out(&frame),
                    score,
                    patterns,
                });
                if flagged.len() >= limit as usize {
                    return Ok(flagged);
                }
            }
        }
        Ok(flagged)
    })
    .map_err(storage)
}

/// Release a memory from quarantine (or recall's injection scan).
///
/// The store puts it back where it was held back from (its slot's
/// timeline, the version a correction corrects). A memory the detector had
/// quarantined at its write then gets what that write skipped: the change
/// judge reads it against its neighbours ([`crate::change::settle`]: a
/// released "standup moved to 10:15" closes "standup is at 9:30" as it
/// would have, had the screen let it through), and its graph is linked
/// ([`crate::saved_graph::link_frames`]). A memory released from recall's
/// scan was never quarantined: its write did both already.
pub fn release(memory: FrameRef) -> Result<Frame> {
    let released =
        store::read(&memory.mind, |store| store.release_frame(memory.id)).map_err(storage)?;
    let frame = store::frame_out(&released.frame);
    if !released.was_quarantined {
        return Ok(frame);
    }
    let vectors = store::frame_vectors(&memory.mind, &[memory.id]).map_err(storage)?;
    if let Some((_, vector)) = vectors.first() {
        crate::change::settle(
            &memory.mind,
            &[crate::change::Written {
                id: memory.id,
                vector,
                content: &frame.content,
            }],
        );
    }
    crate::saved_graph::link_frames([&frame]).map_err(from_memory)?;
    // The judge may have closed it (an older statement released after a
    // newer one was written): answer with the frame as it stands now.
    Ok(store::get_frames(std::slice::from_ref(&memory))
        .map_err(storage)?
        .into_iter()
        .next()
        .unwrap_or(frame))
}

/// The owner's decision on a pair of memories.
pub fn decide_pair(older: FrameRef, newer: FrameRef, verdict: PairVerdict) -> Result<PairDecision> {
    if boundary::mind_key(&older.mind) != boundary::mind_key(&newer.mind) {
        return Err(Error::InvalidArgument(
            "both memories of a pair must be of one mind".to_string(),
        ));
    }
    let verdict_in = match verdict {
        PairVerdict::Replaces => StoreVerdict::Replaces,
        PairVerdict::BothStand => StoreVerdict::BothStand,
    };
    store::read(&older.mind, |store| {
        let decision = store.decide_pair(older.id, newer.id, verdict_in)?;
        Ok(PairDecision {
            older: store::frame_out(&decision.older),
            newer: store::frame_out(&decision.newer),
            verdict,
            decided_at: boundary::millis(&decision.decided_at),
        })
    })
    .map_err(|error| match error {
        StoreError::InvalidInput(why) => Error::InvalidArgument(why),
        other => storage(other),
    })
}

/// Delete a workspace mind (or say what would go).
pub fn delete_workspace(workspace: String, dry_run: bool) -> Result<WorkspaceDeletion> {
    let mind = native::Mind::workspace(&workspace).map_err(storage)?;
    let status = store::with_minds(|minds| {
        if dry_run {
            minds.mind(&mind)?.status()
        } else {
            minds.delete_workspace(&workspace)
        }
    })
    .map_err(storage)?;
    Ok(WorkspaceDeletion {
        workspace,
        memories: status.frames,
        entities: status.entities,
        sessions: status.sessions,
        deleted: !dry_run,
    })
}
