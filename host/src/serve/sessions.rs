//! MCP sessions within a cap: at most so many open at once, and at most a
//! share of them per client.
//!
//! Each MCP session over HTTP keeps a worker and its buffers (tens of
//! kilobytes) until the client ends it or it has been idle for rmcp's
//! keep-alive (five minutes), so unbounded `initialize` requests grow the
//! server's memory without end. [`CappedSessions`] wraps rmcp's
//! [`LocalSessionManager`]: a new session is refused past `max_total`
//! open sessions, or past `per_client` for the [`Client`] whose request
//! opens it (the guard's [`fair::CLIENT`]). A session's place is given
//! back when it closes — a `DELETE`, its idle timeout or the server's
//! stop all end in [`SessionManager::close_session`].
//!
//! The guard asks [`CappedSessions::admits`] before an `initialize` goes
//! to rmcp, so a refusal is a 429 problem document that says which cap
//! was reached; the check in [`SessionManager::create_session`] only
//! catches the requests that raced past it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};

use super::fair::{self, Client};

/// Why a session was refused.
#[derive(Debug, thiserror::Error)]
pub enum SessionRefused {
    /// The server holds its most sessions.
    #[error(
        "the server already holds {0} MCP sessions, its most; end one (DELETE /mcp) or retry later"
    )]
    Total(usize),
    /// The client holds its most sessions.
    #[error(
        "{client} already holds {limit} MCP sessions, its most; end one (DELETE /mcp) or retry later"
    )]
    Client {
        /// Who.
        client: Client,
        /// Its most.
        limit: usize,
    },
    /// rmcp's own manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

#[derive(Debug, Default)]
struct Open {
    owners: HashMap<SessionId, Client>,
    per_client: HashMap<Client, usize>,
    /// Sessions counted, with those being created.
    total: usize,
}

/// rmcp's in-memory sessions, capped.
#[derive(Debug)]
pub struct CappedSessions {
    inner: LocalSessionManager,
    open: Mutex<Open>,
    max_total: usize,
    per_client: usize,
}

impl CappedSessions {
    /// At most `max_total` sessions, `per_client` of them per client.
    pub fn new(max_total: usize, per_client: usize) -> Arc<CappedSessions> {
        Arc::new(CappedSessions {
            inner: LocalSessionManager::default(),
            open: Mutex::new(Open::default()),
            max_total: max_total.max(1),
            per_client: per_client.max(1),
        })
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `client` may open one more session now.
    pub fn admits(&self, client: &Client) -> Result<(), SessionRefused> {
        let open = self.open();
        self.check(&open, client)
    }

    fn check(&self, open: &Open, client: &Client) -> Result<(), SessionRefused> {
        if open.total >= self.max_total {
            return Err(SessionRefused::Total(self.max_total));
        }
        if open.per_client.get(client).copied().unwrap_or(0) >= self.per_client {
            return Err(SessionRefused::Client {
                client: client.clone(),
                limit: self.per_client,
            });
        }
        Ok(())
    }

    fn release(&self, client: &Client) {
        let mut open = self.open();
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.per_client.get_mut(client) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.per_client.remove(client);
            }
        }
    }

    /// Sessions open now.
    pub fn count(&self) -> usize {
        self.open().owners.len()
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionRefused;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let client = fair::current_client().unwrap_or(Client::Server);
        {
            let mut open = self.open();
            self.check(&open, &client)?;
            open.total += 1;
            *open.per_client.entry(client.clone()).or_insert(0) += 1;
        }
        match self.inner.create_session().await {
            Ok((id, transport)) => {
                self.open().owners.insert(id.clone(), client);
                Ok((id, transport))
            }
            Err(error) => {
                self.release(&client);
                Err(error.into())
            }
        }
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let owner = self.open().owners.remove(id);
        if let Some(owner) = owner {
            self.release(&owner);
        }
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
