//! Harvest's records: one transaction per item, done items, sources,
//! profile replacement.

use hive_mind_store::Mind;
use hive_mind_store::audit::AiInteraction;
use hive_mind_store::harvest::{EntityWrite, ItemCommit, ItemOutcome, RelationWrite};

use crate::support::{frame, minds};

fn commit(item: &str, hash: &str, outcome: ItemOutcome, texts: &[&str]) -> ItemCommit {
    ItemCommit {
        source_id: None,
        format: "chatgpt".to_string(),
        item_id: item.to_string(),
        item_hash: hash.to_string(),
        outcome,
        replaces: Vec::new(),
        frames: texts
            .iter()
            .map(|text| frame(&Mind::Personal, text))
            .collect(),
        entities: Vec::new(),
        relations: Vec::new(),
        interactions: Vec::new(),
    }
}

fn hashes(list: &[&str]) -> Vec<String> {
    list.iter().map(|hash| hash.to_string()).collect()
}

#[test]
fn an_item_commits_its_frames_graph_calls_and_record_together() {
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    let source = store
        .harvest_source_upsert("chatgpt", "conversations.json", "set-1", 2)
        .unwrap();
    let mut item = commit(
        "c1",
        "h1",
        ItemOutcome::Imported,
        &[
            "[mind-fact] Ana works at Acme.",
            "[mind-fact] Ana uses PostgreSQL.",
        ],
    );
    item.source_id = Some(source);
    item.entities = vec![
        EntityWrite {
            name: "Ana".into(),
            entity_type: "person".into(),
            frames: vec![0, 1],
        },
        EntityWrite {
            name: "Acme".into(),
            entity_type: "organization".into(),
            frames: vec![0],
        },
    ];
    item.relations = vec![RelationWrite {
        subject: 0,
        relation: "works-at".into(),
        object: 1,
        strength: 0.9,
    }];
    item.interactions = vec![AiInteraction {
        provider: "openai".into(),
        model: "m".into(),
        purpose: "harvest-extract".into(),
        input_tokens: 10,
        output_tokens: 5,
        detail: "{}".into(),
    }];
    let committed = store.harvest_commit(&item).unwrap();
    assert_eq!(committed.saved.len(), 2);
    assert!(committed.saved.iter().all(|saved| !saved.duplicate));
    assert_eq!(
        (
            committed.entities_new,
            committed.entities_seen,
            committed.relations
        ),
        (2, 0, 1)
    );
    assert_eq!(store.ai_interaction_count().unwrap(), 1);
    let ana = store.find_entities("Ana").unwrap();
    assert_eq!(ana.len(), 1);
    assert_eq!(store.entity_frames(ana[0].id).unwrap().len(), 2);
    assert_eq!(store.relations(ana[0].id).unwrap().len(), 1);

    // Done: found by hash; another hash of the same item is not done.
    let done = store
        .harvest_done_items("chatgpt", &hashes(&["h1", "h2"]))
        .unwrap();
    assert_eq!(done.into_iter().collect::<Vec<_>>(), vec!["h1".to_string()]);
    assert!(
        store
            .harvest_done_items("claude", &hashes(&["h1"]))
            .unwrap()
            .is_empty()
    );

    // The same entity again is strengthened, not duplicated.
    let mut again = commit(
        "c2",
        "h2",
        ItemOutcome::Imported,
        &["[mind-fact] Ana moved to Lisbon."],
    );
    again.entities = vec![EntityWrite {
        name: "ana".into(),
        entity_type: "person".into(),
        frames: vec![0],
    }];
    let committed = store.harvest_commit(&again).unwrap();
    assert_eq!((committed.entities_new, committed.entities_seen), (0, 1));
    assert_eq!(store.find_entities("Ana").unwrap()[0].seen_count, 2);

    let sources = store.harvest_sources().unwrap();
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].name, "conversations.json");
    assert_eq!(sources[0].set_hash, "set-1");
    assert_eq!(sources[0].items, 2);
    assert!(store.check().unwrap().ok());
}

