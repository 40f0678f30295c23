//! Indexed queries against real SQLite files: BM25 full text (stop words,
//! OR, hostile syntax), vector KNN with chunk hits, the filters, listings,
//! and the embedder fingerprint rules with reindex.

// Helpers outside #[test] functions unwrap too: this is test code.

use crate::support::*;
use hive_mind_core::Importance;
use hive_mind_store::search::{MAX_QUERY_WORDS, fts_query, fts_words};
use hive_mind_store::{
    EmbedOutcome, FakeHashVectorSource, Mind, Minds, SearchFilter, StoreConfig, StoreError,
    VectorSource, VectorState,
};

fn seed(minds: &mut Minds) -> Vec<u64> {
    let items = [
        (
            "The ledger service uses PostgreSQL.",
            Importance::Important,
            "2026-03-01",
        ),
        (
            "[mind-fact] Sam prefers green tea.",
            Importance::Critical,
            "2026-04-10",
        ),
        (
            "[mind-event] We shipped the billing rewrite.",
            Importance::Normal,
            "2026-05-08",
        ),
        (
            "[mind-profile user] Sam is a backend engineer.",
            Importance::Normal,
            "2026-05-09",
        ),
        (
            "Scratch: remember to water the plants.",
            Importance::Temporary,
            "2026-05-20",
        ),
    ];
    items
        .iter()
        .map(|(text, importance, date)| {
            let mut new = frame(&Mind::Personal, text);
            new.importance = *importance;
            new.created_at = Some((*date).to_string());
            minds.save_frame(new).unwrap().frame.frame_ref.id
        })
        .collect()
}

#[test]
fn fts_queries_drop_stop_words_and_quote_everything() {
    assert_eq!(
        fts_query("What is the ledger?").as_deref(),
        Some("\"ledger\"")
    );
    assert_eq!(
        fts_query("ledger AND \"tea\" NEAR(x) col:val -minus *").as_deref(),
        Some("\"ledger\" OR \"tea\" OR \"near\" OR \"col\" OR \"val\" OR \"minus\"")
    );
    // A single letter is no word: the "s" of "cat's" would match "let's".
    assert_eq!(fts_query("cat's").as_deref(), Some("\"cat\""));
    assert_eq!(fts_query("the of and"), None);
    assert_eq!(fts_query("  "), None);
}

/// `count` distinct searchable words, each `prefix` and a number.
fn numbered_words(prefix: &str, count: usize) -> Vec<String> {
    (0..count).map(|n| format!("{prefix}{n}")).collect()
}

#[test]
fn a_query_keeps_its_first_distinct_words_up_to_the_cap() {
    assert_eq!(
        fts_words("Ledger tea, the LEDGER and tea again"),
        ["ledger", "tea", "again"]
    );
    let mut words = numbered_words("w", 200_000);
    // Repeats do not count against the cap.
    words.splice(1..1, vec!["w0".to_string(); 1000]);
    let kept = fts_words(&words.join(" "));
    assert_eq!(kept, numbered_words("w", MAX_QUERY_WORDS));
}

#[test]
fn a_huge_query_completes_with_as_many_statements_as_a_small_one() {
    let dir = tempfile::tempdir().unwrap();
    let databases = CountingDatabases::new(dir.path());
    let mut store =
        hive_mind_store::MindStore::open(&databases, Mind::Personal, true, &config()).unwrap();
    for text in [
        "The ledger service uses PostgreSQL.",
        "Sam prefers green tea.",
    ] {
        store.save_frame(frame(&Mind::Personal, text)).unwrap();
    }
    let all = SearchFilter::default();
    // Each search asks about words not counted before (none are cached).
    let statements_of = |query: &str| {
        let before = databases.count();
        let hits = store.search_text(query, &all, 10).unwrap();
        (databases.count() - before, hits.len())
    };
    let (small, small_hits) = statements_of("ledger x1 x2");
    assert_eq!(small_hits, 1);
    let capped_query = format!(
        "ledger {}",
        numbered_words("y", MAX_QUERY_WORDS - 1).join(" ")
    );
    assert_eq!(fts_words(&capped_query).len(), MAX_QUERY_WORDS);
    let (capped, capped_hits) = statements_of(&capped_query);
    assert_eq!(capped_hits, 1);
    // 200,000 distinct words after "tea": "tea" is searched; "ledger", past
    // the cap, is not.
    let huge = format!("tea {} ledger", numbered_words("z", 200_000).join(" "));
    let (huge_statements, huge_hits) = statements_of(&huge);
    assert_eq!(huge_hits, 1);
    assert_eq!(capped, small, "statements grow with the query's words");
    assert_eq!(
        huge_statements, small,
        "statements grow with the query's words"
    );
}

