//! The schema of a mind file, and how a file gets to it.
//!
//! # Versions
//!
//! A mind file records its schema version in `PRAGMA user_version` and marks
//! itself as hive-mind's with `PRAGMA application_id` ([`APPLICATION_ID`]).
//! [`MIGRATIONS`] lists the steps from an empty file; a fresh file and an old
//! file run the same steps from where they stand, so there is one definition
//! of every table and no "fresh schema" that could drift from the migrated
//! one (the reference engine's boot crash on old files came from exactly that
//! drift).
//!
//! A step is frozen once released: its SQL is written out literally, and
//! the work SQL cannot do is code that lives with the step (v2's entity and
//! relation merges, content hash and timestamp reading, v7's reading of raw
//! turns and their reply contexts), so later changes to the graph, the
//! vocabularies, the hash or the raw-turn format cannot change what
//! migrating an old file does. A change to the layout is a new step. (Two
//! deliberate exceptions, both keys the store looks things up by today:
//! v2's canonical entity names are today's
//! [`hive_mind_core::normalize_entity_name`], and v11's slots are today's
//! [`hive_mind_core::supersede::memory_slot`], chained by the store's live
//! `slots::chain_unscreened_slot_in`.) Unit tests hold each frozen copy to
//! the live definition it was taken from, so a change to one fails until a
//! step follows it.
//!
//! - **v1** — the first released layout, frozen as it was written: frames
//!   with the reference engine's names (`I`/`P`/`B`, `user_stated`), FTS5,
//!   chunks, the knowledge graph without a frame bridge, identity, awareness,
//!   sessions, the append-only audit tables. `tests/fixtures/store/v1.sql`
//!   is a database of this version.
//! - **v2** — `memory_frames` is rebuilt with the one
//!   vocabulary (the CHECK lists written out as they were then
//!   generated from [`hive_mind_core::Source::ALL`],
//!   [`hive_mind_core::Importance::ALL`] and [`FrameType::ALL`]),
//!   `content_hash` (backfilled with the hash of the time, which
//!   [`hive_mind_core::content_hash`] still computes) and its index,
//!   insertion time and event date; entities get their canonical name,
//!   duplicates are merged (by the step's own frozen code, not the graph's),
//!   and a unique index stops new ones; `kg_entity_frames` links entities to
//!   frames; one active session per project; awareness capped by a trigger.
//! - **v3** — the vector change log, the indexed `head_token`, lane-listing
//!   indexes, related-frame links.
//! - **v4** — the vectors move out of sqlite-vec's
//!   `vec0` tables into plain tables (`id`, `embedding` BLOB), so the engine
//!   needs nothing from SQLite but FTS5 and any host's SQLite can hold a
//!   mind. Reading the old tables needs sqlite-vec once: a host without it
//!   gets [`StoreError::Corrupt`] naming the remedy (open the mind once with
//!   the `hive-mind` CLI, which migrates it).
//! - **v5** — harvest remembers its sources
//!   (`harvest_sources`: format, name, the set hash of its items) and every
//!   item it processed (`harvest_items`: format, item id, item hash,
//!   outcome), so an import run again skips what is done and an unchanged
//!   export writes nothing ([`super::harvest`]).
//! - **v6** — chunks are planned by the embedder's
//!   token window, and a mind records the plan its chunks follow in `meta`
//!   ([`super::meta`]). No table changes; the step records `chars:2000`,
//!   the plan every earlier build chunked with, in each mind that already
//!   holds frames, so its chunks stay consistent with what `check` expects
//!   until `reindex` re-plans them. A mind without frames records nothing
//!   here and takes the active embedder's plan.
//! - **v7** — a frame has a search `context` (words it
//!   is found by that are not part of it: a raw turn's reply context,
//!   [`hive_mind_core::reply_context`]), and the full-text index has two
//!   columns, `content` and `context`, the context weighted
//!   [`CONTEXT_WEIGHT`] in BM25. The step fills the context of every raw
//!   turn already stored from the turn before it in its conversation and
//!   rebuilds the index.
//! - **v8** — the append-only tables
//!   ([`APPEND_ONLY_GUARDS`]) also refuse an insert of an id they already
//!   hold. v1's guards fire on UPDATE and DELETE, but `INSERT OR REPLACE`
//!   (or `REPLACE INTO`) with an existing id deletes the old row by conflict
//!   resolution, which fires no DELETE trigger, and so overwrote an audit
//!   row unseen. A BEFORE INSERT trigger runs before the conflict is
//!   resolved, so it refuses both. `check` reports a mind missing any guard.
//! - **v9** — the vector tables are schema objects
//!   like every other, made by this step in every mind, with no width in
//!   their definition. Until v8 they were made (and on `reindex` dropped and
//!   made again at the new width) outside the migrations, when a mind met
//!   an embedder; now the only schema changes are migration steps, which
//!   lets the SQLite capability refuse every other one. The width lives in
//!   `meta` (`vectors.bytes`, set when a mind is sized for an embedder,
//!   [`super::meta::create_vector_tables`]) and triggers refuse a vector of
//!   another width, as the tables' CHECK did. Vectors already held are
//!   copied into the new tables.
//! - **v10** — the erasure log, `memory_erasures`
//!   ([`super::erasure`]): what was forgotten, by id, hash, time and reason,
//!   never the text; append-only like the audit tables, with the same
//!   three guards.
//! - **v11** — validity ([`super::validity`], [`super::slots`]). A frame
//!   has `valid_to`, `superseded_by` and `superseded_at` (all null while
//!   current) and its statement `slot` (indexed). The step gives every
//!   frame its slot with today's [`hive_mind_core::supersede::memory_slot`]
//!   (deliberately the live rules, like v2's canonical names: the slot is
//!   the key the store chains by today) and chains each slot, so a mind's
//!   outdated statements are closed as a new save would close them.
//! - **v12** — review ([`super::review`]). A frame has
//!   its owner's `status` (`active` or `archived`), `pinned` flag, `tags`
//!   (a JSON array of strings), `merged_into` (the memory a merge folded it
//!   into) and `released_at` (when its owner released it from the recall
//!   injection scan); `memory_reviews` is the append-only log of the owner's
//!   review actions, with the same three guards as the audit tables. Every
//!   existing frame is active, unpinned, untagged.
//! - **v13** — screening at write
//!   ([`hive_mind_core::detector`]). A frame has the injection detector's
//!   verdict on its text: `screen_score`, `screen_detector` (which detector
//!   judged; null for a frame written before the detector, which the next
//!   `reindex` screens), `screen_reasons` (a JSON array of strings) and
//!   `quarantined` (hostile and not released by its owner: kept, listed
//!   for review, never recalled), indexed where set. No frame is screened
//!   by the step itself: opening an old mind stays instant.
//! - **v14** — session titles, the owner's verdicts on pairs of memories,
//!   the wiki's syntheses ([`V14_SQL`]).
//! - **v15** — `memory_mentions`, the periods each
//!   frame's text names ([`super::mentions`]), one row per period, gone
//!   with its frame, indexed by frame and by period. The step reads every
//!   frame's text with today's reader (an index the store looks things up
//!   by, like v11's slots): a regex pass over each content, a few seconds
//!   for a hundred thousand memories, once.
//! - **v16** — the current layout, unchanged; a repair. Before it a
//!   quarantined frame took its place in its slot's timeline and closed the
//!   true statement before it (a hostile copy of "we moved to Boulder"
//!   closed the move). The step chains again every slot that holds a
//!   quarantined frame, with the live `slots::rechain_held_slots_in`, which
//!   leaves them out: what they closed is current again.
//!
//! # Crash safety and idempotence
//!
//! Each step runs in one `IMMEDIATE` transaction that also bumps
//! `user_version`: a crash leaves the file at the old version, untouched, and
//! the next open runs the step again. Foreign keys are switched off around the
//! steps (a table rebuild would otherwise cascade-delete the chunks) and
//! `foreign_key_check` must come back empty before a step commits.
//!
//! # Vector tables
//!
//! `memory_frames_vec` and `memory_frame_chunks_vec` hold vectors of the
//! embedder's dimension. Since v9 a migration makes them, like every table;
//! [`super::meta`] sizes them when a mind first meets an embedder (and
//! empties and re-sizes them on `reindex`), and triggers check each vector's
//! width against it. Their ids are frame ids and chunk ids.
//!
//! # What the host provides
//!
//! The host opens the database (busy timeout, foreign keys on); the engine
//! checks that it is a mind before it writes anything, then asks for WAL and
//! `synchronous = NORMAL` itself, so a foreign file is never rewritten.
//! No user-defined SQL functions are needed: the v1→v2 backfills (content
//! hashes, canonical names, timestamps) are computed here and written back.

