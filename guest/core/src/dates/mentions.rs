//! The periods a memory's own text names.
//!
//! A memory's event time is when it was written (or when the turn was
//! said), not when what it tells happened: "Maya went to the wedding in
//! Ghent on 28 June 2025", saved on 1 July, happened in June; "The
//! performance review is on 8 April 2026", saved in March, is a plan for
//! April. A question about "the end of June 2025" or "April 2026" must find
//! them, so the store keeps, beside each memory's event date, the periods
//! its text names ([`mentioned_periods`]), and a recall's date window takes
//! a memory that happened in the window *or* names a period inside it.
//!
//! What counts as a mention, resolved against the memory's own time (the
//! anchor), never today's:
//!
//! - every absolute period the date-window reader knows (a day, a part of a
//!   month, a month, a year, a spoken range, season or quarter with its
//!   year: [`super::parse_date_window`]'s forms), all of them rather than
//!   the one a query would be narrowed to. A named day is that day: the
//!   few days a query's window adds either side are the query's, not the
//!   memory's.
//! - a day and month without a year ("on 19 December", "March 3rd"): the
//!   occurrence nearest the anchor, so a plan written in December for
//!   "3 January" is next January and a note written on 2 January about
//!   "29 December" is last December.
//! - a day said relative to the anchor: "yesterday", "tomorrow", "the day
//!   before yesterday", "last / this / next Friday", "three days ago", "in
//!   two days". Vaguer cues ("last month", "the other day", "two weeks
//!   ago") name no day, and a relative period ("in March") read against a
//!   memory's time would guess its year; neither is taken.
//!
//! A phrase inside a longer one counts once, as the longer one ("15 to 29
//! June 2026" is that range, not also "29 June 2026"). The periods come
//! leftmost first, each once, at most [`MAX_MENTIONED_PERIODS`].

use std::sync::LazyLock;

use chrono::{Datelike, Days, NaiveDate};
use regex::{Captures, Regex};

use super::candidate::{Candidate, Granularity, without_nested};
use super::month::{MONTH_NAME_PATTERN, month_number};
use super::window::{DAY_WINDOW_RADIUS_DAYS, continues_as_number};
use super::{relative, spoken, window};
use crate::calendar::{format_date, parse_local_date};
use crate::types::{DateWindow, LogicError};

/// The most periods kept for one memory: a memory is a statement, and one
/// naming more dates than this is a list (a schedule, a log) whose dates
/// say little about which period it belongs to; the first ones are kept.
pub const MAX_MENTIONED_PERIODS: usize = 16;

/// The periods `text` names, resolved against `anchor` (the memory's own
/// time, an ISO-8601 date or date-time), leftmost first, each once; the
/// label of each is its words as written. See the module docs for what
/// counts.
///
/// Fails with [`LogicError::InvalidArgument`] naming the anchor when it
/// cannot be read.
pub fn mentioned_periods(text: &str, anchor: &str) -> Result<Vec<DateWindow>, LogicError> {
    let anchor_day = parse_local_date(anchor).map_err(|error| match error {
        LogicError::InvalidArgument(message) => {
            LogicError::InvalidArgument(format!("anchor: {message}"))
        }
    })?;
    let mut candidates: Vec<Candidate> = window::absolute_candidates(text)
        .into_iter()
        .map(exact_day)
        .collect();
    candidates.extend(spoken::absolute_spoken_candidates(text));
    candidates.extend(yearless_days(text, anchor_day));
    candidates.extend(relative::day_cue_candidates(text, anchor_day));
    let mut kept = without_nested(candidates);
    kept.sort_by_key(|candidate| (candidate.start, std::cmp::Reverse(candidate.end)));
    let mut periods: Vec<DateWindow> = Vec::new();
    for candidate in kept {
        let seen = periods.iter().any(|period| {
            period.since == candidate.window.since && period.until == candidate.window.until
        });
        if !seen {
            periods.push(candidate.window);
        }
        if periods.len() == MAX_MENTIONED_PERIODS {
            break;
        }
    }
    Ok(periods)
}

