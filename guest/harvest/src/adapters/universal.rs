//! Universal JSON / JSONL: conversations any tool can write.
//!
//! # What is accepted
//!
//! - a list of messages: `[{"role", "content", "timestamp"}, …]` → one
//!   conversation;
//! - an object with `messages`: `{"id"?, "title"?, "created_at"?,
//!   "messages": […]}` → one conversation;
//! - a list of such conversations, or `{"conversations": […]}`;
//! - JSONL: one message per line (→ one conversation), or one conversation
//!   per line.
//!
//! A message's fields go by several names: the role is `role`, `sender`,
//! `author` (a string, or an object with `role`/`name`), `speaker` or
//! `from`; the text is `content`, `text`, `message`, `body` or `parts` — a
//! string, a list of strings, or a list of `{"type": "text", "text"}`
//! blocks (the OpenAI / Anthropic message shapes; other block types are
//! noted); the time is `timestamp`, `created_at`, `create_time`, `time` or
//! `date` — epoch seconds or milliseconds, or an ISO string.
//!
//! Roles are normalised: `user`/`human`/`me` → user; `assistant`/`ai`/
//! `model`/`bot`/`gpt`/`claude`/`gemini` → assistant; `system`/`developer`
//! → system. `tool`/`function` messages are not dialogue (noted); an
//! unknown role is left out and noted with its name.
//!
//! The shape is not one schema but a family, so this adapter walks
//! `serde_json::Value`s — one element at a time, never the whole file as
//! one tree. A conversation's id is its `id`/`conversation_id`/`uuid`,
//! else a hash of its title and first message.

use std::collections::HashMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::ParseError;
use super::common::{
    RawTime, TITLE_CHARS, Tally, clean_text, collapse, content_id, conversation, first_json_byte,
    json_error, line_error, malformed, no_dialogue_note, normalise_role, short_title,
};
use crate::item::{Item, Message, Parsed, Role, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::Universal;

/// Parse universal JSON or JSONL.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    match first_json_byte(bytes) {
        Some(b'[' | b'{') => {}
        _ => return Err(malformed(FORMAT, "expected JSON or JSONL messages")),
    }
    // A whole JSON document, or JSONL when there is more after the first
    // value.
    let mut stream =
        serde_json::Deserializer::from_slice(bytes).into_iter::<&serde_json::value::RawValue>();
    let first = match stream.next() {
        Some(Ok(value)) => value,
        Some(Err(error)) => return Err(json_error(FORMAT, &error)),
        None => return Err(malformed(FORMAT, "expected JSON or JSONL messages")),
    };
    let more_after_first = bytes
        .get(stream.byte_offset()..)
        .is_some_and(|after| first_json_byte(after).is_some());
    if more_after_first {
        return parse_lines(bytes);
    }
    let mut parsed = Parsed {
        format: FORMAT,
        items: Vec::new(),
        notes: Vec::new(),
    };
    match first_json_byte(first.get().as_bytes()) {
        Some(b'[') => {
            let elements: Vec<&serde_json::value::RawValue> =
                serde_json::from_str(first.get()).map_err(|e| json_error(FORMAT, &e))?;
            read_list(&elements, &mut parsed)?;
        }
        _ => read_object(first, &mut parsed)?,
    }
    Ok(parsed)
}

/// The elements of a raw list field.
fn list<'a>(raw: &'a RawValue, what: &str) -> Result<Vec<&'a RawValue>, ParseError> {
    serde_json::from_str(raw.get())
        .map_err(|_| malformed(FORMAT, format!("`{what}` is not a list")))
}

/// A top-level object: `{"conversations": […]}` or `{"messages": […]}`.
/// Its fields stay raw, so the file is never one `Value` tree: one
/// conversation (or one conversation's messages) is parsed at a time.
fn read_object(raw: &RawValue, parsed: &mut Parsed) -> Result<(), ParseError> {
    let object: HashMap<String, &RawValue> =
        serde_json::from_str(raw.get()).map_err(|e| json_error(FORMAT, &e))?;
    if let Some(conversations) = object.get("conversations") {
        for (index, element) in list(conversations, "conversations")?.iter().enumerate() {
            match serde_json::from_str::<Value>(element.get()) {
                Ok(value) => push_conversation(&value, index, parsed),
                Err(error) => parsed.notes.push(format!(
                    "conversation #{index} skipped: {}",
                    super::common::element_error(&error)
                )),
            }
        }
        return Ok(());
    }
    let Some(messages) = object.get("messages") else {
        return Err(malformed(
            FORMAT,
            "an object without `messages` or `conversations`",
        ));
    };
    // The conversation's own small fields (id, title, time).
    let mut header = Map::new();
    for (key, value) in &object {
        if key != "messages"
            && value.get().len() <= 4096
            && let Ok(value) = serde_json::from_str::<Value>(value.get())
        {
            header.insert(key.clone(), value);
        }
    }
    let mut values = Vec::new();
    for element in list(messages, "messages")? {
        values.push(
            serde_json::from_str::<Value>(element.get()).map_err(|e| json_error(FORMAT, &e))?,
        );
    }
    push_messages(&values, Some(&header), parsed);
    Ok(())
}

