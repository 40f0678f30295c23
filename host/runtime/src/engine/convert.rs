//! Names ⇄ WIT values, for the user surfaces (CLI flags, MCP arguments,
//! JSON output).
//!
//! The engine speaks typed WIT values; people and agents speak names
//! (`personal`, `workspace:acme`, `important`, `semantic`). This module
//! reads and writes them. It decides nothing: the vocabulary is the WIT's
//! (an enum's case names come from [`super::wit_names`], generated from
//! `wit/`), and a workspace id is validated again by the engine (and the
//! database name by [`hive_mind_sqlite`]).

use super::wit_memory::{RecallScope, RelevanceFloor};
use super::wit_names::{WitEnum, WitVariant, one_of};
use super::wit_types::{
    Frame, FrameMetadata, FrameRef, Importance, MemoryKind, Mind, ScoringProfile, Source, Timestamp,
};

/// A mind as written: `personal` or `workspace:<id>`.
pub fn mind_name(mind: &Mind) -> String {
    match mind {
        Mind::Personal => "personal".to_string(),
        Mind::Workspace(id) => format!("workspace:{id}"),
    }
}

/// A workspace mind by id, checked as the host's database names are
/// (1–64 of `[A-Za-z0-9._-]`, not starting with a dot).
pub fn workspace(id: &str) -> Result<Mind, String> {
    if hive_mind_sqlite::valid_workspace_id(id) {
        Ok(Mind::Workspace(id.to_string()))
    } else {
        Err(format!(
            "invalid workspace id {id:?}: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'"
        ))
    }
}

/// A mind by name (`personal`, `workspace:<id>`).
pub fn mind_in(name: &str) -> Result<Mind, String> {
    match name {
        "personal" => Ok(Mind::Personal),
        _ => match name.strip_prefix("workspace:") {
            Some(id) => workspace(id),
            None => Err(format!(
                "unknown mind {name:?}: expected personal or workspace:<id>"
            )),
        },
    }
}

/// A frame reference as written: `personal:42`, `workspace:acme:42`.
pub fn ref_name(frame_ref: &FrameRef) -> String {
    format!("{}:{}", mind_name(&frame_ref.mind), frame_ref.id)
}

/// A frame reference by name (`personal:42`, `workspace:acme:42`).
pub fn ref_in(name: &str) -> Result<FrameRef, String> {
    let (mind, id) = name
        .rsplit_once(':')
        .ok_or_else(|| format!("invalid frame reference {name:?}: expected MIND:ID"))?;
    let id = id
        .parse()
        .map_err(|_| format!("invalid frame reference {name:?}: the id is not a number"))?;
    Ok(FrameRef {
        mind: mind_in(mind)?,
        id,
    })
}

/// A case of a WIT enum by its WIT name; the error names `what` was asked
/// for and the allowed values (`unknown scope "x": expected personal,
/// current or all`).
pub fn name_in<T: WitEnum>(what: &str, name: &str) -> Result<T, String> {
    T::from_wit_name(name)
        .ok_or_else(|| format!("unknown {what} {name:?}: expected {}", one_of::<T>()))
}

/// An importance by name.
pub fn importance_in(name: &str) -> Result<Importance, String> {
    name_in("importance", name)
}

/// A source by name.
pub fn source_in(name: &str) -> Result<Source, String> {
    name_in("source", name)
}

/// A timestamp (Unix milliseconds) as ISO-8601 UTC text
/// (`2026-05-08T13:56:00Z`, with milliseconds only when there are any).
pub fn timestamp_name(timestamp: Timestamp) -> String {
    match chrono::DateTime::from_timestamp_millis(timestamp) {
        Some(instant) if timestamp.rem_euclid(1000) == 0 => {
            instant.format("%Y-%m-%dT%H:%M:%SZ").to_string()
        }
        Some(instant) => instant.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        None => format!("{timestamp} ms"),
    }
}

