//! # `hive-mind-lab eval timelines`: does the newest statement win?
//!
//! A person's facts change: they move, change jobs, switch diets; a
//! deadline is pushed back. A memory that an agent writes as it works holds
//! the old statement and the new one, and recall must put the new one
//! first — ideally with the old one gone — while two statements that are
//! both true (two trips, two allergies) must both stay. This evaluation
//! measures exactly that, on hand-written data (`timelines-*.jsonl`, the
//! format in `host/lab/data/README.md`):
//!
//! - a **timeline** is one changing fact stated two or three times, dated;
//!   its `query` asks for the current value; `current` are strings only the
//!   last statement holds, `stale` one string per earlier statement;
//! - a **negative pair** (`"negative": true`) is two statements that must
//!   both stay; `keep` holds one list of strings per statement.
//!
//! ## How it runs
//!
//! For each data file and each write path ([`WritePath`]), a fresh mind
//! holds *all* the file's timelines and pairs, as a real mind would: every
//! statement of every item, in time order, written through that path —
//! `save-memory` with `created-at`, `remember-exchange(statement, "Noted.")`
//! with `occurred-at`, or a one-turn conversation imported at the
//! statement's date. Then each item's query is recalled (limit 10) with
//! "now" a day after the item's last statement, and judged
//! ([`judge_change`], [`judge_pair`]):
//!
//! - **latest-first**: the first recalled memory that contains the current
//!   statement (all `current` strings) or a stale one (any `stale` string)
//!   is the current one;
//! - **stale-gone**: the current statement is recalled and no recalled
//!   memory contains a stale string;
//! - **current-missing**: no recalled memory contains the current
//!   statement;
//! - **stale-closed**: every earlier statement's memory was closed by the
//!   engine (replaced, `valid-to` set) — what `memory-history` and `as-of`
//!   then show;
//! - **false-supersede** (pairs): a `keep` set is not among the top 10 for
//!   the pair's query, or a kept statement's memory was closed.
//!
//! Memories are matched to an item by their text, case-insensitively; a
//! recalled memory the harness wrote for *another* item (known by the
//! frames each write returned, and an import's conversation key) is left
//! out of an item's judgement, so two items sharing a word ("Berlin") do
//! not score each other.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value as Json;

use super::EvalError;
use super::live::{
    self, DAY_MS, Fields, Rate, WritePath, contains, contains_all, contains_any, malformed, shorten,
};
use super::run::Reranking;
use hive_mind_models::embedder::Embedder;
use hive_mind_runtime::engine::wit_types::Importance;
use hive_mind_terminal::Progress;

/// One dated statement of an item.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// When it was said (Unix milliseconds).
    pub at: i64,
    /// What was said.
    pub text: String,
}

/// What an item expects of recall.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// A timeline: the last statement replaces the earlier ones.
    Change {
        /// Strings only the last statement holds (all must be in one memory).
        current: Vec<String>,
        /// One string per earlier statement, in no later one.
        stale: Vec<String>,
    },
    /// A negative pair: one set of strings per statement, all to be kept.
    Keep(Vec<Vec<String>>),
}

/// A timeline or a negative pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Its id (unique in its file).
    pub id: String,
    /// The kind of fact (`residence`, `two-trips`, …).
    pub kind: String,
    /// Where it was read (`file:line`).
    pub at: String,
    /// Its statements, in time order.
    pub steps: Vec<Step>,
    /// The question asking for the current value (or both values).
    pub query: String,
    /// What recall should show.
    pub expect: Expect,
}

impl Item {
    /// Whether it is a negative pair.
    pub fn is_negative(&self) -> bool {
        matches!(self.expect, Expect::Keep(_))
    }

    /// When its query is asked: a day after its last statement.
    pub fn asked_at(&self) -> i64 {
        self.steps.last().map_or(0, |step| step.at) + DAY_MS
    }

    /// The conversation key of its statement `step` (0-based) when
    /// imported.
    pub fn key(&self, step: usize) -> String {
        format!("{}#{}", self.id, step + 1)
    }
}

/// A timelines file, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineFile {
    /// The file.
    pub path: PathBuf,
    /// Its items, in file order.
    pub items: Vec<Item>,
}

impl TimelineFile {
    /// Read and check `path` (JSON Lines; blank lines and lines starting
    /// with `//` are skipped).
    pub fn load(path: &Path) -> Result<TimelineFile, EvalError> {
        let text = live::read_file(path)?;
        Ok(TimelineFile {
            path: path.to_path_buf(),
            items: parse(&path.display().to_string(), &text)?,
        })
    }
}

