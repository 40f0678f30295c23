//! The engine's storage: the minds ([`hive_mind_store::Minds`]) over the
//! host's `sqlite` import, and the operations the pipelines call on them.
//!
//! # Over the import
//!
//! [`HostDatabases`] implements the store's [`Databases`] capability with
//! the WIT `hive:mind/sqlite` connection resource, so every table, query and
//! migration runs here, in the component; the host only opens databases by
//! name and runs the statements. The minds are opened on the first call that
//! needs them and kept for the life of the instance, with the active
//! embedder's fingerprint (from `embedder.info`) as their lock, and the
//! in-memory vector index each keeps.
//!
//! # The operations
//!
//! The functions below speak the pipelines' language — WIT frames, minds and
//! frame references — and translate to and from the store's native records
//! field by field. Their error is the store's own [`StoreError`]; the
//! exports turn it into the WIT `storage-error` case of the same meaning
//! ([`storage_error`]).

use std::cell::RefCell;

pub use hive_mind_store::StoreError;
use hive_mind_store::sql::{Database, Databases, QueryResult, SqlError, Value};
use hive_mind_store::{self as native, Minds, StoreConfig};
pub use hive_mind_store::{ChunkVector, NewFrame};

use crate::boundary;
use crate::hive::mind::sqlite;
use crate::hive::mind::types::{
    Frame, FrameRef, FrameType, Importance, MemoryStatus, Mind, Source,
};

/// The store's result.
pub type Result<T> = std::result::Result<T, StoreError>;

/// The `sqlite` import as the store's capability.
pub struct HostDatabases;

/// One connection resource of the import.
struct HostDatabase(sqlite::Connection);

fn sql_error(error: sqlite::Error) -> SqlError {
    match error {
        sqlite::Error::NoSuchDatabase => SqlError::NoSuchDatabase,
        sqlite::Error::AccessDenied => SqlError::AccessDenied,
        sqlite::Error::InvalidConnection => SqlError::InvalidConnection,
        sqlite::Error::DatabaseFull => SqlError::DatabaseFull,
        sqlite::Error::Busy => SqlError::Busy,
        sqlite::Error::Constraint(message) => SqlError::Constraint(message),
        sqlite::Error::Corrupt(message) => SqlError::Corrupt(message),
        sqlite::Error::Io(message) => SqlError::Io(message),
    }
}

fn value_out(value: &Value) -> sqlite::Value {
    match value {
        Value::Integer(n) => sqlite::Value::Integer(*n),
        Value::Real(x) => sqlite::Value::Real(*x),
        Value::Text(text) => sqlite::Value::Text(text.clone()),
        Value::Blob(bytes) => sqlite::Value::Blob(bytes.clone()),
        Value::Null => sqlite::Value::Null,
    }
}

fn value_in(value: sqlite::Value) -> Value {
    match value {
        sqlite::Value::Integer(n) => Value::Integer(n),
        sqlite::Value::Real(x) => Value::Real(x),
        sqlite::Value::Text(text) => Value::Text(text),
        sqlite::Value::Blob(bytes) => Value::Blob(bytes),
        sqlite::Value::Null => Value::Null,
    }
}

impl Database for HostDatabase {
    fn execute(
        &self,
        statement: &str,
        parameters: &[Value],
    ) -> std::result::Result<QueryResult, SqlError> {
        let parameters: Vec<sqlite::Value> = parameters.iter().map(value_out).collect();
        let result = self.0.execute(statement, &parameters).map_err(sql_error)?;
        Ok(QueryResult {
            columns: result.columns,
            rows: result
                .rows
                .into_iter()
                .map(|row| row.values.into_iter().map(value_in).collect())
                .collect(),
        })
    }

    fn last_insert_rowid(&self) -> i64 {
        self.0.last_insert_rowid()
    }

    fn changes(&self) -> u64 {
        self.0.changes()
    }
}

impl Databases for HostDatabases {
    fn open(&self, name: &str, create: bool) -> std::result::Result<Box<dyn Database>, SqlError> {
        let connection = if create {
            sqlite::Connection::create(name)
        } else {
            sqlite::Connection::open(name)
        };
        Ok(Box::new(HostDatabase(connection.map_err(sql_error)?)))
    }

    fn list(&self) -> std::result::Result<Vec<String>, SqlError> {
        sqlite::databases().map_err(sql_error)
    }

