//! # `hive-mind serve`: REST, OpenAPI, MCP over HTTP and the memory browser
//!
//! One HTTP server (axum on tokio) over one data directory, bound to
//! loopback unless told otherwise:
//!
//! - **`/api/…`** — the REST API ([`api`], [`jobs`]): recall with lanes,
//!   scores and why; memories created, read, listed, corrected (with their
//!   history), archived, merged, traced and forgotten (a dry run unless
//!   confirmed); stats, identity, awareness, the knowledge graph, sessions,
//!   imports with progress, sources, export. Errors are RFC 9457 problem
//!   documents ([`problem`]).
//! - **`/openapi.json`** — the OpenAPI 3.1 document, generated from the
//!   handlers' own types; **`/docs`** reads it for a person.
//! - **`/mcp`** — the MCP server of `hive-mind mcp`, over streamable HTTP
//!   (MCP 2025-11-25), with sessions, on one engine instance of its own;
//!   a client's `roots` are folders of its own machine, so files are
//!   imported only from `[mcp] import_roots` here.
//! - **`/`** — the memory browser ([`page`]), its assets built into the
//!   binary.
//!
//! ## Who may call
//!
//! Every request but the page's assets, `/api/health`, `/openapi.json` and
//! `/docs` needs `Authorization: Bearer <token>`; a missing or unknown
//! token is a 401, a scope or mind the token is not granted a 403
//! ([`crate::tokens`]). `--no-auth` turns tokens off, and is refused
//! unless the server listens on loopback only. Against DNS rebinding, the
//! `Host` of every request must be the server's own (loopback names, or
//! the `--allow-host`s), and a request with an `Origin` must come from the
//! server's own origin or an `--allow-origin` (403 otherwise): a web page
//! elsewhere cannot drive the server through the user's browser.
//!
//! ## Many clients
//!
//! The REST handlers run on a [`pool::Pool`] of engine instances over the
//! same data directory: reads in parallel (SQLite WAL), writes serialized
//! by SQLite. The models are shared by the process (one embedder, one
//! cross-encoder); each instance costs its own wasm linear memory: the
//! vector index of each mind it has searched and recall's working
//! buffers. Measured with `hive-mind-lab bench serve` on its 10k-memory
//! corpus (8 clients, 30 s): one engine peaked at 402 MiB for the whole
//! server, four at 771 MiB, so about 120 MiB an engine at that size
//! (growing with the mind). Recall is bound by the CPU, so the default is
//! one engine per core, at most four ([`default_engines`]); `--engines`
//! sets it. MCP over HTTP has one engine of its own. At most `--max-in-flight`
//! requests are handled at once (one more is answered 429 with
//! `Retry-After`), at most `--queue` wait for an instance (429 past it) and
//! none waits more than 30 s (503 with `Retry-After`). A body is read
//! before an instance is taken, within a size limit (413) and 30 s (408),
//! so a slow or vanished client never holds an engine or a write lock. On
//! Ctrl-C or SIGTERM the server stops accepting, lets in-flight requests
//! finish, then waits for every instance to come back (the writes under
//! way commit) before it exits.
//!
//! A running server writes its address to `<data-dir>/server/serve.json`
//! (removed on a clean stop), which `hive-mind hook` reads to ask it
//! instead of loading the engine itself.

pub mod api;
pub mod extract;
pub mod jobs;
pub mod page;
pub mod pool;
pub mod problem;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::tokens::{Grant, TokenBook};
use pool::{Busy, Pool, RunError};
use problem::{PROBLEM_JSON, Problem};

/// `hive-mind serve`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeOptions {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:7432")]
    pub listen: SocketAddr,
    /// Engine instances for the REST API (each keeps its own vector index);
    /// default: the cores, at most 4.
    #[arg(long)]
    pub engines: Option<usize>,
    /// Requests handled at once; one more is answered 429.
    #[arg(long, default_value_t = 64)]
    pub max_in_flight: usize,
    /// Requests waiting for an engine at once; one more is answered 429.
    #[arg(long, default_value_t = 32)]
    pub queue: usize,
    /// The largest JSON body, in bytes (413 past it).
    #[arg(long, default_value_t = 4 * 1024 * 1024)]
    pub max_body: usize,
    /// Accept requests without a token (loopback only).
    #[arg(long)]
    pub no_auth: bool,
    /// Another origin whose pages may call the server (`https://app.example:443`).
    #[arg(long = "allow-origin")]
    pub allow_origins: Vec<String>,
    /// Another host name the server answers to (besides loopback names),
    /// for a server reached through a name.
    #[arg(long = "allow-host")]
    pub allow_hosts: Vec<String>,
}

