//! The in-memory nearest-neighbour index over a mind's vectors.
//!
//! # Why it exists
//!
//! The vector tables are the durable copy of every frame and chunk vector
//! (plain SQLite blobs, so any host's SQLite holds them), but a KNN through
//! SQL reads every vector through SQLite's blob layer and, from a component,
//! across the host boundary: sqlite-vec's brute-force KNN alone took 41 ms
//! per query at 100,000 frames on the 2-core reference machine, more than
//! recall's whole latency goal, and its filtered and binary-quantised forms
//! were no better (14–57 ms).
//!
//! So search runs here, inside the engine, over a copy held in memory:
//!
//! - **int8 codes.** Each vector is stored as `i8` codes with one `f32`
//!   scale (`x ≈ code × scale`, `scale = max|x| / 127`): 384 bytes for a
//!   384-d vector instead of 1,536, about 40 MB at 100,000 frames. A query is
//!   scored against every live row with an integer dot product (which the
//!   compiler vectorises), the best `limit ×` [`SHORTLIST_FACTOR`] rows are
//!   re-scored with the query kept in `f32` (removing the query's share of
//!   the quantisation error), and the best row per frame is returned. The
//!   score is the cosine similarity with the de-quantised row. The benchmark
//!   (`hive-mind-lab bench recall`) reports how often the result agrees with an
//!   exact float KNN over the same vectors. The scan is one pass on one
//!   thread (a component has no threads); the integer dot product is written
//!   so that the compiler turns it into wasm SIMD.
//! - **Filters in the scan.** Each frame's event day, importance and first
//!   [`HEAD_CHARS`] characters are kept beside its rows, so a lane's date
//!   window, minimum importance and content prefix (up to [`HEAD_CHARS`]
//!   characters) are checked during the scan instead of by SQL. A longer
//!   prefix is the caller's to handle (it falls back to SQL).
//!
//! # Staying true to the file
//!
//! Several processes may write one mind (two MCP servers, a CLI). The index
//! follows the file through two records written by the schema:
//!
//! - `memory_vector_changes`, an append-only log filled by triggers: a frame
//!   inserted, deleted or changed in content, importance or event date, and
//!   a chunk inserted or deleted, each append the frame id. Before every
//!   search the index reads the log past the last sequence number it applied
//!   and reloads exactly those frames.
//! - `meta` key [`EPOCH_KEY`], bumped whenever the vector tables are
//!   recreated (first embedder, `reindex`): a new epoch reloads everything.
//!
//! Both are read inside one read transaction with the vectors, so the index
//! is a consistent snapshot; a change committed later is seen by the next
//! search. Nothing here is durable: dropping the index loses nothing.

use std::collections::{HashMap, HashSet};

use crate::sql::{Connection, OptionalExtension, params};
use hive_mind_core::Importance;

use super::error::{StoreError, StoreResult};
use super::types::SearchFilter;

/// `meta` key of the vector tables' epoch (see the module docs).
pub const EPOCH_KEY: &str = "vectors.epoch";

/// How many characters of a frame's content the index keeps for prefix
/// filters.
pub const HEAD_CHARS: usize = 32;

/// The integer scan keeps `limit ×` this many rows (at least
/// [`MIN_SHORTLIST`]) for the float re-score.
pub const SHORTLIST_FACTOR: usize = 4;

/// The least shortlist the float re-score sees.
pub const MIN_SHORTLIST: usize = 64;

/// Dead rows tolerated, as a share of all rows, before the arrays are
/// compacted.
const MAX_DEAD_SHARE: f64 = 0.25;

/// What the index keeps of a frame to filter on.
#[derive(Debug, Clone)]
pub struct FrameMeta {
    /// The frame (a filter's period also takes the frames that name a day
    /// in it, by id).
    frame: u64,
    /// Days since 0001-01-01 of the event date.
    day: i32,
    /// Position in [`Importance::ALL`] (0 = most important).
    importance: u8,
    /// The content's first [`HEAD_CHARS`] characters.
    head: Box<str>,
}

