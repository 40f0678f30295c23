//! Perplexity threads. Perplexity has no account-wide export, so threads
//! arrive in the forms people and tools save them in. Accepted:
//!
//! # Markdown (the thread's own "Export → Markdown")
//!
//! ```text
//! <img src="https://r2cdn.perplexity.ai/pplx-full-logo-primary-dark%402x.png" …/>
//!
//! # What is the capital of France?          ← the query, as an H1
//!
//! The capital is **Paris**.[^1_1]            ← the answer (its own
//! <span style="display:none">[^1_2]</span>     headings are ##, ###)
//!
//! <div align="center">⁂</div>               ← the answer's sources follow
//!
//! [^1_1]: https://…
//!
//! ---
//!
//! # And its population?                     ← the next turn
//! ```
//!
//! A turn starts at an H1 that opens the document or follows a turn break
//! (`---`, or the renderers' `* * *`): answers hold `#` headings of their
//! own after an unspaced `***` rule, so not every H1 is a query. A file
//! with no query heading at all (a Perplexity "page") is read as a Markdown
//! document, and noted. Hidden citation spans,
//! footnote markers (`[^1_2]`) and the footnote list after `⁂` are dropped
//! (the number of sources is noted). Tools that render the thread API to
//! Markdown (front matter with the thread URL, `>[!important]` callouts
//! holding the full query) are read too: the callout's text, when present,
//! is the query. A multi-line query in the native export shows only its
//! first line as the H1; the rest reads as the start of the answer.
//!
//! # JSON
//!
//! - The thread API response that exporter tools save:
//!   `{"entries": [{"query_str", "blocks": [{"intended_usage": "ask_text",
//!   "markdown_block": {"answer"}}, …], "thread_title", "thread_url_slug",
//!   "updated_datetime"}]}` (or a list of entries). The answer is the
//!   `ask_text` block's Markdown; older entries carry it as `answer` or
//!   inside the `text` step list (`step_type: "FINAL"`). Entries group into
//!   threads by `thread_url_slug` (else `context_uuid`).
//! - Exporters' thread lists: `{"threads": [{"title", "created_at",
//!   "thread_id", "messages": [{"role", "content", "created_at"}]}]}`,
//!   read with the universal adapter's message rules.
//!
//! Ids: the thread's URL slug (or `thread_id`) when known, else a hash of
//! the first query and the start of its answer — stable when the thread
//! grows.

use serde_json::{Map, Value};

use super::ParseError;
use super::common::{
    RawTime, TITLE_CHARS, Tally, clean_text, collapse, content_id, conversation, first_json_byte,
    json_error, malformed, no_dialogue_note, short_title,
};
use super::markdown::{Fences, atx_heading, front_matter, line_spans};
use crate::item::{Message, Parsed, Role, SourceFormat};

const FORMAT: SourceFormat = SourceFormat::Perplexity;

/// Whether Markdown text is a Perplexity thread export.
pub(crate) fn looks_like_markdown_export(head: &str) -> bool {
    if head.contains("r2cdn.perplexity.ai/pplx-full-logo") {
        return true;
    }
    if head.contains("\u{2042}</div>") && head.contains("[^1_") {
        return true;
    }
    front_matter(head).is_some_and(|matter| {
        matter
            .entries
            .iter()
            .any(|(_, value)| value.contains("perplexity.ai/search/"))
    })
}

/// Parse a Perplexity thread (JSON or Markdown).
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    match first_json_byte(bytes) {
        Some(b'[' | b'{') => parse_json(bytes),
        _ => {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                malformed(
                    FORMAT,
                    format!(
                        "not UTF-8 text (invalid byte at offset {})",
                        e.valid_up_to()
                    ),
                )
            })?;
            parse_markdown(text)
        }
    }
}

