//! Forgetting for real: erasure of frames, and the erasure log.
//!
//! A memory its owner asks to forget must leave the file, not just the
//! listings. [`MindStore::plan_erasure`] says exactly what a request would
//! remove (the dry run); [`MindStore::erase`] removes it, in one `IMMEDIATE`
//! transaction, then reclaims the space:
//!
//! | where a copy of the text lives | what erasure does |
//! |---|---|
//! | the frame row (`memory_frames`) | deleted, with `PRAGMA secure_delete` on, so freed cells are zeroed |
//! | its chunks and vectors | deleted (the v9 triggers and the chunk cascade) |
//! | the full-text index | FTS5's `secure-delete` option (SQLite 3.44+) takes the tokens out of the index at once; on an older SQLite, the index is `optimize`d after the deletes, which rewrites it without them |
//! | the search context of the next raw turn of its conversation (v7) | rewritten from the turn now before it |
//! | the memories it replaced (a correction, a newer statement) | reopened: the version before it is current again |
//! | B-frames that branch off it | erased with it (listed, with the frame they depend on) |
//! | P-frames of its session based on it (it was the session's I-frame) | kept: the first of them becomes the session's I-frame, the others are based on it |
//! | related-frame links, entity links | cascade |
//! | entities whose only evidence was erased, and their relations | deleted (their names come from the text) |
//! | freed pages, the WAL | `VACUUM`, then `PRAGMA wal_checkpoint(TRUNCATE)` |
//!
//! What erasure keeps is the erasure log, `memory_erasures` (v10): one row
//! per erased frame with its id, content hash, event day, the time, the
//! reason and the kind of request — never its text, nor the words of a
//! search that selected it (a search for a password is a copy of the
//! password: the log keeps the words' SHA-256). Like the audit tables it is
//! append-only (see [`super::schema::APPEND_ONLY_GUARDS`]).
//!
//! The harvest ledger (`harvest_items`) keeps the hash of the imported item
//! a forgotten memory came from, so importing the same export again does not
//! bring the memory back.

use std::collections::{BTreeMap, BTreeSet};

use hive_mind_core::{RAW_TURN_TAG, RawTurnTag, reply_context};
use serde::Serialize;
use sha2::Digest as _;

use crate::sql::{Connection, OptionalExtension, TransactionBehavior, params};

use super::MindStore;
use super::clock::now;
use super::error::{StoreError, StoreResult};

/// The longest reason kept in the erasure log, in characters: a reason is
/// a note ("asked by the user", "pasted by mistake"), and what the user
/// writes there is kept, so it is bounded.
pub const MAX_REASON_CHARS: usize = 200;

/// How many characters of each frame a plan shows, so a person can tell
/// what would go without the plan becoming a second copy of the mind.
pub const PREVIEW_CHARS: usize = 120;

/// What to forget in one mind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErasureRequest {
    /// These frames (every id must exist).
    Frames(Vec<u64>),
    /// Every frame that passes all the filter's conditions.
    Matching(ErasureFilter),
}

/// Conditions a frame must all pass to be selected. At least one is
/// required: forgetting a whole mind is not a filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErasureFilter {
    /// Every searchable word of this text appears in the frame's content
    /// (full-text match, the index's stemming: `password` finds
    /// `passwords`).
    pub text: Option<String>,
    /// The frame's event day is on or after this day (`YYYY-MM-DD`).
    pub since: Option<String>,
    /// The frame's event day is on or before this day (inclusive).
    pub until: Option<String>,
    /// The frame was written (its ingestion time, `inserted_at`, UTC) on or
    /// after this day (`YYYY-MM-DD`).
    pub learned_since: Option<String>,
    /// The frame was written on or before this day (inclusive, UTC).
    pub learned_until: Option<String>,
    /// The frame was imported from this harvest format (`chatgpt`, …).
    pub harvest_format: Option<String>,
    /// The frame is a section of this imported document (its key).
    pub document: Option<String>,
}

impl ErasureFilter {
    fn is_empty(&self) -> bool {
        self.text.is_none()
            && self.since.is_none()
            && self.until.is_none()
            && self.learned_since.is_none()
            && self.learned_until.is_none()
            && self.harvest_format.is_none()
            && self.document.is_none()
    }
}

/// Why a frame is in an erasure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ErasureCause {
    /// The request selected it.
    Selected,
    /// It is a B-frame branching off this erased frame.
    BranchOf(u64),
}

