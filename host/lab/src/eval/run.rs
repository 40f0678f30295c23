//! # Running an evaluation: one fresh mind per sample, every question asked
//!
//! [`evaluate`] is the whole loop (see the [module overview](super)); the
//! result is an [`EvalReport`], plain data that [`super::cli`] prints as a
//! table or as JSON.
//!
//! What is timed:
//!
//! - **ingest**: the `memory.import-conversations` call of each sample
//!   (embedding every turn and writing the frames), summed over samples;
//! - **recall latency**: the wall time of each `memory.recall-memory` call,
//!   as a caller sees it;
//! - **stages**: the guest's own per-stage times (`recall.stages`), summed;
//! - **the split** ([`crate::timing::split_parts`]): the recall latency divided between the
//!   engine's own work inside the component and the host's imports — SQLite
//!   statements, the embedder, the reranker — from the host's import timings
//!   (`EngineRuntime::take_timings`). The host only sees its imports, so the
//!   split does not follow the stages: the guest's `search` stage holds both
//!   the KNN scan over the in-memory vector index (engine time) and the SQL
//!   of the full-text search and listings (sqlite time), and SQL also runs
//!   in `graph`, `touch` and `context`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::EvalError;
use super::locomo::{Dataset, Sample, TurnId};
use super::metrics::{
    RetrievedTurn, gold_sessions, session_hit_at_k, session_ranking, turn_recall_at_k,
};
use crate::mind::open_engine;
use crate::timing::{StageShare, add_timings, mean, percentile, split_rows};
use hive_mind_models::embedder::Embedder;
use hive_mind_models::reranker::Reranker;
use hive_mind_runtime::engine::wit_memory::{
    ImportedConversation, ImportedTurn, Recall, RecallOptions, RecallScope, Recalled,
    RelevanceFloor,
};
use hive_mind_runtime::engine::wit_names::WitEnum;
use hive_mind_runtime::engine::wit_types::MemoryKind;
use hive_mind_runtime::engine::{EngineRuntime, ImportTimings, wit_types};
use hive_mind_terminal::Progress;

/// The categories LoCoMo defines, by number.
pub fn category_name(category: u32) -> &'static str {
    match category {
        1 => "multi-hop",
        2 => "temporal",
        3 => "open-domain",
        4 => "single-hop",
        5 => "adversarial",
        _ => "other",
    }
}

/// What to evaluate, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalOptions {
    /// The cut-offs to report recall at (each ≥ 1); recall asks for the
    /// largest.
    pub ks: Vec<usize>,
    /// The question categories to ask.
    pub categories: BTreeSet<u32>,
    /// Only the first this many samples.
    pub samples: Option<usize>,
    /// Turn the relevance floor off (always return the top memories), as
    /// `hive-mind recall --no-floor` does.
    pub no_floor: bool,
    /// The recall limit per question; `None`: the largest k. Session-level
    /// recall@k ranks the distinct sessions of everything recalled, so a
    /// larger limit lets it see k distinct sessions even when the best
    /// frames cluster in a few; turn-level recall@k always reads the top k
    /// frames.
    pub fetch: Option<u32>,
    /// The runs: each question is asked once per entry, with that rerank
    /// pool (`None`: the engine's default; `Some(0)`: the reranker off), and
    /// each run gets its own report. The mind is imported once for all.
    pub rerank: Vec<Option<u32>>,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            ks: vec![1, 5, 10],
            categories: BTreeSet::from([1, 2, 3, 4]),
            samples: None,
            no_floor: false,
            fetch: None,
            rerank: vec![None],
        }
    }
}

/// Recall at each cut-off.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtK {
    /// The cut-off.
    pub k: usize,
    /// Session-level recall@k: the share of questions with a gold session
    /// among the top k distinct sessions.
    pub session: f64,
    /// Turn-level evidence recall@k: the mean fraction of evidence turns in
    /// the top k frames.
    pub turn: f64,
}

/// The scores of a group of questions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scores {
    /// Category number, or `None` for all questions together.
    pub category: Option<u32>,
    /// The category's name (`all` for the total).
    pub name: String,
    /// Questions scored (with valid evidence).
    pub n: usize,
    /// Questions of this group left out for having no valid evidence.
    pub no_evidence: usize,
    /// Recall at each cut-off.
    pub at: Vec<AtK>,
}

