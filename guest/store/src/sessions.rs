//! Sessions: the groups of pictures (GOPs) that frames belong to.
//!
//! A session is a conversation's container, optionally tied to a project.
//! `ensure_active` returns the project's active session or starts one. The
//! reference engine raced here when two callers arrived in the same second;
//! here the read and the insert share one `IMMEDIATE` transaction (so writers
//! are serialised) and a partial unique index allows at most one active
//! session per project, so a race cannot produce two.

use crate::sql::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use serde::Serialize;

use super::MindStore;
use super::clock::now;
use super::error::{StoreError, StoreResult};

/// A session (GOP).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Session {
    /// Its row id.
    pub id: u64,
    /// Its GOP id, which frames name.
    pub gop_id: String,
    /// The project it belongs to, if any.
    pub project: Option<String>,
    /// `active` or `closed`.
    pub status: String,
    /// When it started (UTC).
    pub started_at: String,
    /// When it was closed.
    pub ended_at: Option<String>,
    /// A summary written at close.
    pub summary: Option<String>,
    /// Its title: an imported conversation's or document's own.
    pub title: Option<String>,
    /// The event time of its earliest memory (UTC), if it holds any.
    pub first_event: Option<String>,
    /// The event time of its latest memory (UTC), if it holds any.
    pub last_event: Option<String>,
}

/// A session's columns, with the event-time range of its memories (read
/// through the `(gop_id, t)` index).
/// The longest session title kept, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

const COLUMNS: &str = "id, gop_id, project, status, started_at, ended_at, summary, title,
    (SELECT min(f.created_at) FROM memory_frames f WHERE f.gop_id = sessions.gop_id),
    (SELECT max(f.created_at) FROM memory_frames f WHERE f.gop_id = sessions.gop_id)";

fn from_row(row: &Row<'_>) -> crate::sql::Result<Session> {
    Ok(Session {
        id: row.get(0)?,
        gop_id: row.get(1)?,
        project: row.get(2)?,
        status: row.get(3)?,
        started_at: row.get(4)?,
        ended_at: row.get(5)?,
        summary: row.get(6)?,
        title: row.get(7)?,
        first_event: row.get(8)?,
        last_event: row.get(9)?,
    })
}

/// A session by GOP id.
pub fn get_in(conn: &Connection, gop_id: &str) -> StoreResult<Option<Session>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM sessions WHERE gop_id = ?1"),
            [gop_id],
            from_row,
        )
        .optional()?)
}

/// The project's active session, started if there is none. Call inside an
/// `IMMEDIATE` transaction.
pub fn ensure_active_in(conn: &Connection, project: Option<&str>) -> StoreResult<Session> {
    let active = conn
        .query_row(
            &format!(
                "SELECT {COLUMNS} FROM sessions WHERE status = 'active' AND ifnull(project, '') = ifnull(?1, '')
                 ORDER BY started_at DESC, id DESC LIMIT 1"
            ),
            [project],
            from_row,
        )
        .optional()?;
    if let Some(session) = active {
        return Ok(session);
    }
    let started_at = now();
    // A unique placeholder, replaced by the id-based GOP id below.
    let placeholder = format!("pending-{started_at}");
    conn.execute(
        "INSERT INTO sessions (gop_id, project, status, started_at) VALUES (?1, ?2, 'active', ?3)",
        params![placeholder, project, started_at],
    )?;
    let id = conn.last_insert_rowid();
    let compact: String = started_at
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect();
    let gop_id = format!("gop-{compact}-{id}");
    conn.execute(
        "UPDATE sessions SET gop_id = ?2 WHERE id = ?1",
        params![id, gop_id],
    )?;
    get_in(conn, &gop_id)?.ok_or_else(|| StoreError::NotFound(format!("session {gop_id}")))
}

impl MindStore {
    /// The project's active session (`None`: the session with no project),
    /// started when there is none. Safe against concurrent callers.
    pub fn ensure_active_session(&mut self, project: Option<&str>) -> StoreResult<Session> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let session = ensure_active_in(&tx, project)?;
        tx.commit()?;
        Ok(session)
    }

    /// A session by GOP id.
    pub fn session(&self, gop_id: &str) -> StoreResult<Option<Session>> {
        get_in(&self.conn, gop_id)
    }

    /// A session with this GOP id, created (closed, so it never competes with
    /// the active one) when missing: idempotent, for imports that bring
    /// their own conversation ids. A `title` is recorded when the session
    /// has none yet (the first import that names it wins), its spaces
    /// folded and cut at [`MAX_TITLE_CHARS`].
    pub fn ensure_session(
        &mut self,
        gop_id: &str,
        project: Option<&str>,
        title: Option<&str>,
    ) -> StoreResult<Session> {
        if gop_id.trim().is_empty() {
            return Err(StoreError::InvalidInput("an empty session id".to_string()));
        }
        let title = title
            .map(|title| title.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|title| !title.is_empty())
            .map(|title| title.chars().take(MAX_TITLE_CHARS).collect::<String>());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if get_in(&tx, gop_id)?.is_none() {
            let now = now();
            tx.execute(
                "INSERT INTO sessions (gop_id, project, status, started_at, ended_at, title)
                 VALUES (?1, ?2, 'closed', ?3, ?3, ?4)",
                params![gop_id, project, now, title],
            )?;
        } else if title.is_some() {
            tx.execute(
                "UPDATE sessions SET title = ?2 WHERE gop_id = ?1 AND title IS NULL",
                params![gop_id, title],
            )?;
        }
        let session = get_in(&tx, gop_id)?
            .ok_or_else(|| StoreError::NotFound(format!("session {gop_id}")))?;
        tx.commit()?;
        Ok(session)
    }

    /// Close a session with an optional summary.
    pub fn close_session(&mut self, gop_id: &str, summary: Option<&str>) -> StoreResult<Session> {
        let changed = self.conn.execute(
            "UPDATE sessions SET status = 'closed', ended_at = ?2, summary = coalesce(?3, summary)
             WHERE gop_id = ?1",
            params![gop_id, now(), summary],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("session {gop_id}")));
        }
        get_in(&self.conn, gop_id)?.ok_or_else(|| StoreError::NotFound(format!("session {gop_id}")))
    }

    /// The sessions, the latest-happened first: by their memories' latest
    /// event time (an imported conversation by its own date, not the
    /// day it was imported), then when they started.
    pub fn sessions(&self, limit: u32) -> StoreResult<Vec<Session>> {
        let sessions = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM sessions
                 ORDER BY coalesce(
                     (SELECT max(f.created_at) FROM memory_frames f WHERE f.gop_id = sessions.gop_id),
                     started_at) DESC, id DESC
                 LIMIT ?1"
            ))?
            .query_map([limit], from_row)?
            .collect::<Result<_, _>>()?;
        Ok(sessions)
    }
}
