//! The sandbox of every connection, checked against the bundled SQLite:
//! each refusal fails with `AccessDenied`, names its reason, and leaves the
//! database as it was; what the engine needs (its migrations, FTS5 under
//! `trusted_schema = OFF`, `VACUUM`) still
//! works; sqlite-vec exists only on a connection whose file uses it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use hive_mind_sqlite::{DataDir, Refusal, SqlError, SqliteConnection, Value, load_sqlite_vec};

/// A small "mind" at version 1, built the way the engine migrates: one
/// transaction that creates the schema and raises `user_version`. It has a
/// table with an index and a view, and an append-only audit table guarded
/// by a trigger.
fn mind(dir: &Path) -> SqliteConnection {
    let conn = DataDir::new(dir).create("personal").unwrap();
    for statement in [
        "BEGIN IMMEDIATE",
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
        "CREATE INDEX notes_body ON notes(body)",
        "CREATE VIEW short_notes AS SELECT id FROM notes WHERE length(body) < 10",
        "CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT NOT NULL)",
        "CREATE TRIGGER audit_append_only BEFORE DELETE ON audit
             BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END",
        "INSERT INTO notes (body) VALUES ('first'), ('second')",
        "INSERT INTO audit (what) VALUES ('created')",
        "PRAGMA user_version = 1",
        "COMMIT",
    ] {
        conn.execute(statement, &[]).unwrap();
    }
    conn
}

/// Everything a refused statement must leave as it was: the schema, the
/// version, the rows, and the files in the data directory.
#[derive(Debug, PartialEq)]
struct Snapshot {
    schema: Vec<Vec<Value>>,
    version: Vec<Vec<Value>>,
    notes: Vec<Vec<Value>>,
    audit: Vec<Vec<Value>>,
    files: Vec<String>,
}

fn snapshot(conn: &SqliteConnection, dir: &Path) -> Snapshot {
    let rows = |sql: &str| conn.execute(sql, &[]).unwrap().rows;
    let mut files: Vec<String> = walk(dir);
    files.sort();
    Snapshot {
        schema: rows("SELECT type, name, sql FROM sqlite_master ORDER BY name"),
        version: rows("PRAGMA user_version"),
        notes: rows("SELECT id, body FROM notes ORDER BY id"),
        audit: rows("SELECT id, what FROM audit ORDER BY id"),
        files,
    }
}

fn walk(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path.display().to_string());
        }
    }
    found
}

/// Run `statements` in order; the last one must be refused with
/// `AccessDenied` for `reason`, and the database must end as it began.
fn assert_refused(
    conn: &SqliteConnection,
    dir: &Path,
    statements: &[&str],
    reason: impl Fn(&Refusal) -> bool,
) {
    let before = snapshot(conn, dir);
    let (last, setup) = statements.split_last().unwrap();
    for statement in setup {
        conn.execute(statement, &[]).unwrap();
    }
    let outcome = conn.execute(last, &[]);
    assert_eq!(outcome, Err(SqlError::AccessDenied), "{statements:?}");
    let refusal = conn.last_refusal().expect("a refusal is recorded");
    assert!(reason(&refusal), "{statements:?}: {refusal:?}");
    assert!(
        conn.raw().is_autocommit(),
        "{statements:?} left a transaction open"
    );
    assert_eq!(snapshot(conn, dir), before, "{statements:?}");
    assert_eq!(conn.last_refusal(), None, "the next statement clears it");
}

fn count(conn: &SqliteConnection, sql: &str) -> i64 {
    let rows = conn.execute(sql, &[]).unwrap().rows;
    if let [row] = rows.as_slice()
        && let [Value::Integer(n)] = row.as_slice()
    {
        return *n;
    }
    unreachable!("{sql} gave {rows:?}, not one integer")
}

