//! Which lanes a query runs, and how each one asks the store.
//!
//! The numbers here come from two places. Where the design document gives
//! one (`memory-system.md` §4), it is used as is: the importance lane's K = 5,
//! the facts lane's cap of 60 (oldest first), the events lane's cap of 40.
//! Where the design is silent, the reference engine's constants
//! (`reference-constants.md`, *Scoring*) are used: the default limit of 20,
//! `limit × 10` hits when a date window filters, a rerank pool of 30. Two
//! depart from it, measured, with the reasons next to them: each search
//! fetches `limit × 4`, not × 2 ([`SEARCH_FETCH_MULTIPLIER`]: the normalised
//! fusion gains from depth where RRF lost), and the reranker reads at most
//! [`RERANK_TOKEN_BUDGET`] pair tokens per recall. The profile and
//! raw-detail caps appear in neither; their values are this module's own
//! and say why next to them.

use serde::{Deserialize, Serialize};

use super::Lane;
use crate::calendar::{format_date, parse_instant, parse_local_date};
use crate::catch_up::detect_catch_up;
use crate::dates::{ResolvedDate, resolve_date_window, resolve_relative_date};
use crate::types::{DateWindow, Importance, LogicError};

/// How many memories a recall returns from its query lanes when the caller
/// asks for 0 (reference engine: default limit 20).
pub const DEFAULT_RECALL_LIMIT: u32 = 20;

/// Each search (keyword and vector alike) fetches `limit ×` this many hits,
/// so that fusion, the floor, the reranker and relevance scoring have more
/// than `limit` to choose from (reference engine: 2). Under RRF deeper was
/// worse (at 4, LoCoMo with the reranker off lost S@10 93.9 → 92.6: the
/// fused list's tail filled with items one search ranks low and the other
/// moderately, which RRF summed past a strong single-search match). The
/// normalised fusion ([`crate::fusion::hybrid_fuse`]) scores a hit by how
/// well it matched, not by how many lists it is in, so a deeper list only
/// adds candidates, and the vector scores' min–max gets a floor that is
/// really far from the query. Measured on LoCoMo (`hive-mind-lab eval locomo
/// --rerank off`, bge-small), multipliers 2 / 3 / 5: session R@1 69.9 /
/// 70.6 / 70.6, R@10 95.3 / 95.8 / 96.4, turn R@10 74.9 / 75.1 / 75.7; at
/// 10,000 memories (`hive-mind-lab bench recall`, interleaved runs) 4 costs
/// about 6 % of recall's p50 over 2. 4 takes most of the gain for little of
/// the cost.
pub const SEARCH_FETCH_MULTIPLIER: u32 = 4;

/// A search restricted to a date window fetches `limit ×` this many hits:
/// a period holds few frames that also rank high for the query's words, so
/// the window lane looks deeper (reference engine).
pub const DATE_WINDOW_FETCH_MULTIPLIER: u32 = 10;

/// How many of a reranked lane's best fused results the cross-encoder reads,
/// at most (reference engine: 30). Fewer when [`RERANK_TOKEN_BUDGET`] runs
/// out first.
pub const RERANK_POOL: usize = 30;

/// The pair tokens (query + passage + 3 special tokens, each pair counted at
/// most the reranker's window, [`RERANK_PAIR_TOKENS`] when it reports none) one recall's reranking may read, all its
/// reranked lanes together: each lane's pool is its best fused results that
/// fit in what is left. A cross-encoder's cost is linear in pair tokens:
/// the shipped 12-layer MiniLM does ~42 MFLOP per token, and measured on
/// this project's 2-core machine a recall spends ~0.35 ms per pair token.
///
/// Why 896, about twenty chat turns of ~45 tokens with their question: the
/// reranker can only promote what is in its pool. Members outside it count
/// as unconfirmed, so a pool the size of the answer (ten memories) lets it
/// reorder the first stage's top ten but never bring in an answer the first
/// stage ranked eleventh; twice the answer's size lets it choose the best
/// ten of twenty. Measured on LoCoMo (`hive-mind-lab eval locomo`, bge-small):
/// at 448 tokens turn R@10 74.9 % and session R@10 95.4 %, at 896 75.9 % and
/// 96.1 %, S@1 unchanged (76.3 → 76.8). The price, at 10,000 memories
/// (`hive-mind-lab bench recall --rerank`): p50 374 ms, p95 525 ms, inside the
/// second an interactive turn can spend (a machine half as fast would be at
/// the second). The engine does not know the host's machine; `rerank-pool`
/// trades it per recall.
pub const RERANK_TOKEN_BUDGET: u64 = 896;

