//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

pub mod openapi;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The `hive-mind` binary built for this test run.
pub fn hive_mind() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hive-mind"));
    // Keep the compile cache inside the target directory, not the user's home.
    command.env("HIVE_MIND_CACHE_DIR", cache_dir());
    // The shipped cross-encoder is slow in a debug build (its 12 layers
    // under an unoptimised tract-core): the CLI's tests check recall's own
    // behaviour with it off; tests/reranker.rs and the demo use it.
    command.env("HIVE_MIND_RERANKER", "off");
    // The tests' embedder is the committed all-MiniLM-L6-v2: half the
    // layers of the default bge-small-en-v1.5 (a debug build runs it twice
    // as fast) and there on every checkout. The default model is exercised
    // by the demo (`demo_command`), tests/embedder.rs and the Python host's
    // cross-host tests.
    command.env(MODEL_ENV, in_process::COMMITTED_MODEL);
    command
}

/// The environment variable that names the in-process model.
pub const MODEL_ENV: &str = "HIVE_MIND_IN_PROCESS_MODEL";

use hive_mind_models::embedder::in_process;

/// A compile cache for tests, inside the target directory.
pub fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_hive-mind"))
        .parent()
        .unwrap()
        .join("hive-mind-test-cache")
}

/// The committed in-process model (all-MiniLM-L6-v2), loaded once per
/// process: the tests' real embedder (see [`hive_mind`]).
pub fn minilm() -> std::sync::Arc<dyn hive_mind_models::embedder::Embedder> {
    hive_mind_models::embedder::chain::shared_in_process(
        &in_process::ModelSpec::repository_committed().unwrap(),
        None,
    )
    .unwrap()
}

/// The fingerprint `embedder` locks a mind to (what the engine records
/// from `embedder.info`).
pub fn fingerprint(
    embedder: &dyn hive_mind_models::embedder::Embedder,
) -> hive_mind_store::EmbedderFingerprint {
    let info = embedder.info();
    hive_mind_store::EmbedderFingerprint {
        provider: info.provider,
        model: info.model,
        dim: info.dimensions,
    }
}

/// The minds of a data directory opened natively (the store's own code over
/// the files the engine writes), locked to `lock` when given. Open one only
/// while no engine is writing (between calls, or after); drop it before the
/// engine writes again.
pub fn native_minds(
    dir: &Path,
    lock: Option<hive_mind_store::EmbedderFingerprint>,
) -> hive_mind_store::Minds {
    hive_mind_store::Minds::open(
        Box::new(hive_mind_sqlite::DataDir::new(dir)),
        // No window: a mind keeps the chunk plan it recorded (a mind without
        // frames takes the engine's when the engine opens it).
        hive_mind_store::StoreConfig {
            embedder: lock,
            max_tokens: 0,
        },
    )
    .unwrap()
}

/// An engine over a data directory with `embedder` (or none: the reason
/// given) and no reranker, through the tests' compile cache, under the
/// default limits.
pub fn engine(
    dir: &Path,
    embedder: Result<std::sync::Arc<dyn hive_mind_models::embedder::Embedder>, String>,
) -> hive_mind_runtime::engine::EngineRuntime {
    engine_with_limits(dir, embedder, hive_mind_runtime::limits::Limits::default())
}

/// [`engine`] under other limits.
pub fn engine_with_limits(
    dir: &Path,
    embedder: Result<std::sync::Arc<dyn hive_mind_models::embedder::Embedder>, String>,
    limits: hive_mind_runtime::limits::Limits,
) -> hive_mind_runtime::engine::EngineRuntime {
    hive_mind_runtime::engine::EngineRuntime::from_component_bytes(
        hive_mind_runtime::artifacts::ENGINE_COMPONENT,
        Some(&cache_dir()),
        hive_mind_runtime::engine::Capabilities::new(
            hive_mind_sqlite::DataDir::new(dir),
            embedder,
            std::sync::Arc::new(hive_mind_models::reranker::Unconfigured),
        )
        .with_limits(limits),
    )
    .unwrap()
}

/// The environment variable naming the `wasmtime` CLI to use.
pub const WASMTIME_ENV: &str = "HIVE_MIND_WASMTIME";
/// Set (by `cargo xtask test` and CI) to make a missing `wasmtime` CLI an error.
pub const REQUIRE_WASMTIME_ENV: &str = "HIVE_MIND_REQUIRE_WASMTIME_CLI";

/// The pinned `wasmtime` CLI: `$HIVE_MIND_WASMTIME`, else `.tools/bin/wasmtime`
/// (where `cargo xtask tools` / `just wasmtime` install it), else `wasmtime`
/// on the PATH. `None` when there is none.
pub fn wasmtime_cli() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(WASMTIME_ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let local = workspace().join(".tools/bin/wasmtime");
    if local.is_file() {
        return Some(local);
    }
    let on_path = Command::new("wasmtime").arg("--version").output();
    on_path
        .ok()
        .filter(|o| o.status.success())
        .map(|_| PathBuf::from("wasmtime"))
}

