//! # The recall benchmark (`hive-mind-lab bench recall`)
//!
//! How fast is the whole recall pipeline on a mind of N memories, and how
//! much does it cost over the bare vector search underneath it?
//!
//! 1. **A corpus, built once per N** ([`super::corpus`]): N synthetic
//!    memories saved through `memory.save-memories` in batches of
//!    [`INGEST_BATCH`] (the real write path: chunking, embedding, one
//!    transaction per batch), into `--keep-corpus DIR` (default
//!    `target/bench-corpus/N-<model>`). A manifest written last
//!    (`bench-corpus.json`) records what was built and how fast; a later run
//!    with the same N, seed, generator and embedder reuses the directory
//!    instead of re-ingesting. A directory without a matching manifest (a
//!    build that was interrupted, another N) is rebuilt, but only if it holds
//!    nothing but a corpus's files.
//! 2. **Q queries** from the same templates: topic questions with a known
//!    answer, questions naming a month ("in May 2025") and catch-up requests,
//!    each through `memory.recall-memory` (limit 10, the default relevance
//!    floor, "now" just after the corpus's last day). One untimed warm-up
//!    query goes first.
//! 3. **Figures**: recall latency p50/p95/mean (overall and per kind of
//!    query), where the time goes (the guest's stages, and the recall time
//!    split by the host's import timings into the engine's own work inside
//!    the component and the host's SQLite, embedder and reranker time; see
//!    [`crate::timing::split_parts`]), peak RSS, and the **bare exact
//!    KNN** time for the same query vectors — the engine's
//!    `admin.exact-neighbours`, its measurement reference: an exact float
//!    cosine scan of every stored vector of the mind, with the semantic
//!    lane's fetch size (`limit ×` the engine's `search-fetch-multiplier`,
//!    from `admin.get-plan-constants`) — so the pipeline's overhead is one
//!    ratio: pipeline p50 / bare KNN p50. The host knows neither the
//!    engine's tables nor its constants: it asks.
//!
//! Recall's own vector search runs on the in-memory int8 index inside the
//! component; how closely that index agrees with the exact search is
//! measured by the store's own tests (`guest/store/tests/search.rs`), not
//! here.
//!
//! Recall writes too (it touches the frames it returns: access counts), so
//! a reused corpus is not bit-identical to a fresh one; the popularity
//! signal drifts a little between runs. Latency is what this measures.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use hive_mind_sqlite::{DataDir, SqlError};
use serde::{Deserialize, Serialize};

use super::corpus::{
    BenchQuery, CorpusFrame, CorpusKind, GENERATOR_VERSION, NOW, QueryKind, Weight,
    generate_frames, generate_queries,
};
use crate::mind::{OpenError, open_engine};
use crate::timing::{SPLIT_NOTE, add_timings, mean, percentile, split_label, split_rows};
use hive_mind_models::embedder::{EmbedError, Embedder};
use hive_mind_runtime::engine::wit_memory::{MemoryInput, RecallOptions, RecallScope};
use hive_mind_runtime::engine::wit_names::WitEnum;
use hive_mind_runtime::engine::{EngineError, EngineRuntime, ImportTimings, wit_types};
use hive_mind_terminal::Progress;

/// One part of recall's time: a guest stage, or a part of the split
/// between the engine and the host's imports (the evaluation's rows).
pub use crate::timing::StageShare as Stage;

/// Memories per `memory.save-memories` call while building the corpus.
pub const INGEST_BATCH: usize = 256;

/// The recall limit the queries ask for.
pub const RECALL_LIMIT: u32 = 10;

/// The `k` of the bare KNN reference: the engine's fetch depth for the
/// semantic lane of a recall of `limit` memories, `limit ×` its
/// `search-fetch-multiplier` (asked of the engine: `admin.get-plan-constants`).
/// It only sizes the reference figure; nothing in recall depends on it.
pub fn bare_knn_k(engine: &mut EngineRuntime, limit: u32) -> Result<u32, EngineError> {
    let constants = engine.admin().plan_constants()?;
    Ok(limit.saturating_mul(constants.search_fetch_multiplier))
}

