//! # The mind store: the engine's data model over a generic SQL capability
//!
//! One SQLite database per mind holds the frame log, its full-text and
//! vector indexes, the knowledge graph, identity, awareness and sessions.
//! This crate owns all of it — the schema and its migrations, every query,
//! the content-hash dedup, the in-memory vector index — written against the
//! [`sql`] traits: one connection per database name, statements with typed
//! values. The engine component implements those traits over the WIT
//! `hive:mind/sqlite` import, so any host that can hand it SQLite
//! connections (with FTS5) gets the whole store; native tests implement them
//! over rusqlite. It stores and runs indexed queries; it does not rank, fuse
//! or score (that is `hive-mind-core`'s).
//!
//! ## Minds
//!
//! The `personal` database always exists; a workspace mind is the database
//! `workspace/<id>`, created by its first write, opened lazily and cached in
//! [`Minds`]. Reading one that does not exist is [`StoreError::MindNotFound`].
//! Frame ids come from each database's own AUTOINCREMENT, so they collide
//! across minds: every id that leaves the store is a [`FrameRef`] naming its
//! mind.
//!
//! ## The invariants
//!
//! 1. **One transaction per write.** A frame, its FTS row, its vector and its
//!    chunks (with their vectors) are written together or not at all. FTS is
//!    kept by triggers on `memory_frames`, so no write path can skip it; the
//!    vector is required on every save, so there is no way to insert a frame
//!    that search cannot see. [`check`] verifies frames = FTS rows = frame
//!    vectors and chunks = expected chunks = chunk vectors.
//! 2. **One vocabulary.** Importance, source and frame type are the core's
//!    enums; the CHECK constraints are generated from their `ALL` lists.
//! 3. **One content hash.** [`hive_mind_core::content_hash`] (the body
//!    without its `[hm …]` prefix, trimmed, SHA-256); a save whose hash
//!    exists touches and returns the existing frame, flagged `duplicate`.
//! 4. **Validate, then write.** Bad timestamps, unknown vocabulary, wrong
//!    vector dimensions, missing minds, foreign or newer databases: typed
//!    errors, nothing written.
//! 5. **Append-only where the law says so.** `install_audit`,
//!    `ai_interactions` and the erasure log `memory_erasures` refuse UPDATE,
//!    DELETE and replacement (triggers).
//! 6. **Forgotten means gone.** An erasure removes every copy of a frame's
//!    text the mind holds and reclaims the pages ([`erasure`]).
//!
//! ## Map
//!
//! [`sql`] (the capability and the statement API) · [`schema`] (versions and
//! migrations) · [`meta`] (embedder fingerprint, vector tables) · [`frames`]
//! (I/P/B writes, dedup, update, deprecate, delete, reindex) · [`erasure`]
//! (forgetting for real, and the erasure log) · [`portable`] (export to JSON
//! Lines, restore into an empty mind) · [`validity`] (corrections and
//! history) · [`slots`] (the newer statement of a slot replacing the
//! older) · [`clock`] (the stored time format, now) · [`search`]
//! (BM25, KNN, listings) · [`vector_index`] (the in-memory int8 KNN index
//! that vector search runs on) · [`graph`] (entities, relations, BFS,
//! dedupe) · [`harvest`] (imported sources and items, one transaction per
//! item) · [`links`] (related frames) · [`mentions`] (the periods a
//! frame's text names, which a date filter also reads) · [`identity`], [`awareness`],
//! [`sessions`], [`audit`] · [`check`] (status and consistency).

// No unchecked indexing or slicing outside tests: `.get()` and iterators,
// so a bad index is an error or a skipped value, never a panic.
#![deny(clippy::indexing_slicing, clippy::string_slice)]
#![cfg_attr(test, allow(clippy::indexing_slicing, clippy::string_slice))]

