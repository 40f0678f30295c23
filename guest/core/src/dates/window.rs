//! The calendar period a query names.
//!
//! A query such as "what did we ship in May 2026?" names an explicit period,
//! and recall narrows its date-window lane to it. This module finds that
//! period and returns it as a [`DateWindow`]: `since` and `until` as
//! `YYYY-MM-DD`, **both inclusive**, and `label`, the words of the query that
//! named the period as written ("May 2026"), ready for a heading such as
//! "Events during May 2026".
//!
//! Only *absolute* periods count: every form carries a four-digit year in
//! 1900–2199. The forms below are this module's; the spoken forms that
//! carry their year ("between March and April 2026", "spring 2026", "Q1
//! 2026") come from [`resolve_date_window`]'s reader, which
//! [`parse_date_window`](super::parse_date_window) asks for the periods no
//! date decides, so a range
//! is never read as its first day. Periods said relative to now ("last
//! week", "two months ago", "in May" with no year, "between March and
//! April") are [`resolve_date_window`]'s alone, which needs an anchor date
//! this function does not have; a single day named relative to now
//! ("yesterday") is [`resolve_relative_date`]'s.
//!
//! The forms, most specific first (all case-insensitive; month names are full
//! or three-letter abbreviations, "Sept" too, with an optional dot):
//!
//! | Specificity | Form | Example | Window |
//! |---|---|---|---|
//! | day | day month year | "3 May 2026", "3rd of May, 2026" | the day ± 2 days |
//! | day | month day year | "May 3, 2026", "May 3rd 2026" | the day ± 2 days |
//! | day | ISO date | "2026-05-03" | the day ± 2 days |
//! | part of month | week of a month | "first week of May 2026" | days 1–7 (second 8–14, third 15–21, fourth 22–28, last: the month's last 7 days) |
//! | part of month | early / mid / late | "early May 2026", "mid-May 2026" | 1–10, 11–20, 21–end ("beginning/start of" = early, "middle of" = mid, "end of" = late) |
//! | month | month year | "in May 2026", "May of 2026" | the whole month |
//! | year | "in"/"during" year | "in 2025", "during 2025" | the whole year |
//!
//! A bare four-digit number is **not** a year window ("ticket 2025", "room
//! 1999"): the year form needs "in" or "during" in front, and even then a
//! following unit ("in 2000 ms", "in 1999 steps") or a continuation into a
//! longer number or date ("in 2025-26", "in 2026/05") disqualifies it. An
//! impossible day ("30 Feb 2026") is not a day window; the words may still
//! name the month ("Feb 2026").
//!
//! **When several periods are named**, the most specific form wins (day over
//! week/part of month over month over year), and among matches of that
//! specificity the leftmost one. "In 2026, especially 3 May 2026" is therefore
//! the window around 3 May 2026, and "May 2026 versus June 2026" is May.
//!
//! [`resolve_relative_date`]: super::resolve_relative_date
//! [`resolve_date_window`]: super::resolve_date_window

use std::sync::LazyLock;

use chrono::{Datelike, Days, NaiveDate};
use regex::{Captures, Regex};

use super::candidate::{Candidate, Granularity};
use super::month::{
    MONTH_NAME_PATTERN, MONTHS_PER_YEAR, last_day_of_month, month_number, months_of,
};
use crate::calendar::format_date;
use crate::types::DateWindow;

/// How many days a named day's window reaches on either side of it.
pub(super) const DAY_WINDOW_RADIUS_DAYS: u64 = 2;

/// The length of a "week of the month".
const WEEK_LENGTH_DAYS: u32 = 7;

/// The last day of "early May"; "mid May" starts the day after.
const EARLY_MONTH_LAST_DAY: u32 = 10;

/// The last day of "mid May"; "late May" starts the day after.
const MID_MONTH_LAST_DAY: u32 = 20;

/// The earliest year a window may name.
const MIN_YEAR: i32 = 1900;

