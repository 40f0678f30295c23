//! # Ollama: a local embedding server
//!
//! Wire format: `POST {host}/api/embed` with
//! `{"model": …, "input": [texts], "truncate": true}`, answered by
//! `{"embeddings": [[…], …]}`. The model's token limit is measured from the
//! model itself: `POST {host}/api/show` reports its
//! `<architecture>.context_length` (2,048 for `nomic-embed-text`), unless the
//! config sets `max_tokens`.

use std::time::Duration;

use serde_json::{Value as Json, json};

use hive_mind_embedding::EmbedError;

use super::config::{HttpProviderConfig, OllamaConfig};
use super::http::{
    HttpClient, HttpEmbedder, HttpSettings, RequestError, UNKNOWN_MODEL_MAX_TOKENS, WireFormat,
    measured_token_limit, parse_vector,
};

/// The provider name in fingerprints.
pub const PROVIDER: &str = "ollama";

/// Ollama's `/api/embed` wire format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OllamaWire {
    host: String,
    model: String,
}

impl WireFormat for OllamaWire {
    fn provider(&self) -> &'static str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn request(&self, client: &HttpClient, texts: &[&str]) -> Result<Vec<Vec<f32>>, RequestError> {
        let url = format!("{}/api/embed", self.host);
        let body = json!({"model": self.model, "input": texts, "truncate": true});
        let answer = client.post_json(&url, None, &body)?;
        answer
            .get("embeddings")
            .and_then(Json::as_array)
            .ok_or_else(|| RequestError::Malformed("no `embeddings` array".into()))?
            .iter()
            .map(parse_vector)
            .collect()
    }
}

/// Ask the server for the model's context length (`/api/show`).
pub fn context_length(client: &HttpClient, host: &str, model: &str) -> Option<usize> {
    let answer = client
        .post_json(&format!("{host}/api/show"), None, &json!({"model": model}))
        .ok()?;
    let info = answer.get("model_info")?.as_object()?;
    info.iter()
        .find(|(key, _)| key.ends_with(".context_length"))
        .and_then(|(_, value)| value.as_u64())
        .and_then(|n| usize::try_from(n).ok())
}

/// Probe Ollama as configured; on success it is ready to embed.
pub fn connect(
    config: &OllamaConfig,
    http: &HttpProviderConfig,
) -> Result<HttpEmbedder<OllamaWire>, EmbedError> {
    let host = config.host.trim_end_matches('/').to_string();
    let client = HttpClient::new(
        &host,
        Duration::from_secs_f64(http.connect_timeout_secs.max(0.001)),
        Duration::from_secs_f64(config.timeout_secs.max(0.001)),
        http.retry,
    );
    let wire = OllamaWire {
        host: host.clone(),
        model: config.model.clone(),
    };
    let settings = HttpSettings {
        batch_size: http.batch_size,
        max_tokens: UNKNOWN_MODEL_MAX_TOKENS,
    };
    let connected = HttpEmbedder::connect(wire, client.clone(), settings)?;
    let max_tokens = config
        .max_tokens
        .or_else(|| context_length(&client, &host, &config.model))
        .or_else(|| measured_token_limit(&config.model))
        .unwrap_or(UNKNOWN_MODEL_MAX_TOKENS);
    Ok(connected.with_max_tokens(max_tokens))
}
