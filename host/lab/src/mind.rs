//! # The engine a measurement runs on
//!
//! The evaluation builds one fresh mind per sample and the recall benchmark
//! one corpus per size; both open the real engine component the same way,
//! with the embedder and reranker they measure, through [`open_engine`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hive_mind_models::embedder::Embedder;
use hive_mind_models::reranker::Reranker;
use hive_mind_runtime::HostError;
use hive_mind_runtime::engine::{Capabilities, EngineRuntime};
use hive_mind_runtime::limits::Limits;

/// Why the engine could not be opened for a measurement.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The data directory could not be created.
    #[error("could not create the data directory {}: {source}", path.display())]
    DataDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The engine component could not be loaded.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The configuration (its `[limits]`, the environment) is unusable.
    #[error(transparent)]
    Config(#[from] hive_mind_models::config::ConfigError),
}

/// The engine over the data directory `dir` (created if missing) with
/// `embedder`, `reranker` (or [`hive_mind_models::reranker::Unconfigured`]),
/// and the on-disk compile cache, under the limits the configuration sets
/// (`HIVE_MIND_MEMORY_LIMIT_MIB=0 HIVE_MIND_CALL_DEADLINE_MS=0` turns them
/// off, which is how their cost is measured). The engine opens the minds
/// itself, through the `sqlite` import, on the first call that needs them,
/// and locks them to the embedder's fingerprint.
pub fn open_engine(
    dir: &Path,
    embedder: Arc<dyn Embedder>,
    reranker: Arc<dyn Reranker>,
) -> Result<EngineRuntime, OpenError> {
    std::fs::create_dir_all(dir).map_err(|source| OpenError::DataDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let limits = hive_mind_models::config::Config::load_in(dir)?.limits;
    Ok(EngineRuntime::from_component_bytes(
        hive_mind_runtime::artifacts::ENGINE_COMPONENT,
        hive_mind_runtime::cache::cache_dir().as_deref(),
        Capabilities::new(hive_mind_sqlite::DataDir::new(dir), Ok(embedder), reranker)
            .with_limits(Limits::from_config(&limits)),
    )?)
}
