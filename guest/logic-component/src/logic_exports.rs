//! The `hive:mind/logic` export: a thin translation between the types
//! `wit-bindgen` generates for the WIT interface and the plain Rust types of
//! [`hive_mind_core`], which does all the work.
//!
//! Only the logic component exports `logic` (the engine world does not: its
//! embedders see `memory`, `admin` and `harvest` alone).

use hive_mind_core as core;

use crate::exports::hive::mind::logic::{
    ChunkOptions, DedupVerdict, Error, Guest, Relevance, RelevanceInput, ResolvedDate, ScoredId,
    SimilarContent, TargetMind, WriteBackCandidate, WriteBackKind,
};
use crate::hive::mind::types::{
    Chunk, DateWindow, Importance, InjectionCategory, InjectionReport, ScanContext, ScoringProfile,
};

impl Guest for crate::Component {
    fn content_hash(content: String) -> String {
        core::content_hash(&content)
    }

    fn strip_hm_prefix(content: String) -> String {
        core::strip_hm_prefix(&content).to_owned()
    }

    fn chunk_text(text: String, options: Option<ChunkOptions>) -> Vec<Chunk> {
        let options = options.map_or_else(core::ChunkOptions::default, |o| core::ChunkOptions {
            max_chars: o.max_chars,
            overlap: o.overlap,
            min_chars: o.min_chars,
        });
        core::chunk_text(&text, &options)
            .into_iter()
            .map(|c| Chunk {
                index: c.index,
                text: c.text,
                char_start: c.char_start,
                char_end: c.char_end,
            })
            .collect()
    }

    fn rrf_fuse(lists: Vec<Vec<u64>>, k: Option<u32>) -> Vec<ScoredId> {
        core::rrf_fuse(&lists, k.unwrap_or(core::RRF_K))
            .into_iter()
            .map(|s| ScoredId {
                id: s.id,
                score: s.score,
            })
            .collect()
    }

    fn compute_relevance(
        input: RelevanceInput,
        profile: ScoringProfile,
    ) -> Result<Relevance, Error> {
        let input = core::RelevanceInput {
            created_at: input.created_at,
            last_accessed: input.last_accessed,
            now: input.now,
            access_count: input.access_count,
            graph_distance: input.graph_distance,
            importance: importance_from_wit(input.importance),
        };
        let profile = match profile {
            ScoringProfile::Balanced => core::ScoringProfile::Balanced,
            ScoringProfile::Recent => core::ScoringProfile::Recent,
            ScoringProfile::Important => core::ScoringProfile::Important,
            ScoringProfile::Connected => core::ScoringProfile::Connected,
        };
        core::compute_relevance(&input, profile)
            .map(|r| Relevance {
                temporal: r.temporal,
                popularity: r.popularity,
                contextual: r.contextual,
                importance: r.importance,
                score: r.score,
            })
            .map_err(error_to_wit)
    }

    fn parse_date_window(query: String) -> Option<DateWindow> {
        core::parse_date_window(&query).map(|w| DateWindow {
            since: w.since,
            until: w.until,
            label: w.label,
        })
    }

    fn resolve_relative_date(text: String, anchor: String) -> Result<Option<ResolvedDate>, Error> {
        core::resolve_relative_date(&text, &anchor)
            .map(|found| {
                found.map(|r| ResolvedDate {
                    cue: r.cue,
                    date: r.date,
                })
            })
            .map_err(error_to_wit)
    }

    fn detect_catch_up(query: String) -> bool {
        core::detect_catch_up(&query)
    }

    fn trigram_similarity(a: String, b: String) -> f64 {
        core::trigram_similarity(&a, &b)
    }

    fn dedup_check(
        candidate: String,
        importance: Importance,
        existing: Vec<String>,
    ) -> DedupVerdict {
        let similar = |s: core::SimilarContent| SimilarContent {
            index: s.index,
            similarity: s.similarity,
        };
        match core::dedup_check(&candidate, importance_from_wit(importance), &existing) {
            core::DedupVerdict::Exact(index) => DedupVerdict::Exact(index),
            core::DedupVerdict::NearDuplicate(s) => DedupVerdict::NearDuplicate(similar(s)),
            core::DedupVerdict::PossibleContradiction(s) => {
                DedupVerdict::PossibleContradiction(similar(s))
            }
            core::DedupVerdict::New => DedupVerdict::New,
        }
    }

    fn scan_for_injection(text: String, context: ScanContext) -> InjectionReport {
        let context = match context {
            ScanContext::UserInput => core::ScanContext::UserInput,
            ScanContext::ToolOutput => core::ScanContext::ToolOutput,
        };
        let report = core::detect(&text, context);
        InjectionReport {
            flags: report
                .flags
                .into_iter()
                .map(|flag| match flag {
                    core::InjectionCategory::RoleOverride => InjectionCategory::RoleOverride,
                    core::InjectionCategory::PromptExtraction => {
                        InjectionCategory::PromptExtraction
                    }
                    core::InjectionCategory::InstructionInjection => {
                        InjectionCategory::InstructionInjection
                    }
                })
                .collect(),
            matched: report.matched,
            score: report.score,
            safe: report.safe,
            threshold: report.threshold,
            detector: report.detector,
            reasons: report.reasons,
        }
    }

    fn pattern_write_back(user: String, assistant: String) -> Vec<WriteBackCandidate> {
        core::pattern_write_back(&user, &assistant)
            .into_iter()
            .map(|c| WriteBackCandidate {
                kind: match c.kind {
                    core::WriteBackKind::Preference => WriteBackKind::Preference,
                    core::WriteBackKind::Correction => WriteBackKind::Correction,
                    core::WriteBackKind::Decision => WriteBackKind::Decision,
                    core::WriteBackKind::Finding => WriteBackKind::Finding,
                    core::WriteBackKind::Style => WriteBackKind::Style,
                    core::WriteBackKind::WorkOutput => WriteBackKind::WorkOutput,
                },
                content: c.content,
                target: match c.target {
                    core::TargetMind::Personal => TargetMind::Personal,
                    core::TargetMind::Workspace => TargetMind::Workspace,
                },
                importance: importance_to_wit(c.importance),
                pattern: c.pattern,
            })
            .collect()
    }

    fn normalize_entity_name(name: String) -> String {
        core::normalize_entity_name(&name)
    }

    fn is_noise_name(name: String) -> bool {
        core::is_noise_name(&name)
    }
}

/// WIT importance → core importance.
pub(crate) fn importance_from_wit(importance: Importance) -> core::Importance {
    match importance {
        Importance::Critical => core::Importance::Critical,
        Importance::Important => core::Importance::Important,
        Importance::Normal => core::Importance::Normal,
        Importance::Temporary => core::Importance::Temporary,
        Importance::Deprecated => core::Importance::Deprecated,
    }
}

/// Core importance → WIT importance.
pub(crate) fn importance_to_wit(importance: core::Importance) -> Importance {
    match importance {
        core::Importance::Critical => Importance::Critical,
        core::Importance::Important => Importance::Important,
        core::Importance::Normal => Importance::Normal,
        core::Importance::Temporary => Importance::Temporary,
        core::Importance::Deprecated => Importance::Deprecated,
    }
}

fn error_to_wit(error: core::LogicError) -> Error {
    match error {
        core::LogicError::InvalidArgument(message) => Error::InvalidArgument(message),
    }
}
