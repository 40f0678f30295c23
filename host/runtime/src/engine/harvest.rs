//! # The `harvest` export
//!
//! An import is a resource of the component, `import-job`: started with
//! the inputs and options, stepped a bounded number of items at a time (so
//! a host can show progress and other calls run between steps), read for
//! its report, and dropped. [`ImportJob`] is the host's handle on it,
//! tagged with the instance that started it: when a call traps, the
//! runtime starts a fresh instance and the old one's jobs are gone, so a
//! stale handle is refused ([`HostError::Lost`]) rather than passed to an
//! instance that never knew it. The loop that drives a job to its end is
//! [`super::import`]; the source listing and the transcript reader are here
//! too.

use super::{EngineError, EngineRuntime, HarvestError, wit_harvest, wit_types};
use crate::HostError;
use crate::limits::CallKind;

/// A harvest import job: a resource of the instance that started it (one
/// that trapped takes its jobs with it).
#[derive(Debug, Clone, Copy)]
pub struct ImportJob {
    resource: wasmtime::component::ResourceAny,
    instance: u64,
}

impl EngineRuntime {
    /// `harvest.import-job.start`: parse and plan an import. The job is a
    /// resource of this runtime: step it with [`EngineRuntime::harvest_step`]
    /// and drop it with [`EngineRuntime::harvest_drop`].
    pub fn harvest_start(
        &mut self,
        inputs: &[wit_harvest::Input],
        options: &wit_harvest::ImportOptions,
    ) -> Result<ImportJob, EngineError> {
        let result = self.call("import-job.start", CallKind::Import, |engine, store| {
            engine
                .hive_mind_harvest()
                .import_job()
                .call_start(store, inputs, options)
        })?;
        Ok(ImportJob {
            resource: result.map_err(HarvestError)?,
            instance: self.instance,
        })
    }

    /// The job's resource, when it belongs to the live instance.
    fn live_job(&self, job: ImportJob) -> Result<wasmtime::component::ResourceAny, HostError> {
        if job.instance == self.instance {
            Ok(job.resource)
        } else {
            Err(HostError::Lost {
                what: "the import job".into(),
            })
        }
    }

    /// `harvest.import-job.step`: process up to `max_items` more items.
    pub fn harvest_step(
        &mut self,
        job: ImportJob,
        max_items: u32,
    ) -> Result<wit_harvest::Progress, EngineError> {
        let job = self.live_job(job)?;
        let result = self.call("import-job.step", CallKind::Import, |engine, store| {
            engine
                .hive_mind_harvest()
                .import_job()
                .call_step(store, job, max_items)
        })?;
        Ok(result.map_err(HarvestError)?)
    }

    /// `harvest.import-job.report`: the import's account so far.
    pub fn harvest_report(
        &mut self,
        job: ImportJob,
    ) -> Result<wit_harvest::ImportReport, EngineError> {
        let job = self.live_job(job)?;
        Ok(
            self.call("import-job.report", CallKind::Import, |engine, store| {
                engine
                    .hive_mind_harvest()
                    .import_job()
                    .call_report(store, job)
            })?,
        )
    }

    /// Drop an import job (its parsed items are freed in the component; a
    /// job lost with a trapped instance is gone already).
    pub fn harvest_drop(&mut self, job: ImportJob) -> Result<(), EngineError> {
        let Ok(job) = self.live_job(job) else {
            return Ok(());
        };
        self.call("import-job.drop", CallKind::Import, |_, store| {
            job.resource_drop(store)
        })?;
        Ok(())
    }

    /// `harvest.sources`: the sources imported into a mind.
    pub fn harvest_sources(
        &mut self,
        mind: &wit_types::Mind,
    ) -> Result<Vec<wit_harvest::HarvestSource>, EngineError> {
        let result = self.call("harvest.sources", CallKind::Recall, |engine, store| {
            engine.hive_mind_harvest().call_sources(store, mind)
        })?;
        Ok(result.map_err(HarvestError)?)
    }

    /// `harvest.last-exchange`: the last exchange of a session transcript
    /// (or of its tail), read by the engine's adapter for `format`; none
    /// while the last question is unanswered.
    pub fn harvest_last_exchange(
        &mut self,
        format: wit_harvest::SourceFormat,
        transcript: &str,
    ) -> Result<Option<wit_harvest::Exchange>, EngineError> {
        let result = self.call(
            "harvest.last-exchange",
            CallKind::Recall,
            |engine, store| {
                engine
                    .hive_mind_harvest()
                    .call_last_exchange(store, format, transcript)
            },
        )?;
        Ok(result.map_err(HarvestError)?)
    }
}
