//! `memory.cleanup-frames`: find a mind's dead-weight frames and retire
//! them.
//!
//! The rules are [`hive_mind_core::cleanup::plan_cleanup`]'s (pure,
//! unit-tested); this module lists the mind's frames (oldest first), runs
//! the plan, and — only when asked — marks each frame found `deprecated`
//! through the store's `set_importance` (the store keeps it; recall ranks it
//! down). A memory its owner pinned is never retired. Only live frames
//! take part: a version a correction or a newer statement replaced (its
//! `valid-to` set) and an archived memory are history, so a current memory
//! is never retired in favour of one of them (the core's module docs). A
//! quarantined memory waits for its owner's review: it is neither retired
//! nor kept in another's place, so a hostile near-copy saved as critical
//! cannot retire the true memory it copies.

use hive_mind_core::cleanup::{CleanupFrame, CleanupReason, plan_cleanup};

use crate::exports::hive::mind::memory::{
    CleanupCandidate, CleanupOptions, CleanupReason as WitReason, CleanupReport, Error,
};
use crate::hive::mind::types::{FrameRef, Importance};
use crate::save::{store_error, whole_mind};
use crate::store;
use crate::store::importance_in as importance_from_wit;

/// Find (and with `apply`, retire) the mind's dead-weight frames.
pub fn cleanup_frames(options: CleanupOptions) -> Result<CleanupReport, Error> {
    let filter = whole_mind(&options.mind);
    let frames = store::list_frames(&filter, true, u32::MAX).map_err(store_error)?;
    let inputs: Vec<CleanupFrame> = frames
        .iter()
        .map(|frame| CleanupFrame {
            id: frame.ref_.id,
            content: frame.content.clone(),
            importance: importance_from_wit(frame.importance),
            live: store::stands(frame),
        })
        .collect();
    let plan = plan_cleanup(&inputs);
    let content_of = |id: u64| {
        frames
            .iter()
            .find(|frame| frame.ref_.id == id)
            .map(|frame| frame.content.clone())
            .unwrap_or_default()
    };
    // A pinned memory is never retired (its owner said so); it can still
    // be the one a duplicate is retired in favour of.
    let pinned: std::collections::BTreeSet<u64> = frames
        .iter()
        .filter(|frame| frame.pinned)
        .map(|frame| frame.ref_.id)
        .collect();
    let candidates: Vec<CleanupCandidate> = plan
        .retire
        .iter()
        .filter(|verdict| !pinned.contains(&verdict.id))
        .map(|verdict| CleanupCandidate {
            frame: FrameRef {
                mind: options.mind.clone(),
                id: verdict.id,
            },
            reason: match verdict.reason {
                CleanupReason::Empty => WitReason::Empty,
                CleanupReason::Duplicate { .. } => WitReason::Duplicate,
                CleanupReason::NearDuplicate { .. } => WitReason::NearDuplicate,
            },
            kept: verdict.reason.kept().map(|id| FrameRef {
                mind: options.mind.clone(),
                id,
            }),
            similarity: match verdict.reason {
                CleanupReason::Empty => 0.0,
                CleanupReason::Duplicate { .. } => 1.0,
                CleanupReason::NearDuplicate { similarity, .. } => similarity,
            },
            content: content_of(verdict.id),
        })
        .collect();
    let mut retired = 0u32;
    if options.apply {
        for candidate in &candidates {
            store::set_importance(&candidate.frame, Importance::Deprecated).map_err(store_error)?;
            retired += 1;
        }
    }
    Ok(CleanupReport {
        scanned: u32::try_from(frames.len()).unwrap_or(u32::MAX),
        candidates,
        retired,
        notes: plan.notes,
    })
}