/// A named day's candidate narrowed to the day itself: the window reader
/// widens a day by [`DAY_WINDOW_RADIUS_DAYS`] either side for a query (a
/// question's "on 4 May" may be off by a day or two); a memory that names
/// 4 May names 4 May. Other candidates pass unchanged.
fn exact_day(mut candidate: Candidate) -> Candidate {
    if candidate.granularity != Granularity::Day {
        return candidate;
    }
    let day = NaiveDate::parse_from_str(&candidate.window.since, "%Y-%m-%d")
        .ok()
        .and_then(|since| since.checked_add_days(Days::new(DAY_WINDOW_RADIUS_DAYS)));
    if let Some(day) = day {
        let day = format_date(day);
        candidate.window.since.clone_from(&day);
        candidate.window.until = day;
    }
    candidate
}

/// A day and a month with no year after them: "19 December", "the 3rd of
/// May", "March 3rd".
static YEARLESS_DAY: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        format!(
            r"(?i)\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{MONTH_NAME_PATTERN})"
        ),
        format!(r"(?i)\b(?P<month>{MONTH_NAME_PATTERN})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b"),
    ]
    .iter()
    .filter_map(|pattern| Regex::new(pattern).ok())
    .collect()
});

/// Every yearless day `text` names, each the occurrence nearest `anchor`.
/// One followed by a year is left to the absolute reader (and would be
/// nested in its phrase anyway); "may" and "march" in lower case are
/// verbs far more often than months, so they must be capitalised.
fn yearless_days(text: &str, anchor: NaiveDate) -> Vec<Candidate> {
    YEARLESS_DAY
        .iter()
        .flat_map(|regex| {
            regex
                .captures_iter(text)
                .filter_map(move |captures| yearless_day(&captures, text, anchor))
        })
        .collect()
}

