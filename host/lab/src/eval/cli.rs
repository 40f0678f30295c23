//! # `hive-mind-lab eval`: the commands and their printouts
//!
//! `hive-mind-lab eval timelines <files…>` and `hive-mind-lab eval live-loop
//! <file>` (the live-memory evaluations, [`super::timelines`] and
//! [`super::live_loop`]) read their data first the same way, resolve the same
//! embedder and reranker, and print a table or, with `--json`, the report
//! with every item's outcome.
//!
//! `hive-mind-lab eval locomo <path> [--k 1,5,10] [--json] [--samples N]
//! [--categories 1,2,3,4] [--no-floor]` reads the data set first (so a bad
//! file fails before a model is loaded), resolves the embedder the usual way
//! (the configuration and the provider chain; `HIVE_MIND_EMBEDDER=mock`
//! works, and is announced), runs [`super::run::evaluate`] with a progress
//! line per sample on standard error, and prints the report: a table, or
//! with `--json` one JSON object.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use std::sync::Arc;

use super::EvalError;
use super::live::WritePath;
use super::live_loop::Persona;
use super::locomo::Dataset;
use super::run::{EvalOptions, EvalReport, Reranking, Scores, evaluate};
use super::timelines::TimelineFile;
use crate::timing::{SPLIT_NOTE, split_label};
use hive_mind_models::config::{Config, ConfigError};
use hive_mind_models::embedder::{EmbedError, Embedder};
use hive_mind_terminal::Progress;

/// `hive-mind-lab eval`'s targets.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum EvalTarget {
    /// Retrieval quality on a LoCoMo-shaped data set: session- and
    /// turn-level recall@k per category, ingest rate, recall latency.
    Locomo(LocomoArgs),
    /// Changing facts written through save, cognify and import: is the
    /// newest statement recalled first, the stale one gone, and do two
    /// compatible statements both stay? (`timelines-*.jsonl`)
    Timelines(TimelinesArgs),
    /// One persona's memory written as an agent writes it, then questions
    /// of every kind: answer@1/3/10, MRR, facts kept from exchanges, empty
    /// answers to unanswerable questions. (`live-loop-*.json`)
    LiveLoop(LiveLoopArgs),
}

/// `hive-mind-lab eval timelines`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct TimelinesArgs {
    /// The data files (JSON Lines, `host/lab/data/README.md`); each gets its
    /// own minds, the figures are over all of them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The write paths to measure, comma-separated.
    #[arg(
        long = "write-paths",
        value_enum,
        value_delimiter = ',',
        default_value = "save,cognify,import"
    )]
    pub write_paths: Vec<WritePath>,
    /// Build each file's minds in this folder (new or empty) and keep them,
    /// one data directory per file and write path (`DIR/timelines-a-save`),
    /// to open afterwards with `hive-mind --data-dir`; by default they are
    /// built in temporary folders and removed.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Recall without the reranker (default: the configured one).
    #[arg(long)]
    pub no_rerank: bool,
    /// Print one JSON object instead of the tables (every item's outcome
    /// included).
    #[arg(long)]
    pub json: bool,
    /// No progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    pub quiet: bool,
}

/// `hive-mind-lab eval live-loop`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct LiveLoopArgs {
    /// The data file (one JSON object, `host/lab/data/README.md`).
    pub path: PathBuf,
    /// Build the persona's mind in this folder (new or empty) and keep it,
    /// to open afterwards with `hive-mind --data-dir DIR` (the page, the
    /// wiki); by default it is built in a temporary folder and removed.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Recall without the reranker (default: the configured one).
    #[arg(long)]
    pub no_rerank: bool,
    /// Print one JSON object instead of the table (every question's
    /// outcome included).
    #[arg(long)]
    pub json: bool,
    /// No progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    pub quiet: bool,
}

