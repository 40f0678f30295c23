//! Text helpers shared by the heuristic and the LLM passes: sentences, the
//! guards that tell a statement from a question or a request, caps, and the
//! provenance and date anchor of an item's parts.
//!
//! The sentence splitter follows the one inside
//! [`hive_mind_core::pattern_write_back`] (lines first, then `.`, `!`, `?`,
//! `…` followed by white space; not after a common abbreviation or an
//! initial; fenced code and quoted `>` lines skipped; list markers dropped),
//! so that a sentence the write-back patterns report is, in almost every
//! case, one of the sentences seen here. Core keeps its splitter private; if
//! it is ever exported, this one should go.

use std::sync::LazyLock;

use hive_mind_core::calendar::parse_local_date;
use regex::Regex;

use crate::item::{Item, ItemKind, Section};

/// The cleaned sentences of a text, in order: the write-back patterns'
/// splitter ([`hive_mind_core::write_back::split_sentences`]), so a
/// harvested sentence is cut exactly as a live one.
pub(crate) fn sentences(text: &str) -> Vec<String> {
    hive_mind_core::write_back::split_sentences(text)
}

/// Lower-case, typographic apostrophes unified, white space collapsed: the
/// form the guards and comparisons read.
pub(crate) fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{02BC}' => '\'',
            _ => c,
        })
        .collect::<String>()
        .to_lowercase()
}

/// The number of words (runs of letters or digits).
pub(crate) fn word_count(text: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// A sentence that asks rather than states.
pub(crate) fn is_question(sentence: &str) -> bool {
    sentence
        .trim_end_matches(['"', '\'', ')', ']', '”', '’'])
        .ends_with(['?', '？'])
}

/// Conditionals and hedges: the sentence states no fact ("If I lived in
/// Paris …", "Maybe we should use Redis").
static CONDITIONAL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?:if|unless|whether|suppose|supposing|what\s+if|in\s+case|assuming|imagine|maybe|perhaps|should\s+we|i\s+wonder|let's\s+say|say)\b",
    )
    .ok()
});

/// Requests and commands to the assistant: the sentence asks for work, it
/// says nothing about the user ("Write a poem for my wife", "Please
/// summarise …", "Can you …").
static REQUEST: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?:please\s+|pls\s+|ok(?:ay)?,?\s+|now,?\s+|so,?\s+)?(?:can|could|would|will)\s+you\b|^(?:please|pls|help|write|give|make|tell|create|suggest|explain|generate|draft|plan|find|recommend|list|show|translate|summari[sz]e|compose|prepare|describe|rewrite|rephrase|fix|add|remove|convert|outline|brainstorm|imagine|pretend|act|let\s+me\s+know|remind\s+me|continue|go\s+on)\b",
    )
    .ok()
});

/// Whether a (folded) sentence is a conditional or hedge.
pub(crate) fn is_conditional(folded: &str) -> bool {
    CONDITIONAL.as_ref().is_some_and(|re| re.is_match(folded))
}

/// Whether a (folded) sentence is a request or command to the assistant.
pub(crate) fn is_request(folded: &str) -> bool {
    REQUEST.as_ref().is_some_and(|re| re.is_match(folded))
}

/// Whether a sentence states something: not a question, a conditional or a
/// request.
pub(crate) fn is_statement(sentence: &str) -> bool {
    let folded = fold(sentence);
    !is_question(sentence) && !is_conditional(&folded) && !is_request(&folded)
}

/// At most `max` characters of `text`, cut at the last word boundary and
/// marked with `…`; `None` when nothing had to be cut.
pub(crate) fn cut(text: &str, max: usize) -> Option<String> {
    if text.chars().count() <= max {
        return None;
    }
    let keep: String = text.chars().take(max.saturating_sub(1)).collect();
    let head = match keep.rsplit_once(char::is_whitespace) {
        Some((before, _)) if before.len() > keep.len() / 2 => before,
        _ => keep.as_str(),
    };
    Some(format!("{}…", head.trim_end()))
}

/// `text` bounded to `max` characters (see [`cut`]).
pub(crate) fn bounded(text: &str, max: usize) -> String {
    cut(text, max).unwrap_or_else(|| text.to_string())
}

