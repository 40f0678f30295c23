//! # The operations layer: one request per operation, authorized once
//!
//! The CLI, the MCP tools, the REST routes and the hooks are adapters: each
//! turns what its caller sent (flags, tool arguments, a query string and a
//! body) into the operation's typed request here, and hands it to
//! [`execute`] with the [`Caller`] it serves: nothing reaches the engine on
//! a caller's behalf around it. (An import, which the runtime's loop runs
//! step by step, is judged here and handed back admitted: [`import`].)
//!
//! A request is **resolved** before it is judged: its minds are
//! [`Mind`] values (a reference's mind, a `workspace` argument, a recall
//! scope the engine expands with `recall-minds`), never argument names.
//! [`Operation::access`] declares from those values what the request
//! reads and writes and the [`Scope`] it needs; [`execute`] checks it
//! against the caller's grant, then that every workspace it names exists,
//! then runs the request on exactly the minds it declared. A tool that
//! ignored an argument the check read (the old MCP `set_identity` with an
//! extra `workspace` wrote the personal mind) cannot happen: the check and
//! the write read the same value.
//!
//! Refusals never name a mind the caller did not name: an unknown
//! workspace is "no mind `workspace:x`", never the list of the others.
//!
//! - [`recall`] — recall, its options validated and bounded once.
//! - [`save`] — save one memory.
//! - [`exchange`] — learn from an exchange (cognify).
//! - [`forget`] — erasure for real (a dry run unless confirmed).
//! - [`review`] — corrections and the owner's review: correct, history,
//!   archive/pin/tag, merge, trace, the quarantine, sessions.
//! - [`graph`] — the knowledge graph: read, entities saved and related.
//! - [`cleanup`] — a mind kept tidy: dead-weight memories, the graph's
//!   noise and duplicates.
//! - [`workspaces`] — the workspaces a caller reaches, a workspace created.
//! - [`import`] — an import judged before the runtime's loop runs it.
//! - [`minds`] — a memory by reference, a mind's sources, a mind exported.
//! - [`identity`] — a mind's identity, read and set (each mind has its own).
//! - [`awareness`] — a mind's awareness items.
//! - [`wiki`] — the wiki of a mind: its pages, a search, the health report.

pub mod awareness;
pub mod cleanup;
pub mod exchange;
pub mod forget;
pub mod graph;
pub mod identity;
pub mod import;
pub mod minds;
pub mod recall;
pub mod review;
pub mod save;
pub mod wiki;
pub mod workspaces;

use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_types::Mind;
use hive_mind_runtime::engine::{EngineError, EngineRuntime};

use crate::tokens::{Grant, Scope};

/// Who a request is served for.
#[derive(Debug, Clone)]
pub enum Caller {
    /// The owner at their own machine: the CLI, MCP over stdio, a hook
    /// working alone. Reaches every mind with every scope.
    Owner,
    /// A bearer token's holder (the server): what its [`Grant`] allows.
    Token(Grant),
}

impl Caller {
    /// The caller of a request with this grant (none: the owner).
    pub fn of(grant: Option<Grant>) -> Caller {
        grant.map_or(Caller::Owner, Caller::Token)
    }

    /// Whether the caller reaches `mind`.
    pub fn reaches(&self, mind: &Mind) -> bool {
        match self {
            Caller::Owner => true,
            Caller::Token(grant) => grant.reaches(&convert::mind_name(mind)),
        }
    }

    /// Refuse what `access` needs beyond the caller's grant.
    pub fn authorize(&self, access: &Access) -> Result<(), OpError> {
        let Caller::Token(grant) = self else {
            return Ok(());
        };
        let minds: Vec<String> = access.minds.iter().map(convert::mind_name).collect();
        grant
            .require(access.scope, &minds)
            .map_err(OpError::Forbidden)
    }
}

/// What a resolved request reads and writes, and the scope it needs.
#[derive(Debug, Clone)]
pub struct Access {
    /// The most it does: read, write, or the owner's admin work.
    pub scope: Scope,
    /// Every mind it reads or writes.
    pub minds: Vec<Mind>,
    /// The workspaces among `minds` must exist (a read of a missing one
    /// would answer as if it were empty; a write would create it).
    pub existing: bool,
}

impl Access {
    /// `scope` on one existing mind.
    pub fn on(scope: Scope, mind: Mind) -> Access {
        Access::on_all(scope, vec![mind])
    }

    /// `scope` on existing minds.
    pub fn on_all(scope: Scope, minds: Vec<Mind>) -> Access {
        Access {
            scope,
            minds,
            existing: true,
        }
    }

    /// A read of `mind`.
    pub fn read(mind: Mind) -> Access {
        Access::on(Scope::Read, mind)
    }

    /// A write to `mind`.
    pub fn write(mind: Mind) -> Access {
        Access::on(Scope::Write, mind)
    }

    /// The same, without asking that the minds exist (an import or a
    /// workspace's creation makes the mind).
    pub fn creating(mut self) -> Access {
        self.existing = false;
        self
    }
}

