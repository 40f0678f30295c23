//! Slots: the newer statement of a slot closes the older.
//!
//! And the one way a frame is closed as replaced ([`replace_in`]), which a
//! correction, the owner's `replaces` verdict and the release of a held-back
//! correction share.
//!
//! A frame's **slot** is what its statement is about
//! ([`hive_mind_core::supersede::memory_slot`]: `user|residence`,
//! `ana|phone number`, …; none for a B-frame). The current frames of one
//! slot are put in event-time order and each is closed at the next one's
//! event time (`chain_slot_in`: its `valid_to`, `superseded_by` and
//! `superseded_at`), so the latest statement is current whatever order the
//! statements arrived in. A quarantined frame has no place in a timeline
//! until its owner releases it: a hostile text closes nothing, and a
//! screening that quarantines a frame already chained, or lets one through
//! ([`quarantine_changed_in`]: an edit, a reindex, a restore, a release)
//! chains its slot again.
//! [`super::validity`] explains the two clocks and the other way a memory
//! is replaced, a correction.
//!
//! Everything here is SQL over `memory_frames`' validity columns (and the
//! owner's pair verdicts, for a correction held back), inside the caller's
//! transaction, and needs nothing of the store but its clock and the
//! entity links a replacement carries over ([`super::graph`]): every frame
//! write ([`super::frames`]) chains the slot it wrote, the v11 migration
//! ([`super::schema`]) gives every stored frame its slot and chains them
//! all, and an erasure ([`super::erasure`]) reopens what a forgotten frame
//! had replaced.

use crate::sql::{Connection, params};

use super::clock::now;
use super::error::StoreResult;

/// Put the frames of `slot` in event-time order and close each at the next
/// one's event time, so the latest is current; returns how many links
/// changed. The timeline is the slot's current frames and those a newer
/// frame of the same slot closed; a frame closed by a correction into
/// another slot stays as the correction left it. A quarantined frame is
/// not in the timeline (a hostile text must not close what is true), and a
/// frame one had closed is open again, or closed by the next that stands.
pub(crate) fn chain_slot_in(conn: &Connection, slot: &str) -> StoreResult<u64> {
    chain(conn, slot, Screening::Screened)
}

/// [`chain_slot_in`] for a file older than screening (the v11 step: no
/// frame is quarantined, and the column that says so is not there yet).
pub(crate) fn chain_unscreened_slot_in(conn: &Connection, slot: &str) -> StoreResult<u64> {
    chain(conn, slot, Screening::NotYet)
}

/// Whether a file's frames carry the detector's verdict (v13 on).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Screening {
    /// `quarantined` is there: a quarantined frame is left out.
    Screened,
    /// Before v13: every frame is in its timeline.
    NotYet,
}

