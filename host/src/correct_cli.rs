//! `hive-mind correct` and `hive-mind history`: a new version of a memory
//! that closes the old one (`memory.correct-memory`), and the versions of a
//! memory (`memory.memory-history`).

use std::path::Path;

use serde_json::{Value as Json, json};

use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_types::Frame;

use crate::command_error::CommandError;

/// Correct a memory in the data directory `dir`: the new version and the
/// old one, closed, as JSON; with a `notice` when the new version was
/// quarantined (then the old one is not closed).
pub fn correct(
    dir: &Path,
    request: &crate::ops::review::CorrectRequest,
) -> Result<Json, CommandError> {
    let operation = crate::ops::review::Correct::new(request.clone())?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    let corrected = crate::ops::execute(&mut engine, &crate::ops::Caller::Owner, operation)?;
    let mut value = json!({
        "memory": convert::frame_json(&corrected.memory),
        "replaced": convert::frame_json(&corrected.replaced),
    });
    if let Some(notice) = crate::human::correction_notice(&value) {
        value["notice"] = Json::String(notice);
    }
    Ok(value)
}

/// The versions of the memory `request` names, oldest first.
pub fn history(
    dir: &Path,
    request: &crate::ops::review::MemoryRequest,
) -> Result<Vec<Frame>, CommandError> {
    let operation = crate::ops::review::History::new(request)?;
    let mut engine = hive_mind_runtime::engine::open(dir)?;
    Ok(crate::ops::execute(
        &mut engine,
        &crate::ops::Caller::Owner,
        operation,
    )?)
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
