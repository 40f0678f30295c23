//! Harvest with a language model, end to end: the engine component's passes
//! 1–3 through the host's `llm` import and `hive-mind-outbound`'s HTTP
//! client, against a loopback server that speaks each provider's wire
//! format (OpenAI-compatible `/v1/chat/completions`, Anthropic
//! `/v1/messages`, Ollama `/api/chat`) and answers every harvest prompt as a
//! well-behaved model would; then rate limits, malformed answers and the
//! rerun that retries only the failed item; `auto` with no model; and the
//! MCP harvest tools in process.
//!
//! The mock server recognises the pass by its system text ("You triage",
//! "You extract", "You turn notes"), the item by the title in the prompt's
//! first line, and echoes the ids of a classification prompt. Every pass
//! reports fixed token counts, so the sums the report and `ai_interactions`
//! hold are known exactly.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hive_mind_host::mcp::MemoryServer;
use hive_mind_models::embedder::{Embedder, MockEmbedder};
use hive_mind_models::reranker::Unconfigured;
use hive_mind_outbound::fetch::{FetchPolicy, Fetcher};
use hive_mind_outbound::llm::{ApiKey, LlmClient, LlmConfig, ProviderKind, RetryPolicy};
use hive_mind_runtime::engine::import::run_job;
use hive_mind_runtime::engine::wit_harvest::{
    Distillation, Document, Error as HarvestWitError, ImportOptions, ImportReport, Input,
};
use hive_mind_runtime::engine::wit_types::Mind;
use hive_mind_runtime::engine::{Capabilities, EngineError, EngineRuntime, HarvestError};
use hive_mind_terminal::Progress;
use rmcp::service::ServiceError;
use serde_json::{Value as Json, json};

// ---------------------------------------------------------------------------
// The export
// ---------------------------------------------------------------------------

/// A universal-JSON export of four conversations: a preference, a dated
/// event, a profile statement (and an allergy), and a greeting the model
/// classifies `skip`.
fn export() -> Vec<u8> {
    let conversation = |id: &str, title: &str, at: &str, user: &str, assistant: &str| {
        json!({
            "id": id,
            "title": title,
            "created_at": at,
            "messages": [
                {"role": "user", "content": user, "timestamp": at},
                {"role": "assistant", "content": assistant, "timestamp": at},
            ],
        })
    };
    let export = json!({"conversations": [
        conversation(
            "conv-pref",
            "Editor setup",
            "2024-01-15T08:00:00Z",
            "I prefer dark mode in every editor, and I write Rust in Neovim.",
            "Noted: dark mode everywhere, Neovim for Rust.",
        ),
        conversation(
            "conv-event",
            "Conference trip",
            "2024-03-10T09:00:00Z",
            "I'm flying to Lisbon for RustConf on 2 April 2024.",
            "Have a good trip to Lisbon!",
        ),
        conversation(
            "conv-profile",
            "About me",
            "2024-02-01T10:00:00Z",
            "I work as a nurse in Porto, and I'm allergic to peanuts.",
            "Thanks, I'll keep that in mind.",
        ),
        conversation(
            "conv-hello",
            "Hello",
            "2024-02-02T10:00:00Z",
            "hi there",
            "Hello! How can I help you today?",
        ),
    ]});
    serde_json::to_vec_pretty(&export).unwrap()
}

const ITEM_IDS: [&str; 4] = ["conv-pref", "conv-event", "conv-profile", "conv-hello"];

/// Tokens each pass reports (input, output).
const CLASSIFY_TOKENS: (u64, u64) = (100, 10);
const EXTRACT_TOKENS: (u64, u64) = (200, 20);
const SYNTHESIZE_TOKENS: (u64, u64) = (300, 30);

/// What a full import of [`export`] costs: one classification, then an
/// extraction and a synthesis for each of the three items worth it.
const FULL_CALLS: u32 = 7;
const FULL_INPUT_TOKENS: u64 = CLASSIFY_TOKENS.0 + 3 * EXTRACT_TOKENS.0 + 3 * SYNTHESIZE_TOKENS.0;
const FULL_OUTPUT_TOKENS: u64 = CLASSIFY_TOKENS.1 + 3 * EXTRACT_TOKENS.1 + 3 * SYNTHESIZE_TOKENS.1;

const FAST_MODEL: &str = "mock-fast";
const CAPABLE_MODEL: &str = "mock-capable";
const API_KEY: &str = "sk-test-harvest-llm";

// ---------------------------------------------------------------------------
// The loopback server
// ---------------------------------------------------------------------------

/// One request the server received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    /// Header names lower-cased.
    headers: HashMap<String, String>,
    body: Json,
}

/// What the server answers.
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
}

impl Reply {
    fn json(body: &Json) -> Reply {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }
}

type Handler = dyn Fn(&Seen) -> Reply + Send + Sync;

/// A loopback HTTP/1.1 server (keep-alive; `Content-Length` or chunked
/// request bodies) that records every request and answers with `handler`.
/// Its threads end with the test process.
struct MockServer {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl MockServer {
    fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let handler: Arc<Handler> = Arc::new(handler);
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, handler) = (Arc::clone(&log), Arc::clone(&handler));
                std::thread::spawn(move || connection(stream, &log, &*handler));
            }
        });
        MockServer { base, seen }
    }

    fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

/// Serve one connection until the client closes it.
fn connection(stream: TcpStream, log: &Mutex<Vec<Seen>>, handler: &Handler) {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or_default().to_string();
        let path = parts.next().unwrap_or_default().to_string();
        let mut headers = HashMap::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
            }
        }
        let body = if headers
            .get("transfer-encoding")
            .is_some_and(|te| te.eq_ignore_ascii_case("chunked"))
        {
            read_chunked(&mut reader)
        } else {
            let length: usize = headers
                .get("content-length")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            body
        };
        let seen = Seen {
            method,
            path,
            body: serde_json::from_slice(&body).unwrap_or(Json::Null),
            headers,
        };
        log.lock().unwrap().push(seen.clone());
        let reply = handler(&seen);
        let close = seen
            .headers
            .get("connection")
            .is_some_and(|c| c.eq_ignore_ascii_case("close"));
        let mut head = format!(
            "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            reply.status,
            reply.body.len()
        );
        for (name, value) in &reply.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(if close {
            "connection: close\r\n\r\n"
        } else {
            "connection: keep-alive\r\n\r\n"
        });
        if writer.write_all(head.as_bytes()).is_err()
            || writer.write_all(reply.body.as_bytes()).is_err()
            || writer.flush().is_err()
            || close
        {
            return;
        }
    }
}

