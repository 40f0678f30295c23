//! The SQL capability the store is written against, and a small
//! statement-level API over it.
//!
//! # The capability
//!
//! [`Database`] is one connection to one SQLite database: run a statement
//! with typed parameters, get its rows back. [`Databases`] opens them by
//! name. That is all the store needs from its host, and it is exactly the
//! WIT `hive:mind/sqlite` interface (Spin's `spin:sqlite` shape). The traits
//! and their value, result and error types are `hive-mind-sql`'s, re-exported
//! here: the engine component implements them over the import, the native
//! SQLite capability (`hive-mind-sqlite`, which the native tests use) over
//! rusqlite. The store never sees a file path, a pragma of the host's, or a
//! driver.
//!
//! # The API over it
//!
//! [`Connection`] gives the store's modules the handful of calls they make —
//! `execute`, `query_row`, `prepare(…).query_map`, `execute_batch`,
//! transactions that roll back when dropped, `optional()` — with the shapes
//! of rusqlite's, so the queries read like ordinary SQLite code. A statement
//! is text plus [`Value`]s; the host prepares and caches it.
//!
//! `execute_batch` splits a script into statements itself (the capability
//! runs one statement per call, as Spin's does), honouring quotes, comments
//! and `CREATE TRIGGER … BEGIN … END` bodies.

use std::fmt;

pub use hive_mind_sql::{Database, Databases, QueryResult, SqlError, Value};

/// What a statement-level call can fail with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The capability failed.
    #[error(transparent)]
    Sql(#[from] SqlError),
    /// `query_row` found no row.
    #[error("the query returned no rows")]
    QueryReturnedNoRows,
    /// A column held a value that does not convert to the type asked for.
    #[error("column {index}: {message}")]
    Conversion {
        /// The column.
        index: usize,
        /// What was wrong.
        message: String,
    },
    /// A column name that the result does not have.
    #[error("no column named {0:?}")]
    NoSuchColumn(String),
}

impl Error {
    /// A conversion failure of column `index`.
    pub fn conversion(index: usize, message: impl fmt::Display) -> Error {
        Error::Conversion {
            index,
            message: message.to_string(),
        }
    }
}

/// Statement-level result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A value a Rust type can be bound as.
pub trait ToSql {
    /// The SQLite value.
    fn to_sql(&self) -> Value;
}

