//! The REST API: the engine's exports over HTTP, typed.
//!
//! Every handler takes its operation's one request ([`crate::ops`]): the
//! query of a read, the JSON body of a write, the same type the command
//! line's flags and the MCP tool's arguments are, so the OpenAPI document
//! (`utoipa`) describes what the handlers parse. Requests refuse unknown
//! fields, so a typo (`?wrokspace=`) is a 400 whose detail names the valid
//! parameters instead of a silently ignored filter. The answers are typed
//! here.
//!
//! Minds follow the design's rules: reads take the workspace as
//! `workspace` (none: the personal mind); a write names its mind
//! explicitly (`"mind": "personal"`, or `"mind": "workspace"` with
//! `"workspace": "<id>"`, [`crate::ops::WritePolicy::HTTP`]); a memory is
//! named by its reference (`personal:42`, `workspace:acme:7`), which
//! carries its mind, and a route that names it in its path fills the
//! request's `memory` from it. The operations layer checks the token's
//! [`Grant`] for its scope and minds before it asks the engine.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value as JsonValue, json};
use utoipa::ToSchema;

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_admin::ExportFormat;

use super::App;
use super::extract::{ApiJson, ApiQuery};
use super::problem::{PROBLEM_JSON, Problem};
use crate::mcp::params::ForgetMemoryRequest;
use crate::ops::{self, Caller, OpError, Operation};
use crate::tokens::Grant;

/// A memory (a frame), every field by its WIT name.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub struct Memory {
    /// Its reference: `personal:42`, `workspace:acme:7`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// `i-frame`, `p-frame` or `b-frame`.
    pub frame_type: String,
    /// The session it belongs to.
    pub gop_id: String,
    /// Its logical time in the session.
    pub t: u32,
    /// The frame it patches or branches.
    pub base_frame: Option<String>,
    /// The text as stored (with the engine's storage markings).
    pub content: String,
    /// What it says, for a person: the text without the engine's markings.
    pub text: String,
    /// critical, important, normal, temporary or deprecated.
    pub importance: String,
    /// Where it came from.
    pub source: String,
    /// How often recall returned it.
    pub access_count: u32,
    /// When the remembered thing happened (ISO-8601).
    pub created_at: String,
    /// When it was written.
    pub inserted_at: String,
    /// When recall last returned it.
    pub last_accessed: Option<String>,
    /// SHA-256 of the text without its provenance prefix.
    pub content_hash: String,
    /// How it was written (kind, harvest format, document, provenance).
    #[schema(value_type = Object)]
    pub metadata: JsonValue,
    /// When it stopped being valid (replaced), if it did.
    pub valid_to: Option<String>,
    /// The memory that replaced it.
    pub superseded_by: Option<String>,
    /// active or archived.
    pub status: String,
    /// Pinned by its owner.
    pub pinned: bool,
    /// Its owner's tags.
    pub tags: Vec<String>,
    /// The memory it was merged into.
    pub merged_into: Option<String>,
    /// Released by its owner from quarantine (or the injection scan).
    pub released: bool,
    /// The injection detector's verdict, stored when it was written; null
    /// for a memory written before the detector (`reindex` screens it).
    pub screening: Option<ScreeningView>,
}

/// The injection detector's verdict on a memory's text.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScreeningView {
    /// The score, 0 to 1.
    pub score: f64,
    /// Which detector judged.
    pub detector: String,
    /// Why, strongest first.
    pub reasons: Vec<String>,
    /// Hostile and not released: kept, listed for review, never recalled.
    pub quarantined: bool,
}

impl Memory {
    /// The frame as the API shows it (the host's one JSON rendering of a
    /// frame, typed).
    pub fn of(frame: &hive_mind_runtime::engine::wit_types::Frame) -> Result<Memory, Problem> {
        typed(convert::frame_json(frame))
    }
}

/// One recalled memory.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RecallHit {
    /// Its reference.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The lane that found it (`semantic`, `profile`, …).
    pub lane: String,
    /// Its final score.
    pub score: f64,
    /// Why it was recalled.
    pub why: String,
    /// The memory.
    pub frame: Memory,
}