/// One vector: a frame's own, or one of its chunks'.
#[derive(Debug, Clone, Copy)]
struct Row {
    frame: u64,
    /// The frame's slot in `metas`.
    meta: u32,
    chunk: Option<(u32, u32)>,
    scale: f32,
    live: bool,
}

/// A frame in the index: its metadata slot and its rows.
#[derive(Debug, Clone)]
struct FrameEntry {
    meta: u32,
    rows: Vec<usize>,
}

/// A nearest-neighbour hit from the index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexHit {
    /// The frame.
    pub frame: u64,
    /// Cosine similarity of the query and the (de-quantised) vector.
    pub cosine: f64,
    /// The chunk's offsets, when a chunk was the frame's best row.
    pub chunk: Option<(u32, u32)>,
}

/// A filter the index can evaluate, compiled from a [`SearchFilter`].
#[derive(Debug, Clone, Default)]
pub struct IndexFilter {
    since: Option<i32>,
    until: Option<i32>,
    /// The frames that name a period inside `since..=until`, which pass
    /// the period whatever their event date ([`super::mentions`]).
    named: HashSet<u64>,
    max_importance_rank: Option<u8>,
    prefix: Option<String>,
}

impl IndexFilter {
    /// The index form of `filter`, or `None` when the index cannot evaluate
    /// it (a content prefix longer than [`HEAD_CHARS`]). Bad dates are
    /// invalid input.
    ///
    /// `named` holds the frames that name a period inside the filter's
    /// ([`super::mentions::frames_naming_within`]); empty without a period.
    pub fn compile(filter: &SearchFilter, named: HashSet<u64>) -> StoreResult<Option<IndexFilter>> {
        if filter
            .content_prefix
            .as_ref()
            .is_some_and(|prefix| prefix.chars().count() > HEAD_CHARS)
        {
            return Ok(None);
        }
        let day = |text: &Option<String>, which: &str| -> StoreResult<Option<i32>> {
            text.as_deref()
                .map(|text| {
                    parse_day(text).ok_or_else(|| {
                        StoreError::InvalidInput(format!(
                            "{which} {text:?} is not a YYYY-MM-DD date"
                        ))
                    })
                })
                .transpose()
        };
        Ok(Some(IndexFilter {
            since: day(&filter.since, "since")?,
            until: day(&filter.until, "until")?,
            named,
            max_importance_rank: filter.min_importance.map(importance_rank),
            prefix: filter.content_prefix.clone(),
        }))
    }

    /// Whether a frame with `meta` passes.
    pub fn allows(&self, meta: &FrameMeta) -> bool {
        let happened = self.since.is_none_or(|since| meta.day >= since)
            && self.until.is_none_or(|until| meta.day <= until);
        (happened || self.named.contains(&meta.frame))
            && self
                .max_importance_rank
                .is_none_or(|rank| meta.importance <= rank)
            && self
                .prefix
                .as_deref()
                .is_none_or(|prefix| meta.head.starts_with(prefix))
    }

    /// Whether the filter lets everything through.
    pub fn is_empty(&self) -> bool {
        self.since.is_none()
            && self.until.is_none()
            && self.max_importance_rank.is_none()
            && self.prefix.is_none()
    }
}

fn parse_day(text: &str) -> Option<i32> {
    use chrono::Datelike;
    chrono::NaiveDate::parse_from_str(text.get(..10)?, "%Y-%m-%d")
        .ok()
        .map(|date| date.num_days_from_ce())
}

fn importance_rank(importance: Importance) -> u8 {
    let rank = Importance::ALL
        .iter()
        .position(|candidate| *candidate == importance)
        .unwrap_or(Importance::ALL.len());
    u8::try_from(rank).unwrap_or(u8::MAX)
}

fn head_of(content: &str) -> Box<str> {
    match content.char_indices().nth(HEAD_CHARS) {
        Some((end, _)) => content.get(..end).unwrap_or(content).into(),
        None => content.into(),
    }
}

