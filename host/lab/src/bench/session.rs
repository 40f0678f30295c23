//! `hive-mind-lab bench session`: the Rust host's side of the cross-host
//! benchmark (`hosts/js/scripts/bench.js`), which runs the same session
//! against the same mind from Rust, JavaScript and Python.
//!
//! A session on an existing data directory: open the engine (the embedder
//! the configuration resolves, loaded — it loads on first use, so one text
//! is embedded to load it, as the other hosts load theirs when they open —
//! and the component from the compile cache; the reranker off, as in the
//! other hosts' runs), one warm-up recall, then each query recalled with the
//! engine's defaults, then each memory saved one by one, then each query
//! embedded alone by the same embedder. It prints one JSON object: the open
//! time, the warm-up recall, every recall's wall time, the embedder's own
//! time for each query, and saves per second. The other hosts measure the
//! same things themselves; the script compares them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use hive_mind_models::embedder::InputKind;
use hive_mind_models::reranker::Unconfigured;
use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_memory::{MemoryInput, RecallOptions};
use hive_mind_runtime::engine::wit_types::Mind;

use super::recall::BenchError;
use crate::mind::open_engine;

/// `hive-mind-lab bench session`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchSessionArgs {
    /// A JSON file holding the queries (an array of strings).
    #[arg(long)]
    pub queries: PathBuf,
    /// A JSON file holding the memories to save (an array of strings).
    #[arg(long)]
    pub saves: PathBuf,
}

/// What one session measured, in milliseconds unless named otherwise.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionReport {
    /// The embedder loaded and the engine instantiated.
    pub open: f64,
    /// The warm-up recall (cold caches, the vector index loaded).
    pub first_recall: f64,
    /// Each query's recall.
    pub recalls: Vec<f64>,
    /// The embedder's own time for each query, embedded alone.
    pub embeds: Vec<f64>,
    /// Memories saved per second, one call each.
    pub save_per_second: f64,
}

fn strings(path: &Path) -> Result<Vec<String>, BenchError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| BenchError::Option(format!("could not read {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        BenchError::Option(format!(
            "{}: expected a JSON array of strings: {e}",
            path.display()
        ))
    })
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

fn recall(engine: &mut EngineRuntime, query: &str) -> Result<(), BenchError> {
    engine.recall_memory(query, &RecallOptions::default())?;
    Ok(())
}

/// Run the session on `data_dir` and write its JSON to `out`.
pub fn command(
    args: &BenchSessionArgs,
    data_dir: &Path,
    out: &mut dyn Write,
) -> Result<(), BenchError> {
    let queries = strings(&args.queries)?;
    let saves = strings(&args.saves)?;
    let started = Instant::now();
    let config = hive_mind_models::config::Config::load_in(data_dir)?;
    let active = hive_mind_models::embedder::resolve(&config.embedder)?;
    let embedder = active.embedder;
    embedder.embed_marked_as(&["load".to_string()], InputKind::Query)?;
    let mut engine = open_engine(data_dir, Arc::clone(&embedder), Arc::new(Unconfigured))?;
    let open = ms(started);

    let started = Instant::now();
    recall(&mut engine, "warm-up: what is new?")?;
    let first_recall = ms(started);
    let mut recalls = Vec::with_capacity(queries.len());
    for query in &queries {
        let started = Instant::now();
        recall(&mut engine, query)?;
        recalls.push(ms(started));
    }

    let started = Instant::now();
    for content in &saves {
        engine.save_memory(&MemoryInput {
            content: content.clone(),
            importance: None,
            source: None,
            mind: Mind::Personal,
            created_at: None,
            kind: None,
        })?;
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut embeds = Vec::with_capacity(queries.len());
    for query in &queries {
        let started = Instant::now();
        embedder.embed_marked_as(std::slice::from_ref(query), InputKind::Query)?;
        embeds.push(ms(started));
    }
    let report = SessionReport {
        open,
        first_recall,
        recalls,
        embeds,
        save_per_second: if seconds > 0.0 {
            saves.len() as f64 / seconds
        } else {
            0.0
        },
    };
    let text = serde_json::to_string(&report).map_err(|e| BenchError::Option(e.to_string()))?;
    writeln!(out, "{text}")?;
    Ok(())
}
