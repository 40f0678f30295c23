//! # Benchmarks of the whole engine (`hive-mind bench recall`, `bench harvest`)
//!
//! `hive-mind bench embed` measures one capability (the embedder) in
//! isolation; the benchmarks here measure the engine as an agent uses it:
//! the component, its imports, the store and the model together.
//!
//! - [`corpus`] — a deterministic generator of realistic memories (topics
//!   from templates, entities from pools, varied lengths, dates over two
//!   years, mixed importances and lanes) and of queries with known answers.
//! - [`recall`] — builds a corpus of N memories once (reused on later runs),
//!   then times Q recalls: latency percentiles, the share of each pipeline
//!   stage, the split between the engine (in the component) and the host's
//!   imports, peak memory, and the pipeline's overhead over a bare exact KNN
//!   (sqlite-vec's cosine distance over the frame vectors) on the same
//!   vectors.
//!
//! - [`harvest`] — imports a synthetic ChatGPT export through the engine's
//!   harvest and compares its time with the bare embedder's on the same
//!   texts; optionally the pipeline's own cost per call of a loopback LLM.
//!
//! Figures are only meaningful from a release build: a debug build of the
//! host (and of tract, the ONNX runtime) is many times slower.

pub mod corpus;
pub mod harvest;
pub mod recall;
