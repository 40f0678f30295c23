//! The adapters against fixtures: exact messages, roles, order, timestamps
//! and notes per format; detection of every fixture by content under a
//! misleading name; hints; malformed inputs and their error variants; zip
//! archives and zip bombs built here; PDFs built here with lopdf's writer;
//! a snapshot of every fixture's parse (`insta`, reviewed by eye); and
//! properties: no input, random or mutated, makes `parse_input` panic.
//!
//! Fixtures live in `tests/fixtures/<format>/`; all are made up for these
//! tests. `pdf/two-pages.pdf` is written by the ignored test
//! `write_pdf_fixture` (`cargo test -p hive-mind-harvest --test adapters --
//! --ignored write_pdf_fixture`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use hive_mind_harvest::adapters::{MAX_ARCHIVE_ENTRIES, MAX_INPUT_BYTES};
use hive_mind_harvest::{
    Item, ItemKind, ParseError, Parsed, Role, SourceFormat, detect_format, last_exchange,
    parse_input,
};
use proptest::prelude::*;

// ---------------------------------------------------------------- helpers

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(fixtures_dir().join(path)).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

/// Parse a fixture under a name that says nothing true about it.
fn parse(path: &str) -> Parsed {
    parse_input("upload.bin", &fixture(path), None)
        .unwrap_or_else(|e| panic!("fixture {path} failed: {e}"))
}

fn turns(item: &Item) -> Vec<(Role, &str)> {
    item.messages
        .iter()
        .map(|m| (m.role, m.text.as_str()))
        .collect()
}

fn times(item: &Item) -> Vec<Option<&str>> {
    item.messages
        .iter()
        .map(|m| m.timestamp.as_deref())
        .collect()
}

fn notes(item: &Item) -> Vec<&str> {
    item.notes.iter().map(String::as_str).collect()
}

fn headings(item: &Item) -> Vec<Vec<&str>> {
    item.sections
        .iter()
        .map(|s| s.headings.iter().map(String::as_str).collect())
        .collect()
}

fn zip_of(entries: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn deflated(entries: &[(&str, &[u8])]) -> Vec<u8> {
    zip_of(entries, zip::CompressionMethod::Deflated)
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("needle")
}

/// A PDF of one page per entry, lines shown with Helvetica in
/// WinAnsiEncoding (so `é` is one byte), with an info dictionary; `None`
/// pages have only a drawn rectangle (no text layer).
fn make_pdf(pages: &[Option<&str>], title: &str) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};

    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut kids: Vec<Object> = Vec::new();
    for page in pages {
        let mut operations = Vec::new();
        match page {
            Some(text) => {
                operations.push(Operation::new("BT", vec![]));
                operations.push(Operation::new("Tf", vec!["F1".into(), 12.into()]));
                operations.push(Operation::new("TL", vec![14.into()]));
                operations.push(Operation::new("Td", vec![72.into(), 720.into()]));
                for (index, line) in text.lines().enumerate() {
                    if index > 0 {
                        operations.push(Operation::new("T*", vec![]));
                    }
                    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(line);
                    operations.push(Operation::new(
                        "Tj",
                        vec![Object::string_literal(bytes.to_vec())],
                    ));
                }
                operations.push(Operation::new("ET", vec![]));
            }
            None => {
                operations.push(Operation::new(
                    "re",
                    vec![72.into(), 72.into(), 200.into(), 100.into()],
                ));
                operations.push(Operation::new("f", vec![]));
            }
        }
        let content = Content { operations }.encode().unwrap();
        let content_id = doc.add_object(Stream::new(dictionary! {}, content));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        });
        kids.push(page_id.into());
    }
    let count = i64::try_from(kids.len()).unwrap();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    let info_id = doc.add_object(dictionary! {
        "Title" => Object::string_literal(title),
        "CreationDate" => Object::string_literal("D:20240501113000+02'00'"),
    });
    doc.trailer.set("Root", catalog_id);
    doc.trailer.set("Info", info_id);
    doc.compress();
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

const PDF_PAGES: [Option<&str>; 3] = [
    Some("Field notes on bees\nThe hive at the orchard swarmed on 12 May."),
    None,
    Some("Café crème for the beekeeper.\nNext inspection: June."),
];

/// Writes `tests/fixtures/pdf/two-pages.pdf` (run by hand when the helper
/// changes; the file is committed).
#[test]
#[ignore = "writes the committed PDF fixture"]
fn write_pdf_fixture() {
    let pdf = make_pdf(&PDF_PAGES, "Field notes");
    std::fs::write(fixtures_dir().join("pdf/two-pages.pdf"), pdf).unwrap();
}

// ---------------------------------------------------------------- ChatGPT

#[test]
fn chatgpt_follows_the_current_branch() {
    let parsed = parse("chatgpt/conversations.json");
    assert_eq!(parsed.format, SourceFormat::Chatgpt);
    assert_eq!(parsed.items.len(), 2);
    let item = &parsed.items[0];
    assert_eq!(item.id, "6630f1a8-0000-4d2c-9a1e-5f1b2c3d4e5f");
    assert_eq!(item.kind, ItemKind::Conversation);
    assert_eq!(item.title.as_deref(), Some("Sourdough proofing times"));
    assert_eq!(item.created_at.as_deref(), Some("2024-05-01T09:30:00Z"));
    assert_eq!(
        turns(item),
        vec![
            (
                Role::System,
                "Custom instructions, about the user:\nI bake bread at home in Lyon and keep a starter called Gérard.\n\nCustom instructions, how to respond:\nAnswer in metric units, briefly."
            ),
            (
                Role::User,
                "How long should I proof a sourdough loaf at room temperature?"
            ),
            (
                Role::Assistant,
                "At 22–24 °C, bulk ferment 4–6 hours, then proof 1–2 hours. Watch the dough, not the clock."
            ),
            (
                Role::User,
                "Here is my crumb 🍞 — and in a cold fridge at 4 °C instead?"
            ),
            (
                Role::Assistant,
                "In the fridge at 4 °C, proof 12–16 hours. The open crumb in your photo looks well fermented. 良い焼き上がり!"
            ),
        ]
    );
    // Epoch floats, fractions cut.
    assert_eq!(
        times(item),
        vec![
            None,
            Some("2024-05-01T09:30:00Z"),
            Some("2024-05-01T09:30:09Z"),
            Some("2024-05-01T09:32:00Z"),
            Some("2024-05-01T09:32:10Z"),
        ]
    );
    assert_eq!(
        notes(item),
        vec![
            "3 message(s) on branches not followed (regenerated or edited turns)",
            "1 hidden message(s) left out",
            "1 image(s) left out",
            "1 tool call(s) left out",
            "1 tool message(s) left out (tool output, browsing results)",
            "2 reasoning block(s) left out (not dialogue)",
            "1 empty message(s) left out",
        ]
    );
}

