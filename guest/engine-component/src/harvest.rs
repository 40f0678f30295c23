//! `harvest`: importing a person's history (design §3b).
//!
//! ```text
//! bytes / URL ─▶ adapter (detect by content, parse in the sandbox) ─▶ items
//!   ─▶ known? (item hash already done in this mind: skipped)
//!   ─▶ pass 0: the injection detector reads the whole item, title and headings
//!      included, in its windows; a hostile item is not distilled (its verbatim
//!      text is still written, and the store's screening quarantines what is
//!      hostile in it: kept for its owner to review, never recalled)
//!   ─▶ pass 1: classify (LLM fast tier, 20 a prompt; or heuristic) — `skip` items keep
//!              only their raw turns
//!   ─▶ pass 2–3: extract + synthesize (LLM capable tier; or the heuristic distillation)
//!   ─▶ pass 4: dedup against the mind's lanes (exact, trigram ≥ 0.75; possible
//!              contradictions noted and still written) and against what other paths
//!              stored (`cognify::held_by`: a turn cognified when it ended is not
//!              imported again as a fact); the detector again on each extraction
//!              (a hostile one is dropped: its source text is kept)
//!   ─▶ write, one transaction per item: raw turns / document sections, the fact,
//!      event and profile lanes (a profile merges into and replaces its
//!      predecessor), entities and relations, the model calls, the item's record
//! ```
//!
//! [`Job::start`] does the reading (parse, identify, scan) and nothing
//! else; [`Job::step`] does the work a few items at a time so the host can
//! show progress. Because every item commits alone together with its
//! `harvest_items` record, a killed import run again does exactly the items
//! that are not done, and an unchanged export writes nothing.
//!
//! The pure decisions — formats, classification, distillation, prompts and
//! answer validation — are `hive-mind-harvest`'s; dedup is
//! [`hive_mind_core::DedupIndex`]; this module is the I/O between them.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};

use hive_mind_core::cognify::accept_entity_name;
use hive_mind_core::{DedupIndex, DedupVerdict, raw_turn_content, reply_context};
use hive_mind_harvest::distill::llm::{self as prompts, AnswerError, Prompt};
use hive_mind_harvest::distill::{Classification, Distilled, Knowledge, Target, Value, heuristic};
use hive_mind_harvest::sources::{item_hash, set_hash};
use hive_mind_harvest::{Item, ItemKind, ParseError, Role, SourceFormat, parse_input};
use hive_mind_store::StoreError;
use hive_mind_store::audit::AiInteraction;
use hive_mind_store::harvest::{EntityWrite, ItemCommit, ItemOutcome, RelationWrite};

use crate::boundary;
use crate::exports::hive::mind::harvest::{
    Distillation, Error, Exchange, HarvestSource, ImportOptions, ImportReport, Input, LaneCounts,
    Progress, SourceReport,
};
use crate::hive::mind::types::{Importance, Mind, Source};
use crate::hive::mind::{fetch, llm};
use crate::save::{Draft, embed_drafts};
use crate::store;

/// Items a classification prompt carries (the design's batch of 20): the
/// harvest crate's, whose prompt is built for it.
pub const CLASSIFY_BATCH: usize = hive_mind_harvest::distill::llm::MAX_CLASSIFY_BATCH;

/// Notes kept in a report; beyond this they are counted, not listed (a
/// large export must not grow the report without bound).
pub const MAX_NOTES: usize = 200;

/// The most statements a profile frame keeps (newest kept): a profile is a
/// summary read on every recall, not a log.
pub const PROFILE_MAX_STATEMENTS: usize = 40;

/// Tokens a classification answer may use (20 items × a short object).
const CLASSIFY_MAX_TOKENS: u32 = 1200;

/// One input's item waiting to be processed.
struct Pending {
    source: usize,
    item: Item,
    hash: String,
    hostile: Option<String>,
}

/// An input as the job keeps it.
struct SourceState {
    report: SourceReport,
    /// Its `harvest_sources` row, once its first item is committed.
    id: Option<u64>,
    /// What that row records (format, name, set hash, items), written with
    /// the first commit: an import that fails before writing anything
    /// leaves no trace of the source.
    record: Option<(SourceFormat, String, String, u32)>,
}

/// How the job distills right now (`auto` resolves on the first LLM call).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Llm,
    Heuristic,
}

/// The mind's distilled lanes, as pass 4 and the profile merge see them.
#[derive(Default)]
struct Lanes {
    dedup: DedupIndex,
    /// Profile frames by lower-cased name: id and content.
    profiles: HashMap<String, (u64, String)>,
}

/// A running import (the WIT `import-job` resource).
pub struct Job {
    state: RefCell<State>,
}

struct State {
    mind: Mind,
    requested: Distillation,
    mode: Mode,
    dry_run: bool,
    sources: Vec<SourceState>,
    pending: VecDeque<Pending>,
    total: u32,
    done: u32,
    dropped: u32,
    lanes: Lanes,
    report: ImportReport,
    notes_left_out: u32,
}

fn parse_error(error: ParseError) -> Error {
    match error {
        ParseError::Unrecognised(why) => Error::Unrecognised(why),
        ParseError::Malformed { .. } => Error::Malformed(error.to_string()),
        ParseError::TooLarge(why) => Error::TooLarge(why),
    }
}

fn storage(error: StoreError) -> Error {
    Error::Storage(store::storage_error(&error))
}

fn format_in(format: crate::exports::hive::mind::harvest::SourceFormat) -> SourceFormat {
    use crate::exports::hive::mind::harvest::SourceFormat as Wit;
    match format {
        Wit::Chatgpt => SourceFormat::Chatgpt,
        Wit::Claude => SourceFormat::Claude,
        Wit::Gemini => SourceFormat::Gemini,
        Wit::Perplexity => SourceFormat::Perplexity,
        Wit::ClaudeCode => SourceFormat::ClaudeCode,
        Wit::Markdown => SourceFormat::Markdown,
        Wit::PlainText => SourceFormat::PlainText,
        Wit::Pdf => SourceFormat::Pdf,
        Wit::Html => SourceFormat::Html,
        Wit::Universal => SourceFormat::Universal,
    }
}

