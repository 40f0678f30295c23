//! Reading a mind as it is stored: one memory by reference, its newest
//! memories, the sources imported into it, the whole mind exported, and
//! every reachable mind's counts. One request each for the CLI (`get`,
//! `sources`, `export`, `status`), MCP `harvest_sources` and its resources
//! (`hive-mind://memories/recent`, a workspace's recent memories,
//! `hive-mind://stats`) and the REST routes `GET /api/memories/{ref}`,
//! `/api/memories`, `/api/sources`, `/api/export` and `/api/stats`; and
//! an export restored into an empty mind (`hive-mind restore`).
//! Exporting and restoring a whole mind are the owner's work (`admin`);
//! the counts name only the minds their caller reaches.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_admin::{ExportFormat, MindStatus, RestoreReport};
use hive_mind_runtime::engine::wit_harvest::HarvestSource;
use hive_mind_runtime::engine::wit_types::{Frame, FrameRef, Mind};

use serde::Deserialize;

use super::{Access, Caller, ListRequest, MindRequest, OpError, Operation, capped, read_mind};
use crate::tokens::Scope;

/// One memory by reference.
pub struct GetMemory {
    /// The memory.
    pub memory: FrameRef,
}

impl Operation for GetMemory {
    type Output = Frame;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.memory.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Frame, OpError> {
        engine
            .admin()
            .get_frames(std::slice::from_ref(&self.memory))?
            .pop()
            .ok_or_else(|| {
                OpError::NotFound(format!("no memory {}", convert::ref_name(&self.memory)))
            })
    }
}

/// A mind's newest memories, newest first.
pub struct RecentMemories {
    /// Whose.
    pub mind: Mind,
    /// The most listed.
    pub limit: u32,
}

impl RecentMemories {
    /// The listing `request` asks for.
    pub fn new(request: &ListRequest) -> Result<RecentMemories, OpError> {
        Ok(RecentMemories {
            mind: request.mind()?,
            limit: request.limit(),
        })
    }
}

impl Operation for RecentMemories {
    type Output = Vec<Frame>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<Frame>, OpError> {
        Ok(engine.admin().recent_frames(&self.mind, self.limit)?)
    }
}

/// The status (counts, embedder, chunk plan, notes) of every mind the
/// caller reaches.
pub struct Stats {
    /// Who asks: only the minds it reaches are listed.
    pub caller: Caller,
}

impl Operation for Stats {
    type Output = Vec<MindStatus>;

    /// A read of no mind in particular: any token may ask, and learns only
    /// of what it reaches.
    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on_all(Scope::Read, Vec::new()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<MindStatus>, OpError> {
        Ok(engine
            .admin()
            .status()?
            .into_iter()
            .filter(|status| self.caller.reaches(&status.mind))
            .collect())
    }
}

/// The sources imported into a mind.
pub struct Sources {
    /// Whose.
    pub mind: Mind,
}

impl Sources {
    /// The sources of the mind `request` names.
    pub fn new(request: &MindRequest) -> Result<Sources, OpError> {
        Ok(Sources {
            mind: request.mind()?,
        })
    }
}

impl Operation for Sources {
    type Output = Vec<HarvestSource>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<HarvestSource>, OpError> {
        Ok(engine.harvest_sources(&self.mind)?)
    }
}

/// A mind to export, as every surface asks for it: `hive-mind export`
/// and `GET /api/export`.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::IntoParams, clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ExportRequest {
    /// Export this workspace's mind (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// `jsonl` (the restorable JSON Lines, default) or `markdown` (the
    /// memories by day, to read).
    #[arg(long)]
    pub format: Option<String>,
}

/// A whole mind as lines: JSON Lines (restorable) or Markdown.
pub struct Export {
    /// Whose.
    pub mind: Mind,
    /// Which form.
    pub format: ExportFormat,
}

impl Export {
    /// The export `request` asks for.
    pub fn new(request: &ExportRequest) -> Result<Export, OpError> {
        let format = match request.format.as_deref().map(str::trim) {
            None | Some("jsonl") => ExportFormat::JsonLines,
            Some("markdown") => ExportFormat::Markdown,
            Some(other) => {
                return Err(OpError::Argument {
                    name: "format",
                    why: format!("unknown format {other:?}: expected jsonl or markdown"),
                });
            }
        };
        capped(&[("workspace", request.workspace.as_ref())])?;
        Ok(Export {
            mind: read_mind(request.workspace.as_deref())?,
            format,
        })
    }
}

impl Operation for Export {
    type Output = Vec<String>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on(Scope::Admin, self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<String>, OpError> {
        Ok(engine.admin().export_mind(&self.mind, self.format)?)
    }
}

/// Restore an export (its JSON Lines) into an empty mind, every line
/// checked before one transaction writes it. The owner's work (`admin`);
/// a workspace's mind is made by the restore.
pub struct Restore {
    /// Into which mind.
    pub mind: Mind,
    /// The export's lines.
    pub lines: Vec<String>,
}

impl Operation for Restore {
    type Output = RestoreReport;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on(Scope::Admin, self.mind.clone()).creating())
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<RestoreReport, OpError> {
        Ok(engine.admin().restore_mind(&self.mind, &self.lines)?)
    }
}
