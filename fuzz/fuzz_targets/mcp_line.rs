//! The MCP stdio line handling (`host/src/mcp/transport.rs`): how one line
//! from the client becomes a message for rmcp, an error answer, or nothing
//! ([`transport::judge`]), and how a byte stream is cut into lines under
//! the length limit ([`transport::LineTransport`]).
//!
//! The transport's source file is compiled here as a module of its own
//! (`#[path]`): it uses only rmcp, tokio, serde_json and tracing, so the
//! target links those instead of the host crate, which would drag in
//! wasmtime and build the engine's components in its build script.
//!
//! Input: the first byte sets how many bytes each read returns (so lines
//! are cut across reads at every place), the rest is what the client sends.
//! Invariants, per line: nothing is returned only for a blank line or a
//! notification (a `method`, no `id`); an answer is a JSON-RPC 2.0 error
//! response on one line, `-32700` exactly when the line is not JSON and
//! `-32600` otherwise, carrying the request's id when it is a string or a
//! number; over the whole stream, every line gets exactly one verdict: the
//! transport writes one answer per answered or oversized line and passes
//! on every other message.
#![no_main]

#[allow(dead_code)]
#[path = "../../host/src/mcp/transport.rs"]
mod transport;

use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use libfuzzer_sys::fuzz_target;
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use transport::{INVALID_REQUEST, LineTransport, PARSE_ERROR, Verdict, judge};

/// The line limit of the stream test: small, so long lines are common.
const LIMIT: usize = 256;

fuzz_target!(|data: &[u8]| {
    let Some((read_size, stream)) = data.split_first() else {
        return;
    };
    let mut expected_answers = 0;
    let mut expected_passed = 0;
    for line in stream.split(|byte| *byte == b'\n') {
        let verdict = judge(line);
        check_verdict(line, &verdict);
        if line.len() > LIMIT {
            expected_answers += 1;
        } else {
            match verdict {
                Verdict::Answer(_) => expected_answers += 1,
                Verdict::Pass(_) => expected_passed += 1,
                Verdict::Skip => {}
            }
        }
    }
    let (answers, passed) = run_stream(stream, usize::from(*read_size % 64) + 1);
    assert_eq!(passed, expected_passed, "messages passed on");
    assert_eq!(answers.len(), expected_answers, "answers written");
    for answer in &answers {
        let value: Value = serde_json::from_str(answer).expect("an answer is JSON");
        assert_eq!(value["jsonrpc"], "2.0");
        assert!(value["error"]["code"].is_i64());
    }
});

/// The invariants of one line's verdict.
fn check_verdict(line: &[u8], verdict: &Verdict) {
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let parsed = serde_json::from_slice::<Value>(body).ok();
    let notification = parsed.as_ref().is_some_and(|value| {
        value.get("method").is_some_and(Value::is_string) && value.get("id").is_none()
    });
    match verdict {
        Verdict::Skip => assert!(
            body.iter().all(u8::is_ascii_whitespace) || notification,
            "a line that is neither blank nor a notification went unanswered"
        ),
        Verdict::Pass(_) => assert!(parsed.is_some(), "a message that is not JSON passed"),
        Verdict::Answer(answer) => {
            assert!(!notification, "a notification was answered");
            let text = serde_json::to_string(answer).expect("an answer serialises");
            assert!(!text.contains('\n'), "an answer spans lines");
            assert_eq!(answer["jsonrpc"], "2.0");
            assert!(answer["error"]["message"].is_string());
            let code = answer["error"]["code"].as_i64();
            match &parsed {
                None => {
                    assert_eq!(code, Some(PARSE_ERROR), "not JSON is a parse error");
                    assert_eq!(answer["id"], Value::Null);
                }
                Some(value) => {
                    assert_eq!(code, Some(INVALID_REQUEST), "JSON is an invalid request");
                    let id = value
                        .get("id")
                        .filter(|id| id.is_string() || id.is_number())
                        .cloned()
                        .unwrap_or(Value::Null);
                    assert_eq!(answer["id"], id, "the request's id");
                }
            }
        }
    }
}

/// Feed `stream` (plus a final line feed) through the transport, `chunk`
/// bytes a read: the answers it wrote and how many messages it passed on.
fn run_stream(stream: &[u8], chunk: usize) -> (Vec<String>, usize) {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let runtime = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
    });
    let mut input = stream.to_vec();
    input.push(b'\n');
    let written = Arc::new(Mutex::new(Vec::new()));
    let mut transport = LineTransport::new(
        ChunkedReader {
            bytes: input,
            at: 0,
            chunk,
        },
        SharedWriter(Arc::clone(&written)),
        LIMIT,
    );
    let passed = runtime.block_on(async {
        let mut passed = 0;
        while transport.receive().await.is_some() {
            passed += 1;
        }
        passed
    });
    let written = written.lock().expect("the writer").clone();
    let text = String::from_utf8(written).expect("answers are UTF-8");
    (text.lines().map(str::to_owned).collect(), passed)
}

/// A reader that returns at most `chunk` bytes a read.
struct ChunkedReader {
    bytes: Vec<u8>,
    at: usize,
    chunk: usize,
}

impl AsyncRead for ChunkedReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let end = (self.at + self.chunk.min(buf.remaining())).min(self.bytes.len());
        let at = self.at;
        buf.put_slice(&self.bytes[at..end]);
        self.at = end;
        Poll::Ready(Ok(()))
    }
}

/// A writer into a buffer the test reads afterwards.
struct SharedWriter(Arc<Mutex<Vec<u8>>>);

impl AsyncWrite for SharedWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.0.lock().expect("the writer").extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
