//! The host library's error type.

use std::path::PathBuf;

/// What can go wrong in the host library.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A component could not be compiled, loaded or instantiated.
    #[error("could not load the {name} component: {source:#}")]
    Load {
        /// Which component.
        name: String,
        /// The underlying wasmtime error.
        #[source]
        source: wasmtime::Error,
    },
    /// The component has no export with this name.
    #[error("no function named `{name}` in {interface}; available: {available}")]
    UnknownFunction {
        /// The name asked for.
        name: String,
        /// The interface searched.
        interface: String,
        /// The names that exist, comma-separated.
        available: String,
    },
    /// Arguments did not match the function's parameters.
    #[error("bad arguments for `{function}`: {message}")]
    BadArguments {
        /// The function called.
        function: String,
        /// What was wrong, naming the parameter.
        message: String,
    },
    /// The call trapped or failed inside the component.
    #[error("`{function}` failed inside the component: {source:#}")]
    Call {
        /// The function called.
        function: String,
        /// The trap or error.
        #[source]
        source: wasmtime::Error,
    },
    /// An engine call trapped: the instance was dropped (its connections
    /// closed, rolling back what it left open) and a fresh one started.
    #[error(
        "`{function}` was stopped: {trap}{limit}; the engine was restarted{restart}",
        limit = describe_limit(*.trap, *.deadline, *.memory_bytes),
        restart = match .restarted {
            Some(why) => format!(" but could not start again: {why}"),
            None => " for the next call".to_string(),
        }
    )]
    Trapped {
        /// The function called.
        function: String,
        /// What stopped it.
        trap: crate::limits::TrapKind,
        /// The call's deadline, if it had one.
        deadline: Option<std::time::Duration>,
        /// The memory cap, if there was one.
        memory_bytes: Option<u64>,
        /// Why the fresh instance could not start, if it could not (the
        /// next call tries again).
        restarted: Option<Box<HostError>>,
        /// The trap, with the guest's backtrace.
        #[source]
        source: wasmtime::Error,
    },
    /// Something that lived in an engine instance that trapped since.
    #[error("{what} was lost when the engine restarted after a failure; start it again")]
    Lost {
        /// What was lost.
        what: String,
    },
    /// A file the host needed could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The limit a trap ran into, in words (empty when it was no limit).
fn describe_limit(
    trap: crate::limits::TrapKind,
    deadline: Option<std::time::Duration>,
    memory_bytes: Option<u64>,
) -> String {
    use crate::limits::TrapKind;
    match (trap, deadline, memory_bytes) {
        (TrapKind::DeadlineExceeded, Some(deadline), _) => {
            format!(" (the call's deadline is {} ms)", deadline.as_millis())
        }
        (TrapKind::MemoryLimit, _, Some(bytes)) => {
            format!(" (the engine's memory cap is {} MiB)", bytes >> 20)
        }
        _ => String::new(),
    }
}
