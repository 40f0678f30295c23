//! # Retrying: what, how often, how long to wait
//!
//! The one retry stack of the host's outbound HTTP: the language models
//! ([`crate::llm`]) and the HTTP embedders ([`crate::embedder::http`])
//! both run their requests through [`RetryPolicy::run`], and read a
//! server's wait with [`server_wait`].
//!
//! Remote models fail in ways that pass: a rate limit (`429`), an overloaded
//! or restarting server (`5xx`, Anthropic's `529`), a timeout, a connection
//! reset ([`is_transient_status`], [`is_transient_transport`]). Those are
//! retried, up to [`RetryPolicy::max_retries`] times after the first
//! attempt. Everything else is answered at once; for a language model:
//!
//! | failure | retried | after the retries |
//! |---|---|---|
//! | `429` | yes | `RateLimited` |
//! | `429` with `insufficient_quota` (OpenAI: billing, not a window) | no | `RateLimited` |
//! | `408`, timeout | yes | `Timeout` |
//! | `5xx` | yes | `Failed` |
//! | connection reset / aborted / cut, protocol error | yes | `Failed` |
//! | connection refused, host not found | no | `Unavailable` (nothing listens there) |
//! | other `4xx` (bad key, unknown model, bad request), TLS error | no | `Failed` |
//! | an answer that is not JSON or lacks the answer field | **once** | `Failed` |
//! | a `json` answer cut at `max_tokens` | no | `Failed` |
//!
//! A malformed answer is retried once only: a proxy that cut the body, or a
//! gateway's HTML error page, passes on a second try, but a server that
//! speaks another wire format (the wrong `provider`) answers malformed every
//! time, and retrying it four times only hides the mistake for longer.
//!
//! An embedder retries the same transient failures; what is left after the
//! retries — a status that stays an error, an answer it cannot read — is a
//! failure of the batch's content, which the embedder answers on its own by
//! retrying the batch one text at a time.
//!
//! ## How long to wait
//!
//! Retry *k* (counting from 0) waits `base_delay × 2^k`, capped at
//! `max_delay`, with jitter: a random point in the upper half of that
//! interval, so that the workers of a `complete_many` that were rate-limited
//! together do not come back together. The defaults (0.5 s base, 20 s cap)
//! give about 0.5, 1, 2 and 4 s for the four default retries.
//!
//! When the server says how long to wait (`Retry-After`, in seconds or as an
//! HTTP-date; or `retry-after-ms`, which OpenAI-compatible gateways send),
//! that wait is used instead of the backoff — unless it is longer than
//! `max_retry_after` (default 60 s). Then the client does not wait at all:
//! it answers `RateLimited` at once, quoting the server's wait, because a
//! synchronous import blocked for minutes is worse than an error the engine
//! can act on (a daily quota, for instance, will not come back in a minute).
//! On a `5xx` a too-long `Retry-After` is ignored and the backoff used.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime};

/// What one failed attempt means for [`RetryPolicy::run`].
#[derive(Debug)]
pub enum Attempt<E> {
    /// Retrying may help: after `wait` when the server said how long
    /// (already within [`RetryPolicy::max_retry_after`]), else the backoff.
    Transient {
        /// The answer if it is not retried.
        error: E,
        /// The server's wait.
        wait: Option<Duration>,
    },
    /// Retrying cannot help.
    Fatal(E),
}

/// When and how often to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: never retry).
    pub max_retries: u32,
    /// The first backoff; doubled on each retry. Tests use milliseconds.
    pub base_delay: Duration,
    /// The longest backoff.
    pub max_delay: Duration,
    /// The longest server-requested wait (`Retry-After`) honoured; a longer
    /// one ends the retries at once.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Run `attempt` until it succeeds, fails for good, or the retries are
    /// spent, sleeping before each retry; `before_retry(error, retry, delay)`
    /// hears each one (retry counted from 1). Returns the answer or the last
    /// error, with the number of retries made.
    pub fn run<T, E>(
        &self,
        mut attempt: impl FnMut() -> Result<T, Attempt<E>>,
        mut before_retry: impl FnMut(&E, u32, Duration),
    ) -> Result<(T, u32), (E, u32)> {
        let mut retries = 0u32;
        loop {
            let (error, wait) = match attempt() {
                Ok(answer) => return Ok((answer, retries)),
                Err(Attempt::Fatal(error)) => return Err((error, retries)),
                Err(Attempt::Transient { error, wait }) => (error, wait),
            };
            if retries >= self.max_retries {
                return Err((error, retries));
            }
            let delay = wait.unwrap_or_else(|| self.backoff(retries));
            before_retry(&error, retries + 1, delay);
            std::thread::sleep(delay);
            retries += 1;
        }
    }

    /// The backoff before retry `retry` (0-based), jittered into the upper
    /// half of `base_delay × 2^retry` (capped at `max_delay`).
    pub fn backoff(&self, retry: u32) -> Duration {
        let full = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(retry.min(30)))
            .min(self.max_delay);
        let fraction = 0.5 + 0.5 * random_unit();
        full.mul_f64(fraction)
    }
}