#[test]
fn full_text_search_ranks_by_bm25_with_filters() {
    let (_dir, mut minds) = minds();
    let ids = seed(&mut minds);
    let all = SearchFilter::default();
    let hits = minds
        .search_text("what does the ledger use?", &all, 10)
        .unwrap();
    assert_eq!(hits[0].frame_ref.id, ids[0]);
    assert!(hits[0].score > 0.0);
    // OR across words.
    let hits = minds.search_text("tea billing", &all, 10).unwrap();
    let found: Vec<u64> = hits.iter().map(|h| h.frame_ref.id).collect();
    assert!(found.contains(&ids[1]) && found.contains(&ids[2]));
    // Stemming: "shipping" finds "shipped".
    assert_eq!(
        minds.search_text("shipping", &all, 10).unwrap()[0]
            .frame_ref
            .id,
        ids[2]
    );
    // Hostile FTS syntax is just words.
    for hostile in [
        "\"",
        "AND OR NOT",
        "ledger) OR (",
        "col:ledger",
        "*",
        "NEAR(a b)",
        "'; DROP TABLE memory_frames; --",
    ] {
        minds.search_text(hostile, &all, 10).unwrap();
    }
    assert!(minds.search_text("the a of", &all, 10).unwrap().is_empty());

    // Date window (inclusive days), prefix lane, importance.
    let may = SearchFilter {
        since: Some("2026-05-01".into()),
        until: Some("2026-05-08".into()),
        ..Default::default()
    };
    let hits = minds.search_text("billing sam ledger", &may, 10).unwrap();
    assert_eq!(
        hits.iter().map(|h| h.frame_ref.id).collect::<Vec<_>>(),
        vec![ids[2]]
    );
    let facts = SearchFilter {
        content_prefix: Some("[mind-fact]".into()),
        ..Default::default()
    };
    let hits = minds.search_text("sam", &facts, 10).unwrap();
    assert_eq!(
        hits.iter().map(|h| h.frame_ref.id).collect::<Vec<_>>(),
        vec![ids[1]]
    );
    let important = SearchFilter {
        min_importance: Some(Importance::Important),
        ..Default::default()
    };
    let hits = minds.search_text("sam ledger tea", &important, 10).unwrap();
    let mut found: Vec<u64> = hits.iter().map(|h| h.frame_ref.id).collect();
    found.sort();
    assert_eq!(found, vec![ids[0], ids[1]]);
    let bad = SearchFilter {
        since: Some("last week".into()),
        ..Default::default()
    };
    assert!(matches!(
        minds.search_text("sam", &bad, 10),
        Err(StoreError::InvalidInput(_))
    ));
}

#[test]
fn vector_search_finds_frames_and_chunks_with_filters() {
    let (_dir, mut minds) = minds();
    let ids = seed(&mut minds);
    let long = minds
        .save_frame(frame(&Mind::Personal, &long_text("kubernetes")))
        .unwrap()
        .frame;
    let fake = fake();
    let all = SearchFilter::default();

    let hits = minds
        .search_vector(&fake.vector("Sam prefers green tea"), &all, 3)
        .unwrap();
    assert_eq!(hits[0].frame_ref.id, ids[1]);
    assert!(hits[0].score > hits[1].score);
    assert!(hits.len() <= 3);
    // Each frame once.
    let mut seen: Vec<u64> = hits.iter().map(|h| h.frame_ref.id).collect();
    seen.dedup();
    assert_eq!(seen.len(), hits.len());

    // A chunk's own text hits its frame, with the chunk's offsets.
    let plan = hive_mind_store::plan_chunks(&long.content, fake_plan());
    let query = fake.vector(&plan[1].text);
    let hits = minds.search_vector(&query, &all, 2).unwrap();
    assert_eq!(hits[0].frame_ref.id, long.frame_ref.id);
    assert_eq!(hits[0].chunk, Some((plan[1].char_start, plan[1].char_end)));
    assert!((hits[0].score - 1.0).abs() < 1e-4);

    // Filtered: the exact scan honours the same filters.
    let facts = SearchFilter {
        content_prefix: Some("[mind-".into()),
        until: Some("2026-05-08".into()),
        ..Default::default()
    };
    let hits = minds
        .search_vector(&fake.vector("ledger PostgreSQL"), &facts, 10)
        .unwrap();
    let mut found: Vec<u64> = hits.iter().map(|h| h.frame_ref.id).collect();
    found.sort();
    assert_eq!(found, vec![ids[1], ids[2]]);
    let filtered_chunk = SearchFilter {
        min_importance: Some(Importance::Normal),
        ..Default::default()
    };
    let hits = minds.search_vector(&query, &filtered_chunk, 1).unwrap();
    assert_eq!(hits[0].chunk, Some((plan[1].char_start, plan[1].char_end)));

    // A query of the wrong dimension.
    assert!(matches!(
        minds.search_vector(&[0.5; 3], &all, 3),
        Err(StoreError::DimensionMismatch {
            expected: DIM,
            actual: 3
        })
    ));
}

#[test]
fn listings_serve_the_lanes() {
    let (_dir, mut minds) = minds();
    let ids = seed(&mut minds);
    let lane = |prefix: &str| SearchFilter {
        content_prefix: Some(prefix.into()),
        ..Default::default()
    };
    let facts = minds.list_frames(&lane("[mind-fact]"), false, 10).unwrap();
    assert_eq!(facts.len(), 1);
    let profiles = minds
        .list_frames(&lane("[mind-profile"), false, 10)
        .unwrap();
    assert_eq!(profiles[0].frame_ref.id, ids[3]);
    let newest = minds
        .list_frames(&SearchFilter::default(), false, 2)
        .unwrap();
    assert_eq!(
        newest.iter().map(|f| f.frame_ref.id).collect::<Vec<_>>(),
        vec![ids[4], ids[3]]
    );
    let oldest = minds
        .list_frames(&SearchFilter::default(), true, 1)
        .unwrap();
    assert_eq!(oldest[0].frame_ref.id, ids[0]);
    let important = minds
        .mind(&Mind::Personal)
        .unwrap()
        .important_frames(10)
        .unwrap();
    assert_eq!(
        important.iter().map(|f| f.frame_ref.id).collect::<Vec<_>>(),
        vec![ids[1], ids[0]]
    );
}

