//! # `hive-mind-lab eval live-loop`: one persona's memory, as an agent writes it
//!
//! The loop hive-mind exists for: an agent saves what it learns (with an
//! importance), the engine learns from exchanges (cognify, no LLM), a few
//! past conversations are imported, over a year and a half of one person's
//! life; then questions of every kind are asked. The data is one JSON object
//! (`live-loop-*.json`, the format in `host/lab/data/README.md`).
//!
//! ## How it runs
//!
//! A fresh mind; the persona's events written in time order, each dated at
//! its `at` ([`live::write_statement`]'s calls: `save-memory` with
//! `created-at` and the importance, `remember-exchange` with `occurred-at`,
//! `import-conversations` of the conversation dated at `at`). For each
//! exchange, what cognify saved is read back: a `facts` entry is **captured**
//! when all its strings appear in one memory saved from that exchange;
//! chit-chat exchanges (`facts: []`) that saved anything are counted apart.
//! Then every question is recalled at `now`, limit 10, and scored
//! ([`score_questions`]):
//!
//! - **answer@k**: the first memory holding all `answer` strings is among
//!   the first `k`; **MRR**: the mean of `1/rank` (0 when not recalled);
//! - **block leads**: the first memory line of the recall block
//!   (`recall.text`, what a model reads) holds the answer;
//! - **unanswerable** questions (no `answer`): the right result is no
//!   memory at all, so their figure is the share that came back **empty**;
//! - the **mean number of memories** a recall returns, and how many
//!   recalls returned more than the limit.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value as Json;

use super::EvalError;
use super::live::{self, Fields, Rate, WritePath, contains_all, malformed, rank_of, shorten};
use super::run::Reranking;
use hive_mind_models::embedder::Embedder;
use hive_mind_runtime::engine::wit_memory::ImportedTurn;
use hive_mind_runtime::engine::wit_types::Importance;
use hive_mind_terminal::Progress;

/// What an event writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The agent saves a memory.
    Save {
        /// Its text.
        text: String,
        /// Its importance (the data's `low` is the engine's `temporary`).
        importance: Importance,
    },
    /// The engine learns from an exchange.
    Exchange {
        /// The user's message.
        user: String,
        /// The assistant's reply.
        assistant: String,
        /// The facts the user states, each as strings one saved memory must
        /// all hold; empty for chit-chat.
        facts: Vec<Vec<String>>,
    },
    /// A past conversation imported verbatim.
    Import {
        /// Its turns.
        turns: Vec<Turn>,
    },
}

/// One turn of an imported conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Who spoke (`user`, `assistant`, a name).
    pub speaker: String,
    /// What was said.
    pub text: String,
}

impl Action {
    /// The write path it takes.
    pub fn path(&self) -> WritePath {
        match self {
            Action::Save { .. } => WritePath::Save,
            Action::Exchange { .. } => WritePath::Cognify,
            Action::Import { .. } => WritePath::Import,
        }
    }

    /// Whether all of `needles` appear in one of its texts.
    fn holds(&self, needles: &[String]) -> bool {
        match self {
            Action::Save { text, .. } => contains_all(text, needles),
            Action::Exchange {
                user, assistant, ..
            } => contains_all(user, needles) || contains_all(assistant, needles),
            Action::Import { turns } => turns.iter().any(|turn| contains_all(&turn.text, needles)),
        }
    }
}

/// One dated event of the persona's memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Its position in the file (`events[N]`).
    pub index: usize,
    /// When it happened (Unix milliseconds).
    pub at: i64,
    /// What it writes.
    pub action: Action,
}

/// The kinds of question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QuestionKind {
    /// No content word shared with the memory.
    Paraphrase,
    /// Shares a distinctive word.
    Keyword,
    /// Names a time, or asks for one.
    Date,
    /// A fact that changed: the newest statement answers.
    Current,
    /// Stated in an exchange.
    Told,
    /// A preference.
    Preference,
    /// Nothing in the memory answers it.
    Unanswerable,
}

