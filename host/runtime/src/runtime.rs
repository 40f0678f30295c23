//! The wasmtime engine, the sandbox and the per-store state.
//!
//! Every component runs with a WASI context built by [`sandbox_builder`]: no
//! preopened directories, no environment variables, no arguments, no
//! inherited stdio, and no sockets or name lookups. The guest's standard
//! library imports WASI (clocks, random, streams), so WASI must be linked,
//! but it is linked empty: whatever a component is allowed to touch reaches
//! it through hive-mind's own typed imports, never through ambient
//! authority. A test runs a probe component under this context and checks
//! that it gets nothing.

use wasmtime::component::{Linker, ResourceTable};
use wasmtime::{Config, Engine};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use crate::HostError;

/// The state a [`wasmtime::Store`] carries for a hive-mind component.
pub struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
}

impl HostState {
    /// State with the sandboxed WASI context.
    pub fn sandboxed() -> Self {
        Self::with_wasi(sandbox_builder().build())
    }

    /// State with a given WASI context (tests use this to run the probe with
    /// more authority, as a control).
    pub fn with_wasi(wasi: WasiCtx) -> Self {
        HostState {
            wasi,
            table: ResourceTable::new(),
        }
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// The WASI context builder for hive-mind components: grants nothing.
///
/// Spelled out rather than left to defaults, so that a change of wasmtime's
/// defaults cannot widen it silently.
pub fn sandbox_builder() -> WasiCtxBuilder {
    let mut builder = WasiCtxBuilder::new();
    builder
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false)
        .socket_addr_check(|_, _| Box::pin(async { false }));
    builder
}

/// The engine all components are compiled for: component model on, default
/// Cranelift settings.
pub fn engine() -> Result<Engine, HostError> {
    let mut config = Config::new();
    config.wasm_component_model(true);
    Engine::new(&config).map_err(|source| HostError::Load {
        name: "engine".into(),
        source,
    })
}

/// The engine the engine component runs on under `limits`: [`engine`]'s
/// settings, with epoch checks compiled in and an
/// [`EpochTicker`](crate::limits::EpochTicker) advancing the epoch when
/// `limits` has deadlines (the checks change the compiled code, so the two
/// configurations have their own entries in the compile cache).
pub fn engine_for(limits: &crate::limits::Limits) -> Result<Engine, HostError> {
    if limits.deadlines.is_none() {
        return engine();
    }
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.epoch_interruption(true);
    let engine = Engine::new(&config).map_err(|source| HostError::Load {
        name: "engine".into(),
        source,
    })?;
    crate::limits::EpochTicker::start(&engine).map_err(|error| HostError::Load {
        name: "engine (its epoch ticker thread)".into(),
        source: wasmtime::Error::new(error),
    })?;
    Ok(engine)
}

/// A linker with (sandboxed) WASI p2 linked in.
pub fn linker(engine: &Engine) -> Result<Linker<HostState>, HostError> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(|source| HostError::Load {
        name: "WASI".into(),
        source,
    })?;
    Ok(linker)
}
