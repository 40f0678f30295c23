//! # `hive-mind mcp`: the Model Context Protocol server
//!
//! An MCP client (Claude Code, Claude Desktop, Codex, any stdio client)
//! spawns `hive-mind mcp` and speaks JSON-RPC over its stdin/stdout; logs go
//! to stderr only. The server is [`MemoryServer`], built with `rmcp`'s tool
//! macros, so every tool's input has a JSON schema generated from its
//! parameter struct.
//!
//! The tools keep the names and arguments hive-mind users know (design
//! §5.8, §7). Everything with logic in it runs in the engine component:
//! `save_memory`, `recall_memory`, `remember_exchange`, `cleanup_frames`,
//! harvest (`harvest_import`, `harvest_sources`, `ingest_source`: a path is
//! read only under the allowed roots, see below; URLs go through the host's
//! guarded fetch), the graph tools (`save_entity`, `create_relation`, `search_entities`:
//! the noise filter, the relation spelling, name resolution) and
//! `forget_memory` (erasure for real; a dry run unless `confirm` is true),
//! `update_memory` (a correction: a new version that closes the old) and
//! `memory_history`. The identity,
//! awareness, workspace and `cleanup_entities` tools and the resources call
//! the component's `admin` export ([`EngineRuntime::admin`]); the review
//! tools (`review_memory`, `merge_memories`, `trace_memory`,
//! `explore_graph`, `list_sessions`, `close_session`, `cleanup_memory`)
//! call its `review` export ([`EngineRuntime::review`]); the host never
//! opens a mind itself. Two of the owner's review operations are not
//! tools, because an agent must not have them: releasing a memory from the
//! injection scan (a poisoned memory would release itself) and deleting a
//! workspace mind. Bad input — an unknown workspace, a bad
//! importance, a content too large, a mind named ambiguously, a missing
//! argument — is a tool result with `isError: true` and a message the model
//! can act on (MCP 2025-11-25: input validation errors are tool execution
//! errors, so the model sees them and corrects its call); an unknown tool is
//! a JSON-RPC error. The server keeps serving either way. Which is which is
//! decided by the engine error's typed case, never by its message (see
//! `engine_error`): invalid arguments and the storage cases that are the
//! caller's doing (a missing mind or item, invalid input, a full awareness
//! list, a referenced frame) are refused input; everything else (a trap,
//! SQL, a lock, a damaged database, the embedder) is a server fault.
//!
//! Mutations never widen silently: a tool that writes goes to the personal
//! mind unless `workspace` names one, and a `mind` that says `personal`
//! while a `workspace` is given (or names an unknown mind) is refused.
//!
//! The engine is not `Sync` (one wasmtime store, one SQLite connection per
//! mind), so calls are serialised through a mutex on a blocking thread;
//! several server processes may share a data directory (SQLite WAL and a
//! busy timeout keep them consistent). An import holds the mutex for one
//! step at a time (see [`hive_mind_runtime::engine::import::EngineTurns`]), so a recall
//! runs while an import is under way.
//!
//! What an agent cannot do:
//!
//! - **read files outside its roots.** A path is read only under the roots
//!   the client declares (the MCP `roots` capability: the server asks with
//!   `roots/list` and asks again after `notifications/roots/list_changed`)
//!   and those of `[mcp] import_roots` ([`config`]); never under `/proc`,
//!   `/sys`, `/dev` or `/run`; no hidden file and only regular files, read
//!   one at a time off the async threads, each handed to the engine as its
//!   own import job (see [`hive_mind_files`]). With no root, an agent
//!   imports inline `data` and URLs only.
//! - **send oversized arguments.** Every string argument of every tool is
//!   capped by its name ([`crate::limits`]); the refusal names it.
//! - **flood the server.** At most `[mcp] max_in_flight` requests are
//!   handled at once; another is answered at once with a JSON-RPC error
//!   ([`SERVER_BUSY`]) instead of waiting in an unbounded queue.
//! - **get unscanned stored text in front of a model.** Identity,
//!   awareness, the recent-memories resource, the `cleanup_frames`
//!   listing and `forget_memory`'s previews pass through the engine's injection scan (its `logic` export,
//!   the scan recall uses); what it flags is withheld, with the reason.
//!   `save_memory` stores what it is given and reports the scan's verdict.

pub mod config;
pub mod grant;
pub mod params;
pub mod transport;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, ErrorCode, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value as Json, json};

use crate::harvest_cli::{MAX_FILE_BYTES, MAX_FOLDER_FILES};
use crate::memory_cli::saved_json;
use crate::ops::{self, Access, Caller, OpError, Operation};
use crate::tokens::Scope;
use hive_mind_files::{AllowedRoots, FileAccessError};
use hive_mind_runtime::engine::convert::{self as convert, frame_json, mind_name, timestamp_in};
use hive_mind_runtime::engine::import::EngineTurns;
use hive_mind_runtime::engine::wit_admin::{AwarenessItem, Identity};
use hive_mind_runtime::engine::wit_names::{WitEnum, one_of};
use hive_mind_runtime::engine::wit_types::{self, Mind, StorageError};
use hive_mind_runtime::engine::wit_types::{InjectionReport, ScanContext};
use hive_mind_runtime::engine::{
    AdminError, EngineError, EngineRuntime, HarvestError, MemoryError, ReviewError,
    describe_storage_error, wit_admin, wit_harvest, wit_memory, wit_review,
};
use params::*;

pub use crate::limits::{MAX_CONTENT_BYTES, MAX_INLINE_IMPORT_BYTES};

/// The most bytes one import call reads from files, over all its files (a
/// folder of many large files is imported subfolder by subfolder).
pub const MAX_CALL_BYTES: u64 = 1024 * 1024 * 1024;

/// How long the server waits for the client's answer to `roots/list`.
pub const ROOTS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The JSON-RPC error of a request refused because `[mcp] max_in_flight`
/// requests are already being handled (in the range JSON-RPC 2.0 leaves to
/// servers).
pub const SERVER_BUSY: ErrorCode = ErrorCode(-32000);

/// A URL to import, checked for its scheme here (the host's `fetch` checks
/// the addresses it resolves to).
fn url_input(url: &str) -> Result<wit_harvest::Input, McpError> {
    if !crate::harvest_cli::is_url(url) {
        return Err(invalid(format!("{url:?} is not an http(s) URL")));
    }
    Ok(wit_harvest::Input::Url(url.trim().to_string()))
}

/// What an import call hands the engine: an input ready now (inline data,
/// a URL), or a path to resolve and read on the blocking thread.
enum Pending {
    /// Inline data or a URL.
    Ready(wit_harvest::Input),
    /// A file or folder an agent named, and the roots it must lie under.
    Path {
        /// The path as given.
        path: String,
        /// The candidate roots (canonicalized on the blocking thread).
        roots: Vec<PathBuf>,
    },
}

/// The roots an agent's paths may lie under: the client's (asked with
/// `roots/list`, cached until `notifications/roots/list_changed`) and the
/// configured ones.
struct ImportAccess {
    /// `[mcp] import_roots`.
    configured: Vec<PathBuf>,
    /// The `config.toml` refusals point to.
    config_path: PathBuf,
    /// The client's roots as last listed, with the [`ImportAccess::generation`]
    /// they were asked in; `None` until asked.
    client: tokio::sync::Mutex<Option<(u64, Vec<PathBuf>)>>,
    /// Bumped by every `notifications/roots/list_changed`: a cached list of
    /// an older generation is asked for again.
    generation: AtomicU64,
    /// Whether the client's roots count. Over stdio the client runs on the
    /// user's machine and its roots are the user's folders; over HTTP a
    /// client elsewhere would name folders of the server's machine, so
    /// only the configured roots count there.
    client_roots: bool,
}

