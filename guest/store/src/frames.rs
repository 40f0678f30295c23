//! Frames: the append-only log of memories, and every write that touches it.
//!
//! A session (GOP) starts with an **I-frame**; later saves to the same session
//! are **P-frames** whose `base_frame_id` is that I-frame, with `t` one past
//! the session's highest (monotonic, and unique per session by index). A
//! **B-frame** branches off any frame: its content is the JSON
//! `{"description", "references"}` and its base is the branched frame.
//!
//! Every save:
//!
//! 1. validates everything first — non-empty content, the event time
//!    (ISO-8601, see [`super::clock::parse_event_time`]), metadata as a JSON
//!    object, the vector's dimension, the chunks against
//!    [`super::plan_chunks`] under the mind's chunk plan
//!    ([`MindStore::chunk_plan`]) — so a bad save writes nothing;
//! 2. hashes the content with [`hive_mind_core::content_hash`]; when a frame
//!    with that hash exists and is valid at the new event time, touches it
//!    and returns it flagged `duplicate` (the same words said again after a
//!    newer statement replaced them are written: the latest is current);
//! 3. otherwise inserts the frame (FTS follows by trigger), its vector and
//!    its chunks with their vectors, in one `IMMEDIATE` transaction.
//!
//! P-frames can only add; to correct a memory, [`MindStore::update_frame`]
//! it (re-embedded, every index kept in sync) or deprecate it with
//! [`MindStore::set_importance`]. [`MindStore::delete_frame`] refuses a frame
//! that other frames are based on.

use crate::sql::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use hive_mind_core::{ChunkPlan, Importance, content_hash};

use super::clock::{now, parse_event_time};
use super::error::{StoreError, StoreResult};
use super::meta::{check_vector, vector_bytes};
use super::types::{
    BranchContent, ChunkVector, Frame, FrameScreening, FrameType, MemoryStatus, NewFrame,
    SavedFrame, parse_frame_type, parse_importance, parse_source,
};
use super::{MindStore, plan_chunks, sessions};

/// The columns [`frame_from_row`] reads, in order.
pub const FRAME_COLUMNS: &str = "f.id, f.frame_type, f.gop_id, f.t, f.base_frame_id, f.content, \
     f.importance, f.source, f.access_count, f.created_at, f.event_date, f.inserted_at, \
     f.last_accessed, f.content_hash, f.metadata, f.valid_to, f.superseded_by, f.superseded_at, f.status, f.pinned, f.tags, \
     f.merged_into, f.released_at, f.screen_score, f.screen_detector, f.screen_reasons, \
     f.quarantined";

/// A B-frame to write.
#[derive(Debug, Clone, PartialEq)]
pub struct NewBranch {
    /// The frame branched off (same mind).
    pub base_frame_id: u64,
    /// What the branch is and which frames it refers to.
    pub branch: BranchContent,
    /// The session; `None` uses the active one.
    pub gop_id: Option<String>,
    /// How much it matters.
    pub importance: Importance,
    /// Where it came from.
    pub source: hive_mind_core::Source,
    /// Event time; `None` means now.
    pub created_at: Option<String>,
    /// A JSON object; `None` means `{}`.
    pub metadata: Option<String>,
    /// The embedding of [`BranchContent::to_content`].
    pub embedding: Vec<f32>,
    /// Chunk embeddings of that content (see [`super::plan_chunks`]).
    pub chunks: Vec<ChunkVector>,
}

/// A frame validated and ready to insert.
struct Checked {
    content: String,
    hash: String,
    created_at: String,
    event_date: String,
    metadata: String,
    /// The search context ([`NewFrame::context`]), trimmed.
    context: String,
}