fn format_out(format: SourceFormat) -> crate::exports::hive::mind::harvest::SourceFormat {
    use crate::exports::hive::mind::harvest::SourceFormat as Wit;
    match format {
        SourceFormat::Chatgpt => Wit::Chatgpt,
        SourceFormat::Claude => Wit::Claude,
        SourceFormat::Gemini => Wit::Gemini,
        SourceFormat::Perplexity => Wit::Perplexity,
        SourceFormat::ClaudeCode => Wit::ClaudeCode,
        SourceFormat::Markdown => Wit::Markdown,
        SourceFormat::PlainText => Wit::PlainText,
        SourceFormat::Pdf => Wit::Pdf,
        SourceFormat::Html => Wit::Html,
        SourceFormat::Universal => Wit::Universal,
    }
}

/// Read one input: fetch a URL (through the host's guarded `fetch`), then
/// parse. A URL's content type may say HTML or PDF when the content does
/// not (detection by content still decides everything else).
fn read_input(
    input: Input,
    hint: Option<SourceFormat>,
) -> (String, Result<hive_mind_harvest::Parsed, Error>) {
    match input {
        Input::Document(document) => {
            let parsed = parse_input(&document.name, &document.bytes, hint)
                .map_err(|error| named(&document.name, parse_error(error)));
            (document.name, parsed)
        }
        Input::Url(url) => match fetch::get(&url) {
            Ok(response) => {
                let typed = response
                    .content_type
                    .as_deref()
                    .map(str::to_ascii_lowercase);
                let hint = hint.or(match typed.as_deref() {
                    Some(kind) if kind.starts_with("text/html") => Some(SourceFormat::Html),
                    Some(kind) if kind.starts_with("application/pdf") => Some(SourceFormat::Pdf),
                    _ => None,
                });
                let parsed = parse_input(&response.url, &response.body, hint)
                    .map(|mut parsed| {
                        // A page is known by its address: fetched again with
                        // new content, it is the same item, grown.
                        if let [item] = parsed.items.as_mut_slice() {
                            item.id = url.clone();
                        }
                        parsed
                    })
                    .map_err(|error| named(&url, parse_error(error)));
                (url, parsed)
            }
            Err(error) => (url.clone(), Err(Error::Fetch(fetch_error(&url, error)))),
        },
    }
}

/// An input's error, its message starting with the input's name (so a
/// report of many files says which one failed).
fn named(name: &str, error: Error) -> Error {
    let name_it = |message: String| {
        if message.contains(name) {
            message
        } else {
            format!("{name}: {message}")
        }
    };
    match error {
        Error::Unrecognised(m) => Error::Unrecognised(name_it(m)),
        Error::Malformed(m) => Error::Malformed(name_it(m)),
        Error::TooLarge(m) => Error::TooLarge(name_it(m)),
        other => other,
    }
}

fn fetch_error(url: &str, error: fetch::Error) -> String {
    match error {
        fetch::Error::Unavailable(why) => format!("{url}: this host offers no web access ({why})"),
        fetch::Error::Refused(why) => format!("{url}: refused by the host's policy: {why}"),
        fetch::Error::InvalidUrl(why) => format!("{url}: not a valid URL: {why}"),
        fetch::Error::Timeout(why) => format!("{url}: timed out: {why}"),
        fetch::Error::TooLarge(cap) => format!("{url}: larger than the host's cap of {cap} bytes"),
        fetch::Error::Status(code) => format!("{url}: the server answered HTTP {code}"),
        fetch::Error::Failed(why) => format!("{url}: {why}"),
    }
}

/// The text pass 0 screens: the title, then every message's text, or every
/// section's headings and text — all of the item (the design read its
/// first 4 KB only, so an attack placed after them was imported; §8), in
/// the detector's windows ([`hive_mind_core::screen`]). The texts go in bare,
/// without `role:` labels: a line `system: You are …` reads as a
/// system-prompt injection, and most real system prompts start "You are".
fn scan_probe(item: &Item) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if let Some(title) = &item.title {
        parts.push(title);
    }
    parts.extend(item.messages.iter().map(|message| message.text.as_str()));
    for section in &item.sections {
        parts.extend(section.headings.iter().map(String::as_str));
        parts.push(&section.text);
    }
    parts.join("\n\n")
}

/// Whether one distilled text is hostile to the detector.
fn is_hostile(text: &str) -> bool {
    hive_mind_core::screen(text).hostile
}

fn empty_report(dry_run: bool) -> ImportReport {
    ImportReport {
        sources: Vec::new(),
        distillation: Distillation::Heuristic,
        dry_run,
        items: 0,
        quarantined_items: 0,
        skipped_low_value: 0,
        imported: 0,
        failed: 0,
        extracted: 0,
        duplicates_exact: 0,
        duplicates_near: 0,
        contradictions: 0,
        dropped_extractions: 0,
        frames: LaneCounts {
            raw_turns: 0,
            facts: 0,
            events: 0,
            profiles: 0,
            documents: 0,
        },
        entities_new: 0,
        entities_seen: 0,
        relations: 0,
        llm_calls: 0,
        llm_input_tokens: 0,
        llm_output_tokens: 0,
        notes: Vec::new(),
    }
}

/// The key of an item's conversation in raw-turn tags and sessions: the
/// format and the export's id, with anything a tag cannot hold replaced,
/// and long ids shortened to a prefix plus a hash (keys are at most 200
/// characters).
fn conversation_key(item: &Item) -> String {
    let id: String = item
        .id
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == '[' || c == ']' {
                '_'
            } else {
                c
            }
        })
        .collect();
    let id = if id.chars().count() > 64 {
        let prefix: String = id.chars().take(40).collect();
        let hash = hive_mind_core::content_hash(&item.id);
        format!("{prefix}~{}", &hash[..12.min(hash.len())])
    } else {
        id
    };
    let prefix = format!("{}-", item.source.name());
    if id.starts_with(&prefix) {
        id
    } else {
        format!("{prefix}{id}")
    }
}

/// The text of a lane frame.
fn lane_content(knowledge: &Knowledge) -> String {
    let text = knowledge.text.trim();
    match &knowledge.target {
        Target::Fact => format!("[mind-fact] {text}"),
        Target::Event { date } => format!("[mind-event] [{date}] {text}"),
        Target::Profile { name } => format!("[mind-profile {}] {text}", profile_name(name)),
    }
}

