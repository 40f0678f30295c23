use std::cell::RefCell;

use proptest::prelude::*;

use super::*;
use crate::recall::{
    RERANK_PAIR_TOKENS, RERANK_TOKEN_BUDGET, RelevanceFloor, StandingLanes, plan_recall,
};

const NOW: &str = "2026-05-08T12:00:00Z";

/// A frame created today: temporal 1, popularity 1, contextual 0, so its
/// balanced relevance is 0.4 + 0.2 + 0.2 · importance.
fn frame(content: &str) -> FrameInfo {
    FrameInfo {
        content: content.to_string(),
        created_at: Some("2026-05-08T09:00:00Z".to_string()),
        last_accessed: None,
        importance: Importance::Normal,
        access_count: 0,
        graph_distance: None,
        screened: false,
        stands_for: Vec::new(),
    }
}

fn text(mind: &MindKey, id: u64, lane: Lane, rank: u32) -> Candidate {
    Candidate {
        mind: mind.clone(),
        frame_id: id,
        lane,
        hit: LaneHit::Text {
            rank,
            bm25: 5.0 - f64::from(rank),
            chunk: None,
        },
        // A hit holds the query's words (the ordinary plan's), so it
        // answers the query as far as the recall-wide gate is concerned.
        frame: frame(&format!("frame {id}: the ledger database we picked")),
    }
}

fn vector(mind: &MindKey, id: u64, lane: Lane, rank: u32, cosine: f64) -> Candidate {
    Candidate {
        mind: mind.clone(),
        frame_id: id,
        lane,
        hit: LaneHit::Vector {
            rank,
            cosine,
            chunk: None,
        },
        frame: frame(&format!("frame {id}: the ledger database we picked")),
    }
}

fn listed(mind: &MindKey, id: u64, lane: Lane, rank: u32) -> Candidate {
    Candidate {
        mind: mind.clone(),
        frame_id: id,
        lane,
        hit: LaneHit::Listed { rank },
        frame: frame(&format!("frame {id}")),
    }
}

/// A reranker's answer for a pool of the given size.
type FakeReranker = fn(usize) -> Option<Vec<f32>>;

fn no_rerank(_: &[&str]) -> Option<Vec<f32>> {
    None
}

fn ordinary_plan() -> RecallPlan {
    plan_recall("which database did we pick for the ledger", NOW, 0).unwrap()
}

fn rank(plan: &RecallPlan, candidates: Vec<Candidate>, floor: RelevanceFloor) -> Vec<RankedMemory> {
    let options = RankOptions {
        floor,
        ..RankOptions::default()
    };
    rank_candidates(plan, candidates, &options, no_rerank).unwrap()
}

