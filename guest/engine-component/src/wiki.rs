//! `wiki`: the pages of a mind, compiled when read.
//!
//! A page is gathered through the knowledge graph's entity–memory links
//! (every write path links the entities a memory names: save, cognify,
//! harvest and imports), so a write touches the pages of exactly the
//! entities it names, and a forgotten memory (whose links go with it) is
//! gone from every page at once. The assembly and the Markdown are
//! [`hive_mind_core::wiki`]'s; this module reads the store:
//!
//! - **current** statements: the entity's memories that are valid now,
//!   active, not merged away and not quarantined, newest first;
//! - **history**: the others that a newer statement or a correction
//!   replaced (`superseded-by`), newest first;
//! - **conflicts**: two current statements the engine linked when the
//!   newer was written, which [`judge_statements`] still reads as a possible
//!   conflict (the links also join merely similar memories);
//! - **related**: the entity's relations, to the other entities' pages.
//!
//! The `you` page is the identity the mind holds and the owner's own
//! statements (memories that speak in the first person or of "the user").

use hive_mind_core::bounds;
use hive_mind_core::change::{ChangeThresholds, Verdict, judge_statements};
use hive_mind_core::recall::display_text;
use hive_mind_core::topics::{
    COHERENCE_SAMPLE, Topic, TopicMemory, coherent_topics, mentions, recurring_topics, topic_title,
};
use hive_mind_core::vectors::mean_pairwise_cosine;
use hive_mind_core::wiki::{
    LinkLine, MAX_SYNTHESIS_STATEMENTS, MIN_SYNTHESIS_STATEMENTS, PageAddress, PageText,
    SYNTHESIS_MAX_TOKENS, StatementLine, YOU_SLUG, accept_synthesis, entity_slug, is_stale,
    parse_slug, render_markdown, synthesis_fingerprint, synthesis_prompt, topic_slug,
};
use hive_mind_store::{self as native};

use crate::boundary;
use crate::exports::hive::mind::memory::{
    CleanupCandidate, CleanupOptions, CleanupReason, Error as MemoryError,
};
use crate::exports::hive::mind::wiki::{
    Error, HealthIssue, HealthKind, HealthReport, Page, PageConflict, PageKind, PageLink,
    PageSummary, PageSynthesis,
};
use crate::hive::mind::llm;
use crate::hive::mind::types::{FrameRef, Mind};
use crate::store::{self, StoreError};

/// The most pages, search results or findings one call returns.
const MAX_LIMIT: u32 = 1000;

/// The most memories one page lists (current and history together).
const PAGE_MEMORIES: usize = 200;

/// The most memories read for the owner's page.
const OWNER_MEMORIES: u32 = 100;

/// The most memories without an entity a health check reads (and counts).
const ORPHANS_READ: u32 = 10_000;

/// The most current memories topic detection reads (the newest).
const TOPIC_MEMORIES: u32 = 10_000;

/// The most topic pages a listing holds.
const MAX_TOPICS: usize = 50;

/// The memories, taken across the mind, whose mean cosine is the mind's own
/// (the coherence a topic must pass).
const BASELINE_SAMPLE: usize = 64;

/// The most related entities a topic page links.
const TOPIC_LINKS: usize = 8;

/// The entities whose pages a health check reads.
const HEALTH_ENTITIES: u32 = 500;

type Result<T> = std::result::Result<T, Error>;

fn storage(error: StoreError) -> Error {
    Error::Storage(store::storage_error(&error))
}

fn limit_of(limit: u32) -> Result<u32> {
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Error::InvalidArgument(format!(
            "limit {limit} is out of range: 1 to {MAX_LIMIT}"
        )));
    }
    Ok(limit)
}