fn chain(conn: &Connection, slot: &str, screening: Screening) -> StoreResult<u64> {
    let held_out = match screening {
        Screening::Screened => "AND f.quarantined = 0",
        Screening::NotYet => "",
    };
    let timeline: Vec<(u64, String, Option<u64>)> = conn.query_all(
        &format!(
            "SELECT f.id, f.created_at, f.superseded_by FROM memory_frames f
             LEFT JOIN memory_frames n ON n.id = f.superseded_by
             WHERE f.slot = ?1 {held_out} AND (f.valid_to IS NULL OR n.slot = ?1)
             ORDER BY f.created_at, f.id"
        ),
        [slot],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    let mut changed = 0;
    let recorded = now();
    for (at, (older, _, linked)) in timeline.iter().enumerate() {
        let next = timeline
            .get(at + 1)
            .map(|(newer, newer_at, _)| (*newer, newer_at));
        if *linked == next.map(|(newer, _)| newer) {
            continue;
        }
        let rows = match next {
            Some((newer, newer_at)) => conn
                .prepare_cached(
                    "UPDATE memory_frames SET valid_to = ?2, superseded_by = ?3, superseded_at = ?4
                     WHERE id = ?1",
                )?
                .execute(params![*older, newer_at, newer, recorded])?,
            // The last of the timeline, closed by a frame outside it: only
            // a quarantined frame of this slot is reopened from (a
            // correction into another slot stands).
            None if screening == Screening::Screened => conn
                .prepare_cached(
                    "UPDATE memory_frames SET valid_to = NULL, superseded_by = NULL, superseded_at = NULL
                     WHERE id = ?1 AND superseded_by IN
                         (SELECT id FROM memory_frames WHERE slot = ?2 AND quarantined = 1)",
                )?
                .execute(params![*older, slot])?,
            None => 0,
        };
        changed += u64::try_from(rows).unwrap_or(u64::MAX);
    }
    Ok(changed)
}

/// Close frame `old` as replaced by frame `new` (inside the caller's
/// transaction): at the new one's event time, or at its own if the new one
/// is dated earlier (it was never valid after); the new version names the
/// old one's entities too, so their pages (and the graph lane) carry the
/// current statement, whatever words the correction used.
pub(crate) fn replace_in(conn: &Connection, old: u64, new: u64) -> StoreResult<()> {
    conn.execute(
        "UPDATE memory_frames
         SET valid_to = max(created_at, (SELECT created_at FROM memory_frames WHERE id = ?2)),
             superseded_by = ?2, superseded_at = ?3
         WHERE id = ?1",
        params![old, new, now()],
    )?;
    super::graph::name_the_same_entities_in(conn, old, new)
}

/// Chain again every slot that holds a quarantined frame, so none closes
/// what it follows: the v16 step (a store before it let them) and a
/// restore (an export taken before it may carry such links, and this
/// engine's detector may quarantine what the export's did not). Returns
/// how many links changed.
pub(crate) fn rechain_held_slots_in(conn: &Connection) -> StoreResult<u64> {
    let slots: Vec<String> = conn.query_all(
        "SELECT DISTINCT slot FROM memory_frames
         WHERE quarantined = 1 AND slot IS NOT NULL ORDER BY slot",
        [],
        |row| row.get(0),
    )?;
    let mut changed = 0;
    for slot in slots {
        changed += chain_slot_in(conn, &slot)?;
    }
    Ok(changed)
}

/// The slot of a frame written with `content` (none for a B-frame, whose
/// content is a description of an alternative, not a statement).
pub(crate) fn slot_of(content: &str) -> Option<String> {
    hive_mind_core::supersede::memory_slot(content).map(|slot| slot.key())
}

/// Reopen the frames that `erased` (being erased) replaced, and chain their
/// slots again: the memory before a forgotten correction is current again.
pub(crate) fn reopen_replaced_by_in(conn: &Connection, erased: &[u64]) -> StoreResult<()> {
    let mut slots = std::collections::BTreeSet::new();
    for id in erased {
        slots.extend(reopen_replaced_by(conn, *id, erased)?);
    }
    // The erased frames leave their timelines before they are chained
    // again: still there, the newest would close the reopened one anew.
    for id in erased {
        conn.execute("UPDATE memory_frames SET slot = NULL WHERE id = ?1", [*id])?;
    }
    for slot in slots {
        chain_slot_in(conn, &slot)?;
    }
    Ok(())
}

/// Reopen the frames `by` replaced (those in `except` aside), leaving their
/// slots to the caller to chain again; returns those slots.
fn reopen_replaced_by(conn: &Connection, by: u64, except: &[u64]) -> StoreResult<Vec<String>> {
    let replaced: Vec<(u64, Option<String>)> = conn.query_all(
        "SELECT id, slot FROM memory_frames WHERE superseded_by = ?1",
        [by],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    let mut slots = Vec::new();
    for (frame, slot) in replaced {
        if except.contains(&frame) {
            continue;
        }
        conn.execute(
            "UPDATE memory_frames SET valid_to = NULL, superseded_by = NULL, superseded_at = NULL
             WHERE id = ?1",
            [frame],
        )?;
        slots.extend(slot);
    }
    Ok(slots)
}

/// Frame `id` (of slot `slot`) was quarantined (`held`) or let through
/// (inside the caller's transaction): it leaves or takes the place it has
/// among the memories. Held, it closes nothing: what it replaced is open
/// again (unless a later statement of its slot closes it). Let through
/// (released, or a newer detector's verdict), it rejoins its slot's
/// timeline, and a correction of it closes the version it corrects, where
/// that is still current (the correction's `replaces` verdict was kept for
/// this: [`super::validity`]).
pub(crate) fn quarantine_changed_in(
    conn: &Connection,
    id: u64,
    slot: Option<&str>,
    held: bool,
) -> StoreResult<()> {
    let mut slots: std::collections::BTreeSet<String> =
        slot.map(str::to_string).into_iter().collect();
    if held {
        slots.extend(reopen_replaced_by(conn, id, &[])?);
    } else {
        let corrected: Vec<u64> = conn.query_all(
            "SELECT v.older_id FROM memory_pair_verdicts v
             JOIN memory_frames o ON o.id = v.older_id
             WHERE v.newer_id = ?1 AND v.verdict = 'replaces'
               AND o.superseded_by IS NULL AND o.valid_to IS NULL",
            [id],
            |row| row.get(0),
        )?;
        for older in corrected {
            replace_in(conn, older, id)?;
        }
    }
    for slot in slots {
        chain_slot_in(conn, &slot)?;
    }
    Ok(())
}