#[test]
fn chatgpt_without_current_node_follows_the_latest_leaf() {
    let parsed = parse("chatgpt/conversations.json");
    let item = &parsed.items[1];
    assert_eq!(item.id, "b7c1e2d3-1111-4a5b-8c9d-0e1f2a3b4c5d");
    assert_eq!(item.title.as_deref(), Some("Kyoto travel seasons"));
    assert_eq!(item.created_at.as_deref(), Some("2024-06-01T12:00:00Z"));
    assert_eq!(
        turns(item),
        vec![
            (
                Role::User,
                "Quelle est la meilleure saison pour visiter Kyoto ?"
            ),
            (
                Role::Assistant,
                "L'automne (novembre) : les érables rougissent et il y a moins de monde."
            ),
        ]
    );
    assert_eq!(
        notes(item),
        vec![
            "no usable current_node: followed the latest leaf",
            "1 message(s) on branches not followed (regenerated or edited turns)",
            "1 tool message(s) left out (tool output, browsing results)",
            "1 tool call(s) left out",
        ]
    );
    assert_eq!(
        parsed.notes,
        vec![
            "conversation c3c3c3c3-2222-4b4b-9c9c-0d0d0d0d0d0d (\"New chat\") has no dialogue; left out",
            "conversation #3 skipped: invalid type: string \"not-a-mapping\", expected a map",
        ]
    );
}

#[test]
fn chatgpt_keeps_a_very_long_message_whole() {
    let long = "Lorem ipsum dolor sit amet, ünïcödé ✓. ".repeat(150_000);
    let export = serde_json::json!([{
        "title": "Long", "create_time": 1_714_555_800, "current_node": "b",
        "mapping": {
            "a": {"id": "a", "parent": null, "children": ["b"], "message": null},
            "b": {"id": "b", "parent": "a", "children": [], "message": {
                "author": {"role": "user"}, "create_time": 1_714_555_800,
                "content": {"content_type": "text", "parts": [long]}}}
        }
    }]);
    let bytes = serde_json::to_vec(&export).unwrap();
    assert!(bytes.len() > 5_000_000);
    let parsed = parse_input("x", &bytes, None).unwrap();
    assert_eq!(parsed.items[0].messages[0].text, long.trim());
    // No export id: a content hash, the same on every parse.
    let again = parse_input("y", &bytes, None).unwrap();
    assert!(parsed.items[0].id.starts_with("chatgpt-"));
    assert_eq!(parsed.items[0].id, again.items[0].id);
}

// ---------------------------------------------------------------- Claude

#[test]
fn claude_reads_blocks_attachments_and_falls_back_to_text() {
    let parsed = parse("claude/conversations.json");
    assert_eq!(parsed.format, SourceFormat::Claude);
    assert_eq!(parsed.items.len(), 2);
    let item = &parsed.items[0];
    assert_eq!(item.id, "3f9a7c2e-5b1d-4e8f-a6c3-9d2e1f0b7a54");
    assert_eq!(item.title.as_deref(), Some("Translating a haiku"));
    assert_eq!(item.created_at.as_deref(), Some("2024-03-10T08:15:30Z"));
    assert_eq!(
        turns(item),
        vec![
            (
                Role::User,
                "Can you translate this haiku?\n\n[Attached file: haiku.txt]\n古池や\n蛙飛び込む\n水の音"
            ),
            (
                Role::Assistant,
                "An old pond —\na frog jumps in,\nthe sound of water.\n\nThis is Matsuo Bashō's haiku from 1686. 🐸"
            ),
            (Role::User, "Merci beaucoup ! Et en français ?"),
            (
                Role::Assistant,
                "Un vieil étang —\nune grenouille plonge,\nle bruit de l'eau."
            ),
        ]
    );
    // An offset is normalised to UTC; an unreadable time is left empty.
    assert_eq!(
        times(item),
        vec![
            Some("2024-03-10T08:15:30Z"),
            Some("2024-03-10T08:15:35Z"),
            None,
            Some("2024-03-10T08:17:10Z"),
        ]
    );
    assert_eq!(
        notes(item),
        vec![
            "1 attachment(s) with text included in their message",
            "1 thinking block(s) left out (not dialogue)",
            "1 tool call(s) left out",
            "1 tool result(s) left out",
            "1 empty message(s) left out",
            "1 unreadable timestamp(s) left empty",
            "file not in the export left out: pond.jpg",
            "attachment without text left out: scan.pdf",
        ]
    );
    let second = &parsed.items[1];
    assert_eq!(second.title, None);
    assert_eq!(
        turns(second),
        vec![
            (Role::User, "What is a good name for a grey cat?"),
            (Role::Assistant, "Earl Grey, Smokey, or Ash."),
        ]
    );
    assert_eq!(
        parsed.notes,
        vec!["conversation empty-0000-0000 (\"Untitled\") has no dialogue; left out"]
    );
}

// ---------------------------------------------------------------- Gemini

#[test]
fn gemini_groups_records_into_conversations() {
    let parsed = parse("gemini/MyActivity.json");
    assert_eq!(parsed.format, SourceFormat::Gemini);
    let ids: Vec<&str> = parsed.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids.len(), 3);
    // Oldest first: the Bard record alone, the three "sonder" records
    // (each within 30 minutes of the last), then the conversation Google
    // named by URL.
    let bard = &parsed.items[0];
    assert!(bard.id.starts_with("gemini-"));
    assert_eq!(
        turns(bard),
        vec![
            (Role::User, "写一首关于春天的短诗"),
            (Role::Assistant, "春风吹绿柳，\n细雨润新花。")
        ]
    );
    let sonder = &parsed.items[1];
    assert_eq!(sonder.title.as_deref(), Some("Is “sonder” a real word?"));
    assert_eq!(sonder.created_at.as_deref(), Some("2024-04-20T09:50:00Z"));
    assert_eq!(
        turns(sonder),
        vec![
            (Role::User, "Is “sonder” a real word?"),
            (
                Role::Assistant,
                "It was coined in 2012 by John Koenig’s Dictionary of Obscure Sorrows."
            ),
            (Role::User, "Use it in a sentence"),
            (
                Role::Assistant,
                "Watching the crowded platform, she felt a wave of sonder."
            ),
            (Role::User, "What does “sonder” mean?"),
            (
                Role::Assistant,
                "It is the realisation that every passer-by lives a life as vivid as your own."
            ),
        ]
    );
    assert_eq!(times(sonder)[2], Some("2024-04-20T10:05:30Z"));
    let named = &parsed.items[2];
    assert_eq!(named.id, "gemini-app-7d2f9a0c1b3e");
    assert_eq!(
        turns(named),
        vec![
            (Role::User, "Give me a recipe for bolognese"),
            (
                Role::Assistant,
                "Bolognese\n\nBrown the soffritto, add beef, wine, tomatoes; simmer 2 h."
            ),
            (Role::User, "And a vegetarian version?"),
            (
                Role::Assistant,
                "Swap the beef for mushrooms and lentils:\n\n- 300 g mushrooms\n- 150 g lentils"
            ),
        ]
    );
    assert_eq!(notes(named), vec!["1 attached file(s) not in the export"]);
    assert_eq!(
        parsed.notes,
        vec![
            "1 activity record(s) of other Google products left out",
            "2 activity record(s) without a prompt left out (used, created, feedback)",
        ]
    );
}