impl QuestionKind {
    /// Every kind, in report order.
    pub const ALL: [QuestionKind; 7] = [
        QuestionKind::Paraphrase,
        QuestionKind::Keyword,
        QuestionKind::Date,
        QuestionKind::Current,
        QuestionKind::Told,
        QuestionKind::Preference,
        QuestionKind::Unanswerable,
    ];

    /// Its name in the data and the reports.
    pub fn name(self) -> &'static str {
        match self {
            QuestionKind::Paraphrase => "paraphrase",
            QuestionKind::Keyword => "keyword",
            QuestionKind::Date => "date",
            QuestionKind::Current => "current",
            QuestionKind::Told => "told",
            QuestionKind::Preference => "preference",
            QuestionKind::Unanswerable => "unanswerable",
        }
    }

    fn parse(text: &str) -> Option<QuestionKind> {
        QuestionKind::ALL
            .into_iter()
            .find(|kind| kind.name() == text)
    }
}

/// One question.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Its position in the file (`questions[N]`).
    pub index: usize,
    /// The question.
    pub q: String,
    /// Its kind.
    pub kind: QuestionKind,
    /// Strings one recalled memory must all hold; `None` for unanswerable.
    pub answer: Option<Vec<String>>,
}

/// A live-loop file, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Persona {
    /// The file.
    pub path: PathBuf,
    /// Who the persona is.
    pub persona: String,
    /// When the questions are asked (Unix milliseconds).
    pub now: i64,
    /// The events, in file order.
    pub events: Vec<Event>,
    /// The questions, in file order.
    pub questions: Vec<Question>,
}

impl Persona {
    /// Read and check `path`.
    pub fn load(path: &Path) -> Result<Persona, EvalError> {
        let text = live::read_file(path)?;
        parse(path, &text)
    }
}

