//! `admin`: looking after the minds — the operations a host's operator
//! surfaces need (status, check, reindex, identity, awareness, workspaces,
//! entity cleanup), implemented over the same store as `memory`, so every
//! host of the component offers them on the same files.

use hive_mind_core::bounds;
use hive_mind_store::awareness::{NewAwareness, WhenFull};
use hive_mind_store::{self as native, EmbedderFingerprint, VectorSource, frames::ReindexProgress};

use crate::boundary;
use crate::exports::hive::mind::admin::{
    AwarenessAdded, AwarenessCategory, AwarenessItem, Error, ExportFormat, Fingerprint, Identity,
    MindCheck, MindStatus, Neighbour, PlanConstants, RestoreReport, TableRows,
};
use crate::hive::mind::embedder;
use crate::hive::mind::types::{Frame, FrameRef, Mind};
use crate::store::{self, StoreError};

type Result<T> = std::result::Result<T, Error>;

/// A store failure as the typed case.
fn storage(error: StoreError) -> Error {
    match error {
        StoreError::Embedder(why) => Error::Embedder(why),
        other => Error::Storage(store::storage_error(&other)),
    }
}

fn category_in(category: AwarenessCategory) -> &'static str {
    match category {
        AwarenessCategory::Task => "task",
        AwarenessCategory::Action => "action",
        AwarenessCategory::Pending => "pending",
        AwarenessCategory::Flag => "flag",
    }
}

fn category_out(category: &str) -> Result<AwarenessCategory> {
    match category {
        "task" => Ok(AwarenessCategory::Task),
        "action" => Ok(AwarenessCategory::Action),
        "pending" => Ok(AwarenessCategory::Pending),
        "flag" => Ok(AwarenessCategory::Flag),
        other => Err(Error::Storage(store::storage_error(&StoreError::Corrupt {
            database: String::new(),
            reason: format!("an awareness item of unknown category {other:?}"),
        }))),
    }
}

fn item_out(item: &native::awareness::AwarenessItem) -> Result<AwarenessItem> {
    Ok(AwarenessItem {
        id: item.id,
        category: category_out(&item.category)?,
        content: item.content.clone(),
        priority: item.priority,
        created_at: boundary::millis(&item.created_at),
        expires_at: item.expires_at.as_deref().map(boundary::millis),
    })
}

fn identity_out(identity: native::identity::Identity) -> Identity {
    Identity {
        name: identity.name,
        role: identity.role,
        personality: identity.personality,
        capabilities: identity.capabilities,
        system_prompt: identity.system_prompt,
        updated_at: Some(identity.updated_at)
            .filter(|at| !at.trim().is_empty())
            .map(|at| boundary::millis(&at)),
    }
}

fn status_out(status: native::check::MindStatus, mind: &native::Mind) -> MindStatus {
    MindStatus {
        mind: store::mind_out(mind),
        schema_version: status.schema_version,
        embedder: status.embedder.map(|fingerprint| Fingerprint {
            provider: fingerprint.provider,
            model: fingerprint.model,
            dimensions: fingerprint.dim,
        }),
        frames: status.frames,
        fts_rows: status.fts_rows,
        frame_vectors: status.frame_vectors,
        chunks: status.chunks,
        chunk_vectors: status.chunk_vectors,
        chunk_plan: status.chunk_plan,
        chunk_window: status.chunk_window,
        notes: status.notes,
        entities: status.entities,
        relations: status.relations,
        sessions: status.sessions,
    }
}

/// Every mind, personal first.
pub fn list_minds() -> Result<Vec<Mind>> {
    store::with_minds(|minds| minds.list())
        .map(|minds| minds.iter().map(store::mind_out).collect())
        .map_err(storage)
}

