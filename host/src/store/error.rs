//! The store's error type: one typed case per failure a caller can act on.
//!
//! The cases mirror the WIT `store.error` variant (`not-found`,
//! `invalid-input`, `dimension-mismatch`, `newer-schema`, `corrupt`, …), so the
//! host's `store` import can translate them one to one. Every validation runs
//! before the first write of an operation, and every write runs in one
//! transaction: an operation that fails has written nothing.

use std::path::PathBuf;

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A workspace mind that was never created was asked for.
    #[error("no such mind: {0} (a workspace mind is created by its first save)")]
    MindNotFound(String),
    /// The named frame, entity, session or item does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// An argument was malformed (a bad timestamp, an empty content, an
    /// unknown importance, …); nothing was written.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A vector's dimension differs from the mind's; `reindex` is the remedy.
    #[error(
        "vector dimension mismatch: the mind's vectors have {expected} dimensions, \
         {actual} were offered (run `hive-mind reindex` to rebuild the vectors for the new embedder)"
    )]
    DimensionMismatch {
        /// The dimension the mind's vectors have.
        expected: u32,
        /// The dimension that was offered.
        actual: u32,
    },
    /// A vector operation was asked of a mind that has no vector tables yet and
    /// no embedder was configured to create them.
    #[error("no embedder is configured, so the mind has no vector index yet")]
    NoEmbedder,
    /// The embedder failed while re-indexing.
    #[error("the embedder failed: {0}")]
    Embedder(String),
    /// The awareness list already holds its maximum of live items and the
    /// caller asked not to evict.
    #[error("awareness is full ({0} live items); remove one or add with eviction")]
    AwarenessFull(usize),
    /// The frame is the base of other frames, so deleting it would orphan
    /// them; deprecate it instead.
    #[error(
        "frame {id} is the base of {dependents} other frame(s); deprecate it instead of deleting"
    )]
    Referenced {
        /// The frame that was to be deleted.
        id: u64,
        /// How many frames name it as their base.
        dependents: u64,
    },
    /// The database was written by a newer hive-mind (its schema version is
    /// higher than this build knows); it is left untouched.
    #[error(
        "{path}: schema version {found} is newer than this hive-mind supports ({supported}); upgrade hive-mind"
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The version found in the file.
        found: u32,
        /// The newest version this build knows.
        supported: u32,
    },
    /// The file is corrupt, not an SQLite database, or an SQLite database that
    /// is not a hive-mind mind.
    #[error("{path}: {reason}")]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file or folder of the data directory could not be read or created.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Any other SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// The store's result type.
pub type StoreResult<T> = Result<T, StoreError>;
