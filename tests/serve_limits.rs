//! `hive-mind serve` under abuse, on loopback: slow headers and connection
//! floods are cut, one token's stalled bodies leave the others served,
//! queued uploads go to disk or are refused, MCP sessions are capped, the
//! answers' headers, random job ids, two servers on one data directory.
//!
//! Every test gives the server small limits and timeouts (its options), so
//! each runs in seconds with a handful of connections.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};

use crate::serve::{Body, Server, token};

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

fn address(server: &Server) -> String {
    server.url.trim_start_matches("http://").to_string()
}

/// Whether the server closed `stream` within `within` (an end of stream or
/// a reset; bytes it answered before closing are returned).
fn closed_within(stream: &mut TcpStream, within: Duration) -> Option<String> {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return Some(String::from_utf8_lossy(&seen).into_owned()),
            Ok(read) => seen.extend_from_slice(&buffer[..read]),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None;
            }
            Err(_) => return Some(String::from_utf8_lossy(&seen).into_owned()),
        }
    }
}

/// Send a request's head on a new connection; what the server answered
/// before it closed the connection.
fn raw_request(address: &str, head: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    closed_within(&mut stream, Duration::from_secs(5)).expect("the server kept the connection open")
}

/// GET `path` until it answers 200, within `within`; how long it took.
fn answered_within(server: &Server, path: &str, within: Duration) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < within {
        let quick: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .into();
        if let Ok(response) = quick.get(format!("{}{path}", server.url)).call()
            && response.status() == 200
        {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

#[test]
fn a_slow_header_is_cut_after_the_timeout_while_others_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--header-timeout", "1s"]);
    let address = address(&server);
    let mut slow = TcpStream::connect(&address).unwrap();
    slow.write_all(b"GET /api/hea").unwrap();
    let mut silent = TcpStream::connect(&address).unwrap();
    let started = Instant::now();
    // Others are served meanwhile.
    assert_eq!(server.get("/api/health", None).0, 200);
    let cut = closed_within(&mut slow, Duration::from_secs(5));
    let waited = started.elapsed();
    assert!(cut.is_some(), "a half request line is not cut");
    assert!(
        waited >= Duration::from_millis(700) && waited < Duration::from_secs(4),
        "cut after {waited:?}, not the 1 s header timeout"
    );
    assert!(
        closed_within(&mut silent, Duration::from_secs(3)).is_some(),
        "a connection that sends nothing is cut as well"
    );
    // A kept-alive connection is answered, then cut once it sits idle.
    let mut idle = TcpStream::connect(&address).unwrap();
    write!(idle, "GET /api/health HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
    let answered = Instant::now();
    let answer =
        closed_within(&mut idle, Duration::from_secs(5)).expect("an idle connection stays open");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answered.elapsed() >= Duration::from_millis(700),
        "closed after {:?}, before the idle timeout",
        answered.elapsed()
    );
    assert_eq!(server.get("/api/health", None).0, 200);
}

#[test]
fn a_connection_flood_is_capped_and_the_server_answers_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        &["--max-connections", "8", "--header-timeout", "1500ms"],
    );
    let address = address(&server);
    // The flood: eight connections that send nothing hold the cap…
    let mut held: Vec<TcpStream> = (0..8)
        .map(|_| TcpStream::connect(&address).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // …and forty more are closed as soon as they are accepted.
    let started = Instant::now();
    let mut excess: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(&address).unwrap())
        .collect();
    for stream in &mut excess {
        assert!(
            closed_within(stream, Duration::from_secs(2)).is_some(),
            "a connection past the cap is kept open"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "refusing the excess took {:?}",
        started.elapsed()
    );
    // The held ones are cut at the header timeout, and a legit client is
    // answered then.
    let answered = answered_within(&server, "/api/health", Duration::from_secs(8));
    assert!(
        answered.is_some(),
        "the server stays unreachable after the flood"
    );
    for stream in &mut held {
        assert!(
            closed_within(stream, Duration::from_secs(3)).is_some(),
            "an idle flood connection is never cut"
        );
    }
    // Once it is gone every client is answered, many at once.
    for _ in 0..6 {
        assert_eq!(server.get("/api/health", None).0, 200);
    }
}

