//! Timestamps: whatever an export wrote → ISO-8601 UTC `YYYY-MM-DDTHH:MM:SSZ`.
//!
//! Exports disagree about time. ChatGPT writes epoch seconds as floats
//! (`1714555800.123456`), some tools write epoch milliseconds as integers,
//! claude.ai and Claude Code write RFC 3339 strings with fractions and a `Z`
//! or an offset, front matter writes a bare date, Google Takeout's HTML page
//! writes `Mar 5, 2024, 10:15:30 AM PST`. Everything is normalised to one
//! form, at second resolution (fractions are cut, not rounded, so the same
//! instant always gives the same string).
//!
//! Choices:
//! - **Seconds or milliseconds** is decided by magnitude: a number above
//!   10¹¹ is milliseconds (10¹¹ seconds is the year 5138, 10¹¹ ms is 1973).
//! - **A time without an offset** is read as UTC: it is what the exports
//!   that omit it mean, and a guess of the reader's zone would make the same
//!   file import differently on two machines.
//! - **Years outside 1000–9999** are refused: they are garbage, and they do
//!   not fit the fixed-width form the store sorts by.
//! - An unreadable timestamp is `None` (the adapter notes it), never an
//!   error: a message without a time is still a message.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// Numbers above this are epoch milliseconds, below it epoch seconds.
const MILLIS_THRESHOLD: f64 = 1e11;

/// The one output form.
fn render(instant: DateTime<Utc>) -> Option<String> {
    if !(1000..=9999).contains(&instant.year()) {
        return None;
    }
    Some(instant.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// Epoch seconds (or milliseconds, by magnitude) → ISO-8601 UTC.
pub(crate) fn from_epoch(value: f64) -> Option<String> {
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    let seconds = if value > MILLIS_THRESHOLD {
        value / 1000.0
    } else {
        value
    };
    // Truncate towards zero: fractions are cut so one instant is one string.
    let whole = seconds.trunc();
    if whole > 253_402_300_799.0 {
        // Past 9999-12-31T23:59:59Z.
        return None;
    }
    let secs = whole as i64;
    render(DateTime::<Utc>::from_timestamp(secs, 0)?)
}

/// An ISO-8601 / RFC 3339 string (or a numeric string of epoch seconds) →
/// ISO-8601 UTC.
pub(crate) fn from_text(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() || text.len() > 64 {
        return None;
    }
    if let Ok(number) = text.parse::<f64>() {
        return from_epoch(number);
    }
    if let Ok(instant) = DateTime::parse_from_rfc3339(text) {
        return render(instant.with_timezone(&Utc));
    }
    // RFC 3339 with a space instead of the `T`, or an offset without colon.
    let with_t = text.replacen(' ', "T", 1);
    if let Ok(instant) = DateTime::parse_from_rfc3339(&with_t) {
        return render(instant.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%dT%H:%M%z"] {
        if let Ok(instant) = DateTime::parse_from_str(&with_t, format) {
            return render(instant.with_timezone(&Utc));
        }
    }
    // No offset: read as UTC.
    let naive = with_t.trim_end_matches('Z');
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"] {
        if let Ok(local) = NaiveDateTime::parse_from_str(naive, format) {
            return render(Utc.from_utc_datetime(&local));
        }
    }
    for format in ["%Y-%m-%d", "%Y/%m/%d"] {
        if let Ok(date) = NaiveDate::parse_from_str(text, format) {
            return render(Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0)?));
        }
    }
    None
}

