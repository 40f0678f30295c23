//! `memory.recall-memory`: the multi-lane recall pipeline over the imports.
//!
//! The pure parts — which lanes run, fusion, the relevance floor, scoring,
//! formatting and the injection scan — are
//! [`hive_mind_core::recall`]; this module is the I/O between them:
//!
//! 1. **Plan** the query ([`plan_recall`]).
//! 2. **Start embedding** the query (only when a lane searches):
//!    `embedder.start-embed` hands it to the host, which embeds it while
//!    the next two steps run their SQL, so the model's time and the
//!    database's overlap instead of adding up.
//! 3. **Gather by words**: for every mind in scope, ask the store — the
//!    searching lanes' full-text searches together (`search-text-many`:
//!    one query evaluation for all of them, each lane with its own filter
//!    and fetch size), `list-frames` for each listing lane. A workspace
//!    mind that was never written to has no memories: it is skipped with a
//!    note.
//! 4. **Connect**: words of the query that name known entities
//!    (`find-entities`, exact canonical names) → `frame-distances` through
//!    the entity → frame bridge, so the contextual signal is real.
//! 5. **Gather by meaning**: wait for the query's vector (`finish`), then
//!    one scan of each mind's vector index for all the searching lanes
//!    (`search-vector-many`), and fetch the frames the searches hit. A
//!    question the embedder failed on (`failed`, or an `err` for its one
//!    text) skips this step, and the notes say so.
//! 6. **Rank** ([`rank_candidates`]) with the reranker import as the
//!    cross-encoder (soft-fail: unavailable keeps the fused order), each
//!    pair counted against the rerank budget at most the window its
//!    `reranker.info` reports.
//! 7. **Assemble** ([`assemble_recall`]), touch what was recalled, and add
//!    the identity/awareness context ([`build_system_context`]).

use std::collections::{BTreeMap, BTreeSet};

use hive_mind_core::bounds;
use hive_mind_core::recall::{
    AwarenessContext, Candidate, Fetch, IdentityContext, LaneHit, MindKey, RankOptions,
    RelevanceFloor, StandingLanes, assemble_recall, build_system_context, plan_recall, rank_recall,
};
use hive_mind_core::{LogicError, ScoringProfile as CoreProfile};

use crate::boundary;
use crate::boundary::mind_key;
use crate::calibration;
use crate::exports::hive::mind::memory::{
    Error, Lane as WitLane, Recall, RecallNote, RecallNoteKind, RecallOptions, RecallScope,
    RecallStage, Recalled, StageTime,
};
use crate::hive::mind::types::{Frame, FrameRef, MemoryStatus, Mind, ScoringProfile};
use crate::hive::mind::{embedder, reranker};
use crate::save::{embedder_error, store_error};
use crate::store;

/// How far the graph is searched from the query's entities (the contextual
/// signal scores distances 0–3).
const GRAPH_DEPTH: u32 = 3;
/// The most word n-grams of a query looked up as entity names.
const MAX_ENTITY_LOOKUPS: usize = 48;
/// The longest entity name looked up, in words.
const MAX_ENTITY_WORDS: usize = 3;

fn logic_error(error: LogicError) -> Error {
    match error {
        LogicError::InvalidArgument(why) => Error::InvalidArgument(why),
    }
}

/// The minds a recall searches, active workspace first (the `recall-minds`
/// export: a host checks a caller's grant against exactly these).
pub fn minds_in_scope(options: &RecallOptions) -> Result<Vec<Mind>, Error> {
    let workspace = options
        .workspace
        .as_ref()
        .filter(|id| !id.trim().is_empty())
        .map(|id| Mind::Workspace(id.clone()));
    match (options.scope.unwrap_or(RecallScope::All), workspace) {
        (RecallScope::Personal, _) => Ok(vec![Mind::Personal]),
        (RecallScope::Current, Some(workspace)) => Ok(vec![workspace]),
        (RecallScope::Current, None) => Err(Error::InvalidArgument(
            "scope `current` needs a workspace: name one, or use scope `personal` or `all`"
                .to_string(),
        )),
        (RecallScope::All, Some(workspace)) => Ok(vec![workspace, Mind::Personal]),
        (RecallScope::All, None) => Ok(vec![Mind::Personal]),
    }
}

/// The current time as ISO-8601 (UTC), from the WASI wall clock.
fn now_iso() -> String {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = i64::try_from(since_epoch.as_secs()).unwrap_or(0);
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|time| time.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_string())
}

fn core_profile(profile: ScoringProfile) -> CoreProfile {
    match profile {
        ScoringProfile::Balanced => CoreProfile::Balanced,
        ScoringProfile::Recent => CoreProfile::Recent,
        ScoringProfile::Important => CoreProfile::Important,
        ScoringProfile::Connected => CoreProfile::Connected,
    }
}

/// Word n-grams of the query that might name an entity.
fn entity_lookups(query: &str) -> Vec<String> {
    let words: Vec<&str> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.' || c == '\''))
        .map(|word| word.trim_matches(|c: char| c == '.' || c == '\'' || c == '-'))
        .filter(|word| word.chars().count() >= 2)
        .collect();
    let mut seen = BTreeSet::new();
    let mut lookups = Vec::new();
    for width in 1..=MAX_ENTITY_WORDS {
        for window in words.windows(width) {
            let name = window.join(" ");
            if hive_mind_core::is_noise_name(&name) {
                continue;
            }
            let canonical = hive_mind_core::normalize_entity_name(&name);
            if !canonical.is_empty() && seen.insert(canonical) {
                lookups.push(name);
                if lookups.len() >= MAX_ENTITY_LOOKUPS {
                    return lookups;
                }
            }
        }
    }
    lookups
}