/// Time spent importing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ingest {
    /// Turns handed to the engine.
    pub turns: usize,
    /// Sessions (imported conversations).
    pub sessions: usize,
    /// Frames written.
    pub written: u64,
    /// Turns the store found already present.
    pub duplicates: u64,
    /// Turns the injection scan refused (absent from the mind).
    pub rejected: u64,
    /// Empty or `system` turns left out.
    pub skipped: u64,
    /// Seconds in `import-conversations`, all samples together.
    pub seconds: f64,
    /// Turns per second.
    pub turns_per_second: f64,
    /// Imported turns no longer current once every sample is imported: a
    /// later turn replaced them (the engine judges each written frame
    /// against its neighbours) or the mind lists fewer frames than it holds.
    pub closed: u64,
}

/// Recall latency as a caller sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latency {
    /// Recalls measured.
    pub recalls: usize,
    /// Median, milliseconds.
    pub p50_ms: f64,
    /// 95th percentile, milliseconds.
    pub p95_ms: f64,
    /// Mean, milliseconds.
    pub mean_ms: f64,
}

/// Counts that say how the questions went, beyond the scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionCounts {
    /// Questions of the chosen categories asked.
    pub asked: usize,
    /// Of those, scored.
    pub scored: usize,
    /// Left out: no evidence id names an existing turn.
    pub no_valid_evidence: usize,
    /// Recalls that failed (reported in the problems).
    pub failed: usize,
    /// Recalls that returned no memory at all (the relevance floor dropped
    /// everything).
    pub empty: usize,
    /// Recalls the injection scan withheld.
    pub withheld: usize,
    /// Evidence pieces that are not `D<session>:<turn>`.
    pub malformed_evidence: usize,
    /// Well-formed evidence ids of turns that do not exist.
    pub missing_evidence: usize,
}

/// The outcome of an evaluation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalReport {
    /// The embedder, as `provider/model (dim-d)`.
    pub embedder: String,
    /// The reranker of this run: `off`, or its model and pool.
    pub reranker: String,
    /// `default` or `off`.
    pub floor: String,
    /// The cut-offs.
    pub ks: Vec<usize>,
    /// The categories asked.
    pub categories: Vec<u32>,
    /// Samples evaluated.
    pub samples: usize,
    /// Importing.
    pub ingest: Ingest,
    /// How the questions went.
    pub questions: QuestionCounts,
    /// All scored questions.
    pub overall: Scores,
    /// Per category, in number order.
    pub per_category: Vec<Scores>,
    /// Recall latency.
    pub latency: Latency,
    /// Where recall's time goes, by the guest's stages.
    pub stages: Vec<StageShare>,
    /// Where recall's time goes, between the engine in the component and the
    /// host's imports ([`crate::timing::split_parts`]).
    pub split: Vec<StageShare>,
    /// For each lane, how many evidence turns it placed in the top
    /// `max(ks)` (which lane finds what the questions need).
    pub evidence_lanes: BTreeMap<String, u64>,
    /// For each lane, how many raw-turn frames it placed in the top
    /// `max(ks)`, evidence or not.
    pub returned_lanes: BTreeMap<String, u64>,
    /// Everything left out or suspicious, with where and why.
    pub problems: Vec<String>,
    /// Every scored question's recall.
    pub outcomes: Vec<QuestionOutcome>,
    /// Each imported turn a later one closed, with the later one:
    /// `(closed, replacing)`.
    pub closed_pairs: Vec<(String, String)>,
}

/// One question's recall, as the engine returned it: what a reader needs
/// to see why a question was missed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionOutcome {
    /// The sample.
    pub sample: String,
    /// The question's position in its sample, from 1.
    pub number: usize,
    /// Its category.
    pub category: u32,
    /// The question.
    pub question: String,
    /// Its evidence turns (`D<session>:<turn>`).
    pub evidence: Vec<String>,
    /// Each recalled memory, best first.
    pub recalled: Vec<RecalledTurn>,
    /// The recall's notes.
    pub notes: Vec<String>,
}

