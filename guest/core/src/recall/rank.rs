//! From lane hits to one ranked list of memories.
//!
//! [`rank_candidates`] takes every hit the engine gathered, in any order, and
//! does, in this order:
//!
//! 1. **Fuse per lane and mind.** A searching lane's hits in one mind are
//!    two ranked lists, full-text and vector hits: [`hybrid_fuse`] merges
//!    them by their normalised scores (BM25 over the best BM25, the cosine
//!    min–max normalised, weighed equally), on the scale where a frame that
//!    is the best hit of both scores `2/60`. A listing lane's frames are one
//!    ranked list, fused by [`rrf_fuse`] with [`RRF_K`] = 60: the frame at
//!    position `r` scores `1/(60 + r)`, on the same scale. Chunk hits arrive
//!    with their frame's id: a frame hit through several chunks counts once
//!    per list, at its best position and score, and shows the best-ranked
//!    matching chunk. A raw turn whose speaker the query names
//!    ([`speaker_named_in`]) has its fused score raised by
//!    [`NAMED_SPEAKER_BOOST`]. Minds are never fused together: ids collide
//!    between minds.
//! 2. **Floor.** Hits that show no evidence of matching the query are
//!    dropped (a keyword hit must hold one of the query's words), then the
//!    recall as a whole: unless one hit *answers* ([`answers`]: an anchoring
//!    lane, a cosine well above the floor, or most of the question's
//!    words, or the reranker's recognition) nothing query-matched is kept and the nearest miss is reported
//!    ([`Ranking::near_miss`]); the standing lanes are dropped when nothing
//!    anchored the recall ([`RelevanceFloor`]). This happens *after*
//!    reranking (step 3 is run first): a hit the reranker recognises as an
//!    answer (probability ≥ [`ANSWER_RERANK_PROBABILITY`]) passes whatever
//!    the searches' evidence, and answers the recall — the cross-encoder,
//!    reading question and passage together, is the one judge that tells a
//!    paraphrased answer from a text merely on the topic.
//! 3. **Rerank** (optional, soft-fail). The best fused results of every
//!    lane the plan reranks, at most [`RankOptions::rerank_pool`] per lane
//!    and [`RERANK_TOKEN_BUDGET`] pair tokens in all (estimated, each pair
//!    at most the reranker's window, [`RankOptions::pair_tokens`]; the lanes take turns, and a passage
//!    two lanes share is read once), go to the caller's reranker in one
//!    call, and its logits become the main term of each reranked lane's
//!    *strength* (the evidence a memory matches the query):
//!
//!    `strength = w · top · 2σ(logit − best) + (1 − w) · fused`
//!
//!    with `w` = [`RERANKER_WEIGHT`] = 0.75 (less when the reranker
//!    recognises nothing in the call, its best probability under
//!    [`RERANKER_SURE`]: see `reranker_weight`), `top` the lane's best fused
//!    score, `best` the highest logit of the whole call (every reranked
//!    lane's pool) and `σ` the logistic function.
//!    A cross-encoder trained with a binary loss (the ms-marco ones) outputs
//!    a log-odds of relevance, but only its differences are to be trusted
//!    (the WIT says scores compare within one call only): trained on web
//!    search, it gives the right chat turn a probability of 0.04 where a web
//!    passage would get 0.99. So each passage is scored against the call's
//!    best: `2σ(logit − best)` is 1 for the best, ½ for a passage with a
//!    third of its odds, near 0 for one it rejects. The lane keeps its RRF
//!    scale (a passage as good as the call's best scores about its lane's
//!    best fused value), so it stays comparable with the other lanes, which are not
//!    reranked; lane members outside the pool count as unconfirmed (0).
//!    One judge for all reranked lanes: a lane whose best passage the
//!    reranker rejects next to another lane's answer scores as rejected,
//!    not as its lane's best (judged within each lane, a raw turn about
//!    invoice exports at p 0.02 tied "Maya's team keeps invoices in
//!    PostgreSQL" at p 1.00 and led it on recency). A current version
//!    found through earlier versions it replaced ([`FrameInfo::stands_for`])
//!    is read in each of them too, when the budget allows, and counts at
//!    its best reading: the question the old statement answered ("What kind
//!    of diet do I follow?" / "Maya is vegetarian.") is the current one's to
//!    answer now, in whatever words it says it. The
//!    first stage keeps a quarter: between passages the reranker scores
//!    alike, the one both searches ranked high goes first. (The reference engine replaced the final score in the pool
//!    by the reranker's; the earlier version of this engine only reordered
//!    the pool and handed the fused values out again in that order, throwing
//!    away how sure the reranker was.) When the reranker gives nothing, the
//!    wrong number of scores or a non-finite score, strength is the fused
//!    score.
//! 4. **Score.** `final = strength × multiplier`, the multiplier from
//!    [`compute_relevance`]'s four signals under the chosen
//!    [`ScoringProfile`], against the plan's `now`, bounded to ±10 % by
//!    [`relevance_multiplier`] (see [`crate::relevance`] for why: the
//!    signals re-order memories of similar evidence instead of overriding
//!    it). A frame timestamp that cannot be read counts as unknown (the
//!    `why` says so) rather than failing the whole recall.
//! 5. **Answers before background.** Memories are ordered by tier, then
//!    final score: first what the query's period anchors (the date-window
//!    lane, a windowed events lane, a catch-up), then what matched the
//!    query (semantic, raw detail), then the standing lanes (importance,
//!    profile, facts, events), which were fetched whatever the question
//!    was and so never rank above a memory that matches it. (The reference
//!    engine scored an importance-lane memory like a search hit, so the
//!    same five newest important memories topped most recalls.)
//! 6. **Cap each lane** to its [`LaneSpec::keep`], in that order.
//! 7. **Keep each frame once**, by `(mind, id)`: the first in that order
//!    keeps it — so a frame that matched the query and also stands in a
//!    standing lane is kept as the match — and the others are listed in
//!    `also_in`. Capping before deduplicating means a frame cut from one
//!    lane's top still shows if another lane kept it.
//!
//! The result is in that order (ties: lane, mind, id), each memory with a
//! `why` naming its lane, its evidence and its signals.
//!
//! [`LaneSpec::keep`]: super::LaneSpec::keep

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::floor::{
    ANSWER_RERANK_PROBABILITY, LaneRole, RelevanceFloor, answers, keyword_coverage, query_words,
    stem_coverage,
};
use super::passage::{display_text, passage_text};
use super::plan::{RERANK_PAIR_TOKENS, RERANK_POOL, RERANK_TOKEN_BUDGET, RecallPlan};
use super::{Lane, MindKey};
use crate::calendar::parse_instant;
use crate::fusion::{RRF_K, hybrid_fuse, rrf_fuse};
use crate::raw_turn::{RawTurnTag, speaker_named_in};
use crate::relevance::relevance_multiplier;
use crate::relevance::{Relevance, RelevanceInput, ScoringProfile, compute_relevance};
use crate::tokens::estimate_tokens;
use crate::types::{Importance, LogicError};

