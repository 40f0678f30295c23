//! The wiki of a mind, read: its pages, one page, a search, the health
//! report — one request each for `hive-mind wiki`, MCP `compile_wiki`,
//! `get_page`, `search_wiki` and `compile_health`, and `GET /api/wiki…`.
//! The engine compiles the pages when they are read (`wit/wiki.wit`), so
//! every surface shows what the memories say now; this module bounds the
//! requests and puts the answers in JSON.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::convert::{self, frame_json, ref_name};
use hive_mind_runtime::engine::wit_names::WitEnum;
use hive_mind_runtime::engine::wit_types::Mind;
use hive_mind_runtime::engine::wit_wiki::{
    HealthIssue, HealthKind, HealthReport, Page, PageSummary,
};
use serde::Deserialize;
use serde_json::{Value as Json, json};

use super::{Access, OpError, Operation, capped};

/// The pages a listing or search returns when no limit is given.
pub const DEFAULT_PAGES: u32 = 50;

/// The most pages, search results or findings one request returns.
pub const MAX_PAGES: u32 = 1000;

/// The findings a health report lists when no limit is given (all are
/// counted).
pub const DEFAULT_FINDINGS: u32 = 100;

/// A read of the wiki: the listing, or one page (`page`): `hive-mind wiki
/// [PAGE]`, MCP `compile_wiki` and `get_page`, `GET /api/wiki` and
/// `/api/wiki/pages/{page}`.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::IntoParams, clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct WikiRequest {
    /// A page's address (`you`, `entity-<id>` or `topic-<word>` as the listing names
    /// them): that page, whole. Without it, the pages are listed.
    #[serde(alias = "slug")]
    pub page: Option<String>,
    /// The workspace whose wiki to read (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// The listing: at most this many pages (default 50, at most 1000).
    #[arg(long)]
    pub limit: Option<u32>,
}

/// The pages of a mind, `you` first.
pub struct ListPages {
    mind: Mind,
    limit: u32,
}

/// One page.
pub struct GetPage {
    mind: Mind,
    page: String,
}

/// A wiki read resolved.
pub enum WikiRead {
    /// The listing.
    List(ListPages),
    /// One page.
    Page(GetPage),
}

impl WikiRequest {
    /// The read it asks for, each argument checked.
    pub fn read(self) -> Result<WikiRead, OpError> {
        capped(&[
            ("page", self.page.as_ref()),
            ("workspace", self.workspace.as_ref()),
        ])?;
        let mind = super::read_mind(self.workspace.as_deref())?;
        Ok(
            match self
                .page
                .map(|page| page.trim().to_string())
                .filter(|page| !page.is_empty())
            {
                Some(page) => WikiRead::Page(GetPage { mind, page }),
                None => WikiRead::List(ListPages {
                    mind,
                    limit: self.limit.unwrap_or(DEFAULT_PAGES).clamp(1, MAX_PAGES),
                }),
            },
        )
    }

    /// The read of page `page` (named apart, as a path names it): the
    /// request may repeat it, never name another.
    pub fn page(mut self, page: &str) -> Result<GetPage, OpError> {
        if self
            .page
            .as_deref()
            .is_some_and(|named| named.trim() != page)
        {
            return Err(OpError::Invalid(format!(
                "page {page} is named, and another in the request: drop the request's"
            )));
        }
        self.page = Some(page.to_string());
        match self.read()? {
            WikiRead::Page(page) => Ok(page),
            WikiRead::List(_) => Err(OpError::Invalid(
                "no page named: `you`, or an `entity-<id>` or `topic-<word>` the listing names"
                    .to_string(),
            )),
        }
    }
}

/// MCP `get_page`'s request: the page is required.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageRequest {
    /// The page's address: `you`, `entity-<id>` or `topic-<word>` as `compile_wiki` lists
    /// them.
    #[serde(alias = "slug")]
    pub page: String,
    /// The workspace whose wiki to read (default: the personal mind).
    pub workspace: Option<String>,
}

impl PageRequest {
    /// The read of its page.
    pub fn operation(self) -> Result<GetPage, OpError> {
        WikiRequest {
            page: None,
            workspace: self.workspace,
            limit: None,
        }
        .page(self.page.trim())
    }
}

impl From<super::ListRequest> for WikiRequest {
    /// A listing of the pages (MCP `compile_wiki`).
    fn from(request: super::ListRequest) -> WikiRequest {
        WikiRequest {
            page: None,
            workspace: request.workspace,
            limit: request.limit,
        }
    }
}

impl Operation for ListPages {
    type Output = Vec<PageSummary>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<PageSummary>, OpError> {
        Ok(engine.wiki().list_pages(&self.mind, self.limit)?)
    }
}

impl Operation for GetPage {
    type Output = Page;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Page, OpError> {
        Ok(engine.wiki().get_page(&self.mind, &self.page)?)
    }
}

/// A search of the wiki: `hive-mind wiki search TEXT`, MCP `search_wiki`,
/// `GET /api/wiki/search`.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::IntoParams, clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct WikiSearchRequest {
    /// What to look for in the pages' titles and statements
    /// (case-insensitive).
    #[serde(alias = "q")]
    pub query: String,
    /// The workspace whose wiki to search (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// At most this many pages (default 50, at most 1000).
    #[arg(long)]
    pub limit: Option<u32>,
}

