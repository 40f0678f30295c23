//! A mind's awareness: what the agent is working on (at most ten live
//! items a mind), pasted into the context of every recall that reads the
//! mind.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_admin::{AwarenessAdded, AwarenessCategory, AwarenessItem};
use hive_mind_runtime::engine::wit_types::Mind;

use super::{Access, OpError, Operation, capped};

/// A mind's live items, highest priority first.
pub struct ListAwareness {
    /// Whose.
    pub mind: Mind,
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

/// Add an item.
pub struct AddAwareness {
    /// Whose.
    pub mind: Mind,
    /// task, action, pending or flag.
    pub category: AwarenessCategory,
    /// The item.
    pub content: String,
    /// Higher first.
    pub priority: i64,
    /// When it lapses.
    pub expires_at: Option<i64>,
    /// With ten live, remove the lowest-priority one instead of refusing.
    pub evict: bool,
}

impl AddAwareness {
    /// The request from its arguments as text, each checked.
    pub fn new(
        mind: Mind,
        category: &str,
        content: String,
        priority: Option<i64>,
        expires_at: Option<&String>,
        evict: bool,
    ) -> Result<AddAwareness, OpError> {
        capped(&[("content", Some(&content)), ("expires_at", expires_at)])?;
        let category = convert::name_in::<AwarenessCategory>("category", category.trim())
            .map_err(OpError::Invalid)?;
        let expires_at = expires_at
            .map(|text| convert::timestamp_in(text))
            .transpose()
            .map_err(|why| OpError::Invalid(format!("expires_at: {why}")))?;
        Ok(AddAwareness {
            mind,
            category,
            content,
            priority: priority.unwrap_or(0),
            expires_at,
            evict,
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

/// Remove one item, or every live one.
pub struct RemoveAwareness {
    /// Whose.
    pub mind: Mind,
    /// The item; none: all of them.
    pub id: Option<u64>,
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
