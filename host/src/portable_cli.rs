//! `hive-mind export` and `hive-mind restore`: a mind out to a file, and
//! back into an empty mind (`admin.export-mind`, `admin.restore-mind`).
//!
//! The export is the engine's JSON Lines format (or, with `--format markdown`, a
//! document to read); it goes to a file or stdout. A restore reads the
//! whole file (capped at [`MAX_RESTORE_BYTES`]), hands its lines to the
//! engine, which checks all of them before it writes anything, and then
//! re-embeds the restored memories with the active model (a reindex, with
//! a progress bar): vectors are never carried by an export.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::command_error::CommandError;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_types::Mind;

/// The largest export `restore` reads, in bytes: a mind of a few hundred
/// thousand memories.
pub const MAX_RESTORE_BYTES: u64 = 1024 * 1024 * 1024;

/// `hive-mind export`'s arguments: the one export request, and where to
/// write it.
#[derive(Debug, Clone, clap::Args)]
pub struct ExportArgs {
    /// What to export.
    #[command(flatten)]
    pub request: crate::ops::minds::ExportRequest,
    /// Write to this file (default: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `hive-mind restore`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct RestoreArgs {
    /// The JSON Lines export to restore.
    pub file: PathBuf,
    /// Restore into this workspace's mind (default: the personal mind).
    /// The mind must be empty.
    #[arg(long)]
    pub workspace: Option<String>,
    /// No progress bar for the re-embedding.
    #[arg(long)]
    pub quiet: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

fn mind_of(workspace: Option<&String>) -> Result<Mind, CommandError> {
    match workspace {
        Some(id) => convert::workspace(id).map_err(CommandError::Argument),
        None => Ok(Mind::Personal),
    }
}

/// Export a mind of the data directory `dir`; the number of lines written.
pub fn export(dir: &Path, args: &ExportArgs) -> Result<usize, CommandError> {
    let operation = crate::ops::minds::Export::new(&args.request)?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    let lines = crate::ops::execute(&mut engine, &crate::ops::Caller::Owner, operation)?;
    let mut text = lines.join("\n");
    text.push('\n');
    match &args.out {
        Some(path) => std::fs::write(path, text)?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(lines.len())
}

/// Restore an export into an empty mind of the data directory `dir`, then
/// embed it; the report as JSON.
pub fn restore(dir: &Path, args: &RestoreArgs) -> Result<Json, CommandError> {
    let mind = mind_of(args.workspace.as_ref())?;
    let file = std::fs::File::open(&args.file)
        .map_err(|error| CommandError::Argument(format!("{}: {error}", args.file.display())))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_RESTORE_BYTES + 1),
        &mut bytes,
    )
    .map_err(|error| CommandError::Argument(format!("{}: {error}", args.file.display())))?;
    if bytes.len() as u64 > MAX_RESTORE_BYTES {
        return Err(CommandError::Argument(format!(
            "{}: larger than {MAX_RESTORE_BYTES} bytes",
            args.file.display()
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| CommandError::Argument(format!("{}: not UTF-8 text", args.file.display())))?;
    let lines: Vec<String> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(str::to_string)
        .collect();
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    let report = crate::ops::execute(
        &mut engine,
        &crate::ops::Caller::Owner,
        crate::ops::minds::Restore {
            mind: mind.clone(),
            lines,
        },
    )?;
    let reindexed = crate::admin_cli::reindex_mind(&mut engine, &mind, args.quiet)?;
    Ok(json!({
        "mind": convert::mind_name(&mind),
        "frames": report.frames,
        "tables": report.tables.iter().map(|table| json!({"table": table.table, "rows": table.rows})).collect::<Vec<_>>(),
        "reindexed": reindexed,
    }))
}
