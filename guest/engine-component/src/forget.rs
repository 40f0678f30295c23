//! `memory.forget`: erasure for real, over the store's
//! [`hive_mind_store::erasure`].
//!
//! A request naming memories is grouped by mind. Every mind's part is
//! planned first, so a memory that does not exist (in any mind) is an error
//! before anything is removed; then each mind erases its part in its own
//! transaction and reclaims its pages. A dry run stops after the plans.

use std::collections::BTreeMap;

use hive_mind_store::erasure::{ErasureCause, ErasureFilter, ErasureReport, ErasureRequest};

use crate::exports::hive::mind::memory::{
    Error, ForgetReport, ForgetRequest, ForgetSelector, ForgottenEntity, ForgottenMemory,
};
use crate::hive::mind::types::{FrameRef, Mind};
use crate::save::store_error;
use crate::store;

/// Forget what `request` selects (see the module docs).
pub fn forget(request: ForgetRequest) -> Result<ForgetReport, Error> {
    let parts: Vec<(Mind, ErasureRequest)> = match request.selector {
        ForgetSelector::Memories(refs) => {
            let mut by_mind: BTreeMap<String, (Mind, Vec<u64>)> = BTreeMap::new();
            for frame in refs {
                let key = store::mind_in(&frame.mind)
                    .map_err(store_error)?
                    .to_string();
                by_mind
                    .entry(key)
                    .or_insert_with(|| (frame.mind.clone(), Vec::new()))
                    .1
                    .push(frame.id);
            }
            if by_mind.is_empty() {
                return Err(Error::InvalidArgument(
                    "name at least one memory to forget".to_string(),
                ));
            }
            by_mind
                .into_values()
                .map(|(mind, ids)| (mind, ErasureRequest::Frames(ids)))
                .collect()
        }
        ForgetSelector::Matching(filter) => vec![(
            filter.mind,
            ErasureRequest::Matching(ErasureFilter {
                text: filter.text,
                since: filter.since,
                until: filter.until,
                learned_since: filter.learned_since,
                learned_until: filter.learned_until,
                harvest_format: filter.harvest_format,
                document: filter.document,
            }),
        )],
    };
    let reason = request.reason.unwrap_or_default();
    let mut reports = Vec::with_capacity(parts.len());
    for (mind, part) in &parts {
        let plan = store::read(mind, |store| store.plan_erasure(part)).map_err(store_error)?;
        reports.push((mind.clone(), plan));
    }
    if !request.dry_run {
        reports.clear();
        for (mind, part) in &parts {
            let done =
                store::read(mind, |store| store.erase(part, &reason)).map_err(store_error)?;
            reports.push((mind.clone(), done));
        }
    }
    Ok(merge(reports, request.dry_run))
}

/// One report for every mind's.
fn merge(reports: Vec<(Mind, ErasureReport)>, dry_run: bool) -> ForgetReport {
    let mut merged = ForgetReport {
        memories: Vec::new(),
        entities: Vec::new(),
        contexts_rewritten: 0,
        bytes_before: 0,
        bytes_after: 0,
        dry_run,
    };
    for (mind, report) in reports {
        let reference = |id: u64| FrameRef {
            mind: mind.clone(),
            id,
        };
        merged
            .memories
            .extend(report.frames.into_iter().map(|frame| ForgottenMemory {
                frame: reference(frame.id),
                content_hash: frame.content_hash,
                event_day: frame.event_date,
                preview: frame.preview,
                branch_of: match frame.cause {
                    ErasureCause::Selected => None,
                    ErasureCause::BranchOf(base) => Some(reference(base)),
                },
            }));
        merged
            .entities
            .extend(report.entities.into_iter().map(|name| ForgottenEntity {
                mind: mind.clone(),
                name,
            }));
        merged.contexts_rewritten = merged
            .contexts_rewritten
            .saturating_add(u32::try_from(report.contexts_rewritten).unwrap_or(u32::MAX));
        merged.bytes_before = merged.bytes_before.saturating_add(report.bytes_before);
        merged.bytes_after = merged.bytes_after.saturating_add(report.bytes_after);
    }
    merged
}
