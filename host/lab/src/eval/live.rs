//! # What the live-memory evaluations share
//!
//! [`super::timelines`] and [`super::live_loop`] measure the loop an agent
//! runs: it writes memories as it works, through three write paths, then
//! recalls. Both read hand-written data files (the format is
//! `host/lab/data/README.md`) and both score recall the same way, so the
//! pieces they share are here, written once:
//!
//! - **Reading** a data file field by field ([`Fields`]): every malformed
//!   value is an [`EvalError::Malformed`] naming where it is (`file:line`
//!   for a JSON Lines file, `file: events[12]` for a JSON one) and which
//!   field, so a typo in the data never turns into a silent zero.
//! - **Matching** ([`contains_all`], [`contains_any`], [`rank_of`]):
//!   expected strings are matched case-insensitively, as substrings of a
//!   recalled memory's text; a memory "contains" a set when it contains
//!   every string of it.
//! - **Writing** ([`WritePath`], [`write_statement`]): one statement, dated,
//!   through `memory.save-memory` (with `created-at`), `memory.remember-exchange`
//!   (cognify, with `occurred-at`) or `memory.import-conversations` (a
//!   one-turn conversation dated at the statement), the way an agent would.
//! - **Recalling** ([`recall`]): `memory.recall-memory` with `limit` 10,
//!   the personal mind, `now` set, every other option the engine's default.
//! - **The recall block** ([`first_block_memory`]): the first memory line of
//!   `recall.text`, which is what the model reading the block sees first.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value as Json};

use super::EvalError;
use super::run::Reranking;
use crate::mind::open_engine;
use hive_mind_models::embedder::Embedder;
use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_memory::{
    ExchangeOptions, ImportedConversation, ImportedTurn, MemoryInput, Recall, RecallOptions,
    RecallScope,
};
use hive_mind_runtime::engine::wit_types::{self, FrameRef, Importance, Mind};

/// The recall limit every live-memory question is asked with.
pub const RECALL_LIMIT: u32 = 10;

/// One day, in milliseconds (a timeline's question is asked a day after its
/// last statement).
pub const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// What the assistant answers in the exchange a timeline statement is
/// learned from (`remember_exchange(statement, "Noted.")`).
pub const NOTED: &str = "Noted.";

/// The three ways an agent writes a memory.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum WritePath {
    /// `memory.save-memory`: the agent saves the statement itself.
    Save,
    /// `memory.remember-exchange`: the engine learns from an exchange in
    /// which the user said it (no LLM).
    Cognify,
    /// `memory.import-conversations`: a past conversation imported verbatim.
    Import,
}

impl WritePath {
    /// All three, in report order.
    pub const ALL: [WritePath; 3] = [WritePath::Save, WritePath::Cognify, WritePath::Import];

    /// Its name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WritePath::Save => "save",
            WritePath::Cognify => "cognify",
            WritePath::Import => "import",
        }
    }
}

/// Whether `text` contains `needle`, ignoring case.
pub fn contains(text: &str, needle: &str) -> bool {
    text.to_lowercase().contains(&needle.to_lowercase())
}

/// Whether `text` contains every one of `needles` (ignoring case); an empty
/// set is never contained (it would match everything).
pub fn contains_all(text: &str, needles: &[String]) -> bool {
    let lower = text.to_lowercase();
    !needles.is_empty()
        && needles
            .iter()
            .all(|needle| lower.contains(&needle.to_lowercase()))
}

/// Whether `text` contains any of `needles` (ignoring case).
pub fn contains_any(text: &str, needles: &[String]) -> bool {
    let lower = text.to_lowercase();
    needles
        .iter()
        .any(|needle| lower.contains(&needle.to_lowercase()))
}

/// The 1-based rank of the first of `texts` that contains all of
/// `needles`, if any.
pub fn rank_of(texts: &[String], needles: &[String]) -> Option<usize> {
    texts
        .iter()
        .position(|text| contains_all(text, needles))
        .map(|index| index + 1)
}