/// `x` as int8 codes and their scale.
fn quantize(vector: &[f32], codes: &mut Vec<i8>) -> f32 {
    let max = vector.iter().fold(0.0_f32, |max, x| max.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        codes.extend(std::iter::repeat_n(0, vector.len()));
        return 0.0;
    }
    let scale = max / 127.0;
    codes.extend(vector.iter().map(|x| {
        // In range by construction: |x| ≤ max, so |x / scale| ≤ 127.
        #[allow(clippy::cast_possible_truncation)]
        let code = (x / scale).round().clamp(-127.0, 127.0) as i8;
        code
    }));
    scale
}

/// The int8 codes of row `i` of `codes`, `dim` a row (empty for a row
/// they do not hold).
fn row_codes(codes: &[i8], dim: usize, i: usize) -> &[i8] {
    codes.get(i * dim..(i + 1) * dim).unwrap_or_default()
}

/// Little-endian f32 bytes (the vector tables' form) as a vector.
pub(crate) fn vector_from_bytes(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .filter_map(|b| <[u8; 4]>::try_from(b).ok())
        .map(f32::from_le_bytes)
        .collect()
}

fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        dot_i8_simd128(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_scalar(a, b)
    }
}

/// The portable integer dot product (the compiler vectorises it natively).
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
fn dot_i8_scalar(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

/// The integer dot product in wasm SIMD: 16 codes a step, widened to i16
/// and multiplied-and-added pairwise into i32 lanes (`i32x4.dot_i16x8_s`),
/// which LLVM does not find by itself from the scalar loop. Exactly the
/// scalar result: |code| ≤ 127, so a pair's products fit in i32.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[allow(unsafe_code)]
fn dot_i8_simd128(a: &[i8], b: &[i8]) -> i32 {
    use core::arch::wasm32::{
        i16x8_extend_high_i8x16, i16x8_extend_low_i8x16, i32x4_add, i32x4_dot_i16x8,
        i32x4_extract_lane, i32x4_splat, v128, v128_load,
    };
    let mut sum = i32x4_splat(0);
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        // SAFETY: each chunk is exactly 16 bytes of an `[i8]`, in bounds;
        // wasm's `v128.load` has no alignment requirement.
        let (x, y) = unsafe {
            (
                v128_load(x.as_ptr().cast::<v128>()),
                v128_load(y.as_ptr().cast::<v128>()),
            )
        };
        sum = i32x4_add(
            sum,
            i32x4_dot_i16x8(i16x8_extend_low_i8x16(x), i16x8_extend_low_i8x16(y)),
        );
        sum = i32x4_add(
            sum,
            i32x4_dot_i16x8(i16x8_extend_high_i8x16(x), i16x8_extend_high_i8x16(y)),
        );
    }
    let mut total = i32x4_extract_lane::<0>(sum)
        + i32x4_extract_lane::<1>(sum)
        + i32x4_extract_lane::<2>(sum)
        + i32x4_extract_lane::<3>(sum);
    let done = a.len().min(b.len()) / 16 * 16;
    for (x, y) in a.iter().zip(b).skip(done) {
        total += i32::from(*x) * i32::from(*y);
    }
    total
}

/// The in-memory index of one mind (see the module docs).
pub struct VectorIndex {
    dim: usize,
    epoch: i64,
    seq: i64,
    codes: Vec<i8>,
    rows: Vec<Row>,
    metas: Vec<FrameMeta>,
    frames: HashMap<u64, FrameEntry>,
    dead: usize,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("dim", &self.dim)
            .field("epoch", &self.epoch)
            .field("seq", &self.seq)
            .field("rows", &(self.rows.len() - self.dead))
            .field("frames", &self.frames.len())
            .finish()
    }
}