/// The client's roots (`roots/list`) as paths; `None` when the client did
/// not answer in [`ROOTS_TIMEOUT`] or answered with an error.
///
/// Roots are part of MCP 2025-11-25, which this server speaks; a later
/// revision deprecates them (SEP-2577) in favour of server configuration,
/// which `[mcp] import_roots` already is.
#[allow(deprecated)]
async fn list_client_roots(peer: &Peer<RoleServer>) -> Option<Vec<PathBuf>> {
    match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
        Ok(Ok(listed)) => Some(
            listed
                .roots
                .iter()
                .filter_map(|root| hive_mind_files::file_uri_path(&root.uri))
                .collect(),
        ),
        Ok(Err(error)) => {
            tracing::warn!("roots/list failed: {error}");
            None
        }
        Err(_) => {
            tracing::warn!("the client did not answer roots/list in time");
            None
        }
    }
}

/// Lock the engine. A trap restarts the engine's instance by itself; a
/// panic on a worker thread poisons the lock instead, and the engine behind
/// it may have stopped mid-call: it gets a fresh instance.
fn lock_engine(engine: &Mutex<EngineRuntime>) -> Result<MutexGuard<'_, EngineRuntime>, String> {
    engine.lock().or_else(|poisoned| {
        engine.clear_poison();
        let mut guard = poisoned.into_inner();
        guard.restart().map_err(|error| error.to_string())?;
        Ok(guard)
    })
}

/// The engine behind its mutex, locked for one call at a time (an import
/// job's steps let other calls in between).
struct Locked<'a>(&'a Mutex<EngineRuntime>);

/// Why a locked turn failed.
enum TurnError {
    /// The engine failed or refused.
    Engine(EngineError),
    /// The mutex was poisoned and the engine could not be restarted.
    Restart(String),
}

/// An import call's failure: a turn's, or the host's refusal to read a file.
enum ImportFailure {
    /// A turn failed.
    Turn(TurnError),
    /// The path was refused or could not be read.
    Refused(McpError),
}

impl From<TurnError> for ImportFailure {
    fn from(error: TurnError) -> Self {
        ImportFailure::Turn(error)
    }
}

impl From<ImportFailure> for McpError {
    fn from(failure: ImportFailure) -> Self {
        match failure {
            ImportFailure::Turn(error) => error.into(),
            ImportFailure::Refused(error) => error,
        }
    }
}

impl From<EngineError> for TurnError {
    fn from(error: EngineError) -> Self {
        TurnError::Engine(error)
    }
}

impl From<TurnError> for McpError {
    fn from(error: TurnError) -> Self {
        match error {
            TurnError::Engine(error) => engine_error(error),
            TurnError::Restart(message) => internal(message),
        }
    }
}

impl EngineTurns for Locked<'_> {
    type Error = TurnError;
    fn turn<T>(
        &mut self,
        work: impl FnOnce(&mut EngineRuntime) -> Result<T, EngineError>,
    ) -> Result<T, TurnError> {
        let mut engine = lock_engine(self.0).map_err(TurnError::Restart)?;
        Ok(work(&mut engine)?)
    }
    fn engine_error(error: &TurnError) -> Option<&EngineError> {
        match error {
            TurnError::Engine(error) => Some(error),
            TurnError::Restart(_) => None,
        }
    }
}

/// Run one import call on the blocking thread: the inline input or URL as
/// one job; a path's files read one at a time (capped per file and per
/// call), each its own job, the reports merged. A file the engine cannot
/// parse is reported in its source's `error` when the path named a folder;
/// a single file's failure is the call's.
fn import_blocking(
    engine: &Mutex<EngineRuntime>,
    pending: Pending,
    options: &wit_harvest::ImportOptions,
    config_path: &std::path::Path,
) -> Result<wit_harvest::ImportReport, McpError> {
    let progress = hive_mind_terminal::Progress::hidden();
    let mut locked = Locked(engine);
    let (path, roots) = match pending {
        Pending::Ready(input) => {
            return Ok(hive_mind_runtime::engine::import::run_job(
                &mut locked,
                &[input],
                options,
                &progress,
            )?);
        }
        Pending::Path { path, roots } => (path, AllowedRoots::new(roots, config_path)),
    };
    let refused = |error: FileAccessError| invalid(error.to_string());
    let files = roots.resolve(&path, MAX_FOLDER_FILES).map_err(refused)?;
    let mut total: u64 = 0;
    let inputs = files.into_iter().map(|file| {
        let left = MAX_CALL_BYTES.saturating_sub(total);
        let bytes = match roots.read(&file, MAX_FILE_BYTES.min(left)) {
            Err(FileAccessError::TooLarge { .. }) if left < MAX_FILE_BYTES => {
                return Err(ImportFailure::Refused(invalid(format!(
                    "{path}: its files hold more than the {MAX_CALL_BYTES} bytes one call reads; import its subfolders one by one"
                ))));
            }
            other => other.map_err(|error| ImportFailure::Refused(refused(error)))?,
        };
        total = total.saturating_add(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
        Ok(wit_harvest::Input::Document(wit_harvest::Document {
            name: file.display().to_string(),
            bytes,
        }))
    });
    Ok(hive_mind_runtime::engine::import::import_each(
        &mut locked,
        inputs,
        options,
        &progress,
    )?)
}

/// The MCP server over one engine (and so one data directory).
#[derive(Clone)]
pub struct MemoryServer {
    engine: Arc<Mutex<EngineRuntime>>,
    tool_router: ToolRouter<Self>,
    access: Arc<ImportAccess>,
    in_flight: Arc<tokio::sync::Semaphore>,
    max_in_flight: usize,
    /// Serving clients elsewhere (over HTTP): every call must carry a
    /// grant, and one that does not is refused.
    remote: bool,
}

tokio::task_local! {
    /// The caller of the request being handled, set around each tool call
    /// and resource read from the request's grant.
    static CALLER: Caller;
}

/// An operation's refusal or failure as the tool's error: the caller's
/// doing (a bad argument, a grant that does not reach, a missing mind) is
/// `invalid_params`, which the model reads as the tool's result.
fn op_error(error: OpError) -> McpError {
    match error {
        OpError::Invalid(_)
        | OpError::Argument { .. }
        | OpError::Forbidden(_)
        | OpError::NotFound(_) => invalid(error.to_string()),
        OpError::Engine(error) => engine_error(error),
    }
}

fn invalid(message: impl Into<String>) -> McpError {
    McpError::invalid_params(message.into(), None)
}

fn internal(message: impl Into<String>) -> McpError {
    McpError::internal_error(message.into(), None)
}

/// Whether a storage failure is the caller's doing (a mind, item or frame
/// that does not exist, a malformed value, a full awareness list, a frame
/// still referenced) rather than the server's (SQL, a lock, a damaged or
/// newer database, the embedder, the disk).
fn caller_storage_error(error: &StorageError) -> bool {
    match error {
        StorageError::MindNotFound(_)
        | StorageError::NotFound(_)
        | StorageError::InvalidArgument(_)
        | StorageError::AwarenessFull(_)
        | StorageError::Referenced(_) => true,
        StorageError::DimensionMismatch(_)
        | StorageError::NewerSchema(_)
        | StorageError::Corrupt(_)
        | StorageError::NoEmbedder
        | StorageError::Embedder(_)
        | StorageError::Busy
        | StorageError::AccessDenied
        | StorageError::Full
        | StorageError::Sql(_) => false,
    }
}

/// An engine error as an MCP error, by its typed case: the caller's fault
/// (`invalid_params`, which [`MemoryServer::call_tool`] turns into a tool
/// result with `isError: true`) or ours (an internal error).
fn engine_error(error: EngineError) -> McpError {
    let storage = |error: &StorageError| {
        let message = describe_storage_error(error);
        if caller_storage_error(error) {
            invalid(message)
        } else {
            internal(message)
        }
    };
    match &error {
        EngineError::Memory(MemoryError(wit_memory::Error::InvalidArgument(why)))
        | EngineError::Admin(AdminError(wit_admin::Error::InvalidArgument(why)))
        | EngineError::Review(ReviewError(wit_review::Error::InvalidArgument(why))) => {
            invalid(why.clone())
        }
        EngineError::Memory(MemoryError(wit_memory::Error::Storage(error)))
        | EngineError::Admin(AdminError(wit_admin::Error::Storage(error)))
        | EngineError::Review(ReviewError(wit_review::Error::Storage(error)))
        | EngineError::Harvest(HarvestError(wit_harvest::Error::Storage(error))) => storage(error),
        EngineError::Harvest(HarvestError(
            wit_harvest::Error::InvalidArgument(_)
            | wit_harvest::Error::Unrecognised(_)
            | wit_harvest::Error::Malformed(_)
            | wit_harvest::Error::TooLarge(_)
            | wit_harvest::Error::Fetch(_),
        )) => invalid(error.to_string()),
        EngineError::Harvest(HarvestError(wit_harvest::Error::Embedder(_))) => {
            internal(error.to_string())
        }
        EngineError::Memory(MemoryError(
            wit_memory::Error::Embedder(_) | wit_memory::Error::Llm(_),
        ))
        | EngineError::Admin(AdminError(wit_admin::Error::Embedder(_)))
        | EngineError::Review(ReviewError(wit_review::Error::Embedder(_)))
        | EngineError::Host(_) => internal(error.to_string()),
    }
}

/// The names of the regex scanner's categories the report lists.
fn flag_names(report: &InjectionReport) -> Vec<&'static str> {
    report.flags.iter().map(|flag| flag.wit_name()).collect()
}

