//! # The HTTP client every provider shares
//!
//! [`LlmClient`] turns a [`CompletionRequest`] into one provider's wire
//! request ([`super::openai`], [`super::anthropic`], [`super::ollama`]),
//! sends it, and reads the answer back, with everything that is the same
//! whoever answers:
//!
//! - **Timeouts.** A connect timeout (10 s, or the request timeout if that
//!   is shorter) and a timeout for the whole attempt, answer included
//!   ([`LlmConfig::timeout`]).
//! - **Retries** on rate limits, server errors, timeouts and dropped
//!   connections, with backoff and `Retry-After`, run by the outbound
//!   crate's one retry stack ([`crate::retry::RetryPolicy::run`]).
//! - **Answers read with a cap** (16 MiB), parsed as JSON, checked for the
//!   answer field; a json request's answer loses a surrounding Markdown code
//!   fence (```` ```json … ``` ````) if the model added one.
//! - **Token accounting.** Each [`Completion`] carries its own
//!   [`super::TokenUsage`]; the client keeps running totals
//!   ([`LlmClient::usage`]) in atomics, so the `llm` import can report calls
//!   and tokens however many threads share the client.
//! - **Secrets.** The API key goes in a header and nowhere else: messages and
//!   log lines name the provider, the URL, the status and the server's own
//!   error message — with the key scrubbed out, should a server echo it.
//! - **Proxies.** `HTTP(S)_PROXY` from the environment are honoured, except
//!   for a base URL on this machine (`localhost`, `127.0.0.1`, `[::1]`).
//!
//! Messages are `"<provider>: <what happened>"`, plus `" (after N
//! retries)"` when the client retried.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value as Json;

use super::config::{ApiKey, LlmConfig, ProviderKind};
use super::wire::{ParseError, WireAnswer, WireRequest, describe_error};
use super::{Completion, CompletionRequest, LanguageModel, LlmError, ModelTier, UsageTotals};
use crate::retry::{self, RetryPolicy, server_wait};

/// Largest answer body read.
pub const MAX_ANSWER_BYTES: u64 = 16 * 1024 * 1024;

/// The message of an error body: the provider's own error message if it is
/// JSON (`error`, `message`, `detail`), else the start of the text.
fn error_body_message(text: &str) -> String {
    if let Ok(body) = serde_json::from_str::<Json>(text) {
        for field in ["error", "message", "detail"] {
            if let Some(value) = body.get(field) {
                return describe_error(value);
            }
        }
    }
    let text = crate::excerpt(text, 300);
    if text.is_empty() {
        "(empty answer)".into()
    } else {
        text
    }
}

/// Whether a 429 body says the quota is used up (OpenAI's
/// `insufficient_quota`: billing, not a rate window, so not retried).
fn is_quota_exhausted(text: &str) -> bool {
    serde_json::from_str::<Json>(text).is_ok_and(|body| {
        let error = body.get("error");
        ["code", "type"].iter().any(|field| {
            error.and_then(|e| e.get(*field)).and_then(Json::as_str) == Some("insufficient_quota")
        })
    })
}

/// Remove a Markdown code fence around a whole answer.
fn strip_code_fence(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return text;
    };
    let Some(inner) = rest.strip_suffix("```") else {
        return text;
    };
    // Drop the info string (`json`) on the opening line.
    match inner.split_once('\n') {
        Some((info, body)) if !info.contains('{') && !info.contains('[') => body.trim(),
        _ => inner.trim(),
    }
}

/// What one failed attempt means for the retry loop.
enum Attempt {
    /// Retrying may help; `error` is the answer if it is not retried.
    Transient {
        error: LlmError,
        wait: Option<Duration>,
    },
    /// The answer could not be read (retried once).
    Malformed(String),
    /// Retrying cannot help.
    Fatal(LlmError),
}

