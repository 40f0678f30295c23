//! # hive-mind-core: the pure logic of the memory engine
//!
//! Everything in this crate is a pure function: no I/O, no clock, no global
//! state. The same code is compiled natively (where its unit tests and
//! property tests run) and to `wasm32-wasip2`, where the component crates
//! export it through the `hive:mind/logic` interface. Keeping bindings out of
//! here is what makes the logic testable without wasm.
//!
//! The modules follow the life of a memory:
//!
//! - **Writing.** [`hash`] computes the provenance-insensitive dedup key of a
//!   frame; [`chunk`] splits long texts into overlapping, offset-carrying
//!   chunks for chunk-level retrieval; [`dedup`] judges a candidate against
//!   existing texts (exact, near-duplicate, possible contradiction);
//!   [`write_back`] finds what is worth remembering in a live exchange;
//!   [`entity`] canonicalises knowledge-graph names and filters noise;
//!   [`cognify`] plans what a successful turn writes: frames, entities and
//!   relations; [`raw_turn`] tags verbatim conversation turns and gives
//!   each the end of the turn before it as its search context;
//!   [`supersede`] gives a short statement its slot (`user|residence`), so
//!   a newer statement of the same slot replaces the older in recall;
//!   [`change`] judges whether a newer statement replaces an older one,
//!   with [`heads`]' learned change judge reading their vectors where one
//!   ships for the embedder.
//! - **Recalling.** [`fusion`] merges a search's keyword and vector hits by
//!   their normalised scores, and ranked listings by reciprocal rank fusion;
//!   [`relevance`] scores a frame by recency, popularity, graph distance and
//!   importance; [`dates`] reads the calendar periods a query names and
//!   resolves relative date cues; [`catch_up`] spots "bring me up to date"
//!   queries.
//! - **Guarding.** [`detector`] screens every text written to a mind with a
//!   learned model (its verdict is stored; a hostile memory is quarantined);
//!   [`injection`] is the regex scanner, one of the model's inputs and the
//!   recall block's last line for memories written before the detector;
//!   [`bounds`] is how large an argument the engine accepts, whatever host
//!   passes it.
//!
//! Shared vocabulary (importance, chunks, scored ids, …) lives in [`types`],
//! mirroring the WIT `hive:mind/types` interface. Every public type
//! serialises to the same JSON shape the host prints for the WIT value:
//! records as objects with kebab-case keys, enums as their kebab-case case
//! name, variants as `{"case": payload}`.

// The guest aborts on a panic, and queries, messages and tool output are
// text nobody vetted: no indexing or slicing that can panic (`get`,
// iterators, `split_once`, …).
#![deny(clippy::indexing_slicing, clippy::string_slice)]
#![cfg_attr(test, allow(clippy::indexing_slicing, clippy::string_slice))]

pub mod bounds;
pub mod calendar;
pub mod catch_up;
pub mod change;
pub mod chunk;
pub mod cleanup;
pub mod cognify;
pub mod dates;
pub mod dedup;
pub mod detector;
pub mod entity;
pub mod fusion;
pub mod hash;
pub mod heads;
pub mod injection;
pub mod raw_turn;
pub mod recall;
pub mod relevance;
pub mod supersede;
pub mod tokens;
pub mod topics;
pub mod types;
pub mod vectors;
pub mod wiki;
mod words;
pub mod write_back;

pub use catch_up::detect_catch_up;
pub use chunk::{ChunkOptions, ChunkPlan, TokenBudget, chunk_text, chunk_tokens, frame_chunks};
pub use cognify::{
    CognifyPlan, EntityType, ExtractedEntity, ExtractedRelation, PlannedFrame, RelationType,
    accept_entity_name, extract_entities, extract_relations, plan_cognify,
};
pub use dates::{ResolvedDate, parse_date_window, resolve_relative_date};
pub use dedup::{DedupIndex, DedupVerdict, SimilarContent, dedup_check, trigram_similarity};
pub use detector::{Screening, detect, screen};
pub use entity::{is_noise_name, normalize_entity_name};
pub use fusion::{RRF_K, rrf_fuse};
pub use hash::{content_hash, strip_hm_prefix};
pub use injection::{
    InjectionCategory, InjectionReport, ScanContext, scan_for_injection, scan_in_windows,
};
pub use raw_turn::{RAW_TURN_TAG, RawTurnTag, raw_turn_content, reply_context, speaker_named_in};
pub use recall::{
    Candidate, FrameInfo, Lane, LaneHit, MindKey, RankOptions, RankedMemory, RecallOutput,
    RecallPlan, RelevanceFloor, assemble_recall, plan_recall, rank_candidates,
};
pub use relevance::{Relevance, RelevanceInput, ScoringProfile, compute_relevance};
pub use tokens::estimate_tokens;
pub use types::{Chunk, DateWindow, Importance, LogicError, ScoredId, Source};
pub use write_back::{TargetMind, WriteBackCandidate, WriteBackKind, pattern_write_back};