#[test]
fn gemini_group_ids_survive_a_newer_export() {
    let bytes = fixture("gemini/MyActivity.json");
    let before = parse_input("a", &bytes, None).unwrap();
    let mut records: Vec<serde_json::Value> = serde_json::from_slice(&bytes).unwrap();
    records.insert(
        0,
        serde_json::json!({"header": "Gemini Apps", "title": "Prompted One more about sonder",
            "time": "2024-04-20T10:45:00.000Z", "safeHtmlItem": [{"html": "<p>Sure.</p>"}]}),
    );
    let after = parse_input("b", &serde_json::to_vec(&records).unwrap(), None).unwrap();
    assert_eq!(before.items[1].id, after.items[1].id);
    assert_eq!(after.items[1].messages.len(), 8);
}

#[test]
fn gemini_reads_the_takeout_html_page() {
    let parsed = parse("gemini/MyActivity.html");
    assert_eq!(parsed.format, SourceFormat::Gemini);
    assert_eq!(parsed.items.len(), 1);
    let item = &parsed.items[0];
    assert_eq!(
        turns(item),
        vec![
            (Role::User, "How often should I water basil?"),
            (
                Role::Assistant,
                "Every 2–3 days; the soil should stay moist but not soggy."
            ),
            (Role::User, "And how do I keep it alive in winter?"),
            (
                Role::Assistant,
                "Keep the basil indoors near a sunny window.\n\nWater sparingly."
            ),
        ]
    );
    assert_eq!(
        times(item),
        vec![
            Some("2024-05-01T09:30:00Z"),
            Some("2024-05-01T09:30:00Z"),
            Some("2024-05-01T09:40:00Z"),
            Some("2024-05-01T09:40:00Z"),
        ]
    );
    assert_eq!(
        parsed.notes,
        vec![
            "read from the Takeout HTML page; the JSON export keeps more (conversation ids, attachments)",
            "1 activity record(s) without a prompt left out (used, created, feedback)",
        ]
    );
}

// ---------------------------------------------------------------- Perplexity

#[test]
fn perplexity_markdown_export() {
    let parsed = parse("perplexity/thread.md");
    assert_eq!(parsed.format, SourceFormat::Perplexity);
    let item = &parsed.items[0];
    assert_eq!(
        item.title.as_deref(),
        Some("Which Rust crate should I use to read zip files in WebAssembly?")
    );
    assert_eq!(
        turns(item),
        vec![
            (
                Role::User,
                "Which Rust crate should I use to read zip files in WebAssembly?"
            ),
            (
                Role::Assistant,
                "Use **zip** with its default features turned off and only `deflate` enabled: it is pure Rust and builds for `wasm32-wasip2`.\n\n***\n\n# Things to watch\n\n- Cap the entry count and the inflated size (zip bombs).\n- Read entries one at a time.\n\n```rust\n# this is a comment inside code, not a query\nlet archive = zip::ZipArchive::new(cursor)?;\n```"
            ),
            (Role::User, "And for PDFs? Ça marche aussi ?"),
            (
                Role::Assistant,
                "Oui : **lopdf** lit la couche texte, page par page."
            ),
        ]
    );
    assert_eq!(notes(item), vec!["6 source link(s) left out"]);
}

#[test]
fn perplexity_thread_api_json() {
    let parsed = parse("perplexity/thread-api.json");
    assert_eq!(parsed.items.len(), 1);
    let item = &parsed.items[0];
    assert_eq!(item.id, "perplexity-why-is-the-sky-blue-Qm9n1x2yTbOa3sK");
    assert_eq!(item.title.as_deref(), Some("Why is the sky blue?"));
    assert_eq!(
        turns(item),
        vec![
            (Role::User, "Why is the sky blue?"),
            (
                Role::Assistant,
                "Sunlight is scattered by air molecules; blue light scatters most [1].\n\n## In short\nShort wavelengths scatter more."
            ),
            (Role::User, "Is that the same reason sunsets are red?"),
            (
                Role::Assistant,
                "Yes — Rayleigh scattering makes short (blue) wavelengths scatter more."
            ),
        ]
    );
    assert_eq!(times(item)[0], Some("2025-01-15T14:03:22Z"));
    assert_eq!(
        notes(item),
        vec!["1 answer block(s) 'sources_answer_mode' left out (sources, media)"]
    );
    assert_eq!(parsed.notes, vec!["entry #2 skipped: no `query_str`"]);
}

#[test]
fn perplexity_thread_list_json() {
    let parsed = parse("perplexity/threads.json");
    let item = &parsed.items[0];
    assert_eq!(item.id, "t-42");
    assert_eq!(item.source, SourceFormat::Perplexity);
    assert_eq!(item.created_at.as_deref(), Some("2025-02-01T08:00:00Z"));
    assert_eq!(
        turns(item),
        vec![
            (Role::User, "Best day hikes near Grenoble?"),
            (Role::Assistant, "Try the Moucherotte or the Lac du Crozet."),
        ]
    );
}

// ---------------------------------------------------------------- Claude Code

