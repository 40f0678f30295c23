//! Holidays people date things by: "what did we do over Christmas?",
//! "the week we spent in Seville at Easter", "last Halloween".
//!
//! A holiday is a short span of days in each year, named by a word a
//! calendar fixes, not by a phrasing of any particular fact: the periods
//! [`super::spoken`] resolves ("over Easter", "last Christmas",
//! "Christmas 2025") are these spans.
//!
//! | Holiday | Its span in year *Y* |
//! |---|---|
//! | Christmas (Xmas, Christmas Eve / Day) | 18 December *Y* – 1 January *Y*+1: the run-up and the days between the holidays, which is what "over Christmas" and "the Christmas party" reach |
//! | New Year's (Eve / Day, NYE) | 30 December *Y* – 2 January *Y*+1 |
//! | Easter (Sunday, Monday, weekend, holidays) | Maundy Thursday – Easter Monday around Easter Sunday *Y* (the Gregorian computus, [`easter_sunday`]) |
//! | Thanksgiving | the fourth Thursday of November *Y* to the Sunday after (the United States' holiday, the one the word names alone) |
//! | Halloween | 29 October – 1 November *Y* |
//! | Valentine's (Day) | 13 – 15 February *Y* |
//!
//! **Which year** follows the months' rules ([`super::spoken`]): "last
//! Easter" is the most recent one that has ended, "next Christmas" the
//! first that has not begun, "this Christmas" the one of today's year; with
//! no relation word the question's tense decides (the most recent one that
//! has begun for a question in the past, the one under way or coming for a
//! question that looks ahead, the nearer of the two in the present), and a
//! year after the word fixes it ("Christmas 2025").
//!
//! Not holidays: the word as a thing's name, "Easter egg" (a hidden
//! feature) or "Christmas Island" and "Easter Island" (places), told by the
//! noun after it ([`NOT_A_HOLIDAY_AFTER`]).

use chrono::{Datelike, Days, NaiveDate, Weekday};

/// The regex alternatives that name a holiday, in the `holiday` group.
pub(super) const HOLIDAY: &str = r"(?P<holiday>christmas(?:\s+(?:eve|day))?|x-?mas|new\s+year'?s(?:\s+(?:eve|day))?|nye|easter(?:\s+(?:sunday|monday|weekend|holidays?|break))?|thanksgiving|hallowe'?en|valentine'?s(?:\s+day)?)";

/// Nouns after a holiday's word that make it a thing's name, not a time
/// ("an Easter egg in the app", "Christmas Island").
pub(super) const NOT_A_HOLIDAY_AFTER: &[&str] = &["egg", "eggs", "island", "islands"];

/// A holiday of [`HOLIDAY`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Holiday {
    Christmas,
    NewYear,
    Easter,
    Thanksgiving,
    Halloween,
    Valentines,
}

/// How many days before Easter Sunday its span starts (Maundy Thursday).
const EASTER_DAYS_BEFORE: u64 = 3;

/// How many days after Easter Sunday its span ends (Easter Monday).
const EASTER_DAYS_AFTER: u64 = 1;

/// How many days after Thanksgiving Thursday its span ends (the Sunday).
const THANKSGIVING_DAYS_AFTER: u64 = 3;

/// Which Thursday of November Thanksgiving is.
const THANKSGIVING_THURSDAY: u8 = 4;

impl Holiday {
    /// The holiday the words of [`HOLIDAY`]'s group name.
    pub(super) fn from_words(words: &str) -> Option<Holiday> {
        let lower = words.to_lowercase();
        let first = lower.split_whitespace().next().unwrap_or_default();
        Some(match first {
            "christmas" | "xmas" | "x-mas" => Holiday::Christmas,
            "new" | "nye" => Holiday::NewYear,
            "easter" => Holiday::Easter,
            "thanksgiving" => Holiday::Thanksgiving,
            "halloween" | "hallowe'en" => Holiday::Halloween,
            _ if first.starts_with("valentine") => Holiday::Valentines,
            _ => return None,
        })
    }

    /// Its first and last day in `year` (see the module docs).
    pub(super) fn span(self, year: i32) -> Option<(NaiveDate, NaiveDate)> {
        let day = |y: i32, m: u32, d: u32| NaiveDate::from_ymd_opt(y, m, d);
        Some(match self {
            Holiday::Christmas => (day(year, 12, 18)?, day(year.checked_add(1)?, 1, 1)?),
            Holiday::NewYear => (day(year, 12, 30)?, day(year.checked_add(1)?, 1, 2)?),
            Holiday::Easter => {
                let sunday = easter_sunday(year)?;
                (
                    sunday.checked_sub_days(Days::new(EASTER_DAYS_BEFORE))?,
                    sunday.checked_add_days(Days::new(EASTER_DAYS_AFTER))?,
                )
            }
            Holiday::Thanksgiving => {
                let thursday = NaiveDate::from_weekday_of_month_opt(
                    year,
                    11,
                    Weekday::Thu,
                    THANKSGIVING_THURSDAY,
                )?;
                (
                    thursday,
                    thursday.checked_add_days(Days::new(THANKSGIVING_DAYS_AFTER))?,
                )
            }
            Holiday::Halloween => (day(year, 10, 29)?, day(year, 11, 1)?),
            Holiday::Valentines => (day(year, 2, 13)?, day(year, 2, 15)?),
        })
    }

