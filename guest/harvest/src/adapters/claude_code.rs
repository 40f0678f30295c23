//! Claude Code session transcripts (`~/.claude/projects/<dir>/<session>.jsonl`).
//!
//! # The shape
//!
//! JSONL, one event per line:
//!
//! ```text
//! {"type": "user" | "assistant" | "summary" | "system" | …,
//!  "sessionId", "uuid", "parentUuid", "timestamp": "2025-06-01T10:00:00.000Z",
//!  "isMeta": false, "isSidechain": false, "cwd", "gitBranch",
//!  "message": {"role", "id"?, "content": "text"
//!                                  | [ {"type": "text", "text"},
//!                                      {"type": "tool_use", …},
//!                                      {"type": "tool_result", …},
//!                                      {"type": "thinking", …} ]}}
//! {"type": "summary", "summary": "Fix the flaky test", "leafUuid": "…"}
//! ```
//!
//! # Choices
//!
//! - **One item per `sessionId`**, in order of first appearance; the id is
//!   the session id (a file may hold several after a resume). The item's
//!   time is the session's first event.
//! - Dialogue is the `text` of user and assistant events. Tool use and tool
//!   results (most of a coding session), thinking, images, `isMeta` lines
//!   (caveats, command expansions), `isSidechain` lines (sub-agent runs),
//!   local command echoes (`<command-name>`, `<local-command-stdout>`), and
//!   non-dialogue events (`system`, file snapshots, …) are counted in the
//!   notes.
//! - Claude Code writes one assistant reply as several lines, one per
//!   content block, sharing `message.id`: consecutive lines of one id are
//!   one message. A line repeated with the same `uuid` is read once.
//! - A `summary` line titles the session that holds its `leafUuid`.
//! - **A malformed line is skipped** with a note naming its number; the
//!   file fails only when no line is readable.
//! - **The last exchange** ([`last_exchange`], what a hook asks for when a
//!   turn ends) reads the dialogue lines by the same rules, in file order
//!   whatever their session, from a tail cut at any byte: the last user
//!   message and the assistant's messages after it, or none while the
//!   question is unanswered.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::ParseError;
use super::common::{
    RawTime, TITLE_CHARS, Tally, clean_text, collapse, content_id, conversation, first_json_byte,
    lax_bool, lax_string, line_error, malformed, no_dialogue_note, short_title,
};
use crate::item::{Exchange, Message, Parsed, Role, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::ClaudeCode;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Event {
    #[serde(rename = "type", deserialize_with = "lax_string")]
    kind: Option<String>,
    #[serde(rename = "sessionId", deserialize_with = "lax_string")]
    session_id: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    uuid: Option<String>,
    timestamp: RawTime,
    #[serde(rename = "isMeta", deserialize_with = "lax_bool")]
    is_meta: bool,
    #[serde(rename = "isSidechain", deserialize_with = "lax_bool")]
    is_sidechain: bool,
    message: Option<EventMessage>,
    #[serde(deserialize_with = "lax_string")]
    summary: Option<String>,
    #[serde(rename = "leafUuid", deserialize_with = "lax_string")]
    leaf_uuid: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EventMessage {
    #[serde(deserialize_with = "lax_string")]
    role: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    id: Option<String>,
    content: Option<EventContent>,
}

/// `content`: a string or a list of blocks.
enum EventContent {
    Text(String),
    Blocks(Vec<Block>),
    Other,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Block {
    #[serde(rename = "type", deserialize_with = "lax_string")]
    kind: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    text: Option<String>,
}

impl<'de> Deserialize<'de> for EventContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> serde::de::Visitor<'de> for ContentVisitor {
            type Value = EventContent;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<EventContent, E> {
                Ok(EventContent::Text(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<EventContent, E> {
                Ok(EventContent::Text(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<EventContent, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element::<Block>()? {
                    blocks.push(block);
                }
                Ok(EventContent::Blocks(blocks))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<EventContent, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(EventContent::Other)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<EventContent, E> {
                Ok(EventContent::Other)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<EventContent, E> {
                Ok(EventContent::Other)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<EventContent, E> {
                Ok(EventContent::Other)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<EventContent, E> {
                Ok(EventContent::Other)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<EventContent, E> {
                Ok(EventContent::Other)
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

#[derive(Default)]
struct Session {
    id: String,
    started: Option<String>,
    title: Option<String>,
    messages: Vec<Message>,
    /// `message.id` of the last message, to merge a reply's lines.
    last_message_id: Option<String>,
    tally: Tally,
    uuids: HashSet<String>,
}

/// Parse a Claude Code transcript.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    let mut sessions: Vec<Session> = Vec::new();
    let mut index_of: HashMap<String, usize> = HashMap::new();
    let mut owner_of_uuid: HashMap<String, usize> = HashMap::new();
    let mut summaries: Vec<(String, String)> = Vec::new();
    let mut file_notes = Vec::new();
    let mut file_tally = Tally::default();
    let mut readable = 0usize;
    let mut first_error: Option<String> = None;

    for (number, line) in bytes.split(|b| *b == b'\n').enumerate() {
        let number = number + 1;
        if first_json_byte(line).is_none() {
            continue;
        }
        let event = match serde_json::from_slice::<Event>(line) {
            Ok(event) => event,
            Err(error) => {
                let what = if error.is_eof() {
                    "truncated JSON"
                } else {
                    "not a JSON event"
                };
                let why = line_error(&error);
                file_notes.push(format!("line {number} skipped: {what} ({why})"));
                first_error.get_or_insert(format!("line {number}: {why}"));
                continue;
            }
        };
        readable += 1;
        let kind_owned = event.kind.clone().unwrap_or_default();
        let kind = kind_owned.as_str();
        if kind == "summary" {
            if let (Some(summary), Some(leaf)) = (event.summary.clone(), event.leaf_uuid.clone()) {
                summaries.push((leaf, summary));
            }
            continue;
        }
        if event.session_id.is_none() && kind != "user" && kind != "assistant" {
            let label = if kind.is_empty() { "untyped" } else { kind };
            file_tally.bump(format!("'{label}' event(s) without a session left out"));
            continue;
        }
        let session_key = event.session_id.clone().unwrap_or_default();
        let index = *index_of.entry(session_key.clone()).or_insert_with(|| {
            let id = if session_key.is_empty() {
                content_id("claude-code", &[line])
            } else {
                session_key.clone()
            };
            sessions.push(Session {
                id,
                ..Session::default()
            });
            sessions.len() - 1
        });
        let Some(session) = sessions.get_mut(index) else {
            continue;
        };
        if session.started.is_none() {
            session.started = event.timestamp.resolve(&mut session.tally);
        }
        if let Some(uuid) = &event.uuid {
            owner_of_uuid.insert(uuid.clone(), index);
            if !session.uuids.insert(uuid.clone()) {
                continue;
            }
        }
        if kind != "user" && kind != "assistant" {
            let label = if kind.is_empty() { "untyped" } else { kind };
            session
                .tally
                .bump(format!("'{label}' event(s) left out (not dialogue)"));
            continue;
        }
        if event.is_meta {
            session
                .tally
                .bump("meta line(s) left out (caveats, command expansions)");
            continue;
        }
        if event.is_sidechain {
            session.tally.bump("sidechain (sub-agent) line(s) left out");
            continue;
        }
        read_event(event, kind, session);
    }

    if readable == 0 {
        let why = first_error.unwrap_or_else(|| "the file has no JSON lines".into());
        return Err(malformed(FORMAT, format!("no readable line ({why})")));
    }
    for (leaf, summary) in summaries {
        match owner_of_uuid.get(&leaf).and_then(|i| sessions.get_mut(*i)) {
            Some(session) if session.title.is_none() => session.title = collapse(&summary),
            Some(_) => {}
            None => file_tally.bump("summary line(s) of sessions not in this file left out"),
        }
    }

    let mut parsed = Parsed {
        format: FORMAT,
        items: Vec::new(),
        notes: file_notes,
    };
    for session in sessions {
        let title = session.title.or_else(|| {
            session
                .messages
                .iter()
                .find(|m| m.role == Role::User)
                .and_then(|m| short_title(&m.text, TITLE_CHARS))
        });
        if session.messages.is_empty() {
            parsed
                .notes
                .push(no_dialogue_note("session", &session.id, title.as_deref()));
            continue;
        }
        parsed.items.push(conversation(
            session.id,
            FORMAT,
            title,
            session.started,
            session.messages,
            session.tally.into_notes(),
        ));
    }
    parsed.notes.extend(file_tally.into_notes());
    Ok(parsed)
}

/// The last exchange of a transcript (see [`super::last_exchange`]): every
/// dialogue line read as [`parse`] reads it, in file order and across
/// sessions (a tail may start inside one and end in a resumed one), then
/// the last user message and the assistant's messages after it.
pub(crate) fn last_exchange(transcript: &[u8]) -> Option<Exchange> {
    let mut dialogue = Session::default();
    for line in transcript.split(|b| *b == b'\n') {
        if first_json_byte(line).is_none() {
            continue;
        }
        let Ok(event) = serde_json::from_slice::<Event>(line) else {
            continue;
        };
        let kind = event.kind.clone().unwrap_or_default();
        if (kind != "user" && kind != "assistant") || event.is_meta || event.is_sidechain {
            continue;
        }
        if let Some(uuid) = &event.uuid
            && !dialogue.uuids.insert(uuid.clone())
        {
            continue;
        }
        read_event(event, &kind, &mut dialogue);
    }
    let at = dialogue
        .messages
        .iter()
        .rposition(|message| message.role == Role::User)?;
    let mut messages = dialogue.messages.into_iter().skip(at);
    let user = messages.next()?.text;
    let assistant = messages
        .filter(|message| message.role == Role::Assistant)
        .map(|message| message.text)
        .collect::<Vec<_>>()
        .join("\n\n");
    (!assistant.trim().is_empty()).then_some(Exchange { user, assistant })
}

fn read_event(event: Event, kind: &str, session: &mut Session) {
    let message = event.message.unwrap_or_default();
    let role = match message.role.as_deref().unwrap_or(kind) {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => {
            session
                .tally
                .bump(format!("message(s) with role '{other}' left out"));
            return;
        }
    };
    let mut texts: Vec<String> = Vec::new();
    let mut non_text = false;
    match message.content {
        Some(EventContent::Text(text)) => texts.extend(clean_text(&text)),
        Some(EventContent::Blocks(blocks)) => {
            for block in blocks {
                let kind = block.kind.as_deref().unwrap_or("");
                non_text |= kind != "text";
                match kind {
                    "text" => texts.extend(block.text.as_deref().and_then(clean_text)),
                    "tool_use" => session.tally.bump("tool call(s) left out"),
                    "tool_result" => session.tally.bump("tool result(s) left out"),
                    "thinking" | "redacted_thinking" => {
                        session
                            .tally
                            .bump("thinking block(s) left out (not dialogue)");
                    }
                    "image" => session.tally.bump("image(s) left out"),
                    other => session
                        .tally
                        .bump(format!("content block(s) of type '{other}' left out")),
                }
            }
        }
        Some(EventContent::Other) | None => {}
    }
    let text = texts.join("\n\n");
    let trimmed = text.trim_start();
    if role == Role::User
        && [
            "<command-name>",
            "<command-message>",
            "<local-command-stdout>",
            "<local-command-stderr>",
        ]
        .iter()
        .any(|tag| trimmed.starts_with(tag))
    {
        session.tally.bump("local command line(s) left out");
        return;
    }
    let Some(text) = clean_text(&text) else {
        // A line of only tool traffic is counted above; an empty one here.
        if !non_text {
            session.tally.bump("empty message(s) left out");
        }
        return;
    };
    let timestamp = event.timestamp.resolve(&mut session.tally);
    // One reply split over lines that share `message.id`.
    if role == Role::Assistant
        && message.id.is_some()
        && message.id == session.last_message_id
        && let Some(last) = session.messages.last_mut()
        && last.role == Role::Assistant
    {
        last.text.push_str("\n\n");
        last.text.push_str(&text);
        return;
    }
    session.last_message_id = if role == Role::Assistant {
        message.id
    } else {
        None
    };
    session.messages.push(Message {
        role,
        text,
        timestamp,
    });
}