/// One frame an erasure removes (or would).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErasedFrame {
    /// Its id in the mind.
    pub id: u64,
    /// SHA-256 of its content (what the erasure log keeps).
    pub content_hash: String,
    /// Its event day.
    pub event_date: String,
    /// The first [`PREVIEW_CHARS`] characters of its content.
    pub preview: String,
    /// Why it goes.
    pub cause: ErasureCause,
}

/// What an erasure removes, or removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ErasureReport {
    /// The frames, by id.
    pub frames: Vec<ErasedFrame>,
    /// The entities left without evidence, by name (removed with their
    /// relations).
    pub entities: Vec<String>,
    /// Search contexts of other frames rewritten because they quoted an
    /// erased turn (0 in a plan: counted when done).
    pub contexts_rewritten: u64,
    /// The database's size before, in bytes (pages × page size).
    pub bytes_before: u64,
    /// Its size after the erasure and `VACUUM` (the same in a plan).
    pub bytes_after: u64,
    /// Whether this is only a plan: nothing was changed.
    pub dry_run: bool,
}

/// A row of the erasure log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErasureRecord {
    /// Its id.
    pub id: u64,
    /// When (UTC).
    pub erased_at: String,
    /// The erased frame's id.
    pub frame_id: u64,
    /// Its content hash.
    pub content_hash: String,
    /// Its event day.
    pub event_date: String,
    /// The reason given.
    pub reason: String,
    /// The request, as a JSON object without any of the text.
    pub request: String,
}

/// The frame columns a plan reads.
struct Candidate {
    id: u64,
    content: String,
    content_hash: String,
    event_date: String,
}

fn preview(content: &str) -> String {
    let mut preview: String = content.chars().take(PREVIEW_CHARS).collect();
    if content.chars().nth(PREVIEW_CHARS).is_some() {
        preview.push('…');
    }
    preview
}

fn check_day(name: &str, day: Option<&String>) -> StoreResult<()> {
    match day {
        Some(day) if chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_err() => Err(
            StoreError::InvalidInput(format!("{name} must be a day, YYYY-MM-DD; got {day:?}")),
        ),
        _ => Ok(()),
    }
}

