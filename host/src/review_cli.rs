//! `hive-mind review …`: what the owner of a mind does by hand, through the
//! engine's `review` export — archive, restore, pin and tag a memory, merge
//! memories, trace one, read the knowledge graph, list and close sessions,
//! read the logs, list the quarantined memories (and unscreened ones recall's scan trips on) and
//! release one, and delete a workspace mind (a dry run unless `--yes`).
//!
//! Every subcommand prints JSON: the records of `wit/review.wit`, with
//! field names as the WIT spells them and times as ISO-8601. The same JSON
//! is what the MCP tools answer ([`review_json`] and the `*_json` helpers).

use std::path::Path;

use serde_json::{Value as Json, json};

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_names::WitEnum;
use hive_mind_runtime::engine::wit_review::{
    EntityHop, EntityInfo, EntityView, FlaggedMemory, LogEntry, LogKind, MemoryTrace, PairDecision,
    RelationInfo, SessionInfo, SessionView, WorkspaceDeletion,
};
use hive_mind_runtime::engine::wit_types::{FrameRef, Mind};

use crate::command_error::CommandError;
use crate::ops::{self, Caller, Operation};

/// The default number of rows a listing prints.
const DEFAULT_LIMIT: u32 = 50;

/// `hive-mind review`'s subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ReviewCommand {
    /// Archive memories: kept, readable, traceable, but out of recall.
    Archive {
        /// The memories (`personal:42`, `workspace:acme:7`).
        #[arg(required = true)]
        memories: Vec<String>,
    },
    /// Bring archived memories back into recall.
    Unarchive {
        /// The memories.
        #[arg(required = true)]
        memories: Vec<String>,
    },
    /// Pin memories (cleanup never retires a pinned memory), or unpin them.
    Pin {
        /// The memories.
        #[arg(required = true)]
        memories: Vec<String>,
        /// Unpin instead.
        #[arg(long)]
        off: bool,
    },
    /// Add or remove a memory's tags.
    Tag {
        /// The memory.
        memory: String,
        /// Tags to add.
        #[arg(long = "add")]
        add: Vec<String>,
        /// Tags to remove.
        #[arg(long = "remove")]
        remove: Vec<String>,
    },
    /// Merge memories of one mind into one; the originals are archived,
    /// never deleted.
    Merge(ops::review::MergeMemoriesRequest),
    /// Where a memory came from and what it is tied to.
    Trace(ops::review::MemoryRequest),
    /// A mind's sessions, newest first.
    Sessions(ops::ListRequest),
    /// One session with its memories in the order they were written: a
    /// whole imported conversation, turn by turn.
    Session(ops::review::SessionRequest),
    /// Close a session (the next save starts a new one).
    CloseSession(ops::review::CloseSessionRequest),
    /// Decide on two memories the engine read as one fact changing (the
    /// wiki's health report lists them): `--verdict replaces` (the newer
    /// is true now) or `--verdict both-stand` (both are true; an automatic
    /// replacement is undone).
    Decide(ops::review::DecideRequest),
    /// An entity of the knowledge graph with its relations in and out.
    Entity {
        /// The entity's id.
        id: u64,
        /// The workspace's mind (default: the personal mind).
        #[arg(long)]
        workspace: Option<String>,
    },
    /// Entities whose name contains a text, of one type, most seen first.
    Entities(ops::graph::GraphRequest),
    /// Entities no memory mentions and no relation touches (`orphans`), or
    /// whose name is noise (`noise`); retired with `--apply`.
    CleanEntities {
        /// `orphans` or `noise`.
        rule: String,
        /// Retire them (kept for history). Without it, only list them.
        #[arg(long)]
        apply: bool,
        /// The workspace's mind (default: the personal mind).
        #[arg(long)]
        workspace: Option<String>,
    },
    /// The entities within a depth of one, nearest first.
    Neighbours {
        /// The entity's id.
        id: u64,
        /// Hops to follow (1 to 4).
        #[arg(long, default_value_t = 2)]
        depth: u32,
        /// Only this type.
        #[arg(long = "type")]
        entity_type: Option<String>,
        /// The workspace's mind (default: the personal mind).
        #[arg(long)]
        workspace: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = DEFAULT_LIMIT)]
        limit: u32,
    },
    /// The newest rows of a log: reviews, erasures, installs or
    /// ai-interactions.
    Log {
        /// Which log.
        log: String,
        /// The workspace's mind (default: the personal mind).
        #[arg(long)]
        workspace: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = DEFAULT_LIMIT)]
        limit: u32,
        /// Only rows older than this id (the next page).
        #[arg(long)]
        before: Option<u64>,
    },
    /// The quarantined memories: hostile to the injection detector when
    /// written, never recalled (and, written before it, those the recall
    /// block's scan trips on: each withholds every
    /// recall that reaches it): release or forget them.
    Flagged(ops::ListRequest),
    /// Release a quarantined memory: you have read
    /// it and vouch for it.
    Release(ops::review::MemoryRequest),
    /// Delete a workspace mind for good (its file); a dry run naming what
    /// would go unless `--yes`.
    DeleteWorkspace {
        /// The workspace.
        workspace: String,
        /// Delete. Without it, only show what would be deleted.
        #[arg(long)]
        yes: bool,
    },
}