    fn remove(&self, name: &str) -> std::result::Result<(), SqlError> {
        sqlite::remove_database(name).map_err(sql_error)
    }
}

thread_local! {
    /// The minds of this instance, opened on first use.
    static MINDS: RefCell<Option<Minds>> = const { RefCell::new(None) };
}

/// The store's configuration from the active embedder: its fingerprint (the
/// lock) and the token window it reads (the chunk plan).
pub fn active_config() -> StoreConfig {
    match crate::hive::mind::embedder::info() {
        Ok(info) => StoreConfig {
            embedder: Some(native::EmbedderFingerprint {
                provider: info.provider,
                model: info.model,
                dim: info.dimensions,
            }),
            max_tokens: info.max_tokens,
        },
        Err(_) => StoreConfig::default(),
    }
}

/// The chunk plan a save to `mind` follows (the mind's recorded plan).
pub fn chunk_plan(mind: &Mind) -> Result<native::ChunkPlan> {
    let mind = mind_in(mind)?;
    with_minds(|minds| minds.chunk_plan(&mind))
}

/// Run `operation` on the minds, opening them first if needed.
pub fn with_minds<T>(operation: impl FnOnce(&mut Minds) -> Result<T>) -> Result<T> {
    MINDS.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let config = active_config();
            *slot = Some(Minds::open(Box::new(HostDatabases), config)?);
        }
        match slot.as_mut() {
            Some(minds) => operation(minds),
            None => Err(StoreError::NoEmbedder),
        }
    })
}

/// An existing mind (reads).
pub fn read<T>(
    mind: &Mind,
    operation: impl FnOnce(&mut native::MindStore) -> Result<T>,
) -> Result<T> {
    let mind = mind_in(mind)?;
    with_minds(|minds| operation(minds.mind(&mind)?))
}

/// A mind, created on first write.
pub fn write<T>(
    mind: &Mind,
    operation: impl FnOnce(&mut native::MindStore) -> Result<T>,
) -> Result<T> {
    let mind = mind_in(mind)?;
    with_minds(|minds| operation(minds.mind_or_create(&mind)?))
}

// ---- records the pipelines build and read ----------------------------------

/// A write's outcome.
#[derive(Debug, Clone)]
pub struct SavedFrame {
    /// The frame as stored.
    pub frame: Frame,
    /// Whether it existed already (same content hash).
    pub duplicate: bool,
}

/// A related frame of the same mind.
#[derive(Debug, Clone)]
pub struct FrameLink {
    /// Its id.
    pub id: u64,
    /// The similarity that links them.
    pub similarity: f64,
}

/// Which frames a search or listing considers.
#[derive(Debug, Clone, Default)]
pub struct SearchFilter {
    /// The minds (none: personal).
    pub minds: Vec<Mind>,
    /// Event dates from (inclusive).
    pub since: Option<String>,
    /// Event dates until (inclusive).
    pub until: Option<String>,
    /// The content starts with this.
    pub content_prefix: Option<String>,
    /// At least this important.
    pub min_importance: Option<Importance>,
}

/// One search of several with one query.
#[derive(Debug, Clone)]
pub struct FilteredSearch {
    /// Its filter.
    pub filter: SearchFilter,
    /// Its limit.
    pub limit: u32,
}

/// A search hit.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The frame.
    pub ref_: FrameRef,
    /// The lane's own score (BM25, cosine).
    pub score: f64,
    /// The chunk's offsets when a chunk matched.
    pub chunk: Option<(u32, u32)>,
}

/// A graph entity.
#[derive(Debug, Clone)]
pub struct Entity {
    /// Its id.
    pub id: u64,
    /// Its name as first written.
    pub name: String,
    /// Its type.
    pub entity_type: String,
    /// How often it was seen.
    pub seen_count: u32,
}

/// A graph relation.
#[derive(Debug, Clone)]
pub struct Relation {
    /// Its id.
    pub id: u64,
    /// The relation's type.
    pub relation: String,
    /// Its strength.
    pub strength: f64,
    /// How often it was seen.
    pub seen_count: u32,
}

// ---- conversions -------------------------------------------------------------

/// A WIT mind as the store's, validating a workspace id.
pub fn mind_in(mind: &Mind) -> Result<native::Mind> {
    match mind {
        Mind::Personal => Ok(native::Mind::Personal),
        Mind::Workspace(id) => native::Mind::workspace(id),
    }
}

