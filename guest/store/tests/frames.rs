//! Frames against real SQLite files: I/P/B semantics, content-hash dedup,
//! event-time validation, update/deprecate/delete keeping every index in
//! sync, multiple minds, and bad input writing nothing.

// Helpers outside #[test] functions unwrap too: this is test code.

use crate::support::*;
use hive_mind_core::{Importance, Source, content_hash};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hive_mind_store::frames::NewBranch;
use hive_mind_store::sql::{Database, Databases, QueryResult, SqlError, Value};
use hive_mind_store::{
    BranchContent, FrameRef, FrameType, Mind, Minds, SearchFilter, StoreError, plan_chunks,
};

fn frames_count(minds: &mut Minds, mind: &Mind) -> u64 {
    minds.mind(mind).unwrap().status().unwrap().frames
}

fn assert_in_sync(minds: &mut Minds, mind: &Mind) {
    let report = minds.mind(mind).unwrap().check().unwrap();
    assert!(report.ok(), "{mind}: {:?}", report.problems);
}

#[test]
fn first_frame_of_a_session_is_an_i_frame_and_later_ones_p_frames() {
    let (_dir, mut minds) = minds();
    let first = minds
        .save_frame(frame(&Mind::Personal, "We use Rust for the host."))
        .unwrap();
    let second = minds
        .save_frame(frame(&Mind::Personal, "The guest is a wasm component."))
        .unwrap();
    let third = minds
        .save_frame(frame(&Mind::Personal, "SQLite holds the minds."))
        .unwrap();
    assert!(!first.duplicate && !second.duplicate);
    assert_eq!(first.frame.frame_type, FrameType::IFrame);
    assert_eq!(first.frame.t, 0);
    assert_eq!(first.frame.base_frame_id, None);
    assert_eq!(second.frame.frame_type, FrameType::PFrame);
    assert_eq!(second.frame.base_frame_id, Some(first.frame.frame_ref.id));
    assert_eq!((second.frame.t, third.frame.t), (1, 2));
    assert_eq!(first.frame.gop_id, third.frame.gop_id);
    assert_eq!(first.frame.frame_ref.mind, Mind::Personal);

    // A new session starts a new log.
    let store = minds.mind(&Mind::Personal).unwrap();
    let session = store.ensure_active_session(Some("other-project")).unwrap();
    let mut new = frame(&Mind::Personal, "A different project.");
    new.gop_id = Some(session.gop_id.clone());
    let other = minds.save_frame(new).unwrap();
    assert_eq!(other.frame.frame_type, FrameType::IFrame);
    assert_eq!(other.frame.gop_id, session.gop_id);

    // An unknown session is a typed error.
    let mut new = frame(&Mind::Personal, "Nowhere.");
    new.gop_id = Some("no-such-gop".into());
    assert!(matches!(
        minds.save_frame(new),
        Err(StoreError::NotFound(_))
    ));
    assert_in_sync(&mut minds, &Mind::Personal);
}

#[test]
fn same_body_under_another_provenance_prefix_is_a_duplicate() {
    let (_dir, mut minds) = minds();
    let original = minds
        .save_frame(frame(
            &Mind::Personal,
            "[hm session:1 src:claude] The deploy key lives in the vault.",
        ))
        .unwrap();
    assert_eq!(
        original.frame.content_hash,
        content_hash("The deploy key lives in the vault.")
    );
    let again = minds
        .save_frame(frame(
            &Mind::Personal,
            "[hm session:9 src:chatgpt]\n  The deploy key lives in the vault.  \n",
        ))
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(again.frame.frame_ref, original.frame.frame_ref);
    assert_eq!(
        again.frame.access_count, 1,
        "a duplicate touches the existing frame"
    );
    assert!(again.frame.last_accessed.is_some());
    assert_eq!(frames_count(&mut minds, &Mind::Personal), 1);
    // Within one batch too.
    let batch = vec![
        frame(&Mind::Personal, "alpha"),
        frame(&Mind::Personal, "[hm x] alpha"),
    ];
    let saved = minds.save_frames(&Mind::Personal, batch).unwrap();
    assert!(!saved[0].duplicate && saved[1].duplicate);
    assert_eq!(saved[0].frame.frame_ref, saved[1].frame.frame_ref);
}

#[test]
fn created_at_is_validated_event_time_beside_insertion_time() {
    let (_dir, mut minds) = minds();
    let mut new = frame(&Mind::Personal, "Shipped the ledger.");
    new.created_at = Some("2026-05-08T23:30:00-05:00".into());
    let saved = minds.save_frame(new).unwrap().frame;
    assert_eq!(saved.created_at, "2026-05-09T04:30:00.000Z");
    assert_eq!(saved.event_date, "2026-05-08", "the date as written");
    assert_ne!(saved.inserted_at, saved.created_at);

    for bad in ["yesterday", "2026-13-01", "2026-02-30", "08/05/2026", ""] {
        let mut new = frame(&Mind::Personal, &format!("bad date {bad}"));
        new.created_at = Some(bad.into());
        let error = minds.save_frame(new).unwrap_err();
        assert!(
            matches!(error, StoreError::InvalidInput(_)),
            "{bad:?}: {error}"
        );
    }
    assert_eq!(
        frames_count(&mut minds, &Mind::Personal),
        1,
        "nothing written"
    );
}