#[test]
fn searches_span_minds_and_name_them() {
    let (_dir, mut minds) = minds();
    let acme = Mind::workspace("acme").unwrap();
    minds
        .save_frame(frame(&Mind::Personal, "personal note about tea"))
        .unwrap();
    minds
        .save_frame(frame(&acme, "workspace note about tea"))
        .unwrap();
    let both = SearchFilter {
        minds: vec![Mind::Personal, acme.clone()],
        ..Default::default()
    };
    let hits = minds.search_text("tea", &both, 10).unwrap();
    let mut in_minds: Vec<Mind> = hits.iter().map(|h| h.frame_ref.mind.clone()).collect();
    in_minds.sort();
    assert_eq!(in_minds, vec![Mind::Personal, acme.clone()]);
    let hits = minds
        .search_vector(&fake().vector("tea"), &both, 10)
        .unwrap();
    assert_eq!(hits.len(), 2);
    let missing = SearchFilter {
        minds: vec![Mind::workspace("nope").unwrap()],
        ..Default::default()
    };
    assert!(matches!(
        minds.search_text("tea", &missing, 10),
        Err(StoreError::MindNotFound(_))
    ));
}

#[test]
fn embedder_fingerprint_rules_and_reindex() {
    let dir = tempfile::tempdir().unwrap();
    let mut minds = open_minds(dir.path(), config()).unwrap();
    let long = long_text("reindex");
    minds.save_frame(frame(&Mind::Personal, "one")).unwrap();
    minds.save_frame(frame(&Mind::Personal, &long)).unwrap();
    minds
        .save_frame(frame(&Mind::workspace("acme").unwrap(), "two"))
        .unwrap();
    drop(minds);

    // Same dimension, other model: the mind keeps the fingerprint of the
    // model that made its vectors, searches them no more (another model's
    // query vectors share no geometry with them), says so, and still saves;
    // `reindex` with the new model puts it right.
    let mut renamed = fake();
    renamed.model = "hash-words-v2".into();
    let same_dim = StoreConfig {
        embedder: Some(renamed.fingerprint()),
        max_tokens: renamed.max_tokens,
    };
    let mut minds = open_minds(dir.path(), same_dim.clone()).unwrap();
    let store = minds.mind(&Mind::Personal).unwrap();
    assert_eq!(store.vector_state(), VectorState::Foreign { dim: DIM });
    let status = store.status().unwrap();
    assert_eq!(status.embedder.unwrap().model, "hash-words-v1");
    assert!(
        status
            .notes
            .iter()
            .any(|note| note.contains("hash-words-v1") && note.contains("hive-mind reindex")),
        "{:?}",
        status.notes
    );
    assert!(
        store
            .search_vector(&renamed.vector("one"), &Default::default(), 5)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        minds
            .search_text("one", &Default::default(), 1)
            .unwrap()
            .len(),
        1
    );
    let saved = hive_mind_store::vectors::embed_frame(
        &renamed,
        hive_mind_store::NewFrame::new(Mind::Personal, "four", Vec::new()),
    )
    .unwrap();
    minds.save_frame(saved).unwrap();
    minds.reindex(&renamed, &mut |_, _, _| {}).unwrap();
    let store = minds.mind(&Mind::Personal).unwrap();
    assert_eq!(store.vector_state(), VectorState::Ready { dim: DIM });
    assert!(store.notes().unwrap().is_empty());
    assert_eq!(
        store
            .search_vector(&renamed.vector("four"), &Default::default(), 1)
            .unwrap()
            .len(),
        1
    );
    drop(minds);
    // A mind reopened with the model its vectors now come from is ready.
    let mut minds = open_minds(dir.path(), same_dim).unwrap();
    assert_eq!(
        minds.mind(&Mind::Personal).unwrap().vector_state(),
        VectorState::Ready { dim: DIM }
    );
    drop(minds);

    // Other dimension: a typed error on every vector operation, text still works.
    let bigger = FakeHashVectorSource::new(DIM * 2);
    let other_dim = StoreConfig {
        embedder: Some(bigger.fingerprint()),
        max_tokens: bigger.max_tokens,
    };
    let mut minds = open_minds(dir.path(), other_dim).unwrap();
    let store = minds.mind(&Mind::Personal).unwrap();
    assert_eq!(
        store.vector_state(),
        VectorState::Mismatch {
            expected: DIM,
            actual: DIM * 2
        }
    );
    assert!(matches!(
        store.search_vector(&bigger.vector("one"), &Default::default(), 1),
        Err(StoreError::DimensionMismatch { expected: DIM, actual }) if actual == DIM * 2
    ));
    let new = hive_mind_store::vectors::embed_frame(
        &bigger,
        hive_mind_store::NewFrame::new(Mind::Personal, "three", Vec::new()),
    )
    .unwrap();
    assert!(matches!(
        minds.save_frame(new.clone()),
        Err(StoreError::DimensionMismatch { .. })
    ));
    assert_eq!(
        minds
            .search_text("one", &Default::default(), 1)
            .unwrap()
            .len(),
        1
    );

    // Reindex: every frame and chunk of every mind, with progress.
    let mut calls = Vec::new();
    let done = minds
        .reindex(&bigger, &mut |mind, finished, total| {
            calls.push((mind.clone(), finished, total))
        })
        .unwrap();
    assert_eq!(done.len(), 2);
    assert!(calls.contains(&(Mind::Personal, 3, 3)));
    drop(minds);
    let mut minds = open_minds(dir.path(), other_dim_config(&bigger)).unwrap();
    for mind in minds.list().unwrap() {
        let store = minds.mind(&mind).unwrap();
        assert_eq!(store.vector_state(), VectorState::Ready { dim: DIM * 2 });
        let report = store.check().unwrap();
        assert!(report.ok(), "{mind}: {:?}", report.problems);
        assert_eq!(report.status.embedder.clone().unwrap().dim, DIM * 2);
    }
    assert!(report_chunks(&mut minds) > 0);
    minds.save_frame(new).unwrap();
    let hits = minds
        .search_vector(&bigger.vector("one"), &Default::default(), 1)
        .unwrap();
    assert_eq!(hits[0].score.round(), 1.0);
    // The tables are sized for the new width: a vector of the old one is
    // refused by the mind itself, whatever writes it.
    let store = minds.mind(&Mind::Personal).unwrap();
    for (width, refused) in [(DIM * 4, true), (DIM * 8, false)] {
        let written = store.connection().execute(
            "INSERT INTO memory_frame_chunks_vec (id, embedding) VALUES (?1, zeroblob(?2))",
            [9_000_000 + u64::from(width), u64::from(width)],
        );
        assert_eq!(written.is_err(), refused, "{width} bytes: {written:?}");
    }
}

