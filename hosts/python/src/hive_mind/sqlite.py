"""The SQLite capability (``hive:mind/sqlite``) over Python's ``sqlite3``.

The engine owns everything inside a database; this host owns only where
databases live and how they are opened, exactly as the Rust host does
(``host/sqlite/src/lib.rs``):

==================  ===================================================
database name       file under the data directory
==================  ===================================================
``personal``        ``personal.sqlite``
``workspace/<id>``  ``workspaces/<id>.sqlite``
==================  ===================================================

A workspace id is 1 to 64 of ``[A-Za-z0-9._-]``, not starting with a dot,
so no name reaches outside the data directory; any other name is refused
with ``access-denied``. ``open`` never creates a file (``no-such-database``);
``create`` does, with its folder.

Every connection gets a 5 s busy timeout and ``PRAGMA foreign_keys = ON``,
and runs in autocommit mode: the engine sends its own ``BEGIN``/``COMMIT``
(and asks for WAL itself, once it has checked a file is a mind). No
extension is loaded: the engine needs FTS5 and nothing else.

Each connection runs in the same sandbox as the Rust host's
(``host/sqlite/src/sandbox.rs``), as far as Python's ``sqlite3`` allows;
every refusal is ``access-denied``:

- ``SQLITE_LIMIT_ATTACHED`` = 0 and an authorizer that refuses ``ATTACH``
  (so ``VACUUM INTO``), ``DETACH`` and ``load_extension()``. A plain
  ``VACUUM`` (SQLite attaches an empty-name temporary database for it) and
  ``PRAGMA incremental_vacuum`` stay allowed.
- Setting ``trusted_schema``, ``writable_schema``, ``schema_version``,
  ``temp_store_directory`` or ``data_store_directory`` is refused, and so is
  lowering ``user_version``.
- The schema rule is approximated: Python's ``sqlite3`` has no commit hook,
  so the host cannot see whether a transaction raises ``user_version``
  before it commits. What the authorizer can see is whether a transaction
  is open: creating or dropping a schema object or altering a table is
  refused outside an explicit transaction (where nothing could raise the
  version with it), and allowed inside one.
- ``SQLITE_DBCONFIG_DEFENSIVE`` where ``Connection.setconfig`` exists
  (Python 3.12+); ``trusted_schema = OFF`` where this SQLite lets FTS5 be
  written from triggers under it (SQLite marks FTS5 innocuous only in
  newer versions; the engine's full-text index is kept by triggers).
- Python caches prepared statements by their text and does not authorize a
  cached one again, so a statement run a second time with the same text is
  not checked against a ``user_version`` that has risen since.

:class:`DataDir` and :class:`SqliteConnection` are plain Python (errors are
:class:`SqliteError`, with the WIT case name); :class:`SqliteImports` puts
them behind the interface in a component linker: the ``connection``
resource is a host resource whose ``rep`` keys a table of open connections,
and errors become the WIT ``error`` variant.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from pathlib import Path
from typing import Any

from wasmtime import StoreContext
from wasmtime.component import LinkerInstance, ResourceAny, ResourceHost, ResourceType

from ._wit import Variant, interface, record

#: The interface's name in the engine world.
INTERFACE = interface("sqlite")

#: The host resource type id of ``connection``.
CONNECTION_TYPE = 1

#: A parameter or column value: the WIT ``value`` variant, untagged.
Value = int | float | str | bytes | None

#: How long a statement waits for another connection's lock, in seconds.
BUSY_TIMEOUT = 5.0

#: Prepared statements kept per connection (as the Rust host).
STATEMENT_CACHE = 128

_WORKSPACE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_BINDINGS = re.compile(r"uses (\d+), and there are (\d+) supplied")

# SQLite primary result codes (sqlite3.h).
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_CONSTRAINT = 19
_SQLITE_NOTADB = 26


class SqliteError(Exception):
    """A failure as a case of the WIT ``sqlite.error`` variant.

    ``case`` is the WIT case name (``no-such-database``, ``access-denied``,
    ``invalid-connection``, ``database-full``, ``busy``, ``constraint``,
    ``corrupt``, ``io``); ``message`` is the payload of the three cases that
    carry one, else ``None``.
    """

    CASES_WITH_MESSAGE = ("constraint", "corrupt", "io")

    def __init__(self, case: str, message: str | None = None) -> None:
        super().__init__(case if message is None else f"{case}: {message}")
        self.case = case
        self.message = message if case in self.CASES_WITH_MESSAGE else None


def valid_workspace_id(workspace_id: str) -> bool:
    """Whether the host accepts a workspace id: 1 to 64 of ``[A-Za-z0-9._-]``,
    not starting with a dot."""
    return _WORKSPACE_ID.fullmatch(workspace_id) is not None and not workspace_id.startswith(".")


def error_from(exception: Exception) -> SqliteError:
    """The WIT error case for an exception raised by ``sqlite3``."""
    message = str(exception)
    code = getattr(exception, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    lowered = message.lower()
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or (
        primary is None and ("database is locked" in lowered or "busy" in lowered)
    ):
        return SqliteError("busy")
    if primary == _SQLITE_CONSTRAINT or isinstance(exception, sqlite3.IntegrityError):
        return SqliteError("constraint", message)
    if primary in (_SQLITE_NOTADB, _SQLITE_CORRUPT) or (
        primary is None and ("file is not a database" in lowered or "malformed" in lowered)
    ):
        return SqliteError("corrupt", message)
    if primary == _SQLITE_FULL or (primary is None and "database or disk is full" in lowered):
        return SqliteError("database-full")
    return SqliteError("io", message)


def _lossy_text(raw: bytes) -> str:
    # SQLite text that is not valid UTF-8 reads with replacement characters,
    # as the Rust host's `String::from_utf8_lossy`.
    return raw.decode("utf-8", errors="replace")


#: The pragmas a statement may read but never set.
_READ_ONLY_PRAGMAS = frozenset(
    {"trusted_schema", "writable_schema", "schema_version", "temp_store_directory", "data_store_directory"}
)

#: The authorizer actions that create or remove a schema object (only the
#: engine's migrations change a mind's schema).
_SCHEMA_CHANGES = frozenset(
    {
        sqlite3.SQLITE_CREATE_TABLE,
        sqlite3.SQLITE_CREATE_TEMP_TABLE,
        sqlite3.SQLITE_CREATE_INDEX,
        sqlite3.SQLITE_CREATE_TEMP_INDEX,
        sqlite3.SQLITE_CREATE_TRIGGER,
        sqlite3.SQLITE_CREATE_TEMP_TRIGGER,
        sqlite3.SQLITE_CREATE_VIEW,
        sqlite3.SQLITE_CREATE_TEMP_VIEW,
        sqlite3.SQLITE_CREATE_VTABLE,
        sqlite3.SQLITE_DROP_TABLE,
        sqlite3.SQLITE_DROP_TEMP_TABLE,
        sqlite3.SQLITE_DROP_INDEX,
        sqlite3.SQLITE_DROP_TEMP_INDEX,
        sqlite3.SQLITE_DROP_TRIGGER,
        sqlite3.SQLITE_DROP_TEMP_TRIGGER,
        sqlite3.SQLITE_DROP_VIEW,
        sqlite3.SQLITE_DROP_TEMP_VIEW,
        sqlite3.SQLITE_DROP_VTABLE,
    }
)

_PLAIN_VACUUM = re.compile(r"\s*VACUUM(\s+(?!INTO\b)\w+)?\s*;?\s*", re.IGNORECASE)


class Fts5MissingError(Exception):
    """This Python's SQLite was built without FTS5, which the engine's
    full-text search needs; ``version`` is its SQLite version."""

    def __init__(self, version: str) -> None:
        super().__init__(
            f"this Python's SQLite ({version}) was built without FTS5; the engine's full-text search "
            "needs it (use a Python whose sqlite3 module has it, as python.org's and most "
            "distributions' builds do)"
        )
        self.version = version


def require_fts5(connect: Any = sqlite3.connect) -> None:
    """Raise :class:`Fts5MissingError` unless the SQLite ``connect`` opens
    (this Python's) can create an FTS5 table."""
    probe = connect(":memory:")
    try:
        version = probe.execute("SELECT sqlite_version()").fetchone()[0]
        try:
            probe.execute("CREATE VIRTUAL TABLE f USING fts5(x)")
        except sqlite3.Error:
            raise Fts5MissingError(str(version)) from None
    finally:
        probe.close()


@functools.cache
def fts5_works_untrusted() -> bool:
    """Whether this SQLite lets a trigger write to an FTS5 table under
    ``trusted_schema = OFF`` (FTS5 is marked innocuous in newer SQLite)."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.executescript(
            "PRAGMA trusted_schema = OFF;"
            "CREATE TABLE t (x); CREATE VIRTUAL TABLE f USING fts5(x);"
            "CREATE TRIGGER t_f AFTER INSERT ON t BEGIN INSERT INTO f (x) VALUES (new.x); END;"
            "INSERT INTO t VALUES ('a');"
        )
        return True
    except sqlite3.Error:
        return False
    finally:
        probe.close()


class _Sandbox:
    """The authorizer of one connection and what it needs to know."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        #: ``user_version`` as last read from the file (``None``: not yet).
        self.version: int | None = None
        #: Whether the current statement is a plain ``VACUUM``.
        self.vacuum_running = False
        #: Whether a statement set ``user_version`` since it was last read
        #: (it is read again once no transaction is open).
        self.version_set = False
        #: Why the current statement was refused.
        self.refusal: str | None = None

    def _refuse(self, reason: str) -> int:
        self.refusal = reason
        return sqlite3.SQLITE_DENY

    def authorize(
        self, action: int, arg1: str | None, arg2: str | None, database: str | None, _source: str | None
    ) -> int:
        if action == sqlite3.SQLITE_ATTACH:
            if self.vacuum_running and arg1 == "":
                return sqlite3.SQLITE_OK
            return self._refuse(
                f"ATTACH is not allowed (file {arg1!r}); VACUUM INTO is refused for the same reason"
            )
        if action == sqlite3.SQLITE_DETACH:
            return self._refuse("DETACH is not allowed")
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() == "load_extension":
            return self._refuse("load_extension() is not allowed")
        if action == sqlite3.SQLITE_PRAGMA and arg2 is not None:
            return self._authorize_pragma_setting((arg1 or "").lower(), arg2)
        # For RENAME COLUMN and DROP COLUMN, SQLite passes the column where
        # the database name goes: ALTER is judged before the database.
        change = action == sqlite3.SQLITE_ALTER_TABLE or (
            action in _SCHEMA_CHANGES and database in (None, "main", "temp")
        )
        if change and not self._conn.in_transaction:
            return self._refuse(
                "creating or dropping a schema object or altering a table needs a"
                " transaction that raises PRAGMA user_version"
            )
        return sqlite3.SQLITE_OK

    def _authorize_pragma_setting(self, name: str, value: str) -> int:
        if name in _READ_ONLY_PRAGMAS:
            return self._refuse(f"setting PRAGMA {name} is not allowed")
        if name != "user_version":
            return sqlite3.SQLITE_OK
        try:
            asked = int(value.strip())
        except ValueError:
            return self._refuse(f"PRAGMA user_version takes an integer, not {value!r}")
        if self.version is not None and asked < self.version:
            return self._refuse(f"PRAGMA user_version may not go down (from {self.version} to {asked})")
        self.version_set = True
        return sqlite3.SQLITE_OK


class SqliteConnection:
    """One open connection; statements run in order, one at a time."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.name = name
        self._sandbox = _Sandbox(conn)
        conn.set_authorizer(self._sandbox.authorize)

    @property
    def last_refusal(self) -> str | None:
        """Why the sandbox refused the last statement, if it did."""
        return self._sandbox.refusal

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise SqliteError("invalid-connection")
        return self._conn

    def execute(self, statement: str, parameters: list[Value]) -> tuple[list[str], list[list[Value]]]:
        """Run one statement with its ``?NNN`` parameters bound in order;
        its column names and every row it produces."""
        conn = self._live()
        sandbox = self._sandbox
        if sandbox.version is None:
            sandbox.version = self._scalar("PRAGMA user_version")
        sandbox.refusal = None
        sandbox.vacuum_running = _PLAIN_VACUUM.fullmatch(statement) is not None
        if sandbox.vacuum_running and hasattr(conn, "setlimit"):
            conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 1)
        try:
            return self._run(conn, statement, parameters)
        except SqliteError:
            if sandbox.refusal is not None:
                raise SqliteError("access-denied") from None
            raise
        finally:
            if sandbox.vacuum_running and hasattr(conn, "setlimit"):
                sandbox.vacuum_running = False
                conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
            if sandbox.version_set and not conn.in_transaction:
                sandbox.version_set = False
                sandbox.version = self._scalar("PRAGMA user_version")

    def _run(
        self, conn: sqlite3.Connection, statement: str, parameters: list[Value]
    ) -> tuple[list[str], list[list[Value]]]:
        try:
            cursor = conn.execute(statement, parameters)
        except sqlite3.ProgrammingError as exception:
            counts = _BINDINGS.search(str(exception))
            if counts is None:
                raise error_from(exception) from exception
            raise SqliteError(
                "io",
                f"the statement takes {counts.group(1)} parameter(s), {counts.group(2)} given: {statement}",
            ) from exception
        except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError) as exception:
            # Python 3.10 reports a second statement as sqlite3.Warning.
            raise error_from(exception) from exception
        try:
            columns = [column[0] for column in cursor.description or ()]
            rows = [list(row) for row in cursor.fetchall()]
        except sqlite3.Error as exception:
            raise error_from(exception) from exception
        finally:
            cursor.close()
        return columns, rows

    def _scalar(self, query: str) -> int:
        try:
            (value,) = self._live().execute(query).fetchone()
        except sqlite3.Error as exception:
            raise error_from(exception) from exception
        return int(value)

    def last_insert_rowid(self) -> int:
        """The rowid of the most recent successful INSERT on this connection."""
        return self._scalar("SELECT last_insert_rowid()")

    def changes(self) -> int:
        """The rows changed by the most recent INSERT, UPDATE or DELETE."""
        return self._scalar("SELECT changes()")

    def close(self) -> None:
        """Close the connection (idempotent); later calls are
        ``invalid-connection``."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class DataDir:
    """The databases of one data directory (created on the first ``create``)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def path_of(self, name: str) -> Path:
        """The file a database name maps to; ``access-denied`` for any other
        name."""
        if name == "personal":
            return self.directory / "personal.sqlite"
        prefix = "workspace/"
        if name.startswith(prefix) and valid_workspace_id(name[len(prefix) :]):
            return self.directory / "workspaces" / f"{name[len(prefix) :]}.sqlite"
        raise SqliteError("access-denied")

    def open(self, name: str) -> SqliteConnection:
        """Open an existing database (``no-such-database`` when missing)."""
        return self._connect(name, create=False)

    def create(self, name: str) -> SqliteConnection:
        """Open a database, creating it (and its folder) when missing."""
        return self._connect(name, create=True)

    def _connect(self, name: str, create: bool) -> SqliteConnection:
        path = self.path_of(name)
        if not path.exists():
            if not create:
                raise SqliteError("no-such-database")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exception:
                raise SqliteError("io", f"{path.parent}: {exception}") from exception
        uri = f"{path.absolute().as_uri()}?mode={'rwc' if create else 'rw'}"
        try:
            conn = sqlite3.connect(
                uri,
                uri=True,
                timeout=BUSY_TIMEOUT,
                isolation_level=None,
                check_same_thread=False,
                cached_statements=STATEMENT_CACHE,
            )
        except sqlite3.Error as exception:
            raise error_from(exception) from exception
        conn.text_factory = _lossy_text
        if hasattr(conn, "setlimit"):  # Python 3.11+
            conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        if hasattr(conn, "setconfig"):
            conn.setconfig(sqlite3.SQLITE_DBCONFIG_DEFENSIVE, True)
        try:
            # Connection settings only: nothing here writes to the file.
            conn.execute("PRAGMA foreign_keys = ON")
            if fts5_works_untrusted():
                conn.execute("PRAGMA trusted_schema = OFF")
        except sqlite3.Error as exception:
            conn.close()
            raise error_from(exception) from exception
        return SqliteConnection(conn, name)

    def remove(self, name: str) -> None:
        """Delete workspace database ``name`` and its journal files, as the
        Rust host does: ``personal`` is never deleted (``access-denied``), a
        missing one is ``no-such-database``."""
        if name == "personal":
            raise SqliteError("access-denied")
        path = self.path_of(name)
        if not path.exists():
            raise SqliteError("no-such-database")
        try:
            path.unlink()
            for suffix in ("-wal", "-shm", "-journal"):
                path.with_name(path.name + suffix).unlink(missing_ok=True)
        except OSError as exception:
            raise SqliteError("io", f"{path}: {exception}") from exception

    def databases(self) -> list[str]:
        """The databases that exist: ``personal`` first, then the workspaces
        sorted by name."""
        names = ["personal"] if (self.directory / "personal.sqlite").exists() else []
        folder = self.directory / "workspaces"
        try:
            entries = list(folder.iterdir())
        except FileNotFoundError:
            return names
        except OSError as exception:
            raise SqliteError("io", f"{folder}: {exception}") from exception
        ids = [
            entry.name[: -len(".sqlite")]
            for entry in entries
            if entry.name.endswith(".sqlite") and valid_workspace_id(entry.name[: -len(".sqlite")])
        ]
        return names + sorted(f"workspace/{workspace_id}" for workspace_id in ids)


class SqliteImports:
    """The ``hive:mind/sqlite`` import over one data directory.

    Open connections live in a table keyed by their resource ``rep``; the
    guest's drop of a ``connection`` closes it, and :meth:`close` closes
    whatever the guest left open.
    """

    def __init__(self, data_dir: DataDir) -> None:
        self.data_dir = data_dir
        self._connections: dict[int, SqliteConnection] = {}
        self._next_rep = 1

    def add_to(self, root: LinkerInstance) -> None:
        """Define the interface, its resource and functions, in ``root``."""
        with root.add_instance(INTERFACE) as sqlite:
            sqlite.add_resource("connection", ResourceType.host(CONNECTION_TYPE), self._drop)
            sqlite.add_func("[static]connection.open", self._open)
            sqlite.add_func("[static]connection.create", self._create)
            sqlite.add_func("[method]connection.execute", self._execute)
            sqlite.add_func("[method]connection.last-insert-rowid", self._last_insert_rowid)
            sqlite.add_func("[method]connection.changes", self._changes)
            sqlite.add_func("databases", self._databases)
            sqlite.add_func("remove-database", self._remove_database)

    def close(self) -> None:
        """Close every connection still open."""
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()

    @property
    def open_connections(self) -> int:
        """How many connections the guest holds."""
        return len(self._connections)

    def _own(self, conn: SqliteConnection) -> ResourceHost:
        rep = self._next_rep
        self._next_rep += 1
        self._connections[rep] = conn
        return ResourceHost.own(rep, CONNECTION_TYPE)

    def _connection(self, store: StoreContext, handle: ResourceAny) -> SqliteConnection:
        host = handle.to_host(store)
        conn = self._connections.get(host.rep) if host.type == CONNECTION_TYPE else None
        if conn is None:
            raise SqliteError("invalid-connection")
        return conn

    def _drop(self, _store: StoreContext, rep: int) -> None:
        conn = self._connections.pop(rep, None)
        if conn is not None:
            conn.close()

    def _open(self, _store: StoreContext, database: str) -> Any:
        try:
            return self._own(self.data_dir.open(database))
        except SqliteError as error:
            return wit_error(error)

    def _create(self, _store: StoreContext, database: str) -> Any:
        try:
            return self._own(self.data_dir.create(database))
        except SqliteError as error:
            return wit_error(error)

    def _execute(
        self, store: StoreContext, handle: ResourceAny, statement: str, parameters: list[Value]
    ) -> Any:
        try:
            columns, rows = self._connection(store, handle).execute(statement, parameters)
        except SqliteError as error:
            return wit_error(error)
        return record(columns=columns, rows=[record(values=row) for row in rows])

    def _last_insert_rowid(self, store: StoreContext, handle: ResourceAny) -> int:
        return self._connection(store, handle).last_insert_rowid()

    def _changes(self, store: StoreContext, handle: ResourceAny) -> int:
        return self._connection(store, handle).changes()

    def _databases(self, _store: StoreContext) -> Any:
        try:
            return self.data_dir.databases()
        except SqliteError as error:
            return wit_error(error)

    def _remove_database(self, _store: StoreContext, database: str) -> Any:
        try:
            self.data_dir.remove(database)
        except SqliteError as error:
            return wit_error(error)
        return None


def wit_error(error: SqliteError) -> Variant:
    """The WIT ``sqlite.error`` value of an error."""
    if error.case in SqliteError.CASES_WITH_MESSAGE:
        return Variant(error.case, error.message or "")
    return Variant(error.case)