/// Parse a live-loop file's text (`path` names it in errors). Every event
/// and question is checked: a malformed one is an error naming the file,
/// its place (`events[12]`) and the field; an answerable question whose
/// answer no event holds, or a fact not in its exchange, is one too.
pub fn parse(path: &Path, text: &str) -> Result<Persona, EvalError> {
    let name = path.display().to_string();
    let value: Json = serde_json::from_str(text).map_err(|source| EvalError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    let fields = Fields::of(&name, "(the file)", &value)?;
    let persona = fields.string("persona")?;
    let now = fields.time("now")?;
    let mut events = Vec::new();
    for (index, raw) in fields.list("events")?.iter().enumerate() {
        let at = format!("{name}: events[{index}]");
        events.push(parse_event(&at, index, raw)?);
    }
    if events.is_empty() {
        return Err(malformed(&name, "events", "is an empty list"));
    }
    if let Some(late) = events.iter().find(|event| event.at > now) {
        return Err(malformed(
            &format!("{name}: events[{}]", late.index),
            "at",
            "is after `now`",
        ));
    }
    let mut questions = Vec::new();
    for (index, raw) in fields.list("questions")?.iter().enumerate() {
        let at = format!("{name}: questions[{index}]");
        let question = parse_question(&at, index, raw)?;
        if let Some(answer) = &question.answer
            && !events.iter().any(|event| event.action.holds(answer))
        {
            return Err(malformed(
                &at,
                "answer",
                &format!("{answer:?}: no event holds all of it"),
            ));
        }
        questions.push(question);
    }
    if questions.is_empty() {
        return Err(malformed(&name, "questions", "is an empty list"));
    }
    Ok(Persona {
        path: path.to_path_buf(),
        persona,
        now,
        events,
        questions,
    })
}

fn parse_event(at: &str, index: usize, raw: &Json) -> Result<Event, EvalError> {
    let fields = Fields::of(at, "(the event)", raw)?;
    let when = fields.time("at")?;
    let present: Vec<&str> = ["save", "exchange", "import"]
        .into_iter()
        .filter(|key| fields.get(key).is_some())
        .collect();
    let action = match present.as_slice() {
        ["save"] => {
            let save = Fields::of(at, "save", fields.required("save")?)?;
            let text = save.string("text").map_err(|e| nested(e, "save"))?;
            let importance = match save
                .optional_string("importance")
                .map_err(|e| nested(e, "save"))?
            {
                None => Importance::Normal,
                Some(name) => live::parse_importance(&name)
                    .map_err(|why| malformed(at, "save.importance", &why))?,
            };
            Action::Save { text, importance }
        }
        ["exchange"] => {
            let exchange = Fields::of(at, "exchange", fields.required("exchange")?)?;
            let user = exchange.string("user").map_err(|e| nested(e, "exchange"))?;
            let assistant = exchange
                .string("assistant")
                .map_err(|e| nested(e, "exchange"))?;
            let mut facts = Vec::new();
            for (n, fact) in fields.list("facts")?.iter().enumerate() {
                let field = format!("facts[{n}]");
                let strings = live::strings_of(at, &field, fact)?;
                if !contains_all(&user, &strings) && !contains_all(&assistant, &strings) {
                    return Err(malformed(
                        at,
                        &field,
                        &format!("{strings:?} is not in the exchange"),
                    ));
                }
                facts.push(strings);
            }
            Action::Exchange {
                user,
                assistant,
                facts,
            }
        }
        ["import"] => {
            let import = Fields::of(at, "import", fields.required("import")?)?;
            let raw_turns = import.list("turns").map_err(|e| nested(e, "import"))?;
            if raw_turns.is_empty() {
                return Err(malformed(at, "import.turns", "is an empty list"));
            }
            let mut turns = Vec::new();
            for (n, raw) in raw_turns.iter().enumerate() {
                let field = format!("import.turns[{n}]");
                let turn = Fields::of(at, &field, raw)?;
                turns.push(Turn {
                    speaker: turn.string("speaker").map_err(|e| nested(e, &field))?,
                    text: turn.string("text").map_err(|e| nested(e, &field))?,
                });
            }
            Action::Import { turns }
        }
        [] => {
            return Err(malformed(
                at,
                "save",
                "an event needs one of save, exchange, import",
            ));
        }
        _ => {
            return Err(malformed(
                at,
                "save",
                &format!("an event has exactly one of save, exchange, import (has {present:?})"),
            ));
        }
    };
    Ok(Event {
        index,
        at: when,
        action,
    })
}

fn parse_question(at: &str, index: usize, raw: &Json) -> Result<Question, EvalError> {
    let fields = Fields::of(at, "(the question)", raw)?;
    let q = fields.string("q")?;
    let kind_name = fields.string("kind")?;
    let kind = QuestionKind::parse(&kind_name).ok_or_else(|| {
        malformed(
            at,
            "kind",
            &format!(
                "{kind_name:?} is not one of {}",
                QuestionKind::ALL.map(QuestionKind::name).join(", ")
            ),
        )
    })?;
    let answer = match (kind, fields.get("answer")) {
        (QuestionKind::Unanswerable, None) => None,
        (QuestionKind::Unanswerable, Some(_)) => {
            return Err(malformed(
                at,
                "answer",
                "an unanswerable question has no answer",
            ));
        }
        (_, _) => Some(fields.strings("answer")?),
    };
    Ok(Question {
        index,
        q,
        kind,
        answer,
    })
}

/// A nested object's field error, named with its parent (`save.text`).
fn nested(error: EvalError, parent: &str) -> EvalError {
    match error {
        EvalError::Malformed { at, field, why } => EvalError::Malformed {
            at,
            field: format!("{parent}.{field}"),
            why,
        },
        other => other,
    }
}

/// How one question went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionResult {
    /// Its position in the file.
    pub index: usize,
    /// The question.
    pub q: String,
    /// Its kind.
    pub kind: QuestionKind,
    /// The 1-based rank of the first memory holding the answer (answerable
    /// questions), if recalled.
    pub rank: Option<usize>,
    /// Memories returned.
    pub returned: usize,
    /// Whether the first memory line of the recall block holds the answer.
    pub leads_block: bool,
    /// The first memory line of the recall block, if any (shortened).
    pub block_first: Option<String>,
    /// Whether the recall failed (judged as returning nothing).
    pub failed: bool,
    /// The first recalled memories (at most three, shortened).
    pub top: Vec<String>,
    /// Why each of them was recalled (the engine's `why`).
    pub top_why: Vec<String>,
    /// The recall's notes (a near miss, a replaced statement left out).
    pub notes: Vec<String>,
}

