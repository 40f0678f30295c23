//! The `hive:mind/sqlite` import: named databases of the data directory,
//! served by [`hive_mind_sqlite::DataDir`].
//!
//! Each `connection` resource is a native SQLite connection in the store's
//! resource table; `execute` binds the engine's values, runs the one
//! statement and hands every row back. Nothing here knows a table: the
//! engine owns the schema.

use hive_mind_sqlite::{SqlError, SqliteConnection, Value as NativeValue};
use wasmtime::component::Resource;

use super::EngineState;
use super::bindings::hive::mind::sqlite::{
    Error, Host, HostConnection, QueryResult, RowResult, Value,
};

fn error_out(error: SqlError) -> Error {
    match error {
        SqlError::NoSuchDatabase => Error::NoSuchDatabase,
        SqlError::AccessDenied => Error::AccessDenied,
        SqlError::InvalidConnection => Error::InvalidConnection,
        SqlError::DatabaseFull => Error::DatabaseFull,
        SqlError::Busy => Error::Busy,
        SqlError::Constraint(message) => Error::Constraint(message),
        SqlError::Corrupt(message) => Error::Corrupt(message),
        SqlError::Io(message) => Error::Io(message),
    }
}

impl EngineState {
    fn connect(
        &mut self,
        database: &str,
        create: bool,
    ) -> Result<Resource<SqliteConnection>, Error> {
        let data = &self.capabilities.data_dir;
        let connection = if create {
            data.create(database)
        } else {
            data.open(database)
        }
        .map_err(error_out)?;
        self.table
            .push(connection)
            .map_err(|error| Error::Io(error.to_string()))
    }
}

impl HostConnection for EngineState {
    fn open(&mut self, database: String) -> Result<Resource<SqliteConnection>, Error> {
        self.connect(&database, false)
    }

    fn create(&mut self, database: String) -> Result<Resource<SqliteConnection>, Error> {
        self.connect(&database, true)
    }

    fn execute(
        &mut self,
        connection: Resource<SqliteConnection>,
        statement: String,
        parameters: Vec<Value>,
    ) -> Result<QueryResult, Error> {
        let started = std::time::Instant::now();
        let connection = self
            .table
            .get(&connection)
            .map_err(|_| Error::InvalidConnection)?;
        let parameters: Vec<NativeValue> = parameters
            .into_iter()
            .map(|value| match value {
                Value::Integer(n) => NativeValue::Integer(n),
                Value::Real(x) => NativeValue::Real(x),
                Value::Text(text) => NativeValue::Text(text),
                Value::Blob(bytes) => NativeValue::Blob(bytes),
                Value::Null => NativeValue::Null,
            })
            .collect();
        let result = connection
            .execute(&statement, &parameters)
            .map_err(error_out);
        self.timings.sql += started.elapsed();
        let result = result?;
        Ok(QueryResult {
            columns: result.columns,
            rows: result
                .rows
                .into_iter()
                .map(|row| RowResult {
                    values: row
                        .into_iter()
                        .map(|value| match value {
                            NativeValue::Integer(n) => Value::Integer(n),
                            NativeValue::Real(x) => Value::Real(x),
                            NativeValue::Text(text) => Value::Text(text),
                            NativeValue::Blob(bytes) => Value::Blob(bytes),
                            NativeValue::Null => Value::Null,
                        })
                        .collect(),
                })
                .collect(),
        })
    }

    fn last_insert_rowid(&mut self, connection: Resource<SqliteConnection>) -> i64 {
        self.table
            .get(&connection)
            .map_or(0, SqliteConnection::last_insert_rowid)
    }

    fn changes(&mut self, connection: Resource<SqliteConnection>) -> u64 {
        self.table
            .get(&connection)
            .map_or(0, SqliteConnection::changes)
    }

    fn drop(&mut self, connection: Resource<SqliteConnection>) -> wasmtime::Result<()> {
        self.table.delete(connection)?;
        Ok(())
    }
}

impl Host for EngineState {
    fn databases(&mut self) -> Result<Vec<String>, Error> {
        self.capabilities.data_dir.list().map_err(error_out)
    }

    fn remove_database(&mut self, database: String) -> Result<(), Error> {
        self.capabilities
            .data_dir
            .remove(&database)
            .map_err(error_out)
    }
}

impl super::wit_types::Host for EngineState {}
