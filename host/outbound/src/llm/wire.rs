//! # What the client and the wire formats share
//!
//! The client ([`super::client`]) asks a wire format ([`super::openai`],
//! [`super::anthropic`], [`super::ollama`]) for a [`WireRequest`] and hands
//! it the answer to read into a [`WireAnswer`] (or a [`ParseError`]). These
//! types and the helpers every format uses to build and read its JSON live
//! here, below both, so the client depends on the formats and the formats
//! only on this module: imports point one way.

use serde_json::Value as Json;

use super::{CompletionRequest, TokenUsage};

/// Appended to the system text of a json request that never mentions JSON.
const JSON_HINT: &str = "Answer in JSON.";
/// Appended to the system text of every json request to a provider without
/// a JSON mode (Anthropic).
const JSON_ONLY: &str = "Answer with JSON only: no prose before or after it, no code fences.";

/// One provider request, ready to send.
pub(crate) struct WireRequest {
    /// The full URL.
    pub url: String,
    /// Extra headers (the key among them: never log these).
    pub headers: Vec<(&'static str, String)>,
    /// The JSON body.
    pub body: Json,
}

/// What a provider answered, read from its wire format.
pub(crate) struct WireAnswer {
    /// The text.
    pub text: String,
    /// The model that answered, if the provider said.
    pub model: Option<String>,
    /// The tokens it reported.
    pub usage: TokenUsage,
    /// It stopped at `max_tokens`.
    pub truncated: bool,
}

/// Why a successful HTTP answer could not be read.
pub(crate) enum ParseError {
    /// Not the wire format's shape (retried once).
    Malformed(String),
    /// The provider answered, but with an error or a refusal (not retried).
    Provider(String),
}

/// The `messages` of a chat request in the OpenAI and Ollama shapes: the
/// system text (with the JSON instruction where it is needed), when there
/// is one, then the prompt as the user's message.
pub(crate) fn chat_messages(request: &CompletionRequest) -> Vec<serde_json::Value> {
    let system = json_instruction(&request.system, &request.prompt, request.json, false);
    let mut messages = Vec::with_capacity(2);
    if !system.is_empty() {
        messages.push(serde_json::json!({"role": "system", "content": system}));
    }
    messages.push(serde_json::json!({"role": "user", "content": request.prompt}));
    messages
}

/// The system text to send: `system`, plus a JSON instruction for a json
/// request (always when `always`, else only when neither text mentions JSON).
pub(crate) fn json_instruction(system: &str, prompt: &str, json: bool, always: bool) -> String {
    let mentions_json = |text: &str| text.to_ascii_lowercase().contains("json");
    if !json || (!always && (mentions_json(system) || mentions_json(prompt))) {
        return system.to_string();
    }
    let line = if always { JSON_ONLY } else { JSON_HINT };
    if system.trim().is_empty() {
        line.to_string()
    } else {
        format!("{}\n\n{line}", system.trim_end())
    }
}

/// A token count field of `object` (0 when absent; saturated to `u32`).
pub(crate) fn tokens(object: Option<&Json>, field: &str) -> u32 {
    object
        .and_then(|o| o.get(field))
        .and_then(Json::as_u64)
        .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// A provider's error value (`"text"` or `{"message": …, "type": …}`) in a
/// line.
pub(crate) fn describe_error(error: &Json) -> String {
    match error {
        Json::String(text) => crate::excerpt(text, 300),
        Json::Object(fields) => {
            let message = fields
                .get("message")
                .and_then(Json::as_str)
                .map(|m| crate::excerpt(m, 300));
            let kind = fields
                .get("type")
                .or_else(|| fields.get("code"))
                .and_then(Json::as_str);
            match (message, kind) {
                (Some(message), Some(kind)) => format!("{message} ({kind})"),
                (Some(message), None) => message,
                _ => crate::excerpt(&error.to_string(), 300),
            }
        }
        other => crate::excerpt(&other.to_string(), 300),
    }
}
