//! The resources: the personal mind's identity, awareness and recent
//! memories, every mind's stats, a workspace's recent memories; each read
//! for the caller's grant.

use super::*;

/// How many memories the recent-memories resources show.
const RECENT_MEMORIES: u32 = 20;

/// The resources: URI, name, description.
pub const RESOURCES: [(&str, &str, &str); 4] = [
    (
        "hive-mind://identity",
        "identity",
        "Who the agent is: name, role, personality, capabilities, standing instructions.",
    ),
    (
        "hive-mind://awareness",
        "awareness",
        "What the agent is working on right now: the live awareness items.",
    ),
    (
        "hive-mind://memories/recent",
        "recent memories",
        "The 20 most recent memories of the personal mind.",
    ),
    (
        "hive-mind://stats",
        "stats",
        "Every mind's counts: memories, full-text rows, vectors, chunks, entities, relations, sessions, schema version and embedder.",
    ),
];

/// The resource templates (RFC 6570): URI template, name, description.
pub const RESOURCE_TEMPLATES: [(&str, &str, &str); 1] = [(
    "hive-mind://workspace/{id}/memories/recent",
    "recent workspace memories",
    "The 20 most recent memories of a workspace's mind (see list_workspaces).",
)];

impl MemoryServer {
    /// The JSON of one resource, for the caller's grant: the personal
    /// mind's resources need the personal mind, a workspace's its own, and
    /// the stats name only the minds the caller reaches.
    pub(super) async fn resource(&self, uri: &str) -> Result<Json, McpError> {
        let not_granted = |error: McpError| McpError::resource_not_found(error.message, None);
        match uri {
            "hive-mind://identity" => self
                .run_op(
                    ops::identity::GetIdentity {
                        mind: Mind::Personal,
                    },
                    |engine, identity| identity_view(engine, identity.as_ref()),
                )
                .await
                .map_err(not_granted),
            "hive-mind://awareness" => {
                let items = self
                    .run_op(
                        ops::awareness::ListAwareness {
                            mind: Mind::Personal,
                        },
                        |engine, items| awareness_views(engine, &items),
                    )
                    .await
                    .map_err(not_granted)?;
                Ok(json!({ "items": items }))
            }
            "hive-mind://memories/recent" => self
                .recent_memories(Mind::Personal)
                .await
                .map_err(not_granted),
            "hive-mind://stats" => {
                let operation = ops::minds::Stats {
                    caller: self.caller()?,
                };
                let minds = self
                    .run_op(operation, |_, minds| {
                        Ok(minds
                            .iter()
                            .map(crate::admin_cli::status_json)
                            .collect::<Vec<Json>>())
                    })
                    .await?;
                Ok(json!({ "minds": minds }))
            }
            other => {
                if let Some(id) = other
                    .strip_prefix("hive-mind://workspace/")
                    .and_then(|rest| rest.strip_suffix("/memories/recent"))
                {
                    let mind = convert::workspace(id)
                        .map_err(|why| McpError::resource_not_found(why, None))?;
                    return self.recent_memories(mind).await.map_err(not_granted);
                }
                Err(McpError::resource_not_found(
                    format!(
                        "no resource {other:?}; there are: {}, and the template {}",
                        RESOURCES.map(|(uri, _, _)| uri).join(", "),
                        RESOURCE_TEMPLATES.map(|(uri, _, _)| uri).join(", ")
                    ),
                    None,
                ))
            }
        }
    }

    /// The recent-memories resource of one mind.
    pub(super) async fn recent_memories(&self, mind: Mind) -> Result<Json, McpError> {
        let operation = ops::minds::RecentMemories {
            mind,
            limit: RECENT_MEMORIES,
        };
        let frames = self
            .run_op(operation, |engine, frames| {
                frames
                    .iter()
                    .map(|frame| frame_view(engine, frame))
                    .collect::<Result<Vec<Json>, McpError>>()
            })
            .await?;
        Ok(json!({ "memories": frames }))
    }
}