/// What ranking and rendering need to know about a frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct FrameInfo {
    /// The frame's text, prefixes included.
    pub content: String,
    /// Event time (ISO-8601, `YYYY-MM-DD…`).
    pub created_at: Option<String>,
    /// Last recalled (ISO-8601).
    pub last_accessed: Option<String>,
    /// The frame's importance.
    pub importance: Importance,
    /// Times recalled.
    pub access_count: u32,
    /// Hops in the knowledge graph from the query's entities; `None` when
    /// unknown or unreachable.
    pub graph_distance: Option<u32>,
    /// Already judged, so the recall block's injection scan skips it
    /// ([`super::assemble_recall`]): screened by the detector when it was
    /// written (a quarantined memory never gets this far), or released by
    /// its owner. False for a memory written before the detector, which the
    /// block scan still reads.
    #[serde(default)]
    pub screened: bool,
    /// The texts of earlier versions whose search hits this frame answers:
    /// recall answers a hit on a replaced memory with its current version,
    /// whose own words may differ ("I live in Lisbon" found for "Where do
    /// I live?", answered by "I moved to Porto"). The query's words are
    /// looked for in them too, and the reranker reads them (the memory
    /// counts at the best of its readings).
    #[serde(default)]
    pub stands_for: Vec<String>,
}

/// How a lane found a frame. Ranks are 0-based positions in the lane's list
/// (best first); only their order matters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LaneHit {
    /// A full-text (BM25) hit.
    Text {
        /// Position in the full-text list.
        rank: u32,
        /// The store's score (BM25 negated: higher is better).
        bm25: f64,
        /// The matching chunk's byte offsets in the content, if a chunk hit.
        chunk: Option<(u32, u32)>,
    },
    /// A vector hit.
    Vector {
        /// Position in the vector list.
        rank: u32,
        /// Cosine similarity to the query.
        cosine: f64,
        /// The matching chunk's byte offsets in the content, if a chunk hit.
        chunk: Option<(u32, u32)>,
    },
    /// A frame of a listing lane (importance, profile, facts, …).
    Listed {
        /// Position in the listing.
        rank: u32,
    },
}

impl LaneHit {
    /// The hit's position in its list.
    fn rank(&self) -> u32 {
        match *self {
            LaneHit::Text { rank, .. }
            | LaneHit::Vector { rank, .. }
            | LaneHit::Listed { rank } => rank,
        }
    }
}

/// One hit of one lane in one mind, as the engine gathered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Candidate {
    /// The mind the frame lives in.
    pub mind: MindKey,
    /// The frame's id within `mind` (for a chunk hit, the chunk's frame).
    pub frame_id: u64,
    /// The lane that found it.
    pub lane: Lane,
    /// How the lane found it.
    pub hit: LaneHit,
    /// The frame itself.
    pub frame: FrameInfo,
}

/// How much a raw turn's fused score is raised when the query names its
/// speaker: by a quarter. A question about a person is answered by what
/// that person said (in LoCoMo, 96 % of the evidence turns of questions
/// naming one speaker are that speaker's), so between two turns that match
/// the query about as well, the named speaker's goes first; a quarter is
/// less than the gap between a turn that matches and one that does not, so
/// a named speaker's chatter does not outrank another's answer.
pub const NAMED_SPEAKER_BOOST: f64 = 0.25;