/// The most tokens a pair counts for against [`RERANK_TOKEN_BUDGET`] when
/// the reranker reports no window of its own (`reranker.info` answering 0,
/// or failing). A pair costs what the model reads of it, and the host's
/// cross-encoder cuts every pair at its window, so the engine plans each
/// recall with the window the host's `reranker.info` reports
/// ([`super::RankOptions::rerank_pair_tokens`]): a host configured for 512
/// tokens spends the same budget on fewer, longer pairs instead of running
/// four times the planned cost. 128 is the window the shipped
/// ms-marco-MiniLM-L-12-v2 reports as both hosts configure it (its training
/// passages' length; see `DEFAULT_MAX_TOKENS` in the Rust host's reranker),
/// so the shipped model's budget holds 896 / 128 = 7 full pairs, as the
/// figures above were measured.
pub const RERANK_PAIR_TOKENS: u64 = 128;

/// The importance lane's K: the most recent critical and important frames
/// surface on every query, this many of them (design §4, step 2).
pub const IMPORTANCE_LANE_LIMIT: u32 = 5;

/// The least importance the importance lane fetches (design §4, step 2:
/// "Critical/Important frames").
pub const IMPORTANCE_LANE_MIN: Importance = Importance::Important;

/// The least importance a catch-up fetch returns: a catch-up asks for what
/// matters, not for everything recent (design §4, step 1).
pub const CATCH_UP_MIN_IMPORTANCE: Importance = Importance::Important;

/// The facts lane's cap, fetched oldest first (design §4, step 6).
pub const FACTS_LANE_LIMIT: u32 = 60;

/// The events lane's cap (design §4, step 7). The lane fetches the *most
/// recent* events and the recall block shows them chronologically: fetching
/// the oldest 40 instead would freeze the lane on the first weeks of a long
/// history.
pub const EVENTS_LANE_LIMIT: u32 = 40;

/// The profile lane's cap. Neither the design nor the reference constants
/// give one; profile frames are replaced on update, one per person (design
/// §3), so a handful is the normal case and the cap only stops a runaway.
pub const PROFILE_LANE_LIMIT: u32 = 10;

/// How many verbatim excerpts the raw-detail lane keeps. Not given by the
/// design; raw turns are long and are there to back the distilled memories
/// with exact wording, so a few of the best-matching ones are enough, and
/// more would crowd the block.
pub const RAW_DETAIL_LANE_LIMIT: u32 = 5;

/// Content prefix of profile frames (`[mind-profile NAME] …`).
pub const PROFILE_PREFIX: &str = "[mind-profile";

/// Content prefix of fact frames (`[mind-fact] …`).
pub const FACT_PREFIX: &str = "[mind-fact]";

/// Content prefix of event frames (`[mind-event] [YYYY-MM-DD] …`).
pub const EVENT_PREFIX: &str = "[mind-event]";

/// Content prefix of raw conversation turns
/// (`[mind-rawturn conv:KEY turn:N speaker:S] …`).
pub const RAW_TURN_PREFIX: &str = "[mind-rawturn";

/// How a lane gets its frames from the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fetch {
    /// Full-text (BM25) search and vector search with the query, each
    /// fetching `limit` hits; the two lists are fused by RRF.
    Search {
        /// Hits to fetch from each of the two searches.
        limit: u32,
    },
    /// A filtered listing without a text query.
    List {
        /// Oldest first (`true`) or newest first.
        oldest_first: bool,
        /// Frames to fetch.
        limit: u32,
    },
}

/// One lane of a recall plan: what to ask the store and how much of it to
/// keep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LaneSpec {
    /// The lane.
    pub lane: Lane,
    /// Search or listing, and how many.
    pub fetch: Fetch,
    /// Only frames whose content starts with this prefix.
    pub content_prefix: Option<String>,
    /// Only frames of at least this importance.
    pub min_importance: Option<Importance>,
    /// Only frames whose event time is on or after this day (`YYYY-MM-DD`).
    pub since: Option<String>,
    /// Only frames whose event time is on or before this day (inclusive).
    pub until: Option<String>,
    /// At most this many of the lane's frames (over all minds together)
    /// survive ranking.
    pub keep: u32,
    /// Whether the cross-encoder reorders the top of this lane.
    pub rerank: bool,
}

