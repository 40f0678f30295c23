//! # Driving an import job to its end
//!
//! The engine's `harvest` export imports in steps (an [`super::ImportJob`]):
//! a host starts a job, steps it a batch of items at a time, reads its
//! report and drops it. Every surface that imports — `hive-mind import`,
//! MCP's `import` tool, the server's import jobs, the hook at a session's
//! end, the lab's harvest benchmark — runs the same loop, written once
//! here:
//!
//! - [`run_job`] steps one job to its end, batch size from the engine's
//!   own plan constants, and drops the job even when a step failed;
//! - [`import_each`] runs one job per input, each read only when its turn
//!   comes (a folder of exports is never held whole), and merges their
//!   reports ([`merge_report`] over [`empty_report`]); an input the engine
//!   cannot read is that input's failure, not the import's.
//!
//! Two things vary by surface and are passed in. How the engine is reached
//! ([`EngineTurns`]): the command line owns its [`EngineRuntime`] for the
//! whole job, while MCP locks a shared engine for each step only, so a
//! recall runs between two steps. And where progress goes
//! ([`ImportProgress`]): a bar on a terminal, a server's job status, or
//! nowhere (`()`).

use super::wit_harvest::{
    Distillation, Error as HarvestErrorCase, ImportOptions, ImportReport, Input, LaneCounts,
    SourceReport,
};
use super::{EngineError, EngineRuntime, HarvestError};

/// Where an import reports how far it is. Each method takes `&self`: a
/// report is shared (a server reads a job's progress while it runs).
pub trait ImportProgress {
    /// `done` of `total` items processed (the total is known once the job
    /// has parsed its inputs, and grows as inputs are added).
    fn items(&self, done: u64, total: u64);
    /// What is being worked on now (an input's name, a step's counts).
    fn working_on(&self, what: String);
}

/// No progress shown.
impl ImportProgress for () {
    fn items(&self, _done: u64, _total: u64) {}
    fn working_on(&self, _what: String) {}
}

/// Access to the engine one call at a time. The command line holds its
/// engine for the whole job; the MCP server locks its shared engine for each
/// step only, so a recall runs between two steps of an import.
pub trait EngineTurns {
    /// What a turn fails with.
    type Error: From<EngineError>;
    /// Run `work` with the engine.
    fn turn<T>(
        &mut self,
        work: impl FnOnce(&mut EngineRuntime) -> Result<T, EngineError>,
    ) -> Result<T, Self::Error>;
    /// The engine's own error inside a turn's, if it is one.
    fn engine_error(error: &Self::Error) -> Option<&EngineError>;
}

impl EngineTurns for EngineRuntime {
    type Error = EngineError;
    fn turn<T>(
        &mut self,
        work: impl FnOnce(&mut EngineRuntime) -> Result<T, EngineError>,
    ) -> Result<T, EngineError> {
        work(self)
    }
    fn engine_error(error: &EngineError) -> Option<&EngineError> {
        Some(error)
    }
}

/// Run an import job to the end, moving `progress`; the final report. Each
/// call into the engine is one [`EngineTurns::turn`].
pub fn run_job<E: EngineTurns>(
    engine: &mut E,
    inputs: &[Input],
    options: &ImportOptions,
    progress: &dyn ImportProgress,
) -> Result<ImportReport, E::Error> {
    // Items per step: the engine's classification batch, so an LLM import
    // sends full batches, and the bar moves every few seconds.
    let step_items = engine
        .turn(|engine| engine.admin().plan_constants())?
        .harvest_step_items;
    let job = engine.turn(|engine| engine.harvest_start(inputs, options))?;
    let mut result = || -> Result<ImportReport, E::Error> {
        loop {
            let step = engine.turn(|engine| engine.harvest_step(job, step_items))?;
            progress.items(u64::from(step.items_done), u64::from(step.items_total));
            progress.working_on(format!("{} frames, {} dropped", step.frames, step.dropped));
            if step.finished {
                break;
            }
        }
        engine.turn(|engine| engine.harvest_report(job))
    };
    let result = result();
    let dropped = engine.turn(|engine| engine.harvest_drop(job));
    let report = result?;
    dropped?;
    Ok(report)
}

