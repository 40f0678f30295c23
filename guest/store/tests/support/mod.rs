//! Shared helpers of the store's native tests: the SQL capability over
//! rusqlite (the native host's own `hive-mind-sqlite`, whose data directory
//! is the store's `Databases`), a temporary data
//! directory, the fake embedder (hash of words → unit vector; no semantics),
//! and frames embedded with it.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use hive_mind_sqlite::DataDir;
use hive_mind_store::sql::{Database, Databases, QueryResult, SqlError, Value};
use hive_mind_store::{
    FakeHashVectorSource, Mind, MindStore, Minds, NewFrame, StoreConfig, StoreResult, VectorSource,
    vectors::embed_frame,
};

/// The capability over `dir`.
pub fn databases(dir: &Path) -> Box<dyn Databases> {
    Box::new(DataDir::new(dir))
}

/// The fake embedder's dimension in tests (small keeps the files small).
pub const DIM: u32 = 16;

/// The fake embedder.
pub fn fake() -> FakeHashVectorSource {
    FakeHashVectorSource::new(DIM)
}

/// A config whose active embedder is the fake.
pub fn config() -> StoreConfig {
    StoreConfig {
        embedder: Some(fake().fingerprint()),
        max_tokens: fake().max_tokens,
    }
}

/// The chunk plan of a mind written with the fake (its window).
pub fn fake_plan() -> hive_mind_store::ChunkPlan {
    hive_mind_store::ChunkPlan::for_window(fake().max_tokens)
}

/// Open the minds of `dir` with `config`.
pub fn open_minds(dir: &Path, config: StoreConfig) -> StoreResult<Minds> {
    Minds::open(databases(dir), config)
}

/// Open one mind of `dir`.
pub fn open_mind(
    dir: &Path,
    mind: Mind,
    create: bool,
    config: &StoreConfig,
) -> StoreResult<MindStore> {
    MindStore::open(databases(dir).as_ref(), mind, create, config)
}

/// Minds in a fresh temporary directory (kept alive by the returned guard).
pub fn minds() -> (tempfile::TempDir, Minds) {
    let dir = tempfile::tempdir().unwrap();
    let minds = open_minds(dir.path(), config()).unwrap();
    (dir, minds)
}

/// A frame for `mind` with its fake vectors (and chunk vectors).
pub fn frame(mind: &Mind, content: &str) -> NewFrame {
    embed_frame(&fake(), NewFrame::new(mind.clone(), content, Vec::new())).unwrap()
}

/// A long text that chunks into several chunks.
pub fn long_text(tag: &str) -> String {
    (0..6)
        .map(|n| {
            format!("Paragraph {n} about {tag}. ")
                + &"The ledger keeps every posting balanced and auditable. ".repeat(8)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The native capability, counting every statement its databases execute:
/// how many statements an operation costs, seen from outside the store.
pub struct CountingDatabases {
    inner: DataDir,
    /// Statements executed so far, by every database opened.
    pub statements: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl CountingDatabases {
    /// The counting capability over `dir`.
    pub fn new(dir: &Path) -> CountingDatabases {
        CountingDatabases {
            inner: DataDir::new(dir),
            statements: std::sync::Arc::default(),
        }
    }

    /// Statements executed so far.
    pub fn count(&self) -> usize {
        self.statements.load(std::sync::atomic::Ordering::SeqCst)
    }
}

struct CountingDatabase {
    inner: Box<dyn Database>,
    statements: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Database for CountingDatabase {
    fn execute(&self, statement: &str, parameters: &[Value]) -> Result<QueryResult, SqlError> {
        self.statements
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.execute(statement, parameters)
    }

    fn last_insert_rowid(&self) -> i64 {
        self.inner.last_insert_rowid()
    }

    fn changes(&self) -> u64 {
        self.inner.changes()
    }
}

impl Databases for CountingDatabases {
    fn open(&self, name: &str, create: bool) -> Result<Box<dyn Database>, SqlError> {
        Ok(Box::new(CountingDatabase {
            inner: Databases::open(&self.inner, name, create)?,
            statements: self.statements.clone(),
        }))
    }

    fn list(&self) -> Result<Vec<String>, SqlError> {
        self.inner.list()
    }
}

/// Save `content` to the personal mind, dated `at` (event time): its id.
pub fn save_at(minds: &mut Minds, content: &str, at: &str) -> u64 {
    let mut new = frame(&Mind::Personal, content);
    new.created_at = Some(at.to_string());
    minds.save_frame(new).unwrap().frame.frame_ref.id
}

/// The personal mind's frame `id`, as stored now.
pub fn get(minds: &mut Minds, id: u64) -> hive_mind_store::Frame {
    minds
        .mind(&Mind::Personal)
        .unwrap()
        .get_frames(&[id])
        .unwrap()
        .pop()
        .unwrap()
}

/// The file of the personal mind of data directory `dir`.
pub fn personal_file(dir: &Path) -> PathBuf {
    dir.join("personal.sqlite")
}

/// `PRAGMA user_version` of the file at `path`.
pub fn user_version(path: &Path) -> u32 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap()
}
