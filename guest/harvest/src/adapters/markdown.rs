//! Markdown documents (notes, READMEs, exported pages).
//!
//! # What is read
//!
//! - **Front matter**: a first line `---`, `key: value` lines (values may be
//!   quoted; `[a, b]` and `- a` lines are lists), closed by `---` or `...`.
//!   `title` gives the title; `date` (or `created`, `created_at`,
//!   `published`) the item's time; `tags` (or `keywords`) are noted, as are
//!   the names of the other keys — the item has no field for them and they
//!   are not prose.
//! - **Sections** split at ATX headings (`#` … `######`, up to three spaces
//!   of indent, a closing `###` run dropped) and at setext headings (a
//!   one-line paragraph underlined with `===` or `---`). Each section keeps
//!   its **heading path**, outermost first: the text under `## Install`
//!   inside `# Guide` has headings `["Guide", "Install"]`.
//! - Fenced code (```` ``` ```` or `~~~`, closed by the same fence at least as
//!   long) is text: a `#` inside it is not a heading.
//! - The **title** is the front matter's, else the first level-1 heading.
//!
//! The Markdown itself is kept (emphasis, links, lists): it is what the
//! person wrote, and the distillation reads it well. The id is a hash of
//! the whole file.

use super::ParseError;
use super::common::{Tally, clean_text, content_id, document, no_text_note};
use super::time;
use crate::item::{Parsed, Section, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::Markdown;

/// The front matter of a document.
#[derive(Debug, Default)]
pub(crate) struct FrontMatter {
    /// `key: value` pairs in order (lists joined with `, `).
    pub(crate) entries: Vec<(String, String)>,
    /// Where the body starts (a byte offset).
    pub(crate) body_start: usize,
}

impl FrontMatter {
    /// The first value of any of `keys`.
    pub(crate) fn get(&self, keys: &[&str]) -> Option<&str> {
        self.entries
            .iter()
            .find(|(key, _)| keys.iter().any(|k| key.eq_ignore_ascii_case(k)))
            .map(|(_, value)| value.as_str())
            .filter(|value| !value.is_empty())
    }
}

/// Front matter at the start of `text`, when there is a closed block with
/// at least one `key: value` line.
pub(crate) fn front_matter(text: &str) -> Option<FrontMatter> {
    let mut lines = line_spans(text);
    let (_, first) = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let mut matter = FrontMatter::default();
    let mut list_key: Option<usize> = None;
    for (count, (start, line)) in lines.enumerate() {
        if count > 1000 {
            return None;
        }
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            if matter.entries.is_empty() {
                return None;
            }
            matter.body_start = start + line.len();
            return Some(matter);
        }
        if let Some(item) = trimmed.trim_start().strip_prefix("- ") {
            if let Some(index) = list_key
                && let Some((_, value)) = matter.entries.get_mut(index)
            {
                if !value.is_empty() {
                    value.push_str(", ");
                }
                value.push_str(unquote(item.trim()));
            }
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty()
            || line.starts_with([' ', '\t'])
            || !key
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        {
            continue;
        }
        let value = value.trim();
        let value = match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            Some(list) => list
                .split(',')
                .map(|v| unquote(v.trim()))
                .collect::<Vec<_>>()
                .join(", "),
            None => unquote(value).to_string(),
        };
        list_key = if value.is_empty() {
            Some(matter.entries.len())
        } else {
            None
        };
        matter.entries.push((key.to_string(), value));
    }
    None
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

/// Lines with their byte offsets (each line without its `\n`/`\r\n`).
pub(crate) fn line_spans(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0usize;
    text.split_inclusive('\n').map(move |raw| {
        let start = offset;
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        (start, line.strip_suffix('\r').unwrap_or(line))
    })
}

/// An ATX heading: its level and text.
pub(crate) fn atx_heading(line: &str) -> Option<(usize, String)> {
    let rest = line.trim_start_matches(' ');
    let indent = line.len() - rest.len();
    if indent > 3 {
        return None;
    }
    let after = rest.trim_start_matches('#');
    let level = rest.len() - after.len();
    if level == 0 || level > 6 {
        return None;
    }
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    let mut text = after.trim();
    // A closing run of `#` preceded by a space is not part of the text.
    let without_closing = text.trim_end_matches('#');
    if without_closing.is_empty() || without_closing.ends_with([' ', '\t']) {
        text = without_closing.trim_end();
    }
    Some((level, text.to_string()))
}

/// A fence line: its character and length.
pub(crate) fn fence(line: &str) -> Option<(char, usize)> {
    let rest = line.trim_start_matches(' ');
    let indent = line.len() - rest.len();
    if indent > 3 {
        return None;
    }
    let marker = rest.chars().next()?;
    if marker != '`' && marker != '~' {
        return None;
    }
    let length = rest.len() - rest.trim_start_matches(marker).len();
    if length < 3 {
        return None;
    }
    Some((marker, length))
}

/// Fence state across lines: whether a line is inside fenced code.
#[derive(Default)]
pub(crate) struct Fences {
    open: Option<(char, usize)>,
}

impl Fences {
    /// Feed a line; `true` when the line is part of a fence (its opening,
    /// body or closing), so not Markdown structure.
    pub(crate) fn in_code(&mut self, line: &str) -> bool {
        match (self.open, fence(line)) {
            (Some((marker, length)), Some((m, l))) if m == marker && l >= length => {
                let rest = line.trim_start().trim_start_matches(marker);
                if rest.trim().is_empty() {
                    self.open = None;
                }
                true
            }
            (Some(_), _) => true,
            (None, Some(found)) => {
                // A backtick fence's info string cannot contain a backtick.
                let info = line.trim_start().trim_start_matches(found.0);
                if found.0 == '`' && info.contains('`') {
                    return false;
                }
                self.open = Some(found);
                true
            }
            (None, None) => false,
        }
    }
}

fn is_setext_underline(line: &str) -> Option<usize> {
    let trimmed = line.trim();
    if line.len() - line.trim_start_matches(' ').len() > 3 || trimmed.is_empty() {
        return None;
    }
    if trimmed.chars().all(|c| c == '=') {
        return Some(1);
    }
    if trimmed.chars().all(|c| c == '-') {
        return Some(2);
    }
    None
}

/// A line that starts a list item, quote or table row: not a paragraph a
/// setext underline can turn into a heading.
fn is_block_start(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with("+ ")
        || t.starts_with('>')
        || t.starts_with('|')
        || t.split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// Markdown-looking text: front matter, a heading, fenced code, or three
/// lines of lists, quotes, links, emphasis or tables.
pub(crate) fn looks_like_markdown(head: &str) -> bool {
    if front_matter(head).is_some() {
        return true;
    }
    let mut fences = Fences::default();
    let mut signals = 0usize;
    let mut previous_text = false;
    for (_, line) in line_spans(head) {
        if fences.in_code(line) {
            if fence(line).is_some() {
                return true;
            }
            continue;
        }
        if atx_heading(line).is_some_and(|(_, text)| !text.is_empty()) {
            return true;
        }
        if previous_text && line.trim().len() >= 3 && line.trim().chars().all(|c| c == '=') {
            return true;
        }
        if is_block_start(line)
            || line.contains("](")
            || line.contains("**")
            || line.contains("|---")
        {
            signals += 1;
            if signals >= 3 {
                return true;
            }
        }
        previous_text = !line.trim().is_empty();
    }
    false
}

/// The sections of a Markdown body, and its first level-1 heading.
pub(crate) fn sections(body: &str) -> (Vec<Section>, Option<String>) {
    let mut sections = Vec::new();
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut first_h1: Option<String> = None;
    let mut fences = Fences::default();
    // Whether the last line of `current` is a one-line paragraph (a setext
    // underline would make it a heading).
    let mut single_paragraph_line = false;

    let flush = |current: &mut Vec<&str>, path: &[(usize, String)], sections: &mut Vec<Section>| {
        if let Some(text) = clean_text(&current.join("\n")) {
            sections.push(Section {
                headings: path.iter().map(|(_, h)| h.clone()).collect(),
                text,
            });
        }
        current.clear();
    };
    let enter = |level: usize,
                 text: String,
                 path: &mut Vec<(usize, String)>,
                 first_h1: &mut Option<String>| {
        while path.last().is_some_and(|(l, _)| *l >= level) {
            path.pop();
        }
        if level == 1 && first_h1.is_none() && !text.is_empty() {
            *first_h1 = Some(text.clone());
        }
        if !text.is_empty() {
            path.push((level, text));
        }
    };

    let mut previous_blank = true;
    for (_, line) in line_spans(body) {
        if fences.in_code(line) {
            current.push(line);
            single_paragraph_line = false;
            previous_blank = false;
            continue;
        }
        if let Some((level, text)) = atx_heading(line) {
            flush(&mut current, &path, &mut sections);
            enter(level, text, &mut path, &mut first_h1);
            single_paragraph_line = false;
            previous_blank = true;
            continue;
        }
        if single_paragraph_line && let Some(level) = is_setext_underline(line) {
            let heading = current.pop().unwrap_or("").trim().to_string();
            flush(&mut current, &path, &mut sections);
            enter(level, heading, &mut path, &mut first_h1);
            single_paragraph_line = false;
            previous_blank = true;
            continue;
        }
        let blank = line.trim().is_empty();
        single_paragraph_line =
            !blank && previous_blank && !is_block_start(line) && atx_heading(line).is_none();
        previous_blank = blank;
        current.push(line);
    }
    flush(&mut current, &path, &mut sections);
    (sections, first_h1)
}

/// Parse a Markdown document.
pub(crate) fn parse(text: &str) -> Result<Parsed, ParseError> {
    let mut tally = Tally::default();
    let mut notes = Vec::new();
    let matter = front_matter(text);
    let body = match &matter {
        Some(matter) => text.get(matter.body_start..).unwrap_or(""),
        None => text,
    };
    let (sections, first_h1) = sections(body);
    let mut title = None;
    let mut created_at = None;
    if let Some(matter) = &matter {
        title = matter.get(&["title"]).and_then(super::common::collapse);
        if let Some(date) = matter.get(&["date", "created", "created_at", "published"]) {
            created_at = time::from_text(date);
            if created_at.is_none() {
                tally.bump("unreadable timestamp(s) left empty");
            }
        }
        if let Some(tags) = matter.get(&["tags", "keywords"]) {
            notes.push(format!("front matter tags: {tags}"));
        }
        let known = [
            "title",
            "date",
            "created",
            "created_at",
            "published",
            "tags",
            "keywords",
        ];
        let others: Vec<&str> = matter
            .entries
            .iter()
            .map(|(key, _)| key.as_str())
            .filter(|key| !known.iter().any(|k| key.eq_ignore_ascii_case(k)))
            .collect();
        if !others.is_empty() {
            notes.push(format!(
                "front matter fields not imported: {}",
                others.join(", ")
            ));
        }
    }
    let title = title.or(first_h1);
    let id = content_id("markdown", &[text.as_bytes()]);
    let mut parsed = Parsed {
        format: FORMAT,
        items: Vec::new(),
        notes: Vec::new(),
    };
    if sections.is_empty() {
        parsed
            .notes
            .push(no_text_note("document", &id, title.as_deref()));
        return Ok(parsed);
    }
    let mut item_notes = tally.into_notes();
    item_notes.extend(notes);
    parsed.items.push(document(
        id, FORMAT, title, created_at, sections, item_notes,
    ));
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_and_fences() {
        let (sections, h1) = sections(
            "intro\n# Guide\ntext\n```\n# not a heading\n```\n## Install ##\nrun it\n### Deep\nx\n# Other\ny",
        );
        assert_eq!(h1.as_deref(), Some("Guide"));
        let heads: Vec<Vec<String>> = sections.iter().map(|s| s.headings.clone()).collect();
        assert_eq!(
            heads,
            vec![
                vec![],
                vec!["Guide".to_string()],
                vec!["Guide".to_string(), "Install".to_string()],
                vec![
                    "Guide".to_string(),
                    "Install".to_string(),
                    "Deep".to_string()
                ],
                vec!["Other".to_string()],
            ]
        );
        assert_eq!(sections[1].text, "text\n```\n# not a heading\n```");
    }

    #[test]
    fn setext_headings_only_under_one_line_paragraphs() {
        let (sections, h1) = sections("Title\n=====\nbody\n\n- item\n---\nafter");
        assert_eq!(h1.as_deref(), Some("Title"));
        assert_eq!(sections.len(), 1);
        assert_eq!(sections[0].text, "body\n\n- item\n---\nafter");
    }

    #[test]
    fn front_matter_lists_and_quotes() {
        let matter =
            front_matter("---\ntitle: \"Hi: there\"\ntags:\n  - a\n  - b\nx: [c, 'd']\n---\nbody")
                .unwrap();
        assert_eq!(matter.get(&["title"]), Some("Hi: there"));
        assert_eq!(matter.get(&["tags"]), Some("a, b"));
        assert_eq!(matter.get(&["x"]), Some("c, d"));
        assert!(front_matter("---\nno close\n").is_none());
    }
}
