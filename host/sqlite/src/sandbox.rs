//! The sandbox every connection runs in: what the engine may not do to the
//! file it is given, even if the component were ever compromised.
//!
//! The engine is a WebAssembly component with no file system; its only
//! storage is the SQL it sends here. Unrestricted SQL reaches further than a
//! mind needs: `ATTACH` and `VACUUM INTO` open or write any file the host
//! can, `load_extension()` runs native code, and a `DROP TRIGGER` removes the
//! triggers that keep the audit tables append-only. So each connection is
//! opened with SQLite's own limits, and an authorizer and a commit hook check
//! every statement and every commit:
//!
//! | refused | how | the engine sees |
//! |---|---|---|
//! | `ATTACH`, `DETACH`, `VACUUM INTO` | `SQLITE_LIMIT_ATTACHED` = 0 and the authorizer ([`Refusal::Attach`], [`Refusal::Detach`]) | `access-denied` |
//! | `load_extension()` | the authorizer ([`Refusal::LoadExtension`]); extension loading is never enabled on the connection either | `access-denied` |
//! | setting `trusted_schema`, `writable_schema`, `schema_version`, `temp_store_directory`, `data_store_directory` | the authorizer ([`Refusal::Pragma`]); `SQLITE_DBCONFIG_DEFENSIVE` also blocks the writable schema, `schema_version` writes, `journal_mode = OFF` and writes to FTS5's shadow tables | `access-denied` |
//! | lowering `PRAGMA user_version` | the authorizer ([`Refusal::LowerUserVersion`]) | `access-denied` |
//! | a transaction that creates, drops or alters a schema object and does not raise `user_version` | the commit hook turns its commit into a rollback ([`Refusal::SchemaChangeWithoutVersion`]) | `access-denied` on the statement that commits (`COMMIT`, or the statement itself outside a transaction) |
//!
//! Plain `VACUUM` and `PRAGMA incremental_vacuum` stay allowed (they reclaim
//! the pages of erased memories): SQLite runs `VACUUM` by attaching a
//! temporary database with an empty file name, so for a statement that is
//! exactly `VACUUM` (optionally with a schema name, never `INTO`) the attach
//! limit is 1 and that one empty-name attach is allowed.
//!
//! # The schema rule
//!
//! The host does not know the engine's tables or its schema versions, and
//! must not. What it knows is the engine's contract for a migration step:
//! one transaction that changes the schema and raises `PRAGMA user_version`
//! with it. So the rule is generic: **a transaction that creates, removes
//! or alters a schema object must also raise `user_version`** above the
//! value this connection last saw (read on its first statement, kept up to
//! date as its own commits raise it). That covers `CREATE`/`DROP` of
//! tables (virtual ones too, with their shadow tables), indexes, triggers
//! and views, and any `ALTER TABLE`; temporary objects count like the
//! others (a temporary trigger can act on the mind's own tables).
//!
//! The engine makes every schema object in a migration step (since its v9
//! schema, the vector tables too; an entity merge keeps its unique indexes
//! on), so nothing else it does changes the schema. What the rule costs an
//! attacker is that any change to the schema has to be a migration, and a
//! raised `user_version` leaves the file at a version the engine's next
//! open treats as newer than it knows (the file is then refused, not
//! silently used).
//!
//! The authorizer sees statements as they are prepared, so the connection
//! never keeps a statement that touched the rule in its statement cache (a
//! cached statement is not authorized again), and it forgets what a
//! statement noted when the statement fails to prepare or bind, or when no
//! transaction is left open after it.
//!
//! # `trusted_schema = OFF`
//!
//! Triggers and views may then only use functions and virtual tables marked
//! innocuous. The bundled SQLite marks FTS5 so, which is what the engine's
//! full-text triggers write into; the store's test suite runs over this
//! crate and covers them.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rusqlite::config::DbConfig;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::{Connection, ffi};