/// Whether a memory speaks of the mind's owner: the first person, or "the
/// user" as an agent writes it.
fn about_owner(text: &str) -> bool {
    let lower = text.trim_start().to_lowercase();
    let first = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .next()
        .unwrap_or("");
    matches!(
        first,
        "i" | "i'm"
            | "i’m"
            | "i've"
            | "i’ve"
            | "i'd"
            | "i’d"
            | "i'll"
            | "i’ll"
            | "my"
            | "me"
            | "user"
            | "user's"
            | "user’s"
    ) || lower.starts_with("the user")
}

/// A memory's day (`YYYY-MM-DD`).
fn day(frame: &native::Frame) -> String {
    frame.created_at.chars().take(10).collect()
}

fn frame_ref(mind: &Mind, id: u64) -> FrameRef {
    FrameRef {
        mind: mind.clone(),
        id,
    }
}

/// Whether a memory is part of an imported record, kept verbatim: a
/// conversation turn or a document section.
fn is_record(frame: &native::Frame) -> bool {
    frame.content.starts_with(hive_mind_core::RAW_TURN_TAG)
        || serde_json::from_str::<serde_json::Value>(&frame.metadata)
            .is_ok_and(|metadata| metadata.get("doc").is_some())
}

/// A page's memories split into current and history, with the possible
/// conflicts among the current ones.
struct Statements {
    current: Vec<native::Frame>,
    history: Vec<native::Frame>,
    conflicts: Vec<(u64, u64)>,
}

fn statements(
    store: &native::MindStore,
    thresholds: Option<ChangeThresholds>,
    frames: Vec<native::Frame>,
) -> native::StoreResult<Statements> {
    let (mut current, mut history): (Vec<_>, Vec<_>) =
        frames.into_iter().partition(native::Frame::stands);
    history.retain(|frame| frame.superseded_by.is_some() || frame.valid_to.is_some());
    current.truncate(PAGE_MEMORIES);
    history.truncate(PAGE_MEMORIES.saturating_sub(current.len()));
    let ids: Vec<u64> = current.iter().map(|frame| frame.frame_ref.id).collect();
    let mut conflicts = Vec::new();
    if let Some(thresholds) = thresholds {
        // A pair the owner decided on is no longer in question.
        let decided = store.decided_pairs(&ids)?;
        let links = store.links_among(&ids)?;
        // Only the linked memories' vectors: most pages have no link.
        let linked: std::collections::BTreeSet<u64> =
            links.iter().flat_map(|&(a, b, _)| [a, b]).collect();
        let linked: Vec<u64> = linked.into_iter().collect();
        let vectors: std::collections::HashMap<u64, Vec<f32>> =
            store.frame_vectors(&linked)?.into_iter().collect();
        for (a, b, _similarity) in links {
            let (Some(first), Some(second)) = (
                current.iter().find(|frame| frame.frame_ref.id == a),
                current.iter().find(|frame| frame.frame_ref.id == b),
            ) else {
                continue;
            };
            // The verbatim record (a conversation's turns, a document's
            // sections) is not a claim to reconcile: a journal's weeks
            // differ without disagreeing.
            if is_record(first) || is_record(second) {
                continue;
            }
            let (older, newer) =
                if (first.created_at.as_str(), a) <= (second.created_at.as_str(), b) {
                    (first, second)
                } else {
                    (second, first)
                };
            let (Some(older_vector), Some(newer_vector)) = (
                vectors.get(&older.frame_ref.id),
                vectors.get(&newer.frame_ref.id),
            ) else {
                continue;
            };
            if !decided.contains(&(older.frame_ref.id, newer.frame_ref.id))
                && judge_statements(
                    (&older.content, older_vector),
                    (&newer.content, newer_vector),
                    thresholds,
                ) == Verdict::PossibleConflict
            {
                conflicts.push((older.frame_ref.id, newer.frame_ref.id));
            }
        }
    }
    Ok(Statements {
        current,
        history,
        conflicts,
    })
}

