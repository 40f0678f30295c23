//! Decisions: the owner's word on two memories the engine read as one fact
//! changing.
//!
//! The engine links memories on its own: a newer statement of the same
//! slot replaces the older ([`super::slots`]), and the wiki flags two
//! current statements of one subject that may disagree. Either reading can
//! be wrong, so the owner confirms or undoes it ([`MindStore::decide_pair`]):
//!
//! - **`replaces`**: the newer is what is true now. A possible conflict is
//!   resolved that way (the older is closed at the newer's event time, as a
//!   correction closes it); an automatic replacement is confirmed.
//! - **`both_stand`**: both are true. A possible conflict is dismissed; an
//!   automatic replacement is undone: the older is current again, and it
//!   leaves its slot for one of its own (`kept|<id>`), so no later
//!   statement of that slot replaces it on its own.
//!
//! One row per pair in `memory_pair_verdicts` (v14), the latest decision,
//! gone with either memory (a foreign key cascade), and one row in the
//! review log. A correction is itself the owner's word: it records
//! `replaces` for the pair it makes. What the wiki's health report asks the
//! owner about is what no row answers yet ([`MindStore::undecided_replacements`],
//! [`MindStore::decided_pairs`]).

use std::collections::BTreeSet;

use crate::sql::{Connection, TransactionBehavior, params};

use super::MindStore;
use super::clock::now;
use super::error::{StoreError, StoreResult};
use super::frames::{FRAME_COLUMNS, frame_from_row, get_in, id_list};
use super::review::log_review;
use super::types::Frame;

/// What the owner said of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairVerdict {
    /// The newer replaces the older.
    Replaces,
    /// Both are true.
    BothStand,
}

impl PairVerdict {
    /// Its stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            PairVerdict::Replaces => "replaces",
            PairVerdict::BothStand => "both_stand",
        }
    }
}

/// A decision, as recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct PairDecision {
    /// The older memory, as it is now.
    pub older: Frame,
    /// The newer memory, as it is now.
    pub newer: Frame,
    /// The verdict.
    pub verdict: PairVerdict,
    /// When it was decided (UTC).
    pub decided_at: String,
}

/// Record `verdict` for the pair (the latest decision wins).
pub(crate) fn record_verdict_in(
    conn: &Connection,
    older: u64,
    newer: u64,
    verdict: PairVerdict,
) -> StoreResult<String> {
    let at = now();
    conn.execute(
        "INSERT INTO memory_pair_verdicts (older_id, newer_id, verdict, decided_at)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (older_id, newer_id) DO UPDATE SET verdict = ?3, decided_at = ?4",
        params![older, newer, verdict.as_str(), at],
    )?;
    Ok(at)
}

