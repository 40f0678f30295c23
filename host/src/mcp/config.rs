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

use hive_mind_models::config::{ConfigError, ConfigFile};
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

impl McpConfig {
    /// The `[mcp]` table of `<data_dir>/config.toml` (defaults when the file
    /// or the table is absent).
    pub fn load_in(data_dir: &Path) -> Result<McpConfig, ConfigError> {
        McpConfig::from_file(&ConfigFile::read_in(data_dir)?)
    }

    /// The `[mcp]` table of a file already read (the same [`ConfigFile`]
    /// every capability parses its own tables from).
    pub fn from_file(file: &ConfigFile) -> Result<McpConfig, ConfigError> {
        let parse_error = |message: String| ConfigError::Parse {
            origin: file.origin(),
            message: format!("[mcp]: {message}"),
        };
        let mut table: toml::Table = match file.text() {
            Some(text) => toml::from_str(text).map_err(|error| parse_error(error.to_string()))?,
            None => toml::Table::new(),
        };
        let mut config: McpConfig = match table.remove("mcp") {
            None => McpConfig::default(),
            Some(table) => table
                .try_into()
                .map_err(|error: toml::de::Error| parse_error(error.message().to_string()))?,
        };
        if config.max_in_flight == 0 {
            return Err(ConfigError::Invalid {
                origin: file.origin(),
                key: "mcp.max_in_flight".into(),
                message: "must be at least 1".into(),
            });
        }
        let home = std::env::home_dir();
        config.import_roots = config
            .import_roots
            .into_iter()
            .map(|root| match (root.strip_prefix("~"), &home) {
                (Ok(below), Some(home)) => home.join(below),
                _ => root,
            })
            .collect();
        config.path = file.path().to_path_buf();
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_table_alone_is_read() {
        let file = |text: &str| ConfigFile::from_text(Some(text), "c.toml");
        let text = "[embedder]\nprovider = \"mock\"\n[mcp]\nimport_roots = [\"/srv/notes\"]\nmax_in_flight = 2\n";
        let config = McpConfig::from_file(&file(text)).unwrap();
        assert_eq!(config.import_roots, [PathBuf::from("/srv/notes")]);
        assert_eq!(config.max_in_flight, 2);
        let config = McpConfig::from_file(&ConfigFile::from_text(None, "c.toml")).unwrap();
        assert!(config.import_roots.is_empty());
        assert_eq!(config.max_in_flight, DEFAULT_MAX_IN_FLIGHT);
        let error = McpConfig::from_file(&file("[mcp]\nimport_root = []\n"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("import_root"), "{error}");
        assert!(McpConfig::from_file(&file("[mcp]\nmax_in_flight = 0\n")).is_err());
    }
}