    /// The year of the occurrence meant, seen from `today`: the holiday's
    /// span in that year is the window.
    pub(super) fn year(self, today: NaiveDate, meant: Meant) -> Option<i32> {
        let year = today.year();
        let spans: Vec<(i32, NaiveDate, NaiveDate)> = [year - 1, year, year + 1]
            .into_iter()
            .filter_map(|y| self.span(y).map(|(since, until)| (y, since, until)))
            .collect();
        let begun = spans.iter().rev().find(|(_, since, _)| *since <= today);
        let ended = spans.iter().rev().find(|(_, _, until)| *until < today);
        let not_over = spans.iter().find(|(_, _, until)| *until >= today);
        let not_begun = spans.iter().find(|(_, since, _)| *since > today);
        Some(match meant {
            Meant::Begun => begun?.0,
            Meant::Ended => ended?.0,
            Meant::ThisYear => year,
            Meant::NotBegun => not_begun?.0,
            Meant::NotOver => not_over?.0,
            Meant::Nearer => match (begun, not_over) {
                (Some(past), _) if past.2 >= today => past.0,
                (Some(past), Some(coming)) => {
                    let back = today.signed_duration_since(past.2).num_days();
                    let ahead = coming.1.signed_duration_since(today).num_days();
                    if ahead < back { coming.0 } else { past.0 }
                }
                (Some(past), None) => past.0,
                (None, Some(coming)) => coming.0,
                (None, None) => return None,
            },
        })
    }
}

/// Which occurrence of a holiday a question means ([`Holiday::year`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Meant {
    /// The most recent one that has begun: a question in the past.
    Begun,
    /// The most recent one that has ended: "last Easter".
    Ended,
    /// The one of today's year: "this Christmas".
    ThisYear,
    /// The first one that has not begun: "next Christmas".
    NotBegun,
    /// The one under way or the first one after: a question that looks
    /// ahead.
    NotOver,
    /// The one under way, else the nearer of the last one and the next
    /// (the last one when both are as far): a question in the present.
    Nearer,
}

/// Easter Sunday of a Gregorian `year`: the anonymous Gregorian algorithm
/// (Meeus/Jones/Butcher).
pub(super) fn easter_sunday(year: i32) -> Option<NaiveDate> {
    if year < 1583 {
        return None;
    }
    let a = year % 19;
    let b = year / 100;
    let c = year % 100;
    let d = b / 4;
    let e = b % 4;
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15) % 30;
    let i = c / 4;
    let k = c % 4;
    let l = (32 + 2 * e + 2 * i - h - k) % 7;
    let m = (a + 11 * h + 22 * l) / 451;
    let month = (h + l - 7 * m + 114) / 31;
    let day = (h + l - 7 * m + 114) % 31 + 1;
    NaiveDate::from_ymd_opt(year, u32::try_from(month).ok()?, u32::try_from(day).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn easter_falls_on_the_published_sundays() {
        // Published dates of Western Easter.
        for (year, sunday) in [
            (2019, "2019-04-21"),
            (2024, "2024-03-31"),
            (2025, "2025-04-20"),
            (2026, "2026-04-05"),
            (2027, "2027-03-28"),
            (2038, "2038-04-25"),
        ] {
            assert_eq!(easter_sunday(year), Some(date(sunday)), "{year}");
        }
    }

    #[test]
    fn thanksgiving_is_the_fourth_thursday_of_november() {
        assert_eq!(
            Holiday::Thanksgiving.span(2025),
            Some((date("2025-11-27"), date("2025-11-30")))
        );
        assert_eq!(
            Holiday::Thanksgiving.span(2026),
            Some((date("2026-11-26"), date("2026-11-29")))
        );
    }

    #[test]
    fn the_occurrence_meant_follows_today() {
        let may = date("2026-05-08");
        let christmas = Holiday::Christmas;
        assert_eq!(christmas.year(may, Meant::Begun), Some(2025));
        assert_eq!(christmas.year(may, Meant::Ended), Some(2025));
        assert_eq!(christmas.year(may, Meant::NotBegun), Some(2026));
        assert_eq!(christmas.year(may, Meant::NotOver), Some(2026));
        // The last one ended 127 days ago, the next begins in 224.
        assert_eq!(christmas.year(may, Meant::Nearer), Some(2025));
        let november = date("2026-11-20");
        assert_eq!(christmas.year(november, Meant::Nearer), Some(2026));
        // Under way: the one under way, whatever the tense; not yet ended.
        let boxing_day = date("2026-12-26");
        assert_eq!(christmas.year(boxing_day, Meant::Begun), Some(2026));
        assert_eq!(christmas.year(boxing_day, Meant::Nearer), Some(2026));
        assert_eq!(christmas.year(boxing_day, Meant::Ended), Some(2025));
        assert_eq!(christmas.year(boxing_day, Meant::NotBegun), Some(2027));
    }

    #[test]
    fn every_word_names_its_holiday() {
        for (words, holiday) in [
            ("Christmas Eve", Holiday::Christmas),
            ("xmas", Holiday::Christmas),
            ("New Year's Eve", Holiday::NewYear),
            ("NYE", Holiday::NewYear),
            ("Easter weekend", Holiday::Easter),
            ("Thanksgiving", Holiday::Thanksgiving),
            ("Hallowe'en", Holiday::Halloween),
            ("Valentine's Day", Holiday::Valentines),
            ("valentines", Holiday::Valentines),
        ] {
            assert_eq!(Holiday::from_words(words), Some(holiday), "{words}");
        }
        assert_eq!(Holiday::from_words("spring"), None);
    }
}
