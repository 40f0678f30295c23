//! The append-only logs: `install_audit` (what was installed or changed) and
//! `ai_interactions` (every model call: provider, model, purpose, tokens),
//! kept for accountability (EU AI Act Art. 12). Triggers make the database
//! itself refuse UPDATE and DELETE on both tables, and an insert of an id
//! already there (`INSERT OR REPLACE` would otherwise overwrite a row; see
//! [`super::schema::APPEND_ONLY_GUARDS`]); the store only appends and reads.

use crate::sql::{Connection, params};
use serde::Serialize;

use super::MindStore;
use super::clock::now;
use super::error::{StoreError, StoreResult};

/// A row of `install_audit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstallAudit {
    /// Its id.
    pub id: u64,
    /// When (UTC).
    pub timestamp: String,
    /// What was done.
    pub action: String,
    /// A JSON object with the details.
    pub detail: String,
}

/// A model call to record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AiInteraction {
    /// Who served it.
    pub provider: String,
    /// Which model.
    pub model: String,
    /// What for (`harvest`, `cognify`, …).
    pub purpose: String,
    /// Tokens in.
    pub input_tokens: u64,
    /// Tokens out.
    pub output_tokens: u64,
    /// A JSON object with the details.
    pub detail: String,
}

fn json_object(text: &str) -> StoreResult<String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) if value.is_object() => Ok(value.to_string()),
        _ => Err(StoreError::InvalidInput(format!(
            "detail must be a JSON object, got {text:?}"
        ))),
    }
}

/// Append to `ai_interactions` on `conn` (inside the caller's transaction).
pub(crate) fn append_ai_interaction_in(
    conn: &Connection,
    interaction: &AiInteraction,
) -> StoreResult<u64> {
    let detail = json_object(&interaction.detail)?;
    conn.execute(
        "INSERT INTO ai_interactions (timestamp, provider, model, purpose, input_tokens, output_tokens, detail)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            now(),
            interaction.provider,
            interaction.model,
            interaction.purpose,
            interaction.input_tokens,
            interaction.output_tokens,
            detail
        ],
    )?;
    Ok(u64::try_from(conn.last_insert_rowid()).unwrap_or(0))
}

impl MindStore {
    /// Append to `install_audit`; returns the row id.
    pub fn append_install_audit(&mut self, action: &str, detail: &str) -> StoreResult<u64> {
        let detail = json_object(detail)?;
        self.conn.execute(
            "INSERT INTO install_audit (timestamp, action, detail) VALUES (?1, ?2, ?3)",
            params![now(), action, detail],
        )?;
        Ok(u64::try_from(self.conn.last_insert_rowid()).unwrap_or(0))
    }

    /// The install audit, oldest first.
    pub fn install_audit(&self) -> StoreResult<Vec<InstallAudit>> {
        let rows = self
            .conn
            .prepare("SELECT id, timestamp, action, detail FROM install_audit ORDER BY id")?
            .query_map([], |row| {
                Ok(InstallAudit {
                    id: row.get(0)?,
                    timestamp: row.get(1)?,
                    action: row.get(2)?,
                    detail: row.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Append to `ai_interactions`; returns the row id.
    pub fn append_ai_interaction(&mut self, interaction: &AiInteraction) -> StoreResult<u64> {
        append_ai_interaction_in(&self.conn, interaction)
    }

    /// How many model calls are recorded.
    pub fn ai_interaction_count(&self) -> StoreResult<u64> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM ai_interactions", [], |row| row.get(0))?)
    }
}
