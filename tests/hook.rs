//! `hive-mind hook claude-code` with recorded hook payloads
//! (`tests/fixtures/hooks/`), through a running server and alone, and
//! `hive-mind hook install claude-code`.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value as Json, json};

use crate::serve::{Server, token};
use crate::support::{cli, hive_mind, workspace};

/// Run the hook with the recorded payload `name`, its transcript path
/// pointing at `transcript`; (stdout, stderr).
fn hook(dir: &Path, name: &str, transcript: &Path, extra: &[&str]) -> (String, String) {
    agent_hook("claude-code", dir, name, transcript, extra)
}

/// The same for another agent's hook.
fn agent_hook(
    agent: &str,
    dir: &Path,
    name: &str,
    transcript: &Path,
    extra: &[&str],
) -> (String, String) {
    let payload = std::fs::read_to_string(workspace().join("tests/fixtures/hooks").join(name))
        .unwrap()
        .replace("TRANSCRIPT", &transcript.display().to_string());
    let mut child = hive_mind()
        .arg("--data-dir")
        .arg(dir)
        .args(["hook", agent])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "a hook never fails the agent");
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn context(stdout: &str) -> String {
    let answer: Json = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_hooks_recall_and_learn_through_a_server_and_alone() {
    let dir = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("session.jsonl");
    std::fs::copy(
        workspace().join("tests/fixtures/hooks/transcript.jsonl"),
        &transcript,
    )
    .unwrap();
    let (ok, _, err) = cli(
        dir.path(),
        &[
            "save",
            "The staging environment runs on Postgres 16 in eu-west-1.",
        ],
    );
    assert!(ok, "{err}");
    // The install writes the settings and the hooks' token.
    let install = hive_mind()
        .arg("--data-dir")
        .arg(dir.path())
        .args(["hook", "install", "claude-code"])
        .current_dir(project.path())
        .output()
        .unwrap();
    assert!(install.status.success());
    let admin = token(dir.path(), "owner", "admin", &["*"]);
    let server = Server::start(dir.path(), &[]);

    let (out, err) = hook(dir.path(), "user_prompt_submit.json", &transcript, &[]);
    assert!(context(&out).contains("Postgres 16"), "{out}\n{err}");
    let (out, _) = hook(dir.path(), "unrelated_prompt.json", &transcript, &[]);
    assert_eq!(out.trim(), "", "nothing relevant: nothing added");

    let (_, err) = hook(dir.path(), "stop.json", &transcript, &[]);
    assert!(err.contains("learned"), "{err}");
    let (_, recall) = server.get(
        "/api/memory/search?q=which%20language%20do%20I%20prefer%20for%20command-line%20tools",
        Some(&admin),
    );
    assert!(recall.to_string().contains("Rust"), "{recall}");

    let (_, err) = hook(dir.path(), "session_end.json", &transcript, &[]);
    assert!(err.contains("import job"), "{err}");
    let mut imported = false;
    for _ in 0..600 {
        let (_, sources) = server.get("/api/sources", Some(&admin));
        if sources
            .as_array()
            .is_some_and(|sources| !sources.is_empty())
        {
            imported = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(imported, "the session's transcript was imported");

    // Gemini CLI's hooks: the same recall, and the exchange its AfterAgent
    // event carries.
    let (out, err) = agent_hook(
        "gemini-cli",
        dir.path(),
        "gemini_before_agent.json",
        &transcript,
        &[],
    );
    let answer: Json = serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{out}\n{err}"));
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
    assert!(answer.to_string().contains("Postgres 16"), "{answer}");
    let (out, err) = agent_hook(
        "gemini-cli",
        dir.path(),
        "gemini_after_agent.json",
        &transcript,
        &[],
    );
    assert_eq!(out.trim(), "{}", "{err}");
    let (_, recall) = server.get(
        "/api/memory/search?q=which%20editor%20do%20I%20prefer%20for%20config%20files",
        Some(&admin),
    );
    assert!(recall.to_string().contains("Emacs"), "{recall}");

    // A server that refuses the hook's token: the hook says so and works
    // alone, with the same answer.
    let (out, err) = hook(dir.path(), "user_prompt_submit.json", &transcript, &[]);
    assert!(context(&out).contains("Postgres 16"), "{err}");
    let refused = hive_mind()
        .arg("--data-dir")
        .arg(dir.path())
        .args(["hook", "claude-code"])
        .env("HIVE_MIND_TOKEN", "hm_revoked")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let payload =
        std::fs::read_to_string(workspace().join("tests/fixtures/hooks/user_prompt_submit.json"))
            .unwrap()
            .replace("TRANSCRIPT", &transcript.display().to_string());
    let mut refused = refused;
    refused
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let output = refused.wait_with_output().unwrap();
    let (out, err) = (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    );
    assert!(err.contains("working alone"), "{err}");
    assert!(context(&out).contains("Postgres 16"), "{out}");

    // Without a server the hook loads the engine itself, with the same answer.
    assert!(server.terminate());
    let (out, err) = hook(dir.path(), "user_prompt_submit.json", &transcript, &[]);
    assert!(context(&out).contains("Postgres 16"), "{out}\n{err}");

    // Alone, a turn's end too: the engine reads the transcript's last
    // exchange and learns from it.
    let alone = tempfile::tempdir().unwrap();
    let (_, err) = hook(alone.path(), "stop.json", &transcript, &["--no-server"]);
    assert!(
        err.contains("learned") && !err.contains("learned 0"),
        "{err}"
    );
    let (ok, out, err) = cli(
        alone.path(),
        &[
            "recall",
            "which language do I prefer for command-line tools",
        ],
    );
    assert!(ok && out.contains("Rust"), "{out}\n{err}");
    // The session's end imports the transcript: its turns, and no second
    // memory of what the turn's end already kept.
    let (_, err) = hook(
        alone.path(),
        "session_end.json",
        &transcript,
        &["--no-server"],
    );
    assert!(err.contains("imported"), "{err}");
    let memories: Vec<String> = crate::support::native_minds(alone.path(), None)
        .list_frames(&hive_mind_store::SearchFilter::default(), true, 100)
        .unwrap()
        .into_iter()
        .map(|frame| frame.content)
        .filter(|content| !content.starts_with("[mind-rawturn"))
        .collect();
    let saying = |words: &str| memories.iter().filter(|m| m.contains(words)).count();
    assert_eq!(saying("Rust for command-line tools"), 1, "{memories:#?}");
    assert_eq!(saying("deploys on Fridays"), 1, "{memories:#?}");
    // A turn whose question is not answered yet: nothing to learn.
    let waiting = alone.path().join("waiting.jsonl");
    std::fs::write(
        &waiting,
        "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"I prefer tabs.\"}}\n",
    )
    .unwrap();
    let (_, err) = hook(alone.path(), "stop.json", &waiting, &["--no-server"]);
    assert!(err.contains("learned 0 memories"), "{err}");
}

#[test]
fn install_shows_its_diff_keeps_other_settings_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let settings = project.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        json!({"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}).to_string(),
    )
    .unwrap();
    let install = |extra: &[&str]| {
        let output = hive_mind()
            .arg("--data-dir")
            .arg(dir.path())
            .args(["hook", "install", "claude-code"])
            .args(extra)
            .current_dir(project.path())
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let dry = install(&["--dry-run"]);
    assert!(dry.contains("+ ") && dry.contains("dry run"), "{dry}");
    assert!(
        !std::fs::read_to_string(&settings)
            .unwrap()
            .contains("hook claude-code")
    );
    let first = install(&[]);
    assert!(
        first.contains("UserPromptSubmit") && first.contains("written"),
        "{first}"
    );
    let written: Json = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(written["model"], "opus");
    assert_eq!(written["hooks"]["Stop"].as_array().unwrap().len(), 2);
    let second = install(&[]);
    assert!(second.contains("nothing to change"), "{second}");
    assert!(dir.path().join("server/hook-token").exists());
    // Uninstalled: the settings are what they were before the install.
    let uninstall = |extra: &[&str]| {
        let output = hive_mind()
            .arg("--data-dir")
            .arg(dir.path())
            .args(["hook", "uninstall", "claude-code"])
            .args(extra)
            .current_dir(project.path())
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let dry = uninstall(&["--dry-run"]);
    assert!(dry.contains("- ") && dry.contains("dry run"), "{dry}");
    let kept: Json = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(kept, written, "a dry run writes nothing");
    let removed = uninstall(&[]);
    assert!(removed.contains("written"), "{removed}");
    let after: Json = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        after,
        json!({"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}})
    );
    assert!(uninstall(&[]).contains("nothing to change"));
    let broken = project.path().join("broken");
    std::fs::create_dir_all(broken.join(".claude")).unwrap();
    std::fs::write(broken.join(".claude/settings.json"), "{ not json").unwrap();
    let output = hive_mind()
        .arg("--data-dir")
        .arg(dir.path())
        .args(["hook", "install", "claude-code"])
        .current_dir(&broken)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert_eq!(
        std::fs::read_to_string(broken.join(".claude/settings.json")).unwrap(),
        "{ not json",
        "a settings file that is not JSON is left alone"
    );
}