fn other_dim_config(source: &FakeHashVectorSource) -> StoreConfig {
    StoreConfig {
        embedder: Some(source.fingerprint()),
        max_tokens: source.max_tokens,
    }
}

fn report_chunks(minds: &mut Minds) -> u64 {
    minds
        .mind(&Mind::Personal)
        .unwrap()
        .status()
        .unwrap()
        .chunk_vectors
}

#[test]
fn a_mind_without_an_embedder_cannot_take_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let mut minds = open_minds(dir.path(), StoreConfig::default()).unwrap();
    assert!(matches!(
        minds.save_frame(frame(&Mind::Personal, "no embedder")),
        Err(StoreError::NoEmbedder)
    ));
    assert_eq!(
        minds
            .mind(&Mind::Personal)
            .unwrap()
            .status()
            .unwrap()
            .frames,
        0
    );
}

/// The ids of a vector search's hits, in order.
fn ids(hits: &[hive_mind_store::Hit]) -> Vec<u64> {
    hits.iter().map(|hit| hit.frame_ref.id).collect()
}

#[test]
fn the_in_memory_index_follows_writes_from_another_connection() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = open_minds(dir.path(), config()).unwrap();
    let mut reader = open_minds(dir.path(), config()).unwrap();
    let fake = fake();
    let all = SearchFilter::default();
    let seeded = seed(&mut writer);

    // The reader's first search loads the index.
    let query = fake.vector("Sam prefers green tea");
    let hits = reader.search_vector(&query, &all, 3).unwrap();
    assert_eq!(hits[0].frame_ref.id, seeded[1]);

    // A frame written by the other connection is found next time.
    let added = writer
        .save_frame(frame(&Mind::Personal, "Sam prefers green tea with honey."))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let query = fake.vector("Sam prefers green tea with honey.");
    let hits = reader.search_vector(&query, &all, 3).unwrap();
    assert_eq!(hits[0].frame_ref.id, added);

    // An importance change moves it out of a filtered search.
    let at_least_normal = SearchFilter {
        min_importance: Some(Importance::Normal),
        ..Default::default()
    };
    assert!(ids(&reader.search_vector(&query, &at_least_normal, 10).unwrap()).contains(&added));
    writer
        .mind(&Mind::Personal)
        .unwrap()
        .set_importance(added, Importance::Deprecated)
        .unwrap();
    assert!(!ids(&reader.search_vector(&query, &at_least_normal, 10).unwrap()).contains(&added));

    // A deleted frame is gone.
    writer
        .mind(&Mind::Personal)
        .unwrap()
        .delete_frame(added)
        .unwrap();
    assert!(!ids(&reader.search_vector(&query, &all, 10).unwrap()).contains(&added));

    // A reindex (new vector tables, a new epoch) is picked up whole.
    writer.reindex(&fake, &mut |_, _, _| {}).unwrap();
    let query = fake.vector("Sam prefers green tea");
    assert_eq!(
        reader.search_vector(&query, &all, 3).unwrap()[0]
            .frame_ref
            .id,
        seeded[1]
    );
}

#[test]
fn the_index_agrees_with_the_exact_search() {
    let (_dir, mut minds) = minds();
    seed(&mut minds);
    minds
        .save_frame(frame(&Mind::Personal, &long_text("kubernetes")))
        .unwrap();
    for n in 0..40 {
        minds
            .save_frame(frame(
                &Mind::Personal,
                &format!("Note {n}: the {} service talks to {}.", n % 7, n % 5),
            ))
            .unwrap();
    }
    let fake = fake();
    let store = minds.mind(&Mind::Personal).unwrap();
    let filters = [
        SearchFilter::default(),
        SearchFilter {
            content_prefix: Some("[mind-".into()),
            ..Default::default()
        },
        SearchFilter {
            since: Some("2026-04-01".into()),
            until: Some("2026-05-08".into()),
            ..Default::default()
        },
    ];
    for text in [
        "ledger PostgreSQL",
        "service talks",
        "green tea",
        "kubernetes",
    ] {
        let query = fake.vector(text);
        for filter in &filters {
            let index = store.search_vector(&query, filter, 5).unwrap();
            let exact = store.search_vector_exact(&query, filter, 5).unwrap();
            assert_eq!(index.len(), exact.len(), "{text} {filter:?}");
            // Same best frame, and cosines within the quantisation error.
            if let (Some(a), Some(b)) = (index.first(), exact.first()) {
                assert_eq!(a.frame_ref, b.frame_ref, "{text} {filter:?}");
                assert!((a.score - b.score).abs() < 0.02, "{a:?} {b:?}");
            }
        }
    }
    // A prefix longer than the index keeps falls back to SQL, same answer.
    let long_prefix = SearchFilter {
        content_prefix: Some("Note 1: the 1 service talks to 1 and more".into()),
        ..Default::default()
    };
    let query = fake.vector("service talks");
    assert_eq!(
        store.search_vector(&query, &long_prefix, 5).unwrap(),
        store.search_vector_exact(&query, &long_prefix, 5).unwrap()
    );
}

