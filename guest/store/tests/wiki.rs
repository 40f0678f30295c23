//! The wiki's reads: cited entities, an entity's memories, uncited ones.

// Helpers outside #[test] functions unwrap too: this is test code.

use crate::support::*;
use hive_mind_store::Mind;

#[test]
fn the_wiki_reads_entities_by_their_current_memories() {
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    let rotterdam = store
        .save_frame(frame(&Mind::Personal, "Karim plays chess on Sundays."))
        .unwrap()
        .frame
        .frame_ref;
    let utrecht = store
        .save_frame(frame(&Mind::Personal, "Karim teaches the violin."))
        .unwrap()
        .frame
        .frame_ref;
    let plain = store
        .save_frame(frame(&Mind::Personal, "Buy more coffee filters."))
        .unwrap()
        .frame
        .frame_ref;
    let karim = store
        .upsert_entity("Karim", "person", &[rotterdam.id, utrecht.id])
        .unwrap();
    store.upsert_entity("Nobody", "person", &[]).unwrap();
    let cited = store.cited_entities(10).unwrap();
    assert_eq!(cited.len(), 1, "an entity no memory names has no page");
    assert_eq!((cited[0].id, cited[0].current), (karim.id, 2));
    let memories = store.entity_memories(karim.id).unwrap();
    assert_eq!(memories.len(), 2);
    let (uncited, total) = store.uncited_memories(10).unwrap();
    assert_eq!(total, 1);
    assert_eq!(uncited[0].frame_ref.id, plain.id);
    let found = store.memories_containing("VIOLIN", 10).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(store.frame_entities(utrecht.id).unwrap(), [karim.id]);
    store
        .link_frames(utrecht.id, &[(rotterdam.id, 0.8)])
        .unwrap();
    assert_eq!(
        store
            .links_among(&[rotterdam.id, utrecht.id, plain.id])
            .unwrap(),
        [(
            rotterdam.id.min(utrecht.id),
            rotterdam.id.max(utrecht.id),
            0.8
        )]
    );
}

#[test]
fn a_corrected_memory_names_the_entities_of_the_version_it_replaces() {
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    let old = store
        .save_frame(frame(&Mind::Personal, "Yasmin works at Philips."))
        .unwrap()
        .frame
        .frame_ref;
    let yasmin = store.upsert_entity("Yasmin", "person", &[old.id]).unwrap();
    let corrected = store
        .correct_frame(old.id, frame(&Mind::Personal, "She works at ASML now."))
        .unwrap();
    let new = corrected.saved.frame.frame_ref.id;
    assert_eq!(store.frame_entities(new).unwrap(), [yasmin.id]);
    let cited = store.cited_entities(10).unwrap();
    assert_eq!((cited[0].id, cited[0].current), (yasmin.id, 1));
}

#[test]
fn a_synthesis_is_kept_until_an_erasure_drops_it() {
    use hive_mind_store::erasure::ErasureRequest;
    use hive_mind_store::wiki::Synthesis;
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    let saved = store
        .save_frame(frame(&Mind::Personal, "Karim plays chess on Sundays."))
        .unwrap()
        .frame
        .frame_ref;
    let other = store
        .save_frame(frame(&Mind::Personal, "Buy coffee filters."))
        .unwrap()
        .frame
        .frame_ref;
    let synthesis = Synthesis {
        slug: "entity-1".to_string(),
        fingerprint: "f1".to_string(),
        text: "Karim plays chess. [personal:1]".to_string(),
        sources: vec![saved.id],
        model: "mock".to_string(),
        written_at: "2026-01-01T00:00:00.000Z".to_string(),
    };
    store.save_synthesis(&synthesis).unwrap();
    assert_eq!(
        store.synthesis("entity-1").unwrap(),
        Some(synthesis.clone())
    );
    let rewritten = Synthesis {
        fingerprint: "f2".to_string(),
        ..synthesis.clone()
    };
    store.save_synthesis(&rewritten).unwrap();
    assert_eq!(store.synthesis("entity-1").unwrap(), Some(rewritten));
    // Forgetting any memory drops every synthesis: one may quote it.
    store
        .erase(&ErasureRequest::Frames(vec![other.id]), "test")
        .unwrap();
    assert_eq!(store.synthesis("entity-1").unwrap(), None);
    assert_eq!(store.synthesis("you").unwrap(), None);
}
