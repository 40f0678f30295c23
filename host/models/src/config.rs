//! # The models' configuration: `config.toml` and the environment
//!
//! Read from the `[embedder]` and `[reranker]` tables of
//! `$HIVE_MIND_HOME/config.toml` (default `~/.hive-mind/config.toml`), then
//! overridden by environment variables. Every key is optional; with nothing
//! configured the in-process model is used and the reranker is off.
//!
//! ```toml
//! [embedder]
//! provider = "auto"          # auto | in-process | ollama | voyage | openai | mock
//! batch_size = 64            # texts per HTTP request
//!
//! [embedder.in_process]
//! model = "bge-small-en-v1.5"  # a folder under the models folders (default all-MiniLM-L6-v2)
//! # model_dir = "/path/to/a/model"  # or a folder given outright (wins over `model`)
//!
//! [embedder.ollama]
//! host = "http://localhost:11434"
//! model = "nomic-embed-text"
//! timeout_secs = 30
//! # max_tokens = 2048      # else read from the model (/api/show), else a table
//!
//! [embedder.voyage]
//! api_key = "…"              # better: VOYAGE_API_KEY
//! model = "voyage-3-lite"
//!
//! [embedder.openai]          # any OpenAI-compatible /v1/embeddings (LiteLLM, vLLM, …)
//! base_url = "https://api.openai.com/v1"
//! model = "text-embedding-3-small"
//! # dimensions = 512
//!
//! [embedder.mock]
//! dimensions = 384
//!
//! [reranker]
//! # enabled = true                    # default: on, with the shipped cross-encoder
//! # model = "/path/to/cross-encoder/model.onnx"   # default: models/ms-marco-MiniLM-L-12-v2
//! # tokenizer = "…/tokenizer.json"   # default: next to the model
//! # max_tokens = 128                  # query + passage
//!
//! [limits]                   # what one engine call may use (hive_mind_runtime::limits)
//! # memory_mib = 2048        # the guest's memory cap; 0: none
//! # call_deadline_ms = 60000 # every kind of call; 0: no deadline
//! # recall_deadline_ms = 30000
//! # save_deadline_ms = 120000
//! # import_deadline_ms = 600000
//! # maintenance_deadline_ms = 3600000
//! ```
//!
//! | environment variable | overrides |
//! |---|---|
//! | `HIVE_MIND_HOME` | where `config.toml` (and `models/`) live |
//! | `HIVE_MIND_EMBEDDER` | `embedder.provider` |
//! | `HIVE_MIND_MODELS_DIR` | a `models/` folder, searched first for the model's folder |
//! | `HIVE_MIND_IN_PROCESS_MODEL` | `embedder.in_process.model` (and clears `model_dir`) |
//! | `OLLAMA_HOST`, `HIVE_MIND_OLLAMA_MODEL` | `embedder.ollama.host`, `.model` |
//! | `VOYAGE_API_KEY`, `HIVE_MIND_VOYAGE_MODEL`, `HIVE_MIND_VOYAGE_BASE_URL` | `embedder.voyage.*` |
//! | `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `HIVE_MIND_OPENAI_MODEL`, `HIVE_MIND_OPENAI_DIMENSIONS` | `embedder.openai.*` |
//! | `HIVE_MIND_RERANKER` (`on`/`off`) | `reranker.enabled` |
//! | `HIVE_MIND_RERANKER_MODEL`, `HIVE_MIND_RERANKER_TOKENIZER` | `reranker.model`, `.tokenizer` |
//! | `HIVE_MIND_MEMORY_LIMIT_MIB`, `HIVE_MIND_CALL_DEADLINE_MS` | `limits.memory_mib`, `limits.call_deadline_ms` |
//!
//! Keys unknown inside `[embedder]`, `[reranker]` or `[limits]` are errors (a typo must
//! not silently select another provider); other tables of the file belong to
//! other parts of the host and are ignored here.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use hive_mind_outbound::llm::config::normalize_ollama_host;

use crate::embedder::config::{EmbedderConfig, ProviderChoice};
use crate::reranker::RerankerConfig;

/// The parts of `config.toml` this module reads.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct Config {
    /// `[embedder]`.
    pub embedder: EmbedderConfig,
    /// `[reranker]`.
    pub reranker: RerankerConfig,
    /// `[limits]`.
    pub limits: LimitsConfig,
}

