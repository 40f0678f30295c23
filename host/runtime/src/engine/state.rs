//! # What an engine instance runs with
//!
//! [`Capabilities`] is what the host lends the engine (the minds, the
//! models, the network, the limits), built by the caller or by
//! [`super::open`]. Each instance gets a fresh [`EngineState`] over a clone
//! of them — the WASI sandbox, the resource table that holds the guest's
//! SQLite connections, the import timings — and [`linker`] wires the
//! world's imports to that state (their implementations live in
//! [`super::capabilities`] and [`super::sqlite_import`]).
//! [`instantiate`] starts an instance in a store with its memory cap and a
//! start-up deadline.

use std::sync::Arc;

use wasmtime::Store;
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use hive_mind_models::embedder::Embedder;
use hive_mind_models::reranker::Reranker;
use hive_mind_outbound::fetch::Fetcher;
use hive_mind_outbound::llm::LanguageModel;

use super::{bindings, capabilities};
use crate::HostError;
use crate::limits::{CallKind, GuestLimiter, Limits};
use crate::runtime;

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
    /// The guest's resources (its SQLite connections among them).
    pub(super) table: ResourceTable,
    /// The capabilities the imports are served from.
    pub capabilities: Capabilities,
    /// Time spent in the imports since the last [`super::EngineRuntime::take_timings`].
    pub timings: ImportTimings,
    /// Texts the embedder cut to its window since the engine was opened.
    pub truncated_texts: u64,
    /// The thread `start-embed` batches run on (started on first use).
    pub(super) embed_worker: Option<capabilities::EmbedWorker>,
    /// The memory cap and structural limits of this store.
    limiter: GuestLimiter,
}

impl EngineState {
    /// A fresh state over `capabilities`, carrying the counters of the
    /// instance it replaces.
    pub(super) fn new(
        capabilities: Capabilities,
        timings: ImportTimings,
        truncated_texts: u64,
    ) -> Self {
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
pub(super) fn instantiate(
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
