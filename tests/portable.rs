//! Export and restore through the command line: a mind exported, restored
//! into an empty data directory and exported again gives the same lines;
//! the restored mind recalls; a cut export is refused with nothing written;
//! the Markdown export reads as a list of memories.

use serde_json::Value as Json;

use crate::support::cli;

/// The rows of an export: every line but the header and the end line.
fn rows(export: &str) -> Vec<String> {
    let lines: Vec<&str> = export.lines().collect();
    lines[1..lines.len() - 1]
        .iter()
        .map(|line| line.to_string())
        .collect()
}

#[test]
fn a_mind_restored_into_an_empty_directory_exports_the_same_and_recalls() {
    let first = tempfile::tempdir().unwrap();
    for (text, at) in [
        ("I live in Lisbon.", "2023-01-10T10:00:00Z"),
        ("I moved to Porto.", "2025-03-01T10:00:00Z"),
        (
            "The ledger service keeps balances in Postgres.",
            "2025-04-01T10:00:00Z",
        ),
    ] {
        let (ok, _, stderr) = cli(first.path(), &["save", text, "--created-at", at]);
        assert!(ok, "{stderr}");
    }
    let export = first.path().join("mind.jsonl");
    let (ok, _, stderr) = cli(first.path(), &["export", "--out", export.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let exported = std::fs::read_to_string(&export).unwrap();
    assert_eq!(
        rows(&exported)
            .iter()
            .filter(|l| l.contains("\"memory_frames\""))
            .count(),
        3
    );

    let second = tempfile::tempdir().unwrap();
    let (ok, stdout, stderr) = cli(
        second.path(),
        &["restore", export.to_str().unwrap(), "--quiet", "--json"],
    );
    assert!(ok, "{stderr}");
    let report: Json = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["frames"], 3, "{report}");
    assert_eq!(report["reindexed"]["frames"], 3, "{report}");
    let (ok, again, stderr) = cli(second.path(), &["export"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        rows(&again),
        rows(&exported),
        "a round trip changes nothing"
    );
    let (ok, stdout, stderr) = cli(second.path(), &["check", "--json"]);
    assert!(ok, "{stdout}{stderr}");
    let (ok, stdout, stderr) = cli(
        second.path(),
        &["recall", "Which database keeps the balances?"],
    );
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Postgres"), "{stdout}");
    let (ok, stdout, stderr) = cli(second.path(), &["recall", "Where do I live?", "--json"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("Porto") && !stdout.contains("Lisbon"),
        "{stdout}"
    );

    // Restoring again into the now full mind, or a cut export: refused,
    // and nothing changes.
    let (ok, _, stderr) = cli(second.path(), &["restore", export.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("not empty"), "{stderr}");
    let third = tempfile::tempdir().unwrap();
    let cut = third.path().join("cut.jsonl");
    let keep = exported.lines().count() - 1;
    std::fs::write(
        &cut,
        exported.lines().take(keep).collect::<Vec<_>>().join("\n"),
    )
    .unwrap();
    let (ok, _, stderr) = cli(third.path(), &["restore", cut.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("cut off"), "{stderr}");
    let (ok, stdout, _) = cli(third.path(), &["status", "--json"]);
    assert!(ok);
    assert!(
        !stdout.contains("\"frames\": 1") && !stdout.contains("\"frames\": 3"),
        "{stdout}"
    );

    // The Markdown export, for a person.
    let (ok, markdown, stderr) = cli(first.path(), &["export", "--format", "markdown"]);
    assert!(ok, "{stderr}");
    assert!(markdown.starts_with("# hive-mind: personal"), "{markdown}");
    assert!(markdown.contains("## 2025-03-01"), "{markdown}");
    assert!(
        markdown.contains("I live in Lisbon. *(normal, user-stated; replaced"),
        "{markdown}"
    );
}
