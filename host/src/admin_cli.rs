//! The minds' `hive-mind` subcommands: `get`, `status`, `reindex`, `check`,
//! and the hidden `debug-bulk-save` used by the crash test.
//!
//! Glue over the engine component's `admin` and `memory` exports (the host
//! has no store of its own): output is JSON on stdout, progress on stderr.
//! `reindex` re-embeds with the active embedder of the provider chain,
//! stepping through each mind with `admin.reindex-step` so the bar moves.
//! Nothing writes fake vectors silently: the mock embedder is used only when
//! chosen by name (`HIVE_MIND_EMBEDDER=mock`), and `debug-bulk-save` (the
//! crash test's driver) chooses it explicitly, to write thousands of frames
//! fast.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use hive_mind_models::config::Config;
use hive_mind_models::embedder::config::ProviderChoice;
use hive_mind_runtime::engine::convert::{self, frame_json, mind_name};
use hive_mind_runtime::engine::wit_admin::{MindCheck, MindStatus};
use hive_mind_runtime::engine::wit_memory::MemoryInput;
use hive_mind_runtime::engine::wit_types::Mind;
use hive_mind_runtime::engine::{EngineError, EngineRuntime};
use hive_mind_terminal::Progress;

use crate::command_error::CommandError;

/// Frames re-embedded per `admin.reindex-step` call.
const REINDEX_BATCH: u32 = 64;

/// An awareness item as JSON (MCP and the server show it so).
pub fn awareness_json(item: &hive_mind_runtime::engine::wit_admin::AwarenessItem) -> Json {
    json!({
        "id": item.id,
        "category": hive_mind_runtime::engine::wit_names::WitEnum::wit_name(item.category),
        "content": item.content,
        "priority": item.priority,
        "created_at": convert::timestamp_name(item.created_at),
        "expires_at": item.expires_at.map(convert::timestamp_name),
    })
}

/// An identity as JSON, null when never set (MCP and the server).
pub fn identity_json(identity: Option<&hive_mind_runtime::engine::wit_admin::Identity>) -> Json {
    identity.map_or(Json::Null, |identity| {
        json!({
            "name": identity.name,
            "role": identity.role,
            "personality": identity.personality,
            "capabilities": identity.capabilities,
            "system_prompt": identity.system_prompt,
            "updated_at": identity.updated_at.map(convert::timestamp_name),
        })
    })
}

