//! # The stdio transport: every line gets an answer
//!
//! MCP over stdio is JSON-RPC 2.0, one message a line. A client whose line
//! the server cannot read must still hear back, or it waits forever for a
//! response that will never come. rmcp's own stdio transport drops what it
//! cannot parse (invalid JSON, a lone surrogate escape such as the
//! `"\ud800"` JavaScript's `JSON.stringify` writes for a cut emoji, nesting
//! deeper than serde_json's 128 levels), answers a wrong-shaped request
//! without its id, and drops an oversized line silently. [`LineTransport`]
//! reads the lines itself and answers each one it will not pass on, as
//! JSON-RPC 2.0 says:
//!
//! | the line | the answer |
//! |---|---|
//! | not JSON (syntax, invalid UTF-8, a lone surrogate, nesting past the limit, cut short) | `-32700` Parse error, `id: null` |
//! | JSON, not a JSON-RPC message MCP knows (a batch, no `jsonrpc`, a bad `params` shape, …) | `-32600` Invalid Request, with the request's `id` when it has one |
//! | longer than [`MAX_LINE_BYTES`] | `-32600` naming the limit, `id: null` (the rest of the line is skipped unread) |
//! | a notification (a `method`, no `id`) rmcp cannot read | nothing: JSON-RPC never answers a notification |
//!
//! Everything else goes to rmcp as it would have; the server keeps serving
//! after every case.
//!
//! Over stdio the end of input ends the server, but only once every request
//! passed on has been answered (at most [`ANSWER_AFTER_EOF`] later): a client
//! that writes its last request and closes its end at once, as a pipe does,
//! still gets the answer ([`LineTransport::answering_before_end`]). Lines are read through `fill_buf`/`consume` with the
//! limit checked before each append, so an endless line never grows the
//! buffer past the limit, and a read cancelled by rmcp's service loop (it
//! polls `receive` inside a `select!`) resumes where it stopped.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify};

/// The longest line read, in bytes: rmcp's own stdio limit (16 MiB), so a
/// message acceptable over its HTTP transport is acceptable here too.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC 2.0: invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: the JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;

/// What to do with one line read from the client.
#[derive(Debug)]
pub enum Verdict {
    /// A message for rmcp.
    Pass(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to do (a blank line, a notification it cannot read).
    Skip,
    /// Answer the client with this JSON-RPC error response.
    Answer(Value),
}

/// Judge one line (without its `\n`).
pub fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let typed = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return Verdict::Pass(Box::new(message)),
        Err(error) => error,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(error) => {
            return Verdict::Answer(error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {error}"),
            ));
        }
    };
    if value.get("method").is_some_and(Value::is_string) && value.get("id").is_none() {
        // A notification (no id): JSON-RPC never answers one, even when it
        // is malformed.
        tracing::debug!("ignored a notification it could not read: {typed}");
        return Verdict::Skip;
    }
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number());
    Verdict::Answer(error_response(
        id.cloned().unwrap_or(Value::Null),
        INVALID_REQUEST,
        &format!("Invalid Request: {typed}"),
    ))
}

/// The answer to a line longer than `limit` bytes.
pub fn oversized_response(limit: usize) -> Value {
    error_response(
        Value::Null,
        INVALID_REQUEST,
        &format!(
            "Invalid Request: the message is longer than {limit} bytes, the most one line may \
             carry; it was not read"
        ),
    )
}

/// A JSON-RPC 2.0 error response (`id` is `null` when the request's id
/// could not be read, as the specification requires).
fn error_response(id: Value, code: i64, message: &str) -> Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    })
}

/// One bounded read of a line.
enum LineRead {
    /// A whole line is in the buffer.
    Line,
    /// The line passed the limit; its bytes were dropped.
    Oversized,
    /// The client closed its end.
    Eof,
}

/// An rmcp server transport over a byte stream pair (stdin/stdout) that
/// answers every line it does not pass on (see the module docs).
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    limit: usize,
    /// Set after an oversized line was answered, until its newline.
    discarding: bool,
    write: Arc<Mutex<W>>,
    /// The requests passed on and not answered yet: at the end of input
    /// they are still answered before the transport reports the end.
    unanswered: Arc<Unanswered>,
    /// How long the end of input waits for them (zero: not at all).
    drain: Duration,
}

