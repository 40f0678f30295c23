//! Web pages (and the HTML inside other exports) → text.
//!
//! # How
//!
//! [`html5gum`] tokenizes (WHATWG-compliant, fuzzed, no tree, no
//! recursion; it switches to raw-text states after `<script>`, `<style>`,
//! `<title>` so their contents never look like markup), and a small
//! renderer here turns the token stream into text:
//!
//! - **Dropped subtrees:** `script`, `style`, `noscript`, `template`,
//!   `svg`, `canvas`, `iframe`, `object`, `head` (but its `<title>`), and
//!   the page chrome — `nav`, `aside`, `footer`, `form`, `button`,
//!   `dialog`, a `header` outside `article`/`main` — and anything marked
//!   `hidden`, `aria-hidden="true"` or `display:none`. Dropped chrome is
//!   noted once.
//! - **Blocks** (`p`, `div`, `li`, `tr`, `h1`…, `pre`, …) become line
//!   breaks, paragraphs blank lines; inline whitespace collapses to one
//!   space except in `pre`; list items get `- ` (or `1. ` in `ol`), table
//!   cells ` | `. Entities are decoded by the tokenizer; `&nbsp;` becomes a
//!   space.
//! - **Headings give sections**: the text under each `h1`…`h6`, with the
//!   heading path (outer first) — or, for the HTML inside a chat message,
//!   stay inline as their own paragraph.
//! - **Title** from `<title>` (else the first `h1`).
//! - Images are counted in a note (their `alt` text is not content).
//!
//! The open-element stack is capped at [`MAX_DEPTH`]; unclosed `p`, `li`,
//! `td`… close themselves the way browsers do, so tag soup does not grow
//! it. A page that is not UTF-8 is decoded with the charset its `<meta>`
//! names (else Windows-1252) through `encoding_rs`.

use std::borrow::Cow;

use html5gum::{DefaultEmitter, Token, Tokenizer};

use super::ParseError;
use super::common::{Tally, clean_text, content_id, document, malformed, no_text_note};
use crate::item::{Parsed, Section, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::Html;

/// The deepest stack of open elements kept; deeper elements are read as
/// inline, as if they had no tag.
const MAX_DEPTH: usize = 256;

/// Parse a web page into one document.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    let html = decode(bytes);
    if super::detect::as_text(html.as_bytes()).is_none() {
        return Err(malformed(FORMAT, "binary data, not HTML"));
    }
    let rendered = render(&html, false);
    let mut parsed = Parsed {
        format: FORMAT,
        items: Vec::new(),
        notes: Vec::new(),
    };
    let id = content_id("html", &[bytes]);
    let title = rendered.title.clone();
    if rendered.sections.is_empty() {
        parsed
            .notes
            .push(no_text_note("page", &id, title.as_deref()));
        return Ok(parsed);
    }
    let notes = rendered.notes();
    parsed
        .items
        .push(document(id, FORMAT, title, None, rendered.sections, notes));
    Ok(parsed)
}

/// The page as text: UTF-8 as is, else the `<meta>` charset, else
/// Windows-1252 (what browsers assume).
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let head = String::from_utf8_lossy(super::detect::head(bytes, 4096)).to_ascii_lowercase();
    let label = head.split_once("charset=").map(|(_, after)| {
        after
            .trim_start_matches(['"', '\''])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'))
            .collect::<String>()
    });
    let encoding = label
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
        .unwrap_or(encoding_rs::WINDOWS_1252);
    let (text, _, _) = encoding.decode(bytes);
    Cow::Owned(text.into_owned())
}

/// What the renderer made of a page.
#[derive(Debug, Default)]
pub(crate) struct Rendered {
    /// `<title>`, else the first `h1`.
    pub(crate) title: Option<String>,
    /// The text, by heading (one section with no headings when `inline`).
    pub(crate) sections: Vec<Section>,
    /// Images seen.
    pub(crate) images: usize,
    /// Whether page chrome (navigation, footers, forms) was dropped.
    pub(crate) dropped_chrome: bool,
}