fn read_chunked(reader: &mut impl BufRead) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).unwrap();
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap(), 16).unwrap();
        if size == 0 {
            let mut trailer = String::new();
            reader.read_line(&mut trailer).unwrap();
            return body;
        }
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk).unwrap();
        body.extend_from_slice(&chunk[..size]);
    }
}

// ---------------------------------------------------------------------------
// The wire formats
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    Openai,
    Anthropic,
    Ollama,
}

impl Wire {
    fn kind(self) -> ProviderKind {
        match self {
            Wire::Openai => ProviderKind::Openai,
            Wire::Anthropic => ProviderKind::Anthropic,
            Wire::Ollama => ProviderKind::Ollama,
        }
    }

    fn name(self) -> &'static str {
        self.kind().name()
    }

    fn path(self) -> &'static str {
        match self {
            Wire::Openai => "/v1/chat/completions",
            Wire::Anthropic => "/v1/messages",
            Wire::Ollama => "/api/chat",
        }
    }

    /// The base URL the client is configured with.
    fn base_url(self, server: &MockServer) -> String {
        match self {
            Wire::Openai => format!("{}/v1", server.base),
            Wire::Anthropic | Wire::Ollama => server.base.clone(),
        }
    }

    /// The system text of a request.
    fn system(self, seen: &Seen) -> String {
        let text = match self {
            Wire::Anthropic => seen.body["system"].as_str(),
            Wire::Openai | Wire::Ollama => seen.body["messages"]
                .as_array()
                .and_then(|messages| messages.iter().find(|m| m["role"] == "system"))
                .and_then(|m| m["content"].as_str()),
        };
        text.unwrap_or_default().to_string()
    }

    /// The prompt (the last user message) of a request.
    fn prompt(self, seen: &Seen) -> String {
        seen.body["messages"]
            .as_array()
            .and_then(|messages| messages.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    /// The answer budget a request asked for.
    fn max_tokens(self, seen: &Seen) -> u64 {
        match self {
            Wire::Openai | Wire::Anthropic => seen.body["max_tokens"].as_u64().unwrap(),
            Wire::Ollama => seen.body["options"]["num_predict"].as_u64().unwrap(),
        }
    }

    /// A successful answer in this provider's shape.
    fn answer(self, model: &str, text: &str, tokens: (u64, u64)) -> Json {
        match self {
            Wire::Openai => json!({
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": model,
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }],
                "usage": {
                    "prompt_tokens": tokens.0,
                    "completion_tokens": tokens.1,
                    "total_tokens": tokens.0 + tokens.1,
                },
            }),
            Wire::Anthropic => json!({
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": tokens.0, "output_tokens": tokens.1},
            }),
            Wire::Ollama => json!({
                "model": model,
                "created_at": "2024-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": text},
                "done": true,
                "done_reason": "stop",
                "prompt_eval_count": tokens.0,
                "eval_count": tokens.1,
            }),
        }
    }
}

// ---------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Classify,
    Extract,
    Synthesize,
}

fn pass_of(system: &str) -> Option<Pass> {
    if system.starts_with("You triage") {
        Some(Pass::Classify)
    } else if system.starts_with("You extract") {
        Some(Pass::Extract)
    } else if system.starts_with("You turn notes") {
        Some(Pass::Synthesize)
    } else {
        None
    }
}