/// Why an operation was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// A malformed request: the message says what and why.
    #[error("{0}")]
    Invalid(String),
    /// One named argument is malformed (each surface spells the name its
    /// own way: `--as-of` on the command line, `as_of` elsewhere).
    #[error("{name}: {why}")]
    Argument {
        /// The argument's name (snake_case).
        name: &'static str,
        /// Why.
        why: String,
    },
    /// Beyond the caller's grant.
    #[error("{0}")]
    Forbidden(String),
    /// A mind or item the caller named is not there.
    #[error("{0}")]
    NotFound(String),
    /// The engine refused or failed (its typed case decides which).
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// One operation's resolved request.
pub trait Operation {
    /// What it answers.
    type Output;

    /// What it reads and writes (the engine may be asked how a request
    /// resolves: the minds a recall's scope reaches).
    fn access(&self, engine: &mut EngineRuntime) -> Result<Access, OpError>;

    /// Run it (authorized, its minds there).
    fn run(self, engine: &mut EngineRuntime) -> Result<Self::Output, OpError>;
}

/// Authorize `operation` for `caller`, check that the workspaces it names
/// exist, then run it.
pub fn execute<O: Operation>(
    engine: &mut EngineRuntime,
    caller: &Caller,
    operation: O,
) -> Result<O::Output, OpError> {
    let access = operation.access(engine)?;
    authorize_on(engine, caller, &access)?;
    operation.run(engine)
}

/// Authorize `access` for `caller` and check that its workspaces exist:
/// the gate of [`execute`].
fn authorize_on(
    engine: &mut EngineRuntime,
    caller: &Caller,
    access: &Access,
) -> Result<(), OpError> {
    caller.authorize(access)?;
    if access.existing {
        require_minds(engine, &access.minds)?;
    }
    Ok(())
}

/// Refuse a workspace mind that is not in the data directory, naming only
/// that mind.
pub fn require_minds(engine: &mut EngineRuntime, minds: &[Mind]) -> Result<(), OpError> {
    let workspaces: Vec<&Mind> = minds
        .iter()
        .filter(|mind| matches!(mind, Mind::Workspace(_)))
        .collect();
    if workspaces.is_empty() {
        return Ok(());
    }
    let known: Vec<String> = engine
        .admin()
        .list_minds()?
        .iter()
        .map(convert::mind_name)
        .collect();
    for mind in workspaces {
        if !known.contains(&convert::mind_name(mind)) {
            let id = match mind {
                Mind::Workspace(id) => id.as_str(),
                Mind::Personal => "personal",
            };
            return Err(OpError::NotFound(format!(
                "unknown workspace {id:?}: no mind {:?} in this data directory (create_workspace or a first write makes one)",
                convert::mind_name(mind)
            )));
        }
    }
    Ok(())
}

/// A mind by its name (`personal`, `workspace:<id>`).
pub fn resolve_mind_name(name: &str) -> Result<Mind, OpError> {
    match name.strip_prefix("workspace:") {
        Some(id) => convert::workspace(id).map_err(OpError::Invalid),
        None if name == "personal" => Ok(Mind::Personal),
        None => Err(OpError::Invalid(format!("unknown mind {name:?}"))),
    }
}

/// The mind of a read: `workspace` names one, else the personal mind.
pub fn read_mind(workspace: Option<&str>) -> Result<Mind, OpError> {
    match workspace.map(str::trim).filter(|id| !id.is_empty()) {
        None => Ok(Mind::Personal),
        Some(id) => convert::workspace(id).map_err(OpError::Invalid),
    }
}

/// The mind of a write: `mind` (`personal` or `workspace`) and
/// `workspace` must agree; with `mind` absent, `workspace` decides (none:
/// the personal mind) unless `explicit`, where a write must name its mind.
pub fn write_mind(
    mind: Option<&str>,
    workspace: Option<&str>,
    explicit: bool,
) -> Result<Mind, OpError> {
    let workspace = workspace.map(str::trim).filter(|id| !id.is_empty());
    match (mind.map(str::trim), workspace) {
        (None, _) if explicit => Err(OpError::Invalid(
            "a write names its mind: mind=personal, or mind=workspace with workspace=<id>"
                .to_string(),
        )),
        (None | Some("personal"), None) => Ok(Mind::Personal),
        (None | Some("workspace"), Some(id)) => convert::workspace(id).map_err(OpError::Invalid),
        (Some("personal"), Some(id)) => Err(OpError::Invalid(format!(
            "ambiguous mind: mind is \"personal\" but workspace {id:?} is given; drop one"
        ))),
        (Some("workspace"), None) => Err(OpError::Invalid(
            "mind is \"workspace\" but no workspace is named; pass workspace".to_string(),
        )),
        (Some(other), _) => Err(OpError::Invalid(format!(
            "unknown mind {other:?}: expected \"personal\" or \"workspace\""
        ))),
    }
}