/// Validate the parts every write shares. `dim` is the mind's vector
/// dimension and `plan` its chunk plan. A frame without an embedding (the
/// embedder failed on it) takes no chunks: it is stored without vectors.
#[allow(clippy::too_many_arguments)]
fn check(
    content: &str,
    created_at: Option<&str>,
    metadata: Option<&str>,
    embedding: Option<&[f32]>,
    chunks: &[ChunkVector],
    dim: u32,
    plan: ChunkPlan,
) -> StoreResult<Checked> {
    if content.trim().is_empty() {
        return Err(StoreError::InvalidInput("the content is empty".to_string()));
    }
    let (created_at, event_date) = match created_at {
        Some(text) => parse_event_time(text).map_err(|reason| {
            StoreError::InvalidInput(format!("createdAt {text:?} is not a valid time: {reason}"))
        })?,
        None => {
            let now = now();
            let date = now.get(..10).unwrap_or_default().to_string();
            (now, date)
        }
    };
    let metadata = match metadata {
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
    match embedding {
        Some(embedding) => {
            check_vector(embedding, dim, "the frame's embedding")?;
            check_chunks(content, chunks, dim, plan)?;
        }
        None if !chunks.is_empty() => {
            return Err(StoreError::InvalidInput(
                "chunk vectors were offered for a frame without an embedding".to_string(),
            ));
        }
        None => {}
    }
    Ok(Checked {
        content: content.to_string(),
        hash: content_hash(content),
        created_at,
        event_date,
        metadata,
        context: String::new(),
    })
}

/// The chunks offered must be exactly [`plan_chunks`]`(content, plan)`, each
/// with a vector of the mind's dimension.
fn check_chunks(
    content: &str,
    chunks: &[ChunkVector],
    dim: u32,
    plan: ChunkPlan,
) -> StoreResult<()> {
    let plan_name = plan;
    let plan = plan_chunks(content, plan);
    let offered: Vec<(u32, u32)> = chunks.iter().map(|c| (c.char_start, c.char_end)).collect();
    let expected: Vec<(u32, u32)> = plan.iter().map(|c| (c.char_start, c.char_end)).collect();
    if offered != expected {
        return Err(StoreError::InvalidInput(format!(
            "the chunks do not match the content's chunking (the mind's plan: {}): expected {} chunk(s) at {expected:?}, got {offered:?}",
            plan_name,
            expected.len()
        )));
    }
    for (index, chunk) in chunks.iter().enumerate() {
        check_vector(&chunk.embedding, dim, &format!("chunk {index}'s embedding"))?;
    }
    Ok(())
}

/// Read a frame row (columns [`FRAME_COLUMNS`]).
pub fn frame_from_row(store_mind: &super::Mind, row: &Row<'_>) -> crate::sql::Result<Frame> {
    let text_err = |index: usize, error: StoreError| crate::sql::Error::conversion(index, error);
    let frame_type: String = row.get(1)?;
    let importance: String = row.get(6)?;
    let source: String = row.get(7)?;
    Ok(Frame {
        frame_ref: super::FrameRef {
            mind: store_mind.clone(),
            id: row.get(0)?,
        },
        frame_type: parse_frame_type(&frame_type).map_err(|e| text_err(1, e))?,
        gop_id: row.get(2)?,
        t: row.get(3)?,
        base_frame_id: row.get(4)?,
        content: row.get(5)?,
        importance: parse_importance(&importance).map_err(|e| text_err(6, e))?,
        source: parse_source(&source).map_err(|e| text_err(7, e))?,
        access_count: row.get(8)?,
        created_at: row.get(9)?,
        event_date: row.get(10)?,
        inserted_at: row.get(11)?,
        last_accessed: row.get(12)?,
        content_hash: row.get(13)?,
        metadata: row.get(14)?,
        valid_to: row.get(15)?,
        superseded_by: row.get(16)?,
        superseded_at: row.get(17)?,
        status: {
            let status: String = row.get(18)?;
            MemoryStatus::parse(&status).ok_or_else(|| {
                text_err(
                    18,
                    StoreError::InvalidInput(format!("unknown memory status {status:?}")),
                )
            })?
        },
        pinned: row.get(19)?,
        tags: {
            let tags: String = row.get(20)?;
            serde_json::from_str(&tags).map_err(|e| {
                text_err(20, StoreError::InvalidInput(format!("tags {tags:?}: {e}")))
            })?
        },
        merged_into: row.get(21)?,
        released_at: row.get(22)?,
        screening: {
            let score: Option<f64> = row.get(23)?;
            let detector: Option<String> = row.get(24)?;
            match (score, detector) {
                (Some(score), Some(detector)) => {
                    let reasons: String = row.get(25)?;
                    Some(FrameScreening {
                        score,
                        detector,
                        reasons: serde_json::from_str(&reasons).map_err(|e| {
                            text_err(
                                25,
                                StoreError::InvalidInput(format!(
                                    "screen_reasons {reasons:?}: {e}"
                                )),
                            )
                        })?,
                        quarantined: row.get(26)?,
                    })
                }
                _ => None,
            }
        },
    })
}

/// Screen `content` with the injection detector and store the verdict on
/// frame `id` (inside the caller's transaction): hostile quarantines it,
/// unless its owner released it. A frame whose quarantine changes leaves
/// or takes its place among the memories
/// ([`super::slots::quarantine_changed_in`]).
pub(crate) fn screen_in(conn: &Connection, id: u64, content: &str) -> StoreResult<()> {
    let screening = hive_mind_core::screen(hive_mind_core::strip_hm_prefix(content));
    let reasons = serde_json::to_string(&screening.reasons)
        .map_err(|e| StoreError::InvalidInput(format!("screen reasons: {e}")))?;
    let before = quarantine_of(conn, id)?;
    conn.prepare_cached(
        "UPDATE memory_frames SET screen_score = ?2, screen_detector = ?3, screen_reasons = ?4,
             quarantined = (?5 AND released_at IS NULL)
         WHERE id = ?1",
    )?
    .execute(params![
        id,
        screening.score,
        screening.detector,
        reasons,
        screening.hostile
    ])?;
    if let Some(before) = before {
        let held = screening.hostile && !before.released;
        if held != before.quarantined {
            super::slots::quarantine_changed_in(conn, id, before.slot.as_deref(), held)?;
        }
    }
    Ok(())
}

/// What the store holds of a frame's quarantine, read before it changes.
pub(crate) struct QuarantineState {
    /// Whether it is quarantined now.
    pub(crate) quarantined: bool,
    /// Whether its owner released it (then no verdict quarantines it).
    pub(crate) released: bool,
    /// Its slot, whose timeline a change of quarantine chains again.
    pub(crate) slot: Option<String>,
}

/// Frame `id`'s [`QuarantineState`] (none where there is no such frame).
pub(crate) fn quarantine_of(conn: &Connection, id: u64) -> StoreResult<Option<QuarantineState>> {
    Ok(conn
        .prepare_cached(
            "SELECT quarantined, released_at IS NOT NULL, slot FROM memory_frames WHERE id = ?1",
        )?
        .query_row([id], |row| {
            Ok(QuarantineState {
                quarantined: row.get(0)?,
                released: row.get(1)?,
                slot: row.get(2)?,
            })
        })
        .optional()?)
}

/// Fetch one frame inside a connection or transaction.
pub(crate) fn get_in(conn: &Connection, mind: &super::Mind, id: u64) -> StoreResult<Option<Frame>> {
    Ok(conn
        .query_row(
            &format!("SELECT {FRAME_COLUMNS} FROM memory_frames f WHERE f.id = ?1"),
            [id],
            |row| frame_from_row(mind, row),
        )
        .optional()?)
}

fn touch_in(conn: &Connection, ids: &[u64]) -> StoreResult<()> {
    // One statement per mention round (a recall touches each frame once, so
    // one round; from a component, each statement crosses the boundary).
    let now = now();
    let mut rest: Vec<u64> = ids.to_vec();
    while !rest.is_empty() {
        let mut seen = std::collections::HashSet::new();
        let (round, again): (Vec<u64>, Vec<u64>) =
            rest.into_iter().partition(|id| seen.insert(*id));
        conn.execute(
            "UPDATE memory_frames SET access_count = access_count + 1, last_accessed = ?2
             WHERE id IN (SELECT value FROM json_each(?1))",
            params![id_list(&round), now],
        )?;
        rest = again;
    }
    Ok(())
}

/// Ids as a JSON array, for `json_each` (one statement for a whole list).
pub(crate) fn id_list(ids: &[u64]) -> String {
    let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
    format!("[{}]", ids.join(","))
}

/// Write a frame's vector and its chunks with their vectors (the chunks
/// already checked against the mind's plan, in order). A frame without an
/// embedding gets neither: `reindex` embeds it and plans its chunks.
fn write_vectors(
    conn: &Connection,
    id: u64,
    embedding: Option<&[f32]>,
    chunks: &[ChunkVector],
) -> StoreResult<()> {
    let Some(embedding) = embedding else {
        return Ok(());
    };
    conn.prepare_cached("INSERT INTO memory_frames_vec (rowid, embedding) VALUES (?1, ?2)")?
        .execute(params![id, vector_bytes(embedding)])?;
    for (index, vector) in chunks.iter().enumerate() {
        let index = u32::try_from(index).map_err(|_| {
            StoreError::InvalidInput("more chunks than a frame can hold".to_string())
        })?;
        conn.prepare_cached(
            "INSERT INTO memory_frame_chunks (frame_id, chunk_index, char_start, char_end)
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![id, index, vector.char_start, vector.char_end])?;
        let chunk_id = conn.last_insert_rowid();
        conn.prepare_cached(
            "INSERT INTO memory_frame_chunks_vec (rowid, embedding) VALUES (?1, ?2)",
        )?
        .execute(params![chunk_id, vector_bytes(&vector.embedding)])?;
    }
    Ok(())
}

/// Remove a frame's vector and chunks (chunk vectors go by trigger-free
/// explicit delete, since `vec0` tables cannot take foreign keys).
pub(crate) fn clear_vectors(conn: &Connection, id: u64) -> StoreResult<()> {
    conn.execute(
        "DELETE FROM memory_frame_chunks_vec WHERE rowid IN
             (SELECT id FROM memory_frame_chunks WHERE frame_id = ?1)",
        [id],
    )?;
    conn.execute("DELETE FROM memory_frame_chunks WHERE frame_id = ?1", [id])?;
    conn.execute("DELETE FROM memory_frames_vec WHERE rowid = ?1", [id])?;
    Ok(())
}

/// Check and insert `frames` on `conn` (inside the caller's transaction):
/// all are validated before the first is written. Later frames see earlier
/// ones (a repeated content is a duplicate).
pub(crate) fn save_frames_in(
    conn: &Connection,
    mind: &super::Mind,
    dim: u32,
    plan: ChunkPlan,
    frames: &[NewFrame],
) -> StoreResult<Vec<SavedFrame>> {
    let mut checked = Vec::with_capacity(frames.len());
    for frame in frames {
        if frame.mind != *mind {
            return Err(StoreError::InvalidInput(format!(
                "a frame for {} was sent to {mind}",
                frame.mind
            )));
        }
        checked.push(
            check(
                &frame.content,
                frame.created_at.as_deref(),
                frame.metadata.as_deref(),
                frame.embedding.as_deref(),
                &frame.chunks,
                dim,
                plan,
            )
            .map(|checked| Checked {
                context: frame.context.trim().to_string(),
                ..checked
            })?,
        );
    }
    let mut saved = Vec::with_capacity(frames.len());
    for (frame, checked) in frames.iter().zip(checked) {
        saved.push(insert(
            conn,
            mind,
            Kind::Log,
            frame.gop_id.as_deref(),
            &checked,
            frame.importance,
            frame.source,
            frame.embedding.as_deref(),
            &frame.chunks,
        )?);
    }
    Ok(saved)
}

/// Delete a frame on `conn` (inside the caller's transaction); see
/// [`MindStore::delete_frame`].
pub(crate) fn delete_frame_in(conn: &Connection, mind: &super::Mind, id: u64) -> StoreResult<()> {
    if get_in(conn, mind, id)?.is_none() {
        return Err(StoreError::NotFound(format!("frame {mind}:{id}")));
    }
    let dependents: u64 = conn.query_row(
        "SELECT count(*) FROM memory_frames WHERE base_frame_id = ?1",
        [id],
        |row| row.get(0),
    )?;
    if dependents > 0 {
        return Err(StoreError::Referenced { id, dependents });
    }
    if super::meta::has_vector_tables(conn)? {
        clear_vectors(conn, id)?;
    }
    conn.execute("DELETE FROM memory_mentions WHERE frame_id = ?1", [id])?;
    conn.execute("DELETE FROM memory_frames WHERE id = ?1", [id])?;
    Ok(())
}

/// What kind of frame to insert.
enum Kind {
    /// I or P, decided by the session.
    Log,
    /// A B-frame off this base.
    Branch(u64),
}

impl MindStore {
    /// Save one frame (see the module docs), in one transaction.
    pub fn save_frame(&mut self, frame: NewFrame) -> StoreResult<SavedFrame> {
        let mut saved = self.save_frames(vec![frame])?;
        saved
            .pop()
            .ok_or_else(|| StoreError::InvalidInput("nothing to save".to_string()))
    }

    /// Save frames in one transaction: all of them or none. Later frames see
    /// earlier ones (a repeated content in the batch is a duplicate).
    pub fn save_frames(&mut self, frames: Vec<NewFrame>) -> StoreResult<Vec<SavedFrame>> {
        let dim = self.vectors.require()?;
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let saved = save_frames_in(&tx, &mind, dim, self.chunk_plan, &frames)?;
        tx.commit()?;
        Ok(saved)
    }

    /// Save a B-frame: an alternative to `base_frame_id`, kept beside it.
    pub fn save_branch(&mut self, branch: NewBranch) -> StoreResult<SavedFrame> {
        let dim = self.vectors.require()?;
        let content = branch.branch.to_content();
        let checked = check(
            &content,
            branch.created_at.as_deref(),
            branch.metadata.as_deref(),
            Some(&branch.embedding),
            &branch.chunks,
            dim,
            self.chunk_plan,
        )?;
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        for id in
            std::iter::once(branch.base_frame_id).chain(branch.branch.references.iter().copied())
        {
            if get_in(&tx, &mind, id)?.is_none() {
                return Err(StoreError::NotFound(format!("frame {mind}:{id}")));
            }
        }
        let saved = insert(
            &tx,
            &mind,
            Kind::Branch(branch.base_frame_id),
            branch.gop_id.as_deref(),
            &checked,
            branch.importance,
            branch.source,
            Some(&branch.embedding),
            &branch.chunks,
        )?;
        tx.commit()?;
        Ok(saved)
    }

    /// Frames by id, in the order asked; missing ids are left out.
    pub fn get_frames(&self, ids: &[u64]) -> StoreResult<Vec<Frame>> {
        // One statement for the lot (a recall fetches a hundred frames; from
        // a component, each statement is a call across the boundary).
        let found = self.conn.query_all(
            &format!(
                "SELECT {FRAME_COLUMNS} FROM memory_frames f
                 WHERE f.id IN (SELECT value FROM json_each(?1))"
            ),
            [id_list(ids)],
            |row| frame_from_row(&self.mind, row),
        )?;
        let mut by_id: std::collections::HashMap<u64, Frame> = found
            .into_iter()
            .map(|frame| (frame.frame_ref.id, frame))
            .collect();
        Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
    }

    /// The frame with this content hash, if any (the dedup lookup).
    pub fn find_by_hash(&self, hash: &str) -> StoreResult<Option<Frame>> {
        Ok(self
            .conn
            .query_row(
                &format!(
                    "SELECT {FRAME_COLUMNS} FROM memory_frames f WHERE f.content_hash = ?1 ORDER BY f.id LIMIT 1"
                ),
                [hash],
                |row| frame_from_row(&self.mind, row),
            )
            .optional()?)
    }

    /// Record that recall returned these frames: access count + 1, last
    /// accessed now. Unknown ids are ignored.
    pub fn touch_frames(&mut self, ids: &[u64]) -> StoreResult<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        touch_in(&tx, ids)?;
        tx.commit()?;
        Ok(())
    }

    /// Replace a frame's content (a correction): new hash, FTS row (by
    /// trigger), vector and chunks, in one transaction. A content that another
    /// frame already holds is refused.
    pub fn update_frame(
        &mut self,
        id: u64,
        content: &str,
        embedding: &[f32],
        chunks: &[ChunkVector],
    ) -> StoreResult<Frame> {
        let dim = self.vectors.require()?;
        let checked = check(
            content,
            None,
            None,
            Some(embedding),
            chunks,
            dim,
            self.chunk_plan,
        )?;
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if get_in(&tx, &mind, id)?.is_none() {
            return Err(StoreError::NotFound(format!("frame {mind}:{id}")));
        }
        let clash: Option<u64> = tx
            .query_row(
                "SELECT id FROM memory_frames WHERE content_hash = ?1 AND id <> ?2 LIMIT 1",
                params![checked.hash, id],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(other) = clash {
            return Err(StoreError::InvalidInput(format!(
                "frame {mind}:{other} already holds this content"
            )));
        }
        tx.execute(
            "UPDATE memory_frames SET content = ?2, content_hash = ?3 WHERE id = ?1",
            params![id, checked.content, checked.hash],
        )?;
        clear_vectors(&tx, id)?;
        write_vectors(&tx, id, Some(embedding), chunks)?;
        screen_in(&tx, id, &checked.content)?;
        let frame = get_in(&tx, &mind, id)?
            .ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{id}")))?;
        super::mentions::write_in(&tx, id, &checked.content, &frame.event_date)?;
        tx.commit()?;
        Ok(frame)
    }

    /// Change a frame's importance; `Importance::Deprecated` is how a memory
    /// is retracted (kept for history, ranked down).
    pub fn set_importance(&mut self, id: u64, importance: Importance) -> StoreResult<Frame> {
        let changed = self.conn.execute(
            "UPDATE memory_frames SET importance = ?2 WHERE id = ?1",
            params![id, importance.as_str()],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("frame {}:{id}", self.mind)));
        }
        get_in(&self.conn, &self.mind, id)?
            .ok_or_else(|| StoreError::NotFound(format!("frame {}:{id}", self.mind)))
    }

    /// Replace a frame's metadata (a JSON object; never indexed).
    pub fn set_metadata(&mut self, id: u64, metadata: &str) -> StoreResult<()> {
        match serde_json::from_str::<serde_json::Value>(metadata) {
            Ok(value) if value.is_object() => {}
            _ => {
                return Err(StoreError::InvalidInput(format!(
                    "metadata must be a JSON object, got {metadata:?}"
                )));
            }
        }
        let changed = self.conn.execute(
            "UPDATE memory_frames SET metadata = ?2 WHERE id = ?1",
            params![id, metadata],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("frame {}:{id}", self.mind)));
        }
        Ok(())
    }

    /// Delete a frame with its FTS row, vector, chunks and entity links, in
    /// one transaction. A frame other frames are based on is refused
    /// ([`StoreError::Referenced`]): deprecate it instead.
    pub fn delete_frame(&mut self, id: u64) -> StoreResult<()> {
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        delete_frame_in(&tx, &mind, id)?;
        tx.commit()?;
        Ok(())
    }

    /// Re-embed every frame and chunk with `source`, recreating the vector
    /// tables at its dimension, re-planning every frame's chunks for its
    /// window and recording its fingerprint and chunk plan, in one
    /// transaction. A frame saved without vectors (the embedder failed on
    /// it then) gets them here; one the embedder fails on again stays
    /// without, as [`MindStore::check`] reports. `progress(done, total)` is called after each batch.
    /// Returns the number of frames re-embedded.
    pub fn reindex(
        &mut self,
        source: &dyn super::VectorSource,
        progress: &mut dyn FnMut(u64, u64),
    ) -> StoreResult<u64> {
        loop {
            let step = self.reindex_step(source, REINDEX_BATCH)?;
            progress(step.done, step.total);
            if step.finished {
                return Ok(step.total);
            }
        }
    }

    /// One step of a reindex: the first call starts it (an `IMMEDIATE`
    /// transaction that empties the vector tables and sizes them for `source`'s dimension
    /// and drops the chunks), each call re-embeds up to `batch` more frames
    /// with their chunks re-planned for `source`'s window
    /// ([`ChunkPlan::for_window`] of its `max_tokens`), and the call that
    /// finishes records the new fingerprint and chunk plan and commits. Any failure rolls everything back, leaving
    /// the old vectors; so does a process that stops half-way.
    pub fn reindex_step(
        &mut self,
        source: &dyn super::VectorSource,
        batch: usize,
    ) -> StoreResult<ReindexProgress> {
        if self.reindex.is_none() {
            let fingerprint = source.fingerprint();
            self.conn.run("BEGIN IMMEDIATE", ())?;
            let started = (|| -> StoreResult<Vec<(u64, String)>> {
                super::meta::create_vector_tables(&self.conn, fingerprint.dim)?;
                self.conn.execute("DELETE FROM memory_frame_chunks", [])?;
                // Read again with this engine's date reader.
                super::mentions::read_all_in(&self.conn)?;
                // Derived from the memories: written again on demand.
                super::derived::clear_syntheses_in(&self.conn)?;
                Ok(self.conn.query_all(
                    "SELECT id, content FROM memory_frames ORDER BY id",
                    [],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )?)
            })();
            match started {
                Ok(frames) => {
                    self.reindex = Some(ReindexJob {
                        frames,
                        next: 0,
                        chunks: 0,
                        plan: ChunkPlan::for_window(source.max_tokens()),
                        fingerprint,
                    });
                }
                Err(error) => {
                    let _ = self.conn.run("ROLLBACK", ());
                    return Err(error);
                }
            }
        }
        let outcome = self.reindex_batch(source, batch.max(1));
        match outcome {
            Ok(progress) => Ok(progress),
            Err(error) => {
                self.reindex = None;
                let _ = self.conn.run("ROLLBACK", ());
                Err(error)
            }
        }
    }

    fn reindex_batch(
        &mut self,
        source: &dyn super::VectorSource,
        batch: usize,
    ) -> StoreResult<ReindexProgress> {
        let Some(job) = self.reindex.as_mut() else {
            return Err(StoreError::InvalidInput(
                "no reindex in progress".to_string(),
            ));
        };
        let dim = job.fingerprint.dim;
        let end = (job.next + batch).min(job.frames.len());
        let frames = job.frames.get(job.next..end).unwrap_or_default();
        let mut texts = Vec::new();
        let mut plans = Vec::new();
        for (_, content) in frames {
            texts.push(hive_mind_core::recall::embedding_text(content));
            let plan = plan_chunks(content, job.plan);
            texts.extend(plan.iter().map(|chunk| chunk.text.clone()));
            plans.push(plan);
        }
        if !texts.is_empty() {
            let vectors = source
                .embed(&texts)
                .map_err(|error| StoreError::Embedder(error.to_string()))?;
            if vectors.len() != texts.len() {
                return Err(StoreError::Embedder(format!(
                    "asked for {} vectors, got {}",
                    texts.len(),
                    vectors.len()
                )));
            }
            let mut vectors = vectors.into_iter();
            for ((id, content), plan) in frames.iter().zip(&plans) {
                // Screened again by this engine's detector: a frame written
                // before it (or judged by an older one) gets its verdict here.
                screen_in(&self.conn, *id, content)?;
                let frame_vector = vectors.next().and_then(Result::ok);
                let mut chunks = Vec::with_capacity(plan.len());
                let mut complete = frame_vector.is_some();
                for chunk in plan {
                    match vectors.next().and_then(Result::ok) {
                        Some(embedding) => chunks.push(ChunkVector {
                            char_start: chunk.char_start,
                            char_end: chunk.char_end,
                            embedding,
                        }),
                        None => complete = false,
                    }
                }
                // A frame the embedder failed on stays without vectors.
                let Some(frame_vector) = frame_vector.filter(|_| complete) else {
                    continue;
                };
                check_vector(&frame_vector, dim, "an embedder vector")?;
                for chunk in &chunks {
                    check_vector(&chunk.embedding, dim, "an embedder vector")?;
                }
                job.chunks += u64::try_from(chunks.len()).unwrap_or(u64::MAX);
                write_vectors(&self.conn, *id, Some(&frame_vector), &chunks)?;
            }
        }
        job.next = end;
        let total = u64::try_from(job.frames.len()).unwrap_or(u64::MAX);
        let done = u64::try_from(job.next).unwrap_or(u64::MAX);
        let (chunks, plan) = (job.chunks, job.plan);
        if job.next < job.frames.len() {
            return Ok(ReindexProgress {
                done,
                total,
                chunks,
                plan,
                finished: false,
            });
        }
        let fingerprint = job.fingerprint.clone();
        super::meta::write_fingerprint(&self.conn, &fingerprint)?;
        super::meta::write_chunk_plan(&self.conn, plan)?;
        self.conn.run("COMMIT", ())?;
        self.reindex = None;
        self.vectors = super::VectorState::Ready {
            dim: fingerprint.dim,
        };
        self.chunk_plan = plan;
        self.active_plan = Some(plan);
        self.active_embedder = Some(fingerprint);
        Ok(ReindexProgress {
            done,
            total,
            chunks,
            plan,
            finished: true,
        })
    }
}