/// How long the end of input waits for the requests still running: past
/// it, the server stops without their answers (a client that closed its
/// end and left a call hanging cannot keep the process alive). The
/// longest default deadline of a call (an import step, 10 minutes) bounds
/// a call that does end.
const ANSWER_AFTER_EOF: Duration = Duration::from_secs(600);

/// The ids of requests passed on to the server and not answered yet.
#[derive(Default)]
struct Unanswered {
    ids: std::sync::Mutex<HashSet<RequestId>>,
    answered: Notify,
}

impl Unanswered {
    fn insert(&self, id: RequestId) {
        if let Ok(mut ids) = self.ids.lock() {
            ids.insert(id);
        }
    }

    fn remove(&self, id: &RequestId) {
        if let Ok(mut ids) = self.ids.lock() {
            ids.remove(id);
        }
        self.answered.notify_waiters();
    }

    fn is_empty(&self) -> bool {
        self.ids.lock().map_or(true, |ids| ids.is_empty())
    }

    /// Until every request is answered, or `drain` passed.
    async fn all_answered(&self, drain: Duration) {
        let wait = async {
            loop {
                let answered = self.answered.notified();
                if self.is_empty() {
                    return;
                }
                answered.await;
            }
        };
        if tokio::time::timeout(drain, wait).await.is_err() {
            tracing::warn!(
                "input ended with requests still running; stopping without their answers"
            );
        }
    }
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// A transport reading `read` and writing `write`, lines of at most
    /// `limit` bytes. Its end of input ends it at once, whatever is still
    /// running: see [`Self::answering_before_end`].
    pub fn new(read: R, write: W, limit: usize) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            limit,
            discarding: false,
            write: Arc::new(Mutex::new(write)),
            unanswered: Arc::default(),
            drain: Duration::ZERO,
        }
    }

    /// At the end of input, wait up to `drain` for the answers of the
    /// requests still running before reporting the end.
    #[must_use]
    pub fn answering_before_end(mut self, drain: Duration) -> Self {
        self.drain = drain;
        self
    }

    /// Read the next line into `self.line` without letting it grow past
    /// the limit (cancellation-safe: nothing is lost if dropped mid-read).
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                // A last line the client did not end with a newline is
                // still a message: answer it before the end of input.
                if !self.line.is_empty() && !self.discarding {
                    return Ok(LineRead::Line);
                }
                return Ok(LineRead::Eof);
            }
            let newline = available.iter().position(|byte| *byte == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let outcome = if self.discarding {
                if newline.is_some() {
                    self.discarding = false;
                }
                None
            } else if self.line.len().saturating_add(take) > self.limit.saturating_add(1) {
                self.line.clear();
                self.discarding = newline.is_none();
                Some(LineRead::Oversized)
            } else {
                self.line.extend(available.iter().take(take));
                newline.map(|_| LineRead::Line)
            };
            self.read.consume(take);
            if let Some(outcome) = outcome {
                return Ok(outcome);
            }
        }
    }
}