/// Import `inputs` one job each, read one at a time as their turn comes (a
/// folder is never held in memory whole, nor handed to the engine in one
/// call), the reports merged. When there are several, an input the engine
/// cannot read (unrecognised, malformed, too large, a URL it could not
/// fetch) is reported in its
/// source's `error` and the others go on, as inside one job; when none could
/// be parsed, the first one's failure is the call's, as for a single input.
/// Every other failure is the call's.
pub fn import_each<E, Error>(
    engine: &mut E,
    inputs: impl ExactSizeIterator<Item = Result<Input, Error>>,
    options: &ImportOptions,
    progress: &dyn ImportProgress,
) -> Result<ImportReport, Error>
where
    E: EngineTurns,
    Error: From<E::Error>,
{
    let single = inputs.len() == 1;
    let mut report = empty_report(options);
    let mut first_unreadable: Option<E::Error> = None;
    let mut parsed_any = false;
    for input in inputs {
        let input = input?;
        let name = match &input {
            Input::Document(document) => document.name.clone(),
            Input::Url(url) => url.clone(),
        };
        progress.working_on(name.clone());
        match run_job(engine, &[input], options, progress) {
            Ok(more) => {
                parsed_any = true;
                merge_report(&mut report, more);
            }
            Err(error) => match E::engine_error(&error).and_then(unreadable_input) {
                Some(unreadable) if !single => {
                    report.sources.push(SourceReport {
                        name,
                        format: None,
                        items: 0,
                        known: 0,
                        unchanged: false,
                        error: Some(unreadable),
                        notes: Vec::new(),
                    });
                    first_unreadable.get_or_insert(error);
                }
                _ => return Err(error.into()),
            },
        }
    }
    match first_unreadable {
        Some(error) if !parsed_any => Err(error.into()),
        _ => Ok(report),
    }
}

/// The engine's refusal of one input (unrecognised, malformed, too large,
/// not fetched): the input's failure, not the import's.
fn unreadable_input(error: &EngineError) -> Option<HarvestErrorCase> {
    match error {
        EngineError::Harvest(HarvestError(
            error @ (HarvestErrorCase::Unrecognised(_)
            | HarvestErrorCase::Malformed(_)
            | HarvestErrorCase::TooLarge(_)
            | HarvestErrorCase::Fetch(_)),
        )) => Some(error.clone()),
        _ => None,
    }
}

/// Add `more` (another job's report) to `report`: sources and notes
/// appended (a note already there is not repeated), counts summed.
pub fn merge_report(report: &mut ImportReport, more: ImportReport) {
    report.sources.extend(more.sources);
    if matches!(report.distillation, Distillation::Auto) {
        report.distillation = more.distillation;
    }
    report.dry_run |= more.dry_run;
    report.items += more.items;
    report.quarantined_items += more.quarantined_items;
    report.skipped_low_value += more.skipped_low_value;
    report.imported += more.imported;
    report.failed += more.failed;
    report.extracted += more.extracted;
    report.duplicates_exact += more.duplicates_exact;
    report.duplicates_near += more.duplicates_near;
    report.contradictions += more.contradictions;
    report.dropped_extractions += more.dropped_extractions;
    report.frames.raw_turns += more.frames.raw_turns;
    report.frames.facts += more.frames.facts;
    report.frames.events += more.frames.events;
    report.frames.profiles += more.frames.profiles;
    report.frames.documents += more.frames.documents;
    report.entities_new += more.entities_new;
    report.entities_seen += more.entities_seen;
    report.relations += more.relations;
    report.llm_calls += more.llm_calls;
    report.llm_input_tokens += more.llm_input_tokens;
    report.llm_output_tokens += more.llm_output_tokens;
    for note in more.notes {
        if !report.notes.contains(&note) {
            report.notes.push(note);
        }
    }
}

/// An empty report (the start of [`merge_report`]).
pub fn empty_report(options: &ImportOptions) -> ImportReport {
    ImportReport {
        sources: Vec::new(),
        distillation: Distillation::Auto,
        dry_run: options.dry_run,
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
