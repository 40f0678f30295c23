//! The data directory and its minds are readable by their owner only: made
//! so at creation whatever the umask, tightened on open when found looser.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use hive_mind_sqlite::DataDir;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A mind with a table, in WAL mode, with a write (so its `-wal` and
/// `-shm` exist).
fn write_in_wal(data: &DataDir, name: &str) -> hive_mind_sqlite::SqliteConnection {
    let conn = data.create(name).unwrap();
    conn.execute("PRAGMA journal_mode = WAL", &[]).unwrap();
    for statement in [
        "BEGIN",
        "CREATE TABLE t (x)",
        "PRAGMA user_version = 1",
        "COMMIT",
        "INSERT INTO t VALUES (1)",
    ] {
        conn.execute(statement, &[]).unwrap();
    }
    conn
}

#[test]
fn a_fresh_data_directory_and_its_minds_are_owner_only() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("hive-mind");
    let data = DataDir::new(&dir);
    assert_eq!(data.secure().unwrap(), []);
    assert_eq!(mode(&dir), 0o700);
    let _personal = write_in_wal(&data, "personal");
    let _workspace = write_in_wal(&data, "workspace/acme");
    assert_eq!(mode(&dir.join("workspaces")), 0o700);
    for file in [
        "personal.sqlite",
        "personal.sqlite-wal",
        "personal.sqlite-shm",
        "workspaces/acme.sqlite",
        "workspaces/acme.sqlite-wal",
        "workspaces/acme.sqlite-shm",
    ] {
        let path = dir.join(file);
        assert!(path.exists(), "{file}");
        assert_eq!(mode(&path), 0o600, "{file}");
    }
    // Nothing was loose, so nothing is tightened or reported.
    assert_eq!(data.secure().unwrap(), []);
}

#[test]
fn an_existing_loose_data_directory_is_tightened_once_on_open() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("hive-mind");
    // What an older version left: the umask's 0755 folders, 0644 files.
    let data = DataDir::new(&dir);
    drop(write_in_wal(&data, "personal"));
    drop(write_in_wal(&data, "workspace/acme"));
    std::fs::create_dir(dir.join("server")).unwrap();
    std::fs::write(dir.join("server/serve.json"), "{}").unwrap();
    std::fs::write(dir.join("config.toml"), "").unwrap();
    let loose_dirs = [dir.clone(), dir.join("workspaces"), dir.join("server")];
    let loose_files = [
        dir.join("personal.sqlite"),
        dir.join("workspaces/acme.sqlite"),
        dir.join("server/serve.json"),
        dir.join("config.toml"),
    ];
    for path in &loose_dirs {
        set_mode(path, 0o755);
    }
    for path in &loose_files {
        set_mode(path, 0o644);
    }
    // A link in the directory is never followed: its target keeps its mode.
    let outside = parent.path().join("elsewhere.txt");
    std::fs::write(&outside, "x").unwrap();
    set_mode(&outside, 0o644);
    std::os::unix::fs::symlink(&outside, dir.join("link.txt")).unwrap();

    let tightened = data.secure().unwrap();
    let mut named: Vec<_> = tightened.iter().map(|t| t.path.clone()).collect();
    named.sort();
    let mut expected: Vec<_> = loose_dirs.iter().chain(&loose_files).cloned().collect();
    expected.sort();
    assert_eq!(named, expected);
    for change in &tightened {
        assert!(
            change.to == 0o700 || change.to == 0o600,
            "{change}: {:o}",
            change.to
        );
    }
    for path in &loose_dirs {
        assert_eq!(mode(path), 0o700, "{path:?}");
    }
    for path in &loose_files {
        assert_eq!(mode(path), 0o600, "{path:?}");
    }
    assert_eq!(mode(&outside), 0o644);
    // Said once: the next open finds nothing left to tighten.
    assert_eq!(data.secure().unwrap(), []);
}

#[test]
fn opening_a_loose_mind_tightens_it_and_its_journals() {
    let parent = tempfile::tempdir().unwrap();
    let data = DataDir::new(parent.path());
    let conn = write_in_wal(&data, "personal");
    let files = [
        "personal.sqlite",
        "personal.sqlite-wal",
        "personal.sqlite-shm",
    ]
    .map(|file| parent.path().join(file));
    for file in &files {
        set_mode(file, 0o644);
    }
    let _again = data.open("personal").unwrap();
    for file in &files {
        assert_eq!(mode(file), 0o600, "{file:?}");
    }
    drop(conn);
}
