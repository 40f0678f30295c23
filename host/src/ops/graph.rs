//! The knowledge graph, read: one request each for `hive-mind review
//! entities|entity|neighbours`, MCP `explore_graph` and
//! `GET /api/graph/entities[/{id}[/neighbours]]`.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_review::{EntityHop, EntityInfo, EntityView};
use hive_mind_runtime::engine::wit_types::Mind;

use super::{Access, OpError, Operation};

/// The deepest a neighbourhood is read.
pub const MAX_DEPTH: u32 = 4;

/// Entities whose name contains a text, most seen first.
pub struct Entities {
    /// Whose.
    pub mind: Mind,
    /// Part of the name (empty: every entity).
    pub text: String,
    /// One type only.
    pub entity_type: Option<String>,
    /// The most listed.
    pub limit: u32,
}

impl Operation for Entities {
    type Output = Vec<EntityInfo>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<EntityInfo>, OpError> {
        Ok(engine.review().list_entities(
            &self.mind,
            &self.text,
            self.entity_type.as_deref(),
            self.limit,
        )?)
    }
}

/// One entity with its relations, the entities at their other end and the
/// memories that mention it; with a depth, every entity within it too.
pub struct Entity {
    /// Whose.
    pub mind: Mind,
    /// Its id.
    pub id: u64,
    /// With the neighbourhood this many hops deep (1 to [`MAX_DEPTH`]).
    pub depth: Option<u32>,
    /// The neighbourhood's type filter.
    pub entity_type: Option<String>,
    /// The most neighbours listed.
    pub limit: u32,
}

impl Operation for Entity {
    type Output = (EntityView, Option<Vec<EntityHop>>);

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Self::Output, OpError> {
        let mut review = engine.review();
        let view = review.get_entity(&self.mind, self.id)?;
        let hops = match self.depth {
            Some(depth) => Some(review.neighbours(
                &self.mind,
                self.id,
                depth.clamp(1, MAX_DEPTH),
                self.entity_type.as_deref(),
                self.limit,
            )?),
            None => None,
        };
        Ok((view, hops))
    }
}