/// Frame id → hops from the query's entities, in one mind.
fn graph_distances(query: &str, mind: &Mind) -> Result<BTreeMap<u64, u32>, Error> {
    let mut entities = BTreeSet::new();
    for name in entity_lookups(query) {
        for entity in store::find_entities(mind, &name).map_err(store_error)? {
            entities.insert(entity.id);
        }
    }
    if entities.is_empty() {
        return Ok(BTreeMap::new());
    }
    let entities: Vec<u64> = entities.into_iter().collect();
    let distances = store::frame_distances(mind, &entities, GRAPH_DEPTH).map_err(store_error)?;
    let mut by_frame = BTreeMap::new();
    for (frame, distance) in distances {
        by_frame
            .entry(frame)
            .and_modify(|best: &mut u32| *best = (*best).min(distance))
            .or_insert(distance);
    }
    Ok(by_frame)
}

/// Times the stages of one recall (WASI's monotonic clock).
struct Stopwatch {
    stages: Vec<StageTime>,
    started: std::time::Instant,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch {
            stages: Vec::new(),
            started: std::time::Instant::now(),
        }
    }

    /// Close the current stage under `stage` and start the next. A stage
    /// timed in parts (search: by words, then by meaning) is one entry.
    fn lap(&mut self, stage: RecallStage) {
        let now = std::time::Instant::now();
        let micros =
            u64::try_from(now.duration_since(self.started).as_micros()).unwrap_or(u64::MAX);
        match self.stages.iter_mut().find(|timed| timed.stage == stage) {
            Some(timed) => timed.micros = timed.micros.saturating_add(micros),
            None => self.stages.push(StageTime { stage, micros }),
        }
        self.started = now;
    }
}

/// One hit before its frame is fetched.
struct PendingHit {
    lane: hive_mind_core::recall::Lane,
    hit: LaneHit,
}

/// How many memories a recall returns when the options name no `limit`.
pub const DEFAULT_LIMIT: u32 = 10;

/// The most memories one recall returns, whatever `limit` asks: every
/// surface passes its caller's number through, and this is the one bound.
pub const MAX_LIMIT: u32 = 100;

/// The number of memories a recall with `limit` returns at most (`0` is
/// the plan's own default).
fn limit_of(limit: Option<u32>) -> u32 {
    match limit.unwrap_or(DEFAULT_LIMIT) {
        0 => hive_mind_core::recall::DEFAULT_RECALL_LIMIT,
        limit => limit,
    }
    .min(MAX_LIMIT)
}

