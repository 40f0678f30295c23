//! The `hive:mind` **engine** world as a WebAssembly component.
//!
//! It imports the capabilities a host supplies (`store`, `embedder`,
//! `reranker`, `llm`) and exports the pure functions (`logic`) and the memory
//! API (`memory`). The logic export is the same translation layer the logic
//! component uses, compiled here against this world's bindings.
//!
//! The memory API is drafted in the WIT contract; its pipelines (save,
//! recall, cognify, import) land with the issues that build the store, the
//! embedder and recall. Until then each operation answers `unsupported`,
//! naming what is missing, rather than pretending to work.

// wit-bindgen's generated glue (the canonical-ABI exports) is the crate's only
// unsafe code, and its items are documented in the WIT, not in Rust; nothing
// hand-written here uses unsafe.
#![allow(unsafe_code, missing_docs)]

wit_bindgen::generate!({
    world: "engine",
    path: "../../wit",
});

#[path = "../../logic-component/src/logic_exports.rs"]
mod logic_exports;

use exports::hive::mind::memory::{
    Error, ExchangeOptions, Guest as MemoryGuest, ImportReport, ImportedConversation, MemoryInput,
    Recall, RecallOptions, SavedMemory,
};
use hive::mind::types::Mind;

/// The component: `logic` in [`logic_exports`], `memory` below.
pub struct Component;

export!(Component);

fn not_yet(operation: &str) -> Error {
    Error::Unsupported(format!(
        "{operation} is part of the drafted memory API and is not implemented by this engine build yet"
    ))
}

impl MemoryGuest for Component {
    fn save_memory(_input: MemoryInput) -> Result<SavedMemory, Error> {
        Err(not_yet("save-memory"))
    }

    fn recall_memory(
        _query: String,
        _limit: u32,
        _options: RecallOptions,
    ) -> Result<Recall, Error> {
        Err(not_yet("recall-memory"))
    }

    fn remember_exchange(
        _user: String,
        _assistant: String,
        _options: ExchangeOptions,
    ) -> Result<Vec<SavedMemory>, Error> {
        Err(not_yet("remember-exchange"))
    }

    fn import_conversations(
        _mind: Mind,
        _conversations: Vec<ImportedConversation>,
    ) -> Result<ImportReport, Error> {
        Err(not_yet("import-conversations"))
    }
}
