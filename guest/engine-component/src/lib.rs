//! The `hive:mind` **engine** world as a WebAssembly component.
//!
//! It imports the capabilities a host supplies (`sqlite` and `embedder`,
//! required; `reranker`, `llm` and `fetch`, which may answer `unavailable`) and
//! exports the memory API (`memory`), the administration of the minds
//! (`admin`) and `harvest` (importing a person's history: [`harvest`]). The
//! pure functions (`logic`) are the logic component's alone. The data model —
//! schema, migrations, queries, the vector index — is `hive-mind-store`,
//! running here over the `sqlite` import ([`store`]); [`boundary`] turns its
//! stored text (times, metadata, content markings) into the WIT's typed
//! values.
//!
//! The memory API is implemented operation by operation, each as a pipeline
//! over the imports: [`save`] (chunk, embed, store), [`recall`] (the
//! multi-lane pipeline), [`cognify`] (learning from an exchange),
//! [`import`] (raw conversation turns), [`harvest`] (whole exports,
//! distilled), [`cleanup`] (retiring
//! dead-weight frames), [`forget`] (erasure for real), [`correct`] (a new
//! version that closes the old one), [`review`] (the owner's archive, merge,
//! trace, logs and flagged memories) and [`graph`] (entities and relations an agent
//! names explicitly).

// wit-bindgen's generated glue (the canonical-ABI exports) is the crate's only
// unsafe code, and its items are documented in the WIT, not in Rust; nothing
// hand-written here uses unsafe.
#![allow(unsafe_code, missing_docs)]

wit_bindgen::generate!({
    world: "engine",
    path: "../../wit",
});

mod admin;
mod boundary;
mod calibration;
mod change;
mod cleanup;
mod cognify;
mod correct;
mod forget;
mod graph;
mod harvest;
mod import;
mod recall;
mod review;
mod save;
mod saved_graph;
mod store;
mod wiki;

use exports::hive::mind::admin::{
    AwarenessAdded, AwarenessCategory, AwarenessItem, Error as AdminError, ExportFormat,
    Guest as AdminGuest, Identity, MindCheck, MindStatus, Neighbour, PlanConstants,
    ReindexProgress, RestoreReport,
};
use exports::hive::mind::harvest::{
    Error as HarvestError, Exchange, Guest as HarvestGuest, GuestImportJob, HarvestSource,
    ImportJob, ImportOptions, ImportReport as HarvestReport, Input, Progress,
    SourceFormat as HarvestFormat,
};
use exports::hive::mind::memory::{
    CleanupOptions, CleanupReport, CorrectedMemory, Correction, Error, ExchangeOptions,
    ForgetReport, ForgetRequest, Guest as MemoryGuest, ImportReport, ImportedConversation,
    KnownEntity, KnownRelation, MemoryInput, Recall, RecallOptions, SavedMemory,
};
use exports::hive::mind::review::{
    EntityHop, EntityInfo, EntityRule, EntityView, Error as ReviewError, FlaggedMemory,
    Guest as ReviewGuest, LogEntry, LogKind, MemoryTrace, MergeRequest, Merged, MetadataChange,
    PairDecision, PairVerdict, SessionInfo, SessionView, WorkspaceDeletion,
};
use exports::hive::mind::wiki::{
    Error as WikiError, Guest as WikiGuest, HealthReport, Page, PageSummary,
};
use hive::mind::types::{Frame, FrameRef, InjectionReport, Mind, ScanContext};

/// The component: `memory`, `admin`, `review`, `harvest` and `wiki` below.
pub struct Component;

export!(Component);

impl WikiGuest for Component {
    fn list_pages(mind: Mind, limit: u32) -> Result<Vec<PageSummary>, WikiError> {
        wiki::list_pages(mind, limit)
    }

    fn get_page(mind: Mind, slug: String) -> Result<Page, WikiError> {
        wiki::get_page(mind, slug)
    }

    fn search_wiki(mind: Mind, text: String, limit: u32) -> Result<Vec<PageSummary>, WikiError> {
        wiki::search_wiki(mind, text, limit)
    }

    fn health(mind: Mind, limit: u32) -> Result<HealthReport, WikiError> {
        wiki::health(mind, limit)
    }
}

impl ReviewGuest for Component {
    fn set_metadata(memory: FrameRef, change: MetadataChange) -> Result<Frame, ReviewError> {
        review::set_metadata(memory, change)
    }

