//! Fixture-driven snapshot tests for the injection scanner and pattern
//! write-back.
//!
//! Each file under `tests/fixtures/injection/` is a corpus of texts separated
//! by lines holding only `---`; each file under `tests/fixtures/write_back/`
//! is a list of exchanges in the same format, each with a `user:` and an
//! `assistant:` line (later lines continue the turn above them). Every file
//! gets one snapshot under `tests/snapshots/` (regenerate with
//! `INSTA_UPDATE=always cargo test -p hive-mind-core --test fixtures`, then
//! read the diff), and the plain tests below assert the behaviour the
//! snapshots must never lose: hostile texts are unsafe, ordinary texts are
//! safe, chatter yields nothing, and each category file yields its kind,
//! routed to the right mind.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions: a missing or unreadable fixture must fail loudly"
)]

use std::fs;
use std::path::{Path, PathBuf};

use hive_mind_core::{
    InjectionCategory, InjectionReport, ScanContext, TargetMind, WriteBackCandidate, WriteBackKind,
    pattern_write_back, scan_for_injection,
};
use serde::Serialize;

/// The texts of a corpus file: blocks separated by `---` lines, trimmed,
/// empty blocks dropped.
fn read_blocks(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut blocks = vec![String::new()];
    for line in text.lines() {
        if line.trim() == "---" {
            blocks.push(String::new());
        } else if let Some(block) = blocks.last_mut() {
            block.push_str(line);
            block.push('\n');
        }
    }
    blocks
        .into_iter()
        .map(|b| b.trim().to_string())
        .filter(|b| !b.is_empty())
        .collect()
}

fn fixture_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind)
}

/// The `.txt` files of a fixture folder whose names start with `prefix`,
/// sorted.
fn fixture_files(kind: &str, prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(fixture_dir(kind))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no {kind}/{prefix}*.txt fixtures");
    files
}

// ----- injection -----

#[derive(Serialize)]
struct Scanned {
    text: String,
    user_input: InjectionReport,
    tool_output: InjectionReport,
}

fn scan_file(path: &Path) -> Vec<Scanned> {
    read_blocks(path)
        .into_iter()
        .map(|text| Scanned {
            user_input: scan_for_injection(&text, ScanContext::UserInput),
            tool_output: scan_for_injection(&text, ScanContext::ToolOutput),
            text,
        })
        .collect()
}

#[test]
fn injection_fixture_snapshots() {
    insta::glob!("fixtures/injection/*.txt", |path| {
        insta::assert_json_snapshot!(scan_file(path));
    });
}

#[test]
fn hostile_texts_are_unsafe_in_tool_output() {
    let mut files = fixture_files("injection", "hostile_");
    files.extend(fixture_files("injection", "tool_output"));
    let mut count = 0;
    for path in files {
        for s in scan_file(&path) {
            assert!(
                !s.tool_output.safe,
                "{}: not flagged in tool output: {:?}\n{:?}",
                path.display(),
                s.text,
                s.tool_output
            );
            count += 1;
        }
    }
    assert!(count >= 50, "only {count} hostile texts");
}

#[test]
fn hostile_texts_that_override_or_extract_are_unsafe_in_user_input_too() {
    for path in fixture_files("injection", "hostile_") {
        for s in scan_file(&path) {
            let steering = s.user_input.flags.iter().any(|f| {
                matches!(
                    f,
                    InjectionCategory::RoleOverride | InjectionCategory::PromptExtraction
                )
            });
            assert_eq!(
                !s.user_input.safe,
                steering,
                "{}: {:?}",
                path.display(),
                s.text
            );
        }
    }
}

#[test]
fn ordinary_texts_are_safe_in_both_contexts() {
    let mut count = 0;
    for path in fixture_files("injection", "ordinary_") {
        for s in scan_file(&path) {
            for report in [&s.user_input, &s.tool_output] {
                assert!(
                    report.safe,
                    "{}: flagged {:?}\n{report:?}",
                    path.display(),
                    s.text
                );
                assert!(
                    report.matched.is_empty(),
                    "{}: {:?} matched {:?}",
                    path.display(),
                    s.text,
                    report.matched
                );
            }
            count += 1;
        }
    }
    assert!(count >= 50, "only {count} ordinary texts");
}

#[test]
fn contexts_agree_on_what_was_found() {
    for path in fixture_files("injection", "") {
        for s in scan_file(&path) {
            assert_eq!(s.user_input.flags, s.tool_output.flags, "{:?}", s.text);
            assert_eq!(s.user_input.matched, s.tool_output.matched, "{:?}", s.text);
            assert!(s.user_input.score <= s.tool_output.score, "{:?}", s.text);
            for r in [&s.user_input, &s.tool_output] {
                assert!((0.0..=1.0).contains(&r.score));
                assert_eq!(r.safe, r.score < 0.3);
                assert_eq!(r.flags.is_empty(), r.matched.is_empty());
            }
        }
    }
}