use hive_mind_core::{Importance, Source};

use crate::sql::{self, Connection, OptionalExtension, SqlError, TransactionBehavior, params};

use super::error::{StoreError, StoreResult};
use super::types::FrameType;

/// `PRAGMA application_id` of a mind file: `HVMD`.
pub const APPLICATION_ID: i32 = 0x4856_4D44;

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: u32 = 16;

/// A `'a', 'b'` list for a CHECK constraint.
fn sql_list(names: impl IntoIterator<Item = &'static str>) -> String {
    names
        .into_iter()
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The CHECK constraints of `memory_frames`, generated from the one
/// definition of each vocabulary. `hive-mind check` verifies that a file's
/// table still carries exactly these.
pub fn vocabulary_checks() -> [String; 3] {
    [
        format!(
            "CHECK (frame_type IN ({}))",
            sql_list(FrameType::ALL.map(FrameType::as_str))
        ),
        format!(
            "CHECK (importance IN ({}))",
            sql_list(Importance::ALL.map(Importance::as_str))
        ),
        format!(
            "CHECK (source IN ({}))",
            sql_list(Source::ALL.map(Source::as_str))
        ),
    ]
}

/// The ceiling of live awareness items.
pub const AWARENESS_MAX: usize = 10;

/// The awareness categories.
pub const AWARENESS_CATEGORIES: [&str; 4] = ["task", "action", "pending", "flag"];

/// Map an SQL error met while first reading a database to a typed error.
pub fn not_a_mind(database: &str, error: sql::Error) -> StoreError {
    match error {
        sql::Error::Sql(SqlError::Corrupt(reason)) => StoreError::Corrupt {
            database: database.to_string(),
            reason: format!("not a readable SQLite database ({reason})"),
        },
        other => StoreError::Sql(other),
    }
}

/// Check that an open database is a hive-mind mind (or empty) of a version
/// this build can read, and bring it to [`SCHEMA_VERSION`]. Nothing is
/// written to a database that fails the checks.
pub fn open(conn: Connection) -> StoreResult<Connection> {
    let name = conn.name().to_string();
    // Read-only checks first.
    let read = |sql: &str| -> StoreResult<i64> {
        conn.query_row(sql, [], |row| row.get(0))
            .map_err(|e| not_a_mind(&name, e))
    };
    let version = read("PRAGMA user_version")?;
    let application_id = read("PRAGMA application_id")?;
    let objects = read("SELECT count(*) FROM sqlite_master")?;
    if application_id != i64::from(APPLICATION_ID) && (application_id != 0 || objects > 0) {
        return Err(StoreError::Corrupt {
            database: name,
            reason: format!(
                "an SQLite database, but not a hive-mind mind (application_id {application_id:#x}, {objects} schema objects)"
            ),
        });
    }
    let version = u32::try_from(version).map_err(|_| StoreError::Corrupt {
        database: name.clone(),
        reason: format!("impossible schema version {version}"),
    })?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            database: name,
            found: version,
            supported: SCHEMA_VERSION,
        });
    }

    conn.run("PRAGMA journal_mode = WAL", ())
        .map_err(|e| not_a_mind(&name, e))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    migrate(&conn, version)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

/// Run every step above `from`, each in its own transaction.
fn migrate(conn: &Connection, from: u32) -> StoreResult<()> {
    if from == SCHEMA_VERSION {
        return Ok(());
    }
    // Off outside a transaction (the pragma is a no-op inside one).
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    let result = (|| {
        for (index, step) in MIGRATIONS.iter().enumerate() {
            let target = u32::try_from(index + 1).unwrap_or(u32::MAX);
            if target <= from {
                continue;
            }
            let tx = crate::sql::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
            // Re-read under the lock: another process may have migrated.
            let now_at: u32 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
            if now_at >= target {
                continue;
            }
            step(&tx)?;
            let violations: i64 =
                tx.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| {
                    row.get(0)
                })?;
            if violations > 0 {
                return Err(StoreError::Corrupt {
                    database: conn.name().to_string(),
                    reason: format!(
                        "migration to v{target} would leave {violations} foreign-key violations"
                    ),
                });
            }
            tx.pragma_update(None, "application_id", APPLICATION_ID)?;
            tx.pragma_update(None, "user_version", target)?;
            tx.commit()?;
        }
        Ok(())
    })();
    conn.pragma_update(None, "foreign_keys", "ON")?;
    result
}

/// One schema step.
type Step = fn(&Connection) -> StoreResult<()>;

/// The steps, in order; step `i` takes a file from version `i` to `i + 1`.
pub const MIGRATIONS: [Step; 16] = [
    v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16,
];

