//! The grant of an MCP request.
//!
//! Over stdio the client is the user's own process and every tool is open.
//! Over HTTP (`hive-mind serve`'s `/mcp`) each request carries a bearer
//! token, and its [`Grant`] reaches the tool call in the request's HTTP
//! parts. It is only handed down from here: each tool resolves its request
//! (the minds it reads and writes as values) and the operations layer
//! ([`crate::ops`]) judges that, never the raw arguments.

use crate::tokens::Grant;

/// The grant of an MCP request that came over HTTP (none over stdio).
pub fn request_grant(extensions: &rmcp::model::Extensions) -> Option<Grant> {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Grant>())
        .cloned()
}
