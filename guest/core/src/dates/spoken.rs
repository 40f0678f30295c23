//! Periods as people say them, resolved against the question's time.
//!
//! "What did we decide last March?", "notes from spring 2026", "anything
//! in the past two weeks?": people name periods relative to *now* far more
//! often than they write "March 2025". [`resolve_date_window`] finds the
//! period a query names — the absolute forms of [`parse_date_window`] and the
//! spoken forms below — and resolves it against an anchor (an ISO-8601 date
//! or date-time, the question's time; its *local* calendar date is "today").
//!
//! The parser covers **English**, the one language the date parsers read
//! (the month table of [`super::month`] and the cues of
//! [`super::resolve_relative_date`] are English). All forms are
//! case-insensitive except where a capital tells a month from a verb (below).
//!
//! ## Months without a year
//!
//! | Form | Example (today 2026-05-08) | Window |
//! |---|---|---|
//! | in / during / throughout / since *month*, from *month* onwards | "in March", "during the month of May" (for "since" and "onwards", see below) | the most recent such month **not after today**: March 2026; "in May" is May 2026 (the current month); "in June" is June 2025 — unless the question's tense says otherwise (below) |
//! | last / this past *month* | "last March", "last May" | the most recent such month **before the current one**: March 2026; "last May" said in May 2026 is May 2025 (the current May is "this May") |
//! | this *month* | "this December" | that month of today's year: December 2026 |
//! | next / this coming / coming *month* | "next March" | the first such month after the current one: March 2027 |
//! | *month* of last / this / next year | "March of last year" | that month of that year: March 2025 |
//! | early / mid / late *month* | "early March" | days 1–10 / 11–20 / 21–end of the most recent such March (as "in March") |
//! | *ordinal* week of *month* | "the first week of March" | days 1–7 … (as [`parse_date_window`]) of the most recent March |
//!
//! **The question's tense** decides which occurrence a month without a year
//! or relation word means (also "early June", "the first week of June", and
//! a season after a preposition), read from closed-class words:
//!
//! | The question | Example (today 2026-05-08) | Window |
//! |---|---|---|
//! | in the past (did, was, were, had), or no verb to tell | "what did I do in June?", "what happened in June?", "notes in June" | the most recent, as above: June 2025 |
//! | looks ahead (will, 'll, going to, coming up, upcoming, planned, scheduled, due, plan) | "what will I do in March?" | the current month or the next such: March 2027 |
//! | in the present (do, does, is, are, am, 's, 're) | "what flights do I have in June?", "what do I have in March?" | the nearer one: June 2026, March 2026 (at six months either way, the past one) |
//!
//! A past auxiliary wins ("what did I plan in June?" is June 2025). For a
//! season the one under way is meant whatever the tense; otherwise as for
//! months, from its first month ("what are we doing in the summer?" is
//! summer 2026).
//!
//! Without a year, a month needs one of these words before it: "March
//! notes" is no period ("march" and "may" are verbs too). A day or a year
//! after it makes it an absolute form's (or nothing: "in May 3 days"); a
//! possessive after it makes it a person ("in April's team"); a determiner
//! before the relation word makes it another time's ("the last March",
//! [`DETERMINERS`]). After "this", "may" and "march" in lower case count
//! only where the sentence ends with them ("what's on this may?"): "this
//! May", but not "this may take a while".
//!
//! ## Seasons and quarters
//!
//! Seasons are the **northern hemisphere's meteorological** ones: spring is
//! March–May, summer June–August, autumn (or fall) September–November,
//! winter December–February. Winter spans a year boundary: **"winter 2026"
//! is December 2025 – February 2026**, the winter whose January and February
//! fall in 2026, and "winter 2025/26" (or "2025-26", "2025–2026") names the
//! same one.
//!
//! | Form | Example (today 2026-05-08) | Window |
//! |---|---|---|
//! | *season* *year*, *season* of *year* | "spring 2026", "the summer of 2025", "winter 2025/26" | that season (winter as above) |
//! | last / this past *season* | "last spring", "last winter" | the most recent one that has **ended**: spring 2025 (spring 2026 is not over), winter 2026 (Dec 2025 – Feb 2026) |
//! | this *season* | "this summer", "this winter" | the one in today's year: summer 2026; for winter, from January to August the one that ends in today's year (Dec 2025 – Feb 2026), from September the coming one |
//! | next / this coming *season* | "next winter" | the first one that starts after today: Dec 2026 – Feb 2027 |
//! | in / during / over / throughout / for (the) *season* | "over the summer", "in spring?", "plans for the summer" | the most recent one that has **started**: spring 2026 (the current one) — unless the question's tense says otherwise (above) |
//! | Q*n* *year*, *year* Q*n*, *ordinal* quarter (of) *year* (or of the / last / this / next year) | "Q1 2026", "2026-Q3", "the first quarter of 2026", "Q4 of last year" | January–March, April–June, July–September, October–December ("last quarter of" = the fourth) |
//! | in / during / throughout / for / by (the) Q*n* or *ordinal* quarter | "in Q3", "during the first quarter", "what's on for Q4?" | that quarter of today's year (quarters are planning units: "Q3" said in May is this year's, still ahead) |
//! | last / this / next quarter | "last quarter" | the calendar quarter before / containing / after today: Q1 / Q2 / Q3 2026 |
//! | the *season* before last | "the summer before last" | the occurrence before "last *season*": summer 2024 |
//! | H*n* *year*, first / second / last half of *year* (or of the / last / this / next year) | "H1 2026", "the second half of 2025", "the first half of last year" | January–June, July–December |
//! | early / mid / late *year* (also beginning / start / middle / end of) | "late 2025", "mid-2026" | January–April, May–August, September–December (a year in thirds) |
//!
//! A season word alone is not a period: it needs a year, a relation word
//! (last, this, next, this past, this coming) or a preposition before it.
//! Even then it is not one when a noun it names follows
//! ([`SEASON_COMPOUND_WORDS`]: "spring boot", "in spring cloud"; "summer
//! school" is still a time), when joined by a hyphen ("spring-loaded"), or when
//! both it and the next word are capitalised ("Spring Boot"). "Fall", also a
//! verb, needs a year, a relation word, or "the" after its preposition ("in
//! the fall"), and is not a season in "did this fall over?" (an auxiliary
//! before "this", [`AUXILIARY_WORDS`]) or "this fall apart"
//! ([`SEASON_VERB_PARTICLES`]); "spring", also a verb, is held to the last
//! two checks too. A determiner before a relation word ("the last fall", "his
//! last fall", "the next spring", "my last week at the company",
//! [`DETERMINERS`]) tells of another time than now: no window (for "the last
//! week" see the rolling windows below).
//!
//! ## Holidays
//!
//! | Form | Example (today 2026-05-08) | Window |
//! |---|---|---|
//! | *holiday* | "over Christmas", "what did we do at Easter?" | its span ([`super::holiday`]) in the year the question's tense picks, as for a month: Christmas 2025 (18 December 2025 – 1 January 2026), Easter 2026 (2 – 6 April) |
//! | last / this / next *holiday* | "last Easter", "next Christmas" | the most recent that has ended / the one of today's year / the first not begun: Easter 2026, Christmas 2026 |
//! | *holiday* *year*, *holiday* last / this / next year | "Christmas 2024", "Easter of 2025", "Thanksgiving last year" | that year's span |
//! | the *holiday* before last | "the Christmas before last" | the one before "last *holiday*": Christmas 2024 |
//!
//! Christmas, New Year's, Easter, Thanksgiving, Halloween and Valentine's
//! Day. Not a period as a modifier of the word after it, a thing named
//! after the holiday ("an Easter egg", "Christmas Island", "the Christmas
//! cactus": any word after it but a closed-class word, a noun of time or of
//! an occasion such as "dinner", [`super::holiday::TIME_FOLLOWERS`]); nor
//! after a determiner ("the last Christmas we spent in Leeds").
//!
//! ## Periods relative to today
//!
//! Weeks run Monday–Sunday. Each row's window for today = Friday 2026-05-08.
//!
//! | Form | Window |
//! |---|---|
//! | this / last / next week | 2026-05-04 – 05-10 / 04-27 – 05-03 / 05-11 – 05-17 |
//! | the week before last | 2026-04-20 – 04-26 |
//! | this / last / next month · the month before last | May / April / June · March 2026 |
//! | this / last / next year · the year before last | 2026 / 2025 / 2027 · 2024 |
//! | early / mid / late (also beginning / start / middle / end of) this / last / next month or year | "the end of last month": 2026-04-21 – 04-30 (as "early *month*"); "early next year": January–April 2027 (as "early *year*"); a week's part is the whole week |
//! | earlier this week / month / year, so far this …, this … so far | from the period's first day to today |
//! | later this week / month / year | from today to the period's last day |
//! | the past / last / previous *N* days / weeks / fortnights / months / years ("in the last 3 months", "past few weeks") | from *N* units before today to today |
//! | the past / last / previous week / fortnight / month / year (with "the") | one unit before today to today ("the past week" is the last seven days; "last week" without "the" is the calendar week) |
//! | next / coming *N* units ("in the next two weeks", "over the coming 3 months") | from today to *N* units after it |
//! | last / this / next weekend · the weekend before last | its Saturday and Sunday: 2026-05-02 – 05-03 / 05-09 – 05-10 / 05-16 – 05-17 · 04-25 – 04-26 |
//! | this time last year | the same day a year back ± [`AGO_MONTHS_RADIUS`] days |
//! | *N* days / weeks / fortnights / months / years ago (or back: "a few weeks back") | the day *N* units back, ± [`AGO_DAYS_RADIUS`] days for days, ± [`AGO_WEEKS_RADIUS`] for weeks, ± [`AGO_FORTNIGHTS_RADIUS`] for fortnights, ± [`AGO_MONTHS_RADIUS`] for months, ± [`AGO_YEARS_RADIUS`] for years (about one unit wide: "two months ago" is vague) |
//!
//! *N* is written as for [`super::resolve_relative_date`] (digits, "two",
//! "a couple of", "a few"), plus "few" and "couple" after "the past".
//! "The last week of the year", "the last month of 2025": a rolling form
//! followed by "of" is the last part *of* something, not a window before
//! today, and is dropped.
//!
//! Day-sized cues ("today", "yesterday", "last Friday") are **not**
//! windows: each names one day, which [`super::resolve_relative_date`]
//! resolves for recall to hand the model as a hint (a weekend is two days,
//! so a window). "*N* days ago" is a
//! window: the count makes it vague ("a few days ago"), so its day gets
//! slack.
//!
//! ## Ranges
//!
//! | Form | Example | Window |
//! |---|---|---|
//! | between *A* and *B* | "between March and April 2026", "between 2024 and 2025", "between 3 and 9 May 2026" | from *A*'s first day to *B*'s last |
//! | from *A* to / until / till / through / – *B* | "from March to May", "from 3 May 2026 to 9 June 2026" | likewise |
//! | *A* – / to / through *B* (months) | "March–April 2026", "Mar-Apr 2026" | likewise |
//! | in / during *A* or *B* (months) | "in March or April" | likewise: the question hesitates between them |
//! | between *A* and *B*, (from) *A* to / until / through / – *B*, of any two periods of this module | "between Halloween and Thanksgiving", "from Christmas to New Year's", "last summer through this spring" | from *A*'s first day to *B*'s last, each end resolved on its own |
//!
//! *A* and *B* are months with an optional day and year ("3 May", "May 3rd,
//! 2026"), or both are years (1900–2199). *A* may be a bare day that takes
//! *B*'s month. A missing year comes from the other end (*A* a year before
//! *B* when its month comes later: "from November to February 2026" starts
//! in November 2025); with no year at all, *A* is the month the question's
//! tense means, as for a month alone (the most recent such month not after
//! today for a question about the past, "what's scheduled from April to
//! June?" asked in March this year's), and *B* the first one from *A* on.
//! Days are exact ends (no slack). A range whose start comes after its end
//! is not one.
//!
//! ## Since
//!
//! Any period above with "since" before it ("since March", "since last
//! summer", "ever since Easter", "since May 2025", "since Q1") or "onwards"
//! after it ("from March onwards", "from last March onwards") reaches from
//! its first day to today:
//! "since January" asked on 2026-06-10 is 2026-01-01 to 2026-06-10. After
//! "since", a month, season or holiday without a year is the most recent one
//! that has begun, whatever the tense.
//!
//! ## Labels and choosing
//!
//! A window's label is the words that named it, without a leading
//! preposition ("in", "between"). When the period depended on today, the
//! resolved dates follow in brackets — "last March (2026-03-01 to
//! 2026-03-31)" — so that a heading such as "Events during …" tells the
//! model which March was meant. When a query names several periods, the
//! longer phrase wins over one inside it, then the finest, then the leftmost
//! ([`super::candidate`]): "between March and April 2026" is the range, not
//! April; "earlier this year" is not "this year"; "last week and in May
//! 2026" is last week.
//!
//! [`parse_date_window`]: super::parse_date_window

use std::sync::LazyLock;

use chrono::{Datelike, Days, NaiveDate};
use regex::{Captures, Match, Regex};

