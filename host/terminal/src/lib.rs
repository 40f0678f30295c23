//! # hive-mind-terminal: the binaries' terminal
//!
//! Two binaries drive the engine from a terminal: the user's `hive-mind`
//! (`hive-mind-host`) and the measurement tools' `hive-mind-lab`
//! (`hive-mind-lab`). What they share there lives here, so neither links
//! the other:
//!
//! - [`init_logging`] — logs to stderr at the level `HIVE_MIND_LOG` names;
//!   stdout is left to results (and, for `hive-mind mcp`, the protocol).
//! - [`progress`] — a progress bar on stderr for long work (an import, a
//!   reindex, the lab's eval and bench), hidden when stderr is not a
//!   terminal or with `--quiet`; it is also where an import job reports
//!   ([`hive_mind_runtime::engine::import::ImportProgress`]).
//!
//! Nothing here knows a subcommand: parsing arguments and printing results
//! stay with each binary.

pub mod progress;

pub use progress::Progress;

/// Log to stderr (stdout carries results and, for `hive-mind mcp`, the
/// protocol), at the level `HIVE_MIND_LOG` names, `warn` by default. Both
/// binaries, `hive-mind` and `hive-mind-lab`, start with it.
pub fn init_logging() {
    use std::io::IsTerminal as _;
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal, never in a log an
        // MCP client or a file keeps.
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HIVE_MIND_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
}
