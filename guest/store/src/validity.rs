//! Validity: which memories are current, and what each replaced.
//!
//! A memory has two clocks: its **event time** (`created_at`, when what it
//! says happened or was said) and its **ingestion time** (`inserted_at`,
//! when the mind learned it). From v11 it also has a validity window on the
//! event clock: it is valid from its event time until `valid_to`, when a
//! newer statement replaced it (`superseded_by`, recorded at
//! `superseded_at` on the ingestion clock). A memory with no `valid_to` is
//! current. Nothing is deleted: the replaced memory stays in the log, recall
//! leaves it out unless asked "as of" a time inside its window.
//!
//! Two ways a memory is replaced:
//!
//! - **A correction** ([`MindStore::correct_frame`]): the owner (or an agent)
//!   writes the new version of one memory. The old one is closed at the new
//!   one's event time.
//! - **A newer statement of the same slot**
//!   ([`hive_mind_core::supersede::memory_slot`]: `user|residence`,
//!   `ana|phone number`, …). Every frame written gets its slot; the current
//!   frames of one slot are put in event-time order and each is closed at
//!   the next one's event time ([`super::slots`]), so the latest statement
//!   is current whatever order they arrived in (an import of an old chat
//!   after a newer save does not bring the old value back).
//!
//! This module holds the corrections and the history they leave; the slot
//! chaining lives below it, in [`super::slots`], because the frame writes
//! ([`super::frames`]), the v11 migration and erasure run it too, while a
//! correction is itself a frame write.

use crate::sql::{OptionalExtension, TransactionBehavior, params};

use super::MindStore;
use super::error::{StoreError, StoreResult};
use super::frames::{FRAME_COLUMNS, frame_from_row, get_in};
use super::types::{Frame, NewFrame, SavedFrame};

/// A correction's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Corrected {
    /// The new version, as stored.
    pub saved: SavedFrame,
    /// The old version: closed, unless the detector quarantined the new
    /// one (then it stays current until the owner releases that).
    pub replaced: Frame,
}

impl MindStore {
    /// Correct frame `id`: write `new` (its text, vectors and event time)
    /// and close the old version at the new one's event time (or at its own,
    /// if the new one is dated earlier: it was never valid after). One
    /// transaction; the new version names the old one's entities too. A
    /// correction the detector quarantines closes nothing: the old version
    /// stays current until the owner releases the correction
    /// ([`MindStore::release_frame`] closes it then). A
    /// frame that does not exist is [`StoreError::NotFound`];
    /// one already replaced, or a correction that says the same thing, is
    /// [`StoreError::InvalidInput`] naming why.
    pub fn correct_frame(&mut self, id: u64, new: NewFrame) -> StoreResult<Corrected> {
        let dim = self.vectors.require()?;
        let plan = self.chunk_plan;
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let old = get_in(&tx, &mind, id)?
            .ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{id}")))?;
        if let Some(newer) = old.superseded_by {
            return Err(StoreError::InvalidInput(format!(
                "frame {mind}:{id} was already replaced by {mind}:{newer}; correct that one"
            )));
        }
        let mut saved = super::frames::save_frames_in(&tx, &mind, dim, plan, &[new])?;
        let saved = saved
            .pop()
            .ok_or_else(|| StoreError::InvalidInput("nothing to save".to_string()))?;
        let new_id = saved.frame.frame_ref.id;
        if new_id == id {
            return Err(StoreError::InvalidInput(format!(
                "the correction of {mind}:{id} says the same thing"
            )));
        }
        // A quarantined correction closes nothing until its owner releases
        // it (a hostile text must not hide what is true); the verdict below
        // keeps what it would replace for then ([`super::slots::replace_in`]).
        if !saved.frame.quarantined() {
            super::slots::replace_in(&tx, id, new_id)?;
        }
        // A correction is the owner's (or its agent's) word that the new
        // version replaces the old: nothing left to confirm.
        super::decisions::record_verdict_in(
            &tx,
            id,
            new_id,
            super::decisions::PairVerdict::Replaces,
        )?;
        let replaced = get_in(&tx, &mind, id)?
            .ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{id}")))?;
        let saved = SavedFrame {
            frame: get_in(&tx, &mind, new_id)?
                .ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{new_id}")))?,
            duplicate: saved.duplicate,
        };
        tx.commit()?;
        Ok(Corrected { saved, replaced })
    }

