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
    FlaggedMemory, MemoryTrace, MergeRequest, Merged, MetadataChange, PairDecision, PairVerdict,
    SessionInfo, SessionView,
};
use hive_mind_runtime::engine::wit_types::{Frame, FrameRef, MemoryStatus, Mind};

use serde::Deserialize;

use super::{Access, ListRequest, OpError, Operation, capped};
use crate::tokens::Scope;

/// A memory's reference as given (`personal:42`, `workspace:acme:7`).
pub fn reference(name: &str) -> Result<FrameRef, OpError> {
    crate::limits::check("memory", name).map_err(|error| OpError::Invalid(error.to_string()))?;
    convert::ref_in(name.trim()).map_err(|why| OpError::Argument {
        name: "memory",
        why,
    })
}

/// One memory, by reference: the request of `hive-mind history` and
/// `review trace`/`release`, MCP `memory_history` and `trace_memory`, and
/// the REST routes that name a memory in their path.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct MemoryRequest {
    /// The memory, by reference as recall shows it (`personal:42`,
    /// `workspace:acme:7`).
    pub memory: String,
}

impl MemoryRequest {
    /// The reference it names.
    pub fn reference(&self) -> Result<FrameRef, OpError> {
        reference(&self.memory)
    }
}

/// A correction, as every surface sends it: the arguments of `hive-mind
/// correct` and MCP `update_memory`, and the body of `POST
/// /api/memories/{ref}/correct` (where the path names the memory).
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::ToSchema, clap::Args,
)]
#[serde(deny_unknown_fields)]
pub struct CorrectRequest {
    /// The memory to correct, by reference as recall shows it
    /// (`personal:42`, `workspace:acme:7`).
    pub memory: String,
    /// The corrected text.
    pub content: String,
    /// When the corrected fact became true (ISO-8601); default now.
    #[arg(long)]
    pub created_at: Option<String>,
}

/// Correct a memory: a new version closes the old.
pub struct Correct {
    correction: Correction,
}

