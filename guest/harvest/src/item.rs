//! The universal import item: what every adapter produces and every later
//! pass reads.
//!
//! An export is a list of [`Item`]s. A conversation carries its
//! [`Message`]s (role, text, time); a document (Markdown, text, PDF, web
//! page) carries its [`Section`]s (heading path and text). Times are
//! normalised to ISO-8601 UTC (`2024-05-01T09:30:00Z`) whatever the export
//! wrote (epoch seconds as integers or floats, ISO strings with offsets).

use serde::Serialize;

/// The formats harvest reads (mirrors WIT `harvest.source-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceFormat {
    /// ChatGPT's `conversations.json` (or its export zip).
    Chatgpt,
    /// claude.ai's `conversations.json` (or its export zip).
    Claude,
    /// Google Takeout "Gemini Apps" activity.
    Gemini,
    /// Perplexity thread exports.
    Perplexity,
    /// Claude Code session transcripts (JSONL).
    ClaudeCode,
    /// Markdown, with optional front matter.
    Markdown,
    /// Plain text.
    PlainText,
    /// PDF (its text layer).
    Pdf,
    /// A web page.
    Html,
    /// JSON/JSONL lists of `role`/`content`/`timestamp` messages.
    Universal,
}

impl SourceFormat {
    /// Every format, in declaration order.
    pub const ALL: [SourceFormat; 10] = [
        SourceFormat::Chatgpt,
        SourceFormat::Claude,
        SourceFormat::Gemini,
        SourceFormat::Perplexity,
        SourceFormat::ClaudeCode,
        SourceFormat::Markdown,
        SourceFormat::PlainText,
        SourceFormat::Pdf,
        SourceFormat::Html,
        SourceFormat::Universal,
    ];

    /// The kebab-case name (as in WIT, the CLI's `--source` and the store).
    pub fn name(self) -> &'static str {
        match self {
            SourceFormat::Chatgpt => "chatgpt",
            SourceFormat::Claude => "claude",
            SourceFormat::Gemini => "gemini",
            SourceFormat::Perplexity => "perplexity",
            SourceFormat::ClaudeCode => "claude-code",
            SourceFormat::Markdown => "markdown",
            SourceFormat::PlainText => "plain-text",
            SourceFormat::Pdf => "pdf",
            SourceFormat::Html => "html",
            SourceFormat::Universal => "universal",
        }
    }

    /// The format of a kebab-case name.
    pub fn from_name(name: &str) -> Option<SourceFormat> {
        SourceFormat::ALL
            .into_iter()
            .find(|format| format.name() == name)
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The person whose history this is.
    User,
    /// The AI assistant.
    Assistant,
    /// System or developer instructions (never written as a raw turn).
    System,
}

impl Role {
    /// `user`, `assistant` or `system`.
    pub fn name(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text (never empty: adapters leave out empty messages and say so
    /// in the item's notes).
    pub text: String,
    /// When it was written (ISO-8601 UTC), when the export says.
    pub timestamp: Option<String>,
}

/// The last exchange of a session transcript (mirrors WIT
/// `harvest.exchange`): what the adapters' `last_exchange` reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exchange {
    /// The user's last message (not a tool result, a meta line or a local
    /// command's echo).
    pub user: String,
    /// The assistant's text after it, its replies joined by blank lines;
    /// never empty.
    pub assistant: String,
}

/// One section of a document: the text under a heading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// The headings above the text, outermost first (empty for the text
    /// before the first heading, or a document without headings).
    pub headings: Vec<String>,
    /// The section's text (never empty).
    pub text: String,
}

/// Whether an item is a dialogue or a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemKind {
    /// Messages between the user and an assistant.
    Conversation,
    /// A document: sections of text.
    Document,
}

/// One importable unit: a conversation or a document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    /// Its id within its source: the export's conversation id where there
    /// is one, else a content hash. Stable across exports of the same
    /// account, so a newer export is recognised item by item.
    pub id: String,
    /// The format it came from.
    pub source: SourceFormat,
    /// Conversation or document.
    pub kind: ItemKind,
    /// Its title, when the export has one.
    pub title: Option<String>,
    /// When it started (ISO-8601 UTC): the conversation's creation time, a
    /// document's front-matter date; else the first message's time.
    pub created_at: Option<String>,
    /// The messages of a conversation, in order (empty for a document).
    pub messages: Vec<Message>,
    /// The sections of a document (empty for a conversation).
    pub sections: Vec<Section>,
    /// What the adapter noticed and left out (an image, a tool call, an
    /// empty message, a branch not followed), so nothing is lost silently.
    pub notes: Vec<String>,
}

impl Item {
    /// The item's whole text: title, then messages (`role: text`) or
    /// sections, blank-line separated. What the injection scan and the
    /// content hash read.
    pub fn full_text(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(title) = &self.title {
            parts.push(title.clone());
        }
        for message in &self.messages {
            parts.push(format!("{}: {}", message.role.name(), message.text));
        }
        for section in &self.sections {
            parts.push(section.text.clone());
        }
        parts.join("\n\n")
    }
}

/// What an adapter made of one input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parsed {
    /// The format read.
    pub format: SourceFormat,
    /// The items, in the export's order.
    pub items: Vec<Item>,
    /// Notes about the input as a whole (entries of a zip not read, …).
    pub notes: Vec<String>,
}
