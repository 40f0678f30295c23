//! `hive-mind-lab`: the measurement tools' command line.
//!
//! Glue only: argument parsing and dispatch into [`hive_mind_lab`]'s
//! evaluation and benchmarks. Figures are only meaningful from a release
//! build (`cargo run --release -p hive-mind-lab -- …`).

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// hive-mind-lab: evaluations and benchmarks of the hive-mind engine.
#[derive(Debug, Parser)]
#[command(name = "hive-mind-lab", version, about)]
struct Cli {
    /// The data directory whose config.toml selects the embedder and
    /// reranker (default: $HIVE_MIND_HOME, else ~/.hive-mind).
    #[arg(long, global = true)]
    data_dir: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Benchmarks that print figures.
    #[command(subcommand)]
    Bench(hive_mind_lab::bench::BenchTarget),
    /// Retrieval-quality evaluations on benchmark data sets.
    #[command(subcommand)]
    Eval(hive_mind_lab::eval::cli::EvalTarget),
}

fn main() -> ExitCode {
    hive_mind_terminal::init_logging();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let dir = cli.data_dir.unwrap_or_else(|| {
        hive_mind_models::config::hive_mind_home(&hive_mind_models::config::process_env)
    });
    match cli.command {
        Command::Bench(target) => {
            hive_mind_lab::bench::command(&target, &dir, &mut std::io::stdout().lock())?;
        }
        Command::Eval(target) => {
            hive_mind_lab::eval::cli::run(
                &target,
                &dir,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            )?;
        }
    }
    Ok(())
}
