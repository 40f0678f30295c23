//! The store's vocabulary: the native mirror of the records in
//! `wit/types.wit` (mind, frame ref, frame) and of what the store's queries
//! take and give (new frame, filters, hits).
//!
//! Importance and source are not redefined here: they are
//! [`hive_mind_core::Importance`] and [`hive_mind_core::Source`], the same enums
//! the guest uses, and the database's CHECK constraints are generated from
//! their `ALL` lists (see [`super::schema`]). Frame ids are only unique within
//! one mind, so every id that leaves the store is a [`FrameRef`] naming its
//! mind.

use std::fmt;
use std::str::FromStr;

use hive_mind_core::{Importance, Source};
use serde::{Deserialize, Serialize};

use super::error::StoreError;

/// Which mind a memory lives in (WIT `mind`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mind {
    /// The user's personal mind, always open.
    Personal,
    /// A workspace mind, by workspace id.
    Workspace(String),
}

impl Mind {
    /// The longest workspace id accepted.
    pub const MAX_WORKSPACE_ID: usize = 64;

    /// A workspace mind, after checking that the id is usable as a file name:
    /// 1–64 ASCII letters, digits, `-`, `_` or `.`, not starting with `.`,
    /// and not `personal`.
    pub fn workspace(id: &str) -> Result<Mind, StoreError> {
        let valid = !id.is_empty()
            && id.len() <= Self::MAX_WORKSPACE_ID
            && !id.starts_with('.')
            && id != "personal"
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if valid {
            Ok(Mind::Workspace(id.to_string()))
        } else {
            Err(StoreError::InvalidInput(format!(
                "bad workspace id {id:?}: use 1-{} ASCII letters, digits, '-', '_' or '.' (not starting with '.', not \"personal\")",
                Self::MAX_WORKSPACE_ID
            )))
        }
    }
}

impl fmt::Display for Mind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mind::Personal => f.write_str("personal"),
            Mind::Workspace(id) => write!(f, "workspace:{id}"),
        }
    }
}

/// A frame's identity: its mind and its id there (WIT `frame-ref`).
///
/// Written as `personal:42` or `workspace:<id>:42`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FrameRef {
    /// The mind holding the frame.
    pub mind: Mind,
    /// The frame's id, unique within `mind` only.
    pub id: u64,
}

impl fmt::Display for FrameRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.mind, self.id)
    }
}

impl FromStr for FrameRef {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || {
            StoreError::InvalidInput(format!(
                "bad frame reference {text:?}: expected personal:<id> or workspace:<workspace>:<id>"
            ))
        };
        let (mind, id) = text.rsplit_once(':').ok_or_else(bad)?;
        let id: u64 = id.parse().map_err(|_| bad())?;
        let mind = match mind.split_once(':') {
            None if mind == "personal" => Mind::Personal,
            Some(("workspace", workspace)) => Mind::workspace(workspace)?,
            _ => return Err(bad()),
        };
        Ok(FrameRef { mind, id })
    }
}

/// The kind of a frame in a session's log (WIT `frame-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrameType {
    /// Starts a session's log.
    IFrame,
    /// Appends to the session's I-frame.
    PFrame,
    /// An alternative to another frame, kept beside it.
    BFrame,
}

impl FrameType {
    /// Every frame type.
    pub const ALL: [FrameType; 3] = [FrameType::IFrame, FrameType::PFrame, FrameType::BFrame];

    /// The name used in WIT, JSON and the database.
    pub fn as_str(self) -> &'static str {
        match self {
            FrameType::IFrame => "i-frame",
            FrameType::PFrame => "p-frame",
            FrameType::BFrame => "b-frame",
        }
    }
}

/// Parse a name of one of the vocabulary enums.
fn parse_named<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    what: &str,
    text: &str,
) -> Result<T, StoreError> {
    all.iter()
        .copied()
        .find(|item| name(*item) == text)
        .ok_or_else(|| {
            let allowed: Vec<&str> = all.iter().map(|item| name(*item)).collect();
            StoreError::InvalidInput(format!(
                "unknown {what} {text:?}; expected one of: {}",
                allowed.join(", ")
            ))
        })
}

/// Read an importance by its name (`critical`, …), as a typed error otherwise.
pub fn parse_importance(text: &str) -> Result<Importance, StoreError> {
    parse_named(&Importance::ALL, Importance::as_str, "importance", text)
}

