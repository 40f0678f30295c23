//! Forget for real: one request for `hive-mind forget`, MCP
//! `forget_memory` and `POST /api/forget`.
//!
//! Memories are named by reference (each names its mind) or selected by a
//! filter of one mind. Without `confirm` it is a dry run that lists exactly
//! what would be erased and only reads; erasure for real is the owner's
//! work, the `admin` scope.

use serde::Deserialize;

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_memory::{
    ForgetFilter, ForgetReport, ForgetRequest, ForgetSelector,
};
use hive_mind_runtime::engine::wit_types::Mind;

use super::{Access, OpError, Operation, capped};
use crate::tokens::Scope;

/// `forget_memory`'s arguments: memories by reference, or a filter (also
/// the body of the server's `POST /api/forget`). Unknown fields are
/// refused: a misspelt `workspace` must not send an erasure to the personal
/// mind.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::ToSchema, clap::Args,
)]
#[serde(deny_unknown_fields)]
pub struct ForgetMemoryRequest {
    /// The memories to forget, by reference as recall shows them
    /// (`personal:42`, `workspace:acme:7`). Give these or a filter.
    pub memories: Option<Vec<String>>,
    /// Filter: every word of this text is in the memory.
    #[arg(long)]
    pub matching: Option<String>,
    /// Filter: the memory's event day is on or after this day (YYYY-MM-DD).
    #[arg(long)]
    pub since: Option<String>,
    /// Filter: the memory's event day is on or before this day.
    #[arg(long)]
    pub until: Option<String>,
    /// Filter: the memory was learned (written into the mind, UTC) on or
    /// after this day (YYYY-MM-DD), whenever what it tells happened.
    #[arg(long)]
    pub learned_since: Option<String>,
    /// Filter: the memory was learned on or before this day (UTC).
    #[arg(long)]
    pub learned_until: Option<String>,
    /// Filter: imported from this harvest format (chatgpt, claude, …).
    #[arg(long)]
    pub harvest_format: Option<String>,
    /// Filter: a section of this imported document (its key).
    #[arg(long)]
    pub document: Option<String>,
    /// The workspace a filter applies to (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// Why, kept in the erasure log (do not quote what is forgotten).
    #[arg(long)]
    pub reason: Option<String>,
    /// Erase for good. Without it (the default) nothing changes: the answer
    /// lists exactly what would be erased.
    #[arg(long = "yes", alias = "confirm")]
    #[serde(default)]
    pub confirm: bool,
}

/// A validated forget.
pub struct ForgetOperation {
    request: ForgetRequest,
}

impl ForgetOperation {
    /// The request validated: references or a filter, never both.
    pub fn new(args: &ForgetMemoryRequest) -> Result<ForgetOperation, OpError> {
        capped(&[
            ("query", args.matching.as_ref()),
            ("since", args.since.as_ref()),
            ("until", args.until.as_ref()),
            ("learned_since", args.learned_since.as_ref()),
            ("learned_until", args.learned_until.as_ref()),
            ("harvest_format", args.harvest_format.as_ref()),
            ("document", args.document.as_ref()),
            ("workspace", args.workspace.as_ref()),
            ("reason", args.reason.as_ref()),
        ])?;
        let has_filter = args.matching.is_some()
            || args.since.is_some()
            || args.until.is_some()
            || args.learned_since.is_some()
            || args.learned_until.is_some()
            || args.harvest_format.is_some()
            || args.document.is_some();
        let memories = args.memories.as_deref().unwrap_or_default();
        let selector = match (memories.is_empty(), has_filter) {
            (false, false) => {
                if args.workspace.is_some() {
                    return Err(OpError::Invalid(
                        "workspace applies to a filter; a reference names its mind (workspace:ID:N)"
                            .to_string(),
                    ));
                }
                ForgetSelector::Memories(
                    memories
                        .iter()
                        .map(|name| convert::ref_in(name))
                        .collect::<Result<_, _>>()
                        .map_err(|why| OpError::Argument {
                            name: "memories",
                            why,
                        })?,
                )
            }
            (true, true) => ForgetSelector::Matching(ForgetFilter {
                mind: match args.workspace.as_deref() {
                    Some(id) => convert::workspace(id).map_err(|why| OpError::Argument {
                        name: "workspace",
                        why,
                    })?,
                    None => Mind::Personal,
                },
                text: args.matching.clone(),
                since: args.since.clone(),
                until: args.until.clone(),
                learned_since: args.learned_since.clone(),
                learned_until: args.learned_until.clone(),
                harvest_format: args.harvest_format.clone(),
                document: args.document.clone(),
            }),
            (false, true) => {
                return Err(OpError::Invalid(
                    "name memories or give a filter, not both".to_string(),
                ));
            }
            (true, false) => {
                return Err(OpError::Invalid(
                    "name the memories to forget (personal:42 …) or give a filter (matching, since, until, learned_since, learned_until, harvest_format, document)"
                        .to_string(),
                ));
            }
        };
        Ok(ForgetOperation {
            request: ForgetRequest {
                selector,
                reason: args.reason.clone(),
                dry_run: !args.confirm,
            },
        })
    }
}

impl Operation for ForgetOperation {
    type Output = ForgetReport;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        let minds = match &self.request.selector {
            ForgetSelector::Memories(refs) => refs.iter().map(|frame| frame.mind.clone()).collect(),
            ForgetSelector::Matching(filter) => vec![filter.mind.clone()],
        };
        // A dry run only reads; erasure for real is the owner's.
        let scope = if self.request.dry_run {
            Scope::Read
        } else {
            Scope::Admin
        };
        Ok(Access::on_all(scope, minds))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<ForgetReport, OpError> {
        Ok(engine.forget(&self.request)?)
    }
}
