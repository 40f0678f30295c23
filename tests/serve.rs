//! `hive-mind serve`: the real binary on loopback, driven over HTTP.
//!
//! Every JSON answer of these tests is checked against the server's own
//! `/openapi.json` ([`crate::support::openapi`]), and the REST test calls
//! every operation the document lists, so the document and the handlers
//! cannot drift apart unnoticed. Bad requests get their status and a
//! problem document and change nothing; two tokens see only their own
//! minds; MCP over HTTP needs a token and refuses a foreign origin; a
//! SIGTERM stops the server cleanly.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::support::{cli, hive_mind, openapi};

/// A server process on an ephemeral loopback port, killed on drop.
pub struct Server {
    child: Child,
    pub url: String,
    pub document: Json,
    /// `METHOD template` of every operation answered so far.
    seen: std::cell::RefCell<BTreeSet<String>>,
}

impl Server {
    pub fn start(dir: &Path, extra: &[&str]) -> Server {
        let mut child = hive_mind()
            .arg("--data-dir")
            .arg(dir)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "the server said {url:?}"
        );
        let document = agent()
            .get(format!("{url}/openapi.json"))
            .call()
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap();
        Server {
            child,
            url,
            document,
            seen: Default::default(),
        }
    }

    /// Send a request; the status and the JSON answer (`null` when the
    /// body is not JSON), checked against the document.
    pub fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Body>,
    ) -> (u16, Json) {
        let url = format!("{}{path}", self.url);
        let agent = agent();
        let mut request = ureq::http::Request::builder().method(method).uri(&url);
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let response = match body {
            None => agent.run(request.body(()).unwrap()),
            Some(Body::Json(value)) => agent.run(
                request
                    .header("Content-Type", "application/json")
                    .body(value.to_string())
                    .unwrap(),
            ),
            Some(Body::Raw(bytes)) => agent.run(request.body(bytes).unwrap()),
        };
        let mut response = response.unwrap();
        let status = response.status().as_u16();
        let media = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .to_string();
        let text = response
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .unwrap();
        let value: Json = serde_json::from_str(&text).unwrap_or(Json::Null);
        let bare = path.split('?').next().unwrap();
        if status >= 400 {
            assert_eq!(media, "application/problem+json", "{method} {path}: {text}");
            assert_eq!(value["status"], status, "{text}");
            assert!(
                value["detail"].as_str().is_some_and(|d| !d.is_empty()),
                "{text}"
            );
        }
        if media == "application/json" || media == "application/problem+json" {
            let documented = openapi::response_schema(
                &self.document,
                &method.to_lowercase(),
                bare,
                status,
                &media,
            );
            // A route or method the document does not have is answered
            // with a problem document all the same.
            let problem = json!({"$ref": "#/components/schemas/Problem"});
            let schema = match documented {
                Some(schema) => schema,
                None if status >= 400 => &problem,
                None => panic!("{method} {bare} {status} {media}: not in the document"),
            };
            let mut problems = Vec::new();
            openapi::validate(&self.document, schema, &value, "$", &mut problems);
            assert!(problems.is_empty(), "{method} {path}: {problems:?}\n{text}");
        }
        if let Some((template, _)) = self.document["paths"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(template, _)| openapi::matches_template(template, bare))
        {
            self.seen
                .borrow_mut()
                .insert(format!("{} {template}", method.to_lowercase()));
        }
        (status, value)
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> (u16, Json) {
        self.call("GET", path, token, None)
    }

    pub fn post(&self, path: &str, token: Option<&str>, body: Json) -> (u16, Json) {
        self.call("POST", path, token, Some(Body::Json(body)))
    }

    /// Every operation of the document.
    fn operations(&self) -> BTreeSet<String> {
        let mut all = BTreeSet::new();
        for (template, operations) in self.document["paths"].as_object().unwrap() {
            for method in operations.as_object().unwrap().keys() {
                all.insert(format!("{method} {template}"));
            }
        }
        all
    }

    /// Stop with SIGTERM; whether it exited cleanly in time.
    pub fn terminate(mut self) -> bool {
        let pid = self.child.id().to_string();
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
        // Up to two minutes: a stop waits for the work under way, which a
        // machine loaded by the tests beside it slows.
        for _ in 0..1200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request body.
pub enum Body {
    Json(Json),
    Raw(Vec<u8>),
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// Make a token with the CLI; the token.
pub fn token(dir: &Path, name: &str, scope: &str, minds: &[&str]) -> String {
    let mut args = vec!["token", "create", name, "--scope", scope];
    for mind in minds {
        args.push("--mind");
        args.push(mind);
    }
    let (ok, out, err) = cli(dir, &args);
    assert!(ok, "{err}");
    out.lines().next().unwrap().trim().to_string()
}

fn frames(server: &Server, token: &str) -> Vec<(String, u64)> {
    let (status, stats) = server.get("/api/stats", Some(token));
    assert_eq!(status, 200);
    stats
        .as_array()
        .unwrap()
        .iter()
        .map(|mind| {
            (
                mind["mind"].as_str().unwrap().to_string(),
                mind["frames"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_operation_answers_as_its_openapi_document_says() {
    let dir = tempfile::tempdir().unwrap();
    let admin = token(dir.path(), "owner", "admin", &["*"]);
    let server = Server::start(dir.path(), &[]);
    let t = Some(admin.as_str());
    assert_eq!(server.get("/api/health", None).0, 200);

    let (status, saved) = server.post(
        "/api/memories",
        t,
        json!({"mind": "personal", "content": "My sister Alice lives in Lisbon and works as an architect.", "importance": "important"}),
    );
    assert_eq!(status, 201, "{saved}");
    let alice = saved["ref"].as_str().unwrap().to_string();
    let (_, other) = server.post(
        "/api/memories",
        t,
        json!({"mind": "personal", "content": "Alice's studio designs libraries in Porto."}),
    );
    let studio = other["ref"].as_str().unwrap().to_string();
    let (status, workspace) = server.post(
        "/api/memories",
        t,
        json!({"mind": "workspace", "workspace": "acme", "content": "The acme build uses cargo nextest on two cores."}),
    );
    assert_eq!(status, 201, "{workspace}");

    let (status, recall) = server.get("/api/memory/search?q=where%20does%20Alice%20live", t);
    assert_eq!(status, 200);
    assert_eq!(recall["memories"][0]["ref"], alice, "{recall}");
    assert!(
        recall["memories"][0]["why"]
            .as_str()
            .unwrap()
            .contains("semantic")
    );
    let (status, listed) = server.get("/api/memories?limit=10", t);
    assert_eq!(status, 200);
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert_eq!(server.get(&format!("/api/memories/{alice}"), t).0, 200);

    let (status, corrected) = server.post(
        &format!("/api/memories/{alice}/correct"),
        t,
        json!({"content": "My sister Alice moved to Madrid; she still works as an architect."}),
    );
    assert_eq!(status, 200, "{corrected}");
    let current = corrected["memory"]["ref"].as_str().unwrap().to_string();
    let (_, history) = server.get(&format!("/api/memories/{current}/history"), t);
    assert_eq!(history.as_array().unwrap().len(), 2);
    let (_, recall) = server.get("/api/memory/search?q=where%20does%20Alice%20live", t);
    assert_eq!(
        recall["memories"][0]["ref"], current,
        "the newer fact replaces the older"
    );
    assert_eq!(
        server.get(&format!("/api/memories/{current}/trace"), t).0,
        200
    );

    let (status, archived) = server.call(
        "PATCH",
        &format!("/api/memories/{studio}"),
        t,
        Some(Body::Json(
            json!({"archived": true, "add_tags": ["family"]}),
        )),
    );
    assert_eq!(status, 200, "{archived}");
    assert_eq!(archived["status"], "archived");
    server.call(
        "PATCH",
        &format!("/api/memories/{studio}"),
        t,
        Some(Body::Json(json!({"archived": false}))),
    );
    let (status, merged) = server.post(
        "/api/memories/merge",
        t,
        json!({"memories": [current, studio]}),
    );
    assert_eq!(status, 200, "{merged}");
    let merged_ref = merged["memory"]["ref"].as_str().unwrap().to_string();

    let (status, learned) = server.post(
        "/api/exchanges",
        t,
        json!({"user": "I prefer tea over coffee, by the way.", "assistant": "Noted: tea it is."}),
    );
    assert_eq!(status, 200, "{learned}");
    // An exchange is both messages or a transcript, never half or both.
    for half in [
        json!({"user": "I prefer tea."}),
        json!({"user": "a", "assistant": "b", "transcript": "{}"}),
    ] {
        let (status, problem) = server.post("/api/exchanges", t, half);
        assert_eq!(status, 400, "{problem}");
    }

    let (status, identity) = server.call(
        "PATCH",
        "/api/identity",
        t,
        Some(Body::Json(
            json!({"mind": "personal", "name": "Ada", "role": "research assistant"}),
        )),
    );
    assert_eq!(status, 200, "{identity}");
    assert_eq!(server.get("/api/identity", t).1["name"], "Ada");
    let (status, added) = server.post(
        "/api/awareness",
        t,
        json!({"mind": "personal", "category": "task", "content": "Review the acme launch checklist", "priority": 2}),
    );
    assert_eq!(status, 201, "{added}");
    let (_, items) = server.get("/api/awareness", t);
    assert_eq!(items[0]["content"], "Review the acme launch checklist");
    let item = added["added"]["id"].as_u64().unwrap();
    assert_eq!(
        server
            .post(
                "/api/awareness",
                t,
                json!({"mind": "personal", "category": "chore", "content": "x"})
            )
            .0,
        400
    );
    assert_eq!(
        server
            .call(
                "DELETE",
                &format!("/api/awareness?id={item}&mind=personal"),
                t,
                None
            )
            .0,
        200
    );
    assert_eq!(
        server
            .call(
                "DELETE",
                &format!("/api/awareness?id={item}&mind=personal"),
                t,
                None
            )
            .0,
        404
    );
    let (_, entities) = server.get("/api/graph/entities", t);
    let entity = entities.as_array().unwrap().first().cloned();
    if let Some(entity) = entity {
        let id = entity["id"].as_u64().unwrap();
        assert_eq!(server.get(&format!("/api/graph/entities/{id}"), t).0, 200);
        assert_eq!(
            server
                .get(&format!("/api/graph/entities/{id}/neighbours?depth=2"), t)
                .0,
            200
        );
    } else {
        // The document's entity routes still answer: an unknown entity.
        assert_eq!(server.get("/api/graph/entities/999", t).0, 404);
        assert_eq!(server.get("/api/graph/entities/999/neighbours", t).0, 404);
    }
    // The wiki: the listing leads with `you`; Alice's page (the saved
    // memory names her) holds the memory; the search finds it; the health
    // report counts each kind; an address that names no page is refused.
    let (status, pages) = server.get("/api/wiki", t);
    assert_eq!(status, 200, "{pages}");
    assert_eq!(pages[0]["slug"], "you", "{pages}");
    let alice_page = pages
        .as_array()
        .unwrap()
        .iter()
        .find(|page| page["title"] == "Alice")
        .unwrap_or_else(|| panic!("no page for Alice: {pages}"))["slug"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, page) = server.get(&format!("/api/wiki/pages/{alice_page}"), t);
    assert_eq!(status, 200, "{page}");
    assert!(
        page["markdown"].as_str().unwrap().contains("Lisbon"),
        "{page}"
    );
    let (status, found) = server.get("/api/wiki/search?q=alice", t);
    assert_eq!(status, 200, "{found}");
    assert!(found.to_string().contains(&alice_page), "{found}");
    let (status, health) = server.get("/api/wiki/health", t);
    assert_eq!(status, 200, "{health}");
    assert!(health["counts"]["conflict"].is_u64(), "{health}");
    assert_eq!(server.get("/api/wiki/pages/nowhere", t).0, 400);
    assert_eq!(server.get("/api/wiki/pages/entity-99999", t).0, 404);
    let (status, sessions) = server.get("/api/sessions", t);
    assert_eq!(status, 200, "{sessions}");
    let gop = sessions[0]["gop-id"].as_str().unwrap();
    let (status, session) = server.get(&format!("/api/sessions/{gop}?limit=5"), t);
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["session"]["gop-id"], gop, "{session}");
    assert!(
        !session["memories"].as_array().unwrap().is_empty(),
        "{session}"
    );
    assert_eq!(server.get("/api/sessions/no-such-session", t).0, 404);
    // The owner confirms the correction's pair (already its word) and is
    // told plainly what a verdict must be.
    let (status, decided) = server.post(
        "/api/decisions",
        t,
        json!({"older": alice, "newer": current, "verdict": "replaces"}),
    );
    assert_eq!(status, 200, "{decided}");
    assert_eq!(
        decided["older"]["superseded-by"],
        current.as_str(),
        "{decided}"
    );
    let (status, refused) = server.post(
        "/api/decisions",
        t,
        json!({"older": alice, "newer": current, "verdict": "maybe"}),
    );
    assert_eq!(status, 400, "{refused}");
    assert_eq!(server.get("/api/flagged", t).0, 200);
    let (status, _) = server.post(
        &format!("/api/memories/{merged_ref}/release"),
        t,
        json!(null),
    );
    assert!(status == 200 || status == 400, "release answers {status}");

    let (status, job) = server.call(
        "POST",
        "/api/imports?mind=personal&name=notes.md",
        t,
        Some(Body::Raw(
            b"# Garden\n\nThe fig tree by the shed was planted in 2019.\n".to_vec(),
        )),
    );
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_u64().unwrap();
    let mut done = json!(null);
    for _ in 0..600 {
        let (_, state) = server.get(&format!("/api/imports/{id}"), t);
        if state["state"] != "running" {
            done = state;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["report"]["imported"], 1);
    let (_, sources) = server.get("/api/sources", t);
    assert_eq!(sources.as_array().unwrap().len(), 1);

    let (status, dry) = server.post("/api/forget", t, json!({"memories": [merged_ref]}));
    assert_eq!(status, 200);
    assert_eq!(dry["dry-run"], true);
    assert_eq!(
        server.get(&format!("/api/memories/{merged_ref}"), t).0,
        200,
        "a dry run keeps it"
    );
    let (status, erased) = server.post(
        "/api/forget",
        t,
        json!({"memories": [merged_ref], "confirm": true}),
    );
    assert_eq!(status, 200, "{erased}");
    assert_eq!(server.get(&format!("/api/memories/{merged_ref}"), t).0, 404);

    let exported = agent()
        .get(format!("{}/api/export?workspace=acme", server.url))
        .header("Authorization", format!("Bearer {admin}"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    let header: Json = serde_json::from_str(exported.lines().next().unwrap()).unwrap();
    assert_eq!(header["mind"], "workspace:acme");
    assert!(exported.contains("cargo nextest"));
    assert_eq!(server.get("/api/export?format=yaml", t).0, 400);
    let (status, stats) = server.get("/api/stats", t);
    assert_eq!(status, 200);
    assert_eq!(stats.as_array().unwrap().len(), 2);

    let untested: Vec<String> = server
        .operations()
        .difference(&server.seen.borrow())
        .cloned()
        .collect();
    assert!(
        untested.is_empty(),
        "operations no test calls: {untested:?}"
    );
    assert!(server.terminate(), "SIGTERM stops the server cleanly");
    let announced = std::fs::read_dir(dir.path().join("server"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("serve-"))
        .count();
    assert_eq!(announced, 0, "a stopped server withdraws its announcement");
    let (ok, _, err) = cli(dir.path(), &["check", "--json"]);
    assert!(ok, "{err}");
}

#[test]
fn bad_requests_get_their_status_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let admin = token(dir.path(), "owner", "admin", &["*"]);
    let reader = token(dir.path(), "reader", "read", &["personal"]);
    let server = Server::start(dir.path(), &["--max-body", "65536"]);
    let t = Some(admin.as_str());
    server.post(
        "/api/memories",
        t,
        json!({"mind": "personal", "content": "The boiler was serviced in March."}),
    );
    let before = frames(&server, &admin);

    let (status, _) = server.get("/api/memories", None);
    assert_eq!(status, 401);
    assert_eq!(server.get("/api/memories", Some("hm_not-a-token")).0, 401);
    let (status, refused) = server.post(
        "/api/memories",
        Some(&reader),
        json!({"mind": "personal", "content": "a reader cannot write"}),
    );
    assert_eq!(status, 403, "{refused}");
    assert!(refused["detail"].as_str().unwrap().contains("write"));
    assert_eq!(
        server.get("/api/memories?workspace=acme", Some(&reader)).0,
        403
    );
    assert_eq!(server.get("/api/memories/personal:999", t).0, 404);
    assert_eq!(server.get("/api/memories?workspace=nowhere", t).0, 404);
    let (status, typo) = server.get("/api/memory/search?q=boiler&wrokspace=acme", t);
    assert_eq!(status, 400);
    assert!(
        typo["detail"].as_str().unwrap().contains("workspace"),
        "{typo}"
    );
    let (status, unnamed) = server.post("/api/memories", t, json!({"content": "which mind?"}));
    assert_eq!(status, 400);
    assert!(
        unnamed["detail"]
            .as_str()
            .unwrap()
            .contains("mind=personal")
    );
    let (status, _) = server.call(
        "POST",
        "/api/memories",
        t,
        Some(Body::Raw(b"{\"content\": \"cut".to_vec())),
    );
    assert_eq!(status, 400);
    assert_eq!(
        server
            .post(
                "/api/memories",
                t,
                json!({"mind": "personal", "content": "x", "importanc": "high"})
            )
            .0,
        400
    );
    let (status, _) = server.post(
        "/api/memories",
        t,
        json!({"mind": "personal", "content": "x".repeat(70_000)}),
    );
    assert_eq!(status, 413);
    assert_eq!(server.call("DELETE", "/api/health", None, None).0, 405);
    assert_eq!(server.get("/api/nothing-here", t).0, 404);
    let (status, _) = server.post(
        "/api/forget",
        t,
        json!({"memories": ["personal:1"], "confirm": true, "extra": 1}),
    );
    assert_eq!(status, 400);
    assert_eq!(frames(&server, &admin), before, "nothing changed");
}

#[test]
fn a_full_queue_is_answered_429_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let admin = token(dir.path(), "owner", "admin", &["*"]);
    // No request may wait for an engine: every call that needs one is
    // refused at once.
    let server = Server::start(dir.path(), &["--queue", "0"]);
    let response = agent()
        .get(format!("{}/api/memories", server.url))
        .header("Authorization", format!("Bearer {admin}"))
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 429);
    assert_eq!(response.headers().get("retry-after").unwrap(), "1");
    assert_eq!(
        server.get("/api/health", None).0,
        200,
        "what needs no engine still answers"
    );
}

#[test]
fn two_tokens_see_only_their_own_minds() {
    let dir = tempfile::tempdir().unwrap();
    let mine = token(dir.path(), "me", "write", &["personal"]);
    let theirs = token(dir.path(), "acme-agent", "write", &["workspace:acme"]);
    let server = Server::start(dir.path(), &[]);
    let (status, _) = server.post(
        "/api/memories",
        Some(&theirs),
        json!({"mind": "workspace", "workspace": "acme", "content": "The acme launch is on the ninth of March."}),
    );
    assert_eq!(status, 201);
    server.post(
        "/api/memories",
        Some(&mine),
        json!({"mind": "personal", "content": "My dentist appointment is on the ninth of March."}),
    );
    assert_eq!(
        server.get("/api/memories?workspace=acme", Some(&mine)).0,
        403
    );
    assert_eq!(server.get("/api/memories", Some(&theirs)).0, 403);
    // Their recall over both minds reaches the personal one: refused;
    // over their workspace alone: answered, with their memory only.
    assert_eq!(
        server
            .get(
                "/api/memory/search?q=ninth%20of%20March&workspace=acme",
                Some(&theirs)
            )
            .0,
        403
    );
    let (status, recall) = server.get(
        "/api/memory/search?q=ninth%20of%20March&workspace=acme&scope=current",
        Some(&theirs),
    );
    assert_eq!(status, 200);
    assert!(recall.to_string().contains("acme launch") && !recall.to_string().contains("dentist"));
    let minds: Vec<String> = frames(&server, &theirs)
        .into_iter()
        .map(|(mind, _)| mind)
        .collect();
    assert_eq!(minds, vec!["workspace:acme".to_string()]);
    assert_eq!(server.get("/api/memories/personal:1", Some(&theirs)).0, 403);
    assert_eq!(
        server
            .post(
                "/api/forget",
                Some(&mine),
                json!({"memories": ["personal:1"], "confirm": true})
            )
            .0,
        403,
        "erasure needs the admin scope"
    );
    let (ok, _, _) = cli(dir.path(), &["token", "revoke", "acme-agent"]);
    assert!(ok);
    assert_eq!(
        server.get("/api/stats", Some(&theirs)).0,
        401,
        "revoked at once"
    );
}

/// An MCP request over HTTP: the JSON-RPC answer (from JSON or the first
/// `data:` event) and the session id.
pub fn mcp(
    server: &Server,
    token: Option<&str>,
    session: Option<&str>,
    origin: Option<&str>,
    message: Json,
) -> (u16, Json, Option<String>) {
    let (status, answer, session, _) = mcp_raw(server, token, session, origin, message);
    (status, answer, session)
}

/// [`mcp`], with the raw text of the answer (an event stream may carry the
/// server's own requests before the answer).
fn mcp_raw(
    server: &Server,
    token: Option<&str>,
    session: Option<&str>,
    origin: Option<&str>,
    message: Json,
) -> (u16, Json, Option<String>, String) {
    let mut request = ureq::http::Request::builder()
        .method("POST")
        .uri(format!("{}/mcp", server.url))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    if let Some(session) = session {
        request = request
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25");
    }
    if let Some(origin) = origin {
        request = request.header("Origin", origin);
    }
    let mut response = agent()
        .run(request.body(message.to_string()).unwrap())
        .unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_string);
    let text = response.body_mut().read_to_string().unwrap_or_default();
    let answer = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| data.starts_with('{'))
        .map(|data| serde_json::from_str(data).unwrap())
        .unwrap_or_else(|| serde_json::from_str(&text).unwrap_or(Json::Null));
    (status, answer, session, text)
}

#[test]
fn mcp_over_http_needs_a_token_and_keeps_to_its_minds() {
    let dir = tempfile::tempdir().unwrap();
    let theirs = token(dir.path(), "acme-agent", "write", &["workspace:acme"]);
    let admin = token(dir.path(), "owner", "admin", &["*"]);
    let server = Server::start(dir.path(), &[]);
    // The owner makes the workspace's mind by writing to it.
    server.post(
        "/api/memories",
        Some(&admin),
        json!({"mind": "workspace", "workspace": "acme", "content": "The acme team ships on Thursdays."}),
    );
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    assert_eq!(mcp(&server, None, None, None, initialize.clone()).0, 401);
    let (status, _, _) = mcp(
        &server,
        Some(&theirs),
        None,
        Some("http://evil.example"),
        initialize.clone(),
    );
    assert_eq!(status, 403, "a foreign origin is refused");
    let (status, answer, session) = mcp(&server, Some(&theirs), None, None, initialize);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "hive-mind");
    let session = session.unwrap();
    mcp(
        &server,
        Some(&theirs),
        Some(&session),
        None,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let call = |id: u64, name: &str, arguments: Json| {
        mcp(
            &server,
            Some(&theirs),
            Some(&session),
            None,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}}),
        )
        .1
    };
    let saved = call(
        2,
        "save_memory",
        json!({"content": "The acme staging database is Postgres 16.", "workspace": "acme"}),
    );
    assert_ne!(saved["result"]["isError"], true, "{saved}");
    let recalled = call(
        5,
        "recall_memory",
        json!({"query": "which database does staging use", "workspace": "acme", "scope": "current"}),
    );
    assert!(recalled.to_string().contains("Postgres 16"), "{recalled}");
    let refused = call(3, "save_memory", json!({"content": "I live in Lisbon."}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        refused.to_string().contains("not granted the mind"),
        "{refused}"
    );
    // The workspaces listed are those the token reaches.
    let listed = call(4, "list_workspaces", json!({}));
    assert_eq!(
        listed["result"]["structuredContent"]["workspaces"],
        json!(["acme"]),
        "{listed}"
    );

    // A client elsewhere that declares roots names folders of its own
    // machine: the server never asks for them, and reads no file.
    let secret = dir.path().join("notes.md");
    std::fs::write(&secret, "# private\n\nThe server's own file.\n").unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": false}},
        "clientInfo": {"name": "test", "version": "1"}}});
    let (_, _, rooted) = mcp(&server, Some(&admin), None, None, initialize);
    let rooted = rooted.unwrap();
    mcp(
        &server,
        Some(&admin),
        Some(&rooted),
        None,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let (_, answer, _, text) = mcp_raw(
        &server,
        Some(&admin),
        Some(&rooted),
        None,
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
            "name": "ingest_source", "arguments": {"source": secret.display().to_string()}}}),
    );
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        !text.contains("roots/list"),
        "the server asked for roots: {text}"
    );
    assert!(
        answer.to_string().contains("no folder is allowed"),
        "{answer}"
    );
}