/// The injection detector's verdict as JSON.
fn scan_json(report: &InjectionReport) -> Json {
    json!({
        "safe": report.safe,
        "score": report.score,
        "threshold": report.threshold,
        "detector": report.detector,
        "reasons": report.reasons,
        "flags": flag_names(report),
        "matched": report.matched,
    })
}

/// Why `text` is withheld from a model, when the engine's injection scan
/// (the one recall runs, `logic.scan-for-injection`, as tool output) flags
/// it; `None` when it is safe.
fn withheld_reason(engine: &mut EngineRuntime, text: &str) -> Result<Option<String>, McpError> {
    let report = engine
        .scan_for_injection(text, ScanContext::ToolOutput)
        .map_err(engine_error)?;
    if report.safe {
        return Ok(None);
    }
    Ok(Some(format!(
        "the injection detector found it hostile (score {:.3} ≥ {:.3}; {}); the text is withheld",
        report.score,
        report.threshold,
        report.reasons.join(", ")
    )))
}

/// `value` (a JSON object) with `field` set to null and a `withheld`
/// reason when the scan flags `text`; as it is otherwise.
fn guarded(
    engine: &mut EngineRuntime,
    mut value: Json,
    field: &str,
    text: &str,
) -> Result<Json, McpError> {
    if let Some(why) = withheld_reason(engine, text)?
        && let Some(object) = value.as_object_mut()
    {
        object.insert(field.to_string(), Json::Null);
        object.insert("withheld".to_string(), json!(why));
    }
    Ok(value)
}

/// An awareness item as a model may see it (scanned).
fn awareness_view(engine: &mut EngineRuntime, item: &AwarenessItem) -> Result<Json, McpError> {
    guarded(
        engine,
        crate::admin_cli::awareness_json(item),
        "content",
        &item.content,
    )
}

/// A frame as a model may see it (scanned).
fn frame_view(engine: &mut EngineRuntime, frame: &wit_types::Frame) -> Result<Json, McpError> {
    guarded(engine, frame_json(frame), "content", &frame.content)
}

/// `{"identity": …}` as a model may see it: the whole identity is withheld
/// (null, with the reason) when the scan flags any of its fields.
fn identity_view(
    engine: &mut EngineRuntime,
    identity: Option<&Identity>,
) -> Result<Json, McpError> {
    let Some(identity) = identity else {
        return Ok(json!({ "identity": Json::Null }));
    };
    let text = [
        identity.name.as_str(),
        &identity.role,
        &identity.personality,
        &identity.capabilities,
        &identity.system_prompt,
    ]
    .join("\n");
    Ok(match withheld_reason(engine, &text)? {
        None => json!({ "identity": crate::admin_cli::identity_json(Some(identity)) }),
        Some(why) => json!({ "identity": Json::Null, "withheld": why }),
    })
}

/// An entity as the tools show it.
fn entity_json(entity: &wit_memory::KnownEntity) -> Json {
    json!({
        "id": entity.id,
        "name": entity.name,
        "entity_type": entity.entity_type,
        "seen_count": entity.seen_count,
    })
}

fn json_result(value: Json) -> CallToolResult {
    CallToolResult::structured(value)
}

/// A mind's live awareness items as a model may see them.
fn awareness_views(
    engine: &mut EngineRuntime,
    items: &[AwarenessItem],
) -> Result<Vec<Json>, McpError> {
    items
        .iter()
        .map(|item| awareness_view(engine, item))
        .collect()
}

/// The workspace ids that have a mind, sorted.
fn workspace_ids(engine: &mut EngineRuntime) -> Result<Vec<String>, McpError> {
    let minds = engine.admin().list_minds().map_err(engine_error)?;
    let mut ids: Vec<String> = minds
        .into_iter()
        .filter_map(|mind| match mind {
            Mind::Workspace(id) => Some(id),
            Mind::Personal => None,
        })
        .collect();
    ids.sort();
    Ok(ids)
}

impl MemoryServer {
    /// A server over an engine opened on a data directory (the minds are
    /// reached through the engine alone).
    pub fn new(engine: EngineRuntime) -> Self {
        MemoryServer::with_config(engine, config::McpConfig::default())
    }

    /// A server with the `[mcp]` configuration (import roots, requests in
    /// flight).
    pub fn with_config(engine: EngineRuntime, config: config::McpConfig) -> Self {
        let max_in_flight = config.max_in_flight.max(1);
        MemoryServer {
            engine: Arc::new(Mutex::new(engine)),
            tool_router: Self::tool_router(),
            access: Arc::new(ImportAccess {
                configured: config.import_roots,
                config_path: config.path,
                client: tokio::sync::Mutex::new(None),
                generation: AtomicU64::new(0),
                client_roots: true,
            }),
            in_flight: Arc::new(tokio::sync::Semaphore::new(max_in_flight)),
            max_in_flight,
            remote: false,
        }
    }

    /// The same server for clients elsewhere (MCP over HTTP): their
    /// `roots` are not folders of this machine, so paths are read only
    /// under `[mcp] import_roots`.
    pub fn for_remote_clients(mut self) -> Self {
        if let Some(access) = Arc::get_mut(&mut self.access) {
            access.client_roots = false;
        }
        self.remote = true;
        self
    }

    /// The caller of the request being handled: its grant over HTTP, the
    /// owner over stdio. A remote call that reached here without a grant is
    /// refused (fail closed).
    fn caller(&self) -> Result<Caller, McpError> {
        match CALLER.try_with(Caller::clone) {
            Ok(caller) => Ok(caller),
            Err(_) if !self.remote => Ok(Caller::Owner),
            Err(_) => Err(invalid("this call carries no grant; send a token")),
        }
    }

    /// A permit to handle one request, or the busy error when
    /// `max_in_flight` are already being handled.
    fn admit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, McpError> {
        Arc::clone(&self.in_flight)
            .try_acquire_owned()
            .map_err(|_| {
                McpError::new(
                    SERVER_BUSY,
                    format!(
                        "server busy: {} requests are already being handled (the limit, `[mcp] max_in_flight`); retry when one has been answered",
                        self.max_in_flight
                    ),
                    None,
                )
            })
    }

    /// The candidate roots for an agent's path: the configured ones and,
    /// when the client declares the `roots` capability, its roots (asked
    /// with `roots/list` once, and again after each change notice).
    async fn root_candidates(&self, peer: &Peer<RoleServer>) -> Vec<PathBuf> {
        let mut roots = self.access.configured.clone();
        let declares = self.access.client_roots
            && peer
                .peer_info()
                .is_some_and(|info| info.capabilities.roots.is_some());
        if !declares {
            return roots;
        }
        let mut cached = self.access.client.lock().await;
        let generation = self.access.generation.load(Ordering::SeqCst);
        match cached.as_ref() {
            Some((asked_in, paths)) if *asked_in == generation => {
                roots.extend(paths.iter().cloned());
            }
            _ => {
                if let Some(paths) = list_client_roots(peer).await {
                    roots.extend(paths.iter().cloned());
                    *cached = Some((generation, paths));
                }
            }
        }
        roots
    }