/// The reranker's share of a reranked memory's strength (see the module
/// docs): the main term, with a quarter left to the first-stage evidence.
pub const RERANKER_WEIGHT: f64 = 0.75;

/// The best probability at which the reranker has its full say
/// ([`RERANKER_WEIGHT`]); below it its say shrinks in proportion.
/// ms-marco cross-encoders give a right chat turn a few percent (the
/// module docs), so 5 % is where a pool holds something they recognise.
pub const RERANKER_SURE: f64 = 0.05;

/// The least share of [`RERANKER_WEIGHT`] the reranker keeps when it
/// recognises nothing in the pool: its order still breaks near ties.
pub const RERANKER_MIN_SHARE: f64 = 0.35;

/// Options of [`rank_candidates`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RankOptions {
    /// How the relevance signals are weighted.
    pub profile: ScoringProfile,
    /// What a frame must show to be recalled.
    pub floor: RelevanceFloor,
    /// How many of a reranked lane's best fused results the reranker reads;
    /// `None`: [`RERANK_POOL`]; `Some(0)`: no reranking.
    pub rerank_pool: Option<u32>,
    /// The most tokens the reranker reads of one query/passage pair, special
    /// tokens included (its `reranker.info` window): each pair counts at
    /// most this against [`RERANK_TOKEN_BUDGET`]. `None` or `Some(0)`:
    /// [`RERANK_PAIR_TOKENS`], the shipped cross-encoder's window.
    pub rerank_pair_tokens: Option<u32>,
}

impl RankOptions {
    /// The rerank pool these options ask for.
    pub fn pool(&self) -> usize {
        self.rerank_pool.map_or(RERANK_POOL, |pool| {
            usize::try_from(pool).unwrap_or(usize::MAX)
        })
    }

    /// The most a pair counts against the rerank budget under these options.
    pub fn pair_tokens(&self) -> u64 {
        self.rerank_pair_tokens
            .filter(|&window| window > 0)
            .map_or(RERANK_PAIR_TOKENS, u64::from)
    }
}

/// Everything the winning lane knew about a frame.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Evidence {
    /// Best position in the full-text list.
    pub text_rank: Option<u32>,
    /// The BM25 score at that position.
    pub bm25: Option<f64>,
    /// Best position in the vector list.
    pub vector_rank: Option<u32>,
    /// The highest cosine similarity of the frame's vector hits.
    pub cosine: Option<f64>,
    /// Position in a listing lane.
    pub list_rank: Option<u32>,
    /// Position the reranker gave it within the rerank pool.
    pub rerank_position: Option<u32>,
    /// The reranker's probability that it answers the query, `σ(logit)`.
    pub rerank_probability: Option<f64>,
}

/// A recalled memory, ranked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RankedMemory {
    /// The mind the frame lives in.
    pub mind: MindKey,
    /// The frame's id within `mind`.
    pub frame_id: u64,
    /// The lane that kept it.
    pub lane: Lane,
    /// Other lanes that found it too, in precedence order.
    pub also_in: Vec<Lane>,
    /// How the keeping lane found it.
    pub evidence: Evidence,
    /// The matching chunk's byte offsets, when a chunk matched.
    pub chunk: Option<(u32, u32)>,
    /// The lane's fused (RRF) score.
    pub fused: f64,
    /// The evidence it matches: `fused`, or with the reranker's probability
    /// as the main term (see the module docs).
    pub strength: f64,
    /// The relevance signals and their (reference) weighted sum.
    pub relevance: Relevance,
    /// The bounded factor the signals give ([`relevance_multiplier`]).
    pub multiplier: f64,
    /// `strength × multiplier`: the ranking key.
    pub score: f64,
    /// Why it was recalled: lane, evidence, signals.
    pub why: String,
    /// The frame.
    pub frame: FrameInfo,
    /// A newer recalled memory says something that may replace this one
    /// ([`super::order_changes`]): it is shown after that one, marked
    /// earlier.
    #[serde(default)]
    pub earlier: bool,
    /// Kept from a standing lane (importance, profile, facts, events
    /// outside a window): fetched whatever the query was, so it is
    /// background to the memories the query found.
    #[serde(default)]
    pub background: bool,
}

/// What ranking returns: the memories, best first, and when nothing
/// answered the query, the nearest miss.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// The ranked memories (see [`rank_candidates`]).
    pub memories: Vec<RankedMemory>,
    /// When no hit answered the query ([`answers`]): the nearest
    /// query-matched hit, so the caller can say what was left out and how
    /// to ask for it.
    pub near_miss: Option<NearMiss>,
}

/// The nearest hit of a recall that returned no answer.
#[derive(Debug, Clone, PartialEq)]
pub struct NearMiss {
    /// Its mind.
    pub mind: MindKey,
    /// Its frame id.
    pub frame_id: u64,
    /// Its text as shown (storage prefixes removed).
    pub text: String,
    /// Its best cosine, if the vector search found it.
    pub cosine: Option<f64>,
    /// The share of the query's words it holds.
    pub keyword_share: f64,
}

