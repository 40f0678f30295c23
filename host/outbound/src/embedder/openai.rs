//! # OpenAI-compatible embedding servers
//!
//! OpenAI itself, and everything that speaks its API: LiteLLM, vLLM,
//! llama.cpp's server, LM Studio, text-embeddings-inference… Wire format:
//! `POST {base_url}/embeddings` (the base includes `/v1`), with a bearer key
//! when one is configured, and
//! `{"input": [texts], "model": …, "encoding_format": "float"}` (plus
//! `"dimensions"` when configured), answered by
//! `{"data": [{"index": i, "embedding": […]}, …]}`.
//!
//! The auto-probe tries it when a key or a base URL is configured.

use std::time::Duration;

use serde_json::json;

use hive_mind_embedding::EmbedError;

use super::config::{HttpProviderConfig, OpenAiConfig};
use super::http::{
    HttpClient, HttpEmbedder, HttpSettings, RequestError, UNKNOWN_MODEL_MAX_TOKENS, WireFormat,
    measured_token_limit, parse_data_embeddings,
};

/// The provider name in fingerprints.
pub const PROVIDER: &str = "openai-compatible";

/// The OpenAI `/v1/embeddings` wire format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAiWire {
    url: String,
    api_key: Option<String>,
    model: String,
    dimensions: Option<u32>,
}

impl WireFormat for OpenAiWire {
    fn provider(&self) -> &'static str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn request(&self, client: &HttpClient, texts: &[&str]) -> Result<Vec<Vec<f32>>, RequestError> {
        let mut body = json!({"input": texts, "model": self.model, "encoding_format": "float"});
        if let (Some(dimensions), Some(object)) = (self.dimensions, body.as_object_mut()) {
            object.insert("dimensions".into(), json!(dimensions));
        }
        let answer = client.post_json(&self.url, self.api_key.as_deref(), &body)?;
        parse_data_embeddings(&answer)
    }
}

/// Probe the server as configured; on success it is ready to embed.
pub fn connect(
    config: &OpenAiConfig,
    http: &HttpProviderConfig,
) -> Result<HttpEmbedder<OpenAiWire>, EmbedError> {
    let base = config.base_url.trim_end_matches('/');
    let client = HttpClient::new(
        base,
        Duration::from_secs_f64(http.connect_timeout_secs.max(0.001)),
        Duration::from_secs_f64(config.timeout_secs.max(0.001)),
        http.retry,
    );
    let wire = OpenAiWire {
        url: format!("{base}/embeddings"),
        api_key: config.api_key.clone(),
        model: config.model.clone(),
        dimensions: config.dimensions,
    };
    let max_tokens = config
        .max_tokens
        .or_else(|| measured_token_limit(&config.model))
        .unwrap_or(UNKNOWN_MODEL_MAX_TOKENS);
    HttpEmbedder::connect(
        wire,
        client,
        HttpSettings {
            batch_size: http.batch_size,
            max_tokens,
        },
    )
}
