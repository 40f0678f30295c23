//! Word lists: joined at compile time, and looked for in a text's words.
//!
//! A list that includes another (the month names inside the entity noise
//! words and inside cognify's calendar words) is built from it here instead
//! of repeating its words, so the one table stays the only place they are
//! written. [`total_len`] and [`joined`] run in `const` items only: an
//! out-of-range index or a wrong length fails the build, never a run.
//! [`has_any`] tells whether a text's words hold any phrase of a list;
//! [`capitalise`] writes a word with a capital.

/// Whether `phrase` (one or more words, separated by single spaces) occurs
/// in `words` as whole words, in order.
pub(crate) fn has_phrase(words: &[String], phrase: &str) -> bool {
    let parts: Vec<&str> = phrase.split(' ').collect();
    if parts.is_empty() || parts.len() > words.len() {
        return false;
    }
    words
        .windows(parts.len())
        .any(|window| window.iter().zip(&parts).all(|(word, part)| word == part))
}

/// Whether any of `phrases` occurs in `words` ([`has_phrase`]).
pub(crate) fn has_any(words: &[String], phrases: &[&str]) -> bool {
    phrases.iter().any(|phrase| has_phrase(words, phrase))
}

/// `word` with its first letter in upper case ("dr" → "Dr").
pub(crate) fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The number of words in `parts` together: the `N` of [`joined`].
// Indexing in `const` evaluation (see the module docs): a build error, never
// a panic at run time.
#[allow(clippy::indexing_slicing)]
pub(crate) const fn total_len(parts: &[&[&str]]) -> usize {
    let mut total = 0;
    let mut part = 0;
    while part < parts.len() {
        total += parts[part].len();
        part += 1;
    }
    total
}

/// The words of `parts`, in order, as one array of `N` words (`N` is
/// [`total_len`] of `parts`; any other length fails the build).
#[allow(clippy::indexing_slicing)]
pub(crate) const fn joined<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut words = [""; N];
    let mut at = 0;
    let mut part = 0;
    while part < parts.len() {
        let mut index = 0;
        while index < parts[part].len() {
            words[at] = parts[part][index];
            at += 1;
            index += 1;
        }
        part += 1;
    }
    assert!(at == N, "the joined length is not the parts' total length");
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_keeps_every_word_in_order() {
        const PARTS: &[&[&str]] = &[&["a", "b"], &[], &["c"]];
        const WORDS: [&str; total_len(PARTS)] = joined(PARTS);
        assert_eq!(WORDS, ["a", "b", "c"]);
    }
}
