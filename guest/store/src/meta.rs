//! The embedder lock: which embedder a mind's vectors were made with, and the
//! vector tables sized for it.
//!
//! The `meta` table records the fingerprint `{provider, model, dim}` of the
//! embedder whose vectors the mind holds. Whenever a mind is opened with an
//! active embedder, the two are compared:
//!
//! | stored vs. active | outcome |
//! |---|---|
//! | none recorded | the vector tables are sized for the active dimension and the fingerprint recorded |
//! | same | ok |
//! | same dimension, other provider or model, no frames yet | the new fingerprint is recorded |
//! | same dimension, other provider or model, frames held | [`VectorState::Foreign`]: the stored fingerprint is kept, vector search answers nothing (recall runs on keywords, and says why) until `reindex`; saves still store vectors |
//! | other dimension | every vector operation fails with [`StoreError::DimensionMismatch`] until `reindex` |
//!
//! The reference engine recorded the new fingerprint of a same-dimension
//! switch with a warning and went on comparing the new model's query
//! vectors with the old model's frame vectors (design §8: "cross-model
//! similarity is degraded"). Two models' vectors share no geometry, so those
//! cosines rank at random while looking like evidence: here a mind's vectors
//! are searched only by the model that made them, and the switch is named
//! (in [`super::MindStore::notes`]: status, check and every recall) until
//! `reindex` re-embeds the mind.
//!
//! The dimension is the embedder's native one (384 for the default model);
//! vectors are never padded. `reindex` empties and re-sizes the vector
//! tables and re-embeds every frame inside one transaction that also records the new
//! fingerprint: a reindex that stops mid-way rolls back to the old vectors.
//!
//! # The chunk plan
//!
//! `meta` also records which [`ChunkPlan`] the mind's chunks were made for
//! (`chunks.plan`: `tokens:256`, or `chars:2000` for the plan before chunks
//! were sized by tokens, which the v6 migration records for every mind that
//! already held frames). Saves and `check` follow the recorded plan, so the
//! mind stays consistent whatever embedder is active; when the active
//! embedder reads another window, the mind says so
//! ([`super::MindStore::notes`]) until `reindex` re-plans every frame's
//! chunks for it and records the new plan. A mind with no frames has nothing
//! to re-plan: it simply takes the active embedder's plan.

use hive_mind_core::ChunkPlan;

use crate::sql::{Connection, OptionalExtension};

use super::error::{StoreError, StoreResult};
use super::types::EmbedderFingerprint;

/// Where a mind stands with vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorState {
    /// The vector tables exist at this dimension and agree with the active
    /// embedder (or no embedder is active).
    Ready {
        /// The dimension of the mind's vectors.
        dim: u32,
    },
    /// No embedder has met this mind yet, so its vector tables are not sized
    /// for one.
    Unset,
    /// The active embedder has the mind's dimension but is another model
    /// than the one its vectors were made with: saves store vectors, vector
    /// search finds nothing, until `reindex`.
    Foreign {
        /// The dimension of the mind's vectors.
        dim: u32,
    },
    /// The active embedder's dimension differs from the mind's.
    Mismatch {
        /// The mind's dimension.
        expected: u32,
        /// The active embedder's.
        actual: u32,
    },
}

impl VectorState {
    /// Whether the mind's vectors may be compared with the active embedder's
    /// query vectors.
    pub fn searchable(self) -> bool {
        matches!(self, VectorState::Ready { .. })
    }

    /// The dimension vectors must have, or the error a vector operation gets.
    pub fn require(self) -> StoreResult<u32> {
        match self {
            VectorState::Ready { dim } | VectorState::Foreign { dim } => Ok(dim),
            VectorState::Unset => Err(StoreError::NoEmbedder),
            VectorState::Mismatch { expected, actual } => {
                Err(StoreError::DimensionMismatch { expected, actual })
            }
        }
    }
}

const PROVIDER: &str = "embedder.provider";
const MODEL: &str = "embedder.model";
const DIM: &str = "embedder.dim";
/// The `meta` key of the chunk plan.
pub const CHUNK_PLAN: &str = "chunks.plan";

fn get(conn: &Connection, key: &str) -> StoreResult<Option<String>> {
    Ok(conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
            row.get(0)
        })
        .optional()?)
}

fn set(conn: &Connection, key: &str, value: &str) -> StoreResult<()> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
    )?;
    Ok(())
}

/// The fingerprint recorded in a mind, if any.
pub fn read_fingerprint(conn: &Connection) -> StoreResult<Option<EmbedderFingerprint>> {
    let (Some(provider), Some(model), Some(dim)) =
        (get(conn, PROVIDER)?, get(conn, MODEL)?, get(conn, DIM)?)
    else {
        return Ok(None);
    };
    let dim = dim.parse().map_err(|_| {
        StoreError::InvalidInput(format!(
            "the recorded embedder dimension {dim:?} is not a number"
        ))
    })?;
    Ok(Some(EmbedderFingerprint {
        provider,
        model,
        dim,
    }))
}