/// The epoch and the last change's sequence number, as the file has them.
fn file_position(conn: &Connection) -> StoreResult<(i64, i64)> {
    let epoch: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = ?1",
            [EPOCH_KEY],
            |row| row.get(0),
        )
        .optional()?;
    let epoch = epoch.and_then(|text| text.parse().ok()).unwrap_or(0);
    let seq: Option<i64> =
        conn.query_row("SELECT max(seq) FROM memory_vector_changes", [], |row| {
            row.get(0)
        })?;
    Ok((epoch, seq.unwrap_or(0)))
}

impl VectorIndex {
    /// Load every vector of the mind (the caller holds a read transaction).
    fn load(conn: &Connection, dim: usize) -> StoreResult<VectorIndex> {
        let (epoch, seq) = file_position(conn)?;
        let mut index = VectorIndex {
            dim,
            epoch,
            seq,
            codes: Vec::new(),
            rows: Vec::new(),
            metas: Vec::new(),
            frames: HashMap::new(),
            dead: 0,
        };
        let mut statement = conn.prepare(
            "SELECT f.id, f.event_date, f.importance, substr(f.content, 1, ?1), v.embedding
             FROM memory_frames f JOIN memory_frames_vec v ON v.rowid = f.id",
        )?;
        let mut rows = statement.query([HEAD_CHARS])?;
        while let Some(row) = rows.next()? {
            let id: u64 = row.get(0)?;
            let meta = frame_meta(
                id,
                &row.get::<_, String>(1)?,
                &row.get::<_, String>(2)?,
                &row.get::<_, String>(3)?,
            );
            index.add_frame(id, meta);
            let vector = vector_from_bytes(&row.get::<_, Vec<u8>>(4)?);
            index.push(id, None, &vector)?;
        }
        let mut statement = conn.prepare(
            "SELECT c.frame_id, c.char_start, c.char_end, v.embedding
             FROM memory_frame_chunks c JOIN memory_frame_chunks_vec v ON v.rowid = c.id",
        )?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let id: u64 = row.get(0)?;
            if !index.frames.contains_key(&id) {
                continue;
            }
            let vector = vector_from_bytes(&row.get::<_, Vec<u8>>(3)?);
            index.push(id, Some((row.get(1)?, row.get(2)?)), &vector)?;
        }
        Ok(index)
    }

    /// Register a frame's metadata (its rows follow with [`Self::push`]).
    fn add_frame(&mut self, frame: u64, meta: FrameMeta) {
        let slot = u32::try_from(self.metas.len()).unwrap_or(u32::MAX);
        self.metas.push(meta);
        self.frames.insert(
            frame,
            FrameEntry {
                meta: slot,
                rows: Vec::new(),
            },
        );
    }

    /// Add a vector of a registered frame.
    fn push(&mut self, frame: u64, chunk: Option<(u32, u32)>, vector: &[f32]) -> StoreResult<()> {
        if vector.len() != self.dim {
            return Err(StoreError::Corrupt {
                database: String::new(),
                reason: format!(
                    "frame {frame} has a {}-d vector in a {}-d mind",
                    vector.len(),
                    self.dim
                ),
            });
        }
        let row = self.rows.len();
        let Some(entry) = self.frames.get_mut(&frame) else {
            return Ok(());
        };
        entry.rows.push(row);
        let meta = entry.meta;
        let scale = quantize(vector, &mut self.codes);
        self.rows.push(Row {
            frame,
            meta,
            chunk,
            scale,
            live: true,
        });
        Ok(())
    }

    /// Forget a frame's rows.
    fn remove(&mut self, frame: u64) {
        if let Some(entry) = self.frames.remove(&frame) {
            for row in entry.rows {
                if let Some(row) = self.rows.get_mut(row)
                    && row.live
                {
                    row.live = false;
                    self.dead += 1;
                }
            }
        }
    }

    /// The filter fields of a frame in the index.
    pub fn meta(&self, frame: u64) -> Option<&FrameMeta> {
        self.frames
            .get(&frame)
            .and_then(|entry| self.metas.get(entry.meta as usize))
    }

    /// Reload one frame from the file (after it changed).
    fn reload_frame(&mut self, conn: &Connection, frame: u64) -> StoreResult<()> {
        self.remove(frame);
        let found = conn
            .query_row(
                "SELECT f.event_date, f.importance, substr(f.content, 1, ?2), v.embedding
                 FROM memory_frames f JOIN memory_frames_vec v ON v.rowid = f.id
                 WHERE f.id = ?1",
                params![frame, HEAD_CHARS],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, Vec<u8>>(3)?,
                    ))
                },
            )
            .optional()?;
        let Some((day, importance, head, embedding)) = found else {
            return Ok(());
        };
        self.add_frame(frame, frame_meta(frame, &day, &importance, &head));
        self.push(frame, None, &vector_from_bytes(&embedding))?;
        let mut statement = conn.prepare_cached(
            "SELECT c.char_start, c.char_end, v.embedding
             FROM memory_frame_chunks c JOIN memory_frame_chunks_vec v ON v.rowid = c.id
             WHERE c.frame_id = ?1 ORDER BY c.chunk_index",
        )?;
        let chunks: Vec<(u32, u32, Vec<u8>)> = statement
            .query_map([frame], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        for (start, end, embedding) in chunks {
            self.push(frame, Some((start, end)), &vector_from_bytes(&embedding))?;
        }
        Ok(())
    }

    /// Drop dead rows (and unused metadata slots) when they pile up.
    fn compact(&mut self) {
        if self.rows.is_empty() || (self.dead as f64) < MAX_DEAD_SHARE * (self.rows.len() as f64) {
            return;
        }
        let mut codes = Vec::with_capacity(self.codes.len());
        let mut rows = Vec::with_capacity(self.rows.len() - self.dead);
        let mut metas = Vec::with_capacity(self.frames.len());
        for entry in self.frames.values_mut() {
            // Every entry's meta is held (the index adds them together).
            let Some(meta) = self.metas.get(entry.meta as usize) else {
                continue;
            };
            let slot = u32::try_from(metas.len()).unwrap_or(u32::MAX);
            metas.push(meta.clone());
            entry.meta = slot;
            entry.rows.clear();
        }
        for (i, row) in self.rows.iter().enumerate() {
            if !row.live {
                continue;
            }
            let Some(entry) = self.frames.get_mut(&row.frame) else {
                continue;
            };
            codes.extend_from_slice(row_codes(&self.codes, self.dim, i));
            entry.rows.push(rows.len());
            rows.push(Row {
                meta: entry.meta,
                ..*row
            });
        }
        self.codes = codes;
        self.rows = rows;
        self.metas = metas;
        self.dead = 0;
    }

    /// Bring the index up to the file: a full load if the epoch moved (or
    /// there is no index yet), else the changed frames.
    pub fn refresh(
        slot: &mut Option<VectorIndex>,
        conn: &Connection,
        dim: usize,
    ) -> StoreResult<()> {
        let tx = conn.transaction()?;
        let (epoch, seq) = file_position(&tx)?;
        match slot {
            Some(index) if index.epoch == epoch && index.dim == dim => {
                if seq > index.seq {
                    let changed: Vec<u64> = tx
                        .prepare_cached(
                            "SELECT DISTINCT frame_id FROM memory_vector_changes WHERE seq > ?1",
                        )?
                        .query_map([index.seq], |row| row.get(0))?
                        .collect::<Result<_, _>>()?;
                    for frame in changed {
                        index.reload_frame(&tx, frame)?;
                    }
                    index.seq = seq;
                    index.compact();
                }
            }
            _ => *slot = Some(VectorIndex::load(&tx, dim)?),
        }
        tx.commit()?;
        Ok(())
    }

    /// The frames nearest to `query` among those `filter` allows, best
    /// first, one hit per frame (its best row), at most `limit`.
    pub fn search(&self, query: &[f32], filter: &IndexFilter, limit: usize) -> Vec<IndexHit> {
        self.search_many(query, &[(filter, limit)])
            .pop()
            .unwrap_or_default()
    }

    /// [`Self::search`] for several (filter, limit) pairs at once, from one
    /// scan: each row's dot product is computed once, whatever the number
    /// of filters that let it through.
    pub fn search_many(
        &self,
        query: &[f32],
        searches: &[(&IndexFilter, usize)],
    ) -> Vec<Vec<IndexHit>> {
        let nothing = || vec![Vec::new(); searches.len()];
        if query.len() != self.dim || searches.iter().all(|(_, limit)| *limit == 0) {
            return nothing();
        }
        if searches.len() > 32 {
            // One bit per search in the masks below.
            let (first, rest) = searches.split_at(32);
            let mut found = self.search_many(query, first);
            found.extend(self.search_many(query, rest));
            return found;
        }
        // Which searches each frame passes, one bit per search, computed
        // once per frame rather than per row.
        let masks: Vec<u32> = self
            .metas
            .iter()
            .map(|meta| {
                searches
                    .iter()
                    .enumerate()
                    .filter(|(_, (filter, limit))| *limit > 0 && filter.allows(meta))
                    .fold(0u32, |mask, (lane, _)| mask | (1 << lane))
            })
            .collect();
        let mut query_codes = Vec::with_capacity(self.dim);
        let query_scale = quantize(query, &mut query_codes);
        let query_norm = query
            .iter()
            .map(|x| f64::from(*x).powi(2))
            .sum::<f64>()
            .sqrt();
        if query_scale == 0.0 || query_norm == 0.0 {
            return nothing();
        }
        // Integer scan: approximate dot products, one shortlist per search.
        let shortlists: Vec<usize> = searches
            .iter()
            .map(|(_, limit)| limit.saturating_mul(SHORTLIST_FACTOR).max(MIN_SHORTLIST))
            .collect();
        let scan = |range: std::ops::Range<usize>| -> Vec<Vec<(f32, usize)>> {
            let mut lists: Vec<Vec<(f32, usize)>> = shortlists
                .iter()
                .map(|len| Vec::with_capacity(len * 2))
                .collect();
            let mut thresholds = vec![f32::NEG_INFINITY; searches.len()];
            let rows = self.rows.get(range.clone()).unwrap_or_default();
            for (i, row) in range.zip(rows) {
                let mask = masks.get(row.meta as usize).copied().unwrap_or(0);
                if !row.live || mask == 0 {
                    continue;
                }
                // Exact in i32 (|code| ≤ 127, dim ≪ 2^17); f32 is enough to rank.
                #[allow(clippy::cast_precision_loss)]
                let score =
                    dot_i8(&query_codes, row_codes(&self.codes, self.dim, i)) as f32 * row.scale;
                for (lane, ((list, threshold), shortlist)) in lists
                    .iter_mut()
                    .zip(thresholds.iter_mut())
                    .zip(&shortlists)
                    .enumerate()
                {
                    if mask & (1 << lane) == 0 || score < *threshold {
                        continue;
                    }
                    list.push((score, i));
                    if list.len() >= shortlist * 2 {
                        list.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
                        list.truncate(*shortlist);
                        *threshold = list.last().map_or(f32::NEG_INFINITY, |last| last.0);
                    }
                }
            }
            lists
        };
        let mut lists = scan(0..self.rows.len());
        lists
            .iter_mut()
            .zip(searches)
            .zip(&shortlists)
            .map(|((list, (_, limit)), shortlist)| {
                list.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
                list.truncate(*shortlist);
                self.rescore(query, query_norm, list, *limit)
            })
            .collect()
    }

    /// Float re-score of a shortlist (the query unquantised), best row per
    /// frame, at most `limit`.
    fn rescore(
        &self,
        query: &[f32],
        query_norm: f64,
        shortlist: &[(f32, usize)],
        limit: usize,
    ) -> Vec<IndexHit> {
        let mut hits: Vec<(f64, &Row)> = shortlist
            .iter()
            .filter_map(|&(_, i)| {
                let row = self.rows.get(i)?;
                let (dot, norm) = row_codes(&self.codes, self.dim, i).iter().zip(query).fold(
                    (0.0_f64, 0.0_f64),
                    |(dot, norm), (&code, &q)| {
                        let x = f64::from(code) * f64::from(row.scale);
                        (dot + x * f64::from(q), norm + x * x)
                    },
                );
                let cosine = if norm > 0.0 {
                    dot / (norm.sqrt() * query_norm)
                } else {
                    0.0
                };
                Some((cosine, row))
            })
            .collect();
        hits.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(a.1.chunk.is_some().cmp(&b.1.chunk.is_some()))
        });
        let mut seen = std::collections::HashSet::new();
        hits.into_iter()
            .filter(|(_, row)| seen.insert(row.frame))
            .take(limit)
            .map(|(cosine, row)| IndexHit {
                frame: row.frame,
                cosine,
                chunk: row.chunk,
            })
            .collect()
    }

    /// Live vectors (frames and chunks) in the index.
    pub fn len(&self) -> usize {
        self.rows.len() - self.dead
    }

    /// Whether the index holds no vector.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held by the codes and row records (the bulk of the index).
    pub fn heap_bytes(&self) -> usize {
        self.codes.capacity()
            + self.rows.capacity() * std::mem::size_of::<Row>()
            + self.metas.capacity() * (std::mem::size_of::<FrameMeta>() + HEAD_CHARS)
            + self.frames.len() * (std::mem::size_of::<FrameEntry>() + 16)
    }
}

