//! The wiki of a mind end to end: the command line's `wiki` (listing, a
//! page, search, health, export), pages that follow corrections and
//! forgetting at once, and the MCP tools under upstream's names.

use std::path::Path;

use serde_json::{Value as Json, json};

use crate::support::{self, cli};

fn ok(dir: &Path, args: &[&str]) -> String {
    let (ok, out, err) = cli(dir, args);
    assert!(ok, "{args:?}: {err}");
    out
}

fn json_of(dir: &Path, args: &[&str]) -> Json {
    serde_json::from_str(&ok(dir, args)).unwrap()
}

/// The slug of the page titled `title`.
fn slug_of(pages: &Json, title: &str) -> String {
    pages
        .as_array()
        .unwrap()
        .iter()
        .find(|page| page["title"] == title)
        .unwrap_or_else(|| panic!("no page {title}: {pages:#}"))["slug"]
        .as_str()
        .unwrap()
        .to_string()
}

fn saved_ref(dir: &Path, content: &str, at: &str) -> String {
    let saved = json_of(dir, &["save", content, "--created-at", at, "--json"]);
    saved["ref"].as_str().unwrap().to_string()
}

#[test]
fn pages_show_what_is_known_now_and_follow_corrections_and_forgetting() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let yasmin = saved_ref(
        d,
        "My sister Yasmin works at Philips in Eindhoven.",
        "2025-03-01T10:00:00Z",
    );
    saved_ref(
        d,
        "I prefer dark mode in every editor.",
        "2026-01-10T10:00:00Z",
    );
    let stale = saved_ref(
        d,
        "My sister Yasmin plays the cello in an orchestra.",
        "2024-01-05T10:00:00Z",
    );
    saved_ref(d, "Buy coffee filters.", "2026-02-01T10:00:00Z");

    // The listing: `you` first, then the entities the memories name.
    let pages = json_of(d, &["wiki", "--json"]);
    assert_eq!(pages[0]["slug"], "you", "{pages:#}");
    let page = slug_of(&pages, "Yasmin");
    assert_eq!(
        pages[0]["statements"], 3,
        "the owner's three statements (the first person): {pages:#}"
    );
    let listing = ok(d, &["wiki"]);
    assert!(
        listing.lines().next().unwrap().starts_with("you"),
        "{listing}"
    );

    // A page: every current statement with its memory's reference.
    let markdown = ok(d, &["wiki", &page]);
    assert!(markdown.starts_with("# Yasmin"), "{markdown}");
    assert!(
        markdown.contains(&format!("Philips in Eindhoven. `{yasmin}`")),
        "{markdown}"
    );
    let you = ok(d, &["wiki", "you"]);
    assert!(you.contains("dark mode"), "{you}");
    assert!(!you.contains("coffee"), "{you}");

    // A correction: the new version is current, the old one is history.
    let corrected = json_of(
        d,
        &[
            "correct",
            &yasmin,
            "My sister Yasmin works at ASML in Veldhoven now.",
            "--json",
        ],
    );
    let current = corrected["memory"]["ref"].as_str().unwrap().to_string();
    assert_eq!(corrected["replaced"]["ref"], yasmin.as_str());
    let after = json_of(d, &["wiki", &page, "--json"]);
    let refs = |list: &Json| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|frame| frame["ref"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(refs(&after["current"]).contains(&current), "{after:#}");
    assert!(!refs(&after["current"]).contains(&yasmin), "{after:#}");
    assert!(refs(&after["history"]).contains(&yasmin), "{after:#}");
    let markdown = after["markdown"].as_str().unwrap();
    assert!(
        markdown.contains(&format!("(replaced by `{current}`)")),
        "{markdown}"
    );

    // Search: by title and by what a statement says.
    let found = json_of(d, &["wiki", "search", "veldhoven", "--json"]);
    assert_eq!(slug_of(&found, "Yasmin"), page);
    assert!(ok(d, &["wiki", "search", "zzzz"]).contains("no page"));

    // Health: the old, never recalled statement is stale; the note about
    // filters names nobody, so no page cites it.
    let health = json_of(d, &["wiki", "health", "--json"]);
    assert_eq!(health["counts"]["stale"], 1, "{health:#}");
    assert_eq!(health["counts"]["orphan"], 1, "{health:#}");
    assert!(
        health.to_string().contains(&stale),
        "the stale finding names its memory: {health:#}"
    );
    let text = ok(d, &["wiki", "health"]);
    assert!(text.starts_with("health: "), "{text}");

    // Forgetting: the statement is gone from the page at once.
    ok(d, &["forget", &stale, "--yes"]);
    let after = json_of(d, &["wiki", &page, "--json"]);
    assert!(!after.to_string().contains("cello"), "{after:#}");

    // Export: a folder of Markdown whose links resolve.
    let out = dir.path().join("wiki-export");
    let said = ok(d, &["wiki", "export", "--out", out.to_str().unwrap()]);
    assert!(said.contains("page(s)"), "{said}");
    let index = std::fs::read_to_string(out.join("index.md")).unwrap();
    assert!(index.contains(&format!("({page}.md)")), "{index}");
    assert!(out.join(format!("{page}.md")).exists());
    assert!(out.join("you.md").exists() && out.join("health.md").exists());
    // The mind's own Markdown export ends with the wiki, its page links
    // turned into links within the document.
    let whole = ok(d, &["export", "--format", "markdown"]);
    let wiki = whole
        .split("\n# Wiki\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{whole}"));
    assert!(wiki.contains(&format!("<a id=\"{page}\"></a>")), "{wiki}");
    assert!(wiki.contains("## Yasmin"), "{wiki}");
    assert!(!wiki.contains(".md)"), "{wiki}");
    // Never into a folder that holds something.
    let (ok_again, _, err) = cli(d, &["wiki", "export", "--out", out.to_str().unwrap()]);
    assert!(!ok_again && err.contains("not empty"), "{err}");

    // Bad addresses are named.
    let (ok_bad, _, err) = cli(d, &["wiki", "nowhere"]);
    assert!(!ok_bad && err.contains("nowhere"), "{err}");
}