#[test]
fn listings_split_by_importance_and_head_token_keep_the_order() {
    let (_dir, mut minds) = minds();
    for (n, (text, importance)) in [
        ("[mind-fact] one", Importance::Normal),
        ("[mind-fact] two", Importance::Critical),
        ("[mind-facts-are-not-facts] three", Importance::Important),
        ("[mind-fact]four", Importance::Important),
        ("plain five", Importance::Critical),
        ("[mind-fact] six", Importance::Important),
    ]
    .iter()
    .enumerate()
    {
        let mut new = frame(&Mind::Personal, text);
        new.importance = *importance;
        new.created_at = Some(format!("2026-01-{:02}", n + 1));
        minds.save_frame(new).unwrap();
    }
    let listed = |minds: &mut Minds, filter: SearchFilter, oldest_first: bool, limit: u32| {
        minds
            .list_frames(&filter, oldest_first, limit)
            .unwrap()
            .into_iter()
            .map(|frame| frame.content)
            .collect::<Vec<_>>()
    };
    let facts = SearchFilter {
        content_prefix: Some("[mind-fact]".into()),
        ..Default::default()
    };
    // "[mind-fact]four" starts with the prefix though its first token is
    // longer: the second branch finds it.
    assert_eq!(
        listed(&mut minds, facts.clone(), false, 10),
        [
            "[mind-fact] six",
            "[mind-fact]four",
            "[mind-fact] two",
            "[mind-fact] one"
        ]
    );
    assert_eq!(
        listed(&mut minds, facts.clone(), true, 2),
        ["[mind-fact] one", "[mind-fact] two"]
    );
    let important_facts = SearchFilter {
        min_importance: Some(Importance::Important),
        ..facts
    };
    assert_eq!(
        listed(&mut minds, important_facts, false, 10),
        ["[mind-fact] six", "[mind-fact]four", "[mind-fact] two"]
    );
    let important = SearchFilter {
        min_importance: Some(Importance::Important),
        ..Default::default()
    };
    assert_eq!(
        listed(&mut minds, important, false, 3),
        ["[mind-fact] six", "plain five", "[mind-fact]four"]
    );
}

#[test]
fn related_frame_links_are_validated_kept_both_ways_and_deleted_with_their_frame() {
    let (_dir, mut minds) = minds();
    let ids = seed(&mut minds);
    let store = minds.mind(&Mind::Personal).unwrap();
    store
        .link_frames(ids[0], &[(ids[1], 0.8), (ids[2], 0.7)])
        .unwrap();
    assert_eq!(
        store.related_frames(ids[0], 10).unwrap(),
        [(ids[1], 0.8), (ids[2], 0.7)]
    );
    assert_eq!(store.related_frames(ids[1], 10).unwrap(), [(ids[0], 0.8)]);
    // Linking again updates.
    store.link_frames(ids[1], &[(ids[0], 0.9)]).unwrap();
    assert_eq!(store.related_frames(ids[0], 1).unwrap(), [(ids[1], 0.9)]);
    // Bad links write nothing.
    assert!(matches!(
        store.link_frames(ids[3], &[(ids[4], 0.7), (ids[3], 0.9)]),
        Err(StoreError::InvalidInput(_))
    ));
    assert!(matches!(
        store.link_frames(ids[3], &[(ids[4], 0.7), (9_999, 0.9)]),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.link_frames(ids[3], &[(ids[4], 1.5)]),
        Err(StoreError::InvalidInput(_))
    ));
    assert!(store.related_frames(ids[3], 10).unwrap().is_empty());
    // Deleting a frame deletes its links.
    store.delete_frame(ids[2]).unwrap();
    assert_eq!(store.related_frames(ids[0], 10).unwrap(), [(ids[1], 0.9)]);
}

#[test]
fn a_query_of_common_words_searches_the_frames_of_its_rarest_words() {
    use hive_mind_store::search::{POSTINGS_BUDGET, budget_expression};
    let counted = |pairs: &[(&str, u64)]| -> Vec<(String, u64)> {
        pairs.iter().map(|(w, n)| ((*w).to_string(), *n)).collect()
    };
    // Within the budget: every word, OR-ed, as before.
    assert_eq!(
        budget_expression(&counted(&[("ledger", 10), ("postgres", 3)])).as_deref(),
        Some("\"ledger\" OR \"postgres\"")
    );
    // A word no frame holds is left out; no words at all is no search.
    assert_eq!(
        budget_expression(&counted(&[("ledger", 10), ("zzz", 0)])).as_deref(),
        Some("\"ledger\"")
    );
    assert_eq!(budget_expression(&counted(&[("zzz", 0)])), None);
    // Over it: the rarest words (the rarest always, then while they fit)
    // pick the candidates, every word ranks them.
    let big = POSTINGS_BUDGET;
    assert_eq!(
        budget_expression(&counted(&[
            ("release", big * 4),
            ("beacon", big / 2),
            ("sentry", big / 3),
            ("restore", big),
        ]))
        .as_deref(),
        Some(
            "(\"sentry\" OR \"beacon\") AND \
             (\"release\" OR \"beacon\" OR \"sentry\" OR \"restore\")"
        )
    );
    assert_eq!(
        budget_expression(&counted(&[("release", big * 4), ("minutes", big * 2)])).as_deref(),
        Some("(\"minutes\") AND (\"release\" OR \"minutes\")")
    );
}

