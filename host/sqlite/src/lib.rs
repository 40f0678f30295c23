//! The native SQLite capability: named databases under a data directory.
//!
//! This is the host half of the WIT `hive:mind/sqlite` interface, and nothing
//! more: it maps a database *name* to a file, opens it with the host's
//! connection settings, and runs the statements the engine sends. It knows
//! nothing of frames, schemas or searches — the engine owns every table.
//!
//! Its values, rows and error cases are `hive-mind-sql`'s, the types the
//! engine's store speaks, so a [`DataDir`] is the store's [`Databases`] and
//! a [`SqliteConnection`] its [`Database`] as they stand: the store's native
//! tests open minds through them, and the runtime's `sqlite` import only
//! translates to and from the WIT bindings.
//!
//! # Names and files
//!
//! | name | file under the data directory |
//! |---|---|
//! | `personal` | `personal.sqlite` |
//! | `workspace/<id>` | `workspaces/<id>.sqlite` |
//!
//! A workspace id is 1 to 64 of `[A-Za-z0-9._-]`, not starting with a dot,
//! so no name can reach outside the data directory; every other name is
//! [`SqlError::AccessDenied`]. `open` never creates a file
//! ([`SqlError::NoSuchDatabase`]); `create` does, with its folder.
//!
//! # Permissions
//!
//! On Unix the data directory and its folders are `0700`, the minds and
//! their journals `0600`: made so at creation whatever the umask, and
//! tightened when found looser, by [`DataDir::secure`] when an engine
//! opens the directory and by every connection for its own mind (the
//! [`private`] module says how, and what is said on stderr).
//!
//! # Connections
//!
//! Each connection gets a 5 s busy timeout and foreign keys on; statements
//! are prepared once and cached per connection. The engine asks for WAL
//! itself (`PRAGMA journal_mode = WAL`) after it has checked that a file is
//! a mind, so a foreign SQLite file is never rewritten. Every connection
//! runs in the [`sandbox`]: no attached databases, no extensions, defensive
//! mode, `trusted_schema = OFF`, and no schema object removed outside a
//! transaction that raises `user_version`; a refused statement or commit is
//! [`SqlError::AccessDenied`] ([`SqliteConnection::last_refusal`] says
//! why).
//!
//! # sqlite-vec
//!
//! Minds written before the engine owned its vectors (schema v3) keep them
//! in sqlite-vec `vec0` tables, which the engine's v4 migration reads once.
//! So a connection whose file declares a `vec0` virtual table (read from
//! `sqlite_master` before its first statement) gets sqlite-vec registered on
//! it, and no other connection does: a fresh mind cannot create a `vec0`
//! table (`no such module: vec0`). The benchmark's reference query asks for
//! it explicitly ([`SqliteConnection::load_sqlite_vec`]).

pub mod private;
pub mod sandbox;

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use hive_mind_sql::{Database, Databases, QueryResult, SqlError, Value};
use rusqlite::types::{Value as RusqliteValue, ValueRef};
use rusqlite::{CachedStatement, Connection, OpenFlags, ffi};

pub use sandbox::Refusal;
use sandbox::{Sandbox, StatementGuard};

/// How long a statement waits for another connection's lock.
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(5_000);

/// How many prepared statements each connection keeps.
const STATEMENT_CACHE: usize = 128;

/// SQLite's error as the capability's case (the WIT `sqlite.error`).
///
/// Public for tests that serve the store over plain rusqlite connections.
pub fn sql_error(error: rusqlite::Error) -> SqlError {
    use rusqlite::ErrorCode;
    let message = error.to_string();
    if error
        .sqlite_error()
        .is_some_and(|error| error.extended_code == sandbox::COMMIT_REFUSED)
    {
        return SqlError::AccessDenied;
    }
    match error.sqlite_error_code() {
        Some(ErrorCode::AuthorizationForStatementDenied) => SqlError::AccessDenied,
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => SqlError::Busy,
        Some(ErrorCode::ConstraintViolation) => SqlError::Constraint(message),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => SqlError::Corrupt(message),
        Some(ErrorCode::DiskFull) => SqlError::DatabaseFull,
        Some(ErrorCode::CannotOpen) => SqlError::Io(message),
        _ => SqlError::Io(message),
    }
}