/// The latest year a window may name.
const MAX_YEAR: i32 = 2199;

/// Words that, right after "in" and a number, show the number is a quantity and
/// not a year ("in 2000 ms", "in 1999 steps").
const QUANTITY_UNITS: &[&str] = &[
    "ms",
    "msec",
    "millisecond",
    "milliseconds",
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "h",
    "hr",
    "hrs",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "b",
    "byte",
    "bytes",
    "kb",
    "mb",
    "gb",
    "tb",
    "px",
    "step",
    "steps",
    "iteration",
    "iterations",
    "epoch",
    "epochs",
    "token",
    "tokens",
    "line",
    "lines",
    "row",
    "rows",
    "record",
    "records",
    "item",
    "items",
    "user",
    "users",
    "word",
    "words",
    "char",
    "chars",
    "character",
    "characters",
    "request",
    "requests",
    "try",
    "tries",
    "attempt",
    "attempts",
    "ways",
    "times",
    "%",
    "percent",
];

/// A four-digit year group; range-checked after matching.
const YEAR: &str = r"(?P<year>[0-9]{4})\b";

/// A day of the month with an optional ordinal suffix ("3", "3rd").
const DAY: &str = r"(?P<day>[0-9]{1,2})(?:st|nd|rd|th)?";

/// Between a month and its year: white space or a comma, then an optional
/// "of" ("May 2026", "May, 2026", "May of 2026").
const MONTH_YEAR_GAP: &str = r"(?:\s*,\s*|\s+)(?:of\s+)?";

/// Between a day and its year in "May 3, 2026".
const DAY_YEAR_GAP: &str = r"(?:\s*,\s*|\s+)";

/// The grammatical shapes a window can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// "3 May 2026", "3rd of May, 2026".
    DayMonthYear,
    /// "May 3, 2026", "May 3rd 2026".
    MonthDayYear,
    /// "2026-05-03".
    IsoDate,
    /// "first week of May 2026".
    WeekOfMonth,
    /// "early May 2026", "mid-May 2026", "late May 2026".
    PartOfMonth,
    /// "May 2026".
    Month,
    /// "in 2025", "during 2025".
    Year,
}

/// Every form, in no particular order (precedence comes from
/// [`Form::specificity`], not from this list).
const FORMS: [Form; 7] = [
    Form::DayMonthYear,
    Form::MonthDayYear,
    Form::IsoDate,
    Form::WeekOfMonth,
    Form::PartOfMonth,
    Form::Month,
    Form::Year,
];

impl Form {
    /// How fine the period is; the finest match wins.
    fn granularity(self) -> Granularity {
        match self {
            Form::DayMonthYear | Form::MonthDayYear | Form::IsoDate => Granularity::Day,
            Form::WeekOfMonth | Form::PartOfMonth => Granularity::Week,
            Form::Month => Granularity::Month,
            Form::Year => Granularity::Year,
        }
    }

    /// The case-insensitive regex for this form.
    fn pattern(self) -> String {
        let month = format!("(?P<month>{MONTH_NAME_PATTERN})");
        let body = match self {
            Form::DayMonthYear => format!(r"\b{DAY}\s+(?:of\s+)?{month}{MONTH_YEAR_GAP}{YEAR}"),
            Form::MonthDayYear => format!(r"\b{month}\s+(?:the\s+)?{DAY}{DAY_YEAR_GAP}{YEAR}"),
            // No trailing `\b`: a time may follow directly ("2026-05-03T10:00").
            Form::IsoDate => {
                r"\b(?P<year>[0-9]{4})-(?P<month_number>[0-9]{2})-(?P<day>[0-9]{2})".to_string()
            }
            Form::WeekOfMonth => format!(
                r"\b(?P<ordinal>first|1st|second|2nd|third|3rd|fourth|4th|last|final)\s+week\s+(?:of|in)\s+{month}{MONTH_YEAR_GAP}{YEAR}"
            ),
            Form::PartOfMonth => format!(r"\b{PART_OF}{month}{MONTH_YEAR_GAP}{YEAR}"),
            Form::Month => format!(r"\b{month}{MONTH_YEAR_GAP}{YEAR}"),
            Form::Year => format!(r"\b(?:in|during)\s+(?:the\s+year\s+)?{YEAR}"),
        };
        format!("(?i){body}")
    }
}

