//! `hive-mind-lab bench wiki`: what the wiki costs on a mind of N memories
//! and how much of the mind it covers.
//!
//! The mind is the recall benchmark's corpus (built once per N and reused,
//! copied first so it is never changed). Pages are compiled by the engine
//! when read, so "from nothing" is every page read once (the listing, then
//! each page), and "after one write" is one memory saved that names an
//! entity, then that entity's page read again: the only page the write
//! touched. Coverage: the share of the graph's entities that have a page
//! (a current memory names them), and the share of current statements
//! (every memory but the raw conversation turns, which are read through
//! their conversations) that some page cites — 1 less the health report's
//! orphans.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use hive_mind_models::embedder::Embedder;
use hive_mind_models::reranker::Unconfigured;
use hive_mind_runtime::engine::wit_memory::MemoryInput;
use hive_mind_runtime::engine::wit_types::{Mind, Source};
use hive_mind_runtime::engine::wit_wiki::PageKind;
use hive_mind_terminal::Progress;

use super::corpus::{CorpusKind, generate_frames};
use super::governance::copied_corpus;
use super::recall::{BenchError, CorpusArgs};
use crate::mind::open_engine;

/// The most pages the listing reads (the engine's bound).
const MAX_PAGES: u32 = 1000;

/// `hive-mind-lab bench wiki`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchWikiArgs {
    /// The mind (the recall corpus), and how the report is printed.
    #[command(flatten)]
    pub corpus: CorpusArgs,
}