/// The figures of a group of answerable questions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scores {
    /// The group (`all answerable`, or a kind).
    pub name: String,
    /// Questions.
    pub n: usize,
    /// Answer first.
    pub at1: Rate,
    /// Answer in the top 3.
    pub at3: Rate,
    /// Answer in the top 10.
    pub at10: Rate,
    /// Mean reciprocal rank (0 to 1).
    pub mrr: f64,
    /// The answer leads the recall block.
    pub block_leads: Rate,
}

/// Score a group of answerable questions.
pub fn score_questions(name: &str, results: &[&QuestionResult]) -> Scores {
    let n = results.len();
    let within = |k: usize| {
        Rate::new(
            results
                .iter()
                .filter(|r| r.rank.is_some_and(|rank| rank <= k))
                .count(),
            n,
        )
    };
    // A fold from +0.0: an empty float `sum` is -0.0, printed "-0.000".
    let reciprocal = results
        .iter()
        .filter_map(|r| r.rank)
        .fold(0.0, |sum, rank| sum + 1.0 / rank as f64);
    Scores {
        name: name.to_string(),
        n,
        at1: within(1),
        at3: within(3),
        at10: within(10),
        mrr: if n == 0 { 0.0 } else { reciprocal / n as f64 },
        block_leads: Rate::new(results.iter().filter(|r| r.leads_block).count(), n),
    }
}

/// Which `facts` entries one memory of `saved` holds all the strings of.
pub fn captured_facts(facts: &[Vec<String>], saved: &[String]) -> Vec<bool> {
    facts
        .iter()
        .map(|fact| saved.iter().any(|text| contains_all(text, fact)))
        .collect()
}

/// What the writes did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Writes {
    /// Saves.
    pub saves: usize,
    /// Saves marked important or critical.
    pub important_saves: usize,
    /// Exchanges stating facts.
    pub fact_exchanges: usize,
    /// Chit-chat exchanges (`facts: []`).
    pub chit_chat_exchanges: usize,
    /// Imported conversations.
    pub imports: usize,
    /// Frames the engine reports written, every path.
    pub frames_written: u64,
    /// Frames cognify saved from fact-stating exchanges.
    pub fact_exchange_frames: usize,
    /// Frames cognify saved from chit-chat (ideally 0).
    pub chit_chat_frames: usize,
    /// Chit-chat exchanges that saved anything.
    pub chit_chat_saving: usize,
    /// Writes that failed (see the problems).
    pub failures: usize,
}

/// The outcome of `eval live-loop`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveLoopReport {
    /// The data file.
    pub dataset: String,
    /// Who the persona is.
    pub persona: String,
    /// The embedder, as `provider/model (dim-d)`.
    pub embedder: String,
    /// The reranker, or `off`.
    pub reranker: String,
    /// What the writes did.
    pub writes: Writes,
    /// Facts stated in exchanges that one saved memory holds.
    pub facts_captured: Rate,
    /// The answerable questions together.
    pub overall: Scores,
    /// Per kind (answerable kinds only), in report order.
    pub per_kind: Vec<Scores>,
    /// Unanswerable questions that came back empty.
    pub unanswerable_empty: Rate,
    /// Mean memories a recall returned, every question.
    pub mean_returned: f64,
    /// The most memories one recall returned.
    pub max_returned: usize,
    /// Recalls that returned more memories than the limit.
    pub over_limit: usize,
    /// Recalls that failed.
    pub recall_failures: usize,
    /// Every question.
    pub questions: Vec<QuestionResult>,
    /// Everything that went wrong, with where.
    pub problems: Vec<String>,
}

