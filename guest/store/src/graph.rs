//! The knowledge graph: typed entities, typed directional relations, and the
//! bridge from entities to the frames they were found in.
//!
//! - **Bitemporal.** Entities and relations carry `valid_from`/`valid_to`;
//!   `valid_to IS NULL` is active. Nothing is hard-deleted: retiring sets
//!   `valid_to`.
//! - **One entity per name and type.** Names are compared by
//!   [`hive_mind_core::normalize_entity_name`] (trimmed, collapsed,
//!   lower-cased, aliases such as `postgres` → `postgresql`); the type is
//!   compared case-insensitively. A partial unique index forbids two active
//!   entities with the same key, so [`MindStore::upsert_entity`] is the dedup
//!   primitive (exact, never fuzzy — fuzzy lookups were how the reference
//!   engine grew thousands of duplicates). "Marko" the person and "Marko" the
//!   project stay two entities.
//! - **The frame bridge.** `kg_entity_frames` records which frames an entity
//!   came from, so graph distance can reach frames
//!   ([`MindStore::frame_distances`]); the reference engine lacked it and its
//!   contextual score was always zero.
//! - **Distances** are breadth-first over active relations in either
//!   direction, up to a maximum depth, by a recursive query.

use std::collections::BTreeMap;

use crate::sql::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use hive_mind_core::normalize_entity_name;
use serde::Serialize;

use super::MindStore;
use super::clock::now;
use super::error::{StoreError, StoreResult};

/// A node of the graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    /// Its id within its mind.
    pub id: u64,
    /// Its name as first written.
    pub name: String,
    /// Its canonical name (the dedup key, with the type).
    pub normalized_name: String,
    /// Its type (person, project, technology, …).
    pub entity_type: String,
    /// How often it has been seen.
    pub seen_count: u32,
    /// A JSON object of properties.
    pub properties: String,
    /// Since when it is valid.
    pub valid_from: String,
    /// When it was retired, if it was.
    pub valid_to: Option<String>,
}

/// A directed, typed edge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Relation {
    /// Its id.
    pub id: u64,
    /// The subject entity.
    pub subject: u64,
    /// The relation type, e.g. `depends-on`.
    pub relation: String,
    /// The object entity.
    pub object: u64,
    /// How sure it is (the highest strength seen).
    pub strength: f64,
    /// How often it has been seen.
    pub seen_count: u32,
    /// Since when it is valid.
    pub valid_from: String,
    /// When it was retired, if it was.
    pub valid_to: Option<String>,
}

/// What an entity cleanup looks for ([`MindStore::clean_entities`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityRule {
    /// No memory mentions it and no relation touches it.
    Orphans,
    /// Its name is noise (a stop word, a number, a fragment).
    Noise,
}

const ENTITY_COLUMNS: &str =
    "id, name, normalized_name, entity_type, seen_count, properties, valid_from, valid_to";
const RELATION_COLUMNS: &str =
    "id, source_id, relation_type, target_id, confidence, seen_count, valid_from, valid_to";

fn entity_from_row(row: &Row<'_>) -> crate::sql::Result<Entity> {
    Ok(Entity {
        id: row.get(0)?,
        name: row.get(1)?,
        normalized_name: row.get(2)?,
        entity_type: row.get(3)?,
        seen_count: row.get(4)?,
        properties: row.get(5)?,
        valid_from: row.get(6)?,
        valid_to: row.get(7)?,
    })
}

fn relation_from_row(row: &Row<'_>) -> crate::sql::Result<Relation> {
    Ok(Relation {
        id: row.get(0)?,
        subject: row.get(1)?,
        relation: row.get(2)?,
        object: row.get(3)?,
        strength: row.get(4)?,
        seen_count: row.get(5)?,
        valid_from: row.get(6)?,
        valid_to: row.get(7)?,
    })
}

fn active_entity(conn: &Connection, id: u64) -> StoreResult<Entity> {
    conn.query_row(
        &format!(
            "SELECT {ENTITY_COLUMNS} FROM knowledge_entities WHERE id = ?1 AND valid_to IS NULL"
        ),
        [id],
        entity_from_row,
    )
    .optional()?
    .ok_or_else(|| StoreError::NotFound(format!("entity {id}")))
}