macro_rules! to_sql_integer {
    ($($t:ty),*) => {$(
        impl ToSql for $t {
            fn to_sql(&self) -> Value {
                // Ids and counts beyond i64 do not occur; saturate rather than wrap.
                Value::Integer(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}
to_sql_integer!(i64, i32, u32, u64, usize, u8, i8, u16, i16);

impl ToSql for f64 {
    fn to_sql(&self) -> Value {
        Value::Real(*self)
    }
}
impl ToSql for f32 {
    fn to_sql(&self) -> Value {
        Value::Real(f64::from(*self))
    }
}
impl ToSql for bool {
    fn to_sql(&self) -> Value {
        Value::Integer(i64::from(*self))
    }
}
impl ToSql for str {
    fn to_sql(&self) -> Value {
        Value::Text(self.to_string())
    }
}
impl ToSql for String {
    fn to_sql(&self) -> Value {
        Value::Text(self.clone())
    }
}
impl ToSql for [u8] {
    fn to_sql(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}
impl ToSql for Vec<u8> {
    fn to_sql(&self) -> Value {
        Value::Blob(self.clone())
    }
}
impl ToSql for Value {
    fn to_sql(&self) -> Value {
        self.clone()
    }
}
impl<T: ToSql> ToSql for Option<T> {
    fn to_sql(&self) -> Value {
        match self {
            Some(value) => value.to_sql(),
            None => Value::Null,
        }
    }
}
impl<T: ToSql + ?Sized> ToSql for &T {
    fn to_sql(&self) -> Value {
        (**self).to_sql()
    }
}

/// A statement's parameters.
pub trait Params {
    /// The values, in order.
    fn values(self) -> Vec<Value>;
}

impl Params for () {
    fn values(self) -> Vec<Value> {
        Vec::new()
    }
}
/// `[]`: no parameters (one impl for length 0, so the literal infers).
impl Params for [&dyn ToSql; 0] {
    fn values(self) -> Vec<Value> {
        Vec::new()
    }
}
macro_rules! array_params {
    ($($n:literal),*) => {$(
        impl<T: ToSql> Params for [T; $n] {
            fn values(self) -> Vec<Value> {
                self.iter().map(ToSql::to_sql).collect()
            }
        }
        impl<T: ToSql> Params for &[T; $n] {
            fn values(self) -> Vec<Value> {
                self.iter().map(ToSql::to_sql).collect()
            }
        }
    )*};
}
array_params!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
impl Params for &[&dyn ToSql] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|value| value.to_sql()).collect()
    }
}
impl Params for Vec<Value> {
    fn values(self) -> Vec<Value> {
        self
    }
}
impl Params for &[Value] {
    fn values(self) -> Vec<Value> {
        self.to_vec()
    }
}

/// Parameters from an iterator of bindable values.
pub fn params_from_iter<I>(iter: I) -> Vec<Value>
where
    I: IntoIterator,
    I::Item: ToSql,
{
    iter.into_iter().map(|value| value.to_sql()).collect()
}

/// Parameters of mixed types: `params![id, name, None::<String>]`.
#[macro_export]
macro_rules! params {
    () => { () };
    ($($value:expr),+ $(,)?) => {
        &[$(&$value as &dyn $crate::sql::ToSql),+] as &[&dyn $crate::sql::ToSql]
    };
}
pub use crate::params;

/// A column value converted to a Rust type.
pub trait FromSql: Sized {
    /// Convert `value` (column `index`).
    fn from_sql(value: &Value, index: usize) -> Result<Self>;
}

fn mismatch<T>(value: &Value, index: usize, wanted: &str) -> Result<T> {
    Err(Error::conversion(
        index,
        format!("expected {wanted}, found {}", value.kind()),
    ))
}

macro_rules! from_sql_integer {
    ($($t:ty),*) => {$(
        impl FromSql for $t {
            fn from_sql(value: &Value, index: usize) -> Result<Self> {
                match value {
                    Value::Integer(number) => <$t>::try_from(*number).map_err(|_| {
                        Error::conversion(index, format!("{number} is out of range for {}", stringify!($t)))
                    }),
                    other => mismatch(other, index, "an integer"),
                }
            }
        }
    )*};
}
from_sql_integer!(i64, i32, u32, u64, usize, u8, u16, i16);

impl FromSql for f64 {
    fn from_sql(value: &Value, index: usize) -> Result<Self> {
        match value {
            Value::Real(number) => Ok(*number),
            // SQLite hands back integral REAL results as integers at times.
            #[allow(clippy::cast_precision_loss)]
            Value::Integer(number) => Ok(*number as f64),
            other => mismatch(other, index, "a real"),
        }
    }
}
impl FromSql for f32 {
    fn from_sql(value: &Value, index: usize) -> Result<Self> {
        #[allow(clippy::cast_possible_truncation)]
        f64::from_sql(value, index).map(|number| number as f32)
    }
}
impl FromSql for bool {
    fn from_sql(value: &Value, index: usize) -> Result<Self> {
        i64::from_sql(value, index).map(|number| number != 0)
    }
}
impl FromSql for String {
    fn from_sql(value: &Value, index: usize) -> Result<Self> {
        match value {
            Value::Text(text) => Ok(text.clone()),
            other => mismatch(other, index, "text"),
        }
    }
}
impl FromSql for Vec<u8> {
    fn from_sql(value: &Value, index: usize) -> Result<Self> {
        match value {
            Value::Blob(bytes) => Ok(bytes.clone()),
            other => mismatch(other, index, "a blob"),
        }
    }
}
impl FromSql for Value {
    fn from_sql(value: &Value, _index: usize) -> Result<Self> {
        Ok(value.clone())
    }
}
impl<T: FromSql> FromSql for Option<T> {
    fn from_sql(value: &Value, index: usize) -> Result<Self> {
        match value {
            Value::Null => Ok(None),
            other => T::from_sql(other, index).map(Some),
        }
    }
}

/// A column, by position or by name.
pub trait RowIndex {
    /// The position in `columns`.
    fn position(&self, columns: &[String]) -> Result<usize>;
}
impl RowIndex for usize {
    fn position(&self, columns: &[String]) -> Result<usize> {
        if *self < columns.len() {
            Ok(*self)
        } else {
            Err(Error::conversion(
                *self,
                format!("the row has {} columns", columns.len()),
            ))
        }
    }
}
impl RowIndex for &str {
    fn position(&self, columns: &[String]) -> Result<usize> {
        columns
            .iter()
            .position(|column| column.eq_ignore_ascii_case(self))
            .ok_or_else(|| Error::NoSuchColumn((*self).to_string()))
    }
}

/// One result row.
#[derive(Debug, Clone, Copy)]
pub struct Row<'r> {
    columns: &'r [String],
    values: &'r [Value],
}

impl Row<'_> {
    /// Column `index` as a `T`.
    pub fn get<I: RowIndex, T: FromSql>(&self, index: I) -> Result<T> {
        let position = index.position(self.columns)?;
        let value = self.values.get(position).unwrap_or(&Value::Null);
        T::from_sql(value, position)
    }

    /// Column `index` as it came back.
    pub fn value(&self, index: usize) -> &Value {
        self.values.get(index).unwrap_or(&Value::Null)
    }
}

/// `query_row(…).optional()`: no row is `None`, not an error.
pub trait OptionalExtension<T> {
    /// `Ok(None)` for [`Error::QueryReturnedNoRows`].
    fn optional(self) -> Result<Option<T>>;
}
impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(Error::QueryReturnedNoRows) => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// How a transaction takes its lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionBehavior {
    /// `BEGIN DEFERRED`: locks on first use.
    Deferred,
    /// `BEGIN IMMEDIATE`: takes the write lock now, so a writer never fails
    /// half-way on a lock it could not upgrade.
    Immediate,
}

