//! Save one memory: one request for `hive-mind save`, MCP `save_memory` and
//! `POST /api/memories`.
//!
//! [`SaveRequest`] carries what a caller may send as text (the importance
//! and source by name, the event time as ISO-8601, the mind by
//! `workspace`/`mind`); [`SaveOperation`] is it validated once into the WIT
//! `memory-input`, its mind resolved under the surface's [`WritePolicy`]. The engine chunks, embeds, screens and stores it.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_memory::{MemoryInput, SavedMemory};

use serde::Deserialize;

use super::{Access, OpError, Operation, WritePolicy, capped};

/// A memory to save, as every surface asks for it: the arguments of
/// `hive-mind save`, of MCP `save_memory` and the body of `POST
/// /api/memories` are this one type.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::ToSchema, clap::Args,
)]
#[serde(deny_unknown_fields)]
pub struct SaveRequest {
    /// What to remember.
    #[arg(value_name = "CONTENT")]
    pub content: String,
    /// critical, important, normal (default), temporary or deprecated.
    #[arg(long)]
    pub importance: Option<String>,
    /// user-stated (default), tool-verified, agent-inferred, import or
    /// system.
    #[arg(long)]
    pub source: Option<String>,
    /// Save to this workspace's mind instead of the personal mind.
    #[arg(long)]
    pub workspace: Option<String>,
    /// "personal" or "workspace", to say explicitly which mind is meant.
    #[arg(long)]
    pub mind: Option<String>,
    /// When it happened (ISO-8601); default now.
    #[arg(long)]
    pub created_at: Option<String>,
}

/// A validated save.
pub struct SaveOperation {
    input: MemoryInput,
    makes_mind: bool,
}

impl SaveOperation {
    /// The request validated, its mind resolved under the surface's
    /// `policy`.
    pub fn new(request: SaveRequest, policy: WritePolicy) -> Result<SaveOperation, OpError> {
        capped(&[
            ("content", Some(&request.content)),
            ("workspace", request.workspace.as_ref()),
            ("mind", request.mind.as_ref()),
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
        let mind = policy.mind(request.mind.as_deref(), request.workspace.as_deref())?;
        Ok(SaveOperation {
            input: MemoryInput {
                content: request.content,
                importance: importance.transpose().map_err(argument("importance"))?,
                source: source.transpose().map_err(argument("source"))?,
                mind,
                created_at: created_at.transpose().map_err(argument("created_at"))?,
                kind: None,
            },
            makes_mind: policy.makes_mind,
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
