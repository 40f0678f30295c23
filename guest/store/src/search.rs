//! Indexed queries: full-text (FTS5 BM25), nearest neighbours (in memory),
//! and filtered listings.
//!
//! These are storage queries, not retrieval logic: each returns one lane's
//! candidates with that lane's own score, and the guest fuses and ranks them.
//!
//! - **Full text.** The query is cut into words (letters and digits), stop
//!   words are dropped, each remaining word is double-quoted (so `AND`,
//!   `NEAR`, `*`, `"`, `:` or `-` in user text are words, never FTS syntax)
//!   and the words are OR-ed; a query's first [`MAX_QUERY_WORDS`] distinct
//!   words are searched, the rest ignored. The score is `-bm25()`. In a large mind, a
//!   query of common words searches the frames holding its rarest words,
//!   ranked by all of them ([`budget_expression`]).
//! - **Vectors.** Frame vectors and chunk vectors are searched; a chunk hit
//!   is mapped to its frame and keeps its offsets; each frame appears once,
//!   with its best score, the cosine similarity. The search runs on the
//!   in-memory int8 index ([`super::vector_index`]), which evaluates every
//!   filter but a content prefix longer than its head; that one falls back
//!   to an exact scan of the rows SQL selects with the filter
//!   ([`MindStore::search_vector_exact`], float cosine).
//! - **Content prefixes** are looked up through the indexed `head_token`
//!   (the content's first space-delimited token), then confirmed.
//! - **Listings** are split into branches that each pin one indexed value
//!   (one importance, one `head_token`), each read newest (or oldest) first
//!   straight off its `(value, created_at)` index and cut to the limit, then
//!   merged: the importance lane at 100,000 frames no longer sorts the
//!   15,000 important ones to keep 5.
//! - **Filters.** A period (inclusive days: a frame that happened in it or
//!   names a period inside it, [`super::mentions`]), content prefix (a
//!   lane such as `[mind-fact]`), minimum importance.

use std::collections::{HashMap, HashSet};

use crate::sql::OptionalExtension;
use crate::sql::Value;
use hive_mind_core::Importance;

use super::MindStore;
use super::error::{StoreError, StoreResult};
use super::frames::{FRAME_COLUMNS, frame_from_row};
use super::meta::check_vector;
use super::schema::bm25;
use super::types::{Frame, Hit, SearchFilter};
use super::vector_index::{FrameMeta, HEAD_CHARS, IndexFilter, VectorIndex, frame_meta};

/// English stop words dropped from full-text queries (the core's list, one
/// for the search and for the evidence recall asks of a hit).
pub use hive_mind_core::recall::QUERY_STOP_WORDS as STOP_WORDS;

/// The most distinct words a full-text search considers: the first ones of
/// the query, in the order they come.
///
/// Why: every word costs a count of its postings ([`budget_expression`])
/// and a term of the FTS5 expression, so a query pasted from a whole
/// document (megabytes of text) would keep the engine busy for as long as
/// it has words. A question or a conversation turn holds far fewer
/// distinct non-stop words than this, so its search is unchanged; past
/// it, more words barely move a BM25 ranking that already holds 128
/// terms. (Lucene bounds a boolean query's clauses the same way.)
pub const MAX_QUERY_WORDS: usize = 128;

/// The searchable words of a user query: its non-stop words (no single
/// letter either: the "s" of "cat's"), lower-cased,
/// each once, in order, at most [`MAX_QUERY_WORDS`] of them (the first
/// ones). Linear in the query's length: the words seen are kept in a hash
/// set, and the query is read no further once the cap is reached.
pub fn fts_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for word in query.split(|c: char| !c.is_alphanumeric()) {
        if words.len() >= MAX_QUERY_WORDS {
            break;
        }
        let word = word.to_lowercase();
        if !hive_mind_core::recall::is_query_word(&word) || !seen.insert(word.clone()) {
            continue;
        }
        words.push(word);
    }
    words
}

/// The FTS5 expression for words: each quoted, OR-ed. `None` when there
/// are none.
fn fts_expression(words: &[String]) -> Option<String> {
    (!words.is_empty()).then(|| {
        words
            .iter()
            .map(|word| format!("\"{word}\""))
            .collect::<Vec<_>>()
            .join(" OR ")
    })
}

