//! The relevance floor: when memory holds nothing about the query, recall
//! returns nothing.
//!
//! # Why the fused score cannot be the floor
//!
//! Reciprocal rank fusion looks only at ranks. Vector search always returns
//! its `k` nearest frames, however far they are, so the top hit of a query
//! memory knows nothing about scores `1/60` exactly like the top hit of a
//! query it knows everything about; relevance scoring then multiplies by
//! recency, popularity and importance, none of which says anything about the
//! query either. A threshold on `final = fused × relevance` would therefore
//! cut by rank and age, not by relevance. The only signals that measure how
//! well a frame matches *this* query in absolute terms are the lanes' own:
//!
//! - a **full-text (BM25) hit** means the frame contains at least one of the
//!   query's words after stop-words were dropped: a lexical match. Its BM25
//!   value is not comparable across stores (it depends on corpus size and
//!   term statistics), so only its existence is used;
//! - the **cosine similarity** of a vector hit (`1 − d²/2` of unit vectors)
//!   is on a fixed scale for a given embedding model, so a threshold on it
//!   is meaningful.
//!
//! Cross-encoder scores are not used: the reranker interface promises them
//! comparable within one call only.
//!
//! # The rule
//!
//! A hit of a query-matched lane ([`Lane::is_query_matched`]: semantic,
//! raw-detail) passes when it has a BM25 hit (if [`RelevanceFloor::lexical_match`])
//! or a vector hit with cosine ≥ [`RelevanceFloor::min_cosine`]. Lanes that
//! do not search by the query are judged by what anchors them instead:
//!
//! - the **catch-up** fetch and every **date-filtered** lane (the date-window
//!   lane, the events lane of a windowed query) are relevant by construction:
//!   the query asked for "what matters" or for "that period";
//! - the **standing** lanes (importance, profile, facts, unwindowed events)
//!   are fetched whatever the query says. Under the default
//!   [`StandingLanes::WhenAnchored`] they are shown only when something
//!   above anchored the recall (a query-matched hit passed, or a catch-up or
//!   date-filtered lane found a frame). Otherwise a question memory knows
//!   nothing about would still receive the five important frames, sixty facts
//!   and forty events: exactly the top-N noise the floor exists to stop, and
//!   an agent is better served by an empty block, which tells it that it
//!   remembers nothing about the topic. [`StandingLanes::Always`] restores
//!   the reference engine's behaviour of showing them on every query.
//!
//! # The threshold, calibrated per embedder
//!
//! The threshold belongs to the embedding model. Under
//! `all-MiniLM-L6-v2` unrelated sentences score near zero (roughly −0.1 to
//! 0.15), texts on the same topic upward of about 0.3, paraphrases 0.6 and
//! more; under `bge-small-en-v1.5`, whose similarity range is compressed,
//! unrelated sentences score 0.3 to 0.5 and a paraphrase 0.65. One constant
//! cannot serve both: 0.25 lets every bge hit through, and bge's 0.5 would
//! drop MiniLM's true matches.
//!
//! So the engine measures the model it has ([`calibrated_min_cosine`]):
//! it embeds [`CALIBRATION_SENTENCES`], sixteen sentences about mutually
//! unrelated things, each as a query and as a document, and takes the 99th
//! percentile of the cosines between a query and the *other* sentences:
//! how similar two unrelated texts look under this model, at the high end.
//! A hit must beat that. Measured: MiniLM 0.24 (the 0.25 this engine used
//! for it before, which leans towards keeping a weak true match, since a
//! dropped memory costs more than one line of noise), bge-small 0.50. The
//! engine does this once per embedder and records it in the personal mind;
//! [`DEFAULT_MIN_COSINE`] is the fallback when the calibration cannot run.
//! A lexical hit passes regardless, so an exact name or rare word that the
//! embedder scores low is still found. A mock embedder's cosines mean
//! nothing (the engine sets `min_cosine` above 1, so that only lexical hits
//! count). A full-text hit counts only when the frame holds one of the
//! query's words ([`query_words`]: no stop word, no single letter — "cat's"
//! must not match "let's" by their "s").
//!
//! # Is anything an answer?
//!
//! The floor judges each hit against unrelated text. A question the memory
//! cannot answer still finds hits on its topic ("what is my cat's name?"
//! finds "my dog is called Rex", a cosine well above the floor), and
//! showing them invites a model to answer from them. So recall is also
//! judged as a whole ([`answers`]): it returns memories only when at least
//! one hit *answers* — an anchoring lane's (the query named a period or
//! asked to catch up), or a hit whose cosine reaches
//! [`answer_min_cosine`] (a quarter of the way from the floor to 1:
//! MiniLM 0.43, bge 0.63), or one that holds more than half of the query's
//! words ([`ANSWER_KEYWORD_SHARE`], [`keyword_coverage`]: "my name is Sam"
//! holds one of "cat" and "name"). Otherwise the recall is empty, and the
//! engine's note names the nearest miss.