/// The first released layout, frozen. Never edit: files in the field have it.
pub const V1_SQL: &str = r#"
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    gop_id TEXT NOT NULL UNIQUE,
    project TEXT,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed')),
    started_at TEXT NOT NULL,
    ended_at TEXT,
    summary TEXT
);
CREATE TABLE IF NOT EXISTS memory_frames (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    frame_type TEXT NOT NULL CHECK (frame_type IN ('I', 'P', 'B')),
    gop_id TEXT NOT NULL REFERENCES sessions(gop_id),
    t INTEGER NOT NULL DEFAULT 0,
    base_frame_id INTEGER REFERENCES memory_frames(id),
    content TEXT NOT NULL,
    importance TEXT NOT NULL DEFAULT 'normal'
        CHECK (importance IN ('critical', 'important', 'normal', 'temporary', 'deprecated')),
    source TEXT NOT NULL DEFAULT 'user_stated'
        CHECK (source IN ('user_stated', 'tool_verified', 'agent_inferred', 'import', 'system')),
    access_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    last_accessed TEXT,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS memory_frames_gop ON memory_frames(gop_id, t);
CREATE VIRTUAL TABLE IF NOT EXISTS memory_frames_fts USING fts5(
    content, content = 'memory_frames', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS memory_frame_chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    frame_id INTEGER NOT NULL REFERENCES memory_frames(id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    UNIQUE (frame_id, chunk_index)
);
CREATE TABLE IF NOT EXISTS knowledge_entities (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    entity_type TEXT NOT NULL,
    name TEXT NOT NULL,
    properties TEXT NOT NULL DEFAULT '{}',
    seen_count INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (datetime('now')),
    valid_to TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS knowledge_relations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id INTEGER NOT NULL REFERENCES knowledge_entities(id),
    target_id INTEGER NOT NULL REFERENCES knowledge_entities(id),
    relation_type TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 1.0,
    properties TEXT NOT NULL DEFAULT '{}',
    seen_count INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (datetime('now')),
    valid_to TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE INDEX IF NOT EXISTS knowledge_relations_source ON knowledge_relations(source_id);
CREATE INDEX IF NOT EXISTS knowledge_relations_target ON knowledge_relations(target_id);
CREATE TABLE IF NOT EXISTS identity (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL DEFAULT '',
    personality TEXT NOT NULL DEFAULT '',
    capabilities TEXT NOT NULL DEFAULT '',
    system_prompt TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS awareness (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    category TEXT NOT NULL CHECK (category IN ('task', 'action', 'pending', 'flag')),
    content TEXT NOT NULL,
    priority INTEGER NOT NULL DEFAULT 0,
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    expires_at TEXT
);
CREATE TABLE IF NOT EXISTS install_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    timestamp TEXT NOT NULL DEFAULT (datetime('now')),
    action TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS ai_interactions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    timestamp TEXT NOT NULL DEFAULT (datetime('now')),
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    purpose TEXT NOT NULL,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    detail TEXT NOT NULL DEFAULT '{}'
);
CREATE TRIGGER IF NOT EXISTS install_audit_no_update BEFORE UPDATE ON install_audit
BEGIN SELECT RAISE(ABORT, 'install_audit is append-only'); END;
CREATE TRIGGER IF NOT EXISTS install_audit_no_delete BEFORE DELETE ON install_audit
BEGIN SELECT RAISE(ABORT, 'install_audit is append-only'); END;
CREATE TRIGGER IF NOT EXISTS ai_interactions_no_update BEFORE UPDATE ON ai_interactions
BEGIN SELECT RAISE(ABORT, 'ai_interactions is append-only'); END;
CREATE TRIGGER IF NOT EXISTS ai_interactions_no_delete BEFORE DELETE ON ai_interactions
BEGIN SELECT RAISE(ABORT, 'ai_interactions is append-only'); END;
"#;

/// The FTS triggers of v1 (dropped and recreated by v2's rebuild).
const FTS_TRIGGERS: &str = r#"
CREATE TRIGGER IF NOT EXISTS memory_frames_fts_insert AFTER INSERT ON memory_frames BEGIN
    INSERT INTO memory_frames_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS memory_frames_fts_delete AFTER DELETE ON memory_frames BEGIN
    INSERT INTO memory_frames_fts(memory_frames_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER IF NOT EXISTS memory_frames_fts_update AFTER UPDATE OF content ON memory_frames BEGIN
    INSERT INTO memory_frames_fts(memory_frames_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO memory_frames_fts(rowid, content) VALUES (new.id, new.content);
END;
"#;

/// v0 → v1: the first layout.
fn v1(conn: &Connection) -> StoreResult<()> {
    conn.execute_batch(V1_SQL)?;
    conn.execute_batch(FTS_TRIGGERS)?;
    Ok(())
}

/// v1 → v2: the one vocabulary, content hashes, event dates, canonical
/// entity names, the entity–frame bridge, the session and awareness rules.
fn v2(conn: &Connection) -> StoreResult<()> {
    let [frame_type_check, importance_check, source_check] = V2_VOCABULARY_CHECKS;
    let now = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now())
        .format(V2_TIME_FORMAT)
        .to_string();
    // 1. Rebuild memory_frames (SQLite's twelve-step table change).
    conn.execute_batch(
        "DROP TRIGGER IF EXISTS memory_frames_fts_insert;
         DROP TRIGGER IF EXISTS memory_frames_fts_delete;
         DROP TRIGGER IF EXISTS memory_frames_fts_update;
         DROP INDEX IF EXISTS memory_frames_gop;",
    )?;
    conn.execute_batch(&format!(
        r#"CREATE TABLE memory_frames_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    frame_type TEXT NOT NULL {frame_type_check},
    gop_id TEXT NOT NULL REFERENCES sessions(gop_id),
    t INTEGER NOT NULL CHECK (t >= 0),
    base_frame_id INTEGER REFERENCES memory_frames(id),
    content TEXT NOT NULL CHECK (length(content) > 0),
    importance TEXT NOT NULL DEFAULT 'normal' {importance_check},
    source TEXT NOT NULL DEFAULT 'user-stated' {source_check},
    access_count INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    created_at TEXT NOT NULL,
    event_date TEXT NOT NULL,
    inserted_at TEXT NOT NULL,
    last_accessed TEXT,
    content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
    metadata TEXT NOT NULL DEFAULT '{{}}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object')
);"#
    ))?;
    {
        let mut insert = conn.prepare(
            "INSERT INTO memory_frames_v2 (id, frame_type, gop_id, t, base_frame_id, content, importance,
                 source, access_count, created_at, event_date, inserted_at, last_accessed, content_hash, metadata)
             VALUES (?1, CASE ?2 WHEN 'I' THEN 'i-frame' WHEN 'P' THEN 'p-frame' ELSE 'b-frame' END,
                 ?3, ?4, ?5, ?6, ?7, replace(?8, '_', '-'), ?9, ?10, ?11, ?10, ?12, ?13,
                 CASE WHEN json_valid(?14) AND json_type(?14) = 'object' THEN ?14 ELSE '{}' END)",
        )?;
        let old = conn.query_all(
            "SELECT id, frame_type, gop_id, t, base_frame_id, content, importance, source,
                    access_count, created_at, last_accessed, metadata
             FROM memory_frames ORDER BY id",
            [],
            |row| {
                Ok((
                    [
                        row.get::<_, sql::Value>(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                        row.get(5)?,
                        row.get(6)?,
                        row.get(7)?,
                        row.get(8)?,
                    ],
                    row.get::<_, Option<String>>(9)?,
                    row.get::<_, Option<String>>(10)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, sql::Value>(11)?,
                ))
            },
        )?;
        for (columns, created_at, last_accessed, content, metadata) in old {
            let event = created_at.as_deref().and_then(v2_event_time);
            let (created, date) = match event {
                Some((time, date)) => (time, date),
                None => (now.clone(), now.get(..10).unwrap_or_default().to_string()),
            };
            let mut values: Vec<sql::Value> = columns.to_vec();
            values.push(sql::Value::Text(created));
            values.push(sql::Value::Text(date));
            values
                .push(time_of(last_accessed.as_deref()).map_or(sql::Value::Null, sql::Value::Text));
            values.push(sql::Value::Text(v2_content_hash(&content)));
            values.push(metadata);
            insert.execute(values)?;
        }
    }
    // Carry the AUTOINCREMENT high-water mark, so ids are never reused.
    // (Copying explicit ids already moved `memory_frames_v2`'s counter to
    // the highest copied id; the old counter may be higher after deletes.)
    conn.execute_batch(
        "INSERT INTO sqlite_sequence (name, seq) SELECT 'memory_frames_v2', 0
             WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'memory_frames_v2');
         UPDATE sqlite_sequence SET seq = max(seq, ifnull(
             (SELECT seq FROM sqlite_sequence WHERE name = 'memory_frames'), 0))
         WHERE name = 'memory_frames_v2';",
    )?;
    conn.execute_batch(
        "DROP TABLE memory_frames;
         ALTER TABLE memory_frames_v2 RENAME TO memory_frames;
         CREATE UNIQUE INDEX memory_frames_gop_t ON memory_frames(gop_id, t);
         CREATE INDEX memory_frames_content_hash ON memory_frames(content_hash);
         CREATE INDEX memory_frames_event_date ON memory_frames(event_date);
         CREATE INDEX memory_frames_created_at ON memory_frames(created_at);
         CREATE INDEX memory_frames_importance ON memory_frames(importance);
         CREATE INDEX memory_frames_base ON memory_frames(base_frame_id);
         CREATE INDEX memory_frame_chunks_frame ON memory_frame_chunks(frame_id);",
    )?;
    conn.execute_batch(FTS_TRIGGERS)?;
    conn.execute(
        "INSERT INTO memory_frames_fts(memory_frames_fts) VALUES ('rebuild')",
        [],
    )?;

    // 2. Canonical entity names; merge the duplicates old builds let in, then
    //    forbid new ones.
    conn.execute_batch(
        "ALTER TABLE knowledge_entities ADD COLUMN normalized_name TEXT NOT NULL DEFAULT '';",
    )?;
    for (id, name) in conn.query_all("SELECT id, name FROM knowledge_entities", [], |row| {
        Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
    })? {
        // The live normalisation, deliberately: the canonical name is the
        // key entities are looked up by today (`upsert_entity`), so a key
        // written with an older alias table would be missed;
        // `dedupe_entities` renormalises for the same reason.
        conn.execute(
            "UPDATE knowledge_entities SET normalized_name = ?2 WHERE id = ?1",
            params![id, hive_mind_core::normalize_entity_name(&name)],
        )?;
    }
    for table in ["knowledge_entities", "knowledge_relations"] {
        rewrite_times(conn, table, &["valid_from", "created_at"], &["valid_to"])?;
    }
    conn.execute_batch(
        "CREATE TABLE kg_entity_frames (
             entity_id INTEGER NOT NULL REFERENCES knowledge_entities(id) ON DELETE CASCADE,
             frame_id INTEGER NOT NULL REFERENCES memory_frames(id) ON DELETE CASCADE,
             PRIMARY KEY (entity_id, frame_id)
         ) WITHOUT ROWID;
         CREATE INDEX kg_entity_frames_frame ON kg_entity_frames(frame_id);",
    )?;
    v2_merge_duplicate_entities(conn, &now)?;
    v2_merge_duplicate_relations(conn, &now)?;
    conn.execute_batch(
        "CREATE UNIQUE INDEX knowledge_entities_active_name
             ON knowledge_entities(normalized_name, lower(entity_type)) WHERE valid_to IS NULL;
         CREATE UNIQUE INDEX knowledge_relations_active
             ON knowledge_relations(source_id, target_id, relation_type) WHERE valid_to IS NULL;",
    )?;

    // 3. Sessions: one active session per project (old builds raced).
    conn.execute(
        "UPDATE sessions SET status = 'closed', ended_at = ?1
         WHERE status = 'active' AND id NOT IN (
             SELECT max(id) FROM sessions WHERE status = 'active' GROUP BY ifnull(project, ''))",
        [&now],
    )?;
    rewrite_times(conn, "sessions", &["started_at"], &["ended_at"])?;
    conn.execute_batch(
        "CREATE UNIQUE INDEX sessions_one_active ON sessions(ifnull(project, '')) WHERE status = 'active';",
    )?;

    // 4. Awareness: timestamps in the one format, and the cap as a trigger
    //    (the store refuses or evicts explicitly before it gets here).
    rewrite_times(conn, "awareness", &["created_at"], &["expires_at"])?;
    conn.execute_batch(&format!(
        "CREATE INDEX awareness_live ON awareness(expires_at);
         CREATE TRIGGER awareness_cap BEFORE INSERT ON awareness
         WHEN (SELECT count(*) FROM awareness
               WHERE expires_at IS NULL OR expires_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) >= {AWARENESS_MAX}
         BEGIN SELECT RAISE(ABORT, 'awareness is full'); END;"
    ))?;
    Ok(())
}

