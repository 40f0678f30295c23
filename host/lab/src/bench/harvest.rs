//! # `hive-mind-lab bench harvest`: what an import costs beyond embedding
//!
//! Generates a synthetic ChatGPT export (`conversations.json` with the
//! export's `mapping` tree, regenerated branches included) of N
//! conversations, imports it into a fresh mind through the engine's
//! harvest (heuristic distillation, no LLM), and reports items/s and
//! frames/s. Every text the engine sent to the embedder is recorded on the
//! way, then embedded again by the bare embedder in batches of the same
//! size: the ratio of the bare embedding time to the import's time is the
//! pipeline's efficiency (1.0 would mean the import costs nothing but its
//! embeddings; the goal is ≥ 0.85).
//!
//! With `--llm-items N` it also imports the first N conversations again
//! into another fresh mind with a loopback OpenAI-compatible server that
//! answers every prompt at once with a valid answer, and reports the
//! pipeline's own time per LLM call (the import's time minus its embedding
//! and minus the time inside the `llm` import, over the calls made).
//!
//! The generator is deterministic (seeded [`super::corpus::Rng`]); the data
//! in `../shared/bench` is never needed.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use serde_json::{Value as Json, json};

use super::corpus::{PEOPLE, PLACES, PROJECTS, Rng, TOOLS};
use hive_mind_models::embedder::{EmbedError, Embedded, Embedder, EmbedderInfo};
use hive_mind_runtime::engine::wit_harvest::{Distillation, Document, ImportOptions, Input};
use hive_mind_runtime::engine::wit_types::Mind;
use hive_mind_runtime::engine::{Capabilities, EngineError, EngineRuntime};
use hive_mind_terminal::Progress;