/// The manifest's file name in the corpus directory.
pub const MANIFEST: &str = "bench-corpus.json";

/// The default seed.
pub const DEFAULT_SEED: u64 = 20_240_601;

/// `hive-mind-lab bench recall`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchRecallArgs {
    /// The corpus, and how the report is printed.
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Queries to time.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// Time recall with the configured reranker (default: the shipped
    /// cross-encoder) at the engine's default pool; without it, the
    /// benchmark measures the pipeline alone.
    #[arg(long)]
    pub rerank: bool,
    /// With `--rerank`: the rerank pool (default: the engine's).
    #[arg(long)]
    pub rerank_pool: Option<u32>,
}

/// What to run.
#[derive(Clone)]
pub struct RecallBenchOptions {
    /// Memories in the corpus.
    pub frames: usize,
    /// Queries to time.
    pub queries: usize,
    /// The corpus directory.
    pub corpus_dir: PathBuf,
    /// The generator's seed.
    pub seed: u64,
    /// The reranker, if recall should rerank, and the pool
    /// (`None`: the engine's default).
    pub rerank: Option<(Arc<dyn hive_mind_models::reranker::Reranker>, Option<u32>)>,
}

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Opening the engine or a mind failed.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The corpus's file could not be named.
    #[error("the corpus's mind: {0}")]
    Sql(#[from] SqlError),
    /// Embedding the queries failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The corpus directory could not be used.
    #[error("the corpus directory {}: {why}", path.display())]
    Corpus {
        /// The directory.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Option(String),
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] hive_mind_models::config::ConfigError),
    /// The reranker could not be loaded.
    #[error("the reranker: {0}")]
    Reranker(#[from] hive_mind_models::onnx::ModelError),
    /// Writing the output failed.
    #[error("could not write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// What was built, recorded next to the corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`GENERATOR_VERSION`] at build time.
    pub generator: u32,
    /// The seed.
    pub seed: u64,
    /// Memories generated.
    pub frames: usize,
    /// The embedder, `provider/model (dim-d)`.
    pub embedder: String,
    /// Frames written.
    pub written: u64,
    /// Memories the store found already present.
    pub duplicates: u64,
    /// Seconds the ingest took.
    pub ingest_seconds: f64,
}

impl Manifest {
    /// Frames per second of the build.
    pub fn frames_per_second(&self) -> f64 {
        self.frames as f64 / self.ingest_seconds.max(1e-9)
    }
}

/// Latency figures, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latency {
    /// How many measured.
    pub n: usize,
    /// Median.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// Mean.
    pub mean_ms: f64,
}

impl Latency {
    fn of(ms: &[f64]) -> Latency {
        Latency {
            n: ms.len(),
            p50_ms: percentile(ms, 50.0),
            p95_ms: percentile(ms, 95.0),
            mean_ms: mean(ms),
        }
    }
}

/// The benchmark's results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecallBenchReport {
    /// The embedder.
    pub embedder: String,
    /// The corpus directory.
    pub corpus_dir: String,
    /// Memories in the corpus.
    pub frames: usize,
    /// Whether an existing corpus was reused (nothing ingested this run).
    pub reused: bool,
    /// How the corpus was built (this run, or the run that built it).
    pub build: Manifest,
    /// The corpus's file size in bytes (the SQLite file and its WAL).
    pub corpus_bytes: u64,
    /// Queries timed.
    pub queries: usize,
    /// Recall latency, all queries.
    pub recall: Latency,
    /// Recall latency per kind of query (`topic`, `dated`, `catch-up`).
    pub recall_by_kind: std::collections::BTreeMap<String, Latency>,
    /// Where recall's time goes, by the guest's stages.
    pub stages: Vec<Stage>,
    /// Where recall's time goes, between the engine in the component and the
    /// host's imports ([`crate::timing::split_parts`]).
    pub split: Vec<Stage>,
    /// The `k` of the bare KNN query ([`bare_knn_k`] of [`RECALL_LIMIT`]).
    pub knn_k: u32,
    /// The bare exact KNN (the engine's `admin.exact-neighbours`: an exact
    /// float cosine scan of the mind's vectors), same query vectors.
    pub bare_knn: Latency,
    /// Pipeline p50 / bare KNN p50.
    pub overhead_ratio: f64,
    /// Topic queries whose source memory came back in the top
    /// [`RECALL_LIMIT`] (a sanity check of the corpus and queries, not a
    /// quality figure).
    pub answered: usize,
    /// Topic queries.
    pub topic_queries: usize,
    /// Mean memories returned per recall.
    pub mean_memories: f64,
    /// Peak resident set of the process (KiB), when known.
    pub peak_rss_kib: Option<u64>,
}

