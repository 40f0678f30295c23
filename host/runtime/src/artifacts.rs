//! The components `build.rs` compiled for wasm32-wasip2.
//!
//! The two product components are embedded in the host binary, so the
//! `hive-mind` executable is self-contained; their build paths are kept for
//! tools (the `wasmtime` CLI, size reports) that want the files.

/// The `hive:mind` logic world component, embedded.
pub const LOGIC_COMPONENT: &[u8] = include_bytes!(env!("HIVE_MIND_LOGIC_COMPONENT"));

/// The `hive:mind` engine world component, embedded.
pub const ENGINE_COMPONENT: &[u8] = include_bytes!(env!("HIVE_MIND_ENGINE_COMPONENT"));

/// Where the build wrote the logic component.
pub const LOGIC_COMPONENT_PATH: &str = env!("HIVE_MIND_LOGIC_COMPONENT");

/// Where the build wrote the engine component.
pub const ENGINE_COMPONENT_PATH: &str = env!("HIVE_MIND_ENGINE_COMPONENT");

/// Where the build wrote the sandbox probe, a test-only command component
/// that reports which authority it was given (see `tests/sandbox-probe`).
pub const SANDBOX_PROBE_PATH: &str = env!("HIVE_MIND_SANDBOX_PROBE");
