//! The domain of an item: which family of keywords its own words use most.
//!
//! Seven families (coding, health, finance, travel, family, learning, work)
//! of whole-word keywords, read case-insensitively, with an optional plural
//! `s`/`es`. Each occurrence counts one; the family with the most wins, and
//! an item with no keyword at all is `other`. Only the item's title and the
//! *user's* words (a document's headings and text) are read: an assistant's
//! long answer repeats the topic in generic words ("make sure to test your
//! budget plan") that would tilt the count away from what the user came
//! for.
//!
//! Ties go to the family listed first, from the most specific vocabulary to
//! the broadest: `coding` words ("compile", "regex") almost never occur
//! outside code, while `work` words ("team", "project", "meeting") occur in
//! every family's conversations, so work only wins when nothing more
//! specific is said as often. Words with a common second meaning across
//! families are left out ("language", "class", "save", "cost", "run").

use std::sync::LazyLock;

use regex::Regex;

/// The families, in tie-break order, with their keywords.
const FAMILIES: [(&str, &str); 7] = [
    (
        "coding",
        "code|coding|program|programming|function|bug|debug|debugging|compile|compiler|exception|stack\\s+trace|api|endpoint|database|sql|query|git|github|gitlab|repo|repository|commit|pull\\s+request|docker|kubernetes|python|rust|javascript|typescript|java|golang|c\\+\\+|react|backend|frontend|script|regex|json|yaml|library|crate|npm|framework|algorithm|refactor|unit\\s+test|variable|terminal|linux|cli|server|deploy|deployment|sdk|html|css",
    ),
    (
        "health",
        "health|doctor|dentist|hospital|clinic|symptom|pain|medication|medicine|pill|prescription|allergy|allergic|diet|calorie|exercise|workout|gym|sleep|insomnia|therapy|therapist|anxiety|depression|blood\\s+pressure|diabetes|vaccine|injury|surgery|nutrition|fever|headache|migraine|physio|physiotherapy|pregnant|pregnancy",
    ),
    (
        "finance",
        "money|budget|budgeting|savings|invest|investing|investment|stock|portfolio|crypto|bitcoin|bank|loan|mortgage|rent|tax|taxes|income|salary|expense|debt|credit\\s+card|retirement|pension|401k|insurance|invoice|accounting|dividend|etf|inflation",
    ),
    (
        "travel",
        "travel|trip|flight|airport|hotel|airbnb|itinerary|vacation|holiday|passport|visa|luggage|beach|sightseeing|destination|cruise|hostel|backpacking|road\\s+trip|layover|jet\\s+lag",
    ),
    (
        "family",
        "family|wife|husband|partner|son|daughter|kid|child|children|baby|mom|mum|dad|mother|father|parent|brother|sister|grandma|grandpa|grandmother|grandfather|wedding|marriage|toddler|teenager|dog|cat|puppy|kitten|pet",
    ),
    (
        "learning",
        "learn|learning|study|studying|course|lecture|exam|homework|school|university|college|degree|tutorial|lesson|textbook|vocabulary|grammar|quiz|thesis|flashcard|curriculum|semester|teacher|student",
    ),
    (
        "work",
        "job|work|meeting|manager|boss|colleague|coworker|team|client|customer|project|deadline|office|career|interview|resume|cv|promotion|hiring|presentation|stakeholder|okr|roadmap|business|startup|company|quarterly|kpi|performance\\s+review",
    ),
];

/// The domain of items that name none of the families.
pub(crate) const OTHER: &str = "other";

/// Each family's compiled regex, in [`FAMILIES`] order (a unit test asserts
/// every one compiles).
static PATTERNS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    FAMILIES
        .iter()
        .filter_map(|(name, words)| {
            Regex::new(&format!(r"(?i)\b(?:{words})(?:s|es)?\b"))
                .ok()
                .map(|re| (*name, re))
        })
        .collect()
});

/// The domain of a text (see the module docs).
pub(crate) fn domain_of(text: &str) -> String {
    let mut best: Option<(&str, usize)> = None;
    for (name, re) in PATTERNS.iter() {
        let count = re.find_iter(text).count();
        if count > 0 && best.is_none_or(|(_, top)| count > top) {
            best = Some((name, count));
        }
    }
    best.map_or(OTHER, |(name, _)| name).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_compiles() {
        assert_eq!(PATTERNS.len(), FAMILIES.len());
    }

    #[test]
    fn picks_the_family_named_most() {
        assert_eq!(domain_of("My Rust crate fails to compile."), "coding");
        assert_eq!(
            domain_of("Booked a flight and a hotel for the trip."),
            "travel"
        );
        assert_eq!(domain_of("My daughter has an exam at school."), "learning");
        assert_eq!(domain_of("The team meeting ran long."), "work");
        assert_eq!(domain_of("Hello there."), "other");
    }

    #[test]
    fn ties_go_to_the_more_specific_family() {
        assert_eq!(domain_of("The team fixed the bug."), "coding");
    }
}