/// A connection to one database, with the calls the store makes.
pub struct Connection {
    db: Box<dyn Database>,
    name: String,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Wrap an open database.
    pub fn new(db: Box<dyn Database>, name: impl Into<String>) -> Connection {
        Connection {
            db,
            name: name.into(),
        }
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Run a statement and return its rows.
    pub fn run(&self, sql: &str, params: impl Params) -> Result<QueryResult> {
        Ok(self.db.execute(sql, &params.values())?)
    }

    /// Run a statement; the rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.run(sql, params)?;
        Ok(usize::try_from(self.db.changes()).unwrap_or(usize::MAX))
    }

    /// Run a script of statements without parameters, in order.
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        for statement in split_statements(sql) {
            self.db.execute(statement, &[])?;
        }
        Ok(())
    }

    /// The first row of a query, mapped; [`Error::QueryReturnedNoRows`]
    /// when there is none.
    pub fn query_row<T, F>(&self, sql: &str, params: impl Params, map: F) -> Result<T>
    where
        F: FnOnce(&Row<'_>) -> Result<T>,
    {
        let result = self.run(sql, params)?;
        let values = result.rows.first().ok_or(Error::QueryReturnedNoRows)?;
        map(&Row {
            columns: &result.columns,
            values,
        })
    }

    /// Every row of a query, mapped.
    pub fn query_all<T, F>(&self, sql: &str, params: impl Params, mut map: F) -> Result<Vec<T>>
    where
        F: FnMut(&Row<'_>) -> Result<T>,
    {
        let result = self.run(sql, params)?;
        result
            .rows
            .iter()
            .map(|values| {
                map(&Row {
                    columns: &result.columns,
                    values,
                })
            })
            .collect()
    }

    /// A statement to run (the host caches its preparation).
    pub fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        Ok(Statement {
            conn: self,
            sql: sql.to_string(),
        })
    }

    /// Same as [`Connection::prepare`]: preparation is cached by the host.
    pub fn prepare_cached(&self, sql: &str) -> Result<Statement<'_>> {
        self.prepare(sql)
    }

    /// `PRAGMA name = value`.
    pub fn pragma_update<V: fmt::Display>(
        &self,
        _schema: Option<&str>,
        name: &str,
        value: V,
    ) -> Result<()> {
        self.run(&format!("PRAGMA {name} = {value}"), ())?;
        Ok(())
    }

    /// Begin a transaction; it rolls back unless committed.
    pub fn transaction_with_behavior(
        &self,
        behavior: TransactionBehavior,
    ) -> Result<Transaction<'_>> {
        Transaction::new_unchecked(self, behavior)
    }

    /// Begin a deferred transaction.
    pub fn transaction(&self) -> Result<Transaction<'_>> {
        self.transaction_with_behavior(TransactionBehavior::Deferred)
    }

    /// The rowid of the last INSERT.
    pub fn last_insert_rowid(&self) -> i64 {
        self.db.last_insert_rowid()
    }

    /// The rows changed by the last statement.
    pub fn changes(&self) -> u64 {
        self.db.changes()
    }
}