/// A memory held back as a likely injection: quarantined by the detector.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct FlaggedView {
    /// The memory.
    pub memory: Memory,
    /// The detector's stored score (or, for a memory written before it,
    /// the regex scan's).
    pub score: f64,
    /// Why: the detector's reasons (or the patterns the scan matched).
    pub patterns: Vec<String>,
}

/// An entity some hops from another.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Hop {
    /// How many hops away.
    pub depth: u32,
    /// The entity.
    #[schema(value_type = Object)]
    pub entity: JsonValue,
}

/// The host's JSON rendering of a value, as the typed answer the document
/// describes.
fn typed<T: serde::de::DeserializeOwned>(value: JsonValue) -> Result<T, Problem> {
    serde_json::from_value(value)
        .map_err(|error| Problem::internal(format!("an answer did not render: {error}")))
}

/// One stage's time.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct StageTime {
    /// The stage.
    pub stage: String,
    /// Microseconds.
    pub micros: u64,
}

/// A recall: the memories with their lanes, scores and reasons, the block
/// a model is given, and how it ran.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RecallResponse {
    /// The memories, best first.
    pub memories: Vec<RecallHit>,
    /// The recall block for a model's prompt.
    pub text: String,
    /// Why the block was withheld (the injection scan), if it was.
    pub withheld: Option<String>,
    /// The identity and awareness context.
    pub context: String,
    /// Notes on how it ran.
    pub notes: Vec<RecallNote>,
    /// Per-stage timings.
    pub stages: Vec<StageTime>,
}

/// One note of a recall: act on its kind, show its text.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RecallNote {
    /// What it is about: the WIT's `recall-note-kind` (`near-miss`,
    /// `quarantined`, `reranker`, …).
    pub kind: String,
    /// What it says, for a person.
    pub text: String,
}

/// A saved memory.
#[derive(Debug, Serialize, ToSchema)]
pub struct Saved {
    /// Its reference.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Whether the same text was already stored (nothing new written).
    pub duplicate: bool,
    /// The memory.
    pub frame: Memory,
}

/// A correction's outcome.
#[derive(Debug, Serialize, ToSchema)]
pub struct Corrected {
    /// The new version.
    pub memory: Memory,
    /// The old version, now closed.
    pub replaced: Memory,
}

/// A merge's outcome.
#[derive(Debug, Serialize, ToSchema)]
pub struct MergedView {
    /// The merged memory.
    pub memory: Memory,
    /// The originals, archived.
    pub originals: Vec<Memory>,
}

/// The server and its minds, in short.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
    /// The server's version.
    pub version: String,
}

impl From<OpError> for Problem {
    fn from(error: OpError) -> Problem {
        match error {
            OpError::Invalid(_) | OpError::Argument { .. } => {
                Problem::bad_request(error.to_string())
            }
            OpError::Forbidden(why) => Problem::forbidden(why),
            OpError::NotFound(why) => Problem::not_found(why),
            OpError::Engine(error) => Problem::from(error),
        }
    }
}

impl App {
    /// Run one typed operation for the grant's holder ([`ops::execute`]),
    /// then `render` its output.
    pub async fn op<O, T, R>(&self, grant: &Grant, operation: O, render: R) -> Result<T, Problem>
    where
        O: Operation + Send + 'static,
        T: Send + 'static,
        R: FnOnce(&mut EngineRuntime, O::Output) -> Result<T, Problem> + Send + 'static,
    {
        let caller = Caller::Token(grant.clone());
        self.pooled(move |engine| {
            let output = ops::execute(engine, &caller, operation)?;
            render(engine, output)
        })
        .await
    }

    /// Run `work` on an engine of the pool.
    async fn pooled<T, F>(&self, work: F) -> Result<T, Problem>
    where
        T: Send + 'static,
        F: FnOnce(&mut EngineRuntime) -> Result<T, Problem> + Send + 'static,
    {
        match self.pool.run(work).await {
            Ok(result) => result,
            Err(error) => Err(super::busy_problem(&error)),
        }
    }
}

/// Whether the server runs.
#[utoipa::path(get, path = "/api/health", tag = "server",
    responses((status = 200, body = Health)))]
pub async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    })
}

