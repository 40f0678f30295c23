//! A mind's awareness: what the agent is working on (at most ten live
//! items a mind), pasted into the context of every recall that reads the
//! mind.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_admin::{AwarenessAdded, AwarenessCategory, AwarenessItem};
use hive_mind_runtime::engine::wit_types::Mind;

use serde::Deserialize;

use super::{Access, MindRequest, OpError, Operation, WritePolicy, capped};

/// A mind's live items, highest priority first.
pub struct ListAwareness {
    /// Whose.
    pub mind: Mind,
}

impl ListAwareness {
    /// The items of the mind `request` names.
    pub fn new(request: &MindRequest) -> Result<ListAwareness, OpError> {
        Ok(ListAwareness {
            mind: request.mind()?,
        })
    }
}

impl Operation for ListAwareness {
    type Output = Vec<AwarenessItem>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<AwarenessItem>, OpError> {
        Ok(engine.admin().list_awareness(&self.mind)?)
    }
}

/// An awareness item to add, as every surface sends it (MCP
/// `set_awareness`, `POST /api/awareness`).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddAwarenessRequest {
    /// task, action, pending or flag.
    pub category: String,
    /// What it says.
    pub content: String,
    /// Higher comes first (default 0).
    pub priority: Option<i64>,
    /// When it stops being live (ISO-8601).
    pub expires_at: Option<String>,
    /// When ten items are live, evict the lowest-priority one instead of
    /// refusing.
    pub evict: Option<bool>,
    /// The workspace (it must exist, unless the surface makes minds).
    pub workspace: Option<String>,
    /// "personal" or "workspace", to say explicitly which mind is meant.
    pub mind: Option<String>,
}

/// Add an item.
pub struct AddAwareness {
    mind: Mind,
    category: AwarenessCategory,
    content: String,
    priority: i64,
    expires_at: Option<i64>,
    evict: bool,
}

impl AddAwareness {
    /// The request, each argument checked, its mind resolved under the
    /// surface's `policy`.
    pub fn new(request: AddAwarenessRequest, policy: WritePolicy) -> Result<AddAwareness, OpError> {
        capped(&[
            ("content", Some(&request.content)),
            ("category", Some(&request.category)),
            ("expires_at", request.expires_at.as_ref()),
            ("workspace", request.workspace.as_ref()),
            ("mind", request.mind.as_ref()),
        ])?;
        let mind = policy.mind(request.mind.as_deref(), request.workspace.as_deref())?;
        let category = convert::name_in::<AwarenessCategory>("category", request.category.trim())
            .map_err(OpError::Invalid)?;
        let expires_at = request
            .expires_at
            .as_deref()
            .map(convert::timestamp_in)
            .transpose()
            .map_err(|why| OpError::Invalid(format!("expires_at: {why}")))?;
        Ok(AddAwareness {
            mind,
            category,
            content: request.content,
            priority: request.priority.unwrap_or(0),
            expires_at,
            evict: request.evict.unwrap_or(false),
        })
    }
}

impl Operation for AddAwareness {
    type Output = AwarenessAdded;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<AwarenessAdded, OpError> {
        Ok(engine.admin().add_awareness(
            &self.mind,
            self.category,
            &self.content,
            self.priority,
            self.expires_at,
            self.evict,
        )?)
    }
}

/// Awareness items to remove, as every surface names them (MCP
/// `clear_awareness`, `DELETE /api/awareness`): one by `id`, or all.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ClearAwarenessRequest {
    /// The item to remove.
    pub id: Option<u64>,
    /// Remove every live item.
    pub all: Option<bool>,
    /// The workspace (it must exist).
    pub workspace: Option<String>,
    /// "personal" or "workspace", to say explicitly which mind is meant.
    pub mind: Option<String>,
}

/// Remove one item, or every live one.
pub struct RemoveAwareness {
    mind: Mind,
    /// The item; none: all of them.
    id: Option<u64>,
}

impl RemoveAwareness {
    /// The request: an `id`, or `all`; its mind resolved under the
    /// surface's `policy`.
    pub fn new(
        request: &ClearAwarenessRequest,
        policy: WritePolicy,
    ) -> Result<RemoveAwareness, OpError> {
        capped(&[
            ("workspace", request.workspace.as_ref()),
            ("mind", request.mind.as_ref()),
        ])?;
        let mind = policy.mind(request.mind.as_deref(), request.workspace.as_deref())?;
        match (request.id, request.all.unwrap_or(false)) {
            (Some(id), false) => Ok(RemoveAwareness { mind, id: Some(id) }),
            (None, true) => Ok(RemoveAwareness { mind, id: None }),
            (Some(_), true) => Err(OpError::Invalid(
                "name one item (id) or all of them (all=true), not both".to_string(),
            )),
            (None, false) => Err(OpError::Invalid(
                "name the item to remove (id), or pass all=true".to_string(),
            )),
        }
    }
}

impl Operation for RemoveAwareness {
    /// The ids removed.
    type Output = Vec<u64>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<u64>, OpError> {
        let mut admin = engine.admin();
        let ids: Vec<u64> = match self.id {
            Some(id) => vec![id],
            None => admin
                .list_awareness(&self.mind)?
                .iter()
                .map(|item| item.id)
                .collect(),
        };
        let removed = admin.remove_awareness(&self.mind, &ids)?;
        match self.id {
            Some(id) if removed == 0 => {
                Err(OpError::NotFound(format!("no live awareness item {id}")))
            }
            _ => Ok(ids),
        }
    }
}