/// Each form with its compiled regex. A pattern that failed to compile is
/// left out (a unit test asserts none does).
static FORM_PATTERNS: LazyLock<Vec<(Form, Regex)>> = LazyLock::new(|| {
    FORMS
        .iter()
        .filter_map(|&form| Regex::new(&form.pattern()).ok().map(|regex| (form, regex)))
        .collect()
});

/// Every absolute period the query names, in no particular order.
pub(super) fn absolute_candidates(query: &str) -> Vec<Candidate> {
    FORM_PATTERNS
        .iter()
        .flat_map(|(form, regex)| {
            regex
                .captures_iter(query)
                .filter_map(move |captures| candidate(*form, &captures, query))
        })
        .collect()
}

/// The window one regex match names, if its parts make a real date.
fn candidate(form: Form, captures: &Captures<'_>, query: &str) -> Option<Candidate> {
    let whole = captures.get(0)?;
    let after = query.get(whole.end()..)?;
    if continues_as_number(after) {
        return None;
    }
    let year = year_in_range(captures.name("year")?.as_str())?;
    let label = match form {
        Form::Year => {
            if starts_with_quantity_unit(after) {
                return None;
            }
            captures.name("year")?
        }
        _ => whole,
    };
    let (since, until) = match form {
        Form::DayMonthYear | Form::MonthDayYear | Form::IsoDate => {
            let month = match form {
                Form::IsoDate => captures.name("month_number")?.as_str().parse().ok()?,
                _ => month_number(captures.name("month")?.as_str())?,
            };
            let day = captures.name("day")?.as_str().parse().ok()?;
            let date = NaiveDate::from_ymd_opt(year, month, day)?;
            let radius = Days::new(DAY_WINDOW_RADIUS_DAYS);
            (
                date.checked_sub_days(radius)?,
                date.checked_add_days(radius)?,
            )
        }
        Form::WeekOfMonth => {
            let month = month_number(captures.name("month")?.as_str())?;
            week_of_month(year, month, captures.name("ordinal")?.as_str())?
        }
        Form::PartOfMonth => {
            let month = month_number(captures.name("month")?.as_str())?;
            part_of_month(year, month, captures.name("part")?.as_str())?
        }
        Form::Month => {
            let month = month_number(captures.name("month")?.as_str())?;
            months_of(year, month, month)?
        }
        Form::Year => months_of(year, 1, MONTHS_PER_YEAR)?,
    };
    Some(Candidate {
        granularity: form.granularity(),
        start: label.start(),
        end: label.end(),
        window: DateWindow {
            since: format_date(since),
            until: format_date(until),
            label: label.as_str().to_string(),
        },
        anchored: false,
    })
}

/// The year a four-digit group names, if it is in the accepted range.
pub(super) fn year_in_range(digits: &str) -> Option<i32> {
    let year: i32 = digits.parse().ok()?;
    (MIN_YEAR..=MAX_YEAR).contains(&year).then_some(year)
}

/// Whether the text right after a match carries on the number it ended with:
/// another digit, or a separator and a digit ("2025-26", "2026/05", "2026.1").
pub(super) fn continues_as_number(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) if c.is_ascii_digit() => true,
        Some('-' | '/' | '.' | ':') => chars.next().is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    }
}

/// Whether the next word after a number is a unit of quantity ("ms",
/// "steps", "%"), which makes the number a quantity rather than a year.
pub(super) fn starts_with_quantity_unit(rest: &str) -> bool {
    let rest = rest.trim_start();
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '%')
        .flat_map(char::to_lowercase)
        .collect();
    !word.is_empty() && QUANTITY_UNITS.contains(&word.as_str())
}

