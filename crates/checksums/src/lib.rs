//! A model folder's `SHA256SUMS`, read one way everywhere.
//!
//! Every folder under `models/` commits the checksums of its files in the
//! format `sha256sum` writes: one `<64 hex digits>  <file>` per line (or
//! `<hex> *<file>`, binary mode), blank lines and `#` comments skipped. Two
//! readers need it — `cargo xtask models`, which verifies and fetches the
//! files, and the in-process embedder and reranker (`hive-mind-models`),
//! which verify every file they load — so the format is parsed here, once.
//!
//! A file must name a file of its folder: an empty name, a name with `..` or
//! one starting with `/` makes its line malformed, so no manifest can point
//! a reader outside the folder.

use std::collections::BTreeMap;

/// A line that is not `<sha256>  <file>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: expected `<sha256>  <file>` as sha256sum writes it, found {text:?}")]
pub struct MalformedLine {
    /// The line's number, from 1.
    pub line: usize,
    /// The line, trimmed.
    pub text: String,
}

/// Parse a `SHA256SUMS` text: file name → lower-case SHA-256 hex. A file
/// listed twice keeps its last checksum.
pub fn parse(text: &str) -> Result<BTreeMap<String, String>, MalformedLine> {
    let mut sums = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((file, hash)) = parse_line(line) else {
            return Err(MalformedLine {
                line: number + 1,
                text: line.to_string(),
            });
        };
        sums.insert(file, hash);
    }
    Ok(sums)
}

/// One non-empty line: `(file, hash)`, or `None` when malformed.
fn parse_line(line: &str) -> Option<(String, String)> {
    let (hash, file) = line.split_once(char::is_whitespace)?;
    let file = file.trim_start().trim_start_matches('*');
    let hex = hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit());
    let inside = !file.is_empty() && !file.contains("..") && !file.starts_with('/');
    (hex && inside).then(|| (file.to_string(), hash.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binary_lines_comments_and_blanks() {
        let upper = "A".repeat(64);
        let lower = "a".repeat(64);
        let text =
            format!("# made by sha256sum\n{upper}  model.onnx\n\n  {lower} *tokenizer.json\n");
        let sums = parse(&text).unwrap();
        assert_eq!(sums.len(), 2);
        assert_eq!(sums["model.onnx"], lower);
        assert_eq!(sums["tokenizer.json"], lower);
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn malformed_lines_are_numbered() {
        let hash = "b".repeat(64);
        for (text, line) in [
            ("deadbeef  model.onnx\n".to_string(), 1),
            (format!("{hash}  ok\n{hash}\n"), 2),
            (format!("\n{}  model.onnx\n", "g".repeat(64)), 2),
            (format!("{hash}  ../escape\n"), 1),
            (format!("{hash}  /etc/passwd\n"), 1),
        ] {
            let error = parse(&text).unwrap_err();
            assert_eq!(error.line, line, "{text:?}");
            assert!(
                error.to_string().contains(&format!("line {line}")),
                "{error}"
            );
        }
    }
}
