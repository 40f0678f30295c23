//! `hive-mind-lab eval locomo` and `hive-mind-lab bench recall` end to end, on tiny
//! inputs built here (never the real data set) with the mock embedder: the
//! evaluation scores a hand-made LoCoMo-shaped sample, and the recall
//! benchmark builds a corpus once and reuses it.

use std::process::Command;
use std::sync::Arc;

use hive_mind_lab::bench::corpus::{self, CorpusFrame, CorpusKind};
use hive_mind_lab::bench::recall::{self, BenchError, RecallBenchOptions};
use hive_mind_lab::eval::locomo::Dataset;
use hive_mind_lab::eval::run::{EvalOptions, Reranking, evaluate};
use hive_mind_lab::timing::StageShare;
use hive_mind_models::embedder::{Embedder, MockEmbedder};
use hive_mind_terminal::Progress;
use serde_json::json;

fn mock() -> Arc<dyn Embedder> {
    Arc::new(MockEmbedder::new(384))
}

fn frame_count(dir: &std::path::Path) -> (i64, i64) {
    let conn = rusqlite::Connection::open(dir.join("personal.sqlite")).unwrap();
    conn.query_row(
        "SELECT count(*), coalesce(max(id), 0) FROM memory_frames",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
    .unwrap()
}

/// Every frame's stored content, in the order written.
fn stored_contents(dir: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(dir.join("personal.sqlite")).unwrap();
    let mut statement = conn
        .prepare("SELECT content FROM memory_frames ORDER BY id")
        .unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A corpus memory as the lanes find it: the marking of its kind (written
/// by the engine) before its text.
fn marked(frame: &CorpusFrame) -> String {
    let text = &frame.content;
    match &frame.kind {
        CorpusKind::Plain => text.clone(),
        CorpusKind::Fact => format!("[mind-fact] {text}"),
        CorpusKind::Event => format!("[mind-event] [{}] {text}", frame.day.format("%Y-%m-%d")),
        CorpusKind::Profile(name) => format!("[mind-profile {name}] {text}"),
        CorpusKind::RawTurn {
            conversation,
            turn,
            speaker,
        } => format!("[mind-rawturn conv:{conversation} turn:{turn} speaker:{speaker}] {text}"),
    }
}

#[test]
fn the_recall_benchmark_builds_its_corpus_once_and_reuses_it() {
    let root = tempfile::tempdir().unwrap();
    let options = RecallBenchOptions {
        frames: 200,
        queries: 5,
        corpus_dir: root.path().join("corpus"),
        seed: 3,
        rerank: None,
    };
    let progress = Progress::recording();
    let first = recall::run(&options, mock(), &progress).unwrap();
    let lines = progress.notes();
    assert!(!first.reused);
    assert_eq!(first.frames, 200);
    assert_eq!(first.build.written, 200, "every generated memory is new");
    assert_eq!(first.build.duplicates, 0);
    assert!(first.build.ingest_seconds > 0.0);
    assert_eq!(first.queries, 5);
    assert_eq!(first.recall.n, 5);
    assert!(first.recall.p50_ms > 0.0 && first.recall.p95_ms >= first.recall.p50_ms);
    assert!(first.recall.mean_ms > 0.0);
    assert_eq!(first.bare_knn.n, 5);
    assert!(first.bare_knn.p50_ms > 0.0);
    assert!(
        first.overhead_ratio > 1.0,
        "the pipeline does more than one KNN: {}",
        first.overhead_ratio
    );
    // The semantic lane's fetch, limit × the engine's fetch multiplier, which
    // the bench asks of the engine (`admin.get-plan-constants`) instead of
    // keeping a copy: it follows the engine's own constant.
    let semantic_fetch = recall::RECALL_LIMIT * hive_mind_core::recall::SEARCH_FETCH_MULTIPLIER;
    assert_eq!(first.knn_k, semantic_fetch);
    let stages: Vec<&str> = first.stages.iter().map(|s| s.stage.as_str()).collect();
    for stage in ["embed-query", "search", "rank"] {
        assert!(stages.contains(&stage), "{stage} in {stages:?}");
    }
    let guest_share: f64 = first.stages.iter().map(|s| s.share).sum();
    assert!((guest_share - 1.0).abs() < 1e-6, "{guest_share}");
    assert_split(&first.split);
    assert!(first.corpus_bytes > 0);
    assert!(first.peak_rss_kib.is_some_and(|kib| kib > 0));
    assert!(
        lines.iter().any(|l| l.contains("building a corpus")),
        "{lines:?}"
    );
    assert_eq!(frame_count(&options.corpus_dir), (200, 200));
    assert_eq!(
        stored_contents(&options.corpus_dir),
        corpus::generate_frames(200, 3)
            .iter()
            .map(marked)
            .collect::<Vec<_>>(),
        "the engine marks each kind as the corpus once spelled it itself"
    );
    let text = recall::render(&first);
    let knn_line = format!("bare KNN (k={semantic_fetch})");
    for expected in [
        "recall (pipeline)",
        knn_line.as_str(),
        "guest/store",
        "pipeline overhead",
        "engine (in the component)",
        "sqlite (host)",
        "peak RSS",
    ] {
        assert!(text.contains(expected), "{expected} in\n{text}");
    }

    // Second run: the same corpus, nothing ingested.
    let progress = Progress::recording();
    let second = recall::run(&options, mock(), &progress).unwrap();
    let lines = progress.notes();
    assert!(second.reused);
    // The build figures come from the manifest.
    assert_eq!(
        (second.build.frames, second.build.written, second.build.seed),
        (first.build.frames, first.build.written, first.build.seed)
    );
    assert!((second.build.ingest_seconds - first.build.ingest_seconds).abs() < 1e-6);
    assert!(
        lines.iter().any(|l| l.contains("reusing the corpus")),
        "{lines:?}"
    );
    assert_eq!(
        frame_count(&options.corpus_dir),
        (200, 200),
        "no frame was written (ids are never reused, so a re-ingest would show)"
    );
    assert_eq!(second.recall.n, 5);

    // Another size in the same directory: rebuilt from scratch.
    let smaller = RecallBenchOptions {
        frames: 120,
        ..options.clone()
    };
    let third = recall::run(&smaller, mock(), &Progress::hidden()).unwrap();
    assert!(!third.reused);
    assert_eq!(frame_count(&options.corpus_dir), (120, 120));
}

/// The recall time's split between the engine and the host's imports: every
/// part, shares of the whole latency, and some time in the component and in
/// SQLite (every recall runs statements).
fn assert_split(split: &[StageShare]) {
    let parts: Vec<&str> = split.iter().map(|row| row.stage.as_str()).collect();
    assert_eq!(parts, ["engine", "sqlite", "embed", "rerank"], "{split:?}");
    let total: f64 = split.iter().map(|row| row.share).sum();
    assert!((total - 1.0).abs() < 1e-6, "{split:?}");
    assert!(
        split[0].mean_ms > 0.0 && split[1].mean_ms > 0.0,
        "{split:?}"
    );
    assert!(split.iter().all(|row| row.mean_ms >= 0.0), "{split:?}");
}

#[test]
fn the_recall_benchmark_never_deletes_a_foreign_directory() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("notes.txt"), "mine").unwrap();
    let options = RecallBenchOptions {
        frames: 10,
        queries: 1,
        corpus_dir: root.path().to_path_buf(),
        seed: 1,
        rerank: None,
    };
    let error = recall::run(&options, mock(), &Progress::hidden()).unwrap_err();
    assert!(matches!(error, BenchError::Corpus { .. }), "{error}");
    assert!(error.to_string().contains("notes.txt"), "{error}");
    assert!(root.path().join("notes.txt").exists());
}

/// Two sessions between Ann and Bo; the questions use the evidence turns'
/// own words and no others' (the mock embedder has no semantics, so only
/// keyword matches count).
fn tiny_locomo() -> serde_json::Value {
    json!([{
        "sample_id": "tiny",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Good afternoon Bo, how are things?"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "I finally bought a kayak for the lake."},
                {"speaker": "Ann", "dia_id": "D1:3", "text": "Lovely. Send me a picture.",
                 "blip_caption": "a photo of a red kayak"}
            ],
            "session_2_date_time": "9:15 am on 2 June, 2023",
            "session_2": [
                {"speaker": "Ann", "dia_id": "D2:1", "text": "My sourdough starter died again."},
                {"speaker": "Bo", "dia_id": "D2:2", "text": "Try feeding the sourdough starter twice a day."}
            ]
        },
        "qa": [
            {"question": "Who bought a kayak for the lake?", "answer": "a kayak",
             "evidence": ["D1:2"], "category": 4},
            {"question": "Which sourdough starter advice was given?", "answer": "feed it twice a day",
             "evidence": ["D2:1", "D2:2"], "category": 1},
            {"question": "An unanswerable question with broken evidence?", "answer": "x",
             "evidence": ["D9:9", "D"], "category": 2},
            {"question": "Adversarial, not asked by default", "adversarial_answer": "x",
             "evidence": ["D1:1"], "category": 5}
        ]
    }])
}

