//! Harvest's records: which sources were imported, and which of their items
//! are done.
//!
//! An import writes each item in **one transaction**
//! ([`MindStore::harvest_commit`]): its frames (raw turns, lane frames,
//! document sections), the profile frames it replaces, its graph entities
//! and relations, the model calls it made (`ai_interactions`), and the
//! `harvest_items` row that marks it done. A process killed mid-import
//! leaves each item either fully written or not at all, so a rerun skips
//! exactly the items that are done ([`MindStore::harvest_done_items`]) and
//! pays no model call twice for them.
//!
//! Items are keyed by format, item id and item hash: a conversation that
//! grew in a newer export has a new hash and is processed again (its
//! unchanged turns dedup by content hash), an unchanged one is skipped. Items
//! whose distillation failed are recorded as `failed` and are not done: the
//! next run tries them again.

use std::collections::HashSet;

use serde::Serialize;

use crate::MindStore;
use crate::audit::AiInteraction;
use crate::clock::now;
use crate::error::{StoreError, StoreResult};
use crate::frames::{delete_frame_in, save_frames_in};
use crate::graph::{relate_in, upsert_entity_in};
use crate::sql::{OptionalExtension, TransactionBehavior, params};
use crate::types::{NewFrame, SavedFrame};

/// What became of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemOutcome {
    /// Written (its raw turns or sections, and what was distilled).
    Imported,
    /// Classified as not worth distilling; its raw turns were written.
    Skipped,
    /// Dropped whole by the injection scan: nothing of it was written.
    Hostile,
    /// Its distillation failed; its raw turns were written. Not done: the
    /// next import tries it again.
    Failed,
}

impl ItemOutcome {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemOutcome::Imported => "imported",
            ItemOutcome::Skipped => "skipped",
            ItemOutcome::Hostile => "hostile",
            ItemOutcome::Failed => "failed",
        }
    }
}

/// A source imported before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarvestSource {
    /// Its format (`chatgpt`, `markdown`, …).
    pub format: String,
    /// Its name (file name or URL).
    pub name: String,
    /// Items it held when last imported.
    pub items: u32,
    /// SHA-256 over the sorted hashes of its items, as last imported.
    pub set_hash: String,
    /// When it was first imported.
    pub first_imported: String,
    /// When it was last imported.
    pub last_imported: String,
}

/// A graph entity an item writes, linked to some of its frames.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityWrite {
    /// The name (canonicalised by the store).
    pub name: String,
    /// Its type (`person`, `technology`, …).
    pub entity_type: String,
    /// Indexes into [`ItemCommit::frames`] of the frames that mention it.
    pub frames: Vec<usize>,
}

/// A graph relation an item writes, between two of its entities.
#[derive(Debug, Clone, PartialEq)]
pub struct RelationWrite {
    /// Index into [`ItemCommit::entities`] of the subject.
    pub subject: usize,
    /// The relation type.
    pub relation: String,
    /// Index into [`ItemCommit::entities`] of the object.
    pub object: usize,
    /// How sure the extraction is, 0 to 1.
    pub strength: f64,
}

/// Everything one item writes, committed together.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemCommit {
    /// The source it belongs to ([`MindStore::harvest_source_upsert`]).
    pub source_id: Option<u64>,
    /// Its format.
    pub format: String,
    /// Its id within its source.
    pub item_id: String,
    /// Its hash.
    pub item_hash: String,
    /// What became of it.
    pub outcome: ItemOutcome,
    /// Frames to delete first (the profiles this item's profiles replace);
    /// a frame other frames are based on is deprecated instead.
    pub replaces: Vec<u64>,
    /// Frames to write (each deduplicated by content hash).
    pub frames: Vec<NewFrame>,
    /// Entities to create or strengthen.
    pub entities: Vec<EntityWrite>,
    /// Relations between them.
    pub relations: Vec<RelationWrite>,
    /// The model calls made for it.
    pub interactions: Vec<AiInteraction>,
}

/// What an item's commit wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemCommitted {
    /// The frames, in the order given (duplicates flagged).
    pub saved: Vec<SavedFrame>,
    /// Entities created.
    pub entities_new: u32,
    /// Entities that existed and were strengthened.
    pub entities_seen: u32,
    /// Relations written or strengthened.
    pub relations: u32,
    /// Frames replaced (deleted, or deprecated where others depend on them).
    pub replaced: u32,
}

impl MindStore {
    /// Of `hashes` (item hashes of `format`), those already done (imported,
    /// skipped or hostile; not failed).
    pub fn harvest_done_items(
        &self,
        format: &str,
        hashes: &[String],
    ) -> StoreResult<HashSet<String>> {
        if hashes.is_empty() {
            return Ok(HashSet::new());
        }
        let list = serde_json::to_string(hashes)
            .map_err(|error| StoreError::InvalidInput(format!("item hashes: {error}")))?;
        let done = self
            .conn
            .prepare(
                "SELECT DISTINCT item_hash FROM harvest_items
                 WHERE format = ?1 AND outcome != 'failed'
                   AND item_hash IN (SELECT value FROM json_each(?2))",
            )?
            .query_map(params![format, list], |row| row.get::<_, String>(0))?
            .collect::<Result<HashSet<_>, _>>()?;
        Ok(done)
    }

