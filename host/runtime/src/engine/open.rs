//! # Opening the engine over a data directory
//!
//! A data directory holds the minds and `config.toml`. [`open`] reads the
//! configuration (the file and the environment), settles on an embedder
//! through the provider chain, loads the configured reranker, makes the
//! directory owner-only, adds the language model and the guarded fetch,
//! and starts the engine with those [`Capabilities`]. Callers that need the
//! capabilities first (a pool of engines, the demo's fixed model) use
//! [`capabilities_for`] or [`capabilities_with`].

use std::sync::Arc;

use hive_mind_outbound::OutboundConfig;
use hive_mind_outbound::config::{ConfigFile, process_env};
use hive_mind_outbound::fetch::Fetcher;

use super::{Capabilities, EngineRuntime};
use crate::HostError;
use crate::limits::Limits;

/// Why the engine could not be set up for a data directory.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The configuration (`config.toml` or the environment) is unusable.
    #[error(transparent)]
    Config(#[from] hive_mind_outbound::config::ConfigError),
    /// The configured reranker could not be loaded.
    #[error("the reranker: {0}")]
    Reranker(#[from] hive_mind_models::onnx::ModelError),
    /// The data directory could not be created or made owner-only.
    #[error("{path}: {source}")]
    DataDir {
        /// The directory.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The component could not be loaded.
    #[error(transparent)]
    Host(#[from] HostError),
}

/// The capabilities of a data directory: its configuration
/// (`<dir>/config.toml` and the environment), the embedder the provider
/// chain settles on (or why none), the configured reranker, and the minds,
/// (the engine locks them to the embedder's fingerprint).
pub fn capabilities_for(dir: &std::path::Path) -> Result<Capabilities, OpenError> {
    let file = ConfigFile::read_in(dir)?;
    let models = hive_mind_models::config::Config::from_file(&file, &process_env)?;
    let outbound = OutboundConfig::from_file(&file, process_env)?;
    capabilities_of(dir, &models, outbound)
}

/// The capabilities of a data directory under a configuration given
/// explicitly (the demo's: the shipped model, whatever the environment says).
pub fn capabilities_with(
    dir: &std::path::Path,
    config: &hive_mind_models::config::Config,
) -> Result<Capabilities, OpenError> {
    capabilities_of(dir, config, OutboundConfig::load_in(dir)?)
}

/// The capabilities of a data directory under both configurations.
fn capabilities_of(
    dir: &std::path::Path,
    config: &hive_mind_models::config::Config,
    outbound: OutboundConfig,
) -> Result<Capabilities, OpenError> {
    let embedder = match hive_mind_models::embedder::resolve(&config.embedder) {
        Ok(active) => {
            for line in active.status_lines() {
                tracing::info!("{line}");
            }
            Ok(active.embedder)
        }
        Err(error) => Err(error.to_string()),
    };
    let reranker = hive_mind_models::reranker::from_config(&config.reranker)?;
    // Owner-only: created 0700, and what an older version left readable by
    // other local users tightened (said once on stderr).
    let data_dir = hive_mind_sqlite::DataDir::new(dir);
    data_dir.secure().map_err(|source| OpenError::DataDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut capabilities = Capabilities::new(data_dir, embedder, reranker)
        .with_fetch(Fetcher::new(outbound.fetch))
        .with_limits(Limits::from_config(&config.limits));
    match hive_mind_outbound::llm::LlmClient::new(&outbound.llm) {
        Ok(client) => {
            let provider = client.provider().name().to_string();
            capabilities = capabilities.with_llm(Arc::new(client), &provider);
        }
        Err(why) => capabilities.llm = Err(why.message().to_string()),
    }
    Ok(capabilities)
}

/// The engine over a data directory (see [`capabilities_for`]).
pub fn open(dir: &std::path::Path) -> Result<EngineRuntime, OpenError> {
    Ok(EngineRuntime::new(capabilities_for(dir)?)?)
}