/// A profile name as its tag holds it (no brackets, single spaces).
fn profile_name(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['[', ']'], "")
}

/// The statements of a profile frame's body (one a line).
fn profile_statements(content: &str) -> Vec<String> {
    let body = match content.find(']') {
        Some(end) if content.starts_with("[mind-profile") => &content[end + 1..],
        _ => content,
    };
    body.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}

impl Lanes {
    fn load(mind: &Mind) -> Result<Lanes, Error> {
        let frames = match store::read(mind, |store| store.lane_frames()) {
            Ok(frames) => frames,
            Err(StoreError::MindNotFound(_)) => Vec::new(),
            Err(error) => return Err(storage(error)),
        };
        let mut lanes = Lanes::default();
        for (id, content) in frames {
            lanes.remember(id, &content);
        }
        Ok(lanes)
    }

    fn remember(&mut self, id: u64, content: &str) {
        if let Some(rest) = content.strip_prefix("[mind-profile ") {
            if let Some(end) = rest.find(']') {
                let name = rest[..end].trim().to_lowercase();
                self.profiles.insert(name, (id, content.to_string()));
            }
        } else {
            self.dedup.insert(content);
        }
    }
}

impl Job {
    /// `harvest.import-job.start`.
    pub fn start(inputs: Vec<Input>, options: ImportOptions) -> Result<Job, Error> {
        if inputs.is_empty() {
            return Err(Error::InvalidArgument(
                "nothing to import: no inputs".to_string(),
            ));
        }
        let hint = options.source.map(format_in);
        let mut state = State {
            mind: options.mind.clone(),
            requested: options.distillation,
            mode: match options.distillation {
                Distillation::Heuristic => Mode::Heuristic,
                Distillation::Auto | Distillation::Llm => Mode::Llm,
            },
            dry_run: options.dry_run,
            sources: Vec::new(),
            pending: VecDeque::new(),
            total: 0,
            done: 0,
            dropped: 0,
            lanes: Lanes::default(),
            report: empty_report(options.dry_run),
            notes_left_out: 0,
        };
        let mut first_error = None;
        let mut parsed_any = false;
        for input in inputs {
            let (name, parsed) = read_input(input, hint);
            match parsed {
                Ok(parsed) => {
                    parsed_any = true;
                    state.add_source(name, parsed)?;
                }
                Err(error) => {
                    state.sources.push(SourceState {
                        report: SourceReport {
                            name,
                            format: None,
                            items: 0,
                            known: 0,
                            unchanged: false,
                            error: Some(error.clone()),
                            notes: Vec::new(),
                        },
                        id: None,
                        record: None,
                    });
                    first_error.get_or_insert(error);
                }
            }
        }
        if !parsed_any {
            return Err(first_error
                .unwrap_or_else(|| Error::InvalidArgument("nothing could be read".to_string())));
        }
        state.lanes = Lanes::load(&state.mind)?;
        state.total = u32::try_from(state.pending.len()).unwrap_or(u32::MAX);
        Ok(Job {
            state: RefCell::new(state),
        })
    }

    /// `harvest.import-job.step`.
    pub fn step(&self, max_items: u32) -> Result<Progress, Error> {
        if max_items == 0 {
            return Err(Error::InvalidArgument(
                "a step of 0 items does nothing".to_string(),
            ));
        }
        let mut state = self.state.borrow_mut();
        let take = usize::try_from(max_items)
            .unwrap_or(usize::MAX)
            .min(state.pending.len());
        let batch: Vec<Pending> = state.pending.drain(..take).collect();
        if !batch.is_empty() {
            state.process(batch)?;
        }
        Ok(state.progress())
    }

    /// `harvest.import-job.report`.
    pub fn report(&self) -> ImportReport {
        let state = self.state.borrow();
        let mut report = state.report.clone();
        report.sources = state
            .sources
            .iter()
            .map(|source| source.report.clone())
            .collect();
        let distilled = state.report.imported + state.report.failed > 0;
        report.distillation = match state.mode {
            Mode::Heuristic => Distillation::Heuristic,
            // Auto that never had to distill has not found out.
            Mode::Llm if !distilled && state.requested == Distillation::Auto => Distillation::Auto,
            Mode::Llm => Distillation::Llm,
        };
        if state.notes_left_out > 0 {
            report
                .notes
                .push(format!("… and {} more notes", state.notes_left_out));
        }
        report
    }
}

impl State {
    fn note(&mut self, note: String) {
        if self.report.notes.len() < MAX_NOTES {
            self.report.notes.push(note);
        } else {
            self.notes_left_out += 1;
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            items_total: self.total,
            items_done: self.done,
            frames: self.report.frames.raw_turns
                + self.report.frames.facts
                + self.report.frames.events
                + self.report.frames.profiles
                + self.report.frames.documents,
            dropped: self.dropped,
            finished: self.pending.is_empty(),
        }
    }

    /// Identify a parsed input's items, skip the done ones, scan the rest.
    fn add_source(&mut self, name: String, parsed: hive_mind_harvest::Parsed) -> Result<(), Error> {
        let format = parsed.format;
        let hashes: Vec<String> = parsed.items.iter().map(item_hash).collect();
        let done = match store::read(&self.mind, |store| {
            store.harvest_done_items(format.name(), &hashes)
        }) {
            Ok(done) => done,
            Err(StoreError::MindNotFound(_)) => Default::default(),
            Err(error) => return Err(storage(error)),
        };
        let items = u32::try_from(parsed.items.len()).unwrap_or(u32::MAX);
        let known = u32::try_from(hashes.iter().filter(|hash| done.contains(*hash)).count())
            .unwrap_or(u32::MAX);
        let unchanged = items > 0 && known == items;
        let source = self.sources.len();
        let record = (!self.dry_run && !unchanged).then(|| {
            let set = set_hash(hashes.iter().map(String::as_str));
            (format, name.clone(), set, items)
        });
        let mut notes = parsed.notes;
        if unchanged {
            notes.push("imported before, unchanged: nothing to do".to_string());
        }
        self.report.items += items;
        for (item, hash) in parsed.items.into_iter().zip(hashes) {
            if done.contains(&hash) {
                continue;
            }
            let screening = hive_mind_core::screen(&scan_probe(&item));
            let hostile = screening.hostile.then(|| {
                format!(
                    "score {:.3}; {}",
                    screening.score,
                    screening.reasons.join(", ")
                )
            });
            self.pending.push_back(Pending {
                source,
                item,
                hash,
                hostile,
            });
        }
        self.sources.push(SourceState {
            report: SourceReport {
                name,
                format: Some(format_out(format)),
                items,
                known,
                unchanged,
                error: None,
                notes,
            },
            id: None,
            record,
        });
        Ok(())
    }

