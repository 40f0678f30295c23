//! The typed values of the WIT boundary that the store keeps as text.
//!
//! The store writes times as ISO-8601 text and a frame's metadata as a JSON
//! object, and marks a memory's kind (fact, event, profile, raw turn) in its
//! content, as minds written by every earlier engine do: the database does
//! not change. The WIT speaks typed values instead — a `timestamp` (Unix
//! milliseconds, signed), a `frame-metadata` record, a `memory-kind` — so a
//! host never parses a date, a JSON string or a content marking. This module
//! is the one translation between the two, both ways (tested across the
//! boundary in `tests/engine.rs`).

use hive_mind_core::recall::{EVENT_PREFIX, FACT_PREFIX, MindKey, PROFILE_PREFIX};
use hive_mind_core::{RawTurnTag, raw_turn_content};

use crate::hive::mind::types::{FrameMetadata, MemoryKind, Mind, Timestamp, TurnOrigin};

/// The instant a stored time names, in Unix milliseconds. The store checks
/// every time it writes, so text that does not parse (a database edited by
/// hand) reads as the epoch rather than failing the whole read.
pub fn millis(text: &str) -> Timestamp {
    hive_mind_core::calendar::parse_instant(text)
        .map(|instant| instant.timestamp_millis())
        .unwrap_or(0)
}

/// A timestamp as the ISO-8601 text the store keeps (`…T…Z`, with
/// milliseconds only when there are any); an instant chrono cannot represent
/// is an error naming it.
pub fn iso(timestamp: Timestamp) -> Result<String, String> {
    let instant = chrono::DateTime::from_timestamp_millis(timestamp)
        .ok_or_else(|| format!("timestamp {timestamp} ms is out of range"))?;
    let format = if timestamp.rem_euclid(1000) == 0 {
        "%Y-%m-%dT%H:%M:%SZ"
    } else {
        "%Y-%m-%dT%H:%M:%S%.3fZ"
    };
    Ok(instant.format(format).to_string())
}

/// A memory's content with its kind's marking, as the lanes find it: the
/// event's day comes from its event time (`created-at`, UTC), or today.
pub fn marked_content(kind: &MemoryKind, content: &str, created_at: Option<&str>) -> String {
    let text = content.trim();
    match kind {
        MemoryKind::Fact => format!("{FACT_PREFIX} {text}"),
        MemoryKind::Event => {
            let day = created_at
                .map(millis)
                .and_then(|at| iso(at).ok())
                .unwrap_or_else(now_iso)
                .get(..10)
                .unwrap_or_default()
                .to_string();
            format!("{EVENT_PREFIX} [{day}] {text}")
        }
        MemoryKind::Profile(name) => format!("{PROFILE_PREFIX} {}] {text}", name.trim()),
        MemoryKind::RawTurn(origin) => raw_turn_content(
            &origin.conversation,
            usize::try_from(origin.turn).unwrap_or(usize::MAX),
            &origin.speaker,
            text,
        ),
    }
}

/// The current time as the store writes it.
fn now_iso() -> String {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    iso(i64::try_from(since_epoch.as_millis()).unwrap_or(0)).unwrap_or_default()
}

/// The kind a stored content is marked as, with a raw turn's origin from
/// the metadata the import recorded (its speaker as spoken) or, for a mind
/// imported before that was recorded, from the content's own tag.
fn kind_of(content: &str, metadata: &serde_json::Value) -> Option<MemoryKind> {
    if content.starts_with(FACT_PREFIX) {
        return Some(MemoryKind::Fact);
    }
    if content.starts_with(EVENT_PREFIX) {
        return Some(MemoryKind::Event);
    }
    if let Some(rest) = content.strip_prefix(PROFILE_PREFIX) {
        let name = rest
            .split_once(']')
            .map(|(name, _)| name.trim().to_string());
        return Some(MemoryKind::Profile(name.unwrap_or_default()));
    }
    let tag = RawTurnTag::parse(content)?;
    let recorded = |key: &str| metadata.get(key);
    let conversation = recorded("conv")
        .and_then(|value| value.as_str())
        .map_or(tag.conv, str::to_string);
    let turn = recorded("turn")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(tag.turn);
    let speaker = recorded("speaker")
        .and_then(|value| value.as_str())
        .map_or(tag.speaker, str::to_string);
    Some(MemoryKind::RawTurn(TurnOrigin {
        conversation,
        turn: u32::try_from(turn).unwrap_or(u32::MAX),
        speaker,
    }))
}

/// A stored frame's metadata (a JSON object) and content as the typed
/// record; keys the engine never wrote are not carried.
pub fn metadata(content: &str, json: &str) -> FrameMetadata {
    let value: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    let harvest = value.get("harvest");
    let text = |found: Option<&serde_json::Value>| {
        found.and_then(|value| value.as_str()).map(str::to_string)
    };
    FrameMetadata {
        kind: kind_of(content, &value),
        harvest_format: text(harvest.and_then(|harvest| harvest.get("format"))),
        document: text(value.get("doc")),
        provenance: text(value.get("provenance")),
        confidence: value.get("confidence").and_then(serde_json::Value::as_f64),
        write_back: text(value.get("pattern")),
    }
}

/// The engine's injection report on `text`, in the WIT's terms: the
/// detector every write is screened with ([`hive_mind_core::detect`]).
pub fn injection_report(
    text: &str,
    context: crate::hive::mind::types::ScanContext,
) -> crate::hive::mind::types::InjectionReport {
    use crate::hive::mind::types::{InjectionCategory, InjectionReport, ScanContext};
    use hive_mind_core as core;
    let context = match context {
        ScanContext::UserInput => core::ScanContext::UserInput,
        ScanContext::ToolOutput => core::ScanContext::ToolOutput,
    };
    let report = core::detect(text, context);
    InjectionReport {
        flags: report
            .flags
            .into_iter()
            .map(|flag| match flag {
                core::InjectionCategory::RoleOverride => InjectionCategory::RoleOverride,
                core::InjectionCategory::PromptExtraction => InjectionCategory::PromptExtraction,
                core::InjectionCategory::InstructionInjection => {
                    InjectionCategory::InstructionInjection
                }
            })
            .collect(),
        matched: report.matched,
        score: report.score,
        safe: report.safe,
        threshold: report.threshold,
        detector: report.detector,
        reasons: report.reasons,
    }
}

/// A WIT mind as the core names it.
pub fn mind_key(mind: &Mind) -> MindKey {
    match mind {
        Mind::Personal => MindKey::Personal,
        Mind::Workspace(id) => MindKey::Workspace(id.clone()),
    }
}
