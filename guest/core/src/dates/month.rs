//! Month names and month-length arithmetic shared by the date parsers.
//!
//! Both the window parser and the relative-cue resolver need the same three
//! things: a regex fragment that recognises an English month name (full or
//! abbreviated), a way to turn the matched word into a month number, and
//! calendar arithmetic that respects month lengths. Month arithmetic always
//! *clamps* to the end of the target month: one month before 31 March is the
//! last day of February (the 28th, or the 29th in a leap year), never an
//! overflow into March.

use chrono::{Months, NaiveDate};

/// A regex fragment (no capture groups, to be wrapped by the caller) matching
/// a month name: the full name or its three-letter abbreviation, plus "Sept",
/// optionally followed by an abbreviation dot. Callers compile it with `(?i)`.
pub(super) const MONTH_NAME_PATTERN: &str = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?";

/// The English month names, lower-case, January first: the one month table.
/// The stems below, the entity noise words
/// ([`crate::entity::COMMON_TITLE_WORDS`]) and cognify's calendar words are
/// built from it.
pub(crate) const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The one abbreviation of a month that is not its three-letter stem.
pub(crate) const SEPT: &str = "sept";

/// The three-letter stems of the month names, January first: every accepted
/// spelling starts with its month's stem, and no two stems collide (the
/// abbreviations `jan`, `feb`, …).
pub(crate) const MONTH_STEMS: [&str; 12] = month_stems();

/// The first three letters of each of [`MONTH_NAMES`] (evaluated at compile
/// time: a name shorter than that would fail the build).
// Indexing in a function only `const` items call: out of range is a build
// error, never a panic at run time.
#[allow(clippy::indexing_slicing)]
const fn month_stems() -> [&'static str; 12] {
    let mut stems = [""; 12];
    let mut index = 0;
    while index < MONTH_NAMES.len() {
        stems[index] = MONTH_NAMES[index].split_at(3).0;
        index += 1;
    }
    stems
}

/// The number of months in a year, for turning years into months.
pub(super) const MONTHS_PER_YEAR: u32 = 12;

/// The month number (1 = January) of a month name matched by
/// [`MONTH_NAME_PATTERN`], in any case.
pub(super) fn month_number(name: &str) -> Option<u32> {
    let stem: String = name.chars().take(3).flat_map(char::to_lowercase).collect();
    let index = MONTH_STEMS
        .iter()
        .position(|candidate| *candidate == stem)?;
    u32::try_from(index).ok().map(|index| index + 1)
}

/// The last day of a month; None for a month outside 1–12 or a year chrono
/// cannot represent.
pub(super) fn last_day_of_month(year: i32, month: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(year, month, 1)?
        .checked_add_months(Months::new(1))?
        .pred_opt()
}

/// The days from the first of month `first_month` to the last of
/// `last_month`, in `year` (a month, a quarter, a half, a year); None as
/// for [`last_day_of_month`].
pub(super) fn months_of(
    year: i32,
    first_month: u32,
    last_month: u32,
) -> Option<(NaiveDate, NaiveDate)> {
    Some((
        NaiveDate::from_ymd_opt(year, first_month, 1)?,
        last_day_of_month(year, last_month)?,
    ))
}

/// The date `months` months after `date` (before it when negative), clamped
/// to the end of the target month; None when out of chrono's range.
pub(super) fn shift_months(date: NaiveDate, months: i64) -> Option<NaiveDate> {
    let magnitude = Months::new(u32::try_from(months.unsigned_abs()).ok()?);
    if months < 0 {
        date.checked_sub_months(magnitude)
    } else {
        date.checked_add_months(magnitude)
    }
}

#[cfg(test)]
mod tests {
    use chrono::Datelike;

    use super::*;

    fn date(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn month_numbers_from_every_spelling() {
        let cases = [
            ("January", 1),
            ("jan", 1),
            ("Feb", 2),
            ("MARCH", 3),
            ("apr", 4),
            ("May", 5),
            ("June", 6),
            ("jul", 7),
            ("August", 8),
            ("Sept", 9),
            ("Sept.", 9),
            ("sep", 9),
            ("September", 9),
            ("Oct.", 10),
            ("november", 11),
            ("Dec", 12),
        ];
        for (name, expected) in cases {
            assert_eq!(month_number(name), Some(expected), "{name}");
        }
        for bad in ["", "ma", "smarch", "month"] {
            assert_eq!(month_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_name_and_abbreviation_of_the_table_is_recognised() {
        let pattern = regex::Regex::new(&format!("(?i)^{MONTH_NAME_PATTERN}$")).unwrap();
        for (index, (name, stem)) in MONTH_NAMES.iter().zip(MONTH_STEMS).enumerate() {
            let number = u32::try_from(index + 1).unwrap();
            assert!(name.starts_with(stem), "{stem} is not the stem of {name}");
            for spelling in [*name, stem] {
                assert!(pattern.is_match(spelling), "{spelling}");
                assert_eq!(month_number(spelling), Some(number), "{spelling}");
            }
        }
        assert!(pattern.is_match(SEPT));
        assert_eq!(month_number(SEPT), Some(9));
        let unique: std::collections::BTreeSet<&str> = MONTH_STEMS.into_iter().collect();
        assert_eq!(unique.len(), MONTH_STEMS.len());
    }

    #[test]
    fn last_days_respect_leap_years() {
        let cases = [
            (2026, 1, "2026-01-31"),
            (2026, 2, "2026-02-28"),
            (2028, 2, "2028-02-29"),
            (2000, 2, "2000-02-29"),
            (1900, 2, "1900-02-28"),
            (2026, 4, "2026-04-30"),
            (2026, 12, "2026-12-31"),
        ];
        for (year, month, expected) in cases {
            let last = last_day_of_month(year, month).unwrap();
            assert_eq!(last, date(expected), "{year}-{month}");
            assert_eq!((last.year(), last.month()), (year, month));
        }
        assert_eq!(last_day_of_month(2026, 13), None);
        assert_eq!(last_day_of_month(2026, 0), None);
    }

    #[test]
    fn month_shifts_clamp_to_month_end() {
        let cases = [
            ("2026-03-31", -1, "2026-02-28"),
            ("2024-03-31", -1, "2024-02-29"),
            ("2026-01-31", 1, "2026-02-28"),
            ("2026-05-15", -5, "2025-12-15"),
            ("2024-02-29", -12, "2023-02-28"),
            ("2024-02-29", 48, "2028-02-29"),
            ("2026-05-08", 0, "2026-05-08"),
        ];
        for (start, months, expected) in cases {
            assert_eq!(
                shift_months(date(start), months),
                Some(date(expected)),
                "{start} {months}"
            );
        }
        assert_eq!(shift_months(date("2026-05-08"), i64::MAX), None);
    }
}