/// The server's shared state.
pub struct App {
    /// The engine instances.
    pub pool: Arc<Pool>,
    /// The tokens; `None` when authentication is off.
    pub tokens: Option<TokenBook>,
    /// The import jobs.
    pub jobs: jobs::Jobs,
    in_flight: tokio::sync::Semaphore,
    max_in_flight: usize,
    hosts: Vec<String>,
    origins: Vec<String>,
}

/// A pool refusal as a problem.
pub fn busy_problem(error: &RunError) -> Problem {
    match error {
        RunError::Busy(Busy::Queue) => Problem::retry(
            StatusCode::TOO_MANY_REQUESTS,
            1,
            "too many requests are waiting for an engine; retry shortly",
        ),
        RunError::Busy(Busy::Timeout) => Problem::retry(
            StatusCode::SERVICE_UNAVAILABLE,
            2,
            "no engine came free in time; retry shortly",
        ),
        RunError::Busy(Busy::Closed) => Problem::retry(
            StatusCode::SERVICE_UNAVAILABLE,
            5,
            "the server is shutting down",
        ),
        RunError::Worker(why) => Problem::internal(format!("the request's worker failed: {why}")),
    }
}

/// The OpenAPI document's frame; the paths and schemas come from the
/// handlers ([`router`]).
#[derive(OpenApi)]
#[openapi(
    info(
        title = "hive-mind",
        description = "Long-term memory for AI agents: recall, memories, the knowledge graph, imports, export. Errors are RFC 9457 problem documents.",
        license(name = "Apache-2.0", identifier = "Apache-2.0")
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "memory", description = "Recall, save, correct, forget"),
        (name = "review", description = "The owner's review: archive, merge, trace, flagged memories"),
        (name = "graph", description = "The knowledge graph"),
        (name = "minds", description = "Stats, identity, awareness, export"),
        (name = "imports", description = "Imports and their progress"),
        (name = "server", description = "The server itself")
    )
)]
struct ApiDoc;

/// The bearer scheme the paths name.
struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The OpenAPI document.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, document) = router().split_for_parts();
    let mut base = ApiDoc::openapi();
    base.merge(document);
    base
}

/// The routes and the document that describes them.
pub fn router() -> OpenApiRouter<Arc<App>> {
    OpenApiRouter::new()
        .routes(routes!(api::health))
        .routes(routes!(api::stats))
        .routes(routes!(api::search))
        .routes(routes!(api::list_memories, api::create_memory))
        .routes(routes!(api::get_memory, api::change_memory))
        .routes(routes!(api::correct_memory))
        .routes(routes!(api::memory_history))
        .routes(routes!(api::trace_memory))
        .routes(routes!(api::merge_memories))
        .routes(routes!(api::forget))
        .routes(routes!(api::remember_exchange))
        .routes(routes!(api::get_identity, api::put_identity))
        .routes(routes!(api::awareness, api::add_awareness))
        .routes(routes!(api::remove_awareness))
        .routes(routes!(api::list_entities))
        .routes(routes!(api::get_entity))
        .routes(routes!(api::neighbours))
        .routes(routes!(api::sessions))
        .routes(routes!(api::sources))
        .routes(routes!(api::flagged))
        .routes(routes!(api::release))
        .routes(routes!(api::export))
        .routes(routes!(jobs::start_import))
        .routes(routes!(jobs::import_status))
}

/// Whether a path is open without a token.
fn is_public(path: &str) -> bool {
    matches!(path, "/" | "/api/health" | "/openapi.json" | "/docs") || path.starts_with("/assets/")
}

/// The host part of a `Host` header (`[::1]:7432` → `[::1]`).
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