fn mind_of(workspace: Option<&String>) -> Result<Mind, CommandError> {
    match workspace {
        Some(id) => convert::workspace(id).map_err(CommandError::Argument),
        None => Ok(Mind::Personal),
    }
}

/// A log by name (`reviews`, `erasures`, `installs`, `ai-interactions`).
pub fn log_in(name: &str) -> Result<LogKind, String> {
    convert::name_in("log", name)
}

/// A session as JSON.
pub fn session_json(session: &SessionInfo) -> Json {
    json!({
        "gop-id": session.gop_id,
        "project": session.project,
        "closed": session.closed,
        "started-at": convert::timestamp_name(session.started_at),
        "ended-at": session.ended_at.map(convert::timestamp_name),
        "summary": session.summary,
        "memories": session.memories,
        "title": session.title,
        "first-event": session.first_event.map(convert::timestamp_name),
        "last-event": session.last_event.map(convert::timestamp_name),
    })
}

/// A session with its memories as JSON.
pub fn session_view_json(view: &SessionView) -> Json {
    json!({
        "session": session_json(&view.session),
        "memories": view.memories.iter().map(convert::frame_json).collect::<Vec<_>>(),
    })
}

/// A pair decision as JSON.
pub fn decision_json(decision: &PairDecision) -> Json {
    json!({
        "older": convert::frame_json(&decision.older),
        "newer": convert::frame_json(&decision.newer),
        "verdict": decision.verdict.wit_name(),
        "decided-at": convert::timestamp_name(decision.decided_at),
    })
}

/// An entity as JSON (its properties as the JSON object they are).
pub fn entity_json(entity: &EntityInfo) -> Json {
    json!({
        "id": entity.id,
        "name": entity.name,
        "entity-type": entity.entity_type,
        "seen-count": entity.seen_count,
        "properties": serde_json::from_str::<Json>(&entity.properties).unwrap_or(Json::Null),
        "valid-from": convert::timestamp_name(entity.valid_from),
        "retired-at": entity.retired_at.map(convert::timestamp_name),
    })
}

fn relation_json(relation: &RelationInfo) -> Json {
    json!({
        "id": relation.id,
        "subject": relation.subject,
        "relation": relation.relation,
        "object": relation.object,
        "strength": relation.strength,
        "seen-count": relation.seen_count,
    })
}