/// The first memory line of a recall block: the first line that starts a
/// memory (`- [date] …`), without its bullet. `None` when the block lists
/// no memory.
pub fn first_block_memory(block: &str) -> Option<&str> {
    block
        .lines()
        .find_map(|line| line.strip_prefix("- "))
        .map(str::trim)
}

/// Parse an RFC 3339 time (`2026-03-14T09:30:00Z`) into Unix milliseconds.
pub fn parse_time(text: &str) -> Result<i64, String> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .map(|instant| instant.timestamp_millis())
        .map_err(|e| format!("{text:?} is not an RFC 3339 time like 2026-03-14T09:30:00Z ({e})"))
}

/// An importance as the data files spell it: `critical`, `important`,
/// `normal`, `low` (the engine's `temporary`).
pub fn parse_importance(text: &str) -> Result<Importance, String> {
    match text {
        "critical" => Ok(Importance::Critical),
        "important" => Ok(Importance::Important),
        "normal" => Ok(Importance::Normal),
        "low" => Ok(Importance::Temporary),
        other => Err(format!(
            "{other:?} is not one of critical, important, normal, low"
        )),
    }
}

/// A JSON object of a data file, read field by field; each error names the
/// object's place (`at`) and the field.
pub struct Fields<'a> {
    at: &'a str,
    object: &'a Map<String, Json>,
}

impl<'a> Fields<'a> {
    /// `value` as an object found at `at` (`file:line`, `file: events[3]`).
    pub fn of(at: &'a str, what: &str, value: &'a Json) -> Result<Fields<'a>, EvalError> {
        match value.as_object() {
            Some(object) => Ok(Fields { at, object }),
            None => Err(malformed(at, what, "expected a JSON object")),
        }
    }

    /// Where the object is.
    pub fn at(&self) -> &'a str {
        self.at
    }

    /// The field's value, if present and not null.
    pub fn get(&self, field: &str) -> Option<&'a Json> {
        self.object.get(field).filter(|value| !value.is_null())
    }

    /// A required field.
    pub fn required(&self, field: &str) -> Result<&'a Json, EvalError> {
        self.get(field)
            .ok_or_else(|| malformed(self.at, field, "missing"))
    }

    /// A required, non-blank string.
    pub fn string(&self, field: &str) -> Result<String, EvalError> {
        match self.required(field)?.as_str() {
            Some(text) if !text.trim().is_empty() => Ok(text.to_string()),
            Some(_) => Err(malformed(self.at, field, "is blank")),
            None => Err(malformed(self.at, field, "expected a string")),
        }
    }

    /// An optional string (absent or null: `None`).
    pub fn optional_string(&self, field: &str) -> Result<Option<String>, EvalError> {
        match self.get(field) {
            None => Ok(None),
            Some(_) => self.string(field).map(Some),
        }
    }

    /// A required RFC 3339 time, in Unix milliseconds.
    pub fn time(&self, field: &str) -> Result<i64, EvalError> {
        let text = self.string(field)?;
        parse_time(&text).map_err(|why| malformed(self.at, field, &why))
    }

    /// A required, non-empty list of non-blank strings.
    pub fn strings(&self, field: &str) -> Result<Vec<String>, EvalError> {
        strings_of(self.at, field, self.required(field)?)
    }

    /// An optional boolean (absent: `false`).
    pub fn flag(&self, field: &str) -> Result<bool, EvalError> {
        match self.get(field) {
            None => Ok(false),
            Some(value) => value
                .as_bool()
                .ok_or_else(|| malformed(self.at, field, "expected true or false")),
        }
    }

    /// A required list.
    pub fn list(&self, field: &str) -> Result<&'a Vec<Json>, EvalError> {
        self.required(field)?
            .as_array()
            .ok_or_else(|| malformed(self.at, field, "expected a list"))
    }
}

