//! # Ollama's native chat
//!
//! ```text
//! POST {base_url}/api/chat                  base_url: http://localhost:11434, or OLLAMA_HOST
//! Authorization: Bearer <key>               only when a key is configured (a proxy in front)
//!
//! {"model": "llama3.2",
//!  "messages": [{"role": "system", "content": "<system>"},     omitted when empty
//!               {"role": "user", "content": "<prompt>"}],
//!  "stream": false,                          one JSON answer, not a stream of lines
//!  "format": "json",                         only for json requests
//!  "options": {"num_predict": 512}}          Ollama's name for max_tokens
//! ```
//!
//! The answer is `message.content`; `prompt_eval_count` and `eval_count` are
//! its cost (Ollama leaves `prompt_eval_count` out when the prompt was
//! cached: 0 then); `done_reason: "length"` means it was cut. Ollama's docs
//! ask that a `format: "json"` request also tell the model to answer in JSON,
//! so one whose texts never mention JSON gets that instruction appended.
//!
//! For Ollama's OpenAI-compatible endpoint instead, use `provider = "openai"`
//! with `base_url = "http://localhost:11434/v1"`.

use serde_json::{Value as Json, json};

use super::wire::{ParseError, WireAnswer, WireRequest, chat_messages, tokens};
use super::{ApiKey, CompletionRequest, TokenUsage};

pub(crate) fn request(
    base_url: &str,
    model: &str,
    key: Option<&ApiKey>,
    request: &CompletionRequest,
) -> WireRequest {
    let messages = chat_messages(request);
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": false,
        "options": {"num_predict": request.max_tokens.max(1)},
    });
    if request.json {
        body["format"] = Json::String("json".into());
    }
    let mut headers = Vec::new();
    if let Some(key) = key {
        headers.push(("authorization", format!("Bearer {}", key.expose())));
    }
    WireRequest {
        url: format!("{base_url}/api/chat"),
        headers,
        body,
    }
}

pub(crate) fn parse(answer: &Json) -> Result<WireAnswer, ParseError> {
    let text = match answer
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Json::as_str)
    {
        Some(text) => text.to_string(),
        None => {
            if let Some(error) = answer.get("error") {
                return Err(ParseError::Provider(format!(
                    "the answer is an error: {}",
                    super::wire::describe_error(error)
                )));
            }
            return Err(ParseError::Malformed("no `message.content`".into()));
        }
    };
    Ok(WireAnswer {
        text,
        model: answer
            .get("model")
            .and_then(Json::as_str)
            .map(str::to_string),
        usage: TokenUsage {
            input_tokens: tokens(Some(answer), "prompt_eval_count"),
            output_tokens: tokens(Some(answer), "eval_count"),
        },
        truncated: answer.get("done_reason").and_then(Json::as_str) == Some("length"),
    })
}