    /// The `harvest_sources` row of input `source`, written now if this is
    /// its first commit.
    fn source_id(&mut self, source: usize) -> Result<Option<u64>, Error> {
        let mind = self.mind.clone();
        let Some(state) = self.sources.get_mut(source) else {
            return Ok(None);
        };
        if state.id.is_none()
            && let Some((format, name, set, items)) = state.record.take()
        {
            state.id = Some(
                store::write(&mind, |store| {
                    store.harvest_source_upsert(format.name(), &name, &set, items)
                })
                .map_err(storage)?,
            );
        }
        Ok(state.id)
    }

    /// Passes 1–4 and the writes for a batch of items.
    fn process(&mut self, batch: Vec<Pending>) -> Result<(), Error> {
        let mut work: Vec<Pending> = Vec::with_capacity(batch.len());
        for pending in batch {
            if let Some(reasons) = &pending.hostile {
                self.report.quarantined_items += 1;
                let title = pending
                    .item
                    .title
                    .clone()
                    .unwrap_or_else(|| pending.item.id.clone());
                self.note(format!(
                    "quarantined {:?} ({}): the injection detector found it hostile ({reasons}); its text is kept for review, never recalled, and nothing is distilled from it",
                    title,
                    pending.item.source.name()
                ));
            }
            work.push(pending);
        }
        if work.is_empty() {
            return Ok(());
        }
        // Pass 1.
        let mut calls: Vec<Vec<AiInteraction>> = vec![Vec::new(); work.len()];
        let classes = self.classify(&work, &mut calls)?;
        // Passes 2–3.
        let mut distilled: Vec<Option<Distilled>> = Vec::with_capacity(work.len());
        let mut failed: Vec<bool> = vec![false; work.len()];
        // A hostile item is never distilled: an extraction could launder
        // its instructions into a fact.
        let worth: Vec<usize> = (0..work.len())
            .filter(|index| classes[*index].value != Value::Skip && work[*index].hostile.is_none())
            .collect();
        distilled.resize_with(work.len(), || None);
        match self.mode {
            Mode::Heuristic => {
                for &index in &worth {
                    distilled[index] = Some(heuristic::distill(&work[index].item));
                }
            }
            Mode::Llm => {
                let results = self.distill_llm(&work, &worth, &mut calls)?;
                for (index, result) in worth.iter().copied().zip(results) {
                    match result {
                        Ok(done) => distilled[index] = Some(done),
                        Err(why) => {
                            failed[index] = true;
                            let title = work[index].item.title.clone().unwrap_or_default();
                            self.note(format!(
                                "item {} {title:?}: distillation skipped ({why}); its raw turns are kept",
                                work[index].item.id
                            ));
                        }
                    }
                }
            }
        }
        // Pass 4 and the drafts.
        let mut plans = Vec::with_capacity(work.len());
        for (index, pending) in work.iter().enumerate() {
            let class = &classes[index];
            let outcome = if pending.hostile.is_some() {
                ItemOutcome::Hostile
            } else if failed[index] {
                ItemOutcome::Failed
            } else if class.value == Value::Skip {
                ItemOutcome::Skipped
            } else {
                ItemOutcome::Imported
            };
            plans.push(self.plan_item(pending, class, distilled[index].take(), outcome));
        }
        // Embed the whole batch at once (the embedder is most efficient on
        // large batches), then commit item by item.
        if self.dry_run {
            for (pending, plan) in work.iter().zip(&plans) {
                self.count_plan(plan, None);
                self.finish_item(pending, plan.outcome);
            }
            return Ok(());
        }
        self.ensure_sessions(&plans)?;
        let counts: Vec<usize> = plans.iter().map(|plan| plan.drafts.len()).collect();
        let drafts: Vec<Draft> = plans
            .iter_mut()
            .flat_map(|plan| std::mem::take(&mut plan.drafts))
            .collect();
        let frames = embed_drafts(drafts).map_err(|error| match error {
            crate::exports::hive::mind::memory::Error::Embedder(why) => Error::Embedder(why),
            crate::exports::hive::mind::memory::Error::Storage(error) => Error::Storage(error),
            other => Error::Embedder(format!("{other:?}")),
        })?;
        let mut frames = frames.into_iter();
        for ((pending, mut plan), (count, calls)) in
            work.iter().zip(plans).zip(counts.into_iter().zip(calls))
        {
            let native: Vec<_> = frames.by_ref().take(count).collect();
            let commit = ItemCommit {
                source_id: self.source_id(pending.source)?,
                format: pending.item.source.name().to_string(),
                item_id: pending.item.id.clone(),
                item_hash: pending.hash.clone(),
                outcome: plan.outcome,
                replaces: plan
                    .profiles
                    .iter()
                    .map(|(name, id)| match id {
                        0 => self.lanes.profiles.get(name).map_or(0, |(id, _)| *id),
                        id => *id,
                    })
                    .filter(|id| *id != 0)
                    .collect(),
                frames: native,
                entities: std::mem::take(&mut plan.entities),
                relations: std::mem::take(&mut plan.relations),
                interactions: calls,
            };
            let committed =
                store::write(&self.mind, |store| store.harvest_commit(&commit)).map_err(storage)?;
            let written: Vec<crate::change::Written<'_>> = committed
                .saved
                .iter()
                .zip(&commit.frames)
                .filter(|(saved, _)| !saved.duplicate)
                .filter_map(|(saved, frame)| {
                    Some(crate::change::Written {
                        id: saved.frame.frame_ref.id,
                        vector: frame.embedding.as_deref()?,
                        content: &saved.frame.content,
                    })
                })
                .collect();
            crate::change::settle(&self.mind, &written);
            for (saved, kind) in committed.saved.iter().zip(&plan.kinds) {
                if !saved.duplicate && *kind == FrameKind::Profile {
                    self.lanes
                        .remember(saved.frame.frame_ref.id, &saved.frame.content);
                }
            }
            self.report.entities_new += committed.entities_new;
            self.report.entities_seen += committed.entities_seen;
            self.report.relations += committed.relations;
            self.count_plan(&plan, Some(&committed.saved));
            self.finish_item(pending, plan.outcome);
        }
        Ok(())
    }

