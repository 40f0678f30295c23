//! # A scripted loopback HTTP/1.1 server
//!
//! Listens on `127.0.0.1:0` (a free port) in a thread; each connection gets
//! its own thread, reads one request (request line, headers, a
//! `Content-Length` body), records it, answers what the handler says, and
//! closes (`Connection: close`, so clients never reuse a connection and
//! every request is a connection). It also counts how many requests are
//! being answered at once, for concurrency limits.
//!
//! ```ignore
//! let server = TestServer::scripted(vec![Reply::status(429), Reply::json(json!({...}))]);
//! // request 0 gets a 429, request 1 and later the JSON
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The request target (`/v1/chat/completions?x=1`).
    pub path: String,
    /// Headers, names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Request {
    /// A header's value (first of that name).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON (panics if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    delay: Duration,
    raw: Option<Vec<u8>>,
    close_delimited: bool,
}

impl Reply {
    /// A status with an empty body.
    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: Duration::ZERO,
            raw: None,
            close_delimited: false,
        }
    }

    /// `200` with a JSON body.
    pub fn json(value: Value) -> Reply {
        Reply::status(200)
            .header("content-type", "application/json")
            .body(value.to_string())
    }

    /// A status with a JSON body.
    pub fn json_status(status: u16, value: Value) -> Reply {
        Reply {
            status,
            ..Reply::json(value)
        }
    }

    /// Add a header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Set the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Reply {
        self.body = body.into();
        self
    }

    /// Wait this long (with the request counted in flight) before answering.
    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    /// Send no `Content-Length`: the body ends when the connection closes.
    pub fn close_delimited(mut self) -> Reply {
        self.close_delimited = true;
        self
    }

    /// Write exactly these bytes instead, then close.
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Reply {
        Reply {
            raw: Some(bytes.into()),
            ..Reply::status(200)
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        if let Some(raw) = &self.raw {
            return raw.clone();
        }
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if !self.close_delimited {
            head.push_str(&format!("content-length: {}\r\n", self.body.len()));
        }
        head.push_str("connection: close\r\n\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&self.body);
        bytes
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}

type Handler = dyn Fn(&Request, usize) -> Reply + Send + Sync;

#[derive(Default)]
struct State {
    requests: Mutex<Vec<Request>>,
    count: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

/// The server; stops when dropped.
pub struct TestServer {
    addr: SocketAddr,
    state: Arc<State>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl TestServer {
    /// A server answering `handler(request, n)` to its `n`th request (from 0).
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(State::default());
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let accept = {
            let state = Arc::clone(&state);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let state = Arc::clone(&state);
                    let handler = Arc::clone(&handler);
                    std::thread::spawn(move || serve(stream, &state, &*handler));
                }
            })
        };
        TestServer {
            addr,
            state,
            stop,
            accept: Some(accept),
        }
    }

    /// Request `n` gets `replies[n]`, and every request past the end the
    /// last reply.
    pub fn scripted(replies: Vec<Reply>) -> TestServer {
        assert!(!replies.is_empty(), "a script needs a reply");
        TestServer::start(move |_, n| replies[n.min(replies.len() - 1)].clone())
    }

    /// Every request gets `reply`.
    pub fn always(reply: Reply) -> TestServer {
        TestServer::scripted(vec![reply])
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.state.requests.lock().unwrap().clone()
    }

    /// How many requests arrived.
    pub fn request_count(&self) -> usize {
        self.state.count.load(Ordering::SeqCst)
    }

    /// The most requests that were being answered at once.
    pub fn max_in_flight(&self) -> usize {
        self.state.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn serve(stream: TcpStream, state: &State, handler: &Handler) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let Some(request) = read_request(&mut reader) else {
        return;
    };
    let n = state.count.fetch_add(1, Ordering::SeqCst);
    state.requests.lock().unwrap().push(request.clone());
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let reply = handler(&request, n);
    if !reply.delay.is_zero() {
        std::thread::sleep(reply.delay);
    }
    // Out of flight before the answer leaves: a client that has read it may
    // send its next request before this thread runs again, and counting
    // that one while this one still counts would see one request too many.
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut stream = stream;
    let _ = stream.write_all(&reply.to_bytes());
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}