/// An MCP session over HTTP for `token` (initialized): call a method, get
/// the answer.
pub struct Session<'a> {
    server: &'a Server,
    token: &'a str,
    id: String,
    next: std::cell::Cell<u64>,
}

impl<'a> Session<'a> {
    pub fn open(server: &'a Server, token: &'a str) -> Session<'a> {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "isolation", "version": "1"}}});
        let (status, answer, id) = mcp(server, Some(token), None, None, initialize);
        assert_eq!(status, 200, "{answer}");
        let id = id.unwrap();
        mcp(
            server,
            Some(token),
            Some(&id),
            None,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        Session {
            server,
            token,
            id,
            next: std::cell::Cell::new(1),
        }
    }

    pub fn request(&self, method: &str, params: Json) -> Json {
        let id = self.next.get();
        self.next.set(id + 1);
        mcp(
            self.server,
            Some(self.token),
            Some(&self.id),
            None,
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
        .1
    }
}

/// A small deterministic generator for the request fuzz (xorshift64*).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// A percent-encoded piece of text: words, numbers, references,
    /// unicode, control bytes, traversal, very long runs.
    fn piece(&mut self) -> String {
        let raw = match self.below(10) {
            0 => "personal:1".to_string(),
            1 => "workspace:acme:1".to_string(),
            2 => "../../etc/passwd".to_string(),
            3 => "ünïcödé 🐝 \u{202e}".to_string(),
            4 => "x".repeat(self.below(5_000)),
            5 => (self.next() as i64).to_string(),
            6 => "\0\u{1}\u{7f}".to_string(),
            7 => "workspace:".to_string(),
            8 => "%zz%".to_string(),
            _ => "lisbon".to_string(),
        };
        raw.bytes().map(|b| format!("%{b:02X}")).collect()
    }
}

