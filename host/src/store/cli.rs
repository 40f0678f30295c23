//! The store's `hive-mind` subcommands: `get`, `status`, `reindex`,
//! `check`, and the hidden `debug-bulk-save` used by the crash test.
//!
//! Glue over [`super::Minds`]; output is JSON on stdout, progress on stderr.
//!
//! (`save` goes through the engine component, which chunks, embeds and
//! stores: see [`crate::engine::cli`].) `reindex` re-embeds with the active embedder of the provider
//! chain. Neither ever writes fake vectors silently: the mock embedder is
//! used only when chosen by name (`HIVE_MIND_EMBEDDER=mock`), and is recorded
//! as the mind's embedder provider. `debug-bulk-save` (the crash test's
//! driver) alone uses [`FakeHashVectorSource`], to write thousands of frames
//! fast.

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::json;

use super::error::{StoreError, StoreResult};
use super::types::{ChunkVector, FrameRef, Mind, NewFrame};
use super::vectors::{FakeHashVectorSource, VectorSource};
use super::{Minds, StoreConfig, plan_chunks};
use crate::progress::Progress;

/// The dimension of the mock embedder (the default model's, 384).
pub const MOCK_DIM: u32 = 384;

/// The store subcommands, flattened into the `hive-mind` command.
#[derive(Debug, clap::Subcommand)]
pub enum StoreCommand {
    /// Print a frame by reference: personal:<id> or workspace:<workspace>:<id>.
    Get {
        /// The frame reference.
        reference: String,
    },
    /// Show every mind: frame counts per index, schema version, embedder.
    Status,
    /// Re-embed every frame and chunk of every mind with the active embedder.
    Reindex {
        /// No progress bar (it is drawn only when stderr is a terminal anyway).
        #[arg(long)]
        quiet: bool,
    },
    /// Check every mind: integrity, frames = FTS = vectors, chunks as expected.
    Check,
    /// Save synthetic frames in batches, printing each committed batch (crash tests).
    #[command(hide = true, name = "debug-bulk-save")]
    DebugBulkSave {
        /// How many frames.
        #[arg(long, default_value_t = 1000)]
        count: u64,
        /// Frames per transaction.
        #[arg(long, default_value_t = 50)]
        batch: u64,
        /// Every n-th frame is long enough to be chunked (0: none).
        #[arg(long, default_value_t = 10)]
        long_every: u64,
    },
}

/// The active embedder for `reindex`: the provider chain over the data
/// directory's configuration (the mock only when chosen by name).
fn active_embedder(dir: &std::path::Path) -> StoreResult<crate::embedder::ActiveEmbedder> {
    let config = crate::embedder::config::Config::load_in(dir)
        .map_err(|error| StoreError::Embedder(error.to_string()))?;
    crate::embedder::resolve(&config.embedder)
        .map_err(|error| StoreError::Embedder(error.to_string()))
}

/// A frame with its vectors from `source`.
pub fn embed_frame(source: &dyn VectorSource, mut frame: NewFrame) -> StoreResult<NewFrame> {
    let plan = plan_chunks(&frame.content);
    let mut texts = vec![frame.content.clone()];
    texts.extend(plan.iter().map(|chunk| chunk.text.clone()));
    let mut vectors = source
        .embed(&texts)
        .map_err(|error| StoreError::Embedder(error.to_string()))?
        .into_iter();
    frame.embedding = vectors.next().unwrap_or_default();
    frame.chunks = plan
        .iter()
        .map(|chunk| ChunkVector {
            char_start: chunk.char_start,
            char_end: chunk.char_end,
            embedding: vectors.next().unwrap_or_default(),
        })
        .collect();
    Ok(frame)
}

fn print(value: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
    );
}