#[test]
fn bad_input_is_a_typed_error_and_writes_nothing() {
    let (_dir, mut minds) = minds();
    let before = frames_count(&mut minds, &Mind::Personal);

    let empty = frame(&Mind::Personal, "   ");
    assert!(matches!(
        minds.save_frame(empty),
        Err(StoreError::InvalidInput(_))
    ));

    let mut metadata = frame(&Mind::Personal, "metadata");
    metadata.metadata = Some("[1, 2]".into());
    assert!(matches!(
        minds.save_frame(metadata),
        Err(StoreError::InvalidInput(_))
    ));

    let mut short = frame(&Mind::Personal, "short vector");
    short.embedding.as_mut().unwrap().pop();
    assert!(matches!(
        minds.save_frame(short),
        Err(StoreError::DimensionMismatch { expected: DIM, actual }) if actual == DIM - 1
    ));

    let mut nan = frame(&Mind::Personal, "nan vector");
    nan.embedding.as_mut().unwrap()[0] = f32::NAN;
    assert!(matches!(
        minds.save_frame(nan),
        Err(StoreError::InvalidInput(_))
    ));

    let mut missing_chunks = frame(&Mind::Personal, &long_text("chunks"));
    assert!(missing_chunks.chunks.len() > 1);
    missing_chunks.chunks.pop();
    assert!(matches!(
        minds.save_frame(missing_chunks),
        Err(StoreError::InvalidInput(_))
    ));

    // Unknown vocabulary is refused when parsed...
    assert!(matches!(
        hive_mind_store::types::parse_source("team_sync"),
        Err(StoreError::InvalidInput(_))
    ));
    assert!(matches!(
        hive_mind_store::types::parse_importance("urgent"),
        Err(StoreError::InvalidInput(_))
    ));
    // ...and by the database's CHECK, generated from the same lists.
    let store = minds.mind(&Mind::Personal).unwrap();
    let refused = store.connection().execute(
        "INSERT INTO memory_frames (frame_type, gop_id, t, content, importance, source, created_at,
             event_date, inserted_at, content_hash)
         VALUES ('i-frame', 'x', 0, 'c', 'normal', 'team_sync', 'now', 'now', 'now', ?1)",
        [content_hash("c")],
    );
    assert!(refused.is_err());

    // A batch with one bad frame writes none of them.
    let mut bad = frame(&Mind::Personal, "bad");
    bad.created_at = Some("not a date".into());
    let batch = vec![frame(&Mind::Personal, "good one"), bad];
    assert!(minds.save_frames(&Mind::Personal, batch).is_err());

    // A frame addressed to another mind.
    let stray = frame(&Mind::workspace("acme").unwrap(), "stray");
    assert!(matches!(
        minds.mind(&Mind::Personal).unwrap().save_frame(stray),
        Err(StoreError::InvalidInput(_))
    ));
    assert_eq!(frames_count(&mut minds, &Mind::Personal), before);
    assert_in_sync(&mut minds, &Mind::Personal);
}

#[test]
fn long_frames_are_stored_with_their_chunks() {
    let (_dir, mut minds) = minds();
    let text = long_text("ledger");
    let plan = plan_chunks(&text, fake_plan());
    assert!(plan.len() >= 2);
    let saved = minds.save_frame(frame(&Mind::Personal, &text)).unwrap();
    let status = minds.mind(&Mind::Personal).unwrap().status().unwrap();
    assert_eq!(status.chunks, plan.len() as u64);
    assert_eq!(status.chunk_vectors, plan.len() as u64);
    assert!(!saved.duplicate);
    assert_in_sync(&mut minds, &Mind::Personal);
}

