//! `hive-mind save` and `hive-mind recall`: the memory API through the engine
//! component.
//!
//! Each command's flags are the operation's one request
//! ([`crate::ops::save::SaveRequest`], [`crate::ops::recall::RecallRequest`]:
//! the same type MCP and REST take), run as the owner over the data
//! directory ([`hive_mind_runtime::engine::open`]).

use std::path::Path;

use serde_json::{Value as Json, json};

use crate::command_error::CommandError;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_types;

/// The WIT frame as JSON, every field by its WIT name.
pub fn frame_json(frame: &wit_types::Frame) -> Json {
    convert::frame_json(frame)
}

/// Save one memory in the data directory `dir`, as its owner; the saved
/// frame as JSON.
pub fn save(dir: &Path, request: &crate::ops::save::SaveRequest) -> Result<Json, CommandError> {
    let operation = crate::ops::save::SaveOperation::new(
        request.clone(),
        crate::ops::WritePolicy::COMMAND_LINE,
    )?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    let saved = crate::ops::execute(&mut engine, &crate::ops::Caller::Owner, operation)?;
    Ok(with_quarantine_notice(saved_json(&saved)))
}

/// A saved memory as JSON: its reference, whether it was a duplicate, and
/// the frame.
pub fn saved_json(saved: &hive_mind_runtime::engine::wit_memory::SavedMemory) -> Json {
    let frame = frame_json(&saved.frame);
    json!({
        "ref": frame["ref"],
        "duplicate": saved.duplicate,
        "frame": frame,
    })
}

/// A save's JSON ([`saved_json`]) with a `notice` saying plainly that the
/// memory was quarantined and how its owner releases it, when it was (not
/// only as a flag in the frame's screening).
pub fn with_quarantine_notice(mut saved: Json) -> Json {
    if let Some(notice) = crate::human::quarantine_notice(&saved["frame"]) {
        saved["notice"] = Json::String(notice);
    }
    saved
}

/// `hive-mind recall`'s arguments: the one recall request, and how to
/// print its answer.
#[derive(Debug, Clone, clap::Args)]
pub struct RecallArgs {
    /// The recall.
    #[command(flatten)]
    pub request: crate::ops::recall::RecallRequest,
    /// Print the structured result as JSON instead of the text.
    #[arg(long)]
    pub json: bool,
}

/// Recall memories in the data directory `dir`, as its owner.
pub fn recall(
    dir: &Path,
    args: &RecallArgs,
) -> Result<hive_mind_runtime::engine::wit_memory::Recall, CommandError> {
    let operation = crate::ops::recall::RecallOperation::try_from(args.request.clone())?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    Ok(crate::ops::execute(
        &mut engine,
        &crate::ops::Caller::Owner,
        operation,
    )?)
}