/// Recall the memories most relevant to `query`.
pub fn recall_memory(query: String, options: RecallOptions) -> Result<Recall, Error> {
    bounds::QUERY
        .check(&query)
        .map_err(Error::InvalidArgument)?;
    let mut clock = Stopwatch::start();
    let limit = limit_of(options.limit);
    // "As of" a time, recency is scored against that time too.
    let now = match options.now.or(options.as_of) {
        Some(now) => boundary::iso(now).map_err(Error::InvalidArgument)?,
        None => now_iso(),
    };
    let plan = plan_recall(&query, &now, limit).map_err(logic_error)?;
    let minds = minds_in_scope(&options)?;
    let mut notes = Vec::new();

    let searches = plan
        .lanes
        .iter()
        .any(|lane| matches!(lane.fetch, Fetch::Search { .. }));
    let mut floor = match options.floor {
        Some(floor) => RelevanceFloor {
            min_cosine: floor.min_cosine,
            lexical_match: floor.lexical_match,
            standing_lanes: if floor.standing_lanes_always {
                StandingLanes::Always
            } else {
                StandingLanes::WhenAnchored
            },
        },
        None => RelevanceFloor::default(),
    };
    // A question asked as "I" of a mind that names its owner is also read
    // as the memories name them (`recall::person`).
    let owner_reading = if searches {
        owners_reading(&query, &minds)
    } else {
        None
    };
    // The floors measured for this embedder, when the default floor is used
    // (the scale of the question's reading as a document).
    let mut calibrated = None;
    let pending = if searches {
        let info = embedder::info().map_err(embedder_error)?;
        if !info.meaningful {
            // Vectors that carry no meaning: only keyword matches count
            // (unless the caller turned the floor off).
            if floor.min_cosine.is_finite() {
                floor.min_cosine = f64::INFINITY;
            }
            notes.push(note(
                RecallNoteKind::KeywordsOnly,
                format!(
                    "the {} embedder's vectors carry no meaning: only keyword matches count",
                    info.provider
                ),
            ));
        } else if options.floor.is_none() {
            // The default floor: how similar unrelated texts look under
            // this model, measured once (see `calibration`).
            match calibration::floors(&info) {
                Ok(floors) => {
                    floor.min_cosine = floors.asked;
                    calibrated = Some(floors);
                }
                Err(why) => notes.push(note(
                    RecallNoteKind::DefaultFloor,
                    format!("{why}; the default relevance floor is used"),
                )),
            }
        }
        // A query (and its reading in the owner's person): a model with a
        // query instruction (bge) gets it there.
        let mut texts = vec![query.clone()];
        texts.extend(owner_reading.iter().cloned());
        Some(embedder::start_embed(&texts, embedder::InputKind::Query).map_err(embedder_error)?)
    } else {
        None
    };
    // The question read as a document too, on its own calibrated scale
    // (`with_document_reading`), embedded behind the asked reading, where
    // the model reads the two apart; a failure leaves the reading as asked.
    let pending_document = match (&pending, calibrated) {
        (Some(_), Some(floors)) if floors.reads_apart() => {
            embedder::start_embed(std::slice::from_ref(&query), embedder::InputKind::Document)
                .ok()
                .map(|pending| (pending, floors))
        }
        _ => None,
    };
    clock.lap(RecallStage::EmbedQuery);

    // Gather by words, while the host embeds the query.
    let mut frames: BTreeMap<(MindKey, u64), Frame> = BTreeMap::new();
    let mut pending_hits: Vec<(Mind, u64, PendingHit)> = Vec::new();
    let mut searched = Vec::new();
    for mind in &minds {
        match gather_words(&query, &plan, mind, &mut frames, &mut pending_hits) {
            Ok(()) => {
                // What the mind says of itself (another model's vectors, a
                // stale chunk plan), so the caller hears why recall is weaker.
                notes.extend(
                    store::read(mind, |store| store.notes())
                        .map_err(store_error)?
                        .into_iter()
                        .map(|text| note(RecallNoteKind::MindState, text)),
                );
                searched.push(mind.clone());
            }
            Err(store::StoreError::MindNotFound(_)) if matches!(mind, Mind::Workspace(_)) => {
                notes.push(note(
                    RecallNoteKind::EmptyWorkspace,
                    format!(
                        "workspace `{}` has no memories yet",
                        match mind {
                            Mind::Workspace(id) => id.as_str(),
                            Mind::Personal => "personal",
                        }
                    ),
                ));
            }
            Err(error) => return Err(store_error(error)),
        }
    }
    clock.lap(RecallStage::Search);

    // Connect.
    let mut distances: BTreeMap<MindKey, BTreeMap<u64, u32>> = BTreeMap::new();
    for mind in &searched {
        distances.insert(mind_key(mind), graph_distances(&query, mind)?);
    }
    clock.lap(RecallStage::Graph);

    // Gather by meaning: the query's vector, then one scan per mind.
    // A question the embedder failed on leaves recall its keyword lanes.
    let (query_vector, reading_vector) = match pending.map(|pending| pending.finish()) {
        None => (None, None),
        Some(Ok(vectors)) => {
            let mut vectors = vectors.into_iter();
            let query_vector = match vectors.next() {
                Some(Ok(vector)) => Some(vector),
                Some(Err(why)) => {
                    notes.push(unembedded_query_note(&why));
                    None
                }
                None => None,
            };
            (query_vector, vectors.next().and_then(Result::ok))
        }
        Some(Err(embedder::Error::Failed(why))) => {
            notes.push(unembedded_query_note(&why));
            (None, None)
        }
        Some(Err(error)) => return Err(embedder_error(error)),
    };
    let document_reading = pending_document.and_then(|(pending, floors)| {
        let vector = pending.finish().ok()?.into_iter().next()?.ok()?;
        query_vector.is_some().then_some((vector, floors))
    });
    clock.lap(RecallStage::EmbedQuery);
    if let Some(vector) = &query_vector {
        let readings: Vec<&[f32]> = std::iter::once(vector.as_slice())
            .chain(reading_vector.as_deref())
            .collect();
        let as_document = document_reading
            .as_ref()
            .map(|(vector, floors)| (vector.as_slice(), *floors));
        for mind in &searched {
            gather_meaning(&readings, as_document, &plan, mind, &mut pending_hits)
                .map_err(store_error)?;
        }
    }

    // Fetch the frames the searches hit.
    let mut wanted = BTreeSet::new();
    let missing: Vec<FrameRef> = pending_hits
        .iter()
        .filter(|(mind, id, _)| !frames.contains_key(&(mind_key(mind), *id)))
        .filter(|(mind, id, _)| wanted.insert((mind_key(mind), *id)))
        .map(|(mind, id, _)| FrameRef {
            mind: mind.clone(),
            id: *id,
        })
        .collect();
    if !missing.is_empty() {
        for frame in store::get_frames(&missing).map_err(store_error)? {
            frames.insert((mind_key(&frame.ref_.mind), frame.ref_.id), frame);
        }
    }
    let mut stands_for = BTreeMap::new();
    let pending_hits = match options.as_of {
        None => current_versions(pending_hits, &mut frames, &mut notes, &mut stands_for)?,
        Some(as_of) => valid_as_of(pending_hits, &frames, as_of, &mut notes),
    };
    let pending_hits = without_quarantined(pending_hits, &frames, &mut notes);
    clock.lap(RecallStage::Search);

    let candidates: Vec<Candidate> = pending_hits
        .into_iter()
        .filter_map(|(mind, id, hit)| {
            let key = mind_key(&mind);
            let frame = frames.get(&(key.clone(), id))?;
            let distance = distances.get(&key).and_then(|d| d.get(&id)).copied();
            let mut frame = store::frame_info(frame, distance);
            if let Some(texts) = stands_for.get(&(key.clone(), id)) {
                frame.stands_for.clone_from(texts);
            }
            Some(Candidate {
                mind: key,
                frame_id: id,
                lane: hit.lane,
                hit: hit.hit,
                frame,
            })
        })
        .collect();

    // Rank, with the reranker as the cross-encoder (soft-fail).
    // The reranker's window sizes each pair's share of the rerank budget;
    // asked only when the plan reranks (an answer of `unavailable` comes
    // again from `score`, which notes it).
    let reranks = options.rerank_pool != Some(0) && plan.lanes.iter().any(|spec| spec.rerank);
    let rerank_pair_tokens = if reranks {
        reranker::info().ok().map(|info| info.max_tokens)
    } else {
        None
    };
    let rank_options = RankOptions {
        profile: core_profile(options.profile.unwrap_or(ScoringProfile::Balanced)),
        floor,
        rerank_pool: options.rerank_pool,
        rerank_pair_tokens,
    };
    let mut reranker_note = None;
    let ranking = rank_recall(&plan, candidates, &rank_options, |passages| {
        let passages: Vec<String> = passages.iter().map(|p| p.to_string()).collect();
        match reranker::score(&query, &passages) {
            // Each passage read against the question as asked and, when
            // there is one, as the memories name its owner, where the
            // reranker is sure of that reading (`with_owners_reading`).
            Ok(scores) => Some(
                match owner_reading.as_ref().filter(|_| query_vector.is_some()) {
                    Some(reading) => match reranker::score(reading, &passages) {
                        Ok(read) => hive_mind_core::recall::with_owners_reading(&scores, &read),
                        Err(_) => scores,
                    },
                    None => scores,
                },
            ),
            Err(reranker::Error::Unavailable(why)) => {
                reranker_note = Some(note(
                    RecallNoteKind::Reranker,
                    format!("no reranker: {why}"),
                ));
                None
            }
            Err(reranker::Error::Failed(why)) => {
                reranker_note = Some(note(
                    RecallNoteKind::Reranker,
                    format!("the reranker failed, fused order kept: {why}"),
                ));
                None
            }
        }
    })
    .map_err(logic_error)?;
    notes.extend(reranker_note);
    if let Some(miss) = &ranking.near_miss {
        notes.push(note(RecallNoteKind::NearMiss, near_miss_note(miss, &floor)));
    }
    let ranked = ranking.memories;
    clock.lap(RecallStage::Rank);

    // `limit` bounds the whole answer, standing lanes included: the ranking
    // is best first, so the lowest-ranked memories are the ones left out.
    // Of two related statements, the newer first (and a surely replaced
    // one left out), before the cut, so a newer statement moved up stays.
    let shown = usize::try_from(limit).unwrap_or(usize::MAX);
    // How near the question comes to a memory recall did not list (a
    // newer statement it looks for), as the floor reads a hit's.
    let question_cosine = |vector: &[f32]| {
        question_cosine(query_vector.as_deref(), document_reading.as_ref(), vector)
    };
    let mut ranked = crate::change::order_recalled(
        ranked,
        &minds,
        shown,
        options.as_of.is_none(),
        &question_cosine,
        &mut frames,
        &mut notes,
    );
    ranked.truncate(shown);
    let output = within_tokens(&plan, ranked, options.max_tokens, &mut notes);
    let memories: Vec<Recalled> = output
        .memories
        .iter()
        .filter_map(|memory| {
            let frame = frames.get(&(memory.mind.clone(), memory.frame_id))?;
            Some(Recalled {
                frame: frame.clone(),
                lane: lane_out(memory.lane),
                score: memory.score,
                why: memory.why.clone(),
            })
        })
        .collect();
    clock.lap(RecallStage::Format);
    if !memories.is_empty() {
        let refs: Vec<FrameRef> = memories.iter().map(|m| m.frame.ref_.clone()).collect();
        store::touch_frames(&refs).map_err(store_error)?;
    }

    clock.lap(RecallStage::Touch);
    let context = system_context(&minds, &mut notes)?;
    clock.lap(RecallStage::Context);
    Ok(Recall {
        memories,
        text: output.text,
        withheld: output.withheld,
        context,
        notes,
        stages: clock.stages,
    })
}