/// The CHECK constraints v2 wrote into `memory_frames`, as it wrote them.
/// Frozen: a vocabulary change is a later step that rebuilds the table, and
/// `check` holds a mind's table to today's [`vocabulary_checks`].
const V2_VOCABULARY_CHECKS: [&str; 3] = [
    "CHECK (frame_type IN ('i-frame', 'p-frame', 'b-frame'))",
    "CHECK (importance IN ('critical', 'important', 'normal', 'temporary', 'deprecated'))",
    "CHECK (source IN ('user-stated', 'tool-verified', 'agent-inferred', 'import', 'system'))",
];

/// The content hash v2 backfilled, frozen: SHA-256 (64 lower-case hex
/// digits) of the content without one leading `[hm …]` provenance block
/// and the white space after it, trimmed. The definition
/// [`hive_mind_core::content_hash`] had then (and has now; a unit test
/// compares them: if the live one changes, stored hashes need a step).
fn v2_content_hash(content: &str) -> String {
    use sha2::Digest as _;
    let body = content
        .strip_prefix("[hm ")
        .and_then(|rest| rest.split_once(']'))
        .map_or(content, |(_, body)| body.trim_start());
    sha2::Sha256::digest(body.trim().as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// v2's merge of the duplicate entities old builds let in, frozen: among
/// the active entities with the same canonical name and type, the survivor
/// is the one with the most active relations (then the lowest id); the
/// others' relations move to it, their `seen_count` is added to it, and they
/// are retired at `now`. (`kg_entity_frames` is created empty by this same
/// step, so there are no frame links to move.)
fn v2_merge_duplicate_entities(conn: &Connection, now: &str) -> StoreResult<()> {
    let groups = conn.query_all(
        "SELECT normalized_name, lower(entity_type) FROM knowledge_entities
         WHERE valid_to IS NULL GROUP BY normalized_name, lower(entity_type) HAVING count(*) > 1",
        [],
        |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
    )?;
    for (name, entity_type) in groups {
        let members = conn.query_all(
            "SELECT e.id FROM knowledge_entities e
             WHERE e.valid_to IS NULL AND e.normalized_name = ?1 AND lower(e.entity_type) = ?2
             ORDER BY (SELECT count(*) FROM knowledge_relations r
                       WHERE r.valid_to IS NULL AND (r.source_id = e.id OR r.target_id = e.id)) DESC,
                      e.id ASC",
            [&name, &entity_type],
            |row| row.get::<_, i64>(0),
        )?;
        let Some((&survivor, duplicates)) = members.split_first() else {
            continue;
        };
        for &duplicate in duplicates {
            conn.execute(
                "UPDATE knowledge_relations SET source_id = ?2 WHERE source_id = ?1 AND valid_to IS NULL",
                params![duplicate, survivor],
            )?;
            conn.execute(
                "UPDATE knowledge_relations SET target_id = ?2 WHERE target_id = ?1 AND valid_to IS NULL",
                params![duplicate, survivor],
            )?;
            conn.execute(
                "UPDATE knowledge_entities SET seen_count = seen_count +
                     (SELECT seen_count FROM knowledge_entities WHERE id = ?1) WHERE id = ?2",
                params![duplicate, survivor],
            )?;
            conn.execute(
                "UPDATE knowledge_entities SET valid_to = ?2 WHERE id = ?1",
                params![duplicate, now],
            )?;
        }
    }
    Ok(())
}

/// v2's merge of the duplicate relations [`v2_merge_duplicate_entities`]
/// can create, frozen: self-loops it made are retired; among the active
/// relations with the same subject, object and type, the lowest id survives
/// with the summed `seen_count` and the highest confidence, and the others
/// are retired at `now`.
fn v2_merge_duplicate_relations(conn: &Connection, now: &str) -> StoreResult<()> {
    conn.execute(
        "UPDATE knowledge_relations SET valid_to = ?1 WHERE valid_to IS NULL AND source_id = target_id",
        [now],
    )?;
    let groups = conn.query_all(
        "SELECT source_id, target_id, relation_type FROM knowledge_relations WHERE valid_to IS NULL
         GROUP BY source_id, target_id, relation_type HAVING count(*) > 1",
        [],
        |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(2)?,
            ))
        },
    )?;
    for (source, target, relation) in groups {
        let ids = conn.query_all(
            "SELECT id FROM knowledge_relations WHERE valid_to IS NULL
             AND source_id = ?1 AND target_id = ?2 AND relation_type = ?3 ORDER BY id",
            params![source, target, relation],
            |row| row.get::<_, i64>(0),
        )?;
        let Some((&survivor, duplicates)) = ids.split_first() else {
            continue;
        };
        for &duplicate in duplicates {
            conn.execute(
                "UPDATE knowledge_relations SET
                     seen_count = seen_count + (SELECT seen_count FROM knowledge_relations WHERE id = ?1),
                     confidence = max(confidence, (SELECT confidence FROM knowledge_relations WHERE id = ?1))
                 WHERE id = ?2",
                params![duplicate, survivor],
            )?;
            conn.execute(
                "UPDATE knowledge_relations SET valid_to = ?2 WHERE id = ?1",
                params![duplicate, now],
            )?;
        }
    }
    Ok(())
}

/// The timestamp format v2 wrote: UTC with milliseconds, `Z`.
const V2_TIME_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.3fZ";

/// A timestamp as v2 read it, frozen: the UTC instant in
/// [`V2_TIME_FORMAT`] and the calendar date as written
/// (`2026-05-08T23:30:00-05:00` is the 8th of May); `None` when the text is
/// not one. Accepted: RFC 3339, `YYYY-MM-DDTHH:MM:SS[.fff]`, the same with
/// a space for the `T`, `YYYY-MM-DDTHH:MM` (these three taken as UTC), and
/// `YYYY-MM-DD` (midnight UTC), surrounding white space ignored.
fn v2_event_time(text: &str) -> Option<(String, String)> {
    use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime};
    let text = text.trim();
    let (instant, date) = if let Ok(with_zone) = DateTime::parse_from_rfc3339(text) {
        (
            with_zone.with_timezone(&chrono::Utc),
            with_zone.date_naive(),
        )
    } else {
        let naive = [
            "%Y-%m-%dT%H:%M:%S%.f",
            "%Y-%m-%d %H:%M:%S%.f",
            "%Y-%m-%dT%H:%M",
        ]
        .into_iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .or_else(|| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .map(|date| date.and_time(NaiveTime::MIN))
        })?;
        (naive.and_utc(), naive.date())
    };
    Some((
        instant.format(V2_TIME_FORMAT).to_string(),
        date.format("%Y-%m-%d").to_string(),
    ))
}

/// The stored UTC form of a timestamp as v2 wrote it, or `None` when it is
/// not one.
fn time_of(text: Option<&str>) -> Option<String> {
    text.and_then(|text| v2_event_time(text).map(|(time, _)| time))
}

/// Rewrite a table's timestamps in the stored form: `kept` columns keep
/// their text when it is not a timestamp, `nulled` columns become NULL.
fn rewrite_times(
    conn: &Connection,
    table: &str,
    kept: &[&str],
    nulled: &[&str],
) -> StoreResult<()> {
    let columns: Vec<&str> = kept.iter().chain(nulled).copied().collect();
    let rows = conn.query_all(
        &format!("SELECT id, {} FROM {table}", columns.join(", ")),
        [],
        |row| {
            let id: i64 = row.get(0)?;
            let values = (1..=columns.len())
                .map(|index| row.get::<_, Option<String>>(index))
                .collect::<sql::Result<Vec<_>>>()?;
            Ok((id, values))
        },
    )?;
    let assignments: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(index, column)| format!("{column} = ?{}", index + 2))
        .collect();
    let mut update = conn.prepare(&format!(
        "UPDATE {table} SET {} WHERE id = ?1",
        assignments.join(", ")
    ))?;
    for (id, values) in rows {
        let mut params = vec![sql::Value::Integer(id)];
        for (index, value) in values.into_iter().enumerate() {
            let rewritten = match time_of(value.as_deref()) {
                Some(time) => Some(time),
                None if index < kept.len() => value,
                None => None,
            };
            params.push(rewritten.map_or(sql::Value::Null, sql::Value::Text));
        }
        update.execute(params)?;
    }
    Ok(())
}

