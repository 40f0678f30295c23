//! Gemini: Google Takeout's "Gemini Apps" activity (`My Activity/Gemini
//! Apps/MyActivity.json`, or the `MyActivity.html` page of the same).
//!
//! # The shape
//!
//! Takeout exports an **activity log**, newest first, not transcripts:
//!
//! ```text
//! [ { "header": "Gemini Apps",          ← "Bard" in old exports, localised
//!     "title": "Prompted How do I …",  ← the prompt, after "Prompted "
//!     "time": "2024-05-01T09:30:00.123Z",
//!     "products": ["Gemini Apps"],
//!     "safeHtmlItem": [ {"html": "<p>The answer…</p>"} ],  ← 1–4 chunks
//!     "details": [ {"url": "https://gemini.google.com/app/8f3c…"} ],  ← newer
//!     "attachedFiles": ["notes.pdf"], "subtitles": [ … ] } ]
//! ```
//!
//! Other records are activity, not dialogue: `Used Gemini Apps`, `Created
//! Gemini Canvas titled …`, `Gave feedback: …` (no answer) — left out and
//! counted. A record whose title lacks the English `Prompted ` prefix but
//! that has an answer (a localised export) keeps its whole title as the
//! prompt, noted.
//!
//! # Conversations: how records group, and their ids
//!
//! - A record whose `details` name a conversation URL
//!   (`gemini.google.com/app/<id>`) belongs to that conversation; its item
//!   id is `gemini-app-<id>`: Google's own id, stable across exports.
//! - Older records have no conversation id at all. They are sorted by time
//!   and grouped: **a record within 30 minutes of the previous one** (of the
//!   records without a URL) continues its conversation, a longer gap starts
//!   a new one. The id of such a group is a hash of its *first* record's
//!   time (to the second) and prompt — stable when a later export adds
//!   turns at the end, and the same whether the JSON or the HTML page was
//!   exported. The grouping is a heuristic (two topics within half an hour
//!   merge); the ids only change if Takeout's retention drops the group's
//!   first record.
//!
//! Each record gives a user message (the prompt) and an assistant message
//! (the answer's HTML as text), both at the record's time. Attached files
//! are not in the export: their count is noted.
//!
//! # The HTML page
//!
//! `MyActivity.html` holds the same records as `outer-cell` blocks: a
//! `header-cell` with the product, and a `content-cell` of `Prompted
//! …<br>Mar 5, 2024, 10:15:30 AM PST<br>` then the answer's HTML. The date
//! is in the account's language and zone: English dates with a common zone
//! abbreviation are read, any other is left empty (noted). Prefer the JSON.

use std::collections::HashMap;

use chrono::DateTime;
use html5gum::{DefaultEmitter, Token, Tokenizer};
use serde::Deserialize;

