//! Content dedup: exact, near-duplicate, possible contradiction.
//!
//! Before a harvested or extracted memory is written, it is judged against
//! texts that already exist, in two tiers (the reference engine's harvest
//! dedup, `reference-constants.md`):
//!
//! 1. **Exact.** Both texts are normalised (lower-cased, runs of white space
//!    collapsed to one space, trimmed). Equal normalised texts are the same
//!    memory. The reference compares SHA-256 digests of the normalised texts
//!    because it looks them up in a store; comparing the normalised texts
//!    themselves is the same test without the hashing.
//! 2. **Fuzzy.** Character-trigram similarity: each normalised text becomes
//!    the *set* of its 3-character substrings (counted in Unicode scalar
//!    values, spaces included), and similarity is `|A ∩ B| / max(|A|, |B|)`,
//!    0 when either set is empty (so texts under 3 characters are never
//!    similar to anything). Dividing by the larger set, rather than the
//!    union, makes a short text that is wholly contained in a long one score
//!    low: it is not a duplicate of the long one.
//!
//! The most similar existing text (the first one on ties) decides: from
//! [`NEAR_DUPLICATE_THRESHOLD`] = 0.75 up (inclusive) the candidate is a near
//! duplicate and is skipped; from [`CONTRADICTION_THRESHOLD`] = 0.4 up to
//! 0.75 an *important* or *critical* candidate is about the same thing yet
//! says something different, a possible contradiction that the caller logs
//! and still writes. (The reference flags only `important`; a critical
//! candidate contradicting a memory matters at least as much.)

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::types::Importance;

/// Similarity from which a candidate is a near duplicate (inclusive).
pub const NEAR_DUPLICATE_THRESHOLD: f64 = 0.75;

/// Similarity from which an important candidate may contradict an existing
/// text (inclusive, up to [`NEAR_DUPLICATE_THRESHOLD`] exclusive).
pub const CONTRADICTION_THRESHOLD: f64 = 0.4;

/// An existing text and its similarity to the candidate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SimilarContent {
    /// Index into `existing`.
    pub index: u32,
    /// Trigram similarity.
    pub similarity: f64,
}

/// The verdict for a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DedupVerdict {
    /// Same normalised text as `existing[i]`.
    Exact(u32),
    /// Similarity ≥ 0.75.
    NearDuplicate(SimilarContent),
    /// Important, 0.4 ≤ similarity < 0.75.
    PossibleContradiction(SimilarContent),
    /// Nothing like it.
    New,
}

/// Trigram similarity of two texts after normalisation:
/// `|A ∩ B| / max(|A|, |B|)` over their sets of 3-character substrings; 0
/// when either set is empty.
pub fn trigram_similarity(a: &str, b: &str) -> f64 {
    set_similarity(&trigrams(&normalise(a)), &trigrams(&normalise(b)))
}

/// Judge `candidate` against `existing`: the first existing text with the
/// same normalised text makes it [`DedupVerdict::Exact`]; otherwise the most
/// similar existing text (the first on ties) decides between near duplicate,
/// possible contradiction (only for important or critical candidates) and
/// new. An empty `existing` gives [`DedupVerdict::New`].
pub fn dedup_check(candidate: &str, importance: Importance, existing: &[String]) -> DedupVerdict {
    let candidate = normalise(candidate);
    let existing: Vec<String> = existing.iter().map(|text| normalise(text)).collect();

    // Indices are u32 on the interface; `zip(0..)` stops at u32::MAX texts.
    if let Some((_, index)) = existing
        .iter()
        .zip(0u32..)
        .find(|(text, _)| **text == candidate)
    {
        return DedupVerdict::Exact(index);
    }

    let candidate_trigrams = trigrams(&candidate);
    let mut best: Option<SimilarContent> = None;
    for (text, index) in existing.iter().zip(0u32..) {
        let similarity = set_similarity(&candidate_trigrams, &trigrams(text));
        if best.is_none_or(|b| similarity > b.similarity) {
            best = Some(SimilarContent { index, similarity });
        }
    }

    match best {
        Some(best) if best.similarity >= NEAR_DUPLICATE_THRESHOLD => {
            DedupVerdict::NearDuplicate(best)
        }
        Some(best)
            if best.similarity >= CONTRADICTION_THRESHOLD
                && matches!(importance, Importance::Important | Importance::Critical) =>
        {
            DedupVerdict::PossibleContradiction(best)
        }
        _ => DedupVerdict::New,
    }
}

