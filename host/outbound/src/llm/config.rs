//! # `[llm]`: which model answers, and how it is reached
//!
//! | key | env override | default | |
//! |---|---|---|---|
//! | `provider` | `HIVE_MIND_LLM_PROVIDER` | `none` | `none`, `openai` (any OpenAI-compatible server; aliases `openai-compatible`, `litellm`, `vllm`), `anthropic`, `ollama` |
//! | `base_url` | `HIVE_MIND_LLM_BASE_URL` | per provider, below | then `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` / `OLLAMA_HOST` |
//! | `api_key` | `HIVE_MIND_LLM_API_KEY` | none | then `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, see below |
//! | `fast_model` | `HIVE_MIND_LLM_FAST_MODEL` | per provider | the [`ModelTier::Fast`] model |
//! | `capable_model` | `HIVE_MIND_LLM_CAPABLE_MODEL` | per provider | the [`ModelTier::Capable`] model |
//! | `timeout_secs` | | 120 (ollama: 300) | per HTTP attempt, answer included |
//! | `max_retries` | | 4 | retries after the first attempt |
//! | `concurrency` | | 4 (ollama: 1) | requests at once in `complete_many` |
//!
//! Precedence, highest first: the `HIVE_MIND_LLM_*` variable, the file, the
//! vendor's own variable, the default.
//!
//! ## Defaults per provider, and why
//!
//! | provider | `base_url` | `fast_model` | `capable_model` |
//! |---|---|---|---|
//! | `openai` | `https://api.openai.com/v1` | `gpt-4.1-mini` | `gpt-4.1` |
//! | `anthropic` | `https://api.anthropic.com` | `claude-haiku-4-5` | `claude-sonnet-4-5` |
//! | `ollama` | `http://localhost:11434` | `llama3.2` | `qwen2.5:14b` |
//!
//! - The OpenAI defaults are the newest models that still take `max_tokens`
//!   and `response_format: json_object` on `/chat/completions` (OpenAI's
//!   reasoning models want `max_completion_tokens` instead; point
//!   `fast_model`/`capable_model` at them through a LiteLLM proxy, which
//!   translates). For a local OpenAI-compatible server (vLLM, llama.cpp,
//!   LiteLLM, Ollama's `/v1`) set `base_url` and both models.
//! - The Anthropic defaults are the aliases of the current Haiku and Sonnet,
//!   which follow their latest snapshot.
//! - The Ollama defaults are small enough for a laptop (3B, 14B); use
//!   whatever you have pulled. Local inference is slow and a local server
//!   runs few requests at once, so its timeout is longer and its concurrency
//!   is 1 (raise it with `OLLAMA_NUM_PARALLEL` on the server).
//! - 120 s per attempt fits a few thousand output tokens from a remote API;
//!   4 retries with the default backoff ride out a rate-limit window of 4 to
//!   8 s (longer when the provider sends `Retry-After`, see
//!   [`crate::retry`]); the worst case of one completion is
//!   `(1 + max_retries) × timeout_secs` plus the waits; 4 requests at once stays within the lowest API tiers'
//!   limits.
//!
//! ## API keys
//!
//! A key is sent only where it belongs. `HIVE_MIND_LLM_API_KEY` (or
//! `api_key`) is sent to whatever `base_url` is. The vendor variables
//! `OPENAI_API_KEY` and `ANTHROPIC_API_KEY` are used only when the base URL is
//! the vendor's default or came from the vendor's own variable
//! (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`) — the pairing the vendors' SDKs
//! use — so pointing `base_url` at some other server never hands it your
//! OpenAI key. The key is held in an [`ApiKey`], whose `Debug` prints no
//! secret, and no message or log line contains it.
//!
//! The vendor endpoints (`api.openai.com`, `api.anthropic.com`) need a key:
//! without one [`super::LlmClient::new`] answers `Unavailable`, saying which
//! variable to set. Other servers may need none.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;

use super::ModelTier;
use crate::config::{ConfigError, lookup, parse_table, positive_secs};
use crate::retry::RetryPolicy;

/// Which wire format (and so which kind of server) answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// No model: every completion answers `Unavailable`.
    #[default]
    None,
    /// OpenAI-compatible `POST {base_url}/chat/completions`.
    #[serde(alias = "openai-compatible", alias = "litellm", alias = "vllm")]
    Openai,
    /// Anthropic Messages, `POST {base_url}/v1/messages`.
    Anthropic,
    /// Ollama's native chat, `POST {base_url}/api/chat`.
    Ollama,
}

impl ProviderKind {
    /// Parse a provider name as written in the environment (the same names
    /// and aliases as the file; any case).
    pub fn parse(name: &str) -> Option<ProviderKind> {
        match name.trim().to_ascii_lowercase().as_str() {
            "none" | "off" => Some(ProviderKind::None),
            "openai" | "openai-compatible" | "litellm" | "vllm" => Some(ProviderKind::Openai),
            "anthropic" => Some(ProviderKind::Anthropic),
            "ollama" => Some(ProviderKind::Ollama),
            _ => None,
        }
    }