impl Rendered {
    /// The notes for what was left out.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut tally = Tally::default();
        tally.add("image(s) left out", self.images);
        let mut notes = tally.into_notes();
        if self.dropped_chrome {
            notes.push("page navigation, headers, footers and forms left out".into());
        }
        notes
    }

    /// All the text in one string (sections blank-line joined).
    pub(crate) fn into_text(self) -> Option<String> {
        let texts: Vec<String> = self.sections.into_iter().map(|s| s.text).collect();
        clean_text(&texts.join("\n\n"))
    }
}

/// Render HTML to text. `inline`: headings stay in the text as paragraphs
/// (for the HTML of a chat answer) instead of starting sections.
pub(crate) fn render(html: &str, inline: bool) -> Rendered {
    let mut renderer = Renderer::new(inline);
    let mut emitter = DefaultEmitter::default();
    emitter.naively_switch_states(true);
    for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
        renderer.push(token);
    }
    renderer.finish()
}

/// A convenience: the text of an HTML fragment, headings inline.
pub(crate) fn fragment_text(html: &str) -> (Option<String>, usize) {
    let rendered = render(html, true);
    let images = rendered.images;
    (rendered.into_text(), images)
}

#[derive(Debug)]
struct Frame {
    name: String,
    skip: bool,
    /// For `ol`: the next item number.
    counter: usize,
    /// For `tr`: cells seen.
    cells: usize,
}

/// Elements whose whole subtree is not text.
const SKIP: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "head", "math",
    "select", "textarea", "title",
];
/// Page chrome, dropped and noted.
const CHROME: &[&str] = &["nav", "aside", "footer", "form", "button", "dialog", "menu"];
/// Elements that never have content.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen",
];
/// Elements that start and end a paragraph (blank line around).
const PARAGRAPH: &[&str] = &[
    "p",
    "blockquote",
    "pre",
    "table",
    "ul",
    "ol",
    "dl",
    "figure",
    "section",
    "article",
    "main",
    "address",
    "hr",
    "details",
    "fieldset",
];
/// Elements that start and end a line.
const LINE: &[&str] = &[
    "div",
    "li",
    "tr",
    "dt",
    "dd",
    "figcaption",
    "caption",
    "summary",
    "header",
    "center",
    "legend",
    "option",
];

/// The token-stream renderer (see the module docs).
pub(crate) struct Renderer {
    inline: bool,
    stack: Vec<Frame>,
    skipping: usize,
    out: String,
    pending_space: bool,
    pending_newlines: usize,
    pre: usize,
    heading: Option<(usize, String)>,
    path: Vec<(usize, String)>,
    sections: Vec<Section>,
    title: Option<String>,
    in_title: bool,
    title_buffer: String,
    first_h1: Option<String>,
    images: usize,
    dropped_chrome: bool,
}

impl Renderer {
    /// A renderer; `inline`: headings stay in the text.
    pub(crate) fn new(inline: bool) -> Renderer {
        Renderer {
            inline,
            stack: Vec::new(),
            skipping: 0,
            out: String::new(),
            pending_space: false,
            pending_newlines: 0,
            pre: 0,
            heading: None,
            path: Vec::new(),
            sections: Vec::new(),
            title: None,
            in_title: false,
            title_buffer: String::new(),
            first_h1: None,
            images: 0,
            dropped_chrome: false,
        }
    }