impl LaneSpec {
    /// Whether the lane is narrowed to a calendar period. Such a lane's
    /// frames are relevant by date, whatever their words say.
    pub fn is_date_filtered(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }
}

/// What recall will do for one query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RecallPlan {
    /// The query as given.
    pub query: String,
    /// The time recency is scored against (ISO-8601), as given.
    pub now: String,
    /// The local calendar date of `now`, `YYYY-MM-DD`.
    pub today: String,
    /// How many memories the query lanes return.
    pub limit: u32,
    /// The query asks to be brought up to date: importance-based fetch
    /// instead of semantic search, and no reranking.
    pub catch_up: bool,
    /// The calendar period the query names, if any: an absolute one ("May
    /// 2026") or one said relative to `now` ("last March", "spring 2026",
    /// "the past two weeks"), resolved against `now` by
    /// [`resolve_date_window`].
    pub date_window: Option<DateWindow>,
    /// The first relative date cue of the query ("yesterday", "last
    /// Friday"), resolved against `today`; used to help the model read the
    /// query, not to filter. None when the cue is part of the words that
    /// named `date_window` ("last week"): the window says it better.
    pub relative_date: Option<ResolvedDate>,
    /// The lanes to run, in precedence order.
    pub lanes: Vec<LaneSpec>,
}

impl RecallPlan {
    /// The plan's spec for a lane, if the plan runs it.
    pub fn lane(&self, lane: Lane) -> Option<&LaneSpec> {
        self.lanes.iter().find(|spec| spec.lane == lane)
    }
}

