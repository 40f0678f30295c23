//! # hive-mind-lab: measuring the engine
//!
//! The tools that put numbers on hive-mind, kept out of the user's
//! `hive-mind` binary: they run the same engine component, through the same
//! runtime ([`hive_mind_runtime`]) and capabilities, and change none of its
//! constants — they measure, they do not tune. The lab does not link the
//! user's surfaces (`hive-mind-host`); what both binaries share at the
//! terminal is [`hive_mind_terminal`].
//!
//! - [`eval`] — `hive-mind-lab eval locomo`: retrieval quality on a
//!   conversation benchmark (session- and turn-level recall@k), one fresh
//!   mind per sample, through the real engine.
//!   `eval timelines` and `eval live-loop`: the loop an agent runs —
//!   memories saved, learned from exchanges and imported as a person's life
//!   changes, then recalled — on hand-written data (`host/lab/data/`).
//! - [`bench`] — `hive-mind-lab bench embed|recall|harvest`: the in-process
//!   embedder alone; recall latency on a synthetic corpus built once per
//!   size ([`bench::corpus`]), stage by stage, against bare sqlite-vec KNN;
//!   harvest throughput on a synthetic export.
//! - [`mind`] — the engine a measurement runs on, opened over a data
//!   directory with the embedder and reranker being measured.
//! - [`timing`] — the figures the evaluation and the benchmarks share:
//!   percentiles and means, and the split of recall's time between the
//!   engine and the host's imports.

pub mod bench;
pub mod eval;
pub mod mind;
pub mod timing;
