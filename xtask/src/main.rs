//! Developer tasks, run as `cargo xtask <task>` (an alias in
//! `.cargo/config.toml`), so that a fresh machine with only rustup needs no
//! other tool.
//!
//! - `tools` — install the pinned `wasmtime` CLI into `.tools/` when missing
//!   (the agreement test checks the logic component under it).
//! - `test` — `tools`, then the whole test suite with that CLI required.
//! - `lint` — rustfmt check and clippy (`-D warnings`), native and for
//!   wasm32-wasip2.
//! - `demo` — build the release host and run `hive-mind demo`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The wasmtime CLI the project pins (the same version as the host's wasmtime).
const WASMTIME_VERSION: &str = "48.0.8";

fn main() -> Result<()> {
    let task = std::env::args().nth(1).unwrap_or_default();
    let root = workspace_root()?;
    match task.as_str() {
        "tools" => install_wasmtime(&root).map(drop),
        "test" => test(&root),
        "lint" => lint(&root),
        "demo" => cargo(
            &root,
            &[
                "run",
                "--release",
                "--locked",
                "--bin",
                "hive-mind",
                "--",
                "demo",
            ],
            &[],
        ),
        _ => bail!("usage: cargo xtask <tools|test|lint|demo>"),
    }
}

fn workspace_root() -> Result<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(Path::to_path_buf)
        .context("xtask must sit in the workspace")
}

/// Install the pinned wasmtime CLI into `.tools/` unless it is already there.
fn install_wasmtime(root: &Path) -> Result<PathBuf> {
    let tools = root.join(".tools");
    let wasmtime = tools.join("bin").join("wasmtime");
    let installed = Command::new(&wasmtime)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains(WASMTIME_VERSION))
        .unwrap_or(false);
    if !installed {
        eprintln!(
            "xtask: installing wasmtime-cli {WASMTIME_VERSION} into {} (a few minutes, once)",
            tools.display()
        );
        let spec = format!("wasmtime-cli@{WASMTIME_VERSION}");
        cargo(
            root,
            &[
                "install",
                &spec,
                "--locked",
                "--no-default-features",
                "--features",
                "run,component-model,cranelift,parallel-compilation",
                "--root",
                &tools.to_string_lossy(),
            ],
            &[],
        )?;
    }
    Ok(wasmtime)
}

fn test(root: &Path) -> Result<()> {
    let wasmtime = install_wasmtime(root)?;
    let wasmtime = wasmtime.to_string_lossy();
    cargo(
        root,
        &["test", "--workspace", "--locked"],
        &[
            ("HIVE_MIND_WASMTIME", &wasmtime),
            ("HIVE_MIND_REQUIRE_WASMTIME_CLI", "1"),
        ],
    )
}

fn lint(root: &Path) -> Result<()> {
    cargo(root, &["fmt", "--all", "--check"], &[])?;
    cargo(
        root,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--locked",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    cargo(
        root,
        &[
            "clippy",
            "--locked",
            "--target",
            "wasm32-wasip2",
            "--package",
            "hive-mind-core",
            "--package",
            "hive-mind-logic-component",
            "--package",
            "hive-mind-engine-component",
            "--package",
            "hive-mind-sandbox-probe",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )
}

fn cargo(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(root).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let status = command
        .status()
        .with_context(|| format!("could not run cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}
