//! Catch-up queries.
//!
//! Some queries do not ask about a topic at all: "catch me up", "where were
//! we?", "what did we decide?". Searching memory for text *similar* to such a
//! query finds small talk; what the user wants is the important things. Recall
//! therefore checks [`detect_catch_up`] first and, on a hit, fetches by
//! importance instead of by similarity (and skips the reranker).
//!
//! Detection is a list of phrase patterns run over a normalised query:
//! lower-cased, typographic apostrophes (’ ‘ ʼ ` ´) turned into `'`, and
//! hyphens, dashes and underscores turned into spaces, so "Catch-me-up",
//! "what’s the status" and "WHATS THE STATUS" all read alike. Each pattern is
//! a whole request, not a keyword: "what should I decide about lunch?" and
//! "pick me up at 5" contain "decide" and "up" but ask for no catch-up.
//!
//! The families recognised:
//!
//! - *catching up*: "catch me up", "catch us up", "catch up on …", "get me
//!   caught up", "a catch-up", "fill me in", "what did I miss";
//! - *resuming*: "where were we", "where did we leave off", "where we left
//!   off", "pick up where we left off";
//! - *decisions*: "what did we decide", "what have we decided", "what we
//!   decided", "what was decided", "what did we agree on", "what decisions did
//!   we make";
//! - *briefing*: "brief me", "debrief me", "give me a briefing / recap /
//!   rundown / status update", "bring me up to speed", "get me up to date",
//!   "recap", "summarize where we are", "sum up our progress";
//! - *status*: "what's the status", "where are we at / on / with …", "where
//!   do we stand", "where do things stand";
//! - *reminding*: "remind me what we were doing", "remind me where we were",
//!   "refresh my memory", "what were we working on".

use std::sync::LazyLock;

use regex::Regex;

/// The catch-up phrases, as regexes over the normalised query (see the
/// module documentation). Optional `'` covers "whats" as well as "what's".
const CATCH_UP_PATTERNS: &[&str] = &[
    // Catching up.
    r"\bcatch\s+(?:me|us)\s+up\b",
    r"\bcatch\s+up\s+on\b",
    r"\b(?:get|got|getting)\s+(?:me|us)\s+caught\s+up\b",
    r"\b(?:a|quick|the)\s+catch\s+up\b",
    r"\bfill\s+(?:me|us)\s+in\b",
    r"\bwhat\s+(?:did\s+i|have\s+i|i'?ve|did\s+we|have\s+we|we'?ve)\s+miss(?:ed)?\b",
    // Resuming.
    r"\bwhere\s+were\s+we(?:\s*(?:$|[?.!,;:])|\s+(?:on|with|at|again|up\s+to)\b)",
    r"\bwhere(?:\s+did|'d)\s+(?:we|i)\s+leave\s+(?:off|it|things)\b",
    r"\bwhere\s+(?:we|i)\s+left\s+(?:off|it|things)\b",
    // Decisions.
    r"\bwhat(?:\s+did|'d|\s+have|\s+had)\s+we\s+(?:decide|decided|agree|agreed|settle|settled)\b",
    r"\bwhat\s+we(?:'ve|'d|\s+have|\s+had)?\s+(?:decided|agreed)\b",
    r"\bwhat\s+(?:was|were|has\s+been|have\s+been|got)\s+(?:decided|agreed)\b",
    r"\bwhat\s+decisions\s+(?:did|have|had)\s+we\s+(?:make|made)\b",
    r"\bwhat\s+decisions\s+(?:were|have\s+been)\s+made\b",
    // Briefing.
    r"\b(?:de)?brief\s+(?:me|us)\b",
    r"\b(?:give|get)\s+(?:me|us)\s+(?:a\s+|an\s+|the\s+)?(?:quick\s+|brief\s+|short\s+)?(?:briefing|recap|rundown|status\s+update|update)\b",
    r"\b(?:bring|get|brought|getting|bringing)\s+(?:me|us)\s+up\s+to\s+(?:speed|date)\b",
    r"\b(?:get|getting)\s+up\s+to\s+speed\b",
    r"\brecap\b",
    r"\b(?:summari[sz]e|sum\s+up)\s+(?:where\s+(?:we|things)\s+(?:are|stand)|where\s+we\s+left\s+off|(?:our|the)\s+progress|what\s+we(?:'ve|\s+have)?\s+(?:done|decided|discussed|covered))\b",
    r"\bsummary\s+of\s+where\s+(?:we|things)\s+(?:are|stand)\b",
    // Status.
    r"\bwhat'?s\s+the\s+(?:current\s+|latest\s+)?status\b",
    r"\bwhat\s+is\s+the\s+(?:current\s+|latest\s+)?status\b",
    r"\bwhere\s+are\s+we(?:\s*(?:$|[?.!,;:])|\s+(?:on|with|at)\b)",
    r"\bwhere\s+do\s+(?:we|things)\s+stand\b",
    r"\bwhere\s+things\s+stand\b",
    // Reminding.
    r"\bremind\s+(?:me|us)\s+(?:of\s+)?(?:what|where)\s+(?:we|i)(?:'re|'ve|'d|\s+(?:were|was|are|had|have|did|decided|left))\b",
    r"\brefresh\s+(?:my|our)\s+memory\b",
    r"\bwhat\s+(?:were|was)\s+(?:we|i)\s+(?:doing|working\s+on|talking\s+about|discussing)\b",
    r"\bwhat\s+(?:have|had)\s+(?:we|i)\s+been\s+(?:doing|working\s+on)\b",
];

