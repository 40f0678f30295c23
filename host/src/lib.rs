//! # hive-mind-host: the `hive-mind` command's surfaces
//!
//! The user's `hive-mind` binary is glue over the component runtime
//! (`hive-mind-runtime`: the wasmtime engine, the compile cache, the engine
//! world and the host side of its imports) and the capability crates
//! (`hive-mind-sqlite`, `hive-mind-models`, `hive-mind-outbound`). This
//! crate holds the surfaces a person or an agent uses:
//!
//! - [`memory_cli`] — `hive-mind save` and `hive-mind recall`.
//! - [`correct_cli`] — `hive-mind correct` and `hive-mind history`: a new
//!   version of a memory that closes the old, and the versions of a memory.
//! - [`forget_cli`] — `hive-mind forget`: erasure for real, a dry run
//!   unless confirmed with `--yes`.
//! - [`review_cli`] — `hive-mind review …`: archive, pin, tag, merge,
//!   trace; the knowledge graph, sessions and logs read; flagged memories
//!   released; a workspace mind deleted.
//! - [`harvest_cli`] — `hive-mind import` and `hive-mind sources`: bytes
//!   and URLs handed to the engine's harvest (whose import loop is the
//!   runtime's, `hive_mind_runtime::engine::import`), a progress bar, the
//!   report.
//! - [`admin_cli`] — the minds' subcommands (get, status, reindex, check).
//! - [`human`] — what the commands print for people (a line a memory, a
//!   sentence an outcome), `--json` printing the machines' answer instead.
//! - [`embed_cli`] — `hive-mind embed`: embed texts with the active
//!   embedder, or show the provider chain.
//! - [`mcp`] — `hive-mind mcp`: the MCP server (stdio) over the engine's
//!   exports.
//! - [`serve`] — `hive-mind serve`: REST with its OpenAPI document, MCP
//!   over streamable HTTP, the memory browser; a pool of engines.
//! - [`tokens`] — `hive-mind token`: bearer tokens stored hashed, each
//!   with a scope and the minds it reaches (the server's and MCP's
//!   checks).
//! - [`demo`] — `hive-mind demo`: the main job on a fresh data directory
//!   (save, import, learn, recall), each recall checked against what it
//!   shows; `--logic` tours the pure functions.
//! - [`hook`] — `hive-mind hook`: Claude Code's hooks (recall before a
//!   prompt, learn after a turn, import the session at its end), through a
//!   running server or alone; `hook install` writes them into the settings.
//! - [`limits`] — the size caps of every argument, by name.
//! - [`command_error`] — the one error of the subcommands that drive the
//!   engine.
//! - [`portable_cli`] — `hive-mind export` (JSON Lines or Markdown) and
//!   `hive-mind restore` (into an empty mind, then re-embedded).
//! - [`scan_cli`] — `hive-mind scan`: the engine's injection detector on
//!   one text (score, threshold, verdict, reasons, regex categories and
//!   patterns).
//!
//! Logging and progress bars are the terminal's, shared with the lab
//! (`hive-mind-terminal`). Retrieval logic never lives here. The
//! measurement tools (evaluation, benchmarks) are another crate and binary,
//! `hive-mind-lab` (`host/lab`), which does not link this one.

pub mod admin_cli;
pub mod command_error;
pub mod correct_cli;
pub mod demo;
pub mod embed_cli;
pub mod forget_cli;
pub mod harvest_cli;
pub mod hook;
pub mod human;
pub mod limits;
pub mod mcp;
pub mod memory_cli;
pub mod ops;
pub mod portable_cli;
pub mod review_cli;
pub mod scan_cli;
pub mod serve;
pub mod tokens;
pub mod wiki_cli;
