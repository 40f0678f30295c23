//! How often the in-memory int8 index returns the frames an exact float
//! search returns, and how long each takes, natively, on a real mind:
//!
//! ```sh
//! cargo run --release -p hive-mind-store --example index_agreement -- DATA_DIR [QUERIES] [K]
//! ```
//!
//! The queries are the stored vectors of frames spread evenly over the mind
//! (each query's own frame is left out of both lists, so the figure is about
//! its neighbours), searched without a filter.

use std::time::Instant;

use hive_mind_sqlite::DataDir;
use hive_mind_store::sql::Value;
use hive_mind_store::{Mind, Minds, SearchFilter, StoreConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: index_agreement DATA_DIR [QUERIES] [K]")?;
    let queries: usize = args.next().map_or(Ok(200), |n| n.parse())?;
    let k: u32 = args.next().map_or(Ok(20), |n| n.parse())?;
    let mut minds = Minds::open(Box::new(DataDir::new(&dir)), StoreConfig::default())?;
    let store = minds.mind(&Mind::Personal)?;
    let rows = store.connection().query_all(
        "SELECT id, embedding FROM memory_frames_vec ORDER BY id",
        [],
        |row| Ok((row.get::<_, u64>(0)?, row.get::<_, Value>(1)?)),
    )?;
    let step = (rows.len() / queries.max(1)).max(1);
    let filter = SearchFilter::default();
    let (mut shared, mut total) = (0usize, 0usize);
    let (mut index_ms, mut exact_ms) = (Vec::new(), Vec::new());
    for (id, bytes) in rows.iter().step_by(step).take(queries) {
        let Value::Blob(bytes) = bytes else { continue };
        let query: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let started = Instant::now();
        let exact = store.search_vector_exact(&query, &filter, k + 1)?;
        exact_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        let started = Instant::now();
        let found = store.search_vector(&query, &filter, k + 1)?;
        index_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        let truth: Vec<u64> = exact
            .iter()
            .map(|hit| hit.frame_ref.id)
            .filter(|frame| frame != id)
            .take(k as usize)
            .collect();
        let got: Vec<u64> = found.iter().map(|hit| hit.frame_ref.id).collect();
        shared += truth.iter().filter(|frame| got.contains(frame)).count();
        total += truth.len();
    }
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or(0.0)
    };
    println!(
        "{} frames, {} queries, k = {k}: the index returns {:.1} % of the exact top {k} \
         (p50 per query, natively: index {:.2} ms, exact float scan {:.2} ms)",
        rows.len(),
        index_ms.len(),
        100.0 * shared as f64 / total.max(1) as f64,
        median(&mut index_ms),
        median(&mut exact_ms),
    );
    Ok(())
}