fn keys(ranked: &[RankedMemory]) -> Vec<(MindKey, u64, Lane)> {
    ranked
        .iter()
        .map(|m| (m.mind.clone(), m.frame_id, m.lane))
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

const P: MindKey = MindKey::Personal;

#[test]
fn text_and_vector_lists_are_fused_by_normalised_scores() {
    let ranked = rank(
        &ordinary_plan(),
        vec![
            vector(&P, 2, Lane::Semantic, 0, 0.7),
            text(&P, 1, Lane::Semantic, 0),
            vector(&P, 3, Lane::Semantic, 1, 0.6),
            text(&P, 2, Lane::Semantic, 1),
        ],
        RelevanceFloor::default(),
    );
    assert_eq!(
        keys(&ranked),
        [
            (P, 2, Lane::Semantic),
            (P, 1, Lane::Semantic),
            (P, 3, Lane::Semantic)
        ]
    );
    // BM25 5 and 4 over the best 5; cosines 0.7 and 0.6 min-max
    // normalised to 1 and 0; each search weighs half, on the 2/60 scale.
    assert!(close(ranked[0].fused, (0.5 * 0.8 + 0.5) * 2.0 / 60.0));
    assert!(close(ranked[1].fused, 0.5 * 2.0 / 60.0));
    assert!(close(ranked[2].fused, 0.0));
    for memory in &ranked {
        assert!(close(memory.relevance.score, 0.8));
        assert_eq!(
            memory.strength, memory.fused,
            "no reranker: strength is fused"
        );
        assert_eq!(memory.score, memory.strength * memory.multiplier);
    }
    let e = ranked[0].evidence;
    assert_eq!(
        (e.text_rank, e.vector_rank, e.cosine),
        (Some(1), Some(0), Some(0.7))
    );
    assert_eq!(e.bm25, Some(4.0));
}

#[test]
fn minds_are_fused_apart_and_colliding_ids_stay_distinct() {
    let work = MindKey::Workspace("acme".into());
    let ranked = rank(
        &ordinary_plan(),
        vec![
            text(&P, 7, Lane::Semantic, 0),
            text(&work, 7, Lane::Semantic, 0),
            vector(&work, 7, Lane::Semantic, 0, 0.9),
        ],
        RelevanceFloor::default(),
    );
    assert_eq!(
        keys(&ranked),
        [(work.clone(), 7, Lane::Semantic), (P, 7, Lane::Semantic)]
    );
    // Each scored from its own mind's lists only.
    assert_eq!(ranked[0].fused, 2.0 / 60.0);
    assert_eq!(ranked[1].fused, 1.0 / 60.0);
}

#[test]
fn chunk_hits_count_once_per_list_and_show_the_best_chunk() {
    let chunk = |id: u64, rank: u32, cosine: f64, span: (u32, u32)| Candidate {
        hit: LaneHit::Vector {
            rank,
            cosine,
            chunk: Some(span),
        },
        ..vector(&P, id, Lane::Semantic, rank, cosine)
    };
    let ranked = rank(
        &ordinary_plan(),
        vec![
            chunk(5, 2, 0.81, (20, 30)),
            chunk(5, 0, 0.8, (0, 10)),
            vector(&P, 6, Lane::Semantic, 1, 0.7),
        ],
        RelevanceFloor::default(),
    );
    assert_eq!(
        keys(&ranked),
        [(P, 5, Lane::Semantic), (P, 6, Lane::Semantic)]
    );
    // Frame 5 counts once, at its best position (cosine 0.8), the best
    // vector hit; frame 6 (0.7) is the list's least.
    assert!(close(ranked[0].fused, 0.5 * 2.0 / 60.0));
    assert_eq!(ranked[0].chunk, Some((0, 10)));
    assert_eq!(ranked[0].evidence.vector_rank, Some(0));
    assert_eq!(ranked[0].evidence.cosine, Some(0.81));
    assert!(close(ranked[1].fused, 0.0));
}

#[test]
fn a_frame_found_by_two_lanes_is_kept_once_by_the_better_lane() {
    let ranked = rank(
        &ordinary_plan(),
        vec![
            listed(&P, 1, Lane::Facts, 3),
            text(&P, 1, Lane::Semantic, 0),
            vector(&P, 1, Lane::Semantic, 0, 0.5),
            listed(&P, 1, Lane::Importance, 0),
            listed(&P, 2, Lane::Facts, 0),
        ],
        RelevanceFloor::default(),
    );
    assert_eq!(keys(&ranked), [(P, 1, Lane::Semantic), (P, 2, Lane::Facts)]);
    assert_eq!(ranked[0].also_in, [Lane::Importance, Lane::Facts]);
    assert!(
        ranked[0].why.ends_with("; also in importance, facts"),
        "{}",
        ranked[0].why
    );
    assert!(ranked[1].also_in.is_empty());
}

#[test]
fn final_score_is_strength_times_the_bounded_multiplier() {
    // A: first in the listing but old and normal; B: second, fresh and critical.
    let mut a = listed(&P, 10, Lane::Facts, 0);
    a.frame.created_at = Some("2026-04-01T12:00:00Z".into()); // 37 days: temporal 0.5
    let mut b = listed(&P, 11, Lane::Facts, 1);
    b.frame.importance = Importance::Critical;
    let ranked = rank(&ordinary_plan(), vec![a, b], RelevanceFloor::OFF);
    // Adjacent places are a near-tie: the fresh critical one goes first.
    assert_eq!(keys(&ranked), [(P, 11, Lane::Facts), (P, 10, Lane::Facts)]);
    // Balanced, normalized: B = 0.4·1 + 0.2·1 (critical) = 0.6 → 0.9 + 0.2·0.6;
    // A = 0.4·0.5 + 0.2·(0.7/1.7) → 0.9 + 0.2·(0.2 + 0.14/1.7).
    assert!(close(ranked[0].multiplier, 1.02));
    assert!(close(ranked[0].score, 1.02 / 61.0));
    let a_multiplier = 0.9 + 0.2 * (0.2 + 0.2 * 0.7 / 1.7);
    assert!(close(ranked[1].multiplier, a_multiplier));
    assert!(close(ranked[1].score, a_multiplier / 60.0));
}

/// Three facts-lane memories with the same evidence (first in the listing
/// of three minds), each better than a plain three-month-old, normal one in
/// one signal: fresh, critical, or the query's own entity. Their order under
/// `profile`, with each one's multiplier.
fn order_of_equals(profile: ScoringProfile) -> Vec<(u64, f64)> {
    let equal = |mind: MindKey, id: u64, better: &dyn Fn(&mut FrameInfo)| {
        let mut candidate = listed(&mind, id, Lane::Facts, 0);
        candidate.frame.created_at = Some("2026-02-01T12:00:00Z".into());
        better(&mut candidate.frame);
        candidate
    };
    let candidates = vec![
        equal(P, 1, &|f| {
            f.created_at = Some("2026-05-07T12:00:00Z".into())
        }),
        equal(MindKey::Workspace("a".into()), 2, &|f| {
            f.importance = Importance::Critical
        }),
        equal(MindKey::Workspace("b".into()), 3, &|f| {
            f.graph_distance = Some(0)
        }),
    ];
    let options = RankOptions {
        profile,
        floor: RelevanceFloor::OFF,
        rerank_pool: None,
        ..RankOptions::default()
    };
    rank_candidates(&ordinary_plan(), candidates, &options, no_rerank)
        .unwrap()
        .iter()
        .map(|m| (m.frame_id, m.multiplier))
        .collect()
}

#[test]
fn each_profile_orders_equal_evidence_by_its_own_signal() {
    let ids = |order: &[(u64, f64)]| order.iter().map(|(id, _)| *id).collect::<Vec<_>>();
    let balanced = order_of_equals(ScoringProfile::Balanced);
    let recent = order_of_equals(ScoringProfile::Recent);
    // Balanced and recent: the fresh one first (recency weighs 0.4 and 0.6);
    // recent puts it further ahead.
    assert_eq!(ids(&balanced)[0], 1);
    assert_eq!(ids(&recent)[0], 1);
    let lead = |order: &[(u64, f64)]| order[0].1 - order[1].1;
    assert!(lead(&recent) > lead(&balanced));
    // Important: the critical one; connected: the query's entity.
    assert_eq!(ids(&order_of_equals(ScoringProfile::Important))[0], 2);
    assert_eq!(ids(&order_of_equals(ScoringProfile::Connected))[0], 3);
}

#[test]
fn relevance_never_overturns_clear_evidence_however_deep_the_fetch() {
    // An old frame both searches rank first, against 49 fresh, critical,
    // popular, graph-adjacent frames that only the vector search found
    // (the deep end of a 50-memory fetch).
    let mut strong = text(&P, 1, Lane::Semantic, 0);
    strong.frame.created_at = Some("2023-05-08T12:00:00Z".into());
    let mut strong_vector = vector(&P, 1, Lane::Semantic, 0, 0.7);
    strong_vector.frame = strong.frame.clone();
    let mut candidates = vec![strong, strong_vector];
    for i in 1..50 {
        let mut weak = vector(&P, 100 + u64::from(i), Lane::Semantic, i, 0.4);
        weak.frame.importance = Importance::Critical;
        weak.frame.access_count = 1000;
        weak.frame.graph_distance = Some(0);
        candidates.push(weak);
    }
    let plan = plan_recall("which database did we pick for the ledger", NOW, 50).unwrap();
    for profile in ScoringProfile::ALL {
        let options = RankOptions {
            profile,
            floor: RelevanceFloor::OFF,
            rerank_pool: None,
            ..RankOptions::default()
        };
        let ranked = rank_candidates(&plan, candidates.clone(), &options, no_rerank).unwrap();
        assert_eq!(ranked[0].frame_id, 1, "{profile:?}");
        // The multiplier stays within its band.
        for memory in &ranked {
            assert!(
                (0.9..=1.1).contains(&memory.multiplier),
                "{}",
                memory.multiplier
            );
        }
    }
}

#[test]
fn the_profile_changes_the_weights() {
    let mut old_critical = listed(&P, 1, Lane::Facts, 0);
    old_critical.frame.importance = Importance::Critical;
    old_critical.frame.created_at = Some("2025-05-08T12:00:00Z".into());
    let fresh_normal = listed(&P, 2, Lane::Facts, 0);
    let candidates = vec![
        old_critical,
        Candidate {
            mind: MindKey::Workspace("w".into()),
            ..fresh_normal
        },
    ];
    let by = |profile: ScoringProfile| {
        let options = RankOptions {
            profile,
            floor: RelevanceFloor::OFF,
            rerank_pool: None,
            ..RankOptions::default()
        };
        rank_candidates(&ordinary_plan(), candidates.clone(), &options, no_rerank).unwrap()[0]
            .frame_id
    };
    assert_eq!(by(ScoringProfile::Recent), 2);
    assert_eq!(by(ScoringProfile::Important), 1);
}

#[test]
fn the_reranker_is_the_main_term_of_the_pool_strength() {
    let plan = ordinary_plan();
    let calls = RefCell::new(Vec::new());
    let mut candidates: Vec<Candidate> = (0..3)
        .map(|i| {
            let mut c = text(&P, 100 + u64::from(i), Lane::Semantic, i);
            c.frame.content = format!("[hm session:s1] passage {i}: the ledger database");
            c
        })
        .collect();
    candidates.push(listed(&P, 9, Lane::Facts, 0));
    let ranked = rank_candidates(
        &plan,
        candidates,
        &RankOptions::default(),
        |passages: &[&str]| {
            calls
                .borrow_mut()
                .push(passages.iter().map(|p| p.to_string()).collect::<Vec<_>>());
            // Reverse the fused order.
            Some((0..passages.len()).map(|i| i as f32).collect())
        },
    )
    .unwrap();

    let calls = calls.into_inner();
    assert_eq!(calls.len(), 1, "one call per recall");
    assert_eq!(
        calls[0],
        [
            "passage 0: the ledger database",
            "passage 1: the ledger database",
            "passage 2: the ledger database"
        ]
    );

    let semantic: Vec<&RankedMemory> = ranked.iter().filter(|m| m.lane == Lane::Semantic).collect();
    assert_eq!(
        semantic.iter().map(|m| m.frame_id).collect::<Vec<_>>(),
        [102, 101, 100]
    );
    // Each keeps its own fused score (BM25 3, 4, 5 over the best 5, half
    // of 2/60); strength is 0.75 · top · 2σ(logit − best) + 0.25 · fused,
    // with top = 1/60, logits 2, 1, 0 and best 2.
    for (memory, share) in semantic.iter().zip([0.6, 0.8, 1.0]) {
        assert!(close(memory.fused, share / 60.0), "{}", memory.fused);
    }
    let sigma = |x: f64| 1.0 / (1.0 + (-x).exp());
    for (memory, logit) in semantic.iter().zip([2.0, 1.0, 0.0]) {
        let expected = 0.75 * 2.0 * sigma(logit - 2.0) / 60.0 + 0.25 * memory.fused;
        assert!(
            close(memory.strength, expected),
            "{} vs {expected}",
            memory.strength
        );
        assert!(close(
            memory.evidence.rerank_probability.unwrap(),
            sigma(logit)
        ));
    }
    assert_eq!(
        semantic
            .iter()
            .map(|m| m.evidence.rerank_position)
            .collect::<Vec<_>>(),
        [Some(0), Some(1), Some(2)]
    );
    assert!(
        semantic[0]
            .why
            .contains("bm25 #3, reranked #1 (p 0.88); strength 0.0"),
        "{}",
        semantic[0].why
    );
    // The listing lane is untouched.
    let fact = ranked.iter().find(|m| m.lane == Lane::Facts).unwrap();
    assert_eq!(fact.evidence.rerank_position, None);
}

#[test]
fn the_rerank_pool_is_capped() {
    let plan = plan_recall("ledger database", NOW, 50).unwrap();
    let sizes = RefCell::new(Vec::new());
    let candidates = (0..45)
        .map(|i| text(&P, u64::from(i), Lane::Semantic, i))
        .collect();
    rank_candidates(
        &plan,
        candidates,
        &RankOptions::default(),
        |passages: &[&str]| {
            sizes.borrow_mut().push(passages.len());
            None
        },
    )
    .unwrap();
    assert_eq!(sizes.into_inner(), [RERANK_POOL]);
    // The pool follows the options; 0 turns reranking off.
    for (pool, expected) in [(Some(7), vec![7]), (Some(0), vec![]), (Some(100), vec![45])] {
        let sizes = RefCell::new(Vec::new());
        let candidates = (0..45)
            .map(|i| text(&P, u64::from(i), Lane::Semantic, i))
            .collect();
        let options = RankOptions {
            rerank_pool: pool,
            ..RankOptions::default()
        };
        rank_candidates(&plan, candidates, &options, |passages: &[&str]| {
            sizes.borrow_mut().push(passages.len());
            None
        })
        .unwrap();
        assert_eq!(sizes.into_inner(), expected, "pool {pool:?}");
    }
}

#[test]
fn unpooled_members_of_a_reranked_lane_count_as_unconfirmed() {
    let plan = plan_recall("ledger database", NOW, 50).unwrap();
    let candidates: Vec<Candidate> = (0..6)
        .map(|i| text(&P, u64::from(i), Lane::Semantic, i))
        .collect();
    let options = RankOptions {
        rerank_pool: Some(3),
        floor: RelevanceFloor::OFF,
        ..RankOptions::default()
    };
    // The reranker is sure of the pool's last member and rejects the others.
    let ranked = rank_candidates(&plan, candidates, &options, |passages: &[&str]| {
        Some(
            (0..passages.len())
                .map(|i| if i == 2 { 8.0 } else { -8.0 })
                .collect(),
        )
    })
    .unwrap();
    let order: Vec<u64> = ranked.iter().map(|m| m.frame_id).collect();
    assert_eq!(order[0], 2, "the confirmed one leads: {order:?}");
    for memory in ranked.iter().filter(|m| m.frame_id >= 3) {
        assert!(close(memory.strength, 0.25 * memory.fused));
        assert_eq!(memory.evidence.rerank_probability, None);
    }
}

#[test]
fn a_failing_reranker_keeps_the_fused_order() {
    let plan = ordinary_plan();
    let candidates: Vec<Candidate> = (0..3)
        .map(|i| text(&P, u64::from(i), Lane::Semantic, i))
        .collect();
    let baseline = rank(&plan, candidates.clone(), RelevanceFloor::default());
    let failures: [FakeReranker; 3] = [
        |_| None,
        |n| Some(vec![1.0; n + 1]),
        |n| {
            Some(
                (0..n)
                    .map(|i| if i == 1 { f32::NAN } else { i as f32 })
                    .collect(),
            )
        },
    ];
    for failure in failures {
        let ranked = rank_candidates(
            &plan,
            candidates.clone(),
            &RankOptions::default(),
            |p: &[&str]| failure(p.len()),
        )
        .unwrap();
        assert_eq!(ranked, baseline);
        assert!(ranked.iter().all(|m| m.evidence.rerank_position.is_none()));
    }
}

#[test]
fn a_catch_up_never_calls_the_reranker_and_ignores_lanes_it_does_not_run() {
    let plan = plan_recall("catch me up", NOW, 5).unwrap();
    let mut important = listed(&P, 1, Lane::CatchUp, 0);
    important.frame.importance = Importance::Important;
    let candidates = vec![
        important,
        text(&P, 2, Lane::Semantic, 0),
        listed(&P, 3, Lane::Importance, 0),
    ];
    let ranked = rank_candidates(
        &plan,
        candidates,
        &RankOptions::default(),
        |_: &[&str]| panic!("catch-up must not rerank"),
    )
    .unwrap();
    assert_eq!(keys(&ranked), [(P, 1, Lane::CatchUp)]);
    assert!(
        ranked[0].why.starts_with("catch-up: listed #1;"),
        "{}",
        ranked[0].why
    );
}

#[test]
fn nothing_relevant_means_nothing_at_all() {
    let plan = ordinary_plan();
    let off_topic = vec![
        vector(&P, 1, Lane::Semantic, 0, 0.12),
        vector(&P, 2, Lane::Semantic, 1, 0.05),
        vector(&P, 3, Lane::RawDetail, 0, 0.2),
        listed(&P, 4, Lane::Importance, 0),
        listed(&P, 5, Lane::Facts, 0),
        listed(&P, 6, Lane::Profile, 0),
        listed(&P, 7, Lane::Events, 0),
    ];
    assert!(rank(&plan, off_topic.clone(), RelevanceFloor::default()).is_empty());

    // Without the floor: the reference engine's top-N noise.
    assert_eq!(rank(&plan, off_topic.clone(), RelevanceFloor::OFF).len(), 7);

    // Standing lanes always shown: only the query lanes are filtered.
    let always = RelevanceFloor {
        standing_lanes: StandingLanes::Always,
        ..RelevanceFloor::default()
    };
    let lanes: Vec<Lane> = rank(&plan, off_topic.clone(), always)
        .iter()
        .map(|m| m.lane)
        .collect();
    assert_eq!(lanes.len(), 4);
    assert!(lanes.iter().all(|lane| !lane.is_query_matched()));

    // One real match anchors the recall and brings the standing lanes back.
    let mut anchored = off_topic;
    anchored.push(vector(&P, 8, Lane::Semantic, 2, 0.41));
    let ranked = rank(&plan, anchored, RelevanceFloor::default());
    let mut ids: Vec<u64> = ranked.iter().map(|m| m.frame_id).collect();
    ids.sort_unstable();
    assert_eq!(ids, [4, 5, 6, 7, 8]);
}

#[test]
fn a_lexical_hit_passes_the_floor_even_with_a_low_cosine() {
    let plan = ordinary_plan();
    let ranked = rank(
        &plan,
        vec![
            text(&P, 1, Lane::Semantic, 0),
            vector(&P, 1, Lane::Semantic, 5, 0.02),
            vector(&P, 2, Lane::Semantic, 0, 0.1),
        ],
        RelevanceFloor::default(),
    );
    assert_eq!(keys(&ranked), [(P, 1, Lane::Semantic)]);

    let semantic_only = RelevanceFloor {
        lexical_match: false,
        ..RelevanceFloor::default()
    };
    assert!(rank(&plan, vec![text(&P, 1, Lane::Semantic, 0)], semantic_only).is_empty());
}

#[test]
fn a_named_period_anchors_the_recall_by_date() {
    let plan = plan_recall("what happened in May 2026?", NOW, 0).unwrap();
    let ranked = rank(
        &plan,
        vec![
            vector(&P, 1, Lane::DateWindow, 0, 0.03),
            vector(&P, 2, Lane::Semantic, 0, 0.03),
            listed(&P, 3, Lane::Facts, 0),
        ],
        RelevanceFloor::default(),
    );
    assert_eq!(
        keys(&ranked),
        [(P, 1, Lane::DateWindow), (P, 3, Lane::Facts)]
    );
    assert!(
        ranked[0]
            .why
            .starts_with("date-window (2026-05-01..2026-05-31): vector #1 (cosine 0.03);"),
        "{}",
        ranked[0].why
    );
}

#[test]
fn a_memory_written_outside_the_period_is_said_to_name_a_day_in_it() {
    let plan = plan_recall("what happened in April 2026?", NOW, 0).unwrap();
    // Written in May, about a day in April; and one written in April.
    let mut named = vector(&P, 1, Lane::DateWindow, 0, 0.03);
    named.frame.content = "The audit on 28 April 2026 went well.".to_string();
    let mut written = vector(&P, 2, Lane::DateWindow, 1, 0.03);
    written.frame.created_at = Some("2026-04-20T09:00:00Z".to_string());
    let ranked = rank(&plan, vec![named, written], RelevanceFloor::default());
    let why = |id: u64| {
        ranked
            .iter()
            .find(|memory| memory.frame_id == id)
            .map(|memory| memory.why.clone())
            .unwrap_or_default()
    };
    assert!(
        why(1).starts_with("date-window (2026-04-01..2026-04-30, by a day its text names):"),
        "{}",
        why(1)
    );
    assert!(
        why(2).starts_with("date-window (2026-04-01..2026-04-30):"),
        "{}",
        why(2)
    );
}

#[test]
fn each_lane_is_capped_before_frames_are_deduplicated() {
    let plan = plan_recall("ledger database", NOW, 2).unwrap();
    let mut candidates: Vec<Candidate> = (0..4)
        .map(|i| text(&P, u64::from(i), Lane::Semantic, i))
        .collect();
    // Frame 3 is cut from the semantic top 2 but is also a fact: it is
    // shown, as background, after the matches.
    candidates.push(listed(&P, 3, Lane::Facts, 0));
    let ranked = rank(&plan, candidates, RelevanceFloor::default());
    assert_eq!(
        keys(&ranked),
        [
            (P, 0, Lane::Semantic),
            (P, 1, Lane::Semantic),
            (P, 3, Lane::Facts)
        ]
    );
    assert!(ranked[2].also_in.is_empty());
}

#[test]
fn unreadable_frame_times_count_as_unknown_age() {
    let mut c = text(&P, 1, Lane::Semantic, 0);
    c.frame.created_at = Some("last tuesday".into());
    let ranked = rank(&ordinary_plan(), vec![c], RelevanceFloor::default());
    assert_eq!(ranked[0].relevance.temporal, 0.5);
    assert!(
        ranked[0].why.ends_with("; unreadable created-at ignored"),
        "{}",
        ranked[0].why
    );
}

#[test]
fn why_names_the_lane_the_evidence_and_the_signals() {
    let ranked = rank(
        &ordinary_plan(),
        vec![
            text(&P, 1, Lane::Semantic, 0),
            vector(&P, 2, Lane::Semantic, 0, 0.9),
            vector(&P, 3, Lane::Semantic, 1, 0.8),
            vector(&P, 1, Lane::Semantic, 2, 0.6234),
        ],
        RelevanceFloor::default(),
    );
    assert_eq!(
        ranked[0].why,
        "semantic: bm25 #1, vector #3 (cosine 0.62); fused 0.0167 × relevance 0.996 \
         (temporal 1.00, popularity 1.00, contextual 0.00, importance 1.00) = 0.0166"
    );
}

#[test]
fn a_plan_with_an_unreadable_now_is_refused() {
    let mut plan = ordinary_plan();
    plan.now = "soon".into();
    let err = rank_candidates(&plan, vec![], &RankOptions::default(), no_rerank).unwrap_err();
    assert!(matches!(&err, LogicError::InvalidArgument(m) if m.starts_with("now: ")));
}

// ---------------------------------------------------------------------------
// Properties.

fn arb_candidate() -> impl Strategy<Value = Candidate> {
    let mind = prop_oneof![
        Just(MindKey::Personal),
        Just(MindKey::Workspace("w".into()))
    ];
    let lane = prop_oneof![
        3 => Just(Lane::Semantic),
        1 => Just(Lane::Importance),
        1 => Just(Lane::Facts),
    ];
    let importance = prop::sample::select(Importance::ALL.to_vec());
    (
        mind,
        0u64..12,
        lane,
        any::<bool>(),
        0u32..30,
        -0.2f64..1.0,
        importance,
        0u32..200,
        0u64..120,
    )
        .prop_map(
            |(mind, id, lane, is_text, rank, cosine, importance, access_count, age_days)| {
                let hit = match lane {
                    Lane::Semantic if is_text => LaneHit::Text {
                        rank,
                        bm25: 1.0,
                        chunk: None,
                    },
                    Lane::Semantic => LaneHit::Vector {
                        rank,
                        cosine,
                        chunk: None,
                    },
                    _ => LaneHit::Listed { rank },
                };
                let created = chrono::NaiveDate::from_ymd_opt(2026, 5, 8)
                    .and_then(|d| d.checked_sub_days(chrono::Days::new(age_days)))
                    .map(|d| d.to_string());
                Candidate {
                    mind,
                    frame_id: id,
                    lane,
                    hit,
                    frame: FrameInfo {
                        content: format!("frame {id}"),
                        created_at: created,
                        last_accessed: None,
                        importance,
                        access_count,
                        graph_distance: None,
                        screened: false,
                        stands_for: Vec::new(),
                    },
                }
            },
        )
}

fn arb_floor() -> impl Strategy<Value = RelevanceFloor> {
    (-0.5f64..1.2, any::<bool>(), any::<bool>()).prop_map(|(min_cosine, lexical_match, always)| {
        RelevanceFloor {
            min_cosine,
            lexical_match,
            standing_lanes: if always {
                StandingLanes::Always
            } else {
                StandingLanes::WhenAnchored
            },
        }
    })
}

proptest! {
    #[test]
    fn never_the_same_frame_twice_and_always_best_first(
        candidates in prop::collection::vec(arb_candidate(), 0..60),
        floor in arb_floor(),
        reverse in any::<bool>(),
    ) {
        let plan = ordinary_plan();
        let options = RankOptions { floor, ..RankOptions::default() };
        let ranked = rank_candidates(&plan, candidates, &options, |p: &[&str]| {
            reverse.then(|| (0..p.len()).map(|i| i as f32).collect())
        })
        .unwrap();
        let mut seen = std::collections::HashSet::new();
        for memory in &ranked {
            prop_assert!(seen.insert((memory.mind.clone(), memory.frame_id)));
            prop_assert!(!memory.also_in.contains(&memory.lane));
            prop_assert_eq!(memory.score, memory.strength * memory.multiplier);
            prop_assert!((0.9..=1.1).contains(&memory.multiplier));
        }
        // Matches before background, each best first.
        let tier = |lane: Lane| match LaneRole::of(lane, plan.lane(lane).is_some_and(|spec| spec.is_date_filtered())) {
            LaneRole::Anchoring => 0,
            LaneRole::QueryMatched => 1,
            LaneRole::Standing => 2,
        };
        let in_order = ranked.windows(2).all(|w| {
            tier(w[0].lane) < tier(w[1].lane)
                || (tier(w[0].lane) == tier(w[1].lane) && w[0].score >= w[1].score)
        });
        prop_assert!(in_order);
        for lane in Lane::ALL {
            let kept = ranked.iter().filter(|m| m.lane == lane).count();
            let keep = plan.lane(lane).map_or(0, |spec| spec.keep as usize);
            prop_assert!(kept <= keep);
        }
        // Every query-matched memory shows the evidence the floor asks for,
        // or the reranker recognised it as an answer.
        for memory in ranked.iter().filter(|m| m.lane.is_query_matched()) {
            let recognised = memory
                .evidence
                .rerank_probability
                .is_some_and(|p| p >= crate::recall::floor::ANSWER_RERANK_PROBABILITY);
            prop_assert!(
                recognised
                    || floor.admits(memory.evidence.text_rank.is_some(), memory.evidence.cosine)
            );
        }
    }

    #[test]
    fn a_stricter_floor_never_adds_a_memory(
        candidates in prop::collection::vec(arb_candidate(), 0..60),
        low in -0.5f64..1.2,
        raise in 0.0f64..0.8,
        lexical in any::<bool>(),
    ) {
        // Limits high enough that no cap binds (importance: ids < 12 but its
        // keep is 5, so leave it out).
        let plan = plan_recall("ledger database", NOW, 1000).unwrap();
        let candidates: Vec<Candidate> =
            candidates.into_iter().filter(|c| c.lane != Lane::Importance).collect();
        let floor = |min_cosine: f64, lexical_match: bool| RelevanceFloor {
            min_cosine,
            lexical_match,
            standing_lanes: StandingLanes::WhenAnchored,
        };
        let ids = |floor: RelevanceFloor| -> std::collections::BTreeSet<(MindKey, u64)> {
            rank(&plan, candidates.clone(), floor)
                .into_iter()
                .map(|m| (m.mind, m.frame_id))
                .collect()
        };
        let loose = ids(floor(low, true));
        let strict = ids(floor(low + raise, lexical));
        prop_assert!(strict.is_subset(&loose), "{strict:?} ⊄ {loose:?}");
        let off = ids(RelevanceFloor::OFF);
        prop_assert!(loose.is_subset(&off));
    }
}

#[test]
fn the_rerank_pool_stops_at_the_token_budget() {
    let plan = plan_recall("ledger database", NOW, 50).unwrap();
    let sizes = RefCell::new(Vec::new());
    // Each passage is long enough that its pair counts the full
    // RERANK_PAIR_TOKENS, so the budget holds 512 / 128 = 4 of them.
    let candidates = (0..20)
        .map(|i| {
            let mut c = text(&P, u64::from(i), Lane::Semantic, i);
            c.frame.content = "the ledger database decision was long and careful ".repeat(30);
            c
        })
        .collect();
    rank_candidates(
        &plan,
        candidates,
        &RankOptions::default(),
        |passages: &[&str]| {
            sizes.borrow_mut().push(passages.len());
            None
        },
    )
    .unwrap();
    assert_eq!(
        sizes.into_inner(),
        [(RERANK_TOKEN_BUDGET / RERANK_PAIR_TOKENS) as usize]
    );
}

#[test]
fn the_rerank_budget_follows_the_window_the_reranker_reports() {
    // The same long passages (each ~500 estimated pair tokens) under three
    // windows: the shipped 128 (7 pairs), a host configured for 256 (3) and
    // for 512 (1: the first pair always fits). A window of 0 means unknown
    // and plans as the shipped model's.
    let plan = plan_recall("ledger database", NOW, 50).unwrap();
    let candidates: Vec<Candidate> = (0..20)
        .map(|i| {
            let mut c = text(&P, u64::from(i), Lane::Semantic, i);
            c.frame.content = "the ledger database decision was long and careful ".repeat(60);
            c
        })
        .collect();
    let pairs = |window: Option<u32>| {
        let sizes = RefCell::new(Vec::new());
        rank_candidates(
            &plan,
            candidates.clone(),
            &RankOptions {
                rerank_pair_tokens: window,
                ..RankOptions::default()
            },
            |passages: &[&str]| {
                sizes.borrow_mut().push(passages.len());
                None
            },
        )
        .unwrap();
        sizes.into_inner()
    };
    assert_eq!(pairs(None), [7]);
    assert_eq!(pairs(Some(0)), [7]);
    assert_eq!(pairs(Some(128)), [7]);
    assert_eq!(pairs(Some(256)), [3]);
    assert_eq!(pairs(Some(512)), [1]);
    // A small window makes every pair cheap: the pool size binds instead.
    assert_eq!(pairs(Some(16)), [20]);
}

#[test]
fn a_reranked_lane_keeps_its_scale_however_unsure_the_reranker_is() {
    // The reranker gives the right answer only p = 0.04 (a chat turn, for a
    // model trained on web search): it must still outrank an unrelated
    // standing memory that no search found.
    let plan = ordinary_plan();
    // Found by both searches, as a semantic match is.
    let mut candidates: Vec<Candidate> = (0..3)
        .flat_map(|i| {
            [
                text(&P, 100 + u64::from(i), Lane::Semantic, i),
                vector(&P, 100 + u64::from(i), Lane::Semantic, i, 0.5),
            ]
        })
        .collect();
    candidates.push(listed(&P, 9, Lane::Facts, 0));
    let ranked = rank_candidates(
        &plan,
        candidates,
        &RankOptions::default(),
        |p: &[&str]| {
            Some(
                (0..p.len())
                    .map(|i| if i == 1 { -3.2 } else { -4.6 })
                    .collect(),
            )
        },
    )
    .unwrap();
    assert_eq!(ranked[0].frame_id, 101);
    assert!(ranked[0].strength > 0.9 * ranked[0].fused);
    // What the query found is foreground; the facts lane's memory, fetched
    // whatever the query, is background.
    assert!(!ranked[0].background);
    assert!(ranked.iter().any(|m| m.frame_id == 9 && m.background));
}

#[test]
fn the_token_budget_is_shared_by_every_reranked_lane() {
    // A dated query reranks the semantic and the date-window lanes: their
    // pools together stay within one budget.
    let plan = plan_recall("the ledger database in May 2026", NOW, 50).unwrap();
    let reranked: Vec<Lane> = plan
        .lanes
        .iter()
        .filter(|s| s.rerank)
        .map(|s| s.lane)
        .collect();
    assert!(reranked.len() >= 2, "{reranked:?}");
    let long = "the ledger database decision was long and careful ".repeat(30);
    let candidates = reranked
        .iter()
        .flat_map(|&lane| {
            let long = long.clone();
            (0..10).map(move |i| {
                let mut c = text(&P, 1000 * (lane as u64 + 1) + u64::from(i), lane, i);
                c.frame.content = long.clone();
                c
            })
        })
        .collect();
    let sizes = RefCell::new(Vec::new());
    rank_candidates(
        &plan,
        candidates,
        &RankOptions::default(),
        |passages: &[&str]| {
            sizes.borrow_mut().push(passages.len());
            None
        },
    )
    .unwrap();
    let total: usize = sizes.into_inner().iter().sum();
    assert_eq!(total, (RERANK_TOKEN_BUDGET / RERANK_PAIR_TOKENS) as usize);
}

#[test]
fn a_passage_two_lanes_share_is_scored_once_and_counts_in_both() {
    // On a mind of chat turns the semantic and raw-detail lanes find the
    // same turns: one call reads each once, and both lanes are reranked by
    // it (an unreranked lane's best fused turn would otherwise outrank the
    // reranker's pick on its unscaled strength).
    let plan = plan_recall("ledger database", NOW, 50).unwrap();
    assert!(plan.lane(Lane::RawDetail).is_some_and(|spec| spec.rerank));
    let turn =
        |i: u32| format!("[mind-rawturn conv:c turn:{i} speaker:A] ledger database turn {i}");
    let candidates: Vec<Candidate> = (0..4)
        .flat_map(|i| {
            [Lane::Semantic, Lane::RawDetail].map(|lane| {
                let mut c = text(&P, u64::from(i), lane, i);
                c.frame.content = turn(i);
                c
            })
        })
        .collect();
    let calls = RefCell::new(Vec::new());
    let ranked = rank_candidates(
        &plan,
        candidates,
        &RankOptions::default(),
        |passages: &[&str]| {
            calls.borrow_mut().push(passages.len());
            // The reranker prefers the last turn.
            Some((0..passages.len()).map(|i| i as f32).collect())
        },
    )
    .unwrap();
    assert_eq!(calls.into_inner(), [4], "four distinct passages, one call");
    assert_eq!(ranked[0].frame_id, 3, "the reranker's pick leads");
    assert_eq!(ranked.len(), 4, "each frame once");
    let leader = &ranked[0];
    assert_eq!(leader.evidence.rerank_position, Some(0));
    assert!(leader.also_in.contains(&Lane::RawDetail) || leader.lane == Lane::RawDetail);
}

#[test]
fn every_reranked_lane_is_judged_against_the_calls_best_passage() {
    // "Which database do we keep invoices in?": the raw-detail lane's best
    // turn mentions invoices (p 0.02), the semantic lane's best memory is
    // the answer (p 0.99). Each is its lane's first fused hit; judged only
    // within its own lane each would score as that lane's best, and the
    // turn's relevance decided. Read against the call's best, the answer
    // leads and the turn keeps only its unconfirmed share.
    let plan = plan_recall("ledger database", NOW, 50).unwrap();
    assert!(plan.lane(Lane::RawDetail).is_some_and(|spec| spec.rerank));
    let mut turn = text(&P, 1, Lane::RawDetail, 0);
    turn.frame.content =
        "[mind-rawturn conv:c turn:1 speaker:A] the ledger database export failed".into();
    // The turn is a little more recent: alone, relevance would put it first.
    turn.frame.access_count = 3;
    let answer = text(&P, 2, Lane::Semantic, 0);
    let logit = |p: f64| (p / (1.0 - p)).ln() as f32;
    let ranked = rank_candidates(
        &plan,
        vec![turn, answer],
        &RankOptions::default(),
        |passages: &[&str]| {
            Some(
                passages
                    .iter()
                    .map(|passage| {
                        if passage.contains("export failed") {
                            logit(0.02)
                        } else {
                            logit(0.99)
                        }
                    })
                    .collect(),
            )
        },
    )
    .unwrap();
    assert_eq!(ranked[0].frame_id, 2, "{ranked:#?}");
    let turn = ranked.iter().find(|m| m.frame_id == 1).unwrap();
    assert!(
        turn.strength < 0.3 * turn.fused,
        "the rejected turn keeps only the unconfirmed share: {} of {}",
        turn.strength,
        turn.fused
    );
}

#[test]
fn a_current_version_counts_at_the_best_reading_of_the_versions_it_answers_for() {
    // "What kind of diet do I follow?": the search found "Maya is
    // vegetarian.", which "she's pescatarian now" replaced. The reranker
    // recognises the old statement as an answer and not the new one's
    // words; the current version answers with the old one's recognition.
    let plan = ordinary_plan();
    let mut current = vector(&P, 7, Lane::Semantic, 0, 0.45);
    current.frame.content = "Maya started eating fish again; she is pescatarian now.".into();
    current.frame.stands_for = vec!["Maya is vegetarian.".into()];
    let other = vector(&P, 8, Lane::Semantic, 1, 0.44);
    let read = RefCell::new(Vec::new());
    let ranked = rank_candidates(
        &plan,
        vec![current, other],
        &RankOptions::default(),
        |passages: &[&str]| {
            read.borrow_mut()
                .extend(passages.iter().map(|p| p.to_string()));
            Some(
                passages
                    .iter()
                    .map(|p| if p.contains("vegetarian") { 3.0 } else { -9.0 })
                    .collect(),
            )
        },
    )
    .unwrap();
    assert!(
        read.into_inner().iter().any(|p| p == "Maya is vegetarian."),
        "the earlier version is read"
    );
    assert_eq!(ranked[0].frame_id, 7, "{ranked:#?}");
    let probability = ranked[0].evidence.rerank_probability.unwrap();
    assert!(probability > 0.9, "{probability}");
}

#[test]
fn the_reranked_lanes_take_turns_with_the_budget() {
    // Two lanes with different passages, each pair the full 128 tokens: the
    // budget buys an odd number of pairs (896 / 128 = 7), and the lanes
    // take turns: the first gets one more than the second, never all.
    let plan = plan_recall("ledger database", NOW, 50).unwrap();
    let long = |i: u32| {
        format!("[mind-rawturn conv:c turn:{i} speaker:A] ")
            + &"the ledger database decision was long and careful ".repeat(30)
    };
    let candidates: Vec<Candidate> = (0..6)
        .flat_map(|i| {
            [(Lane::Semantic, 0u64), (Lane::RawDetail, 100)].map(|(lane, base)| {
                let mut c = text(&P, base + u64::from(i), lane, i);
                c.frame.content = long(i + base as u32);
                c
            })
        })
        .collect();
    let ranked = rank_candidates(
        &plan,
        candidates,
        &RankOptions {
            floor: RelevanceFloor::OFF,
            ..RankOptions::default()
        },
        |passages: &[&str]| {
            assert_eq!(
                passages.len(),
                (RERANK_TOKEN_BUDGET / RERANK_PAIR_TOKENS) as usize
            );
            Some(vec![0.0; passages.len()])
        },
    )
    .unwrap();
    let reranked = |lane: Lane| {
        ranked
            .iter()
            .filter(|m| m.lane == lane && m.evidence.rerank_position.is_some())
            .count()
    };
    let pairs = (RERANK_TOKEN_BUDGET / RERANK_PAIR_TOKENS) as usize;
    assert_eq!(pairs % 2, 1, "an odd number of pairs shows the turns");
    assert_eq!(reranked(Lane::Semantic), pairs / 2 + 1);
    assert_eq!(reranked(Lane::RawDetail), pairs / 2);
}

/// A raw turn of `speaker`, found by the keyword search at `rank` with
/// BM25 `bm25`.
fn turn(id: u64, speaker: &str, rank: u32, bm25: f64) -> Candidate {
    Candidate {
        hit: LaneHit::Text {
            rank,
            bm25,
            chunk: None,
        },
        frame: frame(&format!(
            "[mind-rawturn conv:s1 turn:{id} speaker:{speaker}] I painted a lake at sunrise."
        )),
        ..text(&P, id, Lane::Semantic, rank)
    }
}

#[test]
fn a_turn_of_the_speaker_the_query_names_goes_first() {
    let candidates = || {
        vec![
            turn(1, "Caroline", 0, 5.0),
            turn(2, "Melanie", 1, 4.5),
            turn(3, "Melanie", 2, 1.0),
        ]
    };
    let ask = |query: &str| {
        let plan = plan_recall(query, NOW, 0).unwrap();
        rank(&plan, candidates(), RelevanceFloor::default())
    };
    // Nobody named: the evidence decides.
    let plain = ask("what was painted at sunrise");
    assert_eq!(
        plain.iter().map(|m| m.frame_id).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    // Melanie named: her close second goes first, raised by a quarter…
    let named = ask("What did Melanie paint at sunrise?");
    assert_eq!(
        named.iter().map(|m| m.frame_id).collect::<Vec<_>>(),
        [2, 1, 3]
    );
    let fused = |ranked: &[RankedMemory], id: u64| {
        ranked
            .iter()
            .find(|m| m.frame_id == id)
            .map(|m| m.fused)
            .unwrap()
    };
    assert!(close(
        fused(&named, 2),
        fused(&plain, 2) * (1.0 + NAMED_SPEAKER_BOOST)
    ));
    assert!(close(fused(&named, 1), fused(&plain, 1)));
    // …but her weak match stays below Caroline's strong one.
    assert!(fused(&named, 3) < fused(&named, 1));
}

#[test]
fn a_role_is_not_a_name() {
    let plan = plan_recall("what did the user paint at sunrise", NOW, 0).unwrap();
    let ranked = rank(
        &plan,
        vec![turn(1, "assistant", 0, 5.0), turn(2, "user", 1, 4.5)],
        RelevanceFloor::default(),
    );
    assert_eq!(
        ranked.iter().map(|m| m.frame_id).collect::<Vec<_>>(),
        [1, 2]
    );
}

#[test]
fn the_reranker_reads_who_spoke() {
    let plan = plan_recall("What did Mary Ann paint?", NOW, 0).unwrap();
    let passages = RefCell::new(Vec::new());
    rank_candidates(
        &plan,
        vec![turn(7, "Mary_Ann", 0, 5.0)],
        &RankOptions::default(),
        |asked: &[&str]| {
            passages
                .borrow_mut()
                .extend(asked.iter().map(|p| p.to_string()));
            Some(vec![0.0; asked.len()])
        },
    )
    .unwrap();
    assert_eq!(
        passages.into_inner(),
        ["Mary Ann: I painted a lake at sunrise."]
    );
}

#[test]
fn hits_on_the_topic_that_answer_nothing_give_an_empty_recall_and_a_near_miss() {
    let plan = plan_recall("What is my cat's name?", NOW, 0).unwrap();
    let on_topic = |id: u64, content: &str, cosine: f64| {
        let mut c = vector(&P, id, Lane::Semantic, 0, cosine);
        c.frame.content = content.to_string();
        c
    };
    let mut keyword = text(&P, 2, Lane::Semantic, 0);
    // Shares "name" (and "s", which is no word) with the query: half of it.
    keyword.frame.content = "Call me Sam: my name's Sam.".to_string();
    let candidates = vec![
        on_topic(1, "My dog is called Rex.", 0.38),
        keyword,
        listed(&P, 3, Lane::Importance, 0),
    ];
    let options = RankOptions::default();
    let ranking = rank_recall(&plan, candidates.clone(), &options, no_rerank).unwrap();
    assert!(ranking.memories.is_empty(), "{:?}", keys(&ranking.memories));
    let miss = ranking.near_miss.expect("the nearest miss");
    assert_eq!(miss.frame_id, 1);
    assert_eq!(miss.text, "My dog is called Rex.");

    // A hit close enough in meaning answers, and brings the standing lane.
    let mut answered = candidates;
    answered.push(on_topic(4, "Our cat is Miso.", 0.62));
    let ranking = rank_recall(&plan, answered, &options, no_rerank).unwrap();
    assert_eq!(ranking.near_miss, None);
    assert!(ranking.memories.iter().any(|m| m.frame_id == 4));
    assert!(ranking.memories.iter().any(|m| m.lane == Lane::Importance));
}

#[test]
fn a_single_letter_is_no_keyword_evidence() {
    let plan = plan_recall("cat's", NOW, 0).unwrap();
    let mut hit = text(&P, 1, Lane::Semantic, 0);
    hit.frame.content = "Let's go with Tailwind.".to_string();
    assert!(rank(&plan, vec![hit], RelevanceFloor::default()).is_empty());
}

#[test]
fn a_keyword_hit_on_a_stem_holds_only_the_words_it_shares() {
    // The index matched "called" to "calls": that is one of the two query
    // words, not both.
    let plan = plan_recall("What is our cat called?", NOW, 0).unwrap();
    let mut hit = text(&P, 1, Lane::Semantic, 0);
    hit.frame.content = "Aga prefers Teams calls over phone calls with clients.".to_string();
    assert!(rank(&plan, vec![hit.clone()], RelevanceFloor::default()).is_empty());
    // A hit holding both words answers.
    hit.frame.content = "Our cat is called Miso.".to_string();
    assert_eq!(
        keys(&rank(&plan, vec![hit], RelevanceFloor::default())).len(),
        1
    );
}

#[test]
fn a_current_version_holds_the_words_of_the_earlier_one_it_answers_for() {
    let plan = plan_recall("Where do I live?", NOW, 0).unwrap();
    let mut hit = text(&P, 2, Lane::Semantic, 0);
    hit.frame.content = "I moved to Porto.".to_string();
    assert!(rank(&plan, vec![hit.clone()], RelevanceFloor::default()).is_empty());
    hit.frame.stands_for = vec!["I live in Lisbon.".to_string()];
    assert_eq!(
        keys(&rank(&plan, vec![hit], RelevanceFloor::default())).len(),
        1
    );
}

#[test]
fn a_reranker_that_recognises_nothing_does_not_overturn_both_searches() {
    let plan = ordinary_plan();
    // Frame 1 is the first hit of both searches, frame 2 the second.
    let candidates = vec![
        text(&P, 1, Lane::Semantic, 0),
        vector(&P, 1, Lane::Semantic, 0, 0.7),
        text(&P, 2, Lane::Semantic, 1),
        vector(&P, 2, Lane::Semantic, 1, 0.6),
    ];
    let first_with = |logits: [f32; 2]| {
        rank_candidates(
            &plan,
            candidates.clone(),
            &RankOptions::default(),
            |p: &[&str]| {
                assert_eq!(p.len(), 2);
                Some(logits.to_vec())
            },
        )
        .unwrap()[0]
            .frame_id
    };
    // Both near p = 0 (a web-search model on chat text): the searches win.
    assert_eq!(first_with([-6.0, -4.6]), 1);
    // Sure of the second: the reranker decides.
    assert_eq!(first_with([-2.0, 3.0]), 2);
}
