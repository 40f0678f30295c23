//! The `[mcp]` table of `config.toml`: what the MCP server allows an agent.
//!
//! ```toml
//! [mcp]
//! # Folders an agent may import files from (besides the roots its MCP
//! # client declares); `~/` is the home folder. Default: none.
//! import_roots = ["~/exports", "/srv/notes"]
//! # Requests handled at once; more are refused with a JSON-RPC error.
//! max_in_flight = 16
//! ```
//!
//! Other tables of the file belong to other parts of the host and are not
//! looked at; inside `[mcp]` an unknown key is an error (a typo must not
//! silently widen or narrow what an agent may read).

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Requests handled at once by default: enough for a client that sends a
/// few calls in parallel, few enough that a flood is refused at once rather
/// than queued without end.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 16;

/// The `[mcp]` table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// Folders an agent may import files from.
    pub import_roots: Vec<PathBuf>,
    /// Requests handled at once (at least 1).
    pub max_in_flight: usize,
    /// The file this was read from (for messages); not a key.
    #[serde(skip)]
    pub path: PathBuf,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            import_roots: Vec::new(),
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            path: PathBuf::from("config.toml"),
        }
    }
}

/// A `[mcp]` table that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    /// The file exists but could not be read.
    #[error("could not read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not TOML, an unknown key, a wrong type, or a zero `max_in_flight`.
    #[error("invalid configuration in {path}: [mcp]: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl McpConfig {
    /// The `[mcp]` table of `<data_dir>/config.toml` (defaults when the file
    /// or the table is absent).
    pub fn load_in(data_dir: &Path) -> Result<McpConfig, McpConfigError> {
        let path = data_dir.join("config.toml");
        match std::fs::read_to_string(&path) {
            Ok(text) => McpConfig::from_text(&text, &path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(McpConfig {
                path,
                ..McpConfig::default()
            }),
            Err(source) => Err(McpConfigError::Read { path, source }),
        }
    }

    /// The `[mcp]` table of a file's text (`path` is for messages).
    pub fn from_text(text: &str, path: &Path) -> Result<McpConfig, McpConfigError> {
        let parse_error = |message: String| McpConfigError::Parse {
            path: path.to_path_buf(),
            message,
        };
        let mut file: toml::Table =
            toml::from_str(text).map_err(|error| parse_error(error.to_string()))?;
        let mut config: McpConfig = match file.remove("mcp") {
            None => McpConfig::default(),
            Some(table) => table
                .try_into()
                .map_err(|error: toml::de::Error| parse_error(error.message().to_string()))?,
        };
        if config.max_in_flight == 0 {
            return Err(parse_error("`max_in_flight` must be at least 1".into()));
        }
        let home = dirs::home_dir();
        config.import_roots = config
            .import_roots
            .into_iter()
            .map(|root| match (root.strip_prefix("~"), &home) {
                (Ok(below), Some(home)) => home.join(below),
                _ => root,
            })
            .collect();
        config.path = path.to_path_buf();
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_table_alone_is_read() {
        let text = "[embedder]\nprovider = \"mock\"\n[mcp]\nimport_roots = [\"/srv/notes\"]\nmax_in_flight = 2\n";
        let config = McpConfig::from_text(text, Path::new("c.toml")).unwrap();
        assert_eq!(config.import_roots, [PathBuf::from("/srv/notes")]);
        assert_eq!(config.max_in_flight, 2);
        let config = McpConfig::from_text("", Path::new("c.toml")).unwrap();
        assert!(config.import_roots.is_empty());
        assert_eq!(config.max_in_flight, DEFAULT_MAX_IN_FLIGHT);
        let error = McpConfig::from_text("[mcp]\nimport_root = []\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("import_root"), "{error}");
        assert!(McpConfig::from_text("[mcp]\nmax_in_flight = 0\n", Path::new("c.toml")).is_err());
    }
}