/// Compare two JSON values, floats within a relative 1e-9 (wasm and native
/// maths libraries may differ in the last bit of `pow` or `log10`).
pub fn assert_json_close(actual: &Json, expected: &Json, context: &str) {
    if let Err(path) = close(actual, expected, "$") {
        panic!("{context}: differs at {path}\n  actual:   {actual}\n  expected: {expected}");
    }
}

fn close(a: &Json, b: &Json, path: &str) -> Result<(), String> {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            if x == y {
                return Ok(());
            }
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            let scale = x.abs().max(y.abs()).max(1e-300);
            if (x - y).abs() / scale <= 1e-9 {
                Ok(())
            } else {
                Err(path.to_owned())
            }
        }
        (Json::Array(xs), Json::Array(ys)) => {
            if xs.len() != ys.len() {
                return Err(format!("{path} (length {} vs {})", xs.len(), ys.len()));
            }
            xs.iter()
                .zip(ys)
                .enumerate()
                .try_for_each(|(i, (x, y))| close(x, y, &format!("{path}[{i}]")))
        }
        (Json::Object(xs), Json::Object(ys)) => {
            if xs.len() != ys.len() || xs.keys().any(|k| !ys.contains_key(k)) {
                return Err(format!("{path} (keys differ)"));
            }
            xs.iter()
                .try_for_each(|(k, x)| close(x, &ys[k], &format!("{path}.{k}")))
        }
        _ if a == b => Ok(()),
        _ => Err(path.to_owned()),
    }
}

/// Run `command`, which must succeed (else the test fails with its
/// stderr): its stdout.
pub fn stdout_of(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Run `hive-mind --data-dir DIR ARGS…`: whether it succeeded, its stdout
/// and its stderr.
pub fn cli(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let output = hive_mind()
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// An MCP server over `dir` in process, with the mock embedder (384
/// dimensions) and no reranker.
pub fn mcp_server(dir: &Path) -> hive_mind_host::mcp::MemoryServer {
    let embedder: std::sync::Arc<dyn hive_mind_models::embedder::Embedder> =
        std::sync::Arc::new(hive_mind_models::embedder::MockEmbedder::new(384));
    hive_mind_host::mcp::MemoryServer::new(engine(dir, Ok(embedder)))
}

/// The tests' MCP client: it declares nothing.
#[derive(Debug, Clone, Default)]
pub struct TestClient;

impl rmcp::ClientHandler for TestClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::default()
    }
}

/// An in-process MCP server over `dir` ([`mcp_server`]) with the tests'
/// client connected over an in-memory pipe.
pub struct McpSession {
    client: rmcp::service::RunningService<rmcp::RoleClient, TestClient>,
    serving: tokio::task::JoinHandle<()>,
}

impl McpSession {
    /// Start the server over `dir` ([`mcp_server`]) and connect.
    pub async fn start(dir: &Path) -> McpSession {
        McpSession::serve(mcp_server(dir)).await
    }

    /// Serve `server` (one a test configured itself) and connect.
    pub async fn serve(server: hive_mind_host::mcp::MemoryServer) -> McpSession {
        use rmcp::ServiceExt;
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(async move {
            server
                .serve(server_io)
                .await
                .unwrap()
                .waiting()
                .await
                .unwrap();
        });
        let client = TestClient.serve(client_io).await.unwrap();
        McpSession { client, serving }
    }

    /// The connected client, for what [`McpSession::tool`] does not cover
    /// (listing the tools, a call's whole result).
    pub fn client(&self) -> &rmcp::service::RunningService<rmcp::RoleClient, TestClient> {
        &self.client
    }

    /// Call a tool: whether it failed (a tool error, or arguments the
    /// schema refuses), and its structured answer (or the error's text).
    pub async fn tool(&self, name: &str, arguments: Json) -> (bool, Json) {
        match self.client.call_tool(mcp_call(name, arguments)).await {
            Ok(result) => (
                result.is_error == Some(true),
                result.structured_content.unwrap_or(Json::Null),
            ),
            Err(error) => (true, Json::String(error.to_string())),
        }
    }

    /// Disconnect and wait for the server to end.
    pub async fn close(self) {
        self.client.cancel().await.unwrap();
        self.serving.await.unwrap();
    }
}

/// A `tools/call` of `name` with the JSON object `arguments`.
pub fn mcp_call(name: &str, arguments: Json) -> rmcp::model::CallToolRequestParams {
    rmcp::model::CallToolRequestParams::new(name.to_string())
        .with_arguments(arguments.as_object().unwrap().clone())
}