#[test]
fn the_evaluation_scores_a_tiny_sample_end_to_end() {
    let dataset = Dataset::from_json(&tiny_locomo()).unwrap();
    assert!(dataset.problems.is_empty(), "{:?}", dataset.problems);
    let progress = Progress::recording();
    let reports = evaluate(
        &dataset,
        mock(),
        Reranking::none(),
        &EvalOptions::default(),
        &progress,
    )
    .unwrap();
    assert_eq!(reports.len(), 1);
    let report = &reports[0];
    assert_eq!(report.reranker, "off");
    let lines = progress.notes();
    assert_eq!(report.samples, 1);
    assert_eq!(report.ingest.turns, 5);
    assert_eq!(report.ingest.sessions, 2);
    assert_eq!(report.ingest.written, 5);
    assert!(report.ingest.turns_per_second > 0.0);
    assert_eq!(
        report.questions.asked, 3,
        "category 5 is not asked by default"
    );
    assert_eq!(report.questions.scored, 2);
    assert_eq!(report.questions.no_valid_evidence, 1);
    assert_eq!(report.questions.malformed_evidence, 1);
    assert_eq!(report.questions.missing_evidence, 1);
    assert_eq!(report.overall.n, 2);
    assert_eq!(report.ks, [1, 5, 10]);
    // Both questions share their words with their evidence only.
    let at10 = report.overall.at.iter().find(|a| a.k == 10).unwrap();
    assert_eq!(at10.session, 1.0, "{report:#?}");
    assert_eq!(at10.turn, 1.0, "{report:#?}");
    let single_hop = report
        .per_category
        .iter()
        .find(|s| s.category == Some(4))
        .unwrap();
    assert_eq!(single_hop.n, 1);
    assert_eq!(single_hop.at[0].session, 1.0, "the kayak turn ranks first");
    let temporal = report
        .per_category
        .iter()
        .find(|s| s.category == Some(2))
        .unwrap();
    assert_eq!((temporal.n, temporal.no_evidence), (0, 1));
    assert_eq!(report.latency.recalls, 2);
    assert!(report.latency.p50_ms > 0.0);
    assert!(report.stages.iter().any(|s| s.stage == "search"));
    assert_split(&report.split);
    assert!(report.evidence_lanes.values().sum::<u64>() >= 3);
    assert!(
        report.problems.iter().any(|p| p.contains("question #3")),
        "{:?}",
        report.problems
    );
    assert!(
        lines.iter().any(|l| l.starts_with("sample tiny:")),
        "{lines:?}"
    );

    let text = hive_mind_lab::eval::cli::render(report, "tiny.json");
    for expected in [
        "S@10",
        "T@10",
        "4 single-hop",
        "all",
        "recall latency",
        "engine (in the component)",
        "sqlite (host)",
    ] {
        assert!(text.contains(expected), "{expected} in\n{text}");
    }
    let json = serde_json::to_value(report).unwrap();
    assert_eq!(json["overall"]["n"], 2);
    assert_eq!(json["questions"]["no_valid_evidence"], 1);
}