#[test]
fn the_owner_confirms_or_undoes_what_the_engine_decided_and_sees_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lisbon = saved_ref(d, "I live in Lisbon.", "2024-01-10T09:00:00Z");
    let porto = saved_ref(d, "I live in Porto.", "2025-06-01T09:00:00Z");
    let twice = saved_ref(d, "Karim plays chess on Sundays.", "2025-07-01T09:00:00Z");
    let again = saved_ref(d, "karim plays  chess on sundays", "2025-07-02T09:00:00Z");

    // The engine replaced Lisbon on its own: the health report asks.
    let health = json_of(d, &["wiki", "health", "--json"]);
    assert_eq!(health["counts"]["replaced"], 1, "{health:#}");
    assert_eq!(health["counts"]["duplicate"], 1, "{health:#}");
    let issues = health["issues"].as_array().unwrap();
    let replaced = issues
        .iter()
        .find(|issue| issue["kind"] == "replaced")
        .unwrap();
    assert_eq!(replaced["memories"], json!([lisbon, porto]), "{health:#}");
    let duplicate = issues
        .iter()
        .find(|issue| issue["kind"] == "duplicate")
        .unwrap();
    assert_eq!(duplicate["memories"], json!([again, twice]), "{health:#}");

    // Both stand: Lisbon is current again and the question is gone.
    let decided = json_of(
        d,
        &[
            "review",
            "decide",
            &porto,
            &lisbon,
            "--verdict",
            "both-stand",
            "--json",
        ],
    );
    assert_eq!(decided["verdict"], "both-stand");
    assert_eq!(decided["older"]["ref"], lisbon.as_str());
    assert_eq!(decided["older"]["superseded-by"], Json::Null, "{decided:#}");
    let health = json_of(d, &["wiki", "health", "--json"]);
    assert_eq!(health["counts"]["replaced"], 0, "{health:#}");
    let you = json_of(d, &["wiki", "you", "--json"]);
    let current: Vec<&str> = you["current"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| frame["ref"].as_str().unwrap())
        .collect();
    assert!(
        current.contains(&lisbon.as_str()) && current.contains(&porto.as_str()),
        "{you:#}"
    );

    // Changed mind: Porto replaces Lisbon after all.
    let decided = json_of(
        d,
        &[
            "review",
            "decide",
            &lisbon,
            &porto,
            "--verdict",
            "replaces",
            "--json",
        ],
    );
    assert_eq!(
        decided["older"]["superseded-by"],
        porto.as_str(),
        "{decided:#}"
    );
    let text = ok(
        d,
        &["review", "decide", &lisbon, &porto, "--verdict", "replaces"],
    );
    assert!(text.contains("verdict: replaces"), "{text}");

    // Bad verdicts and pairs are named.
    let (ok_bad, _, err) = cli(
        d,
        &["review", "decide", &lisbon, &porto, "--verdict", "maybe"],
    );
    assert!(
        !ok_bad && err.contains("maybe") && err.contains("both-stand"),
        "{err}"
    );
    let (ok_bad, _, err) = cli(
        d,
        &[
            "review",
            "decide",
            &lisbon,
            &lisbon,
            "--verdict",
            "replaces",
        ],
    );
    assert!(!ok_bad && err.contains("twice"), "{err}");
}