impl MindStore {
    /// Decide on the pair `a`, `b` (ordered by event time, then id). One
    /// transaction, logged. See the module docs for what each verdict
    /// changes; a frame that does not exist is [`StoreError::NotFound`],
    /// one frame twice, or `replaces` where either memory was already
    /// replaced by a third, is [`StoreError::InvalidInput`] naming why.
    pub fn decide_pair(
        &mut self,
        a: u64,
        b: u64,
        verdict: PairVerdict,
    ) -> StoreResult<PairDecision> {
        let mind = self.mind.clone();
        if a == b {
            return Err(StoreError::InvalidInput(format!(
                "a decision needs two memories; {mind}:{a} was given twice"
            )));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let read = |id: u64| -> StoreResult<Frame> {
            get_in(&tx, &mind, id)?
                .ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{id}")))
        };
        let (first, second) = (read(a)?, read(b)?);
        let (older, newer) = if (first.created_at.as_str(), a) <= (second.created_at.as_str(), b) {
            (first, second)
        } else {
            (second, first)
        };
        let (older_id, newer_id) = (older.frame_ref.id, newer.frame_ref.id);
        match verdict {
            PairVerdict::Replaces => {
                if older.superseded_by != Some(newer_id) {
                    if let Some(other) = older.superseded_by {
                        return Err(StoreError::InvalidInput(format!(
                            "{mind}:{older_id} was already replaced by {mind}:{other}; decide on that pair"
                        )));
                    }
                    if let Some(other) = newer.superseded_by {
                        return Err(StoreError::InvalidInput(format!(
                            "{mind}:{newer_id} was itself replaced by {mind}:{other}, so it cannot replace {mind}:{older_id}"
                        )));
                    }
                    // As a correction closes it: the newer is about what
                    // the older was.
                    super::slots::replace_in(&tx, older_id, newer_id)?;
                }
            }
            PairVerdict::BothStand => {
                if older.superseded_by == Some(newer_id) {
                    let slot: Option<String> = tx.query_row(
                        "SELECT slot FROM memory_frames WHERE id = ?1",
                        [older_id],
                        |row| row.get(0),
                    )?;
                    tx.execute(
                        "UPDATE memory_frames SET valid_to = NULL, superseded_by = NULL,
                             superseded_at = NULL, slot = ?2
                         WHERE id = ?1",
                        params![older_id, format!("kept|{older_id}")],
                    )?;
                    if let Some(slot) = slot {
                        super::slots::chain_slot_in(&tx, &slot)?;
                    }
                }
            }
        }
        let decided_at = record_verdict_in(&tx, older_id, newer_id, verdict)?;
        log_review(
            &tx,
            Some(older_id),
            "decide-pair",
            &serde_json::json!({"newer": newer_id, "verdict": verdict.as_str()}),
        )?;
        let decision = PairDecision {
            older: read(older_id)?,
            newer: read(newer_id)?,
            verdict,
            decided_at,
        };
        tx.commit()?;
        Ok(decision)
    }

    /// The pairs among `ids` the owner has decided on, as (older, newer).
    pub fn decided_pairs(&self, ids: &[u64]) -> StoreResult<BTreeSet<(u64, u64)>> {
        // One statement for the lot (from a component, each statement is a
        // call across the boundary).
        let pairs: Vec<(u64, u64)> = self.conn.query_all(
            "SELECT older_id, newer_id FROM memory_pair_verdicts
             WHERE older_id IN (SELECT value FROM json_each(?1))",
            [id_list(ids)],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        Ok(pairs.into_iter().collect())
    }

    /// The replacements the engine made on its own that the owner has not
    /// decided on, newest replacement first: how many there are, and the
    /// first `limit` as (replaced, replacing) frames.
    pub fn undecided_replacements(&self, limit: u32) -> StoreResult<(u64, Vec<(Frame, Frame)>)> {
        const UNDECIDED: &str = "FROM memory_frames f
             WHERE f.superseded_by IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM memory_pair_verdicts v
                               WHERE v.older_id = f.id AND v.newer_id = f.superseded_by)";
        let count: u64 =
            self.conn
                .query_row(&format!("SELECT count(*) {UNDECIDED}"), [], |row| {
                    row.get(0)
                })?;
        let older: Vec<Frame> = self.conn.query_all(
            &format!("SELECT {FRAME_COLUMNS} {UNDECIDED} ORDER BY f.superseded_at DESC, f.id DESC LIMIT ?1"),
            [limit],
            |row| frame_from_row(&self.mind, row),
        )?;
        let newer_ids: Vec<u64> = older
            .iter()
            .filter_map(|frame| frame.superseded_by)
            .collect();
        let newer: std::collections::HashMap<u64, Frame> = self
            .get_frames(&newer_ids)?
            .into_iter()
            .map(|frame| (frame.frame_ref.id, frame))
            .collect();
        let pairs = older
            .into_iter()
            .filter_map(|frame| {
                let replacing = frame.superseded_by.and_then(|id| newer.get(&id).cloned())?;
                Some((frame, replacing))
            })
            .collect();
        Ok((count, pairs))
    }
}