/// The compiled [`CATCH_UP_PATTERNS`]. A pattern that failed to compile is
/// left out (a unit test asserts none does).
static CATCH_UP_REGEXES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    CATCH_UP_PATTERNS
        .iter()
        .filter_map(|pattern| Regex::new(pattern).ok())
        .collect()
});

/// Whether a query asks to be brought up to date.
///
/// True for requests such as "catch me up", "where were we?", "what did we
/// decide?", "brief me" or "what's the status"; false for ordinary questions
/// that merely share a word with them. See the module documentation for the
/// full list.
pub fn detect_catch_up(query: &str) -> bool {
    let normalised = normalise(query);
    CATCH_UP_REGEXES
        .iter()
        .any(|regex| regex.is_match(&normalised))
}

/// Lower-case, one kind of apostrophe, and hyphen-like characters as spaces.
fn normalise(query: &str) -> String {
    query
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            '\u{2019}' | '\u{2018}' | '\u{02BC}' | '`' | '\u{00B4}' => '\'',
            '-' | '_' | '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' => ' ',
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(CATCH_UP_REGEXES.len(), CATCH_UP_PATTERNS.len());
    }

    #[test]
    fn catch_up_requests() {
        let queries = [
            "catch me up",
            "Catch me up!",
            "can you catch us up on the migration?",
            "CATCH ME UP PLEASE",
            "Catch-me-up",
            "I need to catch up on the auth work",
            "let me catch-up on the repo",
            "get me caught up",
            "quick catch-up?",
            "fill me in",
            "fill me in on yesterday",
            "what did I miss?",
            "What have I missed",
            "where were we?",
            "Where were we",
            "ok, where were we with the parser",
            "where were we on the API?",
            "where were we at",
            "where did we leave off?",
            "where’d we leave off",
            "where'd we leave off",
            "let's pick up where we left off",
            "where did I leave things",
            "what did we decide?",
            "What did we decide about the schema?",
            "what’d we decide",
            "what have we decided so far",
            "what had we agreed on",
            "remind me what we decided",
            "what we've decided",
            "what we’ve agreed",
            "what was decided in the meeting",
            "what decisions did we make",
            "what decisions have been made?",
            "brief me",
            "Brief me on the project",
            "debrief us",
            "give me a quick recap",
            "give me a rundown",
            "give me a status update",
            "get me an update",
            "bring me up to speed",
            "bring us up to speed on the launch",
            "get me up to date",
            "I need to get up to speed",
            "recap",
            "Recap, please.",
            "quick recap of the week?",
            "summarize where we are",
            "summarise where things stand",
            "sum up our progress",
            "summarize what we've done",
            "a summary of where we are",
            "what's the status",
            "What’s the status?",
            "whats the status of the deploy",
            "WHAT IS THE CURRENT STATUS",
            "where are we?",
            "where are we at",
            "where are we with the refactor",
            "where do we stand on pricing",
            "where do things stand",
            "remind me what we were doing",
            "Remind me where we were",
            "remind us what we're building",
            "refresh my memory",
            "what were we working on?",
            "what was I doing",
            "what have we been working on",
        ];
        for query in queries {
            assert!(detect_catch_up(query), "{query:?} should be a catch-up");
        }
    }

    #[test]
    fn ordinary_questions() {
        let queries = [
            "",
            "what should I decide about lunch?",
            "pick me up at 5",
            "help me decide between the two",
            "speed up the build",
            "write a brief description of the function",
            "give me a summary of this article",
            "how do I set up postgres?",
            "the catch is that it's slow",
            "where were we staying in Paris?",
            "where are we going for dinner?",
            "up to you",
            "status code 404 means what?",
            "we decided to use Rust",
            "remind me to buy milk",
            "recapture the flag",
            "is the update rolled out",
            "I caught a cold",
            "where is the config file?",
            "what do we need to decide today?",
        ];
        for query in queries {
            assert!(
                !detect_catch_up(query),
                "{query:?} should not be a catch-up"
            );
        }
    }

    #[test]
    fn normalisation_unifies_apostrophes_and_hyphens() {
        assert_eq!(normalise("What’s UP—now"), "what's up now");
        assert_eq!(normalise("Catch-Me_up"), "catch me up");
        assert_eq!(normalise("‘quoted’ `x´"), "'quoted' 'x'");
    }
}