/// Every mind the token reaches, with its counts.
#[utoipa::path(get, path = "/api/stats", tag = "minds", security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Object>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn stats(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
) -> Result<Json<Vec<JsonValue>>, Problem> {
    let operation = ops::minds::Stats {
        caller: Caller::Token(grant.clone()),
    };
    app.op(&grant, operation, |_, minds| {
        Ok(minds.iter().map(crate::admin_cli::status_json).collect())
    })
    .await
    .map(Json)
}

/// Recall: the memories most relevant to `query`, with their lanes, scores and
/// why.
#[utoipa::path(get, path = "/api/memory/search", tag = "memory", params(ops::recall::RecallRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = RecallResponse),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn search(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::recall::RecallRequest>,
) -> Result<Json<RecallResponse>, Problem> {
    let operation = ops::recall::RecallOperation::try_from(request)?;
    app.op(&grant, operation, |_, recall| {
        typed(ops::recall::recall_json(&recall))
    })
    .await
    .map(Json)
}

/// The newest memories of a mind.
#[utoipa::path(get, path = "/api/memories", tag = "memory", params(ops::ListRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Memory>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn list_memories(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::ListRequest>,
) -> Result<Json<Vec<Memory>>, Problem> {
    let operation = ops::minds::RecentMemories::new(&request)?;
    app.op(&grant, operation, |_, frames| {
        frames.iter().map(Memory::of).collect()
    })
    .await
    .map(Json)
}

/// Save a memory in the mind its `mind` (and `workspace`) name.
#[utoipa::path(post, path = "/api/memories", tag = "memory",
    request_body = ops::save::SaveRequest, security(("bearer" = ["write"])),
    responses((status = 201, body = Saved),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn create_memory(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiJson(request): ApiJson<ops::save::SaveRequest>,
) -> Result<Response, Problem> {
    // A workspace's mind is made by its first write (as with `hive-mind
    // save --workspace`).
    let operation = ops::save::SaveOperation::new(request, ops::WritePolicy::HTTP)?;
    let saved = app
        .op(&grant, operation, |_, saved| {
            let frame = Memory::of(&saved.frame)?;
            Ok(Saved {
                reference: frame.reference.clone(),
                duplicate: saved.duplicate,
                frame,
            })
        })
        .await?;
    Ok((StatusCode::CREATED, Json(saved)).into_response())
}

/// One memory by reference.
#[utoipa::path(get, path = "/api/memories/{ref}", tag = "memory",
    params(("ref" = String, Path, description = "`personal:42`, `workspace:acme:7`")),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Memory),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn get_memory(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(name): Path<String>,
) -> Result<Json<Memory>, Problem> {
    let memory = ops::review::MemoryRequest { memory: name }.reference()?;
    app.op(&grant, ops::minds::GetMemory { memory }, |_, frame| {
        Memory::of(&frame)
    })
    .await
    .map(Json)
}