#[test]
fn attach_detach_and_vacuum_into_are_refused_and_write_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let conn = mind(dir.path());
    let other = dir.path().join("other.sqlite");
    let attach = format!("ATTACH '{}' AS other", other.display());
    assert_refused(
        &conn,
        dir.path(),
        &[&attach],
        |refusal| matches!(refusal, Refusal::Attach(file) if file.ends_with("other.sqlite")),
    );
    for attach in ["ATTACH '' AS scratch", "ATTACH ':memory:' AS scratch"] {
        assert_refused(&conn, dir.path(), &[attach], |refusal| {
            matches!(refusal, Refusal::Attach(_))
        });
    }
    assert_refused(&conn, dir.path(), &["DETACH other"], |refusal| {
        *refusal == Refusal::Detach
    });
    let copy = dir.path().join("copy.sqlite");
    for vacuum_into in [
        format!("VACUUM INTO '{}'", copy.display()),
        format!("VACUUM main INTO '{}'", copy.display()),
    ] {
        assert_refused(
            &conn,
            dir.path(),
            &[&vacuum_into],
            |refusal| matches!(refusal, Refusal::Attach(file) if file.ends_with("copy.sqlite")),
        );
    }
    assert!(!other.exists() && !copy.exists());
}

#[test]
fn plain_vacuum_and_incremental_vacuum_reclaim_pages() {
    let dir = tempfile::tempdir().unwrap();
    let conn = mind(dir.path());
    let filler = Value::Text("x".repeat(4000));
    for _ in 0..50 {
        conn.execute(
            "INSERT INTO notes (body) VALUES (?1)",
            std::slice::from_ref(&filler),
        )
        .unwrap();
    }
    conn.execute("DELETE FROM notes WHERE length(body) > 100", &[])
        .unwrap();
    assert!(count(&conn, "PRAGMA freelist_count") > 0);
    conn.execute("PRAGMA incremental_vacuum", &[]).unwrap();
    conn.execute("VACUUM", &[]).unwrap();
    assert_eq!(count(&conn, "PRAGMA freelist_count"), 0);
    conn.execute("VACUUM main;", &[]).unwrap();
    // VACUUM's own attach does not open the door for the next statement.
    assert_refused(&conn, dir.path(), &["ATTACH '' AS scratch"], |refusal| {
        matches!(refusal, Refusal::Attach(_))
    });
}

#[test]
fn extensions_and_sandbox_pragmas_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let conn = mind(dir.path());
    assert_refused(
        &conn,
        dir.path(),
        &["SELECT load_extension('/no/such/library.so')"],
        |refusal| *refusal == Refusal::LoadExtension,
    );
    for (statement, pragma) in [
        ("PRAGMA trusted_schema = ON", "trusted_schema"),
        ("PRAGMA writable_schema = ON", "writable_schema"),
        ("PRAGMA main.schema_version = 99", "schema_version"),
        (
            "PRAGMA temp_store_directory = '/tmp'",
            "temp_store_directory",
        ),
    ] {
        assert_refused(&conn, dir.path(), &[statement], |refusal| {
            *refusal == Refusal::Pragma(pragma.to_string())
        });
    }
    // Reading them is fine, and the settings are the sandbox's.
    assert_eq!(count(&conn, "PRAGMA trusted_schema"), 0);
    assert_eq!(count(&conn, "PRAGMA writable_schema"), 0);
    // Settings the engine makes stay allowed.
    conn.execute("PRAGMA journal_mode = WAL", &[]).unwrap();
    conn.execute("PRAGMA synchronous = NORMAL", &[]).unwrap();
    conn.execute("PRAGMA foreign_keys = OFF", &[]).unwrap();
}