/// A statement bound to its connection.
pub struct Statement<'c> {
    conn: &'c Connection,
    sql: String,
}

impl Statement<'_> {
    /// Run it; the rows it changed.
    pub fn execute(&mut self, params: impl Params) -> Result<usize> {
        self.conn.execute(&self.sql, params)
    }

    /// Every row, mapped (read eagerly; the iterator is for rusqlite's shape).
    pub fn query_map<T, F>(
        &mut self,
        params: impl Params,
        map: F,
    ) -> Result<std::vec::IntoIter<Result<T>>>
    where
        F: FnMut(&Row<'_>) -> Result<T>,
    {
        let result = self.conn.run(&self.sql, params)?;
        let mut map = map;
        let mapped: Vec<Result<T>> = result
            .rows
            .iter()
            .map(|values| {
                map(&Row {
                    columns: &result.columns,
                    values,
                })
            })
            .collect();
        Ok(mapped.into_iter())
    }

    /// The rows, to step through.
    pub fn query(&mut self, params: impl Params) -> Result<Rows> {
        let result = self.conn.run(&self.sql, params)?;
        Ok(Rows { result, next: 0 })
    }

    /// The first row, mapped.
    pub fn query_row<T, F>(&mut self, params: impl Params, map: F) -> Result<T>
    where
        F: FnOnce(&Row<'_>) -> Result<T>,
    {
        self.conn.query_row(&self.sql, params, map)
    }
}

/// A statement's rows, stepped through with [`Rows::next`].
pub struct Rows {
    result: QueryResult,
    next: usize,
}

impl Rows {
    /// The next row, or `None` after the last.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Row<'_>>> {
        let Some(values) = self.result.rows.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        Ok(Some(Row {
            columns: &self.result.columns,
            values,
        }))
    }
}

/// An open transaction: `commit` it, or it rolls back when dropped.
pub struct Transaction<'c> {
    conn: &'c Connection,
    open: bool,
}

impl<'c> Transaction<'c> {
    /// Begin one on `conn`.
    pub fn new_unchecked(
        conn: &'c Connection,
        behavior: TransactionBehavior,
    ) -> Result<Transaction<'c>> {
        let begin = match behavior {
            TransactionBehavior::Deferred => "BEGIN DEFERRED",
            TransactionBehavior::Immediate => "BEGIN IMMEDIATE",
        };
        conn.run(begin, ())?;
        Ok(Transaction { conn, open: true })
    }

    /// Make its writes durable. A `COMMIT` that fails (a lock it could not
    /// get, a full disk) leaves the transaction open in SQLite, so it is
    /// rolled back on the way out, as rusqlite does: the writes are gone and
    /// the connection takes the next transaction.
    pub fn commit(mut self) -> Result<()> {
        self.conn.run("COMMIT", ())?;
        self.open = false;
        Ok(())
    }

    /// Undo its writes.
    pub fn rollback(mut self) -> Result<()> {
        self.open = false;
        self.conn.run("ROLLBACK", ())?;
        Ok(())
    }
}

impl std::ops::Deref for Transaction<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if self.open {
            // Nothing to report to: a failed rollback leaves SQLite to roll
            // back when the connection next writes or closes.
            let _ = self.conn.run("ROLLBACK", ());
        }
    }
}