#[test]
fn searches_run_together_return_what_each_would_alone() {
    let (_dir, mut minds) = minds();
    seed(&mut minds);
    for n in 0..30 {
        let mut new = frame(
            &Mind::Personal,
            &format!(
                "{}Note {n}: the ledger service {} talks to billing.",
                [
                    "",
                    "[mind-rawturn conv:a turn:1 speaker:Sam] ",
                    "[mind-fact] "
                ][n % 3],
                n % 4
            ),
        );
        new.created_at = Some(format!("2026-0{}-1{}", n % 5 + 1, n % 9));
        new.importance = Importance::ALL[n % 4];
        minds.save_frame(new).unwrap();
    }
    let fake = fake();
    let store = minds.mind(&Mind::Personal).unwrap();
    let filters = [
        SearchFilter::default(),
        SearchFilter {
            content_prefix: Some("[mind-rawturn".into()),
            ..Default::default()
        },
        SearchFilter {
            since: Some("2026-02-01".into()),
            until: Some("2026-03-31".into()),
            ..Default::default()
        },
        SearchFilter {
            min_importance: Some(Importance::Important),
            content_prefix: Some("[mind-fact]".into()),
            ..Default::default()
        },
    ];
    let searches: Vec<(&SearchFilter, u32)> = filters.iter().zip([5, 3, 40, 2]).collect();
    for query in [
        "ledger billing",
        "Sam talks",
        "green tea",
        "nothing-matches-this",
    ] {
        let together = store.search_text_many(query, &searches).unwrap();
        assert_eq!(together.len(), searches.len());
        for ((filter, limit), hits) in searches.iter().zip(&together) {
            assert_eq!(
                hits,
                &store.search_text_exact(query, filter, *limit).unwrap(),
                "{query} {filter:?}"
            );
        }
        let vector = fake.vector(query);
        let together = store.search_vector_many(&vector, &searches).unwrap();
        for ((filter, limit), hits) in searches.iter().zip(&together) {
            assert_eq!(
                hits,
                &store.search_vector(&vector, filter, *limit).unwrap(),
                "{query} {filter:?}"
            );
        }
    }
}

#[test]
fn the_index_stays_exact_through_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = open_minds(dir.path(), config()).unwrap();
    let mut reader = open_minds(dir.path(), config()).unwrap();
    let fake = fake();
    let mut saved = Vec::new();
    for n in 0..24 {
        let content = if n % 6 == 0 {
            long_text(&format!("topic {n}"))
        } else {
            format!("[mind-fact] fact {n} about service {}", n % 5)
        };
        saved.push(
            writer
                .save_frame(frame(&Mind::Personal, &content))
                .unwrap()
                .frame
                .frame_ref
                .id,
        );
    }
    let all = SearchFilter::default();
    let facts = SearchFilter {
        content_prefix: Some("[mind-fact]".into()),
        ..Default::default()
    };
    let query = fake.vector("fact about service 3");
    // Load the reader's index, then delete two thirds of the frames (past
    // the compaction threshold) and change one frame's importance.
    reader.search_vector(&query, &all, 5).unwrap();
    let store = writer.mind(&Mind::Personal).unwrap();
    // The first frame is the session's I-frame, the base of the others:
    // it stays.
    for id in saved.iter().filter(|id| *id % 3 != 1) {
        store.delete_frame(*id).unwrap();
    }
    let kept: Vec<u64> = saved.iter().copied().filter(|id| id % 3 == 1).collect();
    store.set_importance(kept[0], Importance::Critical).unwrap();
    let critical = SearchFilter {
        min_importance: Some(Importance::Critical),
        ..Default::default()
    };
    let reader_store = reader.mind(&Mind::Personal).unwrap();
    for filter in [&all, &facts, &critical] {
        let index = reader_store.search_vector(&query, filter, 10).unwrap();
        let exact = reader_store
            .search_vector_exact(&query, filter, 10)
            .unwrap();
        let mut index_ids: Vec<u64> = index.iter().map(|hit| hit.frame_ref.id).collect();
        let mut exact_ids: Vec<u64> = exact.iter().map(|hit| hit.frame_ref.id).collect();
        index_ids.sort_unstable();
        exact_ids.sort_unstable();
        assert_eq!(index_ids, exact_ids, "{filter:?}");
        assert!(index_ids.iter().all(|id| kept.contains(id)), "{filter:?}");
    }
    assert_eq!(
        ids(&reader_store.search_vector(&query, &critical, 10).unwrap()),
        [kept[0]]
    );
}

/// An embedder that fails on its `fail_on`-th call (counting from 1) and
/// otherwise answers as `inner`.
struct FailingSource {
    inner: FakeHashVectorSource,
    calls: std::cell::Cell<u32>,
    fail_on: u32,
}

impl VectorSource for FailingSource {
    fn fingerprint(&self) -> hive_mind_store::EmbedderFingerprint {
        self.inner.fingerprint()
    }

    fn max_tokens(&self) -> u32 {
        self.inner.max_tokens()
    }

    fn embed(
        &self,
        texts: &[String],
    ) -> Result<Vec<EmbedOutcome>, hive_mind_store::vectors::EmbedError> {
        let call = self.calls.get() + 1;
        self.calls.set(call);
        if call == self.fail_on {
            return Err("the embedder fell over".into());
        }
        self.inner.embed(texts)
    }
}

/// An embedder that fails on every text holding `poison` (as a provider
/// refuses one text of a batch) and otherwise answers as `inner`.
struct PoisonedSource {
    inner: FakeHashVectorSource,
    poison: &'static str,
}

impl VectorSource for PoisonedSource {
    fn fingerprint(&self) -> hive_mind_store::EmbedderFingerprint {
        self.inner.fingerprint()
    }

    fn max_tokens(&self) -> u32 {
        self.inner.max_tokens()
    }

    fn embed(
        &self,
        texts: &[String],
    ) -> Result<Vec<EmbedOutcome>, hive_mind_store::vectors::EmbedError> {
        Ok(texts
            .iter()
            .map(|text| match text.contains(self.poison) {
                true => Err("HTTP 500: refused".to_string()),
                false => Ok(self.inner.vector(text)),
            })
            .collect())
    }
}

