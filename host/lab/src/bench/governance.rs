//! `hive-mind-lab bench governance`: what the owner's operations cost on a
//! mind of N memories — forgetting one memory (time, and the file size
//! before and after: erasure ends with a `VACUUM`, so the file shrinks),
//! exporting the mind (memories/s) and restoring the export into an empty
//! data directory (memories/s for the restore itself, and for the re-embed
//! that follows it, which the active embedder bounds).
//!
//! The mind is the recall benchmark's corpus ([`super::recall::open_corpus`],
//! built once per N and reused), copied first so the corpus itself is never
//! changed. Each forget is timed alone; the figures are the median and the
//! extremes, and the first forget is reported apart (it pays for the first
//! full-text rewrite on an SQLite without FTS5 `secure-delete`).

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use hive_mind_models::embedder::Embedder;
use hive_mind_models::reranker::Unconfigured;
use hive_mind_runtime::engine::wit_admin::ExportFormat;
use hive_mind_runtime::engine::wit_memory::{ForgetRequest, ForgetSelector};
use hive_mind_runtime::engine::wit_types::{FrameRef, Mind};
use hive_mind_terminal::Progress;

use super::corpus::generate_frames;
use super::recall::{BenchError, CorpusArgs, RecallBenchOptions, open_corpus};
use crate::mind::open_engine;

/// `hive-mind-lab bench governance`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchGovernanceArgs {
    /// The mind (the recall corpus), and how the report is printed.
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Single memories to forget, one at a time.
    #[arg(long, default_value_t = 5)]
    pub forgets: usize,
    /// Skip the export and restore (forget only).
    #[arg(long)]
    pub no_export: bool,
}

/// What the benchmark measured.
#[derive(Debug, Clone, Serialize)]
pub struct GovernanceReport {
    /// Memories in the mind.
    pub frames: usize,
    /// The active embedder.
    pub embedder: String,
    /// Whether the corpus was reused.
    pub reused_corpus: bool,
    /// The mind's file size (database and WAL) before any forget, bytes.
    pub bytes_before: u64,
    /// After the first forget.
    pub bytes_after_one: u64,
    /// Each forget's time, ms, in order.
    pub forget_ms: Vec<f64>,
    /// Their median, ms.
    pub forget_median_ms: f64,
    /// The export: lines, bytes, seconds.
    pub export: Option<Transfer>,
    /// The restore into an empty data directory (no vectors): seconds.
    pub restore: Option<Transfer>,
    /// The re-embed after the restore: seconds.
    pub reembed: Option<Transfer>,
}

/// One direction of the round trip.
#[derive(Debug, Clone, Serialize)]
pub struct Transfer {
    /// Memories moved.
    pub memories: u64,
    /// Bytes of JSON Lines.
    pub bytes: u64,
    /// Seconds.
    pub seconds: f64,
}

impl Transfer {
    fn per_second(&self) -> f64 {
        self.memories as f64 / self.seconds.max(1e-9)
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted.get(n / 2).copied().unwrap_or(0.0),
        n => {
            (sorted.get(n / 2 - 1).copied().unwrap_or(0.0)
                + sorted.get(n / 2).copied().unwrap_or(0.0))
                / 2.0
        }
    }
}

fn mind_bytes(dir: &Path) -> u64 {
    ["personal.sqlite", "personal.sqlite-wal"]
        .iter()
        .filter_map(|name| std::fs::metadata(dir.join(name)).ok())
        .map(|meta| meta.len())
        .sum()
}

fn corpus_error(path: &Path, why: impl std::fmt::Display) -> BenchError {
    BenchError::Corpus {
        path: path.to_path_buf(),
        why: why.to_string(),
    }
}

/// Copy the corpus's mind file (after its engine closed) into `to`.
pub(super) fn copy_mind(from: &Path, to: &Path) -> Result<(), BenchError> {
    std::fs::create_dir_all(to).map_err(|e| corpus_error(to, e))?;
    for name in ["personal.sqlite", "personal.sqlite-wal"] {
        let source = from.join(name);
        if source.exists() {
            std::fs::copy(&source, to.join(name)).map_err(|e| corpus_error(&source, e))?;
        }
    }
    Ok(())
}

/// The recall benchmark's corpus of `frames` memories (built once per size
/// and reused), its mind copied into `mind/` of a new folder beside it, so
/// the corpus itself is never changed; the folder, and whether the corpus
/// was reused.
pub(super) fn copied_corpus(
    frames: usize,
    seed: u64,
    corpus_dir: &Path,
    prefix: &str,
    embedder: Arc<dyn Embedder>,
    progress: &Progress,
) -> Result<(tempfile::TempDir, bool), BenchError> {
    let options = RecallBenchOptions {
        frames,
        queries: 1,
        corpus_dir: corpus_dir.to_path_buf(),
        seed,
        rerank: None,
    };
    let generated = generate_frames(frames, seed);
    let (engine, _, reused) = open_corpus(
        &options,
        &generated,
        embedder,
        Arc::new(Unconfigured),
        progress,
    )?;
    drop(engine);
    let work = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(corpus_dir.parent().unwrap_or(corpus_dir))
        .map_err(|e| corpus_error(corpus_dir, e))?;
    copy_mind(corpus_dir, &work.path().join("mind"))?;
    Ok((work, reused))
}