fn parse_json(bytes: &[u8]) -> Result<Parsed, ParseError> {
    let root: Value = serde_json::from_slice(bytes).map_err(|e| json_error(FORMAT, &e))?;
    let mut parsed = Parsed {
        format: FORMAT,
        items: Vec::new(),
        notes: Vec::new(),
    };
    let (entries, threads): (Vec<&Value>, Vec<&Value>) = match &root {
        Value::Object(object) => {
            if let Some(Value::Array(entries)) = object.get("entries") {
                (entries.iter().collect(), Vec::new())
            } else if let Some(Value::Array(threads)) = object.get("threads") {
                (Vec::new(), threads.iter().collect())
            } else if object.contains_key("query_str") {
                (vec![&root], Vec::new())
            } else {
                return Err(malformed(
                    FORMAT,
                    "a JSON object without `entries`, `threads` or `query_str`",
                ));
            }
        }
        Value::Array(elements) => {
            let threads_first = elements
                .first()
                .is_some_and(|e| e.get("messages").is_some());
            if threads_first {
                (Vec::new(), elements.iter().collect())
            } else {
                (elements.iter().collect(), Vec::new())
            }
        }
        _ => {
            return Err(malformed(
                FORMAT,
                "expected a JSON thread (an object or a list)",
            ));
        }
    };
    for (index, thread) in threads.iter().enumerate() {
        match thread.get("messages") {
            Some(Value::Array(messages)) => {
                match super::universal::build(messages, thread.as_object(), FORMAT) {
                    Ok(item) => parsed.items.push(item),
                    Err(note) => parsed.notes.push(note),
                }
            }
            _ => parsed
                .notes
                .push(format!("thread #{index} skipped: no `messages` list")),
        }
    }
    if !entries.is_empty() {
        read_entries(&entries, &mut parsed)?;
    }
    if parsed.items.is_empty() && parsed.notes.is_empty() {
        parsed
            .notes
            .push("the file holds no Perplexity threads".into());
    }
    Ok(parsed)
}

struct Thread {
    key: String,
    title: Option<String>,
    messages: Vec<Message>,
    tally: Tally,
}

fn string_at<'a>(object: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|key| object.get(*key).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
}

fn read_entries(entries: &[&Value], parsed: &mut Parsed) -> Result<(), ParseError> {
    let mut threads: Vec<Thread> = Vec::new();
    let mut readable = 0usize;
    for (index, entry) in entries.iter().enumerate() {
        let Some(object) = entry.as_object() else {
            parsed
                .notes
                .push(format!("entry #{index} skipped: not an object"));
            continue;
        };
        let Some(query) =
            string_at(object, &["query_str", "query", "question"]).and_then(clean_text)
        else {
            parsed
                .notes
                .push(format!("entry #{index} skipped: no `query_str`"));
            continue;
        };
        readable += 1;
        let key = string_at(
            object,
            &[
                "thread_url_slug",
                "context_uuid",
                "frontend_context_uuid",
                "thread_id",
            ],
        )
        .unwrap_or("")
        .to_string();
        let position = match threads.iter().position(|t| t.key == key) {
            Some(position) => position,
            None => {
                threads.push(Thread {
                    key: key.clone(),
                    title: None,
                    messages: Vec::new(),
                    tally: Tally::default(),
                });
                threads.len() - 1
            }
        };
        let Some(thread) = threads.get_mut(position) else {
            continue;
        };
        if thread.title.is_none() {
            thread.title = string_at(object, &["thread_title", "title"]).and_then(collapse);
        }
        let time = [
            "updated_datetime",
            "entry_updated_datetime",
            "created_at",
            "timestamp",
        ]
        .iter()
        .find_map(|key| object.get(*key).and_then(Value::as_str))
        .map(|text| RawTime::Text(text.to_string()))
        .unwrap_or_default()
        .resolve(&mut thread.tally);
        thread.messages.push(Message {
            role: Role::User,
            text: query,
            timestamp: time.clone(),
        });
        match answer_of(object, &mut thread.tally) {
            Some(answer) => thread.messages.push(Message {
                role: Role::Assistant,
                text: answer,
                timestamp: time,
            }),
            None => thread.tally.bump("query(s) with no answer in the export"),
        }
    }
    if readable == 0 && !entries.is_empty() {
        return Err(malformed(FORMAT, "no entry has a `query_str`"));
    }
    for thread in threads {
        let first_query = thread
            .messages
            .first()
            .map(|m| m.text.clone())
            .unwrap_or_default();
        let first_answer: String = thread
            .messages
            .get(1)
            .map(|m| m.text.chars().take(200).collect())
            .unwrap_or_default();
        let id = if thread.key.is_empty() {
            content_id(
                "perplexity",
                &[first_query.as_bytes(), first_answer.as_bytes()],
            )
        } else {
            format!("perplexity-{}", thread.key)
        };
        let title = thread
            .title
            .or_else(|| short_title(&first_query, TITLE_CHARS));
        parsed.items.push(conversation(
            id,
            FORMAT,
            title,
            None,
            thread.messages,
            thread.tally.into_notes(),
        ));
    }
    Ok(())
}

