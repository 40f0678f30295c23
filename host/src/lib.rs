//! # hive-mind-host: the thin native host
//!
//! hive-mind's logic lives in WebAssembly components (see `guest/`). This
//! crate is everything around them that a component cannot do for itself:
//!
//! - [`runtime`] — one `wasmtime` engine, the sandbox every component runs in
//!   (a WASI context that grants no files, no network, no environment), and
//!   the store state.
//! - [`cache`] — compiled components cached on disk, so start-up does not
//!   recompile (`Component::serialize` / `deserialize_file`).
//! - [`artifacts`] — the components built by `build.rs` and embedded in the
//!   binary.
//! - [`values`] — JSON ⇄ component values, driven by the component's own
//!   types, so every export is reachable from JSON without hand-written glue.
//! - [`logic`] — the `hive:mind/logic` component: list its functions and call
//!   any of them with JSON arguments keyed by the WIT parameter names.
//!
//! Retrieval logic never lives here: the host supplies capabilities (storage,
//! models, network) and user surfaces (the `hive-mind` CLI).

pub mod artifacts;
pub mod cache;
pub mod error;
pub mod logic;
pub mod runtime;
pub mod values;

pub use error::HostError;
pub use logic::LogicRuntime;
