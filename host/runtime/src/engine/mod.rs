//! # The engine component, and the capabilities the host lends it
//!
//! The `hive:mind` **engine** world imports five capabilities — `sqlite`
//! and `embedder` (required), `reranker`, `llm` and `fetch` (which may
//! answer `unavailable`) — and exports `logic`, `memory`, `admin` and
//! `harvest`. All of
//! hive-mind's logic and its data model (schema, migrations, queries, the
//! vector index) live in the component; this module only:
//!
//! 1. generates the host side of the world's bindings
//!    ([`wasmtime::component::bindgen!`] over `wit/`),
//! 2. implements each import over a native backend — the data directory's
//!    SQLite databases for `sqlite` ([`sqlite_import`], over
//!    [`hive_mind_sqlite`]), the active [`hive_mind_models::embedder::Embedder`], the
//!    configured [`hive_mind_models::reranker::Reranker`], the configured language
//!    model and the guarded fetch of [`hive_mind_outbound`]
//!    ([`capabilities`]),
//! 3. instantiates the component in the same empty WASI sandbox as the logic
//!    component ([`crate::runtime::sandbox_builder`]) and calls its
//!    `memory` and `admin` exports ([`EngineRuntime`]).
//!
//! No retrieval decision is made on this side of the boundary, and the host
//! links none of the engine's logic.

pub mod capabilities;
pub mod convert;
pub mod sqlite_import;
pub mod wit_names;

use std::sync::Arc;

use wasmtime::Store;
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use hive_mind_outbound::OutboundConfig;
use hive_mind_outbound::config::{ConfigFile, process_env};
use hive_mind_outbound::fetch::Fetcher;
use hive_mind_outbound::llm::LanguageModel;

use crate::HostError;
use crate::limits::{CallKind, GuestLimiter, Limits, TrapKind};
use crate::runtime;
use hive_mind_models::embedder::Embedder;
use hive_mind_models::reranker::Reranker;

/// The generated bindings of the `engine` world.
pub mod bindings {
    #![allow(missing_docs, clippy::all)]
    wasmtime::component::bindgen!({
        world: "engine",
        path: "../../wit",
        with: {
            "hive:mind/sqlite.connection": hive_mind_sqlite::SqliteConnection,
            "hive:mind/embedder.pending-embedding": super::capabilities::PendingEmbedding,
        },
    });
}

pub use bindings::exports::hive::mind::admin as wit_admin;
pub use bindings::exports::hive::mind::harvest as wit_harvest;
pub use bindings::exports::hive::mind::memory as wit_memory;
pub use bindings::exports::hive::mind::review as wit_review;
pub use bindings::hive::mind::types as wit_types;

/// What the host lends the engine: the minds, the models, the network, and
/// the limits it runs under. Cloned into each fresh instance after a trap
/// (every field is a handle or a plain value).
#[derive(Clone)]
pub struct Capabilities {
    /// The data directory's databases (the `sqlite` import).
    pub data_dir: hive_mind_sqlite::DataDir,
    /// The active embedder, or why there is none (the `embedder` import).
    pub embedder: Result<Arc<dyn Embedder>, String>,
    /// The reranker; [`hive_mind_models::reranker::Unconfigured`] when none is set up.
    pub reranker: Arc<dyn Reranker>,
    /// The language model and its provider's name, or why there is none
    /// (the `llm` import).
    pub llm: Result<(Arc<dyn LanguageModel>, String), String>,
    /// The guarded HTTP client, or why there is none (the `fetch` import).
    pub fetch: Result<Arc<Fetcher>, String>,
    /// What one call may use ([`Limits::default`] unless set with
    /// [`Capabilities::with_limits`]).
    pub limits: Limits,
}

impl Capabilities {
    /// Storage, an embedder and a reranker; no language model and no web
    /// access (add them with [`Capabilities::with_llm`] and
    /// [`Capabilities::with_fetch`]).
    pub fn new(
        data_dir: hive_mind_sqlite::DataDir,
        embedder: Result<Arc<dyn Embedder>, String>,
        reranker: Arc<dyn Reranker>,
    ) -> Capabilities {
        Capabilities {
            data_dir,
            embedder,
            reranker,
            llm: Err(capabilities::NO_LLM.to_string()),
            fetch: Err(capabilities::NO_FETCH.to_string()),
            limits: Limits::default(),
        }
    }

    /// Under other limits.
    pub fn with_limits(mut self, limits: Limits) -> Capabilities {
        self.limits = limits;
        self
    }

    /// With a language model (`provider` names it in the audit of calls).
    pub fn with_llm(mut self, model: Arc<dyn LanguageModel>, provider: &str) -> Capabilities {
        self.llm = Ok((model, provider.to_string()));
        self
    }