#[test]
fn random_requests_are_each_answered_and_change_nothing_they_should_not() {
    let dir = tempfile::tempdir().unwrap();
    let admin = token(dir.path(), "owner", "admin", &["*"]);
    let server = Server::start(dir.path(), &["--max-body", "65536"]);
    let t = Some(admin.as_str());
    server.post(
        "/api/memories",
        t,
        json!({"mind": "personal", "content": "The spare key is under the blue pot."}),
    );
    let templates: Vec<String> = server.document["paths"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let keys = [
        "q",
        "workspace",
        "mind",
        "limit",
        "scope",
        "profile",
        "as_of",
        "no_floor",
        "format",
        "type",
        "depth",
        "name",
        "url",
        "wrokspace",
        "",
    ];
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    for round in 0..300 {
        let template = &templates[noise.below(templates.len())];
        let mut path = String::new();
        for segment in template.split('/').filter(|s| !s.is_empty()) {
            path.push('/');
            if segment.starts_with('{') {
                path.push_str(&noise.piece());
            } else {
                path.push_str(segment);
            }
        }
        let mut query = Vec::new();
        for _ in 0..noise.below(4) {
            query.push(format!("{}={}", noise.pick(&keys), noise.piece()));
        }
        if !query.is_empty() {
            path.push('?');
            path.push_str(&query.join("&"));
        }
        let method = noise.pick(&["GET", "POST", "PUT", "PATCH", "DELETE"]);
        let body = match noise.below(5) {
            0 => None,
            1 => Some(Body::Raw(
                (0..noise.below(2000)).map(|_| noise.next() as u8).collect(),
            )),
            2 => Some(Body::Json(
                json!({"content": noise.piece(), "memories": [noise.piece()], "confirm": false}),
            )),
            3 => Some(Body::Json(json!([1, {"a": null}, "x"]))),
            _ => Some(Body::Json(
                json!({"status": noise.piece(), "pinned": "yes"}),
            )),
        };
        // Erasure only as a dry run: the fuzz must not forget the memory
        // it checks for below.
        if path.starts_with("/api/forget") {
            continue;
        }
        let (status, answer) = server.call(method, &path, t, body);
        assert!(
            status < 500 || status == 503,
            "round {round}: {method} {path} answered {status}: {answer}"
        );
    }
    assert_eq!(server.get("/api/health", None).0, 200, "still serving");
    let (_, recall) = server.get("/api/memory/search?q=where%20is%20the%20spare%20key", t);
    assert!(recall.to_string().contains("blue pot"));
    assert!(server.terminate());
    let (ok, _, err) = cli(dir.path(), &["check", "--json"]);
    assert!(ok, "{err}");
}

#[test]
fn a_slow_client_holds_no_engine_and_no_write_lock() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let admin = token(dir.path(), "owner", "admin", &["*"]);
    // One engine: a client that held it while sending its body would stop
    // every other request.
    let server = Server::start(dir.path(), &["--engines", "1"]);
    let address = server.url.trim_start_matches("http://").to_string();
    let mut slow = std::net::TcpStream::connect(&address).unwrap();
    write!(
        slow,
        "POST /api/memories HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {admin}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{{\"content\": \"half"
    )
    .unwrap();
    slow.flush().unwrap();
    let started = std::time::Instant::now();
    let (status, _) = server.post(
        "/api/memories",
        Some(&admin),
        json!({"mind": "personal", "content": "Saved while another client dawdles."}),
    );
    assert_eq!(status, 201);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // A client that asks and leaves at once does not stop the server.
    drop(slow);
    let mut gone = std::net::TcpStream::connect(&address).unwrap();
    write!(
        gone,
        "GET /api/memory/search?q=dawdles HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {admin}\r\n\r\n"
    )
    .unwrap();
    drop(gone);
    let (status, recall) = server.get("/api/memory/search?q=dawdles", Some(&admin));
    assert_eq!(status, 200);
    assert!(recall.to_string().contains("dawdles"));
}