/// Read a source by its name (`user-stated`, …), as a typed error otherwise.
pub fn parse_source(text: &str) -> Result<Source, StoreError> {
    parse_named(&Source::ALL, Source::as_str, "source", text)
}

/// Read a frame type by its name (`i-frame`, …).
pub fn parse_frame_type(text: &str) -> Result<FrameType, StoreError> {
    parse_named(&FrameType::ALL, FrameType::as_str, "frame type", text)
}

/// One stored memory (WIT `frame`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Frame {
    /// Where the frame lives and its id there.
    #[serde(rename = "ref")]
    pub frame_ref: FrameRef,
    /// I, P or B.
    pub frame_type: FrameType,
    /// The session it belongs to.
    pub gop_id: String,
    /// Monotonic logical time within the session (0 for the I-frame).
    pub t: u32,
    /// The frame this one patches or branches (same mind).
    pub base_frame_id: Option<u64>,
    /// The memory's text.
    pub content: String,
    /// How much it matters.
    pub importance: Importance,
    /// Where it came from.
    pub source: Source,
    /// How often recall has returned it.
    pub access_count: u32,
    /// Event time, normalised to UTC (`YYYY-MM-DDTHH:MM:SS.sssZ`).
    pub created_at: String,
    /// The calendar date of the event as it was written (`YYYY-MM-DD`), which
    /// the date filters use.
    pub event_date: String,
    /// Insertion time (UTC).
    pub inserted_at: String,
    /// When recall last returned it, if ever.
    pub last_accessed: Option<String>,
    /// SHA-256 hex of the content without its `[hm …]` prefix.
    pub content_hash: String,
    /// A JSON object; never indexed.
    pub metadata: String,
    /// The event time it stopped being valid: a correction or a newer
    /// statement of the same slot replaced it ([`super::validity`]). `None`
    /// while current.
    pub valid_to: Option<String>,
    /// The frame that replaced it (same mind).
    pub superseded_by: Option<u64>,
    /// When the replacement was recorded (ingestion clock).
    pub superseded_at: Option<String>,
    /// Active, or archived by its owner ([`super::review`]).
    pub status: MemoryStatus,
    /// Pinned by its owner: cleanup never retires it.
    pub pinned: bool,
    /// The owner's tags.
    pub tags: Vec<String>,
    /// The memory a merge folded it into (same mind).
    pub merged_into: Option<u64>,
    /// When its owner released it from recall's injection scan.
    pub released_at: Option<String>,
    /// The injection detector's verdict on its text, stored when it was
    /// written; `None` for a frame written before the detector existed
    /// (the next `reindex` screens it).
    pub screening: Option<FrameScreening>,
}

impl Frame {
    /// Whether the write-time screen holds it back now: hostile and not
    /// released by its owner (kept for review, never recalled, closing
    /// nothing).
    pub fn quarantined(&self) -> bool {
        self.screening
            .as_ref()
            .is_some_and(|screening| screening.quarantined)
    }

    /// Whether it stands as written: not replaced or closed, not merged or
    /// archived, not held back by the write-time screen. Only such a frame
    /// is current: the wiki's pages state it, its older versions are their
    /// history.
    pub fn stands(&self) -> bool {
        self.superseded_by.is_none()
            && self.valid_to.is_none()
            && self.merged_into.is_none()
            && self.status == MemoryStatus::Active
            && !self.quarantined()
    }
}

/// The injection detector's verdict on a frame's text, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct FrameScreening {
    /// The score, 0 to 1.
    pub score: f64,
    /// Which detector judged ([`hive_mind_core::detector::detector_name`]).
    pub detector: String,
    /// Why, strongest first.
    pub reasons: Vec<String>,
    /// Hostile and not released by its owner: kept and listed for review,
    /// never recalled.
    pub quarantined: bool,
}

/// A memory's review status (WIT `memory-status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryStatus {
    /// Recalled as usual.
    Active,
    /// Kept, but out of recall: archived by its owner, or by a merge.
    Archived,
}

impl MemoryStatus {
    /// Its name as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryStatus::Active => "active",
            MemoryStatus::Archived => "archived",
        }
    }

    /// The status stored as `text`.
    pub fn parse(text: &str) -> Option<MemoryStatus> {
        match text {
            "active" => Some(MemoryStatus::Active),
            "archived" => Some(MemoryStatus::Archived),
            _ => None,
        }
    }
}

