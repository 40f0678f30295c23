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

:class:`DataDir` and :class:`SqliteConnection` are plain Python (errors are
:class:`SqliteError`, with the WIT case name); :class:`SqliteImports` puts
them behind the interface in a component linker: the ``connection``
resource is a host resource whose ``rep`` keys a table of open connections,
and errors become the WIT ``error`` variant.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from wasmtime import StoreContext
from wasmtime.component import LinkerInstance, ResourceAny, ResourceHost, ResourceType

from ._wit import Variant, record

#: The interface's name in the engine world.
INTERFACE = "hive:mind/sqlite@0.1.0"

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


class SqliteConnection:
    """One open connection; statements run in order, one at a time."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.name = name

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise SqliteError("invalid-connection")
        return self._conn

    def execute(self, statement: str, parameters: list[Value]) -> tuple[list[str], list[list[Value]]]:
        """Run one statement with its ``?NNN`` parameters bound in order;
        its column names and every row it produces."""
        conn = self._live()
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
        try:
            # Connection settings only: nothing here writes to the file.
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exception:
            conn.close()
            raise error_from(exception) from exception
        return SqliteConnection(conn, name)

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


def wit_error(error: SqliteError) -> Variant:
    """The WIT ``sqlite.error`` value of an error."""
    if error.case in SqliteError.CASES_WITH_MESSAGE:
        return Variant(error.case, error.message or "")
    return Variant(error.case)
