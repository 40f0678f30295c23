//! `hive-mind-lab eval timelines` and `hive-mind-lab eval live-loop` end to
//! end, from the command line, on tiny data files written here (never the
//! data sets in `host/lab/data/`) with the mock embedder and no reranker:
//! every write path writes, every question is asked and judged, the JSON
//! report holds the figures, and a malformed line fails naming its place.
//! What the figures *are* is the engine's business; these tests pin what
//! any engine must do with a mind this small (a statement the query names
//! word for word is recalled, nothing fails) and the report's shape.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

fn lab(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_hive-mind-lab"))
        .args(args)
        .env("HIVE_MIND_HOME", home.path())
        .env("HIVE_MIND_EMBEDDER", "mock")
        .env("HIVE_MIND_RERANKER", "off")
        .output()
        .unwrap()
}

fn succeeded(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn write_lines(path: &Path, lines: &[Value]) {
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(path, text.join("\n")).unwrap();
}

fn step(at: &str, text: &str) -> Value {
    json!({"at": at, "text": text})
}

fn tiny_timelines() -> Vec<Value> {
    vec![
        json!({"id": "t1", "kind": "residence",
               "steps": [step("2025-02-03T10:00:00Z", "I live in Lisbon, near the river."),
                         step("2026-01-15T09:00:00Z", "I live in Porto now, we moved last weekend.")],
               "query": "Which city do I live in?", "current": ["Porto"], "stale": ["Lisbon"]}),
        json!({"id": "t2", "kind": "editor-theme",
               "steps": [step("2025-03-01T10:00:00Z", "My editor theme is Solarized."),
                         step("2025-09-01T10:00:00Z", "Switched my editor theme to Gruvbox."),
                         step("2026-02-01T10:00:00Z", "Editor theme: Nord from now on.")],
               "query": "What editor theme am I on?", "current": ["Nord"], "stale": ["Solarized", "Gruvbox"]}),
        json!({"id": "n1", "kind": "two-trips", "negative": true,
               "steps": [step("2026-05-02T08:00:00Z", "Flew to Rome for the design conference."),
                         step("2026-05-20T08:00:00Z", "Flew to Oslo for the design conference.")],
               "query": "Which design conference trips did I fly to?", "keep": [["Rome"], ["Oslo"]]}),
    ]
}

#[test]
fn timelines_are_written_through_every_path_and_judged() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("timelines-tiny.jsonl");
    write_lines(&data, &tiny_timelines());
    let output = lab(&["eval", "timelines", data.to_str().unwrap(), "--json"]);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let report = succeeded(&output);
    assert_eq!(
        (
            &report["timelines"],
            &report["kinds"],
            &report["pairs"],
            &report["pair_kinds"]
        ),
        (&json!(2), &json!(2), &json!(1), &json!(1))
    );
    let paths = report["paths"].as_array().unwrap();
    let names: Vec<&str> = paths.iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert_eq!(names, ["save", "cognify", "import"]);
    for path in paths {
        let name = path["path"].as_str().unwrap();
        assert_eq!(path["statements"], 7, "{name}");
        assert_eq!(path["write_failures"], 0, "{name}");
        assert_eq!(path["recall_failures"], 0, "{name}");
        assert_eq!(path["overall"]["timelines"], 2, "{name}");
        assert_eq!(path["overall"]["pairs"], 1, "{name}");
        assert_eq!(path["overall"]["latest_first"]["of"], 2, "{name}");
        assert_eq!(path["per_kind"].as_array().unwrap().len(), 3, "{name}");
        assert!(
            stderr.contains(&format!("timelines-tiny.jsonl via {name}: 7 statements")),
            "a progress line per path: {stderr}"
        );
    }
    // A save and an import store each statement as it was written, so a
    // query naming the statements' words recalls the current one and both
    // trips (cognify keeps only what its rules find, so it is not pinned).
    assert_eq!(paths[0]["frames_written"], 7, "one frame per save");
    assert!(
        paths[2]["frames_written"].as_u64().unwrap() >= 7,
        "at least one frame per imported turn"
    );
    for path in [&paths[0], &paths[2]] {
        let name = path["path"].as_str().unwrap();
        assert_eq!(
            path["overall"]["current_missing"]["count"], 0,
            "{name}: {path}"
        );
        assert_eq!(
            path["overall"]["pair_missing"]["count"], 0,
            "{name}: {path}"
        );
    }
    let items = report["items"].as_array().unwrap();
    assert_eq!(items.len(), 9, "three items on three paths");
    let pair = items
        .iter()
        .find(|item| item["id"] == "n1" && item["path"] == "save")
        .unwrap();
    assert!(pair["pair"]["missing"].is_number() && pair.get("change").is_none());
    assert!(
        !pair["top"].as_array().unwrap().is_empty(),
        "the first memories are shown"
    );

    // The table names the paths and the measures.
    let output = lab(&[
        "eval",
        "timelines",
        data.to_str().unwrap(),
        "--write-paths",
        "save",
    ]);
    assert!(output.status.success());
    let table = String::from_utf8_lossy(&output.stdout);
    for expected in [
        "latest-first",
        "stale-gone",
        "false-supersede",
        "residence",
        "save",
    ] {
        assert!(table.contains(expected), "{expected} in\n{table}");
    }
    assert!(
        !table.contains("cognify"),
        "only the path asked for:\n{table}"
    );
}