// ----- write-back -----

#[derive(Serialize)]
struct Exchange {
    user: String,
    assistant: String,
    candidates: Vec<WriteBackCandidate>,
}

/// Parse one exchange block: a `user:` line, an `assistant:` line, and any
/// other lines continuing the turn above them.
fn parse_exchange(block: &str) -> (String, String) {
    let mut user: Vec<&str> = Vec::new();
    let mut assistant: Vec<&str> = Vec::new();
    let mut in_user = true;
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix("user:") {
            in_user = true;
            user.push(rest.trim_start());
        } else if let Some(rest) = line.strip_prefix("assistant:") {
            in_user = false;
            assistant.push(rest.trim_start());
        } else if in_user {
            user.push(line);
        } else {
            assistant.push(line);
        }
    }
    (user.join("\n"), assistant.join("\n"))
}

fn write_back_file(path: &Path) -> Vec<Exchange> {
    read_blocks(path)
        .iter()
        .map(|block| {
            let (user, assistant) = parse_exchange(block);
            let candidates = pattern_write_back(&user, &assistant);
            Exchange {
                user,
                assistant,
                candidates,
            }
        })
        .collect()
}

#[test]
fn write_back_fixture_snapshots() {
    insta::glob!("fixtures/write_back/*.txt", |path| {
        insta::assert_json_snapshot!(write_back_file(path));
    });
}

#[test]
fn chatter_yields_nothing() {
    let path = fixture_dir("write_back").join("chatter.txt");
    let exchanges = write_back_file(&path);
    assert!(exchanges.len() >= 5);
    for e in exchanges {
        assert!(
            e.candidates.is_empty(),
            "{:?} → {:#?}",
            e.user,
            e.candidates
        );
    }
}

fn expected_target(kind: WriteBackKind) -> TargetMind {
    match kind {
        WriteBackKind::Preference | WriteBackKind::Correction | WriteBackKind::Style => {
            TargetMind::Personal
        }
        WriteBackKind::Decision | WriteBackKind::Finding | WriteBackKind::WorkOutput => {
            TargetMind::Workspace
        }
    }
}

#[test]
fn each_category_file_yields_its_kind_in_every_exchange() {
    let files = [
        ("preferences.txt", WriteBackKind::Preference),
        ("corrections.txt", WriteBackKind::Correction),
        ("decisions.txt", WriteBackKind::Decision),
        ("findings.txt", WriteBackKind::Finding),
        ("style.txt", WriteBackKind::Style),
        ("work_output.txt", WriteBackKind::WorkOutput),
    ];
    for (file, kind) in files {
        let exchanges = write_back_file(&fixture_dir("write_back").join(file));
        assert!(exchanges.len() >= 5, "{file}");
        for e in exchanges {
            let of_kind: Vec<_> = e.candidates.iter().filter(|c| c.kind == kind).collect();
            assert!(
                !of_kind.is_empty(),
                "{file}: no {kind:?} in {:?} / {:?}: {:#?}",
                e.user,
                e.assistant,
                e.candidates
            );
            for c in of_kind {
                assert_eq!(c.target, expected_target(kind), "{file}: {c:?}");
            }
        }
    }
}

#[test]
fn every_candidate_is_a_routed_sentence_of_its_speaker() {
    for path in fixture_files("write_back", "") {
        for e in write_back_file(&path) {
            for c in &e.candidates {
                assert_eq!(c.target, expected_target(c.kind), "{c:?}");
                assert_eq!(c.content, c.content.trim());
                assert!(!c.content.is_empty());
                let in_user = e.user.contains(&c.content);
                let in_assistant = e.assistant.contains(&c.content);
                match c.kind {
                    WriteBackKind::Preference
                    | WriteBackKind::Correction
                    | WriteBackKind::Style => assert!(in_user, "{c:?}"),
                    WriteBackKind::WorkOutput => assert!(in_assistant, "{c:?}"),
                    WriteBackKind::Decision | WriteBackKind::Finding => {
                        assert!(in_user || in_assistant, "{c:?}")
                    }
                }
                let prefix = serde_json::to_value(c.kind).unwrap();
                let prefix = prefix.as_str().unwrap();
                assert!(c.pattern.starts_with(&format!("{prefix}.")), "{c:?}");
            }
        }
    }
}
