//! # The `memory` export
//!
//! One method of [`EngineRuntime`] per function of `wit/memory.wit`: save,
//! recall, forget, correct, the entity calls, cognify and the injection
//! scan. Each is a thin wrapper: `EngineRuntime::call` arms the deadline
//! of its [`CallKind`] and restarts the instance on a trap, and the
//! component's typed error becomes [`MemoryError`].

use super::{EngineError, EngineRuntime, MemoryError, wit_memory, wit_types};
use crate::limits::CallKind;

impl EngineRuntime {
    /// `memory.save-memory`: chunk, embed and store one memory.
    pub fn save_memory(
        &mut self,
        input: &wit_memory::MemoryInput,
    ) -> Result<wit_memory::SavedMemory, EngineError> {
        let result = self.call("save-memory", CallKind::Save, |engine, store| {
            engine.hive_mind_memory().call_save_memory(store, input)
        })?;
        Ok(result.map_err(MemoryError)?)
    }
    /// `memory.save-memories`: many memories, one transaction per mind.
    pub fn save_memories(
        &mut self,
        inputs: &[wit_memory::MemoryInput],
    ) -> Result<Vec<wit_memory::SavedMemory>, EngineError> {
        let result = self.call("save-memories", CallKind::Save, |engine, store| {
            engine.hive_mind_memory().call_save_memories(store, inputs)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.import-conversations`: conversation turns as raw-turn frames.
    pub fn import_conversations(
        &mut self,
        mind: &wit_types::Mind,
        conversations: &[wit_memory::ImportedConversation],
    ) -> Result<wit_memory::ImportReport, EngineError> {
        let result = self.call("import-conversations", CallKind::Import, |engine, store| {
            engine
                .hive_mind_memory()
                .call_import_conversations(store, mind, conversations)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.recall-memory`: the multi-lane recall pipeline.
    pub fn recall_memory(
        &mut self,
        query: &str,
        options: &wit_memory::RecallOptions,
    ) -> Result<wit_memory::Recall, EngineError> {
        let result = self.call("recall-memory", CallKind::Recall, |engine, store| {
            engine
                .hive_mind_memory()
                .call_recall_memory(store, query, options)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.recall-minds`: the minds a recall with `options` reads,
    /// active workspace first (what a caller's grant is checked against).
    pub fn recall_minds(
        &mut self,
        options: &wit_memory::RecallOptions,
    ) -> Result<Vec<wit_types::Mind>, EngineError> {
        let result = self.call("recall-minds", CallKind::Recall, |engine, store| {
            engine.hive_mind_memory().call_recall_minds(store, options)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.cleanup-frames`: find (and with `apply`, retire) a mind's
    /// dead-weight frames.
    pub fn cleanup_frames(
        &mut self,
        options: &wit_memory::CleanupOptions,
    ) -> Result<wit_memory::CleanupReport, EngineError> {
        let result = self.call("cleanup-frames", CallKind::Maintenance, |engine, store| {
            engine
                .hive_mind_memory()
                .call_cleanup_frames(store, options)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.forget`: erase memories for real, or (a dry run) say what
    /// would go. A maintenance call: its `VACUUM` rewrites the mind's file.
    pub fn forget(
        &mut self,
        request: &wit_memory::ForgetRequest,
    ) -> Result<wit_memory::ForgetReport, EngineError> {
        let result = self.call("forget", CallKind::Maintenance, |engine, store| {
            engine.hive_mind_memory().call_forget(store, request)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.correct-memory`: a new version of a memory that closes the
    /// old one.
    pub fn correct_memory(
        &mut self,
        correction: &wit_memory::Correction,
    ) -> Result<wit_memory::CorrectedMemory, EngineError> {
        let result = self.call("correct-memory", CallKind::Save, |engine, store| {
            engine
                .hive_mind_memory()
                .call_correct_memory(store, correction)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.memory-history`: the versions of a memory, oldest first.
    pub fn memory_history(
        &mut self,
        frame: &wit_types::FrameRef,
    ) -> Result<Vec<wit_types::Frame>, EngineError> {
        let result = self.call("memory-history", CallKind::Recall, |engine, store| {
            engine.hive_mind_memory().call_memory_history(store, frame)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.save-entity`: save (or strengthen) an entity.
    pub fn save_entity(
        &mut self,
        mind: &wit_types::Mind,
        name: &str,
        entity_type: &str,
    ) -> Result<wit_memory::KnownEntity, EngineError> {
        let result = self.call("save-entity", CallKind::Save, |engine, store| {
            engine
                .hive_mind_memory()
                .call_save_entity(store, mind, name, entity_type)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.create-relation`: relate two named entities.
    pub fn create_relation(
        &mut self,
        mind: &wit_types::Mind,
        subject: &str,
        relation: &str,
        object: &str,
        strength: Option<f64>,
    ) -> Result<wit_memory::KnownRelation, EngineError> {
        let result = self.call("create-relation", CallKind::Save, |engine, store| {
            engine
                .hive_mind_memory()
                .call_create_relation(store, mind, subject, relation, object, strength)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.search-entities`: browse entities by a part of their name.
    pub fn search_entities(
        &mut self,
        mind: &wit_types::Mind,
        text: &str,
        limit: u32,
    ) -> Result<Vec<wit_memory::KnownEntity>, EngineError> {
        let result = self.call("search-entities", CallKind::Recall, |engine, store| {
            engine
                .hive_mind_memory()
                .call_search_entities(store, mind, text, limit)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.remember-exchange`: learn from one exchange (cognify).
    pub fn remember_exchange(
        &mut self,
        user: &str,
        assistant: &str,
        options: &wit_memory::ExchangeOptions,
    ) -> Result<Vec<wit_memory::SavedMemory>, EngineError> {
        let result = self.call("remember-exchange", CallKind::Import, |engine, store| {
            engine
                .hive_mind_memory()
                .call_remember_exchange(store, user, assistant, options)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.scan-for-injection`: the engine's prompt-injection scan of a
    /// text, for surfaces that hand stored text to a model outside recall
    /// (which scans its own block).
    pub fn scan_for_injection(
        &mut self,
        text: &str,
        context: wit_types::ScanContext,
    ) -> Result<wit_types::InjectionReport, EngineError> {
        Ok(
            self.call("scan-for-injection", CallKind::Recall, |engine, store| {
                engine
                    .hive_mind_memory()
                    .call_scan_for_injection(store, text, context)
            })?,
        )
    }
}