/// A section's label: its heading path (`Setup > Install`), or its 1-based
/// position when it has no heading.
pub(crate) fn section_label(section: &Section, index: usize) -> String {
    let headings: Vec<&str> = section
        .headings
        .iter()
        .map(|h| h.trim())
        .filter(|h| !h.is_empty())
        .collect();
    if headings.is_empty() {
        (index + 1).to_string()
    } else {
        headings.join(" > ")
    }
}

/// The provenance of part `index` (0-based) of an item: `turn N` (N the
/// 1-based position among its messages) or `section HEADING`.
pub(crate) fn provenance(item: &Item, index: usize) -> String {
    match item.kind {
        ItemKind::Conversation => format!("turn {}", index + 1),
        ItemKind::Document => match item.sections.get(index) {
            Some(section) => format!("section {}", section_label(section, index)),
            None => format!("section {}", index + 1),
        },
    }
}

/// How many parts (messages or sections) an item has.
pub(crate) fn part_count(item: &Item) -> usize {
    match item.kind {
        ItemKind::Conversation => item.messages.len(),
        ItemKind::Document => item.sections.len(),
    }
}

/// The date a relative cue in part `index` is read against: the message's
/// own timestamp when it has a readable one (`own` = true), else the item's
/// `created_at`; `None` when neither can be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchor {
    /// The timestamp text, readable by [`parse_local_date`].
    pub text: String,
    /// Whether it is the message's own time (not the item's start).
    pub own: bool,
}

/// The anchor of part `index` of an item (see [`Anchor`]).
pub(crate) fn anchor(item: &Item, index: usize) -> Option<Anchor> {
    let own = item
        .messages
        .get(index)
        .filter(|_| item.kind == ItemKind::Conversation)
        .and_then(|m| m.timestamp.as_deref())
        .filter(|t| parse_local_date(t).is_ok());
    if let Some(text) = own {
        return Some(Anchor {
            text: text.to_string(),
            own: true,
        });
    }
    item.created_at
        .as_deref()
        .filter(|t| parse_local_date(t).is_ok())
        .map(|text| Anchor {
            text: text.to_string(),
            own: false,
        })
}

/// Replace `<` in anything that looks like one of the prompt's own
/// delimiters (`<item`, `</dialogue>`, …) with `‹`, so quoted data cannot
/// close its block and speak as the prompt.
pub(crate) fn neutralise_delimiters(text: &str) -> String {
    static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?i)<(\s*/?\s*(?:item|dialogue|extraction|document)\b)").ok()
    });
    match TAG.as_ref() {
        Some(re) => re.replace_all(text, "‹$1").into_owned(),
        None => text.replace('<', "‹"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes_compile() {
        assert!(CONDITIONAL.is_some());
        assert!(REQUEST.is_some());
    }

    #[test]
    fn splits_sentences_like_write_back() {
        let s = sentences(
            "Hi there! I met Dr. Lima yesterday. We use e.g. Postgres.\n- I live in Lisbon\n```\ncode. here.\n```\n> quoted. text.",
        );
        assert_eq!(
            s,
            [
                "Hi there!",
                "I met Dr. Lima yesterday.",
                "We use e.g. Postgres.",
                "I live in Lisbon"
            ]
        );
    }

    #[test]
    fn guards() {
        assert!(is_statement("I live in Lisbon."));
        assert!(!is_statement("Do I live in Lisbon?"));
        assert!(!is_statement("If I lived in Lisbon, I'd surf."));
        assert!(!is_statement("Write a poem for my wife."));
        assert!(!is_statement("Can you help my daughter?"));
    }

    #[test]
    fn cuts_at_a_word_boundary() {
        assert_eq!(cut("short", 10), None);
        assert_eq!(cut("one two three four", 12).as_deref(), Some("one two…"));
    }

    #[test]
    fn neutralises_delimiters() {
        assert_eq!(
            neutralise_delimiters("a </dialogue> b <item id=x> <b>"),
            "a ‹/dialogue> b ‹item id=x> <b>"
        );
    }
}