use super::candidate::{Candidate, Granularity, most_specific, without_nested};
use super::holiday::{HOLIDAY, Holiday, TIME_FOLLOWERS};
use super::month::{
    MONTH_NAME_PATTERN, MONTHS_PER_YEAR, last_day_of_month, month_number, months_of,
};
use super::relative::{
    A_FEW, COUNT, DAYS_PER_WEEK, RELATION, Relation, UNIT, count, relation, shift_by_units,
    shift_days, weekend_saturday,
};
use super::tense::{Tense, TextTense};
use super::window::{
    PART_OF, Third, absolute_candidates, continues_as_number, part_of_month,
    starts_with_quantity_unit, week_of_month, year_in_range,
};
use crate::calendar::{format_date, parse_local_date};
use crate::types::{DateWindow, LogicError};

/// How many days "N days ago" reaches on either side of its day: the slack
/// of a named day's window ([`super::window::DAY_WINDOW_RADIUS_DAYS`]).
const AGO_DAYS_RADIUS: u64 = super::window::DAY_WINDOW_RADIUS_DAYS;

/// How many days "N weeks ago" reaches on either side of its day: a week
/// centred on it.
const AGO_WEEKS_RADIUS: u64 = 3;

/// How many days "N fortnights ago" reaches on either side: a fortnight
/// centred on it.
const AGO_FORTNIGHTS_RADIUS: u64 = 7;

/// How many days "N months ago" reaches on either side: about a month
/// centred on it.
const AGO_MONTHS_RADIUS: u64 = 15;

/// How many days "N years ago" reaches on either side: about a year centred
/// on it.
const AGO_YEARS_RADIUS: u64 = 182;

/// The months of a season or a quarter.
const MONTHS_PER_SEASON: u32 = 3;

/// The months of a half year.
const MONTHS_PER_HALF: u32 = 6;

/// The last month of "early 2026" (January–April); "mid 2026" is May–August
/// and "late 2026" September–December: a year in thirds.
const EARLY_YEAR_LAST_MONTH: u32 = 4;

/// The last month of "mid 2026".
const MID_YEAR_LAST_MONTH: u32 = 8;

/// The quarters of a year.
const QUARTERS_PER_YEAR: i32 = 4;

/// The last month in which "this winter" means the winter that ended in
/// today's year (January–August); from September it is the coming one.
const LAST_MONTH_THIS_WINTER_LOOKS_BACK: u32 = 8;

/// The season words.
const SEASON: &str = r"(?P<season>spring|summer|autumn|fall|winter)";

/// The ordinals of a quarter in "the first quarter of 2026" ("last" and
/// "final" are the fourth).
const QUARTER_ORDINAL: &str = r"(?P<ordinal>first|1st|second|2nd|third|3rd|fourth|4th|last|final)";

/// The ordinals of a quarter of today's year ("in the first quarter"):
/// without "last", which with "the" means the quarter before this one.
const BARE_QUARTER_ORDINAL: &str = r"(?P<ordinal>first|1st|second|2nd|third|3rd|fourth|4th)";

/// The words between a range's two ends ("to", "–").
const RANGE_JOINER: &str = r"(?:\s+(?:to|until|till|through|thru)\s+|\s*[-–—]\s*)";

/// Words that, right after a season word, show it names a thing, not a time
/// ("spring boot", "spring water", "a summer dress").
const SEASON_COMPOUND_WORDS: &[&str] = &[
    "boot",
    "boots",
    "cloud",
    "framework",
    "security",
    "batch",
    "data",
    "mvc",
    "webflux",
    "bean",
    "beans",
    "integration",
    "config",
    "app",
    "application",
    "roll",
    "rolls",
    "water",
    "onion",
    "onions",
    "mattress",
    "coil",
    "loaded",
    "constant",
    "dress",
    "squash",
    "tire",
    "tires",
    "tyre",
    "tyres",
    "coat",
    "jacket",
];

/// Words that, before "last" or "next", make it "the last one of
/// something" rather than a time relative to now ("his last fall", "the next
/// spring", "my last week at the company").
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "his", "her", "my", "your", "our", "their", "its", "that", "whose",
];

/// Words that, before "this", make "this fall" or "this spring" a verb
/// ("did this fall over", "will this spring back").
const AUXILIARY_WORDS: &[&str] = &[
    "did", "does", "do", "will", "would", "could", "can", "should", "might", "must", "may", "to",
    "let", "make", "made", "not", "why", "how",
];

/// Words that, after "fall" or "spring", make it a verb ("this fall apart",
/// "last spring back").
const SEASON_VERB_PARTICLES: &[&str] = &[
    "apart", "over", "through", "off", "down", "behind", "back", "into", "out", "under", "short",
    "flat", "asleep", "for", "open", "loose", "forth",
];

/// The grammatical shapes of a spoken period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spoken {
    /// "last March", "this December", "next May".
    RelativeMonth,
    /// "in March", "during May".
    MonthAfterPreposition,
    /// "March of last year".
    MonthOfRelativeYear,
    /// "early March", "mid-May".
    PartOfBareMonth,
    /// "first week of March".
    WeekOfBareMonth,
    /// "last spring", "this summer".
    RelativeSeason,
    /// "spring 2026", "winter 2025/26".
    SeasonOfYear,
    /// "in the summer", "over the winter".
    SeasonAfterPreposition,
    /// "Q1 2026", "first quarter of 2026".
    QuarterOfYear,
    /// "2026 Q1", "2026-Q3".
    YearQuarter,
    /// "in Q3", "during the first quarter".
    BareQuarter,
    /// "last quarter".
    RelativeQuarter,
    /// "last week", "this month", "next year".
    RelativePeriod,
    /// "the week before last".
    PeriodBeforeLast,
    /// "earlier this year", "so far this month", "this week so far".
    SoFarThis,
    /// "later this year".
    LaterThis,
    /// "the past two weeks", "last 30 days".
    RollingCounted,
    /// "the past week", "the last month".
    RollingSingle,
    /// "three months ago".
    Ago,
    /// "between March and April 2026".
    Between,
    /// "from March to May".
    FromTo,
    /// "March–April 2026".
    MonthSpan,
    /// "in March or April".
    MonthAlternatives,
    /// "this time last year".
    ThisTimeLastYear,
    /// "in the next two weeks".
    RollingAhead,
    /// "the summer before last".
    SeasonBeforeLast,
    /// "late 2025", "early 2026".
    PartOfYear,
    /// "H1 2026", "the first half of 2026".
    HalfOfYear,
    /// "over Easter", "last Christmas" ([`super::holiday`]).
    Holiday,
    /// "Christmas 2025", "Easter of 2024".
    HolidayOfYear,
    /// "last weekend", "the weekend before last".
    Weekend,
}

/// Every spoken form.
const SPOKEN_FORMS: [Spoken; 31] = [
    Spoken::RelativeMonth,
    Spoken::MonthAfterPreposition,
    Spoken::MonthOfRelativeYear,
    Spoken::PartOfBareMonth,
    Spoken::WeekOfBareMonth,
    Spoken::RelativeSeason,
    Spoken::SeasonOfYear,
    Spoken::SeasonAfterPreposition,
    Spoken::QuarterOfYear,
    Spoken::YearQuarter,
    Spoken::BareQuarter,
    Spoken::RelativeQuarter,
    Spoken::RelativePeriod,
    Spoken::PeriodBeforeLast,
    Spoken::SoFarThis,
    Spoken::LaterThis,
    Spoken::RollingCounted,
    Spoken::RollingSingle,
    Spoken::Ago,
    Spoken::Between,
    Spoken::FromTo,
    Spoken::MonthSpan,
    Spoken::MonthAlternatives,
    Spoken::ThisTimeLastYear,
    Spoken::RollingAhead,
    Spoken::SeasonBeforeLast,
    Spoken::PartOfYear,
    Spoken::HalfOfYear,
    Spoken::Holiday,
    Spoken::HolidayOfYear,
    Spoken::Weekend,
];

/// A range's end as a regex: a month with an optional day before or after
/// it and an optional year, its groups named after `end` ("start", "finish").
fn range_date_end(end: &str) -> String {
    format!(
        r"(?:(?P<{end}_day_first>[0-9]{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?P<{end}_month>{MONTH_NAME_PATTERN})(?:\s+(?:the\s+)?(?P<{end}_day_after>[0-9]{{1,2}})(?:st|nd|rd|th)?\b)?(?:(?:\s*,\s*|\s+)(?:of\s+)?(?P<{end}_year>[0-9]{{4}})\b)?"
    )
}

/// A range's end that is a year alone.
fn range_year_end(end: &str) -> String {
    format!(r"(?P<{end}_year_only>[0-9]{{4}})\b")
}

/// A range's start that is a day alone, taking the end's month ("between 3
/// and 9 May").
const RANGE_DAY_START: &str = r"(?P<start_day_only>[0-9]{1,2})(?:st|nd|rd|th)?";

impl Spoken {
    /// The case-insensitive regex of this form. The `label` group holds the
    /// words the window's label shows.
    fn pattern(self) -> String {
        let month = format!("(?P<month>{MONTH_NAME_PATTERN})");
        let start = format!(
            "(?:{}|{}|{RANGE_DAY_START})",
            range_date_end("start"),
            range_year_end("start")
        );
        let finish = format!(
            "(?:{}|{})",
            range_date_end("finish"),
            range_year_end("finish")
        );
        let body = match self {
            Spoken::RelativeMonth => format!(r"\b(?P<label>{RELATION}\s+{month})"),
            Spoken::MonthAfterPreposition => {
                format!(
                    r"\b(?P<preposition>in|during|throughout|since|from)\s+(?:the\s+month\s+of\s+)?(?P<label>{month})"
                )
            }
            Spoken::MonthOfRelativeYear => {
                format!(r"\b(?P<label>{month}\s+(?:of\s+)?(?P<relation>last|this|next)\s+year)\b")
            }
            Spoken::PartOfBareMonth => format!(r"\b(?P<label>{PART_OF}{month})"),
            Spoken::WeekOfBareMonth => format!(
                r"\b(?P<label>(?P<ordinal>first|1st|second|2nd|third|3rd|fourth|4th|last|final)\s+week\s+(?:of|in)\s+{month})"
            ),
            Spoken::RelativeSeason => format!(r"\b(?P<label>{RELATION}\s+{SEASON})\b"),
            Spoken::SeasonOfYear => format!(
                r"\b(?P<label>{SEASON}\s+(?:of\s+)?(?P<year>[0-9]{{4}})(?:\s*[/–-]\s*(?P<second_year>[0-9]{{4}}|[0-9]{{2}}))?)\b"
            ),
            Spoken::SeasonAfterPreposition => format!(
                r"\b(?:in|during|over|throughout|since|for)\s+(?P<the>the\s+)?(?P<label>{SEASON})\b"
            ),
            Spoken::QuarterOfYear => format!(
                r"\b(?P<label>(?:q(?P<quarter>[1-4])|{QUARTER_ORDINAL}\s+quarter)(?:(?:\s*,\s*|\s+of\s+|\s*-\s*|\s+)(?P<year>[0-9]{{4}})|(?:\s+of)?\s+(?P<year_relation>last|this|next)\s+year|\s+of\s+the\s+year))\b"
            ),
            Spoken::YearQuarter => {
                r"\b(?P<label>(?P<year>[0-9]{4})\s*[-/]?\s*q(?P<quarter>[1-4]))\b".to_string()
            }
            Spoken::BareQuarter => format!(
                r"\b(?:in|during|throughout|since|for|by)\s+(?:the\s+)?(?P<label>q(?P<quarter>[1-4])|{BARE_QUARTER_ORDINAL}\s+quarter)\b"
            ),
            Spoken::RelativeQuarter => format!(r"\b(?P<label>{RELATION}\s+quarter)\b"),
            Spoken::RelativePeriod => format!(
                r"\b(?P<label>(?:{PART_OF})?{RELATION}\s+(?P<period>week|month|year))\b"
            ),
            Spoken::PeriodBeforeLast => {
                r"\b(?P<label>(?:the\s+)?(?P<period>week|month|year)\s+before\s+last)\b".to_string()
            }
            Spoken::SoFarThis => {
                r"\b(?P<label>(?:earlier|so\s+far)\s+this\s+(?P<period>week|month|year)|this\s+(?P<period_first>week|month|year)\s+so\s+far)\b".to_string()
            }
            Spoken::LaterThis => {
                r"\b(?P<label>later\s+this\s+(?P<period>week|month|year))\b".to_string()
            }
            Spoken::RollingCounted => format!(
                r"\b(?P<label>(?:past|last|previous)\s+{count}\s+{UNIT})\b",
                count = COUNT.replace("(?P<count>", r"(?P<count>few|couple(?:\s+of)?|"),
            ),
            Spoken::RollingSingle => {
                r"\bthe\s+(?P<label>(?:past|last|previous)\s+(?P<unit>week|fortnight|month|year))\b"
                    .to_string()
            }
            Spoken::Ago => format!(r"\b(?P<label>{COUNT}\s+{UNIT}\s+(?:ago|back))\b"),
            Spoken::Between => format!(r"\bbetween\s+(?P<label>{start}\s+and\s+{finish})"),
            Spoken::FromTo => format!(r"\bfrom\s+(?P<label>{start}{RANGE_JOINER}{finish})"),
            Spoken::MonthSpan => format!(
                r"\b(?P<label>{}{RANGE_JOINER}{})",
                range_date_end("start"),
                range_date_end("finish")
            ),
            Spoken::MonthAlternatives => format!(
                r"\b(?:in|during)\s+(?P<label>{}\s+or\s+{})",
                range_date_end("start"),
                range_date_end("finish")
            ),
            Spoken::ThisTimeLastYear => {
                r"\b(?:about\s+|around\s+)?(?P<label>this\s+time\s+last\s+year)\b".to_string()
            }
            Spoken::RollingAhead => format!(
                r"\b(?P<label>(?:next|coming)\s+{count}\s+{UNIT})\b",
                count = COUNT.replace("(?P<count>", r"(?P<count>few|couple(?:\s+of)?|"),
            ),
            Spoken::SeasonBeforeLast => {
                format!(r"\b(?P<label>(?:the\s+)?{SEASON}\s+before\s+last)\b")
            }
            Spoken::PartOfYear => format!(r"\b(?P<label>{PART_OF}(?P<year>[0-9]{{4}}))\b"),
            Spoken::HalfOfYear => {
                r"\b(?P<label>h(?P<half>[12])\s*(?:,\s*|of\s+|-\s*)?(?P<year>[0-9]{4})|(?P<ordinal>first|1st|second|2nd|last)\s+half\s+(?:(?:of\s+)?(?P<half_year>[0-9]{4})|of\s+(?:the|(?P<year_relation>last|this|next))\s+year))\b".to_string()
            }
            Spoken::Holiday => {
                format!(r"\b(?P<label>(?:{RELATION}\s+)?{HOLIDAY})\b")
            }
            Spoken::HolidayOfYear => format!(
                r"\b(?P<label>{HOLIDAY}\s+(?:(?:of\s+)?(?P<year>[0-9]{{4}})|(?:of\s+)?(?P<year_relation>last|this|next)\s+year|(?P<before_last>before\s+last)))\b"
            ),
            Spoken::Weekend => format!(
                r"\b(?P<label>{RELATION}\s+weekend|(?:the\s+)?weekend\s+before\s+last)\b"
            ),
        };
        format!("(?i){body}")
    }
}

