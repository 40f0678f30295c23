//! # hive-mind-runtime: runs the components
//!
//! hive-mind's logic lives in WebAssembly components (see `guest/`). This
//! crate runs them and lends them what they cannot do for themselves:
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
//! - [`engine`] — the engine component: the only `bindgen!` of its world,
//!   the host side of its imports (`sqlite` over `hive-mind-sqlite`,
//!   `embedder` and `reranker` over `hive-mind-models`, `llm` and `fetch`
//!   over `hive-mind-outbound`) and calls into its `memory`, `admin` and
//!   `harvest` exports.
//! - [`limits`] — what one engine call may use (a memory cap, a deadline
//!   per kind of call) and what stopped a call that trapped; the engine
//!   runtime restarts its instance after a trap.
//! - [`error`] — what starting or calling a component can fail with
//!   ([`HostError`]).
//!
//! Retrieval logic never lives here, and the crate links none of the
//! guest's crates: the capabilities are the capability crates', and the
//! user's surfaces are the `hive-mind` command's (`hive-mind-host`).

pub mod artifacts;
pub mod cache;
pub mod engine;
pub mod error;
pub mod limits;
pub mod logic;
pub mod runtime;
pub mod values;

pub use error::HostError;
pub use logic::LogicRuntime;