#[test]
fn a_stop_lets_the_import_under_way_finish() {
    let dir = tempfile::tempdir().unwrap();
    let admin = token(dir.path(), "owner", "admin", &["*"]);
    let server = Server::start(dir.path(), &[]);
    let t = Some(admin.as_str());
    let mut notes = String::from("# Field notes\n\n");
    // Enough sections that the import is still under way when the stop
    // comes, right after it is accepted.
    for n in 0..120 {
        notes.push_str(&format!(
            "## Plot {n}\n\nPlot {n} of the allotment grows variety {} of beans, sown in week {}.\n\n",
            n * 7 % 31,
            n % 52
        ));
    }
    let file = dir.path().join("field-notes.md");
    std::fs::write(&file, &notes).unwrap();
    // Named as the command line names it, so the second import below
    // recognises its items.
    let name: String = file
        .display()
        .to_string()
        .bytes()
        .map(|b| format!("%{b:02X}"))
        .collect();
    let (status, job) = server.call(
        "POST",
        &format!("/api/imports?mind=personal&name={name}"),
        t,
        Some(Body::Raw(notes.into_bytes())),
    );
    assert_eq!(status, 202, "{job}");
    // SIGTERM while it runs: the server lets it finish, then stops cleanly.
    assert!(server.terminate(), "the server stopped cleanly");
    let (ok, _, err) = cli(dir.path(), &["check", "--json"]);
    assert!(ok, "{err}");
    // The same file again: nothing left to import, so the first import was
    // whole when the server stopped.
    let (ok, out, err) = cli(
        dir.path(),
        &["import", "--json", "--quiet", &file.display().to_string()],
    );
    assert!(ok, "{err}");
    let report: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(report["imported"], 0, "{report}");
    assert!(
        report["sources"][0]["known"].as_u64().unwrap() > 0,
        "{report}"
    );
}

