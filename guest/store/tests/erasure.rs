//! Erasure against real SQLite files: a forgotten memory's text is nowhere
//! in the database file or its WAL, the other memories search the same, the
//! plan changes nothing, the log keeps no text and cannot be rewritten, and
//! bad requests change nothing.

use crate::support::*;
use hive_mind_core::{Importance, Source, raw_turn_content, reply_context};

use hive_mind_store::erasure::{ErasureCause, ErasureFilter, ErasureRequest};
use hive_mind_store::frames::NewBranch;
use hive_mind_store::{BranchContent, Mind, Minds, SearchFilter, StoreError};

/// The token a test forgets: unlikely anywhere else in a file.
const SECRET: &str = "zqxvault4711";

/// Every file of the data directory, concatenated.
fn every_byte(dir: &std::path::Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            bytes.extend(std::fs::read(&path).unwrap());
        }
    }
    bytes
}

fn holds(bytes: &[u8], token: &str) -> bool {
    bytes
        .windows(token.len())
        .any(|window| window == token.as_bytes())
}

/// A conversation of three raw turns, the second holding the secret; the
/// third quotes it in its search context, as an import writes it.
fn save_conversation(minds: &mut Minds) -> [u64; 3] {
    let turns = [
        ("user", "What should I keep in the vault?"),
        (
            "assistant",
            "Keep the door code there: it is zqxvault4711 for now.",
        ),
        ("user", "Thanks, the gardener needs it on Monday."),
    ];
    let mut ids = [0; 3];
    for (index, (speaker, text)) in turns.iter().enumerate() {
        let mut new = frame(
            &Mind::Personal,
            &raw_turn_content("chat-1", index + 1, speaker, text),
        );
        if let Some((before_speaker, before_text)) = index.checked_sub(1).map(|i| turns[i]) {
            new.context = reply_context(before_speaker, before_text);
        }
        ids[index] = minds.save_frame(new).unwrap().frame.frame_ref.id;
    }
    ids
}

fn save_filler(minds: &mut Minds) {
    for n in 0..30 {
        minds
            .save_frame(frame(
                &Mind::Personal,
                &format!("Note {n}: the ledger for project {n} balances every quarter."),
            ))
            .unwrap();
    }
}

fn search_ids(minds: &mut Minds, query: &str) -> Vec<(u64, String)> {
    let filter = SearchFilter::default();
    minds
        .mind(&Mind::Personal)
        .unwrap()
        .search_text_exact(query, &filter, 50)
        .unwrap()
        .into_iter()
        .map(|hit| (hit.frame_ref.id, format!("{:.6}", hit.score)))
        .collect()
}

#[test]
fn a_forgotten_memory_is_nowhere_in_the_file_its_wal_or_the_index() {
    let (dir, mut minds) = minds();
    save_filler(&mut minds);
    let [first, secret, after] = save_conversation(&mut minds);
    minds
        .mind(&Mind::Personal)
        .unwrap()
        .upsert_entity("zqxvault4711", "concept", &[secret])
        .unwrap();
    let ledger_before = search_ids(&mut minds, "ledger quarter project");
    assert!(
        holds(&every_byte(dir.path()), SECRET),
        "the control: the secret is in the files before"
    );
    assert_eq!(
        search_ids(&mut minds, SECRET).len(),
        2,
        "its turn and the next"
    );

    let store = minds.mind(&Mind::Personal).unwrap();
    let report = store
        .erase(&ErasureRequest::Frames(vec![secret]), "pasted by mistake")
        .unwrap();
    assert!(!report.dry_run);
    assert_eq!(report.frames.len(), 1);
    assert_eq!(report.frames[0].id, secret);
    assert_eq!(report.entities, vec!["zqxvault4711".to_string()]);
    assert_eq!(report.contexts_rewritten, 1);

    // Gone from every file of the data directory, WAL included.
    assert!(
        !holds(&every_byte(dir.path()), SECRET),
        "the secret is still in the data directory"
    );
    assert!(search_ids(&mut minds, SECRET).is_empty());
    // The next turn now quotes the turn before the erased one.
    let store = minds.mind(&Mind::Personal).unwrap();
    let context: String = store
        .connection()
        .query_row(
            "SELECT context FROM memory_frames WHERE id = ?1",
            [after],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(
        context,
        reply_context("user", "What should I keep in the vault?")
    );
    assert_eq!(store.get_frames(&[first]).unwrap().len(), 1);
    // Every other memory searches the same, and the mind is consistent.
    assert_eq!(
        search_ids(&mut minds, "ledger quarter project"),
        ledger_before
    );
    let store = minds.mind(&Mind::Personal).unwrap();
    assert!(
        store.check().unwrap().ok(),
        "{:?}",
        store.check().unwrap().problems
    );
    assert!(report.bytes_after <= report.bytes_before);
    // The log keeps the reference and the hash, never the text.
    let log = store.erasures().unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].frame_id, secret);
    assert_eq!(log[0].content_hash, report.frames[0].content_hash);
    assert_eq!(log[0].reason, "pasted by mistake");
}