/// The FTS5 expression for a user query: its non-stop words, each quoted,
/// OR-ed. `None` when nothing searchable is left.
pub fn fts_query(query: &str) -> Option<String> {
    fts_expression(&fts_words(query))
}

/// The most postings (documents per word, summed) a full-text search's
/// candidate words may have; see [`budget_expression`].
pub const POSTINGS_BUDGET: u64 = 5_000;

/// The FTS5 expression for words with their document counts, within
/// [`POSTINGS_BUDGET`]. When the words' counts add up to more, the
/// candidates are the frames holding one of the rarest words (rarest
/// first, while within the budget, the rarest always), ranked by BM25 over
/// **all** the words: `("rare1" OR "rare2") AND ("w1" OR … OR "wn")`.
///
/// Why: FTS5 scores every frame that matches before it can order by BM25,
/// about 0.8 µs a posting measured at 100,000 frames, so a query holding a
/// word found in a quarter of the mind cost 30+ ms. Restricted to the rare
/// words' frames it costs 9 ms and returned the same top 40 in the measured
/// cases: a frame holding none of the query's rare words, only its common
/// ones (whose BM25 weight, the IDF, is the smallest), seldom outranks one
/// that holds them. A mind small enough never meets the budget, and every
/// word counts as before. (The idea of Lucene's common-terms query, as a
/// postings budget rather than a fixed frequency.) `None` without words.
pub fn budget_expression(counted: &[(String, u64)]) -> Option<String> {
    let words: Vec<String> = counted
        .iter()
        .filter(|(_, count)| *count > 0)
        .map(|(word, _)| word.clone())
        .collect();
    let all = fts_expression(&words)?;
    let total: u64 = counted.iter().map(|(_, count)| count).sum();
    if total <= POSTINGS_BUDGET {
        return Some(all);
    }
    let mut by_rarity: Vec<&(String, u64)> =
        counted.iter().filter(|(_, count)| *count > 0).collect();
    by_rarity.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let mut rare = Vec::new();
    let mut postings = 0u64;
    for (word, count) in by_rarity {
        if !rare.is_empty() && postings + count > POSTINGS_BUDGET {
            break;
        }
        postings += count;
        rare.push(word.clone());
    }
    let rare = fts_expression(&rare)?;
    Some(format!("({rare}) AND ({all})"))
}

/// The WHERE conditions (over alias `f`) of a filter, with parameters
/// numbered from `?{first}`, and their values.
fn filter_sql(filter: &SearchFilter, first: usize) -> StoreResult<(Vec<String>, Vec<Value>)> {
    let mut conditions = Vec::new();
    let mut values = Vec::new();
    let mut next = first;
    let mut param = |values: &mut Vec<Value>, value: Value| {
        values.push(value);
        next += 1;
        format!("?{}", next - 1)
    };
    let day = |text: &str, which: &str| -> StoreResult<String> {
        chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map(|date| date.format("%Y-%m-%d").to_string())
            .map_err(|_| {
                StoreError::InvalidInput(format!("{which} {text:?} is not a YYYY-MM-DD date"))
            })
    };
    let since = match &filter.since {
        Some(since) => Some(param(&mut values, Value::Text(day(since, "since")?))),
        None => None,
    };
    let until = match &filter.until {
        Some(until) => Some(param(&mut values, Value::Text(day(until, "until")?))),
        None => None,
    };
    if since.is_some() || until.is_some() {
        conditions.push(super::mentions::condition_sql(
            since.as_deref(),
            until.as_deref(),
        ));
    }
    if let Some(prefix) = &filter.content_prefix {
        if let Some((low, high)) = head_token_range(prefix) {
            // A necessary condition on the indexed `head_token` finds the
            // candidates; the substr below confirms.
            let low = param(&mut values, Value::Text(low));
            let high = param(&mut values, Value::Text(high));
            conditions.push(format!("f.head_token >= {low} AND f.head_token < {high}"));
        }
        let p = param(&mut values, Value::Text(prefix.clone()));
        conditions.push(format!("substr(f.content, 1, length({p})) = {p}"));
    }
    if let Some(minimum) = filter.min_importance {
        let allowed: Vec<String> = Importance::ALL
            .iter()
            .take_while(|importance| **importance != minimum)
            .chain(std::iter::once(&minimum))
            .map(|importance| param(&mut values, Value::Text(importance.as_str().to_string())))
            .collect();
        conditions.push(format!("f.importance IN ({})", allowed.join(", ")));
    }
    Ok((conditions, values))
}