#[test]
fn user_version_never_goes_down() {
    let dir = tempfile::tempdir().unwrap();
    let conn = mind(dir.path());
    for lower in ["PRAGMA user_version = 0", "PRAGMA user_version = -5"] {
        assert_refused(&conn, dir.path(), &[lower], |refusal| {
            matches!(refusal, Refusal::LowerUserVersion { from: 1, .. })
        });
    }
    assert_refused(
        &conn,
        dir.path(),
        &["PRAGMA user_version = 'two'"],
        |refusal| matches!(refusal, Refusal::UnreadableUserVersion(_)),
    );
    // A committed raise moves the floor up.
    conn.execute("PRAGMA user_version = 3", &[]).unwrap();
    assert_refused(&conn, dir.path(), &["PRAGMA user_version = 2"], |refusal| {
        matches!(refusal, Refusal::LowerUserVersion { from: 3, to: 2 })
    });
    // A new connection reads the floor from the file.
    let again = DataDir::new(dir.path()).open("personal").unwrap();
    assert_refused(
        &again,
        dir.path(),
        &["PRAGMA user_version = 2"],
        |refusal| matches!(refusal, Refusal::LowerUserVersion { from: 3, to: 2 }),
    );
}

fn changes_without_version(refusal: &Refusal, what: &str) -> bool {
    matches!(refusal, Refusal::SchemaChangeWithoutVersion(message) if message.contains(what))
}

#[test]
fn changing_schema_outside_a_migration_is_rolled_back() {
    let dir = tempfile::tempdir().unwrap();
    let conn = mind(dir.path());
    for (statement, what) in [
        (
            "DROP TRIGGER audit_append_only",
            "drops trigger \"audit_append_only\"",
        ),
        ("DROP TABLE audit", "drops table \"audit\""),
        ("DROP INDEX notes_body", "drops index \"notes_body\""),
        ("DROP VIEW short_notes", "drops view \"short_notes\""),
        (
            "ALTER TABLE notes ADD COLUMN extra TEXT",
            "alters table \"notes\"",
        ),
        (
            "ALTER TABLE notes RENAME TO renamed",
            "alters table \"notes\"",
        ),
        (
            "ALTER TABLE audit DROP COLUMN what",
            "alters table \"audit\"",
        ),
        (
            "ALTER TABLE audit RENAME COLUMN what TO why",
            "alters table \"audit\"",
        ),
        (
            "CREATE TABLE extra (id INTEGER PRIMARY KEY)",
            "creates table \"extra\"",
        ),
        (
            "CREATE INDEX notes_by_id ON notes(id, body)",
            "creates index \"notes_by_id\"",
        ),
        (
            "CREATE VIEW all_notes AS SELECT * FROM notes",
            "creates view \"all_notes\"",
        ),
        (
            "CREATE TRIGGER notes_spy AFTER INSERT ON notes BEGIN DELETE FROM notes; END",
            "creates trigger \"notes_spy\"",
        ),
        (
            "CREATE VIRTUAL TABLE notes_fts USING fts5(body)",
            "creates virtual table \"notes_fts\"",
        ),
    ] {
        // Outside a transaction: the statement itself is refused.
        assert_refused(&conn, dir.path(), &[statement], |refusal| {
            changes_without_version(refusal, what)
        });
        // Inside one: the COMMIT is, and everything in it is rolled back.
        assert_refused(
            &conn,
            dir.path(),
            &[
                "BEGIN",
                "INSERT INTO audit (what) VALUES ('smuggled')",
                statement,
                "COMMIT",
            ],
            |refusal| changes_without_version(refusal, what),
        );
    }
    // The guard still guards.
    assert!(matches!(
        conn.execute("DELETE FROM audit", &[]),
        Err(SqlError::Constraint(message)) if message.contains("append-only")
    ));
}