/// Archive or restore a memory, pin it, tag it.
#[utoipa::path(patch, path = "/api/memories/{ref}", tag = "review",
    params(("ref" = String, Path, description = "The memory")),
    request_body(content = ops::review::ReviewRequest,
        description = "What to change (`memory` may be left out: the path names it)"),
    security(("bearer" = ["write"])),
    responses((status = 200, body = Memory),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn change_memory(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(name): Path<String>,
    ApiJson(body): ApiJson<JsonValue>,
) -> Result<Json<Memory>, Problem> {
    let request = super::extract::addressed(Some(body), "memory", &name)?;
    let operation = ops::review::SetMetadata::new(request)?;
    app.op(&grant, operation, |_, changed| match changed.first() {
        Some(frame) => Memory::of(frame),
        None => Err(Problem::internal("no memory came back from the change")),
    })
    .await
    .map(Json)
}

/// Correct a memory: a new version replaces it in recall; the old one is
/// kept in its history.
#[utoipa::path(post, path = "/api/memories/{ref}/correct", tag = "memory",
    params(("ref" = String, Path, description = "The memory (current)")),
    request_body(content = ops::review::CorrectRequest,
        description = "The correction (`memory` may be left out: the path names it)"),
    security(("bearer" = ["write"])),
    responses((status = 200, body = Corrected),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn correct_memory(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(name): Path<String>,
    ApiJson(body): ApiJson<JsonValue>,
) -> Result<Json<Corrected>, Problem> {
    let request = super::extract::addressed(Some(body), "memory", &name)?;
    let operation = ops::review::Correct::new(request)?;
    app.op(&grant, operation, |_, corrected| {
        Ok(Corrected {
            memory: Memory::of(&corrected.memory)?,
            replaced: Memory::of(&corrected.replaced)?,
        })
    })
    .await
    .map(Json)
}

/// A memory's versions, oldest first.
#[utoipa::path(get, path = "/api/memories/{ref}/history", tag = "memory",
    params(("ref" = String, Path, description = "The memory")), security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Memory>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn memory_history(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(name): Path<String>,
) -> Result<Json<Vec<Memory>>, Problem> {
    let operation = ops::review::History::new(&ops::review::MemoryRequest { memory: name })?;
    app.op(&grant, operation, |_, versions| {
        versions.iter().map(Memory::of).collect()
    })
    .await
    .map(Json)
}

/// Where a memory came from and what it is tied to.
#[utoipa::path(get, path = "/api/memories/{ref}/trace", tag = "review",
    params(("ref" = String, Path, description = "The memory")), security(("bearer" = ["read"])),
    responses((status = 200, body = Object),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn trace_memory(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(name): Path<String>,
) -> Result<Json<JsonValue>, Problem> {
    let operation = ops::review::Trace::new(&ops::review::MemoryRequest { memory: name })?;
    app.op(&grant, operation, |_, trace| {
        Ok(crate::review_cli::trace_json(&trace))
    })
    .await
    .map(Json)
}

/// Merge memories of one mind into one; the originals are archived.
#[utoipa::path(post, path = "/api/memories/merge", tag = "review",
    request_body = ops::review::MergeMemoriesRequest,
    security(("bearer" = ["write"])),
    responses((status = 200, body = MergedView),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn merge_memories(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiJson(request): ApiJson<ops::review::MergeMemoriesRequest>,
) -> Result<Json<MergedView>, Problem> {
    let operation = ops::review::Merge::new(request)?;
    app.op(&grant, operation, |_, merged| {
        Ok(MergedView {
            memory: Memory::of(&merged.memory)?,
            originals: merged
                .originals
                .iter()
                .map(Memory::of)
                .collect::<Result<_, _>>()?,
        })
    })
    .await
    .map(Json)
}

/// Forget for real: a dry run listing exactly what would go, unless
/// `confirm` is true.
#[utoipa::path(post, path = "/api/forget", tag = "memory", request_body = ForgetMemoryRequest,
    security(("bearer" = ["read"])),
    responses((status = 200, body = Object, description = "What was (or would be) erased"),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn forget(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiJson(body): ApiJson<ForgetMemoryRequest>,
) -> Result<Json<JsonValue>, Problem> {
    let operation = ops::forget::ForgetOperation::new(&body)?;
    app.op(&grant, operation, |_, report| {
        Ok(crate::forget_cli::report_json(&report))
    })
    .await
    .map(Json)
}

/// Learn from one exchange (cognify): what the write-back patterns find is
/// kept, routed to the personal mind or the workspace's.
#[utoipa::path(post, path = "/api/exchanges", tag = "memory",
    request_body = ops::exchange::ExchangeRequest, security(("bearer" = ["write"])),
    responses((status = 200, body = Vec<Saved>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn remember_exchange(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiJson(request): ApiJson<ops::exchange::ExchangeRequest>,
) -> Result<Json<Vec<Saved>>, Problem> {
    let operation = ops::exchange::Exchange::new(request, ops::WritePolicy::HTTP)?;
    app.op(&grant, operation, |_, saved| {
        saved
            .iter()
            .map(|saved| {
                let frame = Memory::of(&saved.frame)?;
                Ok(Saved {
                    reference: frame.reference.clone(),
                    duplicate: saved.duplicate,
                    frame,
                })
            })
            .collect()
    })
    .await
    .map(Json)
}

/// A mind's identity as the API shows it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct IdentityView {
    /// The agent's name.
    pub name: String,
    /// Its role.
    pub role: String,
    /// Its personality, in prose.
    pub personality: String,
    /// What it can do, in prose.
    pub capabilities: String,
    /// Standing instructions.
    pub system_prompt: String,
    /// When it was last set (ISO-8601).
    pub updated_at: Option<String>,
}

/// A mind's identity (null when none is set): the personal mind's, or a
/// workspace's own with `?workspace=`.
#[utoipa::path(get, path = "/api/identity", tag = "minds", params(ops::MindRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Option<IdentityView>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn get_identity(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::MindRequest>,
) -> Result<Json<Option<IdentityView>>, Problem> {
    app.op(
        &grant,
        ops::identity::GetIdentity::new(&request)?,
        |_, identity| typed(crate::admin_cli::identity_json(identity.as_ref())),
    )
    .await
    .map(Json)
}

/// Set a mind's identity (each mind has its own): the fields given; those
/// left out keep their value.
#[utoipa::path(patch, path = "/api/identity", tag = "minds",
    request_body = ops::identity::SetIdentityRequest, security(("bearer" = ["write"])),
    responses((status = 200, body = IdentityView),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn set_identity(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiJson(request): ApiJson<ops::identity::SetIdentityRequest>,
) -> Result<Json<IdentityView>, Problem> {
    let operation = ops::identity::SetIdentity::new(request, ops::WritePolicy::HTTP)?;
    app.op(&grant, operation, |_, identity| {
        typed(crate::admin_cli::identity_json(Some(&identity)))
    })
    .await
    .map(Json)
}

/// The live awareness items.
#[utoipa::path(get, path = "/api/awareness", tag = "minds", params(ops::MindRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Object>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn awareness(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::MindRequest>,
) -> Result<Json<Vec<JsonValue>>, Problem> {
    app.op(
        &grant,
        ops::awareness::ListAwareness::new(&request)?,
        |_, items| Ok(items.iter().map(crate::admin_cli::awareness_json).collect()),
    )
    .await
    .map(Json)
}

/// Add an awareness item (at most ten are live).
#[utoipa::path(post, path = "/api/awareness", tag = "minds",
    request_body = ops::awareness::AddAwarenessRequest, security(("bearer" = ["write"])),
    responses((status = 201, body = Object, description = "The item added and the one evicted, if any"),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn add_awareness(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiJson(request): ApiJson<ops::awareness::AddAwarenessRequest>,
) -> Result<Response, Problem> {
    let operation = ops::awareness::AddAwareness::new(request, ops::WritePolicy::HTTP)?;
    let added = app
        .op(&grant, operation, |_, added| {
            Ok(json!({
                "added": crate::admin_cli::awareness_json(&added.item),
                "evicted": added.evicted.as_ref().map(crate::admin_cli::awareness_json),
            }))
        })
        .await?;
    Ok((StatusCode::CREATED, Json(added)).into_response())
}

/// Remove an awareness item (`id`), or every live one (`all=true`).
#[utoipa::path(delete, path = "/api/awareness", tag = "minds",
    params(ops::awareness::ClearAwarenessRequest),
    security(("bearer" = ["write"])),
    responses((status = 200, body = Object, description = "How many were removed"),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn remove_awareness(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::awareness::ClearAwarenessRequest>,
) -> Result<Json<JsonValue>, Problem> {
    let operation = ops::awareness::RemoveAwareness::new(&request, ops::WritePolicy::HTTP)?;
    app.op(&grant, operation, |_, removed| {
        Ok(json!({ "removed": removed.len() }))
    })
    .await
    .map(Json)
}

/// Entities of the knowledge graph whose name contains `text`, most seen
/// first.
#[utoipa::path(get, path = "/api/graph/entities", tag = "graph",
    params(ops::graph::GraphRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Object>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn list_entities(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::graph::GraphRequest>,
) -> Result<Json<Vec<JsonValue>>, Problem> {
    let operation = request.listing()?;
    app.op(&grant, operation, |_, found| {
        Ok(found.iter().map(crate::review_cli::entity_json).collect())
    })
    .await
    .map(Json)
}

/// An entity with its relations in and out.
#[utoipa::path(get, path = "/api/graph/entities/{id}", tag = "graph",
    params(("id" = u64, Path, description = "The entity"), ops::MindRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Object),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn get_entity(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(id): Path<u64>,
    ApiQuery(mind): ApiQuery<ops::MindRequest>,
) -> Result<Json<JsonValue>, Problem> {
    let request = ops::graph::GraphRequest {
        workspace: mind.workspace,
        ..ops::graph::GraphRequest::default()
    };
    app.op(&grant, request.entity(id)?, |_, (view, _)| {
        Ok(crate::review_cli::entity_view_json(&view))
    })
    .await
    .map(Json)
}

/// The entities within a few hops of one (`depth`, default 1).
#[utoipa::path(get, path = "/api/graph/entities/{id}/neighbours", tag = "graph",
    params(("id" = u64, Path, description = "The entity"), ops::graph::GraphRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Hop>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn neighbours(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(id): Path<u64>,
    ApiQuery(mut request): ApiQuery<ops::graph::GraphRequest>,
) -> Result<Json<Vec<Hop>>, Problem> {
    request.depth = Some(request.depth.unwrap_or(1));
    app.op(&grant, request.entity(id)?, |_, (_, hops)| {
        typed(crate::review_cli::hops_json(&hops.unwrap_or_default()))
    })
    .await
    .map(Json)
}

/// The wiki's pages: `you`, then the entities the memories name.
#[utoipa::path(get, path = "/api/wiki", tag = "wiki",
    params(ops::wiki::WikiRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Object>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn wiki_pages(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::wiki::WikiRequest>,
) -> Result<Json<JsonValue>, Problem> {
    match request.read()? {
        ops::wiki::WikiRead::List(list) => {
            app.op(&grant, list, |_, pages| {
                Ok(JsonValue::Array(
                    pages.iter().map(ops::wiki::summary_json).collect(),
                ))
            })
            .await
        }
        ops::wiki::WikiRead::Page(page) => {
            app.op(&grant, page, |_, page| Ok(ops::wiki::page_json(&page)))
                .await
        }
    }
    .map(Json)
}

/// One wiki page: what is known now, its history, conflicts, related pages
/// and the page as Markdown.
#[utoipa::path(get, path = "/api/wiki/pages/{page}", tag = "wiki",
    params(("page" = String, Path, description = "The page: `you`, `entity-<id>` or `topic-<word>`"), ops::MindRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Object),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn wiki_page(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(page): Path<String>,
    ApiQuery(mind): ApiQuery<ops::MindRequest>,
) -> Result<Json<JsonValue>, Problem> {
    let request = ops::wiki::WikiRequest {
        workspace: mind.workspace,
        ..ops::wiki::WikiRequest::default()
    };
    app.op(&grant, request.page(&page)?, |_, page| {
        Ok(ops::wiki::page_json(&page))
    })
    .await
    .map(Json)
}

/// The wiki pages whose title or statements contain a text.
#[utoipa::path(get, path = "/api/wiki/search", tag = "wiki",
    params(ops::wiki::WikiSearchRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Object>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn wiki_search(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::wiki::WikiSearchRequest>,
) -> Result<Json<Vec<JsonValue>>, Problem> {
    let operation = ops::wiki::SearchWiki::new(request)?;
    app.op(&grant, operation, |_, pages| {
        Ok(pages.iter().map(ops::wiki::summary_json).collect())
    })
    .await
    .map(Json)
}

/// The health report of a mind.
#[utoipa::path(get, path = "/api/wiki/health", tag = "wiki",
    params(ops::wiki::WikiHealthRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Object),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn wiki_health(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::wiki::WikiHealthRequest>,
) -> Result<Json<JsonValue>, Problem> {
    let operation = ops::wiki::WikiHealth::new(request)?;
    app.op(&grant, operation, |_, report| {
        Ok(ops::wiki::health_json(&report))
    })
    .await
    .map(Json)
}

/// The newest sessions of a mind.
#[utoipa::path(get, path = "/api/sessions", tag = "review", params(ops::ListRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Object>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn sessions(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::ListRequest>,
) -> Result<Json<Vec<JsonValue>>, Problem> {
    let operation = ops::review::Sessions::new(&request)?;
    app.op(&grant, operation, |_, sessions| {
        Ok(sessions
            .iter()
            .map(crate::review_cli::session_json)
            .collect())
    })
    .await
    .map(Json)
}

/// One session with its memories, in the order they were written: a whole
/// imported conversation, turn by turn.
#[utoipa::path(get, path = "/api/sessions/{session}", tag = "review",
    params(("session" = String, Path, description = "The session's id, as `GET /api/sessions` lists it"),
        ops::ListRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Object),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn session(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(session): Path<String>,
    ApiQuery(query): ApiQuery<ops::ListRequest>,
) -> Result<Json<JsonValue>, Problem> {
    let operation =
        ops::review::SessionMemories::new(&ops::review::SessionRequest::of(session, &query))?;
    app.op(&grant, operation, |_, view| {
        Ok(crate::review_cli::session_view_json(&view))
    })
    .await
    .map(Json)
}

/// Decide on two memories the engine read as one fact changing: the newer
/// `replaces` the older, or `both-stand`.
#[utoipa::path(post, path = "/api/decisions", tag = "review",
    request_body = ops::review::DecideRequest,
    security(("bearer" = ["admin"])),
    responses((status = 200, body = Object),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn decide(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiJson(request): ApiJson<ops::review::DecideRequest>,
) -> Result<Json<JsonValue>, Problem> {
    let operation = ops::review::Decide::new(&request)?;
    app.op(&grant, operation, |_, decision| {
        Ok(crate::review_cli::decision_json(&decision))
    })
    .await
    .map(Json)
}

/// What was imported into a mind.
#[utoipa::path(get, path = "/api/sources", tag = "imports", params(ops::MindRequest),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Vec<Object>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn sources(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::MindRequest>,
) -> Result<Json<Vec<JsonValue>>, Problem> {
    app.op(&grant, ops::minds::Sources::new(&request)?, |_, sources| {
        Ok(sources
            .iter()
            .map(crate::harvest_cli::harvest_source_json)
            .collect())
    })
    .await
    .map(Json)
}

/// The quarantined memories (and unscreened ones the recall scan flags), for their owner's review.
#[utoipa::path(get, path = "/api/flagged", tag = "review", params(ops::ListRequest),
    security(("bearer" = ["admin"])),
    responses((status = 200, body = Vec<FlaggedView>),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn flagged(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::ListRequest>,
) -> Result<Json<Vec<FlaggedView>>, Problem> {
    let operation = ops::review::Flagged::new(&request)?;
    app.op(&grant, operation, |_, flagged| {
        typed(crate::review_cli::flagged_json(&flagged))
    })
    .await
    .map(Json)
}

/// Release a flagged memory: recall no longer withholds because of it.
#[utoipa::path(post, path = "/api/memories/{ref}/release", tag = "review",
    params(("ref" = String, Path, description = "The flagged memory")),
    security(("bearer" = ["admin"])),
    responses((status = 200, body = Memory),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn release(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(name): Path<String>,
) -> Result<Json<Memory>, Problem> {
    let operation = ops::review::Release::new(&ops::review::MemoryRequest { memory: name })?;
    app.op(&grant, operation, |_, frame| Memory::of(&frame))
        .await
        .map(Json)
}

/// Export a whole mind: JSON Lines (restorable with `hive-mind restore`)
/// or Markdown.
#[utoipa::path(get, path = "/api/export", tag = "minds", params(ops::minds::ExportRequest),
    security(("bearer" = ["admin"])),
    responses((status = 200, content_type = "application/x-ndjson", body = String),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn export(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<ops::minds::ExportRequest>,
) -> Result<Response, Problem> {
    let operation = ops::minds::Export::new(&request)?;
    let media = match operation.format {
        ExportFormat::JsonLines => "application/x-ndjson",
        ExportFormat::Markdown => "text/markdown; charset=utf-8",
    };
    let lines = app.op(&grant, operation, |_, lines| Ok(lines)).await?;
    let mut body = lines.join("\n");
    body.push('\n');
    Ok(([(axum::http::header::CONTENT_TYPE, media)], body).into_response())
}