pub mod audit;
pub mod awareness;
pub mod check;
pub mod clock;
pub mod decisions;
pub mod derived;
pub mod erasure;
pub mod error;
pub mod frames;
pub mod graph;
pub mod harvest;
pub mod identity;
pub mod links;
pub mod mentions;
pub mod meta;
pub mod portable;
pub mod review;
pub mod schema;
pub mod search;
pub mod sessions;
pub mod slots;
pub mod sql;
pub mod types;
pub mod validity;
pub mod vector_index;
pub mod vectors;
pub mod wiki;

use std::collections::BTreeMap;

use hive_mind_core::Chunk;

use sql::{Connection, Databases, SqlError};

pub use error::{StoreError, StoreResult};
pub use hive_mind_core::ChunkPlan;
pub use meta::VectorState;
pub use types::{
    BranchContent, ChunkVector, EmbedderFingerprint, Frame, FrameRef, FrameScreening, FrameType,
    Hit, MemoryStatus, Mind, NewFrame, SavedFrame, SearchFilter,
};
pub use vectors::{EmbedOutcome, FakeHashVectorSource, VectorSource};

/// Screen a text that is pasted into every prompt (the identity, an
/// awareness item) and refuse it when the injection detector finds it
/// hostile. Unlike a memory, such a text has no recall step to be left out
/// of, so it cannot be quarantined; refusing it tells the writer at once,
/// and nothing already stored changes. `what` names the text in the error.
pub fn screen_or_refuse(what: &str, text: &str) -> StoreResult<()> {
    if text.trim().is_empty() {
        return Ok(());
    }
    let screening = hive_mind_core::screen(text);
    if screening.hostile {
        return Err(StoreError::InvalidInput(format!(
            "{what} looks like a prompt injection to the detector (score {:.3} ≥ {:.3}; {}), so it was not written; `hive-mind scan` explains a verdict",
            screening.score,
            screening.threshold,
            screening.reasons.join(", ")
        )));
    }
    Ok(())
}

/// The chunks a frame's content must be stored with under `plan` (a mind's
/// is [`MindStore::chunk_plan`]): [`ChunkPlan::chunks`], the same plan the
/// engine embeds on a save.
pub fn plan_chunks(content: &str, plan: ChunkPlan) -> Vec<Chunk> {
    plan.chunks(content)
}

/// The database a mind lives in: `personal` or `workspace/<id>`.
pub fn database_name(mind: &Mind) -> String {
    match mind {
        Mind::Personal => "personal".to_string(),
        Mind::Workspace(id) => format!("workspace/{id}"),
    }
}

/// The mind a database name holds, if it names one.
pub fn mind_of_database(name: &str) -> Option<Mind> {
    match name {
        "personal" => Some(Mind::Personal),
        _ => name
            .strip_prefix("workspace/")
            .and_then(|id| Mind::workspace(id).ok()),
    }
}

/// How the store is opened.
#[derive(Debug, Clone, Default)]
pub struct StoreConfig {
    /// The active embedder, if one is configured: minds are checked against
    /// it when opened (see [`meta`]). Without one, a mind keeps whatever
    /// dimension it has, and a mind with no vectors yet cannot take saves.
    pub embedder: Option<EmbedderFingerprint>,
    /// The token window the active embedder reads (its `max-tokens`; 0 when
    /// unknown): the chunk plan of new minds, and the one a mind planned
    /// otherwise is told to `reindex` to ([`meta`]).
    pub max_tokens: u32,
}

impl StoreConfig {
    /// The chunk plan for the active embedder's window.
    pub fn chunk_plan(&self) -> ChunkPlan {
        ChunkPlan::for_window(self.max_tokens)
    }
}

/// One open mind: a connection to its database.
#[derive(Debug)]
pub struct MindStore {
    conn: Connection,
    mind: Mind,
    vectors: VectorState,
    /// The plan the mind's chunks follow (recorded in its `meta`).
    chunk_plan: ChunkPlan,
    /// The plan of the active embedder, when one is configured.
    active_plan: Option<ChunkPlan>,
    /// The active embedder, when one is configured.
    active_embedder: Option<EmbedderFingerprint>,
    /// The in-memory nearest-neighbour index, loaded by the first vector
    /// search and kept up to date with the database ([`vector_index`]).
    index: std::sync::Mutex<Option<vector_index::VectorIndex>>,
    /// Full-text document counts by word, valid at a change-log position
    /// ([`search`]).
    document_counts: std::sync::Mutex<(i64, std::collections::HashMap<String, u64>)>,
    /// A reindex in progress ([`MindStore::reindex_step`]).
    reindex: Option<frames::ReindexJob>,
}