/// Merge active entities with the same canonical name and type — by
/// today's [`normalize_entity_name`], which may have changed since a name
/// was stored (the alias table grew) — and store every survivor's name as
/// it normalises today. The survivor is the one with the most active
/// relations (then the lowest id); the others' relations and frame links
/// move to it, their `seen_count` is added to it, and they are retired.
/// Returns how many entities were retired.
///
/// The unique indexes on active entities and relations stay on throughout
/// (only a migration changes a mind's schema): a duplicate is retired before
/// anything moves to its survivor, an edge the survivor already has is
/// merged into it rather than repointed, and names are changed in two
/// passes (aside, then to their new value), so no statement ever makes two
/// active rows with one key.
pub fn dedupe_by_name_in(conn: &Connection, now: &str) -> StoreResult<u64> {
    let active: Vec<(u64, String, String, String)> = conn
        .prepare(
            "SELECT id, name, normalized_name, lower(entity_type) FROM knowledge_entities
             WHERE valid_to IS NULL ORDER BY id",
        )?
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    let mut groups: BTreeMap<(String, String), Vec<(u64, String)>> = BTreeMap::new();
    for (id, name, stored, entity_type) in active {
        groups
            .entry((normalize_entity_name(&name), entity_type))
            .or_default()
            .push((id, stored));
    }
    let mut retired = 0;
    let mut renames: Vec<(u64, String)> = Vec::new();
    for ((fresh, _), members) in groups {
        let survivor = if members.len() > 1 {
            let ids = serde_json::to_string(&members.iter().map(|(id, _)| *id).collect::<Vec<_>>())
                .map_err(|error| StoreError::InvalidInput(error.to_string()))?;
            let ranked: Option<u64> = conn
                .query_row(
                    "SELECT e.id FROM json_each(?1) j JOIN knowledge_entities e ON e.id = j.value
                     ORDER BY (SELECT count(*) FROM knowledge_relations r
                               WHERE r.valid_to IS NULL AND (r.source_id = e.id OR r.target_id = e.id)) DESC,
                              e.id ASC
                     LIMIT 1",
                    [ids],
                    |row| row.get(0),
                )
                .optional()?;
            let Some(survivor) = ranked else {
                continue;
            };
            for (duplicate, _) in members.iter().filter(|(id, _)| *id != survivor) {
                merge_entity_into(conn, *duplicate, survivor, now)?;
                retired += 1;
            }
            survivor
        } else {
            let Some((only, _)) = members.first() else {
                continue;
            };
            *only
        };
        let stored = members
            .iter()
            .find(|(id, _)| *id == survivor)
            .map(|(_, stored)| stored.as_str());
        if stored != Some(fresh.as_str()) {
            renames.push((survivor, fresh));
        }
    }
    // A new name may still be another survivor's old one, renamed in this
    // same pass: every renamed entity steps aside first (a name no
    // normalised name can be: it starts with a control character).
    for (id, _) in &renames {
        conn.execute(
            "UPDATE knowledge_entities SET normalized_name = char(1) || id WHERE id = ?1",
            [id],
        )?;
    }
    for (id, fresh) in &renames {
        conn.execute(
            "UPDATE knowledge_entities SET normalized_name = ?2 WHERE id = ?1",
            params![id, fresh],
        )?;
    }
    Ok(retired)
}

