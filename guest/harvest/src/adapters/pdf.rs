//! PDF: the text layer, page by page.
//!
//! # How
//!
//! [`lopdf`] (pure Rust, builds for wasm32-wasip2 with its default
//! features off) loads the document, decodes each page's content stream
//! and resolves each font's encoding and `ToUnicode` map; the walk over the
//! text operators is here (`page_text`), because lopdf's own
//! `extract_text` runs lines moved with `Td` together. A show at another
//! height starts a new line, a move along the line or a wide `TJ` gap adds
//! a space. `pdf-extract` (which builds on lopdf) lays text out better,
//! but its font and encoding code has about a hundred `unwrap`/`panic!`
//! sites a malformed font reaches, and a panic aborts the guest: lopdf
//! returns errors instead, and every decode it does is bounded.
//!
//! # Sections, title, time
//!
//! One section per page that has text, its heading `Page N` (so what is
//! remembered can be traced to a page). Lines are kept; runs of spaces
//! collapse. The title is the document information's `/Title`, the time its
//! `/CreationDate`. The id is a hash of the file.
//!
//! # Limits
//!
//! - Streams inflate to at most 32 MiB each while loading, and a page's
//!   content to at most 32 MiB ([`PAGE_CONTENT_BYTES`]).
//! - Before loading, the object streams (`/ObjStm`, which lopdf inflates
//!   eagerly) are inflated into a counter, at most [`OBJECT_STREAM_BUDGET`]
//!   in all: a small file with thousands of bomb streams is refused
//!   before any of them is kept.
//! - At most [`MAX_PDF_PAGES`] pages and [`MAX_PDF_TEXT_BYTES`] of text.
//!
//! A PDF whose pages have no text at all (a scan, without OCR) is an
//! error that says so; an encrypted one that opens without a password is
//! read, any other is an error.

use std::io::Read;

use lopdf::content::Content;
use lopdf::{Document, LoadOptions, Object};

use super::ParseError;
use super::common::{Tally, content_id, document, malformed};
use super::time;
use crate::item::{Parsed, Section, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::Pdf;

/// The most pages read from one PDF.
pub const MAX_PDF_PAGES: usize = 10_000;
/// The most text kept from one PDF (64 MiB).
pub const MAX_PDF_TEXT_BYTES: usize = 64 << 20;
/// The most one stream may inflate to while loading, and a page's content.
const PAGE_CONTENT_BYTES: usize = 32 << 20;
/// The most all object streams together may inflate to.
const OBJECT_STREAM_BUDGET: u64 = 512 << 20;

/// Parse a PDF.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    if !super::detect::is_pdf(bytes) {
        return Err(malformed(FORMAT, "no %PDF- header"));
    }
    check_object_streams(bytes)?;
    let options = LoadOptions {
        max_decompressed_size: Some(PAGE_CONTENT_BYTES),
        ..LoadOptions::default()
    };
    let doc = Document::load_mem_with_options(bytes, options).map_err(|error| {
        let message = error.to_string();
        if message.to_ascii_lowercase().contains("decrypt")
            || message.to_ascii_lowercase().contains("password")
        {
            malformed(
                FORMAT,
                format!("encrypted, and it does not open without a password ({message})"),
            )
        } else {
            malformed(FORMAT, format!("cannot be read: {message}"))
        }
    })?;
    let pages = doc.get_pages();
    if pages.len() > MAX_PDF_PAGES {
        return Err(ParseError::TooLarge(format!(
            "the PDF has {} pages; harvest reads at most {MAX_PDF_PAGES}",
            pages.len()
        )));
    }
    let mut tally = Tally::default();
    let mut sections = Vec::new();
    let mut total = 0usize;
    for (number, page_id) in &pages {
        let text = match page_text(&doc, *page_id, &mut tally) {
            Ok(text) => text,
            Err(lopdf::Error::Decompress(error)) => {
                return Err(ParseError::TooLarge(format!(
                    "page {number} of the PDF inflates past {} ({error})",
                    super::size_label(PAGE_CONTENT_BYTES as u64)
                )));
            }
            Err(_) => {
                tally.bump("page(s) whose content could not be read left out");
                continue;
            }
        };
        match tidy(&text) {
            Some(text) => {
                total += text.len();
                if total > MAX_PDF_TEXT_BYTES {
                    return Err(ParseError::TooLarge(format!(
                        "the PDF's text passes {} at page {number}",
                        super::size_label(MAX_PDF_TEXT_BYTES as u64)
                    )));
                }
                sections.push(Section {
                    headings: vec![format!("Page {number}")],
                    text,
                });
            }
            None => tally.bump("page(s) without text left out"),
        }
    }
    if sections.is_empty() {
        return Err(malformed(
            FORMAT,
            format!(
                "no text layer: none of its {} page(s) has extractable text (a scanned PDF? run OCR on it first)",
                pages.len()
            ),
        ));
    }
    let (title, created_at) = info(&doc);
    let id = content_id("pdf", &[bytes]);
    let item = document(id, FORMAT, title, created_at, sections, tally.into_notes());
    Ok(Parsed {
        format: FORMAT,
        items: vec![item],
        notes: Vec::new(),
    })
}

