//! The store's integration tests: one binary, real SQLite files through the
//! native SQL capability (`hive-mind-sqlite`), opened by data directory and
//! database name.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

mod decisions;
mod erasure;
mod frames;
mod graph;
mod harvest;
mod layers;
mod mentions;
mod portable;
mod review;
mod schema;
mod screening;
mod search;
mod validity;
mod wiki;
