//! # The HTTP embedders: Ollama, Voyage, OpenAI-compatible servers
//!
//! Embedding providers reached over the network, each an
//! [`hive_mind_embedding::Embedder`] (the trait and its types are the
//! `hive-mind-embedding` crate's; the in-process model, the mock and the
//! auto-probe that picks among all of them are `hive-mind-models`'s).
//!
//! - [`http`] — what they share, in `HttpEmbedder`: timeouts, requests on
//!   the host's one retry stack ([`crate::retry`]), a probe before a
//!   provider is accepted, char capping by the model's measured token limit,
//!   per-text retry of a failed batch; a text that still fails has no vector.
//! - One wire format each: [`ollama`] (`/api/embed`), [`voyage`] and
//!   [`openai`] (any OpenAI-compatible `/v1/embeddings`, which covers
//!   LiteLLM and most local servers); each has a `connect` that probes it.
//! - [`config`] — their `[embedder.ollama]`, `[embedder.voyage]` and
//!   `[embedder.openai]` tables, and what they take from `[embedder]`.

pub mod config;
pub mod http;
pub mod ollama;
pub mod openai;
pub mod voyage;
