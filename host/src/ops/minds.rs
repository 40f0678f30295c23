//! Reading a mind as it is stored: one memory by reference, the sources
//! imported into it, the whole mind exported. One request each for the
//! CLI (`get`, `sources`, `export`), MCP `harvest_sources` and the REST
//! routes `GET /api/memories/{ref}`, `/api/sources`, `/api/export`.
//! Exporting a whole mind is the owner's work (`admin`).

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_admin::ExportFormat;
use hive_mind_runtime::engine::wit_harvest::HarvestSource;
use hive_mind_runtime::engine::wit_types::{Frame, FrameRef, Mind};

use super::{Access, OpError, Operation};
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

/// The sources imported into a mind.
pub struct Sources {
    /// Whose.
    pub mind: Mind,
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

/// A whole mind as lines: JSON Lines (restorable) or Markdown.
pub struct Export {
    /// Whose.
    pub mind: Mind,
    /// Which form.
    pub format: ExportFormat,
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