/// The `head_token` range every content starting with `prefix` falls in,
/// when there is one: `head_token` is the content up to its first space, at
/// most [`HEAD_TOKEN_CHARS`] characters, so a prefix without a space and no
/// longer than that is a prefix of the token. U+10FFFF sorts after every
/// character the token can continue with.
fn head_token_range(prefix: &str) -> Option<(String, String)> {
    (!prefix.is_empty() && !prefix.contains(' ') && prefix.chars().count() <= HEAD_TOKEN_CHARS)
        .then(|| (prefix.to_string(), format!("{prefix}\u{10FFFF}")))
}

/// The longest `head_token` (schema v3).
const HEAD_TOKEN_CHARS: usize = 32;

fn and(conditions: &[String]) -> String {
    conditions
        .iter()
        .map(|condition| format!(" AND {condition}"))
        .collect()
}

/// A vector candidate: frame id, L2 distance, and the chunk's offsets when
/// a chunk matched.
type Candidate = (u64, f64, Option<(u32, u32)>);

/// Merge hits from several minds: best score first, cut to `limit`.
pub fn merge_hits(mut hits: Vec<Hit>, limit: u32) -> Vec<Hit> {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.frame_ref.cmp(&b.frame_ref))
    });
    hits.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    hits
}

impl MindStore {
    /// Full-text search (see the module docs), best first.
    pub fn search_text(
        &self,
        query: &str,
        filter: &SearchFilter,
        limit: u32,
    ) -> StoreResult<Vec<Hit>> {
        Ok(self
            .search_text_many(query, &[(filter, limit)])?
            .pop()
            .unwrap_or_default())
    }

    /// Several full-text searches with one query (a recall's lanes): the
    /// query is evaluated once, FTS5 alone (no join), and its ranked frames
    /// are dealt to the searches whose filters they pass — checked against
    /// the in-memory index's copy of each frame's event day, importance and
    /// head. Each search gets exactly what a search of its own would return.
    /// Without an index (no vectors yet, or a prefix longer than the index
    /// keeps), each search runs in SQL on its own.
    pub fn search_text_many(
        &self,
        query: &str,
        searches: &[(&SearchFilter, u32)],
    ) -> StoreResult<Vec<Vec<Hit>>> {
        let Some(expression) = self.text_expression(query)? else {
            return Ok(vec![Vec::new(); searches.len()]);
        };
        let compiled: Option<Vec<IndexFilter>> =
            self.compile_filters(searches)?.into_iter().collect();
        // The in-memory index holds the mind's vectors; another model's
        // (see `meta`) are not searched.
        let dim = self
            .vectors
            .require()
            .ok()
            .filter(|_| self.vectors.searchable());
        let (Some(compiled), Some(dim)) = (compiled, dim) else {
            return searches
                .iter()
                .map(|(filter, limit)| self.search_text_sql(&expression, filter, *limit))
                .collect();
        };
        let limits: Vec<usize> = searches
            .iter()
            .map(|(_, limit)| usize::try_from(*limit).unwrap_or(usize::MAX))
            .collect();
        let mut out: Vec<Vec<Hit>> = vec![Vec::new(); searches.len()];
        let unfiltered = compiled.iter().all(IndexFilter::is_empty);
        let (sql, values) = if unfiltered {
            // Every search takes the top: one ranked, limited query.
            let most = searches.iter().map(|(_, limit)| *limit).max().unwrap_or(0);
            (
                format!(
                    "SELECT rowid, {} AS r FROM memory_frames_fts
                     WHERE memory_frames_fts MATCH ?1 ORDER BY r, rowid LIMIT ?2",
                    bm25()
                ),
                vec![Value::Text(expression), Value::Integer(i64::from(most))],
            )
        } else {
            (
                format!(
                    "SELECT rowid, {} AS r FROM memory_frames_fts
                     WHERE memory_frames_fts MATCH ?1 ORDER BY r, rowid",
                    bm25()
                ),
                vec![Value::Text(expression)],
            )
        };
        let mut slot = self.vector_index()?;
        if !unfiltered {
            VectorIndex::refresh(&mut slot, &self.conn, dim as usize)?;
        }
        let index = slot.as_ref();
        let mut statement = self.conn.prepare_cached(&sql)?;
        let mut rows = statement.query(crate::sql::params_from_iter(values))?;
        while let Some(row) = rows.next()? {
            if out
                .iter()
                .zip(&limits)
                .all(|(hits, limit)| hits.len() >= *limit)
            {
                break;
            }
            let id: u64 = row.get(0)?;
            let rank: f64 = row.get(1)?;
            let fetched;
            let meta = if unfiltered {
                None
            } else {
                match index.and_then(|index| index.meta(id)) {
                    Some(meta) => Some(meta),
                    None => {
                        // Not in the index (a frame without a vector): read
                        // its fields.
                        fetched = self.frame_meta(id)?;
                        fetched.as_ref()
                    }
                }
            };
            for ((hits, limit), filter) in out.iter_mut().zip(&limits).zip(&compiled) {
                if hits.len() < *limit
                    && (filter.is_empty() || meta.is_some_and(|meta| filter.allows(meta)))
                {
                    hits.push(Hit {
                        frame_ref: self.frame_ref(id),
                        score: -rank,
                        chunk: None,
                    });
                }
            }
        }
        Ok(out)
    }