/// Pages whose title or statements contain a text.
pub struct SearchWiki {
    mind: Mind,
    text: String,
    limit: u32,
}

impl SearchWiki {
    /// The request, checked and bounded.
    pub fn new(request: WikiSearchRequest) -> Result<SearchWiki, OpError> {
        capped(&[
            ("query", Some(&request.query)),
            ("workspace", request.workspace.as_ref()),
        ])?;
        Ok(SearchWiki {
            mind: super::read_mind(request.workspace.as_deref())?,
            text: request.query,
            limit: request.limit.unwrap_or(DEFAULT_PAGES).clamp(1, MAX_PAGES),
        })
    }
}

impl Operation for SearchWiki {
    type Output = Vec<PageSummary>;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<Vec<PageSummary>, OpError> {
        Ok(engine
            .wiki()
            .search_wiki(&self.mind, &self.text, self.limit)?)
    }
}

/// A health check of a mind: `hive-mind wiki health`, MCP
/// `compile_health`, `GET /api/wiki/health`.
#[derive(
    Debug, Clone, Default, Deserialize, schemars::JsonSchema, utoipa::IntoParams, clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct WikiHealthRequest {
    /// The workspace to check (default: the personal mind).
    #[arg(long)]
    pub workspace: Option<String>,
    /// List at most this many findings (default 100, at most 1000); all
    /// are counted.
    #[arg(long)]
    pub limit: Option<u32>,
}

/// A mind's health report.
pub struct WikiHealth {
    mind: Mind,
    limit: u32,
}

impl WikiHealth {
    /// The request, checked and bounded.
    pub fn new(request: WikiHealthRequest) -> Result<WikiHealth, OpError> {
        capped(&[("workspace", request.workspace.as_ref())])?;
        Ok(WikiHealth {
            mind: super::read_mind(request.workspace.as_deref())?,
            limit: request
                .limit
                .unwrap_or(DEFAULT_FINDINGS)
                .clamp(1, MAX_PAGES),
        })
    }
}

impl Operation for WikiHealth {
    type Output = HealthReport;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Access::read(self.mind.clone()))
    }

    fn run(self, engine: &mut EngineRuntime) -> Result<HealthReport, OpError> {
        Ok(engine.wiki().health(&self.mind, self.limit)?)
    }
}

/// A health finding's kind by its WIT name.
pub fn health_kind_name(kind: HealthKind) -> &'static str {
    kind.wit_name()
}

/// The health kinds in `health-report.counts` order.
pub const HEALTH_KINDS: &[HealthKind] = <HealthKind as WitEnum>::CASES;

/// A page summary as JSON, fields by their WIT names (times ISO-8601).
pub fn summary_json(summary: &PageSummary) -> Json {
    json!({
        "slug": summary.slug,
        "title": summary.title,
        "kind": summary.kind.wit_name(),
        "entity-type": summary.entity_type,
        "statements": summary.statements,
        "conflicts": summary.conflicts,
        "updated-at": summary.updated_at.map(hive_mind_runtime::engine::convert::timestamp_name),
    })
}

/// A whole page as JSON.
pub fn page_json(page: &Page) -> Json {
    json!({
        "summary": summary_json(&page.summary),
        "about": page.about,
        "current": page.current.iter().map(frame_json).collect::<Vec<_>>(),
        "history": page.history.iter().map(frame_json).collect::<Vec<_>>(),
        "conflicts": page.conflicts.iter().map(|conflict| json!({
            "older": ref_name(&conflict.older),
            "newer": ref_name(&conflict.newer),
        })).collect::<Vec<_>>(),
        "related": page.related.iter().map(|link| json!({
            "slug": link.slug,
            "title": link.title,
            "relation": link.relation,
            "outgoing": link.outgoing,
        })).collect::<Vec<_>>(),
        "markdown": page.markdown,
        "synthesis": page.synthesis.as_ref().map(|synthesis| json!({
            "text": synthesis.text,
            "sources": synthesis.sources.iter().map(ref_name).collect::<Vec<_>>(),
            "model": synthesis.model,
            "written-at": convert::timestamp_name(synthesis.written_at),
        })),
    })
}

fn issue_json(issue: &HealthIssue) -> Json {
    json!({
        "kind": health_kind_name(issue.kind),
        "text": issue.text,
        "memories": issue.memories.iter().map(ref_name).collect::<Vec<_>>(),
        "page": issue.page,
    })
}

/// A health report as JSON: the counts by kind, then the findings.
pub fn health_json(report: &HealthReport) -> Json {
    let counts: serde_json::Map<String, Json> = HEALTH_KINDS
        .iter()
        .zip(&report.counts)
        .map(|(kind, count)| (health_kind_name(*kind).to_string(), json!(count)))
        .collect();
    json!({
        "counts": counts,
        "issues": report.issues.iter().map(issue_json).collect::<Vec<_>>(),
    })
}