#[test]
fn a_failed_item_is_not_done_and_a_bad_commit_writes_nothing() {
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    store
        .harvest_commit(&commit(
            "c1",
            "h1",
            ItemOutcome::Failed,
            &["[mind-rawturn conv:c1 turn:1 speaker:user] hi there"],
        ))
        .unwrap();
    assert!(
        store
            .harvest_done_items("chatgpt", &hashes(&["h1"]))
            .unwrap()
            .is_empty()
    );
    // Retried and imported: done now, the raw turn not written twice.
    let committed = store
        .harvest_commit(&commit(
            "c1",
            "h1",
            ItemOutcome::Imported,
            &["[mind-rawturn conv:c1 turn:1 speaker:user] hi there"],
        ))
        .unwrap();
    assert!(committed.saved[0].duplicate);
    assert_eq!(
        store
            .harvest_done_items("chatgpt", &hashes(&["h1"]))
            .unwrap()
            .len(),
        1
    );

    // A commit whose second frame is invalid (a vector of the wrong
    // dimension) leaves no trace: not its first frame, not its entity, not
    // its record.
    let before = store.status().unwrap();
    let mut bad = commit(
        "c3",
        "h3",
        ItemOutcome::Imported,
        &["[mind-fact] First of a bad item.", "second"],
    );
    bad.frames[1].embedding = Some(vec![0.5; 3]);
    bad.entities = vec![EntityWrite {
        name: "Zoe".into(),
        entity_type: "person".into(),
        frames: vec![0],
    }];
    assert!(store.harvest_commit(&bad).is_err());
    assert_eq!(store.status().unwrap(), before);
    assert!(store.find_entities("Zoe").unwrap().is_empty());
    assert!(
        store
            .harvest_done_items("chatgpt", &hashes(&["h3"]))
            .unwrap()
            .is_empty()
    );

    // Out-of-range indexes are refused before anything is written.
    let mut dangling = commit(
        "c4",
        "h4",
        ItemOutcome::Imported,
        &["[mind-fact] Dangling."],
    );
    dangling.entities = vec![EntityWrite {
        name: "Zoe".into(),
        entity_type: "person".into(),
        frames: vec![5],
    }];
    assert!(store.harvest_commit(&dangling).is_err());
    assert_eq!(store.status().unwrap(), before);
}

#[test]
fn a_profile_replaces_its_predecessor_and_lanes_list_what_dedup_reads() {
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    store
        .harvest_commit(&commit(
            "c1",
            "h1",
            ItemOutcome::Imported,
            &[
                "[mind-profile user] Is a nurse.",
                "[mind-fact] Likes tea.",
                "plain note",
            ],
        ))
        .unwrap();
    let lanes = store.lane_frames().unwrap();
    assert_eq!(
        lanes
            .iter()
            .map(|(_, content)| content.as_str())
            .collect::<Vec<_>>(),
        vec!["[mind-profile user] Is a nurse.", "[mind-fact] Likes tea."]
    );
    let old = lanes[0].0;
    let mut next = commit(
        "c2",
        "h2",
        ItemOutcome::Imported,
        &["[mind-profile user] Is a nurse.\nLives in Porto."],
    );
    next.replaces = vec![old];
    let committed = store.harvest_commit(&next).unwrap();
    assert_eq!(committed.replaced, 1);
    let lanes = store.lane_frames().unwrap();
    assert_eq!(
        lanes
            .iter()
            .map(|(_, content)| content.as_str())
            .collect::<Vec<_>>(),
        vec![
            "[mind-fact] Likes tea.",
            "[mind-profile user] Is a nurse.\nLives in Porto."
        ]
    );
    // The old profile was its session's I-frame, the base of the other
    // frames: deprecated (kept for history), not deleted.
    let kept = store.get_frames(&[old]).unwrap();
    assert_eq!(kept[0].importance, hive_mind_core::Importance::Deprecated);

    // A profile alone in its session is deleted outright.
    store.ensure_session("profile:bob", None, None).unwrap();
    let mut first = commit(
        "c3",
        "h3",
        ItemOutcome::Imported,
        &["[mind-profile Bob] Plays chess."],
    );
    first.frames[0].gop_id = Some("profile:bob".into());
    let bob = store.harvest_commit(&first).unwrap().saved[0]
        .frame
        .frame_ref
        .id;
    let mut second = commit(
        "c4",
        "h4",
        ItemOutcome::Imported,
        &["[mind-profile Bob] Plays chess.\nHas a dog."],
    );
    second.frames[0].gop_id = Some("profile:bob".into());
    second.replaces = vec![bob];
    assert_eq!(store.harvest_commit(&second).unwrap().replaced, 1);
    assert!(store.get_frames(&[bob]).unwrap().is_empty());
    assert!(store.check().unwrap().ok());
}
