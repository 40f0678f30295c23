//! Catch-up queries.

/// Whether a query asks to be brought up to date.
pub fn detect_catch_up(query: &str) -> bool {
    unimplemented!("{query}")
}