#[test]
fn claude_code_sessions_skip_tools_meta_and_bad_lines() {
    let parsed = parse("claude-code/session.jsonl");
    assert_eq!(parsed.format, SourceFormat::ClaudeCode);
    assert_eq!(parsed.items.len(), 2);
    let first = &parsed.items[0];
    assert_eq!(first.id, "sess-a1");
    assert_eq!(first.title.as_deref(), Some("Fix flaky date test"));
    assert_eq!(first.created_at.as_deref(), Some("2025-06-01T10:00:00Z"));
    assert_eq!(
        turns(first),
        vec![
            (
                Role::User,
                "The test `parses_dates` fails on CI but not locally. Why?"
            ),
            (Role::Assistant, "Probably the time zone: CI runs in UTC."),
            (
                Role::Assistant,
                "Yes: `Local::now()` is used. Switch the test to a fixed `Utc` instant. ✅"
            ),
        ]
    );
    assert_eq!(
        times(first),
        vec![
            Some("2025-06-01T10:00:01Z"),
            Some("2025-06-01T10:00:06Z"),
            Some("2025-06-01T10:00:09Z")
        ]
    );
    assert_eq!(
        notes(first),
        vec![
            "1 meta line(s) left out (caveats, command expansions)",
            "1 thinking block(s) left out (not dialogue)",
            "1 tool call(s) left out",
            "1 tool result(s) left out",
            "1 sidechain (sub-agent) line(s) left out",
            "1 'system' event(s) left out (not dialogue)",
            "1 local command line(s) left out",
        ]
    );
    let second = &parsed.items[1];
    assert_eq!(second.id, "sess-b2");
    assert_eq!(
        second.title.as_deref(),
        Some("Write a commit message for the date fix.")
    );
    assert_eq!(parsed.notes.len(), 3);
    assert!(
        parsed.notes[0].starts_with("line 8 skipped: truncated JSON (EOF while parsing"),
        "{:?}",
        parsed.notes
    );
    assert_eq!(parsed.notes[1], "session sess-c3 has no dialogue; left out");
    assert_eq!(
        parsed.notes[2],
        "1 'file-history-snapshot' event(s) without a session left out"
    );
}

#[test]
fn the_last_exchange_skips_tool_results_meta_lines_and_broken_lines() {
    // The fixture ends with session sess-b2's exchange, then a snapshot and
    // a meta-only line, which are not dialogue.
    let exchange = last_exchange(
        SourceFormat::ClaudeCode,
        &fixture("claude-code/session.jsonl"),
    )
    .unwrap()
    .unwrap();
    assert_eq!(exchange.user, "Write a commit message for the date fix.");
    assert!(
        exchange
            .assistant
            .starts_with("Tests: pin the clock to UTC"),
        "{}",
        exchange.assistant
    );
    assert!(!exchange.user.contains("Caveat"), "{}", exchange.user);
    assert!(!exchange.assistant.contains("tool_use"));

    // Only the first session: the user's question, the reply split over
    // lines of one message id (thinking and a tool call left out), the tool
    // result (not the user's), a broken line, a repeated line, a
    // sub-agent's line and a local command's echo.
    let first_session: Vec<u8> = fixture("claude-code/session.jsonl")
        .split(|b| *b == b'\n')
        .filter(|line| std::str::from_utf8(line).unwrap().contains("sess-a1"))
        .flat_map(|line| line.iter().copied().chain([b'\n']))
        .collect();
    let exchange = last_exchange(SourceFormat::ClaudeCode, &first_session)
        .unwrap()
        .unwrap();
    assert_eq!(
        exchange.user,
        "The test `parses_dates` fails on CI but not locally. Why?"
    );
    assert_eq!(
        exchange.assistant,
        "Probably the time zone: CI runs in UTC.\n\n\
         Yes: `Local::now()` is used. Switch the test to a fixed `Utc` instant. ✅"
    );
}

