//! # hive-mind-models: the model capabilities
//!
//! The engine component asks its host for two models through WIT imports:
//! `hive:mind/embedder` (text to vectors) and `hive:mind/reranker`
//! (query/passage pairs to relevance scores). This crate holds both
//! behind native traits, with their backends and fakes; the host's engine
//! runtime adapts the traits to the imports.
//!
//! - [`embedder`] — the in-process model (tract-onnx), a mock, and the
//!   provider chain that picks the active one among them and the HTTP
//!   providers (Ollama, Voyage, OpenAI-compatible) of `hive-mind-outbound`;
//!   the `Embedder` trait and its types come from `hive-mind-embedding`.
//! - [`reranker`] — the optional cross-encoder; "unavailable" when none is
//!   configured.
//! - [`onnx`] — what both models share: loading, checking and planning an
//!   ONNX graph under tract, and running it on token batches.
//! - [`config`] — the `[embedder]` and `[reranker]` sections of
//!   `config.toml`, with their environment overrides.
//!
//! The module graph is one way: `config` reads both sections, `reranker`
//! uses the embedder's tokenizer loading and text capping, and both models
//! run on `onnx`.

pub mod config;
pub mod embedder;
pub mod onnx;
pub mod reranker;
