//! claude.ai: `conversations.json` from "Export data" (alone or in its zip,
//! beside `users.json` and `projects.json`).
//!
//! # The shape
//!
//! ```text
//! [ { "uuid", "name", "created_at": "2024-05-01T09:30:00.123456Z",
//!     "updated_at",
//!     "chat_messages": [ { "uuid", "sender": "human" | "assistant",
//!                          "text": "…",              ← the flat text
//!                          "content": [ {"type": "text", "text": "…"},
//!                                       {"type": "tool_use", …},
//!                                       {"type": "tool_result", …},
//!                                       {"type": "thinking", …} ],
//!                          "created_at",
//!                          "attachments": [ {"file_name",
//!                                            "extracted_content"} ],
//!                          "files": [ {"file_name"} ] } ] } ]
//! ```
//!
//! The export is linear (claude.ai keeps the branch the person is on).
//!
//! # Choices
//!
//! - A message's text is its `content` text blocks, blank-line joined;
//!   `text` is the fallback when there are none (older exports have no
//!   `content`). Tool use, tool results and thinking are not dialogue:
//!   counted in the notes.
//! - **Attachments with extracted text are part of the user's message**,
//!   appended as `[Attached file: name]` and the text. On claude.ai a long
//!   paste becomes such an attachment, and what was attached is what the
//!   answer talks about: leaving it out would strip the question of its
//!   subject. Attachments without text and `files` (images, uploads the
//!   export does not carry) are noted with their names.
//! - A message from any other sender is left out and noted.

use serde::Deserialize;

use super::ParseError;
use super::common::{
    RawTime, Tally, clean_text, collapse, content_id, conversation, lax_string, lax_vec,
    no_dialogue_note, parse_conversations,
};
use crate::item::{Item, Message, Parsed, Role, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::Claude;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Conversation {
    #[serde(deserialize_with = "lax_string")]
    uuid: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    name: Option<String>,
    created_at: RawTime,
    chat_messages: Option<Vec<ChatMessage>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ChatMessage {
    #[serde(deserialize_with = "lax_string")]
    sender: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    text: Option<String>,
    #[serde(deserialize_with = "lax_vec")]
    content: Vec<Block>,
    created_at: RawTime,
    #[serde(deserialize_with = "lax_vec")]
    attachments: Vec<Attachment>,
    #[serde(deserialize_with = "lax_vec")]
    files: Vec<FileRef>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Block {
    #[serde(rename = "type", deserialize_with = "lax_string")]
    kind: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    text: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Attachment {
    #[serde(deserialize_with = "lax_string")]
    file_name: Option<String>,
    #[serde(deserialize_with = "lax_string")]
    extracted_content: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FileRef {
    #[serde(deserialize_with = "lax_string")]
    file_name: Option<String>,
}

/// Parse a claude.ai export.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    parse_conversations(
        bytes,
        FORMAT,
        "Claude conversations",
        |conversation: &Conversation| {
            if conversation.chat_messages.is_some() {
                Ok(())
            } else {
                Err("no `chat_messages`".into())
            }
        },
        to_item,
    )
}

fn to_item(export: Conversation) -> Result<Item, String> {
    let mut tally = Tally::default();
    let mut notes = Vec::new();
    let title = export.name.as_deref().and_then(collapse);
    let mut messages = Vec::new();
    for message in export.chat_messages.unwrap_or_default() {
        if let Some(message) = read_message(message, &mut tally, &mut notes) {
            messages.push(message);
        }
    }
    let id = export
        .uuid
        .filter(|id| !id.trim().is_empty())
        .unwrap_or_else(|| {
            content_id(
                "claude",
                &[
                    title.as_deref().unwrap_or("").as_bytes(),
                    messages.first().map(|m| m.text.as_bytes()).unwrap_or(b""),
                ],
            )
        });
    let created_at = export.created_at.resolve(&mut tally);
    if messages.is_empty() {
        return Err(no_dialogue_note("conversation", &id, title.as_deref()));
    }
    let mut all_notes = tally.into_notes();
    all_notes.extend(notes);
    Ok(conversation(
        id, FORMAT, title, created_at, messages, all_notes,
    ))
}

fn read_message(
    message: ChatMessage,
    tally: &mut Tally,
    notes: &mut Vec<String>,
) -> Option<Message> {
    let role = match message.sender.as_deref().unwrap_or("") {
        "human" | "user" => Role::User,
        "assistant" => Role::Assistant,
        other => {
            tally.bump(format!("message(s) from sender '{other}' left out"));
            return None;
        }
    };
    let mut texts: Vec<String> = Vec::new();
    for block in &message.content {
        match block.kind.as_deref().unwrap_or("") {
            "text" => {
                if let Some(text) = block.text.as_deref().and_then(clean_text) {
                    texts.push(text);
                }
            }
            "tool_use" => tally.bump("tool call(s) left out"),
            "tool_result" => tally.bump("tool result(s) left out"),
            "thinking" | "redacted_thinking" => {
                tally.bump("thinking block(s) left out (not dialogue)");
            }
            other => tally.bump(format!("content block(s) of type '{other}' left out")),
        }
    }
    if texts.is_empty()
        && let Some(text) = message.text.as_deref().and_then(clean_text)
    {
        texts.push(text);
    }
    for attachment in &message.attachments {
        let name = attachment.file_name.as_deref().unwrap_or("").trim();
        match attachment.extracted_content.as_deref().and_then(clean_text) {
            Some(content) => {
                let label = if name.is_empty() {
                    "Attached file"
                } else {
                    name
                };
                texts.push(format!("[Attached file: {label}]\n{content}"));
                tally.bump("attachment(s) with text included in their message");
            }
            None => notes.push(format!(
                "attachment without text left out: {}",
                if name.is_empty() { "(unnamed)" } else { name }
            )),
        }
    }
    for file in &message.files {
        let name = file.file_name.as_deref().unwrap_or("").trim();
        notes.push(format!(
            "file not in the export left out: {}",
            if name.is_empty() { "(unnamed)" } else { name }
        ));
    }
    let Some(text) = clean_text(&texts.join("\n\n")) else {
        tally.bump("empty message(s) left out");
        return None;
    };
    let timestamp = message.created_at.resolve(tally);
    Some(Message {
        role,
        text,
        timestamp,
    })
}