/// An entity view as JSON.
pub fn entity_view_json(view: &EntityView) -> Json {
    json!({
        "entity": entity_json(&view.entity),
        "outgoing": view.outgoing.iter().map(relation_json).collect::<Vec<_>>(),
        "incoming": view.incoming.iter().map(relation_json).collect::<Vec<_>>(),
        "related": view.related.iter().map(entity_json).collect::<Vec<_>>(),
        "memories": view.memories.iter().map(convert::ref_name).collect::<Vec<_>>(),
    })
}

/// Neighbours as JSON.
pub fn hops_json(hops: &[EntityHop]) -> Json {
    Json::Array(
        hops.iter()
            .map(|hop| json!({"depth": hop.depth, "entity": entity_json(&hop.entity)}))
            .collect(),
    )
}

/// A log row as JSON (its detail as the JSON object it is).
pub fn log_json(entry: &LogEntry) -> Json {
    json!({
        "id": entry.id,
        "at": convert::timestamp_name(entry.at),
        "action": entry.action,
        "memory": entry.memory.as_ref().map(convert::ref_name),
        "detail": serde_json::from_str::<Json>(&entry.detail).unwrap_or(Json::Null),
    })
}

/// A trace as JSON.
pub fn trace_json(trace: &MemoryTrace) -> Json {
    let names = |refs: &[FrameRef]| refs.iter().map(convert::ref_name).collect::<Vec<_>>();
    json!({
        "memory": convert::frame_json(&trace.memory),
        "session": trace.session.as_ref().map(session_json),
        "base": trace.base.as_ref().map(convert::ref_name),
        "replaced": names(&trace.replaced),
        "merged-from": names(&trace.merged_from),
        "branches": names(&trace.branches),
        "entities": trace.entities.iter().map(entity_json).collect::<Vec<_>>(),
        "related": trace.related.iter().map(|related| json!({
            "memory": convert::ref_name(&related.memory),
            "similarity": related.similarity,
        })).collect::<Vec<_>>(),
        "reviews": trace.reviews.iter().map(log_json).collect::<Vec<_>>(),
    })
}

/// Flagged memories as JSON.
pub fn flagged_json(flagged: &[FlaggedMemory]) -> Json {
    Json::Array(
        flagged
            .iter()
            .map(|item| {
                json!({
                    "memory": convert::frame_json(&item.memory),
                    "score": item.score,
                    "patterns": item.patterns,
                })
            })
            .collect(),
    )
}

/// A workspace deletion as JSON.
pub fn deletion_json(deletion: &WorkspaceDeletion) -> Json {
    json!({
        "workspace": deletion.workspace,
        "memories": deletion.memories,
        "entities": deletion.entities,
        "sessions": deletion.sessions,
        "deleted": deletion.deleted,
    })
}

/// Run `operation` as the owner.
fn owner<O: Operation>(
    engine: &mut EngineRuntime,
    operation: O,
) -> Result<O::Output, CommandError> {
    Ok(ops::execute(engine, &Caller::Owner, operation)?)
}

/// Archive or restore `memories`, or pin them; each as changed.
fn metadata_each(
    engine: &mut EngineRuntime,
    memories: &[String],
    archived: Option<bool>,
    pinned: Option<bool>,
) -> Result<Json, CommandError> {
    let operation =
        ops::review::SetMetadata::of_all(memories, archived, pinned, Vec::new(), Vec::new())?;
    Ok(Json::Array(
        owner(engine, operation)?
            .iter()
            .map(convert::frame_json)
            .collect(),
    ))
}