/// `hive-mind-lab bench harvest`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchHarvestArgs {
    /// Conversations in the synthetic export.
    #[arg(long, default_value_t = 1000)]
    pub conversations: usize,
    /// Also import this many conversations through a loopback LLM (0: skip).
    #[arg(long, default_value_t = 40)]
    pub llm_items: usize,
    /// The generator's seed.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The component could not be loaded.
    #[error(transparent)]
    Host(#[from] hive_mind_runtime::HostError),
    /// The embedder failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] hive_mind_models::config::ConfigError),
    /// A temporary directory or the loopback server could not be set up.
    #[error("could not set up the benchmark: {0}")]
    Io(#[from] std::io::Error),
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Option(String),
}

/// The figures.
#[derive(Debug, Clone, Serialize)]
pub struct HarvestBenchReport {
    /// The embedder.
    pub embedder: String,
    /// Conversations imported.
    pub items: u32,
    /// Frames written (all lanes).
    pub frames: u32,
    /// Raw-turn frames.
    pub raw_turns: u32,
    /// Fact, event and profile frames.
    pub lane_frames: u32,
    /// Size of the export.
    pub export_bytes: usize,
    /// The import's wall time.
    pub import_seconds: f64,
    /// Items per second.
    pub items_per_second: f64,
    /// Frames per second.
    pub frames_per_second: f64,
    /// Texts the engine embedded.
    pub embedded_texts: usize,
    /// Time inside the `embedder` import during the import.
    pub embed_seconds_in_import: f64,
    /// Time inside the `sqlite` import during the import.
    pub sql_seconds_in_import: f64,
    /// The bare embedder on the same texts, same batch size.
    pub bare_embed_seconds: f64,
    /// `bare_embed_seconds / import_seconds` (goal ≥ 0.85).
    pub efficiency: f64,
    /// The LLM run, when asked for.
    pub llm: Option<LlmBench>,
}

/// The loopback-LLM run.
#[derive(Debug, Clone, Serialize)]
pub struct LlmBench {
    /// Items imported.
    pub items: u32,
    /// LLM calls made.
    pub calls: u32,
    /// The import's wall time.
    pub import_seconds: f64,
    /// Time inside the `llm` import (HTTP to the loopback server included).
    pub llm_seconds: f64,
    /// Time inside the `embedder` import.
    pub embed_seconds: f64,
    /// `(import − llm − embed) / calls`, milliseconds: the pipeline's own
    /// cost per call (prompt building, answer validation, dedup, writes).
    pub overhead_ms_per_call: f64,
}

/// An embedder that records what it was asked to embed.
struct Recording {
    inner: Arc<dyn Embedder>,
    texts: Mutex<Vec<String>>,
}

impl Embedder for Recording {
    fn info(&self) -> EmbedderInfo {
        self.inner.info()
    }

    fn token_window(&self) -> u32 {
        self.inner.token_window()
    }

    fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError> {
        if let Ok(mut recorded) = self.texts.lock() {
            recorded.extend(texts.iter().cloned());
        }
        self.inner.embed_marked(texts)
    }
}

/// Sentences a user says, with placeholders (`{person}`, `{project}`,
/// `{tool}`, `{place}`, `{n}`): a mix of what the heuristic keeps
/// (preferences, decisions, dated events, profile statements) and chatter.
const USER_LINES: [&str; 14] = [
    "I prefer {tool} for anything that touches {project}, please keep that in mind.",
    "We decided to move {project} to {tool} next month.",
    "Yesterday I met {person} in {place} to talk about {project}.",
    "My name is {person} and I work at {project} Labs as a data engineer.",
    "I live in {place} with my two cats.",
    "Can you explain how {tool} handles backpressure?",
    "thanks, that helps!",
    "Last week {person} said the {project} migration took {n} hours.",
    "From now on, answer in short bullet points.",
    "What is the difference between {tool} and Kafka for event sourcing?",
    "Actually no, the deadline for {project} is in {n} days, not weeks.",
    "I'm allergic to peanuts, so skip recipes with them.",
    "hello",
    "Turns out the {project} outage was caused by a {tool} misconfiguration.",
];

/// The assistant's side: generic, longer answers.
const ASSISTANT_LINES: [&str; 6] = [
    "Sure. {tool} uses a pull-based model: consumers ask for batches, so a slow consumer never gets more than it can take. For {project}, set the batch size to {n} and watch the lag metric.",
    "Noted. I'll keep that in mind for future answers about {project}.",
    "Here is a short comparison: {tool} keeps an ordered log per partition and replays it on demand, while a queue deletes messages once they are acknowledged. For event sourcing the log is the natural fit, because the history is the source of truth and new read models can be built from it at any time.",
    "That sounds like a good plan. Moving {project} step by step lets you roll back if {tool} behaves differently under load.",
    "You're welcome!",
    "Got it: short bullet points from now on.",
];

fn fill(template: &str, rng: &mut Rng) -> String {
    let pick = |rng: &mut Rng, pool: &[&str]| (*rng.pick(pool).unwrap_or(&"x")).to_string();
    template
        .replace("{person}", &pick(rng, &PEOPLE))
        .replace("{project}", &pick(rng, &PROJECTS))
        .replace("{tool}", &pick(rng, &TOOLS))
        .replace("{place}", &pick(rng, &PLACES))
        .replace("{n}", &rng.between(2, 90).to_string())
}

fn node(
    id: &str,
    role: &str,
    text: &str,
    time: f64,
    parent: Option<&str>,
    children: &[String],
) -> Json {
    json!({
        "id": id,
        "message": {
            "id": id,
            "author": { "role": role, "metadata": {} },
            "create_time": time,
            "content": { "content_type": "text", "parts": [text] },
            "metadata": {},
        },
        "parent": parent,
        "children": children,
    })
}

/// A ChatGPT `conversations.json` of `conversations` conversations: each a
/// root system node, 2–8 exchanges, every fifth with a regenerated
/// assistant answer on a branch not followed by `current_node`.
pub fn generate_chatgpt_export(conversations: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    // 2024-01-01T00:00:00Z.
    let start = 1_704_067_200.0_f64;
    let mut out = Vec::with_capacity(conversations);
    for number in 0..conversations {
        let base = start + (number as f64) * 21_600.0 + rng.below(3600) as f64 + 0.25;
        let mut mapping = serde_json::Map::new();
        let root = format!("c{number}-root");
        let exchanges = rng.between(2, 8);
        let mut ids = vec![root.clone()];
        let mut texts = vec![(String::from("system"), String::new())];
        for turn in 0..exchanges {
            ids.push(format!("c{number}-u{turn}"));
            texts.push((
                "user".into(),
                fill(rng.pick(&USER_LINES).unwrap_or(&"hi"), &mut rng),
            ));
            ids.push(format!("c{number}-a{turn}"));
            texts.push((
                "assistant".into(),
                fill(rng.pick(&ASSISTANT_LINES).unwrap_or(&"ok"), &mut rng),
            ));
        }
        let branch = number % 5 == 0;
        for (index, id) in ids.iter().enumerate() {
            let parent = index.checked_sub(1).map(|p| ids[p].as_str());
            let mut children: Vec<String> = ids.get(index + 1).cloned().into_iter().collect();
            if branch && index == 1 {
                children.push(format!("c{number}-regen"));
            }
            let (role, text) = &texts[index];
            let time = base + index as f64 * 40.5;
            let value = if index == 0 {
                json!({ "id": id, "message": null, "parent": null, "children": children })
            } else {
                node(id, role, text, time, parent, &children)
            };
            mapping.insert(id.clone(), value);
        }
        if branch {
            let regen = format!("c{number}-regen");
            mapping.insert(
                regen.clone(),
                node(
                    &regen,
                    "assistant",
                    "An earlier draft of the answer.",
                    base + 60.0,
                    Some(&ids[1]),
                    &[],
                ),
            );
        }
        out.push(json!({
            "title": format!("Conversation {number}"),
            "create_time": base,
            "update_time": base + 600.0,
            "mapping": mapping,
            "current_node": ids.last(),
            "conversation_id": format!("00000000-0000-4000-8000-{number:012}"),
            "id": format!("00000000-0000-4000-8000-{number:012}"),
        }));
    }
    Json::Array(out).to_string()
}

fn options(distillation: Distillation) -> ImportOptions {
    ImportOptions {
        source: None,
        mind: Mind::Personal,
        distillation,
        dry_run: false,
    }
}

/// Run the benchmark with `embedder`.
pub fn run(
    args: &BenchHarvestArgs,
    embedder: Arc<dyn Embedder>,
    progress: &Progress,
) -> Result<HarvestBenchReport, BenchError> {
    if args.conversations == 0 {
        return Err(BenchError::Option(
            "--conversations must be at least 1".into(),
        ));
    }
    let export = generate_chatgpt_export(args.conversations, args.seed);
    let recording = Arc::new(Recording {
        inner: Arc::clone(&embedder),
        texts: Mutex::new(Vec::new()),
    });
    let dir = tempfile::tempdir()?;
    let capabilities = Capabilities::new(
        hive_mind_sqlite::DataDir::new(dir.path()),
        Ok(recording.clone() as Arc<dyn Embedder>),
        Arc::new(hive_mind_models::reranker::Unconfigured),
    );
    let mut engine = EngineRuntime::new(capabilities)?;
    let inputs = vec![Input::Document(Document {
        name: "conversations.json".into(),
        bytes: export.clone().into_bytes(),
    })];
    engine.take_timings();
    progress.note(&format!(
        "importing a synthetic ChatGPT export of {} conversations ({} KiB) …",
        args.conversations,
        export.len() / 1024
    ));
    let started = Instant::now();
    let report = hive_mind_runtime::engine::import::run_job(
        &mut engine,
        &inputs,
        &options(Distillation::Heuristic),
        progress,
    )?;
    let import = started.elapsed();
    let timings = engine.take_timings();
    let texts = recording
        .texts
        .lock()
        .map(|texts| texts.clone())
        .unwrap_or_default();
    progress.note(&format!(
        "embedding the same {} texts with the bare embedder …",
        texts.len()
    ));
    let started = Instant::now();
    for batch in texts.chunks(EMBED_BATCH) {
        embedder.embed(batch)?;
    }
    let bare = started.elapsed();
    let frames = &report.frames;
    let total_frames =
        frames.raw_turns + frames.facts + frames.events + frames.profiles + frames.documents;
    let llm = if args.llm_items > 0 {
        Some(run_llm(args, &export, Arc::clone(&embedder), progress)?)
    } else {
        None
    };
    Ok(HarvestBenchReport {
        embedder: embedder.info().to_string(),
        items: report.items,
        frames: total_frames,
        raw_turns: frames.raw_turns,
        lane_frames: frames.facts + frames.events + frames.profiles,
        export_bytes: export.len(),
        import_seconds: import.as_secs_f64(),
        items_per_second: f64::from(report.items) / import.as_secs_f64().max(1e-9),
        frames_per_second: f64::from(total_frames) / import.as_secs_f64().max(1e-9),
        embedded_texts: texts.len(),
        embed_seconds_in_import: timings.embed.as_secs_f64(),
        sql_seconds_in_import: timings.sql.as_secs_f64(),
        bare_embed_seconds: bare.as_secs_f64(),
        efficiency: bare.as_secs_f64() / import.as_secs_f64().max(1e-9),
        llm,
    })
}

/// The engine's embedding batch (`guest/engine-component/src/save.rs`).
const EMBED_BATCH: usize = 64;

fn run_llm(
    args: &BenchHarvestArgs,
    export: &str,
    embedder: Arc<dyn Embedder>,
    progress: &Progress,
) -> Result<LlmBench, BenchError> {
    let items: Vec<Json> = serde_json::from_str::<Vec<Json>>(export)
        .map_err(|error| std::io::Error::other(error.to_string()))?
        .into_iter()
        .take(args.llm_items)
        .collect();
    let export = Json::Array(items).to_string();
    let server = loopback::Server::start()?;
    let config = hive_mind_outbound::llm::LlmConfig {
        base_url: server.base_url(),
        ..hive_mind_outbound::llm::LlmConfig::for_provider(
            hive_mind_outbound::llm::ProviderKind::Openai,
        )
    };
    let client = hive_mind_outbound::llm::LlmClient::new(&config)
        .map_err(|error| std::io::Error::other(error.to_string()))?;
    let dir = tempfile::tempdir()?;
    let capabilities = Capabilities::new(
        hive_mind_sqlite::DataDir::new(dir.path()),
        Ok(embedder),
        Arc::new(hive_mind_models::reranker::Unconfigured),
    )
    .with_llm(Arc::new(client), "openai");
    let mut engine = EngineRuntime::new(capabilities)?;
    let inputs = vec![Input::Document(Document {
        name: "conversations.json".into(),
        bytes: export.into_bytes(),
    })];
    progress.note(&format!(
        "importing {} conversations through a loopback LLM …",
        args.llm_items
    ));
    engine.take_timings();
    let started = Instant::now();
    let report = hive_mind_runtime::engine::import::run_job(
        &mut engine,
        &inputs,
        &options(Distillation::Llm),
        progress,
    )?;
    let import = started.elapsed();
    let timings = engine.take_timings();
    let own = import
        .saturating_sub(timings.llm)
        .saturating_sub(timings.embed);
    Ok(LlmBench {
        items: report.items,
        calls: report.llm_calls,
        import_seconds: import.as_secs_f64(),
        llm_seconds: timings.llm.as_secs_f64(),
        embed_seconds: timings.embed.as_secs_f64(),
        overhead_ms_per_call: own.as_secs_f64() * 1000.0 / f64::from(report.llm_calls.max(1)),
    })
}

/// The report for people.
pub fn render(report: &HarvestBenchReport) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "harvest benchmark — embedder {}\n",
        report.embedder
    ));
    out.push_str(&format!(
        "  export            {} conversations, {} KiB\n",
        report.items,
        report.export_bytes / 1024
    ));
    out.push_str(&format!(
        "  frames written    {} ({} raw turns, {} fact/event/profile)\n",
        report.frames, report.raw_turns, report.lane_frames
    ));
    out.push_str(&format!(
        "  import            {:.2} s: {:.1} items/s, {:.1} frames/s\n",
        report.import_seconds, report.items_per_second, report.frames_per_second
    ));
    out.push_str(&format!(
        "  inside it         embedder {:.2} s, sqlite {:.2} s ({} texts embedded)\n",
        report.embed_seconds_in_import, report.sql_seconds_in_import, report.embedded_texts
    ));
    out.push_str(&format!(
        "  bare embedder     {:.2} s on the same texts\n",
        report.bare_embed_seconds
    ));
    out.push_str(&format!(
        "  efficiency        {:.2} (bare embedding time / import time; goal ≥ 0.85)\n",
        report.efficiency
    ));
    if let Some(llm) = &report.llm {
        out.push_str(&format!(
            "  loopback LLM      {} items, {} calls in {:.2} s (llm {:.2} s, embedder {:.2} s): {:.2} ms of pipeline per call\n",
            llm.items, llm.calls, llm.import_seconds, llm.llm_seconds, llm.embed_seconds, llm.overhead_ms_per_call
        ));
    }
    out
}