/// One recalled memory of a [`QuestionOutcome`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecalledTurn {
    /// Its dialogue id when it is an imported turn.
    pub turn: Option<String>,
    /// Whether that turn is evidence.
    pub evidence: bool,
    /// The lane that found it.
    pub lane: String,
    /// Its score.
    pub score: f64,
    /// Why it was chosen, as the engine says.
    pub why: String,
}

/// One scored question.
struct Scored {
    category: u32,
    session_hits: Vec<f64>,
    turn_recalls: Vec<f64>,
}

/// Everything gathered while asking, before summarising.
#[derive(Default)]
struct Tally {
    scored: Vec<Scored>,
    no_evidence: BTreeMap<u32, usize>,
    counts: Counts,
    latencies_ms: Vec<f64>,
    recall_time: Duration,
    stage_micros: Vec<(String, u64)>,
    imports: ImportTimings,
    evidence_lanes: BTreeMap<String, u64>,
    returned_lanes: BTreeMap<String, u64>,
    ingest_seconds: f64,
    turns: usize,
    sessions: usize,
    written: u64,
    duplicates: u64,
    rejected: u64,
    skipped: u64,
    closed: u64,
    closed_pairs: Vec<(String, String)>,
    truncated_texts: u64,
    outcomes: Vec<QuestionOutcome>,
}

#[derive(Default)]
struct Counts {
    asked: usize,
    failed: usize,
    empty: usize,
    withheld: usize,
    malformed: usize,
    missing: usize,
}

/// Per conversation key: the session it holds and, by import position, its
/// turns' dialogue ids.
type TurnMap = HashMap<String, (u32, Vec<Option<TurnId>>)>;

/// Evaluate `dataset` with `embedder` and `reranker` (see the [module
/// overview](super)): one report per run of `options.rerank`, in order.
/// `progress` counts the turns imported and the questions asked, and gets a
/// note per sample (and one for texts longer than the embedder's window).
pub fn evaluate(
    dataset: &Dataset,
    embedder: Arc<dyn Embedder>,
    reranker: Reranking,
    options: &EvalOptions,
    progress: &Progress,
) -> Result<Vec<EvalReport>, EvalError> {
    let runs: Vec<Option<u32>> = if options.rerank.is_empty() {
        vec![None]
    } else {
        options.rerank.clone()
    };
    let mut ks = options.ks.clone();
    ks.sort_unstable();
    ks.dedup();
    let Some(&max_k) = ks.last() else {
        return Err(EvalError::Option("at least one k is needed".into()));
    };
    if ks.first() == Some(&0) || max_k > 1000 {
        return Err(EvalError::Option(format!(
            "each k must be between 1 and 1000 (got {ks:?})"
        )));
    }
    let limit = options
        .fetch
        .unwrap_or_else(|| u32::try_from(max_k).unwrap_or(u32::MAX))
        .max(u32::try_from(max_k).unwrap_or(u32::MAX));
    let samples: Vec<&Sample> = dataset
        .samples
        .iter()
        .take(options.samples.unwrap_or(usize::MAX))
        .collect();
    if samples.is_empty() {
        return Err(EvalError::Empty("the data set has no usable sample".into()));
    }
    let floor = options
        .no_floor
        .then_some(hive_mind_runtime::engine::convert::NO_FLOOR);
    progress.set_total(
        samples
            .iter()
            .map(|sample| {
                (sample.turn_count() + sample.questions_in(&options.categories) * runs.len()) as u64
            })
            .sum(),
    );
    let mut problems = dataset.problems.clone();
    let mut tallies: Vec<Tally> = runs.iter().map(|_| Tally::default()).collect();
    let mut evaluated_samples = 0;
    for sample in samples {
        match evaluate_sample(
            sample,
            Arc::clone(&embedder),
            &reranker,
            options,
            &ks,
            limit,
            floor,
            (&runs, &mut tallies),
            &mut problems,
            progress,
        ) {
            Ok(line) => {
                evaluated_samples += 1;
                progress.note(&line);
            }
            Err(why) => {
                let line = format!("sample {}: {why}; skipped", sample.id);
                progress.note(&line);
                problems.push(line);
            }
        }
    }
    progress.finish();
    let truncated: u64 = tallies.iter().map(|tally| tally.truncated_texts).sum();
    if truncated > 0 {
        problems.push(format!(
            "{truncated} texts were longer than the embedder's window; only their beginning was embedded"
        ));
    }
    if tallies.iter().all(|tally| tally.scored.is_empty()) {
        return Err(EvalError::Empty(match problems.last() {
            Some(last) => format!("no question was scored (last problem: {last})"),
            None => "no question of the chosen categories has valid evidence".into(),
        }));
    }
    Ok(runs
        .iter()
        .zip(tallies)
        .map(|(&pool, tally)| {
            summarise(
                tally,
                embedder.info().to_string(),
                reranker.describe(pool),
                options,
                ks.clone(),
                evaluated_samples,
                problems.clone(),
            )
        })
        .collect())
}