/// An entry's answer: the `ask_text` block's Markdown, else `answer`, else
/// the final step inside `text`.
fn answer_of(entry: &Map<String, Value>, tally: &mut Tally) -> Option<String> {
    if let Some(Value::Array(blocks)) = entry.get("blocks") {
        let mut answer = None;
        for block in blocks {
            let usage = block
                .get("intended_usage")
                .and_then(Value::as_str)
                .unwrap_or("");
            let markdown = block
                .get("markdown_block")
                .and_then(|m| m.get("answer"))
                .and_then(Value::as_str);
            match (usage, markdown) {
                (_, Some(text))
                    if answer.is_none() && (usage == "ask_text" || usage.is_empty()) =>
                {
                    answer = clean_text(text);
                }
                ("plan" | "pro_search_steps" | "reasoning_plan" | "ask_text", _) => {}
                (other, _) => tally.bump(format!(
                    "answer block(s) '{other}' left out (sources, media)"
                )),
            }
        }
        if answer.is_some() {
            return answer;
        }
    }
    if let Some(answer) = string_at(entry, &["answer", "response"]).and_then(clean_text) {
        return Some(answer);
    }
    let text = string_at(entry, &["text"])?;
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(steps)) => steps.iter().rev().find_map(|step| {
            if step.get("step_type").and_then(Value::as_str) != Some("FINAL") {
                return None;
            }
            let answer = step
                .get("content")
                .and_then(|c| c.get("answer"))?
                .as_str()?;
            match serde_json::from_str::<Value>(answer) {
                Ok(inner) => inner
                    .get("answer")
                    .and_then(Value::as_str)
                    .and_then(clean_text),
                Err(_) => clean_text(answer),
            }
        }),
        Ok(Value::Object(object)) => string_at(&object, &["answer"]).and_then(clean_text),
        Ok(_) => None,
        Err(_) => clean_text(text),
    }
}

/// Is this line a break between turns: `---` (Perplexity's own export) or
/// `* * *` (the thread-API renderers)? An unspaced `***` is a rule inside
/// an answer.
fn is_break(line: &str) -> bool {
    let trimmed = line.trim();
    (trimmed.len() >= 3 && trimmed.chars().all(|c| c == '-')) || trimmed == "* * *"
}

struct Turn {
    query: String,
    body: Vec<String>,
}

fn parse_markdown(text: &str) -> Result<Parsed, ParseError> {
    let mut notes = Vec::new();
    let matter = front_matter(text);
    let mut slug = None;
    let body = match &matter {
        Some(matter) => {
            for (_, value) in &matter.entries {
                if let Some((_, rest)) = value.split_once("perplexity.ai/search/") {
                    let found: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                        .collect();
                    if !found.is_empty() {
                        slug = Some(found);
                    }
                }
            }
            text.get(matter.body_start..).unwrap_or("")
        }
        None => text,
    };

    let mut tally = Tally::default();
    let mut turns: Vec<Turn> = Vec::new();
    let mut preamble: Vec<String> = Vec::new();
    let mut fences = Fences::default();
    // Whether the last non-blank line was a thematic break (or nothing yet).
    let mut after_break = true;
    for (_, line) in line_spans(body) {
        if fences.in_code(line) {
            push_line(&mut turns, &mut preamble, line);
            after_break = false;
            continue;
        }
        if line.trim_start().starts_with("<img") && line.contains("perplexity.ai") {
            continue;
        }
        if let Some((1, query)) = atx_heading(line)
            && (after_break || turns.is_empty())
        {
            // The break belonged between turns, not to the answer.
            if let Some(turn) = turns.last_mut() {
                while turn
                    .body
                    .last()
                    .is_some_and(|l| l.trim().is_empty() || is_break(l))
                {
                    turn.body.pop();
                }
            }
            turns.push(Turn {
                query,
                body: Vec::new(),
            });
            after_break = false;
            continue;
        }
        if !line.trim().is_empty() {
            after_break = is_break(line);
        }
        push_line(&mut turns, &mut preamble, line);
    }

    if turns.is_empty() {
        let mut parsed = super::markdown::parse(text)?;
        parsed.notes.insert(
            0,
            "a Perplexity export with no query headings; read as a Markdown document".into(),
        );
        return Ok(parsed);
    }
    let mut messages = Vec::new();
    for turn in turns {
        let (query, answer, sources) = split_turn(turn);
        tally.add("source link(s) left out", sources);
        let Some(query) = clean_text(&query) else {
            tally.bump("turn(s) with an empty query left out");
            continue;
        };
        messages.push(Message {
            role: Role::User,
            text: query,
            timestamp: None,
        });
        match answer {
            Some(answer) => messages.push(Message {
                role: Role::Assistant,
                text: answer,
                timestamp: None,
            }),
            None => tally.bump("query(s) with no answer in the export"),
        }
    }
    if clean_text(&preamble.join("\n")).is_some() {
        notes.push("text before the first query left out".into());
    }
    let first_query = messages.first().map(|m| m.text.clone()).unwrap_or_default();
    let first_answer: String = messages
        .get(1)
        .map(|m| m.text.chars().take(200).collect())
        .unwrap_or_default();
    let id = match slug {
        Some(slug) => format!("perplexity-{slug}"),
        None => content_id(
            "perplexity",
            &[first_query.as_bytes(), first_answer.as_bytes()],
        ),
    };
    let title = short_title(&first_query, TITLE_CHARS);
    let mut parsed = Parsed {
        format: FORMAT,
        items: Vec::new(),
        notes: Vec::new(),
    };
    if messages.is_empty() {
        parsed
            .notes
            .push(no_dialogue_note("thread", &id, title.as_deref()));
        return Ok(parsed);
    }
    notes.splice(0..0, tally.into_notes());
    parsed
        .items
        .push(conversation(id, FORMAT, title, None, messages, notes));
    Ok(parsed)
}