/// Record a fingerprint.
pub fn write_fingerprint(conn: &Connection, fingerprint: &EmbedderFingerprint) -> StoreResult<()> {
    set(conn, PROVIDER, &fingerprint.provider)?;
    set(conn, MODEL, &fingerprint.model)?;
    set(conn, DIM, &fingerprint.dim.to_string())
}

/// `meta` key of the relevance floor calibrated for an embedder
/// ([`hive_mind_core::recall::calibrated_min_cosine`]): `FINGERPRINT=VALUE`.
pub const FLOOR_CALIBRATION: &str = "floor.min_cosine";

/// `meta` key of the same floor for the question read as a document (no
/// query instruction): `FINGERPRINT=VALUE`.
pub const DOCUMENT_FLOOR_CALIBRATION: &str = "floor.document_min_cosine";

/// The floors calibrated for an embedder: for the question as asked (a
/// model's query instruction prepended) and read as a document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloorCalibration {
    /// The floor of a question embedded as a query.
    pub asked: f64,
    /// The floor of a question embedded as a document.
    pub as_document: f64,
}

impl FloorCalibration {
    /// Whether the model embeds a question as a query otherwise than as a
    /// document: its two floors differ (a model without a query
    /// instruction, MiniLM, gives both from the same vectors, bit for bit,
    /// and a second reading would find only what the first did).
    pub fn reads_apart(&self) -> bool {
        self.asked.to_bits() != self.as_document.to_bits()
    }

    /// A cosine of the question read as a document, put on the asked
    /// reading's scale: the same share of the way from its own floor to 1
    /// (unchanged when that floor leaves no way to go).
    pub fn on_asked_scale(&self, document_cosine: f64) -> f64 {
        let span = 1.0 - self.as_document;
        if span > f64::EPSILON {
            self.asked + (document_cosine - self.as_document) * (1.0 - self.asked) / span
        } else {
            document_cosine
        }
    }
}

/// The floors calibrated for `fingerprint`, if this mind records both for it.
pub fn read_floor_calibration(
    conn: &Connection,
    fingerprint: &EmbedderFingerprint,
) -> StoreResult<Option<FloorCalibration>> {
    let wanted = fingerprint.to_string();
    let read = |key: &str| -> StoreResult<Option<f64>> {
        Ok(get(conn, key)?.and_then(|record| {
            record
                .rsplit_once('=')
                .filter(|(made_by, _)| *made_by == wanted)
                .and_then(|(_, value)| value.parse::<f64>().ok())
                .filter(|value| value.is_finite())
        }))
    };
    Ok(read(FLOOR_CALIBRATION)?
        .zip(read(DOCUMENT_FLOOR_CALIBRATION)?)
        .map(|(asked, as_document)| FloorCalibration { asked, as_document }))
}

/// Record the floors calibrated for `fingerprint` (replacing another
/// embedder's).
pub fn write_floor_calibration(
    conn: &Connection,
    fingerprint: &EmbedderFingerprint,
    floors: FloorCalibration,
) -> StoreResult<()> {
    set(
        conn,
        FLOOR_CALIBRATION,
        &format!("{fingerprint}={}", floors.asked),
    )?;
    set(
        conn,
        DOCUMENT_FLOOR_CALIBRATION,
        &format!("{fingerprint}={}", floors.as_document),
    )
}

/// The chunk plan recorded in a mind, if any; a record this build cannot
/// read is [`StoreError::Corrupt`].
pub fn read_chunk_plan(conn: &Connection) -> StoreResult<Option<ChunkPlan>> {
    let Some(record) = get(conn, CHUNK_PLAN)? else {
        return Ok(None);
    };
    ChunkPlan::from_record(&record)
        .map(Some)
        .ok_or_else(|| StoreError::Corrupt {
            database: conn.name().to_string(),
            reason: format!("the recorded chunk plan {record:?} is not one this build knows"),
        })
}

/// Record the chunk plan.
pub fn write_chunk_plan(conn: &Connection, plan: ChunkPlan) -> StoreResult<()> {
    set(conn, CHUNK_PLAN, &plan.to_record())
}

/// The plan a mind's chunks follow, recording one where none is (see the
/// module docs): the recorded plan; the active one (`active`, when an
/// embedder is configured) for a mind with no record or no frames; else
/// `fallback`, recorded only once the mind can take saves (`vectors` ready).
pub fn reconcile_chunk_plan(
    conn: &Connection,
    active: Option<ChunkPlan>,
    fallback: ChunkPlan,
    vectors: super::VectorState,
) -> StoreResult<ChunkPlan> {
    let recorded = read_chunk_plan(conn)?;
    match (recorded, active) {
        (Some(recorded), Some(active)) if recorded != active => {
            let empty: bool = conn.query_row(
                "SELECT NOT EXISTS (SELECT 1 FROM memory_frames)",
                [],
                |row| row.get(0),
            )?;
            if empty {
                write_chunk_plan(conn, active)?;
                Ok(active)
            } else {
                Ok(recorded)
            }
        }
        (Some(recorded), _) => Ok(recorded),
        (None, Some(active)) => {
            write_chunk_plan(conn, active)?;
            Ok(active)
        }
        (None, None) => {
            if matches!(vectors, super::VectorState::Ready { .. }) {
                write_chunk_plan(conn, fallback)?;
            }
            Ok(fallback)
        }
    }
}