/// Why the sandbox refused a statement or a commit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// `ATTACH` (also how SQLite runs `VACUUM INTO`): the file.
    #[error("ATTACH is not allowed (file {0:?}); VACUUM INTO is refused for the same reason")]
    Attach(String),
    /// `DETACH`.
    #[error("DETACH is not allowed")]
    Detach,
    /// The `load_extension()` SQL function.
    #[error("load_extension() is not allowed")]
    LoadExtension,
    /// Setting a pragma that would undo the sandbox or reach outside the
    /// file.
    #[error("setting PRAGMA {0} is not allowed")]
    Pragma(String),
    /// `PRAGMA user_version` set below the version the connection saw.
    #[error("PRAGMA user_version may not go down (from {from} to {to})")]
    LowerUserVersion {
        /// The version the connection last saw.
        from: i64,
        /// The version asked for.
        to: i64,
    },
    /// `PRAGMA user_version` set to something that is not an integer.
    #[error("PRAGMA user_version takes an integer, not {0:?}")]
    UnreadableUserVersion(String),
    /// A transaction created, removed or altered a schema object without
    /// raising `user_version`: what it did first.
    #[error(
        "a transaction that {0} must also raise PRAGMA user_version (a migration step); it was rolled back"
    )]
    SchemaChangeWithoutVersion(String),
}

/// The pragmas a statement may read but never set.
const READ_ONLY_PRAGMAS: [&str; 5] = [
    "trusted_schema",
    "writable_schema",
    "schema_version",
    "temp_store_directory",
    "data_store_directory",
];

/// The kind of a schema object, temporary ones apart (a temporary table
/// does not replace a main one of the same name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ObjectKind {
    Table,
    TempTable,
    VirtualTable,
    Index,
    TempIndex,
    Trigger,
    TempTrigger,
    View,
    TempView,
}

impl ObjectKind {
    fn describe(self) -> &'static str {
        match self {
            ObjectKind::Table => "table",
            ObjectKind::TempTable => "temporary table",
            ObjectKind::VirtualTable => "virtual table",
            ObjectKind::Index => "index",
            ObjectKind::TempIndex => "temporary index",
            ObjectKind::Trigger => "trigger",
            ObjectKind::TempTrigger => "temporary trigger",
            ObjectKind::View => "view",
            ObjectKind::TempView => "temporary view",
        }
    }
}

/// A schema object, by kind and (case-folded, as SQLite compares them) name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SchemaObject {
    kind: ObjectKind,
    name: String,
}

impl SchemaObject {
    fn new(kind: ObjectKind, name: &str) -> SchemaObject {
        SchemaObject {
            kind,
            name: name.to_ascii_lowercase(),
        }
    }
}

/// A schema change the authorizer saw in the current transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SchemaChange {
    Created(SchemaObject),
    Dropped(SchemaObject),
    Altered(String),
}

/// What the sandbox knows of one connection: its version, the current
/// transaction's schema changes, and the last refusal.
#[derive(Debug, Default)]
struct Ledger {
    /// `user_version` as this connection last saw it committed.
    version: i64,
    /// The schema changes of the open transaction (or of the statement
    /// about to run outside one).
    changes: Vec<SchemaChange>,
    /// The `user_version` the open transaction sets, when above `version`.
    raised_to: Option<i64>,
    /// Whether the authorizer noted anything for the current statement (it
    /// must then not stay in the statement cache).
    statement_noted: bool,
    /// Whether the current statement is a plain `VACUUM`, whose internal
    /// attach of an empty-name temporary database is allowed.
    vacuum_running: bool,
    /// Why the current statement was refused, if it was.
    refusal: Option<Refusal>,
}

impl Ledger {
    fn forget_transaction(&mut self) {
        self.changes.clear();
        self.raised_to = None;
    }

