//! Adapters: bytes → [`Parsed`] items.
//!
//! The host hands the engine the raw bytes of a file (or a fetched URL
//! body). Everything here runs inside the wasm sandbox on bytes nobody has
//! vetted, so the rules are:
//!
//! - **Detection by content, never by name** ([`detect_format`]; the order
//!   of the checks is in `detect`). `name` only labels messages. A `hint`
//!   overrides detection; a hint that does not fit the bytes gives
//!   [`ParseError::Malformed`] naming the hinted format.
//! - **A hostile file fails its own import, nothing more.** No panics (the
//!   guest aborts on one), no recursion an input can drive deep (JSON goes
//!   through serde_json's depth limit or the iterative sniffer; HTML,
//!   Markdown and text are read by loops with bounded stacks), and no
//!   allocation the input can inflate past the caps below.
//! - **Nothing is lost silently.** What an adapter leaves out (an image, a
//!   tool call, a branch not followed, an empty message, a hidden system
//!   part) is counted in the item's `notes`; what is left out of the input
//!   as a whole (an item with no dialogue, an unreadable line, a zip entry
//!   not read) is in [`Parsed::notes`].
//! - **A line-level or element-level fault does not fail the file.** A
//!   malformed conversation of an export, a broken JSONL line, a bad zip
//!   entry is skipped and noted; the input fails only when nothing in it is
//!   readable.
//! - **Stable ids.** An item's id is the export's own id where it has one
//!   (ChatGPT `conversation_id`, claude.ai `uuid`, Claude Code
//!   `sessionId`, a Gemini conversation URL), else a SHA-256 of content
//!   that does not change when a conversation grows (its first turn) or of
//!   the whole document, so a newer export is recognised item by item.
//!
//! # Limits, and why
//!
//! The guest is wasm32: one linear memory of at most 4 GiB holds the input
//! bytes, whatever is decoded from them, and the items. [`MAX_INPUT_BYTES`]
//! (256 MiB) bounds the input; a zip may inflate to at most
//! [`MAX_ENTRY_BYTES`] per entry and [`MAX_ARCHIVE_BYTES`] in all, read one
//! entry at a time, so the peak is about input + one entry + its parsed
//! form + the items so far, under 2.5 GiB. Messages are never cut: a very
//! long message is kept whole (the store chunks it later).
//!
//! # Modules
//!
//! One adapter per format — `chatgpt`, `claude`, `gemini`, `perplexity`,
//! `claude_code`, `universal` (conversations); `markdown`, `text`, `pdf`,
//! `html` (documents) — plus `archive` (zip containers), `detect`,
//! `time` (timestamp normalisation) and `common` (notes, ids, tolerant
//! serde fields). Each module's docs describe the format's shape and the
//! choices made reading it.

mod archive;
mod chatgpt;
mod claude;
mod claude_code;
mod common;
mod detect;
mod gemini;
mod html;
mod markdown;
mod pdf;
mod perplexity;
mod text;
mod time;
mod universal;

use thiserror::Error;

use crate::item::{Exchange, Parsed, SourceFormat};

pub use archive::{MAX_ARCHIVE_BYTES, MAX_ARCHIVE_ENTRIES, MAX_COMPRESSION_RATIO, MAX_ENTRY_BYTES};
pub use pdf::{MAX_PDF_PAGES, MAX_PDF_TEXT_BYTES};

/// The largest input harvest reads: 256 MiB. Big enough for the largest
/// real exports seen (a heavy ChatGPT user's zip is tens of MiB), small
/// enough that the bytes, what they inflate to and the parsed items fit in
/// a wasm32 guest's 4 GiB together.
pub const MAX_INPUT_BYTES: usize = 256 << 20;

/// Why an input could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ParseError {
    /// No adapter recognised the content.
    #[error("{0}")]
    Unrecognised(String),
    /// The content is not valid in its format.
    #[error("{format}: {message}", format = .format.name())]
    Malformed {
        /// The format it was read as.
        format: SourceFormat,
        /// What is wrong, and where.
        message: String,
    },
    /// The input (or an entry of a zip) is larger than harvest reads.
    #[error("{0}")]
    TooLarge(String),
}

