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
//! | Christmas (Xmas, Christmas Eve / Day) | 18 December *Y* – 1 January *Y*+1: the run-up and the days between the holidays, when the parties and the days off fall and what is written about them is written |
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
//! Not holidays: the word as a modifier of the word after it, a thing named
//! after the holiday rather than a time: "Easter egg" (a hidden feature),
//! "Christmas Island" (a place), "a Christmas cactus", "Halloween costumes".
//! A holiday names a time only where the sentence goes on with a
//! closed-class word, a noun of time or of an occasion after it
//! ([`TIME_FOLLOWERS`]), or ends there.

use chrono::{Days, NaiveDate, Weekday};

/// The regex alternatives that name a holiday, in the `holiday` group.
pub(super) const HOLIDAY: &str = r"(?P<holiday>christmas(?:\s+(?:eve|day))?|x-?mas|new\s+year'?s(?:\s+(?:eve|day))?|nye|easter(?:\s+(?:sunday|monday|weekend|holidays?|break))?|thanksgiving|hallowe'?en|valentine'?s(?:\s+day)?)";

/// The words that may follow a holiday's word when it names a time: the
/// closed-class words that go on a sentence after a time ("over Christmas
/// with the kids", "at Easter and …", "what happened at Halloween?"), the
/// nouns of time ("Christmas morning", "the Easter holidays") and of the
/// occasions the holiday is kept with ("Christmas dinner", "the Halloween
/// party", "our Thanksgiving trip"). Any other word after it makes the
/// holiday a modifier of that word, a thing named after the holiday rather
/// than a time: "an Easter egg", "Christmas Island", "a Christmas cactus",
/// "the Halloween costume shop", "mum's Thanksgiving stuffing".
pub(super) const TIME_FOLLOWERS: &[&str] = &[
    // Nouns of time.
    "eve",
    "day",
    "days",
    "morning",
    "afternoon",
    "evening",
    "night",
    "week",
    "weekend",
    "break",
    "holiday",
    "holidays",
    "vacation",
    "season",
    "time",
    "period",
    "sunday",
    "monday",
    // Nouns of the occasions a holiday is kept with.
    "dinner",
    "dinners",
    "lunch",
    "breakfast",
    "brunch",
    "meal",
    "feast",
    "party",
    "parties",
    "celebration",
    "celebrations",
    "trip",
    "visit",
    "service",
    "parade",
    "market",
    "fireworks",
    // Prepositions.
    "in",
    "at",
    "with",
    "on",
    "to",
    "for",
    "from",
    "by",
    "near",
    "without",
    "before",
    "after",
    "since",
    "until",
    "till",
    "through",
    "thru",
    "during",
    "around",
    "about",
    "among",
    "like",
    // Conjunctions and clause words.
    "and",
    "or",
    "but",
    "when",
    "while",
    "so",
    "because",
    "then",
    "as",
    "if",
    "where",
    "that",
    // Relation and time adverbs.
    "last",
    "this",
    "next",
    "again",
    "together",
    "ago",
    "yet",
    "already",
    "too",
    "though",
    "just",
    "alone",
    "back",
    "abroad",
    "away",
    "home",
    "there",
    "here",
    "once",
    // Subjects and auxiliaries opening the sentence's next part.
    "i",
    "we",
    "you",
    "he",
    "she",
    "they",
    "it",
    "was",
    "were",
    "is",
    "are",
    "will",
    "did",
    "do",
    "does",
    "has",
    "have",
    "had",
    "went",
    "go",
    "going",
];

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
