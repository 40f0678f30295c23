//! The frame content hash: the provenance-insensitive dedup key.

/// SHA-256 hex of the content without its `[hm …]` prefix, trimmed.
pub fn content_hash(content: &str) -> String {
    unimplemented!("{content}")
}

/// The content without one leading `[hm …]` block and the white space after it.
pub fn strip_hm_prefix(content: &str) -> &str {
    unimplemented!("{content}")
}
