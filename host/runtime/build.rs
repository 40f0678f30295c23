//! Builds the guest components so that a plain `cargo build` / `cargo test`
//! at the workspace root produces everything.
//!
//! A nested `cargo build --target wasm32-wasip2 --profile guest` compiles the
//! component crates into `<target>/guest`, a target directory of their own
//! (so it never waits on the lock of the build that runs this script). The
//! paths of the resulting `.wasm` files are handed to the host crate as
//! compile-time environment variables; the host embeds the two product
//! components in its binary.
//!
//! It also writes the WIT's enum and variant case names, read from `wit/`
//! itself, for the runtime and the Python host (`build/wit_names.rs`).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "build/wit_names.rs"]
mod wit_names;

/// (package, wasm file stem, env var the host reads).
const COMPONENTS: [(&str, &str, &str); 3] = [
    (
        "hive-mind-logic-component",
        "hive_mind_logic_component",
        "HIVE_MIND_LOGIC_COMPONENT",
    ),
    (
        "hive-mind-engine-component",
        "hive_mind_engine_component",
        "HIVE_MIND_ENGINE_COMPONENT",
    ),
    (
        "hive-mind-sandbox-probe",
        "hive-mind-sandbox-probe",
        "HIVE_MIND_SANDBOX_PROBE",
    ),
];

fn main() {
    // Exiting non-zero (rather than `cargo::error`) makes cargo show the
    // nested build's own messages, which say what actually went wrong.
    if let Err(message) = generate_wit_names().and_then(|()| build_components()) {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn build_components() -> Result<(), String> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    // This crate lives in `host/runtime`; the workspace is two levels up.
    let workspace = manifest_dir
        .parent()
        .and_then(Path::parent)
        .ok_or("the runtime crate must sit inside the workspace")?
        .to_path_buf();
    for watched in [
        "wit",
        "guest",
        "tests/sandbox-probe",
        // Model files the engine compiles in.
        "models/injection-detector",
        "models/change-judge",
        "Cargo.lock",
        "Cargo.toml",
    ] {
        println!(
            "cargo::rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    println!("cargo::rerun-if-env-changed=CARGO_TARGET_DIR");
    // The paths above are this checkout's, but cargo keys a build script's
    // run by the package's path *within* the workspace: a second checkout
    // sharing the target directory (CI's cache, a worktree) would reuse this
    // run, and embed the components built from the other checkout, or from
    // a path that is gone. `cargo xtask` names the checkout, so a run from
    // another one builds the components anew.
    println!("cargo::rerun-if-env-changed=HIVE_MIND_CHECKOUT");

    let target_root = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|dir| {
            if dir.is_absolute() {
                dir
            } else {
                workspace.join(dir)
            }
        })
        .unwrap_or_else(|| workspace.join("target"));
    let guest_target = target_root.join("guest");

    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(&workspace)
        .args([
            "build",
            "--locked",
            "--target",
            "wasm32-wasip2",
            "--profile",
            "guest",
        ])
        .arg("--target-dir")
        .arg(&guest_target);
    for (package, _, _) in COMPONENTS {
        command.args(["--package", package]);
    }
    // The outer build's flags, wrappers and lint settings are for the host
    // target; the guest build gets none of them — except the clippy driver
    // when `HIVE_MIND_GUEST_LINT=1` asks for it (`cargo xtask test` does):
    // the guest crates are then linted for wasm32-wasip2 while this build
    // compiles them, instead of by a separate `cargo clippy` that would
    // compile their dependencies once more.
    println!("cargo::rerun-if-env-changed=HIVE_MIND_GUEST_LINT");
    let lint = env::var("HIVE_MIND_GUEST_LINT").is_ok_and(|value| value == "1");
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
        "CLIPPY_ARGS",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_MAKEFLAGS",
        "MAKEFLAGS",
        "MFLAGS",
    ] {
        if lint && matches!(var, "RUSTC_WORKSPACE_WRAPPER" | "CLIPPY_ARGS") {
            continue;
        }
        command.env_remove(var);
    }
    let status = command
        .status()
        .map_err(|e| format!("could not run cargo to build the guest components: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the guest components for wasm32-wasip2 failed ({status}); \
             is the target installed? `rustup target add wasm32-wasip2`"
        ));
    }

    let out_dir = guest_target.join("wasm32-wasip2").join("guest");
    for (_, stem, var) in COMPONENTS {
        let wasm = out_dir.join(format!("{stem}.wasm"));
        require_file(&wasm)?;
        println!("cargo::rustc-env={var}={}", wasm.display());
    }
    Ok(())
}

/// Writes the WIT's enum and variant case names for the runtime
/// (`wit_names.rs`) and for the Python host's check (`wit_enums.py`) into
/// `OUT_DIR` ([`wit_names`]).
fn generate_wit_names() -> Result<(), String> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out_dir = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let wit_dir = manifest_dir.join("../../wit");
    let generated = wit_names::generate(&wit_dir, "engine")?;
    for (file, text) in [
        ("wit_names.rs", generated.rust),
        ("wit_enums.py", generated.python),
    ] {
        std::fs::write(out_dir.join(file), text)
            .map_err(|e| format!("cannot write {file} into OUT_DIR: {e}"))?;
    }
    Ok(())
}

fn require_file(path: &Path) -> Result<(), String> {
    if path.is_file() {
        Ok(())
    } else {
        Err(format!(
            "the guest build did not produce {}",
            path.display()
        ))
    }
}
