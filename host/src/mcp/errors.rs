//! MCP errors: an operation's refusal and the engine's typed failures as
//! the tool's error — the caller's doing (`invalid_params`, which the model
//! reads as the tool's result) or the server's (an internal error).

use super::*;

/// An operation's refusal or failure as the tool's error: the caller's
/// doing (a bad argument, a grant that does not reach, a missing mind) is
/// `invalid_params`, which the model reads as the tool's result.
pub(super) fn op_error(error: OpError) -> McpError {
    match error {
        OpError::Invalid(_)
        | OpError::Argument { .. }
        | OpError::Forbidden(_)
        | OpError::NotFound(_) => invalid(error.to_string()),
        OpError::Engine(error) => engine_error(error),
    }
}

pub(super) fn invalid(message: impl Into<String>) -> McpError {
    McpError::invalid_params(message.into(), None)
}

pub(super) fn internal(message: impl Into<String>) -> McpError {
    McpError::internal_error(message.into(), None)
}

/// Whether a storage failure is the caller's doing (a mind, item or frame
/// that does not exist, a malformed value, a full awareness list, a frame
/// still referenced) rather than the server's (SQL, a lock, a damaged or
/// newer database, the embedder, the disk).
pub(super) fn caller_storage_error(error: &StorageError) -> bool {
    match error {
        StorageError::MindNotFound(_)
        | StorageError::NotFound(_)
        | StorageError::InvalidArgument(_)
        | StorageError::AwarenessFull(_)
        | StorageError::Referenced(_) => true,
        StorageError::DimensionMismatch(_)
        | StorageError::NewerSchema(_)
        | StorageError::Corrupt(_)
        | StorageError::NoEmbedder
        | StorageError::Embedder(_)
        | StorageError::Busy
        | StorageError::AccessDenied
        | StorageError::Full
        | StorageError::Sql(_) => false,
    }
}

/// An engine error as an MCP error, by its typed case: the caller's fault
/// (`invalid_params`, which [`MemoryServer::call_tool`] turns into a tool
/// result with `isError: true`) or ours (an internal error).
pub(super) fn engine_error(error: EngineError) -> McpError {
    let storage = |error: &StorageError| {
        let message = describe_storage_error(error);
        if caller_storage_error(error) {
            invalid(message)
        } else {
            internal(message)
        }
    };
    match &error {
        EngineError::Memory(MemoryError(wit_memory::Error::InvalidArgument(why)))
        | EngineError::Admin(AdminError(wit_admin::Error::InvalidArgument(why)))
        | EngineError::Review(ReviewError(wit_review::Error::InvalidArgument(why)))
        | EngineError::Wiki(WikiError(
            wit_wiki::Error::InvalidArgument(why) | wit_wiki::Error::NotFound(why),
        )) => invalid(why.clone()),
        EngineError::Memory(MemoryError(wit_memory::Error::Storage(error)))
        | EngineError::Admin(AdminError(wit_admin::Error::Storage(error)))
        | EngineError::Review(ReviewError(wit_review::Error::Storage(error)))
        | EngineError::Wiki(WikiError(wit_wiki::Error::Storage(error)))
        | EngineError::Harvest(HarvestError(wit_harvest::Error::Storage(error))) => storage(error),
        EngineError::Harvest(HarvestError(
            wit_harvest::Error::InvalidArgument(_)
            | wit_harvest::Error::Unrecognised(_)
            | wit_harvest::Error::Malformed(_)
            | wit_harvest::Error::TooLarge(_)
            | wit_harvest::Error::Fetch(_),
        )) => invalid(error.to_string()),
        EngineError::Harvest(HarvestError(wit_harvest::Error::Embedder(_))) => {
            internal(error.to_string())
        }
        EngineError::Memory(MemoryError(
            wit_memory::Error::Embedder(_) | wit_memory::Error::Llm(_),
        ))
        | EngineError::Admin(AdminError(wit_admin::Error::Embedder(_)))
        | EngineError::Review(ReviewError(wit_review::Error::Embedder(_)))
        | EngineError::Host(_) => internal(error.to_string()),
    }
}