/// What a recall that answered nothing says of its nearest miss: what it
/// was, how close, and how to ask for it.
fn near_miss_note(miss: &hive_mind_core::recall::NearMiss, floor: &RelevanceFloor) -> String {
    const SHOWN_CHARS: usize = 80;
    let mut shown: String = miss.text.chars().take(SHOWN_CHARS).collect();
    if miss.text.chars().count() > SHOWN_CHARS {
        shown.push('…');
    }
    let closeness = match miss.cosine {
        Some(cosine) if floor.min_cosine.is_finite() => format!(
            "cosine {cosine:.2}; an answer needs {:.2}, or more than half of the question's words",
            hive_mind_core::recall::answer_min_cosine(floor.min_cosine)
        ),
        _ => format!(
            "it holds {:.0} % of the question's words; an answer needs more than half",
            miss.keyword_share * 100.0
        ),
    };
    format!(
        "nothing answered the question; the nearest memory was \"{shown}\" ({closeness}); ask with its words, or lower the relevance floor (min-cosine) to see it"
    )
}

/// The most replacements followed from one memory to its current version.
const MAX_VERSION_STEPS: usize = 100;

/// The memory that stands for `frame` now: the version that replaced it,
/// or the memory a merge folded it into.
fn next_version(frame: &Frame) -> Option<FrameRef> {
    frame.superseded_by.clone().or_else(|| {
        (frame.status == MemoryStatus::Archived)
            .then(|| frame.merged_into.clone())
            .flatten()
    })
}