    fn finish_item(&mut self, _pending: &Pending, outcome: ItemOutcome) {
        self.done += 1;
        match outcome {
            ItemOutcome::Imported => self.report.imported += 1,
            ItemOutcome::Skipped => {
                self.report.skipped_low_value += 1;
                self.dropped += 1;
            }
            ItemOutcome::Failed => self.report.failed += 1,
            ItemOutcome::Hostile => {}
        }
    }

    /// Count what a plan wrote (or, in a dry run, would write).
    fn count_plan(&mut self, plan: &ItemPlan, saved: Option<&[hive_mind_store::SavedFrame]>) {
        for (index, kind) in plan.kinds.iter().enumerate() {
            let duplicate = saved
                .and_then(|saved| saved.get(index))
                .is_some_and(|frame| frame.duplicate);
            if duplicate {
                continue;
            }
            let counts = &mut self.report.frames;
            match kind {
                FrameKind::RawTurn => counts.raw_turns += 1,
                FrameKind::Fact => counts.facts += 1,
                FrameKind::Event => counts.events += 1,
                FrameKind::Profile => counts.profiles += 1,
                FrameKind::Document => counts.documents += 1,
            }
        }
        if saved.is_none() {
            self.report.entities_new += u32::try_from(plan.entities.len()).unwrap_or(u32::MAX);
            self.report.relations += u32::try_from(plan.relations.len()).unwrap_or(u32::MAX);
        }
    }

    fn ensure_sessions(&self, plans: &[ItemPlan]) -> Result<(), Error> {
        let mut seen: Vec<&str> = Vec::new();
        for plan in plans {
            for draft in &plan.drafts {
                if let Some(gop) = draft.gop_id.as_deref()
                    && !seen.contains(&gop)
                {
                    // The item's title names its own session only, not the
                    // shared `harvest:<source>` one its distilled facts go to.
                    let title = plan
                        .title
                        .as_deref()
                        .filter(|_| gop.starts_with("conv:") || gop.starts_with("doc:"));
                    store::ensure_session(&self.mind, gop, None, title).map_err(storage)?;
                    seen.push(gop);
                }
            }
        }
        Ok(())
    }

    // ---- pass 1 -----------------------------------------------------------

    fn classify(
        &mut self,
        work: &[Pending],
        calls: &mut [Vec<AiInteraction>],
    ) -> Result<Vec<Classification>, Error> {
        let mut classes: Vec<Classification> = work
            .iter()
            .map(|pending| heuristic::classify(&pending.item))
            .collect();
        if self.mode == Mode::Heuristic {
            return Ok(classes);
        }
        for start in (0..work.len()).step_by(CLASSIFY_BATCH) {
            let end = (start + CLASSIFY_BATCH).min(work.len());
            let items: Vec<&Item> = work[start..end]
                .iter()
                .map(|pending| &pending.item)
                .collect();
            let ids: Vec<&str> = items.iter().map(|item| item.id.as_str()).collect();
            let mut prompt = prompts::classify_prompt(&items);
            prompt.max_tokens = prompt.max_tokens.max(CLASSIFY_MAX_TOKENS);
            let mut parsed: Result<Vec<Classification>, String> = Err(String::new());
            let mut next = Some(prompt.clone());
            let mut attempts = 0;
            while let Some(asked) = next.take() {
                attempts += 1;
                let Some(answer) = self.ask(
                    llm::ModelTier::Fast,
                    &asked,
                    "harvest-classify",
                    &mut calls[start],
                )?
                else {
                    // The LLM went away (auto): the heuristic classes stand.
                    return Ok(classes);
                };
                parsed = match answer {
                    Ok(text) => match prompts::parse_classification(&text, &ids) {
                        Ok(parsed) => Ok(parsed),
                        Err(error) => {
                            if attempts < 2 {
                                next = Some(prompts::retry_prompt(&prompt, &error));
                            }
                            Err(error.to_string())
                        }
                    },
                    Err(why) => {
                        if attempts < 2 {
                            next = Some(prompt.clone());
                        }
                        Err(why)
                    }
                };
            }
            match parsed {
                Ok(parsed) => {
                    for (slot, class) in classes[start..end].iter_mut().zip(parsed) {
                        *slot = class;
                    }
                }
                Err(why) => self.note(format!(
                    "classification of items {}–{} failed twice ({why}); the heuristic classes were used",
                    start + 1,
                    end
                )),
            }
        }
        Ok(classes)
    }

    /// One LLM call, accounted. `Ok(None)`: no LLM and the job may fall
    /// back (auto), so the job is now heuristic. `Ok(Some(Err))`: the call
    /// failed (the message says why).
    fn ask(
        &mut self,
        tier: llm::ModelTier,
        prompt: &Prompt,
        purpose: &str,
        calls: &mut Vec<AiInteraction>,
    ) -> Result<Option<Result<String, String>>, Error> {
        let request = request(tier, prompt);
        let result = llm::complete(&request);
        Ok(self
            .account(result, purpose, calls)?
            .map(|result| result.map(|c| c.text)))
    }