    /// The name used in messages and logs.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::None => "none",
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Ollama => "ollama",
        }
    }

    /// The default base URL (empty for `none`).
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::None => "",
            ProviderKind::Openai => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::Ollama => "http://localhost:11434",
        }
    }

    /// The default model of a tier (empty for `none`).
    pub fn default_model(self, tier: ModelTier) -> &'static str {
        match (self, tier) {
            (ProviderKind::None, _) => "",
            (ProviderKind::Openai, ModelTier::Fast) => "gpt-4.1-mini",
            (ProviderKind::Openai, ModelTier::Capable) => "gpt-4.1",
            (ProviderKind::Anthropic, ModelTier::Fast) => "claude-haiku-4-5",
            (ProviderKind::Anthropic, ModelTier::Capable) => "claude-sonnet-4-5",
            (ProviderKind::Ollama, ModelTier::Fast) => "llama3.2",
            (ProviderKind::Ollama, ModelTier::Capable) => "qwen2.5:14b",
        }
    }

    /// The default timeout of one HTTP attempt.
    pub fn default_timeout(self) -> Duration {
        match self {
            ProviderKind::Ollama => Duration::from_secs(300),
            _ => Duration::from_secs(120),
        }
    }

    /// The default number of requests at once.
    pub fn default_concurrency(self) -> usize {
        match self {
            ProviderKind::Ollama => 1,
            _ => 4,
        }
    }

    /// The host of the vendor's own endpoint, which needs a key.
    fn vendor_host(self) -> Option<&'static str> {
        match self {
            ProviderKind::Openai => Some("api.openai.com"),
            ProviderKind::Anthropic => Some("api.anthropic.com"),
            _ => None,
        }
    }

    /// The vendor's variables: (base URL, API key).
    fn vendor_env(self) -> (Option<&'static str>, Option<&'static str>) {
        match self {
            ProviderKind::Openai => (Some("OPENAI_BASE_URL"), Some("OPENAI_API_KEY")),
            ProviderKind::Anthropic => (Some("ANTHROPIC_BASE_URL"), Some("ANTHROPIC_API_KEY")),
            ProviderKind::Ollama => (Some("OLLAMA_HOST"), None),
            ProviderKind::None => (None, None),
        }
    }
}

/// An API key. `Debug` and `Display` print no part of it; read it with
/// [`ApiKey::expose`] only to put it in a request header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wrap a key (surrounding whitespace removed).
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into().trim().to_string())
    }

    /// The key itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// The `[llm]` table as written (every key optional, unknown keys refused).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct LlmTable {
    provider: Option<ProviderKind>,
    base_url: Option<String>,
    api_key: Option<String>,
    fast_model: Option<String>,
    capable_model: Option<String>,
    timeout_secs: Option<f64>,
    max_retries: Option<u32>,
    concurrency: Option<usize>,
}

/// The language model's configuration, resolved: file, environment and
/// defaults applied. Build a client with [`super::LlmClient::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    /// Which wire format; [`ProviderKind::None`]: no model.
    pub provider: ProviderKind,
    /// The server, without a trailing `/` (the provider's path is appended).
    pub base_url: String,
    /// The key, if any.
    pub api_key: Option<ApiKey>,
    /// The model for [`ModelTier::Fast`].
    pub fast_model: String,
    /// The model for [`ModelTier::Capable`].
    pub capable_model: String,
    /// How long one HTTP attempt may take, answer included.
    pub timeout: Duration,
    /// How long connecting may take (at most `timeout`).
    pub connect_timeout: Duration,
    /// Retries and backoff.
    pub retry: RetryPolicy,
    /// Requests at once in `complete_many` (at least 1).
    pub concurrency: usize,
}

/// How long connecting to a provider may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig::for_provider(ProviderKind::None)
    }
}

impl LlmConfig {
    /// A provider with all its defaults (no key).
    pub fn for_provider(provider: ProviderKind) -> LlmConfig {
        let timeout = provider.default_timeout();
        LlmConfig {
            provider,
            base_url: provider.default_base_url().to_string(),
            api_key: None,
            fast_model: provider.default_model(ModelTier::Fast).to_string(),
            capable_model: provider.default_model(ModelTier::Capable).to_string(),
            timeout,
            connect_timeout: CONNECT_TIMEOUT.min(timeout),
            retry: RetryPolicy::default(),
            concurrency: provider.default_concurrency(),
        }
    }

    /// Whether a provider is configured.
    pub fn is_configured(&self) -> bool {
        self.provider != ProviderKind::None
    }

    /// The model of a tier.
    pub fn model_for(&self, tier: ModelTier) -> &str {
        match tier {
            ModelTier::Fast => &self.fast_model,
            ModelTier::Capable => &self.capable_model,
        }
    }

    /// Whether `base_url` is the vendor's own endpoint (which needs a key).
    pub fn is_vendor_endpoint(&self) -> bool {
        self.provider
            .vendor_host()
            .is_some_and(|vendor| host_of(&self.base_url).eq_ignore_ascii_case(vendor))
    }