fn push_line(turns: &mut [Turn], preamble: &mut Vec<String>, line: &str) {
    match turns.last_mut() {
        Some(turn) => turn.body.push(line.to_string()),
        None => preamble.push(line.to_string()),
    }
}

/// A turn's query (the callout's full text when there is one), its answer
/// without hidden spans, footnote markers and the sources list, and the
/// number of sources dropped.
fn split_turn(turn: Turn) -> (String, Option<String>, usize) {
    let mut query = turn.query;
    let mut lines: Vec<String> = Vec::new();
    let mut callout: Option<Vec<String>> = None;
    let mut in_sources = false;
    let mut sources = 0usize;
    for line in turn.body {
        let trimmed = line.trim();
        if in_sources {
            if trimmed.starts_with("[^") {
                sources += 1;
            } else if !trimmed.is_empty() {
                in_sources = false;
                lines.push(line);
            }
            continue;
        }
        if trimmed.contains('\u{2042}') && trimmed.starts_with("<div") {
            in_sources = true;
            continue;
        }
        if let Some(rest) = trimmed
            .strip_prefix(">[!important]")
            .or_else(|| trimmed.strip_prefix("> [!important]"))
        {
            callout = Some(vec![rest.trim().to_string()]);
            continue;
        }
        if let Some(parts) = callout.as_mut() {
            if let Some(rest) = trimmed.strip_prefix('>') {
                parts.push(rest.trim_start().to_string());
                continue;
            }
            query = parts.join("\n");
            callout = None;
        }
        if trimmed.starts_with("[^") && trimmed.contains("]:") {
            sources += 1;
            continue;
        }
        lines.push(line);
    }
    if let Some(parts) = callout {
        query = parts.join("\n");
    }
    let answer = strip_citations(&lines.join("\n"));
    (query, clean_text(&answer), sources)
}

/// Without `<span style="display:none">…</span>` and `[^1_2]` markers.
fn strip_citations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, hidden)) = rest.split_once("<span style=\"display:none\">") {
        out.push_str(before);
        rest = hidden.split_once("</span>").map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    let mut cleaned = String::with_capacity(out.len());
    let mut chars = out.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '['
            && let Some(marker) = out.get(at..).and_then(|from| from.strip_prefix("[^"))
            && let Some((inner, _)) = marker.split_once(']')
            && !inner.is_empty()
            && inner.chars().all(|c| c.is_ascii_digit() || c == '_')
        {
            // The closing `]`.
            let end = at + "[^".len() + inner.len();
            while chars.peek().is_some_and(|(i, _)| *i <= end) {
                chars.next();
            }
            continue;
        }
        cleaned.push(c);
    }
    cleaned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_are_stripped() {
        assert_eq!(
            strip_citations(
                "Paris.[^1_1][^1_2] x<span style=\"display:none\">[^1_3]</span> [^note] y"
            ),
            "Paris. x [^note] y"
        );
    }

    #[test]
    fn breaks() {
        assert!(is_break("---"));
        assert!(is_break("* * *"));
        assert!(!is_break("***"));
        assert!(!is_break("--"));
        assert!(!is_break("- a"));
    }
}
