//! Identity: who the agent is — one row per mind (`CHECK (id = 1)`), injected
//! into the prompt by the guest, never a frame. The guest reads it from the
//! personal mind only (the cross-workspace rule is the guest's).

use crate::sql::{OptionalExtension, params};
use serde::Serialize;

use super::MindStore;
use super::clock::now;
use super::error::StoreResult;

/// The agent's identity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Identity {
    /// Its name.
    pub name: String,
    /// Its role.
    pub role: String,
    /// Its personality, in prose.
    pub personality: String,
    /// What it can do, in prose.
    pub capabilities: String,
    /// Standing instructions.
    pub system_prompt: String,
    /// When it was last set (UTC; set by the store).
    pub updated_at: String,
}

impl MindStore {
    /// The identity, if one was ever set.
    pub fn identity(&self) -> StoreResult<Option<Identity>> {
        Ok(self
            .conn
            .query_row(
                "SELECT name, role, personality, capabilities, system_prompt, updated_at
                 FROM identity WHERE id = 1",
                [],
                |row| {
                    Ok(Identity {
                        name: row.get(0)?,
                        role: row.get(1)?,
                        personality: row.get(2)?,
                        capabilities: row.get(3)?,
                        system_prompt: row.get(4)?,
                        updated_at: row.get(5)?,
                    })
                },
            )
            .optional()?)
    }

    /// Replace the identity (its `updated_at` is ignored and set to now).
    /// Each field is screened by the injection detector first, and a
    /// hostile one refuses the whole write, naming the field, the score and
    /// the reasons ([`super::screen_or_refuse`]).
    pub fn set_identity(&mut self, identity: &Identity) -> StoreResult<Identity> {
        for (field, text) in [
            ("name", &identity.name),
            ("role", &identity.role),
            ("personality", &identity.personality),
            ("capabilities", &identity.capabilities),
            ("system prompt", &identity.system_prompt),
        ] {
            super::screen_or_refuse(&format!("the identity's {field}"), text)?;
        }
        let now = now();
        self.conn.execute(
            "INSERT INTO identity (id, name, role, personality, capabilities, system_prompt, updated_at)
             VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, role = excluded.role,
                 personality = excluded.personality, capabilities = excluded.capabilities,
                 system_prompt = excluded.system_prompt, updated_at = excluded.updated_at",
            params![
                identity.name,
                identity.role,
                identity.personality,
                identity.capabilities,
                identity.system_prompt,
                now
            ],
        )?;
        Ok(Identity {
            updated_at: now,
            ..identity.clone()
        })
    }
}
