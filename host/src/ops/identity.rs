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

use super::{Access, OpError, Operation, capped};

/// Read a mind's identity.
pub struct GetIdentity {
    /// Whose.
    pub mind: Mind,
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

/// The identity's fields to set; a field left out keeps its value.
#[derive(Debug, Clone, Default)]
pub struct IdentityFields {
    /// Its name.
    pub name: Option<String>,
    /// Its role.
    pub role: Option<String>,
    /// Its personality.
    pub personality: Option<String>,
    /// What it can do.
    pub capabilities: Option<String>,
    /// Standing instructions.
    pub system_prompt: Option<String>,
}

/// Set some or all of a mind's identity (the engine screens each field
/// and refuses a hostile one).
pub struct SetIdentity {
    /// Whose.
    pub mind: Mind,
    /// What changes.
    pub fields: IdentityFields,
}

impl SetIdentity {
    /// The request, its fields within their caps.
    pub fn new(mind: Mind, fields: IdentityFields) -> Result<SetIdentity, OpError> {
        capped(&[
            ("name", fields.name.as_ref()),
            ("role", fields.role.as_ref()),
            ("personality", fields.personality.as_ref()),
            ("capabilities", fields.capabilities.as_ref()),
            ("system_prompt", fields.system_prompt.as_ref()),
        ])?;
        Ok(SetIdentity { mind, fields })
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
        let IdentityFields {
            name,
            role,
            personality,
            capabilities,
            system_prompt,
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