/// One frame's fused result within one lane.
struct Entry {
    lane: Lane,
    mind: MindKey,
    id: u64,
    fused: f64,
    strength: f64,
    evidence: Evidence,
    chunk: Option<(u32, u32)>,
    frame: FrameInfo,
}

/// What one lane of one mind knew about one frame while fusing.
struct Gathered {
    evidence: Evidence,
    text_chunk: Option<(u32, u32)>,
    vector_chunk: Option<(u32, u32)>,
    frame: FrameInfo,
}

/// Rank the gathered hits of a recall (see the module documentation).
///
/// `rerank` is the caller's cross-encoder: given the passages of the
/// reranked lanes' pools, it returns one score per passage (higher is more
/// relevant) or `None` when no reranker is available or it failed; it is
/// called at most once, when a reranked lane has anything to rerank.
/// Candidates of lanes the plan does not run are ignored.
///
/// Fails with [`LogicError::InvalidArgument`] only when the plan's `now`
/// cannot be read.
pub fn rank_recall<R>(
    plan: &RecallPlan,
    candidates: Vec<Candidate>,
    options: &RankOptions,
    mut rerank: R,
) -> Result<Ranking, LogicError>
where
    R: FnMut(&[&str]) -> Option<Vec<f32>>,
{
    parse_instant(&plan.now).map_err(|LogicError::InvalidArgument(why)| {
        LogicError::InvalidArgument(format!("now: {why}"))
    })?;

    // 1. Fuse per (lane, mind).
    let mut groups: BTreeMap<(Lane, MindKey), Vec<Candidate>> = BTreeMap::new();
    for candidate in candidates {
        if plan.lane(candidate.lane).is_some() {
            groups
                .entry((candidate.lane, candidate.mind.clone()))
                .or_default()
                .push(candidate);
        }
    }
    let mut entries: Vec<Entry> = groups
        .into_iter()
        .flat_map(|((lane, mind), hits)| fuse_group(lane, mind, hits, &plan.query))
        .collect();

    // 2. Floor.
    let role = |lane: Lane| lane_role(plan, lane);
    let floor = options.floor;
    let words = query_words(&plan.query);
    // The share of the query's words a hit holds, in its shown text or an
    // earlier version it stands for. A full-text hit whose shown text
    // holds none matched elsewhere (its stored content, reply
    // context included, or a stem the prefix test misses: "called" /
    // "calls"): its coverage is read there, on shorter stems. Never more:
    // a hit counted as holding words it does not hold opens the answer
    // gate to a question nothing answers ("What is our cat called?" →
    // "Aga prefers Teams calls").
    let coverage = |entry: &Entry| {
        let shown = keyword_coverage(&words, &passage_text(&entry.frame.content, None));
        let held = entry
            .frame
            .stands_for
            .iter()
            .map(|text| keyword_coverage(&words, text))
            .fold(shown, f64::max);
        if held == 0.0 && entry.evidence.text_rank.is_some() {
            stem_coverage(&words, &entry.frame.content)
        } else {
            held
        }
    };
    // The nearest query-matched hit, in case nothing answers.
    let nearest = entries
        .iter()
        .filter(|entry| role(entry.lane) == LaneRole::QueryMatched)
        .max_by(|a, b| {
            a.evidence
                .cosine
                .unwrap_or(f64::NEG_INFINITY)
                .total_cmp(&b.evidence.cosine.unwrap_or(f64::NEG_INFINITY))
                .then(a.fused.total_cmp(&b.fused))
        })
        .map(|entry| NearMiss {
            mind: entry.mind.clone(),
            frame_id: entry.id,
            text: display_text(&entry.frame.content, entry.chunk),
            cosine: entry.evidence.cosine,
            keyword_share: coverage(entry),
        });
    // 3. Rerank: one call for every reranked lane. Before the floor: a
    // hit the searches place below it may be the answer in other words
    // ("who is our most important client?" / "our biggest customer is Van
    // Dijk"), which the cross-encoder, reading both together, recognises.
    let pool = options.pool();
    if pool > 0 {
        rerank_lanes(plan, pool, options.pair_tokens(), &mut entries, &mut rerank);
    }
    entries.retain(|entry| match role(entry.lane) {
        LaneRole::QueryMatched => {
            floor.admits(
                entry.evidence.text_rank.is_some() && coverage(entry) > 0.0,
                entry.evidence.cosine,
            ) || recognised(floor, entry.evidence.rerank_probability)
        }
        LaneRole::Anchoring | LaneRole::Standing => true,
    });

    // Recall as a whole: nothing is returned unless something answers (the
    // reranker's reading counts, so this comes after it).
    let answered = entries.iter().any(|entry| match role(entry.lane) {
        LaneRole::Anchoring => true,
        LaneRole::QueryMatched => answers(
            &floor,
            false,
            coverage(entry),
            entry.evidence.cosine,
            entry.evidence.rerank_probability,
        ),
        LaneRole::Standing => false,
    });
    if !answered {
        entries.retain(|entry| role(entry.lane) == LaneRole::Standing);
    }
    let near_miss = (!answered).then_some(nearest).flatten();
    let anchored = entries
        .iter()
        .any(|entry| role(entry.lane) != LaneRole::Standing);
    if !floor.shows_standing(anchored) {
        entries.retain(|entry| role(entry.lane) != LaneRole::Standing);
    }

    // 4. Score.
    let mut scored: Vec<RankedMemory> = entries
        .into_iter()
        .map(|entry| score_entry(entry, plan, options.profile))
        .collect::<Result<_, _>>()?;

    // 5. Cap each lane.
    // Answers before background: what the query's period anchors, then
    // what matched the query, then the standing lanes, each best first.
    // Sorting by tier before the lane caps and the dedup also means a frame
    // that both matched the query and stands in a standing lane is kept as
    // the match.
    let tier = |lane: Lane| match role(lane) {
        LaneRole::Anchoring => 0u8,
        LaneRole::QueryMatched => 1,
        LaneRole::Standing => 2,
    };
    scored.sort_by(|a, b| {
        tier(a.lane)
            .cmp(&tier(b.lane))
            .then_with(|| ranking_order(a, b))
    });
    let mut kept_per_lane: HashMap<Lane, u32> = HashMap::new();
    scored.retain(|memory| {
        let keep = plan.lane(memory.lane).map_or(0, |spec| spec.keep);
        let kept = kept_per_lane.entry(memory.lane).or_insert(0);
        *kept += 1;
        *kept <= keep
    });

    // 6. Keep each frame once; `scored` is best first, so the first seen wins.
    let mut also_in: HashMap<(MindKey, u64), BTreeSet<Lane>> = HashMap::new();
    for memory in &scored {
        also_in
            .entry((memory.mind.clone(), memory.frame_id))
            .or_default()
            .insert(memory.lane);
    }
    let mut seen: BTreeSet<(MindKey, u64)> = BTreeSet::new();
    scored.retain(|memory| seen.insert((memory.mind.clone(), memory.frame_id)));
    for memory in &mut scored {
        if let Some(lanes) = also_in.get(&(memory.mind.clone(), memory.frame_id)) {
            memory.also_in = lanes
                .iter()
                .copied()
                .filter(|&l| l != memory.lane)
                .collect();
        }
        if !memory.also_in.is_empty() {
            let names: Vec<&str> = memory.also_in.iter().map(|lane| lane.as_str()).collect();
            let _ = write!(memory.why, "; also in {}", names.join(", "));
        }
    }
    Ok(Ranking {
        memories: scored,
        near_miss,
    })
}