/// The store's mind as WIT's.
pub fn mind_out(mind: &native::Mind) -> Mind {
    match mind {
        native::Mind::Personal => Mind::Personal,
        native::Mind::Workspace(id) => Mind::Workspace(id.clone()),
    }
}

/// A WIT frame reference as the store's.
pub fn ref_in(frame_ref: &FrameRef) -> Result<native::FrameRef> {
    Ok(native::FrameRef {
        mind: mind_in(&frame_ref.mind)?,
        id: frame_ref.id,
    })
}

/// Whether the write-time screen holds a stored frame back now: the
/// detector found it hostile and its owner has not released it. Such a
/// frame is kept for review and takes no part in anything else: never
/// recalled, it neither replaces a memory nor is replaced, and cleanup
/// neither retires it nor keeps it in another's place.
pub fn quarantined(frame: &Frame) -> bool {
    frame
        .screening
        .as_ref()
        .is_some_and(|screening| screening.quarantined)
}

/// Whether a stored frame stands as written: not replaced or closed, not
/// merged or archived, not held back by the write-time screen
/// ([`quarantined`]). Only such a frame answers for itself: it may replace
/// another, be replaced, or be retired by cleanup. (The store's own frame
/// type says the same, `hive_mind_store::types::Frame::stands`.)
pub fn stands(frame: &Frame) -> bool {
    frame.superseded_by.is_none()
        && frame.valid_to.is_none()
        && frame.merged_into.is_none()
        && frame.status == MemoryStatus::Active
        && !quarantined(frame)
}

/// A stored frame as recall ranks it (`hive_mind_core::recall::FrameInfo`),
/// at `distance` hops from the query's entities when the graph reaches it.
pub fn frame_info(frame: &Frame, distance: Option<u32>) -> hive_mind_core::recall::FrameInfo {
    hive_mind_core::recall::FrameInfo {
        content: frame.content.clone(),
        created_at: boundary::iso(frame.created_at).ok(),
        last_accessed: frame.last_accessed.and_then(|at| boundary::iso(at).ok()),
        importance: importance_in(frame.importance),
        access_count: frame.access_count,
        graph_distance: distance,
        screened: frame.released || frame.screening.is_some(),
        stands_for: Vec::new(),
    }
}

/// A memory's reference as people read it (`personal:12`,
/// `workspace:<id>:12`).
pub fn reference(mind: &Mind, id: u64) -> String {
    mind_in(mind).map_or_else(
        |_| id.to_string(),
        |mind| native::FrameRef { mind, id }.to_string(),
    )
}

/// The store's frame reference as WIT's.
pub fn ref_out(frame_ref: &native::FrameRef) -> FrameRef {
    FrameRef {
        mind: mind_out(&frame_ref.mind),
        id: frame_ref.id,
    }
}

/// A WIT importance as the core's.
pub fn importance_in(importance: Importance) -> hive_mind_core::Importance {
    use hive_mind_core::Importance as Core;
    match importance {
        Importance::Critical => Core::Critical,
        Importance::Important => Core::Important,
        Importance::Normal => Core::Normal,
        Importance::Temporary => Core::Temporary,
        Importance::Deprecated => Core::Deprecated,
    }
}

/// The core's importance as WIT's.
pub fn importance_out(importance: hive_mind_core::Importance) -> Importance {
    use hive_mind_core::Importance as Core;
    match importance {
        Core::Critical => Importance::Critical,
        Core::Important => Importance::Important,
        Core::Normal => Importance::Normal,
        Core::Temporary => Importance::Temporary,
        Core::Deprecated => Importance::Deprecated,
    }
}

/// A WIT source as the core's.
pub fn source_in(source: Source) -> hive_mind_core::Source {
    use hive_mind_core::Source as Core;
    match source {
        Source::UserStated => Core::UserStated,
        Source::ToolVerified => Core::ToolVerified,
        Source::AgentInferred => Core::AgentInferred,
        Source::Import => Core::Import,
        Source::System => Core::System,
    }
}

/// The core's source as WIT's.
pub fn source_out(source: hive_mind_core::Source) -> Source {
    use hive_mind_core::Source as Core;
    match source {
        Core::UserStated => Source::UserStated,
        Core::ToolVerified => Source::ToolVerified,
        Core::AgentInferred => Source::AgentInferred,
        Core::Import => Source::Import,
        Core::System => Source::System,
    }
}