/// A number operand.
fn number(object: Option<&Object>) -> Option<f32> {
    match object? {
        Object::Integer(i) => Some(*i as f32),
        Object::Real(r) => Some(*r),
        _ => None,
    }
}

/// The text a page shows, in content-stream order. Line breaks come from
/// the text position: a show at another height than the last one starts a
/// new line, a move along the same line (or a new text block on it) adds a
/// space, and so do wide gaps inside `TJ` arrays. Fonts whose encoding
/// cannot be read are skipped (counted).
fn page_text(doc: &Document, page_id: lopdf::ObjectId, tally: &mut Tally) -> lopdf::Result<String> {
    let mut encodings = std::collections::BTreeMap::new();
    for (name, font) in doc.get_page_fonts(page_id)? {
        match font.get_font_encoding_with_limit(doc, PAGE_CONTENT_BYTES) {
            Ok(encoding) => {
                encodings.insert(name, encoding);
            }
            Err(error @ lopdf::Error::Decompress(_)) => return Err(error),
            Err(_) => tally.bump("font(s) with an unreadable encoding skipped"),
        }
    }
    let content = doc.get_page_content_with_limit(page_id, PAGE_CONTENT_BYTES)?;
    let content = Content::decode(&content)?;
    let mut out = String::new();
    let mut encoding = None;
    // The current line's height, and the height of the last text shown.
    let mut y = 0.0f32;
    let mut shown_y: Option<f32> = None;
    let mut gap = false;
    let mut undecodable = 0usize;
    for operation in &content.operations {
        let operands = &operation.operands;
        match operation.operator.as_str() {
            "BT" => {
                y = 0.0;
                gap = true;
            }
            "Tf" => {
                encoding = operands
                    .first()
                    .and_then(|o| o.as_name().ok())
                    .and_then(|n| encodings.get(n));
            }
            "Td" | "TD" => {
                let dx = number(operands.first()).unwrap_or(0.0);
                y += number(operands.get(1)).unwrap_or(0.0);
                gap |= dx != 0.0;
            }
            "Tm" => {
                y = number(operands.get(5)).unwrap_or(0.0);
                gap = true;
            }
            "T*" => {
                y -= 1.0;
            }
            "Tj" | "TJ" | "'" | "\"" => {
                if matches!(operation.operator.as_str(), "'" | "\"") {
                    y -= 1.0;
                }
                let Some(encoding) = encoding else {
                    undecodable += 1;
                    continue;
                };
                let mut shown = String::new();
                let strings: &[Object] = if operation.operator == "\"" {
                    operands.get(2..).unwrap_or(&[])
                } else {
                    operands
                };
                let mut show = |object: &Object, shown: &mut String| match object {
                    Object::String(bytes, _) => {
                        undecodable += usize::from(encoding.write_to_string(bytes, shown).is_err());
                    }
                    other => {
                        if number(Some(other)).is_some_and(|n| n < -180.0) && !shown.ends_with(' ')
                        {
                            shown.push(' ');
                        }
                    }
                };
                for operand in strings {
                    match operand {
                        Object::Array(parts) => {
                            parts.iter().for_each(|part| show(part, &mut shown))
                        }
                        other => show(other, &mut shown),
                    }
                }
                if shown.is_empty() {
                    continue;
                }
                match shown_y {
                    Some(last) if (last - y).abs() > 0.5 => out.push('\n'),
                    Some(_)
                        if gap
                            && !out.ends_with(char::is_whitespace)
                            && !shown.starts_with(char::is_whitespace) =>
                    {
                        out.push(' ');
                    }
                    _ => {}
                }
                out.push_str(&shown);
                shown_y = Some(y);
                gap = false;
            }
            _ => {}
        }
    }
    tally.add(
        "text run(s) in fonts that could not be decoded left out",
        undecodable,
    );
    Ok(out)
}

