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
//! one engine per core, at most four
//! ([`hive_mind_runtime::limits::default_engines`]); `--engines`
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
//! ## Limits against abuse
//!
//! Every limit above is shared, so each is also bounded per caller, and
//! the transport itself is bounded before a request exists:
//!
//! - **Connections** ([`conn`]): the server runs its own accept loop over
//!   hyper's HTTP/1 connection. At most `--max-connections` (512) are
//!   open; one more is closed as it is accepted. A request's head must
//!   arrive within `--header-timeout` (10 s) of the server waiting for it
//!   — on a new connection, and between requests on a kept-alive one, so
//!   the same timeout closes idle connections. Half-open and slow-header
//!   connections therefore hold a slot for seconds, and a flood of them
//!   leaves the server reachable once they are cut.
//! - **Per client** ([`fair`]): a request counts against its token, or
//!   without one its peer's address. A client has at most
//!   `--max-in-flight-per-client` (16) requests under way and
//!   `--queue-per-client` (8) waiting for an engine (429 past either), so
//!   one token's stalled requests cannot answer every other client 429.
//! - **Bodies**: a body that sends nothing for `--body-timeout` (10 s) is
//!   cut, so a stalled upload frees its slot within seconds, not at the
//!   upload's 600 s deadline.
//! - **Uploads** ([`jobs`]): queued imports are spooled to files in
//!   `<data-dir>/server/` (owner-only, removed when the job ends), within
//!   `--upload-spool` bytes (1 GiB; 503 past it) and `--import-queue`
//!   jobs (4, half of them per client; 429 past it): memory does not grow
//!   with queued uploads. Job ids are random and a job is shown only to
//!   the token that started it.
//! - **MCP sessions** ([`sessions`]): at most `--max-mcp-sessions` (128)
//!   open, `--mcp-sessions-per-client` (16) per client; one more
//!   `initialize` is answered 429 saying which cap it met.
//!
//! Every answer carries `X-Content-Type-Options: nosniff`, and every
//! answer but the page's own files `Cache-Control: no-store`.
//!
//! ## Finding a running server
//!
//! A running server writes its address to
//! `<data-dir>/server/serve-<pid>.json` (its own file: two servers on one
//! data directory do not remove each other's; removed on a clean stop, and
//! a dead process's file, with its spooled uploads, is swept by the next
//! server), which `hive-mind
//! hook` reads ([`announced_servers`]) to ask it instead of loading the
//! engine itself.

pub mod api;
pub mod conn;
pub mod extract;
pub mod fair;
pub mod jobs;
pub mod page;
pub mod pool;
pub mod problem;
pub mod sessions;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::tokens::{Grant, TokenBook};
use fair::{Client, Shares, StallBody};
use pool::{Busy, Pool, RunError};
use problem::{PROBLEM_JSON, Problem};
use sessions::CappedSessions;

