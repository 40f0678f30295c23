//! Benchmark of the in-process embedder (all-MiniLM-L6-v2 int8 under tract).
//!
//! Measures model load time, texts/s for one text per call and for batches
//! of 8/32/128 at sentence and paragraph length, the load-time rewrite's
//! effect on one short sentence, and peak RSS. The same code runs as
//! `hive-mind-lab bench embed`; see `hive_mind_lab::bench::embed`.
//!
//! Run: `cargo bench -p hive-mind-lab --bench embed` (add `-- --quick` for a
//! short smoke run), or `just bench-embed`.

use std::process::ExitCode;

use hive_mind_lab::bench::embed::{BenchOptions, run};
use hive_mind_models::config::Config;
use hive_mind_models::embedder::chain::in_process_spec;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) a
    // smoke run is enough.
    let quick = args.iter().any(|arg| arg == "--quick") || !args.iter().any(|arg| arg == "--bench");
    let spec = Config::load()
        .map_err(|e| e.to_string())
        .and_then(|config| in_process_spec(&config.embedder.in_process).map_err(|e| e.to_string()));
    let result =
        spec.and_then(|spec| run(&spec, BenchOptions { quick }).map_err(|e| e.to_string()));
    match result {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