/// Merge the active entity `duplicate` into `survivor` (see
/// [`dedupe_by_name_in`]), keeping every unique index satisfied at each
/// statement.
fn merge_entity_into(
    conn: &Connection,
    duplicate: u64,
    survivor: u64,
    now: &str,
) -> StoreResult<()> {
    conn.execute(
        "UPDATE knowledge_entities SET seen_count = seen_count +
             (SELECT seen_count FROM knowledge_entities WHERE id = ?1) WHERE id = ?2",
        params![duplicate, survivor],
    )?;
    conn.execute(
        "UPDATE knowledge_entities SET valid_to = ?2 WHERE id = ?1",
        params![duplicate, now],
    )?;
    // Edges between the two, and the duplicate's own loops, would become
    // the survivor's loops: they retire (as merge_duplicate_relations
    // retires loops).
    conn.execute(
        "UPDATE knowledge_relations SET valid_to = ?3 WHERE valid_to IS NULL AND (
             (source_id = ?1 AND target_id IN (?1, ?2)) OR (target_id = ?1 AND source_id = ?2))",
        params![duplicate, survivor, now],
    )?;
    // An edge of the duplicate that the survivor already has (same other
    // end, same type) merges with it; the lower id is kept, as
    // merge_duplicate_relations keeps it.
    let pairs: Vec<(u64, u64)> = conn
        .prepare(
            "SELECT r.id, e.id FROM knowledge_relations r JOIN knowledge_relations e
               ON e.valid_to IS NULL AND e.relation_type = r.relation_type AND (
                  (r.source_id = ?1 AND e.source_id = ?2 AND e.target_id = r.target_id)
               OR (r.target_id = ?1 AND e.target_id = ?2 AND e.source_id = r.source_id))
             WHERE r.valid_to IS NULL",
        )?
        .query_map(params![duplicate, survivor], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?
        .collect::<Result<_, _>>()?;
    for (moved, existing) in pairs {
        let (kept, gone) = if moved < existing {
            (moved, existing)
        } else {
            (existing, moved)
        };
        merge_relation_into(conn, gone, kept, now)?;
    }
    conn.execute(
        "UPDATE knowledge_relations SET source_id = ?2 WHERE source_id = ?1 AND valid_to IS NULL",
        params![duplicate, survivor],
    )?;
    conn.execute(
        "UPDATE knowledge_relations SET target_id = ?2 WHERE target_id = ?1 AND valid_to IS NULL",
        params![duplicate, survivor],
    )?;
    if has_bridge(conn)? {
        conn.execute(
            "INSERT OR IGNORE INTO kg_entity_frames (entity_id, frame_id)
             SELECT ?2, frame_id FROM kg_entity_frames WHERE entity_id = ?1",
            params![duplicate, survivor],
        )?;
        conn.execute(
            "DELETE FROM kg_entity_frames WHERE entity_id = ?1",
            [duplicate],
        )?;
    }
    Ok(())
}

/// Fold relation `gone` into `kept`: summed `seen_count`, the higher
/// confidence; `gone` retires.
fn merge_relation_into(conn: &Connection, gone: u64, kept: u64, now: &str) -> StoreResult<()> {
    conn.execute(
        "UPDATE knowledge_relations SET
             seen_count = seen_count + (SELECT seen_count FROM knowledge_relations WHERE id = ?1),
             confidence = max(confidence, (SELECT confidence FROM knowledge_relations WHERE id = ?1))
         WHERE id = ?2",
        params![gone, kept],
    )?;
    conn.execute(
        "UPDATE knowledge_relations SET valid_to = ?2 WHERE id = ?1",
        params![gone, now],
    )?;
    Ok(())
}

fn has_bridge(conn: &Connection) -> StoreResult<bool> {
    let count: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name = 'kg_entity_frames'",
        [],
        |row| row.get(0),
    )?;
    Ok(count > 0)
}