/// The default corpus directory for `frames` memories embedded by `model`.
pub fn default_corpus_dir(frames: usize, model: &str) -> PathBuf {
    let model: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    Path::new("target")
        .join("bench-corpus")
        .join(format!("{frames}-{model}"))
}

fn importance(weight: Weight) -> wit_types::Importance {
    match weight {
        Weight::Critical => wit_types::Importance::Critical,
        Weight::Important => wit_types::Importance::Important,
        Weight::Normal => wit_types::Importance::Normal,
        Weight::Temporary => wit_types::Importance::Temporary,
    }
}

fn read_manifest(dir: &Path) -> Option<Manifest> {
    let text = std::fs::read_to_string(dir.join(MANIFEST)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Empty `dir` for a rebuild, refusing when it holds anything a corpus
/// would not.
fn clear_corpus_dir(dir: &Path) -> Result<(), BenchError> {
    let corpus = |why: String| BenchError::Corpus {
        path: dir.to_path_buf(),
        why,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(corpus(error.to_string())),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| corpus(e.to_string()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name == MANIFEST
            || name == "personal.sqlite"
            || name == "personal.sqlite-wal"
            || name == "personal.sqlite-shm"
            || name == "personal.sqlite-journal";
        if !ours || !entry.file_type().is_ok_and(|t| t.is_file()) {
            return Err(corpus(format!(
                "it holds {name:?}, which is not part of a benchmark corpus; \
                 refusing to delete it (choose another --keep-corpus)"
            )));
        }
        files.push(entry.path());
    }
    for file in files {
        std::fs::remove_file(&file).map_err(|e| corpus(format!("{}: {e}", file.display())))?;
    }
    Ok(())
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// The WIT `memory-kind` a corpus memory is saved with; none for a plain
/// one. The engine writes the kind's marking into the stored content.
fn memory_kind(kind: &CorpusKind) -> Option<wit_types::MemoryKind> {
    Some(match kind {
        CorpusKind::Plain => return None,
        CorpusKind::Fact => wit_types::MemoryKind::Fact,
        CorpusKind::Event => wit_types::MemoryKind::Event,
        CorpusKind::Profile(name) => wit_types::MemoryKind::Profile((*name).to_string()),
        CorpusKind::RawTurn {
            conversation,
            turn,
            speaker,
        } => wit_types::MemoryKind::RawTurn(wit_types::TurnOrigin {
            conversation: conversation.clone(),
            turn: *turn,
            speaker: (*speaker).to_string(),
        }),
    })
}

/// Whether a recalled frame is the corpus memory `target`: its typed kind
/// is the target's, and its stored content is the target's text (after the
/// marking the engine put in front of it, for a memory of a kind).
fn is_memory(frame: &wit_types::Frame, target: &CorpusFrame) -> bool {
    let kind = frame.metadata.kind.as_ref();
    let same_kind = match (kind, &target.kind) {
        (None, CorpusKind::Plain) => true,
        (Some(wit_types::MemoryKind::Fact), CorpusKind::Fact)
        | (Some(wit_types::MemoryKind::Event), CorpusKind::Event) => true,
        (Some(wit_types::MemoryKind::Profile(name)), CorpusKind::Profile(wanted)) => name == wanted,
        (
            Some(wit_types::MemoryKind::RawTurn(origin)),
            CorpusKind::RawTurn {
                conversation,
                turn,
                speaker,
            },
        ) => {
            origin.conversation == *conversation
                && origin.turn == *turn
                && origin.speaker == *speaker
        }
        _ => false,
    };
    same_kind
        && match kind {
            None => frame.content == target.content,
            Some(_) => frame
                .content
                .strip_suffix(target.content.as_str())
                .is_some_and(|marking| marking.ends_with(' ')),
        }
}

/// Build the corpus into the (empty) `dir` through `engine`.
fn ingest(
    engine: &mut EngineRuntime,
    frames: &[CorpusFrame],
    options: &RecallBenchOptions,
    embedder: &str,
    progress: &Progress,
) -> Result<Manifest, BenchError> {
    let started = Instant::now();
    let mut written = 0u64;
    let mut duplicates = 0u64;
    let mut last_report = Instant::now();
    progress.set_total(frames.len() as u64);
    progress.working_on("building the corpus");
    for (index, batch) in frames.chunks(INGEST_BATCH).enumerate() {
        let inputs: Vec<MemoryInput> = batch
            .iter()
            .map(|frame| MemoryInput {
                content: frame.content.clone(),
                importance: Some(importance(frame.weight)),
                source: Some(wit_types::Source::UserStated),
                mind: wit_types::Mind::Personal,
                created_at: Some(frame.created_at.and_utc().timestamp_millis()),
                kind: memory_kind(&frame.kind),
            })
            .collect();
        for saved in engine.save_memories(&inputs)? {
            if saved.duplicate {
                duplicates += 1;
            } else {
                written += 1;
            }
        }
        progress.advance(batch.len() as u64);
        // Without a bar (a log, a pipe), a line now and then.
        if !progress.is_visible() && last_report.elapsed().as_secs() >= 10 {
            last_report = Instant::now();
            let done = (index * INGEST_BATCH + batch.len()) as f64;
            let seconds = started.elapsed().as_secs_f64();
            progress.note(&format!(
                "ingest: {done}/{} memories, {:.0} /s",
                frames.len(),
                done / seconds.max(1e-9)
            ));
        }
    }
    progress.finish();
    let truncated = engine.truncated_texts();
    if truncated > 0 {
        progress.note(&format!(
            "{truncated} texts were longer than the embedder's window; only their beginning was embedded"
        ));
    }
    engine.take_timings();
    Ok(Manifest {
        generator: GENERATOR_VERSION,
        seed: options.seed,
        frames: options.frames,
        embedder: embedder.to_string(),
        written,
        duplicates,
        ingest_seconds: started.elapsed().as_secs_f64(),
    })
}

/// The engine over the corpus of `options` (`frames`, generated from its
/// seed), building the corpus first unless a matching one is there: the
/// engine, the corpus's manifest, and whether it was reused.
pub fn open_corpus(
    options: &RecallBenchOptions,
    frames: &[CorpusFrame],
    embedder: Arc<dyn Embedder>,
    reranker: Arc<dyn hive_mind_models::reranker::Reranker>,
    progress: &Progress,
) -> Result<(EngineRuntime, Manifest, bool), BenchError> {
    let embedder_name = embedder.info().to_string();
    let dir = &options.corpus_dir;
    let wanted = |manifest: &Manifest| {
        manifest.generator == GENERATOR_VERSION
            && manifest.seed == options.seed
            && manifest.frames == options.frames
            && manifest.embedder == embedder_name
    };
    let existing = read_manifest(dir)
        .filter(wanted)
        .filter(|_| dir.join("personal.sqlite").is_file());
    let reused = existing.is_some();
    if !reused {
        clear_corpus_dir(dir)?;
    }
    let mut engine = open_engine(dir, embedder, reranker)?;
    let build = match existing {
        Some(manifest) => {
            progress.note(&format!(
                "reusing the corpus in {} ({} memories, built at {:.0} memories/s)",
                dir.display(),
                manifest.frames,
                manifest.frames_per_second()
            ));
            manifest
        }
        None => {
            progress.note(&format!(
                "building a corpus of {} memories in {} …",
                options.frames,
                dir.display()
            ));
            let manifest = ingest(&mut engine, frames, options, &embedder_name, progress)?;
            let text = serde_json::to_string_pretty(&manifest)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            std::fs::write(dir.join(MANIFEST), text).map_err(|e| BenchError::Corpus {
                path: dir.clone(),
                why: format!("could not write the manifest: {e}"),
            })?;
            progress.note(&format!(
                "built in {:.1} s ({:.0} memories/s)",
                manifest.ingest_seconds,
                manifest.frames_per_second()
            ));
            manifest
        }
    };
    Ok((engine, build, reused))
}

/// Run the benchmark with `embedder`; `progress` counts the corpus build and
/// gets a note now and then.
pub fn run(
    options: &RecallBenchOptions,
    embedder: Arc<dyn Embedder>,
    progress: &Progress,
) -> Result<RecallBenchReport, BenchError> {
    if options.frames == 0 || options.queries == 0 {
        return Err(BenchError::Option(
            "--frames and --queries must be at least 1".into(),
        ));
    }
    let embedder_name = embedder.info().to_string();
    let frames = generate_frames(options.frames, options.seed);
    let reranker = options.rerank.as_ref().map_or_else(
        || -> Arc<dyn hive_mind_models::reranker::Reranker> {
            Arc::new(hive_mind_models::reranker::Unconfigured)
        },
        |(r, _)| Arc::clone(r),
    );
    let (mut engine, build, reused) =
        open_corpus(options, &frames, Arc::clone(&embedder), reranker, progress)?;
    let dir = &options.corpus_dir;

    let queries = generate_queries(&frames, options.queries, options.seed);
    let recall_options = RecallOptions {
        limit: Some(RECALL_LIMIT),
        scope: Some(RecallScope::Personal),
        now: Some(NOW),
        // Off unless asked for: the pipeline's own figures stay comparable
        // with earlier runs.
        rerank_pool: match &options.rerank {
            Some((_, pool)) => *pool,
            None => Some(0),
        },
        ..RecallOptions::default()
    };
    // Warm-up: the first recall pays for cold caches and prepared
    // statements.
    if let Some(first) = queries.first() {
        engine.recall_memory(&first.text, &recall_options)?;
    }
    engine.take_timings();
    let mut latencies = Vec::with_capacity(queries.len());
    let mut recall_time = std::time::Duration::ZERO;
    let mut by_kind: Vec<(QueryKind, Vec<f64>)> = Vec::new();
    let mut stage_micros: Vec<(String, u64)> = Vec::new();
    let mut imports = ImportTimings::default();
    let mut answered = 0;
    let mut returned = Vec::with_capacity(queries.len());
    for query in &queries {
        let started = Instant::now();
        let recall = engine.recall_memory(&query.text, &recall_options)?;
        let elapsed = started.elapsed();
        let ms = elapsed.as_secs_f64() * 1000.0;
        let timings = engine.take_timings();
        recall_time += elapsed;
        latencies.push(ms);
        match by_kind.iter_mut().find(|(kind, _)| *kind == query.kind) {
            Some((_, list)) => list.push(ms),
            None => by_kind.push((query.kind, vec![ms])),
        }
        for stage in &recall.stages {
            let name = stage.stage.wit_name();
            match stage_micros.iter_mut().find(|(known, _)| known == name) {
                Some((_, micros)) => *micros += stage.micros,
                None => stage_micros.push((name.to_string(), stage.micros)),
            }
        }
        add_timings(&mut imports, &timings);
        returned.push(recall.memories.len() as f64);
        if let Some(target) = query.target.and_then(|t| frames.get(t))
            && recall
                .memories
                .iter()
                .any(|memory| is_memory(&memory.frame, target))
        {
            answered += 1;
        }
    }

    let knn_k = bare_knn_k(&mut engine, RECALL_LIMIT)?;
    let data_dir = DataDir::new(dir);
    let bare_ms = bare_knn(&mut engine, embedder.as_ref(), &queries, knn_k)?;
    let recall = Latency::of(&latencies);
    let bare_knn = Latency::of(&bare_ms);
    let stages = stage_table(&stage_micros, queries.len());
    let split = split_rows(recall_time, &imports, queries.len());
    let path = data_dir.path_of("personal")?;
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    Ok(RecallBenchReport {
        embedder: embedder_name,
        corpus_dir: dir.display().to_string(),
        frames: options.frames,
        reused,
        build,
        corpus_bytes: file_size(&path) + file_size(&wal),
        queries: queries.len(),
        overhead_ratio: recall.p50_ms / bare_knn.p50_ms.max(1e-9),
        recall,
        recall_by_kind: by_kind
            .iter()
            .map(|(kind, ms)| (kind.as_str().to_string(), Latency::of(ms)))
            .collect(),
        stages,
        split,
        knn_k,
        bare_knn,
        answered,
        topic_queries: queries
            .iter()
            .filter(|q| q.kind == QueryKind::Topic)
            .count(),
        mean_memories: mean(&returned),
        peak_rss_kib: crate::bench::embed::peak_rss_kib(),
    })
}

/// Time the bare exact KNN (`admin.exact-neighbours` over the personal
/// mind) for each query's vector (embedded first, outside the timing):
/// milliseconds per query. Each query's neighbours come back whole (refs
/// and cosines), as a caller of the KNN would read them.
fn bare_knn(
    engine: &mut EngineRuntime,
    embedder: &dyn Embedder,
    queries: &[BenchQuery],
    k: u32,
) -> Result<Vec<f64>, BenchError> {
    let texts: Vec<String> = queries.iter().map(|q| q.text.clone()).collect();
    let vectors = embedder.embed(&texts)?;
    let mind = wit_types::Mind::Personal;
    // Warm-up: the first scan reads the vectors into the page cache.
    if let Some(first) = vectors.first() {
        engine.admin().exact_neighbours(&mind, first, k)?;
    }
    let mut ms = Vec::with_capacity(vectors.len());
    for vector in &vectors {
        let started = Instant::now();
        let hits = engine.admin().exact_neighbours(&mind, vector, k)?;
        ms.push(started.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box(hits);
    }
    Ok(ms)
}

fn stage_table(stage_micros: &[(String, u64)], recalls: usize) -> Vec<Stage> {
    let total: u64 = stage_micros.iter().map(|(_, m)| m).sum();
    stage_micros
        .iter()
        .map(|(stage, micros)| Stage {
            stage: stage.clone(),
            mean_ms: *micros as f64 / 1000.0 / recalls.max(1) as f64,
            share: if total > 0 {
                *micros as f64 / total as f64
            } else {
                0.0
            },
        })
        .collect()
}

fn kib(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "unknown".to_string(),
        |kib| format!("{:.1} MiB", kib as f64 / 1024.0),
    )
}

/// The report as text.
pub fn render(report: &RecallBenchReport) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    let build = &report.build;
    let _ = writeln!(
        text,
        "recall benchmark: {} memories, {} queries, embedder {}",
        report.frames, report.queries, report.embedder
    );
    let _ = writeln!(
        text,
        "corpus: {} ({:.1} MiB){}",
        report.corpus_dir,
        report.corpus_bytes as f64 / (1024.0 * 1024.0),
        if report.reused {
            " — reused, nothing ingested this run"
        } else {
            " — built this run"
        }
    );
    let _ = writeln!(
        text,
        "ingest: {} memories in {:.1} s = {:.1} memories/s (batches of {INGEST_BATCH}; written {}, duplicates {}){}",
        build.frames,
        build.ingest_seconds,
        build.frames_per_second(),
        build.written,
        build.duplicates,
        if report.reused { ", at build time" } else { "" }
    );
    let line = |label: &str, l: &Latency| {
        format!(
            "{label:<24} p50 {:>8.2} ms   p95 {:>8.2} ms   mean {:>8.2} ms   (n={})",
            l.p50_ms, l.p95_ms, l.mean_ms, l.n
        )
    };
    let _ = writeln!(text, "\n{}", line("recall (pipeline)", &report.recall));
    for (kind, latency) in &report.recall_by_kind {
        let _ = writeln!(text, "{}", line(&format!("  {kind} queries"), latency));
    }
    let _ = writeln!(
        text,
        "{}",
        line(&format!("bare KNN (k={})", report.knn_k), &report.bare_knn)
    );
    let _ = writeln!(
        text,
        "  (exact float KNN over the mind's vectors: the engine's admin.exact-neighbours; \
         recall's own vector search is the int8 index inside the component, whose agreement \
         with the exact search is measured by the store's own tests in guest/store, not here)"
    );
    let _ = writeln!(
        text,
        "pipeline overhead: p50 recall / p50 bare KNN = {:.1}×",
        report.overhead_ratio
    );
    let _ = writeln!(
        text,
        "\nwhere recall's time goes (mean per recall, share of the stages' total):"
    );
    for stage in &report.stages {
        let _ = writeln!(
            text,
            "  {:<26}{:>9.2} ms {:>6.1}%",
            stage.stage,
            stage.mean_ms,
            stage.share * 100.0
        );
    }
    let _ = writeln!(
        text,
        "the recall latency, between the engine and the host's imports (mean per recall, share):"
    );
    for part in &report.split {
        let _ = writeln!(
            text,
            "  {:<26}{:>9.2} ms {:>6.1}%",
            split_label(&part.stage),
            part.mean_ms,
            part.share * 100.0
        );
    }
    let _ = writeln!(text, "{SPLIT_NOTE}");
    let _ = writeln!(
        text,
        "\nmemories per recall: {:.1} mean; topic queries whose source memory was recalled: {}/{}",
        report.mean_memories, report.answered, report.topic_queries
    );
    let _ = writeln!(text, "peak RSS: {}", kib(report.peak_rss_kib));
    text
}

/// The arguments every benchmark on the recall corpus takes: which corpus,
/// and how its report is printed.
#[derive(Debug, Clone, clap::Args)]
pub struct CorpusArgs {
    /// Memories in the corpus.
    #[arg(long, default_value_t = 10_000)]
    pub frames: usize,
    /// Where the corpus lives (built there once, reused after); default
    /// `target/bench-corpus/<frames>-<embedder model>`. A benchmark that
    /// changes a mind works on a copy; the corpus is never changed.
    #[arg(long)]
    pub keep_corpus: Option<PathBuf>,
    /// The generator's seed.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    pub quiet: bool,
}

impl CorpusArgs {
    /// Resolve the embedder `data_dir` configures and the corpus folder,
    /// run `bench` (given the configuration too) with a progress bar, and
    /// write its report (`render`, or JSON).
    pub fn run<R: Serialize>(
        &self,
        data_dir: &Path,
        bench: impl FnOnce(
            &hive_mind_models::config::Config,
            &Path,
            Arc<dyn Embedder>,
            &Progress,
        ) -> Result<R, BenchError>,
        render: impl Fn(&R) -> String,
        out: &mut dyn Write,
    ) -> Result<(), BenchError> {
        let config = hive_mind_models::config::Config::load_in(data_dir)?;
        let active = hive_mind_models::embedder::resolve(&config.embedder)?;
        if active.info.is_mock() {
            eprintln!("warning: the MOCK embedder is active; vector similarity means nothing");
        }
        let corpus_dir = self
            .keep_corpus
            .clone()
            .unwrap_or_else(|| default_corpus_dir(self.frames, &active.info.model));
        let progress = Progress::new(0, "memories", self.quiet);
        let report = bench(&config, &corpus_dir, active.embedder, &progress);
        progress.finish();
        let report = report?;
        Ok(super::write_report(&report, self.json, render, out)?)
    }
}

/// Run `hive-mind-lab bench recall` with the embedder `data_dir` configures.
pub fn command(
    args: &BenchRecallArgs,
    data_dir: &Path,
    out: &mut dyn Write,
) -> Result<(), BenchError> {
    args.corpus.run(
        data_dir,
        |config, corpus_dir, embedder, progress| {
            let mut options = RecallBenchOptions {
                frames: args.corpus.frames,
                queries: args.queries,
                corpus_dir: corpus_dir.to_path_buf(),
                seed: args.corpus.seed,
                rerank: None,
            };
            if args.rerank {
                let loaded = hive_mind_models::reranker::load(&config.reranker)?;
                match loaded.missing {
                    Some(why) => {
                        return Err(BenchError::Option(format!("--rerank: no reranker: {why}")));
                    }
                    None => options.rerank = Some((loaded.reranker, args.rerank_pool)),
                }
            }
            run(&options, embedder, progress)
        },
        render,
        out,
    )
}