/// The guards every request passes: in-flight limit, host and origin, then
/// the token.
async fn guard(State(app): State<Arc<App>>, mut request: Request, next: Next) -> Response {
    let Ok(_permit) = app.in_flight.try_acquire() else {
        return Problem::retry(
            StatusCode::TOO_MANY_REQUESTS,
            1,
            format!(
                "{} requests are already being handled (the server's limit); retry shortly",
                app.max_in_flight
            ),
        )
        .into_response();
    };
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_string();
    if !app.hosts.iter().any(|allowed| allowed == host_name(&host)) {
        return Problem::forbidden(format!(
            "the Host {host:?} is not this server's (a DNS rebinding guard); start it with --allow-host to answer to that name"
        ))
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        let own = format!("http://{host}");
        if origin != own && !app.origins.iter().any(|allowed| allowed == origin) {
            return Problem::forbidden(format!(
                "requests from the origin {origin:?} are refused; start the server with --allow-origin to allow it"
            ))
            .into_response();
        }
    }
    if !is_public(request.uri().path()) {
        let grant = match &app.tokens {
            None => Grant::unrestricted(),
            Some(book) => {
                let presented = headers
                    .get(header::AUTHORIZATION)
                    .and_then(|value| value.to_str().ok())
                    .and_then(|value| value.strip_prefix("Bearer "))
                    .map(str::trim);
                let Some(presented) = presented else {
                    return unauthorized(
                        "no bearer token: send Authorization: Bearer <token> (make one with `hive-mind token create`)",
                    );
                };
                match book.grant(presented) {
                    Ok(Some(grant)) => grant,
                    Ok(None) => return unauthorized("the token is unknown or revoked"),
                    Err(error) => {
                        return Problem::internal(format!("the token list: {error}"))
                            .into_response();
                    }
                }
            }
        };
        request.extensions_mut().insert(grant);
    }
    next.run(request).await
}

fn unauthorized(detail: &str) -> Response {
    let mut response = Problem::unauthorized(detail).into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"hive-mind\""),
    );
    response
}

/// Every error answer is a problem document: the router's own (a 405, a
/// path that does not parse, a body over the limit) are rewritten with
/// their text as the detail.
async fn problems(request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    let status = response.status();
    let is_problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(PROBLEM_JSON.as_bytes()));
    if !(status.is_client_error() || status.is_server_error()) || is_problem || path == "/mcp" {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_string())
        .unwrap_or_default();
    let detail = if text.is_empty() {
        match status {
            StatusCode::METHOD_NOT_ALLOWED => format!("{path} does not take this method"),
            _ => status.canonical_reason().unwrap_or("error").to_string(),
        }
    } else {
        text
    };
    let mut rewritten = Problem::new(status, detail).into_response();
    for name in [header::ALLOW, header::RETRY_AFTER, header::WWW_AUTHENTICATE] {
        if let Some(value) = parts.headers.get(&name) {
            rewritten.headers_mut().insert(name, value.clone());
        }
    }
    rewritten
}

async fn not_found(request: Request) -> Problem {
    Problem::not_found(format!("no route {}", request.uri().path()))
}

async fn openapi_json() -> Response {
    match serde_json::to_string(&openapi()) {
        Ok(text) => ([(header::CONTENT_TYPE, "application/json")], text).into_response(),
        Err(error) => Problem::internal(error.to_string()).into_response(),
    }
}

/// The loopback names a server on loopback answers to.
const LOOPBACK_HOSTS: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "::1"];