/// Parse a timelines file's text; `name` is how errors name the file. Every
/// item is checked against the format's rules (see the module docs): a
/// `current` string in an earlier statement, or a `stale` one in a later
/// statement, is an error naming `file:line` and the field.
pub fn parse(name: &str, text: &str) -> Result<Vec<Item>, EvalError> {
    let mut items: Vec<Item> = Vec::new();
    let mut ids = BTreeSet::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        let at = format!("{name}:{}", index + 1);
        let value: Json = serde_json::from_str(trimmed)
            .map_err(|e| malformed(&at, "(the line)", &format!("not valid JSON: {e}")))?;
        let item = parse_item(&at, &value)?;
        if !ids.insert(item.id.clone()) {
            return Err(malformed(
                &at,
                "id",
                &format!("{:?} is used twice", item.id),
            ));
        }
        items.push(item);
    }
    if items.is_empty() {
        return Err(EvalError::Empty(format!("{name} holds no timeline")));
    }
    Ok(items)
}

fn parse_item(at: &str, value: &Json) -> Result<Item, EvalError> {
    let fields = Fields::of(at, "(the line)", value)?;
    let id = fields.string("id")?;
    let kind = fields.string("kind")?;
    let query = fields.string("query")?;
    let negative = fields.flag("negative")?;
    let raw_steps = fields.list("steps")?;
    if !(2..=3).contains(&raw_steps.len()) {
        return Err(malformed(
            at,
            "steps",
            &format!("needs 2 or 3 statements, has {}", raw_steps.len()),
        ));
    }
    let mut steps: Vec<Step> = Vec::new();
    for (index, raw) in raw_steps.iter().enumerate() {
        let name = format!("steps[{index}]");
        let step = Fields::of(at, &name, raw)?;
        let when = step
            .time("at")
            .map_err(|e| rename(e, &format!("{name}.at")))?;
        let text = step
            .string("text")
            .map_err(|e| rename(e, &format!("{name}.text")))?;
        if steps.last().is_some_and(|previous| previous.at > when) {
            return Err(malformed(
                at,
                &format!("{name}.at"),
                "is before the statement above it",
            ));
        }
        steps.push(Step { at: when, text });
    }
    let expect = if negative {
        if fields.get("current").is_some() || fields.get("stale").is_some() {
            return Err(malformed(
                at,
                "current",
                "a negative pair has `keep`, not `current`/`stale`",
            ));
        }
        let keep = fields.list("keep")?;
        if keep.len() != steps.len() {
            return Err(malformed(
                at,
                "keep",
                &format!(
                    "needs one list per statement ({}), has {}",
                    steps.len(),
                    keep.len()
                ),
            ));
        }
        let mut sets = Vec::new();
        for (index, raw) in keep.iter().enumerate() {
            let field = format!("keep[{index}]");
            let set = live::strings_of(at, &field, raw)?;
            for text in &set {
                only_in(at, &field, text, &steps, index, |other| other != index)?;
            }
            sets.push(set);
        }
        Expect::Keep(sets)
    } else {
        if fields.get("keep").is_some() {
            return Err(malformed(
                at,
                "keep",
                "only a negative pair (\"negative\": true) has `keep`",
            ));
        }
        let current = fields.strings("current")?;
        let last = steps.len() - 1;
        for text in &current {
            only_in(at, "current", text, &steps, last, |other| other != last)?;
        }
        let stale = fields.strings("stale")?;
        if stale.len() != last {
            return Err(malformed(
                at,
                "stale",
                &format!(
                    "needs one string per earlier statement ({last}), has {}",
                    stale.len()
                ),
            ));
        }
        for (index, text) in stale.iter().enumerate() {
            only_in(
                at,
                &format!("stale[{index}]"),
                text,
                &steps,
                index,
                |other| other > index,
            )?;
        }
        Expect::Change { current, stale }
    };
    Ok(Item {
        id,
        kind,
        at: at.to_string(),
        steps,
        query,
        expect,
    })
}

/// Check that `text` is in statement `home` and in none of the statements
/// `excluded` picks.
fn only_in(
    at: &str,
    field: &str,
    text: &str,
    steps: &[Step],
    home: usize,
    excluded: impl Fn(usize) -> bool,
) -> Result<(), EvalError> {
    if !steps
        .get(home)
        .is_some_and(|step| contains(&step.text, text))
    {
        return Err(malformed(
            at,
            field,
            &format!("{text:?} is not in statement {}", home + 1),
        ));
    }
    if let Some(other) = (0..steps.len())
        .filter(|&other| excluded(other))
        .find(|&other| {
            steps
                .get(other)
                .is_some_and(|step| contains(&step.text, text))
        })
    {
        return Err(malformed(
            at,
            field,
            &format!("{text:?} is also in statement {}", other + 1),
        ));
    }
    Ok(())
}

