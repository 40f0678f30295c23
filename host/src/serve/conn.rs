//! The server's own accept loop: a cap on open connections, a header-read
//! (and idle) timeout, and a graceful stop.
//!
//! `axum::serve` accepts every connection and waits for a request's head
//! for as long as the client likes, so a few thousand connections that
//! send half a request line (or nothing) take the process's file
//! descriptors and the server stops answering anyone, without a token.
//! Here each connection is served by hyper's HTTP/1 connection directly:
//!
//! - **At most `max_connections` are open.** Past the cap a new connection
//!   is closed as soon as it is accepted (the client reads an end of
//!   stream at once), so a flood cannot queue up inside the server, and a
//!   slot frees the moment a connection ends.
//! - **A request's head must arrive within `header_timeout`** of the
//!   server starting to wait for it (hyper's `header_read_timeout`, on a
//!   tokio timer). hyper starts that wait as soon as a connection opens
//!   and again right after each answer on a kept-alive connection, so the
//!   same timeout also closes a connection that sits idle between
//!   requests: a silent or slow-header connection holds its slot for that
//!   long at most, and the flood's slots come back to other clients.
//! - **A stop** (the `shutdown` future) stops accepting, lets every open
//!   connection finish the request under way (hyper's graceful shutdown:
//!   an idle connection closes at once), and waits for them within
//!   [`DRAIN`].
//!
//! Each request carries its peer's address
//! ([`axum::extract::ConnectInfo`]), which the guard uses to count a
//! caller without a token.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};

/// How long a stop waits for open connections to finish.
pub const DRAIN: Duration = Duration::from_secs(60);

/// The connection limits.
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    /// Connections open at once; one more is closed at accept.
    pub max_connections: usize,
    /// How long a request's head (and an idle kept-alive connection's
    /// next request) may take to arrive.
    pub header_timeout: Duration,
}

/// Serve `router` on `listener` within `limits` until `shutdown` resolves,
/// then finish the connections under way.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()>,
) {
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors, or a connection reset before it
                // was accepted: wait a moment rather than spin.
                tracing::debug!("accept: {error}");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            // Over the cap: closed at once, before a byte is read.
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            tower::ServiceExt::oneshot(router.clone(), request.map(axum::body::Body::new))
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        eprintln!(
            "hive-mind serve: connections were still open after {} s",
            DRAIN.as_secs()
        );
    }
}
