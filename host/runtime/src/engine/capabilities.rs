//! The `embedder`, `reranker`, `llm` and `fetch` imports.
//!
//! - `embedder` is the active [`hive_mind_models::embedder::Embedder`] chosen by the
//!   provider chain; when the chain found none, every call answers
//!   `unavailable` with the chain's report (which providers were tried and
//!   why each failed), so the component can say what to fix. A text the
//!   provider failed on alone comes back as its entry's `err` (and is
//!   logged), never as a vector. A
//!   `start-embed` batch runs on the engine's embedding thread
//!   ([`EmbedWorker`], one per engine, started on first use: a thread per
//!   batch would leave glibc a malloc arena per thread) while the engine
//!   goes on with its SQL; `finish` waits for it ([`PendingEmbedding`]).
//! - `reranker` is the configured cross-encoder, or
//!   [`hive_mind_models::reranker::Unconfigured`], which answers `unavailable`: recall
//!   then keeps the fused order. Its `info` reports the configured pair
//!   window, which sizes the engine's rerank budget per pair.
//! - `llm` is the configured provider of [`hive_mind_outbound::llm`]
//!   (OpenAI-compatible, Anthropic, Ollama: timeouts, retries with backoff,
//!   a concurrency limit for `complete-many`), or `unavailable` when none is
//!   configured; recall never needs it.
//! - `fetch` is [`hive_mind_outbound::fetch::Fetcher`] under the configured
//!   policy (http(s) only, private and loopback addresses refused unless
//!   allowed, a timeout and a size cap), for harvest's URL sources.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use wasmtime::component::Resource;

use super::EngineState;
use hive_mind_outbound::fetch::FetchError;
use hive_mind_outbound::llm as outbound;

use super::bindings::hive::mind::{embedder, fetch, llm, reranker};
use hive_mind_models::embedder::{EmbedError, Embedded, Embedder, InputKind, TextVector};
use hive_mind_models::reranker::RerankError;

fn embed_error(error: EmbedError) -> embedder::Error {
    match error {
        EmbedError::Unavailable(message) => embedder::Error::Unavailable(message),
        EmbedError::Failed(message) => embedder::Error::Failed(message),
    }
}

/// A `pending-embedding`: a batch handed to the [`EmbedWorker`].
pub enum PendingEmbedding {
    /// Queued or running; `finish` waits for the answer.
    Running(Receiver<Result<Embedded, EmbedError>>),
    /// Handed over by `finish` already.
    Finished,
}

/// One batch for the worker: the texts, their kind, where to answer.
type EmbedJob = (Vec<String>, InputKind, Sender<Result<Embedded, EmbedError>>);

/// The thread `start-embed` batches run on, one after the other. It ends
/// when its engine is dropped (the job channel closes).
pub struct EmbedWorker {
    jobs: Sender<EmbedJob>,
}

impl EmbedWorker {
    /// Start the thread over `embedder`.
    fn start(embedder: Arc<dyn Embedder>) -> std::io::Result<EmbedWorker> {
        let (jobs, queue) = channel::<EmbedJob>();
        std::thread::Builder::new()
            .name("hive-mind-embed".to_string())
            .spawn(move || {
                for (texts, kind, answer) in queue {
                    // The receiver may be gone (a dropped pending): fine.
                    let _ = answer.send(embedder.embed_marked_as(&texts, kind));
                }
            })?;
        Ok(EmbedWorker { jobs })
    }
}

fn kind_in(kind: embedder::InputKind) -> InputKind {
    match kind {
        embedder::InputKind::Query => InputKind::Query,
        embedder::InputKind::Document => InputKind::Document,
    }
}

impl EngineState {
    /// The active embedder, or `unavailable` with why there is none.
    fn active_embedder(&self) -> Result<&Arc<dyn Embedder>, embedder::Error> {
        self.capabilities
            .embedder
            .as_ref()
            .map_err(|why| embedder::Error::Unavailable(why.clone()))
    }

    /// An embedding's entries for the component: failed inputs logged,
    /// truncated ones counted.
    fn embedded_out(
        &mut self,
        result: Result<Embedded, EmbedError>,
    ) -> Result<Vec<TextVector>, embedder::Error> {
        let embedded = result.map_err(embed_error)?;
        embedded.warn_failures();
        // Counted, not logged per batch: long jobs report the total once.
        self.truncated_texts += embedded.truncated.len() as u64;
        Ok(embedded.vectors)
    }
}