/// Run a `review` subcommand against the data directory `dir`; its JSON.
pub fn review_json(dir: &Path, command: &ReviewCommand) -> Result<Json, CommandError> {
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    let engine = &mut engine;
    Ok(match command {
        ReviewCommand::Archive { memories } => metadata_each(engine, memories, Some(true), None)?,
        ReviewCommand::Unarchive { memories } => {
            metadata_each(engine, memories, Some(false), None)?
        }
        ReviewCommand::Pin { memories, off } => metadata_each(engine, memories, None, Some(!off))?,
        ReviewCommand::Tag {
            memory,
            add,
            remove,
        } => {
            let operation = ops::review::SetMetadata::new(ops::review::ReviewRequest {
                memory: memory.clone(),
                add_tags: Some(add.clone()),
                remove_tags: Some(remove.clone()),
                ..ops::review::ReviewRequest::default()
            })?;
            Json::Array(
                owner(engine, operation)?
                    .iter()
                    .map(convert::frame_json)
                    .collect(),
            )
        }
        ReviewCommand::Merge(request) => {
            let merged = owner(engine, ops::review::Merge::new(request.clone())?)?;
            json!({
                "memory": convert::frame_json(&merged.memory),
                "originals": merged.originals.iter().map(convert::frame_json).collect::<Vec<_>>(),
            })
        }
        ReviewCommand::Trace(request) => {
            trace_json(&owner(engine, ops::review::Trace::new(request)?)?)
        }
        ReviewCommand::Sessions(request) => {
            let sessions = owner(engine, ops::review::Sessions::new(request)?)?;
            Json::Array(sessions.iter().map(session_json).collect())
        }
        ReviewCommand::CloseSession(request) => {
            let operation = ops::review::CloseSession::new(request.clone())?;
            session_json(&owner(engine, operation)?)
        }
        ReviewCommand::Entity { id, workspace } => {
            let request = ops::graph::GraphRequest {
                workspace: workspace.clone(),
                ..ops::graph::GraphRequest::default()
            };
            let (view, _) = owner(engine, request.entity(*id)?)?;
            entity_view_json(&view)
        }
        ReviewCommand::Entities(request) => {
            let found = owner(engine, request.clone().listing()?)?;
            Json::Array(found.iter().map(entity_json).collect())
        }
        ReviewCommand::CleanEntities {
            rule,
            apply,
            workspace,
        } => {
            let operation = ops::cleanup::CleanEntities {
                mind: mind_of(workspace.as_ref())?,
                rule: convert::name_in("rule", rule).map_err(CommandError::Argument)?,
                apply: *apply,
            };
            let found = owner(engine, operation)?;
            json!({
                "applied": apply,
                "entities": found.iter().map(entity_json).collect::<Vec<_>>(),
            })
        }
        ReviewCommand::Neighbours {
            id,
            depth,
            entity_type,
            workspace,
            limit,
        } => {
            let request = ops::graph::GraphRequest {
                depth: Some(*depth),
                entity_type: entity_type.clone(),
                limit: Some(*limit),
                workspace: workspace.clone(),
                ..ops::graph::GraphRequest::default()
            };
            let (_, hops) = owner(engine, request.entity(*id)?)?;
            hops_json(&hops.unwrap_or_default())
        }
        ReviewCommand::Log {
            log,
            workspace,
            limit,
            before,
        } => {
            let mind = mind_of(workspace.as_ref())?;
            let log = log_in(log).map_err(CommandError::Argument)?;
            Json::Array(
                engine
                    .review()
                    .read_log(&mind, log, *limit, *before)?
                    .iter()
                    .map(log_json)
                    .collect(),
            )
        }
        ReviewCommand::Flagged(request) => {
            flagged_json(&owner(engine, ops::review::Flagged::new(request)?)?)
        }
        ReviewCommand::Session(request) => {
            session_view_json(&owner(engine, ops::review::SessionMemories::new(request)?)?)
        }
        ReviewCommand::Decide(request) => {
            decision_json(&owner(engine, ops::review::Decide::new(request)?)?)
        }
        ReviewCommand::Release(request) => {
            convert::frame_json(&owner(engine, ops::review::Release::new(request)?)?)
        }
        ReviewCommand::DeleteWorkspace { workspace, yes } => {
            let operation = ops::workspaces::DeleteWorkspace::new(workspace, *yes)?;
            deletion_json(&owner(engine, operation)?)
        }
    })
}