/// The store's frame as WIT's.
pub fn frame_out(frame: &native::Frame) -> Frame {
    Frame {
        ref_: ref_out(&frame.frame_ref),
        frame_type: match frame.frame_type {
            native::FrameType::IFrame => FrameType::IFrame,
            native::FrameType::PFrame => FrameType::PFrame,
            native::FrameType::BFrame => FrameType::BFrame,
        },
        gop_id: frame.gop_id.clone(),
        t: frame.t,
        base_frame: frame.base_frame_id.map(|id| FrameRef {
            mind: mind_out(&frame.frame_ref.mind),
            id,
        }),
        content: frame.content.clone(),
        text: hive_mind_core::recall::display_text(&frame.content, None),
        importance: importance_out(frame.importance),
        source: source_out(frame.source),
        access_count: frame.access_count,
        created_at: boundary::millis(&frame.created_at),
        inserted_at: boundary::millis(&frame.inserted_at),
        last_accessed: frame.last_accessed.as_deref().map(boundary::millis),
        content_hash: frame.content_hash.clone(),
        metadata: boundary::metadata(&frame.content, &frame.metadata),
        valid_to: frame.valid_to.as_deref().map(boundary::millis),
        superseded_by: frame.superseded_by.map(|id| FrameRef {
            mind: mind_out(&frame.frame_ref.mind),
            id,
        }),
        status: match frame.status {
            native::MemoryStatus::Active => MemoryStatus::Active,
            native::MemoryStatus::Archived => MemoryStatus::Archived,
        },
        pinned: frame.pinned,
        tags: frame.tags.clone(),
        merged_into: frame.merged_into.map(|id| FrameRef {
            mind: mind_out(&frame.frame_ref.mind),
            id,
        }),
        released: frame.released_at.is_some(),
        screening: frame
            .screening
            .as_ref()
            .map(|screening| crate::hive::mind::types::Screening {
                score: screening.score,
                detector: screening.detector.clone(),
                reasons: screening.reasons.clone(),
                quarantined: screening.quarantined,
            }),
    }
}

fn saved_out(saved: &native::SavedFrame) -> SavedFrame {
    SavedFrame {
        frame: frame_out(&saved.frame),
        duplicate: saved.duplicate,
    }
}

fn filter_in(filter: &SearchFilter) -> Result<native::SearchFilter> {
    Ok(native::SearchFilter {
        minds: filter.minds.iter().map(mind_in).collect::<Result<_>>()?,
        since: filter.since.clone(),
        until: filter.until.clone(),
        content_prefix: filter.content_prefix.clone(),
        min_importance: filter.min_importance.map(importance_in),
    })
}

fn searches_in(searches: &[FilteredSearch]) -> Result<Vec<(native::SearchFilter, u32)>> {
    searches
        .iter()
        .map(|search| Ok((filter_in(&search.filter)?, search.limit)))
        .collect()
}

fn hit_out(hit: &native::Hit) -> Hit {
    Hit {
        ref_: ref_out(&hit.frame_ref),
        score: hit.score,
        chunk: hit.chunk,
    }
}

fn entity_out(entity: &native::graph::Entity) -> Entity {
    Entity {
        id: entity.id,
        name: entity.name.clone(),
        entity_type: entity.entity_type.clone(),
        seen_count: entity.seen_count,
    }
}

fn relation_out(relation: &native::graph::Relation) -> Relation {
    Relation {
        id: relation.id,
        relation: relation.relation.clone(),
        strength: relation.strength,
        seen_count: relation.seen_count,
    }
}

// ---- the operations ------------------------------------------------------------

/// Save a frame (its mind created on first write).
pub fn save_frame(frame: NewFrame) -> Result<SavedFrame> {
    with_minds(|minds| Ok(saved_out(&minds.save_frame(frame)?)))
}

/// Save frames to one mind in one transaction.
pub fn save_frames(mind: &Mind, frames: Vec<NewFrame>) -> Result<Vec<SavedFrame>> {
    let target = mind_in(mind)?;
    let mut native_frames = Vec::with_capacity(frames.len());
    for frame in frames {
        if frame.mind != target {
            return Err(StoreError::InvalidInput(format!(
                "save-frames to {target} got a frame for {}",
                frame.mind
            )));
        }
        native_frames.push(frame);
    }
    with_minds(|minds| {
        Ok(minds
            .save_frames(&target, native_frames)?
            .iter()
            .map(saved_out)
            .collect())
    })
}