    /// Feed one token.
    pub(crate) fn push(&mut self, token: Token) {
        match token {
            Token::StartTag(tag) => {
                let name = String::from_utf8_lossy(&tag.name).to_ascii_lowercase();
                let attribute = |key: &str| {
                    tag.attributes
                        .get(key.as_bytes())
                        .map(|value| String::from_utf8_lossy(value).to_ascii_lowercase())
                };
                let hidden = tag.attributes.contains_key(b"hidden".as_slice())
                    || attribute("aria-hidden").is_some_and(|v| v == "true")
                    || attribute("style").is_some_and(|style| {
                        let compact: String =
                            style.chars().filter(|c| !c.is_whitespace()).collect();
                        compact.contains("display:none") || compact.contains("visibility:hidden")
                    });
                self.start(&name, hidden, tag.self_closing);
            }
            Token::EndTag(tag) => {
                let name = String::from_utf8_lossy(&tag.name).to_ascii_lowercase();
                self.end(&name);
            }
            Token::String(text) => {
                let text = String::from_utf8_lossy(&text);
                self.text(&text);
            }
            Token::Comment(_) | Token::Doctype(_) | Token::Error(_) => {}
        }
    }

    fn start(&mut self, name: &str, hidden: bool, self_closing: bool) {
        if name == "title" && !self.in_title && self.title.is_none() && self.skipping_only_head() {
            self.in_title = true;
            self.title_buffer.clear();
            return;
        }
        if self.skipping > 0 {
            if !VOID.contains(&name) && !self_closing && self.stack.len() < MAX_DEPTH {
                self.stack.push(Frame {
                    name: name.to_string(),
                    skip: true,
                    counter: 0,
                    cells: 0,
                });
                self.skipping += 1;
            }
            return;
        }
        // Elements that close an open one of their kind, as browsers do.
        match name {
            "p" | "li" | "dt" | "dd" | "option" => self.close_implied(name),
            "tr" => self.close_implied("tr"),
            "td" | "th" => {
                self.close_implied("td");
                self.close_implied("th");
            }
            _ => {}
        }
        if name == "img" {
            self.images += 1;
        }
        if name == "br" {
            self.line_break();
            return;
        }
        if name == "hr" {
            self.block(2);
            return;
        }
        if VOID.contains(&name) || self_closing {
            return;
        }
        let chrome = CHROME.contains(&name)
            || (name == "header"
                && !self
                    .stack
                    .iter()
                    .any(|f| f.name == "article" || f.name == "main"));
        let skip = hidden || SKIP.contains(&name) || chrome;
        if self.stack.len() >= MAX_DEPTH {
            return;
        }
        if chrome {
            self.dropped_chrome = true;
        }
        let frame = Frame {
            name: name.to_string(),
            skip,
            counter: 1,
            cells: 0,
        };
        if skip {
            self.skipping += 1;
            self.stack.push(frame);
            return;
        }
        if let Some(level) = heading_level(name) {
            self.flush_heading_text();
            self.heading = Some((level, String::new()));
        } else if PARAGRAPH.contains(&name) {
            self.block(2);
        } else if LINE.contains(&name) {
            self.block(1);
        }
        match name {
            "pre" => self.pre += 1,
            "li" => {
                let marker = match self
                    .stack
                    .iter_mut()
                    .rev()
                    .find(|f| f.name == "ol" || f.name == "ul")
                {
                    Some(list) if list.name == "ol" => {
                        let n = list.counter;
                        list.counter += 1;
                        format!("{n}. ")
                    }
                    _ => "- ".to_string(),
                };
                self.write_raw(&marker);
            }
            "td" | "th" => {
                if let Some(row) = self.stack.iter_mut().rev().find(|f| f.name == "tr") {
                    row.cells += 1;
                    if row.cells > 1 {
                        self.write_raw(" | ");
                    }
                }
            }
            _ => {}
        }
        self.stack.push(frame);
    }

    /// Whether everything being skipped is `head` (a `<title>` there is
    /// still the title).
    fn skipping_only_head(&self) -> bool {
        self.skipping == 0
            || self
                .stack
                .iter()
                .filter(|f| f.skip)
                .all(|f| f.name == "head")
    }