#[test]
fn a_malformed_line_fails_naming_the_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("bad.jsonl");
    let mut lines = tiny_timelines();
    lines[1]["current"] = json!(["Gruvbox"]);
    write_lines(&data, &lines);
    let output = lab(&["eval", "timelines", data.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.jsonl:2: `current`") && stderr.contains("not in statement 3"),
        "{stderr}"
    );

    let persona = dir.path().join("persona.json");
    let mut value = tiny_persona();
    value["events"][1]["save"]["importance"] = json!("urgent");
    std::fs::write(&persona, value.to_string()).unwrap();
    let output = lab(&["eval", "live-loop", persona.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("persona.json: events[1]: `save.importance`"),
        "{stderr}"
    );
}

fn tiny_persona() -> Value {
    json!({
        "persona": "Maya, a backend engineer in Utrecht",
        "now": "2026-06-01T12:00:00Z",
        "events": [
            {"at": "2025-01-10T09:00:00Z", "save": {"text": "Maya's team keeps invoices in PostgreSQL.", "importance": "normal"}},
            {"at": "2025-02-11T18:00:00Z", "save": {"text": "Decision: we use Tailwind for the new dashboard.", "importance": "important"}},
            {"at": "2025-03-02T20:00:00Z", "exchange": {"user": "Remember that my brother Karim lives in Rotterdam.", "assistant": "Got it — Karim lives in Rotterdam."},
             "facts": [["Karim", "Rotterdam"]]},
            {"at": "2025-03-05T20:00:00Z", "exchange": {"user": "thanks, that's all for today!", "assistant": "You're welcome!"}, "facts": []},
            {"at": "2025-04-01T10:00:00Z", "import": {"turns": [
                {"speaker": "user", "text": "We booked the Hotel Granvia in Kyoto for October."},
                {"speaker": "assistant", "text": "Lovely, the Granvia is right by the station."}]}}
        ],
        "questions": [
            {"q": "Which database do we keep invoices in?", "kind": "keyword", "answer": ["PostgreSQL"]},
            {"q": "Which hotel did we book in Kyoto?", "kind": "told", "answer": ["Granvia"]},
            {"q": "What is the name of my cat?", "kind": "unanswerable"}
        ]
    })
}

#[test]
fn the_live_loop_writes_a_persona_and_scores_its_questions() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("live-loop-tiny.json");
    std::fs::write(&data, tiny_persona().to_string()).unwrap();
    let output = lab(&["eval", "live-loop", data.to_str().unwrap(), "--json"]);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let report = succeeded(&output);
    let writes = &report["writes"];
    assert_eq!(
        (
            &writes["saves"],
            &writes["important_saves"],
            &writes["fact_exchanges"],
            &writes["chit_chat_exchanges"],
            &writes["imports"],
            &writes["failures"]
        ),
        (
            &json!(2),
            &json!(1),
            &json!(1),
            &json!(1),
            &json!(1),
            &json!(0)
        )
    );
    assert_eq!(report["facts_captured"]["of"], 1);
    assert_eq!(report["overall"]["n"], 2);
    // The keyword question names its memory's words: it is recalled.
    let keyword = &report["questions"][0];
    assert!(
        keyword["rank"].as_u64().is_some_and(|rank| rank <= 10),
        "{keyword}"
    );
    assert_eq!(report["unanswerable_empty"]["of"], 1);
    assert!(report["max_returned"].as_u64().unwrap() <= 20);
    assert_eq!(report["recall_failures"], 0);
    let kinds: Vec<&str> = report["per_kind"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["keyword", "told"]);
    assert!(
        stderr.contains("5 events written") && stderr.contains("3 questions asked"),
        "{stderr}"
    );

    let output = lab(&["eval", "live-loop", data.to_str().unwrap()]);
    assert!(output.status.success());
    let table = String::from_utf8_lossy(&output.stdout);
    for expected in [
        "answer@1",
        "MRR",
        "facts captured",
        "unanswerable",
        "all answerable",
    ] {
        assert!(table.contains(expected), "{expected} in\n{table}");
    }
}