    /// The `[llm]` configuration from a file's text (if any) and an
    /// environment lookup (see the module docs for the keys and variables).
    pub fn from_sources(
        toml_text: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<LlmConfig, ConfigError> {
        LlmConfig::from_sources_at(toml_text, "config.toml", &env)
    }

    pub(crate) fn from_sources_at(
        toml_text: Option<&str>,
        origin: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<LlmConfig, ConfigError> {
        let table: LlmTable = parse_table(toml_text, "llm", origin)?;
        let provider = match lookup(env, "HIVE_MIND_LLM_PROVIDER") {
            Some(value) => ProviderKind::parse(&value).ok_or_else(|| ConfigError::Env {
                name: "HIVE_MIND_LLM_PROVIDER".into(),
                value: value.clone(),
                message: "expected none, openai, anthropic or ollama".into(),
            })?,
            None => table.provider.unwrap_or_default(),
        };
        let mut config = LlmConfig::for_provider(provider);

        let (vendor_url_var, vendor_key_var) = provider.vendor_env();
        let vendor_url = vendor_url_var.and_then(|name| lookup(env, name).map(|url| (name, url)));
        let (base_url, url_origin, key_pairs_with_vendor) =
            match (lookup(env, "HIVE_MIND_LLM_BASE_URL"), table.base_url) {
                (Some(url), _) => (url, "HIVE_MIND_LLM_BASE_URL".to_string(), false),
                (None, Some(url)) => (url, origin.to_string(), false),
                (None, None) => match vendor_url {
                    Some((name, url)) => (url, name.to_string(), true),
                    None => (config.base_url.clone(), origin.to_string(), true),
                },
            };
        config.base_url = match provider {
            ProviderKind::Ollama => normalize_ollama_host(&base_url),
            _ => base_url.trim().trim_end_matches('/').to_string(),
        };
        if provider != ProviderKind::None
            && !(config.base_url.starts_with("http://") || config.base_url.starts_with("https://"))
        {
            return Err(ConfigError::Invalid {
                origin: url_origin,
                key: "llm.base_url".into(),
                message: format!(
                    "must be an http:// or https:// URL, not {:?}",
                    config.base_url
                ),
            });
        }

        let key = lookup(env, "HIVE_MIND_LLM_API_KEY")
            .or(table.api_key.filter(|key| !key.trim().is_empty()))
            .or_else(|| {
                let vendor_ok = key_pairs_with_vendor || config.is_vendor_endpoint();
                vendor_key_var
                    .filter(|_| vendor_ok)
                    .and_then(|name| lookup(env, name))
            });
        config.api_key = key.map(ApiKey::new);

        if let Some(model) = lookup(env, "HIVE_MIND_LLM_FAST_MODEL").or(table.fast_model) {
            config.fast_model = model.trim().to_string();
        }
        if let Some(model) = lookup(env, "HIVE_MIND_LLM_CAPABLE_MODEL").or(table.capable_model) {
            config.capable_model = model.trim().to_string();
        }
        for (key, model) in [
            ("llm.fast_model", &config.fast_model),
            ("llm.capable_model", &config.capable_model),
        ] {
            if provider != ProviderKind::None && model.is_empty() {
                return Err(ConfigError::Invalid {
                    origin: origin.to_string(),
                    key: key.into(),
                    message: "must name a model".into(),
                });
            }
        }
        if let Some(secs) = table.timeout_secs {
            config.timeout = positive_secs(secs, "llm.timeout_secs", origin)?;
            config.connect_timeout = CONNECT_TIMEOUT.min(config.timeout);
        }
        if let Some(retries) = table.max_retries {
            config.retry.max_retries = retries;
        }
        if let Some(concurrency) = table.concurrency {
            if concurrency == 0 || concurrency > MAX_CONCURRENCY {
                return Err(ConfigError::Invalid {
                    origin: origin.to_string(),
                    key: "llm.concurrency".into(),
                    message: format!("must be between 1 and {MAX_CONCURRENCY}, not {concurrency}"),
                });
            }
            config.concurrency = concurrency;
        }
        Ok(config)
    }
}

/// The most requests at once a configuration may ask for (each is a thread).
pub const MAX_CONCURRENCY: usize = 64;

/// The host part of a URL (no scheme, user, port or path).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    if authority.starts_with('[') {
        return authority
            .split_once(']')
            .map_or(authority, |(host, _)| host.trim_start_matches('['));
    }
    authority.split(':').next().unwrap_or(authority)
}

/// Accept `OLLAMA_HOST`'s forms (`host`, `host:port`, `0.0.0.0`, with or
/// without a scheme) and return a URL a client can call (the host's
/// embedder configuration reads `OLLAMA_HOST` through this too).
pub fn normalize_ollama_host(host: &str) -> String {
    let host = host
        .trim()
        .trim_end_matches('/')
        .replacen("0.0.0.0", "127.0.0.1", 1);
    if host.contains("://") {
        return host;
    }
    let has_port = host
        .rsplit_once(':')
        .is_some_and(|(_, port)| !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()));
    if has_port {
        format!("http://{host}")
    } else {
        format!("http://{host}:11434")
    }
}
