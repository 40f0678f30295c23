//! A mind, portable: export to JSON Lines and restore into an empty mind.
//!
//! # The format (`hive-mind-export`, version 1)
//!
//! One JSON object per line, UTF-8, `\n` between lines:
//!
//! 1. The header: `{"type": "hive-mind-export", "format": 1, "schema": 11,
//!    "mind": "personal", "exported_at": "…", "embedder": "provider/model
//!    (dim dims)" or null}`.
//! 2. One line per row of the tables in [`PORTABLE_TABLES`], in that order
//!    (parents before children), each table by its key:
//!    `{"type": "row", "table": "memory_frames", "row": {"id": 1, …}}`. The
//!    columns are exactly the table's listed ones, with their stored values
//!    (times as ISO-8601 text, metadata as a JSON object's text).
//! 3. The trailer: `{"type": "end", "rows": N, "sha256": "…"}`, the SHA-256
//!    of every line before it, each followed by `\n`. A cut or edited export
//!    fails this check, and each frame's content must match its content
//!    hash, so a changed memory is caught even with a recomputed trailer.
//!
//! Vectors and chunks are not exported: they belong to the model that made
//! them. A restored mind's frames are embedded by the restoring engine's
//! model (`reindex`, which the surfaces run after a restore). The derived
//! indexes (full text, the vector change log) are rebuilt by the same
//! triggers a save fires.
//!
//! # Restore
//!
//! [`MindStore::restore`] reads every line first (header, trailer, each
//! row's table and columns, each frame's hash) and writes nothing unless
//! all of it is right; then it inserts every row in one transaction with
//! the foreign keys checked at the commit. Only into an empty mind: the
//! ids are the export's, so an export restored and exported again gives
//! the same lines (but for the header's time and any screening verdict
//! this engine's detector judges differently).
//!
//! The screening verdict columns are the one thing restore does not copy
//! as they stand: an export is a file anyone can edit, so a hostile memory
//! marked `quarantined = 0` must not come back trusted. Every restored
//! frame is screened again at insert, in the same transaction, by the same
//! `screen_in` the save path uses; the owner's release (`released_at`) is
//! carried over, so a frame they released stays released. Once every row
//! is in, each slot that holds a quarantined frame is chained again
//! without it, so a restored hostile frame closes no true one (whatever
//! links the export carried).

use sha2::Digest as _;

use crate::sql::{TransactionBehavior, Value};

use super::MindStore;
use super::clock::now;
use super::error::{StoreError, StoreResult};
use super::frames::screen_in;
use super::schema::SCHEMA_VERSION;

/// The format's name, in the header.
pub const FORMAT_NAME: &str = "hive-mind-export";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u64 = 1;

/// The tables an export carries and their columns, parents first.
pub const PORTABLE_TABLES: [(&str, &[&str]); 13] = [
    (
        "sessions",
        &[
            "id",
            "gop_id",
            "project",
            "status",
            "started_at",
            "ended_at",
            "summary",
            "title",
        ],
    ),
    (
        "memory_frames",
        &[
            "id",
            "frame_type",
            "gop_id",
            "t",
            "base_frame_id",
            "content",
            "importance",
            "source",
            "access_count",
            "created_at",
            "event_date",
            "inserted_at",
            "last_accessed",
            "content_hash",
            "metadata",
            "context",
            "valid_to",
            "superseded_by",
            "superseded_at",
            "slot",
            "status",
            "pinned",
            "tags",
            "merged_into",
            "released_at",
            "screen_score",
            "screen_detector",
            "screen_reasons",
            "quarantined",
        ],
    ),
    (
        "memory_pair_verdicts",
        &["older_id", "newer_id", "verdict", "decided_at"],
    ),
    (
        "memory_frame_links",
        &["frame_id", "related_id", "similarity", "created_at"],
    ),
    (
        "knowledge_entities",
        &[
            "id",
            "entity_type",
            "name",
            "normalized_name",
            "properties",
            "seen_count",
            "valid_from",
            "valid_to",
            "created_at",
        ],
    ),
    ("kg_entity_frames", &["entity_id", "frame_id"]),
    (
        "knowledge_relations",
        &[
            "id",
            "source_id",
            "target_id",
            "relation_type",
            "confidence",
            "properties",
            "seen_count",
            "valid_from",
            "valid_to",
            "created_at",
        ],
    ),
    (
        "identity",
        &[
            "id",
            "name",
            "role",
            "personality",
            "capabilities",
            "system_prompt",
            "updated_at",
        ],
    ),
    (
        "awareness",
        &[
            "id",
            "category",
            "content",
            "priority",
            "metadata",
            "created_at",
            "expires_at",
        ],
    ),
    (
        "harvest_sources",
        &[
            "id",
            "format",
            "name",
            "set_hash",
            "items",
            "first_imported",
            "last_imported",
        ],
    ),
    (
        "harvest_items",
        &[
            "format",
            "item_id",
            "item_hash",
            "source_id",
            "outcome",
            "frames",
            "imported_at",
        ],
    ),
    (
        "memory_erasures",
        &[
            "id",
            "erased_at",
            "frame_id",
            "content_hash",
            "event_date",
            "reason",
            "request",
        ],
    ),
    (
        "memory_reviews",
        &["id", "at", "frame_id", "action", "detail"],
    ),
];