#[test]
fn limit_bounds_every_lane_on_every_surface() {
    let dir = tempfile::tempdir().unwrap();
    let owner = token(dir.path(), "owner", "admin", &["*"]);
    let server = Server::start(dir.path(), &[]);
    for n in 0..12 {
        let importance = if n % 2 == 0 { "important" } else { "normal" };
        let (status, saved) = server.post(
            "/api/memories",
            Some(&owner),
            json!({"mind": "personal", "content": format!("Harbour note {n}: the ferry to the island leaves at {n} past six."), "importance": importance}),
        );
        assert_eq!(status, 201, "{saved}");
    }
    let count = |recall: &Json| recall["memories"].as_array().map_or(0, Vec::len);
    // The default is 10, every lane together.
    let (_, recall) = server.get(
        "/api/memory/search?q=when+does+the+ferry+leave",
        Some(&owner),
    );
    assert!(count(&recall) <= 10 && count(&recall) > 0, "{recall}");
    for limit in [1, 3] {
        let (status, recall) = server.get(
            &format!("/api/memory/search?q=when+does+the+ferry+leave&limit={limit}"),
            Some(&owner),
        );
        assert_eq!(status, 200, "{recall}");
        assert!(
            count(&recall) <= limit && count(&recall) > 0,
            "REST limit {limit}: {recall}"
        );
    }
    // The block within a token budget: the lowest-ranked memories go, and
    // the notes say so.
    let (_, whole) = server.get(
        "/api/memory/search?q=when+does+the+ferry+leave",
        Some(&owner),
    );
    let (_, cut) = server.get(
        "/api/memory/search?q=when+does+the+ferry+leave&max_tokens=60",
        Some(&owner),
    );
    assert!(count(&cut) < count(&whole), "{cut}");
    assert!(cut["text"].as_str().unwrap().len() < whole["text"].as_str().unwrap().len());
    assert!(
        cut.to_string()
            .contains("left out to keep the block within 60 tokens"),
        "{cut}"
    );
    // MCP over HTTP.
    let session = Session::open(&server, &owner);
    let answer = session.request(
        "tools/call",
        json!({"name": "recall_memory", "arguments": {"query": "when does the ferry leave", "limit": 2}}),
    );
    let memories = &answer["result"]["structuredContent"];
    assert!(count(memories) <= 2 && count(memories) > 0, "MCP: {answer}");
    // The CLI.
    let (ok, out, err) = cli(
        dir.path(),
        &[
            "recall",
            "when does the ferry leave",
            "--limit",
            "1",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let recall: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(count(&recall), 1, "CLI: {out}");
}

#[test]
fn a_workspace_token_has_its_own_identity_and_never_the_personal_one() {
    let dir = tempfile::tempdir().unwrap();
    let owner = token(dir.path(), "owner", "admin", &["*"]);
    let theirs = token(dir.path(), "acme-agent", "write", &["workspace:acme"]);
    let server = Server::start(dir.path(), &[]);
    server.post(
        "/api/memories",
        Some(&owner),
        json!({"mind": "workspace", "workspace": "acme", "content": "The acme staging database is Postgres 16."}),
    );
    let (status, _) = server.call(
        "PATCH",
        "/api/identity",
        Some(&owner),
        Some(Body::Json(
            json!({"mind": "personal", "name": "Ada", "system_prompt": "You are the owner's private assistant."}),
        )),
    );
    assert_eq!(status, 200);
    let session = Session::open(&server, &theirs);
    let call = |_id: u64, name: &str, arguments: Json| {
        session.request("tools/call", json!({"name": name, "arguments": arguments}))
    };
    // Its own workspace's identity: set, and read back.
    let set = call(
        2,
        "set_identity",
        json!({"workspace": "acme", "name": "Acme bot"}),
    );
    assert_ne!(set["result"]["isError"], true, "{set}");
    let got = call(3, "get_identity", json!({"workspace": "acme"}));
    assert_eq!(
        got["result"]["structuredContent"]["identity"]["name"], "Acme bot",
        "{got}"
    );
    // The personal identity: neither read nor written.
    for (id, name, arguments) in [
        (4, "get_identity", json!({})),
        (5, "set_identity", json!({"name": "Mallory"})),
        (
            6,
            "set_identity",
            json!({"mind": "personal", "name": "Mallory"}),
        ),
    ] {
        let refused = call(id, name, arguments);
        assert_eq!(refused["result"]["isError"], true, "{refused}");
        assert!(refused.to_string().contains("not granted"), "{refused}");
    }
    let (_, personal) = server.get("/api/identity", Some(&owner));
    assert_eq!(personal["name"], "Ada", "{personal}");
    // A recall of the workspace carries its identity, not the personal one.
    let (status, recall) = server.get(
        "/api/memory/search?q=staging+database&workspace=acme&scope=current",
        Some(&theirs),
    );
    assert_eq!(status, 200, "{recall}");
    let context = recall["context"].as_str().unwrap();
    assert!(context.contains("Acme bot"), "{context}");
    assert!(
        !context.contains("Ada") && !context.contains("private assistant"),
        "{context}"
    );
}