/// A chunk's offsets and embedding (WIT `chunk-vector`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkVector {
    /// Start offset into the frame's content, UTF-8 bytes.
    pub char_start: u32,
    /// End offset (exclusive), UTF-8 bytes.
    pub char_end: u32,
    /// The chunk's embedding.
    pub embedding: Vec<f32>,
}

/// A frame to write (WIT `new-frame`). The store decides I or P: the first
/// frame of a session is its I-frame, later ones are P-frames based on it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewFrame {
    /// The mind to write to.
    pub mind: Mind,
    /// The session; `None` uses (or starts) the mind's active session.
    pub gop_id: Option<String>,
    /// The memory's text (not empty).
    pub content: String,
    /// How much it matters.
    pub importance: Importance,
    /// Where it came from.
    pub source: Source,
    /// Event time (ISO-8601); `None` means now.
    pub created_at: Option<String>,
    /// A JSON object; `None` means `{}`.
    pub metadata: Option<String>,
    /// Words the frame is found by but that are not part of it (a raw
    /// turn's reply context, [`hive_mind_core::reply_context`]): indexed
    /// for full-text search, never shown, hashed or embedded. Empty: none.
    pub context: String,
    /// The frame's embedding, of the mind's dimension; `None` when the
    /// embedder failed on the frame's text or on one of its chunks. Such a
    /// frame is stored without vectors and without chunks: found by full
    /// text only, reported by [`super::MindStore::check`], and embedded by
    /// the next `reindex`.
    pub embedding: Option<Vec<f32>>,
    /// One embedding per chunk of [`super::plan_chunks`]`(content)`, in order
    /// (empty for a frame short enough to be one chunk, and for a frame
    /// without an embedding).
    pub chunks: Vec<ChunkVector>,
}

impl NewFrame {
    /// A normal-importance, user-stated frame in `mind`'s active session,
    /// dated now, with no chunks.
    pub fn new(mind: Mind, content: impl Into<String>, embedding: Vec<f32>) -> NewFrame {
        NewFrame {
            mind,
            gop_id: None,
            content: content.into(),
            importance: Importance::Normal,
            source: Source::UserStated,
            created_at: None,
            metadata: None,
            context: String::new(),
            embedding: Some(embedding),
            chunks: Vec::new(),
        }
    }
}

/// The content of a B-frame: what the branch is and which frames it refers
/// to. Stored as the JSON `{"description": …, "references": […]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BranchContent {
    /// What the alternative is.
    pub description: String,
    /// Frame ids (same mind) the branch refers to.
    pub references: Vec<u64>,
}

impl BranchContent {
    /// The frame content a branch is stored as.
    pub fn to_content(&self) -> String {
        serde_json::json!({"description": self.description, "references": self.references})
            .to_string()
    }
}

/// The outcome of a write (WIT `saved-frame`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavedFrame {
    /// The frame as stored.
    pub frame: Frame,
    /// True when a frame with the same content hash already existed: it was
    /// touched and returned instead of writing a new one.
    pub duplicate: bool,
}

/// Filters shared by the searches and listings (WIT `search-filter`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchFilter {
    /// The minds to search (empty means the personal mind).
    pub minds: Vec<Mind>,
    /// Only frames whose event date is on or after this day (`YYYY-MM-DD`).
    pub since: Option<String>,
    /// Only frames whose event date is on or before this day (inclusive).
    pub until: Option<String>,
    /// Only frames whose content starts with this prefix, e.g. `[mind-fact]`.
    pub content_prefix: Option<String>,
    /// Only frames of at least this importance.
    pub min_importance: Option<Importance>,
}

/// A search hit (WIT `hit`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// The frame hit.
    #[serde(rename = "ref")]
    pub frame_ref: FrameRef,
    /// The lane's own score, higher is better: BM25 negated, or the cosine
    /// similarity `1 − d²/2` of unit vectors at L2 distance `d`.
    pub score: f64,
    /// The matching chunk's offsets when the hit came from a chunk.
    pub chunk: Option<(u32, u32)>,
}

/// The embedder a mind's vectors were made with: `{provider, model, dim}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmbedderFingerprint {
    /// Who runs the model (`inprocess`, `ollama`, `mock`, …).
    pub provider: String,
    /// The model's name.
    pub model: String,
    /// The vector dimension.
    pub dim: u32,
}

impl fmt::Display for EmbedderFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{} ({} dims)", self.provider, self.model, self.dim)
    }
}
