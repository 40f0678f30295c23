//! `hive-mind correct` and `hive-mind history`: a new version of a memory
//! that closes the old one (`memory.correct-memory`), and the versions of a
//! memory (`memory.memory-history`).

use std::path::Path;

use serde_json::{Value as Json, json};

use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_memory::Correction;
use hive_mind_runtime::engine::wit_types::Frame;

use crate::command_error::CommandError;

/// `hive-mind correct`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct CorrectArgs {
    /// The memory to correct (`personal:42`, `workspace:acme:7`).
    pub memory: String,
    /// The corrected text.
    pub text: String,
    /// When the corrected fact became true (ISO-8601); default now.
    #[arg(long)]
    pub created_at: Option<String>,
}

/// Correct a memory in the data directory `dir`: the new version and the
/// old one, closed, as JSON.
pub fn correct(dir: &Path, args: &CorrectArgs) -> Result<Json, CommandError> {
    crate::limits::check_each(&[
        ("text", Some(&args.text)),
        ("memory", Some(&args.memory)),
        ("created_at", args.created_at.as_ref()),
    ])
    .map_err(|error| CommandError::Argument(error.to_string()))?;
    let frame = convert::ref_in(&args.memory).map_err(CommandError::Argument)?;
    let created_at = args
        .created_at
        .as_deref()
        .map(convert::timestamp_in)
        .transpose()
        .map_err(|why| CommandError::Argument(format!("--created-at: {why}")))?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    let corrected = engine.correct_memory(&Correction {
        frame,
        content: args.text.clone(),
        created_at,
    })?;
    Ok(json!({
        "memory": convert::frame_json(&corrected.memory),
        "replaced": convert::frame_json(&corrected.replaced),
    }))
}

/// The versions of a memory in the data directory `dir`, oldest first.
pub fn history(dir: &Path, memory: &str) -> Result<Vec<Frame>, CommandError> {
    let frame = convert::ref_in(memory).map_err(CommandError::Argument)?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    Ok(engine.memory_history(&frame)?)
}

/// The versions for a person: one line each, the current one marked.
pub fn history_text(versions: &[Frame]) -> String {
    let mut text = String::new();
    for version in versions {
        let state = match (&version.valid_to, &version.superseded_by) {
            (Some(until), Some(by)) => format!(
                "until {} (replaced by {})",
                convert::timestamp_name(*until),
                convert::ref_name(by)
            ),
            (Some(until), None) => format!("until {}", convert::timestamp_name(*until)),
            _ => "current".to_string(),
        };
        text.push_str(&format!(
            "{}  from {}  {state}\n    {}\n",
            convert::ref_name(&version.ref_),
            convert::timestamp_name(version.created_at),
            version.content.replace('\n', " ")
        ));
    }
    text
}
