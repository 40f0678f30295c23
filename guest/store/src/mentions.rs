//! The periods each memory's text names: the date index beside the event
//! date.
//!
//! A frame's `event_date` is when it was written or said; what it tells may
//! have happened on another day ("the wedding on 28 June 2025", saved on 1
//! July) or be planned for one ("the review is on 8 April 2026"). The
//! `memory_mentions` table (schema v15) holds, for each frame, the periods
//! [`hive_mind_core::dates::mentioned_periods`] reads in its content,
//! resolved against its own day (`event_date`): one row per period, both ends inclusive
//! `YYYY-MM-DD`, gone with the frame.
//!
//! A search filter's period ([`super::types::SearchFilter`]'s `since` and
//! `until`) takes a frame that **happened in it or names a period inside
//! it** ([`condition_sql`], [`frames_naming_within`]): "the end of June
//! 2025" finds the wedding, and a memory naming "2025" is not taken for a
//! question about one day of it.
//!
//! The rows are derived: every write of a frame's content writes them
//! ([`write_in`]), and `reindex` and the v15 step read every frame again
//! ([`read_all_in`]), so an improved reader reaches old minds.

use std::collections::HashSet;

use crate::sql::{Connection, params};

use super::error::StoreResult;

/// Write the mentions of frame `id` (its `content`, read against its
/// `event_date`: the day it was written in the writer's own calendar, so
/// "yesterday" said at 23:30 in New York is not read from the UTC date),
/// replacing any it had. An unreadable date reads no mentions (the frame
/// keeps its event date).
pub(crate) fn write_in(
    conn: &Connection,
    id: u64,
    content: &str,
    event_date: &str,
) -> StoreResult<()> {
    conn.prepare_cached("DELETE FROM memory_mentions WHERE frame_id = ?1")?
        .execute([id])?;
    let periods = hive_mind_core::dates::mentioned_periods(content, event_date).unwrap_or_default();
    let mut insert = conn.prepare_cached(
        "INSERT INTO memory_mentions (frame_id, since, until) VALUES (?1, ?2, ?3)",
    )?;
    for period in periods {
        insert.execute(params![id, period.since, period.until])?;
    }
    Ok(())
}

/// Read the mentions of every frame again (the v15 step, `reindex`).
/// Returns how many frames name at least one period.
pub(crate) fn read_all_in(conn: &Connection) -> StoreResult<u64> {
    conn.execute("DELETE FROM memory_mentions", [])?;
    let frames: Vec<(u64, String, String)> = conn.query_all(
        "SELECT id, content, event_date FROM memory_frames ORDER BY id",
        [],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    for (id, content, event_date) in &frames {
        write_in(conn, *id, content, event_date)?;
    }
    Ok(conn.query_row(
        "SELECT count(DISTINCT frame_id) FROM memory_mentions",
        [],
        |row| row.get(0),
    )?)
}

/// The frames that name a period lying within `since..=until` (either end
/// open when absent).
pub(crate) fn frames_naming_within(
    conn: &Connection,
    since: Option<&str>,
    until: Option<&str>,
) -> StoreResult<HashSet<u64>> {
    let ids: Vec<u64> = conn.query_all(
        "SELECT DISTINCT frame_id FROM memory_mentions
         WHERE (?1 IS NULL OR since >= ?1) AND (?2 IS NULL OR until <= ?2)",
        params![since, until],
        |row| row.get(0),
    )?;
    Ok(ids.into_iter().collect())
}

/// The SQL condition (over frame alias `f`) of a period: the event date in
/// it, or a named period inside it. `since` and `until` are the parameter
/// placeholders of the period's ends (`None`: open).
pub(crate) fn condition_sql(since: Option<&str>, until: Option<&str>) -> String {
    // `low` and `high` lie within the period (whichever ends it has).
    let within = |low: &str, high: &str| -> String {
        [
            since.map(|p| format!("{low} >= {p}")),
            until.map(|p| format!("{high} <= {p}")),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" AND ")
    };
    format!(
        "(({}) OR EXISTS (SELECT 1 FROM memory_mentions m WHERE m.frame_id = f.id AND {}))",
        within("f.event_date", "f.event_date"),
        within("m.since", "m.until")
    )
}
