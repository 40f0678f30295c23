//! The harvest input parser (`guest/harvest/src/adapters/`): every format
//! it detects (ChatGPT, Claude, Gemini, Perplexity, Claude Code, universal
//! JSON/JSONL, Markdown, text, PDF, HTML) and zip archives of them.
//!
//! Input: the first byte picks the hint (none, or one of the formats, as
//! the CLI's `--source` gives it), the rest is the file. Invariants beyond
//! "no panic" (a panic aborts the guest): every item has an id, a
//! conversation holds only non-empty messages and a document only non-empty
//! sections, and a hinted parse gives items of the hinted format (but a
//! Perplexity Markdown export with no query headings, which is read as a
//! Markdown document on purpose). For a file
//! that is not a zip (a zip's entries are detected and parsed one by one, so
//! it may mix formats): detection agrees with parsing (a file parsed without
//! a hint was detected as the format it was parsed as; a hinted parse
//! reports the hinted format, or fails naming it), "unrecognised" only
//! without a hint, and every item is of the format parsed.
#![no_main]

use hive_mind_harvest::{ItemKind, ParseError, SourceFormat, detect_format, parse_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((selector, bytes)) = data.split_first() else {
        return;
    };
    let formats = SourceFormat::ALL;
    let hint = formats
        .get(usize::from(*selector) % (formats.len() + 4))
        .copied();
    let detected = detect_format(bytes);
    let unbommed = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let zip = unbommed.starts_with(b"PK\x03\x04") || unbommed.starts_with(b"PK\x05\x06");
    let plain = !zip;
    match parse_input("fuzz", bytes, hint) {
        Ok(parsed) => {
            if plain {
                let expected = hint.or(detected).expect("parsed unrecognised");
                // The one documented exception: a Perplexity Markdown
                // export with no query headings is read as a Markdown
                // document (and noted).
                let fallback =
                    expected == SourceFormat::Perplexity && parsed.format == SourceFormat::Markdown;
                assert!(
                    parsed.format == expected || fallback,
                    "{expected:?} parsed as {:?}",
                    parsed.format
                );
            }
            for item in &parsed.items {
                assert!(!item.id.is_empty(), "an item without an id");
                if plain {
                    assert_eq!(item.source, parsed.format, "an item of another format");
                }
                if let Some(hint) = hint.filter(|hint| *hint != SourceFormat::Perplexity) {
                    assert_eq!(item.source, hint, "an item not of the hinted format");
                }
                match item.kind {
                    ItemKind::Conversation => {
                        assert!(item.sections.is_empty());
                        assert!(item.messages.iter().all(|message| !message.text.is_empty()));
                    }
                    ItemKind::Document => {
                        assert!(item.messages.is_empty());
                        assert!(item.sections.iter().all(|section| !section.text.is_empty()));
                    }
                }
                let _ = item.full_text();
            }
        }
        Err(ParseError::Unrecognised(_)) => {
            assert!(zip || hint.is_none(), "unrecognised although hinted");
        }
        Err(ParseError::Malformed { format, .. }) => {
            if let (true, Some(hint)) = (plain, hint) {
                let fallback = hint == SourceFormat::Perplexity && format == SourceFormat::Markdown;
                assert!(
                    format == hint || fallback,
                    "hinted {hint:?}, failed as {format:?}"
                );
            }
        }
        Err(ParseError::TooLarge(_)) => {}
    }
});
