//! # What every HTTP embedding provider shares
//!
//! Ollama, Voyage and the OpenAI-compatible servers differ only in their
//! wire format (a [`WireFormat`]: how to ask for a batch, how to read the
//! answer). Everything else is here, in [`HttpEmbedder`]:
//!
//! - **Timeouts.** A connect timeout (short, so a local server that is not
//!   running does not stall the auto-probe) and an overall request timeout
//!   per provider.
//! - **Retries.** Every request runs on the host's one retry stack,
//!   [`crate::retry`], as the language models' do: a timeout, a
//!   dropped connection, `408`, `429` and `5xx` are retried with backoff, or
//!   after the server's `Retry-After`; a refused connection and any other
//!   status are not. The policy is the config's
//!   ([`super::config::HttpProviderConfig::retry`]).
//! - **Probing.** [`HttpEmbedder::connect`] embeds one text, once (no
//!   retries: a down server must not stall the auto-probe), before the
//!   provider is accepted; that also measures the vector dimension.
//! - **Char capping.** Each text is cut to `3 × max_tokens` characters before
//!   it is sent, where `max_tokens` is the model's *measured* limit
//!   (configured, asked of the server, or from [`measured_token_limit`]) —
//!   never guessed from the model's name (`nomic-embed-text` stops at 2,048
//!   tokens whatever "8k" its family promises).
//! - **Batches with per-text retry.** Texts go `batch_size` at a time. When
//!   a batch still fails after the retries on something other than the
//!   transport (an HTTP error status, a malformed answer: its content, most
//!   likely), each of its texts is retried alone — a long text that is
//!   refused is retried once cut to a quarter — and only the texts that still
//!   fail have no vector: their entry in [`Embedded::vectors`] says
//!   why, and the engine stores nothing for them (never a placeholder that
//!   would rank at random). If every text fails, or the server cannot be
//!   reached at all, the call fails instead.
//! - **Normalising.** Vectors are L2-normalised on arrival and must all have
//!   the probed dimension.

use std::fmt;
use std::time::Duration;

use hive_mind_embedding::{EmbedError, Embedded, Embedder, EmbedderInfo, cap_chars, l2_normalize};
use serde_json::Value as Json;

use crate::retry::{self, RetryPolicy, is_transient_status, is_transient_transport, server_wait};

/// Characters sent per token of the model's limit.
pub const CHARS_PER_TOKEN: usize = 3;
/// The token limit assumed for a model nobody measured.
pub const UNKNOWN_MODEL_MAX_TOKENS: usize = 512;
/// The text used to probe a provider.
pub const PROBE_TEXT: &str = "hive-mind embedding probe";
/// Texts longer than this many characters are retried shortened when
/// refused on their own.
const SHORTEN_RETRY_ABOVE_CHARS: usize = 2048;
/// Largest response body read (a batch of 3,072-d vectors as JSON is a few MB).
const MAX_RESPONSE_BYTES: u64 = 256 * 1024 * 1024;

/// Token limits measured for well-known embedding models (the context the
/// model actually accepts, not what its name suggests). Keys are matched
/// against the model name without an Ollama `:tag`.
const MEASURED_TOKEN_LIMITS: &[(&str, usize)] = &[
    ("nomic-embed-text", 2048),
    ("mxbai-embed-large", 512),
    ("all-minilm", 256),
    ("all-MiniLM-L6-v2", 256),
    ("snowflake-arctic-embed", 512),
    ("bge-m3", 8192),
    ("bge-large", 512),
    ("text-embedding-3-small", 8191),
    ("text-embedding-3-large", 8191),
    ("text-embedding-ada-002", 8191),
    ("voyage-3-lite", 32000),
    ("voyage-3", 32000),
    ("voyage-3-large", 32000),
    ("voyage-3.5", 32000),
    ("voyage-3.5-lite", 32000),
    ("voyage-code-3", 32000),
];

/// The measured token limit of a known model, else `None`.
pub fn measured_token_limit(model: &str) -> Option<usize> {
    let base = model.split(':').next().unwrap_or(model);
    let base = base.rsplit('/').next().unwrap_or(base);
    MEASURED_TOKEN_LIMITS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(base))
        .map(|(_, limit)| *limit)
}

/// Why one request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// The server could not be reached or did not answer in time: retrying
    /// text by text would only wait longer.
    Transport(String),
    /// The server answered with an error status.
    Status {
        /// The HTTP status.
        code: u16,
        /// The start of the response body.
        body: String,
    },
    /// The answer was not what the wire format promises.
    Malformed(String),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::Transport(message) => write!(f, "unreachable: {message}"),
            RequestError::Status { code, body } => write!(f, "HTTP {code}: {body}"),
            RequestError::Malformed(message) => write!(f, "unexpected answer: {message}"),
        }
    }
}