/// v3: what search needs at 100,000 frames, and related-frame links.
///
/// 1. `memory_vector_changes`: an append-only log of the frames whose
///    vectors or filter fields changed, filled by triggers, which the
///    in-memory vector index ([`super::vector_index`]) follows.
/// 2. `head_token`: the content's first space-delimited token (at most 32
///    characters), a virtual column indexed with `created_at` — so a
///    content-lane filter (`[mind-fact]`, `[mind-rawturn`, …) is an index
///    range instead of a scan of every frame's text, and a lane listing
///    reads its newest frames straight off the index; `importance` gets the
///    same pairing for the importance lane.
/// 3. `memory_frame_links`: related-frame links (cognify's last step), with
///    the similarity that made them.
fn v3(conn: &Connection) -> StoreResult<()> {
    conn.execute_batch(
        "CREATE TABLE memory_vector_changes (
             seq INTEGER PRIMARY KEY AUTOINCREMENT,
             frame_id INTEGER NOT NULL
         );
         CREATE TRIGGER memory_frames_changes_insert AFTER INSERT ON memory_frames BEGIN
             INSERT INTO memory_vector_changes (frame_id) VALUES (new.id);
         END;
         CREATE TRIGGER memory_frames_changes_delete AFTER DELETE ON memory_frames BEGIN
             INSERT INTO memory_vector_changes (frame_id) VALUES (old.id);
         END;
         CREATE TRIGGER memory_frames_changes_update
         AFTER UPDATE OF content, importance, event_date ON memory_frames BEGIN
             INSERT INTO memory_vector_changes (frame_id) VALUES (new.id);
         END;
         CREATE TRIGGER memory_frame_chunks_changes_insert AFTER INSERT ON memory_frame_chunks BEGIN
             INSERT INTO memory_vector_changes (frame_id) VALUES (new.frame_id);
         END;
         CREATE TRIGGER memory_frame_chunks_changes_delete AFTER DELETE ON memory_frame_chunks BEGIN
             INSERT INTO memory_vector_changes (frame_id) VALUES (old.frame_id);
         END;
         ALTER TABLE memory_frames ADD COLUMN head_token TEXT GENERATED ALWAYS AS
             (substr(content, 1, min(32, instr(content || ' ', ' ') - 1))) VIRTUAL;
         CREATE INDEX memory_frames_head_token ON memory_frames(head_token, created_at);
         CREATE INDEX memory_frames_importance_created ON memory_frames(importance, created_at);
         CREATE TABLE memory_frame_links (
             frame_id INTEGER NOT NULL REFERENCES memory_frames(id) ON DELETE CASCADE,
             related_id INTEGER NOT NULL REFERENCES memory_frames(id) ON DELETE CASCADE,
             similarity REAL NOT NULL,
             created_at TEXT NOT NULL,
             PRIMARY KEY (frame_id, related_id),
             CHECK (frame_id != related_id)
         );
         CREATE INDEX memory_frame_links_related ON memory_frame_links(related_id);",
    )?;
    Ok(())
}

/// The plain vector tables v4 creates, `{bytes}` the size of one vector
/// (the layout [`super::meta::create_vector_tables`] had then), and the
/// bump of the vector index's epoch (`vectors.epoch`) that tells an
/// in-memory index the tables were rebuilt. Frozen: never edit.
const V4_VECTOR_TABLES: &str = "
DROP TRIGGER IF EXISTS memory_frames_vec_delete;
DROP TRIGGER IF EXISTS memory_frame_chunks_vec_delete;
DROP TABLE IF EXISTS memory_frames_vec;
DROP TABLE IF EXISTS memory_frame_chunks_vec;
CREATE TABLE memory_frames_vec (
    id INTEGER PRIMARY KEY,
    embedding BLOB NOT NULL CHECK (length(embedding) = {bytes})
);
CREATE TABLE memory_frame_chunks_vec (
    id INTEGER PRIMARY KEY,
    embedding BLOB NOT NULL CHECK (length(embedding) = {bytes})
);
CREATE TRIGGER memory_frames_vec_delete AFTER DELETE ON memory_frames BEGIN
    DELETE FROM memory_frames_vec WHERE id = old.id;
END;
CREATE TRIGGER memory_frame_chunks_vec_delete AFTER DELETE ON memory_frame_chunks BEGIN
    DELETE FROM memory_frame_chunks_vec WHERE id = old.id;
END;
INSERT INTO meta (key, value) VALUES ('vectors.epoch', '1')
ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
";

/// v4: the vectors leave sqlite-vec for plain tables (see the module docs).
///
/// A mind that never met an embedder has no vector tables and nothing to
/// move. Otherwise the `vec0` tables are read (which needs sqlite-vec in the
/// host's SQLite), copied aside, dropped, recreated as plain tables at the
/// recorded dimension and refilled, all in this step's transaction.
fn v4(conn: &Connection) -> StoreResult<()> {
    let vec0_tables: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'
           AND name IN ('memory_frames_vec', 'memory_frame_chunks_vec')
           AND sql LIKE '%USING vec0%'",
        [],
        |row| row.get(0),
    )?;
    if vec0_tables == 0 {
        return Ok(());
    }
    // The dimension recorded with the embedder's fingerprint (provider,
    // model and dimension, all three recorded).
    let recorded: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'embedder.dim'
               AND EXISTS (SELECT 1 FROM meta WHERE key = 'embedder.provider')
               AND EXISTS (SELECT 1 FROM meta WHERE key = 'embedder.model')",
            [],
            |row| row.get(0),
        )
        .optional()?;
    let dim: u32 = recorded
        .map(|dim| {
            dim.parse().map_err(|_| {
                StoreError::InvalidInput(format!(
                    "the recorded embedder dimension {dim:?} is not a number"
                ))
            })
        })
        .transpose()?
        .ok_or_else(|| StoreError::Corrupt {
            database: conn.name().to_string(),
            reason: "vector tables without a recorded embedder dimension".to_string(),
        })?;
    let copied = conn.execute_batch(
        "CREATE TEMP TABLE v4_frame_vectors AS SELECT rowid AS id, embedding FROM memory_frames_vec;
         CREATE TEMP TABLE v4_chunk_vectors AS SELECT rowid AS id, embedding FROM memory_frame_chunks_vec;",
    );
    if let Err(error) = copied {
        return Err(match error {
            sql::Error::Sql(SqlError::Io(message)) if message.contains("vec0") => {
                StoreError::Corrupt {
                    database: conn.name().to_string(),
                    reason: format!(
                        "this mind keeps its vectors in sqlite-vec tables (schema v3) and this host's SQLite \
                         cannot read them ({message}); open it once with the `hive-mind` CLI, which migrates it"
                    ),
                }
            }
            other => StoreError::Sql(other),
        });
    }
    if dim == 0 {
        return Err(StoreError::InvalidInput(
            "an embedder dimension of 0".to_string(),
        ));
    }
    conn.execute_batch(&V4_VECTOR_TABLES.replace("{bytes}", &(u64::from(dim) * 4).to_string()))?;
    conn.execute_batch(
        "INSERT INTO memory_frames_vec (id, embedding) SELECT id, embedding FROM temp.v4_frame_vectors;
         INSERT INTO memory_frame_chunks_vec (id, embedding) SELECT id, embedding FROM temp.v4_chunk_vectors;
         DROP TABLE temp.v4_frame_vectors;
         DROP TABLE temp.v4_chunk_vectors;",
    )?;
    Ok(())
}

/// v5: harvest's memory of its sources and items (see the module docs).
fn v5(conn: &Connection) -> StoreResult<()> {
    conn.execute_batch(
        "CREATE TABLE harvest_sources (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             format TEXT NOT NULL,
             name TEXT NOT NULL,
             set_hash TEXT NOT NULL,
             items INTEGER NOT NULL DEFAULT 0,
             first_imported TEXT NOT NULL,
             last_imported TEXT NOT NULL,
             UNIQUE (format, name)
         );
         CREATE TABLE harvest_items (
             format TEXT NOT NULL,
             item_id TEXT NOT NULL,
             item_hash TEXT NOT NULL,
             source_id INTEGER REFERENCES harvest_sources(id) ON DELETE SET NULL,
             outcome TEXT NOT NULL CHECK (outcome IN ('imported', 'skipped', 'hostile', 'failed')),
             frames INTEGER NOT NULL DEFAULT 0,
             imported_at TEXT NOT NULL,
             PRIMARY KEY (format, item_id, item_hash)
         );
         CREATE INDEX harvest_items_hash ON harvest_items(item_hash);",
    )?;
    Ok(())
}

/// v6: the chunk plan of minds chunked before plans were sized by tokens
/// (see the module docs). A record already there is left as it is (one
/// this build cannot read is reported when the mind opens).
fn v6(conn: &Connection) -> StoreResult<()> {
    conn.execute_batch(V6_SQL)?;
    Ok(())
}