/// Run the evaluation on `persona` (see the module docs).
/// With `keep`, the mind is built in that folder (new or empty) and kept
/// there, to open with `hive-mind --data-dir`.
pub fn evaluate(
    persona: &Persona,
    embedder: Arc<dyn Embedder>,
    reranking: &Reranking,
    progress: &Progress,
    keep: Option<&Path>,
) -> Result<LiveLoopReport, EvalError> {
    progress.set_total((persona.events.len() + persona.questions.len()) as u64);
    let (_dir, mut engine) = live::engine_in(keep, &embedder, reranking)?;
    let mut order: Vec<&Event> = persona.events.iter().collect();
    order.sort_by_key(|event| event.at);
    let mut writes = Writes::default();
    let mut problems = Vec::new();
    let mut facts_total = 0;
    let mut facts_kept = 0;
    let name = persona.path.display().to_string();
    progress.working_on("writing");
    let started = std::time::Instant::now();
    for event in order {
        progress.advance(1);
        let at = format!("{name}: events[{}]", event.index);
        let written = match &event.action {
            Action::Save { text, importance } => {
                writes.saves += 1;
                if matches!(importance, Importance::Important | Importance::Critical) {
                    writes.important_saves += 1;
                }
                live::write_statement(
                    &mut engine,
                    WritePath::Save,
                    "",
                    event.at,
                    text,
                    *importance,
                )
            }
            Action::Exchange {
                user,
                assistant,
                facts,
            } => {
                let written = live::remember(&mut engine, user, assistant, event.at);
                let saved: Vec<String> = written
                    .as_ref()
                    .map(|w| w.frames.iter().map(|f| f.content.clone()).collect())
                    .unwrap_or_default();
                if facts.is_empty() {
                    writes.chit_chat_exchanges += 1;
                    writes.chit_chat_frames += saved.len();
                    writes.chit_chat_saving += usize::from(!saved.is_empty());
                } else {
                    writes.fact_exchanges += 1;
                    writes.fact_exchange_frames += saved.len();
                    let kept = captured_facts(facts, &saved);
                    facts_total += kept.len();
                    facts_kept += kept.iter().filter(|&&k| k).count();
                    for (fact, kept) in facts.iter().zip(&kept) {
                        if !kept {
                            problems.push(format!("{at}: fact {fact:?} not captured"));
                        }
                    }
                }
                written
            }
            Action::Import { turns } => {
                writes.imports += 1;
                let turns: Vec<ImportedTurn> = turns
                    .iter()
                    .map(|turn| ImportedTurn {
                        speaker: turn.speaker.clone(),
                        text: turn.text.clone(),
                    })
                    .collect();
                live::import(
                    &mut engine,
                    &format!("import-{}", event.index),
                    event.at,
                    &turns,
                )
            }
        };
        match written {
            Ok(written) => writes.frames_written += u64::from(written.new),
            Err(why) => {
                writes.failures += 1;
                problems.push(format!("{at}: {why}"));
            }
        }
    }
    progress.note(&format!(
        "{}: {} events written in {:.1} s",
        name,
        persona.events.len(),
        started.elapsed().as_secs_f64()
    ));
    progress.working_on("asking");
    let started = std::time::Instant::now();
    let mut results = Vec::new();
    let mut recall_failures = 0;
    for question in &persona.questions {
        progress.advance(1);
        let (memories, block, notes, failed) =
            match live::recall(&mut engine, &question.q, persona.now) {
                Ok(recall) => (
                    recall.memories,
                    recall.text,
                    recall.notes.into_iter().map(|note| note.text).collect(),
                    false,
                ),
                Err(why) => {
                    recall_failures += 1;
                    problems.push(format!("{name}: questions[{}]: {why}", question.index));
                    (Vec::new(), String::new(), Vec::new(), true)
                }
            };
        let texts: Vec<String> = memories.iter().map(|m| m.frame.content.clone()).collect();
        let first_line = live::first_block_memory(&block);
        let (rank, leads_block) = match &question.answer {
            Some(answer) => (
                rank_of(&texts, answer),
                first_line.is_some_and(|line| contains_all(line, answer)),
            ),
            None => (None, false),
        };
        results.push(QuestionResult {
            index: question.index,
            q: question.q.clone(),
            kind: question.kind,
            rank,
            returned: texts.len(),
            leads_block,
            block_first: first_line.map(|line| shorten(line, 160)),
            failed,
            top: texts
                .iter()
                .take(3)
                .map(|text| shorten(text, 160))
                .collect(),
            top_why: memories.iter().take(3).map(|m| m.why.clone()).collect(),
            notes,
        });
    }
    progress.note(&format!(
        "{}: {} questions asked in {:.1} s",
        name,
        persona.questions.len(),
        started.elapsed().as_secs_f64()
    ));
    progress.finish();
    Ok(summarise(
        persona,
        embedder.info().to_string(),
        reranking.describe(None),
        writes,
        Rate::new(facts_kept, facts_total),
        results,
        recall_failures,
        problems,
    ))
}

