//! The store's error type: one typed case per failure a caller can act on.
//!
//! The engine's exports turn each case into the WIT `storage-error` case of
//! the same meaning, so a host matches cases, never messages. Every
//! validation runs
//! before the first write of an operation, and every write runs in one
//! transaction: an operation that fails has written nothing.

use crate::sql::{self, SqlError};

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
        "{database}: schema version {found} is newer than this hive-mind supports ({supported}); upgrade hive-mind"
    )]
    NewerSchema {
        /// The database.
        database: String,
        /// The version found in the file.
        found: u32,
        /// The newest version this build knows.
        supported: u32,
    },
    /// The file is corrupt, not an SQLite database, or an SQLite database that
    /// is not a hive-mind mind.
    #[error("{database}: {reason}")]
    Corrupt {
        /// The database.
        database: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Any other SQL failure.
    #[error("sqlite: {0}")]
    Sql(#[from] sql::Error),
}

impl From<SqlError> for StoreError {
    fn from(error: SqlError) -> StoreError {
        StoreError::Sql(sql::Error::Sql(error))
    }
}

impl StoreError {
    /// The capability's error, when this is one.
    pub fn sql_error(&self) -> Option<&SqlError> {
        match self {
            StoreError::Sql(sql::Error::Sql(error)) => Some(error),
            _ => None,
        }
    }
}

/// The store's result type.
pub type StoreResult<T> = Result<T, StoreError>;
