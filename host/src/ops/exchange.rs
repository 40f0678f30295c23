//! Learn from an exchange (cognify): one request for MCP
//! `remember_exchange`, `POST /api/exchanges` and the hooks' end of a turn.
//!
//! The exchange is given (the user's message and the answer) or read by
//! the engine from a transcript's tail (`harvest.last-exchange`). Cognify
//! writes what is about the person to the personal mind and the work to
//! the active workspace's, so the request declares both.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_harvest::SourceFormat;
use hive_mind_runtime::engine::wit_memory::{ExchangeOptions, SavedMemory};
use hive_mind_runtime::engine::wit_types::Mind;

use super::{Access, OpError, Operation, capped};
use crate::tokens::Scope;

/// What an exchange request names.
#[derive(Debug, Clone)]
pub enum ExchangeSource {
    /// The exchange itself.
    Given {
        /// The user's message.
        user: String,
        /// The assistant's answer.
        assistant: String,
    },
    /// The tail of a Claude Code session transcript, whose last exchange
    /// the engine reads.
    Transcript(String),
}

/// A validated exchange to learn from.
pub struct Exchange {
    source: ExchangeSource,
    workspace: Option<Mind>,
    options: ExchangeOptions,
    makes_mind: bool,
}

impl Exchange {
    /// The exchange of `source` in `workspace` (none: the personal mind
    /// alone), in `session`. With `makes_mind`, a workspace's first
    /// exchange makes its mind (REST, the hooks); without, it must exist
    /// (MCP).
    pub fn new(
        source: ExchangeSource,
        workspace: Option<Mind>,
        session: Option<String>,
        succeeded: bool,
        makes_mind: bool,
    ) -> Result<Exchange, OpError> {
        match &source {
            ExchangeSource::Given { user, assistant } => {
                capped(&[("user", Some(user)), ("assistant", Some(assistant))])?;
            }
            ExchangeSource::Transcript(tail) => capped(&[("transcript", Some(tail))])?,
        }
        capped(&[("session", session.as_ref())])?;
        let workspace = workspace.filter(|mind| matches!(mind, Mind::Workspace(_)));
        Ok(Exchange {
            options: ExchangeOptions {
                workspace: match &workspace {
                    Some(Mind::Workspace(id)) => Some(id.clone()),
                    _ => None,
                },
                gop_id: session,
                succeeded,
                occurred_at: None,
            },
            source,
            workspace,
            makes_mind,
        })
    }
}

impl Operation for Exchange {
    /// What was kept (nothing when a transcript's last question has no
    /// answer yet).
    type Output = Vec<SavedMemory>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        let mut minds: Vec<Mind> = self.workspace.iter().cloned().collect();
        minds.push(Mind::Personal);
        let access = Access::on_all(Scope::Write, minds);
        Ok(if self.makes_mind {
            access.creating()
        } else {
            access
        })
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<SavedMemory>, OpError> {
        let (user, assistant) = match self.source {
            ExchangeSource::Given { user, assistant } => (user, assistant),
            ExchangeSource::Transcript(tail) => {
                let Some(exchange) =
                    engine.harvest_last_exchange(SourceFormat::ClaudeCode, &tail)?
                else {
                    return Ok(Vec::new());
                };
                // Cut to the caps an exchange is held to: a refusal would
                // lose the turn.
                (
                    crate::limits::truncate_to("user", &exchange.user),
                    crate::limits::truncate_to("assistant", &exchange.assistant),
                )
            }
        };
        Ok(engine.remember_exchange(&user, &assistant, &self.options)?)
    }
}
