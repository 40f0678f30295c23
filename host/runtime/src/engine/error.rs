//! # How an engine call fails
//!
//! Every export call returns [`EngineError`]: either the component answered
//! with its interface's typed error ([`MemoryError`], [`AdminError`],
//! [`HarvestError`], [`ReviewError`], [`WikiError`], each wrapping the WIT `error` variant
//! so a caller can still match its cases), or the call never got an answer
//! ([`HostError`]: the component could not load, or it trapped).
//!
//! The `describe_*` functions put a case in words for people; programs
//! match the case, never the message.

use super::{wit_admin, wit_harvest, wit_memory, wit_review, wit_types, wit_wiki};
use crate::HostError;

/// Why a memory operation failed: inside the component (its typed error) or
/// around it (a trap, a load failure).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The component answered with an error.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// An `admin` export answered with an error.
    #[error(transparent)]
    Admin(#[from] AdminError),
    /// A `harvest` export answered with an error.
    #[error(transparent)]
    Harvest(#[from] HarvestError),
    /// A `review` export answered with an error.
    #[error(transparent)]
    Review(#[from] ReviewError),
    /// A `wiki` export answered with an error.
    #[error(transparent)]
    Wiki(#[from] WikiError),
    /// The component could not be loaded, or trapped.
    #[error(transparent)]
    Host(#[from] HostError),
}

/// The component's typed error, with a readable message.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_memory_error(.0))]
pub struct MemoryError(pub wit_memory::Error);

fn describe_memory_error(error: &wit_memory::Error) -> String {
    match error {
        wit_memory::Error::InvalidArgument(m) => format!("invalid argument: {m}"),
        wit_memory::Error::Storage(e) => format!("storage: {}", describe_storage_error(e)),
        wit_memory::Error::Embedder(m) => format!("embedder: {m}"),
        wit_memory::Error::Llm(m) => format!("language model: {m}"),
    }
}

/// A storage error case in words (for people; programs match the case).
pub fn describe_storage_error(error: &wit_types::StorageError) -> String {
    use wit_types::StorageError as E;
    match error {
        E::MindNotFound(mind) => {
            format!("no such mind: {mind} (a workspace mind is created by its first save)")
        }
        E::NotFound(what) => format!("not found: {what}"),
        E::InvalidArgument(why) => format!("invalid argument: {why}"),
        E::DimensionMismatch(m) => format!(
            "the mind's vectors have {} dimensions but the embedder makes {}; run `hive-mind reindex`",
            m.expected, m.actual
        ),
        E::NewerSchema(version) => format!(
            "the database has schema version {version}, newer than this hive-mind knows; upgrade hive-mind"
        ),
        E::Corrupt(why) => format!("corrupt database: {why}"),
        E::NoEmbedder => "no embedder is configured, so the mind has no vector index yet".into(),
        E::Embedder(why) => format!("the embedder failed: {why}"),
        E::AwarenessFull(live) => {
            format!("awareness is full ({live} live items); remove one or add with eviction")
        }
        E::Referenced(count) => {
            format!("the frame is the base of {count} other frame(s); deprecate it instead")
        }
        E::Busy => "the database is busy (locked by another process)".into(),
        E::AccessDenied => "the host refused the database".into(),
        E::Full => "the database or disk is full".into(),
        E::Sql(message) => format!("sqlite: {message}"),
    }
}

/// An `admin` export's typed error.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_admin_error(.0))]
pub struct AdminError(pub wit_admin::Error);

fn describe_admin_error(error: &wit_admin::Error) -> String {
    match error {
        wit_admin::Error::InvalidArgument(m) => format!("invalid argument: {m}"),
        wit_admin::Error::Storage(e) => describe_storage_error(e),
        wit_admin::Error::Embedder(m) => format!("embedder: {m}"),
    }
}

/// A `review` export's typed error.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_review_error(.0))]
pub struct ReviewError(pub wit_review::Error);

fn describe_review_error(error: &wit_review::Error) -> String {
    match error {
        wit_review::Error::InvalidArgument(m) => format!("invalid argument: {m}"),
        wit_review::Error::Storage(e) => describe_storage_error(e),
        wit_review::Error::Embedder(m) => format!("embedder: {m}"),
    }
}

/// A `wiki` export's typed error.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_wiki_error(.0))]
pub struct WikiError(pub wit_wiki::Error);

fn describe_wiki_error(error: &wit_wiki::Error) -> String {
    match error {
        wit_wiki::Error::InvalidArgument(m) => format!("invalid argument: {m}"),
        wit_wiki::Error::NotFound(m) => format!("not found: {m}"),
        wit_wiki::Error::Storage(e) => describe_storage_error(e),
    }
}

/// A `harvest` export's typed error.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_harvest_error(.0))]
pub struct HarvestError(pub wit_harvest::Error);

/// A harvest error case in words (for people; programs match the case).
pub fn describe_harvest_error(error: &wit_harvest::Error) -> String {
    use wit_harvest::Error as E;
    match error {
        E::InvalidArgument(m) => format!("invalid argument: {m}"),
        E::Unrecognised(m) => format!("unrecognised format: {m}"),
        E::Malformed(m) => format!("malformed: {m}"),
        E::TooLarge(m) => format!("too large: {m}"),
        E::Fetch(m) => format!("fetch: {m}"),
        E::Embedder(m) => format!("embedder: {m}"),
        E::Storage(e) => format!("storage: {}", describe_storage_error(e)),
    }
}
