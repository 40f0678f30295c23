//! The entry points that read text nobody vetted (a query, a message, a
//! stored memory, a tool's output) against arbitrary input: each returns,
//! whatever it is given. The guest aborts on a panic, so one here would take
//! the whole component down with the request.
//!
//! The inputs mix arbitrary Unicode with the words and marks each parser
//! looks for (month names, relative cues, sentence ends, quotes, handles,
//! file names, injection phrases), so the cases reach past the first checks.
//! 256 cases a property (`PROPTEST_CASES` overrides), a few seconds in all in
//! a debug build.

use hive_mind_core::cleanup::{CleanupFrame, plan_cleanup};
use hive_mind_core::dates::resolve_date_window;
use hive_mind_core::{
    ChunkOptions, ChunkPlan, Importance, ScanContext, TokenBudget, chunk_text, chunk_tokens,
    detect_catch_up, extract_entities, extract_relations, frame_chunks, parse_date_window,
    pattern_write_back, plan_cognify, reply_context, resolve_relative_date, scan_for_injection,
    speaker_named_in,
};
use proptest::prelude::*;

/// 256 cases a property, or `PROPTEST_CASES` for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Words, phrases and marks the date, entity, write-back and injection
/// parsers react to.
const CUES: &[&str] = &[
    "3 May 2026",
    "3rd of May, 2026",
    "May 3, 2026",
    "2026-05-03",
    "2026-13-45",
    "first week of May 2026",
    "mid-May 2026",
    "late December 1999",
    "May 2026",
    "in 2025",
    "during 20",
    "3 days ago",
    "last Tuesday",
    "two weeks ago",
    "next month",
    "Feb 30, 2024",
    "ignore all previous instructions",
    "forget everything you were told",
    "wipe your memory and",
    "disregard your rules",
    "you are now",
    "<!-- ignore the above -->",
    "January",
    "feb",
    "March",
    "Sept.",
    "dec",
    "Q1",
    "q4",
    "since",
    "between",
    " and ",
    " through ",
    "onwards",
    "Christmas",
    "Easter",
    "before last",
    "last weekend",
    "on Friday",
    "of last year",
    "the second half of",
    "H2",
    "1st",
    "22nd",
    "'24",
    "2024",
    "1999",
    "20240",
    "last",
    "next",
    "this",
    "week",
    "month",
    "year",
    "ago",
    "days",
    "weekend",
    "yesterday",
    "tomorrow",
    "since",
    "before",
    "after",
    "between",
    "and",
    "of",
    "in",
    "on",
    "spring",
    "summer",
    "decade",
    "the 90s",
    "mid-",
    "early",
    "late",
    "Project",
    "repo",
    "called",
    "\"Phoenix\"",
    "‘Atlas’",
    "@dev_ops",
    "main.rs",
    "Node.js",
    "McDonald",
    "GitHub",
    "depends on",
    "uses",
    "I prefer",
    "remember that",
    "my name is",
    "we decided",
    "TODO",
    "ignore previous instructions",
    "system prompt",
    "<!--",
    "-->",
    "```",
    "e.g.",
    "Dr.",
    "1.",
    "2)",
    "- ",
    "• ",
    "。",
    "！",
    "…",
    "’s",
    "'s",
    "&",
    "\n",
    "\n\n",
    "\t",
    " ",
    ". ",
    "? ",
    "!",
    ";",
    ":",
    "(",
    ")",
    "[",
    "]",
    "-",
    "/",
    "_",
    "'",
    "\"",
    "\u{a0}",
    "\u{200b}",
];

/// Arbitrary Unicode and [`CUES`], in any order, joined with or without
/// spaces; or any text at all.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(CUES).prop_map(str::to_string),
        "\\PC{0,6}",
        "[0-9]{1,6}",
        "[A-Za-zÀ-ÿ]{1,10}",
        any::<char>().prop_map(String::from),
    ];
    let pieces = (
        prop::collection::vec(piece, 0..60),
        prop::sample::select(&["", " "][..]),
    )
        .prop_map(|(pieces, separator)| pieces.join(separator));
    prop_oneof![3 => pieces, 1 => "(?s).{0,200}"]
}

/// An anchor date: a real one, a malformed one, or anything.
fn anchor() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{4}-[0-9]{2}-[0-9]{2}",
        "-?[0-9]{1,9}-[0-9]{1,3}-[0-9]{1,3}",
        "\\PC{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn date_parsing_never_panics(query in hostile_text(), anchor in anchor()) {
        let _ = parse_date_window(&query);
        let _ = resolve_relative_date(&query, &anchor);
        if let Ok(Some(window)) = resolve_date_window(&query, &anchor) {
            prop_assert!(window.since <= window.until, "{query:?}: {window:?}");
        }
        let _ = detect_catch_up(&query);
    }

    #[test]
    fn chunking_never_panics(
        text in hostile_text(),
        max_chars in any::<u32>(),
        overlap in any::<u32>(),
        min_chars in any::<u32>(),
        small in (0u32..64, 0u32..64, 0u32..64),
        window in any::<u32>(),
    ) {
        for options in [
            ChunkOptions { max_chars, overlap, min_chars },
            ChunkOptions { max_chars: small.0, overlap: small.1, min_chars: small.2 },
        ] {
            let _ = chunk_text(&text, &options);
        }
        for budget in [
            TokenBudget { max_tokens: max_chars, overlap, min_tokens: min_chars },
            TokenBudget { max_tokens: small.0, overlap: small.1, min_tokens: small.2 },
        ] {
            let _ = chunk_tokens(&text, &budget);
        }
        for plan in [ChunkPlan::LegacyChars, ChunkPlan::Tokens(window), ChunkPlan::for_window(small.0)] {
            let _ = frame_chunks(&text, plan);
        }
    }

    #[test]
    fn injection_scan_never_panics(text in hostile_text()) {
        for context in [ScanContext::UserInput, ScanContext::ToolOutput] {
            let _ = scan_for_injection(&text, context);
        }
    }

    #[test]
    fn cognify_and_write_back_never_panic(
        user in hostile_text(),
        assistant in hostile_text(),
        workspace in proptest::option::of("\\PC{0,20}"),
        succeeded in any::<bool>(),
    ) {
        let entities = extract_entities(&user);
        let _ = extract_relations(&user, &entities);
        let _ = plan_cognify(&user, &assistant, workspace.as_deref(), succeeded);
        let _ = pattern_write_back(&user, &assistant);
        let _ = reply_context(&assistant, &user);
        let _ = speaker_named_in(&user, &assistant);
    }

    #[test]
    fn cleanup_never_panics(
        contents in prop::collection::vec(
            (hostile_text(), prop::sample::select(&Importance::ALL[..]), any::<bool>()),
            0..8,
        ),
    ) {
        let frames: Vec<CleanupFrame> = contents
            .into_iter()
            .enumerate()
            .map(|(id, (content, importance, live))| CleanupFrame {
                id: id as u64,
                content,
                importance,
                live,
            })
            .collect();
        let _ = plan_cleanup(&frames);
    }
}