/// The format has no last exchange to read: it is not a session
/// transcript (see [`last_exchange`]).
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{} is not a session transcript: only claude-code transcripts have a last exchange", .0.name())]
pub struct NotATranscript(pub SourceFormat);

/// The last exchange of a session transcript in `format`: the last message
/// the user typed and the assistant's text after it, read with the
/// format's adapter and its rules (what is dialogue, which lines are one
/// reply). Broken lines are skipped, so a transcript's tail cut at any
/// byte reads as well as the whole file. `None` when no user message has
/// an answer after it. Only Claude Code transcripts have one: a coding
/// agent's hook asks for it when a turn ends.
pub fn last_exchange(
    format: SourceFormat,
    transcript: &[u8],
) -> Result<Option<Exchange>, NotATranscript> {
    match format {
        SourceFormat::ClaudeCode => Ok(claude_code::last_exchange(detect::strip_bom(transcript))),
        other => Err(NotATranscript(other)),
    }
}

/// The format of `bytes`, judged by content alone (a zip by the entries it
/// holds). `None` when no adapter reads it.
pub fn detect_format(bytes: &[u8]) -> Option<SourceFormat> {
    let bytes = detect::strip_bom(bytes);
    if detect::is_zip(bytes) {
        return archive::detect(bytes);
    }
    detect::detect_plain(bytes).ok()
}

/// Parse one input. `name` is for messages only; `hint` overrides
/// detection (for a zip, it says what the entries hold).
pub fn parse_input(
    name: &str,
    bytes: &[u8],
    hint: Option<SourceFormat>,
) -> Result<Parsed, ParseError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(ParseError::TooLarge(format!(
            "{name}: {} is more than the {} harvest reads per input",
            size_label(bytes.len() as u64),
            size_label(MAX_INPUT_BYTES as u64)
        )));
    }
    let bytes = detect::strip_bom(bytes);
    if detect::is_zip(bytes) {
        return archive::parse(name, bytes, hint);
    }
    parse_plain(name, bytes, hint)
}

/// Parse bytes that are not a zip (an input, or an entry of one).
fn parse_plain(name: &str, bytes: &[u8], hint: Option<SourceFormat>) -> Result<Parsed, ParseError> {
    let format = match hint {
        Some(format) => format,
        None => detect::detect_plain(bytes)
            .map_err(|why| ParseError::Unrecognised(format!("{name}: {why}")))?,
    };
    parse_as(format, bytes)
}

/// Parse bytes as `format`.
fn parse_as(format: SourceFormat, bytes: &[u8]) -> Result<Parsed, ParseError> {
    let bytes = detect::strip_bom(bytes);
    match format {
        SourceFormat::Pdf => pdf::parse(bytes),
        SourceFormat::Html => html::parse(bytes),
        SourceFormat::Chatgpt => chatgpt::parse(bytes),
        SourceFormat::Claude => claude::parse(bytes),
        SourceFormat::Gemini => gemini::parse(bytes),
        SourceFormat::Perplexity => perplexity::parse(bytes),
        SourceFormat::ClaudeCode => claude_code::parse(bytes),
        SourceFormat::Universal => universal::parse(bytes),
        SourceFormat::Markdown => markdown::parse(text_of(format, bytes)?),
        SourceFormat::PlainText => text::parse(text_of(format, bytes)?),
    }
}

/// The bytes as text for a text format: valid UTF-8 that is not binary.
fn text_of(format: SourceFormat, bytes: &[u8]) -> Result<&str, ParseError> {
    match std::str::from_utf8(bytes) {
        Err(error) => Err(common::malformed(
            format,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                error.valid_up_to()
            ),
        )),
        Ok(_) if detect::as_text(bytes).is_none() => {
            Err(common::malformed(format, "binary data, not text"))
        }
        Ok(text) => Ok(text),
    }
}

/// `12.5 MiB`-style sizes for messages.
pub(crate) fn size_label(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes >= MIB {
        #[allow(clippy::cast_precision_loss)]
        let mib = bytes as f64 / MIB as f64;
        format!("{mib:.1} MiB")
    } else if bytes >= 1024 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}