/// A duration option: `10s`, `500ms`, `2m`, or bare seconds (`10`).
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (10s, 500ms, 2m)"))?;
    let seconds = match unit.trim() {
        "ms" => number / 1000.0,
        "s" => number,
        "m" => number * 60.0,
        other => return Err(format!("unknown unit {other:?} in {text:?}: ms, s or m")),
    };
    let duration =
        Duration::try_from_secs_f64(seconds).map_err(|error| format!("{text:?}: {error}"))?;
    if duration.is_zero() {
        return Err(format!("{text:?}: a timeout must be longer than zero"));
    }
    Ok(duration)
}

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
    /// Requests one client (a token, or an address without one) has
    /// handled at once; one more from it is answered 429.
    #[arg(long, default_value_t = 16)]
    pub max_in_flight_per_client: usize,
    /// Requests waiting for an engine at once; one more is answered 429.
    #[arg(long, default_value_t = 32)]
    pub queue: usize,
    /// Requests one client has waiting for an engine; one more from it is
    /// answered 429.
    #[arg(long, default_value_t = 8)]
    pub queue_per_client: usize,
    /// Connections open at once; one more is closed as it is accepted.
    #[arg(long, default_value_t = 512)]
    pub max_connections: usize,
    /// How long a request's head may take to arrive, and a kept-alive
    /// connection may sit idle (`10s`, `500ms`).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,
    /// How long a request body may send nothing before it is cut.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub body_timeout: Duration,
    /// Import jobs waiting or running at once (half of them per client);
    /// one more is answered 429.
    #[arg(long, default_value_t = 4)]
    pub import_queue: usize,
    /// Bytes of uploads spooled to disk for their import jobs at once; an
    /// upload past it is answered 503.
    #[arg(long, default_value_t = 1 << 30)]
    pub upload_spool: u64,
    /// MCP sessions open at once.
    #[arg(long, default_value_t = 128)]
    pub max_mcp_sessions: usize,
    /// MCP sessions one client has open at once.
    #[arg(long, default_value_t = 16)]
    pub mcp_sessions_per_client: usize,
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
    /// The MCP sessions.
    pub sessions: Arc<CappedSessions>,
    in_flight: tokio::sync::Semaphore,
    max_in_flight: usize,
    in_flight_by_client: Arc<Shares>,
    body_timeout: Duration,
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
        RunError::Busy(Busy::ClientQueue) => Problem::retry(
            StatusCode::TOO_MANY_REQUESTS,
            1,
            "this client already has its share of requests waiting for an engine; retry shortly",
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
        (name = "wiki", description = "The wiki of a mind: its pages, a search, the health report"),
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
        .routes(routes!(api::get_identity, api::set_identity))
        .routes(routes!(
            api::awareness,
            api::add_awareness,
            api::remove_awareness
        ))
        .routes(routes!(api::list_entities))
        .routes(routes!(api::get_entity))
        .routes(routes!(api::wiki_pages))
        .routes(routes!(api::wiki_page))
        .routes(routes!(api::wiki_search))
        .routes(routes!(api::wiki_health))
        .routes(routes!(api::neighbours))
        .routes(routes!(api::sessions))
        .routes(routes!(api::session))
        .routes(routes!(api::decide))
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

/// The guards every request passes: host and origin, the token (whose
/// [`Client`] the request counts against), the client's share of the
/// in-flight slots, the server's in-flight limit, the MCP session cap; then
/// the rest of the request runs in the client's [`fair::CLIENT`] scope,
/// its body cut when it stalls.
async fn guard(State(app): State<Arc<App>>, mut request: Request, next: Next) -> Response {
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
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |info| info.0.ip());
    let mut client = Client::Peer(peer);
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
                    Ok(Some(grant)) => {
                        client = Client::Token(grant.name.clone());
                        grant
                    }
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
    let Some(_share) = app.in_flight_by_client.try_take(&client) else {
        return Problem::retry(
            StatusCode::TOO_MANY_REQUESTS,
            1,
            format!(
                "{client} already has {} requests under way (its share of the server's {}); retry shortly",
                app.in_flight_by_client.per_client, app.max_in_flight
            ),
        )
        .into_response();
    };
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
    let opens_session = request.method() == axum::http::Method::POST
        && request.uri().path() == "/mcp"
        && !request.headers().contains_key("mcp-session-id");
    if opens_session && let Err(refused) = app.sessions.admits(&client) {
        return Problem::retry(StatusCode::TOO_MANY_REQUESTS, 30, refused.to_string())
            .into_response();
    }
    let timeout = app.body_timeout;
    let request = request.map(|body| axum::body::Body::new(StallBody::new(body, timeout)));
    fair::CLIENT.scope(client, next.run(request)).await
}

/// Every answer says `nosniff`, and every answer but the page's own files
/// says `no-store`: memories and tokens' answers never sit in a cache.
async fn answer_headers(request: Request, next: Next) -> Response {
    let cacheable = request.uri().path() == "/" || request.uri().path().starts_with("/assets/");
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if !cacheable {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
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
        jobs: jobs::Jobs::new(
            data_dir.join("server"),
            options.upload_spool,
            options.import_queue,
        ),
        sessions: CappedSessions::new(options.max_mcp_sessions, options.mcp_sessions_per_client),
        in_flight: tokio::sync::Semaphore::new(options.max_in_flight.max(1)),
        max_in_flight: options.max_in_flight.max(1),
        in_flight_by_client: Shares::new(options.max_in_flight_per_client),
        body_timeout: options.body_timeout,
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
        Arc::clone(&app.sessions),
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
        .layer(middleware::from_fn(answer_headers))
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

/// Where the server process `pid` writes its address: one file per
/// process, so that two servers on one data directory (on two ports) each
/// remove only their own when they stop.
pub fn announcement_path(data_dir: &Path, pid: u32) -> PathBuf {
    data_dir.join("server").join(format!("serve-{pid}.json"))
}

/// A running server's announcement (`serve-<pid>.json`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Announcement {
    /// Where it listens (`http://127.0.0.1:7432`).
    pub url: String,
    /// Its process.
    pub pid: u32,
    /// Whether it asks for tokens.
    pub auth: bool,
}

/// Whether process `pid` still runs. On Linux the process table says; on
/// other systems it is assumed (the caller's health check decides).
fn is_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

/// Every announcement in `data_dir` and its file, as written.
fn announcements(data_dir: &Path) -> Vec<(PathBuf, Announcement, std::time::SystemTime)> {
    let Ok(entries) = std::fs::read_dir(data_dir.join("server")) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with("serve-") && name.ends_with(".json")
        })
        .filter_map(|entry| {
            let path = entry.path();
            let text = std::fs::read_to_string(&path).ok()?;
            let announcement: Announcement = serde_json::from_str(&text).ok()?;
            let written = entry
                .metadata()
                .and_then(|metadata| metadata.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            Some((path, announcement, written))
        })
        .collect()
}

