//! Forgetting for real, through the user's surfaces: `hive-mind forget` on
//! the command line (a dry run until `--yes`; the text is then nowhere in
//! the data directory) and the `forget_memory` MCP tool (a dry run until
//! `confirm: true`; bad references change nothing).

use std::path::Path;

use serde_json::{Value as Json, json};

use crate::support::{self, cli};

/// A token that is nowhere else in a data directory.
const SECRET: &str = "qzvpasscode9931";

/// Whether any file under `dir` holds `token`.
fn anywhere(dir: &Path, token: &str) -> bool {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        } else if let Ok(bytes) = std::fs::read(&path)
            && bytes
                .windows(token.len())
                .any(|window| window == token.as_bytes())
        {
            return true;
        }
    }
    false
}

fn saved_ref(stdout: &str) -> String {
    let saved: Json = serde_json::from_str(stdout).unwrap();
    saved["ref"].as_str().unwrap().to_string()
}

fn recall_refs(dir: &Path, query: &str) -> Vec<String> {
    let (ok, stdout, stderr) = cli(dir, &["recall", query, "--json"]);
    assert!(ok, "{stderr}");
    let recall: Json = serde_json::from_str(&stdout).unwrap();
    recall["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|memory| memory["ref"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_cli_lists_then_erases_and_the_text_leaves_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    for text in [
        "The garage door opens with the remote in the blue drawer.",
        "Ana's birthday is on the ninth of March.",
    ] {
        let (ok, _, stderr) = cli(data, &["save", text]);
        assert!(ok, "{stderr}");
    }
    let (ok, stdout, stderr) = cli(
        data,
        &[
            "save",
            &format!("The alarm passcode is {SECRET}, do not share it."),
            "--json",
        ],
    );
    assert!(ok, "{stderr}");
    let secret = saved_ref(&stdout);
    let others_before = recall_refs(data, "When is Ana's birthday?");
    assert!(anywhere(data, SECRET), "the control: the secret is on disk");

    // Without --yes: a list of what would go, and nothing changes.
    let (ok, stdout, stderr) = cli(data, &["forget", &secret]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("would forget 1 memory"), "{stdout}");
    assert!(stdout.contains(&secret), "{stdout}");
    assert!(stdout.contains("--yes"), "{stdout}");
    assert!(anywhere(data, SECRET));

    let (ok, stdout, stderr) = cli(
        data,
        &[
            "forget",
            &secret,
            "--yes",
            "--reason",
            "asked by the owner",
            "--json",
        ],
    );
    assert!(ok, "{stderr}");
    let report: Json = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["dry-run"], false, "{report}");
    assert_eq!(report["memories"][0]["ref"], secret.as_str(), "{report}");
    assert!(
        !anywhere(data, SECRET),
        "the secret is still somewhere in the data directory"
    );
    assert!(!recall_refs(data, "What is the alarm passcode?").contains(&secret));
    assert_eq!(recall_refs(data, "When is Ana's birthday?"), others_before);
    let (ok, stdout, stderr) = cli(data, &["check", "--json"]);
    assert!(ok, "{stdout}{stderr}");

    // Forgetting it again is an error naming it, and changes nothing.
    let (ok, _, stderr) = cli(data, &["forget", &secret, "--yes"]);
    assert!(!ok);
    assert!(stderr.contains("not found"), "{stderr}");
    let (ok, _, stderr) = cli(data, &["forget", "--yes"]);
    assert!(!ok);
    assert!(stderr.contains("name the memories"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_tool_needs_confirmation_and_refuses_what_does_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let session = crate::support::McpSession::serve(support::mcp_server(dir.path())).await;
    let client = session.client();
    for content in [
        "The wifi password of the cabin is on the fridge.",
        &format!("The cabin wifi password is {SECRET}."),
        "The cabin is two hours north of the city.",
    ] {
        client
            .call_tool(support::mcp_call(
                "save_memory",
                json!({"content": content}),
            ))
            .await
            .unwrap();
    }
    // The learning clock: all three were written today (and none before
    // 2000: refused below).
    let learned = client
        .call_tool(support::mcp_call(
            "forget_memory",
            json!({"learned_since": "2000-01-01"}),
        ))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(
        learned["memories"].as_array().unwrap().len(),
        3,
        "{learned}"
    );
    let filter = json!({"matching": "cabin wifi password", "reason": "a secret"});
    let plan = client
        .call_tool(support::mcp_call("forget_memory", filter.clone()))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(plan["dry-run"], true, "{plan}");
    assert_eq!(plan["memories"].as_array().unwrap().len(), 2, "{plan}");
    assert!(plan["confirm"].as_str().unwrap().contains("confirm: true"));
    assert!(anywhere(dir.path(), SECRET), "a dry run changes nothing");

    let mut confirmed = filter.clone();
    confirmed["confirm"] = json!(true);
    let done = client
        .call_tool(support::mcp_call("forget_memory", confirmed))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(done["dry-run"], false, "{done}");
    assert_eq!(done["memories"], plan["memories"], "{done}");
    assert!(!anywhere(dir.path(), SECRET));

    // What does not exist (or no longer does) is refused, and the rest stays.
    for arguments in [
        json!({"memories": ["personal:9999"], "confirm": true}),
        json!({"matching": "cabin wifi password", "confirm": true}),
        json!({"memories": ["nonsense"], "confirm": true}),
        json!({"confirm": true}),
        json!({"memories": ["personal:1"], "matching": "north", "confirm": true}),
        json!({"learned_until": "2000-01-01", "confirm": true}),
    ] {
        let result = client
            .call_tool(support::mcp_call("forget_memory", arguments.clone()))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true), "{arguments}: {result:?}");
    }
    let recall = client
        .call_tool(support::mcp_call(
            "recall_memory",
            json!({"query": "How far is the cabin?"}),
        ))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert!(recall.to_string().contains("two hours north"), "{recall}");
    session.close().await;
}