/// The reranker an evaluation runs with, and what to call it in a report.
#[derive(Clone)]
pub struct Reranking {
    /// The cross-encoder (or [`hive_mind_models::reranker::Unconfigured`]).
    pub reranker: Arc<dyn Reranker>,
    /// Its name; `None` when there is none.
    pub name: Option<String>,
}

impl Reranking {
    /// No reranker.
    pub fn none() -> Reranking {
        Reranking {
            reranker: Arc::new(hive_mind_models::reranker::Unconfigured),
            name: None,
        }
    }

    /// How a run with rerank pool `pool` is described.
    pub fn describe(&self, pool: Option<u32>) -> String {
        match (&self.name, pool) {
            (None, _) | (_, Some(0)) => "off".to_string(),
            (Some(name), None) => format!("{name}, the engine's default pool"),
            (Some(name), Some(pool)) => format!("{name}, pool {pool}"),
        }
    }
}

/// Build the sample's mind, ask its questions; a progress line, or why the
/// sample could not be evaluated.
#[allow(clippy::too_many_arguments)]
fn evaluate_sample(
    sample: &Sample,
    embedder: Arc<dyn Embedder>,
    reranker: &Reranking,
    options: &EvalOptions,
    ks: &[usize],
    limit: u32,
    floor: Option<RelevanceFloor>,
    (runs, tallies): (&[Option<u32>], &mut [Tally]),
    problems: &mut Vec<String>,
    progress: &Progress,
) -> Result<String, String> {
    progress.working_on(format!("{}: import", sample.id));
    let dir = tempfile::Builder::new()
        .prefix("hive-mind-eval-")
        .tempdir()
        .map_err(|e| EvalError::TempDir(e).to_string())?;
    // The lane tallies speak of the top max-k frames, whatever the fetch.
    let top = ks
        .last()
        .and_then(|&k| u32::try_from(k).ok())
        .unwrap_or(limit)
        .min(limit);
    let mut engine = open_engine(dir.path(), embedder, Arc::clone(&reranker.reranker))
        .map_err(|e| e.to_string())?;

    let mut turn_map: TurnMap = HashMap::new();
    let conversations: Vec<ImportedConversation> = sample
        .sessions
        .iter()
        .map(|session| {
            let key = format!("s{}", session.number);
            turn_map.insert(
                key.clone(),
                (
                    session.number,
                    session.turns.iter().map(|turn| turn.dia_id).collect(),
                ),
            );
            ImportedConversation {
                key,
                title: None,
                date: session.date.and_utc().timestamp_millis(),
                turns: session
                    .turns
                    .iter()
                    .map(|turn| ImportedTurn {
                        speaker: turn.speaker.clone(),
                        text: turn.text.clone(),
                    })
                    .collect(),
            }
        })
        .collect();
    let turns = sample.turn_count();
    let started = Instant::now();
    let report = engine
        .import_conversations(&wit_types::Mind::Personal, &conversations)
        .map_err(|e| format!("the import failed: {e}"))?;
    let ingest = started.elapsed().as_secs_f64();
    progress.advance(turns as u64);
    progress.working_on(format!("{}: recall", sample.id));
    for tally in tallies.iter_mut() {
        tally.ingest_seconds += ingest;
        tally.turns += turns;
        tally.sessions += conversations.len();
        tally.written += u64::from(report.written);
        tally.duplicates += u64::from(report.duplicates);
        tally.rejected += u64::from(report.rejected);
        tally.skipped += u64::from(report.skipped);
    }
    if report.rejected > 0 {
        problems.push(format!(
            "sample {}: the injection scan refused {} turn(s); they are not in the mind",
            sample.id, report.rejected
        ));
    }
    let (closed, pairs) = closed_frames(&mut engine);
    for tally in tallies.iter_mut() {
        tally.closed += closed;
        tally.closed_pairs.extend(pairs.iter().cloned());
    }
    // Import time is not recall time.
    engine.take_timings();

    let now = sample.asked_at().map(|t| t.and_utc().timestamp_millis());
    let recall_options = |rerank_pool: Option<u32>| RecallOptions {
        limit: Some(limit),
        scope: Some(RecallScope::Personal),
        now,
        floor,
        rerank_pool,
        ..RecallOptions::default()
    };
    let turn_ids = sample.turn_ids();
    let mut asked = 0;
    let mut recall_ms = 0.0;
    for question in &sample.questions {
        if !options.categories.contains(&question.category) {
            continue;
        }
        asked += 1;
        let evidence = Sample::evidence(question, &turn_ids);
        for tally in tallies.iter_mut() {
            tally.counts.asked += 1;
            tally.counts.malformed += evidence.malformed.len();
            tally.counts.missing += evidence.missing.len();
        }
        if !evidence.malformed.is_empty() || !evidence.missing.is_empty() {
            problems.push(format!(
                "sample {}, question #{}: evidence {:?}: {}{}",
                sample.id,
                question.index + 1,
                question.evidence,
                if evidence.malformed.is_empty() {
                    String::new()
                } else {
                    format!("malformed {:?} ", evidence.malformed)
                },
                if evidence.missing.is_empty() {
                    String::new()
                } else {
                    format!(
                        "no such turn {:?}",
                        evidence
                            .missing
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                    )
                },
            ));
        }
        if evidence.valid.is_empty() {
            for tally in tallies.iter_mut() {
                *tally.no_evidence.entry(question.category).or_default() += 1;
            }
            progress.advance(runs.len() as u64);
            continue;
        }
        for (&pool, tally) in runs.iter().zip(tallies.iter_mut()) {
            progress.advance(1);
            let started = Instant::now();
            let recall = engine.recall_memory(&question.question, &recall_options(pool));
            let elapsed = started.elapsed();
            let imports = engine.take_timings();
            let recall = match recall {
                Ok(recall) => recall,
                Err(error) => {
                    tally.counts.failed += 1;
                    problems.push(format!(
                        "sample {}, question #{}: recall failed: {error}",
                        sample.id,
                        question.index + 1
                    ));
                    continue;
                }
            };
            if pool == runs[0] {
                recall_ms += elapsed.as_secs_f64() * 1000.0;
            }
            record_timing(tally, &recall, elapsed, imports);
            let ranked = ranked_turns(&recall, &turn_map, top, &evidence.valid, tally);
            tally.outcomes.push(QuestionOutcome {
                sample: sample.id.clone(),
                number: question.index + 1,
                category: question.category,
                question: question.question.clone(),
                evidence: evidence.valid.iter().map(ToString::to_string).collect(),
                recalled: recall
                    .memories
                    .iter()
                    .map(|memory| {
                        let turn = recalled_turn_id(memory, &turn_map);
                        RecalledTurn {
                            turn: turn.map(|id| id.to_string()),
                            evidence: turn.is_some_and(|id| evidence.valid.contains(&id)),
                            lane: memory.lane.wit_name().to_string(),
                            score: memory.score,
                            why: memory.why.clone(),
                        }
                    })
                    .collect(),
                notes: recall.notes.iter().map(|note| note.text.clone()).collect(),
            });
            let sessions = session_ranking(&ranked);
            let gold = gold_sessions(&evidence.valid);
            tally.scored.push(Scored {
                category: question.category,
                session_hits: ks
                    .iter()
                    .map(|&k| session_hit_at_k(&sessions, &gold, k))
                    .collect(),
                turn_recalls: ks
                    .iter()
                    .map(|&k| turn_recall_at_k(&ranked, &evidence.valid, k))
                    .collect(),
            });
        }
    }
    if let Some(tally) = tallies.first_mut() {
        tally.truncated_texts += engine.truncated_texts();
    }
    Ok(format!(
        "sample {}: {} sessions, {turns} turns imported in {ingest:.1} s ({:.0} turns/s); \
         {asked} questions asked, mean recall {:.1} ms",
        sample.id,
        conversations.len(),
        turns as f64 / ingest.max(1e-9),
        recall_ms / f64::from(u32::try_from(asked.max(1)).unwrap_or(u32::MAX)),
    ))
}

