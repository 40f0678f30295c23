//! Save one memory: one request for `hive-mind save`, MCP `save_memory` and
//! `POST /api/memories`.
//!
//! [`SaveRequest`] carries what a caller may send as text (the importance
//! and source by name, the event time as ISO-8601) and the mind the
//! surface resolved; [`SaveOperation`] is it validated once into the WIT
//! `memory-input`. The engine chunks, embeds, screens and stores it.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_memory::{MemoryInput, SavedMemory};
use hive_mind_runtime::engine::wit_types::Mind;

use super::{Access, OpError, Operation, capped};

/// A memory to save, as every surface asks for it.
#[derive(Debug, Clone)]
pub struct SaveRequest {
    /// What to remember.
    pub content: String,
    /// critical, important, normal, temporary or deprecated (default
    /// normal).
    pub importance: Option<String>,
    /// user-stated, tool-verified, agent-inferred, import or system
    /// (default user-stated).
    pub source: Option<String>,
    /// The mind to save to.
    pub mind: Mind,
    /// When it happened (ISO-8601); default now.
    pub created_at: Option<String>,
}

/// A validated save.
pub struct SaveOperation {
    input: MemoryInput,
    makes_mind: bool,
}

impl SaveOperation {
    /// The request validated. With `makes_mind`, a workspace's first save
    /// makes its mind (the CLI and REST); without, the workspace must exist
    /// (MCP, where an agent's misspelt workspace must not make a mind).
    pub fn new(request: SaveRequest, makes_mind: bool) -> Result<SaveOperation, OpError> {
        capped(&[
            ("text", Some(&request.content)),
            ("importance", request.importance.as_ref()),
            ("source", request.source.as_ref()),
            ("created_at", request.created_at.as_ref()),
        ])?;
        if request.content.trim().is_empty() {
            return Err(OpError::Invalid(
                "content is empty: there is nothing to remember".to_string(),
            ));
        }
        let argument = |name: &'static str| move |why: String| OpError::Argument { name, why };
        let importance = request.importance.as_deref().map(convert::importance_in);
        let source = request.source.as_deref().map(convert::source_in);
        let created_at = request.created_at.as_deref().map(convert::timestamp_in);
        Ok(SaveOperation {
            input: MemoryInput {
                content: request.content,
                importance: importance.transpose().map_err(argument("importance"))?,
                source: source.transpose().map_err(argument("source"))?,
                mind: request.mind,
                created_at: created_at.transpose().map_err(argument("created_at"))?,
                kind: None,
            },
            makes_mind,
        })
    }

    /// The text to be saved.
    pub fn content(&self) -> &str {
        &self.input.content
    }
}

impl Operation for SaveOperation {
    type Output = SavedMemory;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        let access = Access::write(self.input.mind.clone());
        Ok(if self.makes_mind {
            access.creating()
        } else {
            access
        })
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<SavedMemory, OpError> {
        Ok(engine.save_memory(&self.input)?)
    }
}
