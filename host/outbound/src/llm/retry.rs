//! # Retrying: what, how often, how long to wait
//!
//! Remote models fail in ways that pass: a rate limit (`429`), an overloaded
//! or restarting server (`5xx`, Anthropic's `529`), a timeout, a connection
//! reset. Those are retried, up to [`RetryPolicy::max_retries`] times after
//! the first attempt. Everything else is answered at once:
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
