//! What a token may do through MCP over HTTP.
//!
//! Over stdio the client is the user's own process and every tool is open.
//! Over HTTP (`hive-mind serve`'s `/mcp`) each request carries a bearer
//! token, and its [`Grant`] reaches the tool call in the request's HTTP
//! parts. [`check_tool`] refuses a call beyond the token's scope or minds
//! before the tool runs: the scope a tool needs is in [`tool_scope`]; the
//! minds it touches are read from its arguments the way the tools read
//! them (`workspace`, else the personal mind; the minds of the references
//! in `memory`/`memories`; recall's `scope`). Tools that reach across
//! every mind (listing and creating workspaces, the stats resources) need
//! a token for every mind.

use serde_json::{Map, Value as Json};

use crate::tokens::{Grant, Scope};
use hive_mind_runtime::engine::convert;

/// The scope a tool needs. Forgetting for real is the admin scope's; a
/// dry run only reads.
pub fn tool_scope(tool: &str, arguments: &Map<String, Json>) -> Scope {
    match tool {
        "recall_memory" | "search_entities" | "get_identity" | "get_awareness"
        | "harvest_sources" | "memory_history" | "trace_memory" | "explore_graph"
        | "list_sessions" | "list_workspaces" => Scope::Read,
        "forget_memory" => {
            if arguments.get("confirm").and_then(Json::as_bool) == Some(true) {
                Scope::Admin
            } else {
                Scope::Read
            }
        }
        _ => Scope::Write,
    }
}

/// The tools that reach across every mind.
const EVERY_MIND: [&str; 2] = ["list_workspaces", "create_workspace"];

/// The minds a tool call touches, by name (`personal`, `workspace:<id>`).
pub fn tool_minds(tool: &str, arguments: &Map<String, Json>) -> Result<Vec<String>, String> {
    let workspace = arguments
        .get("workspace")
        .and_then(Json::as_str)
        .map(str::trim)
        .filter(|id| !id.is_empty());
    let workspace_mind = workspace.map(|id| format!("workspace:{id}"));
    let mut minds = match (tool, workspace_mind) {
        ("recall_memory", workspace) => {
            crate::tokens::recall_minds(workspace, arguments.get("scope").and_then(Json::as_str))
        }
        ("remember_exchange", Some(mind)) => vec![mind, "personal".to_string()],
        (_, Some(mind)) => vec![mind],
        (_, None) => vec!["personal".to_string()],
    };
    let mut references: Vec<&str> = Vec::new();
    if let Some(memory) = arguments.get("memory").and_then(Json::as_str) {
        references.push(memory);
    }
    if let Some(memories) = arguments.get("memories").and_then(Json::as_array) {
        references.extend(memories.iter().filter_map(Json::as_str));
    }
    if !references.is_empty() && workspace.is_none() {
        // The references name their minds; the personal default is not
        // touched.
        minds.clear();
    }
    for reference in references {
        let frame = convert::ref_in(reference)?;
        minds.push(convert::mind_name(&frame.mind));
    }
    Ok(minds)
}

/// Refuse a tool call the grant does not allow; the reason, for the
/// model and its user.
pub fn check_tool(
    grant: &Grant,
    tool: &str,
    arguments: Option<&Map<String, Json>>,
) -> Result<(), String> {
    let empty = Map::new();
    let arguments = arguments.unwrap_or(&empty);
    if EVERY_MIND.contains(&tool) && !grant.all_minds() {
        return Err(format!(
            "the token {:?} is not granted every mind, which {tool} reaches",
            grant.name
        ));
    }
    let minds = tool_minds(tool, arguments)?;
    grant.require(tool_scope(tool, arguments), &minds)
}

/// The grant of an MCP request that came over HTTP (none over stdio).
pub fn request_grant(extensions: &rmcp::model::Extensions) -> Option<Grant> {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Grant>())
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Json) -> Map<String, Json> {
        match value {
            Json::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn workspace_writer() -> Grant {
        Grant {
            name: "acme-agent".to_string(),
            scope: Scope::Write,
            minds: vec!["workspace:acme".to_string()],
        }
    }

    #[test]
    fn a_workspace_token_reaches_its_workspace_only() {
        let grant = workspace_writer();
        let save = args(json!({"content": "x", "workspace": "acme"}));
        assert!(check_tool(&grant, "save_memory", Some(&save)).is_ok());
        let personal = args(json!({"content": "x"}));
        assert!(check_tool(&grant, "save_memory", Some(&personal)).is_err());
        let other = args(json!({"content": "x", "workspace": "globex"}));
        assert!(check_tool(&grant, "save_memory", Some(&other)).is_err());
        // Recall over both minds reaches the personal one too.
        let both = args(json!({"query": "x", "workspace": "acme"}));
        assert!(check_tool(&grant, "recall_memory", Some(&both)).is_err());
        let current = args(json!({"query": "x", "workspace": "acme", "scope": "current"}));
        assert!(check_tool(&grant, "recall_memory", Some(&current)).is_ok());
        assert!(check_tool(&grant, "list_workspaces", None).is_err());
    }

    #[test]
    fn references_name_their_minds_and_erasure_needs_admin() {
        let grant = workspace_writer();
        let theirs = args(json!({"memories": ["workspace:acme:4"], "confirm": true}));
        let refused = check_tool(&grant, "forget_memory", Some(&theirs)).unwrap_err();
        assert!(refused.contains("admin"), "{refused}");
        let dry = args(json!({"memories": ["workspace:acme:4"]}));
        assert!(check_tool(&grant, "forget_memory", Some(&dry)).is_ok());
        let mine = args(json!({"memory": "personal:3", "content": "y"}));
        assert!(check_tool(&grant, "update_memory", Some(&mine)).is_err());
    }
}