/// A parameter as rusqlite binds it.
///
/// Public, with [`value_of`], for tests that serve the store over plain
/// rusqlite connections.
pub fn rusqlite_value(value: &Value) -> RusqliteValue {
    match value {
        Value::Integer(n) => RusqliteValue::Integer(*n),
        Value::Real(x) => RusqliteValue::Real(*x),
        Value::Text(text) => RusqliteValue::Text(text.clone()),
        Value::Blob(bytes) => RusqliteValue::Blob(bytes.clone()),
        Value::Null => RusqliteValue::Null,
    }
}

/// A column as the capability hands it back (text that is not UTF-8 is
/// read lossily).
pub fn value_of(column: ValueRef<'_>) -> Value {
    match column {
        ValueRef::Integer(n) => Value::Integer(n),
        ValueRef::Real(x) => Value::Real(x),
        ValueRef::Text(bytes) => Value::Text(String::from_utf8_lossy(bytes).into()),
        ValueRef::Blob(bytes) => Value::Blob(bytes.to_vec()),
        ValueRef::Null => Value::Null,
    }
}

/// The databases of one data directory.
#[derive(Debug, Clone)]
pub struct DataDir {
    dir: PathBuf,
}

impl DataDir {
    /// The data directory `dir` (created on the first `create`).
    pub fn new(dir: impl Into<PathBuf>) -> DataDir {
        DataDir { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Create the directory (owner-only) if it is missing, and tighten
    /// whatever in it other local users could read, saying so once on
    /// stderr (see [`private`]); what was tightened.
    pub fn secure(&self) -> std::io::Result<Vec<private::Tightened>> {
        let tightened = private::secure_data_dir(&self.dir)?;
        private::report(&tightened);
        Ok(tightened)
    }

    /// The file a database name maps to, or `AccessDenied`.
    pub fn path_of(&self, name: &str) -> Result<PathBuf, SqlError> {
        if name == "personal" {
            return Ok(self.dir.join("personal.sqlite"));
        }
        match name.strip_prefix("workspace/") {
            Some(id) if valid_workspace_id(id) => {
                Ok(self.dir.join("workspaces").join(format!("{id}.sqlite")))
            }
            _ => Err(SqlError::AccessDenied),
        }
    }

    /// Open an existing database.
    pub fn open(&self, name: &str) -> Result<SqliteConnection, SqlError> {
        self.connect(name, false)
    }

    /// Open a database, creating it (and its folder) when missing.
    pub fn create(&self, name: &str) -> Result<SqliteConnection, SqlError> {
        self.connect(name, true)
    }

    fn connect(&self, name: &str, create: bool) -> Result<SqliteConnection, SqlError> {
        let path = self.path_of(name)?;
        if !path.exists() {
            if !create {
                return Err(SqlError::NoSuchDatabase);
            }
            if let Some(parent) = path.parent() {
                private::create_private_dir(parent)
                    .map_err(|error| SqlError::Io(format!("{}: {error}", parent.display())))?;
            }
            // Owner-only from the start: SQLite would make it 0644 less the
            // umask, and its -wal and -shm copy the database's mode.
            private::create_private_file(&path)
                .map_err(|error| SqlError::Io(format!("{}: {error}", path.display())))?;
        }
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let mut conn = Connection::open_with_flags(&path, flags).map_err(sql_error)?;
        // A mind (or journal) left readable by others is tightened on open.
        private::report(&private::tighten_database(&path));
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_error)?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // Connection settings only: nothing here writes to the file.
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql_error)?;
        let sandbox = Sandbox::install(&mut conn).map_err(sql_error)?;
        Ok(SqliteConnection {
            conn,
            sandbox,
            ready: Cell::new(false),
            last_refusal: RefCell::new(None),
        })
    }