/// Running totals, shared by the threads of `complete_many`.
#[derive(Debug, Default)]
struct Totals {
    completions: AtomicU64,
    failures: AtomicU64,
    http_requests: AtomicU64,
    retries: AtomicU64,
    input_tokens: AtomicU64,
    output_tokens: AtomicU64,
}

/// A language model reached over HTTP. Cheap to share (`&LlmClient` is
/// `Send + Sync`; wrap it in an `Arc` to hand it around).
#[derive(Debug)]
pub struct LlmClient {
    provider: ProviderKind,
    base_url: String,
    api_key: Option<ApiKey>,
    fast_model: String,
    capable_model: String,
    timeout: Duration,
    retry: RetryPolicy,
    concurrency: usize,
    agent: ureq::Agent,
    totals: Totals,
}

impl LlmClient {
    /// A client for `config`. `Unavailable` (the error every call should
    /// then answer) when no provider is configured, or when the vendor's own
    /// endpoint has no key.
    pub fn new(config: &LlmConfig) -> Result<LlmClient, LlmError> {
        let provider = config.provider;
        if provider == ProviderKind::None {
            return Err(LlmError::Unavailable(
                "no language model is configured: set `provider` in the [llm] table of \
                 config.toml, or HIVE_MIND_LLM_PROVIDER (openai, anthropic or ollama)"
                    .into(),
            ));
        }
        if config.api_key.is_none() && config.is_vendor_endpoint() {
            let vendor_var = match provider {
                ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
                _ => "OPENAI_API_KEY",
            };
            return Err(LlmError::Unavailable(format!(
                "{}: {} needs an API key: set HIVE_MIND_LLM_API_KEY or {vendor_var}",
                provider.name(),
                config.base_url
            )));
        }
        let timeout = config.timeout.max(Duration::from_millis(1));
        let mut builder = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .timeout_connect(Some(config.connect_timeout.min(timeout)))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(crate::USER_AGENT);
        if is_loopback(&config.base_url) {
            builder = builder.proxy(None);
        }
        Ok(LlmClient {
            provider,
            base_url: config.base_url.trim_end_matches('/').to_string(),
            api_key: config.api_key.clone(),
            fast_model: config.fast_model.clone(),
            capable_model: config.capable_model.clone(),
            timeout,
            retry: config.retry,
            concurrency: config.concurrency.max(1),
            agent: builder.build().into(),
            totals: Totals::default(),
        })
    }

    /// The provider.
    pub fn provider(&self) -> ProviderKind {
        self.provider
    }

    /// The model asked for a tier.
    pub fn model_for(&self, tier: ModelTier) -> &str {
        match tier {
            ModelTier::Fast => &self.fast_model,
            ModelTier::Capable => &self.capable_model,
        }
    }

    /// The running totals since the client was made.
    pub fn usage(&self) -> UsageTotals {
        let read = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        UsageTotals {
            completions: read(&self.totals.completions),
            failures: read(&self.totals.failures),
            http_requests: read(&self.totals.http_requests),
            retries: read(&self.totals.retries),
            input_tokens: read(&self.totals.input_tokens),
            output_tokens: read(&self.totals.output_tokens),
        }
    }

    fn wire_request(&self, model: &str, request: &CompletionRequest) -> WireRequest {
        let key = self.api_key.as_ref();
        match self.provider {
            ProviderKind::Anthropic => {
                super::anthropic::request(&self.base_url, model, key, request)
            }
            ProviderKind::Ollama => super::ollama::request(&self.base_url, model, key, request),
            ProviderKind::Openai | ProviderKind::None => {
                super::openai::request(&self.base_url, model, key, request)
            }
        }
    }

    fn parse(&self, answer: &Json) -> Result<WireAnswer, ParseError> {
        match self.provider {
            ProviderKind::Anthropic => super::anthropic::parse(answer),
            ProviderKind::Ollama => super::ollama::parse(answer),
            ProviderKind::Openai | ProviderKind::None => super::openai::parse(answer),
        }
    }

