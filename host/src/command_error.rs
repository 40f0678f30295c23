//! The one error of the `hive-mind` subcommands that drive the engine:
//! a bad argument (refused before the engine is asked), an engine that
//! could not be set up, the engine's own refusal or failure (its typed
//! case, described), an unusable configuration, or output that could not
//! be written. `main` reports it and exits non-zero.

use hive_mind_runtime::engine::{EngineError, OpenError};

/// What a subcommand can fail with.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// A bad argument: the message names it and why.
    #[error("{0}")]
    Argument(String),
    /// The engine could not be set up.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The engine refused or failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] hive_mind_models::config::ConfigError),
    /// Writing the output failed.
    #[error("could not write the output: {0}")]
    Write(#[from] std::io::Error),
}

impl From<crate::ops::OpError> for CommandError {
    fn from(error: crate::ops::OpError) -> CommandError {
        use crate::ops::OpError;
        match error {
            OpError::Argument { name, why } => {
                CommandError::Argument(format!("--{}: {why}", name.replace('_', "-")))
            }
            OpError::Invalid(why) | OpError::Forbidden(why) | OpError::NotFound(why) => {
                CommandError::Argument(why)
            }
            OpError::Engine(error) => CommandError::Engine(error),
        }
    }
}
