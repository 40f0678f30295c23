//! # `hive-mind embed` and `hive-mind bench embed`
//!
//! The command-line glue for this module; `main.rs` only parses and
//! dispatches here.
//!
//! - `hive-mind embed "some text" "another"` embeds with the active embedder
//!   and prints, per text, its dimension, norm and whether it was truncated,
//!   after the provider status (`--json` prints the vectors). The texts are
//!   embedded as documents; `--query` embeds them as queries (with the
//!   model's query prompt, when it has one).
//! - `hive-mind embed --status` (or no texts) shows the provider chain: which
//!   providers were tried, why each was passed over, which is active.
//! - `hive-mind bench embed [--quick]` runs [`super::bench`].

use std::io::Write;

use serde_json::json;

use super::bench::{self, BenchError, BenchOptions};
use super::chain::{self, ActiveEmbedder};
use super::config::{Config, ConfigError};
use super::onnx::ModelError;
use super::{EmbedError, Embedder, InputKind, cap_chars};

/// `hive-mind embed`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct EmbedArgs {
    /// The texts to embed; none: show the provider status only.
    pub texts: Vec<String>,
    /// Show the provider chain and the active embedder.
    #[arg(long)]
    pub status: bool,
    /// Print the vectors as JSON.
    #[arg(long)]
    pub json: bool,
    /// Embed the texts as search queries (the model's query prompt
    /// prepended, when it has one) instead of as documents.
    #[arg(long)]
    pub query: bool,
}

/// `hive-mind bench`'s targets.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum BenchTarget {
    /// The in-process embedder: load time, texts/s single and batched, the
    /// load-time rewrite's effect, peak RSS.
    Embed(BenchEmbedArgs),
    /// The recall pipeline on a synthetic corpus (built once per size):
    /// latency percentiles, stage shares, peak RSS, and the overhead over a
    /// bare sqlite-vec KNN query.
    Recall(crate::bench::recall::BenchRecallArgs),
    /// Harvest on a synthetic ChatGPT export: items/s, frames/s, and the
    /// import's time against the bare embedder's on the same texts; the
    /// pipeline's cost per call of a loopback LLM.
    Harvest(crate::bench::harvest::BenchHarvestArgs),
}

/// `hive-mind bench embed`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchEmbedArgs {
    /// Shorter runs (a smoke check, not figures to quote).
    #[arg(long)]
    pub quick: bool,
}

/// What can go wrong in these commands.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No embedder, or embedding failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The model could not be loaded.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The benchmark failed.
    #[error(transparent)]
    Bench(#[from] BenchError),
    /// The recall benchmark failed.
    #[error(transparent)]
    RecallBench(#[from] crate::bench::recall::BenchError),
    /// The harvest benchmark failed.
    #[error(transparent)]
    HarvestBench(#[from] crate::bench::harvest::BenchError),
    /// Writing the output failed.
    #[error("could not write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// Run `hive-mind embed` with the configuration of `data_dir`.
pub fn embed(
    args: &EmbedArgs,
    data_dir: &std::path::Path,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let config = Config::load_in(data_dir)?;
    let active = chain::resolve(&config.embedder)?;
    embed_with(&active, args, out)
}

/// `hive-mind embed` against an already resolved embedder.
pub fn embed_with(
    active: &ActiveEmbedder,
    args: &EmbedArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let kind = if args.query {
        InputKind::Query
    } else {
        InputKind::Document
    };
    if args.json {
        let embedded = active.embedder.embed_marked_as(&args.texts, kind)?;
        let value = json!({
            "provider": active.info.provider,
            "model": active.info.model,
            "dimensions": active.info.dimensions,
            "vectors": embedded.vectors,
            "truncated": embedded.truncated,
            "degraded": embedded.degraded.iter().map(|d| d.index).collect::<Vec<_>>(),
        });
        writeln!(out, "{value}")?;
        return Ok(());
    }
    for line in active.status_lines() {
        writeln!(out, "{line}")?;
    }
    if args.texts.is_empty() {
        return Ok(());
    }
    let embedded = active.embedder.embed_marked_as(&args.texts, kind)?;
    writeln!(out)?;
    for (index, (text, vector)) in args.texts.iter().zip(&embedded.vectors).enumerate() {
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut flags = Vec::new();
        if embedded.truncated.contains(&index) {
            flags.push("truncated");
        }
        if embedded.degraded.iter().any(|d| d.index == index) {
            flags.push("DEGRADED (placeholder vector)");
        }
        let (preview, cut) = cap_chars(text, 48);
        let preview = format!("{preview:?}{}", if cut { "…" } else { "" });
        let head: Vec<String> = vector.iter().take(4).map(|x| format!("{x:+.4}")).collect();
        writeln!(
            out,
            "[{index}] dims={} norm={norm:.4} [{}, …]{} {preview}",
            vector.len(),
            head.join(", "),
            if flags.is_empty() {
                String::new()
            } else {
                format!(" {}", flags.join(", "))
            },
        )?;
    }
    Ok(())
}

/// Run `hive-mind bench <target>` with the configuration of `data_dir`.
pub fn bench(
    target: &BenchTarget,
    data_dir: &std::path::Path,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    match target {
        BenchTarget::Embed(args) => {
            let config = Config::load_in(data_dir)?;
            let spec = chain::in_process_spec(&config.embedder.in_process)?;
            let report = bench::run(&spec, BenchOptions { quick: args.quick })?;
            write!(out, "{report}")?;
        }
        BenchTarget::Recall(args) => crate::bench::recall::command(args, data_dir, out)?,
        BenchTarget::Harvest(args) => crate::bench::harvest::command(args, data_dir, out)?,
    }
    Ok(())
}
