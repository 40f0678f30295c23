//! Pattern write-back: what is worth remembering in a live exchange.

use serde::{Deserialize, Serialize};

use crate::types::Importance;

/// What a candidate records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteBackKind {
    /// How the user likes things.
    Preference,
    /// The user correcting the agent.
    Correction,
    /// A decision taken.
    Decision,
    /// Something learned.
    Finding,
    /// How answers should be written.
    Style,
    /// Work the assistant delivered.
    WorkOutput,
}

/// Which mind a candidate belongs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetMind {
    /// About the user.
    Personal,
    /// About the work.
    Workspace,
}

/// A memory worth keeping.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct WriteBackCandidate {
    /// What it records.
    pub kind: WriteBackKind,
    /// The memory text.
    pub content: String,
    /// Where it belongs.
    pub target: TargetMind,
    /// How much it matters.
    pub importance: Importance,
    /// The matched pattern's name.
    pub pattern: String,
}

/// Find the memories worth keeping in an exchange.
pub fn pattern_write_back(user: &str, assistant: &str) -> Vec<WriteBackCandidate> {
    unimplemented!("{user}{assistant}")
}