/// A field error renamed to the nested field it was about.
fn rename(error: EvalError, field: &str) -> EvalError {
    match error {
        EvalError::Malformed { at, why, .. } => EvalError::Malformed {
            at,
            field: field.to_string(),
            why,
        },
        other => other,
    }
}

/// How a timeline's recall went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ChangeOutcome {
    /// The first memory holding the current or a stale statement holds the
    /// current one.
    pub latest_first: bool,
    /// The current statement is recalled and no stale one is.
    pub stale_gone: bool,
    /// The current statement is not recalled.
    pub current_missing: bool,
}

/// Judge a timeline's recalled memory texts (best first).
pub fn judge_change(texts: &[String], current: &[String], stale: &[String]) -> ChangeOutcome {
    let is_current = |text: &String| contains_all(text, current);
    let first = texts
        .iter()
        .find(|text| is_current(text) || contains_any(text, stale));
    let current_found = texts.iter().any(is_current);
    let any_stale = texts.iter().any(|text| contains_any(text, stale));
    ChangeOutcome {
        latest_first: first.is_some_and(is_current),
        stale_gone: current_found && !any_stale,
        current_missing: !current_found,
    }
}

/// How a negative pair's recall went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PairOutcome {
    /// Statements whose `keep` set no recalled memory holds.
    pub missing: usize,
    /// Statements whose memory the engine closed.
    pub closed: usize,
    /// Either: a statement that must stay was lost.
    pub false_supersede: bool,
}

/// Judge a negative pair's recalled memory texts (best first); `closed`
/// counts its statements whose memory the engine closed.
pub fn judge_pair(texts: &[String], keep: &[Vec<String>], closed: usize) -> PairOutcome {
    let missing = keep
        .iter()
        .filter(|set| !texts.iter().any(|text| contains_all(text, set)))
        .count();
    PairOutcome {
        missing,
        closed,
        false_supersede: missing > 0 || closed > 0,
    }
}

/// One item's result on one write path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemResult {
    /// The file it came from.
    pub file: String,
    /// Its id.
    pub id: String,
    /// Its kind.
    pub kind: String,
    /// The write path.
    pub path: WritePath,
    /// A timeline's outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeOutcome>,
    /// Whether every earlier statement's memory was closed (timelines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_closed: Option<bool>,
    /// A pair's outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair: Option<PairOutcome>,
    /// Recalled memories the harness wrote for other items that hold one of
    /// this item's strings (left out of the judgement; a sign the data
    /// reuses a word).
    pub foreign: usize,
    /// The first recalled memories (at most three, shortened).
    pub top: Vec<String>,
}

/// The figures of a group of items (a write path, or a kind on it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scores {
    /// The group (`all`, or a kind).
    pub name: String,
    /// Timelines.
    pub timelines: usize,
    /// Current statement first.
    pub latest_first: Rate,
    /// Current recalled, no stale one.
    pub stale_gone: Rate,
    /// Current not recalled.
    pub current_missing: Rate,
    /// Every earlier statement closed by the engine.
    pub stale_closed: Rate,
    /// Negative pairs.
    pub pairs: usize,
    /// Pairs with a statement lost (not recalled, or closed).
    pub false_supersede: Rate,
    /// Pairs with a `keep` set not among the top 10.
    pub pair_missing: Rate,
    /// Pairs with a kept statement's memory closed.
    pub pair_closed: Rate,
}

/// One write path's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathReport {
    /// The write path.
    pub path: WritePath,
    /// Statements written.
    pub statements: usize,
    /// Frames the engine reports written for them.
    pub frames_written: u64,
    /// Statements whose write failed (see the problems).
    pub write_failures: usize,
    /// Recalls that failed (judged as returning nothing).
    pub recall_failures: usize,
    /// Mean memories a recall returned.
    pub mean_returned: f64,
    /// All items together.
    pub overall: Scores,
    /// Per kind, in name order.
    pub per_kind: Vec<Scores>,
}

/// The outcome of `eval timelines`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelinesReport {
    /// The data files.
    pub files: Vec<String>,
    /// The embedder, as `provider/model (dim-d)`.
    pub embedder: String,
    /// The reranker, or `off`.
    pub reranker: String,
    /// Timelines read.
    pub timelines: usize,
    /// Negative pairs read.
    pub pairs: usize,
    /// Distinct kinds of timeline.
    pub kinds: usize,
    /// Distinct kinds of negative pair.
    pub pair_kinds: usize,
    /// Per write path.
    pub paths: Vec<PathReport>,
    /// Every item on every path.
    pub items: Vec<ItemResult>,
    /// Everything that went wrong, with where.
    pub problems: Vec<String>,
}