    /// The refusal a commit of the open transaction earns, if any.
    fn commit_refusal(&self) -> Option<Refusal> {
        if self.raised_to.is_some() {
            return None;
        }
        self.changes.first().map(|change| {
            Refusal::SchemaChangeWithoutVersion(match change {
                SchemaChange::Altered(table) => format!("alters table {table:?}"),
                SchemaChange::Dropped(object) => {
                    format!("drops {} {:?}", object.kind.describe(), object.name)
                }
                SchemaChange::Created(object) => {
                    format!("creates {} {:?}", object.kind.describe(), object.name)
                }
            })
        })
    }

    fn refuse(&mut self, refusal: Refusal) -> Authorization {
        self.refusal = Some(refusal);
        Authorization::Deny
    }

    fn note(&mut self, change: SchemaChange) -> Authorization {
        self.changes.push(change);
        self.statement_noted = true;
        Authorization::Allow
    }

    /// The authorizer: refuse what the sandbox forbids, note schema changes.
    fn authorize(&mut self, context: &AuthContext<'_>) -> Authorization {
        // VACUUM builds its copy in an attached `vacuum_db`; what happens
        // there is VACUUM's own work, not a change to the mind's schema.
        let in_mind = matches!(context.database_name, None | Some("main" | "temp"));
        use ObjectKind as Kind;
        let created = |kind, name: &str| SchemaChange::Created(SchemaObject::new(kind, name));
        let dropped = |kind, name: &str| SchemaChange::Dropped(SchemaObject::new(kind, name));
        match context.action {
            AuthAction::Attach { filename } => {
                if self.vacuum_running && filename.is_empty() {
                    Authorization::Allow
                } else {
                    self.refuse(Refusal::Attach(filename.to_string()))
                }
            }
            AuthAction::Detach { .. } => self.refuse(Refusal::Detach),
            AuthAction::Function { function_name }
                if function_name.eq_ignore_ascii_case("load_extension") =>
            {
                self.refuse(Refusal::LoadExtension)
            }
            AuthAction::Pragma {
                pragma_name,
                pragma_value: Some(value),
            } => self.authorize_pragma_setting(pragma_name, value),
            // Before the database check: for `RENAME COLUMN` and `DROP
            // COLUMN` SQLite passes the column where the database name goes.
            AuthAction::AlterTable { table_name, .. } => {
                self.note(SchemaChange::Altered(table_name.to_string()))
            }
            _ if !in_mind => Authorization::Allow,
            AuthAction::CreateTable { table_name } => self.note(created(Kind::Table, table_name)),
            AuthAction::CreateTempTable { table_name } => {
                self.note(created(Kind::TempTable, table_name))
            }
            AuthAction::CreateVtable { table_name, .. } => {
                self.note(created(Kind::VirtualTable, table_name))
            }
            AuthAction::CreateIndex { index_name, .. } => {
                self.note(created(Kind::Index, index_name))
            }
            AuthAction::CreateTempIndex { index_name, .. } => {
                self.note(created(Kind::TempIndex, index_name))
            }
            AuthAction::CreateTrigger { trigger_name, .. } => {
                self.note(created(Kind::Trigger, trigger_name))
            }
            AuthAction::CreateTempTrigger { trigger_name, .. } => {
                self.note(created(Kind::TempTrigger, trigger_name))
            }
            AuthAction::CreateView { view_name } => self.note(created(Kind::View, view_name)),
            AuthAction::CreateTempView { view_name } => {
                self.note(created(Kind::TempView, view_name))
            }
            AuthAction::DropTable { table_name } => self.note(dropped(Kind::Table, table_name)),
            AuthAction::DropTempTable { table_name } => {
                self.note(dropped(Kind::TempTable, table_name))
            }
            AuthAction::DropVtable { table_name, .. } => {
                self.note(dropped(Kind::VirtualTable, table_name))
            }
            AuthAction::DropIndex { index_name, .. } => self.note(dropped(Kind::Index, index_name)),
            AuthAction::DropTempIndex { index_name, .. } => {
                self.note(dropped(Kind::TempIndex, index_name))
            }
            AuthAction::DropTrigger { trigger_name, .. } => {
                self.note(dropped(Kind::Trigger, trigger_name))
            }
            AuthAction::DropTempTrigger { trigger_name, .. } => {
                self.note(dropped(Kind::TempTrigger, trigger_name))
            }
            AuthAction::DropView { view_name } => self.note(dropped(Kind::View, view_name)),
            AuthAction::DropTempView { view_name } => self.note(dropped(Kind::TempView, view_name)),
            _ => Authorization::Allow,
        }
    }