/// The ids of a classification prompt's `<item id="…">` tags, in order.
fn item_ids(prompt: &str) -> Vec<String> {
    prompt
        .split("<item id=\"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(id, _)| id.to_string()))
        .collect()
}

/// The title on an extraction or synthesis prompt's first line.
fn title_of(prompt: &str) -> String {
    let first = prompt.lines().next().unwrap_or_default();
    first
        .split_once("titled \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(title, _)| title.to_string())
        .unwrap_or_default()
}

fn classification(ids: &[String]) -> Json {
    let items: Vec<Json> = ids
        .iter()
        .map(|id| {
            let value = if id == "conv-hello" { "skip" } else { "high" };
            json!({"id": id, "value": value, "domain": "other"})
        })
        .collect();
    json!({ "items": items })
}

fn extraction(title: &str) -> Json {
    let mut answer = json!({
        "decisions": [], "preferences": [], "facts": [], "knowledge": [],
        "events": [], "profiles": [], "entities": [], "relations": [],
    });
    match title {
        "Editor setup" => {
            answer["preferences"] =
                json!([{"text": "The user prefers dark mode in every editor.", "turn": 1}]);
            answer["entities"] = json!([
                {"name": "Neovim", "type": "tool"},
                {"name": "Rust", "type": "language"},
            ]);
            answer["relations"] =
                json!([{"subject": "Neovim", "relation": "related-to", "object": "Rust"}]);
        }
        "Conference trip" => {
            answer["events"] = json!([{
                "text": "The user flies to Lisbon for RustConf.",
                "date": "2024-04-02", "cue": null, "turn": 1,
            }]);
            answer["entities"] = json!([
                {"name": "Lisbon", "type": "city"},
                {"name": "RustConf", "type": "concept"},
            ]);
        }
        "About me" => {
            answer["profiles"] =
                json!([{"name": "user", "text": "The user works as a nurse in Porto.", "turn": 1}]);
            answer["facts"] = json!([{"text": "The user is allergic to peanuts.", "turn": 1}]);
            answer["entities"] = json!([{"name": "Porto", "type": "city"}]);
        }
        other => panic!("no extraction for {other:?}"),
    }
    answer
}

fn synthesis(title: &str) -> Json {
    match title {
        "Editor setup" => json!({
            "knowledge": [{
                "target_layer": "fact",
                "text": "The user prefers dark mode in every editor.",
                "importance": "important", "confidence": 0.9, "provenance": 1,
            }],
            "entities": [
                {"name": "Neovim", "type": "technology"},
                {"name": "Rust", "type": "technology"},
            ],
            "relations": [{"subject": "Neovim", "relation": "co-occurs-with", "object": "Rust"}],
        }),
        "Conference trip" => json!({
            "knowledge": [{
                "target_layer": "event",
                "text": "The user flies to Lisbon for RustConf.",
                "importance": "normal", "confidence": 0.8, "provenance": 1,
                "date": "2024-04-02",
            }],
            "entities": [
                {"name": "Lisbon", "type": "place"},
                {"name": "RustConf", "type": "concept"},
            ],
            "relations": [],
        }),
        "About me" => json!({
            "knowledge": [
                {
                    "target_layer": "profile", "name": "user",
                    "text": "The user works as a nurse in Porto.",
                    "importance": "important", "confidence": 0.95, "provenance": "turn 1",
                },
                {
                    "target_layer": "fact",
                    "text": "The user is allergic to peanuts.",
                    "importance": "critical", "confidence": 0.95, "provenance": 1,
                },
            ],
            "entities": [{"name": "Porto", "type": "place"}],
            "relations": [],
        }),
        other => panic!("no synthesis for {other:?}"),
    }
}

/// A well-behaved model's answer to a harvest request (`None`: a request
/// that is not a harvest prompt).
fn harvest_answer(wire: Wire, seen: &Seen) -> Option<Json> {
    let prompt = wire.prompt(seen);
    let (text, tokens) = match pass_of(&wire.system(seen))? {
        Pass::Classify => (classification(&item_ids(&prompt)), CLASSIFY_TOKENS),
        Pass::Extract => (extraction(&title_of(&prompt)), EXTRACT_TOKENS),
        Pass::Synthesize => (synthesis(&title_of(&prompt)), SYNTHESIZE_TOKENS),
    };
    let model = seen.body["model"].as_str().unwrap_or_default();
    Some(wire.answer(model, &text.to_string(), tokens))
}

/// The reply of a well-behaved server (400 for anything else).
fn well_behaved(wire: Wire, seen: &Seen) -> Reply {
    if seen.method != "POST" || seen.path != wire.path() {
        return Reply {
            status: 404,
            headers: Vec::new(),
            body: json!({"error": format!("no route {} {}", seen.method, seen.path)}).to_string(),
        };
    }
    match harvest_answer(wire, seen) {
        Some(answer) => Reply::json(&answer),
        None => Reply {
            status: 400,
            headers: Vec::new(),
            body: json!({"error": "not a harvest prompt"}).to_string(),
        },
    }
}

// ---------------------------------------------------------------------------
// Engines and the mind's files
// ---------------------------------------------------------------------------

fn mock_embedder() -> Arc<dyn Embedder> {
    Arc::new(MockEmbedder::new(384))
}

fn capabilities(dir: &Path) -> Capabilities {
    Capabilities::new(
        hive_mind_sqlite::DataDir::new(dir),
        Ok(mock_embedder()),
        Arc::new(Unconfigured),
    )
}

fn engine_with(capabilities: Capabilities) -> EngineRuntime {
    EngineRuntime::from_component_bytes(
        hive_mind_runtime::artifacts::ENGINE_COMPONENT,
        Some(&crate::support::cache_dir()),
        capabilities,
    )
    .unwrap()
}

/// A client for `wire` at `server`: test models, a key, quick retries.
fn client(wire: Wire, server: &MockServer, max_retries: u32) -> LlmClient {
    let mut config = LlmConfig::for_provider(wire.kind());
    config.base_url = wire.base_url(server);
    if wire != Wire::Ollama {
        config.api_key = Some(ApiKey::new(API_KEY));
    }
    config.fast_model = FAST_MODEL.to_string();
    config.capable_model = CAPABLE_MODEL.to_string();
    config.timeout = Duration::from_secs(20);
    config.retry = RetryPolicy {
        max_retries,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        max_retry_after: Duration::from_secs(5),
    };
    LlmClient::new(&config).unwrap()
}

fn llm_engine(dir: &Path, wire: Wire, server: &MockServer, max_retries: u32) -> EngineRuntime {
    engine_with(
        capabilities(dir).with_llm(Arc::new(client(wire, server, max_retries)), wire.name()),
    )
}

fn options(distillation: Distillation) -> ImportOptions {
    ImportOptions {
        source: None,
        mind: Mind::Personal,
        distillation,
        dry_run: false,
    }
}

fn document(name: &str, bytes: Vec<u8>) -> Vec<Input> {
    vec![Input::Document(Document {
        name: name.to_string(),
        bytes,
    })]
}

fn import(
    engine: &mut EngineRuntime,
    distillation: Distillation,
) -> Result<ImportReport, EngineError> {
    run_job(
        engine,
        &document("conversations.json", export()),
        &options(distillation),
        &Progress::hidden(),
    )
}

/// A data directory whose path has no hidden component (the MCP tools
/// refuse those, and `tempfile`'s default names start with `.tmp`).
fn data_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("hive-harvest-llm-")
        .tempdir()
        .unwrap()
}

/// The personal mind's database, opened read-only (the engine's writes are
/// committed by the time an import returns).
fn personal(dir: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(
        dir.join("personal.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap()
}

/// A frame as the tests read it back.
#[derive(Debug, Clone, PartialEq)]
struct StoredFrame {
    content: String,
    importance: String,
    created_at: String,
}

fn frames(db: &rusqlite::Connection) -> Vec<StoredFrame> {
    let mut statement = db
        .prepare("SELECT content, importance, created_at FROM memory_frames ORDER BY id")
        .unwrap();
    statement
        .query_map([], |row| {
            Ok(StoredFrame {
                content: row.get(0)?,
                importance: row.get(1)?,
                created_at: row.get(2)?,
            })
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The frames whose content starts with `prefix`.
fn lane(db: &rusqlite::Connection, prefix: &str) -> Vec<StoredFrame> {
    frames(db)
        .into_iter()
        .filter(|frame| frame.content.starts_with(prefix))
        .collect()
}

fn interactions(db: &rusqlite::Connection) -> (i64, i64, i64) {
    db.query_row(
        "SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0) \
         FROM ai_interactions",
        [],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )
    .unwrap()
}

/// `ai_interactions` per (purpose, model, provider).
fn interactions_by_purpose(db: &rusqlite::Connection) -> Vec<(String, String, String, i64)> {
    let mut statement = db
        .prepare(
            "SELECT purpose, model, provider, count(*) FROM ai_interactions \
             GROUP BY purpose, model, provider ORDER BY purpose",
        )
        .unwrap();
    statement
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn entity_names(db: &rusqlite::Connection) -> Vec<(String, String)> {
    let mut statement = db
        .prepare("SELECT lower(name), entity_type FROM knowledge_entities ORDER BY lower(name)")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn outcomes(db: &rusqlite::Connection) -> HashMap<String, String> {
    let mut statement = db
        .prepare("SELECT item_id, outcome FROM harvest_items")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn pass_requests(wire: Wire, requests: &[Seen], pass: Pass) -> Vec<Seen> {
    requests
        .iter()
        .filter(|seen| pass_of(&wire.system(seen)) == Some(pass))
        .cloned()
        .collect()
}

// ---------------------------------------------------------------------------
// 1. Each provider over loopback
// ---------------------------------------------------------------------------

/// Import the export with `wire`'s provider and check everything the
/// import says, wrote, and sent.
fn harvest_with(wire: Wire) {
    let dir = data_dir();
    let server = MockServer::start(move |seen| well_behaved(wire, seen));
    let mut engine = llm_engine(dir.path(), wire, &server, 2);
    let report = import(&mut engine, Distillation::Llm).unwrap();
    let context = format!("{wire:?}: {report:#?}");

    // The report.
    assert_eq!(report.distillation, Distillation::Llm, "{context}");
    assert_eq!(report.items, 4, "{context}");
    assert_eq!(report.imported, 3, "{context}");
    assert_eq!(report.skipped_low_value, 1, "{context}");
    assert_eq!(report.failed, 0, "{context}");
    assert_eq!(report.extracted, 4, "{context}");
    assert_eq!(report.frames.raw_turns, 8, "{context}");
    assert_eq!(report.frames.facts, 2, "{context}");
    assert_eq!(report.frames.events, 1, "{context}");
    assert_eq!(report.frames.profiles, 1, "{context}");
    assert_eq!(report.entities_new, 5, "{context}");
    assert_eq!(report.relations, 1, "{context}");
    assert_eq!(report.llm_calls, FULL_CALLS, "{context}");
    assert_eq!(report.llm_input_tokens, FULL_INPUT_TOKENS, "{context}");
    assert_eq!(report.llm_output_tokens, FULL_OUTPUT_TOKENS, "{context}");
    assert!(
        !report
            .notes
            .iter()
            .any(|note| note.contains("skipped") || note.contains("failed")),
        "{context}"
    );

    // What the server saw: one classification of the whole batch at the
    // fast tier, then an extraction and a synthesis per item worth it at
    // the capable tier, each in the provider's JSON mode.
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        FULL_CALLS as usize,
        "{wire:?}: {requests:#?}"
    );
    let classify = pass_requests(wire, &requests, Pass::Classify);
    let extract = pass_requests(wire, &requests, Pass::Extract);
    let synthesize = pass_requests(wire, &requests, Pass::Synthesize);
    assert_eq!(
        (classify.len(), extract.len(), synthesize.len()),
        (1, 3, 3),
        "{wire:?}"
    );
    assert_eq!(item_ids(&wire.prompt(&classify[0])), ITEM_IDS, "{wire:?}");
    let mut titles: Vec<String> = extract.iter().map(|s| title_of(&wire.prompt(s))).collect();
    titles.sort();
    assert_eq!(titles, ["About me", "Conference trip", "Editor setup"]);
    for seen in &requests {
        assert_eq!(seen.method, "POST", "{wire:?}");
        assert_eq!(seen.path, wire.path(), "{wire:?}");
        let pass = pass_of(&wire.system(seen)).unwrap();
        let (model, budget) = match pass {
            Pass::Classify => (FAST_MODEL, 1200),
            Pass::Extract => (CAPABLE_MODEL, 2000),
            Pass::Synthesize => (CAPABLE_MODEL, 2500),
        };
        assert_eq!(seen.body["model"], model, "{wire:?} {pass:?}");
        assert_eq!(wire.max_tokens(seen), budget, "{wire:?} {pass:?}");
        let prompt = wire.prompt(seen);
        match pass {
            Pass::Classify => assert!(prompt.contains("<item id=\"conv-hello\""), "{prompt}"),
            Pass::Extract => assert!(prompt.contains("<dialogue>"), "{prompt}"),
            Pass::Synthesize => assert!(prompt.contains("<extraction>"), "{prompt}"),
        }
        match wire {
            Wire::Openai => {
                assert_eq!(seen.body["response_format"], json!({"type": "json_object"}));
                assert_eq!(
                    seen.headers.get("authorization").map(String::as_str),
                    Some(format!("Bearer {API_KEY}").as_str())
                );
                assert_eq!(seen.body["messages"][0]["role"], "system");
            }
            Wire::Anthropic => {
                // No JSON mode: the system text says it, and the answer
                // is checked.
                assert!(seen.body.get("response_format").is_none());
                assert!(
                    wire.system(seen).contains("Answer with JSON only"),
                    "{}",
                    wire.system(seen)
                );
                assert_eq!(
                    seen.headers.get("x-api-key").map(String::as_str),
                    Some(API_KEY)
                );
                assert_eq!(
                    seen.headers.get("anthropic-version").map(String::as_str),
                    Some("2023-06-01")
                );
                assert_eq!(seen.body["messages"].as_array().unwrap().len(), 1);
            }
            Wire::Ollama => {
                assert_eq!(seen.body["format"], "json");
                assert_eq!(seen.body["stream"], false);
                assert!(!seen.headers.contains_key("authorization"));
            }
        }
    }

    // The mind: the lanes, tagged, with their dates and importance.
    let db = personal(dir.path());
    let facts = lane(&db, "[mind-fact]");
    let fact = |text: &str| {
        facts
            .iter()
            .find(|f| f.content == format!("[mind-fact] {text}"))
            .unwrap_or_else(|| panic!("{wire:?}: no fact {text:?} in {facts:#?}"))
            .clone()
    };
    assert_eq!(facts.len(), 2, "{facts:#?}");
    let preference = fact("The user prefers dark mode in every editor.");
    assert_eq!(preference.importance, "important");
    assert!(
        preference.created_at.starts_with("2024-01-15"),
        "{preference:?}"
    );
    assert_eq!(
        fact("The user is allergic to peanuts.").importance,
        "critical"
    );
    let events = lane(&db, "[mind-event]");
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(
        events[0].content,
        "[mind-event] [2024-04-02] The user flies to Lisbon for RustConf."
    );
    assert_eq!(events[0].importance, "normal");
    assert!(events[0].created_at.starts_with("2024-04-02"), "{events:?}");
    let profiles = lane(&db, "[mind-profile");
    assert_eq!(profiles.len(), 1, "{profiles:#?}");
    assert_eq!(
        profiles[0].content,
        "[mind-profile user] The user works as a nurse in Porto."
    );
    assert_eq!(profiles[0].importance, "important");
    let raw = lane(&db, "[mind-rawturn");
    assert_eq!(raw.len(), 8, "{raw:#?}");
    assert!(
        raw.iter()
            .any(|f| f.content.contains("speaker:user] hi there")),
        "the skipped item keeps its raw turns: {raw:#?}"
    );
    assert_eq!(
        entity_names(&db),
        [
            ("lisbon".to_string(), "place".to_string()),
            ("neovim".to_string(), "technology".to_string()),
            ("porto".to_string(), "place".to_string()),
            ("rust".to_string(), "technology".to_string()),
            ("rustconf".to_string(), "concept".to_string()),
        ],
        "{wire:?}"
    );
    let relations: i64 = db
        .query_row(
            "SELECT count(*) FROM knowledge_relations WHERE relation_type = 'co-occurs-with'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(relations, 1);

    // Every call accounted, by purpose, model and provider.
    assert_eq!(
        interactions(&db),
        (
            i64::from(FULL_CALLS),
            FULL_INPUT_TOKENS as i64,
            FULL_OUTPUT_TOKENS as i64
        )
    );
    let name = wire.name().to_string();
    assert_eq!(
        interactions_by_purpose(&db),
        [
            (
                "harvest-classify".to_string(),
                FAST_MODEL.to_string(),
                name.clone(),
                1
            ),
            (
                "harvest-extract".to_string(),
                CAPABLE_MODEL.to_string(),
                name.clone(),
                3
            ),
            (
                "harvest-synthesize".to_string(),
                CAPABLE_MODEL.to_string(),
                name,
                3
            ),
        ]
    );
    let outcomes = outcomes(&db);
    assert_eq!(outcomes["conv-hello"], "skipped");
    for id in ["conv-pref", "conv-event", "conv-profile"] {
        assert_eq!(outcomes[id], "imported", "{id}");
    }
    drop(db);

    // The same export again: nothing to do, nothing asked.
    let again = import(&mut engine, Distillation::Llm).unwrap();
    assert!(again.sources[0].unchanged, "{again:#?}");
    assert_eq!(again.llm_calls, 0);
    assert_eq!(server.count(), FULL_CALLS as usize);
}

#[test]
fn harvest_with_an_openai_compatible_server() {
    harvest_with(Wire::Openai);
}

#[test]
fn harvest_with_anthropic_messages() {
    harvest_with(Wire::Anthropic);
}

#[test]
fn harvest_with_ollama_native_chat() {
    harvest_with(Wire::Ollama);
}

/// `hive-mind --data-dir DIR import --json FILE` with the mock embedder and
/// only the language-model environment given.
fn cli_import(dir: &Path, file: &Path, env: &[(&str, String)]) -> Json {
    let mut command = crate::support::hive_mind();
    for name in [
        "HIVE_MIND_HOME",
        "HIVE_MIND_LLM_PROVIDER",
        "HIVE_MIND_LLM_BASE_URL",
        "HIVE_MIND_LLM_API_KEY",
        "HIVE_MIND_LLM_FAST_MODEL",
        "HIVE_MIND_LLM_CAPABLE_MODEL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OLLAMA_HOST",
    ] {
        command.env_remove(name);
    }
    command.env("HIVE_MIND_EMBEDDER", "mock");
    command.envs(env.iter().map(|(name, value)| (*name, value.as_str())));
    let output = command
        .arg("--data-dir")
        .arg(dir)
        .args(["import", "--json", "--quiet"])
        .arg(file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"))
}

#[test]
fn the_cli_takes_the_model_from_config_toml_or_the_environment() {
    let files = data_dir();
    let export_file = files.path().join("conversations.json");
    std::fs::write(&export_file, export()).unwrap();

    // `[llm]` in the data directory's config.toml (OpenAI-compatible).
    let server = MockServer::start(|seen| well_behaved(Wire::Openai, seen));
    let dir = data_dir();
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "[llm]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\napi_key = \"{API_KEY}\"\n\
             fast_model = \"{FAST_MODEL}\"\ncapable_model = \"{CAPABLE_MODEL}\"\n",
            server.base
        ),
    )
    .unwrap();
    let report = cli_import(dir.path(), &export_file, &[]);
    assert_eq!(report["distillation"], "llm", "{report:#}");
    assert_eq!(report["llm"]["calls"], FULL_CALLS, "{report:#}");
    assert_eq!(
        report["llm"]["input_tokens"], FULL_INPUT_TOKENS,
        "{report:#}"
    );
    assert_eq!(
        report["llm"]["output_tokens"], FULL_OUTPUT_TOKENS,
        "{report:#}"
    );
    assert_eq!(report["frames"]["events"], 1, "{report:#}");
    let requests = server.requests();
    assert_eq!(requests.len(), FULL_CALLS as usize);
    assert!(
        requests.iter().all(|seen| {
            seen.headers.get("authorization") == Some(&format!("Bearer {API_KEY}"))
        })
    );
    let db = personal(dir.path());
    assert!(
        interactions_by_purpose(&db)
            .iter()
            .all(|(_, _, provider, _)| provider == "openai")
    );
    drop(db);

    // The HIVE_MIND_LLM_* variables (Anthropic), with no file.
    let server = MockServer::start(|seen| well_behaved(Wire::Anthropic, seen));
    let dir = data_dir();
    let report = cli_import(
        dir.path(),
        &export_file,
        &[
            ("HIVE_MIND_LLM_PROVIDER", "anthropic".to_string()),
            ("HIVE_MIND_LLM_BASE_URL", server.base.clone()),
            ("HIVE_MIND_LLM_API_KEY", API_KEY.to_string()),
            ("HIVE_MIND_LLM_FAST_MODEL", FAST_MODEL.to_string()),
            ("HIVE_MIND_LLM_CAPABLE_MODEL", CAPABLE_MODEL.to_string()),
        ],
    );
    assert_eq!(report["distillation"], "llm", "{report:#}");
    assert_eq!(report["llm"]["calls"], FULL_CALLS, "{report:#}");
    let requests = server.requests();
    assert_eq!(requests.len(), FULL_CALLS as usize);
    assert!(requests.iter().all(|seen| seen.path == "/v1/messages"
        && seen.headers.get("x-api-key").map(String::as_str) == Some(API_KEY)));
    let db = personal(dir.path());
    assert_eq!(
        interactions(&db),
        (
            i64::from(FULL_CALLS),
            FULL_INPUT_TOKENS as i64,
            FULL_OUTPUT_TOKENS as i64
        )
    );
    assert!(
        interactions_by_purpose(&db)
            .iter()
            .all(|(_, _, provider, _)| provider == "anthropic")
    );
}

// ---------------------------------------------------------------------------
// 2. Rate limits and malformed answers
// ---------------------------------------------------------------------------

#[test]
fn a_rate_limit_storm_is_ridden_out() {
    let dir = data_dir();
    let wire = Wire::Openai;
    let requests = Arc::new(AtomicUsize::new(0));
    let limited_extracts: Arc<Mutex<HashSet<String>>> = Arc::default();
    let (counter, limited) = (Arc::clone(&requests), Arc::clone(&limited_extracts));
    // The first three requests are refused, and so is the first attempt of
    // each extraction (three at once, from `complete-many`).
    let server = MockServer::start(move |seen| {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        let prompt = wire.prompt(seen);
        let first_extract = pass_of(&wire.system(seen)) == Some(Pass::Extract)
            && limited.lock().unwrap().insert(title_of(&prompt));
        if n < 3 || first_extract {
            return Reply {
                status: 429,
                headers: vec![("retry-after", "0".to_string())],
                body: json!({"error": {"message": "slow down", "type": "rate_limit_exceeded"}})
                    .to_string(),
            };
        }
        well_behaved(wire, seen)
    });
    let mut engine = llm_engine(dir.path(), wire, &server, 4);
    let report = import(&mut engine, Distillation::Llm).unwrap();
    assert_eq!(report.failed, 0, "{report:#?}");
    assert_eq!(report.imported, 3, "{report:#?}");
    assert_eq!((report.frames.facts, report.frames.events), (2, 1));
    // The host's retries are its own: the engine made its seven calls.
    assert_eq!(report.llm_calls, FULL_CALLS);
    assert_eq!(report.llm_input_tokens, FULL_INPUT_TOKENS);
    assert_eq!(server.count(), FULL_CALLS as usize + 3 + 3);
    let db = personal(dir.path());
    assert_eq!(interactions(&db).0, i64::from(FULL_CALLS));
}

#[test]
fn a_rate_limit_beyond_the_retries_fails_the_item_and_the_rerun_finishes_it() {
    let dir = data_dir();
    let wire = Wire::Openai;
    let open = Arc::new(AtomicBool::new(false));
    let gate = Arc::clone(&open);
    // Extractions of the trip are refused until the gate opens.
    let server = MockServer::start(move |seen| {
        let trip = title_of(&wire.prompt(seen)) == "Conference trip"
            && pass_of(&wire.system(seen)) == Some(Pass::Extract);
        if trip && !gate.load(Ordering::SeqCst) {
            return Reply {
                status: 429,
                headers: vec![("retry-after", "0".to_string())],
                body: json!({"error": {"message": "slow down"}}).to_string(),
            };
        }
        well_behaved(wire, seen)
    });
    let mut engine = llm_engine(dir.path(), wire, &server, 1);
    let report = import(&mut engine, Distillation::Llm).unwrap();
    assert_eq!((report.imported, report.failed), (2, 1), "{report:#?}");
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("conv-event") && n.contains("rate limited")),
        "{:#?}",
        report.notes
    );
    open.store(true, Ordering::SeqCst);
    let rerun = import(&mut engine, Distillation::Llm).unwrap();
    assert_eq!((rerun.imported, rerun.failed), (1, 0), "{rerun:#?}");
    assert_eq!(rerun.frames.events, 1);
    assert_eq!(rerun.llm_calls, 3);
}

#[test]
fn a_malformed_extraction_fails_its_item_only_and_the_rerun_retries_it() {
    let dir = data_dir();
    let wire = Wire::Openai;
    let healed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&healed);
    // The trip's extraction comes back cut off, then (asked again with the
    // problem named) with a field of the wrong type; until `healed`.
    let server = MockServer::start(move |seen| {
        let prompt = wire.prompt(seen);
        let trip = title_of(&prompt) == "Conference trip"
            && pass_of(&wire.system(seen)) == Some(Pass::Extract);
        if trip && !flag.load(Ordering::SeqCst) {
            let text = if prompt.contains("Your previous answer was rejected") {
                r#"{"decisions": [], "events": "in April"}"#
            } else {
                r#"{"decisions": [], "events": [{"text": "The user flies to Lis"#
            };
            return Reply::json(&wire.answer(CAPABLE_MODEL, text, EXTRACT_TOKENS));
        }
        well_behaved(wire, seen)
    });
    let mut engine = llm_engine(dir.path(), wire, &server, 1);
    let report = import(&mut engine, Distillation::Llm).unwrap();
    let context = format!("{report:#?}");
    assert_eq!(report.distillation, Distillation::Llm, "{context}");
    assert_eq!(
        (report.imported, report.failed, report.skipped_low_value),
        (2, 1, 1),
        "{context}"
    );
    // The trip's raw turns are written; nothing distilled from it is.
    assert_eq!(report.frames.raw_turns, 8, "{context}");
    assert_eq!(
        (
            report.frames.facts,
            report.frames.events,
            report.frames.profiles
        ),
        (2, 0, 1),
        "{context}"
    );
    let note = report
        .notes
        .iter()
        .find(|n| n.contains("conv-event"))
        .unwrap_or_else(|| panic!("no note on the failed item: {context}"));
    assert!(
        note.contains("Conference trip")
            && note.contains("distillation skipped")
            && note.contains("malformed twice")
            && note.contains("raw turns are kept"),
        "{note}"
    );
    // One classification; four extractions (the trip's asked twice); two
    // syntheses (none for the trip).
    let requests = server.requests();
    assert_eq!(requests.len(), 7, "{requests:#?}");
    let extracts = pass_requests(wire, &requests, Pass::Extract);
    let trip: Vec<&Seen> = extracts
        .iter()
        .filter(|s| title_of(&wire.prompt(s)) == "Conference trip")
        .collect();
    assert_eq!(trip.len(), 2);
    let retry = wire.prompt(trip[1]);
    assert!(
        retry.contains("Your previous answer was rejected: not JSON: the answer stops"),
        "{retry}"
    );
    // A cut-off answer is asked again with twice the budget.
    assert_eq!(wire.max_tokens(trip[1]), 4000);
    assert_eq!(pass_requests(wire, &requests, Pass::Synthesize).len(), 2);
    assert_eq!(report.llm_calls, 7);
    let db = personal(dir.path());
    assert_eq!(interactions(&db).0, 7);
    assert_eq!(outcomes(&db)["conv-event"], "failed");
    assert_eq!(outcomes(&db)["conv-pref"], "imported");
    let trip_turns = |db: &rusqlite::Connection| {
        lane(db, "[mind-rawturn")
            .into_iter()
            .filter(|f| f.content.contains("conv-event"))
            .count()
    };
    assert_eq!(trip_turns(&db), 2);
    assert!(lane(&db, "[mind-event]").is_empty());
    assert!(
        !entity_names(&db)
            .iter()
            .any(|(name, _)| name == "lisbon" || name == "rustconf"),
        "{:?}",
        entity_names(&db)
    );
    drop(db);

    // The next run asks only about the failed item.
    healed.store(true, Ordering::SeqCst);
    let rerun = import(&mut engine, Distillation::Llm).unwrap();
    let context = format!("{rerun:#?}");
    assert_eq!(rerun.sources[0].known, 3, "{context}");
    assert_eq!((rerun.imported, rerun.failed), (1, 0), "{context}");
    assert_eq!(rerun.llm_calls, 3, "{context}");
    assert_eq!(rerun.frames.events, 1, "{context}");
    assert_eq!(
        rerun.frames.raw_turns, 0,
        "the raw turns are kept once: {context}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 10);
    let classify = pass_requests(wire, &requests[7..], Pass::Classify);
    assert_eq!(item_ids(&wire.prompt(&classify[0])), ["conv-event"]);
    let db = personal(dir.path());
    assert_eq!(outcomes(&db)["conv-event"], "imported");
    assert_eq!(trip_turns(&db), 2);
    assert_eq!(lane(&db, "[mind-event]").len(), 1);
    assert_eq!(interactions(&db).0, 10);
    drop(db);

    // And then there is nothing left to do.
    let third = import(&mut engine, Distillation::Llm).unwrap();
    assert!(third.sources[0].unchanged, "{third:#?}");
    assert_eq!(server.count(), 10);
}

// ---------------------------------------------------------------------------
// 3. No model
// ---------------------------------------------------------------------------

#[test]
fn auto_without_a_model_is_heuristic_and_llm_without_one_is_refused() {
    // auto: heuristic, with a note.
    let dir = data_dir();
    let mut engine = engine_with(capabilities(dir.path()));
    let report = import(&mut engine, Distillation::Auto).unwrap();
    assert_eq!(report.distillation, Distillation::Heuristic, "{report:#?}");
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("no language model") && n.contains("heuristically")),
        "{:#?}",
        report.notes
    );
    assert_eq!(report.llm_calls, 0);
    assert_eq!(report.frames.raw_turns, 8);
    assert_eq!(report.failed, 0);
    let db = personal(dir.path());
    assert_eq!(interactions(&db).0, 0);
    drop(db);

    // llm: a clear invalid-input error, and nothing written.
    let dir = data_dir();
    let mut engine = engine_with(capabilities(dir.path()));
    let error = import(&mut engine, Distillation::Llm).unwrap_err();
    match &error {
        EngineError::Harvest(HarvestError(HarvestWitError::InvalidArgument(message))) => {
            assert!(
                message.contains("distillation `llm`") && message.contains("no language model"),
                "{message}"
            );
        }
        other => panic!("expected invalid-input, got {other:?}"),
    }
    // No frame, no item record, no model call. (The mind file exists and
    // holds a `harvest_sources` row for the export: `start` records the
    // source before the first step finds there is no model. Reported, not
    // asserted either way.)
    let path = dir.path().join("personal.sqlite");
    if path.exists() {
        let db = personal(dir.path());
        assert!(frames(&db).is_empty(), "{:#?}", frames(&db));
        assert!(outcomes(&db).is_empty());
        assert_eq!(interactions(&db).0, 0);
    }
}

// ---------------------------------------------------------------------------
// 4. The MCP harvest tools
// ---------------------------------------------------------------------------

use crate::support::mcp_call as call;

fn structured(result: &rmcp::model::CallToolResult) -> Json {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result.structured_content.clone().unwrap()
}

/// The message of a refused call: a tool result marked `isError`.
fn tool_error(result: Result<rmcp::model::CallToolResult, ServiceError>) -> String {
    match result {
        Ok(result) if result.is_error == Some(true) => {
            result.content[0].as_text().unwrap().text.clone()
        }
        other => panic!("expected a tool result with isError: true, got {other:?}"),
    }
}

fn write_file(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_harvest_tools() {
    let dir = data_dir();
    let files = data_dir();
    // A page on loopback: the fetch policy must refuse it before asking.
    let page = MockServer::start(|_| Reply {
        status: 200,
        headers: Vec::new(),
        body: "<html><body><p>private</p></body></html>".to_string(),
    });
    let engine =
        engine_with(capabilities(dir.path()).with_fetch(Fetcher::new(FetchPolicy::default())));
    // The agent may read the files folder (`[mcp] import_roots`).
    let config = hive_mind_host::mcp::config::McpConfig {
        import_roots: vec![files.path().to_path_buf()],
        ..Default::default()
    };
    let server = MemoryServer::with_config(engine, config);
    let session = crate::support::McpSession::serve(server).await;
    let client = session.client();

    let tools = client.list_all_tools().await.unwrap();
    for expected in ["harvest_import", "harvest_sources", "ingest_source"] {
        assert!(
            tools.iter().any(|tool| tool.name == expected),
            "{expected} missing"
        );
    }

    // data: imported, a report with frames (no model here: heuristic).
    let data = String::from_utf8(export()).unwrap();
    let imported = client
        .call_tool(call("harvest_import", json!({"data": data})))
        .await
        .unwrap();
    let report = structured(&imported);
    assert_eq!(report["mind"], "personal", "{report:#}");
    assert_eq!(report["distillation"], "heuristic", "{report:#}");
    assert_eq!(report["items"], 4, "{report:#}");
    assert_eq!(report["sources"][0]["format"], "universal", "{report:#}");
    assert_eq!(report["frames"]["raw_turns"], 8, "{report:#}");
    assert_eq!(report["llm"]["calls"], 0, "{report:#}");
    assert!(
        report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("no language model")),
        "{report:#}"
    );

    // path and data together: refused, naming the rule.
    let notes = write_file(&files.path().join("notes/trip.md"), TRIP_NOTES);
    let error = tool_error(
        client
            .call_tool(call(
                "harvest_import",
                json!({"path": notes.display().to_string(), "data": "# x"}),
            ))
            .await,
    );
    assert!(
        error.contains("exactly one of path, data or url"),
        "{error}"
    );
    let error = tool_error(client.call_tool(call("harvest_import", json!({}))).await);
    assert!(
        error.contains("exactly one of path, data or url"),
        "{error}"
    );

    // A hidden path under the root: refused (and never read).
    let secret = write_file(
        &files.path().join(".secret/notes.md"),
        "# Keys\n\nThe vault password is hunter2.\n",
    );
    for tool in ["harvest_import", "ingest_source"] {
        let arguments = if tool == "harvest_import" {
            json!({"path": secret.display().to_string()})
        } else {
            json!({"source": secret.display().to_string()})
        };
        let error = tool_error(client.call_tool(call(tool, arguments)).await);
        assert!(error.contains("not allowed"), "{tool}: {error}");
    }

    // The sources so far: the pasted export.
    let sources = structured(
        &client
            .call_tool(call("harvest_sources", json!({})))
            .await
            .unwrap(),
    );
    assert_eq!(sources["mind"], "personal");
    let listed = sources["sources"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{sources:#}");
    assert_eq!(listed[0]["format"], "universal");
    assert_eq!(listed[0]["name"], "data");
    assert_eq!(listed[0]["items"], 4);
    assert_eq!(listed[0]["set_hash"].as_str().unwrap().len(), 64);

    // A loopback URL: refused by the fetch policy, the server never asked.
    let url = format!("{}/page.html", page.base);
    let error = tool_error(
        client
            .call_tool(call("ingest_source", json!({"source": url})))
            .await,
    );
    assert!(
        error.contains("refused by the host's policy") && error.contains("loopback"),
        "{error}"
    );
    assert_eq!(page.count(), 0);

    // A Markdown file: imported as document sections.
    let ingested = structured(
        &client
            .call_tool(call(
                "ingest_source",
                json!({"source": notes.display().to_string()}),
            ))
            .await
            .unwrap(),
    );
    assert_eq!(ingested["sources"][0]["format"], "markdown", "{ingested:#}");
    assert!(
        ingested["frames"]["documents"].as_u64().unwrap() >= 2,
        "{ingested:#}"
    );
    let sources = structured(
        &client
            .call_tool(call("harvest_sources", json!({})))
            .await
            .unwrap(),
    );
    let formats: Vec<&str> = sources["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats.len(), 2, "{sources:#}");
    assert!(formats.contains(&"markdown") && formats.contains(&"universal"));

    // The same export pasted again writes nothing.
    let again = structured(
        &client
            .call_tool(call("harvest_import", json!({"data": data})))
            .await
            .unwrap(),
    );
    assert_eq!(again["sources"][0]["unchanged"], true, "{again:#}");
    assert_eq!(again["frames"]["raw_turns"], 0, "{again:#}");

    session.close().await;
    let db = personal(dir.path());
    assert!(
        !frames(&db).iter().any(|f| f.content.contains("hunter2")),
        "a hidden file reached the mind"
    );
}

const TRIP_NOTES: &str = "---\ntitle: Trip notes\n---\n\n# Lisbon\n\nThe hotel is near the river, and RustConf is a short walk away.\n\n# Porto\n\nTake the morning train back to Porto on Friday.\n";

// ---------------------------------------------------------------------------
// The wiki's synthesis
// ---------------------------------------------------------------------------

/// The references a synthesis prompt lists (`[personal:3] 2025-…: …`).
fn listed_references(prompt: &str) -> Vec<String> {
    prompt
        .lines()
        .filter_map(|line| line.strip_prefix('['))
        .filter_map(|line| line.split_once(']'))
        .map(|(reference, _)| reference.to_string())
        .collect()
}

#[test]
fn a_wiki_page_opens_with_the_models_synthesis_citing_its_statements() {
    use hive_mind_runtime::engine::wit_memory::MemoryInput;
    let server = MockServer::start(|seen: &Seen| {
        let system = Wire::Openai.system(seen);
        assert!(
            system.starts_with("You write the opening paragraph"),
            "{system}"
        );
        let references = listed_references(&Wire::Openai.prompt(seen));
        let (newest, older) = (&references[0], &references[1]);
        let text = format!(
            "Alice works as an architect in Madrid. [{newest}] She designed a library \
             in Porto [{older}]. She surely loves her job. She owns a boat [personal:999]."
        );
        Reply::json(&Wire::Openai.answer(CAPABLE_MODEL, &text, (120, 40)))
    });
    let dir = data_dir();
    let mut engine = llm_engine(dir.path(), Wire::Openai, &server, 0);
    let save = |engine: &mut EngineRuntime, content: &str, at: i64| {
        engine
            .save_memory(&MemoryInput {
                content: content.to_string(),
                importance: None,
                source: None,
                mind: Mind::Personal,
                created_at: Some(at),
                kind: None,
            })
            .unwrap()
    };
    save(
        &mut engine,
        "My sister Alice designed a library in Porto.",
        1_735_689_600_000,
    );
    save(
        &mut engine,
        "My sister Alice works as an architect in Madrid.",
        1_751_328_000_000,
    );
    let pages = engine.wiki().list_pages(&Mind::Personal, 50).unwrap();
    let alice = pages
        .iter()
        .find(|page| page.title == "Alice")
        .unwrap_or_else(|| panic!("no page for Alice: {pages:?}"))
        .slug
        .clone();

    let page = engine.wiki().get_page(&Mind::Personal, &alice).unwrap();
    let synthesis = page.synthesis.clone().expect("a synthesis");
    assert!(
        synthesis
            .text
            .starts_with("Alice works as an architect in Madrid."),
        "{}",
        synthesis.text
    );
    assert!(
        !synthesis.text.contains("surely"),
        "an uncited sentence is dropped: {}",
        synthesis.text
    );
    assert!(
        !synthesis.text.contains("boat"),
        "a sentence citing no statement of the page is dropped: {}",
        synthesis.text
    );
    let on_page: Vec<u64> = page.current.iter().map(|frame| frame.ref_.id).collect();
    assert_eq!(synthesis.sources.len(), 2);
    assert!(
        synthesis
            .sources
            .iter()
            .all(|source| on_page.contains(&source.id))
    );
    assert_eq!(synthesis.model, CAPABLE_MODEL);
    assert!(
        page.markdown.contains("> Alice works as an architect"),
        "{}",
        page.markdown
    );
    assert_eq!(server.count(), 1);

    // Read again: kept, not asked again.
    let again = engine.wiki().get_page(&Mind::Personal, &alice).unwrap();
    assert_eq!(
        again.synthesis.map(|kept| (kept.text, kept.written_at)),
        Some((synthesis.text.clone(), synthesis.written_at))
    );
    assert_eq!(server.count(), 1);

    // A new statement changes the page: written again.
    save(
        &mut engine,
        "My sister Alice plays the cello.",
        1_760_000_000_000,
    );
    let changed = engine.wiki().get_page(&Mind::Personal, &alice).unwrap();
    assert!(changed.synthesis.is_some());
    assert_eq!(server.count(), 2);
    let calls = engine
        .review()
        .read_log(
            &Mind::Personal,
            hive_mind_runtime::engine::wit_review::LogKind::AiInteractions,
            10,
            None,
        )
        .unwrap();
    assert_eq!(
        calls
            .iter()
            .filter(|row| row.action == "wiki-synthesis")
            .count(),
        2,
        "{calls:?}"
    );

    // Without a model the page is whole, with no synthesis.
    let offline_dir = data_dir();
    let mut offline = engine_with(capabilities(offline_dir.path()));
    save(
        &mut offline,
        "My sister Alice designed a library in Porto.",
        1_735_689_600_000,
    );
    save(
        &mut offline,
        "My sister Alice works as an architect in Madrid.",
        1_751_328_000_000,
    );
    let pages = offline.wiki().list_pages(&Mind::Personal, 50).unwrap();
    let slug = &pages
        .iter()
        .find(|page| page.title == "Alice")
        .unwrap()
        .slug;
    let plain = offline.wiki().get_page(&Mind::Personal, slug).unwrap();
    assert!(plain.synthesis.is_none());
    assert_eq!(plain.current.len(), 2);
    assert!(
        !plain.markdown.contains("language model"),
        "{}",
        plain.markdown
    );
}