/// A top-level list: of conversations (elements with `messages`) or of
/// messages.
fn read_list(
    elements: &[&serde_json::value::RawValue],
    parsed: &mut Parsed,
) -> Result<(), ParseError> {
    let mut messages: Vec<Value> = Vec::new();
    for (index, raw) in elements.iter().enumerate() {
        let value: Value = serde_json::from_str(raw.get()).map_err(|e| json_error(FORMAT, &e))?;
        if value.get("messages").is_some_and(Value::is_array) {
            push_conversation(&value, index, parsed);
        } else if value.is_object() {
            messages.push(value);
        } else {
            parsed
                .notes
                .push(format!("element #{index} skipped: not an object"));
        }
    }
    if !messages.is_empty() {
        push_messages(&messages, None, parsed);
    }
    if parsed.items.is_empty() && elements.is_empty() {
        parsed.notes.push("the file holds no messages".into());
    }
    Ok(())
}

/// JSONL: messages or conversations, one per line; a bad line is skipped
/// and noted.
fn parse_lines(bytes: &[u8]) -> Result<Parsed, ParseError> {
    let mut parsed = Parsed {
        format: FORMAT,
        items: Vec::new(),
        notes: Vec::new(),
    };
    let mut messages = Vec::new();
    let mut readable = 0usize;
    let mut first_error = None;
    for (number, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if first_json_byte(line).is_none() {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(value) if value.is_object() => {
                readable += 1;
                if value.get("messages").is_some_and(Value::is_array) {
                    push_conversation(&value, number, &mut parsed);
                } else {
                    messages.push(value);
                }
            }
            Ok(_) => parsed
                .notes
                .push(format!("line {}: not a JSON object; skipped", number + 1)),
            Err(error) => {
                let why = line_error(&error);
                parsed.notes.push(format!(
                    "line {}: not valid JSON ({why}); skipped",
                    number + 1
                ));
                first_error.get_or_insert(format!("line {}: {why}", number + 1));
            }
        }
    }
    if readable == 0 {
        return Err(malformed(
            FORMAT,
            format!(
                "no readable line ({})",
                first_error.unwrap_or_else(|| "no JSON objects".into())
            ),
        ));
    }
    if !messages.is_empty() {
        push_messages(&messages, None, &mut parsed);
    }
    Ok(parsed)
}

fn push_conversation(value: &Value, index: usize, parsed: &mut Parsed) {
    let Some(object) = value.as_object() else {
        parsed
            .notes
            .push(format!("conversation #{index} skipped: not an object"));
        return;
    };
    match object.get("messages") {
        Some(Value::Array(messages)) => push_messages(messages, Some(object), parsed),
        _ => parsed
            .notes
            .push(format!("conversation #{index} skipped: no `messages` list")),
    }
}

/// One conversation from its messages (and its object's id/title/time).
fn push_messages(values: &[Value], header: Option<&Map<String, Value>>, parsed: &mut Parsed) {
    match build(values, header, FORMAT) {
        Ok(item) => parsed.items.push(item),
        Err(note) => parsed.notes.push(note),
    }
}