/// Run the evaluation on `files` through `paths` (see the module docs).
pub fn evaluate(
    files: &[TimelineFile],
    paths: &[WritePath],
    embedder: Arc<dyn Embedder>,
    reranking: &Reranking,
    progress: &Progress,
    keep: Option<&Path>,
) -> Result<TimelinesReport, EvalError> {
    if paths.is_empty() {
        return Err(EvalError::Option(
            "at least one write path is needed".into(),
        ));
    }
    let work: usize = files
        .iter()
        .flat_map(|file| &file.items)
        .map(|item| item.steps.len() + 1)
        .sum();
    progress.set_total((work * paths.len()) as u64);
    let mut results = Vec::new();
    let mut tallies: BTreeMap<WritePath, PathTally> = BTreeMap::new();
    let mut problems = Vec::new();
    for file in files {
        for &path in paths {
            let tally = tallies.entry(path).or_default();
            let name = file.path.display().to_string();
            progress.working_on(format!("{}: {}", path.name(), file_name(&file.path)));
            let kept = keep.map(|dir| {
                let stem = file.path.file_stem().map_or_else(
                    || "timelines".into(),
                    |stem| stem.to_string_lossy().into_owned(),
                );
                dir.join(format!("{stem}-{}", path.name()))
            });
            let line = run_path(
                &name,
                &file.items,
                path,
                kept.as_deref(),
                &embedder,
                reranking,
                tally,
                &mut results,
                &mut problems,
                progress,
            )?;
            progress.note(&line);
        }
    }
    progress.finish();
    let items: Vec<&Item> = files.iter().flat_map(|file| &file.items).collect();
    let kinds: BTreeSet<&str> = items.iter().map(|item| item.kind.as_str()).collect();
    let reports = paths
        .iter()
        .map(|&path| {
            let tally = tallies.remove(&path).unwrap_or_default();
            let mine: Vec<&ItemResult> = results.iter().filter(|r| r.path == path).collect();
            let per_kind = kinds
                .iter()
                .map(|kind| {
                    let group: Vec<&ItemResult> =
                        mine.iter().copied().filter(|r| r.kind == *kind).collect();
                    scores(kind, &group)
                })
                .collect();
            PathReport {
                path,
                statements: tally.statements,
                frames_written: tally.frames_written,
                write_failures: tally.write_failures,
                recall_failures: tally.recall_failures,
                mean_returned: live::share(tally.returned, tally.recalls),
                overall: scores("all", &mine),
                per_kind,
            }
        })
        .collect();
    Ok(TimelinesReport {
        files: files.iter().map(|f| f.path.display().to_string()).collect(),
        embedder: embedder.info().to_string(),
        reranker: reranking.describe(None),
        timelines: items.iter().filter(|item| !item.is_negative()).count(),
        pairs: items.iter().filter(|item| item.is_negative()).count(),
        kinds: kinds_of(&items, false),
        pair_kinds: kinds_of(&items, true),
        paths: reports,
        items: results,
        problems,
    })
}

