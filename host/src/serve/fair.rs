//! Fairness between clients: who a request counts against, each client's
//! share of the server's slots, and a body that may not stall.
//!
//! The server's limits (`--max-in-flight`, `--queue`, the MCP sessions)
//! are shared by every caller, so without shares one caller could take
//! them all: 64 request bodies that never finish sending, from one read
//! token, would answer every other client 429. Each request therefore
//! counts against a [`Client`] — its token, or without one its peer's
//! address — and a client holds at most its share of each limit
//! ([`Shares`]); past it, *that client* is answered 429 while the others
//! still get through.
//!
//! The guard runs the rest of the request inside [`CLIENT`]'s scope, so
//! the layers below that do not see the request (the engine pool's queue,
//! the MCP session manager) can still tell whom they serve.
//!
//! A request body is read through [`StallBody`]: when no byte arrives for
//! the stall timeout, the body ends with an error, so a client that stops
//! sending is cut within seconds instead of holding its slot until the
//! handler's whole-body deadline.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};

/// Whom a request counts against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Client {
    /// A bearer token, by its name.
    Token(String),
    /// A caller without a token (a public route, or `--no-auth`), by its
    /// address: every connection from one host is one client.
    Peer(IpAddr),
    /// Work the server started itself (an import job's worker).
    Server,
}

impl std::fmt::Display for Client {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Client::Token(name) => write!(formatter, "the token {name:?}"),
            Client::Peer(address) => write!(formatter, "the address {address}"),
            Client::Server => write!(formatter, "the server"),
        }
    }
}

tokio::task_local! {
    /// The client of the request the current task serves (set by the
    /// guard around the rest of the request).
    pub static CLIENT: Client;
}

/// The current task's client, when a request set one.
pub fn current_client() -> Option<Client> {
    CLIENT.try_with(Client::clone).ok()
}

/// Each client's count of one limited thing, and the most one may hold.
#[derive(Debug)]
pub struct Shares {
    held: Mutex<HashMap<Client, usize>>,
    /// The most one client may hold at once.
    pub per_client: usize,
}

impl Shares {
    /// Shares of at most `per_client` (at least one) each.
    pub fn new(per_client: usize) -> Arc<Shares> {
        Arc::new(Shares {
            held: Mutex::new(HashMap::new()),
            per_client: per_client.max(1),
        })
    }

    /// One more for `client`, unless it already holds its share.
    pub fn try_take(self: &Arc<Self>, client: &Client) -> Option<Share> {
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = held.entry(client.clone()).or_insert(0);
        if *count >= self.per_client {
            return None;
        }
        *count += 1;
        Some(Share {
            shares: Arc::clone(self),
            client: client.clone(),
        })
    }

    /// How many `client` holds.
    pub fn held_by(&self, client: &Client) -> usize {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(client)
            .copied()
            .unwrap_or(0)
    }
}

/// One unit of a client's share; given back on drop.
#[derive(Debug)]
pub struct Share {
    shares: Arc<Shares>,
    client: Client,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self
            .shares
            .held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.client) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// Why a body ended early.
#[derive(Debug, thiserror::Error)]
pub enum StallError {
    /// No byte arrived within the stall timeout.
    #[error("the request body stalled: nothing arrived for {} s", .0.as_secs_f32())]
    Stalled(Duration),
    /// The connection failed.
    #[error("the request body could not be read: {0}")]
    Read(axum::Error),
}

/// A request body that fails when the client sends nothing for `timeout`.
pub struct StallBody {
    inner: axum::body::Body,
    timeout: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl StallBody {
    /// `inner`, cut after `timeout` without a byte.
    pub fn new(inner: axum::body::Body, timeout: Duration) -> StallBody {
        StallBody {
            inner,
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
        }
    }
}

impl Body for StallBody {
    type Data = Bytes;
    type Error = StallError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, StallError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(context) {
            Poll::Ready(frame) => {
                let next = tokio::time::Instant::now() + this.timeout;
                this.deadline.as_mut().reset(next);
                Poll::Ready(frame.map(|frame| frame.map_err(StallError::Read)))
            }
            Poll::Pending => match this.deadline.as_mut().poll(context) {
                Poll::Ready(()) => Poll::Ready(Some(Err(StallError::Stalled(this.timeout)))),
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_at_most_its_share_and_gives_it_back() {
        let shares = Shares::new(2);
        let one = Client::Token("one".into());
        let other = Client::Token("other".into());
        let first = shares.try_take(&one);
        let second = shares.try_take(&one);
        assert!(first.is_some() && second.is_some());
        assert!(shares.try_take(&one).is_none(), "a third is over the share");
        assert!(
            shares.try_take(&other).is_some(),
            "another client is unaffected"
        );
        drop(first);
        assert_eq!(shares.held_by(&one), 1);
        assert!(shares.try_take(&one).is_some());
    }

    /// A body whose client never sends.
    struct Silent;

    impl Body for Silent {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            self: Pin<&mut Self>,
            _context: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn a_stalled_body_fails_after_the_timeout() {
        let mut body = StallBody::new(axum::body::Body::new(Silent), Duration::from_millis(100));
        let read = http_body_util::BodyExt::frame(&mut body).await;
        assert!(
            matches!(read, Some(Err(StallError::Stalled(_)))),
            "{read:?}"
        );
    }
}