/// Set a frame's importance.
pub fn set_importance(frame_ref: &FrameRef, importance: Importance) -> Result<Frame> {
    read(&frame_ref.mind, |store| {
        Ok(frame_out(
            &store.set_importance(frame_ref.id, importance_in(importance))?,
        ))
    })
}

/// A frame's stored metadata (a JSON object), for a write that keeps it.
pub fn stored_metadata(frame_ref: &FrameRef) -> Result<String> {
    let id = frame_ref.id;
    read(&frame_ref.mind, |store| {
        store
            .get_frames(&[id])?
            .pop()
            .map(|frame| frame.metadata)
            .ok_or_else(|| StoreError::NotFound(format!("frame {id}")))
    })
}

/// Correct a frame: the new version, then the old one closed.
pub fn correct_frame(frame_ref: &FrameRef, new: NewFrame) -> Result<(Frame, Frame)> {
    read(&frame_ref.mind, |store| {
        let corrected = store.correct_frame(frame_ref.id, new)?;
        Ok((
            frame_out(&corrected.saved.frame),
            frame_out(&corrected.replaced),
        ))
    })
}

/// The versions of a frame, oldest first.
pub fn history(frame_ref: &FrameRef) -> Result<Vec<Frame>> {
    read(&frame_ref.mind, |store| {
        Ok(store.history(frame_ref.id)?.iter().map(frame_out).collect())
    })
}

/// Frames by reference (missing ones left out).
pub fn get_frames(refs: &[FrameRef]) -> Result<Vec<Frame>> {
    let refs = refs.iter().map(ref_in).collect::<Result<Vec<_>>>()?;
    with_minds(|minds| Ok(minds.get_frames(&refs)?.iter().map(frame_out).collect()))
}

/// Record that recall returned these frames.
pub fn touch_frames(refs: &[FrameRef]) -> Result<()> {
    let refs = refs.iter().map(ref_in).collect::<Result<Vec<_>>>()?;
    with_minds(|minds| minds.touch_frames(&refs))
}

/// Link a frame to related frames of its mind.
pub fn link_frames(frame: &FrameRef, related: &[FrameLink]) -> Result<()> {
    let links: Vec<(u64, f64)> = related
        .iter()
        .map(|link| (link.id, link.similarity))
        .collect();
    read(&frame.mind, |store| store.link_frames(frame.id, &links))
}

/// Put two frames of `mind` on one timeline (`MindStore::join_timeline`):
/// the later statement current, the earlier closed.
pub fn join_timeline(mind: &Mind, a: u64, b: u64) -> Result<bool> {
    read(mind, |store| store.join_timeline(a, b))
}

/// The stored vectors of frames of `mind`.
pub fn frame_vectors(mind: &Mind, ids: &[u64]) -> Result<Vec<(u64, Vec<f32>)>> {
    read(mind, |store| store.frame_vectors(ids))
}

/// Vector search over the filter's minds.
pub fn search_vector(embedding: &[f32], filter: &SearchFilter, limit: u32) -> Result<Vec<Hit>> {
    let filter = filter_in(filter)?;
    with_minds(|minds| {
        Ok(minds
            .search_vector(embedding, &filter, limit)?
            .iter()
            .map(hit_out)
            .collect())
    })
}

/// Several full-text searches with one query.
pub fn search_text_many(query: &str, searches: &[FilteredSearch]) -> Result<Vec<Vec<Hit>>> {
    let searches = searches_in(searches)?;
    with_minds(|minds| {
        Ok(minds
            .search_text_many(query, &searches)?
            .iter()
            .map(|hits| hits.iter().map(hit_out).collect())
            .collect())
    })
}

/// Several vector searches with one query vector.
pub fn search_vector_many(embedding: &[f32], searches: &[FilteredSearch]) -> Result<Vec<Vec<Hit>>> {
    let searches = searches_in(searches)?;
    with_minds(|minds| {
        Ok(minds
            .search_vector_many(embedding, &searches)?
            .iter()
            .map(|hits| hits.iter().map(hit_out).collect())
            .collect())
    })
}

