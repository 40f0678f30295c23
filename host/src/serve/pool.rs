//! A pool of engine instances over one data directory.
//!
//! An [`EngineRuntime`] is one wasmtime store: one call at a time. The
//! server opens `size` of them over the same data directory, so that many
//! requests run at once: reads in parallel (SQLite WAL readers), writes
//! serialized by SQLite's write lock (a 5 s busy timeout). The embedder's
//! model is shared (one copy per process); what each instance costs is its
//! own linear memory, chiefly the vector index of every mind it has
//! searched (about a quarter of a kilobyte per memory at 384 dimensions,
//! int8) — see `serve`'s module docs for the measured figures and the
//! default size.
//!
//! A request waits for an instance at most [`Pool::wait`]; at most
//! `max_waiting` requests wait at once, and one more is refused at once
//! ([`Busy::Queue`], a 429), as is one that waited too long
//! ([`Busy::Timeout`], a 503): a flood gets answers, never an unbounded
//! queue. One client (the request's [`fair::CLIENT`]: its token, or its
//! address without one) may have at most `per_client` requests waiting
//! ([`Busy::ClientQueue`], a 429), so a client that floods the queue is
//! refused while the others keep their places in it. The work runs on a blocking thread that owns the instance until
//! it is done, so a client that goes away mid-call never leaves a write
//! half-done: the call finishes, commits or rolls back, and the instance
//! returns to the pool.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hive_mind_runtime::engine::{EngineRuntime, OpenError};

use super::fair::{self, Shares};

/// Why no instance was handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// Too many requests already wait.
    Queue,
    /// This client already has its share of the queue waiting.
    ClientQueue,
    /// None came free in time.
    Timeout,
    /// The server is shutting down.
    Closed,
}

/// The instances and the queue in front of them.
pub struct Pool {
    idle: Mutex<Vec<EngineRuntime>>,
    available: tokio::sync::Semaphore,
    waiting: AtomicUsize,
    max_waiting: usize,
    waiting_by_client: Arc<Shares>,
    size: usize,
    /// How long a request waits for an instance.
    pub wait: Duration,
}

impl Pool {
    /// `size` instances over `dir` (at least one); at most `max_waiting`
    /// requests wait, `per_client` of them from one client.
    pub fn open(
        dir: &Path,
        size: usize,
        max_waiting: usize,
        per_client: usize,
        wait: Duration,
    ) -> Result<Pool, OpenError> {
        let size = size.max(1);
        let engines = (0..size)
            .map(|_| hive_mind_runtime::engine::open(dir))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Pool {
            idle: Mutex::new(engines),
            available: tokio::sync::Semaphore::new(size),
            waiting: AtomicUsize::new(0),
            max_waiting,
            waiting_by_client: Shares::new(per_client),
            size,
            wait,
        })
    }

    /// Take an instance: wait for one within [`Pool::wait`], or refuse.
    pub async fn take(self: &Arc<Self>) -> Result<Lease, Busy> {
        // The client's place in the queue, held while it waits.
        let _place = match fair::current_client() {
            Some(client) => Some(
                self.waiting_by_client
                    .try_take(&client)
                    .ok_or(Busy::ClientQueue)?,
            ),
            None => None,
        };
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(Busy::Queue);
        }
        let permit = tokio::time::timeout(self.wait, self.available.acquire()).await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let permit = match permit {
            Err(_) => return Err(Busy::Timeout),
            Ok(Err(_)) => return Err(Busy::Closed),
            Ok(Ok(permit)) => permit,
        };
        let engine = self
            .idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        match engine {
            Some(engine) => {
                // The permit goes back with the engine (`Lease::drop`).
                permit.forget();
                Ok(Lease {
                    engine: Some(engine),
                    pool: Arc::clone(self),
                })
            }
            None => Err(Busy::Closed),
        }
    }

    /// Run `work` on an instance on a blocking thread; the instance goes
    /// back when the work is done, whether or not anyone still waits for
    /// its answer.
    pub async fn run<T, F>(self: &Arc<Self>, work: F) -> Result<T, RunError>
    where
        T: Send + 'static,
        F: FnOnce(&mut EngineRuntime) -> T + Send + 'static,
    {
        let mut lease = self.take().await.map_err(RunError::Busy)?;
        tokio::task::spawn_blocking(move || lease.engine().map(work))
            .await
            .map_err(|error| RunError::Worker(error.to_string()))?
            .ok_or(RunError::Busy(Busy::Closed))
    }

    /// Refuse new work and wait until every instance is back (the in-flight
    /// calls have finished), at most `deadline`. Whether all came back.
    pub async fn drain(&self, deadline: Duration) -> bool {
        let all = u32::try_from(self.size).unwrap_or(u32::MAX);
        let drained = tokio::time::timeout(deadline, self.available.acquire_many(all)).await;
        self.available.close();
        matches!(drained, Ok(Ok(_)))
    }
}

/// Why [`Pool::run`] did not run or finish.
#[derive(Debug)]
pub enum RunError {
    /// No instance.
    Busy(Busy),
    /// The worker thread failed.
    Worker(String),
}

/// An instance taken from the pool; returned on drop.
pub struct Lease {
    engine: Option<EngineRuntime>,
    pool: Arc<Pool>,
}

impl Lease {
    /// The instance (always there until the lease is dropped).
    pub fn engine(&mut self) -> Option<&mut EngineRuntime> {
        self.engine.as_mut()
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            self.pool
                .idle
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(engine);
            self.pool.available.add_permits(1);
        }
    }
}