impl MindStore {
    /// Open (or, with `create`, create) the mind's database, migrate it to
    /// the current schema and reconcile it with the active embedder.
    pub fn open(
        databases: &dyn Databases,
        mind: Mind,
        create: bool,
        config: &StoreConfig,
    ) -> StoreResult<MindStore> {
        let name = database_name(&mind);
        let db = databases.open(&name, create).map_err(|error| match error {
            SqlError::NoSuchDatabase => StoreError::MindNotFound(mind.to_string()),
            other => schema::not_a_mind(&name, sql::Error::Sql(other)),
        })?;
        let conn = schema::open(Connection::new(db, name))?;
        let vectors = meta::reconcile(&conn, config.embedder.as_ref())?;
        let active_plan = config.embedder.as_ref().map(|_| config.chunk_plan());
        let chunk_plan =
            meta::reconcile_chunk_plan(&conn, active_plan, config.chunk_plan(), vectors)?;
        Ok(MindStore {
            conn,
            mind,
            vectors,
            chunk_plan,
            active_plan,
            active_embedder: config.embedder.clone(),
            index: std::sync::Mutex::new(None),
            document_counts: std::sync::Mutex::new((-1, std::collections::HashMap::new())),
            reindex: None,
        })
    }

    /// Which mind this is.
    pub fn mind(&self) -> &Mind {
        &self.mind
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        self.conn.name()
    }

    /// Where the mind stands with vectors.
    pub fn vector_state(&self) -> VectorState {
        self.vectors
    }

    /// The plan the mind's chunks follow: every save must offer exactly
    /// [`plan_chunks`] under it, and `check` expects it.
    pub fn chunk_plan(&self) -> ChunkPlan {
        self.chunk_plan
    }

    /// What the mind's operator should hear about it, each ending in what
    /// to run: its vectors made by another model than the active embedder
    /// (vector search is off meanwhile, see [`meta`]), its chunks planned
    /// for another window than the active embedder reads.
    pub fn notes(&self) -> StoreResult<Vec<String>> {
        let mut notes = Vec::new();
        if let (VectorState::Foreign { .. }, Some(active)) = (self.vectors, &self.active_embedder) {
            let made_by = meta::read_fingerprint(&self.conn)?
                .map_or_else(|| "another model".to_string(), |stored| stored.to_string());
            notes.push(format!(
                "{}: its vectors were made by {made_by}, the embedder is {active}; vector \
                 search is off (keywords only) until you run `hive-mind reindex`",
                self.mind
            ));
        }
        match self.active_plan {
            Some(active) if active != self.chunk_plan => notes.push(format!(
                "chunks planned for {}, the embedder reads {active}: run `hive-mind reindex`",
                self.chunk_plan
            )),
            _ => {}
        }
        Ok(notes)
    }

    /// The status note for memories the active injection detector has not
    /// screened (written before it existed, or judged by an older version),
    /// with the remedy; `None` when every memory is screened. Not one of
    /// [`MindStore::notes`]: it is a count over every frame (for `status`,
    /// never on recall's path), and nothing is inconsistent meanwhile
    /// (recall's block scan reads the unscreened memories), so `check`
    /// does not report it as a problem.
    pub fn screening_note(&self) -> StoreResult<Option<String>> {
        let detector = hive_mind_core::detector::detector_name();
        let unscreened: u64 = self.conn.query_row(
            "SELECT count(*) FROM memory_frames
             WHERE screen_detector IS NULL OR screen_detector <> ?1",
            [&detector],
            |row| row.get(0),
        )?;
        Ok((unscreened > 0).then(|| {
            format!(
                "{}: {unscreened} memories were not screened by this engine's injection detector {detector} (written before it existed, or judged by an older version): run `hive-mind reindex` to screen them",
                self.mind
            )
        }))
    }