#[test]
fn a_frame_the_embedder_failed_on_is_found_by_text_reported_and_reindexed() {
    let (_dir, mut minds) = minds();
    let poisoned = PoisonedSource {
        inner: fake(),
        poison: "quarantine",
    };
    let long_poisoned = format!("{} quarantine", long_text("reindex"));
    let mut saved = Vec::new();
    for text in ["The ledger uses Postgres.", &long_poisoned, "Tea at noon."] {
        let frame = hive_mind_store::vectors::embed_frame(
            &poisoned,
            hive_mind_store::NewFrame::new(Mind::Personal, text, Vec::new()),
        )
        .unwrap();
        saved.push(minds.save_frame(frame).unwrap().frame.frame_ref.id);
    }
    let store = minds.mind(&Mind::Personal).unwrap();

    // Saved without a vector or chunks: full text finds it, vectors do not.
    let status = store.status().unwrap();
    assert_eq!((status.frames, status.frame_vectors), (3, 2));
    assert_eq!((status.chunks, status.chunk_vectors), (0, 0));
    let hits = store
        .search_text("quarantine", &Default::default(), 5)
        .unwrap();
    assert_eq!(ids(&hits), [saved[1]]);
    let hits = store
        .search_vector(&fake().vector(&long_poisoned), &Default::default(), 5)
        .unwrap();
    assert!(!ids(&hits).contains(&saved[1]), "{hits:?}");
    let report = store.check().unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(
        report.problems[0].starts_with("1 frame(s) without a vector")
            && report.problems[0].contains("reindex"),
        "{:?}",
        report.problems
    );

    // A reindex while the embedder still fails on it leaves it so.
    store.reindex(&poisoned, &mut |_, _| {}).unwrap();
    assert_eq!(store.status().unwrap().frame_vectors, 2);
    assert!(!store.check().unwrap().ok());

    // Once the embedder works, reindex embeds it and plans its chunks.
    store.reindex(&fake(), &mut |_, _| {}).unwrap();
    let report = store.check().unwrap();
    assert!(report.ok(), "{:?}", report.problems);
    let chunks = plan_chunks_of(&long_poisoned);
    assert!(chunks > 1);
    assert_eq!(
        (report.status.frame_vectors, report.status.chunk_vectors),
        (3, chunks)
    );
    let hits = store
        .search_vector(&fake().vector(&long_poisoned), &Default::default(), 1)
        .unwrap();
    assert_eq!(ids(&hits), [saved[1]]);
}

/// Five frames in the personal mind, one long (with chunks); their ids.
fn seed_for_reindex(minds: &mut Minds) -> Vec<u64> {
    ["one", &long_text("reindex"), "two", "three", "four"]
        .iter()
        .map(|text| {
            minds
                .save_frame(frame(&Mind::Personal, text))
                .unwrap()
                .frame
                .frame_ref
                .id
        })
        .collect()
}

