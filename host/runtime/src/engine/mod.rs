//! # The engine component, and the capabilities the host lends it
//!
//! The `hive:mind` **engine** world imports five capabilities — `sqlite`
//! and `embedder` (required), `reranker`, `llm` and `fetch` (which may
//! answer `unavailable`) — and exports `logic`, `memory`, `admin`,
//! `review` and `harvest`. All of hive-mind's logic and its data model
//! (schema, migrations, queries, the vector index) live in the component;
//! this module only:
//!
//! 1. generates the host side of the world's bindings
//!    ([`wasmtime::component::bindgen!`] over `wit/`, in [`bindings`]; the
//!    exported interfaces' types are re-exported as [`wit_memory`],
//!    [`wit_admin`], [`wit_harvest`], [`wit_review`], [`wit_wiki`] and [`wit_types`]),
//! 2. implements each import over a native backend — the data directory's
//!    SQLite databases for `sqlite` ([`sqlite_import`], over
//!    [`hive_mind_sqlite`]), the active [`hive_mind_models::embedder::Embedder`], the
//!    configured [`hive_mind_models::reranker::Reranker`], the configured language
//!    model and the guarded fetch of [`hive_mind_outbound`]
//!    ([`capabilities`]),
//! 3. instantiates the component in the same empty WASI sandbox as the logic
//!    component ([`crate::runtime::sandbox_builder`]) with what the host
//!    lends it ([`Capabilities`], the store's [`EngineState`] and the
//!    [`linker`]: `state`), opened over a data directory by [`open()`]
//!    (`open`),
//! 4. calls its exports through [`EngineRuntime`]: one method per export
//!    function, grouped by interface — `memory`, `harvest`, `admin`
//!    ([`Admin`]) and `review` ([`Review`]) —, each under its kind's
//!    deadline; a failure is an [`EngineError`] (`error`),
//! 5. drives an import job to its end, one engine turn per step
//!    ([`import`]), for every surface that imports (the command line, MCP,
//!    the server, the lab).
//!
//! No retrieval decision is made on this side of the boundary, and the host
//! links none of the engine's logic.
//!
//! This file holds what every part shares: the bindings, the
//! [`EngineRuntime`] itself (a store, an instance, and how to restart it
//! after a trap) and its one way into the component,
//! `EngineRuntime::call`.

mod admin;
pub mod capabilities;
pub mod convert;
mod error;
mod harvest;
pub mod import;
mod memory;
mod open;
mod review;
pub mod sqlite_import;
mod state;
mod wiki;
pub mod wit_names;

use wasmtime::Store;
use wasmtime::component::{Component, Linker, ResourceTable};

use crate::HostError;
use crate::limits::{CallKind, TrapKind};
use crate::runtime;

pub use admin::Admin;
pub use error::{
    AdminError, EngineError, HarvestError, MemoryError, ReviewError, WikiError,
    describe_harvest_error, describe_storage_error,
};
pub use harvest::ImportJob;
pub use open::{OpenError, capabilities_for, capabilities_with, open};
pub use review::Review;
pub use state::{Capabilities, EngineState, ImportTimings, linker};
pub use wiki::Wiki;

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
pub use bindings::exports::hive::mind::wiki as wit_wiki;
pub use bindings::hive::mind::types as wit_types;

/// Every option absent: the engine applies its own default for each
/// (`wit/memory.wit`). A caller names what it sets and takes the rest
/// from here: `RecallOptions { limit: Some(5), ..Default::default() }`.
impl Default for wit_memory::RecallOptions {
    fn default() -> Self {
        Self {
            limit: None,
            workspace: None,
            scope: None,
            profile: None,
            now: None,
            floor: None,
            rerank_pool: None,
            as_of: None,
            max_tokens: None,
        }
    }
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
        let (store, bindings) = state::instantiate(&component, &linker, state)?;
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
        let (store, bindings) = state::instantiate(&self.component, &self.linker, fresh)?;
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
}
