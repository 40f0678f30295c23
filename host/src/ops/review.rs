//! The owner's review of stored memories, and corrections: one request
//! each for the CLI (`hive-mind correct`, `history`, `review …`), the MCP
//! tools (`update_memory`, `memory_history`, `review_memory`,
//! `merge_memories`, `trace_memory`, `list_sessions`, `close_session`) and
//! the REST routes under `/api/memories` and `/api/sessions`, `/api/flagged`.
//!
//! A memory is named by its reference, which names its mind: that mind is
//! what the request declares, and what the engine touches. Releasing a
//! quarantined memory and listing the quarantine are the owner's (`admin`):
//! an agent must not release what it wrote.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_memory::{CorrectedMemory, Correction};
use hive_mind_runtime::engine::wit_review::{
    FlaggedMemory, MemoryTrace, MergeRequest, Merged, MetadataChange, SessionInfo,
};
use hive_mind_runtime::engine::wit_types::{Frame, FrameRef, MemoryStatus, Mind};

use super::{Access, OpError, Operation, capped};
use crate::tokens::Scope;

/// A memory's reference as given (`personal:42`, `workspace:acme:7`).
pub fn reference(name: &str) -> Result<FrameRef, OpError> {
    crate::limits::check("memory", name).map_err(|error| OpError::Invalid(error.to_string()))?;
    convert::ref_in(name.trim()).map_err(|why| OpError::Argument {
        name: "memory",
        why,
    })
}

/// Correct a memory: a new version closes the old.
pub struct Correct {
    correction: Correction,
}

impl Correct {
    /// The correction of `memory` to `content`, true from `created_at`
    /// (ISO-8601; default now).
    pub fn new(
        memory: &str,
        content: String,
        created_at: Option<&String>,
    ) -> Result<Correct, OpError> {
        capped(&[("text", Some(&content)), ("created_at", created_at)])?;
        if content.trim().is_empty() {
            return Err(OpError::Invalid(
                "content is empty: give the corrected text".to_string(),
            ));
        }
        let created_at = created_at
            .map(|text| convert::timestamp_in(text))
            .transpose()
            .map_err(|why| OpError::Argument {
                name: "created_at",
                why,
            })?;
        Ok(Correct {
            correction: Correction {
                frame: reference(memory)?,
                content,
                created_at,
            },
        })
    }

    /// The corrected text.
    pub fn content(&self) -> &str {
        &self.correction.content
    }
}

impl Operation for Correct {
    type Output = CorrectedMemory;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.correction.frame.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<CorrectedMemory, OpError> {
        Ok(engine.correct_memory(&self.correction)?)
    }
}

/// A memory's versions, oldest first.
pub struct History {
    /// The memory.
    pub memory: FrameRef,
}

impl Operation for History {
    type Output = Vec<Frame>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.memory.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<Frame>, OpError> {
        Ok(engine.memory_history(&self.memory)?)
    }
}

/// Archive or restore memories, pin them, tag them.
pub struct SetMetadata {
    memories: Vec<FrameRef>,
    change: MetadataChange,
}

impl SetMetadata {
    /// The change of `memories`: a status by name (`active`, `archived`),
    /// a pin, tags to add and remove.
    pub fn new(
        memories: &[String],
        status: Option<&str>,
        pinned: Option<bool>,
        add_tags: Vec<String>,
        remove_tags: Vec<String>,
    ) -> Result<SetMetadata, OpError> {
        for tag in add_tags.iter().chain(&remove_tags) {
            crate::limits::check("tag", tag)
                .map_err(|error| OpError::Invalid(error.to_string()))?;
        }
        let status = status
            .map(|name| convert::name_in::<MemoryStatus>("status", name.trim()))
            .transpose()
            .map_err(|why| OpError::Argument {
                name: "status",
                why,
            })?;
        Ok(SetMetadata {
            memories: memories
                .iter()
                .map(|name| reference(name))
                .collect::<Result<_, _>>()?,
            change: MetadataChange {
                status,
                pinned,
                add_tags,
                remove_tags,
            },
        })
    }
}

impl Operation for SetMetadata {
    /// Each memory as changed, in order.
    type Output = Vec<Frame>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on_all(
            Scope::Write,
            self.memories
                .iter()
                .map(|memory| memory.mind.clone())
                .collect(),
        ))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<Frame>, OpError> {
        let mut review = engine.review();
        let mut changed = Vec::with_capacity(self.memories.len());
        for memory in &self.memories {
            changed.push(review.set_metadata(memory, &self.change)?);
        }
        Ok(changed)
    }
}

/// Merge memories of one mind into one; the originals are archived.
pub struct Merge {
    request: MergeRequest,
}

impl Merge {
    /// The merge of `memories`, with `content` as the merged text (default:
    /// their texts joined).
    pub fn new(memories: &[String], content: Option<String>) -> Result<Merge, OpError> {
        capped(&[("content", content.as_ref())])?;
        Ok(Merge {
            request: MergeRequest {
                memories: memories
                    .iter()
                    .map(|name| reference(name))
                    .collect::<Result<_, _>>()?,
                content,
            },
        })
    }
}

impl Operation for Merge {
    type Output = Merged;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on_all(
            Scope::Write,
            self.request
                .memories
                .iter()
                .map(|memory| memory.mind.clone())
                .collect(),
        ))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Merged, OpError> {
        Ok(engine.review().merge(&self.request)?)
    }
}

/// Where a memory came from and what it is tied to.
pub struct Trace {
    /// The memory.
    pub memory: FrameRef,
}

impl Operation for Trace {
    type Output = MemoryTrace;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.memory.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<MemoryTrace, OpError> {
        Ok(engine.review().trace(&self.memory)?)
    }
}

/// The quarantined (and never screened) memories of a mind: the owner's.
pub struct Flagged {
    /// Whose.
    pub mind: Mind,
    /// The most listed.
    pub limit: u32,
}

impl Operation for Flagged {
    type Output = Vec<FlaggedMemory>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on(Scope::Admin, self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<FlaggedMemory>, OpError> {
        Ok(engine.review().list_flagged(&self.mind, self.limit)?)
    }
}

/// Release a quarantined memory for good: the owner's.
pub struct Release {
    /// The memory.
    pub memory: FrameRef,
}

impl Operation for Release {
    type Output = Frame;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on(Scope::Admin, self.memory.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Frame, OpError> {
        Ok(engine.review().release(&self.memory)?)
    }
}

/// The newest sessions of a mind.
pub struct Sessions {
    /// Whose.
    pub mind: Mind,
    /// The most listed.
    pub limit: u32,
}

impl Operation for Sessions {
    type Output = Vec<SessionInfo>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<SessionInfo>, OpError> {
        Ok(engine.review().list_sessions(&self.mind, self.limit)?)
    }
}

/// Close a session (the next memory saved starts a new one).
pub struct CloseSession {
    /// Whose.
    pub mind: Mind,
    /// The session.
    pub session: String,
    /// What it was about.
    pub summary: Option<String>,
}

impl Operation for CloseSession {
    type Output = SessionInfo;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<SessionInfo, OpError> {
        Ok(engine.review().close_session(
            &self.mind,
            self.session.trim(),
            self.summary.as_deref(),
        )?)
    }
}