/// What the benchmark measured.
#[derive(Debug, Clone, Serialize)]
pub struct WikiReport {
    /// Memories in the mind.
    pub frames: usize,
    /// The active embedder.
    pub embedder: String,
    /// Pages listed (`you` and the entities), at most 1000.
    pub pages: usize,
    /// The listing's time, ms.
    pub list_ms: f64,
    /// Every listed page read once, ms in all.
    pub all_pages_ms: f64,
    /// The median page's time, ms.
    pub page_median_ms: f64,
    /// The slowest page's time, ms.
    pub page_max_ms: f64,
    /// The Markdown of all pages, bytes.
    pub markdown_bytes: usize,
    /// The largest page's Markdown, bytes.
    pub largest_page_bytes: usize,
    /// The health report's time, ms.
    pub health_ms: f64,
    /// After one write naming an entity: the save's time, ms.
    pub write_ms: f64,
    /// Then the touched page read again, ms.
    pub page_after_write_ms: f64,
    /// Active entities in the graph (at most 1000 counted).
    pub entities: usize,
    /// Of those, how many have a page.
    pub entities_with_page: usize,
    /// Topic pages listed.
    pub topics: usize,
    /// Current statements (memories other than raw turns).
    pub statements: usize,
    /// Of those, how many no page cites.
    pub orphans: u32,
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

/// Run the benchmark with `embedder`.
pub fn run(
    args: &BenchWikiArgs,
    corpus_dir: &Path,
    embedder: Arc<dyn Embedder>,
    progress: &Progress,
) -> Result<WikiReport, BenchError> {
    if args.corpus.frames == 0 {
        return Err(BenchError::Option("--frames must be at least 1".into()));
    }
    let (work, _) = copied_corpus(
        args.corpus.frames,
        args.corpus.seed,
        corpus_dir,
        "wiki-",
        Arc::clone(&embedder),
        progress,
    )?;
    let mind_dir = work.path().join("mind");
    let mut engine = open_engine(&mind_dir, Arc::clone(&embedder), Arc::new(Unconfigured))?;
    let mind = Mind::Personal;

    let started = Instant::now();
    let listed = engine.wiki().list_pages(&mind, MAX_PAGES)?;
    let list_ms = ms(started);
    progress.note(&format!("{} pages listed in {list_ms:.0} ms", listed.len()));
    let mut times = Vec::with_capacity(listed.len());
    let mut markdown_bytes = 0;
    let mut largest_page_bytes = 0;
    let all = Instant::now();
    for summary in &listed {
        let started = Instant::now();
        let page = engine.wiki().get_page(&mind, &summary.slug)?;
        times.push(ms(started));
        markdown_bytes += page.markdown.len();
        largest_page_bytes = largest_page_bytes.max(page.markdown.len());
    }
    let all_pages_ms = ms(all);
    let page_max_ms = times.iter().copied().fold(0.0, f64::max);
    let page_median_ms = median(&mut times);

    let started = Instant::now();
    let health = engine.wiki().health(&mind, 1)?;
    let health_ms = ms(started);

    // One write that names the most cited entity, then its page again.
    let touched = listed.iter().find(|page| page.kind == PageKind::Entity);
    let (write_ms, page_after_write_ms) = match touched {
        Some(page) => {
            let started = Instant::now();
            engine.save_memory(&MemoryInput {
                content: format!("{} was reviewed again this week.", page.title),
                importance: None,
                source: Some(Source::UserStated),
                mind: mind.clone(),
                created_at: None,
                kind: None,
            })?;
            let write_ms = ms(started);
            let started = Instant::now();
            engine.wiki().get_page(&mind, &page.slug)?;
            (write_ms, ms(started))
        }
        None => (0.0, 0.0),
    };

    let entities = engine.review().list_entities(&mind, "", None, MAX_PAGES)?;
    let entities_with_page = listed
        .iter()
        .filter(|page| page.kind == PageKind::Entity)
        .count();
    let topics = listed
        .iter()
        .filter(|page| page.kind == PageKind::Topic)
        .count();
    let statements = generate_frames(args.corpus.frames, args.corpus.seed)
        .iter()
        .filter(|frame| !matches!(frame.kind, CorpusKind::RawTurn { .. }))
        .count();
    Ok(WikiReport {
        frames: args.corpus.frames,
        embedder: embedder.info().to_string(),
        pages: listed.len(),
        list_ms,
        all_pages_ms,
        page_median_ms,
        page_max_ms,
        markdown_bytes,
        largest_page_bytes,
        health_ms,
        write_ms,
        page_after_write_ms,
        entities: entities.len(),
        entities_with_page,
        topics,
        statements,
        orphans: health.counts.get(2).copied().unwrap_or(0),
    })
}

/// The report for a person.
pub fn render(report: &WikiReport) -> String {
    let share = |part: f64, whole: f64| 100.0 * part / whole.max(1.0);
    let mut text = String::new();
    let _ = writeln!(
        text,
        "mind: {} memories ({})",
        report.frames, report.embedder
    );
    let _ = writeln!(
        text,
        "from nothing: {} pages listed in {:.0} ms, every page read in {:.0} ms (median {:.1} ms, slowest {:.1} ms); {:.1} KiB of Markdown, the largest page {:.1} KiB",
        report.pages,
        report.list_ms,
        report.all_pages_ms,
        report.page_median_ms,
        report.page_max_ms,
        report.markdown_bytes as f64 / 1024.0,
        report.largest_page_bytes as f64 / 1024.0
    );
    let _ = writeln!(
        text,
        "after one write: the save {:.0} ms, its page read again in {:.1} ms",
        report.write_ms, report.page_after_write_ms
    );
    let _ = writeln!(text, "health report: {:.0} ms", report.health_ms);
    let _ = writeln!(
        text,
        "coverage: {}/{} entities have a page ({:.1} %), and {} topics; {}/{} statements on some page ({:.1} %)",
        report.entities_with_page,
        report.entities,
        share(report.entities_with_page as f64, report.entities as f64),
        report.topics,
        report.statements.saturating_sub(report.orphans as usize),
        report.statements,
        share(
            report.statements.saturating_sub(report.orphans as usize) as f64,
            report.statements as f64
        )
    );
    text
}

/// Run `hive-mind-lab bench wiki` with the embedder `data_dir` configures.
pub fn command(
    args: &BenchWikiArgs,
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
