//! `hive-mind hook`: memory that works by itself in coding agents.
//!
//! Claude Code runs a command at points of a session and hands it a JSON
//! object on stdin. `hive-mind hook claude-code` answers three of them:
//!
//! - **`UserPromptSubmit`** — recall for the prompt; the engine's recall
//!   block (already checked by its injection scan) is returned as
//!   `hookSpecificOutput.additionalContext`, within the token budget
//!   (`--budget`: the engine leaves out the lowest-ranked memories until
//!   the block fits, the recall's `max-tokens`). Nothing relevant,
//!   or a withheld block: nothing is printed, and the prompt goes on.
//! - **`Stop`** — the turn is over: the end of the transcript (read here,
//!   at most `TRANSCRIPT_TAIL_BYTES`) goes to the engine, whose Claude Code
//!   adapter reads its last exchange (`harvest.last-exchange`: the last user
//!   message and the assistant's text after it), and that exchange to the
//!   engine's `remember-exchange` (cognify), in the session's name. Through
//!   a server, both happen there (`POST /api/exchanges` with a
//!   `transcript`).
//! - **`SessionEnd`** — the session's transcript is imported with the
//!   Claude Code adapter (the engine skips what it already holds).
//!
//! A cold process pays for loading the engine and the embedder (seconds),
//! so the hook first asks a running `hive-mind serve` over loopback: its
//! address from `HIVE_MIND_SERVER` or from
//! `<data-dir>/server/serve-<pid>.json` (one per running server; a live
//! one is picked), its token from `HIVE_MIND_TOKEN` or
//! `<data-dir>/server/hook-token` (written by `hook install`). When no
//! server answers, it does the work alone. A hook never blocks the agent:
//! every failure is a line on stderr and exit status 0.
//!
//! `hive-mind hook gemini-cli` answers Gemini CLI's documented hooks the
//! same way: `BeforeAgent` (recall for `prompt`, returned as
//! `hookSpecificOutput.additionalContext`) and `AfterAgent` (cognify the
//! `prompt` and its `prompt_response`, which the event carries). Gemini
//! CLI's stdout must be JSON, so "nothing" is `{}`. Its session
//! transcripts are not in a format harvest reads, so there is no
//! end-of-session import for it.
//!
//! `hive-mind hook install claude-code` writes the three hooks into
//! Claude Code's settings (`--scope project`: `.claude/settings.json` of the
//! current folder; `--scope user`: `~/.claude/settings.json`), keeping
//! everything else in the file, showing the change as a diff, and changing
//! nothing when they are already there; `hook install gemini-cli` writes
//! its two into `.gemini/settings.json` the same way.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value as Json, json};

use crate::command_error::CommandError;
use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_harvest::{Input, SourceFormat};
use hive_mind_runtime::engine::wit_names::WitEnum;

/// The most of a hook's stdin read.
const MAX_PAYLOAD_BYTES: u64 = 1024 * 1024;

/// The most of a transcript's end read for the last exchange (what the
/// engine, or a server, takes for one).
const TRANSCRIPT_TAIL_BYTES: u64 = crate::limits::MAX_TRANSCRIPT_TAIL_BYTES as u64;

/// The largest transcript imported at the session's end.
const MAX_TRANSCRIPT_BYTES: u64 = 256 * 1024 * 1024;

/// A coding agent whose hooks are documented and answered here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Anthropic's Claude Code (`.claude/settings.json`).
    ClaudeCode,
    /// Google's Gemini CLI (`.gemini/settings.json`).
    GeminiCli,
}

impl Agent {
    /// The agent by the name `hook install` takes.
    pub fn from_name(name: &str) -> Result<Agent, String> {
        match name {
            "claude-code" => Ok(Agent::ClaudeCode),
            "gemini-cli" => Ok(Agent::GeminiCli),
            other => Err(format!(
                "unknown agent {other:?}: hooks are installed for claude-code or gemini-cli"
            )),
        }
    }

