//! The guest gets no ambient authority: no files, no network, no
//! environment, no arguments.
//!
//! A probe component (`tests/sandbox-probe`) tries each and prints a bit
//! mask of what worked. It runs under the host's real sandbox context and
//! must get 0. As a control, the same probe run with a permissive context
//! must see what it was given — so this test would fail if the probe could
//! not detect authority at all.

use hive_mind_runtime::artifacts::SANDBOX_PROBE_PATH;
use hive_mind_runtime::runtime::{self, HostState};
use wasmtime::Store;
use wasmtime::component::Component;
use wasmtime_wasi::WasiCtxBuilder;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;

const ENV_VISIBLE: i32 = 1;
const FILES_VISIBLE: i32 = 2;
const TCP_ALLOWED: i32 = 4;
const UDP_ALLOWED: i32 = 8;
const ARGS_VISIBLE: i32 = 32;
const FILES_WRITABLE: i32 = 64;

/// Run the probe under the context `builder` makes (plus a stdout pipe to
/// read its answer); the bit mask it reports.
fn probe(mut builder: WasiCtxBuilder) -> i32 {
    let stdout = MemoryOutputPipe::new(1024);
    builder.stdout(stdout.clone());
    let wasi = builder.build();
    let engine = runtime::engine().unwrap();
    let component = Component::from_file(&engine, SANDBOX_PROBE_PATH).unwrap();
    let linker = runtime::linker(&engine).unwrap();
    let mut store = Store::new(&engine, HostState::with_wasi(wasi));
    let command =
        wasmtime_wasi::p2::bindings::sync::Command::instantiate(&mut store, &component, &linker)
            .unwrap();
    let outcome = command.wasi_cli_run().call_run(&mut store).unwrap();
    assert_eq!(outcome, Ok(()), "the probe failed");
    let printed = String::from_utf8(stdout.contents().to_vec()).unwrap();
    printed
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("the probe printed {printed:?}"))
}

#[test]
fn the_sandbox_grants_nothing() {
    // Something the guest could see if the environment leaked.
    unsafe_free_env_marker();
    let found = probe(runtime::sandbox_builder());
    assert_eq!(
        found, 0,
        "the sandboxed probe got authority (bit mask {found:#b})"
    );
}

#[test]
fn the_probe_detects_authority_when_it_is_granted() {
    let dir = tempfile::tempdir().unwrap();
    let mut permissive = WasiCtxBuilder::new();
    permissive
        .env("PROBE", "1")
        .args(&["probe", "--flag"])
        .preopened_dir(dir.path(), ".", wasmtime_wasi::FsPerms::ReadWrite)
        .unwrap()
        .inherit_network()
        .allow_tcp(true)
        .allow_udp(true);
    let found = probe(permissive);
    for (bit, what) in [
        (ENV_VISIBLE, "environment"),
        (ARGS_VISIBLE, "arguments"),
        (FILES_VISIBLE, "files"),
        (FILES_WRITABLE, "file writes"),
        (TCP_ALLOWED, "tcp"),
        (UDP_ALLOWED, "udp"),
    ] {
        assert_ne!(
            found & bit,
            0,
            "the control run did not detect {what} (mask {found:#b})"
        );
    }
    assert!(dir.path().join("probe-was-here").exists());
}

/// The test process's environment is not empty (PATH, CARGO_*), so a leak of
/// the host environment would show. Nothing to set.
fn unsafe_free_env_marker() {
    assert!(std::env::vars_os().next().is_some());
}