use serde::{Deserialize, Serialize};

use super::Lane;

/// English stop words: dropped from full-text queries (the store's search)
/// and from the words a hit must share with the query.
pub const QUERY_STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "but", "by", "can", "could", "did", "do", "does", "for", "from", "had",
    "has", "have", "he", "her", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "me", "my", "no", "not", "of", "on", "or", "our", "she", "so", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when",
    "where", "which", "who", "why", "will", "with", "would", "you", "your",
];

/// Whether `word` (lower-cased) is searchable: not a stop word, not a
/// single letter (the "s" of "cat's", the "t" of "don't").
pub fn is_query_word(word: &str) -> bool {
    let mut chars = word.chars();
    let single_letter =
        matches!((chars.next(), chars.next()), (Some(c), None) if c.is_alphabetic());
    !word.is_empty() && !single_letter && !QUERY_STOP_WORDS.contains(&word)
}

/// The query's searchable words, lower-cased, each once, in order.
pub fn query_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphanumeric()) {
        let word = word.to_lowercase();
        if is_query_word(&word) && !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// The share of `words` that `content` holds: a word counts when one of
/// the content's words shares its first letters (as many as the shorter of
/// the two has, at most five: "invoices" / "invoice", "book" / "booked";
/// a word of one or two letters only when equal), about what the full-text
/// index's stemmer matches. 0 for no words.
pub fn keyword_coverage(words: &[String], content: &str) -> f64 {
    coverage_on_prefixes(words, content, 5)
}

/// [`keyword_coverage`] on stems of at most four letters ("called" /
/// "calls"), nearer what the full-text index's stemmer matched: for a hit
/// the index found whose shown text holds no query word.
pub fn stem_coverage(words: &[String], content: &str) -> f64 {
    coverage_on_prefixes(words, content, 4)
}

/// The share of `words` that `content` holds, a word counting when one of
/// the content's words shares its first `longest` letters (or all of the
/// shorter one's; one or two letters only when equal).
fn coverage_on_prefixes(words: &[String], content: &str, longest: usize) -> f64 {
    if words.is_empty() {
        return 0.0;
    }
    let held: Vec<String> = content
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect();
    let matched = words
        .iter()
        .filter(|word| {
            held.iter().any(|other| {
                let n = word.chars().count().min(other.chars().count()).min(longest);
                if n < 3 {
                    *word == other
                } else {
                    word.chars().take(n).eq(other.chars().take(n))
                }
            })
        })
        .count();
    matched as f64 / words.len() as f64
}

/// A hit answers on its words when it holds more than this share of the
/// query's words: all of one or two, two of three, three of four or five.
pub const ANSWER_KEYWORD_SHARE: f64 = 0.5;

/// The reranker's probability at which a hit answers: a cross-encoder
/// reads the question and the passage together, which is what tells "my
/// dog is Rex" (close to "my cat's name" in meaning, yet no answer) from
/// "our biggest customer is Van Dijk" (the answer to "who is our most
/// important client?", whose cosine is no higher).
pub const ANSWER_RERANK_PROBABILITY: f64 = 0.05;

/// Where the answering cosine sits between the floor and 1.
pub const ANSWER_COSINE_SHARE: f64 = 0.25;

/// The cosine at which a hit answers by meaning alone, for a floor of
/// `min_cosine` (see the module docs).
pub fn answer_min_cosine(min_cosine: f64) -> f64 {
    if min_cosine.is_finite() {
        min_cosine + ANSWER_COSINE_SHARE * (1.0 - min_cosine.min(1.0))
    } else {
        min_cosine
    }
}

/// Whether a hit with this evidence answers the query (see the module
/// docs): its keyword coverage, its best cosine, the reranker's
/// probability when it read the hit, and whether its lane anchors the
/// recall.
pub fn answers(
    floor: &RelevanceFloor,
    anchoring: bool,
    coverage: f64,
    best_cosine: Option<f64>,
    rerank_probability: Option<f64>,
) -> bool {
    if anchoring || floor.min_cosine == f64::NEG_INFINITY {
        return true;
    }
    if rerank_probability.is_some_and(|p| p >= ANSWER_RERANK_PROBABILITY) {
        return true;
    }
    if floor.min_cosine > 1.0 {
        // Vectors that carry no meaning (the engine sets the floor above
        // any cosine): the words are all the evidence there is.
        return floor.lexical_match && coverage > 0.0;
    }
    let by_meaning = best_cosine
        .filter(|c| !c.is_nan())
        .is_some_and(|c| c >= answer_min_cosine(floor.min_cosine));
    by_meaning || (floor.lexical_match && coverage > ANSWER_KEYWORD_SHARE)
}

/// The default [`RelevanceFloor::min_cosine`], for `all-MiniLM-L6-v2`,
/// used when the embedder cannot be calibrated (see the module
/// documentation for the reasoning).
pub const DEFAULT_MIN_COSINE: f64 = 0.25;

/// Sentences about mutually unrelated things: everyday life, work, nature,
/// science, art. How similar they look to each other under a model is how
/// similar unrelated texts look under it ([`calibrated_min_cosine`]).
pub const CALIBRATION_SENTENCES: [&str; 16] = [
    "The train to the airport leaves every twenty minutes.",
    "She planted tomatoes and basil in the back garden.",
    "Our quarterly revenue grew by eight percent.",
    "The cat sleeps on the warm windowsill all afternoon.",
    "He fixed the leaking kitchen tap with a new washer.",
    "The museum's new exhibit covers ancient Egyptian pottery.",
    "Remember to renew the passport before the summer trip.",
    "The compiler reports an unused variable warning.",
    "Heavy rain is expected along the coast tonight.",
    "The violin concerto was written in three movements.",
    "We need more folding chairs for the school fundraiser.",
    "The marathon route passes the old stone bridge.",
    "Add two cups of flour and a pinch of salt.",
    "The dentist appointment moved to Thursday morning.",
    "Satellites measure the thickness of polar ice.",
    "The library extended its opening hours on weekends.",
];

/// The share of unrelated query–document cosines the floor sits above.
pub const CALIBRATION_PERCENTILE: f64 = 0.99;

/// The floor for a model, from its vectors of [`CALIBRATION_SENTENCES`]
/// embedded as queries (`queries`) and as documents (`documents`), in that
/// order: the [`CALIBRATION_PERCENTILE`] of the cosines between each query
/// and every *other* document (see the module documentation). `None` when
/// the vectors do not fit (other counts, empty or mismatched dimensions, a
/// zero vector, a cosine that is not a number).
pub fn calibrated_min_cosine(queries: &[Vec<f32>], documents: &[Vec<f32>]) -> Option<f64> {
    let n = CALIBRATION_SENTENCES.len();
    if queries.len() != n || documents.len() != n {
        return None;
    }
    let dim = queries.first()?.len();
    if dim == 0 || queries.iter().chain(documents).any(|v| v.len() != dim) {
        return None;
    }
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let mut cosines = Vec::with_capacity(n * (n - 1));
    for (i, query) in queries.iter().enumerate() {
        for (j, document) in documents.iter().enumerate() {
            if i == j {
                continue;
            }
            let dot: f64 = query
                .iter()
                .zip(document)
                .map(|(a, b)| f64::from(*a) * f64::from(*b))
                .sum();
            let cosine = dot / (norm(query) * norm(document));
            if !cosine.is_finite() {
                return None;
            }
            cosines.push(cosine);
        }
    }
    cosines.sort_by(f64::total_cmp);
    // The nearest-rank percentile.
    let rank = (CALIBRATION_PERCENTILE * cosines.len() as f64).ceil() as usize;
    cosines.get(rank.saturating_sub(1)).copied()
}

/// When the standing lanes (importance, profile, facts, unwindowed events)
/// are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StandingLanes {
    /// Only when something query-driven was found (the default).
    #[default]
    WhenAnchored,
    /// On every query (the reference engine's behaviour).
    Always,
}

