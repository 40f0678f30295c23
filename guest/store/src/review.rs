//! Review: what the owner of a mind does to its memories by hand.
//!
//! - **Metadata** ([`MindStore::review_frame`]): a memory's status (`active`
//!   or `archived`: kept, out of recall), its `pinned` flag (cleanup never
//!   retires a pinned memory) and its tags. Archiving is the seed's
//!   soft delete; [`super::erasure`] is the hard one.
//! - **Merge** ([`MindStore::merge_frames`], the seed's C11): one new memory
//!   written from several, which are archived with `merged_into` pointing
//!   at it, never deleted. Recall answers a search that finds an original
//!   with the merged memory.
//! - **Release** ([`MindStore::release_frame`]): a memory the injection
//!   detector found hostile when it was written is quarantined (kept, never
//!   recalled; one written before the detector and not yet screened trips
//!   recall's block scan instead); its owner, having read it, can release
//!   it, which lifts the quarantine for good (a later `reindex` screens it
//!   again but does not quarantine it again).
//! - **Trace** ([`MindStore::trace`]): where a memory came from and what it
//!   is tied to: its session, base frame, the versions it replaced and that
//!   replaced it, what was merged into it, its entities and related
//!   memories, and its review history.
//! - **Logs** ([`MindStore::read_log`]): the review log, the erasure log and
//!   the two audit tables, newest first.
//!
//! Every change is one transaction that also appends a row to
//! `memory_reviews` (append-only, v12): the action, the frame and a JSON
//! detail that never holds a memory's text (a tag is the owner's label, not
//! remembered content).

use serde::Serialize;

use crate::sql::{Connection, OptionalExtension, TransactionBehavior, params};

use super::MindStore;
use super::clock::now;
use super::error::{StoreError, StoreResult};
use super::frames::{FRAME_COLUMNS, frame_from_row, get_in};
use super::graph::Entity;
use super::sessions::Session;
use super::types::{Frame, FrameType, MemoryStatus, NewFrame, SavedFrame};

/// The most tags one memory carries.
pub const MAX_TAGS: usize = 32;

/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 64;

/// The most memories one merge folds together.
pub const MAX_MERGE: usize = 50;

/// The most rows one log read returns.
pub const MAX_LOG_ROWS: u32 = 1000;

/// A change to a memory's review metadata; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReviewChange {
    /// The new status.
    pub status: Option<MemoryStatus>,
    /// Pin or unpin.
    pub pinned: Option<bool>,
    /// Tags to add (a tag already there stays once).
    pub add_tags: Vec<String>,
    /// Tags to remove.
    pub remove_tags: Vec<String>,
}

impl ReviewChange {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.status.is_none()
            && self.pinned.is_none()
            && self.add_tags.is_empty()
            && self.remove_tags.is_empty()
    }
}

/// A tag as stored: trimmed, lower case, printable, at most
/// [`MAX_TAG_CHARS`] characters.
pub fn normalize_tag(tag: &str) -> StoreResult<String> {
    let tag = tag.trim().to_lowercase();
    if tag.is_empty() {
        return Err(StoreError::InvalidInput("a tag is empty".to_string()));
    }
    if tag.chars().count() > MAX_TAG_CHARS {
        return Err(StoreError::InvalidInput(format!(
            "the tag {:?}… is longer than {MAX_TAG_CHARS} characters",
            tag.chars().take(16).collect::<String>()
        )));
    }
    if tag.chars().any(char::is_control) {
        return Err(StoreError::InvalidInput(format!(
            "the tag {tag:?} holds a control character"
        )));
    }
    Ok(tag)
}

/// The outcome of a merge.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The merged memory, as stored.
    pub saved: SavedFrame,
    /// The originals, now archived.
    pub originals: Vec<Frame>,
}

/// The outcome of a release.
#[derive(Debug, Clone, PartialEq)]
pub struct Released {
    /// The memory, as stored now.
    pub frame: Frame,
    /// Whether the write-time screen had quarantined it (else it was held
    /// back by recall's scan only, and its write already did the rest).
    pub was_quarantined: bool,
}