    /// With guarded web access.
    pub fn with_fetch(mut self, fetcher: Fetcher) -> Capabilities {
        self.fetch = Ok(Arc::new(fetcher));
        self
    }
}

/// Time spent inside the host's imports, accumulated across calls (the
/// recall benchmark reads it to split the guest's stages into the engine's
/// own time and the host's SQLite and model time).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ImportTimings {
    /// `sqlite` statements (every query and write the engine ran).
    pub sql: std::time::Duration,
    /// `embedder.embed`.
    pub embed: std::time::Duration,
    /// `reranker.score`.
    pub rerank: std::time::Duration,
    /// `llm.complete` and `llm.complete-many`.
    pub llm: std::time::Duration,
}

/// The state of a [`Store`] running the engine component.
pub struct EngineState {
    wasi: WasiCtx,
    table: ResourceTable,
    /// The capabilities the imports are served from.
    pub capabilities: Capabilities,
    /// Time spent in the imports since the last [`EngineRuntime::take_timings`].
    pub timings: ImportTimings,
    /// Texts the embedder cut to its window since the engine was opened.
    pub truncated_texts: u64,
    /// The thread `start-embed` batches run on (started on first use).
    embed_worker: Option<capabilities::EmbedWorker>,
    /// The memory cap and structural limits of this store.
    limiter: GuestLimiter,
}

impl EngineState {
    /// A fresh state over `capabilities`, carrying the counters of the
    /// instance it replaces.
    fn new(capabilities: Capabilities, timings: ImportTimings, truncated_texts: u64) -> Self {
        EngineState {
            wasi: runtime::sandbox_builder().build(),
            table: ResourceTable::new(),
            limiter: capabilities.limits.limiter(),
            capabilities,
            timings,
            truncated_texts,
            embed_worker: None,
        }
    }
}

impl WasiView for EngineState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// The linker for the engine world: sandboxed WASI plus the four imports.
pub fn linker(engine: &wasmtime::Engine) -> Result<Linker<EngineState>, HostError> {
    let load = |source| HostError::Load {
        name: "engine imports".into(),
        source,
    };
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(load)?;
    bindings::Engine::add_to_linker::<EngineState, HasSelf<EngineState>>(&mut linker, |state| {
        state
    })
    .map_err(load)?;
    Ok(linker)
}

/// A store for `state` with its limits, and the component instantiated in it.
fn instantiate(
    component: &Component,
    linker: &Linker<EngineState>,
    state: EngineState,
) -> Result<(Store<EngineState>, bindings::Engine), HostError> {
    let instantiation_deadline = state.capabilities.limits.deadline_ticks(CallKind::Recall);
    let mut store = Store::new(component.engine(), state);
    store.limiter(|state| &mut state.limiter);
    if let Some(ticks) = instantiation_deadline {
        // Instantiation runs the component's start-up code: give it a
        // deadline too (a store's default one has passed already).
        store.set_epoch_deadline(ticks);
    }
    let bindings =
        bindings::Engine::instantiate(&mut store, component, linker).map_err(|source| {
            HostError::Load {
                name: "engine".into(),
                source,
            }
        })?;
    Ok((store, bindings))
}

/// An instantiated engine component with its capabilities.
///
/// A call that traps (see [`crate::limits`]) leaves the instance unusable;
/// the runtime then drops it — its SQLite connections close, which rolls
/// back an open transaction and releases the write lock — and instantiates
/// a fresh one from the same compiled component, with the same capabilities,
/// for the next call. The trapped call returns [`HostError::Trapped`]
/// naming what stopped it.
pub struct EngineRuntime {
    store: Store<EngineState>,
    bindings: bindings::Engine,
    component: Component,
    linker: Linker<EngineState>,
    /// How many instances this runtime has started (1 + the restarts after
    /// traps): an import job belongs to the instance that started it.
    instance: u64,
}

/// A harvest import job: a resource of the instance that started it (one
/// that trapped takes its jobs with it).
#[derive(Debug, Clone, Copy)]
pub struct ImportJob {
    resource: wasmtime::component::ResourceAny,
    instance: u64,
}

