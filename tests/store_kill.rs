//! Crash safety: SIGKILL the `hive-mind` process in the middle of a bulk save
//! of thousands of frames (through the engine, with the mock embedder),
//! reopen the file natively with the store's own code, and check that it is
//! intact, every committed frame is there, and frames = FTS rows = vectors
//! with no orphan chunks. Then `hive-mind check` agrees, and a later save
//! works.

// Helpers outside #[test] functions unwrap too: this is test code.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use hive_mind_store::{FrameRef, Mind};

const BIN: &str = env!("CARGO_BIN_EXE_hive-mind");

#[test]
fn killing_a_bulk_save_loses_nothing_committed_and_leaves_no_half_frame() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["--data-dir"])
        .arg(dir.path())
        .args([
            "debug-bulk-save",
            "--count",
            "20000",
            "--batch",
            "40",
            "--long-every",
            "7",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut committed: Vec<u64> = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let ids = line.strip_prefix("committed ").unwrap();
        committed.extend(ids.split(',').map(|id| id.parse::<u64>().unwrap()));
        if committed.len() >= 2000 {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the bulk save was still running when killed"
    );
    assert!(committed.len() >= 2000);

    let mut minds = crate::support::native_minds(dir.path(), None);
    let store = minds.mind(&Mind::Personal).unwrap();
    let report = store.check().unwrap();
    assert!(report.ok(), "{:?}", report.problems);
    let status = &report.status;
    assert!(status.frames >= committed.len() as u64);
    assert_eq!(
        status.frames % 40,
        0,
        "whole batches only: {} frames",
        status.frames
    );
    assert_eq!(status.fts_rows, status.frames);
    assert_eq!(status.frame_vectors, status.frames);
    assert_eq!(status.chunks, report.expected_chunks);
    assert_eq!(status.chunk_vectors, status.chunks);
    assert!(status.chunks > 0);
    let refs: Vec<FrameRef> = committed
        .iter()
        .map(|id| FrameRef {
            mind: Mind::Personal,
            id: *id,
        })
        .collect();
    assert_eq!(minds.get_frames(&refs).unwrap().len(), committed.len());
    drop(minds);

    // The CLI agrees, and the store keeps working.
    let check = Command::new(BIN)
        .args(["--data-dir"])
        .arg(dir.path())
        .args(["check", "--json"])
        // The embedder that wrote the vectors: under another model `check`
        // reports the mind's vectors as foreign (tests/embedder.rs).
        .env("HIVE_MIND_EMBEDDER", "mock")
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["ok"], true);
    let save = Command::new(BIN)
        .args(["--data-dir"])
        .arg(dir.path())
        .args(["save", "after the crash"])
        .env("HIVE_MIND_EMBEDDER", "mock")
        .output()
        .unwrap();
    assert!(
        save.status.success(),
        "{}",
        String::from_utf8_lossy(&save.stderr)
    );
}