/// Create a workspace mind.
pub fn create_workspace(id: String) -> Result<Mind> {
    let mind = native::Mind::workspace(&id).map_err(|error| match error {
        StoreError::InvalidInput(why) => Error::InvalidArgument(why),
        other => storage(other),
    })?;
    store::with_minds(|minds| minds.mind_or_create(&mind).map(|_| ())).map_err(storage)?;
    Ok(store::mind_out(&mind))
}

/// Every mind's counts.
pub fn status() -> Result<Vec<MindStatus>> {
    store::with_minds(|minds| {
        let mut statuses = Vec::new();
        for mind in minds.list()? {
            let status = minds.mind(&mind)?.status()?;
            statuses.push(status_out(status, &mind));
        }
        Ok(statuses)
    })
    .map_err(storage)
}

/// Every mind's consistency.
pub fn check() -> Result<Vec<MindCheck>> {
    store::with_minds(|minds| {
        let mut reports = Vec::new();
        for mind in minds.list()? {
            let report = minds.mind(&mind)?.check()?;
            reports.push(MindCheck {
                status: status_out(report.status, &mind),
                expected_chunks: report.expected_chunks,
                problems: report.problems,
            });
        }
        Ok(reports)
    })
    .map_err(storage)
}

/// The `embedder` import as the store's vector source.
struct ImportedEmbedder {
    fingerprint: EmbedderFingerprint,
    max_tokens: u32,
}

impl VectorSource for ImportedEmbedder {
    fn fingerprint(&self) -> EmbedderFingerprint {
        self.fingerprint.clone()
    }

    fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    fn embed(
        &self,
        texts: &[String],
    ) -> std::result::Result<Vec<native::EmbedOutcome>, native::vectors::EmbedError> {
        // Reindex re-embeds stored frames and chunks: documents.
        embedder::embed(texts, embedder::InputKind::Document).map_err(|error| {
            let message = match error {
                embedder::Error::Unavailable(why) => format!("no embedder is available: {why}"),
                embedder::Error::Failed(why) => why,
            };
            message.into()
        })
    }
}

/// One step of a mind's reindex.
pub fn reindex_step(
    mind: Mind,
    batch: u32,
) -> Result<crate::exports::hive::mind::admin::ReindexProgress> {
    let config = store::active_config();
    let Some(fingerprint) = config.embedder else {
        return Err(Error::Embedder(
            "no embedder is available to reindex with".to_string(),
        ));
    };
    let source = ImportedEmbedder {
        fingerprint,
        max_tokens: config.max_tokens,
    };
    let batch = usize::try_from(batch.max(1)).unwrap_or(usize::MAX);
    let progress: ReindexProgress =
        store::read(&mind, |store| store.reindex_step(&source, batch)).map_err(storage)?;
    Ok(crate::exports::hive::mind::admin::ReindexProgress {
        mind,
        done: progress.done,
        total: progress.total,
        chunks: progress.chunks,
        chunk_window: match progress.plan {
            native::ChunkPlan::Tokens(window) => window,
            native::ChunkPlan::LegacyChars => 0,
        },
        finished: progress.finished,
    })
}

/// Frames by reference.
pub fn get_frames(refs: Vec<FrameRef>) -> Result<Vec<Frame>> {
    store::get_frames(&refs).map_err(storage)
}

/// The newest frames of a mind.
pub fn recent_frames(mind: Mind, limit: u32) -> Result<Vec<Frame>> {
    let filter = store::SearchFilter {
        minds: vec![mind],
        ..store::SearchFilter::default()
    };
    store::list_frames(&filter, false, limit).map_err(storage)
}

/// Export a mind (see `admin.export-mind`). The Markdown export ends with
/// the mind's wiki, every page as it reads now, its links turned into links
/// within the one document.
pub fn export_mind(mind: Mind, format: ExportFormat) -> Result<Vec<String>> {
    let markdown = matches!(format, ExportFormat::Markdown);
    let mut lines = store::read(&mind, |store| match format {
        ExportFormat::JsonLines => store.export_lines(),
        ExportFormat::Markdown => store.export_markdown(),
    })
    .map_err(storage)?;
    if markdown {
        lines.extend(wiki_lines(&mind));
    }
    Ok(lines)
}