    /// Close an open `name` that a new `name` implicitly ends (only when
    /// it is the nearest open element of its list or row).
    fn close_implied(&mut self, name: &str) {
        let boundary =
            |f: &Frame| matches!(f.name.as_str(), "ul" | "ol" | "table" | "dl" | "select");
        let mut found = None;
        for (at, frame) in self.stack.iter().enumerate().rev() {
            if frame.name == name {
                found = Some(at);
                break;
            }
            if boundary(frame) || (name == "p" && frame.name != "span" && !is_inline(&frame.name)) {
                break;
            }
        }
        if let Some(at) = found {
            self.pop_to(at);
        }
    }

    fn end(&mut self, name: &str) {
        if name == "title" && self.in_title {
            self.in_title = false;
            let title = self
                .title_buffer
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if !title.is_empty() {
                self.title = Some(title);
            }
            return;
        }
        if name == "br" {
            // `</br>` is read as `<br>` by browsers.
            if self.skipping == 0 {
                self.line_break();
            }
            return;
        }
        if let Some(at) = self.stack.iter().rposition(|f| f.name == name) {
            self.pop_to(at);
        }
    }

    /// Pop the stack down to (and including) index `at`.
    fn pop_to(&mut self, at: usize) {
        while self.stack.len() > at {
            let Some(frame) = self.stack.pop() else { break };
            self.closed(&frame);
        }
    }

    fn closed(&mut self, frame: &Frame) {
        if frame.skip {
            self.skipping = self.skipping.saturating_sub(1);
            return;
        }
        if let Some(level) = heading_level(&frame.name) {
            self.finish_heading(level);
            return;
        }
        if frame.name == "pre" {
            self.pre = self.pre.saturating_sub(1);
        }
        if PARAGRAPH.contains(&frame.name.as_str()) {
            self.block(2);
        } else if LINE.contains(&frame.name.as_str()) {
            self.block(1);
        }
    }

    fn text(&mut self, text: &str) {
        if self.in_title {
            if self.title_buffer.len() < 4096 {
                self.title_buffer.push_str(text);
            }
            return;
        }
        if self.skipping > 0 {
            return;
        }
        if let Some((_, heading)) = &mut self.heading {
            heading.push_str(text);
            return;
        }
        for c in text.chars() {
            let c = if c == '\u{a0}' { ' ' } else { c };
            if self.pre > 0 {
                if c == '\r' {
                    continue;
                }
                self.emit_pending();
                self.out.push(c);
                continue;
            }
            if c.is_whitespace() {
                self.pending_space = true;
                continue;
            }
            self.emit_pending();
            if self.pending_space {
                if !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
                    self.out.push(' ');
                }
                self.pending_space = false;
            }
            self.out.push(c);
        }
    }

    /// Text the renderer adds (list markers, cell separators).
    fn write_raw(&mut self, text: &str) {
        self.emit_pending();
        self.pending_space = false;
        self.out.push_str(text);
    }

    fn emit_pending(&mut self) {
        if self.pending_newlines > 0 {
            if !self.out.is_empty() {
                let have = self.out.chars().rev().take_while(|c| *c == '\n').count();
                let trimmed_len = self.out.trim_end_matches(' ').len();
                self.out.truncate(trimmed_len);
                for _ in have..self.pending_newlines {
                    self.out.push('\n');
                }
            }
            self.pending_newlines = 0;
            self.pending_space = false;
        }
    }

    fn block(&mut self, newlines: usize) {
        self.pending_newlines = self.pending_newlines.max(newlines);
        self.pending_space = false;
    }

    fn line_break(&mut self) {
        if let Some((_, heading)) = &mut self.heading {
            heading.push(' ');
            return;
        }
        self.emit_pending();
        let trimmed_len = self.out.trim_end_matches(' ').len();
        self.out.truncate(trimmed_len);
        self.out.push('\n');
        self.pending_space = false;
    }

    /// A heading opened inside another (bad markup): end the first.
    fn flush_heading_text(&mut self) {
        if let Some((level, _)) = &self.heading {
            let level = *level;
            self.finish_heading(level);
        }
    }

    fn finish_heading(&mut self, level: usize) {
        let Some((_, text)) = self.heading.take() else {
            return;
        };
        let heading = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if heading.is_empty() {
            return;
        }
        let heading_level = level;
        if heading_level == 1 && self.first_h1.is_none() {
            self.first_h1 = Some(heading.clone());
        }
        if self.inline {
            self.block(2);
            self.write_raw(&heading);
            self.block(2);
            return;
        }
        self.flush_section();
        while self.path.last().is_some_and(|(l, _)| *l >= heading_level) {
            self.path.pop();
        }
        self.path.push((heading_level, heading));
    }

    fn flush_section(&mut self) {
        let text = std::mem::take(&mut self.out);
        self.pending_newlines = 0;
        self.pending_space = false;
        if let Some(text) = tidy(&text) {
            self.sections.push(Section {
                headings: self.path.iter().map(|(_, h)| h.clone()).collect(),
                text,
            });
        }
    }

    /// The text rendered.
    pub(crate) fn finish(mut self) -> Rendered {
        self.flush_heading_text();
        self.flush_section();
        if self.in_title {
            let title = self
                .title_buffer
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if !title.is_empty() {
                self.title = Some(title);
            }
        }
        Rendered {
            title: self.title.or(self.first_h1),
            sections: self.sections,
            images: self.images,
            dropped_chrome: self.dropped_chrome,
        }
    }
}

