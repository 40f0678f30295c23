//! The periods a frame's text names: written with the frame, read by a
//! filter's period on every search path, re-read when its text changes,
//! gone with the frame, and filled in by the v15 step for an older mind.

use crate::support::*;
use hive_mind_store::erasure::ErasureRequest;
use hive_mind_store::schema::SCHEMA_VERSION;
use hive_mind_store::{Mind, Minds, SearchFilter};

/// The end of June 2025 (the window a question about it gets).
fn end_of_june() -> SearchFilter {
    SearchFilter {
        since: Some("2025-06-21".into()),
        until: Some("2025-06-30".into()),
        ..Default::default()
    }
}

fn sorted(mut ids: Vec<u64>) -> Vec<u64> {
    ids.sort_unstable();
    ids
}

fn mention_rows(dir: &std::path::Path) -> Vec<(u64, String, String)> {
    let conn = rusqlite::Connection::open(personal_file(dir)).unwrap();
    conn.prepare("SELECT frame_id, since, until FROM memory_mentions ORDER BY frame_id, since")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The wedding (named, written later), a lunch that happened in the
/// window, a note naming only the year, and an undated note after.
fn seed(minds: &mut Minds) -> [u64; 4] {
    [
        save_at(
            minds,
            "Maya went to the wedding in Ghent on 28 June 2025.",
            "2025-07-01T15:29:00Z",
        ),
        save_at(
            minds,
            "Lunch with Ana about the wedding seating plan.",
            "2025-06-26T12:00:00Z",
        ),
        save_at(
            minds,
            "The wedding season in 2025 kept every weekend busy.",
            "2025-01-10T09:00:00Z",
        ),
        save_at(
            minds,
            "The wedding photographer sent the invoice.",
            "2025-08-01T09:00:00Z",
        ),
    ]
}

#[test]
fn a_period_takes_what_happened_in_it_and_what_names_a_day_inside_it() {
    let (dir, mut minds) = minds();
    let [wedding, lunch, _year, _invoice] = seed(&mut minds);
    let expected = sorted(vec![wedding, lunch]);
    let filter = end_of_june();
    let found = |hits: Vec<hive_mind_store::Hit>| {
        sorted(hits.into_iter().map(|hit| hit.frame_ref.id).collect())
    };

    // Full text: through the in-memory index, and in SQL alone.
    assert_eq!(
        found(minds.search_text("wedding", &filter, 10).unwrap()),
        expected
    );
    let store = minds.mind(&Mind::Personal).unwrap();
    assert_eq!(
        found(store.search_text_exact("wedding", &filter, 10).unwrap()),
        expected
    );
    // Vectors: the index, and the exact scan.
    let query = fake().vector("the wedding");
    assert_eq!(
        found(store.search_vector_exact(&query, &filter, 10).unwrap()),
        expected
    );
    assert_eq!(
        found(minds.search_vector(&query, &filter, 10).unwrap()),
        expected
    );
    // A listing.
    let listed = minds
        .mind(&Mind::Personal)
        .unwrap()
        .list_frames(&filter, false, 10)
        .unwrap();
    assert_eq!(
        sorted(listed.iter().map(|frame| frame.frame_ref.id).collect()),
        expected
    );
    // Open ends: from the 27th on takes the wedding by its named day and
    // the invoice by its event date.
    let from_27th = SearchFilter {
        since: Some("2025-06-27".into()),
        ..Default::default()
    };
    assert_eq!(
        found(minds.search_text("wedding", &from_27th, 10).unwrap()),
        sorted(vec![wedding, _invoice])
    );
    // The year's note names 2025 whole: inside "2025", not inside a week.
    let whole_year = SearchFilter {
        since: Some("2025-01-01".into()),
        until: Some("2025-12-31".into()),
        ..Default::default()
    };
    assert_eq!(
        minds.search_text("wedding", &whole_year, 10).unwrap().len(),
        4
    );
    assert_eq!(
        mention_rows(dir.path()),
        [
            (wedding, "2025-06-28".into(), "2025-06-28".into()),
            (_year, "2025-01-01".into(), "2025-12-31".into()),
        ]
    );
}

#[test]
fn a_changed_text_is_read_again_and_a_forgotten_frame_takes_its_periods() {
    let (dir, mut minds) = minds();
    let [wedding, _lunch, year, _invoice] = seed(&mut minds);
    let fake = fake();
    let store = minds.mind(&Mind::Personal).unwrap();
    let text = "Maya went to the wedding in Ghent on 14 June 2025.";
    store
        .update_frame(wedding, text, &fake.vector(text), &[])
        .unwrap();
    assert!(mention_rows(dir.path()).contains(&(
        wedding,
        "2025-06-14".into(),
        "2025-06-14".into()
    )));
    assert!(
        !minds
            .search_text("Ghent", &end_of_june(), 10)
            .unwrap()
            .iter()
            .any(|hit| hit.frame_ref.id == wedding),
        "the old day no longer counts"
    );

    let store = minds.mind(&Mind::Personal).unwrap();
    store
        .erase(&ErasureRequest::Frames(vec![wedding]), "")
        .unwrap();
    store.delete_frame(year).unwrap();
    assert_eq!(mention_rows(dir.path()), []);
    assert!(store.check().unwrap().ok());
}

#[test]
fn a_v14_mind_gets_the_periods_its_frames_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut minds = open_minds(dir.path(), config()).unwrap();
    let [wedding, lunch, _year, _invoice] = seed(&mut minds);
    drop(minds);
    {
        let conn = rusqlite::Connection::open(personal_file(dir.path())).unwrap();
        conn.execute_batch("DROP TABLE memory_mentions; PRAGMA user_version = 14;")
            .unwrap();
    }
    assert_eq!(user_version(&personal_file(dir.path())), 14);

    let mut minds = open_minds(dir.path(), config()).unwrap();
    assert_eq!(user_version(&personal_file(dir.path())), SCHEMA_VERSION);
    assert_eq!(mention_rows(dir.path()).len(), 2);
    let hits = minds.search_text("wedding", &end_of_june(), 10).unwrap();
    assert_eq!(
        sorted(hits.iter().map(|hit| hit.frame_ref.id).collect()),
        sorted(vec![wedding, lunch])
    );
}

#[test]
fn a_relative_day_is_read_in_the_writers_own_calendar() {
    let (dir, mut minds) = minds();
    // 23:30 in New York on 10 March is 04:30 UTC on 11 March: the
    // writer's yesterday is 9 March.
    let id = save_at(
        &mut minds,
        "The deploy failed yesterday.",
        "2026-03-10T23:30:00-05:00",
    );
    assert_eq!(
        mention_rows(dir.path()),
        [(id, "2026-03-09".into(), "2026-03-09".into())]
    );
}
