//! # OpenAI-compatible chat completions
//!
//! The format nearly every server speaks: OpenAI itself, LiteLLM, vLLM,
//! llama.cpp's server, Ollama's `/v1`, and many gateways.
//!
//! ```text
//! POST {base_url}/chat/completions          base_url includes /v1
//! Authorization: Bearer <key>               only when a key is configured
//!
//! {"model": "gpt-4.1-mini",
//!  "messages": [{"role": "system", "content": "<system>"},     omitted when empty
//!               {"role": "user", "content": "<prompt>"}],
//!  "max_tokens": 512,
//!  "response_format": {"type": "json_object"}}                 only for json requests
//! ```
//!
//! The answer is `choices[0].message.content`; `usage.prompt_tokens` and
//! `usage.completion_tokens` are its cost; `choices[0].finish_reason:
//! "length"` means it was cut at `max_tokens`; `model` is the model that
//! answered (often a dated snapshot of the one asked for).
//!
//! OpenAI refuses `json_object` mode unless the word "JSON" appears in the
//! messages, so a json request whose system text and prompt never mention it
//! gets a one-line instruction appended to its system text (see
//! [`super::client`]). A model that declines answers `message.refusal`
//! instead of content: that is `Failed` with the refusal, not retried.

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
        "max_tokens": request.max_tokens.max(1),
    });
    if request.json {
        body["response_format"] = json!({"type": "json_object"});
    }
    let mut headers = Vec::new();
    if let Some(key) = key {
        headers.push(("authorization", format!("Bearer {}", key.expose())));
    }
    WireRequest {
        url: format!("{base_url}/chat/completions"),
        headers,
        body,
    }
}

pub(crate) fn parse(answer: &Json) -> Result<WireAnswer, ParseError> {
    let choice = answer.get("choices").and_then(|choices| choices.get(0));
    let Some(choice) = choice else {
        if let Some(error) = answer.get("error") {
            return Err(ParseError::Provider(format!(
                "the answer is an error: {}",
                super::wire::describe_error(error)
            )));
        }
        return Err(ParseError::Malformed("no `choices[0]`".into()));
    };
    let message = choice.get("message");
    let text = match message
        .and_then(|m| m.get("content"))
        .and_then(Json::as_str)
    {
        Some(text) => text.to_string(),
        None => {
            if let Some(refusal) = message
                .and_then(|m| m.get("refusal"))
                .and_then(Json::as_str)
            {
                return Err(ParseError::Provider(format!(
                    "the model refused: {}",
                    crate::excerpt(refusal, 300)
                )));
            }
            return Err(ParseError::Malformed(
                "no `choices[0].message.content`".into(),
            ));
        }
    };
    let usage = answer.get("usage");
    Ok(WireAnswer {
        text,
        model: answer
            .get("model")
            .and_then(Json::as_str)
            .map(str::to_string),
        usage: TokenUsage {
            input_tokens: tokens(usage, "prompt_tokens"),
            output_tokens: tokens(usage, "completion_tokens"),
        },
        truncated: choice.get("finish_reason").and_then(Json::as_str) == Some("length"),
    })
}