/// v6's record: the 2,000-character plan (`chars:2000`) in a mind that holds
/// frames and records no plan. Frozen: never edit.
const V6_SQL: &str = "
INSERT INTO meta (key, value) SELECT 'chunks.plan', 'chars:2000'
WHERE EXISTS (SELECT 1 FROM memory_frames)
  AND NOT EXISTS (SELECT 1 FROM meta WHERE key = 'chunks.plan');
";

/// The BM25 weight of a frame's `context` column, against 1 for its own
/// `content`: a word of the turn a reply answers is evidence that the
/// reply is about it, but weaker than the reply's own words (the reply may
/// have changed the subject). Half, so that a turn matching a query in its
/// own words outranks its neighbour that matches only through it.
pub const CONTEXT_WEIGHT: f64 = 0.5;

/// The BM25 expression of a full-text search (`memory_frames_fts`'s columns
/// weighted 1 and [`CONTEXT_WEIGHT`]).
pub fn bm25() -> String {
    format!("bm25(memory_frames_fts, 1.0, {CONTEXT_WEIGHT:?})")
}

/// The FTS triggers from v7 on: both columns.
const FTS_TRIGGERS_V7: &str = r#"
CREATE TRIGGER memory_frames_fts_insert AFTER INSERT ON memory_frames BEGIN
    INSERT INTO memory_frames_fts(rowid, content, context) VALUES (new.id, new.content, new.context);
END;
CREATE TRIGGER memory_frames_fts_delete AFTER DELETE ON memory_frames BEGIN
    INSERT INTO memory_frames_fts(memory_frames_fts, rowid, content, context)
        VALUES ('delete', old.id, old.content, old.context);
END;
CREATE TRIGGER memory_frames_fts_update AFTER UPDATE OF content, context ON memory_frames BEGIN
    INSERT INTO memory_frames_fts(memory_frames_fts, rowid, content, context)
        VALUES ('delete', old.id, old.content, old.context);
    INSERT INTO memory_frames_fts(rowid, content, context) VALUES (new.id, new.content, new.context);
END;
"#;

/// v7: the search context and the two-column full-text index (see the
/// module docs). Every raw turn stored gets the reply context of the turn
/// before it in its conversation (the stored turn with the highest lower
/// number: a turn the import skipped is not quoted).
fn v7(conn: &Connection) -> StoreResult<()> {
    // Idempotent: a file that already has the column (a test's mind taken
    // back a version) is rebuilt the same way.
    let has_context: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('memory_frames') WHERE name = 'context')",
        [],
        |row| row.get(0),
    )?;
    if !has_context {
        conn.execute(
            "ALTER TABLE memory_frames ADD COLUMN context TEXT NOT NULL DEFAULT ''",
            [],
        )?;
    }
    conn.execute_batch(
        "DROP TRIGGER IF EXISTS memory_frames_fts_insert;
         DROP TRIGGER IF EXISTS memory_frames_fts_delete;
         DROP TRIGGER IF EXISTS memory_frames_fts_update;
         DROP TABLE IF EXISTS memory_frames_fts;",
    )?;
    let turns = conn.query_all(
        "SELECT id, content FROM memory_frames
         WHERE head_token = '[mind-rawturn' ORDER BY id",
        [],
        |row| Ok((row.get::<_, u64>(0)?, row.get::<_, String>(1)?)),
    )?;
    let mut by_conversation: std::collections::HashMap<String, Vec<(u64, u64, String, String)>> =
        std::collections::HashMap::new();
    for (id, content) in turns {
        let Some(turn) = v7_raw_turn(&content) else {
            continue;
        };
        by_conversation.entry(turn.conv).or_default().push((
            turn.turn,
            id,
            turn.speaker,
            turn.text,
        ));
    }
    let mut update = conn.prepare("UPDATE memory_frames SET context = ?1 WHERE id = ?2")?;
    for turns in by_conversation.values_mut() {
        turns.sort_by_key(|(turn, id, _, _)| (*turn, *id));
        for pair in turns.windows(2) {
            let [(before, _, speaker, text), (after, id, _, _)] = pair else {
                continue;
            };
            if before < after {
                let context = v7_reply_context(speaker, text);
                if !context.is_empty() {
                    update.execute(params![context, id])?;
                }
            }
        }
    }
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE memory_frames_fts USING fts5(
             content, context, content = 'memory_frames', content_rowid = 'id',
             tokenize = 'porter unicode61 remove_diacritics 2'
         );
         {FTS_TRIGGERS_V7}
         INSERT INTO memory_frames_fts(memory_frames_fts) VALUES ('rebuild');"
    ))?;
    Ok(())
}

/// The append-only tables and the triggers that guard each: v1's UPDATE and
/// DELETE guards and v8's replacement guard. `hive-mind check` reports a
/// mind whose table lacks one of them.
pub const APPEND_ONLY_GUARDS: [(&str, [&str; 3]); 4] = [
    (
        "install_audit",
        [
            "install_audit_no_update",
            "install_audit_no_delete",
            "install_audit_no_replace",
        ],
    ),
    (
        "ai_interactions",
        [
            "ai_interactions_no_update",
            "ai_interactions_no_delete",
            "ai_interactions_no_replace",
        ],
    ),
    (
        "memory_erasures",
        [
            "memory_erasures_no_update",
            "memory_erasures_no_delete",
            "memory_erasures_no_replace",
        ],
    ),
    (
        "memory_reviews",
        [
            "memory_reviews_no_update",
            "memory_reviews_no_delete",
            "memory_reviews_no_replace",
        ],
    ),
];

/// v8: the append-only tables refuse an insert of an existing id, so
/// `INSERT OR REPLACE` and `REPLACE INTO` cannot overwrite a row (see the
/// module docs). Frozen: never edit.
const V8_SQL: &str = r#"
CREATE TRIGGER IF NOT EXISTS install_audit_no_replace BEFORE INSERT ON install_audit
WHEN EXISTS (SELECT 1 FROM install_audit WHERE id = new.id)
BEGIN SELECT RAISE(ABORT, 'install_audit is append-only'); END;
CREATE TRIGGER IF NOT EXISTS ai_interactions_no_replace BEFORE INSERT ON ai_interactions
WHEN EXISTS (SELECT 1 FROM ai_interactions WHERE id = new.id)
BEGIN SELECT RAISE(ABORT, 'ai_interactions is append-only'); END;
"#;

/// v8: the replacement guards (see [`V8_SQL`]).
fn v8(conn: &Connection) -> StoreResult<()> {
    conn.execute_batch(V8_SQL)?;
    Ok(())
}

/// v9's new vector tables, made beside the old ones (if any) and renamed
/// into place, with the triggers that delete a frame's or chunk's vector
/// with its row and refuse a vector whose width is not the mind's
/// (`meta` `vectors.bytes`; no vector at all before a mind is sized).
/// Frozen: never edit.
const V9_SQL: &str = "
DROP TRIGGER IF EXISTS memory_frames_vec_delete;
DROP TRIGGER IF EXISTS memory_frame_chunks_vec_delete;
CREATE TABLE v9_frame_vectors (
    id INTEGER PRIMARY KEY,
    embedding BLOB NOT NULL
);
CREATE TABLE v9_chunk_vectors (
    id INTEGER PRIMARY KEY,
    embedding BLOB NOT NULL
);
{copy}
DROP TABLE IF EXISTS memory_frames_vec;
DROP TABLE IF EXISTS memory_frame_chunks_vec;
ALTER TABLE v9_frame_vectors RENAME TO memory_frames_vec;
ALTER TABLE v9_chunk_vectors RENAME TO memory_frame_chunks_vec;
CREATE TRIGGER memory_frames_vec_delete AFTER DELETE ON memory_frames BEGIN
    DELETE FROM memory_frames_vec WHERE id = old.id;
END;
CREATE TRIGGER memory_frame_chunks_vec_delete AFTER DELETE ON memory_frame_chunks BEGIN
    DELETE FROM memory_frame_chunks_vec WHERE id = old.id;
END;
CREATE TRIGGER memory_frames_vec_width BEFORE INSERT ON memory_frames_vec
WHEN length(new.embedding) IS NOT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vectors.bytes')
BEGIN SELECT RAISE(ABORT, 'a vector of another width than this mind''s'); END;
CREATE TRIGGER memory_frames_vec_width_update BEFORE UPDATE OF embedding ON memory_frames_vec
WHEN length(new.embedding) IS NOT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vectors.bytes')
BEGIN SELECT RAISE(ABORT, 'a vector of another width than this mind''s'); END;
CREATE TRIGGER memory_frame_chunks_vec_width BEFORE INSERT ON memory_frame_chunks_vec
WHEN length(new.embedding) IS NOT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vectors.bytes')
BEGIN SELECT RAISE(ABORT, 'a vector of another width than this mind''s'); END;
CREATE TRIGGER memory_frame_chunks_vec_width_update BEFORE UPDATE OF embedding ON memory_frame_chunks_vec
WHEN length(new.embedding) IS NOT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vectors.bytes')
BEGIN SELECT RAISE(ABORT, 'a vector of another width than this mind''s'); END;
";

