//! The SQL capability in plain Rust: what both sides of the WIT
//! `hive:mind/sqlite` interface speak, written once.
//!
//! The engine's store is written against [`Database`] (one connection: run a
//! statement with typed [`Value`]s, get a [`QueryResult`] back) and
//! [`Databases`] (open one by name). Three things implement them: the engine
//! component over its `sqlite` import, the native SQLite capability
//! (`hive-mind-sqlite`) over rusqlite — which the store's native tests use
//! directly — and nothing else. Failures are [`SqlError`], the WIT
//! `sqlite.error` cases, so a host and the engine match cases, never
//! messages.
//!
//! This crate is a leaf with no platform dependency: the guest crates link it
//! into the wasm component, the host crates natively, and neither reaches the
//! other through it. The two conversions that remain — to and from each
//! side's generated WIT bindings — live with those bindings
//! (`guest/engine-component/src/store.rs`,
//! `host/runtime/src/engine/sqlite_import.rs`).

/// A single SQLite value: a parameter or a column of a row (the WIT
/// `sqlite.value`).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A 64-bit signed integer.
    Integer(i64),
    /// A 64-bit float.
    Real(f64),
    /// UTF-8 text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
    /// SQL NULL.
    Null,
}

impl Value {
    /// The value's storage class, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Integer(_) => "integer",
            Value::Real(_) => "real",
            Value::Text(_) => "text",
            Value::Blob(_) => "blob",
            Value::Null => "null",
        }
    }
}

/// The rows a statement produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryResult {
    /// The result's column names, in order.
    pub columns: Vec<String>,
    /// The rows, each with one value per column.
    pub rows: Vec<Vec<Value>>,
}

/// Why the capability failed (the WIT `sqlite.error` cases).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SqlError {
    /// The named database does not exist.
    #[error("no such database")]
    NoSuchDatabase,
    /// The host does not allow this database, or refused the statement.
    #[error("access denied")]
    AccessDenied,
    /// The connection is unusable.
    #[error("invalid connection")]
    InvalidConnection,
    /// The database or disk is full.
    #[error("database or disk is full")]
    DatabaseFull,
    /// A lock was held longer than the host waits.
    #[error("the database is busy (locked by another connection)")]
    Busy,
    /// A constraint failed.
    #[error("constraint failed: {0}")]
    Constraint(String),
    /// Not a database, or damaged.
    #[error("not a readable database: {0}")]
    Corrupt(String),
    /// Anything else, with SQLite's message.
    #[error("{0}")]
    Io(String),
}

/// One open connection to one database.
pub trait Database {
    /// Run one statement with its parameters bound in order.
    fn execute(&self, statement: &str, parameters: &[Value]) -> Result<QueryResult, SqlError>;
    /// The rowid of the most recent successful INSERT.
    fn last_insert_rowid(&self) -> i64;
    /// The rows changed by the most recent INSERT, UPDATE or DELETE.
    fn changes(&self) -> u64;
}

/// Opens databases by name (`personal`, `workspace/<id>`).
pub trait Databases {
    /// Open the named database; with `create`, make an empty one when it
    /// does not exist, else fail with [`SqlError::NoSuchDatabase`].
    fn open(&self, name: &str, create: bool) -> Result<Box<dyn Database>, SqlError>;
    /// The names of the databases that exist.
    fn list(&self) -> Result<Vec<String>, SqlError>;
    /// Delete a workspace database and its journal files; `personal` is
    /// never deleted. A host without the operation refuses it.
    fn remove(&self, name: &str) -> Result<(), SqlError> {
        let _ = name;
        Err(SqlError::AccessDenied)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_value_names_its_storage_class() {
        let kinds: Vec<&str> = [
            Value::Integer(1),
            Value::Real(0.5),
            Value::Text("a".into()),
            Value::Blob(vec![1]),
            Value::Null,
        ]
        .iter()
        .map(Value::kind)
        .collect();
        assert_eq!(kinds, ["integer", "real", "text", "blob", "null"]);
    }
}