fn line(mind: &Mind, frame: &native::Frame, conflicts: &[(u64, u64)]) -> StatementLine {
    let id = frame.frame_ref.id;
    StatementLine {
        reference: store::reference(mind, id),
        text: display_text(&frame.content, None),
        day: day(frame),
        replaced_by: frame.superseded_by.map(|by| store::reference(mind, by)),
        conflicts: conflicts
            .iter()
            .filter_map(|&(older, newer)| {
                if older == id {
                    Some(newer)
                } else if newer == id {
                    Some(older)
                } else {
                    None
                }
            })
            .map(|other| store::reference(mind, other))
            .collect(),
    }
}

fn summary(
    slug: String,
    title: String,
    kind: PageKind,
    entity_type: String,
    statements: &Statements,
) -> PageSummary {
    let conflicted: std::collections::BTreeSet<u64> = statements
        .conflicts
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .collect();
    PageSummary {
        slug,
        title,
        kind,
        entity_type,
        statements: u32::try_from(statements.current.len()).unwrap_or(u32::MAX),
        conflicts: u32::try_from(conflicted.len()).unwrap_or(u32::MAX),
        updated_at: statements
            .current
            .iter()
            .map(|frame| boundary::millis(&frame.created_at))
            .max(),
    }
}

/// The owner's current statements, newest first.
fn owner_frames(store: &native::MindStore) -> native::StoreResult<Vec<native::Frame>> {
    let mut frames = store.memories_containing("", OWNER_MEMORIES * 4)?;
    frames.retain(|frame| {
        !frame.content.starts_with(hive_mind_core::RAW_TURN_TAG)
            && about_owner(&display_text(&frame.content, None))
    });
    frames.truncate(OWNER_MEMORIES as usize);
    Ok(frames)
}

fn identity_lines(mind: &Mind) -> Vec<String> {
    let Ok(Some(identity)) = store::get_identity(mind) else {
        return Vec::new();
    };
    [
        ("Name", identity.name),
        ("Role", identity.role),
        ("Personality", identity.personality),
        ("Standing instructions", identity.system_prompt),
    ]
    .into_iter()
    .filter(|(_, value)| !value.trim().is_empty())
    .map(|(label, value)| format!("{label}: {}", value.trim()))
    .collect()
}

fn you_page(
    store: &native::MindStore,
    thresholds: Option<ChangeThresholds>,
) -> native::StoreResult<(PageSummary, Statements)> {
    let statements = statements(store, thresholds, owner_frames(store)?)?;
    let summary = summary(
        YOU_SLUG.to_string(),
        "You".to_string(),
        PageKind::You,
        String::new(),
        &statements,
    );
    Ok((summary, statements))
}

fn entity_summary(
    store: &native::MindStore,
    thresholds: Option<ChangeThresholds>,
    entity: &native::graph::Entity,
) -> native::StoreResult<(PageSummary, Statements)> {
    let statements = statements(store, thresholds, store.entity_memories(entity.id)?)?;
    let summary = summary(
        entity_slug(entity.id),
        entity.name.clone(),
        PageKind::Entity,
        entity.entity_type.clone(),
        &statements,
    );
    Ok((summary, statements))
}

