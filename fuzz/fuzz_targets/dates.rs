//! Date parsing (`guest/core/src/dates/`, `guest/core/src/calendar.rs`):
//! the date window a query names ([`parse_date_window`]), the relative cue
//! a text holds ([`resolve_relative_date`]) and timestamps
//! ([`calendar::parse_instant`], [`calendar::parse_local_date`]).
//!
//! Input: lossy UTF-8; up to its first line feed it is also tried as the
//! anchor timestamp, the rest as the text (and the whole of it against a
//! fixed anchor). Invariants: a window's `since` and `until` are real
//! `YYYY-MM-DD` dates with `since <= until`, and its label is words of the
//! query; a resolved cue is words of the text and its date a real date; an
//! anchor is refused exactly when `parse_local_date` cannot read it, and a
//! readable anchor never makes resolution fail.
#![no_main]

use chrono::NaiveDate;
use hive_mind_core::{calendar, parse_date_window, resolve_relative_date};
use libfuzzer_sys::fuzz_target;

/// A valid anchor, so the cues of every input are resolved.
const FIXED_ANCHOR: &str = "2026-05-08T13:56:00Z";

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let (anchor, text) = input.split_once('\n').unwrap_or((&input, &input));

    if let Some(window) = parse_date_window(&input) {
        let since = date(&window.since);
        let until = date(&window.until);
        assert!(since <= until, "{window:?}");
        assert!(input.contains(&window.label), "{window:?}");
    }

    let instant = calendar::parse_instant(anchor);
    let local = calendar::parse_local_date(anchor);
    if instant.is_ok() {
        assert!(local.is_ok(), "an instant without a local date: {anchor:?}");
    }
    let resolved = resolve_relative_date(text, anchor);
    assert_eq!(resolved.is_ok(), local.is_ok(), "anchor {anchor:?}");
    let fixed = resolve_relative_date(&input, FIXED_ANCHOR);
    for (text, resolved) in [(text, resolved), (&*input, fixed)] {
        if let Some(found) = resolved.ok().flatten() {
            assert!(text.contains(&found.cue), "{found:?}");
            date(&found.date);
        }
    }
});

/// A `YYYY-MM-DD` date, or a failed invariant.
fn date(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .unwrap_or_else(|error| panic!("not a YYYY-MM-DD date: {text:?} ({error})"))
}