/// The data in `host/lab/data/` reads without an error (every rule of its
/// README checked by the reader) and is as large as the README promises.
#[test]
fn the_data_sets_read_and_have_the_promised_sizes() {
    use hive_mind_lab::eval::live_loop::{Action, Persona, QuestionKind};
    use hive_mind_lab::eval::timelines::TimelineFile;
    use std::collections::BTreeSet;

    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let file = TimelineFile::load(&data.join("timelines-a.jsonl")).unwrap();
    let (pairs, timelines): (Vec<_>, Vec<_>) =
        file.items.iter().partition(|item| item.is_negative());
    let kinds: BTreeSet<&str> = timelines.iter().map(|item| item.kind.as_str()).collect();
    assert!(timelines.len() >= 60, "{} timelines", timelines.len());
    assert!(kinds.len() >= 20, "{} kinds", kinds.len());
    assert!(pairs.len() >= 60, "{} pairs", pairs.len());

    let persona = Persona::load(&data.join("live-loop-a.json")).unwrap();
    let count = |pick: &dyn Fn(&Action) -> bool| {
        persona
            .events
            .iter()
            .filter(|event| pick(&event.action))
            .count()
    };
    let saves = count(&|a| matches!(a, Action::Save { .. }));
    let stating = count(&|a| matches!(a, Action::Exchange { facts, .. } if !facts.is_empty()));
    let chit_chat = count(&|a| matches!(a, Action::Exchange { facts, .. } if facts.is_empty()));
    let imports = count(&|a| matches!(a, Action::Import { .. }));
    assert!((75..=90).contains(&saves), "{saves} saves");
    assert_eq!((stating, chit_chat, imports), (20, 5, 3));
    let questions = persona.questions.len();
    assert!((60..=70).contains(&questions), "{questions} questions");
    let of_kind = |kind| persona.questions.iter().filter(|q| q.kind == kind).count();
    assert!(of_kind(QuestionKind::Unanswerable) >= 8);
    assert!(of_kind(QuestionKind::Current) >= 8);
    for kind in QuestionKind::ALL {
        assert!(of_kind(kind) > 0, "no {} question", kind.name());
    }
}
