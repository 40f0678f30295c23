//! The calendar period a query names.

use crate::types::DateWindow;

/// The explicit period a query names, if any.
pub fn parse_date_window(query: &str) -> Option<DateWindow> {
    unimplemented!("{query}")
}