fn heading_level(name: &str) -> Option<usize> {
    match name {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

fn is_inline(name: &str) -> bool {
    matches!(
        name,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "cite"
            | "code"
            | "data"
            | "dfn"
            | "em"
            | "i"
            | "kbd"
            | "mark"
            | "q"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "u"
            | "var"
            | "font"
            | "label"
    )
}

/// Trim each line's trailing spaces and collapse runs of blank lines.
fn tidy(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0usize;
    for line in text.split('\n') {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run == 1 && !out.is_empty() {
                out.push('\n');
            }
            continue;
        }
        blank_run = 0;
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    clean_text(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_lists_and_skipped_parts() {
        let rendered = render(
            "<html><head><title> A  page </title><style>p{}</style></head><body>\
             <nav>Home | About</nav><h1>Top</h1><p>One  <b>two</b>\n three.</p>\
             <ul><li>first<li>second</ul><script>alert(1)</script>\
             <h2>Sub</h2><p>Body&nbsp;text<br>next line</p><img src=x alt=y>\
             <ol><li>a</li><li>b</li></ol><table><tr><td>x<td>y</tr></table></body></html>",
            false,
        );
        assert_eq!(rendered.title.as_deref(), Some("A page"));
        assert_eq!(rendered.sections.len(), 2);
        assert_eq!(rendered.sections[0].headings, vec!["Top"]);
        assert_eq!(
            rendered.sections[0].text,
            "One two three.\n\n- first\n- second"
        );
        assert_eq!(rendered.sections[1].headings, vec!["Top", "Sub"]);
        assert_eq!(
            rendered.sections[1].text,
            "Body text\nnext line\n\n1. a\n2. b\n\nx | y"
        );
        assert_eq!(rendered.images, 1);
        assert!(rendered.dropped_chrome);
    }

    #[test]
    fn inline_headings_and_pre() {
        let (text, _) = fragment_text("<h2>Title</h2><p>a</p><pre>  x\n    y</pre>");
        assert_eq!(text.as_deref(), Some("Title\n\na\n\n  x\n    y"));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let html = "<div>".repeat(100_000) + "deep" + &"</div>".repeat(100_000);
        let rendered = render(&html, false);
        assert_eq!(rendered.sections[0].text, "deep");
    }
}
