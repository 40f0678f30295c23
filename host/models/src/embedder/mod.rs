//! # Embedders: text in, L2-normalised vectors out
//!
//! An *embedder* turns a batch of texts into one vector per text, so that
//! texts with similar meaning land close together. Recall's vector lane
//! searches those vectors; a vector that means nothing (a mock, or a vector
//! from a different model than the index was built with) makes recall rank
//! at random without any error. This module exists to make that impossible
//! to miss.
//!
//! ## The pieces
//!
//! - [`Embedder`] — the native trait every provider implements: its
//!   fingerprint ([`EmbedderInfo`]) and `embed`. The WIT import
//!   `hive:mind/embedder` is a thin adapter over it: [`EmbedError`] has the
//!   WIT's two cases, `unavailable` and `failed`. The trait and its types
//!   are the `hive-mind-embedding` crate's, re-exported here.
//! - Providers, one file each: [`in_process`] (the default: all-MiniLM-L6-v2
//!   int8 ONNX run by tract, offline) and [`mock`] (no semantics; only when
//!   chosen by name) here; [`ollama`], [`voyage`], [`openai`] (any
//!   OpenAI-compatible `/v1/embeddings`, which covers LiteLLM and most local
//!   servers) in `hive-mind-outbound`, with the host's other HTTP calls,
//!   re-exported here. The HTTP ones share [`http`]: timeouts, per-text
//!   retry, char capping; a text that still fails has no vector
//!   ([`Embedded`] says why).
//! - [`chain`] — choosing the active provider: the one named in the config,
//!   or an auto-probe in the order in-process → Ollama → Voyage → OpenAI,
//!   halting at the first that works. It reports every attempt, so
//!   `hive-mind embed --status` can say loudly what is active.
//! - [`config`] — the `[embedder]` section of `config.toml` (loaded with the
//!   rest by [`crate::config`]).
//! - The *embedder lock* is not here: the engine records in each mind the
//!   [`EmbedderInfo`] its vectors were made with and compares it with the
//!   active embedder's whenever it opens the mind (`guest/store`'s `meta`
//!   module: another dimension refuses vector operations, another model of
//!   the same dimension turns vector search off, until `reindex`).

pub mod chain;
pub mod config;
pub mod in_process;
pub mod mock;
pub mod model_folder;

pub use hive_mind_embedding::{
    EmbedError, Embedded, Embedder, EmbedderInfo, InputKind, TextVector, cap_chars, l2_normalize,
};
pub use hive_mind_outbound::embedder::{http, ollama, openai, voyage};

pub use chain::{ActiveEmbedder, Attempt, resolve};
pub use config::{EmbedderConfig, ProviderChoice};
pub use in_process::InProcessEmbedder;
pub use mock::MockEmbedder;
