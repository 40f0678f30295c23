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
//! - [`engine`] — the engine component: the host side of its imports
//!   (`sqlite` over `hive-mind-sqlite`, `embedder` and `reranker` over
//!   `hive-mind-models`, `llm` and `fetch` over `hive-mind-outbound`) and calls into its `memory`,
//!   `admin` and `harvest` exports.
//! - [`harvest_cli`] — `hive-mind import` and `hive-mind sources`: bytes
//!   and URLs handed to the engine's harvest, a progress bar, the report.
//! - [`mcp`] — `hive-mind mcp`: the MCP server (stdio) over the engine's
//!   exports.
//! - [`progress`] — progress bars on stderr for long work (import, reindex,
//!   and the lab's eval and bench), hidden when stderr is not a terminal or with `--quiet`.
//! - [`embed_cli`] — `hive-mind embed`: embed texts with the active
//!   embedder, or show the provider chain.
//! - [`demo`] — `hive-mind demo`: the main job on a fresh data directory
//!   (save, import, learn, recall), each recall checked against what it
//!   shows; `--logic` tours the pure functions.
//!
//! Retrieval logic never lives here: the host supplies capabilities (storage,
//! models, network: the crates `hive-mind-sqlite`, `hive-mind-models`,
//! `hive-mind-outbound`) and user surfaces (the `hive-mind` CLI). The measurement
//! tools (evaluation, benchmarks) are another crate and binary,
//! `hive-mind-lab` (`host/lab`), built on this one.

pub mod admin_cli;
pub mod artifacts;
pub mod cache;
pub mod demo;
pub mod embed_cli;
pub mod engine;
pub mod error;
pub mod harvest_cli;
pub mod logic;
pub mod mcp;
pub mod progress;
pub mod runtime;
pub mod values;

pub use error::HostError;
pub use logic::LogicRuntime;