#[allow(clippy::too_many_arguments)]
fn summarise(
    persona: &Persona,
    embedder: String,
    reranker: String,
    writes: Writes,
    facts_captured: Rate,
    results: Vec<QuestionResult>,
    recall_failures: usize,
    problems: Vec<String>,
) -> LiveLoopReport {
    let answerable: Vec<&QuestionResult> = results
        .iter()
        .filter(|r| r.kind != QuestionKind::Unanswerable)
        .collect();
    let mut by_kind: BTreeMap<QuestionKind, Vec<&QuestionResult>> = BTreeMap::new();
    for result in &answerable {
        by_kind.entry(result.kind).or_default().push(result);
    }
    let unanswerable: Vec<&QuestionResult> = results
        .iter()
        .filter(|r| r.kind == QuestionKind::Unanswerable)
        .collect();
    let limit = usize::try_from(live::RECALL_LIMIT).unwrap_or(usize::MAX);
    LiveLoopReport {
        dataset: persona.path.display().to_string(),
        persona: persona.persona.clone(),
        embedder,
        reranker,
        writes,
        facts_captured,
        overall: score_questions("all answerable", &answerable),
        per_kind: by_kind
            .iter()
            .map(|(kind, group)| score_questions(kind.name(), group))
            .collect(),
        unanswerable_empty: Rate::new(
            unanswerable
                .iter()
                .filter(|r| r.returned == 0 && !r.failed)
                .count(),
            unanswerable.len(),
        ),
        mean_returned: live::share(results.iter().map(|r| r.returned).sum(), results.len()),
        max_returned: results.iter().map(|r| r.returned).max().unwrap_or(0),
        over_limit: results.iter().filter(|r| r.returned > limit).count(),
        recall_failures,
        questions: results,
        problems,
    }
}