/// Each spoken form with its compiled regex. A pattern that failed to compile
/// is left out (a unit test asserts none does).
static SPOKEN_PATTERNS: LazyLock<Vec<(Spoken, Regex)>> = LazyLock::new(|| {
    SPOKEN_FORMS
        .iter()
        .filter_map(|&form| Regex::new(&form.pattern()).ok().map(|regex| (form, regex)))
        .collect()
});

/// The period `query` names, absolute or spoken, resolved against `anchor`.
///
/// `anchor` is an ISO-8601 date or date-time (see [`crate::calendar`]); its
/// local calendar date is "today". Returns `Ok(None)` when the query names no
/// period, and `Err(LogicError::InvalidArgument)` naming the anchor when the
/// anchor cannot be read. See the module documentation for the forms, and
/// for which one wins when a query names several periods.
pub fn resolve_date_window(query: &str, anchor: &str) -> Result<Option<DateWindow>, LogicError> {
    let today = parse_local_date(anchor).map_err(|error| match error {
        LogicError::InvalidArgument(message) => {
            LogicError::InvalidArgument(format!("anchor: {message}"))
        }
    })?;
    let mut candidates = absolute_candidates(query);
    candidates.extend(spoken_candidates(query, today));
    let mut candidates: Vec<Candidate> = candidates
        .into_iter()
        .map(|candidate| reaching_today(query, today, candidate))
        .collect();
    candidates.extend(joined_ranges(query, &candidates));
    Ok(most_specific(without_nested(candidates)).map(|found| found.window))
}

/// [`RANGE_JOINER`] as the whole of a text: what joins two periods that
/// [`joined_ranges`] reads as one range.
static JOINER_ALONE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!("(?i)^{RANGE_JOINER}$")).ok());

/// The longest text between two periods that [`joined_ranges`] reads as a
/// joining word (" through ", with spaces).
const MAX_RANGE_JOINER_BYTES: usize = 12;

/// Ranges between two periods of any form the range patterns do not read
/// ("between Halloween and Thanksgiving", "from Christmas to New Year's",
/// "last summer through this spring"): "between" *A* "and" *B*, or *A* "to"
/// / "until" / "through" / a dash *B*, "from" before *A* or not. Each end is
/// resolved on its own, and the range runs from *A*'s first day to *B*'s
/// last; one that would end before it starts is none.
fn joined_ranges(query: &str, candidates: &[Candidate]) -> Vec<Candidate> {
    let mut ranges = Vec::new();
    for first in candidates {
        for second in candidates {
            // Only a joining word between them (a long query holds many
            // candidates; each pair costs no more than this check).
            let gap = second.start.checked_sub(first.end);
            if gap.is_none_or(|gap| gap > MAX_RANGE_JOINER_BYTES) {
                continue;
            }
            let Some(between) = query.get(first.end..second.start) else {
                continue;
            };
            let joined = if between.trim().eq_ignore_ascii_case("and") {
                previous_word(query, first.start) == "between"
            } else {
                JOINER_ALONE
                    .as_ref()
                    .is_some_and(|joiner| joiner.is_match(between))
            };
            if !joined || first.window.since > second.window.until {
                continue;
            }
            let covered = candidates
                .iter()
                .any(|other| other.start <= first.start && second.end <= other.end);
            if covered {
                continue;
            }
            let Some(words) = query.get(first.start..second.end) else {
                continue;
            };
            let anchored = first.anchored || second.anchored;
            let (since, until) = (first.window.since.clone(), second.window.until.clone());
            ranges.push(Candidate {
                granularity: first.granularity.min(second.granularity),
                start: first.start,
                end: second.end,
                window: DateWindow {
                    label: window_label(words, &since, &until, anchored),
                    since,
                    until,
                },
                anchored,
            });
        }
    }
    ranges
}

/// A period said with "since" before it ("since March", "ever since
/// Easter", "since the summer", "since May 2025") or "onwards" after it
/// ("from March onwards", "from last March onwards"): from its first day to
/// today. Its label reads after "Events during": "the time since March
/// (…)", "March onwards (…)". Any other candidate, or one that has not
/// begun by today, is returned as it is.
fn reaching_today(query: &str, today: NaiveDate, candidate: Candidate) -> Candidate {
    let since = since_before(query, candidate.start);
    let onwards = onwards_after(query, candidate.end);
    let today = format_date(today);
    if (since.is_none() && onwards.is_none()) || candidate.window.since > today {
        return candidate;
    }
    let start = since.unwrap_or(candidate.start);
    let end = onwards.unwrap_or(candidate.end);
    let Some(words) = query.get(start..end) else {
        return candidate;
    };
    let first = candidate.window.since.clone();
    let words = if since.is_some() {
        format!("the time {words}")
    } else {
        words.to_string()
    };
    Candidate {
        start,
        end,
        window: DateWindow {
            label: window_label(&words, &first, &today, true),
            since: first,
            until: today,
        },
        anchored: true,
        ..candidate
    }
}

/// The byte offset just past "onwards" (or "onward") when it follows byte
/// offset `position`, one space between, or the dot of an abbreviated month
/// and a space ("from Mar. onwards": the month's match ends before its dot).
fn onwards_after(query: &str, position: usize) -> Option<usize> {
    let after = query.get(position..)?;
    let after = after.strip_prefix('.').unwrap_or(after);
    let position = query.len() - after.len();
    let rest = after.trim_start();
    let skipped = after.len() - rest.len();
    let word: String = rest.chars().take_while(|c| c.is_alphabetic()).collect();
    let lower = word.to_lowercase();
    (skipped > 0 && (lower == "onwards" || lower == "onward"))
        .then(|| position + skipped + word.len())
}

/// The spoken periods the query names that no date decides ("between
/// March and April 2026", "spring 2026", "Q1 2026"): the ones an
/// anchorless reader may take.
pub(super) fn absolute_spoken_candidates(query: &str) -> Vec<Candidate> {
    // Any day does: an absolute period resolves the same against each.
    let any_day = NaiveDate::from_ymd_opt(2000, 1, 1).unwrap_or_default();
    spoken_candidates(query, any_day)
        .into_iter()
        .filter(|candidate| !candidate.anchored)
        .collect()
}

/// Every spoken period the query names, resolved against `today`.
fn spoken_candidates(query: &str, today: NaiveDate) -> Vec<Candidate> {
    // Read once, when a form without a year or relation word first asks.
    let tense = TextTense::new(query);
    let tense = &tense;
    SPOKEN_PATTERNS
        .iter()
        .flat_map(|(form, regex)| {
            regex
                .captures_iter(query)
                .filter_map(move |captures| spoken_candidate(*form, &captures, query, tense, today))
        })
        .collect()
}

/// A resolved period: its days, how fine it is, and whether today decided it.
struct Resolved {
    since: NaiveDate,
    until: NaiveDate,
    granularity: Granularity,
    anchored: bool,
}

impl Resolved {
    /// A period resolved against today.
    fn anchored((since, until): (NaiveDate, NaiveDate), granularity: Granularity) -> Self {
        Resolved {
            since,
            until,
            granularity,
            anchored: true,
        }
    }

    /// A period its words fix on their own.
    fn absolute((since, until): (NaiveDate, NaiveDate), granularity: Granularity) -> Self {
        Resolved {
            since,
            until,
            granularity,
            anchored: false,
        }
    }
}

/// The window one match names, if it is a period and resolves to real days.
fn spoken_candidate(
    form: Spoken,
    captures: &Captures<'_>,
    query: &str,
    tense: &TextTense<'_>,
    today: NaiveDate,
) -> Option<Candidate> {
    let whole = captures.get(0)?;
    let label = captures.name("label")?;
    let after = query.get(whole.end()..)?;
    if continues_as_number(after) {
        return None;
    }
    let resolved = resolve_form(form, captures, query, tense, today)?;
    if resolved.since > resolved.until
        || !in_calendar(resolved.since)
        || !in_calendar(resolved.until)
    {
        return None;
    }
    let words = label.as_str().trim_end_matches('.');
    let since = format_date(resolved.since);
    let until = format_date(resolved.until);
    let label_text = window_label(words, &since, &until, resolved.anchored);
    Some(Candidate {
        granularity: resolved.granularity,
        start: label.start(),
        end: label.start() + words.len(),
        window: DateWindow {
            since,
            until,
            label: label_text,
        },
        anchored: resolved.anchored,
    })
}

/// A window's label (see the module docs): the words that named it, and
/// for a period today decided (`anchored`) its days after them in brackets.
fn window_label(words: &str, since: &str, until: &str, anchored: bool) -> String {
    if anchored {
        format!("{words} ({since} to {until})")
    } else {
        words.to_string()
    }
}

/// Whether a day is one the windows spell (`YYYY-MM-DD`, years 1 to
/// 9999): "2026 years ago" reaches before year 1, which is no period a
/// memory can fall in, and whose spelling would not sort.
fn in_calendar(day: NaiveDate) -> bool {
    (1..=9999).contains(&day.year())
}

/// Which occurrence of a named month or season is meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Occurrence {
    /// "in March": the most recent one that has started.
    MostRecent,
    /// "in March" in a question in the present tense ("what do I have in
    /// June?"): the nearer of the most recent one and the first one after
    /// the current month, the most recent when both are six months away.
    Nearest,
    /// "in March" in a question that looks ahead ("what will I do in
    /// June?"): the current month or the first one after it.
    Coming,
    /// "last March": the most recent one before the current one (for
    /// seasons, the most recent that has ended).
    Last,
    /// "this March": the one of today's year.
    This,
    /// "next March": the first one after the current one.
    Next,
}

impl From<Relation> for Occurrence {
    fn from(relation: Relation) -> Self {
        match relation {
            Relation::Last => Occurrence::Last,
            Relation::This => Occurrence::This,
            Relation::Next => Occurrence::Next,
        }
    }
}

