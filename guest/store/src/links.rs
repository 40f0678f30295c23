//! Related-frame links: which frames of a mind say related things.
//!
//! Cognify links each new frame to the most similar frames already in its
//! mind (the guest decides which; see `hive_mind_core::cognify`); the
//! store keeps the links in `memory_frame_links` (schema v3) both ways, with
//! the similarity that made them. Deleting a frame deletes its links
//! (foreign keys, `ON DELETE CASCADE`).

use crate::sql::{TransactionBehavior, params};

use super::MindStore;
use super::error::{StoreError, StoreResult};

/// A link to a related frame: its id and the similarity.
pub type FrameLink = (u64, f64);

impl MindStore {
    /// Link `frame` to each of `related` (both ways), in one transaction;
    /// linking again updates the similarity. An unknown frame, a self-link or
    /// a similarity outside [-1, 1] is invalid input, and nothing is written.
    pub fn link_frames(&mut self, frame: u64, related: &[FrameLink]) -> StoreResult<()> {
        let mind = self.mind().clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let exists = |id: u64| -> StoreResult<bool> {
            Ok(tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM memory_frames WHERE id = ?1)",
                [id],
                |row| row.get(0),
            )?)
        };
        if !exists(frame)? {
            return Err(StoreError::NotFound(format!("frame {mind}:{frame}")));
        }
        for &(id, similarity) in related {
            if id == frame {
                return Err(StoreError::InvalidInput(format!(
                    "frame {mind}:{frame} cannot be linked to itself"
                )));
            }
            if !(-1.0..=1.0).contains(&similarity) {
                return Err(StoreError::InvalidInput(format!(
                    "a link's similarity must be between -1 and 1, got {similarity}"
                )));
            }
            if !exists(id)? {
                return Err(StoreError::NotFound(format!("frame {mind}:{id}")));
            }
        }
        let now = super::clock::now();
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO memory_frame_links (frame_id, related_id, similarity, created_at)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (frame_id, related_id) DO UPDATE SET similarity = excluded.similarity",
            )?;
            for &(id, similarity) in related {
                insert.execute(params![frame, id, similarity, now])?;
                insert.execute(params![id, frame, similarity, now])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The frames linked to `frame`, most similar first (then by id).
    pub fn related_frames(&self, frame: u64, limit: u32) -> StoreResult<Vec<FrameLink>> {
        let links = self
            .conn
            .prepare_cached(
                "SELECT related_id, similarity FROM memory_frame_links WHERE frame_id = ?1
                 ORDER BY similarity DESC, related_id LIMIT ?2",
            )?
            .query_map(params![frame, limit], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(links)
    }
}
