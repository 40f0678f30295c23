//! # Configuration: `config.toml`, read once, and this crate's tables
//!
//! The host is configured by `$HIVE_MIND_HOME/config.toml` (default
//! `~/.hive-mind/config.toml`, [`hive_mind_home`]) and environment variables
//! that override it. This module is the one loader: [`ConfigFile`] reads the
//! file once, each capability parses its own tables from it and ignores the
//! others, and every failure is a [`ConfigError`]. The models' crate reads
//! `[embedder]` and `[reranker]` from the same [`ConfigFile`]; this crate
//! reads two tables (into [`crate::OutboundConfig`]). Inside a table an
//! unknown key is an error, because a typo must not silently change what is
//! sent where.
//!
//! ```toml
//! [llm]
//! provider = "anthropic"        # none | openai | anthropic | ollama
//! # base_url = "…"              # default per provider, see below
//! # api_key = "…"               # better: HIVE_MIND_LLM_API_KEY or the vendor's variable
//! fast_model = "claude-haiku-4-5"
//! capable_model = "claude-sonnet-4-5"
//! timeout_secs = 120            # per HTTP attempt
//! max_retries = 4               # after the first attempt
//! concurrency = 4               # requests at once in complete_many
//!
//! [fetch]
//! allow_private = false         # loopback / private / link-local refused
//! allow_hosts = ["wiki.lan", "192.168.1.10:8080"]   # exempt from the address rules
//! timeout_secs = 20             # the whole fetch, redirects included
//! max_bytes = 33554432          # 32 MiB
//! max_redirects = 5
//! ```
//!
//! The full list of keys, environment variables and defaults is in
//! [`crate::llm::config`] and [`crate::fetch::FetchPolicy`].
//!
//! Every parser here is pure: it takes the file's text (if any) and an
//! environment lookup, so tests never touch the real environment. An empty
//! environment variable counts as unset.

use std::path::{Path, PathBuf};

/// `config.toml`, read once: its path and its text (`None` when there is no
/// file). Each capability parses its own tables from it
/// ([`crate::OutboundConfig::from_file`], and the models' `Config::from_file`
/// in `hive-mind-models`), so the file is read once per process however many
/// capabilities it configures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    path: PathBuf,
    text: Option<String>,
}

impl ConfigFile {
    /// The file of this process: `$HIVE_MIND_HOME/config.toml` (else
    /// `~/.hive-mind/config.toml`), absent when it does not exist.
    pub fn read() -> Result<ConfigFile, ConfigError> {
        ConfigFile::read_in(&hive_mind_home(&process_env))
    }

    /// The `config.toml` of a data directory given explicitly
    /// (`--data-dir`), absent when it does not exist.
    pub fn read_in(data_dir: &Path) -> Result<ConfigFile, ConfigError> {
        let path = data_dir.join("config.toml");
        let text = read_optional(&path)?;
        Ok(ConfigFile { path, text })
    }

    /// A file's text given outright (tests, a configuration built in
    /// memory); `path` names it in messages.
    pub fn from_text(text: Option<&str>, path: impl Into<PathBuf>) -> ConfigFile {
        ConfigFile {
            path: path.into(),
            text: text.map(str::to_string),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's text, `None` when there is no file.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// How messages name the file.
    pub fn origin(&self) -> String {
        self.path.display().to_string()
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("could not read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML, or a key of a table is unknown or of the
    /// wrong type.
    #[error("invalid configuration in {origin}: {message}")]
    Parse {
        /// The file (or `config.toml` when parsed from text).
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A key has a value of the right type that cannot be used (a zero
    /// concurrency, a negative timeout, a URL that is not http(s)).
    #[error("invalid configuration in {origin}: `{key}` {message}")]
    Invalid {
        /// The file (or the environment variable that set the value).
        origin: String,
        /// The key, as `table.key`.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// An environment variable has a value that cannot be used.
    #[error("environment variable {name}={value:?}: {message}")]
    Env {
        /// The variable.
        name: String,
        /// Its value (never an API key: keys are not parsed, so never
        /// rejected).
        value: String,
        /// What is wrong.
        message: String,
    },
}

/// `$HIVE_MIND_HOME`, or `~/.hive-mind`: the data directory, where
/// `config.toml` and `models/` live. The one place the host resolves it.
pub fn hive_mind_home(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    match env("HIVE_MIND_HOME").filter(|value| !value.is_empty()) {
        Some(home) => PathBuf::from(home),
        None => dirs::home_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join(".hive-mind"),
    }
}

/// Read a real environment variable (empty counts as unset).
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// A file's text, `None` when it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Deserialize one top-level table of the file (`name`), or its default when
/// the file or the table is absent. Other tables are not looked at, except
/// that the file as a whole must be valid TOML.
pub(crate) fn parse_table<T>(
    toml_text: Option<&str>,
    name: &str,
    origin: &str,
) -> Result<T, ConfigError>
where
    T: serde::de::DeserializeOwned + Default,
{
    let Some(text) = toml_text else {
        return Ok(T::default());
    };
    let parse_error = |message: String| ConfigError::Parse {
        origin: origin.to_string(),
        message,
    };
    let mut file: toml::Table = toml::from_str(text).map_err(|e| parse_error(e.to_string()))?;
    match file.remove(name) {
        None => Ok(T::default()),
        Some(value) => value
            .try_into()
            .map_err(|e: toml::de::Error| parse_error(format!("[{name}]: {}", e.message()))),
    }
}

/// Look a variable up, treating an empty value as unset.
pub(crate) fn lookup(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    env(name).filter(|value| !value.trim().is_empty())
}

/// Parse a boolean written in the environment (`1`/`0`, `true`/`false`,
/// `yes`/`no`, `on`/`off`, any case).
pub(crate) fn parse_env_bool(name: &str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ConfigError::Env {
            name: name.to_string(),
            value: value.to_string(),
            message: "expected true or false (1/0, yes/no, on/off)".into(),
        }),
    }
}

/// A positive, finite number of seconds as a [`std::time::Duration`].
pub(crate) fn positive_secs(
    secs: f64,
    key: &str,
    origin: &str,
) -> Result<std::time::Duration, ConfigError> {
    if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 {
        Ok(std::time::Duration::from_secs_f64(secs))
    } else {
        Err(ConfigError::Invalid {
            origin: origin.to_string(),
            key: key.to_string(),
            message: format!("must be a number of seconds above 0 and at most a day, not {secs}"),
        })
    }
}