#[test]
fn one_tokens_stalled_bodies_do_not_lock_out_another_token() {
    let dir = tempfile::tempdir().unwrap();
    let reader = token(dir.path(), "reader", "read", &["*"]);
    let owner = token(dir.path(), "owner", "admin", &["*"]);
    let server = Server::start(
        dir.path(),
        &[
            "--max-in-flight",
            "6",
            "--max-in-flight-per-client",
            "2",
            "--body-timeout",
            "2s",
        ],
    );
    let address = address(&server);
    // The reader opens six requests whose bodies never finish: as many as
    // the server's whole in-flight limit.
    let mut stalled: Vec<TcpStream> = (0..6)
        .map(|_| {
            let mut stream = TcpStream::connect(&address).unwrap();
            write!(
                stream,
                "POST /api/memories HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {reader}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"content\": \"never"
            )
            .unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // Another token is still served at once.
    let started = Instant::now();
    let (status, _) = server.get("/api/stats", Some(&owner));
    assert_eq!(
        status, 200,
        "the owner is locked out by the reader's stalled bodies"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    // The reader's requests past its share were refused at once, and the
    // others are cut by the body timeout: none holds its slot for long.
    let mut refused = 0;
    let mut cut = 0;
    for stream in &mut stalled {
        let answer = closed_within(stream, Duration::from_secs(6))
            .expect("a stalled body holds its slot past the body timeout");
        if answer.starts_with("HTTP/1.1 429") {
            refused += 1;
        } else {
            assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
            cut += 1;
        }
    }
    assert_eq!((refused, cut), (4, 2), "the reader's share is two");
    // Its slots are back: the reader is served again.
    assert_eq!(server.get("/api/stats", Some(&reader)).0, 200);
}

fn spool_files(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir.join("server"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| {
                    path.file_name()
                        .is_some_and(|name| name.to_string_lossy().starts_with("upload-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn wait_until(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < within {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

#[test]
fn queued_uploads_are_spooled_to_disk_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let owner = token(dir.path(), "owner", "admin", &["*"]);
    let other = token(dir.path(), "other", "write", &["*"]);
    let server = Server::start(
        dir.path(),
        &[
            "--import-queue",
            "2",
            "--upload-spool",
            "65536",
            "--body-timeout",
            "5s",
        ],
    );
    let address = address(&server);
    // An upload under way is written to a spool file as it arrives, which
    // only its owner may read.
    let mut uploading = TcpStream::connect(&address).unwrap();
    write!(
        uploading,
        "POST /api/imports?mind=personal&name=notes.md HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {owner}\r\nContent-Type: application/octet-stream\r\nContent-Length: 40000\r\n\r\n"
    )
    .unwrap();
    uploading.write_all(&[b'a'; 3000]).unwrap();
    uploading.flush().unwrap();
    assert!(
        wait_until(Duration::from_secs(3), || {
            spool_files(dir.path())
                .iter()
                .any(|path| std::fs::metadata(path).is_ok_and(|meta| meta.len() >= 3000))
        }),
        "the upload is not spooled to disk"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let file = &spool_files(dir.path())[0];
        let mode = std::fs::metadata(file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", file.display());
    }
    // The owner's share of the queue (one job of two) is taken: its next
    // import is refused before its body is read, with a time to retry…
    let refused = raw_request(
        &address,
        &format!(
            "POST /api/imports?mind=personal&name=b.md HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {owner}\r\nContent-Length: 1000\r\n\r\n"
        ),
    );
    assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
    assert!(refused.to_lowercase().contains("retry-after:"), "{refused}");
    // …while another token's import is taken.
    let (status, job) = server.call(
        "POST",
        "/api/imports?mind=personal&name=theirs.md",
        Some(&other),
        Some(Body::Raw(
            b"# Theirs\n\nThe orchard grows apples.\n".to_vec(),
        )),
    );
    assert_eq!(status, 202, "{job}");
    // The client goes away: its spool file goes, and its place in the queue.
    drop(uploading);
    assert!(
        wait_until(Duration::from_secs(5), || spool_files(dir.path())
            .is_empty()),
        "an abandoned upload's spool file stays"
    );
    // An upload past the spool quota is refused and leaves nothing behind.
    let refused = raw_request(
        &address,
        &format!(
            "POST /api/imports?mind=personal&name=big.md HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {owner}\r\nContent-Length: 200000\r\n\r\n"
        ),
    );
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.to_lowercase().contains("retry-after:"), "{refused}");
    assert!(spool_files(dir.path()).is_empty());
    // So is one that tells no length and sends past the quota.
    let mut chunked = TcpStream::connect(&address).unwrap();
    write!(
        chunked,
        "POST /api/imports?mind=personal&name=big.md HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {owner}\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    .unwrap();
    for _ in 0..5 {
        write!(chunked, "4000\r\n").unwrap();
        chunked.write_all(&[b'c'; 0x4000]).unwrap();
        write!(chunked, "\r\n").unwrap();
    }
    let refused = closed_within(&mut chunked, Duration::from_secs(5)).unwrap();
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(wait_until(Duration::from_secs(3), || spool_files(
        dir.path()
    )
    .is_empty()));
    // A proper upload still becomes a job.
    let (status, job) = server.call(
        "POST",
        "/api/imports?mind=personal&name=notes.md",
        Some(&owner),
        Some(Body::Raw(
            b"# Notes\n\nThe allotment grows beans.\n".to_vec(),
        )),
    );
    assert_eq!(status, 202, "{job}");
}

#[test]
fn import_job_ids_are_random_and_hidden_from_other_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let owner = token(dir.path(), "owner", "admin", &["*"]);
    let other = token(dir.path(), "other", "admin", &["*"]);
    let server = Server::start(dir.path(), &[]);
    let mut ids = Vec::new();
    for n in 0..2 {
        let (status, job) = server.call(
            "POST",
            &format!("/api/imports?mind=personal&name=n{n}.md"),
            Some(&owner),
            Some(Body::Raw(
                format!("# Note {n}\n\nPlot {n} grows beans.\n").into_bytes(),
            )),
        );
        assert_eq!(status, 202, "{job}");
        ids.push(job["id"].as_u64().unwrap());
    }
    assert!(
        ids.iter().all(|id| *id > 1 << 20 && *id < 1 << 53),
        "ids {ids:?} look sequential"
    );
    assert!(ids[0].abs_diff(ids[1]) > 1, "ids {ids:?} look sequential");
    let path = format!("/api/imports/{}", ids[0]);
    let (status, mine) = server.get(&path, Some(&owner));
    assert_eq!(status, 200, "{mine}");
    let (status, theirs) = server.get(&path, Some(&other));
    assert_eq!(status, 404, "{theirs}");
    assert!(
        !theirs.to_string().contains("personal"),
        "the 404 names the job's mind: {theirs}"
    );
    assert_eq!(theirs["detail"], format!("no import job {}", ids[0]));
}

#[test]
fn answers_say_nosniff_and_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let owner = token(dir.path(), "owner", "admin", &["*"]);
    let server = Server::start(dir.path(), &[]);
    let get = |path: &str, token: Option<&str>| {
        let mut request = agent().get(format!("{}{path}", server.url));
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        request.call().unwrap()
    };
    for (path, token, status) in [
        ("/api/health", None, 200),
        ("/api/stats", Some(owner.as_str()), 200),
        ("/api/stats", None, 401),
        ("/api/nowhere", Some(owner.as_str()), 404),
    ] {
        let response = get(path, token);
        assert_eq!(response.status().as_u16(), status, "{path}");
        let headers = response.headers();
        assert_eq!(
            headers.get("x-content-type-options").unwrap(),
            "nosniff",
            "{path}"
        );
        assert_eq!(headers.get("cache-control").unwrap(), "no-store", "{path}");
    }
    let page = get("/", None);
    assert_eq!(
        page.headers().get("x-content-type-options").unwrap(),
        "nosniff"
    );
}

fn initialize() -> Json {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
}

/// An `initialize` over HTTP: the status, the session, the answer's text.
fn open_session(server: &Server, token: &str) -> (u16, Option<String>, String) {
    let request = ureq::http::Request::builder()
        .method("POST")
        .uri(format!("{}/mcp", server.url))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", format!("Bearer {token}"))
        .body(initialize().to_string())
        .unwrap();
    let mut response = agent().run(request).unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_string);
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, session, text)
}

fn close_session(server: &Server, token: &str, session: &str) -> u16 {
    let request = ureq::http::Request::builder()
        .method("DELETE")
        .uri(format!("{}/mcp", server.url))
        .header("Authorization", format!("Bearer {token}"))
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .body(())
        .unwrap();
    agent().run(request).unwrap().status().as_u16()
}

#[test]
fn mcp_sessions_are_capped_per_token_and_overall() {
    let dir = tempfile::tempdir().unwrap();
    let one = token(dir.path(), "one", "read", &["*"]);
    let two = token(dir.path(), "two", "read", &["*"]);
    let three = token(dir.path(), "three", "read", &["*"]);
    let server = Server::start(
        dir.path(),
        &["--max-mcp-sessions", "3", "--mcp-sessions-per-client", "2"],
    );
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let (status, session, text) = open_session(&server, &one);
        assert_eq!(status, 200, "{text}");
        sessions.push(session.unwrap());
    }
    let (status, session, text) = open_session(&server, &one);
    assert_eq!(status, 429, "a third session for one token: {text}");
    assert!(session.is_none());
    let refusal: Json = serde_json::from_str(&text).unwrap();
    assert!(
        refusal["detail"].as_str().unwrap().contains("MCP sessions"),
        "{text}"
    );
    // Another token still gets one: the server's third and last.
    let (status, _, text) = open_session(&server, &two);
    assert_eq!(status, 200, "{text}");
    let (status, _, text) = open_session(&server, &three);
    assert_eq!(status, 429, "a fourth session overall: {text}");
    assert!(text.contains("the server already holds 3"), "{text}");
    // Ending a session gives its place back.
    assert_eq!(close_session(&server, &one, &sessions[0]), 202);
    let (status, _, text) = open_session(&server, &three);
    assert_eq!(status, 200, "{text}");
}

fn announcements(dir: &Path) -> Vec<(u32, Json)> {
    let mut found: Vec<(u32, Json)> = std::fs::read_dir(dir.join("server"))
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let pid = name
                .strip_prefix("serve-")?
                .strip_suffix(".json")?
                .parse()
                .ok()?;
            let text = std::fs::read_to_string(entry.path()).ok()?;
            Some((pid, serde_json::from_str(&text).unwrap()))
        })
        .collect();
    found.sort_by_key(|(pid, _)| *pid);
    found
}

#[test]
fn two_servers_on_one_data_directory_each_announce_and_withdraw_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let first = Server::start(dir.path(), &[]);
    let second = Server::start(dir.path(), &[]);
    let announced = announcements(dir.path());
    assert_eq!(announced.len(), 2, "{announced:?}");
    let first_pid = announced
        .iter()
        .find(|(_, body)| body["url"] == first.url.as_str())
        .map(|(pid, _)| *pid)
        .unwrap();
    assert!(
        announced
            .iter()
            .any(|(_, body)| body["url"] == second.url.as_str())
    );
    // The first to stop removes its own announcement only.
    assert!(first.terminate());
    let left = announcements(dir.path());
    assert_eq!(left.len(), 1, "{left:?}");
    assert_ne!(left[0].0, first_pid);
    assert_eq!(left[0].1["url"], second.url.as_str());
    // The one still running answers at the address it announced.
    assert_eq!(second.get("/api/health", None).0, 200);
    assert!(second.terminate());
    assert!(announcements(dir.path()).is_empty());
}