/// [`rank_recall`]'s memories alone.
pub fn rank_candidates<R>(
    plan: &RecallPlan,
    candidates: Vec<Candidate>,
    options: &RankOptions,
    rerank: R,
) -> Result<Vec<RankedMemory>, LogicError>
where
    R: FnMut(&[&str]) -> Option<Vec<f32>>,
{
    rank_recall(plan, candidates, options, rerank).map(|ranking| ranking.memories)
}

/// The ranking order: final score descending, then lane precedence, mind
/// and id.
fn ranking_order(a: &RankedMemory, b: &RankedMemory) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then(a.lane.cmp(&b.lane))
        .then_with(|| a.mind.cmp(&b.mind))
        .then(a.frame_id.cmp(&b.frame_id))
}

/// Fuse one lane's hits in one mind (a search's by [`hybrid_fuse`], a
/// listing's by [`rrf_fuse`]), raising the raw turns whose speaker `query`
/// names.
fn fuse_group(lane: Lane, mind: MindKey, mut hits: Vec<Candidate>, query: &str) -> Vec<Entry> {
    // Stable: equal ranks keep the order they were given in.
    hits.sort_by_key(|candidate| candidate.hit.rank());
    let mut text: Vec<(u64, f64)> = Vec::new();
    let mut vector: Vec<(u64, f64)> = Vec::new();
    let mut listed = Vec::new();
    let mut gathered: HashMap<u64, Gathered> = HashMap::new();
    for Candidate {
        frame_id,
        hit,
        frame,
        ..
    } in hits
    {
        let slot = gathered.entry(frame_id).or_insert_with(|| Gathered {
            evidence: Evidence::default(),
            text_chunk: None,
            vector_chunk: None,
            frame,
        });
        match hit {
            LaneHit::Text { rank, bm25, chunk } => {
                text.push((frame_id, bm25));
                if slot.evidence.text_rank.is_none() {
                    slot.evidence.text_rank = Some(rank);
                    slot.evidence.bm25 = Some(bm25);
                    slot.text_chunk = chunk;
                }
            }
            LaneHit::Vector {
                rank,
                cosine,
                chunk,
            } => {
                vector.push((frame_id, cosine));
                if slot.evidence.vector_rank.is_none() {
                    slot.evidence.vector_rank = Some(rank);
                    slot.vector_chunk = chunk;
                }
                if !cosine.is_nan() {
                    slot.evidence.cosine =
                        Some(slot.evidence.cosine.map_or(cosine, |best| best.max(cosine)));
                }
            }
            LaneHit::Listed { rank } => {
                listed.push(frame_id);
                slot.evidence.list_rank.get_or_insert(rank);
            }
        }
    }
    // A lane either searches or lists (the plan's `Fetch`); were a group
    // to hold both, the listing's RRF terms add to the search's scores.
    let searched = hybrid_fuse(&text, &vector);
    let ranked = rrf_fuse(&[listed], RRF_K);
    let fused = if ranked.is_empty() || searched.is_empty() {
        if ranked.is_empty() { searched } else { ranked }
    } else {
        let mut sums: HashMap<u64, f64> = HashMap::new();
        for scored in searched.iter().chain(&ranked) {
            *sums.entry(scored.id).or_insert(0.0) += scored.score;
        }
        let mut merged: Vec<crate::types::ScoredId> = sums
            .into_iter()
            .map(|(id, score)| crate::types::ScoredId { id, score })
            .collect();
        merged.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        merged
    };
    fused
        .into_iter()
        .filter_map(|fused| {
            let found = gathered.remove(&fused.id)?;
            let named = RawTurnTag::parse(&found.frame.content)
                .is_some_and(|tag| speaker_named_in(query, &tag.speaker));
            let score = if named {
                fused.score * (1.0 + NAMED_SPEAKER_BOOST)
            } else {
                fused.score
            };
            Some(Entry {
                lane,
                mind: mind.clone(),
                id: fused.id,
                fused: score,
                strength: score,
                evidence: found.evidence,
                chunk: found.vector_chunk.or(found.text_chunk),
                frame: found.frame,
            })
        })
        .collect()
}

