//! The knowledge graph against real SQLite files: exact upsert by canonical
//! name and type, fuzzy search, typed directional relations, the
//! entity–frame bridge and graph distances to frames, retiring, dedupe.

// Helpers outside #[test] functions unwrap too: this is test code.

use crate::support::*;
use hive_mind_store::{Mind, StoreError};

#[test]
fn upsert_is_exact_on_canonical_name_and_type() {
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    let a = store.upsert_entity("Postgres", "technology", &[]).unwrap();
    let b = store
        .upsert_entity("  postgresql ", "Technology", &[])
        .unwrap();
    let c = store.upsert_entity("PG", "technology", &[]).unwrap();
    assert_eq!((a.id, b.id, c.id), (a.id, a.id, a.id));
    assert_eq!(c.seen_count, 3);
    assert_eq!(c.name, "Postgres", "the name as first written");
    assert_eq!(c.normalized_name, "postgresql");
    let person = store.upsert_entity("Marko", "person", &[]).unwrap();
    let project = store.upsert_entity("Marko", "project", &[]).unwrap();
    assert_ne!(person.id, project.id);
    assert_eq!(store.find_entities("marko").unwrap().len(), 2);
    assert!(
        store.find_entities("mark").unwrap().is_empty(),
        "find is exact"
    );
    assert!(matches!(
        store.upsert_entity(" ", "person", &[]),
        Err(StoreError::InvalidInput(_))
    ));
    assert!(matches!(
        store.upsert_entity("x", "technology", &[999]),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn fuzzy_search_is_for_browsing() {
    let (_dir, mut minds) = minds();
    let store = minds.mind_or_create(&Mind::Personal).unwrap();
    for name in ["Phase 1", "Phase 2", "Phase 10", "Rephased", "100%_done"] {
        store.upsert_entity(name, "concept", &[]).unwrap();
    }
    store.upsert_entity("Phase 2", "concept", &[]).unwrap();
    let hits = store.search_entities("phase", 10).unwrap();
    assert_eq!(hits.len(), 4);
    assert_eq!(hits[0].name, "Phase 2", "most seen first");
    assert_eq!(store.search_entities("phase", 2).unwrap().len(), 2);
    // LIKE wildcards in the query are literal.
    assert_eq!(store.search_entities("%_", 10).unwrap().len(), 1);
    assert!(store.search_entities("_hase", 10).unwrap().is_empty());
}

#[test]
fn relations_bridge_and_distances_reach_frames() {
    let (_dir, mut minds) = minds();
    let f1 = minds
        .save_frame(frame(&Mind::Personal, "The ledger depends on Postgres."))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let f2 = minds
        .save_frame(frame(&Mind::Personal, "Postgres runs on Kubernetes."))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let f3 = minds
        .save_frame(frame(
            &Mind::Personal,
            "Kubernetes is managed by the platform team.",
        ))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let f4 = minds
        .save_frame(frame(&Mind::Personal, "Unrelated: the office plant."))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let store = minds.mind(&Mind::Personal).unwrap();
    let ledger = store.upsert_entity("Ledger", "project", &[f1]).unwrap().id;
    let postgres = store
        .upsert_entity("Postgres", "technology", &[f1, f2])
        .unwrap()
        .id;
    let k8s = store
        .upsert_entity("k8s", "technology", &[f2, f3])
        .unwrap()
        .id;
    let team = store
        .upsert_entity("Platform team", "organization", &[f3])
        .unwrap()
        .id;
    let plant = store
        .upsert_entity("Office plant", "object", &[f4])
        .unwrap()
        .id;
    assert_eq!(store.entity_frames(postgres).unwrap(), vec![f1, f2]);

    let edge = store.relate(ledger, "depends-on", postgres, 0.7).unwrap();
    assert_eq!(
        (edge.subject, edge.object, edge.seen_count),
        (ledger, postgres, 1)
    );
    let again = store.relate(ledger, "depends-on", postgres, 0.9).unwrap();
    assert_eq!(
        (again.id, again.seen_count, again.strength),
        (edge.id, 2, 0.9)
    );
    let weaker = store.relate(ledger, "depends-on", postgres, 0.1).unwrap();
    assert_eq!(weaker.strength, 0.9, "the highest strength is kept");
    store.relate(postgres, "runs-on", k8s, 1.0).unwrap();
    store.relate(team, "manages", k8s, 1.0).unwrap();
    // Directional: the reverse is another relation.
    let reverse = store.relate(postgres, "depends-on", ledger, 0.5).unwrap();
    assert_ne!(reverse.id, edge.id);
    assert_eq!(store.relations(postgres).unwrap().len(), 3);
    assert!(matches!(
        store.relate(ledger, "x", 999, 0.5),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.relate(ledger, "x", postgres, 1.5),
        Err(StoreError::InvalidInput(_))
    ));
    assert!(matches!(
        store.relate(ledger, "", postgres, 0.5),
        Err(StoreError::InvalidInput(_))
    ));

    // Distances over relations in either direction.
    let entities = store.entity_distances(&[ledger], 3).unwrap();
    assert_eq!(
        entities,
        vec![(ledger, 0), (postgres, 1), (k8s, 2), (team, 3)]
    );
    assert_eq!(store.entity_distances(&[ledger], 1).unwrap().len(), 2);
    let frames = store.frame_distances(&[ledger], 3).unwrap();
    assert_eq!(frames, vec![(f1, 0), (f2, 1), (f3, 2)]);
    assert!(!frames.iter().any(|(f, _)| *f == f4));
    assert_eq!(store.frame_distances(&[plant], 3).unwrap(), vec![(f4, 0)]);

    // Retiring cuts the graph but keeps history.
    store.retire_entity(k8s).unwrap();
    assert_eq!(
        store.frame_distances(&[ledger], 3).unwrap(),
        vec![(f1, 0), (f2, 1)]
    );
    assert!(store.entity(k8s).unwrap().unwrap().valid_to.is_some());
    assert!(store.find_entities("kubernetes").unwrap().is_empty());
    assert!(matches!(
        store.retire_entity(k8s),
        Err(StoreError::NotFound(_))
    ));
    // A new Kubernetes can be created after the old one retired.
    let fresh = store
        .upsert_entity("Kubernetes", "technology", &[])
        .unwrap();
    assert_ne!(fresh.id, k8s);

    // Deleting a frame removes its links.
    store.delete_frame(f4).unwrap();
    assert!(store.entity_frames(plant).unwrap().is_empty());
}

#[test]
fn dedupe_merges_by_name_and_type_and_repoints_edges() {
    let (dir, mut minds) = minds();
    let f = minds
        .save_frame(frame(&Mind::Personal, "frame for the graph"))
        .unwrap()
        .frame
        .frame_ref
        .id;
    let store = minds.mind(&Mind::Personal).unwrap();
    let ledger = store.upsert_entity("Ledger", "project", &[]).unwrap().id;
    let pg = store
        .upsert_entity("Postgres", "technology", &[f])
        .unwrap()
        .id;
    store.relate(ledger, "depends-on", pg, 0.5).unwrap();
    // Duplicates only raw SQL (an old build, an import) can produce. The
    // host's SQL capability refuses to drop an index outside a migration,
    // so the index goes through a plain connection to the file.
    rusqlite::Connection::open(dir.path().join("personal.sqlite"))
        .unwrap()
        .execute_batch("DROP INDEX knowledge_entities_active_name")
        .unwrap();
    let conn = store.connection();
    conn.execute(
        "INSERT INTO knowledge_entities (entity_type, name, normalized_name, seen_count, valid_from, created_at)
         VALUES ('technology', 'PostgreSQL', 'postgresql', 3, 'x', 'x')",
        [],
    )
    .unwrap();
    let dup = conn.last_insert_rowid() as u64;
    conn.execute(
        "INSERT INTO knowledge_relations (source_id, target_id, relation_type, confidence, valid_from, created_at)
         VALUES (?1, ?2, 'depends-on', 0.8, 'x', 'x')",
        [ledger, dup],
    )
    .unwrap();
    let retired = store.dedupe_entities().unwrap();
    assert_eq!(retired, 1);
    let survivors = store.find_entities("postgres").unwrap();
    assert_eq!(survivors.len(), 1);
    assert_eq!(
        survivors[0].id, pg,
        "tie on relations: the lowest id survives"
    );
    assert_eq!(survivors[0].seen_count, 4);
    let relations = store.relations(pg).unwrap();
    assert_eq!(relations.len(), 1, "the repointed duplicate edge merged");
    assert_eq!((relations[0].seen_count, relations[0].strength), (2, 0.8));
    assert_eq!(store.entity_frames(pg).unwrap(), vec![f]);
    // No duplicates are left: the unique index can be made again over them.
    rusqlite::Connection::open(dir.path().join("personal.sqlite"))
        .unwrap()
        .execute_batch(
            "CREATE UNIQUE INDEX knowledge_entities_active_name
                 ON knowledge_entities(normalized_name, lower(entity_type)) WHERE valid_to IS NULL",
        )
        .unwrap();
}

#[test]
fn dedupe_renormalises_under_the_unique_indexes() {
    let (_dir, mut minds) = minds();
    minds
        .save_frame(frame(&Mind::Personal, "frame for the graph"))
        .unwrap();
    let store = minds.mind(&Mind::Personal).unwrap();
    let ledger = store.upsert_entity("Ledger", "project", &[]).unwrap().id;
    let pg = store
        .upsert_entity("Postgres", "technology", &[])
        .unwrap()
        .id;
    let ops = store.upsert_entity("Ops", "team", &[]).unwrap().id;
    store.relate(ledger, "depends-on", pg, 0.5).unwrap();
    store.relate(ops, "uses", pg, 0.4).unwrap();
    // An entity stored under a name that no longer normalises as it did
    // (an older alias table): today it is the same as Postgres. The unique
    // indexes are on, as in every mind; merging must not need them off
    // (the SQL capability refuses schema changes outside migrations).
    let conn = store.connection();
    conn.execute(
        "INSERT INTO knowledge_entities (entity_type, name, normalized_name, seen_count, valid_from, created_at)
         VALUES ('Technology', 'PostgreSQL', 'postgre sql (old)', 2, 'x', 'x')",
        [],
    )
    .unwrap();
    let old = conn.last_insert_rowid() as u64;
    for (source, target, relation, confidence) in [
        (ledger, old, "depends-on", 0.9),
        (old, ops, "serves", 0.7),
        (old, pg, "same-as", 0.6),
    ] {
        conn.execute(
            "INSERT INTO knowledge_relations (source_id, target_id, relation_type, confidence, valid_from, created_at)
             VALUES (?1, ?2, ?3, ?4, 'x', 'x')",
            hive_mind_store::sql::params![source, target, relation, confidence],
        )
        .unwrap();
    }
    assert_eq!(store.dedupe_entities().unwrap(), 1);
    let survivors = store.find_entities("postgres").unwrap();
    assert_eq!(survivors.len(), 1, "{survivors:?}");
    assert_eq!(survivors[0].id, pg, "more relations: Postgres survives");
    assert_eq!(survivors[0].seen_count, 3);
    let mut relations: Vec<(u64, u64, String, u32, f64)> = store
        .relations(pg)
        .unwrap()
        .into_iter()
        .map(|r| (r.subject, r.object, r.relation, r.seen_count, r.strength))
        .collect();
    relations.sort_by(|a, b| a.2.cmp(&b.2));
    assert_eq!(
        relations,
        vec![
            (ledger, pg, "depends-on".to_string(), 2, 0.9),
            (pg, ops, "serves".to_string(), 1, 0.7),
            (ops, pg, "uses".to_string(), 1, 0.4),
        ],
        "the shared edge merged, the other moved, the edge between the two retired"
    );
    // The indexes were never taken off.
    let indexes: i64 = store
        .connection()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name IN
                 ('knowledge_entities_active_name', 'knowledge_relations_active')",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(indexes, 2);
}
