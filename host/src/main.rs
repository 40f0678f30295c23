//! `hive-mind`: the command-line surface of the host.
//!
//! Glue only: argument parsing and printing. Everything it does is a call
//! into the host library, and through it into the components.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use hive_mind_runtime::{LogicRuntime, artifacts};
use serde_json::Value as Json;

/// Print a line on stdout. A write that fails (a closed pipe: `hive-mind
/// recall … | head -1`) is an error the caller returns, never a panic;
/// `main` ends quietly on a closed pipe.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?;
    }};
}

/// Print text on stdout as it is (see [`say`]).
macro_rules! say_text {
    ($text:expr) => {{
        use std::io::Write as _;
        std::io::stdout()
            .lock()
            .write_all(String::as_bytes(&$text))?;
    }};
}

/// hive-mind: local-first long-term memory for AI agents.
#[derive(Debug, Parser)]
#[command(name = "hive-mind", version, about)]
struct Cli {
    /// The data directory holding the minds (default: $HIVE_MIND_HOME, else ~/.hive-mind).
    #[arg(long, global = true)]
    data_dir: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Call a pure function of the logic component with JSON arguments.
    ///
    /// Arguments are a JSON object keyed by the WIT parameter names; the
    /// result is printed as JSON. Example:
    /// hive-mind logic parse-date-window '{"query": "what happened in May 2026?"}'
    Logic {
        /// The function's WIT name (see --list).
        function: Option<String>,
        /// The arguments: a JSON object keyed by parameter name, or `-` to
        /// read it from standard input (for inputs too large for a command
        /// line).
        #[arg(default_value = "{}")]
        args: String,
        /// List the functions and their signatures.
        #[arg(long)]
        list: bool,
        /// Print the result on one line.
        #[arg(long)]
        compact: bool,
    },
    /// Show the built components: where they are and how large.
    Components {
        /// Also compile them into the on-disk cache now
        /// ($HIVE_MIND_CACHE_DIR, else the user's cache directory), so the
        /// next start does not wait for the compiler.
        #[arg(long)]
        compile: bool,
    },
    /// The main job in a minute: save memories, import a conversation, learn
    /// from an exchange, then recall, showing what came back and why (offline,
    /// the shipped model, a temporary data directory).
    Demo {
        /// Keep the demo's data directory here (a new or empty folder).
        #[arg(long, value_name = "DIR")]
        keep: Option<std::path::PathBuf>,
        /// The tour of the pure functions of the logic component instead.
        #[arg(long, conflicts_with = "keep")]
        logic: bool,
    },
    /// Save a memory: the engine chunks, embeds and stores it.
    Save {
        /// The memory.
        #[command(flatten)]
        request: hive_mind_host::ops::save::SaveRequest,
        /// Print the saved memory as JSON instead of a sentence.
        #[arg(long)]
        json: bool,
    },
    /// Recall the memories most relevant to a query (the recall block, the
    /// identity/awareness context, and notes on how it ran).
    Recall(hive_mind_host::memory_cli::RecallArgs),
    /// Correct a memory: the new version replaces the old in recall; the old
    /// stays in its history (and answers a recall `--as-of` before it).
    Correct {
        /// The correction.
        #[command(flatten)]
        request: hive_mind_host::ops::review::CorrectRequest,
        /// Print both versions as JSON instead of a sentence.
        #[arg(long)]
        json: bool,
    },
    /// The versions of a memory, oldest first.
    History {
        /// The memory.
        #[command(flatten)]
        request: hive_mind_host::ops::review::MemoryRequest,
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Export a mind: the portable JSON Lines format (restorable), or
    /// `--format markdown` to read.
    Export(hive_mind_host::portable_cli::ExportArgs),
    /// Restore a JSON Lines export into an empty mind, then embed it with
    /// the active model.
    Restore(hive_mind_host::portable_cli::RestoreArgs),
    /// Forget memories for real: named by reference or selected by a filter;
    /// a dry run listing what would go unless `--yes` confirms it.
    Forget(hive_mind_host::forget_cli::ForgetArgs),
    /// Review memories by hand: archive, pin, tag, merge, trace; the
    /// knowledge graph, sessions and logs; flagged memories; delete a
    /// workspace mind. Prints lines for people, or JSON with `--json`.
    Review {
        /// What to do.
        #[command(subcommand)]
        command: hive_mind_host::review_cli::ReviewCommand,
        /// Print the answer as JSON instead of lines for people.
        #[arg(long, global = true)]
        json: bool,
    },
    /// Import a history: ChatGPT, Claude, Gemini, Perplexity or Claude Code
    /// exports (JSON or the export zip), Markdown, text, PDF, web pages
    /// (http(s) URLs) or universal JSON/JSONL, detected by content.
    Import(hive_mind_host::harvest_cli::ImportArgs),
    /// List the sources imported into a mind.
    Sources {
        /// Whose sources.
        #[command(flatten)]
        request: hive_mind_host::ops::MindRequest,
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The wiki of a mind: its pages (`wiki`), one page as Markdown (`wiki
    /// PAGE`), `wiki search TEXT`, `wiki health`, `wiki export --out DIR`.
    Wiki(hive_mind_host::wiki_cli::WikiArgs),
    /// Serve the Model Context Protocol on stdin/stdout (for Claude Code,
    /// Claude Desktop, Codex and any stdio MCP client).
    Mcp,
    /// Serve the REST API (with its OpenAPI document), MCP over HTTP and the
    /// memory browser, on loopback by default; requests need a token
    /// (`hive-mind token create`).
    Serve(hive_mind_host::serve::ServeOptions),
    /// Bearer tokens for `hive-mind serve`: create (printed once, stored
    /// hashed), list, revoke.
    #[command(subcommand)]
    Token(hive_mind_host::tokens::TokenCommand),
    /// Hooks for coding agents: recall before each prompt, learn after each
    /// turn (Claude Code), and their installation.
    #[command(subcommand)]
    Hook(hive_mind_host::hook::HookCommand),
    /// Screen a text with the injection detector every write goes through:
    /// the score against its threshold, the verdict, the reasons and the
    /// regex patterns that matched.
    Scan(hive_mind_host::scan_cli::ScanArgs),
    /// Embed texts with the active embedder, or show the provider chain.
    Embed(hive_mind_host::embed_cli::EmbedArgs),
    #[command(flatten)]
    Store(hive_mind_host::admin_cli::AdminCommand),
}

fn main() -> ExitCode {
    hive_mind_terminal::init_logging();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader stopped reading (`| head`): not an error of ours.
        Err(error) if closed_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    // The data directory of the commands that use one (`--data-dir`, else
    // $HIVE_MIND_HOME, else ~/.hive-mind).
    let data_dir_flag = cli.data_dir.is_some();
    let dir = cli.data_dir.clone().unwrap_or_else(|| {
        hive_mind_models::config::hive_mind_home(&hive_mind_models::config::process_env)
    });
    match cli.command {
        Command::Logic {
            function,
            args,
            list,
            compact,
        } => {
            let mut logic = LogicRuntime::new()?;
            match (list, function) {
                (true, _) | (false, None) => {
                    for signature in logic.functions() {
                        say!("{signature}");
                    }
                }
                (false, Some(function)) => {
                    let args = if args == "-" {
                        std::io::read_to_string(std::io::stdin())
                            .context("could not read the arguments from standard input")?
                    } else {
                        args
                    };
                    let args: Json = serde_json::from_str(&args).with_context(|| {
                        format!("the arguments are not valid JSON: {}", abbreviate(&args))
                    })?;
                    let result = logic.call_json(&function, &args)?;
                    print_json(&result, compact)?;
                }
            }
        }
        Command::Components { compile } => {
            let components = [
                (
                    "logic",
                    artifacts::LOGIC_COMPONENT_PATH,
                    artifacts::LOGIC_COMPONENT,
                ),
                (
                    "engine",
                    artifacts::ENGINE_COMPONENT_PATH,
                    artifacts::ENGINE_COMPONENT,
                ),
            ];
            for (name, path, bytes) in components {
                say!("{name:<7} {:>9} bytes  {path}", bytes.len());
            }
            if compile {
                let dir = hive_mind_runtime::cache::cache_dir()
                    .context("no cache directory: set HIVE_MIND_CACHE_DIR")?;
                for (name, _, bytes) in components {
                    // The engine component runs with epoch checks compiled in.
                    let engine = match name {
                        "engine" => hive_mind_runtime::runtime::engine_for(
                            &hive_mind_runtime::limits::Limits::default(),
                        )?,
                        _ => hive_mind_runtime::runtime::engine()?,
                    };
                    let started = std::time::Instant::now();
                    hive_mind_runtime::cache::load_component(&engine, name, bytes, Some(&dir))?;
                    say!(
                        "{name:<7} ready in {} ({:.1} s)",
                        dir.display(),
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        }
        Command::Demo { keep, logic } => {
            let mut out = std::io::stdout().lock();
            if logic {
                hive_mind_host::demo::logic_tour(&mut out)?;
            } else {
                hive_mind_host::demo::run(&hive_mind_host::demo::DemoOptions { keep }, &mut out)?;
            }
        }
        Command::Save { request, json } => {
            let saved = hive_mind_host::memory_cli::save(&dir, &request)?;
            if json {
                print_json(&saved, false)?;
            } else {
                say!("{}", hive_mind_host::human::saved_text(&saved));
            }
        }
        Command::Recall(args) => {
            let recall = hive_mind_host::memory_cli::recall(&dir, &args)?;
            if args.json {
                let value = hive_mind_host::ops::recall::recall_json(&recall);
                print_json(&value, false)?;
            } else {
                for note in &recall.notes {
                    eprintln!("note: {}", note.text);
                }
                if let Some(why) = &recall.withheld {
                    eprintln!("recall withheld: {why}");
                }
                if !recall.context.is_empty() {
                    say!("{}\n", recall.context);
                }
                if recall.memories.is_empty() && recall.withheld.is_none() {
                    eprintln!("nothing relevant remembered");
                } else {
                    say!("{}", recall.text);
                }
            }
        }
        Command::Correct { request, json } => {
            let corrected = hive_mind_host::correct_cli::correct(&dir, &request)?;
            if json {
                print_json(&corrected, false)?;
            } else {
                say!("{}", hive_mind_host::human::corrected_text(&corrected));
            }
        }
        Command::History { request, json } => {
            let versions = hive_mind_host::correct_cli::history(&dir, &request)?;
            if json {
                let versions: Vec<Json> = versions
                    .iter()
                    .map(hive_mind_runtime::engine::convert::frame_json)
                    .collect();
                print_json(&Json::Array(versions), false)?;
            } else {
                say_text!(hive_mind_host::correct_cli::history_text(&versions));
            }
        }
        Command::Export(args) => {
            let lines = hive_mind_host::portable_cli::export(&dir, &args)?;
            if let Some(path) = &args.out {
                eprintln!("exported {lines} lines to {}", path.display());
            }
        }
        Command::Restore(args) => {
            let report = hive_mind_host::portable_cli::restore(&dir, &args)?;
            if args.json {
                print_json(&report, false)?;
            } else {
                say_text!(hive_mind_host::human::outline(&report));
            }
        }
        Command::Forget(args) => {
            let report = hive_mind_host::forget_cli::forget(&dir, &args)?;
            if args.json {
                print_json(&hive_mind_host::forget_cli::report_json(&report), false)?;
            } else {
                say_text!(hive_mind_host::forget_cli::report_text(&report));
            }
        }
        Command::Review { command, json } => {
            let answer = hive_mind_host::review_cli::review_json(&dir, &command)?;
            if json {
                print_json(&answer, false)?;
            } else {
                say_text!(hive_mind_host::human::outline(&answer));
            }
        }
        Command::Import(args) => {
            let mut engine = hive_mind_runtime::engine::open(&dir)?;
            let (report, complete, mind) = hive_mind_host::harvest_cli::import(&mut engine, &args)?;
            if args.json {
                print_json(&hive_mind_host::harvest_cli::report_json(&report), false)?;
            } else {
                say_text!(hive_mind_host::harvest_cli::report_text(&report, &mind));
            }
            if !complete {
                anyhow::bail!("some inputs could not be imported (see the report above)");
            }
        }
        Command::Sources { request, json } => {
            let operation = hive_mind_host::ops::minds::Sources::new(&request)
                .map_err(hive_mind_host::command_error::CommandError::from)?;
            let mut engine = hive_mind_runtime::engine::open(&dir)?;
            let sources = hive_mind_host::ops::execute(
                &mut engine,
                &hive_mind_host::ops::Caller::Owner,
                operation,
            )
            .map_err(hive_mind_host::command_error::CommandError::from)?;
            let sources: Vec<Json> = sources
                .iter()
                .map(hive_mind_host::harvest_cli::harvest_source_json)
                .collect();
            let sources = Json::Array(sources);
            if json {
                print_json(&sources, false)?;
            } else {
                say_text!(hive_mind_host::human::sources_text(&sources));
            }
        }
        Command::Wiki(args) => {
            hive_mind_host::wiki_cli::run(&dir, args, &mut std::io::stdout().lock())?;
        }
        Command::Mcp => {
            let config = hive_mind_host::mcp::config::McpConfig::load_in(&dir)?;
            let engine = hive_mind_runtime::engine::open(&dir)?;
            let server = hive_mind_host::mcp::MemoryServer::with_config(engine, config);
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            runtime.block_on(hive_mind_host::mcp::serve_stdio(server))?;
        }
        Command::Serve(options) => {
            hive_mind_host::serve::run(&dir, &options)?;
        }
        Command::Token(command) => {
            say_text!(hive_mind_host::tokens::run(&dir, &command)?);
        }
        Command::Hook(command) => match command {
            hive_mind_host::hook::HookCommand::ClaudeCode(options) => {
                hive_mind_host::hook::run(hive_mind_host::hook::Agent::ClaudeCode, &dir, &options);
            }
            hive_mind_host::hook::HookCommand::GeminiCli(options) => {
                hive_mind_host::hook::run(hive_mind_host::hook::Agent::GeminiCli, &dir, &options);
            }
            hive_mind_host::hook::HookCommand::Install {
                agent,
                scope,
                dry_run,
                workspace,
            } => {
                say_text!(hive_mind_host::hook::install(
                    &dir,
                    &agent,
                    &scope,
                    dry_run,
                    workspace.as_deref(),
                    data_dir_flag,
                )?);
            }
            hive_mind_host::hook::HookCommand::Uninstall {
                agent,
                scope,
                dry_run,
            } => {
                say_text!(hive_mind_host::hook::uninstall(
                    &dir, &agent, &scope, dry_run
                )?);
            }
        },
        Command::Scan(args) => {
            let report = hive_mind_host::scan_cli::scan(&args)?;
            if args.json {
                print_json(&report, false)?;
            } else {
                say_text!(hive_mind_host::scan_cli::report_text(&report));
            }
        }
        Command::Embed(args) => {
            hive_mind_host::embed_cli::embed(&args, &dir, &mut std::io::stdout().lock())?;
        }
        Command::Store(command) => {
            if !hive_mind_host::admin_cli::run(command, cli.data_dir)? {
                anyhow::bail!("the check found problems (see the report above)");
            }
        }
    }
    Ok(())
}

/// Whether `error` is a write to a pipe whose reader has gone.
fn closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// At most 200 characters of `text`, for error messages.
fn abbreviate(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn print_json(value: &Json, compact: bool) -> Result<()> {
    let text = if compact {
        serde_json::to_string(value)?
    } else {
        serde_json::to_string_pretty(value)?
    };
    say!("{text}");
    Ok(())
}