/// The period one form's match names, or None when its words are not a
/// period after all (a verb, a product name) or name no real day. `tense`
/// is the query's.
fn resolve_form(
    form: Spoken,
    captures: &Captures<'_>,
    query: &str,
    tense: &TextTense<'_>,
    today: NaiveDate,
) -> Option<Resolved> {
    let whole = captures.get(0)?;
    let after = query.get(whole.end()..)?;
    match form {
        Spoken::RelativeMonth | Spoken::MonthAfterPreposition => {
            let month_match = captures.name("month")?;
            if !is_bare_month(after) {
                return None;
            }
            // "from" names a time only before "onwards" ("from March
            // onwards"): "an email from Jan" is a person's.
            let from = captures
                .name("preposition")
                .is_some_and(|words| words.as_str().eq_ignore_ascii_case("from"));
            if from && !matches!(next_word(after).as_str(), "onwards" | "onward") {
                return None;
            }
            let occurrence = match captures.name("relation") {
                Some(words) => {
                    if follows_determiner(query, words) {
                        return None;
                    }
                    let occurrence = Occurrence::from(relation(words.as_str()));
                    if occurrence == Occurrence::This
                        && is_lowercase_verb_month(month_match)
                        && !ends_sentence(after)
                    {
                        return None;
                    }
                    occurrence
                }
                None => bare_occurrence(query, month_match.start(), tense),
            };
            let month = month_number(month_match.as_str())?;
            let year = month_year(today, month, occurrence);
            Some(Resolved::anchored(
                whole_month(year, month)?,
                Granularity::Month,
            ))
        }
        Spoken::MonthOfRelativeYear => {
            let month = month_number(captures.name("month")?.as_str())?;
            let offset = relation_offset(relation(captures.name("relation")?.as_str()));
            Some(Resolved::anchored(
                whole_month(today.year().checked_add(offset)?, month)?,
                Granularity::Month,
            ))
        }
        Spoken::PartOfBareMonth | Spoken::WeekOfBareMonth => {
            if !is_bare_month(after) {
                return None;
            }
            let month = month_number(captures.name("month")?.as_str())?;
            let year = month_year(today, month, bare_month_occurrence(tense.get()));
            let days = match captures.name("part") {
                Some(part) => part_of_month(year, month, part.as_str())?,
                None => week_of_month(year, month, captures.name("ordinal")?.as_str())?,
            };
            Some(Resolved::anchored(days, Granularity::Week))
        }
        Spoken::RelativeSeason => {
            let season_match = captures.name("season")?;
            let relation_text = captures.name("relation")?;
            let occurrence = Occurrence::from(relation(relation_text.as_str()));
            if !is_season_time(season_match, after) || follows_determiner(query, relation_text) {
                return None;
            }
            if is_verb_season(season_match) && occurrence == Occurrence::This {
                let before = previous_word(query, relation_text.start());
                if AUXILIARY_WORDS.contains(&before.as_str()) {
                    return None;
                }
            }
            let season = Season::from_word(season_match.as_str())?;
            let start_year = season.start_year(today, occurrence)?;
            Some(Resolved::anchored(
                season.span(start_year)?,
                Granularity::Season,
            ))
        }
        Spoken::SeasonOfYear => {
            let season = Season::from_word(captures.name("season")?.as_str())?;
            let year = year_in_range(captures.name("year")?.as_str())?;
            let start_year = match captures.name("second_year") {
                None => season.start_year_named(year)?,
                Some(second) if season == Season::Winter && follows(year, second.as_str()) => year,
                Some(_) => return None,
            };
            Some(Resolved::absolute(
                season.span(start_year)?,
                Granularity::Season,
            ))
        }
        Spoken::SeasonAfterPreposition => {
            let season_match = captures.name("season")?;
            let with_the = captures.name("the").is_some();
            if !is_season_time(season_match, after) || (is_fall(season_match) && !with_the) {
                return None;
            }
            if starts_with_year(after) {
                return None;
            }
            let season = Season::from_word(season_match.as_str())?;
            let start_year =
                season.start_year(today, bare_occurrence(query, season_match.start(), tense))?;
            Some(Resolved::anchored(
                season.span(start_year)?,
                Granularity::Season,
            ))
        }
        Spoken::QuarterOfYear | Spoken::YearQuarter => {
            let quarter = quarter_number(captures)?;
            let Some(year) = captures.name("year") else {
                // "Q4 of last year", "the third quarter of the year".
                let year = said_year(captures, today)?;
                return Some(Resolved::anchored(
                    quarter_span(year, quarter)?,
                    Granularity::Season,
                ));
            };
            let year = year_in_range(year.as_str())?;
            Some(Resolved::absolute(
                quarter_span(year, quarter)?,
                Granularity::Season,
            ))
        }
        Spoken::BareQuarter => {
            if starts_with_year(after) {
                return None;
            }
            let quarter = quarter_number(captures)?;
            Some(Resolved::anchored(
                quarter_span(today.year(), quarter)?,
                Granularity::Season,
            ))
        }
        Spoken::RelativeQuarter => {
            let offset = relation_offset(relation(captures.name("relation")?.as_str()));
            let current = today
                .year()
                .checked_mul(QUARTERS_PER_YEAR)?
                .checked_add(i32::try_from(today.month0() / MONTHS_PER_SEASON).ok()?)?;
            let target = current.checked_add(offset)?;
            let year = target.div_euclid(QUARTERS_PER_YEAR);
            let quarter = u32::try_from(target.rem_euclid(QUARTERS_PER_YEAR)).ok()? + 1;
            Some(Resolved::anchored(
                quarter_span(year, quarter)?,
                Granularity::Season,
            ))
        }
        Spoken::RelativePeriod => {
            let relation_text = captures.name("relation")?;
            if follows_determiner(query, relation_text) {
                // "the last week" is the rolling seven days (RollingSingle);
                // "the next week" is told from another time than now.
                return None;
            }
            let relation = relation(relation_text.as_str());
            let period = Period::from_word(captures.name("period")?.as_str())?;
            let (first, last) = period.span(today, relation_offset(relation))?;
            // "the end of last month", "early next year": that part of it.
            // A week's parts are too short to tell apart: the whole week.
            match (captures.name("part"), period) {
                (Some(part), Period::Month) => Some(Resolved::anchored(
                    part_of_month(first.year(), first.month(), part.as_str())?,
                    Granularity::Week,
                )),
                (Some(part), Period::Year) => Some(Resolved::anchored(
                    part_of_year(first.year(), part.as_str())?,
                    Granularity::Season,
                )),
                _ => Some(Resolved::anchored((first, last), period.granularity())),
            }
        }
        Spoken::PeriodBeforeLast => {
            let period = Period::from_word(captures.name("period")?.as_str())?;
            Some(Resolved::anchored(
                period.span(today, -2)?,
                period.granularity(),
            ))
        }
        Spoken::SoFarThis | Spoken::LaterThis => {
            let period_word = captures
                .name("period")
                .or_else(|| captures.name("period_first"))?;
            let period = Period::from_word(period_word.as_str())?;
            let (first, last) = period.span(today, 0)?;
            let days = if form == Spoken::LaterThis {
                (today, last)
            } else {
                (first, today)
            };
            Some(Resolved::anchored(days, period.granularity()))
        }
        Spoken::RollingCounted | Spoken::RollingSingle => {
            if next_word(after) == "of" {
                return None;
            }
            let unit = captures.name("unit")?.as_str();
            let units = match captures.name("count") {
                Some(words) => rolling_count(words.as_str())?,
                None => 1,
            };
            let since = shift_by_units(today, unit, units, -1)?;
            Some(Resolved::anchored((since, today), unit_granularity(unit)))
        }
        Spoken::Ago => {
            let unit = captures.name("unit")?.as_str();
            let units = count(captures.name("count")?.as_str())?;
            let day = shift_by_units(today, unit, units, -1)?;
            let radius = Days::new(ago_radius_days(unit));
            Some(Resolved::anchored(
                (day.checked_sub_days(radius)?, day.checked_add_days(radius)?),
                unit_granularity(unit),
            ))
        }
        Spoken::ThisTimeLastYear => {
            let day = super::month::shift_months(today, -i64::from(MONTHS_PER_YEAR))?;
            let radius = Days::new(AGO_MONTHS_RADIUS);
            Some(Resolved::anchored(
                (day.checked_sub_days(radius)?, day.checked_add_days(radius)?),
                Granularity::Month,
            ))
        }
        Spoken::RollingAhead => {
            let unit = captures.name("unit")?.as_str();
            let until = shift_by_units(
                today,
                unit,
                rolling_count(captures.name("count")?.as_str())?,
                1,
            )?;
            Some(Resolved::anchored((today, until), unit_granularity(unit)))
        }
        Spoken::SeasonBeforeLast => {
            let season = Season::from_word(captures.name("season")?.as_str())?;
            let start_year = season.start_year(today, Occurrence::Last)?.checked_sub(1)?;
            Some(Resolved::anchored(
                season.span(start_year)?,
                Granularity::Season,
            ))
        }
        Spoken::PartOfYear => {
            if starts_with_quantity_unit(after) {
                return None;
            }
            let year = year_in_range(captures.name("year")?.as_str())?;
            Some(Resolved::absolute(
                part_of_year(year, captures.name("part")?.as_str())?,
                Granularity::Season,
            ))
        }
        Spoken::HalfOfYear => {
            let (year, second) = match captures.name("half") {
                Some(half) => (captures.name("year")?, half.as_str() == "2"),
                None => {
                    let ordinal = captures.name("ordinal")?.as_str().to_lowercase();
                    let second = !matches!(ordinal.as_str(), "first" | "1st");
                    match captures.name("half_year") {
                        Some(year) => (year, second),
                        // "the second half of the year", "… of last year".
                        None => {
                            let year = said_year(captures, today)?;
                            let (first_month, last_month) = half_months(second);
                            return Some(Resolved::anchored(
                                months_of(year, first_month, last_month)?,
                                Granularity::Season,
                            ));
                        }
                    }
                }
            };
            let year = year_in_range(year.as_str())?;
            let (first_month, last_month) = half_months(second);
            Some(Resolved::absolute(
                months_of(year, first_month, last_month)?,
                Granularity::Season,
            ))
        }
        Spoken::Holiday | Spoken::HolidayOfYear => {
            let next = next_word(after);
            if form == Spoken::Holiday
                && !next.is_empty()
                && !TIME_FOLLOWERS.contains(&next.as_str())
            {
                return None;
            }
            let holiday = Holiday::from_words(captures.name("holiday")?.as_str())?;
            if let Some(year) = captures.name("year") {
                let year = year_in_range(year.as_str())?;
                return Some(Resolved::absolute(holiday.span(year)?, Granularity::Week));
            }
            if captures.name("year_relation").is_some() {
                let year = said_year(captures, today)?;
                return Some(Resolved::anchored(holiday.span(year)?, Granularity::Week));
            }
            if captures.name("before_last").is_some() {
                let last = holiday_year(holiday, today, Occurrence::Last)?;
                let year = last.checked_sub(1)?;
                return Some(Resolved::anchored(holiday.span(year)?, Granularity::Week));
            }
            if starts_with_year(after) {
                return None;
            }
            let occurrence = match captures.name("relation") {
                Some(words) if follows_determiner(query, words) => return None,
                Some(words) => Occurrence::from(relation(words.as_str())),
                None => bare_occurrence(query, captures.name("holiday")?.start(), tense),
            };
            let year = holiday_year(holiday, today, occurrence)?;
            Some(Resolved::anchored(holiday.span(year)?, Granularity::Week))
        }
        Spoken::Weekend => {
            let weeks = match captures.name("relation") {
                Some(words) if follows_determiner(query, words) => return None,
                Some(words) => relation_offset(relation(words.as_str())).into(),
                None => -2,
            };
            let saturday = weekend_saturday(today, weeks)?;
            let sunday = shift_days(saturday, 1)?;
            // Coarser than a day the query names: "last weekend before
            // April 10, 2023" is about the days before that date, not about
            // the weekend before today.
            Some(Resolved::anchored((saturday, sunday), Granularity::Week))
        }
        Spoken::Between | Spoken::FromTo | Spoken::MonthSpan | Spoken::MonthAlternatives => {
            let start = range_end(captures, "start")?;
            let finish = range_end(captures, "finish")?;
            if matches!(finish, RangeEnd::Year(_)) && starts_with_quantity_unit(after) {
                return None;
            }
            resolve_range(start, finish, today, bare_month_occurrence(tense.get()))
        }
    }
}

/// Whether the words after a month leave it bare: no day or year follows
/// (those are the absolute forms' business, or not a date) and it is not a
/// possessive ("in April's team": April is a person).
fn is_bare_month(after: &str) -> bool {
    let rest = after.trim_start_matches([' ', ',']);
    let rest = rest.strip_prefix("of ").unwrap_or(rest).trim_start();
    let possessive = after.starts_with("'s") || after.starts_with("’s");
    !possessive && !rest.starts_with(|c: char| c.is_ascii_digit())
}

/// Whether a month word is "may" or "march" in lower case: after "this" a
/// verb ("this may take a while", "this march ends"), so only the
/// capitalised month counts.
fn is_lowercase_verb_month(month: Match<'_>) -> bool {
    let word = month.as_str().trim_end_matches('.');
    word == "may" || word == "march"
}

/// Whether the sentence ends right after a match: nothing but spaces
/// before the end of the text or a full stop, question or exclamation mark.
fn ends_sentence(after: &str) -> bool {
    after
        .trim_start()
        .chars()
        .next()
        .is_none_or(|c| matches!(c, '.' | '?' | '!'))
}

/// Whether the text right after a match starts with a year.
fn starts_with_year(after: &str) -> bool {
    let rest = after.trim_start_matches([' ', ',']);
    let rest = rest.strip_prefix("of ").unwrap_or(rest);
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits == 4
}

/// Whether a season word, in its place in the query, names a time rather
/// than a thing (see the module documentation).
fn is_season_time(season: Match<'_>, after: &str) -> bool {
    let joined = after
        .strip_prefix('-')
        .is_some_and(|rest| rest.starts_with(char::is_alphabetic));
    let next = next_word(after);
    let capitalised = |word: &str| word.starts_with(char::is_uppercase);
    let next_original: String = after
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect();
    let proper_name = capitalised(season.as_str()) && capitalised(&next_original);
    let verb = is_verb_season(season) && SEASON_VERB_PARTICLES.contains(&next.as_str());
    !joined && !proper_name && !verb && !SEASON_COMPOUND_WORDS.contains(&next.as_str())
}

/// Whether the season word is "fall".
fn is_fall(season: Match<'_>) -> bool {
    season.as_str().eq_ignore_ascii_case("fall")
}

/// Whether the season word is also a common verb ("fall", "spring").
fn is_verb_season(season: Match<'_>) -> bool {
    is_fall(season) || season.as_str().eq_ignore_ascii_case("spring")
}

