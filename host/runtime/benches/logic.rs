//! # Benchmark: the logic functions, native vs. through the component
//!
//! What it measures: each `hive:mind/logic` function on a representative
//! input, called (a) natively from `hive-mind-core` and (b) through the
//! logic component with typed `bindgen!` bindings, as a host calls it — so
//! (b) includes lifting and lowering the arguments across the boundary.
//! After criterion's report it prints a table of medians and the wasm/native
//! ratio per function.
//!
//! Run: `just bench` or `cargo bench -p hive-mind-host --bench logic`.
//! Quick run: `cargo bench -p hive-mind-host --bench logic -- --quick`.

#![allow(clippy::expect_used)] // A benchmark has no caller to return errors to.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::Criterion;
use hive_mind_core as core;
use hive_mind_runtime::runtime::{self, HostState};
use wasmtime::Store;

mod bindings {
    wasmtime::component::bindgen!({ world: "pure-logic", path: "../../wit" });
}

use bindings::PureLogic;
use bindings::exports::hive::mind::logic as wit;
use bindings::hive::mind::types::Importance as WitImportance;

struct Inputs {
    short: String,
    long_text: String,
    lists: Vec<Vec<u64>>,
    query: String,
    sentence_a: String,
    sentence_b: String,
    existing: Vec<String>,
    scan_text: String,
    user: String,
    assistant: String,
}

fn inputs() -> Inputs {
    let paragraph = "The ledger service writes every transfer twice, once to the journal and once \
                     to the balance table, and a nightly job reconciles the two. ";
    Inputs {
        short: "[hm session:42 src:chat] The deploy key lives in the vault.".into(),
        long_text: (0..40)
            .map(|i| format!("{}{}\n\n", paragraph.repeat(2), i))
            .collect(),
        lists: vec![(0..40).collect(), (20..60).rev().collect()],
        query: "what did we ship in the first week of May 2026?".into(),
        sentence_a: "We chose Postgres for the ledger because of strict transactions.".into(),
        sentence_b: "We picked PostgreSQL for the ledger since it has strict transactions.".into(),
        existing: (0..50)
            .map(|i| format!("Memory number {i}: {paragraph}"))
            .collect(),
        scan_text: format!(
            "{} Please summarise the attached report for the board.",
            paragraph.repeat(6)
        ),
        user:
            "From now on, call me Sam. Actually no, the deadline is Friday. Let's go with Postgres."
                .into(),
        assistant:
            "Noted. I've implemented the migration script and it turns out the index was missing."
                .into(),
    }
}