    fn authorize_pragma_setting(&mut self, name: &str, value: &str) -> Authorization {
        if READ_ONLY_PRAGMAS
            .iter()
            .any(|pragma| name.eq_ignore_ascii_case(pragma))
        {
            return self.refuse(Refusal::Pragma(name.to_ascii_lowercase()));
        }
        if !name.eq_ignore_ascii_case("user_version") {
            return Authorization::Allow;
        }
        let Ok(asked) = value.trim().parse::<i64>() else {
            return self.refuse(Refusal::UnreadableUserVersion(value.to_string()));
        };
        if asked < self.version {
            return self.refuse(Refusal::LowerUserVersion {
                from: self.version,
                to: asked,
            });
        }
        self.raised_to = (asked > self.version).then_some(asked);
        self.statement_noted = true;
        Authorization::Allow
    }
}

/// The sandbox of one connection: installed on it by [`Sandbox::install`],
/// consulted by [`crate::SqliteConnection::execute`] around each statement.
#[derive(Debug, Clone)]
pub(crate) struct Sandbox {
    ledger: Arc<Mutex<Ledger>>,
}

impl Sandbox {
    /// Apply the limits and settings to `conn` and install the authorizer
    /// and the commit and rollback hooks.
    pub(crate) fn install(conn: &mut Connection) -> rusqlite::Result<Sandbox> {
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
        let sandbox = Sandbox {
            ledger: Arc::new(Mutex::new(Ledger::default())),
        };
        let ledger = Arc::clone(&sandbox.ledger);
        conn.authorizer(Some(move |context: AuthContext<'_>| {
            lock(&ledger).authorize(&context)
        }))?;
        let ledger = Arc::clone(&sandbox.ledger);
        conn.commit_hook(Some(move || {
            let mut ledger = lock(&ledger);
            let refusal = ledger.commit_refusal();
            if refusal.is_none()
                && let Some(version) = ledger.raised_to
            {
                ledger.version = version;
            }
            ledger.forget_transaction();
            match refusal {
                Some(refusal) => {
                    ledger.refusal = Some(refusal);
                    true
                }
                None => false,
            }
        }))?;
        let ledger = Arc::clone(&sandbox.ledger);
        conn.rollback_hook(Some(move || lock(&ledger).forget_transaction()))?;
        Ok(sandbox)
    }

    /// Record the `user_version` the file has (on the connection's first
    /// statement).
    pub(crate) fn set_version(&self, version: i64) {
        lock(&self.ledger).version = version;
    }

    /// Before a statement: forget the last statement's notes and refusal,
    /// and let a plain `VACUUM` attach its temporary database.
    pub(crate) fn before_statement(&self, conn: &Connection, sql: &str) -> StatementGuard {
        let vacuum = is_plain_vacuum(sql);
        let mut ledger = lock(&self.ledger);
        ledger.statement_noted = false;
        ledger.refusal = None;
        ledger.vacuum_running = vacuum;
        if vacuum {
            // Failing to raise the limit only makes the VACUUM fail.
            let _ = conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 1);
        }
        StatementGuard {
            changes_before: ledger.changes.len(),
            raised_before: ledger.raised_to,
            vacuum,
        }
    }

    /// The statement could not be prepared or bound: forget what its
    /// preparation noted.
    pub(crate) fn statement_not_run(&self, guard: &StatementGuard) {
        let mut ledger = lock(&self.ledger);
        ledger.changes.truncate(guard.changes_before);
        ledger.raised_to = guard.raised_before;
    }

    /// Whether the authorizer noted anything for the current statement (it
    /// must then leave the statement cache).
    pub(crate) fn statement_noted(&self) -> bool {
        lock(&self.ledger).statement_noted
    }

    /// After a statement: restore the attach limit after a `VACUUM`, and
    /// forget the notes when no transaction is open any more. The refusal
    /// the statement earned, if any.
    pub(crate) fn after_statement(
        &self,
        conn: &Connection,
        guard: StatementGuard,
    ) -> Option<Refusal> {
        let mut ledger = lock(&self.ledger);
        if guard.vacuum {
            ledger.vacuum_running = false;
            // Should this fail, the connection can attach nothing useful:
            // only the empty name is ever allowed, and only for VACUUM.
            let _ = conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0);
        }
        if conn.is_autocommit() {
            ledger.forget_transaction();
        }
        ledger.refusal.take()
    }
}