fn record_timing(tally: &mut Tally, recall: &Recall, elapsed: Duration, imports: ImportTimings) {
    tally.latencies_ms.push(elapsed.as_secs_f64() * 1000.0);
    tally.recall_time += elapsed;
    for stage in &recall.stages {
        let name = stage.stage.wit_name();
        match tally
            .stage_micros
            .iter_mut()
            .find(|(known, _)| known == name)
        {
            Some((_, micros)) => *micros += stage.micros,
            None => tally.stage_micros.push((name.to_string(), stage.micros)),
        }
    }
    add_timings(&mut tally.imports, &imports);
    if recall.memories.is_empty() {
        if recall.withheld.is_some() {
            tally.counts.withheld += 1;
        } else {
            tally.counts.empty += 1;
        }
    }
}

/// How many frames of the personal mind are no longer current: closed by
/// a later frame, or not listed (0 when the mind cannot be read); and the
/// (closed, replacing) contents of each pair.
fn closed_frames(engine: &mut EngineRuntime) -> (u64, Vec<(String, String)>) {
    let mind = wit_types::Mind::Personal;
    let held: u64 = engine
        .admin()
        .status()
        .map(|minds| {
            minds
                .iter()
                .filter(|status| matches!(status.mind, wit_types::Mind::Personal))
                .map(|status| status.frames)
                .sum()
        })
        .unwrap_or(0);
    let listed = engine
        .admin()
        .recent_frames(&mind, u32::try_from(held).unwrap_or(u32::MAX))
        .unwrap_or_default();
    let closed: Vec<&wit_types::Frame> = listed
        .iter()
        .filter(|frame| frame.valid_to.is_some() || frame.superseded_by.is_some())
        .collect();
    let pairs = closed
        .iter()
        .filter_map(|frame| {
            let by = frame.superseded_by.as_ref()?;
            let newer = listed.iter().find(|other| other.ref_.id == by.id)?;
            Some((frame.content.clone(), newer.content.clone()))
        })
        .collect();
    (
        closed.len() as u64 + held.saturating_sub(listed.len() as u64),
        pairs,
    )
}

