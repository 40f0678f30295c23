//! Plain text: one document.
//!
//! Plain text has no structure to trust but its blank lines. The text is
//! split into paragraphs at blank lines, and consecutive paragraphs are
//! grouped into sections of up to [`SECTION_CHARS`] characters (a longer
//! paragraph is a section of its own, never cut). Sections have no
//! headings. Grouping keeps related paragraphs together for the
//! distillation while giving it units smaller than a whole book; the store
//! chunks the text again for search either way.
//!
//! The title is the first line when it stands alone (a short line followed
//! by a blank line, in a text of more than one paragraph), as a title line
//! usually does; else there is none. The id is a hash of the whole text.

use super::ParseError;
use super::common::{clean_text, content_id, document, no_text_note, short_title};
use crate::item::{Parsed, Section, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::PlainText;

/// Paragraphs are grouped into sections of at most this many characters.
pub(crate) const SECTION_CHARS: usize = 2000;

/// The longest first line taken as a title.
const TITLE_LINE_CHARS: usize = 80;

/// Parse a plain-text document.
pub(crate) fn parse(text: &str) -> Result<Parsed, ParseError> {
    let id = content_id("text", &[text.as_bytes()]);
    let paragraphs = paragraphs(text);
    let mut parsed = Parsed {
        format: FORMAT,
        items: Vec::new(),
        notes: Vec::new(),
    };
    let title = match paragraphs.as_slice() {
        [first, _, ..] if !first.contains('\n') && first.chars().count() <= TITLE_LINE_CHARS => {
            short_title(first, TITLE_LINE_CHARS)
        }
        _ => None,
    };
    let sections = group(&paragraphs);
    if sections.is_empty() {
        parsed.notes.push(no_text_note("document", &id, None));
        return Ok(parsed);
    }
    parsed
        .items
        .push(document(id, FORMAT, title, None, sections, Vec::new()));
    Ok(parsed)
}

/// Blank-line separated paragraphs, each trimmed.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if let Some(paragraph) = clean_text(&current.join("\n")) {
                out.push(paragraph);
            }
            current.clear();
        } else {
            current.push(line.trim_end());
        }
    }
    if let Some(paragraph) = clean_text(&current.join("\n")) {
        out.push(paragraph);
    }
    out
}

/// Paragraphs → sections of up to [`SECTION_CHARS`].
fn group(paragraphs: &[String]) -> Vec<Section> {
    let mut sections = Vec::new();
    let mut current = String::new();
    let mut current_chars = 0usize;
    for paragraph in paragraphs {
        let chars = paragraph.chars().count();
        if !current.is_empty() && current_chars + 2 + chars > SECTION_CHARS {
            sections.push(Section {
                headings: Vec::new(),
                text: std::mem::take(&mut current),
            });
            current_chars = 0;
        }
        if !current.is_empty() {
            current.push_str("\n\n");
            current_chars += 2;
        }
        current.push_str(paragraph);
        current_chars += chars;
    }
    if !current.is_empty() {
        sections.push(Section {
            headings: Vec::new(),
            text: current,
        });
    }
    sections
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_group_under_the_cap() {
        let long = "x".repeat(SECTION_CHARS + 5);
        let text = format!("Title\n\nshort one\nline two\n\n{long}\n\nend");
        let paragraphs = paragraphs(&text);
        assert_eq!(paragraphs.len(), 4);
        let sections = group(&paragraphs);
        assert_eq!(sections.len(), 3);
        assert_eq!(sections[0].text, "Title\n\nshort one\nline two");
        assert_eq!(sections[1].text, long);
        assert_eq!(sections[2].text, "end");
    }
}