    /// Remove the key from a message, should a server have echoed it.
    fn scrub(&self, message: String) -> String {
        match &self.api_key {
            Some(key) if key.expose().len() >= 4 && message.contains(key.expose()) => {
                message.replace(key.expose(), "<redacted>")
            }
            _ => message,
        }
    }

    fn fail(&self, error: LlmError, retries: u32) -> LlmError {
        self.totals.failures.fetch_add(1, Ordering::Relaxed);
        let note = match retries {
            0 => String::new(),
            1 => " (after 1 retry)".into(),
            n => format!(" (after {n} retries)"),
        };
        let finish = |message: &str| self.scrub(format!("{message}{note}"));
        match &error {
            LlmError::Unavailable(m) => LlmError::Unavailable(finish(m)),
            LlmError::Failed(m) => LlmError::Failed(finish(m)),
            LlmError::RateLimited(m) => LlmError::RateLimited(finish(m)),
            LlmError::Timeout(m) => LlmError::Timeout(finish(m)),
        }
    }

    /// Send one attempt and read its JSON answer.
    fn attempt(&self, wire: &WireRequest) -> Result<Json, Attempt> {
        let name = self.provider.name();
        let mut request = self.agent.post(&wire.url);
        for (header, value) in &wire.headers {
            request = request.header(*header, value.as_str());
        }
        let mut response = request
            .send_json(&wire.body)
            .map_err(|e| self.transport_failure(e))?;
        let status = response.status().as_u16();
        let wait = server_wait(response.headers());
        let bytes = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER_BYTES)
            .read_to_vec()
            .map_err(|e| self.transport_failure(e))?;
        let text = String::from_utf8_lossy(&bytes);
        if (200..300).contains(&status) {
            return serde_json::from_str(&text).map_err(|e| {
                Attempt::Malformed(format!(
                    "{name}: the answer is not valid JSON ({e}); it may have been cut off"
                ))
            });
        }
        let message = format!("{name}: HTTP {status}: {}", error_body_message(&text));
        Err(match status {
            429 if is_quota_exhausted(&text) => Attempt::Fatal(LlmError::RateLimited(format!(
                "{message}; the account's quota is used up, so retrying cannot help"
            ))),
            429 => match wait {
                Some(wait) if wait > self.retry.max_retry_after => {
                    Attempt::Fatal(LlmError::RateLimited(format!(
                        "{message}; the server asks to wait {} s, longer than the {} s this \
                         host waits",
                        wait.as_secs_f64().ceil(),
                        self.retry.max_retry_after.as_secs_f64()
                    )))
                }
                _ => Attempt::Transient {
                    error: LlmError::RateLimited(message),
                    wait,
                },
            },
            408 => Attempt::Transient {
                error: LlmError::Timeout(message),
                wait,
            },
            500..=599 => Attempt::Transient {
                error: LlmError::Failed(message),
                wait: wait.filter(|w| *w <= self.retry.max_retry_after),
            },
            _ => Attempt::Fatal(LlmError::Failed(message)),
        })
    }

    /// What a transport error means.
    fn transport_failure(&self, error: ureq::Error) -> Attempt {
        let name = self.provider.name();
        if crate::is_timeout(&error) {
            return Attempt::Transient {
                error: LlmError::Timeout(format!(
                    "{name}: no answer from {} within {} s",
                    self.base_url,
                    self.timeout.as_secs_f64()
                )),
                wait: None,
            };
        }
        match &error {
            ureq::Error::HostNotFound => Attempt::Fatal(LlmError::Unavailable(format!(
                "{name}: cannot resolve the host of {}",
                self.base_url
            ))),
            ureq::Error::ConnectionFailed => Attempt::Fatal(LlmError::Unavailable(format!(
                "{name}: cannot connect to {}",
                self.base_url
            ))),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                Attempt::Fatal(LlmError::Unavailable(format!(
                    "{name}: nothing answers at {} (connection refused)",
                    self.base_url
                )))
            }
            ureq::Error::BodyExceedsLimit(_) => Attempt::Fatal(LlmError::Failed(format!(
                "{name}: the answer is larger than {MAX_ANSWER_BYTES} bytes"
            ))),
            ureq::Error::Io(_) | ureq::Error::Protocol(_) => Attempt::Transient {
                error: LlmError::Failed(format!("{name}: the connection failed: {error}")),
                wait: None,
            },
            _ => Attempt::Fatal(LlmError::Failed(format!("{name}: {error}"))),
        }
    }

    /// A parsed answer becomes a completion (or, cut JSON, a failure).
    fn finish(
        &self,
        answer: WireAnswer,
        model: &str,
        request: &CompletionRequest,
        retries: u32,
    ) -> Result<Completion, LlmError> {
        let name = self.provider.name();
        self.totals
            .input_tokens
            .fetch_add(u64::from(answer.usage.input_tokens), Ordering::Relaxed);
        self.totals
            .output_tokens
            .fetch_add(u64::from(answer.usage.output_tokens), Ordering::Relaxed);
        let text = if request.json {
            strip_code_fence(&answer.text).to_string()
        } else {
            answer.text
        };
        if answer.truncated {
            if request.json && serde_json::from_str::<Json>(&text).is_err() {
                return Err(self.fail(
                    LlmError::Failed(format!(
                        "{name}: the answer was cut at max_tokens ({}) before its JSON was \
                         complete; raise max_tokens",
                        request.max_tokens
                    )),
                    retries,
                ));
            }
            tracing::warn!(
                provider = name,
                model,
                max_tokens = request.max_tokens,
                "the answer was cut at max_tokens"
            );
        }
        self.totals.completions.fetch_add(1, Ordering::Relaxed);
        Ok(Completion {
            text,
            model: answer
                .model
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| model.to_string()),
            usage: answer.usage,
            retries,
            truncated: answer.truncated,
        })
    }
}