/// The session of a recalled imported turn and, when its position names
/// one, its dialogue id; `None` for any other memory.
fn recalled_turn(memory: &Recalled, turn_map: &TurnMap) -> Option<(u32, Option<TurnId>)> {
    let Some(MemoryKind::RawTurn(origin)) = &memory.frame.metadata.kind else {
        return None;
    };
    let (session, ids) = turn_map.get(&origin.conversation)?;
    let id = usize::try_from(origin.turn)
        .ok()
        .and_then(|position| ids.get(position.checked_sub(1)?))
        .copied()
        .flatten();
    Some((*session, id))
}

/// The dialogue id of a recalled imported turn.
fn recalled_turn_id(memory: &Recalled, turn_map: &TurnMap) -> Option<TurnId> {
    recalled_turn(memory, turn_map).and_then(|(_, id)| id)
}

/// The recalled raw turns, best first, mapped to their dialogue ids; counts
/// which lane placed each (and each evidence turn) in the top `limit`.
fn ranked_turns(
    recall: &Recall,
    turn_map: &TurnMap,
    limit: u32,
    evidence: &BTreeSet<TurnId>,
    tally: &mut Tally,
) -> Vec<RetrievedTurn> {
    let mut ranked = Vec::new();
    for memory in &recall.memories {
        let Some((session, id)) = recalled_turn(memory, turn_map) else {
            continue;
        };
        if ranked.len() < usize::try_from(limit).unwrap_or(usize::MAX) {
            *tally
                .returned_lanes
                .entry(memory.lane.wit_name().to_string())
                .or_default() += 1;
            if id.is_some_and(|id| evidence.contains(&id))
                && !ranked.iter().any(|turn: &RetrievedTurn| turn.id == id)
            {
                *tally
                    .evidence_lanes
                    .entry(memory.lane.wit_name().to_string())
                    .or_default() += 1;
            }
        }
        ranked.push(RetrievedTurn { session, id });
    }
    ranked
}

