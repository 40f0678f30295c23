//! The knowledge graph: read (one request each for `hive-mind review
//! entities|entity|neighbours`, MCP `explore_graph` and `search_entities`,
//! `GET /api/graph/entities[/{id}[/neighbours]]`) and written by hand (MCP
//! `save_entity` and `create_relation`; cognify and imports write it too,
//! from what they read).

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_memory::{KnownEntity, KnownRelation};
use hive_mind_runtime::engine::wit_review::{EntityHop, EntityInfo, EntityView};
use hive_mind_runtime::engine::wit_types::Mind;

use serde::Deserialize;

use super::{Access, OpError, Operation, WritePolicy, capped};

/// The deepest a neighbourhood is read.
pub const MAX_DEPTH: u32 = 4;

/// The entities a graph read lists when no limit is given.
pub const DEFAULT_LISTED: u32 = 50;

/// The most entities a graph read lists.
pub const MAX_LISTED: u32 = 200;

/// A read of the knowledge graph, as every surface asks for it: MCP
/// `explore_graph`, `GET /api/graph/entities` (a listing),
/// `/api/graph/entities/{id}` and its `/neighbours` (the path names the
/// entity), and `hive-mind review entities|entity|neighbours`.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::IntoParams, clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GraphRequest {
    /// An entity's id: its relations in and out, the entities at their
    /// other end and the memories that mention it. Without it, the
    /// entities whose name contains `text` are listed.
    #[arg(skip)]
    pub entity: Option<u64>,
    /// With `entity`: also the entities within this many hops (1 to 4).
    #[arg(skip)]
    pub depth: Option<u32>,
    /// Only entities of this type (person, project, …).
    #[arg(long = "type")]
    #[serde(alias = "type")]
    pub entity_type: Option<String>,
    /// Without `entity`: the text names contain (default: every entity).
    #[arg(default_value = "")]
    #[serde(alias = "q")]
    pub text: Option<String>,
    /// At most this many (default 50, at most 200).
    #[arg(long)]
    pub limit: Option<u32>,
    /// The workspace whose graph to read (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
}

/// A graph read resolved: a listing, or one entity.
pub enum GraphRead {
    /// Entities whose name contains a text.
    Listing(Entities),
    /// One entity (and its neighbourhood).
    One(Entity),
}

impl GraphRequest {
    /// The read it asks for (`entity` or not), each argument checked.
    pub fn read(self) -> Result<GraphRead, OpError> {
        capped(&[
            ("entity_type", self.entity_type.as_ref()),
            ("text", self.text.as_ref()),
            ("workspace", self.workspace.as_ref()),
        ])?;
        let mind = super::read_mind(self.workspace.as_deref())?;
        let limit = self.limit.unwrap_or(DEFAULT_LISTED).clamp(1, MAX_LISTED);
        Ok(match self.entity {
            None => GraphRead::Listing(Entities {
                mind,
                text: self.text.unwrap_or_default(),
                entity_type: self.entity_type,
                limit,
            }),
            Some(id) => GraphRead::One(Entity {
                mind,
                id,
                depth: self.depth,
                entity_type: self.entity_type,
                limit,
            }),
        })
    }

    /// A listing: it must name no entity.
    pub fn listing(self) -> Result<Entities, OpError> {
        match self.read()? {
            GraphRead::Listing(entities) => Ok(entities),
            GraphRead::One(entity) => Err(OpError::Invalid(format!(
                "entity {} is one entity, not a listing: read it by its id",
                entity.id
            ))),
        }
    }

    /// The read of entity `id` (named apart, as a path names it): the
    /// request may repeat it, never name another.
    pub fn entity(mut self, id: u64) -> Result<Entity, OpError> {
        if self.entity.is_some_and(|entity| entity != id) {
            return Err(OpError::Invalid(format!(
                "entity {id} is named, and another in the request: drop the request's"
            )));
        }
        self.entity = Some(id);
        match self.read()? {
            GraphRead::One(entity) => Ok(entity),
            GraphRead::Listing(_) => Err(OpError::Invalid(format!("no entity {id}"))),
        }
    }
}

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

