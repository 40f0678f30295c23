//! The store's clock: the one format every stored time is written in, the
//! current time in it, and the reading of an event time a caller hands in.
//!
//! Every table's times are ISO-8601 text in UTC with milliseconds and a `Z`
//! ([`TIME_FORMAT`]), so they sort as text and compare in SQL. Every
//! writer stamps with [`now`]; a frame's event time, which a caller may
//! write in any offset, is read by [`parse_event_time`] into the stored
//! instant and the calendar date as the caller wrote it.
//!
//! A leaf: it needs nothing of the store, so every module can use it — the
//! migrations ([`super::schema`]) included, without a circle through the
//! modules whose live code a migration step runs (v11 chains slots with
//! [`super::slots`], which stamps with [`now`]). The migrations' own
//! frozen copy of the format (`V2_TIME_FORMAT`) stays with them.

/// The current timestamp format: UTC with milliseconds, `Z`; sorts as text.
pub const TIME_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.3fZ";

/// Now, as stored.
pub fn now() -> String {
    chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now())
        .format(TIME_FORMAT)
        .to_string()
}

/// Read an event time: the UTC instant in the stored format, and the calendar
/// date as written (`2026-05-08T23:30:00-05:00` is the 8th of May).
pub fn parse_event_time(text: &str) -> Result<(String, String), String> {
    let instant = hive_mind_core::calendar::parse_instant(text).map_err(|e| e.to_string())?;
    let date = hive_mind_core::calendar::parse_local_date(text).map_err(|e| e.to_string())?;
    Ok((
        instant.format(TIME_FORMAT).to_string(),
        hive_mind_core::calendar::format_date(date),
    ))
}
