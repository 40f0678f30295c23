//! Format detection by content, never by file name.
//!
//! A file called `export.json` may be a Claude export, `notes.txt` may be
//! Markdown, and a renamed file must import the same. So detection reads
//! only bytes, in this order:
//!
//! 1. `%PDF-` in the first kilobyte → PDF (the spec lets junk precede it).
//! 2. `PK\x03\x04` → a zip archive: its entries are opened and sniffed
//!    (see `archive`).
//! 3. Text that starts with `{` or `[` is sniffed as JSON: a small iterative
//!    scanner reads the first [`SNIFF_BYTES`] and records key paths
//!    (`*/mapping` = key `mapping` of the first element of the top-level
//!    array) without building a tree, so it works on a prefix of a 500 MB
//!    export and cannot be made to recurse. Which keys the first element
//!    has decides: `mapping` → ChatGPT, `chat_messages` → Claude,
//!    `header`+`title`+`time` with a Gemini/Bard product → Gemini,
//!    `query_str` → Perplexity, `role`+`content` → universal. Several
//!    top-level values in a row are JSONL: `sessionId` → Claude Code,
//!    `role` → universal. JSON of no known shape is *not* read as text.
//! 4. HTML (`<!doctype html`, `<html`, `<head`, `<body` near the start);
//!    a Takeout activity page (`outer-cell` blocks of Gemini Apps) →
//!    Gemini.
//! 5. Perplexity's Markdown (its logo image, or the `⁂` that closes each
//!    answer's sources) → Perplexity; front matter, ATX headings, fenced
//!    code, or several list/link/quote lines → Markdown.
//! 6. Any other valid UTF-8 that is not binary (no NUL, few control
//!    characters) → plain text. Anything else is unrecognised.

use crate::item::SourceFormat;

/// How much of a JSON input the sniffer reads.
pub(crate) const SNIFF_BYTES: usize = 1 << 20;
/// How much of a text input the text rules read.
const TEXT_SNIFF_BYTES: usize = 64 << 10;
/// How many top-level JSON values (JSONL lines) the sniffer reads.
const SNIFF_VALUES: usize = 32;
/// How many key paths the sniffer records.
const SNIFF_KEYS: usize = 4096;
/// How deep the sniffer records key paths.
const SNIFF_DEPTH: usize = 6;
/// Nesting beyond this is not an export (and is not followed).
const SNIFF_MAX_NESTING: usize = 4096;

/// At most the first `max` bytes of `bytes`.
pub(crate) fn head(bytes: &[u8], max: usize) -> &[u8] {
    bytes.get(..max).unwrap_or(bytes)
}

/// `%PDF-` within the first kilobyte.
pub(crate) fn is_pdf(bytes: &[u8]) -> bool {
    head(bytes, 1024)
        .windows(5)
        .any(|window| window == b"%PDF-")
}

/// A zip local-file header at the start (or an empty archive's end record).
pub(crate) fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// The input without a UTF-8 byte-order mark.
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Valid UTF-8 that does not look binary.
pub(crate) fn as_text(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut controls = 0usize;
    let mut total = 0usize;
    for c in text.chars().take(TEXT_SNIFF_BYTES) {
        total += 1;
        if c == '\0' {
            return None;
        }
        if c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c') {
            controls += 1;
        }
    }
    // More than 1 control character in 200 is not text a person wrote.
    if controls * 200 > total {
        None
    } else {
        Some(text)
    }
}

/// What the JSON sniffer saw.
#[derive(Debug, Default)]
pub(crate) struct JsonSniff {
    /// `[` or `{`: the first top-level value's kind.
    pub(crate) root: u8,
    /// Key paths (`*/mapping`, `entries/*/query_str`) with the short string
    /// value each had, when it had one.
    pub(crate) keys: Vec<(String, Option<String>)>,
    /// Top-level values seen (more than one: JSONL).
    pub(crate) values: usize,
}

impl JsonSniff {
    /// Whether `path` was seen.
    pub(crate) fn has(&self, path: &str) -> bool {
        self.keys.iter().any(|(key, _)| key == path)
    }