/// `[limits]`: what one engine call may use. Unset keys keep the runtime's
/// defaults (`hive_mind_runtime::limits`, which says what each is and why).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsConfig {
    /// The guest's linear-memory cap in MiB (0: none).
    pub memory_mib: Option<u64>,
    /// One deadline for every kind of call, in milliseconds (0: none).
    pub call_deadline_ms: Option<u64>,
    /// The deadline of a recall or a read (wins over `call_deadline_ms`).
    pub recall_deadline_ms: Option<u64>,
    /// The deadline of a save or a small write.
    pub save_deadline_ms: Option<u64>,
    /// The deadline of one import step.
    pub import_deadline_ms: Option<u64>,
    /// The deadline of a maintenance call (reindex step, check, cleanup).
    pub maintenance_deadline_ms: Option<u64>,
}

// One loader for every table of the file: the file is read once
// ([`ConfigFile`]), `$HIVE_MIND_HOME` resolved in one place, and every
// failure is the one [`ConfigError`] — the outbound crate's.
pub use hive_mind_outbound::config::{ConfigError, ConfigFile, hive_mind_home, process_env};

impl Config {
    /// The configuration of this process: `$HIVE_MIND_HOME/config.toml` (when
    /// it exists) and the environment.
    pub fn load() -> Result<Config, ConfigError> {
        Config::from_file(&ConfigFile::read()?, &process_env)
    }

    /// The configuration of a data directory given explicitly (`--data-dir`):
    /// its `config.toml` (when it exists) and the environment.
    pub fn load_in(data_dir: &Path) -> Result<Config, ConfigError> {
        Config::from_file(&ConfigFile::read_in(data_dir)?, &process_env)
    }

    /// The configuration from a file already read (the same [`ConfigFile`]
    /// the other capabilities parse theirs from) and an environment lookup.
    pub fn from_file(
        file: &ConfigFile,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        Config::from_sources(file.text(), file.path(), env)
    }

    /// The configuration from a file's text (if any; `path` is for messages)
    /// and an environment lookup. Tests pass their own environment.
    pub fn from_sources(
        file_text: Option<&str>,
        path: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let mut config: Config = match file_text {
            Some(text) => toml::from_str(text).map_err(|error| ConfigError::Parse {
                origin: path.display().to_string(),
                message: error.to_string(),
            })?,
            None => Config::default(),
        };
        let embedder = &mut config.embedder;
        if let Some(value) = env("HIVE_MIND_EMBEDDER") {
            embedder.provider = ProviderChoice::parse(&value).ok_or_else(|| ConfigError::Env {
                name: "HIVE_MIND_EMBEDDER".into(),
                value: value.clone(),
                message: "expected auto, in-process, ollama, voyage, openai or mock".into(),
            })?;
        }
        let mut search = Vec::new();
        if let Some(dir) = env("HIVE_MIND_MODELS_DIR") {
            search.push(PathBuf::from(dir));
        }
        search.push(hive_mind_home(env).join("models"));
        search.extend(crate::embedder::in_process::installed_models_dir());
        search.push(crate::embedder::in_process::repository_models_dir());
        embedder.in_process.search_dirs = search;
        if let Some(model) = env("HIVE_MIND_IN_PROCESS_MODEL") {
            let name = model.trim();
            if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
                return Err(ConfigError::Env {
                    name: "HIVE_MIND_IN_PROCESS_MODEL".into(),
                    value: model.clone(),
                    message: "expected a model folder's name (all-MiniLM-L6-v2, \
                              bge-small-en-v1.5), not a path; give a path as \
                              [embedder.in_process] model_dir"
                        .into(),
                });
            }
            // The environment wins over the file: a folder named there
            // would otherwise shadow the model asked for.
            embedder.in_process.model = Some(name.to_string());
            embedder.in_process.model_dir = None;
        }