/// Where a memory came from and what it is tied to.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The memory.
    pub frame: Frame,
    /// Its session.
    pub session: Option<Session>,
    /// The memories it replaced (a correction or a newer statement).
    pub replaced: Vec<u64>,
    /// The memories merged into it.
    pub merged_from: Vec<u64>,
    /// The B-frames that branch off it.
    pub branches: Vec<u64>,
    /// Its entities.
    pub entities: Vec<Entity>,
    /// Related memories, with their similarity.
    pub related: Vec<(u64, f64)>,
    /// Its review history, oldest first.
    pub reviews: Vec<LogEntry>,
}

/// The logs a mind keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// The owner's review actions (`memory_reviews`).
    Reviews,
    /// What was forgotten (`memory_erasures`: ids, hashes, reasons, never
    /// text).
    Erasures,
    /// Installation and maintenance events (`install_audit`).
    Installs,
    /// Model calls and their token counts (`ai_interactions`).
    AiInteractions,
}

/// One row of a log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEntry {
    /// Its id in its log.
    pub id: u64,
    /// When (UTC).
    pub at: String,
    /// What happened.
    pub action: String,
    /// The memory it concerns, if one.
    pub frame: Option<u64>,
    /// A JSON object with the rest.
    pub detail: String,
}

/// A log row (columns id, time, action, frame, detail).
fn log_from_row(row: &crate::sql::Row<'_>) -> crate::sql::Result<LogEntry> {
    Ok(LogEntry {
        id: row.get(0)?,
        at: row.get(1)?,
        action: row.get(2)?,
        frame: row.get(3)?,
        detail: row.get(4)?,
    })
}

/// Append one row to the review log.
pub(crate) fn log_review(
    conn: &Connection,
    frame: Option<u64>,
    action: &str,
    detail: &serde_json::Value,
) -> StoreResult<()> {
    conn.execute(
        "INSERT INTO memory_reviews (at, frame_id, action, detail) VALUES (?1, ?2, ?3, ?4)",
        params![now(), frame, action, detail.to_string()],
    )?;
    Ok(())
}

/// Frame `id`, or [`StoreError::NotFound`] naming it.
fn existing(conn: &Connection, mind: &super::Mind, id: u64) -> StoreResult<Frame> {
    get_in(conn, mind, id)?.ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{id}")))
}

