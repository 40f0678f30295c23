//! Topics: the themes a mind's memories keep coming back to, found without
//! a model, for the wiki's topic pages.
//!
//! An entity page gathers what the memories say of a person, place or
//! project the graph knows. Much of what a person tells an agent is about
//! no such thing: a diet, a running habit, a garden, invoices. A **topic**
//! is a word that recurs across the memories in a way that marks a theme,
//! read from the memories' own statistics, not from a list of themes:
//!
//! - it is said in at least [`MIN_MEMORIES`] memories, on at least
//!   [`MIN_DAYS`] days (a theme returns; one conversation that repeats a
//!   word is not one, and an agent's saves can all share one session, so
//!   the event day is what tells a return);
//! - it is not everywhere: at most a tenth of the memories (at least
//!   [`MIN_CEILING`]), since a word every memory uses ("today", "really")
//!   names nothing;
//! - it is not an entity's name (that entity has its page), a stop word, a
//!   number, or shorter than [`MIN_WORD_CHARS`];
//! - ranked by how much it says: its memories × log(all memories / its
//!   memories) (TF-IDF's weighting, counted over memories), and a topic
//!   whose memories are mostly another higher-ranked topic's
//!   ([`MAX_OVERLAP`], Jaccard) is the same theme and left out;
//! - and its memories mean something together ([`coherent_topics`]): the
//!   mean cosine of their embeddings must pass the mind's own (of memories
//!   taken across it) by [`MIN_COHERENCE_GAIN`]. A word that recurs as
//!   a habit of phrasing ("called", "moved", "days") gathers memories
//!   about anything; a theme's memories are about one thing. The topics
//!   are ranked again by their weight times that gain.
//!
//! A word's key folds case and a plural `s` ("invoices" and "invoice" are
//! one topic), ASCII letters and digits only, so a key is always a safe
//! page address and file name; its title is the form the memories use most.

use std::collections::{BTreeMap, BTreeSet};

use crate::cognify::vocab::STOP_WORDS;
use crate::recall::QUERY_STOP_WORDS;

/// The fewest memories a topic is said in.
pub const MIN_MEMORIES: usize = 3;

/// The fewest days its memories happened on.
pub const MIN_DAYS: usize = 2;

/// The most memories a topic may be said in is a tenth of all, but never
/// fewer than this (a small mind's themes are few memories each).
pub const MIN_CEILING: usize = 8;

/// The shortest topic word, in characters.
pub const MIN_WORD_CHARS: usize = 4;

/// The longest topic word, in characters.
pub const MAX_WORD_CHARS: usize = 40;

/// The share of a topic's memories (Jaccard) another, higher-ranked topic
/// may hold before the two are one theme.
pub const MAX_OVERLAP: f64 = 0.6;

/// How far the mean cosine of a topic's memories must pass the mind's own
/// for them to be one theme.
pub const MIN_COHERENCE_GAIN: f64 = 0.05;

/// The most of a topic's memories its coherence is measured on.
pub const COHERENCE_SAMPLE: usize = 24;

/// A memory as topic detection reads it.
#[derive(Debug, Clone, Copy)]
pub struct TopicMemory<'a> {
    /// Its id.
    pub id: u64,
    /// What it says (without the engine's markings).
    pub text: &'a str,
    /// The day it happened (`YYYY-MM-DD`).
    pub day: &'a str,
}

/// A recurring theme.
#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    /// Its key (`invoice`): the page address is `topic-<key>`.
    pub key: String,
    /// Its title: the word as the memories say it most (`Invoices`).
    pub title: String,
    /// Its memories' ids, in the order given.
    pub memories: Vec<u64>,
    /// Its weight: memories × log(all memories / its memories), times the
    /// coherence gain once [`coherent_topics`] has measured it.
    pub score: f64,
}

/// The topic key of one word, if it can be one: lower-cased, ASCII letters
/// and digits with at least one letter. (A plural folds into its singular
/// when the memories use both, in [`recurring_topics`].)
pub fn topic_key(word: &str) -> Option<String> {
    let lower = word.to_lowercase();
    let chars = lower.chars().count();
    if !(MIN_WORD_CHARS..=MAX_WORD_CHARS).contains(&chars)
        || !lower.chars().all(|c| c.is_ascii_alphanumeric())
        || !lower.chars().any(|c| c.is_ascii_alphabetic())
        || STOP_WORDS.contains(&lower.as_str())
        || QUERY_STOP_WORDS.contains(&lower.as_str())
    {
        return None;
    }
    Some(lower)
}

/// The singular a plural key folds into, if `key` ends in a plural `s`.
fn singular(key: &str) -> Option<&str> {
    key.strip_suffix('s')
        .filter(|stem| !stem.ends_with('s') && stem.len() >= MIN_WORD_CHARS - 1)
}

/// The words of `text` with their keys, in order.
fn keyed_words(text: &str) -> impl Iterator<Item = (String, &str)> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter_map(|word| topic_key(word).map(|key| (key, word)))
}