/// A PDF date string (`D:20240501093000+02'00'`, any tail optional) →
/// ISO-8601 UTC.
pub(crate) fn from_pdf_date(text: &str) -> Option<String> {
    let text = text.trim();
    let body = text.strip_prefix("D:").unwrap_or(text);
    let digits: String = body.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() < 4 {
        return None;
    }
    let field = |from: usize, to: usize, default: u32| -> Option<u32> {
        match digits.get(from..to) {
            Some(part) => part.parse().ok(),
            None => Some(default),
        }
    };
    let year: i32 = digits.get(0..4)?.parse().ok()?;
    let naive = NaiveDate::from_ymd_opt(year, field(4, 6, 1)?, field(6, 8, 1)?)?.and_hms_opt(
        field(8, 10, 0)?,
        field(10, 12, 0)?,
        field(12, 14, 0)?,
    )?;
    let rest = body.trim_start_matches(|c: char| c.is_ascii_digit());
    let mut after_digits = rest.chars();
    let offset_seconds = match after_digits.next() {
        Some(sign @ ('+' | '-')) => {
            let numbers: String = after_digits.filter(char::is_ascii_digit).take(4).collect();
            let hours: i64 = numbers.get(0..2).and_then(|h| h.parse().ok()).unwrap_or(0);
            let minutes: i64 = numbers.get(2..4).and_then(|m| m.parse().ok()).unwrap_or(0);
            let magnitude = hours * 3600 + minutes * 60;
            if sign == '-' { -magnitude } else { magnitude }
        }
        _ => 0,
    };
    let utc = Utc.from_utc_datetime(&naive) - chrono::Duration::seconds(offset_seconds);
    render(utc)
}

/// Google Takeout's English activity-page form, `Mar 5, 2024, 10:15:30 AM
/// PST` (Takeout writes a narrow no-break space before `AM` in newer pages).
/// Only the zone abbreviations listed here are known; any other gives `None`.
pub(crate) fn from_takeout_english(text: &str) -> Option<String> {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == '\u{202f}' || c == '\u{a0}' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    let (stamp, zone) = cleaned.rsplit_once(' ')?;
    let offset_minutes: i64 = match zone {
        "UTC" | "GMT" | "WET" => 0,
        "PST" => -8 * 60,
        "PDT" | "MST" => -7 * 60,
        "MDT" | "CST" => -6 * 60,
        "CDT" | "EST" => -5 * 60,
        "EDT" => -4 * 60,
        "BST" | "CET" | "WEST" => 60,
        "CEST" | "EET" => 2 * 60,
        "EEST" | "MSK" => 3 * 60,
        "IST" => 5 * 60 + 30,
        "JST" | "KST" => 9 * 60,
        "AEST" => 10 * 60,
        "AEDT" => 11 * 60,
        _ => return None,
    };
    let local = NaiveDateTime::parse_from_str(stamp, "%b %d, %Y, %I:%M:%S %p").ok()?;
    render(Utc.from_utc_datetime(&local) - chrono::Duration::minutes(offset_minutes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_seconds_and_millis() {
        assert_eq!(
            from_epoch(1_714_555_800.987).as_deref(),
            Some("2024-05-01T09:30:00Z")
        );
        assert_eq!(
            from_epoch(1_714_555_800_987.0).as_deref(),
            Some("2024-05-01T09:30:00Z")
        );
        assert_eq!(from_epoch(f64::NAN), None);
        assert_eq!(from_epoch(-5.0), None);
        assert_eq!(from_epoch(1e300), None);
    }

    #[test]
    fn iso_forms() {
        for text in [
            "2024-05-01T09:30:00Z",
            "2024-05-01T09:30:00.123456Z",
            "2024-05-01T11:30:00+02:00",
            "2024-05-01 09:30:00",
            "2024-05-01T04:30:00-0500",
            "1714555800",
        ] {
            assert_eq!(
                from_text(text).as_deref(),
                Some("2024-05-01T09:30:00Z"),
                "{text}"
            );
        }
        assert_eq!(
            from_text("2024-05-01").as_deref(),
            Some("2024-05-01T00:00:00Z")
        );
        assert_eq!(from_text("yesterday"), None);
    }

    #[test]
    fn pdf_and_takeout_dates() {
        assert_eq!(
            from_pdf_date("D:20240501113000+02'00'").as_deref(),
            Some("2024-05-01T09:30:00Z")
        );
        assert_eq!(
            from_pdf_date("D:2024").as_deref(),
            Some("2024-01-01T00:00:00Z")
        );
        assert_eq!(
            from_takeout_english("May 1, 2024, 2:30:00\u{202f}AM PDT").as_deref(),
            Some("2024-05-01T09:30:00Z")
        );
        assert_eq!(from_takeout_english("1. 5. 2024 11:30:00 SELČ"), None);
    }
}