/// Run the benchmark with `embedder`.
pub fn run(
    args: &BenchGovernanceArgs,
    corpus_dir: &Path,
    embedder: Arc<dyn Embedder>,
    progress: &Progress,
) -> Result<GovernanceReport, BenchError> {
    if args.corpus.frames == 0 || args.forgets == 0 {
        return Err(BenchError::Option(
            "--frames and --forgets must be at least 1".into(),
        ));
    }
    let (work, reused) = copied_corpus(
        args.corpus.frames,
        args.corpus.seed,
        corpus_dir,
        "governance-",
        Arc::clone(&embedder),
        progress,
    )?;
    let mind_dir = work.path().join("mind");
    let mut engine = open_engine(&mind_dir, Arc::clone(&embedder), Arc::new(Unconfigured))?;
    let status = engine.admin().status()?;
    let total = status.first().map_or(0, |status| status.frames);
    let bytes_before = mind_bytes(&mind_dir);

    // Forget memories spread over the mind, one call each.
    let mut forget_ms = Vec::with_capacity(args.forgets);
    let mut bytes_after_one = bytes_before;
    let step = (total / (args.forgets as u64 + 1)).max(1);
    for index in 1..=args.forgets as u64 {
        let request = ForgetRequest {
            selector: ForgetSelector::Memories(vec![FrameRef {
                mind: Mind::Personal,
                id: index * step,
            }]),
            reason: Some("benchmark".to_string()),
            dry_run: false,
        };
        let started = Instant::now();
        engine.forget(&request)?;
        forget_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        if index == 1 {
            bytes_after_one = mind_bytes(&mind_dir);
        }
        progress.note(&format!(
            "forget {index}/{}: {:.0} ms",
            args.forgets,
            forget_ms.last().copied().unwrap_or(0.0)
        ));
    }

    let (export, restore, reembed) = if args.no_export {
        (None, None, None)
    } else {
        let started = Instant::now();
        let lines = engine
            .admin()
            .export_mind(&Mind::Personal, ExportFormat::JsonLines)?;
        let seconds = started.elapsed().as_secs_f64();
        let bytes: u64 = lines.iter().map(|line| line.len() as u64 + 1).sum();
        let memories = total.saturating_sub(args.forgets as u64);
        let export = Transfer {
            memories,
            bytes,
            seconds,
        };
        progress.note(&format!("export: {seconds:.1} s"));
        drop(engine);

        let restored_dir = work.path().join("restored");
        let mut engine = open_engine(&restored_dir, Arc::clone(&embedder), Arc::new(Unconfigured))?;
        let started = Instant::now();
        let report = engine.admin().restore_mind(&Mind::Personal, &lines)?;
        let restore = Transfer {
            memories: report.frames,
            bytes,
            seconds: started.elapsed().as_secs_f64(),
        };
        progress.note(&format!("restore: {:.1} s", restore.seconds));
        let started = Instant::now();
        loop {
            let step = engine.admin().reindex_step(&Mind::Personal, 64)?;
            if step.finished {
                break;
            }
        }
        let reembed = Transfer {
            memories: report.frames,
            bytes: 0,
            seconds: started.elapsed().as_secs_f64(),
        };
        (Some(export), Some(restore), Some(reembed))
    };
    Ok(GovernanceReport {
        frames: args.corpus.frames,
        embedder: embedder.info().to_string(),
        reused_corpus: reused,
        bytes_before,
        bytes_after_one,
        forget_median_ms: median(&forget_ms),
        forget_ms,
        export,
        restore,
        reembed,
    })
}

/// The report for a person.
pub fn render(report: &GovernanceReport) -> String {
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let mut text = String::new();
    let _ = writeln!(
        text,
        "mind: {} memories ({}), corpus {}",
        report.frames,
        report.embedder,
        if report.reused_corpus {
            "reused"
        } else {
            "built"
        }
    );
    let _ = writeln!(
        text,
        "forget one memory: median {:.0} ms over {} (each: {})",
        report.forget_median_ms,
        report.forget_ms.len(),
        report
            .forget_ms
            .iter()
            .map(|ms| format!("{ms:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        text,
        "file size: {:.1} MiB before, {:.1} MiB after one forget",
        mib(report.bytes_before),
        mib(report.bytes_after_one)
    );
    for (label, transfer) in [
        ("export", &report.export),
        ("restore (rows, no vectors)", &report.restore),
        ("re-embed after restore", &report.reembed),
    ] {
        if let Some(transfer) = transfer {
            let _ = writeln!(
                text,
                "{label}: {} memories in {:.2} s = {:.0} memories/s{}",
                transfer.memories,
                transfer.seconds,
                transfer.per_second(),
                if transfer.bytes > 0 {
                    format!(" ({:.1} MiB of JSON Lines)", mib(transfer.bytes))
                } else {
                    String::new()
                }
            );
        }
    }
    text
}

/// Run `hive-mind-lab bench governance` with the embedder `data_dir`
/// configures.
pub fn command(
    args: &BenchGovernanceArgs,
    data_dir: &Path,
    out: &mut dyn Write,
) -> Result<(), BenchError> {
    args.corpus.run(
        data_dir,
        |_, corpus_dir, embedder, progress| run(args, corpus_dir, embedder, progress),
        render,
        out,
    )
}
