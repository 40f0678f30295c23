//! # The engine component, and the capabilities the host lends it
//!
//! The `hive:mind` **engine** world imports four capabilities — `store`,
//! `embedder`, `reranker`, `llm` — and exports `logic` and `memory`. All of
//! hive-mind's pipelines (save, recall, cognify, import) live in the
//! component; this module only:
//!
//! 1. generates the host side of the world's bindings
//!    ([`wasmtime::component::bindgen!`] over `wit/`),
//! 2. implements each import over a native backend — [`crate::store::Minds`]
//!    for `store` ([`store_import`]), the active [`crate::embedder::Embedder`],
//!    the configured [`crate::reranker::Reranker`], and an `llm` that says
//!    "unavailable" until a provider is configured ([`capabilities`]),
//! 3. instantiates the component in the same empty WASI sandbox as the logic
//!    component ([`crate::runtime::sandbox_builder`]) and calls its `memory`
//!    exports ([`EngineRuntime`]).
//!
//! The translation between the WIT records and the native ones is in
//! [`convert`]; it is mechanical by design: no retrieval decision is made on
//! this side of the boundary.

pub mod capabilities;
pub mod cli;
pub mod convert;
pub mod store_import;

use std::sync::Arc;

use wasmtime::Store;
use wasmtime::component::{HasSelf, Linker, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::HostError;
use crate::embedder::Embedder;
use crate::reranker::Reranker;
use crate::runtime;
use crate::store::Minds;

/// The generated bindings of the `engine` world.
pub mod bindings {
    #![allow(missing_docs, clippy::all)]
    wasmtime::component::bindgen!({
        world: "engine",
        path: "../wit",
    });
}

pub use bindings::exports::hive::mind::memory as wit_memory;
pub use bindings::hive::mind::types as wit_types;

/// What the host lends the engine: the minds, the models, the network.
pub struct Capabilities {
    /// The data directory's minds (the `store` import).
    pub minds: Minds,
    /// The active embedder, or why there is none (the `embedder` import).
    pub embedder: Result<Arc<dyn Embedder>, String>,
    /// The reranker; [`crate::reranker::Unconfigured`] when none is set up.
    pub reranker: Arc<dyn Reranker>,
}

/// Time spent inside the host's imports, accumulated across calls (the
/// recall benchmark reads it to split the guest's `search` stage into
/// full-text, vector and listing time).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ImportTimings {
    /// `store.search-text` (FTS5 BM25).
    pub search_text: std::time::Duration,
    /// `store.search-vector` (sqlite-vec KNN over frames and chunks).
    pub search_vector: std::time::Duration,
    /// `store.list-frames` (the listing lanes).
    pub list_frames: std::time::Duration,
    /// `embedder.embed`.
    pub embed: std::time::Duration,
    /// `reranker.score`.
    pub rerank: std::time::Duration,
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

/// An instantiated engine component with its capabilities.
pub struct EngineRuntime {
    store: Store<EngineState>,
    bindings: bindings::Engine,
}

/// Why a memory operation failed: inside the component (its typed error) or
/// around it (a trap, a load failure).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The component answered with an error.
    #[error("{0}")]
    Memory(#[from] MemoryError),
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
        wit_memory::Error::Unsupported(m) => format!("unsupported: {m}"),
        wit_memory::Error::Store(m) => format!("store: {m}"),
        wit_memory::Error::Embedder(m) => format!("embedder: {m}"),
        wit_memory::Error::Llm(m) => format!("language model: {m}"),
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
        let engine = runtime::engine()?;
        let component = crate::cache::load_component(&engine, "engine", wasm, cache_dir)?;
        let linker = linker(&engine)?;
        let state = EngineState {
            wasi: runtime::sandbox_builder().build(),
            table: ResourceTable::new(),
            capabilities,
            timings: ImportTimings::default(),
            truncated_texts: 0,
        };
        let mut store = Store::new(&engine, state);
        let bindings =
            bindings::Engine::instantiate(&mut store, &component, &linker).map_err(|source| {
                HostError::Load {
                    name: "engine".into(),
                    source,
                }
            })?;
        Ok(EngineRuntime { store, bindings })
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

    fn trapped(function: &str) -> impl FnOnce(wasmtime::Error) -> HostError + '_ {
        move |source| HostError::Call {
            function: function.into(),
            source,
        }
    }

    /// `memory.save-memory`: chunk, embed and store one memory.
    pub fn save_memory(
        &mut self,
        input: &wit_memory::MemoryInput,
    ) -> Result<wit_memory::SavedMemory, EngineError> {
        let result = self
            .bindings
            .hive_mind_memory()
            .call_save_memory(&mut self.store, input)
            .map_err(Self::trapped("save-memory"))?;
        Ok(result.map_err(MemoryError)?)
    }
    /// `memory.save-memories`: many memories, one transaction per mind.
    pub fn save_memories(
        &mut self,
        inputs: &[wit_memory::MemoryInput],
    ) -> Result<Vec<wit_memory::SavedMemory>, EngineError> {
        let result = self
            .bindings
            .hive_mind_memory()
            .call_save_memories(&mut self.store, inputs)
            .map_err(Self::trapped("save-memories"))?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.import-conversations`: conversation turns as raw-turn frames.
    pub fn import_conversations(
        &mut self,
        mind: &wit_types::Mind,
        conversations: &[wit_memory::ImportedConversation],
    ) -> Result<wit_memory::ImportReport, EngineError> {
        let result = self
            .bindings
            .hive_mind_memory()
            .call_import_conversations(&mut self.store, mind, conversations)
            .map_err(Self::trapped("import-conversations"))?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.recall-memory`: the multi-lane recall pipeline.
    pub fn recall_memory(
        &mut self,
        query: &str,
        limit: u32,
        options: &wit_memory::RecallOptions,
    ) -> Result<wit_memory::Recall, EngineError> {
        let result = self
            .bindings
            .hive_mind_memory()
            .call_recall_memory(&mut self.store, query, limit, options)
            .map_err(Self::trapped("recall-memory"))?;
        Ok(result.map_err(MemoryError)?)
    }
    /// `memory.cleanup-frames`: find (and with `apply`, retire) a mind's
    /// dead-weight frames.
    pub fn cleanup_frames(
        &mut self,
        options: &wit_memory::CleanupOptions,
    ) -> Result<wit_memory::CleanupReport, EngineError> {
        let result = self
            .bindings
            .hive_mind_memory()
            .call_cleanup_frames(&mut self.store, options)
            .map_err(Self::trapped("cleanup-frames"))?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.save-entity`: save (or strengthen) an entity.
    pub fn save_entity(
        &mut self,
        mind: &wit_types::Mind,
        name: &str,
        entity_type: &str,
    ) -> Result<wit_memory::KnownEntity, EngineError> {
        let result = self
            .bindings
            .hive_mind_memory()
            .call_save_entity(&mut self.store, mind, name, entity_type)
            .map_err(Self::trapped("save-entity"))?;
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
        let result = self
            .bindings
            .hive_mind_memory()
            .call_create_relation(&mut self.store, mind, subject, relation, object, strength)
            .map_err(Self::trapped("create-relation"))?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.search-entities`: browse entities by a part of their name.
    pub fn search_entities(
        &mut self,
        mind: &wit_types::Mind,
        text: &str,
        limit: u32,
    ) -> Result<Vec<wit_memory::KnownEntity>, EngineError> {
        let result = self
            .bindings
            .hive_mind_memory()
            .call_search_entities(&mut self.store, mind, text, limit)
            .map_err(Self::trapped("search-entities"))?;
        Ok(result.map_err(MemoryError)?)
    }

    /// `memory.remember-exchange`: learn from one exchange (cognify).
    pub fn remember_exchange(
        &mut self,
        user: &str,
        assistant: &str,
        options: &wit_memory::ExchangeOptions,
    ) -> Result<Vec<wit_memory::SavedMemory>, EngineError> {
        let result = self
            .bindings
            .hive_mind_memory()
            .call_remember_exchange(&mut self.store, user, assistant, options)
            .map_err(Self::trapped("remember-exchange"))?;
        Ok(result.map_err(MemoryError)?)
    }
}

/// Why the engine could not be set up for a data directory.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] crate::embedder::config::ConfigError),
    /// The configured reranker could not be loaded.
    #[error("the reranker: {0}")]
    Reranker(#[from] crate::embedder::onnx::ModelError),
    /// The minds could not be opened.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The component could not be loaded.
    #[error(transparent)]
    Host(#[from] HostError),
}

/// The capabilities of a data directory: its configuration
/// (`<dir>/config.toml` and the environment), the embedder the provider
/// chain settles on (or why none), the configured reranker, and the minds,
/// locked to the embedder's fingerprint.
pub fn capabilities_for(dir: &std::path::Path) -> Result<Capabilities, OpenError> {
    capabilities_with(dir, &crate::embedder::config::Config::load_in(dir)?)
}

/// The capabilities of a data directory under a configuration given
/// explicitly (the demo's: the shipped model, whatever the environment says).
pub fn capabilities_with(
    dir: &std::path::Path,
    config: &crate::embedder::config::Config,
) -> Result<Capabilities, OpenError> {
    let (embedder, fingerprint) = match crate::embedder::resolve(&config.embedder) {
        Ok(active) => {
            for line in active.status_lines() {
                tracing::info!("{line}");
            }
            let fingerprint = crate::store::VectorSource::fingerprint(&active);
            (Ok(active.embedder), Some(fingerprint))
        }
        Err(error) => (Err(error.to_string()), None),
    };
    let reranker = crate::reranker::from_config(&config.reranker)?;
    let minds = Minds::open(
        dir,
        crate::store::StoreConfig {
            embedder: fingerprint,
        },
    )?;
    Ok(Capabilities {
        minds,
        embedder,
        reranker,
    })
}

/// The engine over a data directory (see [`capabilities_for`]).
pub fn open(dir: &std::path::Path) -> Result<EngineRuntime, OpenError> {
    Ok(EngineRuntime::new(capabilities_for(dir)?)?)
}