/// The erasure log's record of a request: its kind and conditions, with a
/// search's words replaced by their hash.
fn request_record(request: &ErasureRequest) -> String {
    match request {
        ErasureRequest::Frames(_) => serde_json::json!({"kind": "frames"}).to_string(),
        ErasureRequest::Matching(filter) => serde_json::json!({
            "kind": "matching",
            "text_sha256": filter.text.as_ref().map(|text| hex(&sha2::Sha256::digest(text.as_bytes()))),
            "since": filter.since,
            "until": filter.until,
            "learned_since": filter.learned_since,
            "learned_until": filter.learned_until,
            "harvest_format": filter.harvest_format,
            "document": filter.document,
        })
        .to_string(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The frames a request selects, with the B-frames that branch off them
/// (transitively), on `conn`.
fn select(
    conn: &Connection,
    request: &ErasureRequest,
) -> StoreResult<Vec<(Candidate, ErasureCause)>> {
    const COLUMNS: &str = "id, content, content_hash, event_date";
    let read = |row: &crate::sql::Row<'_>| {
        Ok(Candidate {
            id: row.get(0)?,
            content: row.get(1)?,
            content_hash: row.get(2)?,
            event_date: row.get(3)?,
        })
    };
    let mut selected: Vec<Candidate> = Vec::new();
    match request {
        ErasureRequest::Frames(ids) => {
            if ids.is_empty() {
                return Err(StoreError::InvalidInput(
                    "name at least one memory to forget".to_string(),
                ));
            }
            let mut seen = BTreeSet::new();
            for id in ids {
                if !seen.insert(*id) {
                    continue;
                }
                let frame = conn
                    .query_row(
                        &format!("SELECT {COLUMNS} FROM memory_frames WHERE id = ?1"),
                        [*id],
                        read,
                    )
                    .optional()?
                    .ok_or_else(|| StoreError::NotFound(format!("frame {id}")))?;
                selected.push(frame);
            }
        }
        ErasureRequest::Matching(filter) => {
            if filter.is_empty() {
                return Err(StoreError::InvalidInput(
                    "a filter needs at least one condition (text, since, until, learned since, learned until, \
                     harvest format or document); \
                     forgetting a whole mind is not a filter"
                        .to_string(),
                ));
            }
            check_day("since", filter.since.as_ref())?;
            check_day("until", filter.until.as_ref())?;
            check_day("learned since", filter.learned_since.as_ref())?;
            check_day("learned until", filter.learned_until.as_ref())?;
            let mut sql = format!("SELECT {COLUMNS} FROM memory_frames WHERE 1");
            let mut values: Vec<crate::sql::Value> = Vec::new();
            let bind = |values: &mut Vec<crate::sql::Value>, value: String| {
                values.push(crate::sql::Value::Text(value));
                values.len()
            };
            if let Some(text) = &filter.text {
                let words = super::search::fts_words(text);
                if words.is_empty() {
                    return Err(StoreError::InvalidInput(format!(
                        "the text {text:?} has no searchable words"
                    )));
                }
                let expression = words
                    .iter()
                    .map(|word| format!("\"{word}\""))
                    .collect::<Vec<_>>()
                    .join(" AND ");
                let at = bind(&mut values, format!("content : ({expression})"));
                sql.push_str(&format!(
                    " AND id IN (SELECT rowid FROM memory_frames_fts WHERE memory_frames_fts MATCH ?{at})"
                ));
            }
            // Each plain condition: the SQL it adds before its parameter.
            // `inserted_at` is ISO-8601 UTC: its first ten characters are
            // the day the frame was learned.
            for (condition, value) in [
                ("event_date >=", &filter.since),
                ("event_date <=", &filter.until),
                ("substr(inserted_at, 1, 10) >=", &filter.learned_since),
                ("substr(inserted_at, 1, 10) <=", &filter.learned_until),
                (
                    "json_extract(metadata, '$.harvest.format') =",
                    &filter.harvest_format,
                ),
                ("json_extract(metadata, '$.document') =", &filter.document),
            ] {
                if let Some(value) = value {
                    let at = bind(&mut values, value.clone());
                    sql.push_str(&format!(" AND {condition} ?{at}"));
                }
            }
            sql.push_str(" ORDER BY id");
            selected = conn.query_all(&sql, values, read)?;
        }
    }
    if selected.is_empty() {
        return Err(StoreError::NotFound(
            "no memory matches the filter; nothing to forget".to_string(),
        ));
    }
    let mut chosen: BTreeMap<u64, (Candidate, ErasureCause)> = selected
        .into_iter()
        .map(|frame| (frame.id, (frame, ErasureCause::Selected)))
        .collect();
    // The B-frames branching off anything chosen, to a fixed point.
    let mut frontier: Vec<u64> = chosen.keys().copied().collect();
    while let Some(base) = frontier.pop() {
        let branches = conn.query_all(
            &format!(
                "SELECT {COLUMNS} FROM memory_frames WHERE base_frame_id = ?1 AND frame_type = 'b-frame'"
            ),
            [base],
            read,
        )?;
        for branch in branches {
            if let std::collections::btree_map::Entry::Vacant(slot) = chosen.entry(branch.id) {
                frontier.push(branch.id);
                slot.insert((branch, ErasureCause::BranchOf(base)));
            }
        }
    }
    Ok(chosen.into_values().collect())
}

/// The entities linked to `ids` that have no evidence outside them.
fn orphaned_entities(conn: &Connection, ids: &BTreeSet<u64>) -> StoreResult<Vec<(u64, String)>> {
    let mut linked: BTreeMap<u64, String> = BTreeMap::new();
    for id in ids {
        for (entity, name) in conn.query_all(
            "SELECT e.id, e.name FROM kg_entity_frames l JOIN knowledge_entities e ON e.id = l.entity_id
             WHERE l.frame_id = ?1",
            [*id],
            |row| Ok((row.get::<_, u64>(0)?, row.get::<_, String>(1)?)),
        )? {
            linked.insert(entity, name);
        }
    }
    let mut orphaned = Vec::new();
    for (entity, name) in linked {
        let evidence = conn.query_all(
            "SELECT frame_id FROM kg_entity_frames WHERE entity_id = ?1",
            [entity],
            |row| row.get::<_, u64>(0),
        )?;
        if evidence.iter().all(|frame| ids.contains(frame)) {
            orphaned.push((entity, name));
        }
    }
    Ok(orphaned)
}

/// Keep the P-frames based on an erased frame (a session's I-frame): the
/// earliest of them becomes the session's I-frame and the rest are based
/// on it, as if the session had started with it.
fn rebase_sessions(conn: &Connection, erased: &BTreeSet<u64>) -> StoreResult<()> {
    for base in erased {
        let kept: Vec<u64> = conn
            .query_all(
                "SELECT id FROM memory_frames WHERE base_frame_id = ?1 AND frame_type != 'b-frame'
                 ORDER BY t, id",
                [*base],
                |row| row.get::<_, u64>(0),
            )?
            .into_iter()
            .filter(|id| !erased.contains(id))
            .collect();
        let Some((first, rest)) = kept.split_first() else {
            continue;
        };
        conn.execute(
            "UPDATE memory_frames SET frame_type = 'i-frame', base_frame_id = NULL WHERE id = ?1",
            [*first],
        )?;
        for id in rest {
            conn.execute(
                "UPDATE memory_frames SET base_frame_id = ?1 WHERE id = ?2",
                [*first, *id],
            )?;
        }
    }
    Ok(())
}

/// The database's size in bytes.
fn database_bytes(conn: &Connection) -> StoreResult<u64> {
    let pages: u64 = conn.query_row("PRAGMA page_count", [], |row| row.get(0))?;
    let size: u64 = conn.query_row("PRAGMA page_size", [], |row| row.get(0))?;
    Ok(pages.saturating_mul(size))
}

/// Rewrite the search context of the raw turn that followed each erased
/// turn in its conversation: it now quotes the stored turn before it, or
/// nothing. Returns how many were rewritten.
fn rewrite_contexts(conn: &Connection, erased: &[RawTurnTag]) -> StoreResult<u64> {
    let mut rewritten = 0;
    let conversations: BTreeSet<&str> = erased.iter().map(|tag| tag.conv.as_str()).collect();
    for conv in conversations {
        let prefix = format!("{RAW_TURN_TAG} conv:{conv} turn:");
        let mut turns: Vec<(RawTurnTag, u64, String, String)> = conn
            .query_all(
                "SELECT id, content, context FROM memory_frames
                 WHERE head_token = ?1 AND substr(content, 1, length(?2)) = ?2",
                params![RAW_TURN_TAG, prefix],
                |row| {
                    Ok((
                        row.get::<_, u64>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                    ))
                },
            )?
            .into_iter()
            .filter_map(|(id, content, context)| {
                let tag = RawTurnTag::parse(&content).filter(|tag| tag.conv == conv)?;
                let text = content.split_once(']').map_or("", |(_, text)| text.trim());
                Some((tag, id, text.to_string(), context))
            })
            .collect();
        turns.sort_by_key(|(tag, id, _, _)| (tag.turn, *id));
        for gone in erased.iter().filter(|tag| tag.conv == conv) {
            let Some(next) = turns.iter().position(|(tag, _, _, _)| tag.turn > gone.turn) else {
                continue;
            };
            let context = next
                .checked_sub(1)
                .and_then(|before| turns.get(before))
                .filter(|(tag, _, _, _)| tag.turn < gone.turn)
                .map(|(tag, _, text, _)| reply_context(&tag.speaker, text))
                .unwrap_or_default();
            if let Some((_, id, _, stored)) = turns.get_mut(next)
                && *stored != context
            {
                conn.execute(
                    "UPDATE memory_frames SET context = ?1 WHERE id = ?2",
                    params![context, *id],
                )?;
                *stored = context;
                rewritten += 1;
            }
        }
    }
    Ok(rewritten)
}

impl MindStore {
    /// What `request` would erase: the frames (with the B-frames branching
    /// off them) and the entities left without evidence. Changes nothing.
    pub fn plan_erasure(&self, request: &ErasureRequest) -> StoreResult<ErasureReport> {
        let chosen = select(&self.conn, request)?;
        let ids: BTreeSet<u64> = chosen.iter().map(|(frame, _)| frame.id).collect();
        let entities = orphaned_entities(&self.conn, &ids)?
            .into_iter()
            .map(|(_, name)| name)
            .collect();
        let bytes = database_bytes(&self.conn)?;
        Ok(ErasureReport {
            frames: chosen
                .into_iter()
                .map(|(frame, cause)| ErasedFrame {
                    id: frame.id,
                    preview: preview(&frame.content),
                    content_hash: frame.content_hash,
                    event_date: frame.event_date,
                    cause,
                })
                .collect(),
            entities,
            contexts_rewritten: 0,
            bytes_before: bytes,
            bytes_after: bytes,
            dry_run: true,
        })
    }

    /// Erase what `request` selects (see the module docs), recording each
    /// frame in the erasure log with `reason`; then reclaim the freed
    /// pages. All of it or nothing: a failure before the commit leaves the
    /// mind as it was.
    pub fn erase(&mut self, request: &ErasureRequest, reason: &str) -> StoreResult<ErasureReport> {
        if reason.chars().count() > MAX_REASON_CHARS {
            return Err(StoreError::InvalidInput(format!(
                "the reason is longer than {MAX_REASON_CHARS} characters"
            )));
        }
        let bytes_before = database_bytes(&self.conn)?;
        self.conn.pragma_update(None, "secure_delete", "ON")?;
        let erased = self.erase_in_transaction(request, reason);
        let reclaimed = erased.as_ref().ok().map(|_| self.reclaim());
        // Back to SQLite's default either way (zeroing every freed cell
        // costs ordinary writes).
        self.conn.pragma_update(None, "secure_delete", "OFF")?;
        let mut report = erased?;
        if let Some(reclaimed) = reclaimed {
            reclaimed?;
        }
        report.bytes_before = bytes_before;
        report.bytes_after = database_bytes(&self.conn)?;
        report.dry_run = false;
        Ok(report)
    }

    fn erase_in_transaction(
        &mut self,
        request: &ErasureRequest,
        reason: &str,
    ) -> StoreResult<ErasureReport> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let chosen = select(&tx, request)?;
        let ids: BTreeSet<u64> = chosen.iter().map(|(frame, _)| frame.id).collect();
        let orphans = orphaned_entities(&tx, &ids)?;
        // FTS5's secure delete, where this SQLite has it (3.44+); the
        // option is kept by the index, so later deletes are secure too.
        let secure_fts = tx
            .execute(
                "INSERT INTO memory_frames_fts(memory_frames_fts, rank) VALUES ('secure-delete', 1)",
                [],
            )
            .is_ok();
        let turns: Vec<RawTurnTag> = chosen
            .iter()
            .filter_map(|(frame, _)| RawTurnTag::parse(&frame.content))
            .collect();
        let erased_at = now();
        let request_json = request_record(request);
        rebase_sessions(&tx, &ids)?;
        // A synthesis may quote what is forgotten: all go (they are derived,
        // and written again when a page is read).
        super::derived::clear_syntheses_in(&tx)?;
        let erased: Vec<u64> = ids.iter().copied().collect();
        super::slots::reopen_replaced_by_in(&tx, &erased)?;
        // Branches before their bases: a branch is written after its base,
        // so a higher id goes first.
        for (frame, _) in chosen.iter().rev() {
            super::frames::clear_vectors(&tx, frame.id)?;
            tx.execute(
                "DELETE FROM memory_mentions WHERE frame_id = ?1",
                [frame.id],
            )?;
            tx.execute("DELETE FROM memory_frames WHERE id = ?1", [frame.id])?;
            tx.execute(
                "INSERT INTO memory_erasures (erased_at, frame_id, content_hash, event_date, reason, request)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    erased_at,
                    frame.id,
                    frame.content_hash,
                    frame.event_date,
                    reason,
                    request_json
                ],
            )?;
        }
        for (entity, _) in &orphans {
            tx.execute(
                "DELETE FROM knowledge_relations WHERE source_id = ?1 OR target_id = ?1",
                [*entity],
            )?;
            tx.execute("DELETE FROM knowledge_entities WHERE id = ?1", [*entity])?;
        }
        let contexts_rewritten = rewrite_contexts(&tx, &turns)?;
        if !secure_fts {
            tx.execute(
                "INSERT INTO memory_frames_fts(memory_frames_fts) VALUES ('optimize')",
                [],
            )?;
        }
        tx.commit()?;
        Ok(ErasureReport {
            frames: chosen
                .into_iter()
                .map(|(frame, cause)| ErasedFrame {
                    id: frame.id,
                    preview: preview(&frame.content),
                    content_hash: frame.content_hash,
                    event_date: frame.event_date,
                    cause,
                })
                .collect(),
            entities: orphans.into_iter().map(|(_, name)| name).collect(),
            contexts_rewritten,
            bytes_before: 0,
            bytes_after: 0,
            dry_run: false,
        })
    }

    /// Rebuild the file without its free pages and empty the WAL, so no
    /// page that held erased text stays in either.
    fn reclaim(&self) -> StoreResult<()> {
        self.conn.execute_batch("VACUUM")?;
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
                row.get::<_, i64>(0)
            })?;
        Ok(())
    }

    /// The erasure log, oldest first.
    pub fn erasures(&self) -> StoreResult<Vec<ErasureRecord>> {
        Ok(self.conn.query_all(
            "SELECT id, erased_at, frame_id, content_hash, event_date, reason, request
             FROM memory_erasures ORDER BY id",
            [],
            |row| {
                Ok(ErasureRecord {
                    id: row.get(0)?,
                    erased_at: row.get(1)?,
                    frame_id: row.get(2)?,
                    content_hash: row.get(3)?,
                    event_date: row.get(4)?,
                    reason: row.get(5)?,
                    request: row.get(6)?,
                })
            },
        )?)
    }
}