/// Whether a determiner ([`DETERMINERS`]) comes right before a relation
/// word: "the last fall" or "his last fall" (from a ladder), "the next
/// spring" (after some other time), "my last week at the company" are not
/// told from now.
fn follows_determiner(query: &str, relation_words: Match<'_>) -> bool {
    DETERMINERS.contains(&previous_word(query, relation_words.start()).as_str())
}

/// The next word of the text, lower-case ("" at the end or before
/// punctuation).
fn next_word(after: &str) -> String {
    after
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The word just before byte offset `position`, lower-case ("" when none).
fn previous_word(query: &str, position: usize) -> String {
    let before = query.get(..position).unwrap_or_default().trim_end();
    let word: Vec<char> = before
        .chars()
        .rev()
        .take_while(|c| c.is_alphabetic())
        .collect();
    word.into_iter()
        .rev()
        .flat_map(char::to_lowercase)
        .collect()
}

/// Which occurrence a month named without a year or a relation word means,
/// in a question of this tense ([`super::tense`]): the past, or no verb to
/// tell ("in March", "what happened in June?"), the most recent one; looking
/// ahead ("will", "planned", "coming up"), the current or the next; the
/// present ("what flights do I have in June?", asked in May), the nearer
/// one.
fn bare_month_occurrence(tense: Tense) -> Occurrence {
    match tense {
        Tense::Past => Occurrence::MostRecent,
        Tense::Ahead => Occurrence::Coming,
        Tense::Present => Occurrence::Nearest,
    }
}

/// Which occurrence a month, season or holiday without a relation word
/// means, its word at byte offset `position`: after "since" ("since March",
/// "since the summer") one that has begun, whatever the tense; otherwise as
/// the question's `tense` says ([`bare_month_occurrence`]).
fn bare_occurrence(query: &str, position: usize, tense: &TextTense<'_>) -> Occurrence {
    if said_since(query, position) {
        Occurrence::MostRecent
    } else {
        bare_month_occurrence(tense.get())
    }
}

/// Where "since" (or "ever since") stands right before byte offset
/// `position`, a "the" between them allowed: the byte offset of "since".
fn since_before(query: &str, position: usize) -> Option<usize> {
    let before = query.get(..position)?.trim_end();
    let before = strip_word_suffix(before, "the").map_or(before, str::trim_end);
    strip_word_suffix(before, "since").map(str::len)
}

/// Whether "since" stands right before byte offset `position` (see
/// [`since_before`]).
fn said_since(query: &str, position: usize) -> bool {
    since_before(query, position).is_some()
}

/// `text` without its last word when that word is `word` (ASCII case
/// ignored) and stands alone.
fn strip_word_suffix<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let cut = text.len().checked_sub(word.len())?;
    let (rest, last) = (text.get(..cut)?, text.get(cut..)?);
    let alone = !rest.ends_with(|c: char| c.is_alphanumeric() || c == '\'' || c == '’');
    (last.eq_ignore_ascii_case(word) && alone).then_some(rest)
}

/// The year a named month falls in.
fn month_year(today: NaiveDate, month: u32, occurrence: Occurrence) -> i32 {
    let year = today.year();
    let current = today.month();
    let ahead = (month + 12 - current) % 12;
    match occurrence {
        Occurrence::Coming | Occurrence::Nearest if ahead == 0 => year,
        Occurrence::Coming if month > current => year,
        Occurrence::Coming => year + 1,
        Occurrence::Nearest if ahead < 6 => month_year(today, month, Occurrence::Coming),
        Occurrence::Nearest => month_year(today, month, Occurrence::MostRecent),
        Occurrence::MostRecent if month <= current => year,
        Occurrence::Last if month < current => year,
        Occurrence::MostRecent | Occurrence::Last => year - 1,
        Occurrence::This => year,
        Occurrence::Next if month > current => year,
        Occurrence::Next => year + 1,
    }
}

/// The first and last day of a month.
fn whole_month(year: i32, month: u32) -> Option<(NaiveDate, NaiveDate)> {
    months_of(year, month, month)
}

/// −1, 0 or +1 for last, this, next.
fn relation_offset(relation: Relation) -> i32 {
    match relation {
        Relation::Last => -1,
        Relation::This => 0,
        Relation::Next => 1,
    }
}

/// Whether a second year ("26", "2026") is the year after `year`.
fn follows(year: i32, second: &str) -> bool {
    let Ok(value) = second.parse::<i32>() else {
        return false;
    };
    let next = year + 1;
    if second.len() == 2 {
        value == next.rem_euclid(100)
    } else {
        value == next
    }
}

/// The four seasons (northern hemisphere, meteorological).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Season {
    Spring,
    Summer,
    Autumn,
    Winter,
}

impl Season {
    /// The season a word names ("fall" is autumn).
    fn from_word(word: &str) -> Option<Season> {
        match word.to_lowercase().as_str() {
            "spring" => Some(Season::Spring),
            "summer" => Some(Season::Summer),
            "autumn" | "fall" => Some(Season::Autumn),
            "winter" => Some(Season::Winter),
            _ => None,
        }
    }

    /// The month the season starts in.
    fn first_month(self) -> u32 {
        match self {
            Season::Spring => 3,
            Season::Summer => 6,
            Season::Autumn => 9,
            Season::Winter => 12,
        }
    }

    /// The season's days when it starts in `start_year`.
    fn span(self, start_year: i32) -> Option<(NaiveDate, NaiveDate)> {
        let since = NaiveDate::from_ymd_opt(start_year, self.first_month(), 1)?;
        let last_month = since.checked_add_months(chrono::Months::new(MONTHS_PER_SEASON - 1))?;
        Some((
            since,
            last_day_of_month(last_month.year(), last_month.month())?,
        ))
    }

    /// The year the season named with `year` starts in: winter 2026 starts
    /// in December 2025.
    fn start_year_named(self, year: i32) -> Option<i32> {
        match self {
            Season::Winter => year.checked_sub(1),
            _ => Some(year),
        }
    }

    /// The year the meant occurrence starts in (see the module docs).
    fn start_year(self, today: NaiveDate, occurrence: Occurrence) -> Option<i32> {
        let year = today.year();
        let started_this_year = today >= NaiveDate::from_ymd_opt(year, self.first_month(), 1)?;
        let most_recent = if started_this_year { year } else { year - 1 };
        Some(match occurrence {
            Occurrence::MostRecent => most_recent,
            Occurrence::Last => {
                let (_, until) = self.span(most_recent)?;
                if until < today {
                    most_recent
                } else {
                    most_recent - 1
                }
            }
            Occurrence::This => match self {
                Season::Winter if today.month() <= LAST_MONTH_THIS_WINTER_LOOKS_BACK => year - 1,
                _ => year,
            },
            Occurrence::Next if started_this_year => year + 1,
            Occurrence::Next => year,
            Occurrence::Coming | Occurrence::Nearest => {
                let (_, until) = self.span(most_recent)?;
                if today <= until {
                    // The one under way.
                    most_recent
                } else {
                    // As for its first month.
                    month_year(today, self.first_month(), occurrence)
                }
            }
        })
    }
}