/// `meta` key of the width of the vectors the vector tables take, in bytes
/// (`dim` × 4): set by [`create_vector_tables`], checked by the tables'
/// insert and update triggers (the v9 migration's), absent until a mind
/// first meets an embedder.
pub const VECTOR_BYTES: &str = "vectors.bytes";

/// Empty both vector tables and size them for `dim` (the tables reject a
/// vector of any other width from then on), and move the vectors' epoch on
/// (so every in-memory index reloads).
///
/// The tables themselves are schema objects of the v9 migration, never
/// created or dropped here: only a migration changes a mind's schema (the
/// SQLite capability refuses any other schema change). They are plain
/// SQLite tables (`id` = the frame's or chunk's id, `embedding` = `dim`
/// little-endian `f32`s), so any SQLite with no extension can hold them;
/// nearest-neighbour search runs in the engine ([`super::vector_index`]).
pub fn create_vector_tables(conn: &Connection, dim: u32) -> StoreResult<()> {
    if dim == 0 {
        return Err(StoreError::InvalidInput(
            "an embedder dimension of 0".to_string(),
        ));
    }
    let bytes = u64::from(dim) * 4;
    conn.execute_batch(&format!(
        "DELETE FROM memory_frames_vec;
         DELETE FROM memory_frame_chunks_vec;
         INSERT INTO meta (key, value) VALUES ('{VECTOR_BYTES}', '{bytes}')
         ON CONFLICT (key) DO UPDATE SET value = excluded.value;
         INSERT INTO meta (key, value) VALUES ('{epoch}', '1')
         ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;",
        epoch = super::vector_index::EPOCH_KEY
    ))?;
    Ok(())
}

/// Whether the vector tables are sized for an embedder (a mind that has
/// met one).
pub fn has_vector_tables(conn: &Connection) -> StoreResult<bool> {
    Ok(get(conn, VECTOR_BYTES)?.is_some())
}

/// Compare the stored fingerprint with the active embedder's (see the module
/// docs), creating the vector tables on first contact.
pub fn reconcile(
    conn: &Connection,
    active: Option<&EmbedderFingerprint>,
) -> StoreResult<VectorState> {
    let stored = read_fingerprint(conn)?;
    match (stored, active) {
        (None, None) => Ok(VectorState::Unset),
        (None, Some(active)) => {
            let tx = conn.transaction_with_behavior(crate::sql::TransactionBehavior::Immediate)?;
            // Another process may have got here first.
            if let Some(stored) = read_fingerprint(&tx)? {
                drop(tx);
                return reconcile_known(conn, &stored, active);
            }
            create_vector_tables(&tx, active.dim)?;
            write_fingerprint(&tx, active)?;
            tx.commit()?;
            Ok(VectorState::Ready { dim: active.dim })
        }
        (Some(stored), None) => Ok(VectorState::Ready { dim: stored.dim }),
        (Some(stored), Some(active)) => reconcile_known(conn, &stored, active),
    }
}

fn reconcile_known(
    conn: &Connection,
    stored: &EmbedderFingerprint,
    active: &EmbedderFingerprint,
) -> StoreResult<VectorState> {
    if stored.dim != active.dim {
        return Ok(VectorState::Mismatch {
            expected: stored.dim,
            actual: active.dim,
        });
    }
    if !has_vector_tables(conn)? {
        create_vector_tables(conn, active.dim)?;
    }
    if stored != active {
        let has_frames: bool =
            conn.query_row("SELECT EXISTS (SELECT 1 FROM memory_frames)", [], |row| {
                row.get(0)
            })?;
        if has_frames {
            return Ok(VectorState::Foreign { dim: active.dim });
        }
        write_fingerprint(conn, active)?;
    }
    Ok(VectorState::Ready { dim: active.dim })
}

/// Little-endian f32 bytes, the form the vector tables hold.
pub fn vector_bytes(vector: &[f32]) -> Vec<u8> {
    vector
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect()
}

/// Check a vector against the mind's dimension; reject NaN and infinities.
pub fn check_vector(vector: &[f32], dim: u32, what: &str) -> StoreResult<()> {
    let actual = u32::try_from(vector.len()).unwrap_or(u32::MAX);
    if actual != dim {
        return Err(StoreError::DimensionMismatch {
            expected: dim,
            actual,
        });
    }
    if let Some(position) = vector.iter().position(|value| !value.is_finite()) {
        return Err(StoreError::InvalidInput(format!(
            "{what} has a non-finite value at position {position}"
        )));
    }
    Ok(())
}