impl Correct {
    /// The correction validated.
    pub fn new(request: CorrectRequest) -> Result<Correct, OpError> {
        let CorrectRequest {
            memory,
            content,
            created_at,
        } = request;
        capped(&[
            ("content", Some(&content)),
            ("created_at", created_at.as_ref()),
        ])?;
        if content.trim().is_empty() {
            return Err(OpError::Invalid(
                "content is empty: give the corrected text".to_string(),
            ));
        }
        let created_at = created_at
            .as_deref()
            .map(convert::timestamp_in)
            .transpose()
            .map_err(|why| OpError::Argument {
                name: "created_at",
                why,
            })?;
        Ok(Correct {
            correction: Correction {
                frame: reference(&memory)?,
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

impl History {
    /// The versions of the memory `request` names.
    pub fn new(request: &MemoryRequest) -> Result<History, OpError> {
        Ok(History {
            memory: request.reference()?,
        })
    }
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

/// A review of one memory, as every surface sends it: MCP
/// `review_memory`, the body of `PATCH /api/memories/{ref}` (the path
/// names the memory), and what `hive-mind review archive|unarchive|pin|tag`
/// build. What is left out stays as it is.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewRequest {
    /// The memory, by reference as recall shows it (`personal:42`).
    pub memory: String,
    /// true archives it (kept, readable and traceable, out of recall);
    /// false brings it back.
    pub archived: Option<bool>,
    /// Pin it (cleanup never retires a pinned memory), or unpin it.
    pub pinned: Option<bool>,
    /// Tags to add (lower-cased; 1 to 64 characters; at most 32 a memory).
    pub add_tags: Option<Vec<String>>,
    /// Tags to remove.
    pub remove_tags: Option<Vec<String>>,
}

/// Archive or restore memories, pin them, tag them.
pub struct SetMetadata {
    memories: Vec<FrameRef>,
    change: MetadataChange,
}

impl SetMetadata {
    /// The review of one memory.
    pub fn new(request: ReviewRequest) -> Result<SetMetadata, OpError> {
        let ReviewRequest {
            memory,
            archived,
            pinned,
            add_tags,
            remove_tags,
        } = request;
        SetMetadata::of_all(
            std::slice::from_ref(&memory),
            archived,
            pinned,
            add_tags.unwrap_or_default(),
            remove_tags.unwrap_or_default(),
        )
    }

    /// The same change of several memories (the command line's
    /// `archive`, `unarchive` and `pin` take several at once).
    pub fn of_all(
        memories: &[String],
        archived: Option<bool>,
        pinned: Option<bool>,
        add_tags: Vec<String>,
        remove_tags: Vec<String>,
    ) -> Result<SetMetadata, OpError> {
        for tag in add_tags.iter().chain(&remove_tags) {
            crate::limits::check("tag", tag)
                .map_err(|error| OpError::Invalid(error.to_string()))?;
        }
        let status = archived.map(|archived| {
            if archived {
                MemoryStatus::Archived
            } else {
                MemoryStatus::Active
            }
        });
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

/// A merge, as every surface sends it: the arguments of `hive-mind
/// review merge` and MCP `merge_memories`, the body of `POST
/// /api/memories/merge`.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::ToSchema, clap::Args,
)]
#[serde(deny_unknown_fields)]
pub struct MergeMemoriesRequest {
    /// Two to 50 memories of one mind, by reference.
    #[arg(required = true, num_args = 2..)]
    pub memories: Vec<String>,
    /// The merged text (default: the originals' texts joined, oldest
    /// first).
    #[arg(long)]
    pub content: Option<String>,
}

/// Merge memories of one mind into one; the originals are archived.
pub struct Merge {
    request: MergeRequest,
}

impl Merge {
    /// The merge validated.
    pub fn new(request: MergeMemoriesRequest) -> Result<Merge, OpError> {
        capped(&[("content", request.content.as_ref())])?;
        Ok(Merge {
            request: MergeRequest {
                memories: request
                    .memories
                    .iter()
                    .map(|name| reference(name))
                    .collect::<Result<_, _>>()?,
                content: request.content,
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

impl Trace {
    /// The trace of the memory `request` names.
    pub fn new(request: &MemoryRequest) -> Result<Trace, OpError> {
        Ok(Trace {
            memory: request.reference()?,
        })
    }
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

impl Flagged {
    /// The listing `request` asks for.
    pub fn new(request: &ListRequest) -> Result<Flagged, OpError> {
        Ok(Flagged {
            mind: request.mind()?,
            limit: request.limit(),
        })
    }
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

impl Release {
    /// The release of the memory `request` names.
    pub fn new(request: &MemoryRequest) -> Result<Release, OpError> {
        Ok(Release {
            memory: request.reference()?,
        })
    }
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

impl Sessions {
    /// The listing `request` asks for.
    pub fn new(request: &ListRequest) -> Result<Sessions, OpError> {
        Ok(Sessions {
            mind: request.mind()?,
            limit: request.limit(),
        })
    }
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

/// A session to close, as every surface names it: `hive-mind review
/// close-session` and MCP `close_session`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct CloseSessionRequest {
    /// The session's id (a memory's `gop-id`).
    pub session: String,
    /// A summary to keep with it.
    #[arg(long)]
    pub summary: Option<String>,
    /// The workspace (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
}

/// Close a session (the next memory saved starts a new one).
pub struct CloseSession {
    mind: Mind,
    session: String,
    summary: Option<String>,
}

impl CloseSession {
    /// The request validated.
    pub fn new(request: CloseSessionRequest) -> Result<CloseSession, OpError> {
        capped(&[
            ("session", Some(&request.session)),
            ("summary", request.summary.as_ref()),
            ("workspace", request.workspace.as_ref()),
        ])?;
        Ok(CloseSession {
            mind: super::read_mind(request.workspace.as_deref())?,
            session: request.session,
            summary: request.summary,
        })
    }
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

/// One session's memories, as every surface names them: `hive-mind review
/// session`, MCP `get_session` and `GET /api/sessions/{session}` (where
/// the path names the session).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct SessionRequest {
    /// The session's id (a memory's `gop-id`, as `list_sessions` shows it).
    pub session: String,
    /// The workspace (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// At most this many memories, in the order they were written (default
    /// 200, at most 1000).
    #[arg(long)]
    pub limit: Option<u32>,
}

impl SessionRequest {
    /// The request of `GET /api/sessions/{session}`: the path names the
    /// session, the query the mind and the limit.
    pub fn of(session: String, query: &ListRequest) -> SessionRequest {
        SessionRequest {
            session,
            workspace: query.workspace.clone(),
            limit: query.limit,
        }
    }
}

impl SessionRequest {
    /// The memories listed when no limit is given.
    pub const DEFAULT_LIMIT: u32 = 200;
    /// The most memories one read returns.
    pub const MAX_LIMIT: u32 = 1000;
}

/// A session with its memories: a whole imported conversation, turn by
/// turn.
pub struct SessionMemories {
    mind: Mind,
    session: String,
    limit: u32,
}

impl SessionMemories {
    /// The request validated.
    pub fn new(request: &SessionRequest) -> Result<SessionMemories, OpError> {
        capped(&[
            ("session", Some(&request.session)),
            ("workspace", request.workspace.as_ref()),
        ])?;
        if request.session.trim().is_empty() {
            return Err(OpError::Argument {
                name: "session",
                why: "name a session (its id, as the sessions list shows it)".to_string(),
            });
        }
        Ok(SessionMemories {
            mind: super::read_mind(request.workspace.as_deref())?,
            session: request.session.trim().to_string(),
            limit: request
                .limit
                .unwrap_or(SessionRequest::DEFAULT_LIMIT)
                .clamp(1, SessionRequest::MAX_LIMIT),
        })
    }
}

impl Operation for SessionMemories {
    type Output = SessionView;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<SessionView, OpError> {
        Ok(engine
            .review()
            .get_session(&self.mind, &self.session, self.limit)?)
    }
}

/// The owner's word on two memories the engine read as one fact changing,
/// as every surface sends it: `hive-mind review decide` and `POST
/// /api/decisions`. The owner's (`admin`), like a release: an agent must
/// not undo what the engine decided against it.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::ToSchema, clap::Args,
)]
#[serde(deny_unknown_fields)]
pub struct DecideRequest {
    /// The older memory, by reference (`personal:42`).
    pub older: String,
    /// The newer memory, by reference (same mind).
    pub newer: String,
    /// `replaces` (the newer is what is true now: a conflict resolved, a
    /// replacement confirmed) or `both-stand` (both are true: a conflict
    /// dismissed, a replacement undone).
    #[arg(long)]
    pub verdict: String,
}

/// Decide on a pair.
pub struct Decide {
    older: FrameRef,
    newer: FrameRef,
    verdict: PairVerdict,
}

impl Decide {
    /// The request validated.
    pub fn new(request: &DecideRequest) -> Result<Decide, OpError> {
        capped(&[("verdict", Some(&request.verdict))])?;
        Ok(Decide {
            older: reference(&request.older)?,
            newer: reference(&request.newer)?,
            verdict: convert::name_in("verdict", request.verdict.trim()).map_err(|why| {
                OpError::Argument {
                    name: "verdict",
                    why,
                }
            })?,
        })
    }
}

impl Operation for Decide {
    type Output = PairDecision;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on_all(
            Scope::Admin,
            vec![self.older.mind.clone(), self.newer.mind.clone()],
        ))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<PairDecision, OpError> {
        Ok(engine
            .review()
            .decide_pair(&self.older, &self.newer, self.verdict)?)
    }
}