/// A read of one mind, as every surface names it: `workspace`, else the
/// personal mind (MCP `get_identity`, `get_awareness`; `GET
/// /api/identity`, `GET /api/awareness`).
#[derive(
    Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema, utoipa::IntoParams, clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct MindRequest {
    /// The workspace (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
}

impl MindRequest {
    /// The mind it names.
    pub fn mind(&self) -> Result<Mind, OpError> {
        capped(&[("workspace", self.workspace.as_ref())])?;
        read_mind(self.workspace.as_deref())
    }
}

/// A listing of one mind, as every surface asks for it: `workspace` (else
/// the personal mind) and at most `limit` items (MCP `list_sessions`; `GET
/// /api/memories`, `/api/sessions`, `/api/sources`, `/api/flagged`;
/// `hive-mind review sessions`, `flagged`).
#[derive(
    Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema, utoipa::IntoParams, clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListRequest {
    /// The workspace (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// At most this many (default 50, at most 500).
    #[arg(long)]
    pub limit: Option<u32>,
}

impl ListRequest {
    /// The items listed when no limit is given.
    pub const DEFAULT_LIMIT: u32 = 50;
    /// The most items one listing returns.
    pub const MAX_LIMIT: u32 = 500;

    /// The mind it names.
    pub fn mind(&self) -> Result<Mind, OpError> {
        capped(&[("workspace", self.workspace.as_ref())])?;
        read_mind(self.workspace.as_deref())
    }

    /// The most items, within the bound.
    pub fn limit(&self) -> u32 {
        self.limit
            .unwrap_or(Self::DEFAULT_LIMIT)
            .clamp(1, Self::MAX_LIMIT)
    }
}

/// How a surface's writes name their mind: the one rule that differs
/// between surfaces, stated once per surface.
#[derive(Debug, Clone, Copy)]
pub struct WritePolicy {
    /// A write must say `mind` (HTTP clients: a write never picks a mind
    /// for them); otherwise `workspace` alone decides, none meaning the
    /// personal mind.
    pub named: bool,
    /// A workspace's first write makes its mind (the owner's CLI, HTTP);
    /// without, the workspace must exist (MCP, where an agent's misspelt
    /// workspace must not make a mind).
    pub makes_mind: bool,
}

impl WritePolicy {
    /// The owner's command line.
    pub const COMMAND_LINE: WritePolicy = WritePolicy {
        named: false,
        makes_mind: true,
    };
    /// MCP tools, called by agents.
    pub const AGENT: WritePolicy = WritePolicy {
        named: false,
        makes_mind: false,
    };
    /// The HTTP API.
    pub const HTTP: WritePolicy = WritePolicy {
        named: true,
        makes_mind: true,
    };

    /// The mind of a write under this policy ([`write_mind`]).
    pub fn mind(self, mind: Option<&str>, workspace: Option<&str>) -> Result<Mind, OpError> {
        write_mind(mind, workspace, self.named)
    }
}

/// Refuse an argument over its size cap ([`crate::limits`]).
pub fn capped(fields: &[(&str, Option<&String>)]) -> Result<(), OpError> {
    crate::limits::check_each(fields).map_err(|error| OpError::Invalid(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(scope: Scope, minds: &[&str]) -> Caller {
        Caller::Token(Grant {
            name: "t".to_string(),
            scope,
            minds: minds.iter().map(|mind| mind.to_string()).collect(),
        })
    }

    #[test]
    fn a_token_is_judged_on_the_resolved_minds() {
        let acme = Mind::Workspace("acme".to_string());
        let caller = token(Scope::Write, &["workspace:acme"]);
        assert!(caller.authorize(&Access::write(acme.clone())).is_ok());
        assert!(matches!(
            caller.authorize(&Access::write(Mind::Personal)),
            Err(OpError::Forbidden(_))
        ));
        assert!(matches!(
            caller.authorize(&Access::on_all(
                Scope::Read,
                vec![acme.clone(), Mind::Personal]
            )),
            Err(OpError::Forbidden(_))
        ));
        assert!(matches!(
            caller.authorize(&Access::on(Scope::Admin, acme)),
            Err(OpError::Forbidden(_))
        ));
        assert!(
            Caller::Owner
                .authorize(&Access::on_all(Scope::Admin, vec![Mind::Personal]))
                .is_ok()
        );
    }

    #[test]
    fn a_write_mind_is_named_once_and_never_ambiguously() {
        let name = |mind: Result<Mind, OpError>| mind.ok().map(|mind| convert::mind_name(&mind));
        assert_eq!(
            name(write_mind(None, None, false)).as_deref(),
            Some("personal")
        );
        assert_eq!(
            name(write_mind(None, Some("acme"), false)).as_deref(),
            Some("workspace:acme")
        );
        assert!(write_mind(None, None, true).is_err());
        assert!(write_mind(Some("personal"), Some("acme"), false).is_err());
        assert!(write_mind(Some("workspace"), None, false).is_err());
        assert!(write_mind(Some("elsewhere"), None, false).is_err());
    }
}