/// A conversation item of `source` from message values and the object
/// that holds them (its `id`, `title`, time); `Err` is the note for a
/// conversation with no dialogue.
pub(crate) fn build(
    values: &[Value],
    header: Option<&Map<String, Value>>,
    source: SourceFormat,
) -> Result<Item, String> {
    let mut tally = Tally::default();
    let mut messages = Vec::new();
    for value in values {
        if let Some(message) = read_message(value, &mut tally) {
            messages.push(message);
        }
    }
    let string = |keys: &[&str]| -> Option<String> {
        let header = header?;
        keys.iter().find_map(|k| match header.get(*k) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
    };
    let title = string(&["title", "name", "subject"]).and_then(|t| collapse(&t));
    let created_at = header.and_then(|h| time_of(h, &mut tally));
    let first = messages
        .first()
        .map(|m: &Message| m.text.clone())
        .unwrap_or_default();
    let id = string(&["id", "conversation_id", "uuid", "thread_id", "slug"]).unwrap_or_else(|| {
        content_id(
            source.name(),
            &[title.as_deref().unwrap_or("").as_bytes(), first.as_bytes()],
        )
    });
    if !messages.iter().any(|m| m.role != Role::System) {
        return Err(no_dialogue_note("conversation", &id, title.as_deref()));
    }
    let title = title.or_else(|| {
        messages
            .iter()
            .find(|m| m.role == Role::User)
            .and_then(|m| short_title(&m.text, TITLE_CHARS))
    });
    Ok(conversation(
        id,
        source,
        title,
        created_at,
        messages,
        tally.into_notes(),
    ))
}

fn time_of(object: &Map<String, Value>, tally: &mut Tally) -> Option<String> {
    for key in [
        "timestamp",
        "created_at",
        "create_time",
        "createdAt",
        "time",
        "date",
    ] {
        let raw = match object.get(key) {
            Some(Value::Number(n)) => RawTime::Number(n.as_f64().unwrap_or(f64::NAN)),
            Some(Value::String(s)) => RawTime::Text(s.clone()),
            Some(Value::Null) | None => continue,
            Some(_) => RawTime::Invalid,
        };
        return raw.resolve(tally);
    }
    None
}

fn read_message(value: &Value, tally: &mut Tally) -> Option<Message> {
    let Some(object) = value.as_object() else {
        tally.bump("non-object message(s) left out");
        return None;
    };
    let role_name = ["role", "sender", "author", "speaker", "from"]
        .iter()
        .find_map(|key| match object.get(*key) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Object(author)) => ["role", "name"]
                .iter()
                .find_map(|k| author.get(*k).and_then(Value::as_str).map(str::to_string)),
            _ => None,
        });
    let Some(role_name) = role_name else {
        tally.bump("message(s) without a role left out");
        return None;
    };
    let role = match normalise_role(&role_name) {
        Some(Ok(role)) => role,
        Some(Err(_)) => {
            tally.bump("tool message(s) left out");
            return None;
        }
        None => {
            tally.bump(format!(
                "message(s) with role '{}' left out",
                role_name.trim()
            ));
            return None;
        }
    };
    let content = ["content", "text", "message", "body", "parts", "value"]
        .iter()
        .find_map(|key| object.get(*key).filter(|v| !v.is_null()));
    let text = content.and_then(|content| text_of(content, tally));
    let Some(text) = text else {
        tally.bump("empty message(s) left out");
        return None;
    };
    let timestamp = time_of(object, tally);
    Some(Message {
        role,
        text,
        timestamp,
    })
}

/// A content value's text: a string; a list of strings or text blocks; an
/// object with `text`/`content`/`parts`.
fn text_of(content: &Value, tally: &mut Tally) -> Option<String> {
    match content {
        Value::String(text) => clean_text(text),
        Value::Array(parts) => {
            let mut texts = Vec::new();
            for part in parts {
                match part {
                    Value::String(text) => texts.push(text.clone()),
                    Value::Object(block) => {
                        let kind = block.get("type").and_then(Value::as_str).unwrap_or("text");
                        match (kind, block.get("text")) {
                            ("text" | "input_text" | "output_text", Some(Value::String(text))) => {
                                texts.push(text.clone());
                            }
                            ("tool_use" | "tool_call" | "function_call", _) => {
                                tally.bump("tool call(s) left out");
                            }
                            ("tool_result" | "function_result", _) => {
                                tally.bump("tool result(s) left out")
                            }
                            ("image" | "image_url" | "input_image", _) => {
                                tally.bump("image(s) left out")
                            }
                            (other, _) => {
                                tally.bump(format!("content part(s) of type '{other}' left out"))
                            }
                        }
                    }
                    _ => {}
                }
            }
            clean_text(&texts.join("\n\n"))
        }
        Value::Object(object) => ["text", "content", "parts", "value"]
            .iter()
            .find_map(|key| object.get(*key))
            .and_then(|inner| {
                if inner.is_object() {
                    None
                } else {
                    text_of(inner, tally)
                }
            }),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