    /// Run `work` with the engine on a blocking thread, once the caller's
    /// grant allows `access` and the workspaces it names exist
    /// ([`ops::authorize_on`]): the only way a tool reaches the engine.
    async fn with_access<T, F>(&self, access: Access, work: F) -> Result<T, McpError>
    where
        T: Send + 'static,
        F: FnOnce(&mut EngineRuntime, &Caller) -> Result<T, McpError> + Send + 'static,
    {
        let caller = self.caller()?;
        let engine = Arc::clone(&self.engine);
        tokio::task::spawn_blocking(move || {
            let mut engine = lock_engine(&engine).map_err(internal)?;
            ops::authorize_on(&mut engine, &caller, &access).map_err(op_error)?;
            work(&mut engine, &caller)
        })
        .await
        .map_err(|error| internal(format!("the tool's worker failed: {error}")))?
    }

    /// Run one typed operation for the caller ([`ops::execute`]), then
    /// `render` its output with the engine (the guarded views).
    async fn run_op<O, T, R>(&self, operation: O, render: R) -> Result<T, McpError>
    where
        O: Operation + Send + 'static,
        T: Send + 'static,
        R: FnOnce(&mut EngineRuntime, O::Output) -> Result<T, McpError> + Send + 'static,
    {
        let caller = self.caller()?;
        let engine = Arc::clone(&self.engine);
        tokio::task::spawn_blocking(move || {
            let mut engine = lock_engine(&engine).map_err(internal)?;
            let output = ops::execute(&mut engine, &caller, operation).map_err(op_error)?;
            render(&mut engine, output)
        })
        .await
        .map_err(|error| internal(format!("the tool's worker failed: {error}")))?
    }

    /// Run an import to the end on a blocking thread (the engine locked one
    /// step at a time); its report as the tool's result.
    async fn harvest(
        &self,
        pending: Pending,
        options: wit_harvest::ImportOptions,
    ) -> Result<CallToolResult, McpError> {
        let name = mind_name(&options.mind);
        self.with_access(Access::write(options.mind.clone()), |_, _| Ok(()))
            .await?;
        let engine = Arc::clone(&self.engine);
        let access = Arc::clone(&self.access);
        let report = tokio::task::spawn_blocking(move || {
            import_blocking(&engine, pending, &options, &access.config_path)
        })
        .await
        .map_err(|error| internal(format!("the tool's worker failed: {error}")))??;
        let mut value = crate::harvest_cli::report_json(&report);
        if let Some(object) = value.as_object_mut() {
            object.insert("mind".to_string(), json!(name));
        }
        Ok(json_result(value))
    }

    /// An import of the path an agent named, checked on the blocking
    /// thread against the roots of this moment.
    async fn path_import(
        &self,
        path: String,
        peer: &Peer<RoleServer>,
    ) -> Result<Pending, McpError> {
        if path.trim().is_empty() {
            return Err(invalid("path is empty"));
        }
        let roots = self.root_candidates(peer).await;
        Ok(Pending::Path { path, roots })
    }
}

/// The mind a tool acts on (see the module docs): resolved here, checked
/// against the grant and for existence with the engine ([`ops`]).
fn target_mind(mind: Option<&str>, workspace: Option<&str>) -> Result<Mind, McpError> {
    ops::write_mind(mind, workspace, false).map_err(op_error)
}

