//! Dates in queries and texts.
//!
//! - [`parse_date_window`] ([`window`]): the absolute period a text names
//!   ("May 2026", "3 May 2026"), with no anchor needed.
//! - [`resolve_relative_date`] ([`relative`]): the day a relative cue
//!   ("yesterday", "two months ago") names, against an anchor.
//! - [`resolve_date_window`] ([`spoken`]): the period a query names as
//!   people say it ("last March", "spring 2026", "the past two weeks",
//!   "between March and April 2026", "over Easter": [`holiday`]), absolute
//!   forms included, resolved
//!   against the question's time. Recall's plan narrows its date-window lane
//!   with it.
//! - [`tense`]: which way a question points in time, for the forms that
//!   leave the occurrence open ("in June", "on Friday").
//! - [`mentioned_periods`] ([`mentions`]): every period a memory's own text
//!   names, resolved against the memory's time, which the store keeps so a
//!   date window finds what happened in it, not only what was written in it.

mod candidate;
mod holiday;
mod mentions;
pub(crate) mod month;
mod relative;
mod spoken;
mod tense;
mod window;

pub use mentions::{MAX_MENTIONED_PERIODS, mentioned_periods};
pub use relative::{ResolvedDate, resolve_relative_date};
pub use spoken::resolve_date_window;

use crate::types::DateWindow;

/// The explicit period a query names, if any: the absolute forms of
/// [`window`] and the spoken periods that carry their year (a range, a
/// season, a quarter: [`spoken`]), never one today decides. See [`window`]
/// for the forms and for which one wins when a query names several.
pub fn parse_date_window(query: &str) -> Option<DateWindow> {
    let mut candidates = window::absolute_candidates(query);
    candidates.extend(spoken::absolute_spoken_candidates(query));
    candidate::most_specific(candidate::without_nested(candidates)).map(|found| found.window)
}