fn yearless_day(captures: &Captures<'_>, text: &str, anchor: NaiveDate) -> Option<Candidate> {
    let whole = captures.get(0)?;
    let month_words = captures.name("month")?.as_str();
    if matches!(month_words, "may" | "march") {
        return None;
    }
    if continues_as_number(text.get(whole.end()..)?) {
        return None;
    }
    let month = month_number(month_words)?;
    let day: u32 = captures.name("day")?.as_str().parse().ok()?;
    let nearest = [anchor.year() - 1, anchor.year(), anchor.year() + 1]
        .into_iter()
        .filter_map(|year| NaiveDate::from_ymd_opt(year, month, day))
        .min_by_key(|date| (*date - anchor).num_days().abs())?;
    let words = whole.as_str().trim_end_matches('.');
    Some(Candidate {
        granularity: Granularity::Day,
        start: whole.start(),
        end: whole.start() + words.len(),
        window: DateWindow {
            since: format_date(nearest),
            until: format_date(nearest),
            label: words.to_string(),
        },
        anchored: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str, anchor: &str) -> Vec<(String, String)> {
        mentioned_periods(text, anchor)
            .unwrap()
            .into_iter()
            .map(|period| (period.since, period.until))
            .collect()
    }

    fn span(since: &str, until: &str) -> (String, String) {
        (since.to_string(), until.to_string())
    }

    #[test]
    fn a_named_day_is_that_day_not_a_query_window() {
        assert_eq!(
            spans(
                "Maya went to Sven's cousin's wedding in Ghent on 28 June 2025.",
                "2025-07-01T15:29:00Z"
            ),
            vec![span("2025-06-28", "2025-06-28")]
        );
        assert_eq!(
            spans("Shipped on 2026-05-03, reviewed May 5, 2026", "2026-05-06"),
            vec![
                span("2026-05-03", "2026-05-03"),
                span("2026-05-05", "2026-05-05")
            ]
        );
    }

    #[test]
    fn months_years_and_spoken_periods_with_their_year_are_kept_whole() {
        assert_eq!(
            spans("We moved to Utrecht in March 2024.", "2026-01-01"),
            vec![span("2024-03-01", "2024-03-31")]
        );
        assert_eq!(
            spans(
                "The migration runs between March and April 2026.",
                "2026-01-10"
            ),
            vec![span("2026-03-01", "2026-04-30")]
        );
        assert_eq!(
            spans("Budget review in Q3 2026, then a break.", "2026-01-10"),
            vec![span("2026-07-01", "2026-09-30")]
        );
        assert_eq!(
            spans("Spent Easter 2025 in Seville with the kids.", "2025-05-02"),
            vec![span("2025-04-17", "2025-04-21")]
        );
    }

    #[test]
    fn a_range_counts_once_as_the_range() {
        let found = spans(
            "Maya is on holiday from 15 to 29 June 2026 in Portugal.",
            "2026-05-28",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        let (since, until) = &found[0];
        assert!(since.as_str() <= "2026-06-15" && until.as_str() >= "2026-06-29");
    }

    #[test]
    fn a_day_without_a_year_is_the_occurrence_nearest_the_memory() {
        assert_eq!(
            spans(
                "Freightly's Christmas party is on 19 December at the Stadsschouwburg.",
                "2025-12-09T17:43:00Z"
            ),
            vec![span("2025-12-19", "2025-12-19")]
        );
        // Written in December about early January: next year's.
        assert_eq!(
            spans("Kick-off is on January 3rd.", "2025-12-20"),
            vec![span("2026-01-03", "2026-01-03")]
        );
        // Written on 2 January about late December: last year's.
        assert_eq!(
            spans("The outage on 29 December cost us a day.", "2026-01-02"),
            vec![span("2025-12-29", "2025-12-29")]
        );
        // "may" and "march" in lower case are verbs.
        assert_eq!(spans("Those 3 may go; 5 march past.", "2026-01-02"), []);
        assert_eq!(
            spans("See you on 3 May.", "2026-04-20"),
            vec![span("2026-05-03", "2026-05-03")]
        );
    }

    #[test]
    fn days_said_relative_to_the_memory_resolve_against_its_time() {
        assert_eq!(
            spans(
                "Dentist tomorrow at 9, and the plumber comes next Friday.",
                "2026-03-02T08:00:00Z"
            ),
            vec![
                span("2026-03-03", "2026-03-03"),
                span("2026-03-06", "2026-03-06")
            ]
        );
        assert_eq!(
            spans("The deploy failed three days ago.", "2026-03-10"),
            vec![span("2026-03-07", "2026-03-07")]
        );
        // No day: not a mention.
        assert_eq!(
            spans(
                "Last month was busy; the other day I saw Ana; two weeks ago too; today is fine.",
                "2026-03-10"
            ),
            []
        );
    }

    #[test]
    fn nothing_dated_names_nothing_and_a_bad_anchor_is_named() {
        assert_eq!(
            spans("Maya prefers oat milk in her coffee.", "2026-03-10"),
            []
        );
        assert_eq!(spans("Ticket 2025 is closed; room 1999.", "2026-03-10"), []);
        assert!(matches!(
            mentioned_periods("on 3 May 2026", "yesterday"),
            Err(LogicError::InvalidArgument(message)) if message.starts_with("anchor")
        ));
    }

    #[test]
    fn a_list_of_dates_is_cut_at_the_bound() {
        let schedule: String = (1..=28)
            .map(|day| format!("{day} February 2026: stand-up. "))
            .collect();
        let found = spans(&schedule, "2026-01-20");
        assert_eq!(found.len(), MAX_MENTIONED_PERIODS);
        assert_eq!(found[0], span("2026-02-01", "2026-02-01"));
    }
}