        if let Some(host) = env("OLLAMA_HOST") {
            embedder.ollama.host = host;
        }
        embedder.ollama.host = normalize_ollama_host(&embedder.ollama.host);
        if let Some(model) = env("HIVE_MIND_OLLAMA_MODEL") {
            embedder.ollama.model = model;
        }
        if let Some(key) = env("VOYAGE_API_KEY") {
            embedder.voyage.api_key = Some(key);
        }
        if let Some(model) = env("HIVE_MIND_VOYAGE_MODEL") {
            embedder.voyage.model = model;
        }
        if let Some(url) = env("HIVE_MIND_VOYAGE_BASE_URL") {
            embedder.voyage.base_url = url;
        }
        let file_set_openai_url = file_text
            .and_then(|text| toml::from_str::<toml::Table>(text).ok())
            .and_then(|table| {
                table
                    .get("embedder")?
                    .get("openai")?
                    .get("base_url")
                    .map(|_| ())
            })
            .is_some();
        embedder.openai.base_url_configured = file_set_openai_url;
        if let Some(url) = env("OPENAI_BASE_URL") {
            embedder.openai.base_url = url;
            embedder.openai.base_url_configured = true;
        }
        if let Some(key) = env("OPENAI_API_KEY") {
            embedder.openai.api_key = Some(key);
        }
        if let Some(model) = env("HIVE_MIND_OPENAI_MODEL") {
            embedder.openai.model = model;
        }
        if let Some(value) = env("HIVE_MIND_OPENAI_DIMENSIONS") {
            let dimensions = value.trim().parse().map_err(|_| ConfigError::Env {
                name: "HIVE_MIND_OPENAI_DIMENSIONS".into(),
                value: value.clone(),
                message: "expected a positive integer".into(),
            })?;
            embedder.openai.dimensions = Some(dimensions);
        }
        if let Some(model) = env("HIVE_MIND_RERANKER_MODEL") {
            config.reranker.model = Some(PathBuf::from(model));
        }
        if let Some(tokenizer) = env("HIVE_MIND_RERANKER_TOKENIZER") {
            config.reranker.tokenizer = Some(PathBuf::from(tokenizer));
        }
        if let Some(value) = env("HIVE_MIND_RERANKER") {
            config.reranker.enabled = match value.trim().to_ascii_lowercase().as_str() {
                "on" | "1" | "true" | "yes" => true,
                "off" | "0" | "false" | "no" | "none" => false,
                _ => {
                    return Err(ConfigError::Env {
                        name: "HIVE_MIND_RERANKER".into(),
                        value,
                        message: "expected on or off".into(),
                    });
                }
            };
        }
        for (name, field) in [
            ("HIVE_MIND_MEMORY_LIMIT_MIB", &mut config.limits.memory_mib),
            (
                "HIVE_MIND_CALL_DEADLINE_MS",
                &mut config.limits.call_deadline_ms,
            ),
        ] {
            if let Some(value) = env(name) {
                *field = Some(value.trim().parse().map_err(|_| ConfigError::Env {
                    name: name.into(),
                    value: value.clone(),
                    message: "expected a whole number (0: no limit)".into(),
                })?);
            }
        }
        if env("HIVE_MIND_CALL_DEADLINE_MS").is_some() {
            // The variable is for every kind of call: the file's per-kind
            // deadlines give way to it.
            let limits = &mut config.limits;
            limits.recall_deadline_ms = None;
            limits.save_deadline_ms = None;
            limits.import_deadline_ms = None;
            limits.maintenance_deadline_ms = None;
        }
        config.reranker.search_dirs = config.embedder.in_process.search_dirs.clone();
        Ok(config)
    }
}

