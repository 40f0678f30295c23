//! Relative date cues resolved against an anchor.
//!
//! People rarely write dates; they write "yesterday", "last Friday" or "two
//! months ago". Such a cue only means something relative to *when* it was
//! said, so [`resolve_relative_date`] takes an anchor (an ISO-8601 date or
//! date-time, usually the session's date) and turns the **first** (leftmost)
//! cue of a text into a calendar date. When two cues start at the same place,
//! the longer one is taken. The anchor's *local* date is used: a date-time
//! with an offset is read on the calendar day it is written in.
//!
//! All cues are case-insensitive and must stand as whole words: "yesterday's"
//! counts, "lastly" and "todays" do not. The cues and what they resolve to:
//!
//! | Cue | Resolves to |
//! |---|---|
//! | today, tonight, this morning / afternoon / evening | the anchor |
//! | yesterday, last night · the day before yesterday | 1 · 2 days before |
//! | tomorrow · the day after tomorrow | 1 · 2 days after |
//! | the other day | 2 days before (an approximation: the phrase is vague) |
//! | last *Friday* (also "this past Friday") | the most recent Friday strictly before the anchor day |
//! | next *Friday* (also "this coming Friday", "coming Friday") | the first Friday strictly after the anchor day |
//! | this *Friday* | the Friday of the anchor's week, weeks running Monday–Sunday (so it may lie in the past) |
//! | on *Friday* | as "last Friday" when the text looks back ("what did we do on Friday?"), or tells no tense; as "next Friday" when it looks ahead or is in the present ("what's on on Friday?", "we'll meet on Friday"): [`super::tense`]. A habit is no day: "on Fridays", "on Friday evenings" |
//! | last / this / next week | the same weekday 7 days before / the anchor / 7 days after |
//! | last / this / next month | the same day a month before / the anchor / a month after |
//! | last / this / next year | the same date a year before / the anchor / a year after |
//! | last / this / next weekend | the Saturday of the previous / current / following Monday–Sunday week |
//! | the weekend before last | the Saturday a week before last weekend's |
//! | *N* days / weeks / fortnights / months / years ago | *N* units before |
//! | in *N* units, *N* units from now (or from today) | *N* units after |
//!
//! "Last week" and its kin keep the anchor's position inside the period (the
//! same weekday, the same day of the month), which keeps the whole family
//! consistent with "a week ago" and "a month ago". "Last weekend" on a weekday
//! is the Saturday just before; on a Saturday or Sunday it is the Saturday of
//! the weekend before, since the current one is "this weekend".
//!
//! *N* is written in digits (up to six of them) or as a word: "a", "an",
//! "one" … "twelve", "a couple (of)" = 2, "a few" = 3. Month and year
//! arithmetic clamps to the end of the month: one month before 2026-03-31 is
//! 2026-02-28, one year before 2024-02-29 is 2023-02-28.

use std::sync::LazyLock;

use chrono::{Datelike, Days, NaiveDate, Weekday};
use regex::{Captures, Regex};
use serde::{Deserialize, Serialize};

use super::candidate::{Candidate, Granularity};
use super::month::{MONTHS_PER_YEAR, shift_months};
use super::tense::{Tense, TextTense};
use crate::calendar::{format_date, parse_local_date};
use crate::types::{DateWindow, LogicError};

/// A relative cue and the date it resolves to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ResolvedDate {
    /// The cue as written.
    pub cue: String,
    /// `YYYY-MM-DD`.
    pub date: String,
}

/// Days in a week.
pub(super) const DAYS_PER_WEEK: i64 = 7;

/// Days in a fortnight.
pub(super) const DAYS_PER_FORTNIGHT: i64 = 14;

/// How many days back "the other day" is taken to mean.
const OTHER_DAY_OFFSET_DAYS: i64 = -2;

/// The value of "a few".
pub(super) const A_FEW: u64 = 3;

/// The value of "a couple (of)".
const A_COUPLE: u64 = 2;

/// Number words and their values; "a"/"an" mean one.
const NUMBER_WORDS: [(&str, u64); 14] = [
    ("a", 1),
    ("an", 1),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
];

/// A count: "a couple of", "a few", a number word or up to six digits.
pub(super) const COUNT: &str = r"(?P<count>a\s+couple(?:\s+of)?|couple\s+of|a\s+few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[0-9]{1,6})";

