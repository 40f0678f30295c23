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
