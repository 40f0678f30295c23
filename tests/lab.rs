//! The measurement tools' end-to-end tests (`hive-mind-lab`): one test
//! binary, the test target of the lab package, so it gets the
//! `hive-mind-lab` binary as `CARGO_BIN_EXE_hive-mind-lab`.

// Test code: a failed unwrap is a failed test. (clippy.toml's allow-in-tests
// covers #[test] functions only, not their helpers.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The evaluation and the recall benchmark on tiny inputs.
#[path = "lab/eval.rs"]
mod eval;

/// The live-memory evaluations (timelines, live loop) on tiny data files.
#[path = "lab/live.rs"]
mod live;
