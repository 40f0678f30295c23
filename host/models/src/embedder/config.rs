//! # The `[embedder]` section of `config.toml`
//!
//! The provider choice and each provider's settings, as read by
//! [`crate::config::Config`] (which documents the keys and the environment
//! variables that override them).

use std::path::PathBuf;

use serde::Deserialize;

/// Which embedding provider to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderChoice {
    /// Probe in-process → Ollama → Voyage → OpenAI-compatible; first that
    /// works wins. Never the mock.
    #[default]
    Auto,
    /// The bundled ONNX model, run in this process.
    InProcess,
    /// A local Ollama server (`/api/embed`).
    Ollama,
    /// Voyage AI (`/v1/embeddings`, needs an API key).
    Voyage,
    /// Any OpenAI-compatible `/v1/embeddings` (OpenAI, LiteLLM, vLLM, …).
    #[serde(alias = "openai-compatible", alias = "litellm")]
    Openai,
    /// Hash vectors with no meaning: tests and demos only.
    Mock,
}

impl ProviderChoice {
    /// Parse a provider name as written in the config or environment.
    pub fn parse(name: &str) -> Option<ProviderChoice> {
        match name.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Some(ProviderChoice::Auto),
            "in-process" | "inprocess" | "in_process" | "local" => Some(ProviderChoice::InProcess),
            "ollama" => Some(ProviderChoice::Ollama),
            "voyage" => Some(ProviderChoice::Voyage),
            "openai" | "openai-compatible" | "litellm" => Some(ProviderChoice::Openai),
            "mock" => Some(ProviderChoice::Mock),
            _ => None,
        }
    }
}

/// `[embedder.in_process]`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InProcessConfig {
    /// The model, by folder name (`all-MiniLM-L6-v2`, `bge-small-en-v1.5`):
    /// looked for in [`InProcessConfig::search_dirs`]. Unset: the default
    /// ([`super::in_process::DEFAULT_MODEL`]).
    pub model: Option<String>,
    /// The model folder given outright (ONNX file, `tokenizer.json` and the
    /// sentence-transformers files); wins over `model`. Its name is the
    /// model's name.
    pub model_dir: Option<PathBuf>,
    /// Texts per model run.
    pub batch_size: Option<usize>,
    /// The `models/` folders searched for `model`, in order:
    /// `$HIVE_MIND_MODELS_DIR`, `$HIVE_MIND_HOME/models`, then the
    /// repository's `models/`. Filled in by [`Config::from_sources`].
    #[serde(skip)]
    pub search_dirs: Vec<PathBuf>,
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

/// `[embedder.mock]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MockConfig {
    /// The vector dimension.
    pub dimensions: u32,
}

impl Default for MockConfig {
    fn default() -> Self {
        MockConfig {
            dimensions: super::mock::DEFAULT_DIMENSIONS,
        }
    }
}

/// `[embedder]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmbedderConfig {
    /// Which provider; `auto` probes.
    pub provider: ProviderChoice,
    /// Texts per HTTP request.
    pub batch_size: usize,
    /// Seconds to wait for a TCP connection (a down local server must not
    /// stall the auto-probe).
    pub connect_timeout_secs: f64,
    /// How the HTTP providers retry (the host's one retry stack, the
    /// language models' defaults); not a `config.toml` key.
    #[serde(skip)]
    pub retry: hive_mind_outbound::retry::RetryPolicy,
    /// The in-process model.
    pub in_process: InProcessConfig,
    /// Ollama.
    pub ollama: OllamaConfig,
    /// Voyage AI.
    pub voyage: VoyageConfig,
    /// OpenAI-compatible.
    pub openai: OpenAiConfig,
    /// The mock.
    pub mock: MockConfig,
}

impl Default for EmbedderConfig {
    fn default() -> Self {
        EmbedderConfig {
            provider: ProviderChoice::Auto,
            batch_size: 64,
            connect_timeout_secs: 2.0,
            retry: hive_mind_outbound::retry::RetryPolicy::default(),
            in_process: InProcessConfig::default(),
            ollama: OllamaConfig::default(),
            voyage: VoyageConfig::default(),
            openai: OpenAiConfig::default(),
            mock: MockConfig::default(),
        }
    }
}