#[test]
fn update_deprecate_delete_keep_every_index_in_sync() {
    let (_dir, mut minds) = minds();
    let personal = Mind::Personal;
    let base = minds
        .save_frame(frame(&personal, "The cache lives in Redis."))
        .unwrap()
        .frame;
    let long = minds
        .save_frame(frame(&personal, &long_text("audit")))
        .unwrap()
        .frame;
    let store = minds.mind(&personal).unwrap();

    // Update: new content, hash, FTS row and vectors.
    let fixed = frame(&personal, "The cache lives in Memcached.");
    let updated = store
        .update_frame(
            base.frame_ref.id,
            &fixed.content,
            fixed.embedding.as_deref().unwrap(),
            &fixed.chunks,
        )
        .unwrap();
    assert_eq!(
        updated.content_hash,
        content_hash("The cache lives in Memcached.")
    );
    let filter = Default::default();
    assert!(store.search_text("redis", &filter, 10).unwrap().is_empty());
    assert_eq!(
        store.search_text("memcached", &filter, 10).unwrap()[0]
            .frame_ref
            .id,
        base.frame_ref.id
    );
    let top = store
        .search_vector(fixed.embedding.as_deref().unwrap(), &filter, 1)
        .unwrap();
    assert_eq!(top[0].frame_ref.id, base.frame_ref.id);

    // Update the long frame to a short text: its chunks and chunk vectors go.
    let short = frame(&personal, "Audit notes, condensed.");
    store
        .update_frame(
            long.frame_ref.id,
            &short.content,
            short.embedding.as_deref().unwrap(),
            &short.chunks,
        )
        .unwrap();
    assert_eq!(store.status().unwrap().chunks, 0);

    // Deprecate: kept, ranked down by the guest.
    let deprecated = store
        .set_importance(base.frame_ref.id, Importance::Deprecated)
        .unwrap();
    assert_eq!(deprecated.importance, Importance::Deprecated);

    // A frame with dependents cannot be deleted.
    let p = minds
        .save_frame(frame(&personal, "A patch on the cache note."))
        .unwrap()
        .frame;
    assert_eq!(p.base_frame_id, Some(base.frame_ref.id));
    let store = minds.mind(&personal).unwrap();
    assert!(matches!(
        store.delete_frame(base.frame_ref.id),
        Err(StoreError::Referenced { dependents: 2, .. })
    ));
    // A leaf can: its FTS row, vector, chunks go with it.
    store.delete_frame(p.frame_ref.id).unwrap();
    assert!(store.get_frames(&[p.frame_ref.id]).unwrap().is_empty());
    assert!(
        store
            .search_text("patch", &Default::default(), 10)
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        store.delete_frame(p.frame_ref.id),
        Err(StoreError::NotFound(_))
    ));

    // Touch.
    store
        .touch_frames(&[base.frame_ref.id, base.frame_ref.id])
        .unwrap();
    assert_eq!(
        store.get_frames(&[base.frame_ref.id]).unwrap()[0].access_count,
        2
    );
    assert_in_sync(&mut minds, &personal);

    // Ids are never reused after a delete.
    let next = minds
        .save_frame(frame(&personal, "After the delete."))
        .unwrap()
        .frame;
    assert!(next.frame_ref.id > p.frame_ref.id);
}

#[test]
fn b_frames_branch_off_a_frame_with_description_and_references() {
    let (_dir, mut minds) = minds();
    let a = minds
        .save_frame(frame(&Mind::Personal, "Plan A: migrate in May."))
        .unwrap()
        .frame;
    let b = minds
        .save_frame(frame(&Mind::Personal, "Plan B context."))
        .unwrap()
        .frame;
    let branch = BranchContent {
        description: "Alternative: migrate in June instead".into(),
        references: vec![b.frame_ref.id],
    };
    let content = branch.to_content();
    let vectors = frame(&Mind::Personal, &content);
    let store = minds.mind(&Mind::Personal).unwrap();
    let saved = store
        .save_branch(NewBranch {
            base_frame_id: a.frame_ref.id,
            branch: branch.clone(),
            gop_id: None,
            importance: Importance::Normal,
            source: Source::AgentInferred,
            created_at: None,
            metadata: None,
            embedding: vectors.embedding.clone().unwrap(),
            chunks: vectors.chunks.clone(),
        })
        .unwrap()
        .frame;
    assert_eq!(saved.frame_type, FrameType::BFrame);
    assert_eq!(saved.base_frame_id, Some(a.frame_ref.id));
    let json: serde_json::Value = serde_json::from_str(&saved.content).unwrap();
    assert_eq!(json["description"], "Alternative: migrate in June instead");
    assert_eq!(json["references"], serde_json::json!([b.frame_ref.id]));

    let missing = store.save_branch(NewBranch {
        base_frame_id: 999,
        branch,
        gop_id: None,
        importance: Importance::Normal,
        source: Source::AgentInferred,
        created_at: None,
        metadata: None,
        embedding: vectors.embedding.unwrap(),
        chunks: vectors.chunks,
    });
    assert!(matches!(missing, Err(StoreError::NotFound(_))));
}