/// The servers running on `data_dir` (those whose process is alive), the
/// most recently started first.
pub fn announced_servers(data_dir: &Path) -> Vec<Announcement> {
    let mut live: Vec<_> = announcements(data_dir)
        .into_iter()
        .filter(|(_, announcement, _)| is_alive(announcement.pid))
        .collect();
    live.sort_by_key(|(_, _, written)| std::cmp::Reverse(*written));
    live.into_iter()
        .map(|(_, announcement, _)| announcement)
        .collect()
}

/// Remove what servers whose process is gone left behind (a crash or a
/// kill): their announcements and their spooled uploads
/// (`upload-<pid>-*`). A live server's files are left alone.
fn sweep_dead_servers(data_dir: &Path) {
    for (path, announcement, _) in announcements(data_dir) {
        if !is_alive(announcement.pid) {
            let _ = std::fs::remove_file(path);
        }
    }
    let Ok(entries) = std::fs::read_dir(data_dir.join("server")) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let pid = name
            .to_string_lossy()
            .strip_prefix("upload-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !is_alive(pid)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Run the server until Ctrl-C or SIGTERM.
pub fn run(data_dir: &Path, options: &ServeOptions) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(data_dir, options))
}

async fn serve(data_dir: &Path, options: &ServeOptions) -> anyhow::Result<()> {
    let engines = options
        .engines
        .unwrap_or_else(hive_mind_runtime::limits::default_engines)
        .max(1);
    let dir = data_dir.to_path_buf();
    let queue = options.queue;
    let queue_per_client = options.queue_per_client;
    let (pool, mcp_engine) = tokio::task::spawn_blocking(move || {
        let pool = Pool::open(
            &dir,
            engines,
            queue,
            queue_per_client,
            Duration::from_secs(30),
        )?;
        let mcp = hive_mind_runtime::engine::open(&dir)?;
        Ok::<_, anyhow::Error>((pool, mcp))
    })
    .await??;
    let served = application(data_dir, pool, mcp_engine, options)?;
    let listener = tokio::net::TcpListener::bind(options.listen).await?;
    let address = listener.local_addr()?;
    let url = format!("http://{address}");
    let pid = std::process::id();
    let announcement = announcement_path(data_dir, pid);
    sweep_dead_servers(data_dir);
    // Owner-only, like everything in the data directory.
    crate::tokens::write_private(
        &announcement,
        &serde_json::to_vec(&Announcement {
            url: url.clone(),
            pid,
            auth: !options.no_auth,
        })?,
    )?;
    eprintln!(
        "hive-mind serve: listening on {url} ({} engines{})",
        engines,
        if options.no_auth { ", no tokens" } else { "" }
    );
    println!("{url}");
    let stop_sessions = served.stop_sessions;
    let limits = conn::ConnLimits {
        max_connections: options.max_connections,
        header_timeout: options.header_timeout,
    };
    let withdrawn = announcement.clone();
    conn::serve(listener, served.router, limits, async move {
        shutdown_signal().await;
        // No new hook is sent here while the server stops.
        let _ = std::fs::remove_file(&withdrawn);
        stop_sessions();
    })
    .await;
    let _ = std::fs::remove_file(&announcement);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_their_unit() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3h").is_err());
        assert!(
            parse_duration("0s").is_err(),
            "a zero timeout would cut every connection"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn only_live_servers_are_announced_and_a_dead_ones_files_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("server")).unwrap();
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let dead = gone.id();
        gone.wait().unwrap();
        let live = std::process::id();
        for (pid, port) in [(dead, 1), (live, 2)] {
            let announcement = Announcement {
                url: format!("http://127.0.0.1:{port}"),
                pid,
                auth: true,
            };
            std::fs::write(
                announcement_path(dir.path(), pid),
                serde_json::to_vec(&announcement).unwrap(),
            )
            .unwrap();
        }
        let found = announced_servers(dir.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].pid, live);
        let spooled = |pid: u32| dir.path().join("server").join(format!("upload-{pid}-x1"));
        std::fs::write(spooled(dead), b"left by a crash").unwrap();
        std::fs::write(spooled(live), b"a live server's upload").unwrap();
        sweep_dead_servers(dir.path());
        assert!(!announcement_path(dir.path(), dead).exists());
        assert!(announcement_path(dir.path(), live).exists());
        assert!(!spooled(dead).exists());
        assert!(spooled(live).exists());
    }
}