/// Recall now answers with what is current: a search hit on a replaced
/// memory (a correction or a newer statement closed it) becomes a hit on
/// its current version, at the same rank (the search found the subject;
/// the answer is today's), and a hit on a memory merged into another
/// becomes a hit on the merged memory (unless the detector holds that one
/// back: then the original answers); an archived memory is left out; a
/// listing's replaced memory is dropped (the
/// listing holds the current version in its own right). A memory found
/// both ways counts once per lane and kind of hit.
///
/// `stands_for` gets, for each current version that answers such hits, the
/// texts of the earlier versions the search found (their words are the
/// query's keyword evidence).
fn current_versions(
    pending: Vec<(Mind, u64, PendingHit)>,
    frames: &mut BTreeMap<(MindKey, u64), Frame>,
    notes: &mut Vec<RecallNote>,
    stands_for: &mut BTreeMap<(MindKey, u64), Vec<String>>,
) -> Result<Vec<(Mind, u64, PendingHit)>, Error> {
    // Fetch the versions the hits lead to, a step at a time.
    for _ in 0..MAX_VERSION_STEPS {
        let mut wanted = BTreeSet::new();
        let missing: Vec<FrameRef> = frames
            .values()
            .filter_map(next_version)
            .filter(|next| !frames.contains_key(&(mind_key(&next.mind), next.id)))
            .filter(|next| wanted.insert((mind_key(&next.mind), next.id)))
            .collect();
        if missing.is_empty() {
            break;
        }
        let fetched = store::get_frames(&missing).map_err(store_error)?;
        if fetched.is_empty() {
            break;
        }
        for frame in fetched {
            frames.insert((mind_key(&frame.ref_.mind), frame.ref_.id), frame);
        }
    }
    let current = |mind: &Mind, id: u64| -> Option<u64> {
        let mut at = id;
        for _ in 0..MAX_VERSION_STEPS {
            let frame = frames.get(&(mind_key(mind), at))?;
            match next_version(frame) {
                None if frame.status == MemoryStatus::Archived => return None,
                None => return Some(at),
                // Merged into a memory the detector now holds back (a
                // re-screen under a newer model): the original answers
                // for itself, or its words would leave recall with it.
                Some(next)
                    if frame.superseded_by.is_none()
                        && frames
                            .get(&(mind_key(&next.mind), next.id))
                            .is_some_and(store::quarantined) =>
                {
                    return Some(at);
                }
                Some(next) => at = next.id,
            }
        }
        None
    };
    let mut replaced = 0usize;
    let mut seen = BTreeSet::new();
    let mut kept = Vec::with_capacity(pending.len());
    for (mind, id, hit) in pending {
        let Some(now_id) = current(&mind, id) else {
            continue;
        };
        let hit = if now_id == id {
            hit
        } else {
            let lane_hit = match hit.hit {
                LaneHit::Listed { .. } => continue,
                LaneHit::Text { rank, bm25, .. } => LaneHit::Text {
                    rank,
                    bm25,
                    chunk: None,
                },
                LaneHit::Vector { rank, cosine, .. } => LaneHit::Vector {
                    rank,
                    cosine,
                    chunk: None,
                },
            };
            replaced += 1;
            if let Some(earlier) = frames.get(&(mind_key(&mind), id)) {
                let texts = stands_for.entry((mind_key(&mind), now_id)).or_default();
                if !texts.contains(&earlier.content) {
                    texts.push(earlier.content.clone());
                }
            }
            PendingHit {
                lane: hit.lane,
                hit: lane_hit,
            }
        };
        let kind = match hit.hit {
            LaneHit::Text { .. } => 0u8,
            LaneHit::Vector { .. } => 1,
            LaneHit::Listed { .. } => 2,
        };
        if seen.insert((hit.lane, mind_key(&mind), now_id, kind)) {
            kept.push((mind, now_id, hit));
        }
    }
    if replaced > 0 {
        notes.push(note(
            RecallNoteKind::CurrentVersions,
            format!(
                "{replaced} search hit(s) on replaced memories were answered by their current versions"
            ),
        ));
    }
    Ok(kept)
}

/// A quarantined memory (the detector found it hostile when it was
/// written, and its owner has not released it) is never recalled: it is
/// left out here, after the hits have been led to their current versions,
/// and the notes say how many and where to review them. The rest of the
/// recall stands (one planted memory no longer withholds every recall that
/// reaches it).
fn without_quarantined(
    pending: Vec<(Mind, u64, PendingHit)>,
    frames: &BTreeMap<(MindKey, u64), Frame>,
    notes: &mut Vec<RecallNote>,
) -> Vec<(Mind, u64, PendingHit)> {
    let mut dropped = BTreeSet::new();
    let kept: Vec<(Mind, u64, PendingHit)> = pending
        .into_iter()
        .filter(|(mind, id, _)| {
            let quarantined = frames
                .get(&(mind_key(mind), *id))
                .is_some_and(store::quarantined);
            if quarantined {
                dropped.insert((mind_key(mind), *id));
            }
            !quarantined
        })
        .collect();
    if !dropped.is_empty() {
        notes.push(note(RecallNoteKind::Quarantined, format!(
            "{} quarantined memor{} left out: the injection detector found {} hostile when {} written (review with `hive-mind review flagged`; release or forget)",
            dropped.len(),
            if dropped.len() == 1 { "y was" } else { "ies were" },
            if dropped.len() == 1 { "it" } else { "them" },
            if dropped.len() == 1 { "it was" } else { "they were" },
        )));
    }
    kept
}