/// A blocking JSON-over-HTTP client with timeouts and retries.
#[derive(Debug, Clone)]
pub struct HttpClient {
    agent: ureq::Agent,
    retry: RetryPolicy,
}

impl HttpClient {
    /// A client for `base_url`, giving up on a connection after `connect` and
    /// on a whole request after `timeout`, retrying under `retry`. Proxies
    /// from the environment are honoured except for loopback addresses.
    pub fn new(
        base_url: &str,
        connect: Duration,
        timeout: Duration,
        retry: RetryPolicy,
    ) -> HttpClient {
        let mut builder = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .timeout_connect(Some(connect))
            .http_status_as_error(false)
            .user_agent(crate::USER_AGENT);
        if is_loopback(base_url) {
            builder = builder.proxy(None);
        }
        HttpClient {
            agent: builder.build().into(),
            retry,
        }
    }

    /// The same client, making each request once.
    pub fn single_attempt(&self) -> HttpClient {
        HttpClient {
            agent: self.agent.clone(),
            retry: RetryPolicy {
                max_retries: 0,
                ..self.retry
            },
        }
    }

    /// POST `body` as JSON to `url` (with a bearer token when given) and
    /// parse the JSON answer, retrying what may pass (see the module docs).
    pub fn post_json(
        &self,
        url: &str,
        bearer: Option<&str>,
        body: &Json,
    ) -> Result<Json, RequestError> {
        self.retry
            .run(
                || self.attempt(url, bearer, body),
                |error, retry, delay| {
                    tracing::warn!(
                        url,
                        retry,
                        delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                        reason = %error,
                        "retrying an embedding request"
                    );
                },
            )
            .map(|(answer, _)| answer)
            .map_err(|(error, _)| error)
    }

    /// One request, its failure classified for the retry stack.
    fn attempt(
        &self,
        url: &str,
        bearer: Option<&str>,
        body: &Json,
    ) -> Result<Json, retry::Attempt<RequestError>> {
        let mut request = self.agent.post(url);
        if let Some(token) = bearer {
            request = request.header("Authorization", &format!("Bearer {token}"));
        }
        let mut response = request.send_json(body).map_err(transport_failure)?;
        let code = response.status().as_u16();
        let wait = server_wait(response.headers());
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE_BYTES)
            .read_to_string()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => {
                    retry::Attempt::Fatal(RequestError::Malformed(e.to_string()))
                }
                other => transport_failure(other),
            })?;
        if !(200..300).contains(&code) {
            let (body, _) = cap_chars(text.trim(), 300);
            let error = RequestError::Status {
                code,
                body: body.to_string(),
            };
            // A wait longer than the policy's: a rate limit ends here, a
            // server error takes the backoff (as the language models do).
            let too_long = wait.is_some_and(|wait| wait > self.retry.max_retry_after);
            return Err(match code {
                _ if !is_transient_status(code) => retry::Attempt::Fatal(error),
                429 if too_long => retry::Attempt::Fatal(error),
                _ => retry::Attempt::Transient {
                    error,
                    wait: wait.filter(|_| !too_long),
                },
            });
        }
        serde_json::from_str(&text)
            .map_err(|e| retry::Attempt::Fatal(RequestError::Malformed(format!("not JSON: {e}"))))
    }
}

/// A request that got no answer, for the retry stack.
fn transport_failure(error: ureq::Error) -> retry::Attempt<RequestError> {
    let transient = is_transient_transport(&error);
    let error = RequestError::Transport(error.to_string());
    if transient {
        retry::Attempt::Transient { error, wait: None }
    } else {
        retry::Attempt::Fatal(error)
    }
}

/// Whether a URL points at this machine.
pub fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?']).next().unwrap_or(rest);
    let host = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// One provider's wire format.
pub trait WireFormat: Send + Sync + fmt::Debug {
    /// The provider name in fingerprints.
    fn provider(&self) -> &'static str;
    /// The model name in fingerprints.
    fn model(&self) -> &str;
    /// Ask for the embeddings of `texts` in one request; one vector per text,
    /// in order (not yet normalised).
    fn request(&self, client: &HttpClient, texts: &[&str]) -> Result<Vec<Vec<f32>>, RequestError>;
}