/// `/Title` and `/CreationDate` of the document information dictionary.
fn info(doc: &Document) -> (Option<String>, Option<String>) {
    let Some(dictionary) = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|info| doc.dereference(info).ok())
        .and_then(|(_, object)| object.as_dict().ok())
    else {
        return (None, None);
    };
    let text = |key: &[u8]| -> Option<String> {
        let object = dictionary.get(key).ok()?;
        let (_, object) = doc.dereference(object).ok()?;
        match object {
            Object::String(..) => lopdf::decode_text_string(object).ok(),
            _ => None,
        }
    };
    let title = text(b"Title").and_then(|t| super::common::collapse(&t));
    let created = text(b"CreationDate").and_then(|d| time::from_pdf_date(&d));
    (title, created)
}

/// A page's text: lines trimmed, runs of spaces collapsed, blank-line runs
/// cut to one.
fn tidy(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0usize;
    for line in text.lines() {
        let collapsed = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if collapsed.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(&collapsed);
    }
    if out.is_empty() { None } else { Some(out) }
}

/// Inflate every `/ObjStm` stream into a counter, at most
/// [`OBJECT_STREAM_BUDGET`] in all (see the module docs).
fn check_object_streams(bytes: &[u8]) -> Result<(), ParseError> {
    let mut budget = OBJECT_STREAM_BUDGET;
    let mut from = 0usize;
    while let Some(at) = bytes.get(from..).and_then(|rest| find(rest, b"/ObjStm")) {
        let marker = from + at;
        from = marker + 7;
        let Some(after_marker) = bytes.get(from..) else {
            break;
        };
        let window = super::detect::head(after_marker, 4096);
        let Some(start) = find(window, b"stream") else {
            continue;
        };
        let mut data = from + start + 6;
        if bytes.get(data) == Some(&b'\r') {
            data += 1;
        }
        if bytes.get(data) == Some(&b'\n') {
            data += 1;
        }
        let Some(stream) = bytes.get(data..) else {
            continue;
        };
        // Count what inflates before any error: a bomb that ends in a
        // corrupt byte still inflated that much in lopdf's hands.
        let mut decoder = flate2::read::ZlibDecoder::new(stream);
        let mut buffer = vec![0u8; 64 << 10];
        let mut inflated = 0u64;
        while inflated <= budget {
            match decoder.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => inflated += n as u64,
            }
        }
        if inflated > budget {
            return Err(ParseError::TooLarge(format!(
                "the PDF's object streams inflate to more than {} (a decompression bomb?)",
                super::size_label(OBJECT_STREAM_BUDGET)
            )));
        }
        budget -= inflated;
    }
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut from = 0usize;
    while let Some(at) = haystack.get(from..)?.iter().position(|b| *b == first) {
        let start = from + at;
        if haystack.get(start..start + needle.len()) == Some(needle) {
            return Some(start);
        }
        from = start + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_collapses_spaces_and_blank_runs() {
        assert_eq!(tidy("  a   b \n\n\n c\n").as_deref(), Some("a b\n\nc"));
        assert_eq!(tidy(" \n "), None);
    }
}
