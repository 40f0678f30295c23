//! `hive-mind import`: harvest files, folders, zips and URLs into a mind.
//!
//! Glue over the engine's `harvest` export: the host only reads bytes
//! (files, each file of a folder) or passes URLs on (the engine fetches them
//! through the host's guarded `fetch` import), then steps the engine's
//! import jobs with a progress bar and prints their merged report. Each
//! input is its own job, read when its turn comes ([`import_each`], the
//! runtime's loop every surface shares): a folder of exports is never held
//! in memory whole, nor copied into the engine in one call. Format
//! detection, parsing, the passes and the writes are all the engine's; this
//! module parses the command line, reads the inputs and prints the report.
//!
//! Files larger than [`MAX_FILE_BYTES`] are refused before they are read (a
//! clear error rather than a process that runs out of memory); the engine
//! has its own, tighter caps per format.

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use hive_mind_runtime::engine::convert::{mind_name, timestamp_name};
use hive_mind_runtime::engine::import::import_each;
use hive_mind_runtime::engine::wit_harvest::{
    Document, HarvestSource, ImportReport, Input, SourceFormat, SourceReport,
};
use hive_mind_runtime::engine::wit_names::WitEnum;
use hive_mind_runtime::engine::wit_types::Mind;
use hive_mind_runtime::engine::{EngineError, EngineRuntime, describe_harvest_error};
use hive_mind_terminal::Progress;

/// The largest file the host reads into memory for the engine.
pub const MAX_FILE_BYTES: u64 = 512 * 1024 * 1024;

/// The most files a folder import reads (a folder of a million files is a
/// mistake, not a history).
pub const MAX_FOLDER_FILES: usize = 10_000;

/// `hive-mind import`'s arguments: the inputs, the one import request's
/// flags, and how to print.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Files, folders (read recursively), zip archives or http(s) URLs.
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// How to import.
    #[command(flatten)]
    pub request: crate::ops::import::ImportRequest,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Why an import could not run.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A bad argument or an unreadable input.
    #[error("{0}")]
    Input(String),
    /// The engine refused or failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Read one file for the engine, refusing what is too large to hold: a
/// file that says it is larger is refused before it is read, and the read
/// itself stops after [`MAX_FILE_BYTES`] (a reported length is 0 for
/// `/dev/zero` and `/proc`). The person at the command line names any file,
/// a FIFO or `<(…)` included; the agent's paths go through
/// [`hive_mind_files`].
pub fn read_document(path: &Path) -> Result<Document, ImportError> {
    let io_error =
        |error: std::io::Error| ImportError::Input(format!("{}: {error}", path.display()));
    let file = std::fs::File::open(path).map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    if metadata.len() > MAX_FILE_BYTES {
        return Err(ImportError::Input(format!(
            "{}: {} bytes is more than the {MAX_FILE_BYTES} bytes an import reads; split the export",
            path.display(),
            metadata.len()
        )));
    }
    let bytes = hive_mind_files::read_capped(file, path, MAX_FILE_BYTES)
        .map_err(|error| ImportError::Input(error.to_string()))?;
    Ok(Document {
        name: path.display().to_string(),
        bytes,
    })
}

/// The files under a folder, sorted, hidden entries skipped.
fn folder_files(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    hive_mind_files::walk(dir, MAX_FOLDER_FILES, &|_| true)
        .map_err(|error| ImportError::Input(error.to_string()))
}

/// One input of the command line, not read yet: a URL, or a file (a
/// folder's files are listed, each its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PendingInput {
    /// An http(s) URL, fetched by the engine.
    Url(String),
    /// A file, read when its turn comes.
    File(PathBuf),
}

impl PendingInput {
    /// The engine's input: the URL, or the file's bytes.
    pub fn read(self) -> Result<Input, ImportError> {
        Ok(match self {
            PendingInput::Url(url) => Input::Url(url),
            PendingInput::File(path) => Input::Document(read_document(&path)?),
        })
    }
}

/// The command line's inputs (files, folders, URLs), folders listed but
/// nothing read: [`import`] reads one file at a time.
pub fn list_inputs(inputs: &[String]) -> Result<Vec<PendingInput>, ImportError> {
    let mut out = Vec::new();
    for input in inputs {
        if crate::ops::import::is_url(input) {
            out.push(PendingInput::Url(input.trim().to_string()));
            continue;
        }
        let path = Path::new(input);
        if path.is_dir() {
            let files = folder_files(path)?;
            if files.is_empty() {
                return Err(ImportError::Input(format!(
                    "{input}: the folder has no files"
                )));
            }
            out.extend(files.into_iter().map(PendingInput::File));
        } else {
            // A file that is not there is refused before anything runs.
            std::fs::metadata(path)
                .map_err(|error| ImportError::Input(format!("{input}: {error}")))?;
            out.push(PendingInput::File(path.to_path_buf()));
        }
    }
    Ok(out)
}