#[test]
fn the_last_exchange_needs_an_answer_and_reads_a_cut_tail() {
    let user = |text: &str| {
        format!(
            r#"{{"type":"user","sessionId":"s","message":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    let assistant = |text: &str| {
        format!(
            r#"{{"type":"assistant","sessionId":"s","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}}}}"#
        )
    };
    let read = |lines: &[String]| {
        last_exchange(SourceFormat::ClaudeCode, lines.join("\n").as_bytes()).unwrap()
    };
    // A question not answered yet: no exchange (not the one before it).
    let waiting = [user("first"), assistant("one"), user("second")];
    assert_eq!(read(&waiting), None);
    // A tail cut in the middle of a line: the broken start is skipped.
    let answered = [
        user("first"),
        assistant("one"),
        user("second"),
        assistant("two"),
    ];
    let whole = answered.join("\n");
    let cut = whole.get(20..).unwrap().to_string();
    let exchange = read(&[cut]).unwrap();
    assert_eq!(
        (exchange.user.as_str(), exchange.assistant.as_str()),
        ("second", "two")
    );
    // Nothing readable, or no dialogue: none, not an error.
    assert_eq!(read(&["{oops".to_string()]), None);
    assert_eq!(read(&[]), None);
    // Only transcripts have a last exchange.
    assert!(last_exchange(SourceFormat::Chatgpt, b"[]").is_err());
}

#[test]
fn claude_code_fails_only_when_no_line_is_readable() {
    let error = parse_input(
        "s.jsonl",
        b"{\"type\":\"user\",\"sessionId\":\n{oops\n",
        Some(SourceFormat::ClaudeCode),
    )
    .unwrap_err();
    match error {
        ParseError::Malformed {
            format: SourceFormat::ClaudeCode,
            message,
        } => {
            assert!(
                message.starts_with("no readable line (line 1:"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------- universal

#[test]
fn universal_message_list_normalises_roles_and_times() {
    let parsed = parse("universal/messages.json");
    assert_eq!(parsed.format, SourceFormat::Universal);
    let item = &parsed.items[0];
    assert_eq!(
        item.title.as_deref(),
        Some("Which wine goes with raclette?")
    );
    assert_eq!(
        turns(item),
        vec![
            (Role::System, "You are a helpful sommelier."),
            (Role::User, "Which wine goes with raclette?"),
            (
                Role::Assistant,
                "A dry white from Savoie, such as Apremont."
            ),
            (Role::Assistant, "Serve it at 8–10 °C. Santé ! 🥂"),
        ]
    );
    // Seconds, milliseconds, an ISO offset, an unreadable string.
    assert_eq!(
        times(item),
        vec![
            Some("2024-05-29T16:26:40Z"),
            Some("2024-05-29T16:26:41Z"),
            Some("2024-05-29T16:26:45Z"),
            None
        ]
    );
    assert_eq!(item.created_at.as_deref(), Some("2024-05-29T16:26:40Z"));
    assert_eq!(
        notes(item),
        vec![
            "1 image(s) left out",
            "1 tool message(s) left out",
            "1 empty message(s) left out",
            "1 message(s) with role 'narrator' left out",
            "1 unreadable timestamp(s) left empty",
        ]
    );
}

#[test]
fn universal_conversation_lists_and_jsonl() {
    let parsed = parse("universal/conversations.json");
    let ids: Vec<&str> = parsed.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids[0], "conv-001");
    assert!(ids[1].starts_with("universal-"));
    assert_eq!(ids[2], "conv-003");
    assert_eq!(
        turns(&parsed.items[0]),
        vec![
            (Role::User, "How do I declare a map in Go?"),
            (Role::Assistant, "m := map[string]int{}")
        ]
    );
    assert_eq!(
        turns(&parsed.items[1]),
        vec![(Role::Assistant, "Hello! How can I help?")]
    );
    assert_eq!(
        turns(&parsed.items[2]),
        vec![
            (
                Role::User,
                "Remind me: the Wi-Fi password is on the fridge."
            ),
            (Role::Assistant, "Noted — it is on the fridge."),
        ]
    );
    assert_eq!(times(&parsed.items[2])[0], Some("2024-07-02T00:00:00Z"));

    let lines = parse("universal/messages.jsonl");
    assert_eq!(
        turns(&lines.items[0]),
        vec![
            (Role::User, "Quick question: is 2024 a leap year?"),
            (
                Role::Assistant,
                "Yes — 2024 is divisible by 4 and not by 100."
            ),
        ]
    );
    assert_eq!(lines.notes.len(), 2);
    assert!(
        lines.notes[0].starts_with("line 2: not valid JSON"),
        "{:?}",
        lines.notes
    );
    assert_eq!(lines.notes[1], "line 5: not a JSON object; skipped");

    let wrapped = parse("universal/wrapped.json");
    assert_eq!(wrapped.items[0].title.as_deref(), Some("Shopping list"));
    assert_eq!(wrapped.items[0].messages.len(), 2);
}

// ---------------------------------------------------------------- documents

#[test]
fn markdown_front_matter_and_heading_paths() {
    let parsed = parse("markdown/garden-notes.md");
    assert_eq!(parsed.format, SourceFormat::Markdown);
    let item = &parsed.items[0];
    assert_eq!(item.kind, ItemKind::Document);
    assert_eq!(item.title.as_deref(), Some("Garden notes: spring 2024"));
    assert_eq!(item.created_at.as_deref(), Some("2024-03-21T00:00:00Z"));
    assert_eq!(
        headings(item),
        vec![
            vec![],
            vec!["Tomatoes"],
            vec!["Tomatoes", "Varieties"],
            vec!["Tomatoes", "Problems"],
            vec!["Compost"],
            vec!["Compost", "Ratios"],
        ]
    );
    assert_eq!(
        item.sections[0].text,
        "These are my notes for the allotment. Plot nº 14."
    );
    assert_eq!(
        item.sections[2].text,
        "- Cœur de bœuf — big, meaty\n- Sungold — sweet cherry 🍅\n\n```bash\n# not a heading: a comment in a fence\necho \"water at dawn\"\n```"
    );
    assert_eq!(
        item.sections[4].text,
        "Turn the heap every **two weeks**. 堆肥 needs air."
    );
    assert_eq!(
        notes(item),
        vec![
            "front matter tags: gardening, tomatoes, compost",
            "front matter fields not imported: author, draft"
        ]
    );

    let readme = parse("markdown/readme.md");
    let item = &readme.items[0];
    assert_eq!(item.title.as_deref(), Some("hive-mind fixture README"));
    assert_eq!(
        headings(item),
        vec![
            vec!["hive-mind fixture README"],
            vec!["hive-mind fixture README", "Install"]
        ]
    );
    assert!(
        item.sections[1]
            .text
            .ends_with("#hashtag is not a heading either")
    );
}

#[test]
fn plain_text_paragraphs() {
    let parsed = parse("text/letter.txt");
    assert_eq!(parsed.format, SourceFormat::PlainText);
    let item = &parsed.items[0];
    assert_eq!(item.title.as_deref(), Some("A letter to my future self"));
    assert_eq!(item.sections.len(), 1);
    assert!(
        item.sections[0]
            .text
            .starts_with("A letter to my future self\n\nDear me,\n\nI am writing")
    );
    assert!(item.sections[0].text.ends_with("Love,\n— Past you ☕"));
}

#[test]
fn html_drops_chrome_and_keeps_heading_sections() {
    let parsed = parse("html/article.html");
    assert_eq!(parsed.format, SourceFormat::Html);
    let item = &parsed.items[0];
    assert_eq!(
        item.title.as_deref(),
        Some("How to Repot a Monstera – Green Thumb Blog")
    );
    assert_eq!(
        headings(item),
        vec![
            vec![],
            vec!["How to Repot a Monstera"],
            vec!["How to Repot a Monstera", "What you need"],
            vec!["How to Repot a Monstera", "Steps"],
            vec!["How to Repot a Monstera", "Steps", "Mix ratios"],
        ]
    );
    let texts: Vec<&str> = item.sections.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "By Ana · 3 min read",
            "Monsteras grow fast. Repot every two years, in spring.",
            "- A pot 5 cm wider\n- Chunky mix: bark, perlite & soil",
            "1. Water the day before.\n2. Loosen the roots gently.",
            "Part | Share\nBark | 40 %\nPerlite | 30 %\n\nDone! 🌿\nEnjoy the new leaves.",
        ]
    );
    assert_eq!(
        notes(item),
        vec![
            "1 image(s) left out",
            "page navigation, headers, footers and forms left out"
        ]
    );
}

#[test]
fn pdf_pages_become_sections() {
    let pdf = make_pdf(&PDF_PAGES, "Field notes");
    let parsed = parse_input("scan.txt", &pdf, None).unwrap();
    assert_eq!(parsed.format, SourceFormat::Pdf);
    let item = &parsed.items[0];
    assert_eq!(item.title.as_deref(), Some("Field notes"));
    assert_eq!(item.created_at.as_deref(), Some("2024-05-01T09:30:00Z"));
    assert_eq!(headings(item), vec![vec!["Page 1"], vec!["Page 3"]]);
    assert_eq!(
        item.sections[0].text,
        "Field notes on bees\nThe hive at the orchard swarmed on 12 May."
    );
    assert_eq!(
        item.sections[1].text,
        "Café crème for the beekeeper.\nNext inspection: June."
    );
    assert_eq!(notes(item), vec!["1 page(s) without text left out"]);
    // The committed fixture reads the same.
    let committed = parse("pdf/two-pages.pdf");
    assert_eq!(committed.items[0].sections, item.sections);
}

#[test]
fn pdf_without_a_text_layer_is_a_clear_error() {
    let pdf = make_pdf(&[None, None], "Scan");
    match parse_input("scan.pdf", &pdf, None).unwrap_err() {
        ParseError::Malformed {
            format: SourceFormat::Pdf,
            message,
        } => {
            assert!(
                message.starts_with("no text layer: none of its 2 page(s)"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let error =
        parse_input("x.pdf", b"%PDF-1.7\n garbage that is not a PDF body", None).unwrap_err();
    assert!(
        matches!(
            error,
            ParseError::Malformed {
                format: SourceFormat::Pdf,
                ..
            }
        ),
        "{error:?}"
    );
}

// ---------------------------------------------------------------- zip

#[test]
fn chatgpt_zip_reads_conversations_json_and_notes_the_rest() {
    let zip = deflated(&[
        ("conversations.json", &fixture("chatgpt/conversations.json")),
        ("chat.html", b"<html>the same conversations</html>"),
        ("user.json", b"{}"),
        ("file-AbC123.png", &[0x89, b'P', b'N', b'G']),
    ]);
    assert_eq!(detect_format(&zip), Some(SourceFormat::Chatgpt));
    let parsed = parse_input("export.zip", &zip, None).unwrap();
    assert_eq!(parsed.format, SourceFormat::Chatgpt);
    assert_eq!(parsed.items, parse("chatgpt/conversations.json").items);
    assert_eq!(
        parsed.notes.last().map(String::as_str),
        Some("3 other entries not read: chat.html, user.json, file-AbC123.png")
    );
    assert!(
        parsed.notes[0].starts_with("conversations.json: conversation c3c3"),
        "{:?}",
        parsed.notes
    );
}

#[test]
fn claude_zip_in_a_folder() {
    let zip = deflated(&[
        ("data-2024-06-01/users.json", b"[]"),
        (
            "data-2024-06-01/conversations.json",
            &fixture("claude/conversations.json"),
        ),
        ("data-2024-06-01/projects.json", b"[]"),
    ]);
    assert_eq!(detect_format(&zip), Some(SourceFormat::Claude));
    let parsed = parse_input("claude.zip", &zip, None).unwrap();
    assert_eq!(parsed.format, SourceFormat::Claude);
    assert_eq!(parsed.items.len(), 2);
}

#[test]
fn document_zip_reads_each_document() {
    let inner = deflated(&[("a.md", b"# A")]);
    let pdf = make_pdf(&PDF_PAGES, "Field notes");
    let zip = deflated(&[
        ("notes/garden.md", &fixture("markdown/garden-notes.md")),
        ("notes/readme.md", &fixture("markdown/readme.md")),
        ("notes/letter.txt", &fixture("text/letter.txt")),
        ("notes/bees.pdf", &pdf),
        ("notes/photo.jpg", &[0xff, 0xd8, 0xff]),
        ("notes/old.zip", &inner),
        ("notes/broken.json", b"{\"a\": 1}"),
        ("__MACOSX/notes/._garden.md", b"junk"),
    ]);
    assert_eq!(detect_format(&zip), Some(SourceFormat::Markdown));
    let parsed = parse_input("notes.zip", &zip, None).unwrap();
    assert_eq!(parsed.format, SourceFormat::Markdown);
    let sources: Vec<SourceFormat> = parsed.items.iter().map(|i| i.source).collect();
    assert_eq!(
        sources,
        vec![
            SourceFormat::Markdown,
            SourceFormat::Markdown,
            SourceFormat::PlainText,
            SourceFormat::Pdf
        ]
    );
    assert_eq!(
        parsed.notes,
        vec![
            "entry notes/broken.json not read: notes.zip/notes/broken.json: JSON, but not an export shape harvest knows (keys seen: a)",
            "1 entries of other types not read: notes/photo.jpg",
            "1 nested zip archive(s) not opened: notes/old.zip",
        ]
    );
}

#[test]
fn zip_bombs_are_refused() {
    // A 4 MiB entry of zeros deflates about 1000×.
    let zeros = vec![0u8; 4 << 20];
    let bomb = deflated(&[("conversations.json", &zeros)]);
    match parse_input("bomb.zip", &bomb, None).unwrap_err() {
        ParseError::TooLarge(message) => assert!(message.contains("a zip bomb?"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(detect_format(&bomb), None);

    // Declared sizes that lie: the central directory says 600 bytes, the
    // entry inflates to 4 MiB; the bytes that come out are counted.
    let mut liar = bomb.clone();
    let central = find(&liar, b"PK\x01\x02");
    liar[central + 24..central + 28].copy_from_slice(&600u32.to_le_bytes());
    let local = find(&liar, b"PK\x03\x04");
    liar[local + 22..local + 26].copy_from_slice(&600u32.to_le_bytes());
    match parse_input("liar.zip", &liar, None).unwrap_err() {
        ParseError::TooLarge(message) => assert_eq!(
            message,
            "liar.zip: entry conversations.json inflates past its declared size of 600 bytes: a zip bomb?"
        ),
        other => panic!("{other:?}"),
    }

    // A declared size over the per-entry cap.
    let small = deflated(&[("conversations.json", b"[]")]);
    let mut huge = small.clone();
    let central = find(&huge, b"PK\x01\x02");
    huge[central + 24..central + 28].copy_from_slice(&(600u32 << 20).to_le_bytes());
    match parse_input("huge.zip", &huge, None).unwrap_err() {
        ParseError::TooLarge(message) => assert!(
            message.contains("harvest reads entries of at most 512.0 MiB"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }

    // An end record that declares more entries than harvest reads.
    let mut many = deflated(&[]);
    let end = find(&many, b"PK\x05\x06");
    let count = u16::try_from(MAX_ARCHIVE_ENTRIES + 1).unwrap_or(u16::MAX);
    many[end + 8..end + 10].copy_from_slice(&count.to_le_bytes());
    many[end + 10..end + 12].copy_from_slice(&count.to_le_bytes());
    match parse_input("many.zip", &many, None).unwrap_err() {
        ParseError::TooLarge(message) => assert!(message.contains("entries"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn broken_and_empty_zips() {
    let zip = deflated(&[("conversations.json", &fixture("chatgpt/conversations.json"))]);
    let truncated = &zip[..zip.len() / 2];
    match parse_input("cut.zip", truncated, None).unwrap_err() {
        ParseError::Unrecognised(message) => assert!(
            message.contains("a zip archive that cannot be read"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    let photos = deflated(&[("a.jpg", &[1, 2, 3]), ("b.png", &[4, 5])]);
    match parse_input("photos.zip", &photos, None).unwrap_err() {
        ParseError::Unrecognised(message) => {
            assert_eq!(
                message,
                "photos.zip: a zip archive with no entry harvest reads (2 entries: a.jpg, b.png)"
            );
        }
        other => panic!("{other:?}"),
    }
    let stored = zip_of(
        &[("conversations.json", &fixture("claude/conversations.json"))],
        zip::CompressionMethod::Stored,
    );
    assert_eq!(
        parse_input("s.zip", &stored, None).unwrap().format,
        SourceFormat::Claude
    );
}

// ---------------------------------------------------------------- detection

const DETECTED: &[(&str, Option<SourceFormat>)] = &[
    ("chatgpt/conversations.json", Some(SourceFormat::Chatgpt)),
    ("claude/conversations.json", Some(SourceFormat::Claude)),
    ("gemini/MyActivity.json", Some(SourceFormat::Gemini)),
    ("gemini/MyActivity.html", Some(SourceFormat::Gemini)),
    ("perplexity/thread.md", Some(SourceFormat::Perplexity)),
    ("perplexity/thread-api.json", Some(SourceFormat::Perplexity)),
    ("perplexity/threads.json", Some(SourceFormat::Perplexity)),
    ("claude-code/session.jsonl", Some(SourceFormat::ClaudeCode)),
    ("universal/messages.json", Some(SourceFormat::Universal)),
    (
        "universal/conversations.json",
        Some(SourceFormat::Universal),
    ),
    ("universal/messages.jsonl", Some(SourceFormat::Universal)),
    ("universal/wrapped.json", Some(SourceFormat::Universal)),
    ("markdown/garden-notes.md", Some(SourceFormat::Markdown)),
    ("markdown/readme.md", Some(SourceFormat::Markdown)),
    ("text/letter.txt", Some(SourceFormat::PlainText)),
    ("html/article.html", Some(SourceFormat::Html)),
    ("pdf/two-pages.pdf", Some(SourceFormat::Pdf)),
    (
        "malformed/truncated-chatgpt.json",
        Some(SourceFormat::Chatgpt),
    ),
    ("malformed/unknown-shape.json", None),
    ("malformed/garbage.bin", None),
];

#[test]
fn every_fixture_is_detected_by_content() {
    for (path, expected) in DETECTED {
        assert_eq!(detect_format(&fixture(path)), *expected, "{path}");
    }
    // And every fixture directory is in the table.
    let mut listed = 0;
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        for file in std::fs::read_dir(entry.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            let relative = path
                .strip_prefix(fixtures_dir())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            assert!(
                DETECTED.iter().any(|(p, _)| *p == relative),
                "{relative} is not in DETECTED"
            );
            listed += 1;
        }
    }
    assert_eq!(listed, DETECTED.len());
}

#[test]
fn names_never_decide_and_a_bom_is_ignored() {
    let bytes = fixture("claude/conversations.json");
    for name in [
        "chatgpt-conversations.json",
        "notes.md",
        "paper.pdf",
        "archive.zip",
        "",
    ] {
        assert_eq!(
            parse_input(name, &bytes, None).unwrap().format,
            SourceFormat::Claude
        );
    }
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend_from_slice(&bytes);
    assert_eq!(detect_format(&with_bom), Some(SourceFormat::Claude));
    assert_eq!(parse_input("x", &with_bom, None).unwrap().items.len(), 2);
}

#[test]
fn a_hint_overrides_detection() {
    // Markdown read as plain text, Perplexity's Markdown as Markdown.
    let parsed = parse_input(
        "x",
        &fixture("markdown/readme.md"),
        Some(SourceFormat::PlainText),
    )
    .unwrap();
    assert_eq!(parsed.format, SourceFormat::PlainText);
    assert!(
        parsed.items[0]
            .sections
            .iter()
            .all(|s| s.headings.is_empty())
    );
    let parsed = parse_input(
        "x",
        &fixture("perplexity/thread.md"),
        Some(SourceFormat::Markdown),
    )
    .unwrap();
    assert_eq!(parsed.items[0].kind, ItemKind::Document);
    // A universal hint on a JSONL of messages, a zip whose entries are hinted.
    let zip = deflated(&[("conversations.json", &fixture("universal/messages.json"))]);
    let parsed = parse_input("x.zip", &zip, Some(SourceFormat::Universal)).unwrap();
    assert_eq!(parsed.format, SourceFormat::Universal);
}

#[test]
fn a_hint_that_does_not_fit_is_malformed_naming_the_format() {
    let cases: &[(&str, SourceFormat, &str)] = &[
        (
            "chatgpt/conversations.json",
            SourceFormat::Claude,
            "claude: no Claude conversation could be read (conversation #0: no `chat_messages`)",
        ),
        (
            "claude/conversations.json",
            SourceFormat::Chatgpt,
            "chatgpt: no ChatGPT conversation could be read (conversation #0: no `mapping`)",
        ),
        (
            "markdown/readme.md",
            SourceFormat::Pdf,
            "pdf: no %PDF- header",
        ),
        (
            "markdown/readme.md",
            SourceFormat::Chatgpt,
            "chatgpt: expected a JSON array of ChatGPT conversations",
        ),
        (
            "malformed/garbage.bin",
            SourceFormat::Markdown,
            "markdown: not UTF-8 text (invalid byte at offset 4)",
        ),
        (
            "malformed/unknown-shape.json",
            SourceFormat::Universal,
            "universal: an object without `messages` or `conversations`",
        ),
        (
            "text/letter.txt",
            SourceFormat::Gemini,
            "gemini: an HTML page without Takeout activity cells (`outer-cell`)",
        ),
    ];
    for (path, hint, expected) in cases {
        let error = parse_input("x", &fixture(path), Some(*hint)).unwrap_err();
        assert!(
            matches!(&error, ParseError::Malformed { format, .. } if format == hint),
            "{path}: {error:?}"
        );
        assert_eq!(error.to_string(), *expected, "{path}");
    }
}

// ---------------------------------------------------------------- malformed

#[test]
fn malformed_inputs_give_the_right_error() {
    match parse_input("x", &fixture("malformed/truncated-chatgpt.json"), None).unwrap_err() {
        ParseError::Malformed {
            format: SourceFormat::Chatgpt,
            message,
        } => {
            assert!(
                message.starts_with(
                    "truncated JSON (the file ends in the middle of a value): EOF while parsing"
                ),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        parse_input(
            "playlist.json",
            &fixture("malformed/unknown-shape.json"),
            None
        )
        .unwrap_err(),
        ParseError::Unrecognised(
            "playlist.json: JSON, but not an export shape harvest knows (keys seen: kind, tracks)"
                .into()
        )
    );
    match parse_input("blob", &fixture("malformed/garbage.bin"), None).unwrap_err() {
        ParseError::Unrecognised(message) => {
            assert_eq!(
                message,
                "blob: binary data that is not PDF or zip (it starts 7f 45 4c 46 a5 4d ca 18)"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        parse_input("empty.txt", b"", None).unwrap_err(),
        ParseError::Unrecognised("empty.txt: the input is empty".into())
    );
    let parsed = parse_input("blank.txt", b"  \n\n \t\n", None).unwrap();
    assert!(parsed.items.is_empty());
    assert_eq!(parsed.notes.len(), 1);
    assert!(parsed.notes[0].ends_with("has no text; left out"));
    let parsed = parse_input("none.json", b"[]", Some(SourceFormat::Chatgpt)).unwrap();
    assert_eq!(parsed.notes, vec!["the export holds no conversations"]);
}

#[test]
fn inputs_over_the_cap_are_too_large() {
    let big = vec![b' '; MAX_INPUT_BYTES + 1];
    match parse_input("huge.txt", &big, None).unwrap_err() {
        ParseError::TooLarge(message) => {
            assert_eq!(
                message,
                "huge.txt: 256.0 MiB is more than the 256.0 MiB harvest reads per input"
            );
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------- snapshots

#[test]
fn snapshots_of_every_fixture() {
    insta::glob!("fixtures/*/*", |path| {
        let bytes = std::fs::read(path).unwrap();
        let outcome = match parse_input("fixture", &bytes, None) {
            Ok(parsed) => serde_json::to_value(&parsed).unwrap(),
            Err(error) => serde_json::json!({ "error": format!("{error:?}") }),
        };
        insta::assert_json_snapshot!(outcome);
    });
}

// ---------------------------------------------------------------- properties

fn all_fixtures() -> Vec<Vec<u8>> {
    DETECTED.iter().map(|(path, _)| fixture(path)).collect()
}

/// 256 cases a property, or `PROPTEST_CASES` for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Keys the export formats read, so generated JSON gets past the adapters'
/// first checks and into their walks of messages, trees and timestamps.
const EXPORT_KEYS: &[&str] = &[
    "mapping",
    "message",
    "author",
    "role",
    "content",
    "parts",
    "content_type",
    "create_time",
    "update_time",
    "title",
    "conversation_id",
    "id",
    "current_node",
    "children",
    "parent",
    "uuid",
    "name",
    "chat_messages",
    "sender",
    "text",
    "created_at",
    "updated_at",
    "sessionId",
    "type",
    "timestamp",
    "cwd",
    "messages",
    "header",
    "time",
    "products",
    "subtitles",
    "titleUrl",
    "query",
    "answer",
    "sources",
    "url",
    "attachments",
    "files",
    "metadata",
    "model",
];

/// Any JSON value, its object keys drawn from [`EXPORT_KEYS`], its strings
/// arbitrary (timestamps among them).
fn export_like_json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,40}".prop_map(Value::from),
        "[0-9]{1,4}-[0-9]{1,2}-[0-9]{1,2}T[0-9:.]{0,12}(Z|[+-][0-9:]{0,5})?".prop_map(Value::from),
        prop::sample::select(EXPORT_KEYS).prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(EXPORT_KEYS), inner), 0..8).prop_map(
                |pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            ),
        ]
    })
}

/// `value` as a JSON document, or as JSONL (an array's elements one a line).
fn json_bytes(value: &serde_json::Value, as_lines: bool) -> Vec<u8> {
    match value {
        serde_json::Value::Array(elements) if as_lines => elements
            .iter()
            .map(|element| serde_json::to_string(element).unwrap())
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes(),
        other => serde_json::to_vec(other).unwrap(),
    }
}

/// Detection, then a parse by detection and one forced to each format.
fn parse_every_way(name: &str, bytes: &[u8]) {
    let _ = detect_format(bytes);
    let _ = parse_input(name, bytes, None);
    for hint in SourceFormat::ALL {
        let _ = parse_input(name, bytes, Some(hint));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn export_shaped_json_never_panics(value in export_like_json(), as_lines in any::<bool>()) {
        parse_every_way("fuzz.json", &json_bytes(&value, as_lines));
    }

    /// Text heavy in the characters Markdown, HTML, Perplexity's Markdown
    /// export and the text adapter treat specially.
    #[test]
    fn markup_shaped_text_never_panics(
        text in "(?s)(\\PC|[\n\r\t #>*`~<>/=\"'&;:\\[\\](){}|!^_-]|---\n|```|<span style=\"display:none\">|</span>|\\[\\^[0-9_]{0,3}\\]){0,300}",
    ) {
        parse_every_way("fuzz.md", text.as_bytes());
    }

    #[test]
    fn zips_of_arbitrary_entries_never_panic(
        entries in prop::collection::vec(
            (
                prop_oneof![
                    prop::sample::select(&["conversations.json", "notes/a.md", "chat.jsonl", "page.html", "doc.pdf", "a.txt"][..]).prop_map(str::to_string),
                    "[a-zA-Z0-9/._ -]{1,24}",
                ],
                prop_oneof![
                    prop::collection::vec(any::<u8>(), 0..512),
                    (export_like_json(), any::<bool>()).prop_map(|(value, as_lines)| json_bytes(&value, as_lines)),
                    "(?s)\\PC{0,200}".prop_map(String::into_bytes),
                ],
            ),
            0..4,
        ),
        stored in any::<bool>(),
    ) {
        let mut names = std::collections::HashSet::new();
        let entries: Vec<(&str, &[u8])> = entries
            .iter()
            .filter(|(name, _)| names.insert(name.clone()))
            .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
            .collect();
        let method = if stored { zip::CompressionMethod::Stored } else { zip::CompressionMethod::Deflated };
        parse_every_way("fuzz.zip", &zip_of(&entries, method));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        parse_every_way("fuzz", &bytes);
    }

    #[test]
    fn mutated_fixtures_never_panic(
        which in 0usize..20,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..8),
        cut in any::<usize>(),
    ) {
        let fixtures = all_fixtures();
        let mut bytes = fixtures[which % fixtures.len()].clone();
        for (at, byte, kind) in edits {
            if bytes.is_empty() { break; }
            let at = at % bytes.len();
            match kind {
                0 => bytes[at] = byte,
                1 => bytes.insert(at, byte),
                _ => { bytes.remove(at); }
            }
        }
        if cut % 4 == 0 && !bytes.is_empty() {
            bytes.truncate(cut % bytes.len());
        }
        let _ = detect_format(&bytes);
        let _ = parse_input("mutant", &bytes, None);
    }

    #[test]
    fn mutated_pdfs_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)) {
        let mut pdf = fixture("pdf/two-pages.pdf");
        for (at, byte) in edits {
            let at = at % pdf.len();
            pdf[at] = byte;
        }
        let _ = parse_input("mutant.pdf", &pdf, None);
    }

    #[test]
    fn mutated_zips_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)) {
        let mut zip = deflated(&[
            ("conversations.json", b"[{\"uuid\":\"u\",\"chat_messages\":[{\"sender\":\"human\",\"text\":\"hi\"}]}]"),
            ("notes/a.md", b"# A\ntext"),
        ]);
        for (at, byte) in edits {
            let at = at % zip.len();
            zip[at] = byte;
        }
        let _ = detect_format(&zip);
        let _ = parse_input("mutant.zip", &zip, None);
    }
}