/// Settings shared by the HTTP providers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HttpSettings {
    /// Texts per request.
    pub batch_size: usize,
    /// The model's token limit (see [`measured_token_limit`]).
    pub max_tokens: usize,
}

/// An embedding provider reached over HTTP.
#[derive(Debug)]
pub struct HttpEmbedder<W: WireFormat> {
    wire: W,
    client: HttpClient,
    settings: HttpSettings,
    dimensions: u32,
}

impl<W: WireFormat> HttpEmbedder<W> {
    /// Probe the provider with one text; on success it is ready and its
    /// dimension known. Failure is [`EmbedError::Unavailable`], saying why.
    pub fn connect(
        wire: W,
        client: HttpClient,
        settings: HttpSettings,
    ) -> Result<HttpEmbedder<W>, EmbedError> {
        let provider = wire.provider();
        let vectors = wire
            .request(&client.single_attempt(), &[PROBE_TEXT])
            .map_err(|e| EmbedError::Unavailable(format!("{provider}: {e}")))?;
        let dimensions = match vectors.as_slice() {
            [vector] if !vector.is_empty() => u32::try_from(vector.len()).unwrap_or(u32::MAX),
            _ => {
                return Err(EmbedError::Unavailable(format!(
                    "{provider}: the probe returned {} vectors, expected one non-empty vector",
                    vectors.len()
                )));
            }
        };
        Ok(HttpEmbedder {
            wire,
            client,
            settings: HttpSettings {
                batch_size: settings.batch_size.max(1),
                max_tokens: settings.max_tokens.max(1),
            },
            dimensions,
        })
    }

    /// Use `max_tokens` as the model's limit (measured after connecting).
    pub fn with_max_tokens(mut self, max_tokens: usize) -> HttpEmbedder<W> {
        self.settings.max_tokens = max_tokens.max(1);
        self
    }

    /// The model's token limit in use.
    pub fn max_tokens(&self) -> usize {
        self.settings.max_tokens
    }

    /// The characters kept per text.
    pub fn max_chars(&self) -> usize {
        self.settings.max_tokens.saturating_mul(CHARS_PER_TOKEN)
    }