/// MCP `search_entities`' request.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchEntitiesRequest {
    /// Text the entity names contain.
    pub query: String,
    /// Search this workspace's graph instead of the personal one.
    pub workspace: Option<String>,
    /// The most entities to return (default 20, at most 200).
    pub limit: Option<u32>,
}

/// Entities whose name contains a text (case-insensitive), most seen first
/// (MCP `search_entities`).
pub struct SearchEntities {
    mind: Mind,
    text: String,
    limit: u32,
}

impl SearchEntities {
    /// The request, its limit (default 20) bounded to 1..=[`MAX_LISTED`].
    pub fn new(request: SearchEntitiesRequest) -> Result<SearchEntities, OpError> {
        capped(&[
            ("query", Some(&request.query)),
            ("workspace", request.workspace.as_ref()),
        ])?;
        Ok(SearchEntities {
            mind: super::read_mind(request.workspace.as_deref())?,
            text: request.query,
            limit: request.limit.unwrap_or(20).clamp(1, MAX_LISTED),
        })
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

/// MCP `save_entity`'s request.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveEntityRequest {
    /// The entity's name.
    pub name: String,
    /// Its type: person, organization, project, technology, concept, …
    pub entity_type: String,
    /// Save to this workspace's graph (it must exist).
    pub workspace: Option<String>,
    /// "personal" or "workspace", to say explicitly which mind is meant.
    pub mind: Option<String>,
}

/// Save an entity, or strengthen the one of the same canonical name and
/// type (MCP `save_entity`); the engine refuses dates, numbers and generic
/// words.
pub struct SaveEntity {
    mind: Mind,
    name: String,
    entity_type: String,
}

impl SaveEntity {
    /// The request, its mind resolved under the surface's `policy`.
    pub fn new(request: SaveEntityRequest, policy: WritePolicy) -> Result<SaveEntity, OpError> {
        capped(&[
            ("name", Some(&request.name)),
            ("entity_type", Some(&request.entity_type)),
            ("workspace", request.workspace.as_ref()),
            ("mind", request.mind.as_ref()),
        ])?;
        Ok(SaveEntity {
            mind: policy.mind(request.mind.as_deref(), request.workspace.as_deref())?,
            name: request.name,
            entity_type: request.entity_type,
        })
    }
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

/// MCP `create_relation`'s request.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRelationRequest {
    /// The subject entity's exact name.
    pub subject: String,
    /// The relation, e.g. depends_on, led_by, reports_to, uses.
    pub relation: String,
    /// The object entity's exact name.
    pub object: String,
    /// How sure, 0 to 1 (default 0.8).
    pub strength: Option<f64>,
    /// Relate in this workspace's graph (it must exist).
    pub workspace: Option<String>,
    /// "personal" or "workspace", to say explicitly which mind is meant.
    pub mind: Option<String>,
}

/// Relate two existing entities named exactly, or strengthen their
/// relation (MCP `create_relation`).
pub struct CreateRelation {
    mind: Mind,
    subject: String,
    relation: String,
    object: String,
    strength: Option<f64>,
}

impl CreateRelation {
    /// The request, its mind resolved under the surface's `policy`.
    pub fn new(
        request: CreateRelationRequest,
        policy: WritePolicy,
    ) -> Result<CreateRelation, OpError> {
        capped(&[
            ("subject", Some(&request.subject)),
            ("relation", Some(&request.relation)),
            ("object", Some(&request.object)),
            ("workspace", request.workspace.as_ref()),
            ("mind", request.mind.as_ref()),
        ])?;
        Ok(CreateRelation {
            mind: policy.mind(request.mind.as_deref(), request.workspace.as_deref())?,
            subject: request.subject,
            relation: request.relation,
            object: request.object,
            strength: request.strength,
        })
    }
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
