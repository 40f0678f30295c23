//! Identity, awareness and sessions against real SQLite files.

// Helpers outside #[test] functions unwrap too: this is test code.

use crate::support::*;
use hive_mind_store::awareness::{NewAwareness, WhenFull};
use hive_mind_store::identity::Identity;
use hive_mind_store::{Mind, StoreError};

fn item(content: &str, priority: i64) -> NewAwareness {
    NewAwareness {
        category: "task".into(),
        content: content.into(),
        priority,
        expires_at: None,
        metadata: None,
    }
}

#[test]
fn identity_is_one_row() {
    let (_dir, mut minds) = minds();
    let store = minds.mind(&Mind::Personal).unwrap();
    assert_eq!(store.identity().unwrap(), None);
    let set = store
        .set_identity(&Identity {
            name: "Hive".into(),
            role: "assistant".into(),
            ..Default::default()
        })
        .unwrap();
    store
        .set_identity(&Identity {
            name: "Hive 2".into(),
            ..set.clone()
        })
        .unwrap();
    let got = store.identity().unwrap().unwrap();
    assert_eq!(
        (got.name.as_str(), got.role.as_str()),
        ("Hive 2", "assistant")
    );
    assert!(
        store
            .connection()
            .execute("INSERT INTO identity (id, name) VALUES (2, 'second')", [])
            .is_err()
    );
}

#[test]
fn awareness_holds_ten_live_items_and_never_drops_one_silently() {
    let (_dir, mut minds) = minds();
    let store = minds.mind(&Mind::Personal).unwrap();
    for n in 0..10 {
        store
            .add_awareness(&item(&format!("task {n}"), n), WhenFull::Refuse)
            .unwrap();
    }
    assert!(matches!(
        store.add_awareness(&item("the eleventh", 50), WhenFull::Refuse),
        Err(StoreError::AwarenessFull(10))
    ));
    assert_eq!(store.awareness().unwrap().len(), 10);
    let added = store
        .add_awareness(&item("the eleventh", 50), WhenFull::EvictLowest)
        .unwrap();
    assert_eq!(
        added.evicted.unwrap().content,
        "task 0",
        "the lowest priority is evicted, and said so"
    );
    let live = store.awareness().unwrap();
    assert_eq!(live.len(), 10);
    assert_eq!(live[0].content, "the eleventh", "highest priority first");
    // The trigger refuses any path around the store.
    assert!(store
        .connection()
        .execute("INSERT INTO awareness (category, content, created_at) VALUES ('task', 'sneaky', 'x')", [])
        .is_err());

    // Expired items do not count and can be purged.
    let first = live[9].id;
    store.remove_awareness(first).unwrap();
    let mut expiring = item("expired already", 99);
    expiring.expires_at = Some("2020-01-01T00:00:00Z".into());
    store.add_awareness(&expiring, WhenFull::Refuse).unwrap();
    assert_eq!(store.awareness().unwrap().len(), 9);
    store
        .add_awareness(&item("fits again", 1), WhenFull::Refuse)
        .unwrap();
    assert_eq!(store.purge_expired_awareness().unwrap(), 1);

    store
        .merge_awareness_metadata(live[0].id, r#"{"status":"doing"}"#)
        .unwrap();
    store
        .merge_awareness_metadata(live[0].id, r#"{"owner":"sam"}"#)
        .unwrap();
    let meta: serde_json::Value =
        serde_json::from_str(&store.awareness().unwrap()[0].metadata).unwrap();
    assert_eq!(meta, serde_json::json!({"status": "doing", "owner": "sam"}));

    let mut bad = item("bad", 1);
    bad.category = "mood".into();
    assert!(matches!(
        store.add_awareness(&bad, WhenFull::EvictLowest),
        Err(StoreError::InvalidInput(_))
    ));
    let mut bad = item("bad", 1);
    bad.expires_at = Some("soon".into());
    assert!(matches!(
        store.add_awareness(&bad, WhenFull::EvictLowest),
        Err(StoreError::InvalidInput(_))
    ));
    assert!(matches!(
        store.remove_awareness(12345),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn ensure_active_is_one_session_per_project_even_under_races() {
    let (dir, mut minds) = minds();
    let store = minds.mind(&Mind::Personal).unwrap();
    let a = store.ensure_active_session(Some("ledger")).unwrap();
    let b = store.ensure_active_session(Some("ledger")).unwrap();
    assert_eq!(a, b);
    let other = store.ensure_active_session(None).unwrap();
    assert_ne!(other.gop_id, a.gop_id);
    let closed = store.close_session(&a.gop_id, Some("done")).unwrap();
    assert_eq!(
        (closed.status.as_str(), closed.summary.as_deref()),
        ("closed", Some("done"))
    );
    let c = store.ensure_active_session(Some("ledger")).unwrap();
    assert_ne!(c.gop_id, a.gop_id);
    // Idempotent ensure for imports.
    let imported = store.ensure_session("chatgpt-123", None, None).unwrap();
    assert_eq!(
        store.ensure_session("chatgpt-123", None, None).unwrap(),
        imported
    );
    assert!(matches!(
        store.close_session("nope", None),
        Err(StoreError::NotFound(_))
    ));
    drop(minds);

    // Eight connections race for the same project's active session.
    let path = dir.path().to_path_buf();
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut minds = open_minds(&path, config()).unwrap();
                minds
                    .mind(&Mind::Personal)
                    .unwrap()
                    .ensure_active_session(Some("race"))
                    .unwrap()
                    .gop_id
            })
        })
        .collect();
    let gops: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(gops.iter().all(|g| g == &gops[0]), "{gops:?}");
}
