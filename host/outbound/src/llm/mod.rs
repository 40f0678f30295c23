//! # Language models: the host side of the `llm` import
//!
//! `wit/llm.wit` lets the engine ask for a completion without knowing who
//! answers. This module is who answers. The shapes mirror the WIT one for
//! one — [`CompletionRequest`] (a [`ModelTier`], `system`, `prompt`,
//! `max_tokens`, `json`), [`Completion`] (`text`, `model`, [`TokenUsage`]) and
//! [`LlmError`] (`Unavailable`, `Failed`, `RateLimited`, `Timeout`) — so the
//! host's import is a field-by-field copy.
//!
//! ## The pieces
//!
//! - [`LanguageModel`] is the trait the import calls: `complete` one request,
//!   or `complete_many` (concurrently, up to a limit, answers in request
//!   order; see [`complete_concurrently`]). A fake for the host's own tests
//!   is a few lines implementing `complete`.
//! - [`LlmClient`] is the real one: a provider ([`ProviderKind`]) reached over
//!   HTTP, configured by [`LlmConfig`] (the `[llm]` table and its
//!   environment variables, see [`config`]).
//! - Each provider's wire format is its own file: [`openai`] (OpenAI-compatible
//!   `/chat/completions`: OpenAI, LiteLLM, vLLM, llama.cpp, Ollama's `/v1`),
//!   [`anthropic`] (`/v1/messages`) and [`ollama`] (native `/api/chat`).
//! - [`crate::retry`] holds the retry policy the client runs its requests
//!   under: which failures are retried, how long to back off, and how
//!   `Retry-After` is read (the outbound crate's one retry stack).
//!
//! ## Tiers
//!
//! The engine asks for a *tier*, not a model: [`ModelTier::Fast`] for
//! triage and classification, [`ModelTier::Capable`] for extraction and
//! synthesis. Each provider maps the two to `fast_model` and `capable_model`
//! (defaults in [`config`]).
//!
//! ## Cut-off answers
//!
//! When a provider says it stopped because the answer reached `max_tokens`
//! (`finish_reason: "length"`, `stop_reason: "max_tokens"`,
//! `done_reason: "length"`), the answer is *cut*. A cut prose answer is still
//! worth having: it is returned with [`Completion::truncated`] set (and a
//! warning logged). A cut answer to a `json` request is almost never valid
//! JSON, so unless the text still parses as JSON it is [`LlmError::Failed`],
//! saying to raise `max_tokens`; it is not retried (the same request would be
//! cut the same way). Either way its tokens are counted.

pub mod anthropic;
pub mod client;
pub mod config;
pub mod ollama;
pub mod openai;
mod wire;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use crate::retry::RetryPolicy;
pub use client::LlmClient;
pub use config::{ApiKey, LlmConfig, ProviderKind};

/// How capable (and costly) a model the task needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelTier {
    /// Cheap and fast: classification, triage.
    Fast,
    /// Careful: extraction and synthesis.
    Capable,
}

/// A completion request (the WIT `completion-request`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionRequest {
    /// Which tier of model to use.
    pub tier: ModelTier,
    /// Instructions for the model (empty: none are sent).
    pub system: String,
    /// The prompt.
    pub prompt: String,
    /// Upper bound on the answer's length, in tokens (0 is sent as 1).
    pub max_tokens: u32,
    /// Ask for a JSON answer (the provider's JSON mode where it has one).
    pub json: bool,
}

/// Tokens one completion used, as the provider reported them (0 where it
/// reports none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TokenUsage {
    /// Tokens of the system text and prompt.
    pub input_tokens: u32,
    /// Tokens of the answer.
    pub output_tokens: u32,
}

/// A completion (the WIT `completion`, plus two facts the WIT does not carry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The model's answer.
    pub text: String,
    /// The model that answered (as the provider named it, else the model
    /// asked for).
    pub model: String,
    /// What it cost.
    pub usage: TokenUsage,
    /// How many times the request was retried before this answer.
    pub retries: u32,
    /// The answer stopped at `max_tokens` (see the module docs).
    pub truncated: bool,
}

/// Why a completion failed (the WIT `error`). Messages name the provider and
/// never contain an API key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// No model is configured or reachable.
    #[error("no language model available: {0}")]
    Unavailable(String),
    /// The provider refused or failed the request; the message says why.
    #[error("the language model failed: {0}")]
    Failed(String),
    /// The provider's rate limit or quota was hit and the retries ran out.
    #[error("the language model is rate limited: {0}")]
    RateLimited(String),
    /// The provider did not answer in time (after the retries).
    #[error("the language model timed out: {0}")]
    Timeout(String),
}

impl LlmError {
    /// The message, without the kind (what the WIT variant carries).
    pub fn message(&self) -> &str {
        match self {
            LlmError::Unavailable(message)
            | LlmError::Failed(message)
            | LlmError::RateLimited(message)
            | LlmError::Timeout(message) => message,
        }
    }
}

/// Running totals of one client's work, for the host to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UsageTotals {
    /// Completions that succeeded.
    pub completions: u64,
    /// Completions that failed (after their retries).
    pub failures: u64,
    /// HTTP requests sent (first attempts and retries).
    pub http_requests: u64,
    /// Of those, retries.
    pub retries: u64,
    /// Input tokens reported by the provider, all requests together.
    pub input_tokens: u64,
    /// Output tokens reported by the provider, all requests together.
    pub output_tokens: u64,
}

/// A language model the `llm` import can call.
///
/// Implementations must be shareable across threads: `complete_many` calls
/// `complete` from several at once.
pub trait LanguageModel: Send + Sync {
    /// Complete one request.
    fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError>;

    /// How many requests `complete_many` runs at once (at least 1).
    fn concurrency(&self) -> usize {
        1
    }

    /// Complete several independent requests, up to
    /// [`LanguageModel::concurrency`] at once; one result per request, in
    /// request order.
    fn complete_many(&self, requests: &[CompletionRequest]) -> Vec<Result<Completion, LlmError>> {
        complete_concurrently(self, requests, self.concurrency())
    }
}

/// Run `model.complete` over `requests` on up to `limit` std threads (a
/// scoped pool pulling from a shared index, so a slow request does not hold
/// up the others' slots). Results come back in request order. With one
/// request, or `limit` ≤ 1, everything runs on the calling thread. If a
/// thread cannot be spawned the calling thread does the work itself; a
/// request whose worker panicked answers [`LlmError::Failed`].
pub fn complete_concurrently<M: LanguageModel + ?Sized>(
    model: &M,
    requests: &[CompletionRequest],
    limit: usize,
) -> Vec<Result<Completion, LlmError>> {
    let workers = limit.max(1).min(requests.len());
    if workers <= 1 {
        return requests
            .iter()
            .map(|request| model.complete(request))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<Completion, LlmError>>>> =
        requests.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(request) = requests.get(index) else {
                break;
            };
            let result = model.complete(request);
            if let Some(slot) = slots.get(index) {
                *slot.lock().unwrap_or_else(|poison| poison.into_inner()) = Some(result);
            }
        }
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .filter_map(|n| {
                std::thread::Builder::new()
                    .name(format!("hive-mind-llm-{n}"))
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        if handles.is_empty() {
            work();
        }
        for handle in handles {
            // A panicking worker leaves its slot empty; reported below.
            let _ = handle.join();
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|poison| poison.into_inner())
                .unwrap_or_else(|| {
                    Err(LlmError::Failed(
                        "internal error: the worker running this request stopped".into(),
                    ))
                })
        })
        .collect()
}