impl LanguageModel for LlmClient {
    fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        let name = self.provider.name();
        let model = self.model_for(request.tier).to_string();
        let wire = self.wire_request(&model, request);
        let mut malformed_before = false;
        let attempt = || {
            self.totals.http_requests.fetch_add(1, Ordering::Relaxed);
            let failure = match self.attempt(&wire) {
                Ok(body) => match self.parse(&body) {
                    Ok(answer) => return Ok(answer),
                    Err(ParseError::Provider(message)) => {
                        Attempt::Fatal(LlmError::Failed(format!("{name}: {message}")))
                    }
                    Err(ParseError::Malformed(message)) => {
                        Attempt::Malformed(format!("{name}: unexpected answer: {message}"))
                    }
                },
                Err(failure) => failure,
            };
            Err(match failure {
                Attempt::Fatal(error) => retry::Attempt::Fatal(error),
                // A malformed answer is retried once (see `crate::retry`).
                Attempt::Malformed(message) if malformed_before => {
                    retry::Attempt::Fatal(LlmError::Failed(message))
                }
                Attempt::Malformed(message) => {
                    malformed_before = true;
                    retry::Attempt::Transient {
                        error: LlmError::Failed(message),
                        wait: None,
                    }
                }
                Attempt::Transient { error, wait } => retry::Attempt::Transient { error, wait },
            })
        };
        let before_retry = |error: &LlmError, retry: u32, delay: Duration| {
            tracing::warn!(
                provider = name,
                model = model.as_str(),
                retry,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                reason = self.scrub(error.message().to_string()),
                "retrying a completion"
            );
            self.totals.retries.fetch_add(1, Ordering::Relaxed);
        };
        match self.retry.run(attempt, before_retry) {
            Ok((answer, retries)) => self.finish(answer, &model, request, retries),
            Err((error, retries)) => Err(self.fail(error, retries)),
        }
    }

    fn concurrency(&self) -> usize {
        self.concurrency
    }
}

/// Whether a URL points at this machine (no proxy for those).
fn is_loopback(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}