/// Recall "as of" a time answers with what was valid then: a memory whose
/// event time is after it, or that had been replaced by then, is left out,
/// and so is one its owner archived (a merged original was believed then,
/// and stays).
fn valid_as_of(
    pending: Vec<(Mind, u64, PendingHit)>,
    frames: &BTreeMap<(MindKey, u64), Frame>,
    as_of: i64,
    notes: &mut Vec<RecallNote>,
) -> Vec<(Mind, u64, PendingHit)> {
    let before = pending.len();
    let kept: Vec<(Mind, u64, PendingHit)> = pending
        .into_iter()
        .filter(|(mind, id, _)| {
            frames.get(&(mind_key(mind), *id)).is_some_and(|frame| {
                frame.created_at <= as_of
                    && frame.valid_to.is_none_or(|until| until > as_of)
                    && (frame.status == MemoryStatus::Active || frame.merged_into.is_some())
            })
        })
        .collect();
    notes.push(note(
        RecallNoteKind::AsOf,
        format!(
            "as of {}: {} hit(s) on memories from later, or replaced by then, were left out",
            boundary::iso(as_of).unwrap_or_default(),
            before - kept.len()
        ),
    ));
    kept
}

/// The store filter of a lane in one mind.
fn lane_filter(spec: &hive_mind_core::recall::LaneSpec, mind: &Mind) -> store::SearchFilter {
    store::SearchFilter {
        minds: vec![mind.clone()],
        since: spec.since.clone(),
        until: spec.until.clone(),
        content_prefix: spec.content_prefix.clone(),
        min_importance: spec.min_importance.map(store::importance_out),
    }
}

fn rank_of(rank: usize) -> u32 {
    u32::try_from(rank).unwrap_or(u32::MAX)
}

/// A recall plan's lane, as the core names it.
type CoreLane = hive_mind_core::recall::Lane;

/// The searching lanes of `plan`, each with its store search over `mind`
/// (its filter and fetch size).
fn searches_of(
    plan: &hive_mind_core::recall::RecallPlan,
    mind: &Mind,
) -> (Vec<CoreLane>, Vec<store::FilteredSearch>) {
    plan.lanes
        .iter()
        .filter_map(|spec| match spec.fetch {
            Fetch::Search { limit } => Some((
                spec.lane,
                store::FilteredSearch {
                    filter: lane_filter(spec, mind),
                    limit,
                },
            )),
            Fetch::List { .. } => None,
        })
        .unzip()
}

/// The word half of one mind's lanes, recording the hits (and the frames a
/// listing returns whole). The searching lanes differ only in their
/// filters, so their full-text searches go to the store together — one
/// evaluation for all of them (`search-text-many`); each listing lane is
/// one `list-frames`.
fn gather_words(
    query: &str,
    plan: &hive_mind_core::recall::RecallPlan,
    mind: &Mind,
    frames: &mut BTreeMap<(MindKey, u64), Frame>,
    pending: &mut Vec<(Mind, u64, PendingHit)>,
) -> Result<(), store::StoreError> {
    let (lanes, searches) = searches_of(plan, mind);
    if !searches.is_empty() {
        let text = store::search_text_many(query, &searches)?;
        record_hits(&lanes, text, pending, |rank, hit| LaneHit::Text {
            rank,
            bm25: hit.score,
            chunk: hit.chunk,
        });
    }
    for spec in &plan.lanes {
        let Fetch::List {
            oldest_first,
            limit,
        } = spec.fetch
        else {
            continue;
        };
        let listed = store::list_frames(&lane_filter(spec, mind), oldest_first, limit)?;
        for (rank, frame) in listed.into_iter().enumerate() {
            pending.push((
                mind.clone(),
                frame.ref_.id,
                PendingHit {
                    lane: spec.lane,
                    hit: LaneHit::Listed {
                        rank: rank_of(rank),
                    },
                },
            ));
            frames.insert((mind_key(&frame.ref_.mind), frame.ref_.id), frame);
        }
    }
    Ok(())
}

/// The meaning half of one mind's searching lanes: one scan of its vector
/// index for all of them (`search-vector-many`), each with its own filter
/// and fetch size.
fn gather_meaning(
    readings: &[&[f32]],
    as_document: Option<(&[f32], calibration::FloorCalibration)>,
    plan: &hive_mind_core::recall::RecallPlan,
    mind: &Mind,
    pending: &mut Vec<(Mind, u64, PendingHit)>,
) -> Result<(), store::StoreError> {
    let (lanes, searches) = searches_of(plan, mind);
    if searches.is_empty() {
        return Ok(());
    }
    let mut nearest: Vec<Vec<store::Hit>> = Vec::new();
    for vector in readings {
        let found = store::search_vector_many(vector, &searches)?;
        nearest = if nearest.is_empty() {
            found
        } else {
            nearest
                .into_iter()
                .zip(found)
                .map(|(first, second)| nearer_of(first, second))
                .collect()
        };
    }
    if let Some((vector, floors)) = as_document {
        let found = store::search_vector_many(vector, &searches)?;
        nearest = nearest
            .into_iter()
            .zip(found)
            .map(|(asked, read)| with_document_reading(asked, read, floors))
            .collect();
    }
    record_hits(&lanes, nearest, pending, |rank, hit| LaneHit::Vector {
        rank,
        cosine: hit.score,
        chunk: hit.chunk,
    });
    Ok(())
}