/// [`dedup_check`] for many candidates against a growing set of texts, as
/// harvest needs it: each text's normalised form and sorted trigrams are
/// computed once, exact matches are a hash lookup, and only texts whose
/// trigram count could reach the threshold are compared (similarity is at
/// most `min(|A|, |B|) / max(|A|, |B|)`, so a text with fewer than 0.75× or
/// more than 1/0.75× the candidate's trigrams can never be its near
/// duplicate; 0.4 for an important candidate's contradictions). The verdict
/// is exactly [`dedup_check`]'s against the texts in insertion order: a
/// skipped text's similarity is below the threshold, so it can neither be
/// the deciding best nor change the verdict's kind.
#[derive(Debug, Clone, Default)]
pub struct DedupIndex {
    exact: std::collections::HashMap<String, u32>,
    /// Each text's content words (see [`DedupIndex::adds_words`]).
    words: Vec<HashSet<String>>,
    trigrams: Vec<Vec<[char; 3]>>,
    by_size: std::collections::BTreeMap<usize, Vec<u32>>,
}

impl DedupIndex {
    /// An empty index.
    pub fn new() -> DedupIndex {
        DedupIndex::default()
    }

    /// How many texts it holds.
    pub fn len(&self) -> usize {
        self.trigrams.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.trigrams.is_empty()
    }

    /// Add a text; returns its index (the index verdicts name).
    pub fn insert(&mut self, text: &str) -> u32 {
        let index = u32::try_from(self.trigrams.len()).unwrap_or(u32::MAX);
        let normalised = normalise(text);
        let mut grams: Vec<[char; 3]> = trigrams(&normalised).into_iter().collect();
        grams.sort_unstable();
        self.words.push(content_words(&normalised));
        self.exact.entry(normalised).or_insert(index);
        self.by_size.entry(grams.len()).or_default().push(index);
        self.trigrams.push(grams);
        index
    }

    /// [`dedup_check`]'s verdict for `candidate` against the texts inserted.
    pub fn judge(&self, candidate: &str, importance: Importance) -> DedupVerdict {
        let normalised = normalise(candidate);
        if let Some(index) = self.exact.get(&normalised) {
            return DedupVerdict::Exact(*index);
        }
        let mut grams: Vec<[char; 3]> = trigrams(&normalised).into_iter().collect();
        if grams.is_empty() {
            return DedupVerdict::New;
        }
        grams.sort_unstable();
        let important = matches!(importance, Importance::Important | Importance::Critical);
        let threshold = if important {
            CONTRADICTION_THRESHOLD
        } else {
            NEAR_DUPLICATE_THRESHOLD
        };
        let size = grams.len() as f64;
        let low = (size * threshold).ceil() as usize;
        let high = (size / threshold).floor() as usize;
        let mut best: Option<SimilarContent> = None;
        for indexes in self.by_size.range(low.max(1)..=high).map(|(_, ids)| ids) {
            for &index in indexes {
                let Some(other) = self.trigrams.get(index as usize) else {
                    continue;
                };
                let similarity = sorted_similarity(&grams, other);
                let better = match best {
                    None => true,
                    Some(b) => {
                        similarity > b.similarity || (similarity == b.similarity && index < b.index)
                    }
                };
                if better {
                    best = Some(SimilarContent { index, similarity });
                }
            }
        }
        match best {
            Some(best) if best.similarity >= NEAR_DUPLICATE_THRESHOLD => {
                DedupVerdict::NearDuplicate(best)
            }
            Some(best) if best.similarity >= CONTRADICTION_THRESHOLD && important => {
                DedupVerdict::PossibleContradiction(best)
            }
            _ => DedupVerdict::New,
        }
    }
}

