//! Full-text query building (`guest/store/src/search.rs`): a user query
//! becomes FTS5 words ([`fts_words`]) and a MATCH expression
//! ([`fts_query`]); with document counts, the budgeted expression
//! ([`budget_expression`]).
//!
//! Input: the query (lossy UTF-8); its bytes also seed the document counts.
//! Invariants: the words are non-empty, distinct, lower-case, no stop word,
//! at most [`MAX_QUERY_WORDS`], and hold no `"` (so quoting them makes FTS5
//! read each as one string, never as syntax); the expression is exactly the
//! words quoted and OR-ed (so its quotes balance), and `None` exactly when
//! there are no words; the budgeted expression is the words quoted, OR-ed,
//! optionally as `(rare) AND (all)`, with balanced parentheses and quotes.
#![no_main]

use hive_mind_store::search::{
    MAX_QUERY_WORDS, STOP_WORDS, budget_expression, fts_query, fts_words,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let query = String::from_utf8_lossy(data);
    let words = fts_words(&query);
    assert!(words.len() <= MAX_QUERY_WORDS);
    let mut seen = std::collections::HashSet::new();
    for word in &words {
        assert!(!word.is_empty(), "an empty word");
        assert!(!word.contains('"'), "a quote in word {word:?}");
        assert_eq!(*word, word.to_lowercase(), "not lower-case");
        assert!(!STOP_WORDS.contains(&word.as_str()), "stop word {word:?}");
        assert!(seen.insert(word.as_str()), "{word:?} twice");
    }
    let expression = fts_query(&query);
    assert_eq!(expression.is_none(), words.is_empty());
    if let Some(expression) = &expression {
        assert_eq!(split_or(expression), Some(words.clone()), "{expression}");
    }

    // Counts from the input bytes, some zero, some past the budget.
    let counted: Vec<(String, u64)> = words
        .iter()
        .zip(data.iter().cycle())
        .map(|(word, byte)| (word.clone(), u64::from(*byte) * 97))
        .collect();
    let with_postings: Vec<String> = counted
        .iter()
        .filter(|(_, count)| *count > 0)
        .map(|(word, _)| word.clone())
        .collect();
    match budget_expression(&counted) {
        None => assert!(with_postings.is_empty()),
        Some(budgeted) => {
            let all = match budgeted.strip_prefix('(') {
                None => budgeted.as_str(),
                Some(rest) => {
                    let (rare, all) = rest.split_once(") AND (").expect("(rare) AND (all)");
                    let all = all.strip_suffix(')').expect("closing parenthesis");
                    let rare = split_or(rare).expect("rare words quoted");
                    assert!(!rare.is_empty());
                    assert!(rare.iter().all(|word| with_postings.contains(word)));
                    all
                }
            };
            assert_eq!(split_or(all), Some(with_postings), "{budgeted}");
        }
    }
});

/// The words of `"w1" OR "w2" OR …`, or `None` when it is not that shape
/// (a quote inside a word, an unbalanced quote, another operator).
fn split_or(expression: &str) -> Option<Vec<String>> {
    expression
        .split(" OR ")
        .map(|term| {
            let word = term.strip_prefix('"')?.strip_suffix('"')?;
            (!word.is_empty() && !word.contains('"')).then(|| word.to_owned())
        })
        .collect()
}
