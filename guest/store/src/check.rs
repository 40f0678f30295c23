//! Status and consistency: what `hive-mind status` and `hive-mind check`
//! report for each mind.
//!
//! The check is the store's invariants made executable: SQLite's
//! `integrity_check` and `foreign_key_check`, FTS5's own `integrity-check`,
//! and the counts that must agree — frames = FTS rows, every frame with its
//! vector, and every chunk with its vector, the chunk rows being the chunks
//! [`super::plan_chunks`] expects for the contents of the frames with a
//! vector under the mind's recorded chunk plan — with no orphan vectors or
//! chunks. A frame the embedder failed on when it was saved has no vector
//! and no chunks (it is found by full text only): the check names how many,
//! and `reindex` embeds them. It also checks that the frame table's CHECK
//! constraints are still the ones generated from the vocabulary, that chunks
//! are planned for the window the active embedder reads (a mind planned for
//! another one is told to `reindex`: its chunks are consistent, but not all
//! of each is embedded, or they are shorter than they need be), and that
//! every append-only table is still guarded by its triggers
//! ([`APPEND_ONLY_GUARDS`]).

use serde::Serialize;

use super::error::StoreResult;
use super::meta::{has_vector_tables, read_fingerprint};
use super::schema::{APPEND_ONLY_GUARDS, version, vocabulary_checks};
use super::types::EmbedderFingerprint;
use super::{MindStore, plan_chunks};

/// A mind's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MindStatus {
    /// `personal` or `workspace:<id>`.
    pub mind: String,
    /// The database (`personal`, `workspace/<id>`).
    pub database: String,
    /// Its schema version.
    pub schema_version: u32,
    /// The embedder its vectors were made with.
    pub embedder: Option<EmbedderFingerprint>,
    /// Rows of `memory_frames`.
    pub frames: u64,
    /// Rows of the FTS index.
    pub fts_rows: u64,
    /// Rows of `memory_frames_vec`.
    pub frame_vectors: u64,
    /// Rows of `memory_frame_chunks`.
    pub chunks: u64,
    /// Rows of `memory_frame_chunks_vec`.
    pub chunk_vectors: u64,
    /// The plan its chunks follow (`256 tokens`, or `2000 characters` for
    /// a mind chunked before plans were sized by tokens).
    pub chunk_plan: String,
    /// The token window its chunks are planned for; `None` for the legacy
    /// character plan.
    pub chunk_window: Option<u32>,
    /// What the operator should hear (a chunk plan that does not match the
    /// active embedder's window, memories the injection detector has not
    /// screened), each with the remedy.
    pub notes: Vec<String>,
    /// Active entities.
    pub entities: u64,
    /// Active relations.
    pub relations: u64,
    /// Sessions.
    pub sessions: u64,
}

/// A mind's consistency report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MindCheck {
    /// The counts.
    pub status: MindStatus,
    /// The chunks the stored contents call for.
    pub expected_chunks: u64,
    /// Everything found wrong; empty means in sync.
    pub problems: Vec<String>,
}

impl MindCheck {
    /// Whether the mind is consistent.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

impl MindStore {
    fn count(&self, sql: &str) -> StoreResult<u64> {
        self.count_with(sql, [])
    }

    fn count_with(&self, sql: &str, params: impl crate::sql::Params) -> StoreResult<u64> {
        Ok(self.conn.query_row(sql, params, |row| row.get(0))?)
    }

    /// The mind's counts, schema version and embedder fingerprint.
    pub fn status(&self) -> StoreResult<MindStatus> {
        let vectors = has_vector_tables(&self.conn)?;
        Ok(MindStatus {
            mind: self.mind.to_string(),
            database: self.conn.name().to_string(),
            schema_version: version(&self.conn)?,
            embedder: read_fingerprint(&self.conn)?,
            frames: self.count("SELECT count(*) FROM memory_frames")?,
            fts_rows: self.count("SELECT count(*) FROM memory_frames_fts_docsize")?,
            frame_vectors: if vectors {
                self.count("SELECT count(*) FROM memory_frames_vec")?
            } else {
                0
            },
            chunks: self.count("SELECT count(*) FROM memory_frame_chunks")?,
            chunk_vectors: if vectors {
                self.count("SELECT count(*) FROM memory_frame_chunks_vec")?
            } else {
                0
            },
            entities: self
                .count("SELECT count(*) FROM knowledge_entities WHERE valid_to IS NULL")?,
            relations: self
                .count("SELECT count(*) FROM knowledge_relations WHERE valid_to IS NULL")?,
            sessions: self.count("SELECT count(*) FROM sessions")?,
            chunk_plan: self.chunk_plan.to_string(),
            chunk_window: match self.chunk_plan {
                hive_mind_core::ChunkPlan::LegacyChars => None,
                hive_mind_core::ChunkPlan::Tokens(window) => Some(window),
            },
            notes: {
                let mut notes = self.notes()?;
                notes.extend(self.screening_note()?);
                notes
            },
        })
    }

