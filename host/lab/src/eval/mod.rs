//! # Retrieval evaluation on conversation benchmarks (`hive-mind-lab eval`)
//!
//! How good is recall? This module answers with the numbers published
//! memory systems report, measured on the real engine component: the same
//! import, the same recall pipeline, the same store, nothing tuned for the
//! benchmark.
//!
//! ## How an evaluation runs
//!
//! 1. **Read** the data set ([`locomo`]): a list of samples, each a long
//!    two-person conversation in dated sessions, plus questions whose
//!    *evidence* names the turns that answer them. Malformed items are
//!    reported and skipped, never fatal.
//! 2. **Build one fresh mind per sample** in a temporary data directory
//!    ([`run::evaluate`]): every session becomes one
//!    `memory.import-conversations` conversation (key `s<N>`, dated by its
//!    session time), so each turn is stored as a raw turn whose typed origin
//!    (`memory-kind.raw-turn`) names conversation `sN`, turn `P` and the
//!    speaker. `P` is the turn's position in the imported list; the
//!    evaluation remembers, per key, the dialogue ids in that order, to map
//!    frames back to the data set.
//! 3. **Ask every question** through `memory.recall-memory`, with "now" set
//!    to the day after the sample's last session, and score the ranked
//!    memories ([`metrics`]): session-level recall@k (is a gold session among
//!    the first k distinct sessions?) and turn-level evidence recall@k (what
//!    fraction of the evidence turns are among the first k frames?).
//! 4. **Report** ([`run::EvalReport`], printed by [`cli`]): overall and per
//!    category, with the ingest rate, recall latency and where recall spends
//!    its time: the guest's stages, and the recall time split between the
//!    engine's own work in the component and the host's imports (SQLite,
//!    the embedder, the reranker), from the host's import timings.
//!
//! The temporary minds are deleted when each sample is done. Nothing here
//! changes the pipeline's constants: an evaluation measures, it does not
//! tune.
//!
//! ## The live-memory evaluations
//!
//! LoCoMo imports finished transcripts. Two more evaluations measure the
//! loop an agent runs, on data written for them (`host/lab/data/`): memory
//! written as the agent works — saved, learned from exchanges (cognify),
//! imported — and recalled later, after the person's life has changed.
//!
//! - [`timelines`] (`eval timelines`): facts that change over months, each
//!   written through every write path; is the newest statement recalled
//!   first, is the stale one gone, and do two statements that are both true
//!   both stay?
//! - [`live_loop`] (`eval live-loop`): one persona's year and a half of
//!   memory; answer@1/3/10 and MRR by kind of question, the facts cognify
//!   keeps from exchanges, and empty answers to questions the memory cannot
//!   answer.
//!
//! What they share — reading the data field by field with errors that
//! name the place, matching expected strings, the three write paths, the
//! recall they ask — is [`live`].

pub mod cli;
pub mod live;
pub mod live_loop;
pub mod locomo;
pub mod metrics;
pub mod run;
pub mod timelines;

use std::path::PathBuf;

use crate::mind::OpenError;

/// Why an evaluation could not run.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The data set file could not be read.
    #[error("could not read the data set {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The data set is not JSON.
    #[error("the data set {} is not valid JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where and why parsing stopped.
        source: serde_json::Error,
    },
    /// The data set is JSON, but not a list of samples.
    #[error("the data set {} is not in the LoCoMo shape: {why}", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A line or field of a live-memory data file (timelines, live loop)
    /// is malformed: where (`file:line`, `file: events[3]`), which field,
    /// and why.
    #[error("{at}: `{field}`: {why}")]
    Malformed {
        /// The file and line, or the file and the item's place.
        at: String,
        /// The field (`steps[1].at`, `save.importance`).
        field: String,
        /// What is wrong.
        why: String,
    },
    /// Nothing could be evaluated (no usable sample, no question of the
    /// chosen categories, or every sample failed); the message says which.
    #[error("nothing to evaluate: {0}")]
    Empty(String),
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Option(String),
    /// A temporary data directory could not be made.
    #[error("could not create a temporary data directory: {0}")]
    TempDir(std::io::Error),
    /// The engine could not be opened over a sample's data directory.
    #[error(transparent)]
    Open(#[from] OpenError),
}
