//! # The embedder benchmark (`hive-mind-lab bench embed`, `cargo bench --bench embed`)
//!
//! What it measures, on the in-process model in this process:
//!
//! - **load time**: read + SHA-256 verify + decode + rewrite + tract
//!   optimise/plan, the cost a process pays once;
//! - **throughput** in texts per second, for one text per call and for
//!   batches of 8, 32 and 128, at two lengths: a short sentence (~12 tokens)
//!   and a paragraph (~110 tokens);
//! - **the rewrite's effect**: the latency of one short sentence on the
//!   model as shipped versus rewritten (see [`hive_mind_models::onnx`]);
//! - **peak RSS** (`VmHWM` from `/proc/self/status`), before and after the
//!   un-rewritten model is loaded for the comparison.
//!
//! Each cell runs at least once and repeats until a minimum time has passed
//! (0.3 s with `--quick`, 2 s otherwise), and reports the mean. Release
//! builds only: a debug build of tract is an order of magnitude slower.

use std::fmt;
use std::time::{Duration, Instant};

use hive_mind_models::embedder::in_process::{InProcessEmbedder, LoadOptions, ModelSpec};
use hive_mind_models::embedder::{EmbedError, Embedder};
use hive_mind_models::onnx::ModelError;

/// Benchmark options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BenchOptions {
    /// Shorter runs, for a smoke check.
    pub quick: bool,
}

/// One measured cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// `short` or `paragraph`.
    pub length: &'static str,
    /// Texts per call (1 = one at a time).
    pub batch: usize,
    /// Mean token count of the texts, `[CLS]`/`[SEP]` included.
    pub tokens: f64,
    /// Texts embedded per second.
    pub texts_per_second: f64,
    /// Milliseconds per call.
    pub ms_per_call: f64,
}

/// The benchmark's results.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchReport {
    /// The model benchmarked.
    pub model: String,
    /// Load time with the rewrite.
    pub load: Duration,
    /// Load time of the model as shipped.
    pub load_unrewritten: Duration,
    /// Throughput cells.
    pub cells: Vec<Cell>,
    /// One short sentence, model as shipped (ms).
    pub single_ms_unrewritten: f64,
    /// One short sentence, rewritten (ms).
    pub single_ms_rewritten: f64,
    /// Peak RSS after the throughput runs (KiB), if known.
    pub peak_rss_kib: Option<u64>,
    /// Peak RSS at the end, with both models loaded (KiB), if known.
    pub peak_rss_both_kib: Option<u64>,
}

/// A benchmark that could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The model could not be loaded.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// Embedding failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
}

const SHORT: [&str; 8] = [
    "The deploy key lives in the vault.",
    "Sam prefers short answers and dark mode.",
    "We moved the standup to ten thirty on Mondays.",
    "The billing rewrite ships after the ledger migration.",
    "Postgres was chosen for its serializable transactions.",
    "Remind me to renew the TLS certificate in May.",
    "The staging cluster runs on three small nodes.",
    "Anna owns the onboarding flow and its tests.",
];

const PARAGRAPH: &str = "During the planning meeting the team agreed that the billing \
    rewrite should not start until the ledger migration is finished, because both touch the \
    same tables and running them together would make every failure ambiguous. Sam will write \
    the migration script this week, Anna will review it, and the rollout happens behind a \
    feature flag so that the old path stays available for a month. If the nightly \
    reconciliation shows any difference between the two ledgers, the flag is turned off and \
    the incident is written up before anyone tries again.";

fn texts(length: &str, count: usize, round: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            let n = round * count + i;
            match length {
                "short" => format!("{} (note {n})", SHORT[n % SHORT.len()]),
                _ => format!("{PARAGRAPH} (note {n})"),
            }
        })
        .collect()
}