#[test]
fn the_evaluation_asks_only_the_chosen_categories_and_samples() {
    let dataset = Dataset::from_json(&tiny_locomo()).unwrap();
    let options = EvalOptions {
        ks: vec![3],
        categories: [5].into(),
        samples: Some(1),
        no_floor: true,
        fetch: None,
        rerank: vec![Some(0)],
    };
    let report = evaluate(
        &dataset,
        mock(),
        Reranking::none(),
        &options,
        &Progress::hidden(),
    )
    .unwrap()
    .remove(0);
    assert_eq!(report.questions.asked, 1);
    assert_eq!(report.overall.n, 1);
    assert_eq!(report.floor, "off");
    assert_eq!(report.ks, [3]);
    assert_eq!(report.per_category.len(), 1);

    let bad = EvalOptions {
        ks: vec![0],
        ..EvalOptions::default()
    };
    let error = evaluate(
        &dataset,
        mock(),
        Reranking::none(),
        &bad,
        &Progress::hidden(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("between 1 and 1000"), "{error}");
}

/// A reranker that knows one answer: passages about kayaks score high.
struct KayakReranker;

impl hive_mind_models::reranker::Reranker for KayakReranker {
    fn info(
        &self,
    ) -> Result<hive_mind_models::reranker::RerankerInfo, hive_mind_models::reranker::RerankError>
    {
        Ok(hive_mind_models::reranker::RerankerInfo {
            model: "kayak".into(),
            max_tokens: 128,
        })
    }

    fn score(
        &self,
        _query: &str,
        passages: &[String],
    ) -> Result<Vec<f32>, hive_mind_models::reranker::RerankError> {
        Ok(passages
            .iter()
            .map(|p| if p.contains("kayak") { 6.0 } else { -6.0 })
            .collect())
    }
}

#[test]
fn the_evaluation_reports_each_rerank_run_from_one_import() {
    let dataset = Dataset::from_json(&tiny_locomo()).unwrap();
    let options = EvalOptions {
        rerank: vec![Some(0), None, Some(2)],
        ..EvalOptions::default()
    };
    let reranking = Reranking {
        reranker: std::sync::Arc::new(KayakReranker),
        name: Some("kayak".into()),
    };
    let reports = evaluate(&dataset, mock(), reranking, &options, &Progress::hidden()).unwrap();
    let names: Vec<&str> = reports.iter().map(|r| r.reranker.as_str()).collect();
    assert_eq!(
        names,
        ["off", "kayak, the engine's default pool", "kayak, pool 2"]
    );
    // One import for all three runs; each run asks every question.
    for report in &reports {
        assert_eq!(report.ingest.written, 5);
        assert_eq!(report.latency.recalls, 2);
    }
    let rerank_ms = |report: &hive_mind_lab::eval::run::EvalReport| {
        report
            .split
            .iter()
            .find(|part| part.stage == "rerank")
            .unwrap()
            .mean_ms
    };
    assert_eq!(rerank_ms(&reports[0]), 0.0, "the off run never reranks");
    assert!(rerank_ms(&reports[1]) > 0.0);
    let table = hive_mind_lab::eval::cli::compare(&reports);
    assert!(
        table.contains("kayak, pool 2") && table.contains("rerank ms"),
        "{table}"
    );
}

fn hive_mind_lab(args: &[&str]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_hive-mind-lab"))
        .args(args)
        .env("HIVE_MIND_HOME", home.path())
        .env("HIVE_MIND_EMBEDDER", "mock")
        .env("HIVE_MIND_RERANKER", "off")
        .output()
        .unwrap()
}

#[test]
fn bad_data_sets_fail_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let output = hive_mind_lab(&["eval", "locomo", missing.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("could not read the data set") && stderr.contains("missing.json"),
        "{stderr}"
    );

    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "[{\"sample_id\": ").unwrap();
    let output = hive_mind_lab(&["eval", "locomo", broken.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("is not valid JSON") && stderr.contains("line 1"),
        "{stderr}"
    );

    let object = dir.path().join("object.json");
    std::fs::write(&object, "{\"samples\": []}").unwrap();
    let output = hive_mind_lab(&["eval", "locomo", object.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("expected a list of samples"), "{stderr}");

    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "[{\"sample_id\": \"x\"}]").unwrap();
    let output = hive_mind_lab(&["eval", "locomo", empty.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("no usable sample"), "{stderr}");
}

#[test]
fn the_commands_run_from_the_cli_with_json_output() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("tiny.json");
    std::fs::write(&data, tiny_locomo().to_string()).unwrap();
    let output = hive_mind_lab(&[
        "eval",
        "locomo",
        data.to_str().unwrap(),
        "--json",
        "--k",
        "1,2",
        // One run, one report (several runs print `{"runs": [...]}`, see
        // the_evaluation_reports_each_rerank_run_from_one_import).
        "--rerank",
        "off",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["overall"]["n"], 2);
    assert_eq!(report["ks"], json!([1, 2]));
    assert!(report["dataset"].as_str().unwrap().ends_with("tiny.json"));

    let corpus = dir.path().join("corpus");
    let output = hive_mind_lab(&[
        "bench",
        "recall",
        "--frames",
        "60",
        "--queries",
        "3",
        "--keep-corpus",
        corpus.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["frames"], 60);
    assert_eq!(report["reused"], false);
    assert!(report["overhead_ratio"].as_f64().unwrap() > 0.0);
    assert!(corpus.join("bench-corpus.json").is_file());
}

#[test]
fn the_wiki_benchmark_reads_every_page_and_reports_its_coverage() {
    let root = tempfile::tempdir().unwrap();
    let args = hive_mind_lab::bench::wiki::BenchWikiArgs {
        corpus: hive_mind_lab::bench::recall::CorpusArgs {
            frames: 40,
            keep_corpus: None,
            seed: 3,
            json: false,
            quiet: true,
        },
    };
    let report = hive_mind_lab::bench::wiki::run(
        &args,
        &root.path().join("corpus"),
        mock(),
        &Progress::recording(),
    )
    .unwrap();
    assert_eq!(report.frames, 40);
    assert!(report.pages > 1, "you and the entities: {report:?}");
    assert!(report.markdown_bytes > 0 && report.largest_page_bytes <= report.markdown_bytes);
    assert!(report.entities_with_page <= report.entities);
    assert!((report.orphans as usize) <= report.statements);
    assert!(report.page_after_write_ms > 0.0);
    let text = hive_mind_lab::bench::wiki::render(&report);
    assert!(text.contains("coverage: "), "{text}");
}