#[test]
fn the_cli_saves_through_the_engine_gets_reports_and_reindexes() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str], mock: bool| {
        let mut command = Command::new(BIN);
        command.args(["--data-dir"]).arg(dir.path()).args(args);
        command.env_remove("HIVE_MIND_EMBEDDER");
        if mock {
            command.env("HIVE_MIND_EMBEDDER", "mock");
        }
        command.output().unwrap()
    };
    // No usable embedder: a clear refusal naming what is missing, nothing
    // written.
    std::fs::write(
        dir.path().join("config.toml"),
        "[embedder]\nprovider = \"in-process\"\n[embedder.in_process]\nmodel_dir = \"/nonexistent\"\n",
    )
    .unwrap();
    let refused = run(&["save", "hello"], false);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("no embedder is available") && stderr.contains("/nonexistent"),
        "{stderr}"
    );
    std::fs::remove_file(dir.path().join("config.toml")).unwrap();
    assert!(!dir.path().join("workspaces").exists());

    let saved = run(
        &[
            "save",
            "The ledger uses Postgres.",
            "--importance",
            "important",
            "--workspace",
            "acme",
            "--json",
        ],
        true,
    );
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    let saved: serde_json::Value = serde_json::from_slice(&saved.stdout).unwrap();
    let reference = saved["ref"].as_str().unwrap().to_string();
    assert!(reference.starts_with("workspace:acme:"));
    assert_eq!(saved["duplicate"], false);
    let again = run(
        &[
            "save",
            "[hm src:cli] The ledger uses Postgres.",
            "--workspace",
            "acme",
            "--json",
        ],
        true,
    );
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["duplicate"], true);

    let got = run(&["get", &reference, "--json"], false);
    assert!(got.status.success());
    let got: serde_json::Value = serde_json::from_slice(&got.stdout).unwrap();
    assert_eq!(got["content"], "The ledger uses Postgres.");
    assert_eq!(got["importance"], "important");

    for (args, message) in [
        (
            vec!["save", "x", "--importance", "urgent"],
            "unknown importance",
        ),
        (vec!["save", "x", "--source", "team_sync"], "unknown source"),
        (
            vec!["save", "x", "--created-at", "yesterday"],
            "--created-at: not an ISO-8601",
        ),
        (
            vec!["get", "workspace:nope:1"],
            "unknown workspace \"nope\"",
        ),
        (vec!["get", "personal:999"], "no memory personal:999"),
        (vec!["get", "bogus"], "invalid frame reference"),
    ] {
        let output = run(&args, true);
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }

    let status = run(&["status", "--json"], true);
    assert!(String::from_utf8_lossy(&status.stderr).contains("MOCK"));
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["active_embedder"]["mock"], true);
    assert_eq!(status["minds"].as_array().unwrap().len(), 2);
    let acme = &status["minds"][1];
    assert_eq!(acme["frames"], 1);
    assert_eq!(acme["fts_rows"], 1);
    assert_eq!(acme["frame_vectors"], 1);
    assert_eq!(acme["embedder"]["provider"], "mock");
    assert_eq!(acme["embedder"]["dim"], 384);

    let reindex = run(&["reindex", "--json"], true);
    assert!(
        reindex.status.success(),
        "{}",
        String::from_utf8_lossy(&reindex.stderr)
    );
    assert!(String::from_utf8_lossy(&reindex.stderr).contains("reindex workspace:acme: 1/1"));
    let check = run(&["check", "--json"], true);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

/// Kill `hive-mind forget` at several moments of a large erasure: before,
/// during and after its transaction, and during its `VACUUM`. Each time the
/// mind holds either every matching frame or none of them, and is
/// consistent; the last run, left to finish, erases them.
#[test]
fn killing_a_forget_leaves_the_old_state_or_the_new_never_half() {
    let dir = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| {
        let mut command = Command::new(BIN);
        command
            .args(["--data-dir"])
            .arg(dir.path())
            .args(args)
            .env("HIVE_MIND_EMBEDDER", "mock");
        command
    };
    let saved = cli(&["debug-bulk-save", "--count", "3000", "--batch", "500"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(saved.success());
    // Every bulk frame holds "fox"; frame numbers ending in 7 hold "7 jumps".
    let count = |dir: &std::path::Path| {
        let mut minds = crate::support::native_minds(dir, None);
        let store = minds.mind(&Mind::Personal).unwrap();
        let report = store.check().unwrap();
        assert!(report.ok(), "{:?}", report.problems);
        report.status.frames
    };
    let before = count(dir.path());
    assert_eq!(before, 3000);
    let mut outcomes = Vec::new();
    for delay_ms in [0u64, 150, 400, 800, 1500, 3000] {
        let mut child = cli(&[
            "forget",
            "--matching",
            "fox",
            "--yes",
            "--reason",
            "kill test",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let frames = count(dir.path());
        assert!(
            frames == before || frames == 0,
            "killed after {delay_ms} ms: {frames} of {before} frames left (half an erasure)"
        );
        outcomes.push(frames);
        if frames == 0 {
            break;
        }
    }
    if outcomes.last() != Some(&0) {
        let done = cli(&["forget", "--matching", "fox", "--yes"])
            .output()
            .unwrap();
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        assert_eq!(count(dir.path()), 0);
    }
    let save = cli(&["save", "after the kills"]).output().unwrap();
    assert!(
        save.status.success(),
        "{}",
        String::from_utf8_lossy(&save.stderr)
    );
}