    /// The string values seen at `path`.
    fn values_at<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.keys
            .iter()
            .filter(move |(key, _)| key == path)
            .filter_map(|(_, v)| v.as_deref())
    }

    /// The top-level keys seen, for messages (`a, b, c`).
    pub(crate) fn top_keys(&self) -> String {
        let mut top: Vec<&str> = Vec::new();
        for (key, _) in &self.keys {
            let key = key.strip_prefix("*/").unwrap_or(key);
            if !key.contains('/') && key != "*" && !top.contains(&key) && top.len() < 12 {
                top.push(key);
            }
        }
        top.join(", ")
    }
}

#[derive(Debug)]
struct Frame {
    object: bool,
    path: String,
    index: usize,
    recording: bool,
    expecting_key: bool,
}

/// Scan a JSON prefix. `None` when it is not JSON (or not an object/array
/// at the top).
pub(crate) fn sniff_json(bytes: &[u8]) -> Option<JsonSniff> {
    let bytes = head(bytes, SNIFF_BYTES);
    let mut sniff = JsonSniff::default();
    let mut stack: Vec<Frame> = Vec::new();
    // The path the next value will have, and whether it is recorded.
    let mut pending: Option<(String, bool)> = None;
    let mut i = 0usize;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' | b'[' => {
                if stack.is_empty() {
                    if sniff.values >= SNIFF_VALUES {
                        break;
                    }
                    if sniff.values == 0 {
                        sniff.root = byte;
                    }
                    sniff.values += 1;
                    pending = Some((String::new(), true));
                } else if stack.len() >= SNIFF_MAX_NESTING {
                    return None;
                }
                let (path, recording) = match pending.take() {
                    Some(p) => p,
                    None => value_path(stack.last())?,
                };
                stack.push(Frame {
                    object: byte == b'{',
                    path,
                    index: 0,
                    recording: recording && stack.len() < SNIFF_DEPTH,
                    expecting_key: byte == b'{',
                });
                i += 1;
            }
            b'}' | b']' => {
                let frame = stack.pop()?;
                if frame.object != (byte == b'}') {
                    return None;
                }
                i += 1;
            }
            b',' => {
                let frame = stack.last_mut()?;
                if frame.object {
                    frame.expecting_key = true;
                } else {
                    frame.index += 1;
                }
                i += 1;
            }
            b':' => {
                pending.as_ref()?;
                i += 1;
            }
            b'"' => {
                let (text, next) = read_string(bytes, i + 1)?;
                i = next;
                let frame = stack.last_mut()?;
                if frame.object && frame.expecting_key {
                    frame.expecting_key = false;
                    let path = if frame.path.is_empty() {
                        text.clone()
                    } else {
                        format!("{}/{}", frame.path, text)
                    };
                    let record = frame.recording && sniff.keys.len() < SNIFF_KEYS;
                    if record {
                        sniff.keys.push((path.clone(), None));
                    }
                    pending = Some((path, record));
                } else {
                    let (path, record) = match pending.take() {
                        Some(p) => p,
                        None => value_path(Some(frame))?,
                    };
                    if record && text.len() <= 200 {
                        match sniff.keys.iter_mut().rev().find(|(key, _)| *key == path) {
                            Some(entry) if entry.1.is_none() => entry.1 = Some(text),
                            _ => {
                                if sniff.keys.len() < SNIFF_KEYS {
                                    sniff.keys.push((path, Some(text)));
                                }
                            }
                        }
                    }
                }
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                if stack.is_empty() {
                    return None;
                }
                pending = None;
                let start = i;
                while bytes.get(i).is_some_and(|byte| {
                    !matches!(byte, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t')
                }) {
                    i += 1;
                }
                let token = bytes.get(start..i)?;
                let cut = i == bytes.len();
                let literal = matches!(token, b"true" | b"false" | b"null")
                    || std::str::from_utf8(token).is_ok_and(|t| t.parse::<f64>().is_ok());
                if !literal && !cut {
                    return None;
                }
            }
            _ => return None,
        }
    }
    if sniff.values == 0 { None } else { Some(sniff) }
}