/// Frames re-embedded per embedder call by [`MindStore::reindex`].
pub const REINDEX_BATCH: usize = 64;

/// Where a reindex of one mind stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReindexProgress {
    /// Frames re-embedded so far.
    pub done: u64,
    /// Frames the mind holds.
    pub total: u64,
    /// Chunks re-planned and embedded so far.
    pub chunks: u64,
    /// The plan the chunks are re-planned with (recorded when finished).
    pub plan: ChunkPlan,
    /// Whether the new vectors are committed.
    pub finished: bool,
}

/// A reindex in progress: its transaction is open on the mind's connection.
#[derive(Debug)]
pub struct ReindexJob {
    frames: Vec<(u64, String)>,
    next: usize,
    /// Chunks written so far.
    chunks: u64,
    /// The plan the chunks are re-planned with.
    plan: ChunkPlan,
    fingerprint: super::EmbedderFingerprint,
}

/// Insert (or, on a content-hash hit, touch and return) one frame.
#[allow(clippy::too_many_arguments)]
fn insert(
    conn: &Connection,
    mind: &super::Mind,
    kind: Kind,
    gop_id: Option<&str>,
    checked: &Checked,
    importance: Importance,
    source: hive_mind_core::Source,
    embedding: Option<&[f32]>,
    chunks: &[ChunkVector],
) -> StoreResult<SavedFrame> {
    // The same words said again are a duplicate while a frame that holds
    // them is valid at the new event time. Said again after a newer
    // statement replaced them ("I live in Denver." in 2025, "I moved to
    // Boulder.", "I live in Denver." in 2026), they are a statement of
    // their own: written, so the slot's latest is current again.
    let existing: Option<u64> = conn
        .prepare_cached(
            "SELECT id FROM memory_frames WHERE content_hash = ?1
               AND (valid_to IS NULL OR valid_to > ?2)
             ORDER BY id LIMIT 1",
        )?
        .query_row(params![&checked.hash, &checked.created_at], |row| {
            row.get(0)
        })
        .optional()?;
    if let Some(id) = existing {
        touch_in(conn, &[id])?;
        let frame = get_in(conn, mind, id)?
            .ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{id}")))?;
        return Ok(SavedFrame {
            frame,
            duplicate: true,
        });
    }
    let gop_id = match gop_id {
        Some(gop_id) => {
            sessions::get_in(conn, gop_id)?
                .ok_or_else(|| StoreError::NotFound(format!("session {gop_id:?} in {mind}")))?
                .gop_id
        }
        None => sessions::ensure_active_in(conn, None)?.gop_id,
    };
    let (next_t, i_frame): (u32, Option<u64>) = conn
        .prepare_cached(
            "SELECT ifnull(max(t) + 1, 0),
                    (SELECT id FROM memory_frames WHERE gop_id = ?1 AND frame_type = 'i-frame' ORDER BY t LIMIT 1)
             FROM memory_frames WHERE gop_id = ?1",
        )?
        .query_row([&gop_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let (frame_type, base) = match (kind, i_frame) {
        (Kind::Branch(base), _) => (FrameType::BFrame, Some(base)),
        (Kind::Log, None) => (FrameType::IFrame, None),
        (Kind::Log, Some(i_frame)) => (FrameType::PFrame, Some(i_frame)),
    };
    let slot = match frame_type {
        FrameType::BFrame => None,
        _ => super::slots::slot_of(&checked.content),
    };
    conn.prepare_cached(
        "INSERT INTO memory_frames (frame_type, gop_id, t, base_frame_id, content, importance, source,
             created_at, event_date, inserted_at, content_hash, metadata, context, slot)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?
    .execute(params![
        frame_type.as_str(),
        gop_id,
        next_t,
        base,
        checked.content,
        importance.as_str(),
        source.as_str(),
        checked.created_at,
        checked.event_date,
        now(),
        checked.hash,
        checked.metadata,
        checked.context,
        slot,
    ])?;
    let id = u64::try_from(conn.last_insert_rowid())
        .map_err(|_| StoreError::InvalidInput("negative rowid".to_string()))?;
    write_vectors(conn, id, embedding, chunks)?;
    screen_in(conn, id, &checked.content)?;
    super::mentions::write_in(conn, id, &checked.content, &checked.event_date)?;
    if let Some(slot) = &slot {
        super::slots::chain_slot_in(conn, slot)?;
    }
    let frame = get_in(conn, mind, id)?
        .ok_or_else(|| StoreError::NotFound(format!("frame {mind}:{id}")))?;
    Ok(SavedFrame {
        frame,
        duplicate: false,
    })
}