/// `hive-mind import`: the report (printed by the caller); whether every
/// input imported; the mind it imported into.
pub fn import(
    engine: &mut EngineRuntime,
    args: &ImportArgs,
) -> Result<(ImportReport, bool, Mind), ImportError> {
    // The owner's import makes a workspace's mind by its first write.
    let import = args
        .request
        .import(crate::ops::WritePolicy::COMMAND_LINE)
        .and_then(|import| import.admit(&crate::ops::Caller::Owner))
        .map_err(|error| ImportError::Input(error.to_string()))?;
    let inputs = list_inputs(&args.inputs)?;
    let progress = Progress::new(0, "items", args.quiet || args.json);
    let report = import_each(
        engine,
        inputs.into_iter().map(PendingInput::read),
        import.options(),
        &progress,
    )?;
    progress.finish();
    let complete = report.sources.iter().all(|source| source.error.is_none());
    Ok((report, complete, import.mind().clone()))
}

/// A source imported before (`hive-mind sources`, MCP `harvest_sources`).
pub fn harvest_source_json(source: &HarvestSource) -> Json {
    json!({
        "format": source.format.wit_name(),
        "name": source.name,
        "items": source.items,
        "set_hash": source.set_hash,
        "first_imported": timestamp_name(source.first_imported),
        "last_imported": timestamp_name(source.last_imported),
    })
}

fn source_json(source: &SourceReport) -> Json {
    json!({
        "name": source.name,
        "format": source.format.map(SourceFormat::wit_name),
        "items": source.items,
        "known": source.known,
        "unchanged": source.unchanged,
        "error": source.error.as_ref().map(describe_harvest_error),
        "notes": source.notes,
    })
}

/// The report as JSON (stable keys, for scripts and tests).
pub fn report_json(report: &ImportReport) -> Json {
    json!({
        "sources": report.sources.iter().map(source_json).collect::<Vec<_>>(),
        "distillation": report.distillation.wit_name(),
        "dry_run": report.dry_run,
        "items": report.items,
        "quarantined_items": report.quarantined_items,
        "skipped_low_value": report.skipped_low_value,
        "imported": report.imported,
        "failed": report.failed,
        "extracted": report.extracted,
        "duplicates_exact": report.duplicates_exact,
        "duplicates_near": report.duplicates_near,
        "contradictions": report.contradictions,
        "dropped_extractions": report.dropped_extractions,
        "frames": {
            "raw_turns": report.frames.raw_turns,
            "facts": report.frames.facts,
            "events": report.frames.events,
            "profiles": report.frames.profiles,
            "documents": report.frames.documents,
        },
        "entities_new": report.entities_new,
        "entities_seen": report.entities_seen,
        "relations": report.relations,
        "llm": {
            "calls": report.llm_calls,
            "input_tokens": report.llm_input_tokens,
            "output_tokens": report.llm_output_tokens,
        },
        "notes": report.notes,
    })
}

/// The report for people.
pub fn report_text(report: &ImportReport, mind: &Mind) -> String {
    let mut out = String::new();
    let verb = if report.dry_run {
        "would import"
    } else {
        "imported"
    };
    for source in &report.sources {
        let format = source.format.map_or("?", SourceFormat::wit_name);
        match &source.error {
            Some(error) => out.push_str(&format!(
                "✗ {} ({format}): {}\n",
                source.name,
                describe_harvest_error(error)
            )),
            None if source.unchanged => out.push_str(&format!(
                "= {} ({format}): {} items, imported before and unchanged — nothing to do\n",
                source.name, source.items
            )),
            None => out.push_str(&format!(
                "✓ {} ({format}): {} items ({} already imported)\n",
                source.name, source.items, source.known
            )),
        }
        for note in &source.notes {
            out.push_str(&format!("    · {note}\n"));
        }
    }
    let frames = &report.frames;
    out.push_str(&format!(
        "\n{verb} into {} — distillation: {}\n",
        mind_name(mind),
        report.distillation.wit_name()
    ));
    out.push_str(&format!(
        "  pass 0  screen      {} items in, {} hostile (quarantined, not distilled)\n",
        report.items, report.quarantined_items
    ));
    if report.quarantined_items > 0 && !report.dry_run {
        out.push_str(
            "                      kept for your review, never recalled: `hive-mind review flagged` \
             lists them, `hive-mind review release REF` lets one through\n",
        );
    }
    out.push_str(&format!(
        "  pass 1  classify    {} skipped as low value\n",
        report.skipped_low_value
    ));
    out.push_str(&format!(
        "  pass 2–3 distill    {} items distilled, {} extractions, {} failed\n",
        report.imported, report.extracted, report.failed
    ));
    out.push_str(&format!(
        "  pass 4  dedup       {} exact, {} near duplicates dropped; {} possible contradictions; {} extractions dropped by the second scan\n",
        report.duplicates_exact, report.duplicates_near, report.contradictions, report.dropped_extractions
    ));
    out.push_str(&format!(
        "  frames              {} raw turns, {} facts, {} events, {} profiles, {} document sections\n",
        frames.raw_turns, frames.facts, frames.events, frames.profiles, frames.documents
    ));
    out.push_str(&format!(
        "  graph               {} new entities, {} seen again, {} relations\n",
        report.entities_new, report.entities_seen, report.relations
    ));
    out.push_str(&format!(
        "  llm                 {} calls, {} input + {} output tokens\n",
        report.llm_calls, report.llm_input_tokens, report.llm_output_tokens
    ));
    if !report.notes.is_empty() {
        out.push_str("notes:\n");
        for note in &report.notes {
            out.push_str(&format!("  · {note}\n"));
        }
    }
    out
}
