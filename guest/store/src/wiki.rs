//! The reads the wiki is compiled from: which entities have current
//! memories, an entity's memories, the links among memories, and the
//! memories no entity cites. The pages themselves are assembled by the
//! engine (`hive_mind_core::wiki`) when read. The one thing stored for
//! them is derived: a language model's synthesis of a page
//! ([`Synthesis`]), kept under the fingerprint of the statements it was
//! written from, so a page whose statements changed never shows it; an
//! erasure drops every synthesis (one may quote what was forgotten), and
//! so does `reindex`.

use hive_mind_core::raw_turn::RAW_TURN_TAG;

use crate::sql::params;

use super::MindStore;
use super::error::StoreResult;
use super::frames::{FRAME_COLUMNS, frame_from_row};
use super::types::Frame;

/// The condition a memory is *current* under: valid now, active, not merged
/// away, not quarantined.
const CURRENT: &str = "f.valid_to IS NULL AND f.superseded_by IS NULL AND f.status = 'active' \
     AND f.merged_into IS NULL AND (f.quarantined = 0 OR f.released_at IS NOT NULL)";

/// A language model's paragraph atop a wiki page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synthesis {
    /// The page's address.
    pub slug: String,
    /// The fingerprint of the statements it was written from.
    pub fingerprint: String,
    /// The paragraph, citing its statements as `[personal:12]`.
    pub text: String,
    /// The ids of the memories it cites.
    pub sources: Vec<u64>,
    /// The model that wrote it.
    pub model: String,
    /// When (UTC).
    pub written_at: String,
}

/// An entity with the number of current memories that name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CitedEntity {
    /// The entity's id.
    pub id: u64,
    /// How many current memories name it.
    pub current: u32,
    /// The newest of them, event time.
    pub newest: Option<String>,
}

impl MindStore {
    /// The active entities named by at least one current memory, the most
    /// cited first (then the newest), at most `limit`.
    pub fn cited_entities(&self, limit: u32) -> StoreResult<Vec<CitedEntity>> {
        Ok(self.conn.query_all(
            &format!(
                "SELECT e.id, count(f.id), max(f.created_at) FROM knowledge_entities e
                 JOIN kg_entity_frames ef ON ef.entity_id = e.id
                 JOIN memory_frames f ON f.id = ef.frame_id
                 WHERE e.valid_to IS NULL AND {CURRENT}
                 GROUP BY e.id ORDER BY count(f.id) DESC, max(f.created_at) DESC, e.id LIMIT ?1"
            ),
            params![limit],
            |row| {
                Ok(CitedEntity {
                    id: row.get(0)?,
                    current: row.get(1)?,
                    newest: row.get(2)?,
                })
            },
        )?)
    }

    /// Every memory that names entity `id`, current or not, newest first
    /// (event time, then id).
    pub fn entity_memories(&self, id: u64) -> StoreResult<Vec<Frame>> {
        let mind = self.mind.clone();
        Ok(self.conn.query_all(
            &format!(
                "SELECT {FRAME_COLUMNS} FROM memory_frames f
                 JOIN kg_entity_frames ef ON ef.frame_id = f.id
                 WHERE ef.entity_id = ?1
                 ORDER BY f.created_at DESC, f.id DESC"
            ),
            params![id],
            |row| frame_from_row(&mind, row),
        )?)
    }

    /// The links among `ids` (each pair once, lower id first) with the
    /// similarity that made them.
    pub fn links_among(&self, ids: &[u64]) -> StoreResult<Vec<(u64, u64, f64)>> {
        let mut out = Vec::new();
        for &id in ids {
            for (other, similarity) in self.related_frames(id, 1000)? {
                if other > id && ids.contains(&other) {
                    out.push((id, other, similarity));
                }
            }
        }
        Ok(out)
    }