/// Every frame vector and chunk vector of a mind, by table and id.
fn stored_vectors(store: &hive_mind_store::MindStore) -> Vec<(&'static str, u64, Vec<u8>)> {
    let mut all = Vec::new();
    for table in ["memory_frames_vec", "memory_frame_chunks_vec"] {
        let rows: Vec<(u64, Vec<u8>)> = store
            .connection()
            .query_all(
                &format!("SELECT id, embedding FROM {table} ORDER BY id"),
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        all.extend(rows.into_iter().map(|(id, bytes)| (table, id, bytes)));
    }
    all
}

#[test]
fn reindex_steps_count_their_progress_and_commit_at_the_end() {
    let (dir, mut minds) = minds();
    let ids = seed_for_reindex(&mut minds);
    let chunks = plan_chunks_of(&long_text("reindex"));
    let bigger = FakeHashVectorSource::new(DIM * 2);
    // A second connection, to see what is committed.
    let mut reader = open_minds(dir.path(), StoreConfig::default()).unwrap();

    let store = minds.mind(&Mind::Personal).unwrap();
    let mut steps = Vec::new();
    loop {
        let step = store.reindex_step(&bigger, 2).unwrap();
        steps.push((step.done, step.total, step.finished));
        if step.finished {
            break;
        }
        assert!(steps.len() < 10, "{steps:?}");
        // Half-way, the other connection still sees the old vectors.
        let other = reader.mind(&Mind::Personal).unwrap();
        let status = other.status().unwrap();
        assert_eq!(status.embedder, Some(fake().fingerprint()));
        assert_eq!((status.frame_vectors, status.chunk_vectors), (5, chunks));
        let hits = other
            .search_vector(&fake().vector("one"), &Default::default(), 1)
            .unwrap();
        assert_eq!(hits[0].frame_ref.id, ids[0]);
    }
    assert_eq!(steps, [(2, 5, false), (4, 5, false), (5, 5, true)]);

    // Committed: the new dimension and fingerprint, every frame and chunk.
    assert_eq!(store.vector_state(), VectorState::Ready { dim: DIM * 2 });
    let report = store.check().unwrap();
    assert!(report.ok(), "{:?}", report.problems);
    assert_eq!(report.status.embedder, Some(bigger.fingerprint()));
    assert_eq!(
        (report.status.frame_vectors, report.status.chunk_vectors),
        (5, chunks)
    );
    assert!(
        stored_vectors(store)
            .iter()
            .all(|(_, _, bytes)| bytes.len() == DIM as usize * 2 * 4)
    );
    let hits = store
        .search_vector(&bigger.vector("three"), &Default::default(), 1)
        .unwrap();
    assert_eq!(hits[0].frame_ref.id, ids[3]);
    let status = reader.mind(&Mind::Personal).unwrap().status().unwrap();
    assert_eq!(status.embedder, Some(bigger.fingerprint()));

    // A mind without frames finishes in one step.
    let acme = Mind::workspace("acme").unwrap();
    let empty = minds.mind_or_create(&acme).unwrap();
    let step = empty.reindex_step(&bigger, 2).unwrap();
    assert_eq!((step.done, step.total, step.finished), (0, 0, true));
    assert_eq!(empty.vector_state(), VectorState::Ready { dim: DIM * 2 });
    assert_eq!(empty.status().unwrap().embedder, Some(bigger.fingerprint()));
}

/// How many chunks a content is stored with.
fn plan_chunks_of(content: &str) -> u64 {
    hive_mind_store::plan_chunks(content, fake_plan()).len() as u64
}

#[test]
fn a_reindex_that_fails_half_way_leaves_the_old_vectors_and_fingerprint() {
    let (dir, mut minds) = minds();
    let ids = seed_for_reindex(&mut minds);
    let store = minds.mind(&Mind::Personal).unwrap();
    let before = stored_vectors(store);
    let status_before = store.status().unwrap();
    assert_eq!(
        before.len() as u64,
        5 + plan_chunks_of(&long_text("reindex"))
    );
    // Load the in-memory index first: it must still agree after the rollback.
    let hits = store
        .search_vector(&fake().vector("two"), &Default::default(), 1)
        .unwrap();
    assert_eq!(hits[0].frame_ref.id, ids[2]);

    let failing = FailingSource {
        inner: FakeHashVectorSource::new(DIM * 2),
        calls: std::cell::Cell::new(0),
        fail_on: 2,
    };
    let first = store.reindex_step(&failing, 2).unwrap();
    assert_eq!((first.done, first.total, first.finished), (2, 5, false));
    let error = store.reindex_step(&failing, 2).unwrap_err();
    assert!(
        matches!(&error, StoreError::Embedder(message) if message.contains("fell over")),
        "{error}"
    );

    // On this connection: the old vectors, chunks and fingerprint.
    let intact = |store: &hive_mind_store::MindStore| {
        assert_eq!(store.vector_state(), VectorState::Ready { dim: DIM });
        assert_eq!(stored_vectors(store), before);
        let report = store.check().unwrap();
        assert!(report.ok(), "{:?}", report.problems);
        assert_eq!(report.status, status_before);
        let hits = store
            .search_vector(&fake().vector("two"), &Default::default(), 1)
            .unwrap();
        assert_eq!(hits[0].frame_ref.id, ids[2]);
    };
    intact(store);
    // The connection is usable again: a write commits on its own.
    let saved = minds
        .save_frame(frame(&Mind::Personal, "written after the failed reindex"))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let store = minds.mind(&Mind::Personal).unwrap();
    store.delete_frame(saved).unwrap();
    drop(minds);

    // On a new connection too: the rollback is durable.
    let mut minds = open_minds(dir.path(), config()).unwrap();
    let store = minds.mind(&Mind::Personal).unwrap();
    let report = store.check().unwrap();
    assert!(report.ok(), "{:?}", report.problems);
    assert_eq!(report.status.embedder, Some(fake().fingerprint()));
    assert_eq!(stored_vectors(store), before);

    // A new reindex starts over from the first frame, and completes.
    let bigger = FakeHashVectorSource::new(DIM * 2);
    let step = store.reindex_step(&bigger, 2).unwrap();
    assert_eq!((step.done, step.total, step.finished), (2, 5, false));
    assert_eq!(store.reindex(&bigger, &mut |_, _| {}).unwrap(), 5);
    assert_eq!(store.vector_state(), VectorState::Ready { dim: DIM * 2 });
    assert!(store.check().unwrap().ok());
}

#[test]
fn a_reply_is_found_by_its_context_below_the_frame_that_says_it() {
    let (_dir, mut minds) = minds();
    let mut question = frame(
        &Mind::Personal,
        "[mind-rawturn conv:c turn:1 speaker:Melanie] How long have you been married?",
    );
    question.context = String::new();
    let question = minds.save_frame(question).unwrap().frame.frame_ref.id;
    let mut reply = frame(
        &Mind::Personal,
        "[mind-rawturn conv:c turn:2 speaker:Caroline] Five years already!",
    );
    reply.context = hive_mind_core::reply_context("Melanie", "How long have you been married?");
    let reply = minds.save_frame(reply).unwrap().frame.frame_ref.id;
    for filler in [
        "The ledger service uses PostgreSQL.",
        "Sam prefers green tea.",
        "We shipped the billing rewrite.",
        "Remember to water the plants.",
    ] {
        minds.save_frame(frame(&Mind::Personal, filler)).unwrap();
    }

    let all = SearchFilter::default();
    let hits = minds.search_text("married long", &all, 10).unwrap();
    let found: Vec<u64> = hits.iter().map(|hit| hit.frame_ref.id).collect();
    assert_eq!(found, [question, reply], "{hits:?}");
    // Half weight: the words in the frame's own text count more.
    assert!(hits[0].score > hits[1].score);
    // Filtered searches (the shared evaluation and SQL alone) agree.
    let raw = SearchFilter {
        content_prefix: Some("[mind-rawturn".to_string()),
        ..SearchFilter::default()
    };
    let store = minds.mind(&Mind::Personal).unwrap();
    let shared = store.search_text("married long", &raw, 10).unwrap();
    let exact = store.search_text_exact("married long", &raw, 10).unwrap();
    assert_eq!(shared, exact);
    assert_eq!(
        shared
            .iter()
            .map(|hit| hit.frame_ref.id)
            .collect::<Vec<_>>(),
        [question, reply]
    );
    // The context is searched, never shown or hashed.
    let stored = store.get_frames(&[reply]).unwrap();
    assert_eq!(
        stored[0].content,
        "[mind-rawturn conv:c turn:2 speaker:Caroline] Five years already!"
    );
    assert_eq!(
        stored[0].content_hash,
        hive_mind_core::content_hash(&stored[0].content)
    );
    assert!(store.check().unwrap().ok());
}
