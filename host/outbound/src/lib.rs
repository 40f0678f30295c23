//! # hive-mind-outbound: the host's calls to the outside world
//!
//! The engine runs in a WebAssembly sandbox with no network. When it needs
//! the outside world it calls an import, and the host answers from here. Two
//! imports live in this crate, each in its own module:
//!
//! - [`llm`] — the `hive:mind/llm` import (`wit/llm.wit`): completions from
//!   a language model, over one of three wire formats (OpenAI-compatible chat
//!   completions, Anthropic Messages, Ollama's native chat), with two model
//!   *tiers*, timeouts, retries with backoff on rate limits and server
//!   errors, a concurrency limit for batches, and a running total of the
//!   tokens spent.
//! - [`fetch`] — the `hive:mind/fetch` import (`wit/fetch.wit`): one guarded
//!   HTTP GET for harvest's URL sources. `http`/`https` only, a deadline, a
//!   size cap, redirects re-checked hop by hop, and every address the host
//!   name resolves to checked against the private ranges *in the resolver the
//!   connection uses*, so the address checked is the address connected to.
//!
//! - [`embedder`] — the HTTP providers of the `hive:mind/embedder` import
//!   (Ollama, Voyage, OpenAI-compatible servers), each an `Embedder` of the
//!   `hive-mind-embedding` crate; `hive-mind-models` picks among them and
//!   its in-process model.
//!
//! Their HTTP requests retry under one policy: [`retry`] (what is retried,
//! the backoff, `Retry-After`).
//!
//! Both are configured from `$HIVE_MIND_HOME/config.toml` (the `[llm]` and
//! `[fetch]` tables) and the environment; see [`config`]. Everything here is
//! blocking (std threads, `ureq`), like the rest of the host's HTTP.
//!
//! ```no_run
//! use hive_mind_outbound::OutboundConfig;
//! use hive_mind_outbound::fetch::Fetcher;
//! use hive_mind_outbound::llm::{CompletionRequest, LanguageModel, LlmClient, ModelTier};
//!
//! let config = OutboundConfig::load()?;
//! // No `[llm]` provider configured: an error to answer every call with.
//! match LlmClient::new(&config.llm) {
//!     Ok(client) => {
//!         let answer = client.complete(&CompletionRequest {
//!             tier: ModelTier::Fast,
//!             system: "Answer in one word.".into(),
//!             prompt: "Colour of the sky?".into(),
//!             max_tokens: 16,
//!             json: false,
//!         });
//!         println!("{answer:?}; so far {:?}", client.usage());
//!     }
//!     Err(unavailable) => println!("{unavailable}"),
//! }
//! let fetcher = Fetcher::new(config.fetch);
//! println!("{:?}", fetcher.get("https://example.com/").map(|r| r.body.len()));
//! # Ok::<(), hive_mind_outbound::config::ConfigError>(())
//! ```

pub mod config;
pub mod embedder;
pub mod fetch;
pub mod llm;
pub mod retry;

use config::{ConfigError, ConfigFile, process_env};
use fetch::FetchPolicy;
use llm::LlmConfig;

/// What this crate reads from the configuration: the `[llm]` and `[fetch]`
/// tables (the keys and variables are in [`llm::config`] and
/// [`fetch::FetchPolicy`]).
#[derive(Debug, Clone, PartialEq)]
pub struct OutboundConfig {
    /// `[llm]`: the language model, if any.
    pub llm: LlmConfig,
    /// `[fetch]`: the guarded fetch's policy.
    pub fetch: FetchPolicy,
}

impl OutboundConfig {
    /// The configuration of this process: `$HIVE_MIND_HOME/config.toml` (when
    /// it exists) and the real environment.
    pub fn load() -> Result<OutboundConfig, ConfigError> {
        OutboundConfig::from_file(&ConfigFile::read()?, process_env)
    }

    /// The configuration of a data directory given explicitly: its
    /// `config.toml` (when it exists) and the real environment.
    pub fn load_in(data_dir: &std::path::Path) -> Result<OutboundConfig, ConfigError> {
        OutboundConfig::from_file(&ConfigFile::read_in(data_dir)?, process_env)
    }

    /// The configuration from a file's text (if any) and an environment
    /// lookup. Tests pass their own environment.
    pub fn from_sources(
        toml_text: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<OutboundConfig, ConfigError> {
        OutboundConfig::from_file(&ConfigFile::from_text(toml_text, "config.toml"), env)
    }

    /// The configuration from a file already read and an environment lookup.
    pub fn from_file(
        file: &ConfigFile,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<OutboundConfig, ConfigError> {
        let origin = file.origin();
        Ok(OutboundConfig {
            llm: LlmConfig::from_sources_at(file.text(), &origin, &env)?,
            fetch: FetchPolicy::from_sources_at(file.text(), &origin, &env)?,
        })
    }
}

/// The `User-Agent` of every outbound request.
pub const USER_AGENT: &str = concat!("hive-mind/", env!("CARGO_PKG_VERSION"));

/// Cut `text` to at most `max` characters (for error messages that quote a
/// server's answer).
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Whether a ureq error is a timeout, wherever ureq put it (its own
/// `Timeout`, or an I/O error of kind `TimedOut`/`WouldBlock`, possibly
/// wrapping a ureq error).
pub(crate) fn is_timeout(error: &ureq::Error) -> bool {
    match error {
        ureq::Error::Timeout(_) => true,
        ureq::Error::Io(io) => is_io_timeout(io),
        _ => false,
    }
}

/// Whether an I/O error (as a body reader returns it) is a timeout.
pub(crate) fn is_io_timeout(io: &std::io::Error) -> bool {
    matches!(
        io.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    ) || io
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<ureq::Error>())
        .is_some_and(is_timeout)
}