#[test]
fn a_theme_the_memories_return_to_gets_a_topic_page() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut invoices = Vec::new();
    for (content, at) in [
        (
            "Paid the electricity invoice late again.",
            "2026-01-05T09:00:00Z",
        ),
        (
            "Invoices go to the accountant every quarter.",
            "2026-02-10T09:00:00Z",
        ),
        (
            "The invoice for the boiler repair arrived.",
            "2026-03-15T09:00:00Z",
        ),
    ] {
        invoices.push(saved_ref(d, content, at));
    }
    saved_ref(d, "Buy coffee filters.", "2026-03-16T09:00:00Z");

    let pages = json_of(d, &["wiki", "--json"]);
    let topic = pages
        .as_array()
        .unwrap()
        .iter()
        .find(|page| page["kind"] == "topic")
        .unwrap_or_else(|| panic!("no topic page: {pages:#}"));
    assert_eq!(topic["slug"], "topic-invoice", "{pages:#}");
    assert_eq!(topic["statements"], 3, "{pages:#}");
    let markdown = ok(d, &["wiki", "topic-invoice"]);
    for reference in &invoices {
        assert!(markdown.contains(reference.as_str()), "{markdown}");
    }
    assert!(!markdown.contains("coffee"), "{markdown}");
    let found = json_of(d, &["wiki", "search", "invoice", "--json"]);
    assert!(found.to_string().contains("topic-invoice"), "{found:#}");

    // Forgotten, it leaves the page at once; a word no memory says has none.
    ok(d, &["forget", &invoices[0], "--yes"]);
    let page = json_of(d, &["wiki", "topic-invoice", "--json"]);
    assert_eq!(page["current"].as_array().unwrap().len(), 2, "{page:#}");
    let (ok_bad, _, err) = cli(d, &["wiki", "topic-zebra"]);
    assert!(!ok_bad && err.contains("zebra"), "{err}");
}

#[test]
fn a_session_reads_as_its_conversation_with_its_title_and_dates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let export = d.join("conversations.json");
    std::fs::write(
        &export,
        json!([{
            "title": "Planning the Kyoto trip",
            "create_time": 1_712_170_800.0,
            "mapping": {
                "a": {"id": "a", "parent": null, "children": ["b"], "message": {
                    "id": "a", "author": {"role": "user"}, "create_time": 1_712_170_800.0,
                    "content": {"content_type": "text", "parts": ["Should we stay in Gion or near the station?"]}}},
                "b": {"id": "b", "parent": "a", "children": [], "message": {
                    "id": "b", "author": {"role": "assistant"}, "create_time": 1_712_170_860.0,
                    "content": {"content_type": "text", "parts": ["Gion is walkable and quiet at night."]}}}
            }
        }])
        .to_string(),
    )
    .unwrap();
    ok(d, &["import", export.to_str().unwrap(), "--json"]);
    let sessions = json_of(d, &["review", "sessions", "--json"]);
    let kyoto = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|session| session["title"] == "Planning the Kyoto trip")
        .unwrap_or_else(|| panic!("no titled session: {sessions:#}"));
    assert_eq!(kyoto["first-event"], "2024-04-03T19:00:00Z", "{kyoto:#}");
    let gop = kyoto["gop-id"].as_str().unwrap();
    let view = json_of(d, &["review", "session", gop, "--json"]);
    let turns: Vec<&str> = view["memories"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|frame| frame["metadata"]["kind"]["raw-turn"].is_object())
        .map(|frame| frame["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        turns,
        [
            "Should we stay in Gion or near the station?",
            "Gion is walkable and quiet at night."
        ],
        "{view:#}"
    );
    let (ok_bad, _, err) = cli(d, &["review", "session", "conv:nowhere"]);
    assert!(!ok_bad && err.contains("conv:nowhere"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_wiki_tools_answer_under_upstreams_names() {
    let dir = tempfile::tempdir().unwrap();
    let session = support::McpSession::start(dir.path()).await;
    let tool = |name: &'static str, arguments: Json| session.tool(name, arguments);
    let (failed, saved) = tool(
        "save_memory",
        json!({"content": "My colleague Ana works at Kestrel in Leeds."}),
    )
    .await;
    assert!(!failed, "{saved}");
    let (failed, wiki) = tool("compile_wiki", json!({})).await;
    assert!(!failed, "{wiki}");
    assert_eq!(wiki["pages"][0]["slug"], "you", "{wiki}");
    assert!(wiki["health"]["orphan"].is_u64(), "{wiki}");
    let slug = slug_of(&wiki["pages"], "Kestrel");
    let (failed, page) = tool("get_page", json!({"page": slug})).await;
    assert!(!failed, "{page}");
    assert_eq!(page["current"][0]["ref"], saved["ref"], "{page}");
    let (failed, found) = tool("search_wiki", json!({"query": "leeds"})).await;
    assert!(!failed && found.to_string().contains(&slug), "{found}");
    let (failed, health) = tool("compile_health", json!({})).await;
    assert!(!failed && health["counts"].is_object(), "{health}");
    for (name, arguments) in [
        ("get_page", json!({})),
        ("get_page", json!({"page": "entity-x"})),
        ("search_wiki", json!({"query": "  "})),
        ("get_page", json!({"page": "entity-99999"})),
        ("compile_wiki", json!({"shred": true})),
    ] {
        let (failed, answer) = tool(name, arguments.clone()).await;
        assert!(failed, "{name} {arguments}: {answer}");
    }
    session.close().await;
}