/// `hive-mind-lab eval locomo`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct LocomoArgs {
    /// The data set: a JSON list of samples in the LoCoMo shape.
    pub path: PathBuf,
    /// The cut-offs to report recall at, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,5,10")]
    pub k: Vec<usize>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Only the first N samples.
    #[arg(long)]
    pub samples: Option<usize>,
    /// The question categories to ask, comma-separated (LoCoMo: 1 multi-hop,
    /// 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4")]
    pub categories: Vec<u32>,
    /// Turn the relevance floor off (always return the top memories).
    #[arg(long)]
    pub no_floor: bool,
    /// Memories to recall per question (default: the largest k). Session
    /// recall@k ranks the distinct sessions of all of them; turn recall@k
    /// reads the top k.
    #[arg(long)]
    pub fetch: Option<u32>,
    /// Which runs to make with the reranker: `both` (off, then on), `off`
    /// or `on`. Each question is asked once per run; the mind is imported
    /// once. Without a reranker available, only the `off` run is made.
    #[arg(long, value_enum, default_value = "both")]
    pub rerank: RerankRuns,
    /// The rerank pools of the `on` runs, comma-separated (one run each;
    /// default: the engine's own pool): `--rerank-pool 5,10,20,40` draws the
    /// quality/latency curve.
    #[arg(long, value_delimiter = ',')]
    pub rerank_pool: Vec<u32>,
    /// No progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    pub quiet: bool,
}

/// `--rerank`: which runs to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RerankRuns {
    /// The reranker off, then on.
    Both,
    /// The reranker off only.
    Off,
    /// The reranker on only.
    On,
}

/// The rerank pools of the runs `runs` asks for (`Some(0)`: off; `None`: the
/// engine's default pool), given whether a reranker is available.
pub fn rerank_runs(runs: RerankRuns, pools: &[u32], available: bool) -> Vec<Option<u32>> {
    let on: Vec<Option<u32>> = if pools.is_empty() {
        vec![None]
    } else {
        pools.iter().map(|&pool| Some(pool)).collect()
    };
    match (runs, available) {
        (RerankRuns::Off, _) | (_, false) => vec![Some(0)],
        (RerankRuns::On, true) => on,
        (RerankRuns::Both, true) => std::iter::once(Some(0)).chain(on).collect(),
    }
}

/// What can go wrong in `hive-mind-lab eval`.
#[derive(Debug, thiserror::Error)]
pub enum EvalCliError {
    /// The evaluation failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No embedder.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The configured reranker could not be loaded.
    #[error("the reranker: {0}")]
    Reranker(#[from] hive_mind_models::onnx::ModelError),
    /// Writing the output failed.
    #[error("could not write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// Run `hive-mind-lab eval <target>`: the report on `out`, progress and
/// problems on `log`.
pub fn run(
    target: &EvalTarget,
    data_dir: &std::path::Path,
    out: &mut dyn Write,
    log: &mut dyn Write,
) -> Result<(), EvalCliError> {
    match target {
        EvalTarget::Locomo(args) => {
            let dataset = Dataset::load(&args.path)?;
            let (embedder, reranking) = models(data_dir, args.rerank != RerankRuns::Off, log)?;
            let options = EvalOptions {
                ks: args.k.clone(),
                categories: args.categories.iter().copied().collect(),
                samples: args.samples,
                no_floor: args.no_floor,
                fetch: args.fetch,
                rerank: rerank_runs(args.rerank, &args.rerank_pool, reranking.name.is_some()),
            };
            // The total is set by `evaluate`, which knows the samples chosen.
            let progress = Progress::new(0, "turns + questions", args.quiet);
            let reports = evaluate(&dataset, embedder, reranking, &options, &progress)?;
            let source = args.path.display().to_string();
            if args.json {
                let mut runs = Vec::new();
                for report in &reports {
                    let mut value = serde_json::to_value(report)
                        .map_err(|e| std::io::Error::other(e.to_string()))?;
                    if let Some(object) = value.as_object_mut() {
                        object.insert("dataset".into(), source.clone().into());
                    }
                    runs.push(value);
                }
                // One run: its report; several: `{"runs": [...]}`.
                let value = match <[serde_json::Value; 1]>::try_from(runs) {
                    Ok([one]) => one,
                    Err(runs) => serde_json::json!({ "runs": runs }),
                };
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&value)
                        .map_err(|e| std::io::Error::other(e.to_string()))?
                )?;
            } else {
                if let Some(report) = reports.first() {
                    for problem in &report.problems {
                        writeln!(log, "note: {problem}")?;
                    }
                }
                for report in &reports {
                    write!(out, "{}", render(report, &source))?;
                    writeln!(out)?;
                }
                if reports.len() > 1 {
                    write!(out, "{}", compare(&reports))?;
                }
            }
        }
        EvalTarget::Timelines(args) => {
            let files = args
                .paths
                .iter()
                .map(|path| TimelineFile::load(path))
                .collect::<Result<Vec<_>, _>>()?;
            let (embedder, reranking) = models(data_dir, !args.no_rerank, log)?;
            let progress = Progress::new(0, "statements + queries", args.quiet);
            let report = super::timelines::evaluate(
                &files,
                &args.write_paths,
                embedder,
                &reranking,
                &progress,
                args.keep.as_deref(),
            )?;
            if args.json {
                writeln!(out, "{}", to_json(&report)?)?;
            } else {
                for problem in &report.problems {
                    writeln!(log, "note: {problem}")?;
                }
                write!(out, "{}", super::timelines::render(&report))?;
            }
        }
        EvalTarget::LiveLoop(args) => {
            let persona = Persona::load(&args.path)?;
            let (embedder, reranking) = models(data_dir, !args.no_rerank, log)?;
            let progress = Progress::new(0, "events + questions", args.quiet);
            let report = super::live_loop::evaluate(
                &persona,
                embedder,
                &reranking,
                &progress,
                args.keep.as_deref(),
            )?;
            if args.json {
                writeln!(out, "{}", to_json(&report)?)?;
            } else {
                for problem in &report.problems {
                    writeln!(log, "note: {problem}")?;
                }
                write!(out, "{}", super::live_loop::render(&report))?;
            }
        }
    }
    Ok(())
}

