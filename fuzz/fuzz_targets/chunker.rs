//! The chunker (`guest/core/src/chunk.rs`) on any text and any limits, in
//! characters ([`chunk_text`]) and in estimated tokens ([`chunk_tokens`]).
//!
//! Input: one byte picks the measure, six give the limits (small, so a short
//! input still makes many chunks), the rest is the text (lossy UTF-8). The
//! invariants are the module's promises: each chunk is exactly its span of
//! the text, on character boundaries, trimmed; indices count up; starts and
//! ends strictly increase; only white space lies outside the chunks (the
//! chunks cover the text); no character is in more than two chunks; a
//! character chunk is at most `max_chars` long; an all-white-space text has
//! no chunks and any other text at least one.
#![no_main]

use hive_mind_core::{Chunk, ChunkOptions, TokenBudget, chunk_text, chunk_tokens};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((header, body)) = data.split_first_chunk::<7>() else {
        return;
    };
    let text = String::from_utf8_lossy(body);
    let limit = |at: usize| u32::from(u16::from_le_bytes([header[at], header[at + 1] & 0x03]));
    let (max, overlap, min) = (limit(1), limit(3), limit(5));
    if header[0] & 1 == 0 {
        let options = ChunkOptions {
            max_chars: max,
            overlap,
            min_chars: min,
        };
        let chunks = chunk_text(&text, &options);
        check(&text, &chunks);
        let most = options.clamped().max_chars as usize;
        for chunk in &chunks {
            assert!(
                chunk.text.chars().count() <= most,
                "chunk over {most} characters"
            );
        }
    } else {
        let budget = TokenBudget {
            max_tokens: max,
            overlap,
            min_tokens: min,
        };
        check(&text, &chunk_tokens(&text, &budget));
    }
});

/// The invariants every chunking shares.
fn check(text: &str, chunks: &[Chunk]) {
    let blank = |span: &str| span.chars().all(char::is_whitespace);
    assert_eq!(
        chunks.is_empty(),
        blank(text),
        "no chunks exactly for a blank text"
    );
    let mut previous: Option<&Chunk> = None;
    let mut before_previous: Option<&Chunk> = None;
    for (position, chunk) in chunks.iter().enumerate() {
        assert_eq!(chunk.index as usize, position);
        let (start, end) = (chunk.char_start as usize, chunk.char_end as usize);
        assert!(
            start < end && end <= text.len(),
            "span {start}..{end} of {}",
            text.len()
        );
        assert_eq!(
            text.get(start..end),
            Some(chunk.text.as_str()),
            "chunk is its span"
        );
        assert!(
            !chunk.text.starts_with(char::is_whitespace),
            "chunk starts trimmed"
        );
        assert!(
            !chunk.text.ends_with(char::is_whitespace),
            "chunk ends trimmed"
        );
        match previous {
            None => assert!(
                text.get(..start).is_some_and(blank),
                "text before the first chunk"
            ),
            Some(previous) => {
                assert!(start > previous.char_start as usize, "starts increase");
                assert!(end > previous.char_end as usize, "ends increase");
                let gap = text.get(previous.char_end as usize..start).unwrap_or("");
                assert!(blank(gap), "only white space between chunks");
            }
        }
        if let Some(two_back) = before_previous {
            assert!(
                start >= two_back.char_end as usize,
                "a character in three chunks"
            );
        }
        before_previous = previous;
        previous = Some(chunk);
    }
    if let Some(last) = previous {
        assert!(
            text.get(last.char_end as usize..).is_some_and(blank),
            "text after the last chunk"
        );
    }
}