#[tool_router]
impl MemoryServer {
    /// Save one memory.
    #[tool(
        description = "Save a memory: chunked, embedded and stored in the personal mind, or in a workspace's mind when `workspace` is given. Deduplicated by content. The text is stored as given and screened by the prompt-injection detector: `injection_scan` in the result is its verdict, and a hostile memory is quarantined (kept for its owner's review, never recalled)."
    )]
    async fn save_memory(
        &self,
        Parameters(args): Parameters<SaveMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(args.mind.as_deref(), args.workspace.as_deref())?;
        let operation = ops::save::SaveOperation::new(
            ops::save::SaveRequest {
                content: args.content,
                importance: args.importance,
                source: args.source,
                mind,
                created_at: args.created_at,
            },
            false,
        )
        .map_err(op_error)?;
        let content = operation.content().to_string();
        let (saved, scan) = self
            .run_op(operation, move |engine, saved| {
                let scan = engine
                    .scan_for_injection(&content, ScanContext::ToolOutput)
                    .map_err(engine_error)?;
                Ok((saved, scan))
            })
            .await?;
        let mut value = saved_json(&saved);
        if let Some(object) = value.as_object_mut() {
            object.insert("injection_scan".to_string(), scan_json(&scan));
        }
        Ok(json_result(value))
    }

    /// Recall the memories relevant to a query.
    #[tool(
        description = "Recall the memories most relevant to a query: hybrid keyword + semantic search with importance, date-window, profile, fact, event and raw-turn lanes, scored by recency, importance, popularity and knowledge-graph distance. Returns the formatted recall block and the memories with their scores."
    )]
    async fn recall_memory(
        &self,
        Parameters(args): Parameters<RecallMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let request = ops::recall::RecallRequest {
            query: args.query,
            limit: args.limit,
            profile: args.profile,
            workspace: args.workspace,
            scope: args.scope,
            as_of: args.as_of,
            ..ops::recall::RecallRequest::default()
        };
        let operation = ops::recall::RecallOperation::try_from(request).map_err(op_error)?;
        let recall = self.run_op(operation, |_, recall| Ok(recall)).await?;
        let mut value = ops::recall::recall_json(&recall);
        if let Some(object) = value.as_object_mut() {
            object.remove("stages");
        }
        let text = if let Some(why) = &recall.withheld {
            format!("Recall withheld: {why}")
        } else if recall.memories.is_empty() {
            "Nothing relevant is remembered.".to_string()
        } else {
            recall.text.clone()
        };
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(value);
        Ok(result)
    }

    /// Learn from an exchange.
    #[tool(
        description = "After a successful turn, learn from the (user, assistant) exchange: preferences, corrections and style go to the personal mind; decisions, findings and work output to the workspace's mind."
    )]
    async fn remember_exchange(
        &self,
        Parameters(args): Parameters<RememberExchangeArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mut minds = Vec::new();
        if let Some(id) = args.workspace.as_deref() {
            minds.push(target_mind(None, Some(id))?);
        }
        // Cognify writes preferences to the personal mind, work to the
        // workspace's.
        minds.push(Mind::Personal);
        let options = wit_memory::ExchangeOptions {
            workspace: args.workspace,
            gop_id: None,
            succeeded: args.succeeded.unwrap_or(true),
        };
        let (user, assistant) = (args.user, args.assistant);
        let saved = self
            .with_access(Access::on_all(Scope::Write, minds), move |engine, _| {
                engine
                    .remember_exchange(&user, &assistant, &options)
                    .map_err(engine_error)
            })
            .await?;
        let frames: Vec<Json> = saved.iter().map(saved_json).collect();
        Ok(json_result(json!({ "saved": frames })))
    }

    /// Browse the knowledge graph.
    #[tool(
        description = "Search the knowledge graph's entities whose name contains a text (case-insensitive), most seen first."
    )]
    async fn search_entities(
        &self,
        Parameters(args): Parameters<SearchEntitiesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let limit = args.limit.unwrap_or(20).clamp(1, 200);
        let entities = self
            .with_access(Access::read(mind.clone()), move |engine, _| {
                engine
                    .search_entities(&mind, &args.query, limit)
                    .map_err(engine_error)
            })
            .await?;
        let entities: Vec<Json> = entities.iter().map(entity_json).collect();
        Ok(json_result(json!({ "entities": entities })))
    }

    /// Add or strengthen an entity.
    #[tool(
        description = "Save an entity (person, organization, project, technology, concept, …) in the knowledge graph; an existing one with the same canonical name and type is strengthened instead. Dates, numbers and generic words are refused."
    )]
    async fn save_entity(
        &self,
        Parameters(args): Parameters<SaveEntityArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(args.mind.as_deref(), args.workspace.as_deref())?;
        let entity = self
            .with_access(Access::write(mind.clone()), move |engine, _| {
                engine
                    .save_entity(&mind, &args.name, &args.entity_type)
                    .map_err(engine_error)
            })
            .await?;
        Ok(json_result(json!({ "entity": entity_json(&entity) })))
    }

    /// Relate two entities.
    #[tool(
        description = "Create (or strengthen) a typed, directed relation between two existing entities named exactly, e.g. subject `ledger` depends_on object `postgresql`. The type is stored as cognify spells it (depends_on → depends-on); strength defaults to 0.8."
    )]
    async fn create_relation(
        &self,
        Parameters(args): Parameters<CreateRelationArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(args.mind.as_deref(), args.workspace.as_deref())?;
        let relation = self
            .with_access(Access::write(mind.clone()), move |engine, _| {
                engine
                    .create_relation(
                        &mind,
                        &args.subject,
                        &args.relation,
                        &args.object,
                        args.strength,
                    )
                    .map_err(engine_error)
            })
            .await?;
        Ok(json_result(json!({
            "relation": {
                "id": relation.id,
                "subject": relation.subject,
                "relation": relation.relation,
                "object": relation.object,
                "strength": relation.strength,
                "seen_count": relation.seen_count,
            }
        })))
    }

    /// Who the agent is.
    #[tool(
        description = "The agent's identity (name, role, personality, capabilities, standing instructions): the personal mind's, or a workspace's own when `workspace` is given."
    )]
    async fn get_identity(
        &self,
        Parameters(args): Parameters<WorkspaceArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let view = self
            .run_op(ops::identity::GetIdentity { mind }, |engine, identity| {
                identity_view(engine, identity.as_ref())
            })
            .await?;
        Ok(json_result(view))
    }

    /// Set who the agent is.
    #[tool(
        description = "Set the agent's identity (the personal mind's, or a workspace's own when `workspace` is given); fields left out keep their value."
    )]
    async fn set_identity(
        &self,
        Parameters(args): Parameters<SetIdentityArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(args.mind.as_deref(), args.workspace.as_deref())?;
        let fields = ops::identity::IdentityFields {
            name: args.name,
            role: args.role,
            personality: args.personality,
            capabilities: args.capabilities,
            system_prompt: args.system_prompt,
        };
        let operation = ops::identity::SetIdentity::new(mind, fields).map_err(op_error)?;
        let view = self
            .run_op(operation, |engine, identity| {
                identity_view(engine, Some(&identity))
            })
            .await?;
        Ok(json_result(view))
    }

    /// What the agent is working on.
    #[tool(
        description = "The live awareness items (at most ten per mind), highest priority first."
    )]
    async fn get_awareness(
        &self,
        Parameters(args): Parameters<WorkspaceArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let items = self
            .run_op(ops::awareness::ListAwareness { mind }, |engine, items| {
                awareness_views(engine, &items)
            })
            .await?;
        Ok(json_result(json!({ "items": items })))
    }

    /// Add an awareness item.
    #[tool(
        description = "Add an awareness item (category task, action, pending or flag). At most ten are live: with evict=true the lowest-priority one is removed (and reported), otherwise a full list is an error."
    )]
    async fn set_awareness(
        &self,
        Parameters(args): Parameters<SetAwarenessArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(args.mind.as_deref(), args.workspace.as_deref())?;
        let operation = ops::awareness::AddAwareness::new(
            mind,
            &args.category,
            args.content,
            args.priority,
            args.expires_at.as_ref(),
            args.evict.unwrap_or(false),
        )
        .map_err(op_error)?;
        let shown = self
            .run_op(operation, |engine, added| {
                let evicted = match &added.evicted {
                    Some(item) => Some(awareness_view(engine, item)?),
                    None => None,
                };
                Ok(json!({
                    "added": awareness_view(engine, &added.item)?,
                    "evicted": evicted,
                }))
            })
            .await?;
        Ok(json_result(shown))
    }

    /// Remove awareness items.
    #[tool(description = "Remove one awareness item by id, or all live items with all=true.")]
    async fn clear_awareness(
        &self,
        Parameters(args): Parameters<ClearAwarenessArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(args.mind.as_deref(), args.workspace.as_deref())?;
        let (id, all) = (args.id, args.all.unwrap_or(false));
        if id.is_none() && !all {
            return Err(invalid("name the item to remove (id), or pass all=true"));
        }
        let removed = self
            .run_op(ops::awareness::RemoveAwareness { mind, id }, |_, ids| {
                Ok(ids)
            })
            .await?;
        Ok(json_result(json!({ "removed": removed })))
    }

    /// The workspaces.
    #[tool(description = "The workspaces that have a mind in the data directory.")]
    async fn list_workspaces(&self) -> Result<CallToolResult, McpError> {
        // Only the workspaces the caller reaches are named.
        let workspaces = self
            .with_access(Access::on_all(Scope::Read, Vec::new()), |engine, caller| {
                Ok(workspace_ids(engine)?
                    .into_iter()
                    .filter(|id| caller.reaches(&Mind::Workspace(id.clone())))
                    .collect::<Vec<_>>())
            })
            .await?;
        Ok(json_result(json!({ "workspaces": workspaces })))
    }

    /// Create a workspace.
    #[tool(
        description = "Create a workspace's mind (1-64 ASCII letters, digits, '-', '_' or '.'). Creating one that exists is fine."
    )]
    async fn create_workspace(
        &self,
        Parameters(args): Parameters<CreateWorkspaceArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = hive_mind_runtime::engine::convert::workspace(&args.id).map_err(invalid)?;
        let id = args.id;
        let (id, existed) = self
            .with_access(Access::write(mind).creating(), move |engine, _| {
                let existed = workspace_ids(engine)?.contains(&id);
                engine.admin().create_workspace(&id).map_err(engine_error)?;
                Ok((id, existed))
            })
            .await?;
        Ok(json_result(json!({ "workspace": id, "created": !existed })))
    }

    /// Import a history or a document.
    #[tool(
        description = "Import a history into memory: a ChatGPT, Claude, Gemini, Perplexity or Claude Code export (JSON, JSONL or the export zip), Markdown, plain text, PDF, a web page, or universal JSON messages. Give exactly one of path (a file or folder under the folders the user allowed: the client's roots or `[mcp] import_roots`), data (the content itself) or url. The format is detected by content (override with source). Every message becomes a raw-turn memory; facts, events and profiles are distilled (by the configured language model, else heuristically); hostile items are dropped; importing the same export again writes nothing. Returns the import's report."
    )]
    async fn harvest_import(
        &self,
        Parameters(args): Parameters<HarvestImportArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let given = [args.path.is_some(), args.data.is_some(), args.url.is_some()]
            .iter()
            .filter(|given| **given)
            .count();
        if given != 1 {
            return Err(invalid(
                "give exactly one of path, data or url (the thing to import)",
            ));
        }
        let source = match args.source.as_deref().map(str::trim) {
            None | Some("") | Some("auto") => None,
            Some(name) => Some(crate::harvest_cli::parse_format(name).ok_or_else(|| {
                invalid(format!(
                    "unknown source {name:?}: use auto, {}",
                    one_of::<wit_harvest::SourceFormat>()
                ))
            })?),
        };
        let pending = if let Some(url) = args.url {
            Pending::Ready(url_input(&url)?)
        } else if let Some(data) = args.data {
            Pending::Ready(wit_harvest::Input::Document(wit_harvest::Document {
                name: "data".to_string(),
                bytes: data.into_bytes(),
            }))
        } else {
            self.path_import(args.path.unwrap_or_default(), &context.peer)
                .await?
        };
        let mind = target_mind(None, args.workspace.as_deref())?;
        let options = wit_harvest::ImportOptions {
            source,
            mind,
            distillation: if args.no_llm.unwrap_or(false) {
                wit_harvest::Distillation::Heuristic
            } else {
                wit_harvest::Distillation::Auto
            },
            dry_run: args.dry_run.unwrap_or(false),
        };
        self.harvest(pending, options).await
    }

    /// The sources imported before.
    #[tool(
        description = "List the sources imported into the personal mind (or a workspace's): format, name, item count, the set hash that makes a re-import of the same export a no-op, and when each was first and last imported."
    )]
    async fn harvest_sources(
        &self,
        Parameters(args): Parameters<HarvestSourcesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let name = mind_name(&mind);
        let sources = self
            .with_access(Access::read(mind.clone()), move |engine, _| {
                engine.harvest_sources(&mind).map_err(engine_error)
            })
            .await?;
        let sources: Vec<Json> = sources
            .iter()
            .map(crate::harvest_cli::harvest_source_json)
            .collect();
        Ok(json_result(json!({ "mind": name, "sources": sources })))
    }

    /// Ingest one document by URL or path.
    #[tool(
        description = "Ingest one source into memory: an http(s) URL (fetched by the host: private, loopback and link-local addresses are refused, with a timeout and a size cap) or a path to a file under the folders the user allowed (the client's roots or `[mcp] import_roots`; hidden files and /proc, /sys, /dev, /run are refused). Detected by content, parsed, scanned for prompt injection, distilled and stored like harvest_import."
    )]
    async fn ingest_source(
        &self,
        Parameters(args): Parameters<IngestSourceArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let source = args.source.trim();
        if source.is_empty() {
            return Err(invalid("source is empty: give a URL or a path"));
        }
        let pending = if crate::harvest_cli::is_url(source) {
            Pending::Ready(url_input(source)?)
        } else {
            self.path_import(source.to_string(), &context.peer).await?
        };
        let mind = target_mind(None, args.workspace.as_deref())?;
        let options = wit_harvest::ImportOptions {
            source: None,
            mind,
            distillation: wit_harvest::Distillation::Auto,
            dry_run: false,
        };
        self.harvest(pending, options).await
    }

    /// Find (and retire) dead-weight frames.
    #[tool(
        description = "Find frames that are empty, duplicated (same text but for case and spacing) or near-duplicated (trigram similarity >= 0.75), keeping the most important (then oldest) of each group; raw conversation turns are left alone. With apply=true they are retired (importance deprecated: kept for history, ranked down, never deleted); by default only reported."
    )]
    async fn cleanup_frames(
        &self,
        Parameters(args): Parameters<CleanupFramesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let name = mind_name(&mind);
        let access = Access::on(
            if args.apply {
                Scope::Write
            } else {
                Scope::Read
            },
            mind.clone(),
        );
        let options = wit_memory::CleanupOptions {
            mind,
            apply: args.apply,
        };
        let (report, candidates) = self
            .with_access(access, move |engine, _| {
                let report = engine.cleanup_frames(&options).map_err(engine_error)?;
                let candidates = report
                    .candidates
                    .iter()
                    .map(|candidate| {
                        let value = json!({
                            "id": candidate.frame.id,
                            "reason": candidate.reason.wit_name(),
                            "kept": candidate.kept.as_ref().map(|kept| kept.id),
                            "similarity": candidate.similarity,
                            "content": candidate.content,
                        });
                        guarded(engine, value, "content", &candidate.content)
                    })
                    .collect::<Result<Vec<Json>, McpError>>()?;
                Ok((report, candidates))
            })
            .await?;
        Ok(json_result(json!({
            "mind": name,
            "scanned": report.scanned,
            "applied": args.apply,
            "retired": report.retired,
            "candidates": candidates,
            "notes": report.notes,
        })))
    }

    /// Forget memories for real.
    #[tool(
        description = "Forget memories for good: each named memory (by reference, e.g. personal:42) or every memory of one mind matching a filter (matching: all these words; since/until: event days YYYY-MM-DD; learned_since/learned_until: the days it was written into the mind; harvest_format; document) is erased with its search entries, vectors, the entities left without evidence and copies of its text, and the freed space is reclaimed. Without confirm=true nothing changes: the answer lists exactly what would be erased. An erasure log keeps references, hashes, times and the reason, never the text."
    )]
    async fn forget_memory(
        &self,
        Parameters(args): Parameters<ForgetMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::forget::ForgetOperation::new(&args).map_err(op_error)?;
        let value = self
            .run_op(operation, move |engine, report| {
                let mut value = crate::forget_cli::report_json(&report);
                if let Some(memories) = value.get_mut("memories").and_then(Json::as_array_mut) {
                    for (memory, forgotten) in memories.iter_mut().zip(&report.memories) {
                        *memory = guarded(engine, memory.take(), "preview", &forgotten.preview)?;
                    }
                }
                if report.dry_run {
                    let count = report.memories.len();
                    value["confirm"] = json!(format!(
                        "nothing was changed; call forget_memory again with the same arguments and confirm: true to erase these {count} memories"
                    ));
                }
                Ok(value)
            })
            .await?;
        Ok(json_result(value))
    }

    /// Correct a memory.
    #[tool(
        description = "Correct a memory: writes the corrected text as a new version and closes the old one (it stays in the history; recall answers with the new version, and a recall as_of a time before the correction answers with the old). Use it when the user says a remembered fact is wrong or has changed. The memory is named by reference (e.g. personal:42) as recall shows it."
    )]
    async fn update_memory(
        &self,
        Parameters(args): Parameters<UpdateMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let frame = convert::ref_in(args.memory.trim()).map_err(invalid)?;
        if args.content.trim().is_empty() {
            return Err(invalid("content is empty: give the corrected text"));
        }
        let created_at = args
            .created_at
            .as_deref()
            .map(timestamp_in)
            .transpose()
            .map_err(|why| invalid(format!("created_at: {why}")))?;
        let access = Access::write(frame.mind.clone());
        let correction = wit_memory::Correction {
            frame,
            content: args.content,
            created_at,
        };
        let value = self
            .with_access(access, move |engine, _| {
                let corrected = engine.correct_memory(&correction).map_err(engine_error)?;
                let scan = engine
                    .scan_for_injection(&correction.content, ScanContext::ToolOutput)
                    .map_err(engine_error)?;
                let scan = scan_json(&scan);
                Ok(json!({
                    "memory": frame_json(&corrected.memory),
                    "replaced": frame_view(engine, &corrected.replaced)?,
                    "injection_scan": scan,
                }))
            })
            .await?;
        Ok(json_result(value))
    }

    /// The versions of a memory.
    #[tool(
        description = "The versions of a memory, oldest first: the memories it replaced, itself, and those that replaced it, each with its event time and when it stopped being valid."
    )]
    async fn memory_history(
        &self,
        Parameters(args): Parameters<MemoryHistoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let frame = convert::ref_in(args.memory.trim()).map_err(invalid)?;
        let value = self
            .with_access(Access::read(frame.mind.clone()), move |engine, _| {
                let versions = engine.memory_history(&frame).map_err(engine_error)?;
                let versions = versions
                    .iter()
                    .map(|version| frame_view(engine, version))
                    .collect::<Result<Vec<Json>, McpError>>()?;
                Ok(json!({ "versions": versions }))
            })
            .await?;
        Ok(json_result(value))
    }

    /// Merge duplicate entities.
    #[tool(
        description = "Merge active entities with the same canonical name and type (the graph's duplicate cleanup); returns how many were retired."
    )]
    async fn cleanup_entities(
        &self,
        Parameters(args): Parameters<WorkspaceArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let retired = self
            .with_access(Access::write(mind.clone()), move |engine, _| {
                engine.admin().dedupe_entities(&mind).map_err(engine_error)
            })
            .await?;
        Ok(json_result(json!({ "retired": retired })))
    }

    /// Archive, pin or tag a memory.
    #[tool(
        description = "Review a memory by hand: archived=true archives it (kept, readable and traceable, but out of recall), archived=false brings it back; pinned=true pins it (cleanup never retires it); add_tags / remove_tags change its tags. What is left out stays as it is. Every change is logged."
    )]
    async fn review_memory(
        &self,
        Parameters(args): Parameters<ReviewMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let memory = convert::ref_in(args.memory.trim()).map_err(invalid)?;
        let change = wit_review::MetadataChange {
            status: args.archived.map(|archived| {
                if archived {
                    wit_types::MemoryStatus::Archived
                } else {
                    wit_types::MemoryStatus::Active
                }
            }),
            pinned: args.pinned,
            add_tags: args.add_tags.unwrap_or_default(),
            remove_tags: args.remove_tags.unwrap_or_default(),
        };
        let value = self
            .with_access(Access::write(memory.mind.clone()), move |engine, _| {
                let frame = engine
                    .review()
                    .set_metadata(&memory, &change)
                    .map_err(engine_error)?;
                Ok(json!({ "memory": frame_view(engine, &frame)? }))
            })
            .await?;
        Ok(json_result(value))
    }

    /// Merge memories into one.
    #[tool(
        description = "Merge memories of one mind that say parts of the same thing into one memory (content: the merged text; default: their texts joined). The originals are archived, never deleted, and point at the merged memory; recall answers a search that finds one of them with the merged memory."
    )]
    async fn merge_memories(
        &self,
        Parameters(args): Parameters<MergeMemoriesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let memories = args
            .memories
            .iter()
            .map(|name| convert::ref_in(name.trim()).map_err(invalid))
            .collect::<Result<Vec<_>, McpError>>()?;
        let access = Access::on_all(
            Scope::Write,
            memories.iter().map(|frame| frame.mind.clone()).collect(),
        );
        let request = wit_review::MergeRequest {
            memories,
            content: args.content,
        };
        let value = self
            .with_access(access, move |engine, _| {
                let merged = engine.review().merge(&request).map_err(engine_error)?;
                let originals = merged
                    .originals
                    .iter()
                    .map(|frame| frame_view(engine, frame))
                    .collect::<Result<Vec<Json>, McpError>>()?;
                Ok(json!({
                    "memory": frame_view(engine, &merged.memory)?,
                    "originals": originals,
                }))
            })
            .await?;
        Ok(json_result(value))
    }

    /// Where a memory came from.
    #[tool(
        description = "The trace of a memory: how it was written (its metadata: conversation turn, import, kind), its session, the memory it branches off, the memories it replaced and that were merged into it, its branches, its entities, related memories, and its review history."
    )]
    async fn trace_memory(
        &self,
        Parameters(args): Parameters<MemoryHistoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let memory = convert::ref_in(args.memory.trim()).map_err(invalid)?;
        let value = self
            .with_access(Access::read(memory.mind.clone()), move |engine, _| {
                let trace = engine.review().trace(&memory).map_err(engine_error)?;
                let mut value = crate::review_cli::trace_json(&trace);
                value["memory"] = frame_view(engine, &trace.memory)?;
                Ok(value)
            })
            .await?;
        Ok(json_result(value))
    }

    /// Read the knowledge graph.
    #[tool(
        description = "Read the knowledge graph: with entity (an id), that entity with its properties, its relations out and in, the entities at their other end and the memories that mention it, plus, with depth (1-4), every entity within that many hops; without entity, the entities whose name contains text, most seen first. entity_type keeps one type."
    )]
    async fn explore_graph(
        &self,
        Parameters(args): Parameters<ExploreGraphArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let limit = args.limit.unwrap_or(DEFAULT_LISTING).clamp(1, MAX_LISTING);
        let value = self
            .with_access(Access::read(mind.clone()), move |engine, _| {
                let entity_type = args.entity_type.as_deref();
                let Some(id) = args.entity else {
                    let found = engine
                        .review()
                        .list_entities(&mind, args.text.as_deref().unwrap_or(""), entity_type, limit)
                        .map_err(engine_error)?;
                    return Ok(json!({
                        "entities": found.iter().map(crate::review_cli::entity_json).collect::<Vec<_>>(),
                    }));
                };
                let view = engine.review().get_entity(&mind, id).map_err(engine_error)?;
                let mut value = crate::review_cli::entity_view_json(&view);
                if let Some(depth) = args.depth {
                    let hops = engine
                        .review()
                        .neighbours(&mind, id, depth, entity_type, limit)
                        .map_err(engine_error)?;
                    value["neighbours"] = crate::review_cli::hops_json(&hops);
                }
                Ok(value)
            })
            .await?;
        Ok(json_result(value))
    }

    /// The sessions of a mind.
    #[tool(
        description = "The sessions of the personal mind (or a workspace's), newest first: id, project, whether closed, start and end, summary, how many memories."
    )]
    async fn list_sessions(
        &self,
        Parameters(args): Parameters<ListSessionsArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let limit = args.limit.unwrap_or(DEFAULT_LISTING).clamp(1, MAX_LISTING);
        let sessions = self
            .with_access(Access::read(mind.clone()), move |engine, _| {
                engine
                    .review()
                    .list_sessions(&mind, limit)
                    .map_err(engine_error)
            })
            .await?;
        Ok(json_result(json!({
            "sessions": sessions.iter().map(crate::review_cli::session_json).collect::<Vec<_>>(),
        })))
    }

    /// Close a session.
    #[tool(
        description = "Close a session (with an optional summary); the next memory saved starts a new one. Closing a closed session is an error."
    )]
    async fn close_session(
        &self,
        Parameters(args): Parameters<CloseSessionArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let session = self
            .with_access(Access::write(mind.clone()), move |engine, _| {
                engine
                    .review()
                    .close_session(&mind, args.session.trim(), args.summary.as_deref())
                    .map_err(engine_error)
            })
            .await?;
        Ok(json_result(crate::review_cli::session_json(&session)))
    }

    /// Cleanup modes.
    #[tool(
        description = "Keep a mind tidy. mode: compact (empty and duplicated memories), retire-orphans (entities no memory mentions and no relation touches), remove-noise (entities named by noise words, with no relation), or audit (all of them, and how many memories are held back as likely injections: quarantined, or unscreened ones the recall scan flags; never changes anything). With apply=true the mode retires what it finds (kept for history, ranked down or out of the graph, never deleted); by default it only reports."
    )]
    async fn cleanup_memory(
        &self,
        Parameters(args): Parameters<CleanupMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = target_mind(None, args.workspace.as_deref())?;
        let mode = args.mode.trim().to_string();
        if !CLEANUP_MODES.contains(&mode.as_str()) {
            return Err(invalid(format!(
                "unknown mode {mode:?}; expected one of: {}",
                CLEANUP_MODES.join(", ")
            )));
        }
        let apply = args.apply && mode != "audit";
        let name = mind_name(&mind);
        let access = Access::on(if apply { Scope::Write } else { Scope::Read }, mind.clone());
        let value = self
            .with_access(access, move |engine, _| {
                let mut report = json!({ "mind": name, "mode": mode, "applied": apply });
                if mode == "compact" || mode == "audit" {
                    let frames = engine
                        .cleanup_frames(&wit_memory::CleanupOptions {
                            mind: mind.clone(),
                            apply,
                        })
                        .map_err(engine_error)?;
                    report["memories"] = json!({
                        "scanned": frames.scanned,
                        "found": frames.candidates.iter().map(|candidate| json!({
                            "memory": convert::ref_name(&candidate.frame),
                            "reason": candidate.reason.wit_name(),
                            "kept": candidate.kept.as_ref().map(convert::ref_name),
                        })).collect::<Vec<_>>(),
                        "retired": frames.retired,
                    });
                }
                for (wanted, key, rule) in [
                    (
                        "retire-orphans",
                        "orphan_entities",
                        wit_review::EntityRule::Orphans,
                    ),
                    (
                        "remove-noise",
                        "noise_entities",
                        wit_review::EntityRule::Noise,
                    ),
                ] {
                    if mode == wanted || mode == "audit" {
                        let found = engine
                            .review()
                            .clean_entities(&mind, rule, apply)
                            .map_err(engine_error)?;
                        report[key] =
                            Json::Array(found.iter().map(crate::review_cli::entity_json).collect());
                    }
                }
                if mode == "audit" {
                    let flagged = engine
                        .review()
                        .list_flagged(&mind, MAX_FLAGGED_COUNTED)
                        .map_err(engine_error)?;
                    // Counted, never shown: their text is what the scan
                    // flags. The owner reviews them with `hive-mind review
                    // flagged`.
                    report["flagged_memories"] = json!(flagged.len());
                }
                Ok(report)
            })
            .await?;
        Ok(json_result(value))
    }
}