/// The distinct kinds of the pairs (`negative`) or of the timelines.
fn kinds_of(items: &[&Item], negative: bool) -> usize {
    items
        .iter()
        .filter(|item| item.is_negative() == negative)
        .map(|item| item.kind.as_str())
        .collect::<BTreeSet<_>>()
        .len()
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

#[derive(Debug, Default)]
struct PathTally {
    statements: usize,
    frames_written: u64,
    write_failures: usize,
    recall_failures: usize,
    recalls: usize,
    returned: usize,
}

/// Which item (and statement) each frame the harness wrote belongs to.
type Owners = HashMap<(String, u64), (usize, usize)>;

/// One file through one write path: a fresh mind, every statement written
/// in time order, every query asked. The progress line.
#[allow(clippy::too_many_arguments)]
fn run_path(
    file: &str,
    items: &[Item],
    path: WritePath,
    keep: Option<&Path>,
    embedder: &Arc<dyn Embedder>,
    reranking: &Reranking,
    tally: &mut PathTally,
    results: &mut Vec<ItemResult>,
    problems: &mut Vec<String>,
    progress: &Progress,
) -> Result<String, EvalError> {
    let (_dir, mut engine) = live::engine_in(keep, embedder, reranking)?;
    let mut order: Vec<(i64, usize, usize)> = items
        .iter()
        .enumerate()
        .flat_map(|(item, it)| {
            it.steps
                .iter()
                .enumerate()
                .map(move |(step, s)| (s.at, item, step))
        })
        .collect();
    // Time order; ties in file order.
    order.sort();
    let mut owners: Owners = HashMap::new();
    let started = std::time::Instant::now();
    for &(at, item_index, step_index) in &order {
        progress.advance(1);
        let Some(item) = items.get(item_index) else {
            continue;
        };
        let Some(step) = item.steps.get(step_index) else {
            continue;
        };
        tally.statements += 1;
        match live::write_statement(
            &mut engine,
            path,
            &item.key(step_index),
            at,
            &step.text,
            Importance::Normal,
        ) {
            Ok(written) => {
                tally.frames_written += u64::from(written.new);
                for frame in &written.frames {
                    owners
                        .entry(live::frame_key(&frame.ref_))
                        .or_insert((item_index, step_index));
                }
            }
            Err(why) => {
                tally.write_failures += 1;
                problems.push(format!(
                    "{} ({}), statement {}, {}: {why}",
                    item.id,
                    item.at,
                    step_index + 1,
                    path.name()
                ));
            }
        }
    }
    let write_seconds = started.elapsed().as_secs_f64();
    let frames = match live::all_frames(&mut engine) {
        Ok(frames) => frames,
        Err(why) => {
            problems.push(format!("{file}, {}: {why}", path.name()));
            Vec::new()
        }
    };
    let keys: HashMap<String, (usize, usize)> = items
        .iter()
        .enumerate()
        .flat_map(|(index, item)| {
            (0..item.steps.len()).map(move |step| (item.key(step), (index, step)))
        })
        .collect();
    for frame in &frames {
        if let Some(&owner) = live::conversation_of(frame).and_then(|key| keys.get(key)) {
            owners.entry(live::frame_key(&frame.ref_)).or_insert(owner);
        }
    }
    // Per item and statement: the frames written for it, and whether each
    // was closed.
    let mut statement_frames: HashMap<(usize, usize), Vec<(String, bool)>> = HashMap::new();
    for frame in &frames {
        if let Some(&owner) = owners.get(&live::frame_key(&frame.ref_)) {
            statement_frames
                .entry(owner)
                .or_default()
                .push((frame.content.clone(), live::is_closed(frame)));
        }
    }
    let started = std::time::Instant::now();
    for (index, item) in items.iter().enumerate() {
        progress.advance(1);
        let recalled = match live::recall(&mut engine, &item.query, item.asked_at()) {
            Ok(recall) => recall.memories,
            Err(why) => {
                tally.recall_failures += 1;
                problems.push(format!("{} ({}), {}: {why}", item.id, item.at, path.name()));
                Vec::new()
            }
        };
        tally.recalls += 1;
        tally.returned += recalled.len();
        let strings: Vec<String> = match &item.expect {
            Expect::Change { current, stale } => current.iter().chain(stale).cloned().collect(),
            Expect::Keep(sets) => sets.iter().flatten().cloned().collect(),
        };
        let mut texts = Vec::new();
        let mut foreign = 0;
        for memory in &recalled {
            let owner = owners.get(&live::frame_key(&memory.frame.ref_));
            if owner.is_some_and(|&(other, _)| other != index) {
                if contains_any(&memory.frame.content, &strings) {
                    foreign += 1;
                }
                continue;
            }
            texts.push(memory.frame.content.clone());
        }
        let closed = |step: usize, needles: &[String], all: bool| -> bool {
            let written = statement_frames.get(&(index, step));
            let holding: Vec<bool> = written
                .map(|frames| {
                    frames
                        .iter()
                        .filter(|(content, _)| {
                            if all {
                                contains_all(content, needles)
                            } else {
                                contains_any(content, needles)
                            }
                        })
                        .map(|(_, closed)| *closed)
                        .collect()
                })
                .unwrap_or_default();
            !holding.is_empty() && holding.iter().all(|&closed| closed)
        };
        let (change, stale_closed, pair) = match &item.expect {
            Expect::Change { current, stale } => {
                let all_closed = stale
                    .iter()
                    .enumerate()
                    .all(|(step, text)| closed(step, std::slice::from_ref(text), false));
                (
                    Some(judge_change(&texts, current, stale)),
                    Some(all_closed),
                    None,
                )
            }
            Expect::Keep(sets) => {
                let closed_steps = sets
                    .iter()
                    .enumerate()
                    .filter(|(step, set)| {
                        statement_frames.get(&(index, *step)).is_some_and(|frames| {
                            frames
                                .iter()
                                .any(|(content, closed)| *closed && contains_all(content, set))
                        })
                    })
                    .count();
                (None, None, Some(judge_pair(&texts, sets, closed_steps)))
            }
        };
        results.push(ItemResult {
            file: file.to_string(),
            id: item.id.clone(),
            kind: item.kind.clone(),
            path,
            change,
            stale_closed,
            pair,
            foreign,
            top: recalled
                .iter()
                .take(3)
                .map(|memory| shorten(&memory.frame.content, 160))
                .collect(),
        });
    }
    let recall_seconds = started.elapsed().as_secs_f64();
    Ok(format!(
        "{} via {}: {} statements written in {write_seconds:.1} s, {} frames in the mind, {} queries in {recall_seconds:.1} s",
        file_name(Path::new(file)),
        path.name(),
        order.len(),
        frames.len(),
        items.len(),
    ))
}

/// The figures of `group` under `name`.
pub fn scores(name: &str, group: &[&ItemResult]) -> Scores {
    let changes: Vec<&ChangeOutcome> = group.iter().filter_map(|r| r.change.as_ref()).collect();
    let pairs: Vec<&PairOutcome> = group.iter().filter_map(|r| r.pair.as_ref()).collect();
    let count = |predicate: &dyn Fn(&ChangeOutcome) -> bool| {
        Rate::new(
            changes.iter().filter(|c| predicate(c)).count(),
            changes.len(),
        )
    };
    let pair_count = |predicate: &dyn Fn(&PairOutcome) -> bool| {
        Rate::new(pairs.iter().filter(|p| predicate(p)).count(), pairs.len())
    };
    Scores {
        name: name.to_string(),
        timelines: changes.len(),
        latest_first: count(&|c| c.latest_first),
        stale_gone: count(&|c| c.stale_gone),
        current_missing: count(&|c| c.current_missing),
        stale_closed: Rate::new(
            group
                .iter()
                .filter(|r| r.stale_closed == Some(true))
                .count(),
            changes.len(),
        ),
        pairs: pairs.len(),
        false_supersede: pair_count(&|p| p.false_supersede),
        pair_missing: pair_count(&|p| p.missing > 0),
        pair_closed: pair_count(&|p| p.closed > 0),
    }
}

/// The report as readable tables: per write path, then per kind.
pub fn render(report: &TimelinesReport) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "Timelines evaluation: {}", report.files.join(", "));
    let _ = writeln!(
        text,
        "embedder {}, reranker {}; {} timelines of {} kinds, {} negative pairs of {} kinds; recall limit {}",
        report.embedder,
        report.reranker,
        report.timelines,
        report.kinds,
        report.pairs,
        report.pair_kinds,
        live::RECALL_LIMIT
    );
    let _ = writeln!(
        text,
        "\n{:<9}{:>22}{:>22}{:>22}{:>22}{:>22}",
        "path", "latest-first", "stale-gone", "current-missing", "stale-closed", "false-supersede"
    );
    for path in &report.paths {
        let o = &path.overall;
        let _ = writeln!(
            text,
            "{:<9}{:>22}{:>22}{:>22}{:>22}{:>22}",
            path.path.name(),
            o.latest_first.text(),
            o.stale_gone.text(),
            o.current_missing.text(),
            o.stale_closed.text(),
            o.false_supersede.text()
        );
    }
    let _ = writeln!(
        text,
        "(latest-first: the first memory holding the current or a stale statement holds the current one; \
         stale-gone: current recalled, no stale one in the top {limit}; stale-closed: every earlier \
         statement's memory replaced by the engine; false-supersede: a pair's statement not in the top \
         {limit} or closed)",
        limit = live::RECALL_LIMIT
    );
    for path in &report.paths {
        let _ = writeln!(
            text,
            "\n{}: {} statements, {} frames written, {} write failures, {} recall failures, {:.1} memories per recall; \
             pairs: {} not recalled, {} closed",
            path.path.name(),
            path.statements,
            path.frames_written,
            path.write_failures,
            path.recall_failures,
            path.mean_returned,
            path.overall.pair_missing.text(),
            path.overall.pair_closed.text(),
        );
        let cell = |rate: Rate| format!("{}/{}", rate.count, rate.of);
        let _ = writeln!(
            text,
            "  {:<22}{:>4}{:>14}{:>14}{:>14}{:>14}",
            "timeline kind", "n", "latest-first", "stale-gone", "missing", "stale-closed"
        );
        for kind in path.per_kind.iter().filter(|kind| kind.timelines > 0) {
            let _ = writeln!(
                text,
                "  {:<22}{:>4}{:>14}{:>14}{:>14}{:>14}",
                kind.name,
                kind.timelines,
                cell(kind.latest_first),
                cell(kind.stale_gone),
                cell(kind.current_missing),
                cell(kind.stale_closed)
            );
        }
        let _ = writeln!(
            text,
            "  {:<22}{:>4}{:>14}{:>14}{:>14}",
            "pair kind", "n", "false-sup.", "not recalled", "closed"
        );
        for kind in path.per_kind.iter().filter(|kind| kind.pairs > 0) {
            let _ = writeln!(
                text,
                "  {:<22}{:>4}{:>14}{:>14}{:>14}",
                kind.name,
                kind.pairs,
                cell(kind.false_supersede),
                cell(kind.pair_missing),
                cell(kind.pair_closed)
            );
        }
    }
    let foreign: usize = report.items.iter().map(|item| item.foreign).sum();
    if foreign > 0 {
        let _ = writeln!(
            text,
            "\nnote: {foreign} recalled memories of other items held an item's strings and were left out of its judgement"
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(ToString::to_string).collect()
    }

    const GOOD: &str = r#"{"id": "t1", "kind": "residence", "steps": [{"at": "2025-02-03T10:00:00Z", "text": "I live in Lisbon."}, {"at": "2026-01-15T09:00:00Z", "text": "We moved to Porto."}], "query": "Where do I live?", "current": ["Porto"], "stale": ["Lisbon"]}

// a comment line
{"id": "n1", "kind": "two-trips", "negative": true, "steps": [{"at": "2026-05-02T08:00:00Z", "text": "Flew to Rome."}, {"at": "2026-09-10T08:00:00Z", "text": "Hiked in Norway."}], "query": "Which trips?", "keep": [["Rome"], ["Norway"]]}"#;

    #[test]
    fn a_good_file_parses_into_timelines_and_pairs() {
        let items = parse("t.jsonl", GOOD).unwrap();
        assert_eq!(items.len(), 2);
        let first = &items[0];
        assert_eq!(first.at, "t.jsonl:1");
        assert!(!first.is_negative());
        assert_eq!(
            first.expect,
            Expect::Change {
                current: strings(&["Porto"]),
                stale: strings(&["Lisbon"])
            }
        );
        assert_eq!(first.asked_at(), first.steps[1].at + DAY_MS);
        assert_eq!(first.key(1), "t1#2");
        assert_eq!(items[1].at, "t.jsonl:4");
        assert_eq!(
            items[1].expect,
            Expect::Keep(vec![strings(&["Rome"]), strings(&["Norway"])])
        );
    }

    fn error_of(line: &str) -> String {
        parse("bad.jsonl", line).unwrap_err().to_string()
    }

    #[test]
    fn a_bad_line_names_its_place_and_field() {
        let base: Json = serde_json::from_str(GOOD.lines().next().unwrap()).unwrap();
        let with = |edit: &dyn Fn(&mut Json)| {
            let mut value = base.clone();
            edit(&mut value);
            error_of(&value.to_string())
        };
        let e = with(&|v| v["current"] = serde_json::json!(["Lisbon"]));
        assert!(
            e.starts_with("bad.jsonl:1: `current`") && e.contains("not in statement 2"),
            "{e}"
        );
        let e = with(&|v| v["stale"] = serde_json::json!(["Porto"]));
        assert!(
            e.contains("`stale[0]`") && e.contains("not in statement 1"),
            "{e}"
        );
        let e = with(&|v| v["steps"][0]["text"] = serde_json::json!("Lisbon, then Porto"));
        assert!(
            e.contains("`current`") && e.contains("also in statement 1"),
            "{e}"
        );
        let e = with(&|v| v["steps"][1]["at"] = serde_json::json!("2024-01-01T00:00:00Z"));
        assert!(e.contains("`steps[1].at`") && e.contains("before"), "{e}");
        let e = with(&|v| v["steps"][0]["at"] = serde_json::json!("March 2025"));
        assert!(e.contains("`steps[0].at`") && e.contains("RFC 3339"), "{e}");
        let e = with(&|v| {
            v.as_object_mut().unwrap().remove("query");
        });
        assert!(e.contains("`query`: missing"), "{e}");
        let e = with(&|v| v["stale"] = serde_json::json!([]));
        assert!(e.contains("`stale`: is an empty list"), "{e}");
        let e = with(&|v| v["keep"] = serde_json::json!([["Porto"]]));
        assert!(e.contains("`keep`"), "{e}");
        let e = error_of("{\"id\": ");
        assert!(
            e.starts_with("bad.jsonl:1: `(the line)`: not valid JSON"),
            "{e}"
        );
        let twice = format!(
            "{}\n{}",
            GOOD.lines().next().unwrap(),
            GOOD.lines().next().unwrap()
        );
        let e = parse("bad.jsonl", &twice).unwrap_err().to_string();
        assert!(
            e.starts_with("bad.jsonl:2: `id`") && e.contains("twice"),
            "{e}"
        );
        assert!(
            parse("empty.jsonl", "\n\n")
                .unwrap_err()
                .to_string()
                .contains("no timeline")
        );
    }

    #[test]
    fn a_pair_keeps_each_set_to_its_own_statement() {
        let line = r#"{"id": "n", "kind": "k", "negative": true, "steps": [{"at": "2026-05-02T08:00:00Z", "text": "Rome and Norway"}, {"at": "2026-09-10T08:00:00Z", "text": "Norway"}], "query": "q", "keep": [["Rome"], ["Norway"]]}"#;
        let e = error_of(line);
        assert!(
            e.contains("`keep[1]`") && e.contains("also in statement 1"),
            "{e}"
        );
    }

    #[test]
    fn latest_first_reads_the_first_current_or_stale_memory() {
        let current = strings(&["Porto"]);
        let stale = strings(&["Lisbon"]);
        let judge = |texts: &[&str]| judge_change(&strings(texts), &current, &stale);
        let best = judge(&["unrelated", "We moved to porto", "I live in Lisbon"]);
        assert!(best.latest_first && !best.stale_gone && !best.current_missing);
        let gone = judge(&["We moved to Porto", "unrelated"]);
        assert!(gone.latest_first && gone.stale_gone);
        let stale_first = judge(&["I live in Lisbon", "We moved to Porto"]);
        assert!(
            !stale_first.latest_first && !stale_first.stale_gone && !stale_first.current_missing
        );
        let missing = judge(&["I live in Lisbon"]);
        assert!(!missing.latest_first && !missing.stale_gone && missing.current_missing);
        let nothing = judge(&[]);
        assert!(!nothing.latest_first && !nothing.stale_gone && nothing.current_missing);
    }

    #[test]
    fn the_current_statement_needs_all_its_strings() {
        let current = strings(&["Ana", "team"]);
        let stale = strings(&["Luis"]);
        let partial = judge_change(
            &strings(&["Ana said hi", "Luis leads the team"]),
            &current,
            &stale,
        );
        assert!(!partial.latest_first && partial.current_missing);
    }

    #[test]
    fn a_pair_is_falsely_superseded_when_a_statement_is_lost() {
        let keep = vec![strings(&["Rome"]), strings(&["Norway"])];
        let both = judge_pair(&strings(&["Norway hike", "Rome trip"]), &keep, 0);
        assert_eq!(
            both,
            PairOutcome {
                missing: 0,
                closed: 0,
                false_supersede: false
            }
        );
        let lost = judge_pair(&strings(&["Norway hike"]), &keep, 0);
        assert!(lost.false_supersede && lost.missing == 1);
        let closed = judge_pair(&strings(&["Norway hike", "Rome trip"]), &keep, 1);
        assert!(closed.false_supersede && closed.missing == 0);
    }

    fn result(kind: &str, change: Option<ChangeOutcome>, pair: Option<PairOutcome>) -> ItemResult {
        ItemResult {
            file: "f".into(),
            id: "x".into(),
            kind: kind.into(),
            path: WritePath::Save,
            change,
            stale_closed: change.map(|_| false),
            pair,
            foreign: 0,
            top: Vec::new(),
        }
    }

    #[test]
    fn scores_count_timelines_and_pairs_apart() {
        let good = ChangeOutcome {
            latest_first: true,
            stale_gone: true,
            current_missing: false,
        };
        let bad = ChangeOutcome {
            latest_first: false,
            stale_gone: false,
            current_missing: true,
        };
        let lost = PairOutcome {
            missing: 1,
            closed: 0,
            false_supersede: true,
        };
        let items = [
            result("a", Some(good), None),
            result("a", Some(bad), None),
            result("b", Some(good), None),
            result("p", None, Some(lost)),
        ];
        let all: Vec<&ItemResult> = items.iter().collect();
        let s = scores("all", &all);
        assert_eq!((s.timelines, s.pairs), (3, 1));
        assert_eq!(s.latest_first, Rate::new(2, 3));
        assert_eq!(s.current_missing, Rate::new(1, 3));
        assert_eq!(s.false_supersede, Rate::new(1, 1));
        assert_eq!(s.pair_missing, Rate::new(1, 1));
        assert_eq!(s.pair_closed, Rate::new(0, 1));
        assert!((s.latest_first.percent - 66.666).abs() < 0.01);
        let none = scores("none", &[]);
        assert_eq!(none.latest_first.percent, 0.0);
    }
}