/// v9's copy of the vectors a mind already holds into its new tables.
/// Frozen: never edit.
const V9_COPY_SQL: &str = "
INSERT INTO v9_frame_vectors (id, embedding) SELECT id, embedding FROM memory_frames_vec;
INSERT INTO v9_chunk_vectors (id, embedding) SELECT id, embedding FROM memory_frame_chunks_vec;
";

/// v9: the vector tables become migration-made schema objects (see the
/// module docs). A mind that already has them keeps its vectors and is
/// sized at its recorded dimension; one that never met an embedder gets
/// empty, unsized tables.
fn v9(conn: &Connection) -> StoreResult<()> {
    let existing: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'
           AND name IN ('memory_frames_vec', 'memory_frame_chunks_vec')",
        [],
        |row| row.get(0),
    )?;
    let copy = if existing == 2 { V9_COPY_SQL } else { "" };
    conn.execute_batch(&V9_SQL.replace("{copy}", copy))?;
    if existing == 2 {
        let recorded: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'embedder.dim'",
                [],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(dim) = recorded {
            let dim: u64 = dim.parse().map_err(|_| {
                StoreError::InvalidInput(format!(
                    "the recorded embedder dimension {dim:?} is not a number"
                ))
            })?;
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('vectors.bytes', ?1)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [(dim * 4).to_string()],
            )?;
        }
    }
    Ok(())
}

/// v10's erasure log and its guards; idempotent, like every step a test may
/// run again on a mind taken back a version. Frozen: never edit.
const V10_SQL: &str = r#"
CREATE TABLE IF NOT EXISTS memory_erasures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    erased_at TEXT NOT NULL,
    frame_id INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    event_date TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    request TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(request))
);
CREATE INDEX IF NOT EXISTS memory_erasures_frame ON memory_erasures(frame_id);
CREATE TRIGGER IF NOT EXISTS memory_erasures_no_update BEFORE UPDATE ON memory_erasures
BEGIN SELECT RAISE(ABORT, 'memory_erasures is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_erasures_no_delete BEFORE DELETE ON memory_erasures
BEGIN SELECT RAISE(ABORT, 'memory_erasures is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_erasures_no_replace BEFORE INSERT ON memory_erasures
WHEN EXISTS (SELECT 1 FROM memory_erasures WHERE id = new.id)
BEGIN SELECT RAISE(ABORT, 'memory_erasures is append-only'); END;
"#;

/// v10: the erasure log (see [`V10_SQL`] and the module docs).
fn v10(conn: &Connection) -> StoreResult<()> {
    conn.execute_batch(V10_SQL)?;
    Ok(())
}

/// v11's columns. Frozen: never edit.
const V11_SQL: &str = "
ALTER TABLE memory_frames ADD COLUMN valid_to TEXT;
ALTER TABLE memory_frames ADD COLUMN superseded_by INTEGER REFERENCES memory_frames(id) ON DELETE SET NULL;
ALTER TABLE memory_frames ADD COLUMN superseded_at TEXT;
ALTER TABLE memory_frames ADD COLUMN slot TEXT;
CREATE INDEX memory_frames_slot ON memory_frames(slot) WHERE slot IS NOT NULL;
CREATE INDEX memory_frames_superseded_by ON memory_frames(superseded_by) WHERE superseded_by IS NOT NULL;
";

/// v11: validity (see the module docs). Idempotent: a mind that already has
/// the columns (a test's mind taken back a version) only gets its slots
/// and chains again.
fn v11(conn: &Connection) -> StoreResult<()> {
    let has_slot: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('memory_frames') WHERE name = 'slot')",
        [],
        |row| row.get(0),
    )?;
    if !has_slot {
        conn.execute_batch(V11_SQL)?;
    }
    let frames = conn.query_all(
        "SELECT id, content FROM memory_frames WHERE frame_type != 'b-frame' ORDER BY id",
        [],
        |row| Ok((row.get::<_, u64>(0)?, row.get::<_, String>(1)?)),
    )?;
    let mut slots = std::collections::BTreeSet::new();
    let mut update = conn.prepare("UPDATE memory_frames SET slot = ?1 WHERE id = ?2")?;
    for (id, content) in frames {
        if let Some(slot) = super::slots::slot_of(&content) {
            update.execute(params![slot, id])?;
            slots.insert(slot);
        }
    }
    for slot in slots {
        super::slots::chain_unscreened_slot_in(conn, &slot)?;
    }
    Ok(())
}

/// v12's columns and review log. Frozen: never edit.
const V12_SQL: &str = r#"
ALTER TABLE memory_frames ADD COLUMN status TEXT NOT NULL DEFAULT 'active'
    CHECK (status IN ('active', 'archived'));
ALTER TABLE memory_frames ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1));
ALTER TABLE memory_frames ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(tags) AND json_type(tags) = 'array');
ALTER TABLE memory_frames ADD COLUMN merged_into INTEGER
    REFERENCES memory_frames(id) ON DELETE SET NULL;
ALTER TABLE memory_frames ADD COLUMN released_at TEXT;
CREATE INDEX memory_frames_archived ON memory_frames(id) WHERE status = 'archived';
CREATE INDEX memory_frames_merged_into ON memory_frames(merged_into) WHERE merged_into IS NOT NULL;
CREATE TABLE memory_reviews (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    frame_id INTEGER,
    action TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail))
);
CREATE INDEX memory_reviews_frame ON memory_reviews(frame_id);
CREATE TRIGGER memory_reviews_no_update BEFORE UPDATE ON memory_reviews
BEGIN SELECT RAISE(ABORT, 'memory_reviews is append-only'); END;
CREATE TRIGGER memory_reviews_no_delete BEFORE DELETE ON memory_reviews
BEGIN SELECT RAISE(ABORT, 'memory_reviews is append-only'); END;
CREATE TRIGGER memory_reviews_no_replace BEFORE INSERT ON memory_reviews
WHEN EXISTS (SELECT 1 FROM memory_reviews WHERE id = new.id)
BEGIN SELECT RAISE(ABORT, 'memory_reviews is append-only'); END;
"#;

/// v12: review (see the module docs). Idempotent: a mind that already has
/// the columns (a test's mind taken back a version) is left as it is.
fn v12(conn: &Connection) -> StoreResult<()> {
    let has_status: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('memory_frames') WHERE name = 'status')",
        [],
        |row| row.get(0),
    )?;
    if !has_status {
        conn.execute_batch(V12_SQL)?;
    }
    Ok(())
}

/// v13's columns. Frozen: never edit.
const V13_SQL: &str = r#"
ALTER TABLE memory_frames ADD COLUMN screen_score REAL;
ALTER TABLE memory_frames ADD COLUMN screen_detector TEXT;
ALTER TABLE memory_frames ADD COLUMN screen_reasons TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(screen_reasons) AND json_type(screen_reasons) = 'array');
ALTER TABLE memory_frames ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0
    CHECK (quarantined IN (0, 1));
CREATE INDEX memory_frames_quarantined ON memory_frames(id) WHERE quarantined = 1;
"#;

/// v13: screening at write (see the module docs). Idempotent like v12.
fn v13(conn: &Connection) -> StoreResult<()> {
    let has_screen: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('memory_frames') WHERE name = 'quarantined')",
        [],
        |row| row.get(0),
    )?;
    if !has_screen {
        conn.execute_batch(V13_SQL)?;
    }
    Ok(())
}

/// v14: what a person reads and decides. A session's `title` (an imported
/// conversation's or document's own); the owner's verdicts on pairs of
/// memories the engine read as one fact changing (`review.decide-pair`):
/// one row per pair, the latest decision, gone with either memory; and the
/// wiki's syntheses (a language model's paragraph atop a page, derived:
/// kept while the page's statements are the ones it was written from,
/// dropped by an erasure and by `reindex`).
/// Frozen: never edit (a new step changes it).
const V14_SQL: &str = r#"
ALTER TABLE sessions ADD COLUMN title TEXT;
CREATE TABLE memory_pair_verdicts (
    older_id INTEGER NOT NULL REFERENCES memory_frames(id) ON DELETE CASCADE,
    newer_id INTEGER NOT NULL REFERENCES memory_frames(id) ON DELETE CASCADE,
    verdict TEXT NOT NULL CHECK (verdict IN ('replaces', 'both_stand')),
    decided_at TEXT NOT NULL,
    PRIMARY KEY (older_id, newer_id),
    CHECK (older_id <> newer_id)
);
CREATE INDEX memory_pair_verdicts_newer ON memory_pair_verdicts(newer_id);
CREATE TABLE wiki_syntheses (
    slug TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    text TEXT NOT NULL,
    sources TEXT NOT NULL DEFAULT '[]'
        CHECK (json_valid(sources) AND json_type(sources) = 'array'),
    model TEXT NOT NULL,
    written_at TEXT NOT NULL
);
"#;

