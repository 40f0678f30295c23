//! # hive-mind-harvest: what an export means
//!
//! The pure half of harvest (the design's §3b), compiled into the engine
//! component and tested natively. Nothing here does I/O: the engine feeds it
//! bytes and LLM answers and writes what it returns.
//!
//! - [`adapters`] turn bytes into [`item::Item`]s: format detection by
//!   content (never by file name), one adapter per export format, zip
//!   archives opened in the sandbox, size caps.
//! - [`distill`] turns an item into knowledge: pass 1 (classify), passes 2–3
//!   (extract, synthesize) either as LLM prompts and the validation of their
//!   JSON answers, or as the heuristic distillation that needs no model.
//! - [`sources`] identifies items and sources across exports (item hashes,
//!   the source set hash).

// The guest aborts on a panic, and harvest reads bytes nobody vetted: no
// indexing or slicing that can panic (`get`, iterators, `split_once`, …).
#![deny(clippy::indexing_slicing, clippy::string_slice)]
#![cfg_attr(test, allow(clippy::indexing_slicing, clippy::string_slice))]

pub mod adapters;
pub mod distill;
pub mod item;
pub mod sources;

pub use adapters::{NotATranscript, ParseError, detect_format, last_exchange, parse_input};
pub use item::{Exchange, Item, ItemKind, Message, Parsed, Role, Section, SourceFormat};
