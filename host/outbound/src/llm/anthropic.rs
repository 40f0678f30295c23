//! # Anthropic Messages
//!
//! ```text
//! POST {base_url}/v1/messages               base_url without /v1
//! x-api-key: <key>
//! anthropic-version: 2023-06-01
//!
//! {"model": "claude-haiku-4-5",
//!  "max_tokens": 512,                        required by the API
//!  "system": "<system>",                     top level, not a message; omitted when empty
//!  "messages": [{"role": "user", "content": "<prompt>"}]}
//! ```
//!
//! The answer's `content` is a list of blocks; the text is the `text` of its
//! `type: "text"` blocks, joined. `usage.input_tokens` (plus the prompt-cache
//! counts `cache_creation_input_tokens` and `cache_read_input_tokens`, which
//! `input_tokens` leaves out) and `usage.output_tokens` are its cost;
//! `stop_reason: "max_tokens"` means it was cut; `stop_reason: "refusal"` is
//! `Failed`, not retried.
//!
//! The Messages API has no JSON switch, so a json request gets an instruction
//! to answer with one JSON object appended to its system text.

use serde_json::{Value as Json, json};

use super::wire::{ParseError, WireAnswer, WireRequest, json_instruction, tokens};
use super::{ApiKey, CompletionRequest, TokenUsage};

/// The API version sent in `anthropic-version`.
pub const API_VERSION: &str = "2023-06-01";

pub(crate) fn request(
    base_url: &str,
    model: &str,
    key: Option<&ApiKey>,
    request: &CompletionRequest,
) -> WireRequest {
    let system = json_instruction(&request.system, &request.prompt, request.json, true);
    let mut body = json!({
        "model": model,
        "max_tokens": request.max_tokens.max(1),
        "messages": [{"role": "user", "content": request.prompt}],
    });
    if !system.is_empty() {
        body["system"] = Json::String(system);
    }
    let mut headers = vec![("anthropic-version", API_VERSION.to_string())];
    if let Some(key) = key {
        headers.push(("x-api-key", key.expose().to_string()));
    }
    WireRequest {
        url: format!("{base_url}/v1/messages"),
        headers,
        body,
    }
}

pub(crate) fn parse(answer: &Json) -> Result<WireAnswer, ParseError> {
    if answer.get("type").and_then(Json::as_str) == Some("error") {
        let error = answer.get("error").unwrap_or(answer);
        return Err(ParseError::Provider(format!(
            "the answer is an error: {}",
            super::wire::describe_error(error)
        )));
    }
    let blocks = answer
        .get("content")
        .and_then(Json::as_array)
        .ok_or_else(|| ParseError::Malformed("no `content` list".into()))?;
    let stop_reason = answer.get("stop_reason").and_then(Json::as_str);
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|block| block.get("type").and_then(Json::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Json::as_str))
        .collect();
    if stop_reason == Some("refusal") {
        return Err(ParseError::Provider(format!(
            "the model refused{}",
            if texts.is_empty() {
                String::new()
            } else {
                format!(": {}", crate::excerpt(&texts.concat(), 300))
            }
        )));
    }
    if texts.is_empty() {
        return Err(ParseError::Malformed("no `text` block in `content`".into()));
    }
    let usage = answer.get("usage");
    let input = u64::from(tokens(usage, "input_tokens"))
        + u64::from(tokens(usage, "cache_creation_input_tokens"))
        + u64::from(tokens(usage, "cache_read_input_tokens"));
    Ok(WireAnswer {
        text: texts.concat(),
        model: answer
            .get("model")
            .and_then(Json::as_str)
            .map(str::to_string),
        usage: TokenUsage {
            input_tokens: u32::try_from(input).unwrap_or(u32::MAX),
            output_tokens: tokens(usage, "output_tokens"),
        },
        truncated: stop_reason == Some("max_tokens"),
    })
}