    /// Put frames `a` and `b` on one timeline: the recall pipeline judged
    /// that one replaces the other (`hive_mind_core::change`). They share
    /// a slot — the one either already has (the older's first), else one
    /// named after the older frame — and the slot is chained by event
    /// time ([`super::slots`]), so the later statement is current whatever
    /// order they were written in, and forgetting it reopens the earlier.
    /// One transaction. Returns whether anything changed: frames that are
    /// already on one timeline, or a frame that is gone or replaced, are
    /// left as they are.
    pub fn join_timeline(&mut self, a: u64, b: u64) -> StoreResult<bool> {
        if a == b {
            return Ok(false);
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let read = |id: u64| -> StoreResult<Option<(String, Option<String>, bool)>> {
            Ok(tx
                .query_row(
                    "SELECT created_at, slot, valid_to IS NULL FROM memory_frames WHERE id = ?1",
                    [id],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                )
                .optional()?)
        };
        let (Some(first), Some(second)) = (read(a)?, read(b)?) else {
            return Ok(false);
        };
        if !first.2 || !second.2 {
            return Ok(false);
        }
        let (older, newer) = if (first.0.as_str(), a) <= (second.0.as_str(), b) {
            ((a, first), (b, second))
        } else {
            ((b, second), (a, first))
        };
        let ((older, (_, older_slot, _)), (newer, (_, newer_slot, _))) = (older, newer);
        if older_slot.is_some() && older_slot == newer_slot {
            // Already one timeline, chained when written.
            return Ok(false);
        }
        let slot = match (&older_slot, &newer_slot) {
            (Some(slot), _) | (None, Some(slot)) => slot.clone(),
            (None, None) => format!("meaning|{older}"),
        };
        tx.execute(
            "UPDATE memory_frames SET slot = ?2 WHERE id IN (?1, ?3)",
            params![older, slot, newer],
        )?;
        let mut changed = super::slots::chain_slot_in(&tx, &slot)?;
        // The newer statement leaves the timeline its patterns gave it
        // ("we live in …" is `shared|residence`, "I live in …"
        // `user|residence`: one fact said two ways); what remains of that
        // timeline is chained again.
        if let Some(left) = &newer_slot
            && *left != slot
        {
            changed += super::slots::chain_slot_in(&tx, left)?;
        }
        tx.commit()?;
        Ok(changed > 0)
    }

    /// The stored vectors of frames `ids` (those that have one), for
    /// comparing memories with each other.
    pub fn frame_vectors(&self, ids: &[u64]) -> StoreResult<Vec<(u64, Vec<f32>)>> {
        let mut out = Vec::with_capacity(ids.len());
        let mut statement = self
            .conn
            .prepare_cached("SELECT embedding FROM memory_frames_vec WHERE rowid = ?1")?;
        for &id in ids {
            let found: Option<Vec<u8>> = statement.query_row([id], |row| row.get(0)).optional()?;
            if let Some(bytes) = found {
                out.push((id, super::vector_index::vector_from_bytes(&bytes)));
            }
        }
        Ok(out)
    }

    /// The versions of frame `id`'s memory, oldest first: the frames it
    /// replaced (and what they replaced), itself, and the frames that
    /// replaced it, following the links both ways.
    pub fn history(&self, id: u64) -> StoreResult<Vec<Frame>> {
        let mind = self.mind.clone();
        let start = get_in(&self.conn, &mind, id)?
            .ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{id}")))?;
        let mut before = Vec::new();
        let mut at = start.frame_ref.id;
        while before.len() < MAX_HISTORY {
            let Some(older) = self
                .conn
                .query_row(
                    &format!(
                        "SELECT {FRAME_COLUMNS} FROM memory_frames f WHERE f.superseded_by = ?1
                         ORDER BY f.created_at DESC, f.id DESC LIMIT 1"
                    ),
                    [at],
                    |row| frame_from_row(&mind, row),
                )
                .optional()?
            else {
                break;
            };
            at = older.frame_ref.id;
            before.push(older);
        }
        before.reverse();
        let mut versions = before;
        let mut next = start.superseded_by;
        versions.push(start);
        while let Some(id) = next {
            if versions.len() >= 2 * MAX_HISTORY {
                break;
            }
            let Some(newer) = get_in(&self.conn, &mind, id)? else {
                break;
            };
            next = newer.superseded_by;
            versions.push(newer);
        }
        Ok(versions)
    }
}

/// The most versions followed each way by [`MindStore::history`].
pub const MAX_HISTORY: usize = 100;
