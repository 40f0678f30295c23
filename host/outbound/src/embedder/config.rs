//! # The HTTP providers' settings in the `[embedder]` section
//!
//! `[embedder.ollama]`, `[embedder.voyage]` and `[embedder.openai]`, and
//! [`HttpProviderConfig`], what every HTTP provider takes from `[embedder]`
//! itself. `hive-mind-models` reads the whole `[embedder]` section (the
//! provider choice, the in-process model, these tables and their
//! environment overrides) from the one [`crate::config::ConfigFile`]; its
//! `config` module documents the keys.

use serde::Deserialize;

use crate::retry::RetryPolicy;

/// What every HTTP provider takes from `[embedder]`: its batch size, how long
/// it waits for a connection and how it retries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HttpProviderConfig {
    /// Texts per HTTP request.
    pub batch_size: usize,
    /// Seconds to wait for a TCP connection (a down local server must not
    /// stall the auto-probe).
    pub connect_timeout_secs: f64,
    /// How the requests retry (the host's one retry stack).
    pub retry: RetryPolicy,
}

/// `[embedder.ollama]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OllamaConfig {
    /// The server, e.g. `http://localhost:11434` (`OLLAMA_HOST`'s forms,
    /// `host:port` or a bare host, are accepted).
    pub host: String,
    /// The embedding model.
    pub model: String,
    /// The model's token limit; unset: asked of the server, else a table.
    pub max_tokens: Option<usize>,
    /// Seconds before a request is abandoned.
    pub timeout_secs: f64,
}

impl Default for OllamaConfig {
    fn default() -> Self {
        OllamaConfig {
            host: "http://localhost:11434".into(),
            model: "nomic-embed-text".into(),
            max_tokens: None,
            timeout_secs: 30.0,
        }
    }
}

/// `[embedder.voyage]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VoyageConfig {
    /// The API base; `/embeddings` is appended.
    pub base_url: String,
    /// The API key (prefer `VOYAGE_API_KEY`). Without one, Voyage is skipped.
    pub api_key: Option<String>,
    /// The embedding model.
    pub model: String,
    /// The model's token limit; unset: a table of measured limits.
    pub max_tokens: Option<usize>,
    /// Seconds before a request is abandoned.
    pub timeout_secs: f64,
}

impl Default for VoyageConfig {
    fn default() -> Self {
        VoyageConfig {
            base_url: "https://api.voyageai.com/v1".into(),
            api_key: None,
            model: "voyage-3-lite".into(),
            max_tokens: None,
            timeout_secs: 15.0,
        }
    }
}

/// `[embedder.openai]`: any OpenAI-compatible embeddings endpoint.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenAiConfig {
    /// The API base including `/v1`; `/embeddings` is appended.
    pub base_url: String,
    /// Whether `base_url` was set (file or `OPENAI_BASE_URL`): a local
    /// server needs no key, so the auto-probe tries it.
    #[serde(skip)]
    pub base_url_configured: bool,
    /// The API key (prefer `OPENAI_API_KEY`); optional for local servers.
    pub api_key: Option<String>,
    /// The embedding model.
    pub model: String,
    /// Ask for vectors of this size (models that support shortening).
    pub dimensions: Option<u32>,
    /// The model's token limit; unset: a table of measured limits.
    pub max_tokens: Option<usize>,
    /// Seconds before a request is abandoned.
    pub timeout_secs: f64,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        OpenAiConfig {
            base_url: "https://api.openai.com/v1".into(),
            base_url_configured: false,
            api_key: None,
            model: "text-embedding-3-small".into(),
            dimensions: None,
            max_tokens: None,
            timeout_secs: 15.0,
        }
    }
}
