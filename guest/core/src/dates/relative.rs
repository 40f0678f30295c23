//! Relative date cues resolved against an anchor.

use serde::{Deserialize, Serialize};

use crate::types::LogicError;

/// A relative cue and the date it resolves to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ResolvedDate {
    /// The cue as written.
    pub cue: String,
    /// `YYYY-MM-DD`.
    pub date: String,
}

/// Resolve the first relative cue in `text` against `anchor`.
pub fn resolve_relative_date(text: &str, anchor: &str) -> Result<Option<ResolvedDate>, LogicError> {
    unimplemented!("{text}{anchor}")
}