/// The recurring topics of a mind's current memories
/// ([`hive_mind_core::topics`]); the words of its entities' names are
/// never topics (those have their pages).
fn topics(store: &native::MindStore) -> native::StoreResult<Vec<Topic>> {
    // Current memories only: a quarantined one is not current.
    let rows = store.current_texts(TOPIC_MEMORIES)?;
    let texts: Vec<(u64, String, String)> = rows
        .into_iter()
        .map(|(id, content, created_at)| (id, display_text(&content, None), created_at))
        .collect();
    let memories: Vec<TopicMemory<'_>> = texts
        .iter()
        .map(|(id, text, created_at)| TopicMemory {
            id: *id,
            text,
            day: created_at.get(..10).unwrap_or(created_at),
        })
        .collect();
    let mut exclude = std::collections::BTreeSet::new();
    for cited in store.cited_entities(HEALTH_ENTITIES)? {
        if let Some(entity) = store.entity(cited.id)? {
            for word in entity.name.split(|c: char| !c.is_alphanumeric()) {
                exclude.insert(word.to_lowercase());
                if let Some(key) = hive_mind_core::topics::topic_key(word) {
                    exclude.insert(key);
                }
            }
        }
    }
    let candidates = recurring_topics(&memories, &exclude, MAX_TOPICS * 2);
    // The embeddings: each candidate's first memories, and memories taken
    // evenly across the mind for its own coherence.
    let step = (memories.len() / BASELINE_SAMPLE).max(1);
    let baseline_ids: Vec<u64> = memories
        .iter()
        .step_by(step)
        .take(BASELINE_SAMPLE)
        .map(|memory| memory.id)
        .collect();
    let mut wanted: std::collections::BTreeSet<u64> = baseline_ids.iter().copied().collect();
    for topic in &candidates {
        wanted.extend(topic.memories.iter().take(COHERENCE_SAMPLE));
    }
    let wanted: Vec<u64> = wanted.into_iter().collect();
    let vectors: std::collections::BTreeMap<u64, Vec<f32>> =
        store.frame_vectors(&wanted)?.into_iter().collect();
    let sample: Vec<&[f32]> = baseline_ids
        .iter()
        .filter_map(|id| vectors.get(id).map(Vec::as_slice))
        .collect();
    let baseline = mean_pairwise_cosine(&sample);
    Ok(coherent_topics(
        candidates,
        |id| vectors.get(&id).map(Vec::as_slice),
        baseline,
        MAX_TOPICS,
    ))
}

/// A topic's current memories, newest first.
fn topic_frames(store: &native::MindStore, key: &str) -> native::StoreResult<Vec<native::Frame>> {
    let mut frames = store.memories_containing(key, PAGE_MEMORIES as u32 * 4)?;
    frames
        .retain(|frame| !frame.quarantined() && mentions(&display_text(&frame.content, None), key));
    Ok(frames)
}

/// A detected topic's listing entry, read through the memories detection
/// found (current ones, newest first), not searched again.
fn topic_summary(
    store: &native::MindStore,
    thresholds: Option<ChangeThresholds>,
    topic: Topic,
) -> native::StoreResult<PageSummary> {
    let frames = store.get_frames(&topic.memories)?;
    let statements = statements(store, thresholds, frames)?;
    Ok(summary(
        topic_slug(&topic.key),
        topic.title,
        PageKind::Topic,
        String::new(),
        &statements,
    ))
}

/// The pages of a mind, `you` first, then the most cited entities, then
/// the topics.
pub fn list_pages(mind: Mind, limit: u32) -> Result<Vec<PageSummary>> {
    let limit = limit_of(limit)?;
    // Read before the store is borrowed: the calibration reads it too.
    let thresholds = crate::change::thresholds();
    store::read(&mind, |store| {
        let mut pages = vec![you_page(store, thresholds)?.0];
        // A mind of many entities still shows its themes: the topics keep
        // up to a quarter of the listing.
        let mut topics = topics(store)?;
        topics.truncate((limit as usize / 4).max(1));
        let entities = limit
            .saturating_sub(1)
            .saturating_sub(u32::try_from(topics.len()).unwrap_or(u32::MAX));
        for cited in store.cited_entities(entities)? {
            if let Some(entity) = store.entity(cited.id)? {
                pages.push(entity_summary(store, thresholds, &entity)?.0);
            }
        }
        for topic in topics {
            pages.push(topic_summary(store, thresholds, topic)?);
        }
        pages.truncate(limit as usize);
        Ok(pages)
    })
    .map_err(storage)
}

