//! ChatGPT: `conversations.json` from "Export data" (alone or in its zip).
//!
//! # The shape
//!
//! An array of conversations. A conversation is not a list but a **tree**:
//!
//! ```text
//! { "title", "create_time": 1714555800.12 (epoch seconds, float),
//!   "update_time", "conversation_id" (or "id"), "current_node": "n7",
//!   "mapping": { "n1": { "id", "parent": null, "children": ["n2"],
//!                        "message": null },            ← the root
//!                "n2": { "id", "parent": "n1", "children": ["n3", "n5"],
//!                        "message": { "author": {"role": "user"},
//!                                     "create_time", "recipient": "all",
//!                                     "content": {"content_type": "text",
//!                                                 "parts": ["…"]},
//!                                     "metadata": {…} } }, … } }
//! ```
//!
//! Every regeneration of an answer and every edit of a prompt adds a
//! sibling branch. What the person last saw is the path from `current_node`
//! up through `parent` links; that path (reversed) is the conversation, so
//! regenerated and edited turns do not duplicate. Messages on the other
//! branches are counted in a note. With no usable `current_node` the latest
//! leaf (by message time, then depth) is followed instead, and noted.
//!
//! # What is dialogue
//!
//! - `text` parts, and the strings of `multimodal_text` parts; spoken turns
//!   (`audio_transcription` parts) keep their transcript. Image and audio
//!   asset pointers are noted.
//! - `user_editable_context` (custom instructions: "about me" and "how to
//!   respond") becomes one **system** message: it says who the person is,
//!   which the distillation wants, and it is never written as a raw turn.
//! - Not dialogue, noted: roles `tool` and `system`; assistant messages
//!   addressed to a tool (`recipient` other than `all`: code for the Python
//!   tool, browser and memory calls), `code`, `execution_output`,
//!   `tether_*` (browsing), `thoughts` and `reasoning_recap` (reasoning),
//!   `system_error`, `model_editable_context`; messages whose metadata says
//!   `is_visually_hidden_from_conversation`.
//!
//! Unknown content types with string parts are kept as text (and noted), so
//! a new text-like type is not lost.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::ParseError;
use super::common::{
    RawTime, Tally, clean_text, collapse, content_id, conversation, lax_bool, lax_string, lax_vec,
    no_dialogue_note, parse_conversations,
};
use crate::item::{Item, Message, Parsed, Role, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::Chatgpt;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Conversation {
    #[serde(deserialize_with = "lax_string")]
    title: Option<String>,
    create_time: RawTime,
    mapping: Option<HashMap<String, Node>>,
    #[serde(deserialize_with = "lax_string")]
    current_node: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    conversation_id: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    id: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Node {
    message: Option<ChatMessage>,
    #[serde(deserialize_with = "lax_string")]
    parent: Option<String>,
    #[serde(deserialize_with = "lax_vec")]
    children: Vec<ChildId>,
}

/// A child id (anything that is not a string is no link).
#[derive(Deserialize)]
#[serde(transparent)]
struct ChildId(#[serde(deserialize_with = "lax_string")] Option<String>);

#[derive(Deserialize, Default)]
#[serde(default)]
struct ChatMessage {
    author: Option<Author>,
    create_time: RawTime,
    content: Option<Content>,
    metadata: Option<Metadata>,
    #[serde(deserialize_with = "lax_string")]
    recipient: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Author {
    #[serde(deserialize_with = "lax_string")]
    role: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Metadata {
    #[serde(deserialize_with = "lax_bool")]
    is_visually_hidden_from_conversation: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Content {
    #[serde(deserialize_with = "lax_string")]
    content_type: Option<String>,
    #[serde(deserialize_with = "lax_vec")]
    parts: Vec<Part>,
    #[serde(deserialize_with = "lax_string")]
    user_profile: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    user_instructions: Option<String>,
}

/// One element of `parts`: a string, or an object (an asset pointer, a
/// transcript), or anything else.
enum Part {
    Text(String),
    Object(PartObject),
    Other,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PartObject {
    #[serde(deserialize_with = "lax_string")]
    content_type: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    text: Option<String>,
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartVisitor;
        impl<'de> serde::de::Visitor<'de> for PartVisitor {
            type Value = Part;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a message part")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Part, E> {
                Ok(Part::Text(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Part, E> {
                Ok(Part::Text(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Part, A::Error> {
                PartObject::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(Part::Object)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Part, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Part::Other)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Part, E> {
                Ok(Part::Other)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Part, E> {
                Ok(Part::Other)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Part, E> {
                Ok(Part::Other)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Part, E> {
                Ok(Part::Other)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Part, E> {
                Ok(Part::Other)
            }
        }
        deserializer.deserialize_any(PartVisitor)
    }
}

/// Parse a ChatGPT export.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    parse_conversations(
        bytes,
        FORMAT,
        "ChatGPT conversations",
        |conversation: &Conversation| {
            if conversation.mapping.is_some() {
                Ok(())
            } else {
                Err("no `mapping`".into())
            }
        },
        to_item,
    )
}

/// The path the person last saw: `current_node` up to the root, reversed.
/// `None` when `current_node` is missing or unknown.
fn path_from(mapping: &HashMap<String, Node>, start: &str) -> Option<Vec<String>> {
    if !mapping.contains_key(start) {
        return None;
    }
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut next = Some(start.to_string());
    while let Some(id) = next.take() {
        // A cycle, or a parent that is not in the mapping, ends the path.
        if !seen.insert(id.clone()) {
            break;
        }
        let Some(node) = mapping.get(&id) else { break };
        next = node.parent.clone();
        path.push(id);
    }
    path.reverse();
    Some(path)
}

/// With no usable `current_node`: the leaf with the latest message time
/// (then the deepest, then the greatest id, so the choice is deterministic).
fn latest_leaf_path(mapping: &HashMap<String, Node>) -> Vec<String> {
    let mut best: Option<(f64, usize, &String, Vec<String>)> = None;
    let mut ids: Vec<&String> = mapping.keys().collect();
    ids.sort();
    for id in ids {
        let Some(node) = mapping.get(id) else {
            continue;
        };
        let has_child = node
            .children
            .iter()
            .any(|child| child.0.as_ref().is_some_and(|c| mapping.contains_key(c)));
        if has_child {
            continue;
        }
        let Some(path) = path_from(mapping, id) else {
            continue;
        };
        let time = node
            .message
            .as_ref()
            .and_then(|m| match &m.create_time {
                RawTime::Number(n) => Some(*n),
                _ => None,
            })
            .unwrap_or(f64::MIN);
        let better = match &best {
            None => true,
            Some((best_time, best_depth, _, _)) => {
                time > *best_time || (time == *best_time && path.len() >= *best_depth)
            }
        };
        if better {
            best = Some((time, path.len(), id, path));
        }
    }
    best.map(|(_, _, _, path)| path).unwrap_or_default()
}

fn to_item(export: Conversation) -> Result<Item, String> {
    let mut tally = Tally::default();
    let mut item_notes: Vec<String> = Vec::new();
    let mapping = export.mapping.unwrap_or_default();
    let title = export.title.as_deref().and_then(collapse);

    let path = match export
        .current_node
        .as_deref()
        .and_then(|c| path_from(&mapping, c))
    {
        Some(path) => path,
        None => {
            if !mapping.is_empty() {
                item_notes.push("no usable current_node: followed the latest leaf".into());
            }
            latest_leaf_path(&mapping)
        }
    };
    let on_path: HashSet<&str> = path.iter().map(String::as_str).collect();
    let off_path = mapping
        .iter()
        .filter(|(id, node)| !on_path.contains(id.as_str()) && node.message.is_some())
        .count();
    tally.add(
        "message(s) on branches not followed (regenerated or edited turns)",
        off_path,
    );

    let mut messages = Vec::new();
    for id in &path {
        let Some(message) = mapping.get(id).and_then(|node| node.message.as_ref()) else {
            continue;
        };
        if let Some(message) = read_message(message, &mut tally) {
            messages.push(message);
        }
    }

    let id = export
        .conversation_id
        .or(export.id)
        .filter(|id| !id.trim().is_empty())
        .unwrap_or_else(|| {
            let first = messages.iter().find(|m| m.role != Role::System);
            content_id(
                "chatgpt",
                &[
                    title.as_deref().unwrap_or("").as_bytes(),
                    first.map(|m| m.text.as_bytes()).unwrap_or(b""),
                ],
            )
        });
    let created_at = export.create_time.resolve(&mut tally);
    if !messages.iter().any(|m| m.role != Role::System) {
        return Err(no_dialogue_note("conversation", &id, title.as_deref()));
    }
    item_notes.extend(tally.into_notes());
    Ok(conversation(
        id, FORMAT, title, created_at, messages, item_notes,
    ))
}

/// One message on the path, or `None` (counted) when it is not dialogue.
fn read_message(message: &ChatMessage, tally: &mut Tally) -> Option<Message> {
    let role_name = message
        .author
        .as_ref()
        .and_then(|a| a.role.as_deref())
        .unwrap_or("");
    let content = message.content.as_ref();
    let content_type = content
        .and_then(|c| c.content_type.as_deref())
        .unwrap_or("text");

    // Custom instructions come hidden; they are read before the hidden check.
    if content_type == "user_editable_context" {
        let content = content?;
        let text = custom_instructions(content)?;
        let timestamp = message.create_time.resolve(tally);
        return Some(Message {
            role: Role::System,
            text,
            timestamp,
        });
    }
    if message
        .metadata
        .as_ref()
        .is_some_and(|m| m.is_visually_hidden_from_conversation)
    {
        tally.bump("hidden message(s) left out");
        return None;
    }
    let role = match role_name {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => {
            tally.bump("tool message(s) left out (tool output, browsing results)");
            return None;
        }
        "system" => {
            if content.is_some_and(|c| has_text(&c.parts)) {
                tally.bump("system message(s) left out");
            }
            return None;
        }
        other => {
            tally.bump(format!("message(s) with role '{other}' left out"));
            return None;
        }
    };
    if role == Role::Assistant
        && message
            .recipient
            .as_deref()
            .is_some_and(|r| r != "all" && !r.is_empty())
    {
        tally.bump("tool call(s) left out");
        return None;
    }
    let text = match content_type {
        "text" | "multimodal_text" => {
            join_parts(content.map(|c| &c.parts[..]).unwrap_or(&[]), tally)
        }
        "code" => {
            tally.bump("tool call(s) left out");
            return None;
        }
        "execution_output" => {
            tally.bump("tool message(s) left out (tool output, browsing results)");
            return None;
        }
        "thoughts" | "reasoning_recap" => {
            tally.bump("reasoning block(s) left out (not dialogue)");
            return None;
        }
        "system_error" => {
            tally.bump("error message(s) left out");
            return None;
        }
        "model_editable_context" => {
            tally.bump("model memory context block(s) left out");
            return None;
        }
        other if other.starts_with("tether_") => {
            tally.bump("tool message(s) left out (tool output, browsing results)");
            return None;
        }
        other => {
            let parts = content.map(|c| &c.parts[..]).unwrap_or(&[]);
            if !has_text(parts) {
                tally.bump(format!(
                    "message(s) of unknown content type '{other}' left out"
                ));
                return None;
            }
            tally.bump(format!(
                "message(s) of unknown content type '{other}' read as text"
            ));
            join_parts(parts, tally)
        }
    };
    let Some(text) = text else {
        tally.bump("empty message(s) left out");
        return None;
    };
    let timestamp = message.create_time.resolve(tally);
    Some(Message {
        role,
        text,
        timestamp,
    })
}

fn has_text(parts: &[Part]) -> bool {
    parts
        .iter()
        .any(|part| matches!(part, Part::Text(text) if !text.trim().is_empty()))
}

/// The text of a message's parts (blank-line separated); non-text parts are
/// counted.
fn join_parts(parts: &[Part], tally: &mut Tally) -> Option<String> {
    let mut texts: Vec<&str> = Vec::new();
    for part in parts {
        match part {
            Part::Text(text) => {
                if !text.trim().is_empty() {
                    texts.push(text);
                }
            }
            Part::Object(object) => match object.content_type.as_deref().unwrap_or("") {
                "audio_transcription" => match object.text.as_deref() {
                    Some(text) if !text.trim().is_empty() => texts.push(text),
                    _ => {}
                },
                "image_asset_pointer" => tally.bump("image(s) left out"),
                kind if kind.contains("audio") || kind.contains("video") => {
                    tally.bump("audio/video clip(s) left out");
                }
                _ => tally.bump("attachment part(s) left out"),
            },
            Part::Other => {}
        }
    }
    clean_text(&texts.join("\n\n"))
}

/// Custom instructions as one system text: ChatGPT wraps each field in a
/// fixed preamble and a code fence; the person's words are what follow.
fn custom_instructions(content: &Content) -> Option<String> {
    let about = content
        .user_profile
        .as_deref()
        .and_then(|t| unwrap_instruction(t, "User profile:"));
    let respond = content
        .user_instructions
        .as_deref()
        .and_then(|t| unwrap_instruction(t, "how they would like you to respond:"));
    let mut parts = Vec::new();
    if let Some(about) = about {
        parts.push(format!("Custom instructions, about the user:\n{about}"));
    }
    if let Some(respond) = respond {
        parts.push(format!("Custom instructions, how to respond:\n{respond}"));
    }
    clean_text(&parts.join("\n\n"))
}

/// The text after `marker` (when present), without a surrounding fence.
fn unwrap_instruction(text: &str, marker: &str) -> Option<String> {
    let after = text.split_once(marker).map_or(text, |(_, after)| after);
    let trimmed = after.trim();
    let unfenced = trimmed
        .strip_prefix("```")
        .and_then(|rest| rest.strip_suffix("```"))
        .unwrap_or(trimmed);
    clean_text(unfenced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_lose_their_preamble() {
        assert_eq!(
            unwrap_instruction(
                "The user provided…\nUser profile:\n```I am a baker.```",
                "User profile:"
            )
            .as_deref(),
            Some("I am a baker.")
        );
        assert_eq!(
            unwrap_instruction("plain", "User profile:").as_deref(),
            Some("plain")
        );
    }
}
