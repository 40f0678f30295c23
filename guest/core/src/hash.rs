//! The frame content hash: the provenance-insensitive dedup key.
//!
//! Captured text often carries a provenance header such as
//! `[hm session:42 src:claude-code] ` in front of the body. The same turn can
//! arrive from two capture paths with two different headers, and it must still
//! collapse into one frame. So the dedup key hashes the *body* only: one
//! leading `[hm …]` block (and the white space after it) is removed, the rest
//! is trimmed, and the SHA-256 of its UTF-8 bytes is written as 64 lower-case
//! hex digits.
//!
//! This is the reference engine's definition (`SHA256(stripHmPrefix(content)
//! .trim())`, pattern `^\[hm [^\]]*\]\s*`, see `reference-constants.md`). The
//! one definition is shared by insert, dedup lookup, update, compaction and
//! backfill, so the key can never drift between them. The prefix is matched by
//! hand rather than with a regex: the pattern is a literal opener, a run of
//! anything but `]`, the `]`, and white space, and the hand-written form
//! cannot fail to compile. (The unit tests check it against the regex.)
//!
//! "White space" is Unicode `White_Space`, both for the `\s*` after the block
//! and for the trim; that is what Rust's `trim` and the regex crate's `\s`
//! use. (JavaScript's `trim` additionally strips U+FEFF; a body that starts or
//! ends with a byte-order mark hashes differently here than in the reference.)

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// What a provenance block starts with: `[hm` and one space.
pub const HM_PREFIX_OPEN: &str = "[hm ";

/// What closes a provenance block.
pub const HM_PREFIX_CLOSE: char = ']';

/// SHA-256 (64 lower-case hex digits) of the content without its leading
/// `[hm …]` provenance block, trimmed: the frame dedup key.
///
/// `content_hash("[hm src:a] body") == content_hash("  body\n")`.
pub fn content_hash(content: &str) -> String {
    sha256_hex(strip_hm_prefix(content).trim().as_bytes())
}

/// The content without one leading `[hm …]` block and the white space after
/// it. Content that does not start with such a block (exactly `[hm `, with
/// a closing `]` somewhere after it) comes back unchanged, untrimmed.
pub fn strip_hm_prefix(content: &str) -> &str {
    content
        .strip_prefix(HM_PREFIX_OPEN)
        .and_then(|rest| rest.split_once(HM_PREFIX_CLOSE))
        .map_or(content, |(_, body)| body.trim_start())
}

/// SHA-256 of `bytes` as lower-case hex.
fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(digest.len() * 2);
    for byte in digest {
        // Writing into a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    // `printf %s 'hello world' | sha256sum`
    const HELLO_WORLD: &str = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9";
    // `printf %s '' | sha256sum`
    const EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    // `printf %s 'héllo wörld' | sha256sum` (UTF-8 bytes)
    const HELLO_WORLD_ACCENTED: &str =
        "a1003f7d04a4115711d0b48a2eaf1359ce565d2d2a6fd65098dfcffadeeef59f";

    #[test]
    fn hashes_known_strings() {
        assert_eq!(content_hash("hello world"), HELLO_WORLD);
        assert_eq!(content_hash(""), EMPTY);
        assert_eq!(content_hash("héllo wörld"), HELLO_WORLD_ACCENTED);
    }

    #[test]
    fn same_body_from_two_sources_hashes_the_same() {
        let a = content_hash("[hm session:1 src:claude-code] hello world");
        let b = content_hash("[hm session:9 src:chatgpt]\n\nhello world\n");
        assert_eq!(a, HELLO_WORLD);
        assert_eq!(b, HELLO_WORLD);
        assert_eq!(content_hash("   hello world \t\n"), HELLO_WORLD);
    }

    #[test]
    fn hash_is_case_sensitive_and_full_length() {
        let lower = content_hash("hello world");
        assert_ne!(lower, content_hash("Hello world"));
        assert_eq!(lower.len(), 64);
        assert!(
            lower
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        );
    }

    #[test]
    fn only_a_prefix_block_is_stripped() {
        assert_eq!(strip_hm_prefix("[hm src:a] body"), "body");
        assert_eq!(strip_hm_prefix("[hm src:a]body"), "body");
        assert_eq!(strip_hm_prefix("[hm ] body"), "body");
        assert_eq!(strip_hm_prefix("[hm a\nb]\n body "), "body ");
        // Exactly one block: a second one stays.
        assert_eq!(strip_hm_prefix("[hm a] [hm b] body"), "[hm b] body");
        // Not at the very start, no space after `hm`, or never closed: as is.
        assert_eq!(strip_hm_prefix(" [hm a] body"), " [hm a] body");
        assert_eq!(strip_hm_prefix("[hm] body"), "[hm] body");
        assert_eq!(strip_hm_prefix("[HM a] body"), "[HM a] body");
        assert_eq!(strip_hm_prefix("[hm never closed"), "[hm never closed");
        assert_eq!(strip_hm_prefix("  body  "), "  body  ");
        assert_eq!(strip_hm_prefix(""), "");
        // Unicode white space after the block goes too.
        assert_eq!(strip_hm_prefix("[hm a]\u{3000}\u{a0}body"), "body");
    }

    #[test]
    fn agrees_with_the_reference_pattern() {
        let pattern = regex::Regex::new(r"^\[hm [^\]]*\]\s*").unwrap();
        let cases = [
            "[hm src:a] body",
            "[hm ]",
            "[hm a\nb]\n body",
            "[hm a] [hm b] c",
            "[hm] x",
            " [hm a] x",
            "[hm unclosed",
            "[hm é ü]\u{2003}ñ",
            "plain",
            "",
        ];
        for case in cases {
            let expected = match pattern.find(case) {
                Some(found) => &case[found.end()..],
                None => case,
            };
            assert_eq!(strip_hm_prefix(case), expected, "{case:?}");
        }
    }
}