/// One page, whole.
pub fn get_page(mind: Mind, slug: String) -> Result<Page> {
    let address = parse_slug(&slug).map_err(|error| match error {
        hive_mind_core::LogicError::InvalidArgument(why) => Error::InvalidArgument(why),
    })?;
    // Read before the store is borrowed: both read it too.
    let thresholds = crate::change::thresholds();
    let identity = identity_lines(&mind);
    store::read(&mind, |store| {
        let (summary, statements, about, related) = match address {
            PageAddress::You => {
                let (summary, statements) = you_page(store, thresholds)?;
                (summary, statements, identity, Vec::new())
            }
            PageAddress::Entity(id) => {
                let Some(entity) = store.entity(id)?.filter(|entity| entity.valid_to.is_none())
                else {
                    return Ok(Err(Error::NotFound(format!(
                        "no page {}: no such entity in this mind",
                        entity_slug(id)
                    ))));
                };
                let (summary, statements) = entity_summary(store, thresholds, &entity)?;
                let mut related = Vec::new();
                for relation in store.relations(id)? {
                    let (other, outgoing) = if relation.subject == id {
                        (relation.object, true)
                    } else {
                        (relation.subject, false)
                    };
                    if other == id {
                        continue;
                    }
                    if let Some(entity) = store.entity(other)?.filter(|e| e.valid_to.is_none()) {
                        related.push(PageLink {
                            slug: entity_slug(other),
                            title: entity.name,
                            relation: relation.relation,
                            outgoing,
                        });
                    }
                }
                (summary, statements, Vec::new(), related)
            }
            PageAddress::Topic(key) => {
                let frames = topic_frames(store, &key)?;
                let texts: Vec<String> = frames
                    .iter()
                    .map(|frame| display_text(&frame.content, None))
                    .collect();
                let title = topic_title(texts.iter().map(String::as_str), &key);
                let statements = statements(store, thresholds, frames)?;
                let summary = summary(
                    topic_slug(&key),
                    title,
                    PageKind::Topic,
                    String::new(),
                    &statements,
                );
                if statements.current.is_empty() {
                    return Ok(Err(Error::NotFound(format!(
                        "no page {}: no current memory says {key:?}",
                        topic_slug(&key)
                    ))));
                }
                // The entities its memories name, the most named first.
                let mut named: std::collections::BTreeMap<u64, usize> = Default::default();
                for frame in &statements.current {
                    for id in store.frame_entities(frame.frame_ref.id)? {
                        *named.entry(id).or_default() += 1;
                    }
                }
                let mut named: Vec<(u64, usize)> = named.into_iter().collect();
                named.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let mut related = Vec::new();
                for (id, _) in named {
                    if related.len() >= TOPIC_LINKS {
                        break;
                    }
                    if let Some(entity) = store.entity(id)?.filter(|e| e.valid_to.is_none()) {
                        related.push(PageLink {
                            slug: entity_slug(id),
                            title: entity.name,
                            relation: "mentions".to_string(),
                            outgoing: true,
                        });
                    }
                }
                (summary, statements, Vec::new(), related)
            }
        };
        let subtitle = match summary.kind {
            PageKind::You => format!("{} statement(s) of yours", summary.statements),
            PageKind::Entity => format!(
                "{} · {} statement(s)",
                summary.entity_type, summary.statements
            ),
            PageKind::Topic => format!(
                "topic · said in {} current memor{}",
                summary.statements,
                if summary.statements == 1 { "y" } else { "ies" }
            ),
        };
        let text = PageText {
            title: summary.title.clone(),
            synthesis: None,
            subtitle,
            about: about.clone(),
            current: statements
                .current
                .iter()
                .map(|frame| line(&mind, frame, &statements.conflicts))
                .collect(),
            history: statements
                .history
                .iter()
                .map(|frame| line(&mind, frame, &[]))
                .collect(),
            related: related
                .iter()
                .map(|link| LinkLine {
                    slug: link.slug.clone(),
                    title: link.title.clone(),
                    relation: link.relation.clone(),
                    outgoing: link.outgoing,
                })
                .collect(),
        };
        Ok(Ok((
            Page {
                markdown: render_markdown(&text),
                synthesis: None,
                summary,
                about,
                current: statements.current.iter().map(store::frame_out).collect(),
                history: statements.history.iter().map(store::frame_out).collect(),
                conflicts: statements
                    .conflicts
                    .iter()
                    .map(|&(older, newer)| PageConflict {
                        older: frame_ref(&mind, older),
                        newer: frame_ref(&mind, newer),
                    })
                    .collect(),
                related,
            },
            text,
        )))
    })
    .map_err(storage)?
    .map(|(mut page, mut text)| {
        // Outside the store's borrow: the synthesis reads and writes it.
        if let Some(synthesis) = synthesis(&mind, &page) {
            text.synthesis = Some(synthesis.text.clone());
            page.markdown = render_markdown(&text);
            page.synthesis = Some(synthesis);
        }
        page
    })
}