/// One lane's hits for the question as asked (`asked`) and as read in its
/// owner's person (`read`), merged: each memory once, in the order of its
/// better cosine, as many as the longer list. The cosine kept is the
/// asked question's: a reading that names the owner comes closer to every
/// memory that names them ("What's Maya's shoe size?" to "Maya is
/// vegetarian."), so it may find a memory and rank it, but the floor and
/// the answer test weigh what was asked; a memory only the reading found
/// is given the asked question's lowest cosine in the lane, more than it
/// reached.
fn nearer_of(asked: Vec<store::Hit>, read: Vec<store::Hit>) -> Vec<store::Hit> {
    let keep = asked.len().max(read.len());
    let lowest_asked = asked
        .iter()
        .map(|hit| hit.score)
        .fold(f64::INFINITY, f64::min);
    // (order key, hit with the asked cosine)
    let mut merged: Vec<(f64, store::Hit)> =
        asked.into_iter().map(|hit| (hit.score, hit)).collect();
    for hit in read {
        match merged.iter_mut().find(|known| same_memory(&known.1, &hit)) {
            Some(known) => known.0 = known.0.max(hit.score),
            None => {
                let order = hit.score;
                let score = hit.score.min(lowest_asked);
                merged.push((order, store::Hit { score, ..hit }));
            }
        }
    }
    merged.sort_by(|a, b| b.0.total_cmp(&a.0));
    merged.truncate(keep);
    merged.into_iter().map(|(_, hit)| hit).collect()
}

/// One lane's hits for the question as asked (`asked`, embedded as a
/// query) and read as a document (`read`: no query instruction), merged.
///
/// A model with a query instruction (bge) reads "Which city am I based in
/// these days?" as a search for passages about cities; embedded as a
/// statement, the question comes closer to "I live in Lisbon", a statement
/// about the asker. The two readings' cosines are on different scales, so
/// the reading's is put on the asked one's first: the same share of the
/// way from its own calibrated floor to 1 ([`calibration::floors`]). Each
/// memory keeps the better of its two cosines, the floor and the answer
/// test read it, and the asked order stands: a memory only the reading
/// found comes after the asked hits, in the reading's order.
fn with_document_reading(
    asked: Vec<store::Hit>,
    read: Vec<store::Hit>,
    floors: calibration::FloorCalibration,
) -> Vec<store::Hit> {
    let mut merged = asked;
    for hit in read {
        let score = floors.on_asked_scale(hit.score);
        match merged.iter_mut().find(|known| same_memory(known, &hit)) {
            Some(known) => known.score = known.score.max(score),
            None => merged.push(store::Hit { score, ..hit }),
        }
    }
    merged
}

/// The question's cosine to a memory's `vector` as recall's floor reads a
/// hit's: the better of the question as asked and, where there is one, as
/// a document on the asked reading's scale ([`with_document_reading`]); the
/// owner's reading is not counted, as the floor does not count it. `None`
/// without a query vector.
fn question_cosine(
    asked: Option<&[f32]>,
    as_document: Option<&(Vec<f32>, calibration::FloorCalibration)>,
    vector: &[f32],
) -> Option<f64> {
    let asked = hive_mind_core::vectors::cosine(asked?, vector);
    let read = as_document.map(|(question, floors)| {
        floors.on_asked_scale(hive_mind_core::vectors::cosine(question, vector))
    });
    Some(read.map_or(asked, |read| asked.max(read)))
}

/// Whether two readings' hits are on the same memory (its chunk aside).
fn same_memory(a: &store::Hit, b: &store::Hit) -> bool {
    a.ref_.id == b.ref_.id && mind_key(&a.ref_.mind) == mind_key(&b.ref_.mind)
}

/// How many of each mind's newest memories tell whose mind it is.
const OWNER_SAMPLE: u32 = 200;

/// `query` read in the person of the owner its minds name
/// ([`hive_mind_core::recall::owner_name`] over their newest memories), or
/// `None` when the query has no first person (the minds are not listed
/// then) or they name none.
fn owners_reading(query: &str, minds: &[Mind]) -> Option<String> {
    if !hive_mind_core::recall::asks_in_first_person(query) {
        return None;
    }
    let mut contents: Vec<String> = Vec::new();
    for mind in minds {
        let filter = store::SearchFilter {
            minds: vec![mind.clone()],
            ..store::SearchFilter::default()
        };
        // A mind that cannot be listed (a workspace not made yet) names
        // no one.
        if let Ok(frames) = store::list_frames(&filter, false, OWNER_SAMPLE) {
            contents.extend(frames.into_iter().map(|frame| frame.content));
        }
    }
    let owner = hive_mind_core::recall::owner_name(
        contents
            .iter()
            .map(|content| hive_mind_core::strip_hm_prefix(content)),
    )?;
    hive_mind_core::recall::in_owners_person(query, &owner)
}

/// Record each lane's search hits, in rank order, as `hit` describes them.
fn record_hits(
    lanes: &[CoreLane],
    results: Vec<Vec<store::Hit>>,
    pending: &mut Vec<(Mind, u64, PendingHit)>,
    hit: impl Fn(u32, &store::Hit) -> LaneHit,
) {
    for (lane, hits) in lanes.iter().zip(results) {
        for (rank, found) in hits.iter().enumerate() {
            pending.push((
                found.ref_.mind.clone(),
                found.ref_.id,
                PendingHit {
                    lane: *lane,
                    hit: hit(rank_of(rank), found),
                },
            ));
        }
    }
}

/// The recall block of `ranked`, leaving out the lowest-ranked memories
/// until its text fits `max_tokens` (a memory is never cut in half), with a
/// note of how many were left out.
fn within_tokens(
    plan: &hive_mind_core::recall::RecallPlan,
    mut ranked: Vec<hive_mind_core::recall::RankedMemory>,
    max_tokens: Option<u32>,
    notes: &mut Vec<RecallNote>,
) -> hive_mind_core::recall::RecallOutput {
    let mut output = assemble_recall(plan, ranked.clone());
    let Some(budget) = max_tokens.map(u64::from) else {
        return output;
    };
    let mut left_out = 0usize;
    while !ranked.is_empty() && hive_mind_core::tokens::estimate_tokens(&output.text) > budget {
        ranked.pop();
        left_out += 1;
        output = assemble_recall(plan, ranked.clone());
    }
    if left_out > 0 {
        notes.push(note(
            RecallNoteKind::TokenBudget,
            format!(
                "{left_out} lower-ranked memories were left out to keep the block within {budget} tokens"
            ),
        ));
    }
    output
}