    /// Its name, as in `hive-mind hook <name>`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::GeminiCli => "gemini-cli",
        }
    }

    /// The folder of its settings (in a project or the home directory).
    fn settings_folder(self) -> &'static str {
        match self {
            Agent::ClaudeCode => ".claude",
            Agent::GeminiCli => ".gemini",
        }
    }

    /// The events the hooks are installed for.
    fn events(self) -> &'static [&'static str] {
        match self {
            Agent::ClaudeCode => &["UserPromptSubmit", "Stop", "SessionEnd"],
            Agent::GeminiCli => &["BeforeAgent", "AfterAgent"],
        }
    }

    /// A hook's time limit as its settings spell it (Claude Code: seconds;
    /// Gemini CLI: milliseconds).
    fn timeout(self) -> u64 {
        match self {
            Agent::ClaudeCode => 30,
            Agent::GeminiCli => 30_000,
        }
    }

    /// The hook's command after the program (what marks our entries).
    fn command(self) -> String {
        format!("hook {}", self.name())
    }
}

/// `hive-mind hook`'s subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum HookCommand {
    /// Answer a Claude Code hook (the event is read from stdin).
    ClaudeCode(HookOptions),
    /// Answer a Gemini CLI hook (the event is read from stdin).
    GeminiCli(HookOptions),
    /// Install the hooks into an agent's settings.
    Install {
        /// The agent: claude-code or gemini-cli.
        agent: String,
        /// project (`.claude/` or `.gemini/settings.json` here) or user
        /// (the same in the home directory).
        #[arg(long, default_value = "project")]
        scope: String,
        /// Show the change without writing it.
        #[arg(long)]
        dry_run: bool,
        /// The workspace whose mind the hooks use (default: personal).
        #[arg(long)]
        workspace: Option<String>,
    },
    /// Remove the hooks `install` added from an agent's settings (the
    /// agent's other settings and hooks are kept).
    Uninstall {
        /// The agent: claude-code or gemini-cli.
        agent: String,
        /// project or user, as installed.
        #[arg(long, default_value = "project")]
        scope: String,
        /// Show the change without writing it.
        #[arg(long)]
        dry_run: bool,
    },
}

/// What a hook run may be told.
#[derive(Debug, Clone, clap::Args)]
pub struct HookOptions {
    /// The most tokens of recalled context added to a prompt.
    #[arg(long, default_value_t = 1500)]
    pub budget: usize,
    /// The workspace whose mind is searched first and learns the
    /// workspace's facts.
    #[arg(long)]
    pub workspace: Option<String>,
    /// Never ask a server; work alone.
    #[arg(long)]
    pub no_server: bool,
}

/// Where the memory work goes: a running server, or an engine of our own.
enum Memory {
    Server { url: String, token: Option<String> },
    Alone(Box<EngineRuntime>),
}

