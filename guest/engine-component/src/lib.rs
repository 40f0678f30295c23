//! The `hive:mind` **engine** world as a WebAssembly component.
//!
//! It imports the capabilities a host supplies (`store`, `embedder`,
//! `reranker`, `llm`) and exports the pure functions (`logic`) and the memory
//! API (`memory`). The logic export is the same translation layer the logic
//! component uses, compiled here against this world's bindings.
//!
//! The memory API is implemented operation by operation, each as a pipeline
//! over the imports: [`save`] (chunk, embed, store), [`recall`] (the
//! multi-lane pipeline), [`cognify`] (learning from an exchange),
//! [`import`] (raw conversation turns), [`cleanup`] (retiring
//! dead-weight frames) and [`graph`] (entities and relations an agent
//! names explicitly).

// wit-bindgen's generated glue (the canonical-ABI exports) is the crate's only
// unsafe code, and its items are documented in the WIT, not in Rust; nothing
// hand-written here uses unsafe.
#![allow(unsafe_code, missing_docs)]

wit_bindgen::generate!({
    world: "engine",
    path: "../../wit",
});

mod cleanup;
mod cognify;
mod graph;
mod import;
#[path = "../../logic-component/src/logic_exports.rs"]
mod logic_exports;
mod recall;
mod save;

use exports::hive::mind::memory::{
    CleanupOptions, CleanupReport, Error, ExchangeOptions, Guest as MemoryGuest, ImportReport,
    ImportedConversation, KnownEntity, KnownRelation, MemoryInput, Recall, RecallOptions,
    SavedMemory,
};
use hive::mind::types::Mind;

/// The component: `logic` in [`logic_exports`], `memory` below.
pub struct Component;

export!(Component);

impl MemoryGuest for Component {
    fn save_memory(input: MemoryInput) -> Result<SavedMemory, Error> {
        save::save_memory(input)
    }

    fn save_memories(inputs: Vec<MemoryInput>) -> Result<Vec<SavedMemory>, Error> {
        save::save_memories(inputs)
    }

    fn recall_memory(query: String, limit: u32, options: RecallOptions) -> Result<Recall, Error> {
        recall::recall_memory(query, limit, options)
    }

    fn remember_exchange(
        user: String,
        assistant: String,
        options: ExchangeOptions,
    ) -> Result<Vec<SavedMemory>, Error> {
        cognify::remember_exchange(user, assistant, options)
    }

    fn import_conversations(
        mind: Mind,
        conversations: Vec<ImportedConversation>,
    ) -> Result<ImportReport, Error> {
        import::import_conversations(mind, conversations)
    }

    fn cleanup_frames(options: CleanupOptions) -> Result<CleanupReport, Error> {
        cleanup::cleanup_frames(options)
    }

    fn save_entity(mind: Mind, name: String, entity_type: String) -> Result<KnownEntity, Error> {
        graph::save_entity(mind, name, entity_type)
    }

    fn create_relation(
        mind: Mind,
        subject: String,
        relation: String,
        object: String,
        strength: Option<f64>,
    ) -> Result<KnownRelation, Error> {
        graph::create_relation(mind, subject, relation, object, strength)
    }

    fn search_entities(mind: Mind, text: String, limit: u32) -> Result<Vec<KnownEntity>, Error> {
        graph::search_entities(mind, text, limit)
    }
}