/// `value` as a non-empty list of non-blank strings.
pub fn strings_of(at: &str, field: &str, value: &Json) -> Result<Vec<String>, EvalError> {
    let Some(items) = value.as_array() else {
        return Err(malformed(at, field, "expected a list of strings"));
    };
    if items.is_empty() {
        return Err(malformed(at, field, "is an empty list"));
    }
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match item.as_str() {
            Some(text) if !text.trim().is_empty() => Ok(text.to_string()),
            _ => Err(malformed(
                at,
                &format!("{field}[{index}]"),
                "expected a non-blank string",
            )),
        })
        .collect()
}

/// The error for a malformed `field` at `at`.
pub fn malformed(at: &str, field: &str, why: &str) -> EvalError {
    EvalError::Malformed {
        at: at.to_string(),
        field: field.to_string(),
        why: why.to_string(),
    }
}

/// Read a data file whole.
pub fn read_file(path: &Path) -> Result<String, EvalError> {
    std::fs::read_to_string(path).map_err(|source| EvalError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// A fresh engine over a new temporary data directory (deleted when the
/// returned guard is dropped), with the embedder and reranker measured.
fn fresh_engine(
    embedder: &Arc<dyn Embedder>,
    reranking: &Reranking,
) -> Result<(tempfile::TempDir, EngineRuntime), EvalError> {
    let dir = tempfile::Builder::new()
        .prefix("hive-mind-live-")
        .tempdir()
        .map_err(EvalError::TempDir)?;
    let engine = open_engine(
        dir.path(),
        Arc::clone(embedder),
        Arc::clone(&reranking.reranker),
    )?;
    Ok((dir, engine))
}

/// An engine over `dir`, a data directory that is kept: it must not exist
/// yet, or be empty (a mind is never written over), with the embedder and
/// reranker measured.
fn kept_engine(
    dir: &Path,
    embedder: &Arc<dyn Embedder>,
    reranking: &Reranking,
) -> Result<EngineRuntime, EvalError> {
    let occupied = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if occupied {
        return Err(EvalError::Option(format!(
            "--keep {}: the folder is not empty (a kept mind is built in a new or empty folder)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(EvalError::TempDir)?;
    Ok(open_engine(
        dir,
        Arc::clone(embedder),
        Arc::clone(&reranking.reranker),
    )?)
}

/// An engine over `keep` when given ([`kept_engine`]), else over a fresh
/// temporary data directory ([`fresh_engine`], whose guard comes back with
/// it), with the embedder and reranker measured.
pub fn engine_in(
    keep: Option<&Path>,
    embedder: &Arc<dyn Embedder>,
    reranking: &Reranking,
) -> Result<(Option<tempfile::TempDir>, EngineRuntime), EvalError> {
    match keep {
        Some(dir) => Ok((None, kept_engine(dir, embedder, reranking)?)),
        None => {
            let (dir, engine) = fresh_engine(embedder, reranking)?;
            Ok((Some(dir), engine))
        }
    }
}

/// The frames a write produced, as far as the call says: save and cognify
/// return their frames; an import returns counts only (its frames are found
/// afterwards by their conversation key, [`conversation_of`]).
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// The frames saved (empty for an import).
    pub frames: Vec<wit_types::Frame>,
    /// Frames the engine reports written (an import's `written`; a save's
    /// or cognify's new, non-duplicate frames).
    pub new: u32,
}

/// Write one dated statement through `path`. `key` names an imported
/// conversation (so its frames can be traced back); `importance` is a
/// save's.
pub fn write_statement(
    engine: &mut EngineRuntime,
    path: WritePath,
    key: &str,
    at: i64,
    text: &str,
    importance: Importance,
) -> Result<Written, String> {
    match path {
        WritePath::Save => {
            let saved = engine
                .save_memory(&MemoryInput {
                    content: text.to_string(),
                    importance: Some(importance),
                    source: None,
                    mind: Mind::Personal,
                    created_at: Some(at),
                    kind: None,
                })
                .map_err(|e| format!("save failed: {e}"))?;
            Ok(Written {
                new: u32::from(!saved.duplicate),
                frames: vec![saved.frame],
            })
        }
        WritePath::Cognify => remember(engine, text, NOTED, at),
        WritePath::Import => import(
            engine,
            key,
            at,
            &[ImportedTurn {
                speaker: "user".to_string(),
                text: text.to_string(),
            }],
        ),
    }
}

/// `memory.remember-exchange` of one exchange that happened at `at`.
pub fn remember(
    engine: &mut EngineRuntime,
    user: &str,
    assistant: &str,
    at: i64,
) -> Result<Written, String> {
    let saved = engine
        .remember_exchange(
            user,
            assistant,
            &ExchangeOptions {
                workspace: None,
                gop_id: None,
                succeeded: true,
                occurred_at: Some(at),
            },
        )
        .map_err(|e| format!("remember-exchange failed: {e}"))?;
    Ok(Written {
        new: u32::try_from(saved.iter().filter(|s| !s.duplicate).count()).unwrap_or(u32::MAX),
        frames: saved.into_iter().map(|s| s.frame).collect(),
    })
}

/// `memory.import-conversations` of one conversation `key` dated `at`.
pub fn import(
    engine: &mut EngineRuntime,
    key: &str,
    at: i64,
    turns: &[ImportedTurn],
) -> Result<Written, String> {
    let report = engine
        .import_conversations(
            &Mind::Personal,
            &[ImportedConversation {
                key: key.to_string(),
                title: None,
                date: at,
                turns: turns.to_vec(),
            }],
        )
        .map_err(|e| format!("import failed: {e}"))?;
    if report.rejected > 0 {
        return Err(format!(
            "the injection scan refused {} turn(s) of {key}",
            report.rejected
        ));
    }
    Ok(Written {
        frames: Vec::new(),
        new: report.written,
    })
}

/// The conversation an imported frame came from, if it is a raw turn.
pub fn conversation_of(frame: &wit_types::Frame) -> Option<&str> {
    match &frame.metadata.kind {
        Some(wit_types::MemoryKind::RawTurn(origin)) => Some(origin.conversation.as_str()),
        _ => None,
    }
}

/// Every frame of the personal mind, replaced and retired ones included
/// (newest first).
pub fn all_frames(engine: &mut EngineRuntime) -> Result<Vec<wit_types::Frame>, String> {
    engine
        .admin()
        .recent_frames(&Mind::Personal, u32::MAX)
        .map_err(|e| format!("listing the frames failed: {e}"))
}

/// Whether the engine has closed a frame: replaced by a newer version
/// (`valid-to`, `superseded-by`), retired (`deprecated`) or archived.
pub fn is_closed(frame: &wit_types::Frame) -> bool {
    frame.valid_to.is_some()
        || frame.superseded_by.is_some()
        || frame.importance == Importance::Deprecated
        || frame.status != wit_types::MemoryStatus::Active
}

/// A frame's identity, for maps (its mind's name and id).
pub fn frame_key(frame: &FrameRef) -> (String, u64) {
    (
        hive_mind_runtime::engine::convert::mind_name(&frame.mind),
        frame.id,
    )
}

/// `memory.recall-memory` of `query` at `now`, [`RECALL_LIMIT`] memories,
/// the personal mind, the engine's defaults otherwise.
pub fn recall(engine: &mut EngineRuntime, query: &str, now: i64) -> Result<Recall, String> {
    engine
        .recall_memory(
            query,
            &RecallOptions {
                limit: Some(RECALL_LIMIT),
                scope: Some(RecallScope::Personal),
                now: Some(now),
                ..RecallOptions::default()
            },
        )
        .map_err(|e| format!("recall failed: {e}"))
}

/// The share `part / whole` (0 when `whole` is 0).
pub fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// `part/whole (p %)`, the way the reports quote a count.
pub fn quote(part: usize, whole: usize) -> String {
    format!("{part}/{whole} ({:.1} %)", share(part, whole) * 100.0)
}

/// A count out of a total, and its percentage.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rate {
    /// How many.
    pub count: usize,
    /// Out of.
    pub of: usize,
    /// `count / of`, in percent (0 when `of` is 0).
    pub percent: f64,
}

impl Rate {
    /// `count` of `of`.
    pub fn new(count: usize, of: usize) -> Rate {
        Rate {
            count,
            of,
            percent: share(count, of) * 100.0,
        }
    }

    /// `count/of (p %)`.
    pub fn text(self) -> String {
        quote(self.count, self.of)
    }
}

/// `text` cut to at most `max` characters (an ellipsis marks a cut).
pub fn shorten(text: &str, max: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(max).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn matching_ignores_case_and_needs_every_string() {
        assert!(contains_all(
            "We moved to PORTO last week",
            &strings(&["porto", "week"])
        ));
        assert!(!contains_all(
            "We moved to Porto",
            &strings(&["porto", "week"])
        ));
        assert!(
            !contains_all("anything", &[]),
            "an empty set matches nothing"
        );
        assert!(contains_any(
            "I live in Lisbon",
            &strings(&["Porto", "lisbon"])
        ));
        assert!(!contains_any("I live in Lisbon", &[]));
    }

    #[test]
    fn rank_is_one_based_and_finds_the_first_match() {
        let texts = strings(&["nothing", "Porto flat", "also Porto"]);
        assert_eq!(rank_of(&texts, &strings(&["porto"])), Some(2));
        assert_eq!(rank_of(&texts, &strings(&["Lisbon"])), None);
        assert_eq!(rank_of(&[], &strings(&["Lisbon"])), None);
    }

    #[test]
    fn the_first_block_memory_is_the_first_bullet() {
        let block = "Today is 2026-05-08.\n\n### Personal memory\n\nImportant:\n- [2026-01-01] Never deploy on Fridays.\n\nRelevant memories:\n- [2026-02-01] Porto.\n";
        assert_eq!(
            first_block_memory(block),
            Some("[2026-01-01] Never deploy on Fridays.")
        );
        assert_eq!(first_block_memory("Today is 2026-05-08.\n"), None);
    }

    #[test]
    fn times_and_importances_read_as_the_spec_writes_them() {
        assert_eq!(parse_time("1970-01-02T00:00:00Z"), Ok(DAY_MS));
        assert!(parse_time("2026-03-14").is_err());
        assert_eq!(parse_importance("low"), Ok(Importance::Temporary));
        assert_eq!(parse_importance("critical"), Ok(Importance::Critical));
        assert!(parse_importance("urgent").is_err());
    }

    #[test]
    fn a_malformed_field_names_where_and_which() {
        let value = serde_json::json!({"at": "yesterday", "list": ["a", ""], "n": 3});
        let fields = Fields::of("data.jsonl:7", "line", &value).unwrap();
        let error = fields.time("at").unwrap_err().to_string();
        assert!(
            error.starts_with("data.jsonl:7: `at`: ") && error.contains("yesterday"),
            "{error}"
        );
        let error = fields.strings("list").unwrap_err().to_string();
        assert!(error.contains("`list[1]`"), "{error}");
        let error = fields.string("n").unwrap_err().to_string();
        assert!(error.contains("`n`: expected a string"), "{error}");
        let error = fields.string("query").unwrap_err().to_string();
        assert!(error.contains("`query`: missing"), "{error}");
        assert!(Fields::of("x:1", "line", &serde_json::json!([1])).is_err());
    }

    #[test]
    fn shorten_cuts_on_characters() {
        assert_eq!(shorten("abc", 5), "abc");
        assert_eq!(shorten("äöüßx", 3), "äöü…");
    }

    #[test]
    fn shares_and_quotes() {
        assert_eq!(share(1, 0), 0.0);
        assert_eq!(quote(3, 4), "3/4 (75.0 %)");
    }
}