/// v14: session titles and pair verdicts (see [`V14_SQL`]). Idempotent like
/// v12.
fn v14(conn: &Connection) -> StoreResult<()> {
    let has_title: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('sessions') WHERE name = 'title')",
        [],
        |row| row.get(0),
    )?;
    if !has_title {
        conn.execute_batch(V14_SQL)?;
    }
    Ok(())
}

/// v15's table. Frozen: never edit (a new step changes it).
const V15_SQL: &str = r#"
CREATE TABLE memory_mentions (
    frame_id INTEGER NOT NULL REFERENCES memory_frames(id) ON DELETE CASCADE,
    since TEXT NOT NULL,
    until TEXT NOT NULL,
    CHECK (since <= until)
);
CREATE INDEX memory_mentions_frame ON memory_mentions(frame_id);
CREATE INDEX memory_mentions_period ON memory_mentions(since, until);
"#;

/// v15: the periods each frame's text names (see the module docs).
/// Idempotent like v12; the rows are read with today's reader, like v11's
/// slots, since they are an index the store looks things up by today.
fn v15(conn: &Connection) -> StoreResult<()> {
    let has_mentions: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_mentions')",
        [],
        |row| row.get(0),
    )?;
    if !has_mentions {
        conn.execute_batch(V15_SQL)?;
    }
    super::mentions::read_all_in(conn)?;
    Ok(())
}

/// v16: the slots that hold a quarantined frame, chained again without it
/// (see the module docs). Idempotent: a slot already chained so is left
/// as it is.
fn v16(conn: &Connection) -> StoreResult<()> {
    super::slots::rechain_held_slots_in(conn)?;
    Ok(())
}

/// A raw turn as v7 read it from a frame's content.
#[derive(Debug, PartialEq, Eq)]
struct V7RawTurn {
    /// The conversation (`conv:`).
    conv: String,
    /// Its number in the conversation (`turn:`).
    turn: u64,
    /// Who spoke (`speaker:`), as written in the tag.
    speaker: String,
    /// What was said: the content after the tag, trimmed.
    text: String,
}

/// A raw turn's tag and text as v7 read them, frozen: a content
/// `[mind-rawturn conv:C turn:N speaker:S] text` (words of the tag in any
/// order; `None` without a conversation or a turn number).
fn v7_raw_turn(content: &str) -> Option<V7RawTurn> {
    let (inside, text) = content.strip_prefix("[mind-rawturn")?.split_once(']')?;
    let mut conv = None;
    let mut turn = None;
    let mut speaker = String::new();
    for word in inside.split_whitespace() {
        if let Some(value) = word.strip_prefix("conv:") {
            conv = Some(value.to_string());
        } else if let Some(value) = word.strip_prefix("turn:") {
            turn = value.parse().ok();
        } else if let Some(value) = word.strip_prefix("speaker:") {
            speaker = value.to_string();
        }
    }
    Some(V7RawTurn {
        conv: conv.filter(|conv| !conv.is_empty())?,
        turn: turn?,
        speaker,
        text: text.trim().to_string(),
    })
}

/// The most characters of the turn before that v7 quoted.
const V7_REPLY_CONTEXT_MAX_CHARS: usize = 400;

/// The reply context v7 filled in, frozen: `Speaker: …` (the tag's `_`
/// written as spaces) with the last [`V7_REPLY_CONTEXT_MAX_CHARS`]
/// characters of what the turn before said, from its next word on (unless
/// that leaves nothing); empty when it said nothing.
fn v7_reply_context(previous_speaker: &str, previous_text: &str) -> String {
    let text = previous_text.trim();
    if text.is_empty() {
        return String::new();
    }
    let count = text.chars().count();
    let tail = if count <= V7_REPLY_CONTEXT_MAX_CHARS {
        text
    } else {
        let cut = text
            .char_indices()
            .nth(count - V7_REPLY_CONTEXT_MAX_CHARS)
            .map_or(0, |(at, _)| at);
        let tail = text.get(cut..).unwrap_or(text);
        // From the next word, unless the tail is a single word.
        match tail
            .find(char::is_whitespace)
            .and_then(|space| tail.get(space..))
        {
            Some(rest) if !rest.trim().is_empty() => rest.trim_start(),
            _ => tail,
        }
    };
    let speaker = previous_speaker.trim().replace('_', " ");
    if speaker.is_empty() {
        tail.to_string()
    } else {
        format!("{speaker}: {tail}")
    }
}

/// The schema version of an open connection.
pub fn version(conn: &Connection) -> StoreResult<u32> {
    Ok(conn.query_row("PRAGMA user_version", [], |row| row.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No step since v2 changed the vocabularies, so the table v2 wrote is
    /// the one `check` expects. A vocabulary change fails this test: it
    /// needs a step that rebuilds the table, and this test then compares
    /// that step's literal instead.
    #[test]
    fn the_checks_v2_wrote_are_todays_vocabulary() {
        assert_eq!(V2_VOCABULARY_CHECKS, vocabulary_checks());
    }

    /// The hash v2 backfilled is the one frames are written with today. If
    /// the live hash changes, stored hashes need a step, and this fails.
    #[test]
    fn v2s_content_hash_is_todays() {
        for content in [
            "The deploy key lives in the vault.",
            "[hm session:42 src:claude-code]   body \n",
            "[hm no close bracket",
            "  [hm not at the start] body",
            "",
            "\u{3000}wide space\u{3000}",
        ] {
            assert_eq!(
                v2_content_hash(content),
                hive_mind_core::content_hash(content),
                "{content:?}"
            );
        }
    }

    /// v2 read timestamps as the store reads event times today.
    #[test]
    fn v2s_timestamps_are_todays() {
        for text in [
            "2026-05-08",
            " 2026-05-08T13:56:00Z ",
            "2026-05-08T23:30:00.250-05:00",
            "2026-05-08T13:56:00",
            "2026-05-08 13:56:00",
            "2026-05-08 13:56:00.5",
            "2026-05-08T13:56",
            "",
            "yesterday",
            "2026-02-30",
            "08/05/2026",
        ] {
            assert_eq!(
                v2_event_time(text),
                crate::clock::parse_event_time(text).ok(),
                "{text:?}"
            );
        }
    }

    /// v7 read raw turns and wrote reply contexts as the engine does today.
    /// If either changes, the contexts v7 filled in differ from new ones,
    /// and this fails.
    #[test]
    fn v7s_raw_turns_and_reply_contexts_are_todays() {
        let long = "word ".repeat(120);
        let one_long_word = "x".repeat(450);
        for content in [
            "[mind-rawturn conv:a turn:1 speaker:Mary_Ann] How long have you been married?",
            "[mind-rawturn turn:2 speaker:Bo conv:b]   spaced out  ",
            "[mind-rawturn conv:a turn:x speaker:Bo] no number",
            "[mind-rawturn conv: turn:3] no conversation",
            "[mind-rawturn conv:c turn:4] nobody",
            "[mind-rawturn conv:c turn:5 speaker:Al]",
            "[mind-rawturn conv:c turn:6 speaker:Al no close",
            &format!("[mind-rawturn conv:d turn:7 speaker:Al] {long}"),
            &format!("[mind-rawturn conv:d turn:8 speaker:Al] {one_long_word}"),
        ] {
            let live = hive_mind_core::RawTurnTag::parse(content).map(|tag| V7RawTurn {
                conv: tag.conv,
                turn: tag.turn,
                speaker: tag.speaker,
                text: hive_mind_core::recall::display_text(content, None),
            });
            let frozen = v7_raw_turn(content);
            assert_eq!(frozen, live, "{content:?}");
            if let Some(turn) = frozen {
                assert_eq!(
                    v7_reply_context(&turn.speaker, &turn.text),
                    hive_mind_core::reply_context(&turn.speaker, &turn.text),
                    "{content:?}"
                );
            }
        }
        assert_eq!(
            V7_REPLY_CONTEXT_MAX_CHARS,
            hive_mind_core::raw_turn::REPLY_CONTEXT_MAX_CHARS
        );
    }
}
