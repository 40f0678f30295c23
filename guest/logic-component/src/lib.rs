//! The `hive:mind` **pure-logic** world as a WebAssembly component.
//!
//! It exports the pure functions of [`hive_mind_core`] through the
//! `hive:mind/logic` interface and imports nothing beyond what the
//! wasm32-wasip2 standard library needs, so any component runtime can run it:
//!
//! ```sh
//! wasmtime run --invoke 'parse-date-window("what happened in May 2026?")' hive_mind_logic_component.wasm
//! ```
//!
//! This crate is only bindings: the conversion between the generated WIT types
//! and the core types lives in [`logic_exports`], which the engine component
//! compiles too.

// wit-bindgen's generated glue (the canonical-ABI exports) is the crate's only
// unsafe code, and its items are documented in the WIT, not in Rust; nothing
// hand-written here uses unsafe.
#![allow(unsafe_code, missing_docs)]

wit_bindgen::generate!({
    world: "pure-logic",
    path: "../../wit",
});

mod logic_exports;

/// The component: its exports are implemented in [`logic_exports`].
pub struct Component;

export!(Component);