#[test]
fn a_plan_names_what_would_go_and_changes_nothing() {
    let (dir, mut minds) = minds();
    save_filler(&mut minds);
    let [_, secret, _] = save_conversation(&mut minds);
    let store = minds.mind(&Mind::Personal).unwrap();
    let frames_before = store.status().unwrap().frames;
    let request = ErasureRequest::Matching(ErasureFilter {
        text: Some("door code".to_string()),
        ..ErasureFilter::default()
    });
    let plan = store.plan_erasure(&request).unwrap();
    assert!(plan.dry_run);
    assert_eq!(
        plan.frames.iter().map(|frame| frame.id).collect::<Vec<_>>(),
        vec![secret],
        "only the turn holding every word"
    );
    assert!(plan.frames[0].preview.contains("door code"));
    assert_eq!(store.status().unwrap().frames, frames_before);
    assert!(store.erasures().unwrap().is_empty());
    assert!(holds(&every_byte(dir.path()), SECRET));

    let done = store.erase(&request, "").unwrap();
    assert_eq!(done.frames, plan.frames);
    assert_eq!(store.status().unwrap().frames, frames_before - 1);
    // The log records the search by its hash, not its words.
    let log = store.erasures().unwrap();
    assert!(!log[0].request.contains("door"), "{}", log[0].request);
    assert!(log[0].request.contains("text_sha256"), "{}", log[0].request);
    // And it is append-only.
    for statement in [
        "UPDATE memory_erasures SET reason = 'x'",
        "DELETE FROM memory_erasures",
        "INSERT OR REPLACE INTO memory_erasures (id, erased_at, frame_id, content_hash, event_date)
         SELECT id, erased_at, 0, '', '' FROM memory_erasures",
    ] {
        assert!(
            store.connection().execute(statement, []).is_err(),
            "{statement}"
        );
    }
    assert_eq!(store.erasures().unwrap(), log);
}

#[test]
fn branches_go_with_their_base_and_shared_entities_stay() {
    let (_dir, mut minds) = minds();
    let base = minds
        .save_frame(frame(
            &Mind::Personal,
            "Plan A: migrate the billing in May.",
        ))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let other = minds
        .save_frame(frame(&Mind::Personal, "Billing runs on the old server."))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let branch = BranchContent {
        description: "Alternative: migrate in June".into(),
        references: vec![other],
    };
    let vectors = frame(&Mind::Personal, &branch.to_content());
    let store = minds.mind(&Mind::Personal).unwrap();
    let branched = store
        .save_branch(NewBranch {
            base_frame_id: base,
            branch,
            gop_id: None,
            importance: Importance::Normal,
            source: Source::AgentInferred,
            created_at: None,
            metadata: None,
            embedding: vectors.embedding.clone().unwrap(),
            chunks: vectors.chunks.clone(),
        })
        .unwrap()
        .frame
        .frame_ref
        .id;
    store
        .upsert_entity("billing", "project", &[base, other])
        .unwrap();
    store.upsert_entity("plan a", "project", &[base]).unwrap();

    let report = store
        .erase(&ErasureRequest::Frames(vec![base]), "")
        .unwrap();
    let causes: Vec<(u64, ErasureCause)> = report
        .frames
        .iter()
        .map(|frame| (frame.id, frame.cause))
        .collect();
    assert_eq!(
        causes,
        vec![
            (base, ErasureCause::Selected),
            (branched, ErasureCause::BranchOf(base))
        ]
    );
    assert_eq!(report.entities, vec!["plan a".to_string()]);
    assert_eq!(store.find_entities("billing").unwrap().len(), 1);
    assert!(store.find_entities("plan a").unwrap().is_empty());
    assert_eq!(store.get_frames(&[other]).unwrap().len(), 1);
    // The session's P-frame that was based on the erased I-frame is its
    // I-frame now.
    let kept = &store.get_frames(&[other]).unwrap()[0];
    assert_eq!(kept.frame_type, hive_mind_store::FrameType::IFrame);
    assert_eq!(kept.base_frame_id, None);
    assert!(store.check().unwrap().ok());
}

