//! Recall: one request for `hive-mind recall`, MCP `recall_memory`,
//! `GET /api/memory/search` and the prompt hooks.
//!
//! [`RecallRequest`] holds what a caller may ask as text (ISO times,
//! vocabulary names) and turns it into the WIT `recall-options` once
//! ([`RecallRequest::options`]), capped by [`crate::limits`]. The minds it
//! reads are the engine's answer (`recall-minds`), so the grant is checked
//! against the rule the recall itself applies, and the identity and
//! awareness in the answer's context come from those minds only. `limit`
//! and `max_tokens` are passed through: the engine bounds them (at most
//! `limit` memories, every lane together; a block within `max_tokens`).

use serde_json::{Value as Json, json};

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert::{self, NO_FLOOR, profile_in, scope_in};
use hive_mind_runtime::engine::wit_memory::{Recall, RecallOptions, RelevanceFloor};
use hive_mind_runtime::engine::wit_names::WitEnum;

use super::{Access, OpError, Operation, capped};
use crate::tokens::Scope;

/// A recall, as every surface asks for it: the arguments of `hive-mind
/// recall`, of MCP `recall_memory` and the query of `GET
/// /api/memory/search` are this one type (clap, JSON Schema and OpenAPI
/// derived from it), so each surface takes the same arguments, documented
/// once, and `limit` means the same everywhere.
#[derive(
    Debug,
    Clone,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    utoipa::IntoParams,
    clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RecallRequest {
    /// What to recall memories for (usually the user's message).
    #[serde(alias = "q")]
    pub query: String,
    /// The most memories to return, every lane together (default 10, at
    /// most 100).
    #[arg(long)]
    pub limit: Option<u32>,
    /// How to weigh the relevance signals: balanced (default), recent,
    /// important or connected.
    #[arg(long)]
    pub profile: Option<String>,
    /// The active workspace (searched before the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// Which minds: personal, current (the workspace only) or all
    /// (default).
    #[arg(long)]
    pub scope: Option<String>,
    /// The time to score recency against (ISO-8601); default now.
    #[arg(long)]
    pub now: Option<String>,
    /// The relevance floor's least cosine for a semantic match (default:
    /// what unrelated texts reach under the embedder, measured once: about
    /// 0.50 for bge-small, 0.24 for MiniLM).
    #[arg(long)]
    pub min_cosine: Option<f64>,
    /// Turn the relevance floor off: always return the top memories.
    #[arg(long)]
    #[serde(default)]
    pub no_floor: bool,
    /// How many of the best candidates the reranker reads (default: the
    /// engine's); 0 turns reranking off.
    #[arg(long)]
    pub rerank_pool: Option<u32>,
    /// Answer with what was valid at this time (ISO-8601): memories from
    /// before it that had not been replaced by then. Default: now, where
    /// replaced memories are answered by their current versions.
    #[arg(long)]
    pub as_of: Option<String>,
    /// The most tokens the recall block may take; the lowest-ranked
    /// memories are left out until it fits.
    #[arg(long)]
    pub max_tokens: Option<u32>,
}

/// A named argument's refusal.
fn bad(name: &'static str, why: String) -> OpError {
    OpError::Argument { name, why }
}

