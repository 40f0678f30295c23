//! # Benchmarks (`hive-mind-lab bench embed`, `bench recall`, `bench harvest`)
//!
//! [`embed`] measures one capability (the in-process embedder) in
//! isolation; the others measure the engine as an agent uses it: the
//! component, its imports, the store and the model together.
//!
//! - [`embed`] — load time, texts/s single and batched, the load-time
//!   rewrite's effect, peak RSS (also `cargo bench --bench embed`).
//! - [`corpus`] — a deterministic generator of realistic memories (topics
//!   from templates, entities from pools, varied lengths, dates over two
//!   years, mixed importances and lanes) and of queries with known answers.
//! - [`recall`] — builds a corpus of N memories once (reused on later runs),
//!   then times Q recalls: latency percentiles, the share of each pipeline
//!   stage, the split between the engine (in the component) and the host's
//!   imports, peak memory, and the pipeline's overhead over a bare exact KNN
//!   (sqlite-vec's cosine distance over the frame vectors) on the same
//!   vectors.
//!
//! - [`governance`] — the owner's operations on the recall corpus (copied):
//!   forgetting one memory (time, file size before and after), export and
//!   restore (memories/s), and the re-embed after a restore.
//! - [`wiki`] — the wiki on the recall corpus (copied): every page read
//!   from nothing, one page after one write, the health report, page count
//!   and size, and its coverage of the graph's entities and the statements.
//! - [`serve`] — `hive-mind serve` under load (clients mixing recall and
//!   save, one or two servers on one data directory) and the hook's wall
//!   time per prompt with and without a running server.
//! - [`session`] — the Rust host's part of the cross-host benchmark
//!   (`hosts/js/scripts/bench.js`): open, recalls with the embedder's share
//!   of each, and saves on a given mind, as JSON.
//! - [`harvest`] — imports a synthetic ChatGPT export through the engine's
//!   harvest and compares its time with the bare embedder's on the same
//!   texts; optionally the pipeline's own cost per call of a loopback LLM.
//!
//! Figures are only meaningful from a release build: a debug build of the
//! host (and of tract, the ONNX runtime) is many times slower.

pub mod corpus;
pub mod embed;
pub mod governance;
pub mod harvest;
pub mod recall;
pub mod serve;
pub mod session;
pub mod wiki;

use std::io::Write;
use std::path::Path;

use hive_mind_models::config::{Config, ConfigError};
use hive_mind_models::embedder::chain;
use hive_mind_models::onnx::ModelError;

/// `hive-mind-lab bench`'s targets.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum BenchTarget {
    /// The in-process embedder: load time, texts/s single and batched, the
    /// load-time rewrite's effect, peak RSS.
    Embed(BenchEmbedArgs),
    /// The recall pipeline on a synthetic corpus (built once per size):
    /// latency percentiles, stage shares, peak RSS, and the overhead over a
    /// bare sqlite-vec KNN query.
    Recall(recall::BenchRecallArgs),
    /// Harvest on a synthetic ChatGPT export: items/s, frames/s, and the
    /// import's time against the bare embedder's on the same texts; the
    /// pipeline's cost per call of a loopback LLM.
    Harvest(harvest::BenchHarvestArgs),
    /// The owner's operations on a mind of N memories: forgetting one
    /// memory (time, file size before and after), export and restore
    /// (memories/s each way, and the re-embed after a restore).
    Governance(governance::BenchGovernanceArgs),
    /// The wiki on the recall corpus: every page compiled from nothing,
    /// one page after one write, the health report; pages and their size;
    /// the share of entities with a page and of statements on some page.
    Wiki(wiki::BenchWikiArgs),
    /// `hive-mind serve` under load on the recall corpus: concurrent
    /// clients mixing recall and save for a set time (one server or two on
    /// one data directory): throughput, percentiles, errors, peak memory,
    /// and `check` afterwards.
    Serve(serve::BenchServeArgs),
    /// `hive-mind hook claude-code`'s wall time per prompt, with a running
    /// server and alone.
    Hook(serve::BenchHookArgs),
    /// One session on the data directory's mind as the cross-host
    /// benchmark runs it in every host: open, recalls (and the embedder's
    /// part of each), saves; one JSON object.
    Session(session::BenchSessionArgs),
}

/// `hive-mind-lab bench embed`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchEmbedArgs {
    /// Shorter runs (a smoke check, not figures to quote).
    #[arg(long)]
    pub quick: bool,
}

/// What can go wrong in `hive-mind-lab bench`.
#[derive(Debug, thiserror::Error)]
pub enum BenchCommandError {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The model could not be loaded.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The embedder benchmark failed.
    #[error(transparent)]
    Embed(#[from] embed::BenchError),
    /// The recall benchmark failed.
    #[error(transparent)]
    Recall(#[from] recall::BenchError),
    /// The harvest benchmark failed.
    #[error(transparent)]
    Harvest(#[from] harvest::BenchError),
    /// Writing the output failed.
    #[error("could not write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// Write a benchmark's report: one JSON object with `json`, else the text
/// `render` makes of it.
pub fn write_report<R: serde::Serialize>(
    report: &R,
    json: bool,
    render: impl Fn(&R) -> String,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if json {
        let text = serde_json::to_string_pretty(report)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        writeln!(out, "{text}")
    } else {
        write!(out, "{}", render(report))
    }
}

/// Run `hive-mind-lab bench <target>` with the configuration of `data_dir`.
pub fn command(
    target: &BenchTarget,
    data_dir: &Path,
    out: &mut dyn Write,
) -> Result<(), BenchCommandError> {
    match target {
        BenchTarget::Embed(args) => {
            let config = Config::load_in(data_dir)?;
            let spec = chain::in_process_spec(&config.embedder.in_process)?;
            let report = embed::run(&spec, embed::BenchOptions { quick: args.quick })?;
            write!(out, "{report}")?;
        }
        BenchTarget::Recall(args) => recall::command(args, data_dir, out)?,
        BenchTarget::Harvest(args) => harvest::command(args, data_dir, out)?,
        BenchTarget::Governance(args) => governance::command(args, data_dir, out)?,
        BenchTarget::Wiki(args) => wiki::command(args, data_dir, out)?,
        BenchTarget::Serve(args) => {
            let report = serve::run_serve(args, data_dir)?;
            write_report(&report, args.json, serve::render_serve, out)?;
        }
        BenchTarget::Hook(args) => {
            let report = serve::run_hook(args, data_dir)?;
            write_report(&report, args.json, serve::render_hook, out)?;
        }
        BenchTarget::Session(args) => session::command(args, data_dir, out)?,
    }
    Ok(())
}