/// Build the application over `pool` and an engine for MCP.
pub fn application(
    data_dir: &Path,
    pool: Pool,
    mcp_engine: hive_mind_runtime::engine::EngineRuntime,
    options: &ServeOptions,
) -> Result<Served, anyhow::Error> {
    let loopback = options.listen.ip().is_loopback();
    if options.no_auth && !loopback {
        anyhow::bail!(
            "--no-auth is refused on {}: without tokens the server listens on loopback only",
            options.listen
        );
    }
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|host| host.to_string()).collect();
    hosts.extend(options.allow_hosts.iter().cloned());
    if !loopback {
        hosts.push(options.listen.ip().to_string());
    }
    let app = Arc::new(App {
        pool: Arc::new(pool),
        tokens: (!options.no_auth).then(|| TokenBook::new(data_dir)),
        jobs: jobs::Jobs::default(),
        in_flight: tokio::sync::Semaphore::new(options.max_in_flight.max(1)),
        max_in_flight: options.max_in_flight.max(1),
        hosts,
        origins: options.allow_origins.clone(),
    });
    let config = crate::mcp::config::McpConfig::load_in(data_dir)?;
    let mcp = crate::mcp::MemoryServer::with_config(mcp_engine, config).for_remote_clients();
    let mcp_config = rmcp::transport::streamable_http_server::StreamableHttpServerConfig::default()
        // The host and origin guards above run for every route.
        .disable_allowed_hosts()
        .with_max_request_body_bytes(options.max_body);
    let sessions = mcp_config.cancellation_token.clone();
    let mcp_service = rmcp::transport::streamable_http_server::StreamableHttpService::new(
        move || Ok(mcp.clone()),
        Arc::new(
            rmcp::transport::streamable_http_server::session::local::LocalSessionManager::default(),
        ),
        mcp_config,
    );
    let (api, _) = router().split_for_parts();
    let router = api
        .route_layer(DefaultBodyLimit::max(options.max_body))
        .route("/openapi.json", axum::routing::get(openapi_json))
        .merge(page::routes())
        .nest_service("/mcp", mcp_service)
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(Arc::clone(&app), guard))
        .layer(middleware::from_fn(problems))
        .with_state(Arc::clone(&app));
    Ok(Served {
        router,
        app,
        stop_sessions: Box::new(move || sessions.cancel()),
    })
}

/// The application and what its shutdown needs.
pub struct Served {
    /// The routes.
    pub router: axum::Router,
    /// The shared state (the pool, drained at shutdown).
    pub app: Arc<App>,
    /// Ends the MCP sessions' open streams (they would hold a graceful
    /// shutdown open).
    pub stop_sessions: Box<dyn FnOnce() + Send>,
}

/// Where a running server writes its address.
pub fn announcement_path(data_dir: &Path) -> PathBuf {
    data_dir.join("server").join("serve.json")
}

/// The pool's default size: one engine per core, at most four. Recall is
/// bound by the CPU (the query's embedding, the reranker), so an engine
/// more than the cores only queues inside the server, and each costs about
/// 120 MiB on a 10k-memory mind (module docs).
pub fn default_engines() -> usize {
    std::thread::available_parallelism()
        .map(std::num::NonZeroUsize::get)
        .unwrap_or(2)
        .clamp(1, 4)
}

/// Run the server until Ctrl-C or SIGTERM.
pub fn run(data_dir: &Path, options: &ServeOptions) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(data_dir, options))
}

async fn serve(data_dir: &Path, options: &ServeOptions) -> anyhow::Result<()> {
    let engines = options.engines.unwrap_or_else(default_engines).max(1);
    let dir = data_dir.to_path_buf();
    let queue = options.queue;
    let (pool, mcp_engine) = tokio::task::spawn_blocking(move || {
        let pool = Pool::open(&dir, engines, queue, Duration::from_secs(30))?;
        let mcp = hive_mind_runtime::engine::open(&dir)?;
        Ok::<_, anyhow::Error>((pool, mcp))
    })
    .await??;
    let served = application(data_dir, pool, mcp_engine, options)?;
    let listener = tokio::net::TcpListener::bind(options.listen).await?;
    let address = listener.local_addr()?;
    let url = format!("http://{address}");
    let announcement = announcement_path(data_dir);
    // Owner-only, like everything in the data directory.
    crate::tokens::write_private(
        &announcement,
        &serde_json::to_vec(&serde_json::json!({
            "url": url,
            "pid": std::process::id(),
            "auth": !options.no_auth,
        }))?,
    )?;
    eprintln!(
        "hive-mind serve: listening on {url} ({} engines{})",
        engines,
        if options.no_auth { ", no tokens" } else { "" }
    );
    println!("{url}");
    let stop_sessions = served.stop_sessions;
    let stopped = axum::serve(listener, served.router)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            stop_sessions();
        })
        .await;
    let _ = std::fs::remove_file(&announcement);
    stopped?;
    // A request whose client left is still running on its instance: wait
    // for every instance to come back, so its write commits.
    if !served.app.pool.drain(Duration::from_secs(120)).await {
        eprintln!("hive-mind serve: an engine call was still running after 120 s");
    }
    eprintln!("hive-mind serve: stopped");
    Ok(())
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
    eprintln!("hive-mind serve: stopping (finishing the requests under way)");
}