    /// Record (or refresh) a source and return its id.
    pub fn harvest_source_upsert(
        &mut self,
        format: &str,
        name: &str,
        set_hash: &str,
        items: u32,
    ) -> StoreResult<u64> {
        let now = now();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO harvest_sources (format, name, set_hash, items, first_imported, last_imported)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5)
             ON CONFLICT (format, name) DO UPDATE SET
                 set_hash = excluded.set_hash, items = excluded.items, last_imported = excluded.last_imported",
            params![format, name, set_hash, items, now],
        )?;
        let id: u64 = tx.query_row(
            "SELECT id FROM harvest_sources WHERE format = ?1 AND name = ?2",
            params![format, name],
            |row| row.get(0),
        )?;
        tx.commit()?;
        Ok(id)
    }

    /// The sources imported into this mind, most recently imported first.
    pub fn harvest_sources(&self) -> StoreResult<Vec<HarvestSource>> {
        let sources = self
            .conn
            .prepare(
                "SELECT format, name, items, set_hash, first_imported, last_imported
                 FROM harvest_sources ORDER BY last_imported DESC, id DESC",
            )?
            .query_map([], |row| {
                Ok(HarvestSource {
                    format: row.get(0)?,
                    name: row.get(1)?,
                    items: row.get(2)?,
                    set_hash: row.get(3)?,
                    first_imported: row.get(4)?,
                    last_imported: row.get(5)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(sources)
    }

    /// The frames of the distilled lanes (`[mind-fact]`, `[mind-event]`,
    /// `[mind-profile …]`), id and content, oldest first: what pass 4
    /// deduplicates against and where a profile's predecessor is found.
    pub fn lane_frames(&self) -> StoreResult<Vec<(u64, String)>> {
        let frames = self
            .conn
            .prepare(
                "SELECT id, content FROM memory_frames
                 WHERE head_token IN ('[mind-fact]', '[mind-event]', '[mind-profile')
                   AND importance != 'deprecated'
                 ORDER BY id",
            )?
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(frames)
    }

    /// Write one item: everything in `commit`, in one transaction.
    pub fn harvest_commit(&mut self, commit: &ItemCommit) -> StoreResult<ItemCommitted> {
        let dim = if commit.frames.is_empty() {
            0
        } else {
            self.vectors.require()?
        };
        for relation in &commit.relations {
            if relation.subject >= commit.entities.len() || relation.object >= commit.entities.len()
            {
                return Err(StoreError::InvalidInput(format!(
                    "a relation names entity {} or {} of {}",
                    relation.subject,
                    relation.object,
                    commit.entities.len()
                )));
            }
        }
        for entity in &commit.entities {
            if let Some(bad) = entity
                .frames
                .iter()
                .find(|index| **index >= commit.frames.len())
            {
                return Err(StoreError::InvalidInput(format!(
                    "entity {:?} names frame {bad} of {}",
                    entity.name,
                    commit.frames.len()
                )));
            }
        }
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut replaced = 0;
        for id in &commit.replaces {
            match delete_frame_in(&tx, &mind, *id) {
                Ok(()) => replaced += 1,
                Err(StoreError::Referenced { .. }) => {
                    tx.execute(
                        "UPDATE memory_frames SET importance = 'deprecated' WHERE id = ?1",
                        [id],
                    )?;
                    replaced += 1;
                }
                // Already gone (replaced by a concurrent import): nothing to do.
                Err(StoreError::NotFound(_)) => {}
                Err(other) => return Err(other),
            }
        }
        let saved = save_frames_in(&tx, &mind, dim, self.chunk_plan, &commit.frames)?;
        let mut entity_ids = Vec::with_capacity(commit.entities.len());
        let (mut entities_new, mut entities_seen) = (0, 0);
        for entity in &commit.entities {
            // Every index was checked against the frames above.
            let frames: Vec<u64> = entity
                .frames
                .iter()
                .filter_map(|index| saved.get(*index))
                .map(|saved| saved.frame.frame_ref.id)
                .collect();
            let (stored, created) =
                upsert_entity_in(&tx, &mind, &entity.name, &entity.entity_type, &frames)?;
            if created {
                entities_new += 1;
            } else {
                entities_seen += 1;
            }
            entity_ids.push(stored.id);
        }
        let mut relations = 0;
        for relation in &commit.relations {
            // Both indexes were checked against the entities above.
            let (Some(&subject), Some(&object)) = (
                entity_ids.get(relation.subject),
                entity_ids.get(relation.object),
            ) else {
                continue;
            };
            if subject == object {
                continue;
            }
            relate_in(&tx, subject, &relation.relation, object, relation.strength)?;
            relations += 1;
        }
        for interaction in &commit.interactions {
            crate::audit::append_ai_interaction_in(&tx, interaction)?;
        }
        let written = saved.iter().filter(|frame| !frame.duplicate).count();
        let existing: Option<String> = tx
            .query_row(
                "SELECT outcome FROM harvest_items WHERE format = ?1 AND item_id = ?2 AND item_hash = ?3",
                params![commit.format, commit.item_id, commit.item_hash],
                |row| row.get(0),
            )
            .optional()?;
        if existing.is_some() {
            tx.execute(
                "UPDATE harvest_items SET outcome = ?4, frames = frames + ?5, imported_at = ?6,
                     source_id = coalesce(?7, source_id)
                 WHERE format = ?1 AND item_id = ?2 AND item_hash = ?3",
                params![
                    commit.format,
                    commit.item_id,
                    commit.item_hash,
                    commit.outcome.as_str(),
                    written,
                    now(),
                    commit.source_id
                ],
            )?;
        } else {
            tx.execute(
                "INSERT INTO harvest_items (format, item_id, item_hash, source_id, outcome, frames, imported_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    commit.format,
                    commit.item_id,
                    commit.item_hash,
                    commit.source_id,
                    commit.outcome.as_str(),
                    written,
                    now()
                ],
            )?;
        }
        tx.commit()?;
        Ok(ItemCommitted {
            saved,
            entities_new,
            entities_seen,
            relations,
            replaced,
        })
    }
}
