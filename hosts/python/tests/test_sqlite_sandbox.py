"""The sandbox of every connection, as the Rust host's
(host/sqlite/tests/sandbox.rs), within what Python's sqlite3 allows."""

from __future__ import annotations

from pathlib import Path

import pytest

from hive_mind.sqlite import DataDir, SqliteConnection, SqliteError, fts5_works_untrusted


def mind(directory: Path) -> SqliteConnection:
    """A small mind at version 1, migrated the way the engine does."""
    conn = DataDir(directory).create("personal")
    for statement in [
        "BEGIN IMMEDIATE",
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
        "CREATE INDEX notes_body ON notes(body)",
        "CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT NOT NULL)",
        "CREATE TRIGGER audit_append_only BEFORE DELETE ON audit"
        " BEGIN SELECT RAISE(ABORT, 'append-only'); END",
        "INSERT INTO notes (body) VALUES ('first')",
        "INSERT INTO audit (what) VALUES ('created')",
        "PRAGMA user_version = 1",
        "COMMIT",
    ]:
        conn.execute(statement, [])
    return conn


def snapshot(conn: SqliteConnection, directory: Path) -> tuple:
    return (
        conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name", [])[1],
        conn.execute("PRAGMA user_version", [])[1],
        conn.execute("SELECT * FROM notes ORDER BY id", [])[1],
        conn.execute("SELECT * FROM audit ORDER BY id", [])[1],
        sorted(str(path) for path in directory.rglob("*")),
    )


def assert_refused(conn: SqliteConnection, directory: Path, statement: str, reason: str) -> None:
    before = snapshot(conn, directory)
    with pytest.raises(SqliteError) as raised:
        conn.execute(statement, [])
    assert raised.value.case == "access-denied", statement
    assert reason in (conn.last_refusal or ""), (statement, conn.last_refusal)
    assert snapshot(conn, directory) == before, statement


def test_attach_detach_vacuum_into_and_extensions_are_refused(tmp_path: Path) -> None:
    conn = mind(tmp_path)
    for statement in [
        f"ATTACH '{tmp_path / 'other.sqlite'}' AS other",
        "ATTACH '' AS scratch",
        f"VACUUM INTO '{tmp_path / 'copy.sqlite'}'",
    ]:
        assert_refused(conn, tmp_path, statement, "ATTACH is not allowed")
    assert_refused(conn, tmp_path, "DETACH other", "DETACH is not allowed")
    assert_refused(conn, tmp_path, "SELECT load_extension('/no/such.so')", "load_extension")
    assert not (tmp_path / "other.sqlite").exists() and not (tmp_path / "copy.sqlite").exists()


def test_plain_vacuum_and_incremental_vacuum_stay_allowed(tmp_path: Path) -> None:
    conn = mind(tmp_path)
    for _ in range(30):
        conn.execute("INSERT INTO notes (body) VALUES (?1)", ["x" * 4000])
    conn.execute("DELETE FROM notes WHERE length(body) > 100", [])
    assert conn.execute("PRAGMA freelist_count", [])[1][0][0] > 0
    conn.execute("PRAGMA incremental_vacuum", [])
    conn.execute("VACUUM", [])
    assert conn.execute("PRAGMA freelist_count", [])[1] == [[0]]
    assert_refused(conn, tmp_path, "ATTACH '' AS scratch", "ATTACH is not allowed")


def test_sandbox_pragmas_and_a_lower_user_version_are_refused(tmp_path: Path) -> None:
    conn = mind(tmp_path)
    for pragma in ["trusted_schema = ON", "writable_schema = ON", "schema_version = 9"]:
        assert_refused(conn, tmp_path, f"PRAGMA {pragma}", "setting PRAGMA")
    assert_refused(conn, tmp_path, "PRAGMA user_version = 0", "may not go down (from 1 to 0)")
    conn.execute("PRAGMA user_version = 3", [])
    assert_refused(conn, tmp_path, "PRAGMA user_version = 2", "from 3 to 2")
    expected = 0 if fts5_works_untrusted() else 1
    assert conn.execute("PRAGMA trusted_schema", [])[1] == [[expected]]


def test_schema_changes_outside_a_transaction_are_refused(tmp_path: Path) -> None:
    conn = mind(tmp_path)
    for statement in [
        "DROP TRIGGER audit_append_only",
        "DROP TABLE audit",
        "DROP INDEX notes_body",
        "ALTER TABLE notes ADD COLUMN extra TEXT",
        "ALTER TABLE audit RENAME COLUMN what TO why",
        "CREATE TABLE extra (x)",
        "CREATE INDEX notes_by_id ON notes(id, body)",
        "CREATE TEMP TRIGGER notes_spy AFTER INSERT ON main.notes BEGIN DELETE FROM main.notes; END",
    ]:
        assert_refused(conn, tmp_path, statement, "needs a transaction")
    with pytest.raises(SqliteError):
        conn.execute("DELETE FROM audit", [])
    # A migration may create, drop and alter.
    for statement in [
        "BEGIN IMMEDIATE",
        "DROP TRIGGER audit_append_only",
        "ALTER TABLE notes ADD COLUMN context TEXT",
        "CREATE TABLE extra (x)",
        "PRAGMA user_version = 2",
        "COMMIT",
    ]:
        conn.execute(statement, [])
    assert conn.execute("PRAGMA user_version", [])[1] == [[2]]
    conn.execute("DELETE FROM audit", [])


def test_fts5_triggers_still_work(tmp_path: Path) -> None:
    conn = mind(tmp_path)
    for statement in [
        "BEGIN IMMEDIATE",
        "CREATE VIRTUAL TABLE notes_fts USING fts5(body)",
        "CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN "
        "INSERT INTO notes_fts (rowid, body) VALUES (new.id, new.body); END",
        "PRAGMA user_version = 2",
        "COMMIT",
    ]:
        conn.execute(statement, [])
    conn.execute("INSERT INTO notes (body) VALUES ('green tea')", [])
    assert conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'green'", [])[1] == [[2]]
