//! `hive-mind-lab bench serve` and `bench hook`: the server under load, and
//! the hook's wall time per prompt.
//!
//! **serve** copies the recall benchmark's corpus (built once per size and
//! embedder), starts `hive-mind serve` on it (one process, or two on the
//! same data directory), and runs `clients` threads for `seconds`, each
//! mixing recalls (80 %, the corpus's own queries) and saves (20 %, new
//! memories from the generator) against the servers in turn. It prints the
//! throughput, the latency percentiles of each kind, the errors (any answer
//! but a success, or no answer), each server's peak memory, and whether
//! `hive-mind check` passes on the data directory afterwards. It stops by
//! itself: the clients stop at the deadline and the servers get SIGTERM.
//!
//! **hook** times `hive-mind hook claude-code` on a recorded
//! `UserPromptSubmit` payload, alternately with a running server and alone
//! (`--no-server`), on the same corpus.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::corpus::{generate_frames, generate_queries};
use super::recall::{
    BenchError, DEFAULT_SEED, RecallBenchOptions, default_corpus_dir, open_corpus,
};
use crate::timing::percentile;
use hive_mind_models::reranker::Unconfigured;
use hive_mind_terminal::Progress;

/// `hive-mind-lab bench serve`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchServeArgs {
    /// Memories in the corpus.
    #[arg(long, default_value_t = 10_000)]
    pub frames: usize,
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    pub clients: usize,
    /// How long the load runs, in seconds.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// Server processes on the one data directory (1 or 2).
    #[arg(long, default_value_t = 1)]
    pub servers: usize,
    /// Engine instances per server (default: the server's own default).
    #[arg(long)]
    pub engines: Option<usize>,
    /// The share of recalls, in percent (the rest are saves).
    #[arg(long, default_value_t = 80)]
    pub recall_percent: u64,
    /// The generator's seed.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
}

/// `hive-mind-lab bench hook`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchHookArgs {
    /// Memories in the corpus.
    #[arg(long, default_value_t = 10_000)]
    pub frames: usize,
    /// Prompts timed each way.
    #[arg(long, default_value_t = 10)]
    pub prompts: usize,
    /// The generator's seed.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
}

/// Latencies of one kind of request, in milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct KindFigures {
    /// Requests answered with a success.
    pub ok: usize,
    /// Median.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
}

/// The load test's figures.
#[derive(Debug, Clone, Serialize)]
pub struct ServeBenchReport {
    /// Memories in the corpus.
    pub frames: usize,
    /// The embedder.
    pub embedder: String,
    /// Server processes.
    pub servers: usize,
    /// Engines per server.
    pub engines: usize,
    /// Clients.
    pub clients: usize,
    /// Seconds the load ran.
    pub seconds: f64,
    /// Successful requests per second.
    pub throughput: f64,
    /// Recalls.
    pub recall: KindFigures,
    /// Saves.
    pub save: KindFigures,
    /// Requests not answered with a success (by status, or `transport`).
    pub errors: Vec<(String, usize)>,
    /// Each server's peak resident memory (MiB).
    pub server_peak_mib: Vec<f64>,
    /// Whether `hive-mind check` passed afterwards.
    pub check_passed: bool,
}

/// The hook's figures.
#[derive(Debug, Clone, Serialize)]
pub struct HookBenchReport {
    /// Memories in the corpus.
    pub frames: usize,
    /// Prompts timed each way.
    pub prompts: usize,
    /// Median wall time with a running server (ms).
    pub with_server_p50_ms: f64,
    /// 95th percentile with a server (ms).
    pub with_server_p95_ms: f64,
    /// Median wall time alone (ms).
    pub alone_p50_ms: f64,
    /// 95th percentile alone (ms).
    pub alone_p95_ms: f64,
    /// How many answers carried recalled context, each way.
    pub with_context: (usize, usize),
}