    /// Current memories that name no entity, oldest first, at most `limit`,
    /// and how many there are in all. Conversation turns and document
    /// sections are read through their sessions, not pages, so they are
    /// not counted.
    pub fn uncited_memories(&self, limit: u32) -> StoreResult<(Vec<Frame>, u64)> {
        let mind = self.mind.clone();
        let filter = format!(
            "{CURRENT} AND substr(f.content, 1, {tag}) != '{RAW_TURN_TAG}'
               AND json_extract(f.metadata, '$.doc') IS NULL
               AND NOT EXISTS (SELECT 1 FROM kg_entity_frames ef WHERE ef.frame_id = f.id)",
            tag = RAW_TURN_TAG.len()
        );
        let total: u64 = self.conn.query_row(
            &format!("SELECT count(*) FROM memory_frames f WHERE {filter}"),
            [],
            |row| row.get(0),
        )?;
        let frames = self.conn.query_all(
            &format!(
                "SELECT {FRAME_COLUMNS} FROM memory_frames f WHERE {filter}
                 ORDER BY f.created_at, f.id LIMIT ?1"
            ),
            params![limit],
            |row| frame_from_row(&mind, row),
        )?;
        Ok((frames, total))
    }

    /// Current memories whose content contains `text` (case-insensitive;
    /// `%` and `_` taken literally), newest first, at most `limit`.
    pub fn memories_containing(&self, text: &str, limit: u32) -> StoreResult<Vec<Frame>> {
        let mind = self.mind.clone();
        Ok(self.conn.query_all(
            &format!(
                "SELECT {FRAME_COLUMNS} FROM memory_frames f
                 WHERE {CURRENT} AND lower(f.content) LIKE ?1 ESCAPE '\\'
                 ORDER BY f.created_at DESC, f.id DESC LIMIT ?2"
            ),
            params![super::graph::contains_pattern(text), limit],
            |row| frame_from_row(&mind, row),
        )?)
    }

    /// The entities current memory `frame` names.
    pub fn frame_entities(&self, frame: u64) -> StoreResult<Vec<u64>> {
        Ok(self.conn.query_all(
            "SELECT entity_id FROM kg_entity_frames WHERE frame_id = ?1 ORDER BY entity_id",
            [frame],
            |row| row.get(0),
        )?)
    }

    /// The stored synthesis of page `slug`, if any.
    pub fn synthesis(&self, slug: &str) -> StoreResult<Option<Synthesis>> {
        let row: Option<(String, String, String, String, String)> = self
            .conn
            .query_all(
                "SELECT fingerprint, text, sources, model, written_at FROM wiki_syntheses WHERE slug = ?1",
                [slug],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?)),
            )?
            .pop();
        Ok(row.map(
            |(fingerprint, text, sources, model, written_at)| Synthesis {
                slug: slug.to_string(),
                fingerprint,
                text,
                sources: serde_json::from_str(&sources).unwrap_or_default(),
                model,
                written_at,
            },
        ))
    }

    /// Keep `synthesis`, replacing the page's earlier one.
    pub fn save_synthesis(&mut self, synthesis: &Synthesis) -> StoreResult<()> {
        self.conn.execute(
            "INSERT INTO wiki_syntheses (slug, fingerprint, text, sources, model, written_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (slug) DO UPDATE SET fingerprint = ?2, text = ?3, sources = ?4,
                 model = ?5, written_at = ?6",
            params![
                synthesis.slug,
                synthesis.fingerprint,
                synthesis.text,
                serde_json::to_string(&synthesis.sources).unwrap_or_else(|_| "[]".to_string()),
                synthesis.model,
                synthesis.written_at
            ],
        )?;
        Ok(())
    }

    /// The current memories' ids, contents and event times, newest first,
    /// at most `limit`: what topic detection reads (only the columns it
    /// needs, for a whole mind at once).
    pub fn current_texts(&self, limit: u32) -> StoreResult<Vec<(u64, String, String)>> {
        Ok(self.conn.query_all(
            &format!(
                "SELECT f.id, f.content, f.created_at FROM memory_frames f
                 WHERE {CURRENT} ORDER BY f.created_at DESC, f.id DESC LIMIT ?1"
            ),
            [limit],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )?)
    }
}