// `OLLAMA_HOST`'s forms, read the same way for the embedder and the LLM.
#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    }

    #[test]
    fn defaults_without_file_or_env() {
        let config = Config::from_sources(None, Path::new("c.toml"), &env_of(&[])).unwrap();
        assert_eq!(config.embedder.provider, ProviderChoice::Auto);
        assert_eq!(config.embedder.ollama.host, "http://localhost:11434");
        assert!(config.reranker.model.is_none());
        assert!(!config.embedder.openai.base_url_configured);
        assert_eq!(config.embedder.in_process.search_dirs.len(), 2);
    }

    #[test]
    fn env_overrides_file() {
        let file = r#"
            [store]
            whatever = 1
            [embedder]
            provider = "ollama"
            [embedder.ollama]
            model = "mxbai-embed-large"
            [embedder.openai]
            base_url = "http://127.0.0.1:4000/v1"
        "#;
        let env = env_of(&[
            ("HIVE_MIND_EMBEDDER", "openai"),
            ("OLLAMA_HOST", "0.0.0.0:1234"),
            ("OPENAI_API_KEY", "sk-test"),
            ("HIVE_MIND_MODELS_DIR", "/m"),
        ]);
        let config = Config::from_sources(Some(file), Path::new("c.toml"), &env).unwrap();
        let embedder = &config.embedder;
        assert_eq!(embedder.provider, ProviderChoice::Openai);
        assert_eq!(embedder.ollama.model, "mxbai-embed-large");
        assert_eq!(embedder.ollama.host, "http://127.0.0.1:1234");
        assert!(embedder.openai.base_url_configured);
        assert_eq!(embedder.openai.api_key.as_deref(), Some("sk-test"));
        assert_eq!(embedder.in_process.search_dirs[0], PathBuf::from("/m"));
    }

    #[test]
    fn in_process_model_by_name() {
        let file = "[embedder.in_process]\nmodel = \"bge-small-en-v1.5\"\n";
        let config = Config::from_sources(Some(file), Path::new("c.toml"), &env_of(&[])).unwrap();
        assert_eq!(
            config.embedder.in_process.model.as_deref(),
            Some("bge-small-en-v1.5")
        );
        // The environment names another model and clears a file's model_dir.
        let file = "[embedder.in_process]\nmodel_dir = \"/x/y\"\n";
        let env = env_of(&[("HIVE_MIND_IN_PROCESS_MODEL", "all-MiniLM-L6-v2")]);
        let config = Config::from_sources(Some(file), Path::new("c.toml"), &env).unwrap();
        assert_eq!(
            config.embedder.in_process.model.as_deref(),
            Some("all-MiniLM-L6-v2")
        );
        assert!(config.embedder.in_process.model_dir.is_none());
        let env = env_of(&[("HIVE_MIND_IN_PROCESS_MODEL", "../elsewhere")]);
        let error = Config::from_sources(None, Path::new("c.toml"), &env)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("HIVE_MIND_IN_PROCESS_MODEL") && error.contains("model_dir"),
            "{error}"
        );
    }

    #[test]
    fn typos_are_errors() {
        let file = "[embedder]\nprovidr = \"mock\"\n";
        let error = Config::from_sources(Some(file), Path::new("c.toml"), &env_of(&[]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("providr"), "{error}");
        let error = Config::from_sources(
            None,
            Path::new("c.toml"),
            &env_of(&[("HIVE_MIND_EMBEDDER", "mokc")]),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("HIVE_MIND_EMBEDDER"), "{error}");
    }

    #[test]
    fn limits_from_file_and_env() {
        let file = "[limits]\nmemory_mib = 512\nrecall_deadline_ms = 250\n";
        let config = Config::from_sources(Some(file), Path::new("c.toml"), &env_of(&[])).unwrap();
        assert_eq!(config.limits.memory_mib, Some(512));
        assert_eq!(config.limits.recall_deadline_ms, Some(250));
        // The environment's deadline is for every kind: it replaces the file's.
        let env = env_of(&[
            ("HIVE_MIND_MEMORY_LIMIT_MIB", "64"),
            ("HIVE_MIND_CALL_DEADLINE_MS", "1000"),
        ]);
        let config = Config::from_sources(Some(file), Path::new("c.toml"), &env).unwrap();
        assert_eq!(config.limits.memory_mib, Some(64));
        assert_eq!(config.limits.call_deadline_ms, Some(1000));
        assert_eq!(config.limits.recall_deadline_ms, None);
        let typo = "[limits]\nmemory_mb = 64\n";
        let error = Config::from_sources(Some(typo), Path::new("c.toml"), &env_of(&[]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("memory_mb"), "{error}");
        let env = env_of(&[("HIVE_MIND_CALL_DEADLINE_MS", "soon")]);
        let error = Config::from_sources(None, Path::new("c.toml"), &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("HIVE_MIND_CALL_DEADLINE_MS"), "{error}");
    }

    #[test]
    fn ollama_host_forms() {
        assert_eq!(normalize_ollama_host("localhost"), "http://localhost:11434");
        assert_eq!(normalize_ollama_host("0.0.0.0"), "http://127.0.0.1:11434");
        assert_eq!(
            normalize_ollama_host("https://ollama.example.com/"),
            "https://ollama.example.com"
        );
        assert_eq!(
            normalize_ollama_host("http://127.0.0.1:9/"),
            "http://127.0.0.1:9"
        );
    }
}