/// The most wiki pages the Markdown export carries.
const WIKI_EXPORT_PAGES: u32 = 1000;

/// The wiki of a mind as Markdown lines for the one-document export: a
/// heading, then each page under an anchor named by its address, its
/// headings one level down and its `slug.md` links pointing at the anchors.
/// A page that cannot be read is left out (the memories above are the
/// export; the wiki is read from them).
fn wiki_lines(mind: &Mind) -> Vec<String> {
    let Ok(pages) = crate::wiki::list_pages(mind.clone(), WIKI_EXPORT_PAGES) else {
        return Vec::new();
    };
    let mut lines = vec![String::new(), "# Wiki".to_string()];
    for summary in pages {
        let Ok(page) = crate::wiki::get_page(mind.clone(), summary.slug.clone()) else {
            continue;
        };
        lines.push(String::new());
        lines.push(format!("<a id=\"{}\"></a>", summary.slug));
        lines.push(String::new());
        for line in page.markdown.lines() {
            let line = if line.starts_with('#') {
                format!("#{line}")
            } else {
                line.to_string()
            };
            lines.push(anchor_links(&line));
        }
    }
    lines
}

/// `[title](slug.md)` links as `[title](#slug)`.
fn anchor_links(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let (before, after) = rest.split_at(at + 2);
        out.push_str(before);
        let slug = after
            .find(".md)")
            .and_then(|end| after.get(..end).map(|slug| (end, slug)))
            .filter(|(_, slug)| !slug.is_empty() && !slug.contains([' ', ')', '(', ']', '/', ':']));
        match slug {
            Some((end, slug)) => {
                out.push('#');
                out.push_str(slug);
                out.push(')');
                rest = after.get(end + 4..).unwrap_or_default();
            }
            None => rest = after,
        }
    }
    out.push_str(rest);
    out
}

/// Restore an export into an empty mind (see `admin.restore-mind`).
pub fn restore_mind(mind: Mind, lines: Vec<String>) -> Result<RestoreReport> {
    // Each line counted with the line break the file had.
    let bytes = lines.iter().map(|line| line.len().saturating_add(1)).sum();
    bounds::RESTORE
        .check_size(bytes)
        .map_err(Error::InvalidArgument)?;
    let restored = store::write(&mind, |store| store.restore(&lines)).map_err(storage)?;
    Ok(RestoreReport {
        frames: restored.frames,
        tables: restored
            .rows
            .into_iter()
            .map(|(table, rows)| TableRows { table, rows })
            .collect(),
    })
}

/// The mind's identity.
pub fn get_identity(mind: Mind) -> Result<Option<Identity>> {
    Ok(store::get_identity(&mind)
        .map_err(storage)?
        .map(identity_out))
}

/// Set the mind's identity.
pub fn set_identity(mind: Mind, identity: Identity) -> Result<Identity> {
    [
        (bounds::NAME, &identity.name),
        (bounds::NAME.named("role"), &identity.role),
        (
            bounds::IDENTITY_FIELD.named("personality"),
            &identity.personality,
        ),
        (
            bounds::IDENTITY_FIELD.named("capabilities"),
            &identity.capabilities,
        ),
        (
            bounds::IDENTITY_FIELD.named("system prompt"),
            &identity.system_prompt,
        ),
    ]
    .into_iter()
    .try_for_each(|(bound, text)| bound.check(text))
    .map_err(Error::InvalidArgument)?;
    let identity = native::identity::Identity {
        name: identity.name,
        role: identity.role,
        personality: identity.personality,
        capabilities: identity.capabilities,
        system_prompt: identity.system_prompt,
        updated_at: String::new(),
    };
    store::write(&mind, |store| store.set_identity(&identity))
        .map(identity_out)
        .map_err(storage)
}