    fn account(
        &mut self,
        result: Result<llm::Completion, llm::Error>,
        purpose: &str,
        calls: &mut Vec<AiInteraction>,
    ) -> Result<Option<Result<llm::Completion, String>>, Error> {
        match result {
            Ok(completion) => {
                self.report.llm_calls += 1;
                self.report.llm_input_tokens += u64::from(completion.usage.input_tokens);
                self.report.llm_output_tokens += u64::from(completion.usage.output_tokens);
                calls.push(AiInteraction {
                    provider: completion.provider.clone(),
                    model: completion.model.clone(),
                    purpose: purpose.to_string(),
                    input_tokens: u64::from(completion.usage.input_tokens),
                    output_tokens: u64::from(completion.usage.output_tokens),
                    detail: "{}".to_string(),
                });
                Ok(Some(Ok(completion)))
            }
            Err(llm::Error::Unavailable(why)) => {
                if self.requested == Distillation::Auto {
                    if self.mode == Mode::Llm {
                        self.mode = Mode::Heuristic;
                        self.note(format!(
                            "no language model ({why}): distilled heuristically"
                        ));
                    }
                    Ok(None)
                } else {
                    Err(Error::InvalidArgument(format!(
                        "distillation `llm` was asked for, but no language model is available: {why}"
                    )))
                }
            }
            Err(error) => {
                self.report.llm_calls += 1;
                Ok(Some(Err(llm_error_text(&error))))
            }
        }
    }

    // ---- passes 2–3 -----------------------------------------------------------

    /// Extract then synthesize each worthwhile item: each pass's prompts go
    /// out together (`complete-many`, the host runs them concurrently); a
    /// malformed answer is asked again once with the problem named, then
    /// the item is skipped.
    fn distill_llm(
        &mut self,
        work: &[Pending],
        worth: &[usize],
        calls: &mut [Vec<AiInteraction>],
    ) -> Result<Vec<Result<Distilled, String>>, Error> {
        let extract_prompts: Vec<Prompt> = worth
            .iter()
            .map(|index| prompts::extract_prompt(&work[*index].item))
            .collect();
        let extractions = self.ask_many(
            llm::ModelTier::Capable,
            &extract_prompts,
            "harvest-extract",
            worth,
            calls,
            |text, _| prompts::parse_extraction(text),
        )?;
        let Some(extractions) = extractions else {
            // Fell back to the heuristic (auto, the LLM went away).
            return Ok(worth
                .iter()
                .map(|index| Ok(heuristic::distill(&work[*index].item)))
                .collect());
        };
        let mut results: Vec<Result<Distilled, String>> = Vec::with_capacity(worth.len());
        let mut synth_prompts = Vec::new();
        let mut synth_of = Vec::new();
        for (position, extraction) in extractions.iter().enumerate() {
            match extraction {
                Ok(extraction) => {
                    let index = worth[position];
                    synth_prompts.push(prompts::synthesize_prompt(&work[index].item, extraction));
                    synth_of.push(position);
                    results.push(Err(String::new()));
                }
                Err(why) => results.push(Err(why.clone())),
            }
        }
        let synth_worth: Vec<usize> = synth_of.iter().map(|position| worth[*position]).collect();
        let syntheses = self.ask_many(
            llm::ModelTier::Capable,
            &synth_prompts,
            "harvest-synthesize",
            &synth_worth,
            calls,
            |text, index| prompts::parse_synthesis(text, &work[index].item),
        )?;
        let Some(syntheses) = syntheses else {
            return Ok(worth
                .iter()
                .map(|index| Ok(heuristic::distill(&work[*index].item)))
                .collect());
        };
        for (position, synthesis) in synth_of.into_iter().zip(syntheses) {
            results[position] = synthesis;
        }
        Ok(results)
    }

    /// Send `prompts` (one per item of `items`, indexes into the batch) in
    /// one `complete-many`, parse each answer, and ask again once for those
    /// that failed to parse or failed outright. `Ok(None)`: no LLM (auto).
    #[allow(clippy::too_many_arguments)]
    fn ask_many<T>(
        &mut self,
        tier: llm::ModelTier,
        prompts_out: &[Prompt],
        purpose: &str,
        items: &[usize],
        calls: &mut [Vec<AiInteraction>],
        parse: impl Fn(&str, usize) -> Result<T, AnswerError>,
    ) -> Result<Option<Vec<Result<T, String>>>, Error> {
        if prompts_out.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let requests: Vec<llm::CompletionRequest> = prompts_out
            .iter()
            .map(|prompt| request(tier, prompt))
            .collect();
        let answers = llm::complete_many(&requests);
        let mut results: Vec<Result<T, String>> = Vec::with_capacity(prompts_out.len());
        let mut again: Vec<(usize, Prompt)> = Vec::new();
        for (position, answer) in answers.into_iter().enumerate() {
            let index = items[position];
            match self.account(answer, purpose, &mut calls[index])? {
                None => return Ok(None),
                Some(Ok(completion)) => match parse(&completion.text, index) {
                    Ok(value) => results.push(Ok(value)),
                    Err(error) => {
                        again.push((
                            position,
                            prompts::retry_prompt(&prompts_out[position], &error),
                        ));
                        results.push(Err(error.to_string()));
                    }
                },
                Some(Err(why)) => {
                    again.push((position, prompts_out[position].clone()));
                    results.push(Err(why));
                }
            }
        }
        if again.is_empty() {
            return Ok(Some(results));
        }
        let requests: Vec<llm::CompletionRequest> = again
            .iter()
            .map(|(_, prompt)| request(tier, prompt))
            .collect();
        let answers = llm::complete_many(&requests);
        for ((position, _), answer) in again.into_iter().zip(answers) {
            let index = items[position];
            match self.account(answer, purpose, &mut calls[index])? {
                None => return Ok(None),
                Some(Ok(completion)) => {
                    results[position] = parse(&completion.text, index)
                        .map_err(|error| format!("answer malformed twice: {error}"));
                }
                Some(Err(why)) => results[position] = Err(format!("failed twice: {why}")),
            }
        }
        Ok(Some(results))
    }

    // ---- pass 4 and the plan ------------------------------------------------