impl embedder::HostPendingEmbedding for EngineState {
    fn finish(
        &mut self,
        pending: Resource<PendingEmbedding>,
    ) -> Result<Vec<TextVector>, embedder::Error> {
        let started = std::time::Instant::now();
        let state = self
            .table
            .get_mut(&pending)
            .map(|slot| std::mem::replace(slot, PendingEmbedding::Finished))
            .map_err(|error| {
                embedder::Error::Failed(format!("no such pending embedding: {error}"))
            })?;
        let result = match state {
            PendingEmbedding::Running(answer) => answer.recv().unwrap_or_else(|_| {
                Err(EmbedError::Failed(
                    "the embedding thread stopped before it answered".to_string(),
                ))
            }),
            PendingEmbedding::Finished => {
                return Err(embedder::Error::Failed(
                    "this embedding was already finished".to_string(),
                ));
            }
        };
        // Only the time recall waited counts: the rest overlapped its SQL.
        self.timings.embed += started.elapsed();
        self.embedded_out(result)
    }

    fn drop(&mut self, pending: Resource<PendingEmbedding>) -> wasmtime::Result<()> {
        // A queued batch still runs; its answer is discarded.
        self.table.delete(pending)?;
        Ok(())
    }
}

impl embedder::Host for EngineState {
    fn info(&mut self) -> Result<embedder::EmbedderInfo, embedder::Error> {
        let active = self
            .capabilities
            .embedder
            .as_ref()
            .map_err(|why| embedder::Error::Unavailable(why.clone()))?;
        let info = active.info();
        // The mock's vectors are hashes of words: they carry no meaning.
        let meaningful = !info.is_mock();
        Ok(embedder::EmbedderInfo {
            provider: info.provider,
            model: info.model,
            dimensions: info.dimensions,
            meaningful,
            max_tokens: active.token_window(),
        })
    }

    fn embed(
        &mut self,
        texts: Vec<String>,
        kind: embedder::InputKind,
    ) -> Result<Vec<TextVector>, embedder::Error> {
        let active = self.active_embedder()?;
        let started = std::time::Instant::now();
        let result = active.embed_marked_as(&texts, kind_in(kind));
        self.timings.embed += started.elapsed();
        self.embedded_out(result)
    }

    fn start_embed(
        &mut self,
        texts: Vec<String>,
        kind: embedder::InputKind,
    ) -> Result<Resource<PendingEmbedding>, embedder::Error> {
        let started = std::time::Instant::now();
        let active = Arc::clone(self.active_embedder()?);
        let worker = match self.embed_worker.take() {
            Some(worker) => worker,
            None => EmbedWorker::start(active).map_err(|error| {
                embedder::Error::Failed(format!("could not start the embedding thread: {error}"))
            })?,
        };
        let (answer, receiver) = channel();
        let sent = worker.jobs.send((texts, kind_in(kind), answer));
        // A worker that stopped is replaced on the next call.
        if sent.is_ok() {
            self.embed_worker = Some(worker);
        }
        self.timings.embed += started.elapsed();
        sent.map_err(|_| embedder::Error::Failed("the embedding thread has stopped".to_string()))?;
        self.table
            .push(PendingEmbedding::Running(receiver))
            .map_err(|error| embedder::Error::Failed(format!("no room for the embedding: {error}")))
    }
}

fn rerank_error(error: RerankError) -> reranker::Error {
    match error {
        RerankError::Unavailable(message) => reranker::Error::Unavailable(message),
        RerankError::Failed(message) => reranker::Error::Failed(message),
    }
}

impl reranker::Host for EngineState {
    fn info(&mut self) -> Result<reranker::RerankerInfo, reranker::Error> {
        let info = self.capabilities.reranker.info().map_err(rerank_error)?;
        Ok(reranker::RerankerInfo {
            model: info.model,
            max_tokens: u32::try_from(info.max_tokens).unwrap_or(u32::MAX),
        })
    }

