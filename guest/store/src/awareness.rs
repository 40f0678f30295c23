//! Awareness: what the agent is working on right now — at most
//! [`AWARENESS_MAX`] live items (not expired), by priority.
//!
//! The reference engine capped reads with `LIMIT 10`, so an 11th item made the
//! oldest silently vanish. Here the cap is on writes: adding to a full list
//! is refused with [`StoreError::AwarenessFull`], or, when the caller asks for
//! [`WhenFull::EvictLowest`], the lowest-priority (then oldest) live item is
//! deleted and returned in [`AwarenessAdded::evicted`]. A trigger refuses any
//! insert that would exceed the cap, so no other path can overfill it.
//! Expiry is a filter on reads; [`MindStore::purge_expired_awareness`]
//! deletes expired rows.

use crate::sql::{OptionalExtension, Row, TransactionBehavior, params};
use serde::Serialize;

use super::MindStore;
use super::clock::{now, parse_event_time};
use super::error::{StoreError, StoreResult};
use super::schema::{AWARENESS_CATEGORIES, AWARENESS_MAX};

/// A live awareness item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AwarenessItem {
    /// Its id.
    pub id: u64,
    /// `task`, `action`, `pending` or `flag`.
    pub category: String,
    /// What it says.
    pub content: String,
    /// Higher comes first.
    pub priority: i64,
    /// A JSON object.
    pub metadata: String,
    /// When it was added (UTC).
    pub created_at: String,
    /// When it stops being live (UTC), if ever.
    pub expires_at: Option<String>,
}

/// An item to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAwareness {
    /// `task`, `action`, `pending` or `flag`.
    pub category: String,
    /// What it says.
    pub content: String,
    /// Higher comes first.
    pub priority: i64,
    /// When it stops being live (ISO-8601), if ever.
    pub expires_at: Option<String>,
    /// A JSON object; `None` means `{}`.
    pub metadata: Option<String>,
}

/// What to do when the list is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenFull {
    /// Refuse with [`StoreError::AwarenessFull`].
    Refuse,
    /// Delete the lowest-priority, oldest live item and say so.
    EvictLowest,
}

/// The outcome of an add.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AwarenessAdded {
    /// The item added.
    pub item: AwarenessItem,
    /// The item evicted to make room, if one was.
    pub evicted: Option<AwarenessItem>,
}

const COLUMNS: &str = "id, category, content, priority, metadata, created_at, expires_at";
const LIVE: &str = "(expires_at IS NULL OR expires_at > ?1)";

fn from_row(row: &Row<'_>) -> crate::sql::Result<AwarenessItem> {
    Ok(AwarenessItem {
        id: row.get(0)?,
        category: row.get(1)?,
        content: row.get(2)?,
        priority: row.get(3)?,
        metadata: row.get(4)?,
        created_at: row.get(5)?,
        expires_at: row.get(6)?,
    })
}

impl MindStore {
    /// The live items, highest priority first, then newest.
    pub fn awareness(&self) -> StoreResult<Vec<AwarenessItem>> {
        let items = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM awareness WHERE {LIVE} ORDER BY priority DESC, created_at DESC, id DESC"
            ))?
            .query_map([now()], from_row)?
            .collect::<Result<_, _>>()?;
        Ok(items)
    }

    /// Add an item (see the module docs for a full list).
    pub fn add_awareness(
        &mut self,
        new: &NewAwareness,
        when_full: WhenFull,
    ) -> StoreResult<AwarenessAdded> {
        if !AWARENESS_CATEGORIES.contains(&new.category.as_str()) {
            return Err(StoreError::InvalidInput(format!(
                "unknown awareness category {:?}; expected one of: {}",
                new.category,
                AWARENESS_CATEGORIES.join(", ")
            )));
        }
        if new.content.trim().is_empty() {
            return Err(StoreError::InvalidInput(
                "an empty awareness item".to_string(),
            ));
        }
        super::screen_or_refuse("the awareness item", &new.content)?;
        let expires_at =
            match &new.expires_at {
                Some(text) => Some(parse_event_time(text).map(|(time, _)| time).map_err(
                    |reason| StoreError::InvalidInput(format!("expiresAt {text:?}: {reason}")),
                )?),
                None => None,
            };
        let metadata = match &new.metadata {
            None => "{}".to_string(),
            Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
                Ok(value) if value.is_object() => value.to_string(),
                _ => {
                    return Err(StoreError::InvalidInput(format!(
                        "metadata must be a JSON object, got {text:?}"
                    )));
                }
            },
        };
        let now = now();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let live: usize = tx.query_row(
            &format!("SELECT count(*) FROM awareness WHERE {LIVE}"),
            [&now],
            |row| row.get(0),
        )?;
        let mut evicted = None;
        if live >= AWARENESS_MAX {
            match when_full {
                WhenFull::Refuse => return Err(StoreError::AwarenessFull(live)),
                WhenFull::EvictLowest => {
                    let victim = tx
                        .query_row(
                            &format!(
                                "SELECT {COLUMNS} FROM awareness WHERE {LIVE}
                                 ORDER BY priority ASC, created_at ASC, id ASC LIMIT 1"
                            ),
                            [&now],
                            from_row,
                        )
                        .optional()?;
                    if let Some(victim) = &victim {
                        tx.execute("DELETE FROM awareness WHERE id = ?1", [victim.id])?;
                    }
                    evicted = victim;
                }
            }
        }
        tx.execute(
            "INSERT INTO awareness (category, content, priority, metadata, created_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                new.category,
                new.content,
                new.priority,
                metadata,
                now,
                expires_at
            ],
        )?;
        let id = tx.last_insert_rowid();
        let item = tx.query_row(
            &format!("SELECT {COLUMNS} FROM awareness WHERE id = ?1"),
            [id],
            from_row,
        )?;
        tx.commit()?;
        Ok(AwarenessAdded { item, evicted })
    }

    /// Remove an item.
    pub fn remove_awareness(&mut self, id: u64) -> StoreResult<()> {
        if self
            .conn
            .execute("DELETE FROM awareness WHERE id = ?1", [id])?
            == 0
        {
            return Err(StoreError::NotFound(format!("awareness item {id}")));
        }
        Ok(())
    }

    /// Merge a JSON object into an item's metadata (shallow: top-level keys
    /// replace).
    pub fn merge_awareness_metadata(&mut self, id: u64, patch: &str) -> StoreResult<()> {
        match serde_json::from_str::<serde_json::Value>(patch) {
            Ok(value) if value.is_object() => {}
            _ => {
                return Err(StoreError::InvalidInput(format!(
                    "metadata must be a JSON object, got {patch:?}"
                )));
            }
        }
        let changed = self.conn.execute(
            "UPDATE awareness SET metadata = json_patch(metadata, ?2) WHERE id = ?1",
            params![id, patch],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("awareness item {id}")));
        }
        Ok(())
    }

    /// Delete expired items; returns how many.
    pub fn purge_expired_awareness(&mut self) -> StoreResult<u64> {
        let deleted = self.conn.execute(
            "DELETE FROM awareness WHERE expires_at IS NOT NULL AND expires_at <= ?1",
            [now()],
        )?;
        Ok(u64::try_from(deleted).unwrap_or(0))
    }
}