/// A page's synthesis: the stored one while the page's statements are the
/// ones it was written from, else a new one from the host's language
/// model ([`hive_mind_core::wiki::accept_synthesis`] keeps what cites the
/// page, the detector drops a hostile answer), kept and accounted. None
/// without a model, on a model's failure (the page is whole without it),
/// or for a page of too few statements.
fn synthesis(mind: &Mind, page: &Page) -> Option<PageSynthesis> {
    let statements: Vec<(String, String, String)> = page
        .current
        .iter()
        .take(MAX_SYNTHESIS_STATEMENTS)
        .map(|frame| {
            (
                store::reference(mind, frame.ref_.id),
                boundary::iso(frame.created_at)
                    .ok()
                    .and_then(|iso| iso.get(..10).map(str::to_string))
                    .unwrap_or_default(),
                frame.text.clone(),
            )
        })
        .collect();
    if statements.len() < MIN_SYNTHESIS_STATEMENTS {
        return None;
    }
    let slug = page.summary.slug.clone();
    let keyed: Vec<(String, String)> = statements
        .iter()
        .map(|(reference, _, text)| (reference.clone(), text.clone()))
        .collect();
    let fingerprint = synthesis_fingerprint(&slug, &keyed);
    let out = |stored: &native::wiki::Synthesis| PageSynthesis {
        text: stored.text.clone(),
        sources: stored
            .sources
            .iter()
            .map(|&id| frame_ref(mind, id))
            .collect(),
        model: stored.model.clone(),
        written_at: boundary::millis(&stored.written_at),
    };
    if let Ok(Some(stored)) = store::read(mind, |store| store.synthesis(&slug))
        && stored.fingerprint == fingerprint
    {
        return Some(out(&stored));
    }
    let (system, prompt) = synthesis_prompt(&page.summary.title, &statements);
    let completion = llm::complete(&llm::CompletionRequest {
        tier: llm::ModelTier::Capable,
        system,
        prompt,
        max_tokens: SYNTHESIS_MAX_TOKENS,
        json: false,
    })
    .ok()?;
    if hive_mind_core::screen(&completion.text).hostile {
        return None;
    }
    let allowed: Vec<String> = keyed.into_iter().map(|(reference, _)| reference).collect();
    let (text, cited) = accept_synthesis(&completion.text, &allowed)?;
    let sources: Vec<u64> = cited
        .iter()
        .filter_map(|cited| {
            page.current
                .iter()
                .find(|frame| store::reference(mind, frame.ref_.id) == *cited)
                .map(|frame| frame.ref_.id)
        })
        .collect();
    let stored = native::wiki::Synthesis {
        slug,
        fingerprint,
        text,
        sources,
        model: completion.model.clone(),
        written_at: native::clock::now(),
    };
    let kept = store::write(mind, |store| {
        store.save_synthesis(&stored)?;
        store.append_ai_interaction(&native::audit::AiInteraction {
            provider: completion.provider.clone(),
            model: completion.model.clone(),
            purpose: "wiki-synthesis".to_string(),
            input_tokens: u64::from(completion.usage.input_tokens),
            output_tokens: u64::from(completion.usage.output_tokens),
            detail: serde_json::json!({ "page": stored.slug }).to_string(),
        })?;
        Ok(())
    });
    kept.is_ok().then(|| out(&stored))
}