#[test]
fn temporary_objects_count_too() {
    let dir = tempfile::tempdir().unwrap();
    let conn = mind(dir.path());
    let temp_objects =
        |conn: &SqliteConnection| count(conn, "SELECT count(*) FROM sqlite_temp_master");
    // A temporary trigger can act on the mind's own tables.
    for (statement, what) in [
        (
            "CREATE TEMP TABLE scratch (x)",
            "creates temporary table \"scratch\"",
        ),
        (
            "CREATE TEMP TRIGGER notes_spy AFTER INSERT ON main.notes BEGIN DELETE FROM main.notes; END",
            "creates temporary trigger \"notes_spy\"",
        ),
        (
            "CREATE TEMP VIEW recent AS SELECT * FROM main.notes",
            "creates temporary view \"recent\"",
        ),
    ] {
        assert_refused(&conn, dir.path(), &[statement], |refusal| {
            changes_without_version(refusal, what)
        });
        assert_eq!(temp_objects(&conn), 0, "{statement}");
    }
    // A temporary table made and dropped inside one migration is fine (the
    // engine's v4 step copies vectors through two of them).
    for statement in [
        "BEGIN",
        "CREATE TEMP TABLE copied AS SELECT * FROM notes",
        "DROP TABLE temp.copied",
        "PRAGMA user_version = 2",
        "COMMIT",
    ] {
        conn.execute(statement, &[]).unwrap();
    }
    assert_eq!(count(&conn, "PRAGMA user_version"), 2);
    assert_eq!(temp_objects(&conn), 0);
}

#[test]
fn only_a_migration_may_change_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let conn = mind(dir.path());
    // Replacing an object (dropping it and making one of the same name in
    // one transaction) is a change like any other: it could swap a guard
    // for one that guards nothing.
    assert_refused(
        &conn,
        dir.path(),
        &[
            "BEGIN IMMEDIATE",
            "DROP TRIGGER audit_append_only",
            "CREATE TRIGGER audit_append_only BEFORE DELETE ON audit WHEN 0
                 BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END",
            "COMMIT",
        ],
        |refusal| changes_without_version(refusal, "drops trigger \"audit_append_only\""),
    );
    assert_refused(
        &conn,
        dir.path(),
        &[
            "BEGIN IMMEDIATE",
            "DROP INDEX notes_body",
            "CREATE INDEX notes_body ON notes(id)",
            "COMMIT",
        ],
        |refusal| changes_without_version(refusal, "drops index \"notes_body\""),
    );
    // A migration step that was rolled back once (a crash, a failed check)
    // runs again on the same connection: its statements are authorized
    // again, not served unseen from the statement cache.
    let step = [
        "BEGIN IMMEDIATE",
        "DROP TRIGGER audit_append_only",
        "ALTER TABLE notes ADD COLUMN context TEXT",
        "CREATE TABLE extra (id INTEGER PRIMARY KEY)",
        "PRAGMA user_version = 2",
    ];
    for statement in step {
        conn.execute(statement, &[]).unwrap();
    }
    conn.execute("ROLLBACK", &[]).unwrap();
    assert_eq!(count(&conn, "PRAGMA user_version"), 1);
    for statement in step {
        conn.execute(statement, &[]).unwrap();
    }
    conn.execute("COMMIT", &[]).unwrap();
    assert_eq!(count(&conn, "PRAGMA user_version"), 2);
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM sqlite_master WHERE name IN ('audit_append_only', 'extra')"
        ),
        1
    );
    conn.execute("DELETE FROM audit", &[]).unwrap();
    // After the migration, the next change needs the next version.
    assert_refused(
        &conn,
        dir.path(),
        &["CREATE TABLE later (id INTEGER PRIMARY KEY)"],
        |refusal| changes_without_version(refusal, "creates table \"later\""),
    );
}