/// `hive-mind-lab bench harvest`.
pub fn command(
    args: &BenchHarvestArgs,
    data_dir: &std::path::Path,
    out: &mut dyn Write,
) -> Result<(), BenchError> {
    let config = hive_mind_models::config::Config::load_in(data_dir)?;
    let active = hive_mind_models::embedder::resolve(&config.embedder)?;
    if active.info.is_mock() {
        eprintln!("warning: the MOCK embedder is active; the efficiency figure means little");
    }
    let progress = Progress::new(0, "items", args.quiet || args.json);
    let report = run(args, active.embedder, &progress);
    progress.finish();
    let report = report?;
    Ok(super::write_report(&report, args.json, render, out)?)
}

/// A loopback OpenAI-compatible server answering every harvest prompt at
/// once with a valid answer (for the pipeline's per-call overhead).
mod loopback {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};

    use serde_json::{Value as Json, json};

    /// The server; it stops with the process.
    pub struct Server {
        port: u16,
    }

    impl Server {
        /// Listen on 127.0.0.1 on a free port, answering on a thread.
        pub fn start() -> std::io::Result<Server> {
            let listener = TcpListener::bind("127.0.0.1:0")?;
            let port = listener.local_addr()?.port();
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    std::thread::spawn(move || {
                        let _ = serve(stream);
                    });
                }
            });
            Ok(Server { port })
        }

        /// `http://127.0.0.1:PORT/v1`.
        pub fn base_url(&self) -> String {
            format!("http://127.0.0.1:{}/v1", self.port)
        }
    }

    fn serve(stream: TcpStream) -> std::io::Result<()> {
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut writer = stream;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let mut length = 0usize;
            loop {
                let mut header = String::new();
                reader.read_line(&mut header)?;
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body)?;
            let request: Json = serde_json::from_slice(&body).unwrap_or(Json::Null);
            let prompt = request["messages"]
                .as_array()
                .and_then(|messages| messages.last())
                .and_then(|message| message["content"].as_str())
                .unwrap_or("");
            let system = request["messages"][0]["content"].as_str().unwrap_or("");
            let answer = super::fake_answer(system, prompt);
            let response = json!({
                "id": "bench",
                "object": "chat.completion",
                "model": request["model"],
                "choices": [{ "index": 0, "finish_reason": "stop",
                              "message": { "role": "assistant", "content": answer } }],
                "usage": { "prompt_tokens": prompt.len() / 4, "completion_tokens": answer.len() / 4 },
            })
            .to_string();
            write!(
                writer,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{response}",
                response.len()
            )?;
            writer.flush()?;
        }
    }
}