fn read_trimmed(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The running server, if one answers its health check at once.
///
/// `HIVE_MIND_SERVER` names one; otherwise every server announced in
/// `<data-dir>/server/serve-<pid>.json` whose process is alive is tried,
/// the most recently started first, and the first to answer is used.
fn find_server(data_dir: &Path) -> Option<(String, Option<String>)> {
    let urls = match std::env::var("HIVE_MIND_SERVER") {
        Ok(url) if !url.trim().is_empty() => vec![url.trim().trim_end_matches('/').to_string()],
        _ => crate::serve::announced_servers(data_dir)
            .into_iter()
            .map(|announced| announced.url)
            .collect(),
    };
    let token = std::env::var("HIVE_MIND_TOKEN")
        .ok()
        .filter(|token| !token.trim().is_empty())
        .or_else(|| read_trimmed(&hook_token_path(data_dir)));
    let agent = client(Duration::from_millis(500));
    let url = urls
        .into_iter()
        .find(|url| agent.get(format!("{url}/api/health")).call().is_ok())?;
    Some((url, token))
}

/// Where `hook install` keeps the hook's token.
pub fn hook_token_path(data_dir: &Path) -> PathBuf {
    data_dir.join("server").join("hook-token")
}

fn client(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into()
}

/// A server's answer as JSON, or its problem's detail.
fn server_answer(
    response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<Json, String> {
    let mut response = response.map_err(|error| format!("the server did not answer: {error}"))?;
    let status = response.status();
    let body: Json = response
        .body_mut()
        .with_config()
        .limit(64 * 1024 * 1024)
        .read_json()
        .map_err(|error| format!("the server's answer is not JSON: {error}"))?;
    if status.is_success() {
        Ok(body)
    } else {
        Err(format!(
            "the server answered {status}: {}",
            body.get("detail").and_then(Json::as_str).unwrap_or("")
        ))
    }
}

/// Learn from an exchange with the engine of this process, as the owner;
/// how many memories were kept.
fn learn_alone(
    engine: &mut hive_mind_runtime::engine::EngineRuntime,
    request: crate::ops::exchange::ExchangeRequest,
) -> Result<usize, String> {
    let operation =
        crate::ops::exchange::Exchange::new(request, crate::ops::WritePolicy::COMMAND_LINE)
            .map_err(|error| error.to_string())?;
    crate::ops::execute(engine, &crate::ops::Caller::Owner, operation)
        .map(|saved| saved.len())
        .map_err(|error| error.to_string())
}

impl Memory {
    fn open(data_dir: &Path, options: &HookOptions) -> Result<Memory, String> {
        if !options.no_server
            && let Some((url, token)) = find_server(data_dir)
        {
            return Ok(Memory::Server { url, token });
        }
        hive_mind_runtime::engine::open(data_dir)
            .map(|engine| Memory::Alone(Box::new(engine)))
            .map_err(|error| error.to_string())
    }

    /// A POST to the server (none when working alone).
    fn post(&self, path: &str) -> Option<ureq::RequestBuilder<ureq::typestate::WithBody>> {
        let Memory::Server { url, token } = self else {
            return None;
        };
        let agent = client(Duration::from_secs(30));
        let mut request = agent.post(format!("{url}{path}"));
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        Some(request)
    }

    /// The recall block for `prompt` within `budget` tokens (the engine
    /// leaves out the lowest-ranked memories until it fits); empty when
    /// nothing is relevant or the block was withheld.
    fn recall(
        &mut self,
        prompt: &str,
        workspace: Option<&str>,
        budget: u32,
    ) -> Result<String, String> {
        let request = crate::ops::recall::RecallRequest {
            query: prompt.to_string(),
            workspace: workspace.map(str::to_string),
            max_tokens: Some(budget),
            ..crate::ops::recall::RecallRequest::default()
        };
        match self {
            Memory::Server { url, token } => {
                let agent = client(Duration::from_secs(30));
                let query = serde_urlencoded::to_string(&request)
                    .map_err(|error| format!("the recall request: {error}"))?;
                let mut request = agent.get(format!("{url}/api/memory/search?{query}"));
                if let Some(token) = token {
                    request = request.header("Authorization", format!("Bearer {token}"));
                }
                let recall = server_answer(request.call())?;
                let withheld = recall.get("withheld").is_some_and(|why| !why.is_null());
                let found = recall
                    .get("memories")
                    .and_then(Json::as_array)
                    .is_some_and(|memories| !memories.is_empty());
                Ok(if found && !withheld {
                    recall
                        .get("text")
                        .and_then(Json::as_str)
                        .unwrap_or_default()
                        .to_string()
                } else {
                    String::new()
                })
            }
            Memory::Alone(engine) => {
                let operation = crate::ops::recall::RecallOperation::try_from(request)
                    .map_err(|error| error.to_string())?;
                let recall = crate::ops::execute(engine, &crate::ops::Caller::Owner, operation)
                    .map_err(|error| error.to_string())?;
                Ok(crate::ops::recall::prompt_block(&recall))
            }
        }
    }

    /// Learn from an exchange — given, or the last one of a Claude Code
    /// transcript's tail, which the engine reads (`harvest.last-exchange`),
    /// here or on the server; how many memories were kept (none while the
    /// last question is unanswered).
    fn learn_from(
        &mut self,
        request: crate::ops::exchange::ExchangeRequest,
    ) -> Result<usize, String> {
        match self {
            Memory::Server { .. } => {
                let post = self.post("/api/exchanges").ok_or("no server")?;
                let saved = server_answer(post.send_json(&request))?;
                Ok(saved.as_array().map_or(0, Vec::len))
            }
            Memory::Alone(engine) => learn_alone(engine, request),
        }
    }

    fn import_transcript(
        &mut self,
        path: &Path,
        workspace: Option<&str>,
    ) -> Result<String, String> {
        let bytes = crate::harvest_cli::read_document(path)
            .map_err(|error| error.to_string())?
            .bytes;
        if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_TRANSCRIPT_BYTES {
            return Err(format!("{} is too large to import", path.display()));
        }
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().to_string())
            .unwrap_or_else(|| "transcript.jsonl".to_string());
        let request = crate::ops::import::ImportRequest {
            source: Some(SourceFormat::ClaudeCode.wit_name().to_string()),
            mind: Some(
                if workspace.is_some() {
                    "workspace"
                } else {
                    "personal"
                }
                .to_string(),
            ),
            workspace: workspace.map(str::to_string),
            name: Some(name.clone()),
            ..crate::ops::import::ImportRequest::default()
        };
        match self {
            Memory::Server { .. } => {
                let query = serde_urlencoded::to_string(&request)
                    .map_err(|error| format!("the import request: {error}"))?;
                let post = self
                    .post(&format!("/api/imports?{query}"))
                    .ok_or("no server")?;
                let job = server_answer(post.send(&bytes[..]))?;
                Ok(format!(
                    "import job {} started on the server",
                    job.get("id").cloned().unwrap_or(Json::Null)
                ))
            }
            Memory::Alone(engine) => {
                let import = request
                    .import(crate::ops::WritePolicy::COMMAND_LINE)
                    .and_then(|import| import.admit(&crate::ops::Caller::Owner))
                    .map_err(|error| error.to_string())?;
                let input = Input::Document(hive_mind_runtime::engine::wit_harvest::Document {
                    name,
                    bytes,
                });
                let report = hive_mind_runtime::engine::import::run_job(
                    engine.as_mut(),
                    &[input],
                    import.options(),
                    &hive_mind_terminal::Progress::hidden(),
                )
                .map_err(|error| error.to_string())?;
                Ok(format!("imported {} items", report.imported))
            }
        }
    }
}

/// The end of a file, at most `TRANSCRIPT_TAIL_BYTES`, from a line start.
fn transcript_tail(path: &Path) -> Result<String, String> {
    let mut file =
        std::fs::File::open(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let length = file
        .metadata()
        .map_err(|error| format!("{}: {error}", path.display()))?
        .len();
    let start = length.saturating_sub(TRANSCRIPT_TAIL_BYTES);
    file.seek(SeekFrom::Start(start))
        .map_err(|error| format!("{}: {error}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(TRANSCRIPT_TAIL_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("{}: {error}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes).to_string();
    Ok(if start > 0 {
        // Drop the partial first line.
        text.split_once('\n')
            .map(|(_, rest)| rest.to_string())
            .unwrap_or_default()
    } else {
        text
    })
}

/// Run `work` on the running server, or alone when there is none; when
/// the server fails it (it refused the token, it went away), once more
/// alone, saying why on stderr.
fn with_memory<T>(
    data_dir: &Path,
    options: &HookOptions,
    work: impl Fn(&mut Memory) -> Result<T, String>,
) -> Result<T, String> {
    let mut memory = Memory::open(data_dir, options)?;
    match work(&mut memory) {
        Err(why) if matches!(memory, Memory::Server { .. }) => {
            eprintln!("hive-mind hook: the server failed ({why}); working alone");
            let mut alone = hive_mind_runtime::engine::open(data_dir)
                .map(|engine| Memory::Alone(Box::new(engine)))
                .map_err(|error| error.to_string())?;
            work(&mut alone)
        }
        other => other,
    }
}

/// Learn from one exchange (cut to the engine's caps: a refusal would lose
/// the turn), saying on stderr how many memories it kept.
fn learn(
    data_dir: &Path,
    options: &HookOptions,
    user: &str,
    assistant: &str,
    session: Option<&str>,
) -> Result<(), String> {
    let user = crate::limits::truncate_to("user", user);
    let assistant = crate::limits::truncate_to("assistant", assistant);
    let kept = with_memory(data_dir, options, |memory| {
        memory.learn_from(crate::ops::exchange::ExchangeRequest {
            user: Some(user.clone()),
            assistant: Some(assistant.clone()),
            workspace: options.workspace.clone(),
            session: session.map(str::to_string),
            ..crate::ops::exchange::ExchangeRequest::default()
        })
    })?;
    eprintln!("hive-mind: learned {kept} memories from the exchange");
    Ok(())
}

/// The recall context for a prompt event's answer (nothing when nothing
/// is relevant).
fn prompt_context(
    data_dir: &Path,
    options: &HookOptions,
    payload: &Json,
) -> Result<Option<String>, String> {
    let prompt = payload
        .get("prompt")
        .and_then(Json::as_str)
        .unwrap_or_default();
    if prompt.trim().is_empty() {
        return Ok(None);
    }
    let prompt = crate::limits::truncate_to("query", prompt);
    let budget = u32::try_from(options.budget).unwrap_or(u32::MAX);
    let block = with_memory(data_dir, options, |memory| {
        memory.recall(&prompt, options.workspace.as_deref(), budget)
    })?;
    Ok((!block.trim().is_empty()).then_some(block))
}

/// Answer one hook event of `agent` read from `payload`; what to print on
/// stdout (often nothing).
pub fn answer(
    agent: Agent,
    data_dir: &Path,
    options: &HookOptions,
    payload: &Json,
) -> Result<String, String> {
    let event = payload
        .get("hook_event_name")
        .and_then(Json::as_str)
        .unwrap_or_default();
    match agent {
        Agent::ClaudeCode => answer_claude_code(event, data_dir, options, payload),
        Agent::GeminiCli => answer_gemini_cli(event, data_dir, options, payload),
    }
}

/// The answer that adds `block` to the prompt of `event`, as both agents
/// read it.
fn additional_context(event: &str, block: &str) -> String {
    json!({
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": block}
    })
    .to_string()
}

/// Gemini CLI: `BeforeAgent` recalls for the prompt; `AfterAgent` learns
/// from the prompt and the final answer it carries. Its stdout must be
/// JSON, so "nothing" is `{}`.
fn answer_gemini_cli(
    event: &str,
    data_dir: &Path,
    options: &HookOptions,
    payload: &Json,
) -> Result<String, String> {
    match event {
        "BeforeAgent" => Ok(match prompt_context(data_dir, options, payload)? {
            Some(block) => additional_context(event, &block),
            None => "{}".to_string(),
        }),
        "AfterAgent" => {
            let text = |key: &str| {
                payload
                    .get(key)
                    .and_then(Json::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let (user, assistant) = (text("prompt"), text("prompt_response"));
            if user.trim().is_empty() || assistant.trim().is_empty() {
                return Ok("{}".to_string());
            }
            let session = payload.get("session_id").and_then(Json::as_str);
            learn(data_dir, options, &user, &assistant, session)?;
            Ok("{}".to_string())
        }
        other => Err(format!(
            "hive-mind hook gemini-cli answers BeforeAgent and AfterAgent, not {other:?}"
        )),
    }
}

/// Claude Code: `UserPromptSubmit`, `Stop`, `SessionEnd` (module docs).
fn answer_claude_code(
    event: &str,
    data_dir: &Path,
    options: &HookOptions,
    payload: &Json,
) -> Result<String, String> {
    let session = payload.get("session_id").and_then(Json::as_str);
    let transcript = payload
        .get("transcript_path")
        .and_then(Json::as_str)
        .filter(|path| !path.is_empty())
        .map(PathBuf::from);
    let workspace = options.workspace.as_deref();
    match event {
        "UserPromptSubmit" => Ok(match prompt_context(data_dir, options, payload)? {
            Some(block) => additional_context(event, &block),
            None => String::new(),
        }),
        "Stop" => {
            let Some(path) = transcript else {
                return Ok(String::new());
            };
            let tail = transcript_tail(&path)?;
            let kept = with_memory(data_dir, options, |memory| {
                memory.learn_from(crate::ops::exchange::ExchangeRequest {
                    transcript: Some(tail.clone()),
                    workspace: workspace.map(str::to_string),
                    session: session.map(str::to_string),
                    ..crate::ops::exchange::ExchangeRequest::default()
                })
            })?;
            eprintln!("hive-mind: learned {kept} memories from the exchange");
            Ok(String::new())
        }
        "SessionEnd" => {
            let Some(path) = transcript else {
                return Ok(String::new());
            };
            let outcome = with_memory(data_dir, options, |memory| {
                memory.import_transcript(&path, workspace)
            })?;
            eprintln!("hive-mind: {outcome}");
            Ok(String::new())
        }
        other => Err(format!(
            "hive-mind hook claude-code answers UserPromptSubmit, Stop and SessionEnd, not {other:?}"
        )),
    }
}

/// Run the hook: read stdin, answer, print. Never fails the agent.
pub fn run(agent: Agent, data_dir: &Path, options: &HookOptions) {
    let mut input = String::new();
    if let Err(error) = std::io::stdin()
        .take(MAX_PAYLOAD_BYTES)
        .read_to_string(&mut input)
    {
        eprintln!("hive-mind hook: could not read the event: {error}");
        return;
    }
    let payload: Json = match serde_json::from_str(&input) {
        Ok(payload) => payload,
        Err(error) => {
            eprintln!("hive-mind hook: the event is not JSON: {error}");
            return;
        }
    };
    match answer(agent, data_dir, options, &payload) {
        Ok(out) if !out.is_empty() => println!("{out}"),
        Ok(_) => {}
        Err(error) => eprintln!("hive-mind hook: {error}"),
    }
}

/// `settings` with `agent`'s hooks running `command`: an entry of ours
/// already there is replaced, anything else is kept as it is.
pub fn with_hooks(agent: Agent, settings: &Json, command: &str) -> Json {
    let mut settings = match settings {
        Json::Object(map) => map.clone(),
        _ => Map::new(),
    };
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Json::Object(Map::new()));
    if !hooks.is_object() {
        *hooks = Json::Object(Map::new());
    }
    if let Json::Object(hooks) = hooks {
        for event in agent.events() {
            let entries = hooks
                .entry(*event)
                .or_insert_with(|| Json::Array(Vec::new()));
            if !entries.is_array() {
                *entries = Json::Array(Vec::new());
            }
            if let Json::Array(entries) = entries {
                entries.retain(|entry| !is_ours(agent, entry));
                entries.push(json!({
                    "hooks": [{"type": "command", "command": command, "timeout": agent.timeout()}]
                }));
            }
        }
    }
    Json::Object(settings)
}

/// Whether a settings hook entry is one `install` wrote for `agent`.
fn is_ours(agent: Agent, entry: &Json) -> bool {
    entry
        .get("hooks")
        .and_then(Json::as_array)
        .is_some_and(|hooks| {
            hooks.iter().any(|hook| {
                hook.get("command")
                    .and_then(Json::as_str)
                    .is_some_and(|line| line.contains(&agent.command()))
            })
        })
}

/// `settings` without the hooks `install` wrote for `agent`: an event left
/// with no hook, and a `hooks` object left empty, go too; everything else
/// is kept as it was.
pub fn without_hooks(agent: Agent, settings: &Json) -> Json {
    let Json::Object(settings) = settings else {
        return settings.clone();
    };
    let mut settings = settings.clone();
    if let Some(Json::Object(hooks)) = settings.get_mut("hooks") {
        for event in agent.events() {
            if let Some(Json::Array(entries)) = hooks.get_mut(*event) {
                entries.retain(|entry| !is_ours(agent, entry));
                if entries.is_empty() {
                    hooks.remove(*event);
                }
            }
        }
        if hooks.is_empty() {
            settings.remove("hooks");
        }
    }
    Json::Object(settings)
}

/// A line diff of two texts (`-` removed, `+` added, two lines of context).
pub fn line_diff(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    // Longest common subsequence lengths of the suffixes, row-major.
    let width = new.len() + 1;
    let mut table = vec![0usize; (old.len() + 1) * width];
    let at = |table: &[usize], i: usize, j: usize| table.get(i * width + j).copied().unwrap_or(0);
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            let value = if old.get(i) == new.get(j) {
                at(&table, i + 1, j + 1) + 1
            } else {
                at(&table, i + 1, j).max(at(&table, i, j + 1))
            };
            if let Some(cell) = table.get_mut(i * width + j) {
                *cell = value;
            }
        }
    }
    let mut lines = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a == b => {
                lines.push(format!("  {a}"));
                i += 1;
                j += 1;
            }
            (Some(a), _) if j >= new.len() || at(&table, i + 1, j) >= at(&table, i, j + 1) => {
                lines.push(format!("- {a}"));
                i += 1;
            }
            (_, Some(b)) => {
                lines.push(format!("+ {b}"));
                j += 1;
            }
            (Some(a), None) => {
                lines.push(format!("- {a}"));
                i += 1;
            }
            (None, None) => break,
        }
    }
    // Keep changed lines with two lines of context.
    let changed: Vec<bool> = lines.iter().map(|line| !line.starts_with("  ")).collect();
    let near = |index: usize| {
        let from = index.saturating_sub(2);
        let to = (index + 2).min(changed.len().saturating_sub(1));
        (from..=to).any(|k| changed.get(k).copied().unwrap_or(false))
    };
    lines
        .iter()
        .enumerate()
        .filter(|(index, _)| near(*index))
        .map(|(_, line)| format!("{line}\n"))
        .collect()
}

