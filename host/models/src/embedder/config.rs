//! # The `[embedder]` section of `config.toml`
//!
//! The provider choice and each provider's settings, as read by
//! [`crate::config::Config`] (which documents the keys and the environment
//! variables that override them). The HTTP providers' tables are defined
//! beside their providers in `hive-mind-outbound` and re-exported here.

use std::path::PathBuf;

use serde::Deserialize;

pub use hive_mind_outbound::embedder::config::{
    HttpProviderConfig, OllamaConfig, OpenAiConfig, VoyageConfig,
};

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
    /// `$HIVE_MIND_MODELS_DIR`, `$HIVE_MIND_HOME/models`, a release
    /// archive's `models/` beside the executable's `bin/`, then the
    /// repository's `models/`. Filled in by [`Config::from_sources`].
    #[serde(skip)]
    pub search_dirs: Vec<PathBuf>,
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

impl EmbedderConfig {
    /// What the HTTP providers take from this section.
    pub fn http(&self) -> HttpProviderConfig {
        HttpProviderConfig {
            batch_size: self.batch_size,
            connect_timeout_secs: self.connect_timeout_secs,
            retry: self.retry,
        }
    }
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
