//! The workspaces: listed for a caller, created, deleted. One request each
//! for MCP `list_workspaces` and `create_workspace` and `hive-mind review
//! delete-workspace`.
//!
//! A listing names only the workspaces its caller reaches (a token for one
//! workspace learns of no other), so the request carries its caller: what
//! it answers depends on who asks, and is decided here, not by a surface.
//! Creating a workspace writes its mind, which need not exist yet;
//! deleting one is the owner's work (`admin`), and a dry run unless
//! confirmed.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_review::WorkspaceDeletion;
use hive_mind_runtime::engine::wit_types::Mind;

use super::{Access, Caller, OpError, Operation};
use crate::tokens::Scope;

/// The workspace ids with a mind in the data directory, sorted.
pub fn workspace_ids(engine: &mut EngineRuntime) -> Result<Vec<String>, OpError> {
    let mut ids: Vec<String> = engine
        .admin()
        .list_minds()?
        .into_iter()
        .filter_map(|mind| match mind {
            Mind::Workspace(id) => Some(id),
            Mind::Personal => None,
        })
        .collect();
    ids.sort();
    Ok(ids)
}

/// The workspaces the caller reaches, sorted.
pub struct ListWorkspaces {
    /// Who asks: only what it reaches is named.
    pub caller: Caller,
}

impl Operation for ListWorkspaces {
    type Output = Vec<String>;

    /// A read of no mind in particular: any token may ask, and learns only
    /// of what it reaches.
    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on_all(Scope::Read, Vec::new()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<String>, OpError> {
        Ok(workspace_ids(engine)?
            .into_iter()
            .filter(|id| self.caller.reaches(&Mind::Workspace(id.clone())))
            .collect())
    }
}

/// MCP `create_workspace`'s request.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkspaceRequest {
    /// The workspace id (1-64 ASCII letters, digits, '-', '_' or '.').
    pub id: String,
}

/// Create a workspace's mind (creating one that exists is fine).
pub struct CreateWorkspace {
    /// Its id (1-64 ASCII letters, digits, `-`, `_` or `.`).
    id: String,
    /// Its mind.
    mind: Mind,
}

impl CreateWorkspace {
    /// The request, refused when the id is malformed.
    pub fn new(request: &CreateWorkspaceRequest) -> Result<CreateWorkspace, OpError> {
        let id = request.id.as_str();
        let mind = convert::workspace(id).map_err(OpError::Invalid)?;
        Ok(CreateWorkspace {
            id: id.to_string(),
            mind,
        })
    }
}

/// A workspace created, or found there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// Its id.
    pub id: String,
    /// Whether this request made it (false: it was there).
    pub created: bool,
}

impl Operation for CreateWorkspace {
    type Output = Workspace;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.mind.clone()).creating())
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Workspace, OpError> {
        let existed = workspace_ids(engine)?.contains(&self.id);
        engine.admin().create_workspace(&self.id)?;
        Ok(Workspace {
            id: self.id,
            created: !existed,
        })
    }
}

/// Delete a workspace's mind: what it holds, and with `confirm` the
/// deletion itself (the personal mind is never deleted).
pub struct DeleteWorkspace {
    /// Its id, as the engine reads it.
    id: String,
    /// Its mind.
    mind: Mind,
    /// Delete it; false only says what would go.
    confirm: bool,
}

impl DeleteWorkspace {
    /// The request for workspace `id` (a dry run unless `confirm`),
    /// refused when the id is malformed.
    pub fn new(id: &str, confirm: bool) -> Result<DeleteWorkspace, OpError> {
        let mind = convert::workspace(id).map_err(OpError::Invalid)?;
        Ok(DeleteWorkspace {
            id: id.to_string(),
            mind,
            confirm,
        })
    }
}

impl Operation for DeleteWorkspace {
    type Output = WorkspaceDeletion;

    /// The owner's work on the workspace's mind. Whether it is there is the
    /// engine's to answer (its error says so), so it is not asked first.
    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::on(Scope::Admin, self.mind.clone()).creating())
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<WorkspaceDeletion, OpError> {
        Ok(engine.review().delete_workspace(&self.id, !self.confirm)?)
    }
}