    /// Delete workspace database `name` and its `-wal` and `-shm` files.
    /// `personal` is never deleted ([`SqlError::AccessDenied`]); a database
    /// that does not exist is [`SqlError::NoSuchDatabase`].
    pub fn remove(&self, name: &str) -> Result<(), SqlError> {
        if name == "personal" {
            return Err(SqlError::AccessDenied);
        }
        let path = self.path_of(name)?;
        if !path.exists() {
            return Err(SqlError::NoSuchDatabase);
        }
        std::fs::remove_file(&path)
            .map_err(|error| SqlError::Io(format!("{}: {error}", path.display())))?;
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut journal = path.clone().into_os_string();
            journal.push(suffix);
            match std::fs::remove_file(&journal) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => {
                    return Err(SqlError::Io(format!(
                        "{}: {error}",
                        std::path::Path::new(&journal).display()
                    )));
                }
            }
        }
        Ok(())
    }

    /// The names of the databases that exist: `personal` first, then the
    /// workspaces by id.
    pub fn list(&self) -> Result<Vec<String>, SqlError> {
        let mut names = Vec::new();
        if self.dir.join("personal.sqlite").exists() {
            names.push("personal".to_string());
        }
        let folder = self.dir.join("workspaces");
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(names),
            Err(error) => return Err(SqlError::Io(format!("{}: {error}", folder.display()))),
        };
        let mut ids = Vec::new();
        for entry in entries {
            let entry =
                entry.map_err(|error| SqlError::Io(format!("{}: {error}", folder.display())))?;
            let file = entry.file_name();
            if let Some(id) = file.to_str().and_then(|file| file.strip_suffix(".sqlite"))
                && valid_workspace_id(id)
            {
                ids.push(format!("workspace/{id}"));
            }
        }
        ids.sort();
        names.extend(ids);
        Ok(names)
    }
}

/// A workspace id the host accepts: 1 to 64 of `[A-Za-z0-9._-]`, not
/// starting with a dot.
pub fn valid_workspace_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// One open connection.
#[derive(Debug)]
pub struct SqliteConnection {
    conn: Connection,
    sandbox: Sandbox,
    /// Whether the file's version and sqlite-vec use have been read (before
    /// the first statement, so that opening never reads the file).
    ready: Cell<bool>,
    /// Why the sandbox refused the last statement, if it did.
    last_refusal: RefCell<Option<Refusal>>,
}

impl Drop for SqliteConnection {
    fn drop(&mut self) {
        // Closing a connection with a transaction still open (a guest that
        // trapped mid-write) rolls it back and runs the rollback hook, but
        // rusqlite frees the hook's closure before SQLite's close calls it:
        // unhook first (the close still rolls back).
        let _ = self.conn.rollback_hook(None::<fn()>);
    }
}

impl SqliteConnection {
    /// Run one statement with its parameters; every row it produces.
    pub fn execute(&self, sql: &str, params: &[Value]) -> Result<QueryResult, SqlError> {
        self.get_ready()?;
        let guard = self.sandbox.before_statement(&self.conn, sql);
        let outcome = self.run(sql, params, &guard);
        let refusal = self.sandbox.after_statement(&self.conn, guard);
        let refused = refusal.is_some();
        *self.last_refusal.borrow_mut() = refusal;
        // SQLite reports a refusal as `SQLITE_AUTH`, as a plain error
        // ("not authorized to use function …") or, from the commit hook, as
        // `SQLITE_CONSTRAINT_COMMITHOOK`: the caller sees one `AccessDenied`.
        match outcome {
            Err(_) if refused => Err(SqlError::AccessDenied),
            outcome => outcome,
        }
    }

    /// Why the sandbox refused the last statement ([`SqlError::AccessDenied`]),
    /// or `None` when it did not.
    pub fn last_refusal(&self) -> Option<Refusal> {
        self.last_refusal.borrow().clone()
    }