/// The days of "first week of …" (1–7), second (8–14), third (15–21),
/// fourth (22–28) or last (the month's last seven days).
pub(super) fn week_of_month(
    year: i32,
    month: u32,
    ordinal: &str,
) -> Option<(NaiveDate, NaiveDate)> {
    let last = last_day_of_month(year, month)?;
    let first_day = match ordinal.to_lowercase().as_str() {
        "first" | "1st" => 1,
        "second" | "2nd" => 1 + WEEK_LENGTH_DAYS,
        "third" | "3rd" => 1 + 2 * WEEK_LENGTH_DAYS,
        "fourth" | "4th" => 1 + 3 * WEEK_LENGTH_DAYS,
        // "last" / "final".
        _ => last.day() + 1 - WEEK_LENGTH_DAYS,
    };
    let since = NaiveDate::from_ymd_opt(year, month, first_day)?;
    let until = NaiveDate::from_ymd_opt(year, month, first_day + WEEK_LENGTH_DAYS - 1)?;
    Some((since, until))
}

/// The words that name a part of a period, before it ("early", "mid-",
/// "the end of"), as the regex group `part` with the space or hyphen after
/// them: one pattern for parts of a month ([`part_of_month`]) and of a year,
/// named or said relative to today.
pub(super) const PART_OF: &str =
    r"(?P<part>early|mid|middle\s+of|late|beginning\s+of|start\s+of|end\s+of)(?:\s*-\s*|\s+)";

/// The third of a period that the words of [`PART_OF`] name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Third {
    /// "early", "the beginning of", "the start of".
    Early,
    /// "mid", "the middle of".
    Mid,
    /// "late", "the end of".
    Late,
}

impl Third {
    /// The third `part` (the `part` group of [`PART_OF`]) names.
    pub(super) fn named(part: &str) -> Third {
        let part = part.to_lowercase();
        if part == "early" || part.starts_with("beginning") || part.starts_with("start") {
            Third::Early
        } else if part == "mid" || part.starts_with("middle") {
            Third::Mid
        } else {
            Third::Late
        }
    }
}