/// A unit of a counted offset, singular or plural.
pub(super) const UNIT: &str = r"(?P<unit>day|week|fortnight|month|year)s?";

/// Which way a "last / this / next" cue points.
pub(super) const RELATION: &str = r"(?P<relation>last|this\s+past|this\s+coming|coming|this|next)";

/// A full weekday name.
const WEEKDAY: &str = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)";

/// The families of cues, each with its own regex and resolution rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CueKind {
    /// "the day before yesterday".
    DayBeforeYesterday,
    /// "the day after tomorrow".
    DayAfterTomorrow,
    /// "yesterday", "last night".
    Yesterday,
    /// "tomorrow".
    Tomorrow,
    /// "today", "tonight", "this morning/afternoon/evening".
    Today,
    /// "the other day".
    OtherDay,
    /// "last/this/next Friday".
    Weekday,
    /// "on Friday": which one, the text's tense says.
    BareWeekday,
    /// "last/this/next week/weekend/month/year".
    Period,
    /// "the weekend before last".
    WeekendBeforeLast,
    /// "three days ago".
    Ago,
    /// "in three days", "three days from now".
    Ahead,
}

/// Every cue family.
const CUE_KINDS: [CueKind; 12] = [
    CueKind::DayBeforeYesterday,
    CueKind::DayAfterTomorrow,
    CueKind::Yesterday,
    CueKind::Tomorrow,
    CueKind::Today,
    CueKind::OtherDay,
    CueKind::Weekday,
    CueKind::BareWeekday,
    CueKind::Period,
    CueKind::WeekendBeforeLast,
    CueKind::Ago,
    CueKind::Ahead,
];

impl CueKind {
    /// The case-insensitive regex of this family.
    fn pattern(self) -> String {
        let body = match self {
            CueKind::DayBeforeYesterday => r"\b(?:the\s+)?day\s+before\s+yesterday\b".to_string(),
            CueKind::DayAfterTomorrow => r"\b(?:the\s+)?day\s+after\s+tomorrow\b".to_string(),
            CueKind::Yesterday => r"\b(?:yesterday|last\s+night)\b".to_string(),
            CueKind::Tomorrow => r"\btomorrow\b".to_string(),
            CueKind::Today => {
                r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b".to_string()
            }
            CueKind::OtherDay => r"\bthe\s+other\s+day\b".to_string(),
            CueKind::Weekday => format!(r"\b{RELATION}\s+{WEEKDAY}\b"),
            // Not before a part of the day in the plural: "on Friday
            // evenings" is a habit, no day ("on Fridays" is none either).
            CueKind::BareWeekday => {
                format!(r"\bon\s+{WEEKDAY}\b(?:\s+(?P<habit>mornings|afternoons|evenings|nights))?")
            }
            CueKind::Period => format!(r"\b{RELATION}\s+(?P<period>week|weekend|month|year)\b"),
            CueKind::WeekendBeforeLast => r"\b(?:the\s+)?weekend\s+before\s+last\b".to_string(),
            CueKind::Ago => format!(r"\b{COUNT}\s+{UNIT}\s+ago\b"),
            CueKind::Ahead => format!(
                r"\b(?:in\s+{COUNT}\s+{UNIT}|{COUNT_AGAIN}\s+{UNIT_AGAIN}\s+from\s+(?:now|today))\b",
                COUNT_AGAIN = COUNT.replace("?P<count>", "?P<count2>"),
                UNIT_AGAIN = UNIT.replace("?P<unit>", "?P<unit2>"),
            ),
        };
        format!("(?i){body}")
    }
}

/// Each cue family with its compiled regex. A pattern that failed to compile
/// is left out (a unit test asserts none does).
static CUE_PATTERNS: LazyLock<Vec<(CueKind, Regex)>> = LazyLock::new(|| {
    CUE_KINDS
        .iter()
        .filter_map(|&kind| Regex::new(&kind.pattern()).ok().map(|regex| (kind, regex)))
        .collect()
});

/// Which way a "last / this / next" cue points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Relation {
    Last,
    This,
    Next,
}

