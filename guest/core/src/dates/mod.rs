//! Dates in queries and texts.

pub(crate) mod month;
mod relative;
mod window;

pub use relative::{ResolvedDate, resolve_relative_date};
pub use window::parse_date_window;