    fn score(&mut self, query: String, passages: Vec<String>) -> Result<Vec<f32>, reranker::Error> {
        let started = std::time::Instant::now();
        let result = self
            .capabilities
            .reranker
            .score(&query, &passages)
            .map_err(rerank_error);
        self.timings.rerank += started.elapsed();
        result
    }
}

/// What the `llm` import says while no provider is configured.
pub const NO_LLM: &str = "no language model is configured ([llm] in config.toml or HIVE_MIND_LLM_PROVIDER); recall and save do not need one";

/// What the `fetch` import says when the host offers no web access.
pub const NO_FETCH: &str = "this host offers no web access";

fn tier_in(tier: llm::ModelTier) -> outbound::ModelTier {
    match tier {
        llm::ModelTier::Fast => outbound::ModelTier::Fast,
        llm::ModelTier::Capable => outbound::ModelTier::Capable,
    }
}

fn request_in(request: &llm::CompletionRequest) -> outbound::CompletionRequest {
    outbound::CompletionRequest {
        tier: tier_in(request.tier),
        system: request.system.clone(),
        prompt: request.prompt.clone(),
        max_tokens: request.max_tokens,
        json: request.json,
    }
}

fn completion_out(
    result: Result<outbound::Completion, outbound::LlmError>,
    provider: &str,
) -> Result<llm::Completion, llm::Error> {
    match result {
        Ok(completion) => Ok(llm::Completion {
            text: completion.text,
            provider: provider.to_string(),
            model: completion.model,
            usage: llm::TokenUsage {
                input_tokens: completion.usage.input_tokens,
                output_tokens: completion.usage.output_tokens,
            },
        }),
        Err(error) => Err(match error {
            outbound::LlmError::Unavailable(m) => llm::Error::Unavailable(m),
            outbound::LlmError::Failed(m) => llm::Error::Failed(m),
            outbound::LlmError::RateLimited(m) => llm::Error::RateLimited(m),
            outbound::LlmError::Timeout(m) => llm::Error::Timeout(m),
        }),
    }
}

impl llm::Host for EngineState {
    fn complete(&mut self, request: llm::CompletionRequest) -> Result<llm::Completion, llm::Error> {
        let (model, provider) = match &self.capabilities.llm {
            Ok(llm) => llm,
            Err(why) => return Err(llm::Error::Unavailable(why.clone())),
        };
        let started = std::time::Instant::now();
        let result = model.complete(&request_in(&request));
        self.timings.llm += started.elapsed();
        completion_out(result, provider)
    }

    fn complete_many(
        &mut self,
        requests: Vec<llm::CompletionRequest>,
    ) -> Vec<Result<llm::Completion, llm::Error>> {
        let (model, provider) = match &self.capabilities.llm {
            Ok(llm) => llm,
            Err(why) => {
                return requests
                    .iter()
                    .map(|_| Err(llm::Error::Unavailable(why.clone())))
                    .collect();
            }
        };
        let requests: Vec<outbound::CompletionRequest> = requests.iter().map(request_in).collect();
        let started = std::time::Instant::now();
        let results = model.complete_many(&requests);
        self.timings.llm += started.elapsed();
        results
            .into_iter()
            .map(|result| completion_out(result, provider))
            .collect()
    }
}

impl fetch::Host for EngineState {
    fn get(&mut self, url: String) -> Result<fetch::Response, fetch::Error> {
        let fetcher = match &self.capabilities.fetch {
            Ok(fetcher) => fetcher,
            Err(why) => return Err(fetch::Error::Unavailable(why.clone())),
        };
        match fetcher.get(&url) {
            Ok(response) => Ok(fetch::Response {
                url: response.url,
                content_type: response.content_type,
                body: response.body,
            }),
            Err(error) => Err(match error {
                FetchError::Unavailable(m) => fetch::Error::Unavailable(m),
                FetchError::Refused(m) => fetch::Error::Refused(m),
                FetchError::InvalidUrl(m) => fetch::Error::InvalidUrl(m),
                FetchError::Timeout(m) => fetch::Error::Timeout(m),
                FetchError::TooLarge(cap) => fetch::Error::TooLarge(cap),
                FetchError::Status(code) => fetch::Error::Status(code),
                FetchError::Failed(m) => fetch::Error::Failed(m),
            }),
        }
    }
}