/// Resolve the first relative cue in `text` against `anchor`.
///
/// `anchor` is an ISO-8601 date or date-time (see [`crate::calendar`]); its
/// local calendar date is the reference day. Returns `Ok(None)` when the text
/// holds no cue, and `Err(LogicError::InvalidArgument)` naming the anchor when
/// the anchor cannot be read (checked even when the text holds no cue). See
/// the module documentation for the cues and conventions.
pub fn resolve_relative_date(text: &str, anchor: &str) -> Result<Option<ResolvedDate>, LogicError> {
    let anchor_date = parse_local_date(anchor).map_err(|error| match error {
        LogicError::InvalidArgument(message) => {
            LogicError::InvalidArgument(format!("anchor: {message}"))
        }
    })?;
    let tense = TextTense::new(text);
    let tense = &tense;
    let found = CUE_PATTERNS
        .iter()
        .flat_map(|(kind, regex)| {
            regex.captures_iter(text).filter_map(move |captures| {
                let whole = captures.get(0)?;
                let date = resolve(*kind, &captures, tense, anchor_date)?;
                Some((
                    whole.start(),
                    std::cmp::Reverse(whole.end()),
                    whole.as_str(),
                    date,
                ))
            })
        })
        .min_by_key(|(start, longest, _, _)| (*start, *longest));
    Ok(found.map(|(_, _, cue, date)| ResolvedDate {
        cue: cue.to_string(),
        date: format_date(date),
    }))
}

/// Every cue in `text` that names one day, resolved against `anchor`:
/// "yesterday", "tomorrow", the days before and after them, "last / this /
/// next Friday", and a count of days ago or ahead. The vaguer cues ("the
/// other day", "last month", "two weeks ago") name no day a memory could be
/// filed under, and "today" is the anchor itself; none is a candidate.
/// (For [`super::mentions`]: the days a memory's own text names.)
pub(super) fn day_cue_candidates(text: &str, anchor: NaiveDate) -> Vec<Candidate> {
    let tense = TextTense::new(text);
    let tense = &tense;
    CUE_PATTERNS
        .iter()
        .filter(|(kind, _)| {
            matches!(
                kind,
                CueKind::DayBeforeYesterday
                    | CueKind::DayAfterTomorrow
                    | CueKind::Yesterday
                    | CueKind::Tomorrow
                    | CueKind::Weekday
                    | CueKind::BareWeekday
                    | CueKind::Ago
                    | CueKind::Ahead
            )
        })
        .flat_map(|(kind, regex)| {
            regex.captures_iter(text).filter_map(move |captures| {
                let whole = captures.get(0)?;
                let counts_days = |name: &str| {
                    captures
                        .name(name)
                        .is_some_and(|unit| unit.as_str().to_lowercase().starts_with("day"))
                };
                if matches!(kind, CueKind::Ago | CueKind::Ahead)
                    && !counts_days("unit")
                    && !counts_days("unit2")
                {
                    return None;
                }
                let day = format_date(resolve(*kind, &captures, tense, anchor)?);
                Some(Candidate {
                    granularity: Granularity::Day,
                    start: whole.start(),
                    end: whole.end(),
                    window: DateWindow {
                        since: day.clone(),
                        until: day,
                        label: whole.as_str().to_string(),
                    },
                    anchored: true,
                })
            })
        })
        .collect()
}

/// The date one matched cue names in a text of this `tense`, or None when
/// it falls outside the calendar chrono can represent.
fn resolve(
    kind: CueKind,
    captures: &Captures<'_>,
    tense: &TextTense<'_>,
    anchor: NaiveDate,
) -> Option<NaiveDate> {
    match kind {
        CueKind::DayBeforeYesterday => shift_days(anchor, -2),
        CueKind::DayAfterTomorrow => shift_days(anchor, 2),
        CueKind::Yesterday => shift_days(anchor, -1),
        CueKind::Tomorrow => shift_days(anchor, 1),
        CueKind::Today => Some(anchor),
        CueKind::OtherDay => shift_days(anchor, OTHER_DAY_OFFSET_DAYS),
        CueKind::Weekday => {
            let relation = relation(captures.name("relation")?.as_str());
            let weekday = weekday(captures.name("weekday")?.as_str())?;
            relative_weekday(anchor, relation, weekday)
        }
        CueKind::BareWeekday => {
            if captures.name("habit").is_some() {
                return None;
            }
            let weekday = weekday(captures.name("weekday")?.as_str())?;
            let relation = match tense.get() {
                Tense::Past => Relation::Last,
                Tense::Ahead | Tense::Present => Relation::Next,
            };
            relative_weekday(anchor, relation, weekday)
        }
        CueKind::Period => {
            let relation = relation(captures.name("relation")?.as_str());
            let period = captures.name("period")?.as_str().to_lowercase();
            let sign = match relation {
                Relation::Last => -1,
                Relation::This => 0,
                Relation::Next => 1,
            };
            match period.as_str() {
                "week" => shift_days(anchor, sign * DAYS_PER_WEEK),
                "weekend" => weekend_saturday(anchor, sign),
                "month" => shift_months(anchor, sign),
                _ => shift_months(anchor, sign * i64::from(MONTHS_PER_YEAR)),
            }
        }
        CueKind::WeekendBeforeLast => weekend_saturday(anchor, -2),
        CueKind::Ago => {
            let count = count(captures.name("count")?.as_str())?;
            shift_by_units(anchor, captures.name("unit")?.as_str(), count, -1)
        }
        CueKind::Ahead => {
            let (count_text, unit_text) = match (captures.name("count"), captures.name("unit")) {
                (Some(count), Some(unit)) => (count, unit),
                _ => (captures.name("count2")?, captures.name("unit2")?),
            };
            shift_by_units(anchor, unit_text.as_str(), count(count_text.as_str())?, 1)
        }
    }
}