/// Whether `text` says the topic `key` (or its plural).
pub fn mentions(text: &str, key: &str) -> bool {
    keyed_words(text).any(|(word, _)| word == key || singular(&word) == Some(key))
}

/// A topic's title: the form of its word the memories use most
/// (`forms`: lower-cased form → uses), capitalised.
fn title_of(forms: &BTreeMap<String, usize>, key: &str) -> String {
    let form = forms
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map_or(key, |(form, _)| form.as_str());
    let mut chars = form.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The title of topic `key` as `texts` say it (its page, read alone).
pub fn topic_title<'a>(texts: impl IntoIterator<Item = &'a str>, key: &str) -> String {
    let mut forms: BTreeMap<String, usize> = BTreeMap::new();
    for text in texts {
        for (word, form) in keyed_words(text) {
            if word == key || singular(&word) == Some(key) {
                *forms.entry(form.to_lowercase()).or_default() += 1;
            }
        }
    }
    title_of(&forms, key)
}

/// The recurring topics of `memories`, best first, at most `limit`; the
/// words of `exclude` (lower-cased entity names) are never topics.
pub fn recurring_topics(
    memories: &[TopicMemory<'_>],
    exclude: &BTreeSet<String>,
    limit: usize,
) -> Vec<Topic> {
    struct Seen<'a> {
        memories: Vec<u64>,
        days: BTreeSet<&'a str>,
        forms: BTreeMap<String, usize>,
    }
    let mut seen: BTreeMap<String, Seen<'_>> = BTreeMap::new();
    for memory in memories {
        let mut keys_here = BTreeSet::new();
        for (key, form) in keyed_words(memory.text) {
            if exclude.contains(&key) || exclude.contains(&form.to_lowercase()) {
                continue;
            }
            let entry = seen.entry(key.clone()).or_insert_with(|| Seen {
                memories: Vec::new(),
                days: BTreeSet::new(),
                forms: BTreeMap::new(),
            });
            *entry.forms.entry(form.to_lowercase()).or_default() += 1;
            if keys_here.insert(key) {
                entry.memories.push(memory.id);
                entry.days.insert(memory.day);
            }
        }
    }
    let position: BTreeMap<u64, usize> = memories
        .iter()
        .enumerate()
        .map(|(at, memory)| (memory.id, at))
        .collect();
    // A plural the memories also say in the singular is the same word.
    let plurals: Vec<String> = seen
        .keys()
        .filter(|key| singular(key).is_some_and(|one| seen.contains_key(one)))
        .cloned()
        .collect();
    for plural in plurals {
        let (Some(one), Some(folded)) =
            (singular(&plural).map(str::to_string), seen.remove(&plural))
        else {
            continue;
        };
        if let Some(entry) = seen.get_mut(&one) {
            for id in folded.memories {
                if !entry.memories.contains(&id) {
                    entry.memories.push(id);
                }
            }
            // Back in the order given.
            entry
                .memories
                .sort_by_key(|id| position.get(id).copied().unwrap_or(usize::MAX));
            entry.days.extend(folded.days);
            for (form, count) in folded.forms {
                *entry.forms.entry(form).or_default() += count;
            }
        }
    }
    let total = memories.len().max(1);
    let ceiling = (total / 10).max(MIN_CEILING);
    let mut ranked: Vec<(f64, String, Seen<'_>)> = seen
        .into_iter()
        .filter(|(_, seen)| {
            (MIN_MEMORIES..=ceiling).contains(&seen.memories.len()) && seen.days.len() >= MIN_DAYS
        })
        .map(|(key, seen)| {
            let count = seen.memories.len() as f64;
            (count * (total as f64 / count).ln(), key, seen)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut topics: Vec<Topic> = Vec::new();
    for (score, key, seen) in ranked {
        if topics.len() >= limit {
            break;
        }
        let mine: BTreeSet<u64> = seen.memories.iter().copied().collect();
        let same_theme = topics.iter().any(|topic| {
            let theirs: BTreeSet<u64> = topic.memories.iter().copied().collect();
            let shared = mine.intersection(&theirs).count() as f64;
            let either = mine.union(&theirs).count() as f64;
            either > 0.0 && shared / either >= MAX_OVERLAP
        });
        if same_theme {
            continue;
        }
        let title = title_of(&seen.forms, &key);
        topics.push(Topic {
            key,
            title,
            memories: seen.memories,
            score,
        });
    }
    topics
}

/// The `candidates` whose memories are closer in meaning than the mind's
/// are (`baseline`: the mean pairwise cosine of memories taken across the
/// mind) by [`MIN_COHERENCE_GAIN`], ranked by weight × gain, at most
/// `limit`. `vector_of` gives a memory's embedding; a topic with fewer than
/// two embedded memories is left out.
pub fn coherent_topics<'v>(
    candidates: Vec<Topic>,
    vector_of: impl Fn(u64) -> Option<&'v [f32]>,
    baseline: f64,
    limit: usize,
) -> Vec<Topic> {
    let mut kept: Vec<Topic> = candidates
        .into_iter()
        .filter_map(|mut topic| {
            let vectors: Vec<&[f32]> = topic
                .memories
                .iter()
                .filter_map(|&id| vector_of(id))
                .take(COHERENCE_SAMPLE)
                .collect();
            if vectors.len() < 2 {
                return None;
            }
            let gain = crate::vectors::mean_pairwise_cosine(&vectors) - baseline;
            (gain >= MIN_COHERENCE_GAIN).then(|| {
                topic.score *= gain;
                topic
            })
        })
        .collect();
    kept.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
    kept.truncate(limit);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory<'a>(id: u64, text: &'a str, day: &'a str) -> TopicMemory<'a> {
        TopicMemory { id, text, day }
    }

    #[test]
    fn a_theme_that_returns_across_sessions_is_a_topic_and_a_repeated_word_is_not() {
        let memories = [
            memory(1, "Paid the electricity invoice late again.", "s1"),
            memory(2, "Invoices go to the accountant every quarter.", "s2"),
            memory(3, "The invoice for the boiler repair arrived.", "s3"),
            memory(4, "Karim sent the invoice template.", "s3"),
            memory(5, "Ran 10 km along the river this morning.", "s1"),
            memory(6, "Fig tree planted by the shed.", "s4"),
            memory(7, "Fig jam recipe from Ana.", "s4"),
            memory(8, "Fig leaves turned yellow.", "s4"),
        ];
        let exclude: BTreeSet<String> = ["karim".to_string(), "ana".to_string()].into();
        let topics = recurring_topics(&memories, &exclude, 10);
        let keys: Vec<&str> = topics.iter().map(|topic| topic.key.as_str()).collect();
        assert_eq!(keys, ["invoice"], "{topics:?}");
        assert_eq!(topics[0].title, "Invoice");
        assert_eq!(topics[0].memories, [1, 2, 3, 4]);
        // "fig" is short, and said on one day only.
        assert!(mentions("Invoices pile up", "invoice"));
        assert_eq!(
            topic_title(
                ["Invoices pile up", "two invoices", "an invoice"],
                "invoice"
            ),
            "Invoices"
        );
        assert!(!mentions("An in-voice note", "invoice"));
    }

    #[test]
    fn a_word_in_every_memory_names_nothing_and_one_theme_is_one_topic() {
        let texts: Vec<String> = (0..40)
            .map(|n| format!("Note {n}: today was fine, really."))
            .collect();
        let mut memories: Vec<TopicMemory<'_>> = texts
            .iter()
            .enumerate()
            .map(|(n, text)| memory(n as u64, text, if n % 2 == 0 { "a" } else { "b" }))
            .collect();
        let garden = [
            "Watered the tomato seedlings in the greenhouse.",
            "The greenhouse tomato plants need staking.",
            "Tomato blight in the greenhouse again.",
        ];
        for (n, text) in garden.iter().enumerate() {
            memories.push(memory(100 + n as u64, text, ["x", "y", "z"][n]));
        }
        let topics = recurring_topics(&memories, &BTreeSet::new(), 10);
        let keys: Vec<&str> = topics.iter().map(|topic| topic.key.as_str()).collect();
        assert_eq!(
            keys.len(),
            1,
            "greenhouse and tomato are one theme: {keys:?}"
        );
        assert!(["greenhouse", "tomato"].contains(&keys[0]), "{keys:?}");
        assert!(!keys.contains(&"today"));
    }

    #[test]
    fn a_topic_whose_memories_mean_nothing_together_is_left_out() {
        let topic = |key: &str, memories: Vec<u64>| Topic {
            key: key.to_string(),
            title: key.to_string(),
            memories,
            score: 1.0,
        };
        let vectors: std::collections::BTreeMap<u64, Vec<f32>> = [
            (1, vec![1.0, 0.1, 0.0]),
            (2, vec![1.0, 0.0, 0.1]),
            (3, vec![0.9, 0.1, 0.1]),
            (4, vec![1.0, 0.0, 0.0]),
            (5, vec![0.0, 1.0, 0.0]),
            (6, vec![0.0, 0.0, 1.0]),
        ]
        .into();
        let all: Vec<&[f32]> = vectors.values().map(Vec::as_slice).collect();
        let baseline = crate::vectors::mean_pairwise_cosine(&all);
        let kept = coherent_topics(
            vec![
                topic("moved", vec![4, 5, 6]),
                topic("invoice", vec![1, 2, 3]),
            ],
            |id| vectors.get(&id).map(Vec::as_slice),
            baseline,
            10,
        );
        let keys: Vec<&str> = kept.iter().map(|topic| topic.key.as_str()).collect();
        assert_eq!(keys, ["invoice"]);
        assert!(kept[0].score > 0.0 && kept[0].score < 1.0);
    }

    #[test]
    fn keys_are_safe_addresses() {
        assert_eq!(topic_key("Invoices").as_deref(), Some("invoices"));
        assert_eq!(topic_key("glass").as_deref(), Some("glass"));
        assert_eq!(topic_key("café"), None);
        assert_eq!(topic_key("2026"), None);
        assert_eq!(topic_key("the"), None);
        assert_eq!(topic_key("../etc"), None);
    }
}
