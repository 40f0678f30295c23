//! The knowledge graph: read (one request each for `hive-mind review
//! entities|entity|neighbours`, MCP `explore_graph` and `search_entities`,
//! `GET /api/graph/entities[/{id}[/neighbours]]`) and written by hand (MCP
//! `save_entity` and `create_relation`; cognify and imports write it too,
//! from what they read).

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_memory::{KnownEntity, KnownRelation};
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
        if let Some(depth) = self.depth
            && !(1..=MAX_DEPTH).contains(&depth)
        {
            return Err(OpError::Argument {
                name: "depth",
                why: format!("must be 1 to {MAX_DEPTH}, got {depth}"),
            });
        }
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

/// Entities whose name contains a text (case-insensitive), most seen first
/// (MCP `search_entities`).
pub struct SearchEntities {
    /// Whose.
    pub mind: Mind,
    /// Part of the name.
    pub text: String,
    /// The most listed (1 to [`MAX_SEARCHED`]).
    pub limit: u32,
}

/// The most entities a search lists.
pub const MAX_SEARCHED: u32 = 200;

impl SearchEntities {
    /// The request, its limit (default 20) bounded to 1..=[`MAX_SEARCHED`].
    pub fn new(mind: Mind, text: String, limit: Option<u32>) -> SearchEntities {
        SearchEntities {
            mind,
            text,
            limit: limit.unwrap_or(20).clamp(1, MAX_SEARCHED),
        }
    }
}

impl Operation for SearchEntities {
    type Output = Vec<KnownEntity>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<KnownEntity>, OpError> {
        Ok(engine.search_entities(&self.mind, &self.text, self.limit)?)
    }
}

/// Save an entity, or strengthen the one of the same canonical name and
/// type (MCP `save_entity`); the engine refuses dates, numbers and generic
/// words.
pub struct SaveEntity {
    /// Whose.
    pub mind: Mind,
    /// Its name.
    pub name: String,
    /// Its type (person, organization, project, …).
    pub entity_type: String,
}

impl Operation for SaveEntity {
    type Output = KnownEntity;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<KnownEntity, OpError> {
        Ok(engine.save_entity(&self.mind, &self.name, &self.entity_type)?)
    }
}

/// Relate two existing entities named exactly, or strengthen their
/// relation (MCP `create_relation`).
pub struct CreateRelation {
    /// Whose.
    pub mind: Mind,
    /// The entity it starts from.
    pub subject: String,
    /// The relation's type (`depends_on` is stored as `depends-on`).
    pub relation: String,
    /// The entity it points to.
    pub object: String,
    /// Its strength, 0 to 1 (default 0.8).
    pub strength: Option<f64>,
}

impl Operation for CreateRelation {
    type Output = KnownRelation;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::write(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<KnownRelation, OpError> {
        Ok(engine.create_relation(
            &self.mind,
            &self.subject,
            &self.relation,
            &self.object,
            self.strength,
        )?)
    }
}