fn benches(c: &mut Criterion) {
    let input = inputs();
    let engine = runtime::engine().expect("engine");
    let component = hive_mind_runtime::cache::load_component(
        &engine,
        "logic",
        hive_mind_runtime::artifacts::LOGIC_COMPONENT,
        hive_mind_runtime::cache::cache_dir().as_deref(),
    )
    .expect("logic component");
    let linker = runtime::linker(&engine).expect("linker");
    let mut store = Store::new(&engine, HostState::sandboxed());
    let logic = PureLogic::instantiate(&mut store, &component, &linker).expect("instantiate");
    let guest = logic.hive_mind_logic();
    let store = &mut store;

    macro_rules! pair {
        ($name:literal, native: $native:expr, wasm: |$s:ident| $wasm:expr) => {{
            let mut group = c.benchmark_group($name);
            group.bench_function("native", |b| b.iter(|| black_box($native)));
            group.bench_function("wasm", |b| {
                b.iter(|| {
                    let $s = &mut *store;
                    black_box($wasm.expect("call"))
                })
            });
            group.finish();
        }};
    }

    let relevance = core::RelevanceInput {
        created_at: Some("2026-04-01".into()),
        last_accessed: None,
        now: "2026-05-13T09:00:00Z".into(),
        access_count: 9,
        graph_distance: Some(1),
        importance: core::Importance::Important,
    };
    let wit_relevance = wit::RelevanceInput {
        created_at: Some("2026-04-01".into()),
        last_accessed: None,
        now: "2026-05-13T09:00:00Z".into(),
        access_count: 9,
        graph_distance: Some(1),
        importance: WitImportance::Important,
    };

    pair!("content-hash", native: core::content_hash(&input.short), wasm: |s| guest.call_content_hash(s, &input.short));
    pair!("strip-hm-prefix", native: core::strip_hm_prefix(&input.short), wasm: |s| guest.call_strip_hm_prefix(s, &input.short));
    pair!("chunk-text", native: core::chunk_text(&input.long_text, &core::ChunkOptions::default()), wasm: |s| guest.call_chunk_text(s, &input.long_text, None));
    pair!("rrf-fuse", native: core::rrf_fuse(&input.lists, core::RRF_K), wasm: |s| guest.call_rrf_fuse(s, &input.lists, None));
    pair!("compute-relevance", native: core::compute_relevance(&relevance, core::ScoringProfile::Balanced), wasm: |s| guest.call_compute_relevance(s, &wit_relevance, wit::ScoringProfile::Balanced));
    pair!("parse-date-window", native: core::parse_date_window(&input.query), wasm: |s| guest.call_parse_date_window(s, &input.query));
    pair!("resolve-relative-date", native: core::resolve_relative_date("We migrated it last Friday.", "2026-05-13"), wasm: |s| guest.call_resolve_relative_date(s, "We migrated it last Friday.", "2026-05-13"));
    pair!("detect-catch-up", native: core::detect_catch_up(&input.query), wasm: |s| guest.call_detect_catch_up(s, &input.query));
    pair!("trigram-similarity", native: core::trigram_similarity(&input.sentence_a, &input.sentence_b), wasm: |s| guest.call_trigram_similarity(s, &input.sentence_a, &input.sentence_b));
    pair!("dedup-check", native: core::dedup_check(&input.sentence_a, core::Importance::Important, &input.existing), wasm: |s| guest.call_dedup_check(s, &input.sentence_a, WitImportance::Important, &input.existing));
    pair!("scan-for-injection", native: core::detect(&input.scan_text, core::ScanContext::ToolOutput), wasm: |s| guest.call_scan_for_injection(s, &input.scan_text, wit::ScanContext::ToolOutput));
    pair!("pattern-write-back", native: core::pattern_write_back(&input.user, &input.assistant), wasm: |s| guest.call_pattern_write_back(s, &input.user, &input.assistant));
    pair!("normalize-entity-name", native: core::normalize_entity_name("  Node.JS "), wasm: |s| guest.call_normalize_entity_name(s, "  Node.JS "));
    pair!("is-noise-name", native: core::is_noise_name("However"), wasm: |s| guest.call_is_noise_name(s, "However"));
}

const FUNCTIONS: [&str; 14] = [
    "content-hash",
    "strip-hm-prefix",
    "chunk-text",
    "rrf-fuse",
    "compute-relevance",
    "parse-date-window",
    "resolve-relative-date",
    "detect-catch-up",
    "trigram-similarity",
    "dedup-check",
    "scan-for-injection",
    "pattern-write-back",
    "normalize-entity-name",
    "is-noise-name",
];

fn output_directory() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("criterion")
}

/// The median estimate (ns) criterion recorded for `group/id`.
fn median_ns(dir: &std::path::Path, group: &str, id: &str) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join(group).join(id).join("new/estimates.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["median"]["point_estimate"].as_f64()
}

fn human(ns: f64) -> String {
    match ns {
        ns if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        ns if ns >= 1e3 => format!("{:.2} µs", ns / 1e3),
        ns => format!("{ns:.0} ns"),
    }
}

fn main() {
    let dir = output_directory();
    let mut criterion = Criterion::default()
        .output_directory(&dir)
        .configure_from_args();
    benches(&mut criterion);
    criterion.final_summary();

    println!(
        "\n{:<24} {:>12} {:>12} {:>10}",
        "function", "native", "wasm", "wasm/native"
    );
    for function in FUNCTIONS {
        if let (Some(native), Some(wasm)) = (
            median_ns(&dir, function, "native"),
            median_ns(&dir, function, "wasm"),
        ) {
            println!(
                "{function:<24} {:>12} {:>12} {:>9.2}×",
                human(native),
                human(wasm),
                wasm / native
            );
        }
    }
}