    /// The relevance floor calibrated for the active embedder, if this
    /// mind records one for it ([`meta::read_floor_calibration`]).
    pub fn floor_calibration(&self) -> StoreResult<Option<meta::FloorCalibration>> {
        match &self.active_embedder {
            Some(active) => meta::read_floor_calibration(&self.conn, active),
            None => Ok(None),
        }
    }

    /// Record the relevance floor calibrated for the active embedder (a
    /// mind opened without one records nothing).
    pub fn record_floor_calibration(&self, floors: meta::FloorCalibration) -> StoreResult<()> {
        match &self.active_embedder {
            Some(active) => meta::write_floor_calibration(&self.conn, active, floors),
            None => Ok(()),
        }
    }

    /// A frame reference in this mind.
    pub fn frame_ref(&self, id: u64) -> FrameRef {
        FrameRef {
            mind: self.mind.clone(),
            id,
        }
    }

    /// The raw connection, for tests and diagnostics only (bypasses every
    /// invariant).
    #[doc(hidden)]
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

/// The set of minds of one host: the personal mind, always open, and the
/// workspace minds, opened on first use and cached.
pub struct Minds {
    databases: Box<dyn Databases>,
    config: StoreConfig,
    personal: MindStore,
    workspaces: BTreeMap<String, MindStore>,
}

impl std::fmt::Debug for Minds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Minds")
            .field("personal", &self.personal)
            .field("workspaces", &self.workspaces.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Minds {
    /// Open the minds `databases` holds (creating the personal mind as
    /// needed).
    pub fn open(databases: Box<dyn Databases>, config: StoreConfig) -> StoreResult<Minds> {
        let personal = MindStore::open(databases.as_ref(), Mind::Personal, true, &config)?;
        Ok(Minds {
            databases,
            config,
            personal,
            workspaces: BTreeMap::new(),
        })
    }

    /// The configuration the minds were opened with.
    pub fn config(&self) -> &StoreConfig {
        &self.config
    }

    /// An existing mind; [`StoreError::MindNotFound`] for a workspace never
    /// written to.
    pub fn mind(&mut self, mind: &Mind) -> StoreResult<&mut MindStore> {
        self.open_mind(mind, false)
    }

    /// A mind, creating a workspace mind's database when it does not exist
    /// yet.
    pub fn mind_or_create(&mut self, mind: &Mind) -> StoreResult<&mut MindStore> {
        self.open_mind(mind, true)
    }

    fn open_mind(&mut self, mind: &Mind, create: bool) -> StoreResult<&mut MindStore> {
        let id = match mind {
            Mind::Personal => return Ok(&mut self.personal),
            Mind::Workspace(id) => id,
        };
        // Re-validate: a `Mind` may have been built without `Mind::workspace`.
        Mind::workspace(id)?;
        if !self.workspaces.contains_key(id) {
            let store =
                MindStore::open(self.databases.as_ref(), mind.clone(), create, &self.config)?;
            self.workspaces.insert(id.clone(), store);
        }
        self.workspaces
            .get_mut(id)
            .ok_or_else(|| StoreError::MindNotFound(mind.to_string()))
    }

    /// Delete workspace mind `id` for good: its database and journal files
    /// (the capability's `remove-database`), after the connection this
    /// store holds is closed. Returns the mind's status as it was, which
    /// names what went. The personal mind cannot be deleted
    /// ([`StoreError::InvalidInput`]); a workspace without a database is
    /// [`StoreError::MindNotFound`].
    pub fn delete_workspace(&mut self, id: &str) -> StoreResult<check::MindStatus> {
        let mind = Mind::workspace(id)?;
        let status = self.mind(&mind)?.status()?;
        // Close the connection (dropping the store) before the files go.
        self.workspaces.remove(id);
        self.databases
            .remove(&format!("workspace/{id}"))
            .map_err(|error| StoreError::Sql(sql::Error::Sql(error)))?;
        Ok(status)
    }

    /// Every mind with a database: personal first, then the workspaces by id.
    pub fn list(&self) -> StoreResult<Vec<Mind>> {
        let mut minds = vec![Mind::Personal];
        let mut ids: Vec<Mind> = self
            .databases
            .list()
            .map_err(|error| StoreError::Sql(sql::Error::Sql(error)))?
            .iter()
            .filter_map(|name| mind_of_database(name))
            .filter(|mind| *mind != Mind::Personal)
            .collect();
        ids.sort();
        ids.dedup();
        minds.extend(ids);
        Ok(minds)
    }
    /// The minds a filter names (the personal mind when it names none).
    fn filter_minds(filter: &SearchFilter) -> Vec<Mind> {
        if filter.minds.is_empty() {
            vec![Mind::Personal]
        } else {
            filter.minds.clone()
        }
    }

    /// The chunk plan a save to `mind` must follow: the mind's own, or, for
    /// a workspace mind not created yet, the one it will be created with.
    pub fn chunk_plan(&mut self, mind: &Mind) -> StoreResult<ChunkPlan> {
        match self.mind(mind) {
            Ok(store) => Ok(store.chunk_plan()),
            Err(StoreError::MindNotFound(_)) => Ok(self.config.chunk_plan()),
            Err(error) => Err(error),
        }
    }

    /// Save a frame to its mind (creating a workspace mind on first write).
    pub fn save_frame(&mut self, frame: NewFrame) -> StoreResult<SavedFrame> {
        let mind = frame.mind.clone();
        self.mind_or_create(&mind)?.save_frame(frame)
    }

    /// Save frames to one mind in one transaction.
    pub fn save_frames(
        &mut self,
        mind: &Mind,
        frames: Vec<NewFrame>,
    ) -> StoreResult<Vec<SavedFrame>> {
        self.mind_or_create(mind)?.save_frames(frames)
    }

    /// Fetch frames by reference, across minds; missing ones are left out, in
    /// the order asked.
    pub fn get_frames(&mut self, refs: &[FrameRef]) -> StoreResult<Vec<Frame>> {
        let mut by_mind: BTreeMap<Mind, Vec<u64>> = BTreeMap::new();
        for frame_ref in refs {
            by_mind
                .entry(frame_ref.mind.clone())
                .or_default()
                .push(frame_ref.id);
        }
        let mut found: std::collections::HashMap<FrameRef, Frame> =
            std::collections::HashMap::new();
        for (mind, ids) in by_mind {
            for frame in self.mind(&mind)?.get_frames(&ids)? {
                found.insert(frame.frame_ref.clone(), frame);
            }
        }
        Ok(refs.iter().filter_map(|r| found.remove(r)).collect())
    }

    /// Record that recall returned these frames.
    pub fn touch_frames(&mut self, refs: &[FrameRef]) -> StoreResult<()> {
        let mut by_mind: BTreeMap<Mind, Vec<u64>> = BTreeMap::new();
        for frame_ref in refs {
            by_mind
                .entry(frame_ref.mind.clone())
                .or_default()
                .push(frame_ref.id);
        }
        for (mind, ids) in by_mind {
            self.mind(&mind)?.touch_frames(&ids)?;
        }
        Ok(())
    }

    /// Full-text search over the filter's minds. Each mind's hits carry that
    /// mind's own BM25 score; the lists are merged by score and cut to
    /// `limit`.
    pub fn search_text(
        &mut self,
        query: &str,
        filter: &SearchFilter,
        limit: u32,
    ) -> StoreResult<Vec<Hit>> {
        let mut hits = Vec::new();
        for mind in Self::filter_minds(filter) {
            hits.extend(self.mind(&mind)?.search_text(query, filter, limit)?);
        }
        Ok(search::merge_hits(hits, limit))
    }

    /// Vector search over the filter's minds, merged by similarity.
    pub fn search_vector(
        &mut self,
        embedding: &[f32],
        filter: &SearchFilter,
        limit: u32,
    ) -> StoreResult<Vec<Hit>> {
        let mut hits = Vec::new();
        for mind in Self::filter_minds(filter) {
            hits.extend(self.mind(&mind)?.search_vector(embedding, filter, limit)?);
        }
        Ok(search::merge_hits(hits, limit))
    }

    /// Several full-text searches with one query, each over its filter's
    /// minds; each mind evaluates the query once for the searches that
    /// include it ([`MindStore::search_text_many`]).
    pub fn search_text_many(
        &mut self,
        query: &str,
        searches: &[(SearchFilter, u32)],
    ) -> StoreResult<Vec<Vec<Hit>>> {
        self.search_many(searches, |store, group| {
            store.search_text_many(query, group)
        })
    }

    /// Several vector searches with one query vector, each over its
    /// filter's minds; one index scan per mind
    /// ([`MindStore::search_vector_many`]).
    pub fn search_vector_many(
        &mut self,
        embedding: &[f32],
        searches: &[(SearchFilter, u32)],
    ) -> StoreResult<Vec<Vec<Hit>>> {
        self.search_many(searches, |store, group| {
            store.search_vector_many(embedding, group)
        })
    }

    /// Run `run` once per mind on the searches naming it, and merge each
    /// search's hits over its minds.
    fn search_many(
        &mut self,
        searches: &[(SearchFilter, u32)],
        mut run: impl FnMut(&MindStore, &[(&SearchFilter, u32)]) -> StoreResult<Vec<Vec<Hit>>>,
    ) -> StoreResult<Vec<Vec<Hit>>> {
        let mut minds: Vec<Mind> = Vec::new();
        for (filter, _) in searches {
            for mind in Self::filter_minds(filter) {
                if !minds.contains(&mind) {
                    minds.push(mind);
                }
            }
        }
        let mut found: Vec<Vec<Hit>> = vec![Vec::new(); searches.len()];
        for mind in minds {
            let (members, group): (Vec<usize>, Vec<(&SearchFilter, u32)>) = searches
                .iter()
                .enumerate()
                .filter(|(_, (filter, _))| Self::filter_minds(filter).contains(&mind))
                .map(|(i, (filter, limit))| (i, (filter, *limit)))
                .unzip();
            let store = self.mind(&mind)?;
            for (i, hits) in members.into_iter().zip(run(store, &group)?) {
                if let Some(found) = found.get_mut(i) {
                    found.extend(hits);
                }
            }
        }
        Ok(found
            .into_iter()
            .zip(searches)
            .map(|(hits, (_, limit))| search::merge_hits(hits, *limit))
            .collect())
    }

    /// Frames matching a filter across its minds, newest (or oldest) first by
    /// event time.
    pub fn list_frames(
        &mut self,
        filter: &SearchFilter,
        oldest_first: bool,
        limit: u32,
    ) -> StoreResult<Vec<Frame>> {
        let mut frames = Vec::new();
        for mind in Self::filter_minds(filter) {
            frames.extend(self.mind(&mind)?.list_frames(filter, oldest_first, limit)?);
        }
        frames.sort_by(|a, b| {
            let order = a
                .created_at
                .cmp(&b.created_at)
                .then(a.frame_ref.cmp(&b.frame_ref));
            if oldest_first { order } else { order.reverse() }
        });
        frames.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(frames)
    }

    /// Re-embed every frame and chunk of every mind with `source`, rebuilding
    /// the vector tables at its dimension. `progress` gets
    /// `(mind, done, total)` after each batch.
    pub fn reindex(
        &mut self,
        source: &dyn VectorSource,
        progress: &mut dyn FnMut(&Mind, u64, u64),
    ) -> StoreResult<Vec<(Mind, u64)>> {
        let mut done = Vec::new();
        for mind in self.list()? {
            let store = self.mind(&mind)?;
            let count = store.reindex(source, &mut |finished, total| {
                progress(&mind, finished, total)
            })?;
            done.push((mind, count));
        }
        self.config.embedder = Some(source.fingerprint());
        self.config.max_tokens = source.max_tokens();
        Ok(done)
    }
}