impl MindStore {
    /// Change frame `id`'s review metadata (one transaction, logged). An
    /// empty change, or a tag over the limits, is
    /// [`StoreError::InvalidInput`]; nothing is written then.
    pub fn review_frame(&mut self, id: u64, change: &ReviewChange) -> StoreResult<Frame> {
        if change.is_empty() {
            return Err(StoreError::InvalidInput(
                "nothing to change: give a status, pinned, or tags to add or remove".to_string(),
            ));
        }
        let add = change
            .add_tags
            .iter()
            .map(|tag| normalize_tag(tag))
            .collect::<StoreResult<Vec<_>>>()?;
        let remove = change
            .remove_tags
            .iter()
            .map(|tag| normalize_tag(tag))
            .collect::<StoreResult<Vec<_>>>()?;
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let old = existing(&tx, &mind, id)?;
        if old.frame_type == FrameType::BFrame && change.status.is_some() {
            return Err(StoreError::InvalidInput(format!(
                "frame {mind}:{id} is a branch (B-frame); archive the memory it branches off"
            )));
        }
        let mut tags = old.tags.clone();
        tags.retain(|tag| !remove.contains(tag));
        for tag in add {
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        if tags.len() > MAX_TAGS {
            return Err(StoreError::InvalidInput(format!(
                "a memory carries at most {MAX_TAGS} tags ({} asked)",
                tags.len()
            )));
        }
        let status = change.status.unwrap_or(old.status);
        let pinned = change.pinned.unwrap_or(old.pinned);
        let tags_json = serde_json::to_string(&tags)
            .map_err(|e| StoreError::InvalidInput(format!("tags: {e}")))?;
        tx.execute(
            "UPDATE memory_frames SET status = ?2, pinned = ?3, tags = ?4 WHERE id = ?1",
            params![id, status.as_str(), pinned, tags_json],
        )?;
        log_review(
            &tx,
            Some(id),
            "review",
            &serde_json::json!({
                "status": {"from": old.status.as_str(), "to": status.as_str()},
                "pinned": {"from": old.pinned, "to": pinned},
                "tags": {"from": old.tags, "to": tags},
            }),
        )?;
        let frame = existing(&tx, &mind, id)?;
        tx.commit()?;
        Ok(frame)
    }

    /// Merge frames `ids` into one new memory `new` (the seed's C11): the
    /// new memory is written (embedded like any save) and the originals are
    /// archived with `merged_into` set, never deleted; one transaction,
    /// logged. At least two distinct, existing, active, current memories
    /// that are not branches; anything else is refused before a write, and
    /// a merged text the injection detector quarantines is refused too.
    pub fn merge_frames(&mut self, ids: &[u64], new: NewFrame) -> StoreResult<Merged> {
        let mut wanted: Vec<u64> = Vec::with_capacity(ids.len());
        for &id in ids {
            if !wanted.contains(&id) {
                wanted.push(id);
            }
        }
        if wanted.len() < 2 {
            return Err(StoreError::InvalidInput(
                "a merge needs at least two different memories".to_string(),
            ));
        }
        if wanted.len() > MAX_MERGE {
            return Err(StoreError::InvalidInput(format!(
                "a merge folds at most {MAX_MERGE} memories ({} asked)",
                wanted.len()
            )));
        }
        let dim = self.vectors.require()?;
        let plan = self.chunk_plan;
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        for &id in &wanted {
            let frame = existing(&tx, &mind, id)?;
            let refusal = if frame.frame_type == FrameType::BFrame {
                Some("is a branch (B-frame)".to_string())
            } else if frame.status == MemoryStatus::Archived {
                Some("is archived".to_string())
            } else {
                frame.superseded_by.map(|newer| {
                    format!("was replaced by {mind}:{newer}; merge the current version")
                })
            };
            if let Some(why) = refusal {
                return Err(StoreError::InvalidInput(format!("frame {mind}:{id} {why}")));
            }
        }
        let saved = super::frames::save_frames_in(&tx, &mind, dim, plan, &[new])?
            .pop()
            .ok_or_else(|| StoreError::InvalidInput("nothing to save".to_string()))?;
        let merged_id = saved.frame.frame_ref.id;
        // A merged text the detector holds back would archive what is true
        // in favour of a memory never recalled: refused, nothing written.
        if let Some(screening) = saved
            .frame
            .screening
            .as_ref()
            .filter(|screening| screening.quarantined)
        {
            return Err(StoreError::InvalidInput(format!(
                "the merged text is held back by the injection detector (score {:.2}): \
                 nothing merged, the memories stay as they are",
                screening.score
            )));
        }
        if wanted.contains(&merged_id) {
            return Err(StoreError::InvalidInput(format!(
                "the merged text is the same as {mind}:{merged_id}'s; archive the others instead"
            )));
        }
        for &id in &wanted {
            tx.execute(
                "UPDATE memory_frames SET status = 'archived', merged_into = ?2 WHERE id = ?1",
                params![id, merged_id],
            )?;
            // The merged memory says what the originals said: it names
            // their entities (their wiki pages and the graph lane keep it).
            super::graph::name_the_same_entities_in(&tx, id, merged_id)?;
        }
        log_review(
            &tx,
            Some(merged_id),
            "merge",
            &serde_json::json!({"from": wanted, "into": merged_id}),
        )?;
        let originals = wanted
            .iter()
            .map(|&id| existing(&tx, &mind, id))
            .collect::<StoreResult<Vec<_>>>()?;
        let saved = SavedFrame {
            frame: existing(&tx, &mind, merged_id)?,
            duplicate: saved.duplicate,
        };
        tx.commit()?;
        Ok(Merged { saved, originals })
    }

    /// Release frame `id` from recall's injection scan: its owner has read
    /// it and vouches for it (logged, with the content hash it was released
    /// with). It takes the place it was held back from
    /// ([`super::slots::quarantine_changed_in`]): its slot's timeline is
    /// chained with it, and a correction closes the version it corrects.
    /// Releasing a memory already released is [`StoreError::InvalidInput`].
    pub fn release_frame(&mut self, id: u64) -> StoreResult<Released> {
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let frame = existing(&tx, &mind, id)?;
        if let Some(at) = frame.released_at {
            return Err(StoreError::InvalidInput(format!(
                "frame {mind}:{id} was already released at {at}"
            )));
        }
        let before = super::frames::quarantine_of(&tx, id)?;
        tx.execute(
            "UPDATE memory_frames SET released_at = ?2, quarantined = 0 WHERE id = ?1",
            params![id, now()],
        )?;
        let quarantined = before.filter(|before| before.quarantined);
        let was_quarantined = quarantined.is_some();
        if let Some(before) = quarantined {
            super::slots::quarantine_changed_in(&tx, id, before.slot.as_deref(), false)?;
        }
        log_review(
            &tx,
            Some(id),
            "release",
            &serde_json::json!({"content_hash": frame.content_hash}),
        )?;
        let frame = existing(&tx, &mind, id)?;
        tx.commit()?;
        Ok(Released {
            frame,
            was_quarantined,
        })
    }

    /// The frames its owner may have to review as likely injections, in id
    /// order, `limit` at a time after id `after`: not released, and either
    /// quarantined by the detector or never screened (written before it:
    /// the caller scans those). A screened, unquarantined frame is not
    /// read at all (the quarantined ones are indexed).
    pub fn held_back_after(&self, after: u64, limit: u32) -> StoreResult<Vec<Frame>> {
        let mind = self.mind.clone();
        Ok(self.conn.query_all(
            &format!(
                "SELECT {FRAME_COLUMNS} FROM memory_frames f
                 WHERE f.id > ?1 AND f.released_at IS NULL
                   AND (f.quarantined = 1 OR f.screen_detector IS NULL)
                 ORDER BY f.id LIMIT ?2"
            ),
            params![after, limit],
            |row| frame_from_row(&mind, row),
        )?)
    }

    /// The trace of frame `id` (see the module docs).
    pub fn trace(&self, id: u64) -> StoreResult<Trace> {
        let mind = self.mind.clone();
        let frame = existing(&self.conn, &mind, id)?;
        let ids = |sql: &str| -> StoreResult<Vec<u64>> {
            Ok(self.conn.query_all(sql, [id], |row| row.get(0))?)
        };
        let replaced = ids("SELECT id FROM memory_frames WHERE superseded_by = ?1 ORDER BY id")?;
        let merged_from = ids("SELECT id FROM memory_frames WHERE merged_into = ?1 ORDER BY id")?;
        let branches = ids(
            "SELECT id FROM memory_frames WHERE base_frame_id = ?1 AND frame_type = 'b-frame' ORDER BY id",
        )?;
        let entity_ids =
            ids("SELECT entity_id FROM kg_entity_frames WHERE frame_id = ?1 ORDER BY entity_id")?;
        let mut entities = Vec::with_capacity(entity_ids.len());
        for entity in entity_ids {
            entities.extend(self.entity(entity)?);
        }
        let related = self.conn.query_all(
            "SELECT related_id, similarity FROM memory_frame_links WHERE frame_id = ?1
             UNION SELECT frame_id, similarity FROM memory_frame_links WHERE related_id = ?1
             ORDER BY 2 DESC LIMIT 20",
            [id],
            |row| Ok((row.get::<_, u64>(0)?, row.get::<_, f64>(1)?)),
        )?;
        let reviews = self.conn.query_all(
            "SELECT id, at, action, frame_id, detail FROM memory_reviews WHERE frame_id = ?1 ORDER BY id",
            [id],
            log_from_row,
        )?;
        let session = super::sessions::get_in(&self.conn, &frame.gop_id)?;
        Ok(Trace {
            frame,
            session,
            replaced,
            merged_from,
            branches,
            entities,
            related,
            reviews,
        })
    }

    /// The newest rows of a log (at most [`MAX_LOG_ROWS`]), newest first;
    /// with `before`, only rows older than that id (a page further back).
    pub fn read_log(
        &self,
        log: LogKind,
        limit: u32,
        before: Option<u64>,
    ) -> StoreResult<Vec<LogEntry>> {
        let select = match log {
            LogKind::Reviews => "SELECT id, at, action, frame_id, detail FROM memory_reviews",
            LogKind::Erasures => {
                "SELECT id, erased_at, 'erase', frame_id,
                        json_object('content_hash', content_hash, 'event_date', event_date,
                                    'reason', reason, 'request', json(request))
                 FROM memory_erasures"
            }
            LogKind::Installs => "SELECT id, timestamp, action, NULL, detail FROM install_audit",
            LogKind::AiInteractions => {
                "SELECT id, timestamp, purpose, NULL,
                        json_object('provider', provider, 'model', model,
                                    'input_tokens', input_tokens, 'output_tokens', output_tokens,
                                    'detail', json(CASE WHEN json_valid(detail) THEN detail ELSE '{}' END))
                 FROM ai_interactions"
            }
        };
        let limit = limit.clamp(1, MAX_LOG_ROWS);
        Ok(self.conn.query_all(
            &format!("{select} WHERE id < ?1 ORDER BY id DESC LIMIT ?2"),
            params![
                before.map_or(i64::MAX, |id| i64::try_from(id).unwrap_or(i64::MAX)),
                limit
            ],
            log_from_row,
        )?)
    }

    /// Close session `gop_id` (with an optional summary), one transaction,
    /// logged. A session already closed is [`StoreError::InvalidInput`]; the
    /// next save starts a new one.
    pub fn close_session_reviewed(
        &mut self,
        gop_id: &str,
        summary: Option<&str>,
    ) -> StoreResult<Session> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let session = super::sessions::get_in(&tx, gop_id)?
            .ok_or_else(|| StoreError::NotFound(format!("session {gop_id}")))?;
        if session.status == "closed" {
            return Err(StoreError::InvalidInput(format!(
                "session {gop_id} is already closed"
            )));
        }
        tx.execute(
            "UPDATE sessions SET status = 'closed', ended_at = ?2, summary = coalesce(?3, summary)
             WHERE gop_id = ?1",
            params![gop_id, now(), summary],
        )?;
        log_review(
            &tx,
            None,
            "close-session",
            &serde_json::json!({"session": gop_id}),
        )?;
        let closed = super::sessions::get_in(&tx, gop_id)?
            .ok_or_else(|| StoreError::NotFound(format!("session {gop_id}")))?;
        tx.commit()?;
        Ok(closed)
    }

    /// The memories of session `gop_id` in the order they were written, at
    /// most `limit`; a session that does not exist is
    /// [`StoreError::NotFound`].
    pub fn session_memories(&self, gop_id: &str, limit: u32) -> StoreResult<Vec<Frame>> {
        if super::sessions::get_in(&self.conn, gop_id)?.is_none() {
            return Err(StoreError::NotFound(format!("session {gop_id}")));
        }
        Ok(self.conn.query_all(
            &format!(
                "SELECT {FRAME_COLUMNS} FROM memory_frames f WHERE f.gop_id = ?1 ORDER BY f.t, f.id LIMIT ?2"
            ),
            params![gop_id, limit],
            |row| frame_from_row(&self.mind, row),
        )?)
    }

    /// The frames of a session, how many (the session listing's count).
    pub fn session_frames(&self, gop_id: &str) -> StoreResult<u64> {
        Ok(self
            .conn
            .query_row(
                "SELECT count(*) FROM memory_frames WHERE gop_id = ?1",
                [gop_id],
                |row| row.get(0),
            )
            .optional()?
            .unwrap_or(0))
    }
}