/// A random number in [0, 1) (from std's per-process random hash keys; good
/// enough for jitter, and no dependency).
fn random_unit() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// Read a `Retry-After` value: a number of seconds (`"7"`, also `"1.5"`) or
/// an HTTP-date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, and the two obsolete
/// forms), measured from `now`. A date in the past is no wait. `None` when
/// the value is neither.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Read a `retry-after-ms` value (milliseconds).
pub fn parse_retry_after_ms(value: &str) -> Option<Duration> {
    let millis = value.trim().parse::<f64>().ok()?;
    (millis.is_finite() && millis >= 0.0).then(|| Duration::from_secs_f64(millis.min(1e12) / 1e3))
}

/// The wait a response asks for: `retry-after-ms`, else `Retry-After`.
pub fn server_wait(headers: &ureq::http::HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    header("retry-after-ms")
        .and_then(parse_retry_after_ms)
        .or_else(|| header("retry-after").and_then(|v| parse_retry_after(v, SystemTime::now())))
}

/// Whether an HTTP error status may pass: a timeout (`408`), a rate limit
/// (`429`), a server error (`5xx`).
pub fn is_transient_status(status: u16) -> bool {
    matches!(status, 408 | 429 | 500..=599)
}

/// Whether a request that got no answer may pass on a retry: a timeout, a
/// connection reset or cut, a protocol error. Nothing listening (refused,
/// unknown host) is not: retrying would only wait longer.
pub fn is_transient_transport(error: &ureq::Error) -> bool {
    if crate::is_timeout(error) {
        return true;
    }
    match error {
        ureq::Error::Io(io) => io.kind() != std::io::ErrorKind::ConnectionRefused,
        ureq::Error::Protocol(_) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A policy that waits a millisecond at most.
    fn quick(max_retries: u32) -> RetryPolicy {
        RetryPolicy {
            max_retries,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(1),
            max_retry_after: Duration::from_millis(50),
        }
    }

    #[test]
    fn transient_failures_are_retried_until_an_answer_or_the_limit() {
        let mut calls = 0;
        let mut heard = Vec::new();
        let answer = quick(4).run(
            || {
                calls += 1;
                if calls < 3 {
                    Err(Attempt::Transient {
                        error: calls,
                        wait: None,
                    })
                } else {
                    Ok("answer")
                }
            },
            |error, retry, _| heard.push((*error, retry)),
        );
        assert_eq!(answer, Ok(("answer", 2)));
        assert_eq!(heard, [(1, 1), (2, 2)]);

        let mut calls = 0;
        let spent = quick(2).run(
            || -> Result<(), _> {
                calls += 1;
                Err(Attempt::Transient {
                    error: calls,
                    wait: Some(Duration::ZERO),
                })
            },
            |_, _, delay| assert_eq!(delay, Duration::ZERO, "the server's wait is used"),
        );
        assert_eq!(spent, Err((3, 2)), "the last error, after two retries");
    }

    #[test]
    fn a_fatal_failure_is_not_retried() {
        let mut calls = 0;
        let result = quick(4).run(
            || -> Result<(), _> {
                calls += 1;
                Err(Attempt::Fatal("refused"))
            },
            |_, _, _| panic!("no retry"),
        );
        assert_eq!((result, calls), (Err(("refused", 0)), 1));
    }

    #[test]
    fn which_statuses_pass() {
        for status in [408, 429, 500, 502, 503, 529] {
            assert!(is_transient_status(status), "{status}");
        }
        for status in [400, 401, 404, 413, 422] {
            assert!(!is_transient_status(status), "{status}");
        }
    }
}
