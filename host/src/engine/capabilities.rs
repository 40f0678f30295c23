//! The `embedder`, `reranker` and `llm` imports.
//!
//! - `embedder` is the active [`crate::embedder::Embedder`] chosen by the
//!   provider chain; when the chain found none, every call answers
//!   `unavailable` with the chain's report (which providers were tried and
//!   why each failed), so the component can say what to fix.
//! - `reranker` is the configured cross-encoder, or
//!   [`crate::reranker::Unconfigured`], which answers `unavailable`: recall
//!   then keeps the fused order.
//! - `llm` answers `unavailable` until an outbound language-model provider
//!   is configured (harvest distillation brings one); recall never needs it.

use super::EngineState;
use super::bindings::hive::mind::{embedder, llm, reranker};
use crate::embedder::EmbedError;
use crate::reranker::RerankError;

fn embed_error(error: EmbedError) -> embedder::Error {
    match error {
        EmbedError::Unavailable(message) => embedder::Error::Unavailable(message),
        EmbedError::Failed(message) => embedder::Error::Failed(message),
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
        })
    }

    fn embed(&mut self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, embedder::Error> {
        let active = self
            .capabilities
            .embedder
            .as_ref()
            .map_err(|why| embedder::Error::Unavailable(why.clone()))?;
        let started = std::time::Instant::now();
        let result = active.embed_marked(&texts).map_err(embed_error);
        self.timings.embed += started.elapsed();
        let embedded = result?;
        for degraded in &embedded.degraded {
            tracing::warn!(
                index = degraded.index,
                reason = %degraded.reason,
                "text could not be embedded; it got a placeholder vector with no meaning"
            );
        }
        // Counted, not logged per batch: long jobs report the total once.
        self.truncated_texts += embedded.truncated.len() as u64;
        Ok(embedded.vectors)
    }
}

impl reranker::Host for EngineState {
    fn score(&mut self, query: String, passages: Vec<String>) -> Result<Vec<f32>, reranker::Error> {
        let started = std::time::Instant::now();
        let result =
            self.capabilities
                .reranker
                .score(&query, &passages)
                .map_err(|error| match error {
                    RerankError::Unavailable(message) => reranker::Error::Unavailable(message),
                    RerankError::Failed(message) => reranker::Error::Failed(message),
                });
        self.timings.rerank += started.elapsed();
        result
    }
}

/// What the `llm` import says while no provider is configured.
pub const NO_LLM: &str = "no language model is configured; recall and save do not need one";

impl llm::Host for EngineState {
    fn complete(
        &mut self,
        _request: llm::CompletionRequest,
    ) -> Result<llm::Completion, llm::Error> {
        Err(llm::Error::Unavailable(NO_LLM.to_string()))
    }
}