/// Merge active relations with the same subject, object and type (an
/// older build or a raw import may have left some), and retire self-loops: the
/// survivor (lowest id) gets the summed `seen_count` and the highest
/// strength. Returns how many relations were retired.
pub fn merge_duplicate_relations(conn: &Connection, now: &str) -> StoreResult<u64> {
    let mut retired = u64::try_from(conn.execute(
        "UPDATE knowledge_relations SET valid_to = ?1 WHERE valid_to IS NULL AND source_id = target_id",
        [now],
    )?)
    .unwrap_or(0);
    let groups: Vec<(u64, u64, String)> = conn
        .prepare(
            "SELECT source_id, target_id, relation_type FROM knowledge_relations WHERE valid_to IS NULL
             GROUP BY source_id, target_id, relation_type HAVING count(*) > 1",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    for (source, target, relation) in groups {
        let ids: Vec<u64> = conn
            .prepare(
                "SELECT id FROM knowledge_relations WHERE valid_to IS NULL
                 AND source_id = ?1 AND target_id = ?2 AND relation_type = ?3 ORDER BY id",
            )?
            .query_map(params![source, target, relation], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        let Some((&survivor, duplicates)) = ids.split_first() else {
            continue;
        };
        for &duplicate in duplicates {
            merge_relation_into(conn, duplicate, survivor, now)?;
            retired += 1;
        }
    }
    Ok(retired)
}

/// Create or strengthen an entity on `conn` (inside the caller's
/// transaction); see [`MindStore::upsert_entity`]. The flag says whether it
/// was created.
pub(crate) fn upsert_entity_in(
    conn: &Connection,
    mind: &crate::Mind,
    name: &str,
    entity_type: &str,
    frames: &[u64],
) -> StoreResult<(Entity, bool)> {
    let normalized = normalize_entity_name(name);
    if normalized.is_empty() || entity_type.trim().is_empty() {
        return Err(StoreError::InvalidInput(format!(
            "an entity needs a name and a type (got {name:?}, {entity_type:?})"
        )));
    }
    let now = now();
    let existing: Option<u64> = conn
        .query_row(
            "SELECT id FROM knowledge_entities
             WHERE valid_to IS NULL AND normalized_name = ?1 AND lower(entity_type) = lower(?2)",
            params![normalized, entity_type.trim()],
            |row| row.get(0),
        )
        .optional()?;
    let created = existing.is_none();
    let id = match existing {
        Some(id) => {
            conn.execute(
                "UPDATE knowledge_entities SET seen_count = seen_count + 1 WHERE id = ?1",
                [id],
            )?;
            id
        }
        None => {
            conn.execute(
                "INSERT INTO knowledge_entities (entity_type, name, normalized_name, valid_from, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?4)",
                params![entity_type.trim(), name.trim(), normalized, now],
            )?;
            u64::try_from(conn.last_insert_rowid()).unwrap_or(0)
        }
    };
    for frame in frames {
        let exists: i64 = conn.query_row(
            "SELECT count(*) FROM memory_frames WHERE id = ?1",
            [frame],
            |row| row.get(0),
        )?;
        if exists == 0 {
            return Err(StoreError::NotFound(format!("frame {mind}:{frame}")));
        }
        conn.execute(
            "INSERT OR IGNORE INTO kg_entity_frames (entity_id, frame_id) VALUES (?1, ?2)",
            params![id, frame],
        )?;
    }
    Ok((active_entity(conn, id)?, created))
}

/// Create or strengthen a relation on `conn` (inside the caller's
/// transaction); see [`MindStore::relate`].
pub(crate) fn relate_in(
    conn: &Connection,
    subject: u64,
    relation: &str,
    object: u64,
    strength: f64,
) -> StoreResult<Relation> {
    let relation = relation.trim();
    if relation.is_empty() {
        return Err(StoreError::InvalidInput(
            "an empty relation type".to_string(),
        ));
    }
    if !(0.0..=1.0).contains(&strength) {
        return Err(StoreError::InvalidInput(format!(
            "strength {strength} is outside 0..=1"
        )));
    }
    if subject == object {
        return Err(StoreError::InvalidInput(format!(
            "entity {subject} cannot relate to itself"
        )));
    }
    let now = now();
    active_entity(conn, subject)?;
    active_entity(conn, object)?;
    conn.execute(
        "INSERT INTO knowledge_relations (source_id, target_id, relation_type, confidence, valid_from, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)
         ON CONFLICT (source_id, target_id, relation_type) WHERE valid_to IS NULL DO UPDATE SET
             seen_count = seen_count + 1, confidence = max(confidence, excluded.confidence)",
        params![subject, object, relation, strength, now],
    )?;
    Ok(conn.query_row(
        &format!(
            "SELECT {RELATION_COLUMNS} FROM knowledge_relations
             WHERE source_id = ?1 AND target_id = ?2 AND relation_type = ?3 AND valid_to IS NULL"
        ),
        params![subject, object, relation],
        relation_from_row,
    )?)
}

/// A `LIKE … ESCAPE '\\'` pattern matching text that contains `text`,
/// case-insensitively against a lower-cased column: `%` and `_` in `text`
/// are taken literally.
pub(crate) fn contains_pattern(text: &str) -> String {
    let escaped: String = text
        .to_lowercase()
        .chars()
        .flat_map(|c| match c {
            '%' | '_' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    format!("%{escaped}%")
}

/// One frame's graph, for [`MindStore::link_graphs`].
#[derive(Debug, Clone, PartialEq)]
pub struct FrameGraph {
    /// The frame's id in this mind.
    pub frame: u64,
    /// Its entities: name as written and type.
    pub entities: Vec<(String, String)>,
    /// Its relations: subject (an index into `entities`), relation type,
    /// object (an index), strength.
    pub relations: Vec<(usize, String, usize, f64)>,
}

impl MindStore {
    /// Create an entity, or strengthen the active one with the same canonical
    /// name and type (`seen_count` + 1); link it to `frames` (ids in this
    /// mind; unknown ids are a [`StoreError::NotFound`]).
    pub fn upsert_entity(
        &mut self,
        name: &str,
        entity_type: &str,
        frames: &[u64],
    ) -> StoreResult<Entity> {
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (entity, _) = upsert_entity_in(&tx, &mind, name, entity_type, frames)?;
        tx.commit()?;
        Ok(entity)
    }

    /// Active entities whose canonical name is exactly `name`'s, of any type.
    pub fn find_entities(&self, name: &str) -> StoreResult<Vec<Entity>> {
        let entities = self
            .conn
            .prepare_cached(&format!(
                "SELECT {ENTITY_COLUMNS} FROM knowledge_entities
                 WHERE valid_to IS NULL AND normalized_name = ?1 ORDER BY id"
            ))?
            .query_map([normalize_entity_name(name)], entity_from_row)?
            .collect::<Result<_, _>>()?;
        Ok(entities)
    }

    /// Active entities whose name contains `text` (case-insensitive, `%` and
    /// `_` taken literally), most seen first. For browsing, never for dedup.
    pub fn search_entities(&self, text: &str, limit: u32) -> StoreResult<Vec<Entity>> {
        self.browse_entities(text, None, limit)
    }

    /// [`Self::search_entities`], of one type when `entity_type` is given
    /// (its graph spelling: lower case, `-` between words).
    pub fn browse_entities(
        &self,
        text: &str,
        entity_type: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<Entity>> {
        let pattern = contains_pattern(text.trim());
        let entities = self
            .conn
            .prepare_cached(&format!(
                "SELECT {ENTITY_COLUMNS} FROM knowledge_entities
                 WHERE valid_to IS NULL AND (lower(name) LIKE ?1 ESCAPE '\\' OR normalized_name LIKE ?1 ESCAPE '\\')
                   AND (?3 IS NULL OR entity_type = ?3)
                 ORDER BY seen_count DESC, id LIMIT ?2"
            ))?
            .query_map(params![pattern, limit, entity_type], entity_from_row)?
            .collect::<Result<_, _>>()?;
        Ok(entities)
    }

    /// An entity by id (active or retired).
    pub fn entity(&self, id: u64) -> StoreResult<Option<Entity>> {
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {ENTITY_COLUMNS} FROM knowledge_entities WHERE id = ?1"),
                [id],
                entity_from_row,
            )
            .optional()?)
    }

    /// The frames an entity was found in.
    pub fn entity_frames(&self, id: u64) -> StoreResult<Vec<u64>> {
        let frames = self
            .conn
            .prepare_cached(
                "SELECT frame_id FROM kg_entity_frames WHERE entity_id = ?1 ORDER BY frame_id",
            )?
            .query_map([id], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(frames)
    }

    /// Write the graphs of many frames in one transaction: each frame's
    /// entities upserted and linked to it (as [`Self::upsert_entity`]), then
    /// its relations created or strengthened (as [`Self::relate`]). A
    /// relation names its subject and object by their index in the frame's
    /// entities; one out of range, or naming the same entity twice, is
    /// skipped. Returns the number of entities and of relations written.
    pub fn link_graphs(&mut self, graphs: &[FrameGraph]) -> StoreResult<(u32, u32)> {
        let mind = self.mind.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (mut entities, mut relations) = (0u32, 0u32);
        for graph in graphs {
            let mut ids: Vec<u64> = Vec::with_capacity(graph.entities.len());
            for (name, entity_type) in &graph.entities {
                let (entity, _) = upsert_entity_in(&tx, &mind, name, entity_type, &[graph.frame])?;
                ids.push(entity.id);
                entities += 1;
            }
            for (subject, relation, object, strength) in &graph.relations {
                if let (Some(&subject), Some(&object)) = (ids.get(*subject), ids.get(*object))
                    && subject != object
                {
                    relate_in(&tx, subject, relation, object, *strength)?;
                    relations += 1;
                }
            }
        }
        tx.commit()?;
        Ok((entities, relations))
    }

    /// Create or strengthen the active relation `subject —relation→ object`:
    /// a repeat adds to `seen_count` and keeps the highest strength.
    pub fn relate(
        &mut self,
        subject: u64,
        relation: &str,
        object: u64,
        strength: f64,
    ) -> StoreResult<Relation> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let stored = relate_in(&tx, subject, relation, object, strength)?;
        tx.commit()?;
        Ok(stored)
    }

    /// The active relations an entity takes part in, either direction.
    pub fn relations(&self, entity: u64) -> StoreResult<Vec<Relation>> {
        let relations = self
            .conn
            .prepare_cached(&format!(
                "SELECT {RELATION_COLUMNS} FROM knowledge_relations
                 WHERE valid_to IS NULL AND (source_id = ?1 OR target_id = ?1) ORDER BY id"
            ))?
            .query_map([entity], relation_from_row)?
            .collect::<Result<_, _>>()?;
        Ok(relations)
    }

    /// Retire an entity and its active relations (`valid_to` = now). History
    /// stays; lookups and distances no longer see it.
    pub fn retire_entity(&mut self, id: u64) -> StoreResult<()> {
        let now = now();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        active_entity(&tx, id)?;
        tx.execute(
            "UPDATE knowledge_relations SET valid_to = ?2
             WHERE valid_to IS NULL AND (source_id = ?1 OR target_id = ?1)",
            params![id, now],
        )?;
        tx.execute(
            "UPDATE knowledge_entities SET valid_to = ?2 WHERE id = ?1",
            params![id, now],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The active entities a cleanup rule finds (oldest first), and with
    /// `apply` retires them with their relations in one transaction:
    /// [`EntityRule::Orphans`], entities with no evidence (no memory
    /// mentions them) and no active relation; [`EntityRule::Noise`],
    /// entities whose name [`hive_mind_core::is_noise_name`] rejects (left
    /// by an older extractor or a raw import) and that no active relation
    /// touches: that rule's length test also rejects short real names
    /// ("Ana"), and a relation someone made says the entity means something.
    pub fn clean_entities(&mut self, rule: EntityRule, apply: bool) -> StoreResult<Vec<Entity>> {
        let now = now();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found: Vec<Entity> = match rule {
            EntityRule::Orphans => tx.query_all(
                &format!(
                    "SELECT {ENTITY_COLUMNS} FROM knowledge_entities e
                     WHERE e.valid_to IS NULL
                       AND NOT EXISTS (SELECT 1 FROM kg_entity_frames l WHERE l.entity_id = e.id)
                       AND NOT EXISTS (SELECT 1 FROM knowledge_relations r WHERE r.valid_to IS NULL
                                       AND (r.source_id = e.id OR r.target_id = e.id))
                     ORDER BY e.id"
                ),
                [],
                entity_from_row,
            )?,
            EntityRule::Noise => tx
                .query_all(
                    &format!(
                        "SELECT {ENTITY_COLUMNS} FROM knowledge_entities e
                         WHERE e.valid_to IS NULL
                           AND NOT EXISTS (SELECT 1 FROM knowledge_relations r WHERE r.valid_to IS NULL
                                           AND (r.source_id = e.id OR r.target_id = e.id))
                         ORDER BY e.id"
                    ),
                    [],
                    entity_from_row,
                )?
                .into_iter()
                .filter(|entity| hive_mind_core::is_noise_name(&entity.name))
                .collect(),
        };
        if apply {
            for entity in &found {
                tx.execute(
                    "UPDATE knowledge_relations SET valid_to = ?2
                     WHERE valid_to IS NULL AND (source_id = ?1 OR target_id = ?1)",
                    params![entity.id, now],
                )?;
                tx.execute(
                    "UPDATE knowledge_entities SET valid_to = ?2 WHERE id = ?1",
                    params![entity.id, now],
                )?;
            }
            tx.commit()?;
        }
        Ok(found)
    }

    /// Merge duplicate entities (same canonical name and type, by today's
    /// normalisation; see [`dedupe_by_name_in`]) and duplicate relations.
    /// Returns how many entities were retired.
    pub fn dedupe_entities(&mut self) -> StoreResult<u64> {
        let now = now();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let retired = dedupe_by_name_in(&tx, &now)?;
        // Loops and duplicate edges an older build or a raw import left.
        merge_duplicate_relations(&tx, &now)?;
        tx.commit()?;
        Ok(retired)
    }

    /// Graph distance (hops over active relations, either direction, up to
    /// `max_depth`) from a set of entities to every entity reached:
    /// `(entity id, distance)`, nearest first.
    pub fn entity_distances(&self, from: &[u64], max_depth: u32) -> StoreResult<Vec<(u64, u32)>> {
        let seeds = serde_json::to_string(from)
            .map_err(|error| StoreError::InvalidInput(error.to_string()))?;
        let rows: Vec<(u64, u32)> = self
            .conn
            .prepare_cached(
                "WITH RECURSIVE reach(id, depth) AS (
                     SELECT e.id, 0 FROM json_each(?1) j
                     JOIN knowledge_entities e ON e.id = j.value AND e.valid_to IS NULL
                     UNION
                     SELECT CASE WHEN r.source_id = reach.id THEN r.target_id ELSE r.source_id END,
                            reach.depth + 1
                     FROM reach JOIN knowledge_relations r
                       ON r.valid_to IS NULL AND (r.source_id = reach.id OR r.target_id = reach.id)
                     WHERE reach.depth < ?2
                 )
                 SELECT reach.id, min(reach.depth) FROM reach
                 JOIN knowledge_entities e ON e.id = reach.id AND e.valid_to IS NULL
                 GROUP BY reach.id ORDER BY 2, 1",
            )?
            .query_map(params![seeds, max_depth], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Graph distance from a set of entities to the frames linked to the
    /// entities reached: `(frame id, distance)`, nearest first.
    pub fn frame_distances(&self, from: &[u64], max_depth: u32) -> StoreResult<Vec<(u64, u32)>> {
        let mut best: BTreeMap<u64, u32> = BTreeMap::new();
        let mut statement = self
            .conn
            .prepare_cached("SELECT frame_id FROM kg_entity_frames WHERE entity_id = ?1")?;
        for (entity, distance) in self.entity_distances(from, max_depth)? {
            for frame in statement.query_map([entity], |row| row.get::<_, u64>(0))? {
                let frame = frame?;
                let slot = best.entry(frame).or_insert(distance);
                *slot = (*slot).min(distance);
            }
        }
        let mut pairs: Vec<(u64, u32)> = best.into_iter().collect();
        pairs.sort_by_key(|(frame, distance)| (*distance, *frame));
        Ok(pairs)
    }
}

/// Link frame `to` to every entity frame `from` names (inside the caller's
/// transaction): a correction or a merged memory says what the memories it
/// stands for said, so their entities' pages and the graph lane carry it,
/// whatever words it uses.
pub(crate) fn name_the_same_entities_in(conn: &Connection, from: u64, to: u64) -> StoreResult<()> {
    conn.execute(
        "INSERT OR IGNORE INTO kg_entity_frames (entity_id, frame_id)
         SELECT entity_id, ?2 FROM kg_entity_frames WHERE frame_id = ?1",
        params![from, to],
    )?;
    Ok(())
}