/// The Saturday of the weekend `weeks` weeks from the one of `anchor`'s
/// Monday–Sunday week: "last weekend" is -1, "this weekend" 0, "the weekend
/// before last" -2.
pub(super) fn weekend_saturday(anchor: NaiveDate, weeks: i64) -> Option<NaiveDate> {
    let saturday = relative_weekday(anchor, Relation::This, Weekday::Sat)?;
    shift_days(saturday, weeks.checked_mul(DAYS_PER_WEEK)?)
}

/// The direction of a "last / this past / this / coming / next" word.
pub(super) fn relation(text: &str) -> Relation {
    let text = text.to_lowercase();
    if text.starts_with("last") || text.ends_with("past") {
        Relation::Last
    } else if text.starts_with("next") || text.ends_with("coming") {
        Relation::Next
    } else {
        Relation::This
    }
}

/// The weekday a full English name names.
fn weekday(name: &str) -> Option<Weekday> {
    name.to_lowercase().parse().ok()
}

/// "last Friday" (strictly before), "this Friday" (in the anchor's
/// Monday–Sunday week) or "next Friday" (strictly after).
fn relative_weekday(anchor: NaiveDate, relation: Relation, target: Weekday) -> Option<NaiveDate> {
    let from = i64::from(anchor.weekday().num_days_from_monday());
    let to = i64::from(target.num_days_from_monday());
    let offset = match relation {
        Relation::Last => {
            let back = (from - to).rem_euclid(DAYS_PER_WEEK);
            -(if back == 0 { DAYS_PER_WEEK } else { back })
        }
        Relation::Next => {
            let ahead = (to - from).rem_euclid(DAYS_PER_WEEK);
            if ahead == 0 { DAYS_PER_WEEK } else { ahead }
        }
        Relation::This => to - from,
    };
    shift_days(anchor, offset)
}

/// The value of a count word or number.
pub(super) fn count(text: &str) -> Option<u64> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    match words.as_slice() {
        ["a", "few"] => Some(A_FEW),
        [.., "couple"] | [.., "couple", "of"] => Some(A_COUPLE),
        [word] => NUMBER_WORDS
            .iter()
            .find(|(name, _)| name == word)
            .map(|(_, value)| *value)
            .or_else(|| word.parse().ok()),
        _ => None,
    }
}

/// `anchor` moved by `count` units (days, weeks, fortnights, months, years)
/// in the direction of `sign` (−1 or +1).
pub(super) fn shift_by_units(
    anchor: NaiveDate,
    unit: &str,
    count: u64,
    sign: i64,
) -> Option<NaiveDate> {
    let count = i64::try_from(count).ok()?.checked_mul(sign)?;
    let unit = unit.to_lowercase();
    if unit.starts_with("day") {
        shift_days(anchor, count)
    } else if unit.starts_with("fortnight") {
        shift_days(anchor, count.checked_mul(DAYS_PER_FORTNIGHT)?)
    } else if unit.starts_with("week") {
        shift_days(anchor, count.checked_mul(DAYS_PER_WEEK)?)
    } else if unit.starts_with("month") {
        shift_months(anchor, count)
    } else {
        shift_months(anchor, count.checked_mul(i64::from(MONTHS_PER_YEAR))?)
    }
}

