//! The relevance floors of the active embedder, measured once.
//!
//! How similar two unrelated texts look depends on the model (see
//! [`hive_mind_core::recall::calibrated_min_cosine`]): the floor a vector
//! hit must beat is measured by embedding the core's calibration sentences
//! as queries and as documents (two `embed` calls) and recorded in the
//! personal mind's `meta`, keyed by the embedder's fingerprint, so that the
//! next process and the other hosts of the same files read the same value
//! instead of measuring again. Within an instance it is kept in memory.
//!
//! The same two calls give a second floor: for the question read as a
//! document (the sentences' document vectors against each other), the
//! scale of recall's second reading of a question (`recall`: a model with a
//! query instruction, bge, reads a question asked in the first person
//! closer to a statement when it is embedded as a statement).

use std::cell::RefCell;

use hive_mind_core::recall::{CALIBRATION_SENTENCES, calibrated_min_cosine};

use crate::hive::mind::embedder::{self, EmbedderInfo};
use crate::hive::mind::types::Mind;
use crate::store;
pub use hive_mind_store::meta::FloorCalibration;

thread_local! {
    /// The floors measured in this instance, with the fingerprint they are for.
    static FLOOR: RefCell<Option<(String, FloorCalibration)>> = const { RefCell::new(None) };
}

/// The fingerprint a floor is recorded under.
fn fingerprint(info: &EmbedderInfo) -> String {
    format!("{}/{}/{}", info.provider, info.model, info.dimensions)
}

/// The relevance floor's `min-cosine` for the embedder `info` describes
/// ([`floors`]).
pub fn min_cosine(info: &EmbedderInfo) -> Result<f64, String> {
    floors(info).map(|floors| floors.asked)
}

/// The relevance floors for the embedder `info` describes: remembered,
/// recorded in the personal mind, or measured now (and recorded). An error
/// says why they could not be measured; the caller falls back to the
/// default.
pub fn floors(info: &EmbedderInfo) -> Result<FloorCalibration, String> {
    let key = fingerprint(info);
    if let Some(floors) = FLOOR.with(|cell| {
        cell.borrow()
            .as_ref()
            .filter(|(made_for, _)| *made_for == key)
            .map(|(_, floors)| *floors)
    }) {
        return Ok(floors);
    }
    // The personal mind's record (its lock is the active embedder, so the
    // record it reads is this embedder's); a mind that cannot be read is
    // measured for instead.
    let recorded = store::read(&Mind::Personal, |mind| mind.floor_calibration())
        .ok()
        .flatten();
    let floors = match recorded {
        Some(floors) => floors,
        None => {
            let texts: Vec<String> = CALIBRATION_SENTENCES
                .iter()
                .map(|s| s.to_string())
                .collect();
            let embed = |kind| {
                embedder::embed(&texts, kind)
                    .map_err(|error| {
                        let (embedder::Error::Unavailable(why) | embedder::Error::Failed(why)) =
                            error;
                        why
                    })
                    .and_then(|vectors| vectors.into_iter().collect::<Result<Vec<_>, _>>())
                    .map_err(|why| format!("calibrating the relevance floor: {why}"))
            };
            let queries = embed(embedder::InputKind::Query)?;
            let documents = embed(embedder::InputKind::Document)?;
            let misfit =
                || "calibrating the relevance floor: the embedder's vectors do not fit".to_string();
            let floors = FloorCalibration {
                asked: calibrated_min_cosine(&queries, &documents).ok_or_else(misfit)?,
                as_document: calibrated_min_cosine(&documents, &documents).ok_or_else(misfit)?,
            };
            // Not recorded is not fatal: the next process measures again.
            let _ = store::write(&Mind::Personal, |mind| {
                mind.record_floor_calibration(floors)
            });
            floors
        }
    };
    FLOOR.with(|cell| *cell.borrow_mut() = Some((key, floors)));
    Ok(floors)
}