/// A recall note of `kind`.
fn note(kind: RecallNoteKind, text: impl Into<String>) -> RecallNote {
    RecallNote {
        kind,
        text: text.into(),
    }
}

/// The note of a recall whose question could not be embedded.
fn unembedded_query_note(why: &str) -> RecallNote {
    note(
        RecallNoteKind::QueryNotEmbedded,
        format!("the question could not be embedded ({why}): only keyword matches were searched"),
    )
}

/// The identity and awareness context of the minds a recall reads: the
/// identity is the first of `minds` (active workspace first) that has one
/// set, so a recall that does not read the personal mind never shows the
/// personal identity; the awareness items are those of every mind read.
fn system_context(minds: &[Mind], notes: &mut Vec<RecallNote>) -> Result<String, Error> {
    let mut identity = None;
    for mind in minds {
        match store::get_identity(mind) {
            Ok(Some(found)) => {
                identity = Some(found);
                break;
            }
            Ok(None) | Err(store::StoreError::MindNotFound(_)) => {}
            Err(error) => return Err(store_error(error)),
        }
    }
    let identity = identity.map(|identity| IdentityContext {
        name: identity.name,
        role: identity.role,
        personality: identity.personality,
        capabilities: identity.capabilities,
        system_prompt: identity.system_prompt,
    });
    let mut awareness = Vec::new();
    for mind in minds {
        match store::list_awareness(mind) {
            Ok(items) => awareness.extend(items.into_iter().map(|item| AwarenessContext {
                category: item.category,
                content: item.content,
                priority: item.priority,
            })),
            Err(store::StoreError::MindNotFound(_)) => {}
            Err(error) => return Err(store_error(error)),
        }
    }
    let context = build_system_context(identity.as_ref(), &awareness);
    notes.extend(
        context
            .withheld
            .map(|why| note(RecallNoteKind::ContextWithheld, why)),
    );
    Ok(context.text)
}

/// A core lane as the WIT enum.
fn lane_out(lane: hive_mind_core::recall::Lane) -> WitLane {
    use hive_mind_core::recall::Lane;
    match lane {
        Lane::Semantic => WitLane::Semantic,
        Lane::DateWindow => WitLane::DateWindow,
        Lane::CatchUp => WitLane::CatchUp,
        Lane::Importance => WitLane::Importance,
        Lane::RawDetail => WitLane::RawDetail,
        Lane::Profile => WitLane::Profile,
        Lane::Facts => WitLane::Facts,
        Lane::Events => WitLane::Events,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: u64, score: f64) -> store::Hit {
        store::Hit {
            ref_: FrameRef {
                mind: Mind::Personal,
                id,
            },
            score,
            chunk: None,
        }
    }

    fn ids_and_scores(hits: &[store::Hit]) -> Vec<(u64, f64)> {
        hits.iter().map(|hit| (hit.ref_.id, hit.score)).collect()
    }

    #[test]
    fn a_readings_hits_are_ordered_by_the_better_cosine_and_weighed_by_the_asked_one() {
        // Asked: 1 at 0.60, 2 at 0.48. Read in the owner's person: 2 at
        // 0.75, 3 at 0.70 (not found as asked).
        let merged = nearer_of(
            vec![hit(1, 0.60), hit(2, 0.48)],
            vec![hit(2, 0.75), hit(3, 0.70)],
        );
        // 2 leads on its reading, keeping its asked cosine; 3, found only
        // by the reading, is given the asked lane's lowest, 0.48; as many
        // as the longer list.
        assert_eq!(ids_and_scores(&merged), vec![(2, 0.48), (3, 0.48)]);
        // Nothing read: the asked hits as they were.
        let asked = nearer_of(vec![hit(1, 0.60), hit(2, 0.48)], Vec::new());
        assert_eq!(ids_and_scores(&asked), vec![(1, 0.60), (2, 0.48)]);
    }

    #[test]
    fn a_question_read_as_a_document_counts_on_the_asked_scale_and_keeps_the_asked_order() {
        // Asked floor 0.50, read-as-document floor 0.60: a reading's 0.80
        // is half-way from its floor to 1, so 0.75 on the asked scale.
        let floors = calibration::FloorCalibration {
            asked: 0.5,
            as_document: 0.6,
        };
        let merged = with_document_reading(
            vec![hit(1, 0.70), hit(2, 0.55)],
            vec![hit(2, 0.80), hit(3, 0.68), hit(1, 0.62)],
            floors,
        );
        let rounded: Vec<(u64, f64)> = ids_and_scores(&merged)
            .into_iter()
            .map(|(id, score)| (id, (score * 1000.0).round() / 1000.0))
            .collect();
        // 1 keeps its better asked cosine; 2 rises to its reading's; 3,
        // found only as a document, comes after the asked hits.
        assert_eq!(rounded, vec![(1, 0.7), (2, 0.75), (3, 0.6)]);
        // Nothing read: the asked hits as they were.
        let asked = with_document_reading(vec![hit(1, 0.70)], Vec::new(), floors);
        assert_eq!(ids_and_scores(&asked), vec![(1, 0.70)]);
    }
}