/// How the floor and the order treat `lane` in `plan` (date-filtered there
/// or not).
fn lane_role(plan: &RecallPlan, lane: Lane) -> LaneRole {
    LaneRole::of(
        lane,
        plan.lane(lane).is_some_and(|spec| spec.is_date_filtered()),
    )
}

/// Let the reranker score the best fused results of every lane the plan
/// reranks, in one call, and set those lanes' strengths (see the module
/// documentation); on any failure strengths stay the fused scores.
///
/// Each lane's pool is a prefix of its fused order, at most `pool_size`
/// long; each pair costs its estimated tokens, at most `pair_tokens`. The pools grow in turns, one position per lane in precedence
/// order, until the next passage of a lane no longer fits in what is left
/// of [`RERANK_TOKEN_BUDGET`] (that lane's pool stops there; the first pair
/// always fits, however long). A passage two lanes share (the same chunk of
/// the same frame) is read once and costs once: on a mind of chat turns the
/// semantic and raw-detail lanes rank much the same turns, and scoring them
/// twice spent half the budget on repeats. The turns matter because a lane
/// left out would compete at its full fused strength against lanes whose
/// strengths the reranker had re-scaled, and its best fused result would
/// win on that alone.
fn rerank_lanes<R>(
    plan: &RecallPlan,
    pool_size: usize,
    pair_tokens: u64,
    entries: &mut [Entry],
    rerank: &mut R,
) where
    R: FnMut(&[&str]) -> Option<Vec<f32>>,
{
    // Each reranked lane's members, best fused first.
    let lanes: Vec<(Lane, Vec<usize>)> = plan
        .lanes
        .iter()
        .filter(|spec| spec.rerank)
        .map(|spec| {
            let mut members: Vec<(usize, &Entry)> = entries
                .iter()
                .enumerate()
                .filter(|(_, entry)| entry.lane == spec.lane)
                .collect();
            members.sort_by(|(_, a), (_, b)| {
                b.fused
                    .total_cmp(&a.fused)
                    .then_with(|| a.mind.cmp(&b.mind))
                    .then(a.id.cmp(&b.id))
            });
            let members: Vec<usize> = members.into_iter().map(|(index, _)| index).collect();
            (spec.lane, members)
        })
        .filter(|(_, members)| !members.is_empty())
        .collect();
    if lanes.is_empty() {
        return;
    }

    // Grow the pools in turns within the budget.
    let query_tokens = estimate_tokens(&plan.query);
    // A pair's estimated tokens, at most the reranker's window.
    let pair_cost = |passage: &str| (query_tokens + estimate_tokens(passage) + 3).min(pair_tokens);
    let mut passages: Vec<String> = Vec::new();
    let mut slots: HashMap<PassageKey, usize> = HashMap::new();
    // Per lane: (entry, passage slots) of each pool member, in fused order,
    // and whether the pool still grows. A member's first slot is its own
    // passage; the others are the earlier versions it answers for.
    let mut pools: Vec<(Vec<PoolMember>, bool)> = vec![(Vec::new(), true); lanes.len()];
    let mut spent = 0;
    for position in 0..pool_size {
        for ((_, members), (pool, open)) in lanes.iter().zip(pools.iter_mut()) {
            if !*open {
                continue;
            }
            let Some((member, entry)) = members
                .get(position)
                .and_then(|&member| Some((member, entries.get(member)?)))
            else {
                *open = false;
                continue;
            };
            let key = (entry.mind.clone(), entry.id, entry.chunk, 0);
            if let Some(&slot) = slots.get(&key) {
                let mut read = vec![slot];
                read.extend((1..=entry.frame.stands_for.len()).filter_map(|version| {
                    slots
                        .get(&(entry.mind.clone(), entry.id, None, version))
                        .copied()
                }));
                pool.push((member, read));
                continue;
            }
            let passage = passage_text(&entry.frame.content, entry.chunk);
            let cost = pair_cost(&passage);
            if spent + cost > RERANK_TOKEN_BUDGET && !passages.is_empty() {
                *open = false;
                continue;
            }
            spent += cost;
            slots.insert(key, passages.len());
            let mut read = vec![passages.len()];
            passages.push(passage);
            // The earlier versions a search found, read too when they fit:
            // a question the old statement answered ("What kind of diet do
            // I follow?" / "Maya is vegetarian.") is answered now by the
            // current one, whose words may not show it ("she's pescatarian
            // now").
            for (version, earlier) in entry.frame.stands_for.iter().enumerate() {
                let passage = passage_text(earlier, None);
                let cost = pair_cost(&passage);
                if spent + cost > RERANK_TOKEN_BUDGET {
                    break;
                }
                spent += cost;
                slots.insert(
                    (entry.mind.clone(), entry.id, None, version + 1),
                    passages.len(),
                );
                read.push(passages.len());
                passages.push(passage);
            }
            pool.push((member, read));
        }
        if !pools.iter().any(|(_, open)| *open) {
            break;
        }
    }

    let passage_refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    let Some(scores) = rerank(&passage_refs) else {
        return;
    };
    if scores.len() != passages.len() || scores.iter().any(|score| !score.is_finite()) {
        return;
    }
    // One judge for the whole call: every lane's passages are read against
    // the call's best, so a lane whose best the reranker rejects does not
    // score like a lane whose best it recognises.
    let best = scores
        .iter()
        .map(|&score| f64::from(score))
        .fold(f64::NEG_INFINITY, f64::max);
    for ((lane, _), (pool, _)) in lanes.iter().zip(&pools) {
        apply_rerank(*lane, pool, &scores, best, entries);
    }
}