    fn plan_item(
        &mut self,
        pending: &Pending,
        class: &Classification,
        distilled: Option<Distilled>,
        outcome: ItemOutcome,
    ) -> ItemPlan {
        let item = &pending.item;
        let mut plan = ItemPlan {
            outcome,
            title: item.title.clone(),
            drafts: Vec::new(),
            kinds: Vec::new(),
            profiles: Vec::new(),
            entities: Vec::new(),
            relations: Vec::new(),
        };
        let key = conversation_key(item);
        let metadata = |extra: serde_json::Value| -> Option<String> {
            let mut object = serde_json::json!({
                "harvest": {
                    "format": item.source.name(),
                    "item": item.id,
                    "domain": class.domain,
                }
            });
            if let (Some(target), Some(extra)) = (object.as_object_mut(), extra.as_object()) {
                for (name, value) in extra {
                    target.insert(name.clone(), value.clone());
                }
            }
            Some(object.to_string())
        };
        // Verbatim material: raw turns (conversations) or sections (documents).
        match item.kind {
            ItemKind::Conversation => {
                // The turn before, as a reply's search context (indexed for
                // full-text search only, never shown). Every turn is
                // written; the store screens each and quarantines the
                // hostile ones.
                let mut previous: Option<(&str, &str)> = None;
                for (index, message) in item.messages.iter().enumerate() {
                    if message.role == Role::System || message.text.trim().is_empty() {
                        continue;
                    }
                    let turn = index + 1;
                    plan.drafts.push(Draft {
                        mind: self.mind.clone(),
                        gop_id: Some(format!("conv:{key}")),
                        content: raw_turn_content(&key, turn, message.role.name(), &message.text),
                        importance: Importance::Normal,
                        source: Source::Import,
                        created_at: message
                            .timestamp
                            .clone()
                            .or_else(|| item.created_at.clone()),
                        metadata: metadata(serde_json::json!({
                            "conv": key, "turn": turn, "speaker": message.role.name(),
                        })),
                        context: previous
                            .map(|(speaker, text)| reply_context(speaker, text))
                            .unwrap_or_default(),
                    });
                    previous = Some((message.role.name(), &message.text));
                    plan.kinds.push(FrameKind::RawTurn);
                }
            }
            ItemKind::Document => {
                let title = item.title.clone().unwrap_or_default();
                for section in &item.sections {
                    let mut texts: Vec<&str> =
                        section.headings.iter().map(String::as_str).collect();
                    texts.push(&section.text);
                    let mut path: Vec<&str> = Vec::new();
                    if !title.is_empty() {
                        path.push(&title);
                    }
                    path.extend(
                        section
                            .headings
                            .iter()
                            .map(String::as_str)
                            .filter(|heading| Some(*heading) != Some(title.as_str())),
                    );
                    let content = if path.is_empty() {
                        section.text.trim().to_string()
                    } else {
                        format!("{}\n\n{}", path.join(" › "), section.text.trim())
                    };
                    plan.drafts.push(Draft {
                        mind: self.mind.clone(),
                        gop_id: Some(format!("doc:{key}")),
                        content,
                        importance: Importance::Normal,
                        source: Source::Import,
                        created_at: item.created_at.clone(),
                        metadata: metadata(serde_json::json!({ "doc": key })),
                        context: String::new(),
                    });
                    plan.kinds.push(FrameKind::Document);
                }
            }
        }
        let Some(distilled) = distilled else {
            return plan;
        };
        for note in &distilled.notes {
            self.note(format!("item {}: {note}", item.id));
        }
        // The lanes, deduplicated (pass 4) and scanned again.
        let mut profiles: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
        let date = item.created_at.clone();
        for knowledge in &distilled.knowledge {
            self.report.extracted += 1;
            if knowledge.text.trim().is_empty() {
                continue;
            }
            if is_hostile(&knowledge.text) {
                self.report.dropped_extractions += 1;
                self.note(format!(
                    "item {}: an extraction dropped by the injection scan",
                    item.id
                ));
                continue;
            }
            if let Target::Profile { name } = &knowledge.target {
                let name = profile_name(name);
                if name.is_empty() {
                    continue;
                }
                profiles
                    .entry(name.to_lowercase())
                    .or_insert_with(|| (name.clone(), Vec::new()))
                    .1
                    .push(knowledge.text.trim().replace('\n', " "));
                continue;
            }
            let content = lane_content(knowledge);
            // Said already by a memory of another path (the turn cognified
            // when it ended): one statement, one memory. A failed look-up
            // writes it.
            if crate::cognify::held_by(&self.mind, &content)
                .ok()
                .flatten()
                .is_some()
            {
                self.report.duplicates_exact += 1;
                continue;
            }
            match self.lanes.dedup.judge(&content, knowledge.importance) {
                DedupVerdict::Exact(_) => {
                    self.report.duplicates_exact += 1;
                    continue;
                }
                DedupVerdict::NearDuplicate(similar)
                    if !self.lanes.dedup.adds_words(&content, similar.index) =>
                {
                    self.report.duplicates_near += 1;
                    continue;
                }
                DedupVerdict::NearDuplicate(similar)
                | DedupVerdict::PossibleContradiction(similar) => {
                    self.report.contradictions += 1;
                    self.note(format!(
                        "possible contradiction (similarity {:.2}): {:?}",
                        similar.similarity, knowledge.text
                    ));
                }
                DedupVerdict::New => {}
            }
            // Later extractions of this batch see this one.
            self.lanes.dedup.insert(&content);
            let (kind, created_at) = match &knowledge.target {
                Target::Event { date: day } => (FrameKind::Event, Some(format!("{day}T00:00:00Z"))),
                _ => (
                    FrameKind::Fact,
                    said_at(item, &knowledge.provenance).or_else(|| date.clone()),
                ),
            };
            plan.drafts.push(Draft {
                mind: self.mind.clone(),
                gop_id: Some(format!("harvest:{}", item.source.name())),
                content,
                importance: store::importance_out(knowledge.importance),
                source: Source::Import,
                created_at,
                metadata: metadata(serde_json::json!({
                    "provenance": knowledge.provenance,
                    "confidence": knowledge.confidence,
                })),
                context: String::new(),
            });
            plan.kinds.push(kind);
        }
        // Profiles: merged into the stored one, which they replace.
        for (lower, (name, statements)) in profiles {
            let previous = self.lanes.profiles.get(&lower).cloned();
            let mut merged: Vec<String> = previous
                .as_ref()
                .map(|(_, content)| profile_statements(content))
                .unwrap_or_default();
            let mut index = DedupIndex::new();
            for statement in &merged {
                index.insert(statement);
            }
            let before = merged.len();
            for statement in statements {
                match index.judge(&statement, hive_mind_core::Importance::Normal) {
                    DedupVerdict::Exact(_) | DedupVerdict::NearDuplicate(_) => {
                        self.report.duplicates_near += 1;
                    }
                    _ => {
                        index.insert(&statement);
                        merged.push(statement);
                    }
                }
            }
            if merged.len() == before {
                continue;
            }
            if merged.len() > PROFILE_MAX_STATEMENTS {
                let excess = merged.len() - PROFILE_MAX_STATEMENTS;
                merged.drain(..excess);
            }
            let content = format!("[mind-profile {name}] {}", merged.join("\n"));
            plan.profiles
                .push((lower.clone(), previous.map_or(0, |(id, _)| id)));
            // Stand-in until committed: later items of the batch merge into it.
            self.lanes
                .profiles
                .insert(lower.clone(), (0, content.clone()));
            plan.drafts.push(Draft {
                mind: self.mind.clone(),
                gop_id: Some(format!(
                    "profile:{}",
                    lower.replace(char::is_whitespace, "_")
                )),
                content,
                importance: Importance::Important,
                source: Source::Import,
                created_at: date.clone(),
                metadata: metadata(serde_json::json!({ "profile": name })),
                context: String::new(),
            });
            plan.kinds.push(FrameKind::Profile);
        }
        // The graph: entities linked to the frames that name them.
        let mut entity_index: HashMap<(String, &'static str), usize> = HashMap::new();
        for entity in &distilled.entities {
            if !accept_entity_name(&entity.name) {
                continue;
            }
            let kind = entity.entity_type.as_str();
            if entity_index.contains_key(&(entity.name.clone(), kind)) {
                continue;
            }
            let needle = entity.surface.to_lowercase();
            let frames: Vec<usize> = plan
                .drafts
                .iter()
                .enumerate()
                .filter(|(_, draft)| draft.content.to_lowercase().contains(&needle))
                .map(|(index, _)| index)
                .collect();
            entity_index.insert((entity.name.clone(), kind), plan.entities.len());
            plan.entities.push(EntityWrite {
                name: entity.surface.clone(),
                entity_type: kind.to_string(),
                frames,
            });
        }
        for relation in &distilled.relations {
            let subject = entity_index.get(&(
                relation.subject.name.clone(),
                relation.subject.entity_type.as_str(),
            ));
            let object = entity_index.get(&(
                relation.object.name.clone(),
                relation.object.entity_type.as_str(),
            ));
            if let (Some(&subject), Some(&object)) = (subject, object)
                && subject != object
            {
                plan.relations.push(RelationWrite {
                    subject,
                    relation: relation.relation.as_str().to_string(),
                    object,
                    strength: relation.strength.clamp(0.0, 1.0),
                });
            }
        }
        plan
    }
}

/// When the part a piece of knowledge came from was said: the timestamp
/// of message N for a provenance `turn N`.
fn said_at(item: &Item, provenance: &str) -> Option<String> {
    let number: usize = provenance.strip_prefix("turn ")?.trim().parse().ok()?;
    item.messages.get(number.checked_sub(1)?)?.timestamp.clone()
}

/// What one item will write.
struct ItemPlan {
    outcome: ItemOutcome,
    /// The item's own title, which its session (`conv:…`, `doc:…`) takes.
    title: Option<String>,
    drafts: Vec<Draft>,
    kinds: Vec<FrameKind>,
    /// The profiles this item replaces: lower-cased name and the stored
    /// frame's id when known at planning time (0 when the predecessor is an
    /// earlier item of the same batch, resolved at commit).
    profiles: Vec<(String, u64)>,
    entities: Vec<EntityWrite>,
    relations: Vec<RelationWrite>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    RawTurn,
    Document,
    Fact,
    Event,
    Profile,
}

fn request(tier: llm::ModelTier, prompt: &Prompt) -> llm::CompletionRequest {
    llm::CompletionRequest {
        tier,
        system: prompt.system.clone(),
        prompt: prompt.prompt.clone(),
        max_tokens: prompt.max_tokens,
        json: true,
    }
}

fn llm_error_text(error: &llm::Error) -> String {
    match error {
        llm::Error::Unavailable(why) => format!("no language model: {why}"),
        llm::Error::Failed(why) => format!("the model failed: {why}"),
        llm::Error::RateLimited(why) => format!("rate limited: {why}"),
        llm::Error::Timeout(why) => format!("timed out: {why}"),
    }
}

/// `harvest.last-exchange`: the harvest crate's adapter reads it; past
/// harvest's input cap the transcript is refused, not read.
pub fn last_exchange(
    format: crate::exports::hive::mind::harvest::SourceFormat,
    transcript: &str,
) -> Result<Option<Exchange>, Error> {
    if transcript.len() > hive_mind_harvest::adapters::MAX_INPUT_BYTES {
        return Err(Error::TooLarge(format!(
            "a transcript of {} bytes is more than the {} harvest reads",
            transcript.len(),
            hive_mind_harvest::adapters::MAX_INPUT_BYTES
        )));
    }
    let exchange = hive_mind_harvest::last_exchange(format_in(format), transcript.as_bytes())
        .map_err(|error| Error::InvalidArgument(error.to_string()))?;
    Ok(exchange.map(|exchange| Exchange {
        user: exchange.user,
        assistant: exchange.assistant,
    }))
}

/// `harvest.sources`.
pub fn sources(mind: Mind) -> Result<Vec<HarvestSource>, Error> {
    let sources = match store::read(&mind, |store| store.harvest_sources()) {
        Ok(sources) => sources,
        Err(StoreError::MindNotFound(_)) => Vec::new(),
        Err(error) => return Err(storage(error)),
    };
    Ok(sources
        .into_iter()
        .filter_map(|source| {
            let format = SourceFormat::from_name(&source.format)?;
            Some(HarvestSource {
                format: format_out(format),
                name: source.name,
                items: source.items,
                set_hash: source.set_hash,
                first_imported: boundary::millis(&source.first_imported),
                last_imported: boundary::millis(&source.last_imported),
            })
        })
        .collect())
}
