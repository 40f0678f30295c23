//! # `hive-mind embed`
//!
//! The command-line glue for the embedder ([`hive_mind_models::embedder`]);
//! `main.rs` only parses and dispatches here.
//!
//! - `hive-mind embed "some text" "another"` embeds with the active embedder
//!   and prints, per text, its dimension, norm and whether it was truncated,
//!   after the provider status (`--json` prints the vectors). The texts are
//!   embedded as documents; `--query` embeds them as queries (with the
//!   model's query prompt, when it has one).
//! - `hive-mind embed --status` (or no texts) shows the provider chain: which
//!   providers were tried, why each was passed over, which is active.

use std::io::Write;

use serde_json::json;

use hive_mind_models::config::{Config, ConfigError};
use hive_mind_models::embedder::chain::{self, ActiveEmbedder};
use hive_mind_models::embedder::{EmbedError, Embedder, InputKind, cap_chars};

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

/// What can go wrong in these commands.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No embedder, or embedding failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
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
            "vectors": embedded.vectors.iter().map(|vector| vector.as_ref().ok()).collect::<Vec<_>>(),
            "truncated": embedded.truncated,
            "failed": embedded.failures().map(|(index, reason)| json!({"index": index, "reason": reason})).collect::<Vec<_>>(),
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
        let (preview, cut) = cap_chars(text, 48);
        let preview = format!("{preview:?}{}", if cut { "…" } else { "" });
        let vector = match vector {
            Ok(vector) => vector,
            Err(why) => {
                writeln!(out, "[{index}] FAILED, no vector: {why} {preview}")?;
                continue;
            }
        };
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut flags = Vec::new();
        if embedded.truncated.contains(&index) {
            flags.push("truncated");
        }
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