/// What a frame must show to be recalled; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RelevanceFloor {
    /// The least cosine similarity at which a vector hit counts as a match.
    pub min_cosine: f64,
    /// Whether a full-text (BM25) hit counts as a match on its own.
    pub lexical_match: bool,
    /// When the standing lanes are shown.
    pub standing_lanes: StandingLanes,
}

impl Default for RelevanceFloor {
    fn default() -> Self {
        RelevanceFloor {
            min_cosine: DEFAULT_MIN_COSINE,
            lexical_match: true,
            standing_lanes: StandingLanes::WhenAnchored,
        }
    }
}

impl RelevanceFloor {
    /// No floor: every hit counts and the standing lanes always show (the
    /// reference engine's behaviour).
    pub const OFF: RelevanceFloor = RelevanceFloor {
        min_cosine: f64::NEG_INFINITY,
        lexical_match: true,
        standing_lanes: StandingLanes::Always,
    };

    /// Whether a query-matched hit with this evidence passes: a BM25 hit
    /// (when lexical matches count), or a best cosine of at least
    /// [`min_cosine`](Self::min_cosine). A NaN cosine never passes.
    pub fn admits(&self, lexical_hit: bool, best_cosine: Option<f64>) -> bool {
        (self.lexical_match && lexical_hit)
            || best_cosine.is_some_and(|cosine| cosine >= self.min_cosine)
    }

