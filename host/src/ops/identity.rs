//! A mind's identity: who the agent is, pasted into every recall's context
//! of that mind.
//!
//! Each mind has its own identity: the personal mind's is the owner's
//! agent; a workspace's is the agent of that project (its role, its
//! standing instructions), so a token for one workspace gives its agents
//! an identity without reaching the owner's. A recall's context takes the
//! identity of the first mind it reads that has one (the workspace first).
//! The request names its mind once, and that mind is both what the grant
//! is checked against and what is read or written.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_admin::Identity;
use hive_mind_runtime::engine::wit_types::Mind;

use serde::Deserialize;

use super::{Access, MindRequest, OpError, Operation, WritePolicy, capped};

/// Read a mind's identity.
pub struct GetIdentity {
    /// Whose.
    pub mind: Mind,
}

impl GetIdentity {
    /// The identity of the mind `request` names.
    pub fn new(request: &MindRequest) -> Result<GetIdentity, OpError> {
        Ok(GetIdentity {
            mind: request.mind()?,
        })
    }
}

impl Operation for GetIdentity {
    type Output = Option<Identity>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Option<Identity>, OpError> {
        Ok(engine.admin().get_identity(&self.mind)?)
    }
}

/// A mind's identity to set, as every surface sends it (MCP
/// `set_identity`, `PATCH /api/identity`): a field left out keeps its
/// value.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetIdentityRequest {
    /// The workspace whose identity to set (default: the personal mind's).
    pub workspace: Option<String>,
    /// `personal` or `workspace` (must agree with `workspace`).
    pub mind: Option<String>,
    /// The agent's name.
    pub name: Option<String>,
    /// Its role.
    pub role: Option<String>,
    /// Its personality, in prose.
    pub personality: Option<String>,
    /// What it can do, in prose.
    pub capabilities: Option<String>,
    /// Standing instructions.
    pub system_prompt: Option<String>,
}

/// Set some or all of a mind's identity (the engine screens each field
/// and refuses a hostile one).
pub struct SetIdentity {
    /// Whose.
    mind: Mind,
    /// What changes.
    fields: SetIdentityRequest,
}

impl SetIdentity {
    /// The request, its fields within their caps, its mind resolved under
    /// the surface's `policy`.
    pub fn new(request: SetIdentityRequest, policy: WritePolicy) -> Result<SetIdentity, OpError> {
        capped(&[
            ("workspace", request.workspace.as_ref()),
            ("mind", request.mind.as_ref()),
            ("name", request.name.as_ref()),
            ("role", request.role.as_ref()),
            ("personality", request.personality.as_ref()),
            ("capabilities", request.capabilities.as_ref()),
            ("system_prompt", request.system_prompt.as_ref()),
        ])?;
        let mind = policy.mind(request.mind.as_deref(), request.workspace.as_deref())?;
        Ok(SetIdentity {
            mind,
            fields: request,
        })
    }
}

impl Operation for SetIdentity {
    type Output = Identity;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Identity, OpError> {
        let mut admin = engine.admin();
        let mut identity = admin.get_identity(&self.mind)?.unwrap_or(Identity {
            name: String::new(),
            role: String::new(),
            personality: String::new(),
            capabilities: String::new(),
            system_prompt: String::new(),
            updated_at: None,
        });
        let SetIdentityRequest {
            name,
            role,
            personality,
            capabilities,
            system_prompt,
            ..
        } = self.fields;
        for (field, value) in [
            (&mut identity.name, name),
            (&mut identity.role, role),
            (&mut identity.personality, personality),
            (&mut identity.capabilities, capabilities),
            (&mut identity.system_prompt, system_prompt),
        ] {
            if let Some(value) = value {
                *field = value;
            }
        }
        // Set anew by the engine.
        identity.updated_at = None;
        Ok(admin.set_identity(&self.mind, &identity)?)
    }
}