/// What a restore wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restored {
    /// Rows written, by table, in [`PORTABLE_TABLES`] order.
    pub rows: Vec<(String, u64)>,
    /// Frames written (all without vectors until a reindex).
    pub frames: u64,
}

fn value_json(value: Value) -> serde_json::Value {
    match value {
        Value::Integer(n) => serde_json::Value::from(n),
        Value::Real(x) => serde_json::Value::from(x),
        Value::Text(text) => serde_json::Value::from(text),
        // No exported column holds bytes; a blob is carried as null rather
        // than as bytes another reader cannot type.
        Value::Blob(_) | Value::Null => serde_json::Value::Null,
    }
}

fn json_value(value: &serde_json::Value) -> Option<Value> {
    match value {
        serde_json::Value::Null => Some(Value::Null),
        serde_json::Value::Bool(flag) => Some(Value::Integer(i64::from(*flag))),
        serde_json::Value::Number(number) => number
            .as_i64()
            .map(Value::Integer)
            .or_else(|| number.as_f64().map(Value::Real)),
        serde_json::Value::String(text) => Some(Value::Text(text.clone())),
        serde_json::Value::Array(_) | serde_json::Value::Object(_) => None,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn bad(line: usize, why: impl std::fmt::Display) -> StoreError {
    StoreError::InvalidInput(format!("export line {line}: {why}"))
}

/// One row to insert.
struct RowLine {
    table: &'static str,
    columns: &'static [&'static str],
    values: Vec<Value>,
}

/// A restored frame's id and text, to screen it.
fn frame_id_and_content(row: &RowLine) -> StoreResult<(u64, &str)> {
    let column = |name: &str| {
        row.columns
            .iter()
            .position(|column| *column == name)
            .and_then(|at| row.values.get(at))
    };
    let id = match column("id") {
        Some(Value::Integer(id)) => u64::try_from(*id).ok(),
        _ => None,
    };
    let content = match column("content") {
        Some(Value::Text(content)) => Some(content.as_str()),
        _ => None,
    };
    match (id, content) {
        (Some(id), Some(content)) => Ok((id, content)),
        _ => Err(StoreError::InvalidInput(
            "a memory in the export has no id or no text".to_string(),
        )),
    }
}

/// A JSON object's field (null when missing).
fn field<'a>(value: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    value.get(key).unwrap_or(&serde_json::Value::Null)
}