/// The modes of `cleanup_memory`.
const CLEANUP_MODES: [&str; 4] = ["compact", "retire-orphans", "remove-noise", "audit"];

/// A listing's default length over MCP.
const DEFAULT_LISTING: u32 = 20;

/// A listing's longest over MCP.
const MAX_LISTING: u32 = 200;

/// The most flagged memories an audit counts.
const MAX_FLAGGED_COUNTED: u32 = 1000;

/// How many memories the recent-memories resource shows.
const RECENT_MEMORIES: u32 = 20;

/// The resources: URI, name, description.
pub const RESOURCES: [(&str, &str, &str); 4] = [
    (
        "hive-mind://identity",
        "identity",
        "Who the agent is: name, role, personality, capabilities, standing instructions.",
    ),
    (
        "hive-mind://awareness",
        "awareness",
        "What the agent is working on right now: the live awareness items.",
    ),
    (
        "hive-mind://memories/recent",
        "recent memories",
        "The 20 most recent memories of the personal mind.",
    ),
    (
        "hive-mind://stats",
        "stats",
        "Every mind's counts: memories, full-text rows, vectors, chunks, entities, relations, sessions, schema version and embedder.",
    ),
];

/// The resource templates (RFC 6570): URI template, name, description.
pub const RESOURCE_TEMPLATES: [(&str, &str, &str); 1] = [(
    "hive-mind://workspace/{id}/memories/recent",
    "recent workspace memories",
    "The 20 most recent memories of a workspace's mind (see list_workspaces).",
)];

