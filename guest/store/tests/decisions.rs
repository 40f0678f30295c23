//! The owner's decisions on pairs, and sessions as a person reads them,
//! against real SQLite files: a confirmed replacement leaves the undecided
//! list, an undone one makes the older current again for good, a conflict
//! resolved closes the older, a correction needs no confirming, a
//! forgotten memory takes its decisions with it, and an imported
//! conversation's session carries its title and its own dates.

use crate::support::*;

use hive_mind_store::decisions::PairVerdict;
use hive_mind_store::erasure::ErasureRequest;
use hive_mind_store::{Mind, Minds, StoreError};

fn undecided(minds: &mut Minds) -> Vec<(u64, u64)> {
    let (count, pairs) = minds
        .mind(&Mind::Personal)
        .unwrap()
        .undecided_replacements(100)
        .unwrap();
    assert_eq!(count, pairs.len() as u64);
    pairs
        .iter()
        .map(|(older, newer)| (older.frame_ref.id, newer.frame_ref.id))
        .collect()
}

#[test]
fn an_automatic_replacement_waits_for_the_owner_who_confirms_or_undoes_it() {
    let (_dir, mut minds) = minds();
    let lisbon = save_at(&mut minds, "I live in Lisbon.", "2023-01-10T09:00:00Z");
    let porto = save_at(&mut minds, "I live in Porto.", "2025-03-01T09:00:00Z");
    assert_eq!(get(&mut minds, lisbon).superseded_by, Some(porto));
    assert_eq!(undecided(&mut minds), [(lisbon, porto)]);

    // Confirmed: nothing changes but the question.
    let store = minds.mind(&Mind::Personal).unwrap();
    let decision = store
        .decide_pair(porto, lisbon, PairVerdict::Replaces)
        .unwrap();
    assert_eq!(
        (decision.older.frame_ref.id, decision.newer.frame_ref.id),
        (lisbon, porto),
        "the pair is put in event-time order whichever way it is named"
    );
    assert_eq!(decision.older.superseded_by, Some(porto));
    assert!(undecided(&mut minds).is_empty());

    // Undone: the older is current again, and a later statement of the
    // same slot does not close it on its own.
    let store = minds.mind(&Mind::Personal).unwrap();
    let decision = store
        .decide_pair(lisbon, porto, PairVerdict::BothStand)
        .unwrap();
    assert_eq!(
        (decision.older.superseded_by, decision.older.valid_to),
        (None, None)
    );
    let berlin = save_at(&mut minds, "I live in Berlin.", "2026-01-05T09:00:00Z");
    assert_eq!(get(&mut minds, lisbon).superseded_by, None);
    assert_eq!(get(&mut minds, porto).superseded_by, Some(berlin));
    assert_eq!(undecided(&mut minds), [(porto, berlin)]);
    let log = minds
        .mind(&Mind::Personal)
        .unwrap()
        .read_log(hive_mind_store::review::LogKind::Reviews, 10, None)
        .unwrap();
    assert_eq!(
        log.iter().filter(|row| row.action == "decide-pair").count(),
        2
    );
    assert!(minds.mind(&Mind::Personal).unwrap().check().unwrap().ok());
}

