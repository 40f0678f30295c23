//! The shared vocabulary, mirroring the WIT `hive:mind/types` interface.
//!
//! These are plain Rust types with serde derives whose JSON shape matches what
//! the host prints for the corresponding WIT values, so a native result and a
//! component result can be compared as JSON.

use serde::{Deserialize, Serialize};

/// How much a memory matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Importance {
    /// Must never be forgotten.
    Critical,
    /// Decisions, preferences and findings worth surfacing unprompted.
    Important,
    /// The default.
    Normal,
    /// Useful for a short while.
    Temporary,
    /// Superseded or retracted; kept for history.
    Deprecated,
}

impl Importance {
    /// Every importance, most important first.
    pub const ALL: [Importance; 5] = [
        Importance::Critical,
        Importance::Important,
        Importance::Normal,
        Importance::Temporary,
        Importance::Deprecated,
    ];

    /// The importance signal of recall scoring.
    pub fn weight(self) -> f64 {
        match self {
            Importance::Critical => 2.0,
            Importance::Important => 1.5,
            Importance::Normal => 1.0,
            Importance::Temporary => 0.7,
            Importance::Deprecated => 0.3,
        }
    }

    /// The name used in WIT, JSON and the database (`critical`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Importance::Critical => "critical",
            Importance::Important => "important",
            Importance::Normal => "normal",
            Importance::Temporary => "temporary",
            Importance::Deprecated => "deprecated",
        }
    }
}

/// Where a memory came from. The one list of allowed sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The user said it.
    UserStated,
    /// A tool observed or verified it.
    ToolVerified,
    /// The agent concluded it.
    AgentInferred,
    /// A bulk import.
    Import,
    /// hive-mind itself.
    System,
}

impl Source {
    /// Every allowed source.
    pub const ALL: [Source; 5] = [
        Source::UserStated,
        Source::ToolVerified,
        Source::AgentInferred,
        Source::Import,
        Source::System,
    ];

    /// The name used in WIT, JSON and the database (`user-stated`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::UserStated => "user-stated",
            Source::ToolVerified => "tool-verified",
            Source::AgentInferred => "agent-inferred",
            Source::Import => "import",
            Source::System => "system",
        }
    }
}

/// A calendar period named by a query, both ends inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct DateWindow {
    /// First day, `YYYY-MM-DD`.
    pub since: String,
    /// Last day (inclusive), `YYYY-MM-DD`.
    pub until: String,
    /// The words of the query that named it.
    pub label: String,
}

/// An id with a score; higher is better.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ScoredId {
    /// The id.
    pub id: u64,
    /// The score.
    pub score: f64,
}

/// A piece of a longer text with its absolute position in that text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Chunk {
    /// Zero-based position among the chunks.
    pub index: u32,
    /// Exactly `parent[char_start..char_end]`.
    pub text: String,
    /// Start offset in UTF-8 bytes, on a character boundary.
    pub char_start: u32,
    /// End offset (exclusive) in UTF-8 bytes, on a character boundary.
    pub char_end: u32,
}

/// Why a logic function could not produce an answer (WIT `logic.error`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogicError {
    /// An argument was malformed; the message names it.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}
