//! The schema against real SQLite files: a fresh file and the v1 fixture both
//! end at the current version with the same schema; migrations are
//! idempotent; foreign, corrupt and newer files are typed errors and are left
//! untouched; the audit tables are append-only.

// Helpers outside #[test] functions unwrap too: this is test code.

use std::path::Path;

use crate::store_support::*;
use hive_mind_core::{Importance, Source, content_hash};
use hive_mind_host::store::schema::{self, SCHEMA_VERSION};
use hive_mind_host::store::{FrameType, Mind, MindStore, Minds, StoreConfig, StoreError};

const V1_FIXTURE: &str = include_str!("fixtures/store/v1.sql");

/// Build the v1 fixture database at `path` (sqlite-vec registered by opening
/// a mind first).
fn build_v1(path: &Path) {
    let scratch = tempfile::tempdir().unwrap();
    drop(
        MindStore::open(
            &scratch.path().join("x.sqlite"),
            Mind::Personal,
            true,
            &StoreConfig::default(),
        )
        .unwrap(),
    );
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(V1_FIXTURE).unwrap();
}

/// The schema objects (not the vector tables' shadow tables), whitespace
/// collapsed, sorted.
fn schema_of(conn: &rusqlite::Connection) -> Vec<String> {
    let mut rows: Vec<String> = conn
        .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE '%_vec%' AND name NOT LIKE 'memory_frames_fts_%'")
        .unwrap()
        .query_map([], |row| {
            let sql: String = row.get(2)?;
            Ok(format!(
                "{} {} {}",
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                sql.split_whitespace().collect::<Vec<_>>().join(" ")
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.sort();
    rows
}

#[test]
fn the_v1_fixture_migrates_to_the_current_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("personal.sqlite");
    build_v1(&path);
    let mut minds = Minds::open(dir.path(), StoreConfig::default()).unwrap();
    let store = minds.mind(&Mind::Personal).unwrap();
    assert_eq!(schema::version(store.connection()).unwrap(), SCHEMA_VERSION);

    // Frames: the one vocabulary, hashes, UTC times, event dates, metadata.
    let frames = store.get_frames(&[1, 2, 3, 5]).unwrap();
    assert_eq!(frames.len(), 4);
    assert_eq!(frames[0].frame_type, FrameType::IFrame);
    assert_eq!(frames[1].frame_type, FrameType::PFrame);
    assert_eq!(frames[0].source, Source::UserStated);
    assert_eq!(frames[1].source, Source::AgentInferred);
    assert_eq!(frames[2].source, Source::ToolVerified);
    assert_eq!(frames[3].source, Source::Import);
    assert_eq!(frames[0].importance, Importance::Important);
    assert_eq!(
        frames[0].content_hash,
        content_hash("The deploy key lives in the vault.")
    );
    assert_eq!(frames[0].created_at, "2026-03-01T10:00:00.000Z");
    assert_eq!(
        frames[0].last_accessed.as_deref(),
        Some("2026-03-03T12:00:00.000Z")
    );
    assert_eq!(frames[2].event_date, "2026-04-05");
    assert_eq!(frames[1].metadata, "{}", "non-JSON metadata is replaced");
    assert_eq!(frames[0].metadata, r#"{"kind":"fact"}"#);

    // Indexes survive the rebuild: FTS and the v1 vectors (dimension 4).
    assert_eq!(
        store.search_text("vault", &Default::default(), 5).unwrap()[0]
            .frame_ref
            .id,
        1
    );
    let hits = store
        .search_vector(&[0.0, 0.0, 1.0, 0.0], &Default::default(), 1)
        .unwrap();
    assert_eq!(hits[0].frame_ref.id, 3);
    let report = store.check().unwrap();
    assert!(report.ok(), "{:?}", report.problems);
    assert_eq!(report.status.frames, 4);

    // Entities: the three spellings merged into the one with most relations,
    // then the lowest id; seen counts summed; Marko the person and Marko the
    // project kept apart; the duplicate relation merged.
    let postgres = store.find_entities("postgres").unwrap();
    assert_eq!(postgres.len(), 1);
    assert_eq!(postgres[0].id, 1);
    assert_eq!(postgres[0].seen_count, 4);
    assert_eq!(store.find_entities("Marko").unwrap().len(), 2);
    let relations = store.relations(1).unwrap();
    assert_eq!(relations.len(), 1);
    assert_eq!(relations[0].seen_count, 2);
    assert_eq!(relations[0].strength, 0.9);

    // Sessions: the same-second race resolved to one active session.
    let active: i64 = store
        .connection()
        .query_row(
            "SELECT count(*) FROM sessions WHERE status = 'active' AND project IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(active, 1);
    assert_eq!(store.session("gop-a").unwrap().unwrap().status, "closed");
    assert_eq!(store.session("gop-b").unwrap().unwrap().status, "active");

    // Identity, awareness and the audit survive.
    assert_eq!(store.identity().unwrap().unwrap().name, "Hive");
    assert_eq!(store.awareness().unwrap().len(), 1);
    assert_eq!(store.install_audit().unwrap().len(), 1);

    // The schema is exactly a fresh file's.
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = Minds::open(fresh_dir.path(), StoreConfig::default()).unwrap();
    drop(fresh);
    let fresh = rusqlite::Connection::open(fresh_dir.path().join("personal.sqlite")).unwrap();
    assert_eq!(schema_of(store.connection()), schema_of(&fresh));
    drop(minds);

    // New frames continue after v1's high-water mark (frame 4 was deleted).
    let config = StoreConfig {
        embedder: Some(hive_mind_host::store::EmbedderFingerprint {
            provider: "mock".into(),
            model: "fixture-v1".into(),
            dim: 4,
        }),
    };
    let mut minds = Minds::open(dir.path(), config).unwrap();
    let mut new =
        hive_mind_host::store::NewFrame::new(Mind::Personal, "after the migration", vec![0.5; 4]);
    new.gop_id = Some("gop-b".into());
    let saved = minds.save_frame(new).unwrap().frame;
    assert_eq!(saved.frame_ref.id, 6);
    assert_eq!(saved.frame_type, FrameType::PFrame);
    assert_eq!(saved.base_frame_id, Some(3));
    assert_eq!(saved.t, 1);
}

#[test]
fn migrations_are_idempotent_and_reopening_changes_nothing() {
    let (dir, mut minds) = minds();
    minds.save_frame(frame(&Mind::Personal, "stable")).unwrap();
    let before = schema_of(minds.mind(&Mind::Personal).unwrap().connection());
    drop(minds);
    for _ in 0..3 {
        let mut minds = Minds::open(dir.path(), config()).unwrap();
        let store = minds.mind(&Mind::Personal).unwrap();
        assert_eq!(schema_of(store.connection()), before);
        assert_eq!(store.status().unwrap().frames, 1);
    }
}

#[test]
fn a_crash_inside_a_migration_leaves_the_old_version() {
    // Simulate a crash after part of v2's work: a transaction that did some of
    // it and never committed. The next open must find v1 and migrate cleanly.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("personal.sqlite");
    build_v1(&path);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("BEGIN; ALTER TABLE knowledge_entities ADD COLUMN normalized_name TEXT; DROP TRIGGER memory_frames_fts_insert;").unwrap();
        // Dropped without COMMIT: rolled back, as a killed process would be.
    }
    let mut minds = Minds::open(dir.path(), StoreConfig::default()).unwrap();
    let store = minds.mind(&Mind::Personal).unwrap();
    assert_eq!(schema::version(store.connection()).unwrap(), SCHEMA_VERSION);
    assert!(store.check().unwrap().ok());
}

fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn foreign_corrupt_and_newer_files_are_typed_errors_and_untouched() {
    let dir = tempfile::tempdir().unwrap();

    // Not SQLite at all.
    let garbage = dir.path().join("garbage.sqlite");
    std::fs::write(
        &garbage,
        b"this is not a database, just text padded out to look like one".repeat(100),
    )
    .unwrap();
    let before = file_bytes(&garbage);
    let error = MindStore::open(&garbage, Mind::Personal, false, &config()).unwrap_err();
    assert!(matches!(error, StoreError::Corrupt { .. }), "{error}");
    assert_eq!(file_bytes(&garbage), before);

    // SQLite, but someone else's.
    let foreign = dir.path().join("foreign.sqlite");
    rusqlite::Connection::open(&foreign).unwrap().execute_batch("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);").unwrap();
    let before = file_bytes(&foreign);
    let error = MindStore::open(&foreign, Mind::Personal, false, &config()).unwrap_err();
    assert!(matches!(error, StoreError::Corrupt { .. }), "{error}");
    assert!(error.to_string().contains("not a hive-mind mind"));
    assert_eq!(file_bytes(&foreign), before);

    // A mind from a newer hive-mind.
    let newer = dir.path().join("newer.sqlite");
    drop(MindStore::open(&newer, Mind::Personal, true, &config()).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let before = file_bytes(&newer);
    let error = MindStore::open(&newer, Mind::Personal, false, &config()).unwrap_err();
    assert!(
        matches!(error, StoreError::NewerSchema { found, supported, .. } if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION),
        "{error}"
    );
    assert_eq!(file_bytes(&newer), before);

    // A personal mind that is corrupt makes the whole data directory refuse.
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(&foreign, data.join("personal.sqlite")).unwrap();
    assert!(matches!(
        Minds::open(&data, config()),
        Err(StoreError::Corrupt { .. })
    ));
}

#[test]
fn the_check_constraints_come_from_the_one_vocabulary() {
    let (_dir, mut minds) = minds();
    let store = minds.mind(&Mind::Personal).unwrap();
    let sql: String = store
        .connection()
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'memory_frames'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    for source in Source::ALL {
        assert!(sql.contains(&format!("'{}'", source.as_str())));
    }
    for importance in Importance::ALL {
        assert!(sql.contains(&format!("'{}'", importance.as_str())));
    }
    for check in schema::vocabulary_checks() {
        assert!(sql.contains(&check), "{check}");
    }
    // Every allowed value is accepted by the database, every other refused.
    for source in Source::ALL {
        let mut new = frame(&Mind::Personal, &format!("from {}", source.as_str()));
        new.source = source;
        minds.save_frame(new).unwrap();
    }
}

#[test]
fn the_audit_tables_are_append_only() {
    let (_dir, mut minds) = minds();
    let store = minds.mind(&Mind::Personal).unwrap();
    store
        .append_install_audit("install", r#"{"version":"0.1.0"}"#)
        .unwrap();
    store
        .append_ai_interaction(&hive_mind_host::store::audit::AiInteraction {
            provider: "local".into(),
            model: "tiny".into(),
            purpose: "cognify".into(),
            input_tokens: 10,
            output_tokens: 5,
            detail: "{}".into(),
        })
        .unwrap();
    let conn = store.connection();
    for sql in [
        "UPDATE install_audit SET action = 'tampered'",
        "DELETE FROM install_audit",
        "UPDATE ai_interactions SET model = 'other'",
        "DELETE FROM ai_interactions",
    ] {
        let error = conn.execute(sql, []).unwrap_err();
        assert!(error.to_string().contains("append-only"), "{sql}: {error}");
    }
    assert_eq!(store.install_audit().unwrap().len(), 1);
    assert_eq!(store.ai_interaction_count().unwrap(), 1);
    assert!(store.append_install_audit("x", "not json").is_err());
}