/// Pages whose title or current statements contain a text.
pub fn search_wiki(mind: Mind, text: String, limit: u32) -> Result<Vec<PageSummary>> {
    bounds::SEARCH
        .check(&text)
        .map_err(Error::InvalidArgument)?;
    let limit = limit_of(limit)?;
    let text = text.trim().to_string();
    if text.is_empty() {
        return Err(Error::InvalidArgument(
            "the search text is empty: name what to look for (list the pages to see them all)"
                .to_string(),
        ));
    }
    let thresholds = crate::change::thresholds();
    store::read(&mind, |store| {
        let mut pages: Vec<PageSummary> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        // Titles first.
        for entity in store.search_entities(&text, limit)? {
            if seen.insert(entity.id) {
                let (summary, _) = entity_summary(store, thresholds, &entity)?;
                if summary.statements > 0 {
                    pages.push(summary);
                }
            }
        }
        // Topics whose word it names.
        let lower = text.to_lowercase();
        for topic in topics(store)? {
            if pages.len() < limit as usize
                && (topic.key.contains(&lower) || topic.title.to_lowercase().contains(&lower))
            {
                pages.push(topic_summary(store, thresholds, topic)?);
            }
        }
        // Then the pages of the memories that say it.
        for frame in store.memories_containing(&text, limit.saturating_mul(4))? {
            if pages.len() >= limit as usize {
                break;
            }
            for id in store.frame_entities(frame.frame_ref.id)? {
                if pages.len() < limit as usize
                    && seen.insert(id)
                    && let Some(entity) = store.entity(id)?.filter(|e| e.valid_to.is_none())
                {
                    pages.push(entity_summary(store, thresholds, &entity)?.0);
                }
            }
        }
        pages.truncate(limit as usize);
        Ok(pages)
    })
    .map_err(storage)
}