/// Install the hooks for `agent`; a report of what changed.
pub fn install(
    data_dir: &Path,
    agent: &str,
    scope: &str,
    dry_run: bool,
    workspace: Option<&str>,
    data_dir_flag: bool,
) -> Result<String, CommandError> {
    let agent = Agent::from_name(agent).map_err(CommandError::Argument)?;
    let settings_path = settings_path(agent, scope)?;
    if let Some(id) = workspace {
        hive_mind_runtime::engine::convert::workspace(id).map_err(CommandError::Argument)?;
    }
    let program = std::env::current_exe()?;
    let quote = |text: &str| {
        if text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-:".contains(c))
        {
            text.to_string()
        } else {
            format!("'{}'", text.replace('\'', "'\\''"))
        }
    };
    let hook = agent.command();
    let mut command = format!("{} {hook}", quote(&program.to_string_lossy()));
    if data_dir_flag {
        command = format!(
            "{} --data-dir {} {hook}",
            quote(&program.to_string_lossy()),
            quote(&data_dir.to_string_lossy())
        );
    }
    if let Some(id) = workspace {
        command.push_str(&format!(" --workspace {id}"));
    }
    let mut report = rewrite_settings(&settings_path, dry_run, |old| {
        with_hooks(agent, old, &command)
    })?;
    if !dry_run {
        let token_path = hook_token_path(data_dir);
        if !token_path.exists() {
            let name = format!("hook-{}", std::process::id());
            let token = crate::tokens::create_token(
                &crate::tokens::tokens_path(data_dir),
                &name,
                crate::tokens::Scope::Write,
                &[crate::tokens::ALL_MINDS.to_string()],
            )
            .map_err(|error| CommandError::Argument(error.to_string()))?;
            crate::tokens::write_private(&token_path, token.as_bytes())?;
            report.push_str(&format!(
                "a token for the hooks ({name}, write scope) is in {}\n",
                token_path.display()
            ));
        }
    }
    report.push_str(
        "Recall is instant when a server runs: keep `hive-mind serve` running (for example \
         `systemd-run --user hive-mind serve`, or a login item); without one each hook loads \
         the engine itself (a few seconds a prompt).\n",
    );
    Ok(report)
}