    /// Read what the sandbox needs from the file, once: its `user_version`,
    /// and whether it declares `vec0` tables (then sqlite-vec is registered
    /// on this connection).
    fn get_ready(&self) -> Result<(), SqlError> {
        if self.ready.get() {
            return Ok(());
        }
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(sql_error)?;
        let declares_vec0: bool = self
            .conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' \
             AND sql LIKE 'CREATE VIRTUAL TABLE%' AND sql LIKE '%USING vec0%')",
                [],
                |row| row.get(0),
            )
            .map_err(sql_error)?;
        if declares_vec0 {
            load_sqlite_vec(&self.conn)?;
        }
        self.sandbox.set_version(version);
        self.ready.set(true);
        Ok(())
    }

    /// Prepare (from the cache), bind and step one statement.
    fn run(
        &self,
        sql: &str,
        params: &[Value],
        guard: &StatementGuard,
    ) -> Result<QueryResult, SqlError> {
        let statement = match self.conn.prepare_cached(sql) {
            Ok(statement) => statement,
            Err(error) => {
                self.sandbox.statement_not_run(guard);
                return Err(sql_error(error));
            }
        };
        let outcome = self.bind_and_step(statement, sql, params);
        if let Err(StepError::NotRun(_)) = &outcome {
            self.sandbox.statement_not_run(guard);
        }
        outcome.map_err(StepError::into_inner)
    }

    fn bind_and_step(
        &self,
        mut statement: CachedStatement<'_>,
        sql: &str,
        params: &[Value],
    ) -> Result<QueryResult, StepError> {
        let outcome = Self::bind(&mut statement, sql, params)
            .map_err(StepError::NotRun)
            .and_then(|()| Self::step(&mut statement).map_err(StepError::Ran));
        // A statement the authorizer noted is prepared again next time, so
        // that the authorizer sees it again.
        if self.sandbox.statement_noted() {
            statement.discard();
        }
        outcome
    }

    fn bind(
        statement: &mut CachedStatement<'_>,
        sql: &str,
        params: &[Value],
    ) -> Result<(), SqlError> {
        if statement.parameter_count() != params.len() {
            return Err(SqlError::Io(format!(
                "the statement takes {} parameter(s), {} given: {sql}",
                statement.parameter_count(),
                params.len()
            )));
        }
        for (index, value) in params.iter().enumerate() {
            statement
                .raw_bind_parameter(index + 1, rusqlite_value(value))
                .map_err(sql_error)?;
        }
        Ok(())
    }

    fn step(statement: &mut CachedStatement<'_>) -> Result<QueryResult, SqlError> {
        let columns: Vec<String> = statement.column_names().map(str::to_string).collect();
        let width = columns.len();
        let mut rows = Vec::new();
        let mut cursor = statement.raw_query();
        while let Some(row) = cursor.next().map_err(sql_error)? {
            let mut values = Vec::with_capacity(width);
            for index in 0..width {
                values.push(value_of(row.get_ref(index).map_err(sql_error)?));
            }
            rows.push(values);
        }
        Ok(QueryResult { columns, rows })
    }

    /// The rowid of the last INSERT.
    pub fn last_insert_rowid(&self) -> i64 {
        self.conn.last_insert_rowid()
    }

    /// The rows changed by the last statement.
    pub fn changes(&self) -> u64 {
        self.conn.changes()
    }

    /// The underlying connection (benchmarks and diagnostics).
    #[doc(hidden)]
    pub fn raw(&self) -> &Connection {
        &self.conn
    }

    /// Register sqlite-vec on this connection (the benchmark's reference
    /// query; never reachable from the engine).
    pub fn load_sqlite_vec(&self) -> Result<(), SqlError> {
        load_sqlite_vec(&self.conn)
    }
}