/// The administration subcommands, flattened into the `hive-mind` command.
#[derive(Debug, clap::Subcommand)]
pub enum AdminCommand {
    /// Print a frame by reference: `personal:<id>` or `workspace:<workspace>:<id>`.
    Get {
        /// The frame reference.
        reference: String,
        /// Print the frame as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show every mind: frame counts per index, schema version, embedder.
    Status {
        /// Print the status as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Re-embed every frame of every mind with the active embedder, its chunks
    /// re-planned for the embedder's token window.
    Reindex {
        /// No progress bar (it is drawn only when stderr is a terminal anyway).
        #[arg(long)]
        quiet: bool,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check every mind: integrity, frames = FTS = vectors, chunks as expected.
    Check {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
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

/// Print `value` as JSON with `json`, else as `human` renders it for a
/// person. A write that fails (a closed pipe) is returned, never a panic.
fn print(value: &Json, json: bool, human: fn(&Json) -> String) -> std::io::Result<()> {
    let text = if json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(value).unwrap_or_default()
        )
    } else {
        human(value)
    };
    std::io::stdout().lock().write_all(text.as_bytes())
}

/// Re-embed one mind with the active embedder, a step at a time, with a
/// progress bar; what was done as JSON.
pub fn reindex_mind(
    engine: &mut hive_mind_runtime::engine::EngineRuntime,
    mind: &hive_mind_runtime::engine::wit_types::Mind,
    quiet: bool,
) -> Result<Json, hive_mind_runtime::engine::EngineError> {
    let name = mind_name(mind);
    let mut bar: Option<Progress> = None;
    loop {
        let step = engine.admin().reindex_step(mind, REINDEX_BATCH)?;
        let shown = bar.get_or_insert_with(|| {
            let bar = Progress::new(step.total, "frames", quiet);
            bar.working_on(format!("reindex {name}"));
            bar
        });
        shown.set_done(step.done);
        if !shown.is_visible() {
            shown.note(&format!(
                "reindex {name}: {}/{} frames, {} chunks for {} tokens",
                step.done, step.total, step.chunks, step.chunk_window
            ));
        }
        if step.finished {
            if let Some(bar) = bar {
                bar.finish();
            }
            return Ok(json!({
                "mind": name,
                "frames": step.total,
                "chunks": step.chunks,
                "chunk_window": step.chunk_window,
            }));
        }
    }
}

/// A mind's status as JSON (the CLI's `status` and the MCP stats resource).
pub fn status_json(status: &MindStatus) -> Json {
    json!({
        "mind": mind_name(&status.mind),
        "schema_version": status.schema_version,
        "embedder": status.embedder.as_ref().map(|e| json!({
            "provider": e.provider, "model": e.model, "dim": e.dimensions,
        })),
        "frames": status.frames,
        "fts_rows": status.fts_rows,
        "frame_vectors": status.frame_vectors,
        "chunks": status.chunks,
        "chunk_vectors": status.chunk_vectors,
        "chunk_plan": status.chunk_plan,
        "chunk_window": status.chunk_window,
        "notes": status.notes,
        "entities": status.entities,
        "relations": status.relations,
        "sessions": status.sessions,
    })
}

fn check_json(check: &MindCheck) -> Json {
    json!({
        "ok": check.problems.is_empty(),
        "report": {
            "status": status_json(&check.status),
            "expected_chunks": check.expected_chunks,
            "problems": check.problems,
        },
    })
}

/// The engine over `dir` with the mock embedder, for the crash test.
fn mock_engine(dir: &Path) -> Result<EngineRuntime, CommandError> {
    let mut config = Config::load_in(dir)?;
    config.embedder.provider = ProviderChoice::Mock;
    let capabilities = hive_mind_runtime::engine::capabilities_with(dir, &config)?;
    Ok(EngineRuntime::new(capabilities).map_err(EngineError::from)?)
}

/// Run an administration subcommand against the data directory;
/// `Ok(false)` when the command ran but found a problem (`check`).
pub fn run(command: AdminCommand, data_dir: Option<PathBuf>) -> Result<bool, CommandError> {
    let dir = data_dir.unwrap_or_else(|| {
        hive_mind_models::config::hive_mind_home(&hive_mind_models::config::process_env)
    });
    match command {
        AdminCommand::Get { reference, json } => {
            let memory = crate::ops::review::reference(&reference)?;
            let mut engine = hive_mind_runtime::engine::open(&dir)?;
            let frame = crate::ops::execute(
                &mut engine,
                &crate::ops::Caller::Owner,
                crate::ops::minds::GetMemory { memory },
            )?;
            print(&frame_json(&frame), json, crate::human::memory_text)?;
        }
        AdminCommand::Status { json } => {
            let mut engine = hive_mind_runtime::engine::open(&dir)?;
            let statuses = crate::ops::execute(
                &mut engine,
                &crate::ops::Caller::Owner,
                crate::ops::minds::Stats {
                    caller: crate::ops::Caller::Owner,
                },
            )?;
            // A mind whose chunks do not fit the embedder, loudly too.
            for status in &statuses {
                for note in &status.notes {
                    eprintln!("{}: {note}", mind_name(&status.mind));
                }
            }
            let statuses: Vec<Json> = statuses.iter().map(status_json).collect();
            // The active embedder, loudly: recall must never rank at random
            // without the user knowing.
            let config = Config::load_in(&dir)?;
            let active = match hive_mind_models::embedder::resolve(&config.embedder) {
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
            print(
                &json!({
                    "data_dir": dir.display().to_string(),
                    "active_embedder": active,
                    "minds": statuses,
                }),
                json,
                crate::human::status_text,
            )?;
        }
        AdminCommand::Reindex { quiet, json } => {
            let mut engine = hive_mind_runtime::engine::open(&dir)?;
            let minds = engine.admin().list_minds()?;
            let mut done = Vec::new();
            for mind in minds {
                done.push(reindex_mind(&mut engine, &mind, quiet)?);
            }
            let embedder = engine
                .admin()
                .status()?
                .first()
                .and_then(|status| status.embedder.clone())
                .map(|e| json!({"provider": e.provider, "model": e.model, "dim": e.dimensions}));
            print(
                &json!({"embedder": embedder, "reindexed": done}),
                json,
                crate::human::reindex_text,
            )?;
        }
        AdminCommand::Check { json } => {
            let mut engine = hive_mind_runtime::engine::open(&dir)?;
            let reports = engine.admin().check()?;
            let ok = reports.iter().all(|report| report.problems.is_empty());
            let reports: Vec<Json> = reports.iter().map(check_json).collect();
            print(
                &json!({"ok": ok, "minds": reports}),
                json,
                crate::human::check_text,
            )?;
            return Ok(ok);
        }
        AdminCommand::DebugBulkSave {
            count,
            batch,
            long_every,
        } => {
            let mut engine = mock_engine(&dir)?;
            let started = std::time::Instant::now();
            let mut stdout = std::io::stdout();
            let mut next = 0u64;
            while next < count {
                let end = (next + batch.max(1)).min(count);
                let mut inputs = Vec::new();
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
                    inputs.push(MemoryInput {
                        content: text,
                        importance: None,
                        source: None,
                        mind: Mind::Personal,
                        created_at: None,
                        kind: None,
                    });
                }
                let saved = engine.save_memories(&inputs)?;
                let ids: Vec<String> = saved.iter().map(|s| s.frame.ref_.id.to_string()).collect();
                // One line per committed batch: the ids that are durable now.
                let _ = writeln!(stdout, "committed {}", ids.join(","));
                let _ = stdout.flush();
                next = end;
            }
            let seconds = started.elapsed().as_secs_f64();
            eprintln!(
                "saved {count} frames in {seconds:.2} s ({:.0} frames/s with the mock embedder)",
                count as f64 / seconds.max(1e-9),
            );
        }
    }
    Ok(true)
}