use super::ParseError;
use super::common::{
    LaxText, RawTime, TITLE_CHARS, Tally, clean_text, content_id, conversation, element_error,
    first_json_byte, lax_string, lax_vec, malformed, raw_elements, short_title,
};
use super::html::{Renderer, fragment_text};
use super::time;
use crate::item::{Message, Parsed, Role, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::Gemini;

/// Records further apart than this start a new conversation.
const GAP_SECONDS: i64 = 30 * 60;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Record {
    #[serde(deserialize_with = "lax_string")]
    header: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    title: Option<String>,
    time: RawTime,
    #[serde(deserialize_with = "lax_vec")]
    products: Vec<LaxText>,
    #[serde(rename = "safeHtmlItem", deserialize_with = "lax_vec")]
    safe_html_item: Vec<HtmlItem>,
    #[serde(deserialize_with = "lax_vec")]
    details: Vec<Detail>,
    #[serde(rename = "attachedFiles", deserialize_with = "lax_vec")]
    attached_files: Vec<serde::de::IgnoredAny>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct HtmlItem {
    #[serde(deserialize_with = "lax_string")]
    html: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Detail {
    #[serde(deserialize_with = "lax_string")]
    url: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    name: Option<String>,
}

/// One prompt/answer record, from the JSON or the HTML page.
#[derive(Debug, Default)]
struct Activity {
    /// The title as written (`Prompted …`, `Used Gemini Apps`).
    title: String,
    /// The product label.
    product: String,
    /// The answer as text.
    answer: Option<String>,
    /// ISO-8601 UTC.
    time: Option<String>,
    /// Google's conversation id, when the record names one.
    conversation: Option<String>,
    attachments: usize,
    images: usize,
    unreadable_time: bool,
}

/// Parse a Gemini activity export (JSON, or the HTML page).
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    match first_json_byte(bytes) {
        Some(b'[' | b'{') => parse_json(bytes),
        _ => {
            let text = std::str::from_utf8(bytes).map_err(|_| {
                malformed(FORMAT, "neither JSON nor an HTML activity page (not UTF-8)")
            })?;
            parse_html(text)
        }
    }
}

fn parse_json(bytes: &[u8]) -> Result<Parsed, ParseError> {
    let elements = raw_elements(bytes, FORMAT, "Gemini activity records")?;
    let mut activities = Vec::new();
    let mut notes = Vec::new();
    let mut first_error = None;
    for (index, raw) in elements.iter().enumerate() {
        match serde_json::from_str::<Record>(raw.get()) {
            Ok(record) => {
                if record.title.is_none() && record.header.is_none() {
                    notes.push(format!("record #{index} skipped: no `title` or `header`"));
                    first_error.get_or_insert(format!("record #{index}: no `title` or `header`"));
                    continue;
                }
                activities.push(from_record(record));
            }
            Err(error) => {
                let why = element_error(&error);
                notes.push(format!("record #{index} skipped: {why}"));
                first_error.get_or_insert(format!("record #{index}: {why}"));
            }
        }
    }
    if activities.is_empty()
        && let Some(why) = first_error
    {
        return Err(malformed(
            FORMAT,
            format!("no Gemini activity record could be read ({why})"),
        ));
    }
    Ok(group(activities, notes))
}

fn from_record(record: Record) -> Activity {
    let html: Vec<&str> = record
        .safe_html_item
        .iter()
        .filter_map(|item| item.html.as_deref())
        .collect();
    let (answer, images) = if html.is_empty() {
        (None, 0)
    } else {
        fragment_text(&html.join("\n"))
    };
    let mut scratch = Tally::default();
    let time = record.time.resolve(&mut scratch);
    let unreadable_time = !scratch.into_notes().is_empty();
    let product = record
        .header
        .clone()
        .or_else(|| record.products.iter().find_map(|p| p.0.clone()))
        .unwrap_or_default();
    let gemini_product = record
        .products
        .iter()
        .any(|p| p.0.as_deref().is_some_and(is_gemini));
    Activity {
        title: record.title.unwrap_or_default(),
        product: if gemini_product && !is_gemini(&product) {
            "Gemini Apps".into()
        } else {
            product
        },
        answer,
        time,
        conversation: record.details.iter().find_map(|detail| {
            detail
                .url
                .as_deref()
                .or(detail.name.as_deref())
                .and_then(conversation_id)
        }),
        attachments: record.attached_files.len(),
        images,
        unreadable_time,
    }
}

fn is_gemini(label: &str) -> bool {
    let lower = label.to_lowercase();
    lower.contains("gemini") || lower.contains("bard")
}

/// `https://gemini.google.com/app/8f3c…` → `8f3c…`.
fn conversation_id(url: &str) -> Option<String> {
    let (_, after) = url.split_once("gemini.google.com/app/")?;
    let id: String = after
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if id.is_empty() { None } else { Some(id) }
}

struct Group {
    id: String,
    activities: Vec<Activity>,
    last: Option<i64>,
}

fn epoch(iso: Option<&str>) -> Option<i64> {
    DateTime::parse_from_rfc3339(iso?)
        .ok()
        .map(|t| t.timestamp())
}

/// Records → conversations (see the module docs).
fn group(mut activities: Vec<Activity>, mut notes: Vec<String>) -> Parsed {
    let mut tally = Tally::default();
    // Takeout writes newest first; a stable sort by time keeps the order of
    // records at the same second.
    activities.reverse();
    activities.sort_by(|a, b| a.time.cmp(&b.time));

    let mut groups: Vec<Group> = Vec::new();
    let mut by_conversation: HashMap<String, usize> = HashMap::new();
    let mut open_window: Option<usize> = None;
    for activity in activities {
        if !is_gemini(&activity.product) {
            tally.bump("activity record(s) of other Google products left out");
            continue;
        }
        let Some(prompt) = prompt_of(&activity, &mut tally) else {
            tally.bump("activity record(s) without a prompt left out (used, created, feedback)");
            continue;
        };
        let at = epoch(activity.time.as_deref());
        if let Some(id) = activity.conversation.clone() {
            let index = *by_conversation.entry(id.clone()).or_insert_with(|| {
                groups.push(Group {
                    id: format!("gemini-app-{id}"),
                    activities: Vec::new(),
                    last: None,
                });
                groups.len() - 1
            });
            if let Some(group) = groups.get_mut(index) {
                group.last = at.or(group.last);
                group.activities.push(activity);
            }
            continue;
        }
        let continues = match (open_window.and_then(|i| groups.get(i)), at) {
            (Some(group), Some(at)) => group.last.is_some_and(|last| at - last <= GAP_SECONDS),
            _ => false,
        };
        if !continues {
            let id = content_id(
                "gemini",
                &[
                    activity.time.as_deref().unwrap_or("").as_bytes(),
                    prompt.as_bytes(),
                ],
            );
            groups.push(Group {
                id,
                activities: Vec::new(),
                last: None,
            });
            open_window = Some(groups.len() - 1);
        }
        if let Some(group) = open_window.and_then(|i| groups.get_mut(i)) {
            group.last = at;
            group.activities.push(activity);
        }
    }

    let mut items = Vec::new();
    for group in groups {
        let mut item_tally = Tally::default();
        let mut messages = Vec::new();
        let mut title = None;
        for activity in group.activities {
            let mut scratch = Tally::default();
            let Some(prompt) = prompt_of(&activity, &mut scratch) else {
                continue;
            };
            if activity.unreadable_time {
                item_tally.bump("unreadable timestamp(s) left empty");
            }
            if title.is_none() {
                title = short_title(&prompt, TITLE_CHARS);
            }
            item_tally.add("attached file(s) not in the export", activity.attachments);
            item_tally.add("image(s) in answers left out", activity.images);
            messages.push(Message {
                role: Role::User,
                text: prompt,
                timestamp: activity.time.clone(),
            });
            match activity.answer.and_then(|a| clean_text(&a)) {
                Some(answer) => messages.push(Message {
                    role: Role::Assistant,
                    text: answer,
                    timestamp: activity.time,
                }),
                None => item_tally.bump("prompt(s) with no answer in the export"),
            }
        }
        if messages.is_empty() {
            continue;
        }
        items.push(conversation(
            group.id,
            FORMAT,
            title,
            None,
            messages,
            item_tally.into_notes(),
        ));
    }
    notes.extend(tally.into_notes());
    if items.is_empty() && notes.is_empty() {
        notes.push("the export holds no Gemini prompts".into());
    }
    Parsed {
        format: FORMAT,
        items,
        notes,
    }
}

/// The prompt of a record: the title after `Prompted `; the whole title of
/// a record that has an answer (a localised export); else none.
fn prompt_of(activity: &Activity, tally: &mut Tally) -> Option<String> {
    let title = activity.title.replace('\u{a0}', " ");
    let title = title.trim();
    if let Some(prompt) = title.strip_prefix("Prompted ") {
        return clean_text(prompt);
    }
    if activity
        .answer
        .as_deref()
        .is_some_and(|a| !a.trim().is_empty())
    {
        let prompt = clean_text(title)?;
        tally.bump("prompt(s) without the English 'Prompted' prefix taken whole");
        return Some(prompt);
    }
    None
}

#[derive(PartialEq, Clone, Copy)]
enum Cell {
    None,
    Header,
    Content,
    Ignored,
}

/// The Takeout HTML activity page (see the module docs).
fn parse_html(html: &str) -> Result<Parsed, ParseError> {
    let mut emitter = DefaultEmitter::default();
    emitter.naively_switch_states(true);
    let mut activities = Vec::new();
    let mut depth = 0usize;
    let mut outer_depth: Option<usize> = None;
    let mut cell = Cell::None;
    let mut cell_depth = 0usize;
    let mut seen_content = false;
    let mut phase = 0usize;
    let mut header = String::new();
    let mut lines = [String::new(), String::new()];
    let mut answer: Option<Renderer> = None;
    let mut found_cells = false;

    let finish = |header: &mut String,
                  lines: &mut [String; 2],
                  answer: &mut Option<Renderer>,
                  activities: &mut Vec<Activity>| {
        let rendered = answer.take().map(Renderer::finish);
        let images = rendered.as_ref().map_or(0, |r| r.images);
        let answer_text = rendered.and_then(super::html::Rendered::into_text);
        let date = lines[1].trim().to_string();
        let time = time::from_takeout_english(&date);
        activities.push(Activity {
            title: std::mem::take(&mut lines[0]).trim().to_string(),
            product: std::mem::take(header).trim().to_string(),
            answer: answer_text,
            unreadable_time: time.is_none() && !date.is_empty(),
            time,
            conversation: None,
            attachments: 0,
            images,
        });
        lines[1].clear();
    };

    for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
        match &token {
            Token::StartTag(tag) if tag.name.as_slice() == b"div" => {
                depth += 1;
                let class = tag
                    .attributes
                    .get(b"class".as_slice())
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .unwrap_or_default();
                if class.contains("outer-cell") && outer_depth.is_none() {
                    outer_depth = Some(depth);
                    found_cells = true;
                    seen_content = false;
                    continue;
                }
                if outer_depth.is_some() && cell == Cell::None {
                    if class.contains("header-cell") {
                        cell = Cell::Header;
                        cell_depth = depth;
                        continue;
                    }
                    if class.contains("content-cell") {
                        cell_depth = depth;
                        if class.contains("caption") || class.contains("text-right") || seen_content
                        {
                            cell = Cell::Ignored;
                        } else {
                            cell = Cell::Content;
                            seen_content = true;
                            phase = 0;
                        }
                        continue;
                    }
                }
            }
            Token::EndTag(tag) if tag.name.as_slice() == b"div" => {
                if cell != Cell::None && depth == cell_depth {
                    cell = Cell::None;
                } else if outer_depth == Some(depth) {
                    outer_depth = None;
                    cell = Cell::None;
                    finish(&mut header, &mut lines, &mut answer, &mut activities);
                }
                depth = depth.saturating_sub(1);
                if cell == Cell::Content
                    && let Some(renderer) = answer.as_mut()
                {
                    renderer.push(token);
                }
                continue;
            }
            _ => {}
        }
        match cell {
            Cell::Header => {
                if let Token::String(text) = &token {
                    header.push_str(&String::from_utf8_lossy(text));
                }
            }
            Cell::Content if phase < 2 => match &token {
                Token::StartTag(tag) if tag.name.as_slice() == b"br" => {
                    phase += 1;
                    if phase == 2 {
                        answer = Some(Renderer::new(true));
                    }
                }
                Token::String(text) => {
                    if let Some(line) = lines.get_mut(phase)
                        && line.len() < (1 << 20)
                    {
                        line.push_str(&String::from_utf8_lossy(text));
                    }
                }
                _ => {}
            },
            Cell::Content => {
                if let Some(renderer) = answer.as_mut() {
                    renderer.push(token);
                }
            }
            Cell::None | Cell::Ignored => {}
        }
    }
    if outer_depth.is_some() {
        finish(&mut header, &mut lines, &mut answer, &mut activities);
    }
    if !found_cells {
        return Err(malformed(
            FORMAT,
            "an HTML page without Takeout activity cells (`outer-cell`)",
        ));
    }
    let mut parsed = group(activities, Vec::new());
    parsed
        .notes
        .insert(0, "read from the Takeout HTML page; the JSON export keeps more (conversation ids, attachments)".into());
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversation_ids_from_urls() {
        assert_eq!(
            conversation_id("https://gemini.google.com/app/8f3c2a1b?hl=en").as_deref(),
            Some("8f3c2a1b")
        );
        assert_eq!(conversation_id("https://example.com/app/x"), None);
    }
}