/// The days of "early …" (1–10), "mid …" (11–20) or "late …" (21–end).
pub(super) fn part_of_month(year: i32, month: u32, part: &str) -> Option<(NaiveDate, NaiveDate)> {
    let last = last_day_of_month(year, month)?;
    let (first_day, last_day) = match Third::named(part) {
        Third::Early => (1, EARLY_MONTH_LAST_DAY),
        Third::Mid => (EARLY_MONTH_LAST_DAY + 1, MID_MONTH_LAST_DAY),
        Third::Late => (MID_MONTH_LAST_DAY + 1, last.day()),
    };
    Some((
        NaiveDate::from_ymd_opt(year, month, first_day)?,
        NaiveDate::from_ymd_opt(year, month, last_day)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dates::parse_date_window;

    fn window(since: &str, until: &str, label: &str) -> Option<DateWindow> {
        Some(DateWindow {
            since: since.to_string(),
            until: until.to_string(),
            label: label.to_string(),
        })
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(FORM_PATTERNS.len(), FORMS.len());
    }

    #[test]
    fn whole_months() {
        let cases = [
            (
                "in May 2026",
                window("2026-05-01", "2026-05-31", "May 2026"),
            ),
            (
                "during May 2026",
                window("2026-05-01", "2026-05-31", "May 2026"),
            ),
            (
                "what happened in May 2026?",
                window("2026-05-01", "2026-05-31", "May 2026"),
            ),
            ("May 2026", window("2026-05-01", "2026-05-31", "May 2026")),
            (
                "notes from may 2026",
                window("2026-05-01", "2026-05-31", "may 2026"),
            ),
            (
                "IN MAY 2026",
                window("2026-05-01", "2026-05-31", "MAY 2026"),
            ),
            (
                "in Feb 2026",
                window("2026-02-01", "2026-02-28", "Feb 2026"),
            ),
            (
                "in February 2028",
                window("2028-02-01", "2028-02-29", "February 2028"),
            ),
            (
                "in Feb 2000",
                window("2000-02-01", "2000-02-29", "Feb 2000"),
            ),
            (
                "in Feb 1900",
                window("1900-02-01", "1900-02-28", "Feb 1900"),
            ),
            (
                "in Sept 2025",
                window("2025-09-01", "2025-09-30", "Sept 2025"),
            ),
            (
                "in Sept. 2025",
                window("2025-09-01", "2025-09-30", "Sept. 2025"),
            ),
            (
                "in sep 2025",
                window("2025-09-01", "2025-09-30", "sep 2025"),
            ),
            (
                "in September 2025",
                window("2025-09-01", "2025-09-30", "September 2025"),
            ),
            (
                "in Dec 2025",
                window("2025-12-01", "2025-12-31", "Dec 2025"),
            ),
            (
                "in January 2026",
                window("2026-01-01", "2026-01-31", "January 2026"),
            ),
            (
                "in April 2026",
                window("2026-04-01", "2026-04-30", "April 2026"),
            ),
            (
                "in June 2026",
                window("2026-06-01", "2026-06-30", "June 2026"),
            ),
            (
                "in jul 2026",
                window("2026-07-01", "2026-07-31", "jul 2026"),
            ),
            (
                "in Nov, 2026",
                window("2026-11-01", "2026-11-30", "Nov, 2026"),
            ),
            (
                "in May of 2026",
                window("2026-05-01", "2026-05-31", "May of 2026"),
            ),
            (
                "in March 2199",
                window("2199-03-01", "2199-03-31", "March 2199"),
            ),
        ];
        for (query, expected) in cases {
            assert_eq!(parse_date_window(query), expected, "{query}");
        }
    }

    #[test]
    fn absolute_ranges_seasons_and_quarters_and_nothing_said_relative_to_now() {
        let cases = [
            (
                "what happened between March and April 2026?",
                window("2026-03-01", "2026-04-30", "March and April 2026"),
            ),
            (
                "notes from Q1 2026",
                window("2026-01-01", "2026-03-31", "Q1 2026"),
            ),
            (
                "photos from spring 2026",
                window("2026-03-01", "2026-05-31", "spring 2026"),
            ),
        ];
        for (query, expected) in cases {
            assert_eq!(parse_date_window(query), expected, "{query}");
        }
        // Today decides these: an anchorless reader takes none.
        for query in [
            "last March",
            "between March and April",
            "last month",
            "in May",
        ] {
            assert_eq!(parse_date_window(query), None, "{query}");
        }
        // The absolute forms keep their precedence.
        assert_eq!(
            parse_date_window("In 2026, especially 3 May 2026").map(|w| w.label),
            Some("3 May 2026".to_string())
        );
    }

    #[test]
    fn whole_years() {
        let cases = [
            ("in 2025", window("2025-01-01", "2025-12-31", "2025")),
            ("during 2025", window("2025-01-01", "2025-12-31", "2025")),
            (
                "What did we ship in 2024?",
                window("2024-01-01", "2024-12-31", "2024"),
            ),
            ("DURING 1999", window("1999-01-01", "1999-12-31", "1999")),
            (
                "in the year 2030",
                window("2030-01-01", "2030-12-31", "2030"),
            ),
            ("in 1900", window("1900-01-01", "1900-12-31", "1900")),
            ("in 2199", window("2199-01-01", "2199-12-31", "2199")),
            (
                "took 2000 ms in 2025",
                window("2025-01-01", "2025-12-31", "2025"),
            ),
        ];
        for (query, expected) in cases {
            assert_eq!(parse_date_window(query), expected, "{query}");
        }
    }

    #[test]
    fn days_reach_two_days_either_side() {
        let cases = [
            (
                "3 May 2026",
                window("2026-05-01", "2026-05-05", "3 May 2026"),
            ),
            (
                "on the 3rd of May, 2026",
                window("2026-05-01", "2026-05-05", "3rd of May, 2026"),
            ),
            (
                "8 May, 2023",
                window("2023-05-06", "2023-05-10", "8 May, 2023"),
            ),
            (
                "May 3, 2026",
                window("2026-05-01", "2026-05-05", "May 3, 2026"),
            ),
            (
                "may 3rd 2026",
                window("2026-05-01", "2026-05-05", "may 3rd 2026"),
            ),
            (
                "May 3 2026",
                window("2026-05-01", "2026-05-05", "May 3 2026"),
            ),
            (
                "Sept 21st, 2025",
                window("2025-09-19", "2025-09-23", "Sept 21st, 2025"),
            ),
            (
                "1 Jan 2026",
                window("2025-12-30", "2026-01-03", "1 Jan 2026"),
            ),
            (
                "Dec 31, 2025",
                window("2025-12-29", "2026-01-02", "Dec 31, 2025"),
            ),
            (
                "1 March 2028",
                window("2028-02-28", "2028-03-03", "1 March 2028"),
            ),
            (
                "1 March 2026",
                window("2026-02-27", "2026-03-03", "1 March 2026"),
            ),
            (
                "Feb 29, 2028",
                window("2028-02-27", "2028-03-02", "Feb 29, 2028"),
            ),
            (
                "30 April 2026",
                window("2026-04-28", "2026-05-02", "30 April 2026"),
            ),
            (
                "on 2026-05-03",
                window("2026-05-01", "2026-05-05", "2026-05-03"),
            ),
            (
                "at 2026-01-01T09:30Z",
                window("2025-12-30", "2026-01-03", "2026-01-01"),
            ),
        ];
        for (query, expected) in cases {
            assert_eq!(parse_date_window(query), expected, "{query}");
        }
    }

    #[test]
    fn impossible_days_fall_back_or_fail() {
        let cases = [
            // Not a day; the month is still named.
            (
                "30 Feb 2026",
                window("2026-02-01", "2026-02-28", "Feb 2026"),
            ),
            (
                "29 Feb 2026",
                window("2026-02-01", "2026-02-28", "Feb 2026"),
            ),
            (
                "31 April 2026",
                window("2026-04-01", "2026-04-30", "April 2026"),
            ),
            // "Feb 30, 2026" names neither a day nor "Feb 2026".
            ("Feb 30, 2026", None),
            ("0 May 2026", window("2026-05-01", "2026-05-31", "May 2026")),
            ("on 2026-02-30", None),
            ("on 2026-13-01", None),
        ];
        for (query, expected) in cases {
            assert_eq!(parse_date_window(query), expected, "{query}");
        }
    }

    #[test]
    fn weeks_of_a_month() {
        let cases = [
            (
                "first week of May 2026",
                window("2026-05-01", "2026-05-07", "first week of May 2026"),
            ),
            (
                "in the 1st week of May 2026",
                window("2026-05-01", "2026-05-07", "1st week of May 2026"),
            ),
            (
                "second week of May 2026",
                window("2026-05-08", "2026-05-14", "second week of May 2026"),
            ),
            (
                "third week of May 2026",
                window("2026-05-15", "2026-05-21", "third week of May 2026"),
            ),
            (
                "fourth week of May 2026",
                window("2026-05-22", "2026-05-28", "fourth week of May 2026"),
            ),
            (
                "the last week of May 2026",
                window("2026-05-25", "2026-05-31", "last week of May 2026"),
            ),
            (
                "Last Week of Feb 2026",
                window("2026-02-22", "2026-02-28", "Last Week of Feb 2026"),
            ),
            (
                "final week of February 2028",
                window("2028-02-23", "2028-02-29", "final week of February 2028"),
            ),
            (
                "last week in April 2026",
                window("2026-04-24", "2026-04-30", "last week in April 2026"),
            ),
        ];
        for (query, expected) in cases {
            assert_eq!(parse_date_window(query), expected, "{query}");
        }
    }

    #[test]
    fn parts_of_a_month() {
        let cases = [
            (
                "early May 2026",
                window("2026-05-01", "2026-05-10", "early May 2026"),
            ),
            (
                "mid May 2026",
                window("2026-05-11", "2026-05-20", "mid May 2026"),
            ),
            (
                "mid-May 2026",
                window("2026-05-11", "2026-05-20", "mid-May 2026"),
            ),
            (
                "late May 2026",
                window("2026-05-21", "2026-05-31", "late May 2026"),
            ),
            (
                "late Feb 2026",
                window("2026-02-21", "2026-02-28", "late Feb 2026"),
            ),
            (
                "LATE FEB 2028",
                window("2028-02-21", "2028-02-29", "LATE FEB 2028"),
            ),
            (
                "late April 2026",
                window("2026-04-21", "2026-04-30", "late April 2026"),
            ),
            (
                "at the beginning of May 2026",
                window("2026-05-01", "2026-05-10", "beginning of May 2026"),
            ),
            (
                "start of June 2026",
                window("2026-06-01", "2026-06-10", "start of June 2026"),
            ),
            (
                "middle of May 2026",
                window("2026-05-11", "2026-05-20", "middle of May 2026"),
            ),
            (
                "by the end of Dec 2025",
                window("2025-12-21", "2025-12-31", "end of Dec 2025"),
            ),
        ];
        for (query, expected) in cases {
            assert_eq!(parse_date_window(query), expected, "{query}");
        }
    }

    #[test]
    fn most_specific_then_leftmost_wins() {
        let cases = [
            (
                "in 2026, especially 3 May 2026",
                window("2026-05-01", "2026-05-05", "3 May 2026"),
            ),
            (
                "May 2026 versus June 2026",
                window("2026-05-01", "2026-05-31", "May 2026"),
            ),
            (
                "late June 2026 or 2 May 2026",
                window("2026-04-30", "2026-05-04", "2 May 2026"),
            ),
            (
                "in May 2026, mostly the first week of June 2026",
                window("2026-06-01", "2026-06-07", "first week of June 2026"),
            ),
            (
                // A range of absolute days is the range, not its first day.
                "between 3 May 2026 and May 9, 2026",
                window("2026-05-03", "2026-05-09", "3 May 2026 and May 9, 2026"),
            ),
            (
                "during 2024 and in March 2025",
                window("2025-03-01", "2025-03-31", "March 2025"),
            ),
            (
                "in 2024 or in 2025",
                window("2024-01-01", "2024-12-31", "2024"),
            ),
        ];
        for (query, expected) in cases {
            assert_eq!(parse_date_window(query), expected, "{query}");
        }
    }

    #[test]
    fn not_windows() {
        let queries = [
            "",
            "what did we decide?",
            "ticket 2025",
            "error 2024 in the logs",
            "room 1999",
            "2025",
            "PR #2026 is merged",
            "last week",
            "two months ago",
            "yesterday",
            "in May",
            "during May",
            "early May",
            "first week of May",
            "in 1899",
            "in 2200",
            "May 1899",
            "3 May 2300",
            "in 20255",
            "in 2025-26",
            "in 2026/05",
            "in 2000 ms",
            "finished in 1999 steps",
            "in 2000%",
            "I may 2x the budget",
            "maybe 2026",
            "mayday 2026",
            "in 12345",
        ];
        for query in queries {
            assert_eq!(parse_date_window(query), None, "{query:?}");
        }
    }

    #[test]
    fn labels_keep_the_query_text() {
        let found = parse_date_window("Recap of MID-may 2026, please");
        assert_eq!(found, window("2026-05-11", "2026-05-20", "MID-may 2026"));
    }
}