/// A member of a lane's rerank pool: its entry and the slots of the
/// passages read for it (its own first, then earlier versions).
type PoolMember = (usize, Vec<usize>);

/// A passage of the rerank call: which chunk (or the whole frame, `None`) of
/// which frame of which mind, and which of its texts (0: its own, `n`: the
/// `n`th earlier version it answers for, [`FrameInfo::stands_for`]).
type PassageKey = (MindKey, u64, Option<(u32, u32)>, usize);

/// Set one reranked lane's strengths from the scores of its pool: `pool`
/// holds the pool's entries in fused order, each with its passages' slots
/// in `scores` (its own first, then earlier versions it answers for; it
/// counts at the best of them); `best` is the call's highest logit, every
/// lane's included.
fn apply_rerank(lane: Lane, pool: &[PoolMember], scores: &[f32], best: f64, entries: &mut [Entry]) {
    let Some(top) = pool
        .first()
        .and_then(|(first, _)| entries.get(*first))
        .map(|entry| entry.fused)
    else {
        return;
    };
    // (entry, logit) of the pool, ordered by the reranker; stable, so ties
    // keep the fused order. `rerank` checked that every slot has a score.
    let mut order: Vec<(usize, f64)> = pool
        .iter()
        .filter_map(|(member, slots)| {
            let logit = slots
                .iter()
                .filter_map(|&slot| scores.get(slot).map(|&score| f64::from(score)))
                .reduce(f64::max)?;
            Some((*member, logit))
        })
        .collect();
    order.sort_by(|(_, a), (_, b)| b.total_cmp(a));
    let weight = reranker_weight(logistic(best));
    // The lane's members outside the pool are unconfirmed: σ = 0.
    for entry in entries.iter_mut().filter(|entry| entry.lane == lane) {
        entry.strength = (1.0 - weight) * entry.fused;
    }
    for (position, &(member, logit)) in order.iter().enumerate() {
        let relative = 2.0 * logistic(logit - best);
        let Some(entry) = entries.get_mut(member) else {
            continue;
        };
        entry.strength = weight * top * relative + (1.0 - weight) * entry.fused;
        entry.evidence.rerank_position = u32::try_from(position).ok();
        entry.evidence.rerank_probability = Some(logistic(logit));
    }
}

/// `1 / (1 + e^−x)`: a log-odds as a probability.
/// The reranker's say in a pool whose best passage it gives probability
/// `best`: [`RERANKER_WEIGHT`] when it recognises an answer in the pool
/// (`best` ≥ [`RERANKER_SURE`]), less as its best guess gets weaker, down to
/// [`RERANKER_MIN_SHARE`] of it. A cross-encoder trained on web search that
/// finds no passage relevant (every probability ≈ 0) still ranks them, and
/// scoring them against the best (`2σ(logit − best)`) would treat its
/// near-random pick as certain: it moved "I'm planning a trip to Kyoto"
/// (p 0.01) above "I booked a small ryokan near Gion" (p 0.00), the first
/// hit of both searches, for "Which hotel did I book in Kyoto?".
fn reranker_weight(best: f64) -> f64 {
    let confidence = if best.is_finite() {
        (best / RERANKER_SURE).clamp(RERANKER_MIN_SHARE, 1.0)
    } else {
        RERANKER_MIN_SHARE
    };
    RERANKER_WEIGHT * confidence
}