impl DedupIndex {
    /// Whether `candidate` says something the text at `index` does not: a
    /// content word (three letters or more, not a function word) that the
    /// text lacks. A near duplicate by trigrams that changes a word —
    /// "I prefer dark mode" after "I prefer light mode" (0.79) — is an
    /// update of what was known, not a repeat of it: harvest writes it as a
    /// possible contradiction instead of dropping the newer statement.
    pub fn adds_words(&self, candidate: &str, index: u32) -> bool {
        let Some(known) = self.words.get(index as usize) else {
            return true;
        };
        content_words(&normalise(candidate))
            .iter()
            .any(|word| !known.contains(word))
    }
}

/// Words that carry no content of their own.
const FUNCTION_WORDS: [&str; 40] = [
    "the", "and", "but", "for", "nor", "yet", "with", "from", "into", "onto", "that", "this",
    "these", "those", "are", "was", "were", "been", "being", "have", "has", "had", "will", "would",
    "shall", "should", "can", "could", "may", "might", "must", "its", "our", "your", "their",
    "his", "her", "they", "them", "you",
];

/// The content words of a normalised text: alphanumeric runs of three
/// characters or more, function words left out.
fn content_words(normalised: &str) -> HashSet<String> {
    normalised
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 3 && !FUNCTION_WORDS.contains(word))
        .map(str::to_string)
        .collect()
}

/// [`set_similarity`] over sorted, duplicate-free trigram lists.
fn sorted_similarity(a: &[[char; 3]], b: &[[char; 3]]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared as f64 / a.len().max(b.len()) as f64
}

/// Lower-cased, white-space runs collapsed to one space, trimmed.
pub(crate) fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The set of 3-character substrings of `text`.
pub(crate) fn trigrams(text: &str) -> HashSet<[char; 3]> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .windows(3)
        .filter_map(|w| <[char; 3]>::try_from(w).ok())
        .collect()
}

