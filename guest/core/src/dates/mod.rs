//! Dates in queries and texts.
//!
//! - [`parse_date_window`] ([`window`]): the absolute period a text names
//!   ("May 2026", "3 May 2026"), with no anchor needed.
//! - [`resolve_relative_date`] ([`relative`]): the day a relative cue
//!   ("yesterday", "two months ago") names, against an anchor.
//! - [`resolve_date_window`] ([`spoken`]): the period a query names as
//!   people say it ("last March", "spring 2026", "the past two weeks",
//!   "between March and April 2026"), absolute forms included, resolved
//!   against the question's time. Recall's plan narrows its date-window lane
//!   with it.

mod candidate;
pub(crate) mod month;
mod relative;
mod spoken;
mod window;

pub use relative::{ResolvedDate, resolve_relative_date};
pub use spoken::resolve_date_window;
pub use window::parse_date_window;