#[test]
fn a_conflict_resolved_closes_the_older_and_a_correction_needs_no_confirming() {
    let (_dir, mut minds) = minds();
    let first = save_at(
        &mut minds,
        "Ana leads the design team.",
        "2024-01-10T09:00:00Z",
    );
    let second = save_at(&mut minds, "Luis runs design now.", "2025-06-01T09:00:00Z");
    assert_eq!(get(&mut minds, first).superseded_by, None);
    let store = minds.mind(&Mind::Personal).unwrap();
    assert!(store.decided_pairs(&[first, second]).unwrap().is_empty());
    let decision = store
        .decide_pair(first, second, PairVerdict::Replaces)
        .unwrap();
    assert_eq!(decision.older.superseded_by, Some(second));
    assert_eq!(
        decision.older.valid_to.as_deref(),
        Some(decision.newer.created_at.as_str())
    );
    assert_eq!(
        store
            .decided_pairs(&[first])
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>(),
        [(first, second)]
    );
    // Replacing again with a third is refused, naming the replacement.
    let third = save_at(&mut minds, "Mira heads design.", "2026-02-01T09:00:00Z");
    let store = minds.mind(&Mind::Personal).unwrap();
    let refused = store
        .decide_pair(first, third, PairVerdict::Replaces)
        .unwrap_err();
    assert!(
        matches!(&refused, StoreError::InvalidInput(why) if why.contains("already replaced")),
        "{refused:?}"
    );
    assert!(matches!(
        store.decide_pair(first, first, PairVerdict::BothStand),
        Err(StoreError::InvalidInput(_))
    ));
    assert!(matches!(
        store.decide_pair(first, 9999, PairVerdict::BothStand),
        Err(StoreError::NotFound(_))
    ));

    let corrected = store
        .correct_frame(
            third,
            frame(&Mind::Personal, "Mira heads design and research."),
        )
        .unwrap();
    assert_eq!(
        corrected.replaced.superseded_by,
        Some(corrected.saved.frame.frame_ref.id)
    );
    assert!(
        undecided(&mut minds).is_empty(),
        "a correction is the owner's own word"
    );

    // Forgetting either memory takes its decisions with it.
    let store = minds.mind(&Mind::Personal).unwrap();
    store
        .erase(&ErasureRequest::Frames(vec![second]), "test")
        .unwrap();
    assert!(store.decided_pairs(&[first]).unwrap().is_empty());
    assert!(store.check().unwrap().ok());
}

#[test]
fn an_imported_session_keeps_its_title_and_is_dated_by_its_memories() {
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    let session = store
        .ensure_session("conv:kyoto", None, Some("  Planning\n the   Kyoto trip "))
        .unwrap();
    assert_eq!(session.title.as_deref(), Some("Planning the Kyoto trip"));
    assert_eq!(session.first_event, None);
    // A later import naming another title keeps the first.
    let again = store
        .ensure_session("conv:kyoto", None, Some("Other"))
        .unwrap();
    assert_eq!(again.title.as_deref(), Some("Planning the Kyoto trip"));
    for (content, at) in [
        ("We should book the ryokan.", "2024-04-03T19:00:00Z"),
        ("Gion is walkable.", "2024-04-03T19:05:00Z"),
    ] {
        let mut new = frame(&Mind::Personal, content);
        new.gop_id = Some("conv:kyoto".to_string());
        new.created_at = Some(at.to_string());
        store.save_frame(new).unwrap();
    }
    // A session an agent wrote today, holding a newer memory.
    save_at(&mut minds, "Buy coffee filters.", "2026-01-05T09:00:00Z");
    let store = minds.mind(&Mind::Personal).unwrap();
    let sessions = store.sessions(10).unwrap();
    let kyoto = sessions
        .iter()
        .find(|session| session.gop_id == "conv:kyoto")
        .unwrap();
    assert_eq!(
        kyoto.first_event.as_deref(),
        Some("2024-04-03T19:00:00.000Z")
    );
    assert_eq!(
        kyoto.last_event.as_deref(),
        Some("2024-04-03T19:05:00.000Z")
    );
    assert_eq!(
        sessions.last().map(|session| session.gop_id.as_str()),
        Some("conv:kyoto"),
        "sessions are ordered by when their memories happened, not when they were imported"
    );
    let turns = store.session_memories("conv:kyoto", 10).unwrap();
    assert_eq!(
        turns
            .iter()
            .map(|frame| frame.content.as_str())
            .collect::<Vec<_>>(),
        ["We should book the ryokan.", "Gion is walkable."]
    );
    assert!(matches!(
        store.session_memories("conv:nowhere", 10),
        Err(StoreError::NotFound(_))
    ));
}