    fn merge(request: MergeRequest) -> Result<Merged, ReviewError> {
        review::merge(request)
    }

    fn list_sessions(mind: Mind, limit: u32) -> Result<Vec<SessionInfo>, ReviewError> {
        review::list_sessions(mind, limit)
    }

    fn close_session(
        mind: Mind,
        gop_id: String,
        summary: Option<String>,
    ) -> Result<SessionInfo, ReviewError> {
        review::close_session(mind, gop_id, summary)
    }

    fn get_entity(mind: Mind, id: u64) -> Result<EntityView, ReviewError> {
        review::get_entity(mind, id)
    }

    fn list_entities(
        mind: Mind,
        text: String,
        entity_type: Option<String>,
        limit: u32,
    ) -> Result<Vec<EntityInfo>, ReviewError> {
        review::list_entities(mind, text, entity_type, limit)
    }

    fn clean_entities(
        mind: Mind,
        rule: EntityRule,
        apply: bool,
    ) -> Result<Vec<EntityInfo>, ReviewError> {
        review::clean_entities(mind, rule, apply)
    }

    fn neighbours(
        mind: Mind,
        id: u64,
        depth: u32,
        entity_type: Option<String>,
        limit: u32,
    ) -> Result<Vec<EntityHop>, ReviewError> {
        review::neighbours(mind, id, depth, entity_type, limit)
    }

    fn read_log(
        mind: Mind,
        log: LogKind,
        limit: u32,
        before: Option<u64>,
    ) -> Result<Vec<LogEntry>, ReviewError> {
        review::read_log(mind, log, limit, before)
    }

    fn trace(memory: FrameRef) -> Result<MemoryTrace, ReviewError> {
        review::trace(memory)
    }

    fn list_flagged(mind: Mind, limit: u32) -> Result<Vec<FlaggedMemory>, ReviewError> {
        review::list_flagged(mind, limit)
    }

    fn release(memory: FrameRef) -> Result<Frame, ReviewError> {
        review::release(memory)
    }

    fn get_session(mind: Mind, gop_id: String, limit: u32) -> Result<SessionView, ReviewError> {
        review::get_session(mind, gop_id, limit)
    }

    fn decide_pair(
        older: FrameRef,
        newer: FrameRef,
        verdict: PairVerdict,
    ) -> Result<PairDecision, ReviewError> {
        review::decide_pair(older, newer, verdict)
    }

    fn delete_workspace(
        workspace: String,
        dry_run: bool,
    ) -> Result<WorkspaceDeletion, ReviewError> {
        review::delete_workspace(workspace, dry_run)
    }
}

impl MemoryGuest for Component {
    fn save_memory(input: MemoryInput) -> Result<SavedMemory, Error> {
        save::save_memory(input)
    }

    fn save_memories(inputs: Vec<MemoryInput>) -> Result<Vec<SavedMemory>, Error> {
        save::save_memories(inputs)
    }

    fn recall_memory(query: String, options: RecallOptions) -> Result<Recall, Error> {
        recall::recall_memory(query, options)
    }

    fn recall_minds(options: RecallOptions) -> Result<Vec<Mind>, Error> {
        recall::minds_in_scope(&options)
    }

    fn remember_exchange(
        user: String,
        assistant: String,
        options: ExchangeOptions,
    ) -> Result<Vec<SavedMemory>, Error> {
        cognify::remember_exchange(user, assistant, options)
    }

    fn import_conversations(
        mind: Mind,
        conversations: Vec<ImportedConversation>,
    ) -> Result<ImportReport, Error> {
        import::import_conversations(mind, conversations)
    }

    fn cleanup_frames(options: CleanupOptions) -> Result<CleanupReport, Error> {
        cleanup::cleanup_frames(options)
    }

    fn forget(request: ForgetRequest) -> Result<ForgetReport, Error> {
        forget::forget(request)
    }

    fn correct_memory(correction: Correction) -> Result<CorrectedMemory, Error> {
        correct::correct_memory(correction)
    }

    fn memory_history(frame: FrameRef) -> Result<Vec<Frame>, Error> {
        correct::memory_history(frame)
    }

    fn scan_for_injection(text: String, context: ScanContext) -> InjectionReport {
        boundary::injection_report(&text, context)
    }