/// The embedder the configuration (and the environment) chooses, and the
/// configured reranker when `rerank` (else none); the mock embedder and a
/// missing reranker are announced on `log`.
fn models(
    data_dir: &std::path::Path,
    rerank: bool,
    log: &mut dyn Write,
) -> Result<(Arc<dyn Embedder>, Reranking), EvalCliError> {
    let config = Config::load_in(data_dir)?;
    let active = hive_mind_models::embedder::resolve(&config.embedder)?;
    if active.info.is_mock() {
        writeln!(
            log,
            "warning: the MOCK embedder is active; vector similarity means nothing"
        )?;
    }
    let reranking = if rerank {
        let loaded = hive_mind_models::reranker::load(&config.reranker)?;
        if let Some(why) = &loaded.missing {
            writeln!(log, "note: no reranker: {why}")?;
        }
        Reranking {
            reranker: loaded.reranker,
            name: loaded.name,
        }
    } else {
        Reranking::none()
    };
    Ok((active.embedder, reranking))
}

/// A report as pretty JSON.
fn to_json(report: &impl serde::Serialize) -> Result<String, std::io::Error> {
    serde_json::to_string_pretty(report).map_err(|e| std::io::Error::other(e.to_string()))
}

fn percent(value: f64) -> String {
    format!("{:.1}", value * 100.0)
}

fn row(text: &mut String, scores: &Scores) {
    let label = match scores.category {
        Some(category) => format!("{category} {}", scores.name),
        None => "all".to_string(),
    };
    let _ = write!(text, "{label:<16}{:>6}", scores.n);
    for at in &scores.at {
        let _ = write!(text, "{:>8}", percent(at.session));
    }
    for at in &scores.at {
        let _ = write!(text, "{:>8}", percent(at.turn));
    }
    let _ = writeln!(text, "{:>8}", scores.no_evidence);
}