/// `hive-mind hook uninstall`: remove the hooks `install` wrote from the
/// agent's settings, showing the change; the report to print.
pub fn uninstall(
    data_dir: &Path,
    agent: &str,
    scope: &str,
    dry_run: bool,
) -> Result<String, CommandError> {
    let agent = Agent::from_name(agent).map_err(CommandError::Argument)?;
    let settings_path = settings_path(agent, scope)?;
    if !settings_path.exists() {
        return Ok(format!(
            "{}: no such settings file; nothing to remove\n",
            settings_path.display()
        ));
    }
    let mut report = rewrite_settings(&settings_path, dry_run, |old| without_hooks(agent, old))?;
    let token_path = hook_token_path(data_dir);
    if token_path.exists() {
        report.push_str(&format!(
            "the hooks' token stays in {} (other agents' hooks may use it): `hive-mind token list` \
             shows it, `hive-mind token revoke` removes it\n",
            token_path.display()
        ));
    }
    Ok(report)
}

/// The settings file of `agent` at `scope` (`project`: here; `user`: the
/// home directory).
fn settings_path(agent: Agent, scope: &str) -> Result<PathBuf, CommandError> {
    let base = match scope {
        "project" => std::env::current_dir()?,
        "user" => dirs::home_dir()
            .ok_or_else(|| CommandError::Argument("no home directory".to_string()))?,
        other => {
            return Err(CommandError::Argument(format!(
                "unknown scope {other:?}: expected project or user"
            )));
        }
    };
    Ok(base.join(agent.settings_folder()).join("settings.json"))
}

