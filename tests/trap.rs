//! Trap recovery: a call stopped by a limit in the middle of a write
//! transaction returns an error naming the limit, releases the database's
//! write lock at once (another process saves), and the same runtime keeps
//! serving on a fresh instance.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hive_mind_models::embedder::{EmbedError, Embedded, Embedder, EmbedderInfo, MockEmbedder};
use hive_mind_runtime::HostError;
use hive_mind_runtime::engine::wit_memory::{MemoryInput, RecallOptions, RecallScope};
use hive_mind_runtime::engine::wit_types::{Mind, ScoringProfile};
use hive_mind_runtime::engine::{EngineError, EngineRuntime};
use hive_mind_runtime::limits::{Deadlines, Limits, TrapKind};

/// The mock embedder, made slow on demand: while `slow` is set each batch
/// takes [`SLOW_BATCH`], longer than the tests' deadline.
struct SlowEmbedder {
    inner: MockEmbedder,
    slow: AtomicBool,
}

const SLOW_BATCH: Duration = Duration::from_millis(3000);

impl Embedder for SlowEmbedder {
    fn info(&self) -> EmbedderInfo {
        self.inner.info()
    }
    fn token_window(&self) -> u32 {
        self.inner.token_window()
    }
    fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError> {
        if self.slow.load(Ordering::SeqCst) {
            std::thread::sleep(SLOW_BATCH);
        }
        self.inner.embed_marked(texts)
    }
}

/// The mock embedder of `HIVE_MIND_EMBEDDER=mock` (the CLI's in these tests).
fn cli_mock() -> MockEmbedder {
    MockEmbedder::new(384)
}

fn engine(dir: &std::path::Path, embedder: Arc<dyn Embedder>, limits: Limits) -> EngineRuntime {
    crate::support::engine_with_limits(dir, Ok(embedder), limits)
}

fn memory(content: &str) -> MemoryInput {
    MemoryInput {
        content: content.to_string(),
        importance: None,
        source: None,
        mind: Mind::Personal,
        created_at: None,
        kind: None,
    }
}

fn recall_options() -> RecallOptions {
    RecallOptions {
        limit: Some(5),
        scope: Some(RecallScope::Personal),
        profile: Some(ScoringProfile::Balanced),
        ..RecallOptions::default()
    }
}

/// The trap the error reports, when it is one.
fn trap_of(error: &EngineError) -> Option<TrapKind> {
    match error {
        EngineError::Host(HostError::Trapped { trap, .. }) => Some(*trap),
        _ => None,
    }
}

fn cli(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    crate::support::hive_mind()
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env("HIVE_MIND_EMBEDDER", "mock")
        .output()
        .unwrap()
}

#[test]
fn a_deadline_inside_a_write_transaction_releases_the_lock_and_the_engine_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let embedder = Arc::new(SlowEmbedder {
        inner: cli_mock(),
        slow: AtomicBool::new(false),
    });
    // Maintenance calls get 200 ms; the slow embedder takes 3 s a batch.
    let limits = Limits {
        deadlines: Some(Deadlines {
            maintenance: Duration::from_millis(200),
            ..Deadlines::default()
        }),
        ..Limits::default()
    };
    let mut engine = engine(dir.path(), embedder.clone(), limits);
    for content in [
        "The ledger service stores invoices in Postgres.",
        "Deploys go out on Tuesdays after the standup.",
        "The staging cluster runs in eu-west-1.",
    ] {
        engine.save_memory(&memory(content)).unwrap();
    }

    // A reindex step opens `BEGIN IMMEDIATE`, then re-embeds its batch
    // inside the transaction: the slow embedder keeps it there past the
    // deadline, and the guest traps when the embedding returns.
    embedder.slow.store(true, Ordering::SeqCst);
    let error = engine
        .admin()
        .reindex_step(&Mind::Personal, 16)
        .unwrap_err();
    assert_eq!(trap_of(&error), Some(TrapKind::DeadlineExceeded), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("reindex_step")
            && message.contains("deadline exceeded")
            && message.contains("200 ms")
            && message.contains("restarted"),
        "{message}"
    );
    assert_eq!(engine.restarts(), 1);
    embedder.slow.store(false, Ordering::SeqCst);

    // At once, another process writes to the same mind: the trapped
    // instance's transaction was rolled back and its lock released (held,
    // the save would fail with `busy` after SQLite's 5 s busy timeout).
    let started = Instant::now();
    let saved = cli(
        dir.path(),
        &["save", "Saved by a second process after the trap."],
    );
    let took = started.elapsed();
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    eprintln!("the second process saved in {took:?}");

    // The first runtime keeps serving, on a fresh instance, and sees the
    // other process's write.
    engine
        .save_memory(&memory("The first process saves again after its trap."))
        .unwrap();
    let recall = engine
        .recall_memory("second process after the trap", &recall_options())
        .unwrap();
    assert!(
        recall
            .memories
            .iter()
            .any(|memory| memory.frame.content.contains("second process")),
        "{:?}",
        recall.memories
    );
    // And the reindex, no longer slow, runs to the end.
    loop {
        let step = engine.admin().reindex_step(&Mind::Personal, 16).unwrap();
        if step.finished {
            break;
        }
    }
    drop(engine);

    let check = cli(dir.path(), &["check", "--json"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["ok"], true);
}