    fn save_entity(mind: Mind, name: String, entity_type: String) -> Result<KnownEntity, Error> {
        graph::save_entity(mind, name, entity_type)
    }

    fn create_relation(
        mind: Mind,
        subject: String,
        relation: String,
        object: String,
        strength: Option<f64>,
    ) -> Result<KnownRelation, Error> {
        graph::create_relation(mind, subject, relation, object, strength)
    }

    fn search_entities(mind: Mind, text: String, limit: u32) -> Result<Vec<KnownEntity>, Error> {
        graph::search_entities(mind, text, limit)
    }
}

impl AdminGuest for Component {
    fn list_minds() -> Result<Vec<Mind>, AdminError> {
        admin::list_minds()
    }

    fn create_workspace(id: String) -> Result<Mind, AdminError> {
        admin::create_workspace(id)
    }

    fn status() -> Result<Vec<MindStatus>, AdminError> {
        admin::status()
    }

    fn check() -> Result<Vec<MindCheck>, AdminError> {
        admin::check()
    }

    fn reindex_step(mind: Mind, batch: u32) -> Result<ReindexProgress, AdminError> {
        admin::reindex_step(mind, batch)
    }

    fn get_frames(refs: Vec<FrameRef>) -> Result<Vec<Frame>, AdminError> {
        admin::get_frames(refs)
    }

    fn recent_frames(mind: Mind, limit: u32) -> Result<Vec<Frame>, AdminError> {
        admin::recent_frames(mind, limit)
    }

    fn export_mind(mind: Mind, format: ExportFormat) -> Result<Vec<String>, AdminError> {
        admin::export_mind(mind, format)
    }

    fn restore_mind(mind: Mind, lines: Vec<String>) -> Result<RestoreReport, AdminError> {
        admin::restore_mind(mind, lines)
    }

    fn get_identity(mind: Mind) -> Result<Option<Identity>, AdminError> {
        admin::get_identity(mind)
    }

    fn set_identity(mind: Mind, identity: Identity) -> Result<Identity, AdminError> {
        admin::set_identity(mind, identity)
    }

    fn list_awareness(mind: Mind) -> Result<Vec<AwarenessItem>, AdminError> {
        admin::list_awareness(mind)
    }

    fn add_awareness(
        mind: Mind,
        category: AwarenessCategory,
        content: String,
        priority: i64,
        expires_at: Option<i64>,
        evict: bool,
    ) -> Result<AwarenessAdded, AdminError> {
        admin::add_awareness(mind, category, content, priority, expires_at, evict)
    }

    fn remove_awareness(mind: Mind, ids: Vec<u64>) -> Result<u32, AdminError> {
        admin::remove_awareness(mind, ids)
    }

    fn clear_awareness(mind: Mind) -> Result<u32, AdminError> {
        admin::clear_awareness(mind)
    }

    fn dedupe_entities(mind: Mind) -> Result<u64, AdminError> {
        admin::dedupe_entities(mind)
    }

    fn retire_entity(mind: Mind, entity: u64) -> Result<(), AdminError> {
        admin::retire_entity(mind, entity)
    }

    fn get_plan_constants() -> PlanConstants {
        admin::plan_constants()
    }

    fn exact_neighbours(
        mind: Mind,
        vector: Vec<f32>,
        k: u32,
    ) -> Result<Vec<Neighbour>, AdminError> {
        admin::exact_neighbours(mind, vector, k)
    }
}

impl HarvestGuest for Component {
    type ImportJob = harvest::Job;

    fn sources(mind: Mind) -> Result<Vec<HarvestSource>, HarvestError> {
        harvest::sources(mind)
    }

    fn last_exchange(
        format: HarvestFormat,
        transcript: String,
    ) -> Result<Option<Exchange>, HarvestError> {
        harvest::last_exchange(format, &transcript)
    }
}

impl GuestImportJob for harvest::Job {
    fn start(inputs: Vec<Input>, options: ImportOptions) -> Result<ImportJob, HarvestError> {
        harvest::Job::start(inputs, options).map(ImportJob::new)
    }

    fn step(&self, max_items: u32) -> Result<Progress, HarvestError> {
        harvest::Job::step(self, max_items)
    }

    fn report(&self) -> HarvestReport {
        harvest::Job::report(self)
    }
}