#[test]
fn bad_requests_change_nothing() {
    let (dir, mut minds) = minds();
    save_filler(&mut minds);
    let store = minds.mind(&Mind::Personal).unwrap();
    let before = store.status().unwrap().frames;
    let file_before = std::fs::read(dir.path().join("personal.sqlite")).unwrap();
    let cases = [
        ErasureRequest::Frames(vec![9_999]),
        ErasureRequest::Frames(Vec::new()),
        ErasureRequest::Matching(ErasureFilter::default()),
        ErasureRequest::Matching(ErasureFilter {
            since: Some("last May".to_string()),
            ..ErasureFilter::default()
        }),
        ErasureRequest::Matching(ErasureFilter {
            text: Some("the of and".to_string()),
            ..ErasureFilter::default()
        }),
    ];
    for request in &cases {
        let error = store.erase(request, "").unwrap_err();
        assert!(
            matches!(error, StoreError::NotFound(_) | StoreError::InvalidInput(_)),
            "{request:?}: {error}"
        );
        assert!(store.plan_erasure(request).is_err(), "{request:?}");
    }
    let long_reason = "x".repeat(201);
    let matching = ErasureRequest::Matching(ErasureFilter {
        text: Some("ledger".to_string()),
        ..ErasureFilter::default()
    });
    assert!(matches!(
        store.erase(&matching, &long_reason),
        Err(StoreError::InvalidInput(_))
    ));
    // A filter that matches nothing says so.
    let nothing = ErasureRequest::Matching(ErasureFilter {
        text: Some("xylophone".to_string()),
        ..ErasureFilter::default()
    });
    let error = store.plan_erasure(&nothing).unwrap_err();
    assert!(error.to_string().contains("no memory matches"), "{error}");
    assert!(store.erase(&nothing, "").is_err());
    assert_eq!(store.status().unwrap().frames, before);
    assert!(store.erasures().unwrap().is_empty());
    assert_eq!(
        std::fs::read(dir.path().join("personal.sqlite")).unwrap(),
        file_before
    );
}

#[test]
fn a_filter_on_the_learning_day_picks_what_one_import_added() {
    let (_dir, mut minds) = minds();
    save_filler(&mut minds);
    let store = minds.mind(&Mind::Personal).unwrap();
    // Two memories learned on an earlier day (their event days untouched:
    // when a thing happened and when it was learned are separate clocks).
    store
        .connection()
        .execute(
            "UPDATE memory_frames SET inserted_at = '2025-01-15T10:00:00.000Z' WHERE id IN (3, 4)",
            [],
        )
        .unwrap();
    let plan = |since: Option<&str>, until: Option<&str>| {
        store
            .plan_erasure(&ErasureRequest::Matching(ErasureFilter {
                learned_since: since.map(str::to_string),
                learned_until: until.map(str::to_string),
                ..ErasureFilter::default()
            }))
            .map(|plan| plan.frames.iter().map(|frame| frame.id).collect::<Vec<_>>())
    };
    assert_eq!(plan(None, Some("2025-01-15")).unwrap(), vec![3, 4]);
    assert_eq!(
        plan(Some("2025-01-01"), Some("2025-01-31")).unwrap(),
        vec![3, 4]
    );
    assert_eq!(plan(Some("2025-01-16"), None).unwrap().len(), 28);
    assert!(
        plan(None, Some("2025-01-14")).is_err(),
        "nothing learned then"
    );
    let error = plan(Some("yesterday"), None).unwrap_err();
    assert!(error.to_string().contains("learned since"), "{error}");
    // The event clock is not the learning clock: the same two frames are
    // not picked by an event-day filter on that day.
    let by_event = store.plan_erasure(&ErasureRequest::Matching(ErasureFilter {
        until: Some("2025-01-15".to_string()),
        ..ErasureFilter::default()
    }));
    assert!(by_event.is_err(), "{by_event:?}");
}