/// Frames matching a filter, newest (or oldest) first.
pub fn list_frames(filter: &SearchFilter, oldest_first: bool, limit: u32) -> Result<Vec<Frame>> {
    let filter = filter_in(filter)?;
    with_minds(|minds| {
        Ok(minds
            .list_frames(&filter, oldest_first, limit)?
            .iter()
            .map(frame_out)
            .collect())
    })
}

/// Upsert an entity by canonical name and type, linked to frames.
pub fn upsert_entity(mind: &Mind, name: &str, entity_type: &str, frames: &[u64]) -> Result<Entity> {
    write(mind, |store| {
        Ok(entity_out(&store.upsert_entity(
            name,
            entity_type,
            frames,
        )?))
    })
}

/// Write many frames' graphs in one transaction (the store's
/// `link_graphs`): entities and relations counted.
pub fn link_graphs(mind: &Mind, graphs: &[native::graph::FrameGraph]) -> Result<(u32, u32)> {
    write(mind, |store| store.link_graphs(graphs))
}

/// Active entities of exactly this canonical name.
pub fn find_entities(mind: &Mind, name: &str) -> Result<Vec<Entity>> {
    read(mind, |store| {
        Ok(store.find_entities(name)?.iter().map(entity_out).collect())
    })
}

/// Entities whose names match the text.
pub fn search_entities(mind: &Mind, text: &str, limit: u32) -> Result<Vec<Entity>> {
    read(mind, |store| {
        Ok(store
            .search_entities(text, limit)?
            .iter()
            .map(entity_out)
            .collect())
    })
}

/// Relate two entities (or strengthen the relation).
pub fn relate(
    mind: &Mind,
    subject: u64,
    relation: &str,
    object: u64,
    strength: f64,
) -> Result<Relation> {
    write(mind, |store| {
        Ok(relation_out(
            &store.relate(subject, relation, object, strength)?,
        ))
    })
}

/// Frames within `max_depth` hops of the entities.
pub fn frame_distances(mind: &Mind, entities: &[u64], max_depth: u32) -> Result<Vec<(u64, u32)>> {
    read(mind, |store| store.frame_distances(entities, max_depth))
}

/// Make sure the session exists (titled, when it has no title yet).
pub fn ensure_session(
    mind: &Mind,
    gop_id: &str,
    project: Option<&str>,
    title: Option<&str>,
) -> Result<native::sessions::Session> {
    write(mind, |store| store.ensure_session(gop_id, project, title))
}

/// The mind's identity.
pub fn get_identity(mind: &Mind) -> Result<Option<native::identity::Identity>> {
    read(mind, |store| store.identity())
}

/// The mind's live awareness items.
pub fn list_awareness(mind: &Mind) -> Result<Vec<native::awareness::AwarenessItem>> {
    read(mind, |store| store.awareness())
}

/// A store error as the WIT `storage-error` case of the same meaning.
pub fn storage_error(error: &StoreError) -> crate::hive::mind::types::StorageError {
    use crate::hive::mind::types::{DimensionMismatch, StorageError};
    match error {
        StoreError::MindNotFound(mind) => StorageError::MindNotFound(mind.clone()),
        StoreError::NotFound(what) => StorageError::NotFound(what.clone()),
        StoreError::InvalidInput(why) => StorageError::InvalidArgument(why.clone()),
        StoreError::DimensionMismatch { expected, actual } => {
            StorageError::DimensionMismatch(DimensionMismatch {
                expected: *expected,
                actual: *actual,
            })
        }
        StoreError::NoEmbedder => StorageError::NoEmbedder,
        StoreError::Embedder(why) => StorageError::Embedder(why.clone()),
        StoreError::AwarenessFull(live) => {
            StorageError::AwarenessFull(u32::try_from(*live).unwrap_or(u32::MAX))
        }
        StoreError::Referenced { dependents, .. } => StorageError::Referenced(*dependents),
        StoreError::NewerSchema { found, .. } => StorageError::NewerSchema(*found),
        StoreError::Corrupt { .. } => StorageError::Corrupt(error.to_string()),
        StoreError::Sql(_) => match error.sql_error() {
            Some(SqlError::Busy) => StorageError::Busy,
            Some(SqlError::AccessDenied) => StorageError::AccessDenied,
            Some(SqlError::DatabaseFull) => StorageError::Full,
            _ => StorageError::Sql(error.to_string()),
        },
    }
}