/// A valid answer to a harvest prompt, recognised by its instructions: the
/// classification of every id the prompt lists, or a small extraction or
/// synthesis. (Kept in step with `guest/harvest/src/distill/llm.rs`'s
/// prompts; the benchmark fails loudly, through the import's report, if it
/// drifts.)
fn fake_answer(system: &str, prompt: &str) -> String {
    if system.starts_with("You triage") {
        let mut items = Vec::new();
        let mut rest = prompt;
        while let Some(start) = rest.find("<item id=\"") {
            let after = &rest[start + "<item id=\"".len()..];
            let Some(end) = after.find('"') else { break };
            items.push(json!({ "id": &after[..end], "value": "medium", "domain": "work" }));
            rest = &after[end..];
        }
        return json!({ "items": items }).to_string();
    }
    // A statement that differs per prompt, so pass 4 keeps most of them.
    let tag = prompt.len() % 997;
    if system.starts_with("You extract") {
        return json!({
            "decisions": [], "facts": [], "knowledge": [], "events": [], "profiles": [],
            "preferences": [{ "text": format!("The user prefers option {tag} for this project."), "turn": 1 }],
            "entities": [], "relations": [],
        })
        .to_string();
    }
    json!({
        "knowledge": [{
            "target_layer": "fact",
            "text": format!("The user prefers option {tag} for this project."),
            "importance": "normal",
            "confidence": 0.8,
            "provenance": 1,
        }],
        "entities": [],
        "relations": [],
    })
    .to_string()
}