fn scores(category: Option<u32>, scored: &[&Scored], no_evidence: usize, ks: &[usize]) -> Scores {
    let at = ks
        .iter()
        .enumerate()
        .map(|(index, &k)| AtK {
            k,
            session: mean(
                &scored
                    .iter()
                    .map(|s| s.session_hits[index])
                    .collect::<Vec<_>>(),
            ),
            turn: mean(
                &scored
                    .iter()
                    .map(|s| s.turn_recalls[index])
                    .collect::<Vec<_>>(),
            ),
        })
        .collect();
    Scores {
        category,
        name: category.map_or("all", category_name).to_string(),
        n: scored.len(),
        no_evidence,
        at,
    }
}

fn summarise(
    tally: Tally,
    embedder: String,
    reranker: String,
    options: &EvalOptions,
    ks: Vec<usize>,
    samples: usize,
    problems: Vec<String>,
) -> EvalReport {
    let all: Vec<&Scored> = tally.scored.iter().collect();
    let no_evidence_total: usize = tally.no_evidence.values().sum();
    let overall = scores(None, &all, no_evidence_total, &ks);
    let per_category = options
        .categories
        .iter()
        .map(|&category| {
            let group: Vec<&Scored> = tally
                .scored
                .iter()
                .filter(|s| s.category == category)
                .collect();
            let no_evidence = tally.no_evidence.get(&category).copied().unwrap_or(0);
            scores(Some(category), &group, no_evidence, &ks)
        })
        .collect();
    let recalls = tally.latencies_ms.len();
    let total_micros: u64 = tally.stage_micros.iter().map(|(_, m)| m).sum();
    let per_recall_ms = |micros: f64| micros / 1000.0 / recalls.max(1) as f64;
    let share = |micros: f64| {
        if total_micros > 0 {
            micros / total_micros as f64
        } else {
            0.0
        }
    };
    let stages: Vec<StageShare> = tally
        .stage_micros
        .iter()
        .map(|(stage, micros)| StageShare {
            stage: stage.clone(),
            mean_ms: per_recall_ms(*micros as f64),
            share: share(*micros as f64),
        })
        .collect();
    let split = split_rows(tally.recall_time, &tally.imports, recalls);
    EvalReport {
        embedder,
        reranker,
        floor: if options.no_floor { "off" } else { "default" }.to_string(),
        ks,
        categories: options.categories.iter().copied().collect(),
        samples,
        ingest: Ingest {
            turns: tally.turns,
            sessions: tally.sessions,
            written: tally.written,
            duplicates: tally.duplicates,
            rejected: tally.rejected,
            skipped: tally.skipped,
            seconds: tally.ingest_seconds,
            turns_per_second: tally.turns as f64 / tally.ingest_seconds.max(1e-9),
            closed: tally.closed,
        },
        questions: QuestionCounts {
            asked: tally.counts.asked,
            scored: tally.scored.len(),
            no_valid_evidence: no_evidence_total,
            failed: tally.counts.failed,
            empty: tally.counts.empty,
            withheld: tally.counts.withheld,
            malformed_evidence: tally.counts.malformed,
            missing_evidence: tally.counts.missing,
        },
        overall,
        per_category,
        latency: Latency {
            recalls,
            p50_ms: percentile(&tally.latencies_ms, 50.0),
            p95_ms: percentile(&tally.latencies_ms, 95.0),
            mean_ms: mean(&tally.latencies_ms),
        },
        stages,
        split,
        evidence_lanes: tally.evidence_lanes,
        returned_lanes: tally.returned_lanes,
        problems,
        outcomes: tally.outcomes,
        closed_pairs: tally.closed_pairs,
    }
}