impl MemoryServer {
    /// The JSON of one resource, for the caller's grant: the personal
    /// mind's resources need the personal mind, a workspace's its own, and
    /// the stats name only the minds the caller reaches.
    async fn resource(&self, uri: &str) -> Result<Json, McpError> {
        let not_granted = |error: McpError| McpError::resource_not_found(error.message, None);
        match uri {
            "hive-mind://identity" => self
                .run_op(
                    ops::identity::GetIdentity {
                        mind: Mind::Personal,
                    },
                    |engine, identity| identity_view(engine, identity.as_ref()),
                )
                .await
                .map_err(not_granted),
            "hive-mind://awareness" => {
                let items = self
                    .run_op(
                        ops::awareness::ListAwareness {
                            mind: Mind::Personal,
                        },
                        |engine, items| awareness_views(engine, &items),
                    )
                    .await
                    .map_err(not_granted)?;
                Ok(json!({ "items": items }))
            }
            "hive-mind://memories/recent" => self
                .recent_memories(Mind::Personal)
                .await
                .map_err(not_granted),
            "hive-mind://stats" => {
                let minds = self
                    .with_access(Access::on_all(Scope::Read, Vec::new()), |engine, caller| {
                        let minds = engine.admin().status().map_err(engine_error)?;
                        Ok(minds
                            .iter()
                            .filter(|status| caller.reaches(&status.mind))
                            .map(crate::admin_cli::status_json)
                            .collect::<Vec<Json>>())
                    })
                    .await?;
                Ok(json!({ "minds": minds }))
            }
            other => {
                if let Some(id) = other
                    .strip_prefix("hive-mind://workspace/")
                    .and_then(|rest| rest.strip_suffix("/memories/recent"))
                {
                    let mind = convert::workspace(id)
                        .map_err(|why| McpError::resource_not_found(why, None))?;
                    return self.recent_memories(mind).await.map_err(not_granted);
                }
                Err(McpError::resource_not_found(
                    format!(
                        "no resource {other:?}; there are: {}, and the template {}",
                        RESOURCES.map(|(uri, _, _)| uri).join(", "),
                        RESOURCE_TEMPLATES.map(|(uri, _, _)| uri).join(", ")
                    ),
                    None,
                ))
            }
        }
    }

