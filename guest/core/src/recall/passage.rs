//! The text of a stored memory, as each reader needs it.
//!
//! A frame's content carries storage prefixes: an `[hm …]` block and a
//! `[mind-… ]` tag (an event's `[YYYY-MM-DD]` after it). Three readers want
//! the text without them, each a little differently:
//!
//! - the model, in the recall block: [`display_text`] (and the tag itself,
//!   read by [`tag_of`], for a profile's name, an event's date, a raw turn's
//!   speaker);
//! - the reranker: [`passage_text`], which keeps a raw turn's speaker;
//! - the embedder: [`embedding_text`], the same speaker rule for a frame's
//!   own vector.
//!
//! Ranking and formatting both read memories this way, so the rules live
//! here, below both.

use crate::calendar::format_date;
use crate::hash::strip_hm_prefix;

/// A memory's text as shown to a model or a reranker: the matched chunk when
/// `chunk` holds valid byte offsets into `content` (else the whole content),
/// without the storage prefixes (`[hm …]`, `[mind-… ]`, an event's
/// `[YYYY-MM-DD]`), trimmed.
pub fn display_text(content: &str, chunk: Option<(u32, u32)>) -> String {
    body_of(content, chunk).to_string()
}

/// A memory's text as the reranker reads it: [`display_text`], except that
/// a raw turn keeps its speaker (`Melanie: …`), as in its vector
/// ([`embedding_text`]): "What did Melanie paint?" is answered by
/// Melanie's turn, and the cross-encoder can only see that if it is told
/// who spoke.
pub fn passage_text(content: &str, chunk: Option<(u32, u32)>) -> String {
    let body = display_text(content, chunk);
    match tag_of(content) {
        Some(Tag::RawTurn(Some(speaker))) if !body.is_empty() => {
            format!("{}: {body}", speaker.replace('_', " "))
        }
        _ => body,
    }
}

/// The text a frame's own vector is made from: its body without the storage
/// prefixes (as [`display_text`] shows it), except that a raw turn keeps its
/// speaker (`Caroline: …`), because who said something is part of what it
/// means. Save, import and reindex all embed this, so a frame's vector never
/// depends on which path wrote it. A content that is nothing but prefixes is
/// embedded as it is.
pub fn embedding_text(content: &str) -> String {
    if let Some((inside, rest)) = split_mind_tag(without_hm(content)) {
        let mut words = inside.split_whitespace();
        if words.next() == Some("rawturn")
            && let Some(speaker) = words.find_map(|word| word.strip_prefix("speaker:"))
            && !rest.trim().is_empty()
        {
            return format!("{}: {}", speaker.replace('_', " "), rest.trim());
        }
    }
    let body = display_text(content, None);
    if body.is_empty() {
        content.trim().to_string()
    } else {
        body
    }
}

/// What a frame's `[mind-… ]` tag says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tag {
    /// `[mind-profile NAME]`, with the name.
    Profile(Option<String>),
    /// `[mind-event] [YYYY-MM-DD]`, with the date.
    Event(Option<String>),
    /// `[mind-rawturn … speaker:S]`, with the speaker.
    RawTurn(Option<String>),
    /// Any other `[mind-…]` tag.
    Other,
}

impl Tag {
    /// A raw turn's speaker.
    pub(super) fn speaker(&self) -> Option<&str> {
        match self {
            Tag::RawTurn(speaker) => speaker.as_deref(),
            _ => None,
        }
    }
}

/// The content after an optional `[hm …]` block.
fn without_hm(content: &str) -> &str {
    strip_hm_prefix(content.trim_start())
}

/// Split a leading `[mind-…]` tag off `text`: its inside and the rest.
fn split_mind_tag(text: &str) -> Option<(&str, &str)> {
    let inside = text.strip_prefix("[mind-")?;
    let (inside, rest) = inside.split_once(']')?;
    Some((inside, rest))
}

/// A leading `[YYYY-MM-DD]` of `text`: the date and the rest.
fn split_date_tag(text: &str) -> Option<(String, &str)> {
    let inside = text.trim_start().strip_prefix('[')?;
    let (date, rest) = inside.split_once(']')?;
    let parsed = chrono::NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d").ok()?;
    Some((format_date(parsed), rest))
}

/// The tag of a frame's content, if it has one.
pub(super) fn tag_of(content: &str) -> Option<Tag> {
    let (inside, rest) = split_mind_tag(without_hm(content))?;
    let mut words = inside.split_whitespace();
    let kind = words.next()?;
    Some(match kind {
        "profile" => {
            let name = words.collect::<Vec<_>>().join(" ");
            Tag::Profile((!name.is_empty()).then_some(name))
        }
        "event" => Tag::Event(split_date_tag(rest).map(|(date, _)| date)),
        "rawturn" => Tag::RawTurn(
            words
                .find_map(|word| word.strip_prefix("speaker:"))
                .filter(|speaker| !speaker.is_empty())
                .map(str::to_string),
        ),
        _ => Tag::Other,
    })
}

/// The text to show: the chunk (when its offsets are valid) or the content,
/// without the storage prefixes, trimmed.
pub(super) fn body_of(content: &str, chunk: Option<(u32, u32)>) -> &str {
    let slice = chunk
        .and_then(|(start, end)| {
            let start = usize::try_from(start).ok()?;
            let end = usize::try_from(end).ok()?;
            (start < end).then_some(())?;
            content.get(start..end)
        })
        .unwrap_or(content);
    let mut text = without_hm(slice);
    if let Some((inside, rest)) = split_mind_tag(text) {
        text = rest;
        if inside.split_whitespace().next() == Some("event")
            && let Some((_, after_date)) = split_date_tag(text)
        {
            text = after_date;
        }
    }
    text.trim()
}