/// Run `call` until `min` has passed (at least once); mean seconds per call.
fn time<F: FnMut(usize) -> Result<(), EmbedError>>(
    min: Duration,
    mut call: F,
) -> Result<f64, EmbedError> {
    // One warm-up call: tract plans per shape lazily.
    call(0)?;
    let started = Instant::now();
    let mut rounds = 0usize;
    while rounds == 0 || started.elapsed() < min {
        call(rounds + 1)?;
        rounds += 1;
    }
    Ok(started.elapsed().as_secs_f64() / rounds as f64)
}

/// `VmHWM` (peak resident set) of this process in KiB, on Linux.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Run the benchmark on the model described by `spec`.
pub fn run(spec: &ModelSpec, options: BenchOptions) -> Result<BenchReport, BenchError> {
    let min = if options.quick {
        Duration::from_millis(300)
    } else {
        Duration::from_secs(2)
    };
    let embedder = InProcessEmbedder::load(spec)?;
    let mut cells = Vec::new();
    for length in ["short", "paragraph"] {
        for batch in [1usize, 8, 32, 128] {
            let sample = texts(length, batch, 0);
            let tokens = embedder.tokenize(&sample)?;
            let mean_tokens =
                tokens.iter().map(|t| t.ids.len()).sum::<usize>() as f64 / batch as f64;
            let seconds = time(min, |round| {
                embedder.embed(&texts(length, batch, round)).map(|_| ())
            })?;
            cells.push(Cell {
                length,
                batch,
                tokens: mean_tokens,
                texts_per_second: batch as f64 / seconds,
                ms_per_call: seconds * 1000.0,
            });
        }
    }
    let single_ms_rewritten = time(min, |round| {
        embedder.embed(&texts("short", 1, round)).map(|_| ())
    })? * 1000.0;
    let peak_rss_one_model = peak_rss_kib();
    let unrewritten = InProcessEmbedder::load_with(
        spec,
        LoadOptions {
            rewrite: false,
            ..LoadOptions::default()
        },
    )?;
    let single_ms_unrewritten = time(min, |round| {
        unrewritten.embed(&texts("short", 1, round)).map(|_| ())
    })? * 1000.0;
    Ok(BenchReport {
        model: spec.name.clone(),
        load: embedder.load_time(),
        load_unrewritten: unrewritten.load_time(),
        cells,
        single_ms_unrewritten,
        single_ms_rewritten,
        peak_rss_kib: peak_rss_one_model,
        peak_rss_both_kib: peak_rss_kib(),
    })
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mib = |kib: Option<u64>| {
            kib.map_or_else(
                || "n/a".to_string(),
                |k| format!("{:.0} MiB", k as f64 / 1024.0),
            )
        };
        writeln!(f, "in-process embedder benchmark: {}", self.model)?;
        writeln!(
            f,
            "load (read + sha256 + rewrite + plan): {:.0} ms   (as shipped, no rewrite: {:.0} ms)",
            self.load.as_secs_f64() * 1000.0,
            self.load_unrewritten.as_secs_f64() * 1000.0
        )?;
        writeln!(
            f,
            "one short sentence: {:.1} ms rewritten vs {:.1} ms as shipped ({:.1}x)",
            self.single_ms_rewritten,
            self.single_ms_unrewritten,
            self.single_ms_unrewritten / self.single_ms_rewritten.max(f64::EPSILON)
        )?;
        writeln!(f)?;
        writeln!(f, "| length | tokens | batch | ms/call | texts/s |")?;
        writeln!(f, "|---|---:|---:|---:|---:|")?;
        for cell in &self.cells {
            writeln!(
                f,
                "| {} | {:.0} | {} | {:.1} | {:.1} |",
                cell.length, cell.tokens, cell.batch, cell.ms_per_call, cell.texts_per_second
            )?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "peak RSS: {} (one model loaded); {} (with the un-rewritten copy too)",
            mib(self.peak_rss_kib),
            mib(self.peak_rss_both_kib)
        )
    }
}