/// Why a memory operation failed: inside the component (its typed error) or
/// around it (a trap, a load failure).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The component answered with an error.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// An `admin` export answered with an error.
    #[error(transparent)]
    Admin(#[from] AdminError),
    /// A `harvest` export answered with an error.
    #[error(transparent)]
    Harvest(#[from] HarvestError),
    /// A `review` export answered with an error.
    #[error(transparent)]
    Review(#[from] ReviewError),
    /// The component could not be loaded, or trapped.
    #[error(transparent)]
    Host(#[from] HostError),
}

/// The component's typed error, with a readable message.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_memory_error(.0))]
pub struct MemoryError(pub wit_memory::Error);

fn describe_memory_error(error: &wit_memory::Error) -> String {
    match error {
        wit_memory::Error::InvalidArgument(m) => format!("invalid argument: {m}"),
        wit_memory::Error::Storage(e) => format!("storage: {}", describe_storage_error(e)),
        wit_memory::Error::Embedder(m) => format!("embedder: {m}"),
        wit_memory::Error::Llm(m) => format!("language model: {m}"),
    }
}

/// A storage error case in words (for people; programs match the case).
pub fn describe_storage_error(error: &wit_types::StorageError) -> String {
    use wit_types::StorageError as E;
    match error {
        E::MindNotFound(mind) => {
            format!("no such mind: {mind} (a workspace mind is created by its first save)")
        }
        E::NotFound(what) => format!("not found: {what}"),
        E::InvalidArgument(why) => format!("invalid argument: {why}"),
        E::DimensionMismatch(m) => format!(
            "the mind's vectors have {} dimensions but the embedder makes {}; run `hive-mind reindex`",
            m.expected, m.actual
        ),
        E::NewerSchema(version) => format!(
            "the database has schema version {version}, newer than this hive-mind knows; upgrade hive-mind"
        ),
        E::Corrupt(why) => format!("corrupt database: {why}"),
        E::NoEmbedder => "no embedder is configured, so the mind has no vector index yet".into(),
        E::Embedder(why) => format!("the embedder failed: {why}"),
        E::AwarenessFull(live) => {
            format!("awareness is full ({live} live items); remove one or add with eviction")
        }
        E::Referenced(count) => {
            format!("the frame is the base of {count} other frame(s); deprecate it instead")
        }
        E::Busy => "the database is busy (locked by another process)".into(),
        E::AccessDenied => "the host refused the database".into(),
        E::Full => "the database or disk is full".into(),
        E::Sql(message) => format!("sqlite: {message}"),
    }
}

/// An `admin` export's typed error.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_admin_error(.0))]
pub struct AdminError(pub wit_admin::Error);

fn describe_admin_error(error: &wit_admin::Error) -> String {
    match error {
        wit_admin::Error::InvalidArgument(m) => format!("invalid argument: {m}"),
        wit_admin::Error::Storage(e) => describe_storage_error(e),
        wit_admin::Error::Embedder(m) => format!("embedder: {m}"),
    }
}

/// A `review` export's typed error.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_review_error(.0))]
pub struct ReviewError(pub wit_review::Error);

fn describe_review_error(error: &wit_review::Error) -> String {
    match error {
        wit_review::Error::InvalidArgument(m) => format!("invalid argument: {m}"),
        wit_review::Error::Storage(e) => describe_storage_error(e),
        wit_review::Error::Embedder(m) => format!("embedder: {m}"),
    }
}

/// A `harvest` export's typed error.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe_harvest_error(.0))]
pub struct HarvestError(pub wit_harvest::Error);

/// A harvest error case in words (for people; programs match the case).
pub fn describe_harvest_error(error: &wit_harvest::Error) -> String {
    use wit_harvest::Error as E;
    match error {
        E::InvalidArgument(m) => format!("invalid argument: {m}"),
        E::Unrecognised(m) => format!("unrecognised format: {m}"),
        E::Malformed(m) => format!("malformed: {m}"),
        E::TooLarge(m) => format!("too large: {m}"),
        E::Fetch(m) => format!("fetch: {m}"),
        E::Embedder(m) => format!("embedder: {m}"),
        E::Storage(e) => format!("storage: {}", describe_storage_error(e)),
    }
}

impl EngineRuntime {
    /// The embedded engine component with `capabilities`, through the
    /// on-disk compile cache.
    pub fn new(capabilities: Capabilities) -> Result<Self, HostError> {
        Self::from_component_bytes(
            crate::artifacts::ENGINE_COMPONENT,
            crate::cache::cache_dir().as_deref(),
            capabilities,
        )
    }

    /// An engine component from its bytes (`cache_dir` as in
    /// [`crate::cache::load_component`]).
    pub fn from_component_bytes(
        wasm: &[u8],
        cache_dir: Option<&std::path::Path>,
        capabilities: Capabilities,
    ) -> Result<Self, HostError> {
        let engine = runtime::engine_for(&capabilities.limits)?;
        let component = crate::cache::load_component(&engine, "engine", wasm, cache_dir)?;
        let linker = linker(&engine)?;
        let state = EngineState::new(capabilities, ImportTimings::default(), 0);
        let (store, bindings) = instantiate(&component, &linker, state)?;
        Ok(EngineRuntime {
            store,
            bindings,
            component,
            linker,
            instance: 1,
        })
    }

    /// Drop the instance and start a fresh one with the same capabilities
    /// (what a trapped call does; the MCP server also calls it after a
    /// panic on one of its threads left the runtime mid-call). The old
    /// instance's resources — its SQLite connections first — are dropped
    /// before the new one starts, so its locks are released even if the new
    /// one cannot start.
    pub fn restart(&mut self) -> Result<(), HostError> {
        let state = self.store.data_mut();
        let capabilities = state.capabilities.clone();
        let (timings, truncated_texts) = (state.timings, state.truncated_texts);
        // Closing every connection rolls back what the instance left open.
        state.table = ResourceTable::new();
        state.embed_worker = None;
        let fresh = EngineState::new(capabilities, timings, truncated_texts);
        let (store, bindings) = instantiate(&self.component, &self.linker, fresh)?;
        self.store = store;
        self.bindings = bindings;
        self.instance = self.instance.saturating_add(1);
        tracing::info!(instance = self.instance, "started a fresh engine instance");
        Ok(())
    }

    /// How many times this runtime started a fresh instance after a trap.
    pub fn restarts(&self) -> u64 {
        self.instance.saturating_sub(1)
    }

    /// Run one export call of `kind` under its deadline; on a trap, restart
    /// the instance and say what stopped the call.
    fn call<T>(
        &mut self,
        function: &str,
        kind: CallKind,
        run: impl FnOnce(&bindings::Engine, &mut Store<EngineState>) -> wasmtime::Result<T>,
    ) -> Result<T, HostError> {
        let limits = self.store.data().capabilities.limits;
        if let Some(ticks) = limits.deadline_ticks(kind) {
            self.store.set_epoch_deadline(ticks);
        }
        match run(&self.bindings, &mut self.store) {
            Ok(value) => Ok(value),
            Err(source) => {
                let trap = TrapKind::of(&source);
                let deadline = limits.deadlines.map(|deadlines| deadlines.of(kind));
                tracing::warn!(function, %trap, "an engine call trapped: {source:#}");
                let restarted = self.restart();
                Err(HostError::Trapped {
                    function: function.into(),
                    trap,
                    deadline,
                    memory_bytes: limits.memory_bytes,
                    restarted: restarted.err().map(Box::new),
                    source,
                })
            }
        }
    }

    /// The time spent in the imports since the last call, and reset it.
    pub fn take_timings(&mut self) -> ImportTimings {
        std::mem::take(&mut self.store.data_mut().timings)
    }

    /// How many texts the embedder cut to its window since the engine was
    /// opened (only their beginning is embedded); long jobs report it once,
    /// at the end.
    pub fn truncated_texts(&self) -> u64 {
        self.store.data().truncated_texts
    }

    /// The capabilities (to read the store directly, e.g. for `status`).
    pub fn capabilities(&mut self) -> &mut Capabilities {
        &mut self.store.data_mut().capabilities
    }

    /// `memory.save-memory`: chunk, embed and store one memory.
    pub fn save_memory(
        &mut self,
        input: &wit_memory::MemoryInput,
    ) -> Result<wit_memory::SavedMemory, EngineError> {
        let result = self.call("save-memory", CallKind::Save, |engine, store| {
            engine.hive_mind_memory().call_save_memory(store, input)
        })?;
        Ok(result.map_err(MemoryError)?)
    }
    /// `memory.save-memories`: many memories, one transaction per mind.
    pub fn save_memories(
        &mut self,
        inputs: &[wit_memory::MemoryInput],
    ) -> Result<Vec<wit_memory::SavedMemory>, EngineError> {
        let result = self.call("save-memories", CallKind::Save, |engine, store| {
            engine.hive_mind_memory().call_save_memories(store, inputs)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.import-conversations`: conversation turns as raw-turn frames.
    pub fn import_conversations(
        &mut self,
        mind: &wit_types::Mind,
        conversations: &[wit_memory::ImportedConversation],
    ) -> Result<wit_memory::ImportReport, EngineError> {
        let result = self.call("import-conversations", CallKind::Import, |engine, store| {
            engine
                .hive_mind_memory()
                .call_import_conversations(store, mind, conversations)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.recall-memory`: the multi-lane recall pipeline.
    pub fn recall_memory(
        &mut self,
        query: &str,
        options: &wit_memory::RecallOptions,
    ) -> Result<wit_memory::Recall, EngineError> {
        let result = self.call("recall-memory", CallKind::Recall, |engine, store| {
            engine
                .hive_mind_memory()
                .call_recall_memory(store, query, options)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.recall-minds`: the minds a recall with `options` reads,
    /// active workspace first (what a caller's grant is checked against).
    pub fn recall_minds(
        &mut self,
        options: &wit_memory::RecallOptions,
    ) -> Result<Vec<wit_types::Mind>, EngineError> {
        let result = self.call("recall-minds", CallKind::Recall, |engine, store| {
            engine.hive_mind_memory().call_recall_minds(store, options)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.cleanup-frames`: find (and with `apply`, retire) a mind's
    /// dead-weight frames.
    pub fn cleanup_frames(
        &mut self,
        options: &wit_memory::CleanupOptions,
    ) -> Result<wit_memory::CleanupReport, EngineError> {
        let result = self.call("cleanup-frames", CallKind::Maintenance, |engine, store| {
            engine
                .hive_mind_memory()
                .call_cleanup_frames(store, options)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.forget`: erase memories for real, or (a dry run) say what
    /// would go. A maintenance call: its `VACUUM` rewrites the mind's file.
    pub fn forget(
        &mut self,
        request: &wit_memory::ForgetRequest,
    ) -> Result<wit_memory::ForgetReport, EngineError> {
        let result = self.call("forget", CallKind::Maintenance, |engine, store| {
            engine.hive_mind_memory().call_forget(store, request)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.correct-memory`: a new version of a memory that closes the
    /// old one.
    pub fn correct_memory(
        &mut self,
        correction: &wit_memory::Correction,
    ) -> Result<wit_memory::CorrectedMemory, EngineError> {
        let result = self.call("correct-memory", CallKind::Save, |engine, store| {
            engine
                .hive_mind_memory()
                .call_correct_memory(store, correction)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.memory-history`: the versions of a memory, oldest first.
    pub fn memory_history(
        &mut self,
        frame: &wit_types::FrameRef,
    ) -> Result<Vec<wit_types::Frame>, EngineError> {
        let result = self.call("memory-history", CallKind::Recall, |engine, store| {
            engine.hive_mind_memory().call_memory_history(store, frame)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.save-entity`: save (or strengthen) an entity.
    pub fn save_entity(
        &mut self,
        mind: &wit_types::Mind,
        name: &str,
        entity_type: &str,
    ) -> Result<wit_memory::KnownEntity, EngineError> {
        let result = self.call("save-entity", CallKind::Save, |engine, store| {
            engine
                .hive_mind_memory()
                .call_save_entity(store, mind, name, entity_type)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.create-relation`: relate two named entities.
    pub fn create_relation(
        &mut self,
        mind: &wit_types::Mind,
        subject: &str,
        relation: &str,
        object: &str,
        strength: Option<f64>,
    ) -> Result<wit_memory::KnownRelation, EngineError> {
        let result = self.call("create-relation", CallKind::Save, |engine, store| {
            engine
                .hive_mind_memory()
                .call_create_relation(store, mind, subject, relation, object, strength)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.search-entities`: browse entities by a part of their name.
    pub fn search_entities(
        &mut self,
        mind: &wit_types::Mind,
        text: &str,
        limit: u32,
    ) -> Result<Vec<wit_memory::KnownEntity>, EngineError> {
        let result = self.call("search-entities", CallKind::Recall, |engine, store| {
            engine
                .hive_mind_memory()
                .call_search_entities(store, mind, text, limit)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.remember-exchange`: learn from one exchange (cognify).
    pub fn remember_exchange(
        &mut self,
        user: &str,
        assistant: &str,
        options: &wit_memory::ExchangeOptions,
    ) -> Result<Vec<wit_memory::SavedMemory>, EngineError> {
        let result = self.call("remember-exchange", CallKind::Import, |engine, store| {
            engine
                .hive_mind_memory()
                .call_remember_exchange(store, user, assistant, options)
        })?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.scan-for-injection`: the engine's prompt-injection scan of a
    /// text, for surfaces that hand stored text to a model outside recall
    /// (which scans its own block).
    pub fn scan_for_injection(
        &mut self,
        text: &str,
        context: wit_types::ScanContext,
    ) -> Result<wit_types::InjectionReport, EngineError> {
        Ok(
            self.call("scan-for-injection", CallKind::Recall, |engine, store| {
                engine
                    .hive_mind_memory()
                    .call_scan_for_injection(store, text, context)
            })?,
        )
    }

    /// The `admin` exports, for the CLI's and MCP's operator surfaces.
    pub fn admin(&mut self) -> Admin<'_> {
        Admin { runtime: self }
    }

    /// The `review` exports: what a mind's owner does by hand.
    pub fn review(&mut self) -> Review<'_> {
        Review { runtime: self }
    }

    /// `harvest.import-job.start`: parse and plan an import. The job is a
    /// resource of this runtime: step it with [`EngineRuntime::harvest_step`]
    /// and drop it with [`EngineRuntime::harvest_drop`].
    pub fn harvest_start(
        &mut self,
        inputs: &[wit_harvest::Input],
        options: &wit_harvest::ImportOptions,
    ) -> Result<ImportJob, EngineError> {
        let result = self.call("import-job.start", CallKind::Import, |engine, store| {
            engine
                .hive_mind_harvest()
                .import_job()
                .call_start(store, inputs, options)
        })?;
        Ok(ImportJob {
            resource: result.map_err(HarvestError)?,
            instance: self.instance,
        })
    }

    /// The job's resource, when it belongs to the live instance.
    fn live_job(&self, job: ImportJob) -> Result<wasmtime::component::ResourceAny, HostError> {
        if job.instance == self.instance {
            Ok(job.resource)
        } else {
            Err(HostError::Lost {
                what: "the import job".into(),
            })
        }
    }

    /// `harvest.import-job.step`: process up to `max_items` more items.
    pub fn harvest_step(
        &mut self,
        job: ImportJob,
        max_items: u32,
    ) -> Result<wit_harvest::Progress, EngineError> {
        let job = self.live_job(job)?;
        let result = self.call("import-job.step", CallKind::Import, |engine, store| {
            engine
                .hive_mind_harvest()
                .import_job()
                .call_step(store, job, max_items)
        })?;
        Ok(result.map_err(HarvestError)?)
    }

    /// `harvest.import-job.report`: the import's account so far.
    pub fn harvest_report(
        &mut self,
        job: ImportJob,
    ) -> Result<wit_harvest::ImportReport, EngineError> {
        let job = self.live_job(job)?;
        Ok(
            self.call("import-job.report", CallKind::Import, |engine, store| {
                engine
                    .hive_mind_harvest()
                    .import_job()
                    .call_report(store, job)
            })?,
        )
    }

    /// Drop an import job (its parsed items are freed in the component; a
    /// job lost with a trapped instance is gone already).
    pub fn harvest_drop(&mut self, job: ImportJob) -> Result<(), EngineError> {
        let Ok(job) = self.live_job(job) else {
            return Ok(());
        };
        self.call("import-job.drop", CallKind::Import, |_, store| {
            job.resource_drop(store)
        })?;
        Ok(())
    }

    /// `harvest.sources`: the sources imported into a mind.
    pub fn harvest_sources(
        &mut self,
        mind: &wit_types::Mind,
    ) -> Result<Vec<wit_harvest::HarvestSource>, EngineError> {
        let result = self.call("harvest.sources", CallKind::Recall, |engine, store| {
            engine.hive_mind_harvest().call_sources(store, mind)
        })?;
        Ok(result.map_err(HarvestError)?)
    }

    /// `harvest.last-exchange`: the last exchange of a session transcript
    /// (or of its tail), read by the engine's adapter for `format`; none
    /// while the last question is unanswered.
    pub fn harvest_last_exchange(
        &mut self,
        format: wit_harvest::SourceFormat,
        transcript: &str,
    ) -> Result<Option<wit_harvest::Exchange>, EngineError> {
        let result = self.call(
            "harvest.last-exchange",
            CallKind::Recall,
            |engine, store| {
                engine
                    .hive_mind_harvest()
                    .call_last_exchange(store, format, transcript)
            },
        )?;
        Ok(result.map_err(HarvestError)?)
    }
}

/// Why the engine could not be set up for a data directory.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The configuration (`config.toml` or the environment) is unusable.
    #[error(transparent)]
    Config(#[from] hive_mind_outbound::config::ConfigError),
    /// The configured reranker could not be loaded.
    #[error("the reranker: {0}")]
    Reranker(#[from] hive_mind_models::onnx::ModelError),
    /// The data directory could not be created or made owner-only.
    #[error("{path}: {source}")]
    DataDir {
        /// The directory.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The component could not be loaded.
    #[error(transparent)]
    Host(#[from] HostError),
}

/// The capabilities of a data directory: its configuration
/// (`<dir>/config.toml` and the environment), the embedder the provider
/// chain settles on (or why none), the configured reranker, and the minds,
/// (the engine locks them to the embedder's fingerprint).
pub fn capabilities_for(dir: &std::path::Path) -> Result<Capabilities, OpenError> {
    let file = ConfigFile::read_in(dir)?;
    let models = hive_mind_models::config::Config::from_file(&file, &process_env)?;
    let outbound = OutboundConfig::from_file(&file, process_env)?;
    capabilities_of(dir, &models, outbound)
}

/// The capabilities of a data directory under a configuration given
/// explicitly (the demo's: the shipped model, whatever the environment says).
pub fn capabilities_with(
    dir: &std::path::Path,
    config: &hive_mind_models::config::Config,
) -> Result<Capabilities, OpenError> {
    capabilities_of(dir, config, OutboundConfig::load_in(dir)?)
}

/// The capabilities of a data directory under both configurations.
fn capabilities_of(
    dir: &std::path::Path,
    config: &hive_mind_models::config::Config,
    outbound: OutboundConfig,
) -> Result<Capabilities, OpenError> {
    let embedder = match hive_mind_models::embedder::resolve(&config.embedder) {
        Ok(active) => {
            for line in active.status_lines() {
                tracing::info!("{line}");
            }
            Ok(active.embedder)
        }
        Err(error) => Err(error.to_string()),
    };
    let reranker = hive_mind_models::reranker::from_config(&config.reranker)?;
    // Owner-only: created 0700, and what an older version left readable by
    // other local users tightened (said once on stderr).
    let data_dir = hive_mind_sqlite::DataDir::new(dir);
    data_dir.secure().map_err(|source| OpenError::DataDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut capabilities = Capabilities::new(data_dir, embedder, reranker)
        .with_fetch(Fetcher::new(outbound.fetch))
        .with_limits(Limits::from_config(&config.limits));
    match hive_mind_outbound::llm::LlmClient::new(&outbound.llm) {
        Ok(client) => {
            let provider = client.provider().name().to_string();
            capabilities = capabilities.with_llm(Arc::new(client), &provider);
        }
        Err(why) => capabilities.llm = Err(why.message().to_string()),
    }
    Ok(capabilities)
}

/// The engine over a data directory (see [`capabilities_for`]).
pub fn open(dir: &std::path::Path) -> Result<EngineRuntime, OpenError> {
    Ok(EngineRuntime::new(capabilities_for(dir)?)?)
}

/// Calls into the component's `admin` export ([`EngineRuntime::admin`]).
pub struct Admin<'a> {
    runtime: &'a mut EngineRuntime,
}

macro_rules! admin_call {
    ($(#[$doc:meta])* $name:ident as $kind:ident => $call:ident ( $($arg:ident : $ty:ty),* ) -> $out:ty) => {
        $(#[$doc])*
        pub fn $name(&mut self, $($arg: $ty),*) -> Result<$out, EngineError> {
            let result = self.runtime.call(stringify!($name), CallKind::$kind, |engine, store| {
                engine.hive_mind_admin().$call(store, $($arg),*)
            })?;
            Ok(result.map_err(AdminError)?)
        }
    };
}

impl Admin<'_> {
    admin_call!(
        /// Every mind, personal first.
        list_minds as Recall => call_list_minds() -> Vec<wit_types::Mind>);
    admin_call!(
        /// Create a workspace mind.
        create_workspace as Save => call_create_workspace(id: &str) -> wit_types::Mind);
    admin_call!(
        /// Every mind's counts.
        status as Recall => call_status() -> Vec<wit_admin::MindStatus>);
    admin_call!(
        /// Every mind's consistency.
        check as Maintenance => call_check() -> Vec<wit_admin::MindCheck>);
    admin_call!(
        /// One step of a mind's reindex.
        reindex_step as Maintenance => call_reindex_step(mind: &wit_types::Mind, batch: u32) -> wit_admin::ReindexProgress);
    admin_call!(
        /// Frames by reference.
        get_frames as Recall => call_get_frames(refs: &[wit_types::FrameRef]) -> Vec<wit_types::Frame>);
    admin_call!(
        /// The newest frames of a mind.
        recent_frames as Recall => call_recent_frames(mind: &wit_types::Mind, limit: u32) -> Vec<wit_types::Frame>);
    admin_call!(
        /// Export a mind: JSON Lines (restorable) or Markdown.
        export_mind as Maintenance => call_export_mind(mind: &wit_types::Mind, format: wit_admin::ExportFormat) -> Vec<String>);
    admin_call!(
        /// Restore a JSON Lines export into an empty mind (no vectors until
        /// a reindex).
        restore_mind as Import => call_restore_mind(mind: &wit_types::Mind, lines: &[String]) -> wit_admin::RestoreReport);
    admin_call!(
        /// The mind's identity.
        get_identity as Recall => call_get_identity(mind: &wit_types::Mind) -> Option<wit_admin::Identity>);
    admin_call!(
        /// Set the mind's identity.
        set_identity as Save => call_set_identity(mind: &wit_types::Mind, identity: &wit_admin::Identity) -> wit_admin::Identity);
    admin_call!(
        /// The live awareness items.
        list_awareness as Recall => call_list_awareness(mind: &wit_types::Mind) -> Vec<wit_admin::AwarenessItem>);
    admin_call!(
        /// Add an awareness item.
        add_awareness as Save => call_add_awareness(mind: &wit_types::Mind, category: wit_admin::AwarenessCategory, content: &str, priority: i64, expires_at: Option<i64>, evict: bool) -> wit_admin::AwarenessAdded);
    admin_call!(
        /// Remove awareness items; the number removed.
        remove_awareness as Save => call_remove_awareness(mind: &wit_types::Mind, ids: &[u64]) -> u32);
    admin_call!(
        /// Remove every awareness item; the number removed.
        clear_awareness as Save => call_clear_awareness(mind: &wit_types::Mind) -> u32);
    admin_call!(
        /// Merge duplicate entities.
        dedupe_entities as Maintenance => call_dedupe_entities(mind: &wit_types::Mind) -> u64);
    admin_call!(
        /// Retire an entity.
        retire_entity as Save => call_retire_entity(mind: &wit_types::Mind, entity: u64) -> ());
    admin_call!(
        /// The `k` frames nearest to `vector` by an exact float scan: the
        /// measurement reference recall's int8 index approximates.
        exact_neighbours as Recall => call_exact_neighbours(mind: &wit_types::Mind, vector: &[f32], k: u32) -> Vec<wit_admin::Neighbour>);

    /// The engine's plan constants (recall's default limit and fetch
    /// multiplier, harvest's step size): a host asks instead of copying them.
    pub fn plan_constants(&mut self) -> Result<wit_admin::PlanConstants, EngineError> {
        Ok(self
            .runtime
            .call("get_plan_constants", CallKind::Recall, |engine, store| {
                engine.hive_mind_admin().call_get_plan_constants(store)
            })?)
    }
}

/// Calls into the component's `review` export ([`EngineRuntime::review`]).
pub struct Review<'a> {
    runtime: &'a mut EngineRuntime,
}

/// One `review` export as a method of [`Review`] (see [`admin_call!`]).
macro_rules! review_call {
    ($(#[$doc:meta])* $name:ident as $kind:ident => $call:ident ( $($arg:ident : $ty:ty),* ) -> $out:ty) => {
        $(#[$doc])*
        pub fn $name(&mut self, $($arg: $ty),*) -> Result<$out, EngineError> {
            let result = self.runtime.call(stringify!($name), CallKind::$kind, |engine, store| {
                engine.hive_mind_review().$call(store, $($arg),*)
            })?;
            Ok(result.map_err(ReviewError)?)
        }
    };
}

impl Review<'_> {
    review_call!(
        /// Change a memory's status, pin or tags.
        set_metadata as Save => call_set_metadata(memory: &wit_types::FrameRef, change: &wit_review::MetadataChange) -> wit_types::Frame);
    review_call!(
        /// Merge memories into one; the originals are archived.
        merge as Save => call_merge(request: &wit_review::MergeRequest) -> wit_review::Merged);
    review_call!(
        /// The newest sessions of a mind.
        list_sessions as Recall => call_list_sessions(mind: &wit_types::Mind, limit: u32) -> Vec<wit_review::SessionInfo>);
    review_call!(
        /// Close a session.
        close_session as Save => call_close_session(mind: &wit_types::Mind, gop_id: &str, summary: Option<&str>) -> wit_review::SessionInfo);
    review_call!(
        /// An entity with its relations in and out.
        get_entity as Recall => call_get_entity(mind: &wit_types::Mind, id: u64) -> wit_review::EntityView);
    review_call!(
        /// Entities by name and type.
        list_entities as Recall => call_list_entities(mind: &wit_types::Mind, text: &str, entity_type: Option<&str>, limit: u32) -> Vec<wit_review::EntityInfo>);
    review_call!(
        /// The entities a cleanup rule finds; with `apply`, retired.
        clean_entities as Maintenance => call_clean_entities(mind: &wit_types::Mind, rule: wit_review::EntityRule, apply: bool) -> Vec<wit_review::EntityInfo>);
    review_call!(
        /// The entities within a depth of one.
        neighbours as Recall => call_neighbours(mind: &wit_types::Mind, id: u64, depth: u32, entity_type: Option<&str>, limit: u32) -> Vec<wit_review::EntityHop>);
    review_call!(
        /// The newest rows of a log.
        read_log as Recall => call_read_log(mind: &wit_types::Mind, log: wit_review::LogKind, limit: u32, before: Option<u64>) -> Vec<wit_review::LogEntry>);
    review_call!(
        /// Where a memory came from and what it is tied to.
        trace as Recall => call_trace(memory: &wit_types::FrameRef) -> wit_review::MemoryTrace);
    review_call!(
        /// The memories recall's injection scan trips on.
        list_flagged as Maintenance => call_list_flagged(mind: &wit_types::Mind, limit: u32) -> Vec<wit_review::FlaggedMemory>);
    review_call!(
        /// Release a memory from recall's injection scan.
        release as Save => call_release(memory: &wit_types::FrameRef) -> wit_types::Frame);
    review_call!(
        /// Delete a workspace mind (or, with `dry_run`, say what would go).
        delete_workspace as Maintenance => call_delete_workspace(workspace: &str, dry_run: bool) -> wit_review::WorkspaceDeletion);
}