    /// One request, checked: the right count, the right dimension, finite
    /// numbers; normalised.
    fn checked_request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, RequestError> {
        let mut vectors = self.wire.request(&self.client, texts)?;
        if vectors.len() != texts.len() {
            return Err(RequestError::Malformed(format!(
                "{} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        for vector in &mut vectors {
            if vector.len() != self.dimensions as usize {
                return Err(RequestError::Malformed(format!(
                    "a {}-d vector from a {}-d embedder",
                    vector.len(),
                    self.dimensions
                )));
            }
            if vector.iter().any(|x| !x.is_finite()) {
                return Err(RequestError::Malformed(
                    "a vector holds NaN or infinity".into(),
                ));
            }
            l2_normalize(vector);
        }
        Ok(vectors)
    }

    /// Retry one text alone; a long text refused by status is retried once
    /// cut to a quarter. Returns the vector and whether it was shortened.
    fn retry_one(&self, text: &str) -> Result<(Vec<f32>, bool), RequestError> {
        match self.checked_request(&[text]) {
            Ok(mut vectors) => vectors
                .pop()
                .map(|vector| (vector, false))
                .ok_or_else(|| RequestError::Malformed("no vector".into())),
            Err(RequestError::Status { .. })
                if text.chars().count() > SHORTEN_RETRY_ABOVE_CHARS =>
            {
                let (short, _) = cap_chars(text, text.chars().count() / 4);
                let mut vectors = self.checked_request(&[short])?;
                vectors
                    .pop()
                    .map(|vector| (vector, true))
                    .ok_or_else(|| RequestError::Malformed("no vector".into()))
            }
            Err(error) => Err(error),
        }
    }
}

impl<W: WireFormat> Embedder for HttpEmbedder<W> {
    fn info(&self) -> EmbedderInfo {
        EmbedderInfo {
            provider: self.wire.provider().to_string(),
            model: self.wire.model().to_string(),
            dimensions: self.dimensions,
        }
    }

    fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError> {
        let provider = self.wire.provider();
        let max_chars = self.max_chars();
        let mut capped = Vec::with_capacity(texts.len());
        let mut truncated = Vec::new();
        for (index, text) in texts.iter().enumerate() {
            let (text, cut) = cap_chars(text, max_chars);
            if cut {
                truncated.push(index);
            }
            capped.push(text);
        }
        if !truncated.is_empty() {
            tracing::debug!(
                provider,
                count = truncated.len(),
                max_chars,
                "texts over the model's measured token limit were cut before sending"
            );
        }
        let mut vectors = Vec::with_capacity(texts.len());
        let mut failed = 0usize;
        for (batch_index, batch) in capped.chunks(self.settings.batch_size).enumerate() {
            let offset = batch_index * self.settings.batch_size;
            match self.checked_request(batch) {
                Ok(batch_vectors) => vectors.extend(batch_vectors.into_iter().map(Ok)),
                Err(RequestError::Transport(message)) => {
                    return Err(EmbedError::Failed(format!(
                        "{provider} is unreachable: {message}"
                    )));
                }
                Err(batch_error) => {
                    tracing::warn!(provider, error = %batch_error, size = batch.len(),
                        "batch failed; retrying its texts one at a time");
                    for (position, text) in batch.iter().enumerate() {
                        let index = offset + position;
                        match self.retry_one(text) {
                            Ok((vector, shortened)) => {
                                if shortened && !truncated.contains(&index) {
                                    truncated.push(index);
                                }
                                vectors.push(Ok(vector));
                            }
                            Err(RequestError::Transport(message)) => {
                                return Err(EmbedError::Failed(format!(
                                    "{provider} is unreachable: {message}"
                                )));
                            }
                            Err(error) => {
                                failed += 1;
                                vectors.push(Err(error.to_string()));
                            }
                        }
                    }
                }
            }
        }
        if !texts.is_empty() && failed == texts.len() {
            let reason = vectors
                .iter()
                .find_map(|vector| vector.as_ref().err().cloned())
                .unwrap_or_default();
            return Err(EmbedError::Failed(format!(
                "{provider} failed on every text: {reason}"
            )));
        }
        truncated.sort_unstable();
        Ok(Embedded { vectors, truncated })
    }
}

/// Read `data[].embedding` (ordered by `data[].index`), the answer shape of
/// OpenAI-compatible servers and Voyage.
pub fn parse_data_embeddings(answer: &Json) -> Result<Vec<Vec<f32>>, RequestError> {
    let data = answer
        .get("data")
        .and_then(Json::as_array)
        .ok_or_else(|| RequestError::Malformed("no `data` array".into()))?;
    let mut indexed = Vec::with_capacity(data.len());
    for (position, item) in data.iter().enumerate() {
        let index = item
            .get("index")
            .and_then(Json::as_u64)
            .map_or(position, |i| usize::try_from(i).unwrap_or(usize::MAX));
        let vector = item
            .get("embedding")
            .ok_or_else(|| RequestError::Malformed("an item has no `embedding`".into()))
            .and_then(parse_vector)?;
        indexed.push((index, vector));
    }
    indexed.sort_by_key(|(index, _)| *index);
    if indexed
        .iter()
        .enumerate()
        .any(|(position, (index, _))| position != *index)
    {
        return Err(RequestError::Malformed("`data[].index` is not 0..n".into()));
    }
    Ok(indexed.into_iter().map(|(_, vector)| vector).collect())
}

/// Read a JSON array of numbers as a vector.
pub fn parse_vector(value: &Json) -> Result<Vec<f32>, RequestError> {
    value
        .as_array()
        .ok_or_else(|| RequestError::Malformed("an embedding is not an array".into()))?
        .iter()
        .map(|x| {
            x.as_f64()
                .map(|x| x as f32)
                .ok_or_else(|| RequestError::Malformed("an embedding holds a non-number".into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_limits_are_by_measurement_table() {
        assert_eq!(measured_token_limit("nomic-embed-text:latest"), Some(2048));
        assert_eq!(
            measured_token_limit("openai/text-embedding-3-small"),
            Some(8191)
        );
        assert_eq!(measured_token_limit("some-new-model-8k"), None);
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost:11434"));
        assert!(is_loopback("http://[::1]:9/x"));
        assert!(!is_loopback("https://api.openai.com/v1"));
        assert!(!is_loopback("http://10.0.0.1:11434"));
    }

    #[test]
    fn data_embeddings_in_index_order() {
        let answer = serde_json::json!({"data": [
            {"index": 1, "embedding": [0.0, 1.0]},
            {"index": 0, "embedding": [1.0, 0.0]},
        ]});
        assert_eq!(
            parse_data_embeddings(&answer).unwrap(),
            vec![vec![1.0, 0.0], vec![0.0, 1.0]]
        );
        let gap = serde_json::json!({"data": [{"index": 3, "embedding": [1.0]}]});
        assert!(parse_data_embeddings(&gap).is_err());
    }
}