/// The report as a readable table.
pub fn render(report: &LiveLoopReport) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "Live-loop evaluation: {}", report.dataset);
    let _ = writeln!(text, "persona: {}", report.persona);
    let _ = writeln!(
        text,
        "embedder {}, reranker {}; recall limit {}",
        report.embedder,
        report.reranker,
        live::RECALL_LIMIT
    );
    let w = &report.writes;
    let _ = writeln!(
        text,
        "writes: {} saves ({} important or critical), {} exchanges ({} stating facts, {} chit-chat), {} imports; \
         {} frames written, {} failures",
        w.saves,
        w.important_saves,
        w.fact_exchanges + w.chit_chat_exchanges,
        w.fact_exchanges,
        w.chit_chat_exchanges,
        w.imports,
        w.frames_written,
        w.failures
    );
    let _ = writeln!(
        text,
        "cognify: facts captured {}; {} frames from fact exchanges; chit-chat: {} frames saved, {} of {} exchanges saved something",
        report.facts_captured.text(),
        w.fact_exchange_frames,
        w.chit_chat_frames,
        w.chit_chat_saving,
        w.chit_chat_exchanges
    );
    let _ = writeln!(
        text,
        "\n{:<16}{:>4}{:>18}{:>18}{:>18}{:>7}{:>18}",
        "kind", "n", "answer@1", "answer@3", "answer@10", "MRR", "leads block"
    );
    for scores in report
        .per_kind
        .iter()
        .chain(std::iter::once(&report.overall))
    {
        let _ = writeln!(
            text,
            "{:<16}{:>4}{:>18}{:>18}{:>18}{:>7.3}{:>18}",
            scores.name,
            scores.n,
            scores.at1.text(),
            scores.at3.text(),
            scores.at10.text(),
            scores.mrr,
            scores.block_leads.text()
        );
    }
    let _ = writeln!(
        text,
        "\nunanswerable questions answered with no memory: {}",
        report.unanswerable_empty.text()
    );
    let _ = writeln!(
        text,
        "memories per recall: mean {:.1}, max {}; {} recalls over the limit; {} recalls failed",
        report.mean_returned, report.max_returned, report.over_limit, report.recall_failures
    );
    let _ = writeln!(
        text,
        "(answer@k: the first memory holding every answer string is among the first k; leads block: the \
         first memory line of the recall block holds it)"
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(ToString::to_string).collect()
    }

    fn tiny() -> serde_json::Value {
        serde_json::json!({
            "persona": "Maya",
            "now": "2026-06-01T12:00:00Z",
            "events": [
                {"at": "2025-01-10T09:00:00Z", "save": {"text": "Invoices live in PostgreSQL.", "importance": "normal"}},
                {"at": "2025-03-02T20:00:00Z", "exchange": {"user": "My brother Karim lives in Rotterdam.", "assistant": "Got it."}, "facts": [["Karim", "Rotterdam"]]},
                {"at": "2025-03-05T20:00:00Z", "exchange": {"user": "thanks!", "assistant": "You're welcome!"}, "facts": []},
                {"at": "2025-04-01T10:00:00Z", "import": {"turns": [{"speaker": "user", "text": "We booked Kyoto."}]}}
            ],
            "questions": [
                {"q": "Which database?", "kind": "keyword", "answer": ["PostgreSQL"]},
                {"q": "What is my cat's name?", "kind": "unanswerable"}
            ]
        })
    }

    fn parse_value(value: &serde_json::Value) -> Result<Persona, EvalError> {
        parse(Path::new("p.json"), &value.to_string())
    }

    #[test]
    fn a_good_file_parses() {
        let persona = parse_value(&tiny()).unwrap();
        assert_eq!(persona.events.len(), 4);
        assert_eq!(persona.events[0].action.path(), WritePath::Save);
        assert_eq!(
            persona.events[1].action,
            Action::Exchange {
                user: "My brother Karim lives in Rotterdam.".into(),
                assistant: "Got it.".into(),
                facts: vec![strings(&["Karim", "Rotterdam"])]
            }
        );
        assert_eq!(persona.events[3].action.path(), WritePath::Import);
        assert_eq!(persona.questions[1].kind, QuestionKind::Unanswerable);
        assert_eq!(persona.questions[1].answer, None);
    }

    #[test]
    fn a_bad_event_or_question_names_its_place_and_field() {
        let with = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut value = tiny();
            edit(&mut value);
            parse_value(&value).unwrap_err().to_string()
        };
        let e = with(&|v| v["events"][0]["save"]["importance"] = "urgent".into());
        assert!(e.starts_with("p.json: events[0]: `save.importance`"), "{e}");
        let e = with(&|v| v["events"][0]["save"]["text"] = 3.into());
        assert!(
            e.contains("events[0]: `save.text`: expected a string"),
            "{e}"
        );
        let e = with(&|v| v["events"][1]["facts"] = serde_json::json!([["Karim", "Utrecht"]]));
        assert!(
            e.contains("events[1]: `facts[0]`") && e.contains("not in the exchange"),
            "{e}"
        );
        let e = with(&|v| v["events"][1]["at"] = "2027-01-01T00:00:00Z".into());
        assert!(e.contains("events[1]: `at`: is after `now`"), "{e}");
        let e = with(&|v| v["events"][2]["save"] = serde_json::json!({"text": "x"}));
        assert!(
            e.contains("events[2]") && e.contains("exactly one of"),
            "{e}"
        );
        let e = with(&|v| v["events"][3]["import"]["turns"][0]["speaker"] = "".into());
        assert!(e.contains("`import.turns[0].speaker`: is blank"), "{e}");
        let e = with(&|v| v["questions"][0]["kind"] = "trivia".into());
        assert!(
            e.contains("questions[0]: `kind`") && e.contains("paraphrase"),
            "{e}"
        );
        let e = with(&|v| v["questions"][0]["answer"] = serde_json::json!(["MySQL"]));
        assert!(
            e.contains("questions[0]: `answer`") && e.contains("no event"),
            "{e}"
        );
        let e = with(&|v| v["questions"][1]["answer"] = serde_json::json!(["x"]));
        assert!(e.contains("questions[1]: `answer`: an unanswerable"), "{e}");
        let e = with(&|v| {
            v["questions"][0].as_object_mut().unwrap().remove("answer");
        });
        assert!(e.contains("questions[0]: `answer`: missing"), "{e}");
        let e = parse(Path::new("p.json"), "{").unwrap_err().to_string();
        assert!(e.contains("p.json is not valid JSON"), "{e}");
    }

    fn result(kind: QuestionKind, rank: Option<usize>, leads: bool) -> QuestionResult {
        QuestionResult {
            index: 0,
            q: String::new(),
            kind,
            rank,
            returned: 10,
            leads_block: leads,
            block_first: None,
            failed: false,
            top: Vec::new(),
            top_why: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn answer_at_k_and_mrr() {
        let results = [
            result(QuestionKind::Keyword, Some(1), true),
            result(QuestionKind::Keyword, Some(2), false),
            result(QuestionKind::Date, Some(5), false),
            result(QuestionKind::Date, None, false),
        ];
        let all: Vec<&QuestionResult> = results.iter().collect();
        let s = score_questions("all", &all);
        assert_eq!(s.n, 4);
        assert_eq!(s.at1, Rate::new(1, 4));
        assert_eq!(s.at3, Rate::new(2, 4));
        assert_eq!(s.at10, Rate::new(3, 4));
        assert!((s.mrr - (1.0 + 0.5 + 0.2) / 4.0).abs() < 1e-9, "{}", s.mrr);
        assert_eq!(s.block_leads, Rate::new(1, 4));
        let empty = score_questions("none", &[]);
        assert_eq!((empty.n, empty.mrr), (0, 0.0));
        let missed = [result(QuestionKind::Told, None, false)];
        let missed: Vec<&QuestionResult> = missed.iter().collect();
        let table_mrr = format!("{:.3}", score_questions("told", &missed).mrr);
        assert_eq!(table_mrr, "0.000", "never printed as -0.000");
    }

    #[test]
    fn a_fact_is_captured_only_whole_in_one_memory() {
        let facts = vec![strings(&["Karim", "Rotterdam"]), strings(&["Yasmin"])];
        assert_eq!(
            captured_facts(&facts, &strings(&["Karim lives in rotterdam"])),
            vec![true, false]
        );
        assert_eq!(
            captured_facts(&facts, &strings(&["Karim", "Rotterdam"])),
            vec![false, false],
            "split over two memories is not captured"
        );
        assert_eq!(captured_facts(&facts, &[]), vec![false, false]);
    }

    #[test]
    fn the_summary_counts_empty_unanswerables_and_returns() {
        let persona = parse_value(&tiny()).unwrap();
        let mut empty = result(QuestionKind::Unanswerable, None, false);
        empty.returned = 0;
        let mut crowded = result(QuestionKind::Unanswerable, None, false);
        crowded.returned = 12;
        let report = summarise(
            &persona,
            "mock".into(),
            "off".into(),
            Writes::default(),
            Rate::new(1, 1),
            vec![result(QuestionKind::Keyword, Some(1), true), empty, crowded],
            0,
            Vec::new(),
        );
        assert_eq!(report.unanswerable_empty, Rate::new(1, 2));
        assert_eq!(report.overall.n, 1);
        assert_eq!(report.per_kind.len(), 1);
        assert_eq!(report.max_returned, 12);
        assert_eq!(report.over_limit, 1);
        assert!((report.mean_returned - 22.0 / 3.0).abs() < 1e-9);
        let table = render(&report);
        assert!(
            table.contains("answer@1") && table.contains("1/2 (50.0 %)"),
            "{table}"
        );
    }
}