#[test]
fn ids_name_their_mind_and_workspaces_open_lazily() {
    let (dir, mut minds) = minds();
    let acme = Mind::workspace("acme").unwrap();
    // Reading a workspace that was never written is a typed error, and
    // creates nothing.
    assert!(matches!(
        minds.mind(&acme),
        Err(StoreError::MindNotFound(_))
    ));
    assert!(!dir.path().join("workspaces/acme.sqlite").exists());

    let p = minds
        .save_frame(frame(&Mind::Personal, "personal one"))
        .unwrap()
        .frame;
    let w = minds
        .save_frame(frame(&acme, "workspace one"))
        .unwrap()
        .frame;
    assert_eq!(
        p.frame_ref.id, w.frame_ref.id,
        "ids collide across minds..."
    );
    assert_ne!(p.frame_ref, w.frame_ref, "...so refs name the mind");
    assert_eq!(
        w.frame_ref.to_string(),
        format!("workspace:acme:{}", w.frame_ref.id)
    );
    let parsed: FrameRef = w.frame_ref.to_string().parse().unwrap();
    assert_eq!(parsed, w.frame_ref);
    let both = minds
        .get_frames(&[w.frame_ref.clone(), p.frame_ref.clone()])
        .unwrap();
    assert_eq!(both[0].content, "workspace one");
    assert_eq!(both[1].content, "personal one");
    assert_eq!(minds.list().unwrap(), vec![Mind::Personal, acme.clone()]);

    // Bad workspace ids never become paths.
    for bad in ["", "../etc", "a/b", ".hidden", "personal", &"x".repeat(65)] {
        assert!(Mind::workspace(bad).is_err(), "{bad:?}");
    }
    assert!("workspace:../x:1".parse::<FrameRef>().is_err());
    assert!("personal:abc".parse::<FrameRef>().is_err());

    // Reopen: the cache is rebuilt from the files.
    drop(minds);
    let mut minds = open_minds(dir.path(), config()).unwrap();
    assert_eq!(
        minds
            .get_frames(std::slice::from_ref(&w.frame_ref))
            .unwrap()
            .len(),
        1
    );
}

/// The native capability, but the next `COMMIT` after `fail_next` is set
/// fails with `Busy` and leaves the transaction open, as SQLite does when a
/// commit cannot get its lock.
struct FailingCommits {
    inner: Box<dyn Databases>,
    fail_next: Arc<AtomicBool>,
}

struct FailingCommit {
    inner: Box<dyn Database>,
    fail_next: Arc<AtomicBool>,
}

impl Database for FailingCommit {
    fn execute(&self, statement: &str, parameters: &[Value]) -> Result<QueryResult, SqlError> {
        if statement.trim().eq_ignore_ascii_case("COMMIT")
            && self.fail_next.swap(false, Ordering::SeqCst)
        {
            return Err(SqlError::Busy);
        }
        self.inner.execute(statement, parameters)
    }

    fn last_insert_rowid(&self) -> i64 {
        self.inner.last_insert_rowid()
    }

    fn changes(&self) -> u64 {
        self.inner.changes()
    }
}

impl Databases for FailingCommits {
    fn open(&self, name: &str, create: bool) -> Result<Box<dyn Database>, SqlError> {
        Ok(Box::new(FailingCommit {
            inner: self.inner.open(name, create)?,
            fail_next: Arc::clone(&self.fail_next),
        }))
    }

    fn list(&self) -> Result<Vec<String>, SqlError> {
        self.inner.list()
    }
}

#[test]
fn a_failed_commit_writes_nothing_and_the_mind_stays_writable() {
    let dir = tempfile::tempdir().unwrap();
    let fail_next = Arc::new(AtomicBool::new(false));
    let databases = FailingCommits {
        inner: databases(dir.path()),
        fail_next: Arc::clone(&fail_next),
    };
    let mut minds = Minds::open(Box::new(databases), config()).unwrap();
    minds
        .save_frame(frame(&Mind::Personal, "Saved before the failure."))
        .unwrap();

    fail_next.store(true, Ordering::SeqCst);
    let error = minds
        .save_frame(frame(&Mind::Personal, "Lost to a failed commit."))
        .unwrap_err();
    assert!(
        !fail_next.load(Ordering::SeqCst),
        "the commit was attempted"
    );
    assert_eq!(error.sql_error(), Some(&SqlError::Busy), "{error}");

    // The transaction was rolled back: the connection takes the next write,
    // and the failed one is nowhere.
    minds
        .save_frame(frame(&Mind::Personal, "Saved after the failure."))
        .unwrap();
    let all = SearchFilter::default();
    assert_eq!(frames_count(&mut minds, &Mind::Personal), 2);
    assert!(minds.search_text("lost", &all, 10).unwrap().is_empty());
    assert_in_sync(&mut minds, &Mind::Personal);
    drop(minds);
    let mut minds = open_minds(dir.path(), config()).unwrap();
    assert_eq!(frames_count(&mut minds, &Mind::Personal), 2);
    assert!(minds.search_text("lost", &all, 10).unwrap().is_empty());
}