/// The `hive-mind` binary next to this one.
fn hive_mind_binary() -> Result<PathBuf, BenchError> {
    let exe = std::env::current_exe()?;
    let binary = exe.with_file_name("hive-mind");
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(BenchError::Option(format!(
            "{} is missing: build it with `cargo build --release -p hive-mind-host`",
            binary.display()
        )))
    }
}

/// A server process on an ephemeral port.
struct ServerProcess {
    child: Child,
    url: String,
}

impl ServerProcess {
    fn start(
        binary: &Path,
        dir: &Path,
        engines: Option<usize>,
    ) -> Result<ServerProcess, BenchError> {
        let mut command = Command::new(binary);
        command.arg("--data-dir").arg(dir).args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-auth",
            "--queue",
            "256",
        ]);
        if let Some(engines) = engines {
            command.arg("--engines").arg(engines.to_string());
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            BufReader::new(stdout).read_line(&mut line)?;
        }
        let url = line.trim().to_string();
        if !url.starts_with("http://") {
            let _ = child.kill();
            return Err(BenchError::Option(format!(
                "the server did not start (it said {url:?})"
            )));
        }
        Ok(ServerProcess { child, url })
    }

    /// Peak resident memory (MiB), from /proc.
    fn peak_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }

    /// SIGTERM, then wait; whether it stopped cleanly.
    fn stop(mut self) -> bool {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(180);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        false
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

fn figures(mut ms: Vec<f64>) -> KindFigures {
    ms.sort_by(f64::total_cmp);
    KindFigures {
        ok: ms.len(),
        p50_ms: percentile(&ms, 50.0),
        p95_ms: percentile(&ms, 95.0),
        p99_ms: percentile(&ms, 99.0),
    }
}

/// The corpus of `frames` memories for the configured embedder, copied
/// into a fresh directory under `work`.
fn corpus_copy(
    frames: usize,
    seed: u64,
    data_dir: &Path,
    work: &Path,
) -> Result<(PathBuf, String), BenchError> {
    let config = hive_mind_models::config::Config::load_in(data_dir)?;
    let active = hive_mind_models::embedder::resolve(&config.embedder)?;
    let name = active.info.to_string();
    let corpus_dir = default_corpus_dir(frames, &active.info.model);
    let embedder = active.embedder;
    let options = RecallBenchOptions {
        frames,
        queries: 1,
        corpus_dir: corpus_dir.clone(),
        seed,
        rerank: None,
    };
    let generated = generate_frames(frames, seed);
    let progress = Progress::new(frames as u64, "memories", false);
    let (engine, _, _) = open_corpus(
        &options,
        &generated,
        embedder,
        Arc::new(Unconfigured),
        &progress,
    )?;
    drop(engine);
    progress.finish();
    let mind = work.join("mind");
    super::governance::copy_mind(&corpus_dir, &mind)?;
    Ok((mind, name))
}

/// Run the load test.
pub fn run_serve(args: &BenchServeArgs, data_dir: &Path) -> Result<ServeBenchReport, BenchError> {
    if !(1..=2).contains(&args.servers) || args.clients == 0 || args.seconds == 0 {
        return Err(BenchError::Option(
            "--servers is 1 or 2; --clients and --seconds at least 1".into(),
        ));
    }
    let binary = hive_mind_binary()?;
    let work = tempfile::tempdir()?;
    let (mind, embedder) = corpus_copy(args.frames, args.seed, data_dir, work.path())?;
    let frames = generate_frames(args.frames, args.seed);
    let queries: Arc<Vec<String>> = Arc::new(
        generate_queries(&frames, 500, args.seed)
            .into_iter()
            .map(|query| query.text)
            .collect(),
    );
    let saves: Arc<Vec<String>> = Arc::new(
        generate_frames(20_000, args.seed.wrapping_add(1))
            .into_iter()
            .map(|frame| frame.content)
            .collect(),
    );
    let servers = (0..args.servers)
        .map(|_| ServerProcess::start(&binary, &mind, args.engines))
        .collect::<Result<Vec<_>, _>>()?;
    let urls: Arc<Vec<String>> = Arc::new(servers.iter().map(|s| s.url.clone()).collect());
    let next_save = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);
    let recall_percent = args.recall_percent.min(100);
    let workers: Vec<_> = (0..args.clients)
        .map(|client| {
            let queries = Arc::clone(&queries);
            let saves = Arc::clone(&saves);
            let urls = Arc::clone(&urls);
            let next_save = Arc::clone(&next_save);
            std::thread::spawn(move || {
                let agent = agent();
                let mut rng = super::corpus::Rng::new(0x5eed ^ client as u64);
                let mut recalls = Vec::new();
                let mut saved = Vec::new();
                let mut errors: Vec<String> = Vec::new();
                let mut turn = client;
                while Instant::now() < deadline {
                    turn += 1;
                    let url = &urls[turn % urls.len()];
                    let is_recall = (rng.next_u64() % 100) < recall_percent;
                    let began = Instant::now();
                    let outcome = if is_recall {
                        let query = &queries[rng.below(queries.len())];
                        agent
                            .get(format!("{url}/api/memory/search"))
                            .query("query", query)
                            .call()
                    } else {
                        let index = next_save.fetch_add(1, Ordering::SeqCst) % saves.len();
                        agent.post(format!("{url}/api/memories")).send_json(
                            serde_json::json!({"mind": "personal", "content": saves[index]}),
                        )
                    };
                    let ms = began.elapsed().as_secs_f64() * 1000.0;
                    match outcome {
                        Ok(mut response) if response.status().is_success() => {
                            let _ = response.body_mut().read_to_vec();
                            if is_recall {
                                recalls.push(ms);
                            } else {
                                saved.push(ms);
                            }
                        }
                        Ok(response) => errors.push(response.status().as_u16().to_string()),
                        Err(_) => errors.push("transport".to_string()),
                    }
                }
                (recalls, saved, errors)
            })
        })
        .collect();
    let mut recalls = Vec::new();
    let mut saved = Vec::new();
    let mut errors: Vec<(String, usize)> = Vec::new();
    for worker in workers {
        let (r, s, e) = worker
            .join()
            .map_err(|_| BenchError::Option("a client thread failed".into()))?;
        recalls.extend(r);
        saved.extend(s);
        for error in e {
            match errors.iter_mut().find(|(kind, _)| *kind == error) {
                Some((_, count)) => *count += 1,
                None => errors.push((error, 1)),
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let server_peak_mib = servers.iter().map(ServerProcess::peak_mib).collect();
    for server in servers {
        server.stop();
    }
    let check_passed = Command::new(&binary)
        .arg("--data-dir")
        .arg(&mind)
        .arg("check")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|status| status.success())
        .unwrap_or(false);
    let ok = recalls.len() + saved.len();
    Ok(ServeBenchReport {
        frames: args.frames,
        embedder,
        servers: args.servers,
        engines: args
            .engines
            .unwrap_or_else(hive_mind_runtime::limits::default_engines),
        clients: args.clients,
        seconds,
        throughput: ok as f64 / seconds.max(1e-9),
        recall: figures(recalls),
        save: figures(saved),
        errors,
        server_peak_mib,
        check_passed,
    })
}

/// The load test's report for a person.
pub fn render_serve(report: &ServeBenchReport) -> String {
    let kind = |name: &str, f: &KindFigures| {
        format!(
            "  {name:<7} {:>6} ok   p50 {:>8.1} ms   p95 {:>8.1} ms   p99 {:>8.1} ms\n",
            f.ok, f.p50_ms, f.p95_ms, f.p99_ms
        )
    };
    let mut text = format!(
        "serve under load: {} memories ({}), {} server(s) × {} engines, {} clients, {:.0} s\n",
        report.frames,
        report.embedder,
        report.servers,
        report.engines,
        report.clients,
        report.seconds
    );
    text.push_str(&format!(
        "  throughput {:.1} requests/s\n",
        report.throughput
    ));
    text.push_str(&kind("recall", &report.recall));
    text.push_str(&kind("save", &report.save));
    let errors: usize = report.errors.iter().map(|(_, n)| n).sum();
    text.push_str(&format!("  errors  {errors} {:?}\n", report.errors));
    text.push_str(&format!(
        "  server peak memory {} MiB\n",
        report
            .server_peak_mib
            .iter()
            .map(|mib| format!("{mib:.0}"))
            .collect::<Vec<_>>()
            .join(" + ")
    ));
    text.push_str(&format!(
        "  check afterwards: {}\n",
        if report.check_passed {
            "passed"
        } else {
            "FAILED"
        }
    ));
    text
}

/// Run `hive-mind hook claude-code` once with `payload`; (ms, whether it
/// printed context).
fn time_hook(
    binary: &Path,
    mind: &Path,
    payload: &str,
    alone: bool,
) -> Result<(f64, bool), BenchError> {
    let started = Instant::now();
    let mut command = Command::new(binary);
    command
        .arg("--data-dir")
        .arg(mind)
        .args(["hook", "claude-code"]);
    if alone {
        command.arg("--no-server");
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(payload.as_bytes())?;
    }
    let output = child.wait_with_output()?;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok((
        ms,
        String::from_utf8_lossy(&output.stdout).contains("additionalContext"),
    ))
}

/// Time the hook with and without a server, interleaved.
pub fn run_hook(args: &BenchHookArgs, data_dir: &Path) -> Result<HookBenchReport, BenchError> {
    if args.prompts == 0 {
        return Err(BenchError::Option("--prompts must be at least 1".into()));
    }
    let binary = hive_mind_binary()?;
    let work = tempfile::tempdir()?;
    let (mind, _) = corpus_copy(args.frames, args.seed, data_dir, work.path())?;
    let frames = generate_frames(args.frames, args.seed);
    let queries = generate_queries(&frames, args.prompts, args.seed);
    let server = ServerProcess::start(&binary, &mind, Some(1))?;
    // The hook finds the server through HIVE_MIND_SERVER or the server's
    // announcement in the data directory (written at start).
    let mut with_server = Vec::new();
    let mut alone = Vec::new();
    let mut with_context = (0, 0);
    for query in &queries {
        let payload = serde_json::json!({
            "session_id": "bench",
            "transcript_path": "",
            "cwd": "/tmp",
            "hook_event_name": "UserPromptSubmit",
            "prompt": query.text,
        })
        .to_string();
        let (ms, context) = time_hook(&binary, &mind, &payload, false)?;
        with_server.push(ms);
        with_context.0 += usize::from(context);
        let (ms, context) = time_hook(&binary, &mind, &payload, true)?;
        alone.push(ms);
        with_context.1 += usize::from(context);
    }
    server.stop();
    with_server.sort_by(f64::total_cmp);
    alone.sort_by(f64::total_cmp);
    Ok(HookBenchReport {
        frames: args.frames,
        prompts: args.prompts,
        with_server_p50_ms: percentile(&with_server, 50.0),
        with_server_p95_ms: percentile(&with_server, 95.0),
        alone_p50_ms: percentile(&alone, 50.0),
        alone_p95_ms: percentile(&alone, 95.0),
        with_context,
    })
}

/// The hook's report for a person.
pub fn render_hook(report: &HookBenchReport) -> String {
    format!(
        "hook claude-code, UserPromptSubmit, {} memories, {} prompts each way (interleaved)\n  \
         with a running server: p50 {:.0} ms  p95 {:.0} ms  ({} with context)\n  \
         alone (--no-server):   p50 {:.0} ms  p95 {:.0} ms  ({} with context)\n",
        report.frames,
        report.prompts,
        report.with_server_p50_ms,
        report.with_server_p95_ms,
        report.with_context.0,
        report.alone_p50_ms,
        report.alone_p95_ms,
        report.with_context.1,
    )
}