/// Plan the recall of `query` at time `now` returning up to `limit`
/// memories from its query lanes (`0` means [`DEFAULT_RECALL_LIMIT`]).
///
/// The lanes (design §4):
///
/// - an ordinary query runs **semantic** (hybrid search, reranked), the
///   **importance** lane (the [`IMPORTANCE_LANE_LIMIT`] newest frames of at
///   least [`IMPORTANCE_LANE_MIN`]), **raw-detail** (hybrid search over raw
///   turns, reranked), **profile**, **facts** (oldest first) and **events**;
/// - a **catch-up** query replaces semantic search with an importance-based
///   fetch (newest frames of at least [`CATCH_UP_MIN_IMPORTANCE`]), drops the
///   importance lane (the catch-up fetch contains it) and raw-detail (a
///   catch-up names no topic whose wording could be looked up), and reranks
///   nothing;
/// - a query naming a period, absolute or relative to `now` (see
///   [`resolve_date_window`]), adds the **date-window** lane (the hybrid
///   search limited to the period, fetching `limit ×`
///   [`DATE_WINDOW_FETCH_MULTIPLIER`]) and narrows the events lane to the
///   period, for the "Events during …" section.
///
/// Fails with [`LogicError::InvalidArgument`] when `now` is not an ISO-8601
/// date or date-time.
pub fn plan_recall(query: &str, now: &str, limit: u32) -> Result<RecallPlan, LogicError> {
    let invalid_now =
        |LogicError::InvalidArgument(why)| LogicError::InvalidArgument(format!("now: {why}"));
    parse_instant(now).map_err(invalid_now)?;
    let today = format_date(parse_local_date(now).map_err(invalid_now)?);
    let limit = if limit == 0 {
        DEFAULT_RECALL_LIMIT
    } else {
        limit
    };
    let catch_up = detect_catch_up(query);
    let date_window = resolve_date_window(query, now).map_err(|_| {
        LogicError::InvalidArgument(format!("now: not a readable date-time: {now:?}"))
    })?;
    // A cue the window already covers ("last month", "two weeks ago") would
    // only repeat it as one day, so it is not given as a hint as well.
    let relative_date = resolve_relative_date(query, now)?.filter(|cue| {
        date_window
            .as_ref()
            .is_none_or(|window| !window.label.contains(&cue.cue))
    });

    let search = |multiplier: u32| Fetch::Search {
        limit: limit.saturating_mul(multiplier),
    };
    let listing = |oldest_first: bool, limit: u32| Fetch::List {
        oldest_first,
        limit,
    };
    let (since, until) = match &date_window {
        Some(window) => (Some(window.since.clone()), Some(window.until.clone())),
        None => (None, None),
    };
    let spec = |lane: Lane, fetch: Fetch, keep: u32| LaneSpec {
        lane,
        fetch,
        content_prefix: None,
        min_importance: None,
        since: None,
        until: None,
        keep,
        rerank: false,
    };

    let mut lanes = Vec::new();
    if catch_up {
        lanes.push(LaneSpec {
            min_importance: Some(CATCH_UP_MIN_IMPORTANCE),
            ..spec(
                Lane::CatchUp,
                listing(false, limit.saturating_mul(SEARCH_FETCH_MULTIPLIER)),
                limit,
            )
        });
    } else {
        lanes.push(LaneSpec {
            rerank: true,
            ..spec(Lane::Semantic, search(SEARCH_FETCH_MULTIPLIER), limit)
        });
    }
    if date_window.is_some() {
        lanes.push(LaneSpec {
            since: since.clone(),
            until: until.clone(),
            rerank: !catch_up,
            ..spec(
                Lane::DateWindow,
                search(DATE_WINDOW_FETCH_MULTIPLIER),
                limit,
            )
        });
    }
    if !catch_up {
        lanes.push(LaneSpec {
            min_importance: Some(IMPORTANCE_LANE_MIN),
            ..spec(
                Lane::Importance,
                listing(false, IMPORTANCE_LANE_LIMIT),
                IMPORTANCE_LANE_LIMIT,
            )
        });
        lanes.push(LaneSpec {
            content_prefix: Some(RAW_TURN_PREFIX.to_string()),
            rerank: true,
            ..spec(
                Lane::RawDetail,
                search(SEARCH_FETCH_MULTIPLIER),
                RAW_DETAIL_LANE_LIMIT,
            )
        });
    }
    lanes.push(LaneSpec {
        content_prefix: Some(PROFILE_PREFIX.to_string()),
        ..spec(
            Lane::Profile,
            listing(false, PROFILE_LANE_LIMIT),
            PROFILE_LANE_LIMIT,
        )
    });
    lanes.push(LaneSpec {
        content_prefix: Some(FACT_PREFIX.to_string()),
        ..spec(
            Lane::Facts,
            listing(true, FACTS_LANE_LIMIT),
            FACTS_LANE_LIMIT,
        )
    });
    lanes.push(LaneSpec {
        content_prefix: Some(EVENT_PREFIX.to_string()),
        since,
        until,
        ..spec(
            Lane::Events,
            listing(false, EVENTS_LANE_LIMIT),
            EVENTS_LANE_LIMIT,
        )
    });

    Ok(RecallPlan {
        query: query.to_string(),
        now: now.to_string(),
        today,
        limit,
        catch_up,
        date_window,
        relative_date,
        lanes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-05-08T12:00:00Z";

    fn lanes(plan: &RecallPlan) -> Vec<Lane> {
        plan.lanes.iter().map(|spec| spec.lane).collect()
    }

    #[test]
    fn an_ordinary_query_runs_the_semantic_lanes() {
        let plan = plan_recall("which database did we pick for the ledger?", NOW, 0).unwrap();
        assert!(!plan.catch_up);
        assert_eq!(plan.date_window, None);
        assert_eq!(plan.limit, DEFAULT_RECALL_LIMIT);
        assert_eq!(plan.today, "2026-05-08");
        assert_eq!(
            lanes(&plan),
            [
                Lane::Semantic,
                Lane::Importance,
                Lane::RawDetail,
                Lane::Profile,
                Lane::Facts,
                Lane::Events
            ]
        );

        let semantic = plan.lane(Lane::Semantic).unwrap();
        assert_eq!(
            semantic.fetch,
            Fetch::Search {
                limit: 20 * SEARCH_FETCH_MULTIPLIER
            }
        );
        assert_eq!(semantic.keep, 20);
        assert!(semantic.rerank);
        assert!(!semantic.is_date_filtered());

        let importance = plan.lane(Lane::Importance).unwrap();
        assert_eq!(
            importance.fetch,
            Fetch::List {
                oldest_first: false,
                limit: 5
            }
        );
        assert_eq!(importance.min_importance, Some(Importance::Important));
        assert!(!importance.rerank);

        let raw = plan.lane(Lane::RawDetail).unwrap();
        assert_eq!(raw.content_prefix.as_deref(), Some("[mind-rawturn"));
        assert_eq!(raw.keep, RAW_DETAIL_LANE_LIMIT);
        assert!(raw.rerank);

        let facts = plan.lane(Lane::Facts).unwrap();
        assert_eq!(
            facts.fetch,
            Fetch::List {
                oldest_first: true,
                limit: 60
            }
        );
        assert_eq!(facts.content_prefix.as_deref(), Some("[mind-fact]"));

        let events = plan.lane(Lane::Events).unwrap();
        assert_eq!(
            events.fetch,
            Fetch::List {
                oldest_first: false,
                limit: 40
            }
        );
        assert!(!events.is_date_filtered());
        assert_eq!(
            plan.lane(Lane::Profile).unwrap().content_prefix.as_deref(),
            Some("[mind-profile")
        );
    }

    #[test]
    fn a_catch_up_fetches_by_importance_and_reranks_nothing() {
        let plan = plan_recall("Catch me up on the migration", NOW, 8).unwrap();
        assert!(plan.catch_up);
        assert_eq!(
            lanes(&plan),
            [Lane::CatchUp, Lane::Profile, Lane::Facts, Lane::Events]
        );
        let catch_up = plan.lane(Lane::CatchUp).unwrap();
        assert_eq!(
            catch_up.fetch,
            Fetch::List {
                oldest_first: false,
                limit: 8 * SEARCH_FETCH_MULTIPLIER
            }
        );
        assert_eq!(catch_up.min_importance, Some(Importance::Important));
        assert_eq!(catch_up.keep, 8);
        assert!(plan.lanes.iter().all(|spec| !spec.rerank));
        assert!(plan.lane(Lane::Semantic).is_none());
    }

    #[test]
    fn a_named_period_adds_the_window_lane_and_narrows_events() {
        let plan = plan_recall("what did we ship in May 2026?", NOW, 10).unwrap();
        let window = plan.date_window.clone().unwrap();
        assert_eq!(
            (
                window.since.as_str(),
                window.until.as_str(),
                window.label.as_str()
            ),
            ("2026-05-01", "2026-05-31", "May 2026")
        );
        assert_eq!(
            lanes(&plan),
            [
                Lane::Semantic,
                Lane::DateWindow,
                Lane::Importance,
                Lane::RawDetail,
                Lane::Profile,
                Lane::Facts,
                Lane::Events
            ]
        );
        let dated = plan.lane(Lane::DateWindow).unwrap();
        assert_eq!(dated.fetch, Fetch::Search { limit: 100 });
        assert_eq!(dated.since.as_deref(), Some("2026-05-01"));
        assert_eq!(dated.until.as_deref(), Some("2026-05-31"));
        assert!(dated.rerank);
        let events = plan.lane(Lane::Events).unwrap();
        assert_eq!(events.since.as_deref(), Some("2026-05-01"));
        assert_eq!(events.until.as_deref(), Some("2026-05-31"));
        // Facts are not narrowed: a fact is true outside the period too.
        assert!(!plan.lane(Lane::Facts).unwrap().is_date_filtered());
    }

    #[test]
    fn a_catch_up_over_a_period_keeps_the_window_without_reranking() {
        let plan = plan_recall("catch me up on March 2026", NOW, 5).unwrap();
        assert!(plan.catch_up);
        let dated = plan.lane(Lane::DateWindow).unwrap();
        assert!(!dated.rerank);
        assert_eq!(dated.since.as_deref(), Some("2026-03-01"));
    }

    #[test]
    fn relative_cues_are_resolved_against_now() {
        let plan = plan_recall(
            "what did Ana say yesterday?",
            "2026-05-08T23:30:00-05:00",
            5,
        )
        .unwrap();
        assert_eq!(plan.today, "2026-05-08");
        let cue = plan.relative_date.unwrap();
        assert_eq!(
            (cue.cue.as_str(), cue.date.as_str()),
            ("yesterday", "2026-05-07")
        );
        // A day-sized cue never becomes a filter: it is a hint for the model.
        assert!(plan.date_window.is_none());
        assert!(plan.lanes.iter().all(|spec| !spec.is_date_filtered()));
    }

    #[test]
    fn periods_said_relative_to_now_get_a_window() {
        // (query, now, since, until)
        let cases = [
            (
                "what did we decide last March?",
                NOW,
                "2026-03-01",
                "2026-03-31",
            ),
            (
                "what did we decide last March?",
                "2026-03-20T09:00:00Z",
                "2025-03-01",
                "2025-03-31",
            ),
            ("notes from spring 2026", NOW, "2026-03-01", "2026-05-31"),
            ("what happened last month?", NOW, "2026-04-01", "2026-04-30"),
            (
                "what happened last month?",
                "2026-01-02T08:00:00Z",
                "2025-12-01",
                "2025-12-31",
            ),
            ("goals for Q1 2026", NOW, "2026-01-01", "2026-03-31"),
            (
                "between March and April 2026",
                NOW,
                "2026-03-01",
                "2026-04-30",
            ),
            ("the week before last", NOW, "2026-04-20", "2026-04-26"),
            ("winter 2025", NOW, "2024-12-01", "2025-02-28"),
            (
                "what did we do over Christmas?",
                NOW,
                "2025-12-18",
                "2026-01-01",
            ),
            ("photos from last Easter", NOW, "2026-04-02", "2026-04-06"),
            (
                "what have I been up to since January?",
                NOW,
                "2026-01-01",
                "2026-05-08",
            ),
            (
                "what's on between Easter and Halloween?",
                NOW,
                "2026-04-02",
                "2026-11-01",
            ),
            (
                "anything in the past two weeks?",
                NOW,
                "2026-04-24",
                "2026-05-08",
            ),
            // `now`'s own calendar day: late on 31 December in New York is
            // still 2025 there.
            (
                "what did we do this year?",
                "2025-12-31T23:30:00-05:00",
                "2025-01-01",
                "2025-12-31",
            ),
        ];
        for (query, now, since, until) in cases {
            let plan = plan_recall(query, now, 10).unwrap();
            let window = plan.date_window.clone().unwrap();
            assert_eq!(
                (window.since.as_str(), window.until.as_str()),
                (since, until),
                "{query} @ {now}"
            );
            let dated = plan.lane(Lane::DateWindow).unwrap();
            assert_eq!(dated.since.as_deref(), Some(since), "{query}");
            assert_eq!(dated.until.as_deref(), Some(until), "{query}");
            let events = plan.lane(Lane::Events).unwrap();
            assert_eq!(events.since.as_deref(), Some(since), "{query}");
        }
    }

    #[test]
    fn a_cue_the_window_covers_is_not_repeated_as_a_hint() {
        let plan = plan_recall("what did we ship last week?", NOW, 5).unwrap();
        let window = plan.date_window.unwrap();
        assert_eq!(window.label, "last week (2026-04-27 to 2026-05-03)");
        assert_eq!(plan.relative_date, None);
        // A weekend is its two days, a window: no hint of its Saturday.
        let plan = plan_recall("what did we do last weekend?", NOW, 5).unwrap();
        let window = plan.date_window.unwrap();
        assert_eq!(window.label, "last weekend (2026-05-02 to 2026-05-03)");
        assert_eq!(plan.relative_date, None);

        // A cue outside the window's words stays a hint.
        let plan = plan_recall("yesterday Ana asked about Q1 2026", NOW, 5).unwrap();
        assert_eq!(plan.date_window.unwrap().label, "Q1 2026");
        assert_eq!(plan.relative_date.unwrap().date, "2026-05-07");
    }

    #[test]
    fn words_that_only_look_like_dates_add_no_window() {
        for query in [
            "how do I configure logging in spring boot?",
            "this may take a while",
            "ticket 2025",
            "answer Q1 first",
            "who gave me the Christmas cactus?",
        ] {
            let plan = plan_recall(query, NOW, 5).unwrap();
            assert_eq!(plan.date_window, None, "{query}");
            assert!(plan.lane(Lane::DateWindow).is_none(), "{query}");
        }
    }

    #[test]
    fn a_bad_now_is_an_invalid_argument() {
        let err = plan_recall("anything", "yesterday-ish", 5).unwrap_err();
        assert!(
            matches!(&err, LogicError::InvalidArgument(m) if m.starts_with("now: ")),
            "{err}"
        );
    }

    #[test]
    fn huge_limits_saturate_instead_of_overflowing() {
        let plan = plan_recall("in May 2026", NOW, u32::MAX).unwrap();
        assert_eq!(
            plan.lane(Lane::DateWindow).unwrap().fetch,
            Fetch::Search { limit: u32::MAX }
        );
    }
}