fn to_json<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// Run a store subcommand against the data directory; `Ok(false)` when the
/// command ran but found a problem (`check`).
pub fn run(command: StoreCommand, data_dir: Option<PathBuf>) -> StoreResult<bool> {
    let dir = data_dir.unwrap_or_else(super::default_data_dir);
    match command {
        StoreCommand::Get { reference } => {
            let frame_ref: FrameRef = reference.parse()?;
            let mut minds = Minds::open(dir, StoreConfig::default())?;
            let frame = minds
                .get_frames(std::slice::from_ref(&frame_ref))?
                .pop()
                .ok_or_else(|| StoreError::NotFound(format!("frame {frame_ref}")))?;
            print(&to_json(&frame));
        }
        StoreCommand::Status => {
            let mut minds = Minds::open(dir.clone(), StoreConfig::default())?;
            let mut statuses = Vec::new();
            for mind in minds.list()? {
                statuses.push(to_json(&minds.mind(&mind)?.status()?));
            }
            // The active embedder, loudly: recall must never rank at random
            // without the user knowing.
            let active = match active_embedder(&dir) {
                Ok(active) => {
                    for line in active.status_lines() {
                        eprintln!("{line}");
                    }
                    json!({
                        "provider": active.info.provider,
                        "model": active.info.model,
                        "dim": active.info.dimensions,
                        "mock": active.info.is_mock(),
                        "attempts": active.attempts.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    })
                }
                Err(error) => {
                    eprintln!("embedder: NONE AVAILABLE — {error}");
                    json!({"error": error.to_string()})
                }
            };
            print(&json!({
                "data_dir": minds.dir().display().to_string(),
                "schema_version": super::schema::SCHEMA_VERSION,
                "active_embedder": active,
                "minds": statuses,
            }));
        }
        StoreCommand::Reindex { quiet } => {
            let embedder = active_embedder(&dir)?;
            let mut minds = Minds::open(dir, StoreConfig::default())?;
            // One bar per mind; without a bar, a line per batch as before.
            let mut current: Option<(String, Progress)> = None;
            let done = minds.reindex(&embedder, &mut |mind, done, total| {
                let name = mind.to_string();
                if current.as_ref().is_none_or(|(shown, _)| *shown != name) {
                    if let Some((_, bar)) = current.take() {
                        bar.finish();
                    }
                    let bar = Progress::new(total, "frames and chunks", quiet);
                    bar.working_on(format!("reindex {name}"));
                    current = Some((name.clone(), bar));
                }
                if let Some((_, bar)) = &current {
                    bar.set_done(done);
                    if !bar.is_visible() {
                        bar.note(&format!("reindex {name}: {done}/{total}"));
                    }
                }
            })?;
            if let Some((_, bar)) = current {
                bar.finish();
            }
            let done: Vec<_> = done
                .into_iter()
                .map(|(mind, frames)| json!({"mind": mind.to_string(), "frames": frames}))
                .collect();
            print(&json!({"embedder": to_json(&embedder.fingerprint()), "reindexed": done}));
        }
        StoreCommand::Check => {
            let mut minds = Minds::open(dir, StoreConfig::default())?;
            let mut reports = Vec::new();
            let mut ok = true;
            for mind in minds.list()? {
                let report = minds.mind(&mind)?.check()?;
                ok &= report.ok();
                reports.push(json!({"ok": report.ok(), "report": to_json(&report)}));
            }
            print(&json!({"ok": ok, "minds": reports}));
            return Ok(ok);
        }
        StoreCommand::DebugBulkSave {
            count,
            batch,
            long_every,
        } => {
            let embedder = FakeHashVectorSource::new(MOCK_DIM);
            let mut minds = Minds::open(
                dir,
                StoreConfig {
                    embedder: Some(embedder.fingerprint()),
                },
            )?;
            let started = std::time::Instant::now();
            let mut storing = std::time::Duration::ZERO;
            let mut stdout = std::io::stdout();
            let mut next = 0u64;
            while next < count {
                let end = (next + batch.max(1)).min(count);
                let mut frames = Vec::new();
                for n in next..end {
                    let mut text = format!(
                        "bulk frame {n}: the quick brown fox {n} jumps over lazy dog {}",
                        n % 97
                    );
                    if long_every > 0 && n % long_every == 0 {
                        for paragraph in 0..6 {
                            text.push_str(&format!("\n\nparagraph {paragraph} of frame {n}. "));
                            text.push_str(
                                &"Lorem ipsum dolor sit amet, consectetur adipiscing elit. "
                                    .repeat(9),
                            );
                        }
                    }
                    frames.push(embed_frame(
                        &embedder,
                        NewFrame::new(Mind::Personal, text, Vec::new()),
                    )?);
                }
                let store_started = std::time::Instant::now();
                let saved = minds.save_frames(&Mind::Personal, frames)?;
                storing += store_started.elapsed();
                let ids: Vec<String> = saved
                    .iter()
                    .map(|s| s.frame.frame_ref.id.to_string())
                    .collect();
                // One line per committed batch: the ids that are durable now.
                let _ = writeln!(stdout, "committed {}", ids.join(","));
                let _ = stdout.flush();
                next = end;
            }
            let seconds = started.elapsed().as_secs_f64();
            let store_seconds = storing.as_secs_f64();
            eprintln!(
                "saved {count} frames in {seconds:.2} s ({:.0} frames/s with the fake embedder; \
                 the store alone: {store_seconds:.2} s, {:.0} frames/s)",
                count as f64 / seconds.max(1e-9),
                count as f64 / store_seconds.max(1e-9)
            );
        }
    }
    Ok(true)
}