/// Read and check every line of an export (see the module docs).
fn parse(lines: &[String]) -> StoreResult<Vec<RowLine>> {
    let (header, rest) = lines
        .split_first()
        .ok_or_else(|| StoreError::InvalidInput("the export is empty".to_string()))?;
    let header: serde_json::Value =
        serde_json::from_str(header).map_err(|error| bad(1, format!("not JSON ({error})")))?;
    if field(&header, "type") != FORMAT_NAME {
        return Err(bad(1, format!("not a {FORMAT_NAME} header")));
    }
    let format = field(&header, "format").as_u64().unwrap_or(0);
    if format > FORMAT_VERSION {
        return Err(bad(
            1,
            format!(
                "format version {format} is newer than this hive-mind reads ({FORMAT_VERSION}); upgrade hive-mind"
            ),
        ));
    }
    if format == 0 {
        return Err(bad(1, "the header has no format version"));
    }
    let (trailer, body) = rest.split_last().ok_or_else(|| {
        StoreError::InvalidInput("the export has no end line: it was cut off".to_string())
    })?;
    let trailer: serde_json::Value = serde_json::from_str(trailer).map_err(|_| {
        StoreError::InvalidInput(format!(
            "export line {}: the last line is not the end line: the export was cut off",
            lines.len()
        ))
    })?;
    if field(&trailer, "type") != "end" {
        return Err(StoreError::InvalidInput(format!(
            "export line {}: the last line is not the end line: the export was cut off",
            lines.len()
        )));
    }
    let mut digest = sha2::Sha256::new();
    for line in lines.iter().take(lines.len().saturating_sub(1)) {
        digest.update(line.as_bytes());
        digest.update(b"\n");
    }
    if field(&trailer, "sha256").as_str() != Some(hex(&digest.finalize()).as_str()) {
        return Err(StoreError::InvalidInput(
            "the export's checksum does not match its lines: it was changed or cut".to_string(),
        ));
    }
    if field(&trailer, "rows").as_u64() != Some(body.len() as u64) {
        return Err(StoreError::InvalidInput(format!(
            "the export says {} rows but holds {}",
            field(&trailer, "rows"),
            body.len()
        )));
    }
    let mut rows = Vec::with_capacity(body.len());
    for (index, line) in body.iter().enumerate() {
        let number = index + 2;
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|error| bad(number, format!("not JSON ({error})")))?;
        let table = field(&value, "table").as_str().unwrap_or_default();
        let (table, columns) = PORTABLE_TABLES
            .iter()
            .find(|(name, _)| *name == table)
            .ok_or_else(|| bad(number, format!("unknown table {table:?}")))?;
        let row = field(&value, "row")
            .as_object()
            .ok_or_else(|| bad(number, "no row object"))?;
        if let Some(extra) = row.keys().find(|key| !columns.contains(&key.as_str())) {
            return Err(bad(number, format!("{table} has no column {extra:?}")));
        }
        let values = columns
            .iter()
            .map(|column| {
                json_value(row.get(*column).unwrap_or(&serde_json::Value::Null))
                    .ok_or_else(|| bad(number, format!("{table}.{column} is not a plain value")))
            })
            .collect::<StoreResult<Vec<Value>>>()?;
        if *table == "memory_frames" {
            let content = row
                .get("content")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            if row.get("content_hash").and_then(serde_json::Value::as_str)
                != Some(&hive_mind_core::content_hash(content))
            {
                return Err(bad(
                    number,
                    "the memory's text does not match its content hash: the export was changed",
                ));
            }
        }
        rows.push(RowLine {
            table,
            columns,
            values,
        });
    }
    Ok(rows)
}