/// A connection is the store's [`Database`]: the engine component reaches
/// these same calls through the `sqlite` import, native tests directly.
impl Database for SqliteConnection {
    fn execute(&self, statement: &str, parameters: &[Value]) -> Result<QueryResult, SqlError> {
        SqliteConnection::execute(self, statement, parameters)
    }

    fn last_insert_rowid(&self) -> i64 {
        SqliteConnection::last_insert_rowid(self)
    }

    fn changes(&self) -> u64 {
        SqliteConnection::changes(self)
    }
}

/// A data directory is the store's [`Databases`], so native tests open the
/// minds the component wrote with the store's own queries.
impl Databases for DataDir {
    fn open(&self, name: &str, create: bool) -> Result<Box<dyn Database>, SqlError> {
        let conn = if create {
            self.create(name)
        } else {
            DataDir::open(self, name)
        };
        Ok(Box::new(conn?))
    }

    fn list(&self) -> Result<Vec<String>, SqlError> {
        DataDir::list(self)
    }

    fn remove(&self, name: &str) -> Result<(), SqlError> {
        DataDir::remove(self, name)
    }
}

/// Why [`SqliteConnection::bind_and_step`] failed: before the statement ran
/// (its notes are forgotten) or while it ran.
enum StepError {
    NotRun(SqlError),
    Ran(SqlError),
}

impl StepError {
    fn into_inner(self) -> SqlError {
        match self {
            StepError::NotRun(error) | StepError::Ran(error) => error,
        }
    }
}

