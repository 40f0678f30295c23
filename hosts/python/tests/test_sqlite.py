"""The SQLite capability behaves as the Rust host's (host/sqlite/src/lib.rs)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hive_mind import sqlite as capability
from hive_mind.sqlite import DataDir, SqliteError


def make_schema(conn, *statements: str) -> None:
    """Change the schema the one way the sandbox allows: in a transaction
    that raises ``user_version`` (an engine migration step)."""
    version = conn.execute("PRAGMA user_version", [])[1][0][0]
    conn.execute("BEGIN", [])
    for statement in statements:
        conn.execute(statement, [])
    conn.execute(f"PRAGMA user_version = {version + 1}", [])
    conn.execute("COMMIT", [])


def case_of(call, *args) -> tuple[str, str | None]:
    with pytest.raises(SqliteError) as raised:
        call(*args)
    return raised.value.case, raised.value.message


def test_names_map_inside_the_directory_or_are_refused() -> None:
    data = DataDir("/data")
    assert data.path_of("personal") == Path("/data/personal.sqlite")
    assert data.path_of("workspace/acme-1.x") == Path("/data/workspaces/acme-1.x.sqlite")
    assert data.path_of("workspace/" + "a" * 64) == Path("/data/workspaces/" + "a" * 64 + ".sqlite")
    for bad in [
        "workspace/../etc",
        "workspace/.hidden",
        "workspace/",
        "workspace/a/b",
        "workspace/" + "a" * 65,
        "workspace/café",
        "workspace/a b",
        "workspace/a\n",
        "../personal",
        "/abs",
        "Personal",
        "personal.sqlite",
        "workspace/x\0y",
    ]:
        assert case_of(data.path_of, bad) == ("access-denied", None), bad


def test_open_never_creates_and_create_does(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    assert case_of(data.open, "workspace/acme") == ("no-such-database", None)
    assert case_of(data.open, "personal") == ("no-such-database", None)
    assert data.databases() == []
    assert not (tmp_path / "data").exists()
    make_schema(data.create("workspace/zeta"), "CREATE TABLE t (x)")
    data.create("workspace/acme")
    data.create("personal")
    assert (tmp_path / "data" / "workspaces" / "acme.sqlite").is_file()
    (tmp_path / "data" / "workspaces" / ".hidden.sqlite").write_bytes(b"")
    (tmp_path / "data" / "workspaces" / "notes.txt").write_bytes(b"")
    assert data.databases() == ["personal", "workspace/acme", "workspace/zeta"]
    assert data.open("workspace/zeta").execute("SELECT count(*) AS n FROM t", []) == (["n"], [[0]])


def test_connection_settings(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    assert conn.execute("PRAGMA foreign_keys", []) == (["foreign_keys"], [[1]])
    assert conn.execute("PRAGMA busy_timeout", []) == (["timeout"], [[5000]])
    # Autocommit: what one connection writes outside BEGIN is at once
    # visible to another; the engine's own transactions work.
    make_schema(conn, "CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)", [])
    other = DataDir(tmp_path).open("personal")
    assert other.execute("SELECT x FROM t", [])[1] == [[1]]
    conn.execute("BEGIN", [])
    conn.execute("INSERT INTO t VALUES (2)", [])
    conn.execute("ROLLBACK", [])
    conn.execute("BEGIN IMMEDIATE", [])
    conn.execute("INSERT INTO t VALUES (3)", [])
    conn.execute("COMMIT", [])
    assert other.execute("SELECT x FROM t ORDER BY x", [])[1] == [[1], [3]]
    assert conn.execute("PRAGMA journal_mode = WAL", []) == (["journal_mode"], [["wal"]])


def test_values_round_trip_and_errors_are_typed(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    make_schema(conn, "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b UNIQUE, CHECK (a IS NOT 'bad'))")
    assert conn.execute("INSERT INTO t (a, b) VALUES (?1, ?2)", [-3, "é ✓"]) == ([], [])
    assert conn.last_insert_rowid() == 1
    assert conn.changes() == 1
    conn.execute("INSERT INTO t (a, b) VALUES (?1, ?2)", [bytes([0, 255]), 0.5])
    conn.execute("INSERT INTO t (a, b) VALUES (NULL, NULL)", [])
    conn.execute("INSERT INTO t (a, b) VALUES (?1, ?2)", [2**63 - 1, -(2**63)])
    conn.execute("INSERT INTO t (a, b) VALUES (?1, ?2)", [b"", ""])
    assert conn.execute("SELECT a, b FROM t ORDER BY id", []) == (
        ["a", "b"],
        [[-3, "é ✓"], [bytes([0, 255]), 0.5], [None, None], [2**63 - 1, -(2**63)], [b"", ""]],
    )
    case, message = case_of(conn.execute, "INSERT INTO t (a) VALUES ('bad')", [])
    assert case == "constraint" and "CHECK constraint failed" in (message or "")
    case, message = case_of(conn.execute, "INSERT INTO t (b) VALUES (?1)", ["é ✓"])
    assert case == "constraint" and "UNIQUE" in (message or "")
    case, message = case_of(conn.execute, "SELEC 1", [])
    assert case == "io" and "syntax" in (message or "")
    case, message = case_of(conn.execute, "SELECT ?1", [])
    assert case == "io" and "takes 1 parameter(s), 0 given" in (message or "")
    case, message = case_of(conn.execute, "SELECT ?1", [1, 2])
    assert case == "io" and "takes 1 parameter(s), 2 given" in (message or "")
    case, message = case_of(conn.execute, "SELECT * FROM missing", [])
    assert case == "io" and "no such table" in (message or "")


def test_numbered_parameters_bind_by_number(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    assert conn.execute("SELECT ?2 AS two, ?1 AS one, ?2 AS again", ["a", "b"]) == (
        ["two", "one", "again"],
        [["b", "a", "b"]],
    )


def test_foreign_keys_and_trigger_aborts_are_constraints(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    make_schema(conn, "CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    make_schema(conn, "CREATE TABLE child (parent INTEGER NOT NULL REFERENCES parent(id))")
    case, message = case_of(conn.execute, "INSERT INTO child VALUES (7)", [])
    assert case == "constraint" and "FOREIGN KEY" in (message or "")
    case, message = case_of(conn.execute, "INSERT INTO child VALUES (NULL)", [])
    assert case == "constraint" and "NOT NULL" in (message or "")
    make_schema(
        conn,
        "CREATE TRIGGER no_delete BEFORE DELETE ON parent\n"
        "BEGIN SELECT RAISE(ABORT, 'parent is append-only'); END",
    )
    conn.execute("INSERT INTO parent VALUES (1)", [])
    assert case_of(conn.execute, "DELETE FROM parent", []) == ("constraint", "parent is append-only")


def test_a_trigger_with_several_statements_is_one_statement(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    make_schema(conn, "CREATE TABLE t (x)")
    make_schema(conn, "CREATE TABLE log (x, note)")
    make_schema(
        conn,
        """CREATE TRIGGER t_log AFTER INSERT ON t BEGIN
            INSERT INTO log VALUES (new.x, 'one; with a semicolon');
            INSERT INTO log VALUES (new.x * 10, 'two');
        END""",
    )
    conn.execute("INSERT INTO t VALUES (?1)", [4])
    assert conn.execute("SELECT x, note FROM log ORDER BY x", [])[1] == [
        [4, "one; with a semicolon"],
        [40, "two"],
    ]
    case, message = case_of(conn.execute, "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)", [])
    assert case == "io" and "one statement" in (message or "")


def test_fts5_is_available(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    make_schema(conn, "CREATE VIRTUAL TABLE f USING fts5(content, tokenize = 'porter unicode61')")
    for text in ["the ledger runs on Postgres", "Sam prefers short answers", "ledgers and journals"]:
        conn.execute("INSERT INTO f (content) VALUES (?1)", [text])
    columns, rows = conn.execute("SELECT rowid, bm25(f) FROM f WHERE f MATCH ?1 ORDER BY bm25(f)", ["ledger"])
    assert columns == ["rowid", "bm25(f)"]
    assert sorted(row[0] for row in rows) == [1, 3]
    assert all(isinstance(row[1], float) for row in rows)


def test_changes_and_last_insert_rowid_follow_sqlite(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    make_schema(conn, "CREATE TABLE t (id INTEGER PRIMARY KEY, x UNIQUE)")
    for x in range(5):
        conn.execute("INSERT INTO t (x) VALUES (?1)", [x])
    assert (conn.last_insert_rowid(), conn.changes()) == (5, 1)
    conn.execute("UPDATE t SET x = x + 10 WHERE x < 3", [])
    assert conn.changes() == 3
    conn.execute("SELECT * FROM t", [])
    assert conn.changes() == 3, "a SELECT leaves changes() as it was"
    case_of(conn.execute, "INSERT INTO t (x) VALUES (10)", [])
    assert conn.last_insert_rowid() == 5, "a failed INSERT leaves the rowid"
    conn.execute("DELETE FROM t WHERE x >= 10", [])
    assert conn.changes() == 3
    conn.execute("INSERT INTO t (id, x) VALUES (100, 'a') RETURNING id", [])
    assert (conn.last_insert_rowid(), conn.changes()) == (100, 1)


def test_returning_gives_rows(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    make_schema(conn, "CREATE TABLE t (id INTEGER PRIMARY KEY, x)")
    assert conn.execute("INSERT INTO t (x) VALUES (?1), (?2) RETURNING id, x", ["a", "b"]) == (
        ["id", "x"],
        [[1, "a"], [2, "b"]],
    )
    assert conn.execute("SELECT x FROM t WHERE 0", []) == (["x"], [])


def test_text_that_is_not_utf8_reads_lossily(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    assert conn.execute("SELECT CAST(X'61FF62' AS TEXT)", [])[1] == [["a\ufffdb"]]


def test_a_foreign_file_is_corrupt_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "personal.sqlite").write_bytes(b"not a database at all, really")

    def open_and_read() -> None:
        DataDir(tmp_path).open("personal").execute("PRAGMA user_version", [])

    case, message = case_of(open_and_read)
    assert case == "corrupt" and "not a database" in (message or "")


def test_a_held_lock_is_busy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capability, "BUSY_TIMEOUT", 0.05)
    data = DataDir(tmp_path)
    holder = data.create("personal")
    make_schema(holder, "CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE", [])
    holder.execute("INSERT INTO t VALUES (1)", [])
    waiter = data.open("personal")
    assert case_of(waiter.execute, "INSERT INTO t VALUES (2)", []) == ("busy", None)
    holder.execute("COMMIT", [])
    waiter.execute("INSERT INTO t VALUES (2)", [])


def test_a_closed_connection_is_invalid(tmp_path: Path) -> None:
    conn = DataDir(tmp_path).create("personal")
    conn.close()
    conn.close()
    assert case_of(conn.execute, "SELECT 1", []) == ("invalid-connection", None)
    assert case_of(conn.changes) == ("invalid-connection", None)


def test_error_mapping_by_message_without_error_codes() -> None:
    # Python 3.10's sqlite3 exceptions carry no error code: the message decides.
    assert capability.error_from(sqlite3.OperationalError("database is locked")).case == "busy"
    assert capability.error_from(sqlite3.DatabaseError("file is not a database")).case == "corrupt"
    assert capability.error_from(sqlite3.DatabaseError("database disk image is malformed")).case == "corrupt"
    assert capability.error_from(sqlite3.OperationalError("database or disk is full")).case == "database-full"
    assert capability.error_from(sqlite3.IntegrityError("UNIQUE constraint failed: t.x")).case == "constraint"
    assert capability.error_from(sqlite3.OperationalError("no such table: x")).case == "io"