    /// Each search's filter in the index's form ([`IndexFilter::compile`]),
    /// with the frames that name a period inside its own: read once per
    /// distinct period, as a recall's lanes often share one.
    fn compile_filters(
        &self,
        searches: &[(&SearchFilter, u32)],
    ) -> StoreResult<Vec<Option<IndexFilter>>> {
        let mut named: HashMap<(Option<&str>, Option<&str>), HashSet<u64>> = HashMap::new();
        let mut compiled = Vec::with_capacity(searches.len());
        for (filter, _) in searches {
            let period = (filter.since.as_deref(), filter.until.as_deref());
            let frames = match period {
                (None, None) => HashSet::new(),
                (since, until) => match named.get(&period) {
                    Some(frames) => frames.clone(),
                    None => {
                        let frames =
                            super::mentions::frames_naming_within(&self.conn, since, until)?;
                        named.insert(period, frames.clone());
                        frames
                    }
                },
            };
            compiled.push(IndexFilter::compile(filter, frames)?);
        }
        Ok(compiled)
    }

    /// The in-memory vector index's slot (loaded or not), locked.
    fn vector_index(&self) -> StoreResult<std::sync::MutexGuard<'_, Option<VectorIndex>>> {
        self.index
            .lock()
            .map_err(|_| StoreError::InvalidInput("the vector index lock is poisoned".into()))
    }

    /// A frame's filter fields, read from its row.
    fn frame_meta(&self, id: u64) -> StoreResult<Option<FrameMeta>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT event_date, importance, substr(content, 1, ?2) FROM memory_frames WHERE id = ?1",
            )?
            .query_row(crate::sql::params![id, HEAD_CHARS], |row| {
                Ok(frame_meta(
                    id,
                    &row.get::<_, String>(0)?,
                    &row.get::<_, String>(1)?,
                    &row.get::<_, String>(2)?,
                ))
            })
            .optional()?)
    }

    /// The FTS5 expression for a query in this mind (the postings budget
    /// applied), `None` when nothing is searchable.
    fn text_expression(&self, query: &str) -> StoreResult<Option<String>> {
        let words = fts_words(query);
        if words.len() <= 1 {
            return Ok(fts_expression(&words));
        }
        let counts = self.document_counts(&words)?;
        let counted: Vec<(String, u64)> = words.into_iter().zip(counts).collect();
        Ok(budget_expression(&counted))
    }

    /// One full-text search in SQL alone, the filter joined in: the path
    /// without an index, and the reference the tests hold the shared
    /// evaluation to.
    pub fn search_text_exact(
        &self,
        query: &str,
        filter: &SearchFilter,
        limit: u32,
    ) -> StoreResult<Vec<Hit>> {
        match self.text_expression(query)? {
            Some(expression) => self.search_text_sql(&expression, filter, limit),
            None => Ok(Vec::new()),
        }
    }

    /// One full-text search in SQL, the filter joined in.
    fn search_text_sql(
        &self,
        expression: &str,
        filter: &SearchFilter,
        limit: u32,
    ) -> StoreResult<Vec<Hit>> {
        let (conditions, filter_values) = filter_sql(filter, 2)?;
        let sql = format!(
            "SELECT f.id, {bm25} AS rank
             FROM memory_frames_fts JOIN memory_frames f ON f.id = memory_frames_fts.rowid
             WHERE memory_frames_fts MATCH ?1{}
             ORDER BY rank, f.id LIMIT ?{}",
            and(&conditions),
            filter_values.len() + 2,
            bm25 = bm25(),
        );
        let mut values = vec![Value::Text(expression.to_string())];
        values.extend(filter_values);
        values.push(Value::Integer(i64::from(limit)));
        let hits = self
            .conn
            .prepare_cached(&sql)?
            .query_map(crate::sql::params_from_iter(values), |row| {
                let id: u64 = row.get(0)?;
                let rank: f64 = row.get(1)?;
                Ok((id, rank))
            })?
            .map(|row| {
                row.map(|(id, rank)| Hit {
                    frame_ref: self.frame_ref(id),
                    score: -rank,
                    chunk: None,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(hits)
    }

    /// How many frames hold each of `words` (the full-text index's document
    /// counts), in their order, remembered until the mind's change log moves
    /// (the lanes of one recall ask for the same words). The words not
    /// remembered are counted by one statement, whatever their number: they
    /// go in as one JSON array, and each is matched on its own.
    fn document_counts(&self, words: &[String]) -> StoreResult<Vec<u64>> {
        let seq: i64 = self.conn.query_row(
            "SELECT ifnull(max(seq), 0) FROM memory_vector_changes",
            [],
            |row| row.get(0),
        )?;
        let mut cache = self.document_counts.lock().map_err(|_| {
            StoreError::InvalidInput("the word-count cache lock is poisoned".into())
        })?;
        if cache.0 != seq {
            *cache = (seq, std::collections::HashMap::new());
        }
        let missing: Vec<&String> = words
            .iter()
            .filter(|word| !cache.1.contains_key(*word))
            .collect();
        if !missing.is_empty() {
            let quoted: Vec<String> = missing.iter().map(|word| format!("\"{word}\"")).collect();
            let array = serde_json::to_string(&quoted)
                .map_err(|error| StoreError::InvalidInput(format!("query words: {error}")))?;
            let counts: Vec<(usize, u64)> = self
                .conn
                .prepare_cached(
                    "SELECT words.key, (SELECT count(*) FROM memory_frames_fts
                                        WHERE memory_frames_fts MATCH words.value)
                     FROM json_each(?1) AS words",
                )?
                .query_map([array], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?;
            for (index, count) in counts {
                if let Some(word) = missing.get(index) {
                    cache.1.insert((*word).clone(), count);
                }
            }
        }
        Ok(words
            .iter()
            .map(|word| cache.1.get(word).copied().unwrap_or(0))
            .collect())
    }

    /// Nearest frames to `embedding` over frame and chunk vectors (see the
    /// module docs), most similar first.
    pub fn search_vector(
        &self,
        embedding: &[f32],
        filter: &SearchFilter,
        limit: u32,
    ) -> StoreResult<Vec<Hit>> {
        Ok(self
            .search_vector_many(embedding, &[(filter, limit)])?
            .pop()
            .unwrap_or_default())
    }

    /// Several vector searches with one query vector, from one scan of the
    /// in-memory index; a search whose filter the index cannot evaluate runs
    /// exactly instead ([`MindStore::search_vector_exact`]).
    pub fn search_vector_many(
        &self,
        embedding: &[f32],
        searches: &[(&SearchFilter, u32)],
    ) -> StoreResult<Vec<Vec<Hit>>> {
        let dim = self.vectors.require()?;
        check_vector(embedding, dim, "the query embedding")?;
        if !self.vectors.searchable() {
            // Another model made the mind's vectors (see `meta`).
            return Ok(vec![Vec::new(); searches.len()]);
        }
        let compiled = self.compile_filters(searches)?;
        let indexed: Vec<(&IndexFilter, usize)> = compiled
            .iter()
            .zip(searches)
            .filter_map(|(filter, (_, limit))| {
                filter
                    .as_ref()
                    .map(|filter| (filter, usize::try_from(*limit).unwrap_or(usize::MAX)))
            })
            .collect();
        let mut from_index = if indexed.is_empty() {
            Vec::new()
        } else {
            let mut slot = self.vector_index()?;
            VectorIndex::refresh(&mut slot, &self.conn, dim as usize)?;
            slot.as_ref()
                .map(|index| index.search_many(embedding, &indexed))
                .unwrap_or_default()
        }
        .into_iter();
        compiled
            .iter()
            .zip(searches)
            .map(|(filter, (search, limit))| match filter {
                Some(_) => Ok(from_index
                    .next()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|hit| Hit {
                        frame_ref: self.frame_ref(hit.frame),
                        score: hit.cosine,
                        chunk: hit.chunk,
                    })
                    .collect()),
                None => self.search_vector_exact(embedding, search, *limit),
            })
            .collect()
    }

    /// Nearest frames by an exact float scan of the rows the filter selects
    /// in SQL: the fallback for filters the in-memory index cannot evaluate,
    /// and the benchmark's reference. The score is the cosine similarity.
    pub fn search_vector_exact(
        &self,
        embedding: &[f32],
        filter: &SearchFilter,
        limit: u32,
    ) -> StoreResult<Vec<Hit>> {
        let dim = self.vectors.require()?;
        check_vector(embedding, dim, "the query embedding")?;
        if limit == 0 || !self.vectors.searchable() {
            return Ok(Vec::new());
        }
        let (conditions, values) = filter_sql(filter, 1)?;
        let conditions_sql = and(&conditions);
        let frame_sql = format!(
            "SELECT f.id, v.embedding FROM memory_frames f JOIN memory_frames_vec v ON v.id = f.id
             WHERE 1{conditions_sql}"
        );
        let chunk_sql = format!(
            "SELECT c.frame_id, v.embedding, c.char_start, c.char_end
             FROM memory_frame_chunks c
             JOIN memory_frame_chunks_vec v ON v.id = c.id
             JOIN memory_frames f ON f.id = c.frame_id
             WHERE 1{conditions_sql}"
        );
        let query_norm = norm(embedding);
        let cosine = |bytes: &[u8]| -> f64 {
            let mut dot = 0f64;
            let mut row_norm = 0f64;
            let values = bytes
                .chunks_exact(4)
                .filter_map(|value| <[u8; 4]>::try_from(value).ok());
            for (value, query) in values.zip(embedding) {
                let value = f64::from(f32::from_le_bytes(value));
                dot += value * f64::from(*query);
                row_norm += value * value;
            }
            let denominator = row_norm.sqrt() * query_norm;
            if denominator == 0.0 {
                0.0
            } else {
                dot / denominator
            }
        };
        let mut found: Vec<Candidate> = self.conn.query_all(&frame_sql, values.clone(), |row| {
            let bytes: Vec<u8> = row.get(1)?;
            Ok((row.get::<_, u64>(0)?, cosine(&bytes), None))
        })?;
        found.extend(self.conn.query_all(&chunk_sql, values, |row| {
            let bytes: Vec<u8> = row.get(1)?;
            Ok((
                row.get::<_, u64>(0)?,
                cosine(&bytes),
                Some((row.get::<_, u32>(2)?, row.get::<_, u32>(3)?)),
            ))
        })?);
        // Best (highest cosine) per frame; ties keep the frame's own vector,
        // then the lower id.
        found.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then(a.2.is_some().cmp(&b.2.is_some()))
                .then(a.0.cmp(&b.0))
        });
        let mut seen = std::collections::HashSet::new();
        let hits = found
            .into_iter()
            .filter(|(id, _, _)| seen.insert(*id))
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .map(|(id, score, chunk)| Hit {
                frame_ref: self.frame_ref(id),
                score,
                chunk,
            })
            .collect();
        Ok(hits)
    }

    /// Frames matching a filter without a text query (the importance,
    /// profile, fact, event and raw-turn lanes), newest first by event time,
    /// or oldest first.
    pub fn list_frames(
        &self,
        filter: &SearchFilter,
        oldest_first: bool,
        limit: u32,
    ) -> StoreResult<Vec<Frame>> {
        let (conditions, mut values) = filter_sql(filter, 1)?;
        let direction = if oldest_first { "ASC" } else { "DESC" };
        let order = format!("ORDER BY f.created_at {direction}, f.id {direction}");
        // Branches: each pins one indexed value (see the module docs).
        let mut branches: Vec<Vec<String>> = vec![Vec::new()];
        let param = |values: &mut Vec<Value>, value: Value| {
            values.push(value);
            format!("?{}", values.len())
        };
        if let Some(minimum) = filter.min_importance {
            let allowed = Importance::ALL
                .iter()
                .take_while(|importance| **importance != minimum)
                .chain(std::iter::once(&minimum));
            branches = allowed
                .map(|importance| {
                    let p = param(&mut values, Value::Text(importance.as_str().to_string()));
                    vec![format!("f.importance = {p}")]
                })
                .collect();
        }
        if let Some((low, high)) = filter.content_prefix.as_deref().and_then(head_token_range) {
            // The token equal to the prefix (the usual case: `[mind-fact]`),
            // read in order off the index; then the tokens that only start
            // with it, a range that is almost always empty.
            let low = param(&mut values, Value::Text(low));
            let high = param(&mut values, Value::Text(high));
            branches = branches
                .into_iter()
                .flat_map(|branch| {
                    let mut exact = branch.clone();
                    exact.push(format!("f.head_token = {low}"));
                    let mut longer = branch;
                    longer.push(format!("f.head_token > {low} AND f.head_token < {high}"));
                    [exact, longer]
                })
                .collect();
        }
        let limit_param = param(&mut values, Value::Integer(i64::from(limit)));
        let sql = if matches!(branches.as_slice(), [only] if only.is_empty()) {
            format!(
                "SELECT {FRAME_COLUMNS} FROM memory_frames f WHERE 1{} {order} LIMIT {limit_param}",
                and(&conditions)
            )
        } else {
            let parts: Vec<String> = branches
                .iter()
                .map(|branch| {
                    format!(
                        "SELECT * FROM (SELECT f.id FROM memory_frames f WHERE 1{}{} {order} LIMIT {limit_param})",
                        and(&conditions),
                        and(branch)
                    )
                })
                .collect();
            format!(
                "SELECT {FRAME_COLUMNS} FROM memory_frames f WHERE f.id IN ({}) {order} LIMIT {limit_param}",
                parts.join(" UNION ALL ")
            )
        };
        let frames = self
            .conn
            .prepare_cached(&sql)?
            .query_map(crate::sql::params_from_iter(values), |row| {
                frame_from_row(&self.mind, row)
            })?
            .collect::<Result<_, _>>()?;
        Ok(frames)
    }

    /// The most important frames (critical, then important), newest first.
    pub fn important_frames(&self, limit: u32) -> StoreResult<Vec<Frame>> {
        let filter = SearchFilter {
            min_importance: Some(Importance::Important),
            ..SearchFilter::default()
        };
        let mut frames = self.list_frames(&filter, false, u32::MAX)?;
        frames.sort_by_key(|frame| {
            Importance::ALL
                .iter()
                .position(|importance| *importance == frame.importance)
        });
        frames.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(frames)
    }
}

/// The Euclidean norm of a vector, in f64.
fn norm(vector: &[f32]) -> f64 {
    vector
        .iter()
        .map(|value| f64::from(*value).powi(2))
        .sum::<f64>()
        .sqrt()
}