    /// The recent-memories resource of one mind.
    async fn recent_memories(&self, mind: Mind) -> Result<Json, McpError> {
        let frames = self
            .with_access(Access::read(mind.clone()), move |engine, _| {
                let frames = engine
                    .admin()
                    .recent_frames(&mind, RECENT_MEMORIES)
                    .map_err(engine_error)?;
                frames
                    .iter()
                    .map(|frame| frame_view(engine, frame))
                    .collect::<Result<Vec<Json>, McpError>>()
            })
            .await?;
        Ok(json!({ "memories": frames }))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemoryServer {
    /// Route a tool call. A known tool's refusal of its input (an
    /// `invalid_params` error: a bad importance, an unknown workspace, a
    /// content too large, a missing argument) comes back as a tool result
    /// with `isError: true`, so the model reads the message and corrects its
    /// call (MCP 2025-11-25, SEP-1303); an unknown tool and a server fault
    /// stay JSON-RPC errors.
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, McpError> {
        let _permit = self.admit()?;
        let known = self.tool_router.has_route(&request.name);
        if known
            && let Some(arguments) = &request.arguments
            && let Err(too_large) = crate::limits::check_json(arguments)
        {
            return Ok(
                CallToolResult::error(vec![ContentBlock::text(too_large.to_string())]).into(),
            );
        }
        // The grant is judged by each tool on its resolved request
        // ([`ops`]); here it is only handed down.
        let caller = Caller::of(grant::request_grant(&context.extensions));
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        match CALLER.scope(caller, self.tool_router.call(call)).await {
            Err(error) if known && error.code == rmcp::model::ErrorCode::INVALID_PARAMS => {
                Ok(CallToolResult::error(vec![ContentBlock::text(error.message)]).into())
            }
            other => other,
        }
    }

    async fn list_resources(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, McpError> {
        let resources = RESOURCES
            .iter()
            .map(|(uri, name, description)| {
                rmcp::model::Resource::new(*uri, *name)
                    .with_description(*description)
                    .with_mime_type("application/json")
            })
            .collect();
        Ok(rmcp::model::ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, McpError> {
        let templates = RESOURCE_TEMPLATES
            .iter()
            .map(|(uri, name, description)| {
                rmcp::model::ResourceTemplate::new(*uri, *name)
                    .with_description(*description)
                    .with_mime_type("application/json")
            })
            .collect();
        Ok(rmcp::model::ListResourceTemplatesResult::with_all_items(
            templates,
        ))
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, McpError> {
        let _permit = self.admit()?;
        let caller = Caller::of(grant::request_grant(&context.extensions));
        let value = CALLER.scope(caller, self.resource(&request.uri)).await?;
        let contents = rmcp::model::ResourceContents::text(value.to_string(), request.uri)
            .with_mime_type("application/json");
        Ok(rmcp::model::ReadResourceResult::new(vec![contents]).into())
    }

    /// The client's roots changed: what was cached is stale at once (a path
    /// checked from now on asks again), and the new list is asked for now,
    /// off the notification's task.
    async fn on_roots_list_changed(
        &self,
        context: rmcp::service::NotificationContext<rmcp::RoleServer>,
    ) {
        let generation = self.access.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let access = Arc::clone(&self.access);
        tokio::spawn(async move {
            let mut cached = access.client.lock().await;
            if access.generation.load(Ordering::SeqCst) != generation {
                // Changed again meanwhile: the later notice asks.
                return;
            }
            if let Some(paths) = list_client_roots(&context.peer).await {
                *cached = Some((generation, paths));
            }
        });
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("hive-mind", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "hive-mind is your long-term memory. Call recall_memory at the start of a turn \
                 with the user's message; call remember_exchange after a successful turn; \
                 save_memory for anything the user asks you to remember.",
        )
    }
}

/// Serve MCP on stdin/stdout until the client disconnects; every line the
/// client sends is answered (see [`transport`]).
pub async fn serve_stdio(server: MemoryServer) -> Result<(), McpError> {
    use rmcp::ServiceExt;
    let running = server
        .serve(transport::stdio())
        .await
        .map_err(|error| internal(format!("could not start the MCP session: {error}")))?;
    running
        .waiting()
        .await
        .map_err(|error| internal(format!("the MCP session failed: {error}")))?;
    Ok(())
}