/// Change the JSON settings file at `path` with `change`, showing the line
/// diff; nothing is written with `dry_run`, or when nothing changes. A
/// file that is not JSON is refused untouched.
fn rewrite_settings(
    path: &Path,
    dry_run: bool,
    change: impl FnOnce(&Json) -> Json,
) -> Result<String, CommandError> {
    let old_text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(error.into()),
    };
    let old: Json = if old_text.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(&old_text).map_err(|error| {
            CommandError::Argument(format!(
                "{} is not JSON ({error}); fix it first, nothing was changed",
                path.display()
            ))
        })?
    };
    let new = change(&old);
    let old_pretty = if old_text.trim().is_empty() {
        String::new()
    } else {
        serde_json::to_string_pretty(&old).unwrap_or_default()
    };
    let new_pretty = serde_json::to_string_pretty(&new).unwrap_or_default();
    let mut report = String::new();
    if old == new {
        report.push_str(&format!("{}: nothing to change\n", path.display()));
    } else {
        report.push_str(&format!("{}:\n", path.display()));
        report.push_str(&line_diff(&old_pretty, &new_pretty));
        if dry_run {
            report.push_str("(dry run: nothing written)\n");
        } else {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, format!("{new_pretty}\n"))?;
            report.push_str("written\n");
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installing_twice_changes_nothing_and_keeps_other_settings() {
        let old = json!({"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}});
        let agent = Agent::ClaudeCode;
        let once = with_hooks(agent, &old, "/bin/hive-mind hook claude-code");
        let twice = with_hooks(agent, &once, "/bin/hive-mind hook claude-code");
        assert_eq!(once, twice);
        assert_eq!(once["model"], "opus");
        let stop = once["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2, "the user's own Stop hook is kept");
        for event in agent.events() {
            assert!(
                once["hooks"][event]
                    .to_string()
                    .contains("hook claude-code")
            );
        }
        let moved = with_hooks(agent, &once, "/usr/local/bin/hive-mind hook claude-code");
        assert_eq!(
            moved["hooks"]["Stop"].as_array().unwrap().len(),
            2,
            "replaced, not added"
        );
    }

    #[test]
    fn uninstalling_removes_only_what_install_wrote() {
        let old = json!({"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}});
        let agent = Agent::ClaudeCode;
        let installed = with_hooks(agent, &old, "/bin/hive-mind hook claude-code");
        let gemini = with_hooks(
            Agent::GeminiCli,
            &installed,
            "/bin/hive-mind hook gemini-cli",
        );
        let removed = without_hooks(agent, &gemini);
        assert_eq!(
            without_hooks(Agent::GeminiCli, &removed),
            old,
            "the user's own hook and settings are all that is left"
        );
        assert!(!removed.to_string().contains("hook claude-code"));
        assert!(removed.to_string().contains("hook gemini-cli"));
        assert_eq!(
            without_hooks(agent, &json!({"model": "opus"})),
            json!({"model": "opus"})
        );
    }

    #[test]
    fn gemini_hooks_sit_beside_claude_code_ones_and_time_out_in_milliseconds() {
        let claude = with_hooks(Agent::ClaudeCode, &json!({}), "hm hook claude-code");
        let both = with_hooks(Agent::GeminiCli, &claude, "hm hook gemini-cli");
        assert_eq!(
            both["hooks"]["BeforeAgent"][0]["hooks"][0]["timeout"],
            30_000
        );
        assert_eq!(both["hooks"]["Stop"], claude["hooks"]["Stop"]);
        assert!(
            Agent::from_name("cursor")
                .unwrap_err()
                .contains("gemini-cli")
        );
    }

    #[test]
    fn the_diff_shows_added_and_removed_lines() {
        let diff = line_diff("a\nb\nc\n", "a\nB\nc\n");
        assert!(diff.contains("- b") && diff.contains("+ B"), "{diff}");
    }
}