/// The report as a readable table.
pub fn render(report: &EvalReport, source: &str) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "LoCoMo-style retrieval evaluation: {source}");
    let _ = writeln!(
        text,
        "embedder {}, reranker {}, relevance floor {}, categories {}, {} samples",
        report.embedder,
        report.reranker,
        report.floor,
        report
            .categories
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(","),
        report.samples
    );
    let ingest = &report.ingest;
    let _ = writeln!(
        text,
        "ingest: {} turns in {} sessions, {:.1} s = {:.1} turns/s (written {}, duplicates {}, rejected by the injection scan {}, skipped {}; closed by a later turn {})",
        ingest.turns,
        ingest.sessions,
        ingest.seconds,
        ingest.turns_per_second,
        ingest.written,
        ingest.duplicates,
        ingest.rejected,
        ingest.skipped,
        ingest.closed
    );
    let q = &report.questions;
    let _ = writeln!(
        text,
        "questions: {} asked, {} scored, {} without valid evidence (excluded), {} failed; \
         {} recalls returned nothing, {} withheld",
        q.asked, q.scored, q.no_valid_evidence, q.failed, q.empty, q.withheld
    );
    let _ = writeln!(
        text,
        "evidence ids: {} malformed, {} naming missing turns (see the notes)\n",
        q.malformed_evidence, q.missing_evidence
    );
    let _ = write!(text, "{:<16}{:>6}", "category", "n");
    for k in &report.ks {
        let _ = write!(text, "{:>8}", format!("S@{k}"));
    }
    for k in &report.ks {
        let _ = write!(text, "{:>8}", format!("T@{k}"));
    }
    let _ = writeln!(text, "{:>8}", "no-ev");
    for scores in &report.per_category {
        row(&mut text, scores);
    }
    row(&mut text, &report.overall);
    let _ = writeln!(
        text,
        "(S@k: session-level recall@k, % of questions; T@k: turn-level evidence recall@k, mean %; \
         no-ev: questions excluded for having no valid evidence)\n"
    );
    let latency = &report.latency;
    let _ = writeln!(
        text,
        "recall latency over {} recalls: p50 {:.1} ms, p95 {:.1} ms, mean {:.1} ms",
        latency.recalls, latency.p50_ms, latency.p95_ms, latency.mean_ms
    );
    let _ = writeln!(
        text,
        "where recall's time goes (mean per recall, share of the stages' total):"
    );
    for stage in &report.stages {
        let _ = writeln!(
            text,
            "  {:<26}{:>9.2} ms {:>6}%",
            stage.stage,
            stage.mean_ms,
            percent(stage.share)
        );
    }
    let _ = writeln!(
        text,
        "the recall latency, between the engine and the host's imports (mean per recall, share):"
    );
    for part in &report.split {
        let _ = writeln!(
            text,
            "  {:<26}{:>9.2} ms {:>6}%",
            split_label(&part.stage),
            part.mean_ms,
            percent(part.share)
        );
    }
    let _ = writeln!(text, "{SPLIT_NOTE}");
    let lanes = |map: &std::collections::BTreeMap<String, u64>| {
        map.iter()
            .map(|(lane, count)| format!("{lane} {count}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let top = report.ks.last().copied().unwrap_or(0);
    let _ = writeln!(
        text,
        "\nlanes of the raw turns in the top {top}: {}",
        lanes(&report.returned_lanes)
    );
    let _ = writeln!(
        text,
        "lanes of the evidence turns found in the top {top}: {}",
        lanes(&report.evidence_lanes)
    );
    text
}

/// The runs side by side: overall recall at each k, latency, and the
/// reranker's own time per question.
pub fn compare(reports: &[EvalReport]) -> String {
    let mut text = String::from("the runs side by side (all categories):\n");
    let _ = write!(text, "{:<44}", "reranker");
    if let Some(first) = reports.first() {
        for k in &first.ks {
            let _ = write!(text, "{:>7}", format!("S@{k}"));
        }
        for k in &first.ks {
            let _ = write!(text, "{:>7}", format!("T@{k}"));
        }
    }
    let _ = writeln!(text, "{:>9}{:>9}{:>12}", "p50 ms", "p95 ms", "rerank ms");
    for report in reports {
        let _ = write!(text, "{:<44}", report.reranker);
        for at in &report.overall.at {
            let _ = write!(text, "{:>7}", percent(at.session));
        }
        for at in &report.overall.at {
            let _ = write!(text, "{:>7}", percent(at.turn));
        }
        let rerank_ms = report
            .split
            .iter()
            .find(|part| part.stage == "rerank")
            .map_or(0.0, |part| part.mean_ms);
        let _ = writeln!(
            text,
            "{:>9.1}{:>9.1}{:>12.1}",
            report.latency.p50_ms, report.latency.p95_ms, rerank_ms
        );
    }
    text
}
