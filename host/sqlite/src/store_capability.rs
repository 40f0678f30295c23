//! The engine store's SQL capability over a data directory (feature
//! `store`, for native tests only): the same databases the component opens
//! through the `sqlite` import, opened directly, so a test can inspect what
//! the engine wrote with the store's own queries.

use hive_mind_store::sql::{Database, Databases, QueryResult, SqlError, Value};

use crate::{DataDir, SqliteConnection, SqliteError, Value as NativeValue};

fn sql_error(error: SqliteError) -> SqlError {
    match error {
        SqliteError::NoSuchDatabase => SqlError::NoSuchDatabase,
        SqliteError::AccessDenied => SqlError::AccessDenied,
        SqliteError::InvalidConnection => SqlError::InvalidConnection,
        SqliteError::DatabaseFull => SqlError::DatabaseFull,
        SqliteError::Busy => SqlError::Busy,
        SqliteError::Constraint(message) => SqlError::Constraint(message),
        SqliteError::Corrupt(message) => SqlError::Corrupt(message),
        SqliteError::Io(message) => SqlError::Io(message),
    }
}

impl Database for SqliteConnection {
    fn execute(&self, statement: &str, parameters: &[Value]) -> Result<QueryResult, SqlError> {
        let parameters: Vec<NativeValue> = parameters
            .iter()
            .map(|value| match value {
                Value::Integer(n) => NativeValue::Integer(*n),
                Value::Real(x) => NativeValue::Real(*x),
                Value::Text(text) => NativeValue::Text(text.clone()),
                Value::Blob(bytes) => NativeValue::Blob(bytes.clone()),
                Value::Null => NativeValue::Null,
            })
            .collect();
        let result = SqliteConnection::execute(self, statement, &parameters).map_err(sql_error)?;
        Ok(QueryResult {
            columns: result.columns,
            rows: result
                .rows
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .map(|value| match value {
                            NativeValue::Integer(n) => Value::Integer(n),
                            NativeValue::Real(x) => Value::Real(x),
                            NativeValue::Text(text) => Value::Text(text),
                            NativeValue::Blob(bytes) => Value::Blob(bytes),
                            NativeValue::Null => Value::Null,
                        })
                        .collect()
                })
                .collect(),
        })
    }

    fn last_insert_rowid(&self) -> i64 {
        SqliteConnection::last_insert_rowid(self)
    }

    fn changes(&self) -> u64 {
        SqliteConnection::changes(self)
    }
}

impl Databases for DataDir {
    fn open(&self, name: &str, create: bool) -> Result<Box<dyn Database>, SqlError> {
        let conn = if create {
            self.create(name)
        } else {
            DataDir::open(self, name)
        };
        Ok(Box::new(conn.map_err(sql_error)?))
    }

    fn list(&self) -> Result<Vec<String>, SqlError> {
        DataDir::list(self).map_err(sql_error)
    }
}
