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
//! call its `review` export ([`EngineRuntime::review`]); the wiki tools
//! (`compile_wiki`, `get_page`, `search_wiki`, `compile_health`) its `wiki`
//! export ([`EngineRuntime::wiki`]); the host never
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
mod errors;
pub mod grant;
mod import;
pub mod params;
mod resources;
mod tools;
pub mod transport;
mod views;

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
use crate::ops::{self, Caller, OpError, Operation};
use hive_mind_files::{AllowedRoots, FileAccessError};
use hive_mind_runtime::engine::convert::{self as convert, frame_json, mind_name};
use hive_mind_runtime::engine::import::EngineTurns;
use hive_mind_runtime::engine::wit_admin::{AwarenessItem, Identity};
use hive_mind_runtime::engine::wit_names::WitEnum;
use hive_mind_runtime::engine::wit_types::{self, Mind, StorageError};
use hive_mind_runtime::engine::wit_types::{InjectionReport, ScanContext};
use hive_mind_runtime::engine::{
    AdminError, EngineError, EngineRuntime, HarvestError, MemoryError, ReviewError, WikiError,
    describe_storage_error, wit_admin, wit_harvest, wit_memory, wit_review, wit_wiki,
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

use errors::*;
use import::*;
pub use resources::{RESOURCE_TEMPLATES, RESOURCES};
use views::*;

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
    pub(super) fn caller(&self) -> Result<Caller, McpError> {
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

    /// Run one typed operation for the caller ([`ops::execute`]), then
    /// `render` its output with the engine (the guarded views): the only
    /// way a tool or a resource reaches the engine.
    pub(super) async fn run_op<O, T, R>(&self, operation: O, render: R) -> Result<T, McpError>
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