impl MindStore {
    /// Export the mind: every line of the format (see the module docs), read
    /// in one transaction, so the export is one consistent state of the
    /// mind even while other processes write.
    pub fn export_lines(&self) -> StoreResult<Vec<String>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Deferred)?;
        let mut lines = vec![
            serde_json::json!({
                "type": FORMAT_NAME,
                "format": FORMAT_VERSION,
                "schema": SCHEMA_VERSION,
                "mind": self.mind.to_string(),
                "exported_at": now(),
                "embedder": self.active_embedder.as_ref().map(ToString::to_string),
            })
            .to_string(),
        ];
        for (table, columns) in PORTABLE_TABLES {
            let order = if columns.first() == Some(&"id") {
                "id".to_string()
            } else {
                columns.join(", ")
            };
            let sql = format!(
                "SELECT {} FROM {table} ORDER BY {order}",
                columns.join(", ")
            );
            let rows = tx.query_all(&sql, [], |row| {
                let mut object = serde_json::Map::new();
                for (index, column) in columns.iter().enumerate() {
                    object.insert((*column).to_string(), value_json(row.get(index)?));
                }
                Ok(object)
            })?;
            for row in rows {
                lines.push(
                    serde_json::json!({"type": "row", "table": table, "row": row}).to_string(),
                );
            }
        }
        tx.commit()?;
        let mut digest = sha2::Sha256::new();
        for line in &lines {
            digest.update(line.as_bytes());
            digest.update(b"\n");
        }
        let rows = lines.len().saturating_sub(1);
        lines.push(
            serde_json::json!({"type": "end", "rows": rows, "sha256": hex(&digest.finalize())})
                .to_string(),
        );
        Ok(lines)
    }

    /// The mind for a person to read: a Markdown document of its memories
    /// by event day, newest day first, each with its importance and source,
    /// a replaced one marked with when and by what. Not restorable (the
    /// JSON Lines export is).
    pub fn export_markdown(&self) -> StoreResult<Vec<String>> {
        let frames = self.conn.query_all(
            "SELECT id, content, importance, source, event_date, valid_to, superseded_by
             FROM memory_frames WHERE frame_type != 'b-frame'
             ORDER BY event_date DESC, created_at DESC, id DESC",
            [],
            |row| {
                Ok((
                    row.get::<_, u64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, Option<String>>(5)?,
                    row.get::<_, Option<u64>>(6)?,
                ))
            },
        )?;
        let mut lines = vec![
            format!("# hive-mind: {}", self.mind),
            String::new(),
            format!("Exported {}: {} memories.", now(), frames.len()),
        ];
        let mut day = String::new();
        for (id, content, importance, source, event_date, valid_to, superseded_by) in frames {
            if event_date != day {
                lines.push(String::new());
                lines.push(format!("## {event_date}"));
                lines.push(String::new());
                day = event_date;
            }
            let replaced = match (valid_to, superseded_by) {
                (Some(until), Some(by)) => format!("; replaced {until} by #{by}"),
                (Some(until), None) => format!("; valid until {until}"),
                _ => String::new(),
            };
            let text = content.split_whitespace().collect::<Vec<_>>().join(" ");
            lines.push(format!(
                "- #{id} {text} *({importance}, {source}{replaced})*"
            ));
        }
        Ok(lines)
    }

    /// Restore an export into this mind, which must be empty (see the
    /// module docs). Nothing is written unless every line is right.
    pub fn restore(&mut self, lines: &[String]) -> StoreResult<Restored> {
        let rows = parse(lines)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let held: u64 = tx.query_row(
            "SELECT (SELECT count(*) FROM memory_frames) + (SELECT count(*) FROM knowledge_entities)",
            [],
            |row| row.get(0),
        )?;
        if held > 0 {
            return Err(StoreError::InvalidInput(format!(
                "{} is not empty ({held} memories and entities): restore into an empty mind",
                self.mind
            )));
        }
        // The export's ids reference rows later in it (a frame replaced by a
        // later one): the foreign keys are checked at the commit.
        tx.execute("PRAGMA defer_foreign_keys = ON", [])?;
        // What an empty mind may already hold: its identity row and a
        // session with no frames, which the export's would clash with.
        tx.execute("DELETE FROM identity", [])?;
        tx.execute("DELETE FROM sessions", [])?;
        let mut counts: Vec<(String, u64)> = PORTABLE_TABLES
            .iter()
            .map(|(table, _)| ((*table).to_string(), 0))
            .collect();
        for row in rows {
            let placeholders: Vec<String> =
                (1..=row.columns.len()).map(|at| format!("?{at}")).collect();
            tx.prepare_cached(&format!(
                "INSERT INTO {} ({}) VALUES ({})",
                row.table,
                row.columns.join(", "),
                placeholders.join(", ")
            ))?
            .execute(row.values.as_slice())?;
            if row.table == "memory_frames" {
                // The export's verdict is not trusted: this engine's detector
                // judges the text again, and a frame its owner released
                // (`released_at`, carried over) stays released.
                let (id, content) = frame_id_and_content(&row)?;
                screen_in(&tx, id, content)?;
            }
            if let Some((_, count)) = counts.iter_mut().find(|(table, _)| table == row.table) {
                *count += 1;
            }
        }
        // Once every frame is in: a quarantined frame closes nothing.
        super::slots::rechain_held_slots_in(&tx)?;
        tx.commit()?;
        let frames = counts
            .iter()
            .find(|(table, _)| table == "memory_frames")
            .map_or(0, |(_, count)| *count);
        Ok(Restored {
            rows: counts,
            frames,
        })
    }
}
