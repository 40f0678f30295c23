//! Repeats: whether a statement is already held by stored memories,
//! whichever write path stored them.
//!
//! One statement reaches the store by more than one path: a Claude Code
//! session's turn is cognified when it ends (`User preference: I prefer
//! Rust for command-line tools`) and imported with the whole session when
//! it closes (`[mind-fact] User preference: Remember that I prefer Rust for
//! command-line tools and that my team deploys on Fridays.`). The store's
//! content hash tells neither apart: the texts differ in their markings,
//! labels and request words. [`already_held`] compares what they *say*:
//!
//! 1. each text is reduced to its **statement words** ([`statement_words`]):
//!    the body without the `[hm …]` block and the `[mind-…]` marking
//!    (`embedding_text`), without a cognify label ("User preference:",
//!    "Decision:", …), each sentence without its request words ("Remember
//!    that …", "… and that …": [`read_sentence`]'s explicit parts), lower
//!    case, letters and digits only;
//! 2. the new text is held when one stored text says it all (its words
//!    appear, in order and together, inside the stored words; at least
//!    [`MIN_CONTAINED_WORDS`] of them, so "moved to Berlin" is not held by
//!    "Karim moved to Berlin"), or when stored texts each of at least that
//!    many words, found inside it, cover every word of it but connectors
//!    ("and", "also", "that"): the session's long sentence is held by the
//!    two statements cognify kept of it.
//!
//! A raw conversation turn (`[mind-rawturn …]`) never holds a statement:
//! it is the record of what was said, kept beside the memories made of it.

use crate::raw_turn::RAW_TURN_TAG;
use crate::recall::embedding_text;
use crate::write_back::split_sentences;

use super::statements::{Reading, read_sentence};

/// The fewest statement words a containment counts with.
pub const MIN_CONTAINED_WORDS: usize = 4;

/// Words that may be left over when stored statements cover a longer one.
const CONNECTORS: &[&str] = &["and", "also", "that", "then", "plus", "but", "so", "too"];

/// The labels cognify puts before a snippet, lower-case, with their colon.
const LABELS: &[&str] = &[
    "user preference:",
    "preference:",
    "correction from user:",
    "correction:",
    "style note:",
    "decision:",
    "final decision:",
    "finding:",
    "work completed:",
];

/// A text's statement words (see the module documentation).
///
/// ```
/// use hive_mind_core::cognify::statement_words;
/// assert_eq!(
///     statement_words("[mind-fact] User preference: Remember that I prefer Rust."),
///     ["i", "prefer", "rust"]
/// );
/// ```
pub fn statement_words(content: &str) -> Vec<String> {
    let body = embedding_text(content);
    let trimmed = body.trim();
    let lower = trimmed.to_lowercase();
    let body = LABELS
        .iter()
        .find(|label| lower.starts_with(*label))
        .and_then(|label| trimmed.get(label.len()..))
        .unwrap_or(trimmed);
    let mut out = Vec::new();
    for sentence in split_sentences(body) {
        let parts: Vec<&str> = match read_sentence(&sentence) {
            Reading::Explicit(parts) => parts
                .iter()
                .filter_map(|&(from, to)| sentence.get(from..to))
                .collect(),
            _ => vec![sentence.as_str()],
        };
        for part in parts {
            out.extend(
                part.split(|c: char| !c.is_alphanumeric())
                    .filter(|word| !word.is_empty())
                    .map(str::to_lowercase),
            );
        }
    }
    out
}

/// Where `needle` occurs in `haystack` as a run of words.
fn find_run(haystack: &[String], needle: &[String]) -> Option<usize> {
    if needle.is_empty() || needle.len() > haystack.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Whether what `new` says is already said by the `stored` memories'
/// contents (see the module documentation).
///
/// ```
/// use hive_mind_core::cognify::already_held;
/// let session = "[mind-fact] User preference: Remember that I prefer Rust for \
///                command-line tools and that my team deploys on Fridays.";
/// let live = ["User preference: I prefer Rust for command-line tools", "my team deploys on Fridays."];
/// assert!(already_held(session, &live));
/// assert!(already_held(live[1], &[session]));
/// assert!(!already_held("My team deploys on Mondays.", &[session]));
/// ```
pub fn already_held(new: &str, stored: &[&str]) -> bool {
    let words = statement_words(new);
    if words.is_empty() {
        return false;
    }
    let mut covered = vec![false; words.len()];
    for content in stored {
        if crate::hash::strip_hm_prefix(content)
            .trim_start()
            .starts_with(RAW_TURN_TAG)
        {
            continue;
        }
        let held = statement_words(content);
        if held == words {
            return true;
        }
        if words.len() >= MIN_CONTAINED_WORDS && find_run(&held, &words).is_some() {
            return true;
        }
        if held.len() >= MIN_CONTAINED_WORDS
            && let Some(at) = find_run(&words, &held)
        {
            for slot in covered.iter_mut().skip(at).take(held.len()) {
                *slot = true;
            }
        }
    }
    covered.iter().any(|&c| c)
        && words
            .iter()
            .zip(&covered)
            .all(|(word, &c)| c || CONNECTORS.contains(&word.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_markings_and_request_words_are_not_what_is_said() {
        let a = statement_words("[mind-fact] Decision: We decided to use Postgres.");
        let b = statement_words("Decision: We decided to use Postgres.");
        assert_eq!(a, b);
        assert_eq!(
            statement_words("For future reference, my gate code is 4471."),
            ["my", "gate", "code", "is", "4471"]
        );
    }

    #[test]
    fn raw_turns_and_short_overlaps_hold_nothing() {
        let turn = "[mind-rawturn conv:c turn:1 speaker:user] My brother Karim lives in Rotterdam.";
        assert!(!already_held(
            "My brother Karim lives in Rotterdam.",
            &[turn]
        ));
        assert!(!already_held(
            "moved to Berlin",
            &["[mind-fact] Karim moved to Berlin last year."]
        ));
        assert!(already_held(
            "I live in Utrecht now.",
            &["I live in Utrecht now."]
        ));
        assert!(!already_held("", &["anything"]));
    }

    #[test]
    fn a_longer_text_is_held_only_when_every_word_is_covered() {
        let live = [
            "User preference: I prefer Rust for command-line tools",
            "my team deploys on Fridays.",
        ];
        assert!(already_held(
            "I prefer Rust for command-line tools and my team deploys on Fridays.",
            &live
        ));
        assert!(!already_held(
            "I prefer Rust for command-line tools and my team deploys on Fridays at noon.",
            &live
        ));
    }
}