#[test]
fn the_memory_cap_stops_a_call_with_its_own_error_and_the_next_call_runs() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        memory_bytes: Some(64 << 20),
        ..Limits::default()
    };
    let mut engine = engine(dir.path(), Arc::new(cli_mock()), limits);
    engine
        .save_memory(&memory("A small memory fits under the cap."))
        .unwrap();
    // Lowering 80 MiB of content into the guest needs more memory than the
    // cap allows.
    let huge = "word ".repeat(16 << 20);
    let error = engine.save_memory(&memory(&huge)).unwrap_err();
    assert_eq!(trap_of(&error), Some(TrapKind::MemoryLimit), "{error}");
    assert!(
        error.to_string().contains("64 MiB"),
        "the message names the cap: {error}"
    );
    assert_eq!(engine.restarts(), 1);
    engine
        .save_memory(&memory("Another small memory after the trap."))
        .unwrap();
    let status = engine.admin().status().unwrap();
    let personal = status
        .iter()
        .find(|status| matches!(status.mind, Mind::Personal))
        .unwrap();
    assert_eq!(personal.frames, 2, "the trapped save wrote nothing");
}

#[test]
fn an_import_job_lost_with_its_instance_is_refused_not_confused() {
    use hive_mind_runtime::engine::wit_harvest::{Distillation, Document, ImportOptions, Input};

    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine(dir.path(), Arc::new(cli_mock()), Limits::default());
    let inputs = [Input::Document(Document {
        name: "notes.md".into(),
        bytes: b"# Notes\n\nThe build machine has two cores.\n".to_vec(),
    })];
    let options = ImportOptions {
        source: None,
        mind: Mind::Personal,
        distillation: Distillation::Heuristic,
        dry_run: false,
    };
    let lost = engine.harvest_start(&inputs, &options).unwrap();
    engine.restart().unwrap();
    // The job died with its instance: stepping it says so (its handle
    // must never reach the new instance's resources), dropping it is a
    // no-op, and a new job runs.
    let error = engine.harvest_step(lost, 1).unwrap_err();
    assert!(
        matches!(error, EngineError::Host(HostError::Lost { .. })),
        "{error}"
    );
    engine.harvest_drop(lost).unwrap();
    let job = engine.harvest_start(&inputs, &options).unwrap();
    while !engine.harvest_step(job, 8).unwrap().finished {}
    engine.harvest_drop(job).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_server_keeps_serving_after_a_trap() {
    use crate::support::mcp_call as call;
    use serde_json::json;

    let dir = tempfile::tempdir().unwrap();
    let embedder = Arc::new(SlowEmbedder {
        inner: cli_mock(),
        slow: AtomicBool::new(false),
    });
    let limits = Limits {
        // Half the slow batch, so the slow save surely traps, yet room for
        // a fresh instance's first save (it opens the mind and links the
        // entities it names) on a machine loaded by the tests beside it.
        deadlines: Some(Deadlines {
            save: Duration::from_millis(1500),
            ..Deadlines::default()
        }),
        ..Limits::default()
    };
    let server =
        hive_mind_host::mcp::MemoryServer::new(engine(dir.path(), embedder.clone(), limits));
    let session = crate::support::McpSession::serve(server).await;
    let client = session.client();

    // A save whose embedding outlasts the save deadline traps.
    embedder.slow.store(true, Ordering::SeqCst);
    let trapped = client
        .call_tool(call("save_memory", json!({"content": "Slow to embed."})))
        .await;
    embedder.slow.store(false, Ordering::SeqCst);
    let described = format!("{trapped:?}");
    assert!(
        !matches!(&trapped, Ok(result) if result.is_error != Some(true)),
        "{described}"
    );
    assert!(described.contains("deadline exceeded"), "{described}");

    // The server answers the next calls, on a fresh instance.
    client
        .call_tool(call(
            "save_memory",
            json!({"content": "The ledger keeps balances in PostgreSQL."}),
        ))
        .await
        .unwrap();
    let recalled = client
        .call_tool(call("recall_memory", json!({"query": "ledger balances"})))
        .await
        .unwrap();
    let text = recalled.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("PostgreSQL"), "{text}");
    session.close().await;
}