/// JSONL whose lines are sniffed one by one, so a broken line does not hide
/// the others: the keys of every line that reads (of the first
/// [`SNIFF_VALUES`]), `values` the number of lines seen. `None` unless at
/// least two lines start like JSON and one of them reads.
pub(crate) fn sniff_lines(bytes: &[u8]) -> Option<JsonSniff> {
    let bytes = head(bytes, SNIFF_BYTES);
    let mut merged = JsonSniff::default();
    let mut lines = 0usize;
    let mut readable = 0usize;
    for line in bytes.split(|b| *b == b'\n') {
        if lines >= SNIFF_VALUES {
            break;
        }
        match super::common::first_json_byte(line) {
            None => continue,
            Some(b'{' | b'[') => {}
            Some(_) => return None,
        }
        lines += 1;
        if let Some(sniff) = sniff_json(line) {
            if merged.root == 0 {
                merged.root = sniff.root;
            }
            readable += 1;
            for entry in sniff.keys {
                if merged.keys.len() < SNIFF_KEYS {
                    merged.keys.push(entry);
                }
            }
        }
    }
    merged.values = lines;
    if lines >= 2 && readable > 0 {
        Some(merged)
    } else {
        None
    }
}

/// The path (and recording flag) of a value inside `frame` with no key
/// pending: an array element.
fn value_path(frame: Option<&Frame>) -> Option<(String, bool)> {
    let frame = frame?;
    if frame.object {
        return None;
    }
    let path = if frame.path.is_empty() {
        "*".to_string()
    } else {
        format!("{}/*", frame.path)
    };
    Some((path, frame.recording && frame.index == 0))
}

/// A JSON string's text (escapes decoded simply) and the index after it;
/// a string cut by the end of the prefix ends there. `None` for a raw line
/// break, which JSON strings cannot hold (a JSONL line cut short).
fn read_string(bytes: &[u8], mut i: usize) -> Option<(String, usize)> {
    let mut out: Vec<u8> = Vec::new();
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'"' => return Some((String::from_utf8_lossy(&out).into_owned(), i + 1)),
            b'\n' | b'\r' => return None,
            b'\\' => {
                if let Some(&escaped) = bytes.get(i + 1)
                    && out.len() < 256
                {
                    out.push(match escaped {
                        b'n' => b'\n',
                        b't' => b'\t',
                        other => other,
                    });
                }
                i += 2;
            }
            other => {
                if out.len() < 256 {
                    out.push(other);
                }
                i += 1;
            }
        }
    }
    Some((String::from_utf8_lossy(&out).into_owned(), i))
}

/// The format a JSON sniff points at.
pub(crate) fn json_format(sniff: &JsonSniff) -> Option<SourceFormat> {
    let has = |path: &str| sniff.has(path);
    let any = |paths: &[&str]| paths.iter().any(|path| sniff.has(path));
    if sniff.values > 1 {
        if any(&["sessionId", "leafUuid"]) || (has("parentUuid") && has("uuid")) {
            return Some(SourceFormat::ClaudeCode);
        }
        if any(&["role", "sender", "author", "messages"]) {
            return Some(SourceFormat::Universal);
        }
        return None;
    }
    if sniff.root == b'[' {
        if has("*/mapping") {
            return Some(SourceFormat::Chatgpt);
        }
        if has("*/chat_messages") {
            return Some(SourceFormat::Claude);
        }
        if has("*/time") && has("*/title") && any(&["*/header", "*/products"]) {
            let gemini = |v: &str| {
                let lower = v.to_lowercase();
                lower.contains("gemini") || lower.contains("bard")
            };
            if has("*/safeHtmlItem")
                || sniff.values_at("*/header").any(gemini)
                || sniff.values_at("*/products/*").any(gemini)
            {
                return Some(SourceFormat::Gemini);
            }
            return None;
        }
        if has("*/query_str") {
            return Some(SourceFormat::Perplexity);
        }
        if has("*/messages") || has("*/chat") {
            return Some(SourceFormat::Universal);
        }
        if any(&["*/role", "*/sender", "*/author", "*/speaker", "*/from"])
            && any(&["*/content", "*/text", "*/message", "*/parts", "*/body"])
        {
            return Some(SourceFormat::Universal);
        }
        return None;
    }
    if has("mapping") {
        return Some(SourceFormat::Chatgpt);
    }
    if has("chat_messages") {
        return Some(SourceFormat::Claude);
    }
    if has("entries/*/query_str") || has("threads") {
        return Some(SourceFormat::Perplexity);
    }
    if has("sessionId") && has("message") {
        return Some(SourceFormat::ClaudeCode);
    }
    if has("messages") || has("conversations/*/messages") {
        return Some(SourceFormat::Universal);
    }
    None
}

