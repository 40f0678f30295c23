//! hive-mind's end-to-end tests, across the component boundary: one test
//! binary with a module per behaviour, so the suite links wasmtime, tract and
//! SQLite once instead of once per file (the test targets of the host
//! package, so they get the `hive-mind` binary as `CARGO_BIN_EXE_hive-mind`).
//! The store's own tests (frames, graph, layers, schema, search) live with
//! it, in `guest/store/tests/`.

// Test code: a failed unwrap is a failed test. (clippy.toml's allow-in-tests
// covers #[test] functions only, not their helpers.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

/// The memory browser in headless Chromium over WebDriver.
mod browser;
/// The guest's token estimate and chunk plan against the real tokenizer.
mod chunk_tokens;
/// The `hive-mind` CLI: listing, calling, clear errors for bad input; the demo.
mod cli;
/// Corrections and changing facts: current and "as of" recall, history.
mod correct;
/// The in-process model against reference vectors; HTTP providers over loopback.
mod embedder;
/// The memory API across the component boundary.
mod engine;
/// Forgetting for real: the CLI's `forget` and the MCP `forget_memory` tool.
mod forget;
/// Harvest through the CLI and the engine: every adapter's fixtures, hostile
/// items, malformed files, re-import, kill -9 and rerun, URLs over loopback.
mod harvest;
/// Harvest with each LLM provider over loopback, and the MCP harvest tools.
mod harvest_llm;
/// `hive-mind hook`: Claude Code's hook events through a server and alone.
mod hook;
/// No host source spells a content marking or runs SQL on an engine table.
mod host_sources;
/// The isolation matrix: every REST operation (from the OpenAPI document)
/// and MCP tool and resource (from their listings), aimed at other minds and
/// with lower scopes.
mod isolation;
/// The live loop: newer statements replace older ones on every write path,
/// answers before background, nothing for a question nothing answers.
mod live_loop;
/// Native functions, `hive-mind logic` and the plain `wasmtime` CLI agree.
mod logic_agreement;
/// The MCP server: in process (rmcp client), over stdio, two servers at once.
mod mcp;
/// Export and restore of a mind: a round trip, a cut export refused.
mod portable;
/// The recall pipeline over real SQLite files and the real embedder.
mod recall;
/// The cross-encoder plumbing on a small model the test builds.
mod reranker;
/// Review: archive, merge, trace, flagged memories, sessions, workspace
/// deletion, and the MCP review and cleanup tools.
mod review;
/// The guest gets no ambient authority.
mod sandbox;
/// `hive-mind serve`: REST checked against its OpenAPI document, tokens and
/// minds, bad requests, MCP over HTTP, a clean stop.
mod serve;
/// `hive-mind serve` under abuse: slow headers, connection floods, stalled
/// bodies, queued uploads, MCP sessions, headers, job ids, two servers.
mod serve_limits;
/// Crash safety: SIGKILL during a bulk save loses whole batches only.
mod store_kill;
/// Trap recovery: a limit hit inside a write transaction releases the lock,
/// the engine restarts its instance and keeps serving.
mod trap;
/// The wiki of a mind: pages, search, health, export; CLI and MCP.
mod wiki;
/// The built components import and export what the worlds say.
mod worlds;
