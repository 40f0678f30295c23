//! Reading timestamps: the one place that turns ISO-8601 text into instants
//! and calendar dates, shared by relevance scoring and the date functions.
//!
//! Accepted forms: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]]` followed by `Z`
//! or `±HH:MM` (RFC 3339), the same without a zone, and SQLite's
//! `YYYY-MM-DD HH:MM:SS`. A timestamp without a zone is taken as UTC.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

use crate::types::LogicError;

/// The instant a timestamp names, in UTC.
pub fn parse_instant(text: &str) -> Result<DateTime<Utc>, LogicError> {
    let text = text.trim();
    if let Ok(with_zone) = DateTime::parse_from_rfc3339(text) {
        return Ok(with_zone.with_timezone(&Utc));
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, format) {
            return Ok(naive.and_utc());
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(date.and_time(NaiveTime::MIN).and_utc());
    }
    Err(LogicError::InvalidArgument(format!(
        "not an ISO-8601 date or date-time: {text:?} (expected e.g. 2026-05-08 or 2026-05-08T13:56:00Z)"
    )))
}

/// The calendar date a timestamp is written in: its own local date, not the
/// UTC one (`2026-05-08T23:30:00-05:00` is on 2026-05-08).
pub fn parse_local_date(text: &str) -> Result<NaiveDate, LogicError> {
    let text = text.trim();
    if let Ok(with_zone) = DateTime::parse_from_rfc3339(text) {
        return Ok(with_zone.date_naive());
    }
    parse_instant(text).map(|instant| instant.date_naive())
}

/// A date as `YYYY-MM-DD`.
pub fn format_date(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_accepted_form() {
        let cases = [
            ("2026-05-08", "2026-05-08T00:00:00+00:00"),
            ("2026-05-08T13:56:00Z", "2026-05-08T13:56:00+00:00"),
            (
                "2026-05-08T13:56:00.250+02:00",
                "2026-05-08T11:56:00.250+00:00",
            ),
            ("2026-05-08T13:56:00", "2026-05-08T13:56:00+00:00"),
            ("2026-05-08 13:56:00", "2026-05-08T13:56:00+00:00"),
            ("2026-05-08T13:56", "2026-05-08T13:56:00+00:00"),
        ];
        for (input, expected) in cases {
            let parsed = parse_instant(input).map(|t| t.to_rfc3339());
            assert_eq!(parsed.as_deref(), Ok(expected), "{input}");
        }
    }

    #[test]
    fn rejects_what_is_not_a_timestamp() {
        for bad in ["", "yesterday", "2026-13-01", "2026-02-30", "08/05/2026"] {
            assert!(parse_instant(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn local_date_keeps_the_written_day() {
        let date = parse_local_date("2026-05-08T23:30:00-05:00").map(format_date);
        assert_eq!(date.as_deref(), Ok("2026-05-08"));
    }
}