#[test]
fn fts5_migrations_and_triggers_work_under_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let conn = mind(dir.path());
    for statement in [
        "BEGIN IMMEDIATE",
        "CREATE VIRTUAL TABLE notes_fts USING fts5(body, content = 'notes', content_rowid = 'id')",
        "CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
             INSERT INTO notes_fts (rowid, body) VALUES (new.id, new.body);
         END",
        "CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
             INSERT INTO notes_fts (notes_fts, rowid, body) VALUES ('delete', old.id, old.body);
         END",
        "INSERT INTO notes_fts (notes_fts) VALUES ('rebuild')",
        "PRAGMA user_version = 2",
        "COMMIT",
    ] {
        conn.execute(statement, &[]).unwrap();
    }
    // trusted_schema is OFF and FTS5 (innocuous in the bundled SQLite) still
    // takes writes from triggers.
    assert_eq!(count(&conn, "PRAGMA trusted_schema"), 0);
    conn.execute("INSERT INTO notes (body) VALUES ('green tea')", &[])
        .unwrap();
    conn.execute("DELETE FROM notes WHERE body = 'first'", &[])
        .unwrap();
    let matches = |term: &str| {
        count(
            &conn,
            &format!("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH '{term}'"),
        )
    };
    assert_eq!(
        (matches("green"), matches("first"), matches("second")),
        (1, 0, 1)
    );
    // Defensive mode: FTS5's shadow tables are not writable directly.
    assert!(matches!(
        conn.execute("DELETE FROM notes_fts_data", &[]),
        Err(SqlError::Io(message)) if message.contains("may not be modified")
    ));
    // Dropping the index outside a migration is refused, and so is
    // rebuilding it (drop and create in one transaction).
    assert_refused(&conn, dir.path(), &["DROP TABLE notes_fts"], |refusal| {
        changes_without_version(refusal, "drops virtual table \"notes_fts\"")
    });
    assert_refused(
        &conn,
        dir.path(),
        &[
            "BEGIN",
            "DROP TABLE notes_fts",
            "CREATE VIRTUAL TABLE notes_fts USING fts5(body, content = 'notes', content_rowid = 'id')",
            "COMMIT",
        ],
        |refusal| changes_without_version(refusal, "drops virtual table \"notes_fts\""),
    );
    assert_eq!(matches("green"), 1);
}

#[test]
fn sqlite_vec_is_only_on_connections_whose_file_uses_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    // A fresh mind has no vec0 module and no sqlite-vec functions.
    let fresh = data.create("personal").unwrap();
    let refused = fresh.execute("CREATE VIRTUAL TABLE v USING vec0(embedding float[4])", &[]);
    assert!(
        matches!(&refused, Err(SqlError::Io(message)) if message.contains("no such module: vec0")),
        "{refused:?}"
    );
    assert!(matches!(
        fresh.execute("SELECT vec_version()", &[]),
        Err(SqlError::Io(message)) if message.contains("no such function")
    ));
    // A file that declares a vec0 table (an old v3 mind) gets sqlite-vec.
    let old = dir.path().join("workspaces").join("old.sqlite");
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    {
        let writer = rusqlite::Connection::open(&old).unwrap();
        load_sqlite_vec(&writer).unwrap();
        writer
            .execute_batch(
                "CREATE VIRTUAL TABLE vectors USING vec0(embedding float[2]);
                 INSERT INTO vectors (rowid, embedding) VALUES (7, '[0.5, 0.25]');
                 PRAGMA user_version = 3;",
            )
            .unwrap();
    }
    let v3 = data.open("workspace/old").unwrap();
    assert_eq!(
        v3.execute("SELECT rowid, vec_length(embedding) FROM vectors", &[])
            .unwrap()
            .rows,
        vec![vec![Value::Integer(7), Value::Integer(2)]]
    );
    // ... and only that connection: a connection opened later elsewhere
    // still has none.
    let again = data.open("personal").unwrap();
    assert!(again.execute("SELECT vec_version()", &[]).is_err());
    // The benchmark asks for it explicitly.
    again.load_sqlite_vec().unwrap();
    assert_eq!(
        again
            .execute("SELECT vec_distance_cosine('[1, 0]', '[0, 1]')", &[])
            .unwrap()
            .rows,
        vec![vec![Value::Real(1.0)]]
    );
}
