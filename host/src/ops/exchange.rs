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

use serde::{Deserialize, Serialize};

use super::{Access, OpError, Operation, WritePolicy, capped};
use crate::tokens::Scope;

/// An exchange to learn from, as every surface sends it: the arguments
/// of MCP `remember_exchange`, the body of `POST /api/exchanges`, and what
/// the hooks send (to the server, or run here).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExchangeRequest {
    /// The user's message (with `assistant`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The assistant's answer (with `user`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant: Option<String>,
    /// Instead of `user` and `assistant`: a Claude Code session transcript
    /// (JSON Lines), or its end cut at any byte. The engine reads its last
    /// exchange; nothing is learned while the last question is unanswered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// The active workspace, where decisions and findings go (default:
    /// none, everything to the personal mind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The session (conversation) it belongs to, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Whether the turn succeeded (default true); nothing is learned
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub succeeded: Option<bool>,
}

/// What an exchange request names.
#[derive(Debug, Clone)]
enum ExchangeSource {
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
    /// The request validated: `user` and `assistant`, or a `transcript`;
    /// its workspace's mind made by its first exchange where the surface's
    /// `policy` says so.
    pub fn new(request: ExchangeRequest, policy: WritePolicy) -> Result<Exchange, OpError> {
        capped(&[
            ("user", request.user.as_ref()),
            ("assistant", request.assistant.as_ref()),
            ("transcript", request.transcript.as_ref()),
            ("session", request.session.as_ref()),
            ("workspace", request.workspace.as_ref()),
        ])?;
        let source = match (request.user, request.assistant, request.transcript) {
            (Some(user), Some(assistant), None) => ExchangeSource::Given { user, assistant },
            (None, None, Some(tail)) => ExchangeSource::Transcript(tail),
            _ => {
                return Err(OpError::Invalid(
                    "an exchange is `user` and `assistant`, or a `transcript`".to_string(),
                ));
            }
        };
        let workspace = match super::read_mind(request.workspace.as_deref())? {
            Mind::Workspace(id) => Some(id),
            Mind::Personal => None,
        };
        Ok(Exchange {
            options: ExchangeOptions {
                workspace: workspace.clone(),
                gop_id: request.session,
                succeeded: request.succeeded.unwrap_or(true),
                occurred_at: None,
            },
            source,
            workspace: workspace.map(Mind::Workspace),
            makes_mind: policy.makes_mind,
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