/// Split a script into its statements (without the `;`), skipping empty
/// ones. Quotes (`'…'`, `"…"`, `` `…` ``, `[…]`), comments (`-- …`,
/// `/* … */`) and trigger bodies (`CREATE TRIGGER … BEGIN … END;`) are kept
/// whole.
pub fn split_statements(script: &str) -> Vec<&str> {
    let bytes = script.as_bytes();
    let at = |i: usize| bytes.get(i).copied();
    let mut statements = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while let Some(byte) = at(i) {
        match byte {
            quote @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while let Some(byte) = at(i) {
                    if byte == quote {
                        if at(i + 1) == Some(quote) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'[' => {
                while at(i).is_some_and(|byte| byte != b']') {
                    i += 1;
                }
                i += 1;
            }
            b'-' if at(i + 1) == Some(b'-') => {
                while at(i).is_some_and(|byte| byte != b'\n') {
                    i += 1;
                }
            }
            b'/' if at(i + 1) == Some(b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(at(i) == Some(b'*') && at(i + 1) == Some(b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b';' => {
                // `;` is ASCII, so `i` (and `start`, just past an earlier
                // one) is a character boundary.
                let statement = script.get(start..i).unwrap_or_default();
                if is_open_trigger(statement) {
                    i += 1;
                    continue;
                }
                if !statement.trim().is_empty() {
                    statements.push(statement.trim());
                }
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    let rest = script.get(start..).unwrap_or_default();
    if !rest.trim().is_empty() {
        statements.push(rest.trim());
    }
    statements
}

/// Whether `statement` is a `CREATE TRIGGER` whose body has not reached its
/// `END` yet: its last word is not `END`, or every `END` so far closes a
/// `CASE` of the body.
fn is_open_trigger(statement: &str) -> bool {
    let upper = statement.trim_start().to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|word| !word.is_empty())
        .collect();
    let is_trigger = words.first() == Some(&"CREATE")
        && words.iter().skip(1).take(2).any(|word| *word == "TRIGGER");
    if !is_trigger {
        return false;
    }
    let cases = words.iter().filter(|word| **word == "CASE").count();
    let ends = words.iter().filter(|word| **word == "END").count();
    words.last() != Some(&"END") || ends <= cases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_split_on_semicolons_outside_quotes_comments_and_triggers() {
        let script = "CREATE TABLE a (x TEXT DEFAULT ';');
            -- a comment; with a semicolon
            INSERT INTO a VALUES ('it''s; fine');
            CREATE TRIGGER t AFTER INSERT ON a BEGIN
                INSERT INTO a VALUES ('x'); DELETE FROM a WHERE x = 'y';
            END;
            /* block; comment */ SELECT 1";
        let statements = split_statements(script);
        assert_eq!(statements.len(), 4, "{statements:#?}");
        assert!(statements[0].starts_with("CREATE TABLE a"));
        assert!(statements[1].ends_with("'it''s; fine')"));
        assert!(statements[2].starts_with("CREATE TRIGGER t"));
        assert!(statements[2].ends_with("END"));
        assert!(statements[3].ends_with("SELECT 1"));
    }

    #[test]
    fn a_case_expression_inside_a_trigger_does_not_end_it() {
        let statements = split_statements(
            "CREATE TRIGGER t AFTER INSERT ON a BEGIN
                 UPDATE a SET x = CASE WHEN new.x > 0 THEN 1 ELSE 0 END;
                 DELETE FROM a WHERE x = 2;
             END;
             SELECT 3",
        );
        assert_eq!(statements.len(), 2, "{statements:#?}");
        assert!(statements[0].ends_with("END"));
        assert!(statements[0].contains("DELETE FROM a"));
    }

    #[test]
    fn a_temp_trigger_and_an_empty_script() {
        assert!(split_statements(" ;\n ; ").is_empty());
        let statements = split_statements(
            "CREATE TEMP TRIGGER IF NOT EXISTS t BEFORE DELETE ON a BEGIN SELECT RAISE(ABORT, 'no'); END; SELECT 2;",
        );
        assert_eq!(statements.len(), 2, "{statements:#?}");
    }

    #[test]
    fn values_convert_or_say_why_not() {
        assert_eq!(u32::from_sql(&Value::Integer(7), 0), Ok(7));
        assert!(u32::from_sql(&Value::Integer(-1), 2).is_err());
        assert_eq!(Option::<String>::from_sql(&Value::Null, 0), Ok(None));
        let error = String::from_sql(&Value::Integer(1), 3).unwrap_err();
        assert_eq!(error.to_string(), "column 3: expected text, found integer");
        assert_eq!(f64::from_sql(&Value::Integer(2), 0), Ok(2.0));
    }
}