/// The format of a text input (not JSON).
pub(crate) fn text_format(text: &str) -> SourceFormat {
    let head = prefix(text, TEXT_SNIFF_BYTES);
    if looks_like_html(head) {
        if head.contains("outer-cell") && (head.contains("Gemini") || head.contains("Bard")) {
            return SourceFormat::Gemini;
        }
        return SourceFormat::Html;
    }
    if super::perplexity::looks_like_markdown_export(head) {
        return SourceFormat::Perplexity;
    }
    if super::markdown::looks_like_markdown(head) {
        return SourceFormat::Markdown;
    }
    SourceFormat::PlainText
}

/// At most `max` bytes of `text`, cut at a character boundary.
pub(crate) fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let end = text.floor_char_boundary(max);
    text.get(..end).unwrap_or_default()
}

/// An HTML document: it opens with markup and names `<html>`, `<head>` or
/// `<body>` early (Markdown with inline HTML does not).
fn looks_like_html(head: &str) -> bool {
    let start = head.trim_start();
    if !start.starts_with('<') {
        return false;
    }
    let lower = prefix(start, 4096).to_ascii_lowercase();
    lower.starts_with("<!doctype html")
        || lower.starts_with("<html")
        || ((lower.starts_with("<?xml") || lower.starts_with("<!--") || lower.starts_with("<meta"))
            && (lower.contains("<html") || lower.contains("<body")))
        || lower.starts_with("<head")
        || lower.starts_with("<body")
}

/// What content-only detection makes of bytes that are not a zip.
pub(crate) fn detect_plain(bytes: &[u8]) -> Result<SourceFormat, String> {
    let bytes = strip_bom(bytes);
    if bytes.is_empty() {
        return Err("the input is empty".into());
    }
    if is_pdf(bytes) {
        return Ok(SourceFormat::Pdf);
    }
    let Some(text) = as_text(bytes) else {
        let shown: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        return Err(format!(
            "binary data that is not PDF or zip (it starts {})",
            shown.join(" ")
        ));
    };
    if matches!(super::common::first_json_byte(bytes), Some(b'{' | b'['))
        && let Some(sniff) = sniff_json(bytes).or_else(|| sniff_lines(bytes))
    {
        return json_format(&sniff).ok_or_else(|| {
            format!(
                "JSON, but not an export shape harvest knows (keys seen: {})",
                sniff.top_keys()
            )
        });
    }
    Ok(text_format(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffer_records_first_element_keys() {
        let sniff =
            sniff_json(br#"[{"title":"a","mapping":{"x":{"id":"x"}}},{"late":1}]"#).unwrap();
        assert!(sniff.has("*/title"));
        assert!(sniff.has("*/mapping"));
        assert!(sniff.has("*/mapping/x/id"));
        assert!(!sniff.has("*/late"));
        assert_eq!(json_format(&sniff), Some(SourceFormat::Chatgpt));
    }

    #[test]
    fn sniffer_reads_a_cut_prefix_and_jsonl() {
        let sniff =
            sniff_json(br#"[{"uuid":"u","name":"n","chat_messages":[{"text":"hel"#).unwrap();
        assert_eq!(json_format(&sniff), Some(SourceFormat::Claude));
        let jsonl =
            b"{\"type\":\"summary\",\"leafUuid\":\"x\"}\n{\"type\":\"user\",\"sessionId\":\"s\"}\n";
        let sniff = sniff_json(jsonl).unwrap();
        assert_eq!(sniff.values, 2);
        assert_eq!(json_format(&sniff), Some(SourceFormat::ClaudeCode));
    }

    #[test]
    fn sniffer_refuses_non_json_and_deep_nesting() {
        assert!(sniff_json(b"[Verse 1]\nla la").is_none());
        assert!(sniff_json(b"{ oops }").is_none());
        let deep = "[".repeat(SNIFF_MAX_NESTING + 10);
        assert!(sniff_json(deep.as_bytes()).is_none());
    }
}