/// A mind's health report.
pub fn health(mind: Mind, limit: u32) -> Result<HealthReport> {
    let limit = limit_of(limit)? as usize;
    let now = boundary::millis(&native::clock::now());
    let thresholds = crate::change::thresholds();
    // Read before the store is borrowed below: cleanup reads it itself.
    let duplicates = crate::cleanup::cleanup_frames(CleanupOptions {
        mind: mind.clone(),
        apply: false,
    })
    .map_err(|error| match error {
        MemoryError::Storage(error) => Error::Storage(error),
        MemoryError::InvalidArgument(why) | MemoryError::Embedder(why) | MemoryError::Llm(why) => {
            Error::InvalidArgument(why)
        }
    })?;
    store::read(&mind, |store| {
        let mut counts = [0u32; 6];
        let mut issues: Vec<HealthIssue> = Vec::new();
        let mut stale: Vec<HealthIssue> = Vec::new();
        let mut stale_seen = std::collections::BTreeSet::new();
        for cited in store.cited_entities(HEALTH_ENTITIES)? {
            let Some(entity) = store.entity(cited.id)? else {
                continue;
            };
            let (summary, statements) = entity_summary(store, thresholds, &entity)?;
            for &(older, newer) in &statements.conflicts {
                counts[0] += 1;
                let text_of = |id: u64| {
                    statements
                        .current
                        .iter()
                        .find(|frame| frame.frame_ref.id == id)
                        .map(|frame| display_text(&frame.content, None))
                        .unwrap_or_default()
                };
                issues.push(HealthIssue {
                    kind: HealthKind::Conflict,
                    text: format!(
                        "{}: \"{}\" ({}) and the newer \"{}\" ({}) may disagree; correct or forget the one that is wrong",
                        entity.name,
                        text_of(older),
                        store::reference(&mind, older),
                        text_of(newer),
                        store::reference(&mind, newer)
                    ),
                    memories: vec![frame_ref(&mind, older), frame_ref(&mind, newer)],
                    page: Some(summary.slug.clone()),
                });
            }
            for frame in &statements.current {
                let created = boundary::millis(&frame.created_at);
                if is_stale(created, frame.access_count > 0, now)
                    && stale_seen.insert(frame.frame_ref.id)
                {
                    counts[1] += 1;
                    stale.push(HealthIssue {
                        kind: HealthKind::Stale,
                        text: format!(
                            "\"{}\" ({}, {}) is over a year old and was never recalled: still true?",
                            display_text(&frame.content, None),
                            store::reference(&mind, frame.frame_ref.id),
                            day(frame)
                        ),
                        memories: vec![frame_ref(&mind, frame.frame_ref.id)],
                        page: Some(summary.slug.clone()),
                    });
                }
            }
        }
        issues.extend(stale);
        // The owner's own statements are cited by the `you` page.
        let (uncited, _) = store.uncited_memories(ORPHANS_READ)?;
        let orphans: Vec<&native::Frame> = uncited
            .iter()
            .filter(|frame| !about_owner(&display_text(&frame.content, None)))
            .collect();
        counts[2] = u32::try_from(orphans.len()).unwrap_or(u32::MAX);
        for frame in orphans.into_iter().take(limit) {
            issues.push(HealthIssue {
                kind: HealthKind::Orphan,
                text: format!(
                    "\"{}\" ({}) names no person, place or thing, so no page cites it",
                    display_text(&frame.content, None),
                    store::reference(&mind, frame.frame_ref.id)
                ),
                memories: vec![frame_ref(&mind, frame.frame_ref.id)],
                page: None,
            });
        }
        let mut after = 0;
        loop {
            let held = store.held_back_after(after, 200)?;
            let Some(last) = held.last() else {
                break;
            };
            after = last.frame_ref.id;
            for frame in held.iter().filter(|frame| frame.quarantined()) {
                counts[3] += 1;
                issues.push(HealthIssue {
                    kind: HealthKind::Quarantined,
                    text: format!(
                        "{} was quarantined when written and waits for review (release or forget it)",
                        store::reference(&mind, frame.frame_ref.id)
                    ),
                    memories: vec![frame_ref(&mind, frame.frame_ref.id)],
                    page: None,
                });
            }
        }
        let (replaced, pairs) = store.undecided_replacements(u32::try_from(limit).unwrap_or(u32::MAX))?;
        counts[4] = u32::try_from(replaced).unwrap_or(u32::MAX);
        for (older, newer) in pairs {
            issues.push(HealthIssue {
                kind: HealthKind::Replaced,
                text: format!(
                    "\"{}\" ({}, {}) was replaced on the engine's own reading by \"{}\" ({}, {}): confirm, or say both stand",
                    display_text(&older.content, None),
                    store::reference(&mind, older.frame_ref.id),
                    day(&older),
                    display_text(&newer.content, None),
                    store::reference(&mind, newer.frame_ref.id),
                    day(&newer)
                ),
                memories: vec![
                    frame_ref(&mind, older.frame_ref.id),
                    frame_ref(&mind, newer.frame_ref.id),
                ],
                page: None,
            });
        }
        let groups: Vec<&CleanupCandidate> = duplicates
            .candidates
            .iter()
            .filter(|candidate| candidate.kept.is_some())
            .collect();
        counts[5] = u32::try_from(groups.len()).unwrap_or(u32::MAX);
        for candidate in groups.into_iter().take(limit) {
            let Some(kept) = &candidate.kept else {
                continue;
            };
            issues.push(HealthIssue {
                kind: HealthKind::Duplicate,
                text: format!(
                    "\"{}\" ({}) says {} what {} says: merge them, or forget one",
                    display_text(&candidate.content, None),
                    store::reference(&mind, candidate.frame.id),
                    if matches!(candidate.reason, CleanupReason::Duplicate) {
                        "again"
                    } else {
                        "nearly"
                    },
                    store::reference(&mind, kept.id)
                ),
                memories: vec![candidate.frame.clone(), kept.clone()],
                page: None,
            });
        }
        issues.truncate(limit);
        Ok(HealthReport {
            counts: counts.to_vec(),
            issues,
        })
    })
    .map_err(storage)
}