/// What [`Sandbox::before_statement`] saw, for the calls after it.
#[derive(Debug)]
pub(crate) struct StatementGuard {
    changes_before: usize,
    raised_before: Option<i64>,
    vacuum: bool,
}

fn lock(ledger: &Mutex<Ledger>) -> MutexGuard<'_, Ledger> {
    // A panic while the lock was held cannot leave the ledger half-written
    // in a way that matters more than refusing; keep going.
    ledger.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `sql` is a plain `VACUUM` (`VACUUM`, `VACUUM main`, `VACUUM;`),
/// never `VACUUM INTO`.
fn is_plain_vacuum(sql: &str) -> bool {
    let sql = sql.trim().trim_end_matches(';').trim_end();
    let mut words = sql.split_ascii_whitespace();
    let first_is_vacuum = words
        .next()
        .is_some_and(|word| word.eq_ignore_ascii_case("vacuum"));
    let schema_ok = match words.next() {
        None => true,
        Some(schema) => {
            !schema.eq_ignore_ascii_case("into")
                && schema
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
    };
    first_is_vacuum && schema_ok && words.next().is_none()
}

/// The extended result code of a commit the commit hook turned into a
/// rollback.
pub(crate) const COMMIT_REFUSED: i32 = ffi::SQLITE_CONSTRAINT_COMMITHOOK;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_vacuum_counts_as_one() {
        for plain in ["VACUUM", "vacuum;", "  VACUUM main ; ", "Vacuum temp"] {
            assert!(is_plain_vacuum(plain), "{plain}");
        }
        for other in [
            "VACUUM INTO '/tmp/x'",
            "VACUUM main INTO '/tmp/x'",
            "VACUUM into",
            "VACUUM 'main'",
            "SELECT 1",
            "VACUUMX",
            "",
        ] {
            assert!(!is_plain_vacuum(other), "{other}");
        }
    }

    #[test]
    fn every_schema_change_needs_a_version() {
        let table = |name| SchemaObject::new(ObjectKind::Table, name);
        let mut ledger = Ledger {
            version: 4,
            ..Ledger::default()
        };
        assert_eq!(ledger.commit_refusal(), None, "no change, no refusal");
        for (changes, said) in [
            (
                vec![SchemaChange::Created(table("new"))],
                "creates table \"new\"",
            ),
            (
                vec![
                    SchemaChange::Dropped(table("t")),
                    SchemaChange::Created(table("T")),
                ],
                "drops table \"t\"",
            ),
            (
                vec![SchemaChange::Created(SchemaObject::new(
                    ObjectKind::TempTrigger,
                    "spy",
                ))],
                "creates temporary trigger \"spy\"",
            ),
            (
                vec![SchemaChange::Altered("notes".into())],
                "alters table \"notes\"",
            ),
        ] {
            ledger.changes = changes;
            ledger.raised_to = None;
            assert!(
                matches!(
                    ledger.commit_refusal(),
                    Some(Refusal::SchemaChangeWithoutVersion(message)) if message == said
                ),
                "{said}"
            );
            ledger.raised_to = Some(5);
            assert_eq!(ledger.commit_refusal(), None, "a migration may: {said}");
        }
    }
}