/// `|A ∩ B| / max(|A|, |B|)`, 0 when either set is empty.
pub(crate) fn set_similarity(a: &HashSet<[char; 3]>, b: &HashSet<[char; 3]>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let shared = small.iter().filter(|t| large.contains(*t)).count();
    shared as f64 / large.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_duplicate_that_changes_a_word_adds_words() {
        let mut index = DedupIndex::new();
        let light = index.insert("[mind-fact] I prefer light mode in my code editor.");
        let dark = "[mind-fact] I prefer dark mode in my code editor.";
        assert!(matches!(
            index.judge(dark, Importance::Normal),
            DedupVerdict::NearDuplicate(similar) if similar.index == light
        ));
        assert!(index.adds_words(dark, light));
        // Case, spacing, punctuation and function words add nothing.
        assert!(!index.adds_words(
            "[MIND-FACT]  i prefer LIGHT mode in the code editor!",
            light
        ));
    }

    fn texts(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn normalises_case_and_white_space() {
        assert_eq!(normalise("  Hello \t\n  WORLD  "), "hello world");
        assert_eq!(normalise("\u{3000}Ärger\u{a0}ÜBER"), "ärger über");
        assert_eq!(normalise(" \n "), "");
    }

    #[test]
    fn similarity_by_hand() {
        // {abc, bcd} vs {abc, bce}: 1 shared of 2.
        assert_eq!(trigram_similarity("abcd", "abce"), 0.5);
        // {abc} vs {abc, bcd, cde}: 1 shared of max(1, 3).
        assert_eq!(trigram_similarity("abc", "abcde"), 1.0 / 3.0);
        assert_eq!(trigram_similarity("Hello   World", "hello world"), 1.0);
        // Sets, not counts: "aaaa" and "aaa" are both {aaa}.
        assert_eq!(trigram_similarity("aaaa", "aaa"), 1.0);
        // Spaces count: {a b, " b "…}.
        assert_eq!(trigram_similarity("a b", "a  b"), 1.0);
        assert_eq!(trigram_similarity("ab c", "abc"), 0.0);
        // By characters, not bytes.
        assert_eq!(trigram_similarity("äöü", "ÄÖÜ"), 1.0);
        assert_eq!(trigram_similarity("äöüx", "äöüy"), 0.5);
    }

    #[test]
    fn short_or_empty_texts_are_never_similar() {
        assert_eq!(trigram_similarity("ab", "ab"), 0.0);
        assert_eq!(trigram_similarity("", ""), 0.0);
        assert_eq!(trigram_similarity("abc", ""), 0.0);
        assert_eq!(trigram_similarity("  a  b  ", "a b"), 1.0);
    }

    #[test]
    fn exact_match_after_normalisation_wins() {
        let existing = texts(&[
            "something else",
            "We deploy on Fridays",
            "we deploy  on FRIDAYS",
        ]);
        assert_eq!(
            dedup_check("  we DEPLOY on fridays\n", Importance::Normal, &existing),
            DedupVerdict::Exact(1)
        );
        // Exact beats a more similar-looking earlier entry, too.
        let existing = texts(&["we deploy on fridays!", "We deploy on Fridays"]);
        assert_eq!(
            dedup_check("we deploy on fridays", Importance::Normal, &existing),
            DedupVerdict::Exact(1)
        );
    }

    #[test]
    fn near_duplicate_from_three_quarters() {
        // "abcdef" {abc,bcd,cde,def} vs "abcdeg" {abc,bcd,cde,deg}: 3/4.
        let existing = texts(&["xyz", "abcdeg"]);
        assert_eq!(
            dedup_check("abcdef", Importance::Normal, &existing),
            DedupVerdict::NearDuplicate(SimilarContent {
                index: 1,
                similarity: 0.75
            })
        );
    }

    #[test]
    fn possible_contradiction_only_for_important_candidates() {
        // {abc,bcd,cde,def} vs {abc,bcd,cdx,dxy}: 2/4.
        let existing = texts(&["abcdxy"]);
        let half = SimilarContent {
            index: 0,
            similarity: 0.5,
        };
        for importance in [Importance::Important, Importance::Critical] {
            assert_eq!(
                dedup_check("abcdef", importance, &existing),
                DedupVerdict::PossibleContradiction(half)
            );
        }
        for importance in [
            Importance::Normal,
            Importance::Temporary,
            Importance::Deprecated,
        ] {
            assert_eq!(
                dedup_check("abcdef", importance, &existing),
                DedupVerdict::New
            );
        }
        // 0.4 is inclusive: {abcde..} 5 trigrams, 2 shared.
        let existing = texts(&["abcdxyz"]);
        assert_eq!(
            dedup_check("abcdefg", Importance::Important, &existing),
            DedupVerdict::PossibleContradiction(SimilarContent {
                index: 0,
                similarity: 0.4
            })
        );
        // Below 0.4: new. {abc..efgh} 6 trigrams, 2 shared.
        let existing = texts(&["abcdwxyz"]);
        assert_eq!(
            dedup_check("abcdefgh", Importance::Critical, &existing),
            DedupVerdict::New
        );
    }

    #[test]
    fn the_most_similar_decides_and_the_first_wins_ties() {
        let existing = texts(&["abcdxy", "abcdeg", "abcdeg "]);
        assert_eq!(
            dedup_check("abcdef", Importance::Important, &existing),
            DedupVerdict::NearDuplicate(SimilarContent {
                index: 1,
                similarity: 0.75
            })
        );
    }

    #[test]
    fn nothing_existing_is_new() {
        assert_eq!(
            dedup_check("anything", Importance::Critical, &[]),
            DedupVerdict::New
        );
        assert_eq!(
            dedup_check("", Importance::Normal, &texts(&["abc"])),
            DedupVerdict::New
        );
    }
}