/// The year of the occurrence of `holiday` meant, seen from `today`
/// (its span in that year is the window), as for a month or a season:
/// the most recent one that has begun; "last": the most recent that has
/// ended; "this": today's year's; "next": the first not begun; looking
/// ahead: the one under way or the first after it; in the present: the one
/// under way, else the nearer of the last one and the next (the last one
/// when both are as far).
fn holiday_year(holiday: Holiday, today: NaiveDate, occurrence: Occurrence) -> Option<i32> {
    let year = today.year();
    let spans: Vec<(i32, NaiveDate, NaiveDate)> = [year - 2, year - 1, year, year + 1]
        .into_iter()
        .filter_map(|y| holiday.span(y).map(|(since, until)| (y, since, until)))
        .collect();
    let begun = spans.iter().rev().find(|(_, since, _)| *since <= today);
    // On its last day a holiday is over: "last Christmas" said on 1 January
    // is the one just gone.
    let ended = spans.iter().rev().find(|(_, _, until)| *until <= today);
    let not_over = spans.iter().find(|(_, _, until)| *until >= today);
    let not_begun = spans.iter().find(|(_, since, _)| *since > today);
    Some(match occurrence {
        Occurrence::MostRecent => begun?.0,
        Occurrence::Last => ended?.0,
        Occurrence::This => year,
        Occurrence::Next => not_begun?.0,
        Occurrence::Coming => not_over?.0,
        Occurrence::Nearest => match (begun, not_over) {
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

/// The year a form's `year_relation` group says relative to today ("last
/// year", "next year"); today's when it says none ("of the year").
fn said_year(captures: &Captures<'_>, today: NaiveDate) -> Option<i32> {
    let offset = captures
        .name("year_relation")
        .map_or(0, |words| relation_offset(relation(words.as_str())));
    today.year().checked_add(offset)
}

/// The first and last month of a year's first or `second` half.
fn half_months(second: bool) -> (u32, u32) {
    if second {
        (MONTHS_PER_HALF + 1, MONTHS_PER_YEAR)
    } else {
        (1, MONTHS_PER_HALF)
    }
}

/// The days of "early", "mid" or "late" `year`: January–April, May–August,
/// September–December.
fn part_of_year(year: i32, part: &str) -> Option<(NaiveDate, NaiveDate)> {
    let (first_month, last_month) = match Third::named(part) {
        Third::Early => (1, EARLY_YEAR_LAST_MONTH),
        Third::Mid => (EARLY_YEAR_LAST_MONTH + 1, MID_YEAR_LAST_MONTH),
        Third::Late => (MID_YEAR_LAST_MONTH + 1, MONTHS_PER_YEAR),
    };
    months_of(year, first_month, last_month)
}

/// The quarter (1–4) a quarter form names.
fn quarter_number(captures: &Captures<'_>) -> Option<u32> {
    if let Some(digit) = captures.name("quarter") {
        return digit.as_str().parse().ok();
    }
    match captures.name("ordinal")?.as_str().to_lowercase().as_str() {
        "first" | "1st" => Some(1),
        "second" | "2nd" => Some(2),
        "third" | "3rd" => Some(3),
        // "fourth", "4th", "last", "final".
        _ => Some(4),
    }
}

/// The days of quarter `quarter` (1–4) of `year`.
fn quarter_span(year: i32, quarter: u32) -> Option<(NaiveDate, NaiveDate)> {
    let first_month = (quarter.checked_sub(1)?) * MONTHS_PER_SEASON + 1;
    months_of(year, first_month, first_month + MONTHS_PER_SEASON - 1)
}

/// A calendar week (Monday–Sunday), month or year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Period {
    Week,
    Month,
    Year,
}

impl Period {
    /// The period a word names.
    fn from_word(word: &str) -> Option<Period> {
        match word.to_lowercase().as_str() {
            "week" => Some(Period::Week),
            "month" => Some(Period::Month),
            "year" => Some(Period::Year),
            _ => None,
        }
    }

    /// How fine the period is.
    fn granularity(self) -> Granularity {
        match self {
            Period::Week => Granularity::Week,
            Period::Month => Granularity::Month,
            Period::Year => Granularity::Year,
        }
    }

    /// The days of the period `offset` periods from the one holding `today`.
    fn span(self, today: NaiveDate, offset: i32) -> Option<(NaiveDate, NaiveDate)> {
        match self {
            Period::Week => {
                let monday = today.checked_sub_days(Days::new(u64::from(
                    today.weekday().num_days_from_monday(),
                )))?;
                let first = shift_days(monday, i64::from(offset).checked_mul(DAYS_PER_WEEK)?)?;
                Some((first, shift_days(first, DAYS_PER_WEEK - 1)?))
            }
            Period::Month => {
                let first = today.with_day(1)?;
                let first = super::month::shift_months(first, i64::from(offset))?;
                Some((first, last_day_of_month(first.year(), first.month())?))
            }
            Period::Year => months_of(today.year().checked_add(offset)?, 1, MONTHS_PER_YEAR),
        }
    }
}

/// How fine a counted unit's window is.
fn unit_granularity(unit: &str) -> Granularity {
    let unit = unit.to_lowercase();
    if unit.starts_with("day") {
        Granularity::Day
    } else if unit.starts_with("week") || unit.starts_with("fortnight") {
        Granularity::Week
    } else if unit.starts_with("month") {
        Granularity::Month
    } else {
        Granularity::Year
    }
}

/// The slack either side of "N units ago".
fn ago_radius_days(unit: &str) -> u64 {
    let unit = unit.to_lowercase();
    if unit.starts_with("day") {
        AGO_DAYS_RADIUS
    } else if unit.starts_with("fortnight") {
        AGO_FORTNIGHTS_RADIUS
    } else if unit.starts_with("week") {
        AGO_WEEKS_RADIUS
    } else if unit.starts_with("month") {
        AGO_MONTHS_RADIUS
    } else {
        AGO_YEARS_RADIUS
    }
}

/// The count of a rolling window: [`count`]'s, plus "few" and "couple".
fn rolling_count(words: &str) -> Option<u64> {
    if words.eq_ignore_ascii_case("few") {
        Some(A_FEW)
    } else {
        count(words)
    }
}

/// One end of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RangeEnd {
    /// A year alone ("2024").
    Year(i32),
    /// A month with an optional day and year ("3 May", "May 2026").
    Date {
        day: Option<u32>,
        month: u32,
        year: Option<i32>,
    },
    /// A day alone, taking the other end's month ("between 3 and 9 May").
    Day(u32),
}

/// The range end whose groups are named after `end`.
fn range_end(captures: &Captures<'_>, end: &str) -> Option<RangeEnd> {
    let group = |part: &str| captures.name(&format!("{end}_{part}"));
    if let Some(year) = group("year_only") {
        return year_in_range(year.as_str()).map(RangeEnd::Year);
    }
    if let Some(day) = group("day_only") {
        return day.as_str().parse().ok().map(RangeEnd::Day);
    }
    let month = month_number(group("month")?.as_str())?;
    let day = match group("day_first").or_else(|| group("day_after")) {
        Some(day) => Some(day.as_str().parse().ok()?),
        None => None,
    };
    let year = match group("year") {
        Some(year) => Some(year_in_range(year.as_str())?),
        None => None,
    };
    Some(RangeEnd::Date { day, month, year })
}

/// The window from `start`'s first day to `finish`'s last (see the module
/// documentation for how missing years are filled in). With no year at
/// either end, the start's month is the one the question's tense means
/// (`occurrence`, as for a month alone): "what's scheduled from April to
/// June?" asked in March is this year's.
fn resolve_range(
    start: RangeEnd,
    finish: RangeEnd,
    today: NaiveDate,
    occurrence: Occurrence,
) -> Option<Resolved> {
    let (finish_day, finish_month, finish_year) = match (start, finish) {
        (RangeEnd::Year(first), RangeEnd::Year(last)) => {
            return Some(Resolved::absolute(
                (
                    NaiveDate::from_ymd_opt(first, 1, 1)?,
                    last_day_of_month(last, MONTHS_PER_YEAR)?,
                ),
                Granularity::Year,
            ));
        }
        (_, RangeEnd::Date { day, month, year }) => (day, month, year),
        _ => return None,
    };
    let (start_day, start_month, start_year) = match start {
        RangeEnd::Date { day, month, year } => (day, month, year),
        RangeEnd::Day(day) => (Some(day), finish_month, finish_year),
        RangeEnd::Year(_) => return None,
    };
    // Whether the start's month and day come after the end's within a year,
    // so that the range crosses a new year ("November to February").
    let wraps = (start_month, start_day.unwrap_or(0)) > (finish_month, finish_day.unwrap_or(32));
    let (first_year, last_year, anchored) = match (start_year, finish_year) {
        (Some(first), Some(last)) => (first, last, false),
        (None, Some(last)) => (if wraps { last - 1 } else { last }, last, false),
        (Some(first), None) => (first, if wraps { first + 1 } else { first }, false),
        (None, None) => {
            let reached = (start_month, start_day.unwrap_or(1)) <= (today.month(), today.day());
            let first = match occurrence {
                Occurrence::MostRecent if reached => today.year(),
                Occurrence::MostRecent => today.year() - 1,
                looking => month_year(today, start_month, looking),
            };
            (first, if wraps { first + 1 } else { first }, true)
        }
    };
    let since = match start_day {
        Some(day) => NaiveDate::from_ymd_opt(first_year, start_month, day)?,
        None => NaiveDate::from_ymd_opt(first_year, start_month, 1)?,
    };
    let until = match finish_day {
        Some(day) => NaiveDate::from_ymd_opt(last_year, finish_month, day)?,
        None => last_day_of_month(last_year, finish_month)?,
    };
    let granularity = if start_day.is_some() && finish_day.is_some() {
        Granularity::Day
    } else {
        Granularity::Month
    };
    Some(Resolved {
        since,
        until,
        granularity,
        anchored,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// 2026-05-08 is a Friday.
    const FRIDAY: &str = "2026-05-08";

    /// The window's days, or None.
    fn days(query: &str, anchor: &str) -> Option<(String, String)> {
        resolve_date_window(query, anchor)
            .unwrap()
            .map(|window| (window.since, window.until))
    }

    /// Asserts every `(query, anchor, since, until)` row.
    fn check(cases: &[(&str, &str, &str, &str)]) {
        for &(query, anchor, since, until) in cases {
            assert_eq!(
                days(query, anchor),
                Some((since.to_string(), until.to_string())),
                "{query:?} @ {anchor}"
            );
        }
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(SPOKEN_PATTERNS.len(), SPOKEN_FORMS.len());
        assert!(JOINER_ALONE.is_some());
    }

    #[test]
    fn months_without_a_year() {
        check(&[
            (
                "what did we decide last March?",
                FRIDAY,
                "2026-03-01",
                "2026-03-31",
            ),
            ("last March", "2026-03-15", "2025-03-01", "2025-03-31"),
            ("in March", "2026-03-15", "2026-03-01", "2026-03-31"),
            ("in March", "2026-02-10", "2025-03-01", "2025-03-31"),
            ("last May", FRIDAY, "2025-05-01", "2025-05-31"),
            ("in May", FRIDAY, "2026-05-01", "2026-05-31"),
            ("what happened in may", FRIDAY, "2026-05-01", "2026-05-31"),
            ("in June", FRIDAY, "2025-06-01", "2025-06-30"),
            ("this December", FRIDAY, "2026-12-01", "2026-12-31"),
            ("this May", FRIDAY, "2026-05-01", "2026-05-31"),
            // Lower case, but the sentence ends with it: no verb follows.
            (
                "what's happening this may?",
                "2026-02-03",
                "2026-05-01",
                "2026-05-31",
            ),
            ("next March", FRIDAY, "2027-03-01", "2027-03-31"),
            ("next June", FRIDAY, "2026-06-01", "2026-06-30"),
            (
                "this coming January",
                "2025-12-31",
                "2026-01-01",
                "2026-01-31",
            ),
            ("this past January", FRIDAY, "2026-01-01", "2026-01-31"),
            ("last December", "2026-01-10", "2025-12-01", "2025-12-31"),
            ("last december", "2025-12-31", "2024-12-01", "2024-12-31"),
            ("in February", "2024-02-29", "2024-02-01", "2024-02-29"),
            ("last February", "2025-03-01", "2025-02-01", "2025-02-28"),
            ("last February", "2024-02-29", "2023-02-01", "2023-02-28"),
            ("in Sept", FRIDAY, "2025-09-01", "2025-09-30"),
            (
                "during the month of April",
                FRIDAY,
                "2026-04-01",
                "2026-04-30",
            ),
            ("throughout Jan.", FRIDAY, "2026-01-01", "2026-01-31"),
            ("March of last year", FRIDAY, "2025-03-01", "2025-03-31"),
            ("in June of this year", FRIDAY, "2026-06-01", "2026-06-30"),
            (
                "February next year",
                "2027-06-01",
                "2028-02-01",
                "2028-02-29",
            ),
            ("early March", FRIDAY, "2026-03-01", "2026-03-10"),
            ("late February", "2028-03-05", "2028-02-21", "2028-02-29"),
            ("mid-June", FRIDAY, "2025-06-11", "2025-06-20"),
            ("by the end of April", FRIDAY, "2026-04-21", "2026-04-30"),
            (
                "the first week of March",
                FRIDAY,
                "2026-03-01",
                "2026-03-07",
            ),
            ("the last week of April", FRIDAY, "2026-04-24", "2026-04-30"),
        ]);
    }

    #[test]
    fn a_month_without_a_year_is_read_in_the_questions_tense() {
        // Today Friday 8 May 2026.
        check(&[
            // The present: the nearer June (next month, not eleven back)
            // and the nearer March (two months back, not ten ahead).
            (
                "What flights do I have in June?",
                FRIDAY,
                "2026-06-01",
                "2026-06-30",
            ),
            (
                "Whose birthdays are in June?",
                FRIDAY,
                "2026-06-01",
                "2026-06-30",
            ),
            (
                "What do I have in March?",
                FRIDAY,
                "2026-03-01",
                "2026-03-31",
            ),
            // Six months either way: the past one.
            (
                "What is on in November?",
                FRIDAY,
                "2025-11-01",
                "2025-11-30",
            ),
            ("What's on in August?", FRIDAY, "2026-08-01", "2026-08-31"),
            // Looking ahead: the current month or the next one.
            (
                "What will I do in March?",
                FRIDAY,
                "2027-03-01",
                "2027-03-31",
            ),
            (
                "Who is coming up in May?",
                FRIDAY,
                "2026-05-01",
                "2026-05-31",
            ),
            (
                "What's planned for early March?",
                FRIDAY,
                "2027-03-01",
                "2027-03-10",
            ),
            // The past, or no verb to tell: the most recent, as before.
            ("What did I do in June?", FRIDAY, "2025-06-01", "2025-06-30"),
            (
                "What did I plan in June?",
                FRIDAY,
                "2025-06-01",
                "2025-06-30",
            ),
            ("What happened in June?", FRIDAY, "2025-06-01", "2025-06-30"),
            ("notes in June", FRIDAY, "2025-06-01", "2025-06-30"),
            // Seasons too: the one under way, else as for months.
            (
                "What are we doing in the summer?",
                FRIDAY,
                "2026-06-01",
                "2026-08-31",
            ),
            (
                "What are we doing in spring?",
                FRIDAY,
                "2026-03-01",
                "2026-05-31",
            ),
            (
                "What will we do in the winter?",
                FRIDAY,
                "2026-12-01",
                "2027-02-28",
            ),
            (
                "What did we do over the summer?",
                FRIDAY,
                "2025-06-01",
                "2025-08-31",
            ),
            (
                "What do we do in the autumn?",
                "2026-02-10",
                "2025-09-01",
                "2025-11-30",
            ),
        ]);
    }

    #[test]
    fn holidays() {
        check(&[
            // Today is Friday 2026-05-08: the last Christmas is 2025's.
            (
                "what did we do over Christmas?",
                FRIDAY,
                "2025-12-18",
                "2026-01-01",
            ),
            (
                "where will we spend Christmas?",
                FRIDAY,
                "2026-12-18",
                "2027-01-01",
            ),
            ("next Christmas", FRIDAY, "2026-12-18", "2027-01-01"),
            ("Christmas 2024", FRIDAY, "2024-12-18", "2025-01-01"),
            // Easter 2026 was on 5 April: it has ended, so it is "last Easter".
            (
                "what did I do last Easter?",
                FRIDAY,
                "2026-04-02",
                "2026-04-06",
            ),
            (
                "over the Easter weekend",
                FRIDAY,
                "2026-04-02",
                "2026-04-06",
            ),
            ("next Easter", FRIDAY, "2027-03-25", "2027-03-29"),
            ("Easter of 2025", FRIDAY, "2025-04-17", "2025-04-21"),
            (
                "what happened at Thanksgiving?",
                FRIDAY,
                "2025-11-27",
                "2025-11-30",
            ),
            ("last Halloween", FRIDAY, "2025-10-29", "2025-11-01"),
            ("on Valentine's Day", FRIDAY, "2026-02-13", "2026-02-15"),
            ("New Year's Eve", FRIDAY, "2025-12-30", "2026-01-02"),
            // Under way, whatever the tense.
            (
                "what are we doing for Christmas?",
                "2026-12-20",
                "2026-12-18",
                "2027-01-01",
            ),
            // The sentence goes on with a closed-class word or a noun of
            // time: still the holiday.
            (
                "what did we do at Christmas with the kids?",
                FRIDAY,
                "2025-12-18",
                "2026-01-01",
            ),
            (
                "where did we go over the Easter holidays",
                FRIDAY,
                "2026-04-02",
                "2026-04-06",
            ),
            ("Halloween night", FRIDAY, "2025-10-29", "2025-11-01"),
            // The occasions a holiday is kept with.
            (
                "where did we go for Valentine's dinner?",
                FRIDAY,
                "2026-02-13",
                "2026-02-15",
            ),
            // A year said relative to today, and the one before last.
            (
                "what did I cook for Thanksgiving last year?",
                "2024-12-03",
                "2023-11-23",
                "2023-11-26",
            ),
            (
                "Christmas Eve last year",
                FRIDAY,
                "2025-12-18",
                "2026-01-01",
            ),
            (
                "where did we spend the Christmas before last?",
                "2028-06-10",
                "2026-12-18",
                "2027-01-01",
            ),
            // Said on 1 January, "last Christmas" is the one just gone.
            ("last Christmas", "2026-01-01", "2025-12-18", "2026-01-01"),
        ]);
        // A modifier of the word after it: a thing named after the holiday.
        for query in [
            "is there an Easter egg in the app?",
            "we flew over Christmas Island",
            "the last Christmas we spent in Leeds",
            "who gave me the Christmas cactus?",
            "how do I carve a Halloween pumpkin?",
            "what goes into mum's Thanksgiving stuffing?",
            "which Halloween costume shop did I like?",
        ] {
            assert_eq!(days(query, FRIDAY), None, "{query}");
        }
    }

    #[test]
    fn the_holiday_meant_follows_today() {
        let day = |text: &str| NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap();
        let year =
            |today: &str, occurrence| holiday_year(Holiday::Christmas, day(today), occurrence);
        let may = "2026-05-08";
        assert_eq!(year(may, Occurrence::MostRecent), Some(2025));
        assert_eq!(year(may, Occurrence::Last), Some(2025));
        assert_eq!(year(may, Occurrence::Next), Some(2026));
        assert_eq!(year(may, Occurrence::Coming), Some(2026));
        // The last one ended 127 days ago, the next begins in 224.
        assert_eq!(year(may, Occurrence::Nearest), Some(2025));
        assert_eq!(year("2026-11-20", Occurrence::Nearest), Some(2026));
        // Under way: the one under way, whatever the tense; not yet ended.
        let boxing_day = "2026-12-26";
        assert_eq!(year(boxing_day, Occurrence::MostRecent), Some(2026));
        assert_eq!(year(boxing_day, Occurrence::Nearest), Some(2026));
        assert_eq!(year(boxing_day, Occurrence::Last), Some(2025));
        assert_eq!(year(boxing_day, Occurrence::Next), Some(2027));
        // On its last day it is over.
        assert_eq!(year("2027-01-01", Occurrence::Last), Some(2026));
    }

    #[test]
    fn seasons() {
        check(&[
            ("spring 2026", FRIDAY, "2026-03-01", "2026-05-31"),
            ("notes from Spring 2026", FRIDAY, "2026-03-01", "2026-05-31"),
            ("the summer of 2025", FRIDAY, "2025-06-01", "2025-08-31"),
            ("autumn 2025", FRIDAY, "2025-09-01", "2025-11-30"),
            ("fall 2025", FRIDAY, "2025-09-01", "2025-11-30"),
            ("winter 2025", FRIDAY, "2024-12-01", "2025-02-28"),
            ("winter 2024", FRIDAY, "2023-12-01", "2024-02-29"),
            ("winter 2025/26", FRIDAY, "2025-12-01", "2026-02-28"),
            ("winter 2025-2026", FRIDAY, "2025-12-01", "2026-02-28"),
            ("winter 2027–28", FRIDAY, "2027-12-01", "2028-02-29"),
            (
                "in the winter of 2099/00",
                FRIDAY,
                "2099-12-01",
                "2100-02-28",
            ),
            ("last spring", FRIDAY, "2025-03-01", "2025-05-31"),
            ("last spring", "2026-07-01", "2026-03-01", "2026-05-31"),
            ("last spring", "2026-05-31", "2025-03-01", "2025-05-31"),
            ("last spring", "2026-06-01", "2026-03-01", "2026-05-31"),
            ("last winter", FRIDAY, "2025-12-01", "2026-02-28"),
            ("last winter", "2026-01-10", "2024-12-01", "2025-02-28"),
            ("last winter", "2024-03-01", "2023-12-01", "2024-02-29"),
            ("this past summer", "2025-12-31", "2025-06-01", "2025-08-31"),
            ("this summer", FRIDAY, "2026-06-01", "2026-08-31"),
            ("this summer", "2026-10-01", "2026-06-01", "2026-08-31"),
            ("this winter", "2026-01-10", "2025-12-01", "2026-02-28"),
            ("this winter", FRIDAY, "2025-12-01", "2026-02-28"),
            ("this winter", "2026-10-01", "2026-12-01", "2027-02-28"),
            ("this winter", "2026-12-15", "2026-12-01", "2027-02-28"),
            ("next winter", FRIDAY, "2026-12-01", "2027-02-28"),
            ("next winter", "2026-12-15", "2027-12-01", "2028-02-29"),
            ("next spring", FRIDAY, "2027-03-01", "2027-05-31"),
            ("next spring", "2026-02-01", "2026-03-01", "2026-05-31"),
            ("this coming autumn", FRIDAY, "2026-09-01", "2026-11-30"),
            (
                "what are we doing this fall?",
                FRIDAY,
                "2026-09-01",
                "2026-11-30",
            ),
            ("over the summer", FRIDAY, "2025-06-01", "2025-08-31"),
            ("in the spring", FRIDAY, "2026-03-01", "2026-05-31"),
            (
                "what did we do in spring?",
                FRIDAY,
                "2026-03-01",
                "2026-05-31",
            ),
            (
                "during the winter",
                "2026-01-10",
                "2025-12-01",
                "2026-02-28",
            ),
            (
                "during the winter",
                "2025-12-31",
                "2025-12-01",
                "2026-02-28",
            ),
            ("in the fall", FRIDAY, "2025-09-01", "2025-11-30"),
            ("in summer school", FRIDAY, "2025-06-01", "2025-08-31"),
        ]);
    }

    #[test]
    fn quarters() {
        check(&[
            ("Q1 2026", FRIDAY, "2026-01-01", "2026-03-31"),
            ("q4 2025", FRIDAY, "2025-10-01", "2025-12-31"),
            ("Q1 of 2026", FRIDAY, "2026-01-01", "2026-03-31"),
            ("Q2, 2026", FRIDAY, "2026-04-01", "2026-06-30"),
            ("Q2-2026", FRIDAY, "2026-04-01", "2026-06-30"),
            ("the 2026 Q3 roadmap", FRIDAY, "2026-07-01", "2026-09-30"),
            ("2026-Q4", FRIDAY, "2026-10-01", "2026-12-31"),
            (
                "the first quarter of 2026",
                FRIDAY,
                "2026-01-01",
                "2026-03-31",
            ),
            ("third quarter 2025", FRIDAY, "2025-07-01", "2025-09-30"),
            (
                "the last quarter of 2025",
                FRIDAY,
                "2025-10-01",
                "2025-12-31",
            ),
            ("in Q1", FRIDAY, "2026-01-01", "2026-03-31"),
            ("in Q3", FRIDAY, "2026-07-01", "2026-09-30"),
            (
                "during the second quarter",
                FRIDAY,
                "2026-04-01",
                "2026-06-30",
            ),
            ("last quarter", FRIDAY, "2026-01-01", "2026-03-31"),
            ("last quarter", "2026-01-10", "2025-10-01", "2025-12-31"),
            ("this quarter", FRIDAY, "2026-04-01", "2026-06-30"),
            ("next quarter", "2025-12-31", "2026-01-01", "2026-03-31"),
            (
                "in the last quarter",
                "2026-02-28",
                "2025-10-01",
                "2025-12-31",
            ),
        ]);
    }

    #[test]
    fn periods_relative_to_today() {
        check(&[
            ("last week", FRIDAY, "2026-04-27", "2026-05-03"),
            ("this week", FRIDAY, "2026-05-04", "2026-05-10"),
            ("next week", FRIDAY, "2026-05-11", "2026-05-17"),
            ("this past week", FRIDAY, "2026-04-27", "2026-05-03"),
            ("the week before last", FRIDAY, "2026-04-20", "2026-04-26"),
            ("week before last", "2026-01-01", "2025-12-15", "2025-12-21"),
            ("last week", "2026-01-01", "2025-12-22", "2025-12-28"),
            ("last week", "2026-05-10", "2026-04-27", "2026-05-03"),
            ("last week", "2026-05-11", "2026-05-04", "2026-05-10"),
            ("last week", "2024-03-04", "2024-02-26", "2024-03-03"),
            ("last month", FRIDAY, "2026-04-01", "2026-04-30"),
            ("last month", "2026-01-10", "2025-12-01", "2025-12-31"),
            ("last month", "2024-03-31", "2024-02-01", "2024-02-29"),
            ("this month", FRIDAY, "2026-05-01", "2026-05-31"),
            ("next month", "2025-12-31", "2026-01-01", "2026-01-31"),
            ("the month before last", FRIDAY, "2026-03-01", "2026-03-31"),
            (
                "the month before last",
                "2026-02-15",
                "2025-12-01",
                "2025-12-31",
            ),
            ("last year", FRIDAY, "2025-01-01", "2025-12-31"),
            ("this year", FRIDAY, "2026-01-01", "2026-12-31"),
            ("next year", FRIDAY, "2027-01-01", "2027-12-31"),
            ("the year before last", FRIDAY, "2024-01-01", "2024-12-31"),
            ("earlier this year", FRIDAY, "2026-01-01", "2026-05-08"),
            (
                "earlier this year",
                "2026-01-01",
                "2026-01-01",
                "2026-01-01",
            ),
            ("so far this month", FRIDAY, "2026-05-01", "2026-05-08"),
            ("this week so far", FRIDAY, "2026-05-04", "2026-05-08"),
            (
                "earlier this week",
                "2026-05-10",
                "2026-05-04",
                "2026-05-10",
            ),
            ("later this year", FRIDAY, "2026-05-08", "2026-12-31"),
            ("later this month", "2024-02-10", "2024-02-10", "2024-02-29"),
            // A part of a month or a year said relative to today.
            (
                "what did I do at the end of last month?",
                FRIDAY,
                "2026-04-21",
                "2026-04-30",
            ),
            ("early last month", "2024-03-31", "2024-02-01", "2024-02-10"),
            ("mid-next month", "2025-12-31", "2026-01-11", "2026-01-20"),
            (
                "the start of this month",
                FRIDAY,
                "2026-05-01",
                "2026-05-10",
            ),
            ("late last year", FRIDAY, "2025-09-01", "2025-12-31"),
            ("early next year", FRIDAY, "2027-01-01", "2027-04-30"),
            // A week's parts are the whole week.
            ("early next week", FRIDAY, "2026-05-11", "2026-05-17"),
            // Halves and quarters of a year said relative to today.
            (
                "how's the first half of the year been?",
                "2024-07-15",
                "2024-01-01",
                "2024-06-30",
            ),
            (
                "the second half of last year",
                FRIDAY,
                "2025-07-01",
                "2025-12-31",
            ),
            ("Q4 of last year", FRIDAY, "2025-10-01", "2025-12-31"),
            (
                "the third quarter of next year",
                FRIDAY,
                "2027-07-01",
                "2027-09-30",
            ),
            (
                "what's on my plate for Q4?",
                FRIDAY,
                "2026-10-01",
                "2026-12-31",
            ),
            (
                "what are my plans for the summer?",
                "2026-01-15",
                "2026-06-01",
                "2026-08-31",
            ),
            // A weekend is its Saturday and Sunday.
            ("last weekend", FRIDAY, "2026-05-02", "2026-05-03"),
            ("this weekend", FRIDAY, "2026-05-09", "2026-05-10"),
            ("next weekend", FRIDAY, "2026-05-16", "2026-05-17"),
            ("last weekend", "2026-05-11", "2026-05-09", "2026-05-10"),
            (
                "where did we go the weekend before last?",
                FRIDAY,
                "2026-04-25",
                "2026-04-26",
            ),
        ]);
    }

    #[test]
    fn ranges_between_any_two_periods() {
        check(&[
            (
                "what's on between Halloween and Thanksgiving?",
                "2025-09-20",
                "2025-10-29",
                "2025-11-30",
            ),
            // "Have got" is the present: the nearer ones.
            (
                "what have I got on between Halloween and Thanksgiving?",
                "2025-10-20",
                "2025-10-29",
                "2025-11-30",
            ),
            (
                "what happened between Thanksgiving and Christmas last year?",
                "2026-05-05",
                "2025-11-27",
                "2026-01-01",
            ),
            // A range's joiner goes on after a holiday as after a time.
            (
                "what did I spend from Christmas through Easter",
                "2025-04-21",
                "2024-12-18",
                "2025-04-21",
            ),
            (
                "from last summer through this spring",
                FRIDAY,
                "2025-06-01",
                "2026-05-31",
            ),
        ]);
        // One that would end before it starts is none: the first period
        // alone is left.
        check(&[(
            "between next Christmas and last Easter",
            FRIDAY,
            "2026-12-18",
            "2027-01-01",
        )]);
        let label =
            resolve_date_window("what's on between Halloween and Thanksgiving", "2025-09-20")
                .unwrap()
                .unwrap()
                .label;
        assert_eq!(
            label,
            "Halloween and Thanksgiving (2025-10-29 to 2025-11-30)"
        );
        // A query of the largest size recall takes, every word a period or
        // a joiner: many candidates, each pair joined or not, and an answer.
        let long = "Christmas to Easter through ".repeat(16 * 1024 / 28);
        let window = resolve_date_window(&long, FRIDAY).unwrap().unwrap();
        assert!(window.since <= window.until, "{window:?}");
    }

    #[test]
    fn a_day_the_query_names_wins_over_a_weekend_today_decides() {
        check(&[(
            "What did Maria participate in last weekend before April 10, 2023?",
            FRIDAY,
            "2023-04-08",
            "2023-04-12",
        )]);
    }

    #[test]
    fn since_reaches_today() {
        check(&[
            // Asked on 2026-06-10, whatever the tense.
            (
                "how many times have I been to the gym since January?",
                "2026-06-10",
                "2026-01-01",
                "2026-06-10",
            ),
            (
                "what have I been up to since Easter?",
                "2027-06-20",
                "2027-03-25",
                "2027-06-20",
            ),
            // The most recent that has begun, not the coming one the
            // present tense would pick.
            (
                "what's changed since March?",
                "2026-02-10",
                "2025-03-01",
                "2026-02-10",
            ),
            ("ever since last summer", FRIDAY, "2025-06-01", "2026-05-08"),
            ("since the summer", "2026-10-01", "2026-06-01", "2026-10-01"),
            ("since May 2025", FRIDAY, "2025-05-01", "2026-05-08"),
            ("from March onwards", FRIDAY, "2026-03-01", "2026-05-08"),
            ("since Q1", FRIDAY, "2026-01-01", "2026-05-08"),
            (
                "from last March onwards",
                FRIDAY,
                "2026-03-01",
                "2026-05-08",
            ),
            ("from May 2025 onwards", FRIDAY, "2025-05-01", "2026-05-08"),
            ("from Mar. onwards", FRIDAY, "2026-03-01", "2026-05-08"),
            // Under way: from its first day to today.
            ("since this month", FRIDAY, "2026-05-01", "2026-05-08"),
        ]);
        // A period that has not begun is no start: it stays as it is.
        check(&[("since next week", FRIDAY, "2026-05-11", "2026-05-17")]);
        let label = resolve_date_window("since January?", "2026-06-10")
            .unwrap()
            .unwrap()
            .label;
        assert_eq!(label, "the time since January (2026-01-01 to 2026-06-10)");
    }

    #[test]
    fn rolling_windows_end_today() {
        check(&[
            ("the past two weeks", FRIDAY, "2026-04-24", "2026-05-08"),
            ("in the last 3 months", FRIDAY, "2026-02-08", "2026-05-08"),
            ("over the past year", FRIDAY, "2025-05-08", "2026-05-08"),
            ("the last few days", FRIDAY, "2026-05-05", "2026-05-08"),
            ("the past few weeks", FRIDAY, "2026-04-17", "2026-05-08"),
            ("past 30 days", FRIDAY, "2026-04-08", "2026-05-08"),
            ("last 30 days", "2026-01-10", "2025-12-11", "2026-01-10"),
            ("the past week", FRIDAY, "2026-05-01", "2026-05-08"),
            (
                "in the last month",
                "2024-03-31",
                "2024-02-29",
                "2024-03-31",
            ),
            (
                "the previous couple of weeks",
                FRIDAY,
                "2026-04-24",
                "2026-05-08",
            ),
            ("last 2 years", "2024-02-29", "2022-02-28", "2024-02-29"),
            ("the last fortnight", FRIDAY, "2026-04-24", "2026-05-08"),
        ]);
    }

    #[test]
    fn ago_windows_surround_their_day() {
        check(&[
            ("3 days ago", FRIDAY, "2026-05-03", "2026-05-07"),
            ("a few days ago", FRIDAY, "2026-05-03", "2026-05-07"),
            ("two weeks ago", FRIDAY, "2026-04-21", "2026-04-27"),
            ("a fortnight ago", FRIDAY, "2026-04-17", "2026-05-01"),
            ("a month ago", FRIDAY, "2026-03-24", "2026-04-23"),
            ("two months ago", "2024-03-31", "2024-01-16", "2024-02-15"),
            ("a year ago", FRIDAY, "2024-11-07", "2025-11-06"),
            ("2 days ago", "2026-01-01", "2025-12-28", "2026-01-01"),
        ]);
    }

    #[test]
    fn ranges_cover_both_ends() {
        check(&[
            (
                "between March and April 2026",
                FRIDAY,
                "2026-03-01",
                "2026-04-30",
            ),
            ("from March to May", FRIDAY, "2026-03-01", "2026-05-31"),
            // No year at either end: the question's tense picks the start.
            (
                "what's scheduled from April to June?",
                "2025-03-25",
                "2025-04-01",
                "2025-06-30",
            ),
            (
                "what did we do from April to June?",
                "2025-03-25",
                "2024-04-01",
                "2024-06-30",
            ),
            (
                "from March to May",
                "2026-04-10",
                "2026-03-01",
                "2026-05-31",
            ),
            (
                "from March to May",
                "2026-02-10",
                "2025-03-01",
                "2025-05-31",
            ),
            ("March–April 2026", FRIDAY, "2026-03-01", "2026-04-30"),
            ("Mar-Apr 2026", FRIDAY, "2026-03-01", "2026-04-30"),
            ("March to May 2026", FRIDAY, "2026-03-01", "2026-05-31"),
            (
                "between November and February",
                FRIDAY,
                "2025-11-01",
                "2026-02-28",
            ),
            (
                "from November to February 2026",
                FRIDAY,
                "2025-11-01",
                "2026-02-28",
            ),
            (
                "from November 2025 to February",
                FRIDAY,
                "2025-11-01",
                "2026-02-28",
            ),
            ("between 2024 and 2025", FRIDAY, "2024-01-01", "2025-12-31"),
            ("from 2023 to 2025", FRIDAY, "2023-01-01", "2025-12-31"),
            (
                "between 3 and 9 May 2026",
                FRIDAY,
                "2026-05-03",
                "2026-05-09",
            ),
            (
                "between 3 May 2026 and May 9, 2026",
                FRIDAY,
                "2026-05-03",
                "2026-05-09",
            ),
            (
                "from 28 February to 1 March 2028",
                FRIDAY,
                "2028-02-28",
                "2028-03-01",
            ),
            (
                "from May 3rd to May 9th",
                FRIDAY,
                "2026-05-03",
                "2026-05-09",
            ),
            (
                "from Dec 20 to Jan 5",
                "2026-01-10",
                "2025-12-20",
                "2026-01-05",
            ),
            (
                "between March 2025 and April 2026",
                FRIDAY,
                "2025-03-01",
                "2026-04-30",
            ),
        ]);
    }

    #[test]
    fn halves_thirds_and_more_spoken_forms() {
        check(&[
            ("H1 2026", FRIDAY, "2026-01-01", "2026-06-30"),
            ("h2 2025", FRIDAY, "2025-07-01", "2025-12-31"),
            ("the first half of 2026", FRIDAY, "2026-01-01", "2026-06-30"),
            (
                "the second half of 2024",
                FRIDAY,
                "2024-07-01",
                "2024-12-31",
            ),
            ("the last half of 2024", FRIDAY, "2024-07-01", "2024-12-31"),
            ("in early 2026", FRIDAY, "2026-01-01", "2026-04-30"),
            ("mid-2025", FRIDAY, "2025-05-01", "2025-08-31"),
            ("late 2025", FRIDAY, "2025-09-01", "2025-12-31"),
            ("by the end of 2024", FRIDAY, "2024-09-01", "2024-12-31"),
            ("the summer before last", FRIDAY, "2024-06-01", "2024-08-31"),
            ("winter before last", FRIDAY, "2024-12-01", "2025-02-28"),
            ("this time last year", FRIDAY, "2025-04-23", "2025-05-23"),
            (
                "this time last year",
                "2024-02-29",
                "2023-02-13",
                "2023-03-15",
            ),
            ("in the next two weeks", FRIDAY, "2026-05-08", "2026-05-22"),
            (
                "over the coming 3 months",
                "2025-12-31",
                "2025-12-31",
                "2026-03-31",
            ),
            ("a few weeks back", FRIDAY, "2026-04-14", "2026-04-20"),
            ("in March or April", FRIDAY, "2026-03-01", "2026-04-30"),
            (
                "in November or December",
                FRIDAY,
                "2025-11-01",
                "2025-12-31",
            ),
            (
                "during May or June 2025",
                FRIDAY,
                "2025-05-01",
                "2025-06-30",
            ),
        ]);
    }

    #[test]
    fn labels_show_the_words_and_resolved_days() {
        let cases = [
            (
                "what did we decide last March?",
                "last March (2026-03-01 to 2026-03-31)",
            ),
            ("anything in March?", "March (2026-03-01 to 2026-03-31)"),
            ("in May 2026", "May 2026"),
            ("in spring 2026", "spring 2026"),
            ("in Q1 2026", "Q1 2026"),
            ("between March and April 2026", "March and April 2026"),
            (
                "from March to May",
                "March to May (2026-03-01 to 2026-05-31)",
            ),
            (
                "earlier this year",
                "earlier this year (2026-01-01 to 2026-05-08)",
            ),
            (
                "in the past two weeks",
                "past two weeks (2026-04-24 to 2026-05-08)",
            ),
            ("what happened in May.", "May (2026-05-01 to 2026-05-31)"),
        ];
        for (query, label) in cases {
            let window = resolve_date_window(query, FRIDAY).unwrap().unwrap();
            assert_eq!(window.label, label, "{query}");
        }
    }

    #[test]
    fn the_longer_phrase_then_the_finest_then_the_leftmost_wins() {
        check(&[
            // The range, not the April inside it.
            (
                "between March and April 2026",
                FRIDAY,
                "2026-03-01",
                "2026-04-30",
            ),
            // "this year" is inside "earlier this year".
            ("earlier this year", FRIDAY, "2026-01-01", "2026-05-08"),
            // "last week" is inside "last week of May 2026".
            (
                "the last week of May 2026",
                FRIDAY,
                "2026-05-25",
                "2026-05-31",
            ),
            // A week is finer than a month.
            (
                "last week and in May 2026",
                FRIDAY,
                "2026-04-27",
                "2026-05-03",
            ),
            // A month is finer than a season.
            (
                "in March 2025 and last spring",
                FRIDAY,
                "2025-03-01",
                "2025-03-31",
            ),
            (
                "last spring, in March 2025",
                FRIDAY,
                "2025-03-01",
                "2025-03-31",
            ),
            // A day is finer than a rolling month.
            (
                "in the last month, on 3 May 2026",
                FRIDAY,
                "2026-05-01",
                "2026-05-05",
            ),
            // Leftmost among equals.
            (
                "last month or the month before last",
                FRIDAY,
                "2026-04-01",
                "2026-04-30",
            ),
            // A year named with "in" is still a year, and the month wins.
            ("in 2025, in March", FRIDAY, "2026-03-01", "2026-03-31"),
            // A range whose start comes after its end is not one.
            (
                "between May 2026 and March 2026",
                FRIDAY,
                "2026-05-01",
                "2026-05-31",
            ),
        ]);
    }

    #[test]
    fn not_periods() {
        let queries = [
            "",
            "what did we decide?",
            "2025",
            "ticket 2025",
            "spring boot configuration",
            "how do I configure logging in spring boot",
            "in Spring Boot 3",
            "this spring boot app is failing",
            "in spring-loaded hinges",
            "a spring in the mattress",
            "summer dress for the party",
            "why did this fall over?",
            "will this fall apart",
            "does this fall under the policy",
            "fall detection",
            "in fall detection",
            "I fall asleep",
            "the march was long",
            "we march on",
            "I may go",
            "this may take a while",
            "this march ends at noon",
            "in April's team",
            "email from Jan",
            "answer Q1",
            "Q5 2026",
            "last Friday",
            "yesterday",
            "today",
            "tomorrow",
            "my last weekend in Paris",
            "the other day",
            "the last day of the trip",
            "the last year of college",
            "the last month of the year",
            "in 2000 ms",
            "between 2000 and 3000 requests",
            "between 1999 and 2001 rows",
            "from 3 to 5 days",
            "mayday",
            "in mayhem",
            "three ago",
            "the past",
            "lastly, in summary",
            "his last fall from the ladder",
            "the last fall was the worst",
            "the next spring they moved",
            "my last week at the company",
            "will this spring back?",
            "the next week was quiet",
            "the last march on the capital",
            "late 2000 ms",
            "H3 2026",
            "three steps back",
        ];
        for query in queries {
            assert_eq!(days(query, FRIDAY), None, "{query:?}");
        }
    }

    #[test]
    fn absolute_forms_are_kept() {
        check(&[
            ("in May 2026", FRIDAY, "2026-05-01", "2026-05-31"),
            ("3 May 2026", FRIDAY, "2026-05-01", "2026-05-05"),
            ("in 2025", FRIDAY, "2025-01-01", "2025-12-31"),
            ("early May 2026", FRIDAY, "2026-05-01", "2026-05-10"),
        ]);
    }

    #[test]
    fn malformed_anchors_are_errors() {
        for anchor in ["", "yesterday", "2026-13-01", "08/05/2026"] {
            match resolve_date_window("last March", anchor) {
                Err(LogicError::InvalidArgument(message)) => {
                    assert!(message.starts_with("anchor:"), "{message}");
                }
                other => panic!("{anchor:?} should be rejected, got {other:?}"),
            }
        }
    }

    /// Words that build the phrases the forms look for.
    const WORDS: &[&str] = &[
        "last",
        "this",
        "next",
        "past",
        "the",
        "in",
        "during",
        "over",
        "between",
        "and",
        "from",
        "to",
        "–",
        "-",
        "of",
        "ago",
        "earlier",
        "later",
        "so",
        "far",
        "before",
        "early",
        "mid",
        "late",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "day",
        "days",
        "fortnight",
        "quarter",
        "first",
        "Q1",
        "q4",
        "March",
        "may",
        "Feb",
        "December",
        "spring",
        "fall",
        "winter",
        "summer",
        "2026",
        "2025/26",
        "1900",
        "2199",
        "29",
        "31",
        "3rd",
        "a",
        "few",
        "couple",
        "999999",
        "0",
        "boot",
        ",",
        ".",
    ];

    #[test]
    fn a_period_before_year_one_is_none() {
        assert_eq!(
            resolve_date_window("2026 years ago", "1900-01-01"),
            Ok(None)
        );
        assert!(
            resolve_date_window("2 years ago", "1900-01-01")
                .unwrap()
                .is_some()
        );
    }

    proptest! {
        #[test]
        fn no_query_panics_and_every_window_is_ordered(
            words in proptest::collection::vec(proptest::sample::select(WORDS), 0..9),
            noise in ".{0,12}",
            year in 1900i32..=2199,
            ordinal in 1u32..=366,
        ) {
            let anchor = NaiveDate::from_yo_opt(year, ordinal)
                .or_else(|| NaiveDate::from_yo_opt(year, 365))
                .unwrap();
            let query = format!("{} {noise}", words.join(" "));
            let found = resolve_date_window(&query, &format_date(anchor)).unwrap();
            if let Some(window) = found {
                prop_assert!(window.since <= window.until, "{query:?}: {window:?}");
                prop_assert!(!window.label.is_empty());
            }
        }
    }
}
