//! # Voyage AI
//!
//! Wire format: `POST {base_url}/embeddings` with a bearer key and
//! `{"input": [texts], "model": …, "truncation": true}`, answered by
//! `{"data": [{"index": i, "embedding": […]}, …]}`. Skipped by the
//! auto-probe when no key is configured.

use std::time::Duration;

use serde_json::json;

use hive_mind_embedding::EmbedError;

use super::config::{HttpProviderConfig, VoyageConfig};
use super::http::{
    HttpClient, HttpEmbedder, HttpSettings, RequestError, UNKNOWN_MODEL_MAX_TOKENS, WireFormat,
    measured_token_limit, parse_data_embeddings,
};

/// The provider name in fingerprints.
pub const PROVIDER: &str = "voyage";

/// Voyage's `/v1/embeddings` wire format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoyageWire {
    url: String,
    api_key: String,
    model: String,
}

impl WireFormat for VoyageWire {
    fn provider(&self) -> &'static str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn request(&self, client: &HttpClient, texts: &[&str]) -> Result<Vec<Vec<f32>>, RequestError> {
        let body = json!({"input": texts, "model": self.model, "truncation": true});
        let answer = client.post_json(&self.url, Some(&self.api_key), &body)?;
        parse_data_embeddings(&answer)
    }
}

/// Probe Voyage as configured; on success it is ready to embed.
pub fn connect(
    config: &VoyageConfig,
    http: &HttpProviderConfig,
) -> Result<HttpEmbedder<VoyageWire>, EmbedError> {
    let api_key = config
        .api_key
        .clone()
        .ok_or_else(|| EmbedError::Unavailable("voyage: no API key (set VOYAGE_API_KEY)".into()))?;
    let base = config.base_url.trim_end_matches('/');
    let client = HttpClient::new(
        base,
        Duration::from_secs_f64(http.connect_timeout_secs.max(0.001)),
        Duration::from_secs_f64(config.timeout_secs.max(0.001)),
        http.retry,
    );
    let wire = VoyageWire {
        url: format!("{base}/embeddings"),
        api_key,
        model: config.model.clone(),
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