/// `date` moved by `days` days (backwards when negative).
pub(super) fn shift_days(date: NaiveDate, days: i64) -> Option<NaiveDate> {
    let magnitude = Days::new(days.unsigned_abs());
    if days < 0 {
        date.checked_sub_days(magnitude)
    } else {
        date.checked_add_days(magnitude)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-05-08 is a Friday.
    const FRIDAY: &str = "2026-05-08";

    fn resolved(cue: &str, date: &str) -> Result<Option<ResolvedDate>, LogicError> {
        Ok(Some(ResolvedDate {
            cue: cue.to_string(),
            date: date.to_string(),
        }))
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(CUE_PATTERNS.len(), CUE_KINDS.len());
    }

    #[test]
    fn day_cues() {
        let cases = [
            ("what did we do today?", FRIDAY, "today", "2026-05-08"),
            ("Tonight we deploy", FRIDAY, "Tonight", "2026-05-08"),
            (
                "this morning I fixed it",
                FRIDAY,
                "this morning",
                "2026-05-08",
            ),
            ("this afternoon", FRIDAY, "this afternoon", "2026-05-08"),
            ("this Evening", FRIDAY, "this Evening", "2026-05-08"),
            ("yesterday", FRIDAY, "yesterday", "2026-05-07"),
            ("in yesterday's standup", FRIDAY, "yesterday", "2026-05-07"),
            ("YESTERDAY", FRIDAY, "YESTERDAY", "2026-05-07"),
            (
                "last night the build broke",
                FRIDAY,
                "last night",
                "2026-05-07",
            ),
            (
                "the day before yesterday",
                FRIDAY,
                "the day before yesterday",
                "2026-05-06",
            ),
            (
                "day before yesterday",
                FRIDAY,
                "day before yesterday",
                "2026-05-06",
            ),
            ("tomorrow", FRIDAY, "tomorrow", "2026-05-09"),
            ("tomorrow's release", FRIDAY, "tomorrow", "2026-05-09"),
            (
                "The day after tomorrow",
                FRIDAY,
                "The day after tomorrow",
                "2026-05-10",
            ),
            (
                "I saw it the other day",
                FRIDAY,
                "the other day",
                "2026-05-06",
            ),
            // Month and year boundaries.
            ("yesterday", "2026-01-01", "yesterday", "2025-12-31"),
            ("tomorrow", "2025-12-31", "tomorrow", "2026-01-01"),
            ("yesterday", "2028-03-01", "yesterday", "2028-02-29"),
            ("yesterday", "2026-03-01", "yesterday", "2026-02-28"),
            (
                "the day after tomorrow",
                "2028-02-28",
                "the day after tomorrow",
                "2028-03-01",
            ),
        ];
        for (text, anchor, cue, date) in cases {
            assert_eq!(
                resolve_relative_date(text, anchor),
                resolved(cue, date),
                "{text} @ {anchor}"
            );
        }
    }

    #[test]
    fn weekday_cues() {
        // 2026-05-06 is a Wednesday, 2026-05-10 a Sunday, 2026-05-11 a Monday.
        let cases = [
            ("last Friday", FRIDAY, "last Friday", "2026-05-01"),
            ("last Thursday", FRIDAY, "last Thursday", "2026-05-07"),
            ("last Saturday", FRIDAY, "last Saturday", "2026-05-02"),
            ("this past Monday", FRIDAY, "this past Monday", "2026-05-04"),
            ("next Friday", FRIDAY, "next Friday", "2026-05-15"),
            ("next Saturday", FRIDAY, "next Saturday", "2026-05-09"),
            ("next thursday", FRIDAY, "next thursday", "2026-05-14"),
            (
                "this coming Monday",
                FRIDAY,
                "this coming Monday",
                "2026-05-11",
            ),
            ("coming Sunday", FRIDAY, "coming Sunday", "2026-05-10"),
            ("this Friday", FRIDAY, "this Friday", "2026-05-08"),
            ("this Monday", FRIDAY, "this Monday", "2026-05-04"),
            ("this Sunday", FRIDAY, "this Sunday", "2026-05-10"),
            ("this Friday", "2026-05-10", "this Friday", "2026-05-08"),
            ("this Friday", "2026-05-11", "this Friday", "2026-05-15"),
            ("last Friday", "2026-05-06", "last Friday", "2026-05-01"),
            ("next Friday", "2026-05-06", "next Friday", "2026-05-08"),
            ("LAST MONDAY", "2026-05-11", "LAST MONDAY", "2026-05-04"),
            // Across a year boundary: 2026-01-01 is a Thursday.
            ("last Friday", "2026-01-01", "last Friday", "2025-12-26"),
            ("next Monday", "2025-12-31", "next Monday", "2026-01-05"),
            // A weekday alone: the text's tense says which.
            (
                "what did we do on Friday?",
                FRIDAY,
                "on Friday",
                "2026-05-01",
            ),
            ("met Ana on Monday", FRIDAY, "on Monday", "2026-05-04"),
            (
                "what's happening on Monday",
                FRIDAY,
                "on Monday",
                "2026-05-11",
            ),
            (
                "we'll meet on Saturday",
                FRIDAY,
                "on Saturday",
                "2026-05-09",
            ),
            (
                "what did I do on Friday?",
                "2028-01-03",
                "on Friday",
                "2027-12-31",
            ),
        ];
        for (text, anchor, cue, date) in cases {
            assert_eq!(
                resolve_relative_date(text, anchor),
                resolved(cue, date),
                "{text} @ {anchor}"
            );
        }
    }

    #[test]
    fn period_cues() {
        let cases = [
            ("last week", FRIDAY, "last week", "2026-05-01"),
            ("this week", FRIDAY, "this week", "2026-05-08"),
            ("next week", FRIDAY, "next week", "2026-05-15"),
            ("this past week", FRIDAY, "this past week", "2026-05-01"),
            ("last month", FRIDAY, "last month", "2026-04-08"),
            ("next month", FRIDAY, "next month", "2026-06-08"),
            ("this month", FRIDAY, "this month", "2026-05-08"),
            ("last year", FRIDAY, "last year", "2025-05-08"),
            ("next year", FRIDAY, "next year", "2027-05-08"),
            ("this year's plan", FRIDAY, "this year", "2026-05-08"),
            ("last month", "2026-03-31", "last month", "2026-02-28"),
            ("last month", "2024-03-31", "last month", "2024-02-29"),
            ("next month", "2026-01-31", "next month", "2026-02-28"),
            ("last month", "2026-01-15", "last month", "2025-12-15"),
            ("next month", "2025-12-15", "next month", "2026-01-15"),
            ("last year", "2024-02-29", "last year", "2023-02-28"),
            ("next year", "2024-02-29", "next year", "2025-02-28"),
            ("last week", "2026-01-03", "last week", "2025-12-27"),
            // Weekends: the Saturday of the previous / current / next week.
            ("last weekend", FRIDAY, "last weekend", "2026-05-02"),
            ("last weekend", "2026-05-11", "last weekend", "2026-05-09"),
            ("last weekend", "2026-05-10", "last weekend", "2026-05-02"),
            ("last weekend", "2026-05-09", "last weekend", "2026-05-02"),
            ("this weekend", FRIDAY, "this weekend", "2026-05-09"),
            ("next weekend", FRIDAY, "next weekend", "2026-05-16"),
            (
                "the weekend before last",
                FRIDAY,
                "the weekend before last",
                "2026-04-25",
            ),
            (
                "what did we do the weekend before last?",
                "2026-05-10",
                "the weekend before last",
                "2026-04-25",
            ),
        ];
        for (text, anchor, cue, date) in cases {
            assert_eq!(
                resolve_relative_date(text, anchor),
                resolved(cue, date),
                "{text} @ {anchor}"
            );
        }
    }

    #[test]
    fn counted_cues() {
        let cases = [
            ("3 days ago", FRIDAY, "3 days ago", "2026-05-05"),
            ("a day ago", FRIDAY, "a day ago", "2026-05-07"),
            ("a week ago", FRIDAY, "a week ago", "2026-05-01"),
            ("a month ago", FRIDAY, "a month ago", "2026-04-08"),
            ("a year ago", FRIDAY, "a year ago", "2025-05-08"),
            ("two months ago", FRIDAY, "two months ago", "2026-03-08"),
            ("Two Weeks Ago", FRIDAY, "Two Weeks Ago", "2026-04-24"),
            ("twelve days ago", FRIDAY, "twelve days ago", "2026-04-26"),
            ("eleven years ago", FRIDAY, "eleven years ago", "2015-05-08"),
            (
                "a couple of days ago",
                FRIDAY,
                "a couple of days ago",
                "2026-05-06",
            ),
            (
                "a couple weeks ago",
                FRIDAY,
                "a couple weeks ago",
                "2026-04-24",
            ),
            ("a few days ago", FRIDAY, "a few days ago", "2026-05-05"),
            ("a fortnight ago", FRIDAY, "a fortnight ago", "2026-04-24"),
            ("10 years ago", FRIDAY, "10 years ago", "2016-05-08"),
            ("one month ago", "2026-03-31", "one month ago", "2026-02-28"),
            ("1 month ago", "2024-03-31", "1 month ago", "2024-02-29"),
            ("0 days ago", FRIDAY, "0 days ago", "2026-05-08"),
            ("in 3 days", FRIDAY, "in 3 days", "2026-05-11"),
            ("in a week", FRIDAY, "in a week", "2026-05-15"),
            ("in two weeks", FRIDAY, "in two weeks", "2026-05-22"),
            ("in a month", "2026-01-31", "in a month", "2026-02-28"),
            ("in 2 years", "2024-02-29", "in 2 years", "2026-02-28"),
            ("in a few days", FRIDAY, "in a few days", "2026-05-11"),
            ("5 days from now", FRIDAY, "5 days from now", "2026-05-13"),
            (
                "a week from today",
                FRIDAY,
                "a week from today",
                "2026-05-15",
            ),
            ("in 30 days", "2025-12-15", "in 30 days", "2026-01-14"),
        ];
        for (text, anchor, cue, date) in cases {
            assert_eq!(
                resolve_relative_date(text, anchor),
                resolved(cue, date),
                "{text} @ {anchor}"
            );
        }
    }

    #[test]
    fn the_first_cue_wins() {
        let cases = [
            (
                "yesterday we planned what to do tomorrow",
                "yesterday",
                "2026-05-07",
            ),
            ("tomorrow, not yesterday", "tomorrow", "2026-05-09"),
            (
                "the day before yesterday, not yesterday",
                "the day before yesterday",
                "2026-05-06",
            ),
            ("next week, or last Friday", "next week", "2026-05-15"),
            ("as of last weekend", "last weekend", "2026-05-02"),
            (
                "Decided 2 weeks ago; revisit next month",
                "2 weeks ago",
                "2026-04-24",
            ),
        ];
        for (text, cue, date) in cases {
            assert_eq!(
                resolve_relative_date(text, FRIDAY),
                resolved(cue, date),
                "{text}"
            );
        }
    }

    #[test]
    fn anchors_in_every_accepted_form() {
        let cases = [
            ("2026-05-08T13:56:00Z", "2026-05-07"),
            ("2026-05-08T23:30:00-05:00", "2026-05-07"),
            ("2026-05-08T00:30:00+09:00", "2026-05-07"),
            ("2026-05-08 13:56:00", "2026-05-07"),
            ("2026-05-08T13:56", "2026-05-07"),
            ("  2026-05-08  ", "2026-05-07"),
        ];
        for (anchor, date) in cases {
            assert_eq!(
                resolve_relative_date("yesterday", anchor),
                resolved("yesterday", date),
                "{anchor}"
            );
        }
    }

    #[test]
    fn malformed_anchors_are_errors() {
        for anchor in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "08/05/2026",
            "May 8",
        ] {
            for text in ["yesterday", "no cue here"] {
                match resolve_relative_date(text, anchor) {
                    Err(LogicError::InvalidArgument(message)) => {
                        assert!(message.starts_with("anchor:"), "{message}");
                    }
                    other => panic!("{anchor:?} should be rejected, got {other:?}"),
                }
            }
        }
    }

    #[test]
    fn texts_without_cues() {
        let texts = [
            "",
            "we shipped the parser",
            "lastly, we fixed it",
            "todays",
            "yesterdays",
            "the last Fridays of the year",
            "the weekday before",
            "last weeks were busy",
            "in May 2026",
            "in 2025",
            "days ago",
            "three ago",
            "in days",
            "next to the fridge",
            "1234567 days ago",
            "the next one",
            // A weekday as a habit.
            "where do we order food from on Fridays?",
            "No meetings on Friday afternoons either.",
            "Started salsa classes on Friday evenings.",
        ];
        for text in texts {
            assert_eq!(resolve_relative_date(text, FRIDAY), Ok(None), "{text:?}");
        }
    }

    #[test]
    fn out_of_range_results_are_skipped() {
        let found = resolve_relative_date("999999 years ago, then yesterday", FRIDAY);
        assert_eq!(found, resolved("yesterday", "2026-05-07"));
    }
}