impl RecallRequest {
    /// The WIT options, validated (each argument's refusal names it).
    pub fn options(&self) -> Result<RecallOptions, OpError> {
        capped(&[
            ("query", Some(&self.query)),
            ("profile", self.profile.as_ref()),
            ("scope", self.scope.as_ref()),
            ("workspace", self.workspace.as_ref()),
            ("now", self.now.as_ref()),
            ("as_of", self.as_of.as_ref()),
        ])?;
        if self.query.trim().is_empty() {
            return Err(bad("query", "it is empty".to_string()));
        }
        let profile = self.profile.as_deref().map(profile_in).transpose();
        let scope = self.scope.as_deref().map(scope_in).transpose();
        let now = self.now.as_deref().map(convert::timestamp_in).transpose();
        let as_of = self.as_of.as_deref().map(convert::timestamp_in).transpose();
        let workspace = self
            .workspace
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .map(|id| convert::workspace(id).map(|_| id.to_string()))
            .transpose();
        let floor = if self.no_floor {
            Some(NO_FLOOR)
        } else {
            self.min_cosine.map(|min_cosine| RelevanceFloor {
                min_cosine,
                lexical_match: true,
                standing_lanes_always: false,
            })
        };
        Ok(RecallOptions {
            limit: self.limit,
            workspace: workspace.map_err(|why| bad("workspace", why))?,
            scope: scope.map_err(|why| bad("scope", why))?,
            profile: profile.map_err(|why| bad("profile", why))?,
            now: now.map_err(|why| bad("now", why))?,
            floor,
            rerank_pool: self.rerank_pool,
            as_of: as_of.map_err(|why| bad("as_of", why))?,
            max_tokens: self.max_tokens,
        })
    }
}

/// A validated recall: the query and its WIT options.
pub struct RecallOperation {
    query: String,
    options: RecallOptions,
}

impl TryFrom<RecallRequest> for RecallOperation {
    type Error = OpError;

    fn try_from(request: RecallRequest) -> Result<Self, OpError> {
        let options = request.options()?;
        Ok(RecallOperation {
            query: request.query,
            options,
        })
    }
}

impl Operation for RecallOperation {
    type Output = Recall;

    fn access(&self, engine: &mut EngineRuntime) -> Result<Access, OpError> {
        let minds = engine.recall_minds(&self.options)?;
        // A workspace with no mind yet is recalled as empty, with the
        // engine's note (a hook set up for a new workspace recalls before
        // its first save); the grant is checked all the same.
        Ok(Access {
            existing: false,
            ..Access::on_all(Scope::Read, minds)
        })
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Recall, OpError> {
        Ok(engine.recall_memory(&self.query, &self.options)?)
    }
}

/// The recall result as JSON (every surface renders it with this).
pub fn recall_json(recall: &Recall) -> Json {
    let memories: Vec<Json> = recall
        .memories
        .iter()
        .map(|memory| {
            let frame = convert::frame_json(&memory.frame);
            json!({
                "ref": frame["ref"],
                "lane": memory.lane.wit_name(),
                "score": memory.score,
                "why": memory.why,
                "frame": frame,
            })
        })
        .collect();
    json!({
        "memories": memories,
        "text": recall.text,
        "withheld": recall.withheld,
        "context": recall.context,
        "notes": recall
            .notes
            .iter()
            .map(|note| json!({"kind": note.kind.wit_name(), "text": note.text}))
            .collect::<Vec<_>>(),
        "stages": recall
            .stages
            .iter()
            .map(|stage| json!({"stage": stage.stage.wit_name(), "micros": stage.micros}))
            .collect::<Vec<_>>(),
    })
}

/// The block to put before a prompt: the recall's text, or nothing when
/// nothing was recalled or the recall was withheld.
pub fn prompt_block(recall: &Recall) -> String {
    if recall.withheld.is_some() || recall.memories.is_empty() {
        String::new()
    } else {
        recall.text.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bad_argument_is_named() {
        let request = |edit: fn(&mut RecallRequest)| {
            let mut request = RecallRequest {
                query: "where do I live?".to_string(),
                ..RecallRequest::default()
            };
            edit(&mut request);
            request.options().err().map(|error| error.to_string())
        };
        assert_eq!(request(|_| {}), None);
        let named = |edit, name: &str| {
            let refused = request(edit).unwrap_or_default();
            assert!(refused.starts_with(name), "{refused}");
        };
        named(|r| r.scope = Some("everything".to_string()), "scope");
        named(|r| r.profile = Some("loud".to_string()), "profile");
        named(|r| r.now = Some("yesterday-ish".to_string()), "now");
        named(|r| r.as_of = Some("soon".to_string()), "as_of");
        named(|r| r.workspace = Some("../etc".to_string()), "workspace");
        named(|r| r.query = " ".to_string(), "query");
    }
}