/// A frame's filter fields from its stored columns.
pub fn frame_meta(frame: u64, event_date: &str, importance: &str, head: &str) -> FrameMeta {
    FrameMeta {
        frame,
        day: parse_day(event_date).unwrap_or(i32::MIN),
        importance: Importance::ALL
            .iter()
            .find(|candidate| candidate.as_str() == importance)
            .map_or(u8::MAX, |found| importance_rank(*found)),
        head: head_of(head),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantisation_keeps_cosines_within_a_hundredth() {
        let a: Vec<f32> = (0..384)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let b: Vec<f32> = (0..384)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
            .collect();
        let exact = a.iter().zip(&b).map(|(x, y)| x * y).sum::<f32>()
            / (a.iter().map(|x| x * x).sum::<f32>().sqrt()
                * b.iter().map(|x| x * x).sum::<f32>().sqrt());
        let mut codes = Vec::new();
        let scale = quantize(&b, &mut codes);
        let dequantised: Vec<f32> = codes.iter().map(|c| f32::from(*c) * scale).collect();
        let approx = a.iter().zip(&dequantised).map(|(x, y)| x * y).sum::<f32>()
            / (a.iter().map(|x| x * x).sum::<f32>().sqrt()
                * dequantised.iter().map(|x| x * x).sum::<f32>().sqrt());
        assert!((exact - approx).abs() < 0.01, "{exact} vs {approx}");
    }

    #[test]
    fn a_zero_vector_quantises_to_zero_and_is_never_found() {
        let mut codes = Vec::new();
        assert_eq!(quantize(&[0.0; 4], &mut codes), 0.0);
        assert_eq!(codes, [0; 4]);
    }

    #[test]
    fn heads_are_cut_on_a_character_boundary() {
        let text = "é".repeat(40);
        assert_eq!(head_of(&text).chars().count(), HEAD_CHARS);
        assert_eq!(&*head_of("[mind-fact] x"), "[mind-fact] x");
    }

    #[test]
    fn long_prefixes_are_left_to_sql() {
        let filter = SearchFilter {
            content_prefix: Some("x".repeat(HEAD_CHARS + 1)),
            ..SearchFilter::default()
        };
        assert!(
            IndexFilter::compile(&filter, HashSet::new())
                .unwrap()
                .is_none()
        );
        let filter = SearchFilter {
            since: Some("May".to_string()),
            ..SearchFilter::default()
        };
        assert!(IndexFilter::compile(&filter, HashSet::new()).is_err());
    }
}