/// The live awareness items.
pub fn list_awareness(mind: Mind) -> Result<Vec<AwarenessItem>> {
    store::list_awareness(&mind)
        .map_err(storage)?
        .iter()
        .map(item_out)
        .collect()
}

/// Add an awareness item.
pub fn add_awareness(
    mind: Mind,
    category: AwarenessCategory,
    content: String,
    priority: i64,
    expires_at: Option<i64>,
    evict: bool,
) -> Result<AwarenessAdded> {
    bounds::MEMORY_CONTENT
        .check(&content)
        .map_err(Error::InvalidArgument)?;
    let expires_at = expires_at
        .map(boundary::iso)
        .transpose()
        .map_err(Error::InvalidArgument)?;
    let new = NewAwareness {
        category: category_in(category).to_string(),
        content,
        priority,
        expires_at,
        metadata: None,
    };
    let when_full = if evict {
        WhenFull::EvictLowest
    } else {
        WhenFull::Refuse
    };
    let added =
        store::write(&mind, |store| store.add_awareness(&new, when_full)).map_err(storage)?;
    Ok(AwarenessAdded {
        item: item_out(&added.item)?,
        evicted: added.evicted.as_ref().map(item_out).transpose()?,
    })
}

/// Remove awareness items by id; the number removed.
pub fn remove_awareness(mind: Mind, ids: Vec<u64>) -> Result<u32> {
    store::read(&mind, |store| {
        let mut removed = 0u32;
        for id in ids {
            match store.remove_awareness(id) {
                Ok(()) => removed += 1,
                Err(StoreError::NotFound(_)) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(removed)
    })
    .map_err(storage)
}

/// Remove every awareness item; the number removed.
pub fn clear_awareness(mind: Mind) -> Result<u32> {
    let ids: Vec<u64> = store::list_awareness(&mind)
        .map_err(storage)?
        .iter()
        .map(|item| item.id)
        .collect();
    remove_awareness(mind, ids)
}

/// Merge duplicate entities.
pub fn dedupe_entities(mind: Mind) -> Result<u64> {
    store::read(&mind, |store| store.dedupe_entities()).map_err(storage)
}

/// Retire an entity.
pub fn retire_entity(mind: Mind, entity: u64) -> Result<()> {
    store::read(&mind, |store| store.retire_entity(entity)).map_err(storage)
}

/// The engine's plan constants, read from where they are defined.
pub fn plan_constants() -> PlanConstants {
    PlanConstants {
        recall_default_limit: crate::recall::DEFAULT_LIMIT,
        search_fetch_multiplier: hive_mind_core::recall::SEARCH_FETCH_MULTIPLIER,
        harvest_step_items: u32::try_from(crate::harvest::CLASSIFY_BATCH).unwrap_or(u32::MAX),
    }
}

/// The `k` frames of `mind` nearest to `vector` by an exact float scan: the
/// store's [`native::MindStore::search_vector_exact`] with no filter.
pub fn exact_neighbours(mind: Mind, vector: Vec<f32>, k: u32) -> Result<Vec<Neighbour>> {
    let hits = store::read(&mind, |store| {
        store.search_vector_exact(&vector, &native::SearchFilter::default(), k)
    })
    .map_err(storage)?;
    Ok(hits
        .iter()
        .map(|hit| Neighbour {
            frame: store::ref_out(&hit.frame_ref),
            cosine: hit.score,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::anchor_links;

    #[test]
    fn page_links_become_links_within_the_document() {
        assert_eq!(
            anchor_links("- works-at [Philips](entity-3.md) and [x](https://a.example/b.md)"),
            "- works-at [Philips](#entity-3) and [x](https://a.example/b.md)"
        );
        assert_eq!(anchor_links("no links ]( here"), "no links ]( here");
    }
}