/// Register sqlite-vec on one connection: its functions and the `vec0`
/// module, for this connection only.
///
/// Public for tests that build v3 minds over plain rusqlite connections.
#[allow(unsafe_code)]
pub fn load_sqlite_vec(conn: &Connection) -> Result<(), SqlError> {
    type ExtensionInit = unsafe extern "C" fn(
        *mut ffi::sqlite3,
        *mut *mut std::os::raw::c_char,
        *const ffi::sqlite3_api_routines,
    ) -> std::os::raw::c_int;
    let mut message: *mut std::os::raw::c_char = std::ptr::null_mut();
    // SAFETY: `sqlite3_vec_init` is sqlite-vec's extension entry point,
    // compiled against the same bundled SQLite that rusqlite links
    // (`SQLITE_CORE`, so it never reads the API-routines pointer, which may
    // be null), with exactly the `(db, pzErrMsg, pApi) -> c_int` signature
    // of `ExtensionInit` (the crate declares it without arguments, hence the
    // transmute of the function pointer). `handle` is the live connection
    // `conn` owns, used on this thread only; `message` is either left null
    // or set to a string from `sqlite3_malloc`, freed here.
    let (code, error) = unsafe {
        let init = std::mem::transmute::<*const (), ExtensionInit>(
            sqlite_vec::sqlite3_vec_init as *const (),
        );
        let code = init(conn.handle(), &mut message, std::ptr::null());
        let error = if message.is_null() {
            None
        } else {
            let text = std::ffi::CStr::from_ptr(message)
                .to_string_lossy()
                .into_owned();
            ffi::sqlite3_free(message.cast());
            Some(text)
        };
        (code, error)
    };
    if code == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(SqlError::Io(format!(
            "sqlite-vec could not be registered (code {code}): {}",
            error.unwrap_or_default()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Make `schema` the only way the sandbox allows: one transaction that
    /// raises `user_version` (a migration step).
    fn migrate(conn: &SqliteConnection, schema: &str) {
        for statement in ["BEGIN", schema, "PRAGMA user_version = 1", "COMMIT"] {
            conn.execute(statement, &[]).unwrap();
        }
    }

    #[test]
    fn names_map_inside_the_directory_or_are_refused() {
        let data = DataDir::new("/data");
        assert_eq!(
            data.path_of("personal"),
            Ok(PathBuf::from("/data/personal.sqlite"))
        );
        assert_eq!(
            data.path_of("workspace/acme-1.x"),
            Ok(PathBuf::from("/data/workspaces/acme-1.x.sqlite"))
        );
        for bad in [
            "workspace/../etc",
            "workspace/.hidden",
            "workspace/",
            "workspace/a/b",
            "../personal",
            "/abs",
            "Personal",
            "workspace/x\0y",
        ] {
            assert_eq!(data.path_of(bad), Err(SqlError::AccessDenied), "{bad}");
        }
    }

    #[test]
    fn open_never_creates_and_create_does() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        assert_eq!(
            data.open("workspace/acme").unwrap_err(),
            SqlError::NoSuchDatabase
        );
        assert!(data.list().unwrap().is_empty());
        let conn = data.create("workspace/acme").unwrap();
        migrate(&conn, "CREATE TABLE t (x)");
        data.create("personal").unwrap();
        assert_eq!(data.list().unwrap(), ["personal", "workspace/acme"]);
        assert!(data.open("workspace/acme").is_ok());
    }

    #[test]
    fn values_round_trip_and_errors_are_typed() {
        let dir = tempfile::tempdir().unwrap();
        let conn = DataDir::new(dir.path()).create("personal").unwrap();
        migrate(
            &conn,
            "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b UNIQUE, CHECK (a IS NOT 'bad'))",
        );
        let values = vec![Value::Integer(-3), Value::Text("é ✓".into())];
        conn.execute("INSERT INTO t (a, b) VALUES (?1, ?2)", &values)
            .unwrap();
        assert_eq!(conn.last_insert_rowid(), 1);
        assert_eq!(conn.changes(), 1);
        conn.execute(
            "INSERT INTO t (a, b) VALUES (?1, ?2)",
            &[Value::Blob(vec![0, 255]), Value::Real(0.5)],
        )
        .unwrap();
        conn.execute("INSERT INTO t (a, b) VALUES (NULL, NULL)", &[])
            .unwrap();
        let result = conn.execute("SELECT a, b FROM t ORDER BY id", &[]).unwrap();
        assert_eq!(result.columns, ["a", "b"]);
        assert_eq!(
            result.rows,
            vec![
                values,
                vec![Value::Blob(vec![0, 255]), Value::Real(0.5)],
                vec![Value::Null, Value::Null],
            ]
        );
        assert!(matches!(
            conn.execute("INSERT INTO t (a) VALUES ('bad')", &[]),
            Err(SqlError::Constraint(_))
        ));
        assert!(matches!(
            conn.execute("SELEC 1", &[]),
            Err(SqlError::Io(message)) if message.contains("syntax")
        ));
        assert!(matches!(
            conn.execute("SELECT ?1", &[]),
            Err(SqlError::Io(message)) if message.contains("1 parameter")
        ));
    }

    #[test]
    fn a_foreign_file_is_corrupt_not_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("personal.sqlite"),
            b"not a database at all, really",
        )
        .unwrap();
        let outcome = DataDir::new(dir.path())
            .open("personal")
            .and_then(|conn| conn.execute("PRAGMA user_version", &[]));
        assert!(matches!(outcome, Err(SqlError::Corrupt(_))), "{outcome:?}");
    }

    #[test]
    fn dropping_a_connection_mid_transaction_rolls_back_and_releases_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let conn = data.create("personal").unwrap();
        migrate(&conn, "CREATE TABLE t (x)");
        conn.execute("BEGIN IMMEDIATE", &[]).unwrap();
        conn.execute("INSERT INTO t VALUES (1)", &[]).unwrap();
        // What a trapped guest leaves behind: the drop must not crash in
        // the rollback hook, and must release the write lock.
        drop(conn);
        let other = data.open("personal").unwrap();
        other.execute("BEGIN IMMEDIATE", &[]).unwrap();
        other.execute("INSERT INTO t VALUES (2)", &[]).unwrap();
        other.execute("COMMIT", &[]).unwrap();
        let rows = other.execute("SELECT x FROM t", &[]).unwrap().rows;
        assert_eq!(rows, vec![vec![Value::Integer(2)]]);
    }
}