/// Whether the reranker recognised a hit as an answer, which admits it
/// whatever the searches' evidence (not when the floor is off: then
/// everything is admitted anyway).
fn recognised(floor: RelevanceFloor, probability: Option<f64>) -> bool {
    floor.min_cosine > f64::NEG_INFINITY
        && probability.is_some_and(|p| p >= ANSWER_RERANK_PROBABILITY)
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Score one entry: relevance, final score and the `why`.
fn score_entry(
    entry: Entry,
    plan: &RecallPlan,
    profile: ScoringProfile,
) -> Result<RankedMemory, LogicError> {
    let readable = |time: &Option<String>| {
        time.as_deref()
            .filter(|text| parse_instant(text).is_ok())
            .map(str::to_string)
    };
    let created_at = readable(&entry.frame.created_at);
    let last_accessed = readable(&entry.frame.last_accessed);
    let mut unreadable = Vec::new();
    if created_at.is_none() && entry.frame.created_at.is_some() {
        unreadable.push("created-at");
    }
    if last_accessed.is_none() && entry.frame.last_accessed.is_some() {
        unreadable.push("last-accessed");
    }
    let relevance = compute_relevance(
        &RelevanceInput {
            created_at,
            last_accessed,
            now: plan.now.clone(),
            access_count: entry.frame.access_count,
            graph_distance: entry.frame.graph_distance,
            importance: entry.frame.importance,
        },
        profile,
    )?;
    let multiplier = relevance_multiplier(&relevance, profile);
    let score = entry.strength * multiplier;
    let why = why_text(&entry, plan, &relevance, multiplier, score, &unreadable);
    Ok(RankedMemory {
        mind: entry.mind,
        frame_id: entry.id,
        lane: entry.lane,
        also_in: Vec::new(),
        evidence: entry.evidence,
        chunk: entry.chunk,
        fused: entry.fused,
        strength: entry.strength,
        relevance,
        multiplier,
        score,
        why,
        background: lane_role(plan, entry.lane) == LaneRole::Standing,
        frame: entry.frame,
        earlier: false,
    })
}

/// "semantic: bm25 #1, vector #3 (cosine 0.62), reranked #1 (p 0.93);
/// strength 0.0310 (fused 0.0331) × relevance 1.040 (temporal 1.00, …) =
/// 0.0322". Positions are shown 1-based.
fn why_text(
    entry: &Entry,
    plan: &RecallPlan,
    relevance: &Relevance,
    multiplier: f64,
    score: f64,
    unreadable: &[&str],
) -> String {
    let mut why = String::from(entry.lane.as_str());
    if let Some(spec) = plan.lane(entry.lane)
        && spec.is_date_filtered()
    {
        let since = spec.since.as_deref().unwrap_or("…");
        let until = spec.until.as_deref().unwrap_or("…");
        // A memory written outside the period is in it by a day its text
        // names (the store's date index): say so, or its date would look
        // like a mistake next to the period.
        let day = entry
            .frame
            .created_at
            .as_deref()
            .and_then(|at| at.get(..10));
        let written_outside = day.is_some_and(|day| {
            spec.since.as_deref().is_some_and(|since| day < since)
                || spec.until.as_deref().is_some_and(|until| day > until)
        });
        let named = if written_outside {
            ", by a day its text names"
        } else {
            ""
        };
        let _ = write!(why, " ({since}..{until}{named})");
    }
    let e = &entry.evidence;
    let mut found = Vec::new();
    if let Some(rank) = e.text_rank {
        found.push(format!("bm25 #{}", u64::from(rank) + 1));
    }
    if let Some(rank) = e.vector_rank {
        let cosine = e
            .cosine
            .map_or(String::new(), |c| format!(" (cosine {c:.2})"));
        found.push(format!("vector #{}{cosine}", u64::from(rank) + 1));
    }
    if let Some(rank) = e.list_rank {
        found.push(format!("listed #{}", u64::from(rank) + 1));
    }
    if let Some(position) = e.rerank_position {
        let probability = e
            .rerank_probability
            .map_or(String::new(), |p| format!(" (p {p:.2})"));
        found.push(format!(
            "reranked #{}{probability}",
            u64::from(position) + 1
        ));
    }
    let strength = if entry.strength == entry.fused {
        format!("fused {:.4}", entry.fused)
    } else {
        format!("strength {:.4} (fused {:.4})", entry.strength, entry.fused)
    };
    let _ = write!(
        why,
        ": {}; {strength} × relevance {:.3} (temporal {:.2}, popularity {:.2}, contextual {:.2}, importance {:.2}) = {:.4}",
        found.join(", "),
        multiplier,
        relevance.temporal,
        relevance.popularity,
        relevance.contextual,
        relevance.importance,
        score
    );
    if !unreadable.is_empty() {
        let _ = write!(why, "; unreadable {} ignored", unreadable.join(" and "));
    }
    why
}

#[cfg(test)]
mod tests;