    /// Whether a lane is shown at all given whether the recall is anchored
    /// (see the module documentation). Query-matched and anchoring lanes are
    /// judged hit by hit instead, so this is true for them.
    pub(crate) fn shows_standing(&self, anchored: bool) -> bool {
        anchored || self.standing_lanes == StandingLanes::Always
    }
}

/// How the floor treats one lane of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaneRole {
    /// Searched by the query: each hit needs evidence.
    QueryMatched,
    /// Relevant by construction (catch-up, date-filtered); anchors the recall.
    Anchoring,
    /// Fetched whatever the query: shown only when the recall is anchored.
    Standing,
}

impl LaneRole {
    /// The role of `lane`, which is `date_filtered` in the plan or not.
    pub(crate) fn of(lane: Lane, date_filtered: bool) -> LaneRole {
        if date_filtered || lane == Lane::CatchUp {
            LaneRole::Anchoring
        } else if lane.is_query_matched() {
            LaneRole::QueryMatched
        } else {
            LaneRole::Standing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_drop_stop_words_and_single_letters() {
        assert_eq!(
            query_words("What is my cat's name? The CAT's!"),
            ["cat", "name"]
        );
        assert!(is_query_word("5"));
        assert!(!is_query_word("t"));
    }

    #[test]
    fn keyword_coverage_reads_word_starts_like_a_stemmer() {
        let words = query_words("Which database do we keep invoices in?");
        assert_eq!(words, ["database", "keep", "invoices"]);
        let held = keyword_coverage(&words, "We keep every invoice in PostgreSQL.");
        assert!((held - 2.0 / 3.0).abs() < 1e-9, "{held}");
        assert_eq!(keyword_coverage(&words, "Tea, not coffee."), 0.0);
        assert_eq!(keyword_coverage(&[], "anything"), 0.0);
        assert_eq!(keyword_coverage(&query_words("go"), "going home"), 0.0);
    }

    #[test]
    fn an_answer_needs_meaning_close_enough_or_most_of_the_words() {
        let floor = RelevanceFloor {
            min_cosine: 0.24,
            ..RelevanceFloor::default()
        };
        let bar = answer_min_cosine(0.24);
        assert!((bar - 0.43).abs() < 1e-9);
        assert!(answers(&floor, false, 0.0, Some(bar), None));
        assert!(!answers(&floor, false, 0.5, Some(bar - 0.01), None));
        assert!(!answers(&floor, false, 0.5, Some(bar - 0.01), Some(0.01)));
        assert!(
            answers(&floor, false, 0.0, Some(0.3), Some(0.5)),
            "the reranker"
        );
        assert!(answers(&floor, false, 2.0 / 3.0, None, None));
        assert!(answers(&floor, true, 0.0, None, None), "an anchoring lane");
        assert!(answers(&RelevanceFloor::OFF, false, 0.0, None, None));
        let meaningless = RelevanceFloor {
            min_cosine: f64::INFINITY,
            ..floor
        };
        assert!(
            answers(&meaningless, false, 0.3, None, None),
            "words are all there is"
        );
        assert!(!answers(&meaningless, false, 0.0, Some(0.9), None));
        let no_words = RelevanceFloor {
            lexical_match: false,
            ..floor
        };
        assert!(!answers(&no_words, false, 1.0, None, None));
    }

    /// Unit vectors at the given angles (radians) in the plane.
    fn at(angles: &[f64]) -> Vec<Vec<f32>> {
        angles
            .iter()
            .map(|a| vec![a.cos() as f32, a.sin() as f32])
            .collect()
    }

    #[test]
    fn the_floor_sits_at_the_high_end_of_unrelated_cosines() {
        let n = CALIBRATION_SENTENCES.len();
        // Spread over a half circle: cosines between distinct vectors run
        // from cos(π) = −1 up to cos(π/15), the neighbours'.
        let angles: Vec<f64> = (0..n)
            .map(|i| std::f64::consts::PI * i as f64 / (n - 1) as f64)
            .collect();
        let vectors = at(&angles);
        let floor = calibrated_min_cosine(&vectors, &vectors).unwrap();
        let neighbours = (std::f64::consts::PI / (n - 1) as f64).cos();
        // 240 cross cosines, 30 of them between neighbours: the 99th
        // percentile is a neighbour's.
        assert!((floor - neighbours).abs() < 1e-6, "{floor} vs {neighbours}");
        // A model that finds everything alike (a compressed range) gets a
        // high floor; one that finds nothing alike, a low one.
        let alike = at(&(0..n)
            .map(|i| 0.1 * i as f64 / n as f64)
            .collect::<Vec<_>>());
        assert!(calibrated_min_cosine(&alike, &alike).unwrap() > 0.99);
    }

    #[test]
    fn vectors_that_do_not_fit_give_no_floor() {
        let n = CALIBRATION_SENTENCES.len();
        let good = at(&vec![0.0; n]);
        assert_eq!(calibrated_min_cosine(&good[1..], &good), None);
        assert_eq!(calibrated_min_cosine(&good, &good[1..]), None);
        let mut ragged = good.clone();
        ragged[3] = vec![1.0, 0.0, 0.0];
        assert_eq!(calibrated_min_cosine(&ragged, &good), None);
        let mut zero = good.clone();
        zero[5] = vec![0.0, 0.0];
        assert_eq!(calibrated_min_cosine(&zero, &good), None);
        assert_eq!(calibrated_min_cosine(&[], &[]), None);
    }

    #[test]
    fn lexical_or_semantic_evidence_passes() {
        let floor = RelevanceFloor::default();
        assert!(floor.admits(true, None));
        assert!(floor.admits(true, Some(0.01)));
        assert!(floor.admits(false, Some(0.25)));
        assert!(floor.admits(false, Some(0.9)));
        assert!(!floor.admits(false, Some(0.2499)));
        assert!(!floor.admits(false, None));
        assert!(!floor.admits(false, Some(f64::NAN)));
    }

    #[test]
    fn lexical_evidence_can_be_switched_off() {
        let floor = RelevanceFloor {
            lexical_match: false,
            ..RelevanceFloor::default()
        };
        assert!(!floor.admits(true, Some(0.1)));
        assert!(floor.admits(true, Some(0.3)));
    }

    #[test]
    fn off_admits_every_hit_and_every_standing_lane() {
        assert!(RelevanceFloor::OFF.admits(false, Some(-1.0)));
        assert!(RelevanceFloor::OFF.admits(true, None));
        assert!(RelevanceFloor::OFF.shows_standing(false));
        assert!(!RelevanceFloor::default().shows_standing(false));
        assert!(RelevanceFloor::default().shows_standing(true));
    }

    #[test]
    fn lane_roles() {
        assert_eq!(LaneRole::of(Lane::Semantic, false), LaneRole::QueryMatched);
        assert_eq!(LaneRole::of(Lane::RawDetail, false), LaneRole::QueryMatched);
        assert_eq!(LaneRole::of(Lane::DateWindow, true), LaneRole::Anchoring);
        assert_eq!(LaneRole::of(Lane::CatchUp, false), LaneRole::Anchoring);
        assert_eq!(LaneRole::of(Lane::Events, true), LaneRole::Anchoring);
        assert_eq!(LaneRole::of(Lane::Events, false), LaneRole::Standing);
        assert_eq!(LaneRole::of(Lane::Facts, false), LaneRole::Standing);
        assert_eq!(LaneRole::of(Lane::Importance, false), LaneRole::Standing);
        assert_eq!(LaneRole::of(Lane::Profile, false), LaneRole::Standing);
    }
}