/// Write one message as a line; the lock keeps rmcp's responses and the
/// transport's own answers whole.
async fn write_line<W, T>(write: &Mutex<W>, message: &T) -> std::io::Result<()>
where
    W: AsyncWrite + Unpin,
    T: serde::Serialize,
{
    let mut bytes = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    let mut write = write.lock().await;
    write.write_all(&bytes).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        let unanswered = Arc::clone(&self.unanswered);
        async move {
            let written = write_line(&write, &item).await;
            let id = match &item {
                JsonRpcMessage::Response(response) => Some(&response.id),
                JsonRpcMessage::Error(error) => error.id.as_ref(),
                _ => None,
            };
            if let Some(id) = id {
                unanswered.remove(id);
            }
            written
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let read = match self.read_line().await {
                Ok(read) => read,
                Err(error) => {
                    tracing::error!("could not read the client's messages: {error}");
                    return None;
                }
            };
            let verdict = match read {
                LineRead::Eof => {
                    self.unanswered.all_answered(self.drain).await;
                    return None;
                }
                LineRead::Oversized => {
                    tracing::warn!(
                        limit = self.limit,
                        "a message over the line limit was refused"
                    );
                    Verdict::Answer(oversized_response(self.limit))
                }
                LineRead::Line => {
                    let body = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
                    let verdict = judge(body);
                    self.line.clear();
                    verdict
                }
            };
            match verdict {
                Verdict::Pass(message) => {
                    if let JsonRpcMessage::Request(request) = message.as_ref() {
                        self.unanswered.insert(request.id.clone());
                    }
                    return Some(*message);
                }
                Verdict::Skip => {}
                Verdict::Answer(response) => {
                    tracing::debug!("answered an unreadable message: {response}");
                    if let Err(error) = write_line(&self.write, &response).await {
                        tracing::error!("could not answer the client: {error}");
                        return None;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

/// The transport over this process's stdin and stdout.
pub fn stdio() -> LineTransport<tokio::io::Stdin, tokio::io::Stdout> {
    LineTransport::new(tokio::io::stdin(), tokio::io::stdout(), MAX_LINE_BYTES)
        .answering_before_end(ANSWER_AFTER_EOF)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match judge(line.as_bytes()) {
            Verdict::Answer(value) => value,
            other => panic!("expected an answer to {line:?}, got {other:?}"),
        }
    }

    #[test]
    fn a_valid_request_passes() {
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert!(matches!(judge(line.as_bytes()), Verdict::Pass(_)));
        let crlf = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r";
        assert!(matches!(judge(crlf.as_bytes()), Verdict::Pass(_)));
    }

    #[test]
    fn unparseable_lines_are_parse_errors_with_a_null_id() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let deep_params = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let cases = [
            "{not json".to_owned(),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"\ud800"}}"#
                .to_owned(),
            deep,
            deep_params,
            r#"{"jsonrpc":"2.0","id":4"#.to_owned(),
        ];
        for line in &cases {
            let response = answer(line);
            assert_eq!(response["error"]["code"], PARSE_ERROR, "{line}");
            assert_eq!(response["id"], Value::Null, "{line}");
            assert_eq!(response["jsonrpc"], "2.0");
        }
        let invalid_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"\xff\xfe\"}";
        let Verdict::Answer(response) = judge(invalid_utf8) else {
            panic!("invalid UTF-8 must be answered");
        };
        assert_eq!(response["error"]["code"], PARSE_ERROR);
    }

    #[test]
    fn wrong_shapes_are_invalid_requests_with_their_id() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"oops"}"#,
                Value::from(9),
            ),
            (
                r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#,
                Value::from("a"),
            ),
            (r#"{"id":10,"method":"ping"}"#, Value::from(10)),
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, Value::Null),
            (r#""just a string""#, Value::Null),
            (
                r#"{"jsonrpc":"2.0","id":{"nested":1},"method":"ping"}"#,
                Value::Null,
            ),
        ];
        for (line, id) in cases {
            let response = answer(line);
            assert_eq!(response["error"]["code"], INVALID_REQUEST, "{line}");
            assert_eq!(response["id"], id, "{line}");
        }
    }

    #[test]
    fn blank_lines_and_notifications_are_never_answered() {
        assert!(matches!(judge(b"   "), Verdict::Skip));
        // An unknown notification goes to rmcp, which ignores it.
        let lsp = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
        assert!(matches!(judge(lsp.as_bytes()), Verdict::Pass(_)));
        // One rmcp cannot read is dropped: a notification is never answered.
        let bad = r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":7}"#;
        assert!(matches!(judge(bad.as_bytes()), Verdict::Skip));
    }

    /// Everything the transport wrote to the client, and each line as JSON.
    async fn read_answers(
        client: &mut (impl tokio::io::AsyncRead + Unpin),
    ) -> (String, Vec<Value>) {
        use tokio::io::AsyncReadExt;
        let mut output = String::new();
        client.read_to_string(&mut output).await.unwrap();
        let answers = output
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        (output, answers)
    }

    #[tokio::test]
    async fn every_line_is_answered_and_the_stream_goes_on() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let mut transport = LineTransport::new(server_read, server_write, 64);
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let long = "x".repeat(200);
        let input =
            format!("{{bad\n{long}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n");
        client_write.write_all(input.as_bytes()).await.unwrap();
        let message = transport.receive().await.expect("the ping passes");
        let text = serde_json::to_string(&message).unwrap();
        assert!(text.contains("\"ping\""), "{text}");
        client_write.shutdown().await.unwrap();
        assert!(
            transport.receive().await.is_none(),
            "end of input ends the stream"
        );
        drop(transport);
        let (output, answers) = read_answers(&mut client_read).await;
        assert_eq!(answers.len(), 2, "{output}");
        assert_eq!(answers[0]["error"]["code"], PARSE_ERROR);
        assert_eq!(answers[1]["error"]["code"], INVALID_REQUEST);
        assert!(
            answers[1]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("longer than 64 bytes"),
            "{output}"
        );
    }

    #[tokio::test]
    async fn a_last_line_without_a_newline_is_still_answered() {
        let (client, server) = tokio::io::duplex(1 << 12);
        let (server_read, server_write) = tokio::io::split(server);
        let mut transport = LineTransport::new(server_read, server_write, 64);
        let (mut client_read, mut client_write) = tokio::io::split(client);
        client_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{bad")
            .await
            .unwrap();
        client_write.shutdown().await.unwrap();
        let message = transport.receive().await.expect("the ping passes");
        assert!(serde_json::to_string(&message).unwrap().contains("ping"));
        assert!(transport.receive().await.is_none(), "then the input ends");
        drop(transport);
        let (output, answers) = read_answers(&mut client_read).await;
        assert_eq!(answers.len(), 1, "{output}");
        assert_eq!(answers[0]["error"]["code"], PARSE_ERROR);
    }

    #[tokio::test]
    async fn the_end_of_input_waits_for_the_answers_still_owed() {
        let (client, server) = tokio::io::duplex(1 << 12);
        let (server_read, server_write) = tokio::io::split(server);
        let mut transport = LineTransport::new(server_read, server_write, 1024)
            .answering_before_end(Duration::from_secs(60));
        let (mut client_read, mut client_write) = tokio::io::split(client);
        client_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
            .await
            .unwrap();
        client_write.shutdown().await.unwrap();
        transport.receive().await.expect("the ping passes");
        let answer: TxJsonRpcMessage<RoleServer> =
            serde_json::from_value(serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": {}}))
                .unwrap();
        let send = transport.send(answer);
        let ended = tokio::spawn(async move {
            let end = transport.receive().await;
            (end.is_none(), transport)
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!ended.is_finished(), "the end waits for the ping's answer");
        send.await.unwrap();
        let (ended, transport) = ended.await.unwrap();
        assert!(ended, "answered, the input ends");
        drop(transport);
        let (output, answers) = read_answers(&mut client_read).await;
        assert_eq!(answers.len(), 1, "{output}");
        assert_eq!(answers[0]["id"], 2);
    }

    #[tokio::test]
    async fn an_answer_never_given_stops_waiting_after_the_drain() {
        let (client, server) = tokio::io::duplex(1 << 12);
        let (server_read, server_write) = tokio::io::split(server);
        let mut transport = LineTransport::new(server_read, server_write, 1024)
            .answering_before_end(Duration::from_millis(20));
        let (_client_read, mut client_write) = tokio::io::split(client);
        client_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n")
            .await
            .unwrap();
        client_write.shutdown().await.unwrap();
        transport.receive().await.expect("the ping passes");
        let end = tokio::time::timeout(Duration::from_secs(30), transport.receive()).await;
        assert!(matches!(end, Ok(None)), "the drain ends the wait");
    }

    #[tokio::test]
    async fn an_endless_line_never_grows_the_buffer_past_the_limit() {
        let (client, server) = tokio::io::duplex(1 << 12);
        let (server_read, server_write) = tokio::io::split(server);
        let mut transport = LineTransport::new(server_read, server_write, 1024);
        let (_client_read, mut client_write) = tokio::io::split(client);
        let writer = tokio::spawn(async move {
            let chunk = vec![b'a'; 4096];
            for _ in 0..64 {
                client_write.write_all(&chunk).await.unwrap();
            }
            client_write
                .write_all(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
                .await
                .unwrap();
            client_write
        });
        let message = transport.receive().await.expect("the ping after it passes");
        assert!(serde_json::to_string(&message).unwrap().contains("ping"));
        assert!(
            transport.line.capacity() <= 2 * 1024 + 4096,
            "{}",
            transport.line.capacity()
        );
        drop(writer.await.unwrap());
    }
}