    /// Check the mind's invariants (see the module docs).
    pub fn check(&self) -> StoreResult<MindCheck> {
        let mut problems = Vec::new();
        let integrity: Vec<String> = self
            .conn
            .prepare("PRAGMA integrity_check")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        if integrity != ["ok"] {
            problems.push(format!("integrity_check: {}", integrity.join("; ")));
        }
        let foreign = self.count("SELECT count(*) FROM pragma_foreign_key_check")?;
        if foreign > 0 {
            problems.push(format!("{foreign} foreign-key violation(s)"));
        }
        if let Err(error) = self.conn.execute(
            "INSERT INTO memory_frames_fts(memory_frames_fts) VALUES ('integrity-check')",
            [],
        ) {
            problems.push(format!("the FTS index disagrees with the frames: {error}"));
        }
        let status = self.status()?;
        if status.fts_rows != status.frames {
            problems.push(format!(
                "{} frames but {} FTS rows",
                status.frames, status.fts_rows
            ));
        }
        let vector_tables = has_vector_tables(&self.conn)?;
        let mut expected_chunks = 0u64;
        {
            // A frame without a vector has no chunks: they are planned when
            // it is embedded.
            let mut statement = self.conn.prepare(if vector_tables {
                "SELECT content FROM memory_frames WHERE id IN (SELECT rowid FROM memory_frames_vec)"
            } else {
                "SELECT content FROM memory_frames"
            })?;
            let mut rows = statement.query([])?;
            while let Some(row) = rows.next()? {
                let content: String = row.get(0)?;
                expected_chunks +=
                    u64::try_from(plan_chunks(&content, self.chunk_plan).len()).unwrap_or(0);
            }
        }
        problems.extend(self.notes()?);
        if status.chunks != expected_chunks {
            problems.push(format!(
                "{} chunk rows but the contents call for {expected_chunks}",
                status.chunks
            ));
        }
        if vector_tables {
            let unembedded = self.count(
                "SELECT count(*) FROM memory_frames WHERE id NOT IN (SELECT rowid FROM memory_frames_vec)",
            )?;
            if unembedded > 0 {
                problems.push(format!(
                    "{unembedded} frame(s) without a vector (the embedder failed on them): \
                     found by full text only until `hive-mind reindex` embeds them"
                ));
            }
            let unembedded = self.count(
                "SELECT count(*) FROM memory_frame_chunks WHERE id NOT IN (SELECT rowid FROM memory_frame_chunks_vec)",
            )?;
            if unembedded > 0 {
                problems.push(format!("{unembedded} chunk(s) without a vector"));
            }
            let orphans = self.count(
                "SELECT count(*) FROM memory_frames_vec WHERE rowid NOT IN (SELECT id FROM memory_frames)",
            )?;
            if orphans > 0 {
                problems.push(format!("{orphans} frame vector(s) without a frame"));
            }
            let orphans = self.count(
                "SELECT count(*) FROM memory_frame_chunks_vec WHERE rowid NOT IN (SELECT id FROM memory_frame_chunks)",
            )?;
            if orphans > 0 {
                problems.push(format!("{orphans} chunk vector(s) without a chunk"));
            }
        } else if status.frames > 0 {
            problems.push(format!(
                "{} frames but no vector tables (run `hive-mind reindex`)",
                status.frames
            ));
        }
        let orphans = self.count(
            "SELECT count(*) FROM memory_frame_chunks WHERE frame_id NOT IN (SELECT id FROM memory_frames)",
        )?;
        if orphans > 0 {
            problems.push(format!("{orphans} chunk(s) without a frame"));
        }
        let table_sql: String = self.conn.query_row(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'memory_frames'",
            [],
            |row| row.get(0),
        )?;
        for constraint in vocabulary_checks() {
            if !table_sql.contains(&constraint) {
                problems.push(format!(
                    "memory_frames lacks `{constraint}`: the vocabulary changed without a migration"
                ));
            }
        }
        for (table, triggers) in APPEND_ONLY_GUARDS {
            for trigger in triggers {
                let present = self.count_with(
                    "SELECT count(*) FROM sqlite_master
                     WHERE type = 'trigger' AND name = ?1 AND tbl_name = ?2",
                    [trigger, table],
                )?;
                if present == 0 {
                    problems.push(format!(
                        "{table} lacks its guard trigger `{trigger}`: the table is no longer append-only"
                    ));
                }
            }
        }
        Ok(MindCheck {
            status,
            expected_chunks,
            problems,
        })
    }
}