/// A timestamp from ISO-8601 text: RFC 3339 (`2026-05-08T13:56:00Z`,
/// `…+02:00`), a date-time without a zone (taken as UTC), or a date alone
/// (its midnight UTC).
pub fn timestamp_in(text: &str) -> Result<Timestamp, String> {
    let text = text.trim();
    if let Ok(instant) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(instant.timestamp_millis());
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(naive) = chrono::NaiveDateTime::parse_from_str(text, format) {
            return Ok(naive.and_utc().timestamp_millis());
        }
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(|date| date.and_time(chrono::NaiveTime::MIN).and_utc().timestamp_millis())
        .map_err(|_| {
            format!("not an ISO-8601 date or date-time: {text:?} (expected e.g. 2026-05-08 or 2026-05-08T13:56:00Z)")
        })
}

/// A memory kind as JSON: `fact`, `event`, `{"profile": NAME}` or
/// `{"raw-turn": {conversation, turn, speaker}}`.
pub fn kind_json(kind: &MemoryKind) -> serde_json::Value {
    match kind {
        MemoryKind::Fact | MemoryKind::Event => serde_json::json!(kind.wit_case()),
        MemoryKind::Profile(name) => serde_json::json!({ kind.wit_case(): name }),
        MemoryKind::RawTurn(origin) => serde_json::json!({ kind.wit_case(): {
            "conversation": origin.conversation,
            "turn": origin.turn,
            "speaker": origin.speaker,
        }}),
    }
}

/// A frame's metadata as JSON, by WIT field name (absent fields are null).
pub fn metadata_json(metadata: &FrameMetadata) -> serde_json::Value {
    serde_json::json!({
        "kind": metadata.kind.as_ref().map(kind_json),
        "harvest-format": metadata.harvest_format,
        "document": metadata.document,
        "provenance": metadata.provenance,
        "confidence": metadata.confidence,
        "write-back": metadata.write_back,
    })
}

/// A frame as JSON, with every field by its WIT name (times as ISO-8601).
pub fn frame_json(frame: &Frame) -> serde_json::Value {
    serde_json::json!({
        "ref": ref_name(&frame.ref_),
        "frame-type": frame.frame_type.wit_name(),
        "gop-id": frame.gop_id,
        "t": frame.t,
        "base-frame": frame.base_frame.as_ref().map(ref_name),
        "content": frame.content,
        "text": frame.text,
        "importance": frame.importance.wit_name(),
        "source": frame.source.wit_name(),
        "access-count": frame.access_count,
        "created-at": timestamp_name(frame.created_at),
        "inserted-at": timestamp_name(frame.inserted_at),
        "last-accessed": frame.last_accessed.map(timestamp_name),
        "content-hash": frame.content_hash,
        "metadata": metadata_json(&frame.metadata),
        "valid-to": frame.valid_to.map(timestamp_name),
        "superseded-by": frame.superseded_by.as_ref().map(ref_name),
        "status": frame.status.wit_name(),
        "pinned": frame.pinned,
        "tags": frame.tags,
        "merged-into": frame.merged_into.as_ref().map(ref_name),
        "released": frame.released,
        "screening": frame.screening.as_ref().map(|screening| serde_json::json!({
            "score": screening.score,
            "detector": screening.detector,
            "reasons": screening.reasons,
            "quarantined": screening.quarantined,
        })),
    })
}

/// A scoring profile by name (`balanced`, `recent`, `important`,
/// `connected`); the error names the allowed values.
pub fn profile_in(name: &str) -> Result<ScoringProfile, String> {
    name_in("profile", name)
}

/// A recall scope by name (`personal`, `current`, `all`); the error names
/// the allowed values.
pub fn scope_in(name: &str) -> Result<RecallScope, String> {
    name_in("scope", name)
}

/// The relevance floor turned off: every hit counts and the standing lanes
/// always show (`--no-floor`).
pub const NO_FLOOR: RelevanceFloor = RelevanceFloor {
    min_cosine: f64::NEG_INFINITY,
    lexical_match: true,
    standing_lanes_always: true,
};
